"""Pairwise A/B comparison with ties (win / tie / lose), as in Chatbot Arena and PandaLM: two outputs,
their left/right order drawn per assignment and recorded, judgments mapped back to systems."""

import json

from ..adaptive import MAX_JUDGMENTS, adaptive_config_normalise
from ..adaptive import PAIRS as ADAPTIVE_PAIRS
from ..base import TaskType, TaskTypeError, check_gold_criteria, check_system
from ..facts import LEFT_WINS

TIE = "tie"
# What a rating screen answers, as displayed: the left output, a tie, the right output.
SCREEN_CHOICES = ("A", TIE, "B")
# Outcome coded for the item's first output as imported: it loses < tie < it wins.
LOSES, TIES, WINS = 0.0, 1.0, 2.0
# "first" on every page, export and card: the item's first output as imported, whatever side it was shown on.
OUTCOME_NAMES = {LOSES: "first loses", TIES: "tie", WINS: "first wins"}
# task_config: adaptive allocation (annotation.task_types.adaptive) and the judgments every system needs before
# the leaderboard stops being provisional; both may change while the study runs.
CONFIG_FIELDS = ("adaptive", "min_judgments_per_system")
# The key of a rater's balance under which the per-pair balances sit: no system is named "" (imports refuse it).
PAIRS = ""


def _pair_key(systems: list[str]) -> str:
    return json.dumps(sorted(systems))


class Pairwise(TaskType):
    slug = "pairwise"
    label = "Pairwise A/B (win / tie / lose)"
    template_name = "annotation/pairwise/rate.html"
    level_of_measurement = "ordinal"
    min_outputs = 2
    max_outputs = 2
    per_output = False
    position_bias = LEFT_WINS
    category_note = (
        'Outcomes are coded for the item\'s first output as imported ("first wins": it was preferred),'
        " whatever side each rater saw it on."
    )
    live_config_fields = CONFIG_FIELDS
    adaptive_unit = ADAPTIVE_PAIRS

    def normalise_config(self, config):
        """``{"adaptive": {...}, "min_judgments_per_system": n}``, each optional (absent: adaptive allocation off,
        no minimum)."""
        config = {} if config is None else config
        if not isinstance(config, dict) or set(config) - set(CONFIG_FIELDS):
            raise TaskTypeError(f"task_config: a pairwise project takes {', '.join(CONFIG_FIELDS)}; got {config!r}")
        out = {}
        if config.get("adaptive") is not None:
            out["adaptive"] = adaptive_config_normalise(config["adaptive"])
        minimum = config.get("min_judgments_per_system")
        if minimum is not None:
            if isinstance(minimum, bool) or not isinstance(minimum, int) or not 0 <= minimum <= MAX_JUDGMENTS:
                raise TaskTypeError(
                    f"task_config.min_judgments_per_system: a whole number from 0 to {MAX_JUDGMENTS:,}; got {minimum!r}"
                )
            if minimum:
                out["min_judgments_per_system"] = minimum
        return out

    def normalise_scale(self, scale_min, scale_max, labels):
        # The contract accepts and ignores scale fields for pairwise projects.
        return None, None, []

    def normalise_gold(self, gold, criteria, systems):
        """``"bart"`` or ``"tie"`` (every criterion) or ``{"overall": "bart"}`` → ``{"overall": "bart"}``."""
        answers = dict.fromkeys(criteria, gold) if isinstance(gold, str) else check_gold_criteria(gold, criteria)
        out = {}
        for name, winner in answers.items():
            if winner != TIE:
                check_system(winner, systems, f"gold.{name}")
            out[name] = winner
        return out

    def gold_on_screen(self, gold, criterion, shown_systems):
        winner = gold.get(criterion)
        if winner is None:
            return []
        return [
            {
                "criterion": criterion,
                "position": None,
                "value": TIE if winner == TIE else ("A" if winner == shown_systems[0] else "B"),
            }
        ]

    def gold_correct(self, gold, criterion, system, value, spans=(), turn=None):
        """The judgment sits on the first output (``system``) and codes its outcome, whatever side the
        rater saw it on; the expected winner is coded the same way and compared."""
        winner = gold.get(criterion)
        if winner is None:
            return None
        expected = TIES if winner == TIE else (WINS if winner == system else LOSES)
        return value == expected

    def code_value(self, value, criterion, systems, system):
        if not isinstance(value, str):
            raise TaskTypeError(f"value must be the winning system's name or {TIE!r}, got {value!r}")
        if value == TIE:
            return systems[0], TIES, TIE
        check_system(value, systems, "value")
        return systems[0], WINS if value == systems[0] else LOSES, value

    def draw_order(self, systems, rng, left_balance, *, randomise=True):
        """Put on the left the system of this pair that this rater has seen on the left of this pair less
        often, else the one they have seen on the left less often overall (ties drawn at random), so that
        each system is left about half the time per pair of systems and overall; always, whatever
        ``randomise`` says, since a fixed side would bias every judgment."""
        pair = left_balance.get(PAIRS, {}).get(_pair_key(systems), 0)  # the lower name's lefts minus rights
        if pair:
            lower_left = pair < 0
            return [0, 1] if (systems[0] == min(systems)) == lower_left else [1, 0]
        first, second = (left_balance.get(s, 0) for s in systems)
        if first == second:
            return [0, 1] if rng.random() < 0.5 else [1, 0]
        return [0, 1] if first < second else [1, 0]

    def order_record(self, balance, systems, order):
        left, right = systems[order[0]], systems[order[1]]
        balance[left], balance[right] = balance.get(left, 0) + 1, balance.get(right, 0) - 1
        pairs = balance.setdefault(PAIRS, {})
        key = _pair_key(systems)
        pairs[key] = pairs.get(key, 0) + (1 if left == min(systems) else -1)
        return True

    def screen_value(self, value, shown_systems, display_position):
        """``"A"`` (left wins), ``"B"`` (right wins) or ``"tie"`` → the winning system's name or "tie"."""
        if value not in SCREEN_CHOICES:
            raise TaskTypeError(
                f"value must be one of {', '.join(map(repr, SCREEN_CHOICES))} "
                f"(the left output, a tie, the right output), got {value!r}"
            )
        return None, TIE if value == TIE else shown_systems[0 if value == "A" else 1]

    def imported_order_answer(self, value):
        """The outcome of the first output as imported, shown on the left (A)."""
        return {WINS: "A", TIES: TIE, LOSES: "B"}[value]

    def degraded_outputs(self, outputs, degrade, suffix):
        """The first output intact beside its damaged copy: the intact side should win."""
        system, text = outputs[0]
        return [(system, text), (system + suffix, degrade(text))]

    def gold_rows(self, gold):
        return [
            {"criterion": criterion, "system": "", "expected": "a tie" if winner == TIE else f"{winner} is better"}
            for criterion, winner in gold.items()
        ]

    def category_name(self, value, criterion):
        """The coded outcome for the item's first output as imported (not the side it was shown on)."""
        return OUTCOME_NAMES.get(value, f"{value:g}")

    def screen_criterion(self, criterion):
        screen = super().screen_criterion(criterion)
        screen.update(
            scale_min=None,
            scale_max=None,
            labels=[],
            choices=[
                {"value": "A", "label": "A is better"},
                {"value": TIE, "label": "Tie"},
                {"value": "B", "label": "B is better"},
            ],
        )
        return screen
