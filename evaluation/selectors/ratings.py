"""Human ratings as numpy columns for the statistics, from the judgments annotation's quality control
counts (``included_judgments``, shared with agreement)."""

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Avg, Count

from annotation.conversations import assistant_turns, turn_label
from annotation.models import Criterion, Judgment, Output, Project
from annotation.selectors import quality
from annotation.selectors.quality import included_judgments


def excluded_rater_ids(project: Project) -> list[int]:
    """Raters whose judgments results leave out: those quality control excluded (annotation decides,
    so agreement and evaluation follow the same list); every result, correlation and judge report follows."""
    return quality.excluded_rater_ids(project)


def exclusion_counts(project: Project) -> dict:
    """How many current judgments are left out, and why (shown beside every result)."""
    current = Judgment.objects.filter(project=project, is_current=True)
    excluded = excluded_rater_ids(project)
    return {
        "gold_items": current.filter(item__gold__isnull=False).count(),
        "degraded_controls": current.filter(item__degraded_from__isnull=False).count(),
        "repeats": current.filter(item__repeat_of__isnull=False).count(),
        "excluded_raters": current.filter(item__gold__isnull=True, rater_id__in=excluded).count() if excluded else 0,
        "n_excluded_raters": len(excluded),
    }


def retired_item_counts(project: Project) -> dict:
    """The current judgments of retired items, and of how many items: kept in the results, and said to be so
    beside them. One query."""
    return Judgment.objects.filter(project=project, is_current=True, item__retired_at__isnull=False).aggregate(
        items=Count("item_id", distinct=True), judgments=Count("id")
    )


@dataclass
class RatingFrame:
    """One row per included judgment (likert, rankme, best–worst): item, system, rater and criterion as labels, and
    the probability its screen was drawn with (adaptive allocation; NaN where none was recorded)."""

    item: np.ndarray
    system: np.ndarray
    rater: np.ndarray
    criterion: np.ndarray
    value: np.ndarray
    criteria: list[str] = field(default_factory=list)
    probability: np.ndarray | None = None

    def where(self, mask: np.ndarray) -> "RatingFrame":
        return RatingFrame(
            self.item[mask],
            self.system[mask],
            self.rater[mask],
            self.criterion[mask],
            self.value[mask],
            self.criteria,
            None if self.probability is None else self.probability[mask],
        )

    def for_criterion(self, name: str) -> "RatingFrame":
        return self.where(self.criterion == name)

    def __len__(self):
        return len(self.value)


def _criteria(project: Project) -> list[str]:
    return list(Criterion.objects.filter(project=project).order_by("position", "id").values_list("name", flat=True))


def rating_frame(project: Project, *, criterion: str | None = None) -> RatingFrame:
    """Included judgments as columns; ``item`` holds external ids, ``rater`` user ids. A project rating each turn
    and the whole output ("both") scores outputs by their whole-output judgments (turn_means has the turns')."""
    judgments = included_judgments(project)
    if project.rating_unit == Project.RatingUnit.BOTH:
        judgments = judgments.filter(turn__isnull=True)
    if criterion:
        judgments = judgments.filter(criterion__name=criterion)
    rows = list(
        judgments.values_list(
            "item__external_id", "output__system", "rater_id", "criterion__name", "value", "sampling_probability"
        ).iterator(chunk_size=20_000)
    )
    columns = list(zip(*rows, strict=True)) if rows else [(), (), (), (), (), ()]
    return RatingFrame(
        np.array(columns[0], dtype=object),
        np.array(columns[1], dtype=object),
        np.array(columns[2], dtype=np.int64),
        np.array(columns[3], dtype=object),
        np.array(columns[4], dtype=float),
        _criteria(project),
        np.array([np.nan if p is None else p for p in columns[5]], dtype=float),
    )


@dataclass
class PairwiseFrame:
    """One row per included pairwise judgment: the item's first and second systems as imported, the
    outcome coded for the first (0 it loses, 1 tie, 2 it wins), and the probability its pair was drawn with
    (adaptive allocation; NaN where none was recorded)."""

    item: np.ndarray
    first: np.ndarray
    second: np.ndarray
    rater: np.ndarray
    criterion: np.ndarray
    outcome: np.ndarray
    criteria: list[str] = field(default_factory=list)
    probability: np.ndarray | None = None

    def where(self, m: np.ndarray) -> "PairwiseFrame":
        return PairwiseFrame(
            self.item[m],
            self.first[m],
            self.second[m],
            self.rater[m],
            self.criterion[m],
            self.outcome[m],
            self.criteria,
            None if self.probability is None else self.probability[m],
        )

    def for_criterion(self, name: str) -> "PairwiseFrame":
        return self.where(self.criterion == name)

    def __len__(self):
        return len(self.outcome)


def pairwise_frame(project: Project, *, criterion: str | None = None) -> PairwiseFrame:
    judgments = included_judgments(project)
    if criterion:
        judgments = judgments.filter(criterion__name=criterion)
    rows = list(
        judgments.values_list(
            "item_id",
            "item__external_id",
            "output__system",
            "rater_id",
            "criterion__name",
            "value",
            "sampling_probability",
        ).iterator(chunk_size=20_000)
    )
    second = dict(
        Output.objects.filter(item__project=project, position=1)
        .values_list("item_id", "system")
        .iterator(chunk_size=20_000)
    )
    if not rows:
        empty = np.array([], dtype=object)
        return PairwiseFrame(
            empty, empty, empty, np.array([], dtype=np.int64), empty, np.array([]), _criteria(project), np.array([])
        )
    item_ids, external, first, rater, crit, value, probability = zip(*rows, strict=True)
    return PairwiseFrame(
        np.array(external, dtype=object),
        np.array(first, dtype=object),
        np.array([second[i] for i in item_ids], dtype=object),
        np.array(rater, dtype=np.int64),
        np.array(crit, dtype=object),
        np.array(value, dtype=float),
        _criteria(project),
        np.array([np.nan if p is None else p for p in probability], dtype=float),
    )


def turn_means(project: Project, *, raters: frozenset[int] | None = None) -> list[dict]:
    """A project rating each assistant turn: per criterion, system and turn (its index in the output's
    conversation), the mean of the included judgments and their number, in criterion, system and turn order, with
    the turn's label as the screens show it ("assistant turn 2 (message 3)"; "message 3" where the system's
    outputs differ in which assistant turn that message is)."""
    judgments = included_judgments(project).filter(turn__isnull=False)
    if raters is not None:
        judgments = judgments.filter(rater_id__in=sorted(raters))
    rows = (
        judgments.values("criterion__position", "criterion__name", "output__system", "turn")
        .annotate(mean=Avg("value"), n=Count("id"))
        .order_by("criterion__position", "criterion__name", "output__system", "turn")
    )
    ordinals: dict[tuple[str, int], set[int]] = defaultdict(set)
    outputs = Output.objects.filter(id__in=judgments.values("output_id")).values_list("system", "turns")
    for system, turns in outputs.iterator(chunk_size=2000):
        for ordinal, index in enumerate(assistant_turns(turns), start=1):
            ordinals[system, index].add(ordinal)

    def label(system: str, index: int) -> str:
        known = ordinals.get((system, index), set())
        return turn_label(index, next(iter(known)) if len(known) == 1 else None)

    return [
        {"criterion": r["criterion__name"], "system": r["output__system"], "turn": r["turn"],
         "turn_label": label(r["output__system"], r["turn"]), "mean": r["mean"], "n": r["n"]}
        for r in rows
    ]  # fmt: skip
