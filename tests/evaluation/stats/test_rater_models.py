"""Rater models: recovery of known raters and labels in simulation (against the majority vote and the
mean), crowd-kit's Dawid–Skene and MACE on the same data, statsmodels' least squares for the Gaussian
model, and the degenerate cases."""

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from crowdkit.aggregation import MACE, DawidSkene

from evaluation.stats import InsufficientDataError, dawid_skene, gaussian_rater_model, mace, vote_shares
from evaluation.stats.rater_models import _mace_fit

K = 3


def _confusion(accuracy: float) -> np.ndarray:
    return np.full((K, K), (1 - accuracy) / (K - 1)) + np.eye(K) * (accuracy - (1 - accuracy) / (K - 1))


def _simulated_categories(seed: int, n_units: int = 400, per_unit: int = 3):
    """Seven raters: two reliable, two middling, a spammer who always answers the middle category, a
    rater who answers one category higher than the truth most of the time, and one near chance."""
    rng = np.random.default_rng(seed)
    shifted = np.zeros((K, K))
    for k in range(K):
        shifted[k, min(k + 1, K - 1)] += 0.7
        shifted[k, k] += 0.3
    spammer = np.zeros((K, K))
    spammer[:, 1] = 1.0
    confusions = np.stack(
        [_confusion(0.9), _confusion(0.85), _confusion(0.65), _confusion(0.6), spammer, shifted, _confusion(0.4)]
    )
    truth = rng.choice(K, size=n_units, p=[0.5, 0.3, 0.2])
    data = np.full((len(confusions), n_units), np.nan)
    for u in range(n_units):
        for j in rng.choice(len(confusions), size=per_unit, replace=False):
            data[j, u] = rng.choice(K, p=confusions[j, truth[u]])
    return data, truth, confusions


def _majority(data: np.ndarray) -> np.ndarray:
    """The plain majority vote, ties broken at random (the usual baseline)."""
    _, shares = vote_shares(data, categories=range(K))
    rng = np.random.default_rng(1)
    return np.array([rng.choice(np.flatnonzero(row == row.max())) for row in shares])


def _confusions_against(data: np.ndarray, labels: np.ndarray) -> np.ndarray:
    counts = np.full((data.shape[0], K, K), 1e-9)
    for j, u in zip(*np.nonzero(~np.isnan(data)), strict=True):
        counts[j, labels[u], int(data[j, u])] += 1
    return counts / counts.sum(axis=2, keepdims=True)


def _long(data: np.ndarray) -> pd.DataFrame:
    raters, units = np.nonzero(~np.isnan(data))
    return pd.DataFrame({"worker": raters, "task": units, "label": data[raters, units].astype(int)})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_categorical_models_recover_labels_and_confusions_better_than_the_majority_vote(seed):
    data, truth, confusions = _simulated_categories(seed)
    majority = _majority(data)
    ds = dawid_skene(data, categories=range(K))
    mc = mace(data, categories=range(K), rng=np.random.default_rng(seed))
    accuracy = {
        "majority vote": np.mean(majority == truth),
        "Dawid–Skene": np.mean(ds.labels == truth),
        "MACE": np.mean(mc.labels == truth),
    }
    confusion_error = {
        "majority vote": np.abs(_confusions_against(data, majority) - confusions).mean(),
        "Dawid–Skene": np.abs(ds.confusions - confusions).mean(),
    }
    print(f"seed {seed}: item accuracy", {k: round(float(v), 3) for k, v in accuracy.items()})
    print(f"seed {seed}: mean |confusion error|", {k: round(float(v), 3) for k, v in confusion_error.items()})
    assert accuracy["Dawid–Skene"] > accuracy["majority vote"] + 0.03
    assert accuracy["MACE"] > accuracy["majority vote"]
    assert confusion_error["Dawid–Skene"] < confusion_error["majority vote"]
    # MACE finds the spammer: the least competent rater of all
    assert int(np.argmin(mc.competence)) == 4


@pytest.mark.parametrize("seed", [0, 3])
def test_dawid_skene_matches_crowd_kit(seed):
    # the same EM from the same start, so the same numbers after the same rounds (the stopping rules differ:
    # crowd-kit's lower bound counts the log prior once per rating)
    data, _, _ = _simulated_categories(seed, n_units=300)
    ours = dawid_skene(data, categories=range(K), max_iter=60, tol=-np.inf)
    theirs = DawidSkene(n_iter=60, tol=-np.inf).fit(_long(data))
    probas = theirs.probas_.sort_index()[list(range(K))].to_numpy()
    np.testing.assert_allclose(ours.posteriors, probas, atol=1e-8)
    np.testing.assert_allclose(ours.priors, theirs.priors_.sort_index().to_numpy(), atol=1e-8)
    errors = theirs.errors_  # rows (worker, observed label), columns true label
    for j in range(data.shape[0]):
        for given in errors.loc[j].index:
            np.testing.assert_allclose(ours.confusions[j, :, given], errors.loc[(j, given)][list(range(K))], atol=1e-8)


