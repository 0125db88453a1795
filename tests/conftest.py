"""Fixtures shared by every test: API clients, a lead with a project, raters, the datasets folder."""
import os
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from annotation.models import Membership
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory

pytest_plugins = ["tests.browser_support"]

DATASETS = Path(os.environ.get("CONCORD_DATASETS")
                or Path(__file__).resolve().parent.parent.parent / "shared" / "datasets")


@pytest.fixture
def datasets() -> Path:
    """The shared real-data folder (``$CONCORD_DATASETS``, else ``../shared/datasets`` beside the
    checkout); skips when absent."""
    if not DATASETS.is_dir():
        pytest.skip(f"{DATASETS} is absent")
    return DATASETS


@pytest.fixture
def api_client():
    return APIClient()


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def staff(db):
    return UserFactory(username="staff", is_staff=True)


@pytest.fixture
def lead(db):
    return UserFactory(username="lead")


@pytest.fixture
def project(lead):
    project = ProjectFactory(name="likert study", criteria=["fluency", "coherence"], raters_per_item=2)
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    return project


@pytest.fixture
def rater(project):
    return MembershipFactory(project=project, user=UserFactory(username="rater"), role=Membership.Role.RATER).user


@pytest.fixture
def lead_client(lead):
    return client_for(lead)


@pytest.fixture
def rater_client(rater):
    return client_for(rater)
