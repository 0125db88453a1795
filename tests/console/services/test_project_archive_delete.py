"""Archiving (read-only, hidden, restorable), deleting with a typed confirmation and the admin-level permission,
closing a draft, and project names unique per owner."""

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError

from annotation.models import Item, Judgment, Membership, Project
from annotation.selectors import project_list_for_user
from annotation.services import ProjectNotLive, assignment_next_for_rater, project_create
from audit.models import AuditEntry
from console.services import project_archive, project_delete, project_restore, project_status_set
from tests.annotation.factories import JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project

pytestmark = pytest.mark.django_db


def test_an_archived_project_serves_nothing_hides_from_raters_and_restores_as_it_was():
    project = rating_project(n_items=2, status=Project.Status.PAUSED)
    (rater,) = add_raters(project)
    lead = UserFactory()
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)

    project_archive(project=project, actor=lead)

    assert list(project_list_for_user(rater)) == [] and list(project_list_for_user(lead)) == [project]
    with pytest.raises(ValidationError, match="archived and read-only"):
        project_status_set(project=project, status=Project.Status.LIVE, actor=lead)
    with pytest.raises(ValidationError, match="archived already"):
        project_archive(project=project, actor=lead)

    restored = project_restore(project=project, actor=lead)
    assert restored.status == Project.Status.PAUSED and restored.archived_at is None
    assert list(project_list_for_user(rater)) == [project]
    assert [e.action for e in AuditEntry.objects.order_by("id")] == ["project.archive", "project.restore"]
    with pytest.raises(ValidationError, match="not archived"):
        project_restore(project=project, actor=lead)


def test_an_archived_live_project_refuses_its_raters_with_the_reason():
    project = rating_project(n_items=2)
    (rater,) = add_raters(project)
    project_archive(project=project, actor=None)
    with pytest.raises(ProjectNotLive, match="archived: it serves no items and takes no judgments"):
        assignment_next_for_rater(project_id=project.pk, rater=rater)


def _admin():
    user = UserFactory()
    user.user_permissions.add(Permission.objects.get(codename="delete_project", content_type__app_label="annotation"))
    return type(user).objects.get(pk=user.pk)  # a fresh instance: permissions are cached per instance


def test_deleting_takes_the_admin_permission_even_for_staff_and_leads():
    project = ProjectFactory(name="to go")
    for user in (UserFactory(is_staff=True), UserFactory()):
        with pytest.raises(PermissionDenied, match="admin-level permission"):
            project_delete(project=project, actor=user, confirm_name="to go")
    assert Project.objects.filter(pk=project.pk).exists()


def test_deleting_needs_the_exact_name_typed_and_removes_everything_but_the_log():
    judgment = JudgmentFactory(item__project=ProjectFactory(name="Old study"))
    project = judgment.project
    admin = _admin()
    for typed in ("old study", "Old study ", ""):
        with pytest.raises(ValidationError) as caught:
            project_delete(project=project, actor=admin, confirm_name=typed)
        assert caught.value.message_dict["confirm_name"] == [
            "Type the project's name, 'Old study', exactly to delete it."
        ]
    assert Project.objects.filter(pk=project.pk).exists()

    counts = project_delete(project=project, actor=admin, confirm_name="Old study")

    assert counts == {"items": 1, "judgments": 1, "members": 0}
    assert not Project.objects.filter(pk=project.pk).exists()
    assert not Item.objects.filter(project_id=project.pk).exists() and not Judgment.objects.exists()
    entry = AuditEntry.objects.get(action="project.delete")
    assert entry.project_id is None and entry.project_name == "Old study" and entry.detail == counts


def test_a_superuser_may_delete():
    project = ProjectFactory(name="x")
    project_delete(project=project, actor=UserFactory(is_superuser=True), confirm_name="x")
    assert not Project.objects.filter(pk=project.pk).exists()


def test_a_draft_can_be_closed_unused():
    draft = ProjectFactory(status=Project.Status.DRAFT)
    assert project_status_set(project=draft, status=Project.Status.CLOSED, actor=None).status == "closed"


def _create(owner, name):
    return project_create(
        created_by=owner, name=name, task_type="likert", criteria=[{"name": "fluency", "scale_min": 1, "scale_max": 5}]
    )


def test_names_are_unique_per_owner_not_across_owners():
    alice, bob = UserFactory(), UserFactory()
    _create(alice, "Summaries")
    _create(bob, "Summaries")
    with pytest.raises(ValidationError) as caught:
        _create(alice, "Summaries")
    assert caught.value.message_dict["name"] == ["You already have a project named 'Summaries'; choose another name."]
    assert Project.objects.filter(name="Summaries").count() == 2


def test_the_database_holds_the_rule_too():
    owner = UserFactory()
    ProjectFactory(name="twice", created_by=owner)
    with pytest.raises(IntegrityError):
        ProjectFactory(name="twice", created_by=owner)
