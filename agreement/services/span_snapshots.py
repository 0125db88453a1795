"""Snapshot rows of agreement on error spans (the task types whose plan declares ``spans``): per window,
per criterion with every rater pair, per subgroup and criterion, per subgroup and overall, the span
statistics of ``span_scopes`` with bootstrap intervals over segments, and Kendall's tau between every
two raters' numbers. The plan's own statistics on the numbers (interval alpha of ESA scores, MQM
penalties) come from the ordinary computation beside these.

Only target-side spans (errors in the output) are compared. Source-side spans (MQM's errors in the
input) are counted per scope in the ``span_counts`` row and left out: raters mark them rarely, and a
figure on them would rest on a handful of spans per study."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agreement.engine.bootstrap_seed import BOOTSTRAP_RESAMPLES, scope_rng
from agreement.engine.records import JudgmentRecords
from agreement.engine.rows import RowBuilder, Scope, ScopeId, Window, for_each_window
from agreement.engine.span_scopes import (
    SPAN_COUNTS,
    ScopeAgreement,
    ScopeSpans,
    pair_kendall,
    span_scope_agreement,
)
from agreement.stats import InsufficientDataError
from agreement.stats.spans import SpanStatistic
from annotation.models import ErrorSpan, Project
from annotation.selectors.error_spans import SpanRatings, span_ratings
from annotation.task_types.facts import SpanAgreement

# span_agreement's intervals: BCa, the acceleration from the jackknife over segments
SPAN_CI_METHOD = "bca"


@dataclass(frozen=True)
class _Figure:
    """A span figure as RowBuilder.add reads an outcome."""

    value: float
    confidence_interval: tuple[float, float] | None
    n_units: int
    n_raters: int
    method: str
    n_pairable: int = 0


@dataclass(frozen=True, eq=False)
class Dropped:
    """Spans left out of the statistics: the rating each belongs to (index into ScopeSpans' ratings) and why."""

    rating: np.ndarray
    reason: np.ndarray


def scope_spans(
    records: JudgmentRecords, ratings: SpanRatings, severities: tuple[str, ...]
) -> tuple[ScopeSpans, Dropped, np.ndarray]:
    """The records' ratings with their target-side spans, the spans left out, and which records are kept.

    A record is matched to its judgment's spans by (output, criterion, rater), unique among current judgments
    (a constraint of Judgment). Spans are left out: source-side ones, those with a severity outside the plan's,
    and those beyond their output's text (the text changed after they were marked)."""
    criterion_ids = np.array([c.id for c in records.criteria], dtype=np.int64)
    rec_keys = np.stack([records.unit, criterion_ids[records.criterion_index], records.rater], axis=1)
    sr_keys = np.stack([ratings.output, ratings.criterion, ratings.rater], axis=1)
    _, inverse = np.unique(np.concatenate([rec_keys, sr_keys]).reshape(-1, 3), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    rec_key, sr_key = inverse[: len(records)], inverse[len(records) :]
    rating_of_key = np.full(inverse.max(initial=-1) + 1, -1)
    rating_of_key[sr_key] = np.arange(len(ratings))
    rating_of = rating_of_key[rec_key]
    keep = rating_of >= 0  # false only for a judgment revised between the two reads
    rows = np.flatnonzero(keep)
    record_of_rating = np.full(len(ratings), -1)
    record_of_rating[rating_of[rows]] = np.arange(len(rows))

    length = ratings.target_length[rating_of[rows]]
    record = record_of_rating[ratings.span_rating] if len(ratings.span_rating) else np.zeros(0, dtype=np.int64)
    counted = record >= 0
    reason = np.full(len(record), "", dtype=object)
    reason[ratings.side != ErrorSpan.Side.TARGET] = "source side"
    reason[(reason == "") & ~np.isin(ratings.severity, severities)] = "severity not in the plan"
    beyond = ratings.end > np.where(counted, length[np.maximum(record, 0)] if len(length) else 0, 0)
    reason[(reason == "") & beyond] = "beyond the output's text"
    inside, dropped = counted & (reason == ""), counted & (reason != "")
    data = ScopeSpans(
        segment=records.unit[rows],
        criterion=records.criterion_index[rows].astype(np.int64),
        rater=records.rater[rows],
        length=length,
        value=records.value[rows],
        span_rating=record[inside],
        start=ratings.start[inside],
        end=ratings.end[inside],
        severity=ratings.severity[inside],
    )
    return data, Dropped(record[dropped], reason[dropped]), keep


class SpanComputation:
    """The span rows of every window of a project, from its judgment records and their spans."""

    def __init__(self, project: Project, records: JudgmentRecords, builder: RowBuilder, plan: SpanAgreement):
        self.project_id, self.records, self.builder = project.id, records, builder
        self.severities = plan.severities
        data, dropped, keep = scope_spans(records, span_ratings(project.id), plan.severities)
        # ratings in week order, so that a window's ratings are a range
        order = np.argsort(records.week_index[keep], kind="stable")
        self.week = records.week_index[keep][order]
        self.subgroup = records.subgroup_index[keep][order]
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        self.data = ScopeSpans(
            segment=data.segment[order],
            criterion=data.criterion[order],
            rater=data.rater[order],
            length=data.length[order],
            value=data.value[order],
            span_rating=position[data.span_rating],
            start=data.start,
            end=data.end,
            severity=data.severity,
        )
        self.dropped = Dropped(position[dropped.rating], dropped.reason)

    def run(self, progress: Callable[[int, int], None] | None = None, first_week: int = 0) -> None:
        for_each_window(self.records.weeks, self.week, lambda _, window: self.window(window), progress, first_week)

    def window(self, window: Window) -> None:
        data = self.data
        in_window = np.zeros(len(data.segment), dtype=bool)
        in_window[window.rows] = True
        single = len(self.records.criteria) == 1
        by_criterion = {}
        for c, criterion in enumerate(self.records.criteria):
            mask = in_window & (data.criterion == c)
            if not mask.any():
                continue
            scope = ScopeId(Scope.CRITERION, f"criterion={criterion.id}", criterion_id=criterion.id)
            by_criterion[c] = self.scope(window, scope, mask, c, pairs=True)
            self.counts(window, scope, mask)
            self.pairs(window, criterion.id, by_criterion[c], mask)
        if by_criterion:
            overall = ScopeId(Scope.OVERALL, "overall")
            if single:  # the one criterion's figures are the overall ones
                self.store(window, overall, by_criterion[0])
            else:
                self.scope(window, overall, in_window, "", pairs=False)
        for g, subgroup in enumerate(self.records.subgroups):
            in_subgroup = in_window & (self.subgroup == g)
            if not subgroup or not in_subgroup.any():
                continue
            results = {}
            for c, criterion in enumerate(self.records.criteria):
                mask = in_subgroup & (data.criterion == c)
                if mask.any():
                    scope = ScopeId(
                        Scope.SUBGROUP_CRITERION,
                        f"subgroup={subgroup}|criterion={criterion.id}",
                        criterion_id=criterion.id,
                        subgroup=subgroup,
                    )
                    results[c] = self.scope(window, scope, mask, c, pairs=False)
            scope = ScopeId(Scope.SUBGROUP, f"subgroup={subgroup}", subgroup=subgroup)
            if single:
                self.store(window, scope, results[0])
            else:
                self.scope(window, scope, in_subgroup, "", pairs=False)

    def scope(
        self, window: Window, scope: ScopeId, mask: np.ndarray, criterion_position, *, pairs: bool
    ) -> ScopeAgreement:
        rng = scope_rng(self.project_id, window, scope, criterion_position)
        result = span_scope_agreement(
            self.data, mask, severities=self.severities, rng=rng, n_resamples=BOOTSTRAP_RESAMPLES, pairs=pairs
        )
        self.store(window, scope, result)
        return result

    def store(self, window: Window, scope: ScopeId, result: ScopeAgreement) -> None:
        for figure in result.figures:
            if figure.rater_a is None:
                self.add(window, scope, figure, result.n_raters, SPAN_CI_METHOD)

    def counts(self, window: Window, scope: ScopeId, mask: np.ndarray) -> None:
        """The spans counted in a criterion's figures, and those left out by reason."""
        counted = int(mask[self.data.span_rating].sum())
        reasons, n = np.unique(self.dropped.reason[mask[self.dropped.rating]], return_counts=True)
        self.builder.add(
            window,
            scope,
            SPAN_COUNTS,
            counted,
            n_units=int(mask.sum()),
            detail={"left_out": dict(zip(reasons.tolist(), n.tolist(), strict=True))},
        )

    def pairs(self, window: Window, criterion_id: int, result: ScopeAgreement, mask: np.ndarray) -> None:
        figures = [(f, SPAN_CI_METHOD) for f in result.figures if f.rater_a is not None]
        figures += [(f, "analytic") for f in pair_kendall(self.data, mask)]  # Fisher-z
        for figure, method in figures:
            a, b = figure.rater_a, figure.rater_b
            scope = ScopeId(
                Scope.PAIR, f"criterion={criterion_id}|pair={a}-{b}", criterion_id=criterion_id, rater_a=a, rater_b=b
            )
            self.add(window, scope, figure, 2, method)

    def add(self, window, scope, figure: SpanStatistic, n_raters: int, method: str) -> None:
        outcome: _Figure | InsufficientDataError
        if figure.value is None:
            outcome = InsufficientDataError(figure.reason)
        else:
            low, high = figure.ci_low, figure.ci_high
            # a stored interval is never NaN
            ci = (low, high) if low is not None and high is not None and np.isfinite([low, high]).all() else None
            outcome = _Figure(figure.value, ci, figure.n_segments, n_raters, method)
        self.builder.add(
            window, scope, figure.statistic, outcome, n_units=figure.n_segments, detail={"span_label": figure.label}
        )
