"""Automatic judges: their ratings imported (an LLM prompted as a rater) or computed from a metric
with thresholds, and their agreement with the humans beside human–human agreement.

Judge rating line (JSONL): ``{"judge": "gpt-4o", "item": "doc17", "system": "bart",
"criterion": "fluency", "value": 4.33, "kind": "llm"}``, optionally with the run's version:
``"model": "gpt-4o-2024-08-06", "prompt_hash": "9f2c...", "run_date": "2025-03-01"`` (one per judge).
For ``likert`` and ``rankme`` the value is a number on the criterion's scale (a judge may average
samples, so Likert values need not be whole); for ``pairwise`` it is the winning system's name or
``"tie"`` and ``system`` is left out.
"""

from datetime import date

import numpy as np
from django.db import transaction

from annotation.models import Criterion, Output, Project
from annotation.selectors import rater_names_for_project
from annotation.task_types import REGISTRY, CriterionScale, TaskTypeError
from annotation.task_types.base import scale_number
from annotation.task_types.facts import OUTCOME, POINTS
from audit.services import audit_record
from core.bulk_insert import insert_rows
from core.import_records import BadRecord, ImportRejected, ImportReport, records
from evaluation.models import Judge, JudgeRating, MetricScore
from evaluation.selectors import included_judgments
from evaluation.stats import InsufficientDataError, judge_agreement

from ._common import MAX_RESAMPLES, generator, interval, num

FIELDS = {"judge", "item", "system", "criterion", "value", "kind", "model", "prompt_hash", "run_date"}
VERSION_FIELDS = {"model": ("model_name", 200), "prompt_hash": ("prompt_hash", 64), "run_date": ("run_on", 10)}
MAX_JUDGE_NAME = 200
BATCH_SIZE = 5000


class _Index:
    """Outputs and criteria of a project, by the names a line uses."""

    def __init__(self, project: Project):
        self.task_type = REGISTRY[project.task_type]
        self.outcomes = self.task_type.values.kind == OUTCOME
        self.criteria = {
            c.name: (c.id, CriterionScale(c.name, c.scale_min, c.scale_max, project.rankme_modulus))
            for c in Criterion.objects.filter(project=project)
        }
        self.items: dict[str, dict[str, int]] = {}
        for external_id, system, output_id in (
            Output.objects.filter(item__project=project)
            .order_by("item_id", "position")
            .values_list("item__external_id", "system", "id")
        ):
            self.items.setdefault(external_id, {})[system] = output_id

    @staticmethod
    def version(record: dict) -> dict:
        """The judge's version fields a line gives (model, prompt hash, run date)."""
        out = {}
        for name, (field, limit) in VERSION_FIELDS.items():
            value = record.get(name)
            if value in (None, ""):
                continue
            if not isinstance(value, str) or len(value) > limit:
                raise TaskTypeError(f"{name} must be text of at most {limit} characters")
            if name == "run_date":
                try:
                    value = date.fromisoformat(value)
                except ValueError:
                    raise TaskTypeError(f"run_date must be a date as YYYY-MM-DD, got {value!r}") from None
            out[field] = value
        return out

    def parse(self, record: dict) -> tuple[str, str, int, int, float]:
        unknown = sorted(set(record) - FIELDS)
        if unknown:
            raise TaskTypeError(
                f"unknown field {', '.join(map(repr, unknown))}; fields are {', '.join(sorted(FIELDS))}"
            )
        for name in ("judge", "item", "criterion", "value"):
            if record.get(name) in (None, ""):
                raise TaskTypeError(f"{name} is missing")
        judge = record["judge"]
        if not isinstance(judge, str) or len(judge) > MAX_JUDGE_NAME:
            raise TaskTypeError(f"judge must be a name of at most {MAX_JUDGE_NAME} characters")
        kind = record.get("kind") or Judge.Kind.LLM
        if kind not in Judge.Kind.values:
            raise TaskTypeError(f"kind must be one of {', '.join(Judge.Kind.values)}")
        outputs = self.items.get(str(record["item"]))
        if outputs is None:
            raise TaskTypeError(f"item {record['item']!r} is not in this project")
        criterion = self.criteria.get(record["criterion"])
        if criterion is None:
            raise TaskTypeError(
                f"criterion {record['criterion']!r} is not one of {', '.join(map(repr, self.criteria))}"
            )
        systems = list(outputs)
        if self.outcomes:
            system, value, _ = self.task_type.code_value(record["value"], criterion[1], systems, None)
        else:
            system = record.get("system")
            if system is None and len(systems) == 1:
                system = systems[0]
            if system not in outputs:
                raise TaskTypeError(f"system {system!r} is not a system of this item ({', '.join(systems)})")
            value = scale_number(record["value"], criterion[1], "value")
        return judge, kind, outputs[system], criterion[0], value


