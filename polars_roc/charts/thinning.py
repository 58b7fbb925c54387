"""Thinning of long curves before they are drawn (:func:`thin_curve`), with its bound on
the area (:func:`thinning_bound`; derived in docs/report.md, "Thinning and its area bound").
The AUC printed on the charts is always the exact one, computed before thinning.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import polars as pl

from polars_roc.charts.data import Frame
from polars_roc.core.arguments import normalize_by
from polars_roc.core.compat import lag
from polars_roc.core.score_table import group_end, group_start
from polars_roc.views.curve import collinear

DEFAULT_MAX_POINTS = 1000


def thinning_bound(max_points: int = DEFAULT_MAX_POINTS) -> float:
    """Largest possible AUC error of a ROC curve thinned to ``max_points`` points.

    ``1 / (2 * (max_points // 3))``; derived in docs/report.md, "Thinning and its area bound".

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
    if isinstance(max_points, bool) or not isinstance(max_points, Integral) or max_points < 3:
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
    curve the trapezoid area changes by at most :func:`thinning_bound`.

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
        return _thin(curve.lazy(), normalize_by(by), x, y, max_points).collect()
    if isinstance(curve, pl.LazyFrame):
        return _thin(curve, normalize_by(by), x, y, max_points)
    msg = f"`curve` must be a polars DataFrame or LazyFrame, got {type(curve).__name__}"
    raise TypeError(msg)


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
    step = pl.when(start).then(0.0).otherwise((xs - lag(xs)).abs() + (ys - lag(ys)).abs())
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
