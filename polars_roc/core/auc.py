"""The library's one AUC formula over score-table columns.

A leaf module (it imports nothing of the library but ``ratio``), so that every module
computing an AUC (the views, DeLong, partial areas, folds, hull, multi-class) can use it
without importing the views: ``_auc`` dispatches to ``_inference``, which builds on
``_partial`` and ``_delong``, which need this formula.
"""

from __future__ import annotations

import polars as pl

from polars_roc.core.measures import ratio

__all__ = ["auc_from_counts"]


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
