"""A pairwise project's leaderboard checks, per criterion: its integrity (for each pair of neighbours in the
Bradley–Terry ranking, how many judgments removed would swap them; provisional while a system has fewer
judgments than the lead's ``min_judgments_per_system``) and, on request, the ranking controlled for style
(length and formatting of each side, as in Chatbot Arena's style control).

Both refit the model many times, so an answer is cached until the project's judgments change (the key holds
the judgments' count and newest id, the raters quality control excludes, and the options): a lead opening the
page again, or the API asked twice, costs one look-up. Integrity reads the judgments as they are, unweighted: it
asks how many of them carry the order.
"""

from dataclasses import dataclass

import numpy as np
from django.core.cache import cache

from annotation.models import Output, Project
from evaluation.selectors import pairwise_frame
from evaluation.selectors.judgment_mark import judgment_mark
from evaluation.stats import (
    STYLE_FEATURES,
    InsufficientDataError,
    bradley_terry_style,
    leaderboard_integrity,
    style_features,
)

from ._common import generator, interval, num

# A search that needs more removals than this for one pair reports "more than" it (each removal is a refit).
MAX_REMOVALS = 200
CACHE_SECONDS = 24 * 60 * 60


@dataclass(frozen=True)
class LeaderboardOptions:
    style: bool = False
    n_resamples: int = 200
    confidence: float = 0.95
    seed: int = 0


@dataclass(frozen=True)
class RankedSystem:
    """A system in the Bradley–Terry ranking the integrity is checked on (ties as half-wins, unweighted)."""

    system: str
    #: Natural log-strength, mean zero.
    strength: float | None
    #: Judgments the system took part in.
    judgments: int


@dataclass(frozen=True)
class Margin:
    """Two neighbours in the ranking and how firmly the upper one stays above."""

    upper: str
    lower: str
    #: Their difference in strength.
    gap: float | None
    #: Judgments a greedy search removed before they swapped (an upper bound on the fewest); None: more than
    #: ``MAX_REMOVALS``.
    removals_to_flip: int | None


@dataclass(frozen=True)
class Integrity:
    """A criterion's ranking with its margins; provisional while a system has fewer judgments than the lead's
    minimum."""

    provisional: bool
    #: The systems under the minimum.
    under_minimum: list[str]
    #: Best first.
    systems: list[RankedSystem]
    #: One per pair of neighbours, best first.
    margins: list[Margin]


@dataclass(frozen=True)
class StyleSystem:
    system: str
    #: Log-strength once style is accounted for, mean zero.
    strength: float | None
    #: Percentile bootstrap interval ``[low, high]``.
    strength_ci: list[float | None]


@dataclass(frozen=True)
class StyleCoefficient:
    """The change in log-odds of winning per standard deviation of the sides' normalised difference in a
    feature."""

    feature: str
    coefficient: float | None
    ci: list[float | None]


@dataclass(frozen=True)
class StyleRanking:
    """The ranking controlled for style (Chatbot Arena's style control); ``error`` says why there is none."""

    error: str | None
    #: Features that never differ between the sides, or move with one kept before them.
    left_out: list[str]
    #: Best first.
    systems: list[StyleSystem]
    coefficients: list[StyleCoefficient]


@dataclass(frozen=True)
class LeaderboardCriterion:
    criterion: str
    #: None when the ranking could not be fitted (``error`` says why).
    integrity: Integrity | None
    #: None unless asked for.
    style: StyleRanking | None
    error: str | None


@dataclass(frozen=True)
class Leaderboard:
    project: int
    min_judgments_per_system: int
    max_removals: int
    criteria: list[LeaderboardCriterion]


