"""A rater's profile answers and the lead's change of the form race: the answers are checked against the form
that stands when they are stored, never against fields being deleted. PostgreSQL, each side with its own
connection."""

import threading
import time

import pytest
from django.core.exceptions import ValidationError
from django.db import connections, transaction

from annotation.models import RaterProfile
from annotation.services.profiles import ProfileFieldSpec, profile_answer, profile_form_set
from tests.annotation.rating import add_raters, rating_project

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.mark.postgresql
def test_answers_sent_while_the_form_changes_are_checked_against_the_new_form():
    project = rating_project(n_items=1)
    (rater,) = add_raters(project)
    profile_form_set(project=project, consent="Consent?", fields=(ProfileFieldSpec("age", "number", (), False, False),))
    outcome = []

    def answer():
        try:
            profile_answer(project_id=project.pk, rater=rater, consent=True, answers={"age": 30})
            outcome.append("stored")
        except ValidationError as exc:
            outcome.append(exc.message_dict)
        finally:
            connections.close_all()

    with transaction.atomic():
        profile_form_set(
            project=project, consent="Consent?", fields=(ProfileFieldSpec("country", "text", (), False, False),)
        )
        rater_side = threading.Thread(target=answer)
        rater_side.start()
        time.sleep(0.5)  # the rater's request reaches the project row while the form's change holds it
    rater_side.join(10)

    assert "unknown field" in " ".join(outcome[0]["answers"]), outcome
    assert not RaterProfile.objects.exists()
