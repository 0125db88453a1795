"""In a browser: a lead creates a Likert project through the wizard with two criteria, watches the preview of
the rater's screen follow the edits, saves the draft and makes it live; the wizard also reads at a tablet
width. Screenshots go to artifacts/."""

import pytest
from django.contrib.auth.models import Permission

from annotation.models import Project
from audit.models import AuditEntry
from tests.annotation.factories import UserFactory
from tests.browser_support import ARTIFACTS, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pass-word-1234"  # UserFactory's


def _creator():
    user = UserFactory(username="wizard-lead")
    user.user_permissions.add(Permission.objects.get(codename="add_project"))
    return user


def _previewed(page, before: int):
    page.wait_for_function(f"Number(document.getElementById('wizard').dataset.previewed || 0) > {before}")
    return int(page.get_attribute("#wizard", "data-previewed"))


def test_a_lead_creates_a_likert_project_sees_the_preview_and_makes_it_live(page, live_server, screenshot):
    lead = _creator()
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server.url, lead.username, PASSWORD, "/")
    with page.expect_navigation():
        page.click("[data-testid=new-project]")
    frame = page.frame_locator("#preview-frame")
    # The preview starts from the sample item and the default criterion, rendered by the real rater template.
    assert "Overall quality" in frame.locator("fieldset.q legend").first.inner_text()
    assert frame.locator("#rate-submit").is_disabled()

    page.fill("#id_name", "Summaries, round 1")
    page.fill("#id_criteria-0-name", "Fluency")
    n = _previewed(page, 0)
    assert frame.locator("fieldset.q legend").first.inner_text().startswith("Fluency")

    # A second criterion by keyboard: the button adds a row and puts the focus in its name field.
    page.focus("#add-criterion")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "id_criteria-1-name"
    page.keyboard.type("Coherence")
    page.fill("#id_criteria-1-labels", "incoherent\nweak\nfair\ngood\nclear")
    n = _previewed(page, n)
    page.wait_for_function("document.getElementById('preview-frame').srcdoc.includes('incoherent')")
    legends = frame.locator("fieldset.q legend").all_inner_texts()
    assert [legend.split(" ")[0] for legend in legends] == ["Fluency", "Coherence"]

    # Coherence moves up; the preview follows.
    page.locator("[data-criterion-row]").nth(1).locator("[data-move='-1']").click()
    n = _previewed(page, n)
    assert [t.split(" ")[0] for t in frame.locator("fieldset.q legend").all_inner_texts()] == ["Coherence", "Fluency"]

    page.fill("#id_instructions", "## Before you start\n\nRead the **whole** summary.")
    _previewed(page, n)
    assert page.inner_html("#instructions-preview").startswith("<h2>Before you start</h2>")
    assert "<strong>whole</strong>" in page.inner_html("#instructions-preview")
    screenshot(page, "console-wizard-1280")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    page.set_viewport_size({"width": 820, "height": 1180})
    screenshot(page, "console-wizard-tablet")
    page.locator(".preview-panel").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "console-wizard-tablet-preview.png"))
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.set_viewport_size({"width": 1280, "height": 800})

    with page.expect_navigation():
        page.click("#save")
    project = Project.objects.get(name="Summaries, round 1")
    assert project.status == "draft"
    assert list(project.criteria.values_list("name", flat=True)) == ["Coherence", "Fluency"]
    assert project.criteria.get(name="Coherence").labels == ["incoherent", "weak", "fair", "good", "clear"]
    assert page.inner_text("[data-testid=project-status]") == "Draft"
    screenshot(page, "console-project-draft")

    page.focus("button[data-status=live]")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.inner_text("[data-testid=project-status]") == "Live"
    assert "The project is live now." in page.inner_text("main")
    screenshot(page, "console-project-live")
    project.refresh_from_db()
    assert project.status == "live"
    assert list(AuditEntry.objects.filter(project=project).order_by("id").values_list("action", flat=True)) == [
        "project.create",
        "project.live",
    ]


def test_errors_show_beside_the_fields_and_take_the_focus(page, live_server, screenshot):
    lead = _creator()
    log_in(page, live_server.url, lead.username, PASSWORD, "/projects/new/")
    page.fill("#id_criteria-0-labels", "one\ntwo")
    page.fill("#id_gold_rate", "120")
    with page.expect_navigation():
        page.click("#save")
    assert page.evaluate("document.activeElement.id") == "form-errors"
    assert "This field is required." in page.inner_text("#id_name_error")
    assert "99" in page.inner_text("#id_gold_rate_error")
    assert "give one label per scale point (5), got 2" in page.inner_text("#id_criteria-0-labels_error")
    assert page.get_attribute("#id_name", "aria-invalid") == "true"
    screenshot(page, "console-wizard-errors")
    assert not Project.objects.exists()


def test_defaults_follow_the_task_type_and_the_preview_shows_its_controls(page, live_server, screenshot):
    lead = _creator()
    log_in(page, live_server.url, lead.username, PASSWORD, "/projects/new/")
    frame = page.frame_locator("#preview-frame")
    page.check("input[name=task_type][value=rankme]")
    assert (page.input_value("#id_criteria-0-scale_min"), page.input_value("#id_criteria-0-scale_max")) == ("0", "100")
    assert page.input_value("#id_criteria-0-labels") == "Worst\nBest"
    n = _previewed(page, 0)
    assert frame.locator("input[type=range]").count() == 3  # one slider per sample output
    assert "own random order" in frame.locator("[data-testid=preview-note]").inner_text()
    screenshot(page, "console-wizard-rankme")

    page.check("input[name=task_type][value=pairwise]")
    assert not page.is_visible("#id_criteria-0-scale_min")
    _previewed(page, n)
    assert "A is better" in frame.locator("fieldset.q").first.inner_text()
    assert frame.locator("[data-testid=output]").count() == 2
