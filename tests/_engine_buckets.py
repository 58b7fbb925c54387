"""The buckets engines cut for ``bins=``, made by hand in Polars: the
reference of tests/test_engines.py (DuckDB) and tests/test_spark.py."""

from __future__ import annotations

import polars as pl


def by_hand_buckets(
    log: pl.DataFrame,
    buckets: int,
    *,
    by: list[str],
    direction: str = "higher",
    mass: str | None = None,
) -> pl.DataFrame:
    """``log`` with each score replaced by its bucket's lowest score, the buckets cut as
    the engine is meant to (equal width between each group's lowest and highest finite
    score, +-inf apart), and ``__mixed``: the bucket holds more than one distinct score.
    Rows of zero weight or count are left out (they hold no score)."""
    rows = log if mass is None else log.filter(pl.col(mass) > 0)
    v = pl.col("score").cast(pl.Float64)
    v = v if direction == "higher" else -v
    rows = rows.with_columns(v.alias("__v"))
    group = by or [pl.lit(1)]
    finite = pl.col("__v").filter(pl.col("__v").is_finite())
    low, high = finite.min().over(group), finite.max().over(group)
    width = high - low
    scaled = ((pl.col("__v") - low) / width * buckets).floor()
    bucket = (
        pl.when(pl.col("__v") == float("inf"))
        .then(buckets + 1)
        .when(pl.col("__v") == float("-inf"))
        .then(-1)
        .when(~(width > 0) | ~width.is_finite())
        .then(0)
        .otherwise(pl.min_horizontal(scaled, buckets - 1))
        .cast(pl.Int64)
    )
    cell = [*group, "__b"]
    lowest = pl.col("__v").min().over(cell)
    return rows.with_columns(bucket.alias("__b")).with_columns(
        (lowest if direction == "higher" else -lowest).alias("score"),
        (lowest < pl.col("__v").max().over(cell)).alias("__mixed"),
    )


def hand_bound(bucketed: pl.DataFrame, by: list[str], mass: str | None = None) -> pl.DataFrame:
    """Half the pairs of the mixed buckets over the pairs, per group."""
    m = pl.lit(1.0) if mass is None else pl.col(mass).cast(pl.Float64)
    p = (m * pl.col("label")).sum()
    n = (m * (1 - pl.col("label"))).sum()
    cells = bucketed.group_by([*by, "__b"]).agg(
        p.alias("p"), n.alias("n"), pl.col("__mixed").first()
    )
    pairs = (pl.col("p") * pl.col("n")).filter(pl.col("__mixed")).sum()
    total = 2 * pl.col("p").sum() * pl.col("n").sum()
    bound = pl.when(total > 0).then(pairs / total).alias("auc_bound")
    return cells.group_by(by).agg(bound) if by else cells.select(bound)
