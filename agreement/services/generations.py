"""Generations of a project's snapshot rows: a recompute writes its rows under a new generation beside the ones
readers see, makes it current by updating one row, and deletes the older generations afterwards, so the readers'
switch costs nothing however many rows there are, and a recompute that fails leaves the current rows as they
were. Readers see only the current generation (``AgreementSnapshot.objects``); only the functions here and the
writers use ``AgreementSnapshot.all_generations``."""

from collections.abc import Sequence

from django.db import transaction

from agreement.engine.rows import SNAPSHOT_FIELDS
from agreement.models import AgreementSnapshot, SnapshotGeneration
from core.bulk_insert import insert_rows, refresh_planner_statistics


def _locked(project_id: int) -> SnapshotGeneration:
    """The project's generation row, created if need be and locked to the end of the transaction."""
    SnapshotGeneration.objects.get_or_create(project_id=project_id)
    return SnapshotGeneration.objects.select_for_update().get(project_id=project_id)


@transaction.atomic
def snapshot_generation_new(*, project_id: int) -> int:
    """A generation number for a recompute of the project, above every one handed out before: generations are
    numbered in the order recomputes started (and read their judgments)."""
    row = _locked(project_id)
    row.last += 1
    row.save(update_fields=["last"])
    return row.last


def snapshot_rows_write(*, generation: int, rows: Sequence[tuple]) -> None:
    """Writes ``rows`` (in ``SNAPSHOT_FIELDS`` order) under ``generation``; readers do not see them until it is
    made current."""
    insert_rows(AgreementSnapshot, ["generation", *SNAPSHOT_FIELDS], [(generation, *r) for r in rows], binary=True)


@transaction.atomic
def snapshot_generation_make_current(*, project_id: int, generation: int) -> bool:
    """Makes ``generation`` the one readers see, unless a later one is current already (a recompute started after
    this one finished first); returns whether it did. The generation row is locked, so two switches take turns."""
    row = _locked(project_id)
    if generation <= row.current:
        return False
    row.current = generation
    row.save(update_fields=["current"])
    return True


def snapshot_generations_prune(*, project_id: int) -> int:
    """Deletes the rows of the project's generations older than the current one (readers have left them: a
    query started before the switch still reads them from its snapshot of the database); returns how many."""
    current = SnapshotGeneration.objects.filter(project_id=project_id).values_list("current", flat=True).first()
    if current is None:
        return 0
    return AgreementSnapshot.all_generations.filter(project_id=project_id, generation__lt=current).delete()[0]


@transaction.atomic
def snapshot_generation_discard(*, project_id: int, generation: int) -> None:
    """Deletes the rows a failed recompute wrote under ``generation``, unless it became current (the recompute
    failed after its switch)."""
    if _locked(project_id).current != generation:
        AgreementSnapshot.all_generations.filter(project_id=project_id, generation=generation).delete()


def snapshot_rows_replace(*, project_id: int, generation: int, rows: Sequence[tuple]) -> None:
    """The project's snapshots become ``rows``, written under ``generation`` (from ``snapshot_generation_new``)
    and made current in one transaction, so a write that fails leaves no row behind; then the rows replaced go."""
    with transaction.atomic():
        snapshot_rows_write(generation=generation, rows=rows)
        snapshot_generation_make_current(project_id=project_id, generation=generation)
    snapshot_generations_prune(project_id=project_id)
    refresh_planner_statistics(AgreementSnapshot)  # the dashboard's reads were planned on the table before
