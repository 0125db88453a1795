"""Round trip: an exported JSONL re-imports through the item and judgment imports into a new project
with every item and every judgment intact."""

import io
import json

import pytest

from agreement.models import AgreementSnapshot
from agreement.services import snapshot_compute_for_project
from annotation.models import Item, Judgment
from annotation.services import item_import, judgment_import, project_create
from annotation.services.judgment_import import JUDGMENT_FIELDS
from evaluation.selectors.export import rater_pseudonyms
from evaluation.services import ExportOptions, NotAnExport, export_reimport, export_write
from tests.evaluation.export.studies import jsonl, likert_study, pairwise_study, rankme_modulus_study, read_zip

pytestmark = pytest.mark.django_db


def judgment_table(project, names) -> list[tuple]:
    rows = Judgment.objects.filter(project=project, is_current=True).values_list(
        "item__external_id",
        "output__system",
        "criterion__name",
        "rater_id",
        "value",
        "label",
        "submitted_at",
        "shown_order",
        "duration_ms",
    )
    return sorted((i, s, c, names[r], v, lab, t, o, d) for i, s, c, r, v, lab, t, o, d in rows)


def item_table(project) -> list[tuple]:
    return sorted(
        (
            i.external_id,
            i.input,
            tuple(i.references),
            i.subgroup,
            json.dumps(i.meta, sort_keys=True),
            json.dumps(i.gold, sort_keys=True),
            tuple(i.outputs.order_by("position").values_list("system", "text")),
        )
        for i in Item.objects.filter(project=project).prefetch_related("outputs")
    )


@pytest.mark.parametrize("study", [likert_study, pairwise_study])
def test_exported_jsonl_reimports_with_every_judgment_intact(lead, tmp_path, study):
    # given an exported project
    original = study(lead)
    path = tmp_path / "export.zip"
    export_write(project=original, options=ExportOptions(formats=("jsonl",)), destination=path)
    files = read_zip(path)
    facts = json.loads(files["card.json"])

    # when its items.jsonl and the import fields of judgments.jsonl go through the platform's imports
    copy = project_create(created_by=lead, name="copy", task_type=original.task_type, criteria=facts["criteria"])
    item_import(project=copy, stream=io.BytesIO(files["data/items.jsonl"]))
    lines = [{k: row[k] for k in JUDGMENT_FIELDS} for row in jsonl(files["data/judgments.jsonl"])]
    assert set(list(jsonl(files["data/judgments.jsonl"])[0])[: len(JUDGMENT_FIELDS)]) == set(JUDGMENT_FIELDS)
    judgment_import(project=copy, stream=io.BytesIO("".join(json.dumps(x) + "\n" for x in lines).encode()))

    # then items and judgments are the same, raters under their pseudonyms
    assert item_table(copy) == item_table(original)
    originals = judgment_table(original, rater_pseudonyms(original, max_judgment_id=10**12))
    copies = judgment_table(copy, {m.user_id: m.external_name for m in copy.memberships.exclude(external_name="")})
    assert copies == originals
    assert len(copies) == Judgment.objects.filter(project=original, is_current=True).count()


def test_a_reimported_export_has_the_same_agreement(lead, tmp_path):
    original = pairwise_study(lead)
    path = tmp_path / "export.zip"
    export_write(project=original, options=ExportOptions(formats=("jsonl",)), destination=path)

    copy, counts = export_reimport(archive_path=path, created_by=lead, name="copy")
    snapshot_compute_for_project(project_id=copy.id)

    assert counts == {"items": 30, "judgments": 120}
    assert copy.task_type == "pairwise" and list(copy.criteria.values_list("name", flat=True)) == [
        "overall",
        "safety",
    ]

    def values(project):
        return sorted(
            AgreementSnapshot.objects.filter(project=project, scope="criterion").values_list(
                "criterion__name", "window", "week_start", "statistic", "value"
            )
        )

    assert values(copy) == values(original)


def test_a_reimported_export_keeps_the_rankme_modulus(lead, tmp_path):
    original = rankme_modulus_study(lead)
    path = tmp_path / "export.zip"
    export_write(project=original, options=ExportOptions(formats=("jsonl",)), destination=path)

    copy, counts = export_reimport(archive_path=path, created_by=lead, name="copy")

    assert copy.rankme_modulus == 100 and counts == {"items": 4, "judgments": 24}
    assert item_table(copy) == item_table(original)


def test_reimport_needs_the_jsonl_files_and_an_export(lead, tmp_path):
    project = pairwise_study(lead, n_items=3)
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("csv",)), destination=path)

    with pytest.raises(NotAnExport, match="jsonl"):
        export_reimport(archive_path=path, created_by=lead, name="reloaded")
    (tmp_path / "not.zip").write_bytes(b"hello")
    with pytest.raises(NotAnExport, match="zip"):
        export_reimport(archive_path=tmp_path / "not.zip", created_by=lead)
