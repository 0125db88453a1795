"""In Chromium: a lead replaces the text of an unjudged item on its page (addressed by external id), is told why a
judged one cannot change and retires it, re-uploads a file in "update existing items" mode and reads what
changed line by line, archives the project (gone from the home list, read-only) and restores it; an admin
deletes a project after typing its name. Screenshots at 1280×800, 768×1024 and 390×844 go to artifacts/."""

import json

import pytest
from django.contrib.auth.models import Permission

from annotation.models import Item, Membership, Project
from annotation.services import assignment_next_for_rater, judgment_submit
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.annotation.rating import full_values
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def study(db):
    project = ProjectFactory(name="managed study", criteria=["fluency"])
    for k in range(3):
        ItemFactory(project=project, external_id=f"news/doc{k}", systems=["bart"])
    lead = UserFactory(username="study-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    rater = UserFactory(username="study-rater")
    MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
    judged = assignment_next_for_rater(project_id=project.pk, rater=rater)
    judgment_submit(rater=rater, assignment_id=judged.pk, values=full_values(judged, 4))
    return project, lead, judged.item


def test_items_are_replaced_retired_and_updated(page, live_server, screenshot, study, tmp_path):
    project, lead, judged = study
    # the rater was served in their own order: any of the three may be the judged one
    fresh, other = Item.objects.filter(project=project).exclude(pk=judged.pk).order_by("id")
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server.url, "study-lead", "pass-word-1234", f"/projects/{project.pk}/items/")

    # The browser links each item by its external id
    with page.expect_navigation():
        page.get_by_role("link", name=fresh.external_id, exact=True).click()
    assert page.url.endswith(f"/projects/{project.pk}/items/id/{fresh.external_id}/")

    # An unjudged item's text is replaced from its page
    page.get_by_label("Input").fill("A corrected source text.")
    page.get_by_label("Output 1 (bart)").fill("A corrected summary.")
    with page.expect_navigation():
        page.get_by_test_id("replace").click()
    assert "Replaced the input and outputs" in page.inner_text("main")
    assert "A corrected summary." in page.inner_text("main")
    fresh.refresh_from_db()
    assert fresh.input == "A corrected source text."
    at_every_width(page, screenshot, "manage-item-replaceable")

    # A judged item says why its text is fixed, and is retired instead
    page.goto(f"{live_server.url}/projects/{project.pk}/items/id/{judged.external_id}/")
    assert page.get_by_test_id("replace-form").count() == 0
    assert "has 1 judgment, so its text can no longer change" in page.inner_text("[data-testid=text-fixed]")
    with page.expect_navigation():
        page.get_by_test_id("retire").click()
    assert page.get_by_test_id("retired").is_visible()
    assert "no rater is served it any more; its judgments stay" in page.inner_text("main")
    assert page.locator("[data-testid=judgments] tbody tr").count() == 1
    at_every_width(page, screenshot, "manage-item-retired")
    page.goto(f"{live_server.url}/projects/{project.pk}/items/?status=retired")
    assert page.locator("[data-testid=items] tbody tr").count() == 1

    # A re-upload in update mode says what changed, line by line
    lines = [
        {
            "external_id": judged.external_id,
            "input": "Try to change a judged item",
            "outputs": [{"system": "bart", "text": "x"}],
        },
        {
            "external_id": fresh.external_id,
            "input": "A corrected source text.",
            "outputs": [{"system": "bart", "text": "A corrected summary."}],
        },
        {
            "external_id": other.external_id,
            "input": "Rewritten before anyone judged it",
            "outputs": [{"system": "bart", "text": "y"}],
            "subgroup": "news",
        },
        {"external_id": "news/doc9", "input": "A new item", "outputs": [{"system": "bart", "text": "z"}]},
    ]
    path = tmp_path / "v2.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    page.goto(f"{live_server.url}/projects/{project.pk}/items/upload/")
    page.get_by_label("File with the changed items (JSONL or CSV)").set_input_files(str(path))
    with page.expect_navigation():
        page.get_by_test_id("update-submit").click()
    report = page.get_by_test_id("update-report")
    assert [
        report.locator(f"dd[data-outcome={o}]").inner_text() for o in ("added", "updated", "unchanged", "refused")
    ] == ["1", "1", "1", "1"]
    rows = [row.split("\t") for row in page.locator("[data-testid=update-lines] tbody tr").all_inner_texts()]
    assert [row[:3] for row in rows] == [
        ["1", judged.external_id, "Refused"],
        ["2", fresh.external_id, "Unchanged"],
        ["3", other.external_id, "Updated"],
        ["4", "news/doc9", "Added"],
    ]
    assert "retire it and import the new text under a new external id" in rows[0][3]
    assert rows[2][3] == "input, subgroup, outputs"
    at_every_width(page, screenshot, "manage-update-report")


def test_a_project_is_archived_restored_and_deleted(page, live_server, screenshot, study):
    project, lead, _ = study
    lead.user_permissions.add(Permission.objects.get(codename="delete_project", content_type__app_label="annotation"))
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server.url, "study-lead", "pass-word-1234", f"/projects/{project.pk}/")

    # Archived: read-only, with the restore button, and gone from the home list
    page.get_by_text("Archive…").click()
    with page.expect_navigation():
        page.get_by_test_id("archive").click()
    assert "is archived: hidden from the home list and read-only" in page.inner_text("main")
    assert page.get_by_test_id("archived-note").is_visible() and page.get_by_test_id("restore").is_visible()
    assert page.locator("[data-status=paused]").count() == 0  # no status change offered while archived
    at_every_width(page, screenshot, "manage-project-archived")
    page.goto(f"{live_server.url}/")
    assert "managed study" not in page.inner_text("main")
    with page.expect_navigation():
        page.get_by_test_id("archived-link").click()
    assert "managed study" in page.inner_text("[data-testid=projects]")
    at_every_width(page, screenshot, "manage-home-archived")

    # A write through a page is turned back with the reason
    page.goto(f"{live_server.url}/projects/{project.pk}/items/upload/")
    page.get_by_label("File with the changed items (JSONL or CSV)").set_input_files(
        files=[{"name": "x.jsonl", "mimeType": "application/x-ndjson", "buffer": b'{"external_id": "n"}\n'}]
    )
    with page.expect_navigation():
        page.get_by_test_id("update-submit").click()
    assert page.url.endswith(f"/projects/{project.pk}/")
    assert "This project is archived and read-only" in page.inner_text("main")

    # Restored, as live as before
    with page.expect_navigation():
        page.get_by_test_id("restore").click()
    assert "is restored; it is live" in page.inner_text("main")
    assert Project.objects.get(pk=project.pk).archived_at is None

    # Deleted once its name is typed exactly
    with page.expect_navigation():
        page.get_by_test_id("delete-link").click()
    page.get_by_label("Type the project's name").fill("managed")
    with page.expect_navigation():
        page.get_by_test_id("delete").click()
    assert "Type the project's name, 'managed study', exactly to delete it." in page.inner_text("[role=alert]")
    at_every_width(page, screenshot, "manage-project-delete-refused")
    page.get_by_label("Type the project's name").fill("managed study")
    with page.expect_navigation():
        page.get_by_test_id("delete").click()
    assert "Deleted the project “managed study”" in page.inner_text("main")
    assert not Project.objects.filter(pk=project.pk).exists()
