"""Recompute a project's agreement snapshots: every ISO week (and cumulative to it) × scope ×
statistic, from judgments read in bulk, replaced in one transaction so a crash mid-way leaves the
last good snapshots in place."""
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.utils import timezone
from threadpoolctl import threadpool_limits

from agreement.models import MIN_RELIABLE_UNITS, AgreementSnapshot
from agreement.selectors.judgment_records import JudgmentRecords, judgment_records_for_project
from agreement.services.statistic_plans import PLANS, Plan, Statistic, categories_for
from agreement.stats import (
    InsufficientDataError,
    bootstrap_alpha,
    cohen_kappa_all_pairs,
    coincidence_matrix,
    interval_alpha_all_pairs,
    krippendorff_alpha_leave_one_out,
    reliability_matrix,
    specific_agreement,
)
from annotation.models import Project
from annotation.services.bulk_insert import insert_rows

Scope = AgreementSnapshot.Scope
SNAPSHOT_FIELDS = ["project", "window", "week_start", "scope", "scope_key", "criterion", "subgroup", "rater_a",
                   "rater_b", "statistic", "is_main", "value", "ci_low", "ci_high", "n_units", "n_raters",
                   "n_pairable", "status", "reason", "unreliable", "detail", "computed_at"]


@dataclass(frozen=True)
class ScopeId:
    scope: str
    key: str
    criterion_id: int | None = None
    subgroup: str = ""
    rater_a: int | None = None
    rater_b: int | None = None


@dataclass(frozen=True)
class Window:
    name: str
    week_start: object
    rows: slice


class _RowBuilder:
    """Turns statistic results (or the reason there is none) into snapshot rows."""

    def __init__(self, project_id: int):
        self.project_id = project_id
        self.now = timezone.now()
        self.rows: list[tuple] = []

    def add(self, window: Window, scope: ScopeId, statistic: str, outcome, *, is_main=False, matrix=None,
            n_units=None, detail=None):
        value = ci = None
        n_raters = n_pairable = 0
        status, reason = AgreementSnapshot.Status.OK, ""
        if isinstance(outcome, InsufficientDataError):
            status, reason = AgreementSnapshot.Status.INSUFFICIENT_DATA, str(outcome)[:300]
        elif isinstance(outcome, float | int | np.floating):
            value = float(outcome)
        else:
            value = float(outcome.value)
            ci = getattr(outcome, "confidence_interval", None)
            n_units = getattr(outcome, "n_units", n_units)
            n_raters = getattr(outcome, "n_raters", 0) or 0
            n_pairable = getattr(outcome, "n_pairable", 0) or 0
        if matrix is not None:
            rated = ~np.isnan(matrix)
            pairable_units = rated.sum(axis=0) >= 2
            n_units = int(pairable_units.sum()) if n_units is None else n_units
            n_raters = n_raters or int(rated[:, pairable_units].any(axis=1).sum())
            n_pairable = n_pairable or int(rated[:, pairable_units].sum())
        n_units = int(n_units or 0)
        if value is not None and not np.isfinite(value):
            status, reason = AgreementSnapshot.Status.INSUFFICIENT_DATA, "undefined (no variation)"
            value = ci = None
        self.rows.append((
            self.project_id, window.name, window.week_start, scope.scope, scope.key, scope.criterion_id,
            scope.subgroup, scope.rater_a, scope.rater_b, statistic, is_main, value,
            None if ci is None else float(ci[0]), None if ci is None else float(ci[1]),
            n_units, n_raters, n_pairable, status, reason, n_units < MIN_RELIABLE_UNITS, detail or {}, self.now))

    def add_pairs(self, window: Window, criterion_id: int, raters: np.ndarray, pairs, statistic: str,
                  undefined_reason: str) -> None:
        """One row per rater pair, from the array result of an all-pairs statistic."""
        a_ids, b_ids = raters[pairs.rater_a].astype(int), raters[pairs.rater_b].astype(int)
        low = getattr(pairs, "ci_low", np.full(len(pairs.value), np.nan))
        high = getattr(pairs, "ci_high", np.full(len(pairs.value), np.nan))
        ok, insufficient = AgreementSnapshot.Status.OK, AgreementSnapshot.Status.INSUFFICIENT_DATA
        for a, b, value, lo, hi, n in zip(np.minimum(a_ids, b_ids).tolist(), np.maximum(a_ids, b_ids).tolist(),
                                         pairs.value.tolist(), low.tolist(), high.tolist(),
                                         pairs.n_units.tolist(), strict=True):
            defined = value == value  # not NaN
            self.rows.append((
                self.project_id, window.name, window.week_start, Scope.PAIR,
                f"criterion={criterion_id}|pair={a}-{b}", criterion_id, "", a, b, statistic, False,
                value if defined else None, lo if defined and lo == lo else None,
                hi if defined and hi == hi else None, n, 2, 2 * n, ok if defined else insufficient,
                "" if defined else undefined_reason, n < MIN_RELIABLE_UNITS, {}, self.now))


