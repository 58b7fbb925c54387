"""The disparity chart: each group's rate, or its gap to the reference, per measure."""

from __future__ import annotations

from typing import Literal

import altair as alt
import polars as pl

from polars_roc.charts.data import Frame, json_records, shown_text
from polars_roc.charts.layers import PANEL, _faceted, _one_segment, _require
from polars_roc.core.arguments import check_choice

__all__ = ["disparity_chart"]

_VALUES = frozenset({"measure", "group", "value", "difference", "ratio", "ci_lower", "ci_upper"})


def disparity_chart(
    disparity: Frame,
    *,
    show: Literal["difference", "value"] = "difference",
    facet: str | None = None,
    columns: int | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """The frame of :func:`polars_roc.disparity` as an Altair dot chart.

    One row of dots per measure, one dot per group (colored by group): its gap to the
    reference (``show="difference"``, with a rule at 0 and, when the frame has
    ``ci_lower``/``ci_upper``, the interval of each gap as a bar) or its rate
    (``show="value"``; the intervals are those of the gaps, so none is drawn).

    Parameters
    ----------
    disparity
        The frame of :func:`polars_roc.disparity`, eager or lazy.
    show
        ``"difference"`` (default) or ``"value"``.
    facet
        The segment column giving one panel per value; a frame with segment columns
        (``by=``) needs it. Filter the frame to draw one segment.
    columns
        Panels per row when faceted (Altair's default otherwise).

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Points (tooltips give measure, group, value, difference, ratio and the
        interval), the interval bars and, for differences, the zero rule.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.7, 0.6, 0.4, 0.8, 0.3, 0.65, 0.2],
    ...     "label": [1, 1, 0, 0, 1, 0, 1, 0],
    ...     "sex": ["f", "f", "f", "f", "m", "m", "m", "m"],
    ... })
    >>> spec = pr.disparity_chart(df.roc.disparity(0.5, group="sex", measures=["tpr"])).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'point']
    >>> rows = spec["datasets"][spec["data"]["name"]]
    >>> [(r["measure"], r["group"], r["difference"]) for r in rows]
    [('tpr', 'f', 0.0), ('tpr', 'm', 0.0)]
    """
    check_choice("show", show, ("difference", "value"))
    frame = _require(
        disparity,
        ["measure", "group", "value", "difference"],
        "disparity",
        "pass the frame of disparity(...)",
    )
    _one_segment(frame, "disparity", _VALUES, facet, "segment")
    has_ci = show == "difference" and {"ci_lower", "ci_upper"} <= set(frame.columns)
    shown = [c for c in ("value", "difference", "ratio", "ci_lower", "ci_upper") if c in frame]
    data = frame.select(
        *([shown_text(pl.col(facet)).fill_null("null").alias(PANEL)] if facet else []),
        shown_text(pl.col("measure")).alias("measure"),
        shown_text(pl.col("group")).fill_null("null").alias("group"),
        *(pl.col(c).cast(pl.Float64) for c in shown),
    )
    measures = data.get_column("measure").unique(maintain_order=True).to_list()
    groups = data.get_column("group").unique(maintain_order=True).to_list()
    title = "gap to the reference" if show == "difference" else "rate"
    y = alt.Y("measure:N", sort=measures, title=None)
    offset = alt.YOffset("group:N", sort=groups)
    color = alt.Color("group:N", sort=groups, legend=alt.Legend(title="group"))
    tooltip = [alt.Tooltip("measure:N"), alt.Tooltip("group:N")]
    tooltip += [alt.Tooltip(f"{c}:Q", format=".4f") for c in shown]
    base = alt.Chart({"values": json_records(data)})
    points = base.mark_point(filled=True, size=60).encode(
        x=alt.X(f"{show}:Q", title=title), y=y, yOffset=offset, color=color, tooltip=tooltip
    )
    layers: list[alt.Chart] = []
    if show == "difference":
        layers.append(base.mark_rule(color="gray", strokeDash=[4, 4]).encode(x=alt.datum(0)))
    if has_ci:
        layers.append(
            base.mark_rule().encode(
                x=alt.X("ci_lower:Q", title=title),
                x2="ci_upper:Q",
                y=y,
                yOffset=offset,
                color=color,
            )
        )
    chart = alt.layer(*layers, points)
    return _faceted(chart, data, facet, columns or None)
