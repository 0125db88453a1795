"""Pairwise A/B comparison with ties (win / tie / lose), as in Chatbot Arena and PandaLM: two outputs,
their left/right order drawn per assignment and recorded, judgments mapped back to systems."""
from .base import TaskType, TaskTypeError, check_gold_criteria, check_system

TIE = "tie"
# Outcome coded for the item's first output as imported: it loses < tie < it wins.
LOSES, TIES, WINS = 0.0, 1.0, 2.0


class Pairwise(TaskType):
    slug = "pairwise"
    label = "Pairwise A/B (win / tie / lose)"
    template_name = "annotation/pairwise/rate.html"
    level_of_measurement = "ordinal"
    min_outputs = 2
    max_outputs = 2

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

    def code_value(self, value, criterion, systems, system):
        if not isinstance(value, str):
            raise TaskTypeError(f"value must be the winning system's name or {TIE!r}, got {value!r}")
        if value == TIE:
            return systems[0], TIES, TIE
        check_system(value, systems, "value")
        return systems[0], WINS if value == systems[0] else LOSES, value


TYPE = Pairwise()
