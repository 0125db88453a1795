"""Helpers to build import files in tests."""

import io
import json


def jsonl(*records) -> io.BytesIO:
    return io.BytesIO("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records).encode())


def item(external_id="i1", systems=("sysA",), **extra) -> dict:
    return {
        "external_id": external_id,
        "input": f"input {external_id}",
        "outputs": [{"system": s, "text": f"{s} text"} for s in systems],
        **extra,
    }
