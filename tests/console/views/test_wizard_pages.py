"""The wizard and settings pages: field-level errors beside the fields, the no-JS buttons, saving through
the services, CSRF, and who may open them."""

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from annotation.models import Criterion, Membership, Project
from annotation.task_types import REGISTRY
from audit.models import AuditEntry
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def creator(db):
    user = UserFactory(username="creator")
    user.user_permissions.add(Permission.objects.get(codename="add_project"))
    return user


def wizard_post(**overrides) -> dict:
    data = {
        "name": "Summaries round 1",
        "task_type": "likert",
        "instructions": "## Read\n\nThen **judge**.",
        "raters_per_item": "2",
        "double_annotation_share": "50",
        "gold_rate": "10",
        "lease_minutes": "15",
        "randomise_output_order": "on",
        "criteria-TOTAL_FORMS": "2",
        "criteria-INITIAL_FORMS": "0",
        "criteria-MIN_NUM_FORMS": "0",
        "criteria-MAX_NUM_FORMS": "1000",
        "criteria-0-name": "fluency",
        "criteria-0-scale_min": "1",
        "criteria-0-scale_max": "5",
        "criteria-0-labels": "bad\npoor\nok\ngood\ngreat",
        "criteria-0-help_text": "Is it well written?",
        "criteria-0-ORDER": "2",
        "criteria-1-name": "coherence",
        "criteria-1-scale_min": "1",
        "criteria-1-scale_max": "3",
        "criteria-1-labels": "",
        "criteria-1-ORDER": "1",
        "action": "save",
    }
    data.update(overrides)
    return data


def test_a_creator_sees_the_new_project_entry_and_the_wizard(client, creator):
    client.force_login(creator)
    assert b'href="/projects/new/"' in client.get("/").content
    page = client.get("/projects/new/").content.decode()
    assert 'name="criteria-0-name"' in page and "Overall quality" in page
    assert 'id="preview-frame"' in page and "Preview: this is the screen raters see" in page


def test_the_wizard_creates_a_draft_with_ordered_criteria_and_an_audit_entry(client, creator):
    client.force_login(creator)
    response = client.post("/projects/new/", wizard_post())
    project = Project.objects.get(name="Summaries round 1")
    assert response.status_code == 302 and response["Location"] == f"/projects/{project.pk}/"
    assert project.status == "draft" and project.gold_rate == pytest.approx(0.1)
    assert project.double_annotation_share == pytest.approx(0.5) and project.lease_seconds == 900
    assert [(c.name, c.scale_max, c.labels) for c in project.criteria.all()] == [
        ("coherence", 3.0, []),
        ("fluency", 5.0, ["bad", "poor", "ok", "good", "great"]),
    ]
    assert Membership.objects.get(project=project).user == creator
    entry = AuditEntry.objects.get(project=project)
    assert entry.action == "project.create" and entry.actor == creator


