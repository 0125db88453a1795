"""What the read models put on the wire and the page, byte for byte: the demo's projects (one per task type, seeded,
at a fixed time and with fresh id sequences) through the progress summary, results and agreement APIs, the data
card's facts and README, and the progress, results and agreement pages' content (the pairwise project with imported
votes as well). The golden files were written
before the read models became dataclasses; a difference is a change in what users receive, made on purpose with

    CONCORD_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/read_models/test_read_model_output.py
"""

import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.utils import timezone

from agreement.services.recompute import agreement_recompute_run
from annotation.services.demo import demo_setup
from evaluation.services import ExportOptions, export_write
from evaluation.services.vote_import import vote_import
from tests.evaluation.export.studies import read_zip
from tests.evaluation.vote_files import arena_rows, write_csv
from tests.golden_floats import float_digits

GOLDEN = Path(__file__).resolve().parent / "golden"
NOW = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)
VOLATILE = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), 'name="csrfmiddlewaretoken" value=""'),
    (re.compile(r'nonce="[^"]*"'), 'nonce=""'),
    # the best-worst design's seed is drawn when the project is created
    (re.compile(r'("task_config": \{[^}]*"seed": |from seed )\d+'), r"\g<1>0"),
]


def check_golden(name: str, text: str) -> None:
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    path = GOLDEN / name
    if os.environ.get("CONCORD_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    golden = path.read_text(encoding="utf-8")
    if text != golden:
        assert float_digits(text) == float_digits(golden), f"{name} differs from the golden file (see the docstring)"


def main_content(html: str) -> str:
    return html[html.index("<main") : html.index("</main>")]


@pytest.fixture
def demo(monkeypatch, tmp_path):
    monkeypatch.setattr(timezone, "now", lambda: NOW)
    projects = demo_setup(lead_username="lead", lead_password="x-pass-lead-1", rater_password="x-pass-rater-1",
                          n_items=12, now=NOW)  # fmt: skip
    for project in projects:
        agreement_recompute_run(project_id=project.pk)
        if project.task_type == "pairwise" and "chat" not in project.name.lower():
            vote_import(project=project, path=write_csv(tmp_path / "votes.csv", arena_rows()), fmt="csv")
    return projects


@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_apis_pages_and_card_are_unchanged(client, demo, tmp_path, django_user_model):
    client.force_login(django_user_model.objects.get(username="lead"))
    for project in demo:
        name = project.task_type + ("-chat" if "chat" in project.name.lower() else "")
        apis = {
            "progress": f"/api/v1/projects/{project.pk}/progress/summary/",
            "results": f"/api/v1/projects/{project.pk}/results/?n_resamples=50&test_resamples=100",
            "agreement": f"/api/v1/projects/{project.pk}/agreement/",
        }
        for what, url in apis.items():
            response = client.get(url)
            assert response.status_code == 200, (url, response.content[:500])
            check_golden(f"{name}-{what}.json", response.content.decode())
        for what, url in (
            ("progress", f"/projects/{project.pk}/progress/"),
            ("results", f"/projects/{project.pk}/results/"),
            ("agreement", f"/projects/{project.pk}/agreement/"),
            ("project", f"/projects/{project.pk}/"),
        ):
            response = client.get(url)
            assert response.status_code == 200, url
            check_golden(f"{name}-{what}-page.html", main_content(response.content.decode()))
        path = tmp_path / f"{name}.zip"
        export_write(project=project, options=ExportOptions(formats=("jsonl",)), destination=path)
        files = read_zip(path)
        check_golden(f"{name}-card.json", files["card.json"].decode())
        check_golden(f"{name}-README.md", files["README.md"].decode())
