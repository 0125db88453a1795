"""A small project in a known state for the console tests, at a fixed ``NOW`` or
any other ``now``.

Ten non-gold items wanted by two raters each and two gold items:
i0..i3 judged by r1 and r2 (complete), i4 and i5 by r1 only, i6 leased to r3 now (and an expired lease of
r2 not yet swept: in progress), i7..i9 untouched; g0 (gold) judged by r1. Each judgment is one screen
(one criterion, one output), served and submitted at the times of ``screens(now)``.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from annotation.models import Assignment, Judgment, Membership
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory

NOW = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)

# (rater, item, days before ``now``'s day, time of day served, seconds from serving to submission)
_SCREENS = [
    ("r1", "i0", 2, timedelta(hours=10), 30),
    ("r1", "i1", 2, timedelta(hours=10, minutes=1), 60),
    ("r1", "i2", 1, timedelta(hours=9), 90),
    ("r1", "i3", 1, timedelta(hours=9, minutes=5), 45),
    ("r1", "i4", 0, timedelta(hours=8), 120),
    ("r1", "i5", 0, timedelta(hours=8, minutes=10), 20),
    ("r1", "g0", 0, timedelta(hours=8, minutes=20), 10),
    ("r2", "i0", 1, timedelta(hours=11), 40),
    ("r2", "i1", 1, timedelta(hours=11, minutes=2), 80),
    ("r2", "i2", 0, timedelta(hours=9), 100),
    ("r2", "i3", 0, timedelta(hours=9, minutes=5), 50),
]


def screens(now: datetime = NOW) -> list[tuple[str, str, datetime, int]]:
    """(rater, item, served at, seconds to submission) per judged screen."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return [(rater, item, midnight - timedelta(days=days) + at, seconds) for rater, item, days, at, seconds in _SCREENS]


SCREENS = screens()


@dataclass
class KnownProject:
    project: object
    lead: object
    raters: dict
    items: dict


def known_project(*, extra_untouched: int = 0, now: datetime = NOW) -> KnownProject:
    project = ProjectFactory(name="known study", criteria=["fluency"], raters_per_item=2)
    lead = UserFactory(username="known-lead-{project.pk}")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    raters = {name: UserFactory(username=f"known-{name}") for name in ("r1", "r2", "r3")}
    for user in raters.values():
        MembershipFactory(project=project, user=user, role=Membership.Role.RATER)
    judged_by = {}
    for rater, item, _, _ in screens(now):
        judged_by.setdefault(item, set()).add(rater)
    items = {}
    for k in range(10 + extra_untouched):
        name = f"i{k}"
        items[name] = ItemFactory(
            project=project,
            external_id=name,
            n_target=2,
            n_judged=len(judged_by.get(name, ())),
            n_leased=2 if name == "i6" else 0,
            subgroup="news" if k % 2 else "sport",
            systems=["bart"] if k < 5 else ["pegasus"],
        )
    items["g0"] = ItemFactory(project=project, external_id="g0", n_target=0, n_judged=1, gold={"fluency": 4})
    items["g1"] = ItemFactory(project=project, external_id="g1", n_target=0, gold={"fluency": 2})
    criterion = project.criteria.get()
    for rater, item_name, served_at, seconds in screens(now):
        item = items[item_name]
        assignment = Assignment.objects.create(
            project=project,
            item=item,
            rater=raters[rater],
            status=Assignment.Status.DONE,
            expires_at=served_at + timedelta(minutes=15),
            completed_at=served_at + timedelta(seconds=seconds),
        )
        Assignment.objects.filter(pk=assignment.pk).update(served_at=served_at)  # auto_now_add on create
        Judgment.objects.create(
            project=project,
            item=item,
            output=item.outputs.get(),
            criterion=criterion,
            rater=raters[rater],
            assignment=assignment,
            value=4,
            shown_order=[item.outputs.get().system],
            served_at=served_at,
            submitted_at=served_at + timedelta(seconds=seconds),
            duration_ms=seconds * 1000,
        )
    # A revised answer: r2 first gave i0 a 2, then changed it; only the current row counts as a judgment.
    Judgment.objects.filter(item=items["i0"], rater=raters["r2"]).update(is_current=False, value=2)
    Judgment.objects.create(
        project=project,
        item=items["i0"],
        output=items["i0"].outputs.get(),
        criterion=criterion,
        rater=raters["r2"],
        value=5,
        submitted_at=screens(now)[7][2] + timedelta(minutes=30),
    )
    for rater, served_at in (("r3", now - timedelta(minutes=30)), ("r2", now - timedelta(hours=2))):
        lease = Assignment.objects.create(
            project=project, item=items["i6"], rater=raters[rater], expires_at=served_at + timedelta(minutes=45)
        )
        Assignment.objects.filter(pk=lease.pk).update(served_at=served_at)
    return KnownProject(project, lead, raters, items)
