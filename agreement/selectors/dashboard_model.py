"""The agreement dashboard's read model: what ``dashboard_for_project`` gives the page and the data card."""

from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypedDict

from agreement.models import MIN_INTERVAL_UNITS, AgreementAlert


class SnapshotFigures(TypedDict, total=False):
    """One stored snapshot as read for the page (a row of ``dashboard.FIELDS``, not a model instance: the
    latest week of a large project holds thousands of them). ``value`` is None when the snapshot holds
    "insufficient data" (``status``), with the ``reason``; the interval is None when none was computed."""

    scope: str
    statistic: str
    subgroup: str
    rater_a_id: int | None
    rater_b_id: int | None
    value: float | None
    ci_low: float | None
    ci_high: float | None
    ci_method: str
    n_units: int
    n_raters: int
    status: str
    reason: str
    unreliable: bool
    label: str | None  # the criterion's name, per turn marked (agreement.selectors.labels); None over all labels
    detail: dict[str, Any]


@dataclass(frozen=True)
class OffScale:
    """Judgments of a label given outside its declared scale (imported ones): how many, and which values."""

    n: int
    #: The values as text (``agreement.services.off_scale``: NaN is no JSON).
    values: list[str]


@dataclass(frozen=True)
class ConfusionCell:
    """One cell of a coincidence matrix."""

    #: Pairable values coinciding in this row's and column's categories.
    count: float
    #: (observed − expected by chance) / all pairable values: above 0 when raters pair these more than chance.
    excess: float
    #: ``excess`` divided by the matrix's largest |excess|, in −1..1, for the colour.
    shade: float


@dataclass(frozen=True)
class ConfusionRow:
    """A category's row of the coincidence matrix."""

    value: float
    #: The category as the task type names it.
    name: str
    cells: list[ConfusionCell]


@dataclass(frozen=True)
class DominantCategory:
    """The most frequent category of the pairable values: its share is the prevalence that lowers kappa at
    a given raw agreement (the first kappa paradox)."""

    value: float
    name: str
    share: float


@dataclass(frozen=True)
class Confusion:
    """A label's coincidence matrix, as the page draws it."""

    #: The categories as coded, in the matrix's order.
    values: list[float]
    names: list[str]
    rows: list[ConfusionRow]
    #: The share of pairable values on the diagonal (the snapshot's value, stored once a unit is rated twice).
    diagonal: float | None
    n_units: int
    dominant: DominantCategory | None


@dataclass(frozen=True)
class RaterLabelFigures:
    """A rater's figures on one label, each a snapshot (None when not stored)."""

    criterion: str
    judgments: SnapshotFigures | None
    median_duration_ms: SnapshotFigures | None
    mean_pair_agreement: SnapshotFigures | None
    #: How the label's alpha moves when this rater's judgments are left out.
    alpha_change_without_rater: SnapshotFigures | None


@dataclass(frozen=True)
class RaterRow:
    """One rater (told apart by id, shown by name) on the dashboard."""

    rater: str
    #: Accuracy on gold items over all labels; None without gold judgments.
    gold: SnapshotFigures | None
    labels: list[RaterLabelFigures]


@dataclass(frozen=True)
class AgreementDashboard:
    """Everything the dashboard shows, from the snapshots of the latest week (cumulative window). Without
    snapshots ``week`` is None and only the alerts are there."""

    week: date | None
    alerts: list[AgreementAlert]
    #: The statistic of the labels' main coefficient (the task type's agreement plan).
    main_statistic: str | None = None
    #: Per label and window ("week", "cumulative"), the main coefficient's points in week order, as JSON for
    #: the page's chart: ``{week, value, ci_low, ci_high, n_units, status, reason, unreliable}``.
    trends: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    #: Per label, every statistic's snapshot.
    labels: dict[str, dict[str, SnapshotFigures]] = field(default_factory=dict)
    #: The statistics of the labels' table, the main one first.
    label_columns: list[str] = field(default_factory=list)
    #: Per subgroup, per label, the main coefficient's snapshot.
    subgroups: dict[str, dict[str, SnapshotFigures]] = field(default_factory=dict)
    #: Per label, JSON for the page's script: ``{statistic, raters, cells}``, each cell ``[row, column, value,
    #: shared units, reason]`` with row < column (see ``dashboard._pair_heatmaps``).
    pair_heatmaps: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Raters by name.
    raters: list[RaterRow] = field(default_factory=list)
    #: Per label with a pair rated twice, its coincidence matrix.
    confusions: dict[str, Confusion] = field(default_factory=dict)
    #: How the task type codes its categories, when it says.
    category_note: str = ""
    #: Per label, per category name, the specific (per-category) agreement's snapshot.
    specific: dict[str, dict[str, SnapshotFigures]] = field(default_factory=dict)
    off_scale: dict[str, OffScale] = field(default_factory=dict)
    #: Labels whose main interval rests on fewer than ``min_interval_units`` units, with that snapshot.
    small_intervals: dict[str, SnapshotFigures] = field(default_factory=dict)
    min_interval_units: int = MIN_INTERVAL_UNITS
    #: The span agreement section of span-marking task types (``span_dashboard.span_section``); None otherwise.
    spans: dict[str, Any] | None = None
