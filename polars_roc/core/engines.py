"""Counting where the rows live: frames of other engines (DuckDB, Spark, Dask, Ibis ...).

A frame that is not Polars is handed to narwhals, which speaks each engine's own
language. The engine runs one ``GROUP BY [*by, score(s), label]`` counting the rows (or
summing ``count=``); only that count table comes back, as a Polars DataFrame, and the
rest of the library works on it exactly as on any count table (``count=``): every
result equals the one on the engine's rows. The checks of the values (nulls, NaN,
labels) then run on the count table, so their messages count cells, not rows.

With ``weight=``, each cell brings the sum of its rows' weights and the number of its
rows of positive weight (what the bootstrap resamples: the Polars path draws rows of a
score with the mean weight of the score's rows of that class, so the two agree draw for
draw). Null, negative and non-finite weights are carried so the usual checks refuse them
(counting cells, not rows).

Scores that repeat (rounded probabilities, scorecards) make small tables; continuous
scores make one cell per row, and the table comes back as large as the rows' columns.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any, Literal, cast

import polars as pl
from polars.exceptions import ColumnNotFoundError

from polars_roc.exceptions import RocInputError, RocOptionError

__all__ = [
    "ENGINE_COUNT",
    "ENGINE_UNITS",
    "check_engine_columns",
    "count_in_engine",
    "is_polars",
    "native_frame",
    "ranks_in_windows",
]

# The count column of a table counted by an engine.
ENGINE_COUNT = "__roc_n"
# With weight=: a cell's rows of positive weight (its weight sum keeps the weight's name).
ENGINE_UNITS = "__roc_units"
_SUM, _NULLS, _LOWEST = "__roc_w", "__roc_w_nulls", "__roc_w_min"


def is_polars(frame: object) -> bool:
    return isinstance(frame, (pl.DataFrame, pl.LazyFrame))


def count_in_engine(
    frame: object,
    *,
    keys: Sequence[str],
    weight: str | None,
    count: str | None,
    nulls: Literal["raise", "drop"] = "raise",
) -> pl.DataFrame:
    """The count table ``[*keys, ENGINE_COUNT]`` of a non-Polars frame, counted in its engine.

    ``keys`` are the columns that define a cell (segments, score(s), label). ``count``
    rows are summed. With ``weight``, the table is ``[*keys, weight, ENGINE_UNITS]``
    instead, the weight sum keeping the weight's name (so that messages name the user's
    column): the cell's weight sum (null where a row's weight is null, -1.0 where one
    is negative, so that the value checks refuse them) and its rows of positive weight.
    """
    import narwhals as nw  # installed with altair; imported only for other engines

    native = native_frame(frame)
    check_engine_columns(native, frame, [*keys, *(c for c in (count, weight) if c is not None)])
    cells: Any = native.lazy().group_by(*keys, drop_null_keys=False)
    if weight is None:
        n = nw.col(count).sum() if count is not None else nw.len()
        result = cells.agg(n.alias(ENGINE_COUNT)).collect(backend="polars").to_native()
        return result.with_columns(pl.col(ENGINE_COUNT).cast(pl.Int64))
    if weight in keys:
        msg = (
            f"weight={weight!r} is also a score, label or `by` column; on a "
            f"{type(frame).__name__} the weights are summed per cell of those columns, so "
            "copy the column under another name for weight="
        )
        raise RocOptionError(msg)
    dtype = native.collect_schema()[weight]
    if not dtype.is_numeric():
        msg = f"weight column {weight!r} must be numeric, got dtype {dtype}"
        raise RocInputError(msg)
    w = nw.col(weight)
    # The flags are columns before the GROUP BY, so that every aggregation is a plain
    # sum or min: some engines (narwhals' Dask) aggregate nothing more complex.
    flags = native.lazy().with_columns(
        (w > 0).cast(nw.Int64).alias(ENGINE_UNITS), w.is_null().cast(nw.Int64).alias(_NULLS)
    )
    result = (
        flags.group_by(*keys, drop_null_keys=False)
        .agg(
            w.sum().alias(_SUM),
            nw.col(ENGINE_UNITS).sum(),
            nw.col(_NULLS).sum(),
            w.min().alias(_LOWEST),
        )
        .collect(backend="polars")
        .to_native()
    )
    weight_sum = pl.col(_SUM).cast(pl.Float64)
    return result.select(
        *keys,
        # nulls="drop" leaves out the rows of null weight: the sum of the others.
        pl.when((pl.col(_NULLS) > 0) & (nulls == "raise"))
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

    The exact bucketed AUC (:mod:`polars_roc.core.engine_auc`) needs it; narwhals' Dask
    and PyArrow backends have no such window, and their frames are counted by the
    ``GROUP BY`` of :func:`count_in_engine` instead (exact too, one cell per distinct
    score). Asked of an empty frame: the backend refuses the expression when it is
    built, before any row is read.
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


def check_engine_columns(native: Any, frame: object, columns: Sequence[str]) -> None:
    """Refuse a column missing from the engine's frame, with the likely names."""
    names = native.collect_schema().names()
    for name in columns:
        if name not in names:
            hint = difflib.get_close_matches(name, names, n=3)
            msg = f"column {name!r} not found in the {type(frame).__name__}"
            msg += f"; did you mean one of {hint!r}?" if hint else f"; its columns: {names!r}"
            raise ColumnNotFoundError(msg)
