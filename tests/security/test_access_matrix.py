"""Every URL the site serves × every role: who gets in (2xx, or 400/415 for a deliberately empty
body, which proves the request passed the gate) and who is turned away (401 API / 302 to the login
page for anonymous, 403 for a project's raters on lead-only routes, 404 for outsiders so a
project's existence is not revealed). A new route fails this test until it is added to the table.

Raters (of the project and of another one) must never receive the sentinel strings of
``tests.security.world.SENTINELS`` from any route, whatever the status code.
"""

import re

import pytest
from django.test import Client

from annotation.models import Item
from tests.annotation.rating import full_values
from tests.security.world import SENTINELS, build_world, url_patterns

ROLES = ("anon", "other_rater", "rater", "staff", "lead")

# Route name -> {method: expected status per role, in ROLES order}.
LEAD_READ = {"get": (401, 404, 403, 200, 200)}
PAGE_LEAD_POST = {"post": (302, 404, 403, 400, 400)}
EXPECTED = {
    "login": {"get": (200,) * 5},
    "logout": {"post": (302,) * 5},
    "api-token": {"post": (400,) * 5},
    "api-users": {"get": (401, 403, 403, 405, 403), "post": (401, 403, 403, 400, 403)},
    "api-projects": {"get": (401, 200, 200, 200, 200), "post": (401, 403, 403, 400, 403)},
    "api-project": {"get": (401, 404, 200, 200, 200)},
    "api-members": {"get": (401, 404, 403, 200, 200), "post": (401, 404, 403, 400, 400)},
    "api-items": LEAD_READ,
    "api-items-import": {"post": (401, 404, 403, 415, 415)},
    "api-judgments": LEAD_READ,
    "api-judgments-import": {"post": (401, 404, 403, 415, 415)},
    # Staff and leads are not raters of the project: no screen for them.
    "api-next": {"post": (401, 404, 200, 404, 403)},
    # Posted with a full, valid screen of answers: only the assigned rater's is stored.
    "api-rater-progress": {"get": (401, 404, 200, 404, 403)},
    "api-judgment": {"post": (401, 403, 201, 403, 403)},
    # The rater services check the assignment's owner (403) before membership: still refused.
    "api-flag": {"post": (401, 403, 201, 403, 403)},
    "api-agreement": LEAD_READ,
    "api-agreement-recompute": {"post": (401, 404, 403, 202, 202)},
    "api-agreement-settings": LEAD_READ,
    "api-job": {"get": (401, 404, 404, 200, 200)},
    # The schema and its viewer describe routes, never data.
    "api-schema": {"get": (200,) * 5},
    "api-docs": {"get": (200,) * 5},
    "home": {"get": (302, 200, 200, 200, 200)},
    "project-detail": {"get": (302, 404, 200, 200, 200)},
    "rater-instructions": {"get": (302, 404, 200, 404, 404)},
    "rate-next": {"get": (302, 404, 302, 404, 404)},
    # An assignment not yet judged sends its rater back to the current screen.
    "rate-assignment": {"get": (302, 404, 302, 404, 404)},
    "rate-submit": {"post": (302, 404, 302, 404, 404)},
    # The screen leased ahead of the rater's current one (200), or none (204); leads are no raters (403).
    "rate-ahead": {"post": (302, 404, 200, 404, 403)},
    "rate-flag": {"post": (302, 404, 302, 404, 404)},
    "api-results": LEAD_READ,
    # 400 past the gate: the world's project compares no pairs; the chat export needs its layout named
    "api-results-leaderboard": {"get": (401, 404, 403, 400, 400)},
    "api-items-chat": {"get": (401, 404, 403, 400, 400)},
    "api-metrics": LEAD_READ,
    "api-metrics-catalogue": LEAD_READ,
    "api-metric-scores": LEAD_READ,
    "api-metrics-import": {"post": (401, 404, 403, 415, 415)},
    "api-metrics-compute": {"post": (401, 404, 403, 202, 202)},
    "api-metrics-systems": LEAD_READ,
    "api-metric-inputs": LEAD_READ,
    "api-metric-input-upload": {"post": (401, 404, 403, 415, 415)},
    "api-correlations": LEAD_READ,
    "api-calibrators": {"get": (401, 404, 403, 200, 200), "post": (401, 404, 403, 400, 400)},
    "api-calibrator-apply": {"post": (401, 404, 403, 200, 200)},
    "api-judges": LEAD_READ,
    "api-judges-import": {"post": (401, 404, 403, 415, 415)},
    "api-judges-from-metric": {"post": (401, 404, 403, 400, 400)},
    "api-judge-agreement": LEAD_READ,
    "api-judge-alt-test": LEAD_READ,
    # Without a judge named (and a criterion, for the confusion) the request is refused after the gate.
    "api-judge-prediction-powered": {"get": (401, 404, 403, 400, 400)},
    "api-judge-confusion": {"get": (401, 404, 403, 400, 400)},
    "api-rater-models": LEAD_READ,
    "api-rater-models-recompute": {"post": (401, 404, 403, 202, 202)},
    # An empty body names no criterion, comparison or effect (no raters per item to apply).
    "api-study-plan": {"post": (401, 404, 403, 400, 400)},
    "api-study-plan-apply": {"post": (401, 404, 403, 400, 400)},
    "api-votes-import": {"post": (401, 404, 403, 415, 415)},
    "api-exports": {"get": (401, 404, 403, 200, 200), "post": (401, 404, 403, 202, 202)},
    # The export has no file yet: the lead's answer is 409, never the bytes.
    "api-export-download": {"get": (401, 404, 403, 409, 409)},
    "evaluation-results": {"get": (302, 404, 403, 200, 200)},
    "evaluation-export": {"get": (302, 404, 403, 200, 200)},
    "evaluation-metric-inputs": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    "evaluation-judges": {"get": (302, 404, 403, 200, 200)},
    "evaluation-rater-models": {"get": (302, 404, 403, 200, 200)},
    "evaluation-rater-models-recompute": {"post": (302, 404, 403, 302, 302)},
    "evaluation-plan": {"get": (302, 404, 403, 200, 200), "post": PAGE_LEAD_POST["post"]},
    "agreement-dashboard": {"get": (302, 404, 403, 200, 200)},
    "agreement-recompute": {"post": (302, 404, 403, 302, 302)},
    # An empty form is refused with the reason on the dashboard.
    "agreement-auto-recompute": {"post": (302, 404, 403, 302, 302)},
    "api-qc-rules": LEAD_READ,
    "api-adjudication": LEAD_READ,
    # Only adjudicators are served the queue (the world has none): members 403, everyone else 404.
    "api-adjudication-next": {"post": (401, 404, 403, 404, 403)},
    # The world has no adjudication case.
    "api-adjudication-answer": {"post": (401, 404, 404, 404, 404)},
    # The world's project asks no profile: its rater reads an empty form, and an empty answer is refused.
    "api-rater-profile": {"get": (401, 404, 200, 404, 403), "post": (401, 404, 400, 404, 403)},
    "api-profile-form": LEAD_READ,
    # An empty body names no profile field: refused after the gate.
    "api-profile-results": {"post": (401, 404, 403, 400, 400)},
    # The world's study has started (raters judged): the form is fixed, a post is refused after the gate.
    "profile-form": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    "rater-profile": {"get": (302, 404, 200, 404, 403), "post": (302, 404, 400, 404, 403)},
    "adjudication": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    "adjudicate-next": {"get": (302, 404, 403, 404, 403)},
    "adjudicate-submit": {"post": (302, 404, 404, 404, 404)},
    "api-allocation": LEAD_READ,
    "api-allocation-adaptive": LEAD_READ,
    "api-allocation-raters": {"get": (401, 404, 403, 200, 200), "post": (401, 404, 403, 400, 400)},
    # An empty body names no rater and no action: refused after the gate.
    "api-qc-actions": {"get": (401, 404, 403, 200, 200), "post": (401, 404, 403, 400, 400)},
    "api-qc-raters": LEAD_READ,
    "api-qc-apply": {"post": (401, 404, 403, 200, 200)},
    "api-qc-degraded": {"post": (401, 404, 403, 400, 400)},
    "api-qc-repeats": {"post": (401, 404, 403, 400, 400)},
    "rater-quality": {"get": (302, 404, 403, 200, 200)},
    "console-allocation": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    "rater-action": PAGE_LEAD_POST,
    "rater-evidence": {"get": (302, 404, 403, 200, 200)},
    # Empty forms: refused after the gate.
    "qc-rules": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    "qc-controls": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    "api-invites": {"get": (401, 404, 403, 200, 200), "post": (401, 404, 403, 201, 201)},
    "api-invite-revoke": {"post": (401, 404, 403, 200, 200)},
    "api-team": LEAD_READ,
    "staffing-team": {"get": (302, 404, 403, 200, 200)},
    "staffing-team-action": PAGE_LEAD_POST,
    # An empty form names nobody: refused after the gate.
    "staffing-team-add": PAGE_LEAD_POST,
    # The email goes nowhere (invite emails are off in tests): back to the invites page with the reason.
    "staffing-invite-email": {"post": (302, 404, 403, 302, 302)},
    # An empty form has no expiry: refused after the gate.
    "staffing-invites": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    "staffing-invite-revoke": {"post": (302, 404, 403, 302, 302)},
    "staffing-accounts": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    "staffing-external": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    # Holding the link is the permission: with the project's token but no worker id, everyone gets 400.
    "staffing-external-entry": {"get": (400,) * 5},
    # Only a crowd worker of the project has a completion code.
    "staffing-done": {"get": (302, 404, 404, 404, 404)},
    # The link is the permission (it names its project to whoever holds it); an unknown token is 404 for all.
    # tests/staffing/views/test_invite_pages.py covers open, expired, revoked and used-up invites.
    "staffing-invite-open": {"get": (404,) * 5},
    "staffing-password-change": {"get": (302, 200, 200, 200, 200)},
    "api-audit": LEAD_READ,
    "audit-log": {"get": (302, 404, 403, 200, 200)},
    # Creating (and cloning) a project needs the right to create projects, as POST api-projects: the
    # world's lead leads a project but may not create one. An empty form is refused after the gate.
    "console-project-new": {"get": (302, 403, 403, 200, 403), "post": (302, 403, 403, 400, 403)},
    "console-project-new-preview": {"post": (302, 403, 403, 200, 403)},
    "console-project-settings": {"get": (302, 404, 403, 200, 200), "post": PAGE_LEAD_POST["post"]},
    "console-project-preview": {"post": (302, 404, 403, 200, 200)},
    # The lead tries the rater's screens; nothing posted is stored.
    "console-project-try": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 200, 200)},
    # A refused status change goes back to the project page with the reason.
    "console-project-status": {"post": (302, 404, 403, 302, 302)},
    "console-project-clone": {"get": (302, 404, 403, 200, 403), "post": (302, 404, 403, 400, 403)},
    # The lead console's item and progress pages. An empty upload form is refused after the gate.
    "console-item-upload": {"get": (302, 404, 403, 200, 200), "post": (302, 404, 403, 400, 400)},
    "console-items": {"get": (302, 404, 403, 200, 200)},
    # The item's old address sends the lead to the one by external id.
    "console-item-detail": {"get": (302, 404, 403, 302, 302)},
    "console-item": {"get": (302, 404, 403, 200, 200)},
    # Retiring (staff first, then the lead finds it retired) goes back to the item page with the outcome.
    "console-item-retire": {"post": (302, 404, 403, 302, 302)},
    # An empty input is refused after the gate (so is any change to the world's judged item).
    "console-item-replace": PAGE_LEAD_POST,
    "console-item-update": PAGE_LEAD_POST,
    "console-item-update-job": {"get": (302, 404, 403, 200, 200)},
    "api-items-retire": {"post": (401, 404, 403, 400, 400)},
    # Staff archives first; the lead then finds it archived and read-only (409; the page gives the reason).
    "console-project-archive": {"post": (302, 404, 403, 302, 302)},
    "console-project-restore": {"post": (302, 404, 403, 302, 302)},
    "api-project-archive": {"post": (401, 404, 403, 200, 409)},
    "api-project-restore": {"post": (401, 404, 403, 400, 400)},
    # Deleting takes the admin-level delete permission, which neither the lead nor plain staff holds.
    "console-project-delete": {"get": (302, 404, 403, 403, 403), "post": (302, 404, 403, 403, 403)},
    "api-project-delete": {"post": (401, 404, 403, 403, 403)},
    "console-progress": {"get": (302, 404, 403, 200, 200)},
    "api-progress-summary": LEAD_READ,
}
ROUTES = sorted({(route, name) for route, name in url_patterns()}, key=lambda r: r[1] or "")


