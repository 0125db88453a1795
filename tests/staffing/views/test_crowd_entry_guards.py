"""Issue 14, point 4 (identity farming): the lead caps the worker ids a crowd link admits, in all and per
client address, and can require Prolific's study and session or a platform-signed entry, all on the
crowd-link page; a farmer making up worker ids on the real entry link is refused."""

import hashlib
import hmac
import re

import pytest
from django.test import Client

from audit.models import AuditEntry
from staffing.models import ExternalLink, ExternalWorker
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import rating_project

pytestmark = pytest.mark.django_db

STUDY = "60a1b2c3d4e5f60718293a4b"


@pytest.fixture
def crowd():
    """A project, its lead's logged-in client, and the entry URL of its crowd link (made on the page)."""
    project = rating_project(n_items=3)
    lead = UserFactory(username="crowd-lead")
    MembershipFactory(project=project, user=lead, role="lead")
    client = Client()
    client.force_login(lead)
    assert client.post(f"/projects/{project.pk}/external/", {"action": "reset"}).status_code == 302
    token = ExternalLink.objects.get(project=project).token
    return project, client, f"/projects/{project.pk}/external/{token}/"


def _configure(lead, project, **fields):
    data = {"action": "settings", "min_judged_screens": "1", "max_unjudged_percent": "20"} | fields
    return lead.post(f"/projects/{project.pk}/external/", data)


def _enter(entry, query: str, address: str = "198.51.100.7"):
    return Client(REMOTE_ADDR=address).get(f"{entry}?{query}")


def test_the_link_admits_at_most_the_lead_s_number_of_worker_ids(crowd):
    project, lead, entry = crowd
    assert _configure(lead, project, max_identities="2").status_code == 302

    assert _enter(entry, "worker_id=W1", "198.51.100.1").status_code == 302
    assert _enter(entry, "worker_id=W2", "198.51.100.2").status_code == 302
    refused = _enter(entry, "worker_id=W3", "198.51.100.3")

    assert refused.status_code == 403 and "admitted all the participants" in refused.content.decode()
    assert _enter(entry, "worker_id=W1", "198.51.100.9").status_code == 302  # a worker coming back resumes
    assert sorted(ExternalWorker.objects.values_list("worker_id", flat=True)) == ["W1", "W2"]


def test_one_address_cannot_farm_worker_ids(crowd):
    project, lead, entry = crowd
    assert _configure(lead, project, max_identities_per_address="2").status_code == 302

    for n in range(2):
        assert _enter(entry, f"worker_id=FARM{n}", "203.0.113.5").status_code == 302
    refused = _enter(entry, "worker_id=FARM2", "203.0.113.5")

    assert refused.status_code == 403 and "from your network" in refused.content.decode()
    assert _enter(entry, "worker_id=ELSEWHERE", "192.0.2.44").status_code == 302
    keys = set(ExternalWorker.objects.values_list("address_key", flat=True))
    assert len(keys) == 2 and not any("203.0.113.5" in key for key in keys)  # a keyed hash, not the address


def test_prolific_entries_need_the_study_and_one_worker_id_per_session(crowd):
    project, lead, entry = crowd
    assert _configure(lead, project, prolific_study_id=STUDY).status_code == 302
    pid, other_pid = "5f2a9c1e8b7d6a0012345678", "5f2a9c1e8b7d6a0087654321"

    assert _enter(entry, f"PROLIFIC_PID={pid}").status_code == 400  # no study, no session
    assert _enter(entry, f"worker_id={pid}").status_code == 400
    assert _enter(entry, f"PROLIFIC_PID={pid}&STUDY_ID=someotherstudy&SESSION_ID=S1").status_code == 403
    assert _enter(entry, f"PROLIFIC_PID={pid}&STUDY_ID={STUDY}&SESSION_ID=S1").status_code == 302
    farmed = _enter(entry, f"PROLIFIC_PID={other_pid}&STUDY_ID={STUDY}&SESSION_ID=S1")

    assert farmed.status_code == 403 and "session has started already" in farmed.content.decode()
    assert _enter(entry, f"PROLIFIC_PID={pid}&STUDY_ID={STUDY}&SESSION_ID=S1").status_code == 302
    assert list(ExternalWorker.objects.values_list("worker_id", "platform_session")) == [(pid, "S1")]
    page = lead.get(f"/projects/{project.pk}/external/").content.decode()
    assert "STUDY_ID={{%STUDY_ID%}}&amp;SESSION_ID={{%SESSION_ID%}}" in page


def test_a_signed_entry_admits_only_worker_ids_the_platform_signed(crowd):
    project, lead, entry = crowd
    assert _configure(lead, project, signed="on").status_code == 302
    page = lead.get(f"/projects/{project.pk}/external/").content.decode()
    secret = re.search(r'id="signing-secret" value="([0-9a-f]{64})"', page).group(1)

    def sig(worker_id):
        return hmac.new(secret.encode(), worker_id.encode(), hashlib.sha256).hexdigest()

    assert sig("WORKER42") in page  # the page's worked example
    assert _enter(entry, "worker_id=W1").status_code == 400
    assert _enter(entry, f"worker_id=W1&sig={sig('W1')}").status_code == 302
    farmed = _enter(entry, f"worker_id=W2&sig={sig('W1')}")
    assert farmed.status_code == 403 and "signature does not match" in farmed.content.decode()
    assert list(ExternalWorker.objects.values_list("worker_id", flat=True)) == ["W1"]

    # A new secret voids the old signatures
    assert lead.post(f"/projects/{project.pk}/external/", {"action": "new-secret"}).status_code == 302
    assert _enter(entry, f"worker_id=W1&sig={sig('W1')}").status_code == 403
    actions = list(AuditEntry.objects.filter(project=project).values_list("action", flat=True).order_by("id"))
    assert actions[-2:] == ["external_link.configure", "external_link.new_secret"]
    assert secret not in str(AuditEntry.objects.filter(project=project).values_list("detail", flat=True))


def test_bad_settings_are_refused_beside_their_field_and_nothing_changes(crowd):
    project, lead, _ = crowd
    response = _configure(lead, project, max_identities="0", max_unjudged_percent="150")
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="id_max_identities_error"' in page and 'id="id_max_unjudged_percent_error"' in page
    link = ExternalLink.objects.get(project=project)
    assert link.max_identities is None and link.max_unjudged_share == 0.2


def test_turning_the_link_off_and_on_keeps_its_guards(crowd):
    project, lead, _ = crowd
    _configure(lead, project, max_identities="1")
    lead.post(f"/projects/{project.pk}/external/", {"action": "disable"})
    lead.post(f"/projects/{project.pk}/external/", {"action": "reset"})
    link = ExternalLink.objects.get(project=project)
    assert link.is_enabled and link.max_identities == 1
    entry = f"/projects/{project.pk}/external/{link.token}/"
    assert _enter(entry, "worker_id=A").status_code == 302 and _enter(entry, "worker_id=B").status_code == 403
