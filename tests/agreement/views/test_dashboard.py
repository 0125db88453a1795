"""The agreement dashboard: drawn from stored snapshots, a fixed number of queries, leads only."""

import json
import re

import pytest

from agreement.services import snapshot_compute_for_project
from tests.agreement.pandalm import load_pandalm
from tests.annotation.factories import ItemFactory, JudgmentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def pandalm_lead(datasets):
    project, _ = load_pandalm(datasets)
    lead = UserFactory(username="dash-lead")
    project.memberships.create(user=lead, role="lead")
    snapshot_compute_for_project(project_id=project.id)
    return project, lead


def test_the_dashboard_renders_labels_pairs_subgroups_and_raters_in_constant_queries(
    client, pandalm_lead, django_assert_max_num_queries
):
    project, lead = pandalm_lead
    client.force_login(lead)
    with django_assert_max_num_queries(16):  # 13, and 3 for the freshness line (agreement.selectors.freshness)
        response = client.get(f"/projects/{project.id}/agreement/")
    html = response.content.decode()
    assert response.status_code == 200
    for text in ("Krippendorff&#x27;s α (ordinal)", "annotator1", "Cohen&#x27;s κ", "Grammarly", "trend-data", "0.864"):
        assert text in html, text
    # the pair table's figures travel as data the page's script draws (checked in the browser test)
    heat = json.loads(re.search(r'<script id="pair-data" type="application/json">(.*?)</script>', html, re.S)[1])
    some_label = next(iter(heat.values()))
    assert some_label["statistic"] == "cohen_kappa" and len(some_label["raters"]) == 3
    assert sorted(round(cell[2], 2) for cell in some_label["cells"]) == [0.85, 0.86, 0.88]


def _project_with(n_raters: int, n_items: int, n_subgroups: int):
    project = ProjectFactory(name=f"{n_raters} raters", criteria=["fluency", "coherence"])
    raters = [UserFactory(username=f"q{n_raters}-{k}") for k in range(n_raters)]
    for i in range(n_items):
        item = ItemFactory(project=project, external_id=f"i{i}", subgroup=f"g{i % n_subgroups}")
        for k, rater in enumerate(raters):
            for criterion in project.criteria.all():
                JudgmentFactory(item=item, rater=rater, criterion=criterion, value=1 + (i + k * (i % 2)) % 5)
    snapshot_compute_for_project(project_id=project.id)
    return project


def test_the_number_of_queries_does_not_grow_with_raters_items_or_subgroups(client, lead):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for size in ((3, 10, 2), (8, 40, 6)):
        project = _project_with(*size)
        project.memberships.create(user=lead, role="lead")
        client.force_login(lead)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/projects/{project.id}/agreement/").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_before_any_judgment_the_page_says_no_item_overlaps_yet(client, project, lead):
    client.force_login(lead)
    html = client.get(f"/projects/{project.id}/agreement/").content.decode()
    assert 'data-missing="overlap"' in html and "no rater has judged an item" in html


def test_raters_and_outsiders_cannot_see_the_dashboard(client, project, rater):
    client.force_login(rater)
    assert client.get(f"/projects/{project.id}/agreement/").status_code == 403
    client.force_login(UserFactory(username="nobody"))
    assert client.get(f"/projects/{project.id}/agreement/").status_code == 404


def test_the_recompute_button_starts_a_job(client, project, lead):
    client.force_login(lead)
    response = client.post(f"/projects/{project.id}/agreement/recompute/", follow=True)
    assert b"Recompute started" in response.content


def test_a_label_no_unit_of_which_is_rated_twice_yet_renders(client, lead):
    from annotation.models import Membership
    from annotation.services import assignment_next_for_rater, judgment_submit
    from tests.annotation.rating import add_raters, full_values, rating_project

    project = rating_project(n_items=3, criteria=["fluency"], systems=["s1"])
    project.memberships.create(user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project)
    for _ in range(3):
        assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 4))
    snapshot_compute_for_project(project_id=project.id)
    client.force_login(lead)
    response = client.get(f"/projects/{project.id}/agreement/")
    assert response.status_code == 200


