"""The buckets engines cut for ``bins=`` and long curves, made by hand in Polars: the
reference of tests/test_engines.py (DuckDB) and tests/test_spark.py."""

from __future__ import annotations

import warnings
from collections.abc import Callable

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


def stretches(
    full: pl.DataFrame, edges: pl.DataFrame, by: list[str], columns: list[str]
) -> pl.DataFrame:
    """Each point of the ``full`` curve with the point of ``edges`` (a bucketed curve of
    the same rows, its points a subset of the full curve's thresholds) that opens the
    stretch it lies in (``columns`` suffixed ``_open``) and the point that closes it
    (``_close``): a stretch runs from an edge point (left out) down to the next one
    (included). Points before the first edge point or after the last are left out.

    Thresholds repeat at a group's start (``+-inf``, nothing predicted positive) and a
    ``+-inf`` score (something predicted positive): points match on both.
    ``full`` needs ``tp`` and ``fp`` or ``fpr`` and ``fnr``."""
    group = by or [pl.lit(1).alias("__g")]
    keys = [*(by or ["__g"]), "threshold", "__dup"]

    def numbered(frame: pl.DataFrame) -> pl.DataFrame:
        frame = frame.with_columns(*([] if by else [pl.lit(1).alias("__g")]))
        return frame.with_columns(_something_positive(frame).alias("__dup"))

    marked = numbered(edges).with_columns(
        pl.int_range(1, pl.len() + 1).over(group).alias("__n"), pl.lit(True).alias("__edge")
    )
    points = numbered(full).join(
        marked.select(*keys, "__edge"), on=keys, how="left", nulls_equal=True, maintain_order="left"
    )
    is_edge = pl.col("__edge").fill_null(False)
    seen = is_edge.cast(pl.Int64).cum_sum().over(group)
    points = points.with_columns((seen - is_edge.cast(pl.Int64)).alias("__n"))
    opening = marked.select(
        *(by or ["__g"]), "__n", *(pl.col(c).alias(f"{c}_open") for c in columns)
    )
    closing = marked.select(
        *(by or ["__g"]),
        (pl.col("__n") - 1).alias("__n"),
        *(pl.col(c).alias(f"{c}_close") for c in columns),
    )
    on = [*(by or ["__g"]), "__n"]
    return (
        points.join(opening, on=on, how="inner", nulls_equal=True)
        .join(closing, on=on, how="inner", nulls_equal=True)
        .drop("__dup", "__edge", *([] if by else ["__g"]))
    )


def edges_on_full_curve(
    full: pl.DataFrame, edges: pl.DataFrame, by: list[str], columns: list[str], tol: float
) -> None:
    """Every point of ``edges`` is the point of ``full`` at its threshold."""
    over = [*by, "threshold"] if by else ["threshold"]
    joined = edges.with_columns(_something_positive(edges).alias("__dup")).join(
        full.with_columns(_something_positive(full).alias("__dup")).select(
            *over, "__dup", *columns
        ),
        on=[*over, "__dup"],
        how="left",
        nulls_equal=True,
        suffix="_full",
    )
    assert joined.height == edges.height
    for column in columns:
        a, b = joined[column], joined[f"{column}_full"]
        assert (a.is_null() == b.is_null()).all(), column
        assert ((a - b).abs().fill_null(0.0) <= tol * (1 + b.abs().fill_null(0.0))).all(), column


def _something_positive(frame: pl.DataFrame) -> pl.Expr:
    """A curve point predicts some row positive (not a group's start point)."""
    if "fnr" not in frame.columns:
        return (pl.col("tp") + pl.col("fp")) > 0
    return (pl.col("fpr").fill_null(0.0) > 0) | (pl.col("fnr").fill_null(1.0) < 1)


def duckdb_relation(frame: pl.DataFrame) -> object:
    """``frame`` as a DuckDB relation of its own connection (the caller has checked
    that duckdb is installed)."""
    import duckdb

    connection = duckdb.connect()
    connection.register("log_frame", frame.to_arrow())
    return connection.sql("SELECT * FROM log_frame")


def quietly(call: Callable[[], pl.DataFrame]) -> pl.DataFrame:
    """``call()`` with its UserWarnings (one-class groups) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return call()
