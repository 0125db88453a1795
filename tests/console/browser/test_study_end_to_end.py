"""A whole study in the browser, as issue 10 asks: a lead creates a project through the wizard, uploads its
items, makes it live and invites a rater by link; the rater signs up and judges every item from the keyboard;
the lead's progress page then shows 100%. A screenshot of each page goes to artifacts/study-*.png."""

import json

import pytest
from django.contrib.auth.models import Permission

from annotation.models import Judgment, Project
from audit.models import AuditEntry
from tests.annotation.browser.test_rater_keyboard import submit_and_wait, wait_for_screen
from tests.annotation.factories import UserFactory
from tests.browser_support import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LEAD_PASSWORD = "pass-word-1234"  # UserFactory's
RATER_PASSWORD = "a long and fresh passphrase"
N_ITEMS = 3


def test_a_lead_runs_a_study_from_the_wizard_to_full_progress(
    browser, page, live_server, screenshot, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    lead = UserFactory(username="study-lead")
    lead.user_permissions.add(Permission.objects.get(codename="add_project"))
    page.set_viewport_size({"width": 1280, "height": 800})

    # 1. The wizard: one rater per item, no gold, the default 1-5 Likert criterion
    log_in(page, live_server.url, lead.username, LEAD_PASSWORD, "/")
    screenshot(page, "study-01-home")
    with page.expect_navigation():
        page.click("[data-testid=new-project]")
    page.fill("#id_name", "Summaries, pilot")
    page.fill("#id_raters_per_item", "1")
    page.fill("#id_double_annotation_share", "0")
    page.fill("#id_criteria-0-name", "Fluency")
    page.fill("#id_instructions", "## Task\n\nRate how **fluent** each summary is.")
    page.wait_for_function("document.getElementById('preview-frame').srcdoc.includes('Fluency')")
    screenshot(page, "study-02-wizard")
    with page.expect_navigation():
        page.click("#save")
    project = Project.objects.get(name="Summaries, pilot")
    assert page.inner_text("[data-testid=project-status]") == "Draft"
    screenshot(page, "study-03-draft")

    # 2. Items, through the upload page and its progress bar
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps(
                {
                    "external_id": f"doc{k}",
                    "input": f"Source text number {k}.",
                    "outputs": [{"system": "bart", "text": f"Summary {k}."}],
                }
            )
            + "\n"
            for k in range(N_ITEMS)
        )
    )
    with page.expect_navigation():
        page.get_by_role("link", name="Upload items").first.click()
    page.get_by_label("File (JSONL or CSV)").set_input_files(str(items))
    page.get_by_role("button", name="Upload and import").click()
    page.wait_for_selector("#upload-progress[data-state=done]")
    assert f"Imported {N_ITEMS} items." in page.inner_text("#upload-message")
    screenshot(page, "study-04-upload")

    # 3. Live, then a single-use invite from the team page
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    with page.expect_navigation():
        page.click("button[data-status=live]")
    assert page.inner_text("[data-testid=project-status]") == "Live"
    with page.expect_navigation():
        page.get_by_test_id("lead-nav").get_by_role("link", name="Team", exact=True).click()
    with page.expect_navigation():
        page.click("text=invite links")
    page.check("input[name=kind][value=single]")
    with page.expect_navigation():
        page.click("text=Create invite")
    link = page.input_value("input.invite-url")
    screenshot(page, "study-05-invite")

    # 4. The rater, in a browser of their own, signs up through the link and judges every item by keyboard
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    rater = context.new_page()
    rater.set_default_timeout(15_000)
    rater.goto(link)
    rater.fill("#id_username", "pilot-rater")
    rater.fill("#id_password", RATER_PASSWORD)
    rater.fill("#id_password_again", RATER_PASSWORD)
    with rater.expect_navigation():
        rater.click("text=Sign up and join")
    rater.wait_for_url("**/instructions/")
    assert rater.locator(".instructions strong").inner_text() == "fluent"
    screenshot(rater, "study-06-rater-instructions")
    with rater.expect_navigation():
        rater.click("#start")
    wait_for_screen(rater)
    screenshot(rater, "study-07-rater-screen")
    for k in range(N_ITEMS):
        rater.keyboard.press(str(2 + k))
        submit_and_wait(rater)
    assert rater.locator("[data-testid=finished]").is_visible()
    screenshot(rater, "study-08-rater-finished")
    context.close()
    assert sorted(Judgment.objects.filter(project=project, is_current=True).values_list("value", flat=True)) == [
        2,
        3,
        4,
    ]

    # 5. The lead's progress page: every slot filled, the rater's throughput, no lease left open
    page.goto(f"{live_server.url}/projects/{project.pk}/progress/")
    assert float(page.inner_text("[data-key=percent_complete]")) == 100
    assert page.get_attribute("[data-testid=eta]", "data-status") == "done"
    assert "pilot-rater" in page.inner_text("[data-testid=rater-throughput]")
    screenshot(page, "study-09-progress")
    assert {"project.create", "items.import", "project.live", "invite.create"} <= set(
        AuditEntry.objects.filter(project=project).values_list("action", flat=True)
    )
