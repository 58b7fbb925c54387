"""The trend chart: a measure per period as line and points, its interval as a band, of
the frames of :func:`polars_roc.trend` (one score, or two with ``scores=``) and
:func:`polars_roc.drift`."""

from __future__ import annotations

from typing import Any, Literal

import altair as alt
import polars as pl

from polars_roc.charts.data import Frame, shown_text, tooltip_title
from polars_roc.charts.data import check_roles as _roles
from polars_roc.charts.data import collect_frame as _collect
from polars_roc.charts.data import group_order as _order
from polars_roc.charts.data import json_records as _records
from polars_roc.charts.layers import PANEL, _faceted, _require
from polars_roc.stats.paired_tests import TEST_COLUMNS
from polars_roc.views.trend import DRIFT_COLUMNS, ESTIMATE_RESULT

__all__ = ["trend_chart"]

Measure = Literal["auc", "gini", "ks", "diff"]

# Every column trend() or drift() may add besides the group and period columns.
VALUE_COLUMNS = frozenset(
    {*TEST_COLUMNS, *DRIFT_COLUMNS, "auc_se", "gini", "gini_lower", "gini_upper", "ks"}
) | {"prevalence", "n_pos", "n_neg", "model_a", "model_b", "group_a", "group_b", *ESTIMATE_RESULT}
# The band of each measure, when the frame has it.
BANDS = {
    "auc": ("ci_lower", "ci_upper"),
    "gini": ("gini_lower", "gini_upper"),
    "diff": ("ci_lower", "ci_upper"),
}
TITLES = {"auc": "AUC", "gini": "Gini", "ks": "KS", "diff": "AUC difference"}
WIDTH, HEIGHT = 420, 220
PERIOD, GROUP = "_period", "_group"


def _period_text(column: str, dtype: pl.DataType) -> pl.Expr:
    """Periods as JSON-ready values: ISO text for dates (Vega parses it), else as they are."""
    if dtype == pl.Date:
        return pl.col(column).dt.strftime("%Y-%m-%d")
    if isinstance(dtype, pl.Datetime):
        return pl.col(column).dt.strftime("%Y-%m-%dT%H:%M:%S")
    if dtype.is_integer():
        return pl.col(column)
    return shown_text(pl.col(column)).fill_null("null")


def _group_fields(color: str | None, facet: str | None) -> list[pl.Expr]:
    # A null segment reads "null", as in the other charts (a null in a sort list is no
    # valid Vega-Lite: to_dict() failed).
    fields = ((color, GROUP), (facet, PANEL))
    return [shown_text(pl.col(c)).fill_null("null").alias(f) for c, f in fields if c]


def _group_channels(
    data: pl.DataFrame, color: str | None, facet: str | None
) -> tuple[dict[str, Any], list[alt.Tooltip]]:
    channels: dict[str, Any] = {}
    tooltip: list[alt.Tooltip] = []
    if color:
        channels["color"] = alt.Color(
            f"{GROUP}:N", sort=_order(data, GROUP), legend=alt.Legend(title=color, labelLimit=0)
        )
        tooltip.append(alt.Tooltip(f"{GROUP}:N", title=tooltip_title(color)))
    if facet:
        tooltip.append(alt.Tooltip(f"{PANEL}:N", title=tooltip_title(facet)))
    return channels, tooltip


def _period_axis(data: pl.DataFrame, dtype: pl.DataType, title: str) -> tuple[alt.X, str]:
    """The x channel of the periods (a time axis for dates) and its type letter."""
    temporal = dtype == pl.Date or isinstance(dtype, pl.Datetime)
    x_type = "T" if temporal else "O"
    sort: Any = alt.Undefined if temporal else _order(data, PERIOD)
    return alt.X(f"{PERIOD}:{x_type}", sort=sort, axis=alt.Axis(title=title)), x_type


