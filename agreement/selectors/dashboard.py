"""Everything the dashboard page shows, read from stored snapshots in a fixed number of queries."""

from collections import defaultdict

from django.contrib.auth import get_user_model
from django.db.models import Case, When

from agreement.engine.span_scopes import stored_names
from agreement.models import MIN_INTERVAL_UNITS, OFF_SCALE, AgreementAlert, AgreementSnapshot
from agreement.selectors.dashboard_model import (
    AgreementDashboard,
    Confusion,
    ConfusionCell,
    ConfusionRow,
    DominantCategory,
    OffScale,
    RaterLabelFigures,
    RaterRow,
    SnapshotFigures,
)
from agreement.selectors.labels import PER_TURN, SNAPSHOT_LABEL
from agreement.selectors.snapshots import latest_week
from agreement.selectors.span_dashboard import PAIR_COLUMNS, PAIR_FIELDS, span_section
from annotation.models import Project
from annotation.selectors import rater_names_for_project
from annotation.task_types import REGISTRY

Scope, Window = AgreementSnapshot.Scope, AgreementSnapshot.Window


# Rows are read as dicts of these fields (not model objects: the latest week of a 50-rater project holds
# thousands of pair rows, and building model instances was a third of the page's time).
FIELDS = (
    "scope",
    "statistic",
    "subgroup",
    "rater_a_id",
    "rater_b_id",
    "value",
    "ci_low",
    "ci_high",
    "ci_method",
    "n_units",
    "n_raters",
    "status",
    "reason",
    "unreliable",
)


def _point(s: dict) -> dict:
    return {
        "week": s["week_start"].isoformat(),
        "value": s["value"],
        "ci_low": s["ci_low"],
        "ci_high": s["ci_high"],
        "n_units": s["n_units"],
        "status": s["status"],
        "reason": s["reason"],
        "unreliable": s["unreliable"],
    }


