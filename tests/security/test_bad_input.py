"""Issue 15, "Bad input": each hostile value the attack found answering 500 now gets a 4xx that names the
field (and the line, for imports), and writes nothing. Through the real HTTP API and pages."""

import csv
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from annotation.models import Item, Judgment
from annotation.services import assignment_next_for_rater
from core.models import Job
from evaluation.models import Judge, MetricScore
from staffing.services import invite_create
from tests.annotation.rating import add_raters, full_values, rating_project
from tests.security.world import PASSWORD, build_world

NUL, SURROGATE = "\u0000", "\ud800"
GOOD_ITEM = {
    "external_id": "new1",
    "input": "an input",
    "references": ["a reference"],
    "outputs": [{"system": "sysA", "text": "an output"}],
    "subgroup": "news",
    "meta": {"lang": "en"},
}


@pytest.fixture
def world(db):
    return build_world()


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def page(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ndjson(*records) -> str:
    # ensure_ascii keeps lone surrogates as \ud800 escapes, as a client's JSON encoder sends them
    return "".join(json.dumps(r) + "\n" for r in records)


def with_value(path: tuple, value) -> dict:
    """GOOD_ITEM with ``value`` put at ``path`` (a key path; a key of None puts the value as a dict key)."""
    record = json.loads(json.dumps(GOOD_ITEM))
    target = record
    for key in path[:-1]:
        target = target[key]
    if path[-1] is None:
        target[f"a{value}b"] = "x"
    else:
        target[path[-1]] = f"a{value}b"
    return record


ITEM_PLACES = {
    "input": ("input",),
    "outputs[1].text": ("outputs", 0, "text"),
    "outputs[1].system": ("outputs", 0, "system"),
    "external_id": ("external_id",),
    "meta.lang": ("meta", "lang"),
    "meta": ("meta", None),
    "subgroup": ("subgroup",),
    "references[1]": ("references", 0),
}


def import_items(world, body: str, content_type="application/x-ndjson"):
    return api(world.users["lead"]).post(
        f"/api/v1/projects/{world.project.pk}/items/import/",
        data=body.encode("utf-8", "surrogatepass"),
        content_type=content_type,
    )


def assert_refused(response, *, line: int, field: str):
    assert response.status_code == 400, (response.status_code, response.content[:300])
    errors = response.json()["errors"]
    assert any(e["line"] == line and field in e["error"] for e in errors), errors


@pytest.mark.parametrize("field", ITEM_PLACES)
@pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "surrogate"])
def test_a_nul_or_a_lone_surrogate_in_any_item_field_is_refused_naming_line_and_field(world, field, bad):
    n_items = Item.objects.count()
    response = import_items(world, ndjson(GOOD_ITEM | {"external_id": "ok"}, with_value(ITEM_PLACES[field], bad)))
    assert_refused(response, line=2, field=field.split(".")[0].split("[")[0])
    assert Item.objects.count() == n_items


@pytest.mark.parametrize("column", ["input", "output_1", "system_1", "external_id", "subgroup", "meta"])
def test_a_nul_in_any_csv_column_is_refused_naming_line_and_column(world, column):
    row = {
        "external_id": "c1",
        "input": "in",
        "output_1": "out",
        "system_1": "sysA",
        "subgroup": "news",
        "meta": '{"lang": "en"}',
    }
    row[column] = '{"lang": "e\\u0000n"}' if column == "meta" else f"a{NUL}b"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(row))
    writer.writeheader()
    writer.writerow(row)
    response = import_items(world, out.getvalue(), content_type="text/csv")
    assert_refused(response, line=2, field=column)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_nan_or_infinity_in_item_meta_is_refused_naming_line_and_field(world, literal):
    line = json.dumps(GOOD_ITEM).replace('"en"', literal)
    response = import_items(world, line + "\n")
    assert_refused(response, line=1, field="meta.lang")


