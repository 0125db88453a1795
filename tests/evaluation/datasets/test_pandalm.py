"""PandaLM's human test set (Wang et al., ICLR 2024) through the platform's imports: majority-vote win
rates as the dataset README reproduces them and the Bradley–Terry order with intervals."""

from collections import Counter

import pytest

from evaluation.services import ResultOptions, results_compute

from .loaders import load_pandalm

# shared/datasets/pandalm_pairwise/README.md, "Reproduced here": majority vote, ties count 0.5
WIN_RATES = {
    "llama-7b": 0.7114,
    "pythia-6.9b": 0.5230,
    "bloom-7b": 0.4889,
    "opt-7b": 0.4223,
    "cerebras-gpt-6.7B": 0.3380,
}
ORDER = ["llama-7b", "pythia-6.9b", "bloom-7b", "opt-7b", "cerebras-gpt-6.7B"]


@pytest.mark.django_db
def test_pandalm_majority_win_rates_and_bradley_terry_order(datasets, lead):
    # Given the 999 items and 3 annotators imported as a pairwise project
    project, data = load_pandalm(lead, datasets)

    # When results are computed on one majority vote per item, ties as half-wins
    results = results_compute(project=project, options=ResultOptions(aggregate="majority", n_resamples=300))
    overall = results["criteria"][0]

    # Then every item has a majority and the label counts are the published ones (tie 105, 422, 472)
    assert overall.n_judgments == 2997 and overall.n_comparisons == 999
    assert overall.n_without_majority == 0
    assert sum(p.ties for p in overall.pairs) == 105
    # the win rates equal the README's and an independent count from the raw file
    rates = {s.system: s.win_rate for s in overall.systems}
    assert {s: round(r, 4) for s, r in rates.items()} == WIN_RATES
    assert rates == pytest.approx(_raw_majority_win_rates(data), abs=1e-12)
    # and the Bradley–Terry order is llama-7b > pythia-6.9b > bloom-7b > opt-7b > cerebras-gpt-6.7B
    assert [s.system for s in overall.systems] == ORDER
    for s in overall.systems:
        low, high = s.strength_ci
        assert low < s.strength < high
    top, bottom = overall.systems[0], overall.systems[-1]
    assert top.strength_ci[0] > bottom.strength_ci[1]
    assert overall.bradley_terry.n_resamples_without_mle == 0
    assert len(overall.pairs) == 10 and all(0 <= p.p_holm <= 1 for p in overall.pairs)

    # The same order with Davidson's tie model, and with every judgment counted
    davidson = results_compute(project=project, options=ResultOptions(ties="davidson", n_resamples=0))
    assert [s.system for s in davidson["criteria"][0].systems] == ORDER
    assert davidson["criteria"][0].bradley_terry.tie_parameter > 0


def _raw_majority_win_rates(data) -> dict:
    score, games = Counter(), Counter()
    for d in data:
        first, second = d["cmp_key"].split("_")
        label = Counter(d[f"annotator{k}"] for k in (1, 2, 3)).most_common(1)[0][0]
        games[first] += 1
        games[second] += 1
        score[first] += {1: 1.0, 0: 0.5, 2: 0.0}[label]
        score[second] += {2: 1.0, 0: 0.5, 1: 0.0}[label]
    return {s: score[s] / games[s] for s in games}
