"""Power and sample size of tests on the AUC (Obuchowski's normal approximations, pROC's
``power.roc.test``; docs/inference.md, "Power and sample size").

Every test reads ``n = (z_alpha * sqrt(v0) + z_beta * sqrt(va))^2 / delta^2`` (formula 2
of Obuchowski & McClish, 1997), power and sample size being its two readings; the
variances come from the binormal model for one AUC (Obuchowski, Lieber & Wians, 2004,
formula 3), two binormal curves (1997, formulas 4 and 5) or DeLong's variances on data.
The numeric functions broadcast their arguments to one row per combination.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl
from scipy.special import ndtr, ndtri

from polars_roc.core.arguments import Roles, check_rates, refuse_clashes
from polars_roc.core.counting import count_rows
from polars_roc.core.score_table import group_totals
from polars_roc.core.validate import NEG, POS, Direction, Frame, NullPolicy
from polars_roc.stats.cells import ordered_sum
from polars_roc.stats.distributions import map_numpy
from polars_roc.stats.paired_tests import (
    COMPARE_COLUMNS,
    delong_variance,
    name_pair,
    per_group_placements,
    two_scores,
)

__all__ = [
    "auc_detectable",
    "auc_diff_power",
    "auc_diff_sample_size",
    "auc_power",
    "auc_sample_size",
    "compare_power",
]

Sidedness = Literal["two-sided", "one-sided"]
ArrayLike = float | Sequence[float] | np.ndarray
# The variance of the AUC estimate at AUC = 0.5 per unit of 1 + 1/kappa (Obuchowski 2004).
_NULL_VARIANCE = 0.0792
# Bisection steps for the detectable AUC: the bracket (0.5, 1) shrinks below 1e-17.
_DETECTABLE_STEPS = 60
# The range of each numeric argument, (low, high, closed): open unless closed.
_RANGES = {
    "auc": (0.5, 1.0, False),
    **dict.fromkeys(["n_pos", "n_neg", "neg_per_pos", "b1", "b2"], (0.0, np.inf, False)),
    **dict.fromkeys(["sig_level", "power"], (0.0, 1.0, False)),
    **dict.fromkeys(["a1", "a2"], (-np.inf, np.inf, False)),
    **dict.fromkeys(["r_pos", "r_neg", "delta"], (-1.0, 1.0, True)),
}


def _array(name: str, value: Any) -> np.ndarray:
    """``value`` as a float array, every entry checked to lie in the range of ``name``."""
    low, high, closed = _RANGES[name]
    try:
        values = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"{name} must be a number or a sequence of numbers, got {value!r}"
        raise ValueError(msg) from None
    inside = (low <= values) & (values <= high) if closed else (low < values) & (values < high)
    bad = ~inside
    if bad.any():
        left, right = ("[", "]") if closed else ("(", ")")
        msg = (
            f"{name} must lie in {left}{low:g}, {high:g}{right}, "
            f"got {values[bad].ravel()[:10].tolist()}"
        )
        raise ValueError(msg)
    return values


def _checked(alternative: str, **values: Any) -> list[np.ndarray]:
    """Check ``alternative``, then each value as :func:`_array` does, in order."""
    if alternative not in ("two-sided", "one-sided"):
        msg = f"alternative must be 'two-sided' or 'one-sided', got {alternative!r}"
        raise ValueError(msg)
    return [_array(name, value) for name, value in values.items()]


def _z_alpha(sig_level: np.ndarray, alternative: Sidedness) -> np.ndarray:
    # pROC's convention: a two-sided test spends alpha/2 in the direction of the effect
    # and ignores the (negligible) power in the other tail.
    return ndtri(1.0 - (sig_level / 2 if alternative == "two-sided" else sig_level))


def _solve_power(n_pos: Any, z_alpha: Any, v0: Any, va: Any, delta: Any) -> np.ndarray:
    z_beta = (np.sqrt(n_pos * delta**2) - z_alpha * np.sqrt(v0)) / np.sqrt(va)
    return ndtr(z_beta)


def _solve_n_pos(z_alpha: Any, z_beta: Any, v0: Any, va: Any, delta: Any) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        n_pos = (z_alpha * np.sqrt(v0) + z_beta * np.sqrt(va)) ** 2 / delta**2
    # No effect cannot be detected by any sample: say so with infinity, not NaN.
    return np.where(delta == 0, np.inf, n_pos)


def _one_auc(auc: np.ndarray, kappa: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(v0, va, delta)`` of the test of one AUC against 0.5: ``va`` is the variance of
    sqrt(n_pos) * AUC under the binormal model (Obuchowski 2004, formula 3)."""
    a = ndtri(auc) * 1.414
    va = 0.0099 * np.exp(-(a**2) / 2) * ((5 * a**2 + 8) + (a**2 + 8) / kappa)
    return _NULL_VARIANCE * (1 + 1 / kappa), va, auc - 0.5


