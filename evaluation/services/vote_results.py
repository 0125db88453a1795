"""The ranking of imported pairwise votes: each criterion's votes counted into pair tables by the database,
then Bradley–Terry (ties as half-wins or Davidson's model) with a multinomial bootstrap over votes, whose cost
does not grow with the number of votes (``evaluation.stats.bradley_terry_tables``)."""

from dataclasses import dataclass

import numpy as np

from annotation.models import Project
from evaluation.selectors.votes import VoteTables, vote_tables
from evaluation.stats import InsufficientDataError, bradley_terry_tables, ipw_bradley_terry

from ._common import WEIGHTING_WORDS, generator, interval, num
from .ranking_records import BradleyTerryFit, SystemRecord


@dataclass(frozen=True)
class VoteFit(BradleyTerryFit):
    """How the Bradley–Terry fit of the votes went."""

    bootstrap: str = "votes resampled (multinomial counts of the pair tables' cells)"


@dataclass(frozen=True)
class VoteResult:
    """The ranking of one criterion's imported votes, apart from the judgments."""

    criterion: str
    n_votes: int
    #: Files imported on this criterion.
    n_imports: int
    #: Of the ties, those marked "tie (bothbad)".
    ties_both_bad: int
    #: Strongest first (by win rate where the fit failed).
    systems: list[SystemRecord]
    #: None when the fit failed (``error`` says why).
    bradley_terry: VoteFit | None
    error: str | None
    #: How votes with a recorded sampling probability are weighted (``evaluation.stats.WEIGHTINGS``); "none"
    #: when no vote recorded one.
    weighting: str = "none"
    #: Whether any vote recorded the probability its pair was drawn with (an adaptive study's).
    sampling_probabilities: bool = False

    @property
    def n_systems(self) -> int:
        return len(self.systems)


def vote_results(
    *, project: Project, ties: str, confidence: float, n_resamples: int, seed: int, weighting: str
) -> list[VoteResult]:
    """One entry per criterion with imported votes (see ``ResultOptions`` for the options). Votes drawn by an
    adaptive design (a sampling probability recorded on any of them) are fitted as the platform's own adaptive
    judgments are, weighted as ``weighting`` says, with sandwich intervals; the others by the pair tables."""
    return [
        _criterion(t, ties=ties, confidence=confidence, n_resamples=n_resamples, seed=seed, weighting=weighting)
        for t in vote_tables(project)
    ]


def _strongest_first(row: SystemRecord) -> float:
    """By strength, by win rate where the fit failed (every system of a pair table took part in a vote)."""
    return -(row.strength if row.strength is not None else row.win_rate or 0.0)


def _weighted_fit(votes: VoteTables, *, confidence: float, weighting: str) -> tuple[VoteFit, dict]:
    """The votes' Bradley–Terry fit weighted by their sampling probabilities (a vote without one counts as drawn
    from the uniform design over the pairs, as in ``evaluation.services.adaptive_refresh``)."""
    draws, k = votes.draws, len(votes.tables.systems)
    assert draws is not None
    uniform = 2.0 / (k * (k - 1))
    fit = ipw_bradley_terry(
        k,
        draws.first,
        draws.second,
        draws.outcome,
        np.where(np.isnan(draws.probability), uniform, draws.probability),
        weighting=weighting,
        confidence=confidence,
        frequency=draws.count,
    )
    strengths = {
        system: (fit.strengths[i], fit.ci_low[i], fit.ci_high[i]) for i, system in enumerate(votes.tables.systems)
    }
    words = f"natural log-strength, mean zero; {WEIGHTING_WORDS[weighting]}, bias-reduced, ties as half-wins"
    fit_words = VoteFit("half", None, None, 0, 0, scale=words, bootstrap="none: sandwich (Wald) intervals")
    return fit_words, strengths


def _criterion(
    votes: VoteTables, *, ties: str, confidence: float, n_resamples: int, seed: int, weighting: str
) -> VoteResult:
    tables = votes.tables
    strengths: dict[str, tuple[float, float, float]] = {}
    fit, error = None, None
    try:
        if votes.draws is not None:
            fit, strengths = _weighted_fit(votes, confidence=confidence, weighting=weighting)
        else:
            bt = bradley_terry_tables(
                tables, ties=ties, confidence=confidence, n_resamples=n_resamples, rng=generator(seed)
            )
            strengths = dict(zip(bt.systems, zip(bt.strengths, bt.ci_low, bt.ci_high, strict=True), strict=True))
            fit = VoteFit.of(bt)
    except InsufficientDataError as exc:
        error = str(exc)
    wins, losses, tied = tables.wins.sum(axis=1), tables.wins.sum(axis=0), tables.ties.sum(axis=1)
    rows = []
    for k, system in enumerate(tables.systems):
        n = int(wins[k] + losses[k] + tied[k])
        v, lo, hi = strengths.get(system, (None, None, None))
        rows.append(
            SystemRecord(
                system=system,
                n=n,
                wins=int(wins[k]),
                ties=int(tied[k]),
                losses=int(losses[k]),
                win_rate=num((wins[k] + tied[k] / 2) / n) if n else None,
                strength=num(v),
                strength_ci=interval(lo, hi),
            )
        )
    return VoteResult(
        criterion=votes.criterion,
        n_votes=votes.n_votes,
        n_imports=votes.n_imports,
        ties_both_bad=votes.ties_both_bad,
        systems=sorted(rows, key=_strongest_first),
        bradley_terry=fit,
        error=error,
        weighting=weighting if votes.draws is not None else "none",
        sampling_probabilities=votes.draws is not None,
    )
