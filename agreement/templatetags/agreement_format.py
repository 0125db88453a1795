"""Formatting of agreement figures in templates."""
from django import template

register = template.Library()

LABELS = {
    "krippendorff_alpha_ordinal": "Krippendorff's α (ordinal)",
    "krippendorff_alpha_nominal": "Krippendorff's α (nominal)",
    "krippendorff_alpha_interval": "Krippendorff's α (interval)",
    "krippendorff_alpha_interval_rater_z": "α (interval, per-rater z-scores)",
    "fleiss_kappa": "Fleiss' κ",
    "gwet_ac1": "Gwet's AC1",
    # weights on the positions of the declared categories (for a Likert scale's 1..k, its values too)
    "gwet_ac2_quadratic": "Gwet's AC2 (quadratic weights on category positions)",
    "percent_agreement": "Pairwise % agreement",
    "icc_1_1": "ICC(1,1)",
    "cohen_kappa": "Cohen's κ",
    "cohen_kappa_quadratic": "Cohen's κ (quadratic weights)",
    "alpha_change_without_rater": "α change without the rater",
    "coincidence_matrix": "Coincidence matrix",
    "mean_pair_agreement": "Mean agreement with others",
}


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if mapping else None


@register.filter
def statistic_label(name):
    return LABELS.get(name, name)


@register.filter
def percent(value):
    return "—" if value is None else f"{100 * value:.1f}%"


@register.filter
def signed(value):
    return f"{value:+.3f}"


@register.filter
def signed_points(share):
    """A difference of shares in percentage points: +3.2 points."""
    return f"{100 * share:+.1f} percentage points"


@register.filter
def seconds(milliseconds):
    return f"{milliseconds / 1000:.1f} s"


@register.filter
def heat_colour(value):
    """Red (≤ 0) through yellow to green (1); grey when undefined."""
    if value is None:
        return "#eaeef2"
    share = max(0.0, min(1.0, value))
    return f"hsl({int(120 * share)}, 70%, 80%)"


@register.filter
def excess_colour(shade):
    """Diverging, for a share above (blue, up to 1) or below (red, down to −1) what chance gives; white at chance.
    Lightness stays at or above 62%, so dark text keeps its contrast."""
    x = max(-1.0, min(1.0, shade))
    return f"hsl({212 if x >= 0 else 4}, {int(75 * abs(x))}%, {int(100 - 38 * abs(x))}%)"
