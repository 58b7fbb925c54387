"""Choosing a threshold: the best one for a criterion, or the one meeting a target rate.

Both views read the ROC curve points (the score table plus each group's ``+inf`` start
row) and keep, per group, the rows a condition selects, in one ``group_by`` pass: no
second sort, no loop over groups. The selected counts then get every confusion measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any, Literal

import polars as pl

from polars_roc.core.arguments import Roles, check_choice, check_flags, check_rates
from polars_roc.core.compat import explode
from polars_roc.core.costs import check_cost, check_prevalence
from polars_roc.core.counting import count_rows
from polars_roc.core.measures import MEASURE_COLUMNS, ratio, with_measures
from polars_roc.core.score_table import build, group_end
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.views.curve import finish_dropping_totals, rates, with_start_rows

__all__ = ["best_threshold", "curve_points", "pick", "rates", "threshold_at"]

BestMethod = Literal["youden", "closest_topleft", "cost"]
Ties = Literal["first", "all"]
Take = Literal["first", "last", "all"]

# Criteria are compared up to this relative tolerance, so that equal rates computed as
# different float quotients (1/3 + 2/3 vs 2/3 + 1/3) still count as ties.
TIE_TOLERANCE = 1e-12

# Result columns of both views beside the score-table ones (`by` must not take them).
THRESHOLD_COLUMNS = ("fn", "tn", *MEASURE_COLUMNS)


def curve_points(prep: Prepared, *, midpoint: bool = False) -> pl.LazyFrame:
    """``[*by, threshold, tp, fp, n_pos, n_neg]``: the ROC points, start rows included;
    with ``midpoint``, each threshold is :func:`midpoints`'."""
    points = with_start_rows(build(prep), prep.by)
    return points.with_columns(midpoints(prep)) if midpoint else points


def midpoints(prep: Prepared) -> pl.Expr:
    """``threshold`` moved halfway down to the group's next lower score (internal units).

    What pROC's ``coords`` and cutpointr's ``use_midpoints = TRUE`` report: below the
    group's lowest score, ``-inf`` (everything positive, pROC's convention); the
    ``+inf`` start row stays ``+inf``. Where no number lies strictly between the two
    scores in the score's dtype (an infinite neighbour, adjacent Float32 values), the
    score itself is kept, so a threshold always gives the confusion matrix it reports.
    """
    score = pl.col("threshold")
    lower = score.shift(-1)
    half = score / 2 + lower / 2  # halved first: no overflow near the float range's ends
    # Compared in the dtype a threshold is compared in (Prepared.threshold_keys).
    key = half.cast(pl.Float32).cast(pl.Float64) if prep.score_dtype == pl.Float32 else half
    return (
        pl.when(group_end(prep.by))
        .then(float("-inf"))
        .when(key > lower)
        .then(half)
        .otherwise(score)
        .alias("threshold")
    )


def at_best(value: pl.Expr, among: pl.Expr | None = None) -> pl.Expr:
    """True where ``value`` reaches its maximum over the frame or group (up to ties).

    ``among`` restricts both the maximum and the rows that can reach it. Meant for a
    ``filter`` inside ``select`` or ``group_by().agg()``, where the maximum is per group.
    """
    candidates = value if among is None else value.filter(among)
    best = candidates.max()
    reached = value >= best - TIE_TOLERANCE * (best.abs() + 1.0)
    return reached if among is None else reached & among


