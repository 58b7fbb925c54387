"""Decision curves (Vickers & Elkin 2006): the net benefit of acting on a score, read
off the score table at each threshold (one as-of lookup per group)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.core.arguments import Roles, check_rates
from polars_roc.core.counting import count_rows
from polars_roc.core.finish import finish_result
from polars_roc.core.lookup import counts_at
from polars_roc.core.score_table import build, group_totals
from polars_roc.core.validate import Frame, NullPolicy

__all__ = ["DEFAULT_THRESHOLDS", "decision_curve"]

# 0.01, 0.02, ..., 0.99: dcurves' default grid without its 0 (a threshold in (0, 1)).
DEFAULT_THRESHOLDS = tuple(round(k / 100, 2) for k in range(1, 100))

DECISION_COLUMNS = ("net_benefit", "net_benefit_all", "net_benefit_none")


def decision_curve(
    frame: Frame,
    thresholds: float | Sequence[float] | None = None,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
) -> Frame:
    """Net benefit of treating by the score, of treating all and of treating none.

    The decision curve of Vickers & Elkin (2006), as R's and Python's ``dcurves``
    (``dca(..., thresholds=)``) compute it. At a risk threshold ``t`` a row is treated
    when ``score >= t``, and a false positive costs ``t / (1 - t)`` true positives (the
    odds at which one is indifferent), so ::

        net_benefit      = tp / n - fp / n * t / (1 - t)
        net_benefit_all  = n_pos / n - n_neg / n * t / (1 - t)    (treat everyone)
        net_benefit_none = 0                                       (treat no one)

    with ``n`` the rows of the group. The score must be a predicted probability (the
    threshold is both a cut-off of the score and the exchange rate of harms), so there is
    no ``direction=``, and a score outside [0, 1] raises ``RocInputError``, as in the
    calibration views.

    Parameters
    ----------
    thresholds
        A risk threshold or a list of them, each in ``[0, 1)``; the rows come in the
        order given. Default: ``0.01, 0.02, ..., 0.99``.
    frame, score, label, by, weight, count, pos_label, nulls
        As in :func:`polars_roc.score_table`. With ``weight``, ``tp``, ``fp`` and ``n``
        are weight sums; with ``count``, each row stands for that many rows.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, net_benefit, net_benefit_all, net_benefit_none]``, one row per
        group and threshold, groups sorted. A group without rows of mass has null net
        benefits; a group of one class is computed (treating all of a group of
        negatives has a negative net benefit) and named in a warning.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1, 0.05],
    ...     "label": [1, 1, 0, 1, 0, 0, 0, 0],
    ... })
    >>> pr.decision_curve(df, [0.1, 0.25, 0.5])
    shape: (3, 4)
    ┌───────────┬─────────────┬─────────────────┬──────────────────┐
    │ threshold ┆ net_benefit ┆ net_benefit_all ┆ net_benefit_none │
    │ ---       ┆ ---         ┆ ---             ┆ ---              │
    │ f64       ┆ f64         ┆ f64             ┆ f64              │
    ╞═══════════╪═════════════╪═════════════════╪══════════════════╡
    │ 0.1       ┆ 0.319444    ┆ 0.305556        ┆ 0.0              │
    │ 0.25      ┆ 0.291667    ┆ 0.166667        ┆ 0.0              │
    │ 0.5       ┆ 0.125       ┆ -0.25           ┆ 0.0              │
    └───────────┴─────────────┴─────────────────┴──────────────────┘
    """
    wanted = list(DEFAULT_THRESHOLDS)
    if thresholds is not None:
        hint = " (a risk threshold t: a false positive costs t / (1 - t) true positives)"
        wanted = check_rates("thresholds", thresholds, form="numbers", closed="left", hint=hint)
    prep = count_rows(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls),
        reserved=DECISION_COLUMNS,
        score_cuts=wanted,  # another engine counts per threshold, not per score
        probabilities=True,  # the threshold is a risk: scores outside [0, 1] are refused
    ).prep
    table = build(prep)
    at = counts_at(table, prep, wanted)
    n = (pl.col("tp") + pl.col("fp") + pl.col("fn") + pl.col("tn")).cast(pl.Float64)
    odds = pl.col("threshold") / (1.0 - pl.col("threshold"))
    positive = pl.col("tp") + pl.col("fn")
    negative = pl.col("fp") + pl.col("tn")
    # Null where the group has no mass (n = 0), never NaN from 0 / 0.
    of_n = pl.when(n > 0)
    result = at.select(
        *prep.by,
        "threshold",
        of_n.then(pl.col("tp") / n - pl.col("fp") / n * odds).alias("net_benefit"),
        of_n.then(positive / n - negative / n * odds).alias("net_benefit_all"),
        of_n.then(pl.lit(0.0)).alias("net_benefit_none"),
        positive.alias("n_pos"),
        negative.alias("n_neg"),
    )
    # The class totals ride along for the one-class warning, then go.
    finished = finish_result(
        result,
        eager=prep.eager,
        prep=prep,
        totals=lambda done: group_totals(done, prep.by),
        consequence="net benefits of one class are computed, those of no rows are null",
    )
    return finished.drop("n_pos", "n_neg")
