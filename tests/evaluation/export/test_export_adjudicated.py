"""The adjudicated answer is exported as its own column of the judgments table, beside the raw judgments."""

import pytest

from annotation.models import Membership
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
