"""Gwet's AC1 (nominal) and AC2 (weighted): chance-corrected agreement that resists the kappa paradox."""

import numpy as np

from ._chance import chance_corrected
from ._validation import as_categories, check_choice, check_confidence_level
from ._weights import DISTANCE_SCHEMES, WEIGHT_BASES, WEIGHT_SCHEMES, agreement_weights
from .reliability_data import counts_and_raters


def gwet_ac1(reliability_data, *, categories=None, confidence_level=0.95):
    r"""Gwet's first-order agreement coefficient AC1 for nominal ratings, any number of raters.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Category codes; ``np.nan`` = not rated. Raters per unit may vary.
    categories : sequence of float, optional
        The criterion's declared, ordered category list. AC1 depends on the number of declared
        categories :math:`q` (through :math:`p_e`), so pass it: unused categories count. Default:
        the categories observed in the data.
    confidence_level : float
        For the interval (Student's t with :math:`n - 1` degrees of freedom, as in [2]_).

    Returns
    -------
    AgreementResult
        With ``observed_agreement`` :math:`p_a`, ``expected_agreement`` :math:`p_e`, the
        linearised ``standard_error`` of [2]_, the interval (upper limit capped at 1), and a
        t test of AC1 = 0. ``n_units`` counts units rated at least twice.

    Raises
    ------
    InsufficientDataError
        No unit rated twice, or a single category (declare ``categories`` to fix the scale).
    ValueError
        A rating outside ``categories``, malformed input.

    Notes
    -----
    With :math:`r_{ik}` raters putting unit :math:`i` in category :math:`k`, :math:`r_i` its
    ratings, :math:`n` units rated at least once and :math:`n'` at least twice [1]_ [2]_:

    .. math::

        p_a = \frac{1}{n'} \sum_{i:\,r_i \ge 2} \sum_k \frac{r_{ik}(r_{ik} - 1)}{r_i (r_i - 1)},
        \qquad
        \pi_k = \frac{1}{n} \sum_i \frac{r_{ik}}{r_i}, \qquad
        p_e = \frac{1}{q - 1} \sum_k \pi_k (1 - \pi_k),

    .. math:: \mathrm{AC}_1 = \frac{p_a - p_e}{1 - p_e}.

    The variance is Gwet's linearisation,
    :math:`v = \frac{1}{n(n-1)} \sum_i (\gamma^\star_i - \mathrm{AC}_1)^2` with
    :math:`\gamma^\star_i = \frac{n}{n'}\frac{p_{a|i} - p_e}{1 - p_e}
    - 2(1 - \mathrm{AC}_1)\frac{p_{e|i} - p_e}{1 - p_e}`.
    Unlike kappa, AC1 stays high when agreement is high but one category dominates [1]_.

    References
    ----------
    .. [1] Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the
       presence of high agreement. British Journal of Mathematical and Statistical Psychology,
       61(1), 29-48. https://doi.org/10.1348/000711006X126600
    .. [2] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced Analytics,
       ch. 2 and 5. ISBN 978-0970806284.

    Examples
    --------
    Gwet's ``cac.raw4raters`` data (Krippendorff's 4 raters x 12 units), for which the irrCAC
    package [2]_ prints AC1 = 0.77544, SE = 0.14295, p_e = 0.1903212:

    >>> import numpy as np
    >>> from agreement.stats import gwet_ac1
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> res = gwet_ac1(data)
    >>> round(res.value, 5), round(res.standard_error, 5), round(res.expected_agreement, 7)
    (0.77544, 0.14295, 0.1903212)
    """
    return _gwet(reliability_data, "identity", categories, confidence_level, "gwet_ac1", "position")


