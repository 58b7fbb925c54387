"""The exact AUC of an engine's frame without a cell per distinct score
(:func:`auc_in_buckets`: ranks in windows per bucket, the buckets' histogram across).

Its own module, apart from the counting of :mod:`polars_roc.core.engine_counts`, because it
runs the validator's checks on the engine and so imports ``validate``, which imports
the counting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.core.arguments import Roles
from polars_roc.core.buckets import BUCKET, IS_POS, SCORE_V, engine_rows, with_buckets
from polars_roc.core.validate import warn_single_class

__all__ = ["AUC_BUCKETS", "auc_in_buckets"]

# Equal-width buckets of the score per group for the exact AUC of engine frames: the
# engine returns at most this many rows per group and class.
AUC_BUCKETS = 4096

_BUCKET, _POS, _RANK = BUCKET, IS_POS, "__roc_rank"


def auc_in_buckets(
    frame: object,
    roles: Roles,
    *,
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
    engine = engine_rows(frame, roles, reserved=reserved)
    by, group, schema = engine.by, engine.group, engine.schema
    # Ungrouped, the buckets span the scores' range found with the checks, when finite
    # (the result is exact whatever the bucketing): no windows over the whole frame.
    span = engine.score_range
    finite = span is not None and all(abs(x) < float("inf") for x in span)
    rows = with_buckets(engine.rows, group, buckets, span=span if finite and not by else None)
    if not delong and _is_duckdb(rows):
        summary = _rank_sums_duckdb(rows, [*group, _BUCKET])
    else:
        summary = _rank_sums(rows, group, delong=delong)
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


def _rank_sums(rows: Any, group: list[str], *, delong: bool) -> pl.DataFrame:
    """``[*group, bucket, pos, neg, rank_pos]`` (``delong``: and the sums of ``d`` and
    ``d^2`` per class) of the bucketed ``rows``, by average ranks in windows."""
    import narwhals as nw

    rows = _average_ranks(rows, [*group, _BUCKET], _RANK)
    pos = nw.col(_POS).cast(nw.Int64)
    sums = [
        pos.sum().alias("pos"),
        (1 - pos).sum().alias("neg"),
        nw.when(nw.col(_POS)).then(nw.col(_RANK)).otherwise(0.0).sum().alias("rank_pos"),
    ]
    if delong:
        rows = _average_ranks(rows, [*group, _BUCKET, _POS], "__roc_own")
        rows = rows.with_columns((nw.col(_RANK) - nw.col("__roc_own")).alias("__roc_d"))
        d = nw.col("__roc_d")
        for name, flag in (("pos", nw.col(_POS)), ("neg", ~nw.col(_POS))):
            sums.append(nw.when(flag).then(d).otherwise(0.0).sum().alias(f"d_{name}"))
            sums.append(nw.when(flag).then(d * d).otherwise(0.0).sum().alias(f"d2_{name}"))
    summary = rows.group_by(*group, _BUCKET, drop_null_keys=False).agg(*sums)
    return summary.collect(backend="polars").to_native()


def _average_ranks(rows: Any, partition: list[str], name: str) -> Any:
    """``rows`` (narwhals, lazy) with ``name``: the average rank of ``__roc_v`` within
    ``partition``. On DuckDB in one window: the rank plus half the peers beyond the
    first, counted in a frame of the same window (narwhals counts them in a second
    window partitioned by the score too, which took twice as long); elsewhere narwhals'
    ``rank("average")``."""
    import narwhals as nw

    if not _is_duckdb(rows):
        return rows.with_columns(nw.col(SCORE_V).rank("average").over(*partition).alias(name))

    view = f"__roc_rows_for{name}"  # one view name per step of the query
    sql = (
        f"SELECT *, rank() OVER w + (count(*) OVER (w RANGE BETWEEN CURRENT ROW AND CURRENT "
        f"ROW) - 1) / 2.0 AS {_quoted(name)} FROM {view} WINDOW w AS (PARTITION BY "
        f"{', '.join(map(_quoted, partition))} ORDER BY {_quoted(SCORE_V)})"
    )
    return nw.from_native(rows.to_native().query(view, sql))


def _rank_sums_duckdb(rows: Any, partition: list[str]) -> pl.DataFrame:
    """:func:`_rank_sums` without DeLong, on DuckDB: ``rank()`` (the lowest of the
    peers') for every row, and the ties' half ranks only where there are ties. A row
    equal to its neighbour is keyed by its rank, which its peers share, and each such
    peer group of ``t`` rows and ``p`` positives adds ``p (t - 1) / 2``; counting every
    row's peers in the window cost about 0.1x more of DuckDB's time
    (benchmarks/README.md, issue 28 item 2)."""
    import narwhals as nw

    parts = ", ".join(map(_quoted, partition))
    v, pos = _quoted(SCORE_V), _quoted(_POS)
    view = "__roc_rows_for_rank_sums"
    # Inner names of their own: a segment column may be called n or pos.
    sql = (
        f"SELECT {parts}, CAST(sum(__roc_p) AS BIGINT) AS pos, "
        f"CAST(sum(__roc_n) - sum(__roc_p) AS BIGINT) AS neg, sum(__roc_rs + CASE WHEN "
        f"__roc_peers IS NULL THEN 0 ELSE __roc_p * (__roc_n - 1) / 2 END) AS rank_pos FROM ("
        f"SELECT {parts}, CASE WHEN __roc_tied THEN __roc_r END AS __roc_peers, "
        f"CAST(sum(CAST({pos} AS BIGINT)) AS DOUBLE) AS __roc_p, "
        f"CAST(count(*) AS DOUBLE) AS __roc_n, "
        f"CAST(sum(CASE WHEN {pos} THEN __roc_r ELSE 0 END) AS DOUBLE) AS __roc_rs FROM ("
        f"SELECT {parts}, {pos}, rank() OVER w AS __roc_r, "
        f"coalesce({v} = lag({v}) OVER w, false) OR coalesce({v} = lead({v}) OVER w, false) "
        f"AS __roc_tied FROM {view} WINDOW w AS (PARTITION BY {parts} ORDER BY {v})"
        f") GROUP BY ALL) GROUP BY {parts}"
    )
    found = nw.from_native(rows.to_native().query(view, sql))
    return found.collect(backend="polars").to_native()


def _is_duckdb(rows: Any) -> bool:
    """Whether ``rows`` (narwhals) are a DuckDB relation's."""
    return type(rows.to_native()).__name__ == "DuckDBPyRelation"


def _quoted(column: str) -> str:
    """``column`` as a DuckDB identifier."""
    return '"' + column.replace('"', '""') + '"'