def test_errors_are_shown_beside_their_fields_and_nothing_is_saved(client, creator):
    client.force_login(creator)
    response = client.post(
        "/projects/new/", wizard_post(name="", gold_rate="150", **{"criteria-1-labels": "only\ntwo"})
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="id_name_error"' in page and 'aria-invalid="true"' in page
    assert 'id="id_gold_rate_error"' in page and "less than or equal to 99" in page
    assert not Project.objects.exists()
    # The labels error comes from the task type's rule, shown on the coherence row (first in order).
    response = client.post("/projects/new/", wizard_post(**{"criteria-1-labels": "only\ntwo"}))
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="id_criteria-1-labels_error"' in page and "give one label per scale point (3), got 2" in page
    assert not Project.objects.exists()


def test_a_refused_form_comes_back_with_the_rows_in_the_order_given(client, creator):
    client.force_login(creator)
    page = client.post("/projects/new/", wizard_post(name="")).content.decode()
    # coherence (row 1) was given position 1, fluency (row 0) position 2
    assert page.index('name="criteria-1-name"') < page.index('name="criteria-0-name"')


def test_duplicate_criterion_names_are_refused_on_the_row(client, creator):
    client.force_login(creator)
    response = client.post("/projects/new/", wizard_post(**{"criteria-1-name": "fluency"}))
    assert response.status_code == 400
    assert "is named twice" in response.content.decode()
    assert not Project.objects.exists()


def test_add_a_criterion_without_javascript_adds_an_empty_row(client, creator):
    client.force_login(creator)
    response = client.post("/projects/new/", wizard_post(action="add-criterion"))
    assert response.status_code == 200
    assert 'name="criteria-2-name"' in response.content.decode()
    assert not Project.objects.exists()


def test_update_the_preview_without_javascript_rerenders_the_page_and_saves_nothing(client, creator):
    client.force_login(creator)
    response = client.post("/projects/new/", wizard_post(action="preview", instructions="Read *slowly*."))
    page = response.content.decode()
    assert response.status_code == 200
    assert "&lt;legend&gt;coherence" in page and "&lt;legend&gt;fluency" in page  # inside the iframe's srcdoc
    assert "<p>Read <em>slowly</em>.</p>" in page
    assert not Project.objects.exists()


def test_removed_rows_are_not_saved(client, creator):
    client.force_login(creator)
    client.post("/projects/new/", wizard_post(**{"criteria-1-DELETE": "on"}))
    assert list(Project.objects.get().criteria.values_list("name", flat=True)) == ["fluency"]


def test_the_wizard_needs_the_right_to_create_projects(client, lead, project):
    client.force_login(lead)
    assert client.get("/projects/new/").status_code == 403
    assert client.post("/projects/new/", wizard_post()).status_code == 403
    assert b'href="/projects/new/"' not in client.get("/").content


def test_the_wizard_requires_a_csrf_token(creator):
    client = Client(enforce_csrf_checks=True)
    client.force_login(creator)
    assert client.post("/projects/new/", wizard_post()).status_code == 403
    assert not Project.objects.exists()


def _settings_post(project, **overrides) -> dict:
    rows = list(project.criteria.all())
    data = wizard_post(
        name=project.name, **{"criteria-TOTAL_FORMS": str(len(rows)), "criteria-INITIAL_FORMS": str(len(rows))}
    )
    for key in [k for k in data if k.startswith(("criteria-0-", "criteria-1-"))]:
        del data[key]
    for n, c in enumerate(rows):
        data.update(
            {
                f"criteria-{n}-id": str(c.pk),
                f"criteria-{n}-name": c.name,
                f"criteria-{n}-scale_min": f"{c.scale_min:g}",
                f"criteria-{n}-scale_max": f"{c.scale_max:g}",
                f"criteria-{n}-labels": "\n".join(c.labels),
                f"criteria-{n}-ORDER": str(n + 1),
            }
        )
    data.update(overrides)
    return data


def test_a_lead_edits_settings_and_renames_a_criterion(client, lead, project):
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/settings/").content.decode()
    assert 'value="fluency"' in page
    response = client.post(
        f"/projects/{project.pk}/settings/",
        _settings_post(project, instructions="New *words*", **{"criteria-0-name": "fluency (grammar)"}),
    )
    assert response.status_code == 302
    project.refresh_from_db()
    assert project.instructions == "New *words*"
    assert list(project.criteria.values_list("name", flat=True)) == ["fluency (grammar)", "coherence"]
    assert AuditEntry.objects.filter(project=project, action="project.update").exists()


def test_scale_and_task_type_changes_are_refused_once_judgments_exist(client, lead, project):
    JudgmentFactory(item=ItemFactory(project=project))
    client.force_login(lead)
    response = client.post(
        f"/projects/{project.pk}/settings/",
        _settings_post(project, task_type="rankme", **{"criteria-0-scale_max": "7"}),
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "The task type cannot change once the project has judgments." in page
    assert 'id="id_criteria-0-scale_max_error"' in page and "its scale cannot change" in page
    assert list(Criterion.objects.filter(project=project).values_list("scale_max", flat=True)) == [5.0, 5.0]


def test_settings_are_for_leads_only(client, rater, project):
    client.force_login(rater)
    assert client.get(f"/projects/{project.pk}/settings/").status_code == 403
    client.force_login(UserFactory(username="outsider"))
    assert client.get(f"/projects/{project.pk}/settings/").status_code == 404


def test_the_preview_endpoint_renders_the_rater_screen_from_unsaved_settings(client, lead, project):
    ItemFactory(project=project, external_id="doc-1", input="The input text of doc one")
    client.force_login(lead)
    response = client.post(
        f"/projects/{project.pk}/settings/preview/",
        _settings_post(
            project, instructions="# Hello\n\n<script>alert(1)</script>", **{"criteria-0-name": "Grammar now"}
        ),
    )
    assert response.status_code == 200
    preview = response.json()
    assert "Grammar now" in preview["screen"] and "The input text of doc one" in preview["screen"]
    assert (
        'id="rate-submit" disabled' in preview["screen"]
        and "rate-submit" not in preview["screen"].split('id="rate-form"')[0].rsplit("<form", 1)[-1]
    )
    assert preview["instructions"].startswith("<h1>Hello</h1>") and "<script>" not in preview["instructions"]
    assert preview["items"] == ["Item doc-1"]
    assert list(project.criteria.values_list("name", flat=True)) == ["fluency", "coherence"]


def test_the_preview_of_a_new_project_uses_a_sample_item_and_skips_bad_rows(client, creator):
    client.force_login(creator)
    response = client.post(
        "/projects/new/preview/", wizard_post(task_type="pairwise", **{"criteria-1-name": "fluency"})
    )
    preview = response.json()
    assert "tram line" in preview["screen"] and "A is better" in preview["screen"]
    assert preview["notes"] == ["criterion 'fluency' is named twice: the preview shows it once"]
    assert preview["screen"].count("which output is better") == 1


def test_the_preview_offers_the_first_three_ordinary_items_and_shows_the_one_picked(client, lead, project):
    for n in range(4):
        ItemFactory(project=project, external_id=f"doc-{n}", input=f"text of doc {n}")
    ItemFactory(project=project, external_id="gold-1", gold={"fluency": {"sysA": 3}}, n_target=0)
    client.force_login(lead)
    preview = client.post(f"/projects/{project.pk}/settings/preview/", _settings_post(project, preview_item="2")).json()
    assert preview["items"] == ["Item doc-0", "Item doc-1", "Item doc-2"] and preview["item"] == 2
    assert "text of doc 2" in preview["screen"] and "text of doc 0" not in preview["screen"]


RANKME_ROWS = {
    "task_type": "rankme",
    "criteria-TOTAL_FORMS": "1",
    "criteria-0-name": "quality",
    "criteria-0-scale_min": "0",
    "criteria-0-scale_max": "100",
    "criteria-0-labels": "Worst\nBest",
}


def test_the_wizard_sets_a_rankme_modulus_and_previews_the_reference_scored_by_it(client, creator):
    client.force_login(creator)
    preview = client.post("/projects/new/preview/", wizard_post(**RANKME_ROWS, rankme_modulus="100")).json()
    assert "score 100" in preview["screen"] and "Council extends the tram line" in preview["screen"]
    assert 'data-scale="log"' in preview["screen"]
    assert client.post("/projects/new/", wizard_post(**RANKME_ROWS, rankme_modulus="100")).status_code == 302
    assert Project.objects.get(name="Summaries round 1").rankme_modulus == 100


def test_clearing_the_modulus_of_a_rankme_project_clears_it_in_the_preview(client, lead):
    project = ProjectFactory(name="rankme study", task_type="rankme", criteria=["quality"], rankme_modulus=100)
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    client.force_login(lead)
    url = f"/projects/{project.pk}/settings/preview/"
    kept = client.post(url, _settings_post(project, task_type="rankme", rankme_modulus="100")).json()
    cleared = client.post(url, _settings_post(project, task_type="rankme", rankme_modulus="")).json()
    assert 'data-scale="log"' in kept["screen"]
    assert 'data-scale="log"' not in cleared["screen"] and "score 100" not in cleared["screen"]


def test_a_modulus_on_a_likert_project_is_refused_beside_its_field(client, creator):
    client.force_login(creator)
    response = client.post("/projects/new/", wizard_post(rankme_modulus="100"))
    assert response.status_code == 400 and not Project.objects.exists()
    assert "only a rankme project takes a modulus" in response.content.decode()


@pytest.mark.parametrize(("task_type", "shown"), [("esa", "then give the 0–100 score"), ("mqm", "Non-translation")])
def test_an_error_span_project_is_previewed_and_made_with_its_type_defaults(client, creator, task_type, shown):
    client.force_login(creator)
    one = {
        "task_type": task_type,
        "criteria-TOTAL_FORMS": "1",
        "criteria-0-scale_min": "",
        "criteria-0-scale_max": "",
        "criteria-0-labels": "",
    }
    preview = client.post("/projects/new/preview/", wizard_post(**one)).json()
    assert "tram line" in preview["screen"] and "error-spans" in preview["screen"] and shown in preview["screen"]
    assert 'id="rate-submit" disabled' in preview["screen"]
    saved = client.post("/projects/new/", wizard_post(name=f"{task_type} round", **one))
    assert saved.status_code == 302, saved.content.decode()[:2000]
    project = Project.objects.get(name=f"{task_type} round")
    assert project.task_config == REGISTRY[task_type].normalise_config(None)
    assert list(project.criteria.values_list("name", flat=True)) == ["fluency"]


def test_the_wizard_sets_what_each_criterion_rates_and_refuses_turns_for_types_that_rate_whole_outputs(client, creator):
    client.force_login(creator)
    page = client.get("/projects/new/").content.decode()
    assert 'name="rating_unit"' in page and "each assistant turn on its own" in page
    response = client.post("/projects/new/", wizard_post(rating_unit="both"))
    assert response.status_code == 302
    assert Project.objects.get(name="Summaries round 1").rating_unit == "both"
    refused = client.post(
        "/projects/new/",
        wizard_post(name="Pairs", task_type="pairwise", rating_unit="turn", **{"criteria-1-scale_max": "5"}),
    )
    assert refused.status_code == 400 and not Project.objects.filter(name="Pairs").exists()
    page = refused.content.decode()
    assert 'id="id_rating_unit_error"' in page and "rates whole outputs only" in page


def test_rating_per_turn_is_refused_for_a_project_whose_outputs_are_plain_text(client, lead, project):
    ItemFactory(project=project)
    client.force_login(lead)
    response = client.post(f"/projects/{project.pk}/settings/", _settings_post(project, rating_unit="turn"))
    assert response.status_code == 400 and "Some outputs are plain text" in response.content.decode()
    project.refresh_from_db()
    assert project.rating_unit == "conversation"
