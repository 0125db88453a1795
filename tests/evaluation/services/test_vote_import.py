"""evaluation.services.vote_import: arena-scale pairwise votes, every one or none, ranked apart from judgments."""

import io
import json

import pytest
from django.test import Client

from annotation.models import Judgment, Membership
from annotation.services import item_import, judgment_import
from audit.models import AuditEntry
from core.import_records import ImportRejected
from evaluation.models import Vote, VoteImport, VoteName
from evaluation.selectors.votes import vote_tables
from evaluation.services import ResultOptions, results_compute
from evaluation.services import vote_files as vote_files_module
from evaluation.services import vote_import as vote_import_module
from evaluation.services._common import WEIGHTING_WORDS
from evaluation.services.vote_import import VoteImportError, vote_import
from evaluation.stats import bradley_terry_tables
from tests.annotation.factories import MembershipFactory, ProjectFactory
from tests.evaluation.vote_files import VOTES, arena_rows, concord_rows, write_csv, write_jsonl, write_parquet

pytestmark = pytest.mark.django_db
EXACT = ResultOptions(n_resamples=0, test_resamples=0)


@pytest.fixture
def compared(lead):
    project = ProjectFactory(task_type="pairwise", criteria=["overall", "safety"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    return project


def _as_judgments(project, votes=VOTES, probabilities=None):
    """The same votes through the platform's judgment path: an item per vote, one judgment each."""
    items = [
        {"external_id": f"v{k}", "input": "prompt", "outputs": [{"system": a, "text": a}, {"system": b, "text": b}]}
        for k, (a, b, _) in enumerate(votes)
    ]
    item_import(project=project, stream=io.BytesIO("".join(json.dumps(i) + "\n" for i in items).encode()), fmt="jsonl")
    value = {"model_a": 0, "model_b": 1}
    lines = [
        {
            "item": f"v{k}",
            "rater": f"r{k % 5}",
            "criterion": "overall",
            "value": (a, b)[value[w]] if w in value else "tie",
        }
        | ({"sampling_probability": probabilities[k]} if probabilities else {})
        for k, (a, b, w) in enumerate(votes)
    ]
    judgment_import(project=project, stream=io.BytesIO("".join(json.dumps(x) + "\n" for x in lines).encode()))


FIELDS = ("system", "n", "wins", "ties", "losses", "win_rate")


@pytest.mark.parametrize("ties", ["half", "davidson"])
def test_a_small_file_gives_the_judgment_paths_bradley_terry_result(compared, tmp_path, ties):
    # Given the same 32 votes imported as judgments and as a vote file
    _as_judgments(compared)
    vote_import(project=compared, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv")
    # When the results are computed
    body = results_compute(project=compared, options=ResultOptions(n_resamples=0, test_resamples=0, ties=ties))
    judged, (voted,) = body["criteria"][0].systems, body["votes"]
    # Then counts, ranking and strengths agree
    assert [tuple(getattr(s, f) for f in FIELDS) for s in judged] == [
        tuple(getattr(s, f) for f in FIELDS) for s in voted.systems
    ]
    assert [s.strength for s in judged] == pytest.approx([s.strength for s in voted.systems], abs=1e-9)
    assert voted.n_votes == 32 and voted.ties_both_bad == 3 and voted.criterion == "overall"
    assert voted.bradley_terry.ties == ties


@pytest.mark.parametrize("weighting", ["inverse_probability", "none"])
def test_votes_of_an_adaptive_study_are_weighted_as_the_judgment_paths(compared, lead, tmp_path, weighting):
    # Given an adaptive study's votes, each with the probability its pair was drawn with (a few values, as a
    # design refreshed now and then gives), imported as judgments and as a vote file
    probabilities = [(0.2, 0.5, 0.3)[k % 3] for k in range(len(VOTES))]
    _as_judgments(compared, probabilities=probabilities)
    rows = [row | {"sampling_probability": p} for row, p in zip(concord_rows(), probabilities, strict=True)]
    vote_import(project=compared, path=write_jsonl(tmp_path / "v.jsonl", rows), fmt="jsonl")
    # When the results are computed
    body = results_compute(
        project=compared, options=ResultOptions(n_resamples=0, test_resamples=0, weighting=weighting)
    )
    judged, (voted,) = body["criteria"][0], body["votes"]
    # Then the votes are fitted as the judgments are: same weights, same strengths, same sandwich intervals
    assert judged.sampling_probabilities and voted.sampling_probabilities and voted.weighting == weighting
    assert [s.system for s in judged.systems] == [s.system for s in voted.systems]
    assert [s.strength for s in judged.systems] == pytest.approx([s.strength for s in voted.systems], abs=1e-9)
    assert [s.strength_ci for s in judged.systems] == [pytest.approx(s.strength_ci, abs=1e-9) for s in voted.systems]
    assert voted.bradley_terry.n_resamples == 0 and "sandwich" in voted.bradley_terry.bootstrap
    # and the weights matter: the unweighted pair tables give other strengths
    plain = vote_tables_fit(compared)
    assert plain != pytest.approx([s.strength for s in voted.systems], abs=1e-6)
    # the lead's page (the project's weighting, the default here) says how the votes were fitted
    page = Client()
    page.force_login(lead)
    html = page.get(f"/projects/{compared.pk}/results/").content.decode()
    note = html[html.index('data-testid="votes-weighting"') :]
    assert WEIGHTING_WORDS["inverse_probability"] in note[: note.index("</p>")]


def vote_tables_fit(project):
    (tables,) = vote_tables(project)
    fit = bradley_terry_tables(tables.tables, ties="half", n_resamples=0)
    order = {system: fit.strengths[i] for i, system in enumerate(fit.systems)}
    return [order[s.system] for s in results_compute(project=project, options=EXACT)["votes"][0].systems]


def test_bootstrap_intervals_agree_with_the_judgment_paths(compared, tmp_path):
    """Resampling judgments of one-judgment items and drawing the tables' cells multinomially are the same
    bootstrap (tests/evaluation/stats/test_pair_tables.py); different draws, so close, not equal."""
    _as_judgments(compared)
    vote_import(project=compared, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv")
    body = results_compute(project=compared, options=ResultOptions(n_resamples=4000, test_resamples=0))
    judged = {s.system: s.strength_ci for s in body["criteria"][0].systems}
    for s in body["votes"][0].systems:
        assert s.strength_ci[0] < s.strength < s.strength_ci[1]
        assert s.strength_ci == pytest.approx(judged[s.system], abs=0.15)


@pytest.mark.parametrize(
    ("write", "rows", "fmt"),
    [
        (write_jsonl, arena_rows, "jsonl"),
        (write_parquet, arena_rows, "parquet"),
        (write_csv, concord_rows, "csv"),
        (write_jsonl, concord_rows, "jsonl"),
        (write_parquet, concord_rows, "parquet"),
    ],
)
def test_every_format_and_layout_gives_the_same_votes(compared, tmp_path, write, rows, fmt):
    vote_import(project=compared, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv", criterion="safety")
    result = vote_import(project=compared, path=write(tmp_path / f"v.{fmt}", rows()), fmt=fmt)
    assert result.imported == len(VOTES) and result.layout == ("arena" if rows is arena_rows else "concord")
    safety, overall = sorted(results_compute(project=compared, options=EXACT)["votes"], key=lambda v: v.criterion)
    assert [tuple(getattr(s, f) for f in FIELDS) for s in overall.systems] == [
        tuple(getattr(s, f) for f in FIELDS) for s in safety.systems
    ]
    assert VoteName.objects.filter(project=compared, kind="rater").count() == 5
    assert Vote.objects.filter(batch_id=result.batch_id, prompt="q3").count() == 2
    stored = Vote.objects.filter(batch_id=result.batch_id).order_by("id").first()
    assert stored.rater is not None and stored.prompt is not None and stored.submitted_at is not None


def test_optional_columns_may_be_left_out(compared, tmp_path):
    rows = [{"model_a": a, "model_b": b, "winner": w} for a, b, w in VOTES]
    vote_import(project=compared, path=write_csv(tmp_path / "v.csv", rows), fmt="csv")
    assert Vote.objects.filter(rater__isnull=True, prompt__isnull=True, submitted_at__isnull=True).count() == 32


def _rejected(compared, path, fmt):
    with pytest.raises(ImportRejected) as caught:
        vote_import(project=compared, path=path, fmt=fmt)
    return [(line, message) for line, message in caught.value.report.errors]


def _nothing_stored(compared):
    return not (
        Vote.objects.exists()
        or VoteImport.objects.exists()
        or VoteName.objects.exists()
        or AuditEntry.objects.filter(action="votes.import").exists()
    )


def test_bad_lines_are_named_with_their_column_and_nothing_is_stored(compared, tmp_path):
    rows = arena_rows()
    rows[1]["winner"] = "model_c"
    rows[3]["model_b"] = rows[3]["model_a"]
    rows[4]["tstamp"] = "yesterday"
    rows[5]["model_a"] = ""
    rows[6]["judge"] = "x" * 101
    rows[7]["question_id"] = "q\x00"
    errors = _rejected(compared, write_csv(tmp_path / "v.csv", rows), "csv")
    assert errors == [
        (3, "winner: must be model_a, model_b, tie or tie (bothbad)"),
        (5, "model_b: the same system as on the other side"),
        (6, "tstamp: must be seconds since 1970-01-01 UTC, up to year 9999"),
        (7, "model_a: the system's name is missing"),
        (8, "judge: a rater's name has at most 100 characters"),
        (9, "question_id: holds a NUL character (U+0000), which text may not contain"),
    ]
    assert _nothing_stored(compared)


def test_concord_layout_checks_the_winner_time_and_probability(compared, tmp_path):
    rows = concord_rows()
    rows[0]["winner"] = "c"  # neither side
    rows[1]["submitted_at"] = "2024-02-30T10:00:00Z"
    rows[2]["sampling_probability"] = 1.5
    rows[3]["sampling_probability"] = 0.25
    errors = _rejected(compared, write_jsonl(tmp_path / "v.jsonl", rows), "jsonl")
    assert errors == [
        (1, "winner: must be system_a's or system_b's name, tie or tie (bothbad)"),
        (2, "submitted_at: must be an ISO 8601 date-time (e.g. 2024-03-01T10:00:00Z)"),
        (3, "sampling_probability: must be a probability above 0 and at most 1"),
    ]
    assert _nothing_stored(compared)


def test_lines_pyarrow_cannot_parse_are_found_again_line_by_line(compared, tmp_path):
    path = write_csv(tmp_path / "v.csv", arena_rows())
    lines = path.read_text().splitlines()
    lines[4] = "a,b"
    path.write_text("\n".join(lines) + "\n")
    assert _rejected(compared, path, "csv") == [(5, "2 cells but the header has 7 columns")]
    rows = [json.dumps(r) for r in arena_rows()]
    rows[2] = rows[2].replace('"arena_user_2"', "17")
    rows[6] = "{not json"
    (tmp_path / "v.jsonl").write_text("\n".join(rows) + "\n")
    errors = _rejected(compared, tmp_path / "v.jsonl", "jsonl")
    assert [line for line, _ in errors] == [3, 7]
    assert errors[0][1] == "judge: must be text, got 17" and errors[1][1].startswith("bad JSON")
    assert _nothing_stored(compared)


def test_missing_columns_and_empty_files_are_refused(compared, tmp_path):
    path = write_csv(tmp_path / "v.csv", [{"model_a": "a", "winner": "model_a"}])
    assert _rejected(compared, path, "csv") == [
        (
            1,
            "missing column model_b: a vote file has model_a, model_b, "
            "winner (arena) or system_a, system_b, winner (Concord)",
        )
    ]
    (tmp_path / "h.csv").write_text("model_a,model_b,winner\n")
    assert _rejected(compared, tmp_path / "h.csv", "csv") == [(1, "the file holds no votes")]
    (tmp_path / "x.parquet").write_bytes(b"not parquet")
    assert _rejected(compared, tmp_path / "x.parquet", "parquet")[0][1].startswith("not a Parquet file")


def test_a_bad_line_in_a_late_batch_rolls_back_the_batches_already_copied(compared, tmp_path, monkeypatch):
    monkeypatch.setattr(vote_files_module, "BLOCK_BYTES", 512)
    rows = [dict(r) for r in arena_rows() * 10]
    rows[-1]["winner"] = "both"
    errors = _rejected(compared, write_csv(tmp_path / "v.csv", rows), "csv")
    assert errors == [(len(rows) + 1, "winner: must be model_a, model_b, tie or tie (bothbad)")]
    assert _nothing_stored(compared)


def test_the_slower_path_of_other_databases_stores_the_same_votes(compared, tmp_path, monkeypatch):
    """SQLite (the demo) has no COPY: bulk_create writes the same rows."""
    vote_import(project=compared, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv")
    copied = list(
        Vote.objects.order_by("id").values_list("system_a", "system_b", "outcome", "rater", "prompt", "submitted_at")
    )
    monkeypatch.setattr(vote_import_module, "uses_copy", lambda: False)
    batch = vote_import(project=compared, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv").batch_id
    created = list(
        Vote.objects.filter(batch_id=batch)
        .order_by("id")
        .values_list("system_a", "system_b", "outcome", "rater", "prompt", "submitted_at")
    )
    assert created == copied


def test_names_keep_their_codes_across_imports(compared, tmp_path):
    vote_import(project=compared, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv")
    codes = dict(VoteName.objects.filter(kind="system").values_list("name", "code"))
    rows = [{"model_a": "d", "model_b": "a", "winner": "model_b"}, {"model_a": "d", "model_b": "c", "winner": "tie"}]
    vote_import(project=compared, path=write_csv(tmp_path / "w.csv", rows), fmt="csv")
    assert dict(VoteName.objects.filter(kind="system").values_list("name", "code")) == {**codes, "d": 3}
    (overall,) = results_compute(project=compared, options=EXACT)["votes"]
    assert overall.n_votes == 34 and overall.n_imports == 2 and overall.n_systems == 4


def test_votes_leave_judgments_and_items_alone(compared, tmp_path):
    vote_import(project=compared, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv")
    assert not Judgment.objects.exists() and not compared.items.exists()
    body = results_compute(project=compared, options=EXACT)
    assert body["n_judgments"] == 0 and body["votes"][0].n_votes == 32


def test_only_projects_that_compare_pairs_take_votes(project, compared, tmp_path):
    path = write_csv(tmp_path / "v.csv", arena_rows())
    with pytest.raises(VoteImportError, match="compare pairs"):
        vote_import(project=project, path=path, fmt="csv")
    with pytest.raises(VoteImportError, match="criterion 'style' is not one of 'overall', 'safety'"):
        vote_import(project=compared, path=path, fmt="csv", criterion="style")
    assert "votes" not in results_compute(project=project, options=EXACT)
