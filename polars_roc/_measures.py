"""Confusion-matrix measures as polars expressions over count columns.

Every measure is a ratio of counts; a zero denominator gives null (never NaN, never an
exception). Names follow docs/measures.md, which cites the seeds for each formula.
"""

from __future__ import annotations

import math

import polars as pl

from polars_roc.exceptions import RocOptionError

__all__ = ["KAPPA_LEVELS", "MEASURE_COLUMNS", "measures", "ratio"]

# Cohen's kappa agreement scale (Landis & Koch, as tabled in seed 004); each level
# covers (previous bound, bound], and kappa < 0 is "poor".
KAPPA_LEVELS: tuple[tuple[float, str], ...] = (
    (0.20, "slight"),
    (0.40, "fair"),
    (0.60, "moderate"),
    (0.80, "substantial"),
    (1.00, "almost perfect"),
)

MEASURE_COLUMNS = (
    "pp", "pn", "pos", "neg", "n",
    "tpr", "fpr", "tnr", "fnr", "ppv", "npv", "fdr", "for",
    "accuracy", "error_rate", "balanced_accuracy", "f1",
    "kappa", "kappa_level", "mcc", "youden_j", "prevalence",
    "lr_pos", "lr_neg", "dor",
    "p_tp", "p_fp", "p_fn", "p_tn",
)  # fmt: skip


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator`` as Float64, null where the denominator is zero."""
    return pl.when(denominator != 0).then(
        numerator.cast(pl.Float64) / denominator.cast(pl.Float64)
    )


def _kappa_level(kappa: pl.Expr) -> pl.Expr:
    level = pl.when(kappa < 0).then(pl.lit("poor"))
    for bound, name in KAPPA_LEVELS:
        level = level.when(kappa <= bound).then(pl.lit(name))
    return level.otherwise(pl.lit(None, dtype=pl.String))


def measures(beta: float | None = None) -> list[pl.Expr]:
    """Expressions for every measure, reading columns ``tp``, ``fp``, ``fn``, ``tn``.

    The result columns are :data:`MEASURE_COLUMNS`, plus ``f_beta`` when ``beta`` is
    given.
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
    # Cohen's kappa (po - pe) / (1 - pe) with pe = (pp * pos + pn * neg) / n^2, in the
    # equivalent form over counts: exact zero when the prediction ignores the truth.
    kappa = ratio(2 * (tp * tn - fn * fp), pp * neg + pos * pn)
    lr_pos, lr_neg = ratio(tpr, fpr), ratio(fnr, tnr)
    mcc_den = (pp * pos * neg * pn).sqrt()
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
        ratio(tp * tn - fp * fn, mcc_den).alias("mcc"),
        (tpr - fpr).alias("youden_j"),
        ratio(pos, n).alias("prevalence"),
        lr_pos.alias("lr_pos"),
        lr_neg.alias("lr_neg"),
        # As documented, tp * tn / (fp * fn): zero when tp or tn is, null only when
        # fp * fn is (lr_pos / lr_neg would be null at tn = 0 but zero at tp = 0).
        ratio(tp * tn, fp * fn).alias("dor"),
        ratio(tp, n).alias("p_tp"),
        ratio(fp, n).alias("p_fp"),
        ratio(fn, n).alias("p_fn"),
        ratio(tn, n).alias("p_tn"),
    ]
    if beta is not None:
        check_beta(beta)
        if math.isinf(beta):  # the limit: recall alone (scikit-learn's fbeta_score too)
            f_beta = tpr
        else:
            b2 = float(beta) ** 2
            f_beta = ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)
        columns.insert(MEASURE_COLUMNS.index("f1") + 1, f_beta.alias("f_beta"))
    return columns


def check_beta(beta: object) -> None:
    """Refuse a ``beta`` that is not a number >= 0 (``inf`` is allowed: recall)."""
    if isinstance(beta, bool) or not isinstance(beta, (int, float)):
        msg = f"`beta` must be a number >= 0 (or inf), got {beta!r}"
        raise TypeError(msg)
    if math.isnan(beta) or beta < 0:
        msg = (
            f"`beta` must be >= 0 (0 gives precision, inf recall), got {beta!r}; "
            "the F-measure weights recall beta times as much as precision"
        )
        raise RocOptionError(msg)
