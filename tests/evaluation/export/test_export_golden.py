"""Golden test on a real public dataset: PandaLM's human-annotated pairwise test set (WeOpenML/PandaLM,
Apache-2.0; 999 pairs × 3 annotators, ../shared/datasets/pandalm_pairwise) imported through the
platform's imports, its agreement computed, then exported. The README.md data card and the HEDS
datasheet must equal the files checked in under tests/evaluation/golden/ byte for byte; a change to
them is a change to what users receive, so it is made on purpose:

    CONCORD_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/evaluation/export/test_export_golden.py

PandaLM publishes no timestamps: item idx's three judgments are dated to one of four consecutive weeks
in idx order (from Monday 2023-05-01), so the card has a weekly trend. The project gets a fixed id
because the agreement bootstrap is seeded by it.
"""

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agreement.services import snapshot_compute_for_project
from annotation.models import Membership
from annotation.services import item_import, judgment_import
from evaluation.services import ExportOptions, export_write
from tests.agreement.pandalm import pandalm_item_lines, pandalm_judgment_lines, pandalm_rows
from tests.annotation.factories import ProjectFactory
from tests.evaluation.export.studies import jsonl, lines, read_zip

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
PROJECT_ID = 880_008
START = datetime(2023, 5, 1, 9, 0, tzinfo=UTC)


def load_pandalm(datasets: Path, lead):
    rows = pandalm_rows(datasets)
    project = ProjectFactory(
        id=PROJECT_ID,
        name="PandaLM human-annotated test set",
        task_type="pairwise",
        criteria=["overall"],
        instructions="Which response follows the instruction better? Choose a tie when neither is better.",
        raters_per_item=3,
        double_annotation_share=1.0,
    )
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    item_import(project=project, stream=lines(pandalm_item_lines(rows)))
    dated = lambda r: (START + timedelta(weeks=r["idx"] * 4 // len(rows), minutes=r["idx"])).isoformat()  # noqa: E731
    judgment_import(project=project, stream=lines(pandalm_judgment_lines(rows, submitted_at=dated)))
    return project, rows


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("CONCORD_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the golden file (see the docstring)"


def test_pandalm_export_card_and_datasheet_equal_the_golden_files(datasets, lead, tmp_path):
    # given PandaLM imported and its agreement computed
    project, rows = load_pandalm(datasets, lead)
    snapshot_compute_for_project(project_id=project.id)

    # when it is exported
    path = tmp_path / "pandalm.zip"
    options = ExportOptions(formats=("jsonl",), license="apache-2.0", languages=("en",),
                            pretty_name="PandaLM test set: human pairwise judgments")  # fmt: skip
    export_write(project=project, options=options, destination=path)
    files = read_zip(path)

    # then the card and the datasheet are the checked-in ones
    check_golden("pandalm_README.md", files["README.md"].decode())
    check_golden("pandalm_heds.json", files["heds.json"].decode())
    # and they agree with the published dataset: 2,997 judgments, the per-annotator label counts
    facts = json.loads(files["card.json"])
    assert facts["counts"]["n_judgments"] == 2997 == 3 * len(rows)
    judgments = jsonl(files["data/judgments.jsonl"])
    for k, rater in ((1, "rater-001"), (2, "rater-002"), (3, "rater-003")):
        published = {0: 0, 1: 0, 2: 0}
        for r in rows:
            published[r[f"annotator{k}"]] += 1
        mine = [j for j in judgments if j["rater"] == rater]
        assert sum(j["value"] == "tie" for j in mine) == published[0]
        assert sum(j["value"] == j["system"] for j in mine) == published[1]
        assert sum(j["value"] == j["system_b"] for j in mine) == published[2]
    # the pairwise Cohen's kappas the dataset's README reports (0.85, 0.88, 0.86)
    kappas = {
        (p["rater_a"], p["rater_b"]): round(p["value"], 2) for p in facts["agreement"]["pairs"]["overall"]["pairs"]
    }
    assert kappas == {("rater-001", "rater-002"): 0.85, ("rater-001", "rater-003"): 0.88,
                      ("rater-002", "rater-003"): 0.86}  # fmt: skip
