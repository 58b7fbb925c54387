"""Counting where the rows live: frames of other engines (DuckDB, Spark, Dask, Ibis ...).

A frame that is not Polars is handed to narwhals, which speaks each engine's own
language. The engine runs one ``GROUP BY [*by, score(s), label]`` counting the rows (or
summing ``count=``); only that count table comes back, as a Polars DataFrame, and the
rest of the library works on it exactly as on any count table (``count=``): every
result equals the one on the engine's rows. The checks of the values (nulls, NaN,
labels) then run on the count table; their messages count rows, summing the cells'
counts (with ``weight=``, cells).

With ``weight=``, each cell brings the sum of its rows' weights and the number of its
rows of positive weight (what the bootstrap resamples: the Polars path draws rows of a
score with the mean weight of the score's rows of that class, so the two agree draw for
draw). Bad weights and counts are carried for the usual checks (:func:`count_in_engine`).

Scores that repeat (rounded probabilities, scorecards) make small tables; continuous
scores make one cell per row, and the table comes back as large as the rows' columns;
views that read a few thresholds only (``confusion_matrix``) cut the scores to them first
(:func:`cut_score`): at most one cell per threshold, group and class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast

import numpy as np
import polars as pl

from polars_roc.core.arguments import MAX_TOTAL, too_many_rows
from polars_roc.core.exact_sums import BLOCK, block_sums, split
from polars_roc.exceptions import RocInputError, RocOptionError

__all__ = [
    "ENGINE_COUNT",
    "ENGINE_UNITS",
    "MAX_CUTS",
    "count_in_engine",
    "cut_score",
    "is_polars",
    "native_frame",
    "ranks_in_windows",
]

# The count column of a table counted by an engine.
ENGINE_COUNT = "__roc_n"
# With weight=: a cell's rows of positive weight (its weight sum keeps the weight's name).
ENGINE_UNITS = "__roc_units"
_SUM, _NULLS, _LOWEST = "__roc_w", "__roc_w_nulls", "__roc_w_min"
_EXACT = "__roc_w_exact"  # see core/exact_sums.py
_HIGH, _LOW, _SPLIT = "__roc_n_high", "__roc_n_low", 32  # float counts' parts (_count_cells)
# Thresholds beyond this many are not cut in the engine (one CASE branch each): the
# table is then counted per distinct score.
MAX_CUTS = 1024


def is_polars(frame: object) -> bool:
    return isinstance(frame, (pl.DataFrame, pl.LazyFrame))


def count_in_engine(
    frame: object,
    *,
    keys: Sequence[str],
    weight: str | None,
    count: str | None,
    nulls: Literal["raise", "drop"] = "raise",
    cuts: tuple[str, Sequence[float], Literal["higher", "lower"]] | None = None,
) -> pl.DataFrame:
    """The count table ``[*keys, count or ENGINE_COUNT]`` of a non-Polars frame, counted
    in its engine.

    ``keys`` are the columns that define a cell (segments, score(s), label). ``count``
    rows are summed. With ``weight``, the table is ``[*keys, weight, ENGINE_UNITS]``
    instead, the weight sum keeping the weight's name (so that messages name the user's
    column): the cell's weight sum (null where a row's weight is null, -1.0 where one
    is negative, so that the value checks refuse them) and its rows of positive weight.
    ``nulls="drop"`` leaves out the rows of null weight or count first (a row of zero
    weight stays: a threshold, as on Polars).

    ``cuts = (score, thresholds, direction)`` first replaces the score by the threshold
    it falls to (:func:`cut_score`), for views that need the counts at those
    thresholds only (at most ``MAX_CUTS`` of them; more are not cut).
    """
    import narwhals as nw  # installed with altair; imported only for other engines

    native = native_frame(frame)
    rows: Any = native.lazy()
    cut: tuple[str, pl.DataType] | None = None
    if cuts is not None and 0 < len(set(cuts[1])) <= MAX_CUTS:
        name, thresholds, direction = cuts
        dtype = rows.collect_schema()[name]
        if dtype.is_numeric():  # other dtypes go on to the dtype check's message
            float32 = dtype == nw.Float32
            cut = (name, pl.Float32() if float32 else pl.Float64())
            expression = cut_score(
                name, thresholds, direction, floating=dtype.is_float(), float32=float32
            )
            rows = rows.with_columns(expression.alias(name))
    unit = weight or count
    if nulls == "drop" and unit is not None:  # as on Polars: no cell, no threshold, of them
        rows = rows.filter(~nw.col(unit).is_null())
    result = _count_cells(rows, frame, keys=keys, weight=weight, count=count)
    if cut is not None:  # exact: the cuts were rounded to the score's dtype
        result = result.with_columns(pl.col(cut[0]).cast(cut[1]))
    return result


def cut_score(
    score: str,
    thresholds: Sequence[float],
    direction: Literal["higher", "lower"],
    *,
    floating: bool,
    float32: bool,
) -> Any:
    """A narwhals expression: ``score`` replaced by the threshold it falls to.

    With ``direction="higher"`` (positive when ``score >= t``), the highest threshold
    at or below the score, ``-inf`` below them all; with ``"lower"`` (positive when
    ``score <= t``), the lowest threshold at or above it, ``+inf`` above them all. A
    row is then on the same side of every threshold as before, so the counts at the
    thresholds are unchanged. Float32 thresholds are rounded to Float32 first, as the
    Polars path compares them (``Prepared.threshold_keys``). Nulls stay null and NaN
    stays NaN (engines order NaN above every number), so the value checks see them.
    """
    import narwhals as nw

    values = np.asarray(sorted(set(thresholds)), dtype=np.float64)
    if float32:
        with np.errstate(over="ignore"):  # beyond Float32's range: +-inf, same order
            values = values.astype(np.float32).astype(np.float64)
    ordered = sorted({float(v) for v in values}, reverse=direction == "higher")
    s = nw.col(score)
    chain: Any = nw.when(s.is_null()).then(nw.lit(None, dtype=nw.Float64()))
    if floating:
        chain = chain.when(s.is_nan()).then(nw.lit(float("nan"), dtype=nw.Float64()))
    for t in ordered:
        side = s >= t if direction == "higher" else s <= t
        chain = chain.when(side).then(nw.lit(t, dtype=nw.Float64()))
    beyond = float("-inf") if direction == "higher" else float("inf")
    return chain.otherwise(nw.lit(beyond, dtype=nw.Float64()))


def _count_cells(
    rows: Any,
    frame: object,
    *,
    keys: Sequence[str],
    weight: str | None,
    count: str | None,
) -> pl.DataFrame:
    """:func:`count_in_engine`'s aggregation of the engine's ``rows`` (the rows of null
    weight or count, left in, make their cell's sum null: SUM would skip them)."""
    import narwhals as nw

    if weight is None:
        if count is None:
            cells = rows.group_by(*keys, drop_null_keys=False).agg(nw.len().alias(ENGINE_COUNT))
            result = cells.collect(backend="polars").to_native()
            return result.with_columns(pl.col(ENGINE_COUNT).cast(pl.Int64))
        # Summed counts keep the count column's name, so that messages name it.
        flagged = rows.with_columns(nw.col(count).is_null().cast(nw.Int64).alias(_NULLS))
        c, totals = nw.col(count), [nw.col(count).sum()]
        if rows.collect_schema()[count].is_float():
            # A float sum loses units past 2**53: whole counts (checked before) summed as
            # integers, in two parts below 2**53 (a count of 2**63 passes the checks, and
            # cast whole it fails in DuckDB and clamps in Spark).
            high = (c / 2.0**_SPLIT).floor()
            parts = [high.alias(_HIGH), (c - high * 2.0**_SPLIT).alias(_LOW)]
            flagged = flagged.with_columns(part.cast(nw.Int64) for part in parts)
            totals = [nw.col(_HIGH, _LOW).sum()]
        cells = flagged.group_by(*keys, drop_null_keys=False).agg(*totals, nw.col(_NULLS).sum())
        result = cells.collect(backend="polars").to_native()
        if _HIGH in result.columns:
            exact = pl.col(_HIGH).cast(pl.Int128) * 2**_SPLIT + pl.col(_LOW)
            result = result.with_columns(exact.alias(count))
        n = pl.when(pl.col(_NULLS) == 0).then(pl.col(count))
        if result.select((n > MAX_TOTAL).any()).item():  # refused as Polars' exact total is
            raise too_many_rows(count, 0, int(result.get_column(count).sum()))
        return result.select(*keys, n.cast(pl.Int64).alias(count))
    if weight in keys:
        msg = (
            f"weight={weight!r} is also a score, label or `by` column; on a "
            f"{type(frame).__name__} the weights are summed per cell of those columns, so "
            "copy the column under another name for weight="
        )
        raise RocOptionError(msg)
    dtype = rows.collect_schema()[weight]
    if not dtype.is_numeric():
        msg = f"weight column {weight!r} must be numeric, got dtype {dtype}"
        raise RocInputError(msg)
    w = nw.col(weight)
    # The flags are columns before the GROUP BY, so that every aggregation is a plain
    # sum or min: some engines (narwhals' Dask) aggregate nothing more complex.
    columns = [
        (w > 0).cast(nw.Int64).alias(ENGINE_UNITS),
        w.is_null().cast(nw.Int64).alias(_NULLS),
    ]
    aggs = [w.sum().alias(_SUM), nw.col(ENGINE_UNITS, _NULLS).sum(), w.min().alias(_LOWEST)]
    # Float weights summed exactly by block (the same bits whatever the engine's threads
    # do); Dask has no decimals, and adds its partitions in their order.
    exact = dtype.is_float() and not rows.implementation.is_dask()
    group = [*keys, _EXACT + BLOCK] if exact else keys
    rows = rows.with_columns(*columns)
    if exact:
        rows = split(nw, rows, {_EXACT: w.cast(nw.Float64)})
        aggs.append(nw.col(_EXACT).sum())
    result = (
        rows.group_by(*group, drop_null_keys=False).agg(*aggs).collect(backend="polars").to_native()
    )
    weight_sum = pl.col(_SUM).cast(pl.Float64)
    if exact:  # the plain sum only says where a weight is not finite
        added = [pl.col(_SUM, ENGINE_UNITS, _NULLS).sum(), pl.col(_LOWEST).min()]
        sums = {_EXACT: _EXACT + BLOCK}  # a cell's terms: its rows of positive weight
        result = block_sums(result, keys, sums, added, terms=ENGINE_UNITS).collect()
        weight_sum = pl.when(weight_sum.is_finite()).then(pl.col(_EXACT)).otherwise(weight_sum)
    return result.select(
        *keys,
        pl.when(pl.col(_NULLS) > 0)
        .then(None)
        .when(pl.col(_LOWEST) < 0)
        .then(-1.0)
        .otherwise(weight_sum)
        .alias(weight),
        pl.col(ENGINE_UNITS).cast(pl.Int64),
    )


def native_frame(frame: object) -> Any:
    """``frame`` as a narwhals frame, or a TypeError naming what was given."""
    import narwhals as nw  # installed with altair; imported only for other engines

    try:
        return nw.from_native(cast(Any, frame))
    except TypeError:
        msg = (
            "expected a frame of an engine narwhals supports (DuckDB, PySpark, Dask, Ibis, "
            f"pandas ...) or a polars DataFrame or LazyFrame, got {type(frame).__name__}"
        )
        raise TypeError(msg) from None


def ranks_in_windows(frame: object) -> bool:
    """Whether the engine of ``frame`` ranks within partitions (``rank().over()``).

    The buckets cut in the engine (:mod:`polars_roc.core.engine_ranks`,
    :mod:`polars_roc.core.buckets`: the exact AUC, ``bins=``, long curves) need
    windows per group; narwhals' Dask and PyArrow backends have none, and their frames
    are counted by the ``GROUP BY`` of :func:`count_in_engine` instead (exact too, one
    cell per distinct score). Asked of an empty frame: the backend refuses the
    expression when it is built, before any row is read.
    """
    import narwhals as nw  # installed with altair; imported only for other engines

    native = native_frame(frame).lazy()
    names = native.collect_schema().names()
    if not names:
        return True  # no column: the column checks that follow say what is missing
    try:
        native.head(0).select(nw.col(names[0]).rank("average").over(names[0]))
    except NotImplementedError:
        return False
    return True