def gwet_ac2(reliability_data, *, weights="quadratic", categories=None, weight_basis="position", confidence_level=0.95):
    r"""Gwet's AC2: AC1 with agreement weights for ordinal (or interval) ratings.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Category codes; ``np.nan`` = not rated.
    weights : {"quadratic", "linear", "ordinal", "radical", "identity"} or array, shape (q, q)
        Agreement weights :math:`w_{kl}`. ``"identity"`` gives AC1.
    categories : sequence of float, optional
        The criterion's declared, ordered category list; the weights and :math:`q` are built on
        it, not on the categories that happen to be observed. Default: the observed ones.
    weight_basis : {"position", "value"}
        What linear, quadratic and radical weights measure distances on: ``"position"``
        (default), the categories' places :math:`1..q`, taken as equally spaced (as weighted
        kappa in R ``irr`` and scikit-learn); ``"value"``, the category codes themselves, as
        Gwet [1]_ and irrCAC define them. They differ only for unevenly spaced codes such as
        {0, 1, 2, 5}. Ordinal weights are built on ranks either way.
    confidence_level : float

    Returns
    -------
    AgreementResult
        As :func:`gwet_ac1`, with ``variant`` the weighting and, for linear, quadratic and radical
        weights, its basis: e.g. ``"quadratic, on category positions"``.

    Raises
    ------
    InsufficientDataError
        No unit rated twice, or a single category.
    ValueError
        Unknown weights (the valid ones are listed), a rating outside ``categories``.

    Notes
    -----
    With :math:`r^\star_{ik} = \sum_l w_{kl} r_{il}` and :math:`T_w = \sum_{k,l} w_{kl}` [1]_:

    .. math::

        p_a = \frac{1}{n'} \sum_{i:\,r_i \ge 2} \sum_k \frac{r_{ik}(r^\star_{ik} - 1)}{r_i (r_i - 1)},
        \qquad
        p_e = \frac{T_w}{q(q - 1)} \sum_k \pi_k (1 - \pi_k), \qquad
        \mathrm{AC}_2 = \frac{p_a - p_e}{1 - p_e}.

    On positions, linear weights :math:`1 - |k-l|/(q-1)`; quadratic :math:`1 - (k-l)^2/(q-1)^2`;
    radical :math:`1 - \sqrt{|k-l|}/\sqrt{q-1}`; on values :math:`x_k`, the same with
    :math:`|x_k - x_l|/(x_{max} - x_{min})` for :math:`|k-l|/(q-1)` [1]_. Gwet's ordinal
    :math:`1 - M_{kl}/\max M` with :math:`M_{kl} = \binom{|k-l|+1}{2}` on ranks. Variance as for
    AC1 with the weighted :math:`p_{e|i}`.

    References
    ----------
    .. [1] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced Analytics,
       ch. 3 (weights) and 5. ISBN 978-0970806284.
    .. [2] Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the
       presence of high agreement. British Journal of Mathematical and Statistical Psychology,
       61(1), 29-48. https://doi.org/10.1348/000711006X126600

    Examples
    --------
    With identity weights AC2 is AC1; on Gwet's ``cac.raw4raters`` data irrCAC prints 0.77544:

    >>> import numpy as np
    >>> from agreement.stats import gwet_ac2
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> round(gwet_ac2(data, weights="identity").value, 5)
    0.77544
    >>> round(gwet_ac2(data, weights="quadratic", categories=[1, 2, 3, 4, 5]).value, 4)
    0.914

    On codes 1..5 positions and values give the same weights:

    >>> round(gwet_ac2(data, weights="quadratic", categories=[1, 2, 3, 4, 5], weight_basis="value").value, 4)
    0.914
    """
    if isinstance(weights, str) and weights not in WEIGHT_SCHEMES:
        valid = ", ".join(repr(s) for s in WEIGHT_SCHEMES)
        raise ValueError(f"unknown weights {weights!r}; valid choices are {valid}, or a (q, q) array")
    check_choice("weight_basis", weight_basis, WEIGHT_BASES)
    return _gwet(reliability_data, weights, categories, confidence_level, "gwet_ac2", weight_basis)


def gwet_from_counts(
    counts, *, n_raters: int, weights="identity", categories=None, weight_basis="position", confidence_level=0.95
):
    """:func:`gwet_ac1` (``weights="identity"``) or :func:`gwet_ac2` from per-unit counts over the
    declared categories, shape (n_units, K), as :func:`unit_category_counts` gives them;
    ``n_raters`` (the raters with a rating) is reported, not used. ``weight_basis="value"``
    needs the ``categories`` (the columns' values)."""
    check_choice("weight_basis", weight_basis, WEIGHT_BASES)
    if weight_basis == "value" and categories is None:
        raise ValueError("weight_basis='value' needs the categories (the values of the count columns)")
    name = "gwet_ac1" if isinstance(weights, str) and weights == "identity" else "gwet_ac2"
    values = None if categories is None else as_categories(categories)
    return _gwet_of_counts(
        np.asarray(counts, dtype=np.float64), weights, n_raters, confidence_level, name, weight_basis, values
    )


def _gwet(reliability_data, weights, categories, confidence_level, name, weight_basis):
    counts, cats, n_raters = counts_and_raters(reliability_data, as_categories(categories))
    return _gwet_of_counts(counts, weights, n_raters, confidence_level, name, weight_basis, cats)


def _gwet_of_counts(table: np.ndarray, weights, n_raters: int, confidence_level, name: str, basis: str, values):
    level = check_confidence_level(confidence_level)
    w = agreement_weights(weights, table.shape[1], values=values if basis == "value" else None)
    res = chance_corrected(table, w, "gwet", level)
    if not isinstance(weights, str):
        variant = "custom"
    elif weights in DISTANCE_SCHEMES:
        variant = f"{weights}, on category {basis}s"  # the basis travels with the value it changes
    else:
        variant = weights
    return res.as_result(name, variant, n_raters, level)
