"""The data card's figures: agreement equals the dashboard's stored snapshots; counts, label
distributions and system means equal what the raw judgments give."""

import json
from collections import Counter

import pytest
import yaml

from agreement.models import AgreementSnapshot
from agreement.selectors.dashboard import dashboard_for_project
from agreement.services import snapshot_compute_for_project
from annotation.models import Judgment
from evaluation.export.card import estimate, num
from evaluation.export.card_facts import Estimate
from evaluation.services import ExportOptions, export_write
from tests.evaluation.export.studies import likert_study, rankme_modulus_study, read_zip

pytestmark = pytest.mark.django_db


@pytest.fixture
def exported(lead, tmp_path):
    project = likert_study(lead)
    snapshot_compute_for_project(project_id=project.id)
    files = read_zip(_write(project, tmp_path))
    return project, files["README.md"].decode(), json.loads(files["card.json"])


def _write(project, tmp_path, **options):
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",), **options), destination=path)
    return path


def test_agreement_per_criterion_is_the_dashboards_to_the_last_digit(exported):
    project, card, facts = exported
    board = dashboard_for_project(project)

    assert facts["agreement"]["week"] == board.week.isoformat()
    for criterion, stats in board.labels.items():
        for statistic, s in stats.items():
            shown = facts["agreement"]["labels"][criterion][statistic]
            assert (shown["value"], shown["ci_low"], shown["ci_high"], shown["n_units"]) == (
                s["value"],
                s["ci_low"],
                s["ci_high"],
                s["n_units"],
            )
        main = stats[board.main_statistic]
        stated = Estimate(**facts["agreement"]["labels"][criterion][main["statistic"]])
        assert f"| {criterion} | {estimate(stated, n=False)} | {main['n_units']} | {main['n_raters']} |" in card
        assert f"{main['value']:.3f} [{main['ci_low']:.3f}, {main['ci_high']:.3f}]" in card


def test_agreement_per_subgroup_and_per_week_is_the_dashboards(exported):
    project, card, facts = exported
    board = dashboard_for_project(project)

    for subgroup, cells in board.subgroups.items():
        for criterion, s in cells.items():
            assert facts["agreement"]["subgroups"][subgroup][criterion]["value"] == s["value"]
    stored = AgreementSnapshot.objects.filter(project=project, scope="criterion", is_main=True)
    assert sum(len(points) for t in facts["agreement"]["trend"].values() for points in t.values()) == stored.count()
    for s in stored.select_related("criterion"):
        point = next(
            p for p in facts["agreement"]["trend"][s.criterion.name][s.window] if p["week"] == s.week_start.isoformat()
        )
        assert (point["value"], point["ci_low"], point["ci_high"]) == (s.value, s.ci_low, s.ci_high)
    weeks = sorted({s.week_start for s in stored})
    assert len(weeks) == 3 and all(w.isoformat() in card for w in weeks)


def test_counts_and_label_distributions_are_those_of_the_raw_judgments(exported):
    project, card, facts = exported
    current = Judgment.objects.filter(project=project, is_current=True)
    used = current.filter(item__gold__isnull=True)

    assert facts["counts"]["n_judgments"] == current.count()
    assert facts["counts"]["n_included_judgments"] == used.count()
    assert facts["counts"]["n_raters"] == current.values("rater").distinct().count() == 4
    assert facts["counts"]["exclusions"]["gold_item_judgments"] == current.filter(item__gold__isnull=False).count()
    assert facts["counts"]["exclusions"]["superseded_revisions"] == 1
    for criterion in ("fluency", "coherence"):
        raw = Counter(int(v) for v in used.filter(criterion__name=criterion).values_list("value", flat=True))
        assert facts["label_distributions"][criterion] == {str(k): raw.get(k, 0) for k in range(1, 6)}
        total = sum(raw.values())
        for k in range(1, 6):
            assert f"| {k} | {raw.get(k, 0)} | {100 * raw.get(k, 0) / total:.1f}% |" in card
    per_rater = sorted(Counter(current.values_list("rater_id", flat=True)).values())
    assert facts["counts"]["judgments_per_rater"]["min"] == per_rater[0]
    assert facts["counts"]["judgments_per_rater"]["max"] == per_rater[-1]


def test_system_means_are_those_of_the_raw_judgments(exported):
    project, card, facts = exported
    used = Judgment.objects.filter(project=project, is_current=True, item__gold__isnull=True)

    for row in facts["systems"]["fluency"]:
        values = list(
            used.filter(criterion__name="fluency", output__system=row["system"]).values_list("value", flat=True)
        )
        assert row["n"] == len(values)
        assert row["mean"] == pytest.approx(sum(values) / len(values))
        assert f"| {row['system']} | {num(len(values))} | {sum(values) / len(values):.3f} |" in card


