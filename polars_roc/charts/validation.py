"""Charts of a scoring model's validation: the reliability diagram of
:func:`polars_roc.calibration_curve` and the stability over time of :func:`polars_roc.psi`."""

from __future__ import annotations

import altair as alt
import polars as pl

from polars_roc.charts.data import Frame, tooltip_title
from polars_roc.charts.data import check_roles as _roles
from polars_roc.charts.data import collect_frame as _collect
from polars_roc.charts.data import json_records as _records
from polars_roc.charts.layers import _faceted, _require
from polars_roc.charts.trend import (
    HEIGHT,
    PERIOD,
    WIDTH,
    _group_channels,
    _group_fields,
    _period_axis,
)
from polars_roc.charts.trend import _period_text as period_text
from polars_roc.views.calibration import CALIBRATION_COLUMNS

__all__ = ["calibration_chart", "psi_chart"]


CALIBRATION_VALUES = frozenset(CALIBRATION_COLUMNS)
PSI_VALUES = frozenset({"psi", "n", "n_baseline", "level"})
# The bounds of psi's levels (polars_roc.views.stability.PSI_LEVELS), drawn as rules.
PSI_RULES = (0.1, 0.25)


def calibration_chart(
    calibration: Frame,
    *,
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """Reliability diagram: observed rate against mean predicted probability per bin.

    Parameters
    ----------
    calibration
        The frame of :func:`polars_roc.calibration_curve` (``df.roc.calibration``),
        eager or lazy; with ``ci=``, each bin's interval is drawn as a vertical rule.
    color, facet, columns
        As in :func:`polars_roc.trend_chart`.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Layers: the diagonal of perfect calibration (dashed), the intervals (when the
        frame has them), the line through the bins and a point per bin (its size the
        bin's ``n``); both axes span [0, 1]. Faceted last when ``facet`` is given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.7, 0.8, 0.9, 0.95],
    ...     "label": [0, 0, 0, 1, 0, 1, 0, 1, 1, 1],
    ... })
    >>> spec = pr.calibration_chart(df.roc.calibration(n_bins=2, ci="wilson")).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'rule', 'line', 'point']
    >>> [(r["mean_score"], r["observed_rate"]) for r in spec["datasets"][spec["data"]["name"]]]
    [(0.22, 0.2), (0.79, 0.8)]
    """
    full = _require(
        calibration,
        ["mean_score", "observed_rate", "n"],
        "calibration",
        "pass the frame of pr.calibration_curve(...) or df.roc.calibration(...)",
    )
    color, facet = _roles(full, CALIBRATION_VALUES, color, facet, columns, "calibration")
    has_ci = {"ci_lower", "ci_upper"} <= set(full.columns) and full["ci_lower"].is_not_null().any()
    shown = ["mean_score", "observed_rate", *(["ci_lower", "ci_upper"] if has_ci else [])]
    data = full.select(
        *_group_fields(color, facet),
        *(pl.col(c).cast(pl.Float64).round(6) for c in shown),
        pl.col("n").cast(pl.Float64),
        *(pl.col(c) for c in ("bin",) if c in full.columns),
    )
    unit = alt.Scale(domain=[0, 1])
    x = alt.X("mean_score:Q", scale=unit, axis=alt.Axis(title="mean predicted probability"))
    y = alt.Y("observed_rate:Q", scale=unit, axis=alt.Axis(title="observed rate"))
    channels, tooltip = _group_channels(data, color, facet)
    tooltip += [alt.Tooltip(f"{c}:Q", format=".4f") for c in shown]
    tooltip += [alt.Tooltip("n:Q", format=".4g")]
    tooltip += [alt.Tooltip("bin:N")] if "bin" in data.columns else []
    diagonal = (
        alt.Chart()
        .mark_rule(strokeDash=[4, 4], color="gray")
        .encode(x=alt.datum(0), y=alt.datum(0), x2=alt.datum(1), y2=alt.datum(1))
    )
    layers: list[alt.Chart] = [diagonal]
    if has_ci:
        layers.append(
            alt.Chart()
            .mark_rule()
            .encode(x=x, y=alt.Y("ci_lower:Q", scale=unit), y2=alt.Y2("ci_upper:Q"), **channels)
        )
    layers.append(alt.Chart().mark_line().encode(x=x, y=y, **channels))
    size = alt.Size("n:Q", legend=alt.Legend(title="n"))
    layers.append(
        alt.Chart().mark_point(filled=True).encode(x=x, y=y, size=size, tooltip=tooltip, **channels)
    )
    chart = alt.layer(*layers, data={"values": _records(data)}).properties(
        width=HEIGHT + 80, height=HEIGHT + 80
    )
    return _faceted(chart, data, facet, columns)


def psi_chart(
    psi: Frame,
    *,
    period: str | None = None,
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """Population stability index per period, one line per segment (and column compared).

    Parameters
    ----------
    psi
        The frame of :func:`polars_roc.psi` (not ``detail=True``), eager or lazy.
    period
        The period column; by default the one before ``psi`` (the layout of the frame).
    color, facet, columns
        As in :func:`polars_roc.trend_chart`. The frame's ``column`` column (the
        score and each characteristic) is a group column like the segments; it is
        dropped when it holds one value only.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Layers: dashed rules at 0.1 and 0.25 (the ``level`` bounds: below 0.1 stable,
        below 0.25 moderate, above a shift), the line and a point per period (tooltip:
        ``psi``, ``level``, ``n``, ``n_baseline``). Faceted last when ``facet`` is given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "month": [1] * 6 + [2] * 6,
    ...     "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.4, 0.5, 0.5, 0.6, 0.6, 0.7],
    ... })
    >>> spec = pr.psi_chart(df.roc.psi("month", n_bins=3)).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'rule', 'line', 'point']
    >>> [(r["_period"], r["psi"], r["level"]) for r in spec["datasets"][spec["data"]["name"]]]
    [(1, 0.0, 'stable'), (2, 3.276768, 'shift')]
    """
    full = _collect(psi, "psi")
    if "bin" in full.columns or "psi" not in full.columns:
        msg = (
            f"`psi` must be the frame of pr.psi(...) without detail=True (its columns are "
            f"{full.columns!r})"
        )
        raise ValueError(msg)
    keys = [c for c in full.columns if c not in PSI_VALUES]
    if period is None:
        period = full.columns[full.columns.index("psi") - 1]
    if period not in keys:
        msg = f"`period` column {period!r} is not a group column of `psi` ({keys!r})"
        raise ValueError(msg)
    full = full.drop(period).with_columns(full[period].alias(PERIOD))
    one_column = "column" in full.columns and full["column"].n_unique() == 1
    if one_column and "column" not in (color, facet):
        full = full.drop("column")
    values = PSI_VALUES | {PERIOD}
    color, facet = _roles(full, values, color, facet, columns, "psi")
    dtype = full.schema[PERIOD]
    sizes = [pl.col(c).cast(pl.Float64) for c in ("n", "n_baseline")]
    periods, groups = period_text(PERIOD, dtype).alias(PERIOD), _group_fields(color, facet)
    psi_value = pl.col("psi").cast(pl.Float64).round(6)
    data = full.select(periods, *groups, psi_value, "level", *sizes)
    x, x_type = _period_axis(data, dtype, period)
    y = alt.Y("psi:Q", axis=alt.Axis(title="PSI"))
    channels, tooltip = _group_channels(data, color, facet)
    tooltip = [alt.Tooltip(f"{PERIOD}:{x_type}", title=tooltip_title(period)), *tooltip]
    tooltip += [alt.Tooltip("psi:Q", format=".4f"), alt.Tooltip("level:N")]
    tooltip += [alt.Tooltip(f"{c}:Q", format=".4g") for c in ("n", "n_baseline")]
    layers = [
        *(
            alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(bound))
            for bound in PSI_RULES
        ),
        alt.Chart().mark_line().encode(x=x, y=y, **channels),
        alt.Chart().mark_point(filled=True).encode(x=x, y=y, tooltip=tooltip, **channels),
    ]
    chart = alt.layer(*layers, data={"values": _records(data)}).properties(
        width=WIDTH, height=HEIGHT
    )
    return _faceted(chart, data, facet, columns)
