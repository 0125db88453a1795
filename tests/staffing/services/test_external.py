"""External workers: entry by link and worker id, pseudonymous accounts, unique and stable completion codes."""

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Membership
from audit.models import AuditEntry
from staffing.models import ExternalWorker
from staffing.services import (
    ExternalLinkInvalid,
    external_link_disable,
    external_link_reset,
    external_worker_complete,
    external_worker_enter,
    team_rater_remove,
)
from tests.concurrency import run_threads


@pytest.fixture
def link(project, lead):
    return external_link_reset(project=project, by=lead)


@pytest.mark.django_db
def test_a_worker_gets_a_pseudonymous_rater_account_and_resumes_it(project, link):
    worker = external_worker_enter(project_id=project.pk, token=link.token, worker_id="5f2a9c1e8b7d6a0012345678")
    assert "5f2a9c1e" not in worker.user.username and not worker.user.has_usable_password()
    assert Membership.objects.get(user=worker.user, project=project).role == Membership.Role.RATER
    again = external_worker_enter(project_id=project.pk, token=link.token, worker_id="5f2a9c1e8b7d6a0012345678")
    assert again.pk == worker.pk and again.completion_code == worker.completion_code


@pytest.mark.django_db
def test_completion_codes_are_unique_per_worker_and_stable(project, link):
    workers = [
        external_worker_enter(project_id=project.pk, token=link.token, worker_id=f"W{i:04d}") for i in range(200)
    ]
    codes = [w.completion_code for w in workers]
    assert len(set(codes)) == len(codes)
    assert all(len(c) == 10 and c.isalnum() and c.isupper() for c in codes)
    done = external_worker_complete(worker=workers[0])
    first_seen = done.completed_at
    again = external_worker_complete(worker=ExternalWorker.objects.get(pk=workers[0].pk))
    assert again.completion_code == codes[0] and again.completed_at == first_seen


@pytest.mark.django_db
@pytest.mark.parametrize("worker_id", ["", "a b", "<script>", "x" * 65, "../etc", "ü"])
def test_malformed_worker_ids_are_refused(project, link, worker_id):
    with pytest.raises(ValidationError):
        external_worker_enter(project_id=project.pk, token=link.token, worker_id=worker_id)
    assert not ExternalWorker.objects.exists()


@pytest.mark.django_db
def test_a_wrong_reset_or_disabled_link_admits_no_one(project, lead, link):
    with pytest.raises(ExternalLinkInvalid):
        external_worker_enter(project_id=project.pk, token="guess", worker_id="W1")
    old = link.token
    external_link_reset(project=project, by=lead)
    with pytest.raises(ExternalLinkInvalid):
        external_worker_enter(project_id=project.pk, token=old, worker_id="W1")
    external_link_disable(project=project, by=lead)
    with pytest.raises(ExternalLinkInvalid):
        external_worker_enter(project_id=project.pk, token=old, worker_id="W1")
    assert not ExternalWorker.objects.exists()
    assert [e.action for e in AuditEntry.objects.order_by("id")] == [
        "external_link.create",
        "external_link.reset",
        "external_link.disable",
    ]


@pytest.mark.django_db
def test_a_link_works_only_for_its_own_project(project, link):
    from tests.annotation.factories import ProjectFactory

    other = ProjectFactory(name="other")
    with pytest.raises(ExternalLinkInvalid):
        external_worker_enter(project_id=other.pk, token=link.token, worker_id="W1")


@pytest.mark.django_db
def test_a_removed_worker_cannot_come_back_by_the_link(project, lead, link):
    worker = external_worker_enter(project_id=project.pk, token=link.token, worker_id="W1")
    team_rater_remove(project=project, rater=worker.user, by=lead)
    with pytest.raises(ExternalLinkInvalid):
        external_worker_enter(project_id=project.pk, token=link.token, worker_id="W1")


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql
def test_one_worker_entering_from_many_tabs_at_once_gets_one_account(project, link):
    codes = []

    def enter(_):
        codes.append(
            external_worker_enter(project_id=project.pk, token=link.token, worker_id="SAMEWORKER").completion_code
        )

    errors = run_threads(8, enter)
    assert not errors and len(codes) == 8 and len(set(codes)) == 1
    assert ExternalWorker.objects.count() == 1
    assert Membership.objects.filter(project=project, role=Membership.Role.RATER).count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql
def test_a_cap_admits_exactly_its_number_of_workers_entering_at_once(project, lead, link):
    from staffing.services import EntryRefused, external_link_configure

    external_link_configure(project=project, by=lead, max_identities=3)
    admitted, refused = [], []

    def enter(i):
        try:
            admitted.append(external_worker_enter(project_id=project.pk, token=link.token, worker_id=f"RUSH{i}"))
        except EntryRefused:
            refused.append(i)

    errors = run_threads(8, enter)
    assert not errors and len(admitted) == 3 and len(refused) == 5
    assert ExternalWorker.objects.filter(project=project).count() == 3
