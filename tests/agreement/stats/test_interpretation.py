"""Landis-Koch bands and Krippendorff's thresholds, with their caveats."""

import pytest

from agreement.stats.interpretation import LANDIS_KOCH_CAVEAT, krippendorff_guideline, landis_koch


@pytest.mark.parametrize(
    ("value", "label"),
    # Landis & Koch (1977), p. 165: <0 poor, 0-.20 slight, .21-.40 fair, .41-.60 moderate,
    # .61-.80 substantial, .81-1 almost perfect
    [
        (-0.1, "poor"),
        (0.0, "slight"),
        (0.2, "slight"),
        (0.21, "fair"),
        (0.4, "fair"),
        (0.41, "moderate"),
        (0.6, "moderate"),
        (0.61, "substantial"),
        (0.8, "substantial"),
        (0.81, "almost perfect"),
        (1.0, "almost perfect"),
    ],
)
def test_landis_koch_bands(value, label):
    res = landis_koch(value)
    assert res.label == label and str(res) == label
    assert res.caveat == LANDIS_KOCH_CAVEAT and "arbitrary" in res.caveat


def test_krippendorff_thresholds():
    assert [krippendorff_guideline(v).label for v in (0.9, 0.8, 0.7, 0.667, 0.66)] == [
        "reliable",
        "reliable",
        "tentative",
        "tentative",
        "unreliable",
    ]


@pytest.mark.parametrize("bad", [float("nan"), 1.5, -2, "high"])
def test_rejects_non_coefficients(bad):
    with pytest.raises(ValueError, match=r"expected a coefficient in \[-1, 1\]"):
        landis_koch(bad)
