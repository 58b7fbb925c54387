"""The ROC convex hull (ROCCH) and the optimal operating point for a condition (the
hull vertex that an iso-performance line of the condition's slope touches last).

The hull is a vectorised quickhull over every group's curve points at once, in counts
``(fp, tp)`` (exact "above the edge" tests); docs/operating-points.md ("How it is
computed") gives the method.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_choice
from polars_roc.core.compat import lag
from polars_roc.core.counting import count_rows
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import build, group_end, group_start, group_totals
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.stats.cells import attach
from polars_roc.stats.delong import one_row_per_group
from polars_roc.views.auc import areas
from polars_roc.views.curve import curve_columns, finish_dropping_totals, rates, with_start_rows
from polars_roc.views.operating import at_best, check_optimal_options, pick

__all__ = ["hull_auc", "hull_flags", "optimal_point", "roc_hull"]

HullPoints = Literal["vertices", "all"]

_FLAGS = pl.Struct({"vertex": pl.Boolean, "on_hull": pl.Boolean})
# Products of two int64 counts stay exact below this bound on each count.
_EXACT_COUNT_LIMIT = 2**31


def _upper_hull(start: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertex and on-hull flags of the upper hulls of consecutive point chains.

    ``start`` flags the first point of each chain (group); within a chain the points
    are in curve order (``x`` and ``y`` non-decreasing). Returns ``(vertex, on_hull)``:
    corners of the hull from the first to the last point of each chain, and points on
    its boundary (corners, or on an edge). A point repeating the one before it (a score
    of zero total weight) is never a corner: the first of the repeats stands for it.
    """
    repeat = np.zeros(len(x), dtype=bool)
    repeat[1:] = (x[1:] == x[:-1]) & (y[1:] == y[:-1]) & ~start[1:]
    if not repeat.any():
        return _distinct_upper_hull(start, x, y)
    kept = ~repeat
    vertex_kept, on_hull_kept = _distinct_upper_hull(start[kept], x[kept], y[kept])
    vertex = np.zeros(len(x), dtype=bool)
    vertex[kept] = vertex_kept
    return vertex, on_hull_kept[np.cumsum(kept) - 1]


