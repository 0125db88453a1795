"""Small vote files in the layouts the vote import reads, for the tests of the import, its API and command."""

import json

import pyarrow as pa
import pyarrow.parquet as pq

# (model_a, model_b, winner) of an arena-like study of three systems, ties included.
VOTES = (
    [("a", "b", "model_a")] * 7
    + [("b", "a", "model_b")] * 3
    + [("a", "b", "model_b")] * 2
    + [("a", "b", "tie")] * 2
    + [("b", "c", "model_a")] * 6
    + [("c", "b", "model_a")] * 2
    + [("b", "c", "tie (bothbad)")] * 3
    + [("a", "c", "model_a")] * 5
    + [("c", "a", "model_a")] * 1
    + [("a", "c", "tie")] * 1
)


def arena_rows(votes=VOTES):
    return [
        {
            "model_a": a,
            "model_b": b,
            "winner": w,
            "judge": f"arena_user_{k % 5}",
            "tstamp": 1682351591.5 + k,
            "question_id": f"q{k // 2}",
            "language": "English",
        }
        for k, (a, b, w) in enumerate(votes)
    ]


def concord_rows(votes=VOTES):
    names = {"model_a": 0, "model_b": 1}
    return [
        {
            "system_a": a,
            "system_b": b,
            "winner": (a, b)[names[w]] if w in names else w,
            "rater": f"arena_user_{k % 5}",
            "submitted_at": "2024-03-01T10:00:00Z",
            "prompt": f"q{k // 2}",
        }
        for k, (a, b, w) in enumerate(votes)
    ]


def write_csv(path, rows):
    columns = list(rows[0])
    lines = [",".join(columns)] + [",".join(str(r.get(c, "")) for c in columns) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_parquet(path, rows):
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path
