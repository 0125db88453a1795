"""ESA and MQM as task types: their criteria and settings checked, and an answer per output coded (spans
checked against the texts in code points, the ESA score, the MQM penalty under the project's weights)."""

import math

import pytest

from annotation.task_types import REGISTRY, CriterionScale, Proposal, ScreenTexts, Span, TaskTypeError
from annotation.task_types.error_spans import DEFAULT_TYPOLOGY, MAX_SPANS, damaged_region

ESA, MQM = REGISTRY["esa"], REGISTRY["mqm"]
ESA_CONFIG, MQM_CONFIG = ESA.normalise_config(None), MQM.normalise_config({})
SCORE = CriterionScale("quality", 0.0, 100.0)
ERRORS = CriterionScale("errors", None, None)
OUTPUT = "The cat sat on the mat."
TEXTS = ScreenTexts("Die Katze saß auf der Matte.", {"mt": OUTPUT}, {})


def esa(value, texts=TEXTS):
    return ESA.code_answer(value, SCORE, ["mt"], "mt", config=ESA_CONFIG, texts=texts)


def mqm(value, texts=TEXTS, config=MQM_CONFIG):
    return MQM.code_answer(value, ERRORS, ["mt"], "mt", config=config, texts=texts)


def test_esa_codes_the_score_and_keeps_the_spans():
    coded = esa({"spans": [{"start": 4, "end": 7, "severity": "major"}], "score": 42})
    assert (coded.system, coded.value) == ("mt", 42.0)
    [span] = coded.spans
    assert (span.side, span.start, span.end, span.severity, span.category, span.origin) == (
        "target",
        4,
        7,
        "major",
        "",
        "added",
    )


def test_no_error_takes_no_span_and_some_answer_is_needed():
    assert esa({"spans": [], "no_error": True, "score": 100}).spans == ()
    with pytest.raises(TaskTypeError, match="no_error is true but 1 error span is marked"):
        esa({"spans": [{"start": 0, "end": 3, "severity": "minor"}], "no_error": True, "score": 90})
    with pytest.raises(TaskTypeError, match="mark at least one error span, or set no_error"):
        esa({"spans": [], "score": 90})


@pytest.mark.parametrize(
    ("span", "message"),
    [
        ({"start": 20, "end": 24, "severity": "minor"}, r"value.spans\[0\]: \[20, 24\) is not within the output \(23"),
        ({"start": 5, "end": 4, "severity": "minor"}, r"value.spans\[0\]: \[5, 4\)"),
        ({"start": -1, "end": 4, "severity": "minor"}, r"value.spans\[0\]: \[-1, 4\)"),
        ({"start": 0, "end": 10**18, "severity": "minor"}, r"value.spans\[0\]: \[0, 1000000"),
        ({"start": 0, "end": 10**400, "severity": "minor"}, r"value.spans\[0\].end must be a whole number"),
        ({"start": 0, "end": 1e300, "severity": "minor"}, r"value.spans\[0\]: \[0, 1000000"),
        ({"start": math.nan, "end": 4, "severity": "minor"}, r"value.spans\[0\].start must be a whole number"),
        ({"start": 1.5, "end": 4, "severity": "minor"}, r"value.spans\[0\].start must be a whole number"),
        ({"start": True, "end": 4, "severity": "minor"}, r"value.spans\[0\].start must be a whole number"),
        ({"end": 4, "severity": "minor"}, r"value.spans\[0\].start is missing"),
        ({"start": 0, "end": 4, "severity": "critical"}, r"value.spans\[0\].severity: unknown severity 'critical'"),
        ({"start": 0, "end": 4, "severity": "minor", "category": "Accuracy"}, r"spans take no category here"),
        ({"start": 0, "end": 4, "severity": "minor", "side": "source"}, r"in the output only here"),
        ({"start": 0, "end": 4, "severity": "minor", "colour": "red"}, r"value.spans\[0\]: unknown field 'colour'"),
        ({"start": 0, "end": 4, "severity": "minor", "origin": "accepted"}, r"this output has no proposed spans"),
    ],
)
def test_a_bad_span_is_refused_naming_its_field_and_position(span, message):
    with pytest.raises(TaskTypeError, match=message):
        esa({"spans": [{"start": 0, "end": 1, "severity": "minor"}, span][1:], "score": 50})


