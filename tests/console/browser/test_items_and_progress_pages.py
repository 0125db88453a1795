"""In Chromium: a lead uploads a JSONL file on the upload page and watches the progress bar finish, finds the
items in the browser, sees a bad file refused line by line, then opens the progress page with its chart drawn,
at 1280×800 and at a tablet's width. Screenshots go to artifacts/."""

import json

import pytest

from annotation.models import Item, Membership
from annotation.services import assignment_next_for_rater, judgment_submit
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.annotation.rating import full_values
from tests.browser_support import inked_pixels, log_in, page_overflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

N_ITEMS = 40


def _jsonl(tmp_path, name, lines) -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" if isinstance(line, dict) else line + "\n" for line in lines))
    return str(path)


def _items():
    return [
        {
            "external_id": f"doc{k:02d}",
            "input": f"Source text {k}",
            "subgroup": ("news", "sport")[k % 2],
            "outputs": [{"system": "bart", "text": f"bart summary {k}"}],
        }
        for k in range(N_ITEMS)
    ]


def test_upload_browse_and_progress(page, live_server, screenshot, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    project = ProjectFactory(name="console study", criteria=["fluency"])
    lead = UserFactory(username="console-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    page.set_viewport_size({"width": 1280, "height": 800})

    # The lead reaches the upload page from the project page, by keyboard: the file field is labelled.
    log_in(page, live_server.url, "console-lead", "pass-word-1234", f"/projects/{project.pk}/")
    with page.expect_navigation():
        page.get_by_role("link", name="Upload items").first.click()
    page.get_by_label("File (JSONL or CSV)").set_input_files(_jsonl(tmp_path, "items.jsonl", _items()))
    page.get_by_role("button", name="Upload and import").focus()
    page.keyboard.press("Enter")

    # Then the bar goes through the upload and the server's import job to the end
    page.wait_for_selector("#upload-progress[data-state=done]")
    assert page.eval_on_selector("#upload-progress", "el => el.value") == 100
    assert f"Imported {N_ITEMS} items." in page.inner_text("#upload-message")
    assert Item.objects.filter(project=project).count() == N_ITEMS
    screenshot(page, "console-upload-done")

    # A file with bad lines is refused with each line, field and problem; nothing more is stored
    bad = [
        {"external_id": "new1", "input": "x", "outputs": [{"system": "bart", "text": "y"}]},
        {"external_id": "new2", "outputs": [{"system": "bart", "text": "y"}]},
        "{not json",
    ]
    page.get_by_label("File (JSONL or CSV)").set_input_files(_jsonl(tmp_path, "bad.jsonl", bad))
    page.get_by_role("button", name="Upload and import").click()
    page.wait_for_selector("#upload-progress[data-state=failed]")
    rows = page.locator("[data-testid=import-errors] tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).inner_text().split("\t") == ["2", "input", "input is missing"]
    assert rows.nth(1).inner_text().startswith("3\t—\tbad JSON")
    assert Item.objects.filter(project=project).count() == N_ITEMS
    screenshot(page, "console-upload-refused")

    # The items are in the browser; filtering by subgroup halves them
    with page.expect_navigation():
        page.get_by_test_id("lead-nav").get_by_role("link", name="Items", exact=True).click()
    assert page.locator("[data-testid=items] tbody tr").count() == N_ITEMS
    page.get_by_label("Subgroup").select_option("news")
    page.get_by_label("External id contains").press("Enter")
    page.wait_for_url("**subgroup=news**")
    assert page.locator("[data-testid=items] tbody tr").count() == N_ITEMS // 2
    assert page.inner_text('[data-status="untouched"]') == str(N_ITEMS // 2)
    screenshot(page, "console-item-browser")

    # Given two raters who judged some of the items
    judged_by_first = []
    for k in range(2):
        rater = UserFactory(username=f"console-rater-{k}")
        MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
        for _ in range(6 + 4 * k):
            assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
            judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 4))
            if k == 0:
                judged_by_first.append(assignment.item.external_id)
    assignment_next_for_rater(project_id=project.pk, rater=rater)  # one screen left open: a lease

    # An item's page shows each judgment with its rater and system (raters are served in their own order)
    external_id = judged_by_first[0]
    page.goto(f"{live_server.url}/projects/{project.pk}/items/?q={external_id}")
    with page.expect_navigation():
        page.get_by_role("link", name=external_id, exact=True).click()
    judgments = page.inner_text("[data-testid=judgments]")
    assert "console-rater-0" in judgments and "bart" in judgments and "Current" in judgments
    screenshot(page, "console-item-detail")

    # When the lead opens the progress page, the chart is drawn and the numbers add up
    page.clock.install()  # the page refreshes its numbers every 30 s: the test moves the clock on
    with page.expect_navigation():
        page.get_by_test_id("lead-nav").get_by_role("link", name="Progress").click()
    page.wait_for_selector("#per-day-chart[data-drawn=true]")
    inked = inked_pixels(page, "per-day-chart")
    assert inked > 1000
    assert page.inner_text('[data-key="complete"]') == "16"
    assert page.inner_text('[data-key="untouched"]') == str(N_ITEMS - 17)
    assert "console-rater-1" in page.inner_text("[data-testid=leases]")
    assert "console-rater-1" in page.inner_text("[data-testid=rater-throughput]")
    assert page_overflow(page) <= 0
    screenshot(page, "console-progress")

    # And it refreshes from the summary API when more work is done
    for _ in range(4):
        assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 4))
    page.clock.run_for(31_000)
    page.wait_for_function("document.querySelector('[data-key=complete]').textContent === '20'")
    assert page.inner_text('[data-key="percent_complete"]') == "50"

    # At a tablet's width the pages still fit
    page.set_viewport_size({"width": 768, "height": 1024})
    page.reload()
    page.wait_for_selector("#per-day-chart[data-drawn=true]")
    assert page_overflow(page) <= 0
    screenshot(page, "console-progress-tablet")
    with page.expect_navigation():
        page.get_by_test_id("lead-nav").get_by_role("link", name="Items", exact=True).click()
    assert page_overflow(page) <= 0
    screenshot(page, "console-item-browser-tablet")
