"""The qualification gate, played by a rater who fails it, through the real HTTP API and pages: the lead sets
training and the pass mark on the controls page; the rater answers the training screens wrong and then tries
every way to a work screen (next by token and by session, the rating page, a lease taken before, a revision of
training, a flag, leaving the team and coming back, the crowd link's done page). None serves a work screen or
takes an answer; the decision is logged; a lead's admission from the rater page lets them in."""

import re

import pytest
from django.test import Client

from annotation.models import Assignment, Item, Judgment, QualificationOutcome, RaterAction
from audit.models import AuditEntry
from staffing.models import ExternalWorker
from staffing.services import external_link_reset
from tests.annotation.apis.test_careless_rater_api import _import
from tests.annotation.factories import UserFactory
from tests.annotation.rating import add_raters, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

PASSWORD = "pass-word-1234"  # UserFactory's
N_TRAINING = 4
RETURN_URL = "https://app.prolific.com/submissions/complete?cc=SCREENED"


@pytest.fixture
def study():
    """A project whose lead imported work, training and gold items and set, on the controls page, four training
    screens with a pass mark of 75 % and a gold rate."""
    project = rating_project(n_items=0)
    lead = UserFactory(username="gate-lead")
    project.memberships.create(user=lead, role="lead")
    _import(lead, project, n_work=6, n_training=N_TRAINING, n_check=3)  # training item t{k} has gold k + 1
    page = Client()
    page.force_login(lead)
    saved = page.post(
        f"/projects/{project.pk}/qc/controls/",
        {
            "action": "settings",
            "training_items": str(N_TRAINING),
            "training_pass_mark_percent": "75",
            "gold_rate_percent": "20",
            "repeat_rate_percent": "0",
        },
    )
    assert saved.status_code == 302, saved.content.decode()
    project.refresh_from_db()
    assert (project.training_items, project.training_pass_mark) == (N_TRAINING, 0.75)
    return project, lead, page


def _token_client(user) -> Client:
    token = (
        Client()
        .post("/api/v1/auth/token/", {"username": user.username, "password": PASSWORD}, content_type="application/json")
        .json()["token"]
    )
    return Client(headers={"authorization": f"Token {token}"})


def _train(api: Client, project, *, right: int, flag: int = 0) -> list[int]:
    """Answers the training screens through the API: the first ``right`` with the gold answer, then ``flag``
    flagged, the rest wrong; returns the training assignments."""
    served = []
    for k in range(N_TRAINING):
        screen = api.post(f"/api/v1/projects/{project.pk}/next/")
        assert screen.status_code == 200, screen.content
        screen = screen.json()
        assert screen["item"]["input"].startswith("training"), "training comes first"
        served.append(screen["assignment_id"])
        if right <= k < right + flag:
            sent = api.post(
                f"/api/v1/assignments/{screen['assignment_id']}/flag/",
                {"reason": "cannot_judge"},
                content_type="application/json",
            )
        else:
            gold = int(screen["item"]["input"].split()[-1]) + 1  # "training {k}" has gold k + 1, at most 4
            value = gold if k < right else 5
            sent = api.post(
                f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
                {"values": [{"criterion": "fluency", "position": 0, "value": value}]},
                content_type="application/json",
            )
        assert sent.status_code in (200, 201), sent.content
    return served


def _no_work_leased(rater) -> None:
    assert not Assignment.objects.filter(rater=rater).exclude(served_as=Assignment.ServedAs.TRAINING).exists()


