"""DET chart: false negative rate against false positive rate on probit axes."""

from __future__ import annotations

import altair as alt
import numpy as np
import polars as pl
from scipy import special

from polars_roc.charts.data import shown_text, tooltip_title
from polars_roc.charts.layers import FACET_COLUMNS, PANEL, _faceted

__all__ = ["det_chart"]

# Tick positions of both axes, as rates; drawn at their normal deviates.
DET_TICKS = (0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999)
DET_MAX_ROWS = 5000


def det_chart(
    curve: pl.DataFrame | pl.LazyFrame,
    *,
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
) -> alt.Chart | alt.FacetChart:
    """DET curves of a :func:`polars_roc.det_curve` frame, on normal-deviate axes.

    Both axes are probit scales (the rate's standard normal quantile), labelled in
    rates; binormal scores give straight lines. Points where a rate is 0 or 1 lie at
    infinity on such an axis and are left out of the drawing.

    Parameters
    ----------
    curve
        A :func:`polars_roc.det_curve` frame (columns ``threshold, fpr, fnr``).
    color
        Optional group column drawn as one colored curve per value.
    facet, columns
        Optional group column drawn as one panel per value, ``columns`` panels a row
        (4 by default), as in :func:`polars_roc.roc_chart`; goes with ``color``.

    Returns
    -------
    altair.Chart or altair.FacetChart
        One line per curve (in its panel); tooltips give the threshold and both rates.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pr.datasets.load_credit()
    >>> chart = pr.det_chart(log.roc.det_curve(by="segment"), facet="segment", columns=3)
    >>> chart.to_dict()["facet"]["field"], chart.to_dict()["columns"]
    ('_panel', 3)
    """
    frame = curve.collect() if isinstance(curve, pl.LazyFrame) else curve
    groups = [c for c in (color, facet) if c]
    missing = sorted({"threshold", "fpr", "fnr", *groups} - set(frame.columns))
    if missing:
        msg = f"`curve` must be a det_curve() frame; columns {missing!r} are missing"
        raise ValueError(msg)
    inside = (pl.col("fpr") > 0) & (pl.col("fpr") < 1) & (pl.col("fnr") > 0) & (pl.col("fnr") < 1)
    frame = frame.filter(inside.fill_null(False))
    if frame.height > DET_MAX_ROWS:
        msg = (
            f"the DET curve has {frame.height} drawable points, more than {DET_MAX_ROWS}; "
            "pass det_curve(..., drop_intermediate=True) or fewer groups"
        )
        raise ValueError(msg)
    data = frame.select(
        *([shown_text(pl.col(color)).fill_null("null").alias("_curve")] if color else []),
        *([shown_text(pl.col(facet)).fill_null("null").alias(PANEL)] if facet else []),
        "threshold",
        "fpr",
        "fnr",
        pl.Series("x", special.ndtri(frame["fpr"].to_numpy())),
        pl.Series("y", special.ndtri(frame["fnr"].to_numpy())),
        pl.int_range(pl.len()).alias("order"),
    )
    ticks = special.ndtri(np.array(DET_TICKS)).tolist()
    label = "format(cumulativeNormal(datum.value), '.1~%')"
    axis = {"values": ticks, "labelExpr": label}
    encoding = {
        "x": alt.X("x:Q", title="false positive rate (fpr)", axis=alt.Axis(**axis)),
        "y": alt.Y("y:Q", title="false negative rate (fnr)", axis=alt.Axis(**axis)),
        "order": alt.Order("order:Q"),
        "tooltip": [
            alt.Tooltip("threshold:Q"),
            alt.Tooltip("fpr:Q", format=".4f"),
            alt.Tooltip("fnr:Q", format=".4f"),
        ],
    }
    if color:
        # The channel's title goes into the marks' description, a Vega expression.
        encoding["color"] = alt.Color(
            "_curve:N", title=tooltip_title(color), legend=alt.Legend(title=color)
        )
    chart = alt.Chart(data).mark_line(point=True).encode(**encoding)
    return _faceted(chart, data, facet, FACET_COLUMNS if columns is None else columns)
