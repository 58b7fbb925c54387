"""The few Polars calls that differ between Polars 2 and Polars 1.x (>= 1.35).

Each is detected from the Polars API itself, not from its version number. On Polars 2
the library calls Polars 2's own expression, unchanged (same plan, same speed); on 1.x
it builds an expression that gives the same numbers (docs/how-it-works.md lists them;
docs/conventions.md the one rule that differs: when a non-numeric input is refused).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, get_args

import numpy as np
import polars as pl
from polars._typing import ConcatMethod
from polars.io.scan_options import cast_options

__all__ = [
    "POLARS_2",
    "SCAN_INTEGER_CAST",
    "SIDE_BY_SIDE",
    "bits_as_float",
    "explode",
    "explode_values",
    "float_as_bits",
    "format_text",
    "lag",
    "map_frame",
    "partition_by_key",
]

# Polars 2, detected by `Expr.pipe_with_dtype` (new in 2.0); it also marks the Polars 2
# behaviours that have no API of their own to detect (a bug, a default).
POLARS_2 = hasattr(pl.Expr, "pipe_with_dtype")

# Polars 2's scans may read a file's integers into a float column ("allow-float"); Polars
# 1.x's only widen integers to wider integers.
SCAN_INTEGER_CAST: Any = (
    ["upcast", "allow-float"] if hasattr(cast_options, "IntegerCastOption") else "upcast"
)

# `pl.concat(frames, how=SIDE_BY_SIDE)`: frames of equal heights side by side. Polars
# 1.42 to 1.x warn at "horizontal" (Polars 2 requires equal heights there) and keep
# their behaviour as "horizontal_extend", which 1.35 does not have.
SIDE_BY_SIDE: Any = (
    "horizontal_extend"
    if not POLARS_2 and "horizontal_extend" in get_args(ConcatMethod)
    else "horizontal"
)

# Polars 2 reinterprets Float64 as Int64 and back (`reinterpret(dtype=)`); Polars 1.x only
# between the 64-bit integers (`reinterpret(signed=)`).
_REINTERPRET_FLOATS = "dtype" in inspect.signature(pl.Expr.reinterpret).parameters


# Polars 2 drops the row of an empty list when it explodes one; 1.x gives it a null row.
_EMPTY_AS_NULL = "empty_as_null" in inspect.signature(pl.Expr.explode).parameters


def explode(frame: pl.LazyFrame, columns: list[str]) -> pl.LazyFrame:
    """``frame.explode(columns)``, Polars 2's way: an empty list gives no row (a null
    list still gives a null row); ``columns`` hold lists of equal lengths."""
    if _EMPTY_AS_NULL:
        return frame.explode(columns, empty_as_null=False)
    return frame.filter(pl.col(columns[0]).list.len().ne_missing(0)).explode(columns)


def explode_values(values: pl.Expr) -> pl.Expr:
    """``values.explode()`` of lists that are never empty, without 1.4x's warning."""
    return values.explode(empty_as_null=False) if _EMPTY_AS_NULL else values.explode()


def _numpy_view(series: pl.Series, dtype: type[np.generic]) -> pl.Series:
    """``series``'s 64-bit values read as ``dtype``, nulls kept."""
    values = pl.Series(series.name, series.fill_null(0).to_numpy().view(dtype))
    if series.has_nulls():
        return values.scatter(series.is_null().arg_true(), None)
    return values


def float_as_bits(values: pl.Expr) -> pl.Expr:
    """The Int64 holding the IEEE-754 bits of each Float64 value."""
    if _REINTERPRET_FLOATS:
        return values.reinterpret(dtype=pl.Int64)
    # One numpy view of the whole column (never a Python call per row or per group).
    view = partial(_numpy_view, dtype=np.int64)
    return values.map_batches(view, return_dtype=pl.Int64, is_elementwise=True)


def bits_as_float(bits: pl.Expr) -> pl.Expr:
    """The Float64 whose IEEE-754 bits each Int64 value holds: :func:`float_as_bits`
    inverted."""
    if _REINTERPRET_FLOATS:
        return bits.reinterpret(dtype=pl.Float64)
    view = partial(_numpy_view, dtype=np.float64)
    return bits.map_batches(view, return_dtype=pl.Float64, is_elementwise=True)


def lag(values: pl.Expr, n: int = 1, *, fill_value: Any = None) -> pl.Expr:
    """``values.shift(n, fill_value=fill_value)`` for ``n >= 1``: each row gets the value
    ``n`` rows before it (its ``diff()`` is ``values - lag(values)``).

    Polars 1.x's streaming engine shifts only the first piece of the rows when the same
    ``select`` holds a broadcast scalar (``sum()``, ``pl.len()``); a rechunk of the
    shifted column, an identity, gives the in-memory answer (tests/test_streaming.py).
    """
    shifted = values.shift(n, fill_value=fill_value)
    if POLARS_2:
        return shifted
    with warnings.catch_warnings():  # 1.4x: `Expr.rechunk` is gone in Polars 2
        warnings.simplefilter("ignore", DeprecationWarning)
        return shifted.rechunk()  # type: ignore[attr-defined]  # (Polars 1.x only)


def map_frame(
    frame: pl.LazyFrame,
    function: Callable[[pl.DataFrame], pl.DataFrame],
    *,
    schema: Mapping[str, Any],
) -> pl.LazyFrame:
    """``frame.map_batches(function, schema=schema)`` with nothing pushed into it (Polars
    1.x's defaults pruned the columns it reads but does not return)."""
    return frame.map_batches(
        function,
        schema=schema,
        predicate_pushdown=False,
        projection_pushdown=False,
        slice_pushdown=False,
    )


def format_text(template: str, *values: pl.Expr) -> pl.Expr:
    """``pl.format(template, *values)``: ``values`` in the ``{}`` of ``template``, null
    where one is null. Polars 1.x's ``pl.format`` panics on columns of several chunks
    (1.35.2: "assertion failed: i < self.len()"); its ``concat_str`` writes the same text."""
    if POLARS_2:
        return pl.format(template, *values)
    texts = template.split("{}")
    pieces = [pl.lit(texts[0])]
    for value, text in zip(values, texts[1:]):
        pieces += [value, pl.lit(text)]
    return pl.concat_str(pieces)


def partition_by_key(folder: str, key: str) -> Any:
    """The ``path`` of ``sink_ipc`` that writes each value ``v`` of column ``key`` to
    one file in ``folder/key=v/``, the rows in the frame's order, ``key`` left out:
    Polars 2's ``pl.PartitionBy`` (one file however large), 1.x's ``pl.PartitionByKey``."""
    if hasattr(pl, "PartitionBy"):
        return pl.PartitionBy(folder, key=key, include_key=False, approximate_bytes_per_file=None)
    return pl.PartitionByKey(folder, by=key, include_key=False)  # type: ignore[attr-defined]
