"""Alerts on weekly agreement, their emails, and the per-project weekly schedule."""

import json
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from agreement.models import AgreementAlert, AgreementSnapshot, SnapshotGeneration
from agreement.services import agreement_recompute_run, schedule_set
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def snapshot(project, criterion, week, value, ci_low=None, n_units=100):
    SnapshotGeneration.objects.get_or_create(project=project)  # the rows are its generation 0, current
    return AgreementSnapshot.objects.create(
        project=project,
        window="week",
        week_start=week,
        scope="criterion",
        scope_key=f"criterion={criterion.id}",
        criterion=criterion,
        statistic="krippendorff_alpha_ordinal",
        is_main=True,
        value=value,
        ci_low=ci_low,
        n_units=n_units,
        computed_at=timezone.now(),
    )


def test_a_drop_beyond_the_interval_and_a_value_below_the_threshold_raise_alerts_once(
    project, lead, django_capture_on_commit_callbacks
):
    from agreement.services import alerts_raise_for_latest_week

    lead.email = "lead@example.org"
    lead.save()
    fluency = project.criteria.get(name="fluency")
    monday = timezone.now().date() - timedelta(days=timezone.now().weekday())
    snapshot(project, fluency, monday - timedelta(weeks=1), 0.72, ci_low=0.65)
    snapshot(project, fluency, monday, 0.35)
    with django_capture_on_commit_callbacks(execute=True):  # the email goes out from a job after commit
        created = alerts_raise_for_latest_week(project=project)
    assert sorted(a.kind for a in created) == ["below_threshold", "drop"]
    assert "fell from 0.720 to 0.350" in AgreementAlert.objects.get(kind="drop").message
    assert len(mail.outbox) == 1 and "lead@example.org" in mail.outbox[0].to
    assert alerts_raise_for_latest_week(project=project) == []  # once per label, week and kind


def test_small_or_within_interval_changes_raise_nothing(project):
    from agreement.services import alerts_raise_for_latest_week

    fluency = project.criteria.get(name="fluency")
    monday = timezone.now().date() - timedelta(days=timezone.now().weekday())
    snapshot(project, fluency, monday - timedelta(weeks=1), 0.80, ci_low=0.60)
    snapshot(project, fluency, monday, 0.65)  # fell by 0.15 but stays inside last week's interval
    snapshot(project, project.criteria.get(name="coherence"), monday, 0.1, n_units=10)  # too few units
    assert alerts_raise_for_latest_week(project=project) == []


def test_recompute_run_reports_alerts(project):
    assert agreement_recompute_run(project_id=project.id) == {
        "snapshots": 0,
        "judgments": 0,
        "weeks": 0,
        "off_scale": 0,
        "alerts": 0,
    }


def test_the_weekly_schedule_is_a_periodic_task_leads_edit(project, lead):
    client = client_for(lead)
    url = f"/api/v1/projects/{project.id}/agreement/settings/"
    assert client.get(url).json()["schedule"] == {"enabled": False, "day_of_week": "mon", "hour": 3}
    response = client.put(
        url, {"alert_below": 0.5, "schedule": {"enabled": True, "day_of_week": "tue", "hour": 6}}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["alert_below"] == 0.5
    task = PeriodicTask.objects.get(task="agreement.jobs.agreement_scheduled_recompute_job")
    assert (task.enabled, task.crontab.day_of_week, task.crontab.hour, json.loads(task.args)) == (
        True,
        "tue",
        "6",
        [project.id],
    )
    bad = client.put(url, {"schedule": {"enabled": True, "day_of_week": "someday"}}, format="json")
    assert bad.status_code == 400 and "day_of_week" in str(bad.json())
    assert client.put(url, {"alert_below": 3}, format="json").status_code == 400


def test_the_scheduled_job_starts_a_tracked_recompute(project, django_capture_on_commit_callbacks):
    from agreement.jobs import agreement_scheduled_recompute_job
    from core.models import Job

    with django_capture_on_commit_callbacks(execute=True):
        job_id = agreement_scheduled_recompute_job(project.id)
    assert Job.objects.get(pk=job_id).state == "success"
    schedule_set(project=project, enabled=False)
    assert not PeriodicTask.objects.get().enabled


def test_settings_are_for_leads(project, rater):
    assert client_for(rater).get(f"/api/v1/projects/{project.id}/agreement/settings/").status_code == 403
    assert (
        client_for(UserFactory(username="x")).get(f"/api/v1/projects/{project.id}/agreement/settings/").status_code
        == 404
    )
