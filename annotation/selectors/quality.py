"""Quality-control reads: rules, the action log, gold accuracy, behaviour flags and position bias per rater."""

import functools
import operator
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime

import numpy as np
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from annotation.models import (
    Assignment,
    ItemFlag,
    Judgment,
    Membership,
    Output,
    Project,
    QcRules,
    QualificationOutcome,
    RaterAction,
    RaterExclusion,
)
from annotation.selectors.judgment_spans import spans_by_judgment
from annotation.task_types import REGISTRY
from annotation.task_types.facts import LEFT_WINS, OUTCOME
from evaluation.stats import degraded_scores_test, position_bias_test, sign_test_greater

# Gold answers the rolling accuracy looks back over.
ROLLING_GOLD = 20
# Screens the speed rule looks back over, and the least it needs to judge a rater.
SPEED_WINDOW = 20
SPEED_MIN_SCREENS = 10


def qc_rules_current(project: Project) -> QcRules | None:
    return QcRules.objects.filter(project=project).order_by("-version").first()


def qc_rules_defaults(project: Project) -> QcRules:
    """Unsaved rules with the field defaults (version 0): what a project without rules is shown."""
    return QcRules(project=project, version=0)


def rater_action_list(project: Project, *, rater_id: int | None = None) -> QuerySet[RaterAction]:
    actions = RaterAction.objects.filter(project=project).select_related("rater", "by", "rules")
    return actions if rater_id is None else actions.filter(rater_id=rater_id)


def excluded_rater_ids(project: Project) -> list[int]:
    """Raters quality control left out: their judgments count in no agreement, result or export."""
    return list(RaterExclusion.objects.filter(project=project).values_list("rater_id", flat=True))


# Judgments on the project's work items: not on gold items (training screens and gold checks) nor on
# quality-control copies (degraded copies, repeats).
ON_WORK_ITEMS = Q(item__gold__isnull=True, item__degraded_from__isnull=True, item__repeat_of__isnull=True)


def included_judgments(project: Project) -> QuerySet[Judgment]:
    """The judgments agreement and results are computed from: current ones (not revised since) on work
    items, not from excluded raters. The one place where these exclusions are decided."""
    judgments = Judgment.objects.filter(ON_WORK_ITEMS, project=project, is_current=True)
    excluded = excluded_rater_ids(project)
    if excluded:
        judgments = judgments.exclude(rater_id__in=excluded)
    return judgments


@dataclass
class GoldAccuracy:
    n_items: int = 0
    n: int = 0
    correct: int = 0
    rolling_n: int = 0
    rolling_correct: int = 0
    weeks: dict[date, list[int]] = field(default_factory=dict)  # week -> [correct, n]
    n_revised: int = 0  # gold items answered again after the first answer (which is the one counted)

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.n if self.n else None

    @property
    def rolling_accuracy(self) -> float | None:
        return self.rolling_correct / self.rolling_n if self.rolling_n else None

    def as_dict(self) -> dict:
        return {
            "n_items": self.n_items,
            "n": self.n,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "n_revised": self.n_revised,
            "rolling_n": self.rolling_n,
            "rolling_accuracy": self.rolling_accuracy,
            "weeks": [
                {"week": w.isoformat(), "n": n, "correct": c, "accuracy": c / n}
                for w, (c, n) in sorted(self.weeks.items())
            ],
        }


