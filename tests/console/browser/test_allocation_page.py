"""In Chromium: a lead opens the allocation page of the issue-18 study before it starts, previews the design
for a quota (per rater, per pair, which pair agreement is computable), saves it, and gives one rater an own
quota; at desktop, tablet and phone widths. Screenshots go to artifacts/."""

import pytest

from annotation.models import Membership, Project
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import VIEWPORTS, at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_design_preview_and_quotas(page, live_server, screenshot):
    project = ProjectFactory(
        name="pairwise study",
        task_type="pairwise",
        criteria=["overall"],
        raters_per_item=2,
        status=Project.Status.DRAFT,
    )
    for i in range(24):
        ItemFactory(project=project, n_target=2 if i % 2 == 0 else 1, systems=["bart", "t5"])
    lead = UserFactory(username="alloc-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    rater = UserFactory(username="alloc-rater")
    MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
    page.set_viewport_size(VIEWPORTS["desktop"])
    log_in(page, live_server.url, "alloc-lead", "pass-word-1234", f"/projects/{project.pk}/")

    # The page is in the lead's bar; before any setting there is no design, and it says what that means
    with page.expect_navigation():
        page.get_by_role("link", name="Allocation").first.click()
    assert "No design" in page.inner_text("[data-testid=design-summary]")

    # A maximum of 12 screens previews a design of 3 raters of 12 screens, every pair sharing 4 units
    page.get_by_label("Maximum screens per rater").fill("12")
    with page.expect_navigation():
        page.get_by_role("button", name="Preview the design").click()
    assert "3 raters" in page.inner_text("[data-testid=design-summary]")
    assert page.inner_text("[data-testid=computable-pairs]") == "3 of 3"
    rows = page.locator("[data-testid=design-places] tbody tr")
    assert [rows.nth(i).inner_text().split("\t")[1] for i in range(3)] == ["12", "12", "12"]
    assert Project.objects.get(pk=project.pk).max_screens_per_rater is None  # a preview saves nothing

    # Asking 6 shared units per pair cannot be met: the lead is told why before the study starts
    page.get_by_label("Shared units per pair of raters (at least)").fill("6")
    with page.expect_navigation():
        page.get_by_role("button", name="Preview the design").click()
    assert "share fewer than 6 units" in page.inner_text("[data-testid=design-warnings]")
    page.get_by_label("Shared units per pair of raters (at least)").fill("4")
    page.get_by_label("Minutes a left rater's shared items wait for their successor").fill("30")
    with page.expect_navigation():
        page.get_by_role("button", name="Save").first.click()
    assert "Allocation saved" in page.content()
    saved = Project.objects.get(pk=project.pk)
    assert (saved.max_screens_per_rater, saved.min_pair_overlap, saved.plan_size) == (12, 4, 3)
    assert saved.vacated_hold_minutes == 30

    # One rater gets an own maximum; bad input is refused with a message, nothing saved
    page.get_by_label("Own maximum of alloc-rater").fill("10")
    with page.expect_navigation():
        page.locator("[data-testid=rater-quotas] button").click()
    assert "own quota saved" in page.content()
    assert Membership.objects.get(project=project, user=rater).max_screens == 10
    page.get_by_label("Own maximum of alloc-rater").evaluate("el => el.removeAttribute('min')")
    page.get_by_label("Own maximum of alloc-rater").fill("0")
    with page.expect_navigation():
        page.locator("[data-testid=rater-quotas] button").click()
    assert page.locator("[role=alert]").is_visible()
    assert Membership.objects.get(project=project, user=rater).max_screens == 10

    page.goto(f"{live_server.url}/projects/{project.pk}/allocation/")
    at_every_width(page, screenshot, "console-allocation")
