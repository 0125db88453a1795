"""card.json is the card's facts as ``evaluation.export.card_facts`` declares them: every object's keys are its
dataclass's fields in declared order, at every level, also with soft labels and a profile form (sections the
golden exports lack), and those sections are left out, not null, when the export has none."""

import json
import types
from dataclasses import fields, is_dataclass
from typing import Union, get_args, get_origin, get_type_hints

import pytest

from agreement.services import snapshot_compute_for_project
from annotation.models import Membership, ProfileField, RaterProfile
from evaluation.export.card_facts import OPTIONAL_SECTIONS, CardFacts
from evaluation.services import ExportOptions, export_write
from tests.evaluation.export.studies import likert_study, pairwise_study, read_zip

pytestmark = pytest.mark.django_db


def undeclared(value, kind, where: str = "card.json") -> list[str]:
    """Where ``value`` (parsed JSON) is not laid out as the type ``kind`` declares."""
    if is_dataclass(kind):
        names = [f.name for f in fields(kind) if not (kind is CardFacts and f.name in OPTIONAL_SECTIONS)]
        names += [name for name in OPTIONAL_SECTIONS if kind is CardFacts and name in value]
        if list(value) != names:
            return [f"{where}: keys {list(value)}, declared {names}"]
        hints = get_type_hints(kind)
        return [problem for name in names for problem in undeclared(value[name], hints[name], f"{where}.{name}")]
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, types.UnionType):
        if value is None:
            return [] if type(None) in args else [f"{where}: null"]
        laid_out = [undeclared(value, option, where) for option in args if option is not type(None)]
        return [] if any(not problems for problems in laid_out) else [f"{where}: none of {args}"]
    if origin is tuple:
        return [problem for k, item in enumerate(value) for problem in undeclared(item, args[0], f"{where}[{k}]")]
    if origin is dict:
        return [problem for key, item in value.items() for problem in undeclared(item, args[1], f"{where}.{key}")]
    return []


def with_profile_form(project):
    project.profile_consent = "I agree."
    project.save(update_fields=["profile_consent"])
    ProfileField.objects.create(project=project, name="native language", kind="choice", choices=["en", "de"])
    for membership in Membership.objects.filter(project=project, role=Membership.Role.RATER):
        RaterProfile.objects.create(
            membership=membership, consented=True, answered_at="2024-03-01T10:00:00Z", answers={"native language": "en"}
        )
    return project


def card_json(project, tmp_path, **options) -> dict:
    snapshot_compute_for_project(project_id=project.id)
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",), **options), destination=path)
    return json.loads(read_zip(path)["card.json"])


@pytest.mark.parametrize("study", [likert_study, pairwise_study])
def test_with_soft_labels_and_profiles_every_key_is_a_declared_field_in_order(lead, tmp_path, study):
    card = card_json(with_profile_form(study(lead)), tmp_path, soft_labels=True)

    assert undeclared(card, CardFacts) == []
    assert list(card)[-3:] == ["chart", "soft_labels", "rater_profiles"]
    assert card["soft_labels"]["files"] and card["rater_profiles"]["n_raters"] > 0


def test_without_them_the_sections_are_left_out(lead, tmp_path):
    card = card_json(likert_study(lead), tmp_path)

    assert undeclared(card, CardFacts) == []
    assert list(card)[-1] == "chart" and not set(OPTIONAL_SECTIONS) & set(card)
