"""Credit-scoring views: Kolmogorov-Smirnov statistic, gains table, lift curve.

All of it comes from the score table, whose rows are already the distinct scores in
descending order, so binning by quantile needs no sort and tied scores can never be
split across two bins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.core.arguments import Roles
from polars_roc.core.compat import lag
from polars_roc.core.counting import count_rows
from polars_roc.core.expr_table import (
    ExprTable,
    IntoExpr,
    class_sizes,
    expr_rows,
    positives_at_or_above,
    table_value,
)
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import build, cumulate, group_start, group_totals
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.stats.cells import ordered_sum
from polars_roc.views.calibration import check_n_bins
from polars_roc.views.curve import with_start_rows
from polars_roc.views.operating import at_best, finish_dropping_totals, pick, rates

__all__ = ["gains_table", "ks", "ks_statistic", "lift_curve"]

GAINS_COLUMNS = (
    "bin",
    "score_min",
    "score_max",
    "count",
    "rate",
    "cum_count",
    "cum_pos",
    "cum_neg",
    "capture",
    "lift",
    "cum_lift",
    "ks",
)


def ks_statistic(
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
    """Kolmogorov-Smirnov statistic per group, with the threshold where it is reached.

    ``ks = max(tpr - fpr)`` over the thresholds, the ``+inf`` one included (so
    ``ks >= 0``): the largest gap between the score distributions of positives and
    negatives, measured in the direction "positives score higher". It equals the
    two-sample KS statistic (``scipy.stats.ks_2samp``) when the largest gap lies in
    that direction; a model worse than chance over a wider range than it is better has
    a larger two-sided statistic. It is the maximum of Youden's J. Among equal maxima
    the highest threshold is reported.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, ks, threshold, tpr, fpr, n_pos, n_neg]``; null but
        for the counts in a group without both classes.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> pr.ks_statistic(df)
    shape: (1, 6)
    ┌─────┬───────────┬─────┬─────┬───────┬───────┐
    │ ks  ┆ threshold ┆ tpr ┆ fpr ┆ n_pos ┆ n_neg │
    │ --- ┆ ---       ┆ --- ┆ --- ┆ ---   ┆ ---   │
    │ f64 ┆ f64       ┆ f64 ┆ f64 ┆ i64   ┆ i64   │
    ╞═════╪═══════════╪═════╪═════╪═══════╪═══════╡
    │ 0.5 ┆ 0.8       ┆ 0.5 ┆ 0.0 ┆ 4     ┆ 4     │
    └─────┴───────────┴─────┴─────┴───────┴───────┘
    """
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=("ks", "tpr", "fpr")).prep
    result = ks_from_table(build(prep), prep.by)
    return prep.finish(result, lambda done: group_totals(done, prep.by))


def ks_from_table(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, ks, threshold, tpr, fpr, n_pos, n_neg]`` from a score table (internal
    units, not finished): :func:`ks_statistic` once its input is counted."""
    points = with_start_rows(table, by).with_columns(rates())
    separation = pl.col("tpr") - pl.col("fpr")
    picked = pick(points, by, at_best(separation), ["threshold", "tpr", "fpr"])
    return picked.select(
        *by,
        (pl.col("tpr") - pl.col("fpr")).alias("ks"),
        "threshold",
        "tpr",
        "fpr",
        "n_pos",
        "n_neg",
    )


def ks(
    score: IntoExpr = "score",
    label: IntoExpr = "label",
    weight: IntoExpr | None = None,
    *,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    count: IntoExpr | None = None,
    direction: Direction = "higher",
) -> pl.Expr:
    """Kolmogorov-Smirnov statistic ``max(tpr - fpr)`` as an expression.

    Same number as :func:`ks_statistic`; like :func:`polars_roc.auc`, null instead of
    an error for a group with bad values or only one class.

    Parameters
    ----------
    score, label, weight, pos_label, nulls
        As in :func:`polars_roc.auc`.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "segment": ["a", "a", "a", "b", "b", "b"],
    ...     "p": [0.9, 0.4, 0.4, 0.8, 0.7, 0.1],
    ...     "y": [True, True, False, False, True, False],
    ... })
    >>> df.group_by("segment", maintain_order=True).agg(pr.ks("p", "y"))
    shape: (2, 2)
    ┌─────────┬─────┐
    │ segment ┆ ks  │
    │ ---     ┆ --- │
    │ str     ┆ f64 │
    ╞═════════╪═════╡
    │ a       ┆ 0.5 │
    │ b       ┆ 0.5 │
    └─────────┴─────┘
    """
    rows = expr_rows("ks", score, label, weight, pos_label, nulls, count=count, direction=direction)
    if rows.weight is None:
        # tpr - fpr only grows where positives enter, so its maximum is at a positive's
        # score: two ranks give tp and fp there (see positives_at_or_above).
        n_pos, n_neg = class_sizes(rows)
        tp, at_or_above = positives_at_or_above(rows)
        # tp / P - (at_or_above - tp) / N over one denominator: each rank appears once
        # (Polars reruns a repeated part of an `agg` expression; benchmarks/README.md).
        # The numerator is exact in Float64 (whole numbers below 2^53 for groups under
        # ~9e7 rows): one rounding, at the division.
        separation = ((tp * (n_pos + n_neg) - at_or_above * n_pos) / (n_pos * n_neg)).max()
        value = pl.max_horizontal(separation, pl.lit(0.0))
        return pl.when(rows.valid & (n_pos > 0) & (n_neg > 0)).then(value).alias("ks")

    def best(table: ExprTable) -> pl.Expr:
        # ks_statistic's pick: its rates (tp / n_pos, divided by a column) at the curve's
        # points, the start (0) first, and the first point within tolerance of the best;
        # null without both classes.
        n_pos, n_neg = table.n_pos, table.n_neg
        separation = pl.when(table.end).then(ratio(table.tp, n_pos) - ratio(table.fp, n_neg))
        points = pl.lit(0.0).append(separation)
        picked = points.filter(at_best(points)).first()
        return pl.when((n_pos > 0) & (n_neg > 0)).then(picked)

    return pl.when(rows.valid).then(table_value(rows, best)).alias("ks")


