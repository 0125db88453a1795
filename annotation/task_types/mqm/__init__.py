"""The MQM task type: one package with its coding, declared facts, card wording and rater screen."""

from pathlib import Path

from .coding import MQM
from .facts import FACTS

TYPE = MQM(Path(__file__).parent, FACTS)