def test_every_route_is_in_the_table():
    names = {name for _, name in ROUTES}
    assert None not in names, "every route needs a name to be covered by the access matrix"
    assert names - set(EXPECTED) == set(), "add the new routes to EXPECTED in test_access_matrix.py"
    assert set(EXPECTED) - names == set(), "routes gone: remove them from EXPECTED"


def _path(route: str, world) -> str:
    def fill(match):
        key = match.group(1)
        if key == "job_id":
            return str(world.ids["update_job_id"])
        if key == "invite_id":
            return str(world.ids["invite_id"])
        if key == "token":
            return world.ids["external_token"] if "/external/" in route else "no-such-invite"
        if key == "kind":
            return "training_corpus"
        if key == "calibrator_id":
            return str(world.ids["calibrator_id"])
        if key == "rater_id":
            return str(world.users["rater"].pk)
        if key == "item_pk":
            return str(world.ids["pk_item"])
        if key == "external_id":
            return Item.objects.get(pk=world.ids["pk_item"]).external_id
        if route.startswith("api/v1/jobs/"):
            return str(world.ids["pk_job"])
        if route.startswith(("api/v1/exports/", "exports/")):
            return str(world.ids["pk_export"])
        if "assignments/" in route:
            return str(world.ids["pk_assignment"])
        return str(world.ids["pk_project"])

    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", fill, route)


