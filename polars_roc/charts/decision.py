"""The decision-curve chart: net benefit against the risk threshold."""

from __future__ import annotations

import altair as alt
import polars as pl

from polars_roc.charts.data import Frame, json_records, shown_text
from polars_roc.charts.layers import PANEL, _faceted, _one_segment, _require

__all__ = ["decision_chart"]

# The three strategies, in legend order, and the column each is read from.
STRATEGIES = {
    "model": "net_benefit",
    "treat all": "net_benefit_all",
    "treat none": "net_benefit_none",
}
_VALUES = frozenset({"threshold", *STRATEGIES.values()})


def decision_chart(
    curve: Frame, *, facet: str | None = None, columns: int | None = None
) -> alt.Chart | alt.FacetChart:
    """Decision curves of a :func:`polars_roc.decision_curve` frame as an Altair chart.

    One line per strategy (``"model"``, ``"treat all"``, ``"treat none"``) of net
    benefit against the risk threshold. The y axis runs from a quarter of the highest
    net benefit below zero to the highest (drawn lines are clipped there): treating
    all at high thresholds falls far below zero and would flatten the lines that
    matter, as dcurves' ``plot_graphs`` limits its axis too.

    Parameters
    ----------
    curve
        The frame of :func:`polars_roc.decision_curve`, eager or lazy.
    facet
        The group column giving one panel per value; a frame with group columns needs
        it (one segment's lines per panel). Filter the frame to draw one segment.
    columns
        Panels per row when faceted (Altair's default otherwise).

    Returns
    -------
    altair.Chart or altair.FacetChart
        Lines colored by strategy; tooltips give the threshold and the net benefit.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.7, 0.6, 0.4, 0.2], "label": [1, 1, 0, 1, 0]})
    >>> spec = pr.decision_chart(df.roc.decision_curve([0.2, 0.5])).to_dict()
    >>> spec["mark"]["type"], spec["encoding"]["y"]["field"]
    ('line', 'net_benefit')
    >>> rows = spec["datasets"][spec["data"]["name"]]
    >>> [(r["strategy"], r["threshold"], r["net_benefit"]) for r in rows][:3]
    [('model', 0.2, 0.5), ('model', 0.5, 0.2), ('treat all', 0.2, 0.5)]
    """
    frame = _require(
        curve, ["threshold", *STRATEGIES.values()], "curve", "pass the frame of decision_curve(...)"
    )
    _one_segment(
        frame, "curve", _VALUES, facet, "group", " (each panel draws one segment's curves)"
    )
    panel = [shown_text(pl.col(facet)).fill_null("null").alias(PANEL)] if facet else []
    long = pl.concat(
        [
            frame.select(
                *panel,
                pl.lit(name).alias("strategy"),
                pl.col("threshold").cast(pl.Float64),
                pl.col(column).cast(pl.Float64).alias("net_benefit"),
            )
            for name, column in STRATEGIES.items()
        ]
    )
    highest = long.get_column("net_benefit").max()
    top = max(float(highest), 0.01) if isinstance(highest, (int, float)) else 0.01
    y_scale = alt.Scale(domain=[-top / 4, top], nice=False)
    chart = (
        # A dict, as the other charts pass rows: alt.Data validates each row, ~100x slower.
        alt.Chart({"values": json_records(long)})
        .mark_line(clip=True)
        .encode(
            x=alt.X("threshold:Q", title="risk threshold", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("net_benefit:Q", title="net benefit", scale=y_scale),
            color=alt.Color(
                "strategy:N", sort=list(STRATEGIES), legend=alt.Legend(title="strategy")
            ),
            tooltip=[
                alt.Tooltip("strategy:N"),
                alt.Tooltip("threshold:Q"),
                alt.Tooltip("net_benefit:Q", format=".4f"),
            ],
        )
    )
    return _faceted(chart, long, facet, columns or None)
