"""The tables of a dataset export, each written by itself to one file per format (and per split) in a work
directory. The export in one task writes them in turn (export.export_write); the export in parts gives each
Celery task some of them (export_parts), every task reading the same ExportScope."""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from evaluation.export.tables import (
    ITEMS,
    RATERS,
    VOTES,
    has_spans,
    judgments_table,
    scores_table,
    spans_table,
    value_type,
)
from evaluation.export.writers import TableSpec, TableWriter, WrittenFile
from evaluation.selectors.export import (
    ExportScope,
    item_batches,
    judgment_batches,
    score_batches,
    span_batches,
)
from evaluation.selectors.votes import vote_batches

# The tables in the order the zip, its manifest and the card list their files.
TABLE_ORDER = ("items", "judgments", "scores", "spans", "raters", "votes")
# The table an export split by subgroup may write in pieces (contiguous runs of subgroups): the largest.
PIECEWISE = "judgments"


@dataclass(frozen=True)
class TableOptions:
    """What every table's files need besides the scope, fixed when the export starts (JSON-ready, so the parts
    of an export read it from its work directory)."""

    formats: tuple[str, ...]
    csv_raw_text: bool
    include_usernames: bool
    # subgroup → its Hugging Face split name (``train`` for all of them without split files)
    split_names: dict[str, str]
    # the output_k/system_k column pairs of the items' CSV
    csv_outputs: int
    # the tables written, in TABLE_ORDER
    tables: tuple[str, ...]

    @property
    def item_spec(self) -> TableSpec:
        return replace(ITEMS, csv_outputs=self.csv_outputs)


def export_table_names(task_type: str, *, with_votes: bool) -> tuple[str, ...]:
    """The tables of an export: spans for error-span tasks, votes for projects with imported votes."""
    return tuple(
        name for name in TABLE_ORDER if (name != "spans" or has_spans(task_type)) and (name != "votes" or with_votes)
    )


def split_names(subgroups: list[str]) -> dict[str, str]:
    """Hugging Face split names (``\\w+``) for subgroups, unique, in subgroup order."""
    names, used = {}, set()
    for subgroup in sorted(subgroups):
        base = re.sub(r"\W+", "_", subgroup).strip("_") or "no_subgroup"
        name, k = base, 2
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        names[subgroup] = name
    return names


def table_write(
    name: str,
    *,
    scope: ExportScope,
    options: TableOptions,
    work: Path,
    raters: Callable[[], list[tuple]],
    advance: Callable[[int, str], None] | None = None,
    subgroups: tuple[str, ...] | None = None,
) -> list[WrittenFile]:
    """Writes table ``name`` into ``work`` and returns its files; ``advance`` hears of the items' and the
    judgments' rows as they are written, ``raters`` gives the raters table's rows. With ``subgroups`` (in an
    export split by subgroup; PIECEWISE only) it writes their split files alone, and none when they have no row."""
    if subgroups is not None and name != PIECEWISE:
        raise ValueError(f"only the {PIECEWISE} table is written in pieces, not {name!r}")
    task_type = scope.project.task_type

    def writer(spec: TableSpec, split_files: bool = scope.by_subgroup, label_type: str = "string") -> TableWriter:
        return TableWriter(spec, work, options.formats, split_files, label_type=label_type,
                           csv_raw_text=options.csv_raw_text)  # fmt: skip

    if name == "items":
        batches = item_batches(scope)
        return _write(writer(options.item_spec), batches, options.split_names, advance, "writing items")
    if name == "judgments":
        spec = judgments_table(task_type, adjudicated=scope.adjudication)
        batches = judgment_batches(scope, subgroups=subgroups)
        return _write(writer(spec, label_type=value_type(task_type)), batches, options.split_names, advance,
                      "writing judgments", empty=subgroups is None)  # fmt: skip
    if name == "scores":
        return _write(writer(scores_table(task_type)), score_batches(scope), options.split_names)
    if name == "spans":
        return _write(writer(spans_table(adjudicated=scope.adjudication)), span_batches(scope), options.split_names)
    if name == "raters":
        table = writer(RATERS, split_files=False)
        table.write("train", raters())
        return table.close()
    if name == "votes":
        votes = vote_batches(scope.project, with_names=options.include_usernames)
        return _write(writer(VOTES, split_files=False), votes)
    raise ValueError(f"no table {name!r}; the tables are {', '.join(TABLE_ORDER)}")


def _write(
    writer: TableWriter,
    batches: Iterable[tuple[str, list[tuple]]],
    names: dict[str, str] | None = None,
    advance: Callable[[int, str], None] | None = None,
    message: str = "",
    empty: bool = True,
) -> list[WrittenFile]:
    """The table's files; a table without rows gets empty ``train`` files, unless not ``empty`` (a piece)."""
    names = names or {}
    for subgroup, rows in batches:
        writer.write(names.get(subgroup, "train"), rows)
        if advance is not None:
            advance(len(rows), message)
    return writer.close(empty_split="train" if empty else None)
