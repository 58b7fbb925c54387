"""Confusion-matrix measures as polars expressions over count columns.

Every measure is a ratio of counts; a zero denominator gives null (never NaN, never an
exception). Names follow docs/measures.md, which cites the seeds for each formula.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

import polars as pl

from polars_roc.core.arguments import check_rates

__all__ = ["KAPPA_LEVELS", "MEASURE_COLUMNS", "check_beta", "measures", "ratio"]

# Cohen's kappa agreement scale (Landis & Koch, as tabled in seed 004); each level
# covers (previous bound, bound], and kappa < 0 is "poor".
KAPPA_LEVELS: tuple[tuple[float, str], ...] = (
    (0.20, "slight"),
    (0.40, "fair"),
    (0.60, "moderate"),
    (0.80, "substantial"),
    (1.00, "almost perfect"),
)


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator`` as Float64, null where the denominator is zero."""
    return pl.when(denominator != 0).then(numerator.cast(pl.Float64) / denominator.cast(pl.Float64))


def unit_scale(total: pl.Expr) -> pl.Expr:
    """A power of two near ``1 / total`` (1 where ``total`` is 0): multiplying counts by
    it is exact, so products of the scaled counts round as the counts' own would, but
    products of large or tiny weights can no longer over- or underflow."""
    # Typed literals: Polars 1.x panics aggregating an untyped float over no groups
    # ("dtype is unknown").
    one, two = pl.lit(1.0, pl.Float64), pl.lit(2.0, pl.Float64)
    return pl.when(total > 0).then(two.pow(-total.log(2).floor())).otherwise(one)


def check_beta(beta: float) -> float:
    """``beta`` as a float, refused unless it is a non-negative number (``inf`` allowed)."""
    if isinstance(beta, bool) or not isinstance(beta, Real):
        msg = f"`beta` must be a non-negative number, got {beta!r}"
        raise TypeError(msg)
    if math.isnan(beta) or beta < 0:
        msg = f"`beta` must be a non-negative number (0 gives precision, inf recall), got {beta!r}"
        raise ValueError(msg)
    return float(beta)


def _f_beta(beta: float, tp: pl.Expr, fp: pl.Expr, fn: pl.Expr, tpr: pl.Expr) -> pl.Expr:
    # beta = inf: (1 + b2) / b2 overflows to inf/inf = NaN; the limit is recall, as
    # scikit-learn's fbeta_score(beta=inf).
    if math.isinf(beta):
        return tpr
    b2 = beta**2
    return ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)


def _kappa_level(kappa: pl.Expr) -> pl.Expr:
    level: Any = pl.when(kappa < 0).then(pl.lit("poor"))
    for bound, name in KAPPA_LEVELS:
        level = level.when(kappa <= bound).then(pl.lit(name))
    return level.otherwise(pl.lit(None, dtype=pl.String))


