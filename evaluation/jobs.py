"""Celery tasks of the evaluation app: load by id, run one service under job_run for progress."""

from celery import Task, shared_task

from core.services.job import job_run
from evaluation.services import metrics_compute
from evaluation.services.adaptive_refresh import adaptive_refresh_stale
from evaluation.services.export import EXPORT_JOB
from evaluation.services.export_parts import (
    DISCARD_JOB,
    FINISH_JOB,
    PART_JOB,
    export_dispatch,
    export_part_write,
    export_parts_discard,
    export_parts_finish,
)
from evaluation.services.metrics_compute import METRICS_JOB
from evaluation.services.rater_models_store import RATER_MODELS_JOB, rater_models_compute
from evaluation.services.vote_import import VOTE_IMPORT_JOB, vote_import_run


@shared_task(name=METRICS_JOB)
def metrics_compute_job(job_id: int) -> dict:
    return job_run(
        job_id,
        lambda job, progress: metrics_compute(project=job.project, names=job.params.get("metrics"), progress=progress),
    )


# An export of a million judgments takes under a minute; the limits leave room for slower disks.
WRITING = {"acks_late": True, "soft_time_limit": 1800, "time_limit": 2000}


@shared_task(name=EXPORT_JOB, **WRITING)
def export_run_job(job_id: int) -> dict | None:
    """An export: written in this task (one part), or queued as parts whose last step finishes the job."""
    return export_dispatch(job_id=job_id)


class _ExportPartTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo):
        """The job fails at once; the chord's error callback removes the work directory again once every part
        has stopped."""
        export_parts_discard(job_id=args[0], exc=exc)


@shared_task(name=PART_JOB, base=_ExportPartTask, **WRITING)
def export_part_job(job_id: int, token: str, pieces: list[dict], share: float) -> list[dict]:
    """Some tables of an export (or pieces of one), written to its work directory."""
    return export_part_write(job_id=job_id, token=token, pieces=pieces, share=share)


@shared_task(name=FINISH_JOB, **WRITING)
def export_finish_job(written: list[list[dict]], job_id: int, token: str) -> dict:
    """An export's last step, once every part has written its tables: the card, the zip, the finished job."""
    return export_parts_finish(job_id=job_id, token=token, written=written)


@shared_task(name=DISCARD_JOB, acks_late=True)
def export_discard_job(job_id: int) -> None:
    """The chord's error callback: a part failed, the work directory goes."""
    export_parts_discard(job_id=job_id)


@shared_task(name=RATER_MODELS_JOB)
def rater_models_job(job_id: int) -> dict:
    def work(job, progress):
        result = rater_models_compute(project=job.project, seed=job.params.get("seed", 0), progress=progress)
        return {"computed_at": result.computed_at.isoformat(), "n_judgments": result.n_judgments}

    return job_run(job_id, work)


@shared_task(name="evaluation.adaptive_refresh_stale_job", ignore_result=True)
def adaptive_refresh_stale_job() -> int:
    """Recompute the allocation probabilities of adaptive pairwise projects with enough new judgments."""
    return adaptive_refresh_stale()


# Ten million votes take a few minutes on two busy cores; the limits leave room for slower disks.
@shared_task(name=VOTE_IMPORT_JOB, acks_late=True, soft_time_limit=3600, time_limit=3700)
def vote_import_job(job_id: int) -> dict:
    return job_run(job_id, lambda job, progress: vote_import_run(job=job, progress=progress))
