"""Streaming passes over units: for each block of units, the ratings of the units that count.

Memory stays proportional to one block (about ``_BLOCK_ELEMENTS`` matrix entries), whatever the
number of units; nothing loops over single units or records in Python.
"""

from dataclasses import dataclass

import numpy as np

# Entries of the (n_raters, n_units) matrix handled per block; sized so a block's temporaries stay
# around a megabyte.
_BLOCK_ELEMENTS = 1 << 17


@dataclass(frozen=True)
class UnitBlock:
    """Ratings of units ``start..stop-1`` whose units have at least ``min_ratings`` ratings.

    ``m[j]`` is the number of ratings of block unit ``j`` (0 when it has fewer than
    ``min_ratings``); ``unit[i]`` and ``values[i]`` are the block-local unit and value of each kept
    rating, in rater-major order; ``rater_used[r]`` tells whether rater ``r`` has a kept rating.
    """

    start: int
    stop: int
    m: np.ndarray
    unit: np.ndarray
    values: np.ndarray
    rater_used: np.ndarray

    @property
    def width(self) -> int:
        return self.stop - self.start

    def pair_weights(self) -> np.ndarray:
        """1 / (m_u - 1) for units with at least two ratings, 0 elsewhere (Krippendorff's weights)."""
        weights = np.zeros(self.width)
        np.divide(1.0, self.m - 1.0, out=weights, where=self.m >= 2)
        return weights


def iter_unit_blocks(data: np.ndarray, *, min_ratings: int = 2, row_width: int = 1):
    """Yield :class:`UnitBlock` s covering all units of ``data`` (n_raters, n_units), NaN = missing.

    ``row_width`` is the number of per-unit columns the caller will build for a block (e.g. the
    number of categories), so that block temporaries stay bounded too.
    """
    n_raters, n_units = data.shape
    width = max(256, _BLOCK_ELEMENTS // max(n_raters, row_width, 1))
    for start in range(0, n_units, width):
        stop = min(n_units, start + width)
        block = data[:, start:stop]
        present = ~np.isnan(block)
        m = present.sum(axis=0, dtype=np.int32)
        keep = m >= min_ratings
        if not keep.all():
            present &= keep
            m[~keep] = 0
        used = np.zeros(n_raters, dtype=bool)
        # np.nonzero yields rater-major order; measured no slower than a loop over rows even on
        # dense 3-rater data, and much faster on small or sparse blocks
        rows, unit = np.nonzero(present)
        vals = block[rows, unit]
        used[rows] = True
        yield UnitBlock(start, stop, m, unit, vals, used)


def gather_ratings(data: np.ndarray, *, min_ratings: int = 2):
    """All kept ratings at once: global unit index, value, per-unit counts and raters used.

    Returns ``(unit, values, m, rater_used)`` with ``m`` of length n_units (0 for units with fewer
    than ``min_ratings`` ratings). Memory is proportional to the number of kept ratings.
    """
    n_raters, n_units = data.shape
    units, values, ms = [], [], []
    used = np.zeros(n_raters, dtype=bool)
    for block in iter_unit_blocks(data, min_ratings=min_ratings):
        units.append(block.unit + block.start)
        values.append(block.values)
        ms.append(block.m)
        used |= block.rater_used
    return np.concatenate(units), np.concatenate(values), np.concatenate(ms), used


def unit_kinds(counts: np.ndarray):
    """The distinct rows of a per-unit counts table and each unit's row among them."""
    if counts.shape[0] == 0:
        return counts, np.zeros(0, dtype=np.intp)
    base = int(counts.max()) + 1
    n_codes = base ** counts.shape[1]
    if n_codes <= 1 << 16:  # rows numbered in base ``base``: kinds from a count of each number
        code = (counts @ (base ** np.arange(counts.shape[1])).astype(np.float64)).astype(np.intp)
        present = np.bincount(code, minlength=n_codes) > 0
        numbers = np.flatnonzero(present)
        kinds = (numbers[:, None] // base ** np.arange(counts.shape[1]) % base).astype(counts.dtype)
        return kinds, (np.cumsum(present) - 1)[code]
    if float(base) ** counts.shape[1] < 2.0**53:  # one exact float number per row
        code = counts @ float(base) ** np.arange(counts.shape[1])
        _, first, kind = np.unique(code, return_index=True, return_inverse=True)
    else:
        _, first, kind = np.unique(counts, axis=0, return_index=True, return_inverse=True)
    return counts[first], kind.reshape(-1)
