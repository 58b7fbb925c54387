"""The ROC curve: the score table with its starting point and rates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from polars_roc.core.arguments import Roles, check_flags
from polars_roc.core.compat import lag
from polars_roc.core.costs import cost_columns
from polars_roc.core.counting import count_rows
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import build, group_end, group_start, group_totals
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.stats.binormal import check_smooth, smoothed_curve
from polars_roc.stats.cells import attach, read_once
from polars_roc.stats.curve_band import band_per_group
from polars_roc.stats.options import check_inference_options

__all__ = ["collinear", "roc_curve", "with_start_rows"]

CURVE_COLUMNS = ("threshold", "tp", "fp", "fn", "tn", "tpr", "fpr")
# Result columns of roc_curve, which `by` columns must not use.
CURVE_RESERVED = (*CURVE_COLUMNS, "cost", "expected_cost")


def with_start_rows(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """Put the point ``(threshold=+inf, tp=0, fp=0)`` before each group of ``table``.

    ``table`` is a score table ``[*by, threshold, tp, fp, n_pos, n_neg, ...]``. The new
    rows are merged in by position (a linear merge), so nothing is sorted again.
    """
    order = "__roc_order"
    indexed = table.select(*by, "threshold", "tp", "fp", "n_pos", "n_neg").with_row_index(order)
    zero = pl.lit(0, dtype=table.collect_schema()["tp"])
    starts = indexed.filter(group_start(by)).select(
        *by,
        pl.lit(float("inf")).alias("threshold"),
        zero.alias("tp"),
        zero.alias("fp"),
        "n_pos",
        "n_neg",
        # Each start sorts just before the first point of its group.
        (2 * pl.col(order).cast(pl.Int64)).alias(order),
    )
    points = indexed.select(
        *by,
        "threshold",
        "tp",
        "fp",
        "n_pos",
        "n_neg",
        (2 * pl.col(order).cast(pl.Int64) + 1).alias(order),
    )
    return starts.merge_sorted(points, key=order).drop(order)


def rates() -> list[pl.Expr]:
    """``tpr`` and ``fpr`` from the columns ``tp``, ``fp``, ``n_pos``, ``n_neg``."""
    return [
        ratio(pl.col("tp"), pl.col("n_pos")).alias("tpr"),
        ratio(pl.col("fp"), pl.col("n_neg")).alias("fpr"),
    ]


def curve_columns(by: list[str]) -> list[str | pl.Expr]:
    """``[*by, *CURVE_COLUMNS]`` of curve points ``[*by, threshold, tp, fp, n_pos, n_neg]``."""
    fn = (pl.col("n_pos") - pl.col("tp")).alias("fn")
    tn = (pl.col("n_neg") - pl.col("fp")).alias("tn")
    return [*by, "threshold", "tp", "fp", fn, tn, *rates()]


def collinear(
    by: list[str],
    *,
    x: pl.Expr | None = None,
    y: pl.Expr | None = None,
    weighted: bool = False,
) -> pl.Expr:
    """True for a curve point that can go without changing the curve.

    That is a point equal to the previous one, or a point on the straight line through
    its two neighbours with a real step on each side (the cross product of the steps is
    zero: exact in Int128 for integer counts, whose products pass Int64; for weighted
    counts, ``weighted=True``, zero up to a relative 1e-12, the rounding of the sums).
    A point followed by a copy of itself is kept, so the later copy is the one that
    goes and no corner is cut. The first and last point of each group always stay. The
    point is ``(x, y)``, by default the counts ``(fp, tp)``; the charts pass their
    plotted coordinates (compared as they are).
    """
    if x is None or y is None:
        wide = pl.Float64 if weighted else pl.Int128
        x, y = pl.col("fp").cast(wide), pl.col("tp").cast(wide)
    dfp_in = x - lag(x)
    dtp_in = y - lag(y)
    dfp_out = x.shift(-1) - x
    dtp_out = y.shift(-1) - y
    repeated = (dfp_in == 0) & (dtp_in == 0)
    moves_on = (dfp_out != 0) | (dtp_out != 0)
    turn, back = dfp_in * dtp_out, dtp_in * dfp_out
    if weighted:
        on_line = (turn - back).abs() <= 1e-12 * (turn.abs() + back.abs())
    else:
        on_line = turn == back
    return (repeated | (on_line & moves_on)) & ~group_start(by) & ~group_end(by)


def roc_curve(
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
    drop_intermediate: bool = False,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
    bins: int | None = None,
    local_maxima: bool = False,
    band: Literal["bootstrap"] | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    progress: bool = False,
    smooth: Literal["binormal"] | None = None,
) -> Frame:
    """ROC curve points per group.

    Point ``i`` counts the rows with ``score >= threshold[i]``. Each group starts at
    ``threshold = +inf`` with ``tp = fp = 0`` and has one more point per distinct score,
    ending at the lowest score with ``tp = n_pos`` and ``fp = n_neg``. Tied scores are one
    point, so a run of ties is one diagonal step.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    drop_intermediate
        Drop the points that lie on the straight segment between their neighbours. The
        curve's shape and area are unchanged; only redundant points go.
    cost_fp, cost_fn
        When either is given, add ``cost = cost_fp * fp + cost_fn * fn`` and
        ``expected_cost = cost / n`` (per example) at every threshold; a cost left out
        counts 1. See :func:`polars_roc.optimal_point` for costs at another prevalence.
    bins
        Count into ``bins`` equal-width buckets of the score per group (as in
        :func:`polars_roc.roc_auc`): one point per bucket, at its lowest score, each
        an exact point of the full curve; the area between two points is off by at most
        the bucket's share of :func:`polars_roc.roc_auc`'s ``auc_bound``.
    local_maxima
        Keep only the curve's local maxima, pROC's ``coords(x = "local maximas")``: the
        upper-left corners of the staircase, where ``tp`` has just grown (or the curve
        starts) and ``fp`` grows next (or the curve ends). As pROC, the points of the
        bottom edge (``tp = 0``) whose next step adds false positives are kept too, and
        of repeated points only the one with the lowest threshold counts. Not with
        ``drop_intermediate``.
    band
        ``"bootstrap"``: instead of the points, a simultaneous confidence band of the
        whole curve on the false positive rates 0, 0.01, ..., 1: the sup-norm
        bootstrap band (Campbell 1994), ``tpr -+ d`` clipped to [0, 1], where ``d`` is
        the ``conf_level`` quantile of the largest vertical distance between a
        stratified bootstrap replicate's curve and the estimate. The true curve lies
        inside it everywhere on the grid with probability about ``conf_level``, unlike
        the pointwise interval of :func:`polars_roc.tpr_at` (one rate at a time). See
        docs/inference.md.
    conf_level, n_boot, seed, progress
        With ``band``: as in :func:`polars_roc.roc_auc`.
    smooth
        ``"binormal"``: instead of the points, pROC's ``smooth(method = "binormal")``:
        the least-squares line ``qnorm(1 - fpr) = a + b * qnorm(tpr)`` through the
        points whose rates are strictly between 0 and 1, read at 512 sensitivities
        ``0, 1/511, ..., 1``. See docs/inference.md.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, tp, fp, fn, tn, tpr, fpr]`` ordered by group, then threshold
        descending. ``tpr`` (``fpr``) is null in a group without positives (negatives).
        Then ``cost`` and ``expected_cost`` when costs are given. With ``band``:
        ``[*by, fpr, tpr, band_lower, band_upper]``, 101 rows per group (``fpr`` from
        0 to 1 by 0.01); ``tpr`` is the curve's highest true positive rate at that
        false positive rate (linear along a run of tied scores); null without both
        classes. With ``smooth``: ``[*by, fpr, tpr]``, 512 rows per group, ``tpr``
        ascending; ``fpr`` null for a group with fewer than two usable points.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.8, 0.3], "label": [1, 1, 0, 0]})
    >>> pr.roc_curve(df)
    shape: (4, 7)
    ┌───────────┬─────┬─────┬─────┬─────┬─────┬─────┐
    │ threshold ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ tpr ┆ fpr │
    │ ---       ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- │
    │ f64       ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ f64 ┆ f64 │
    ╞═══════════╪═════╪═════╪═════╪═════╪═════╪═════╡
    │ inf       ┆ 0   ┆ 0   ┆ 2   ┆ 2   ┆ 0.0 ┆ 0.0 │
    │ 0.9       ┆ 1   ┆ 0   ┆ 1   ┆ 2   ┆ 0.5 ┆ 0.0 │
    │ 0.8       ┆ 2   ┆ 1   ┆ 0   ┆ 1   ┆ 1.0 ┆ 0.5 │
    │ 0.3       ┆ 2   ┆ 2   ┆ 0   ┆ 0   ┆ 1.0 ┆ 1.0 │
    └───────────┴─────┴─────┴─────┴─────┴─────┴─────┘
    """
    check_flags(drop_intermediate=drop_intermediate, local_maxima=local_maxima, progress=progress)
    if local_maxima and drop_intermediate:
        msg = (
            "local_maxima=True keeps the curve's corners, drop_intermediate=True its "
            "bends: pass one of them"
        )
        raise ValueError(msg)
    cost_columns(cost_fp, cost_fn)  # checked before any read
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    others = dict(
        drop_intermediate=drop_intermediate,
        cost_fp=cost_fp,
        cost_fn=cost_fn,
        bins=bins,
        local_maxima=local_maxima,
    )
    if smooth is not None:
        given = {k: v not in (None, False) for k, v in {**others, "band": band}.items()}
        check_smooth(smooth, given)
        prep = count_rows(frame, roles, reserved=("fpr", "tpr")).prep
        table = build(prep)
        return _without_totals(prep, table, smoothed_curve(table, prep.by))
    if band is not None or (conf_level, n_boot, seed) != (0.95, 2000, None):
        return _band(
            frame,
            roles,
            band=band,
            conf_level=conf_level,
            n_boot=n_boot,
            seed=seed,
            progress=progress,
            others=others,
        )
    counted = count_rows(frame, roles, reserved=CURVE_RESERVED, bins=bins, table_only=True)
    return curve_from_table(
        counted.prep,
        build(counted.prep),
        drop_intermediate=drop_intermediate,
        local_maxima=local_maxima,
        cost_fp=cost_fp,
        cost_fn=cost_fn,
    )


def _band(
    frame: Frame,
    roles: Roles,
    *,
    band: str | None,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
    others: dict[str, Any],
) -> Frame:
    """The whole-curve band of :func:`roc_curve` (see ``band``)."""
    check_inference_options(band, ("bootstrap",), conf_level, n_boot, seed, name="band")
    given = [name for name, value in others.items() if value not in (None, False)]
    if given:
        msg = (
            f"band={band!r} gives the curve on a grid of false positive rates, without "
            f"thresholds or counts; drop {', '.join(given)}"
        )
        raise ValueError(msg)
    prep = count_rows(frame, roles, reserved=("fpr", "tpr", "band_lower", "band_upper")).prep
    prep = read_once(prep, True)
    table = build(prep)
    result = band_per_group(
        prep, table, conf_level=conf_level, n_boot=n_boot, seed=seed, progress=progress
    )
    return _without_totals(prep, table, result)


def _without_totals(prep: Prepared, table: pl.LazyFrame, result: pl.LazyFrame) -> Frame:
    """``result`` finished with the group totals of ``table`` (for the one-class
    warning), which are then dropped."""
    first = pl.col("n_pos", "n_neg").first()
    totals = table.group_by(prep.by).agg(first) if prep.by else table.select(first)
    return finish_dropping_totals(prep, attach(result, totals, prep.by))


def finish_dropping_totals(prep: Prepared, result: pl.LazyFrame) -> Frame:
    """Collect when eager (warning about single-class groups) and drop the totals."""
    done = prep.finish(result, lambda table: group_totals(table, prep.by))
    return done.drop("n_pos", "n_neg")


def curve_from_table(
    prep: Prepared,
    table: pl.LazyFrame,
    *,
    drop_intermediate: bool = False,
    local_maxima: bool = False,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
) -> Frame:
    """:func:`roc_curve` of the score table ``table`` of ``prep`` (finished)."""
    costs = cost_columns(cost_fp, cost_fn)
    points = with_start_rows(table, prep.by)
    if drop_intermediate:
        points = points.filter(~collinear(prep.by, weighted=prep.weighted))
    if local_maxima:
        points = _local_maxima(points, prep.by)
    curve = points.select(*curve_columns(prep.by), "n_pos", "n_neg").with_columns(costs)
    return finish_dropping_totals(prep, curve)


def _local_maxima(points: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """The local maxima of curve points in curve order (pROC's definition).

    pROC reads the curve from the lowest threshold up; here the previous row has the
    higher threshold. A point is a local maximum when it gained true positives over the
    previous point (or has none before it) and the next point gains false positives (or
    there is none); also, between the ends, a point with ``tp = 0`` whose next point
    gains false positives. Repeated points count once, at their lowest threshold.
    """
    tp, fp = pl.col("tp"), pl.col("fp")
    first, last = group_start(by), group_end(by)
    repeated = ~last & (tp == tp.shift(-1)) & (fp == fp.shift(-1))
    gains_fp_next = fp < fp.shift(-1)
    corner = (first | (tp > lag(tp))) & (last | gains_fp_next)
    bottom = ~first & ~last & (tp == 0) & gains_fp_next
    # The flags read the neighbours once the repeats are gone.
    return points.filter(~repeated).filter(corner | bottom)
