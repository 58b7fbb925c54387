"""What every section of the report shares: HTML tables (cells, small tables, tables cut
to their first rows with the whole table as a CSV download), chart places and layout."""

from __future__ import annotations

import html
from typing import Any

import polars as pl

PANELS_PER_ROW = 3
# The fewest points a drawn curve keeps, whatever the number of curves.
MIN_POINTS_PER_CURVE = 60

# A section of the page: its charts, its tables (in full) and its HTML blocks.
Sections = tuple[dict[str, Any], dict[str, pl.DataFrame], list[str]]

# Said under a table holding n/a cells: what makes a number undefined there.
NA_NOTE = (
    "not defined for that row: a ratio whose denominator is zero (tpr, fnr and the "
    "AUC need positives; fpr, tnr and the AUC need negatives; ppv needs predicted "
    "positives, npv predicted negatives), DeLong's standard error, which needs two rows "
    "of each class, or the Youden threshold (and its counts), which needs both classes."
)

# Columns holding p-values: below 1e-4 they read "< 1e-4", not a misleading 0.0000.
P_VALUES = ("p_value", "p_adjusted")


def chart_slot(name: str) -> str:
    """Where the page draws chart ``name``, from its JSON block ``spec-{name}``."""
    return f'<div class="chart" data-chart="spec-{name}"></div>'


def _cell(value: Any, dtype: pl.DataType, column: str) -> str:
    if value is None:
        return "<td class='num'>n/a</td>" if dtype.is_numeric() else "<td>null</td>"
    if dtype.is_float():
        text = (
            f"{value:,.2f}"
            if column in ("rows", "n_pos", "n_neg", "tp", "fp", "fn", "tn")
            else "&lt; 1e-4"
            if column in P_VALUES and value < 1e-4
            else f"{value:.4f}"
        )
        return f"<td class='num'>{text}</td>"
    if dtype.is_integer():
        return f"<td class='num'>{value:,}</td>"
    text = str(value)
    # A single token (a date, a code) is not broken at its hyphens.
    nowrap = " class='nowrap'" if not any(c.isspace() for c in text) else ""
    return f"<td{nowrap}>{html.escape(text)}</td>"


def _table(frame: pl.DataFrame) -> str:
    """A small result frame (one row per segment) as an HTML table (scrolls if wide)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    dtypes = frame.dtypes
    body = "".join(
        "<tr>" + "".join(_cell(v, d, c) for v, d, c in zip(row, dtypes, frame.columns)) + "</tr>"
        for row in frame.iter_rows()
    )
    undefined = [
        c
        for c, d in zip(frame.columns, dtypes, strict=True)
        if d.is_numeric() and frame.get_column(c).null_count()
    ]
    note = (
        f"<p class='note'>n/a (in {html.escape(', '.join(undefined))}): {NA_NOTE}</p>"
        if undefined
        else ""
    )
    return (
        f'<div class="wide"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>{note}"
    )


# Past this many segments the trend chart shows the whole log only (one line per segment
# would be unreadable), and tables show their first rows with the full table downloadable.
TREND_SEGMENTS_MAX = 12
TABLE_ROWS_MAX = 25


def lines_over_time(
    log: pl.DataFrame, options: dict[str, Any], see: str
) -> tuple[str | None, str | None, str]:
    """A chart over periods: the segment column (the first ``by``), the one it draws a
    line per value of (none past ``TREND_SEGMENTS_MAX`` values: the whole log's line),
    and the words for what it draws (``see``: where the segments are told instead)."""
    segment = (options["by"] or [None])[0]
    n_segments = log.select(pl.col(segment).n_unique()).item() if segment else 1
    drawn_by = segment if segment and n_segments <= TREND_SEGMENTS_MAX else None
    scope = (
        f"one line per {html.escape(segment)}"
        if drawn_by
        else (f"the whole log ({n_segments:,} segments: see the {see})" if segment else "the log")
    )
    return segment, drawn_by, scope


def _csv_download(frame: pl.DataFrame, name: str, what: str = "the full table") -> str:
    """A link that saves ``frame`` as CSV from a data URI (the page stays offline); floats
    keep 6 significant digits, and a CSV of numbers needs little percent-encoding."""
    from urllib.parse import quote

    rounded = frame.with_columns(pl.col(pl.Float32, pl.Float64).round_sig_figs(6))
    data = quote(rounded.write_csv(), safe=",.:;-_/+=()[]*~")
    return (
        f'<p><a download="{html.escape(name)}.csv" href="data:text/csv;charset=utf-8,{data}">'
        f"Download {html.escape(what)} ({frame.height:,} rows, CSV)</a></p>"
    )


def _cut_table(frame: pl.DataFrame, name: str, rows: int = TABLE_ROWS_MAX) -> str:
    """The first ``rows`` rows as HTML, and the whole frame as a CSV download when cut."""
    if frame.height <= rows:
        return _table(frame)
    note = f"<p>First {rows} of {frame.height:,} rows.</p>"
    return note + _table(frame.head(rows)) + _csv_download(frame, name)


def in_order(frame: pl.DataFrame, groups: list[str]) -> pl.DataFrame:
    """Rows by segment (stable: a curve keeps its point order), so that charts, which
    order legends and panels as the rows come, list months in time order."""
    return frame.sort(groups, nulls_last=True, maintain_order=True) if groups else frame
