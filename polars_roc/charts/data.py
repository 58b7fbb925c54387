"""Data helpers shared by the chart modules (no Altair here): collecting a frame,
checking the ``color``/``facet`` roles, group order, JSON records.

Their own module so that the chart families (``charts``, ``_trend_chart``, ...) import
them without importing each other.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import polars as pl

Frame = pl.DataFrame | pl.LazyFrame

__all__ = ["check_roles", "collect_frame", "group_order", "json_records"]


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


def group_order(labels: pl.DataFrame, field: str) -> list[str] | None:
    """Labels in group order (the frame's order), for legend and facet sorting."""
    if field not in labels.columns:
        return None
    return labels.get_column(field).unique(maintain_order=True).to_list()


def json_records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-ready dicts, leaving out null fields (they only cost bytes)."""
    return [{k: v for k, v in row.items() if v is not None} for row in frame.iter_rows(named=True)]