def _distinct_upper_hull(
    start: np.ndarray, x: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_upper_hull` for chains without repeated points."""
    n = len(x)
    index = np.arange(n)
    end = np.ones(n, dtype=bool)
    end[:-1] = start[1:]
    vertex = start | end
    exact = x.dtype.kind in "iu" and n > 0 and max(x.max(), y.max()) < _EXACT_COUNT_LIMIT
    if not exact:
        # Each chain scaled by a power of two near its totals: exact (the same hull),
        # but a product of two large weights can no longer overflow.
        starts = np.flatnonzero(start)
        end = np.repeat(np.r_[starts[1:], n] - 1, np.diff(np.r_[starts, n]))
        with np.errstate(divide="ignore"):
            scale = [np.where(v[end] > 0, 2.0 ** -np.floor(np.log2(v[end])), 1.0) for v in (x, y)]
        x, y = x.astype(np.float64) * scale[0], y.astype(np.float64) * scale[1]

    def height_above_edge() -> tuple[np.ndarray, np.ndarray]:
        """Cross product of each point with the hull edge spanning it (> 0: above),
        and the index of that edge's left vertex."""
        left = np.maximum.accumulate(np.where(vertex, index, 0))
        right = np.minimum.accumulate(np.where(vertex, index, n - 1)[::-1])[::-1]
        across = (x[right] - x[left]) * (y - y[left])
        along = (y[right] - y[left]) * (x - x[left])
        height = across - along
        if not exact:
            height[np.abs(height) <= 1e-12 * (np.abs(across) + np.abs(along))] = 0.0
        return height, left

    while True:
        height, left = height_above_edge()
        above = np.flatnonzero((height > 0) & ~vertex)
        if above.size == 0:
            break
        # Points above an edge, grouped by the edge (its left vertex): contiguous runs.
        edge = left[above]
        run_start = np.flatnonzero(np.r_[True, edge[1:] != edge[:-1]])
        run_of = np.repeat(np.arange(run_start.size), np.diff(np.r_[run_start, above.size]))
        highest = np.maximum.reduceat(height[above], run_start)
        farthest = above[height[above] == highest[run_of]]
        # Several points can be equally far: the first of each edge (lowest fp) is a corner.
        _, first = np.unique(left[farthest], return_index=True)
        vertex[farthest[first]] = True
    on_hull = vertex | (height == 0)
    return vertex, on_hull


def _flags_batch(points: pl.Series) -> pl.Series:
    start = points.struct.field("start").to_numpy()
    x = points.struct.field("fp").to_numpy()
    y = points.struct.field("tp").to_numpy()
    if len(x) == 0:
        return pl.Series(points.name, [], dtype=_FLAGS)
    vertex, on_hull = _upper_hull(start, x, y)
    return pl.DataFrame({"vertex": vertex, "on_hull": on_hull}).to_struct(points.name)


def hull_flags(points: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """Add ``vertex`` and ``on_hull`` to curve points ``[*by, ..., tp, fp, ...]``.

    The points must be in curve order (group, then threshold descending), start rows
    included; docs/operating-points.md gives the method.
    """
    flags = pl.struct(start=group_start(by), fp="fp", tp="tp").map_batches(
        _flags_batch, return_dtype=_FLAGS
    )
    return points.with_columns(flags.alias("__roc_hull")).unnest("__roc_hull")


def _edge_slope(by: list[str]) -> pl.Expr:
    """Slope in ROC space of the hull edge ending at each vertex (vertex rows only);
    ``inf`` at a group's first vertex."""
    dtpr = pl.col("tpr") - lag(pl.col("tpr"))
    dfpr = pl.col("fpr") - lag(pl.col("fpr"))
    return pl.when(group_start(by) | (dfpr == 0)).then(float("inf")).otherwise(dtpr / dfpr)


def roc_hull(
    frame: Frame,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    points: HullPoints = "vertices",
    bins: int | None = None,
) -> Frame:
    """The ROC convex hull (ROCCH) of each group.

    The hull is the smallest concave curve from (0, 0) to (1, 1) lying on or above every
    ROC point. Its vertices are the thresholds that are optimal for some operating
    condition (seeds 000 and 001); every other threshold can be discarded.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    points
        ``"vertices"`` (default): one row per hull vertex, from (0, 0) to (1, 1), with
        the range of iso-performance slopes for which it is optimal. ``"all"``: every ROC
        curve point (as in :func:`polars_roc.roc_curve`) with flags saying whether it is
        on the hull.
    bins
        Count into ``bins`` equal-width buckets of the score per group, as in
        :func:`polars_roc.roc_curve`: one point per bucket, each exact.

    Returns
    -------
    DataFrame or LazyFrame
        ``points="vertices"``: ``[*by, threshold, tp, fp, fn, tn, tpr, fpr, slope_min,
        slope_max]``; the vertex is the optimal point for every iso-performance slope
        ``m`` with ``slope_min <= m <= slope_max`` (``slope_max`` is ``inf`` at (0, 0),
        ``slope_min`` is 0 at (1, 1)). ``points="all"``: ``[*by, threshold, tp, fp, fn,
        tn, tpr, fpr, vertex, on_hull]``; ``vertex`` marks the hull's corners,
        ``on_hull`` the points on its boundary (corners, or points on a hull edge, which
        tie with the edge's corners for exactly one slope). In a group with one class
        the rates are null and the hull is the segment between the two end points.


    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> pr.roc_hull(df).select("threshold", "tpr", "fpr", "slope_min", "slope_max")
    shape: (4, 5)
    ┌───────────┬─────┬─────┬───────────┬───────────┐
    │ threshold ┆ tpr ┆ fpr ┆ slope_min ┆ slope_max │
    │ ---       ┆ --- ┆ --- ┆ ---       ┆ ---       │
    │ f64       ┆ f64 ┆ f64 ┆ f64       ┆ f64       │
    ╞═══════════╪═════╪═════╪═══════════╪═══════════╡
    │ inf       ┆ 0.0 ┆ 0.0 ┆ inf       ┆ inf       │
    │ 0.8       ┆ 0.5 ┆ 0.0 ┆ 1.0       ┆ inf       │
    │ 0.5       ┆ 1.0 ┆ 0.5 ┆ 0.0       ┆ 1.0       │
    │ 0.3       ┆ 1.0 ┆ 1.0 ┆ 0.0       ┆ 0.0       │
    └───────────┴─────┴─────┴───────────┴───────────┘
    """
    check_choice("points", points, ("vertices", "all"))
    prep = count_rows(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls, direction),
        reserved=("fn", "tn", "tpr", "fpr", "slope_min", "slope_max", "vertex", "on_hull"),
        bins=bins,
    ).prep
    return hull_from_table(prep, build(prep), points=points)


def hull_from_table(prep: Prepared, table: pl.LazyFrame, *, points: str) -> Frame:
    """:func:`roc_hull` of the score table ``table`` of ``prep`` (finished)."""
    flagged = hull_flags(with_start_rows(table, prep.by), prep.by).with_columns(rates())
    columns = curve_columns(prep.by)
    if points == "all":
        result = flagged.select(*columns, "vertex", "on_hull", "n_pos", "n_neg")
    else:
        has_rates = pl.col("tpr").is_not_null() & pl.col("fpr").is_not_null()
        slope_max = _edge_slope(prep.by)
        slope_min = pl.when(group_end(prep.by)).then(0.0).otherwise(slope_max.shift(-1))
        result = flagged.filter("vertex").select(
            *columns,
            pl.when(has_rates).then(slope_min).alias("slope_min"),
            pl.when(has_rates).then(slope_max).alias("slope_max"),
            "n_pos",
            "n_neg",
        )
    return finish_dropping_totals(prep, result)


def hull_auc(
    frame: Frame,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
) -> Frame:
    """Area under the ROC convex hull per group, next to the area under the curve.

    ``auc_hull >= auc``; the gap is what choosing thresholds per operating condition
    (or randomising between two hull vertices) gains over the raw curve's concavities.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, auc_hull, auc, n_pos, n_neg]``; both areas are null
        for a group without both classes.


    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> pr.hull_auc(df)
    shape: (1, 4)
    ┌──────────┬────────┬───────┬───────┐
    │ auc_hull ┆ auc    ┆ n_pos ┆ n_neg │
    │ ---      ┆ ---    ┆ ---   ┆ ---   │
    │ f64      ┆ f64    ┆ i64   ┆ i64   │
    ╞══════════╪════════╪═══════╪═══════╡
    │ 0.875    ┆ 0.8125 ┆ 4     ┆ 4     │
    └──────────┴────────┴───────┴───────┘
    """
    prep = count_rows(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls, direction),
        reserved=("auc_hull", "auc", "tpr", "fpr", "vertex", "on_hull"),
    ).prep
    return hull_auc_from_table(prep, build(prep))


def hull_auc_from_table(prep: Prepared, table: pl.LazyFrame) -> Frame:
    """:func:`hull_auc` of the score table ``table`` of ``prep`` (finished)."""
    flagged = hull_flags(with_start_rows(table, prep.by), prep.by).with_columns(rates())
    both_classes = (pl.col("n_pos").first() > 0) & (pl.col("n_neg").first() > 0)
    hull_area = pl.when(both_classes).then(_trapezoids(pl.col("vertex"))).alias("auc_hull")
    hulls = one_row_per_group(flagged, prep.by, [hull_area, pl.col("n_pos").first()])
    # The curve's own AUC by the library's one formula, read off the same table.
    result = attach(hulls.drop("n_pos"), areas(table, prep.by), prep.by)
    return prep.finish(result, lambda table: group_totals(table, prep.by))


def _trapezoids(keep: pl.Expr) -> pl.Expr:
    """Area under the polyline through the kept points of a group, an aggregation."""
    fpr, tpr = pl.col("fpr").filter(keep), pl.col("tpr").filter(keep)
    return ((fpr - lag(fpr)) * (tpr + lag(tpr)) / 2).sum()


def optimal_point(
    frame: Frame,
    *,
    slope: float | None = None,
    prevalence: float | None = None,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
) -> Frame:
    """The optimal ROC point of each group for an operating condition.

    The operating condition is the prevalence ``p`` of positives where the classifier
    will be used (default: the group's sample share) and the costs of a false positive
    and a false negative (default 1 each). Its iso-performance slope is
    ``m = ((1 - p) / p) * (cost_fp / cost_fn)`` (seed 001: ``m = 10`` when negatives
    outnumber positives 10 to 1 at equal costs, ``m = 1/10`` for balanced classes where
    a false negative costs 10 times more). Or give ``slope=m`` directly.

    The optimal point maximises ``tpr - m * fpr``: it is the hull vertex that the
    iso-performance line of slope ``m`` touches (a linear objective over the hull
    peaks at a corner). It is found in one pass over the curve points; when the line
    is parallel to a hull edge, both ends of the edge are optimal and the one with the
    higher threshold (fewer predicted positives) is returned.

    Parameters
    ----------
    slope
        The iso-performance slope ``m >= 0``, instead of ``cost_fp`` (``prevalence`` and
        ``cost_fn`` then only scale ``expected_cost``).
    prevalence
        Share of positives in the operating population, strictly between 0 and 1.
    cost_fp, cost_fn
        Cost of one false positive / false negative (each default 1).
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, slope, prevalence, threshold, tp, fp, fn, tn, tpr,
        fpr, expected_cost, error_rate]``. ``expected_cost = p * cost_fn * (1 - tpr) + (1
        - p) * cost_fp * fpr`` and ``error_rate = p * (1 - tpr) + (1 - p) * fpr`` are per
        example, at the operating prevalence ``p`` (with ``slope=``, ``cost_fp`` is the
        one that slope implies). Null for a group without both classes.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> pr.optimal_point(df, prevalence=0.5, cost_fn=10.0).select(
    ...     "slope", "threshold", "tpr", "fpr", "expected_cost", "error_rate"
    ... )
    shape: (1, 6)
    ┌───────┬───────────┬─────┬─────┬───────────────┬────────────┐
    │ slope ┆ threshold ┆ tpr ┆ fpr ┆ expected_cost ┆ error_rate │
    │ ---   ┆ ---       ┆ --- ┆ --- ┆ ---           ┆ ---        │
    │ f64   ┆ f64       ┆ f64 ┆ f64 ┆ f64           ┆ f64        │
    ╞═══════╪═══════════╪═════╪═════╪═══════════════╪════════════╡
    │ 0.1   ┆ 0.5       ┆ 1.0 ┆ 0.5 ┆ 0.25          ┆ 0.25       │
    └───────┴───────────┴─────┴─────┴───────────────┴────────────┘
    """
    fp_cost, fn_cost, prevalence = check_optimal_options(slope, prevalence, cost_fp, cost_fn)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=OPTIMAL_RESERVED).prep
    return optimal_from_table(
        prep, build(prep), slope=slope, prevalence=prevalence, fp_cost=fp_cost, fn_cost=fn_cost
    )


# Result columns of optimal_point, which `by` columns must not use.
OPTIMAL_RESERVED = ("slope", "prevalence", "fn", "tn", "tpr", "fpr", "expected_cost", "error_rate")


def optimal_from_table(
    prep: Prepared,
    table: pl.LazyFrame,
    *,
    slope: float | None,
    prevalence: float | None,
    fp_cost: float,
    fn_cost: float,
) -> Frame:
    """:func:`optimal_point` from the score table ``table`` of ``prep`` (finished), with
    the options :func:`check_optimal_options` returned."""
    n_pos, n_neg = pl.col("n_pos").cast(pl.Float64), pl.col("n_neg").cast(pl.Float64)
    share = ratio(n_pos, n_pos + n_neg) if prevalence is None else pl.lit(prevalence)
    if slope is None:
        m = ratio((1.0 - share) * fp_cost, share * fn_cost)
    else:
        m = pl.lit(float(slope))
    points = (
        with_start_rows(table, prep.by)
        .with_columns(rates())
        .with_columns(m.alias("slope"), share.alias("prevalence"))
    )
    # Both classes present (rates defined) or nothing is picked.
    gain = pl.col("tpr") - pl.col("slope") * pl.col("fpr")
    picked = pick(
        points,
        prep.by,
        at_best(gain),
        ["threshold", "tp", "fp", "tpr", "fpr"],
        constant=("n_pos", "n_neg", "slope", "prevalence"),
    )
    p, tpr, fpr = pl.col("prevalence"), pl.col("tpr"), pl.col("fpr")
    result = picked.select(
        *prep.by,
        pl.when(tpr.is_not_null()).then(pl.col("slope")).alias("slope"),
        "prevalence",
        "threshold",
        "tp",
        "fp",
        (pl.col("n_pos") - pl.col("tp")).alias("fn"),
        (pl.col("n_neg") - pl.col("fp")).alias("tn"),
        "tpr",
        "fpr",
        (p * fn_cost * (1.0 - tpr + pl.col("slope") * fpr)).alias("expected_cost"),
        (p * (1.0 - tpr) + (1.0 - p) * fpr).alias("error_rate"),
        "n_pos",
        "n_neg",
    )
    return finish_dropping_totals(prep, result)
