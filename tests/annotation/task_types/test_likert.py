"""likert: the rating screen's side (criteria with their points, values per displayed output)."""

import random

import pytest

from annotation.models import Criterion
from annotation.task_types import TaskTypeError
from annotation.task_types.likert import TYPE


def test_screen_criterion_lists_every_point_with_its_label():
    criterion = Criterion(name="fluency", scale_min=1, scale_max=3, labels=["bad", "ok", "good"])

    screen = TYPE.screen_criterion(criterion)

    assert screen["choices"] == [
        {"value": 1, "label": "bad"},
        {"value": 2, "label": "ok"},
        {"value": 3, "label": "good"},
    ]


def test_a_screen_value_names_the_system_shown_at_its_position():
    assert TYPE.screen_value(4, ["t5", "bart"], 1) == ("bart", 4)
    assert TYPE.screen_value(4, ["t5"], None) == ("t5", 4)  # one output: position may be left out


@pytest.mark.parametrize("position", [None, 2, -1, True, "0"])
def test_a_bad_or_missing_position_is_refused(position):
    with pytest.raises(TaskTypeError, match="position"):
        TYPE.screen_value(4, ["t5", "bart"], position)


def test_outputs_are_drawn_in_a_fresh_order():
    orders = {tuple(TYPE.draw_order(["a", "b", "c"], random.Random(seed), {})) for seed in range(30)}
    assert len(orders) > 1 and all(sorted(o) == [0, 1, 2] for o in orders)


def test_form_values_read_as_numbers_when_they_are():
    assert TYPE.form_value(" 4 ") == 4 and TYPE.form_value("2.5") == 2.5 and TYPE.form_value("x") == "x"