def gold_accuracy(project: Project, *, rater_id: int | None = None) -> dict[int, GoldAccuracy]:
    """Per rater, how often their FIRST answers on gold checks match the gold: overall, over the last
    ROLLING_GOLD answers, and per ISO week (Monday) of submission. A revision is counted (``n_revised``)
    but does not replace the first answer, which may have been given before the rater learned better.
    Training screens (fixed when served) and training-pool items count in no accuracy. One query."""
    task_type = REGISTRY[project.task_type]
    rows = (
        Judgment.objects.filter(project=project, item__gold__isnull=False, item__training=False)
        .exclude(assignment__served_as=Assignment.ServedAs.TRAINING)
        .values_list(
            "rater_id",
            "item_id",
            "item__gold",
            "criterion__name",
            "output__system",
            "turn",
            "value",
            "submitted_at",
            "id",
        )
        .order_by("rater_id", "submitted_at", "id")
    )
    if rater_id is not None:
        rows = rows.filter(rater_id=rater_id)
    rows = list(rows)
    spans = spans_by_judgment(row[-1] for row in rows) if task_type.reads_texts else {}
    out: dict[int, GoldAccuracy] = {}
    answers: dict[int, list[bool]] = defaultdict(list)
    items: dict[int, set] = defaultdict(set)
    revised: dict[int, set] = defaultdict(set)
    answered: set[tuple] = set()
    for rater, item_id, gold, criterion, system, turn, value, submitted_at, judgment_id in rows:
        if (rater, item_id, criterion, system, turn) in answered:  # a later answer to the same question: a revision
            revised[rater].add(item_id)
            continue
        answered.add((rater, item_id, criterion, system, turn))
        ok = task_type.gold_correct(gold or {}, criterion, system, value, spans.get(judgment_id, ()), turn)
        if ok is None:
            continue
        acc = out.setdefault(rater, GoldAccuracy())
        items[rater].add(item_id)
        acc.n += 1
        acc.correct += ok
        answers[rater].append(ok)
        day = submitted_at.date()
        week = acc.weeks.setdefault(date.fromordinal(day.toordinal() - day.weekday()), [0, 0])
        week[0] += ok
        week[1] += 1
    for rater, acc in out.items():
        recent = answers[rater][-ROLLING_GOLD:]
        acc.n_items, acc.rolling_n, acc.rolling_correct = len(items[rater]), len(recent), sum(recent)
        acc.n_revised = len(revised[rater] & items[rater])
    return out


@dataclass(frozen=True)
class ControlFlags:
    n_controls: int  # control screens served (training, gold checks, repeats, degraded copies)
    n_flagged: int  # of them, flagged by the rater

    @property
    def share(self) -> float:
        return self.n_flagged / self.n_controls if self.n_controls else 0.0

    def as_dict(self) -> dict:
        return {"n_controls": self.n_controls, "n_flagged": self.n_flagged, "share": self.share}


def control_flags(project: Project, *, rater_id: int | None = None) -> dict[int, ControlFlags]:
    """Per rater, the control screens served to them and how many of those they flagged. One query."""
    served = (
        Assignment.objects.filter(project=project)
        .exclude(status=Assignment.Status.EXPIRED)
        .exclude(served_as=Assignment.ServedAs.WORK)
    )
    if rater_id is not None:
        served = served.filter(rater_id=rater_id)
    flagged = ItemFlag.objects.filter(assignment=OuterRef("pk"))
    rows = (
        served.values("rater_id")
        .annotate(n=Count("id"), flagged=Count("id", filter=Q(Exists(flagged))))
        .values_list("rater_id", "n", "flagged")
        .order_by()
    )
    return {rater: ControlFlags(n, n_flagged) for rater, n, n_flagged in rows}


def _displayed(pairwise: bool, system: str, value: float, label: str, shown: list[str]):
    """A stored value as the rater gave it on screen: "A" / "B" / "tie" for pairwise (the stored code is
    for the first output as imported, which flips with the side it was shown on), else (display
    position, value)."""
    if pairwise:
        return "tie" if label == "tie" else ("A" if shown and label == shown[0] else "B")
    return (shown.index(system) if system in shown else -1, value)


def _window_starts(project: Project, rater_id: int | None, last_screens: int) -> dict[int, datetime]:
    """Per rater (one, or every rater) with at least ``last_screens`` done assignments, when the
    ``last_screens``-th latest of them was completed. One query."""
    done = Assignment.objects.filter(project=project, status=Assignment.Status.DONE)
    if rater_id is not None:
        start = (
            done.filter(rater_id=rater_id)
            .order_by("-completed_at")
            .values_list("completed_at", flat=True)[last_screens - 1 : last_screens]
        )
        return {rater_id: start[0]} if start else {}
    ranked = done.annotate(rank=Window(RowNumber(), partition_by=F("rater_id"), order_by=F("completed_at").desc()))
    return dict(ranked.filter(rank=last_screens).values_list("rater_id", "completed_at"))


