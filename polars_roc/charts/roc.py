"""The ROC chart: curves, chance line, hull, optimal points and iso-performance lines."""

from __future__ import annotations

import warnings
from typing import Any, Literal

import altair as alt
import polars as pl

from polars_roc.charts.data import check_roles as _roles
from polars_roc.charts.data import collect_frame as _collect
from polars_roc.charts.layers import (
    PANEL,
    ROC_VALUE_COLUMNS,
    ROC_X_TITLE,
    ROC_Y_TITLE,
    SIZE,
    Frame,
    Points,
    _add_notes,
    _add_points,
    _assemble,
    _attach,
    _chance_layer,
    _color,
    _coordinate,
    _curve_layer,
    _curve_points,
    _group_tooltips,
    _label_fields,
    _labels,
    _marked,
    _panels,
    _require,
    _rows,
    _short_text,
    _summary,
    _trapezoid,
    _unit_scale,
    _unit_xy,
    _valued,
)
from polars_roc.charts.thinning import DEFAULT_MAX_POINTS, _check_max_points
from polars_roc.core.compat import SIDE_BY_SIDE, format_text
from polars_roc.core.measures import ratio
from polars_roc.views.hull import OPTIMAL_RESERVED, hull_flags


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
        ``"youden"`` takes each curve's point of largest ``tpr - fpr`` (slope 1). An
        optimal point at a corner (often (0, 0) on imbalanced data at equal costs) is
        noted in the panel, and a warning gives the cost ratio ``cost_fn / cost_fp``
        from which a non-trivial point takes over (docs/report.md, "Cost-optimal
        points and iso-performance lines").
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
    full = _require(
        curve,
        ["threshold", "tp", "fp", "tpr", "fpr"],
        "curve",
        "pass the frame of roc_curve(...) / df.roc.curve(...)",
    )
    color, facet = _roles(full, ROC_VALUE_COLUMNS, color, facet, columns, "curve")
    groups = [g for g in (facet, color) if g is not None]
    summary = _summary(full, groups, _trapezoid(groups, "fpr", "tpr"), ("fpr", "tpr"))
    labels = _labels(summary, color, facet, _valued("AUC"))

    label_fields = _label_fields(labels)
    frames = [_panels(labels, facet), _curve_points(full, labels, groups, "fpr", "tpr", max_points)]
    layers = [
        _chance_layer(),
        _curve_layer(labels, color, "fpr", "tpr", ROC_X_TITLE, ROC_Y_TITLE, "linear"),
    ]
    if hull:
        vertices = _attach(_hull_vertices(full, groups), labels, groups)
        frames.append(_marked(vertices.select(*label_fields, "fpr", "tpr"), "hull"))
        layers.append(_hull_layer(labels, color))
    if points is not None:
        _add_points(frames, layers, full, points, groups, labels, color, ("fpr", "tpr"))
    if isinstance(optimal, str):
        optimal = _youden_optimal(full, groups, optimal)
    if optimal is not None:
        best = _attach(_optimal_rows(optimal, groups), labels, groups)
        slope = _short_text("slope")
        point = [_short_text("threshold"), _coordinate("fpr"), _coordinate("tpr"), slope]
        frames.append(_marked(_iso_ends(best).select(*label_fields, "fpr", "tpr", slope), "iso"))
        frames.append(_marked(best.select(*label_fields, *point, "expected_cost"), "optimal"))
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
    _add_notes(frames, layers, labels, color, facet, "tpr")
    return _assemble(layers, frames, labels, facet, columns)


def _hull_layer(labels: pl.DataFrame, color: str | None) -> alt.Chart:
    return (
        _rows("hull")
        # Both rates grow along the hull, so their sum orders its vertices.
        .transform_calculate(_order="datum.fpr + datum.tpr")
        .mark_line(strokeDash=[6, 3], strokeWidth=1.5, opacity=0.8)
        .encode(**_unit_xy("fpr", "tpr"), order=alt.Order("_order:Q"), **_color(labels, color))
    )


OPTIMAL_VALUE_COLUMNS = frozenset({*OPTIMAL_RESERVED, "threshold", "tp", "fp"})


def _optimal_rows(optimal: Frame, groups: list[str]) -> pl.DataFrame:
    """The rows of ``optimal=`` as ``[*groups, threshold, slope, expected_cost, fpr,
    tpr]``, leaving out the curves without an optimal point (one class only)."""
    rows = _require(
        optimal,
        ["threshold", "slope", "expected_cost", "tpr", "fpr"],
        "optimal",
        "pass the frame of optimal_point(...) / df.roc.optimal_point(...)",
    )
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
    rates = (pl.col(c).cast(pl.Float64) for c in ("fpr", "tpr"))
    chosen = rows.select(*groups, "threshold", "slope", "expected_cost", *rates)
    return chosen.drop_nulls(["slope", "fpr", "tpr"])


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
        _rows("iso")
        .mark_line(strokeDash=[2, 3], strokeWidth=1.5, clip=True)
        .encode(
            **_unit_xy("fpr", "tpr"),
            tooltip=[alt.Tooltip("slope:N", title="iso-performance slope")],
            **_color(labels, color),
        )
    )


