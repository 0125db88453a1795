"""The contract every registered task type meets, run through the public API as a lead and raters would:
create a project, import items (one gold), serve and submit screens (one invalid answer refused naming the
field), gold checked, agreement recomputed per the type's plan, results per system, an export with the
columns the type declares, and the export re-imported with the same judgments. A new task type is done
when this passes for it (and it has a gold answer in GOLD below)."""

import io
import json
import random
import zipfile

import pytest

from agreement.models import AgreementSnapshot
from annotation.models import Judgment, Project
from annotation.services.judgment_import import JUDGMENT_FIELDS
from annotation.task_types import REGISTRY
from evaluation.selectors.export import rater_pseudonyms
from evaluation.services import export_reimport
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

N_ITEMS = 4
# The score every simulated answer gives (on the demo's 1–5 scale: the middle), and a gold answer each type
# counts correct for it, given the criteria's names and the item's systems.
SCORE = 3.0
GOLD = {
    "likert": lambda criteria, systems: dict.fromkeys(criteria, 3),
    "rankme": lambda criteria, systems: {c: {s: [0, 100] for s in systems} for c in criteria},
    "pairwise": lambda criteria, systems: "tie",
    # error spans: the demo's answer marks its first character (see the packages' demo.py)
    "esa": lambda criteria, systems: {
        c: {s: {"spans": [{"start": 0, "end": 1}], "score": [0, 100]} for s in systems} for c in criteria
    },
    "mqm": lambda criteria, systems: {c: {s: {"spans": [{"start": 0, "end": 1}]} for s in systems} for c in criteria},
    # best–worst: equal scores leave the pick to the order shown, so any output counts as the right best
    "bws": lambda criteria, systems: {"best": systems},
}


def _lines(slug: str, criteria: list[str], systems: list[str]) -> bytes:
    lines = [
        {
            "external_id": f"doc{i}",
            "input": f"source {i}",
            "references": [f"reference {i}"],
            "outputs": [{"system": s, "text": f"{s} says {i}"} for s in systems],
        }
        for i in range(N_ITEMS)
    ]
    lines.append({**lines[0], "external_id": "gold0", "gold": GOLD[slug](criteria, systems)})
    return "\n".join(json.dumps(line) for line in lines).encode()


def _rate_all(client, pk: int, task_type, *, invalid_first: bool) -> int:
    rng, n = random.Random(0), 0
    while (screen := client.post(f"/api/v1/projects/{pk}/next/")).status_code == 200:
        body = screen.json()
        scores = [SCORE] * len(body["item"]["outputs"])
        values = [v for c in body["criteria"] for v in task_type.setup.demo.answers(c["name"], scores, rng)]
        url = f"/api/v1/assignments/{body['assignment_id']}/judgment/"
        if invalid_first:
            bad = client.post(url, {"values": [{**values[0], "value": "no such answer"}] + values[1:]}, format="json")
            assert bad.status_code == 400 and "value" in bad.content.decode(), bad.content
            assert not Judgment.objects.filter(assignment_id=body["assignment_id"]).exists()
            invalid_first = False
        answer = client.post(url, {"values": values}, format="json")
        assert answer.status_code == 201, answer.content
        n += 1
    assert screen.status_code == 204, screen.content
    return n


def _judgments(project_id: int, names: dict[int, str]) -> list[tuple]:
    rows = Judgment.objects.filter(project_id=project_id, is_current=True).values_list(
        "item__external_id", "output__system", "criterion__name", "rater_id", "value", "label"
    )
    return sorted((i, s, c, names[r], v, lab) for i, s, c, r, v, lab in rows)


