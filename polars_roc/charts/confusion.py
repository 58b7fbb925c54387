"""The confusion chart: one 2 x 2 panel per segment and threshold."""

from __future__ import annotations

import altair as alt
import polars as pl

from polars_roc.charts.data import json_records as _records
from polars_roc.charts.layers import PANEL, Frame, _as_text, _faceted, _format3, _require
from polars_roc.core.compat import format_text
from polars_roc.core.measures import ratio

CONFUSION_FACET_COLUMNS = 5  # confusion panels are 180 px


def confusion_chart(
    confusion: Frame, *, facet: str | None = None, columns: int | None = None
) -> alt.LayerChart | alt.FacetChart:
    """The 2x2 confusion matrix at one threshold as a heat map, one panel per group.

    Columns are the actual class, rows the predicted class (``score >= threshold`` is
    predicted positive). Each cell shows its count and its rate within the actual class
    (tpr, fnr, fpr, tnr); the rate shades it, blue for the correct cells and red for the
    errors (field ``shade``: the rate, negated for the errors; docs/report.md).

    Parameters
    ----------
    confusion
        Rows of :func:`polars_roc.confusion_matrix` (eager or lazy), one per group: at
        least ``threshold, tp, fp, fn, tn``.
    facet
        The group column giving one panel per value (its header shows the threshold).
        Without it the frame must hold one row.
    columns
        Panels per row of the facet (default 5, ``CONFUSION_FACET_COLUMNS``: the panels
        wrap into rows about 1,200 px wide).

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        A rect layer and a text layer, faceted last when ``facet`` is given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.3], "label": [1, 0, 1, 0]})
    >>> spec = pr.confusion_chart(pr.confusion_matrix(log, 0.75)).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rect', 'text']
    >>> sorted(row["_text"] for row in next(iter(spec["datasets"].values())))
    ['FN 1\\nfnr 0.500', 'FP 1\\nfpr 0.500', 'TN 1\\ntnr 0.500', 'TP 1\\ntpr 0.500']
    """
    rows = _require(
        confusion,
        ["threshold", "tp", "fp", "fn", "tn"],
        "confusion",
        "pass the rows of confusion_matrix(...) / df.roc.confusion(...)",
    )
    if facet is not None and not isinstance(facet, str):
        msg = f"`facet` must be a column name (str) or None, got {facet!r}"
        raise TypeError(msg)
    if facet is not None and facet not in rows.columns:
        msg = f"`facet` column {facet!r} is not in `confusion`; its columns are {rows.columns!r}"
        raise ValueError(msg)
    if columns is not None and facet is None:
        msg = f"`columns` wraps the panels of a facet; pass `facet=` too (got columns={columns!r})"
        raise ValueError(msg)
    groups = [facet] if facet else []
    per_panel = rows.group_by(groups).len() if groups else rows.select(pl.len())
    most = per_panel.get_column("len").max()
    if rows.height and most != 1:
        where = f"per {facet!r} value" if facet else "(no facet)"
        msg = (
            f"`confusion` must hold one row {where}, at one threshold, got "
            f"{most!r} rows; filter one threshold, or facet by "
            "the group column (facet=...)"
        )
        raise ValueError(msg)
    panel = []
    if facet:
        threshold = pl.col("threshold").round_sig_figs(6).cast(pl.String)
        panel = [(_as_text(facet) + pl.lit(" (threshold ") + threshold + pl.lit(")")).alias(PANEL)]
    count_is_float = rows.schema["tp"].is_float()
    cells = []
    for cell, actual, predicted, rate_name, total, correct in (
        ("tp", "positive", "positive", "tpr", ("tp", "fn"), True),
        ("fn", "positive", "negative", "fnr", ("tp", "fn"), False),
        ("fp", "negative", "positive", "fpr", ("fp", "tn"), False),
        ("tn", "negative", "negative", "tnr", ("fp", "tn"), True),
    ):  # the four cells of the matrix, not rows of data
        count = pl.col(cell)
        rate = ratio(count, pl.col(total[0]) + pl.col(total[1]))
        count_text = count.round(2).cast(pl.String) if count_is_float else count.cast(pl.String)
        cells.append(
            rows.select(
                *panel,
                pl.lit(actual).alias("actual"),
                pl.lit(predicted).alias("predicted"),
                count.cast(pl.Float64).alias("count"),
                rate.alias("rate"),
                (rate if correct else -rate).alias("shade"),
                format_text(
                    "{} {}\n{} {}",
                    pl.lit(cell.upper()),
                    count_text,
                    pl.lit(rate_name),
                    _format3(rate),
                ).alias("_text"),
            )
        )
    data = pl.concat(cells)
    axis_order = ["positive", "negative"]
    rect = (
        alt.Chart()
        .mark_rect()
        .encode(
            x=alt.X("actual:N", sort=axis_order, title="Actual class", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("predicted:N", sort=axis_order, title="Predicted class"),
            color=alt.Color(
                "shade:Q",
                scale=alt.Scale(domain=[-1, 1], scheme="redblue"),
                legend=alt.Legend(
                    title="rate within actual class",
                    labelExpr="format(abs(datum.value), '.1f') + "
                    "(datum.value < 0 ? ' wrong' : "
                    "datum.value > 0 ? ' right' : '')",
                ),
            ),
            tooltip=[
                alt.Tooltip("actual:N"),
                alt.Tooltip("predicted:N"),
                alt.Tooltip("count:Q"),
                alt.Tooltip("rate:Q", format=".4f"),
            ],
        )
    )
    text = (
        alt.Chart()
        .mark_text(lineBreak="\n", fontSize=13)
        .encode(
            x=alt.X("actual:N", sort=axis_order),
            y=alt.Y("predicted:N", sort=axis_order),
            text="_text:N",
            color=alt.condition("abs(datum.shade) > 0.5", alt.value("white"), alt.value("black")),
        )
    )
    chart = alt.layer(rect, text, data={"values": _records(data)}).properties(width=180, height=180)
    return _faceted(chart, data, facet, CONFUSION_FACET_COLUMNS if columns is None else columns)