def test_an_integer_too_long_to_read_is_refused_naming_the_line(world):
    response = import_items(world, json.dumps(GOOD_ITEM).replace('"en"', "9" * 5000) + "\n")
    assert_refused(response, line=1, field="")


def import_judgments(world, *records):
    return api(world.users["lead"]).post(
        f"/api/v1/projects/{world.project.pk}/judgments/import/",
        data=ndjson(*records),
        content_type="application/x-ndjson",
    )


JUDGMENT = {"item": "doc0", "rater": "worker-42", "criterion": "fluency", "system": "SECRETSYS", "value": 4}


def test_a_naive_submitted_at_is_read_as_utc(world):
    response = import_judgments(world, JUDGMENT | {"submitted_at": "2024-01-01T00:00:00"})
    assert response.status_code == 201, response.content
    stored = Judgment.objects.get(project=world.project, rater__memberships__external_name="worker-42")
    assert stored.submitted_at.isoformat() == "2024-01-01T00:00:00+00:00"


@pytest.mark.parametrize("duration", [1e20, 10**20, -1])
def test_an_impossible_duration_ms_in_a_judgment_import_is_refused_naming_it(world, duration):
    assert_refused(import_judgments(world, JUDGMENT | {"duration_ms": duration}), line=1, field="duration_ms")


@pytest.mark.parametrize("field", ["rater", "item", "criterion", "system"])
def test_a_nul_in_a_judgment_import_is_refused_naming_the_field(world, field):
    n = Judgment.objects.count()
    assert_refused(import_judgments(world, JUDGMENT | {field: f"x{NUL}"}), line=1, field=field)
    assert Judgment.objects.count() == n


def test_duration_ms_1e20_in_a_submission_is_refused_naming_it(world):
    rater = world.users["rater"]
    response = api(rater).post(
        f"/api/v1/assignments/{world.assignment.pk}/judgment/",
        {"values": full_values(world.assignment, 3), "duration_ms": 1e20},
        format="json",
    )
    assert response.status_code == 400 and "duration_ms" in response.json()


@pytest.mark.parametrize(
    "body",
    [
        {"item": "doc0", "system": "SECRETSYS", "metric": f"bl{NUL}eu", "score": 0.5},
        {"item": "doc0", "system": "SECRETSYS", "scores": {f"bl{NUL}eu": 0.5}},
        {"item": f"doc{NUL}", "system": "SECRETSYS", "metric": "bleu", "score": 0.5},
    ],
)
def test_a_nul_in_a_metric_import_is_refused(world, body):
    response = api(world.users["lead"]).post(
        f"/api/v1/projects/{world.project.pk}/metrics/import/", data=ndjson(body), content_type="application/x-ndjson"
    )
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["line"] == 1
    assert not MetricScore.objects.exists()


def test_a_nul_in_a_judge_import_is_refused(world):
    line = {
        "judge": f"gpt{NUL}",
        "kind": "llm",
        "item": "doc0",
        "criterion": "fluency",
        "system": "SECRETSYS",
        "value": 4,
    }
    response = api(world.users["lead"]).post(
        f"/api/v1/projects/{world.project.pk}/judges/import/", data=ndjson(line), content_type="application/x-ndjson"
    )
    assert_refused(response, line=1, field="judge")
    assert not Judge.objects.exists()


LIST_QUERIES = [
    ("/api/v1/projects/{pk}/items/", "search"),
    ("/api/v1/projects/{pk}/items/", "subgroup"),
    ("/api/v1/projects/{pk}/qc/actions/", "rater"),
    ("/api/v1/projects/{pk}/judgments/", "criterion"),
    ("/api/v1/projects/{pk}/judgments/", "rater"),
    ("/api/v1/projects/{pk}/metrics/scores/", "name"),
    ("/api/v1/projects/{pk}/metrics/scores/", "system"),
    ("/api/v1/projects/{pk}/agreement/", "criterion"),
    ("/api/v1/projects/{pk}/agreement/", "subgroup"),
    ("/api/v1/projects/{pk}/audit/", "action"),
    ("/projects/{pk}/items/", "q"),
    ("/projects/{pk}/items/", "subgroup"),
    ("/projects/{pk}/items/", "system"),
    ("/projects/{pk}/audit/", "action"),
    ("/projects/{pk}/audit/", "actor"),
]