def measures(beta: float | None = None, prevalence: float | None = None) -> list[pl.Expr]:
    """Expressions for every measure, reading columns ``tp``, ``fp``, ``fn``, ``tn``.

    The result columns are :data:`MEASURE_COLUMNS`, plus ``f_beta`` when ``beta`` is
    given. With ``prevalence`` (the population's share of positives, when the sample's
    is not), the measures that depend on it are given at that prevalence by Bayes' rule
    from the sample's rates (see :func:`_at_prevalence`).
    """
    # Margins keep the count dtype (Int64, or Float64 when weighted); the arithmetic
    # below is Float64 so that products of large counts cannot overflow.
    tp_, fp_, fn_, tn_ = (pl.col(c) for c in ("tp", "fp", "fn", "tn"))
    margins = {"pp": tp_ + fp_, "pn": fn_ + tn_, "pos": tp_ + fn_, "neg": fp_ + tn_}
    margins["n"] = margins["pos"] + margins["neg"]
    tp, fp, fn, tn = (c.cast(pl.Float64) for c in (tp_, fp_, fn_, tn_))
    pp, pn, pos, neg, n = (m.cast(pl.Float64) for m in margins.values())
    tpr, fpr, tnr, fnr = ratio(tp, pos), ratio(fp, neg), ratio(tn, neg), ratio(fn, pos)
    observed = ratio(tp + tn, n)
    # Products of counts scaled by a power of two near 1 / n (see unit_scale).
    s_tp, s_fp, s_fn, s_tn, s_pp, s_pn, s_pos, s_neg = (
        c * unit_scale(n) for c in (tp, fp, fn, tn, pp, pn, pos, neg)
    )
    # Cohen's kappa (po - pe) / (1 - pe) with pe = (pp * pos + pn * neg) / n^2, in the
    # equivalent form over counts: exact zero when the prediction ignores the truth.
    kappa = ratio(2 * (s_tp * s_tn - s_fn * s_fp), s_pp * s_neg + s_pos * s_pn)
    lr_pos, lr_neg = ratio(tpr, fpr), ratio(fnr, tnr)
    mcc_den = (s_pp * s_pos * s_neg * s_pn).sqrt()
    columns = [
        *(margin.alias(name) for name, margin in margins.items()),
        tpr.alias("tpr"),
        fpr.alias("fpr"),
        tnr.alias("tnr"),
        fnr.alias("fnr"),
        ratio(tp, pp).alias("ppv"),
        ratio(tn, pn).alias("npv"),
        ratio(fp, pp).alias("fdr"),
        ratio(fn, pn).alias("for"),
        observed.alias("accuracy"),
        ratio(fp + fn, n).alias("error_rate"),
        ((tpr + tnr) / 2).alias("balanced_accuracy"),
        ratio(2 * tp, 2 * tp + fp + fn).alias("f1"),
        kappa.alias("kappa"),
        _kappa_level(kappa).alias("kappa_level"),
        ratio(s_tp * s_tn - s_fp * s_fn, mcc_den).alias("mcc"),
        (tpr - fpr).alias("youden_j"),
        ratio(pos, n).alias("prevalence"),
        lr_pos.alias("lr_pos"),
        lr_neg.alias("lr_neg"),
        # tp*tn / (fp*fn) as documented: 0 when tp or tn is 0, null only when fp*fn = 0
        # (lr_pos / lr_neg was null at tn = 0 but 0 at tp = 0 for the same zero product).
        ratio(s_tp * s_tn, s_fp * s_fn).alias("dor"),
        ratio(tp, n).alias("p_tp"),
        ratio(fp, n).alias("p_fp"),
        ratio(fn, n).alias("p_fn"),
        ratio(tn, n).alias("p_tn"),
    ]
    if prevalence is not None:
        hint = " (the population's share of positives, e.g. 0.02)"
        (share,) = check_rates("prevalence", prevalence, closed="neither", hint=hint)
        columns = _at_prevalence(columns, tpr, fpr, tnr, fnr, share)
    if beta is not None:
        f_beta = _f_beta(check_beta(beta), tp, fp, fn, tpr)
        columns.insert(MEASURE_COLUMNS.index("f1") + 1, f_beta.alias("f_beta"))
    return columns


# The columns of measures(), in order.
MEASURE_COLUMNS = tuple(column.meta.output_name() for column in measures())


def _at_prevalence(
    columns: list[pl.Expr],
    tpr: pl.Expr,
    fpr: pl.Expr,
    tnr: pl.Expr,
    fnr: pl.Expr,
    prevalence: float,
) -> list[pl.Expr]:
    """Replace the measures that depend on the share of positives (the predictive values
    and accuracy, seed 003) by their values at ``prevalence`` from the rates, by Bayes'
    rule; counts, kappa, mcc, f1 and the joint probabilities stay the sample's."""
    p, q = pl.lit(prevalence), pl.lit(1.0 - prevalence)
    called_pos = tpr * p + fpr * q
    called_neg = tnr * q + fnr * p
    adjusted = {
        "ppv": ratio(tpr * p, called_pos),
        "npv": ratio(tnr * q, called_neg),
        "fdr": ratio(fpr * q, called_pos),
        "for": ratio(fnr * p, called_neg),
        "accuracy": tpr * p + tnr * q,
        "error_rate": fnr * p + fpr * q,
        "prevalence": p.cast(pl.Float64),
    }
    return [
        adjusted[c.meta.output_name()].alias(c.meta.output_name())
        if c.meta.output_name() in adjusted
        else c
        for c in columns
    ]
