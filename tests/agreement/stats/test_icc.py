"""ICC against Shrout & Fleiss (1979) and pingouin."""

import numpy as np
import pandas as pd
import pingouin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement.stats import icc
from tests.agreement.stats.published_data import SHROUT_FLEISS

# pingouin 0.7 names the models after McGraw & Wong: A = absolute agreement, C = consistency
PINGOUIN_NAMES = {
    "ICC(1,1)": "ICC(1,1)",
    "ICC(2,1)": "ICC(A,1)",
    "ICC(3,1)": "ICC(C,1)",
    "ICC(1,k)": "ICC(1,k)",
    "ICC(2,k)": "ICC(A,k)",
    "ICC(3,k)": "ICC(C,k)",
}


@pytest.mark.parametrize(
    ("model", "published"),
    # Shrout & Fleiss (1979): the ICCs they report for the data of their Table 2
    [
        ("ICC(1,1)", 0.17),
        ("ICC(2,1)", 0.29),
        ("ICC(3,1)", 0.71),
        ("ICC(1,k)", 0.44),
        ("ICC(2,k)", 0.62),
        ("ICC(3,k)", 0.91),
    ],
)
def test_shrout_fleiss_table_4(model, published):
    res = icc(SHROUT_FLEISS, model=model)
    assert round(res.value, 2) == published
    assert (res.n_units, res.n_raters, res.variant) == (6, 4, model)


def test_shrout_fleiss_f_tests():
    # Shrout & Fleiss (1979) ANOVA: BMS 11.24, WMS 6.26, JMS 32.49, EMS 1.02 -> F = BMS/WMS, BMS/EMS
    assert icc(SHROUT_FLEISS, model="ICC(1,1)").test_statistic == pytest.approx(11.2417 / 6.2639, abs=1e-3)
    res = icc(SHROUT_FLEISS, model="ICC(3,1)")
    assert res.test_statistic == pytest.approx(11.2417 / 1.0194, abs=1e-2)
    assert (res.df_numerator, res.df_denominator) == (5, 15)


def _long(data):
    raters, units = np.nonzero(~np.isnan(data))
    return pd.DataFrame({"unit": units, "rater": raters, "score": data[raters, units]})


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning", "ignore::UserWarning")
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 8),
    n=st.integers(4, 40),
    model=st.sampled_from(list(PINGOUIN_NAMES)),
)
def test_matches_pingouin(seed, k, n, model):
    rng = np.random.default_rng(seed)
    data = rng.normal(0, 1, n) + rng.normal(0, 1, (k, 1)) * rng.uniform(0, 1) + rng.normal(0, 1, (k, n))
    data = np.round(data, 1)  # ties
    table = pingouin.intraclass_corr(_long(data), targets="unit", raters="rater", ratings="score")
    row = table.set_index("Type").loc[PINGOUIN_NAMES[model]]
    res = icc(data, model=model)
    assert res.value == pytest.approx(row["ICC"], abs=1e-9)
    assert res.test_statistic == pytest.approx(row["F"], rel=1e-9)
    assert res.p_value == pytest.approx(row["pval"], abs=1e-9)
    # pingouin rounds its interval to two decimals; we cap the upper limit at 1
    low, high = row["CI95"]
    assert res.confidence_interval[0] == pytest.approx(low, abs=0.0051)
    assert res.confidence_interval[1] == pytest.approx(min(high, 1.0), abs=0.0051)


def test_units_with_a_missing_rating_are_left_out():
    data = np.column_stack([SHROUT_FLEISS, [np.nan, 3, 4, 5]])
    assert icc(data).value == icc(SHROUT_FLEISS).value
    assert icc(data).n_units == 6