def _screens(project: Project, rater_id: int | None, last_screens: int | None = None):
    """Per rater, their current screens in submission order: (answers as displayed, duration_ms); a
    screen is the rows of one rater on one item. With ``last_screens``, only about each rater's last
    that many screens are read (from their assignments' completion times), so that applying the rules
    does not read a rater's whole history. Two queries at most."""
    pairwise = REGISTRY[project.task_type].values.kind == OUTCOME
    judgments = Judgment.objects.filter(project=project, is_current=True)
    if rater_id is not None:
        judgments = judgments.filter(rater_id=rater_id)
    if last_screens:
        starts = _window_starts(project, rater_id, last_screens)
        if starts:  # raters with fewer screens are read whole
            judgments = judgments.filter(
                functools.reduce(
                    operator.or_,
                    (Q(rater_id=r, submitted_at__gte=start) for r, start in starts.items()),
                    ~Q(rater_id__in=list(starts)),
                )
            )
    rows = judgments.values_list(
        "rater_id", "item_id", "criterion_id", "output__system", "value", "label", "shown_order", "duration_ms"
    ).order_by("rater_id", "submitted_at", "item_id", "criterion_id", "output_id")
    screens: dict[int, list] = defaultdict(list)
    last = None
    for rater, item_id, criterion_id, system, value, label, shown, duration in rows:
        if (rater, item_id) != last:
            screens[rater].append([[], duration])
            last = (rater, item_id)
        screens[rater][-1][0].append((criterion_id, _displayed(pairwise, system, value, label, shown)))
    return {r: [(tuple(sorted(a, key=repr)), d) for a, d in s] for r, s in screens.items()}


@dataclass
class BehaviourFlags:
    n_screens: int = 0
    n_fast: int = 0
    recent_screens: int = 0
    recent_fast: int = 0
    longest_run: int = 0
    current_run: int = 0
    idle_leases: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _run_lengths(answers: list[tuple]) -> tuple[int, int]:
    """(longest, final) run of equal consecutive answers."""
    longest = run = 0
    previous = object()
    for a in answers:
        run = run + 1 if a == previous else 1
        previous = a
        longest = max(longest, run)
    return longest, run


def behaviour_flags(
    project: Project,
    rules: QcRules | None,
    *,
    rater_id: int | None = None,
    last_screens: int | None = None,
    idle_leases: bool = True,
) -> dict[int, BehaviourFlags]:
    """Per rater: screens answered faster than the rules' minimum (overall and in the last SPEED_WINDOW),
    the longest and current runs of identical screens (straight-lining), and (with ``idle_leases``, which
    no rule reads) leases left to expire. ``last_screens`` limits the counts to about each rater's latest
    screens."""
    min_ms = (rules.min_seconds_per_judgment * 1000) if rules else 0
    out: dict[int, BehaviourFlags] = {}
    for rater, screens in _screens(project, rater_id, last_screens).items():
        flags = out.setdefault(rater, BehaviourFlags())
        flags.n_screens = len(screens)
        fast = [d is not None and d < min_ms for _, d in screens] if min_ms else [False] * len(screens)
        flags.n_fast = sum(fast)
        recent = fast[-SPEED_WINDOW:]
        flags.recent_screens, flags.recent_fast = len(recent), sum(recent)
        flags.longest_run, flags.current_run = _run_lengths([a for a, _ in screens])
    if not idle_leases:
        return out
    idle = Assignment.objects.filter(project=project, status=Assignment.Status.EXPIRED)
    if rater_id is not None:
        idle = idle.filter(rater_id=rater_id)
    for rater, n in idle.values_list("rater_id").annotate(n=Count("id")).order_by():
        out.setdefault(rater, BehaviourFlags()).idle_leases = n
    return out


@dataclass
class PositionBias:
    first_wins: int = 0
    other_wins: int = 0
    ties: int = 0
    chance: float = 0.5  # expected share of first-position wins among decided screens

    @property
    def n(self) -> int:
        return self.first_wins + self.other_wins + self.ties

    def as_dict(self) -> dict:
        decided = self.first_wins + self.other_wins
        p = position_bias_test(self.first_wins, decided, self.chance) if decided else None
        return {
            "n": self.n,
            "first_wins": self.first_wins,
            "other_wins": self.other_wins,
            "ties": self.ties,
            "first_share": self.first_wins / decided if decided else None,
            "tie_rate": self.ties / self.n if self.n else None,
            "chance": self.chance,
            "p_value": p,
        }


