"""Post-stratified means: a hand-computed case, an independent groupby computation on random data, the written
policy for bad weights and empty strata, and the intervals' coverage by simulation."""

import numpy as np
import pandas as pd
import pytest

from evaluation.stats import InsufficientDataError, post_stratified_means


def test_a_hand_computed_case():
    # A: "en" raters gave 4, 2, 4, 2 (mean 3), the "de" rater 5, 5 (mean 5); B: 2, 1, 2, 1 (1.5) and 5, 3 (4).
    values = [4, 2, 4, 2, 5, 5, 2, 1, 2, 1, 5, 3]
    systems = ["A"] * 6 + ["B"] * 6
    strata = ["en", "en", "en", "en", "de", "de"] * 2
    units = [1, 2, 1, 2, 1, 2] * 2

    a, b = post_stratified_means(
        values, systems=systems, strata=strata, units=units, weights={"en": 0.5, "de": 0.5}, n_resamples=0
    )

    assert (a.system, a.estimate, a.raw_mean, a.n) == ("A", 4.0, pytest.approx(22 / 6), 6)
    assert (b.estimate, b.raw_mean) == (2.75, pytest.approx(14 / 6))
    assert a.stratum_means == {"de": 5.0, "en": 3.0}
    # a target that matches the ratings' own shares gives back the raw mean
    same = post_stratified_means(
        values, systems=systems, strata=strata, units=units, weights={"en": 2 / 3, "de": 1 / 3}, n_resamples=0
    )
    assert [m.estimate for m in same] == pytest.approx([22 / 6, 14 / 6])


def test_random_data_equal_an_independent_groupby():
    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame(
        {
            "value": rng.integers(1, 6, n).astype(float),
            "system": rng.choice(["x", "y", "z"], n),
            "stratum": rng.choice(["a", "b", "c"], n, p=[0.6, 0.3, 0.1]),
            "unit": rng.integers(0, 50, n),
        }
    )
    frame.loc[rng.choice(n, 20, replace=False), "value"] = np.nan
    weights = {"a": 0.2, "b": 0.3, "c": 0.5}

    got = post_stratified_means(
        frame.value, systems=frame.system, strata=frame.stratum, units=frame.unit, weights=weights, n_resamples=0
    )

    cells = frame.dropna().groupby(["system", "stratum"]).value.mean().unstack()
    expected = (cells * pd.Series(weights)).sum(axis=1)
    assert [m.estimate for m in got] == pytest.approx(expected.loc[["x", "y", "z"]].tolist(), abs=1e-12)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({"en": 0.5, "de": 0.6}, "summing to 1"),
        ({"en": -0.5, "de": 1.5}, "non-negative"),
        ({"en": float("nan"), "de": 1.0}, "non-negative"),
        ({"en": 1.0}, "no share for the stratum de"),
    ],
)
def test_bad_weights_are_refused_naming_the_problem(weights, message):
    with pytest.raises(ValueError, match=message):
        post_stratified_means(
            [1, 2], systems=["A", "A"], strata=["en", "de"], units=[1, 2], weights=weights, n_resamples=0
        )


def test_a_stratum_without_ratings_of_a_system_is_insufficient_data_unless_its_share_is_zero():
    args = {"systems": ["A", "A", "B"], "strata": ["en", "de", "en"], "units": [1, 1, 1], "n_resamples": 0}
    with pytest.raises(InsufficientDataError, match="'B' has no rating from some stratum"):
        post_stratified_means([1, 2, 3], weights={"en": 0.5, "de": 0.5}, **args)
    assert [m.estimate for m in post_stratified_means([1, 2, 3], weights={"en": 1.0, "de": 0.0}, **args)] == [1, 3]
    with pytest.raises(InsufficientDataError, match="no ratings"):
        post_stratified_means([np.nan], systems=["A"], strata=["en"], units=[1], weights={"en": 1.0})


def test_the_intervals_cover_the_population_value_about_as_often_as_they_say():
    # Items have a random effect; raters of stratum "b" score 1 higher. Population: half a, half b; the sample
    # has 80% a. Post-stratified target: the population's true mean, 3 + 0.5.
    rng = np.random.default_rng(11)
    covered, n_sim = 0, 150
    for _ in range(n_sim):
        n_items = 40
        item_effect = rng.normal(0, 0.5, n_items)
        units = np.repeat(np.arange(n_items), 5)
        strata = rng.choice(["a", "b"], len(units), p=[0.8, 0.2])
        values = 3 + item_effect[units] + (strata == "b") + rng.normal(0, 1, len(units))
        (m,) = post_stratified_means(
            values,
            systems=["s"] * len(units),
            strata=strata,
            units=units,
            weights={"a": 0.5, "b": 0.5},
            n_resamples=300,
            rng=rng,
        )
        covered += m.ci[0] <= 3.5 <= m.ci[1]
    print(f"\npost-stratified 95% intervals covered the true mean in {covered}/{n_sim} simulations")
    assert 0.88 <= covered / n_sim <= 0.99
