"""Data helpers shared by the chart modules (no Altair here): collecting a frame,
checking the ``color``/``facet`` roles, group order, JSON records, text safe for Vega.

Their own module so that the chart modules import them without importing each other.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import polars as pl

Frame = pl.DataFrame | pl.LazyFrame

__all__ = [
    "check_roles",
    "collect_frame",
    "group_order",
    "joined",
    "json_records",
    "segment_roles",
    "shown_text",
    "tooltip_title",
]

# User column names are never Vega field names: Vega reads "a.b" and "a[0]" there as paths,
# and Vega-Lite copies field names into expressions, where no escaping of U+2028 serves
# both. The charts draw internal fields and show column names as titles only.
#
# Vega-Lite writes sort orders (as JSON) and tooltip titles (between double quotes, only
# the quote escaped) into Vega expressions, a JavaScript dialect whose string literals end
# at a line terminator and read a backslash as an escape.
LINE_SEPARATORS = {"\u2028": "\\u2028", "\u2029": "\\u2029"}
_STRING_ESCAPES = str.maketrans({"\\": "\\\\", "\n": "\\n", "\r": "\\r", **LINE_SEPARATORS})


def shown_text(text: pl.Expr) -> pl.Expr:
    """Group values as chart text (legend, header, axis): U+2028 and U+2029 as the text
    ``\\u2028`` and ``\\u2029``. They are the only characters that JSON leaves as they
    are and a Vega expression cannot hold, and the values shown are also the sort orders
    that Vega-Lite writes into expressions."""
    return text.cast(pl.String).str.replace_many(LINE_SEPARATORS)


def tooltip_title(name: str) -> str:
    """A column name escaped for the string literal Vega-Lite writes a tooltip title into,
    so that the tooltip shows it as it is (backslashes, line breaks included)."""
    return name.translate(_STRING_ESCAPES)


def collect_frame(frame: Frame, role: str) -> pl.DataFrame:
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame
    msg = f"`{role}` must be a polars DataFrame or LazyFrame, got {type(frame).__name__}"
    raise TypeError(msg)


def check_roles(
    frame: pl.DataFrame,
    values: frozenset[str] | set[str],
    color: str | None,
    facet: str | None,
    columns: int | None,
    role: str,
) -> tuple[str | None, str | None]:
    """Check ``color``/``facet``; a lone unnamed group column becomes the color."""
    for name, value in (("color", color), ("facet", facet)):
        if value is not None and not isinstance(value, str):
            msg = f"`{name}` must be a column name (str) or None, got {value!r}"
            raise TypeError(msg)
        if value is not None and value not in frame.columns:
            msg = f"`{name}` column {value!r} is not in `{role}`; its columns are {frame.columns!r}"
            raise ValueError(msg)
        if value is not None and value in values:
            groups = [c for c in frame.columns if c not in values]
            msg = (
                f"`{name}` must name a group column of `{role}` ({groups!r}), not its "
                f"value column {value!r}"
            )
            raise ValueError(msg)
    if color is not None and color == facet:
        msg = f"`color` and `facet` name the same column {color!r}; give them different columns"
        raise ValueError(msg)
    if columns is not None:
        if facet is None:
            msg = (
                "`columns` wraps the panels of a facet; pass `facet=` too "
                f"(got columns={columns!r})"
            )
            raise ValueError(msg)
        if isinstance(columns, bool) or not isinstance(columns, Integral) or columns < 1:
            msg = f"`columns` must be a positive integer, got {columns!r}"
            raise ValueError(msg)
    unnamed = [c for c in frame.columns if c not in values and c not in (color, facet)]
    if len(unnamed) == 1 and color is None and facet is None:
        return unnamed[0], None
    if unnamed:
        msg = (
            f"`{role}` has group column(s) {unnamed!r} not shown by `color=` or `facet=`; "
            "name each group column in one of them, or filter/drop the extra groups first"
        )
        raise ValueError(msg)
    return color, facet


def segment_roles(by: list[str]) -> tuple[pl.Expr | None, str | None, str | None]:
    """``(joined, facet, color)``: panels by the first group column, colors by the second.

    Three or more columns are joined into one label, ``"a / b / c"`` (nulls as "null"):
    ``joined`` is that column, to add to the frame, and it is the facet. The layout of
    the report, and of :func:`polars_roc.charts.plot` when neither ``color`` nor
    ``facet`` is given.
    """
    if len(by) > 2:
        return joined(by), " / ".join(by), None
    return None, by[0] if by else None, by[1] if len(by) == 2 else None


def joined(columns: list[str], name: str | None = None) -> pl.Expr:
    """One label of several group columns, ``"a / b"`` (nulls as "null"), named ``name``
    or after the columns, ``"col1 / col2"``."""
    parts = [pl.col(c).cast(pl.String).fill_null("null") for c in columns]
    return pl.concat_str(parts, separator=" / ").alias(name or " / ".join(columns))


def group_order(labels: pl.DataFrame, field: str) -> list[str] | None:
    """Labels in group order (the frame's order), for legend and facet sorting."""
    if field not in labels.columns:
        return None
    return labels.get_column(field).unique(maintain_order=True).to_list()


def json_records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-ready dicts, leaving out null fields (they only cost bytes)."""
    return [{k: v for k, v in row.items() if v is not None} for row in frame.iter_rows(named=True)]