def _frame(**columns: np.ndarray) -> pl.DataFrame:
    arrays = np.broadcast_arrays(*columns.values())
    return pl.DataFrame({name: np.ravel(a) for name, a in zip(columns, arrays, strict=True)})


def _sized(kappa: np.ndarray, n_pos: np.ndarray, **given: np.ndarray) -> pl.DataFrame:
    """A sample size's frame: ``given``, then ``neg_per_pos``, ``n_pos``, ``n_neg``."""
    return _frame(**given, neg_per_pos=kappa, n_pos=n_pos, n_neg=kappa * n_pos)


def auc_power(
    auc: ArrayLike,
    n_pos: ArrayLike,
    n_neg: ArrayLike,
    *,
    sig_level: ArrayLike = 0.05,
    alternative: Sidedness = "two-sided",
) -> pl.DataFrame:
    """Power of the test that an AUC differs from 0.5, for given numbers of cases.

    Obuchowski, Lieber & Wians (2004): the variance of the AUC under the binormal model
    with equal variances (their formula 3) and its value at AUC 0.5 under the null, as
    pROC's ``power.roc.test(auc=, ncases=, ncontrols=)``. Arguments may be arrays:
    they are broadcast together and the result has one row per combination.

    Parameters
    ----------
    auc
        The AUC expected under the alternative, in (0.5, 1) (an AUC below 0.5 is the
        same test with the score reversed: pass ``1 - auc``).
    n_pos, n_neg
        Numbers of positives (cases) and negatives (controls), positive.
    sig_level
        Significance level (type I error) of the test, in (0, 1).
    alternative
        ``"two-sided"`` spends ``sig_level / 2`` in the direction of the effect (as
        pROC; the other tail is ignored), ``"one-sided"`` all of it.

    Returns
    -------
    DataFrame
        ``[auc, n_pos, n_neg, sig_level, power]``, one row per combination of the
        broadcast arguments.

    Examples
    --------
    >>> import polars_roc as pr
    >>> pr.auc_power(0.73, n_pos=41, n_neg=72)
    shape: (1, 5)
    ┌──────┬───────┬───────┬───────────┬──────────┐
    │ auc  ┆ n_pos ┆ n_neg ┆ sig_level ┆ power    │
    │ ---  ┆ ---   ┆ ---   ┆ ---       ┆ ---      │
    │ f64  ┆ f64   ┆ f64   ┆ f64       ┆ f64      │
    ╞══════╪═══════╪═══════╪═══════════╪══════════╡
    │ 0.73 ┆ 41.0  ┆ 72.0  ┆ 0.05      ┆ 0.989745 │
    └──────┴───────┴───────┴───────────┴──────────┘
    """
    auc_, n_pos_, n_neg_, sig = _checked(
        alternative, auc=auc, n_pos=n_pos, n_neg=n_neg, sig_level=sig_level
    )
    power = _solve_power(n_pos_, _z_alpha(sig, alternative), *_one_auc(auc_, n_neg_ / n_pos_))
    return _frame(auc=auc_, n_pos=n_pos_, n_neg=n_neg_, sig_level=sig, power=power)


