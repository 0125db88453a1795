"""A rater's session as planned: the screens served so far by kind, what is still open to them, and from
these the control screens still to come, so that progress counts every screen, control or not.

The plan. Of ``W`` work screens (the rater's work served so far plus the work still open to them), a project
with gold rate ``g`` and repeat rate ``r`` plans ``⌊W·g/(1−g−r)⌋`` gold checks and ``⌊W·r/(1−g−r)⌋``
repeats (so that they are those shares of all the rater's screens after training), each capped by the items
there are for it, and its ``training_items`` training screens first. A rater's "left" is the work still
open to them plus the controls still planned: it drops by one on every screen, whatever the screen is.
"""

import functools
import math
from dataclasses import dataclass

from django.db import connection

from annotation.models import Assignment, Item, Project

# Gold and repeat rates are each below one, but their sum need not be: above this share the plan is capped.
MAX_CONTROL_SHARE = 0.95


@dataclass(frozen=True)
class ScreenPlan:
    # Screens served to the rater (leases not expired), by kind; degraded copies count as work.
    training: int
    gold: int
    repeat: int
    work: int
    # Items still open to the rater: work (degraded copies included) and degraded copies alone; gold items
    # of the training and the checking pool, and repeat copies, the rater has not had.
    open_work: int
    open_degraded: int
    training_pool: int
    gold_pool: int
    repeat_pool: int

    @property
    def screens(self) -> int:
        """Screens served so far (the index of the next screen)."""
        return self.training + self.gold + self.repeat + self.work

    def controls_left(self, project: Project) -> dict[str, int]:
        """Control screens still planned, by kind (``training``, ``gold``, ``repeat``)."""
        left = {"training": max(0, min(project.training_items, self.training + self.training_pool) - self.training)}
        share = min(project.gold_rate + project.repeat_rate, MAX_CONTROL_SHARE)
        work = self.work + self.open_work
        for kind, rate, pool, served in (
            ("gold", project.gold_rate, self.gold_pool, self.gold),
            ("repeat", project.repeat_rate, self.repeat_pool, self.repeat),
        ):
            # The small epsilon keeps a product that is whole in exact arithmetic from flooring one below.
            planned = math.floor(work * rate / (1 - share) + 1e-9) if rate > 0 else 0
            left[kind] = max(0, min(planned, served + pool) - served)
        return left

    def remaining(self, project: Project) -> int:
        """Screens still to come for the rater: open work plus planned controls."""
        return self.open_work + sum(self.controls_left(project).values())


def project_has_controls(project: Project) -> bool:
    """Whether the project serves any control screen (training, gold, repeats, degraded copies); a project
    without any needs no plan, and its lease stays the plain queue."""
    return bool(project.training_items or project.gold_rate or project.repeat_rate or project.n_degraded)


@functools.cache
def _plan_sql() -> str:
    items, assignments = Item._meta.db_table, Assignment._meta.db_table
    open_ = "i.gold IS NULL AND i.retired_at IS NULL AND i.n_target > i.n_judged + i.n_leased"
    return (
        f"WITH mine AS (SELECT a.item_id, a.served_as FROM {assignments} a WHERE a.project_id = %s "
        f"AND a.rater_id = %s AND a.status <> 'expired'), "
        f"served AS (SELECT count(*) FILTER (WHERE served_as = 'training') AS training, "
        f"count(*) FILTER (WHERE served_as = 'gold') AS gold, "
        f"count(*) FILTER (WHERE served_as = 'repeat') AS repeat, "
        f"count(*) FILTER (WHERE served_as IN ('work', 'degraded')) AS work FROM mine) "
        f"SELECT s.training, s.gold, s.repeat, s.work, "
        f"count(i.id) FILTER (WHERE {open_}), "
        f"count(i.id) FILTER (WHERE {open_} AND i.degraded_from_id IS NOT NULL), "
        f"count(i.id) FILTER (WHERE i.gold IS NOT NULL AND i.training), "
        f"count(i.id) FILTER (WHERE i.gold IS NOT NULL AND NOT i.training), "
        f"count(i.id) FILTER (WHERE i.repeat_of_id IS NOT NULL) "
        f"FROM served s LEFT JOIN {items} i ON i.project_id = %s "
        f"AND i.id NOT IN (SELECT item_id FROM mine) "
        f"GROUP BY s.training, s.gold, s.repeat, s.work"
    )


def screen_plan(*, project_id: int, rater_id: int) -> ScreenPlan:
    """The rater's plan in the project, in one statement."""
    with connection.cursor() as cursor:
        cursor.execute(_plan_sql(), [project_id, rater_id, project_id])
        return ScreenPlan(*(int(v) for v in cursor.fetchone()))
