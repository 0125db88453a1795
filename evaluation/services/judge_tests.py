"""Can a judge replace the raters? The alternative annotator test per judge, criterion and subgroup;
prediction-powered system means and win rates from the human-rated subset plus every judge-rated
unit; and the judge's confusion against the human majority, each cell with its items."""

from itertools import combinations

import numpy as np

from annotation.models import Criterion, Output, Project
from annotation.selectors import rater_names_for_project
from annotation.task_types import REGISTRY
from annotation.task_types.facts import COMPARED, CONTINUOUS, OUTCOME
from evaluation.models import Judge
from evaluation.selectors import JudgeUnits, judge_units_table
from evaluation.stats import InsufficientDataError, alt_test, alt_test_single_expert, consensus, prediction_powered_mean

from ._common import interval, num


# pairwise judgments code the first output's outcome 0 loses, 1 tie, 2 wins (annotation.models.Judgment)
def _chosen(rows: list, names, what: str) -> list:
    """The rows named (all when ``names`` is empty); ValueError naming the first unknown name."""
    if not names:
        return rows
    unknown = sorted(set(names) - {r.name for r in rows})
    if unknown:
        raise ValueError(f"{what} {unknown[0]!r} is not in this project")
    return [r for r in rows if r.name in set(names)]


def _judges(project: Project, names) -> list[Judge]:
    return _chosen(list(Judge.objects.filter(project=project).order_by("model_name", "run_on", "name")), names, "judge")


def _one_judge(project: Project, name: str) -> list[Judge]:
    if not name:
        raise ValueError("name the judge (judge=...)")
    return _judges(project, [name])


def _criteria(project: Project, names) -> list[Criterion]:
    return _chosen(list(Criterion.objects.filter(project=project).order_by("position", "id")), names, "criterion")


def _judge_row(judge: Judge) -> dict:
    return {
        "judge": judge.name,
        "kind": judge.kind,
        "model": judge.model_name,
        "prompt_hash": judge.prompt_hash,
        "run_on": judge.run_on.isoformat() if judge.run_on else None,
        "version": judge.version,
    }


def _alt_result(result, raters, names) -> dict:
    return {
        "subgroup": result.group,
        "n_items": result.n_items,
        "n_raters": result.n_raters,
        "winning_rate": result.winning_rate,
        "advantage_probability": result.advantage_probability,
        "passed": result.passed,
        "comparisons": [
            {
                "rater": names.get(raters[c.rater], str(raters[c.rater])),
                "n_items": c.n_items,
                "judge_advantage": c.judge_advantage,
                "rater_advantage": c.rater_advantage,
                "t_statistic": num(c.t_statistic),
                "p_value": num(c.p_value),
                "judge_wins": c.judge_wins,
            }
            for c in result.comparisons
        ],
        "skipped": [names.get(raters[k], str(raters[k])) for k in result.skipped],
        "notes": list(result.notes),
    }


class _AltRun:
    """The alt-test of one criterion's units: the leave-one-out test of the paper, or, with an
    ``expert`` rater id, its single-expert variant (every other rater and the judge represent the
    expert). ``raters`` are the rater ids the comparisons index."""

    def __init__(self, units: JudgeUnits, options: dict, expert: int | None):
        self.options = options
        if expert is None:
            self.expert, self.humans, self.raters = None, units.humans, units.raters
            return
        if expert not in units.raters:
            raise InsufficientDataError("the expert rated nothing on this criterion")
        k = units.raters.index(expert)
        self.expert = units.humans[k]
        self.humans = np.delete(units.humans, k, axis=0)
        self.raters = units.raters[:k] + units.raters[k + 1 :]

    def __call__(self, judge: np.ndarray, inside=slice(None), groups=None):
        if self.expert is None:
            return alt_test(self.humans[:, inside], judge[inside], groups=groups, **self.options)
        return alt_test_single_expert(
            self.expert[inside], self.humans[:, inside], judge[inside], groups=groups, **self.options
        )


def _alt_by_subgroup(units: JudgeUnits, run: _AltRun, names: dict) -> tuple[list[dict], list[str]]:
    """Per-subgroup results (the correction over every tested subgroup together) and the subgroups
    too thin to test, each with its reason."""
    labels = np.array([s or "(none)" for s in units.subgroup], dtype=object)
    thin, keep = [], np.zeros(len(labels), dtype=bool)
    for name in sorted(set(labels.tolist())):
        inside = labels == name
        try:
            run(units.judge, inside)
        except InsufficientDataError as exc:
            thin.append(f"{name}: {exc}")
            continue
        keep |= inside
    if not keep.any():
        return [], thin
    results = run(units.judge, keep, groups=labels[keep])
    return [_alt_result(r, run.raters, names) for r in results], thin