def judge_rating_import(*, project: Project, stream, by=None, file_name: str = "") -> int:
    """Import every judge rating of a seekable binary JSONL ``stream`` or none (ImportRejected lists
    every bad line); judges are created on first sight. A rating already stored for the same judge,
    output and criterion is replaced. Returns the number of ratings."""
    index = _Index(project)
    report, seen, parsed, versions = ImportReport(), {}, [], {}
    for line, record in records(stream, "jsonl"):
        if isinstance(record, BadRecord):
            report.add(line, str(record))
            continue
        try:
            judge, kind, output_id, criterion_id, value = index.parse(record)
            version = index.version(record)
        except TaskTypeError as exc:
            report.add(line, str(exc))
            continue
        if version:
            first = versions.setdefault(judge, (line, version))
            if first[1] != version:
                report.add(line, f"judge {judge!r} has another version on line {first[0]}; name each run apart")
                continue
        key = (judge, output_id, criterion_id)
        if key in seen:
            report.add(line, f"judge {judge!r} rated this output on this criterion already (line {seen[key]})")
            continue
        seen[key] = line
        parsed.append((judge, kind, output_id, criterion_id, value))
    if not parsed and not report.n_errors:
        report.add(1, "the file holds no ratings")
    if report.n_errors:
        raise ImportRejected(report)
    with transaction.atomic():
        judges = {}
        for name, kind in dict((p[0], p[1]) for p in parsed).items():
            judges[name], _ = Judge.objects.get_or_create(project=project, name=name, defaults={"kind": kind})
            if name in versions:
                for field, value in versions[name][1].items():
                    setattr(judges[name], field, value)
                judges[name].full_clean()
                judges[name].save()
        JudgeRating.objects.filter(judge__in=judges.values(), output_id__in={p[2] for p in parsed}).filter(
            criterion_id__in={p[3] for p in parsed}
        ).delete()
        for start in range(0, len(parsed), BATCH_SIZE):
            insert_rows(
                JudgeRating,
                ["judge", "output", "criterion", "value"],
                [(judges[j].id, o, c, v) for j, _, o, c, v in parsed[start : start + BATCH_SIZE]],
            )
        audit_record(
            actor=by,
            action="judges.import",
            project=project,
            target=file_name,
            detail={"imported": len(parsed), "judges": sorted(judges)},
        )
    return len(parsed)


@transaction.atomic
def judge_from_metric(
    *, project: Project, name: str, metric: str, criterion: str, thresholds: list[float], by=None
) -> Judge:
    """A judge that rates with a metric and thresholds (kind ``metric``).

    likert: the rating is ``scale_min`` + the number of thresholds the score reaches, so give one
    threshold fewer than scale points, increasing. pairwise: one margin ``t``; the first output wins
    when its score beats the second's by more than ``t``, loses when it trails by more, else a tie.
    """
    target = Criterion.objects.filter(project=project, name=criterion).first()
    if target is None:
        raise ValueError(f"criterion {criterion!r} is not in this project")
    cuts = [float(t) for t in thresholds]
    kind = REGISTRY[project.task_type].values.kind
    if kind == POINTS:
        points = int(target.scale_max - target.scale_min) + 1
        if len(cuts) != points - 1 or cuts != sorted(cuts):
            raise ValueError(f"give {points - 1} increasing thresholds for a {points}-point scale")
    elif kind == OUTCOME:
        if len(cuts) != 1 or cuts[0] < 0:
            raise ValueError(f"give one non-negative margin for a {project.task_type} judge")
    else:
        categorical = [slug for slug, t in REGISTRY.items() if t.values.kind in (POINTS, OUTCOME)]
        raise ValueError(f"metric judges with thresholds are defined for {' and '.join(categorical)} projects")
    scores = dict(
        MetricScore.objects.filter(project=project, name=metric, value__isnull=False).values_list("output_id", "value")
    )
    if not scores:
        raise ValueError(f"no scores for metric {metric!r} in this project")
    judge, _ = Judge.objects.update_or_create(
        project=project,
        name=name,
        defaults={
            "kind": Judge.Kind.METRIC,
            "config": {"metric": metric, "criterion": criterion, "thresholds": cuts},
        },
    )
    JudgeRating.objects.filter(judge=judge, criterion=target).delete()
    rows = []
    if kind == POINTS:
        rows = [
            (judge.id, oid, target.id, target.scale_min + float(np.searchsorted(cuts, v, side="right")))
            for oid, v in scores.items()
        ]
    else:
        pairs = {}
        for item_id, position, oid in Output.objects.filter(item__project=project).values_list(
            "item_id", "position", "id"
        ):
            pairs.setdefault(item_id, {})[position] = oid
        for outputs in pairs.values():
            a, b = scores.get(outputs.get(0)), scores.get(outputs.get(1))
            if a is not None and b is not None:
                rows.append(
                    (
                        judge.id,
                        outputs[0],
                        target.id,
                        2.0 if a - b > cuts[0] else 0.0 if b - a > cuts[0] else 1.0,
                    )
                )
    insert_rows(JudgeRating, ["judge", "output", "criterion", "value"], rows)
    audit_record(
        actor=by,
        action="judge.from_metric",
        project=project,
        target=name,
        detail={"metric": metric, "criterion": criterion, "thresholds": cuts},
    )
    return judge


