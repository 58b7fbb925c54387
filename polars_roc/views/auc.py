"""Area under the ROC curve: per group from the score table, and as expressions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from polars_roc.core.arguments import Roles, check_flags
from polars_roc.core.auc import auc_from_counts
from polars_roc.core.counting import Counted, auc_in_engine, count_rows
from polars_roc.core.expr_table import (
    ExprRows,
    ExprTable,
    IntoExpr,
    class_sizes,
    expr_rows,
    table_sum,
    table_value,
)
from polars_roc.core.measures import ratio, unit_scale
from polars_roc.core.score_table import build, group_totals, pair_counts
from polars_roc.core.segment_batches import per_group
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.exceptions import RocOptionError
from polars_roc.stats.alternative import Alternative
from polars_roc.stats.auc_interval import auc_with_inference
from polars_roc.stats.binormal import check_smooth, smoothed_auc
from polars_roc.stats.cells import attach
from polars_roc.stats.delong import one_row_per_group

__all__ = ["auc", "auc_from_counts", "auc_from_table", "gini", "roc_auc"]


def roc_auc(
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
    ci: Literal["delong", "bootstrap"] | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    max_fpr: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    tpr_range: tuple[float, float] | None = None,
    standardize: bool = True,
    progress: bool = False,
    bins: int | None = None,
    test: bool = False,
    alternative: Alternative = "two-sided",
    ci_method: Literal["percentile", "bca"] = "percentile",
    smooth: Literal["binormal"] | None = None,
) -> Frame:
    """Area under the ROC curve per group.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    ci
        ``"delong"`` adds DeLong's standard error ``auc_se`` and the interval
        ``auc +- z * auc_se`` clipped to [0, 1] (pROC's ``ci.auc(method="delong")``;
        no weights, full AUC only). ``"bootstrap"`` adds the standard deviation and
        percentile interval of ``n_boot`` stratified bootstrap replicates (weights and
        partial AUC allowed). See docs/inference.md.
    conf_level
        Confidence level of the interval, strictly between 0 and 1.
    n_boot
        Number of bootstrap replicates.
    seed
        Seed of the bootstrap's random generator: the same seed gives the same interval.
    max_fpr
        Partial AUC over ``fpr`` in ``[0, max_fpr]``, McClish-standardized as
        scikit-learn's ``roc_auc_score(max_fpr=)`` and pROC's ``partial.auc.correct``.
    fpr_range, tpr_range
        Partial AUC over a band ``(low, high)`` of false or true positive rates (pROC's
        ``partial.auc.focus`` "specificity" / "sensitivity"); at most one of
        ``max_fpr``, ``fpr_range``, ``tpr_range``.
    standardize
        With a partial AUC: ``True`` gives the McClish-standardized value (0.5 for
        chance, 1 for a perfect curve), ``False`` the raw area of the band.
    progress
        Print the bootstrap's progress to stderr.
    bins
        Cut each group's scores into ``bins`` equal-width buckets between its lowest
        and highest finite score (``+-inf`` apart; no sort, memory of the buckets, not
        of the rows, the same buckets on every backend) and add ``auc_bound``, a
        certified bound: the exact AUC lies in ``[auc - auc_bound, auc + auc_bound]``.
        Point estimates only (no ``ci``, no partial AUC). See docs/big-logs.md.
    test
        Add the test of the AUC against chance (H0: AUC = 0.5), the Mann-Whitney U
        test: ``u_statistic`` (``auc * n_pos * n_neg``, pairs won by the positive, ties
        one half) and ``p_value``, scipy's ``mannwhitneyu(positives, negatives,
        method="asymptotic", use_continuity=True)`` with its tie correction. Counts
        rows: a count table (``count=``) gives the expanded rows' test; weights are
        refused (the test's null distribution counts rows). Full AUC only; goes with
        ``ci=``. See docs/inference.md.
    alternative
        With ``test``: ``"two-sided"`` (default), ``"greater"`` (AUC > 0.5: positives
        score higher) or ``"less"`` (AUC < 0.5).
    ci_method
        With ``ci="bootstrap"``: ``"percentile"`` (default, pROC's) or ``"bca"``, the
        bias-corrected and accelerated interval of ``scipy.stats.bootstrap``'s default
        method (the acceleration from the exact jackknife: for the full AUC in closed
        form from DeLong's placements). ``auc_se`` is the replicates' standard
        deviation either way. See docs/inference.md.
    smooth
        ``"binormal"``: the area of pROC's binormal smoothed curve (``auc(smooth(roc,
        method = "binormal"))``), ``pnorm(a / sqrt(1 + b^2))`` of the line fitted by
        :func:`polars_roc.roc_curve`'s ``smooth``; null without a fit. Point estimate
        only.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group, groups sorted: ``[*by, auc, n_pos, n_neg]`` (with ``bins``:
        ``[*by, auc, auc_bound, n_pos, n_neg]``). ``auc`` is the probability that a
        random positive scores above a random negative, ties counting one half; it is
        null for a group without both classes. ``ci`` adds ``[auc_se, ci_lower,
        ci_upper]``, ``test`` adds ``[u_statistic, p_value]`` (null without both
        classes), after those.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.7, 0.7, 0.2, 0.4, 0.2, 0.3, 0.1, 0.5, 0.2, 0.1],
    ...     "label": [1, 1, 1, 1, 0, 0, 0, 0, 0, 0],
    ... })
    >>> pr.roc_auc(df)
    shape: (1, 3)
    ┌──────────┬───────┬───────┐
    │ auc      ┆ n_pos ┆ n_neg │
    │ ---      ┆ ---   ┆ ---   │
    │ f64      ┆ i64   ┆ i64   │
    ╞══════════╪═══════╪═══════╡
    │ 0.833333 ┆ 4     ┆ 6     │
    └──────────┴───────┴───────┘
    >>> pr.roc_auc(df, test=True, alternative="greater")
    shape: (1, 5)
    ┌──────────┬───────┬───────┬─────────────┬──────────┐
    │ auc      ┆ n_pos ┆ n_neg ┆ u_statistic ┆ p_value  │
    │ ---      ┆ ---   ┆ ---   ┆ ---         ┆ ---      │
    │ f64      ┆ i64   ┆ i64   ┆ f64         ┆ f64      │
    ╞══════════╪═══════╪═══════╪═════════════╪══════════╡
    │ 0.833333 ┆ 4     ┆ 6     ┆ 20.0        ┆ 0.051668 │
    └──────────┴───────┴───────┴─────────────┴──────────┘
    """
    check_flags(progress=progress)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    if smooth is not None:
        options = dict(ci=ci, max_fpr=max_fpr, fpr_range=fpr_range, tpr_range=tpr_range)
        options |= dict(bins=bins, test=test)
        check_smooth(smooth, {k: v not in (None, False) for k, v in options.items()})
        prep = count_rows(frame, roles, reserved=("auc",)).prep
        result = smoothed_auc(build(prep), prep.by)
        return prep.finish(result, lambda done: group_totals(done, prep.by))
    testing = test is not False or alternative != "two-sided"
    inference = (
        testing
        or (ci, max_fpr, fpr_range, tpr_range) != (None, None, None, None)
        or ci_method != "percentile"
    )
    if bins is not None and inference:
        msg = (
            "bins= gives a point estimate with a certified bound; intervals, tests and "
            "partial AUCs need the exact counts: drop bins=, or count the log into a count "
            "table (count=) first"
        )
        raise RocOptionError(msg)
    # Interval options without `ci=` go the same way, where they are refused.
    if inference or (conf_level, n_boot, seed) != (0.95, 2000, None):
        return auc_with_inference(
            frame,
            roles,
            ci=ci,
            conf_level=conf_level,
            n_boot=n_boot,
            seed=seed,
            max_fpr=max_fpr,
            fpr_range=fpr_range,
            tpr_range=tpr_range,
            standardize=standardize,
            progress=progress,
            test=test,
            alternative=alternative,
            ci_method=ci_method,
        )
    if bins is None:
        # Another engine's rows, unweighted: exact, from its buckets and ranks within
        # them, so that continuous scores do not come back one cell per row.
        exact = auc_in_engine(frame, roles)
        if exact is not None:
            return exact
    # Read as counts per distinct score only: few distinct scores of an eager frame are
    # counted in the value pass itself.
    counted = count_rows(frame, roles, reserved=("auc", "auc_bound"), bins=bins, table_only=True)
    prep = counted.prep
    # A lazy source too large to sort at once is counted a batch of groups at a time.
    result = per_group(prep, _point_auc, plan="table" if prep.weighted else "pairs")
    return prep.finish(with_bound(result, counted), lambda done: group_totals(done, prep.by))


def with_bound(result: pl.LazyFrame, counted: Counted) -> pl.LazyFrame:
    """``result`` ``[*by, auc, n_pos, n_neg]``, with ``auc_bound`` after ``auc`` when
    ``counted`` is the buckets of ``bins=`` (the bound from their mixed buckets)."""
    if counted.buckets is None:
        return result
    by = counted.prep.by
    bounded = attach(result, counted.buckets.auc_bound().lazy(), by)
    return bounded.select(*by, "auc", "auc_bound", "n_pos", "n_neg")


def _point_auc(prep: Prepared) -> pl.LazyFrame:
    """``[*by, auc, n_pos, n_neg]`` of ``prep``, not yet finished."""
    if prep.weighted:
        # Over rates (auc_from_counts): no product of two weights over- or underflows.
        return areas(build(prep), prep.by)
    # Twice the Mann-Whitney U (Int128) over twice the number of pairs: one division.
    n_pairs = 2 * pl.col("n_pos").cast(pl.Float64) * pl.col("n_neg")
    area = ratio(pl.col("__roc_twice_u"), n_pairs).alias("auc")
    return pair_counts(prep).select(*prep.by, area, "n_pos", "n_neg")


def areas(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, auc, n_pos, n_neg]`` of a score table, by :func:`auc_from_counts`."""
    area = auc_from_counts(pl.col("pos"), pl.col("neg"), pl.col("tp")).alias("auc")
    return one_row_per_group(table, by, [area, pl.col("n_pos", "n_neg").first()])


