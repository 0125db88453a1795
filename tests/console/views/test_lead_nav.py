"""Every page of a project's lead carries the same navigation, its links in labelled groups, marking the page it
is on; every lead page is reachable from it; raters never get it."""

import re

import pytest
from django.contrib.auth.models import Permission

pytestmark = pytest.mark.django_db

GROUPS = {
    "Set up": ["Overview", "Settings", "Upload items", "Items", "Team", "Allocation", "Rater profile"],
    "Run": ["Progress", "Quality control", "Adjudication", "Try as a rater", "Audit log"],
    "Analysis": ["Agreement", "Results", "Judges", "Metrics", "Study plan", "Export"],
}
PAGES = [
    ("", "Overview"),
    ("settings/", "Settings"),
    ("items/upload/", "Upload items"),
    ("items/", "Items"),
    ("team/", "Team"),
    ("invites/", "Team"),
    ("accounts/", "Team"),
    ("external/", "Team"),
    ("allocation/", "Allocation"),
    ("progress/", "Progress"),
    ("raters/", "Quality control"),
    ("qc/rules/", "Quality control"),
    ("qc/controls/", "Quality control"),
    ("adjudication/", "Adjudication"),
    ("profile/form/", "Rater profile"),
    ("agreement/", "Agreement"),
    ("results/", "Results"),
    ("judges/", "Judges"),
    ("metrics/inputs/", "Metrics"),
    ("plan/", "Study plan"),
    ("export/", "Export"),
    ("audit/", "Audit log"),
    ("clone/", "Overview"),
]
NAV = re.compile(r'<nav class="lead-nav"[^>]*data-testid="lead-nav">(.*?)</nav>', re.S)
GROUP = re.compile(
    r'<span class="lead-nav-label" id="([^"]+)">([^<]+)</span>\s*<ul aria-labelledby="([^"]+)">(.*?)</ul>', re.S
)
LINK = re.compile(r'<a href="([^"]+)"( aria-current="page")?>([^<]+)</a>')


def nav_of(html: str) -> str:
    bars = NAV.findall(html)
    assert len(bars) == 1
    return bars[0]


@pytest.fixture
def lead_client(client, lead):
    lead.user_permissions.add(Permission.objects.get(codename="add_project"))  # cloning creates a project
    client.force_login(lead)
    return client


@pytest.mark.parametrize(("path", "current"), PAGES)
def test_each_lead_page_has_the_grouped_bar_with_its_own_entry_current(lead_client, project, path, current):
    response = lead_client.get(f"/projects/{project.pk}/{path}")
    assert response.status_code == 200, path
    bar = nav_of(response.content.decode())
    groups = GROUP.findall(bar)
    assert [label for _, label, _, _ in groups] == list(GROUPS)
    assert all(label_id == list_id for label_id, _, list_id, _ in groups)  # each list is named by its label
    assert {label: [text for _, _, text in LINK.findall(links)] for _, label, _, links in groups} == GROUPS
    assert [text for _, marked, text in LINK.findall(bar) if marked] == [current]
    assert f'<summary>Menu<span class="lead-nav-here">: {current}</span></summary>' in bar


def test_every_link_of_the_bar_opens_for_the_lead(lead_client, project):
    bar = nav_of(lead_client.get(f"/projects/{project.pk}/").content.decode())
    links = LINK.findall(bar)
    assert len(links) == sum(len(texts) for texts in GROUPS.values())
    for url, _, text in links:
        response = lead_client.get(url)
        assert response.status_code in (200, 302), text
        assert response.status_code == 200 or "/accounts/login/" not in response["Location"], text


def test_raters_do_not_get_the_bar(client, rater, project):
    client.force_login(rater)
    assert 'data-testid="lead-nav"' not in client.get(f"/projects/{project.pk}/").content.decode()
