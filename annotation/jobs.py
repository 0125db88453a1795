"""Celery jobs of the annotation app (thin: load ids, call one service)."""

from celery import shared_task


@shared_task(name="annotation.assignment_expire_job", ignore_result=True)
def assignment_expire_job(project_id: int | None = None) -> int:
    """Return expired leases to the pool. Correctness never waits on it: every ``next`` call expires
    its project's leases first; this only tidies projects nobody is working on (for leads' counts)."""
    from annotation.services import assignment_expire

    total = 0
    while n := assignment_expire(project_id=project_id):
        total += n
    return total