def test_the_score_is_checked():
    for score, message in [
        (None, "value.score is missing"),
        (101, "off the scale 0–100"),
        (math.inf, "finite"),
        ("50", "must be a number"),
        (10**400, "value.score is too large a number"),
        (10**400 // 10**399, None),
    ]:
        if message is None:
            assert esa({"spans": [], "no_error": True, "score": score}).value == 10.0
            continue
        with pytest.raises(TaskTypeError, match=message):
            esa({"spans": [], "no_error": True, "score": score})
    with pytest.raises(TaskTypeError, match="unknown field 'score'"):
        mqm({"spans": [], "no_error": True, "score": 50})


def test_too_many_spans_are_refused():
    spans = [{"start": 0, "end": 1, "severity": "minor"}] * (MAX_SPANS + 1)
    with pytest.raises(TaskTypeError, match=f"at most {MAX_SPANS} spans"):
        esa({"spans": spans, "score": 10})


def test_offsets_count_code_points_of_astral_combining_and_crlf_text():
    text = "a😀b\r\ne\u0301!"  # an astral emoji (2 UTF-16 units), CRLF, e + combining acute
    texts = ScreenTexts("", {"mt": text}, {})
    assert len(text) == 8
    coded = esa(
        {
            "spans": [
                {"start": 1, "end": 2, "severity": "minor"},
                {"start": 3, "end": 5, "severity": "major"},
                {"start": 5, "end": 7, "severity": "minor"},
            ],
            "score": 30,
        },
        texts,
    )
    assert [text[s.start : s.end] for s in coded.spans] == ["😀", "\r\n", "e\u0301"]
    assert esa({"spans": [{"start": 7, "end": 8, "severity": "minor"}], "score": 1}, texts).spans[0].end == 8
    with pytest.raises(TaskTypeError, match=r"not within the output \(8 code points"):
        esa({"spans": [{"start": 7, "end": 9, "severity": "minor"}], "score": 1}, texts)


def test_mqm_penalty_uses_the_wmt_weights_by_default():
    spans = [
        {"start": 0, "end": 3, "severity": "minor", "category": "Fluency/Punctuation"},
        {"start": 4, "end": 7, "severity": "major", "category": "Accuracy/Mistranslation"},
        {"start": 8, "end": 11, "severity": "minor", "category": "Style/Awkward"},
        {"start": 12, "end": 14, "severity": "critical", "category": "Terminology/Inconsistent use"},
        {"start": 0, "end": 3, "severity": "minor", "category": "Source error", "side": "source"},
    ]
    assert mqm({"spans": spans}).value == pytest.approx(0.1 + 5 + 1 + 5 + 1)
    assert mqm({"spans": [{"start": 0, "end": 23, "severity": "major", "category": "Non-translation"}]}).value == 25
    assert mqm({"spans": [], "no_error": True}).value == 0


def test_mqm_checks_categories_sides_and_whole_segment_spans():
    # an ordinary error may be marked in the source (WMT's raters mark omissions there)
    omission = {"start": 0, "end": 3, "severity": "major", "category": "Accuracy/Omission", "side": "source"}
    assert mqm({"spans": [omission]}).value == 5
    for span, message in [
        ({"start": 0, "end": 3, "severity": "minor"}, r"'' is not a category"),
        ({"start": 0, "end": 3, "severity": "minor", "category": "Accuracy"}, r"'Accuracy' is not a category"),
        ({"start": 0, "end": 3, "severity": "minor", "category": "Source error"}, "is for source spans"),
        (
            {"start": 0, "end": 3, "severity": "minor", "category": "Non-translation", "side": "source"},
            "is for output spans",
        ),
        ({"start": 0, "end": 3, "severity": "major", "category": "Non-translation"}, r"whole output: \[0, 23\)"),
        (
            {"start": 0, "end": 40, "severity": "minor", "category": "Source error", "side": "source"},
            r"not within the source \(28 code points",
        ),
    ]:
        with pytest.raises(TaskTypeError, match=message):
            mqm({"spans": [span]})


def test_mqm_config_takes_its_own_typology_and_weights():
    config = MQM.normalise_config(
        {
            "typology": [{"name": "Meaning"}, {"name": "Form", "children": ["Spelling"]}],
            "weights": [{"category": "Form", "weight": 2}, {"weight": 3}],
        }
    )
    assert config["weights"] == [{"category": "Form", "weight": 2.0}, {"weight": 3.0}]
    value = {
        "spans": [
            {"start": 0, "end": 1, "severity": "minor", "category": "Form/Spelling"},
            {"start": 1, "end": 2, "severity": "critical", "category": "Meaning"},
        ]
    }
    assert mqm(value, config=config).value == 5
    # the defaults keep WMT's rules for categories the typology has
    own = MQM.normalise_config({"typology": [{"name": "Meaning"}]})
    assert own["weights"] == [{"severity": s, "weight": w} for s, w in (("minor", 1), ("major", 5), ("critical", 5))]
    assert MQM_CONFIG["typology"] == list(DEFAULT_TYPOLOGY) and MQM_CONFIG["severities"] == [
        "minor",
        "major",
        "critical",
    ]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"weights": [{"severity": "minor", "weight": 1}]}, "no rule weighs a major 'Accuracy/Addition' error"),
        ({"weights": [{"weight": math.nan}]}, r"weights\[0\].weight must be a number"),
        ({"weights": [{"category": "Nope", "weight": 1}]}, r"weights\[0\].category: 'Nope' is not a category"),
        ({"typology": [{"name": "A/B"}]}, r"typology\[0\].name must be a name"),
        ({"typology": [{"name": "A"}, {"name": "A"}]}, r"typology\[1\].name: 'A' is named twice"),
        ({"typology": []}, "non-empty list"),
        ({"severities": ["low", "high"]}, "MQM's severities are minor, major, critical"),
        ({"colour": 1}, "an MQM project takes typology, severities, weights"),
        ("wmt", "an MQM project takes"),
    ],
)
def test_a_bad_mqm_config_is_refused_naming_the_field(config, message):
    with pytest.raises(TaskTypeError, match=message):
        MQM.normalise_config(config)


