"""The Likert task type: one package with its coding, declared facts, card wording and rater screen."""

from pathlib import Path

from .coding import Likert
from .facts import FACTS

TYPE = Likert(Path(__file__).parent, FACTS)
