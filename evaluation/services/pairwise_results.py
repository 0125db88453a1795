"""Results of a pair-comparing criterion: win/tie/lose per pair with sign tests, each system's record and
Bradley–Terry strength (resampled intervals, or the weighted fit with sandwich intervals when judgments were
drawn adaptively and carry their sampling probabilities)."""

from dataclasses import asdict, dataclass, replace

import numpy as np

from evaluation.stats import (
    InsufficientDataError,
    WinRate,
    bradley_terry,
    holm,
    ipw_bradley_terry,
    ipw_win_rates,
    majority_outcomes,
    pairwise_counts,
    win_rates,
)

from ._common import WEIGHTING_WORDS, generator, interval, num
from .ranking_records import BradleyTerryFit, SystemRecord

NO_JUDGMENTS = "no judgments on this criterion yet"


@dataclass(frozen=True)
class SystemPair:
    """Two systems' comparisons, counted for ``system_a`` (the names sorted)."""

    system_a: str
    system_b: str
    n: int
    #: Wins of system_a over system_b.
    wins: int
    ties: int
    losses: int
    #: (wins + ties / 2) / n.
    win_rate: float | None
    #: Two-sided exact sign test, ties dropped.
    sign_test_p: float | None
    #: Holm-adjusted across all pairs of the criterion.
    p_holm: float | None
    #: p_holm below the options' alpha.
    significant: bool


@dataclass(frozen=True)
class PairwiseSystem(SystemRecord):
    """One system's judgments on a criterion, against every opponent."""

    #: Judgments with sampling probabilities only: the Horvitz–Thompson win rate against an opponent drawn
    #: uniformly (None when it could not be estimated).
    weighted_win_rate: float | None = None


@dataclass(frozen=True)
class PairwiseCriterion:
    """The results of one criterion of a pair-comparing project."""

    criterion: str
    #: "none" (every judgment) or "majority" (one vote per item).
    aggregate: str
    n_judgments: int
    n_items: int
    n_raters: int
    #: The comparisons counted: the judgments, or the items with a majority.
    n_comparisons: int = 0
    #: With majority votes: items whose judgments have no majority (left out).
    n_without_majority: int = 0
    pairs: tuple[SystemPair, ...] = ()
    #: Strongest first (by win rate where the fit failed).
    systems: tuple[PairwiseSystem, ...] = ()
    #: None when the fit failed (``error`` says why).
    bradley_terry: BradleyTerryFit | None = None
    #: How the fit weighted each judgment: "none", or with sampling probabilities the estimator of the options.
    weighting: str = "none"
    #: The judgments carry sampling probabilities (adaptive allocation): the systems' weighted win rates are given.
    sampling_probabilities: bool = False
    error: str | None = None

    def to_json(self) -> dict:
        """The criterion as the results were written in JSON before they were typed (the profile breakdown's
        answer): fields in order, a system's ``weighted_win_rate`` only with sampling probabilities."""
        out = asdict(self)
        out["pairs"] = list(out["pairs"])
        out["systems"] = list(out["systems"])
        if not self.sampling_probabilities:
            for row in out["systems"]:
                del row["weighted_win_rate"]
        return out


def _system(record: WinRate, strength=None, low=None, high=None) -> PairwiseSystem:
    """A system's record, with its strength and interval when there is a fit."""
    return PairwiseSystem(
        system=str(record.system),
        n=record.n,
        wins=record.wins,
        ties=record.ties,
        losses=record.losses,
        win_rate=num(record.win_rate),
        strength=num(strength),
        strength_ci=interval(low, high),
    )


def _strongest_first(row: PairwiseSystem) -> float:
    return -(row.strength if row.strength is not None else row.win_rate or 0.0)


