"""Leasing items to raters: one screen at a time, overlap-aware, gold interleaved, safe under concurrency.

How a lease stays exact without a sweeper:
- ``Item.n_leased`` counts the item's active assignments. It is raised when a lease is taken and
  lowered, in the same transaction, when the assignment is judged, skipped or expired.
- An item is open while ``n_judged + n_leased < n_target``. Both counters sit on the item row,
  which a lease locks with ``SELECT … FOR UPDATE SKIP LOCKED``; PostgreSQL re-checks the row's
  own condition on the newest version before locking it, so two raters can never both take the
  last slot (the job-queue pattern of PostgreSQL's documentation of ``SKIP LOCKED``). On SQLite,
  IMMEDIATE transactions (config/settings) serialise every writer, which is trivially safe.
- Expired leases are returned by ``assignment_expire``, which ``assignment_next_for_rater`` runs for
  its project on one call in eight and always before it answers "nothing left", so a dead lease never
  keeps a slot from a rater who needs it; the Celery job ``assignment_expire_job`` only tidies the
  counts of projects nobody is working on.

Lock order. Every transaction that locks more than one of these rows takes them in this order, so no two
can wait on each other in a cycle (on PostgreSQL such a cycle is a deadlock, and one side fails):
0. the project row: exclusively (FOR UPDATE) by the project-wide writes (item, judgment and metric
   imports, settings, lifecycle, quality-control rules), shared (FOR KEY SHARE, ``project_lock_shared``
   or the loop's locking reads) by everything below, which would otherwise take the shared lock late, in
   the foreign-key check of its first insert, after holding items a running import waits for;
1. the rater's membership row (``assignment_next_for_rater``, ``judgment_submit``, ``item_flag_create``,
   quality control's pause / resume / exclude / include, and the team's ``team_rater_remove``), or every
   rater's, in id order (quality control applying the rules to everyone); a rater taking a place of the
   project's design then takes the project's allocation advisory lock (annotation.services.allocation_places),
   which nothing else takes;
2. assignment rows (the one being answered, or the leases being released);
3. item rows, in id order (their ``n_leased`` / ``n_judged`` counters).
"""

import functools
import hashlib
import hmac
import random
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef, Subquery
from django.utils import timezone

from annotation.models import Assignment, Item, Membership, Output, Project, RaterProfile
from annotation.selectors.allocation import places_holding, places_vacated, rater_quota
from annotation.selectors.qualification import rater_not_admitted
from annotation.selectors.rater_loop import (
    assignment_current,
    assignment_locked,
    membership_with_project,
    screen_outputs_of,
)
from annotation.selectors.screen_plan import ScreenPlan, project_has_controls, screen_plan
from annotation.task_types import REGISTRY

from .adaptive_allocation import adaptive_draw
from .allocation_places import allocation_place_claim

# What a rating screen shows of an item (and nothing it must not show: gold, meta, subgroup).
SCREEN_ITEM_FIELDS = ("id", "input", "turns", "references")
# A repeat comes at least this many judged screens after its original.
REPEAT_GAP = 3
# A next call sweeps expired leases once in this many calls (and whenever it finds nothing open).
SWEEP_ONE_IN = 8
# Expired leases returned per call; a backlog larger than this drains over the next calls.
EXPIRE_BATCH = 500

_rng = random.SystemRandom()


class RaterRefused(Exception):
    """The rater may not do this now; ``status_code`` is the HTTP answer and the message says why."""

    status_code = 409

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ProjectNotFound(RaterRefused):
    status_code = 404


class NotARater(RaterRefused):
    status_code = 403


class RaterPaused(RaterRefused):
    status_code = 403


class RaterNotAdmitted(RaterRefused):
    """The qualification gate kept the rater from the real work (their training was below the pass mark)."""

    status_code = 403


NOT_ADMITTED = (
    "Thank you for your time on the training. Your answers there did not reach the mark this study "
    "needs for its real work, so there is no more work for you here. The study's lead has been told "
    "and may still let you in."
)


class ProjectNotLive(RaterRefused):
    status_code = 409


class AssignmentNotFound(RaterRefused):
    status_code = 404


class NotYourAssignment(RaterRefused):
    status_code = 403


class LeaseGone(RaterRefused):
    """The lease ran out (or the rater skipped the item): the slot may be someone else's now."""

    status_code = 410


