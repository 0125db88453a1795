"""pairwise: A / tie / B as displayed, mapped to systems; left/right balanced per rater."""

import random

import pytest

from annotation.models import Criterion
from annotation.task_types import TaskTypeError
from annotation.task_types.pairwise import LOSES, TIES, TYPE, WINS


def test_a_b_tie_name_the_winner_as_displayed():
    shown = ["t5", "bart"]  # t5 on the left
    assert TYPE.screen_value("A", shown, None) == (None, "t5")
    assert TYPE.screen_value("B", shown, 0) == (None, "bart")  # a position is ignored
    assert TYPE.screen_value("tie", shown, None) == (None, "tie")


@pytest.mark.parametrize("value", ["a", "left", 1, None, "bart"])
def test_anything_else_is_refused(value):
    with pytest.raises(TaskTypeError, match="must be one of 'A', 'tie', 'B'"):
        TYPE.screen_value(value, ["t5", "bart"], None)


def test_the_winner_is_coded_for_the_first_output_as_imported_whatever_was_shown():
    systems = ["bart", "t5"]
    crit = None
    for shown in (["bart", "t5"], ["t5", "bart"]):
        _, winner = TYPE.screen_value("A", shown, None)
        judged, value, label = TYPE.code_value(winner, crit, systems, None)
        assert judged == "bart" and label == shown[0]
        assert value == (WINS if shown[0] == "bart" else LOSES)
    assert TYPE.code_value("tie", crit, systems, None)[1] == TIES


def test_the_side_seen_less_often_on_the_left_goes_left():
    rng = random.Random(0)
    assert TYPE.draw_order(["bart", "t5"], rng, {"bart": 3, "t5": -3}) == [1, 0]
    assert TYPE.draw_order(["bart", "t5"], rng, {"bart": -1}) == [0, 1]
    ties = {tuple(TYPE.draw_order(["bart", "t5"], random.Random(s), {})) for s in range(20)}
    assert ties == {(0, 1), (1, 0)}


def test_the_screen_offers_a_tie_b():
    screen = TYPE.screen_criterion(Criterion(name="overall"))
    assert [c["value"] for c in screen["choices"]] == ["A", "tie", "B"]
    assert screen["scale_min"] is None and not TYPE.per_output
