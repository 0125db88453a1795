"""export_write: what the zip holds, the same rows in every format, splits, flags and exclusions."""

import csv
import io
import json
from collections import Counter

import pyarrow.parquet as pq
import pytest
from django.db import connection
from django.utils import timezone

from annotation.models import Judgment, RaterExclusion
from evaluation.services import ExportOptions, ExportOptionsError, export_write
from tests.evaluation.export.studies import jsonl, likert_study, pairwise_study, rankme_study, read_zip

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(lead):
    return likert_study(lead)


def export(project, tmp_path, **options) -> dict[str, bytes]:
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(**options), destination=path)
    return read_zip(path)


def parquet(data: bytes):
    return pq.read_table(io.BytesIO(data))


def test_the_zip_holds_the_card_the_datasheet_the_chart_and_every_table_in_every_format(study, tmp_path):
    files = export(study, tmp_path)

    assert list(files)[:3] == ["README.md", "heds.json", "card.json"]
    assert files["agreement_trend.png"].startswith(b"\x89PNG")
    for table in ("items", "judgments", "scores", "raters"):
        for fmt in ("jsonl", "csv", "parquet"):
            assert f"data/{table}.{fmt}" in files
    manifest = json.loads(files["export.json"])
    assert {f["path"] for f in manifest["files"]} == set(files) - {"export.json", "agreement_trend.png"}


def test_every_current_judgment_is_exported_once_with_the_same_rows_in_every_format(study, tmp_path):
    files = export(study, tmp_path)
    rows = jsonl(files["data/judgments.jsonl"])
    current = Judgment.objects.filter(project=study, is_current=True)

    assert len(rows) == current.count() == 24 * 12 + 2 + 2
    from_csv = list(csv.DictReader(io.StringIO(files["data/judgments.csv"].decode())))
    from_parquet = parquet(files["data/judgments.parquet"]).to_pylist()
    assert len(from_csv) == len(from_parquet) == len(rows)
    for j, c, p in zip(rows, from_csv, from_parquet, strict=True):
        assert j["item"] == c["item"] == p["item"]
        assert j["rater"] == c["rater"] == p["rater"]
        assert j["value"] == int(c["value"]) == p["value"]
        assert j["shown_order"] == json.loads(c["shown_order"]) == p["shown_order"]
        assert j["submitted_at"] == c["submitted_at"] == p["submitted_at"].isoformat().replace("+00:00", "Z")
        assert j["gold_item"] == (c["gold_item"] == "true") == p["gold_item"]
    # the judgment import's fields come first, with the import's types (likert values are integers)
    assert list(rows[0])[:8] == [
        "item",
        "system",
        "criterion",
        "rater",
        "value",
        "submitted_at",
        "shown_order",
        "duration_ms",
    ]
    assert isinstance(rows[0]["value"], int)


def test_gold_items_and_their_judgments_are_flagged_and_left_out_of_the_scores(study, tmp_path):
    files = export(study, tmp_path)
    items = jsonl(files["data/items.jsonl"])
    judgments = jsonl(files["data/judgments.jsonl"])
    scores = jsonl(files["data/scores.jsonl"])

    gold = {i["external_id"]: i["gold"] for i in items if i["gold"] is not None}
    assert gold == {
        "gold1": {"fluency": {"bart": 5, "pegasus": 1}},
        "gold2": {"coherence": {"bart": 4, "pegasus": 4}},
    }
    assert {(j["item"], j["gold_item"]) for j in judgments if j["item"].startswith("gold")} == {("gold1", True)}
    assert not any(s["item"].startswith("gold") for s in scores)