def auc_sample_size(
    auc: ArrayLike,
    *,
    power: ArrayLike = 0.8,
    sig_level: ArrayLike = 0.05,
    neg_per_pos: ArrayLike = 1.0,
    alternative: Sidedness = "two-sided",
) -> pl.DataFrame:
    """Numbers of positives and negatives a test that an AUC differs from 0.5 needs.

    The inverse of :func:`auc_power` (pROC's ``power.roc.test(auc=, power=,
    kappa=)``). The sizes are the exact solutions of the formula, not rounded: round
    them up to plan a study.

    Parameters
    ----------
    auc
        The AUC expected under the alternative, in (0.5, 1).
    power
        The power wanted, in (0, 1).
    neg_per_pos
        Negatives per positive in the planned sample (pROC's ``kappa``), positive; the
        prevalence is ``1 / (1 + neg_per_pos)``.
    sig_level, alternative
        As in :func:`auc_power`.

    Returns
    -------
    DataFrame
        ``[auc, power, sig_level, neg_per_pos, n_pos, n_neg]``, one row per combination
        of the broadcast arguments; ``n_neg = neg_per_pos * n_pos``.

    Examples
    --------
    Obuchowski et al. (2004), table 4: one negative per positive, AUC 0.8, power 0.9,
    one-sided 5% test: 14 of each (rounded up).

    >>> import polars_roc as pr
    >>> pr.auc_sample_size(0.8, power=0.9, alternative="one-sided")
    shape: (1, 6)
    ┌─────┬───────┬───────────┬─────────────┬──────────┬──────────┐
    │ auc ┆ power ┆ sig_level ┆ neg_per_pos ┆ n_pos    ┆ n_neg    │
    │ --- ┆ ---   ┆ ---       ┆ ---         ┆ ---      ┆ ---      │
    │ f64 ┆ f64   ┆ f64       ┆ f64         ┆ f64      ┆ f64      │
    ╞═════╪═══════╪═══════════╪═════════════╪══════════╪══════════╡
    │ 0.8 ┆ 0.9   ┆ 0.05      ┆ 1.0         ┆ 13.38553 ┆ 13.38553 │
    └─────┴───────┴───────────┴─────────────┴──────────┴──────────┘
    """
    auc_, power_, sig, kappa = _checked(
        alternative, auc=auc, power=power, sig_level=sig_level, neg_per_pos=neg_per_pos
    )
    n_pos = _solve_n_pos(_z_alpha(sig, alternative), ndtri(power_), *_one_auc(auc_, kappa))
    return _sized(kappa, n_pos, auc=auc_, power=power_, sig_level=sig)


def auc_detectable(
    n_pos: ArrayLike,
    n_neg: ArrayLike,
    *,
    power: ArrayLike = 0.8,
    sig_level: ArrayLike = 0.05,
    alternative: Sidedness = "two-sided",
) -> pl.DataFrame:
    """The smallest AUC a test against 0.5 detects with the given power and sizes.

    Solves :func:`auc_power` for the AUC (pROC's ``power.roc.test(ncases=, ncontrols=,
    power=)``), by bisection on (0.5, 1), where the power grows with the AUC.

    Parameters
    ----------
    n_pos, n_neg, sig_level, alternative
        As in :func:`auc_power`.
    power
        The power wanted, in (0, 1).

    Returns
    -------
    DataFrame
        ``[n_pos, n_neg, power, sig_level, auc]``; ``auc`` is null where even an AUC
        near 1 is not detected with that power.

    Examples
    --------
    >>> import polars_roc as pr
    >>> pr.auc_detectable(41, 72, power=0.95)["auc"].round(6).to_list()
    [0.6961]
    """
    n_pos_, n_neg_, power_, sig = np.broadcast_arrays(
        *_checked(alternative, n_pos=n_pos, n_neg=n_neg, power=power, sig_level=sig_level)
    )
    kappa, z_alpha = n_neg_ / n_pos_, _z_alpha(sig, alternative)

    def power_at(auc: np.ndarray) -> np.ndarray:
        return _solve_power(n_pos_, z_alpha, *_one_auc(auc, kappa))

    low, high = np.full(n_pos_.shape, 0.5), np.full(n_pos_.shape, 1.0 - 1e-15)
    for _ in range(_DETECTABLE_STEPS):
        mid = 0.5 * (low + high)
        short = power_at(mid) < power_
        low, high = np.where(short, mid, low), np.where(short, high, mid)
    auc = np.where(power_at(high) >= power_, 0.5 * (low + high), np.nan)
    result = _frame(n_pos=n_pos_, n_neg=n_neg_, power=power_, sig_level=sig, auc=auc)
    return result.with_columns(pl.col("auc").fill_nan(None))


