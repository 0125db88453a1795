"""System-level results of a project: per-system scores with intervals and significance (likert,
rankme; best–worst counting scores with MaxDiff strengths and split-half reliability), win/tie/lose tables,
sign tests and Bradley–Terry strengths (pairwise), error-span scores and
WMT's ranking (esa, mqm: ``error_span_results``)."""

from dataclasses import asdict, dataclass, replace

import numpy as np

from annotation.models import Criterion, Item, Project
from annotation.selectors.error_spans import span_ratings
from annotation.task_types import REGISTRY
from annotation.task_types.adaptive import DEFAULT_WEIGHTING, adaptive_settings
from annotation.task_types.facts import COMPARED, ERROR_SPANS
from evaluation.selectors import exclusion_counts, pairwise_frame, rating_frame, retired_item_counts
from evaluation.selectors.ratings import turn_means
from evaluation.stats import (
    INTERVAL_METHODS,
    WEIGHTINGS,
    InsufficientDataError,
    bradley_terry,
    compare_systems,
    holm,
    ipw_bradley_terry,
    ipw_win_rates,
    majority_outcomes,
    mean_ranks,
    pairwise_counts,
    score_distribution,
    system_scores,
    win_rates,
)

from ._common import (
    MAX_RESAMPLES,
    WEIGHTING_WORDS,
    default_normalisation,
    generator,
    human_matrix,
    interval,
    normalised_values,
    num,
)
from .best_worst_results import best_worst_results
from .error_span_results import SpanResultOptions, SpanScoring, error_span_criterion
from .vote_results import vote_results


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

    def checked(self, project: Project) -> "ResultOptions":
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
        return replace(self, normalisation=normalisation, weighting=weighting)


def results_compute(
    *, project: Project, options: ResultOptions | None = None, raters: frozenset[int] | None = None
) -> dict:
    """Results of every criterion of the project, from the included judgments only (see
    ``evaluation.selectors.included_judgments``), of ``raters`` (user ids) only when given. Raises ValueError
    for bad options."""
    options = (options or ResultOptions()).checked(project)
    body = {
        "project": project.id,
        "task_type": project.task_type,
        "options": asdict(options),
        "excluded": exclusion_counts(project),
        "retired": retired_item_counts(project),
    }
    kind = REGISTRY[project.task_type].results.kind
    if kind == ERROR_SPANS:
        body["criteria"] = _error_span_criteria(project, options, raters)
        body["n_judgments"] = sum(c["n_judgments"] for c in body["criteria"])
        return body
    if kind == COMPARED:
        frame = pairwise_frame(project)
        if raters is not None:
            frame = frame.where(np.isin(frame.rater, sorted(raters)))
        body["criteria"] = [_pairwise_criterion(frame.for_criterion(c), c, options) for c in frame.criteria]
        if raters is None:
            # Imported votes are ranked apart from the judgments (a finished study's; see VoteImport).
            body["votes"] = vote_results(
                project=project,
                ties=options.ties,
                confidence=options.confidence,
                n_resamples=options.n_resamples,
                seed=options.seed,
                weighting=options.weighting,
            )
    else:
        frame = rating_frame(project)
        if raters is not None:
            frame = frame.where(np.isin(frame.rater, sorted(raters)))
        body["criteria"] = [_rating_criterion(frame.for_criterion(c), c, project, options) for c in frame.criteria]
        if project.rating_unit != Project.RatingUnit.CONVERSATION:
            body["turns"] = turn_means(project, raters=raters)
    body["n_judgments"] = len(frame)
    return body


def span_scoring(project: Project) -> SpanScoring:
    """How the project's task type scores spans, with the weights of the project's settings."""
    task_type = REGISTRY[project.task_type]
    config = project.task_config or {}
    weight = task_type.span_weigher(config)
    return SpanScoring(task_type.results.higher_is_better, weight, config.get("weights") if weight else None)