def dashboard_for_project(project: Project) -> AgreementDashboard:
    """The page's figures; the rater-pair heatmaps are data (``pair_heatmaps``) the page's script draws, one
    label at a time, as a table of every rater pair would be thousands of cells per label."""
    week = latest_week(project)
    if week is None:
        return AgreementDashboard(week=None, alerts=_alerts(project))
    names = rater_names_for_project(project)
    # figures go under labels (agreement.selectors.labels): a criterion's, or its per-turn one
    snapshots = AgreementSnapshot.objects.filter(project=project).annotate(label=SNAPSHOT_LABEL)
    trend_rows = (
        snapshots.filter(scope=Scope.CRITERION, is_main=True)
        .order_by("criterion__position", "rating_unit", "week_start")
        .values("window", "week_start", "label", *FIELDS)
    )
    trends: dict[str, dict] = defaultdict(lambda: {"week": [], "cumulative": []})
    main_statistic = None
    for s in trend_rows:
        trends[s["label"]][s["window"]].append(_point(s))
        main_statistic = s["statistic"]
    latest = snapshots.filter(week_start=week, window=Window.CUMULATIVE)
    task_type = REGISTRY[project.task_type]
    span_plan = task_type.agreement.spans
    span_names = stored_names(span_plan.severities) if span_plan else frozenset()
    rows = list(
        latest.exclude(scope=Scope.PAIR).order_by("scope", "scope_key", "statistic").values("label", "detail", *FIELDS)
    )
    pairs = latest.filter(scope=Scope.PAIR)
    pair_rows = list(
        (pairs.exclude(statistic__in=span_names) if span_names else pairs)
        .order_by("criterion__position", "rating_unit", "statistic", "scope_key")
        .values_list("label", "statistic", "rater_a_id", "rater_b_id", "value", "n_units", "reason")
    )
    span_rows, span_pair_rows = [], []
    if span_names:
        span_rows = [s for s in rows if s["statistic"] in span_names]
        rows = [s for s in rows if s["statistic"] not in span_names]
        span_pair_rows = list(
            pairs.filter(statistic__in=PAIR_COLUMNS).order_by("criterion__position", "scope_key").values(*PAIR_FIELDS)
        )
    # raters who left the project keep their judgments: name them by username
    missing = (
        {s["rater_a_id"] for s in rows if s["rater_a_id"] is not None}
        | {i for row in pair_rows for i in row[2:4]}
        | {s[k] for s in span_pair_rows for k in ("rater_a_id", "rater_b_id")}
    ) - set(names)
    if missing:
        names.update(get_user_model().objects.filter(id__in=missing).values_list("id", "username"))
    criteria = {label: c for c in project.criteria.all() for label in (c.name, c.name + PER_TURN)}
    labels: defaultdict[str, dict[str, SnapshotFigures]] = defaultdict(dict)
    subgroups: defaultdict[str, dict[str, SnapshotFigures]] = defaultdict(dict)
    raters: defaultdict[int, dict[str, dict[str, SnapshotFigures]]] = defaultdict(lambda: defaultdict(dict))
    gold: dict[int, SnapshotFigures] = {}
    confusions: dict[str, Confusion] = {}
    specific: defaultdict[str, dict[str, SnapshotFigures]] = defaultdict(dict)
    off_scale: dict[str, OffScale] = {}
    for s in rows:
        scope, statistic, criterion = s["scope"], s["statistic"], s["label"]
        if scope == Scope.CRITERION and statistic == "coincidence_matrix":
            if s["value"] is not None:  # no unit rated twice yet: nothing to draw
                confusions[criterion] = _confusion(s, criteria.get(criterion), task_type)
        elif scope == Scope.CRITERION and statistic == OFF_SCALE:
            off_scale[criterion] = OffScale(n=int(s["value"]), values=s["detail"].get("values", []))
        elif scope == Scope.CRITERION and statistic.startswith("specific_agreement_"):
            category = statistic.removeprefix("specific_agreement_")
            specific[criterion][_category_name(category, criteria.get(criterion), task_type)] = s
        elif scope == Scope.CRITERION:
            labels[criterion][statistic] = s
        elif scope == Scope.SUBGROUP_CRITERION:
            subgroups[s["subgroup"]][criterion] = s
        elif scope == Scope.RATER and criterion is None:  # figures over all labels: gold accuracy
            gold[s["rater_a_id"]] = s
        elif scope == Scope.RATER:
            raters[s["rater_a_id"]][criterion][statistic] = s
    # Raters are told apart by id (an imported rater may bear a platform user's name) and shown by name.
    name_of = {rater_id: names.get(rater_id, str(rater_id)) for rater_id in raters.keys() | gold.keys()}
    label_columns = [
        name
        for name in dict.fromkeys([main_statistic, *(n for stats in labels.values() for n in stats)])
        if name is not None
    ]
    # labels whose main interval rests on too few units to hold its 95% (see MIN_INTERVAL_UNITS)
    small_intervals = {
        criterion: s
        for criterion, stats in labels.items()
        if main_statistic is not None
        and (s := stats.get(main_statistic))
        and s["ci_low"] is not None
        and s["n_units"] < MIN_INTERVAL_UNITS
    }
    return AgreementDashboard(
        week=week,
        main_statistic=main_statistic,
        trends=dict(trends),
        labels=dict(labels),
        label_columns=label_columns,
        subgroups=dict(subgroups),
        pair_heatmaps=_pair_heatmaps(pair_rows, names),
        raters=[
            RaterRow(
                rater=name_of[rater_id],
                gold=gold.get(rater_id),
                labels=[
                    RaterLabelFigures(
                        criterion=criterion,
                        judgments=stats.get("judgments"),
                        median_duration_ms=stats.get("median_duration_ms"),
                        mean_pair_agreement=stats.get("mean_pair_agreement"),
                        alpha_change_without_rater=stats.get("alpha_change_without_rater"),
                    )
                    for criterion, stats in raters.get(rater_id, {}).items()
                ],
            )
            for rater_id in sorted(name_of, key=lambda r: (name_of[r], r))
        ],
        alerts=_alerts(project),
        confusions=confusions,
        category_note=task_type.category_note,
        specific=dict(specific),
        off_scale=off_scale,
        small_intervals=small_intervals,
        min_interval_units=MIN_INTERVAL_UNITS,
        spans=span_section(span_plan.severities, span_rows, span_pair_rows, names) if span_plan else None,
    )


