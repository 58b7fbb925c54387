"""The point of a curve at a threshold: one as-of lookup for every view that needs it.

Score ``>= t`` is predicted positive, so the counts (or the curve point) at threshold
``t`` are those of the row with the smallest score ``>= t`` within its group: a
backward as-of join on the negated score. Confusion matrices at given thresholds, the
threshold-averaged curve and the operating points drawn on a chart all read points
this way, so they agree with each other at ties and between scores.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_roc.core.score_table import group_end, group_start
from polars_roc.core.validate import Prepared

__all__ = ["GROUP", "at_thresholds", "counts_at"]

# The position of a row's group among the groups of ``points`` (0, 1, ...).
GROUP = "__roc_group"
_KEY = "__roc_at_key"


def at_thresholds(
    points: pl.LazyFrame,
    wanted: pl.LazyFrame,
    *,
    by: Sequence[str],
    values: Sequence[str],
    shared: Sequence[str] = (),
    carry: Sequence[str] = (),
    at: pl.Expr | None = None,
    score: pl.Expr | None = None,
) -> pl.LazyFrame:
    """Each wanted threshold of each group, with ``values`` of the point at it.

    Parameters
    ----------
    points
        Rows grouped by ``by`` (each group's rows together) in descending score order
        within a group: a score table or a curve.
    wanted
        The thresholds, in a column read by ``at``; with the group columns ``shared``
        (a part of ``by``) it holds thresholds for the groups it names, otherwise the
        same thresholds for every group.
    by
        The group columns of ``points``. Groups are matched by their position, so a
        null key is a group like any other.
    values
        Columns of ``points`` to read at each threshold: null where no score of the
        group reaches the threshold.
    shared
        Group columns of ``wanted`` (matched null-safely).
    carry
        Columns of ``points`` constant within a group (totals), added to every row.
    at, score
        The threshold of a wanted row and the score of a point (both ``threshold``
        by default), compared as given.

    Returns
    -------
    pl.LazyFrame
        ``[*by, GROUP, *carry, *wanted's other columns, *values]``, one row per group
        and wanted row, in no particular order (sort by ``GROUP`` and the wanted order).
    """
    at = pl.col("threshold") if at is None else at
    score = pl.col("threshold") if score is None else score
    numbered = points.with_columns(group_start(by).cum_sum().alias(GROUP))
    groups = numbered.filter(group_end(by)).select(*by, GROUP, *carry)
    if shared:
        grid = groups.join(wanted, on=list(shared), how="inner", nulls_equal=True)
    else:
        grid = groups.join(wanted, how="cross")
    # Scores descend within a group; their negation ascends, as the as-of join needs.
    line = numbered.select(GROUP, (-score).alias(_KEY), *values)
    return (
        grid.with_columns((-at).alias(_KEY))
        .sort(_KEY)
        .join_asof(line, on=_KEY, by=GROUP, strategy="backward", check_sortedness=False)
        .drop(_KEY)
    )


def counts_at(table: pl.LazyFrame, prep: Prepared, thresholds: list[float]) -> pl.LazyFrame:
    """``[*by, threshold, tp, fp, fn, tn]`` per group at each threshold (given order).

    ``tp``/``fp`` at threshold ``t`` are those of the score-table row with the smallest
    score ``>= t`` (an as-of join per group), or zero when no score reaches ``t``.
    Thresholds are compared in the score column's own dtype
    (:meth:`Prepared.threshold_keys`) and shown as given once :meth:`Prepared.finish`
    has turned them back into the user's units.
    """
    by, key, order = prep.by, "__roc_key", "__roc_order"
    wanted = pl.LazyFrame(
        {
            "threshold": prep.internal(thresholds),
            order: range(len(thresholds)),
            key: prep.threshold_keys(thresholds),
        },
        schema={"threshold": pl.Float64, order: pl.Int64, key: pl.Float64},
    )
    zero = pl.lit(0, dtype=table.collect_schema()["tp"])
    found = at_thresholds(
        table, wanted, by=by, values=("tp", "fp"), carry=("n_pos", "n_neg"), at=pl.col(key)
    )
    return found.sort(GROUP, order).select(
        *by,
        "threshold",
        pl.col("tp").fill_null(zero),
        pl.col("fp").fill_null(zero),
        (pl.col("n_pos") - pl.col("tp").fill_null(zero)).alias("fn"),
        (pl.col("n_neg") - pl.col("fp").fill_null(zero)).alias("tn"),
    )
