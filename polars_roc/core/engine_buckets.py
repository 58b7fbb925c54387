"""Buckets of the score cut where the rows live: ``bins=`` and curves of engine frames.

A frame of another engine (DuckDB, Spark ... through narwhals) is checked by one
aggregation in its engine (the messages of the Polars path, counting rows), then cut,
per group, into equal-width buckets of the score between the group's lowest and highest
finite score (``-inf`` and ``+inf`` in buckets of their own). One more aggregation
returns, per (group, bucket), the positives and negatives (or their weights) and the
bucket's lowest and highest score: a few thousand rows per group, however many rows
and distinct scores.

Each bucket becomes one score of a count table whose score is the bucket's lowest score
(its ``threshold``); :func:`polars_roc.core.validate.prepare` takes that table, so every
view reads it as it reads any count table. The counts at a bucket's threshold are exact
(every row of the group at or above it is in that bucket or a higher one); only the
order of the rows inside a bucket is lost, and a bucket is *mixed* when it holds more
than one distinct score. That is the binned score table of the Polars path, bucketed
per group instead of over the whole log.

Equal-width buckets are monotone: ``floor((v - low) / width * B)`` is a composition of
correctly rounded, monotone floating-point steps, so a higher score never falls in a
lower bucket.

:mod:`polars_roc.core.engine_auc` cuts the same buckets (:func:`with_buckets`) for the
exact AUC of engine frames.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from polars_roc.core.auc import auc_bound
from polars_roc.core.validate import (
    Prepared,
    check_bins,
    check_choice,
    check_engine_values,
    prepare,
)

__all__ = ["EngineBuckets", "EngineRows", "engine_buckets", "engine_rows", "with_buckets"]

# Column names inside the engine's query.
SCORE_V = "__roc_v"  # the internal score: Float64, higher is more positive
IS_POS = "__roc_is_pos"
MASS = "__roc_mass"
BUCKET = "__roc_bucket"
GROUP = "__roc_group"
MIXED = "__roc_mixed"  # a bucket holding more than one distinct score
_LOW, _HIGH = "__roc_low", "__roc_high"
# Columns of the count table handed to ``prepare``.
_S, _Y, _C = "__roc_bucket_score", "__roc_bucket_label", "__roc_bucket_n"


@dataclass(frozen=True)
class EngineRows:
    """The checked rows of an engine frame, as a lazy narwhals frame
    ``[*group, __roc_v, __roc_is_pos, __roc_mass]``.

    ``group`` is ``by``, or one constant column when there is no ``by``. ``mass`` is
    what a row counts: 1, its ``count=`` (Int64) or its ``weight=`` (Float64).
    ``schema`` is the Polars schema of the frame's columns in play.
    """

    rows: Any
    by: list[str]
    group: list[str]
    schema: pl.Schema
    weighted: bool
    counted: bool


def engine_rows(
    frame: object,
    *,
    score: str,
    label: str,
    by: Sequence[str],
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any,
    nulls: Literal["raise", "drop"],
    direction: Literal["higher", "lower"],
    reserved: Sequence[str],
) -> EngineRows:
    """Check an engine frame as ``prepare`` checks a Polars one, and give its rows.

    The schema checks run on no rows (the frame's first zero rows, collected), so the
    messages are those of ``prepare``; the value checks (nulls, NaN, labels, weights,
    counts) run as one aggregation in the engine, so their messages count rows, as on
    the Polars path. ``nulls="drop"`` leaves out the rows with a null in any column in
    play.
    """
    import narwhals as nw  # installed with altair; imported only for other engines

    by = list(by)
    native, schema, kind = check_engine_values(
        frame,
        scores=[score],
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        reserved=reserved,
    )
    s, y = nw.col(score), nw.col(label)
    extra = [c for c in (weight, count) if c is not None]
    rows = native
    if nulls == "drop":
        rows = rows.filter(*(~nw.col(c).is_null() for c in [score, label, *extra]))
    is_pos = y if kind == "bool" else (y == 1 if kind == "binary" else y == pos_label)
    internal = s.cast(nw.Float64)
    if direction == "lower":
        internal = -internal
    if weight is not None:
        mass = nw.col(weight).cast(nw.Float64)
    elif count is not None:
        mass = nw.col(count).cast(nw.Int64)
    else:
        mass = nw.lit(1, dtype=nw.Int64)
    group = [*by] if by else [GROUP]
    if not by:
        rows = rows.with_columns(nw.lit(1).alias(GROUP))
    rows = rows.select(*group, internal.alias(SCORE_V), is_pos.alias(IS_POS), mass.alias(MASS))
    return EngineRows(
        rows=rows,
        by=by,
        group=group,
        schema=schema,
        weighted=weight is not None,
        counted=count is not None,
    )


def with_buckets(rows: Any, group: Sequence[str], buckets: int, *, massless: bool = False) -> Any:
    """``rows`` with ``__roc_bucket``: each group's scores ``__roc_v`` cut into
    ``buckets`` equal-width buckets, numbered up from 0.

    The width spans the group's lowest to highest finite score; ``-inf`` is bucket
    ``-1`` and ``+inf`` bucket ``buckets + 1``. A group with one finite score, or a
    range beyond Float64 (``1e308 - -1e308``), has one bucket of finite scores. Two
    windows over the group (lowest and highest score), no sort. ``massless``: rows of
    zero weight or count (``__roc_mass``) hold no score of the range and fall in bucket
    ``-2``, which keeps a group of them only.
    """
    import narwhals as nw

    v = nw.col(SCORE_V)
    finite = v.is_finite() & (nw.col(MASS) > 0) if massless else v.is_finite()
    low = nw.when(finite).then(v).otherwise(None).min().over(*group)
    high = nw.when(finite).then(v).otherwise(None).max().over(*group)
    rows = rows.with_columns(low.alias(_LOW), high.alias(_HIGH))
    low, high = nw.col(_LOW), nw.col(_HIGH)
    width = high - low
    scaled = ((v - low) / width * buckets).floor()
    bucket = (
        nw.when(nw.col(MASS) == 0 if massless else nw.lit(False))
        .then(nw.lit(-2))
        .when(v == float("inf"))
        .then(nw.lit(buckets + 1))
        .when(v == float("-inf"))
        .then(nw.lit(-1))
        # One bucket when the group has one finite score, or a range beyond Float64.
        .when(~(width > 0) | ~width.is_finite())
        .then(nw.lit(0))
        .otherwise(nw.when(scaled >= buckets).then(nw.lit(buckets - 1)).otherwise(scaled))
    )
    return rows.with_columns(bucket.cast(nw.Int64).alias(BUCKET)).drop(_LOW, _HIGH)


@dataclass(frozen=True)
class EngineBuckets:
    """The buckets of an engine frame, counted in the engine.

    ``prep`` is the buckets as a prepared count table (one score per bucket, its lowest):
    ``build(prep)`` is their score table, and every view reads it. ``buckets`` is
    ``[*by, threshold, pos, neg, __roc_mixed]`` in internal units (one row per occupied
    bucket).
    """

    prep: Prepared
    buckets: pl.DataFrame

    def auc_bound(self) -> pl.DataFrame:
        """``[*by, auc_bound]`` of the buckets (:func:`polars_roc.core.auc.auc_bound`,
        as on the Polars path's cells)."""
        bound = auc_bound(pl.col("pos"), pl.col("neg"), pl.col(MIXED))
        by = self.prep.by
        if by:
            return self.buckets.group_by(by, maintain_order=True).agg(bound)
        return self.buckets.select(bound)


def engine_buckets(
    frame: object,
    *,
    score: str,
    label: str,
    by: Sequence[str],
    weight: str | None,
    count: str | None,
    pos_label: Any,
    nulls: Literal["raise", "drop"],
    direction: Literal["higher", "lower"],
    reserved: Sequence[str],
    bins: int,
) -> EngineBuckets:
    """Count an engine frame into buckets of the score, in the engine.

    Every group is cut into at most ``bins`` equal-width buckets of finite scores, plus
    one for ``-inf`` and one for ``+inf`` where they occur: one aggregation in the
    engine returning, per (group, bucket), the positives and negatives (or weight sums)
    and the lowest and highest score. Rows of zero weight or count are left out of the
    buckets (they hold no score), as in the Polars path's ``bins=``. The value checks
    run first, as one aggregation (messages count rows, as on Polars).
    """
    import narwhals as nw

    check_choice("nulls", nulls, ("raise", "drop"))
    check_choice("direction", direction, ("higher", "lower"))
    bins = check_bins(bins) or bins
    engine = engine_rows(
        frame,
        score=score,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        reserved=reserved,
    )
    rows, group = engine.rows, engine.group
    v, is_pos, mass = nw.col(SCORE_V), nw.col(IS_POS), nw.col(MASS)
    zero = nw.lit(0.0) if engine.weighted else nw.lit(0, dtype=nw.Int64)
    sums = [
        nw.when(is_pos).then(mass).otherwise(zero).sum().alias("pos"),
        nw.when(is_pos).then(zero).otherwise(mass).sum().alias("neg"),
    ]
    massless = engine.weighted or engine.counted
    cut = (
        with_buckets(rows, group, bins, massless=massless)
        .group_by(*group, BUCKET, drop_null_keys=False)
        .agg(*sums, v.min().alias(_LOW), v.max().alias(_HIGH))
        .collect(backend="polars")
        .to_native()
    )
    if massless:
        # Rows of zero weight or count hold no bucket (as on the Polars path's bins=);
        # a group of them only keeps one bucket of no mass at +inf, as there.
        others = (pl.col(BUCKET) != -2).any().over(group)
        cut = cut.filter((pl.col(BUCKET) != -2) | ~others).with_columns(
            pl.when(pl.col(BUCKET) == -2).then(float("inf")).otherwise(pl.col(c)).alias(c)
            for c in (_LOW, _HIGH)
        )
    by_list = engine.by
    dtype = pl.Float64 if engine.weighted else pl.Int64
    low = pl.col(_LOW).cast(pl.Float64)
    low = pl.when(low == 0.0).then(0.0).otherwise(low)  # -0.0 and 0.0 are one score
    buckets = cut.select(
        *(pl.col(c).cast(engine.schema[c]) for c in by_list),
        low.alias("threshold"),
        pl.col("pos").cast(dtype),
        pl.col("neg").cast(dtype),
        (pl.col(_LOW) < pl.col(_HIGH)).alias(MIXED),
    ).sort([*by_list, "threshold"], descending=[False] * len(by_list) + [True], nulls_last=False)
    # The count table of the buckets, in the user's units: one positive and one
    # negative row per bucket at its lowest score.
    user = pl.col("threshold") if direction == "higher" else -pl.col("threshold")
    table = pl.concat(
        [
            buckets.select(*by_list, user.alias(_S), pl.lit(flag).alias(_Y), pl.col(name).alias(_C))
            for flag, name in ((True, "pos"), (False, "neg"))
        ]
    )
    prep = prepare(
        table,
        score=_S,
        label=_Y,
        by=by_list,
        weight=_C if engine.weighted else None,
        count=None if engine.weighted else _C,
        direction=direction,
        reserved=reserved,
    )
    return EngineBuckets(prep=prep, buckets=buckets)
