"""The lead's rater quality page: per-rater accuracy, flags, bias and log, and CSRF-protected action forms."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotation.models import Membership, RaterAction, RaterExclusion
from annotation.services import degraded_controls_create, qc_rules_update, rater_pause
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory
from tests.annotation.rating import add_raters

pytestmark = pytest.mark.django_db


def test_the_project_page_links_the_rater_page(client, lead, project):
    client.force_login(lead)
    assert f'href="/projects/{project.pk}/raters/"'.encode() in client.get(f"/projects/{project.pk}/").content


def test_lead_sees_accuracy_rules_and_the_log(client, lead, project, rater):
    qc_rules_update(project=project, gold_accuracy_threshold=0.9, action="pause")
    item = ItemFactory(project=project, gold={"fluency": {"sysA": 4}})
    JudgmentFactory(item=item, rater=rater, value=4, criterion=project.criteria.get(name="fluency"))
    rater_pause(project=project, rater=rater, by=lead, reason="checking <b>speed</b>")
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/raters/").content.decode()
    assert "Version 1" in page and "1.00 (1 answers, 1 items)" in page and "paused" in page
    assert "checking &lt;b&gt;speed&lt;/b&gt;" in page  # the reason is escaped
    assert 'name="csrfmiddlewaretoken"' in page and 'value="resume"' in page


def test_the_form_pauses_and_excludes_with_a_reason(client, lead, project, rater):
    client.force_login(lead)
    response = client.post(
        f"/projects/{project.pk}/raters/action/",
        {"rater": rater.pk, "action": "exclude", "reason": "random answers"},
        follow=True,
    )
    assert b"rater: exclude logged." in response.content
    membership = Membership.objects.get(user=rater, project=project)
    assert membership.is_paused and RaterExclusion.objects.filter(project=project, rater=rater).exists()
    assert RaterAction.objects.get().reason == "random answers"


@pytest.mark.parametrize(
    "form, message",
    [
        ({"action": "pause", "reason": ""}, b"say why"),
        ({"action": "ban", "reason": "x"}, b"Unknown action"),
        ({"action": "pause", "reason": "x", "rater": "999999"}, b"not a rater"),
    ],
)
def test_bad_forms_get_400_with_the_reason_on_the_page(client, lead, project, rater, form, message):
    client.force_login(lead)
    response = client.post(f"/projects/{project.pk}/raters/action/", {"rater": rater.pk, **form})
    assert response.status_code == 400 and message in response.content
    assert not RaterAction.objects.exists()


def test_raters_get_403_and_outsiders_404(client, project, rater):
    client.force_login(rater)
    assert client.get(f"/projects/{project.pk}/raters/").status_code == 403
    assert (
        client.post(
            f"/projects/{project.pk}/raters/action/", {"rater": rater.pk, "action": "resume", "reason": "me"}
        ).status_code
        == 403
    )


def test_the_action_form_needs_the_csrf_token(lead, project, rater):
    client = Client(enforce_csrf_checks=True)
    client.force_login(lead)
    response = client.post(
        f"/projects/{project.pk}/raters/action/", {"rater": rater.pk, "action": "pause", "reason": "x"}
    )
    assert response.status_code == 403 and not RaterAction.objects.exists()


def test_a_paused_rater_sees_why_on_the_rating_screen(client, lead, project, rater):
    rater_pause(project=project, rater=rater, by=lead, reason="too fast")
    client.force_login(rater)
    client.get(f"/projects/{project.pk}/instructions/")
    response = client.get(f"/projects/{project.pk}/rate/")
    assert response.status_code == 403 and b"paused your work" in response.content
    assert b"too fast" not in response.content  # the lead's note is for the log, not the rater


def test_the_page_does_not_grow_with_raters(client, lead, project, django_assert_max_num_queries):
    # Given the page's query count with one rater
    client.force_login(lead)
    add_raters(project, 1, prefix="few")
    with CaptureQueriesContext(connection) as few:
        client.get(f"/projects/{project.pk}/raters/")
    # When eight more raters judge and are paused, then the page needs no more queries
    for user in add_raters(project, 8, prefix="many"):
        JudgmentFactory(item=ItemFactory(project=project), rater=user, value=2)
        rater_pause(project=project, rater=user, by=lead, reason="check")
    with django_assert_max_num_queries(len(few)):
        assert client.get(f"/projects/{project.pk}/raters/").status_code == 200


def test_pairwise_page_shows_position_bias_and_the_degraded_test(client, lead):
    project = ProjectFactory(task_type="pairwise")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project, 1)
    for _ in range(3):
        ItemFactory(project=project)
    for copy in degraded_controls_create(project=project, n=2, seed=1):
        JudgmentFactory(
            item=copy,
            rater=rater,
            value=2,
            label=copy.outputs.get(position=0).system,
            shown_order=[o.system for o in copy.outputs.order_by("-position")],
        )
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/raters/").content.decode()
    assert 'data-testid="position-bias"' in page and "won 0 of 2 decided screens" in page
    assert "0.2500 (2 copies)" in page  # one-sided binomial: intact side won both
