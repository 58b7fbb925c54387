"""Confusion matrices and their measures at given thresholds, from the score table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.core.costs import cost_columns
from polars_roc.core.counting import count_rows
from polars_roc.core.lookup import counts_at
from polars_roc.core.measures import MEASURE_COLUMNS, check_beta, measures
from polars_roc.core.score_table import build
from polars_roc.core.validate import (
    Direction,
    Frame,
    NullPolicy,
    Prepared,
    check_thresholds,
)

__all__ = ["confusion_matrix"]


def threshold_list(threshold: float | Sequence[float]) -> list[float]:
    """The ``threshold`` argument as a non-empty list of non-NaN floats."""
    return check_thresholds("threshold", threshold)


def confusion_matrix(
    frame: Frame,
    threshold: float | Sequence[float] = 0.5,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    beta: float | None = None,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
    prevalence: float | None = None,
) -> Frame:
    """Confusion matrix and every measure derived from it, per group and threshold.

    A row is predicted positive when ``score >= threshold``.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    threshold
        One threshold or a list of them; the result has one row per group and
        threshold, thresholds in the order given.
    score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    beta
        When given, adds ``f_beta``, the F-measure weighting recall ``beta`` times as
        much as precision: ``0`` gives precision, ``inf`` recall (the limit, as
        scikit-learn's ``fbeta_score``); a negative or NaN ``beta`` is refused.
    cost_fp, cost_fn
        When either is given, adds ``cost = cost_fp * fp + cost_fn * fn`` and
        ``expected_cost = cost / n`` (per example); a cost left out counts 1.
    prevalence
        The population's share of positives, when the sample's is not (oversampled
        defaults, case-control studies): ``ppv``, ``npv``, ``fdr``, ``for``,
        ``accuracy`` and ``error_rate`` are then given at that prevalence by Bayes'
        rule from the sample's sensitivity and specificity (as yardstick's
        ``ppv(prevalence=)``), and ``prevalence`` shows it. See docs/measures.md.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, tp, fp, fn, tn]`` then the margins ``pp, pn, pos, neg, n`` and
        the measures ``tpr, fpr, tnr, fnr, ppv, npv, fdr, for, accuracy, error_rate,
        balanced_accuracy, f1, [f_beta,] kappa, kappa_level, mcc, youden_j, prevalence,
        lr_pos, lr_neg, dor, p_tp, p_fp, p_fn, p_tn`` (see docs/measures.md). A ratio
        whose denominator is zero is null. Then ``cost, expected_cost`` when costs
        are given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.55, 0.3, 0.2], "label": [1, 0, 1, 0, 0]})
    >>> pr.confusion_matrix(df, [0.5, 0.7]).select("threshold", "tp", "fp", "fn", "tn", "f1")
    shape: (2, 6)
    ┌───────────┬─────┬─────┬─────┬─────┬──────────┐
    │ threshold ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ f1       │
    │ ---       ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---      │
    │ f64       ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ f64      │
    ╞═══════════╪═════╪═════╪═════╪═════╪══════════╡
    │ 0.5       ┆ 2   ┆ 1   ┆ 0   ┆ 2   ┆ 0.8      │
    │ 0.7       ┆ 1   ┆ 0   ┆ 1   ┆ 3   ┆ 0.666667 │
    └───────────┴─────┴─────┴─────┴─────┴──────────┘
    """
    thresholds = threshold_list(threshold)
    if beta is not None:
        check_beta(beta)
    cost_columns(cost_fp, cost_fn)  # checked before any read
    prep = count_rows(
        frame,
        score=score,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        reserved=CONFUSION_RESERVED,
        score_cuts=thresholds,  # another engine counts per threshold, not per score
    ).prep
    return confusion_from_table(
        prep,
        build(prep),
        thresholds,
        beta=beta,
        prevalence=prevalence,
        cost_fp=cost_fp,
        cost_fn=cost_fn,
    )


# Result columns of confusion_matrix, which `by` columns must not use.
CONFUSION_RESERVED = ("fn", "tn", "f_beta", "cost", "expected_cost", *MEASURE_COLUMNS)


def confusion_from_table(
    prep: Prepared,
    table: pl.LazyFrame,
    thresholds: list[float],
    *,
    beta: float | None = None,
    prevalence: float | None = None,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
) -> Frame:
    """:func:`confusion_matrix` at ``thresholds`` (checked, user units) from the score
    table ``table`` of ``prep`` (finished)."""
    costs = cost_columns(cost_fp, cost_fn)
    result = (
        counts_at(table, prep, thresholds)
        .with_columns(measures(beta, prevalence))
        .with_columns(costs)
    )
    return prep.finish(result, lambda done: _confusion_totals(done, prep.by))


def _confusion_totals(result: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    totals = [pl.col("pos").first().alias("n_pos"), pl.col("neg").first().alias("n_neg")]
    return result.group_by(by).agg(totals) if by else result.select(totals)