def test_criteria_scales():
    assert ESA.normalise_scale(None, None, None) == (0.0, 100.0, [])
    assert ESA.normalise_scale(0, 100, []) == (0.0, 100.0, [])
    with pytest.raises(TaskTypeError, match="0–100"):
        ESA.normalise_scale(1, 5, [])
    assert MQM.normalise_scale(None, None, []) == (None, None, [])
    with pytest.raises(TaskTypeError, match="takes no scale"):
        MQM.normalise_scale(1, 5, [])
    with pytest.raises(TaskTypeError, match="takes no settings"):
        REGISTRY["likert"].normalise_config({"typology": []})


def test_proposals_are_answered_once_each_and_recorded():
    proposals = (Proposal(11, "target", 4, 7, "major", ""), Proposal(12, "target", 8, 11, "minor", ""))
    texts = ScreenTexts("", {"mt": OUTPUT}, {"mt": proposals})
    coded = esa(
        {
            "score": 40,
            "spans": [
                {"start": 4, "end": 7, "severity": "major", "origin": "accepted", "proposal": 0},
                {"start": 8, "end": 11, "severity": "minor", "origin": "rejected", "proposal": 1},
                {"start": 15, "end": 18, "severity": "minor"},
            ],
        },
        texts,
    )
    assert [(s.origin, s.proposal) for s in coded.spans] == [("accepted", 11), ("rejected", 12), ("added", None)]
    edited = esa(
        {
            "score": 40,
            "spans": [
                {"start": 4, "end": 6, "severity": "minor", "origin": "edited", "proposal": 0},
                {"start": 8, "end": 11, "severity": "minor", "origin": "rejected", "proposal": 1},
            ],
        },
        texts,
    )
    assert [(s.start, s.end, s.origin) for s in edited.spans] == [(4, 6, "edited"), (8, 11, "rejected")]
    for spans, message in [
        (
            [{"start": 4, "end": 7, "severity": "major", "origin": "accepted", "proposal": 0}],
            "proposed span 1 not answered",
        ),
        (
            [
                {"start": 4, "end": 6, "severity": "major", "origin": "accepted", "proposal": 0},
                {"start": 8, "end": 11, "severity": "minor", "origin": "rejected", "proposal": 1},
            ],
            "is 'edited'",
        ),
        (
            [
                {"start": 4, "end": 7, "severity": "major", "origin": "accepted", "proposal": 0},
                {"start": 4, "end": 7, "severity": "major", "origin": "accepted", "proposal": 0},
            ],
            "answered twice",
        ),
        ([{"start": 4, "end": 7, "severity": "major", "origin": "accepted", "proposal": 2}], "0 to 1"),
        ([{"start": 4, "end": 7, "severity": "major", "origin": "proposed", "proposal": 0}], "origin must be one of"),
        ([{"start": 4, "end": 7, "severity": "major", "proposal": 0}], "answers no proposal"),
    ]:
        with pytest.raises(TaskTypeError, match=message):
            esa({"score": 40, "spans": spans}, texts)
    # rejecting every proposal leaves nothing marked: no error must be said
    rejected = [
        {"start": 4, "end": 7, "severity": "major", "origin": "rejected", "proposal": 0},
        {"start": 8, "end": 11, "severity": "minor", "origin": "rejected", "proposal": 1},
    ]
    assert esa({"score": 99, "no_error": True, "spans": rejected}, texts).value == 99


