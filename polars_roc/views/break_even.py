"""The precision-recall break-even point (ROCR's ``"prbe"``), from the score table.

Precision and recall meet where ``tp + fp = n_pos``, so the sign of ``recall -
precision`` is read from the counts; the roots between two cutoffs are interpolated
linearly in the cutoff, as ROCR does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.core.arguments import Roles
from polars_roc.core.counting import count_rows
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import build, group_end, group_totals
from polars_roc.core.validate import Direction, Frame, NullPolicy

__all__ = ["prbe"]

# Result columns, which `by` columns must not use.
PRBE_COLUMNS = ("prbe", "interpolated")


def prbe(
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
    """Precision-recall break-even points per group: ROCR's ``performance(pred, "prbe")``.

    At each threshold (a row is predicted positive when ``score >= threshold``, one
    point per distinct score) ``recall = tp / n_pos`` and ``precision = tp / (tp +
    fp)``. A break-even point is a threshold where the two are equal (``prbe`` is their
    common value, ``interpolated`` false), or, between two neighbouring thresholds
    where ``recall - precision`` changes sign, the threshold where that difference,
    interpolated linearly in the threshold, is zero (``prbe`` is the recall, equally
    the precision, interpolated there; ``interpolated`` true). These are ROCR's points
    (``.performance.precision.recall.break.even.point``) with two differences:

    - at an interpolated point ROCR reports the residual of its root finder (about 0)
      as the value, not the recall there; and its threshold is ``uniroot``'s
      approximation (tolerance about 1e-4) of the root computed here exactly;
    - a group of one distinct score is checked alone (ROCR stops with "Not enough
      distinct predictions").

    As ROCR does, infinite scores are left out (their thresholds cannot be
    interpolated), and a threshold where no positive is predicted but some row is
    counts (recall and precision are both 0 there).

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`. With ``weight``, ``tp`` and ``fp`` are
        weight sums.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, prbe, interpolated]``: one row per break-even point, groups
        sorted, thresholds descending within a group (ROCR's order). A group without
        one has no row: a group without positives (recall undefined), named in a
        warning with the other groups of one class. Usually the one point of interest
        is the first (highest) threshold, e.g. ``result.group_by(by).first()``.

    Examples
    --------
    ROCR's own test data (``tests/testthat/test-simple.r``), whose break-even point is
    0.8 at the cutoff 0.69762824:

    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.02495517, 0.92535646, 0.86251887, 0.80946685, 0.70922858,
    ...               0.69762824, 0.50604485, 0.25446810, 0.10837728, 0.07250349],
    ...     "label": [0, 1, 1, 0, 1, 1, 0, 1, 0, 0],
    ... })
    >>> pr.prbe(df)
    shape: (1, 3)
    ┌───────────┬──────┬──────────────┐
    │ threshold ┆ prbe ┆ interpolated │
    │ ---       ┆ ---  ┆ ---          │
    │ f64       ┆ f64  ┆ bool         │
    ╞═══════════╪══════╪══════════════╡
    │ 0.697628  ┆ 0.8  ┆ false        │
    └───────────┴──────┴──────────────┘
    """
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=PRBE_COLUMNS).prep
    by = prep.by
    # Rows of no mass (weight or count 0) are no point of the curve; infinite
    # thresholds are left out, as ROCR does.
    table = build(prep).filter(
        ((pl.col("pos") + pl.col("neg")) != 0) & pl.col("threshold").is_finite()
    )
    if prep.eager:
        # One computation of the table serves the points and the one-class warning,
        # which must also name groups that have no break-even point.
        collected = table.collect()
        table, totals = collected.lazy(), group_totals(collected, by)
    tp, fp = pl.col("tp").cast(pl.Float64), pl.col("fp").cast(pl.Float64)
    n_pos = pl.col("n_pos").cast(pl.Float64)
    recall = ratio(tp, n_pos)  # null without positives: no point
    gap = recall - tp / (tp + fp)
    # The sign of the gap, from the counts: recall = precision exactly where no
    # positive is predicted (both 0) or where tp + fp = n_pos; else the gap has the
    # sign of tp + fp - n_pos. (Float gaps of equal ratios need not come out 0.)
    side = pl.when(tp == 0).then(0.0).otherwise((tp + fp - n_pos).sign())
    # The neighbour below (the next lower threshold of the group), none at its end.
    last = group_end(by)
    below = {
        name: pl.when(~last).then(expr.shift(-1))
        for name, expr in {
            "gap": gap,
            "side": side,
            "recall": recall,
            "threshold": pl.col("threshold"),
        }.items()
    }
    # The root of the gap, linear between this threshold and the one below.
    share = below["gap"] / (below["gap"] - gap)
    points = table.with_row_index("_row").select(
        *by,
        "_row",
        pl.col("threshold"),
        recall.alias("_recall"),
        ((side == 0) & recall.is_not_null()).alias("_equal"),
        (side * below["side"] < 0).fill_null(False).alias("_crossing"),
        (below["threshold"] + share * (pl.col("threshold") - below["threshold"])).alias("_root"),
        (below["recall"] + share * (recall - below["recall"])).alias("_at_root"),
    )
    # The exact points (order 0), then the roots between a row and the one below it.
    found = [
        points.filter(flag).select(
            *by,
            "_row",
            pl.lit(order).alias("_order"),
            pl.col(at).alias("threshold"),
            pl.col(value).alias("prbe"),
            pl.lit(order == 1).alias("interpolated"),
        )
        for order, (flag, at, value) in enumerate(
            [("_equal", "threshold", "_recall"), ("_crossing", "_root", "_at_root")]
        )
    ]
    # Within a row of the table its exact point comes before the root below it; the
    # table is in group order, thresholds descending: so is the result.
    result = pl.concat(found).sort("_row", "_order").drop("_row", "_order")
    # `totals` is read only when eager (see Prepared.finish), and then it is set.
    consequence = (
        "a group without positives has no break-even point; one without negatives has "
        "precision 1 at every threshold"
    )
    return prep.finish(result, lambda _: totals, consequence=consequence)