def pick(
    points: pl.LazyFrame,
    by: list[str],
    keep: pl.Expr,
    columns: Sequence[str],
    *,
    take: Take = "first",
    constant: Sequence[str] = ("n_pos", "n_neg"),
) -> pl.LazyFrame:
    """Per group, the rows of ``points`` where ``keep`` holds.

    ``take="first"``/``"last"`` keeps one row per group (the first or last selected in
    curve order, i.e. the highest or lowest threshold), with nulls when nothing is
    selected, so every group keeps its row; ``"all"`` keeps every selected row.
    ``constant`` columns are per-group values carried unfiltered.
    """
    selected = [pl.col(c).filter(keep) for c in columns]
    if take == "first":
        selected = [c.first() for c in selected]
    elif take == "last":
        selected = [c.last() for c in selected]
    carried = [pl.col(c).first() for c in constant]
    if by:
        result = points.group_by(by, maintain_order=True).agg(*carried, *selected)
        if take == "all":
            result = explode(result, list(columns))
        return result
    if take == "all":
        return points.filter(keep).select(*constant, *columns)
    # One row of aggregates; an empty input gives a row of nulls, dropped here.
    return points.select(*carried, *selected).filter(pl.col(constant[0]).is_not_null())


def _with_measures(
    picked: pl.LazyFrame, by: list[str], extra: Sequence[str], prevalence: float | None = None
) -> pl.LazyFrame:
    """``[*by, threshold, tp, fp, fn, tn, *measures, *extra, n_pos, n_neg]``; with
    ``prevalence``, the predictive values and accuracy at that prevalence."""
    counts = picked.with_columns(
        (pl.col("n_pos") - pl.col("tp")).alias("fn"),
        (pl.col("n_neg") - pl.col("fp")).alias("tn"),
    )
    return with_measures(counts, prevalence=prevalence).select(
        *by, "threshold", "tp", "fp", "fn", "tn", *MEASURE_COLUMNS, *extra, "n_pos", "n_neg"
    )


def check_optimal_options(
    slope: float | None,
    prevalence: float | None,
    cost_fp: float | None,
    cost_fn: float | None,
) -> tuple[float, float, float | None]:
    """Refuse bad operating conditions of :func:`optimal_point`; return the two costs
    (1 when left out) and the checked prevalence."""
    if slope is not None:
        if (
            isinstance(slope, bool)
            or not isinstance(slope, Real)
            or not (0 <= slope < float("inf"))
        ):
            msg = f"`slope` must be a finite number >= 0, got {slope!r}"
            raise ValueError(msg)
        if cost_fp is not None:
            msg = (
                "give either `slope=` or `cost_fp=` (the slope already fixes the cost "
                f"ratio), got `slope={slope!r}` and `cost_fp={cost_fp!r}`"
            )
            raise ValueError(msg)
    fp_cost = check_cost("cost_fp", cost_fp) or 1.0
    fn_cost = check_cost("cost_fn", cost_fn) or 1.0
    return fp_cost, fn_cost, check_prevalence(prevalence)


