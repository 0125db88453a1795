"""Creating a draft from the wizard and editing a project's settings: the same rules as the API, and what
is fixed once raters have started."""

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Criterion, Item, Project
from annotation.services import project_create
from audit.models import AuditEntry
from console.services import project_settings_update
from tests.annotation.factories import ItemFactory, JudgmentFactory, UserFactory

pytestmark = pytest.mark.django_db

LIKERT = [
    {"name": "fluency", "scale_min": 1, "scale_max": 5, "labels": ["a", "b", "c", "d", "e"]},
    {"name": "coherence", "scale_min": 1, "scale_max": 3},
]


def _settings(**overrides):
    return {
        "name": "study",
        "task_type": "likert",
        "instructions": "Judge.",
        "raters_per_item": 2,
        "double_annotation_share": 0.5,
        "gold_rate": 0.1,
        "lease_seconds": 600,
        "show_reference": False,
        "randomise_output_order": False,
        **overrides,
    }


def _draft(*, actor, settings, criteria):
    """A draft as the wizard makes it."""
    return project_create(created_by=actor, criteria=criteria, status=Project.Status.DRAFT, **settings)


def _specs(project):
    return [
        {
            "id": c.pk,
            "name": c.name,
            "scale_min": c.scale_min,
            "scale_max": c.scale_max,
            "labels": c.labels,
            "help_text": c.help_text,
        }
        for c in project.criteria.all()
    ]


def test_create_makes_a_draft_led_by_its_creator_and_audits_it():
    user = UserFactory()
    project = _draft(actor=user, settings=_settings(), criteria=LIKERT)
    assert project.status == Project.Status.DRAFT and project.randomise_output_order is False
    assert project.memberships.get().user == user
    assert [c.name for c in project.criteria.all()] == ["fluency", "coherence"]
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.actor, entry.detail["criteria"]) == ("project.create", user, ["fluency", "coherence"])


@pytest.mark.parametrize(
    ("settings", "criteria", "field", "message"),
    [
        ({"gold_rate": 1.0}, LIKERT, "gold_rate", "gold_rate must be between 0 and 0.99, got 1"),
        ({"lease_seconds": 5}, LIKERT, "lease_seconds", "lease_seconds must be between 30 and 604800, got 5"),
        ({"task_type": "ranking"}, LIKERT, "task_type", "unknown task type 'ranking'"),
        ({}, [], "criteria", "a project needs at least one criterion"),
        ({}, [{"name": "x", "scale_min": 1, "scale_max": 1.5}], "criteria", "scale_max must be a whole number"),
        (
            {},
            [{"name": "x", "scale_min": 1, "scale_max": 3, "labels": ["a"]}],
            "criteria",
            "give one label per scale point (3), got 1",
        ),
    ],
)
def test_create_refuses_what_the_api_refuses_and_writes_nothing(settings, criteria, field, message):
    with pytest.raises(ValidationError) as caught:
        _draft(actor=UserFactory(), settings=_settings(**settings), criteria=criteria)
    assert message in " ".join(caught.value.message_dict[field])
    assert not Project.objects.exists() and not AuditEntry.objects.exists()


def test_criterion_errors_name_their_row_and_field():
    criteria = [LIKERT[0], {"name": "coherence", "scale_min": 1, "scale_max": 3, "labels": ["a"]}]
    with pytest.raises(ValidationError) as caught:
        _draft(actor=UserFactory(), settings=_settings(), criteria=criteria)
    (error,) = caught.value.error_dict["criteria"]
    assert error.params == {"row": 1, "field": "labels"}


def test_update_edits_settings_renames_swaps_adds_and_removes_criteria_before_judging():
    user = UserFactory()
    project = _draft(
        actor=user, settings=_settings(), criteria=LIKERT + [{"name": "relevance", "scale_min": 1, "scale_max": 5}]
    )
    fluency, coherence, _ = _specs(project)
    # Given: fluency and coherence swap names and order, relevance goes, a new criterion comes.
    criteria = [
        {**coherence, "name": "fluency"},
        {**fluency, "name": "coherence", "scale_max": 4, "labels": []},
        {"name": "overall", "scale_min": 1, "scale_max": 7},
    ]
    project_settings_update(
        project=project, actor=user, settings=_settings(gold_rate=0.2, name="study 2"), criteria=criteria
    )
    project.refresh_from_db()
    assert (project.name, project.gold_rate) == ("study 2", 0.2)
    rows = [(c.pk, c.name, c.scale_max, c.position) for c in project.criteria.all()]
    assert rows[:2] == [(coherence["id"], "fluency", 3.0, 0), (fluency["id"], "coherence", 4.0, 1)]
    assert rows[2][1:] == ("overall", 7.0, 2) and Criterion.objects.count() == 3
    entry = AuditEntry.objects.filter(action="project.update").get()
    assert entry.detail["changed"] == {"name": "study 2", "gold_rate": 0.2}
    assert entry.detail["criteria"]["removed"] == ["relevance"] and entry.detail["criteria"]["added"] == ["overall"]


