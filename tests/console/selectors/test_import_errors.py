"""The field named beside each bad line of an import report."""

import pytest

from console.selectors.import_errors import import_error_rows


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ("external_id is missing", "external_id"),
        ("outputs[2].text must be a string", "outputs[2].text"),
        ("outputs: a pairwise item needs 2 outputs, got 1", "outputs"),
        ("gold.fluency must be a whole number on a Likert scale, got 2.5", "gold.fluency"),
        ("gold: unknown criterion 'x'; criteria are 'fluency'", "gold"),
        ("column meta holds bad JSON: Expecting value", "meta"),
        ("output_2 and system_2 go together; one of them is missing", "output_2"),
        ("duplicate external_id 'a' (first on line 1)", "external_id"),
        ("unknown field 'colour'; fields are external_id, ...", "colour"),
        ("input[2].role 'bot' is not a role; roles are system, user, assistant", "input[2].role"),
        ("turns[1].text is empty", "turns[1].text"),
        ("messages[3].content must be a string (text only), got list", "messages[3].content"),
        ("conversation_a and conversation_b share no beginning: the input is the turns they share", "conversation_a"),
        ("bad JSON: Expecting value", ""),
        ("3 cells but the header has 4 columns", ""),
        ("a line must hold one JSON object, got list", ""),
    ],
)
def test_the_field_comes_from_the_start_of_the_message(message, field):
    assert import_error_rows({"errors": [{"line": 7, "error": message}]}) == [
        {"line": 7, "field": field, "problem": message}
    ]
