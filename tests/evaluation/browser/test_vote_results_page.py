"""In a browser: the results page of a project with imported arena votes shows their ranking beside the judgments'
section, at desktop, tablet and phone widths, nothing scrolling sideways but the tables' own boxes."""

import pytest

from annotation.models import Membership
from evaluation.services.vote_import import vote_import
from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.annotation.factories import MembershipFactory, ProjectFactory
from tests.browser_support import at_every_width, log_in
from tests.evaluation.vote_files import arena_rows, write_csv

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_lead_reads_the_ranking_of_imported_votes(page, live_server, screenshot, django_user_model, tmp_path):
    lead = django_user_model.objects.create_user(username="votes-lead", password=PASSWORD)
    project = ProjectFactory(task_type="pairwise", criteria=["overall"], name="arena votes")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    vote_import(project=project, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv")

    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/results/")
    votes = page.get_by_test_id("votes")
    assert page.get_by_role("heading", name="overall: imported votes").is_visible()
    assert [row.locator("td").first.inner_text() for row in votes.locator("tbody tr").all()] == ["a", "b", "c"]
    at_every_width(page, screenshot, "vote-results")
