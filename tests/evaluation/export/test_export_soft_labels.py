"""Soft labels in the export: a hand-made Likert study read back from the zip in the LeWiDi layout and scored
with the LeWiDi 2025 soft metric (Manhattan distance), pairwise outcomes, sliders without soft labels, gold and
excluded raters left out, and the card's section."""

import io
import json

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from annotation.models import Membership, RaterExclusion
from evaluation.models import Export
from evaluation.services import ExportOptions, export_write
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.evaluation.export.studies import read_zip
from tests.evaluation.factories import pairwise_study, rated_study

pytestmark = pytest.mark.django_db

# Three raters, two items with one output each on a 1–5 scale: (rater, item) -> answer.
ANSWERS = {("A", "doc1"): 4, ("B", "doc1"): 4, ("C", "doc1"): 2, ("A", "doc2"): 1, ("B", "doc2"): 5}


def average_manhattan_distance(targets: list[list[float]], predictions: list[list[float]]) -> float:
    """LeWiDi 2025's soft score of MultiPico and VariErrNLI ("average MD", the organisers' evaluation notebook
    Evaluation_LeWiDi_2025_Metrics.ipynb): Σₖ |pₖ − tₖ| per item, rounded to 5 places, averaged, rounded."""
    distances = [
        round(sum(abs(p - t) for p, t in zip(pred, target, strict=True)), 5)
        for target, pred in zip(targets, predictions, strict=True)
    ]
    return round(sum(distances) / len(distances), 5)