def best_threshold(
    frame: Frame,
    method: BestMethod = "youden",
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    cost_fp: float | None = None,
    cost_fn: float | None = None,
    prevalence: float | None = None,
    ties: Ties = "first",
    midpoint: bool = False,
) -> Frame:
    """The best threshold of each group for a criterion, with its confusion measures.

    The semantics are those of pROC's ``coords(roc, x="best", best.method=...,
    best.weights=c(cost_fn / cost_fp, prevalence))`` (with ``direction="<"``: higher
    scores are positive). With ``r = ((1 - prevalence) / prevalence) * (cost_fp /
    cost_fn)``, the candidates are every point of the ROC curve, its two ends included:

    - ``"youden"`` maximises ``tpr + r * tnr`` (Youden's J when ``r = 1``);
    - ``"closest_topleft"`` minimises ``(1 - tpr)**2 + r * fpr**2``;
    - ``"cost"`` minimises the expected cost per example
      ``prevalence * cost_fn * (1 - tpr) + (1 - prevalence) * cost_fp * fpr``: the
      weighted Youden criterion, but with the group's own share of positives as the
      default prevalence.

    pROC's default weights are ``cost = 1, prevalence = 0.5`` (so ``r = 1``), and that is
    the default here for ``"youden"`` and ``"closest_topleft"``. The threshold reported
    is a score (a row is positive when ``score >= threshold``); pROC reports the midpoint
    between that score and the next lower one, as ``midpoint=True`` does here. Both give
    the same confusion matrix.

    Parameters
    ----------
    method
        ``"youden"``, ``"closest_topleft"`` or ``"cost"``, see above.
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    cost_fp, cost_fn
        Cost of one false positive / false negative (default 1 each; only the ratio
        matters for the choice).
    prevalence
        Share of positives in the population the threshold is for, strictly between
        0 and 1. Defaults: 0.5 (pROC's) for ``"youden"`` and ``"closest_topleft"``, the
        group's sample prevalence for ``"cost"``. When given, the reported ``ppv``,
        ``npv``, ``fdr``, ``for``, ``accuracy`` and ``error_rate`` are also at that
        prevalence (as ``confusion_matrix(prevalence=)``).
    ties
        Several thresholds can be equally good (equal criterion up to a relative
        ``1e-12``). ``"first"`` keeps the highest of them (the fewest predicted
        positives); ``"all"`` keeps them all, highest first, as pROC does.
    midpoint
        Report each chosen threshold halfway between its score and the group's next
        lower distinct score, as pROC's ``coords`` and cutpointr's ``use_midpoints =
        TRUE`` do, so that thresholds compare with theirs (the counts and measures are
        those of the score's). Below the group's lowest score (everything positive) the
        threshold is ``-inf``, pROC's convention; the ``+inf`` threshold (nothing
        positive) stays ``+inf``. With ``direction="lower"``, halfway to the next higher
        score.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, tp, fp, fn, tn]``, every measure of
        :func:`polars_roc.confusion_matrix`, and ``criterion``: pROC's ``youden``
        (``tpr + r * tnr``) or ``closest.topleft`` (``(1 - tpr)**2 + r * fpr**2``)
        value, or the expected cost. A group without both classes gets one row of
        nulls.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> pr.best_threshold(df).select("threshold", "tpr", "fpr", "youden_j", "criterion")
    shape: (1, 5)
    ┌───────────┬─────┬─────┬──────────┬───────────┐
    │ threshold ┆ tpr ┆ fpr ┆ youden_j ┆ criterion │
    │ ---       ┆ --- ┆ --- ┆ ---      ┆ ---       │
    │ f64       ┆ f64 ┆ f64 ┆ f64      ┆ f64       │
    ╞═══════════╪═════╪═════╪══════════╪═══════════╡
    │ 0.8       ┆ 0.5 ┆ 0.0 ┆ 0.5      ┆ 1.5       │
    └───────────┴─────┴─────┴──────────┴───────────┘

    pROC's threshold, halfway down to the next lower score (0.7):

    >>> df.roc.best_threshold(midpoint=True)["threshold"].item()
    0.75
    """
    check_choice("method", method, ("youden", "closest_topleft", "cost"))
    check_choice("ties", ties, ("first", "all"))
    check_flags(midpoint=midpoint)
    fp_cost, fn_cost, prevalence = check_optimal_options(None, prevalence, cost_fp, cost_fn)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=(*THRESHOLD_COLUMNS, "criterion")).prep
    tpr, fpr = pl.col("tpr"), pl.col("fpr")
    if method == "cost":
        n_pos, n_neg = pl.col("n_pos").cast(pl.Float64), pl.col("n_neg").cast(pl.Float64)
        share: Any = ratio(n_pos, n_pos + n_neg) if prevalence is None else pl.lit(prevalence)
        criterion = share * fn_cost * (1.0 - tpr) + (1.0 - share) * fp_cost * fpr
    else:
        share = 0.5 if prevalence is None else prevalence
        r = (1.0 - share) / share * (fp_cost / fn_cost)
        if method == "youden":
            criterion = tpr + r * (1.0 - fpr)
        else:
            criterion = (1.0 - tpr) ** 2 + r * fpr**2
    goodness = criterion if method == "youden" else -criterion
    points = (
        curve_points(prep, midpoint=midpoint)
        .with_columns(rates())
        .with_columns(criterion.alias("criterion"), goodness.alias("__roc_goodness"))
    )
    keep = at_best(pl.col("__roc_goodness"))
    picked = pick(
        points,
        prep.by,
        keep,
        ["threshold", "tp", "fp", "criterion"],
        take="first" if ties == "first" else "all",
    )
    return finish_dropping_totals(prep, _with_measures(picked, prep.by, ["criterion"], prevalence))


