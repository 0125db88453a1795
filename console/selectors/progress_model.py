"""The progress summary's read model: what the progress page and its API show, field by field."""

from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

EtaStatus = Literal["done", "estimated", "not_enough_data"]


@dataclass(frozen=True)
class ItemProgress:
    """The project's items by state (as ``annotation.selectors.item_states``) and its target slots."""

    n_items: int
    #: Imported work items (neither gold nor quality-control copies): complete + in_progress + untouched.
    n_target_items: int
    complete: int
    in_progress: int
    untouched: int
    gold: int
    #: Quality-control copies (repeats and degraded copies).
    control: int
    #: Raters wanted, summed over the served non-gold items (a retired item's slots count as neither wanted
    #: nor filled).
    slots_target: int
    #: Judged slots, at most the target of each item.
    slots_filled: int
    slots_remaining: int
    #: Filled slots in percent of the target, to 0.1; None without a target.
    percent_complete: float | None


@dataclass(frozen=True)
class Eta:
    """The estimated time to completion, and what it rests on."""

    status: EtaStatus
    #: Seconds from ``generated_at`` to completion: 0 when done, None without an estimate.
    seconds: int | None
    finish_at: datetime | None
    #: The rate of the recent window, in slots per hour, to 0.01.
    slots_per_hour: float | None
    #: Slots filled in the recent window.
    n_recent: int
    #: The estimate's basis in words (and, without enough data, what it needs).
    based_on: str


@dataclass(frozen=True)
class DayCounts:
    """One UTC day's current judgments and done screens (assignments)."""

    day: date
    judgments: int
    screens: int


@dataclass(frozen=True)
class RaterThroughput:
    """One rater's work: every member rater and whoever judged, most judgments first."""

    #: The display name (external name, else username).
    rater: str
    is_paused: bool
    judgments: int
    screens: int
    #: UTC days with a judgment or a done screen.
    active_days: int
    #: Per active day, to 0.1; None without one.
    judgments_per_day: float | None
    screens_per_day: float | None
    #: The last judgment or done screen.
    last_active: datetime | None
    #: The median seconds from serving to submission of the rater's screens.
    median_seconds_per_item: float | None


@dataclass(frozen=True)
class LeaseHolder:
    """A rater holding leases now."""

    rater: str
    #: Leases this rater holds now.
    n: int
    #: Seconds since the oldest of them was served.
    oldest_age_seconds: int


@dataclass(frozen=True)
class Leases:
    """Assignments leased and not expired now."""

    n_active: int
    #: Seconds since the oldest lease was served; None without leases.
    oldest_age_seconds: int | None
    #: Holders, most leases first, then the oldest.
    raters: list[LeaseHolder]


@dataclass(frozen=True)
class ProgressSummary:
    """Everything the progress page shows, as of ``generated_at``."""

    generated_at: datetime
    items: ItemProgress
    #: The median seconds from serving to submission over every done screen; None without one.
    median_seconds_per_item: float | None
    eta: Eta
    #: Every UTC day from the first with work to today (at most ``MAX_DAYS_CHARTED``), days without work as 0.
    per_day: list[DayCounts]
    raters: list[RaterThroughput]
    leases: Leases