def test_the_front_matter_is_hugging_face_metadata(lead, tmp_path):
    project = likert_study(lead)
    files = read_zip(
        _write(project, tmp_path, license="cc-by-4.0", languages=("en",), task_categories=("summarization",))
    )
    card = files["README.md"].decode()
    meta = yaml.safe_load(card.split("---\n")[1])

    assert meta["license"] == "cc-by-4.0"
    assert meta["language"] == ["en"]
    assert meta["task_categories"] == ["summarization"]
    assert meta["size_categories"] == ["n<1K"]
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert configs["judgments"]["default"] is True
    for config in configs.values():
        for data_file in config["data_files"]:
            assert data_file["path"] in files
    for section in (
        "## Task, instructions and criteria",
        "## Items, systems and subgroups",
        "## Raters",
        "## Assignment design",
        "## Quality control",
        "## Agreement",
        "### Per subgroup",
        "### Weekly trend",
        "## Label distributions",
        "## Known limitations",
    ):
        assert section in card
    assert "> Read the document, then rate each summary." in card
    assert "Rules: none configured" in card


def test_stored_snapshots_are_used_as_they_are_and_computed_only_when_missing(lead, tmp_path):
    project = likert_study(lead)
    path = tmp_path / "a.zip"

    first = export_write(project=project, options=ExportOptions(formats=("jsonl",)), destination=path)
    assert first["agreement_recomputed"] is True
    computed = AgreementSnapshot.objects.filter(project=project).values_list("computed_at", flat=True).first()
    second = export_write(project=project, options=ExportOptions(formats=("jsonl",)), destination=path)
    assert second["agreement_recomputed"] is False
    assert AgreementSnapshot.objects.filter(project=project).values_list("computed_at", flat=True).first() == computed
    third = export_write(
        project=project, options=ExportOptions(formats=("jsonl",), recompute_agreement=True), destination=path
    )
    assert third["agreement_recomputed"] is True


def test_the_heds_datasheet_fills_what_the_platform_knows_and_marks_the_rest(exported, tmp_path):
    project, _, facts = exported
    heds = json.loads(read_zip(_write(project, tmp_path))["heds.json"])
    answers = {q["id"]: q for section in heds["sections"] for q in section.get("questions", [])}

    assert heds["form"].startswith("HEDS 3.0")
    assert answers["3.2.1"] == {**answers["3.2.1"], "answer": 4, "status": "filled"}
    assert answers["3.1.2"]["status"] == "not_known" and answers["3.1.2"]["answer"] is None
    assert answers["5.1"]["status"] == "not_known"
    criteria = {c["criterion"]: {q["id"]: q for q in c["questions"]} for c in heds["sections"][3]["criteria"]}
    assert set(criteria) == {"fluency", "coherence"}
    assert criteria["fluency"]["4.3.3"]["answer"] == 5
    assert criteria["fluency"]["4.3.8"]["answer"] == "direct quality estimation"
    main = facts["agreement"]["labels"]["fluency"][facts["agreement"]["main_statistic"]]
    assert f"{main['value']:.3f}" in criteria["fluency"]["4.3.11"]["answer"]
    assert all(q["status"] in ("filled", "partly_filled", "not_known") for q in answers.values())


def test_quality_control_rules_versions_and_exclusions_are_stated(lead, tmp_path):
    from annotation.models import Membership
    from annotation.services.quality import qc_rules_update, rater_exclude, rater_pause

    # given rules edited after judging started (two versions), a rule's pause and a lead's exclusion
    project = likert_study(lead)
    first = qc_rules_update(project=project, gold_accuracy_threshold=0.8, action="pause")
    qc_rules_update(project=project, gold_accuracy_threshold=0.9, action="exclude", min_seconds_per_judgment=2)
    worker = Membership.objects.get(project=project, external_name="worker-12").user
    rater_pause(project=project, rater=worker, rules=first, rule="gold_accuracy", evidence={"accuracy": 0.5})
    rater_exclude(project=project, rater=worker, by=lead, reason="answers at random")

    # when exported
    files = read_zip(_write(project, tmp_path, include_excluded=True))  # off unless asked for
    card, facts = files["README.md"].decode(), json.loads(files["card.json"])
    heds = json.loads(files["heds.json"])

    # then the card lists both versions with what they did, the lead's action and the exclusion's weight
    assert [r["version"] for r in facts["qc"]["rules"]] == [1, 2]
    assert facts["qc"]["rules"][0]["actions"] == {"pause": 1}
    assert facts["qc"]["manual_actions"] == {"exclude": 1}
    assert "| 1 | 0.80 | 5 | 0.0 | 0 | 0.00 | pause | pause 1 |" in card
    assert "| 2 | 0.90 | 5 | 2.0 | 0 | 0.00 | exclude | none |" in card
    assert "Leads' own actions on raters: exclude 1." in card
    # and how often each lead action of the audit log was taken, the rule's own pause not among them
    assert facts["qc"]["lead_actions"] == {
        "items.import": 1,
        "judgments.import": 1,
        "project.create": 1,
        "qc.rules_update": 2,
        "rater.exclude": 1,
    }
    assert (
        "Lead actions in the project's audit log (exports aside): items.import 1, judgments.import 1, "
        "project.create 1, qc.rules_update 2, rater.exclude 1."
    ) in card
    excluded = Judgment.objects.filter(project=project, rater=worker, is_current=True, item__gold__isnull=True)
    assert f"Excluded raters: 1, with {excluded.count()} judgments" in card
    answers = {q["id"]: q for s in heds["sections"] for q in s.get("questions", [])}
    assert "evaluators are excluded if they fail quality checks (often or badly enough)" in answers["3.3.3"]["answer"]
    judgments = [json.loads(line) for line in files["data/judgments.jsonl"].splitlines()]
    assert {j["rater"] for j in judgments if j["excluded"]} == {"rater-002"}