def threshold_at(
    frame: Frame,
    *,
    fpr: float | None = None,
    tpr: float | None = None,
    precision: float | None = None,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
) -> Frame:
    """Per group, the threshold meeting a target rate with the best other rate.

    Give exactly one target:

    - ``fpr=a``: among thresholds with ``fpr <= a``, the one with the highest ``tpr``
      (and, among those, the lowest ``fpr``), e.g. "the most sensitive cut-off with at
      most 1% false alarms";
    - ``tpr=b``: among thresholds with ``tpr >= b``, the one with the lowest ``fpr``
      (and, among those, the highest ``tpr``);
    - ``precision=p``: among thresholds with precision ``>= p``, the one with the
      highest ``tpr`` (and, among those, the highest threshold).

    Comparisons with the target allow a ``1e-12`` rounding slack. The ``+inf`` threshold
    (nobody positive) always meets an ``fpr`` target; a ``precision`` target that no
    threshold meets gives a row of nulls.

    Parameters
    ----------
    fpr, tpr, precision
        The target, a number between 0 and 1; exactly one of them.
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, threshold, tp, fp, fn, tn]`` and every measure of
        :func:`polars_roc.confusion_matrix`.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> pr.threshold_at(df, tpr=0.75).select("threshold", "tp", "fp", "tpr", "fpr")
    shape: (1, 5)
    ┌───────────┬─────┬─────┬──────┬──────┐
    │ threshold ┆ tp  ┆ fp  ┆ tpr  ┆ fpr  │
    │ ---       ┆ --- ┆ --- ┆ ---  ┆ ---  │
    │ f64       ┆ i64 ┆ i64 ┆ f64  ┆ f64  │
    ╞═══════════╪═════╪═════╪══════╪══════╡
    │ 0.6       ┆ 3   ┆ 1   ┆ 0.75 ┆ 0.25 │
    └───────────┴─────┴─────┴──────┴──────┘
    """
    targets = (("fpr", fpr), ("tpr", tpr), ("precision", precision))
    given = {name: value for name, value in targets if value is not None}
    if len(given) != 1:
        msg = (
            "give exactly one target among `fpr=`, `tpr=` and `precision=`, "
            f"got {sorted(given) or 'none'!r}"
        )
        raise ValueError(msg)
    ((target, value),) = given.items()
    check_rates(target, value, one_message=True)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=THRESHOLD_COLUMNS).prep
    slack = TIE_TOLERANCE
    tpr_, fpr_ = pl.col("tpr"), pl.col("fpr")
    take: Take
    if target == "fpr":
        meets = fpr_ <= value + slack
        keep, take = at_best(tpr_, meets), "first"
    elif target == "tpr":
        # The lowest fpr among the qualifying points, then the last (highest tpr) of them.
        meets = tpr_ >= value - slack
        keep, take = at_best(-fpr_, meets), "last"
    else:
        precision_ = ratio(pl.col("tp"), pl.col("tp") + pl.col("fp"))
        meets = (precision_ >= value - slack).fill_null(False)
        keep, take = at_best(tpr_, meets), "first"
    points = curve_points(prep).with_columns(rates())
    picked = pick(points, prep.by, keep, ["threshold", "tp", "fp"], take=take)
    return finish_dropping_totals(prep, _with_measures(picked, prep.by, []))
