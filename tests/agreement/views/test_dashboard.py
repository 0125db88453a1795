"""The agreement dashboard: drawn from stored snapshots, a fixed number of queries, leads only."""
import pytest

from agreement.services import snapshot_compute_for_project
from tests.agreement.pandalm import load_pandalm
from tests.annotation.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def pandalm_lead(datasets):
    project, _ = load_pandalm(datasets)
    lead = UserFactory(username="dash-lead")
    project.memberships.create(user=lead, role="lead")
    snapshot_compute_for_project(project_id=project.id)
    return project, lead


def test_the_dashboard_renders_labels_pairs_subgroups_and_raters_in_constant_queries(
        client, pandalm_lead, django_assert_max_num_queries):
    project, lead = pandalm_lead
    client.force_login(lead)
    with django_assert_max_num_queries(12):
        response = client.get(f"/projects/{project.id}/agreement/")
    html = response.content.decode()
    assert response.status_code == 200
    for text in ("Krippendorff&#x27;s α (ordinal)", "annotator1", "Cohen&#x27;s κ", "Grammarly", "trend-data",
                 "0.864", "0.85<br>"):
        assert text in html, text


def test_before_any_recompute_the_page_says_so(client, project, lead):
    client.force_login(lead)
    assert b"No agreement has been computed yet" in client.get(f"/projects/{project.id}/agreement/").content


def test_raters_and_outsiders_cannot_see_the_dashboard(client, project, rater):
    client.force_login(rater)
    assert client.get(f"/projects/{project.id}/agreement/").status_code == 403
    client.force_login(UserFactory(username="nobody"))
    assert client.get(f"/projects/{project.id}/agreement/").status_code == 404


def test_the_recompute_button_starts_a_job(client, project, lead):
    client.force_login(lead)
    response = client.post(f"/projects/{project.id}/agreement/recompute/", follow=True)
    assert b"Recompute started" in response.content


def test_a_label_no_unit_of_which_is_rated_twice_yet_renders(client, lead):
    from annotation.models import Membership
    from annotation.services import assignment_next_for_rater, judgment_submit
    from tests.annotation.rating import add_raters, full_values, rating_project

    project = rating_project(n_items=3, criteria=["fluency"], systems=["s1"])
    project.memberships.create(user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project)
    for _ in range(3):
        assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 4))
    snapshot_compute_for_project(project_id=project.id)
    client.force_login(lead)
    response = client.get(f"/projects/{project.id}/agreement/")
    assert response.status_code == 200
