"""Creating projects with their criteria, and managing who belongs to them."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Criterion, Item, Membership, Project, RaterExclusion
from annotation.task_types import REGISTRY, TaskTypeError
from audit.services import audit_record

from .allocation import allocation_settings_update

# The settings a project.create entry states (the instructions are left out: they can be long).
PROJECT_SETTINGS = (
    "raters_per_item",
    "double_annotation_share",
    "gold_rate",
    "lease_seconds",
    "show_reference",
    "training_items",
    "training_pass_mark",
    "repeat_rate",
    "rankme_modulus",
    "randomise_output_order",
    "rating_unit",
)

# The bounds of a project's numeric settings, (low, high) both included: the API's serializer, the
# services and the lead console's forms all read them, so every entry point refuses the same values.
SETTING_LIMITS = {
    "raters_per_item": (1, 100),
    "double_annotation_share": (0.0, 1.0),
    "gold_rate": (0.0, 0.99),
    "lease_seconds": (30, 7 * 24 * 3600),
    "training_items": (0, 1000),
    "repeat_rate": (0.0, 0.99),
    "training_pass_mark": (0.0, 1.0),
}


def project_settings_check(**settings) -> None:
    """Raises ValidationError by field for a known numeric setting outside SETTING_LIMITS or an
    unknown task type."""
    errors = {}
    task_type = settings.get("task_type")
    if task_type is not None and task_type not in REGISTRY:
        errors["task_type"] = f"unknown task type {task_type!r}; choose one of {', '.join(REGISTRY)}"
    for field, (low, high) in SETTING_LIMITS.items():
        value = settings.get(field)
        if value is not None and not low <= value <= high:
            errors[field] = f"{field} must be between {low:g} and {high:g}, got {value:g}"
    rating_unit = settings.get("rating_unit")
    if rating_unit is not None:
        errors.update(_rating_unit_errors(task_type, rating_unit))
    if errors:
        raise ValidationError(errors)


def _rating_unit_errors(task_type: str | None, rating_unit: str) -> dict[str, str]:
    if rating_unit not in Project.RatingUnit.values:
        return {"rating_unit": f"unknown rating unit {rating_unit!r}; choose one of {', '.join(Project.RatingUnit)}"}
    if rating_unit != Project.RatingUnit.CONVERSATION and task_type in REGISTRY and not REGISTRY[task_type].rates_turns:
        turn_types = ", ".join(slug for slug, t in REGISTRY.items() if t.rates_turns)
        return {
            "rating_unit": f"a {task_type} project rates whole outputs only (rating_unit 'conversation'); "
            f"rating per turn takes a task type that rates turns: {turn_types}"
        }
    return {}


def criteria_normalise(*, task_type: str, criteria: list[dict]) -> list[dict]:
    """The criteria specs with their scales checked and normalised by the task type (name, scale_min,
    scale_max, labels, help_text); raises ValidationError on ``criteria`` naming the criterion."""
    if not criteria:
        raise ValidationError({"criteria": "a project needs at least one criterion"})
    most = REGISTRY[task_type].max_criteria
    if most is not None and len(criteria) > most:
        raise ValidationError(
            {
                "criteria": f"a {REGISTRY[task_type].label} project takes at most {most} "
                f"criterion{'' if most == 1 else 'a'}, got {len(criteria)}"
            }
        )
    seen, out = set(), []
    for row, spec in enumerate(criteria):
        name = spec.get("name")
        if name in seen:
            raise ValidationError({"criteria": criterion_error(f"criterion {name!r} is named twice", row, "name")})
        seen.add(name)
        try:
            low, high, labels = REGISTRY[task_type].normalise_scale(
                spec.get("scale_min"), spec.get("scale_max"), spec.get("labels")
            )
        except TaskTypeError as exc:
            raise ValidationError(
                {"criteria": criterion_error(f"criterion {name!r}: {exc}", row, _scale_field(str(exc)))}
            ) from exc
        out.append(
            {**spec, "scale_min": low, "scale_max": high, "labels": labels, "help_text": spec.get("help_text", "")}
        )
    return out


def task_config_normalise(*, task_type: str, task_config) -> dict:
    """The project's settings only its task type reads, checked and completed by it; ValidationError on
    ``task_config`` otherwise."""
    try:
        return REGISTRY[task_type].normalise_config(task_config)
    except TaskTypeError as exc:
        raise ValidationError({"task_config": str(exc)}) from exc


def criterion_error(message: str, row: int, field: str | None) -> ValidationError:
    """An error about the ``row``-th criterion given; ``params`` carry the row and field for forms
    that show it beside the field (the message reads the same without them)."""
    # Django formats a message with its params (``%``): a literal % in a criterion's name is doubled.
    return ValidationError(message.replace("%", "%%"), code="criterion", params={"row": row, "field": field})


def criterion_names_carry(*, project: Project, renames: dict[str, str]) -> int:
    """Carries what is keyed by a criterion's name (the gold answers of gold items and their copies, which
    training feedback reads too) from the old names to the new ones in ``renames``, in the caller's
    transaction; returns the items rewritten. Everything else refers to a criterion by its id."""
    renames = {old: new for old, new in renames.items() if old != new}
    if not renames:
        return 0
    items = list(Item.objects.select_for_update().filter(project=project, gold__isnull=False).only("id", "gold"))
    changed = []
    for item in items:
        if isinstance(item.gold, dict) and renames.keys() & item.gold.keys():
            # One pass over the old keys, so two criteria swapping names swap their gold too.
            item.gold = {renames.get(name, name): value for name, value in item.gold.items()}
            changed.append(item)
    Item.objects.bulk_update(changed, ["gold"], batch_size=1000)
    return len(changed)


def project_name_check(*, owner_id: int | None, name: str, project_id: int | None = None) -> None:
    """Raises ValidationError on ``name`` if its owner has another project of that name (names are unique
    per owner: the project_name_unique_per_owner constraint)."""
    if owner_id is None:
        return
    if Project.objects.filter(created_by_id=owner_id, name=name).exclude(pk=project_id).exists():
        raise ValidationError({"name": f"You already have a project named {name!r}; choose another name."})


def _scale_field(message: str) -> str:
    """The criterion field a task type's scale message is about."""
    for field in ("labels", "scale_min must", "scale_max must"):
        if message.startswith(field):
            return field.split()[0]
    return "scale_max"


