"""Published numbers of real human-evaluation studies, reproduced through the library.

The data live in the conftest's datasets folder (``$CONCORD_DATASETS``, else ``<repo>/../shared/datasets``;
never copied into the repo); each test skips when its folder is absent (fails in CI). Sources and published
values: each folder's README.md and expected_values.json.
"""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from agreement.stats import fleiss_kappa, gwet_ac1, icc, krippendorff_alpha, reliability_matrix, unit_category_counts
from agreement.stats.kappa import pairwise_cohen_kappa
from agreement.stats.percent import unanimous_agreement
from agreement.stats.reliability_data import rating_slot_matrix
from tests.conftest import STRICT, datasets_folder


def _folder(name: str) -> Path:
    folder = datasets_folder() / name
    if not folder.is_dir():
        (pytest.fail if STRICT else pytest.skip)(f"{folder} is absent")
    return folder


def _expected(folder: Path) -> dict:
    return json.loads((folder / "expected_values.json").read_text())


# --- PandaLM: 999 A/B/tie judgments by 3 fixed annotators -------------------------------------


@pytest.fixture(scope="module")
def pandalm():
    folder = _folder("pandalm_pairwise")
    items = json.loads((folder / "testset-v1.json").read_text())
    data = np.array([[item[f"annotator{k}"] for item in items] for k in (1, 2, 3)], dtype=float)
    return data, _expected(folder)


def test_pandalm_pairwise_cohen_kappas(pandalm):
    # upstream README: a1-a2 0.85, a1-a3 0.88, a2-a3 0.86 (reproduced 0.8520 / 0.8789 / 0.8617)
    data, expected = pandalm
    published = expected["published"]["cohen_kappa"]
    reproduced = expected["reproduced"]["cohen_kappa_unweighted"]
    for pair in pairwise_cohen_kappa(data):
        key = f"annotator{pair.rater_a + 1}-annotator{pair.rater_b + 1}"
        assert round(pair.result.value, 2) == published[key]
        assert pair.result.value == pytest.approx(reproduced[key], abs=5e-5)


def test_pandalm_fleiss_alpha_and_unanimity(pandalm):
    data, expected = pandalm
    reproduced = expected["reproduced"]
    assert fleiss_kappa(unit_category_counts(data).counts).value == pytest.approx(reproduced["fleiss_kappa"], abs=5e-5)
    assert krippendorff_alpha(data).value == pytest.approx(reproduced["krippendorff_alpha_nominal"], abs=5e-5)
    assert unanimous_agreement(data) == pytest.approx(reproduced["unanimous_fraction"], abs=5e-5)


# --- HANNA: 1,056 stories x 3 rating slots x 6 criteria (Likert 1-5) ---------------------------


@pytest.fixture(scope="module")
def hanna():
    folder = _folder("hanna_story_eval")
    with open(folder / "hanna_ratings_long.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    matrices = {}
    for criterion in {r["criterion"] for r in rows}:
        sel = [r for r in rows if r["criterion"] == criterion]
        matrices[criterion] = reliability_matrix(
            [r["story_id"] for r in sel], [r["rater_slot"] for r in sel], [r["score"] for r in sel]
        ).matrix
    return matrices, _expected(folder), folder


def test_hanna_published_icc(hanna):
    # COLING notebook (pingouin): ICC1 / ICC1k per criterion, 6 decimals
    matrices, expected, _ = hanna
    for criterion, values in expected["agreement_per_criterion"].items():
        data = matrices[criterion]
        assert icc(data, model="ICC(1,1)").value == pytest.approx(values["published_ICC1"], abs=5e-7)
        assert icc(data, model="ICC(1,k)").value == pytest.approx(values["published_ICC1k"], abs=5e-7)
        # rater slots are not worker identities, so ICC(2,*) is only the slot-based reproduction
        assert icc(data, model="ICC(2,1)").value == pytest.approx(values["ICC2_rater_slots"], abs=5e-5)
        assert icc(data, model="ICC(2,k)").value == pytest.approx(values["ICC2k_rater_slots"], abs=5e-5)


def test_hanna_alpha(hanna):
    matrices, expected, _ = hanna
    for criterion, values in expected["agreement_per_criterion"].items():
        data = matrices[criterion]
        interval = krippendorff_alpha(data, level_of_measurement="interval").value
        ordinal = krippendorff_alpha(data, level_of_measurement="ordinal").value
        assert interval == pytest.approx(values["krippendorff_alpha_interval"], abs=5e-5)
        assert ordinal == pytest.approx(values["krippendorff_alpha_ordinal"], abs=5e-5)


def test_hanna_user_study_gwet_ac1_and_the_kappa_paradox(hanna):
    # TACL user study: AC1 guidelines 0.90, syntax 0.97, superfluous 0.66, unsubstantiated 0.60,
    # incoherence 0.81 (main-branch notebook); Fleiss' kappa is near 0 on the same flags
    _, expected, folder = hanna
    with open(folder / "user_study.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for column, values in expected["user_study"].items():
        # 100 explanations x 3 raters, in consecutive row triples
        data = np.array([float(r[column]) for r in rows]).reshape(-1, 3).T
        ac1 = gwet_ac1(data, categories=[0, 1]).value
        assert ac1 == pytest.approx(values["gwet_ac1"], abs=5e-5)
        if values["published_gwet_ac1"] is not None:
            assert round(ac1, 2) == values["published_gwet_ac1"]
        if values["fleiss_kappa"] is not None:
            kappa = fleiss_kappa(unit_category_counts(data, categories=[0, 1]).counts).value
            assert kappa == pytest.approx(values["fleiss_kappa"], abs=5e-5)
            assert kappa < ac1


# --- RankME / E2E: Likert, magnitude estimation and RankME, crowd workers ----------------------


@pytest.fixture(scope="module")
def rankme():
    folder = _folder("rankme_e2e")
    with open(folder / "rankme_ratings_long.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return rows, _expected(folder)["reproduced_raw_scores"]


def test_rankme_interval_alpha_and_one_way_icc(rankme):
    rows, expected = rankme
    for condition, values in expected.items():
        setup, method, criterion = condition.split("/")
        sel = [r for r in rows if r["setup"] == setup[-1] and r["method"] == method and r["criterion"] == criterion]
        units = [f"{r['mr_id']}|{r['system']}" for r in sel]
        scores = [r["score"] for r in sel]
        # units = (MR, system), raters = CrowdFlower workers; 7 to 23 workers, sparse
        matrix = reliability_matrix(units, [r["worker_id"] for r in sel], scores).matrix
        alpha = krippendorff_alpha(matrix, level_of_measurement="interval")
        assert alpha.value == pytest.approx(values["krippendorff_alpha_interval_raw"], abs=5e-5)
        assert alpha.n_units == values["n_items"]
        # one-way ICC on the first three ratings of each item (workers are not crossed with items)
        slots = rating_slot_matrix(units, scores, n_slots=3).matrix
        assert icc(slots, model="ICC(1,1)").value == pytest.approx(values["ICC1_first3_per_item_raw"], abs=5e-5)
        assert icc(slots, model="ICC(1,k)").value == pytest.approx(values["ICC1k_first3_per_item_raw"], abs=5e-5)
