"""The automatic recompute of stale agreement: a sweep starts one recompute per project that has judgments
newer than its last recompute, at most once per the lead-set interval (time passed in, never waited for)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agreement.models import AgreementSettings, AgreementSnapshot
from agreement.services import agreement_settings_update
from agreement.services.stale_recompute import agreement_recompute_stale_all
from annotation.models import Judgment
from console.services import project_archive
from core.models import Job
from tests.annotation.factories import ItemFactory, JudgmentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

T0 = timezone.now()


def _overlapping(project, n_items=4, raters=None):
    raters = raters or [UserFactory(), UserFactory()]
    for k in range(n_items):
        item = ItemFactory(project=project, systems=["bart"])
        for rater in raters:
            JudgmentFactory(item=item, rater=rater, value=1 + (k % 5))
    return raters


@pytest.fixture
def sweep(django_capture_on_commit_callbacks):
    """One sweep at ``now``, its recompute jobs run (eagerly) once it commits; returns the projects started."""

    def run(now):
        with django_capture_on_commit_callbacks(execute=True):
            return agreement_recompute_stale_all(now=now)

    return run


def test_new_judgments_start_one_recompute_then_wait_for_the_interval(sweep):
    project = ProjectFactory(criteria=["fluency"])
    raters = _overlapping(project)

    assert sweep(T0) == [project.pk]
    job = Job.objects.get(project=project, kind="agreement_recompute")
    assert job.state == Job.State.SUCCESS and job.created_by is None
    assert AgreementSnapshot.objects.filter(project=project).exists()
    seen = AgreementSettings.objects.get(project=project)
    assert seen.judgments_seen_through == Judgment.objects.latest("id").id and seen.auto_recompute_started_at == T0

    # A burst of new judgments within the interval starts nothing more: one recompute per interval
    _overlapping(project, n_items=2, raters=raters)
    assert sweep(T0 + timedelta(minutes=1)) == []
    assert sweep(T0 + timedelta(minutes=59)) == []
    assert Job.objects.filter(project=project).count() == 1

    # Once the interval has passed, the stale project is recomputed again, once
    assert sweep(T0 + timedelta(minutes=60)) == [project.pk]
    assert Job.objects.filter(project=project).count() == 2
    assert AgreementSettings.objects.get(project=project).judgments_seen_through == Judgment.objects.latest("id").id

    # With nothing new, no recompute, however long it has been
    assert sweep(T0 + timedelta(days=3)) == []


def test_the_lead_sets_the_interval_or_turns_it_off(sweep):
    quick, off = ProjectFactory(criteria=["fluency"]), ProjectFactory(criteria=["fluency"])
    agreement_settings_update(project=quick, auto_recompute_minutes=5)
    agreement_settings_update(project=off, auto_recompute_minutes=0)
    raters = _overlapping(quick)
    _overlapping(off)
    assert sweep(T0) == [quick.pk]
    _overlapping(quick, n_items=1, raters=raters)
    assert sweep(T0 + timedelta(minutes=4)) == []
    assert sweep(T0 + timedelta(minutes=5)) == [quick.pk]
    assert not Job.objects.filter(project=off).exists()


def test_a_manual_recompute_counts_as_seen_and_archived_projects_are_left_alone(
    sweep, django_capture_on_commit_callbacks
):
    from agreement.services import agreement_recompute_start

    seen, archived = ProjectFactory(criteria=["fluency"]), ProjectFactory(criteria=["fluency"])
    _overlapping(seen)
    _overlapping(archived)
    with django_capture_on_commit_callbacks(execute=True):
        agreement_recompute_start(project=seen, user=UserFactory())
    project_archive(project=archived, actor=None)
    assert sweep(T0) == []


def test_imported_judgments_dated_in_the_past_still_count_as_new(sweep):
    project = ProjectFactory(criteria=["fluency"])
    raters = _overlapping(project)
    sweep(T0)
    item = ItemFactory(project=project, systems=["bart"])
    for rater in raters:
        JudgmentFactory(item=item, rater=rater, source=Judgment.Source.IMPORT, submitted_at=T0 - timedelta(days=400))
    assert sweep(T0 + timedelta(hours=2)) == [project.pk]
