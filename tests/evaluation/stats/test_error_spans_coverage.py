"""Coverage of the bootstrap intervals of MQM system scores (rank_systems over mqm_scores' segment
scores) by simulation, where each system's population MQM is known in closed form."""

import numpy as np
from scipy import stats

from evaluation.stats import mqm_scores, rank_systems

# Each error is major (weight 5) with probability .25, minor punctuation (0.1) with .15, another minor (1)
# otherwise, so a segment with Poisson(rate) errors has expected MQM rate * MEAN_WEIGHT.
MEAN_WEIGHT = 0.25 * 5 + 0.15 * 0.1 + 0.60 * 1
# Errors per segment of each system in each domain (the system score is the mean over domains).
RATES = {"A": {"news": 0.4, "chat": 1.0}, "B": {"news": 1.2, "chat": 1.6}}
SEGMENTS = {"news": 90, "chat": 40}
# 400 studies: coverage is estimated with a standard error of sqrt(.95 * .05 / 400) = 1.1 points, and
# the band below (99.8% of a correct method's outcomes, about 92-98%) fails an interval covering 89%.
REPETITIONS = 400


def coverage_band(repetitions, level=0.95, tail=0.001):
    return tuple(stats.binom.ppf([tail, 1 - tail], repetitions, level) / repetitions)


def simulated_rows(rng):
    """One MQM row per error, a No-error row for a segment without errors; one rater per segment."""
    rows = []
    for system, rates in RATES.items():
        for domain, rate in rates.items():
            for seg, k in enumerate(rng.poisson(rate, SEGMENTS[domain])):
                key = (system, f"{domain}-{seg}", domain)
                if k == 0:
                    rows.append((*key, "No-error", "No-error"))
                for u in rng.random(k):
                    if u < 0.25:
                        rows.append((*key, "Major", "Accuracy/Mistranslation"))
                    elif u < 0.40:
                        rows.append((*key, "Minor", "Fluency/Punctuation"))
                    else:
                        rows.append((*key, "Minor", "Style/Awkward"))
    return list(zip(*rows, strict=True))


def test_system_score_intervals_cover_the_population_mqm_at_the_nominal_rate():
    # Given 400 simulated studies, each scored and ranked with a 400-replicate bootstrap
    truth = {s: MEAN_WEIGHT * np.mean(list(r.values())) for s, r in RATES.items()}
    rng = np.random.default_rng(3)
    hits = dict.fromkeys(RATES, 0)
    for _ in range(REPETITIONS):
        system, segment, domain, severity, category = simulated_rows(rng)
        scores = mqm_scores(system, segment, ["r"] * len(system), severity, category)
        seg_domain = [s.split("-")[0] for s in scores.segment]
        ranking = rank_systems(
            scores.segment_system,
            scores.segment,
            scores.segment_score,
            domain=seg_domain,
            higher_is_better=False,
            rng=rng,
            n_resamples=400,
        )
        for row in ranking.systems:
            hits[row.system] += row.ci_low <= truth[row.system] <= row.ci_high
    # Then each system's interval covers its population MQM at about 95%
    low, high = coverage_band(REPETITIONS)
    coverage = {s: n / REPETITIONS for s, n in hits.items()}
    assert all(low <= c <= high for c in coverage.values()), (coverage, (low, high))
