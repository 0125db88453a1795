"""Quality control services: versioned rules, logged pause/resume/exclude/include, and the rules firing on
simulated careless raters (random answers, always "A", too fast) while a careful rater passes."""

import random
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from agreement.selectors.judgment_records import judgment_records_for_project
from annotation.models import Assignment, Item, Membership, Project, QcRules, RaterAction, RaterExclusion
from annotation.services import (
    RaterPaused,
    assignment_next_for_rater,
    degraded_controls_create,
    judgment_submit,
    qc_rules_apply_all,
    qc_rules_update,
    rater_exclude,
    rater_include,
    rater_pause,
    rater_resume,
)
from evaluation.selectors import excluded_rater_ids, included_judgments
from tests.annotation.factories import ItemFactory, JudgmentFactory, UserFactory
from tests.annotation.rating import ControlsFirst, add_raters, full_values, rating_project

pytestmark = pytest.mark.django_db


# --- rules versions --------------------------------------------------------------------------------------


def test_rules_are_edited_in_place_until_the_first_judgment_then_versioned(project, lead):
    # Given rules saved before anyone judged
    first = qc_rules_update(project=project, by=lead, gold_accuracy_threshold=0.6, action="pause")
    again = qc_rules_update(project=project, by=lead, min_gold_answered=3)
    assert (again.pk, again.version, again.gold_accuracy_threshold, again.min_gold_answered) == (first.pk, 1, 0.6, 3)
    # When the project has a judgment and the lead edits the rules
    JudgmentFactory(item=ItemFactory(project=project))
    frozen = qc_rules_update(project=project, by=lead, action="exclude")
    # Then the old version stays as it was and the edit is version 2, other fields carried over
    assert frozen.version == 2 and frozen.pk != first.pk
    assert (frozen.action, frozen.gold_accuracy_threshold, frozen.min_gold_answered) == ("exclude", 0.6, 3)
    assert QcRules.objects.get(pk=first.pk).action == "pause"
    # An edit that changes nothing stores no version
    assert qc_rules_update(project=project, by=lead, action="exclude").version == 2


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"gold_accuracy_threshold": 1.5}, "gold_accuracy_threshold"),
        ({"action": "shout"}, "action"),
        ({"min_seconds_per_judgment": -1}, "min_seconds_per_judgment"),
        ({"colour": "red"}, "unknown fields"),
    ],
)
def test_bad_rules_are_refused_naming_the_field(project, fields, message):
    with pytest.raises(ValidationError) as exc:
        qc_rules_update(project=project, **fields)
    assert message in str(exc.value)
    assert not QcRules.objects.filter(project=project).exists()


# --- a lead's actions ------------------------------------------------------------------------------------


def test_pause_resume_exclude_include_change_the_membership_and_are_logged(project, rater, lead):
    membership = Membership.objects.get(project=project, user=rater)
    rater_pause(project=project, rater=rater, by=lead, reason="off-topic answers")
    membership.refresh_from_db()
    assert membership.is_paused and not RaterExclusion.objects.exists()
    with pytest.raises(RaterPaused):
        assignment_next_for_rater(project_id=project.pk, rater=rater)

    rater_resume(project=project, rater=rater, by=lead, reason="talked to them")
    rater_exclude(project=project, rater=rater, by=lead, reason="spammer")
    membership.refresh_from_db()
    assert membership.is_paused and RaterExclusion.objects.filter(project=project, rater=rater).exists()
    with pytest.raises(ValidationError, match="include them again"):
        rater_resume(project=project, rater=rater, by=lead, reason="oops")
    rater_include(project=project, rater=rater, by=lead, reason="appeal upheld")
    membership.refresh_from_db()
    assert membership.is_paused and not RaterExclusion.objects.exists()

    log = list(RaterAction.objects.filter(project=project).order_by("id").values_list("kind", "by", "reason"))
    assert log == [
        ("pause", lead.pk, "off-topic answers"),
        ("resume", lead.pk, "talked to them"),
        ("exclude", lead.pk, "spammer"),
        ("include", lead.pk, "appeal upheld"),
    ]


def test_a_leads_action_needs_a_reason_and_a_rater_of_the_project(project, rater, lead):
    with pytest.raises(ValidationError, match="say why"):
        rater_pause(project=project, rater=rater, by=lead, reason="  ")
    with pytest.raises(ValidationError, match="not a rater"):
        rater_pause(project=project, rater=lead, by=lead, reason="a lead is no rater")
    assert not RaterAction.objects.exists()


def test_exclusion_reaches_results_and_agreement_through_the_one_hook(project, lead):
    # Given two raters who judged the same item
    kept, dropped = add_raters(project, 2)
    item = ItemFactory(project=project)
    for user, value in ((kept, 4), (dropped, 1)):
        JudgmentFactory(item=item, rater=user, value=value)
    assert len(judgment_records_for_project(project)) == 2
    # When the lead excludes one
    rater_exclude(project=project, rater=dropped, by=lead, reason="random answers")
    # Then results and agreement read only the other's judgments; including them brings them back
    assert excluded_rater_ids(project) == [dropped.pk]
    assert set(included_judgments(project).values_list("rater_id", flat=True)) == {kept.pk}
    assert set(judgment_records_for_project(project).rater) == {kept.pk}
    rater_include(project=project, rater=dropped, by=lead, reason="second look")
    assert excluded_rater_ids(project) == []
    assert len(judgment_records_for_project(project)) == 2