def gains_table(
    frame: Frame,
    n_bins: int = 10,
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
    """Gains table by score quantile, per group: the credit-scoring cut-off table.

    Rows are sorted by score, highest first, and cut into ``n_bins`` bins of (about)
    equal count; bin 1 holds the highest scores. A run of tied scores always stays in
    one bin, the bin where the run starts, so a large tie makes its bin bigger and the
    table shorter: bins are numbered 1, 2, ... without gaps, and fewer than ``n_bins``
    come out when ties (or fewer distinct scores than bins) leave some quantile bins
    empty. With weights, counts and quantiles are weighted (a share of weight within
    1e-9 below a quantile edge counts as on it, so that rounding in the sums does not
    move rows: constant weights give the bins of the rows).

    Parameters
    ----------
    n_bins
        Number of quantile bins (10: deciles, 20: ventiles).
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group and bin: ``[*by, bin, score_min, score_max, count, pos, neg,
        rate, cum_count, cum_pos, cum_neg, capture, lift, cum_lift, ks]`` where ``rate =
        pos / count`` (the bin's positive rate), ``capture = cum_pos / n_pos`` (share of
        all positives in this bin and the ones above, the cumulative gain), ``lift =
        rate / prevalence``, ``cum_lift = (cum_pos / cum_count) / prevalence`` and ``ks =
        capture - cum_neg / n_neg`` (``tpr - fpr`` at the cut-off ``score_min``).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> pr.gains_table(df, n_bins=4).select(
    ...     "bin", "score_min", "score_max", "pos", "neg", "capture", "cum_lift", "ks"
    ... )
    shape: (4, 8)
    ┌─────┬───────────┬───────────┬─────┬─────┬─────────┬──────────┬─────┐
    │ bin ┆ score_min ┆ score_max ┆ pos ┆ neg ┆ capture ┆ cum_lift ┆ ks  │
    │ --- ┆ ---       ┆ ---       ┆ --- ┆ --- ┆ ---     ┆ ---      ┆ --- │
    │ i64 ┆ f64       ┆ f64       ┆ i64 ┆ i64 ┆ f64     ┆ f64      ┆ f64 │
    ╞═════╪═══════════╪═══════════╪═════╪═════╪═════════╪══════════╪═════╡
    │ 1   ┆ 0.8       ┆ 0.9       ┆ 2   ┆ 0   ┆ 0.5     ┆ 2.0      ┆ 0.5 │
    │ 2   ┆ 0.6       ┆ 0.7       ┆ 1   ┆ 1   ┆ 0.75    ┆ 1.5      ┆ 0.5 │
    │ 3   ┆ 0.5       ┆ 0.55      ┆ 1   ┆ 1   ┆ 1.0     ┆ 1.333333 ┆ 0.5 │
    │ 4   ┆ 0.3       ┆ 0.4       ┆ 0   ┆ 2   ┆ 1.0     ┆ 1.0      ┆ 0.0 │
    └─────┴───────────┴───────────┴─────┴─────┴─────────┴──────────┴─────┘
    """
    n_bins = check_n_bins(n_bins)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=GAINS_COLUMNS).prep
    return gains_from_table(prep, build(prep), n_bins=n_bins)


# Shares of weight closer than this below a quantile edge count as on it (rounding).
QUANTILE_SLACK = 1e-9


