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
    This is the library's one AUC formula: integer counts stay integers until the one
    division, and float weights are summed as a running sum in table order, as
    :func:`polars_roc.core.score_table.pair_counts` does, so every view that reports an AUC
    gives :func:`roc_auc`'s number to the last bit.
    """
    twice_u = (neg * (2 * tp - pos)).cum_sum().last()
    n_pairs = 2 * tp.last().cast(pl.Float64) * neg.cum_sum().last()
    return ratio(twice_u, n_pairs)


def auc_bound(pos: pl.Expr, neg: pl.Expr, mixed: pl.Expr) -> pl.Expr:
    """``auc_bound`` of a group's buckets (an aggregation): the most the binned AUC can
    be off, ``sum(pos * neg over mixed buckets) / (2 n_pos n_neg)``; null without both
    classes. Inside a bucket of several distinct scores (``mixed``) each pair counts as
    a tie (one half) whatever its true order; every other pair is counted exactly."""
    p, n = pos.cast(pl.Float64), neg.cast(pl.Float64)
    # Running sums read at the end: float sums in one order, the same bits every run.
    n_pairs = 2 * p.cum_sum().last() * n.cum_sum().last()
    in_mixed = pl.when(mixed).then(p * n).otherwise(0.0).cum_sum().last()
    return pl.when(n_pairs > 0).then(in_mixed / n_pairs).alias("auc_bound")
