"""Precision-recall curve, average precision and area, from the score table, with
scikit-learn's conventions (see :func:`pr_curve` and :func:`pr_average_precision`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import polars as pl

from polars_roc.core.arguments import Roles, check_flags
from polars_roc.core.compat import lag
from polars_roc.core.counting import count_rows
from polars_roc.core.expr_table import (
    IntoExpr,
    class_sizes,
    expr_rows,
    positives_at_or_above,
    table_sum,
    table_value,
)
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import build, cumulate, group_end, group_start, group_totals
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.stats.bootstrap import IntervalMethod
from polars_roc.stats.cells import read_once
from polars_roc.stats.pr_interval import (
    PrCiMethod,
    Replicates,
    average_precision_replicates,
    check_pr_ci,
    davis_goadrich_replicates,
    trapezoid_replicates,
    with_pr_interval,
)
from polars_roc.views.curve import finish_dropping_totals, with_start_rows

__all__ = ["average_precision", "pr_auc", "pr_average_precision", "pr_curve"]

PrAucMethod = Literal["davis_goadrich", "trapezoid"]
# The interval's columns, which `by` columns must not use.
_CI_COLUMNS = ("ci_lower", "ci_upper")


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
    bins: int | None = None,
) -> Frame:
    """Precision-recall curve per group, with scikit-learn's conventions.

    Point ``i`` counts the rows with ``score >= threshold[i]``: ``precision = tp / (tp
    + fp)``, ``recall = tp / n_pos``. Each group starts with scikit-learn's extra point
    ``precision = 1, recall = 0`` (at threshold ``+inf``), then has one point per
    distinct score, thresholds descending (scikit-learn lists the same points in the
    reverse order). Rows of weight 0 are left out, as scikit-learn does.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    drop_intermediate
        Drop the thresholds where recall does not change on either side, as
        scikit-learn's ``drop_intermediate=True`` (the first and last score stay).
    bins
        Count into ``bins`` equal-width buckets of the score per group, as in
        :func:`polars_roc.roc_curve`: one point per bucket, each exact.

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
    check_flags(drop_intermediate=drop_intermediate)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=PR_RESERVED, bins=bins).prep
    return pr_curve_from_table(prep, build(prep), drop_intermediate=drop_intermediate)


# Result columns of pr_curve, which `by` columns must not use.
PR_RESERVED = ("precision", "recall")


def pr_curve_from_table(
    prep: Prepared, table: pl.LazyFrame, *, drop_intermediate: bool = False
) -> Frame:
    """:func:`pr_curve` of the score table ``table`` of ``prep`` (finished)."""
    table = prep.drop_zero_weight(table)
    if drop_intermediate:
        tp = pl.col("tp")
        moves = (tp != lag(tp)) | (tp != tp.shift(-1))
        table = table.filter(group_start(prep.by) | group_end(prep.by) | moves)
    tp, fp = pl.col("tp"), pl.col("fp")
    curve = with_start_rows(table, prep.by).select(
        *prep.by,
        "threshold",
        "tp",
        "fp",
        precision_at(tp, fp, start=group_start(prep.by)).fill_null(0.0).alias("precision"),
        ratio(tp, pl.col("n_pos")).alias("recall"),
        "n_pos",
        "n_neg",
    )
    return finish_dropping_totals(prep, curve)