def auc_from_table(prep: Prepared, table: pl.LazyFrame) -> Frame:
    """:func:`roc_auc` (the point estimate) of the score table ``table`` of ``prep``.

    The same formula as :func:`roc_auc`, read off a ready table (of merged partitions,
    say), finished. ``roc_auc`` itself counts pairs without building the table where it
    can (sorted packed keys, dense codes): the same numbers.
    """
    return auc_of_counted(Counted(prep), table)


def auc_of_counted(counted: Counted, table: pl.LazyFrame) -> Frame:
    """:func:`auc_from_table`, with ``auc_bound`` when ``counted`` is buckets."""
    prep = counted.prep
    result = with_bound(areas(table, prep.by), counted)
    return prep.finish(result, lambda done: group_totals(done, prep.by))


def auc(
    score: IntoExpr = "score",
    label: IntoExpr = "label",
    weight: IntoExpr | None = None,
    *,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    count: IntoExpr | None = None,
    direction: Direction = "higher",
) -> pl.Expr:
    """ROC AUC as an expression, one value per group of the surrounding context.

    Works in ``select``, ``group_by().agg()`` and ``over()``. It computes the same area
    as :func:`roc_auc` (ties count one half), with the frame methods' label rule and
    null policy. Other bad values cannot stop one group alone: a group with a NaN
    score, a label outside 0/1 (without ``pos_label``; text "0"/"1" included), a
    negative or non-finite weight (or weights out of Float64's range, see
    docs/conventions.md), or only one class gives null.

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
        The label value of the positive class; every other value is negative. A group
        where it never occurs gives null; a value of another type than the label's
        raises ``RocInputError`` when the plan is built.
    nulls
        ``"raise"``: a null score, label or weight stops the query when it runs, with a
        :class:`~polars_roc.exceptions.RocQueryError` (also a Polars
        ``InvalidOperationError``) whose message starts with the input and the count
        (an expression sees no values before). ``"drop"``: rows where any
        of them is null are left out together, as the frame methods' ``nulls="drop"``.
    count
        Optional column name or expression of frequencies (whole numbers >= 0): a row
        stands for that many identical rows; the same number as the frame methods'
        ``count=`` (a group with a fractional or negative count gives null).
    direction
        ``"higher"`` (default) or ``"lower"``: a lower score is more positive, as the
        frame methods' ``direction=``.

    Notes
    -----
    Unweighted, the area is the Mann-Whitney U from average ranks (one sort per
    group), exact and bit-identical to :func:`roc_auc`. Score, label and weight must
    give one value per row; otherwise the query stops with a message that says so.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "segment": ["a", "a", "a", "b", "b", "b"],
    ...     "p": [0.9, 0.4, 0.4, 0.8, 0.7, 0.1],
    ...     "y": [True, True, False, False, True, False],
    ... })
    >>> df.group_by("segment", maintain_order=True).agg(pr.auc("p", "y"), pr.gini("p", "y"))
    shape: (2, 3)
    ┌─────────┬──────┬──────┐
    │ segment ┆ auc  ┆ gini │
    │ ---     ┆ ---  ┆ ---  │
    │ str     ┆ f64  ┆ f64  │
    ╞═════════╪══════╪══════╡
    │ a       ┆ 0.75 ┆ 0.5  │
    │ b       ┆ 0.5  ┆ 0.0  │
    └─────────┴──────┴──────┘
    """
    rows = expr_rows(
        "auc", score, label, weight, pos_label, nulls, count=count, direction=direction
    )
    return _area(rows).alias("auc")


