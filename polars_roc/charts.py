"""Altair charts of the curve frames: ROC, precision-recall, gains, lift, averaged curves.

The functions take the tidy frames of :func:`polars_roc.roc_curve`,
:func:`polars_roc.confusion_matrix`, :func:`polars_roc.optimal_point`,
:func:`polars_roc.gains_table`, :func:`polars_roc.lift_curve`,
:func:`polars_roc.average_curve` (and the precision-recall frame) and return
unconfigured Altair charts: no title, no ``configure_*``, no change to Altair's global
state. Layers are built first and faceted after, so a caller can still add layers to a
single-panel chart, facet it, or configure it.

Every chart carries its data inline, as one dataset. Rows that are not curve points (the
chance line, AUC notes, hull vertices, operating points, iso-performance lines, PR
baselines) are marked by a ``_layer`` field and each layer filters its own rows: a
faceted chart needs all its data at the top level.

Thinning
--------
A curve with more than ``max_points`` points is thinned before it is drawn, so that
a curve of millions of points neither trips Altair's row limit nor ships megabytes of
JSON. The first and last points are always kept. First the points lying on the straight
line through their neighbours go (drawing and area unchanged). If the curve is still too
long, it is cut into ``B = max_points // 3`` pieces of equal length, the length being
measured along the curve (``|dx| + |dy|`` summed point to point; for a ROC curve this is
``fpr + tpr``, from 0 to 2). Each piece keeps its first point, its last point and the
point where the curve turns most, i.e. the farthest from the straight line joining the
piece's ends. So at most ``3 * B <= max_points`` points remain, and every dropped point
lies within ``L / B`` (in ``|dx| + |dy|``) of the drawn line, ``L`` being the curve's
length.

Area bound (ROC curves). A kept segment between points ``a`` and ``b`` replaces a
monotone stretch of the curve, which stays inside the rectangle spanned by ``a`` and
``b``; the trapezoid areas under the two differ by at most half that rectangle,
``dfpr * dtpr / 2``. Within one piece these rectangles add up to at most
``(h / 2)**2 / 2`` where ``h = 2 / B`` is the piece length, and segments joining two
pieces are original segments (no error). Hence

    ``|trapezoid area of the thinned curve - exact AUC| <= 1 / (2 * B)``,

``B = max_points // 3``: at most 0.0015 for the default ``max_points=1000``
(:func:`thinning_bound`). The AUC printed on the charts is always the exact one, computed
before thinning.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

import altair as alt
import polars as pl

from polars_roc._chart_data import check_roles as _roles
from polars_roc._chart_data import collect_frame as _collect
from polars_roc._chart_data import group_order as _order
from polars_roc._chart_data import json_records as _records
from polars_roc._confusion import CONFUSION_RESERVED, confusion_from_table
from polars_roc._curve import CURVE_RESERVED, collinear, curve_from_table
from polars_roc._det_chart import det_chart
from polars_roc._hull import (
    OPTIMAL_RESERVED,
    check_optimal_options,
    hull_flags,
    optimal_from_table,
)
from polars_roc._measures import MEASURE_COLUMNS, ratio
from polars_roc._pr import PR_RESERVED, pr_curve_from_table, precision_at
from polars_roc._score_table import build, group_end, group_start
from polars_roc._validate import prepare

__all__ = [
    "DEFAULT_MAX_POINTS",
    "average_chart",
    "confusion_chart",
    "det_chart",
    "gains_chart",
    "plot",
    "pr_chart",
    "pr_points",
    "roc_chart",
    "thin_curve",
    "thinning_bound",
]

Frame = pl.DataFrame | pl.LazyFrame
Points = float | Sequence[float] | pl.DataFrame | pl.LazyFrame | None

DEFAULT_MAX_POINTS = 1000
# Panel size in pixels: square, since both axes are rates on [0, 1].
SIZE = 260
# Panels per row when a facet is given without `columns=`: the chart then wraps at about
# 1,200 px (a page or a notebook) instead of growing one row as wide as the panels.
FACET_COLUMNS = 4
CONFUSION_FACET_COLUMNS = 5  # confusion panels are 180 px

ROC_X_TITLE = "False positive rate (1 - specificity)"
ROC_Y_TITLE = "True positive rate (sensitivity)"
PR_X_TITLE = "Recall (true positive rate)"
PR_Y_TITLE = "Precision (positive predictive value)"

# Columns the curve frames carry besides their group columns; any other column is taken
# for a group column and must be named by ``color=`` or ``facet=``.
ROC_VALUE_COLUMNS = frozenset(
    {"threshold", "tp", "fp", "fn", "tn", "tpr", "fpr", "n_pos", "n_neg", "pos", "neg",
     "cost", "expected_cost", "on_hull", "vertex", "slope_min", "slope_max"}
)  # fmt: skip
PR_VALUE_COLUMNS = ROC_VALUE_COLUMNS | {"precision", "recall"}
CONFUSION_VALUE_COLUMNS = (
    ROC_VALUE_COLUMNS | set(MEASURE_COLUMNS) | {"f_beta", "cost", "expected_cost"}
)

# Internal field names of the chart data; user column names never reach Vega fields.
LAYER, CURVE, PANEL = "_layer", "_curve", "_panel"


# --------------------------------------------------------------------------------------
# Thinning


def thinning_bound(max_points: int = DEFAULT_MAX_POINTS) -> float:
    """Largest possible AUC error of a ROC curve thinned to ``max_points`` points.

    ``1 / (2 * (max_points // 3))``; see the module docstring for the derivation.

    Examples
    --------
    >>> from polars_roc.charts import thinning_bound
    >>> thinning_bound(1000)
    0.0015015015015015015
    """
    _check_max_points(max_points)
    return 1.0 / (2 * (max_points // 3))


def _check_max_points(max_points: int | None) -> None:
    if max_points is None:
        return
    if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 3:
        msg = (
            "`max_points` must be an integer >= 3 (or None to keep every point), "
            f"got {max_points!r}"
        )
        raise ValueError(msg)


def thin_curve(
    curve: Frame,
    *,
    by: str | Sequence[str] | None = None,
    x: str = "fpr",
    y: str = "tpr",
    max_points: int = DEFAULT_MAX_POINTS,
) -> Frame:
    """Thin every curve of ``curve`` to at most ``max_points`` points, for drawing.

    Curves with at most ``max_points`` points are returned whole. Longer ones lose their
    collinear points first, then are cut into ``max_points // 3`` pieces of equal length
    along the curve, each keeping its ends and the point where it turns most. For a ROC
    curve the trapezoid area changes by at most :func:`thinning_bound` (module docstring).

    Parameters
    ----------
    curve
        A curve frame (e.g. from :func:`polars_roc.roc_curve`), one block of rows per
        group, each block in curve order.
    by
        The group columns of ``curve``.
    x, y
        The coordinate columns.
    max_points
        The most points kept per curve (at least 3).

    Returns
    -------
    DataFrame or LazyFrame
        The kept rows of ``curve``, unchanged and in their order (eager in, eager out).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_roc.charts import thin_curve
    >>> curve = pl.DataFrame({"fpr": [0.0, 0.0, 0.5, 1.0, 1.0], "tpr": [0.0, 0.5, 0.5, 0.5, 1.0]})
    >>> thin_curve(curve, max_points=4)
    shape: (4, 2)
    ┌─────┬─────┐
    │ fpr ┆ tpr │
    │ --- ┆ --- │
    │ f64 ┆ f64 │
    ╞═════╪═════╡
    │ 0.0 ┆ 0.0 │
    │ 0.0 ┆ 0.5 │
    │ 1.0 ┆ 0.5 │
    │ 1.0 ┆ 1.0 │
    └─────┴─────┘
    """
    _check_max_points(max_points)
    if isinstance(curve, pl.DataFrame):
        return _thin(curve.lazy(), _as_list(by), x, y, max_points).collect()
    if isinstance(curve, pl.LazyFrame):
        return _thin(curve, _as_list(by), x, y, max_points)
    msg = f"`curve` must be a polars DataFrame or LazyFrame, got {type(curve).__name__}"
    raise TypeError(msg)


def _as_list(columns: str | Sequence[str] | None) -> list[str]:
    if columns is None:
        return []
    return [columns] if isinstance(columns, str) else list(columns)


def _group_size(by: list[str], index: str) -> pl.Expr:
    """Number of rows of the group each row belongs to (frame sorted by ``by``)."""
    position = pl.col(index) - pl.when(group_start(by)).then(pl.col(index)).forward_fill()
    return pl.when(group_end(by)).then(position + 1).backward_fill()


def _thin(
    curve: pl.LazyFrame, by: list[str], x: str, y: str, max_points: int | None
) -> pl.LazyFrame:
    if max_points is None:
        return curve
    columns = curve.collect_schema().names()
    index, piece, turn = "__thin_index", "__thin_piece", "__thin_turn"
    xs, ys = pl.col(x).fill_null(0.0), pl.col(y).fill_null(0.0)
    start, end = group_start(by), group_end(by)
    points = curve.with_row_index(index)

    # 1. Collinear points of the curves over budget: dropping them changes nothing.
    over = _group_size(by, index) > max_points
    # The library's one collinearity test: a repeated point goes, its first copy stays.
    redundant = collinear(by, x=xs, y=ys)
    points = points.filter(~(over & redundant)).drop(index).with_row_index(index)

    # 2. Pieces of equal length along each curve still over budget.
    n_pieces = max_points // 3
    over = _group_size(by, index) > max_points
    step = pl.when(start).then(0.0).otherwise((xs - xs.shift(1)).abs() + (ys - ys.shift(1)).abs())
    running = step.cum_sum()
    length = running - pl.when(start).then(running).forward_fill()
    points = points.with_columns(__thin_length=length).with_columns(
        __thin_total=pl.when(end).then(pl.col("__thin_length")).backward_fill()
    )
    piece_of = (
        pl.when(pl.col("__thin_total") > 0)
        .then(pl.col("__thin_length") / pl.col("__thin_total") * n_pieces)
        .otherwise(0.0)
        .floor()
        .clip(upper_bound=n_pieces - 1)
        .cast(pl.Int64)
    )
    points = points.with_columns(piece_of.alias(piece))
    keys = [*by, piece]
    first, last = group_start(keys), group_end(keys)
    ax, ay = (pl.when(first).then(c).forward_fill() for c in (xs, ys))
    bx, by_ = (pl.when(last).then(c).backward_fill() for c in (xs, ys))
    # Twice the area of the triangle (first, point, last): proportional to the point's
    # distance from the chord joining the piece's ends.
    away = ((bx - ax) * (ys - ay) - (by_ - ay) * (xs - ax)).abs()
    points = points.with_columns(away.alias("__thin_away"))
    turns = (
        points.group_by(keys)
        .agg(pl.col(index).get(pl.col("__thin_away").arg_max()))
        .select(index, pl.lit(True).alias(turn))
    )
    return (
        points.join(turns, on=index, how="left", maintain_order="left")
        .filter(~over | first | last | pl.col(turn).fill_null(False))
        .select(columns)
    )


# --------------------------------------------------------------------------------------
# Shared pieces of the curve charts


def _require(frame: pl.DataFrame, needed: Sequence[str], role: str, hint: str) -> None:
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        msg = f"`{role}` lacks column(s) {missing!r} (it has {frame.columns!r}); {hint}"
        raise ValueError(msg)


def _format3(value: pl.Expr) -> pl.Expr:
    """A rate as text with three decimals ("0.750"), "n/a" when null."""
    text = value.round(3).cast(pl.String).str.pad_end(5, "0")
    return pl.when(value.is_null()).then(pl.lit("n/a")).otherwise(text)


def _as_text(column: str) -> pl.Expr:
    return pl.col(column).cast(pl.String).fill_null("null")


def _labels(summary: pl.DataFrame, color: str | None, facet: str | None, name: str) -> pl.DataFrame:
    """Add the legend label ``_curve`` and facet header ``_panel`` to a per-curve summary.

    The summary value (AUC or AP, column ``value``) goes where it names one curve: the
    legend when curves are told apart by color only, the facet header when each panel
    holds one curve; with both, a note inside the panel carries it (``_note``).
    """
    value = pl.lit(f"{name} ") + _format3(pl.col("value"))
    labels: list[pl.Expr] = []
    if facet is None and color is None:
        labels.append(value.alias(CURVE))
    if color is not None:
        text = _as_text(color)
        labels.append(
            (text + pl.lit(" (") + value + pl.lit(")") if facet is None else text).alias(CURVE)
        )
    if facet is not None:
        text = _as_text(facet)
        labels.append(
            (text + pl.lit(" (") + value + pl.lit(")") if color is None else text).alias(PANEL)
        )
    return summary.with_columns(*labels, value.alias("_note"))


def _threshold_text() -> pl.Expr:
    """Thresholds as short text (JSON has no infinity): "+inf" for the start point."""
    t = pl.col("threshold").cast(pl.Float64)
    text = t.round_sig_figs(6).cast(pl.String)
    return pl.when(t == math.inf).then(pl.lit("+inf")).otherwise(text).alias("threshold")


def _coordinate(column: str) -> pl.Expr:
    """A rate rounded to 1e-6 for drawing: a tenth of a pixel on a 100 000 px chart,
    and a third of the bytes of a full float in JSON."""
    return pl.col(column).cast(pl.Float64).round(6)


def _marked(frame: pl.DataFrame, layer: str) -> pl.DataFrame:
    return frame.with_columns(pl.lit(layer).alias(LAYER))


def _is_layer(layer: str | None) -> str:
    """Vega expression selecting one kind of row (curve points have no ``_layer``)."""
    return "!datum._layer" if layer is None else f"datum._layer === '{layer}'"


def _label_fields(frame: pl.DataFrame) -> list[str]:
    return [f for f in (PANEL, CURVE) if f in frame.columns]


def _unit_scale() -> alt.Scale:
    return alt.Scale(domain=[0, 1], nice=False)


def _color(labels: pl.DataFrame, color: str | None) -> dict[str, Any]:
    """The color channel of the curve-like layers, or nothing when curves are panels."""
    if CURVE not in labels.columns:
        return {}
    legend = (
        alt.Legend(title=color, labelLimit=0) if color else alt.Legend(title=None, labelLimit=0)
    )
    return {"color": alt.Color(f"{CURVE}:N", sort=_order(labels, CURVE), legend=legend)}


def _assemble(
    layers: list[alt.Chart],
    records: list[dict[str, Any]],
    labels: pl.DataFrame,
    facet: str | None,
    columns: int | None,
) -> alt.LayerChart | alt.FacetChart:
    chart = alt.layer(*layers, data={"values": records}).properties(width=SIZE, height=SIZE)
    if facet is None:
        return chart
    header = alt.Facet(f"{PANEL}:N", sort=_order(labels, PANEL), title=facet,
                       header=alt.Header(labelLimit=0))  # fmt: skip
    return chart.facet(facet=header, columns=FACET_COLUMNS if columns is None else columns)


def _panels(labels: pl.DataFrame, facet: str | None) -> pl.DataFrame:
    """One row per panel (one row in all when not faceted)."""
    if facet is None:
        return pl.DataFrame({LAYER: ["chance"]})
    return (
        labels.select(PANEL).unique(maintain_order=True).with_columns(pl.lit("chance").alias(LAYER))
    )


def _note_layer(
    labels: pl.DataFrame, color: str | None, facet: str | None, y: str
) -> tuple[pl.DataFrame | None, alt.Chart | None]:
    """With both color and facet, each panel lists the AUC (AP) of its curves, in color.

    The note's height goes in the curve's own ``y`` field (note rows are no curve
    points), so that the layers share one y axis and its title.
    """
    if color is None or facet is None:
        return None, None
    rank = pl.int_range(pl.len()).over(PANEL)
    notes = labels.select(PANEL, CURVE, "_note").with_columns(
        (0.04 + 0.07 * rank).alias(y), pl.lit("note").alias(LAYER)
    )
    layer = (
        alt.Chart()
        .transform_filter(_is_layer("note"))
        .mark_text(align="right", baseline="middle", fontWeight="bold")
        .encode(
            x=alt.datum(0.98, scale=_unit_scale()),
            y=alt.Y(f"{y}:Q", scale=_unit_scale()),
            text="_note:N",
            **_color(labels, color),
        )
    )
    return notes, layer


def _lookup_points(
    full: pl.DataFrame, points: Points, groups: list[str], x: str, y: str, sources: dict[str, str]
) -> pl.DataFrame:
    """Operating points ``[*groups, threshold, x, y]`` from ``points=``.

    ``points`` gives either the coordinates (columns named in ``sources``, e.g. the rows
    of ``confusion(...)``) or only thresholds, read off the curve: the point at threshold
    ``t`` is the curve point with the smallest threshold ``>= t`` (score >= t predicted
    positive), as in :func:`polars_roc.confusion_matrix`.
    """
    if isinstance(points, (int, float, Sequence)) and not isinstance(points, bool):
        if not _are_thresholds(points):
            msg = f"`points` must be thresholds (numbers) or a frame, got {points!r}"
            raise ValueError(msg)
        values = list(points) if isinstance(points, Sequence) else [points]
        points = pl.DataFrame({"threshold": values}, schema={"threshold": pl.Float64})
    wanted = _collect(cast(Frame, points), "points")
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
        key, order = "__point_key", "__point_order"
        grid = wanted.select(*shared, pl.col("threshold").cast(pl.Float64)).with_row_index(order)
        if curve_groups is not None:
            grid = (
                curve_groups.join(grid, on=shared, how="inner")
                if shared
                else curve_groups.join(grid, how="cross")
            )
        grid = grid.with_columns((-pl.col("threshold")).alias(key)).sort(key)
        line = full.select(*groups, (-pl.col("threshold").cast(pl.Float64)).alias(key), x, y)
        found = grid.join_asof(
            line, on=key, by=groups or None, strategy="backward", check_sortedness=False
        )
        # Back to group order, then the order the thresholds were given in.
        found = found.sort([*groups, order], nulls_last=False).drop(key, order)
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
        alt.Tooltip(f"{f}:N", title=t)
        for f, t in ((PANEL, "panel"), (CURVE, color or "curve"))
        if f in labels.columns
    ]


def _points_layer(labels: pl.DataFrame, color: str | None, x: str, y: str) -> alt.Chart:
    tooltip = _group_tooltips(labels, color)
    tooltip += [alt.Tooltip("threshold:N", title="threshold"), alt.Tooltip(f"{x}:Q", format=".4f"),
                alt.Tooltip(f"{y}:Q", format=".4f")]  # fmt: skip
    return (
        alt.Chart()
        .transform_filter(_is_layer("point"))
        .mark_point(
            shape="diamond", size=90, filled=True, opacity=1, stroke="black", strokeWidth=0.8
        )
        .encode(
            x=alt.X(f"{x}:Q", scale=_unit_scale()),
            y=alt.Y(f"{y}:Q", scale=_unit_scale()),
            tooltip=tooltip,
            **_color(labels, color),
        )
    )


def _point_records(
    full: pl.DataFrame, points: Points, groups: list[str], labels: pl.DataFrame, x: str, y: str,
    sources: dict[str, str],
) -> pl.DataFrame:  # fmt: skip
    found = _lookup_points(full, points, groups, x, y, sources)
    found = _attach(found, labels, groups)
    if "threshold" in found.columns:
        found = found.with_columns(_threshold_text())
    threshold = ["threshold"] if "threshold" in found.columns else []
    return _marked(
        found.select(*_label_fields(labels), *threshold, _coordinate(x), _coordinate(y)), "point"
    )


# --------------------------------------------------------------------------------------
# ROC


def _trapezoid(by: list[str], x: str, y: str) -> pl.Expr:
    """Area under each curve by trapezoids (a frame sorted by group, in curve order)."""
    xs, ys = pl.col(x), pl.col(y)
    slab = pl.when(group_start(by)).then(0.0).otherwise((xs - xs.shift(1)) * (ys + ys.shift(1)) / 2)
    return slab


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


def _hull_vertices(full: pl.DataFrame, groups: list[str]) -> pl.DataFrame:
    """ROC convex hull vertices ``[*groups, threshold, fpr, tpr]`` of every curve, by the
    library's hull (:func:`polars_roc.roc_hull`), on the full curve before thinning."""
    points = full.lazy().drop("vertex", "on_hull", strict=False)
    return (
        hull_flags(points, groups)
        .filter(pl.col("vertex"))
        .select(*groups, "threshold", "fpr", "tpr")
        .drop_nulls(["fpr", "tpr"])
        .collect()
    )


def roc_chart(
    curve: Frame,
    *,
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
    hull: bool = False,
    points: Points = None,
    optimal: Frame | Literal["youden"] | None = None,
    max_points: int | None = DEFAULT_MAX_POINTS,
) -> alt.LayerChart | alt.FacetChart:
    """ROC curves of a :func:`polars_roc.roc_curve` frame as an Altair chart.

    Each curve is a straight-segment line from (0, 0) to (1, 1) over the chance diagonal,
    on square [0, 1] scales. Its exact AUC (trapezoids over every point, before thinning)
    is shown in the legend label (``color=``), the facet header (``facet=``), or, with
    both, as a note inside each panel. Tooltips give the threshold, tpr, fpr, tp and fp
    of each point. The chart is unconfigured and untitled.

    Parameters
    ----------
    curve
        The frame of :func:`polars_roc.roc_curve` (eager or lazy): ``[*by, threshold, tp,
        fp, fn, tn, tpr, fpr]``, one block of rows per group.
    color
        The group column telling curves apart by color (models, folds).
    facet
        The group column giving one panel per value (segments). Without ``color`` and
        ``facet``, a frame with exactly one group column colors by it; every group
        column of the frame must be named by one of them.
    columns
        Panels per row of the facet; by default 4 (``FACET_COLUMNS``), so that many
        panels wrap into rows about 1,200 px wide. Pass a large number for one row.
    hull
        Overlay each curve's ROC convex hull (dashed).
    points
        Operating points to mark: a threshold, a list of thresholds, or a frame with a
        ``threshold`` column (and optionally group columns), or the rows of
        ``confusion(...)`` (columns ``tpr``, ``fpr``). A threshold ``t`` marks the point
        of the rows with ``score >= t``.
    optimal
        The frame of :func:`polars_roc.optimal_point` (one row per curve, with the
        curve's group columns): each curve gets its optimal point (a square, tooltip
        threshold, slope and expected cost) and the iso-performance line through it,
        ``tpr = tpr0 + slope * (fpr - fpr0)``, clipped to the unit square (dotted).
        Every point on that line has the same expected cost; the curve lies on or
        below it. ``"youden"`` takes each curve's point of largest ``tpr - fpr``
        (slope 1, as ``optimal_point(slope=1)``). A square on the plot's border is
        drawn inside it. Where the optimal point is a corner (on imbalanced data at
        equal costs, often (0, 0): no threshold beats calling every case negative), the
        panel says so in a note and one warning gives, per curve, the cost ratio
        ``cost_fn / cost_fp`` from which a non-trivial point takes over.
    max_points
        The most points drawn per curve (``None``: all); see :func:`thin_curve`. The
        area of the drawn curve is within :func:`thinning_bound` of the exact AUC.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Layers: the chance diagonal, the curves, then the hull, operating points,
        iso-performance lines and optimal points, and AUC notes when asked for; faceted
        last when ``facet`` is given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.3], "label": [1, 0, 1, 0]})
    >>> chart = pr.roc_chart(pr.roc_curve(log))
    >>> spec = chart.to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'line']
    >>> spec["layer"][1]["encoding"]["color"]["sort"]
    ['AUC 0.750']
    """
    _check_max_points(max_points)
    full = _collect(curve, "curve")
    _require(full, ["threshold", "tp", "fp", "tpr", "fpr"], "curve",
             "pass the frame of roc_curve(...) / df.roc.curve(...)")  # fmt: skip
    color, facet = _roles(full, ROC_VALUE_COLUMNS, color, facet, columns, "curve")
    groups = [g for g in (facet, color) if g is not None]
    labels = _labels(
        _summary(full, groups, _trapezoid(groups, "fpr", "tpr"), ("fpr", "tpr")),
        color,
        facet,
        "AUC",
    )

    drawn = _thin(full.lazy(), groups, "fpr", "tpr", max_points).collect()
    label_fields = _label_fields(labels)
    drawn = _attach(drawn, labels, groups).select(
        *label_fields, _threshold_text(), _coordinate("fpr"), _coordinate("tpr"), "tp", "fp"
    )
    frames = [
        _marked(_panels(labels, facet), "chance").select(LAYER, *([PANEL] if facet else [])),
        drawn,
    ]
    layers = [
        _chance_layer(),
        _curve_layer(labels, color, "fpr", "tpr", ("tp", "fp"), ROC_X_TITLE, ROC_Y_TITLE, "linear"),
    ]
    if hull:
        vertices = _attach(_hull_vertices(full, groups), labels, groups)
        frames.append(_marked(vertices.select(*label_fields, "fpr", "tpr"), "hull"))
        layers.append(_hull_layer(labels, color))
    if points is not None:
        frames.append(
            _point_records(full, points, groups, labels, "fpr", "tpr", {"fpr": "fpr", "tpr": "tpr"})
        )
        layers.append(_points_layer(labels, color, "fpr", "tpr"))
    if isinstance(optimal, str):
        optimal = _youden_optimal(full, groups, optimal)
    if optimal is not None:
        best = _attach(_optimal_rows(optimal, groups), labels, groups)
        slope = _slope_text()
        frames += [_marked(_iso_ends(best).select(*label_fields, "fpr", "tpr", slope), "iso"),
                   _marked(best.select(*label_fields, _threshold_text(), _coordinate("fpr"),
                                       _coordinate("tpr"), slope, "expected_cost"),
                           "optimal")]  # fmt: skip
        layers.append(_iso_layer(labels, color))
        corners = _corner_optima(full, optimal, groups)
        if corners.height:
            # The warning is for what costs can fix; a curve that never rises above
            # chance (no ratio helps) is only noted on the chart.
            fixable = corners.filter(pl.col("ratio").is_not_null())
            if fixable.height:
                _warn_corner_optima(fixable, groups)
            frames.append(_corner_notes(_attach(corners, labels, groups), facet, label_fields))
            layers.append(_corner_note_layer(labels, color))
        layers.append(_optimal_layer(labels, color))
    notes, note_layer = _note_layer(labels, color, facet, "tpr")
    if notes is not None and note_layer is not None:
        frames.append(notes)
        layers.append(note_layer)
    records = _records(pl.concat(frames, how="diagonal_relaxed"))
    return _assemble(layers, records, labels, facet, columns)


def _attach(points: pl.DataFrame, labels: pl.DataFrame, groups: list[str]) -> pl.DataFrame:
    fields = _label_fields(labels)
    if groups:
        return points.join(labels.select(*groups, *fields), on=groups, how="left",
                           maintain_order="left", nulls_equal=True)  # fmt: skip
    return points.with_columns(
        pl.lit(v).alias(k) for k, v in labels.select(fields).row(0, named=True).items()
    )


def _chance_layer() -> alt.Chart:
    return (
        alt.Chart()
        .transform_filter(_is_layer("chance"))
        .mark_rule(color="gray", strokeDash=[4, 4])
        .encode(
            x=alt.datum(0, scale=_unit_scale()),
            y=alt.datum(0, scale=_unit_scale()),
            x2=alt.datum(1),
            y2=alt.datum(1),
        )
    )


def _curve_layer(
    labels: pl.DataFrame, color: str | None, x: str, y: str, counts: tuple[str, ...],
    x_title: str, y_title: str, interpolate: str,
) -> alt.Chart:  # fmt: skip
    tooltip = _group_tooltips(labels, color)
    tooltip += [alt.Tooltip("threshold:N", title="threshold (score >=)"),
                alt.Tooltip(f"{y}:Q", format=".4f"), alt.Tooltip(f"{x}:Q", format=".4f"),
                *(alt.Tooltip(f"{c}:Q") for c in counts)]  # fmt: skip
    return (
        alt.Chart()
        .transform_filter(_is_layer(None))
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


def _hull_layer(labels: pl.DataFrame, color: str | None) -> alt.Chart:
    return (
        alt.Chart()
        .transform_filter(_is_layer("hull"))
        # Both rates grow along the hull, so their sum orders its vertices.
        .transform_calculate(_order="datum.fpr + datum.tpr")
        .mark_line(strokeDash=[6, 3], strokeWidth=1.5, opacity=0.8)
        .encode(
            x=alt.X("fpr:Q", scale=_unit_scale()),
            y=alt.Y("tpr:Q", scale=_unit_scale()),
            order=alt.Order("_order:Q"),
            **_color(labels, color),
        )
    )


OPTIMAL_VALUE_COLUMNS = frozenset(
    {"slope", "prevalence", "threshold", "tp", "fp", "fn", "tn", "tpr", "fpr",
     "expected_cost", "error_rate"}
)  # fmt: skip


def _optimal_rows(optimal: Frame, groups: list[str]) -> pl.DataFrame:
    """The rows of ``optimal=`` as ``[*groups, threshold, slope, expected_cost, fpr,
    tpr]``, leaving out the curves without an optimal point (one class only)."""
    rows = _collect(optimal, "optimal")
    _require(rows, ["threshold", "slope", "expected_cost", "tpr", "fpr"], "optimal",
             "pass the frame of optimal_point(...) / df.roc.optimal_point(...)")  # fmt: skip
    own = [c for c in rows.columns if c not in OPTIMAL_VALUE_COLUMNS]
    if sorted(own) != sorted(groups):
        msg = (
            f"`optimal` has group column(s) {own!r} but the chart shows {groups!r}; "
            "compute optimal_point(...) with the same `by` as the curve"
        )
        raise ValueError(msg)
    if rows.height:
        slopes = rows.get_column("slope").drop_nulls()
        if (slopes < 0).any() or slopes.is_nan().any():
            msg = f"`optimal` column 'slope' must be >= 0, got {slopes.min()!r}"
            raise ValueError(msg)
    return rows.select(
        *groups, "threshold", "slope", "expected_cost",
        *(pl.col(c).cast(pl.Float64) for c in ("fpr", "tpr")),
    ).drop_nulls(["slope", "fpr", "tpr"])  # fmt: skip


def _slope_text() -> pl.Expr:
    """Slopes as short text (JSON has no infinity): "+inf" for a vertical line."""
    m = pl.col("slope").cast(pl.Float64)
    text = m.round_sig_figs(6).cast(pl.String)
    return pl.when(m.is_infinite()).then(pl.lit("+inf")).otherwise(text).alias("slope")


def _iso_ends(best: pl.DataFrame) -> pl.DataFrame:
    """The two ends of each iso-performance line ``tpr = tpr0 + m (fpr - fpr0)`` within
    the unit square: where it leaves the square through the bottom or left side, and
    through the top or right side (slope 0: horizontal; slope inf: vertical)."""
    x0, y0, m = pl.col("fpr"), pl.col("tpr"), pl.col("slope")
    flat, steep = m == 0, m.is_infinite()
    x_low = pl.when(flat).then(0.0).otherwise(pl.max_horizontal(0.0, x0 - y0 / m))
    x_high = pl.when(flat).then(1.0).otherwise(pl.min_horizontal(1.0, x0 + (1.0 - y0) / m))
    ends = []
    for x_end, y_steep, end in ((x_low, 0.0, 0), (x_high, 1.0, 1)):  # the two ends
        y_end = pl.when(steep).then(y_steep).otherwise((y0 + m * (x_end - x0)).clip(0.0, 1.0))
        ends.append(
            best.with_columns(
                x_end.round(6).alias("_x"), y_end.round(6).alias("_y"), pl.lit(end).alias("_end")
            )
        )
    return pl.concat(ends).drop("fpr", "tpr").rename({"_x": "fpr", "_y": "tpr"})


def _iso_layer(labels: pl.DataFrame, color: str | None) -> alt.Chart:
    return (
        alt.Chart()
        .transform_filter(_is_layer("iso"))
        .mark_line(strokeDash=[2, 3], strokeWidth=1.5, clip=True)
        .encode(
            x=alt.X("fpr:Q", scale=_unit_scale()),
            y=alt.Y("tpr:Q", scale=_unit_scale()),
            tooltip=[alt.Tooltip("slope:N", title="iso-performance slope")],
            **_color(labels, color),
        )
    )


def _optimal_layer(labels: pl.DataFrame, color: str | None) -> alt.Chart:
    tooltip = _group_tooltips(labels, color)
    tooltip += [alt.Tooltip("threshold:N", title="threshold (score >=)"),
                alt.Tooltip("slope:N", title="iso-performance slope"),
                alt.Tooltip("expected_cost:Q", title="expected cost", format=".4f"),
                alt.Tooltip("tpr:Q", format=".4f"), alt.Tooltip("fpr:Q", format=".4f")]  # fmt: skip
    return (
        alt.Chart()
        .transform_filter(_is_layer("optimal"))
        .mark_point(
            shape="square", size=80, filled=True, opacity=1, stroke="black", strokeWidth=0.8,
            # A square on or near the border (often at (0, 0)) moves inward so that it is
            # drawn whole inside the plot: its centre at least its half side from each
            # edge. Pixels of the SIZE-px panel; tooltips keep the exact rates.
            xOffset={"expr": _inset_expr(f"datum.fpr * {SIZE}")},
            yOffset={"expr": _inset_expr(f"(1 - datum.tpr) * {SIZE}")},
        )
        .encode(
            x=alt.X("fpr:Q", scale=_unit_scale()),
            y=alt.Y("tpr:Q", scale=_unit_scale()),
            tooltip=tooltip,
            **_color(labels, color),
        )
    )


# Half the side of an optimal-point square (size 80 px², stroke 0.8) in pixels.
BORDER_INSET = 5


def _inset_expr(pixel: str) -> str:
    """Vega expression: the offset moving a mark at ``pixel`` into [inset, SIZE - inset]."""
    return f"clamp({pixel}, {BORDER_INSET}, {SIZE - BORDER_INSET}) - {pixel}"


def _youden_optimal(full: pl.DataFrame, groups: list[str], optimal: str) -> pl.DataFrame:
    """``optimal="youden"``: each curve's point of largest ``tpr - fpr`` (slope 1), the
    highest threshold among ties, in the columns of :func:`polars_roc.optimal_point`."""
    if optimal != "youden":
        msg = f"`optimal` as text must be 'youden', got {optimal!r}"
        raise ValueError(msg)
    from polars_roc._operating import at_best, pick

    points = full.lazy().with_columns(
        (pl.col("tp") + pl.col("fn")).alias("n_pos"), (pl.col("fp") + pl.col("tn")).alias("n_neg")
    )
    gain = pl.col("tpr").cast(pl.Float64) - pl.col("fpr").cast(pl.Float64)
    picked = pick(points, groups, at_best(gain), ["threshold", "tpr", "fpr"]).collect()
    share = ratio(pl.col("n_pos"), pl.col("n_pos") + pl.col("n_neg"))
    tpr, fpr = pl.col("tpr").cast(pl.Float64), pl.col("fpr").cast(pl.Float64)
    return picked.select(
        *groups,
        pl.when(tpr.is_not_null()).then(pl.lit(1.0)).alias("slope"),
        share.alias("prevalence"),
        "threshold",
        tpr.alias("tpr"),
        fpr.alias("fpr"),
        # optimal_point's expected cost at slope 1 and cost_fn = 1: p (1 - tpr + fpr).
        (share * (1.0 - tpr + fpr)).alias("expected_cost"),
    )


def _corner_optima(full: pl.DataFrame, optimal: Frame, groups: list[str]) -> pl.DataFrame:
    """The curves whose optimal point is a corner: (0, 0) (call every case negative) or
    (1, 1) (every case positive), while the curve has other points.

    ``[*groups, corner, ratio]``: ``ratio`` is the cost ratio ``cost_fn / cost_fp``
    beyond which (for (0, 0); at or below which for (1, 1)) a non-trivial point is
    optimal, at the prevalence of ``optimal`` (the curve's own when it has none); null
    when no ratio gives one. A point (fpr, tpr) beats (0, 0) when the slope
    ``m < tpr / fpr`` and beats (1, 1) when ``m >= (1 - tpr) / (1 - fpr)`` (ties go to
    the higher threshold), and ``m = ((1 - p) / p) * (cost_fp / cost_fn)``.
    """
    rows = _collect(optimal, "optimal")
    tpr, fpr = pl.col("tpr").cast(pl.Float64), pl.col("fpr").cast(pl.Float64)
    at_origin, at_top = (tpr == 0) & (fpr == 0), (tpr == 1) & (fpr == 1)
    best = rows.filter(at_origin | at_top).select(
        *groups, pl.when(at_origin).then(pl.lit("(0, 0)")).otherwise(pl.lit("(1, 1)"))
        .alias("corner"),
        pl.col("slope").cast(pl.Float64),
        *([pl.col("prevalence").cast(pl.Float64)] if "prevalence" in rows.columns else []),
    )  # fmt: skip
    if best.height == 0:
        return best.select(*groups, "corner", pl.lit(None, pl.Float64).alias("ratio"))
    inner = full.filter(~(at_origin | at_top) & tpr.is_not_null() & fpr.is_not_null())
    bounds = [
        pl.when(fpr > 0).then(tpr / fpr).when(tpr > 0).then(float("inf")).max().alias("_steep"),
        pl.when(fpr < 1).then((1.0 - tpr) / (1.0 - fpr)).min().alias("_flat"),
        (pl.col("tp") + pl.col("fn")).first().cast(pl.Float64).alias("_pos"),
        (pl.col("fp") + pl.col("tn")).first().cast(pl.Float64).alias("_neg"),
    ]
    found = inner.group_by(groups, maintain_order=True).agg(bounds) if groups else inner.select(
        bounds
    )
    if groups:
        best = best.join(found, on=groups, how="inner", nulls_equal=True, maintain_order="left")
    elif inner.height:
        best = pl.concat([best, found], how="horizontal")
    else:
        best = best.clear().with_columns(found.clear())
    share = (
        pl.col("prevalence")
        if "prevalence" in best.columns
        else pl.col("_pos") / (pl.col("_pos") + pl.col("_neg"))
    )
    odds = (1.0 - share) / share
    steep, flat = pl.col("_steep"), pl.col("_flat")
    ratio_origin = pl.when(steep.is_infinite()).then(0.0).when(steep > 0).then(odds / steep)
    ratio_top = pl.when(flat > 0).then(odds / flat).when(flat == 0).then(float("inf"))
    ratio_ = pl.when(pl.col("corner") == "(0, 0)").then(ratio_origin).otherwise(ratio_top)
    # Only a corner that is optimal at the row's slope for this curve (a frame made for
    # another curve, or by hand, is drawn as given and not explained).
    # Ties are decided up to rounding, as optimal_point decides them.
    m = pl.col("slope")
    genuine: Any = pl.when(pl.col("corner") == "(0, 0)").then(
        steep.is_null() | (m >= steep * (1.0 - 1e-9))
    )
    genuine = genuine.otherwise(flat.is_null() | (m <= flat * (1.0 + 1e-9)))
    return best.filter(genuine).select(*groups, "corner", ratio_.alias("ratio"))


def _corner_rule(corner: pl.Expr, ratio_: pl.Expr) -> pl.Expr:
    """Short text for the chart note: which corner, and the cost ratio that moves it."""
    where = pl.format("{} optimal", corner)
    moved = (
        pl.when(ratio_.is_null()).then(pl.lit(" at every cost ratio"))
        .when(corner == "(0, 0)")
        .then(pl.format(" unless cost_fn/cost_fp > {}", ratio_.round_sig_figs(3)))
        .otherwise(pl.format(" unless cost_fn/cost_fp <= {}", ratio_.round_sig_figs(3)))
    )  # fmt: skip
    return pl.concat_str([where, moved])


def _warn_corner_optima(corners: pl.DataFrame, groups: list[str]) -> None:
    described = []
    for row in corners.head(10).iter_rows(named=True):
        name = ", ".join(f"{g}={row[g]!r}" for g in groups) or "the curve"
        rule = "every case negative" if row["corner"] == "(0, 0)" else "every case positive"
        if row["corner"] == "(0, 0)":
            takes_over = f"a non-trivial point from cost_fn / cost_fp > {row['ratio']:.4g}"
        else:
            takes_over = f"a non-trivial point from cost_fn / cost_fp <= {row['ratio']:.4g}"
        described.append(f"{name} at {row['corner']} (call {rule}; {takes_over})")
    more = f" and {corners.height - 10} more" if corners.height > 10 else ""
    msg = (
        "the optimal point is a trivial rule for " + "; ".join(described) + more + ": at "
        "this prevalence and these costs no threshold does better. State what a missed "
        "positive costs (optimal={'cost_fn': ...}) or use optimal='youden' (slope 1)"
    )
    warnings.warn(msg, UserWarning, stacklevel=3)


def _corner_notes(
    corners: pl.DataFrame, facet: str | None, label_fields: list[str]
) -> pl.DataFrame:
    """One note per curve with a corner optimum, stacked in the empty lower right."""
    rank = pl.int_range(pl.len()).over(PANEL) if facet else pl.int_range(pl.len())
    return _marked(
        corners.select(
            *label_fields,
            _corner_rule(pl.col("corner"), pl.col("ratio")).alias("_corner_note"),
            (0.30 + 0.07 * rank).alias("tpr"),
        ),
        "corner",
    )


def _corner_note_layer(labels: pl.DataFrame, color: str | None) -> alt.Chart:
    return (
        alt.Chart()
        .transform_filter(_is_layer("corner"))
        .mark_text(align="right", baseline="middle", fontSize=10)
        .encode(
            x=alt.datum(0.98, scale=_unit_scale()),
            y=alt.Y("tpr:Q", scale=_unit_scale()),
            text="_corner_note:N",
            **_color(labels, color),
        )
    )


# --------------------------------------------------------------------------------------
# Precision-recall


def pr_points(curve: Frame) -> Frame:
    """Precision-recall points from a :func:`polars_roc.roc_curve` frame.

    ``precision = tp / (tp + fp)`` and ``recall = tpr`` at each threshold; the start point
    (threshold +inf, nothing predicted positive) gets precision 1, as in scikit-learn.

    Returns
    -------
    DataFrame or LazyFrame
        The curve's group columns, then ``threshold, tp, fp, precision, recall``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> from polars_roc.charts import pr_points
    >>> log = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.3], "label": [1, 0, 1, 0]})
    >>> pr_points(pr.roc_curve(log)).select("threshold", "precision", "recall")
    shape: (5, 3)
    ┌───────────┬───────────┬────────┐
    │ threshold ┆ precision ┆ recall │
    │ ---       ┆ ---       ┆ ---    │
    │ f64       ┆ f64       ┆ f64    │
    ╞═══════════╪═══════════╪════════╡
    │ inf       ┆ 1.0       ┆ 0.0    │
    │ 0.9       ┆ 1.0       ┆ 0.5    │
    │ 0.8       ┆ 0.5       ┆ 0.5    │
    │ 0.7       ┆ 0.666667  ┆ 1.0    │
    │ 0.3       ┆ 0.5       ┆ 1.0    │
    └───────────┴───────────┴────────┘
    """
    lazy = curve.lazy() if isinstance(curve, pl.DataFrame) else curve
    names = lazy.collect_schema().names()
    groups = [c for c in names if c not in ROC_VALUE_COLUMNS]
    result = lazy.select(
        *groups, "threshold", "tp", "fp",
        precision_at(pl.col("tp"), pl.col("fp"), start=pl.col("threshold") == math.inf)
        .alias("precision"),
        pl.col("tpr").alias("recall"),
    )  # fmt: skip
    return result.collect() if isinstance(curve, pl.DataFrame) else result


def pr_chart(
    curve: Frame,
    *,
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
    points: Points = None,
    max_points: int | None = DEFAULT_MAX_POINTS,
) -> alt.LayerChart | alt.FacetChart:
    """Precision-recall curves as an Altair chart, with the baseline at the prevalence.

    Takes a precision-recall frame (columns ``threshold, tp, fp, precision, recall`` per
    group: :func:`polars_roc.pr_curve`) or a :func:`polars_roc.roc_curve` frame, which it
    converts with :func:`pr_points`. Each curve is drawn as steps (precision holds over each recall
    interval, as average precision counts it): the same path as scikit-learn's
    ``PrecisionRecallDisplay`` (its points with ``drawstyle="steps-post"``; tested),
    starting at recall 0, precision 1 (the +inf threshold, where scikit-learn also puts
    precision 1), so when the top scores hold negatives the path first drops
    vertically at recall 0 to their precision. A dashed rule marks each curve's prevalence
    ``n_pos / n``, the precision of a random classifier. The average precision
    ``sum((recall[i] - recall[i-1]) * precision[i])`` of every curve (before thinning)
    goes to the legend, the facet header or a note, as in :func:`roc_chart`.

    Parameters
    ----------
    curve
        Precision-recall or ROC curve frame, eager or lazy.
    color, facet, columns, max_points
        As in :func:`roc_chart`.
    points
        Operating points: thresholds, a frame with ``threshold``, or ``confusion(...)``
        rows (columns ``ppv``, ``tpr``).

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Layers: baselines, curves, then operating points and notes; faceted last.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.3], "label": [1, 0, 1, 0]})
    >>> spec = pr.pr_chart(pr.roc_curve(log)).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'line']
    >>> spec["layer"][1]["encoding"]["color"]["sort"]
    ['AP 0.833']
    """
    _check_max_points(max_points)
    full = _collect(curve, "curve")
    if "precision" not in full.columns and "tpr" in full.columns:
        full = cast(pl.DataFrame, pr_points(full))
    _require(full, ["threshold", "tp", "fp", "precision", "recall"], "curve",
             "pass a precision-recall frame or the frame of roc_curve(...)")  # fmt: skip
    color, facet = _roles(full, PR_VALUE_COLUMNS, color, facet, columns, "curve")
    groups = [g for g in (facet, color) if g is not None]
    recall, precision = pl.col("recall"), pl.col("precision")
    step = pl.when(group_start(groups)).then(0.0).otherwise((recall - recall.shift(1)) * precision)
    labels = _labels(_summary(full, groups, step, ("recall", "precision")), color, facet, "AP")

    drawn = _thin(full.lazy(), groups, "recall", "precision", max_points).collect()
    label_fields = _label_fields(labels)
    drawn = _attach(drawn, labels, groups).select(
        *label_fields,
        _threshold_text(),
        _coordinate("recall"),
        _coordinate("precision"),
        "tp",
        "fp",
    )
    # The last point (lowest threshold) predicts everything positive: its precision is
    # the prevalence.
    ends = full.filter(group_end(groups)).select(
        *groups, ratio(pl.col("tp"), pl.col("tp") + pl.col("fp")).alias("_base")
    )
    baselines = _marked(_attach(ends, labels, groups).select(*label_fields, "_base"), "baseline")
    frames = [baselines, drawn]
    curves = _curve_layer(
        labels, color, "recall", "precision", ("tp", "fp"), PR_X_TITLE, PR_Y_TITLE, "step-before"
    )
    layers = [_baseline_layer(labels, color), curves]
    if points is not None:
        sources = {"recall": "tpr", "precision": "ppv"}
        wanted = (
            _collect(points, "points")
            if isinstance(points, (pl.DataFrame, pl.LazyFrame))
            else points
        )
        if isinstance(wanted, pl.DataFrame) and {"recall", "precision"} <= set(wanted.columns):
            sources = {"recall": "recall", "precision": "precision"}
        frames.append(_point_records(full, wanted, groups, labels, "recall", "precision", sources))
        layers.append(_points_layer(labels, color, "recall", "precision"))
    notes, note_layer = _note_layer(labels, color, facet, "precision")
    if notes is not None and note_layer is not None:
        frames.append(notes)
        layers.append(note_layer)
    records = _records(pl.concat(frames, how="diagonal_relaxed"))
    return _assemble(layers, records, labels, facet, columns)


def _baseline_layer(labels: pl.DataFrame, color: str | None) -> alt.Chart:
    channels = _color(labels, color) or {"color": alt.value("gray")}
    return (
        alt.Chart()
        .transform_filter(_is_layer("baseline"))
        .mark_rule(strokeDash=[4, 4], opacity=0.7)
        .encode(
            x=alt.datum(0, scale=_unit_scale()),
            x2=alt.datum(1),
            y=alt.Y("_base:Q", scale=_unit_scale()),
            tooltip=[alt.Tooltip("_base:Q", title="prevalence", format=".4f")],
            **channels,
        )
    )


# --------------------------------------------------------------------------------------
# Confusion matrix


def confusion_chart(
    confusion: Frame,
    *,
    facet: str | None = None,
    columns: int | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """The 2x2 confusion matrix at one threshold as a heat map, one panel per group.

    Columns are the actual class, rows the predicted class (``score >= threshold`` is
    predicted positive). Each cell shows its count and its rate within the actual class
    (tpr, fnr, fpr, tnr). The rate also sets the cell's shade on a fixed scale, in blue
    for the correct cells (TP, TN) and in red for the errors (FN, FP): a dark blue
    diagonal reads as good and a dark red cell as a problem at a glance. (The color
    field ``shade`` is the rate, negated for the errors, on a red-blue scale over
    [-1, 1]; the legend shows the rate.)

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
    rows = _collect(confusion, "confusion")
    _require(rows, ["threshold", "tp", "fp", "fn", "tn"], "confusion",
             "pass the rows of confusion_matrix(...) / df.roc.confusion(...)")  # fmt: skip
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
        panel = [
            (
                _as_text(facet)
                + pl.lit(" (threshold ")
                + pl.col("threshold").round_sig_figs(6).cast(pl.String)
                + pl.lit(")")
            ).alias(PANEL)
        ]
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
                pl.format(
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
    rect = alt.Chart().mark_rect().encode(
        x=alt.X("actual:N", sort=axis_order, title="Actual class", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("predicted:N", sort=axis_order, title="Predicted class"),
        color=alt.Color("shade:Q", scale=alt.Scale(domain=[-1, 1], scheme="redblue"),
                        legend=alt.Legend(title="rate within actual class",
                                          labelExpr="format(abs(datum.value), '.1f') + "
                                                    "(datum.value < 0 ? ' wrong' : "
                                                    "datum.value > 0 ? ' right' : '')")),
        tooltip=[alt.Tooltip("actual:N"), alt.Tooltip("predicted:N"), alt.Tooltip("count:Q"),
                 alt.Tooltip("rate:Q", format=".4f")],
    )  # fmt: skip
    text = (
        alt.Chart()
        .mark_text(lineBreak="\n", fontSize=13)
        .encode(
            x=alt.X("actual:N", sort=axis_order),
            y=alt.Y("predicted:N", sort=axis_order),
            text="_text:N",
            color=alt.condition("abs(datum.shade) > 0.5", alt.value("white"),
                                alt.value("black")),
        )
    )
    chart = alt.layer(rect, text, data={"values": _records(data)}).properties(width=180, height=180)
    if facet is None:
        return chart
    order = rows.select(panel).get_column(PANEL).to_list()
    return chart.facet(facet=alt.Facet(f"{PANEL}:N", sort=order, title=facet,
                                       header=alt.Header(labelLimit=0)),
                       columns=CONFUSION_FACET_COLUMNS if columns is None else columns)  # fmt: skip


# --------------------------------------------------------------------------------------
# Gains and lift

GAINS_X_TITLE = "Share of the population targeted (depth)"
GAINS_Y_TITLE = "Share of the positives captured (cumulative gain)"
BINNED_GAINS_COLUMNS = frozenset(
    {"bin", "score_min", "score_max", "count", "pos", "neg", "rate", "cum_count", "cum_pos",
     "cum_neg", "capture", "lift", "cum_lift", "ks"}
)  # fmt: skip
LIFT_CURVE_COLUMNS = frozenset({"threshold", "tp", "fp", "depth", "capture", "precision", "lift"})


def _group_labels(
    full: pl.DataFrame, groups: list[str], color: str | None, facet: str | None
) -> pl.DataFrame:
    """One row per curve: its groups, legend label ``_curve`` and header ``_panel``."""
    if not groups:  # one curve, no label: a one-row frame holds its place
        return pl.DataFrame({"_curves": [1]})
    keys = full.select(groups).unique(maintain_order=True)
    return keys.with_columns(
        _as_text(c).alias(f) for c, f in ((color, CURVE), (facet, PANEL)) if c is not None
    )


def gains_chart(
    table: Frame,
    *,
    kind: Literal["gains", "lift"] = "gains",
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
    max_points: int | None = DEFAULT_MAX_POINTS,
) -> alt.LayerChart | alt.FacetChart:
    """Cumulative gains or lift of a gains table or lift curve as an Altair chart.

    Takes the frame of :func:`polars_roc.gains_table` or :func:`polars_roc.lift_curve`.
    ``kind="gains"``: the share of the positives captured (``capture``) against the
    share of the population targeted from the top score down (depth: ``cum_count`` over
    the group's count for a gains table, ``depth`` for a lift curve), from (0, 0) to
    (1, 1), over the diagonal of random targeting. ``kind="lift"``: the lift of each bin
    (``lift``, bars by ``bin``) of a gains table, or the cumulative lift against depth of
    a lift curve, over a rule at lift 1.

    Parameters
    ----------
    table
        The frame of :func:`polars_roc.gains_table` (``[*by, bin, ..., cum_count,
        capture, lift, ...]``) or of :func:`polars_roc.lift_curve` (``[*by, threshold,
        tp, fp, depth, capture, precision, lift]``), eager or lazy.
    kind
        ``"gains"`` or ``"lift"``.
    color, facet, columns
        As in :func:`roc_chart`.
    max_points
        The most points drawn per lift curve (thinned along ``depth`` and ``capture``,
        see :func:`thin_curve`); gains tables are drawn whole.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Layers: the diagonal (gains) or the rule at lift 1, then the curves or bars;
        faceted last when ``facet`` is given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.3], "label": [1, 0, 1, 0]})
    >>> spec = pr.gains_chart(pr.gains_table(log, n_bins=2)).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'line']
    >>> [(row["depth"], row["capture"]) for row in spec["datasets"][spec["data"]["name"]]
    ...  if "depth" in row]
    [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0)]
    """
    if kind not in ("gains", "lift"):
        msg = f"`kind` must be 'gains' or 'lift', got {kind!r}"
        raise ValueError(msg)
    _check_max_points(max_points)
    full = _collect(table, "table")
    binned = "bin" in full.columns
    needed = ["bin", "cum_count", "capture", "lift"] if binned else ["depth", "capture", "lift"]
    _require(full, needed, "table", "pass the frame of gains_table(...) or lift_curve(...)")
    values = BINNED_GAINS_COLUMNS if binned else LIFT_CURVE_COLUMNS
    color, facet = _roles(full, values, color, facet, columns, "table")
    groups = [g for g in (facet, color) if g is not None]
    labels = _group_labels(full, groups, color, facet)
    label_fields = _label_fields(labels)
    if binned:
        total = pl.when(group_end(groups)).then(pl.col("cum_count")).backward_fill()
        points = full.with_columns(ratio(pl.col("cum_count"), total).alias("depth"))
        details = ["bin", "score_min", "score_max", "count", "rate", "cum_lift"]
    else:
        points = _thin(full.lazy(), groups, "depth", "capture", max_points).collect()
        details = ["threshold", "precision"]
    details = [c for c in details if c in points.columns]
    points = (_attach(points, labels, groups) if groups else points).select(
        *label_fields,
        *(_threshold_text() if c == "threshold" else c for c in details),
        _coordinate("depth"),
        _coordinate("capture"),
        pl.col("lift").cast(pl.Float64).round(6),
    )
    panels = _marked(_panels(labels, facet), "chance").select(LAYER, *([PANEL] if facet else []))
    tooltip = _group_tooltips(labels, color)
    tooltip += [alt.Tooltip(f"{c}:{'N' if c == 'threshold' else 'Q'}") for c in details]
    tooltip += [alt.Tooltip(f"{c}:Q", format=".4f") for c in ("depth", "capture", "lift")]
    channels = _color(labels, color)
    # Rows are in targeting order (highest scores first): draw them in that order.
    points = points.with_row_index("_seq")
    if kind == "gains":
        starts = labels.select(
            *label_fields,
            pl.lit(0.0).alias("depth"),
            pl.lit(0.0).alias("capture"),
            pl.lit(-1).alias("_seq"),
        ).pipe(_marked, "start")
        unmarked = points.with_columns(pl.lit(None, pl.String).alias(LAYER))
        data = pl.concat([panels, starts, unmarked], how="diagonal_relaxed")
        curve = (
            alt.Chart()
            .transform_filter("!datum._layer || datum._layer === 'start'")
            .mark_line(strokeWidth=2, point=binned)
            .encode(
                x=alt.X("depth:Q", scale=_unit_scale(), axis=alt.Axis(title=GAINS_X_TITLE)),
                y=alt.Y("capture:Q", scale=_unit_scale(), axis=alt.Axis(title=GAINS_Y_TITLE)),
                order=alt.Order("_seq:Q"),
                tooltip=tooltip,
                **channels,
            )
        )
        layers = [_chance_layer(), curve]
    else:
        data = pl.concat([panels, points], how="diagonal_relaxed")
        one = (
            alt.Chart()
            .transform_filter(_is_layer("chance"))
            .mark_rule(color="gray", strokeDash=[4, 4])
            .encode(y=alt.datum(1))
        )
        lift_y = alt.Y("lift:Q", axis=alt.Axis(title="Lift"))
        if binned:
            offset = {"xOffset": alt.XOffset(f"{CURVE}:N", sort=_order(labels, CURVE))}
            bars = (
                alt.Chart()
                .transform_filter(_is_layer(None))
                .mark_bar()
                .encode(
                    x=alt.X("bin:O", axis=alt.Axis(title="Bin (1 = highest scores)",
                                                   labelAngle=0)),
                    y=lift_y,
                    tooltip=tooltip,
                    **channels,
                    **(offset if CURVE in labels.columns else {}),
                )
            )  # fmt: skip
        else:
            bars = (
                alt.Chart()
                .transform_filter(_is_layer(None))
                .mark_line(strokeWidth=2)
                .encode(
                    x=alt.X("depth:Q", scale=_unit_scale(), axis=alt.Axis(title=GAINS_X_TITLE)),
                    y=lift_y,
                    order=alt.Order("_seq:Q"),
                    tooltip=tooltip,
                    **channels,
                )
            )
        layers = [one, bars]
    return _assemble(layers, _records(data), labels, facet, columns)


# --------------------------------------------------------------------------------------
# Averaged curves

AVERAGE_VALUE_COLUMNS = frozenset(
    {"threshold", "fpr", "tpr", "fpr_std", "fpr_lower", "fpr_upper", "tpr_std", "tpr_lower",
     "tpr_upper", "n_curves"}
)  # fmt: skip


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
    full = _collect(average, "average")
    _require(full, ["fpr", "tpr", "tpr_lower", "tpr_upper", "n_curves"], "average",
             "pass the frame of average_curve(...)")  # fmt: skip
    by_threshold = "threshold" in full.columns
    if by_threshold:
        _require(full, ["fpr_lower", "fpr_upper"], "average",
                 "a threshold-averaged frame of average_curve(...) has them")  # fmt: skip
    color, facet = _roles(full, AVERAGE_VALUE_COLUMNS, color, facet, columns, "average")
    groups = [g for g in (facet, color) if g is not None]
    summary = (
        full.group_by(groups, maintain_order=True).agg(pl.col("n_curves").max().alias("n"))
        if groups
        else full.select(pl.col("n_curves").max().alias("n"))
    )
    count = pl.format("mean of {} curves", pl.col("n").fill_null(0))
    # The number of curves goes where a curve is named once: legend, or panel header.
    named: list[pl.Expr] = []
    if color is None and facet is None:
        named.append(count.alias(CURVE))
    if color is not None:
        text = _as_text(color)
        named.append((text + pl.lit(" (") + count + pl.lit(")") if facet is None else text)
                     .alias(CURVE))  # fmt: skip
    if facet is not None:
        text = _as_text(facet)
        named.append((text + pl.lit(" (") + count + pl.lit(")") if color is None else text)
                     .alias(PANEL))  # fmt: skip
    labels = summary.with_columns(named)
    label_fields = _label_fields(labels)
    rates = ["fpr", "tpr", "tpr_lower", "tpr_upper"]
    if by_threshold:
        rates += ["fpr_lower", "fpr_upper"]
    drawn = _attach(full, labels, groups).select(
        *label_fields,
        *([_threshold_text()] if by_threshold else []),
        *(_coordinate(c) for c in rates),
        "n_curves",
    )
    drawn = drawn.with_row_index("_seq")
    panels = _marked(_panels(labels, facet), "chance").select(LAYER, *([PANEL] if facet else []))
    channels = _color(labels, color)
    tooltip = _group_tooltips(labels, color)
    tooltip += [alt.Tooltip("threshold:N", title="threshold (score >=)")] if by_threshold else []
    tooltip += [alt.Tooltip(f"{c}:Q", format=".4f") for c in rates]
    tooltip += [alt.Tooltip("n_curves:Q", title="curves averaged")]

    if channels:  # the legend shows the mean curves' lines, not the pale bands
        legend = alt.Legend(title=color, labelLimit=0, symbolType="stroke",
                            symbolStrokeWidth=2, symbolOpacity=1)  # fmt: skip
        channels = {"color": alt.Color(f"{CURVE}:N", sort=_order(labels, CURVE), legend=legend)}

    def band(orient: str) -> alt.Chart:
        ends = (
            {"x": alt.X("fpr:Q", scale=_unit_scale()),
             "y": alt.Y("tpr_lower:Q", scale=_unit_scale()), "y2": alt.Y2("tpr_upper:Q")}
            if orient == "vertical"
            else {"y": alt.Y("tpr:Q", scale=_unit_scale()),
                  "x": alt.X("fpr_lower:Q", scale=_unit_scale()), "x2": alt.X2("fpr_upper:Q")}
        )  # fmt: skip
        return (
            alt.Chart()
            .transform_filter(_is_layer(None))
            # No `order` channel: an area is drawn along its x (vertical) or y
            # (horizontal) field, and Vega-Lite would take `order` for a stack order.
            .mark_area(opacity=0.2, orient=orient)
            .encode(**ends, **channels)
        )

    mean = (
        alt.Chart()
        .transform_filter(_is_layer(None))
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
    records = _records(pl.concat([panels, drawn], how="diagonal_relaxed"))
    return _assemble([_chance_layer(), *bands, mean], records, labels, facet, columns)


# --------------------------------------------------------------------------------------
# Frame and chart in one call


def _are_thresholds(points: Points) -> bool:
    """Whether ``points=`` is a number or a non-empty list of numbers (not a frame)."""
    values = [points] if isinstance(points, (int, float)) else points
    return (
        isinstance(values, Sequence) and not isinstance(values, str) and len(values) > 0
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v)
                for v in values)
    )  # fmt: skip


def _optimal_condition(
    optimal: bool | Mapping[str, float | None] | Frame | None,
) -> dict[str, Any] | None:
    """The operating condition (``optimal_point``'s ``slope``, ``prevalence``,
    ``cost_fp``, ``cost_fn``) that ``optimal=`` of :func:`plot` asks for; None when it
    asks for none (nothing, or a ready frame). Bad values are refused here, before any
    read."""
    if optimal is None or optimal is False or isinstance(optimal, pl.DataFrame | pl.LazyFrame):
        return None
    if optimal is True:
        condition: dict[str, Any] = {}
    elif optimal == "youden":
        condition = {"slope": 1.0}
    elif isinstance(optimal, Mapping):
        allowed = {"slope", "prevalence", "cost_fp", "cost_fn"}
        unknown = sorted(set(optimal) - allowed)
        if unknown:
            msg = f"`optimal=` takes keys {sorted(allowed)}; unknown: {unknown}"
            raise ValueError(msg)
        condition = dict(optimal)
    else:
        condition = None
    if condition is not None:
        full = {"slope": None, "prevalence": None, "cost_fp": None, "cost_fn": None, **condition}
        fp_cost, fn_cost, prevalence = check_optimal_options(**full)
        return {"slope": full["slope"], "prevalence": prevalence, "fp_cost": fp_cost,
                "fn_cost": fn_cost}  # fmt: skip
    msg = (
        "`optimal=` must be True, 'youden', a mapping of slope/prevalence/cost_fp/cost_fn, "
        f"or the frame of optimal_point(...); got {optimal!r}"
    )
    raise TypeError(msg)


def plot(
    frame: Frame,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: Literal["raise", "drop"] = "raise",
    direction: Literal["higher", "lower"] = "higher",
    kind: Literal["roc", "pr"] = "roc",
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
    hull: bool = False,
    points: Points = None,
    optimal: bool | Literal["youden"] | Mapping[str, float | None] | Frame | None = None,
    max_points: int | None = DEFAULT_MAX_POINTS,
) -> alt.LayerChart | alt.FacetChart:
    """The ROC (or precision-recall) curves of a prediction log, charted in one call.

    ``roc_chart(roc_curve(frame, ...), ...)`` for ``kind="roc"``,
    ``pr_chart(pr_curve(frame, ...), ...)`` for ``kind="pr"`` (``hull`` is for ROC
    charts only). With one ``by``
    column and neither ``color`` nor ``facet``, the curves are told apart by color.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    kind
        ``"roc"`` or ``"pr"``.
    color, facet, columns, hull, points, max_points
        As in :func:`roc_chart`; ``color`` and ``facet`` name ``by`` columns.
    optimal
        ROC charts only: mark each curve's optimal point with its iso-performance line.
        ``True`` takes the operating condition of the data (its own class ratio, equal
        costs); a mapping passes ``slope``, ``prevalence``, ``cost_fp`` and ``cost_fn`` to
        :func:`polars_roc.optimal_point`; a frame is used as it is, as in
        :func:`roc_chart`. ``"youden"`` takes slope 1 (the point of largest
        ``tpr - fpr``, what most readers mean by "the optimal threshold"). On
        imbalanced data at equal costs the optimal point is often (0, 0); the chart
        then says so and a warning gives the cost ratio from which it moves.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc  # registers df.roc
    >>> log = pl.DataFrame({"segment": ["a", "a", "b", "b"], "score": [0.9, 0.2, 0.7, 0.4],
    ...                     "label": [1, 0, 0, 1]})
    >>> spec = log.roc.plot(by="segment", facet="segment").to_dict()
    >>> spec["facet"]["sort"]
    ['a (AUC 1.000)', 'b (AUC 0.000)']

    The optimal point for an operating condition where a missed positive costs ten times a
    false alarm:

    >>> chart = log.roc.plot(by="segment", optimal={"cost_fn": 10.0})
    >>> chart.to_dict()["layer"][-1]["mark"]["type"]
    'point'
    """
    if kind not in ("roc", "pr"):
        msg = f"`kind` must be 'roc' or 'pr', got {kind!r}"
        raise ValueError(msg)
    if hull and kind != "roc":
        msg = "`hull=True` needs kind='roc' (the convex hull is a ROC-space notion)"
        raise ValueError(msg)
    if optimal is not None and optimal is not False and kind != "roc":
        msg = "`optimal=` needs kind='roc' (iso-performance lines live in ROC space)"
        raise ValueError(msg)
    _check_max_points(max_points)
    thresholds = None
    if _are_thresholds(points):  # numbers, none NaN, at least one
        values: Any = [points] if isinstance(points, (int, float)) else points
        thresholds = [float(v) for v in values]
    condition = _optimal_condition(cast(Any, optimal))
    # One validation pass and one score table; every layer is derived from that table.
    reserved = [*(CURVE_RESERVED if kind == "roc" else PR_RESERVED)]
    reserved += [*CONFUSION_RESERVED] if thresholds is not None else []
    reserved += [*OPTIMAL_RESERVED] if condition is not None else []
    prep = prepare(frame, score=score, label=label, by=by, weight=weight, count=count,
                   pos_label=pos_label, nulls=nulls, direction=direction,
                   reserved=reserved)  # fmt: skip
    table = build(prep).collect().lazy()
    if thresholds is not None:
        # Read at the thresholds from the table, compared in the score's own dtype (a
        # Float32 score of 0.7 is at threshold 0.7), not off the Float64 curve.
        points = confusion_from_table(prep, table, thresholds)
    if kind == "roc":
        best = optimal if condition is None else optimal_from_table(prep, table, **condition)
        return roc_chart(curve_from_table(prep, table), color=color, facet=facet,
                         columns=columns, hull=hull, points=points,
                         optimal=None if best is False else cast(Any, best),
                         max_points=max_points)  # fmt: skip
    return pr_chart(pr_curve_from_table(prep, table), color=color, facet=facet,
                    columns=columns, points=points, max_points=max_points)  # fmt: skip


# The trend chart lives in its own module (it uses the helpers above); re-exported here.
from polars_roc._trend_chart import trend_chart  # noqa: E402

__all__ += ["trend_chart"]
