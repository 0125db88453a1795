"""Quality control reads: gold accuracy per task type, behaviour flags and the position-bias audit."""

from datetime import UTC, datetime, timedelta

import pytest
from scipy.stats import binomtest

from annotation.models import Assignment
from annotation.selectors.quality import behaviour_flags, gold_accuracy, position_bias
from annotation.task_types.pairwise import LOSES, TIES, WINS
from tests.annotation.factories import ItemFactory, JudgmentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 11, 2, 9, tzinfo=UTC)


def judge(item, rater, value, *, system=None, label="", shown=(), at=MONDAY, duration_ms=None):
    output = item.outputs.get(system=system) if system else item.outputs.order_by("position").first()
    return JudgmentFactory(
        item=item,
        output=output,
        rater=rater,
        value=value,
        label=label,
        shown_order=list(shown),
        submitted_at=at,
        duration_ms=duration_ms,
    )


def test_likert_gold_is_exact_and_counted_per_week_and_rolling():
    project = ProjectFactory(task_type="likert")
    rater = UserFactory()
    gold = [ItemFactory(project=project, gold={"fluency": {"sysA": 4}}) for _ in range(3)]
    judge(gold[0], rater, 4, at=MONDAY)
    judge(gold[1], rater, 3, at=MONDAY + timedelta(days=2))
    judge(gold[2], rater, 4, at=MONDAY + timedelta(days=7))
    judge(ItemFactory(project=project), rater, 1)  # not gold: not counted

    acc = gold_accuracy(project)[rater.pk]
    assert (acc.n_items, acc.n, acc.correct) == (3, 3, 2)
    assert acc.accuracy == pytest.approx(2 / 3) and acc.rolling_accuracy == pytest.approx(2 / 3)
    assert [(w["week"], w["n"], w["correct"]) for w in acc.as_dict()["weeks"]] == [
        ("2026-11-02", 2, 1),
        ("2026-11-09", 1, 1),
    ]


def test_rankme_gold_is_a_range_with_both_ends_in():
    project = ProjectFactory(task_type="rankme")
    rater = UserFactory()
    item = ItemFactory(project=project, gold={"fluency": {"sysA": [60, 80], "sysB": [0, 20]}})
    judge(item, rater, 80, system="sysA")
    judge(item, rater, 25, system="sysB")
    acc = gold_accuracy(project)[rater.pk]
    assert (acc.n_items, acc.n, acc.correct) == (1, 2, 1)


def test_pairwise_gold_maps_the_stored_code_back_whatever_side_was_shown():
    project = ProjectFactory(task_type="pairwise")
    rater = UserFactory()
    b_wins = [ItemFactory(project=project, gold={"fluency": "sysB"}) for _ in range(2)]
    tie = ItemFactory(project=project, gold={"fluency": "tie"})
    # sysB shown left and chosen, then shown right and chosen: the first output (sysA) loses both times
    judge(b_wins[0], rater, LOSES, label="sysB", shown=["sysB", "sysA"])
    judge(b_wins[1], rater, WINS, label="sysA", shown=["sysB", "sysA"])  # wrong: picked sysA
    judge(tie, rater, TIES, label="tie", shown=["sysA", "sysB"])
    acc = gold_accuracy(project)[rater.pk]
    assert (acc.n, acc.correct) == (3, 2)


def test_flags_fast_screens_straight_lines_and_idle_leases(project):
    rater = UserFactory()
    for k, (value, ms) in enumerate([(3, 500), (3, 800), (3, 9000), (5, 9000), (3, 700)]):
        judge(ItemFactory(project=project), rater, value, at=MONDAY + timedelta(minutes=k), duration_ms=ms)
    Assignment.objects.create(
        project=project,
        item=ItemFactory(project=project),
        rater=rater,
        status=Assignment.Status.EXPIRED,
        expires_at=MONDAY,
    )

    class Rules:
        min_seconds_per_judgment = 1.0

    flags = behaviour_flags(project, Rules)[rater.pk]
    assert (flags.n_screens, flags.n_fast, flags.longest_run, flags.current_run, flags.idle_leases) == (5, 3, 3, 1, 1)


