"""From long records (unit, rater, value) to a reliability matrix or to per-unit category counts.

Every helper is vectorised (``np.unique`` / ``np.bincount``); none loops over records in Python.
Missing values (``None``, NaN, ``""``) never become a category: they are dropped at ingestion.
"""

import numpy as np

from ._units import gather_ratings
from ._validation import (
    as_categories,
    as_reliability_data,
    check_choice,
    check_in_categories,
    value_range,
)
from .results import CategoryCounts, ReliabilityData

DUPLICATE_POLICIES = ("error", "last", "mean")


def as_float_values(values, *, name: str = "values") -> np.ndarray:
    """Ratings as floats with ``None``, ``""`` and NaN as NaN; numeric strings are converted.

    Parameters
    ----------
    values : array_like, shape (n_records,)
    name : str
        Used in error messages.

    Returns
    -------
    ndarray of float, shape (n_records,)

    Raises
    ------
    ValueError
        A value that is neither missing nor a number.

    Notes
    -----
    No formula: this is the ingestion rule that missing values (``None``, ``""``, NaN) are never
    a category, applied before any statistic.

    Examples
    --------
    >>> from agreement.stats.reliability_data import as_float_values
    >>> as_float_values([4, None, "", "2", float("nan")]).tolist()
    [4.0, nan, nan, 2.0, nan]
    """
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raw = np.asarray(values, dtype=object)
        # numpy's type stubs leave out None, which an object array compares with element by element
        missing = np.equal(raw, None) | np.equal(raw, "")  # type: ignore[call-overload]
        raw = raw.copy()
        raw[missing] = np.nan
        try:
            out = raw.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must be numbers, or None / '' / NaN for a missing rating; map category labels "
                "to codes first (see encode_labels)"
            ) from None
    if out.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per record); got shape {out.shape}")
    if np.isinf(out).any():
        raise ValueError(f"{name} contain an infinite value; use NaN for a missing rating")
    return out


def encode_labels(labels, order) -> np.ndarray:
    """Code category labels as their position in ``order`` (0, 1, ...); missing labels become NaN.

    Parameters
    ----------
    labels : array_like, shape (n_records,)
        E.g. ``["A", "tie", None, "B"]``.
    order : sequence
        The declared order of the categories, e.g. ``["B", "tie", "A"]`` (it loses < tie < it wins).

    Returns
    -------
    ndarray of float
        Position of each label in ``order``; NaN for ``None``, ``""`` or NaN.

    Raises
    ------
    ValueError
        A label that is not in ``order`` (the message lists them).

    Notes
    -----
    Ordered codes let ordinal statistics (ordinal alpha, weighted kappa, AC2) respect the
    declared order, e.g. the three-way pairwise outcome it loses < tie < it wins.

    Examples
    --------
    The three-way outcome of a pairwise judgment, coded for the first output:

    >>> from agreement.stats.reliability_data import encode_labels
    >>> encode_labels(["it wins", "tie", None, "it loses"], ["it loses", "tie", "it wins"]).tolist()
    [2.0, 1.0, nan, 0.0]
    """
    raw = np.asarray(labels, dtype=object)
    if raw.ndim != 1:
        raise ValueError(f"labels must be 1-D; got shape {raw.shape}")
    order = list(order)
    if len(set(order)) != len(order):
        raise ValueError(f"order lists a category twice: {order}")
    missing = np.equal(raw, None) | np.equal(raw, "") | np.not_equal(raw, raw)  # type: ignore[call-overload]  # NaN != NaN
    present = raw[~missing]
    try:
        distinct, inverse = np.unique(present, return_inverse=True)
    except TypeError:
        raise ValueError("labels must be of one type (e.g. all strings or all numbers)") from None
    position = {label: i for i, label in enumerate(order)}
    unknown = [label for label in distinct.tolist() if label not in position]
    if unknown:
        raise ValueError(f"labels not in the declared order {order}: {unknown[:10]}")
    # one dictionary look-up per distinct label, then a vectorised gather
    codes_of_distinct = np.array([position[label] for label in distinct.tolist()], dtype=np.float64)
    codes = np.full(raw.size, np.nan)
    codes[~missing] = codes_of_distinct[inverse] if present.size else np.empty(0)
    return codes