def precision_at(tp: pl.Expr, fp: pl.Expr, *, start: pl.Expr) -> pl.Expr:
    """Precision ``tp / (tp + fp)`` at each curve point; 1 at a curve's ``start`` (nothing
    predicted positive), as scikit-learn; null where no row is predicted positive. The
    one definition :func:`pr_curve` and :func:`polars_roc.charts.pr_points` use."""
    return pl.when(start).then(1.0).otherwise(ratio(tp, tp + fp))


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
    ci: PrCiMethod | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    progress: bool = False,
    ci_method: IntervalMethod = "percentile",
) -> Frame:
    """Average precision per group (scikit-learn's ``average_precision_score``).

    ``AP = sum_k (R_k - R_{k-1}) * P_k`` over the distinct scores, thresholds
    descending: the mean of the precision at each positive's score, ties included
    (a tie run counts at the precision of the whole run). Not the trapezoidal area
    under the precision-recall curve.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    ci
        ``"logit"`` adds ``ci_lower`` and ``ci_upper``, Boyd et al. (2013)'s logit
        interval ``expit(logit(v) -+ z / sqrt(n_pos * v * (1 - v)))`` (null where the
        value is 0 or 1; no weights). ``"bootstrap"`` adds the percentile interval of
        ``n_boot`` stratified bootstrap replicates (each class resampled within its
        group, as the AUC's; weights allowed). See docs/inference.md.
    conf_level, n_boot, seed, progress, ci_method
        As in :func:`polars_roc.roc_auc` (BCa's acceleration from the jackknife of the
        summary, see docs/inference.md).

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, average_precision, n_pos, n_neg]`` (with ``ci``:
        and ``ci_lower, ci_upper``); ``average_precision`` is null without positives.
        On a frame of another engine it stays exact: the engine returns a cell per
        distinct score (unlike :func:`pr_curve`, whose long groups come back in
        buckets).

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
    >>> log = pl.DataFrame({
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3, 0.2, 0.1],
    ...     "label": [1, 1, 0, 1, 1, 0, 0, 1, 0, 0],
    ... })
    >>> pr.pr_average_precision(log, ci="logit")
    shape: (1, 5)
    ┌───────────────────┬───────┬───────┬──────────┬──────────┐
    │ average_precision ┆ n_pos ┆ n_neg ┆ ci_lower ┆ ci_upper │
    │ ---               ┆ ---   ┆ ---   ┆ ---      ┆ ---      │
    │ f64               ┆ i64   ┆ i64   ┆ f64      ┆ f64      │
    ╞═══════════════════╪═══════╪═══════╪══════════╪══════════╡
    │ 0.835             ┆ 5     ┆ 5     ┆ 0.323013 ┆ 0.98171  │
    └───────────────────┴───────┴───────┴──────────┴──────────┘
    """
    # Each distinct score adds its positives times the precision there.
    pos, tp, fp = (pl.col(c).cast(pl.Float64) for c in ("pos", "tp", "fp"))
    contribution = pos * ratio(tp, tp + fp).fill_null(0.0)
    return _summary(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls, direction),
        "average_precision",
        lambda prep, table: table.with_columns(contribution.alias(_PART)),
        average_precision_replicates,
        (ci, conf_level, n_boot, seed, progress, ci_method),
    )


_PART = "__roc_part"


def _summary(
    frame: Frame,
    roles: Roles,
    name: str,
    parts: Callable[[Prepared, pl.LazyFrame], pl.LazyFrame],
    replicates: Replicates,
    interval: tuple[PrCiMethod | None, float, int, int | None, bool, IntervalMethod],
) -> Frame:
    """``[*by, name, n_pos, n_neg]`` (with ``ci``: and its interval): per group, the
    sum of the column ``_PART`` that ``parts(prep, table)`` adds to the score table's
    rows, over ``n_pos``; ``replicates`` give its bootstrap replicates. ``interval``:
    the public function's ``ci, conf_level, n_boot, seed, progress, ci_method``."""
    ci, conf_level, n_boot, seed, progress, ci_method = interval
    options: dict[str, Any] = dict(
        conf_level=conf_level, n_boot=n_boot, seed=seed, ci_method=ci_method
    )
    check_pr_ci(ci, weight=roles.weight, **options)
    prep = count_rows(frame, roles, reserved=(name, *_CI_COLUMNS)).prep
    prep = read_once(prep, ci == "bootstrap")
    table = build(prep)
    result = (
        parts(prep, table)
        # Summed as a running sum read at each group's last row, in table order: a
        # grouped float sum adds in an engine-chosen order and varied in its last bit
        # from call to call (as the weighted AUC, see pair_counts).
        .with_columns(cumulate(_PART, prep.by, weighted=True))
        .filter(group_end(prep.by))
        .select(*prep.by, ratio(pl.col(_PART), pl.col("n_pos")).alias(name), "n_pos", "n_neg")
    )
    if ci is not None:
        result = with_pr_interval(
            prep, table, result, name, replicates, ci=ci, progress=progress, **options
        )
    return prep.finish(result, lambda done: group_totals(done, prep.by))


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
    score, label, weight, pos_label, nulls, count, direction
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
    rows = expr_rows(
        "average_precision",
        score,
        label,
        weight,
        pos_label,
        nulls,
        count=count,
        direction=direction,
    )
    if rows.weight is None:
        # Each positive adds the precision at its own score (its whole tie run above
        # or at it): tp / rows at or above, from two ranks (positives_at_or_above).
        tp, at_or_above = positives_at_or_above(rows)
        value = ratio((tp / at_or_above).sum(), class_sizes(rows)[0])
    else:
        # pr_average_precision's formula and additions: the same bits.
        value = table_value(
            rows,
            lambda t: ratio(table_sum(t, t.pos * ratio(t.tp, t.tp + t.fp).fill_null(0.0)), t.tp),
        )
    return pl.when(rows.valid).then(value).alias("average_precision")


