"""The reads of adaptive allocation (annotation.services.adaptive_allocation): the pairs or tuples of systems of a
project's work items."""

from django.db import connection

from annotation.models import AdaptiveAllocationState, Assignment, Item, Output, Project
from annotation.task_types.adaptive import PAIRS


def pair_of(a: str, b: str) -> tuple[str, str]:
    """A pair of systems as every cache and draw keys it: names sorted."""
    return (a, b) if a <= b else (b, a)


def _work_items(open_to_rater: int | None) -> tuple[str, list]:
    """The conditions on item ``i`` of a project's work items (params: the project), with ``open_to_rater`` only
    of those open to that rater now (the conditions of the work queue, control items left out; params: the
    project and the rater after the project)."""
    assignments = Assignment._meta.db_table
    where = "i.project_id = %s AND i.gold IS NULL AND i.degraded_from_id IS NULL AND i.repeat_of_id IS NULL"
    if open_to_rater is None:
        return where, []
    where += (
        f" AND i.retired_at IS NULL AND i.n_target > i.n_judged + i.n_leased "
        f"AND i.id NOT IN (SELECT a.item_id FROM {assignments} a WHERE a.project_id = %s "
        f"AND a.rater_id = %s AND a.status <> 'expired')"
    )
    return where, [open_to_rater]


def work_item_pairs(project_id: int, *, open_to_rater: int | None = None) -> list[tuple[str, str]]:
    """The pairs of systems (sorted) of the project's work items; with ``open_to_rater`` only of the items
    open to that rater now."""
    items, outputs = Item._meta.db_table, Output._meta.db_table
    where, rater = _work_items(open_to_rater)
    sql = (
        f"SELECT DISTINCT o1.system, o2.system FROM {items} i "
        f"JOIN {outputs} o1 ON o1.item_id = i.id AND o1.position = 0 "
        f"JOIN {outputs} o2 ON o2.item_id = i.id AND o2.position = 1 WHERE {where}"
    )
    params = [project_id, *([project_id, *rater] if rater else [])]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return sorted({pair_of(a, b) for a, b in cursor.fetchall()})


def work_item_tuples(project_id: int, *, open_to_rater: int | None = None) -> list[tuple[str, ...]]:
    """The tuples of systems (each sorted, distinct) of the project's work items; with ``open_to_rater`` only of
    the items open to that rater now."""
    items, outputs = Item._meta.db_table, Output._meta.db_table
    where, rater = _work_items(open_to_rater)
    sql = f"SELECT o.item_id, o.system FROM {items} i JOIN {outputs} o ON o.item_id = i.id WHERE {where}"
    params = [project_id, *([project_id, *rater] if rater else [])]
    systems: dict[int, list[str]] = {}
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for item, system in cursor.fetchall():
            systems.setdefault(item, []).append(system)
    return sorted({tuple(sorted(names)) for names in systems.values()})


def work_item_units(project_id: int, unit: str, *, open_to_rater: int | None = None) -> list[tuple[str, ...]]:
    """What adaptive allocation draws from for a task type's ``unit`` (annotation.task_types.adaptive): pairs or
    tuples of systems of the project's work items."""
    read = work_item_pairs if unit == PAIRS else work_item_tuples
    return list(read(project_id, open_to_rater=open_to_rater))


def adaptive_state_get(project: Project) -> AdaptiveAllocationState | None:
    """The project's cached allocation probabilities, if computed."""
    return AdaptiveAllocationState.objects.filter(project=project).first()