def _binormal_derivatives(
    a: np.ndarray, b: np.ndarray, fpr_range: tuple[float, float] | None
) -> tuple[np.ndarray, np.ndarray]:
    """Derivatives of the (partial) binormal area in ``a`` and ``b`` (Obuchowski 1997).

    Table 1 of Obuchowski & McClish (1997). pROC writes the partial-area pair with the
    opposite sign; both enter the variances only as products, which are the same.
    """
    spread = 1 + b**2
    bell = np.exp(-(a**2) / (2 * spread))
    if fpr_range is None:
        f = bell / np.sqrt(2 * math.pi * spread)
        return f, -bell * a * b / np.sqrt(2 * math.pi * spread**3)
    shift = a * b / spread
    c_low, c_high = ((ndtri(x) + shift) * np.sqrt(spread) for x in fpr_range)
    mass = ndtr(c_high) - ndtr(c_low)
    f = bell / np.sqrt(2 * math.pi * spread) * mass
    g = (
        bell / (2 * math.pi * spread) * (np.exp(-(c_low**2) / 2) - np.exp(-(c_high**2) / 2))
        - a * b * bell / np.sqrt(2 * math.pi * spread**3) * mass
    )
    return f, g


def _binormal_variances(
    params: list[np.ndarray], kappa: np.ndarray, fpr_range: tuple[float, float] | None
) -> tuple[np.ndarray, np.ndarray]:
    """``(v0, va)`` of a difference of two binormal areas, formulas 4 and 5 (1997), from
    the curves' ``params`` ``(a1, b1, a2, b2, r_pos, r_neg)``."""
    a1, b1, a2, b2, r_pos, r_neg = params
    f1, g1 = _binormal_derivatives(a1, b1, fpr_range)
    f2, g2 = _binormal_derivatives(a2, b2, fpr_range)

    def variance(f: np.ndarray, g: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return f**2 * (1 + b**2 / kappa + a**2 / 2) + g**2 * b**2 * (1 + kappa) / (2 * kappa)

    var1, var2 = variance(f1, g1, a1, b1), variance(f2, g2, a2, b2)
    cov = (
        f1 * f2 * (r_pos + r_neg * b1 * b2 / kappa + r_pos**2 * a1 * a2 / 2)
        + g1 * g2 * b1 * b2 * (r_neg**2 + kappa * r_pos**2) / (2 * kappa)
        + f1 * g2 * r_pos**2 * a1 * b2 / 2
        + f2 * g1 * r_pos**2 * a2 * b1 / 2
    )
    # Under the null both curves are the first one (pROC's convention).
    return 2 * var1 - 2 * cov, var1 + var2 - 2 * cov


def _binormal_delta(
    params: list[np.ndarray], delta: ArrayLike | None, fpr_range: tuple[float, float] | None
) -> np.ndarray:
    """The checked ``delta`` of two binormal curves' ``params``: by default the
    difference of their AUCs ``Phi(a / sqrt(1 + b^2))``, needed with ``fpr_range``."""
    if fpr_range is not None:
        check_rates("fpr_range", fpr_range, form="pair", one_message=True, quote=False)
        if delta is None:
            msg = (
                "delta= is needed with fpr_range=: pass the difference of the two partial "
                "areas the study should detect"
            )
            raise ValueError(msg)
    if delta is None:
        a1, b1, a2, b2 = params[:4]
        delta = ndtr(a1 / np.sqrt(1 + b1**2)) - ndtr(a2 / np.sqrt(1 + b2**2))
    return _array("delta", delta)


def auc_diff_power(
    *,
    a1: ArrayLike,
    a2: ArrayLike,
    n_pos: ArrayLike,
    n_neg: ArrayLike,
    b1: ArrayLike = 1.0,
    b2: ArrayLike = 1.0,
    r_pos: ArrayLike = 0.0,
    r_neg: ArrayLike = 0.0,
    delta: ArrayLike | None = None,
    fpr_range: tuple[float, float] | None = None,
    sig_level: ArrayLike = 0.05,
    alternative: Sidedness = "two-sided",
) -> pl.DataFrame:
    """Power of the paired test of two AUCs for two binormal ROC curves.

    Obuchowski & McClish (1997): two scores on the same cases, each with a binormal ROC
    curve ``tpr = Phi(a + b * Phi^-1(fpr))``, correlated ``r_pos`` among positives and
    ``r_neg`` among negatives; full or partial (``fpr_range``) areas. As pROC's
    ``power.roc.test(list(A1=, B1=, A2=, B2=, rn=, ra=, delta=), ncases=, ncontrols=)``.

    Parameters
    ----------
    a1, b1, a2, b2
        Binormal parameters of the two curves: ``a`` the separation of the classes'
        means in negative standard deviations, ``b`` the ratio of the negatives' to the
        positives' standard deviation (positive; 1 for equal spreads).
    r_pos, r_neg
        Correlation of the two scores among positives (pROC's ``ra``) and among
        negatives (``rn``), in [-1, 1]; 0 for independent samples.
    delta
        The difference of the two areas to detect. Default: the difference of the two
        binormal AUCs ``Phi(a / sqrt(1 + b^2))``; needed with ``fpr_range``.
    fpr_range
        ``(low, high)``: the partial areas over false positive rates in that band (not
        standardized), as pROC's ``FPR11``/``FPR12`` (the same band for both curves).
    n_pos, n_neg, sig_level, alternative
        As in :func:`auc_power`.

    Returns
    -------
    DataFrame
        ``[delta, n_pos, n_neg, sig_level, power]``, one row per combination of the
        broadcast arguments.

    Examples
    --------
    Obuchowski & McClish (1997), example 2: partial areas over fpr in [0, 0.2], 107
    cases of each class detect a difference of 0.037 with power 0.8.

    >>> import polars_roc as pr
    >>> pr.auc_diff_power(
    ...     a1=2.6, a2=1.9, r_pos=0.6, r_neg=0.6, delta=0.037, fpr_range=(0, 0.2),
    ...     n_pos=107, n_neg=107,
    ... )["power"].round(6).to_list()
    [0.799929]
    """
    params = _checked(alternative, a1=a1, b1=b1, a2=a2, b2=b2, r_pos=r_pos, r_neg=r_neg)
    delta_ = _binormal_delta(params, delta, fpr_range)
    n_pos_, n_neg_, sig = _checked(alternative, n_pos=n_pos, n_neg=n_neg, sig_level=sig_level)
    v0, va = _binormal_variances(params, n_neg_ / n_pos_, fpr_range)
    power = _solve_power(n_pos_, _z_alpha(sig, alternative), v0, va, delta_)
    return _frame(delta=delta_, n_pos=n_pos_, n_neg=n_neg_, sig_level=sig, power=power)


def auc_diff_sample_size(
    *,
    a1: ArrayLike,
    a2: ArrayLike,
    b1: ArrayLike = 1.0,
    b2: ArrayLike = 1.0,
    r_pos: ArrayLike = 0.0,
    r_neg: ArrayLike = 0.0,
    delta: ArrayLike | None = None,
    fpr_range: tuple[float, float] | None = None,
    power: ArrayLike = 0.8,
    sig_level: ArrayLike = 0.05,
    neg_per_pos: ArrayLike = 1.0,
    alternative: Sidedness = "two-sided",
) -> pl.DataFrame:
    """Numbers of cases the paired test of two binormal AUCs needs.

    The inverse of :func:`auc_diff_power` (pROC's ``power.roc.test(list(...),
    power=)``); the sizes are exact solutions, not rounded.

    Parameters
    ----------
    a1, b1, a2, b2, r_pos, r_neg, delta, fpr_range
        As in :func:`auc_diff_power`.
    power, sig_level, neg_per_pos, alternative
        As in :func:`auc_sample_size`.

    Returns
    -------
    DataFrame
        ``[delta, power, sig_level, neg_per_pos, n_pos, n_neg]``; ``n_pos`` is infinite
        where ``delta`` is 0.

    Examples
    --------
    >>> import polars_roc as pr
    >>> pr.auc_diff_sample_size(
    ...     a1=2.6, a2=1.9, r_pos=0.6, r_neg=0.6, delta=0.037, fpr_range=(0, 0.2),
    ... )["n_pos"].round(4).to_list()
    [107.0238]
    """
    params = _checked(alternative, a1=a1, b1=b1, a2=a2, b2=b2, r_pos=r_pos, r_neg=r_neg)
    delta_ = _binormal_delta(params, delta, fpr_range)
    power_, sig, kappa = _checked(
        alternative, power=power, sig_level=sig_level, neg_per_pos=neg_per_pos
    )
    v0, va = _binormal_variances(params, kappa, fpr_range)
    n_pos = _solve_n_pos(_z_alpha(sig, alternative), ndtri(power_), v0, va, delta_)
    return _sized(kappa, n_pos, delta=delta_, power=power_, sig_level=sig)


def compare_power(
    frame: Frame,
    scores: Sequence[str],
    *,
    label: str = "label",
    by: str | Sequence[str] | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    sig_level: float = 0.05,
    power: float | None = None,
    neg_per_pos: float | None = None,
    alternative: Sidedness = "two-sided",
) -> Frame:
    """Power of the paired DeLong test of two scores, and the sample it would need.

    The effect is the observed difference of the two AUCs, the variances are DeLong's
    (of each AUC and of their difference), both per group: pROC's
    ``power.roc.test(roc1, roc2)`` with its default ``method="delong"``. Under the null
    hypothesis both curves are taken to be the first one (as pROC). Use it to ask
    whether a validation sample could have shown the difference it shows, or how many
    cases a new one needs.

    Parameters
    ----------
    scores
        The two score columns, ``[a, b]``; ``diff`` is ``auc_a - auc_b``.
    frame, label, by, count, pos_label, nulls, direction
        As in :func:`polars_roc.compare` (no weights: DeLong's variance counts units).
    power
        A target power in (0, 1): adds the sizes that reach it.
    neg_per_pos
        Negatives per positive of the planned sample (pROC's ``kappa``); default the
        group's observed ratio.
    sig_level, alternative
        As in :func:`auc_power`.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, model_a, model_b, auc_a, auc_b, diff, n_pos, n_neg, power]``, one row
        per group: ``power`` of the test at the group's sizes. With ``power=``, also
        ``n_pos_needed, n_neg_needed`` (exact, not rounded; infinite when ``diff`` is 0).
        Null where a class has fewer than two rows.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "a": [0.9, 0.8, 0.35, 0.6, 0.3, 0.1, 0.4, 0.2],
    ...     "b": [0.7, 0.4, 0.5, 0.9, 0.6, 0.2, 0.3, 0.8],
    ...     "label": [1, 1, 1, 1, 0, 0, 0, 0],
    ... })
    >>> pr.compare_power(df, ["a", "b"], power=0.8).select(
    ...     "diff", "power", "n_pos_needed", "n_neg_needed"
    ... )
    shape: (1, 4)
    ┌──────┬──────────┬──────────────┬──────────────┐
    │ diff ┆ power    ┆ n_pos_needed ┆ n_neg_needed │
    │ ---  ┆ ---      ┆ ---          ┆ ---          │
    │ f64  ┆ f64      ┆ f64          ┆ f64          │
    ╞══════╪══════════╪══════════════╪══════════════╡
    │ 0.25 ┆ 0.447656 ┆ 15.574183    ┆ 15.574183    │
    └──────┴──────────┴──────────────┴──────────────┘
    """
    sig = float(*_checked(alternative, sig_level=sig_level))
    if power is not None:
        power = float(_array("power", power))
    if neg_per_pos is not None:
        neg_per_pos = float(_array("neg_per_pos", neg_per_pos))
    # The other result columns are checked by the paired preparation.
    first, second = two_scores(scores)
    roles = Roles(first, label, by, None, count, pos_label, nulls, direction)
    refuse_clashes(roles.by, ("power", "n_pos_needed", "n_neg_needed"))
    prep = count_rows(frame, roles, reserved=COMPARE_COLUMNS, paired_score=second).prep
    by_cols = prep.by
    pos, neg = pl.col(POS).cast(pl.Float64), pl.col(NEG).cast(pl.Float64)
    m, n = pos.sum(), neg.sum()
    ok = (m > 1) & (n > 1)
    v10_a, v10_b, v01_a, v01_b = (pl.col(f"v{k}_{s}") for k in ("10", "01") for s in "ab")
    summary = [
        pl.when(ok).then(ordered_sum(pos * v10_a) / m).alias("auc_a"),
        pl.when(ok).then(ordered_sum(pos * v10_b) / m).alias("auc_b"),
        pl.when(ok).then(delong_variance(pos, neg, v10_a, v01_a)).alias("__var_a"),
        pl.when(ok).then(delong_variance(pos, neg, v10_b, v01_b)).alias("__var_b"),
        pl.when(ok).then(delong_variance(pos, neg, v10_a - v10_b, v01_a - v01_b)).alias("__var_d"),
    ]
    per_group = per_group_placements(prep, summary)
    n_pos = pl.col("n_pos").cast(pl.Float64)
    # pROC scales the variances to one positive: v = n_pos * var. Under the null both
    # curves are the first: var(a - a') = 2 var_a - 2 cov = var_d + var_a - var_b.
    v0 = (pl.col("__var_d") + pl.col("__var_a") - pl.col("__var_b")) * n_pos
    va = pl.col("__var_d") * n_pos
    z_alpha = float(_z_alpha(np.array(sig), alternative))
    diff = pl.col("diff")
    columns = [((diff.abs() * n_pos.sqrt() - z_alpha * v0.sqrt()) / va.sqrt()).alias("__z_beta")]
    needed_columns = ["n_pos_needed", "n_neg_needed"] if power is not None else []
    if power is not None:
        z_beta = float(ndtri(power))
        ratio = pl.col("n_neg") / n_pos if neg_per_pos is None else pl.lit(neg_per_pos)
        needed = (z_alpha * v0.sqrt() + z_beta * va.sqrt()) ** 2 / diff**2
        needed = pl.when(diff == 0).then(float("inf")).otherwise(needed)
        columns += [needed.alias("n_pos_needed"), (needed * ratio).alias("n_neg_needed")]
    result = (
        per_group.with_columns((pl.col("auc_a") - pl.col("auc_b")).alias("diff"))
        .with_columns(columns)
        .with_columns(map_numpy(ndtr, "__z_beta", name="power"))
        .select(*by_cols, "auc_a", "auc_b", "diff", "n_pos", "n_neg", "power", *needed_columns)
    )
    result = name_pair(result, by_cols, "model", pl.lit(scores[0]), pl.lit(scores[1]))
    return prep.finish(result, lambda done: group_totals(done, by_cols))
