"""A WMT error-span TSV as judgment import lines: one per (system, segment, rater), spans with their own TSV
lines, No-error ratings, positionless errors, and unreadable files named by line."""

import io

from annotation.services.error_span_study import detect_layout, read_study
from core.import_records import BadRecord

MARKED = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"


def study(text: str, layout=None):
    return read_study(io.BytesIO(text.encode("utf-8")), criterion="MQM", layout=layout)


def test_rows_of_a_rating_become_one_line_with_its_spans():
    lines = study(
        MARKED
        + "A\td\t1\t7\tr1\tHi there\tHallo 😀 <v>dort</v>\tAccuracy/Mistranslation\tMajor\n"
        + "B\td\t1\t7\tr1\tHi there\tServus\tNo-error\tNo-error\n"
        + "A\td\t1\t7\tr1\tHi <v>there</v>\tHallo 😀 dort\tAccuracy/Omission\tMinor\n"
    )
    assert [(x.line, x.span_lines) for x in lines] == [(2, (2, 4)), (3, ())]
    first, second = (x.record for x in lines)
    assert first == {
        "item": "7",
        "rater": "r1",
        "criterion": "MQM",
        "system": "A",
        "value": {
            "spans": [
                {"start": 8, "end": 12, "side": "target", "severity": "major", "category": "Accuracy/Mistranslation"},
                {"start": 3, "end": 8, "side": "source", "severity": "minor", "category": "Accuracy/Omission"},
            ],
            "no_error": False,
        },
    }
    assert second["system"] == "B" and second["value"] == {"spans": [], "no_error": True}


def test_offsets_and_positionless_rows():
    header = "system\tseg_id\trater\tcategory\tseverity\tspan_side\tspan_start\tspan_end\n"
    lines = study(header + "A\t1\tr1\tStyle/Awkward\tMinor\tsource\t2\t5\nA\t1\tr2\tOther\tMajor\t\t\t\n")
    assert [x.record["value"]["spans"][0] for x in lines] == [
        {"start": 2, "end": 5, "side": "source", "severity": "minor", "category": "Style/Awkward"},
        {"start": 0, "end": 0, "side": "target", "severity": "major", "category": "Other"},
    ]


def test_layout_is_detected_from_the_header():
    assert detect_layout(["system", "seg_id", "source", "target"]) == "marked"
    assert detect_layout(["system", "seg_id", "source", "target", "span_start"]) == "offsets"
    assert detect_layout(["system", "doc", "seg_id", "rater", "category", "severity"]) == "offsets"


def test_bad_files_are_named_by_line():
    (bad,) = study(MARKED + "A\td\t1\t7\tr1\tHi\t<v>Hallo\tOther\tMajor\n")
    assert bad.line == 2 and isinstance(bad.record, BadRecord)
    assert str(bad.record) == "field 'target': expected one <v>…</v> mark, found 1 and 0"
    undecodable = read_study(io.BytesIO(MARKED.encode() + b"A\td\t1\t7\tr1\t\xff\tx\tOther\tMajor\n"), criterion="M")
    assert [(x.line, str(x.record)) for x in undecodable] == [
        (2, "not valid UTF-8 text (invalid start byte at byte 11)")
    ]
    (nul,) = study(MARKED + "A\td\t1\t7\tr\x001\tHi\tHallo\tNo-error\tNo-error\n")
    assert isinstance(nul.record, BadRecord) and "rater" in str(nul.record)
    (carriage,) = study(MARKED + "A\td\t1\t7\tr1\tHi\rthere\tHallo\tNo-error\tNo-error\n")
    assert carriage.line == 2 and str(carriage.record).startswith("field 'row': unreadable row (new-line character")
    (layout,) = study(MARKED, layout="xml")
    assert str(layout.record) == "layout must be one of marked, offsets; got 'xml'"
