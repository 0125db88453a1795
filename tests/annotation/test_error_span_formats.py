"""Reading WMT's error-span TSV layouts: marks and offsets to code points and back, bad input named by
line and field."""

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.error_span_formats import ErrorSpanFormatError, mark_span, read_error_rows, strip_span_marks

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"


def tsv(*rows, header=HEADER):
    return io.StringIO(header + "".join("\t".join(r) + "\n" for r in rows))


def test_marked_layout_gives_code_point_offsets_in_the_unmarked_text():
    rows = read_error_rows(
        tsv(
            ("A", "talk.1", "1", "1", "rater1", "Hi there", "Hallo 😀 <v>dort</v>", "Accuracy/Mistranslation", "Major"),
            ("A", "talk.1", "1", "1", "rater2", "Hi <v>there</v>", "Hallo 😀 dort", "Accuracy/Omission", "Minor"),
            ("A", "talk.1", "1", "1", "rater3", "Hi there", "Hallo 😀 dort", "No-error", "No-error"),
        )
    )
    first, second, third = rows
    assert (first.line, first.side, first.start, first.end) == (2, "target", 8, 12)
    assert first.target[first.start : first.end] == "dort" and first.target == "Hallo 😀 dort"
    assert (second.side, second.start, second.end, second.source) == ("source", 3, 8, "Hi there")
    assert (third.side, third.start, third.end) == ("", None, None)
    assert (first.system, first.doc, first.segment, first.rater) == ("A", "talk.1", "1", "rater1")


def test_offsets_layout():
    header = (
        "system\tglobal_seg_id\trater\tseverity\tcategory\tspan_side\tspan_start\tspan_end\ttarget_len\tsource_len\n"
    )
    rows = read_error_rows(
        tsv(
            ("A", "7", "r1", "Minor", "Fluency/Punctuation", "target", "3", "4", "10", "9"),
            ("A", "7", "r2", "No-error", "No-error", "", "", "", "10", "9"),
            ("A", "7", "r3", "Major", "Accuracy/Omission", "source", "0", "9", "10", "9"),
            header=header,
        ),
        layout="offsets",
    )
    assert [(r.segment, r.side, r.start, r.end) for r in rows] == [
        ("7", "target", 3, 4),
        ("7", "", None, None),
        ("7", "source", 0, 9),
    ]


@given(st.text(alphabet=st.characters(blacklist_characters="<>\t\n\r"), max_size=30), st.data())
def test_mark_and_strip_are_inverse(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    marked = mark_span(text, start, end)
    assert strip_span_marks(marked) == (text, start, end)
    assert mark_span(*strip_span_marks(marked)) == marked


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (("A", "t", "1", "1", "r", "x", "<v>a</v> <v>b</v>", "c", "Minor"), r"line 3, field 'target': expected one"),
        (("A", "t", "1", "1", "r", "x", "a</v> <v>b", "c", "Minor"), r"line 3, field 'target': </v> comes before"),
        (("A", "t", "1", "1", "r", "<v>x</v>", "<v>a</v>", "c", "Minor"), r"line 3, field 'target': both"),
        (("A", "t", "1", "1", "r", "x"), r"line 3, field 'row': 6 fields where the header has 9"),
    ],
)
def test_bad_marked_rows_are_named(row, message):
    with pytest.raises(ErrorSpanFormatError, match=message):
        read_error_rows(tsv(("A", "t", "1", "1", "r", "x", "y", "c", "Minor"), row))
    try:
        read_error_rows(tsv(("A", "t", "1", "1", "r", "x", "y", "c", "Minor"), row))
    except ErrorSpanFormatError as exc:
        assert exc.line == 3


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (("A", "1", "r", "Minor", "c", "target", "x", "4", "10"), r"line 2, field 'span_start': 'x' is not a whole"),
        (("A", "1", "r", "Minor", "c", "target", "5", "4", "10"), r"line 2, field 'span_end': \[5, 4\) is not a span"),
        (("A", "1", "r", "Minor", "c", "target", "5", "11", "10"), r"line 2, field 'span_end': 11 is past the target"),
        (("A", "1", "r", "Minor", "c", "middle", "5", "6", "10"), r"line 2, field 'span_side': must be target"),
    ],
)
def test_bad_offset_rows_are_named(fields, message):
    header = "system\tseg_id\trater\tseverity\tcategory\tspan_side\tspan_start\tspan_end\ttarget_len\n"
    with pytest.raises(ErrorSpanFormatError, match=message):
        read_error_rows(tsv(fields, header=header), layout="offsets")


def test_missing_columns_are_named_on_line_1():
    with pytest.raises(ErrorSpanFormatError, match=r"line 1, field 'rater': missing column"):
        read_error_rows(io.StringIO("system\tseg_id\tseverity\tcategory\tsource\ttarget\n"))
    with pytest.raises(ErrorSpanFormatError, match=r"line 1, field 'header': the file is empty"):
        read_error_rows(io.StringIO(""))
    with pytest.raises(ErrorSpanFormatError, match=r"line 1, field 'span_end': missing column"):
        read_error_rows(io.StringIO("system\tseg_id\trater\tseverity\tcategory\tspan_start\n"), layout="offsets")
