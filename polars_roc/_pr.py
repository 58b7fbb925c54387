"""Precision-recall curve and average precision, from the score table.

Conventions are scikit-learn's (``precision_recall_curve``, ``average_precision_score``):
a row is predicted positive when ``score >= threshold``; the curve gets an extra end
point with precision 1 and recall 0 (here first in each group, at threshold ``+inf``);
average precision is the step-wise sum ``sum_k (R_k - R_{k-1}) * P_k`` over thresholds,
not the trapezoidal area, which is optimistic for precision-recall curves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc._curve import with_start_rows
from polars_roc._expr_table import (
    IntoExpr,
    class_sizes,
    expr_rows,
    expr_table,
    positives_at_or_above,
)
from polars_roc._measures import ratio
from polars_roc._score_table import _totals, build, group_end, group_start
from polars_roc._validate import Direction, Frame, NullPolicy, prepare

__all__ = ["average_precision", "pr_average_precision", "pr_curve"]


def _weighted_rows() -> pl.Expr:
    """Score-table rows that hold some weight (scikit-learn drops zero-weight samples)."""
    return (pl.col("pos") + pl.col("neg")) != 0


def pr_curve(
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
) -> Frame:
    """Precision-recall curve per group, with scikit-learn's conventions.

    Point ``i`` counts the rows with ``score >= threshold[i]``: ``precision = tp / (tp
    + fp)``, ``recall = tp / n_pos``. Each group starts with scikit-learn's extra point
    ``precision = 1, recall = 0`` (at threshold ``+inf``), then has one point per
    distinct score, thresholds descending (scikit-learn lists the same points in the
    reverse order). Rows of weight 0 are left out, as scikit-learn does.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    drop_intermediate
        Drop the thresholds where recall does not change on either side, as
        scikit-learn's ``drop_intermediate=True`` (the first and last score stay).

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, tp, fp, precision, recall]`` ordered by group, then threshold
        descending. ``recall`` is null in a group without positives (scikit-learn sets
        it to 1 with a warning).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]})
    >>> pr.pr_curve(df)
    shape: (5, 5)
    ┌───────────┬─────┬─────┬───────────┬────────┐
    │ threshold ┆ tp  ┆ fp  ┆ precision ┆ recall │
    │ ---       ┆ --- ┆ --- ┆ ---       ┆ ---    │
    │ f64       ┆ i64 ┆ i64 ┆ f64       ┆ f64    │
    ╞═══════════╪═════╪═════╪═══════════╪════════╡
    │ inf       ┆ 0   ┆ 0   ┆ 1.0       ┆ 0.0    │
    │ 0.8       ┆ 1   ┆ 0   ┆ 1.0       ┆ 0.5    │
    │ 0.4       ┆ 1   ┆ 1   ┆ 0.5       ┆ 0.5    │
    │ 0.35      ┆ 2   ┆ 1   ┆ 0.666667  ┆ 1.0    │
    │ 0.1       ┆ 2   ┆ 2   ┆ 0.5       ┆ 1.0    │
    └───────────┴─────┴─────┴───────────┴────────┘
    """
    prep = prepare(
        frame, score=score, label=label, by=by, weight=weight, count=count, pos_label=pos_label,
        nulls=nulls, direction=direction, reserved=("precision", "recall"),
    )
    table = build(prep)
    if prep.weighted:
        table = table.filter(_weighted_rows())
    if drop_intermediate:
        tp = pl.col("tp")
        moves = (tp != tp.shift(1)) | (tp != tp.shift(-1))
        table = table.filter(group_start(prep.by) | group_end(prep.by) | moves)
    tp, fp = pl.col("tp"), pl.col("fp")
    curve = with_start_rows(table, prep.by).select(
        *prep.by,
        "threshold",
        "tp",
        "fp",
        pl.when(group_start(prep.by)).then(1.0).otherwise(ratio(tp, tp + fp).fill_null(0.0))
        .alias("precision"),
        ratio(tp, pl.col("n_pos")).alias("recall"),
        "n_pos",
        "n_neg",
    )
    done = prep.finish(curve, lambda result: _totals(result, prep.by))
    return done.drop("n_pos", "n_neg")


def average_precision_from_counts(pos: pl.Expr, tp: pl.Expr, fp: pl.Expr) -> pl.Expr:
    """Average precision of one group from score-table columns (an aggregation).

    Each distinct score adds its share of the positives times the precision there:
    ``sum(pos * tp / (tp + fp)) / n_pos``; null without positives.
    """
    pos, tp, fp = (c.cast(pl.Float64) for c in (pos, tp, fp))
    precision = ratio(tp, tp + fp).fill_null(0.0)
    # Running sums read at the end add in table order: a grouped float sum may add
    # thread-dependent partial sums, whose last bits vary from run to run.
    return ratio((pos * precision).cum_sum().last(), pos.cum_sum().last())


def pr_average_precision(
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
    """Average precision per group (scikit-learn's ``average_precision_score``).

    ``AP = sum_k (R_k - R_{k-1}) * P_k`` over the distinct scores, thresholds
    descending: the mean of the precision at each positive's score, ties included
    (a tie run counts at the precision of the whole run). Not the trapezoidal area
    under the precision-recall curve.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, average_precision, n_pos, n_neg]``;
        ``average_precision`` is null without positives.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]})
    >>> pr.pr_average_precision(df)
    shape: (1, 3)
    ┌───────────────────┬───────┬───────┐
    │ average_precision ┆ n_pos ┆ n_neg │
    │ ---               ┆ ---   ┆ ---   │
    │ f64               ┆ i64   ┆ i64   │
    ╞═══════════════════╪═══════╪═══════╡
    │ 0.833333          ┆ 2     ┆ 2     │
    └───────────────────┴───────┴───────┘
    """
    prep = prepare(
        frame, score=score, label=label, by=by, weight=weight, count=count, pos_label=pos_label,
        nulls=nulls, direction=direction, reserved=("average_precision",),
    )
    table = build(prep)
    summary = [
        average_precision_from_counts(pl.col("pos"), pl.col("tp"), pl.col("fp"))
        .alias("average_precision"),
        pl.col("n_pos").first(),
        pl.col("n_neg").first(),
    ]
    if prep.by:
        result = table.group_by(prep.by, maintain_order=True).agg(summary)
    else:
        result = table.select(summary).filter(pl.col("n_pos").is_not_null())
    return prep.finish(result, lambda done: _totals(done, prep.by))


def average_precision(
    score: IntoExpr = "score",
    label: IntoExpr = "label",
    weight: IntoExpr | None = None,
    *,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    count: IntoExpr | None = None,
    direction: Direction = "higher",
) -> pl.Expr:
    """Average precision as an expression, one value per group of the context.

    Same number as :func:`pr_average_precision` (scikit-learn's step-wise definition);
    like :func:`polars_roc.auc`, it gives null for a group with a NaN score, a label
    outside 0/1 (without ``pos_label``), a bad weight, or no positives.

    Parameters
    ----------
    score
        Score column name or expression; higher means more likely positive.
    label
        Label column name or expression: Boolean or 0/1, or any dtype with
        ``pos_label``.
    weight
        Optional column name or expression of non-negative sample weights.
    pos_label
        The label value of the positive class; every other value is negative.
    nulls
        As in :func:`polars_roc.auc`: ``"raise"`` stops the query on a null,
        ``"drop"`` leaves out rows with a null score, label or weight.
    count
        Optional column name or expression of frequencies (whole numbers >= 0): a row
        stands for that many identical rows; the same number as the frame methods'
        ``count=`` (a group with a fractional or negative count gives null).
    direction
        ``"higher"`` (default) or ``"lower"``: a lower score is more positive, as the
        frame methods' ``direction=``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "segment": ["a", "a", "a", "b", "b", "b"],
    ...     "p": [0.9, 0.4, 0.4, 0.8, 0.7, 0.1],
    ...     "y": [True, True, False, False, True, False],
    ... })
    >>> df.group_by("segment", maintain_order=True).agg(pr.average_precision("p", "y"))
    shape: (2, 2)
    ┌─────────┬───────────────────┐
    │ segment ┆ average_precision │
    │ ---     ┆ ---               │
    │ str     ┆ f64               │
    ╞═════════╪═══════════════════╡
    │ a       ┆ 0.833333          │
    │ b       ┆ 0.5               │
    └─────────┴───────────────────┘
    """
    rows = expr_rows("average_precision", score, label, weight, pos_label, nulls, count=count,
                     direction=direction)
    if rows.weight is None:
        # Each positive adds the precision at its own score (its whole tie run above
        # or at it): tp / rows at or above, from two ranks (positives_at_or_above).
        tp, at_or_above = positives_at_or_above(rows)
        value = ratio((tp / at_or_above).sum(), class_sizes(rows)[0])
    else:
        table = expr_table(rows)
        precision = ratio(table.tp, table.tp + table.fp).fill_null(0.0)
        value = ratio((table.pos * precision).sum(), table.tp.last())
    return pl.when(rows.valid).then(value).alias("average_precision")
