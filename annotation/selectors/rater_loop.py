"""The reads of the rater loop (next + judgment), in SQL.

They run on every request of the loop, where compiling an ORM query costs the web worker three to
five times the database's own work (about 0.5 ms against 0.1 ms a statement on the benchmark
machine; BENCHMARKS.md, "Rater loop"). Each returns model instances built with ``Model.from_db``, as
the ORM builds them, with only the fields the loop uses loaded (the others load on access).
The SQL is portable: on SQLite, where IMMEDIATE transactions serialise writers, FOR UPDATE is left out.
"""

import functools
import json

from django.db import connection

from annotation.models import Assignment, Criterion, Item, Membership, Output, Project, ProposedSpan
from annotation.task_types import Proposal


def _in_model_order(model, names: set[str]) -> tuple[str, ...]:
    """``Model.from_db`` takes a subset of fields in the model's own field order."""
    return tuple(f.attname for f in model._meta.concrete_fields if f.attname in names)


PROJECT_FIELDS = _in_model_order(
    Project,
    {
        "id",
        "name",
        "task_type",
        "status",
        "gold_rate",
        "lease_seconds",
        "show_reference",
        "training_items",
        "repeat_rate",
        "rankme_modulus",
        "randomise_output_order",
        "n_degraded",
        "training_pass_mark",
        "max_screens_per_rater",
        "plan_size",
        "plan_claimed_mask",
        "plan_masks",
        "archived_at",
        "task_config",
        "adjudicate",
        "adjudication_threshold",
        "profile_consent",
        "rating_unit",
    },
)
MEMBERSHIP_FIELDS = _in_model_order(
    Membership,
    {
        "id",
        "project_id",
        "user_id",
        "role",
        "is_paused",
        "left_balance",
        "max_screens",
        "plan_position",
        "order_seed",
        "screens_counted",
    },
)
CRITERION_FIELDS = _in_model_order(
    Criterion, {"id", "project_id", "name", "position", "scale_min", "scale_max", "labels", "help_text"}
)


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _columns(alias: str, fields) -> str:
    return ", ".join(f"{alias}.{_q(f)}" for f in fields)


def _json(value):
    """JSON columns come back as text from a plain cursor (Django parses them in the field)."""
    return json.loads(value) if isinstance(value, str) else value


def _for_update(of: str) -> str:
    if not connection.features.has_select_for_update:
        return ""
    return f" FOR UPDATE OF {of}" if connection.features.has_select_for_update_of else " FOR UPDATE"


def _for_key_share() -> str:
    """The project row's shared lock, which every insert referring to the project takes anyway (its foreign
    key check): taking it first keeps the lock order when an import holds the row exclusively."""
    return " FOR KEY SHARE" if connection.vendor == "postgresql" else ""


def _fetch(sql: str, params) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _project(values) -> Project:
    values = list(values)
    for flag in ("show_reference", "randomise_output_order", "adjudicate"):
        values[PROJECT_FIELDS.index(flag)] = bool(values[PROJECT_FIELDS.index(flag)])
    for field in ("task_config", "plan_masks"):
        values[PROJECT_FIELDS.index(field)] = _json(values[PROJECT_FIELDS.index(field)])
    return Project.from_db(connection.alias, PROJECT_FIELDS, values)


def project_lock_shared(project_id: int) -> None:
    """Takes the project row's shared lock, the first of the lock order (annotation.services.assignment),
    for a transaction that goes on to lock a membership, assignments or items of the project."""
    if _for_key_share():
        _fetch(f"SELECT id FROM {Project._meta.db_table} WHERE id = %s{_for_key_share()}", [project_id])


@functools.cache
def _membership_sql(lock: bool) -> str:
    if not lock:
        return (
            f"SELECT {_columns('m', MEMBERSHIP_FIELDS)}, {_columns('p', PROJECT_FIELDS)} "
            f"FROM {Membership._meta.db_table} m JOIN {Project._meta.db_table} p ON p.id = m.project_id "
            f"WHERE m.project_id = %s AND m.user_id = %s"
        )
    # The lock order of annotation.services.assignment: the project row (shared), then the membership row.
    # The membership's condition reads the project's CTE, so that lock is taken first whatever the plan.
    return (
        f"WITH p AS (SELECT {_columns('p', PROJECT_FIELDS)} FROM {Project._meta.db_table} p "
        f"WHERE p.id = %s{_for_key_share()}) "
        f"SELECT {_columns('m', MEMBERSHIP_FIELDS)}, {_columns('p', PROJECT_FIELDS)} "
        f"FROM {Membership._meta.db_table} m JOIN p ON p.id = m.project_id "
        f"WHERE m.project_id = (SELECT id FROM p) AND m.user_id = %s" + _for_update("m")
    )


def membership_with_project(*, project_id: int, user_id: int, lock: bool) -> Membership | None:
    """The user's membership of the project, its ``project`` attached; with ``lock`` its row is locked."""
    rows = _fetch(_membership_sql(lock), [project_id, user_id])
    if not rows:
        return None
    n = len(MEMBERSHIP_FIELDS)
    values = dict(zip(MEMBERSHIP_FIELDS, rows[0][:n], strict=True))
    values["is_paused"], values["left_balance"] = bool(values["is_paused"]), _json(values["left_balance"]) or {}
    membership = Membership.from_db(connection.alias, MEMBERSHIP_FIELDS, list(values.values()))
    membership.project = _project(rows[0][n:])
    return membership


