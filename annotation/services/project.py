"""Creating projects with their criteria, and managing who belongs to them."""
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Criterion, Membership, Project
from annotation.task_types import REGISTRY, TaskTypeError
from audit.services import audit_record

# The settings a project.create entry states (the instructions are left out: they can be long).
PROJECT_SETTINGS = ("raters_per_item", "double_annotation_share", "gold_rate", "lease_seconds", "show_reference",
                    "training_items", "repeat_rate")


@transaction.atomic
def project_create(*, created_by, name: str, task_type: str, criteria: list[dict], instructions: str = "",
                   raters_per_item: int = 1, double_annotation_share: float = 0.0, gold_rate: float = 0.0,
                   lease_seconds: int = 900, show_reference: bool = False, training_items: int = 0,
                   repeat_rate: float = 0.0, rankme_modulus: float | None = None) -> Project:
    """A project with its criteria; its creator becomes a lead. Raises ValidationError by field.

    ``rankme_modulus`` (rankme only) turns on magnitude estimation against each item's reference.
    """
    if task_type not in REGISTRY:
        raise ValidationError({"task_type": f"unknown task type {task_type!r}; choose one of {', '.join(REGISTRY)}"})
    if not criteria:
        raise ValidationError({"criteria": "a project needs at least one criterion"})
    project = Project(name=name, task_type=task_type, instructions=instructions, raters_per_item=raters_per_item,
                      double_annotation_share=double_annotation_share, gold_rate=gold_rate,
                      lease_seconds=lease_seconds, show_reference=show_reference, training_items=training_items,
                      repeat_rate=repeat_rate, rankme_modulus=rankme_modulus, created_by=created_by)
    project.full_clean()
    project.save()
    seen = set()
    for position, spec in enumerate(criteria):
        name_ = spec.get("name")
        if name_ in seen:
            raise ValidationError({"criteria": f"criterion {name_!r} is named twice"})
        seen.add(name_)
        try:
            low, high, labels = REGISTRY[task_type].normalise_scale(
                spec.get("scale_min"), spec.get("scale_max"), spec.get("labels"))
        except TaskTypeError as exc:
            raise ValidationError({"criteria": f"criterion {name_!r}: {exc}"}) from exc
        criterion = Criterion(project=project, name=name_, position=position, scale_min=low, scale_max=high,
                              labels=labels, help_text=spec.get("help_text", ""))
        criterion.full_clean()
        criterion.save()
    if created_by is not None:
        Membership.objects.create(project=project, user=created_by, role=Membership.Role.LEAD)
    audit_record(actor=created_by, action="project.create", project=project, target=project.name, detail={
        "task_type": task_type, "criteria": [spec.get("name") for spec in criteria],
        **{name: getattr(project, name) for name in PROJECT_SETTINGS}})
    return project


@transaction.atomic
def membership_set(*, project: Project, username: str, role: str, by=None) -> Membership:
    """Adds a user to the project, or changes the role of one already in it (``by``: who did, for the log)."""
    if role not in Membership.Role.values:
        raise ValidationError({"role": f"unknown role {role!r}; choose one of {', '.join(Membership.Role.values)}"})
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise ValidationError({"username": f"no active user named {username!r}"})
    before = Membership.objects.select_for_update().filter(project=project, user=user).values_list(
        "role", flat=True).first()
    membership, created = Membership.objects.update_or_create(project=project, user=user, defaults={"role": role})
    if created:
        audit_record(actor=by, action="member.add", project=project, target=username, detail={"role": role})
    elif before != role:
        audit_record(actor=by, action="member.role_change", project=project, target=username,
                     detail={"changed": {"role": [before, role]}})
    return membership


@transaction.atomic
def user_create(*, username: str, password: str, is_staff: bool = False, by=None):
    """A login account; the password must pass the configured validators."""
    User = get_user_model()
    if User.objects.filter(username=username).exists():
        raise ValidationError({"username": f"a user named {username!r} exists already"})
    user = User(username=username, is_staff=is_staff)
    user.full_clean(exclude=["password"])
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from exc
    user.set_password(password)
    user.save()
    audit_record(actor=by, action="user.create", target=username, detail={"is_staff": is_staff})
    return user