def test_a_rankme_modulus_is_stated_and_its_scores_binned_in_doublings_of_the_modulus(lead, tmp_path):
    project = rankme_modulus_study(lead)
    files = read_zip(_write(project, tmp_path))
    card, facts = files["README.md"].decode(), json.loads(files["card.json"])
    heds = files["heds.json"].decode()

    assert facts["project"]["rankme_modulus"] == 100
    assert "every screen first showed the item's reference with the fixed score 100" in card
    assert "| quality | any positive number, relative to the reference's 100 |" in card
    assert "(in doublings of the modulus)" in card and "per tenth of the slider range" not in card
    raw = Counter(Judgment.objects.filter(project=project).values_list("value", flat=True))
    assert facts["label_distributions"]["quality"] == {
        "below 12.5": raw[5],
        "12.5–25": raw[20],
        "25–50": 0,
        "50–100": 0,
        "100–200": raw[100] + raw[150],
        "200–400": 0,
        "400–800": raw[700],
        "800 and above": raw[2500],
    }
    assert "after per-rater log normalisation" in heds and "relative to the reference's fixed 100" in heds


def test_what_the_authors_state_at_export_is_in_the_card(lead, tmp_path):
    project = likert_study(lead)
    about = {
        "summary": "Fluency of news summaries, judged by students.",
        "motivation": "To test a new metric.",
        "authors": "A. Author, B. Author",
        "contact": "eval@example.org",
        "citation": "@inproceedings{author2026,\n  title={A study},\n  year={2026}\n}",
        "recruitment": "Students of our department, by email.",
        "compensation": "15 EUR an hour.",
        "consent": "Written consent; approved by the faculty ethics board (no. 42).",
        "intended_uses": "Meta-evaluation of metrics.",
        "limitations": "English news only.",
    }
    card = read_zip(_write(project, tmp_path, **about))["README.md"].decode()
    for text in about.values():
        assert text.split("\n")[0] in card
    assert "```bibtex\n@inproceedings{author2026," in card
    assert "how they were paid" not in card and "the intended uses" not in card
    # left out, each is listed as not known
    bare = read_zip(_write(project, tmp_path))["README.md"].decode()
    assert "how raters were recruited, how they were paid, what they consented to" in bare
    assert "## Authors and citation" not in bare


def test_what_the_authors_state_at_export_fills_the_heds_datasheet(lead, tmp_path):
    project = likert_study(lead)
    about = {
        "summary": "Fluency of news summaries.",
        "authors": "A. Author",
        "contact": "eval@example.org",
        "citation": "Author (2026). A study.",
        "recruitment": "Students, by email.",
        "compensation": "15 EUR an hour.",
        "consent": "Approved by the faculty ethics board (no. 42).",
        "intended_uses": "Meta-evaluation of metrics.",
        "limitations": "English news only.",
    }
    heds = json.loads(read_zip(_write(project, tmp_path, **about))["heds.json"])
    answers = {q["id"]: q for section in heds["sections"] for q in section.get("questions", [])}
    assert (answers["1.1"]["answer"], answers["1.1"]["status"]) == ("Author (2026). A study.", "filled")
    assert answers["1.3.2"]["answer"] == "authors: A. Author; contact: eval@example.org"
    assert answers["3.2.3"]["answer"] == "Students, by email." and answers["3.2.3"]["status"] == "filled"
    assert (answers["3.2.2"]["answer"], answers["3.2.2"]["status"]) == ("15 EUR an hour.", "partly_filled")
    assert (answers["5.1"]["answer"], answers["5.1"]["status"]) == (about["consent"], "partly_filled")
    assert all(
        "stated by the authors at export" in answers[q]["note"] for q in ("1.1", "1.3.2", "3.2.2", "3.2.3", "5.1")
    )
    assert heds["stated_at_export"] == {
        "summary": "Fluency of news summaries.",
        "intended_uses": "Meta-evaluation of metrics.",
        "limitations": "English news only.",
    }
    # left out, the same questions are for the authors to answer
    bare = json.loads(read_zip(_write(project, tmp_path))["heds.json"])
    answers = {q["id"]: q for section in bare["sections"] for q in section.get("questions", [])}
    assert {answers[q]["status"] for q in ("1.1", "1.3.2", "3.2.2", "3.2.3", "5.1")} == {"not_known"}
    assert bare["stated_at_export"] == {}


def test_a_refused_statement_names_its_field():
    errors = ExportOptions(consent="a\x00b", citation="x" * 5001).errors()
    assert errors == {
        "consent": "holds a NUL character (U+0000), which text may not contain",
        "citation": "at most 5000 characters",
    }
