"""An export job split into parts (eager Celery, as in the demo): the same zip as the export in one task, the
same judgments in every table and on the card when raters judge between the parts, and a failed part leaves a
failed job, no zip and no work directory."""

import json
from pathlib import Path

import pytest

from agreement.services import snapshot_compute_for_project
from annotation.models import Judgment, Membership
from core.models import Job
from evaluation.services import ExportOptions, export_parts, export_start, export_write
from evaluation.services.export import export_path
from evaluation.services.export_parts import export_parts_plan
from tests.annotation.factories import ItemFactory, JudgmentFactory, UserFactory
from tests.evaluation.export.studies import jsonl, likert_study, read_zip

pytestmark = pytest.mark.django_db
OPTIONS = ExportOptions(split="subgroup", license="cc-by-4.0", pretty_name="Summaries")


@pytest.fixture
def study(lead, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    project = likert_study(lead, n_items=12)
    snapshot_compute_for_project(project_id=project.id)
    return project


def exported(project, lead, capture, options=OPTIONS) -> tuple[Job, dict[str, bytes]]:
    with capture(execute=True):
        export = export_start(project=project, options=options, created_by=lead)
    export.refresh_from_db()
    job = Job.objects.get(pk=export.job_id)
    return job, read_zip(export_path(export)) if export.file else {}


def without_time(files: dict[str, bytes]) -> dict[str, bytes]:
    """The zip's files, its manifest without the moment it was written."""
    manifest = json.loads(files["export.json"])
    del manifest["generated_at"]
    return {**files, "export.json": json.dumps(manifest).encode()}


def media_files(settings) -> list[str]:
    return sorted(str(p.relative_to(settings.MEDIA_ROOT)) for p in Path(settings.MEDIA_ROOT).rglob("*"))


def plan(tables, n_items, n_parts, subgroups=None):
    """The parts' pieces: a table's name, or (name, its subgroups) for a piece of one."""
    parts = export_parts_plan(
        tables,
        items_by_subgroup=subgroups or {"": n_items},
        n_judgments=1000,
        n_parts=n_parts,
        by_subgroup=subgroups is not None,
    )
    return [tuple(p.table if p.subgroups is None else (p.table, p.subgroups) for p in part) for part in parts]


def test_the_tables_go_to_parts_of_about_equal_cost_in_table_order():
    tables = ("items", "judgments", "scores", "raters")
    assert plan(tables, 100, 2) == [("judgments",), ("items", "scores", "raters")]
    # items carry their texts: 400 cost more than 1,000 judgments
    assert plan(tables, 400, 2) == [("items",), ("judgments", "scores", "raters")]
    assert plan(tables, 100, 1) == [tables]
    assert plan(tables, 100, 9) == [("judgments",), ("items",), ("scores",), ("raters",)]
    assert plan((*tables, "votes"), 100, 2) == [("items", "judgments"), ("scores", "raters", "votes")]


def test_split_by_subgroup_the_judgments_go_in_runs_of_subgroups_when_they_outweigh_a_part():
    tables = ("items", "judgments", "scores", "raters")
    sizes = {"a": 10, "b": 30, "c": 20, "d": 40}  # in subgroup order
    # judgments 1,000 of 1,800: runs of 60 and 40 items' worth (a, b, c | d)
    assert plan(tables, 100, 2, sizes) == [
        ("items", ("judgments", ("d",))),
        (("judgments", ("a", "b", "c")), "scores", "raters"),
    ]
    assert plan(tables, 100, 3, sizes) == [
        ("items", "raters"),
        (("judgments", ("a", "b")), ("judgments", ("c",))),
        (("judgments", ("d",)), "scores"),
    ]
    assert plan(tables, 100, 1, sizes) == [tables]  # one part: nothing to share
    assert plan(tables, 100, 2, {"all": 100}) == [("judgments",), ("items", "scores", "raters")]  # one subgroup
    assert plan(tables, 400, 2, {"a": 200, "b": 200}) == [("items",), ("judgments", "scores", "raters")]  # light


@pytest.mark.parametrize("n_parts", [2, 6])
def test_an_export_in_parts_is_the_export_in_one_task(
    study, lead, settings, django_capture_on_commit_callbacks, n_parts
):
    settings.CONCORD_EXPORT_PARTS = 1
    one_job, one = exported(study, lead, django_capture_on_commit_callbacks)
    settings.CONCORD_EXPORT_PARTS = n_parts
    job, parts = exported(study, lead, django_capture_on_commit_callbacks)

    assert (one_job.state, job.state) == ("success", "success")
    assert job.progress == 1.0 and job.result["n_files"] == one_job.result["n_files"]
    assert "data/judgments/news.parquet" in parts and "data/items/dialogue.csv" in parts
    assert without_time(parts) == without_time(one)
    # the zips and nothing else: no work directory, no half-written zip
    assert [name for name in media_files(settings) if not name.endswith(".zip")] == [
        "exports",
        f"exports/project-{study.id}",
    ]


def test_judgments_submitted_between_the_parts_are_in_no_table_and_not_on_the_card(
    study, lead, settings, tmp_path, django_capture_on_commit_callbacks, monkeypatch
):
    before = tmp_path / "before.zip"
    export_write(project=study, options=OPTIONS, destination=before)
    settings.CONCORD_EXPORT_PARTS = 2
    late = UserFactory(username="late.rater")
    Membership.objects.create(project=study, user=late, role=Membership.Role.RATER)
    advance = export_parts.job_advance
    judged = []

    def judge_after_the_first_part(job_id, share):
        advance(job_id, share)
        if not judged:  # a new rater on a known item, a known rater on a new item, while the second part waits
            ItemFactory(project=study, external_id="late", subgroup="news", systems=["bart"])
            coherence = study.criteria.get(name="coherence")
            known = Membership.objects.get(project=study, external_name="worker-7").user
            for item, rater in (("doc3", late), ("late", known)):
                for output in study.items.get(external_id=item).outputs.all():
                    judged.append(JudgmentFactory(item=output.item, output=output, criterion=coherence, rater=rater))

    monkeypatch.setattr(export_parts, "job_advance", judge_after_the_first_part)
    job, files = exported(study, lead, django_capture_on_commit_callbacks)

    assert job.state == "success" and len(judged) == 3
    card = json.loads(files["card.json"])
    raters = jsonl(files["data/raters.jsonl"])
    judgments = jsonl(files["data/judgments/news.jsonl"]) + jsonl(files["data/judgments/dialogue.jsonl"])
    assert Judgment.objects.filter(project=study, is_current=True).count() == len(judgments) + 3
    assert card["counts"]["n_judgments"] == len(judgments) == sum(r["n_judgments"] for r in raters)
    assert {r["rater"] for r in raters} == {j["rater"] for j in judgments}
    assert without_time(files) == without_time(read_zip(before))


def test_a_failing_part_fails_the_job_and_leaves_no_zip_and_no_work_directory(
    study, lead, settings, django_capture_on_commit_callbacks, monkeypatch
):
    settings.CONCORD_EXPORT_PARTS = 2
    write = export_parts.table_write

    def fail_on_scores(name, **kwargs):
        if name == "scores":
            raise OSError("No space left on device")
        return write(name, **kwargs)

    monkeypatch.setattr(export_parts, "table_write", fail_on_scores)
    job, files = exported(study, lead, django_capture_on_commit_callbacks)

    assert job.state == "failure" and "No space left on device" in job.error
    assert files == {}
    assert media_files(settings) == ["exports", f"exports/project-{study.id}"]


def test_a_part_delivered_again_after_its_export_was_discarded_fails_and_writes_nothing(
    study, lead, settings, django_capture_on_commit_callbacks, monkeypatch
):
    settings.CONCORD_EXPORT_PARTS = 2
    plans = []
    start = export_parts.export_parts_start

    def recorded(**kwargs):
        plans.append(start(**kwargs))
        return plans[-1]

    monkeypatch.setattr(export_parts, "export_parts_start", recorded)
    monkeypatch.setattr(export_parts, "job_advance", lambda job_id, share: 1 / 0)  # every part fails
    job, _ = exported(study, lead, django_capture_on_commit_callbacks)
    assert job.state == "failure" and "ZeroDivisionError" in job.error

    with pytest.raises(FileNotFoundError):
        export_parts.export_part_write(
            job_id=job.id, token=plans[0].token, pieces=[{"table": "raters", "subgroups": None, "order": 0}], share=0.5
        )
    export_parts.export_parts_discard(job_id=job.id)  # the chord's error callback, once more
    assert media_files(settings) == ["exports", f"exports/project-{study.id}"]
    job.refresh_from_db()
    assert job.state == "failure" and "ZeroDivisionError" in job.error  # the part's own error is kept
