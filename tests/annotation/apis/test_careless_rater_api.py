"""Issue 14, points 2, 3 and 4 (training pool): a careless rater, through the real API and pages, can neither
skip the controls by flagging them, nor rewrite a failed gold check by revising it, nor collect the answers
of the gold checks from training feedback."""

import json

import pytest
from django.test import Client

from annotation.models import Item, RaterAction
from annotation.services import qc_rules_update
from annotation.services.controls import repeat_controls_create
from tests.annotation.rating import add_raters, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _line(external_id: str, text: str, output: str, **extra) -> dict:
    return {"external_id": external_id, "input": text, "outputs": [{"system": "sysA", "text": output}], **extra}


def _lines(project, *, n_work, n_training, n_check) -> bytes:
    """JSONL of work items, training-pool gold items (``"training": true``) and gold items for checking."""
    lines = [_line(f"w{k}", f"work {k}", f"out {k}") for k in range(n_work)]
    lines += [
        _line(f"t{k}", f"training {k}", "t", gold={"fluency": 1 + k % 5}, training=True) for k in range(n_training)
    ]
    lines += [_line(f"g{k}", f"check {k}", "g", gold={"fluency": 1 + k % 5}) for k in range(n_check)]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _project(lead, **fields):
    project = rating_project(n_items=0, **fields)
    project.memberships.create(user=lead, role="lead")
    return project


def _import(lead, project, **counts):
    response = client_for(lead).post(
        f"/api/v1/projects/{project.pk}/items/import/", _lines(project, **counts), content_type="application/x-ndjson"
    )
    assert response.status_code == 201, response.content
    return response


def _kind(assignment_id: int) -> str:
    """What the screen really was (the test's knowledge, not the rater's)."""
    item = Item.objects.get(assignments__id=assignment_id)
    if item.gold is not None:
        return "training" if item.external_id.startswith("t") else "gold"
    return "repeat" if item.repeat_of_id else "work"


def _session(client, project, *, flag_controls: bool) -> list[str]:
    """Next → judge (or flag, on a control screen when ``flag_controls``) until nothing is left; the kinds
    served, in order."""
    kinds = []
    while (served := client.post(f"/api/v1/projects/{project.pk}/next/")).status_code == 200:
        screen = served.json()
        kind = _kind(screen["assignment_id"])
        kinds.append(kind)
        if flag_controls and kind != "work":
            response = client.post(
                f"/api/v1/assignments/{screen['assignment_id']}/flag/", {"reason": "cannot_judge"}, format="json"
            )
        else:
            response = client.post(
                f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
                {"values": [{"criterion": "fluency", "position": 0, "value": 3}]},
                format="json",
            )
        assert response.status_code == 201, response.content
    assert served.status_code == 204
    return kinds


def test_flagging_every_control_skips_no_quality_control_and_is_a_finding(lead):
    # Given a project with training, gold checks and repeats, every item for both raters, and rules that warn
    project = _project(
        lead, training_items=2, gold_rate=0.2, repeat_rate=0.15, raters_per_item=2, double_annotation_share=1
    )
    _import(lead, project, n_work=30, n_training=3, n_check=10)
    repeat_controls_create(project=project, n=10, seed=0)
    qc_rules_update(project=project, min_gold_answered=4, gold_accuracy_threshold=0, action="warn")
    honest, flagger = add_raters(project, 2)

    # When one rater answers everything and the other flags ("cannot judge") every control screen
    answered = _session(client_for(honest), project, flag_controls=False)
    flagged = _session(client_for(flagger), project, flag_controls=True)

    # Then the flagger's training still ends, and gold checks and repeats still come, as for the honest rater
    for kinds in (answered, flagged):
        assert kinds[:2] == ["training", "training"] and "training" not in kinds[2:]
        assert kinds.count("gold") >= 3 and kinds.count("repeat") >= 2
    assert abs(flagged.count("gold") - answered.count("gold")) <= 1
    # and the flags on controls are counted, and the rule acts on them (once per rules version)
    report = {r["rater"]: r for r in client_for(lead).get(f"/api/v1/projects/{project.pk}/qc/raters/").json()["raters"]}
    n_controls = len(flagged) - flagged.count("work")
    assert report[flagger.username]["control_flags"] == {
        "n_controls": n_controls,
        "n_flagged": n_controls,
        "share": 1.0,
    }
    assert report[honest.username]["control_flags"]["n_flagged"] == 0
    (warning,) = RaterAction.objects.filter(rater=flagger)
    assert (warning.kind, warning.rule) == ("warn", "control_flags") and warning.evidence["threshold"] == 0.5
    assert not RaterAction.objects.filter(rater=honest).exists()


