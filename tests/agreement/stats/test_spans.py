"""Span agreement (agreement.stats.spans) against independent implementations and by hand: the
``krippendorff`` package and the library's own alpha on the characters × raters matrix, scikit-learn's
Cohen's kappa per pair, the ``krippendorff-unitized-alpha`` package on the tiled continua, and a
plain-Python loop for the span-level counts; then the degenerate cases and bad input."""

import itertools

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from agreement.stats import InsufficientDataError, krippendorff_alpha
from agreement.stats.spans import span_agreement, span_set

SEVERITIES = ("minor", "major")


def random_study(seed, n_segments=40, n_raters=5, per_segment=3, max_len=30):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, max_len, size=n_segments)
    ratings, spans = [], []
    for seg in range(n_segments):
        for rater in sorted(rng.choice(n_raters, size=per_segment, replace=False)):
            ratings.append((seg, int(rater)))
            for _ in range(rng.integers(0, 4)):
                a, b = sorted(rng.integers(0, lengths[seg] + 1, size=2))
                spans.append((seg, int(rater), int(a), int(b), SEVERITIES[rng.integers(0, 2)]))
    return lengths, ratings, spans


def build(lengths, ratings, spans, severities=SEVERITIES):
    cols = list(zip(*spans, strict=True)) if spans else [[], [], [], [], []]
    return span_set(
        lengths,
        ratings,
        segment=np.array(cols[0], dtype=np.int64),
        rater=np.array(cols[1], dtype=np.int64),
        start=np.array(cols[2], dtype=np.int64),
        end=np.array(cols[3], dtype=np.int64),
        severity=list(cols[4]),
        severities=severities,
    )


def char_labels(lengths, spans, seg, rater, scheme):
    """The naive reference: one label per character, by a loop."""
    lab = [0] * int(lengths[seg])
    for s, r, a, b, sev in spans:
        if s == seg and r == rater:
            for x in range(a, b):
                if scheme == "any":
                    lab[x] = 1
                elif scheme == "severity":
                    lab[x] = max(lab[x], SEVERITIES.index(sev) + 1)
                elif sev == scheme:
                    lab[x] = 1
    return lab


def char_matrix(lengths, ratings, spans, scheme):
    """Raters × characters (NaN = rater did not rate the segment) over the segments with two raters."""
    n_raters = max(r for _, r in ratings) + 1
    by_seg = {}
    for seg, rater in ratings:
        by_seg.setdefault(seg, []).append(rater)
    cols = []
    for seg, raters in sorted(by_seg.items()):
        if len(raters) < 2:
            continue
        block = np.full((n_raters, int(lengths[seg])), np.nan)
        for r in raters:
            block[r] = char_labels(lengths, spans, seg, r, scheme)
        cols.append(block)
    return np.concatenate(cols, axis=1)


@pytest.mark.parametrize("scheme", ["any", "minor", "major", "severity"])
def test_character_alpha_equals_the_krippendorff_package_and_the_library_alpha(scheme):
    lengths, ratings, spans = random_study(1)
    res = span_agreement(build(lengths, ratings, spans), n_resamples=0)
    matrix = char_matrix(lengths, ratings, spans, scheme)
    package = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert res.get("alpha", scheme).value == pytest.approx(package, abs=1e-10)
    assert res.get("alpha", scheme).value == pytest.approx(krippendorff_alpha(matrix).value, abs=1e-10)


@pytest.mark.parametrize("scheme", ["any", "major", "severity"])
def test_pair_kappa_equals_scikit_learn(scheme):
    lengths, ratings, spans = random_study(2)
    res = span_agreement(build(lengths, ratings, spans), n_resamples=0)
    matrix = char_matrix(lengths, ratings, spans, scheme)
    checked = 0
    for a, b in itertools.combinations(range(matrix.shape[0]), 2):
        both = ~np.isnan(matrix[a]) & ~np.isnan(matrix[b])
        if both.sum() == 0:
            continue
        expected = cohen_kappa_score(matrix[a, both], matrix[b, both], labels=[0, 1, 2])
        got = res.get("kappa", scheme, (a, b)).value
        if np.isnan(expected):
            assert got is None
        else:
            assert got == pytest.approx(expected, abs=1e-10)
            checked += 1
        # and pair alpha is two-rater alpha on the same characters
        two = krippendorff.alpha(reliability_data=matrix[[a, b]][:, both], level_of_measurement="nominal")
        assert res.get("alpha", scheme, (a, b)).value == pytest.approx(two, abs=1e-10)
    assert checked >= 5