def _error_span_criteria(project: Project, options: ResultOptions, raters: frozenset[int] | None) -> list[dict]:
    scoring = span_scoring(project)
    span_options = SpanResultOptions(
        confidence=options.confidence,
        n_resamples=options.n_resamples,
        seed=options.seed,
        alpha=options.alpha,
        segments=options.segments,
    )
    criteria = []
    for criterion_id, name in (
        Criterion.objects.filter(project=project).order_by("position", "id").values_list("id", "name")
    ):
        ratings = span_ratings(project.id, criterion_id=criterion_id, included_only=True)
        if raters is not None:
            ratings = ratings.of_raters(raters)
        criteria.append(error_span_criterion(ratings, name, scoring, span_options))
    if options.segments:
        names = dict(Item.objects.filter(project=project).values_list("id", "external_id").iterator(chunk_size=20_000))
        for criterion in criteria:
            for row in criterion.get("segments", []):
                row["item"] = names[row["item"]]
    return criteria


def _rating_criterion(frame, name: str, project: Project, options: ResultOptions) -> dict:
    out = {
        "criterion": name,
        "normalisation": options.normalisation,
        "n_judgments": len(frame),
        "n_items": len(set(frame.item.tolist())),
        "n_raters": len(set(frame.rater.tolist())),
        "systems": [],
        "comparisons": [],
        "error": None,
    }
    if not len(frame):
        out["error"] = "no judgments on this criterion yet"
        return out
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
    results = REGISTRY[project.task_type].results
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
        out["best_worst"] = best_worst
    for s in sorted(scores, key=lambda s: -s.mean):
        row = {
            "system": s.system,
            "n": s.n,
            "n_items": s.n_units,
            "mean": num(s.mean),
            "mean_ci": interval(*s.mean_ci),
            "median": num(s.median),
            "median_ci": interval(*s.median_ci),
        }
        if distribution:
            row["distribution"] = {f"{v:g}": c for v, c in distribution[s.system].items()}
        if best_worst and best_worst["maxdiff"]:
            row.update(best_worst["maxdiff"]["systems"].get(s.system, {"strength": None, "strength_ci": [None, None]}))
        if s.system in ranks:
            row["mean_rank"] = num(ranks[s.system].mean_rank)
            row["mean_rank_ci"] = interval(*ranks[s.system].mean_rank_ci)
        out["systems"].append(row)
    _, systems, matrix = human_matrix(frame, values)
    if options.test_resamples and len(systems) > 1:
        comparisons = compare_systems(
            matrix,
            systems=systems,
            test=options.test,
            alpha=options.alpha,
            n_resamples=options.test_resamples,
            rng=rng,
        )
        out["comparisons"] = [
            {
                "system_a": c.system_a,
                "system_b": c.system_b,
                "difference": num(c.difference),
                "n_items": c.n_units,
                "p_value": num(c.p_value),
                "p_holm": num(c.p_holm),
                "significant": c.significant,
            }
            for c in comparisons
        ]
    return out


def _pairwise_criterion(frame, name: str, options: ResultOptions) -> dict:
    out = {
        "criterion": name,
        "aggregate": options.aggregate,
        "n_judgments": len(frame),
        "n_items": len(set(frame.item.tolist())),
        "n_raters": len(set(frame.rater.tolist())),
        "n_comparisons": 0,
        "n_without_majority": 0,
        "pairs": [],
        "systems": [],
        "bradley_terry": None,
        "weighting": "none",
        "sampling_probabilities": False,
        "error": None,
    }
    if not len(frame):
        out["error"] = "no judgments on this criterion yet"
        return out
    first, second, outcome, units = frame.first, frame.second, frame.outcome, frame.item
    weighted = options.aggregate == "none" and frame.probability is not None and not np.isnan(frame.probability).all()
    if options.aggregate == "majority":
        units, votes = majority_outcomes(frame.outcome, units=frame.item)
        index = {item: k for k, item in enumerate(frame.item.tolist())}
        rows = np.array([index[u] for u in units.tolist()], dtype=int)
        decided = ~np.isnan(votes)
        out["n_without_majority"] = int((~decided).sum())
        first, second, outcome, units = (
            frame.first[rows][decided],
            frame.second[rows][decided],
            votes[decided],
            units[decided],
        )
    out["n_comparisons"] = len(outcome)
    pairs = pairwise_counts(first, second, outcome)
    adjusted = holm([p.sign_test_p for p in pairs]) if pairs else []
    out["pairs"] = [
        {
            "system_a": p.system_a,
            "system_b": p.system_b,
            "n": p.n,
            "wins": p.wins,
            "ties": p.ties,
            "losses": p.losses,
            "win_rate": num(p.win_rate),
            "sign_test_p": num(p.sign_test_p),
            "p_holm": num(h),
            "significant": bool(h < options.alpha),
        }
        for p, h in zip(pairs, adjusted, strict=True)
    ]
    strengths = {}
    if weighted:
        return _weighted(out, frame, options)
    try:
        bt = bradley_terry(
            first,
            second,
            outcome,
            ties=options.ties,
            units=units,
            confidence=options.confidence,
            n_resamples=options.n_resamples,
            rng=generator(options.seed),
        )
    except InsufficientDataError as exc:
        out["error"] = str(exc)
    else:
        strengths = {
            s: (v, lo, hi) for s, v, lo, hi in zip(bt.systems, bt.strengths, bt.ci_low, bt.ci_high, strict=True)
        }
        out["bradley_terry"] = {
            "ties": bt.ties,
            "tie_parameter": num(bt.tie_parameter),
            "log_likelihood": num(bt.log_likelihood),
            "n_resamples": bt.n_resamples,
            "n_resamples_without_mle": bt.n_resamples_without_mle,
            "scale": "natural log-strength, mean zero",
        }
    rows = []
    for w in win_rates(first, second, outcome):
        v, lo, hi = strengths.get(w.system, (None, None, None))
        rows.append(
            {
                "system": w.system,
                "n": w.n,
                "wins": w.wins,
                "ties": w.ties,
                "losses": w.losses,
                "win_rate": num(w.win_rate),
                "strength": num(v),
                "strength_ci": interval(lo, hi),
            }
        )
    out["systems"] = sorted(rows, key=lambda r: -(r["strength"] if r["strength"] is not None else r["win_rate"]))
    return out


