"""Input checks shared by the statistics: shapes, options, categories, confidence levels."""

from collections.abc import Iterable

import numpy as np

from .errors import InsufficientDataError


def check_choice(name: str, value, choices: Iterable) -> None:
    """Raise ``ValueError`` naming the valid choices when ``value`` is not one of them."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        valid = ", ".join(repr(c) for c in choices)
        raise ValueError(f"unknown {name} {value!r}; valid choices are {valid}")


def as_reliability_data(reliability_data, *, name: str = "reliability_data") -> np.ndarray:
    """Return ``reliability_data`` as a C-contiguous float array of shape (n_raters, n_units).

    ``None`` entries become NaN (missing). Infinite values, non-numeric entries and arrays that
    are not 2-D raise ``ValueError``; an array with no rater or no unit raises
    :class:`InsufficientDataError`.
    """
    try:
        data = np.asarray(reliability_data, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must hold numbers, with NaN (or None) for a missing rating: {exc}") from None
    if data.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_raters, n_units); got {data.ndim}-D with shape {data.shape}"
        )
    if data.size == 0:
        raise InsufficientDataError(f"{name} is empty: shape {data.shape} has no rater or no unit")
    return np.ascontiguousarray(data)


def value_range(data: np.ndarray, *, name: str = "reliability_data") -> tuple[float, float]:
    """Smallest and largest rating, ignoring NaN; raise when every rating is missing or one is infinite."""
    # fmin/fmax skip NaN without the all-NaN warning of nanmin, and allocate nothing
    flat = data.reshape(-1)
    low = float(np.fmin.reduce(flat))
    high = float(np.fmax.reduce(flat))
    if np.isnan(low):
        raise InsufficientDataError(f"{name} has no rating: every entry is missing (NaN)")
    if np.isinf(low) or np.isinf(high):
        raise ValueError(f"{name} contains an infinite value; use NaN for a missing rating")
    return low, high


def as_rating_pair(rater_a, rater_b) -> tuple[np.ndarray, np.ndarray]:
    """Two raters' ratings of the same units as 1-D float arrays, keeping the units both rated."""
    a = _as_ratings(rater_a, "rater_a")
    b = _as_ratings(rater_b, "rater_b")
    if a.shape != b.shape:
        raise ValueError(f"rater_a and rater_b must rate the same units: lengths {a.size} and {b.size} differ")
    both = ~(np.isnan(a) | np.isnan(b))
    if np.isinf(a[both]).any() or np.isinf(b[both]).any():
        raise ValueError("ratings contain an infinite value; use NaN for a missing rating")
    return a[both], b[both]


def _as_ratings(values, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must hold numbers, with NaN (or None) for missing: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one rating per unit); got shape {arr.shape}")
    return arr


def as_categories(categories) -> np.ndarray | None:
    """The declared, ordered category list as a strictly increasing float array (or ``None``)."""
    if categories is None:
        return None
    try:
        cats = np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "categories must be the numeric codes of the criterion's categories, in scale order "
            f"(map labels to codes first); got {categories!r}"
        ) from None
    if cats.ndim != 1 or cats.size == 0:
        raise ValueError(f"categories must be a non-empty 1-D list; got shape {cats.shape}")
    if not np.isfinite(cats).all():
        raise ValueError("categories must be finite numbers (NaN means 'missing', not a category)")
    if cats.size > 1 and not (np.diff(cats) > 0).all():
        raise ValueError(f"categories must be strictly increasing, in the order of the scale; got {cats.tolist()}")
    return cats


def check_in_categories(values: np.ndarray, categories: np.ndarray, *, name: str = "ratings") -> np.ndarray:
    """Positions of ``values`` in ``categories``; ``ValueError`` listing values that are not declared."""
    pos = np.searchsorted(categories, values)
    pos_clipped = np.minimum(pos, categories.size - 1)
    unknown = categories[pos_clipped] != values
    if unknown.any():
        bad = np.unique(values[unknown])[:10].tolist()
        raise ValueError(
            f"{name} contain values that are not among the declared categories {categories.tolist()}: {bad}"
        )
    return pos_clipped


def check_confidence_level(confidence_level: float) -> float:
    """Return ``confidence_level`` as a float strictly between 0 and 1."""
    try:
        level = float(confidence_level)
    except (TypeError, ValueError):
        raise ValueError(f"confidence_level must be a number in (0, 1); got {confidence_level!r}") from None
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), e.g. 0.95; got {confidence_level!r}")
    return level


def as_generator(rng) -> np.random.Generator:
    """Accept a ``numpy.random.Generator`` (or an int seed for one); never the global random state."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise ValueError(
        f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(2024)) or an int seed; got {rng!r}"
    )
