"""Every lead and staff action lands in the audit log with its actor, target and detail, through the web
page, the API and the management commands alike, in the action's own transaction: a refused action
leaves no entry."""

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import Client

from agreement.services import agreement_recompute_start
from annotation.models import Item, Judgment, Membership, Project
from annotation.services import item_import, qc_rules_update, rater_pause
from audit.models import ACTIONS, AuditEntry
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, UserFactory
from tests.annotation.import_lines import item, jsonl
from tests.conftest import client_for
from tests.evaluation.export.studies import likert_study

pytestmark = pytest.mark.django_db


def entry(action, project=None) -> AuditEntry:
    """The one entry of ``action`` (of ``project`` when given); fails when there are none or several."""
    entries = AuditEntry.objects.filter(action=action)
    if project is not None:
        entries = entries.filter(project=project)
    (found,) = entries
    assert found.action in ACTIONS, "document every action name in audit.models.ACTIONS"
    return found


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ndjson(*records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


# --- projects, members, accounts -------------------------------------------------------------------------


def test_project_create_through_the_api(staff):
    response = client_for(staff).post(
        "/api/v1/projects/",
        {
            "name": "audited",
            "task_type": "likert",
            "raters_per_item": 2,
            "criteria": [{"name": "fluency", "scale_min": 1, "scale_max": 5}],
        },
        format="json",
    )
    assert response.status_code == 201
    found = entry("project.create")
    assert (found.project_id, found.actor, found.actor_name, found.target) == (
        response.json()["id"],
        staff,
        "staff",
        "audited",
    )
    assert found.detail["task_type"] == "likert" and found.detail["criteria"] == ["fluency"]
    assert found.detail["raters_per_item"] == 2
    assert (found.source, found.ip, found.project_name) == ("api", "127.0.0.1", "audited")


def test_a_refused_project_create_leaves_no_entry(staff):
    response = client_for(staff).post(
        "/api/v1/projects/",
        {"name": "twice", "task_type": "likert", "criteria": [{"name": "a"}, {"name": "a"}]},
        format="json",
    )
    assert response.status_code == 400
    assert not AuditEntry.objects.exists() and not Project.objects.filter(name="twice").exists()


def test_member_add_and_role_change_through_the_api(project, lead, lead_client):
    UserFactory(username="newbie")
    url = f"/api/v1/projects/{project.pk}/members/"
    assert lead_client.post(url, {"username": "newbie", "role": "rater"}, format="json").status_code == 201
    added = entry("member.add", project)
    assert (added.actor, added.target, added.detail) == (lead, "newbie", {"role": "rater"})
    # The same role again changes nothing and logs nothing; another role is a change
    lead_client.post(url, {"username": "newbie", "role": "rater"}, format="json")
    lead_client.post(url, {"username": "newbie", "role": "lead"}, format="json")
    changed = entry("member.role_change", project)
    assert (changed.target, changed.detail) == ("newbie", {"changed": {"role": ["rater", "lead"]}})
    assert AuditEntry.objects.filter(action__startswith="member.").count() == 2


def test_user_create_by_staff(staff):
    response = client_for(staff).post(
        "/api/v1/users/", {"username": "fresh", "password": "a-Long-pass-9871"}, format="json"
    )
    assert response.status_code == 201
    found = entry("user.create")
    assert (found.actor, found.project, found.target, found.detail) == (staff, None, "fresh", {"is_staff": False})


# --- imports -----------------------------------------------------------------------------------------------


def test_item_import_through_the_api_names_the_file(project, lead, lead_client):
    upload = SimpleUploadedFile("batch-1.jsonl", ndjson(item("a"), item("b")))
    response = lead_client.post(f"/api/v1/projects/{project.pk}/items/import/", {"file": upload}, format="multipart")
    assert response.status_code == 201
    found = entry("items.import", project)
    assert (found.actor, found.target, found.detail) == (lead, "batch-1.jsonl", {"imported": 2, "format": "jsonl"})


def test_a_bad_import_leaves_no_entry(project, lead_client):
    response = lead_client.post(
        f"/api/v1/projects/{project.pk}/items/import/",
        ndjson(item("a"), {"external_id": "b"}),
        content_type="application/x-ndjson",
    )
    assert response.status_code == 400
    assert not AuditEntry.objects.exists() and not Item.objects.filter(project=project).exists()


def test_the_entry_is_rolled_back_with_its_action(project, lead):
    with pytest.raises(RuntimeError), transaction.atomic():
        item_import(project=project, stream=jsonl(item("a")), by=lead)
        raise RuntimeError("a later step of the same request fails")
    assert not AuditEntry.objects.exists() and not Item.objects.exists()


def test_item_upload_on_the_console_upload_page(project, lead):
    upload = SimpleUploadedFile("page.csv", b"external_id,input,output_1,system_1\nc1,in,out,sys\n")
    response = browser(lead).post(f"/projects/{project.pk}/items/upload/", {"file": upload})
    assert response.status_code == 302
    found = entry("items.import", project)
    assert (found.actor, found.target, found.detail, found.source) == (
        lead,
        "page.csv",
        {"imported": 1, "format": "csv"},
        "web",
    )


def test_import_commands_name_themselves_as_the_actor(project, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_bytes(ndjson(item("d1", ("bart",))))
    call_command("import_items", str(project.pk), str(items), "--no-progress", stdout=io.StringIO())
    found = entry("items.import", project)
    assert (found.actor, found.actor_name, found.source, found.ip, found.target) == (
        None,
        "manage.py import_items",
        "command",
        None,
        "items.jsonl",
    )

    judgments = tmp_path / "judgments.jsonl"
    judgments.write_bytes(
        ndjson(
            {"item": "d1", "rater": "w1", "criterion": "fluency", "system": "bart", "value": 4},
            {"item": "d1", "rater": "w2", "criterion": "coherence", "system": "bart", "value": 2},
        )
    )
    call_command("import_judgments", str(project.pk), str(judgments), "--no-progress", stdout=io.StringIO())
    found = entry("judgments.import", project)
    assert (found.actor_name, found.target, found.detail) == (
        "manage.py import_judgments",
        "judgments.jsonl",
        {"imported": 2, "raters": 2},
    )

    judgments.write_bytes(ndjson({"item": "nope", "rater": "w1", "criterion": "fluency", "value": 4}))
    with pytest.raises(CommandError):
        call_command(
            "import_judgments",
            str(project.pk),
            str(judgments),
            "--no-progress",
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    assert AuditEntry.objects.filter(action="judgments.import").count() == 1


def test_judgment_import_through_the_api(project, lead, lead_client):
    item_import(project=project, stream=jsonl(item("d1", ("bart",))))
    response = lead_client.post(
        f"/api/v1/projects/{project.pk}/judgments/import/",
        ndjson({"item": "d1", "rater": "w1", "criterion": "fluency", "system": "bart", "value": 4}),
        content_type="application/x-ndjson",
    )
    assert response.status_code == 201
    found = entry("judgments.import", project)
    assert (found.actor, found.target, found.detail) == (lead, "", {"imported": 1, "raters": 1})


# --- quality control ---------------------------------------------------------------------------------------


def test_rules_update_records_each_changed_rule_and_nothing_when_nothing_changes(project, lead, lead_client):
    url = f"/api/v1/projects/{project.pk}/qc/rules/"
    lead_client.put(url, {"gold_accuracy_threshold": 0.75, "action": "pause"}, format="json")
    first = entry("qc.rules_update", project)
    assert (first.actor, first.target) == (lead, "version 1")
    assert first.detail == {
        "version": 1,
        "changed": {"gold_accuracy_threshold": [None, 0.75], "action": [None, "pause"]},
    }
    JudgmentFactory(item=ItemFactory(project=project))
    lead_client.put(url, {"action": "pause"}, format="json")  # no change: no version, no entry
    lead_client.put(url, {"action": "exclude"}, format="json")
    second = AuditEntry.objects.filter(action="qc.rules_update").order_by("-id").first()
    assert second.detail == {"version": 2, "changed": {"action": ["pause", "exclude"]}}
    assert AuditEntry.objects.filter(action="qc.rules_update").count() == 2
    assert lead_client.put(url, {"action": "shout"}, format="json").status_code == 400
    assert AuditEntry.objects.filter(action="qc.rules_update").count() == 2


NOTHING_REPLANNED = {"leases_returned": 0, "judged_slots_returned": 0, "place": None}


@pytest.mark.parametrize("action", ["pause", "exclude"])
def test_a_leads_rater_action_through_the_api(project, rater, lead, lead_client, action):
    response = lead_client.post(
        f"/api/v1/projects/{project.pk}/qc/actions/",
        {"rater": "rater", "action": action, "reason": "random answers"},
        format="json",
    )
    assert response.status_code == 201
    found = entry(f"rater.{action}", project)
    # An exclusion also records what went back to the pool (nothing here: no lease, no place, no judgment)
    replan = {"replan": NOTHING_REPLANNED} if action == "exclude" else {}
    assert (found.actor, found.target, found.detail) == (lead, "rater", {"reason": "random answers", **replan})


def test_resume_and_include_on_the_rater_quality_page(project, rater, lead):
    rater_pause(project=project, rater=rater, by=lead, reason="first")
    client = browser(lead)
    for action in ("exclude", "include", "resume"):
        response = client.post(
            f"/projects/{project.pk}/raters/action/", {"action": action, "rater": rater.pk, "reason": f"why {action}"}
        )
        assert response.status_code == 302
    assert list(
        AuditEntry.objects.filter(project=project).order_by("id").values_list("action", "target", "detail", "source")
    ) == [
        ("rater.pause", "rater", {"reason": "first"}, "command"),
        ("rater.exclude", "rater", {"reason": "why exclude", "replan": NOTHING_REPLANNED}, "web"),
        ("rater.include", "rater", {"reason": "why include"}, "web"),
        ("rater.resume", "rater", {"reason": "why resume"}, "web"),
    ]


def test_a_refused_rater_action_leaves_no_entry(project, rater, lead_client):
    response = lead_client.post(
        f"/api/v1/projects/{project.pk}/qc/actions/",
        {"rater": "rater", "action": "pause", "reason": " "},
        format="json",
    )
    assert response.status_code == 400
    assert not AuditEntry.objects.exists()


def gold_failing_rater(project):
    """A rater who got four gold items wrong, and rules (pause below 0.8) saved after the judgments."""
    rater = MembershipFactory(project=project, user=UserFactory(username="sloppy"), role="rater").user
    for k in range(4):
        gold_item = ItemFactory(project=project, external_id=f"gold{k}", gold={"fluency": {"sysA": 5}}, n_target=0)
        JudgmentFactory(item=gold_item, rater=rater, value=1)
    qc_rules_update(project=project, min_gold_answered=2, gold_accuracy_threshold=0.8, action="pause")
    return rater


def test_qc_apply_records_the_actions_the_rules_took_but_a_rules_own_action_is_no_lead_action(
    project, lead, lead_client
):
    gold_failing_rater(project)
    AuditEntry.objects.all().delete()  # the rules saved without an actor above
    response = lead_client.post(f"/api/v1/projects/{project.pk}/qc/apply/")
    assert response.status_code == 200 and len(response.json()) == 1
    found = entry("qc.apply", project)
    assert (found.actor, found.target) == (lead, "version 1")
    assert found.detail == {"actions": [{"rater": "sloppy", "kind": "pause", "rule": "gold_accuracy"}]}
    assert not AuditEntry.objects.filter(action__startswith="rater.").exists()
    assert Membership.objects.get(user__username="sloppy").is_paused


def test_degraded_and_repeat_controls(project, lead, lead_client):
    for k in range(4):
        ItemFactory(project=project, external_id=f"doc{k}")
    base = f"/api/v1/projects/{project.pk}/qc/"
    response = lead_client.post(base + "degraded/", {"n": 2, "seed": 7, "methods": ["truncate"]}, format="json")
    assert response.status_code == 201
    found = entry("controls.degraded_create", project)
    assert (found.actor, found.target, found.detail) == (lead, "2 copies", {"n": 2, "seed": 7, "methods": ["truncate"]})
    assert lead_client.post(base + "repeats/", {"n": 3, "seed": 1}, format="json").status_code == 201
    found = entry("controls.repeat_create", project)
    assert (found.actor, found.detail) == (lead, {"n": 3, "seed": 1})
    assert lead_client.post(base + "repeats/", {"n": 3, "seed": 1}, format="json").status_code == 400  # seed taken
    assert AuditEntry.objects.filter(action="controls.repeat_create").count() == 1


# --- agreement -------------------------------------------------------------------------------------------


def test_agreement_settings_and_schedule_record_what_changed(project, lead, lead_client):
    url = f"/api/v1/projects/{project.pk}/agreement/settings/"
    body = {"alert_below": 0.5, "schedule": {"enabled": True, "day_of_week": "fri", "hour": 6}}
    assert lead_client.put(url, body, format="json").status_code == 200
    settings_entry = entry("agreement.settings_update", project)
    assert (settings_entry.actor, settings_entry.detail) == (lead, {"changed": {"alert_below": [0.4, 0.5]}})
    schedule = entry("agreement.schedule_set", project)
    assert schedule.detail == {"changed": {"enabled": [False, True], "day_of_week": ["mon", "fri"], "hour": [3, 6]}}
    lead_client.put(url, body, format="json")  # the same again: nothing changes, nothing is logged
    assert AuditEntry.objects.filter(action__startswith="agreement.").count() == 2


def test_recompute_requests_by_page_and_api_but_not_the_schedule(project, lead, lead_client):
    started = lead_client.post(f"/api/v1/projects/{project.pk}/agreement/recompute/")
    found = entry("agreement.recompute", project)
    assert (found.actor, found.detail, found.source) == (lead, {"job_id": started.json()["job_id"]}, "api")
    assert browser(lead).post(f"/projects/{project.pk}/agreement/recompute/").status_code == 302
    agreement_recompute_start(project=project, user=None)  # the weekly schedule
    assert list(
        AuditEntry.objects.filter(action="agreement.recompute").values_list("source", flat=True).order_by("id")
    ) == ["api", "web"]


# --- exports ---------------------------------------------------------------------------------------------


@pytest.fixture
def study(lead, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    study = likert_study(lead, n_items=6)
    AuditEntry.objects.all().delete()  # the study's own setup
    return study


def test_export_from_the_page_and_the_api(study, lead, lead_client):
    response = browser(lead).post(
        f"/projects/{study.pk}/export/", {"formats": ["jsonl"], "split": "all", "license": "mit"}
    )
    assert response.status_code == 302
    found = entry("export.create")
    assert (found.actor, found.source, found.detail["options"]["formats"], found.detail["options"]["license"]) == (
        lead,
        "web",
        ["jsonl"],
        "mit",
    )
    assert found.target == f"export {found.detail['export_id']}"
    started = lead_client.post(f"/api/v1/projects/{study.pk}/exports/", {"formats": ["csv"]}, format="json")
    assert started.status_code == 202
    latest = AuditEntry.objects.filter(action="export.create").order_by("-id").first()
    assert (latest.source, latest.detail["export_id"]) == ("api", started.json()["export_id"])
    assert (
        lead_client.post(f"/api/v1/projects/{study.pk}/exports/", {"formats": ["doc"]}, format="json").status_code
        == 400
    )
    assert AuditEntry.objects.filter(action="export.create").count() == 2


def test_export_and_reimport_commands(study, lead, tmp_path):
    path = tmp_path / "study.zip"
    call_command(
        "export_project",
        str(study.pk),
        "--output",
        str(path),
        "--format",
        "jsonl",
        "--no-progress",
        stdout=io.StringIO(),
    )
    found = entry("export.create", study)
    assert (found.actor_name, found.source, found.target) == ("manage.py export_project", "command", "study.zip")
    assert found.detail["n_judgments"] == 76 and found.detail["options"]["formats"] == ["jsonl"]

    call_command(
        "import_export", str(path), "--lead", lead.username, "--name", "copy", "--no-progress", stdout=io.StringIO()
    )
    copy = Project.objects.get(name="copy")
    log = {e.action: e for e in AuditEntry.objects.filter(project=copy)}
    assert set(log) == {"project.create", "items.import", "judgments.import", "export.reimport"}
    assert log["project.create"].actor == lead
    assert log["export.reimport"].actor_name == "manage.py import_export"
    assert log["export.reimport"].target == "study.zip"
    assert log["export.reimport"].detail == {
        "lead": "lead",
        "items": Item.objects.filter(project=copy).count(),
        "judgments": Judgment.objects.filter(project=copy).count(),
    }