def test_revising_a_failed_gold_check_does_not_pass_it_nor_move_the_training(lead):
    # Given a rater who was trained on one item and then failed a gold check
    project = _project(lead, training_items=1, gold_rate=0.3)
    _import(lead, project, n_work=6, n_training=1, n_check=1)  # the check's gold is 1, the training item's too
    (rater,) = add_raters(project)
    client = client_for(rater)
    screens = {}
    while (served := client.post(f"/api/v1/projects/{project.pk}/next/")).status_code == 200:
        assignment_id = served.json()["assignment_id"]
        screens[_kind(assignment_id)] = assignment_id
        value = 1 if _kind(assignment_id) == "training" else 4  # right in training, wrong on the check
        client.post(
            f"/api/v1/assignments/{assignment_id}/judgment/",
            {"values": [{"criterion": "fluency", "position": 0, "value": value}]},
            format="json",
        )
    assert {"training", "gold"} <= set(screens)

    # When they revise the check to the answer they now know, and revise the training screen too
    def revise(kind, value):
        return client.post(
            f"/api/v1/assignments/{screens[kind]}/judgment/",
            {"values": [{"criterion": "fluency", "position": 0, "value": value}]},
            format="json",
        )

    revised = revise("gold", 1)
    assert revised.status_code == 201 and revised.json()["revision"] is True
    assert "feedback" in revise("training", 2).json()  # still the training screen it was

    # Then the check counts its first answer, its revision is recorded, and training stays what was served
    (row,) = client_for(lead).get(f"/api/v1/projects/{project.pk}/qc/raters/").json()["raters"]
    assert row["gold"]["n"] == 1 and row["gold"]["correct"] == 0 and row["gold"]["accuracy"] == 0.0
    assert row["gold"]["n_revised"] == 1


def test_training_feedback_never_reveals_a_gold_check_to_any_number_of_identities(lead):
    # Given 3 training-pool items and 5 gold items for checking, imported with the "training" flag
    project = _project(lead, training_items=3, gold_rate=0.3)
    _import(lead, project, n_work=12, n_training=3, n_check=5)
    checks = set(
        Item.objects.filter(project=project, gold__isnull=False, training=False).values_list("input", flat=True)
    )
    assert len(checks) == 5

    # When eight fresh identities each go through training and note the answers the feedback reveals
    revealed = set()
    for rater in add_raters(project, 8, prefix="farm"):
        client = client_for(rater)
        for _ in range(project.training_items):
            screen = client.post(f"/api/v1/projects/{project.pk}/next/").json()
            body = client.post(
                f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
                {"values": [{"criterion": "fluency", "position": 0, "value": 3}]},
                format="json",
            ).json()
            assert body["feedback"]["expected"]
            revealed.add(screen["item"]["input"])

    # Then no gold check's answer was ever shown; the checks are still served, after training, without feedback
    assert revealed == {"training 0", "training 1", "training 2"} and not revealed & checks
    seen_checks = []
    client = client_for(rater)
    while (served := client.post(f"/api/v1/projects/{project.pk}/next/")).status_code == 200:
        screen = served.json()
        body = client.post(
            f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
            {"values": [{"criterion": "fluency", "position": 0, "value": 3}]},
            format="json",
        ).json()
        assert "feedback" not in body
        seen_checks += [screen["item"]["input"]] if screen["item"]["input"] in checks else []
    assert seen_checks
    # and the rater's instructions say so
    page = Client()
    page.force_login(rater)
    note = " ".join(page.get(f"/projects/{project.pk}/instructions/").content.decode().split())
    assert "Your first 3 screens are training" in note and "none of them is ever used to check your work" in note


def test_a_training_line_needs_gold_and_a_boolean(lead):
    project = _project(lead, training_items=1)
    bad = (
        '{"external_id": "a", "input": "x", "outputs": [{"system": "s", "text": "t"}], "training": true}\n'
        '{"external_id": "b", "input": "x", "outputs": [{"system": "s", "text": "t"}], "gold": {"fluency": 3}, '
        '"training": "yes"}\n'
    )
    response = client_for(lead).post(
        f"/api/v1/projects/{project.pk}/items/import/", bad.encode(), content_type="application/x-ndjson"
    )
    assert response.status_code == 400
    problems = {e["line"]: e["error"] for e in response.json()["errors"]}
    assert "give its gold" in problems[1] and "true or false" in problems[2]
    assert not Item.objects.filter(project=project).exists()
