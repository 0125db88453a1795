"""A default export names no rater: no username, email or imported rater id in any file."""

import io
import json

import pyarrow.parquet as pq
import pytest
from django.contrib.auth import get_user_model

from annotation.models import Judgment, Membership
from evaluation.services import ExportOptions, export_write
from tests.annotation.factories import UserFactory
from tests.evaluation.export.studies import ACCOUNT, likert_study, read_zip

pytestmark = pytest.mark.django_db


def test_a_default_export_holds_no_username_email_or_imported_rater_id(db, tmp_path):
    lead = UserFactory(username="dr.lead.9731", email="lead.9731@example.org")
    project = likert_study(lead)
    raters = get_user_model().objects.filter(id__in=Judgment.objects.filter(project=project).values("rater_id"))
    secrets = {u.username for u in raters} | {u.email for u in raters if u.email}
    secrets |= set(
        Membership.objects.filter(project=project).exclude(external_name="").values_list("external_name", flat=True)
    )
    secrets |= {lead.username, lead.email, ACCOUNT["username"], ACCOUNT["email"], "imported-"}
    assert len(secrets) >= 8

    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(split="subgroup"), destination=path)
    files = read_zip(path)

    texts = {}
    for name, data in files.items():
        if name.endswith(".parquet"):
            texts[name] = json.dumps(pq.read_table(io.BytesIO(data)).to_pylist(), default=str)
        elif not name.endswith(".png"):
            texts[name] = data.decode()
    for name, text in texts.items():
        for secret in secrets:
            assert secret not in text, f"{secret!r} in {name}"
    raters_seen = {row["rater"] for row in json.loads(texts["data/raters.parquet"])}
    assert raters_seen == {"rater-001", "rater-002", "rater-003", "rater-004"}
