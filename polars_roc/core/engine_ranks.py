"""The exact AUC of an engine's frame without a cell per distinct score.

The engine cuts each group's scores into equal-width buckets and returns one row per
(group, bucket): pairs within a bucket come from average ranks in windows partitioned
by (group, bucket), pairs across buckets from the bucket histogram; DeLong's placements
are midrank differences in the same windows. Exact for any bucketing.

Its own module, apart from the counting of :mod:`polars_roc.core.engine_counts`, because it
runs the validator's checks on the engine and so imports ``validate``, which imports
the counting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from polars_roc.core.buckets import BUCKET, IS_POS, SCORE_V, engine_rows, with_buckets
from polars_roc.core.validate import warn_single_class

__all__ = ["AUC_BUCKETS", "auc_in_buckets"]

# Equal-width buckets of the score per group for the exact AUC of engine frames: the
# engine returns at most this many rows per group and class.
AUC_BUCKETS = 4096

_BUCKET, _POS, _RANK, _D = BUCKET, IS_POS, "__roc_rank", "__roc_d"


def auc_in_buckets(
    frame: object,
    *,
    score: str,
    label: str,
    by: Sequence[str],
    pos_label: Any,
    nulls: Literal["raise", "drop"],
    direction: Literal["higher", "lower"],
    buckets: int = AUC_BUCKETS,
    delong: bool = False,
    reserved: Sequence[str] = ("auc",),
) -> pl.DataFrame:
    """The exact AUC ``[*by, auc, n_pos, n_neg]`` of a non-Polars frame, in its engine,
    without bringing back a cell per distinct score.

    The engine cuts each group's finite scores into ``buckets`` equal-width buckets
    between the group's lowest and highest score (``-inf`` and ``+inf`` in buckets of
    their own). Bucketing is monotone (each floating-point step rounds monotonically),
    so every positive-negative pair in different buckets is ordered by the buckets;
    pairs within a bucket come from the average rank of the score in a window
    partitioned by (group, bucket): the positives' rank sum minus ``p (p + 1) / 2`` is
    the bucket's Mann-Whitney U (ties count one half). Only one row per (group, bucket)
    comes back; Polars adds the pairs across buckets. Checks as in ``prepare``, run as
    one aggregation in the engine, so messages count rows.

    ``delong=True`` adds ``auc_var``, DeLong's variance (null when a class has fewer
    than two members), as ``[*by, auc, auc_var, n_pos, n_neg]``. A row's placement is
    its own bucket's share plus the other class in the buckets beyond: within the bucket,
    ``d = rank among all - rank among its class`` (midranks) counts the other class
    below it, ties one half. The engine sums ``d`` and ``d^2`` per (group, bucket,
    class); the placements' sums of squares follow in Polars.
    """
    import narwhals as nw

    engine = engine_rows(
        frame,
        score=score,
        label=label,
        by=by,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        reserved=reserved,
    )
    by, group, schema = engine.by, engine.group, engine.schema
    # Ungrouped, the buckets span the scores' range found with the checks, when finite
    # (the result is exact whatever the bucketing): no windows over the whole frame.
    span = engine.score_range
    finite = span is not None and all(abs(x) < float("inf") for x in span)
    rows = with_buckets(engine.rows, group, buckets, span=span if finite and not by else None)
    rows = _ranks(rows, [*group, _BUCKET], delong=delong)
    pos = nw.col(_POS).cast(nw.Int64)
    sums = [
        pos.sum().alias("pos"),
        (1 - pos).sum().alias("neg"),
        nw.when(nw.col(_POS)).then(nw.col(_RANK)).otherwise(0.0).sum().alias("rank_pos"),
    ]
    if delong:
        d = nw.col(_D)
        for name, flag in (("pos", nw.col(_POS)), ("neg", ~nw.col(_POS))):
            sums.append(nw.when(flag).then(d).otherwise(0.0).sum().alias(f"d_{name}"))
            sums.append(nw.when(flag).then(d * d).otherwise(0.0).sum().alias(f"d2_{name}"))
    summary = (
        rows.group_by(*group, _BUCKET, drop_null_keys=False)
        .agg(*sums)
        .collect(backend="polars")
        .to_native()
    )
    p = pl.col("pos").cast(pl.Float64)
    # Twice U, to keep the halves of ties whole: within the bucket, plus every
    # negative of a lower bucket for each positive.
    below = pl.col("neg").cum_sum() - pl.col("neg")
    twice_u = 2 * (pl.col("rank_pos") - p * (p + 1) / 2) + 2 * p * below.over(group)
    aggregations = [
        pl.col("__roc_twice_u").sum(),
        pl.col("pos").sum().alias("n_pos"),
        pl.col("neg").sum().alias("n_neg"),
    ]
    ordered = summary.sort([*group, _BUCKET], nulls_last=False).with_columns(
        twice_u.alias("__roc_twice_u")
    )
    if delong:
        # x: negatives below a positive (ties halved) = lower buckets' + d; y: positives
        # above a negative = higher buckets' + its bucket's positives - d.
        # In the aggregation per group below, so no window (Polars 1.x refuses one there).
        n = pl.col("neg").cast(pl.Float64)
        lo = below.cast(pl.Float64)
        hi = (pl.col("pos").sum() - pl.col("pos").cum_sum()).cast(pl.Float64)
        c = hi + p
        aggregations += [
            (p * lo * lo + 2 * lo * pl.col("d_pos") + pl.col("d2_pos")).sum().alias("__x2"),
            (n * c * c - 2 * c * pl.col("d_neg") + pl.col("d2_neg")).sum().alias("__y2"),
        ]
    per_group = ordered.group_by(group, maintain_order=True).agg(aggregations)
    m, n = pl.col("n_pos").cast(pl.Float64), pl.col("n_neg").cast(pl.Float64)
    pairs = 2 * m * n
    auc = pl.when(pairs > 0).then(pl.col("__roc_twice_u") / pairs)
    variance = []
    if delong:
        # Sample variances (ddof = 1) of the placements v10 = x / n and v01 = y / m,
        # whose mean is the AUC; as in polars_roc.stats.delong.
        s10 = ((pl.col("__x2") / (n * n) - m * auc * auc) / (m - 1)).clip(lower_bound=0.0)
        s01 = ((pl.col("__y2") / (m * m) - n * auc * auc) / (n - 1)).clip(lower_bound=0.0)
        variance = [pl.when((m > 1) & (n > 1)).then(s10 / m + s01 / n).alias("auc_var")]
    result = per_group.select(
        *by,
        auc.alias("auc"),
        *variance,
        pl.col("n_pos").cast(pl.Int64),
        pl.col("n_neg").cast(pl.Int64),
    )
    if by:
        result = result.cast({col: schema[col] for col in by}).sort(by, nulls_last=False)
    warn_single_class(result, by)
    return result


def _ranks(rows: Any, partition: list[str], *, delong: bool) -> Any:
    """``rows`` (narwhals, lazy) with ``__roc_rank``, the average rank of ``__roc_v``
    within ``partition``, and with ``delong``, ``__roc_d``: the rows of the other class
    below the row's score in the partition, ties one half (its rank among all minus its
    rank among its class).

    narwhals writes an average rank as ``rank()`` plus a count in a second window
    partitioned by the score too, which the engine sorts again. DuckDB counts the peers
    in a frame of the same window instead (twice as fast), and ranks within a class in
    one more window (the running sums below, in one window, ran slower in one run). Spark computes
    both in one window, one sort where narwhals' form sorted four times. Other engines
    keep narwhals' ``rank("average")``."""
    import narwhals as nw

    native = rows.to_native()
    if type(native).__module__.startswith("pyspark.sql"):
        return nw.from_native(_spark_ranks(native, partition, delong=delong))
    duckdb = type(native).__name__ == "DuckDBPyRelation"

    def rank(rows: Any, partition: list[str], name: str) -> Any:
        if duckdb:
            return nw.from_native(_duckdb_rank(rows.to_native(), partition, name))
        return rows.with_columns(nw.col(SCORE_V).rank("average").over(*partition).alias(name))

    rows = rank(rows, partition, _RANK)
    if not delong:
        return rows
    rows = rank(rows, [*partition, _POS], "__roc_own")
    return rows.with_columns((nw.col(_RANK) - nw.col("__roc_own")).alias(_D))


