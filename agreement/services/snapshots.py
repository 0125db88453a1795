"""Recompute a project's agreement snapshots: every ISO week (and cumulative to it) × scope ×
statistic, from judgments read in bulk, replaced in one transaction so a crash mid-way leaves the
last good snapshots in place."""

from collections.abc import Callable

import numpy as np
from django.db import transaction
from threadpoolctl import threadpool_limits

from agreement.models import AgreementSnapshot
from agreement.selectors.judgment_records import JudgmentRecords, implied_pair_records, judgment_records_for_project
from agreement.services.gold_snapshots import gold_accuracy_rows
from agreement.services.off_scale import off_scale_rows, on_scale
from agreement.services.scope_bootstrap import BOOTSTRAP_BLOCKS, BOOTSTRAP_RESAMPLES, scope_rng
from agreement.services.snapshot_rows import (
    SNAPSHOT_FIELDS,
    RowBuilder,
    Scope,
    ScopeId,
    Sizes,
    Window,
    for_each_window,
    mean_with_others,
    outcome_of,
)
from agreement.services.snapshots_from_counts import CountsComputation
from agreement.services.span_snapshots import SpanComputation
from agreement.services.statistic_plans import PLANS, Plan, categories_for
from agreement.stats import (
    ALPHA_METHODS,
    LEAVE_ONE_OUT_MAX_CATEGORIES,
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
from annotation.task_types import REGISTRY
from core.bulk_insert import insert_rows, refresh_planner_statistics


def project_computation(project: Project, records: JudgmentRecords, builder: RowBuilder):
    """The computation for the project's plan: from per-unit category counts when every statistic
    has a counts form and the scales are small enough for leave-one-out from ratings, else from
    reliability matrices."""
    plan = PLANS[project.task_type]
    categories = [categories_for(project.task_type, c.scale_min, c.scale_max) for c in records.criteria]
    if (
        plan.from_counts
        and all(c is not None for c in categories)
        and np.unique(np.concatenate(categories)).size <= LEAVE_ONE_OUT_MAX_CATEGORIES
    ):
        return CountsComputation(project, records, builder, plan, categories)
    return _MatrixComputation(project, records, builder)


class _MatrixComputation:
    """Every window and scope from its reliability matrix: the path of continuous scores (RankME)."""

    def __init__(self, project: Project, records: JudgmentRecords, builder: RowBuilder):
        self.plan: Plan = PLANS[project.task_type]
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
            # interval distances (Bard et al. 1996). Scores are positive (the task type refuses others, and
            # stored ones that are not were left out before, by off_scale).
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
        rng = scope_rng(self.project_id, window, scope, self.criterion_position.get(scope.criterion_id, ""))
        try:
            outcome = bootstrap_alpha(
                m,
                level_of_measurement=self.plan.level,
                rng=rng,
                n_resamples=BOOTSTRAP_RESAMPLES,
                max_blocks=BOOTSTRAP_BLOCKS,
                method=ALPHA_METHODS[self.plan.level],
            )
        except InsufficientDataError:
            # alpha itself may still be defined on too few units for an interval: store it alone
            outcome = outcome_of(self.plan.main.compute, m, categories)
        self.builder.add(window, scope, self.plan.main.name, outcome, is_main=True, sizes=Sizes.of_matrix(m))

    def run(self, progress: Callable[[int, int], None] | None) -> None:
        for_each_window(self.records.weeks, self.week, lambda _, window: self.window(window), progress)

    def matrix(self, mask: np.ndarray, pooled: bool) -> np.ndarray:
        units = self.unit_w[mask] * self.n_criteria + self.criterion_w[mask] if pooled else self.unit_w[mask]
        return reliability_matrix(units, self.rater_w[mask], self.value_w[mask]).matrix

    def window(self, window: Window) -> None:
        rows = window.rows
        self.criterion_w, self.unit_w = self.criterion[rows], self.unit[rows]
        self.rater_w, self.value_w, self.subgroup_w = self.rater[rows], self.value[rows], self.subgroup[rows]
        self.duration_w = self.duration[rows]
        everything = np.ones(len(self.unit_w), dtype=bool)
        # the criteria's categories together (none when a criterion's values are continuous)
        pooled_categories = (
            None if any(c is None for c in self.categories) else np.unique(np.concatenate(self.categories))
        )
        self.slice_scope(window, ScopeId(Scope.OVERALL, "overall"), everything, pooled_categories)
        for c, criterion in enumerate(self.records.criteria):
            in_criterion = self.criterion_w == c
            if in_criterion.any():
                self.criterion_scope(window, c, criterion.id, in_criterion)
        for g, subgroup in enumerate(self.records.subgroups):
            in_subgroup = self.subgroup_w == g
            if not subgroup or not in_subgroup.any():
                continue
            self.slice_scope(
                window,
                ScopeId(Scope.SUBGROUP, f"subgroup={subgroup}", subgroup=subgroup),
                in_subgroup,
                pooled_categories,
            )
            for c, criterion in enumerate(self.records.criteria):
                mask = in_subgroup & (self.criterion_w == c)
                if mask.any():
                    scope = ScopeId(
                        Scope.SUBGROUP_CRITERION,
                        f"subgroup={subgroup}|criterion={criterion.id}",
                        criterion_id=criterion.id,
                        subgroup=subgroup,
                    )
                    self.main(window, scope, self.matrix(mask, pooled=False), self.categories[c])

    def slice_scope(self, window, scope: ScopeId, mask, categories) -> None:
        m = self.matrix(mask, pooled=True)
        self.main(window, scope, m, categories)
        sizes = Sizes.of_matrix(m)
        for statistic in self.plan.slice[1:]:
            self.builder.add(window, scope, statistic.name, outcome_of(statistic.compute, m, categories), sizes=sizes)

    def criterion_scope(self, window, c: int, criterion_id: int, mask) -> None:
        data = reliability_matrix(self.unit_w[mask], self.rater_w[mask], self.value_w[mask])
        m, categories = data.matrix, self.categories[c]
        scope = ScopeId(Scope.CRITERION, f"criterion={criterion_id}", criterion_id=criterion_id)
        self.main(window, scope, m, categories)
        sizes = Sizes.of_matrix(m)
        for statistic in self.plan.label[1:]:
            self.builder.add(window, scope, statistic.name, outcome_of(statistic.compute, m, categories), sizes=sizes)
        if categories is not None:
            coincidences = outcome_of(coincidence_matrix, m, value_domain=categories)
            self.builder.add_categories(
                window,
                scope,
                sizes,
                outcome_of(specific_agreement, m, categories=categories),
                coincidences if isinstance(coincidences, InsufficientDataError) else coincidences.matrix,
                categories,
            )
        agreement_with_others = self.pair_scopes(window, criterion_id, data, categories)
        self.rater_scopes(window, criterion_id, data, agreement_with_others, self.duration_w[mask], self.rater_w[mask])

    def pair_scopes(self, window, criterion_id: int, data, categories) -> np.ndarray | None:
        """Stores every rater pair's statistic; returns each rater's mean over its pairs, weighted by
        shared units (NaN for a rater without a defined pair)."""
        raters, m = data.raters, data.matrix
        if len(raters) < 2:
            return None
        if self.plan.pair_weights is None:
            pairs = interval_alpha_all_pairs(m)
            self.builder.add_pairs(
                window,
                criterion_id,
                raters,
                pairs,
                f"krippendorff_alpha_{self.plan.level}",
                "a single value in all shared ratings: alpha is undefined",
            )
        else:
            for weights in self.plan.pair_weights:
                pairs = cohen_kappa_all_pairs(m, weights=weights, categories=categories)
                self.builder.add_pairs(
                    window,
                    criterion_id,
                    raters,
                    pairs,
                    "cohen_kappa" if weights is None else f"cohen_kappa_{weights}",
                    "both raters used a single, common category: kappa is undefined",
                )
        return mean_with_others(pairs, len(raters))

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
            scope = ScopeId(
                Scope.RATER,
                f"criterion={criterion_id}|rater={int(rater)}",
                criterion_id=criterion_id,
                rater_a=int(rater),
            )
            times = durations[(rater_of == rater) & ~np.isnan(durations)] if cumulative else np.empty(0)
            self.builder.add_rater(
                window,
                scope,
                n_rated=int(rated[r].sum()),
                with_loo=loo is not None,
                loo_change=loo.change[r] if loo is not None else None,
                loo_reason=loo.reasons[r] if loo is not None else "",
                median_ms=np.median(times) if times.size else None,
                n_times=int(times.size),
                mean_pair=agreement_with_others[r] if agreement_with_others is not None else None,
            )


def snapshot_rows_compute(
    project: Project, everything: JudgmentRecords, progress: Callable[[int, int], None] | None = None
) -> tuple[RowBuilder, int]:
    """Every snapshot row of the project's judgments, and how many judgments were left out as off
    their criterion's scale."""
    builder = RowBuilder(project.id)
    keep = on_scale(everything, project.task_type, project.rankme_modulus)
    records = everything if keep.all() else everything.where(keep)
    off_scale = int(len(everything) - len(records))
    if REGISTRY[project.task_type].agreement.implied_pairs:
        records = implied_pair_records(records)
    if len(records):
        # Thousands of small matrix products: BLAS threads cost more than they save (measured 20x
        # slower on a loaded two-core machine), so the computation runs on one BLAS thread.
        with threadpool_limits(limits=1, user_api="blas"):
            spans = REGISTRY[project.task_type].agreement.spans
            if spans is None:
                project_computation(project, records, builder).run(progress)
            else:  # two passes over the windows: each reports half of the progress
                first_half = progress and (lambda done, total: progress(done, 2 * total))
                second_half = progress and (lambda done, total: progress(total + done, 2 * total))
                project_computation(project, records, builder).run(first_half)
                SpanComputation(project, records, builder, spans).run(second_half)
        gold_accuracy_rows(project, records.weeks, builder)
    off_scale_rows(everything, ~keep, builder)
    return builder, off_scale


def snapshot_compute_for_project(*, project_id: int, progress: Callable[[int, int], None] | None = None) -> dict:
    """Recomputes and replaces every snapshot of the project; idempotent. Returns counts."""
    project = Project.objects.get(pk=project_id)
    records = judgment_records_for_project(project)
    builder, off_scale = snapshot_rows_compute(project, records, progress)
    with transaction.atomic():
        AgreementSnapshot.objects.filter(project=project).delete()
        insert_rows(AgreementSnapshot, SNAPSHOT_FIELDS, builder.rows)
    refresh_planner_statistics(AgreementSnapshot)  # the dashboard's reads were planned as if on an empty table
    return {
        "snapshots": len(builder.rows),
        "judgments": len(records) - off_scale,
        "weeks": len(records.weeks),
        "off_scale": off_scale,
    }
