"""A rater's control-screen submission racing a lead removing or pausing them, or applying the rules to
every rater, on PostgreSQL: each side a thread with its own connection, many rounds. They take the rater's
membership and assignment rows; taken in opposite orders they deadlock."""

import pytest
from django.db.models import Count, Q

from annotation.models import Assignment, Item, Judgment, Membership, RaterAction
from annotation.services import (
    RaterRefused,
    assignment_next_for_rater,
    judgment_submit,
    qc_rules_apply_all,
    qc_rules_update,
    rater_pause,
)
from staffing.services import team_rater_remove
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import ControlsFirst, add_raters, full_values, rating_project
from tests.concurrency import run_threads

ROUNDS = 20

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]


def gold_project():
    project = rating_project(n_items=3, n_target=100, n_gold=2, gold_rate=0.5)
    qc_rules_update(project=project, min_gold_answered=1, gold_accuracy_threshold=0.8, action="pause")
    lead = UserFactory(username=f"lead{project.pk}")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    return project, lead


def race(project, lead_action):
    """Per round a new rater holding a gold screen submits a wrong answer (which breaks the gold rule)
    while the lead acts on them; returns [(rater, assignment, submitted?)]."""
    rounds = []
    for k in range(ROUNDS):
        (rater,) = add_raters(project, prefix=f"round{k}-")
        assignment = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=ControlsFirst())
        assert Item.objects.get(pk=assignment.item_id).gold is not None
        values = full_values(assignment, 1)
        submitted = []

        def side(i, rater=rater, assignment=assignment, values=values, submitted=submitted):
            if i == 1:
                lead_action(rater)
                return
            try:
                judgment_submit(rater=rater, assignment_id=assignment.pk, values=values, duration_ms=5000)
                submitted.append(True)
            except RaterRefused:  # the lead came first: refused cleanly
                pass

        errors = run_threads(2, side)
        assert not errors, f"round {k}: {errors}"
        rounds.append((rater, Assignment.objects.get(pk=assignment.pk), bool(submitted)))
    return rounds


def assert_counters_exact(project):
    items = Item.objects.filter(project=project).annotate(
        leases=Count("assignments", filter=Q(assignments__status=Assignment.Status.ACTIVE), distinct=True),
        raters=Count("judgments__rater", filter=Q(judgments__is_current=True), distinct=True),
    )
    assert [(i.pk, i.n_leased, i.n_judged) for i in items] == [(i.pk, i.leases, i.raters) for i in items]


def test_removal_racing_a_gold_submission_never_deadlocks_nor_leaves_a_lease():
    project, lead = gold_project()

    rounds = race(project, lambda rater: team_rater_remove(project=project, rater=rater, by=lead))

    for rater, assignment, submitted in rounds:
        assert not Membership.objects.filter(project=project, user=rater).exists()
        judged = Judgment.objects.filter(rater=rater).count()
        if submitted:
            assert (assignment.status, judged) == (Assignment.Status.DONE, 1)
        else:
            assert (assignment.status, judged) == (Assignment.Status.EXPIRED, 0)
    assert not Assignment.objects.filter(project=project, status=Assignment.Status.ACTIVE).exists()
    assert_counters_exact(project)


def test_a_lead_pausing_a_rater_racing_a_gold_submission_never_deadlocks():
    project, lead = gold_project()

    rounds = race(project, lambda rater: rater_pause(project=project, rater=rater, by=lead, reason="check"))

    for rater, assignment, submitted in rounds:
        assert Membership.objects.get(project=project, user=rater).is_paused
        judged = Judgment.objects.filter(rater=rater).count()
        if submitted:  # the rule paused them too, unless the lead's pause came first
            assert (assignment.status, judged) == (Assignment.Status.DONE, 1)
        else:
            assert (assignment.status, judged) == (Assignment.Status.ACTIVE, 0)
    assert_counters_exact(project)


def test_applying_the_rules_to_everyone_racing_a_gold_submission_pauses_the_rater_once():
    project, _ = gold_project()

    rounds = race(project, lambda rater: qc_rules_apply_all(project=project))

    for rater, assignment, submitted in rounds:
        assert submitted and assignment.status == Assignment.Status.DONE
        assert Membership.objects.get(project=project, user=rater).is_paused
        assert list(RaterAction.objects.filter(rater=rater).values_list("kind", "rule")) == [("pause", "gold_accuracy")]
    assert_counters_exact(project)
