"""The crowd link's batch quota: each worker admitted while it is set is served at most that many screens."""

import pytest

from annotation.models import Assignment, Membership
from annotation.services import assignment_next_for_rater, judgment_submit
from staffing.services import external_link_configure, external_link_reset, external_worker_enter
from tests.annotation.factories import ItemFactory
from tests.annotation.rating import full_values

pytestmark = pytest.mark.django_db


def _rate_all(project, user) -> int:
    n = 0
    while (assignment := assignment_next_for_rater(project_id=project.pk, rater=user)) is not None:
        judgment_submit(rater=user, assignment_id=assignment.pk, values=full_values(assignment))
        n += 1
    return n


def test_workers_keep_the_quota_of_the_batch_they_entered_in(project, lead):
    for _ in range(10):
        ItemFactory(project=project, n_target=1)
    link = external_link_reset(project=project, by=lead)
    external_link_configure(project=project, by=lead, max_screens_per_worker=3)
    first = external_worker_enter(project_id=project.pk, token=link.token, worker_id="batch1worker")
    # The lead opens a second, longer batch: new workers get 5, the first keeps 3
    external_link_configure(project=project, by=lead, max_screens_per_worker=5)
    second = external_worker_enter(project_id=project.pk, token=link.token, worker_id="batch2worker")

    assert Membership.objects.get(project=project, user=first.user).max_screens == 3
    assert [_rate_all(project, first.user), _rate_all(project, second.user)] == [3, 5]
    assert Assignment.objects.filter(project=project).count() == 8


def test_a_batch_quota_below_one_is_refused(project, lead):
    external_link_reset(project=project, by=lead)
    with pytest.raises(Exception, match="max_screens_per_worker"):
        external_link_configure(project=project, by=lead, max_screens_per_worker=0)