def _weighted(out: dict, frame, options: ResultOptions) -> dict:
    """Strengths and win rates of judgments drawn by adaptive allocation (q uniform over the pairs of the systems
    judged; a judgment without a recorded probability counts as drawn from q): the bias-reduced Bradley–Terry fit
    with each judgment weighted as ``options.weighting`` says (q / its sampling probability, its square root, or
    1) and sandwich intervals, and Horvitz–Thompson win rates against an opponent drawn uniformly
    (evaluation.stats.adaptive_pairs). Ties count as half a win; intervals are Wald intervals, not resampled."""
    systems = sorted(set(frame.first.tolist()) | set(frame.second.tolist()))
    code = {s: i for i, s in enumerate(systems)}
    k = len(systems)
    first = np.array([code[s] for s in frame.first.tolist()], dtype=int)
    second = np.array([code[s] for s in frame.second.tolist()], dtype=int)
    probability = np.where(np.isnan(frame.probability), 2 / (k * (k - 1)) if k > 1 else 1.0, frame.probability)
    out["weighting"] = options.weighting
    out["sampling_probabilities"] = True
    counted = {w.system: w for w in win_rates(frame.first, frame.second, frame.outcome)}
    rows = {
        s: {
            "system": s,
            "n": counted[s].n,
            "wins": counted[s].wins,
            "ties": counted[s].ties,
            "losses": counted[s].losses,
            "win_rate": num(counted[s].win_rate),
            "strength": None,
            "strength_ci": interval(None, None),
            "weighted_win_rate": None,
        }
        for s in systems
    }
    try:
        if k < 2:
            raise InsufficientDataError("a ranking needs two systems")
        fit = ipw_bradley_terry(
            k, first, second, frame.outcome, probability, weighting=options.weighting, confidence=options.confidence
        )
        rates = ipw_win_rates(k, first, second, frame.outcome, probability)
    except InsufficientDataError as exc:
        out["error"] = str(exc)
    else:
        for s, i in code.items():
            rows[s].update(
                strength=num(fit.strengths[i]),
                strength_ci=interval(fit.ci_low[i], fit.ci_high[i]),
                weighted_win_rate=num(rates.system_win_rate[i]),
            )
        out["bradley_terry"] = {
            "ties": "half",
            "tie_parameter": None,
            "log_likelihood": None,
            "n_resamples": 0,
            "n_resamples_without_mle": 0,
            "scale": f"natural log-strength, mean zero; {WEIGHTING_WORDS[options.weighting]}, bias-reduced, "
            "sandwich (Wald) intervals",
        }
    out["systems"] = sorted(
        rows.values(), key=lambda r: -(r["strength"] if r["strength"] is not None else r["win_rate"])
    )
    return out