def test_update_replans_item_targets_when_the_overlap_changes_before_judging():
    user = UserFactory()
    project = _draft(actor=user, settings=_settings(double_annotation_share=0.0), criteria=LIKERT)
    for n in range(4):
        ItemFactory(project=project, external_id=f"i{n}")
    project_settings_update(
        project=project,
        actor=user,
        settings=_settings(raters_per_item=3, double_annotation_share=0.5),
        criteria=_specs(project),
    )
    assert sorted(Item.objects.values_list("n_target", flat=True)) == [1, 1, 3, 3]


def test_once_judgments_exist_task_type_scales_and_the_criteria_list_are_fixed():
    user = UserFactory()
    project = _draft(actor=user, settings=_settings(), criteria=LIKERT)
    JudgmentFactory(item=ItemFactory(project=project))
    fluency, coherence = _specs(project)
    with pytest.raises(ValidationError) as caught:
        project_settings_update(
            project=project,
            actor=user,
            settings=_settings(task_type="rankme", raters_per_item=5),
            criteria=[
                {**fluency, "scale_min": 0, "scale_max": 100, "labels": []},
                {"name": "new", "scale_min": 0, "scale_max": 100},
            ],
        )
    errors = caught.value.message_dict
    assert errors["task_type"] == ["The task type cannot change once the project has judgments."]
    assert "Raters per item cannot change" in errors["raters_per_item"][0]
    assert any("'fluency': its scale cannot change" in m for m in errors["criteria"])
    assert any("'coherence' cannot be removed" in m for m in errors["criteria"])
    assert any("'new' cannot be added" in m for m in errors["criteria"])
    project.refresh_from_db()
    assert project.task_type == "likert" and project.criteria.count() == 2


def test_once_judgments_exist_wording_can_still_change():
    user = UserFactory()
    project = _draft(actor=user, settings=_settings(), criteria=LIKERT)
    JudgmentFactory(item=ItemFactory(project=project))
    fluency, coherence = _specs(project)
    project_settings_update(
        project=project,
        actor=user,
        settings=_settings(instructions="Better words."),
        criteria=[
            {**coherence, "help_text": "Does it hang together?"},
            {**fluency, "name": "fluency (grammar)", "labels": list("vwxyz")},
        ],
    )
    assert [(c.name, c.labels) for c in project.criteria.all()] == [
        ("coherence", []),
        ("fluency (grammar)", list("vwxyz")),
    ]


def test_criterion_ids_of_another_project_are_refused():
    user = UserFactory()
    project = _draft(actor=user, settings=_settings(), criteria=LIKERT)
    other = _draft(actor=user, settings=_settings(name="other"), criteria=LIKERT)
    with pytest.raises(ValidationError, match="is not one of this project's"):
        project_settings_update(project=project, actor=user, settings=_settings(), criteria=_specs(other))


def test_a_share_that_only_went_through_percent_rounding_is_no_change_once_started():
    user = UserFactory()
    project = _draft(actor=user, settings=_settings(double_annotation_share=1 / 3), criteria=LIKERT)
    JudgmentFactory(item=ItemFactory(project=project))
    project_settings_update(
        project=project, actor=user, settings=_settings(double_annotation_share=0.333333), criteria=_specs(project)
    )
    project.refresh_from_db()
    assert project.double_annotation_share == 1 / 3


def test_a_modulus_needs_a_reference_on_every_item_already_imported():
    user = UserFactory()
    project = _draft(
        actor=user,
        settings=_settings(task_type="rankme"),
        criteria=[{"name": "quality", "scale_min": 0, "scale_max": 100, "labels": ["Worst", "Best"]}],
    )
    ItemFactory(project=project, references=[])
    with pytest.raises(ValidationError) as refused:
        project_settings_update(
            project=project,
            actor=user,
            settings=_settings(task_type="rankme", rankme_modulus=100),
            criteria=_specs(project),
        )
    assert "no reference" in refused.value.message_dict["rankme_modulus"][0]
    project.refresh_from_db()
    assert project.rankme_modulus is None