def _optimal_layer(labels: pl.DataFrame, color: str | None) -> alt.Chart:
    tooltip = _group_tooltips(labels, color)
    tooltip += [
        alt.Tooltip("threshold:N", title="threshold (score >=)"),
        alt.Tooltip("slope:N", title="iso-performance slope"),
        alt.Tooltip("expected_cost:Q", title="expected cost", format=".4f"),
        alt.Tooltip("tpr:Q", format=".4f"),
        alt.Tooltip("fpr:Q", format=".4f"),
    ]
    return (
        _rows("optimal")
        .mark_point(
            shape="square",
            size=80,
            filled=True,
            opacity=1,
            stroke="black",
            strokeWidth=0.8,
            # A square on or near the border (often at (0, 0)) moves inward so that it is
            # drawn whole inside the plot: its centre at least its half side from each
            # edge. Pixels of the SIZE-px panel; tooltips keep the exact rates.
            xOffset={"expr": _inset_expr(f"datum.fpr * {SIZE}")},
            yOffset={"expr": _inset_expr(f"(1 - datum.tpr) * {SIZE}")},
        )
        .encode(**_unit_xy("fpr", "tpr"), tooltip=tooltip, **_color(labels, color))
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
    from polars_roc.views.operating import at_best, pick

    points = full.lazy().with_columns(
        (pl.col("tp") + pl.col("fn")).alias("n_pos"), (pl.col("fp") + pl.col("tn")).alias("n_neg")
    )
    tpr, fpr = pl.col("tpr").cast(pl.Float64), pl.col("fpr").cast(pl.Float64)
    picked = pick(points, groups, at_best(tpr - fpr), ["threshold", "tpr", "fpr"]).collect()
    share = ratio(pl.col("n_pos"), pl.col("n_pos") + pl.col("n_neg"))
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
        *groups,
        pl.when(at_origin).then(pl.lit("(0, 0)")).otherwise(pl.lit("(1, 1)")).alias("corner"),
        pl.col("slope").cast(pl.Float64),
        *([pl.col("prevalence").cast(pl.Float64)] if "prevalence" in rows.columns else []),
    )
    if best.height == 0:
        return best.select(*groups, "corner", pl.lit(None, pl.Float64).alias("ratio"))
    inner = full.filter(~(at_origin | at_top) & tpr.is_not_null() & fpr.is_not_null())
    bounds = [
        pl.when(fpr > 0).then(tpr / fpr).when(tpr > 0).then(float("inf")).max().alias("_steep"),
        pl.when(fpr < 1).then((1.0 - tpr) / (1.0 - fpr)).min().alias("_flat"),
        (pl.col("tp") + pl.col("fn")).first().cast(pl.Float64).alias("_pos"),
        (pl.col("fp") + pl.col("tn")).first().cast(pl.Float64).alias("_neg"),
    ]
    found = (
        inner.group_by(groups, maintain_order=True).agg(bounds) if groups else inner.select(bounds)
    )
    if groups:
        best = best.join(found, on=groups, how="inner", nulls_equal=True, maintain_order="left")
    elif inner.height:
        best = pl.concat([best, found], how=SIDE_BY_SIDE)
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
    where = format_text("{} optimal", corner)
    moved = (
        pl.when(ratio_.is_null())
        .then(pl.lit(" at every cost ratio"))
        .when(corner == "(0, 0)")
        .then(format_text(" unless cost_fn/cost_fp > {}", ratio_.round_sig_figs(3)))
        .otherwise(format_text(" unless cost_fn/cost_fp <= {}", ratio_.round_sig_figs(3)))
    )
    return pl.concat_str([where, moved])


def _warn_corner_optima(corners: pl.DataFrame, groups: list[str]) -> None:
    described = []
    for row in corners.head(10).iter_rows(named=True):
        name = ", ".join(f"{g}={row[g]!r}" for g in groups) or "the curve"
        rule, sign = ("negative", ">") if row["corner"] == "(0, 0)" else ("positive", "<=")
        takes_over = f"a non-trivial point from cost_fn / cost_fp {sign} {row['ratio']:.4g}"
        described.append(f"{name} at {row['corner']} (call every case {rule}; {takes_over})")
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
        _rows("corner")
        .mark_text(align="right", baseline="middle", fontSize=10)
        .encode(
            x=alt.datum(0.98, scale=_unit_scale()),
            y=alt.Y("tpr:Q", scale=_unit_scale()),
            text="_corner_note:N",
            **_color(labels, color),
        )
    )
