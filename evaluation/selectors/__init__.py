"""Every non-trivial read of the evaluation app."""

from .judge_units import JudgeUnits, judge_units_table
from .ratings import (
    PairwiseFrame,
    RatingFrame,
    excluded_rater_ids,
    exclusion_counts,
    included_judgments,
    pairwise_frame,
    rating_frame,
    retired_item_counts,
)
from .scores import (
    calibrator_summaries,
    judge_list_for_project,
    metric_matrix,
    metric_names_for_project,
    metric_score_list,
    metric_system_summaries,
    output_table,
)

__all__ = [
    "calibrator_summaries",
    "JudgeUnits",
    "judge_units_table",
    "PairwiseFrame",
    "RatingFrame",
    "excluded_rater_ids",
    "exclusion_counts",
    "retired_item_counts",
    "included_judgments",
    "judge_list_for_project",
    "metric_matrix",
    "metric_names_for_project",
    "metric_score_list",
    "metric_system_summaries",
    "output_table",
    "pairwise_frame",
    "rating_frame",
]