def tiled(lengths, ratings, spans, scheme, rater):
    """The rater's continuum over all segments as the unitized package wants it: runs of equal label,
    gaps as the empty tag, offsets shifted per segment (units never cross a segment)."""
    from krippendorff_unitized_alpha.krippendorffs_unitized_alpha import EMPTY_TAG, Segment

    units, offset = [], 0
    for seg in range(len(lengths)):
        if (seg, rater) in ratings and sum(1 for s, _ in ratings if s == seg) >= 2:
            lab = char_labels(lengths, spans, seg, rater, scheme)
            for value, run in itertools.groupby(enumerate(lab), key=lambda x: x[1]):
                run = list(run)
                tag = EMPTY_TAG if value == 0 else f"L{value}"
                units.append(Segment(tag, offset + run[0][0], offset + run[-1][0] + 1))
        offset += int(lengths[seg]) + 1
    return units


@pytest.mark.parametrize("scheme", ["any", "severity"])
def test_unitizing_alpha_equals_the_krippendorff_unitized_alpha_package(scheme):
    unitized = pytest.importorskip("krippendorff_unitized_alpha.krippendorffs_unitized_alpha")
    # the package divides by (m - 1) for m raters overall, so every segment has all raters here
    lengths, ratings, spans = random_study(3, n_segments=25, n_raters=3, per_segment=3)
    res = span_agreement(build(lengths, ratings, spans), n_resamples=0)
    data = {r: tiled(lengths, set(ratings), spans, scheme, r) for r in range(3)}
    expected = unitized.KrippendorffUnitizedAlpha(data).result
    assert res.get("unitizing_alpha", scheme).value == pytest.approx(expected, abs=1e-10)
    pair = unitized.KrippendorffUnitizedAlpha({0: data[0], 2: data[2]}).result
    assert res.get("unitizing_alpha", scheme, (0, 2)).value == pytest.approx(pair, abs=1e-10)


def test_unitizing_alpha_worked_by_hand():
    # One segment of 10 characters, two raters: A marks [0, 4), B marks [0, 2). Coincidences (both
    # orders): o_11 = 4, o_10 = o_01 = 2, o_00 = 12; l = 20, l_1 = 6, l_0 = 14. Units: A's span
    # (4^2 = 16), B's span (4), gaps count their length: 6 + 8 = 14. q_1 = 20, q_0 = 14, sum 34.
    # e_11 = 20 (36 - 20) / (400 - 34) = 320/366, e_00 = 20 (196 - 14) / 366 = 3640/366.
    # u-alpha = 1 - (20 - 16) / (20 - 3960/366) = 1 - 4 / (3360/366) = 1 - 1464/3360.
    s = build([10], [(0, 0), (0, 1)], [(0, 0, 0, 4, "minor"), (0, 1, 0, 2, "minor")])
    res = span_agreement(s, n_resamples=0)
    assert res.get("unitizing_alpha", "any").value == pytest.approx(1 - 1464 / 3360)
    # character alpha: D_o = 4/20, D_e = (400 - 36 - 196) / (20 * 19) -> 1 - 19 * 4 / 168
    assert res.get("alpha", "any").value == pytest.approx(1 - 19 * 4 / 168)
    # span level: no exact match, one overlap each way
    assert res.get("f1_exact").value == 0.0
    assert res.get("f1_overlap").value == 1.0
    assert res.get("char_f1", "any").value == pytest.approx(2 * 2 / (4 + 2))


def naive_span_counts(ratings, spans, a, b, match_severity=False):
    def spans_of(r, seg):
        return {(x, y, sev if match_severity else "") for s, rr, x, y, sev in spans if rr == r and s == seg}

    n_a = n_b = ex = ov_a = ov_b = 0
    for seg in {s for s, _ in ratings}:
        if (seg, a) not in ratings or (seg, b) not in ratings:
            continue
        sa, sb = spans_of(a, seg), spans_of(b, seg)
        n_a, n_b, ex = n_a + len(sa), n_b + len(sb), ex + len(sa & sb)

        def hits(p, others):
            return any((p[:2] == q[:2] or (max(p[0], q[0]) < min(p[1], q[1]))) and p[2] == q[2] for q in others)

        ov_a += sum(hits(p, sb) for p in sa)
        ov_b += sum(hits(q, sa) for q in sb)
    return n_a, n_b, ex, ov_a, ov_b