def test_a_rater_below_the_pass_mark_gets_no_work_screen_by_any_route(study):
    project, lead, _ = study
    (rater,) = add_raters(project, prefix="careless")
    api = _token_client(rater)
    training = _train(api, project, right=2)  # 2 of 4 right: 50 %, below 75 %

    # The API by token: refused, nothing of a screen in the answer
    refused = api.post(f"/api/v1/projects/{project.pk}/next/")
    assert refused.status_code == 403 and set(refused.json()) == {"detail"}
    assert "did not reach the mark" in refused.json()["detail"]
    # The session API and the rating page
    session = Client()
    session.force_login(rater)
    assert session.post(f"/api/v1/projects/{project.pk}/next/").status_code == 403
    session.get(f"/projects/{project.pk}/instructions/")
    page = session.get(f"/projects/{project.pk}/rate/")
    assert page.status_code == 403 and b'data-testid="not-admitted"' in page.content
    assert not re.search(rb"work \d|check \d", page.content), "no work or gold screen in the end page"
    # Revising a training answer (to pass after the feedback) and flagging are refused too
    revised = api.post(
        f"/api/v1/assignments/{training[-1]}/judgment/",
        {"values": [{"criterion": "fluency", "position": 0, "value": 5}]},
        content_type="application/json",
    )
    assert revised.status_code == 403
    assert (
        api.post(
            f"/api/v1/assignments/{training[-1]}/flag/", {"reason": "broken"}, content_type="application/json"
        ).status_code
        == 403
    )
    assert session.post(f"/assignments/{training[-1]}/submit/", {"v-1-0": "5"}).status_code in (403, 404)
    _no_work_leased(rater)
    outcome = QualificationOutcome.objects.get(rater=rater)
    assert (outcome.n_right, outcome.n_screens, outcome.passed) == (2, N_TRAINING, False)

    # Leaving the team and being added back changes nothing: the outcome is not on the membership
    lead_page = Client()
    lead_page.force_login(lead)
    assert (
        lead_page.post(f"/projects/{project.pk}/team/action/", {"rater": rater.pk, "action": "remove"}).status_code
        == 302
    )
    assert client_for(lead).post(
        f"/api/v1/projects/{project.pk}/members/", {"username": rater.username, "role": "rater"}, format="json"
    ).status_code in (200, 201)
    assert api.post(f"/api/v1/projects/{project.pk}/next/").status_code == 403
    _no_work_leased(rater)

    # Logged: the action (with the evidence) and the audit entry
    action = RaterAction.objects.get(rater=rater, kind=RaterAction.Kind.GATE)
    assert action.evidence == {"training_screens": 4, "right": 2, "pass_mark": 0.75, "flagged": 0}
    assert AuditEntry.objects.filter(action="rater.not_admitted", target=rater.username).count() == 1
    log = lead_page.get(f"/projects/{project.pk}/raters/").content.decode()
    assert "2 of 4 training items answered right, below the pass mark of 75 %" in log

    # The lead admits them from the rater's page; now the real work comes
    admitted = lead_page.post(
        f"/projects/{project.pk}/raters/action/",
        {"rater": rater.pk, "action": "admit", "reason": "misread the scale", "back": "rater"},
    )
    assert admitted.status_code == 302 and admitted["Location"] == f"/projects/{project.pk}/raters/{rater.pk}/"
    screen = api.post(f"/api/v1/projects/{project.pk}/next/")
    assert screen.status_code == 200
    assert not Item.objects.get(assignments__id=screen.json()["assignment_id"]).training
    assert RaterAction.objects.filter(rater=rater, kind=RaterAction.Kind.ADMIT, by=lead).exists()


def test_a_lease_taken_before_the_gate_takes_no_answer_after_it(study):
    # Given a rater who holds a work lease when the gate fails them (a training item was being leased by
    # someone else at that instant, so the loop served work)
    project, _, _ = study
    (rater,) = add_raters(project, prefix="early")
    api = _token_client(rater)
    _train(api, project, right=0)
    work = Item.objects.get(project=project, external_id="w0")
    early = Assignment.objects.create(
        project=project,
        item=work,
        rater=rater,
        shown_order=[0],
        expires_at=Assignment.objects.filter(rater=rater).first().expires_at,
    )
    # Then next does not resume it, and its answer and its page are refused
    assert api.post(f"/api/v1/projects/{project.pk}/next/").status_code == 403
    sent = api.post(
        f"/api/v1/assignments/{early.pk}/judgment/",
        {"values": [{"criterion": "fluency", "position": 0, "value": 3}]},
        content_type="application/json",
    )
    assert sent.status_code == 403 and not Judgment.objects.filter(assignment=early).exists()
    session = Client()
    session.force_login(rater)
    session.get(f"/projects/{project.pk}/instructions/")
    follow = session.get(f"/assignments/{early.pk}/", follow=True)
    assert b"work 0" not in follow.content and b'data-testid="not-admitted"' in follow.content


