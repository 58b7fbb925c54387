"""The library's one AUC formula over score-table columns.

A leaf module (it imports nothing of the library but ``ratio``), so that every module
computing an AUC (the views, DeLong, partial areas, folds, hull, multi-class) can use it
without importing the views: ``_auc`` dispatches to ``_inference``, which builds on
``_partial`` and ``_delong``, which need this formula.
"""

from __future__ import annotations

import polars as pl
import polars.selectors as cs

from polars_roc.core.compat import POLARS_2
from polars_roc.core.measures import ratio, unit_scale

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
    then one division. Float weights: each class is first scaled by a power of two near
    its total (exact), so that any finite weights whose sums are finite give the AUC.
    """

    def area(tp: pl.Expr, dtype: pl.DataType) -> pl.Expr:
        p, n, t = pos, neg, tp
        if dtype.is_float():
            # Each class scaled by a power of two near its total: exact, so the same
            # bits as unscaled weights, which products could over- or underflow.
            p_scale, n_scale = unit_scale(tp.last()), unit_scale(neg.cum_sum().last())
            p, n, t = pos * p_scale, neg * n_scale, tp * p_scale
        two = pl.lit(2, pl.Float64 if dtype.is_float() else pl.Int128)
        twice_u = (n * (two * t - p)).cum_sum().last()
        return ratio(twice_u, 2 * t.last().cast(pl.Float64) * n.cum_sum().last())

    if POLARS_2:
        return tp.pipe_with_dtype(area)
    # Polars 1.x: both formulas in the plan, the counts' dtype choosing between them.
    weighted = pl.dtype_of(tp).matches(cs.float())
    return pl.when(weighted).then(area(tp, pl.Float64())).otherwise(area(tp, pl.Int64()))


def auc_bound(pos: pl.Expr, neg: pl.Expr, mixed: pl.Expr) -> pl.Expr:
    """``auc_bound`` of a group's buckets (an aggregation): the most the binned AUC can
    be off, ``sum(pos * neg over mixed buckets) / (2 n_pos n_neg)``; null without both
    classes. Inside a bucket of several distinct scores (``mixed``) each pair counts as
    a tie (one half) whatever its true order; every other pair is counted exactly.
    Each class is scaled by a power of two near its total, as in :func:`auc_from_counts`."""

    def total(values: pl.Expr) -> pl.Expr:
        # Summed from the group's list, in row order: the same bits every run (a plain
        # grouped sum adds thread-dependent partial sums; cum_sum().last() is 2x slower).
        return values.implode().list.sum()

    p, n = pos.cast(pl.Float64), neg.cast(pl.Float64)
    p, n = p * unit_scale(total(p)), n * unit_scale(total(n))
    n_pairs = 2 * total(p) * total(n)
    in_mixed = total(pl.when(mixed).then(p * n).otherwise(0.0))
    return pl.when(n_pairs > 0).then(in_mixed / n_pairs).alias("auc_bound")
