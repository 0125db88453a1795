"""axe-core (the engine behind Lighthouse's and browsers' accessibility audits) run in Chromium over the
pages leads and raters use, at 1280×800 and at a tablet's width: no violation of WCAG 2.1 A/AA rules of
serious or critical impact (contrast, names of controls and links, labels, landmarks, ARIA use)."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import Permission

from agreement.services.recompute import agreement_recompute_run
from annotation.models import Membership
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "an-accessible-pass-42"
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
BLOCKING = {"serious", "critical"}
LEAD_PAGES = [
    "",
    "settings/",
    "items/upload/",
    "items/",
    "team/",
    "invites/",
    "accounts/",
    "external/",
    "progress/",
    "raters/",
    "qc/rules/",
    "qc/controls/",
    "agreement/",
    "results/",
    "export/",
    "audit/",
    "clone/",
    "rater-models/",
    "adjudication/",
    "profile/form/",
]
VIEWPORTS = [{"width": 1280, "height": 800}, {"width": 800, "height": 1180}]


def problems(page) -> list[str]:
    found = Axe().run(page, options=WCAG).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {', '.join(n['target'][0] for n in v['nodes'][:3])}"
        for v in found
        if v["impact"] in BLOCKING
    ]


def study(task_type: str, lead, rater):
    project = ProjectFactory(
        name=f"{task_type} study",
        task_type=task_type,
        criteria=["fluency", "coherence"],
        status="live",
        instructions="Read the source, then **judge** each output.",
    )
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
    items = [
        ItemFactory(
            project=project,
            external_id=f"doc{k}",
            input=f"Source text number {k}.",
            references=["A reference summary."],
        )
        for k in range(3)
    ]
    return project, items


@pytest.fixture
def people(db):
    lead = UserFactory(username="a11y-lead", password=PASSWORD)
    lead.user_permissions.add(Permission.objects.get(codename="add_project"))
    return lead, UserFactory(username="a11y-rater", password=PASSWORD)


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["1280", "tablet"])
def test_lead_pages(page, live_server, people, viewport):
    lead, rater = people
    project, items = study("likert", lead, rater)
    second = UserFactory(username="a11y-second")
    MembershipFactory(project=project, user=second, role=Membership.Role.RATER)
    for k, item in enumerate(items):  # two raters on every item, so the dashboard draws its tables and charts
        for criterion in project.criteria.all():
            JudgmentFactory(item=item, rater=rater, criterion=criterion, value=1 + k)
            JudgmentFactory(item=item, rater=second, criterion=criterion, value=1 + (k + 1) % 5)
    agreement_recompute_run(project_id=project.pk)
    page.set_viewport_size(viewport)
    log_in(page, live_server.url, lead.username, PASSWORD, "/")
    found = {"/": problems(page)}
    for path in (
        ["/projects/new/"]
        + [f"/projects/{project.pk}/{p}" for p in LEAD_PAGES]
        + [f"/projects/{project.pk}/items/{items[0].pk}/", f"/projects/{project.pk}/raters/{rater.pk}/"]
    ):
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        found[path] = problems(page)
        if path.endswith("/agreement/"):  # audited with its snapshots drawn, not an empty page
            assert page.locator("#trend-chart").count() == 1 and page.locator("table").count() >= 3
    assert {path: issues for path, issues in found.items() if issues} == {}


@pytest.mark.parametrize("task_type", ["likert", "rankme", "pairwise"])
def test_rater_pages(page, live_server, people, task_type):
    lead, rater = people
    project, _ = study(task_type, lead, rater)
    page.goto(f"{live_server.url}/accounts/login/")
    found = {"login": problems(page)}
    log_in(page, live_server.url, rater.username, PASSWORD, "/")
    found["home"] = problems(page)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    found["project"] = problems(page)
    page.goto(f"{live_server.url}/projects/{project.pk}/rate/")
    page.wait_for_load_state("networkidle")
    found["screen"] = problems(page)
    assert {where: issues for where, issues in found.items() if issues} == {}
