"""How the data card and the HEDS sheet word a best–worst scaling study."""

from ..card_wording import RANDOM_ORDER
from ..facts import Card, CriterionScale


def _scale(criterion: CriterionScale, modulus: float | None) -> str:
    return (
        "on screen: one output picked best and one worst of the tuple; stored per output: 1 best, 0 neither, −1 worst"
    )


def _heds_scale(criterion: CriterionScale, modulus: float | None) -> tuple[int, str]:
    return 3, "picked best (1), neither (0), picked worst (−1), one best and one worst per tuple"


def _settings(config: dict) -> str:
    design = (
        f"A design drawn from imported outputs has tuples of k = {config['k']} and "
        f"{config['tuples_per_output']:g} × N tuples for N outputs, from seed {config['seed']} "
        "(evaluation.stats.bws_tuples: every output in about the same number of tuples, pairs of outputs together "
        "about equally often); each drawn tuple's meta records its design. Imported tuples keep their own size."
    )
    adaptive = config.get("adaptive")
    if not adaptive:
        return design
    target = "the top " + str(adaptive["top_k"]) if adaptive["target"] == "top_k" else "the whole ranking"
    return (
        f"{design} Screens' tuples were drawn adaptively (evaluation.stats.adaptive_tuples) to sharpen {target}, "
        f"keeping {adaptive['floor']:g} of a uniform draw; the platform recorded the probability each tuple was "
        f"drawn with and fits MaxDiff with weighting {adaptive['weighting']} (the counting scores are unweighted)."
    )


CARD = Card(
    name="best–worst scaling (BWS)",
    description="Raters see a tuple of k outputs and pick the best and the worst on each criterion (Louviere, Flynn "
    "and Marley 2015; Kiritchenko and Mohammad 2017). Judgments are stored per output of the tuple: 1 picked best, "
    "−1 picked worst, 0 neither; `system` names the scaled output (its stable id in every tuple).",
    order_policy=RANDOM_ORDER,
    shown_first="judged output first",
    elicitation="relative quality estimation (including ranking)",
    instrument="multiple-choice options",
    assessment="relative",
    scale=_scale,
    heds_scale=_heds_scale,
    aggregation="Per output: the counting score (times best − times worst) / times shown, the mean of its coded "
    "values, with percentile bootstrap intervals over tuples; MaxDiff (best–worst multinomial logit) strengths with "
    "bootstrap intervals; and the split-half reliability of the counting scores (Spearman–Brown corrected, averaged "
    "over 100 random splits of each tuple's judgments) on the platform's results page.",
    outputs_shown="a tuple of k outputs side by side",
    settings=_settings,
)
