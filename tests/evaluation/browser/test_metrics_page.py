"""In a browser: a lead opens the Metrics page from the project bar, uploads a word-vector file with a
bad line (refused, the line named), then a training corpus, and sees the catalogue say which
metrics are available; the results page shows a calibrator's gain and bootstrap p-value. Desktop,
tablet and phone widths, none scrolling sideways."""

import pytest

from annotation.models import Membership, Output
from evaluation.models import MetricScore
from evaluation.services import calibrator_fit
from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import ARTIFACTS, log_in
from tests.evaluation.factories import rated_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def no_sideways_scroll(page, width):
    page.set_viewport_size({"width": width, "height": 1024 if width == 768 else 844})
    page.reload()
    scroll = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate(
        """(w) => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1)
        .slice(0, 3).map(e => e.tagName + '.' + e.className + ' ' + e.textContent.slice(0, 40))""",
        width,
    )
    assert scroll <= width + 1, f"the page scrolls sideways at {width}px ({scroll}px): {wide}"


def test_the_lead_uploads_metric_inputs_and_reads_the_calibration(page, live_server, screenshot):
    project = ProjectFactory(name="metrics study", criteria=["fluency"])
    lead = UserFactory(username="metrics-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    rated_study(project, n_items=30, systems=("a", "b", "c"), n_raters=2)
    outputs = list(Output.objects.filter(item__project=project))
    for k, output in enumerate(outputs):
        for name, value in (("m1", k % 7 + (output.system == "a") * 3), ("m2", (k * 5) % 11)):
            MetricScore.objects.create(project=project, output=output, name=name, value=float(value), source="imported")
    calibrator_fit(project=project, name="mix", criterion="fluency", metrics=["m1", "m2"], n_resamples=500)

    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/")
    with page.expect_navigation():
        page.get_by_test_id("lead-nav").get_by_role("link", name="Metrics").click()
    assert "no training corpus has been uploaded" in page.locator("tr[data-metric=dialog_kl1]").inner_text()

    form = page.locator("#upload-word_vectors")
    form.locator("input[type=file]").set_input_files(
        {"name": "vectors.vec", "mimeType": "text/plain", "buffer": b"good 1 0\nbad 0 one\n"}
    )
    with page.expect_navigation():
        form.get_by_role("button", name="Upload").click()
    alert = page.get_by_role("alert")
    assert alert.inner_text() == "word vectors: line 2: could not convert string to float: 'one'"
    screenshot(page, "metrics-upload-refused")

    form = page.locator("#upload-training_corpus")
    form.locator("input[type=file]").set_input_files(
        {"name": "train.txt", "mimeType": "text/plain", "buffer": b"good morning\nbad night\n"}
    )
    with page.expect_navigation():
        form.get_by_role("button", name="Upload").click()
    assert "train.txt" in page.get_by_test_id("current-training_corpus").inner_text()
    assert page.locator("tr[data-metric=dialog_kl1] td").last.inner_text() == "available"
    assert "word-vector file" in page.locator("tr[data-metric=dialog_embedding_greedy]").inner_text()
    screenshot(page, "metrics-page")
    no_sideways_scroll(page, 768)
    screenshot(page, "metrics-page-tablet")
    no_sideways_scroll(page, 390)
    screenshot(page, "metrics-page-phone")

    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/projects/{project.pk}/results/")
    table = page.locator("table[data-calibrator=mix]")
    assert table.locator("tbody tr").count() == 3
    assert "p (bootstrap)" in table.inner_text()
    page.locator("#calibrators").scroll_into_view_if_needed()
    screenshot(page, "results-calibrators")
    # (the page's comparison tables are wider than a phone; the calibrators section is not)
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert page.evaluate("document.getElementById('calibrators').getBoundingClientRect().right") <= 391
    page.locator("#calibrators").screenshot(path=str(ARTIFACTS / "results-calibrators-phone.png"))