def position_bias(project: Project) -> tuple[PositionBias | None, dict[int, PositionBias]]:
    """(overall, per rater) wins of the output shown first (left), for pairwise and rankme; None, {} else.

    Pairwise: each judgment's winner against the left system of its shown order. RankME: per screen
    and criterion, whether the first-shown output got the single highest score (a shared top is a
    tie); chance is 1/k for k outputs (the mean over screens when k varies). The p-value is a
    two-sided exact binomial test (evaluation.stats.position_bias_test) of first-position wins among decided screens.
    """
    kind = REGISTRY[project.task_type].position_bias
    if kind is None:
        return None, {}
    overall, per_rater = PositionBias(), {}
    if kind == LEFT_WINS:
        rows = (
            Judgment.objects.filter(project=project, is_current=True)
            .values_list("rater_id", "label", "shown_order")
            .order_by()
        )
        for rater, label, shown in rows.iterator(chunk_size=5000):
            if len(shown) < 2:
                continue
            for bias in (overall, per_rater.setdefault(rater, PositionBias())):
                if label == "tie":
                    bias.ties += 1
                elif label == shown[0]:
                    bias.first_wins += 1
                else:
                    bias.other_wins += 1
        return overall, per_rater
    rows = (
        Judgment.objects.filter(project=project, is_current=True)
        .values_list("rater_id", "item_id", "criterion_id", "output__system", "value", "shown_order")
        .order_by("rater_id", "item_id", "criterion_id")
    )
    groups: dict[tuple, list] = defaultdict(list)
    for rater, item_id, criterion_id, system, value, shown in rows.iterator(chunk_size=5000):
        groups[(rater, item_id, criterion_id)].append((system, value, shown))
    chances: dict[int, list[float]] = defaultdict(list)
    for (rater, _, _), entries in groups.items():
        shown = entries[0][2]
        scores = {s: v for s, v, _ in entries}
        if len(shown) < 2 or shown[0] not in scores:
            continue
        top = max(scores.values())
        leaders = [s for s, v in scores.items() if v == top]
        for key, bias in ((None, overall), (rater, per_rater.setdefault(rater, PositionBias()))):
            chances[key].append(1 / len(shown))
            if len(leaders) > 1:
                bias.ties += 1
            elif leaders[0] == shown[0]:
                bias.first_wins += 1
            else:
                bias.other_wins += 1
    overall.chance = sum(chances[None]) / len(chances[None]) if chances[None] else 0.5
    for rater, bias in per_rater.items():
        bias.chance = sum(chances[rater]) / len(chances[rater]) if chances[rater] else 0.5
    return overall, per_rater


@dataclass
class DegradedCheck:
    n_controls: int = 0  # degraded copies judged
    degraded: list[float] = field(default_factory=list)
    originals: list[float] = field(default_factory=list)
    intact_wins: int = 0  # pairwise
    degraded_wins: int = 0
    ties: int = 0
    # Types marking places in the text: copies whose damage the rater marked, and, where the rater also judged
    # the original, copies marked there but not at the same place of the original and the reverse.
    marked: int = 0
    marked_only_in_copy: int = 0
    marked_only_in_original: int = 0

    @property
    def p_value(self) -> float | None:
        """One-sided: small when damaged copies score lower (Mann–Whitney U on normalised scores), or, for
        pairwise, when the intact side wins more often than chance (exact binomial test)."""
        if self.degraded and self.originals:
            return degraded_scores_test(self.degraded, self.originals)
        if self.intact_wins + self.degraded_wins:
            return sign_test_greater(self.intact_wins, self.intact_wins + self.degraded_wins)
        discordant = self.marked_only_in_copy + self.marked_only_in_original
        if discordant:  # an exact McNemar test: the damaged place is marked more often than the intact one
            return sign_test_greater(self.marked_only_in_copy, discordant)
        return None

    def as_dict(self) -> dict:
        return {
            "n_controls": self.n_controls,
            "n_degraded_scores": len(self.degraded),
            "n_original_scores": len(self.originals),
            "intact_wins": self.intact_wins,
            "degraded_wins": self.degraded_wins,
            "ties": self.ties,
            "marked": self.marked,
            "marked_only_in_copy": self.marked_only_in_copy,
            "marked_only_in_original": self.marked_only_in_original,
            "p_value": self.p_value,
        }


