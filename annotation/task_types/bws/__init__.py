"""The best–worst scaling task type: one package with its coding, tuple design, declared facts, card wording and
rater screen."""

from pathlib import Path

from .coding import BestWorst
from .facts import FACTS

TYPE = BestWorst(Path(__file__).parent, FACTS)

__all__ = ["TYPE"]
