"""What a Bradley–Terry ranking of pair comparisons reports, for the judgments' results (pairwise_results) and the
imported votes' ranking (vote_results) alike: each system's record and how the fit went."""

from dataclasses import dataclass
from typing import Self

from ._common import num


@dataclass(frozen=True)
class SystemRecord:
    """One system's comparisons on a criterion (judgments or imported votes), against every opponent."""

    system: str
    #: Comparisons the system took part in.
    n: int
    wins: int
    #: Ties (of votes, "tie (bothbad)" included).
    ties: int
    losses: int
    #: (wins + ties / 2) / n; None without comparisons.
    win_rate: float | None
    #: Bradley–Terry natural log-strength, mean zero; None when the fit failed.
    strength: float | None
    #: The strength's interval ``[low, high]`` (None in it without a fit).
    strength_ci: list[float | None]


@dataclass(frozen=True)
class BradleyTerryFit:
    """How the Bradley–Terry fit of a criterion's comparisons went."""

    #: "half" (a tie is half a win each) or "davidson" (Davidson's tie model).
    ties: str
    #: Davidson's ν; None with half-wins and in the weighted fit.
    tie_parameter: float | None
    #: None in the weighted fit.
    log_likelihood: float | None
    #: Bootstrap samples of the intervals (0 in the weighted fit, whose intervals are sandwich intervals).
    n_resamples: int
    #: Bootstrap samples whose comparison graph had no finite maximum-likelihood estimate.
    n_resamples_without_mle: int
    scale: str = "natural log-strength, mean zero"

    @classmethod
    def of(cls, fit) -> Self:
        """From evaluation.stats' Bradley–Terry result (``bradley_terry`` or ``bradley_terry_tables``)."""
        return cls(
            ties=fit.ties,
            tie_parameter=num(fit.tie_parameter),
            log_likelihood=num(fit.log_likelihood),
            n_resamples=fit.n_resamples,
            n_resamples_without_mle=fit.n_resamples_without_mle,
        )
