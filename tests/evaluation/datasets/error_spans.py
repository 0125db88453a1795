"""The shared error-span datasets (WMT MQM and ESA) read for the library: no Django.

The texts are not shipped, so each segment gets a placeholder of its recorded length in code points,
mixing a letter, a character outside the BMP and one with a two-byte UTF-8 form (so that code
points, UTF-16 units and bytes all differ). The side-by-side MQM spans are written into WMT's own
layout (``<v>…</v>`` in the placeholder text) and read back through the public reader, so the
offsets the statistics see went through the marks.
"""

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agreement.stats.spans import span_set
from annotation.error_span_formats import mark_span, read_error_rows

PLACEHOLDER = "a😀ü"


def placeholder(length: int) -> str:
    return (PLACEHOLDER * (length // len(PLACEHOLDER) + 1))[:length]


def check_sums(folder: Path) -> None:
    """The files' SHA-256 against the folder's SHA256SUMS."""
    for line in (folder / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        got = hashlib.sha256((folder / name).read_bytes()).hexdigest()
        assert got == digest, f"{name}: sha256 {got} != {digest}"


def tsv_rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


@dataclass(frozen=True)
class SxsData:
    segments: list[dict]
    rows: list  # ErrorRow, read from the marked layout


def sxs_marked_tsv(spans: list[dict], segments: dict) -> str:
    """WMT's marked layout of the packaged side-by-side rows: placeholder texts, the span in <v>."""
    out = io.StringIO()
    out.write("system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n")
    for r in spans:
        seg = segments[r["system"], r["global_seg_id"]]
        source, target = placeholder(int(seg["source_len"])), placeholder(int(seg["target_len"]))
        if r["span_side"] == "target":
            target = mark_span(target, int(r["span_start"]), int(r["span_end"]))
        elif r["span_side"] == "source":
            source = mark_span(source, int(r["span_start"]), int(r["span_end"]))
        fields = (r["system"], r["doc"], r["doc_seg_id"], r["global_seg_id"], r["rater"], source, target)
        out.write("\t".join((*fields, r["category"], r["severity"])) + "\n")
    return out.getvalue()


def load_sxs(folder: Path, code: str) -> SxsData:
    segments = tsv_rows(folder / f"sxs_mqm_wmt23_{code}.segments.tsv")
    by_key = {(s["system"], s["global_seg_id"]): s for s in segments}
    packaged = tsv_rows(folder / f"sxs_mqm_wmt23_{code}.spans.tsv")
    rows = read_error_rows(io.StringIO(sxs_marked_tsv(packaged, by_key)), layout="marked")
    for row, orig in zip(rows, packaged, strict=True):
        assert (row.side, row.start, row.end) == (
            orig["span_side"],
            int(orig["span_start"]) if orig["span_start"] else None,
            int(orig["span_end"]) if orig["span_end"] else None,
        )
    return SxsData(segments, rows)


def sxs_target_spans(data: SxsData):
    """The SpanSet of the target-side spans: segments = (system, segment), all 3 raters' ratings."""
    index = {(s["system"], s["global_seg_id"]): k for k, s in enumerate(data.segments)}
    lengths = np.array([int(s["target_len"]) for s in data.segments])
    raters = {r: k for k, r in enumerate(sorted({row.rater for row in data.rows}))}
    ratings = sorted({(index[r.system, r.segment], raters[r.rater]) for r in data.rows})
    # zero-length spans (something missing at the end) have no characters; the reference values leave them out
    spans = [r for r in data.rows if r.side == "target" and r.end > r.start]
    return span_set(
        lengths,
        ratings,
        segment=np.array([index[r.system, r.segment] for r in spans]),
        rater=np.array([raters[r.rater] for r in spans]),
        start=np.array([r.start for r in spans]),
        end=np.array([r.end for r in spans]),
        severity=[r.severity.lower() for r in spans],
    )


def esa_official(folder: Path, code: str) -> list[dict]:
    return [r for r in tsv_rows(folder / f"esa_wmt24_{code}.ratings.tsv") if r["official"] == "1"]


def esa_second_ratings(folder: Path, code: str):
    """Items with an official rating and an '#incomplete' rating by another person (the latest), and the
    SpanSet of their positioned spans (rater 0 = official, 1 = second)."""
    rows = tsv_rows(folder / f"esa_wmt24_{code}.ratings.tsv")
    lengths = {
        (s["system"], s["segment_id"]): int(s["target_len"])
        for s in tsv_rows(folder / f"esa_wmt24_{code}.segments.tsv")
    }
    official = {(r["system"], r["segment_id"]): r for r in rows if r["official"] == "1"}
    second = {}
    for r in sorted((r for r in rows if r["row_kind"] == "incomplete"), key=lambda r: float(r["end_time"])):
        key = (r["system"], r["segment_id"])
        if key in official and official[key]["annotator"] != r["annotator"]:
            second[key] = r
    items = sorted(second)
    seg, rater, start, end, severity = [], [], [], [], []
    for i, key in enumerate(items):
        for j, rating in enumerate((official[key], second[key])):
            for span in json.loads(rating["spans"]):
                if not span["missing"]:
                    seg.append(i)
                    rater.append(j)
                    start.append(span["start"])
                    end.append(span["end"])
                    severity.append(span["severity"])
    spans = span_set(
        [lengths[k] for k in items],
        [(i, j) for i in range(len(items)) for j in (0, 1)],
        segment=np.array(seg),
        rater=np.array(rater),
        start=np.array(start),
        end=np.array(end),
        severity=severity,
        severities=("undecided", "minor", "major"),
    )
    scores = np.array([[float(official[k]["score"]) for k in items], [float(second[k]["score"]) for k in items]])
    return items, spans, scores
