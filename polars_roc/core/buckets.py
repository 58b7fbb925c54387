"""``bins=``: one bucketing scheme, the same on every backend.

Each group's finite scores of positive mass are cut into ``bins`` equal-width buckets
between the group's lowest and highest such score (:func:`bucket_of`); ``-inf`` and
``+inf`` have buckets of their own, rows of zero weight or count a bucket of none.
Per (group, bucket) the positives and negatives (or weights) and the lowest and highest
score are counted, by another engine in windows and one aggregation
(:func:`engine_buckets`) or by Polars from the ranges of its value pass
(:func:`polars_buckets`): the same IEEE operations, the same buckets bit for bit.

Each bucket is a row of a count table at its lowest score (its ``threshold``), where
the counts are exact; only the order inside a bucket is lost, and a *mixed* bucket
(more than one distinct score) bounds the AUC's error (:func:`polars_roc.core.auc.auc_bound`).
``floor((v - low) / width * B)`` is a chain of monotone correctly rounded steps, so a
higher score never falls in a lower bucket.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_bins
from polars_roc.core.auc import auc_bound
from polars_roc.core.bucket_arrays import CELL, count_cells
from polars_roc.core.compat import lag
from polars_roc.core.validate import NEG, POS, SCORE, Prepared, check_engine_values

__all__ = [
    "Buckets",
    "EngineRows",
    "bucket_of",
    "engine_buckets",
    "engine_rows",
    "polars_buckets",
    "with_buckets",
]

# Column names inside the engine's query.
SCORE_V = "__roc_v"  # the internal score: Float64, higher is more positive
IS_POS = "__roc_is_pos"
MASS = "__roc_mass"
BUCKET = "__roc_bucket"
GROUP = "__roc_group"
MIXED = "__roc_mixed"  # a bucket holding more than one distinct score
_LOW, _HIGH = "__roc_low", "__roc_high"
# Each group's range of finite scores of positive mass, as the Polars value pass finds it.
_RANGE = ("__roc_bucket_low", "__roc_bucket_high")
# Buckets per group_by of the bound (whole groups: a slice may hold more).
BOUND_SLICE_ROWS = 1_000_000


@dataclass(frozen=True)
class EngineRows:
    """The checked rows of an engine frame, as a lazy narwhals frame ``[*group, __roc_v,
    __roc_is_pos, __roc_mass]`` (``group``: ``by``, or one constant column)."""

    rows: Any
    by: list[str]
    group: list[str]
    schema: pl.Schema
    weighted: bool
    counted: bool
    # The lowest and highest internal score of the rows before nulls="drop" (None
    # without scores), found with the checks.
    score_range: tuple[float, float] | None = None


def engine_rows(frame: object, roles: Roles, *, reserved: Collection[str]) -> EngineRows:
    """Check an engine frame as ``prepare`` checks a Polars one (values in one
    aggregation in the engine), and give its rows."""
    import narwhals as nw  # installed with altair; imported only for other engines

    native, schema, kind, found = check_engine_values(frame, roles, reserved=reserved)
    score, label, by, weight, count = roles.score, roles.label, roles.by, roles.weight, roles.count
    direction = roles.direction
    s, y = nw.col(score), nw.col(label)
    extra = [c for c in (weight, count) if c is not None]
    rows = native
    if roles.nulls == "drop":
        rows = rows.filter(*(~nw.col(c).is_null() for c in [score, label, *extra]))
    is_pos = y if kind == "bool" else (y == 1 if kind == "binary" else y == roles.pos_label)
    internal = s.cast(nw.Float64)
    if direction == "lower":
        internal = -internal
    mass = nw.lit(1, dtype=nw.Int64) if count is None else nw.col(count).cast(nw.Int64)
    if weight is not None:
        mass = nw.col(weight).cast(nw.Float64)
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
        score_range=found if found is None or direction == "higher" else (-found[1], -found[0]),
    )


def bucket_of(F: Any, v: Any, low: Any, high: Any, bins: int, mass: Any = None) -> Any:
    """The bucket of score ``v`` in a group whose finite scores of positive mass span
    ``[low, high]``: ``0 .. bins - 1``, ``-1`` for ``-inf``, ``bins + 1`` for ``+inf``,
    ``-2`` for a row of zero ``mass``; one bucket for a single score or a range beyond
    Float64. ``F`` is ``polars`` or ``narwhals``."""
    width = high - low
    scaled = ((v - low) / width * bins).floor()
    no_mass = F.lit(False) if mass is None else mass == 0
    bucket = (
        F.when(no_mass)
        .then(F.lit(-2))
        .when(v == float("inf"))
        .then(F.lit(bins + 1))
        .when(v == float("-inf"))
        .then(F.lit(-1))
        .when(~(width > 0) | ~width.is_finite())
        .then(F.lit(0))
        .otherwise(F.when(scaled >= bins).then(F.lit(bins - 1)).otherwise(scaled))
    )
    return bucket.cast(F.Int64)


def with_buckets(
    rows: Any,
    group: Sequence[str],
    buckets: int,
    *,
    massless: bool = False,
    span: tuple[float, float] | None = None,
) -> Any:
    """``rows`` (an engine's, narwhals) with ``__roc_bucket`` (:func:`bucket_of`), each
    group's range from two windows (no sort). ``massless``: rows of zero mass hold no
    score. ``span``: bounds of every score instead (one read less, other buckets)."""
    import narwhals as nw

    v, mass = nw.col(SCORE_V), nw.col(MASS)
    if span is not None:
        low, high = nw.lit(span[0], nw.Float64), nw.lit(span[1], nw.Float64)
        return rows.with_columns(bucket_of(nw, v, low, high, buckets).alias(BUCKET))
    finite = v.is_finite() & (mass > 0) if massless else v.is_finite()
    low = nw.when(finite).then(v).otherwise(None).min().over(*group)
    high = nw.when(finite).then(v).otherwise(None).max().over(*group)
    rows = rows.with_columns(low.alias(_LOW), high.alias(_HIGH))
    bucket = bucket_of(nw, v, nw.col(_LOW), nw.col(_HIGH), buckets, mass if massless else None)
    return rows.with_columns(bucket.alias(BUCKET)).drop(_LOW, _HIGH)


@dataclass(frozen=True)
class Buckets:
    """The buckets of ``bins=``: ``prep``, a prepared count table (one score per bucket,
    its lowest), and ``buckets``, ``[*by, threshold, pos, neg, __roc_mixed]`` in internal
    units (one row per occupied bucket)."""

    prep: Prepared
    buckets: pl.DataFrame

    def auc_bound(self) -> pl.DataFrame:
        """``[*by, auc_bound]`` of the buckets (:func:`polars_roc.core.auc.auc_bound`)."""
        bound = auc_bound(pl.col("pos"), pl.col("neg"), pl.col(MIXED))
        by, buckets = self.prep.by, self.buckets
        if not by:
            return buckets.select(bound)
        # One group_by over all the buckets holds several copies of them (0.56 GiB over
        # 6.8 x 10^6 buckets); slices of whole groups (the buckets are sorted by group)
        # give each group the same sums, in a fraction of that (benchmarks/README.md).
        first = pl.any_horizontal(
            pl.int_range(pl.len()) == 0, *(pl.col(c).ne_missing(lag(pl.col(c))) for c in by)
        )
        starts = buckets.select(first.arg_true()).to_series().to_numpy()
        wanted = np.arange(0, buckets.height, BOUND_SLICE_ROWS)
        cuts = [
            *np.unique(starts[np.searchsorted(starts, wanted, side="right") - 1]),
            buckets.height,
        ]
        slices = [buckets.slice(a, b - a) for a, b in pairwise(cuts)] or [buckets]
        return pl.concat([part.group_by(by, maintain_order=True).agg(bound) for part in slices])


def engine_buckets(frame: object, roles: Roles, *, reserved: Collection[str], bins: int) -> Buckets:
    """Count an engine frame into the buckets of ``bins=``, in the engine: the value
    checks, then one aggregation per (group, bucket)."""
    import narwhals as nw

    bins = check_bins(bins) or bins
    engine = engine_rows(frame, roles, reserved=reserved)
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
        .lazy()
    )
    return _bucket_table(
        cut,
        group=group,
        by=engine.by,
        dtypes=engine.schema,
        weighted=engine.weighted,
        massless=massless,
        direction=roles.direction,
        lazy=False,
    )


def polars_buckets(prep: Prepared) -> Buckets:
    """Count the prepared Polars rows of ``prepare(..., bins=)`` into the buckets, from
    the ranges the value pass found: one more read (``count_cells``)."""
    assert prep.ranges is not None and prep.bins is not None, "prepare(bins=...) finds the ranges"
    bins, by = prep.bins, prep.by
    # Groups numbered in the table's order (nulls first), so that the cells come out
    # of the count in it: no sort of the cells (benchmarks/README.md).
    ranges = (prep.ranges.sort(by, nulls_last=False) if by else prep.ranges).with_row_index(GROUP)
    rows = prep.frame
    # Weights add in row order (one order, the same bits every call); counts in any.
    order: Literal["left", "none"] = "left" if prep.weighted else "none"
    if by:
        rows = rows.join(ranges.lazy(), on=by, nulls_equal=True, maintain_order=order)
    else:
        rows = rows.join(ranges.lazy(), how="cross", maintain_order=order)
    massless = prep.weighted or prep.counted
    mass = pl.col(POS) + pl.col(NEG) if massless else None
    bucket = bucket_of(pl, pl.col(SCORE), pl.col(_RANGE[0]), pl.col(_RANGE[1]), bins, mass)
    # Buckets bins + 1 .. -2 of group g are cells g * (bins + 4) + 0 .. bins + 3:
    # ascending cells are the table's order (groups ascending, scores descending).
    width = bins + 4
    cell = pl.col(GROUP).cast(pl.Int64) * width + (bins + 1 - bucket)
    group = pl.col(CELL) // width
    cut = (
        count_cells(rows, cell, ranges.height * width, weighted=prep.weighted)
        .lazy()
        .select(
            group.cast(pl.UInt32).alias(GROUP),
            *(pl.lit(ranges[c]).gather(group).alias(c) for c in by),
            (bins + 1 - pl.col(CELL) % width).alias(BUCKET),
            pl.col(POS).alias("pos"),
            pl.col(NEG).alias("neg"),
            pl.col("low").alias(_LOW),
            pl.col("high").alias(_HIGH),
        )
    )
    return _bucket_table(
        cut,
        group=[GROUP],
        by=by,
        dtypes=ranges.schema,
        weighted=prep.weighted,
        massless=massless,
        direction=prep.direction,
        lazy=not prep.eager,
        ordered=True,
    )


def sorted_cells(
    cells: pl.DataFrame,
    by: list[str],
    *,
    weighted: bool,
    lazy: bool,
    direction: Literal["higher", "lower"] = "higher",
    score_dtype: pl.DataType | None = None,
) -> Prepared:
    """The checked ``cells`` ``[*by, threshold, pos, neg]`` of a count table, one per
    group and score in the score table's order, as prepared rows: not counted again."""
    present = [(pl.col(c) > 0).any().cast(pl.Int64).alias(f"n_{c}") for c in ("pos", "neg")]
    classes = cells.group_by(by, maintain_order=True).agg(present) if by else None
    if not by and cells.height:
        classes = cells.select(present)
    thresholds = cells["threshold"]
    return Prepared(
        frame=cells.lazy().select(
            *by,
            pl.col("threshold").alias(SCORE),
            pl.col("pos").alias(POS),
            pl.col("neg").alias(NEG),
        ),
        by=by,
        weighted=weighted,
        eager=not lazy,
        n_rows=cells.height,
        n_distinct=cells.height,
        class_totals=classes if lazy else None,
        score_range=(thresholds.min(), thresholds.max()) if cells.height else None,  # type: ignore[arg-type]
        score_dtype=score_dtype or pl.Float64(),
        counted=not weighted,
        direction=direction,
        sorted_cells=True,
    )


def _bucket_table(
    cut: pl.LazyFrame,
    *,
    group: list[str],
    by: list[str],
    dtypes: pl.Schema,
    weighted: bool,
    massless: bool,
    direction: Literal["higher", "lower"],
    lazy: bool,
    ordered: bool = False,
) -> Buckets:
    """The counted buckets ``cut`` (``[*group, bucket, pos, neg, low, high]``) as
    prepared rows of a count table, the same for every backend; ``ordered``: ``cut``
    is in the table's order already (groups, then buckets descending)."""
    if massless:
        # Rows of zero weight or count hold no bucket; a group of them only keeps one
        # bucket of no mass at +inf (null rates and one warning, as on the exact path).
        others = (pl.col(BUCKET) != -2).any().over(group)
        cut = cut.filter((pl.col(BUCKET) != -2) | ~others).with_columns(
            pl.when(pl.col(BUCKET) == -2).then(float("inf")).otherwise(pl.col(c)).alias(c)
            for c in (_LOW, _HIGH)
        )
    dtype = pl.Float64 if weighted else pl.Int64
    low = pl.col(_LOW).cast(pl.Float64)
    low = pl.when(low == 0.0).then(0.0).otherwise(low)  # -0.0 and 0.0 are one score
    # One plan from the cells to the sorted buckets: no copy of the cells is kept.
    plan = cut.select(
        *(pl.col(c).cast(dtypes[c]) for c in by),
        low.alias("threshold"),
        pl.col("pos").cast(dtype),
        pl.col("neg").cast(dtype),
        (pl.col(_LOW) < pl.col(_HIGH)).alias(MIXED),
    )
    if not ordered:
        order = [False] * len(by) + [True]
        plan = plan.sort([*by, "threshold"], descending=order, nulls_last=False)
    buckets = plan.collect()
    # The buckets are the rows of a count table, one per (group, lowest score), already
    # checked: they go to the views as prepared rows, with no second value pass.
    prep = sorted_cells(buckets, by, weighted=weighted, lazy=lazy, direction=direction)
    return Buckets(prep=prep, buckets=buckets)
