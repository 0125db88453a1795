"""core.outside_text: what it refuses, and how it names the place."""

import datetime

import pytest

from core.outside_text import MAX_INTEGER, OutsideValueError, check_json, check_text, read_datetime


@pytest.mark.parametrize(
    ("value", "field", "problem"),
    [
        ({"meta": {"lang": "e\x00n"}}, "meta.lang", "NUL character"),
        ({"outputs": [{"text": "ok"}, {"text": "\ud800"}]}, "outputs[2].text", "lone surrogate (U+D800)"),
        ({"meta": {"score": float("nan")}}, "meta.score", "is nan; numbers must be finite"),
        ({"meta": {"score": [1.0, float("-inf")]}}, "meta.score[2]", "is -inf"),
        ({"n": MAX_INTEGER + 1}, "n", "too large a number"),
        ({"meta": {"a b": "\x00"}}, "meta['a b']", "NUL character"),
        ({"meta": {"k\x00": 1}}, "meta", "has a key that holds a NUL character"),
        ({"k\x00": 1}, "a field name", "holds a NUL character"),
    ],
)
def test_check_json_names_the_first_bad_place(value, field, problem):
    with pytest.raises(OutsideValueError) as refused:
        check_json(value)
    assert refused.value.field == field
    assert problem in refused.value.problem
    assert str(refused.value).startswith(field)


def test_check_json_takes_what_may_be_stored_and_deep_documents_without_recursion():
    document = {"a": [1, 2.5, -MAX_INTEGER, True, None, "é ✓ \U0001f600"], "b": {"c": "tab\there"}}
    assert check_json(document) is document
    deep = "x"
    for _ in range(50_000):
        deep = [deep]
    assert check_json(deep) is deep


def test_check_text_names_the_field():
    assert check_text("fine", field="q") == "fine"
    with pytest.raises(OutsideValueError, match=r"^query parameter 'q' holds a NUL"):
        check_text("a\x00", field="query parameter 'q'")


def test_read_datetime_reads_a_naive_time_as_utc_and_refuses_impossible_ones():
    assert read_datetime("2024-01-01T00:00:00", field="t") == datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    assert read_datetime("2024-01-01T02:00:00+02:00", field="t") == datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    for bad in ("2024-02-30T00:00:00", "yesterday", 20240101, "2024-01-01T00:00:00\x00"):
        with pytest.raises(OutsideValueError) as refused:
            read_datetime(bad, field="submitted_at")
        assert refused.value.field == "submitted_at"
