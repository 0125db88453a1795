"""In Chromium, without the API: a lead uploads work, training and gold items, sets the QC rules, the controls
(degraded copies, repeats, their rates), the training and the qualification gate; a rater answers the training
wrong and gets the polite end page; the lead sees why on the rater's page and admits them, and the rater gets
real work. Every QC page and the end page fit 1280, 768 and 390 pixels without sideways scrolling and pass
axe-core; screenshots of each go to artifacts/."""

import json

import pytest

from annotation.models import Item, Membership, QcRules, QualificationOutcome
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import PASSWORD, enter_project, wait_for_screen
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import VIEWPORTS, at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WHY = "Every sentence of this summary is true to the source."


def _line(external_id: str, text: str, output: str, **extra) -> dict:
    return {"external_id": external_id, "input": text, "outputs": [{"system": "bart", "text": output}], **extra}


def _items() -> list[dict]:
    work = [
        _line(f"doc{k:02d}", f"Source text {k}. " * 6, f"A summary of source {k}. It has two sentences.")
        for k in range(10)
    ]
    training = [
        _line(
            f"train{k}",
            f"Training source {k}.",
            f"A fluent training summary {k}.",
            gold={"fluency": 5},
            training=True,
            meta={"explanation": WHY},
        )
        for k in range(2)
    ]
    gold = [
        _line(f"check{k}", f"Checking source {k}.", "summary summary summary", gold={"fluency": 1}) for k in range(2)
    ]
    return work + training + gold


def _at_every_width(page, url: str, name: str, screenshot) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    at_every_width(page, screenshot, f"qc-{name}", check=problems)


def test_a_lead_sets_up_quality_control_and_the_gate_and_a_rater_fails_it(
    browser, page, live_server, screenshot, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    project = ProjectFactory(name="gated study", criteria=["fluency"])
    lead = UserFactory(username="gate-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    rater = UserFactory(username="gate-rater")
    MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
    base = f"{live_server.url}/projects/{project.pk}"
    page.set_viewport_size(VIEWPORTS["desktop"])

    # The items, on the upload page
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/items/upload/")
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in _items()))
    page.get_by_label("File (JSONL or CSV)").set_input_files(str(path))
    page.get_by_role("button", name="Upload and import").click()
    page.wait_for_selector("#upload-progress[data-state=done]")

    # The rules, from the QC page
    page.goto(f"{base}/raters/")
    with page.expect_navigation():
        page.get_by_role("link", name="Set the rules").click()
    page.get_by_label("Gold accuracy needed (%)").fill("80")
    page.get_by_label("Gold screens answered before the accuracy rule applies").fill("2")
    page.get_by_label("Fastest plausible time per screen (seconds)").fill("1.5")
    page.get_by_label("Identical answers in a row allowed").fill("8")
    page.get_by_label("Degraded controls: p-value limit").fill("0.05")
    page.get_by_label("When a rule fires").select_option("pause")
    with page.expect_navigation():
        page.get_by_role("button", name="Save the rules").click()
    assert "Rules version 1 is in force" in page.inner_text("main")
    rules = QcRules.objects.get(project=project)
    assert (
        rules.gold_accuracy_threshold,
        rules.min_seconds_per_judgment,
        rules.degraded_p_threshold,
        rules.action,
    ) == (0.8, 1.5, 0.05, "pause")

    # The controls, training and the gate
    page.get_by_role("link", name="Controls, training and gate").click()
    page.wait_for_selector("[data-testid=control-settings]")
    page.get_by_label("Training screens per rater").fill("2")
    page.get_by_label("Qualification pass mark (%)").fill("100")
    page.get_by_label("Gold screens (% of screens)").fill("10")
    page.get_by_label("Repeat screens (% of screens)").fill("10")
    with page.expect_navigation():
        page.get_by_role("button", name="Save", exact=True).click()
    assert "The control settings are saved." in page.inner_text("main")
    page.get_by_label("Degraded copies to add").fill("2")
    page.get_by_label("Random seed").first.fill("3")
    with page.expect_navigation():
        page.get_by_role("button", name="Add degraded copies").click()
    assert "2 degraded copies added." in page.inner_text("main")
    page.get_by_label("Items to repeat").fill("2")
    with page.expect_navigation():
        page.get_by_role("button", name="Add repeats").click()
    assert "2 repeat copies added." in page.inner_text("main")
    project.refresh_from_db()
    assert (
        project.training_items,
        project.training_pass_mark,
        project.gold_rate,
        project.repeat_rate,
        project.n_degraded,
    ) == (2, 1.0, 0.1, 0.1, 2)
    assert Item.objects.filter(project=project, repeat_of__isnull=False).count() == 2
    _at_every_width(page, f"{base}/qc/controls/", "controls", screenshot)
    _at_every_width(page, f"{base}/qc/rules/", "rules", screenshot)

    # The rater answers both training items wrong, reads the feedback, and is not admitted
    rater_context = browser.new_context(viewport=VIEWPORTS["desktop"])
    rater_page = rater_context.new_page()
    rater_page.set_default_timeout(15_000)
    enter_project(rater_page, live_server, rater, project)
    for _ in range(2):
        assert "Training source" in rater_page.inner_text("[data-testid=input]")
        rater_page.keyboard.press("1")
        with rater_page.expect_navigation():
            rater_page.keyboard.press("Enter")
        assert WHY in rater_page.inner_text("[data-testid=training-feedback]")
        with rater_page.expect_navigation():
            rater_page.get_by_role("link", name="Next").click()
    end = rater_page.inner_text("[data-testid=not-admitted]")
    assert "did not reach the mark" in end and "Source text" not in rater_page.content()
    _at_every_width(rater_page, f"{base}/rate/", "not-admitted", screenshot)
    assert not QualificationOutcome.objects.get(rater=rater).passed

    # The lead sees the decision and why, on the QC page and the rater's page, and admits them
    page.goto(f"{base}/raters/")
    row = page.locator(f"tr[data-rater='{rater.username}']")
    assert "not admitted" in row.inner_text()
    assert "0 of 2 training items answered right, below the pass mark of 100 %" in page.inner_text(
        "[data-testid=action-log]"
    )
    _at_every_width(page, f"{base}/raters/", "raters", screenshot)
    with page.expect_navigation():
        row.get_by_role("link", name=rater.username).click()
    assert "0 of 2 training items answered right" in page.inner_text("[data-testid=gate-outcome]")
    _at_every_width(page, page.url, "rater-evidence", screenshot)
    page.get_by_placeholder("reason (logged)").fill("read the scale backwards; talked it through")
    with page.expect_navigation():
        page.get_by_role("button", name="Admit to the real work").click()
    assert "admit logged" in page.inner_text("main")
    assert "then admitted by gate-lead" in page.inner_text("[data-testid=gate-outcome]")

    # Now the rater gets real work
    rater_page.goto(f"{base}/rate/")
    wait_for_screen(rater_page)
    assert "Training source" not in rater_page.inner_text("[data-testid=input]")
    rater_context.close()
