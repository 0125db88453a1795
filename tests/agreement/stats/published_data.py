"""Published data sets used as test oracles, written out by hand with their sources.

Reliability matrices are (n_raters, n_units) with NaN for "not rated", as in the library.
"""

import numpy as np

nan = np.nan

# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability, section C (4 observers,
# 12 units, missing data). Published: nominal .743, ordinal .815, interval .849, ratio .797.
# Also irrCAC's ``cac.raw4raters`` (Gwet), transposed.
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
)

# The ``krippendorff`` package's own doctest data (3 coders x 15 units): nominal 0.691358,
# interval 0.810845.
FAST_KRIPPENDORFF_DOCTEST = np.array(
    [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
)

# Fleiss (1971) example as on Wikipedia "Fleiss' kappa": 10 subjects x 14 raters x 5 categories,
# kappa = 0.210 (statsmodels test_fleiss_kappa).
FLEISS_WIKIPEDIA = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)

# Fleiss (1971) psychiatric diagnoses, 30 patients x 6 raters, as R irr's ``diagnoses`` data
# (categories 1..5). R irr::kappam.fleiss(diagnoses): Kappa = 0.4302445, z = 17.65183;
# detail=TRUE: per category 0.245 (z 5.192), 0.245 (5.192), 0.520 (11.031), 0.471 (9.994),
# 0.566 (12.009).
DIAGNOSES = np.array(
    [
        [4, 4, 4, 4, 4, 4],
        [2, 2, 2, 5, 5, 5],
        [2, 3, 3, 3, 3, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4],
        [1, 1, 3, 3, 3, 3],
        [3, 3, 3, 3, 5, 5],
        [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4],
        [5, 5, 5, 5, 5, 5],
        [1, 4, 4, 4, 4, 4],
        [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3],
        [1, 4, 4, 4, 4, 4],
        [2, 2, 4, 4, 4, 5],
        [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5],
        [1, 1, 1, 1, 1, 2],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 4, 4, 4, 4, 4],
        [2, 2, 4, 5, 5, 5],
        [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5],
        [2, 2, 2, 2, 2, 4],
        [1, 1, 1, 1, 5, 5],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3],
        [5, 5, 5, 5, 5, 5],
    ],
    dtype=float,
).T

# Gwet's irrCAC ``distrib.6raters`` (15 subjects, 6 raters, 5 categories), README outputs:
# AC1 0.4448007 (SE 0.08418757, pa 0.5511111, pe 0.1914815); Fleiss 0.4139265 (SE 0.08119291,
# pe 0.2340741); Krippendorff 0.4204384; Brennan-Prediger 0.4388889 (SE 0.08312142).
DISTRIB_6RATERS = np.array(
    [
        [0, 0, 0, 6, 0],
        [0, 3, 0, 0, 3],
        [0, 1, 4, 0, 1],
        [0, 0, 0, 0, 6],
        [0, 3, 0, 3, 0],
        [2, 0, 4, 0, 0],
        [0, 0, 4, 0, 2],
        [2, 0, 3, 1, 0],
        [2, 0, 0, 4, 0],
        [0, 0, 0, 0, 6],
        [1, 0, 0, 5, 0],
        [1, 1, 0, 4, 0],
        [0, 3, 3, 0, 0],
        [1, 0, 0, 5, 0],
        [0, 2, 0, 3, 1],
    ]
)

# Gwet's irrCAC ``cont3x3abstractors`` (2 raters, 100 subjects), README outputs:
# Cohen 0.7964094 (SE 0.05891072); AC1 0.8493305; Brennan-Prediger 0.835; percent 0.89;
# Krippendorff 0.7972585.
CONT3X3_ABSTRACTORS = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])

# SAS PROC FREQ printout reproduced in statsmodels' test_inter_rater.py (table10):
# simple kappa 0.4842, ASE 0.1380, CI 0.2137-0.7547, ASE under H0 0.1484, Z 3.2626,
# two-sided p 0.0011; weighted (Cicchetti-Allison = linear) 0.4701, ASE 0.1457,
# CI 0.1845-0.7558, ASE under H0 0.1426, Z 3.2971, p 0.0010.
SAS_TABLE10 = np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]])