# --- rules firing on simulated raters --------------------------------------------------------------------


def _gold_answer(item: Item, shown: list[str], criterion: str, position: int | None):
    gold = item.gold[criterion]
    if position is None:  # pairwise: name the side the expected winner was shown on
        return "tie" if gold == "tie" else ("A" if shown[0] == gold else "B")
    return gold[shown[position]]


def simulate(project, rater, *, answer, seconds, screens=60, seed=0) -> int:
    """Runs a rater through the real loop (next + submit) until nothing is left or they are paused;
    ``answer(item, shown systems, criterion, position, rng)`` gives each value. Returns screens judged."""
    rng = random.Random(seed)
    criteria = list(project.criteria.values_list("name", flat=True))
    for n in range(screens):
        try:
            assignment = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)
        except RaterPaused:
            return n
        if assignment is None:
            return n
        item = Item.objects.prefetch_related("outputs").get(pk=assignment.item_id)
        systems = [o.system for o in item.outputs.all()]
        shown = [systems[p] for p in assignment.shown_order]
        positions = [None] if project.task_type == "pairwise" else range(len(shown))
        values = [
            {"criterion": c, "value": answer(item, shown, c, p, rng), **({} if p is None else {"position": p})}
            for c in criteria
            for p in positions
        ]
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=values, duration_ms=int(seconds(rng) * 1000))
    return screens


def careful(item, shown, criterion, position, rng):
    if item.gold is not None:
        return _gold_answer(item, shown, criterion, position)
    return rng.choice(["A", "B", "tie"]) if position is None else rng.randint(1, 5)


def qc_project(task_type, gold_of, **rules):
    project = rating_project(task_type=task_type, n_items=40, n_target=3, gold_rate=0.35)
    systems = ["sysA", "sysB"] if task_type == "pairwise" else ["sysA"]
    for k in range(12):
        ItemFactory(project=project, n_target=0, gold=gold_of(k), systems=systems)
    qc_rules_update(
        project=project, **{"min_gold_answered": 4, "gold_accuracy_threshold": 0.8, "action": "pause", **rules}
    )
    return project


def actions_of(project, user):
    return list(RaterAction.objects.filter(project=project, rater=user).order_by("id"))


def test_gold_accuracy_pauses_a_random_rater_and_passes_a_careful_one():
    project = qc_project("likert", lambda k: {"fluency": {"sysA": 1 + k % 5}})
    good, bad = add_raters(project, 2)

    simulate(project, good, answer=careful, seconds=lambda r: r.uniform(5, 20), seed=1)
    simulate(
        project,
        bad,
        answer=lambda item, shown, c, p, rng: rng.randint(1, 5),
        seconds=lambda r: r.uniform(5, 20),
        seed=2,
    )

    assert actions_of(project, good) == []
    (action,) = actions_of(project, bad)
    assert (action.kind, action.rule, action.rules.version, action.by) == ("pause", "gold_accuracy", 1, None)
    assert action.evidence["gold_items"] >= 4 and action.evidence["accuracy"] < 0.8
    assert action.evidence["threshold"] == 0.8
    assert Membership.objects.get(project=project, user=bad).is_paused
    assert not Membership.objects.get(project=project, user=good).is_paused


def test_always_a_on_pairwise_is_excluded_for_gold_accuracy_and_straight_lining():
    # Gold answers are ties, so "always A" misses every one whichever gold items the loop happens to draw
    # (they come in random order); how many gold screens there are follows the seeded rng.
    project = qc_project("pairwise", lambda k: {"fluency": "tie"}, action="exclude", straight_line_run=8)
    good, lazy = add_raters(project, 2)

    simulate(project, good, answer=careful, seconds=lambda r: r.uniform(5, 20), seed=3)
    simulate(project, lazy, answer=lambda *args: "A", seconds=lambda r: r.uniform(5, 20), seed=4)

    assert actions_of(project, good) == []
    (action,) = actions_of(project, lazy)  # one exclusion; the rater is out after it
    assert action.kind == "exclude" and action.rule in ("gold_accuracy", "straight_line")
    assert lazy.pk in excluded_rater_ids(project) and good.pk not in excluded_rater_ids(project)
    # The straight line is broken by then (the rules are checked after every screen, so the first broken rule
    # acts, often before enough gold is answered), as applying the (warn-only) rules to everyone shows
    qc_rules_update(project=project, action="warn")
    warned = {a.rule for a in qc_rules_apply_all(project=project) if a.rater_id == lazy.pk}
    assert "straight_line" in warned and warned <= {"gold_accuracy", "straight_line"}
    assert not [a for a in RaterAction.objects.filter(kind="warn") if a.rater_id == good.pk]


