"""Metric score import: scores computed elsewhere, one per (item, system, metric), all lines or none.

JSONL, long: ``{"item": "doc17", "system": "bart", "metric": "bleurt", "score": 0.41}``; or wide:
``{"item": "doc17", "system": "bart", "scores": {"bleurt": 0.41, "comet": 0.8}}``.
CSV, wide: columns ``item, system`` and one column per metric (an empty cell is no score); or long:
exactly ``item, system, metric, score``. A score of ``null`` marks the metric undefined for that
output. Importing a metric again for an output replaces its score.
"""

import math
from collections.abc import Callable, Iterator

from django.db import transaction
from django.utils import timezone

from annotation.models import Output, Project
from audit.services import audit_record
from core.bulk_insert import insert_rows
from core.import_records import BadRecord, ImportRejected, ImportReport, records
from evaluation.models import MetricScore

BATCH_SIZE = 5000
MAX_METRIC_NAME = 200
RESERVED_PREFIX = "calibrated:"
LONG_FIELDS = {"item", "system", "metric", "score"}
WIDE_FIELDS = {"item", "system", "scores"}


class _BadLine(ValueError):
    pass


def _number(value, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            value = float(value)
        except ValueError as exc:
            raise _BadLine(f"{what} must be a number, got {value!r}") from exc
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _BadLine(f"{what} must be a number or null, got {value!r}")
    if not math.isfinite(value):
        raise _BadLine(f"{what} must be a finite number, got {value!r}")
    return float(value)


def _metric_name(name) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_METRIC_NAME:
        raise _BadLine(f"metric must be a non-empty name of at most {MAX_METRIC_NAME} characters, got {name!r}")
    if name.startswith(RESERVED_PREFIX):
        raise _BadLine(f"metric names starting with {RESERVED_PREFIX!r} are kept for calibrators")
    return name


def _scores_of(record: dict, fmt: str) -> dict[str, float | None]:
    keys = set(record)
    if fmt == "csv":
        if keys == LONG_FIELDS:
            return {_metric_name(record["metric"]): _number(record["score"], "score")}
        return {
            _metric_name(k): _number(v, f"column {k!r}")
            for k, v in record.items()
            if k not in ("item", "system") and str(v).strip()
        }
    if keys == LONG_FIELDS:
        return {_metric_name(record["metric"]): _number(record["score"], "score")}
    if keys == WIDE_FIELDS and isinstance(record["scores"], dict) and record["scores"]:
        return {_metric_name(k): _number(v, f"scores[{k!r}]") for k, v in record["scores"].items()}
    raise _BadLine(
        "a line holds either item, system, metric, score or item, system, scores (an object of "
        f"metric: score); got {', '.join(sorted(keys))}"
    )


def _parsed(stream, fmt: str, outputs: dict) -> Iterator[tuple[int, list | str]]:
    for line, record in records(stream, fmt):
        if isinstance(record, BadRecord):
            yield line, str(record)
            continue
        try:
            for name in ("item", "system"):
                if record.get(name) in (None, ""):
                    raise _BadLine(f"{name} is missing")
            item, system = str(record["item"]), str(record["system"])
            systems = outputs.get(item)
            if systems is None:
                raise _BadLine(f"item {item!r} is not in this project")
            if system not in systems:
                raise _BadLine(f"system {system!r} has no output on item {item!r} ({', '.join(sorted(systems))})")
            yield line, [(systems[system], name, value) for name, value in _scores_of(record, fmt).items()]
        except _BadLine as exc:
            yield line, str(exc)


def _check(stream, fmt: str, outputs: dict) -> tuple[int, set[str]]:
    report, first_line, names = ImportReport(), {}, set()
    for line, parsed in _parsed(stream, fmt, outputs):
        if isinstance(parsed, str):
            report.add(line, parsed)
            continue
        for output_id, name, _ in parsed:
            if (output_id, name) in first_line:
                report.add(
                    line,
                    f"metric {name!r} is scored twice for this output (first on line {first_line[output_id, name]})",
                )
            else:
                first_line[output_id, name] = line
                names.add(name)
    if not first_line and not report.n_errors:
        report.add(1, "the file holds no scores")
    if report.n_errors:
        raise ImportRejected(report)
    return len(first_line), names


def metric_score_import(
    *,
    project: Project,
    stream,
    fmt: str = "jsonl",
    progress: Callable[[int, int], None] | None = None,
    by=None,
    file_name: str = "",
) -> int:
    """Import every score of a seekable binary ``stream`` or none; returns the number of scores.
    ``by`` (who imported) and ``file_name`` go to the audit log.

    Raises ImportRejected listing every bad line with its number.
    """
    outputs: dict[str, dict[str, int]] = {}
    for external_id, system, output_id in (
        Output.objects.filter(item__project=project)
        .values_list("item__external_id", "system", "id")
        .iterator(chunk_size=20_000)
    ):
        outputs.setdefault(external_id, {})[system] = output_id
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        total, names = _check(stream, fmt, outputs)
        stream.seek(0)
        now, batch, done = timezone.now(), [], 0
        fields = ["project", "output", "name", "value", "source", "updated_at"]
        # a score already stored for an (output, name) of the file is replaced, whatever its source
        replacing = MetricScore.objects.filter(project=project, name__in=names).exists()
        for _, parsed in _parsed(stream, fmt, outputs):
            batch.extend(
                (project.id, output_id, name, value, MetricScore.Source.IMPORTED, now)
                for output_id, name, value in parsed
            )
            if len(batch) >= BATCH_SIZE:
                _replace(batch, fields, replacing)
                done += len(batch)
                batch = []
                if progress:
                    progress(done, total)
        _replace(batch, fields, replacing)
        audit_record(
            actor=by,
            action="metrics.import",
            project=project,
            target=file_name,
            detail={"imported": total, "metrics": sorted(names), "format": fmt},
        )
        if progress:
            progress(total, total)
    return total


def _replace(rows: list[tuple], fields: list[str], replacing: bool) -> None:
    if not rows:
        return
    if replacing:
        by_name: dict[str, set[int]] = {}
        for row in rows:
            by_name.setdefault(row[2], set()).add(row[1])
        for name, output_ids in by_name.items():
            MetricScore.objects.filter(name=name, output_id__in=output_ids).delete()
    insert_rows(MetricScore, fields, rows)