def gains_from_table(prep: Prepared, table: pl.LazyFrame, *, n_bins: int) -> Frame:
    """:func:`gains_table` of the score table ``table`` of ``prep`` (finished)."""
    by = prep.by
    table = prep.drop_zero_weight(table)
    in_cell = pl.col("pos") + pl.col("neg")
    above = pl.col("tp") + pl.col("fp") - in_cell
    n = pl.col("n_pos") + pl.col("n_neg")
    # The quantile bin where each tie run starts; then renumber 1, 2, ... per group.
    if prep.weighted:
        # Float sums of weights fall on either side of an exact quantile edge (ten
        # weights of 0.1 sum to 0.9999999999999999): a slack on the share keeps the
        # bins of constant weights those of the rows, whatever their scale.
        quantile = ((above / n + QUANTILE_SLACK) * n_bins).floor()
    else:
        # Exact in Int128: above * n_bins passes 2**63 for counts near their limit.
        quantile = (above.cast(pl.Int128) * n_bins) // n.cast(pl.Int128)
    new_bin = (group_start(by) | (quantile != lag(quantile))).cast(pl.Int64)
    binned = table.with_columns(new_bin.alias("__roc_new_bin")).with_columns(
        cumulate("__roc_new_bin", by).alias("bin")
    )
    # A bin's sums add its scores in their (sorted) order: the same bits on every run.
    bins = binned.group_by([*by, "bin"], maintain_order=True).agg(
        pl.col("threshold").last().alias("score_min"),
        pl.col("threshold").first().alias("score_max"),
        ordered_sum(pl.col("pos") + pl.col("neg")).alias("count"),
        ordered_sum(pl.col("pos")),
        ordered_sum(pl.col("neg")),
        pl.col("tp").last().alias("cum_pos"),
        pl.col("fp").last().alias("cum_neg"),
        pl.col("n_pos").first(),
        pl.col("n_neg").first(),
    )
    prevalence = ratio(pl.col("n_pos"), pl.col("n_pos") + pl.col("n_neg"))
    cum_count = pl.col("cum_pos") + pl.col("cum_neg")
    rate = ratio(pl.col("pos"), pl.col("count"))
    capture = ratio(pl.col("cum_pos"), pl.col("n_pos"))
    result = bins.select(
        *by,
        "bin",
        "score_min",
        "score_max",
        "count",
        "pos",
        "neg",
        rate.alias("rate"),
        cum_count.alias("cum_count"),
        "cum_pos",
        "cum_neg",
        capture.alias("capture"),
        ratio(rate, prevalence).alias("lift"),
        ratio(ratio(pl.col("cum_pos"), cum_count), prevalence).alias("cum_lift"),
        (capture - ratio(pl.col("cum_neg"), pl.col("n_neg"))).alias("ks"),
        "n_pos",
        "n_neg",
    )
    return finish_dropping_totals(prep, result)


def lift_curve(
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
    """Cumulative gains and lift at every distinct score, per group.

    Targeting every row with ``score >= threshold`` reaches the share ``depth`` of the
    population and the share ``capture`` of its positives; ``lift = capture / depth``
    is how many times richer in positives the targeted rows are than the whole group.
    ``depth`` against ``capture`` is the cumulative gains chart, ``depth`` against
    ``lift`` the lift chart.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, tp, fp, depth, capture, precision, lift]`` ordered by group
        and threshold descending: ``depth = (tp + fp) / n``, ``capture = tp / n_pos``,
        ``precision = tp / (tp + fp)``, ``lift = precision / prevalence``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]})
    >>> pr.lift_curve(df)
    shape: (4, 7)
    ┌───────────┬─────┬─────┬───────┬─────────┬───────────┬──────────┐
    │ threshold ┆ tp  ┆ fp  ┆ depth ┆ capture ┆ precision ┆ lift     │
    │ ---       ┆ --- ┆ --- ┆ ---   ┆ ---     ┆ ---       ┆ ---      │
    │ f64       ┆ i64 ┆ i64 ┆ f64   ┆ f64     ┆ f64       ┆ f64      │
    ╞═══════════╪═════╪═════╪═══════╪═════════╪═══════════╪══════════╡
    │ 0.8       ┆ 1   ┆ 0   ┆ 0.25  ┆ 0.5     ┆ 1.0       ┆ 2.0      │
    │ 0.4       ┆ 1   ┆ 1   ┆ 0.5   ┆ 0.5     ┆ 0.5       ┆ 1.0      │
    │ 0.35      ┆ 2   ┆ 1   ┆ 0.75  ┆ 1.0     ┆ 0.666667  ┆ 1.333333 │
    │ 0.1       ┆ 2   ┆ 2   ┆ 1.0   ┆ 1.0     ┆ 0.5       ┆ 1.0      │
    └───────────┴─────┴─────┴───────┴─────────┴───────────┴──────────┘
    """
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=("depth", "capture", "precision", "lift")).prep
    return lift_from_table(prep, build(prep))


def lift_from_table(prep: Prepared, table: pl.LazyFrame) -> Frame:
    """:func:`lift_curve` of the score table ``table`` of ``prep`` (finished)."""
    table = prep.drop_zero_weight(table)
    predicted = pl.col("tp") + pl.col("fp")
    n = pl.col("n_pos") + pl.col("n_neg")
    precision = ratio(pl.col("tp"), predicted)
    result = table.select(
        *prep.by,
        "threshold",
        "tp",
        "fp",
        ratio(predicted, n).alias("depth"),
        ratio(pl.col("tp"), pl.col("n_pos")).alias("capture"),
        precision.alias("precision"),
        ratio(precision, ratio(pl.col("n_pos"), n)).alias("lift"),
        "n_pos",
        "n_neg",
    )
    return finish_dropping_totals(prep, result)
