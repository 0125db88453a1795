"""The ranking of imported pairwise votes: each criterion's votes counted into pair tables by the database,
then Bradley–Terry (ties as half-wins or Davidson's model) with a multinomial bootstrap over votes, whose cost
does not grow with the number of votes (``evaluation.stats.bradley_terry_tables``)."""

from dataclasses import dataclass

from annotation.models import Project
from evaluation.selectors.votes import VoteTables, vote_tables
from evaluation.stats import InsufficientDataError, bradley_terry_tables

from ._common import generator, interval, num
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

    @property
    def n_systems(self) -> int:
        return len(self.systems)


def vote_results(*, project: Project, ties: str, confidence: float, n_resamples: int, seed: int) -> list[VoteResult]:
    """One entry per criterion with imported votes (see ``ResultOptions`` for the options)."""
    return [
        _criterion(t, ties=ties, confidence=confidence, n_resamples=n_resamples, seed=seed)
        for t in vote_tables(project)
    ]


def _strongest_first(row: SystemRecord) -> float:
    """By strength, by win rate where the fit failed (every system of a pair table took part in a vote)."""
    return -(row.strength if row.strength is not None else row.win_rate or 0.0)


def _criterion(votes: VoteTables, *, ties: str, confidence: float, n_resamples: int, seed: int) -> VoteResult:
    tables = votes.tables
    strengths = {}
    fit, error = None, None
    try:
        bt = bradley_terry_tables(
            tables, ties=ties, confidence=confidence, n_resamples=n_resamples, rng=generator(seed)
        )
    except InsufficientDataError as exc:
        error = str(exc)
    else:
        strengths = dict(zip(bt.systems, zip(bt.strengths, bt.ci_low, bt.ci_high, strict=True), strict=True))
        fit = VoteFit.of(bt)
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
    )
