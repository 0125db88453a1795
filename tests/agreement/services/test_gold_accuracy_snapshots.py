"""Gold accuracy per rater is stored with the agreement snapshots (and shown from them); gold items
never count in agreement."""

from datetime import UTC, datetime, timedelta

import pytest

from agreement.models import AgreementSnapshot
from agreement.services import snapshot_compute_for_project
from tests.annotation.factories import ItemFactory, JudgmentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 11, 2, 9, tzinfo=UTC)


def judge(item, rater, value, at=MONDAY):
    JudgmentFactory(item=item, rater=rater, value=value, submitted_at=at)


@pytest.fixture
def study():
    """Two raters agreeing on 4 ordinary items in two weeks; on 3 gold items (expected 4) the first
    answers 4, 4, 1 and the second 2, 2, 2: gold items where they disagree, which must not lower agreement."""
    project = ProjectFactory(task_type="likert", training_items=0)
    first, second = UserFactory(username="first"), UserFactory(username="second")
    for rater in (first, second):
        project.memberships.create(user=rater, role="rater")
    for k, value in enumerate([1, 2, 4, 5]):
        item = ItemFactory(project=project)
        for rater in (first, second):
            judge(item, rater, value, at=MONDAY + timedelta(weeks=k // 2))
    for k, (a, b) in enumerate([(4, 2), (4, 2), (1, 2)]):
        gold = ItemFactory(project=project, gold={"fluency": {"sysA": 4}})
        judge(gold, first, a, at=MONDAY + timedelta(weeks=k // 2))
        judge(gold, second, b, at=MONDAY + timedelta(weeks=k // 2))
    snapshot_compute_for_project(project_id=project.id)
    return project, first, second


def test_gold_accuracy_is_stored_per_rater_and_week_with_its_n(study):
    project, first, second = study
    rows = AgreementSnapshot.objects.filter(
        project=project, scope="rater", statistic="gold_accuracy", criterion__isnull=True
    )
    cumulative = {
        (s.rater_a_id, s.week_start.isoformat()): (s.value, s.n_units) for s in rows.filter(window="cumulative")
    }
    assert cumulative == {
        (first.id, "2026-11-02"): (pytest.approx(1.0), 2),
        (first.id, "2026-11-09"): (pytest.approx(2 / 3), 3),
        (second.id, "2026-11-02"): (0.0, 2),
        (second.id, "2026-11-09"): (0.0, 3),
    }
    weekly = {(s.rater_a_id, s.week_start.isoformat()): (s.value, s.n_units) for s in rows.filter(window="week")}
    assert weekly[(first.id, "2026-11-09")] == (0.0, 1)
    assert rows.get(rater_a=first, window="cumulative", week_start="2026-11-09").detail == {"correct": 2}


def test_gold_items_do_not_count_in_agreement(study):
    project, _, _ = study
    label = AgreementSnapshot.objects.get(
        project=project, scope="criterion", window="cumulative", week_start="2026-11-09", statistic="percent_agreement"
    )
    # the 4 ordinary items only, on which the raters agree fully; the 3 gold items would lower it
    assert (label.value, label.n_units) == (1.0, 4)


def test_the_dashboard_shows_gold_accuracy_with_its_n(client, study, django_assert_max_num_queries):
    project, first, _ = study
    lead = UserFactory(username="gold-lead")
    project.memberships.create(user=lead, role="lead")
    client.force_login(lead)
    with django_assert_max_num_queries(16):  # 13, and 3 for the freshness line
        html = client.get(f"/projects/{project.id}/agreement/").content.decode()
    assert "Gold accuracy" in html
    assert '66.7% <span class="muted">n = 3</span>' in html and '0.0% <span class="muted">n = 3</span>' in html