# Bootstrap of every scope's main coefficient: resampling 200 random blocks of units (plain unit
# resampling below 200 units), seeded by the project so a recompute repeats its intervals. 500
# replicates put the 2.5% / 97.5% percentiles within about a tenth of a standard error of where
# 10,000 would, at half the cost of 1,000: a dashboard stores thousands of intervals.
BOOTSTRAP_BLOCKS = 200
BOOTSTRAP_RESAMPLES = 500


def _run(statistic: Statistic, matrix: np.ndarray, categories):
    try:
        return statistic.compute(matrix, categories)
    except InsufficientDataError as exc:
        return exc


def _windows(records: JudgmentRecords, week_sorted: np.ndarray) -> Iterator[Window]:
    for k, week in enumerate(records.weeks):
        lo, hi = np.searchsorted(week_sorted, k, "left"), np.searchsorted(week_sorted, k, "right")
        yield Window(AgreementSnapshot.Window.WEEK, week, slice(lo, hi))
        yield Window(AgreementSnapshot.Window.CUMULATIVE, week, slice(0, hi))


class _ProjectComputation:
    def __init__(self, project: Project, records: JudgmentRecords, builder: _RowBuilder):
        self.plan: Plan = PLANS[project.task_type]
        self.task_type = project.task_type
        self.records = records
        self.builder = builder
        order = np.argsort(records.week_index, kind="stable")
        self.criterion = records.criterion_index[order]
        self.unit = records.unit[order]
        self.rater = records.rater[order]
        self.value = records.value[order]
        if project.rankme_modulus is not None:
            # Magnitude estimates are ratios: agreement is measured on log(score / modulus), where twice and
            # half as good as the reference lie equally far from it and one huge score cannot swamp the
            # interval distances (Bard et al. 1996). Scores are positive (the task type refuses others).
            self.value = np.log(self.value / project.rankme_modulus)
        self.subgroup = records.subgroup_index[order]
        self.week = records.week_index[order]
        self.duration = records.duration_ms[order]
        self.categories = [categories_for(project.task_type, c.scale_min, c.scale_max) for c in records.criteria]
        self.n_criteria = len(records.criteria)
        self.project_id = project.id
        self.criterion_position = {c.id: k for k, c in enumerate(records.criteria)}

    def main(self, window, scope: ScopeId, m: np.ndarray, categories) -> None:
        """The scope's main coefficient (alpha at the plan's level) with its bootstrap interval."""
        # seeded by project and scope (names and positions, not database ids), so an interval depends
        # neither on the order scopes are computed in nor on which rows the database numbered first
        label = self.criterion_position.get(scope.criterion_id, "")
        scope_seed = zlib.crc32(f"{window.name}|{window.week_start}|{scope.scope}|{scope.subgroup}|{label}".encode())
        rng = np.random.default_rng([self.project_id, scope_seed])
        try:
            outcome = bootstrap_alpha(m, level_of_measurement=self.plan.level, rng=rng,
                                      n_resamples=BOOTSTRAP_RESAMPLES, max_blocks=BOOTSTRAP_BLOCKS)
        except InsufficientDataError:
            # alpha itself may still be defined on too few units for an interval: store it alone
            outcome = _run(self.plan.main, m, categories)
        self.builder.add(window, scope, self.plan.main.name, outcome, is_main=True, matrix=m)

    def run(self, progress: Callable[[int, int], None] | None) -> None:
        windows = list(_windows(self.records, self.week))
        for done, window in enumerate(windows, start=1):
            self.window(window)
            if progress:
                progress(done, len(windows))

    def matrix(self, mask: np.ndarray, pooled: bool) -> np.ndarray:
        units = self.unit_w[mask] * self.n_criteria + self.criterion_w[mask] if pooled else self.unit_w[mask]
        return reliability_matrix(units, self.rater_w[mask], self.value_w[mask]).matrix

    def window(self, window: Window) -> None:
        rows = window.rows
        self.criterion_w, self.unit_w = self.criterion[rows], self.unit[rows]
        self.rater_w, self.value_w, self.subgroup_w = self.rater[rows], self.value[rows], self.subgroup[rows]
        self.duration_w = self.duration[rows]
        everything = np.ones(len(self.unit_w), dtype=bool)
        pooled_categories = self.categories[0] if self.n_criteria == 1 or self.task_type != "rankme" else None
        if self.task_type == "likert" and self.n_criteria > 1:
            pooled_categories = np.unique(np.concatenate(self.categories))
        self.slice_scope(window, ScopeId(Scope.OVERALL, "overall"), everything, pooled_categories)
        for c, criterion in enumerate(self.records.criteria):
            in_criterion = self.criterion_w == c
            if in_criterion.any():
                self.criterion_scope(window, c, criterion.id, in_criterion)
        for g, subgroup in enumerate(self.records.subgroups):
            in_subgroup = self.subgroup_w == g
            if not subgroup or not in_subgroup.any():
                continue
            self.slice_scope(window, ScopeId(Scope.SUBGROUP, f"subgroup={subgroup}", subgroup=subgroup), in_subgroup,
                             pooled_categories)
            for c, criterion in enumerate(self.records.criteria):
                mask = in_subgroup & (self.criterion_w == c)
                if mask.any():
                    scope = ScopeId(Scope.SUBGROUP_CRITERION, f"subgroup={subgroup}|criterion={criterion.id}",
                                    criterion_id=criterion.id, subgroup=subgroup)
                    self.main(window, scope, self.matrix(mask, pooled=False), self.categories[c])

    def slice_scope(self, window, scope: ScopeId, mask, categories) -> None:
        m = self.matrix(mask, pooled=True)
        self.main(window, scope, m, categories)
        for statistic in self.plan.slice[1:]:
            self.builder.add(window, scope, statistic.name, _run(statistic, m, categories), matrix=m)

    def criterion_scope(self, window, c: int, criterion_id: int, mask) -> None:
        data = reliability_matrix(self.unit_w[mask], self.rater_w[mask], self.value_w[mask])
        m, categories = data.matrix, self.categories[c]
        scope = ScopeId(Scope.CRITERION, f"criterion={criterion_id}", criterion_id=criterion_id)
        self.main(window, scope, m, categories)
        for statistic in self.plan.label[1:]:
            self.builder.add(window, scope, statistic.name, _run(statistic, m, categories), matrix=m)
        if categories is not None:
            self.category_rows(window, scope, m, categories)
        agreement_with_others = self.pair_scopes(window, criterion_id, data, categories)
        self.rater_scopes(window, criterion_id, data, agreement_with_others, self.duration_w[mask],
                          self.rater_w[mask])

    def category_rows(self, window, scope: ScopeId, m: np.ndarray, categories: np.ndarray) -> None:
        """Specific agreement per category, and the coincidence matrix (which categories raters confuse)."""
        try:
            specific = specific_agreement(m, categories=categories)
        except InsufficientDataError as exc:
            specific = {c: exc for c in categories}
        for category, share in specific.items():
            outcome = InsufficientDataError("no rater used this category on a unit rated twice") if share is None \
                else share
            self.builder.add(window, scope, f"specific_agreement_{float(category):g}", outcome, matrix=m)
        try:
            coincidences = coincidence_matrix(m, value_domain=categories)
        except InsufficientDataError as exc:
            self.builder.add(window, scope, "coincidence_matrix", exc, matrix=m)
            return
        o = coincidences.matrix
        self.builder.add(window, scope, "coincidence_matrix", float(np.trace(o) / o.sum()), matrix=m, detail={
            "values": [float(v) for v in coincidences.values], "matrix": np.round(o, 6).tolist()})

    def pair_scopes(self, window, criterion_id: int, data, categories) -> np.ndarray | None:
        """Stores every rater pair's statistic; returns each rater's mean over its pairs, weighted by
        shared units (NaN for a rater without a defined pair)."""
        raters, m = data.raters, data.matrix
        if len(raters) < 2:
            return None
        if self.plan.pair_weights is None:
            pairs = interval_alpha_all_pairs(m)
            self.builder.add_pairs(window, criterion_id, raters, pairs, f"krippendorff_alpha_{self.plan.level}",
                                   "a single value in all shared ratings: alpha is undefined")
        else:
            for weights in self.plan.pair_weights:
                pairs = cohen_kappa_all_pairs(m, weights=weights, categories=categories)
                self.builder.add_pairs(window, criterion_id, raters, pairs,
                                       "cohen_kappa" if weights is None else f"cohen_kappa_{weights}",
                                       "both raters used a single, common category: kappa is undefined")
        defined = ~np.isnan(pairs.value)
        weight = np.where(defined, pairs.n_units, 0.0)
        value = np.where(defined, pairs.value, 0.0)
        ends = np.concatenate([pairs.rater_a, pairs.rater_b])
        total = np.bincount(ends, weights=np.tile(weight * value, 2), minlength=len(raters))
        shared = np.bincount(ends, weights=np.tile(weight, 2), minlength=len(raters))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(shared > 0, total / shared, np.nan)

    def rater_scopes(self, window, criterion_id: int, data, agreement_with_others, durations, rater_of) -> None:
        """Per rater: alpha's change without them; on cumulative windows also their number of
        judgments, median time per judgment and mean agreement with the raters they share units with."""
        rated = ~np.isnan(data.matrix)
        loo = None
        if len(data.raters) >= 3:  # without a rater, at least two must remain to compare
            try:
                loo = krippendorff_alpha_leave_one_out(data.matrix, level_of_measurement=self.plan.level)
            except InsufficientDataError:
                loo = None
        cumulative = window.name == AgreementSnapshot.Window.CUMULATIVE
        for r, rater in enumerate(data.raters):
            scope = ScopeId(Scope.RATER, f"criterion={criterion_id}|rater={int(rater)}", criterion_id=criterion_id,
                            rater_a=int(rater))
            n_rated = int(rated[r].sum())
            if loo is not None:
                change = loo.change[r]
                outcome = InsufficientDataError(loo.reasons[r] or "too little data") if change is None else change
                self.builder.add(window, scope, "alpha_change_without_rater", outcome, n_units=n_rated)
            if not cumulative:
                continue
            self.builder.add(window, scope, "judgments", n_rated, n_units=n_rated)
            times = durations[(rater_of == rater) & ~np.isnan(durations)]
            self.builder.add(window, scope, "median_duration_ms",
                             float(np.median(times)) if times.size else InsufficientDataError("no durations recorded"),
                             n_units=int(times.size))
            if agreement_with_others is not None:
                mean = agreement_with_others[r]
                self.builder.add(window, scope, "mean_pair_agreement",
                                 InsufficientDataError("no defined pair statistic") if np.isnan(mean) else float(mean),
                                 n_units=n_rated)


def snapshot_compute_for_project(*, project_id: int, progress: Callable[[int, int], None] | None = None) -> dict:
    """Recomputes and replaces every snapshot of the project; idempotent. Returns counts."""
    project = Project.objects.get(pk=project_id)
    records = judgment_records_for_project(project)
    builder = _RowBuilder(project.id)
    if len(records):
        # Thousands of small matrix products: BLAS threads cost more than they save (measured 20x
        # slower on a loaded two-core machine), so the computation runs on one BLAS thread.
        with threadpool_limits(limits=1, user_api="blas"):
            _ProjectComputation(project, records, builder).run(progress)
    with transaction.atomic():
        AgreementSnapshot.objects.filter(project=project).delete()
        insert_rows(AgreementSnapshot, SNAPSHOT_FIELDS, builder.rows)
    return {"snapshots": len(builder.rows), "judgments": len(records), "weeks": len(records.weeks)}
