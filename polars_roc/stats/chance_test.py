"""The test of one AUC against chance (H0: AUC = 0.5): the Mann-Whitney U test.

Read off the score table, one row per distinct score per group: twice U is
``sum(neg * (2 * tp - pos))`` (the AUC's own sum) and the tie correction is
``sum(t**3 - t)`` with ``t = pos + neg`` the rows sharing a score, since a tie group is
exactly a row of the table. The normal approximation with continuity correction is
scipy's ``mannwhitneyu(positives, negatives, method="asymptotic")``, term for term.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import polars as pl
from scipy.special import ndtr

from polars_roc.stats.alternative import Alternative
from polars_roc.stats.delong import one_row_per_group
from polars_roc.stats.distributions import map_numpy

__all__ = ["chance_test"]

_TWICE_U, _TIES = "__roc_twice_u", "__roc_tie_term"


def chance_test(table: pl.LazyFrame, by: list[str], alternative: Alternative) -> pl.LazyFrame:
    """``[*by, u_statistic, p_value]`` per group of an unweighted (count) score table:
    the positives' U (``auc * n_pos * n_neg``), null without both classes."""
    t = (pl.col("pos") + pl.col("neg")).cast(pl.Int128)
    twice_u = pl.col("neg") * (pl.lit(2, pl.Int128) * pl.col("tp") - pl.col("pos"))
    # Integer sums: exact, so the order of addition does not matter.
    sums = [twice_u.sum().alias(_TWICE_U), (t * t * t - t).sum().alias(_TIES)]
    groups = one_row_per_group(table, by, [*sums, pl.col("n_pos", "n_neg").first()])
    both = (pl.col("n_pos") > 0) & (pl.col("n_neg") > 0)
    test = partial(_mann_whitney_p, alternative=alternative)
    p_value = map_numpy(test, _TWICE_U, "n_pos", "n_neg", _TIES, name="p_value")
    return groups.select(
        *by,
        pl.when(both).then(pl.col(_TWICE_U).cast(pl.Float64) / 2).alias("u_statistic"),
        pl.when(both).then(p_value).alias("p_value"),
    )


def _mann_whitney_p(
    twice_u: np.ndarray,
    n1: np.ndarray,
    n2: np.ndarray,
    tie_term: np.ndarray,
    *,
    alternative: Alternative,
) -> np.ndarray:
    """scipy's asymptotic p-value (``_get_mwu_z``), from U of the first sample."""
    u1 = twice_u / 2
    u2 = n1 * n2 - u1
    if alternative == "greater":
        u, factor = u1, 1.0
    elif alternative == "less":
        u, factor = u2, 1.0
    else:
        u, factor = np.maximum(u1, u2), 2.0
    n = n1 + n2
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
        # The continuity correction: the survival function is read half a step lower.
        z = (u - n1 * n2 / 2 - 0.5) / s
    return np.clip(ndtr(-z) * factor, 0.0, 1.0)
