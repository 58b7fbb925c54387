"""DeLong's variance of the AUC from placement values, read off the score table (Sun & Xu,
2014; pROC's ``var(method="delong")``; docs/inference.md, "How it is computed").

Rows sharing a score share their placement, so the variance is a count-weighted sum
over distinct scores, in Float64 sums of Int64 counts: nothing overflows at 10^9 rows.
"""

from __future__ import annotations

import polars as pl

from polars_roc.core.auc import auc_from_counts

__all__ = ["delong_per_group", "one_row_per_group"]


def delong_per_group(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, auc, auc_var, n_pos, n_neg]``: one row per group of a score table;
    ``auc_var`` null when a class has fewer than two members (pROC gives NA).

    With ``below = fp - neg / 2`` and ``above = tp - pos / 2``, ``v10 = 1 - below / n_neg``
    and ``v01 = above / n_pos``: the placements' sums of squares need six plain grouped
    sums. Placements lie in [0, 1], so the expansion costs a few digits at most.
    """
    pos, neg = pl.col("pos").cast(pl.Float64), pl.col("neg").cast(pl.Float64)
    below = pl.col("fp").cast(pl.Float64) - neg / 2
    above = pl.col("tp").cast(pl.Float64) - pos / 2
    sums = [
        pos.sum().alias("__m"),
        neg.sum().alias("__n"),
        # The library's one AUC formula, so the AUC is the plain roc_auc's number.
        auc_from_counts(pl.col("pos"), pl.col("neg"), pl.col("tp")).alias("auc"),
        (pos * below).sum().alias("__pb"),
        (pos * below * below).sum().alias("__pb2"),
        (neg * above * above).sum().alias("__na2"),
        pl.col("n_pos", "n_neg").first(),
    ]
    per_group = one_row_per_group(table, by, sums)
    m, n, auc = pl.col("__m"), pl.col("__n"), pl.col("auc")
    pos_squares = m - 2 * pl.col("__pb") / n + pl.col("__pb2") / (n * n)  # sum pos * v10^2
    neg_squares = pl.col("__na2") / (m * m)  # sum neg * v01^2
    s10 = ((pos_squares - m * auc * auc) / (m - 1)).clip(lower_bound=0.0)
    s01 = ((neg_squares - n * auc * auc) / (n - 1)).clip(lower_bound=0.0)
    return per_group.with_columns(
        pl.when((m > 1) & (n > 1)).then(s10 / m + s01 / n).alias("auc_var")
    ).select(*by, "auc", "auc_var", "n_pos", "n_neg")


def one_row_per_group(table: pl.LazyFrame, by: list[str], summary: list[pl.Expr]) -> pl.LazyFrame:
    """``summary`` per group of a score table (groups in table order, i.e. sorted); no row
    for an empty ungrouped table."""
    if by:
        return table.group_by(by, maintain_order=True).agg(summary)
    return table.select(summary).filter(pl.col("n_pos").is_not_null())