def reliability_matrix(units, raters, values, *, duplicates="error") -> ReliabilityData:
    r"""Long records ``(unit, rater, value)`` to a reliability matrix (n_raters, n_units).

    Parameters
    ----------
    units, raters : array_like, shape (n_records,)
        Labels (ints or strings) of the unit and the rater of each record.
    values : array_like, shape (n_records,)
        Numeric ratings; ``None``, ``""`` and NaN are missing and leave the cell empty.
    duplicates : {"error", "last", "mean"}
        What to do when a rater rated a unit twice: raise, keep the later record, or average.

    Returns
    -------
    ReliabilityData
        ``matrix[i, j]`` is rater ``raters[i]``'s rating of unit ``units[j]`` (labels sorted),
        NaN where there is none. Every unit and rater of the records has a column / row.

    Raises
    ------
    ValueError
        Records of different lengths, a non-numeric value, or (with ``duplicates="error"``)
        a repeated (unit, rater) pair.

    Notes
    -----
    The matrix is the "reliability data" of [1]_: one row per coder, one column per unit.
    It is filled by one scatter after ``np.unique`` codes units and raters:

    .. math:: X_{r(i),\,u(i)} = v_i \quad \text{for every record } i \text{ with a value.}

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability, section A.
       https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    Unit 12 of Krippendorff's example [1]_ is rated only by observer B (value 3):

    >>> from agreement.stats import reliability_matrix
    >>> rd = reliability_matrix(["u12", "u11", "u11"], ["B", "C", "D"], [3, 1, 1])
    >>> rd.raters.tolist(), rd.units.tolist()
    (['B', 'C', 'D'], ['u11', 'u12'])
    >>> rd.matrix.tolist()
    [[nan, 3.0], [1.0, nan], [1.0, nan]]
    """
    check_choice("duplicates", duplicates, DUPLICATE_POLICIES)
    units = _as_labels(units, "units")
    raters = _as_labels(raters, "raters")
    vals = as_float_values(values)
    if not units.size == raters.size == vals.size:
        raise ValueError(
            f"units, raters and values must have one entry per record; lengths {units.size}, {raters.size}, {vals.size}"
        )
    unit_labels, unit_idx = np.unique(units, return_inverse=True)
    rater_labels, rater_idx = np.unique(raters, return_inverse=True)
    n_units = unit_labels.size
    matrix = np.full((rater_labels.size, n_units), np.nan)
    present = ~np.isnan(vals)
    key = rater_idx[present].astype(np.int64) * n_units + unit_idx[present]
    vals = vals[present]
    uniq, first, counts = np.unique(key, return_index=True, return_counts=True)
    if uniq.size == key.size:
        matrix.reshape(-1)[key] = vals
    elif duplicates == "error":
        dup = uniq[counts > 1]
        r, u = np.divmod(dup[0], n_units)
        raise ValueError(
            f"{dup.size} (unit, rater) pairs are rated more than once, e.g. unit {unit_labels[u].item()!r} "
            f"by rater {rater_labels[r].item()!r}; pass duplicates='last' or 'mean'"
        )
    elif duplicates == "last":
        # first occurrence in the reversed records = last occurrence in the records
        _, last_rev = np.unique(key[::-1], return_index=True)
        last = key.size - 1 - last_rev
        matrix.reshape(-1)[key[last]] = vals[last]
    else:
        inverse = np.searchsorted(uniq, key)
        sums = np.bincount(inverse, weights=vals, minlength=uniq.size)
        matrix.reshape(-1)[uniq] = sums / counts
    return ReliabilityData(matrix=matrix, units=unit_labels, raters=rater_labels)


def rating_slot_matrix(units, values, *, n_slots=None) -> ReliabilityData:
    r"""Long records ``(unit, value)`` to a matrix whose row ``k`` holds each unit's ``k``-th rating.

    For designs where rater identity is unknown or not crossed with units (crowd workers), the
    one-way models (ICC(1,1), ICC(1,k)) and alpha do not depend on who rated; this lays the
    ratings out in record order so they can be used.

    Parameters
    ----------
    units : array_like, shape (n_records,)
    values : array_like, shape (n_records,)
        Missing values are dropped.
    n_slots : int, optional
        Keep only the first ``n_slots`` ratings of each unit (default: as many rows as the
        most-rated unit has ratings).

    Returns
    -------
    ReliabilityData
        ``raters`` are the slot numbers ``0 .. n_slots - 1``.

    Raises
    ------
    ValueError
        Records of different lengths, a non-numeric value, ``n_slots`` < 1.

    Notes
    -----
    The slot of a record is its rank among its unit's records, found with one stable sort:

    .. math:: k_i = \#\{i' < i : u(i') = u(i)\}

    References
    ----------
    .. [1] Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing
       rater reliability. Psychological Bulletin, 86(2), 420-428 (case 1: each target rated by a
       different set of judges). https://doi.org/10.1037/0033-2909.86.2.420

    Examples
    --------
    >>> from agreement.stats.reliability_data import rating_slot_matrix
    >>> rating_slot_matrix(["a", "b", "a", "a", "b"], [5, 4, 4, None, 3]).matrix.tolist()
    [[5.0, 4.0], [4.0, 3.0]]
    """
    units = _as_labels(units, "units")
    vals = as_float_values(values)
    if units.size != vals.size:
        raise ValueError(f"units and values must have one entry per record; lengths {units.size}, {vals.size}")
    unit_labels, unit_idx = np.unique(units, return_inverse=True)
    keep = ~np.isnan(vals)
    unit_idx, vals = unit_idx[keep], vals[keep]
    order = np.argsort(unit_idx, kind="stable")
    sorted_units = unit_idx[order]
    group_start = np.searchsorted(sorted_units, sorted_units, side="left")
    slot = np.empty_like(order)
    slot[order] = np.arange(order.size) - group_start
    depth = int(slot.max()) + 1 if slot.size else 0
    if n_slots is not None:
        if int(n_slots) < 1:
            raise ValueError(f"n_slots must be a positive integer; got {n_slots!r}")
        depth = int(n_slots)
        inside = slot < depth
        slot, unit_idx, vals = slot[inside], unit_idx[inside], vals[inside]
    matrix = np.full((depth, unit_labels.size), np.nan)
    matrix[slot, unit_idx] = vals
    return ReliabilityData(matrix=matrix, units=unit_labels, raters=np.arange(depth))


