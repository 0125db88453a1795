"""The consent and profile form a rater meets before the first screen, in Chromium at a laptop's, a tablet's and
a phone's width (screenshots): a missing required answer is named, then agreeing stores the answers and opens
the rating screen."""

import pytest

from annotation.models import Membership, ProfileField, RaterProfile
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import PASSWORD, wait_for_screen
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import rating_project
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONSENT = (
    "We ask about your languages to break the results down by them. Your answers are stored with a "
    "pseudonym, never with your name.\nYou may stop at any time."
)


def test_the_rater_agrees_to_the_form_and_goes_on_to_the_first_screen(page, live_server, screenshot):
    project = rating_project(n_items=2, name="Summaries with profiles", profile_consent=CONSENT)
    ProfileField.objects.create(
        project=project, name="Native language", kind="choice", choices=["English", "German", "Other"], required=True
    )
    ProfileField.objects.create(project=project, name="Years of English", kind="number", position=1)
    ProfileField.objects.create(
        project=project, name="Age band", kind="choice", choices=["18–30", "31–50", "51+"], position=2, sensitive=True
    )
    rater = UserFactory(username="profiled-rater")
    MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)

    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/instructions/")
    page.goto(f"{live_server.url}/projects/{project.pk}/rate/")

    assert page.url.endswith(f"/projects/{project.pk}/profile/")
    assert "break the results down" in page.get_by_test_id("consent-text").inner_text()
    at_every_width(page, screenshot, "rater-profile-form", check=problems)

    page.fill('input[name="p-1"]', "12")
    with page.expect_navigation():
        page.click("#profile-agree")
    assert "Native language: required" in page.get_by_role("alert").inner_text().replace("answers.", "")
    assert not RaterProfile.objects.exists()
    screenshot(page, "rater-profile-form-refused")

    page.get_by_label("German").check()
    with page.expect_navigation():
        page.click("#profile-agree")
    wait_for_screen(page)

    assert RaterProfile.objects.get().answers == {"Native language": "German", "Years of English": 12.0}
