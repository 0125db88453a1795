"""How the data card and the HEDS sheet word an MQM study, naming the project's typology and weights."""

from ..card_wording import RANDOM_ORDER
from ..facts import Card, CriterionScale


def _scale(criterion: CriterionScale, modulus: float | None) -> str:
    return (
        "error spans, each with a category of the typology and a severity (minor, major, critical); the "
        "value is the weighted sum of the errors (0 = no error; lower is better)"
    )


def _heds_scale(criterion: CriterionScale, modulus: float | None) -> tuple[str, str]:
    return "continuous", "MQM penalty ≥ 0: the sum of the marked errors' weights"


def _category(node: dict) -> str:
    if node.get("whole_segment"):
        return f"{node['name']} (the whole output)"
    if node.get("source"):
        return f"{node['name']} (marked in the source)"
    return node["name"] + (f" ({', '.join(node['children'])})" if node.get("children") else "")


def _rule(rule: dict) -> str:
    what = " ".join(filter(None, (rule.get("severity"), rule.get("category")))) or "any error"
    return f"{what} {rule['weight']:g}"


def _settings(config: dict) -> str:
    return (
        f"Typology: {'; '.join(map(_category, config['typology']))}. Severities: "
        f"{', '.join(config['severities'])}. Weights (the first rule that fits a span counts): "
        f"{'; '.join(map(_rule, config['weights']))}."
    )


CARD = Card(
    name="MQM (Multidimensional Quality Metrics)",
    description="Raters read the source (and the reference, when shown) beside the output and mark every error in "
    "it as a span with a category of the project's error typology and a severity (minor, major, critical), mark "
    "errors in the source, a whole output left untranslated (non-translation), or say it has no error (Freitag et "
    "al., TACL 2021). Spans are stored with offsets in Unicode code points of the text as imported. An output's "
    "value is its MQM penalty: the sum of its errors' weights (by default WMT's: major 5, minor 1, minor "
    "Fluency/Punctuation 0.1, non-translation 25, critical as major).",
    order_policy=RANDOM_ORDER,
    shown_first="judged output first",
    elicitation="error annotation (category and severity of each error)",
    instrument="text span selection with category and severity choices",
    assessment="absolute",
    scale=_scale,
    heds_scale=_heds_scale,
    aggregation="Per output: mean of the raters' MQM penalties; per system: mean over outputs and per error "
    "category, ranked with WMT's significance clusters on the platform's results page (lower is better).",
    distribution_bins=(" (per unit of penalty).", " (per unit of penalty)."),
    outputs_shown="the output(s), each with its own error spans",
    settings=_settings,
)
