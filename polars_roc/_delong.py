"""DeLong's variance of the AUC from placement values, computed on the score table.

Sun & Xu (2014) write DeLong's estimator with *placement values*: for a positive, the
fraction of negatives it outranks (ties count one half); for a negative, the fraction
of positives that outrank it. All rows sharing a score share their placement, so the
score table gives them directly, per distinct score:

- ``v10 = (n_neg - fp + neg / 2) / n_neg`` for the ``pos`` positives at the score,
- ``v01 = (tp - pos / 2) / n_pos`` for the ``neg`` negatives at the score,

(``fp``, ``tp`` count rows scoring ``>=`` the score). The AUC is the mean of either set
of placements, and ``Var(AUC) = S10 / n_pos + S01 / n_neg`` with ``S10``, ``S01`` their
sample variances (ddof = 1), summed over distinct scores weighted by the counts. So the
cost grows with the number of distinct scores, and every count is a Float64 sum of
Int64 counts: nothing overflows at 10^9 rows. This is pROC's ``ci.auc(method="delong")``
and ``var(method="delong")``.
"""

from __future__ import annotations

import polars as pl

from polars_roc._auc import auc_from_counts

__all__ = ["v10", "v01", "delong_summary", "sum_of_squares", "clip_unit"]


def v10() -> pl.Expr:
    """Placement of the positives at each score-table row."""
    n_neg = pl.col("n_neg").cast(pl.Float64)
    return (n_neg - pl.col("fp").cast(pl.Float64) + pl.col("neg").cast(pl.Float64) / 2) / n_neg


def v01() -> pl.Expr:
    """Placement of the negatives at each score-table row."""
    return (pl.col("tp").cast(pl.Float64) - pl.col("pos").cast(pl.Float64) / 2) / pl.col(
        "n_pos"
    ).cast(pl.Float64)


def delong_summary() -> tuple[pl.Expr, pl.Expr]:
    """``(auc, variance)`` of one group, as aggregations over its score-table rows.

    The variance is null when a class has fewer than two members (pROC gives NA).
    """
    pos, neg = pl.col("pos").cast(pl.Float64), pl.col("neg").cast(pl.Float64)
    m, n = pos.sum(), neg.sum()
    auc = auc_from_counts(pl.col("pos"), pl.col("neg"), pl.col("tp"))
    # Sums of squares about the mean as raw moments: plain sums keep polars' fast
    # grouped aggregation (centering on the group's AUC would broadcast it per row).
    # Placements lie in [0, 1], so the cancellation costs ~1e-15 relative at most.
    s10 = (sum_of_squares(pos, v10()) / (m - 1)).clip(lower_bound=0.0)
    s01 = (sum_of_squares(neg, v01()) / (n - 1)).clip(lower_bound=0.0)
    variance = pl.when((m > 1) & (n > 1)).then(s10 / m + s01 / n)
    return auc, variance


def sum_of_squares(count: pl.Expr, value: pl.Expr) -> pl.Expr:
    """``sum(count * (value - mean)^2)`` with ``mean`` the count-weighted mean."""
    total = count.sum()
    return (count * value * value).sum() - (count * value).sum() ** 2 / total


def clip_unit(value: pl.Expr) -> pl.Expr:
    """Clip to ``[0, 1]`` (pROC clips DeLong intervals of the AUC there)."""
    return value.clip(0.0, 1.0)
