"""The chart of averaged curves with their bands."""

from __future__ import annotations

from typing import Literal

import altair as alt
import polars as pl

from polars_roc.charts.data import check_roles as _roles
from polars_roc.charts.data import group_order as _order
from polars_roc.charts.layers import (
    CURVE,
    ROC_X_TITLE,
    ROC_Y_TITLE,
    Frame,
    _assemble,
    _attach,
    _chance_layer,
    _color,
    _coordinate,
    _group_tooltips,
    _label_fields,
    _labels,
    _panels,
    _require,
    _rows,
    _short_text,
    _unit_scale,
)
from polars_roc.core.compat import format_text
from polars_roc.evaluation.averaging import AVERAGE_COLUMNS

AVERAGE_VALUE_COLUMNS = frozenset({"threshold", *AVERAGE_COLUMNS})


def average_chart(
    average: Frame,
    *,
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """The mean ROC curve of :func:`polars_roc.average_curve` with its band.

    The mean curve is a line over a shaded band from ``tpr_lower`` to ``tpr_upper`` at
    each false-positive rate. A threshold-averaged frame also has ``fpr_lower`` and
    ``fpr_upper``: its band spreads sideways too (a second, horizontal band), since
    both rates vary across folds at a fixed threshold. Axes, scales and the chance
    diagonal are those of :func:`roc_chart`; the legend or header gives the number of
    curves averaged.

    Parameters
    ----------
    average
        The frame of :func:`polars_roc.average_curve` (eager or lazy), vertical
        (``[*by, fpr, tpr, tpr_std, tpr_lower, tpr_upper, n_curves]``) or threshold
        averaging (also ``threshold, fpr_std, fpr_lower, fpr_upper``).
    color, facet, columns
        As in :func:`roc_chart`: ``color`` and ``facet`` name the ``by`` columns.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Layers: the chance diagonal, the band(s), the mean curves; faceted last when
        ``facet`` is given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> preds = pl.DataFrame({
    ...     "fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...     "score": [0.9, 0.4, 0.6, 0.1, 0.8, 0.3, 0.2, 0.7],
    ...     "label": [1, 1, 0, 0, 1, 0, 1, 0],
    ... })
    >>> spec = pr.average_chart(pr.average_curve(preds, grid=3)).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'area', 'line']
    >>> spec["layer"][2]["encoding"]["color"]["sort"]
    ['mean of 2 curves']
    """
    full = _require(
        average,
        ["fpr", "tpr", "tpr_lower", "tpr_upper", "n_curves"],
        "average",
        "pass the frame of average_curve(...)",
    )
    by_threshold = "threshold" in full.columns
    if by_threshold:
        _require(
            full,
            ["fpr_lower", "fpr_upper"],
            "average",
            "a threshold-averaged frame of average_curve(...) has them",
        )
    color, facet = _roles(full, AVERAGE_VALUE_COLUMNS, color, facet, columns, "average")
    groups = [g for g in (facet, color) if g is not None]
    n = pl.col("n_curves").max().alias("n")
    summary = full.group_by(groups, maintain_order=True).agg(n) if groups else full.select(n)
    # The number of curves goes where a curve is named once: legend, or panel header.
    count = format_text("mean of {} curves", pl.col("n").fill_null(0))
    labels = _labels(summary, color, facet, count)
    label_fields = _label_fields(labels)
    rates = ["fpr", "tpr", "tpr_lower", "tpr_upper"]
    if by_threshold:
        rates += ["fpr_lower", "fpr_upper"]
    drawn = _attach(full, labels, groups).select(
        *label_fields,
        *([_short_text("threshold")] if by_threshold else []),
        *(_coordinate(c) for c in rates),
        "n_curves",
    )
    drawn = drawn.with_row_index("_seq")
    panels = _panels(labels, facet)
    channels = _color(labels, color)
    tooltip = _group_tooltips(labels, color)
    tooltip += [alt.Tooltip("threshold:N", title="threshold (score >=)")] if by_threshold else []
    tooltip += [alt.Tooltip(f"{c}:Q", format=".4f") for c in rates]
    tooltip += [alt.Tooltip("n_curves:Q", title="curves averaged")]

    if channels:  # the legend shows the mean curves' lines, not the pale bands
        legend = alt.Legend(
            title=color, labelLimit=0, symbolType="stroke", symbolStrokeWidth=2, symbolOpacity=1
        )
        channels = {"color": alt.Color(f"{CURVE}:N", sort=_order(labels, CURVE), legend=legend)}

    def band(orient: Literal["vertical", "horizontal"]) -> alt.Chart:
        ends = (
            {
                "x": alt.X("fpr:Q", scale=_unit_scale()),
                "y": alt.Y("tpr_lower:Q", scale=_unit_scale()),
                "y2": alt.Y2("tpr_upper:Q"),
            }
            if orient == "vertical"
            else {
                "y": alt.Y("tpr:Q", scale=_unit_scale()),
                "x": alt.X("fpr_lower:Q", scale=_unit_scale()),
                "x2": alt.X2("fpr_upper:Q"),
            }
        )
        return (
            _rows(None)
            # No `order` channel: an area is drawn along its x (vertical) or y
            # (horizontal) field, and Vega-Lite would take `order` for a stack order.
            .mark_area(opacity=0.2, orient=orient)
            .encode(**ends, **channels)
        )

    mean = (
        _rows(None)
        .mark_line(strokeWidth=2)
        .encode(
            x=alt.X("fpr:Q", scale=_unit_scale(), axis=alt.Axis(title=ROC_X_TITLE)),
            y=alt.Y("tpr:Q", scale=_unit_scale(), axis=alt.Axis(title=ROC_Y_TITLE)),
            order=alt.Order("_seq:Q"),
            tooltip=tooltip,
            **channels,
        )
    )
    bands = [band("vertical"), band("horizontal")] if by_threshold else [band("vertical")]
    return _assemble([_chance_layer(), *bands, mean], [panels, drawn], labels, facet, columns)