def rater_may_work_check(*, project: Project, role: str | None, is_paused: bool) -> None:
    """Raises a RaterRefused unless a member with ``role`` may rate in ``project`` now (404 for
    outsiders, so a project's existence is not revealed)."""
    if role is None or (role == Membership.Role.RATER and project.status == Project.Status.DRAFT):
        raise ProjectNotFound("No such project.")  # a draft is not shown to its raters yet
    if role != Membership.Role.RATER:
        raise NotARater("Only the project's raters are served items.")
    if project.is_archived:
        raise ProjectNotLive("This project is archived: it serves no items and takes no judgments.")
    if project.status == Project.Status.CLOSED:
        raise ProjectNotLive("This project is closed: it serves no more items and takes no more judgments.")
    if project.status != Project.Status.LIVE:
        raise ProjectNotLive(
            f"This project is {project.get_status_display().lower()}: no items are served "
            "and no judgments are taken until its lead makes it live again."
        )
    if is_paused:
        raise RaterPaused("The project's lead has paused your work on this project; please ask them before you go on.")


def rater_admitted_check(*, project: Project, rater_id: int) -> None:
    """Raises RaterNotAdmitted when the project's qualification gate failed the rater and no lead admitted
    them since. Free for a project without a gate; one query for one with it."""
    if project.training_pass_mark and rater_not_admitted(project_id=project.pk, rater_id=rater_id):
        raise RaterNotAdmitted(NOT_ADMITTED)


class ProfileNeeded(RaterRefused):
    """The project asks a profile the rater has not answered yet (the pages send them to the form)."""

    status_code = 409


class ProfileDeclined(RaterRefused):
    status_code = 403


def rater_profile_check(*, project: Project, membership: Membership) -> None:
    """Raises ProfileNeeded / ProfileDeclined unless the rater consented to the project's profile form
    (annotation.services.profiles). Free for a project without a form; one query for one with it."""
    if not project.profile_consent:
        return
    consented = RaterProfile.objects.filter(membership=membership).values_list("consented", flat=True).first()
    if consented is None:
        raise ProfileNeeded(
            f"Please answer the project's profile form first (GET and POST /api/v1/projects/{project.pk}/profile/)."
        )
    if not consented:
        raise ProfileDeclined(
            "You declined the project's profile form, so it serves you no items. You can "
            "answer it again if you change your mind."
        )


def rater_membership_check(*, project_id: int, rater, lock: bool = False) -> Membership:
    """The rater's membership (with its project) if they may work on the project now; raises a
    RaterRefused otherwise. With ``lock`` the membership row stays locked until the transaction ends."""
    membership = membership_with_project(project_id=project_id, user_id=rater.pk, lock=lock)
    if membership is None:
        raise ProjectNotFound("No such project.")
    rater_may_work_check(project=membership.project, role=membership.role, is_paused=membership.is_paused)
    return membership


def assignment_expire(*, project_id: int | None = None, now: datetime | None = None) -> int:
    """Marks active assignments past their expiry as expired and gives their slots back; returns how many.

    Rows another transaction holds (a submission in flight) are skipped, never waited for.
    """
    now = now or timezone.now()
    # No savepoint: inside assignment_next_for_rater it is one more round trip, and a failure here
    # is a database error that aborts the caller anyway.
    with transaction.atomic(savepoint=False):
        due = Assignment.objects.filter(status=Assignment.Status.ACTIVE, expires_at__lte=now)
        if project_id is not None:
            due = due.filter(project_id=project_id)
        # Unordered on purpose: ORDER BY id would let the planner walk the primary key through every
        # assignment; the partial index assignment_active_expiry finds the few that are due.
        rows = list(due.select_for_update(skip_locked=True).order_by().values_list("id", "item_id")[:EXPIRE_BATCH])
        assignment_leases_release(rows)
    return len(rows)


def assignment_leases_release(leases: list[tuple[int, int]]) -> None:
    """Marks the active assignments ``leases`` ((id, item_id) pairs, their rows locked by the caller)
    expired and gives their slots back: each item's ``n_leased`` is lowered by its number of leases."""
    if not leases:
        return
    Assignment.objects.filter(id__in=[pk for pk, _ in leases]).update(status=Assignment.Status.EXPIRED)
    # Items in id order (the lock order above), so two releases never wait on each other's items in a cycle.
    for item_id, n in sorted(Counter(item_id for _, item_id in leases).items()):
        Item.objects.filter(pk=item_id).update(n_leased=F("n_leased") - n)


