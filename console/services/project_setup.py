"""Editing a project's set-up from the lead console's settings page (the wizard creates its draft with
annotation's project_create).

Both go through annotation's project rules (SETTING_LIMITS, criteria_normalise, the task type's scale
checks), so the API and the console accept and refuse the same projects.
"""

import math
import uuid

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Criterion, Output, Project
from annotation.services.item_import import item_targets_replan
from annotation.services.project import (
    criteria_normalise,
    criterion_error,
    criterion_names_carry,
    project_name_check,
    project_settings_check,
)
from audit.services import audit_record
from console.selectors import project_has_started

# The settings the console edits (the API's training_items and repeat_rate are left as they are).
SETTINGS = (
    "name",
    "task_type",
    "instructions",
    "raters_per_item",
    "double_annotation_share",
    "gold_rate",
    "lease_seconds",
    "show_reference",
    "randomise_output_order",
    "rankme_modulus",
    "rating_unit",
)
# Settings fixed once raters have started: judgments on the old terms would mix with new ones.
FIXED_ONCE_STARTED = {
    "task_type": "The task type cannot change once the project has judgments.",
    "raters_per_item": "Raters per item cannot change once raters have started (items keep the targets "
    "they were given); clone the project for a new round.",
    "rankme_modulus": "The RankME modulus cannot change once raters have started: their scores are relative to "
    "it; clone the project for a new round.",
    "double_annotation_share": "The double-annotated share cannot change once raters have started; clone the "
    "project for a new round.",
    "rating_unit": "What each criterion rates cannot change once raters have started; clone the project for a "
    "new round.",
}


@transaction.atomic
def project_settings_update(*, project: Project, actor, settings: dict, criteria: list[dict]) -> Project:
    """Applies the console's settings and criteria to ``project``; raises ValidationError by field.

    ``criteria`` are in display order; a spec with an ``id`` edits that criterion, one without adds a
    criterion, and a criterion left out is removed. Once the project has started, the task type, the item
    targets and the criteria's scales are fixed, and no criterion is added or removed.
    """
    project = Project.objects.select_for_update().get(pk=project.pk)
    changes = {k: settings[k] for k in SETTINGS if k in settings and not _same(settings[k], getattr(project, k))}
    task_type = changes.get("task_type", project.task_type)
    project_settings_check(**{k: settings[k] for k in SETTINGS if k in settings})
    specs = criteria_normalise(task_type=task_type, criteria=criteria)
    existing = {c.pk: c for c in project.criteria.all()}
    unknown = [s["id"] for s in specs if s.get("id") and s["id"] not in existing]
    if unknown:
        raise ValidationError({"criteria": f"criterion id {unknown[0]} is not one of this project's"})
    kept = {s["id"] for s in specs if s.get("id")}
    removed = [c for pk, c in existing.items() if pk not in kept]
    if project_has_started(project):
        _check_fixed(changes, specs, existing, removed)
    if changes.get("rankme_modulus") is not None and project.items.filter(references=[]).exists():
        raise ValidationError(
            {
                "rankme_modulus": "Some items have no reference to score against; a modulus "
                "needs one on every item (re-import them with references)."
            }
        )

    if changes.get("rating_unit", Project.RatingUnit.CONVERSATION) != Project.RatingUnit.CONVERSATION and (
        Output.objects.filter(item__project=project, turns__isnull=True).exists()
    ):
        raise ValidationError(
            {
                "rating_unit": "Some outputs are plain text: rating per turn needs every output to be a conversation "
                "with an assistant turn (import them with turns)."
            }
        )
    if "name" in changes:
        project_name_check(owner_id=project.created_by_id, name=changes["name"], project_id=project.pk)
    for field, value in changes.items():
        setattr(project, field, value)
    project.full_clean(exclude=["created_by"])  # projects made by the API's staff or a command may have none
    project.save()
    criteria_log = _criteria_apply(project, specs, existing, removed)
    if {"raters_per_item", "double_annotation_share"} & set(changes):
        item_targets_replan(project=project)
    if changes or any(criteria_log.values()):
        audit_record(
            actor=actor,
            action="project.update",
            project=project,
            target=project.name,
            detail={
                "changed": {k: v for k, v in changes.items() if k != "instructions"}
                | ({"instructions": "edited"} if "instructions" in changes else {}),
                "criteria": criteria_log,
            },
        )
    return project


def _same(new, old) -> bool:
    """Shares come back from the page through percent: 1/3 is 33.3333 % there, and that is no change."""
    if isinstance(old, float) and isinstance(new, int | float):
        return math.isclose(new, old, rel_tol=0, abs_tol=1e-6)
    return new == old


def _check_fixed(changes: dict, specs: list[dict], existing: dict, removed: list) -> None:
    errors = {field: message for field, message in FIXED_ONCE_STARTED.items() if field in changes}
    criteria_errors = [
        criterion_error(f"criterion {c.name!r} cannot be removed once the project has judgments", None, None)
        for c in removed
    ]
    for row, spec in enumerate(specs):
        if not spec.get("id"):
            criteria_errors.append(
                criterion_error(
                    f"criterion {spec['name']!r} cannot be added once the project has judgments; clone the project "
                    "for a new round",
                    row,
                    "name",
                )
            )
            continue
        old = existing[spec["id"]]
        if (old.scale_min, old.scale_max) != (spec["scale_min"], spec["scale_max"]):
            criteria_errors.append(
                criterion_error(
                    f"criterion {spec['name']!r}: its scale cannot change once the project has judgments "
                    "(they were given on the old scale); clone the project for a new round",
                    row,
                    "scale_max",
                )
            )
    if criteria_errors:
        errors["criteria"] = criteria_errors
    if errors:
        raise ValidationError(errors)


def _criteria_apply(project: Project, specs: list[dict], existing: dict, removed: list) -> dict:
    """Writes the criteria; returns the names added, removed, edited and renamed (old: new), for the audit
    log."""
    Criterion.objects.filter(pk__in=[c.pk for c in removed]).delete()
    # Names are unique in a project: park the kept ones on temporary names first, so a swap of two
    # names does not collide halfway.
    parking = uuid.uuid4().hex
    for pk in (s["id"] for s in specs if s.get("id")):
        Criterion.objects.filter(pk=pk).update(name=f"{parking}-{pk}")
    log = {"added": [], "removed": [c.name for c in removed], "edited": [], "renamed": {}}
    for position, spec in enumerate(specs):
        old = existing.get(spec.get("id"))
        criterion = old or Criterion(project=project)
        values = dict(
            name=spec["name"],
            position=position,
            scale_min=spec["scale_min"],
            scale_max=spec["scale_max"],
            labels=spec["labels"],
            help_text=spec["help_text"],
        )
        if old is None:
            log["added"].append(spec["name"])
        elif any(getattr(old, k) != v for k, v in values.items() if k != "position"):
            log["edited"].append(spec["name"])
        if old is not None and old.name != spec["name"]:
            log["renamed"][old.name] = spec["name"]
        for field, value in values.items():
            setattr(criterion, field, value)
        criterion.full_clean()
        criterion.save()
    # Gold is keyed by name: it moves with the rename in this transaction, or every gold check and
    # training feedback on the criterion would silently stop.
    criterion_names_carry(project=project, renames=log["renamed"])
    return log
