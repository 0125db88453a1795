"""Everything the dashboard page shows, read from stored snapshots in a fixed number of queries."""
from collections import defaultdict

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
    labels = defaultdict(dict)
    subgroups = defaultdict(dict)
    pairs = defaultdict(dict)
    raters = defaultdict(dict)
    for s in latest:
        if s.scope == Scope.CRITERION:
            labels[s.criterion.name][s.statistic] = s
        elif s.scope == Scope.SUBGROUP_CRITERION:
            subgroups[s.subgroup][s.criterion.name] = s
        elif s.scope == Scope.PAIR and s.statistic in ("cohen_kappa", f"krippendorff_alpha_interval"):
            pairs[s.criterion.name][(names.get(s.rater_a_id, str(s.rater_a_id)),
                                     names.get(s.rater_b_id, str(s.rater_b_id)))] = s
        elif s.scope == Scope.RATER:
            raters[names.get(s.rater_a_id, str(s.rater_a_id))][s.criterion.name] = s
    heatmaps = {}
    for criterion, cells in pairs.items():
        people = sorted({p for pair in cells for p in pair})
        heatmaps[criterion] = {"raters": people, "cells": [
            {"a": a, "b": b, "value": s.value, "n_units": s.n_units, "status": s.status} for (a, b), s in cells.items()]}
    alerts = list(AgreementAlert.objects.filter(project=project).select_related("criterion")[:20])
    return {"week": week, "main_statistic": main_statistic, "trends": dict(trends), "labels": dict(labels),
            "subgroups": dict(subgroups), "heatmaps": heatmaps, "raters": dict(raters), "alerts": alerts}
