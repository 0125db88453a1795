"""Hypothesis strategies: random reliability data with missing values and ties."""

import numpy as np
from hypothesis import strategies as st


@st.composite
def reliability_matrices(draw, *, min_raters=2, max_raters=20, max_units=40, kind=None, min_missing=0.0):
    """A (raters, units) matrix of small integers, decimals or continuous scores, with NaNs."""
    n_raters = draw(st.integers(min_raters, max_raters))
    n_units = draw(st.integers(2, max_units))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = kind or draw(st.sampled_from(["likert", "binary", "decimal", "continuous"]))
    missing = draw(st.floats(min_missing, 0.6))
    rng = np.random.default_rng(seed)
    if kind == "likert":
        truth = rng.integers(1, 6, n_units)
        noise = rng.integers(1, 6, (n_raters, n_units))
        data = np.where(rng.random((n_raters, n_units)) < 0.6, truth, noise).astype(float)
    elif kind == "binary":
        data = (rng.random((n_raters, n_units)) < rng.uniform(0.05, 0.95)).astype(float)
    elif kind == "decimal":
        data = rng.choice([0.5, 1.5, 2.25, 7.0, 9.5], size=(n_raters, n_units))
    else:
        truth = rng.uniform(0, 100, n_units)
        data = np.clip(truth + rng.normal(0, 20, (n_raters, n_units)), 0, 100).round(1)
    data[rng.random((n_raters, n_units)) < missing] = np.nan
    return data
