"""The rater pages' screen ahead: what rate.js holds in memory and what each answer's response brings."""

import re

import pytest
from django.utils import timezone

from annotation.models import Assignment, Judgment
from tests.annotation.rating import add_raters, rating_project

pytestmark = pytest.mark.django_db

AHEAD = {"HTTP_X_CONCORD_NEXT": "ahead"}


def start(client, project):
    (rater,) = add_raters(project)
    client.force_login(rater)
    client.get(f"/projects/{project.pk}/instructions/")
    return rater, client.get(f"/projects/{project.pk}/rate/")


def form_of(page, project) -> dict:
    """The screen's form filled in with 3 for every question."""
    html = page.content.decode()
    token = re.search(r'name="client_token" value="([^"]*)"', html).group(1)
    fields = set(re.findall(r'name="(v-[0-9-]+)"', html))
    return {"client_token": token, **dict.fromkeys(fields, "3")}


def action_of(page) -> str:
    return re.search(r'action="(/assignments/\d+/submit/)"', page.content.decode()).group(1)


def progress_of(page) -> tuple[int, int]:
    done, total = re.search(r'data-testid="done">(\d+)</strong> of (\d+) done', page.content.decode()).groups()
    return int(done), int(total)


def test_the_screen_ahead_is_drawn_as_it_will_be_when_shown(client):
    project = rating_project(n_items=4)
    rater, page = start(client, project)
    current = Assignment.objects.get(rater=rater)

    ahead = client.post(f"/projects/{project.pk}/rate/ahead/")
    again = client.post(f"/projects/{project.pk}/rate/ahead/")

    assert f'data-ahead-url="/projects/{project.pk}/rate/ahead/"' in page.content.decode()
    assert ahead.status_code == 200 and ahead["X-Concord-Screen"] == "ahead"
    held = Assignment.objects.get(rater=rater, status="active", id__gt=current.pk)
    assert action_of(ahead) == action_of(again) == f"/assignments/{held.pk}/submit/"
    # shown once the current screen is judged: one more done, the same total, "previous" the current one
    assert progress_of(page) == (0, 4) and progress_of(ahead) == (1, 4)
    assert f'href="/assignments/{current.pk}/" data-testid="back"' in ahead.content.decode()
    assert "data-lease-seconds" in ahead.content.decode() and "data-lease-seconds" not in page.content.decode()


def test_each_answer_sent_behind_the_screen_ahead_brings_the_screen_after_it(client):
    project = rating_project(n_items=3)
    rater, page = start(client, project)
    ahead, answers = client.post(f"/projects/{project.pk}/rate/ahead/"), []
    for _ in range(2):
        sent = timezone.now()
        answer = client.post(action_of(page), form_of(page, project), **AHEAD)
        # the screen held ahead is shown from now: its lease starts over
        assert Assignment.objects.get(pk=int(action_of(ahead).split("/")[2])).served_at >= sent
        answers.append(answer.get("X-Concord-Screen", answer.status_code))
        page, ahead = ahead, answer
    # the third screen is the last: nothing ahead of it; its answer goes the inline way, to the end
    assert answers == ["ahead", 204]
    finished = client.post(action_of(page), form_of(page, project), HTTP_X_CONCORD_NEXT="inline")

    assert b'data-testid="finished"' in finished.content
    assert Judgment.objects.filter(rater=rater).count() == 3
    assert not Assignment.objects.filter(rater=rater, status="active").exists()


def test_when_the_screen_ahead_is_gone_the_answer_brings_the_next_screen_to_show_now(client):
    project = rating_project(n_items=3)
    rater, page = start(client, project)
    ahead = client.post(f"/projects/{project.pk}/rate/ahead/")
    held = int(action_of(ahead).split("/")[2])
    Assignment.objects.filter(pk=held).update(status="expired")

    answer = client.post(action_of(page), form_of(page, project), **AHEAD)

    assert answer.status_code == 200 and "X-Concord-Screen" not in answer
    assert action_of(answer) not in (action_of(page), action_of(ahead))
    assert Assignment.objects.filter(rater=rater, status="active").count() == 1


def test_a_refused_answer_is_shown_now_and_the_screen_ahead_stays_held(client):
    project = rating_project(n_items=3)
    rater, page = start(client, project)
    ahead = client.post(f"/projects/{project.pk}/rate/ahead/")

    answer = client.post(
        action_of(page),
        {**form_of(page, project), **{k: "9" for k in form_of(page, project) if k.startswith("v-")}},
        **AHEAD,
    )

    assert answer.status_code == 400 and "X-Concord-Screen" not in answer
    assert action_of(answer) == action_of(page)
    assert action_of(client.post(f"/projects/{project.pk}/rate/ahead/")) == action_of(ahead)


def test_without_javascript_the_form_posts_and_the_next_page_is_the_screen_held_ahead(client):
    project = rating_project(n_items=3)
    rater, page = start(client, project)
    ahead = client.post(f"/projects/{project.pk}/rate/ahead/")

    posted = client.post(action_of(page), form_of(page, project))
    following = client.get(posted["Location"])

    assert posted.status_code == 302 and action_of(following) == action_of(ahead)
    assert progress_of(following) == progress_of(ahead)
    assert Judgment.objects.filter(rater=rater).count() == 1


def test_a_revision_screen_has_no_screen_ahead_and_sends_the_rater_back_to_the_current_one(client):
    project = rating_project(n_items=3)
    rater, page = start(client, project)
    ahead = client.post(f"/projects/{project.pk}/rate/ahead/")
    client.post(action_of(page), form_of(page, project), **AHEAD)
    first = action_of(page).split("/")[2]

    revise = client.get(f"/assignments/{first}/")
    back = client.post(action_of(revise), form_of(revise, project), HTTP_X_CONCORD_NEXT="inline")

    assert "data-ahead-url" not in revise.content.decode()
    assert action_of(back) == action_of(ahead)
    assert Judgment.objects.filter(rater=rater, is_current=True).count() == 1


def test_answers_resent_after_a_lost_response_bring_the_screen_after_the_one_held_ahead(client):
    project = rating_project(n_items=4)
    rater, page = start(client, project)
    ahead = client.post(f"/projects/{project.pk}/rate/ahead/")
    form = form_of(page, project)
    first = client.post(action_of(page), form, **AHEAD)
    held = Assignment.objects.get(pk=int(action_of(ahead).split("/")[2]))

    sent = timezone.now()
    replay = client.post(action_of(page), form, **AHEAD)  # rate.js resends: the first response was lost

    # not the screen already shown (re-rendered in place, it would lose the rater's partial answers)
    assert replay.status_code == 200 and replay["X-Concord-Screen"] == "ahead"
    assert action_of(replay) == action_of(first) != action_of(ahead)
    held.refresh_from_db()
    assert held.status == "active" and held.served_at >= sent  # the screen shown from memory: its lease restarts
    assert Judgment.objects.filter(rater=rater).count() == len([k for k in form if k.startswith("v-")])
