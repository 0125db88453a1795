"""Every page of a project's lead carries the same navigation bar, marking the page it is on; raters never
get it."""
import re

import pytest
from django.contrib.auth.models import Permission

pytestmark = pytest.mark.django_db

PAGES = [
    ("", "Project"), ("settings/", "Settings"), ("items/upload/", "Upload items"), ("items/", "Items"),
    ("team/", "Team"), ("invites/", "Team"), ("accounts/", "Team"), ("external/", "Team"),
    ("allocation/", "Allocation"), ("progress/", "Progress"), ("raters/", "Quality control"),
    ("agreement/", "Agreement"),
    ("results/", "Results"), ("export/", "Export"), ("audit/", "Audit log"), ("clone/", "Project"),
]
NAV = re.compile(r'<nav class="subnav"[^>]*data-testid="lead-nav">(.*?)</nav>', re.S)


@pytest.mark.parametrize(("path", "current"), PAGES)
def test_each_lead_page_has_the_bar_with_its_own_entry_current(client, lead, project, path, current):
    lead.user_permissions.add(Permission.objects.get(codename="add_project"))  # cloning creates a project
    client.force_login(lead)
    response = client.get(f"/projects/{project.pk}/{path}")
    assert response.status_code == 200, path
    bars = NAV.findall(response.content.decode())
    assert len(bars) == 1, path
    assert re.findall(r'aria-current="page">([^<]+)</a>', bars[0]) == [current]
    assert bars[0].count("<a ") == 16


def test_raters_do_not_get_the_bar(client, rater, project):
    client.force_login(rater)
    assert 'data-testid="lead-nav"' not in client.get(f"/projects/{project.pk}/").content.decode()
