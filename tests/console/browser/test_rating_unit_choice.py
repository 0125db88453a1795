"""In a browser: the wizard's choice of what each criterion rates (whole output, each assistant turn, both),
refused beside the field for a task type that rates whole outputs only and kept for a Likert project; the
form is screenshotted at desktop, tablet and phone widths (artifacts/)."""

import pytest
from django.contrib.auth.models import Permission

from annotation.models import Project
from tests.annotation.factories import UserFactory
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pass-word-1234"  # UserFactory's


def test_the_lead_chooses_per_turn_rating_and_a_pairwise_project_is_refused_it(page, live_server, screenshot):
    lead = UserFactory(username="turns-lead")
    lead.user_permissions.add(Permission.objects.get(codename="add_project"))
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server.url, lead.username, PASSWORD, "/projects/new/")
    assert "each assistant turn on its own" in page.inner_text("main")

    # Given a pairwise project asked to rate each turn, when saved, then the error sits beside the choice.
    page.fill("#id_name", "Chat pairs")
    page.check("input[name=task_type][value=pairwise]")
    page.check("input[name=rating_unit][value=turn]")
    with page.expect_navigation():
        page.click("#save")
    error = page.locator("#id_rating_unit_error")
    assert "rates whole outputs only" in error.inner_text()
    assert not Project.objects.filter(name="Chat pairs").exists()
    assert page.is_checked("input[name=rating_unit][value=turn]")  # the form comes back as the lead left it
    error.scroll_into_view_if_needed()
    at_every_width(page, screenshot, "wizard-rating-unit-refused")

    # A Likert project takes "both".
    page.check("input[name=task_type][value=likert]")
    page.check("input[name=rating_unit][value=both]")
    with page.expect_navigation():
        page.click("#save")
    assert Project.objects.get(name="Chat pairs").rating_unit == "both"