def test_pairwise_position_bias_counts_left_wins_and_matches_scipy_binomtest():
    project = ProjectFactory(task_type="pairwise")
    left_lover, fair = UserFactory(), UserFactory()
    for k in range(12):
        shown = ["sysA", "sysB"] if k % 2 else ["sysB", "sysA"]
        judge(ItemFactory(project=project), left_lover, 0, label=shown[0], shown=shown)
    for label in ["sysA", "sysB", "tie", "sysA"]:
        judge(ItemFactory(project=project), fair, 0, label=label, shown=["sysA", "sysB"])

    overall, per_rater = position_bias(project)
    lover = per_rater[left_lover.pk].as_dict()
    assert (lover["first_wins"], lover["other_wins"], lover["ties"], lover["first_share"]) == (12, 0, 0, 1.0)
    assert lover["p_value"] == pytest.approx(binomtest(12, 12, 0.5).pvalue)
    everyone = overall.as_dict()
    assert (everyone["first_wins"], everyone["other_wins"], everyone["ties"]) == (14, 1, 1)
    assert everyone["tie_rate"] == pytest.approx(1 / 16)
    assert everyone["p_value"] == pytest.approx(binomtest(14, 15, 0.5).pvalue)


def test_rankme_position_bias_is_the_first_shown_output_scoring_highest():
    project = ProjectFactory(task_type="rankme")
    rater = UserFactory()
    for scores, shown in (
        ({"sysA": 90, "sysB": 10}, ["sysA", "sysB"]),
        ({"sysA": 90, "sysB": 10}, ["sysB", "sysA"]),
        ({"sysA": 50, "sysB": 50}, ["sysA", "sysB"]),
    ):
        item = ItemFactory(project=project)
        for system, value in scores.items():
            judge(item, rater, value, system=system, shown=shown)
    bias = position_bias(project)[1][rater.pk].as_dict()
    assert (bias["first_wins"], bias["other_wins"], bias["ties"], bias["chance"]) == (1, 1, 1, 0.5)
    assert bias["p_value"] == pytest.approx(binomtest(1, 2, 0.5).pvalue)


def test_likert_has_no_position_bias_audit(project):
    assert position_bias(project) == (None, {})


def test_the_rules_read_only_a_raters_latest_screens(project):
    rater = UserFactory()
    for k in range(10):
        at = MONDAY + timedelta(minutes=k)
        item = ItemFactory(project=project)
        Assignment.objects.create(
            project=project, item=item, rater=rater, status=Assignment.Status.DONE, expires_at=at, completed_at=at
        )
        judge(item, rater, 1 if k < 6 else 2, at=at)
    flags = behaviour_flags(project, None, rater_id=rater.pk, last_screens=3)[rater.pk]
    assert (flags.n_screens, flags.current_run) == (3, 3)
    assert behaviour_flags(project, None, rater_id=rater.pk)[rater.pk].longest_run == 6


def test_every_raters_latest_screens_are_read_as_each_raters_alone(project):
    # Given one rater with ten screens (a long run of 1 turning to 2) and one with two, not a full window
    long, short = UserFactory(), UserFactory()
    for rater, values in ((long, [1] * 6 + [2] * 4), (short, [3, 3])):
        for k, value in enumerate(values):
            at = MONDAY + timedelta(minutes=k)
            item = ItemFactory(project=project)
            Assignment.objects.create(
                project=project, item=item, rater=rater, status=Assignment.Status.DONE, expires_at=at, completed_at=at
            )
            judge(item, rater, value, at=at)

    together = behaviour_flags(project, None, last_screens=5, idle_leases=False)

    alone = {r.pk: behaviour_flags(project, None, rater_id=r.pk, last_screens=5)[r.pk] for r in (long, short)}
    assert together == alone
    assert [(f.n_screens, f.longest_run) for f in together.values()] == [(5, 4), (2, 2)]
