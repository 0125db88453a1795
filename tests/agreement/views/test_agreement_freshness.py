"""What the agreement page says when there is no agreement (not enough overlap, or not computed yet, with the
button), how fresh it is once computed, and the lead's setting of the automatic recompute."""

import pytest

from agreement.models import AgreementSettings
from agreement.services import agreement_recompute_start
from annotation.models import Membership
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(client):
    project = ProjectFactory(name="fresh study", criteria=["fluency"], raters_per_item=2, double_annotation_share=0.5)
    lead = UserFactory()
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    client.force_login(lead)
    return project, lead


def _page(client, project) -> str:
    response = client.get(f"/projects/{project.pk}/agreement/")
    assert response.status_code == 200
    return " ".join(response.content.decode().split())  # the wording, whatever its line breaks


def test_one_rater_alone_is_not_enough_overlap(client, setup):
    project, _ = setup
    rater = UserFactory()
    for _ in range(3):
        JudgmentFactory(item=ItemFactory(project=project, systems=["bart"]), rater=rater)
    html = _page(client, project)
    assert 'data-missing="overlap"' in html and "Not enough overlap yet" in html
    assert "(3 judgments from 1 rater so far)" in html
    assert "The project plans 2 raters on 50% of the items" in html
    assert 'data-testid="empty-recompute"' not in html


def test_a_single_rater_design_is_named_as_the_reason(client, setup):
    project, _ = setup
    project.double_annotation_share = 0
    project.save()
    assert "This project plans one rater per item, so none will" in _page(client, project)


def test_overlap_not_yet_computed_offers_the_button(client, setup):
    project, _ = setup
    item = ItemFactory(project=project, systems=["bart"])
    JudgmentFactory(item=item)
    JudgmentFactory(item=item)
    html = _page(client, project)
    assert 'data-missing="computation"' in html and "Not computed yet" in html
    assert "1 item has judgments from two raters or more" in html
    assert "computed by itself within about 60 minutes" in html and 'data-testid="empty-recompute"' in html


def test_once_computed_the_page_says_how_many_judgments_came_in_since(
    client, setup, django_capture_on_commit_callbacks
):
    project, lead = setup
    item = ItemFactory(project=project, systems=["bart"])
    first, second = JudgmentFactory(item=item), JudgmentFactory(item=item)
    with django_capture_on_commit_callbacks(execute=True):
        agreement_recompute_start(project=project, user=lead)
    assert "from every judgment so far" in _page(client, project)
    JudgmentFactory(item=ItemFactory(project=project, systems=["bart"]), rater=first.rater)
    assert "1 judgment came in since" in _page(client, project)
    assert second.rater_id != first.rater_id


def test_the_lead_sets_the_automatic_recompute_interval(client, setup):
    project, _ = setup
    done = client.post(f"/projects/{project.pk}/agreement/auto/", {"auto_recompute_minutes": "15"}, follow=True)
    assert "at most every 15 minutes after new judgments" in done.content.decode()
    assert AgreementSettings.objects.get(project=project).auto_recompute_minutes == 15
    assert 'name="auto_recompute_minutes" min="0" max="10080" value="15"' in done.content.decode()
    for bad in ("-1", "soon", "10081", ""):
        refused = client.post(f"/projects/{project.pk}/agreement/auto/", {"auto_recompute_minutes": bad}, follow=True)
        assert "as a whole number from 0 (off) to 10080" in refused.content.decode()
    assert AgreementSettings.objects.get(project=project).auto_recompute_minutes == 15
    off = client.post(f"/projects/{project.pk}/agreement/auto/", {"auto_recompute_minutes": "0"}, follow=True)
    assert "Automatic recompute is off." in off.content.decode()


def test_the_api_reads_and_sets_the_interval(setup):
    from tests.conftest import client_for

    project, lead = setup
    api = client_for(lead)
    assert api.get(f"/api/v1/projects/{project.pk}/agreement/settings/").json()["auto_recompute_minutes"] == 60
    changed = api.put(
        f"/api/v1/projects/{project.pk}/agreement/settings/", {"auto_recompute_minutes": 30}, format="json"
    )
    assert changed.status_code == 200 and changed.json()["auto_recompute_minutes"] == 30
    refused = api.put(
        f"/api/v1/projects/{project.pk}/agreement/settings/", {"auto_recompute_minutes": -5}, format="json"
    )
    assert refused.status_code == 400 and "auto_recompute_minutes" in refused.json()