def _area(rows: ExprRows) -> pl.Expr:
    """The AUC of the surrounding group's checked rows (null where invalid)."""
    if rows.weight is None:
        # Mann-Whitney by average ranks: the ranks of the positives add up to U plus
        # P(P+1)/2, a tie getting the mean of its positions (one half per tied pair).
        # Ranks are half-integers and their sums stay below 2^53 (~1.3e8 rows per
        # group): U is exact, and U / (P N) is one correctly rounded division, the
        # same number as roc_auc's twice_u / (2 P N). One sort per group.
        n_pos, n_neg = class_sizes(rows)
        rank_sum = rows.score.rank("average").filter(rows.is_pos).sum()
        area = ratio(rank_sum - n_pos * (n_pos + 1) / 2, n_pos * n_neg)
        return pl.when(rows.valid).then(area)
    return pl.when(rows.valid).then(table_value(rows, _weighted_area))


def _weighted_area(t: ExprTable) -> pl.Expr:
    """roc_auc's weighted formula (:func:`auc_from_counts`) and additions, as running
    sums whose last row is the AUC: the same bits. Each class is scaled by a power of
    two near its total (exact), so no product of weights over- or underflows."""
    # One scale per group, not per row (the totals are on every row): a third of the
    # expression's time on 50k rows; a power of two multiplies exactly either way.
    p_scale, n_scale = unit_scale(t.n_pos.last()), unit_scale(t.n_neg.last())
    tp, neg = t.tp * p_scale, t.neg * n_scale
    twice_u = table_sum(t, neg * (2.0 * tp - t.pos * p_scale))
    return ratio(twice_u, 2 * tp * table_sum(t, neg))


def gini(
    score: IntoExpr = "score",
    label: IntoExpr = "label",
    weight: IntoExpr | None = None,
    *,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    count: IntoExpr | None = None,
    direction: Direction = "higher",
) -> pl.Expr:
    """Gini coefficient ``2 * AUC - 1`` as an expression (see :func:`auc`).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]}).select(
    ...     pr.gini()
    ... )
    shape: (1, 1)
    ┌──────┐
    │ gini │
    │ ---  │
    │ f64  │
    ╞══════╡
    │ 0.5  │
    └──────┘
    """
    rows = expr_rows(
        "gini", score, label, weight, pos_label, nulls, count=count, direction=direction
    )
    return (2 * _area(rows) - 1).alias("gini")
