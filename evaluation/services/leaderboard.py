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


def pairwise_leaderboard(*, project: Project, options: LeaderboardOptions | None = None) -> dict:
    """Integrity (and with ``options.style`` the style-controlled ranking) of every criterion; cached until a
    judgment comes in."""
    options = options or LeaderboardOptions()
    minimum = (project.task_config or {}).get("min_judgments_per_system", 0)
    mark = judgment_mark(project)
    excluded = ",".join(map(str, mark.excluded))
    key = (
        f"leaderboard:{project.pk}:{mark.n_judgments}:{mark.through}:{excluded}:{minimum}:{int(options.style)}:{options.n_resamples}:"
        f"{options.confidence}:{options.seed}"
    )
    found = cache.get(key)
    if found is not None:
        return found
    frame = pairwise_frame(project)
    texts = _texts(project) if options.style else {}
    body = {
        "project": project.pk,
        "min_judgments_per_system": minimum,
        "max_removals": MAX_REMOVALS,
        "criteria": [_criterion(frame.for_criterion(name), name, minimum, texts, options) for name in frame.criteria],
    }
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


def _criterion(frame, name: str, minimum: int, texts: dict, options: LeaderboardOptions) -> dict:
    out = {"criterion": name, "integrity": None, "style": None, "error": None}
    if not len(frame):
        out["error"] = "no judgments on this criterion yet"
        return out
    try:
        result = leaderboard_integrity(
            frame.first, frame.second, frame.outcome, min_judgments=minimum, max_removals=MAX_REMOVALS
        )
    except InsufficientDataError as exc:
        out["error"] = str(exc)
        return out
    out["integrity"] = {
        "provisional": result.provisional,
        "under_minimum": list(result.under_minimum),
        "systems": [
            {"system": s, "strength": num(v), "judgments": n}
            for s, v, n in zip(result.ranking, result.strengths, result.judgments, strict=True)
        ],
        "margins": [
            {"upper": m.upper, "lower": m.lower, "gap": num(m.gap), "removals_to_flip": m.removals_to_flip}
            for m in result.margins
        ],
    }
    if options.style:
        out["style"] = _style(frame, texts, options)
    return out


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


def _style(frame, texts: dict, options: LeaderboardOptions) -> dict:
    first = style_features([texts[(i, s)] for i, s in zip(frame.item.tolist(), frame.first.tolist(), strict=True)])
    second = style_features([texts[(i, s)] for i, s in zip(frame.item.tolist(), frame.second.tolist(), strict=True)])
    used = _estimable(first, second)
    left_out = [f for k, f in enumerate(STYLE_FEATURES) if k not in used]
    if not used:
        return {
            "error": "no style feature differs between the sides",
            "systems": [],
            "coefficients": [],
            "left_out": left_out,
        }
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
        return {"error": str(exc), "systems": [], "coefficients": [], "left_out": left_out}
    order = np.argsort(-np.array(fit.strengths), kind="stable")
    return {
        "error": None,
        "left_out": left_out,
        "systems": [
            {
                "system": fit.systems[r],
                "strength": num(fit.strengths[r]),
                "strength_ci": interval(fit.ci_low[r], fit.ci_high[r]),
            }
            for r in order
        ],
        "coefficients": [
            {"feature": f, "coefficient": num(c), "ci": interval(lo, hi)}
            for f, c, lo, hi in zip(
                fit.features, fit.coefficients, fit.coefficient_ci_low, fit.coefficient_ci_high, strict=True
            )
        ],
    }
