"""The lifecycle draft → live ⇄ paused → closed, the refused moves, and what raters get in each state."""

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Membership
from annotation.selectors import project_list_for_user, rater_project_list
from annotation.services import ProjectNotFound, ProjectNotLive, assignment_next_for_rater
from audit.models import AuditEntry
from console.services import project_status_set
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft():
    project = ProjectFactory(status="draft")
    ItemFactory(project=project)
    return project


@pytest.mark.parametrize(
    "path", [["live"], ["live", "paused"], ["live", "paused", "live"], ["live", "closed"], ["live", "paused", "closed"]]
)
def test_allowed_transitions_are_applied_and_audited(draft, path):
    lead = UserFactory()
    for status in path:
        project_status_set(project=draft, status=status, actor=lead)
    draft.refresh_from_db()
    assert draft.status == path[-1]
    assert list(AuditEntry.objects.order_by("id").values_list("action", flat=True)) == [f"project.{s}" for s in path]
    assert AuditEntry.objects.order_by("id").first().detail == {"from": "draft", "to": "live"}


@pytest.mark.parametrize(
    ("start", "target", "message"),
    [
        ("draft", "paused", "A draft project can only become live or closed, not paused."),
        ("live", "draft", "A live project can only become paused or closed, not draft."),
        ("live", "live", "The project is live already."),
        ("paused", "draft", "A paused project can only become live or closed, not draft."),
        ("closed", "live", "A closed project is final; clone it for a new round."),
        ("closed", "paused", "A closed project is final; clone it for a new round."),
        ("live", "archived", "unknown status 'archived'"),
    ],
)
def test_refused_transitions_say_why_and_change_nothing(start, target, message):
    project = ProjectFactory(status=start)
    with pytest.raises(ValidationError) as caught:
        project_status_set(project=project, status=target, actor=UserFactory())
    assert message in caught.value.message_dict["status"][0]
    project.refresh_from_db()
    assert project.status == start and not AuditEntry.objects.exists()


def test_a_draft_is_invisible_to_its_raters_but_not_to_its_leads(draft):
    rater, lead = UserFactory(), UserFactory()
    MembershipFactory(project=draft, user=rater, role=Membership.Role.RATER)
    MembershipFactory(project=draft, user=lead, role=Membership.Role.LEAD)
    assert list(project_list_for_user(rater)) == [] and rater_project_list(rater) == []
    assert list(project_list_for_user(lead)) == [draft]
    with pytest.raises(ProjectNotFound):
        assignment_next_for_rater(project_id=draft.pk, rater=rater)
    project_status_set(project=draft, status="live", actor=lead)
    assert list(project_list_for_user(rater)) == [draft]
    assert assignment_next_for_rater(project_id=draft.pk, rater=rater) is not None


@pytest.mark.parametrize(
    ("status", "message"),
    [
        ("paused", "This project is paused: no items are served"),
        ("closed", "This project is closed: it serves no more items and takes no more judgments."),
    ],
)
def test_raters_of_a_paused_or_closed_project_get_nothing_and_are_told_why(status, message):
    project = ProjectFactory(status=status)
    ItemFactory(project=project)
    rater = MembershipFactory(project=project, role=Membership.Role.RATER).user
    with pytest.raises(ProjectNotLive) as caught:
        assignment_next_for_rater(project_id=project.pk, rater=rater)
    assert message in caught.value.message
