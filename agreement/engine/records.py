"""A project's judgments as flat numpy arrays, as the engine reads them."""

from dataclasses import dataclass, replace
from datetime import date

import numpy as np


@dataclass(frozen=True, eq=False)
class JudgmentRecords:
    """One entry per judgment agreement counts (``included_judgments``); ``*_index`` arrays index the
    label lists.

    ``unit`` is the judged output's id (pairwise judgments sit on the item's first output), so a
    (criterion, unit) pair is one unit of Krippendorff's reliability data. In a project rating per turn
    (Project.rating_unit) it is the key of the output and the assistant turn judged
    (agreement.selectors.judgment_records.unit_key), so each turn is a unit of its own and the whole output another.
    """

    criteria: list  # each with id, scale_min, scale_max (annotation.models.Criterion)
    weeks: list[date]
    subgroups: list[str]
    criterion_index: np.ndarray
    unit: np.ndarray
    rater: np.ndarray
    value: np.ndarray
    week_index: np.ndarray
    subgroup_index: np.ndarray
    duration_ms: np.ndarray

    def __len__(self) -> int:
        return len(self.value)

    def where(self, keep: np.ndarray) -> "JudgmentRecords":
        """The records where ``keep`` is True (the label lists unchanged)."""
        return replace(
            self,
            criterion_index=self.criterion_index[keep],
            unit=self.unit[keep],
            rater=self.rater[keep],
            value=self.value[keep],
            week_index=self.week_index[keep],
            subgroup_index=self.subgroup_index[keep],
            duration_ms=self.duration_ms[keep],
        )

    def before_week(self, k: int) -> "JudgmentRecords":
        """The records of the weeks before week ``k`` (an index of ``weeks``), with only those weeks."""
        return replace(self.where(self.week_index < k), weeks=self.weeks[:k])