def _interpolated_area() -> pl.Expr:
    """Area of each segment of the precision-recall curve under Davis & Goadrich's
    interpolation, times ``n_pos``; rows are curve points, the previous row the point
    before (same group).

    Between points ``A = (tp_a, fp_a)`` and ``B``, D&G interpolate the counts linearly:
    ``fp`` grows by ``s = (fp_b - fp_a) / (tp_b - tp_a)`` per true positive, so precision
    is ``(tp_a + x) / (tp_a + fp_a + (1 + s) x)`` for ``x`` in ``[0, tp_b - tp_a]``. Its
    integral in closed form is ``d / (1 + s) + (tp_a - (tp_a + fp_a) / (1 + s)) / (1 +
    s) * log(1 + (1 + s) d / (tp_a + fp_a))``; from ``(0, 0)`` precision is constant,
    ``1 / (1 + s)``, and so is the integrand.
    """
    tp, fp = pl.col("tp").cast(pl.Float64), pl.col("fp").cast(pl.Float64)
    tp_a, fp_a = lag(tp), lag(fp)
    d = tp - tp_a
    slope = 1.0 + (fp - fp_a) / d
    start = tp_a + fp_a
    linear = d / slope
    curved = (tp_a - start / slope) / slope * (1.0 + slope * d / start).log()
    return (
        pl.when(d > 0)
        .then(pl.when(start > 0).then(linear + curved).otherwise(linear))
        .otherwise(0.0)
    )


def _trapezoid_area(by: list[str]) -> pl.Expr:
    """Area of each segment of ROCR's straight-line precision-recall curve, times
    ``n_pos``; rows are the points where recall first reaches each value (the highest
    precision there), the previous row the point before (same group)."""
    tp, fp = pl.col("tp").cast(pl.Float64), pl.col("fp").cast(pl.Float64)
    # The start point (0, 0) has precision 1, as in ROCR.
    precision = ratio(tp, tp + fp).fill_null(1.0)
    return (
        pl.when(group_start(by))
        .then(0.0)
        .otherwise((tp - lag(tp)) * (precision + lag(precision)) / 2.0)
    )


def pr_auc(
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
    method: PrAucMethod = "davis_goadrich",
    ci: PrCiMethod | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    progress: bool = False,
    ci_method: IntervalMethod = "percentile",
) -> Frame:
    """Area under the precision-recall curve by Davis & Goadrich's interpolation.

    Between two consecutive thresholds the precision-recall curve is not a straight
    line: Davis & Goadrich (2006) interpolate the *counts* (each extra true positive
    brings the same share of the false positives between the two points), and this is
    the exact integral of that curve (as PRROC's ``pr.curve`` integral), with the
    precision of the first point extended to recall 0. It differs from
    :func:`pr_average_precision` (scikit-learn's step sum, which holds each
    precision over its recall interval) and from the trapezoidal area (which joins the
    points by straight lines and overstates the area). Each tie run is one segment.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    method
        ``"davis_goadrich"`` (default): the interpolated area above.
        ``"trapezoid"``: ROCR's ``performance(pred, "aucpr")``, straight lines between
        the points where recall first reaches each of its values (the highest
        precision at that recall), from ``(recall 0, precision 1)``; a vertical drop of
        precision at one recall is skipped, so this area is the larger. (ROCR also
        interpolates inside a tie run holding more than two positives; here a tie run
        is always one straight segment.)
    ci, conf_level, n_boot, seed, progress, ci_method
        As in :func:`polars_roc.pr_average_precision`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, pr_auc, n_pos, n_neg]`` (with ``ci``: and
        ``ci_lower, ci_upper``); null without positives.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]})
    >>> pr.pr_auc(df)
    shape: (1, 3)
    ┌──────────┬───────┬───────┐
    │ pr_auc   ┆ n_pos ┆ n_neg │
    │ ---      ┆ ---   ┆ ---   │
    │ f64      ┆ i64   ┆ i64   │
    ╞══════════╪═══════╪═══════╡
    │ 0.797267 ┆ 2     ┆ 2     │
    └──────────┴───────┴───────┘
    """
    check_flags(progress=progress)
    if method not in ("davis_goadrich", "trapezoid"):
        msg = f"`method` must be 'davis_goadrich' or 'trapezoid', got {method!r}"
        raise ValueError(msg)

    def parts(prep: Prepared, table: pl.LazyFrame) -> pl.LazyFrame:
        points = with_start_rows(prep.drop_zero_weight(table), prep.by)
        if method == "trapezoid":
            rises = pl.col("tp") > lag(pl.col("tp"))
            area = _trapezoid_area(prep.by)
            points = points.filter(group_start(prep.by) | rises)
        else:
            # The start row of a group has no segment before it.
            area = pl.when(group_start(prep.by)).then(0.0).otherwise(_interpolated_area())
        return points.with_columns(area.alias(_PART))

    return _summary(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls, direction),
        "pr_auc",
        parts,
        trapezoid_replicates if method == "trapezoid" else davis_goadrich_replicates,
        (ci, conf_level, n_boot, seed, progress, ci_method),
    )
