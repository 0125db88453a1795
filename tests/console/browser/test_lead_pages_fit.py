"""Every lead page (quality control aside, checked with its own pages) on the demo's study in progress, at a
laptop's, a tablet's and a phone's width: the page never scrolls sideways (wide tables scroll in their own
region), no Python structure shows through, and a screenshot of each is kept."""

import pytest

from agreement.services.recompute import agreement_recompute_run
from annotation.models import Item, Project
from annotation.services.demo import demo_setup
from tests.accessibility.test_pages_meet_wcag import problems
from tests.browser_support import VIEWPORTS, log_in, page_overflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.slow]

PAGES = {
    "project": "",
    "settings": "settings/",
    "upload": "items/upload/",
    "items": "items/",
    "team": "team/",
    "invites": "invites/",
    "accounts": "accounts/",
    "external": "external/",
    "progress": "progress/",
    "agreement": "agreement/",
    "results": "results/",
    "export": "export/",
    "audit": "audit/",
    "clone": "clone/",
    "try": "try/",
}


@pytest.fixture
def demo(db):
    projects = demo_setup(lead_username="lead", lead_password="lead-pass-1234", rater_password="rater-pass-1234")
    for project in projects:
        agreement_recompute_run(project_id=project.pk)
    return {p.task_type: p for p in projects}


@pytest.mark.parametrize("width", list(VIEWPORTS))
@pytest.mark.parametrize("task_type", ["likert", "pairwise"])
def test_lead_pages_fit_without_sideways_scroll(page, live_server, screenshot, demo, task_type, width):
    project: Project = demo[task_type]
    item = Item.objects.filter(project=project, n_judged__gt=1).first()
    page.set_viewport_size(VIEWPORTS[width])
    log_in(page, live_server.url, "lead", "lead-pass-1234", "/")
    overflow, pythonish, inaccessible = {}, {}, {}
    for name, path in {**PAGES, "item": f"items/{item.pk}/"}.items():
        page.goto(f"{live_server.url}/projects/{project.pk}/{path}")
        page.wait_for_load_state("networkidle")
        overflow[name] = page_overflow(page)
        text = page.inner_text("main")
        pythonish[name] = [s for s in ("{'", "['", "None", "True", "False") if s in text]
        screenshot(page, f"lead-{task_type}-{name}-{width}")
        if width == "phone":  # the wider two are audited by tests/accessibility
            inaccessible[name] = problems(page)
    assert {k: v for k, v in overflow.items() if v > 0} == {}
    assert {k: v for k, v in pythonish.items() if v} == {}
    assert {k: v for k, v in inaccessible.items() if v} == {}