def degraded_check(project: Project, *, rater_id: int | None = None) -> dict[int, DegradedCheck]:
    """Per rater, whether damaged copies score lower than their originals.

    likert / rankme: the rater's scores are z-normalised per criterion over all their current non-gold
    judgments (as WMT normalises each rater's direct-assessment scores); the copies' scores are compared
    with the same rater's scores of the originals (same output system and criterion) by a one-sided
    Mann–Whitney U test. pairwise: how often the intact side beat its damaged version.
    """
    judgments = Judgment.objects.filter(
        project=project, is_current=True, item__gold__isnull=True, item__repeat_of__isnull=True
    )
    if rater_id is not None:
        judgments = judgments.filter(rater_id=rater_id)
    out: dict[int, DegradedCheck] = {}
    if REGISTRY[project.task_type].reads_texts:
        return _degraded_marks(project, judgments)
    if REGISTRY[project.task_type].values.kind == OUTCOME:
        rows = judgments.filter(item__degraded_from__isnull=False).values_list(
            "rater_id", "item_id", "label", "output__system"
        )
        for rater, _item, label, first_system in rows.order_by():
            check = out.setdefault(rater, DegradedCheck())
            check.n_controls += 1
            if label == "tie":
                check.ties += 1
            elif label == first_system:  # the copy's first output is the intact original
                check.intact_wins += 1
            else:
                check.degraded_wins += 1
        return out
    # a conversation rated per turn: the output's system with the turn, so a copy's turn meets the original's
    rows = [
        (rater, criterion, item, original, (system, turn), value)
        for rater, criterion, item, original, system, turn, value in judgments.values_list(
            "rater_id", "criterion_id", "item_id", "item__degraded_from_id", "output__system", "turn", "value"
        ).order_by()
    ]
    if not any(row[3] for row in rows):
        return out
    by_rater_criterion: dict[tuple, list[float]] = defaultdict(list)
    for rater, criterion, _, _, _, value in rows:
        by_rater_criterion[(rater, criterion)].append(value)
    stats = {k: (np.mean(v), np.std(v)) for k, v in by_rater_criterion.items()}

    def z(rater, criterion, value):
        mean, sd = stats[(rater, criterion)]
        return float((value - mean) / sd) if sd > 0 else 0.0

    originals = {(r, c, i, s): z(r, c, v) for r, c, i, d, s, v in rows if d is None}
    copies: dict[int, set] = defaultdict(set)
    for rater, criterion, item, original_item, system, value in rows:
        if original_item is None:
            continue
        check = out.setdefault(rater, DegradedCheck())
        copies[rater].add(item)
        check.n_controls = len(copies[rater])
        original = originals.get((rater, criterion, original_item, system))
        if original is not None:
            check.degraded.append(z(rater, criterion, value))
            check.originals.append(original)
    return out


def _degraded_marks(project: Project, judgments) -> dict[int, DegradedCheck]:
    """Per rater, whether their spans on degraded copies mark the damage (the task type's damage_marked), beside
    whether their spans on the originals mark the same place."""
    task_type = REGISTRY[project.task_type]
    copies = list(
        judgments.filter(item__degraded_from__isnull=False).values_list(
            "id", "rater_id", "item_id", "item__degraded_from_id", "criterion_id", "output__system", "output__text"
        )
    )
    if not copies:
        return {}
    originals = {
        (r, i, c, s): (j, text)
        for j, r, i, c, s, text in judgments.filter(item_id__in={row[3] for row in copies}).values_list(
            "id", "rater_id", "item_id", "criterion_id", "output__system", "output__text"
        )
    }
    texts = dict(
        ((i, s), t)
        for i, s, t in Output.objects.filter(item_id__in={row[3] for row in copies}).values_list(
            "item_id", "system", "text"
        )
    )
    spans = spans_by_judgment([row[0] for row in copies] + [j for j, _ in originals.values()])
    out: dict[int, DegradedCheck] = {}
    seen: dict[int, set] = defaultdict(set)
    for judgment, rater, item, original_item, criterion, system, text in copies:
        check = out.setdefault(rater, DegradedCheck())
        seen[rater].add(item)
        check.n_controls = len(seen[rater])
        original = originals.get((rater, original_item, criterion, system))
        in_copy, in_original = task_type.damage_marked(
            texts[original_item, system], text, spans.get(judgment, ()), spans.get(original[0], ()) if original else ()
        )
        check.marked += in_copy
        if original is not None and in_copy != in_original:
            check.marked_only_in_copy += in_copy
            check.marked_only_in_original += in_original
    return out


@dataclass
class RepeatConsistency:
    n: int = 0  # values given twice (criterion × output of a repeated item)
    same: int = 0
    flips: int = 0  # pairwise: the winner turned into the other system
    decided: int = 0  # pairwise: pairs of answers where neither was a tie

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "consistency": self.same / self.n if self.n else None,
            "flips": self.flips,
            "flip_rate": self.flips / self.decided if self.decided else None,
        }


