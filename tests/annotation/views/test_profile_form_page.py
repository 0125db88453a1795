"""The lead's rater profile page: a form saved from its rows, refused naming the field, fixed once the study
has started."""

import pytest

from annotation.models import ProfileField
from tests.annotation.factories import ItemFactory, JudgmentFactory

pytestmark = pytest.mark.django_db


def test_the_lead_saves_the_form_from_its_rows_until_the_study_starts(client, lead, project):
    client.force_login(lead)
    url = f"/projects/{project.pk}/profile/form/"
    rows = {
        "consent": "I agree to answer.",
        "name-0": "native language",
        "kind-0": "choice",
        "choices-0": "en, de, other",
        "required-0": "on",
        "name-1": "age band",
        "kind-1": "choice",
        "choices-1": "18-30, 31+",
        "sensitive-1": "on",
        "name-2": "",
        "kind-2": "text",
    }

    assert client.post(url, rows).status_code == 302

    fields = list(ProfileField.objects.filter(project=project).values_list("name", "choices", "required", "sensitive"))
    assert fields == [
        ("native language", ["en", "de", "other"], True, False),
        ("age band", ["18-30", "31+"], False, True),
    ]
    project.refresh_from_db()
    assert project.profile_consent == "I agree to answer."
    page = client.get(url).content.decode()
    assert 'value="en, de, other"' in page and "can no longer change" not in page

    refused = client.post(url, {**rows, "kind-1": "colour"})
    assert refused.status_code == 400 and "fields[1].kind" in refused.content.decode()

    JudgmentFactory(item=ItemFactory(project=project))
    assert "can no longer change" in client.get(url).content.decode()
    assert client.post(url, rows).status_code == 400
