"""Best–worst scaling (Louviere, Flynn and Marley 2015; Kiritchenko and Mohammad 2017): the rater sees a tuple of
k outputs and picks the best and the worst. A tuple is an item whose outputs name the scaled outputs by a stable
id (their ``system``); each output of the screen is coded 1 (picked best), −1 (picked worst) or 0 (neither), so
an output's counting score, (best − worst) / appearances, is the mean of its coded values.

The lead imports tuples as items (a design made elsewhere), or the outputs to scale, one line each, from which
the platform draws the design (``design``). With adaptive allocation (``task_config.adaptive``) the next screen's
tuple is drawn among the project's tuples with probabilities that favour the informative ones, and the MaxDiff
results weight each answer by its recorded probability (evaluation.stats.adaptive_tuples)."""

import random

from ..adaptive import TUPLES, adaptive_config_normalise
from ..base import TaskType, TaskTypeError, check_gold_criteria, check_system, number
from ..facts import TOP_FIRST
from .design import design_lines

BEST, NEITHER, WORST = 1.0, 0.0, -1.0
ANSWERS = {"best": BEST, "neither": NEITHER, "worst": WORST}
NAMES = {v: k for k, v in ANSWERS.items()}
# The fixed scale every criterion gets: its categories are the coded values, lowest first.
LABELS = ["worst", "neither", "best"]
PICKS = ("best", "worst")
DEFAULT_K = 4
# The usual design: 2N tuples for N outputs (Kiritchenko and Mohammad 2016, 2017).
DEFAULT_TUPLES_PER_OUTPUT = 2.0
MAX_K = 20
MAX_TUPLES_PER_OUTPUT = 50
CONFIG_FIELDS = ("k", "tuples_per_output", "seed", "adaptive")


def _whole(value, what: str, low: int, high: int) -> int:
    x = number(value, what)
    if not x.is_integer() or not low <= x <= high:
        raise TaskTypeError(f"{what} must be a whole number from {low} to {high}, got {value!r}")
    return int(x)


def _systems(value, systems: list[str], what: str) -> list[str]:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(s, str) for s in names):
        raise TaskTypeError(f"{what} must name a system of the tuple, or list the systems that count as right")
    return [check_system(s, systems, what) for s in names]


