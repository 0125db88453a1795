"""Every write path and computation of the evaluation app."""

from .calibration import calibrator_apply, calibrator_fit
from .correlations import NotCorrelatable, metric_correlations
from .export import (
    ABOUT_FIELDS,
    ExportOptions,
    ExportOptionsError,
    export_run,
    export_start,
    export_state,
    export_write,
)
from .export_reimport import NotAnExport, export_reimport
from .judge_tests import judge_alt_test_report, judge_confusion, judge_prediction_powered_report
from .judges import judge_agreement_report, judge_from_metric, judge_rating_import
from .metric_import import metric_score_import
from .metric_inputs import metric_input_upload
from .metrics_compute import (
    DEFAULT_METRICS,
    metric_catalogue,
    metric_names_check,
    metrics_compute,
    metrics_compute_start,
)
from .rater_models import rater_models_report
from .rater_models_store import rater_models_compute, rater_models_recompute_start, rater_models_stored
from .results import ResultOptions, results_compute
from .study_planning import study_plan, study_plan_apply

__all__ = [
    "DEFAULT_METRICS",
    "ExportOptions",
    "ExportOptionsError",
    "NotAnExport",
    "NotCorrelatable",
    "ResultOptions",
    "calibrator_apply",
    "calibrator_fit",
    "export_reimport",
    "export_run",
    "export_start",
    "ABOUT_FIELDS",
    "export_state",
    "export_write",
    "judge_agreement_report",
    "judge_alt_test_report",
    "judge_confusion",
    "judge_prediction_powered_report",
    "judge_from_metric",
    "judge_rating_import",
    "metric_correlations",
    "metric_catalogue",
    "metric_input_upload",
    "metric_names_check",
    "metric_score_import",
    "metrics_compute",
    "metrics_compute_start",
    "rater_models_compute",
    "rater_models_recompute_start",
    "rater_models_report",
    "rater_models_stored",
    "results_compute",
    "study_plan",
    "study_plan_apply",
]
