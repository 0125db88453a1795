"""How system-level results are computed: the options a caller gives, checked and completed with the project's
defaults."""

from dataclasses import asdict, dataclass

from annotation.models import Project
from annotation.task_types.adaptive import DEFAULT_WEIGHTING, adaptive_settings
from evaluation.stats import INTERVAL_METHODS, WEIGHTINGS

from ._common import MAX_RESAMPLES, default_normalisation


@dataclass(frozen=True)
class ResultOptions:
    """How results are computed; every field is echoed in the answer."""

    confidence: float = 0.95
    n_resamples: int = 1000
    seed: int = 0
    test: str = "auto"
    interval: str = "bca"
    # Significance needs more resamples than intervals: with m pairs Holm multiplies the smallest
    # p-value, at best 1 / (B + 1), by m, so B must be well above m / alpha.
    test_resamples: int = 10_000
    alpha: float = 0.05
    normalisation: str | None = None
    ties: str = "half"
    aggregate: str = "none"
    # error spans: list every segment's (output's) score in the answer
    segments: bool = False
    # pairwise and best–worst judgments with sampling probabilities: the estimator (evaluation.stats.WEIGHTINGS);
    # None: the project's adaptive setting, else inverse_probability
    weighting: str | None = None

    def checked(self, project: Project) -> "CheckedResultOptions":
        if not 0 <= self.n_resamples <= MAX_RESAMPLES:
            raise ValueError(f"n_resamples must be from 0 to {MAX_RESAMPLES}")
        if not 0 <= self.test_resamples <= 10 * MAX_RESAMPLES:
            raise ValueError(f"test_resamples must be from 0 to {10 * MAX_RESAMPLES}")
        if self.interval not in INTERVAL_METHODS:
            raise ValueError(f"interval must be one of {', '.join(INTERVAL_METHODS)}")
        if self.aggregate not in ("none", "majority"):
            raise ValueError("aggregate must be 'none' (every judgment) or 'majority' (one vote per item)")
        if self.weighting is not None and self.weighting not in WEIGHTINGS:
            raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}")
        normalisation = self.normalisation or default_normalisation(project)
        settings = adaptive_settings(project.task_config)
        weighting = self.weighting or (settings.weighting if settings else DEFAULT_WEIGHTING)
        return CheckedResultOptions(**(asdict(self) | {"normalisation": normalisation, "weighting": weighting}))


@dataclass(frozen=True)
class CheckedResultOptions(ResultOptions):
    """Options checked, with the project's normalisation and weighting filled in (the defaults here are never
    used: ``ResultOptions.checked`` gives every field)."""

    normalisation: str = "none"
    weighting: str = DEFAULT_WEIGHTING
