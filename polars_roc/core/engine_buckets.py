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

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from polars_roc.core.auc import auc_bound
from polars_roc.core.engines import native_frame
from polars_roc.core.validate import (
    WIDE_INTEGERS,
    Prepared,
    _label_kind,
    _raise_on_values,
    beyond_float,
    check_bins,
    check_choice,
    check_engine_columns_by_role,
    prepare,
)

__all__ = [
    "CURVE_POINTS",
    "EngineBuckets",
    "EngineRows",
    "engine_buckets",
    "engine_rows",
    "known_to_next",
    "mixed_to_next",
    "next_in_group",
    "with_buckets",
]

# The curve of an engine frame comes back exact for a group of at most this many
# distinct scores (one point each); a group of more comes back as this many equal-width
# buckets: exact points at their edges, with the bound of what lies between. As the
# charts' thinning, a budget of points per curve, set higher since these are data,
# not pixels.
CURVE_POINTS = 4096

# Column names inside the engine's query.
SCORE_V = "__roc_v"  # the internal score: Float64, higher is more positive
IS_POS = "__roc_is_pos"
MASS = "__roc_mass"
BUCKET = "__roc_bucket"
GROUP = "__roc_group"
EXACT = "__roc_exact"
MIXED = "__roc_mixed"  # a bucket holding more than one distinct score
# EngineBuckets.with_bucket_counts: buckets at or above a point, and mixed ones of them.
N_BUCKETS, N_MIXED = "__roc_n_buckets", "__roc_n_mixed"
_LOW, _HIGH, _N_SCORES = "__roc_low", "__roc_high", "__roc_n_scores"
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

    native = native_frame(frame).lazy()
    by = list(by)
    extra = [c for c in (weight, count) if c is not None]
    if weight is None or count is None:  # both: prepare refuses them before any column
        check_engine_columns_by_role(frame, [score], label, weight, count, by)
    # The schema checks of the Polars path, on no rows: the same messages, no data read.
    columns = list(dict.fromkeys([*by, score, label, *extra]))
    empty = native.select(*columns).head(0).collect(backend="polars").to_native()
    prepare(
        empty,
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
    schema = empty.schema
    kind = _label_kind(empty.lazy(), label, schema[label], pos_label)

    s, y = nw.col(score), nw.col(label)

    def total(flag: Any) -> Any:
        return flag.cast(nw.Int64).sum()

    checks = {
        "n_rows": nw.len(),
        "score_nulls": total(s.is_null()),
        "label_nulls": total(y.is_null()),
    }
    if schema[score].is_float():
        checks["score_nan"] = total(s.is_nan())
    if schema[score] in WIDE_INTEGERS:
        checks["score_wide"] = total(beyond_float(s))
    if kind == "binary":
        checks["label_bad"] = total((y != 0) & (y != 1))
    if kind == "equal":
        checks["pos_present"] = (y == pos_label).cast(nw.Int64).max()
    for role, column in (("weight", weight), ("count", count)):
        if column is None:
            continue
        v = nw.col(column)
        checks[f"{role}_nulls"] = total(v.is_null())
        if schema[column].is_float():
            # -inf is counted once, as not finite (as in prepare).
            checks[f"{role}_negative"] = total(v.is_finite() & (v < 0))
            checks[f"{role}_nonfinite"] = total(~v.is_finite())
            if role == "count":
                checks["count_fraction"] = total(v.is_finite() & (v != v.round(0)))
            else:
                checks["weight_total"] = nw.when(v.is_finite()).then(v).otherwise(0.0).sum()
                checks["weight_subnormal"] = total((v > 0) & (v < sys.float_info.min))
        else:
            checks[f"{role}_negative"] = total(v < 0)
    found_native = native.select(**checks).collect(backend="polars").to_native()
    found = {key: value or 0 for key, value in found_native.row(0, named=True).items()}
    labels: pl.LazyFrame = empty.lazy()
    if found.get("label_bad") or (
        kind == "equal" and found["n_rows"] and not found.get("pos_present")
    ):
        # The distinct labels, for the message only.
        distinct = native.select(label).unique().head(1000).collect(backend="polars")
        labels = distinct.to_native().lazy()
    _raise_on_values(
        found,
        labels,
        nulls=nulls,
        kind=kind,
        score=score,
        label=label,
        weight=weight,
        count=count,
        pos_label=pos_label,
        schema=schema,
    )

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


def with_buckets(rows: Any, group: Sequence[str], buckets: int) -> Any:
    """``rows`` with ``__roc_bucket``: each group's scores ``__roc_v`` cut into
    ``buckets`` equal-width buckets, numbered up from 0.

    The width spans the group's lowest to highest finite score; ``-inf`` is bucket
    ``-1`` and ``+inf`` bucket ``buckets + 1``. A group with one finite score, or a
    range beyond Float64 (``1e308 - -1e308``), has one bucket of finite scores. Two
    windows over the group (lowest and highest score), no sort.
    """
    import narwhals as nw

    v = nw.col(SCORE_V)
    finite = v.is_finite()
    low = nw.when(finite).then(v).otherwise(None).min().over(*group)
    high = nw.when(finite).then(v).otherwise(None).max().over(*group)
    rows = rows.with_columns(low.alias(_LOW), high.alias(_HIGH))
    low, high = nw.col(_LOW), nw.col(_HIGH)
    width = high - low
    scaled = ((v - low) / width * buckets).floor()
    bucket = (
        nw.when(v == float("inf"))
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
    bucket; exact groups give one unmixed row per distinct score). ``bucketed`` says
    whether any group was cut into buckets (rather than counted per distinct score).
    """

    prep: Prepared
    buckets: pl.DataFrame
    bucketed: bool

    def auc_bound(self) -> pl.DataFrame:
        """``[*by, auc_bound]`` of the buckets (:func:`polars_roc.core.auc.auc_bound`,
        as on the Polars path's cells)."""
        bound = auc_bound(pl.col("pos"), pl.col("neg"), pl.col(MIXED))
        by = self.prep.by
        if by:
            return self.buckets.group_by(by, maintain_order=True).agg(bound)
        return self.buckets.select(bound)

    def point_bounds(self, curve: pl.LazyFrame) -> pl.LazyFrame:
        """``curve`` (a finished :func:`roc_curve` of ``prep``, user units) with
        ``area_bound``: for each point, half the box between it and the next point of
        its group when the bucket between them is mixed, in rate units (0 where the
        curve between the two points is known: one score, or one class; null in a group
        without both classes)."""
        by = self.prep.by
        key = "__roc_join"
        internal = pl.col("threshold")
        if self.prep.direction == "lower":
            internal = -internal
        # Joined on the internal threshold, -0.0 read as 0.0 (as prepare does).
        normal = pl.when(internal == 0.0).then(0.0).otherwise(internal).alias(key)
        flags = self.buckets.lazy().select(*by, pl.col("threshold").alias(key), MIXED)
        joined = curve.with_columns(normal).join(
            flags, on=[*by, key], how="left", nulls_equal=True, maintain_order="left"
        )
        n_pos = pl.col("tp") + pl.col("fn")
        n_neg = pl.col("fp") + pl.col("tn")
        n_pairs = 2 * n_pos.cast(pl.Float64) * n_neg
        tp_step = pl.col("tp") - pl.col("tp").shift(1)
        fp_step = pl.col("fp") - pl.col("fp").shift(1)
        if by:
            tp_step, fp_step = tp_step.over(by), fp_step.over(by)
        # The box closing at each point (its bucket's: the first point has none) ...
        mixed = pl.col(MIXED).fill_null(False)
        closing = pl.when(mixed).then(tp_step * fp_step / n_pairs).otherwise(0.0).fill_null(0.0)
        joined = joined.with_columns(closing.alias("__roc_closing"))
        # ... is the box from the point before to the next: move it up one row.
        to_next = pl.col("__roc_closing").shift(-1)
        if by:
            to_next = to_next.over(by)
        bound = pl.when(n_pairs > 0).then(to_next.fill_null(0.0))
        return joined.with_columns(bound.alias("area_bound")).drop(key, MIXED, "__roc_closing")

    def with_bucket_counts(self, points: pl.LazyFrame, *, internal: bool = False) -> pl.LazyFrame:
        """``points`` (curve points of ``prep`` in curve order, any of them left out) with
        ``__roc_n_buckets``, the buckets of the group at or above each point's threshold,
        and ``__roc_n_mixed``, the mixed ones among them (0 at a group's start point).

        Between two points of a group, the full curve has a point the two leave out
        exactly when the difference of ``__roc_n_buckets`` exceeds 1 or that of
        ``__roc_n_mixed`` exceeds 0 (the start point and a ``+inf`` bucket share a
        threshold, and their counts). ``internal``: thresholds in internal units (a
        table of ``prep`` not finished), else in the user's.
        """
        by = self.prep.by
        key = "__roc_join"
        threshold = pl.col("threshold")
        if self.prep.direction == "lower" and not internal:
            threshold = -threshold
        normal = pl.when(threshold == 0.0).then(0.0).otherwise(threshold).alias(key)
        running = [
            pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias(N_BUCKETS),
            pl.col(MIXED).cast(pl.Int64).cum_sum().alias(N_MIXED),
        ]
        counts = self.buckets.lazy().select(
            *by,
            pl.col("threshold").alias(key),
            *((r.over(by) for r in running) if by else running),
        )
        joined = points.with_columns(normal).join(
            counts, on=[*by, key], how="left", nulls_equal=True, maintain_order="left"
        )
        return joined.with_columns(pl.col(N_BUCKETS, N_MIXED).fill_null(0)).drop(key)


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
    bins: int | None,
) -> EngineBuckets:
    """Count an engine frame into buckets of the score, in the engine.

    ``bins``: every group cut into at most ``bins`` equal-width buckets of finite
    scores (``bins=``), plus one for ``-inf`` and one for ``+inf`` where they occur.
    ``None`` (curves): a group of at most :data:`CURVE_POINTS` distinct scores is
    counted per distinct score (exact: a plain ``GROUP BY`` per score, the same cells
    as the count table of :func:`polars_roc.core.engines.count_in_engine`), a larger
    one cut into ``CURVE_POINTS`` buckets. The ``GROUP BY`` per score runs first, with
    a window over its cells counting each group's; it returns the cells of the small
    groups and one cell of each large group, so only when some group is large do the
    buckets follow (a second read of the rows, kept for the large groups).

    The buckets are one aggregation in the engine returning, per (group, bucket), the
    positives and negatives (or weight sums) and the lowest and highest score. Rows of
    zero weight or count are left out of the buckets (they hold no score), as in the
    Polars path's ``bins=``; counted per distinct score they stay, as in a count table.
    The value checks run first, as one aggregation (messages count rows, as on Polars).
    """
    import narwhals as nw

    check_choice("nulls", nulls, ("raise", "drop"))
    check_choice("direction", direction, ("higher", "lower"))
    bins = check_bins(bins)
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
    parts = []
    large = None  # the groups to cut into buckets (None: all of them)
    if bins is None:
        # A cell per (group, distinct score), and each group's count of them: the cells
        # of groups of at most CURVE_POINTS scores come back (the exact count table),
        # of a larger group only its top cell, which says it is large. Windows over
        # the cells, not the rows.
        n_scores = v.count().over(*group)
        top = v.max().over(*group)
        per_score = (
            rows.group_by(*group, SCORE_V, drop_null_keys=False)
            .agg(*sums)
            .with_columns(n_scores.alias(_N_SCORES), top.alias(_HIGH))
            .filter((nw.col(_N_SCORES) <= CURVE_POINTS) | (v == nw.col(_HIGH)))
            .collect(backend="polars")
            .to_native()
        )
        small = pl.col(_N_SCORES) <= CURVE_POINTS
        parts.append(
            per_score.filter(small).select(
                *group,
                pl.lit(True).alias(EXACT),
                pl.col(SCORE_V).alias(_LOW),
                pl.col(SCORE_V).alias(_HIGH),
                "pos",
                "neg",
            )
        )
        large = per_score.filter(~small).select(group)
    if large is None or large.height:
        if engine.weighted or engine.counted:
            # Rows of zero weight or count hold no score of a bucket (as on the Polars
            # path's bins=); counted per score above, they stay, as in a count table.
            rows = rows.filter(mass > 0)
        cut = (
            with_buckets(rows, group, bins if bins is not None else CURVE_POINTS)
            .group_by(*group, BUCKET, drop_null_keys=False)
            .agg(*sums, v.min().alias(_LOW), v.max().alias(_HIGH))
            .collect(backend="polars")
            .to_native()
        )
        if large is not None:  # only the large groups' buckets
            cut = cut.join(large, on=group, how="semi", nulls_equal=True)
        parts.append(cut.select(*group, pl.lit(False).alias(EXACT), _LOW, _HIGH, "pos", "neg"))
        if large is not None and engine.weighted:
            # A large group whose rows all weigh 0 has no bucket: it would vanish from
            # the result, where the Polars path keeps it (no classes, null rates). Its
            # top cell (no mass) keeps it, as one bucket of one score. (Rows of count 0
            # the Polars path leaves out, and such a group with them.)
            empty = per_score.filter(~small).join(cut, on=group, how="anti", nulls_equal=True)
            parts.append(
                empty.select(
                    *group,
                    pl.lit(False).alias(EXACT),
                    pl.col(SCORE_V).alias(_LOW),
                    pl.col(SCORE_V).alias(_HIGH),
                    "pos",
                    "neg",
                )
            )
    cells = pl.concat(
        [
            part.with_columns(
                pl.col("pos", "neg").cast(pl.Float64 if engine.weighted else pl.Int64)
            )
            for part in parts
        ],
        how="vertical_relaxed",
    )
    by_list = engine.by
    dtype = pl.Float64 if engine.weighted else pl.Int64
    low = pl.col(_LOW).cast(pl.Float64)
    low = pl.when(low == 0.0).then(0.0).otherwise(low)  # -0.0 and 0.0 are one score
    buckets = cells.select(
        *(pl.col(c).cast(engine.schema[c]) for c in by_list),
        low.alias("threshold"),
        pl.col("pos").cast(dtype),
        pl.col("neg").cast(dtype),
        (~pl.col(EXACT) & (pl.col(_LOW) < pl.col(_HIGH))).alias(MIXED),
    ).sort([*by_list, "threshold"], descending=[False] * len(by_list) + [True], nulls_last=False)
    bucketed = not bool(cells[EXACT].all())
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
    return EngineBuckets(prep=prep, buckets=buckets, bucketed=bucketed)


def next_in_group(column: pl.Expr, by: Sequence[str]) -> pl.Expr:
    """``column`` at the next row of the group (null at the group's last row)."""
    return column.shift(-1).over(by) if by else column.shift(-1)


def mixed_to_next(by: Sequence[str]) -> pl.Expr:
    """True where a mixed bucket lies between a point and the next one of its group
    (rows of :meth:`EngineBuckets.with_bucket_counts`; false at the group's last row):
    the full curve passes there through points the result leaves out."""
    n_mixed = pl.col(N_MIXED)
    return (next_in_group(n_mixed, by) > n_mixed).fill_null(False)


def known_to_next(by: Sequence[str]) -> pl.Expr:
    """True where the next point of the group is the next point of the full curve
    (no bucket edge left out between them, no mixed bucket), null at the last row."""
    n_buckets, n_mixed = pl.col(N_BUCKETS), pl.col(N_MIXED)
    return (next_in_group(n_buckets, by) - n_buckets <= 1) & (next_in_group(n_mixed, by) == n_mixed)
