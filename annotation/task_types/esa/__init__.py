"""The ESA task type: one package with its coding, declared facts, card wording and rater screen."""

from pathlib import Path

from .coding import ESA
from .facts import FACTS

TYPE = ESA(Path(__file__).parent, FACTS)
