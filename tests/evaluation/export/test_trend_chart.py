"""The exported agreement_trend.png draws the 95% intervals it promises, a single week included."""

import io

import pytest

from evaluation.export.card_facts import TrendPoint
from evaluation.export.chart import trend_png

pytest.importorskip("matplotlib")
from matplotlib.image import imread  # noqa: E402


def blue_rows(png: bytes) -> int:
    """Rows of the image where the first series' blue (#0b5cad, or its light band) is drawn: the height it spans."""
    pixels = imread(io.BytesIO(png))[..., :3]
    blue = (pixels[..., 2] - pixels[..., 0] > 0.05) & (pixels[..., 2] > pixels[..., 1])
    return int(blue.any(axis=1).sum())


def point(week, value, low, high):
    return TrendPoint(week=week, value=value, ci_low=low, ci_high=high, n_units=40, status="ok", unreliable=False)


@pytest.mark.parametrize("weeks", [["2026-11-02"], ["2026-11-02", "2026-11-09", "2026-11-16"]])
def test_each_interval_is_drawn_around_its_value(weeks):
    with_intervals = {"fluency": {"cumulative": tuple(point(w, 0.5, 0.1, 0.9) for w in weeks), "week": ()}}
    without = {"fluency": {"cumulative": tuple(point(w, 0.5, None, None) for w in weeks), "week": ()}}
    spans = blue_rows(trend_png(with_intervals, statistic="alpha")), blue_rows(trend_png(without, statistic="alpha"))
    # the interval runs from 0.1 to 0.9 on an axis of about 0 to 1: most of the plot's height, not a dot's
    assert spans[0] > spans[1] + 150
