"""In Chromium at a desktop's, a tablet's and a phone's width: the error pages keep the site's layout, fit
the screen without sideways scrolling, pass axe-core's WCAG 2.1 A/AA rules, say what happened and their link back
works; the favicon is served; the API docs render with no network beyond the site."""

import pytest

from annotation.models import Membership
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "pass-word-1234"


def _laid_out(page) -> list:
    """What is wrong with an error page at the current width: the site's bar hidden, axe-core's findings."""
    hidden = [] if page.locator("header.topbar .brand").is_visible() else ["the site's bar is hidden"]
    return hidden + problems(page)


def check_page(page, screenshot, name: str, status_heading: str, code: int):
    assert page.locator(".error-page .error-code").inner_text().upper() == f"ERROR {code}"
    assert page.get_by_role("heading", level=1).inner_text() == status_heading
    at_every_width(page, screenshot, f"error-{name}", check=_laid_out)


def test_404_and_its_link_back(page, live_server, screenshot):
    response = page.goto(f"{live_server.url}/projects/424242/a-page-that-is-not-there/")
    assert response.status == 404
    check_page(page, screenshot, "404", "Page not found", 404)
    with page.expect_navigation():
        page.get_by_role("link", name="Back to your projects").click()
    assert "/accounts/login/" in page.url  # home, which sends an anonymous visitor to the login page


def test_403_for_a_rater_on_a_lead_page(page, live_server, screenshot):
    project = ProjectFactory(name="study")
    rater = UserFactory(username="rater", password=PASSWORD)
    MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
    log_in(page, live_server.url, "rater", PASSWORD, "/")
    response = page.goto(f"{live_server.url}/projects/{project.pk}/progress/")
    assert response.status == 403
    assert "Only the project's leads may do this." in page.inner_text("main")
    check_page(page, screenshot, "403", "You may not open this page", 403)


def test_429_after_repeated_bad_logins(page, live_server, screenshot, settings):
    settings.AXES_FAILURE_LIMIT = 3
    UserFactory(username="rater", password=PASSWORD)
    for i in range(3):
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", "rater")
        page.fill("#id_password", f"guess-{i}")
        with page.expect_navigation() as navigation:
            page.press("#id_password", "Enter")
    assert navigation.value.status == 429
    assert "Wait 15 minutes" in page.inner_text("main")
    check_page(page, screenshot, "429", "Too many attempts", 429)
    with page.expect_navigation():
        page.get_by_role("link", name="Back to the login page").click()
    assert page.locator("#id_username").is_visible()


def test_csrf_failure(page, live_server, screenshot):
    UserFactory(username="rater", password=PASSWORD)
    page.goto(f"{live_server.url}/accounts/login/")
    page.context.clear_cookies()
    page.fill("#id_username", "rater")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation() as navigation:
        page.press("#id_password", "Enter")
    assert navigation.value.status == 403
    assert "cookie" in page.inner_text("main")
    check_page(page, screenshot, "csrf", "The form could not be accepted", 403)


@pytest.mark.urls("tests.config.failing_urls")
def test_500(page, live_server, screenshot):
    response = page.goto(f"{live_server.url}/boom/")
    assert response.status == 500
    check_page(page, screenshot, "500", "Something went wrong on our side", 500)


def test_the_favicon_is_served(page, live_server):
    response = page.goto(f"{live_server.url}/favicon.ico")
    assert response.status == 200 and response.headers["content-type"] == "image/x-icon"


def test_the_api_docs_render_with_the_network_cut_off(page, live_server, screenshot):
    outside = []

    def only_this_site(route):
        if route.request.url.startswith(live_server.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_this_site)
    page.goto(f"{live_server.url}/api/docs/")
    assert page.locator(".swagger-ui .info .title").inner_text().startswith("Concord API")
    assert page.locator(".opblock").count() > 10
    assert outside == []
    screenshot(page, "api-docs-offline")
