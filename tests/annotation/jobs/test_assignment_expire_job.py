"""assignment_expire_job: wiring only (the logic is tested through assignment_expire)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.jobs import assignment_expire_job
from annotation.models import Assignment, Item
from annotation.services import assignment_next_for_rater
from tests.annotation.rating import add_raters, rating_project

pytestmark = pytest.mark.django_db


def test_the_job_expires_stale_leases_of_every_project():
    project = rating_project(n_items=2)
    for rater in add_raters(project, 2):
        assignment_next_for_rater(project_id=project.pk, rater=rater, now=timezone.now() - timedelta(hours=1))

    assert assignment_expire_job.delay().get() == 2

    assert set(Assignment.objects.values_list("status", flat=True)) == {"expired"}
    assert set(Item.objects.values_list("n_leased", flat=True)) == {0}
