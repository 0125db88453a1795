"""A lead tries the project as a rater: the real screens of its first items one after another, with the
rater's checks, and nothing stored."""

import pytest
from django.test import Client

from annotation.models import Assignment, Judgment, Membership
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import rating_project

pytestmark = pytest.mark.django_db


def test_a_lead_goes_through_the_screens_and_nothing_is_stored():
    project = rating_project(n_items=5, criteria=["fluency", "coherence"], systems=["s1", "s2"])
    lead = UserFactory(username="trying-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    client = Client()
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/try/").content.decode()
    assert "screen 1 of 3" in page and 'id="rate-form"' in page
    assert "disabled" not in page.split('id="rate-submit"')[1][:20]  # it can be submitted
    criteria = list(project.criteria.values_list("position", flat=True))
    answers = {f"v-{position + 1}-{output}": "4" for position in criteria for output in (0, 1)}
    for n in (1, 2):
        page = client.post(f"/projects/{project.pk}/try/", {**answers, "try_next": str(n)}).content.decode()
        assert f"screen {n + 1} of 3" in page
    end = client.post(f"/projects/{project.pk}/try/", {**answers, "try_next": "3"}).content.decode()
    assert "Nothing you answered was stored" in end
    assert not Judgment.objects.exists() and not Assignment.objects.exists()