def test_the_widgets_posted_state_reads_as_an_answer():
    state = (
        '{"version": 1, "protocol": "esa", "length": {"target": 23}, "no_error": false, "complete": true,'
        ' "score": 70, "spans": [{"side": "target", "start": 4, "end": 7, "severity": "minor",'
        ' "category": null, "status": "added"}]}'
    )
    assert ESA.form_value(state) == {
        "spans": [{"start": 4, "end": 7, "severity": "minor", "category": "", "side": "target", "origin": "added"}],
        "no_error": False,
        "score": 70,
    }
    assert esa(ESA.form_value(state)).value == 70
    with pytest.raises(TaskTypeError, match="must be an object"):
        esa(ESA.form_value("not json"))


def test_a_value_without_its_texts_is_refused_clearly():
    with pytest.raises(TaskTypeError, match="checked against the texts"):
        ESA.code_value({"spans": [], "no_error": True, "score": 5}, SCORE, ["mt"], "mt")


def _span(start, end, severity="minor", category="", side="target", origin="added"):
    return Span(side, start, end, severity, category, origin)


def test_gold_spans_must_be_found_by_an_overlapping_span_of_the_same_side():
    gold = ESA.normalise_gold(
        {
            "quality": {
                "spans": [{"start": 4, "end": 7}, {"start": 8, "end": 11, "severity": "major"}],
                "score": [0, 60],
            }
        },
        {"quality": SCORE},
        ["mt"],
    )
    assert gold == {
        "quality": {
            "mt": {
                "spans": [{"start": 4, "end": 7}, {"start": 8, "end": 11, "severity": "major"}],
                "score": [0.0, 60.0],
            }
        }
    }
    ESA.check_gold_texts(gold, "", {"mt": OUTPUT})
    found = (_span(5, 6, "minor"), _span(10, 14, "major"))
    assert ESA.gold_correct(gold, "quality", "mt", 40, found) is True
    assert ESA.gold_correct(gold, "quality", "mt", 80, found) is False  # the score is out of its range
    assert ESA.gold_correct(gold, "quality", "mt", 40, (_span(5, 6), _span(10, 14, "minor"))) is False  # severity
    assert ESA.gold_correct(gold, "quality", "mt", 40, (_span(0, 4), _span(10, 14, "major"))) is False  # no overlap
    rejected = (_span(5, 6, origin="rejected"), _span(10, 14, "major"))
    assert ESA.gold_correct(gold, "quality", "mt", 40, rejected) is False  # a rejected proposal is not the rater's
    assert ESA.gold_correct(gold, "quality", "other", 40, found) is None
    assert ESA.gold_rows(gold) == [
        {"criterion": "quality", "system": "mt", "expected": "find [4, 7); [8, 11) major, score 0–60"}
    ]


def test_mqm_gold_compares_a_category_with_its_subcategories_and_sides():
    gold = MQM.normalise_gold(
        {
            "errors": {
                "mt": {
                    "spans": [{"start": 0, "end": 3, "category": "Accuracy"}, {"start": 4, "end": 7, "side": "source"}]
                }
            }
        },
        {"errors": ERRORS},
        ["mt"],
    )
    hit = (_span(1, 2, "major", "Accuracy/Omission"), _span(4, 5, "minor", "Source error", "source"))
    assert MQM.gold_correct(gold, "errors", "mt", 6, hit) is True
    assert MQM.gold_correct(gold, "errors", "mt", 6, (hit[0], _span(4, 5, "minor", "Style/Awkward"))) is False
    assert MQM.gold_correct(gold, "errors", "mt", 6, (_span(1, 2, "major", "Fluency/Grammar"), hit[1])) is False
    clean = MQM.normalise_gold({"errors": {"no_error": True}}, {"errors": ERRORS}, ["mt"])
    assert MQM.gold_correct(clean, "errors", "mt", 0, ()) is True
    assert MQM.gold_correct(clean, "errors", "mt", 0, (_span(0, 1, origin="rejected"),)) is True
    assert MQM.gold_correct(clean, "errors", "mt", 1, (_span(0, 1),)) is False


