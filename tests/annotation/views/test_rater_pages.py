"""The rater's pages: instructions first, judging screens per task type, back/revise, flags, refusals."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Assignment, ItemFlag, Judgment, Project
from annotation.services.allocation import allocation_rater_quota_set
from tests.annotation.factories import ItemFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project

pytestmark = pytest.mark.django_db


def logged_in(client, project):
    (rater,) = add_raters(project)
    client.force_login(rater)
    return rater


def start(client, project):
    client.get(f"/projects/{project.pk}/instructions/")
    return client.get(f"/projects/{project.pk}/rate/")


def test_instructions_come_first_then_the_screen(client):
    project = rating_project(instructions="Judge <b>fluency</b> only.\nIgnore content.")
    logged_in(client, project)

    first = client.get(f"/projects/{project.pk}/rate/")
    instructions = client.get(first["Location"])
    screen = client.get(f"/projects/{project.pk}/rate/")

    assert first.status_code == 302 and first["Location"] == f"/projects/{project.pk}/instructions/"
    assert b"Judge &lt;b&gt;fluency&lt;/b&gt; only." in instructions.content
    assert screen.status_code == 200 and b'id="rate-form"' in screen.content
    assert f'href="/projects/{project.pk}/instructions/"'.encode() in screen.content


def test_item_text_is_escaped(client):
    project = rating_project(n_items=0)
    ItemFactory(project=project, input="<script>alert(1)</script>", systems=["s"])
    project.outputs_text = None
    logged_in(client, project)

    screen = start(client, project)

    assert b"<script>alert(1)</script>" not in screen.content
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in screen.content


def test_a_likert_rater_submits_every_item_then_sees_the_finished_screen(client):
    project = rating_project(n_items=2, criteria=["fluency", "coherence"])
    rater = logged_in(client, project)
    start(client, project)

    for _ in range(2):
        assignment = Assignment.objects.get(rater=rater, status="active")
        c1, c2 = project.criteria.order_by("position")
        response = client.post(
            f"/assignments/{assignment.pk}/submit/",
            {f"v-{c1.pk}-0": "4", f"v-{c2.pk}-0": "5", "client_token": f"t{assignment.pk}", "duration_ms": "3100"},
        )
        assert response.status_code == 302
        client.get(response["Location"])

    finished = client.get(f"/projects/{project.pk}/rate/")
    assert b'data-testid="finished"' in finished.content
    assert Judgment.objects.filter(rater=rater).count() == 4
    assert set(Judgment.objects.values_list("duration_ms", flat=True)) == {3100}


def test_a_rater_at_their_quota_is_told_so_not_that_work_may_come_back(client):
    # Given a rater with a maximum of 2 screens in a project of 5 items, who judged 2
    project = rating_project(n_items=5)
    rater = logged_in(client, project)
    allocation_rater_quota_set(project=project, rater=rater, by=UserFactory(), max_screens=2)
    start(client, project)
    for _ in range(2):
        assignment = Assignment.objects.get(rater=rater, status="active")
        (criterion,) = project.criteria.all()
        client.post(
            f"/assignments/{assignment.pk}/submit/", {f"v-{criterion.pk}-0": "4", "client_token": f"t{assignment.pk}"}
        )
        client.get(f"/projects/{project.pk}/rate/")

    # Then the finished screen says they had the 2 screens planned for them, counted in screens
    finished = client.get(f"/projects/{project.pk}/rate/").content.decode()
    assert 'data-testid="quota-reached"' in finished
    assert "You have reached your maximum of 2 screens in this project" in finished
    assert "You judged 2 screens." in finished and "new work may appear" not in finished


def test_a_rater_with_nothing_left_below_their_quota_hears_that_work_may_come_back(client):
    project = rating_project(n_items=1)
    rater = logged_in(client, project)
    allocation_rater_quota_set(project=project, rater=rater, by=UserFactory(), max_screens=3)
    start(client, project)
    assignment = Assignment.objects.get(rater=rater, status="active")
    (criterion,) = project.criteria.all()
    client.post(f"/assignments/{assignment.pk}/submit/", {f"v-{criterion.pk}-0": "4", "client_token": "t"})

    finished = client.get(f"/projects/{project.pk}/rate/").content.decode()
    assert 'data-testid="quota-reached"' not in finished
    assert "You judged 1 screen." in finished and "new work may appear" in finished


def rankme_screen(client):
    """A rater logged in on a rankme screen of two outputs: (rater, assignment, criterion)."""
    project = rating_project(task_type="rankme", n_items=1, criteria=["quality"], systems=["a", "b"])
    rater = logged_in(client, project)
    start(client, project)
    return rater, Assignment.objects.get(rater=rater), project.criteria.get()


def test_an_incomplete_form_is_shown_again_with_the_reason(client):
    _, assignment, criterion = rankme_screen(client)

    response = client.post(f"/assignments/{assignment.pk}/submit/", {f"v-{criterion.pk}-0": "70"})

    assert response.status_code == 400
    assert b"position 1: no value given" in response.content
    assert b'value="70"' in response.content  # what the rater set is kept
    assert not Judgment.objects.exists()


def test_a_position_or_duration_in_digits_int_cannot_read_is_refused_not_a_500(client):
    rater, assignment, criterion = rankme_screen(client)

    # "²".isdigit() is true, but int("²") fails; 5,000 digits are more than int() reads
    for position, duration in [("²", "1"), ("1" * 5000, "1"), ("0", "²"), ("0", "1" * 5000)]:
        response = client.post(
            f"/assignments/{assignment.pk}/submit/",
            {f"v-{criterion.pk}-{position}": "70", f"v-{criterion.pk}-1": "40", "duration_ms": duration},
        )
        assert response.status_code == (400 if duration == "1" else 302), (position, duration)
    assert Judgment.objects.filter(rater=rater, is_current=True).count() == 2  # stored, then revised
    assert set(Judgment.objects.values_list("duration_ms", flat=True)) == {None}


def modulus_project(**fields):
    project = rating_project(task_type="rankme", n_items=0, criteria=["quality"], rankme_modulus=100, **fields)
    ItemFactory(project=project, systems=["a", "b"], references=["The <i>reference</i> summary."])
    return project


def test_with_a_modulus_the_reference_comes_first_with_its_fixed_score_and_log_sliders(client):
    project = modulus_project()
    logged_in(client, project)

    instructions = client.get(f"/projects/{project.pk}/instructions/").content.decode()
    html = client.get(f"/projects/{project.pk}/rate/").content.decode()

    assert "a reference with the fixed score\n    <strong>100</strong>" in instructions
    assert "(0–100)" not in instructions  # the criterion's range does not bound the scores

    reference, outputs = html.index('data-testid="modulus"'), html.index('data-testid="output"')
    assert reference < outputs  # shown first, beside the outputs
    assert "The &lt;i&gt;reference&lt;/i&gt; summary." in html[reference:outputs]
    assert 'data-testid="modulus-score">score 100<' in html
    assert html[reference:outputs].count("<input") == 0  # fixed: nothing to set
    assert html.count('data-scale="log"') == 2
    assert 'type="range" min="0" max="4" step="0.01" value="2"' in html
    assert 'type="number" name="v-' in html and 'min="0" step="any"' in html and 'max="100"' not in html


def test_with_a_modulus_the_form_stores_scores_beyond_the_range_and_refuses_zero_with_the_reason(client):
    project = modulus_project()
    rater = logged_in(client, project)
    start(client, project)
    assignment = Assignment.objects.get(rater=rater)
    field = f"v-{project.criteria.get().pk}"

    refused = client.post(f"/assignments/{assignment.pk}/submit/", {f"{field}-0": "0", f"{field}-1": "250"})
    assert refused.status_code == 400
    assert b"must be a positive score relative to the modulus (100), got 0" in refused.content
    assert b'value="250"' in refused.content and not Judgment.objects.exists()

    stored = client.post(f"/assignments/{assignment.pk}/submit/", {f"{field}-0": "0.5", f"{field}-1": "250"})
    assert stored.status_code == 302
    assert sorted(Judgment.objects.values_list("value", flat=True)) == [0.5, 250.0]
    back = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert 'value="2.39794"' in back  # the slider of 250 sits at log10(250)


def test_with_a_modulus_an_item_without_a_reference_says_so(client):
    project = rating_project(task_type="rankme", n_items=1, criteria=["quality"], rankme_modulus=100)
    logged_in(client, project)

    html = start(client, project).content.decode()

    assert "This item has no reference to score against: flag it as broken" in html


def test_a_pairwise_choice_is_stored_for_the_system_shown(client):
    project = rating_project(task_type="pairwise", n_items=1, criteria=["overall"], systems=["bart", "t5"])
    rater = logged_in(client, project)
    screen = start(client, project)
    assert b"bart" not in screen.content.split(b'id="rate-form"')[1].split(b"</form>")[0].replace(b"bart on", b"")
    assignment = Assignment.objects.get(rater=rater)
    criterion = project.criteria.get()

    client.post(f"/assignments/{assignment.pk}/submit/", {f"v-{criterion.pk}": "A"})

    assert Judgment.objects.get().label == ["bart", "t5"][assignment.shown_order[0]]


def test_back_shows_the_previous_answers_and_saves_a_revision(client):
    project = rating_project(n_items=2)
    rater = logged_in(client, project)
    start(client, project)
    first = Assignment.objects.get(rater=rater)
    criterion = project.criteria.get()
    client.post(f"/assignments/{first.pk}/submit/", {f"v-{criterion.pk}-0": "2"})
    screen = client.get(f"/projects/{project.pk}/rate/")
    assert f'href="/assignments/{first.pk}/"'.encode() in screen.content

    back = client.get(f"/assignments/{first.pk}/")
    client.post(f"/assignments/{first.pk}/submit/", {f"v-{criterion.pk}-0": "5"})

    assert b"You are revising" in back.content
    assert b'value="2"\n        checked' in back.content or b'value="2"\n        \n' not in back.content
    current = Judgment.objects.get(rater=rater, item=first.item, is_current=True)
    assert current.value == 5 and Judgment.objects.filter(item=first.item).count() == 2


def test_flagging_skips_to_the_next_item(client):
    project = rating_project(n_items=2)
    rater = logged_in(client, project)
    start(client, project)
    first = Assignment.objects.get(rater=rater)

    response = client.post(
        f"/assignments/{first.pk}/flag/", {"reason": "offensive", "comment": "<i>insult</i>"}, follow=True
    )

    assert b"flagged" in response.content
    assert ItemFlag.objects.get().comment == "<i>insult</i>"
    assert Assignment.objects.get(rater=rater, status="active").item_id != first.item_id
    lead = UserFactory(username="flag-lead")
    project.memberships.create(user=lead, role="lead")
    client.force_login(lead)
    lead_page = client.get(f"/projects/{project.pk}/").content
    assert b'data-testid="flags"' in lead_page and b"Offensive content" in lead_page
    assert b"&lt;i&gt;insult&lt;/i&gt;" in lead_page and first.item.external_id.encode() in lead_page


def test_an_expired_lease_is_explained(client):
    project = rating_project(n_items=1)
    rater = logged_in(client, project)
    start(client, project)
    assignment = Assignment.objects.get(rater=rater)
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now() - timedelta(seconds=5))

    response = client.post(f"/assignments/{assignment.pk}/submit/", {f"v-{project.criteria.get().pk}-0": "3"})

    assert response.status_code == 410
    assert b"Your time on this item ran out" in response.content


def test_paused_raters_and_paused_projects_are_told_so(client):
    project = rating_project(n_items=1)
    rater = logged_in(client, project)
    client.get(f"/projects/{project.pk}/instructions/")
    project.memberships.filter(user=rater).update(is_paused=True)

    paused = client.get(f"/projects/{project.pk}/rate/")
    project.memberships.filter(user=rater).update(is_paused=False)
    Project.objects.filter(pk=project.pk).update(status="paused")
    not_live = client.get(f"/projects/{project.pk}/rate/")

    assert paused.status_code == 403 and b"paused your work" in paused.content
    assert not_live.status_code == 409 and b"This project is paused" in not_live.content


def test_outsiders_get_404(client):
    project = rating_project()
    logged_in(client, rating_project())

    assert client.get(f"/projects/{project.pk}/instructions/").status_code == 404
    client.session  # noqa: B018
    session = client.session
    session[f"seen-instructions-{project.pk}"] = True
    session.save()
    assert client.get(f"/projects/{project.pk}/rate/").status_code == 404


def test_home_and_project_pages_show_progress(client, lead):
    project = rating_project(n_items=3)
    project.memberships.create(user=lead, role="lead")
    rater = logged_in(client, project)
    start(client, project)

    home = client.get("/")
    client.force_login(lead)
    lead_page = client.get(f"/projects/{project.pk}/")

    assert b'data-testid="rating"' in home.content and b"<td>0 of 3 done</td>" in home.content
    assert rater.username.encode() in lead_page.content and b'data-testid="raters"' in lead_page.content


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_progress_pages_cost_the_same_queries_whatever_the_number_of_raters_or_projects(client, lead):
    # Given a project with 2 raters, then with 10
    project = rating_project(n_items=4)
    project.memberships.create(user=lead, role="lead")
    rater = add_raters(project, 2)[0]
    client.force_login(lead)
    few = _queries(client, f"/projects/{project.pk}/")
    add_raters(project, 8, prefix="more")
    many = _queries(client, f"/projects/{project.pk}/")

    # and a rater in 1 project, then in 4
    client.force_login(rater)
    one = _queries(client, "/")
    for _ in range(3):
        other = rating_project(n_items=2)
        other.memberships.create(user=rater, role="rater")
    four = _queries(client, "/")

    # Then the lead's page and the rater's project list do not grow with them
    assert many == few
    assert four == one