@pytest.mark.parametrize(("route", "parameter"), LIST_QUERIES)
def test_a_nul_in_a_query_parameter_is_a_400_naming_it(world, route, parameter):
    client = page(world.users["lead"])
    response = client.get(route.format(pk=world.project.pk), {parameter: f"a{NUL}b"})
    assert response.status_code == 400, response.status_code
    assert parameter in response.content.decode()


def test_a_nul_in_a_url_path_is_a_4xx(world):
    response = Client().get("/invite/%00/")
    assert 400 <= response.status_code < 500
    response = page(world.users["lead"]).get(f"/projects/{world.project.pk}/external/a%00b/")
    assert 400 <= response.status_code < 500


def test_a_nul_in_the_clone_name_is_a_400_naming_it(world):
    world.users["lead"].is_staff = True
    world.users["lead"].save()
    response = page(world.users["lead"]).post(f"/projects/{world.project.pk}/clone/", {"name": f"copy{NUL}"})
    assert response.status_code == 400 and b"name" in response.content


def test_a_nul_in_a_lead_reason_is_a_400(world):
    response = page(world.users["lead"]).post(
        f"/projects/{world.project.pk}/raters/action/",
        {"action": "pause", "rater": world.users["rater"].pk, "reason": f"slow{NUL}"},
    )
    assert response.status_code == 400 and b"reason" in response.content
    response = page(world.users["lead"]).post(
        f"/projects/{world.project.pk}/team/action/",
        {"action": "pause", "rater": world.users["rater"].pk, "reason": f"slow{NUL}"},
    )
    assert response.status_code == 400 and b"reason" in response.content


def test_a_nul_in_a_bulk_account_csv_is_a_400_naming_the_line(world):
    upload = SimpleUploadedFile("accounts.csv", f"username,email\nann{NUL},a@example.org\n".encode())
    response = page(world.users["lead"]).post(f"/projects/{world.project.pk}/accounts/", {"file": upload})
    assert response.status_code == 400
    assert get_user_model().objects.filter(username__startswith="ann").count() == 0


def test_a_nul_in_the_rater_forms_is_a_400(world):
    client = page(world.users["rater"])
    assignment = world.assignment
    response = client.post(f"/assignments/{assignment.pk}/submit/", {"client_token": f"t{NUL}"})
    assert response.status_code == 400 and b"client_token" in response.content
    response = client.post(f"/assignments/{assignment.pk}/flag/", {"reason": "broken", "comment": f"c{NUL}"})
    assert response.status_code == 400 and b"comment" in response.content


def test_a_nul_in_the_invite_sign_up_is_a_400(world):
    invite = invite_create(project=world.project, by=world.users["lead"], max_uses=5, valid_days=1)
    response = Client().post(
        f"/invite/{invite.token}/", {"username": f"new{NUL}", "password": PASSWORD, "password_again": PASSWORD}
    )
    assert response.status_code == 400


def _upload(client, world, body: bytes, **headers):
    upload = SimpleUploadedFile("items.jsonl", body, content_type="application/x-ndjson")
    return client.post(f"/projects/{world.project.pk}/items/upload/", {"file": upload}, **headers)


@pytest.mark.parametrize(
    "body",
    [
        (json.dumps({**GOOD_ITEM, "input": f"a{NUL}b"}) + "\n").encode(),
        (json.dumps(GOOD_ITEM).replace('"en"', "NaN") + "\n").encode(),
    ],
    ids=["nul", "nan"],
)
def test_the_no_javascript_upload_form_names_line_and_field(world, body):
    n_items = Item.objects.count()
    response = _upload(page(world.users["lead"]), world, body)
    assert response.status_code == 400
    text = response.content.decode()
    assert "COPY" not in text and ("input" in text or "meta.lang" in text)
    assert Item.objects.count() == n_items