def test_flagging_the_training_is_no_way_past_the_gate(study):
    project, _, _ = study
    (rater,) = add_raters(project, prefix="flagger")
    api = _token_client(rater)
    _train(api, project, right=1, flag=3)
    assert api.post(f"/api/v1/projects/{project.pk}/next/").status_code == 403
    assert RaterAction.objects.get(rater=rater, kind="gate").evidence["flagged"] == 3


def test_a_rater_at_the_pass_mark_goes_on_to_the_work(study):
    project, _, _ = study
    (rater,) = add_raters(project, prefix="careful")
    api = _token_client(rater)
    _train(api, project, right=3)  # 3 of 4: exactly 75 %
    screen = api.post(f"/api/v1/projects/{project.pk}/next/")
    assert screen.status_code == 200 and not screen.json()["item"]["input"].startswith("training")
    assert QualificationOutcome.objects.get(rater=rater).passed
    assert not RaterAction.objects.filter(rater=rater).exists()


def test_a_crowd_worker_below_the_mark_gets_the_return_link_and_no_completion_code(study):
    project, lead, lead_page = study
    link = external_link_reset(project=project, by=lead)
    assert (
        lead_page.post(
            f"/projects/{project.pk}/external/",
            {"action": "settings", "min_judged_screens": "1", "max_unjudged_percent": "20", "return_url": RETURN_URL},
        ).status_code
        == 302
    )
    worker = Client()
    assert worker.get(f"/projects/{project.pk}/external/{link.token}/?worker_id=FARMER1").status_code == 302
    worker.get(f"/projects/{project.pk}/instructions/")
    criterion = project.criteria.get()
    for _ in range(N_TRAINING):
        page = worker.get(f"/projects/{project.pk}/rate/")
        assert page.status_code == 200
        assignment = Assignment.objects.get(rater__external_worker__worker_id="FARMER1", status="active")
        assert worker.post(f"/assignments/{assignment.pk}/submit/", {f"v-{criterion.pk}-0": "5"}).status_code == 200
    code = ExternalWorker.objects.get(worker_id="FARMER1").completion_code
    for path in (f"/projects/{project.pk}/rate/", f"/projects/{project.pk}/done/"):
        page = worker.get(path)
        assert page.status_code == 403, path
        assert code not in page.content.decode() and RETURN_URL.replace("&", "&amp;") in page.content.decode()
    # Entering again through the link with the same id is the same account, still kept out
    assert worker.get(f"/projects/{project.pk}/external/{link.token}/?worker_id=FARMER1").status_code == 302
    assert worker.get(f"/projects/{project.pk}/rate/").status_code == 403


def test_the_api_admits_and_includes_a_rater_who_left_the_team(study):
    project, lead, lead_page = study
    (rater,) = add_raters(project, prefix="scripted")
    api = _token_client(rater)
    _train(api, project, right=0)
    actions = f"/api/v1/projects/{project.pk}/qc/actions/"
    lead_api = client_for(lead)
    assert (
        lead_api.post(
            actions, {"rater": rater.username, "action": "exclude", "reason": "bot"}, format="json"
        ).status_code
        == 201
    )
    assert (
        lead_page.post(f"/projects/{project.pk}/team/action/", {"rater": rater.pk, "action": "remove"}).status_code
        == 302
    )
    for action in ("admit", "include"):
        done = lead_api.post(actions, {"rater": rater.username, "action": action, "reason": "scripted"}, format="json")
        assert done.status_code == 201, done.content
    assert not QualificationOutcome.objects.filter(rater=rater, admitted_at=None).exists()
    stranger = UserFactory(username="never-here")
    refused = lead_api.post(actions, {"rater": stranger.username, "action": "include", "reason": "x"}, format="json")
    assert refused.status_code == 400 and "not a rater of this project" in refused.content.decode()