def category_counts(units, values, *, categories=None) -> CategoryCounts:
    r"""Long records ``(unit, value)`` to per-unit category counts, the input of Fleiss' kappa.

    Parameters
    ----------
    units : array_like, shape (n_records,)
    values : array_like, shape (n_records,)
        Numeric category codes; missing values are dropped.
    categories : sequence of float, optional
        The declared, ordered categories (columns). Default: the observed values, sorted.

    Returns
    -------
    CategoryCounts
        ``counts[j, k]``: records of unit ``units[j]`` in ``categories[k]``.

    Raises
    ------
    ValueError
        A value outside the declared categories.

    Notes
    -----
    One ``np.bincount`` over :math:`j K + k` gives the table of Fleiss [1]_:

    .. math:: n_{jk} = \sum_i [u(i) = j]\,[v_i = c_k]

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619

    Examples
    --------
    Subject 1 of Fleiss' table [1]_ (14 raters all in category 5), declared scale 1..5:

    >>> from agreement.stats.reliability_data import category_counts
    >>> category_counts([1] * 14, [5] * 14, categories=[1, 2, 3, 4, 5]).counts.tolist()
    [[0, 0, 0, 0, 14]]
    """
    units = _as_labels(units, "units")
    vals = as_float_values(values)
    if units.size != vals.size:
        raise ValueError(f"units and values must have one entry per record; lengths {units.size}, {vals.size}")
    unit_labels, unit_idx = np.unique(units, return_inverse=True)
    keep = ~np.isnan(vals)
    counts, cats = _count_by_category(unit_idx[keep], vals[keep], unit_labels.size, categories)
    return CategoryCounts(counts=counts, categories=cats, units=unit_labels)


def unit_category_counts(reliability_data, *, categories=None) -> CategoryCounts:
    r"""Per-unit category counts of a reliability matrix (n_raters, n_units), NaN = not rated.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
    categories : sequence of float, optional
        Declared ordered categories; default the observed values, sorted.

    Returns
    -------
    CategoryCounts
        ``counts`` has shape (n_units, n_categories); row ``j`` is column ``j`` of the matrix
        (all-zero for a unit nobody rated).

    Raises
    ------
    ValueError
        A rating outside the declared categories, or malformed input.
    InsufficientDataError
        Empty input or no rating at all.

    Notes
    -----
    Fleiss' [1]_ :math:`n_{ij}`, built block by block with ``np.bincount``:

    .. math:: n_{jk} = \sum_r [x_{rj} = c_k]

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619

    Examples
    --------
    Unit 6 of Krippendorff's example (values 1, 2, 3, 4) on the scale 1..5:

    >>> from agreement.stats import unit_category_counts
    >>> unit_category_counts([[1], [2], [3], [4]], categories=[1, 2, 3, 4, 5]).counts.tolist()
    [[1, 1, 1, 1, 0]]
    """
    data = as_reliability_data(reliability_data)
    value_range(data)
    unit, values, _, _ = gather_ratings(data, min_ratings=1)
    counts, cats = _count_by_category(unit, values, data.shape[1], categories)
    return CategoryCounts(counts=counts, categories=cats, units=np.arange(data.shape[1]))


def counts_and_raters(reliability_data, categories):
    """Float per-unit counts, their categories, and the number of raters with a rating."""
    data = as_reliability_data(reliability_data)
    value_range(data)
    unit, values, _, used = gather_ratings(data, min_ratings=1)
    counts, cats = _count_by_category(unit, values, data.shape[1], categories)
    return counts.astype(np.float64), cats, int(used.sum())


def _count_by_category(unit, values, n_units, categories):
    cats = as_categories(categories)
    if cats is None:
        cats, codes = _observed_codes(values)
    else:
        codes = check_in_categories(values, cats)
    key = unit.astype(np.int64) * cats.size + codes
    counts = np.bincount(key, minlength=n_units * cats.size).reshape(n_units, cats.size)
    return counts, cats


def _observed_codes(values: np.ndarray):
    """Sorted distinct values and each value's index; small integer codes avoid a full sort."""
    if values.size:
        low, high = float(values.min()), float(values.max())
        if high - low < 4096:
            shifted = (values - low).astype(np.intp)
            if np.array_equal(shifted, values - low):
                present = np.bincount(shifted, minlength=int(high - low) + 1) > 0
                index = np.cumsum(present) - 1
                return low + np.flatnonzero(present).astype(np.float64), index[shifted]
    return np.unique(values, return_inverse=True)


def _as_labels(labels, name: str) -> np.ndarray:
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one label per record); got shape {arr.shape}")
    return arr
