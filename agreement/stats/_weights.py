"""Agreement weight matrices over the declared, ordered categories (Gwet 2014, ch. 3)."""

import numpy as np

WEIGHT_SCHEMES = ("identity", "linear", "quadratic", "ordinal", "radical")
WEIGHT_BASES = ("position", "value")
# the schemes whose weights are built on distances between categories (ordinal ones on ranks)
DISTANCE_SCHEMES = ("linear", "quadratic", "radical")


def agreement_weights(weights, n_categories: int, *, values=None) -> np.ndarray:
    """Weights w_kl in [0, 1] with w_kk = 1, from the category positions 0..K-1, or from the
    category ``values`` when given.

    With positions the declared categories are taken as equally spaced (Cohen 1968; R ``irr``;
    scikit-learn). With values the distances are those between the codes, as in Gwet (2014,
    ch. 3) and irrCAC: 1 - |x_k - x_l| / (x_max - x_min) for linear weights. The two agree for
    evenly spaced codes; Gwet's ordinal weights use ranks either way. ``weights`` may also be an
    explicit (K, K) array.
    """
    if weights is None:
        weights = "identity"
    if not isinstance(weights, str):
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (n_categories, n_categories):
            raise ValueError(
                f"a weight matrix must be ({n_categories}, {n_categories}) for {n_categories} "
                f"categories; got shape {w.shape}"
            )
        if not np.allclose(np.diag(w), 1.0) or (w < 0).any() or (w > 1).any():
            raise ValueError("agreement weights must lie in [0, 1] with 1 on the diagonal")
        return w
    if weights not in WEIGHT_SCHEMES:
        valid = ", ".join(repr(s) for s in WEIGHT_SCHEMES)
        raise ValueError(f"unknown weights {weights!r}; valid choices are {valid}, or a (K, K) array")
    k = np.arange(n_categories, dtype=np.float64)
    dist = np.abs(np.subtract.outer(k, k))
    span = float(max(n_categories - 1, 1))
    if values is not None and weights in DISTANCE_SCHEMES:
        x = np.asarray(values, dtype=np.float64)
        dist = np.abs(np.subtract.outer(x, x))
        span = max(float(x.max() - x.min()), 1.0) if x.size else 1.0
    if weights == "identity":
        return np.eye(n_categories)
    if weights == "linear":
        return 1.0 - dist / span
    if weights == "quadratic":
        return 1.0 - (dist / span) ** 2
    if weights == "radical":
        return 1.0 - np.sqrt(dist) / np.sqrt(span)
    # Gwet's ordinal weights: M_kl = C(|k - l| + 1, 2), w = 1 - M / max(M)
    m = (dist + 1.0) * dist / 2.0
    return 1.0 - m / max(m.max(), 1.0)