def test_mace_matches_crowd_kit_from_its_start():
    # crowd-kit seeds every restart alike (``random_state`` in ``_initialize``), so its restarts are one
    # start repeated; here both run EM from that start for the same rounds. crowd-kit keeps its parameters
    # in the order raters and labels first appear but sums its guessing counts in sorted order, so the
    # labels are renumbered by first appearance to make both orders one.
    data, _, _ = _simulated_categories(5, n_units=120, per_unit=4)
    frame = _long(data)
    codes, labels = pd.factorize(frame["label"])
    frame["label"] = codes
    workers = pd.factorize(frame["worker"])[1].to_numpy()
    labels = labels.to_numpy()
    theirs = MACE(method="em", n_restarts=1, n_iter=30, random_state=0)
    theirs._initialize(len(workers), len(labels))
    spam, strategy = np.empty(len(workers)), np.empty((len(workers), K))
    spam[workers] = theirs.spamming_[:, 0]
    strategy[np.ix_(workers, labels)] = theirs.thetas_
    raters, units = np.nonzero(~np.isnan(data))
    ours = _mace_fit(
        raters,
        units,
        data[raters, units].astype(int),
        data.shape[0],
        data.shape[1],
        K,
        spam=spam,
        strategy=strategy,
        max_iter=30,
        tol=-np.inf,
        smoothing=0.01 / K,
    )
    theirs.fit(frame)
    np.testing.assert_allclose(ours[0][workers], theirs.spamming_[:, 0], atol=1e-8)
    np.testing.assert_allclose(ours[1][np.ix_(workers, labels)], theirs.thetas_, atol=1e-8)


def test_mace_restarts_escape_the_always_the_same_answer_trap():
    # A rater who always answers the middle category fits as "always knows" from some starts, dragging
    # every item to it; with ten distinct restarts the best fit calls them a spammer.
    data, truth, _ = _simulated_categories(5, n_units=200, per_unit=4)
    model = mace(data, categories=range(K), rng=np.random.default_rng(0))
    print("MACE accuracy", np.mean(model.labels == truth), "competence", model.competence.round(2).tolist())
    assert model.competence[4] < 0.05
    assert np.mean(model.labels == truth) > 0.75


def _simulated_scores(seed: int, n_units: int = 300, per_unit: int = 3):
    rng = np.random.default_rng(seed)
    bias = np.array([-15.0, -8, -3, 0, 2, 5, 8, 11])
    bias -= bias.mean()
    noise = np.array([3.0, 20, 5, 8, 25, 4, 10, 6])
    truth = rng.uniform(20, 80, n_units)
    data = np.full((len(bias), n_units), np.nan)
    for u in range(n_units):
        raters = rng.choice(len(bias), size=per_unit, replace=False)
        data[raters, u] = truth[u] + bias[raters] + rng.normal(0, noise[raters])
    return data, truth, bias, noise


@pytest.mark.parametrize("seed", [0, 1])
def test_gaussian_model_recovers_scores_biases_and_noise_better_than_the_mean(seed):
    data, truth, bias, noise = _simulated_scores(seed)
    model = gaussian_rater_model(data)
    rmse = {
        "mean": float(np.sqrt(np.mean((model.means - truth) ** 2))),
        "Gaussian rater model": float(np.sqrt(np.mean((model.adjusted - truth) ** 2))),
    }
    print(f"seed {seed}: RMSE against the true scores", {k: round(v, 2) for k, v in rmse.items()})
    print(f"seed {seed}: bias", model.bias.round(1).tolist(), "true", bias.round(1).tolist())
    print(f"seed {seed}: noise", model.noise_sd.round(1).tolist(), "true", noise.tolist())
    assert model.converged
    assert rmse["Gaussian rater model"] < 0.8 * rmse["mean"]
    assert np.abs(model.bias - bias).max() < 3.0
    assert np.corrcoef(model.noise_sd, noise)[0, 1] > 0.95


def test_gaussian_model_is_two_way_least_squares_with_one_noise_and_weighted_least_squares_with_many():
    data, _, _, _ = _simulated_scores(4, n_units=60)
    raters, units = np.nonzero(~np.isnan(data))
    frame = pd.DataFrame({"x": data[raters, units], "unit": units, "rater": raters})
    shared = gaussian_rater_model(data, per_rater_noise=False)
    ols = smf.ols("x ~ C(unit) + C(rater)", frame).fit()
    grid = pd.DataFrame({"unit": range(data.shape[1]), "rater": 0})
    fitted = ols.predict(grid).to_numpy()
    # the same unit effects up to the constant the centring of the biases sets
    np.testing.assert_allclose(shared.adjusted - shared.adjusted.mean(), fitted - fitted.mean(), atol=1e-6)

    # at its fixed point, per-rater noise is WLS with weights 1 / σ_j²
    model = gaussian_rater_model(data)
    wls = smf.wls("x ~ C(unit) + C(rater)", frame, weights=1 / model.noise_sd[raters] ** 2).fit()
    fitted = wls.predict(grid).to_numpy()
    np.testing.assert_allclose(model.adjusted - model.adjusted.mean(), fitted - fitted.mean(), atol=1e-5)


def test_vote_shares_keep_declared_categories_nobody_used():
    categories, shares = vote_shares([[1, 1], [1, 3]], categories=[1, 2, 3])
    assert categories == (1, 2, 3)
    assert shares.tolist() == [[1.0, 0.0, 0.0], [0.5, 0.0, 0.5]]


def test_input_validation():
    with pytest.raises(InsufficientDataError, match="no unit is rated by two raters"):
        dawid_skene([[1, np.nan], [np.nan, 2]])
    with pytest.raises(InsufficientDataError, match="no rating at all"):
        gaussian_rater_model([[np.nan, np.nan]])
    with pytest.raises(InsufficientDataError, match="a single category"):
        mace([[1, 1], [1, 1]], rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"values \[7.0\] are not among the categories \[1, 2\]"):
        dawid_skene([[1, 7], [1, 2]], categories=[1, 2])
    with pytest.raises(ValueError, match="must be 2-D"):
        vote_shares([1, 2])
    with pytest.raises(ValueError, match="n_restarts must be at least 1"):
        mace([[1, 2], [1, 2]], rng=np.random.default_rng(0), n_restarts=0)
