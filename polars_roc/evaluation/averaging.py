"""Averaging ROC curves across folds: vertical and threshold averaging (Fawcett 2006).

Seed 000 (Fig. 5) shows a cross-validated ROC curve with its spread across the test
folds. Each fold's curve is a view of the score table grouped by segment and fold;
vertical averaging reads every curve's TPR at fixed false-positive rates, threshold
averaging reads every curve's point at fixed thresholds; the spread of those values
across folds gives the mean curve, its standard deviation and a pointwise band.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any, Literal

import polars as pl

from polars_roc.core.arguments import Roles, check_choice, check_conf_level
from polars_roc.core.compat import explode
from polars_roc.core.finish import finish_result
from polars_roc.core.lookup import at_thresholds
from polars_roc.core.score_table import build, group_end, group_start
from polars_roc.core.validate import Direction, Frame, NullPolicy
from polars_roc.evaluation.folds import count_folds, fold_segments
from polars_roc.stats.cells import ordered_mean, ordered_std
from polars_roc.views.curve import with_start_rows

__all__ = ["AverageMethod", "Band", "average_curve"]

AverageMethod = Literal["vertical", "threshold"]
Band = Literal["std", "quantile"]

POINT_FPR = "__roc_point_fpr"
POINT_TPR = "__roc_point_tpr"
NEXT_FPR = "__roc_next_fpr"
NEXT_TPR = "__roc_next_tpr"
KEY = "__roc_key"
# Curves are matched by their position, not their keys: null keys never join.
CURVE = "__roc_curve"
# Result columns of both methods (a `by` or fold column must not take their names).
_SPREAD = tuple(f"{rate}_{part}" for rate in ("fpr", "tpr") for part in ("std", "lower", "upper"))
AVERAGE_COLUMNS = ("fpr", "tpr", *_SPREAD, "n_curves")


def _grid(grid: int | Sequence[float], method: str) -> list[float] | int:
    if isinstance(grid, Integral) and not isinstance(grid, bool) and int(grid) >= 2:
        return int(grid)
    if (
        isinstance(grid, Sequence)
        and grid
        and all(isinstance(v, Real) and not isinstance(v, bool) for v in grid)
    ):
        values = [float(v) for v in grid]
        if method == "threshold" and not any(v != v for v in values):
            return values
        if method == "vertical" and all(0.0 <= v <= 1.0 for v in values):
            return values
    expected = "false-positive rates in [0, 1]" if method == "vertical" else "non-NaN thresholds"
    msg = f"`grid` must be an integer >= 2 or a non-empty list of {expected}, got {grid!r}"
    raise ValueError(msg)


def _spread(value: str, band: Band, conf_level: float) -> list[pl.Expr]:
    """Mean, standard deviation and band of ``value`` across curves (aggregations)."""
    col = pl.col(value)
    mean, std = ordered_mean(col), ordered_std(col)
    if band == "std":
        lower = (mean - std).clip(0.0, 1.0)
        upper = (mean + std).clip(0.0, 1.0)
    else:
        alpha = (1.0 - conf_level) / 2.0
        lower = col.quantile(alpha, interpolation="linear")
        upper = col.quantile(1.0 - alpha, interpolation="linear")
    return [
        mean.alias(value),
        std.alias(f"{value}_std"),
        lower.alias(f"{value}_lower"),
        upper.alias(f"{value}_upper"),
    ]


def _vertical(points: pl.LazyFrame, curves: list[str], grid: list[float] | int) -> pl.LazyFrame:
    """``[*curves, fpr, tpr]``: each curve's TPR at the grid's false-positive rates.

    Between curve points the TPR is interpolated linearly; at a false-positive rate
    where the curve rises vertically it is the top of the rise (``numpy.interp`` on
    the curve's points, as in scikit-learn's cross-validated ROC example).
    """
    fpr = pl.col("fp").cast(pl.Float64) / pl.col("n_neg").cast(pl.Float64)
    tpr = pl.col("tp").cast(pl.Float64) / pl.col("n_pos").cast(pl.Float64)
    steps = points.with_columns(
        fpr.alias(POINT_FPR), tpr.alias(POINT_TPR), group_start(curves).cum_sum().alias(CURVE)
    ).with_columns(
        pl.when(~group_end(curves)).then(pl.col(POINT_FPR).shift(-1)).alias(NEXT_FPR),
        pl.when(~group_end(curves)).then(pl.col(POINT_TPR).shift(-1)).alias(NEXT_TPR),
    )
    # The last point at each false-positive rate is the top of a vertical rise; its
    # successor starts the next segment.
    tops = steps.filter(pl.col("fp").ne_missing(pl.col("fp").shift(-1)) | group_end(curves)).select(
        *curves, CURVE, POINT_FPR, POINT_TPR, NEXT_FPR, NEXT_TPR
    )
    if isinstance(grid, int):
        rates = [i / (grid - 1) for i in range(grid)]
    else:
        rates = sorted(set(grid))
    wanted = pl.LazyFrame({"fpr": rates}, schema={"fpr": pl.Float64})
    ids = tops.filter(group_end(curves)).select(*curves, CURVE)
    targets = ids.join(wanted, how="cross", maintain_order="left_right").sort("fpr")
    matched = targets.join_asof(
        tops.select(
            CURVE, pl.col(POINT_FPR).alias("fpr"), POINT_FPR, POINT_TPR, NEXT_FPR, NEXT_TPR
        ),
        on="fpr",
        by=CURVE,
        strategy="backward",
        check_sortedness=False,
    )
    slope = (pl.col(NEXT_TPR) - pl.col(POINT_TPR)) / (pl.col(NEXT_FPR) - pl.col(POINT_FPR))
    value = (
        pl.when(pl.col(NEXT_FPR) > pl.col(POINT_FPR))
        .then(pl.col(POINT_TPR) + (pl.col("fpr") - pl.col(POINT_FPR)) * slope)
        .otherwise(pl.col(POINT_TPR))
    )
    return matched.select(*curves, "fpr", value.alias("tpr"))


def _threshold(
    table: pl.LazyFrame, segments: list[str], curves: list[str], grid: list[float] | int
) -> pl.LazyFrame:
    """``[*curves, threshold, fpr, tpr]``: each curve's point at the grid's thresholds.

    An integer grid takes that many evenly spaced order statistics of the segment's
    pooled distinct scores (all folds together, highest to lowest, the lowest and
    highest included) and starts at ``+inf``.
    """
    if isinstance(grid, int):
        pooled = pl.col("threshold").sort(descending=True)
        last = (pl.len().cast(pl.Int64) - 1).clip(0)
        picks = (pl.int_range(grid) * last / (grid - 1)).round().cast(pl.Int64)
        picks = picks.filter(picks < pl.len())  # none for a segment without scores
        chosen = pl.lit(float("inf")).append(pooled.gather(picks))
        # Grouping by a constant when there are no segments: no rows, no thresholds.
        keys: list[Any] = segments or [pl.lit(0).alias(KEY)]
        per_segment = explode(table.group_by(keys).agg(chosen.alias("threshold")), ["threshold"])
        wanted = per_segment.select(*segments, "threshold").unique(maintain_order=True)
    else:
        wanted = pl.LazyFrame({"threshold": grid}, schema={"threshold": pl.Float64})
        segments = []  # the same thresholds for every curve
    matched = at_thresholds(
        table, wanted, by=curves, values=("tp", "fp"), shared=segments, carry=("n_pos", "n_neg")
    )
    tp = pl.col("tp").fill_null(0).cast(pl.Float64)
    fp = pl.col("fp").fill_null(0).cast(pl.Float64)
    return matched.select(
        *curves,
        "threshold",
        (fp / pl.col("n_neg").cast(pl.Float64)).alias("fpr"),
        (tp / pl.col("n_pos").cast(pl.Float64)).alias("tpr"),
    )


def average_curve(
    frame: Frame,
    *,
    fold: str = "fold",
    method: AverageMethod = "vertical",
    grid: int | Sequence[float] = 101,
    band: Band = "std",
    conf_level: float = 0.95,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
) -> Frame:
    """Average the ROC curves of the folds: mean curve, spread and pointwise band.

    One ROC curve per fold (per segment) is computed from the fold's predictions;
    folds with a single class have no curve and are left out. Then, per segment:

    - ``method="vertical"``: every curve's TPR at each false-positive rate of the grid
      (linear interpolation between curve points; at a vertical rise, its top) is
      averaged across folds.
    - ``method="threshold"``: every curve's point (FPR, TPR) at each threshold of the
      grid (``score >= threshold`` predicted positive) is averaged across folds, in
      both coordinates.

    Parameters
    ----------
    frame
        Predictions with a fold column (see :func:`polars_roc.folds`).
    fold
        The fold column: one curve per distinct value.
    method
        ``"vertical"`` or ``"threshold"`` averaging.
    grid
        Vertical: the number of evenly spaced false-positive rates ``i / (grid - 1)``,
        or a list of rates in ``[0, 1]``. Threshold: the number of thresholds, taken
        as evenly spaced order statistics of the segment's pooled scores (plus
        ``+inf``), or a list of thresholds.
    band
        ``"std"``: the band is mean +/- one standard deviation, clipped to ``[0, 1]``;
        ``"quantile"``: the pointwise ``(1 - conf_level) / 2`` and
        ``(1 + conf_level) / 2`` quantiles across folds (linear interpolation).
    conf_level
        Coverage of the quantile band.
    score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`; ``by`` names the segments.

    Returns
    -------
    DataFrame or LazyFrame
        Vertical: ``[*by, fpr, tpr, tpr_std, tpr_lower, tpr_upper, n_curves]``, one row
        per segment and grid rate, rates ascending. Threshold: ``[*by, threshold, fpr,
        tpr, fpr_std, fpr_lower, fpr_upper, tpr_std, tpr_lower, tpr_upper, n_curves]``,
        thresholds descending. ``fpr``/``tpr`` are the means, ``*_std`` the sample
        standard deviations (null for one curve), ``n_curves`` the folds averaged.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> preds = pl.DataFrame({
    ...     "fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...     "score": [0.9, 0.4, 0.6, 0.1, 0.8, 0.3, 0.2, 0.7],
    ...     "label": [1, 1, 0, 0, 1, 0, 1, 0],
    ... })
    >>> pr.average_curve(preds, grid=3)
    shape: (3, 6)
    ┌─────┬──────┬──────────┬───────────┬───────────┬──────────┐
    │ fpr ┆ tpr  ┆ tpr_std  ┆ tpr_lower ┆ tpr_upper ┆ n_curves │
    │ --- ┆ ---  ┆ ---      ┆ ---       ┆ ---       ┆ ---      │
    │ f64 ┆ f64  ┆ f64      ┆ f64       ┆ f64       ┆ i64      │
    ╞═════╪══════╪══════════╪═══════════╪═══════════╪══════════╡
    │ 0.0 ┆ 0.5  ┆ 0.0      ┆ 0.5       ┆ 0.5       ┆ 2        │
    │ 0.5 ┆ 0.75 ┆ 0.353553 ┆ 0.396447  ┆ 1.0       ┆ 2        │
    │ 1.0 ┆ 1.0  ┆ 0.0      ┆ 1.0       ┆ 1.0       ┆ 2        │
    └─────┴──────┴──────────┴───────────┴───────────┴──────────┘
    """
    check_choice("method", method, ("vertical", "threshold"))
    check_choice("band", band, ("std", "quantile"))
    check_conf_level(conf_level)
    checked_grid = _grid(grid, method)
    segments = fold_segments(frame, fold, by)
    roles = Roles(score, label, [*segments, fold], weight, count, pos_label, nulls, direction)
    eager, prep = count_folds(frame, roles, AVERAGE_COLUMNS)
    curves = prep.by
    if isinstance(checked_grid, list) and method == "threshold":
        checked_grid = prep.internal(checked_grid)  # thresholds in the user's units
    # Only folds holding both classes have a curve.
    table = build(prep).filter((pl.col("n_pos") > 0) & (pl.col("n_neg") > 0))
    if method == "vertical":
        per_curve = _vertical(with_start_rows(table, curves), curves, checked_grid)
        keys, values, descending = ["fpr"], ["tpr"], False
    else:
        per_curve = _threshold(table, segments, curves, checked_grid)
        keys, values, descending = ["threshold"], ["fpr", "tpr"], True
    stats = [e for v in values for e in _spread(v, band, conf_level)]
    spread = [f"{v}_{part}" for v in values for part in ("std", "lower", "upper")]
    result = (
        per_curve.sort([*curves, *keys], nulls_last=False)  # each point's folds in order
        .group_by(*segments, *keys)
        .agg(*stats, pl.len().cast(pl.Int64).alias("n_curves"))
        .select(*segments, *keys, *values, *spread, "n_curves")
        .sort(
            [*segments, *keys], descending=[False] * len(segments) + [descending], nulls_last=False
        )
    )
    # The warning names the folds left out: this view reports no AUC to be null.
    left_out = "they have no ROC curve and are left out of the average"
    return finish_result(result, eager=eager, prep=prep, consequence=left_out, counts=("n_curves",))
