"""Everything the dashboard page shows, read from stored snapshots in a fixed number of queries."""
from collections import defaultdict

from django.contrib.auth import get_user_model

from agreement.models import AgreementAlert, AgreementSnapshot
from agreement.selectors.snapshots import latest_week
from annotation.models import Project
from annotation.selectors import rater_names_for_project

Scope, Window = AgreementSnapshot.Scope, AgreementSnapshot.Window


def _point(s: AgreementSnapshot) -> dict:
    return {"week": s.week_start.isoformat(), "value": s.value, "ci_low": s.ci_low, "ci_high": s.ci_high,
            "n_units": s.n_units, "status": s.status, "reason": s.reason, "unreliable": s.unreliable}


def dashboard_for_project(project: Project) -> dict:
    week = latest_week(project)
    if week is None:
        return {"week": None}
    names = rater_names_for_project(project)
    trend_rows = (AgreementSnapshot.objects.filter(project=project, scope=Scope.CRITERION, is_main=True)
                  .select_related("criterion").order_by("criterion__position", "week_start"))
    trends: dict[str, dict] = defaultdict(lambda: {"week": [], "cumulative": []})
    main_statistic = None
    for s in trend_rows:
        trends[s.criterion.name][s.window].append(_point(s))
        main_statistic = s.statistic
    latest = list(AgreementSnapshot.objects.filter(project=project, week_start=week, window=Window.CUMULATIVE)
                  .select_related("criterion").order_by("scope", "scope_key", "statistic"))
    # raters who left the project keep their judgments: name them by username
    missing = {i for s in latest for i in (s.rater_a_id, s.rater_b_id) if i is not None} - set(names)
    if missing:
        names.update(get_user_model().objects.filter(id__in=missing).values_list("id", "username"))
    labels = defaultdict(dict)
    subgroups = defaultdict(dict)
    pairs = defaultdict(dict)
    raters = defaultdict(lambda: defaultdict(dict))
    gold = {}
    confusions = {}
    specific = defaultdict(dict)
    for s in latest:
        if s.scope == Scope.CRITERION and s.statistic == "coincidence_matrix":
            if s.value is not None:  # no unit rated twice yet: nothing to draw
                confusions[s.criterion.name] = _confusion(s)
        elif s.scope == Scope.CRITERION and s.statistic.startswith("specific_agreement_"):
            specific[s.criterion.name][s.statistic.removeprefix("specific_agreement_")] = s
        elif s.scope == Scope.CRITERION:
            labels[s.criterion.name][s.statistic] = s
        elif s.scope == Scope.SUBGROUP_CRITERION:
            subgroups[s.subgroup][s.criterion.name] = s
        elif s.scope == Scope.PAIR:
            pairs[(s.criterion.name, s.statistic)][(names.get(s.rater_a_id, str(s.rater_a_id)),
                                                    names.get(s.rater_b_id, str(s.rater_b_id)))] = s
        elif s.scope == Scope.RATER and s.criterion is None:  # figures over all labels: gold accuracy
            gold[names.get(s.rater_a_id, str(s.rater_a_id))] = s
        elif s.scope == Scope.RATER:
            raters[names.get(s.rater_a_id, str(s.rater_a_id))][s.criterion.name][s.statistic] = s
    label_columns = list(dict.fromkeys([main_statistic, *(name for stats in labels.values() for name in stats)]))
    alerts = list(AgreementAlert.objects.filter(project=project).select_related("criterion")[:20])
    return {"week": week, "main_statistic": main_statistic, "trends": dict(trends), "labels": dict(labels),
            "label_columns": label_columns, "subgroups": dict(subgroups), "heatmaps": _heatmaps(pairs),
            "raters": {name: {"labels": dict(raters.get(name, {})), "gold": gold.get(name)}
                       for name in sorted(raters.keys() | gold.keys())}, "alerts": alerts,
            "confusions": confusions, "specific": dict(specific)}


def _confusion(s: AgreementSnapshot) -> dict:
    """Rows of the coincidence matrix with each cell's share of its row, for a heatmap."""
    values, matrix = s.detail.get("values", []), s.detail.get("matrix", [])
    rows = []
    for value, row in zip(values, matrix, strict=True):
        total = sum(row) or 1.0
        rows.append({"value": value, "cells": [{"count": c, "share": c / total} for c in row]})
    return {"values": values, "rows": rows, "diagonal": s.value, "n_units": s.n_units}


def _heatmaps(pairs: dict) -> dict:
    """One symmetric rater × rater table per label (the first pair statistic of each label)."""
    heatmaps = {}
    for (criterion, statistic), cells in sorted(pairs.items()):
        if criterion in heatmaps:
            continue
        people = sorted({p for pair in cells for p in pair})
        lookup = {**cells, **{(b, a): s for (a, b), s in cells.items()}}
        rows = []
        for a in people:
            row = []
            for b in people:
                s = lookup.get((a, b))
                row.append(None if s is None else {
                    "value": s.value, "n_units": s.n_units,
                    "title": f"{a} × {b}: n = {s.n_units} shared units" + (f"; {s.reason}" if s.reason else "")})
            rows.append({"rater": a, "cells": row})
        heatmaps[criterion] = {"statistic": statistic, "raters": people, "rows": rows}
    return heatmaps
