"""The reads of adaptive allocation (annotation.services.adaptive_allocation): the pairs of systems of a
project's work items."""

from django.db import connection

from annotation.models import AdaptiveAllocationState, Assignment, Item, Output, Project


def pair_of(a: str, b: str) -> tuple[str, str]:
    """A pair of systems as every cache and draw keys it: names sorted."""
    return (a, b) if a <= b else (b, a)


def work_item_pairs(project_id: int, *, open_to_rater: int | None = None) -> list[tuple[str, str]]:
    """The pairs of systems (sorted) of the project's work items; with ``open_to_rater`` only of the items
    open to that rater now (the conditions of the work queue, control items left out)."""
    items, outputs, assignments = Item._meta.db_table, Output._meta.db_table, Assignment._meta.db_table
    sql = (
        f"SELECT DISTINCT o1.system, o2.system FROM {items} i "
        f"JOIN {outputs} o1 ON o1.item_id = i.id AND o1.position = 0 "
        f"JOIN {outputs} o2 ON o2.item_id = i.id AND o2.position = 1 "
        f"WHERE i.project_id = %s AND i.gold IS NULL AND i.degraded_from_id IS NULL AND i.repeat_of_id IS NULL"
    )
    params = [project_id]
    if open_to_rater is not None:
        sql += (
            f" AND i.retired_at IS NULL AND i.n_target > i.n_judged + i.n_leased "
            f"AND i.id NOT IN (SELECT a.item_id FROM {assignments} a WHERE a.project_id = %s "
            f"AND a.rater_id = %s AND a.status <> 'expired')"
        )
        params += [project_id, open_to_rater]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return sorted({pair_of(a, b) for a, b in cursor.fetchall()})


def adaptive_state_get(project: Project) -> AdaptiveAllocationState | None:
    """The project's cached allocation probabilities, if computed."""
    return AdaptiveAllocationState.objects.filter(project=project).first()
