"""The lead's export page (options, progress bar, download link) and manage.py export_project /
import_export."""

import io
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from annotation.models import Judgment, Membership, Project, RaterExclusion
from evaluation.models import Export
from tests.annotation.factories import MembershipFactory
from tests.evaluation.export.studies import likert_study

pytestmark = pytest.mark.django_db


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def study(lead, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return likert_study(lead, n_items=6)


def test_the_results_page_links_to_the_export_page(study, lead):
    page = browser(lead).get(f"/projects/{study.id}/results/").content.decode()
    assert f'href="/projects/{study.id}/export/"' in page


def test_the_lead_exports_from_the_page_and_follows_the_job(study, lead, django_capture_on_commit_callbacks):
    client = browser(lead)
    page = client.get(f"/projects/{study.id}/export/").content.decode()
    assert 'name="formats" value="parquet" checked' in page and "evaluation/export.js" in page

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/projects/{study.id}/export/",
            {
                "formats": ["jsonl", "csv"],
                "split": "all",
                "include_excluded": "on",
                "license": "mit",
                "languages": "en, de",
            },
        )
    export = Export.objects.get(project=study)
    assert response.status_code == 302 and response["Location"].endswith(f"?export={export.id}")
    assert export.options["formats"] == ["jsonl", "csv"] and export.options["languages"] == ["en", "de"]

    page = client.get(response["Location"]).content.decode()
    assert 'id="export-bar"' in page and f'data-job-url="/api/v1/jobs/{export.job_id}/"' in page
    assert f'href="/api/v1/exports/{export.id}/download/"' in page and 'data-state="ready"' in page


def test_bad_page_options_are_shown_by_name(study, lead):
    response = browser(lead).post(f"/projects/{study.id}/export/", {"split": "all", "license": "CC BY"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "<strong>formats</strong>" in page and "<strong>license</strong>" in page
    assert not Export.objects.exists()


def test_raters_cannot_open_the_export_page(study):
    rater = MembershipFactory(project=study, role=Membership.Role.RATER).user
    assert browser(rater).get(f"/projects/{study.id}/export/").status_code == 403


def test_export_project_command_writes_the_zip_and_import_export_loads_it_back(study, lead, tmp_path, capsys):
    out = io.StringIO()
    path = tmp_path / "study.zip"
    call_command(
        "export_project",
        str(study.id),
        "--output",
        str(path),
        "--format",
        "jsonl",
        "--license",
        "cc-by-4.0",
        "--language",
        "en",
        stdout=out,
    )
    assert "Exported 76 judgments" in out.getvalue()
    assert "100%" in capsys.readouterr().err  # the tqdm bar
    assert "license: cc-by-4.0" in zipfile.ZipFile(path).read("README.md").decode()

    out = io.StringIO()
    call_command("import_export", str(path), "--lead", lead.username, "--name", "copy", "--no-progress", stdout=out)
    copy = Project.objects.get(name="copy")
    assert (
        Judgment.objects.filter(project=copy).count() == Judgment.objects.filter(project=study, is_current=True).count()
    )
    assert "Created project" in out.getvalue()


def test_export_project_command_refuses_bad_options(study, tmp_path):
    with pytest.raises(CommandError, match="license"):
        call_command(
            "export_project",
            str(study.id),
            "--output",
            str(tmp_path / "x.zip"),
            "--license",
            "CC BY",
            "--no-progress",
            stdout=io.StringIO(),
        )
    with pytest.raises(CommandError, match="no project"):
        call_command("export_project", "no such project", "--output", str(tmp_path / "x.zip"), stdout=io.StringIO())


def test_export_project_command_leaves_excluded_raters_out_unless_asked(study, tmp_path):
    excluded = Judgment.objects.filter(project=study, is_current=True).values_list("rater_id", flat=True).first()
    RaterExclusion.objects.create(project=study, rater_id=excluded, created_at=timezone.now())
    theirs = Judgment.objects.filter(project=study, is_current=True, rater_id=excluded).count()
    total = Judgment.objects.filter(project=study, is_current=True).count()

    def exported(*flags) -> str:
        out = io.StringIO()
        path = tmp_path / f"study{len(flags)}.zip"
        call_command("export_project", str(study.id), "--output", str(path), "--no-progress", *flags, stdout=out)
        return out.getvalue()

    assert f"Exported {total - theirs} judgments" in exported()
    assert f"Exported {total} judgments" in exported("--with-excluded")
