"""Stored XSS: HTML and JavaScript imported in item texts, system names and flag comments are shown
as text on the rater's screen and the lead's pages; no script runs and no dialog opens."""

import io
import json

import pytest

from annotation.models import Membership
from annotation.services import assignment_next_for_rater, item_flag_create, item_import
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pass-word-1234"  # UserFactory's
PAYLOAD = '<script>window.__xss=1;alert("xss")</script><img src=x onerror="window.__xss=1;alert(1)">'


def _hostile_project():
    project = ProjectFactory(
        name="xss study",
        criteria=["fluency"],
        raters_per_item=2,
        double_annotation_share=1,
        instructions="Judge. " + PAYLOAD,
    )
    lead, rater, flagger = UserFactory(username="xlead"), UserFactory(username="xrater"), UserFactory(username="xflag")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    for user in (rater, flagger):
        MembershipFactory(project=project, user=user, role=Membership.Role.RATER)
    line = {
        "external_id": "x1",
        "input": "Input " + PAYLOAD,
        "subgroup": "sg" + PAYLOAD[:30],
        "references": ["Ref " + PAYLOAD],
        "outputs": [{"system": "sys" + PAYLOAD[:40], "text": "Output " + PAYLOAD}],
    }
    item_import(project=project, stream=io.BytesIO((json.dumps(line) + "\n").encode()), fmt="jsonl")
    flagged = assignment_next_for_rater(project_id=project.pk, rater=flagger)
    item_flag_create(rater=flagger, assignment_id=flagged.pk, reason="offensive", comment="Flag " + PAYLOAD, skip=False)
    return project, lead, rater


def _watch(page):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return dialogs


def _assert_inert(page, dialogs, expected_texts):
    assert dialogs == []
    assert page.evaluate("window.__xss === undefined")
    assert page.locator("img[src=x]").count() == 0
    shown = page.inner_text("body")
    for text in expected_texts:
        assert text in shown, (page.url, text)


def test_item_texts_are_shown_as_text_to_the_rater(page, live_server, screenshot):
    project, _, rater = _hostile_project()
    dialogs = _watch(page)
    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/rate/")
    page.wait_for_url("**/instructions/")
    _assert_inert(page, dialogs, ["Judge. <script>"])
    with page.expect_navigation():
        page.click("#start")
    page.wait_for_selector("fieldset.q")
    screenshot(page, "security-xss-rater")
    _assert_inert(page, dialogs, ["Input <script>window.__xss=1;", "Output <script>window.__xss=1;"])


@pytest.mark.parametrize(
    "path", ["/projects/{pk}/", "/projects/{pk}/results/", "/projects/{pk}/agreement/", "/projects/{pk}/export/"]
)
def test_item_texts_and_flag_comments_are_shown_as_text_to_the_lead(page, live_server, path):
    project, lead, _ = _hostile_project()
    dialogs = _watch(page)
    log_in(page, live_server.url, lead.username, PASSWORD, path.format(pk=project.pk))
    page.wait_for_load_state("load")
    expected = ["Flag <script>window.__xss=1;"] if path == "/projects/{pk}/" else []
    _assert_inert(page, dialogs, expected)


MARKDOWN_PAYLOAD = (
    "## Steps\n\nRead **carefully**. [help](javascript:window.__xss=1) "
    "[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==) "
    '![x](x" onerror="window.__xss=1)\n\n' + PAYLOAD
)


@pytest.mark.parametrize("who", ["rater", "lead"])
def test_markdown_instructions_are_rendered_but_run_nothing(page, live_server, who):
    project, lead, rater = _hostile_project()
    project.instructions = MARKDOWN_PAYLOAD
    project.save(update_fields=["instructions"])
    dialogs = _watch(page)
    user, path = (rater, "/projects/{pk}/instructions/") if who == "rater" else (lead, "/projects/{pk}/")
    log_in(page, live_server.url, user.username, PASSWORD, path.format(pk=project.pk))
    page.wait_for_load_state("load")
    _assert_inert(page, dialogs, ["Read carefully.", "<script>window.__xss=1;"])
    instructions = page.locator(".instructions")
    assert instructions.locator("h2").inner_text() == "Steps"
    assert instructions.locator("strong").inner_text() == "carefully"
    assert page.locator("a[href^='javascript'], a[href^='data'], .instructions img, .instructions script").count() == 0
    page.click("text=help")  # a link left without its href goes nowhere
    assert dialogs == [] and page.evaluate("window.__xss === undefined")


def test_the_wizard_preview_renders_markdown_and_item_texts_inert(page, live_server):
    project, lead, _ = _hostile_project()
    dialogs = _watch(page)
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/settings/")
    page.fill("#id_instructions", MARKDOWN_PAYLOAD)
    page.wait_for_function("Number(document.getElementById('wizard').dataset.previewed || 0) > 0")
    assert page.locator("#instructions-preview strong").inner_text() == "carefully"
    assert page.locator("#instructions-preview a[href], #instructions-preview img").count() == 0
    frame = page.frame_locator("#preview-frame")
    assert "Output <script>window.__xss=1;" in frame.locator("body").inner_text()
    assert dialogs == [] and page.evaluate("window.__xss === undefined")


def test_the_lead_console_shows_item_texts_system_names_and_flags_as_text(page, live_server):
    project, lead, _ = _hostile_project()
    item = project.items.get()
    dialogs = _watch(page)
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/items/")
    _assert_inert(page, dialogs, ["sys<script>window.__xss=1;"])
    page.goto(f"{live_server.url}/projects/{project.pk}/items/{item.pk}/")
    _assert_inert(
        page,
        dialogs,
        [
            "Input <script>window.__xss=1;",
            "Output <script>window.__xss=1;",
            "Ref <script>window.__xss=1;",
            "Flag <script>window.__xss=1;",
        ],
    )
    page.goto(f"{live_server.url}/projects/{project.pk}/progress/")
    _assert_inert(page, dialogs, [])


def test_the_upload_error_report_shows_hostile_field_names_as_text(page, live_server, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path
    project, lead, _ = _hostile_project()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"external_id": "y", "input": "i", "outputs": [], PAYLOAD: 1}) + "\n")
    dialogs = _watch(page)
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/items/upload/")
    page.set_input_files("#id_file", str(bad))
    page.click("text=Upload and import")
    page.wait_for_selector("#upload-progress[data-state=failed]")
    _assert_inert(page, dialogs, ["unknown field '<script>window.__xss=1;"])
