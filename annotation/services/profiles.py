"""Rater profiles: the lead's form (consent text and fields, editable until the study starts) and each rater's
consent and answers, stored against their membership; a rater who has not consented is served nothing."""

import math
from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.models import ProfileField, Project, RaterProfile
from annotation.selectors.profiles import profile_study_started
from audit.services import audit_record
from core.outside_text import text_problem

from .assignment import rater_membership_check

MAX_FIELDS = 30
MAX_CHOICES = 100
MAX_TEXT = 200
MAX_CONSENT = 10_000
# Profile numbers are ages, years, counts: far beyond any of them, and exact as a float.
MAX_NUMBER = 1e9


@dataclass(frozen=True)
class ProfileFieldSpec:
    name: str
    kind: str
    choices: tuple[str, ...]
    required: bool
    sensitive: bool


def _text(value, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise ValidationError({what: f"must be text, got {value!r}"[:200]})
    problem = text_problem(value)
    if problem:
        raise ValidationError({what: problem})
    if len(value) > limit:
        raise ValidationError({what: f"at most {limit} characters"})
    return value


def profile_form_check(consent: str, fields) -> tuple[str, tuple[ProfileFieldSpec, ...]]:
    """The form as given, checked; raises ValidationError naming the field (``fields[2].choices``)."""
    consent = _text(consent, "consent", MAX_CONSENT).strip()
    if not isinstance(fields, list) or len(fields) > MAX_FIELDS:
        raise ValidationError({"fields": f"must be a list of at most {MAX_FIELDS} fields"})
    if fields and not consent:
        raise ValidationError({"consent": "a profile form needs the consent text raters agree to"})
    specs, names = [], set()
    for i, field in enumerate(fields):
        where = f"fields[{i}]"
        if not isinstance(field, dict):
            raise ValidationError({where: "must be an object {name, kind, choices?, required?, sensitive?}"})
        unknown = sorted(set(field) - {"name", "kind", "choices", "required", "sensitive"})
        if unknown:
            raise ValidationError({where: f"unknown key {', '.join(map(repr, unknown))}"})
        name = _text(field.get("name"), f"{where}.name", 100).strip()
        if not name or name in names:
            raise ValidationError({f"{where}.name": "must be non-empty and unique"})
        names.add(name)
        kind = field.get("kind")
        if kind not in ProfileField.Kind.values:
            raise ValidationError({f"{where}.kind": f"one of {', '.join(ProfileField.Kind.values)}, got {kind!r}"})
        choices = field.get("choices", [])
        if not isinstance(choices, list) or len(choices) > MAX_CHOICES:
            raise ValidationError({f"{where}.choices": f"a list of at most {MAX_CHOICES} answers"})
        choices = tuple(_text(c, f"{where}.choices", MAX_TEXT).strip() for c in choices)
        if kind == ProfileField.Kind.CHOICE and (
            len(choices) < 2 or len(set(choices)) != len(choices) or not all(choices)
        ):
            raise ValidationError({f"{where}.choices": "a choice field needs two or more distinct answers"})
        if kind != ProfileField.Kind.CHOICE and choices:
            raise ValidationError({f"{where}.choices": f"only a choice field takes choices, this one is {kind}"})
        flags = []
        for flag in ("required", "sensitive"):
            value = field.get(flag, False)
            if not isinstance(value, bool):
                raise ValidationError({f"{where}.{flag}": f"true or false, got {value!r}"})
            flags.append(value)
        specs.append(ProfileFieldSpec(name, kind, choices, *flags))
    return consent, tuple(specs)


@transaction.atomic
def profile_form_set(*, project: Project, consent: str, fields: tuple[ProfileFieldSpec, ...], by=None) -> None:
    """Replaces the project's profile form; refused (ValidationError) once the study has started."""
    Project.objects.select_for_update().filter(pk=project.pk).first()
    if profile_study_started(project):
        raise ValidationError(
            {
                "fields": "the study has started (raters answered the form or judged): the "
                "profile form can no longer change"
            }
        )
    ProfileField.objects.filter(project=project).delete()
    ProfileField.objects.bulk_create(
        [
            ProfileField(
                project=project,
                name=f.name,
                position=k,
                kind=f.kind,
                choices=list(f.choices),
                required=f.required,
                sensitive=f.sensitive,
            )
            for k, f in enumerate(fields)
        ]
    )
    project.profile_consent = consent if fields else ""
    project.save(update_fields=["profile_consent"])
    audit_record(
        actor=by,
        action="profile.form",
        project=project,
        detail={"fields": [f.name for f in fields], "sensitive": [f.name for f in fields if f.sensitive]},
    )


def _answer(field: ProfileField, value):
    what = f"answers.{field.name}"
    if field.kind == ProfileField.Kind.NUMBER:
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise ValidationError({what: f"must be a number, got {value[:40]!r}"}) from None
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or abs(value) > MAX_NUMBER  # before isfinite, which overflows on a huge int
            or not math.isfinite(value)
        ):
            raise ValidationError({what: f"must be a finite number within ±{MAX_NUMBER:g}"})
        return float(value)
    value = _text(value, what, MAX_TEXT).strip()
    if field.kind == ProfileField.Kind.CHOICE and value not in field.choices:
        raise ValidationError({what: f"choose one of {', '.join(field.choices)}"})
    return value


def profile_answers_check(fields: list[ProfileField], answers) -> dict:
    """The answers checked against the form: known fields only, required ones present; empty ones left out."""
    if not isinstance(answers, dict):
        raise ValidationError({"answers": "must be an object keyed by field name"})
    by_name = {f.name: f for f in fields}
    unknown = sorted(set(answers) - set(by_name))
    if unknown:
        raise ValidationError({"answers": f"unknown field {', '.join(map(repr, unknown))}"[:300]})
    out, errors = {}, {}
    for field in fields:
        value = answers.get(field.name)
        if value is None or value == "":
            if field.required:
                errors[f"answers.{field.name}"] = ["required"]
            continue
        try:
            out[field.name] = _answer(field, value)
        except ValidationError as exc:
            errors.update(exc.message_dict)
    if errors:
        raise ValidationError(errors)
    return out


@transaction.atomic
def profile_answer(*, project_id: int, rater, consent, answers, now: datetime | None = None) -> RaterProfile:
    """Stores the rater's consent and answers (nothing but the consent when they decline); answering again
    replaces them. Raises RaterRefused (as the rater loop does) or ValidationError naming the field."""
    # The locked read takes the project row's shared lock first (the lock order of annotation.services.assignment),
    # which profile_form_set's exclusive lock waits for or holds: the fields read below stay the form's until commit.
    membership = rater_membership_check(project_id=project_id, rater=rater, lock=True)
    fields = list(ProfileField.objects.filter(project_id=project_id))
    if not fields:
        raise ValidationError({"answers": "this project asks no profile"})
    if not isinstance(consent, bool):
        raise ValidationError({"consent": f"true or false, got {consent!r}"[:200]})
    checked = profile_answers_check(fields, answers) if consent else {}
    profile, _ = RaterProfile.objects.update_or_create(
        membership=membership, defaults={"consented": consent, "answers": checked, "answered_at": now or timezone.now()}
    )
    return profile