def test_scores_aggregate_the_included_judgments_per_output_and_criterion(study, tmp_path):
    files = export(study, tmp_path)
    scores = {(s["item"], s["system"], s["criterion"]): s for s in jsonl(files["data/scores.jsonl"])}
    values = list(
        Judgment.objects.filter(
            project=study,
            is_current=True,
            item__external_id="doc1",
            output__system="bart",
            criterion__name="fluency",
        ).values_list("value", flat=True)
    )

    row = scores[("doc1", "bart", "fluency")]
    assert row["n"] == len(values) == 4  # three imported raters and the account rater's revised value
    assert row["mean"] == pytest.approx(sum(values) / len(values))
    assert row["min"] == min(values) and row["max"] == max(values)
    mean = sum(values) / len(values)
    assert row["sd"] == pytest.approx((sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5)


def test_split_by_subgroup_writes_one_file_per_subgroup_and_hugging_face_configs_for_them(study, tmp_path):
    files = export(study, tmp_path, split="subgroup", formats=("jsonl",))

    assert sorted(n for n in files if n.startswith("data/judgments/")) == [
        "data/judgments/dialogue.jsonl",
        "data/judgments/news.jsonl",
    ]
    assert {j["subgroup"] for j in jsonl(files["data/judgments/news.jsonl"])} == {"news"}
    assert "data/items/no_subgroup.jsonl" in files  # gold2 has no subgroup
    card = files["README.md"].decode()
    assert "  - split: news\n    path: data/judgments/news.jsonl" in card


def test_excluded_raters_are_marked_or_left_out_as_asked(study, tmp_path):
    excluded = Judgment.objects.filter(project=study, source="import").order_by("id").first().rater_id
    RaterExclusion.objects.create(project=study, rater_id=excluded, created_at=timezone.now())

    marked = jsonl(export(study, tmp_path, formats=("jsonl",), include_excluded=True)["data/judgments.jsonl"])
    assert {j["rater"] for j in marked if j["excluded"]} == {"rater-001"}
    without = export(study, tmp_path, formats=("jsonl",))  # left out unless asked for
    assert "rater-001" not in {j["rater"] for j in jsonl(without["data/judgments.jsonl"])}
    facts = json.loads(without["card.json"])
    assert facts["counts"]["exclusions"]["n_excluded_raters"] == 1
    assert facts["counts"]["exclusions"]["excluded_rater_judgments"] == 24 * 4


def test_usernames_appear_only_when_asked_and_emails_never(study, tmp_path):
    named = export(study, tmp_path, formats=("jsonl",), include_usernames=True)
    raters = {r["rater"] for r in jsonl(named["data/raters.jsonl"])}

    assert raters == {"worker-7", "worker-12", "worker-31", "alice.martin"}
    assert not any(b"@example.org" in data for data in named.values())


def test_pairwise_judgments_carry_the_winner_and_the_outcome_of_the_first_output(lead, tmp_path):
    project = pairwise_study(lead)
    files = export(project, tmp_path)
    rows = jsonl(files["data/judgments.jsonl"])
    table = parquet(files["data/judgments.parquet"])

    assert str(table.schema.field("value").type) == "string"
    for row in rows:
        expected = 1 if row["value"] == "tie" else (2 if row["value"] == row["system"] else 0)
        assert row["outcome"] == expected
        assert row["value"] in ("tie", row["system"], row["system_b"])
    scores = jsonl(files["data/scores.jsonl"])
    first = next(s for s in scores if s["item"] == "p0" and s["criterion"] == "overall" and s["system"] == "m1")
    second = next(s for s in scores if s["item"] == "p0" and s["criterion"] == "overall" and s["system"] == "m2")
    assert (first["wins"], first["losses"]) == (second["losses"], second["wins"])


def test_rankme_values_stay_numbers_and_the_card_bins_them(lead, tmp_path):
    project = rankme_study(lead)
    files = export(project, tmp_path, formats=("jsonl", "parquet"))

    assert str(parquet(files["data/judgments.parquet"]).schema.field("value").type) == "double"
    distribution = json.loads(files["card.json"])["label_distributions"]["quality"]
    assert len(distribution) == 10 and sum(distribution.values()) == 12 * 9


def test_parquet_is_written_in_row_groups(study, tmp_path, monkeypatch):
    monkeypatch.setattr("evaluation.export.writers.ROW_GROUP_ROWS", 100)
    monkeypatch.setattr("evaluation.selectors.export.CHUNK_ROWS", 50)
    files = export(study, tmp_path, formats=("parquet",))

    metadata = pq.ParquetFile(io.BytesIO(files["data/judgments.parquet"])).metadata
    assert metadata.num_rows == 292 and metadata.num_row_groups == 3


def test_judgments_added_while_an_export_runs_wait_for_the_next_one(study, tmp_path):
    from evaluation.selectors.export import export_scope

    scope = export_scope(study, include_usernames=False, include_excluded=True, by_subgroup=False)
    before = scope.judgments().count()
    item = study.items.get(external_id="doc2")
    Judgment.objects.create(
        project=study,
        item=item,
        output=item.outputs.first(),
        criterion=study.criteria.first(),
        rater=Judgment.objects.filter(project=study).first().rater,
        value=1.0,
        submitted_at=item.created_at,
        is_current=False,
    )

    assert scope.judgments().count() == before


@pytest.mark.parametrize(
    "options, field",
    [
        ({"formats": ("xml",)}, "formats"),
        ({"formats": ()}, "formats"),
        ({"split": "rater"}, "split"),
        ({"license": "CC BY 4.0"}, "license"),
        ({"languages": ("english!",)}, "languages"),
        ({"task_categories": ()}, "task_categories"),
    ],
)
def test_bad_options_are_refused_naming_the_option(study, tmp_path, options, field):
    with pytest.raises(ExportOptionsError) as error:
        export_write(project=study, options=ExportOptions(**options), destination=tmp_path / "x.zip")
    assert list(error.value.errors) == [field]
    assert not (tmp_path / "x.zip").exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql  # elsewhere the card is read on the export's own connection
def test_outside_a_transaction_the_card_is_read_on_a_second_connection_with_the_same_result(tmp_path, monkeypatch):
    # a job or the command runs outside a transaction: the card's aggregates are read on another
    # connection while the rows are written; the card must be the one the sequential path writes
    import threading

    from django.db import transaction

    from evaluation.services import export as export_service
    from tests.annotation.factories import UserFactory

    threads = []
    own_connection = export_service._on_own_connection
    monkeypatch.setattr(
        export_service,
        "_on_own_connection",
        lambda read: threads.append(threading.current_thread().name) or own_connection(read),
    )
    project = likert_study(UserFactory(username="lead-t"), n_items=6)
    threaded = export(project, tmp_path, formats=("jsonl",))
    assert len(threads) == 1 and threads[0].startswith("export-facts")
    with transaction.atomic():
        sequential = export(project, tmp_path, formats=("jsonl",))
    assert threaded["README.md"] == sequential["README.md"]
    assert json.loads(threaded["card.json"]) == json.loads(sequential["card.json"])


def test_the_counts_are_read_once_for_the_progress_the_splits_the_raters_table_and_the_card(
    study, tmp_path, django_assert_num_queries
):
    export(study, tmp_path)  # the first export computes agreement: the second reads the snapshots
    # 39, one to leave out excluded raters (the default), one for the adjudicated answers (none here) and one
    # for imported votes (none); on SQLite the median time on a screen takes two (a count, then the middle rows)
    with django_assert_num_queries(42 if connection.vendor == "postgresql" else 43) as queries:
        files = export(study, tmp_path)
    counts = Counter(q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"])
    assert [sql for sql, n in counts.items() if n > 1] == []
    judgments_per_rater = [q for q in counts if q.startswith('SELECT "annotation_judgment"."rater_id"')]
    assert len(judgments_per_rater) == 1  # the raters table's query, read for the progress and the card too
    card = json.loads(files["card.json"])
    raters = jsonl(files["data/raters.jsonl"])
    assert (
        card["counts"]["n_judgments"]
        == sum(r["n_judgments"] for r in raters)
        == len(jsonl(files["data/judgments.jsonl"]))
    )
    assert card["counts"]["n_items"] == len(jsonl(files["data/items.jsonl"]))


def test_judgments_of_a_retired_item_are_kept_and_marked_in_every_format_and_the_results(study, tmp_path):
    from annotation.models import Item
    from annotation.services.item_changes import item_retire
    from evaluation.services import results_compute

    retired = Item.objects.filter(project=study, gold__isnull=True, judgments__isnull=False).order_by("id").first()
    item_retire(project=study, item=retired, by=None)
    files = export(study, tmp_path)
    rows = jsonl(files["data/judgments.jsonl"])
    from_csv = list(csv.DictReader(io.StringIO(files["data/judgments.csv"].decode())))
    from_parquet = parquet(files["data/judgments.parquet"]).to_pylist()
    n_retired = Judgment.objects.filter(item=retired, is_current=True).count()
    assert n_retired and sum(r["retired_item"] for r in rows) == n_retired
    assert {r["item"] for r in rows if r["retired_item"]} == {retired.external_id}
    assert (
        [r["retired_item"] for r in rows]
        == [c["retired_item"] == "true" for c in from_csv]
        == [p["retired_item"] for p in from_parquet]
    )
    assert results_compute(project=study)["retired"] == {"items": 1, "judgments": n_retired}
