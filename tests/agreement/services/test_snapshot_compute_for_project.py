"""snapshot_compute_for_project: a real study's agreement, scopes, windows, idempotence."""

import numpy as np
import pytest

from agreement.models import AgreementSnapshot
from agreement.services import snapshot_compute_for_project
from agreement.stats import krippendorff_alpha
from tests.agreement.pandalm import load_pandalm
from tests.annotation.factories import ItemFactory, JudgmentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def independent_cohen_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Unweighted Cohen's kappa from the contingency table, written out here to check the platform."""
    categories = np.union1d(a, b)
    table = np.array([[np.sum((a == x) & (b == y)) for y in categories] for x in categories], dtype=float)
    table /= table.sum()
    observed = np.trace(table)
    expected = table.sum(axis=1) @ table.sum(axis=0)
    return (observed - expected) / (1 - expected)


def test_pandalm_pairwise_agreement_matches_an_independent_computation(datasets):
    """Published (PandaLM README): Cohen kappa a1–a2 0.85, a1–a3 0.88, a2–a3 0.86; reproduced to four
    places in the dataset's expected_values.json as 0.8520 / 0.8789 / 0.8617."""
    project, rows = load_pandalm(datasets)
    summary = snapshot_compute_for_project(project_id=project.id)
    assert summary["judgments"] == 2997

    labels = {k: np.array([r[f"annotator{k}"] for r in rows]) for k in (1, 2, 3)}
    expected = {(a, b): independent_cohen_kappa(labels[a], labels[b]) for a, b in ((1, 2), (1, 3), (2, 3))}
    assert [round(v, 4) for v in expected.values()] == [0.8520, 0.8789, 0.8617]

    pair_rows = AgreementSnapshot.objects.filter(
        project=project, scope="pair", statistic="cohen_kappa", window="cumulative"
    )
    served = {
        tuple(sorted((s.rater_a.memberships.get().external_name, s.rater_b.memberships.get().external_name))): s
        for s in pair_rows
    }
    for (a, b), value in expected.items():
        snapshot = served[(f"annotator{a}", f"annotator{b}")]
        assert snapshot.value == pytest.approx(value, abs=1e-9)
        assert snapshot.n_units == 999 and snapshot.ci_low < snapshot.value < snapshot.ci_high

    label = {
        s.statistic: s
        for s in AgreementSnapshot.objects.filter(project=project, scope="criterion", window="cumulative")
    }
    # expected_values.json: Fleiss 0.8642, nominal alpha 0.8642
    assert label["fleiss_kappa"].value == pytest.approx(0.8642, abs=5e-5)
    assert label["krippendorff_alpha_nominal"].value == pytest.approx(0.8642, abs=5e-5)
    assert label["krippendorff_alpha_ordinal"].is_main
    assert label["percent_agreement"].n_units == 999


def test_recompute_is_idempotent_and_covers_subgroups_and_raters(datasets):
    project, _ = load_pandalm(datasets)
    snapshot_compute_for_project(project_id=project.id)
    first = list(AgreementSnapshot.objects.filter(project=project).values_list("scope_key", "statistic", "value"))
    snapshot_compute_for_project(project_id=project.id)
    second = list(AgreementSnapshot.objects.filter(project=project).values_list("scope_key", "statistic", "value"))
    assert sorted(first, key=str) == sorted(second, key=str)
    scopes = set(AgreementSnapshot.objects.filter(project=project).values_list("scope", flat=True))
    assert scopes == {"overall", "criterion", "subgroup", "subgroup_criterion", "pair", "rater"}
    small = AgreementSnapshot.objects.filter(project=project, scope="subgroup_criterion", n_units__lt=30)
    assert small.exists() and all(s.unreliable for s in small)


def test_with_a_rankme_modulus_agreement_is_measured_on_log_ratios_to_the_modulus():
    # Two raters agree within a factor of about 1.2 on five outputs; on the sixth 10,000 against 2,000 (a factor
    # of 5) would dominate interval distances between raw magnitudes.
    project = ProjectFactory(task_type="rankme", criteria=["quality"], rankme_modulus=100)
    outputs = [
        o
        for _ in range(3)
        for o in ItemFactory(project=project, systems=["a", "b"], references=["r"]).outputs.order_by("position")
    ]
    scores = {"r1": [50, 100, 200, 400, 25, 10000], "r2": [60, 90, 250, 350, 30, 2000]}
    for name, values in scores.items():
        rater = UserFactory(username=name)
        for output, value in zip(outputs, values, strict=True):
            JudgmentFactory(item=output.item, output=output, rater=rater, value=value)

    snapshot_compute_for_project(project_id=project.id)

    main = AgreementSnapshot.objects.get(project=project, scope="criterion", window="cumulative", is_main=True)
    logs = np.log(np.array(list(scores.values()), dtype=float) / 100)
    assert main.statistic == "krippendorff_alpha_interval"
    assert main.value == pytest.approx(krippendorff_alpha(logs, level_of_measurement="interval").value, abs=1e-12)
    raw = krippendorff_alpha(np.array(list(scores.values()), dtype=float), level_of_measurement="interval").value
    assert main.value > 0.8 and raw < 0.4
