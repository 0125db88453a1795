"""Cloning a project for a new round: settings, criteria, instructions and rules, optionally the items,
never the judgments, assignments or raters."""

import io
import json

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Item, Judgment, Membership, Output, Project, ProposedSpan, QcRules
from annotation.services import item_import, project_create
from audit.models import AuditEntry
from console.services import project_clone
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def source():
    project = ProjectFactory(
        name="round 1",
        criteria=["fluency", "coherence"],
        instructions="**Read** first.",
        raters_per_item=3,
        gold_rate=0.1,
        lease_seconds=1200,
        randomise_output_order=False,
        status="closed",
    )
    project.criteria.filter(name="fluency").update(labels=list("abcde"), help_text="well written?")
    MembershipFactory(project=project, role=Membership.Role.RATER)
    QcRules.objects.create(project=project, version=2, gold_accuracy_threshold=0.8, action="pause")
    item = ItemFactory(project=project, external_id="a", subgroup="news", systems=["s1", "s2"], n_target=3)
    ItemFactory(project=project, external_id="g", gold={"fluency": {"s1": 4}}, n_target=0)
    ItemFactory(project=project, external_id="a-degraded", degraded_from=item)
    JudgmentFactory(item=item)
    return project


def test_clone_without_items_copies_settings_criteria_and_rules_as_a_draft(source):
    cloner = UserFactory()
    clone = project_clone(project=source, actor=cloner, name="round 2")
    assert (clone.name, clone.status, clone.task_type) == ("round 2", Project.Status.DRAFT, "likert")
    assert (
        clone.instructions,
        clone.raters_per_item,
        clone.gold_rate,
        clone.lease_seconds,
        clone.randomise_output_order,
    ) == ("**Read** first.", 3, 0.1, 1200, False)
    assert [(c.name, c.labels, c.help_text, c.scale_max) for c in clone.criteria.all()] == [
        ("fluency", list("abcde"), "well written?", 5.0),
        ("coherence", [], "", 5.0),
    ]
    assert list(clone.memberships.values_list("user", "role")) == [(cloner.pk, "lead")]
    rules = QcRules.objects.get(project=clone)
    assert (rules.version, rules.gold_accuracy_threshold, rules.action) == (1, 0.8, "pause")
    assert not clone.items.exists()
    created = AuditEntry.objects.get(project=clone, action="project.create")
    assert (created.actor, created.detail["status"], created.detail["criteria"]) == (
        cloner,
        "draft",
        ["fluency", "coherence"],
    )
    entry = AuditEntry.objects.get(project=clone, action="project.clone")
    assert entry.detail == {"source_project": source.pk, "with_items": False, "n_items": 0}


def test_clone_with_items_copies_outputs_gold_and_subgroups_but_no_judgment(source):
    clone = project_clone(project=source, actor=UserFactory(), name="round 2", with_items=True)
    items = {i.external_id: i for i in clone.items.all()}
    assert set(items) == {"a", "g"}  # not the degraded copy
    assert (items["a"].subgroup, items["a"].n_target, items["a"].n_judged) == ("news", 3, 0)
    assert items["g"].gold == {"fluency": {"s1": 4}}
    assert list(Output.objects.filter(item=items["a"]).values_list("position", "system", "text")) == [
        (0, "s1", "s1 on a"),
        (1, "s2", "s2 on a"),
    ]
    assert not Judgment.objects.filter(project=clone).exists() and not clone.assignments.exists()
    assert Item.objects.filter(project=source).count() == 3  # the source is untouched


def test_clone_needs_a_name(source):
    with pytest.raises(ValidationError) as caught:
        project_clone(project=source, actor=UserFactory(), name="")
    assert "name" in caught.value.message_dict
    assert Project.objects.count() == 1


@pytest.mark.parametrize(
    ("source_change", "field", "message"),
    [
        ({"lease_seconds": 5}, "lease_seconds", "lease_seconds must be between 30 and 604800, got 5"),
        ({"raters_per_item": 101}, "raters_per_item", "raters_per_item must be between 1 and 100, got 101"),
    ],
)
def test_clone_refuses_settings_a_new_project_could_not_have(source, source_change, field, message):
    Project.objects.filter(pk=source.pk).update(**source_change)  # saved before today's limits
    source.refresh_from_db()
    with pytest.raises(ValidationError) as caught:
        project_clone(project=source, actor=UserFactory(), name="round 2")
    assert message in " ".join(caught.value.message_dict[field])
    assert Project.objects.count() == 1


def test_clone_checks_criteria_as_a_new_project_does(source):
    source.criteria.filter(name="coherence").update(labels=["only one"])
    with pytest.raises(ValidationError) as caught:
        project_clone(project=source, actor=UserFactory(), name="round 2")
    assert "give one label per scale point (5), got 1" in " ".join(caught.value.message_dict["criteria"])
    assert Project.objects.count() == 1


def test_an_mqm_clone_keeps_its_typology_weights_and_the_models_proposed_spans():
    lead = UserFactory(username="mqm-lead")
    config = {"typology": [{"name": "Meaning"}, {"name": "Form", "children": ["Spelling"]}], "weights": [{"weight": 2}]}
    source = project_create(
        created_by=lead, name="mqm round 1", task_type="mqm", criteria=[{"name": "errors"}], task_config=config
    )
    line = {
        "external_id": "s1",
        "input": "Der Hund.",
        "outputs": [
            {
                "system": "mt",
                "text": "The dgo.",
                "proposed_spans": [{"start": 4, "end": 7, "severity": "minor", "category": "Form/Spelling"}],
            }
        ],
    }
    item_import(project=source, stream=io.BytesIO(json.dumps(line).encode()))
    clone = project_clone(project=source, actor=lead, name="mqm round 2", with_items=True)
    assert clone.task_config == source.task_config and clone.task_config["weights"] == [{"weight": 2.0}]
    assert list(
        ProposedSpan.objects.filter(output__item__project=clone).values_list("start", "end", "severity", "category")
    ) == [(4, 7, "minor", "Form/Spelling")]