@pytest.mark.parametrize("slug", list(REGISTRY))
def test_a_task_type_runs_the_whole_study(slug, staff, settings, tmp_path, django_capture_on_commit_callbacks):
    assert slug in GOLD, f"add a gold answer for the task type {slug!r} to GOLD in this module"
    task_type, settings.MEDIA_ROOT = REGISTRY[slug], tmp_path / "media"
    demo = task_type.setup.demo
    criteria = [dict(c) for c in demo.criteria]
    systems = [f"system{k}" for k in range(demo.n_systems)]
    api = client_for(staff)

    # a project made and filled through the API
    made = api.post(
        "/api/v1/projects/",
        {
            "name": f"{slug} contract",
            "task_type": slug,
            "criteria": criteria,
            "raters_per_item": 2,
            "double_annotation_share": 1.0,
            "gold_rate": 0.5,
        },
        format="json",
    )
    assert made.status_code == 201, made.content
    pk = made.json()["id"]
    imported = api.post(
        f"/api/v1/projects/{pk}/items/import/",
        data=_lines(slug, [c["name"] for c in criteria], systems),
        content_type="application/x-ndjson",
    )
    assert imported.status_code in (200, 201), imported.content

    # two raters judge every screen they are served (the first answer refused, naming the field)
    raters = [UserFactory(username=f"{slug}-rater{k}") for k in range(2)]
    for rater in raters:
        joined = api.post(
            f"/api/v1/projects/{pk}/members/", {"username": rater.username, "role": "rater"}, format="json"
        )
        assert joined.status_code == 201, joined.content
    served = [_rate_all(client_for(r), pk, task_type, invalid_first=k == 0) for k, r in enumerate(raters)]
    assert served == [N_ITEMS + 1] * 2  # every item and the gold check

    # the gold check counted each rater's answer right
    report = {r["rater"]: r for r in api.get(f"/api/v1/projects/{pk}/qc/raters/").json()["raters"]}
    for rater in raters:
        gold = report[rater.username]["gold"]
        assert (gold["n_items"], gold["correct"]) == (1, gold["n"]) and gold["n"] > 0, gold

    # agreement: the plan's statistics stored on every criterion
    with django_capture_on_commit_callbacks(execute=True):
        recompute = api.post(f"/api/v1/projects/{pk}/agreement/recompute/")
    assert recompute.status_code == 202, recompute.content
    stored = set(AgreementSnapshot.objects.filter(project_id=pk).values_list("statistic", flat=True))
    assert set(task_type.agreement.label) <= stored, stored

    # results: a row per system on every criterion
    results = api.get(f"/api/v1/projects/{pk}/results/", {"n_resamples": 0})
    assert results.status_code == 200, results.content
    for criterion in results.json()["criteria"]:
        assert {s["system"] for s in criterion["systems"]} == set(systems), criterion

    # the export holds the judgments with the columns the type declares
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(f"/api/v1/projects/{pk}/exports/", {"formats": ["jsonl"]}, format="json")
    assert started.status_code == 202, started.content
    job = api.get(f"/api/v1/jobs/{started.json()['job_id']}/").json()
    archive = tmp_path / "export.zip"
    archive.write_bytes(b"".join(api.get(job["result"]["download"]).streaming_content))
    files = zipfile.ZipFile(archive)
    rows = [json.loads(line) for line in io.TextIOWrapper(files.open("data/judgments.jsonl"))]
    declared = {*JUDGMENT_FIELDS, *(name for name, _, _ in task_type.values.export_columns)}
    assert rows and all(declared <= set(row) for row in rows)
    assert len(rows) == Judgment.objects.filter(project_id=pk, is_current=True).count()
    assert "data/scores.jsonl" in files.namelist() and "README.md" in files.namelist()

    # re-imported, the export gives the same judgments (raters under their pseudonyms)
    copy, counts = export_reimport(archive_path=archive, created_by=staff, name=f"{slug} copy")
    assert counts["judgments"] == len(rows)
    pseudonyms = {m.user_id: m.external_name for m in copy.memberships.exclude(external_name="")}
    project = Project.objects.get(pk=pk)
    assert _judgments(copy.pk, pseudonyms) == _judgments(pk, rater_pseudonyms(project, max_judgment_id=10**12))