def _alerts(project: Project) -> list[AgreementAlert]:
    """The latest alerts, those whose email has not gone out first (however old), so the lead sees them."""
    pending_first = Case(When(delivery=AgreementAlert.Delivery.PENDING, then=0), default=1)
    return list(
        AgreementAlert.objects.filter(project=project)
        .select_related("criterion")
        .order_by(pending_first, "-week_start", "id")[:20]
    )


def _category_name(category: str, criterion, task_type) -> str:
    """A category as stored in a statistic's name ("2.0") under the name the task type gives it."""
    try:
        value = float(category)
    except ValueError:
        return category
    return task_type.category_name(value, criterion) if criterion is not None else f"{value:g}"


def _confusion(s: SnapshotFigures, criterion, task_type) -> Confusion:
    """Rows of the coincidence matrix, categories named as the task type names them, each cell with its
    count and how far its share of all pairable values lies above (or below) what chance alone gives.

    Chance is Krippendorff's expected coincidence e_ck = n_c·n_k / (n − 1), and n_c·(n_c − 1) / (n − 1) on
    the diagonal (Krippendorff 2011, "Computing Krippendorff's alpha-reliability", sec. C); ``excess`` is
    (o_ck − e_ck) / n, and ``shade`` the same divided by the largest |excess| of the matrix, for the colour.
    """
    values, matrix = s["detail"].get("values", []), s["detail"].get("matrix", [])
    totals = [sum(row) for row in matrix]
    n = sum(totals)
    excess = [
        [
            (o - (t_c * (t_k - (c == k)) / (n - 1) if n > 1 else 0.0)) / (n or 1.0)
            for k, (o, t_k) in enumerate(zip(row, totals, strict=True))
        ]
        for c, (row, t_c) in enumerate(zip(matrix, totals, strict=True))
    ]
    scale = max((abs(x) for row in excess for x in row), default=0.0) or 1.0
    name = (lambda v: task_type.category_name(v, criterion)) if criterion is not None else (lambda v: f"{v:g}")
    rows = [
        ConfusionRow(
            value=value,
            name=name(value),
            cells=[ConfusionCell(count=o, excess=x, shade=x / scale) for o, x in zip(row, ex, strict=True)],
        )
        for value, row, ex in zip(values, matrix, excess, strict=True)
    ]
    # A row's total is how often its value was given in pairable ratings: the most frequent value's share
    # is the prevalence that lowers kappa at a given raw agreement (the first kappa paradox).
    dominant = max(range(len(totals)), key=totals.__getitem__) if totals and n else None
    return Confusion(
        values=values,
        names=[row.name for row in rows],
        rows=rows,
        diagonal=s["value"],
        n_units=s["n_units"],
        dominant=None
        if dominant is None
        else DominantCategory(value=values[dominant], name=rows[dominant].name, share=totals[dominant] / n),
    )


def _pair_heatmaps(pair_rows, names: dict) -> dict:
    """Per label, the first pair statistic stored for it: the raters by name (told apart by id) and one cell
    per pair, ``[row, column, value, shared units, reason]`` with row < column (the table is symmetric)."""
    cells_of: dict[str, list] = {}
    statistic_of: dict[str, str] = {}
    for criterion, statistic, a, b, value, n_units, reason in pair_rows:
        if statistic_of.setdefault(criterion, statistic) == statistic:
            cells_of.setdefault(criterion, []).append((a, b, value, n_units, reason))
    heatmaps = {}
    for criterion, cells in cells_of.items():
        people = sorted({rater for cell in cells for rater in cell[:2]}, key=lambda r: (names.get(r, str(r)), r))
        index = {rater: k for k, rater in enumerate(people)}
        heatmaps[criterion] = {
            "statistic": statistic_of[criterion],
            "raters": [names.get(rater, str(rater)) for rater in people],
            "cells": [
                [*sorted((index[a], index[b])), value, n_units, reason] for a, b, value, n_units, reason in cells
            ],
        }
    return heatmaps