def pairwise_leaderboard(*, project: Project, options: LeaderboardOptions | None = None) -> Leaderboard:
    """Integrity (and with ``options.style`` the style-controlled ranking) of every criterion; cached until a
    judgment comes in."""
    options = options or LeaderboardOptions()
    minimum = (project.task_config or {}).get("min_judgments_per_system", 0)
    mark = judgment_mark(project)
    excluded = ",".join(map(str, mark.excluded))
    key = (  # v2: the answer is a Leaderboard, not the dictionary of earlier releases
        f"leaderboard:v2:{project.pk}:{mark.n_judgments}:{mark.through}:{excluded}:{minimum}:{int(options.style)}:{options.n_resamples}:"
        f"{options.confidence}:{options.seed}"
    )
    found = cache.get(key)
    if found is not None:
        return found
    frame = pairwise_frame(project)
    texts = _texts(project) if options.style else {}
    body = Leaderboard(
        project=project.pk,
        min_judgments_per_system=minimum,
        max_removals=MAX_REMOVALS,
        criteria=[_criterion(frame.for_criterion(name), name, minimum, texts, options) for name in frame.criteria],
    )
    cache.set(key, body, CACHE_SECONDS)
    return body


def _texts(project: Project) -> dict[tuple[str, str], str]:
    """Each output's text by (item external id, system)."""
    return {
        (item, system): text
        for item, system, text in Output.objects.filter(item__project=project)
        .values_list("item__external_id", "system", "text")
        .iterator(chunk_size=20_000)
    }


def _criterion(frame, name: str, minimum: int, texts: dict, options: LeaderboardOptions) -> LeaderboardCriterion:
    if not len(frame):
        return LeaderboardCriterion(name, None, None, "no judgments on this criterion yet")
    try:
        result = leaderboard_integrity(
            frame.first, frame.second, frame.outcome, min_judgments=minimum, max_removals=MAX_REMOVALS
        )
    except InsufficientDataError as exc:
        return LeaderboardCriterion(name, None, None, str(exc))
    integrity = Integrity(
        provisional=result.provisional,
        under_minimum=list(result.under_minimum),
        systems=[
            RankedSystem(s, num(v), n)
            for s, v, n in zip(result.ranking, result.strengths, result.judgments, strict=True)
        ],
        margins=[Margin(str(m.upper), str(m.lower), num(m.gap), m.removals_to_flip) for m in result.margins],
    )
    return LeaderboardCriterion(name, integrity, _style(frame, texts, options) if options.style else None, None)


def _estimable(first: np.ndarray, second: np.ndarray) -> list[int]:
    """The style features that can be estimated together: those whose normalised difference between the sides
    varies (plain text has no headers) and is not a linear combination of the ones kept before it (a list item
    that always comes with bold text)."""
    total = first + second
    share = np.divide(first - second, total, out=np.zeros_like(total), where=total > 0)
    share = share - share.mean(axis=0)
    kept: list[int] = []
    for f in range(share.shape[1]):
        if np.linalg.matrix_rank(share[:, [*kept, f]]) == len(kept) + 1:
            kept.append(f)
    return kept


def _style(frame, texts: dict, options: LeaderboardOptions) -> StyleRanking:
    first = style_features([texts[(i, s)] for i, s in zip(frame.item.tolist(), frame.first.tolist(), strict=True)])
    second = style_features([texts[(i, s)] for i, s in zip(frame.item.tolist(), frame.second.tolist(), strict=True)])
    used = _estimable(first, second)
    left_out = [f for k, f in enumerate(STYLE_FEATURES) if k not in used]
    if not used:
        return StyleRanking("no style feature differs between the sides", left_out, [], [])
    try:
        fit = bradley_terry_style(
            frame.first,
            frame.second,
            frame.outcome,
            first[:, used],
            second[:, used],
            feature_names=[STYLE_FEATURES[f] for f in used],
            units=frame.item,
            confidence=options.confidence,
            n_resamples=options.n_resamples,
            rng=generator(options.seed),
        )
    except InsufficientDataError as exc:
        return StyleRanking(str(exc), left_out, [], [])
    order = np.argsort(-np.array(fit.strengths), kind="stable")
    return StyleRanking(
        error=None,
        left_out=left_out,
        systems=[
            StyleSystem(fit.systems[r], num(fit.strengths[r]), interval(fit.ci_low[r], fit.ci_high[r])) for r in order
        ],
        coefficients=[
            StyleCoefficient(f, num(c), interval(lo, hi))
            for f, c, lo, hi in zip(
                fit.features, fit.coefficients, fit.coefficient_ci_low, fit.coefficient_ci_high, strict=True
            )
        ],
    )
