"""The alternative annotator test on real data: HANNA's three raters per story and its five LLM
judges (Chhun et al.), each criterion, against the loop-by-loop reference of the published procedure.

HANNA's raters agree little (ICC(1,1) about 0.1-0.3): on such data a judge that always answers 3
represents two raters better than the third does, and passes at the skilled-rater margin. That is why
the judges page runs the same constant judge beside every judge and says so when it passes."""

import csv

import numpy as np
import pytest

from evaluation.stats import alt_test
from tests.evaluation.stats.test_alt_test import reference_alt_test

from .loaders import HANNA_CODES, HANNA_LLMS, hanna_table


def _hanna(datasets):
    table = hanna_table(datasets)
    systems = [row["Model"] for row in table]
    humans = {c: np.full((3, 96 * len(systems)), np.nan) for c in HANNA_CODES.values()}
    with open(datasets / "hanna_story_eval" / "hanna_ratings_long.csv", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            humans[r["criterion"]][int(r["rater_slot"]) - 1, int(r["story_id"])] = float(r["score"])
    judges = {
        (llm, name): np.array(
            [
                v if 1 <= (v := table[story // 96][f"{llm} {code} 1"][story % 96]) <= 5 else np.nan
                for story in range(96 * len(systems))
            ]
        )
        for llm in HANNA_LLMS
        for code, name in HANNA_CODES.items()
    }
    return humans, judges


def test_hanna_llm_judges_follow_the_published_procedure(datasets):
    humans, judges = _hanna(datasets)
    verdicts = {}
    for (llm, criterion), judge in judges.items():
        (r,) = alt_test(humans[criterion], judge, alignment="neg_rmse", epsilon=0.15)
        omega, rho, p = reference_alt_test(humans[criterion], judge, "neg_rmse", 0.15, 0.05, 30)
        assert r.n_raters == 3 and r.n_items == int((~np.isnan(judge)).sum()), (llm, criterion)
        assert (r.winning_rate, r.advantage_probability) == pytest.approx((omega, rho)), (llm, criterion)
        np.testing.assert_allclose([c.p_value for c in r.comparisons], p)
        verdicts[llm, criterion] = r.passed
    assert len(verdicts) == 30 and 0 < sum(verdicts.values()) < 30
    for criterion, ratings in humans.items():
        (blind,) = alt_test(ratings, np.full(ratings.shape[1], 3.0), alignment="neg_rmse", epsilon=0.15)
        assert blind.passed and blind.advantage_probability > 0.7, criterion
