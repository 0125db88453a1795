"""The export carries imported pairwise votes as their own table, in the vote import's layout (a file
re-imports as it is), and the card describes it."""

import io

import pyarrow.parquet as pq
import pytest

from annotation.models import Membership
from evaluation.services import ExportOptions, ResultOptions, export_write, results_compute
from evaluation.services.vote_import import vote_import
from tests.annotation.factories import MembershipFactory, ProjectFactory
from tests.evaluation.export.studies import jsonl, read_zip
from tests.evaluation.vote_files import VOTES, arena_rows, write_csv

pytestmark = pytest.mark.django_db


def _project(lead, name):
    project = ProjectFactory(task_type="pairwise", criteria=["overall"], name=name)
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    return project


def test_votes_are_exported_and_reimport_to_the_same_ranking(lead, tmp_path):
    source = _project(lead, "arena")
    vote_import(project=source, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv")
    export_write(
        project=source, options=ExportOptions(formats=["jsonl", "csv", "parquet"]), destination=tmp_path / "export.zip"
    )
    files = read_zip(tmp_path / "export.zip")

    rows = jsonl(files["data/votes.jsonl"])
    assert len(rows) == len(VOTES) == pq.read_table(io.BytesIO(files["data/votes.parquet"])).num_rows
    assert rows[0] == {
        "system_a": "a",
        "system_b": "b",
        "winner": "a",
        "rater": "voter-001",
        "prompt": "q0",
        "submitted_at": "2023-04-24T15:53:11.500000Z",
        "sampling_probability": None,
        "criterion": "overall",
    }
    assert "### `votes`" in files["README.md"].decode()
    # The judge ids as imported may be accounts or addresses: an export without names carries none of them,
    # and each voter keeps one pseudonym, numbered in the order the import met them.
    assert [row["rater"] for row in rows[:6]] == [f"voter-00{k % 5 + 1}" for k in range(6)]
    assert not any(b"arena_user" in content for content in files.values())

    copy = _project(lead, "copy")
    (tmp_path / "votes.csv").write_bytes(files["data/votes.csv"])
    assert vote_import(project=copy, path=tmp_path / "votes.csv", fmt="csv").layout == "concord"
    options = ResultOptions(n_resamples=0, test_resamples=0)
    assert (
        results_compute(project=copy, options=options)["votes"]
        == results_compute(project=source, options=options)["votes"]
    )


def test_votes_exported_with_names_keep_the_judge_ids_as_imported(lead, tmp_path):
    project = _project(lead, "arena")
    vote_import(project=project, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv")
    options = ExportOptions(formats=["jsonl"], include_usernames=True)
    export_write(project=project, options=options, destination=tmp_path / "export.zip")
    rows = jsonl(read_zip(tmp_path / "export.zip")["data/votes.jsonl"])
    assert [row["rater"] for row in rows[:6]] == [f"arena_user_{k % 5}" for k in range(6)]


def test_an_export_without_votes_has_no_votes_table(lead, tmp_path):
    project = _project(lead, "no votes")
    export_write(project=project, options=ExportOptions(formats=["jsonl"]), destination=tmp_path / "export.zip")
    files = read_zip(tmp_path / "export.zip")
    assert "data/votes.jsonl" not in files and "`votes`" not in files["README.md"].decode()