def assignment_lock_for_rater(*, rater, assignment_id: int) -> tuple[Assignment, str | None, bool]:
    """(the rater's assignment with its project, their role in it, paused?), the rater's membership row
    and the assignment row locked for the rest of the transaction; raises 404/403 refusals."""
    found = assignment_locked(assignment_id=assignment_id, rater_id=rater.pk)
    if found is None:
        raise AssignmentNotFound(f"There is no assignment {assignment_id}.")
    if found[0].rater_id != rater.pk:
        raise NotYourAssignment("This assignment belongs to another rater; ask for your own with next.")
    return found


def _taken_by(rater) -> Exists:
    """The rater holds or held the item (any assignment but an expired one)."""
    return Exists(Assignment.objects.filter(item=OuterRef("pk"), rater=rater).exclude(status=Assignment.Status.EXPIRED))


# The two queues, in the order they are served: items someone started and that still want a rater,
# then untouched items. Each condition is the predicate of a partial index of Item (item_started_open,
# item_untouched), walked in id order through its key ``id + 0`` (see the comment on those indexes).
_STARTED = "({t}.n_judged > 0 OR {t}.n_leased > 0) AND {t}.n_target > ({t}.n_judged + {t}.n_leased)"
_UNTOUCHED = "{t}.n_judged = 0 AND {t}.n_leased = 0 AND {t}.n_target > 0"
# The started queue is looked at this far only. Beyond it lie the rater's own items waiting for
# another rater (a lone rater on a double-annotated project piles them up), which would otherwise be
# scanned on every call; a rater who finds nothing there opens a new item, as they would anyway.
STARTED_WINDOW = 500
# The untouched queue is shuffled this far: the rater is served the first of its next ORDER_WINDOW items
# (in id order, through the index) in their own order; an empty window falls back to the plain queue. A wider
# window shuffles more of a large project but sorts more rows on every call (about 0.2 ms for 128, 0.7 for 500).
# In a designed project the window is the first items of each mask of the rater's place, as many in all.
ORDER_WINDOW = 128
# The rater's order: ascending key (order_key), then id, where the key's eight numbers come from
# Membership.order_seed (order_key_params), so with the seed recorded the order a rater was served in can be
# recomputed. The key applies twice a product of two affine maps modulo ORDER_PRIME (each factor below it, so
# every product fits a BIGINT). One affine map alone orders evenly spaced ids (as a project's items are) in long
# ascending runs: the first ten of thirty came out sorted for about one seed in fifteen. Composed, the orders of
# thirty such ids have ascending runs as long and as often as random permutations do (tests/annotation/allocation).
ORDER_PRIME = 2_147_483_647
_ORDER_INNER = (
    f"((((i.id %% {ORDER_PRIME}) * %s + %s) %% {ORDER_PRIME}) "
    f"* (((i.id %% {ORDER_PRIME}) * %s + %s) %% {ORDER_PRIME})) %% {ORDER_PRIME}"
)
_ORDER_KEY = (
    f"(((({_ORDER_INNER}) * %s + %s) %% {ORDER_PRIME}) "
    f"* ((({_ORDER_INNER}) * %s + %s) %% {ORDER_PRIME})) %% {ORDER_PRIME}, i.id"
)

OrderKey = tuple[int, int, int, int, int, int, int, int]


def order_key_params(seed: int) -> OrderKey:
    """The eight numbers of a rater's order key (see ORDER_PRIME) from their recorded ``order_seed``."""
    draw = random.Random(seed)
    return tuple(draw.randrange(1, ORDER_PRIME) for _ in range(8))


def _quadratic(x: int, a: int, b: int, c: int, d: int) -> int:
    return ((x * a + b) % ORDER_PRIME) * ((x * c + d) % ORDER_PRIME) % ORDER_PRIME


def order_key(item_id: int, params: OrderKey) -> int:
    """An item's place in a rater's order, as the lease's SQL computes it (ties broken by id)."""
    return _quadratic(_quadratic(item_id % ORDER_PRIME, *params[:4]), *params[4:])


def _order_key_sql_params(params: OrderKey) -> tuple[int, ...]:
    """The parameters of _ORDER_KEY, whose inner product appears twice."""
    inner, (e, f, g, h) = params[:4], params[4:]
    return (*inner, e, f, *inner, g, h)


