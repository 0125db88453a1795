"""The team: pausing and resuming through quality control's services, removing a rater."""

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Assignment, Item, Judgment, Membership, Project, RaterAction
from annotation.services import assignment_next_for_rater, judgment_submit, rater_pause, rater_resume
from annotation.services.allocation import allocation_settings_update
from audit.models import AuditEntry
from staffing.selectors import team_list_for_project
from staffing.services import team_rater_remove
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, full_values, rating_project


@pytest.fixture
def lead_of():
    def make(project):
        lead = UserFactory(username=f"lead{project.pk}")
        MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
        return lead

    return make


@pytest.mark.django_db
def test_removing_a_rater_releases_their_leases_and_keeps_their_judgments(lead_of):
    # Given a rater with one judged item and one item leased now
    project = rating_project(n_items=3)
    lead = lead_of(project)
    (rater,) = add_raters(project)
    first = assignment_next_for_rater(project_id=project.pk, rater=rater)
    judgment_submit(rater=rater, assignment_id=first.pk, values=full_values(first, 3))
    held = assignment_next_for_rater(project_id=project.pk, rater=rater)
    assert Item.objects.get(pk=held.item_id).n_leased == 1
    # When the lead removes them
    released = team_rater_remove(project=project, rater=rater, by=lead)
    # Then the lease is given back, the judgment stays, the membership is gone, and it is audited
    assert released.leases == 1
    assert Item.objects.get(pk=held.item_id).n_leased == 0
    assert Assignment.objects.get(pk=held.pk).status == Assignment.Status.EXPIRED
    assert Judgment.objects.filter(rater=rater).count() == 1
    assert not Membership.objects.filter(project=project, user=rater).exists()
    entry = AuditEntry.objects.get(action="rater.remove")
    assert entry.target == rater.username and entry.detail["leases_released"] == 1
    # and another rater is served the released item
    (other,) = add_raters(project, prefix="other")
    served = {assignment_next_for_rater(project_id=project.pk, rater=other).item_id}
    a = Assignment.objects.filter(rater=other, status="active").first()
    judgment_submit(rater=other, assignment_id=a.pk, values=full_values(a, 3))
    served.add(assignment_next_for_rater(project_id=project.pk, rater=other).item_id)
    assert held.item_id in served


@pytest.mark.django_db
def test_leads_and_strangers_cannot_be_removed(lead_of):
    project = rating_project(n_items=1)
    lead = lead_of(project)
    with pytest.raises(ValidationError):
        team_rater_remove(project=project, rater=lead, by=lead)
    with pytest.raises(ValidationError):
        team_rater_remove(project=project, rater=UserFactory(username="stranger"), by=lead)
    assert Membership.objects.filter(user=lead).exists()


@pytest.mark.django_db
def test_pause_and_resume_use_quality_control_and_are_audited(lead_of):
    project = rating_project(n_items=1)
    lead = lead_of(project)
    (rater,) = add_raters(project)
    with pytest.raises(ValidationError):
        rater_pause(project=project, rater=rater, by=lead, reason="  ")
    rater_pause(project=project, rater=rater, by=lead, reason="too fast")
    assert Membership.objects.get(user=rater).is_paused
    rater_resume(project=project, rater=rater, by=lead, reason="talked")
    assert not Membership.objects.get(user=rater).is_paused
    assert [a.kind for a in RaterAction.objects.order_by("id")] == ["pause", "resume"]
    assert [e.action for e in AuditEntry.objects.order_by("id")] == ["rater.pause", "rater.resume"]


@pytest.mark.django_db
def test_the_team_list_counts_judged_and_leased_in_three_queries(lead_of, django_assert_num_queries):
    project = rating_project(n_items=3)
    lead = lead_of(project)
    raters = add_raters(project, 2)
    first = assignment_next_for_rater(project_id=project.pk, rater=raters[0])
    judgment_submit(rater=raters[0], assignment_id=first.pk, values=full_values(first, 3))
    assignment_next_for_rater(project_id=project.pk, rater=raters[0])
    with django_assert_num_queries(3):
        rows = {r["username"]: r for r in team_list_for_project(project)}
    assert rows[raters[0].username]["judged"] == 1 and rows[raters[0].username]["leased"] == 1
    assert rows[raters[1].username]["judged"] == 0
    assert rows[lead.username]["role"] == "lead"


@pytest.mark.django_db
def test_removing_a_rater_vacates_their_place_for_the_next_to_join(lead_of):
    # Given a design of 2 places over 4 items all wanting 2 raters (each planned for both), a rater on place 1 who
    # judged one
    project = rating_project(n_items=4, n_target=2)
    lead = lead_of(project)
    allocation_settings_update(project=project, by=lead, planned_raters=2)
    first, second = add_raters(project, 2)
    lease = assignment_next_for_rater(project_id=project.pk, rater=first)
    judgment_submit(rater=first, assignment_id=lease.pk, values=full_values(lease, 3))
    # When the lead removes them
    released = team_rater_remove(project=project, rater=first, by=lead)
    # Then their place is vacated, when is recorded, and the lead is told its shared units wait for a successor
    assert released.place == 0 and "wait 60 minutes for that rater" in released.message
    assert set(Project.objects.get(pk=project.pk).plan_vacated_at) == {"0"}
    # And once the rater on place 2 has judged all 4, the next to join takes place 1 over
    while (screen := assignment_next_for_rater(project_id=project.pk, rater=second)) is not None:
        judgment_submit(rater=second, assignment_id=screen.pk, values=full_values(screen, 3))
    (successor,) = add_raters(project, 1, prefix="successor")
    served = 0
    while (screen := assignment_next_for_rater(project_id=project.pk, rater=successor)) is not None:
        judgment_submit(rater=successor, assignment_id=screen.pk, values=full_values(screen, 3))
        served += 1
    assert Membership.objects.get(project=project, user=successor).plan_position == 0
    assert served == 3  # every item but the one the removed rater judged (it counts: removal is no exclusion)