class BestWorst(TaskType):
    slug = "bws"
    label = "Best–worst scaling (pick the best and the worst of k)"
    template_name = "annotation/bws/rate.html"
    level_of_measurement = "nominal"
    # An item is a tuple of outputs; a line with one output is an output to scale (the platform draws the tuples).
    min_outputs = 1
    position_bias = TOP_FIRST
    category_note = (
        "Each output of a tuple is coded 1 when the rater picked it best, −1 when picked worst, 0 otherwise. "
        "Agreement is on the pairs of a tuple's outputs that a pick orders: there 1 (\"best\") means the pair's "
        'first output (as stored) was preferred, −1 ("worst") its second.'
    )
    degraded_note = (
        "Degraded copies tell nothing in best–worst scaling: a screen's picks always sum to zero (one best, one "
        "worst), so a damaged tuple cannot score lower than its original. Check raters with gold tuples (an "
        "expected best and/or worst) and repeats instead."
    )
    # Outputs the rater picked neither best nor worst need no answer of their own.
    unanswered_value = "neither"
    draws_screens = True
    checks_screens = True
    live_config_fields = ("adaptive",)
    adaptive_unit = TUPLES

    def normalise_scale(self, scale_min, scale_max, labels):
        if any(given is not None and given != end for given, end in zip((scale_min, scale_max), (-1, 1), strict=True)):
            raise TaskTypeError(
                "scale_min, scale_max: best–worst answers are coded −1 (worst), 0, 1 (best); leave them out"
            )
        if labels and list(labels) != LABELS:
            raise TaskTypeError("labels: best–worst answers take no labels of their own")
        return -1.0, 1.0, list(LABELS)

    def normalise_config(self, config):
        """``k`` outputs per tuple (default 4), ``tuples_per_output`` (2: the usual 2N tuples for N outputs), the
        design's ``seed`` (drawn once when not given, and kept, so the design can be drawn again) and, optional,
        ``adaptive`` allocation of the tuples (annotation.task_types.adaptive; it may change while the study
        runs)."""
        config = {} if config is None else config
        if not isinstance(config, dict) or set(config) - set(CONFIG_FIELDS):
            raise TaskTypeError(f"task_config: a best–worst project takes {', '.join(CONFIG_FIELDS)}, got {config!r}")
        k = _whole(config.get("k", DEFAULT_K), "task_config.k", 2, MAX_K)
        per = number(config.get("tuples_per_output", DEFAULT_TUPLES_PER_OUTPUT), "task_config.tuples_per_output")
        if not 0 < per <= MAX_TUPLES_PER_OUTPUT:
            raise TaskTypeError(f"task_config.tuples_per_output must be above 0 and at most {MAX_TUPLES_PER_OUTPUT}")
        seed = config.get("seed")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        seed = _whole(seed, "task_config.seed", 0, 2**31 - 1)
        out = {"k": k, "tuples_per_output": per, "seed": seed}
        if config.get("adaptive") is not None:
            out["adaptive"] = adaptive_config_normalise(config["adaptive"])
        return out

    def screens_from_outputs(self, outputs, config, *, first):
        """The tuples of the seeded design over the imported outputs (``design``)."""
        return design_lines(outputs, config, first_tuple=first)

    def check_output_count(self, n):
        if n < 1:
            raise TaskTypeError("outputs: a best–worst line needs one output to scale, or the outputs of a tuple")

    def normalise_gold(self, gold, criteria, systems):
        """``{"best": "bart", "worst": "t5"}`` (every criterion) or ``{"overall": {"best": "bart"}}``, either pick
        alone or both, a list where several outputs count as right → ``{"overall": {"best": ["bart"], ...}}``."""
        if isinstance(gold, dict) and gold and set(gold) <= set(PICKS):
            gold = dict.fromkeys(criteria, gold)
        out = {}
        for name, answer in check_gold_criteria(gold, criteria).items():
            if not isinstance(answer, dict) or not answer or set(answer) - set(PICKS):
                raise TaskTypeError(f'gold.{name} must give best and/or worst, e.g. {{"best": "bart"}}')
            out[name] = {
                pick: _systems(answer[pick], systems, f"gold.{name}.{pick}") for pick in PICKS if pick in answer
            }
            if set(out[name].get("best", ())) & set(out[name].get("worst", ())):
                raise TaskTypeError(f"gold.{name}: an output cannot be both best and worst")
        return out

    def gold_on_screen(self, gold, criterion, shown_systems):
        answer = gold.get(criterion) or {}
        return [
            {"criterion": criterion, "position": p, "value": pick}
            for pick in PICKS
            if len(answer.get(pick, ())) == 1
            for p, s in enumerate(shown_systems)
            if s == answer[pick][0]
        ]

    def gold_correct(self, gold, criterion, system, value, spans=(), turn=None):
        """A pick counts: the output picked best is one the gold names best, and the same for worst; an output
        picked neither says nothing (the pick that missed counts once, where it went)."""
        answer = gold.get(criterion) or {}
        pick = {BEST: "best", WORST: "worst"}.get(value)
        if pick not in answer:
            return None
        return system in answer[pick]

    def code_value(self, value, criterion, systems, system):
        if system is None:
            raise TaskTypeError("system: name the output of the tuple this answer is for")
        check_system(system, systems, "system")
        if isinstance(value, str) and value in ANSWERS:
            coded = ANSWERS[value]
        elif isinstance(value, int | float) and not isinstance(value, bool) and value in NAMES:
            coded = float(value)
        else:
            raise TaskTypeError(f'value must be "best", "worst" or "neither" (or 1, −1, 0), got {value!r}')
        return system, coded, NAMES[coded]

    def check_screen(self, values: list[float]) -> None:
        n_best, n_worst = values.count(BEST), values.count(WORST)
        if n_best != 1 or n_worst != 1:
            raise TaskTypeError(
                f"pick exactly one best and one worst output, got {n_best} best and {n_worst} worst"
                + (" (best and worst must be two different outputs)" if len(values) > 1 else "")
            )

    def form_field(self, suffix: str, raw: str):
        """The screen's two radio groups per criterion, ``best`` and ``worst``, whose values number the outputs
        as displayed from 1 → (display position, the pick)."""
        if suffix not in PICKS:
            return super().form_field(suffix, raw)
        shown = raw.strip()
        position = int(shown) - 1 if shown.isascii() and shown.isdigit() and len(shown) <= 3 else None
        if position is None or position < 0:
            raise TaskTypeError(f"{suffix}: choose one of the outputs shown")
        return position, suffix

    def screen_answer(self, value):
        return NAMES.get(value, value)

    def gold_rows(self, gold):
        return [
            {
                "criterion": criterion,
                "system": "",
                "expected": "; ".join(f"{pick}: {' or '.join(answer[pick])}" for pick in PICKS if pick in answer),
            }
            for criterion, answer in gold.items()
        ]

    def question_fields(self, question, modulus, config):
        """The two picks the screen asks per criterion, in order."""
        return {"picks": PICKS}

    def screen_criterion(self, criterion):
        screen = super().screen_criterion(criterion)
        screen["choices"] = [{"value": name, "label": name} for name in ("best", "worst", "neither")]
        return screen