# The allocation's filters (annotation.services.allocation), when the project has a design: the items of the
# rater's own place (or of none), then those of vacated places that no rater holding a place of theirs still
# has to judge, that no place still awaiting its first rater is planned for, and that are not shared units
# (planned for more than one place) of a place still held for the rater taking it over.
_OWN = "({t}.plan_mask & %s) <> 0 OR {t}.plan_mask = 0"
_VACATED = (
    "({t}.plan_mask & %s) <> 0 AND ({t}.plan_mask & %s) = 0 "
    "AND (({t}.plan_mask & %s) = 0 OR ({t}.plan_mask & ({t}.plan_mask - 1)) = 0)"
)
_VACATED_FREE = (
    "NOT EXISTS (SELECT 1 FROM {memberships} m WHERE m.project_id = i.project_id "
    "AND m.plan_position IS NOT NULL AND (i.plan_mask & (CAST(1 AS BIGINT) << m.plan_position)) <> 0 "
    "AND NOT EXISTS (SELECT 1 FROM {assignments} h WHERE h.item_id = i.id AND h.rater_id = m.user_id "
    "AND h.status <> 'expired'))"
)


# Adaptive allocation: the item's outputs are the drawn pair's (tuple's) systems, no more (params: the names).
_DRAWN_SYSTEM = "EXISTS (SELECT 1 FROM {outputs} o WHERE o.item_id = {t}.id AND o.system = %s)"
_DRAWN_SIZE = "(SELECT COUNT(*) FROM {outputs} o WHERE o.item_id = {t}.id) = {n}"


def _window_size(queue: str) -> int:
    """How many rows of ``queue`` a shuffled lease looks at."""
    return STARTED_WINDOW if queue == _STARTED else ORDER_WINDOW


def _drawn(n: int, outputs: str, t: str) -> str:
    """The condition that item ``t``'s outputs are the ``n`` systems drawn."""
    return " AND ".join([*[_DRAWN_SYSTEM] * n, _DRAWN_SIZE]).format(outputs=outputs, t=t, n=n)


def _by_mask(plan: str | None) -> bool:
    """Whether the window of the rater's own place is read mask by mask (PostgreSQL: LATERAL, unnest)."""
    return plan == "own" and connection.vendor == "postgresql"


@functools.cache
def _lease_sql(
    queue: str, plan: str | None = None, shuffled: bool = True, drawn: int = 0, counted: bool = False
) -> str:
    """The UPDATE taking a slot on the first item of ``queue`` open to a rater (params: when ``shuffled``, for
    the queue's window, the project, the plan's masks and the ``drawn`` systems, or, when the rater's own place
    is read by mask (_by_mask), shuffled or not, the masks of the place's items, the project, the ``drawn``
    systems and the rows per mask (None: all); then project, project, rater, the plan's masks, the ``drawn``
    systems; and when ``shuffled`` the rater's order key (_order_key_sql_params)). Shuffled, the first item is
    the first in the rater's order among the window; unshuffled (the untouched queue's fallback) the first in id
    order. ``drawn``: the number of systems drawn (adaptive allocation: only items of that pair or tuple of
    systems), 0 for none. ``counted``: the statement also writes the rater's screen counter when it takes a slot
    (_slot_take_sql; the counter's two parameters last)."""
    items, assignments, outputs = Item._meta.db_table, Assignment._meta.db_table, Output._meta.db_table
    lock = " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    # The rater's own items are read once into a hashed set (NOT IN, item_id is never null): with a
    # per-row NOT EXISTS the planner may walk the primary key through other projects' items, or probe
    # the assignments once per row when its statistics are stale.
    where = (
        f"i.project_id = %s AND i.gold IS NULL AND i.retired_at IS NULL AND {queue.format(t='i')} "
        f"AND i.id NOT IN (SELECT a.item_id FROM {assignments} a WHERE a.project_id = %s "
        f"AND a.rater_id = %s AND a.status <> 'expired')"
    )
    planned = {None: "", "own": _OWN, "vacated": _VACATED}[plan]
    if planned:
        where += f" AND ({planned.format(t='i')})"
    if plan == "vacated":
        where += " AND " + _VACATED_FREE.format(memberships=Membership._meta.db_table, assignments=assignments)
    if drawn:
        where += " AND " + _drawn(drawn, outputs, "i")
    drawn_window = " AND " + _drawn(drawn, outputs, "s") if drawn else ""
    window = ""
    if _by_mask(plan):
        # The rater's own items, the first few of each mask of their place (the queue's index by mask), not the
        # first of the queue that are theirs: with R places a rater's items are about one row in R/t of the queue
        # (t raters an item), so picking them out of it reads R/t rows for each. Unshuffled (LIMIT NULL), every
        # own item of the queue: no more rows than the place has, where walking the queue reads all of it.
        window = (
            f"SELECT w.id FROM unnest(%s::bigint[]) AS g(mask) CROSS JOIN LATERAL (SELECT s.id FROM {items} s "
            f"WHERE s.project_id = %s AND s.gold IS NULL AND {queue.format(t='s')} AND s.plan_mask = g.mask "
            f"AND s.retired_at IS NULL{drawn_window} ORDER BY (s.id + 0) LIMIT %s) w"
        )
    elif shuffled:
        # The window is read through the queue's partial index in id order and its rows are looked up by primary
        # key (= ANY of an array: a semi-join would let the planner scan all the project's items), so only they
        # are checked and sorted.
        size = _window_size(queue)
        planned_window = f" AND ({planned.format(t='s')})" if planned else ""
        window = (
            f"SELECT s.id FROM {items} s WHERE s.project_id = %s AND s.gold IS NULL "
            f"AND {queue.format(t='s')}{planned_window}{drawn_window} ORDER BY (s.id + 0) LIMIT {size}"
        )
    if window:
        among = f"i.id = ANY(ARRAY({window}))" if connection.vendor == "postgresql" else f"i.id IN ({window})"
        where = f"{among} AND {where}"
    order = _ORDER_KEY if shuffled else "(i.id + 0)"
    return _slot_take_sql(f"SELECT i.id FROM {items} i WHERE {where} ORDER BY {order} LIMIT 1{lock}", counted)


