"""rankme: continuous sliders (no fixed choices), numbers in the range per displayed output."""
from annotation.models import Criterion
from annotation.task_types import CriterionScale
from annotation.task_types.rankme import TYPE


def test_a_slider_criterion_has_no_choices():
    screen = TYPE.screen_criterion(Criterion(name="quality", scale_min=0, scale_max=100, labels=["bad", "good"]))
    assert screen["choices"] is None and screen["labels"] == ["bad", "good"]


def test_slider_values_are_coded_for_the_system_shown():
    system, value = TYPE.screen_value(62.5, ["c", "a", "b"], 2)
    assert TYPE.code_value(value, CriterionScale("quality", 0, 100), ["a", "b", "c"], system) == ("b", 62.5, "")