def _constant_baseline(units: JudgeUnits, run: _AltRun, names: dict) -> dict:
    """The alt-test of a judge that always gives the raters' most common label (categorical) or
    their median (ratings). When it passes, the raters agree too little for a pass to mean much."""
    labels = units.humans[~np.isnan(units.humans)]
    if not len(labels):
        return {"value": None, "overall": None, "error": "no human labels"}
    if run.options["alignment"] == "accuracy":
        values, counts = np.unique(labels, return_counts=True)
        constant = float(values[counts.argmax()])
    else:
        constant = float(np.median(labels))
    try:
        (result,) = run(np.full(units.humans.shape[1], constant))
    except InsufficientDataError as exc:
        return {"value": constant, "overall": None, "error": str(exc)}
    return {"value": constant, "overall": _alt_result(result, run.raters, names), "error": None}


def _rater_named(names: dict[int, str], name: str) -> int | None:
    """The rater id called ``name`` (None for no name); ValueError when no rater is."""
    if not name:
        return None
    ids = [k for k, v in names.items() if v == name]
    if not ids:
        raise ValueError(f"expert {name!r} is not a rater of this project")
    return ids[0]


def judge_alt_test_report(
    *,
    project: Project,
    epsilon: float,
    q: float = 0.05,
    alignment: str | None = None,
    test: str = "t",
    expert: str = "",
    judges=None,
    criteria=None,
) -> dict:
    """The alternative annotator test of each judge on each criterion, over all items and per
    subgroup, beside a constant judge (``baseline``). The alignment defaults to the share of
    matching labels for pairwise outcomes and minus the RMSE for ratings, as the authors score
    categorical and numeric labels. ``test="wilcoxon"`` for raters with fewer than 30 items;
    ``expert`` names a rater the others and the judge compete to represent (single-expert test);
    ``raters`` lists the names of those who rated, the experts one may name."""
    alignment = alignment or ("accuracy" if REGISTRY[project.task_type].values.kind == OUTCOME else "neg_rmse")
    options = {"alignment": alignment, "epsilon": epsilon, "q": q, "test": test}
    names = rater_names_for_project(project)
    expert_id = _rater_named(names, expert)
    chosen_judges = _judges(project, judges)
    out = {"epsilon": epsilon, "q": q, "alignment": alignment, "test": test, "expert": expert or None, "criteria": []}
    chosen_criteria = _criteria(project, criteria)
    table = judge_units_table(project=project, judges=chosen_judges, criteria=chosen_criteria)
    for criterion in chosen_criteria:
        entry = {"criterion": criterion.name, "judges": [], "baseline": None}
        for judge in chosen_judges:
            units = table[judge.pk, criterion.pk]
            row = _judge_row(judge) | {"overall": None, "error": None, "subgroups": [], "thin_subgroups": []}
            try:
                run = _AltRun(units, options, expert_id)
                if entry["baseline"] is None:
                    entry["baseline"] = _constant_baseline(units, run, names)
                (overall,) = run(units.judge)
            except InsufficientDataError as exc:
                row["error"] = str(exc)
            else:
                row["overall"] = _alt_result(overall, run.raters, names)
                if len({s for s in units.subgroup if s}) > 1:
                    row["subgroups"], row["thin_subgroups"] = _alt_by_subgroup(units, run, names)
            entry["judges"].append(row)
        out["criteria"].append(entry)
    out["raters"] = sorted({names.get(r, str(r)) for units in table.values() for r in units.raters})
    return out


def _estimate(e) -> dict:
    return {"value": num(e.value), "std_error": num(e.std_error), "ci": interval(e.ci_low, e.ci_high), "n": e.n}


def _ppi_row(kind: str, label: str, human: np.ndarray, machine: np.ndarray, confidence: float) -> dict:
    """Prediction-powered estimate of the mean of ``human`` (NaN = no human value) with the judge's
    ``machine`` (NaN = not judged), one value per unit."""
    both = ~np.isnan(human) & ~np.isnan(machine)
    judge_only = np.isnan(human) & ~np.isnan(machine)
    row = {"kind": kind, "label": label, "error": None}
    try:
        r = prediction_powered_mean(human[both], machine[both], machine[judge_only], confidence=confidence)
    except InsufficientDataError as exc:
        return row | {"error": str(exc), "n_human": int(both.sum()), "n_judge_only": int(judge_only.sum())}
    return row | {
        "prediction_powered": _estimate(r.prediction_powered),
        "human_only": _estimate(r.human_only),
        "judge_only": _estimate(r.judge_only),
        "tuning": r.tuning,
        "n_human": r.n_human,
        "n_judge_only": r.n_judge_only,
        "effective_n": num(r.effective_n),
        "n_saved": num(r.n_saved),
    }


def _human_means(units: JudgeUnits) -> np.ndarray:
    rated = (~np.isnan(units.humans)).sum(axis=0)
    return np.where(rated > 0, np.nansum(units.humans, axis=0) / np.maximum(rated, 1), np.nan)