def pairwise_criterion(
    frame,
    name: str,
    *,
    aggregate: str,
    weighting: str,
    ties: str,
    alpha: float,
    confidence: float,
    n_resamples: int,
    seed: int,
) -> PairwiseCriterion:
    """The results of one criterion's judgments (``frame``: evaluation.selectors.pairwise_frame's, of the
    criterion); the options as in ``ResultOptions``, ``weighting`` already resolved."""
    result = PairwiseCriterion(
        criterion=name,
        aggregate=aggregate,
        n_judgments=len(frame),
        n_items=len(set(frame.item.tolist())),
        n_raters=len(set(frame.rater.tolist())),
    )
    if not len(frame):
        return replace(result, error=NO_JUDGMENTS)
    first, second, outcome, units = frame.first, frame.second, frame.outcome, frame.item
    n_without_majority = 0
    if aggregate == "majority":
        units, votes = majority_outcomes(frame.outcome, units=frame.item)
        index = {item: k for k, item in enumerate(frame.item.tolist())}
        rows = np.array([index[u] for u in units.tolist()], dtype=int)
        decided = ~np.isnan(votes)
        n_without_majority = int((~decided).sum())
        first, second, outcome, units = (
            frame.first[rows][decided],
            frame.second[rows][decided],
            votes[decided],
            units[decided],
        )
    counted = pairwise_counts(first, second, outcome)
    adjusted = holm([p.sign_test_p for p in counted]) if counted else np.empty(0)
    pairs = tuple(
        SystemPair(
            system_a=str(p.system_a),
            system_b=str(p.system_b),
            n=p.n,
            wins=p.wins,
            ties=p.ties,
            losses=p.losses,
            win_rate=num(p.win_rate),
            sign_test_p=num(p.sign_test_p),
            p_holm=num(h),
            significant=bool(h < alpha),
        )
        for p, h in zip(counted, adjusted, strict=True)
    )
    result = replace(result, n_comparisons=len(outcome), n_without_majority=n_without_majority, pairs=pairs)
    if aggregate == "none" and frame.probability is not None and not np.isnan(frame.probability).all():
        return _weighted(frame, result, weighting=weighting, confidence=confidence)
    strengths = {}
    fit, error = None, None
    try:
        bt = bradley_terry(
            first,
            second,
            outcome,
            ties=ties,
            units=units,
            confidence=confidence,
            n_resamples=n_resamples,
            rng=generator(seed),
        )
    except InsufficientDataError as exc:
        error = str(exc)
    else:
        strengths = {
            s: (v, lo, hi) for s, v, lo, hi in zip(bt.systems, bt.strengths, bt.ci_low, bt.ci_high, strict=True)
        }
        fit = BradleyTerryFit.of(bt)
    systems = [_system(w, *strengths.get(w.system, (None, None, None))) for w in win_rates(first, second, outcome)]
    return replace(result, systems=tuple(sorted(systems, key=_strongest_first)), bradley_terry=fit, error=error)


def _weighted(frame, result: PairwiseCriterion, *, weighting: str, confidence: float) -> PairwiseCriterion:
    """Strengths and win rates of judgments drawn by adaptive allocation (q uniform over the pairs of the systems
    judged; a judgment without a recorded probability counts as drawn from q): the bias-reduced Bradley–Terry fit
    with each judgment weighted as ``weighting`` says (q / its sampling probability, its square root, or 1) and
    sandwich intervals, and Horvitz–Thompson win rates against an opponent drawn uniformly
    (evaluation.stats.adaptive_pairs). Ties count as half a win; intervals are Wald intervals, not resampled."""
    systems = sorted(set(frame.first.tolist()) | set(frame.second.tolist()))
    code = {s: i for i, s in enumerate(systems)}
    k = len(systems)
    first = np.array([code[s] for s in frame.first.tolist()], dtype=int)
    second = np.array([code[s] for s in frame.second.tolist()], dtype=int)
    probability = np.where(np.isnan(frame.probability), 2 / (k * (k - 1)) if k > 1 else 1.0, frame.probability)
    counted = {w.system: w for w in win_rates(frame.first, frame.second, frame.outcome)}
    rows = {s: _system(counted[s]) for s in systems}
    fit, error = None, None
    try:
        if k < 2:
            raise InsufficientDataError("a ranking needs two systems")
        estimate = ipw_bradley_terry(
            k, first, second, frame.outcome, probability, weighting=weighting, confidence=confidence
        )
        rates = ipw_win_rates(k, first, second, frame.outcome, probability)
    except InsufficientDataError as exc:
        error = str(exc)
    else:
        for s, i in code.items():
            rows[s] = replace(
                rows[s],
                strength=num(estimate.strengths[i]),
                strength_ci=interval(estimate.ci_low[i], estimate.ci_high[i]),
                weighted_win_rate=num(rates.system_win_rate[i]),
            )
        fit = BradleyTerryFit(
            ties="half",
            tie_parameter=None,
            log_likelihood=None,
            n_resamples=0,
            n_resamples_without_mle=0,
            scale=f"natural log-strength, mean zero; {WEIGHTING_WORDS[weighting]}, bias-reduced, "
            "sandwich (Wald) intervals",
        )
    return replace(
        result,
        systems=tuple(sorted(rows.values(), key=_strongest_first)),
        bradley_terry=fit,
        weighting=weighting,
        sampling_probabilities=True,
        error=error,
    )
