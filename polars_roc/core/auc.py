"""The library's one AUC formula over score-table columns.

A leaf module (it imports nothing of the library but ``ratio``), so that every module
computing an AUC (the views, DeLong, partial areas, folds, hull, multi-class) can use it
without importing the views: ``_auc`` dispatches to ``_inference``, which builds on
``_partial`` and ``_delong``, which need this formula.
"""

from __future__ import annotations

import polars as pl

from polars_roc.core.measures import ratio

__all__ = ["auc_bound", "auc_from_counts"]


def auc_from_counts(pos: pl.Expr, neg: pl.Expr, tp: pl.Expr) -> pl.Expr:
    """AUC of one group from its score-table columns (an aggregation, rows in table order).

    Each negative at a score is beaten by every positive above it and ties with the
    positives at its score, which count one half (Mann-Whitney): twice the U statistic
    is ``sum(neg * (2 * tp - pos))``, over ``2 * n_pos * n_neg`` pairs counted twice.
    This is the library's one AUC formula, summed as a running sum in table order (a
    grouped float sum adds in a thread-dependent order), so every view that reports an
    AUC gives :func:`roc_auc`'s number to the last bit. Integer counts: U is summed in
    Int128, exact for any class totals that fit Int64 (``2 * n_pos * n_neg < 2**127``),
    then one division. Float weights: the same sum over shares and rates,
    ``sum(neg / n_neg * (tp / n_pos - pos / n_pos / 2))``, so that any finite weights
    whose sums are finite give the AUC (no product of two weights is formed).
    """

    def area(tp: pl.Expr, dtype: pl.DataType) -> pl.Expr:
        n_pos, n_neg = tp.last(), neg.cum_sum().last()
        if dtype.is_float():
            # Shares of the class totals: no product of two weights can over- or
            # underflow; dividing by their sum keeps a perfect score's AUC exactly 1.
            share, rate = neg / n_neg, tp / n_pos - pos / n_pos / 2
            area = (share * rate).cum_sum().last() / share.cum_sum().last()
            return pl.when((n_pos > 0) & (n_neg > 0)).then(area)
        twice_u = (neg * (pl.lit(2, pl.Int128) * tp - pos)).cum_sum().last()
        return ratio(twice_u, 2 * n_pos.cast(pl.Float64) * n_neg)

    return tp.pipe_with_dtype(area)


def auc_bound(pos: pl.Expr, neg: pl.Expr, mixed: pl.Expr) -> pl.Expr:
    """``auc_bound`` of a group's buckets (an aggregation): the most the binned AUC can
    be off, ``sum(pos * neg over mixed buckets) / (2 n_pos n_neg)``; null without both
    classes. Inside a bucket of several distinct scores (``mixed``) each pair counts as
    a tie (one half) whatever its true order; every other pair is counted exactly.
    Summed over rates (``pos / n_pos * neg / n_neg``): no product of counts or weights
    can overflow or underflow."""
    p, n = pos.cast(pl.Float64), neg.cast(pl.Float64)
    shares = (p / p.sum() * (n / n.sum())).filter(mixed).sum() / 2
    return pl.when((p.sum() > 0) & (n.sum() > 0)).then(shares).alias("auc_bound")