def test_a_too_fast_rater_is_warned_once_per_rules_version():
    project = qc_project(
        "likert", lambda k: {"fluency": {"sysA": 1 + k % 5}}, action="warn", min_seconds_per_judgment=3
    )
    good, fast = add_raters(project, 2)

    simulate(project, good, answer=careful, seconds=lambda r: r.uniform(5, 20), seed=5)
    simulate(project, fast, answer=careful, seconds=lambda r: r.uniform(0.2, 1.0), seed=6)

    assert actions_of(project, good) == []
    (warning,) = actions_of(project, fast)  # every later gold screen breaks the rule again, but warns no more
    assert (warning.kind, warning.rule) == ("warn", "too_fast")
    assert warning.evidence["too_fast"] > warning.evidence["recent_screens"] / 2
    assert not Membership.objects.get(project=project, user=fast).is_paused


def test_no_rules_no_actions():
    project = rating_project(n_items=5, n_gold=0)
    (user,) = add_raters(project)
    simulate(project, user, answer=lambda *args: 1, seconds=lambda r: 0.1)
    assert qc_rules_apply_all(project=project) == []
    assert not RaterAction.objects.exists()


def test_a_rater_of_another_project_is_no_rater_here(project, lead):
    other = UserFactory(username="elsewhere")
    with pytest.raises(ValidationError):
        rater_exclude(project=project, rater=other, by=lead, reason="x")


# --- the cost of a control screen ------------------------------------------------------------------------


def control_screen(task_type="likert", n_before=6):
    """A rater who answered ``n_before`` ordinary screens under every rule (warnings only), holding a gold
    screen now."""
    project = rating_project(task_type=task_type, n_items=n_before + 2, n_gold=2)
    qc_rules_update(
        project=project,
        min_gold_answered=1,
        gold_accuracy_threshold=0.8,
        min_seconds_per_judgment=2,
        straight_line_run=4,
        min_degraded_answered=1,
        degraded_p_threshold=0.05,
        action="warn",
    )
    (rater,) = add_raters(project)
    for _ in range(n_before):
        assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 3), duration_ms=5000)
    Project.objects.filter(pk=project.pk).update(gold_rate=0.5)
    gold = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=ControlsFirst())
    assert gold.item.gold is not None
    return rater, gold


@pytest.mark.parametrize("n_before", [6, 12])
def test_a_gold_screen_costs_a_fixed_number_of_queries(n_before, django_assert_num_queries):
    # Given a rater's history under every rule, the wrong answer to a gold item breaks the gold rule
    rater, gold = control_screen(n_before=n_before)
    values = full_values(gold, 1)
    # Savepoint and release, membership and assignment lock, criteria, outputs, judgments, assignment, item;
    # rules, membership, gold answers, start of the speed window, latest screens, the degraded test's scores,
    # flags on controls, warnings given, the warning. Every screen of a project with controls runs the same.
    with django_assert_num_queries(17):
        judgment_submit(rater=rater, assignment_id=gold.pk, values=values, duration_ms=5000)
    assert list(RaterAction.objects.values_list("rule", flat=True)) == ["gold_accuracy"]


def raters_breaking_three_rules(project, n):
    """``n`` raters each answering every gold item wrongly, then every other item 3 (a straight line, and
    the degraded copies no lower than their originals), with assignments for the speed window."""
    raters = add_raters(project, n, prefix=f"r{n}-")
    for rater in raters:
        gold_first = sorted(Item.objects.filter(project=project), key=lambda item: (item.gold is None, item.pk))
        for k, item in enumerate(gold_first):
            at = timezone.now() + timedelta(seconds=k)
            Assignment.objects.create(
                project=project, item=item, rater=rater, status=Assignment.Status.DONE, expires_at=at, completed_at=at
            )
            JudgmentFactory(item=item, rater=rater, value=1 if item.gold else 3, submitted_at=at, duration_ms=9000)
    return raters


def test_applying_the_rules_to_every_rater_reads_in_a_constant_number_of_queries(django_assert_num_queries):
    counts = []
    for n in (2, 5):
        project = rating_project(n_items=4, n_gold=2)
        degraded_controls_create(project=project, n=2, seed=0)
        qc_rules_update(
            project=project,
            min_gold_answered=1,
            gold_accuracy_threshold=0.8,
            straight_line_run=3,
            min_seconds_per_judgment=2,
            min_degraded_answered=1,
            degraded_p_threshold=0.05,
            action="warn",
        )
        raters = raters_breaking_three_rules(project, n)
        # Savepoint and release, rules, the project row's shared lock (PostgreSQL's: SQLite serialises writers and
        # takes none), memberships, gold answers, speed window starts, latest screens, the degraded test's scores,
        # flags on controls, warnings given before, and the warnings.
        with django_assert_num_queries(12 if connection.vendor == "postgresql" else 11) as captured:
            taken = qc_rules_apply_all(project=project)
        counts.append(len(captured.captured_queries))
        assert [(a.rater_id, a.rule) for a in taken] == [
            (r.pk, rule) for r in raters for rule in ("gold_accuracy", "straight_line", "degraded")
        ]
        assert qc_rules_apply_all(project=project) == []  # warned once per rule and rules version
    assert counts[0] == counts[1]