@pytest.mark.parametrize("match_severity", [False, True])
def test_span_level_counts_equal_a_plain_loop(match_severity):
    lengths, ratings, spans = random_study(4)
    res = span_agreement(build(lengths, ratings, spans), n_resamples=0, match_severity=match_severity)
    rated = set(ratings)
    tot = np.zeros(5)
    for a, b in itertools.combinations(range(5), 2):
        n_a, n_b, ex, ov_a, ov_b = counts = naive_span_counts(rated, spans, a, b, match_severity)
        if n_a + n_b == 0:
            continue
        tot += counts
        assert res.get("f1_exact", pair=(a, b)).value == pytest.approx(2 * ex / (n_a + n_b))
        if n_a:
            assert res.get("precision_exact", pair=(a, b)).value == pytest.approx(ex / n_a)
            assert res.get("precision_overlap", pair=(a, b)).value == pytest.approx(ov_a / n_a)
        if n_b:
            assert res.get("recall_overlap", pair=(a, b)).value == pytest.approx(ov_b / n_b)
    assert res.get("f1_exact").value == pytest.approx(2 * tot[2] / (tot[0] + tot[1]))
    assert res.get("f1_overlap").value == pytest.approx((tot[3] + tot[4]) / (tot[0] + tot[1]))


def test_bootstrap_is_seeded_and_brackets_the_value():
    lengths, ratings, spans = random_study(5, n_segments=60)
    s = build(lengths, ratings, spans)
    one = span_agreement(s, rng=np.random.default_rng(0), n_resamples=300)
    two = span_agreement(s, rng=np.random.default_rng(0), n_resamples=300)
    assert one == two
    for stat in ("f1_exact", "f1_overlap", "matched_exact"):
        st = one.get(stat)
        assert st.ci_low <= st.value <= st.ci_high
    for stat in ("alpha", "unitizing_alpha", "kappa", "char_f1"):
        st = one.get(stat, "any")
        assert st.ci_low < st.value < st.ci_high and st.n_failed == 0


def test_bootstrap_replicate_is_the_statistic_on_the_resampled_segments():
    # replicate = the statistic recomputed on the drawn segments (duplicated as drawn)
    lengths, ratings, spans = random_study(6, n_segments=12)
    s = build(lengths, ratings, spans)
    res = span_agreement(s, rng=np.random.default_rng(3), n_resamples=1)
    draw = np.random.default_rng(3).integers(0, 12, size=12)
    new_ratings = [(k, r) for k, seg in enumerate(draw) for (g, r) in ratings if g == seg]
    new_spans = [(k, r, a, b, v) for k, seg in enumerate(draw) for (g, r, a, b, v) in spans if g == seg]
    again = span_agreement(build(lengths[draw], new_ratings, new_spans), n_resamples=0)
    for stat, label in (("alpha", "any"), ("unitizing_alpha", "severity"), ("f1_exact", "spans")):
        assert res.get(stat, label).ci_low == pytest.approx(again.get(stat, label).value)


# --- degenerate cases -------------------------------------------------------------------------------


def test_no_spans_at_all_leaves_every_statistic_undefined_with_a_reason():
    s = build([5, 7], [(0, 0), (0, 1), (1, 0), (1, 1)], [])
    res = span_agreement(s, rng=np.random.default_rng(0), n_resamples=50)
    for st in res.statistics:
        assert st.value is None and st.reason, st


def test_one_rater_raises():
    s = build([5, 7], [(0, 0), (1, 0)], [(0, 0, 1, 3, "minor")])
    with pytest.raises(InsufficientDataError, match="two raters"):
        span_agreement(s, n_resamples=0)


