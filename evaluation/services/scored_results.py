"""Results of a scored criterion (likert, rankme, best–worst): each system's mean and median with bootstrap
intervals, and the significance of every difference between two systems; what the task type adds beside them (the
count of each scale point, mean ranks within screens, MaxDiff strengths) on the system's row."""

from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from annotation.task_types.facts import Results
from evaluation.stats import compare_systems, mean_ranks, score_distribution, system_scores

from ._common import generator, human_matrix, interval, normalised_values, num
from .best_worst_results import BestWorstResult, MaxDiffStrength, best_worst_results
from .result_options import CheckedResultOptions

NO_JUDGMENTS = "no judgments on this criterion yet"


@dataclass(frozen=True)
class SystemScore:
    """One system's scores on a criterion (of the normalised values), with bootstrap intervals over items."""

    system: str
    #: Judgments of the system.
    n: int
    n_items: int
    mean: float | None
    mean_ci: list[float | None]
    median: float | None
    median_ci: list[float | None]


@dataclass(frozen=True)
class SystemScoreCounts(SystemScore):
    """A system's scores with its judgments per scale point (likert)."""

    #: Judgments per value (the value as text, ``f"{v:g}"``).
    distribution: dict[str, int]


@dataclass(frozen=True)
class SystemScoreRank(SystemScore):
    """A system's scores with its mean rank within the screens it was on (rankme)."""

    #: 1 = best.
    mean_rank: float | None
    mean_rank_ci: list[float | None]


@dataclass(frozen=True)
class SystemScoreStrength(SystemScore):
    """A system's counting score (``mean``) with its MaxDiff strength (best–worst scaling, when it was fitted)."""

    #: MaxDiff natural log-strength, mean zero.
    strength: float | None
    strength_ci: list[float | None]


@dataclass(frozen=True)
class ScoreComparison:
    """The difference between two systems' means over the items both were judged on, and its significance."""

    system_a: str
    system_b: str
    #: mean(a) − mean(b) over shared items.
    difference: float | None
    n_items: int
    p_value: float | None
    #: Holm-adjusted across all pairs of the criterion.
    p_holm: float | None
    significant: bool


@dataclass(frozen=True)
class ScoredCriterion:
    """The results of one criterion of a scored project."""

    criterion: str
    #: How values were normalised before scoring (e.g. "none", "zscore").
    normalisation: str
    n_judgments: int
    n_items: int
    n_raters: int
    #: Best mean first.
    systems: tuple[SystemScore, ...] = ()
    #: Every pair of systems; none when significance was not asked for (``test_resamples`` 0) or with one system.
    comparisons: tuple[ScoreComparison, ...] = ()
    error: str | None = None

    def to_json(self) -> dict:
        """The criterion as the results were written in JSON before they were typed (the profile breakdown's
        answer): fields in order, a system's extra figures only where the task type gives them."""
        out = asdict(self)
        out["systems"] = list(out["systems"])
        out["comparisons"] = list(out["comparisons"])
        return out


@dataclass(frozen=True)
class BestWorstCriterion(ScoredCriterion):
    """A best–worst criterion with judgments: the counting scores and the best–worst figures beside them."""

    best_worst: BestWorstResult | None = None

    def to_json(self) -> dict:
        out = super().to_json()
        maxdiff = out["best_worst"] and out["best_worst"]["maxdiff"]
        if maxdiff and maxdiff["weighting"] is None:
            del maxdiff["weighting"]  # only the weighted fit names its weighting
        return out


def scored_criterion(frame, name: str, results: Results, options: CheckedResultOptions) -> ScoredCriterion:
    """The results of one criterion's judgments (``frame``: evaluation.selectors.rating_frame's, of the
    criterion), computed as the task type's ``results`` say, with checked ``ResultOptions``."""
    result = ScoredCriterion(
        criterion=name,
        normalisation=options.normalisation,
        n_judgments=len(frame),
        n_items=len(set(frame.item.tolist())),
        n_raters=len(set(frame.rater.tolist())),
    )
    if not len(frame):
        return replace(result, error=NO_JUDGMENTS)
    values = normalised_values(frame, options.normalisation)
    rng = generator(options.seed)
    scores = system_scores(
        values,
        systems=frame.system,
        units=frame.item,
        confidence=options.confidence,
        n_resamples=options.n_resamples,
        rng=rng,
        method=options.interval,
    )
    distribution = score_distribution(frame.value, systems=frame.system) if results.score_distribution else {}
    ranks = {}
    if results.mean_ranks:
        screens = np.array([f"{r}:{i}" for r, i in zip(frame.rater.tolist(), frame.item.tolist(), strict=True)])
        ranks = {
            r.system: r
            for r in mean_ranks(
                frame.value,
                systems=frame.system,
                screens=screens,
                confidence=options.confidence,
                n_resamples=options.n_resamples,
                rng=rng,
            )
        }
    best_worst = None
    if results.best_worst:
        best_worst = best_worst_results(
            frame,
            confidence=options.confidence,
            n_resamples=options.n_resamples,
            seed=options.seed,
            weighting=options.weighting,
        )
    systems: list[SystemScore] = []
    for s in sorted(scores, key=lambda s: -s.mean):
        row = SystemScore(
            system=str(s.system),
            n=s.n,
            n_items=s.n_units,
            mean=num(s.mean),
            mean_ci=interval(*s.mean_ci),
            median=num(s.median),
            median_ci=interval(*s.median_ci),
        )
        # each task type asks for one of these at most
        if distribution:
            counts = {f"{v:g}": c for v, c in distribution[s.system].items()}
            row = SystemScoreCounts(**asdict(row), distribution=counts)
        elif best_worst and best_worst.maxdiff:
            fit = best_worst.maxdiff.systems.get(str(s.system), MaxDiffStrength(None, [None, None]))
            row = SystemScoreStrength(**asdict(row), strength=fit.strength, strength_ci=fit.strength_ci)
        elif s.system in ranks:
            rank = ranks[s.system]
            row = SystemScoreRank(
                **asdict(row), mean_rank=num(rank.mean_rank), mean_rank_ci=interval(*rank.mean_rank_ci)
            )
        systems.append(row)
    result = replace(result, systems=tuple(systems))
    _, names, matrix = human_matrix(frame, values)
    if options.test_resamples and len(names) > 1:
        comparisons = compare_systems(
            matrix,
            systems=names,
            test=options.test,
            alpha=options.alpha,
            n_resamples=options.test_resamples,
            rng=rng,
        )
        result = replace(
            result,
            comparisons=tuple(
                ScoreComparison(
                    system_a=str(c.system_a),
                    system_b=str(c.system_b),
                    difference=num(c.difference),
                    n_items=c.n_units,
                    p_value=num(c.p_value),
                    p_holm=num(c.p_holm),
                    significant=c.significant,
                )
                for c in comparisons
            ),
        )
    if best_worst is None:
        return result
    return BestWorstCriterion(**{f.name: getattr(result, f.name) for f in fields(result)}, best_worst=best_worst)
