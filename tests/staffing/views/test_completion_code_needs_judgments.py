"""Issue 14, point 5: a crowd worker who flags (or skips) their way through the study is not shown the
completion code; it needs the link's minimum of judged screens, with at most its share flagged or left."""

import pytest
from django.test import Client

from annotation.models import Assignment
from staffing.models import ExternalWorker
from staffing.services import external_link_reset
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import rating_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    project = rating_project(n_items=5)
    lead = UserFactory(username="crowd-lead")
    MembershipFactory(project=project, user=lead, role="lead")
    link = external_link_reset(project=project, by=lead)
    return project, link, lead


def _work_through(project, link, worker_id: str, *, flag: int) -> str:
    """Enters as ``worker_id``, flags the first ``flag`` screens and judges the rest through the pages;
    returns the done page."""
    client = Client()
    assert client.get(f"/projects/{project.pk}/external/{link.token}/?worker_id={worker_id}").status_code == 302
    client.get(f"/projects/{project.pk}/instructions/")
    criterion = project.criteria.get()
    for screen in range(20):
        response = client.get(f"/projects/{project.pk}/rate/")
        if response.status_code == 302:
            assert response["Location"] == f"/projects/{project.pk}/done/"
            return client.get(response["Location"]).content.decode()
        assignment = Assignment.objects.get(rater__external_worker__worker_id=worker_id, status="active")
        if screen < flag:
            sent = client.post(f"/assignments/{assignment.pk}/flag/", {"reason": "cannot_judge"})
        else:
            sent = client.post(f"/assignments/{assignment.pk}/submit/", {f"v-{criterion.pk}-0": "4"})
        assert sent.status_code == 302
    raise AssertionError("never finished")


def test_flagging_every_screen_gets_no_completion_code(study):
    project, link, _ = study
    page = _work_through(project, link, "FLAGGER1", flag=5)
    worker = ExternalWorker.objects.get(worker_id="FLAGGER1")
    assert worker.completion_code not in page
    assert 'data-testid="no-completion"' in page and "You judged 0, flagged 5" in page
    worker.refresh_from_db()
    assert worker.completed_at is None


def test_an_honest_flag_within_the_share_still_earns_the_code(study):
    project, link, _ = study
    page = _work_through(project, link, "HONEST1", flag=1)  # 1 of 5 screens: the default 20 %
    assert ExternalWorker.objects.get(worker_id="HONEST1").completion_code in page
    assert "You judged 4 screens." in page  # screens, as the rater's progress counts them


def test_the_lead_sets_the_minimum_on_the_link_page(study):
    project, link, lead = study
    client = Client()
    client.force_login(lead)
    response = client.post(
        f"/projects/{project.pk}/external/",
        {"action": "settings", "min_judged_screens": "5", "max_unjudged_percent": "20"},
    )
    assert response.status_code == 302
    page = _work_through(project, link, "ALMOST1", flag=1)
    assert ExternalWorker.objects.get(worker_id="ALMOST1").completion_code not in page
    assert "at least 5 screens" in page
