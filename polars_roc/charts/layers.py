"""What every chart shares: frame checks, labels, colours, facets, point layers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real
from typing import Any, TypeVar, cast

import altair as alt
import polars as pl

from polars_roc.charts.data import Frame, shown_text, tooltip_title
from polars_roc.charts.data import collect_frame as _collect
from polars_roc.charts.data import group_order as _order
from polars_roc.charts.data import json_records as _records
from polars_roc.charts.thinning import _thin
from polars_roc.core.compat import lag
from polars_roc.core.lookup import GROUP, at_thresholds
from polars_roc.core.measures import MEASURE_COLUMNS
from polars_roc.core.score_table import group_start
from polars_roc.views.curve import CURVE_RESERVED

C = TypeVar("C", bound=alt.Chart | alt.LayerChart | alt.FacetChart)

Points = float | Sequence[float] | pl.DataFrame | pl.LazyFrame | None

# Panel size in pixels: square, since both axes are rates on [0, 1].
SIZE = 260

# Panels per row when a facet is given without `columns=`: the chart then wraps at about
# 1,200 px (a page or a notebook) instead of growing one row as wide as the panels.
FACET_COLUMNS = 4

ROC_X_TITLE = "False positive rate (1 - specificity)"

ROC_Y_TITLE = "True positive rate (sensitivity)"

# Columns the curve frames carry besides their group columns; any other column is taken
# for a group column and must be named by ``color=`` or ``facet=``.
ROC_VALUE_COLUMNS = frozenset(
    {*CURVE_RESERVED, "n_pos", "n_neg", "pos", "neg", "on_hull", "vertex", "slope_min", "slope_max"}
)

PR_VALUE_COLUMNS = ROC_VALUE_COLUMNS | {"precision", "recall"}

CONFUSION_VALUE_COLUMNS = (
    ROC_VALUE_COLUMNS | set(MEASURE_COLUMNS) | {"f_beta", "cost", "expected_cost"}
)

# Internal field names of the chart data; user column names never reach Vega fields.
LAYER, CURVE, PANEL = "_layer", "_curve", "_panel"


def _require(frame: Frame, needed: Sequence[str], role: str, hint: str) -> pl.DataFrame:
    """``frame`` collected, once it is known to have the ``needed`` columns."""
    frame = _collect(frame, role)
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        msg = f"`{role}` lacks column(s) {missing!r} (it has {frame.columns!r}); {hint}"
        raise ValueError(msg)
    return frame


def _format3(value: pl.Expr) -> pl.Expr:
    """A rate as text with three decimals ("0.750"), "n/a" when null."""
    text = value.round(3).cast(pl.String).str.pad_end(5, "0")
    return pl.when(value.is_null()).then(pl.lit("n/a")).otherwise(text)


def _as_text(column: str) -> pl.Expr:
    return shown_text(pl.col(column)).fill_null("null")


def _labels(
    summary: pl.DataFrame, color: str | None, facet: str | None, value: pl.Expr
) -> pl.DataFrame:
    """Add the legend label ``_curve`` and facet header ``_panel`` to a per-curve summary.

    The text ``value`` (e.g. the AUC) goes where it names one curve: the legend when
    curves are told apart by color only, the facet header when each panel holds one
    curve; with both, a note inside the panel carries it (``_note``).
    """
    labels = [value.alias(CURVE)] if facet is None and color is None else []
    for column, field, other in ((color, CURVE, facet), (facet, PANEL, color)):
        if column is not None:
            text = _as_text(column)
            valued = text + pl.lit(" (") + value + pl.lit(")")
            labels.append((valued if other is None else text).alias(field))
    return summary.with_columns(*labels, value.alias("_note"))


def _valued(name: str) -> pl.Expr:
    """The summary ``value`` as a label: ``"AUC 0.750"``."""
    return pl.lit(f"{name} ") + _format3(pl.col("value"))


def _short_text(column: str) -> pl.Expr:
    """Thresholds or slopes as short text (JSON has no infinity): "+inf" for +inf."""
    t = pl.col(column).cast(pl.Float64)
    text = t.round_sig_figs(6).cast(pl.String)
    return pl.when(t == math.inf).then(pl.lit("+inf")).otherwise(text).alias(column)


def _coordinate(column: str) -> pl.Expr:
    """A rate rounded to 1e-6 for drawing: a tenth of a pixel on a 100 000 px chart,
    and a third of the bytes of a full float in JSON."""
    return pl.col(column).cast(pl.Float64).round(6)


def _marked(frame: pl.DataFrame, layer: str) -> pl.DataFrame:
    return frame.with_columns(pl.lit(layer).alias(LAYER))


def _rows(layer: str | None) -> alt.Chart:
    """A layer of the rows marked ``layer`` (curve points have no ``_layer``: None)."""
    return alt.Chart().transform_filter(
        "!datum._layer" if layer is None else f"datum._layer === '{layer}'"
    )


def _unit_xy(x: str, y: str) -> dict[str, Any]:
    """The x and y channels of two rates, on [0, 1]."""
    return {"x": alt.X(f"{x}:Q", scale=_unit_scale()), "y": alt.Y(f"{y}:Q", scale=_unit_scale())}


def _label_fields(frame: pl.DataFrame) -> list[str]:
    return [f for f in (PANEL, CURVE) if f in frame.columns]


def _unit_scale() -> alt.Scale:
    return alt.Scale(domain=[0, 1], nice=False)


def _color(labels: pl.DataFrame, color: str | None) -> dict[str, Any]:
    """The color channel of the curve-like layers, or nothing when curves are panels."""
    if CURVE not in labels.columns:
        return {}
    legend = alt.Legend(title=color or None, labelLimit=0)
    return {"color": alt.Color(f"{CURVE}:N", sort=_order(labels, CURVE), legend=legend)}


def _assemble(
    layers: list[alt.Chart],
    frames: list[pl.DataFrame],
    labels: pl.DataFrame,
    facet: str | None,
    columns: int | None,
) -> alt.LayerChart | alt.FacetChart:
    """The layers over the rows of ``frames`` (one dataset), in square panels."""
    records = _records(pl.concat(frames, how="diagonal_relaxed"))
    chart = alt.layer(*layers, data={"values": records}).properties(width=SIZE, height=SIZE)
    return _faceted(chart, labels, facet, FACET_COLUMNS if columns is None else columns)


def _faceted(
    chart: C, data: pl.DataFrame, facet: str | None, columns: int | None
) -> C | alt.FacetChart:
    """``chart`` in one panel per ``_panel`` value of ``data`` (in the frame's order),
    ``columns`` panels a row (Altair's default when None); as it is without ``facet``."""
    if facet is None:
        return chart
    header = alt.Facet(
        f"{PANEL}:N", sort=_order(data, PANEL), title=facet, header=alt.Header(labelLimit=0)
    )
    return chart.facet(facet=header, columns=alt.Undefined if columns is None else columns)


def _one_segment(
    frame: pl.DataFrame,
    role: str,
    values: frozenset[str],
    facet: str | None,
    kind: str,
    hint: str = "",
) -> None:
    """Check that the frame's ``kind`` columns (all but ``values``) are at most ``facet``."""
    segments = [c for c in frame.columns if c not in values]
    if facet is not None and facet not in segments:
        msg = f"`facet` must name a {kind} column of `{role}` ({segments!r}), got {facet!r}"
        raise ValueError(msg)
    others = [s for s in segments if s != facet]
    if others:
        msg = (
            f"`{role}` has {kind} column(s) {others!r}: pass facet= one of them, or "
            f"filter the frame to one segment{hint}"
        )
        raise ValueError(msg)


def _panels(labels: pl.DataFrame, facet: str | None) -> pl.DataFrame:
    """The rows of the chance layer ``[_layer, _panel]``: one per panel (one in all when
    not faceted)."""
    if facet is None:
        return pl.DataFrame({LAYER: ["chance"]})
    return labels.select(pl.lit("chance").alias(LAYER), PANEL).unique(maintain_order=True)


def _add_notes(
    frames: list[pl.DataFrame],
    layers: list[alt.Chart],
    labels: pl.DataFrame,
    color: str | None,
    facet: str | None,
    y: str,
) -> None:
    """With both color and facet, each panel lists the AUC (AP) of its curves, in color.

    The note's height goes in the curve's own ``y`` field (note rows are no curve
    points), so that the layers share one y axis and its title.
    """
    if color is None or facet is None:
        return
    rank = pl.int_range(pl.len()).over(PANEL)
    frames.append(
        labels.select(PANEL, CURVE, "_note").with_columns(
            (0.04 + 0.07 * rank).alias(y), pl.lit("note").alias(LAYER)
        )
    )
    layers.append(
        _rows("note")
        .mark_text(align="right", baseline="middle", fontWeight="bold")
        .encode(
            x=alt.datum(0.98, scale=_unit_scale()),
            y=alt.Y(f"{y}:Q", scale=_unit_scale()),
            text="_note:N",
            **_color(labels, color),
        )
    )


def _curve_points(
    full: pl.DataFrame,
    labels: pl.DataFrame,
    groups: list[str],
    x: str,
    y: str,
    max_points: int | None,
) -> pl.DataFrame:
    """The points of the curves as drawn: thinned, labelled, rounded."""
    drawn = _thin(full.lazy(), groups, x, y, max_points).collect()
    return _attach(drawn, labels, groups).select(
        *_label_fields(labels), _short_text("threshold"), _coordinate(x), _coordinate(y), "tp", "fp"
    )


def _lookup_points(
    full: pl.DataFrame, points: Points, groups: list[str], x: str, y: str, sources: dict[str, str]
) -> pl.DataFrame:
    """Operating points ``[*groups, threshold, x, y]`` from ``points=``.

    ``points`` gives either the coordinates (columns named in ``sources``, e.g. the rows
    of ``confusion(...)``) or only thresholds, read off the curve: the point at threshold
    ``t`` is the curve point with the smallest threshold ``>= t`` (score >= t predicted
    positive), as in :func:`polars_roc.confusion_matrix`.
    """
    if isinstance(points, (Real, Sequence)) and not isinstance(points, bool):
        if not _are_thresholds(points):
            msg = f"`points` must be thresholds (numbers) or a frame, got {points!r}"
            raise ValueError(msg)
        values = list(points) if isinstance(points, Sequence) else [points]
        points = pl.DataFrame({"threshold": values}, schema={"threshold": pl.Float64})
    wanted = _collect(cast(Frame, points), "points")
    if {x, y} <= set(wanted.columns):  # the coordinates themselves
        sources = {x: x, y: y}
    shared = [g for g in groups if g in wanted.columns]
    known = PR_VALUE_COLUMNS | CONFUSION_VALUE_COLUMNS
    extra = [c for c in wanted.columns if c in full.columns and c not in groups and c not in known]
    if extra:
        msg = (
            f"`points` has column(s) {extra!r}, group columns of the curve that are not "
            "shown by `color=` or `facet=`; drop them or name them there"
        )
        raise ValueError(msg)
    curve_groups = full.select(groups).unique(maintain_order=True) if groups else None
    if all(c in wanted.columns for c in sources.values()):
        found = wanted.select(
            *shared,
            *(["threshold"] if "threshold" in wanted.columns else []),
            *(pl.col(src).cast(pl.Float64).alias(dst) for dst, src in sources.items()),
        )
    elif "threshold" in wanted.columns:
        order = "__point_order"
        grid = wanted.select(*shared, pl.col("threshold").cast(pl.Float64)).with_row_index(order)
        # Each curve's rows together (a stable sort keeps each curve's order).
        line = full.sort(groups, maintain_order=True, nulls_last=False) if groups else full
        found = at_thresholds(
            line.lazy(),
            grid.lazy(),
            by=groups,
            values=(x, y),
            shared=shared,
            score=pl.col("threshold").cast(pl.Float64),
        ).collect()
        # Back to group order, then the order the thresholds were given in.
        found = found.sort([*groups, order], nulls_last=False).drop(GROUP, order)
    else:
        needed = ["threshold", *sources.values()]
        msg = (
            f"`points` must have a 'threshold' column or the columns {needed!r}; "
            f"it has {wanted.columns!r}"
        )
        raise ValueError(msg)
    if curve_groups is not None and not all(g in found.columns for g in groups):
        found = (
            curve_groups.join(found, on=shared, how="inner")
            if shared
            else curve_groups.join(found, how="cross")
        )
    return found


def _group_tooltips(labels: pl.DataFrame, color: str | None) -> list[alt.Tooltip]:
    """Tooltips naming the panel and the curve of a mark, where the chart has them."""
    return [
        alt.Tooltip(f"{f}:N", title=tooltip_title(t))
        for f, t in ((PANEL, "panel"), (CURVE, color or "curve"))
        if f in labels.columns
    ]


def _add_points(
    frames: list[pl.DataFrame],
    layers: list[alt.Chart],
    full: pl.DataFrame,
    points: Points,
    groups: list[str],
    labels: pl.DataFrame,
    color: str | None,
    coordinates: tuple[str, str],
    sources: dict[str, str] | None = None,
) -> None:
    """The operating points of ``points=`` and their layer; ``sources``: the columns of
    a frame of points holding the coordinates when it lacks ``coordinates`` themselves."""
    x, y = coordinates
    found = _attach(
        _lookup_points(full, points, groups, x, y, sources or {x: x, y: y}), labels, groups
    )
    threshold = [_short_text("threshold")] if "threshold" in found.columns else []
    records = found.select(*_label_fields(labels), *threshold, _coordinate(x), _coordinate(y))
    frames.append(_marked(records, "point"))
    tooltip = _group_tooltips(labels, color)
    tooltip += [
        alt.Tooltip("threshold:N", title="threshold"),
        alt.Tooltip(f"{x}:Q", format=".4f"),
        alt.Tooltip(f"{y}:Q", format=".4f"),
    ]
    layers.append(
        _rows("point")
        .mark_point(
            shape="diamond", size=90, filled=True, opacity=1, stroke="black", strokeWidth=0.8
        )
        .encode(**_unit_xy(x, y), tooltip=tooltip, **_color(labels, color))
    )


def _trapezoid(by: list[str], x: str, y: str) -> pl.Expr:
    """Area under each curve by trapezoids (a frame sorted by group, in curve order)."""
    xs, ys = pl.col(x), pl.col(y)
    return pl.when(group_start(by)).then(0.0).otherwise((xs - lag(xs)) * (ys + lag(ys)) / 2)


def _summary(
    full: pl.DataFrame, groups: list[str], piece: pl.Expr, coordinates: tuple[str, str]
) -> pl.DataFrame:
    """One row per curve ``[*groups, value]``: the sum of ``piece`` over its points.

    A curve with a null coordinate (a group holding one class only), or no point at all
    (empty input), has no area: its value is null, not a partial sum or zero.
    """
    lazy = full.lazy().with_columns(piece.alias("__piece"))
    undefined = pl.any_horizontal(pl.len() == 0, *(pl.col(c).is_null().any() for c in coordinates))
    value = pl.when(~undefined).then(pl.col("__piece").sum())
    if groups:
        return lazy.group_by(groups, maintain_order=True).agg(value.alias("value")).collect()
    return lazy.select(value.alias("value")).collect()


def _attach(points: pl.DataFrame, labels: pl.DataFrame, groups: list[str]) -> pl.DataFrame:
    fields = _label_fields(labels)
    if groups:
        return points.join(
            labels.select(*groups, *fields),
            on=groups,
            how="left",
            maintain_order="left",
            nulls_equal=True,
        )
    return points.with_columns(
        pl.lit(v).alias(k) for k, v in labels.select(fields).row(0, named=True).items()
    )


def _chance_layer() -> alt.Chart:
    return (
        _rows("chance")
        .mark_rule(color="gray", strokeDash=[4, 4])
        .encode(
            x=alt.datum(0, scale=_unit_scale()),
            y=alt.datum(0, scale=_unit_scale()),
            x2=alt.datum(1),
            y2=alt.datum(1),
        )
    )


def _curve_layer(
    labels: pl.DataFrame,
    color: str | None,
    x: str,
    y: str,
    x_title: str,
    y_title: str,
    interpolate: str,
) -> alt.Chart:
    tooltip = _group_tooltips(labels, color)
    tooltip += [
        alt.Tooltip("threshold:N", title="threshold (score >=)"),
        alt.Tooltip(f"{y}:Q", format=".4f"),
        alt.Tooltip(f"{x}:Q", format=".4f"),
        alt.Tooltip("tp:Q"),
        alt.Tooltip("fp:Q"),
    ]
    return (
        _rows(None)
        # Predicted positives tp + fp grow strictly along a curve: drawing in that order
        # keeps vertical runs and ties in curve order (Vega-Lite would sort by x alone).
        .transform_calculate(_order="datum.tp + datum.fp")
        .mark_line(interpolate=interpolate, strokeWidth=2, point=False)
        .encode(
            x=alt.X(f"{x}:Q", scale=_unit_scale(), axis=alt.Axis(title=x_title)),
            y=alt.Y(f"{y}:Q", scale=_unit_scale(), axis=alt.Axis(title=y_title)),
            order=alt.Order("_order:Q"),
            tooltip=tooltip,
            **_color(labels, color),
        )
    )


def _are_thresholds(points: Points) -> bool:
    """Whether ``points=`` is a number or a non-empty list of numbers (not a frame)."""
    values = [points] if isinstance(points, Real) else points
    return (
        isinstance(values, Sequence)
        and not isinstance(values, str)
        and len(values) > 0
        and all(
            isinstance(v, Real) and not isinstance(v, bool) and not math.isnan(v) for v in values
        )
    )