def _body(name: str, world):
    values = full_values(world.assignment, 4)
    if name == "api-judgment":
        return {"values": values}
    if name in ("api-flag",):
        return {"reason": "broken", "comment": "unreadable"}
    if name == "rate-submit":
        criteria = {c.name: c.pk for c in world.project.criteria.all()}
        return {f"v-{criteria[v['criterion']]}-{v['position']}": v["value"] for v in values}
    if name == "rate-flag":
        return {"reason": "broken"}
    return {}


def _request(client, method, path, name, world):
    body = _body(name, world)
    if method == "get":
        return client.get(path)
    if name.startswith("api-") or path.startswith("/api/"):
        return client.post(path, data=body, content_type="application/json")
    return client.post(path, data=body)


@pytest.mark.django_db
@pytest.mark.parametrize(("route", "name"), ROUTES, ids=[name for _, name in ROUTES])
def test_access(route, name):
    world = build_world()
    path = _path(route, world)
    for method, expected in EXPECTED[name].items():
        got = []
        for role in ROLES:
            client = Client()
            if role != "anon":
                client.force_login(world.users[role])
            response = _request(client, method, path, name, world)
            got.append(response.status_code)
            if response.status_code == 302 and role == "anon":
                assert response["Location"].startswith("/accounts/login/"), (name, response["Location"])
            if role in ("rater", "other_rater", "anon"):
                body = b"".join(response.streaming_content) if response.streaming else response.content
                text = body.decode(errors="replace")
                # The other project's rater may of course see their own project.
                leaked = [
                    what
                    for what, sentinel in SENTINELS.items()
                    if sentinel in text and not (role == "other_rater" and what == "other project")
                ]
                assert not leaked, f"{method.upper()} {path} gave the {role} {leaked}"
                if role == "other_rater":
                    assert "secure study" not in text, f"{method.upper()} {path} named another project"
        assert tuple(got) == expected, f"{method.upper()} {path}: got {dict(zip(ROLES, got, strict=True))}"


@pytest.mark.django_db
def test_admin_is_staff_only():
    world = build_world()
    for role, expected in (("anon", 302), ("rater", 302), ("lead", 302), ("staff", 200)):
        client = Client()
        if role != "anon":
            client.force_login(world.users[role])
        assert client.get("/admin/").status_code == expected, role


@pytest.mark.django_db
def test_sentinels_are_really_in_the_data_the_lead_sees():
    """Guards the leak assertions above: each sentinel is reachable by a lead, so its absence from
    the raters' bodies means something."""
    world = build_world()
    client = Client()
    client.force_login(world.users["lead"])
    pk = world.project.pk
    seen = "".join(
        client.get(path).content.decode()
        for path in (
            f"/api/v1/projects/{pk}/items/",
            f"/api/v1/projects/{pk}/judgments/",
            f"/api/v1/projects/{pk}/agreement/",
            f"/projects/{pk}/",
        )
    )
    for what, sentinel in SENTINELS.items():
        if what != "other project":
            assert sentinel in seen, what
