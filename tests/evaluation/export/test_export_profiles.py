"""Rater profiles in the export: sensitive fields stay out of a default export and are in one that asks for
them; the card says which fields were collected and which were left out."""

import json

import pytest

from annotation.models import Membership, ProfileField, RaterProfile
from evaluation.services import ExportOptions, ExportOptionsError, export_write
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.evaluation.export.studies import jsonl, read_zip

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    project = ProjectFactory(profile_consent="I agree.")
    ProfileField.objects.create(project=project, name="native language", kind="choice", choices=["en", "de"])
    ProfileField.objects.create(
        project=project, name="age band", kind="choice", choices=["18-30", "31+"], position=1, sensitive=True
    )
    item = ItemFactory(project=project)
    for name, language, age in (("ann", "en", "18-30"), ("bob", "de", "31+")):
        user = UserFactory(username=name)
        membership = MembershipFactory(project=project, user=user, role=Membership.Role.RATER)
        RaterProfile.objects.create(
            membership=membership,
            consented=True,
            answered_at="2024-03-01T10:00:00Z",
            answers={"native language": language, "age band": age},
        )
        JudgmentFactory(item=item, rater=user)
    return project


def _export(project, tmp_path, **options):
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",), **options), destination=path)
    return read_zip(path)


def test_a_default_export_leaves_the_sensitive_field_out_and_says_so(project, tmp_path):
    files = _export(project, tmp_path)

    rows = jsonl(files["data/rater_profiles.jsonl"])
    assert rows == [{"rater": "rater-001", "native language": "en"}, {"rater": "rater-002", "native language": "de"}]
    text = "".join(data.decode() for name, data in files.items() if not name.endswith(".png"))
    assert "31+" not in text and "18-30" not in text and "ann" not in json.dumps(rows)
    readme = files["README.md"].decode()
    assert "## Rater profiles" in readme
    assert "Left out of this export (sensitive): age band." in readme
    assert "| native language | choice | no | yes |" in readme and "| age band | choice | yes | no |" in readme


def test_the_lead_asks_for_the_sensitive_field_in_one_export(project, tmp_path):
    files = _export(project, tmp_path, include_sensitive_profile=True)

    rows = jsonl(files["data/rater_profiles.jsonl"])
    assert [r["age band"] for r in rows] == ["18-30", "31+"]
    assert "Every field collected is in this export." in files["README.md"].decode()


def test_the_option_must_be_true_or_false(project, tmp_path):
    with pytest.raises(ExportOptionsError):
        ExportOptions(include_sensitive_profile="yes").checked()
