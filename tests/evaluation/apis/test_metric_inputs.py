"""The lead uploads a training corpus and word vectors (API and page), a bad file is refused naming
its line with nothing stored, and the Celery job then computes the dialog metrics, which the
per-system summary reports as dialog-eval does."""

import math

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluation.metrics.dialog import dialog_summary
from evaluation.models import MetricInput, MetricScore
from tests.evaluation.factories import rated_study

pytestmark = pytest.mark.django_db

CORPUS = b"good on the item\nbad on the item\nthe item is good\n"
VECTORS = b"4 3\ngood 1 0 0\nbad 0 1 0\non 0 0 1\nitem 1 1 0\n"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def upload(client, project, kind, data, name="file.txt"):
    return client.post(
        f"/api/v1/projects/{project.id}/metrics/inputs/{kind}/",
        {"file": SimpleUploadedFile(name, data)},
        format="multipart",
    )


def test_bad_files_are_refused_naming_the_line_and_keep_the_earlier_one(project, lead_client):
    first = upload(lead_client, project, "word_vectors", VECTORS)
    assert first.status_code == 201, first.json()
    refused = upload(lead_client, project, "word_vectors", b"good 1 0 0\nbad 0 1\n")
    assert refused.status_code == 400
    assert refused.json()["detail"] == "word vectors: line 2 has 2 values, the file's vectors 3"
    row = MetricInput.objects.get(project=project)
    assert row.summary == {"vectors": 4, "dimension": 3}
    refused = upload(lead_client, project, "training_corpus", b"fine\n\xff\xfe\n")
    assert refused.status_code == 400 and "line 2 is not UTF-8" in refused.json()["detail"]
    unknown = upload(lead_client, project, "grammar", CORPUS)
    assert unknown.status_code == 400 and "unknown metric input 'grammar'" in unknown.json()["detail"]
    assert MetricInput.objects.filter(project=project).count() == 1


def test_raters_cannot_upload(project, rater_client):
    assert upload(rater_client, project, "training_corpus", CORPUS).status_code == 403
    assert not MetricInput.objects.exists()


def test_uploads_make_the_dialog_metrics_available_and_the_job_computes_them(
    project, lead_client, django_capture_on_commit_callbacks
):
    _, items = rated_study(project, n_items=3)
    for item in items:
        item.references = [f"good on {item.external_id}"]  # the good system's output: left out there
        item.input = "is the item good"
        item.save()
    catalogue = lead_client.get(f"/api/v1/projects/{project.id}/metrics/catalogue/?page_size=200").json()
    reasons = {m["name"]: m["unavailable"] for m in catalogue["results"]}
    assert reasons["dialog_word_entropy1"] == (
        "dialog_word_entropy1 is unavailable because no training corpus has been uploaded for this project"
    )
    assert upload(lead_client, project, "training_corpus", CORPUS, "train.txt").status_code == 201
    assert upload(lead_client, project, "word_vectors", VECTORS).status_code == 201
    listing = lead_client.get(f"/api/v1/projects/{project.id}/metrics/inputs/").json()["results"]
    assert [r["kind"] for r in listing] == ["training_corpus", "word_vectors"]
    assert listing[0]["summary"] == {"lines": 3, "words": 6} and listing[0]["original_name"] == "train.txt"
    catalogue = lead_client.get(f"/api/v1/projects/{project.id}/metrics/catalogue/?page_size=200").json()
    reasons = {m["name"]: m["unavailable"] for m in catalogue["results"]}
    names = ["dialog_word_entropy1", "dialog_kl1", "dialog_distinct2", "dialog_coherence", "dialog_bleu3"]
    assert all(reasons[n] is None for n in names)

    with django_capture_on_commit_callbacks(execute=True):
        started = lead_client.post(f"/api/v1/projects/{project.id}/metrics/compute/", {"metrics": names}, format="json")
    job = lead_client.get(f"/api/v1/jobs/{started.json()['job_id']}/").json()
    assert job["state"] == "success" and job["progress"] == 1.0, job
    values = {
        (s.name, s.output.system): s.value for s in MetricScore.objects.filter(project=project).select_related("output")
    }
    assert values["dialog_bleu3", "good"] is None and values["dialog_bleu3", "bad"] > 0
    # "bad on item-<n>": of the corpus's 12 words "bad" is 1, "on" 2, "item" 3; "-" and n unseen
    expected = -(math.log2(1 / 12) + math.log2(2 / 12) + math.log2(3 / 12)) / 3
    assert values["dialog_word_entropy1", "bad"] == pytest.approx(expected)
    # distinct-2 over the bad system's responses: bad on, on item, item <unk>, <unk> <unk>, thrice
    assert values["dialog_distinct2", "bad"] == pytest.approx(4 / 12)
    assert values["dialog_coherence", "good"] is not None

    summary = lead_client.get(
        f"/api/v1/projects/{project.id}/metrics/systems/?name=dialog_word_entropy1,dialog_bleu3"
    ).json()["results"]
    row = next(r for r in summary if r["metric"] == "dialog_word_entropy1" and r["system"] == "bad")
    mine = dialog_summary([expected] * 3)
    assert (row["n"], row["mean"], row["std"], row["confidence"]) == pytest.approx(
        (3, mine.mean, mine.std, mine.confidence)
    )
    assert next(r for r in summary if r["metric"] == "dialog_bleu3" and r["system"] == "good")["n"] == 0


def test_the_metrics_page_uploads_and_shows_what_is_missing(project, lead, client):
    client.force_login(lead)
    page = client.get(f"/projects/{project.id}/metrics/inputs/")
    assert page.status_code == 200
    assert b"dialog_kl1 is unavailable because no training corpus" in page.content
    assert b"bertscore_minilm_f" in page.content and b"not roberta-large" in page.content
    bad = client.post(
        f"/projects/{project.id}/metrics/inputs/",
        {"kind": "word_vectors", "file": SimpleUploadedFile("v.vec", b"a 1\nb x\n")},
    )
    assert bad.status_code == 400 and b"word vectors: line 2: could not convert" in bad.content
    good = client.post(
        f"/projects/{project.id}/metrics/inputs/",
        {"kind": "training_corpus", "file": SimpleUploadedFile("train.txt", CORPUS)},
    )
    assert good.status_code == 302
    page = client.get(f"/projects/{project.id}/metrics/inputs/")
    assert b"train.txt" in page.content and b"dialog_kl1 is unavailable" not in page.content
