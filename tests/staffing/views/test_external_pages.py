"""The external-worker entry end to end: a worker enters, judges everything, sees their code; the code
is stable on reload and their own; a worker id is checked and never shown to other raters."""

import pytest
from django.test import Client

from annotation.models import Assignment
from staffing.models import ExternalWorker
from staffing.services import external_link_reset
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project


@pytest.fixture
def study():
    project = rating_project(n_items=2, instructions="Rate fluency.")
    lead = UserFactory(username="crowd-lead")
    MembershipFactory(project=project, user=lead, role="lead")
    link = external_link_reset(project=project, by=lead)
    return project, link


def _rate_everything(client, project):
    client.get(f"/projects/{project.pk}/instructions/")
    for _ in range(10):
        response = client.get(f"/projects/{project.pk}/rate/")
        if response.status_code == 302:
            return response
        assignment = Assignment.objects.filter(status="active").latest("id")
        criterion = project.criteria.get()
        response = client.post(f"/assignments/{assignment.pk}/submit/", {f"v-{criterion.pk}-0": "4"})
        assert response.status_code == 302
    raise AssertionError("never finished")


@pytest.mark.django_db
def test_a_worker_enters_judges_and_sees_a_stable_code_of_their_own(study):
    project, link = study
    client = Client()
    response = client.get(f"/projects/{project.pk}/external/{link.token}/?PROLIFIC_PID=5f2a9c1e8b7d6a0012345678")
    assert response.status_code == 302 and response["Location"] == f"/projects/{project.pk}/rate/"
    worker = ExternalWorker.objects.get()
    # Before finishing, the done page sends the worker back to work
    assert client.get(f"/projects/{project.pk}/done/")["Location"] == f"/projects/{project.pk}/rate/"
    finished = _rate_everything(client, project)
    assert finished["Location"] == f"/projects/{project.pk}/done/"
    page = client.get(f"/projects/{project.pk}/done/").content.decode()
    assert worker.completion_code in page
    assert client.get(f"/projects/{project.pk}/done/").content.decode().count(worker.completion_code) == 1
    worker.refresh_from_db()
    assert worker.completed_at is not None

    # A second worker gets another code; the first one's code and id are nowhere on their pages
    other = Client()
    other.get(f"/projects/{project.pk}/external/{link.token}/?worker_id=MTURK42")
    second = ExternalWorker.objects.get(worker_id="MTURK42")
    assert second.completion_code != worker.completion_code
    for path in (
        f"/projects/{project.pk}/",
        f"/projects/{project.pk}/instructions/",
        "/",
        f"/projects/{project.pk}/done/",
        f"/projects/{project.pk}/rate/",
    ):
        body = other.get(path).content.decode()
        assert "5f2a9c1e8b7d6a0012345678" not in body and worker.completion_code not in body


@pytest.mark.django_db
def test_a_plain_rater_who_finishes_sees_the_ordinary_finished_screen(study):
    project, _ = study
    (rater,) = add_raters(project)
    client = Client()
    client.force_login(rater)
    client.get(f"/projects/{project.pk}/instructions/")
    for _ in range(2):
        client.get(f"/projects/{project.pk}/rate/")
        a = Assignment.objects.get(rater=rater, status="active")
        client.post(f"/assignments/{a.pk}/submit/", {f"v-{project.criteria.get().pk}-0": "4"})
    response = client.get(f"/projects/{project.pk}/rate/")
    assert response.status_code == 200 and 'data-testid="finished"' in response.content.decode()
    assert client.get(f"/projects/{project.pk}/done/").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["", "?worker_id=", "?worker_id=%3Cscript%3E", "?worker_id=" + "x" * 65])
def test_a_missing_or_malformed_worker_id_is_refused(study, query):
    project, link = study
    response = Client().get(f"/projects/{project.pk}/external/{link.token}/{query}")
    assert response.status_code == 400 and "<script>" not in response.content.decode()
    assert not ExternalWorker.objects.exists()


@pytest.mark.django_db
def test_a_wrong_token_is_404(study):
    project, _ = study
    assert Client().get(f"/projects/{project.pk}/external/wrong/?worker_id=W1").status_code == 404


@pytest.mark.django_db
def test_the_lead_turns_the_link_on_resets_and_off(project, lead):
    from staffing.models import ExternalLink

    client = Client()
    client.force_login(lead)
    url = f"/projects/{project.pk}/external/"
    assert "The link is off" in client.get(url).content.decode()
    assert client.post(url, {"action": "reset"}).status_code == 302
    token = ExternalLink.objects.get(project=project).token
    page = client.get(url).content.decode()
    assert f"/projects/{project.pk}/external/{token}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}" in page
    assert client.post(url, {"action": "explode"}).status_code == 400
    assert client.post(url, {"action": "reset"}).status_code == 302
    assert ExternalLink.objects.get(project=project).token != token
    assert client.post(url, {"action": "disable"}).status_code == 302
    assert not ExternalLink.objects.get(project=project).is_enabled
    assert "The link is off" in client.get(url).content.decode()