def test_a_zero_length_gold_span_is_found_by_a_span_touching_its_point():
    gold = ESA.normalise_gold({"quality": {"mt": {"spans": [{"start": 7, "end": 7}]}}}, {"quality": SCORE}, ["mt"])
    assert ESA.gold_correct(gold, "quality", "mt", 50, (_span(4, 7),)) is True
    assert ESA.gold_correct(gold, "quality", "mt", 50, (_span(8, 9),)) is False


@pytest.mark.parametrize(
    ("gold", "message"),
    [
        ({"quality": {"mt": {}}}, "give the spans that must be marked"),
        ({"quality": {"mt": {"spans": [{"start": 3, "end": 1}]}}}, r"spans\[0\]: \[3, 1\) must have"),
        ({"quality": {"mt": {"spans": [{"start": 0, "end": 1}], "no_error": True}}}, "no_error with spans"),
        ({"quality": {"mt": {"score": [90, 10]}}}, "must run upwards"),
        ({"quality": {"nope": {"no_error": True}}}, "'nope' is not a system"),
        ({"quality": {"mt": {"spans": [{"start": 0, "end": 99}]}}}, r"gold.quality.mt.spans\[0\]: \[0, 99\) is not"),
    ],
)
def test_a_bad_gold_is_refused_naming_its_field(gold, message):
    with pytest.raises(TaskTypeError, match=message):
        normalised = ESA.normalise_gold(gold, {"quality": SCORE}, ["mt"])
        ESA.check_gold_texts(normalised, "", {"mt": OUTPUT})


def test_a_degraded_copy_expects_a_span_over_its_damage():
    original, copy = "The cat sat on the mat.", "The cat sat dog ran the mat."
    assert damaged_region(original, copy) == ((12, 18), (12, 13))  # "dog ra" for "o": the common "n the mat." stays
    assert ESA.damage_marked(original, copy, (_span(12, 15),), (_span(0, 3),)) == (True, False)
    assert ESA.damage_marked(original, copy, (_span(0, 3),), (_span(12, 13),)) == (False, True)
    truncated = "The cat sat"
    assert damaged_region(original, truncated) == ((11, 11), (11, 23))
    assert ESA.damage_marked(original, truncated, (_span(8, 11),), ()) == (True, False)  # a span up to the cut
    assert REGISTRY["likert"].damage_marked(original, copy, (), ()) is None


def test_repeats_compare_within_a_tolerance():
    assert ESA.repeat_same(55, 62, 0, 100, None) and not ESA.repeat_same(40, 62, 0, 100, None)
    assert MQM.repeat_same(5.1, 5, None, None, None) and not MQM.repeat_same(10, 5, None, None, None)


def test_training_feedback_words_the_gold_and_the_answer_and_judges_it_as_gold_does():
    gold = ESA.normalise_gold(
        {"quality": {"spans": [{"start": 4, "end": 7}], "score": [0, 60]}}, {"quality": SCORE}, ["mt"]
    )
    [expected] = ESA.gold_on_screen(gold, "quality", ["mt"])
    right = {
        "spans": [{"start": 5, "end": 9, "severity": "major", "category": "", "side": "target", "origin": "added"}],
        "no_error": False,
        "score": 40.0,
    }
    assert ESA.feedback(expected["value"], right) == ("find [4, 7), score 0–60", "[5, 9) major, score 40", True)
    wrong = {**right, "spans": [{**right["spans"][0], "start": 0, "end": 2}]}
    assert ESA.feedback(expected["value"], wrong)[2] is False
    assert ESA.feedback(expected["value"], None) == ("find [4, 7), score 0–60", "—", False)
    assert MQM.feedback({"no_error": True}, {"spans": [], "no_error": True}) == ("no error", "no error", True)