def test_segments_with_one_rater_are_left_out():
    base = build([6], [(0, 0), (0, 1)], [(0, 0, 1, 3, "minor"), (0, 1, 1, 3, "minor")])
    extra = build(
        [6, 9], [(0, 0), (0, 1), (1, 2)], [(0, 0, 1, 3, "minor"), (0, 1, 1, 3, "minor"), (1, 2, 0, 9, "major")]
    )
    a, b = span_agreement(base, n_resamples=0), span_agreement(extra, n_resamples=0)
    assert a.get("alpha", "any").value == b.get("alpha", "any").value == 1.0
    assert b.n_segments == 1


def test_one_character_spans():
    s = build([4], [(0, 0), (0, 1)], [(0, 0, 2, 3, "major"), (0, 1, 2, 3, "major")])
    res = span_agreement(s, n_resamples=0)
    assert res.get("f1_exact").value == 1.0
    assert res.get("alpha", "major").value == 1.0
    assert res.get("unitizing_alpha", "severity").value == 1.0
    off = span_agreement(build([4], [(0, 0), (0, 1)], [(0, 0, 2, 3, "major"), (0, 1, 3, 4, "major")]), n_resamples=0)
    assert off.get("f1_overlap").value == 0.0 and off.get("char_f1", "any").value == 0.0


def test_overlapping_spans_of_one_rater_merge_per_severity_and_stay_apart_at_span_level():
    # rater 0 marks [0, 4) minor and [2, 6) major; rater 1 marks [0, 6) minor
    s = build([8], [(0, 0), (0, 1)], [(0, 0, 0, 4, "minor"), (0, 0, 2, 6, "major"), (0, 1, 0, 6, "minor")])
    res = span_agreement(s, n_resamples=0)
    assert res.get("char_f1", "any").value == 1.0  # the union [0, 6) on both sides
    assert res.get("char_f1", "minor").value == pytest.approx(2 * 4 / (4 + 6))
    # "severity": rater 0 is minor on [0, 2), major on [2, 6) (the most severe wins)
    matrix = np.array([[1, 1, 2, 2, 2, 2, 0, 0], [1, 1, 1, 1, 1, 1, 0, 0]], dtype=float)
    assert res.get("alpha", "severity").value == pytest.approx(krippendorff_alpha(matrix).value)
    # span level: rater 0 has two spans, both overlapping rater 1's one
    assert res.get("precision_overlap", pair=(0, 1)).value == 1.0
    assert res.get("precision_exact", pair=(0, 1)).value == 0.0


def test_zero_length_spans_match_only_exactly():
    s = build([5], [(0, 0), (0, 1)], [(0, 0, 5, 5, "minor"), (0, 1, 5, 5, "minor"), (0, 1, 0, 5, "major")])
    res = span_agreement(s, n_resamples=0)
    assert res.get("precision_exact", pair=(0, 1)).value == 1.0
    assert res.get("recall_overlap", pair=(0, 1)).value == 0.5
    assert res.get("char_f1", "any").value == 0.0  # rater 0 covers no character


def test_duplicate_spans_count_once():
    s = build([5], [(0, 0), (0, 1)], [(0, 0, 1, 2, "minor"), (0, 0, 1, 2, "minor"), (0, 1, 1, 2, "minor")])
    assert span_agreement(s, n_resamples=0).get("f1_exact").value == 1.0


# --- bad input --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ratings", "spans", "message"),
    [
        ([(0, 0), (0, 0)], [], r"ratings\[1\] lists segment and rater a second time"),
        ([(0, 0), (3, 1)], [], r"ratings segment\[1\] = 3 is out of range"),
        ([(0, 0)], [(0, 0, 2, 9, "minor")], r"span 0: \[start, end\) = \[2, 9\) is not within segment 0 of length 5"),
        ([(0, 0)], [(0, 0, 3, 2, "minor")], r"span 0: .* is not within"),
        ([(0, 0)], [(0, 0, 1, 2, "critical")], r"span 0: severity 'critical' is not one of minor, major"),
        ([(0, 0)], [(0, 0, 1, 2, "minor"), (0, 1, 1, 2, "minor")], r"span 1: segment 0, rater 1 is not among"),
    ],
)
def test_bad_input_names_the_entry(ratings, spans, message):
    with pytest.raises(ValueError, match=message):
        build([5], ratings, spans)


def test_bootstrap_needs_a_generator():
    s = build([5], [(0, 0), (0, 1)], [])
    with pytest.raises(ValueError, match="Generator"):
        span_agreement(s, n_resamples=10)
