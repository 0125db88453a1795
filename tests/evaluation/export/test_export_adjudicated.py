"""The adjudicated answer is exported as its own column of the judgments table, beside the raw judgments, and
an error-span answer's spans in the spans table, flagged as the adjudicator's."""

import pytest

from annotation.models import ErrorSpan, Membership
from annotation.selectors.adjudication import adjudication_screen
from annotation.services.adjudication import (
    AdjudicationRule,
    adjudication_next,
    adjudication_rule_set,
    adjudication_submit,
)
from evaluation.services import ExportOptions, export_write
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.evaluation.export.studies import jsonl, read_zip

pytestmark = pytest.mark.django_db


def _pairwise_with_a_split_item():
    project = ProjectFactory(task_type="pairwise", criteria=["overall"])
    split, agreed = (
        ItemFactory(project=project, external_id=name, systems=["bart", "t5"]) for name in ("split", "agreed")
    )
    for item, answers in ((split, ((2.0, "bart"), (0.0, "t5"))), (agreed, ((1.0, "tie"), (1.0, "tie")))):
        for k, (value, label) in enumerate(answers):
            JudgmentFactory(item=item, rater=UserFactory(username=f"r{k}"), value=value, label=label)
    return project


def test_the_judgments_table_carries_the_adjudicated_answer_on_every_row_of_its_unit(tmp_path):
    project = _pairwise_with_a_split_item()
    adjudicator = UserFactory(username="adj")
    MembershipFactory(project=project, user=adjudicator, role=Membership.Role.ADJUDICATOR)
    assert adjudication_rule_set(project=project, rule=AdjudicationRule(True, None)) == 1
    case = adjudication_next(project_id=project.pk, adjudicator=adjudicator)
    # "A" is the item's first output as imported (bart): the adjudicator says bart wins
    adjudication_submit(adjudicator=adjudicator, case_id=case.pk, values=[{"criterion": "overall", "value": "A"}])

    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",)), destination=path)
    files = read_zip(path)

    rows = jsonl(files["data/judgments.jsonl"])
    assert sorted((r["item"], r["value"], r["adjudicated"]) for r in rows) == [
        ("agreed", "tie", None),
        ("agreed", "tie", None),
        ("split", "bart", "bart"),
        ("split", "t5", "bart"),
    ]
    assert "`adjudicated`" in files["README.md"].decode() or "adjudicated" in files["README.md"].decode()


def test_a_project_without_adjudication_has_no_adjudicated_column(tmp_path):
    project = _pairwise_with_a_split_item()

    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",)), destination=path)

    rows = jsonl(read_zip(path)["data/judgments.jsonl"])
    assert rows and all("adjudicated" not in r for r in rows)


def _esa_with_split_items():
    """Two subgroups, an item in each whose two raters marked errors that do not overlap, and a calm item."""
    project = ProjectFactory(task_type="esa", criteria=["quality"])
    raters = [UserFactory(username=f"esa-r{k}") for k in range(2)]
    for name, subgroup, marks in (
        ("news-split", "news", ((0, 2), (5, 9))),
        ("chat-split", "chat", ((3, 4), (6, 8))),
        ("calm", "news", ((0, 3), (1, 2))),
    ):
        item = ItemFactory(project=project, external_id=name, subgroup=subgroup, systems=["mt"])
        item.outputs.update(text="Le chat est assis.")
        for rater, (start, end) in zip(raters, marks, strict=True):
            judgment = JudgmentFactory(item=item, rater=rater, value=50.0)
            ErrorSpan.objects.create(judgment=judgment, start=start, end=end, severity="minor")
    return project


def test_the_spans_table_carries_the_adjudicated_spans_flagged_after_the_raters_of_each_subgroup(tmp_path):
    project = _esa_with_split_items()
    adjudicator = UserFactory(username="adj")
    MembershipFactory(project=project, user=adjudicator, role=Membership.Role.ADJUDICATOR)
    assert adjudication_rule_set(project=project, rule=AdjudicationRule(True, None)) == 2
    for _ in range(2):
        case = adjudication_next(project_id=project.pk, adjudicator=adjudicator)
        [pooled] = adjudication_screen(case)["item"]["outputs"]
        # the first rater's span kept, the second's rejected
        first, second = pooled["proposed_spans"]
        answer = {
            "score": 30,
            "spans": [
                {**first, "origin": "accepted", "proposal": 0},
                {**second, "origin": "rejected", "proposal": 1},
            ],
        }
        adjudication_submit(
            adjudicator=adjudicator, case_id=case.pk, values=[{"criterion": "quality", "value": answer}]
        )

    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",), split="subgroup"), destination=path)
    files = read_zip(path)

    spans = {name: jsonl(files[name]) for name in files if name.startswith("data/spans/")}
    assert sorted(spans) == ["data/spans/chat.jsonl", "data/spans/news.jsonl"]
    news = [
        (r["item"], r["rater"] is None, r["start"], r["origin"], r["adjudicated"])
        for r in spans["data/spans/news.jsonl"]
    ]
    assert news == [
        ("news-split", False, 0, "added", False),
        ("news-split", False, 5, "added", False),
        ("calm", False, 0, "added", False),
        ("calm", False, 1, "added", False),
        ("news-split", True, 0, "accepted", True),
        ("news-split", True, 5, "rejected", True),
    ]
    assert [(r["start"], r["adjudicated"]) for r in spans["data/spans/chat.jsonl"]] == [
        (3, False),
        (6, False),
        (3, True),
        (6, True),
    ]
    judgments = [r for name in files if name.startswith("data/judgments/") for r in jsonl(files[name])]
    assert sorted((r["item"], r["adjudicated"]) for r in judgments) == [
        ("calm", None),
        ("calm", None),
        ("chat-split", 30.0),
        ("chat-split", 30.0),
        ("news-split", 30.0),
        ("news-split", 30.0),
    ]
    card = files["README.md"].decode()
    assert "The span is the adjudicator's (rater empty)" in card
