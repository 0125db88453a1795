"""A project rating both whole conversations and their assistant turns gets agreement twice, over each kind of
unit apart (never pooled): the rows, the API's filter and the dashboard's labels keep them apart."""

import krippendorff
import numpy as np
import pytest

from agreement.models import AgreementSnapshot
from agreement.selectors.dashboard import dashboard_for_project
from agreement.services.snapshots import snapshot_compute_for_project
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

# Two raters. Whole outputs: they agree on all four. Turns 0 and 2 of each output: they agree on six of eight.
WHOLE = [(1, 1), (2, 2), (4, 4), (5, 5)]
TURNS = {0: [(1, 1), (3, 3), (5, 5), (2, 2)], 2: [(4, 4), (2, 3), (5, 5), (4, 5)]}


def _both_project():
    project = ProjectFactory(rating_unit="both", criteria=["helpful"])
    raters = [UserFactory(), UserFactory()]
    for rater in raters:
        MembershipFactory(project=project, user=rater)
    for k in range(4):
        item = ItemFactory(project=project)
        for r, rater in enumerate(raters):
            JudgmentFactory(item=item, rater=rater, value=float(WHOLE[k][r]))
            for turn, values in TURNS.items():
                JudgmentFactory(item=item, rater=rater, turn=turn, value=float(values[k][r]))
    snapshot_compute_for_project(project_id=project.pk)
    return project


def _figure(project, rating_unit, statistic):
    return AgreementSnapshot.objects.get(
        project=project, scope="criterion", window="cumulative", rating_unit=rating_unit, statistic=statistic
    )


def test_whole_outputs_and_turns_have_their_own_figures():
    project = _both_project()
    # percent agreement by hand: 4/4 whole outputs, 6/8 turns (pooled it would have been 10/12)
    assert _figure(project, "conversation", "percent_agreement").value == pytest.approx(1.0)
    assert _figure(project, "turn", "percent_agreement").value == pytest.approx(6 / 8)
    whole_alpha = _figure(project, "conversation", "krippendorff_alpha_nominal")
    turn_alpha = _figure(project, "turn", "krippendorff_alpha_nominal")
    assert (whole_alpha.n_units, turn_alpha.n_units) == (4, 8)
    assert whole_alpha.value == pytest.approx(1.0)
    # the turns' alpha as the krippendorff package computes it over the eight turn units alone
    turn_matrix = np.array([[v[r] for t in (0, 2) for v in TURNS[t]] for r in (0, 1)], dtype=float)
    expected = krippendorff.alpha(turn_matrix, level_of_measurement="nominal")
    assert turn_alpha.value == pytest.approx(expected, abs=1e-9)
    # nominal alpha by hand: 16 values, 2 disagreeing units give D_o = 4/16; pair counts of distinct values
    # over n(n-1) with value counts 1:2, 2:3, 3:3, 4:3, 5:5 give D_e = (16*15 - (2+6+6+6+20)) / (16*15)
    assert expected == pytest.approx(1 - (4 / 16) / ((240 - 40) / 240))


def test_the_turns_rows_are_marked_in_their_scope_keys_and_filtered_by_the_api(staff):
    project = _both_project()
    keys = set(
        AgreementSnapshot.objects.filter(project=project, scope="criterion").values_list("scope_key", "rating_unit")
    )
    criterion_id = project.criteria.get().pk
    assert keys == {(f"criterion={criterion_id}", "conversation"), (f"turn|criterion={criterion_id}", "turn")}
    api = client_for(staff)
    url = f"/api/v1/projects/{project.pk}/agreement/"
    rows = api.get(url, {"rating_unit": "turn", "statistic": "percent_agreement", "scope": "criterion"}).json()
    assert [(r["rating_unit"], r["criterion"], r["window"]) for r in rows["results"]] == [
        ("turn", "helpful", "cumulative"),
        ("turn", "helpful", "week"),
    ]
    assert rows["results"][0]["value"] == pytest.approx(0.75)
    refused = api.get(url, {"rating_unit": "dialogue"})
    assert refused.status_code == 400 and "rating_unit" in refused.json()


def test_the_dashboard_shows_each_criterion_per_conversation_and_per_turn():
    board = dashboard_for_project(_both_project())
    assert list(board.labels) == ["helpful", "helpful (per turn)"]
    assert board.labels["helpful (per turn)"]["percent_agreement"]["value"] == pytest.approx(0.75)
    assert board.labels["helpful"]["percent_agreement"]["value"] == pytest.approx(1.0)
    assert set(board.trends) == {"helpful", "helpful (per turn)"}
