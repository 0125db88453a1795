"""A project's team as its leads see it."""

from django.db.models import Count, Exists, OuterRef, Q

from annotation.models import Assignment, Membership, Project, RaterExclusion
from staffing.models import ExternalWorker


def team_list_for_project(project: Project) -> list[dict]:
    """Every member with their role, judged screens, leases held now and paused state; crowd workers
    with their worker id and whether they reached their completion code. Three queries."""
    counts = {
        row["rater_id"]: row
        for row in Assignment.objects.filter(project=project)
        .values("rater_id")
        .annotate(
            judged=Count("id", filter=Q(status=Assignment.Status.DONE)),
            leased=Count("id", filter=Q(status=Assignment.Status.ACTIVE)),
        )
    }
    workers = {w.user_id: w for w in ExternalWorker.objects.filter(project=project)}
    rows = []
    excluded = RaterExclusion.objects.filter(project=project, rater=OuterRef("user"))
    for m in (
        Membership.objects.filter(project=project, external_name="")
        .select_related("user")
        .annotate(is_excluded=Exists(excluded))
        .order_by("role", "user__username")
    ):
        row = counts.get(m.user_id, {})
        worker = workers.get(m.user_id)
        rows.append(
            {
                "user_id": m.user_id,
                "username": m.user.username,
                "role": m.role,
                "is_paused": m.is_paused,
                "is_excluded": m.is_excluded,
                "judged": row.get("judged", 0),
                "leased": row.get("leased", 0),
                "worker_id": worker.worker_id if worker else "",
                "completed_at": worker.completed_at if worker else None,
                "joined_at": m.created_at,
            }
        )
    return rows