def _duckdb_rank(relation: Any, partition: list[str], name: str) -> Any:
    """The average rank in one window: ``rank()`` plus half the peers beyond the first."""

    def quoted(column: str) -> str:
        return '"' + column.replace('"', '""') + '"'

    view = f"__roc_rows_for{name}"  # one view name per step of the query
    sql = (
        f"SELECT *, rank() OVER w + (count(*) OVER (w RANGE BETWEEN CURRENT ROW AND CURRENT "
        f"ROW) - 1) / 2.0 AS {quoted(name)} FROM {view} WINDOW w AS (PARTITION BY "
        f"{', '.join(map(quoted, partition))} ORDER BY {quoted(SCORE_V)})"
    )
    return relation.query(view, sql)


def _spark_ranks(frame: Any, partition: list[str], *, delong: bool) -> Any:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    def col(name: str) -> Any:
        return F.col("`" + name.replace("`", "``") + "`")

    w = Window.partitionBy(*map(col, partition)).orderBy(col(SCORE_V))
    peers = w.rangeBetween(Window.currentRow, Window.currentRow)
    one = F.lit(1)
    frame = frame.withColumn(_RANK, F.rank().over(w) + (F.count(one).over(peers) - 1) / 2.0)
    if not delong:
        return frame
    # d from the rows and positives at or below the score, and among its peers: for a
    # positive the negatives below less half the tied ones, for a negative the positives.
    upto = w.rangeBetween(Window.unboundedPreceding, Window.currentRow)
    pos = col(_POS).cast("long")
    below, tied = F.sum(pos).over(upto), F.sum(pos).over(peers)
    n_below, n_tied = F.count(one).over(upto), F.count(one).over(peers)
    d = F.when(col(_POS), (n_below - below) - (n_tied - tied) / 2.0).otherwise(below - tied / 2.0)
    return frame.withColumn(_D, d)