@transaction.atomic
def project_create(
    *,
    created_by,
    name: str,
    task_type: str,
    criteria: list[dict],
    instructions: str = "",
    raters_per_item: int = 1,
    double_annotation_share: float = 0.0,
    gold_rate: float = 0.0,
    lease_seconds: int = 900,
    show_reference: bool = False,
    training_items: int = 0,
    repeat_rate: float = 0.0,
    training_pass_mark: float = 0.0,
    rankme_modulus: float | None = None,
    randomise_output_order: bool = True,
    rating_unit: str = Project.RatingUnit.CONVERSATION,
    status: str = Project.Status.LIVE,
    allocation: dict | None = None,
    task_config: dict | None = None,
) -> Project:
    """A project with its criteria; its creator becomes a lead. Raises ValidationError by field.

    ``allocation``: its quotas and design settings (annotation.services.allocation.SETTINGS).

    ``rankme_modulus`` (rankme only) turns on magnitude estimation against each item's reference.
    ``rating_unit`` "turn" or "both" (task types that rate turns): every output must then be a conversation, each
    of whose assistant turns is rated (annotation.services.item_import refuses other outputs).
    ``task_config``: settings only the task type reads (an error-span project's typology and weights), completed
    with the type's defaults.
    """
    settings = dict(
        task_type=task_type,
        raters_per_item=raters_per_item,
        double_annotation_share=double_annotation_share,
        gold_rate=gold_rate,
        lease_seconds=lease_seconds,
        training_items=training_items,
        repeat_rate=repeat_rate,
        training_pass_mark=training_pass_mark,
        rating_unit=rating_unit,
    )
    project_settings_check(**settings)
    project_name_check(owner_id=getattr(created_by, "pk", None), name=name)
    criteria = criteria_normalise(task_type=task_type, criteria=criteria)
    task_config = task_config_normalise(task_type=task_type, task_config=task_config)
    project = Project(
        name=name,
        instructions=instructions,
        show_reference=show_reference,
        task_config=task_config,
        rankme_modulus=rankme_modulus,
        randomise_output_order=randomise_output_order,
        status=status,
        created_by=created_by,
        **settings,
    )
    project.full_clean()
    project.save()
    for position, spec in enumerate(criteria):
        criterion = Criterion(
            project=project,
            name=spec["name"],
            position=position,
            scale_min=spec["scale_min"],
            scale_max=spec["scale_max"],
            labels=spec["labels"],
            help_text=spec["help_text"],
        )
        criterion.full_clean()
        criterion.save()
    if created_by is not None:
        Membership.objects.create(project=project, user=created_by, role=Membership.Role.LEAD)
    if allocation:
        project = allocation_settings_update(project=project, by=created_by, **allocation)
    audit_record(
        actor=created_by,
        action="project.create",
        project=project,
        target=project.name,
        detail={
            "task_type": task_type,
            "status": status,
            "criteria": [spec.get("name") for spec in criteria],
            **{name: getattr(project, name) for name in PROJECT_SETTINGS},
        },
    )
    return project


@transaction.atomic
def membership_set(*, project: Project, username: str, role: str, by=None) -> Membership:
    """Adds a user to the project, or changes the role of one already in it (``by``: who did, for the log)."""
    if role not in Membership.Role.values:
        raise ValidationError({"role": f"unknown role {role!r}; choose one of {', '.join(Membership.Role.values)}"})
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise ValidationError({"username": f"no active user named {username!r}"})
    before = (
        Membership.objects.select_for_update().filter(project=project, user=user).values_list("role", flat=True).first()
    )
    # An excluded rater who left the team comes back paused, as the exclusion left them.
    excluded = RaterExclusion.objects.filter(project=project, rater=user).exists()
    membership, created = Membership.objects.update_or_create(
        project=project, user=user, defaults={"role": role}, create_defaults={"role": role, "is_paused": excluded}
    )
    if created:
        audit_record(actor=by, action="member.add", project=project, target=username, detail={"role": role})
    elif before != role:
        audit_record(
            actor=by,
            action="member.role_change",
            project=project,
            target=username,
            detail={"changed": {"role": [before, role]}},
        )
    return membership