def _outcome(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1 when a beats b, ½ on a tie, 0 when it loses; NaN where either is missing."""
    return np.where(np.isnan(a) | np.isnan(b), np.nan, 0.5 * (np.sign(a - b) + 1))


def _ratings_estimands(units: JudgeUnits, confidence: float) -> list[dict]:
    human = _human_means(units)
    systems = sorted(set(units.system.tolist()))
    rows = [_ppi_row("mean", s, human[units.system == s], units.judge[units.system == s], confidence) for s in systems]
    items = sorted(set(units.item.tolist()))
    at = {(i, s): k for k, (i, s) in enumerate(zip(units.item, units.system, strict=True))}
    for a, b in combinations(systems, 2):
        ka = np.array([at.get((i, a), -1) for i in items])
        kb = np.array([at.get((i, b), -1) for i in items])
        both = (ka >= 0) & (kb >= 0)
        ka, kb = ka[both], kb[both]
        rows.append(
            _ppi_row(
                "win_rate",
                f"{a} vs {b}",
                _outcome(human[ka], human[kb]),
                _outcome(units.judge[ka], units.judge[kb]),
                confidence,
            )
        )
    return rows


def _pairwise_estimands(units: JudgeUnits, project: Project, confidence: float) -> list[dict]:
    second = dict(Output.objects.filter(item__project=project, position=1).values_list("item__external_id", "system"))
    human, machine = _human_means(units) / 2, units.judge / 2
    pair_of = [tuple(sorted((f, second.get(i, "")))) for i, f in zip(units.item, units.system, strict=True)]
    rows = []
    for a, b in sorted(set(pair_of)):
        inside = np.array([p == (a, b) for p in pair_of])
        flip = units.system[inside] != a
        h, m = human[inside], machine[inside]
        rows.append(_ppi_row("win_rate", f"{a} vs {b}", np.where(flip, 1 - h, h), np.where(flip, 1 - m, m), confidence))
    return rows


def judge_prediction_powered_report(*, project: Project, judge: str, criteria=None, confidence: float = 0.95) -> dict:
    """Per criterion, each system's mean (ratings) and each pair's win rate (ties count half) three
    ways: prediction-powered (the human-rated units plus every unit only the judge rated), humans
    only and judge only, with the human judgments the judge is worth."""
    (chosen,) = _one_judge(project, judge)
    out = _judge_row(chosen) | {"confidence": confidence, "criteria": []}
    chosen_criteria = _criteria(project, criteria)
    table = judge_units_table(project=project, judges=[chosen], criteria=chosen_criteria)
    for criterion in chosen_criteria:
        units = table[chosen.pk, criterion.pk]
        if REGISTRY[project.task_type].results.kind == COMPARED:
            rows = _pairwise_estimands(units, project, confidence)
        else:
            rows = _ratings_estimands(units, confidence)
        out["criteria"].append({"criterion": criterion.name, "estimands": rows})
    return out


def judge_confusion(*, project: Project, judge: str, criterion: str) -> dict:
    """The judge's label against the human majority (a single most frequent label; units where the
    top labels tie are left out and counted), each cell with its units. Likert judges' averaged
    ratings are rounded to the nearest scale point."""
    values = REGISTRY[project.task_type].values
    if values.kind == CONTINUOUS:
        raise ValueError(
            f"a confusion table needs categories; {REGISTRY[project.task_type].card.name} ratings are continuous "
            "(see the alt-test)"
        )
    (chosen,) = _one_judge(project, judge)
    if not criterion:
        raise ValueError("name the criterion (criterion=...)")
    (target,) = _criteria(project, [criterion])
    units = judge_units_table(project=project, judges=[chosen], criteria=[target])[chosen.pk, target.pk]
    majority = consensus(units.humans, statistic="alpha_nominal") if len(units.raters) else np.full(0, np.nan)
    machine = np.round(units.judge)
    if values.kind == OUTCOME:
        names = dict(zip(values.outcomes, values.outcome_labels, strict=True))
        labels = list(names)
        name = names.get
    else:
        labels = [float(v) for v in range(int(target.scale_min), int(target.scale_max) + 1)]
        machine = np.clip(machine, target.scale_min, target.scale_max)

        def name(v):
            return str(int(v))

    rated = ~np.isnan(units.judge) & (~np.isnan(units.humans)).any(axis=0)
    no_majority = int((rated & np.isnan(majority)).sum())
    both = rated & ~np.isnan(majority)
    cells = {}
    for k in np.flatnonzero(both):
        cells.setdefault((majority[k], machine[k]), []).append(
            {
                "item": units.item[k],
                "item_id": int(units.item_id[k]),
                "system": units.system[k],
                "output": int(units.output[k]),
            }
        )
    n = int(both.sum())
    return _judge_row(chosen) | {
        "criterion": target.name,
        "labels": [name(v) for v in labels],
        "n_units": n,
        "n_no_majority": no_majority,
        "agreement": num(np.mean(majority[both] == machine[both])) if n else None,
        "rows": [
            {
                "human": name(h),
                "cells": [
                    {"judge": name(j), "count": len(cells.get((h, j), [])), "units": cells.get((h, j), [])}
                    for j in labels
                ],
            }
            for h in labels
        ],
    }
