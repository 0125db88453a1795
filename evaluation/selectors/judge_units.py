"""A judge's ratings and the humans' on the same units, as arrays for the judge tests: units are
outputs (likert, rankme) or items through their first output (pairwise)."""

from dataclasses import dataclass

import numpy as np

from annotation.models import Criterion, Output
from evaluation.models import Judge, JudgeRating

from .ratings import included_judgments


@dataclass(frozen=True)
class JudgeUnits:
    """Every ordinary unit a human or the judge rated on one criterion. ``humans`` is
    (n_raters, n_units) with NaN = not rated; ``judge`` (n_units,) likewise."""

    output: np.ndarray
    item_id: np.ndarray
    item: np.ndarray
    system: np.ndarray
    subgroup: np.ndarray
    raters: tuple[int, ...]
    humans: np.ndarray
    judge: np.ndarray


def judge_units(*, judge: Judge, criterion: Criterion) -> JudgeUnits:
    human = list(
        included_judgments(judge.project)
        .filter(criterion=criterion)
        .values_list("rater_id", "output_id", "value")
        .iterator(chunk_size=20_000)
    )
    machine = dict(
        JudgeRating.objects.filter(
            judge=judge,
            criterion=criterion,
            output__item__gold__isnull=True,
            output__item__degraded_from__isnull=True,
            output__item__repeat_of__isnull=True,
        ).values_list("output_id", "value")
    )
    outputs = sorted({o for _, o, _ in human} | set(machine))
    meta = {
        pk: (item_id, item, system, subgroup)
        for pk, item_id, item, system, subgroup in Output.objects.filter(pk__in=outputs).values_list(
            "id", "item_id", "item__external_id", "system", "item__subgroup"
        )
    }
    index = {o: k for k, o in enumerate(outputs)}
    raters = tuple(sorted({r for r, _, _ in human}))
    row = {r: k for k, r in enumerate(raters)}
    humans = np.full((len(raters), len(outputs)), np.nan)
    for r, o, v in human:
        humans[row[r], index[o]] = v
    columns = list(zip(*(meta[o] for o in outputs), strict=True)) or [(), (), (), ()]
    return JudgeUnits(
        output=np.array(outputs, dtype=np.int64),
        item_id=np.array(columns[0], dtype=np.int64),
        item=np.array(columns[1], dtype=object),
        system=np.array(columns[2], dtype=object),
        subgroup=np.array(columns[3], dtype=object),
        raters=raters,
        humans=humans,
        judge=np.array([machine.get(o, np.nan) for o in outputs], dtype=float),
    )
