"""The agreement trend chart of an export: the main coefficient per criterion per week, cumulative
(line, with its 95% interval as a band and bars) and that week alone (crosses), drawn with matplotlib's Agg canvas
(no display, no pyplot state) into PNG bytes without a timestamp, so the same data gives the same file."""

import io

from .card_facts import TrendPoint

PALETTE = ["#0b5cad", "#b35c00", "#116329", "#8250df", "#a40e26", "#1b7c83"]


def trend_png(trend: dict[str, dict[str, tuple[TrendPoint, ...]]], *, statistic: str) -> bytes | None:
    """PNG bytes of ``trend`` (per criterion and window, as ``AgreementFacts.trend``), or None when matplotlib is
    not installed (the card then says so)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    weeks = sorted({p.week for series in trend.values() for points in series.values() for p in points})
    if not weeks:
        return None
    position = {week: k for k, week in enumerate(weeks)}
    figure = Figure(figsize=(8, 4.2), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for k, (criterion, series) in enumerate(trend.items()):
        colour = PALETTE[k % len(PALETTE)]
        # (x, value, low, high) of the points with a value
        cumulative = [
            (position[p.week], p.value, p.ci_low, p.ci_high)
            for p in series.get("cumulative", ())
            if p.value is not None
        ]
        axes.plot(
            [x for x, *_ in cumulative],
            [value for _, value, *_ in cumulative],
            color=colour,
            marker="o",
            label=f"{criterion} (cumulative)",
        )
        band = [(x, value, low, high) for x, value, low, high in cumulative if low is not None and high is not None]
        if band:
            at, values, lows, highs = map(list, zip(*band, strict=True))
            axes.fill_between(at, lows, highs, color=colour, alpha=0.15, linewidth=0)
            # the band has no width at a single week: every interval is also drawn as a bar with caps
            axes.errorbar(
                at,
                values,
                yerr=[
                    [value - low for value, low in zip(values, lows, strict=True)],
                    [high - value for value, high in zip(values, highs, strict=True)],
                ],
                fmt="none",
                ecolor=colour,
                elinewidth=1,
                capsize=4,
                alpha=0.8,
            )
        weekly = [(position[p.week], p.value) for p in series.get("week", ()) if p.value is not None]
        axes.scatter(
            [x for x, _ in weekly],
            [value for _, value in weekly],
            color=colour,
            marker="x",
            alpha=0.7,
            label=f"{criterion} (that week)",
        )
    axes.set_xticks(range(len(weeks)))
    step = max(1, len(weeks) // 12)
    axes.set_xticklabels([w if k % step == 0 else "" for k, w in enumerate(weeks)], rotation=30, ha="right", fontsize=8)
    axes.set_ylabel(statistic)
    axes.set_xlabel("week of")
    axes.axhline(0, color="#999", linewidth=0.6)
    axes.set_ylim(min(0.0, axes.get_ylim()[0]), max(1.0, axes.get_ylim()[1]))
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize=7, loc="lower left", ncol=2)
    axes.set_title("Agreement per week with 95% bootstrap intervals", fontsize=10)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()