def _slot_take_sql(take: str, counted: bool) -> str:
    """The UPDATE taking a slot on the item ``take`` selects, returning what a screen shows of it; with
    ``counted``, writing the rater's screen counter in the same statement when it takes one (params: those of
    ``take``, then the counter's value and the membership's id)."""
    items, memberships = Item._meta.db_table, Membership._meta.db_table
    leased = (
        f"UPDATE {items} SET n_leased = n_leased + 1 WHERE id = ({take}) "
        f'RETURNING id, input, turns, "references", degraded_from_id'
    )
    if not counted:
        return leased
    return (
        f"WITH leased AS ({leased}), counted AS (UPDATE {memberships} SET screens_counted = %s "
        f"WHERE id = %s AND EXISTS (SELECT 1 FROM leased)) SELECT * FROM leased"
    )


@dataclass(frozen=True)
class ScreenCount:
    """The rater's screen counter (Membership.screens_counted) as the lease writes it when it takes a slot."""

    value: int | None
    membership_id: int

    @property
    def folded(self) -> bool:
        """Written by the lease's own statement (a data-modifying CTE, which PostgreSQL has and SQLite has not),
        saving the loop a statement on every screen of a project with a quota; on SQLite one more statement."""
        return connection.vendor == "postgresql"

    def params(self) -> list:
        return [self.value, self.membership_id] if self.folded else []

    def write_unfolded(self) -> None:
        if not self.folded:
            Membership.objects.filter(pk=self.membership_id).update(screens_counted=self.value)


@dataclass(frozen=True)
class PlanFilter:
    """Which of a designed project's items one lease looks at: ``plan`` "own" (``masks``: the rater's place)
    or "vacated" (``masks``: the vacated places, the places awaiting their first rater, the vacated places whose
    shared units are held)."""

    plan: str
    masks: tuple[int, ...]
    # "own": 0 (items open to every rater) and the masks of the items planned for the place, read one by one.
    groups: tuple[int, ...] = ()


def _own_filter(project: Project, membership: Membership) -> PlanFilter | None:
    """The work-lease filter of the rater's own place (taken now, on their first screen); None without a
    design."""
    if not project.plan_size:
        return None
    if membership.plan_position is None:
        allocation_place_claim(project=project, membership=membership)
    bit = 1 << membership.plan_position if membership.plan_position is not None else 0
    return PlanFilter("own", (bit,), (0, *(mask for mask in project.plan_masks if mask & bit)))


def _vacated_filter(project: Project, now: datetime) -> PlanFilter | None:
    """The work-lease filter of the vacated places, once the rater's own are done; None when there are none."""
    vacated = places_vacated(project)
    if not vacated:
        return None
    awaited = ((1 << project.plan_size) - 1) & ~project.plan_claimed_mask
    return PlanFilter("vacated", (vacated, awaited, places_holding(project, vacated, now)))


