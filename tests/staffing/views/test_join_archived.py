"""Joining an archived project is refused, through an invite link (visitor or user) and the crowd link; a restore
opens both again."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from annotation.models import Membership
from console.services.project_lifecycle import project_archive, project_restore
from staffing.models import ExternalWorker
from staffing.services import external_link_reset, invite_create
from tests.annotation.factories import UserFactory

GOOD_PASSWORD = "correct horse battery 42"
PID = "5f2a9c1e8b7d6a0012345678"

pytestmark = pytest.mark.django_db


def test_an_invite_to_an_archived_project_admits_no_one_and_says_why(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=5, valid_days=7)
    project_archive(project=project, actor=lead)
    n_members, n_users = Membership.objects.count(), get_user_model().objects.count()
    user = Client()
    user.force_login(UserFactory(username="known"))
    n_users += 1
    signup = {"username": "newcomer", "password": GOOD_PASSWORD, "password_again": GOOD_PASSWORD}
    for client, data in ((Client(), signup), (user, {})):
        for response in (client.get(f"/invite/{invite.token}/"), client.post(f"/invite/{invite.token}/", data)):
            assert response.status_code == 409
            assert "This project is archived" in response.content.decode()
    assert (Membership.objects.count(), get_user_model().objects.count()) == (n_members, n_users)

    project_restore(project=project, actor=lead)
    assert user.post(f"/invite/{invite.token}/").status_code == 302
    assert Membership.objects.filter(project=project, user__username="known", role="rater").exists()


def test_the_crowd_link_of_an_archived_project_admits_no_worker(project, lead):
    link = external_link_reset(project=project, by=lead)
    project_archive(project=project, actor=lead)
    entry = f"/projects/{project.pk}/external/{link.token}/?PROLIFIC_PID={PID}"

    response = Client().get(entry)
    assert response.status_code == 403
    assert "This study is archived" in response.content.decode()
    assert not ExternalWorker.objects.exists()

    project_restore(project=project, actor=lead)
    assert Client().get(entry).status_code == 302
    assert ExternalWorker.objects.count() == 1