def _study(lead):
    project = ProjectFactory(name="soft", criteria=["fluency"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    raters = {name: UserFactory() for name in "ABCD"}
    for user in raters.values():
        MembershipFactory(project=project, user=user, role=Membership.Role.RATER)
    items = {
        name: ItemFactory(project=project, external_id=name, input=f"source of {name}") for name in ("doc1", "doc2")
    }
    gold = ItemFactory(project=project, external_id="gold1", gold={"fluency": 5})
    criterion = project.criteria.get()
    for (rater, item), value in ANSWERS.items():
        JudgmentFactory(
            item=items[item], output=items[item].outputs.get(), criterion=criterion, rater=raters[rater], value=value
        )
    JudgmentFactory(item=gold, output=gold.outputs.get(), criterion=criterion, rater=raters["A"], value=5)
    # D is excluded by quality control: left out of the soft labels like out of scores and agreement
    JudgmentFactory(
        item=items["doc2"], output=items["doc2"].outputs.get(), criterion=criterion, rater=raters["D"], value=3
    )
    RaterExclusion.objects.create(project=project, rater=raters["D"], created_at=timezone.now())
    return project, items


def _export(project, tmp_path, **options):
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",), **options), destination=path)
    return read_zip(path)


def test_the_export_reads_back_as_lewidi_and_scores_with_the_manhattan_distance(lead, tmp_path):
    project, items = _study(lead)
    files = _export(project, tmp_path, soft_labels=True, languages=("en",))

    data = json.loads(files["lewidi/fluency_train.json"])
    assert list(data) == ["doc1", "doc2"]
    doc1 = data["doc1"]
    assert doc1["annotation task"] == "fluency"
    assert doc1["text"] == {
        "input": "source of doc1",
        "outputs": {o.system: o.text for o in items["doc1"].outputs.all()},
    }
    assert doc1["number of annotators"] == doc1["number of annotations"] == 3
    assert doc1["annotators"] == "rater-001,rater-002,rater-003"
    assert doc1["annotations"] == {"rater-001": "4", "rater-002": "4", "rater-003": "2"}
    assert doc1["soft_label"] == {"1": 0.0, "2": 1 / 3, "3": 0.0, "4": 2 / 3, "5": 0.0}
    assert (doc1["split"], doc1["lang"], doc1["other_info"]["item"]) == ("train", "en", "doc1")
    assert data["doc2"]["soft_label"] == {"1": 0.5, "2": 0.0, "3": 0.0, "4": 0.0, "5": 0.5}
    assert "rater-004" not in data["doc2"]["annotations"]

    # Given a model that predicts 4 for certain on both items, by hand: doc1 |0-0|+|0-1/3|+0+|1-2/3|+0 = 2/3,
    # doc2 0.5 + 1 + 0.5 = 2; the average 4/3.
    targets = [list(entry["soft_label"].values()) for entry in data.values()]
    predictions = [[0, 0, 0, 1, 0], [0, 0, 0, 1, 0]]
    assert average_manhattan_distance(targets, predictions) == round((round(2 / 3, 5) + 2.0) / 2, 5) == 1.33333
    # a perfect prediction is at distance 0
    assert average_manhattan_distance(targets, targets) == 0.0

    card = files["README.md"].decode()
    assert "## Soft labels (LeWiDi layout)" in card and "`lewidi/fluency_train.json`" in card
    facts = json.loads(files["card.json"])
    assert facts["soft_labels"]["files"] == [{"criterion": "fluency", "path": "lewidi/fluency_train.json", "units": 2}]
    manifest = {f["path"] for f in json.loads(files["export.json"])["files"]}
    assert "lewidi/fluency_train.json" in manifest


def test_without_the_option_nothing_changes(lead, tmp_path):
    project, _ = _study(lead)
    files = _export(project, tmp_path)
    assert not [name for name in files if name.startswith("lewidi/")]
    assert "Soft labels" not in files["README.md"].decode()
    assert "soft_labels" not in json.loads(files["card.json"])


def test_pairwise_outcomes_are_soft_labels_over_the_three_outcomes(tmp_path):
    project = ProjectFactory(task_type="pairwise", criteria=["overall"])
    pairwise_study(project, n_items=6, n_raters=3)
    files = _export(project, tmp_path, soft_labels=True)
    data = json.loads(files["lewidi/overall_train.json"])
    assert len(data) == 6
    entry = next(iter(data.values()))
    assert set(entry["soft_label"]) <= {"0", "1", "2"} and sum(entry["soft_label"].values()) == pytest.approx(1)
    assert len(entry["text"]["outputs"]) == 2  # both outputs of the pair
    assert "first output" in files["README.md"].decode().split("## Soft labels")[1]


def test_sliders_have_no_soft_labels(tmp_path):
    project = ProjectFactory(task_type="rankme", criteria=["fluency"])
    rated_study(project, n_items=3, n_raters=2)
    files = _export(project, tmp_path, soft_labels=True)
    assert not [name for name in files if name.startswith("lewidi/")]
    assert "No criterion with categorical answers." in files["README.md"].decode()


def test_a_likert_item_with_several_outputs_has_one_unit_per_output(tmp_path):
    project = ProjectFactory(criteria=["fluency"])
    rated_study(project, n_items=2, systems=("good", "bad"), n_raters=2)
    data = json.loads(_export(project, tmp_path, soft_labels=True)["lewidi/fluency_train.json"])
    assert len(data) == 4 and all("/" in key for key in data)
    assert {entry["other_info"]["system"] for entry in data.values()} == {"good", "bad"}


def test_the_option_must_be_a_boolean():
    assert ExportOptions(soft_labels="yes").errors() == {"soft_labels": "true or false"}


def test_the_command_the_page_and_the_api_ask_for_soft_labels(lead, tmp_path, settings, lead_client):
    settings.MEDIA_ROOT = tmp_path / "media"
    project, _ = _study(lead)
    path = tmp_path / "cli.zip"
    call_command(
        "export_project",
        str(project.id),
        "--output",
        str(path),
        "--format",
        "jsonl",
        "--soft-labels",
        "--no-progress",
        stdout=io.StringIO(),
    )
    assert "lewidi/fluency_train.json" in read_zip(path)

    browser = Client()
    browser.force_login(lead)
    page = browser.get(f"/projects/{project.id}/export/").content.decode()
    assert 'name="soft_labels"' in page
    browser.post(f"/projects/{project.id}/export/", {"formats": ["jsonl"], "split": "all", "soft_labels": "on"})
    assert Export.objects.get(project=project).options["soft_labels"] is True

    answer = lead_client.post(
        f"/api/v1/projects/{project.id}/exports/", {"formats": ["jsonl"], "soft_labels": "yes please"}, format="json"
    )
    assert answer.status_code == 400 and "soft_labels" in answer.json()
