"""Cloning a project for a new round: its settings, criteria, instructions and quality-control rules,
and optionally its items with their outputs, gold and subgroups (never judgments or assignments)."""

from django.db import transaction

from annotation.models import Item, Output, Project, ProposedSpan, QcRules
from annotation.services import project_create
from audit.services import audit_record

COPIED = (
    "task_type",
    "instructions",
    "raters_per_item",
    "double_annotation_share",
    "gold_rate",
    "lease_seconds",
    "show_reference",
    "repeat_rate",
    "training_items",
    "training_pass_mark",
    "randomise_output_order",
    "rankme_modulus",
    "task_config",
)
QC_COPIED = (
    "min_gold_answered",
    "gold_accuracy_threshold",
    "action",
    "min_seconds_per_judgment",
    "straight_line_run",
    "min_degraded_answered",
    "degraded_p_threshold",
)
BATCH = 1000


@transaction.atomic
def project_clone(*, project: Project, actor, name: str, with_items: bool = False) -> Project:
    """A draft copy of ``project`` named ``name``, ``actor`` its lead; raises ValidationError by field.

    The clone is created by project_create, as a new project is: settings and criteria that today's rules
    refuse are refused here too. Items are copied without their quality-control copies (degraded and
    repeat items: make them anew in the clone) and start unjudged.
    """
    criteria = [
        {
            "name": c.name,
            "scale_min": c.scale_min,
            "scale_max": c.scale_max,
            "labels": c.labels,
            "help_text": c.help_text,
        }
        for c in project.criteria.all()
    ]
    clone = project_create(
        created_by=actor,
        name=name,
        criteria=criteria,
        status=Project.Status.DRAFT,
        **{field: getattr(project, field) for field in COPIED},
    )
    rules = QcRules.objects.filter(project=project).order_by("-version").first()
    if rules is not None:
        QcRules.objects.create(
            project=clone, version=1, created_by=actor, **{field: getattr(rules, field) for field in QC_COPIED}
        )
    n_items = _items_copy(project, clone) if with_items else 0
    audit_record(
        actor=actor,
        action="project.clone",
        project=clone,
        target=project.name,
        detail={"source_project": project.pk, "with_items": with_items, "n_items": n_items},
    )
    return clone


def _items_copy(source: Project, clone: Project) -> int:
    items = (
        Item.objects.filter(project=source, degraded_from__isnull=True, repeat_of__isnull=True)
        .order_by("id")
        .only("id", "external_id", "input", "turns", "references", "subgroup", "meta", "gold", "n_target")
    )
    n, last = 0, 0
    while batch := list(items.filter(id__gt=last)[:BATCH]):
        last = batch[-1].pk
        copies = Item.objects.bulk_create(
            Item(
                project=clone,
                external_id=i.external_id,
                input=i.input,
                turns=i.turns,
                references=i.references,
                subgroup=i.subgroup,
                meta=i.meta,
                gold=i.gold,
                n_target=i.n_target,
            )
            for i in batch
        )
        new_id = {old.pk: new.pk for old, new in zip(batch, copies, strict=True)}
        originals = list(Output.objects.filter(item_id__in=new_id).order_by("item_id", "position"))
        outputs = Output.objects.bulk_create(
            Output(item_id=new_id[o.item_id], position=o.position, system=o.system, text=o.text, turns=o.turns)
            for o in originals
        )
        new_output = {old.pk: new.pk for old, new in zip(originals, outputs, strict=True)}
        ProposedSpan.objects.bulk_create(  # a model's proposed error spans, for the clone's raters to review too
            ProposedSpan(
                output_id=new_output[p.output_id],
                side=p.side,
                start=p.start,
                end=p.end,
                severity=p.severity,
                category=p.category,
            )
            for p in ProposedSpan.objects.filter(output_id__in=new_output)
        )
        n += len(batch)
    return n