def test_high_agreement_with_low_kappa_is_explained_with_the_dominant_value(client, lead):
    # Given three raters who give nearly every output a 5, and disagree on four of forty only
    project = ProjectFactory(name="prevalent", criteria=["fluency"])
    project.memberships.create(user=lead, role="lead")
    raters = [UserFactory(username=f"prev-{k}") for k in range(3)]
    for i in range(40):
        item = ItemFactory(project=project, external_id=f"p{i}")
        for k, rater in enumerate(raters):
            JudgmentFactory(item=item, rater=rater, value=4 if (i >= 36 and k == 0) else 5)
    snapshot_compute_for_project(project_id=project.id)

    # When the lead opens the dashboard
    client.force_login(lead)
    html = client.get(f"/projects/{project.id}/agreement/").content.decode()

    # Then the note names the paradox and the prevalence behind it: 116 of 120 ratings are 5s
    note = " ".join(re.search(r'data-testid="kappa-paradox">(.*?)</p>', html, re.S)[1].split())
    assert "raters agree on 93.3% of pairs" in note
    assert "One value dominates: 5 makes up 96.7% of the pairable ratings (n=40 units)" in note


def test_two_raters_who_share_a_name_stay_two(client, lead):
    # Given a platform rater "w1" and an imported rater also called "w1" who judged the same items
    from annotation.models import Judgment, Membership
    from annotation.services import judgment_import
    from tests.annotation.import_lines import jsonl

    project = ProjectFactory(name="namesakes", criteria=["fluency"])
    project.memberships.create(user=lead, role="lead")
    platform = UserFactory(username="w1")
    Membership.objects.create(project=project, user=platform, role=Membership.Role.RATER)
    items = [ItemFactory(project=project, external_id=f"n{i}") for i in range(6)]
    for i, item in enumerate(items):
        JudgmentFactory(item=item, rater=platform, value=1 + i % 5)
    judgment_import(
        project=project,
        stream=jsonl(
            *[
                {"item": item.external_id, "rater": "w1", "criterion": "fluency", "value": 1 + (i + i % 2) % 5}
                for i, item in enumerate(items)
            ]
        ),
    )
    assert Judgment.objects.filter(project=project).values("rater").distinct().count() == 2
    snapshot_compute_for_project(project_id=project.id)

    # When the lead opens the dashboard
    client.force_login(lead)
    html = client.get(f"/projects/{project.id}/agreement/").content.decode()

    # Then the pair table has both, and their one pair off the diagonal; the raters table has two rows
    heat = json.loads(re.search(r'<script id="pair-data" type="application/json">(.*?)</script>', html, re.S)[1])
    assert heat["fluency"]["raters"] == ["w1", "w1"]
    assert [cell[:2] for cell in heat["fluency"]["cells"]] == [[0, 1]]
    raters_table = html.split('id="raters-h"', 1)[1]
    assert raters_table.count('<th scope="row" rowspan="1">w1</th>') == 2


def test_a_project_whose_every_judgment_is_off_the_scale_says_so(client, lead):
    from annotation.models import Judgment

    project = ProjectFactory(name="all off", criteria=["fluency"])
    project.memberships.create(user=lead, role="lead")
    for i in range(3):
        item = ItemFactory(project=project, external_id=f"o{i}")
        for k in range(2):
            JudgmentFactory(item=item, rater=UserFactory(username=f"off{i}-{k}"), value=3)
    Judgment.objects.filter(project=project).update(value=9.0)
    snapshot_compute_for_project(project_id=project.id)
    client.force_login(lead)
    html = client.get(f"/projects/{project.id}/agreement/").content.decode()
    assert "No label has a coefficient yet." in html and "None" not in html
    assert "6 stored judgments" in html


def test_the_ac2_column_says_its_weights_are_on_category_positions(client, lead):
    # issue 24, point 7: AC2's weight basis is named where its value is shown
    project = _project_with(3, 10, 2)
    project.memberships.create(user=lead, role="lead")
    client.force_login(lead)
    html = client.get(f"/projects/{project.id}/agreement/").content.decode()
    assert "Gwet&#x27;s AC2 (quadratic weights on category positions)" in html


def test_a_label_with_too_few_units_for_its_interval_says_so(client, lead, monkeypatch):
    # issue 24, point 6: beyond the "fewer than 30 units" flag, below MIN_INTERVAL_UNITS the
    # interval itself is not to be trusted at its 95%
    project = _project_with(3, 12, 2)
    project.memberships.create(user=lead, role="lead")
    client.force_login(lead)
    html = client.get(f"/projects/{project.id}/agreement/").content.decode()
    assert html.count('data-testid="small-interval"') == 2  # both labels, 12 units each
    assert "rests on 12 units rated at least twice" in html and "Below 100 units" in html
    assert 'title="95% interval (bca)"' in html  # ordinal alpha's interval is BCa
    monkeypatch.setattr("agreement.selectors.dashboard.MIN_INTERVAL_UNITS", 12)
    assert 'data-testid="small-interval"' not in client.get(f"/projects/{project.id}/agreement/").content.decode()
