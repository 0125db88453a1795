"""RankME / E2E (Novikova et al., NAACL 2018), setup 2 informativeness: raw system means as the dataset
reproduces them, per-rater normalisations and mean ranks per screen."""

import json

import pytest

from evaluation.services import ResultOptions, results_compute

from .loaders import load_rankme


@pytest.mark.django_db
def test_rankme_means_normalisations_and_ranks(datasets, lead):
    expected = json.loads((datasets / "rankme_e2e" / "expected_values.json").read_text())
    means = expected["reproduced_raw_scores"]["setup2/rankME/informativeness"]["system_means_raw"]
    project, criterion, ratings = load_rankme(lead, datasets)

    raw = results_compute(project=project, options=ResultOptions(normalisation="none", n_resamples=100))
    systems = {s.system: s for s in raw["criteria"][0].systems}
    assert raw["n_judgments"] == len(ratings) == 900
    assert {name: round(s.mean, 4) for name, s in systems.items()} == means
    # every screen showed the three systems: mean ranks add up to 1 + 2 + 3
    assert sum(s.mean_rank for s in systems.values()) == pytest.approx(6.0)
    assert max(systems, key=lambda n: systems[n].mean_rank) == "sheffield_v2"

    for normalisation in ("zscore", "log"):
        scored = results_compute(
            project=project,
            options=ResultOptions(normalisation=normalisation, n_resamples=0, test_resamples=2000),
        )
        order = [s.system for s in scored["criteria"][0].systems]
        assert order[-1] == "sheffield_v2", normalisation
        assert any(c.significant for c in scored["criteria"][0].comparisons)