def trend_chart(
    trend: Frame,
    *,
    period: str | None = None,
    measure: Measure = "auc",
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
    flags: Frame | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """A measure over periods, one line per group, with its interval as a band.

    Parameters
    ----------
    trend
        The frame of :func:`polars_roc.trend` or :func:`polars_roc.drift`, eager or lazy.
    period
        The period column; by default the last column before the values (the layout of
        both frames).
    measure
        ``"auc"`` (band ``ci_lower``-``ci_upper``), ``"gini"`` (band ``gini_lower``-
        ``gini_upper``), ``"ks"`` (no band), or ``"diff"`` for the frames of
        ``trend(scores=...)`` and ``drift`` (band ``ci_lower``-``ci_upper``, a rule at 0).
        The band is drawn when the frame holds it (``trend(ci=...)``), and the
        estimated AUC of ``trend(estimated=True)`` as a dashed line with hollow points.
    color, facet, columns
        The group column told apart by color, the one that makes panels, and how many
        panels per row; a lone group column becomes the color, as in
        :func:`polars_roc.roc_chart`.
    flags
        Optional frame of :func:`polars_roc.drift` (or any frame with the group and period
        columns and a boolean ``flagged``): its flagged periods are ringed. A ``flagged``
        column of ``trend`` itself is used when ``flags`` is not given.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Layers: the band (when present), the rule at 0 (``diff``), lines, points, the
        estimate's dashed line and points (when present), the rings of flagged periods;
        faceted last when ``facet`` is given. The x axis is temporal
        for Date and Datetime periods, ordinal (in the frame's order) otherwise.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({
    ...     "month": ["2026-01"] * 4 + ["2026-02"] * 4,
    ...     "score": [0.9, 0.7, 0.4, 0.2, 0.8, 0.3, 0.6, 0.1],
    ...     "label": [1, 1, 0, 0, 1, 1, 0, 0],
    ... })
    >>> spec = pr.trend_chart(pr.trend(log, period="month")).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['line', 'point']
    >>> [(row["_period"], row["auc"]) for row in spec["datasets"][spec["data"]["name"]]]
    [('2026-01', 1.0), ('2026-02', 0.75)]
    """
    if measure not in TITLES:
        msg = f"`measure` must be one of {tuple(TITLES)!r}, got {measure!r}"
        raise ValueError(msg)
    full = _collect(trend, "trend")
    if measure not in full.columns:
        msg = (
            f"`trend` has no {measure!r} column (its columns are {full.columns!r}); pass the "
            "frame of pr.trend(...) or pr.drift(...), or another `measure`"
        )
        raise ValueError(msg)
    keys = [c for c in full.columns if c not in VALUE_COLUMNS]
    if period is None:
        if not keys:
            msg = f"`trend` has no period column (its columns are {full.columns!r})"
            raise ValueError(msg)
        period = keys[-1]
    elif period not in keys:
        msg = f"`period` column {period!r} is not a group column of `trend` ({keys!r})"
        raise ValueError(msg)
    groups = [c for c in keys if c != period]
    color, facet = _roles(full.drop(period), VALUE_COLUMNS, color, facet, columns, "trend")
    if flags is not None:
        needed = [*groups, period, "flagged"]
        marks = _require(flags, needed, "flags", "pass the frame of pr.drift(...)")
        full = full.drop("flagged", strict=False).join(
            marks.select(needed),
            on=[*groups, period],
            how="left",
            nulls_equal=True,
            maintain_order="left",
        )
    band: tuple[str, ...] = BANDS.get(measure, ())
    # A band of nulls only (one default a period) has no extent: Vega warns in red.
    has_band = bool(band) and all(c in full.columns for c in band)
    has_band = has_band and full[band[0]].is_not_null().any()
    dtype = full.schema[period]
    estimate = ["estimated_auc"] if measure == "auc" and "estimated_auc" in full.columns else []
    shown = [measure, *(band if has_band else ()), *estimate]
    details = [c for c in ("n_pos", "n_neg", "p_value", "p_adjusted") if c in full.columns]
    data = full.select(
        _period_text(period, dtype).alias(PERIOD),
        *_group_fields(color, facet),
        *(pl.col(c).cast(pl.Float64).round(6) for c in shown),
        *details,
        *([pl.col("flagged").fill_null(False)] if "flagged" in full.columns else []),
    )
    x, x_type = _period_axis(data, dtype, period)
    title = TITLES[measure] + (" (dashed: estimated)" if estimate else "")
    y = alt.Y(f"{measure}:Q", axis=alt.Axis(title=title), scale=alt.Scale(zero=False))
    channels, named = _group_channels(data, color, facet)
    tooltip = [alt.Tooltip(f"{PERIOD}:{x_type}", title=tooltip_title(period)), *named]
    tooltip += [alt.Tooltip(f"{c}:Q", format=".4f") for c in shown]
    tooltip += [alt.Tooltip(f"{c}:Q", format=".4g") for c in details]
    layers: list[alt.Chart] = []
    if has_band:
        layers.append(
            alt.Chart()
            .mark_area(opacity=0.2)
            .encode(x=x, y=alt.Y(f"{band[0]}:Q"), y2=alt.Y2(f"{band[1]}:Q"), **channels)
        )
    if measure == "diff":
        layers.append(alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(0)))
    layers.append(alt.Chart().mark_line().encode(x=x, y=y, **channels))
    layers.append(alt.Chart().mark_point(filled=True).encode(x=x, y=y, tooltip=tooltip, **channels))
    if estimate:
        expected = alt.Y("estimated_auc:Q")
        layers.append(alt.Chart().mark_line(strokeDash=[4, 4]).encode(x=x, y=expected, **channels))
        layers.append(alt.Chart().mark_point().encode(x=x, y=expected, tooltip=tooltip, **channels))
    # A layer without rows makes Vega warn of an infinite extent: ring only when needed.
    if "flagged" in data.columns and data.get_column("flagged").any():
        layers.append(
            alt.Chart()
            .transform_filter("datum.flagged")
            .mark_point(size=220, strokeWidth=2, color="black", filled=False)
            .encode(x=x, y=y, tooltip=tooltip)
        )
    chart = alt.layer(*layers, data={"values": _records(data)}).properties(
        width=WIDTH, height=HEIGHT
    )
    return _faceted(chart, data, facet, columns)
