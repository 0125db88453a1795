"""Best–worst scaling through the platform's own services: outputs of known strength imported, the usual
design of 2N tuples of 4 drawn, simulated raters answering every screen they are served, then the results
(counting scores, MaxDiff strengths, split-half reliability) and the agreement on the implied pairwise
preferences."""

import io
import json
from collections import defaultdict
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from agreement.models import AgreementSnapshot
from agreement.services import snapshot_compute_for_project
from annotation.models import Judgment, Membership
from annotation.services.assignment import assignment_next_for_rater
from annotation.services.item_import import item_import
from annotation.services.judgment_submit import judgment_submit
from annotation.services.project import project_create
from annotation.task_types import REGISTRY
from evaluation.services.best_worst_results import BestWorstResult, MaxDiffFit, MaxDiffStrength
from evaluation.services.results import ResultOptions, results_compute
from evaluation.services.scored_results import BestWorstCriterion, SystemScoreStrength
from evaluation.stats import implied_pair_agreement
from tests.annotation.factories import UserFactory

pytestmark = pytest.mark.django_db

N_OUTPUTS = 24
N_RATERS = 4
# True log-strengths, evenly spread; a rater's utility for an output adds standard Gumbel noise, so the best and
# worst picks follow the random-utility model MaxDiff assumes (Marley and Louviere 2005).
STRENGTH = {f"text{i:02d}": s for i, s in enumerate(np.linspace(-3, 3, N_OUTPUTS))}


def _study():
    lead = UserFactory()
    bws = next(slug for slug, t in REGISTRY.items() if t.results.best_worst)
    project = project_create(
        created_by=lead,
        name="known ranking",
        task_type=bws,
        criteria=[{"name": "positivity"}],
        raters_per_item=N_RATERS,
        double_annotation_share=1.0,
        task_config={"seed": 5},
    )
    lines = [
        {
            "external_id": name,
            "input": "Which text is the most positive?",
            "outputs": [{"system": name, "text": f"the text called {name}"}],
        }
        for name in STRENGTH
    ]
    assert item_import(project=project, stream=io.BytesIO("\n".join(map(json.dumps, lines)).encode())) == 48
    rng = np.random.default_rng(1)
    for _ in range(N_RATERS):
        rater = UserFactory()
        Membership.objects.create(project=project, user=rater, role=Membership.Role.RATER)
        while (assignment := assignment_next_for_rater(project_id=project.pk, rater=rater)) is not None:
            by_position = {o.position: o.system for o in assignment.item.outputs.all()}
            shown = [by_position[p] for p in assignment.shown_order]
            utility = [STRENGTH[s] + rng.gumbel() for s in shown]
            judgment_submit(
                rater=rater,
                assignment_id=assignment.pk,
                values=[
                    {"criterion": "positivity", "position": int(np.argmax(utility)), "value": "best"},
                    {"criterion": "positivity", "position": int(np.argmin(utility)), "value": "worst"},
                ],
            )
    return project


def test_the_usual_design_recovers_a_known_ranking_and_reports_its_reliability():
    # given 24 outputs of known strength, 48 tuples of 4, each judged by 4 simulated raters
    project = _study()
    assert Judgment.objects.filter(project=project).count() == 48 * 4 * N_RATERS

    # when the results are computed
    results = results_compute(project=project, options=ResultOptions(n_resamples=100, test_resamples=0))
    criterion = results["criteria"][0]

    # then the counting scores and the MaxDiff strengths both rank the outputs as their true strengths do
    truth = [STRENGTH[row.system] for row in criterion.systems]
    counting = [row.mean for row in criterion.systems]
    maxdiff = [row.strength for row in criterion.systems]
    assert stats.spearmanr(counting, truth).statistic >= 0.95
    assert stats.spearmanr(maxdiff, truth).statistic >= 0.95
    assert all(row.strength_ci[0] <= row.strength <= row.strength_ci[1] for row in criterion.systems)
    # every output was shown 8 × 4 times; a counting score is its mean coded value, within [−1, 1]
    assert {row.n for row in criterion.systems} == {8 * N_RATERS}
    assert all(-1 <= c <= 1 for c in counting)

    # and the split-half reliability as Kiritchenko and Mohammad report it: 100 random splits of each tuple's
    # judgments, Spearman correlation of the halves' counting scores, Spearman–Brown corrected per split and
    # averaged (so at most the correction of the averaged correlation, 2r/(1+r) being concave)
    best_worst = criterion.best_worst
    assert best_worst.n_screens == 48 * N_RATERS and best_worst.n_left_out == 0
    split = best_worst.split_half
    assert (split.n_splits, split.correlation) == (100, "spearman")
    assert split.half < split.corrected <= 2 * split.half / (1 + split.half) + 1e-12
    assert split.corrected > 0.9
    assert split.corrected_range[0] <= split.corrected <= split.corrected_range[1]


