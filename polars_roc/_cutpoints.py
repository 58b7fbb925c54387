"""Optimal cutpoints by any confusion measure (cutpointr's ``maximize_metric`` /
``minimize_metric``), from the ROC curve points.

Every distinct score of a group is a candidate, and so is ``+inf`` (nothing predicted
positive), as in :func:`polars_roc.best_threshold`; each gets every measure of the
measure table, and the rows reaching the best value of the chosen one are kept in one
``group_by`` pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from polars_roc._costs import cost_columns
from polars_roc._measures import MEASURE_COLUMNS, check_beta, measures
from polars_roc._operating import at_best, curve_points, pick
from polars_roc._score_table import _totals
from polars_roc._validate import Frame, NullPolicy, prepare

__all__ = ["OPTIMIZABLE", "optimal_cutpoint"]

Goal = Literal["maximize", "minimize"]
CutTies = Literal["first", "all"]

# The numeric measures a cutpoint can be chosen by (counts and margins excluded: they
# are monotone in the threshold and say nothing about a trade-off).
OPTIMIZABLE = (
    *(m for m in MEASURE_COLUMNS if m not in ("pp", "pn", "pos", "neg", "n", "kappa_level")),
    "f_beta",
    "cost",
    "expected_cost",
)


def optimal_cutpoint(
    frame: Frame,
    metric: str = "youden_j",
    *,
    goal: Goal = "maximize",
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    beta: float | None = None,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
    ties: CutTies = "first",
) -> Frame:
    """The threshold of each group that maximises (or minimises) a confusion measure.

    cutpointr's ``cutpointr(method = maximize_metric / minimize_metric, metric = ...)``
    for any measure of :func:`polars_roc.confusion_matrix`: ``accuracy``, ``f1``,
    ``kappa``, ``mcc``, ``balanced_accuracy``, ``youden_j``, ``ppv``... , ``f_beta``
    (with ``beta=``) or ``cost`` / ``expected_cost`` (with ``cost_fp=`` / ``cost_fn=``,
    each defaulting to 1). Candidates are every distinct score (a row is positive when
    ``score >= threshold``) and ``+inf`` (nothing predicted positive); a candidate where
    the measure is null (a zero denominator) is skipped.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    metric
        The column of the measure table to optimise.
    goal
        ``"maximize"`` (default) or ``"minimize"``.
    score, label, by, weight, pos_label, nulls
        As in :func:`polars_roc.score_table`.
    beta, cost_fp, cost_fn
        As in :func:`polars_roc.confusion_matrix`; they add ``f_beta`` and ``cost``,
        ``expected_cost`` to the candidates' measures.
    ties
        Values equal up to a relative ``1e-12`` tie. ``"first"`` keeps the highest tied
        threshold (the fewest predicted positives); ``"all"`` keeps every tied
        threshold, highest first (cutpointr's ``break_ties = c``; its default, the
        median of the tied cutpoints, is the median of these rows' thresholds).

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, tp, fp, fn, tn]`` and every measure of
        :func:`polars_roc.confusion_matrix` at the chosen threshold(s). A group where
        the measure is null at every candidate (e.g. one class only) gets one row of
        nulls.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> pr.optimal_cutpoint(df, "accuracy").select("threshold", "tp", "fp", "accuracy")
    shape: (1, 4)
    ┌───────────┬─────┬─────┬──────────┐
    │ threshold ┆ tp  ┆ fp  ┆ accuracy │
    │ ---       ┆ --- ┆ --- ┆ ---      │
    │ f64       ┆ i64 ┆ i64 ┆ f64      │
    ╞═══════════╪═════╪═════╪══════════╡
    │ 0.8       ┆ 2   ┆ 0   ┆ 0.75     │
    └───────────┴─────┴─────┴──────────┘
    """
    check_metric(metric, beta=beta)
    if goal not in ("maximize", "minimize"):
        msg = f"`goal` must be 'maximize' or 'minimize', got {goal!r}"
        raise ValueError(msg)
    if ties not in ("first", "all"):
        msg = f"`ties` must be 'first' or 'all', got {ties!r}"
        raise ValueError(msg)
    if metric in ("cost", "expected_cost") and cost_fp is None and cost_fn is None:
        cost_fp = 1.0
    costs = cost_columns(cost_fp, cost_fn)
    names = ["fn", "tn", *MEASURE_COLUMNS]
    if beta is not None:
        names.insert(names.index("f1") + 1, "f_beta")
    names += [c.meta.output_name() for c in costs]
    prep = prepare(
        frame, score=score, label=label, by=by, weight=weight, pos_label=pos_label,
        nulls=nulls, reserved=tuple(names),
    )  # fmt: skip
    points = (
        curve_points(prep)
        .with_columns(
            (pl.col("n_pos") - pl.col("tp")).alias("fn"),
            (pl.col("n_neg") - pl.col("fp")).alias("tn"),
        )
        .with_columns(measures(beta))
        .with_columns(costs)
    )
    value = pl.col(metric) if goal == "maximize" else -pl.col(metric)
    columns = ["threshold", "tp", "fp", *names]
    picked = pick(points, prep.by, at_best(value), columns, take=ties)
    done = prep.finish(picked, lambda table: _totals(table, prep.by))
    return done.drop("n_pos", "n_neg")


def check_metric(metric: object, *, beta: float | None) -> str:
    """``metric`` if it names an optimisable measure (``f_beta`` needs ``beta``)."""
    if metric not in OPTIMIZABLE:
        msg = (
            f"`metric` must be one of the numeric measures {list(OPTIMIZABLE)!r}, got "
            f"{metric!r}"
        )
        raise ValueError(msg)
    if metric == "f_beta" and beta is None:
        msg = "`metric='f_beta'` needs `beta=`, e.g. beta=2.0 (recall twice as important)"
        raise ValueError(msg)
    if beta is not None:
        check_beta(beta)
    return str(metric)
