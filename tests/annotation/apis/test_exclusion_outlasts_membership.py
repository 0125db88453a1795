"""Issue 14, point 6: an excluded rater stays excluded until a lead includes them again, whatever happens
to their membership: removed from the team (and added back) on the real pages and API, their judgments stay
out of results and exports, and they come back paused."""

import io
import json
import zipfile

import pytest
from django.test import Client

from annotation.models import Judgment, Membership
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for
from tests.evaluation.factories import rated_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    lead = UserFactory(username="qc-lead")
    project = ProjectFactory(criteria=["fluency"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    raters, _ = rated_study(project, n_items=4, n_raters=3)
    return project, lead, raters


def _excluded_in_results(api, project) -> int:
    body = api.get(f"/api/v1/projects/{project.pk}/results/?n_resamples=200&test_resamples=200").json()
    return body["excluded"]["n_excluded_raters"]


def _exported_judgments(api, project, capture) -> list[dict]:
    with capture(execute=True):
        started = api.post(
            f"/api/v1/projects/{project.pk}/exports/", {"formats": ["jsonl"], "include_excluded": False}, format="json"
        )
    assert started.status_code == 202, started.content
    job = api.get(f"/api/v1/jobs/{started.json()['job_id']}/").json()
    data = b"".join(api.get(job["result"]["download"]).streaming_content)
    lines = zipfile.ZipFile(io.BytesIO(data)).read("data/judgments.jsonl").decode().splitlines()
    return [json.loads(line) for line in lines]


def test_removing_and_re_adding_an_excluded_rater_keeps_their_judgments_out(study, django_capture_on_commit_callbacks):
    project, lead, (spammer, *_) = study
    api, page = client_for(lead), Client()
    page.force_login(lead)
    n_all = Judgment.objects.filter(project=project, item__gold__isnull=True).count()
    n_spammer = Judgment.objects.filter(project=project, rater=spammer).count()

    # Given: the lead excludes the rater
    response = api.post(
        f"/api/v1/projects/{project.pk}/qc/actions/",
        {"rater": spammer.username, "action": "exclude", "reason": "random answers"},
        format="json",
    )
    assert response.status_code == 201 and _excluded_in_results(api, project) == 1

    # When: the rater is removed from the team on the team page
    response = page.post(f"/projects/{project.pk}/team/action/", {"rater": spammer.pk, "action": "remove"})
    assert response.status_code == 302 and not Membership.objects.filter(project=project, user=spammer).exists()

    # Then: their judgments stay out of results and exports
    assert _excluded_in_results(api, project) == 1
    assert len(_exported_judgments(api, project, django_capture_on_commit_callbacks)) == n_all - n_spammer

    # When: they are added back to the team
    response = api.post(
        f"/api/v1/projects/{project.pk}/members/", {"username": spammer.username, "role": "rater"}, format="json"
    )
    assert response.status_code in (200, 201), response.content

    # Then: still excluded, shown so, and paused: no new screens for them
    assert _excluded_in_results(api, project) == 1
    assert len(_exported_judgments(api, project, django_capture_on_commit_callbacks)) == n_all - n_spammer
    report = api.get(f"/api/v1/projects/{project.pk}/qc/raters/").json()["raters"]
    assert next(r for r in report if r["username"] == spammer.username)["is_excluded"] is True
    assert client_for(spammer).post(f"/api/v1/projects/{project.pk}/next/").status_code == 403

    # And: only a lead's include brings them back
    response = api.post(
        f"/api/v1/projects/{project.pk}/qc/actions/",
        {"rater": spammer.username, "action": "include", "reason": "appeal upheld"},
        format="json",
    )
    assert response.status_code == 201 and _excluded_in_results(api, project) == 0
    assert len(_exported_judgments(api, project, django_capture_on_commit_callbacks)) == n_all


def test_an_excluded_rater_who_rejoins_through_an_invite_comes_back_paused(study):
    project, lead, (spammer, *_) = study
    api, page = client_for(lead), Client()
    page.force_login(lead)
    api.post(
        f"/api/v1/projects/{project.pk}/qc/actions/",
        {"rater": spammer.username, "action": "exclude", "reason": "random answers"},
        format="json",
    )
    page.post(f"/projects/{project.pk}/team/action/", {"rater": spammer.pk, "action": "remove"})
    invite = api.post(f"/api/v1/projects/{project.pk}/invites/", {"max_uses": 1, "valid_days": 1}, format="json").json()

    rejoining = Client()
    rejoining.force_login(spammer)
    assert rejoining.post(invite["url"]).status_code == 302

    assert Membership.objects.get(project=project, user=spammer).is_paused
    assert _excluded_in_results(api, project) == 1
