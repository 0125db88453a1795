"""The RankME task type: one package with its coding, declared facts, card wording and rater screen."""

from pathlib import Path

from .coding import LOG_DECADES, RankME, williams_row
from .facts import FACTS

TYPE = RankME(Path(__file__).parent, FACTS)

__all__ = ["LOG_DECADES", "TYPE", "williams_row"]
