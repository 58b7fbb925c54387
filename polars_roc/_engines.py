"""Counting where the rows live: frames of other engines (DuckDB, Spark, Dask, Ibis ...).

A frame that is not Polars is handed to narwhals, which speaks each engine's own
language. The engine runs one ``GROUP BY [*by, score(s), label]`` counting the rows (or
summing ``count=``); only that count table comes back, as a Polars DataFrame, and the
rest of the library works on it exactly as on any count table (``count=``): every
result equals the one on the engine's rows. The checks of the values (nulls, NaN,
labels) then run on the count table, so their messages count cells, not rows.

Scores that repeat (rounded probabilities, scorecards) make small tables; continuous
scores make one cell per row, and the table comes back as large as the rows' columns.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import polars as pl
from polars.exceptions import ColumnNotFoundError

from polars_roc.exceptions import RocOptionError

__all__ = ["ENGINE_COUNT", "count_in_engine", "is_polars"]

# The count column of a table counted by an engine.
ENGINE_COUNT = "__roc_n"


def is_polars(frame: object) -> bool:
    return isinstance(frame, (pl.DataFrame, pl.LazyFrame))


def count_in_engine(
    frame: object,
    *,
    keys: Sequence[str],
    weight: str | None,
    count: str | None,
) -> pl.DataFrame:
    """The count table ``[*keys, ENGINE_COUNT]`` of a non-Polars frame, counted in its engine.

    ``keys`` are the columns that define a cell (segments, score(s), label). ``count``
    rows are summed; ``weight`` is refused (a weight sum per cell loses the number of
    rows the bootstrap resamples).
    """
    import narwhals as nw  # installed with altair; imported only for other engines

    try:
        native = nw.from_native(frame)
    except TypeError:
        msg = (
            "expected a frame of an engine narwhals supports (DuckDB, PySpark, Dask, Ibis, "
            f"pandas ...) or a polars DataFrame or LazyFrame, got {type(frame).__name__}"
        )
        raise TypeError(msg) from None
    if weight is not None:
        msg = (
            f"weight={weight!r} is not supported on a {type(frame).__name__} yet; run the "
            "GROUP BY in the engine yourself with sum(weight) per (segment, score, label) "
            "cell and pass the result with weight=, or pass frequencies as count="
        )
        raise RocOptionError(msg)
    names = native.collect_schema().names()
    for name in (*keys, *([count] if count else [])):
        if name not in names:
            hint = difflib.get_close_matches(name, names, n=3)
            msg = f"column {name!r} not found in the {type(frame).__name__}"
            msg += f"; did you mean one of {hint!r}?" if hint else f"; its columns: {names!r}"
            raise ColumnNotFoundError(msg)
    n = nw.col(count).sum() if count is not None else nw.len()
    table: Any = native.lazy().group_by(*keys, drop_null_keys=False).agg(n.alias(ENGINE_COUNT))
    result = table.collect(backend="polars").to_native()
    return result.with_columns(pl.col(ENGINE_COUNT).cast(pl.Int64))
