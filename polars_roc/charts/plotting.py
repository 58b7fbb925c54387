"""``plot``: the curves and their chart in one call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any, Literal, cast

import altair as alt
import polars as pl

from polars_roc.charts.data import segment_roles
from polars_roc.charts.layers import Frame, Points, _are_thresholds
from polars_roc.charts.pr import pr_chart
from polars_roc.charts.roc import roc_chart
from polars_roc.charts.thinning import DEFAULT_MAX_POINTS, _check_max_points
from polars_roc.core.arguments import Roles, check_choice, normalize_by
from polars_roc.core.counting import count_rows
from polars_roc.core.score_table import build
from polars_roc.views.confusion import CONFUSION_RESERVED, confusion_from_table
from polars_roc.views.curve import CURVE_RESERVED, curve_from_table
from polars_roc.views.hull import OPTIMAL_RESERVED, check_optimal_options, optimal_from_table
from polars_roc.views.pr import PR_RESERVED, pr_curve_from_table


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
    charts only). Without ``color`` and ``facet``, the layout is the report's: one
    ``by`` column gives one curve per value told apart by color (panels instead when
    ``columns`` is given); two give panels by the first and colors by the second;
    three or more are joined into one label, ``"a / b / c"``, one panel each.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    kind
        ``"roc"`` or ``"pr"``.
    color, facet, hull, points, max_points
        As in :func:`roc_chart`; ``color`` and ``facet`` name ``by`` columns.
    columns
        Panels per row: the facet wraps after this many (see above for the facet
        chosen when none is named).
    optimal
        ROC charts only: mark each curve's optimal point with its iso-performance line.
        ``True`` takes the operating condition of the data (its own class ratio, equal
        costs); a mapping passes ``slope``, ``prevalence``, ``cost_fp`` and ``cost_fn`` to
        :func:`polars_roc.optimal_point`; a frame or ``"youden"`` as in :func:`roc_chart`.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc  # registers df.roc
    >>> log = pl.DataFrame({"segment": ["a", "a", "b", "b"], "score": [0.9, 0.2, 0.7, 0.4],
    ...                     "label": [1, 0, 0, 1]})
    >>> spec = log.roc.plot(by="segment", columns=4).to_dict()
    >>> spec["facet"]["sort"], spec["columns"]
    (['a (AUC 1.000)', 'b (AUC 0.000)'], 4)

    The optimal point for an operating condition where a missed positive costs ten times a
    false alarm:

    >>> chart = log.roc.plot(by="segment", optimal={"cost_fn": 10.0})
    >>> chart.to_dict()["layer"][-1]["mark"]["type"]
    'point'
    """
    check_choice("kind", kind, ("roc", "pr"))
    if hull and kind != "roc":
        msg = "`hull=True` needs kind='roc' (the convex hull is a ROC-space notion)"
        raise ValueError(msg)
    if optimal is not None and optimal is not False and kind != "roc":
        msg = "`optimal=` needs kind='roc' (iso-performance lines live in ROC space)"
        raise ValueError(msg)
    _check_max_points(max_points)
    thresholds = None
    if _are_thresholds(points):  # numbers, none NaN, at least one
        values: Any = [points] if isinstance(points, Real) else points
        thresholds = [float(v) for v in values]
    condition = _optimal_condition(cast(Any, optimal))
    by_columns = normalize_by(by)
    if color is None and facet is None and (len(by_columns) > 1 or columns is not None):
        joined, facet, color = segment_roles(by_columns)
        if joined is not None:
            frame, by = frame.with_columns(joined), facet
    # One validation pass and one score table; every layer is derived from that table.
    reserved = [*(CURVE_RESERVED if kind == "roc" else PR_RESERVED)]
    reserved += [*CONFUSION_RESERVED] if thresholds is not None else []
    reserved += [*OPTIMAL_RESERVED] if condition is not None else []
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=reserved).prep
    table = build(prep).collect().lazy()
    if thresholds is not None:
        # Read at the thresholds from the table, compared in the score's own dtype (a
        # Float32 score of 0.7 is at threshold 0.7), not off the Float64 curve.
        points = confusion_from_table(prep, table, thresholds)
    layout: dict[str, Any] = {"color": color, "facet": facet, "columns": columns}
    layout |= {"points": points, "max_points": max_points}
    if kind == "roc":
        best: Any = optimal if condition is None else optimal_from_table(prep, table, **condition)
        best = None if best is False else best
        return roc_chart(curve_from_table(prep, table), hull=hull, optimal=best, **layout)
    return pr_chart(pr_curve_from_table(prep, table), **layout)


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
        msg = (
            "`optimal=` must be True, 'youden', a mapping of slope/prevalence/cost_fp/cost_fn, "
            f"or the frame of optimal_point(...); got {optimal!r}"
        )
        raise TypeError(msg)
    full = {"slope": None, "prevalence": None, "cost_fp": None, "cost_fn": None, **condition}
    fp_cost, fn_cost, prevalence = check_optimal_options(**full)
    return dict(slope=full["slope"], prevalence=prevalence, fp_cost=fp_cost, fn_cost=fn_cost)
