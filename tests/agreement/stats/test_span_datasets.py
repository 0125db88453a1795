"""Span agreement on real data: the WMT23 side-by-side MQM spans (3 raters per segment, read through WMT's
marked layout on placeholder texts) and WMT24 ESA's second ratings, against the reference values of
each folder's expected_values.json (computed there by their own definitions, not published)."""

import json

import krippendorff
import numpy as np
import pytest
from scipy import stats

from agreement.stats import krippendorff_alpha
from agreement.stats.spans import span_agreement
from evaluation.stats import MAROT_MQM_WEIGHTS, mqm_row_weights
from tests.conftest import datasets_folder
from tests.evaluation.datasets.error_spans import check_sums, esa_second_ratings, load_sxs, sxs_target_spans


@pytest.fixture(scope="module")
def folder():
    return datasets_folder()


@pytest.mark.parametrize(("lp", "code"), [("en-de", "ende"), ("zh-en", "zhen")])
def test_sxs_target_span_agreement(folder, lp, code):
    check_sums(folder / "mqm_sxs_wmt23")
    expected = json.loads((folder / "mqm_sxs_wmt23" / "expected_values.json").read_text())
    ref = expected["reproduced"]["agreement_computed_here_not_published"][lp]
    spans = sxs_target_spans(load_sxs(folder / "mqm_sxs_wmt23", code))
    res = span_agreement(spans, rng=np.random.default_rng(0), n_resamples=200)
    assert res.n_segments == (1040 if lp == "en-de" else 3770)
    assert res.get("char_f1", "any").value == pytest.approx(ref["char_f1_target_spans"], abs=5e-5)
    assert res.get("matched_exact").value == pytest.approx(ref["exact_target_span_match"], abs=5e-4)
    for stat, label in (("char_f1", "any"), ("alpha", "any"), ("alpha", "severity"), ("unitizing_alpha", "any")):
        st = res.get(stat, label)
        assert st.ci_low < st.value < st.ci_high and st.n_failed == 0, st
    # every pair of raters sharing a segment is reported
    pairs = {(s.rater_a, s.rater_b) for s in res.statistics if s.rater_a is not None}
    assert len(pairs) >= 10


def test_esa_second_rater_agreement(folder):
    expected = json.loads((folder / "esa_wmt24" / "expected_values.json").read_text())
    ref = expected["agreement_on_doubly_rated_items_computed_here_not_published"]
    for lp, code in (("en-ja", "enja"), ("en-zh", "enzh")):
        items, spans, scores = esa_second_ratings(folder / "esa_wmt24", code)
        want = ref[lp]
        assert len(items) == want["items"]
        res = span_agreement(spans, rng=np.random.default_rng(1), n_resamples=200)
        assert res.get("char_f1", "any").value == pytest.approx(want["char_f1_spans"], abs=5e-5)
        assert res.get("char_f1", "major").value == pytest.approx(want["char_f1_major"], abs=5e-5)
        # two raters: the share of spans the other rating marked exactly = pooled exact F1
        assert res.get("f1_exact").value == pytest.approx(want["exact_span_match"], abs=5e-5)
        assert res.get("matched_exact").value == res.get("f1_exact").value
        kappa = res.get("kappa", "any", pair=(0, 1))
        assert kappa.ci_low < kappa.value < kappa.ci_high
        # the scores: interval alpha (library and package) and Kendall's tau-b
        alpha = krippendorff_alpha(scores, level_of_measurement="interval").value
        assert alpha == pytest.approx(want["alpha_interval"], abs=5e-5)
        assert krippendorff.alpha(reliability_data=scores, level_of_measurement="interval") == pytest.approx(alpha)
        assert stats.kendalltau(scores[0], scores[1]).statistic == pytest.approx(want["kendall_tau_b"], abs=5e-5)


@pytest.mark.parametrize(("lp", "code"), [("en-de", "ende"), ("zh-en", "zhen")])
def test_sxs_alpha_on_segment_mqm(folder, lp, code):
    expected = json.loads((folder / "mqm_sxs_wmt23" / "expected_values.json").read_text())
    ref = expected["reproduced"]["agreement_computed_here_not_published"][lp]
    rows = load_sxs(folder / "mqm_sxs_wmt23", code).rows
    weight = mqm_row_weights([r.severity for r in rows], [r.category for r in rows], weights=MAROT_MQM_WEIGHTS)
    units = {k: i for i, k in enumerate(sorted({(r.system, r.segment) for r in rows}))}
    raters = {k: i for i, k in enumerate(sorted({r.rater for r in rows}))}
    data = np.full((len(raters), len(units)), np.nan)
    for r in rows:
        data[raters[r.rater], units[r.system, r.segment]] = 0.0
    np.add.at(data, ([raters[r.rater] for r in rows], [units[r.system, r.segment] for r in rows]), weight)
    alpha = krippendorff_alpha(data, level_of_measurement="interval").value
    assert alpha == pytest.approx(ref["krippendorff_alpha_interval_segment_mqm"], abs=5e-5)
