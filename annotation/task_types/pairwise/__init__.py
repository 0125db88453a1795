"""The pairwise task type: one package with its coding, declared facts, card wording and rater screen."""

from pathlib import Path

from .coding import LOSES, OUTCOME_NAMES, TIE, TIES, WINS, Pairwise
from .facts import FACTS

TYPE = Pairwise(Path(__file__).parent, FACTS)

__all__ = ["LOSES", "OUTCOME_NAMES", "TIE", "TIES", "TYPE", "WINS"]
