"""Automatic metrics computed by the platform from the outputs' texts and their items' references."""

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.models import Output, Project
from audit.services import audit_record
from core.bulk_insert import insert_rows
from core.job_queue import queued_job
from core.services.job import job_start
from evaluation.metrics import REGISTRY, MetricResources, compute_metrics, metric_spec
from evaluation.models import MetricInput, MetricScore

from .metric_inputs import metric_input_files

# Outputs scored per round: long summaries make ROUGE and the embedding model the slow part.
METRICS_JOB = "evaluation.metrics_compute"
BATCH_SIZE = 500
DEFAULT_METRICS = (
    "rouge1",
    "rouge2",
    "rougeL",
    "rouge155_1_f_stem",
    "rouge155_2_f_stem",
    "rouge155_L_f_stem",
    "rouge155_SU4_f_stem",
    "bleu",
    "chrf",
    "meteor",
    "length",
    "length_ratio",
    "distinct1",
    "distinct2",
    "entropy1",
    "entropy2",
)


@dataclass(frozen=True)
class MetricAvailability:
    name: str
    description: str
    needs: tuple[str, ...]
    unavailable: str | None  # why it cannot be computed on this installation, or None


def metric_resources(project: Project | None = None) -> MetricResources:
    """What the metrics read: the installation's WordNet and language model, the project's uploads."""
    files = metric_input_files(project) if project is not None else {}
    return MetricResources(
        nltk_data=settings.NLTK_DATA_DIR,
        training_corpus=files.get(MetricInput.Kind.TRAINING_CORPUS),
        word_vectors=files.get(MetricInput.Kind.WORD_VECTORS),
        causal_lm=settings.CONCORD_CAUSAL_LM,
    )


def metric_catalogue(project: Project | None = None) -> list[MetricAvailability]:
    """Every named metric with its definition, the inputs it needs, and whether this installation
    (and the project's uploads) can compute it (parameterised ROUGE-1.5.5 names are available like
    the named ones)."""
    resources = metric_resources(project)
    return [
        MetricAvailability(spec.name, spec.description, spec.needs, spec.unavailable(resources))
        for spec in REGISTRY.values()
    ]


def metric_names_check(names, project: Project | None = None) -> list[str]:
    """The metric names, each known or a parameterised ROUGE-1.5.5 name (ValueError names the
    first unknown one and lists the known ones). Without names, the defaults this installation can
    compute: a default that needs what is not installed (METEOR without WordNet) is left out rather
    than failing the whole run; asked for by name, it fails with its reason."""
    if not names:
        resources = metric_resources(project)
        return [name for name in DEFAULT_METRICS if metric_spec(name).unavailable(resources) is None]
    names = list(names)
    for name in names:
        metric_spec(name)
    return names


def metrics_compute(
    *, project: Project, names=None, progress: Callable[[int, int], None] | None = None, by=None
) -> dict:
    """Score every output of the project with each metric (replacing earlier scores of those names);
    returns ``{"metrics": names, "outputs": n}``. Gold items are scored too: they are left out of
    results later, not here. A run for ``by`` (a command) is recorded in the audit log; a job's run
    was recorded when it was started."""
    names = metric_names_check(names, project)
    resources = metric_resources(project)
    rows = list(
        Output.objects.filter(item__project=project)
        .order_by("id")
        .values_list("id", "text", "item__references", "item__input", "system")
    )
    total = len(rows)
    whole = [n for n in names if metric_spec(n).unbatched]
    batched = [n for n in names if n not in whole]
    # progress counts output-metric scores; the whole-set metrics come first, in one round
    steps = max(total * len(names), 1)
    scored: list[tuple[int, str, float]] = []
    rounds = [(rows, whole)] if whole else []
    if batched:
        rounds += [(rows[start : start + BATCH_SIZE], batched) for start in range(0, total, BATCH_SIZE)]
    for block, chosen in rounds:
        scores = compute_metrics(
            [r[1] for r in block],
            [r[2] or [] for r in block],
            chosen,
            resources,
            inputs=[r[3] for r in block],
            systems=[r[4] for r in block],
        )
        scored.extend((r[0], name, scores[name][k]) for k, r in enumerate(block) for name in chosen)
        if progress:
            progress(min(len(scored), steps), steps)
    now = timezone.now()
    with transaction.atomic():
        MetricScore.objects.filter(project=project, name__in=names).delete()
        insert_rows(
            MetricScore,
            ["project", "output", "name", "value", "source", "updated_at"],
            [
                (
                    project.id,
                    oid,
                    name,
                    None if value != value else float(value),
                    MetricScore.Source.COMPUTED,
                    now,
                )
                for oid, name, value in scored
            ],
        )
        if by is not None:
            audit_record(
                actor=by, action="metrics.compute", project=project, detail={"metrics": names, "outputs": total}
            )
    return {"metrics": names, "outputs": total}


@transaction.atomic
def metrics_compute_start(*, project: Project, names=None, created_by=None):
    """Start the metrics job (the Celery task runs ``metrics_compute``); returns the Job row."""
    names = metric_names_check(names, project)
    job = job_start(
        kind="metrics_compute",
        task=queued_job(METRICS_JOB),
        project=project,
        created_by=created_by,
        params={"metrics": names},
    )
    audit_record(
        actor=created_by,
        action="metrics.compute",
        project=project,
        target=f"job {job.id}",
        detail={"job_id": job.id, "metrics": names},
    )
    return job
