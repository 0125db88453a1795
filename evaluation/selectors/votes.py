"""Reads of imported pairwise votes: per-pair win and tie counts aggregated in SQL, and the votes with their
names for the export."""

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from django.db.models import Count

from annotation.models import Project
from evaluation.models import Vote, VoteImport, VoteName
from evaluation.stats import PairTables

# The winner as Concord's vote layout names it; None: the winning system's own name.
WINNER_NAMES = {
    Vote.Outcome.A_WINS: None,
    Vote.Outcome.B_WINS: None,
    Vote.Outcome.TIE: "tie",
    Vote.Outcome.TIE_BOTH_BAD: "tie (bothbad)",
}


@dataclass(frozen=True)
class VoteTables:
    """One criterion's votes as Bradley–Terry's tables; ``ties_both_bad`` of the ties were "tie (bothbad)"."""

    criterion: str
    tables: PairTables
    n_votes: int
    ties_both_bad: int
    n_imports: int


def vote_names(project: Project, kind: str) -> dict[int, str]:
    return dict(VoteName.objects.filter(project=project, kind=kind).values_list("code", "name"))


def vote_tables(project: Project) -> list[VoteTables]:
    """Each criterion's votes (criteria in their order), counted per (system_a, system_b, outcome) by the
    database: one GROUP BY over the votes, whose result has at most 4·k² rows for k systems."""
    imports = list(
        VoteImport.objects.filter(project=project)
        .order_by("criterion__position", "criterion_id", "id")
        .values_list("id", "criterion_id", "criterion__name")
    )
    if not imports:
        return []
    counts = (
        Vote.objects.filter(batch_id__in=[i for i, _, _ in imports])
        .values_list("batch_id", "system_a", "system_b", "outcome")
        .annotate(n=Count("*"))
        .order_by()
    )
    cells: dict[int, list[tuple[int, int, int, int]]] = {}
    criterion_of = {i: c for i, c, _ in imports}
    for batch_id, a, b, outcome, n in counts:
        cells.setdefault(criterion_of[batch_id], []).append((a, b, outcome, n))
    names = vote_names(project, VoteName.Kind.SYSTEM)
    out = []
    for criterion_id, criterion in dict.fromkeys((c, name) for _, c, name in imports):
        rows = np.array(cells.get(criterion_id, []), dtype=np.int64).reshape(-1, 4)
        out.append(_tables(criterion, rows, names, sum(1 for _, c, _ in imports if c == criterion_id)))
    return out


def _tables(criterion: str, rows: np.ndarray, names: dict[int, str], n_imports: int) -> VoteTables:
    a, b, outcome, n = rows.T
    codes = sorted(set(a.tolist()) | set(b.tolist()), key=lambda code: names[code])
    index = np.full(max(codes, default=0) + 1, -1)
    index[codes] = np.arange(len(codes))
    i, j, k = index[a], index[b], len(codes)
    wins, ties = np.zeros((k, k), dtype=np.int64), np.zeros((k, k), dtype=np.int64)
    np.add.at(
        wins, (i[outcome == Vote.Outcome.A_WINS], j[outcome == Vote.Outcome.A_WINS]), n[outcome == Vote.Outcome.A_WINS]
    )
    np.add.at(
        wins, (j[outcome == Vote.Outcome.B_WINS], i[outcome == Vote.Outcome.B_WINS]), n[outcome == Vote.Outcome.B_WINS]
    )
    tied = (outcome == Vote.Outcome.TIE) | (outcome == Vote.Outcome.TIE_BOTH_BAD)
    np.add.at(ties, (i[tied], j[tied]), n[tied])
    tables = PairTables(tuple(names[c] for c in codes), wins, ties + ties.T)
    both_bad = int(n[outcome == Vote.Outcome.TIE_BOTH_BAD].sum())
    return VoteTables(criterion, tables, int(n.sum()), both_bad, n_imports)


def voter_pseudonyms(project: Project) -> dict[int, str]:
    """``voter-001``, ``voter-002``… for the imported voters, numbered in the order the imports first met them:
    the judge ids of a study may be account names or addresses, which an export without names must not carry."""
    codes = sorted(VoteName.objects.filter(project=project, kind=VoteName.Kind.RATER).values_list("code", flat=True))
    width = max(3, len(str(len(codes))))
    return {code: f"voter-{k:0{width}d}" for k, code in enumerate(codes, start=1)}


def vote_batches(project: Project, *, with_names: bool, size: int = 20_000) -> Iterator[tuple[str, list[tuple]]]:
    """Every vote as the export's ``votes`` table holds it (``evaluation.export.tables.VOTES``), in import order,
    in batches of ``size`` rows: the columns of Concord's vote import layout, so a file re-imports as it is.
    Voters appear under pseudonyms unless ``with_names`` (the judge ids as imported)."""
    systems = vote_names(project, VoteName.Kind.SYSTEM)
    raters = vote_names(project, VoteName.Kind.RATER) if with_names else voter_pseudonyms(project)
    rows = (
        Vote.objects.filter(batch__project=project)
        .order_by("id")
        .values_list(
            "batch__criterion__name",
            "system_a",
            "system_b",
            "outcome",
            "rater",
            "prompt",
            "submitted_at",
            "sampling_probability",
        )
    )
    batch = []
    for criterion, a, b, outcome, rater, prompt, submitted_at, probability in rows.iterator(chunk_size=size):
        winner = WINNER_NAMES[outcome] or (systems[a] if outcome == Vote.Outcome.A_WINS else systems[b])
        batch.append((systems[a], systems[b], winner, raters.get(rater), prompt, submitted_at, probability, criterion))
        if len(batch) == size:
            yield "train", batch
            batch = []
    if batch:
        yield "train", batch