def _lease_open_item(
    project_id: int,
    rater_id: int,
    order: OrderKey,
    plan: PlanFilter | None = None,
    drawn: tuple[str, ...] = (),
    count: ScreenCount | None = None,
) -> Item | None:
    """Takes a slot on the first item open to the rater in their order ``order`` (order_key_params), started
    items first; one statement per queue, and one more when the untouched queue's window has nothing left.
    With ``drawn`` (adaptive allocation) only an item of that pair or tuple of systems. ``count``: the rater's
    screen counter, written when a slot is taken.

    The inner SELECT locks the row with SKIP LOCKED (rows other raters are taking are passed over,
    never waited for) and PostgreSQL re-checks the queue condition on the row's newest version before
    locking it; the UPDATE then raises ``n_leased`` on the row this transaction holds. Written in SQL
    because it is the hottest statement of the rater loop (see BENCHMARKS.md, "Rater loop").
    """
    masks = [*plan.masks] if plan else []
    systems = [*drawn]
    base = [project_id, project_id, rater_id, *masks, *systems]
    tries = ((_STARTED, True), (_UNTOUCHED, True), (_UNTOUCHED, False))
    for queue, shuffled in tries:
        window: list = []
        if plan is not None and _by_mask(plan.plan):
            size = _window_size(queue)
            window = [[*plan.groups], project_id, *systems, -(-size // len(plan.groups)) if shuffled else None]
        elif shuffled:
            window = [project_id, *masks, *systems]
        counted = count.params() if count else []
        params = [*window, *base, *(_order_key_sql_params(order) if shuffled else ()), *counted]
        sql = _lease_sql(queue, plan.plan if plan else None, shuffled, len(drawn), bool(counted))
        leased = list(Item.objects.raw(sql, params))
        if leased:
            if count:
                count.write_unfolded()
            return leased[0]
    return None


def _pick(candidates) -> Item | None:
    """Locks one item of ``candidates`` that is not retired (passing over rows others hold) drawn at random."""
    return (
        candidates.filter(retired_at__isnull=True)
        .order_by("?")
        .select_for_update(skip_locked=True, of=("self",))
        .first()
    )


def _gold_item(project: Project, rater, *, training: bool) -> Item | None:
    """A gold item of the training or of the checking pool this rater has not had."""
    return _pick(
        Item.objects.filter(project=project, gold__isnull=False, training=training)
        .exclude(_taken_by(rater))
        .only(*SCREEN_ITEM_FIELDS)
    )


def _repeat_item(project: Project, rater) -> Item | None:
    """A repeat copy of an item the rater judged, but not within their last REPEAT_GAP screens, with
    ``original_order``: the display order the rater saw the original in (one query, as every pick)."""
    done = Assignment.objects.filter(project=project, rater=rater, status=Assignment.Status.DONE)
    recent = done.order_by("-completed_at").values("item_id")[:REPEAT_GAP]
    original = done.filter(item_id=OuterRef("repeat_of_id")).values("shown_order")[:1]
    return _pick(
        Item.objects.filter(project=project, repeat_of__in=done.exclude(item_id__in=recent).values("item_id"))
        .exclude(_taken_by(rater))
        .annotate(original_order=Subquery(original))
        .only(*SCREEN_ITEM_FIELDS, "repeat_of_id")
    )


def _degraded_item(project: Project, rater) -> Item | None:
    """An open degraded copy the rater has not had."""
    return _pick(
        Item.objects.filter(project=project, degraded_from__isnull=False, n_target__gt=F("n_judged") + F("n_leased"))
        .exclude(_taken_by(rater))
        .only(*SCREEN_ITEM_FIELDS)
    )


_PICKS = {
    Assignment.ServedAs.TRAINING: functools.partial(_gold_item, training=True),
    Assignment.ServedAs.GOLD: functools.partial(_gold_item, training=False),
    Assignment.ServedAs.REPEAT: _repeat_item,
    Assignment.ServedAs.DEGRADED: _degraded_item,
}


def _lease(
    kind: str,
    project: Project,
    rater,
    own: PlanFilter | None,
    order: OrderKey,
    now: datetime,
    drawn: tuple[str, ...] = (),
    count: ScreenCount | None = None,
) -> Item | None:
    """Takes a slot on an item of the kind ``kind`` open to the rater: work from the queues (of their own
    place ``own`` in a designed project, then of the vacated places; of the pair or tuple of systems ``drawn``
    when one was drawn), a control picked at random. Either is one locking read and one write, which also writes
    the rater's screen counter ``count``, so a control screen costs the statements a work screen costs."""
    if kind == Assignment.ServedAs.WORK:
        item = _lease_open_item(project.pk, rater.pk, order, own, drawn, count) if drawn else None
        if item is not None:
            item.drawn = True  # its sampling probability is the draw's
        else:  # nothing drawn, or its open items were taken since the draw looked: work as without one
            item = _lease_open_item(project.pk, rater.pk, order, own, count=count)
        if item is None and own is not None and (vacated := _vacated_filter(project, now)) is not None:
            item = _lease_open_item(project.pk, rater.pk, order, vacated, count=count)
        return item
    item = _PICKS[kind](project, rater)
    if item is not None:
        counted = count.params() if count else []
        with connection.cursor() as cursor:
            cursor.execute(_slot_take_sql("%s", bool(counted)), [item.pk, *counted])
        if count:
            count.write_unfolded()
    return item


def _screens_served(project_id: int, rater_id: int) -> int:
    """Screens the rater was served in the project, control screens included (expired leases are not)."""
    return (
        Assignment.objects.filter(project_id=project_id, rater_id=rater_id)
        .exclude(status=Assignment.Status.EXPIRED)
        .count()
    )


def _screens_for_quota(membership: Membership, quota: int) -> int:
    """The rater's screens as their quota counts them, the membership row locked by the caller: the counter
    ``screens_counted`` while it is below the quota, else (or when not counted yet) the exact count.

    The counter never falls below the exact count: a screen is leased only here, under the membership row's
    lock, and each lease raises the counter by one (or empties it when no quota applies, so a quota set later
    starts from a recount); a lease that expires lowers the exact count and leaves the counter, so the counter
    can only err high, and the quota's end is always decided on the exact count. The lease pays a count only
    when the counter is empty or at the quota, not on every screen."""
    counted = membership.screens_counted
    if counted is not None and counted < quota:
        return counted
    return _screens_served(membership.project_id, membership.user_id)


def _screen_rng(project_id: int, rater_id: int, screen: int) -> random.Random:
    """The draw of one screen of one rater: seeded by the rater and the screen's index, and keyed by the
    deployment's secret, so that a session replays the same and no rater can work out their own draws."""
    key = hmac.new(settings.SECRET_KEY.encode(), f"{project_id}:{rater_id}:{screen}".encode(), hashlib.sha256)
    return random.Random(int.from_bytes(key.digest()[:8], "big"))


def _screen_kinds(plan: ScreenPlan, project: Project, u: float) -> list[str]:
    """The kinds of screen to try, in order: the one drawn first, then the others with screens left.

    Training comes first. After it, the screen is drawn from what is left of the session as if from an urn
    (the gold checks, repeats and degraded copies still planned, and the plain work): every control lands at a
    uniformly random position among the rater's remaining screens, the last one included, and each screen,
    whatever it is, lowers "left" by one.
    """
    left = plan.controls_left(project)
    if left["training"]:  # work only if every training item left is being leased to someone this instant
        return [Assignment.ServedAs.TRAINING, Assignment.ServedAs.WORK]
    urn = [
        (Assignment.ServedAs.GOLD, left["gold"]),
        (Assignment.ServedAs.REPEAT, left["repeat"]),
        (Assignment.ServedAs.DEGRADED, plan.open_degraded),
        (Assignment.ServedAs.WORK, plan.open_work - plan.open_degraded),
    ]
    total = sum(n for _, n in urn)
    drawn, mark = Assignment.ServedAs.WORK, u * total
    for kind, n in urn:
        if mark < n:
            drawn = kind
            break
        mark -= n
    others = [kind for kind, n in urn if n and kind != drawn]
    return [drawn, *sorted(others, key=lambda kind: kind != Assignment.ServedAs.WORK)]


def rater_loop_start(*, project_id: int, rater, now: datetime) -> tuple[Membership, bool]:
    """The first steps of every lease call: the rater's membership (with its project) checked and its row locked,
    the qualification gate, and on one call in SWEEP_ONE_IN a sweep of the project's expired leases; returns the
    membership and whether it swept. Raises RaterRefused."""
    membership = rater_membership_check(project_id=project_id, rater=rater, lock=True)
    rater_admitted_check(project=membership.project, rater_id=rater.pk)
    rater_profile_check(project=membership.project, membership=membership)
    # Expired leases are swept on one call in SWEEP_ONE_IN, and always before answering "nothing left":
    # a slot held by a dead lease is never lost, and the common call saves a statement.
    swept = _rng.random() < 1 / SWEEP_ONE_IN
    if swept:
        assignment_expire(project_id=membership.project.pk, now=now)
    return membership, swept


@transaction.atomic
def assignment_next_for_rater(
    *, project_id: int, rater, now: datetime | None = None, rng: random.Random | None = None
) -> Assignment | None:
    """The rater's current assignment if its lease still runs, else a new lease; None when nothing is left.

    Raises RaterRefused (ProjectNotFound, NotARater, RaterPaused, ProjectNotLive, RaterNotAdmitted). The rater's
    membership row is locked first, so one rater's concurrent calls queue and never hold two leases but the one
    leased ahead (annotation.services.lease_ahead).
    A new assignment carries ``screen_outputs`` (output texts and turns in display order) for assignment_screen.
    ``rng`` (tests) replaces both the screen's draw, seeded per rater by default, and the display order's.
    """
    now = now or timezone.now()
    membership, swept = rater_loop_start(project_id=project_id, rater=rater, now=now)
    current = assignment_current(project=membership.project, rater_id=rater.pk, now=now)
    if current is not None:
        return current
    return assignment_lease_new(membership=membership, rater=rater, now=now, swept=swept, rng=rng)


def assignment_lease_new(
    *, membership: Membership, rater, now: datetime, swept: bool, rng: random.Random | None = None
) -> Assignment | None:
    """A new lease for the rater, whose membership row the caller locked (rater_loop_start): the screen drawn
    for their next index, within their quota; None when nothing is left (``swept``: expired leases were
    returned on this call already)."""
    project = membership.project
    quota = rater_quota(membership, project)
    served = None if quota is None else _screens_for_quota(membership, quota)
    if served is not None and served >= quota:
        return None
    counted = None if served is None else served + 1
    count = None if counted == membership.screens_counted else ScreenCount(counted, membership.pk)
    own = _own_filter(project, membership)
    order = order_key_params(membership.order_seed)
    # Drawn before the screen's kind, for every screen, so that a control costs what work costs.
    draw = adaptive_draw(project=project, rater_id=rater.pk, rng=rng or _rng)

    kinds = [Assignment.ServedAs.WORK]
    if project_has_controls(project):
        plan = screen_plan(project_id=project.pk, rater_id=rater.pk)
        kinds = _screen_kinds(plan, project, (rng or _screen_rng(project.pk, rater.pk, plan.screens)).random())
    item = None
    for kind in kinds:
        item = _lease(kind, project, rater, own, order, now, draw.systems if draw else (), count)
        if item is not None:
            break
    if item is None and not swept and assignment_expire(project_id=project.pk, now=now):
        item = _lease(kind := Assignment.ServedAs.WORK, project, rater, own, order, now, count=count)
    if item is None:
        return None
    membership.screens_counted = counted
    # The work queue holds degraded copies too (served from it when the plain work has run out).
    served_as = Assignment.ServedAs.DEGRADED if kind == Assignment.ServedAs.WORK and item.degraded_from_id else kind

    rng = rng or _rng
    original_order = getattr(item, "original_order", None)
    task_type = REGISTRY[project.task_type]
    outputs = [(system, (text, turns)) for _, _, system, text, turns in screen_outputs_of(item.pk)]
    systems = [system for system, _ in outputs]
    if original_order is not None and not task_type.per_output:
        order = list(reversed(original_order))  # a pairwise repeat swaps the sides the rater saw
    else:
        order = task_type.draw_order(systems, rng, membership.left_balance, randomise=project.randomise_output_order)
    if task_type.order_record(membership.left_balance, systems, order):
        Membership.objects.filter(pk=membership.pk).update(left_balance=membership.left_balance)
    assignment = Assignment.objects.create(
        project=project,
        item=item,
        rater=rater,
        shown_order=order,
        served_as=served_as,
        expires_at=now + timedelta(seconds=project.lease_seconds),
        sampling_probability=(
            draw.probability if getattr(item, "drawn", False) and served_as == Assignment.ServedAs.WORK else None
        ),
    )
    assignment.screen_outputs = [outputs[p][1] for p in order]
    return assignment
