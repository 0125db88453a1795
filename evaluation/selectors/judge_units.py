"""A judge's ratings and the humans' on the same units, as arrays for the judge tests: units are
outputs (likert, rankme) or items through their first output (pairwise)."""

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from annotation.models import Criterion, Output, Project
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


def judge_units_table(
    *, project: Project, judges: Sequence[Judge], criteria: Sequence[Criterion]
) -> dict[tuple[int, int], JudgeUnits]:
    """:class:`JudgeUnits` per (judge id, criterion id), from the same few queries however many judges,
    criteria and items there are."""
    criterion_ids = [c.pk for c in criteria]
    human = defaultdict(list)
    for rater, output, criterion, value in (
        included_judgments(project)
        .filter(criterion_id__in=criterion_ids)
        .values_list("rater_id", "output_id", "criterion_id", "value")
        .iterator(chunk_size=20_000)
    ):
        human[criterion].append((rater, output, value))
    machine: defaultdict[tuple[int, int], dict[int, float]] = defaultdict(dict)
    for judge, criterion, output, value in JudgeRating.objects.filter(
        judge__in=[j.pk for j in judges],
        criterion_id__in=criterion_ids,
        output__item__gold__isnull=True,
        output__item__degraded_from__isnull=True,
        output__item__repeat_of__isnull=True,
    ).values_list("judge_id", "criterion_id", "output_id", "value"):
        machine[judge, criterion][output] = value
    wanted = {o for rows in human.values() for _, o, _ in rows} | {o for m in machine.values() for o in m}
    meta = {
        pk: (item_id, item, system, subgroup)
        for pk, item_id, item, system, subgroup in Output.objects.filter(pk__in=wanted).values_list(
            "id", "item_id", "item__external_id", "system", "item__subgroup"
        )
    }
    return {(j.pk, c): _units(human[c], machine[j.pk, c], meta) for j in judges for c in criterion_ids}


def _units(human: list[tuple[int, int, float]], machine: dict[int, float], meta: dict) -> JudgeUnits:
    outputs = sorted({o for _, o, _ in human} | set(machine))
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