@functools.cache
def _current_sql() -> str:
    return (
        f"SELECT a.*, i.input AS item_input, i.turns AS item_turns, i.{_q('references')} AS item_references "
        f"FROM {Assignment._meta.db_table} a JOIN {Item._meta.db_table} i ON i.id = a.item_id "
        # A rater holds two leases at most (the current screen and the one leased ahead). Ordered by
        # ``id + 0``, not ``id``: an order the primary key gives would invite a walk of it.
        f"WHERE a.project_id = %s AND a.rater_id = %s AND a.status = %s AND a.expires_at > %s "
        f"ORDER BY a.id + 0 LIMIT 2"
    )


def assignments_running(*, project: Project, rater_id: int, now) -> list[Assignment]:
    """The rater's active assignments whose lease still runs, oldest first (the current screen, then the one
    leased ahead), with the screen fields of their items."""
    found = list(
        Assignment.objects.raw(
            _current_sql(),
            [project.pk, rater_id, Assignment.Status.ACTIVE, connection.ops.adapt_datetimefield_value(now)],
        )
    )
    for assignment in found:
        assignment.project = project
        assignment.item = Item.from_db(
            connection.alias,
            ("id", "input", "turns", "references"),
            (
                assignment.item_id,
                assignment.item_input,
                _json(assignment.item_turns),
                _json(assignment.item_references),
            ),
        )
    return found


def assignment_current(*, project: Project, rater_id: int, now) -> Assignment | None:
    """The rater's current screen: the oldest of their active assignments whose lease still runs."""
    running = assignments_running(project=project, rater_id=rater_id, now=now)
    return running[0] if running else None


@functools.cache
def _locked_sql() -> str:
    # The project row (shared), then the rater's membership row, then the assignment row: the lock order of
    # the rater loop (annotation.services.assignment, "Lock order"). The membership's CTE reads the
    # project's, so the project is locked first; the CTEs' locks are taken when the join below reads
    # them, before the outer FOR UPDATE locks the assignment row the join returned.
    assignments, memberships = Assignment._meta.db_table, Membership._meta.db_table
    return (
        f"WITH pl AS (SELECT id FROM {Project._meta.db_table} "
        f"WHERE id = (SELECT project_id FROM {assignments} WHERE id = %s){_for_key_share()}), "
        f"m AS (SELECT m.project_id, m.user_id, m.role, m.is_paused "
        f"FROM {memberships} m WHERE m.user_id = %s "
        f"AND m.project_id = (SELECT id FROM pl){_for_update('m')}) "
        f"SELECT a.*, m.role AS member_role, m.is_paused AS member_paused, "
        f"{', '.join(f'p.{_q(f)} AS p_{f}' for f in PROJECT_FIELDS)} "
        f"FROM {assignments} a JOIN {Project._meta.db_table} p ON p.id = a.project_id "
        f"LEFT JOIN m ON m.project_id = a.project_id AND m.user_id = a.rater_id "
        f"WHERE a.id = %s" + _for_update("a")
    )


def assignment_locked(*, assignment_id: int, rater_id: int) -> tuple[Assignment, str | None, bool] | None:
    """(assignment with its project, the role in the project of its rater, paused?), the rater
    ``rater_id``'s membership row of the assignment's project and then the assignment row locked; None
    when there is no such assignment. The role is None when the assignment is another rater's."""
    found = list(Assignment.objects.raw(_locked_sql(), [assignment_id, rater_id, assignment_id]))
    if not found:
        return None
    assignment = found[0]
    assignment.project = _project(getattr(assignment, f"p_{f}") for f in PROJECT_FIELDS)
    return assignment, assignment.member_role, bool(assignment.member_paused)


def criteria_of(project_id: int) -> list[Criterion]:
    labels = CRITERION_FIELDS.index("labels")
    return [
        Criterion.from_db(
            connection.alias, CRITERION_FIELDS, (*row[:labels], _json(row[labels]) or [], *row[labels + 1 :])
        )
        for row in _fetch(_criteria_sql(), [project_id])
    ]


@functools.cache
def _criteria_sql() -> str:
    return (
        f"SELECT {_columns('c', CRITERION_FIELDS)} FROM {Criterion._meta.db_table} c "
        f"WHERE c.project_id = %s ORDER BY c.position, c.id"
    )


def proposals_of(item_id: int) -> dict[int, tuple[Proposal, ...]]:
    """The models' proposed spans on the item's outputs, by output id, in the order a screen lists them."""
    out: dict[int, list[Proposal]] = {}
    for output_id, *fields in _fetch(
        f"SELECT p.output_id, p.id, p.side, p.start, p.{_q('end')}, p.severity, p.category "
        f"FROM {ProposedSpan._meta.db_table} p JOIN {Output._meta.db_table} o ON o.id = p.output_id "
        f"WHERE o.item_id = %s ORDER BY p.output_id, p.side, p.start, p.{_q('end')}, p.id",
        [item_id],
    ):
        out.setdefault(output_id, []).append(Proposal(*fields))
    return {k: tuple(v) for k, v in out.items()}


def outputs_of(item_id: int) -> list[tuple[int, int, str, str]]:
    """(id, position, system, text) of the item's outputs, in imported order."""
    return _fetch(
        f"SELECT o.id, o.position, o.system, o.text FROM {Output._meta.db_table} o "
        f"WHERE o.item_id = %s ORDER BY o.position",
        [item_id],
    )


def screen_outputs_of(item_id: int) -> list[tuple[int, int, str, str, list[dict] | None]]:
    """(id, position, system, text, turns) of the item's outputs, in imported order: what a screen shows
    (turns: a whole-conversation output's, else None)."""
    return [
        (*row, _json(turns))
        for *row, turns in _fetch(
            f"SELECT o.id, o.position, o.system, o.text, o.turns FROM {Output._meta.db_table} o "
            f"WHERE o.item_id = %s ORDER BY o.position",
            [item_id],
        )
    ]