def repeat_consistency(project: Project) -> dict[int, RepeatConsistency]:
    """Per rater, how often a repeat got the same answer as its original: the same category (likert), the
    same outcome (pairwise, whose sides were swapped; a flip is a win turned into a loss), or a slider within
    a tenth of the scale (rankme; with a modulus, a tenth of the log slider: scores within a factor of 2.5)."""
    rows = (
        Judgment.objects.filter(
            project=project, is_current=True, item__gold__isnull=True, item__degraded_from__isnull=True
        )
        .values_list(
            "rater_id",
            "item_id",
            "item__repeat_of_id",
            "criterion_id",
            "output__system",
            "turn",
            "value",
            "criterion__scale_min",
            "criterion__scale_max",
        )
        .order_by()
    )
    originals, repeats = {}, []
    for rater, item, repeat_of, criterion, output_system, turn, value, low, high in rows:
        system = (output_system, turn)  # a conversation rated per turn: each turn is a value of its own
        if repeat_of is None:
            originals[(rater, item, criterion, system)] = value
        else:
            repeats.append((rater, repeat_of, criterion, system, value, low, high))
    task_type = REGISTRY[project.task_type]
    outcomes = task_type.values.kind == OUTCOME
    out: dict[int, RepeatConsistency] = {}
    for rater, original_item, criterion, system, value, low, high in repeats:
        before = originals.get((rater, original_item, criterion, system))
        if before is None:
            continue
        check = out.setdefault(rater, RepeatConsistency())
        check.n += 1
        check.same += task_type.repeat_same(value, before, low, high, project.rankme_modulus)
        if outcomes and 1.0 not in (value, before):  # 1 codes a tie
            check.decided += 1
            check.flips += value != before
    return out


def rater_quality_report(project: Project) -> dict:
    """Everything the lead's rater page and the QC API show, per rater (members with the rater role)."""
    rules = qc_rules_current(project)
    members = list(
        Membership.objects.filter(project=project, role=Membership.Role.RATER)
        .select_related("user")
        .order_by("user__username")
    )
    accuracy = gold_accuracy(project)
    flags = behaviour_flags(project, rules)
    overall, bias = position_bias(project)
    degraded = degraded_check(project)
    repeats = repeat_consistency(project)
    excluded = set(excluded_rater_ids(project))
    flagged = control_flags(project)
    gate = {o.rater_id: o for o in QualificationOutcome.objects.filter(project=project)}
    last_actions: dict[int, RaterAction] = {}
    for action in rater_action_list(project).filter(rater_id__in=[m.user_id for m in members]):
        last_actions.setdefault(action.rater_id, action)
    raters = []
    for m in members:
        acc = accuracy.get(m.user_id)
        raters.append(
            {
                "rater": m.external_name or m.user.username,
                "username": m.user.username,
                "user_id": m.user_id,
                "is_paused": m.is_paused,
                "is_excluded": m.user_id in excluded,
                "gold": acc.as_dict() if acc else GoldAccuracy().as_dict(),
                "flags": flags.get(m.user_id, BehaviourFlags()).as_dict(),
                "position_bias": bias[m.user_id].as_dict() if m.user_id in bias else None,
                "degraded": degraded[m.user_id].as_dict() if m.user_id in degraded else None,
                "repeats": repeats[m.user_id].as_dict() if m.user_id in repeats else None,
                "control_flags": flagged.get(m.user_id, ControlFlags(0, 0)).as_dict(),
                "qualification": (
                    {
                        "passed": gate[m.user_id].passed,
                        "admitted": gate[m.user_id].admitted,
                        "right": gate[m.user_id].n_right,
                        "screens": gate[m.user_id].n_screens,
                    }
                    if m.user_id in gate
                    else None
                ),
                "last_action": last_actions.get(m.user_id),
            }
        )
    members_ids = {m.user_id for m in members}
    # Excluded raters who have left the team: their exclusion still holds, and a lead can lift it.
    former = [
        {"username": e.rater.username, "user_id": e.rater_id, "excluded_at": e.created_at}
        for e in RaterExclusion.objects.filter(project=project).select_related("rater").order_by("created_at")
        if e.rater_id not in members_ids
    ]
    return {
        "rules": rules,
        "raters": raters,
        "former_excluded": former,
        "position_bias": overall.as_dict() if overall is not None else None,
        "position_bias_note": REGISTRY[project.task_type].position_bias_note,
    }
