"""The ranking of imported pairwise votes: each criterion's votes counted into pair tables by the database,
then Bradley–Terry (ties as half-wins or Davidson's model) with a multinomial bootstrap over votes, whose cost
does not grow with the number of votes (``evaluation.stats.bradley_terry_tables``)."""

from annotation.models import Project
from evaluation.selectors.votes import VoteTables, vote_tables
from evaluation.stats import InsufficientDataError, bradley_terry_tables

from ._common import generator, interval, num


def vote_results(*, project: Project, ties: str, confidence: float, n_resamples: int, seed: int) -> list[dict]:
    """One entry per criterion with imported votes (see ``ResultOptions`` for the options)."""
    return [
        _criterion(t, ties=ties, confidence=confidence, n_resamples=n_resamples, seed=seed)
        for t in vote_tables(project)
    ]


def _criterion(votes: VoteTables, *, ties: str, confidence: float, n_resamples: int, seed: int) -> dict:
    tables = votes.tables
    out = {
        "criterion": votes.criterion,
        "n_votes": votes.n_votes,
        "n_imports": votes.n_imports,
        "ties_both_bad": votes.ties_both_bad,
        "systems": [],
        "bradley_terry": None,
        "error": None,
    }
    strengths = {}
    try:
        bt = bradley_terry_tables(
            tables, ties=ties, confidence=confidence, n_resamples=n_resamples, rng=generator(seed)
        )
    except InsufficientDataError as exc:
        out["error"] = str(exc)
    else:
        strengths = dict(zip(bt.systems, zip(bt.strengths, bt.ci_low, bt.ci_high, strict=True), strict=True))
        out["bradley_terry"] = {
            "ties": bt.ties,
            "tie_parameter": num(bt.tie_parameter),
            "log_likelihood": num(bt.log_likelihood),
            "n_resamples": bt.n_resamples,
            "n_resamples_without_mle": bt.n_resamples_without_mle,
            "bootstrap": "votes resampled (multinomial counts of the pair tables' cells)",
            "scale": "natural log-strength, mean zero",
        }
    wins, losses, tied = tables.wins.sum(axis=1), tables.wins.sum(axis=0), tables.ties.sum(axis=1)
    rows = []
    for k, system in enumerate(tables.systems):
        n = int(wins[k] + losses[k] + tied[k])
        v, lo, hi = strengths.get(system, (None, None, None))
        rows.append(
            {
                "system": system,
                "n": n,
                "wins": int(wins[k]),
                "ties": int(tied[k]),
                "losses": int(losses[k]),
                "win_rate": num((wins[k] + tied[k] / 2) / n) if n else None,
                "strength": num(v),
                "strength_ci": interval(lo, hi),
            }
        )
    out["systems"] = sorted(rows, key=lambda r: -(r["strength"] if r["strength"] is not None else r["win_rate"]))
    out["n_systems"] = len(rows)
    return out