# R irr's ``anxiety`` data (20 subjects x 3 raters), as in statsmodels' tests. R irr::kappa2 on
# raters 2 and 3: unweighted -0.006289308 (z -0.0604067, p 0.9518317); "equal" (linear)
# 0.1459075 (z 1.282472, p 0.1996772); "squared" 0.2520325 (z 1.437451, p 0.1505898).
ANXIETY = np.array(
    [
        3,
        3,
        3,
        4,
        5,
        5,
        2,
        3,
        5,
        2,
        2,
        6,
        1,
        5,
        2,
        2,
        1,
        2,
        4,
        3,
        3,
        6,
        4,
        6,
        2,
        4,
        2,
        4,
        3,
        3,
        2,
        3,
        3,
        3,
        2,
        2,
        1,
        3,
        3,
        4,
        2,
        1,
        4,
        4,
        3,
        2,
        1,
        6,
        1,
        1,
        1,
        2,
        3,
        3,
        1,
        1,
        3,
        3,
        2,
        2,
    ],
    dtype=float,
).reshape(3, 20)

# Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges (rows here are judges). Reported ICCs:
# ICC(1,1) .17, ICC(2,1) .29, ICC(3,1) .71, ICC(1,4) .44, ICC(2,4) .62, ICC(3,4) .91.
SHROUT_FLEISS = np.array(
    [
        [9, 6, 8, 7, 10, 6],
        [2, 1, 4, 1, 5, 2],
        [5, 3, 6, 2, 6, 4],
        [8, 2, 8, 6, 9, 7],
    ],
    dtype=float,
)

# Anscombe (1973): all four data sets have Pearson r = 0.816.
ANSCOMBE_X = [10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5]
ANSCOMBE_Y = [
    [8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68],
    [9.14, 8.14, 8.74, 8.77, 9.26, 8.10, 6.13, 3.10, 9.13, 7.26, 4.74],
    [7.46, 6.77, 12.74, 7.11, 7.81, 8.84, 6.08, 5.39, 8.15, 6.42, 5.73],
]
ANSCOMBE_X4 = [8, 8, 8, 8, 8, 8, 8, 19, 8, 8, 8]
ANSCOMBE_Y4 = [6.58, 5.76, 7.71, 8.84, 8.47, 7.04, 5.25, 12.50, 5.56, 7.91, 6.89]


def table_to_raters(table) -> tuple[np.ndarray, np.ndarray]:
    """Two raters' ratings (codes 0..K-1) reproducing a K x K contingency table."""
    table = np.asarray(table)
    k = table.shape[0]
    rows = np.repeat(np.repeat(np.arange(k), k), table.ravel()).astype(float)
    cols = np.repeat(np.tile(np.arange(k), k), table.ravel()).astype(float)
    return rows, cols


def counts_to_reliability_data(counts, categories=None) -> np.ndarray:
    """A (max raters, n_units) matrix whose column j holds counts[j, k] ratings of category k."""
    counts = np.asarray(counts)
    cats = np.arange(counts.shape[1], dtype=float) if categories is None else np.asarray(categories, float)
    depth = int(counts.sum(axis=1).max())
    out = np.full((depth, counts.shape[0]), np.nan)
    for j, row in enumerate(counts):  # test helper over a handful of published rows
        vals = np.repeat(cats, row)
        out[: vals.size, j] = vals
    return out


# Unevenly spaced codes {0, 1, 2, 5}, 4 raters x 12 units with missing ratings (issue 24, point 7).
# irrCAC 0.4.4 (Python), CAC(pd.DataFrame(UNEVEN_CODES.T), weights=w, categories=[0, 1, 2, 5]).gwet(),
# printed to 5 decimals (coefficient, se, pa, pe): its weights are built on the category values.
UNEVEN_CODES = np.array(
    [
        [0, 1, 2, 5, 1, 0, 2, 5, 1, np.nan, 0, 2],
        [0, 2, 2, 5, 1, 1, 2, 2, 1, 5, np.nan, 2],
        [1, 1, 2, 2, np.nan, 0, 5, 5, 0, 5, 0, np.nan],
        [0, 1, 5, 5, 1, np.nan, 2, 5, 2, 2, 0, 1],
    ]
)
UNEVEN_CODES_IRRCAC_AC2 = {
    "linear": (0.53103, 0.09284, 0.81111, 0.59722),
    "quadratic": (0.67451, 0.09238, 0.90778, 0.71667),
    "radical": (0.44423, 0.08616, 0.70728, 0.47331),
    "ordinal": (0.72869, 0.04528, 0.91435, 0.68432),  # rank-based in irrCAC too: no value basis
}
