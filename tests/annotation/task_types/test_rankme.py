"""rankme: continuous sliders (no fixed choices), numbers in the range per displayed output."""

import math

import pytest

from annotation.models import Criterion
from annotation.task_types import CriterionScale, TaskTypeError
from annotation.task_types.rankme import TYPE


def test_a_slider_criterion_has_no_choices():
    screen = TYPE.screen_criterion(Criterion(name="quality", scale_min=0, scale_max=100, labels=["bad", "good"]))
    assert screen["choices"] is None and screen["labels"] == ["bad", "good"]


def test_slider_values_are_coded_for_the_system_shown():
    system, value = TYPE.screen_value(62.5, ["c", "a", "b"], 2)
    assert TYPE.code_value(value, CriterionScale("quality", 0, 100), ["a", "b", "c"], system) == ("b", 62.5, "")


# --- RankME modulus: unbounded positive magnitudes relative to the reference's fixed score -------------------

WITH_MODULUS = CriterionScale("quality", 0, 100, modulus=100)


@pytest.mark.parametrize("value", [0.001, 1, 100, 250.5, 1e6])
def test_with_a_modulus_any_positive_finite_score_is_taken_as_given(value):
    assert TYPE.code_value(value, WITH_MODULUS, ["a", "b"], "a") == ("a", float(value), "")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "value must be a positive score relative to the modulus (100), got 0"),
        (-5, "value must be a positive score relative to the modulus (100), got -5"),
        (math.nan, "value must be a finite number, got nan"),
        (math.inf, "value must be a finite number, got inf"),
        ("50", "value must be a number, got '50'"),
        (True, "value must be a number, got True"),
        (None, "value must be a number, got None"),
    ],
)
def test_with_a_modulus_zero_negatives_non_finite_and_non_numbers_are_refused(value, message):
    with pytest.raises(TaskTypeError) as caught:
        TYPE.code_value(value, WITH_MODULUS, ["a", "b"], "a")
    assert str(caught.value) == message


def test_without_a_modulus_the_range_still_bounds_the_slider():
    with pytest.raises(TaskTypeError, match="value 250 is off the scale 0–100"):
        TYPE.code_value(250, CriterionScale("quality", 0, 100), ["a", "b"], "a")
    assert TYPE.code_value(0, CriterionScale("quality", 0, 100), ["a", "b"], "a")[1] == 0.0


def test_gold_ranges_with_a_modulus_are_positive_and_unbounded():
    gold = TYPE.normalise_gold({"quality": {"a": [150, 400]}}, {"quality": WITH_MODULUS}, ["a", "b"])
    assert gold == {"quality": {"a": [150.0, 400.0]}}
    with pytest.raises(TaskTypeError, match=r"gold.quality.a low must be a positive score"):
        TYPE.normalise_gold({"quality": {"a": [0, 50]}}, {"quality": WITH_MODULUS}, ["a", "b"])


def test_the_modulus_slider_runs_over_log10_of_the_score_from_a_hundredth_to_a_hundred_times_it():
    criterion = {"scale_min": None, "scale_max": None}
    unset = TYPE.slider(criterion, None, 100.0)
    assert unset == {
        "low": "0",
        "high": "4",
        "step": "0.01",
        "position": "2",
        "log_scale": True,
        "ends": ("1", "10000"),
    }
    assert TYPE.slider(criterion, 1000.0, 100.0)["position"] == "3"
    # a refused form sends its strings back; a non-number or non-positive one leaves the slider at the modulus
    assert TYPE.slider(criterion, "10", 100.0)["position"] == "1"
    assert TYPE.slider(criterion, "-3", 100.0)["position"] == "2"


def test_the_plain_slider_spans_the_criterion_range():
    slider = TYPE.slider({"scale_min": 0.0, "scale_max": 10.0}, 7.5, None)
    assert slider == {
        "low": "0",
        "high": "10",
        "step": "0.1",
        "position": "7.5",
        "log_scale": False,
        "ends": ("0", "10"),
    }  # shown beside the slider when the criterion names no ends