def test_the_upload_job_names_line_and_field_never_raw_database_text(world, django_capture_on_commit_callbacks):
    body = (json.dumps({**GOOD_ITEM, "meta": {"lang": f"e{NUL}n"}}) + "\n").encode()
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(page(world.users["lead"]), world, body, HTTP_ACCEPT="application/json")
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["job_id"])
    assert job.state == Job.State.FAILURE
    assert "COPY" not in job.error
    assert job.result["errors"] == [{"line": 1, "field": "meta.lang", "problem": job.result["errors"][0]["problem"]}]


def test_an_imported_raters_pseudonym_cannot_be_claimed_by_an_invite_sign_up(world):
    invite = invite_create(project=world.project, by=world.users["lead"], max_uses=5, valid_days=1)
    name = f"imported-{world.project.pk}-worker-42"
    response = Client().post(
        f"/invite/{invite.token}/", {"username": name, "password": PASSWORD, "password_again": PASSWORD}
    )
    assert response.status_code == 400
    assert not get_user_model().objects.filter(username=name).exists()


def test_the_judgment_import_does_not_depend_on_the_pseudonym_being_free(world):
    squatter = get_user_model().objects.create_user(f"imported-{world.project.pk}-worker-42", password=PASSWORD)
    response = import_judgments(world, JUDGMENT)
    assert response.status_code == 201, response.content
    stored = Judgment.objects.get(project=world.project, rater__memberships__external_name="worker-42")
    assert stored.rater_id != squatter.pk and not stored.rater.is_active


def test_a_replayed_client_token_with_different_values_is_a_409_with_the_stored_judgment(world):
    client, url = api(world.users["rater"]), f"/api/v1/assignments/{world.assignment.pk}/judgment/"
    first = client.post(url, {"values": full_values(world.assignment, 2), "client_token": "tok-1"}, format="json")
    assert first.status_code == 201
    same = client.post(url, {"values": full_values(world.assignment, 2), "client_token": "tok-1"}, format="json")
    assert same.status_code == 200
    other = client.post(url, {"values": full_values(world.assignment, 4), "client_token": "tok-1"}, format="json")
    assert other.status_code == 409, other.content
    assert other.json()["judgment"]["values"] == first.json()["values"]
    assert Judgment.objects.filter(assignment=world.assignment).count() == len(full_values(world.assignment, 2))


def test_a_nul_nested_in_a_json_value_of_a_submission_is_a_400_naming_the_place(world):
    values = full_values(world.assignment, 3)
    values[0]["value"] = {"score": [1, f"x{NUL}"]}
    response = api(world.users["rater"]).post(
        f"/api/v1/assignments/{world.assignment.pk}/judgment/", {"values": values}, format="json"
    )
    assert response.status_code == 400
    assert "score[2] holds a NUL character" in json.dumps(response.json())


def test_a_huge_id_in_a_path_is_a_404(world):
    response = api(world.users["lead"]).get("/api/v1/projects/99999999999999999999/")
    assert response.status_code == 404


@pytest.mark.parametrize(("task_type", "same", "other"), [("rankme", 50, 60), ("pairwise", "A", "B")])
def test_a_replay_is_told_from_a_conflict_for_every_answer_kind(db, task_type, same, other):
    project = rating_project(task_type=task_type, systems=["s1", "s2"])
    (rater,) = add_raters(project)
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
    client, url = api(rater), f"/api/v1/assignments/{assignment.pk}/judgment/"
    assert (
        client.post(url, {"values": full_values(assignment, same), "client_token": "t"}, format="json").status_code
        == 201
    )
    assert (
        client.post(url, {"values": full_values(assignment, same), "client_token": "t"}, format="json").status_code
        == 200
    )
    assert (
        client.post(url, {"values": full_values(assignment, other), "client_token": "t"}, format="json").status_code
        == 409
    )