def _estimate(e) -> dict:
    return {"value": num(e.value), "ci": interval(e.ci_low, e.ci_high)}


def judge_agreement_report(
    *, project: Project, judges=None, criteria=None, confidence=0.95, n_resamples=1000, seed=0
) -> dict:
    """Per criterion: human–human agreement (the ceiling), and per judge its agreement with each
    human, with the humans on average and with the consensus of the other humans.

    Units are outputs (likert, rankme) or items (pairwise, the judgment on the first output);
    the statistic is Krippendorff's alpha for two coders, interval level for ratings and nominal
    for pairwise outcomes, plus Pearson's r for ratings.
    """
    if not 0 <= n_resamples <= MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be from 0 to {MAX_RESAMPLES}")
    statistics = (
        ["alpha_nominal"] if REGISTRY[project.task_type].values.kind == OUTCOME else ["alpha_interval", "pearson"]
    )
    judge_rows = list(Judge.objects.filter(project=project).order_by("name"))
    if judges:
        judge_rows = [j for j in judge_rows if j.name in set(judges)]
    all_criteria = list(Criterion.objects.filter(project=project).order_by("position", "id"))
    chosen = [c for c in all_criteria if not criteria or c.name in set(criteria)]
    names = rater_names_for_project(project)
    out = {
        "statistics": statistics,
        "confidence": confidence,
        "n_resamples": n_resamples,
        "seed": seed,
        "unit": REGISTRY[project.task_type].agreement.unit,
        "criteria": [],
    }
    for criterion in chosen:
        human = list(
            included_judgments(project)
            .filter(criterion=criterion)
            .values_list("rater_id", "output_id", "value")
            .iterator(chunk_size=20_000)
        )
        raters = sorted({r for r, _, _ in human})
        units = sorted({o for _, o, _ in human})
        rater_index = {r: k for k, r in enumerate(raters)}
        unit_index = {u: k for k, u in enumerate(units)}
        matrix = np.full((len(raters), len(units)), np.nan)
        for r, o, v in human:
            matrix[rater_index[r], unit_index[o]] = v
        entry = {
            "criterion": criterion.name,
            "n_humans": len(raters),
            "n_units": len(units),
            "human_human": {},
            "human_consensus": {},
            "judges": [],
            "error": None,
        }
        ratings = {}
        for j in judge_rows:
            vector = np.full(len(units), np.nan)
            for o, v in JudgeRating.objects.filter(judge=j, criterion=criterion).values_list("output_id", "value"):
                if o in unit_index:
                    vector[unit_index[o]] = v
            ratings[j] = vector
        for statistic in statistics:
            try:
                ceiling = judge_agreement(
                    matrix,
                    np.full(len(units), np.nan),
                    statistic=statistic,
                    confidence=confidence,
                    n_resamples=n_resamples,
                    rng=generator(seed),
                )
            except InsufficientDataError as exc:
                entry["error"] = str(exc)
                break
            entry["human_human"][statistic] = _estimate(ceiling.human_human)
            entry["human_consensus"][statistic] = _estimate(ceiling.human_consensus)
        if entry["error"] is None:
            for j, vector in ratings.items():
                row = {
                    "judge": j.name,
                    "kind": j.kind,
                    "rater_type": j.rater_type,
                    "n_units": int((~np.isnan(vector)).sum()),
                    "judge_human": {},
                    "judge_consensus": {},
                    "per_human": [],
                }
                per_human = {r: {"rater": names.get(r, str(r))} for r in raters}
                for statistic in statistics:
                    result = judge_agreement(
                        matrix,
                        vector,
                        statistic=statistic,
                        confidence=confidence,
                        n_resamples=n_resamples,
                        rng=generator(seed),
                    )
                    row["judge_human"][statistic] = _estimate(result.judge_human)
                    row["judge_consensus"][statistic] = _estimate(result.judge_consensus)
                    for r, e in zip(raters, result.judge_per_human, strict=True):
                        per_human[r][statistic] = _estimate(e)
                row["per_human"] = list(per_human.values())
                entry["judges"].append(row)
        out["criteria"].append(entry)
    return out