def test_agreement_is_measured_on_the_implied_pairwise_preferences():
    project = _study()
    snapshot_compute_for_project(project_id=project.pk)

    # the raw agreement stored is the platform's percent agreement (agreeing rater pairs, averaged over units) on
    # the preferences each answer states: best over the others, the others over worst
    screens = defaultdict(dict)
    for rater, item, system, value in Judgment.objects.filter(project=project).values_list(
        "rater_id", "item_id", "output__system", "value"
    ):
        screens[(rater, item)][system] = value
    stated = defaultdict(list)  # (item, lower system, higher system) → per rater, whether the lower is preferred
    for (_, item), picks in screens.items():
        best = next(s for s, v in picks.items() if v == 1)
        worst = next(s for s, v in picks.items() if v == -1)
        for a, b in combinations(sorted(picks), 2):
            if best in (a, b) or worst in (a, b):
                stated[(item, a, b)].append(a == best or b == worst)
    shares = []
    for votes in stated.values():
        if len(votes) >= 2:
            agreeing = sum(votes) * (sum(votes) - 1) + (len(votes) - sum(votes)) * (len(votes) - sum(votes) - 1)
            shares.append(agreeing / (len(votes) * (len(votes) - 1)))
    stored = AgreementSnapshot.objects.get(
        project=project,
        window=AgreementSnapshot.Window.CUMULATIVE,
        scope=AgreementSnapshot.Scope.CRITERION,
        statistic="percent_agreement",
    )
    assert stored.value == pytest.approx(np.mean(shares), abs=1e-12)
    assert stored.n_units == len(shares)
    # near the statistics library's implied-pair agreement, which pools the comparisons instead of the units (the
    # two weigh units differently: on this design they were seen 0.010 apart, depending on the drawn answers)
    keys = sorted(screens)
    pooled = implied_pair_agreement(
        [sorted(screens[key]) for key in keys],
        [next(s for s, v in screens[key].items() if v == 1) for key in keys],
        [next(s for s, v in screens[key].items() if v == -1) for key in keys],
        units=[item for _, item in keys],
    )
    assert stored.value == pytest.approx(pooled.agreement, abs=0.03)
    # a unit is an implied pair of a tuple: 5 stated pairs (2k − 3) per answer, each tuple's pairs united
    assert 48 * 5 <= stored.n_units <= 48 * 6
    main = AgreementSnapshot.objects.get(
        project=project,
        window=AgreementSnapshot.Window.CUMULATIVE,
        scope=AgreementSnapshot.Scope.CRITERION,
        is_main=True,
    )
    assert main.statistic == "krippendorff_alpha_nominal" and main.value > 0.2


def test_the_json_form_is_the_untyped_one():
    fit = MaxDiffFit(2, 0, None, "natural log-strength, mean zero", {"a": MaxDiffStrength(0.5, [0.1, 0.9])})
    system = SystemScoreStrength("a", 8, 2, 0.25, [0.0, 0.5], 0.0, [0.0, 1.0], 0.5, [0.1, 0.9])
    result = BestWorstResult(4, 1, maxdiff=fit, split_half_error="too few tuples")
    criterion = BestWorstCriterion("best", "none", 8, 2, 4, (system,), (), None, result)
    assert criterion.to_json() == {
        "criterion": "best",
        "normalisation": "none",
        "n_judgments": 8,
        "n_items": 2,
        "n_raters": 4,
        "systems": [
            {
                "system": "a",
                "n": 8,
                "n_items": 2,
                "mean": 0.25,
                "mean_ci": [0.0, 0.5],
                "median": 0.0,
                "median_ci": [0.0, 1.0],
                "strength": 0.5,
                "strength_ci": [0.1, 0.9],
            }
        ],
        "comparisons": [],
        "error": None,
        "best_worst": {
            "n_screens": 4,
            "n_left_out": 1,
            "maxdiff": {
                "n_resamples": 2,
                "n_resamples_without_mle": 0,
                "scale": "natural log-strength, mean zero",
                "systems": {"a": {"strength": 0.5, "strength_ci": [0.1, 0.9]}},
            },
            "split_half": None,
            "maxdiff_error": None,
            "split_half_error": "too few tuples",
        },
    }
    assert list(criterion.to_json()["systems"][0])[-2:] == ["strength", "strength_ci"]
    assert list(criterion.to_json())[-2:] == ["error", "best_worst"]
