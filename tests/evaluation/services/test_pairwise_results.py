"""pairwise_results: a criterion's typed results keep the JSON form the profile breakdown answers in (fields in
order, a system's weighted win rate only when judgments carry sampling probabilities)."""

import json

from evaluation.services.pairwise_results import BradleyTerryFit, PairwiseCriterion, PairwiseSystem, SystemPair

PAIR = SystemPair("a", "b", 3, 2, 0, 1, 2 / 3, 1.0, 1.0, False)
FIT = BradleyTerryFit("half", None, -1.5, 10, 0, "natural log-strength, mean zero")


def criterion(**changes) -> PairwiseCriterion:
    systems = (
        PairwiseSystem("a", 3, 2, 0, 1, 2 / 3, 0.35, [0.1, 0.6], **changes),
        PairwiseSystem("b", 3, 1, 0, 2, 1 / 3, -0.35, [-0.6, -0.1], **changes),
    )
    return PairwiseCriterion("overall", "none", 3, 3, 2, 3, 0, (PAIR,), systems, FIT)


def test_the_json_form_is_the_untyped_one():
    out = criterion().to_json()
    assert json.loads(json.dumps(out)) == out
    assert list(out) == [
        "criterion",
        "aggregate",
        "n_judgments",
        "n_items",
        "n_raters",
        "n_comparisons",
        "n_without_majority",
        "pairs",
        "systems",
        "bradley_terry",
        "weighting",
        "sampling_probabilities",
        "error",
    ]
    assert out["systems"][0] == {
        "system": "a",
        "n": 3,
        "wins": 2,
        "ties": 0,
        "losses": 1,
        "win_rate": 2 / 3,
        "strength": 0.35,
        "strength_ci": [0.1, 0.6],
    }
    assert out["pairs"] == [
        {
            "system_a": "a",
            "system_b": "b",
            "n": 3,
            "wins": 2,
            "ties": 0,
            "losses": 1,
            "win_rate": 2 / 3,
            "sign_test_p": 1.0,
            "p_holm": 1.0,
            "significant": False,
        }
    ]
    assert list(out["bradley_terry"]) == [
        "ties",
        "tie_parameter",
        "log_likelihood",
        "n_resamples",
        "n_resamples_without_mle",
        "scale",
    ]


def test_weighted_win_rates_appear_with_sampling_probabilities_only():
    weighted = PairwiseCriterion(**{**vars(criterion(weighted_win_rate=0.5)), "sampling_probabilities": True})
    assert [s["weighted_win_rate"] for s in weighted.to_json()["systems"]] == [0.5, 0.5]
    assert all("weighted_win_rate" not in s for s in criterion().to_json()["systems"])
