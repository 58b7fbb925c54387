"""Optimal cutpoints by any confusion measure (cutpointr's ``maximize_metric`` /
``minimize_metric``), from the ROC curve points: every candidate gets every measure, and
the rows reaching the best value are kept in one ``group_by`` pass.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from numbers import Integral
from typing import Any, Literal, cast

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_choice, check_flags
from polars_roc.core.compat import map_frame
from polars_roc.core.costs import cost_columns
from polars_roc.core.counting import count_rows
from polars_roc.core.finish import finish_result
from polars_roc.core.measures import MEASURE_COLUMNS, check_beta, with_measures
from polars_roc.core.score_table import group_start
from polars_roc.core.validate import NEG, POS, SCORE, Direction, Frame, NullPolicy, user_units
from polars_roc.exceptions import RocInputError
from polars_roc.views.operating import at_best, curve_points, finish_dropping_totals, pick

__all__ = ["OPTIMIZABLE", "bootstrap_cutpoint", "optimal_cutpoint"]

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
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    beta: float | None = None,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
    ties: CutTies = "first",
    midpoint: bool = False,
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
    metric
        The column of the measure table to optimise.
    goal
        ``"maximize"`` (default) or ``"minimize"``.
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    beta, cost_fp, cost_fn
        As in :func:`polars_roc.confusion_matrix`; they add ``f_beta`` and ``cost``,
        ``expected_cost`` to the candidates' measures.
    ties
        Values equal up to a relative ``1e-12`` tie. ``"first"`` keeps the highest tied
        threshold (the fewest predicted positives; with ``direction="lower"`` the
        lowest); ``"all"`` keeps every tied threshold, highest (lowest) first
        (cutpointr's ``break_ties = c``; its default, the median of the tied cutpoints,
        is the median of these rows' thresholds).
    midpoint
        Report each chosen threshold halfway between its score and the group's next
        lower distinct score (next higher with ``direction="lower"``): cutpointr's
        ``use_midpoints = TRUE``, pROC's thresholds. The counts and measures are those
        of the score's. Below the group's lowest score the threshold is ``-inf`` (pROC's
        convention; cutpointr has no such candidate); ``+inf`` stays ``+inf``.

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

    cutpointr's ``use_midpoints = TRUE``, halfway down to the next lower score (0.7):

    >>> df.roc.optimal_cutpoint("accuracy", midpoint=True)["threshold"].item()
    0.75
    """
    check_metric(metric, beta=beta)
    check_choice("goal", goal, ("maximize", "minimize"))
    check_choice("ties", ties, ("first", "all"))
    check_flags(midpoint=midpoint)
    if metric in ("cost", "expected_cost") and cost_fp is None and cost_fn is None:
        cost_fp = 1.0
    costs = cost_columns(cost_fp, cost_fn)
    names = ["fn", "tn", *MEASURE_COLUMNS]
    if beta is not None:
        names.insert(names.index("f1") + 1, "f_beta")
    names += [c.meta.output_name() for c in costs]
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=tuple(names)).prep
    points = (
        curve_points(prep, midpoint=midpoint)
        .with_columns(
            (pl.col("n_pos") - pl.col("tp")).alias("fn"),
            (pl.col("n_neg") - pl.col("fp")).alias("tn"),
        )
        .pipe(with_measures, beta)
        .with_columns(costs)
    )
    value = pl.col(metric) if goal == "maximize" else -pl.col(metric)
    columns = ["threshold", "tp", "fp", *names]
    picked = pick(points, prep.by, at_best(value), columns, take=ties)
    return finish_dropping_totals(prep, picked)


def check_metric(metric: object, *, beta: float | None) -> None:
    """Refuse a ``metric`` that names no optimisable measure (``f_beta`` needs ``beta``)."""
    if metric not in OPTIMIZABLE:
        msg = f"`metric` must be one of the numeric measures {list(OPTIMIZABLE)!r}, got {metric!r}"
        raise ValueError(msg)
    if metric == "f_beta" and beta is None:
        msg = "`metric='f_beta'` needs `beta=`, e.g. `beta=2.0` (recall twice as important)"
        raise ValueError(msg)
    if beta is not None:
        check_beta(beta)


# Measures reported in and out of bag beside the optimised one (cutpointr's boot columns).
BOOT_MEASURES = ("tpr", "tnr", "accuracy")


def bootstrap_cutpoint(
    frame: Frame,
    metric: str = "youden_j",
    *,
    goal: Goal = "maximize",
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
    n_boot: int = 200,
    seed: int | None = None,
    summary: bool = False,
    conf_level: float = 0.95,
) -> Frame:
    """Bootstrap of the optimal cutpoint (cutpointr's ``boot_runs``), per group.

    Each replicate resamples the rows of each group with replacement (simple, not
    stratified: cutpointr's default ``boot_stratify = FALSE``), finds the optimal
    cutpoint of the resample as :func:`optimal_cutpoint` does (``ties="first"``), and
    evaluates the measures at that cutpoint in the bag (the resample) and out of the
    bag (the group's rows the resample left out). Row weights, when given, go along
    with their rows. The draws are vectorised: an ``(n_boot, rows)`` array of counts,
    filled by blocks of replicates of about 2^24 draws, no Python loop over groups;
    memory grows as ``n_boot * rows``. Every unit is drawn (with ``count=``, the total
    count in each replicate): more than 2^31 units is refused. The rows are sorted
    before the draws: a seed gives the same replicates whatever the rows' order (a
    shuffled log, a DuckDB relation).

    Parameters
    ----------
    frame, metric, goal, score, label, by, weight, count, pos_label, nulls, direction, beta,
    cost_fp, cost_fn
        As in :func:`optimal_cutpoint`. A row of a count table (``count=``) stands for
        that many rows: the replicates draw units, not rows, as on the expanded rows.
    n_boot
        Number of replicates.
    seed
        Seed of numpy's random generator: the same seed gives the same replicates.
    summary
        ``False``: one row per group and replicate. ``True``: one row per group with the
        mean and the percentile interval (linear interpolation, R's type 7) of each
        column over the replicates, nulls left out.
    conf_level
        Level of the summary's intervals.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, replicate, threshold, <metric>_in_bag, <metric>_oob, tpr_in_bag,
        tpr_oob, tnr_in_bag, tnr_oob, accuracy_in_bag, accuracy_oob]`` (a measure
        appears once when it is ``metric``); out-of-bag values are null where the
        replicate left no row out or the measure is undefined there. With
        ``summary=True``: ``[*by, n_boot]`` then ``<column>_mean``, ``<column>_lower``,
        ``<column>_upper`` for each of those columns.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3] * 5,
    ...                    "label": [1, 1, 0, 1, 0, 1, 0, 0] * 5})
    >>> boot = pr.bootstrap_cutpoint(df, "accuracy", n_boot=50, seed=1)
    >>> boot.columns[:4]
    ['replicate', 'threshold', 'accuracy_in_bag', 'accuracy_oob']
    >>> boot.height
    50
    """
    check_metric(metric, beta=beta)
    if isinstance(n_boot, bool) or not isinstance(n_boot, Integral) or n_boot < 1:
        msg = f"`n_boot` must be a positive integer, got {n_boot!r}"
        raise ValueError(msg)
    if not isinstance(conf_level, float) or not 0.0 < conf_level < 1.0:
        msg = f"`conf_level` must be a float strictly between 0 and 1, got {conf_level!r}"
        raise ValueError(msg)
    check_flags(summary=summary)
    reported = [metric, *(m for m in BOOT_MEASURES if m != metric)]
    values = [f"{m}_{side}" for m in reported for side in ("in_bag", "oob")]
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=("replicate", "threshold", *values)).prep
    by_cols, counted = prep.by, prep.counted
    rows = prep.frame.select(*by_cols, SCORE, POS, NEG)
    schema: dict[str, Any] = {
        **rows.select(by_cols).collect_schema(),
        "replicate": pl.Int64,
        "threshold": pl.Float64,
        **dict.fromkeys(values, pl.Float64),
    }
    options = dict(goal=goal, beta=beta, cost_fp=cost_fp, cost_fn=cost_fn)

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        # Sorted by every column, so that the replicates do not hang on the order in which
        # the rows came (a shuffled log, another backend); equal rows are interchangeable.
        collected = collected.sort(collected.columns, nulls_last=False)
        if counted:  # a zero count stands for no row
            collected = collected.filter((pl.col(POS) + pl.col(NEG)) > 0)
        units = (
            collected.select((pl.col(POS) + pl.col(NEG)).cast(pl.Int64)).to_series().to_numpy()
            if counted
            else np.ones(collected.height, dtype=np.int64)
        )
        drawn, left_out = _draw_counts(
            collected, units, by_cols, n_boot, np.random.default_rng(seed)
        )
        return _replicate_cutpoints(
            collected, units, drawn, left_out, by_cols, metric, reported, options
        )

    result = map_frame(rows, run, schema=schema).select(*schema)
    if summary:
        result = _summarise(result, by_cols, ["threshold", *values], conf_level)
    if prep.direction == "lower":
        # Back to the user's units after the summary, which read the internal units (where
        # only +inf, no -inf, can occur): the interval's bounds swap.
        swap = {"threshold_lower": "threshold_upper", "threshold_upper": "threshold_lower"}
        names = (
            {"threshold_mean": "threshold_mean", **swap} if summary else {"threshold": "threshold"}
        )
        result = result.with_columns(
            user_units(pl.col(old)).alias(new) for new, old in names.items()
        )
    return finish_result(result, eager=prep.eager)


# Units drawn per replicate at most: every unit is drawn (as on the expanded rows).
MAX_DRAWN_UNITS = 2**31
DRAWS_PER_BLOCK = 2**24


def _draw_counts(
    rows: pl.DataFrame, units: np.ndarray, by: list[str], n_boot: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``(n_boot, rows)`` arrays: how many of each row's units each replicate draws, and
    how many of them it leaves out.

    A row stands for ``units`` identical units (1, or its count in a count table). Rows
    are sorted by group; every unit position draws one unit of its own group, so each
    group's resample has the group's size, exactly as on the expanded rows. One
    ``bincount`` over all replicates.
    """
    n, total = rows.height, int(units.sum())
    if total > MAX_DRAWN_UNITS:
        msg = (
            f"bootstrap_cutpoint draws each of the log's units in every replicate: "
            f"{total:,} units (the rows a count table stands for) is more than "
            f"{MAX_DRAWN_UNITS:,}; resample fewer units (e.g. a sample of the log)"
        )
        raise RocInputError(msg)
    unit_row = np.repeat(np.arange(n), units)
    if by:
        start = rows.select(group_start(by).cast(pl.Int64)).to_series().to_numpy()
        row_group = np.cumsum(start) - 1
        group = row_group[unit_row]
        sizes = np.bincount(row_group, weights=units).astype(np.int64)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    else:
        group, starts, sizes = np.zeros(total, dtype=np.int64), np.array([0]), np.array([total])
    row_start = np.concatenate(([0], np.cumsum(units)[:-1]))
    drawn = np.empty((n_boot, n), dtype=np.int64)
    left_out = np.empty((n_boot, n), dtype=np.int64)
    # Replicates in blocks of about 2^24 draws: the generator's stream is the same as one
    # call's (row-major), and memory follows a block, not n_boot x units.
    step = max(1, DRAWS_PER_BLOCK // max(total, 1))
    for first in range(0, n_boot, step):
        k = min(step, n_boot - first)
        draws = starts[group] + np.floor(rng.random((k, total)) * sizes[group]).astype(np.int64)
        flat = (np.arange(k)[:, None] * total + draws).ravel()
        per_unit = np.bincount(flat, minlength=k * total).reshape(k, total)
        block = slice(first, first + k)
        if total == n:  # one unit per row
            drawn[block], left_out[block] = per_unit, per_unit == 0
        else:  # the units of each row: rows are runs of consecutive units
            drawn[block] = np.add.reduceat(per_unit, row_start, axis=1)
            left_out[block] = np.add.reduceat((per_unit == 0).astype(np.int64), row_start, axis=1)
    return drawn, left_out


def _replicate_cutpoints(
    rows: pl.DataFrame,
    units: np.ndarray,
    drawn: np.ndarray,
    left_out: np.ndarray,
    by: list[str],
    metric: str,
    reported: list[str],
    options: dict[str, Any],
) -> pl.DataFrame:
    n_boot, n = drawn.shape
    # Per unit: a count-table row's pos/neg spread over its units (weights stay whole).
    rows = rows.with_columns(
        (pl.col(POS) / pl.Series(units)).alias(POS), (pl.col(NEG) / pl.Series(units)).alias(NEG)
    )
    long = rows.with_row_index("__row").join(
        pl.DataFrame(
            {
                "replicate": np.repeat(np.arange(n_boot, dtype=np.int64), n),
                "__row": np.tile(np.arange(n, dtype=np.uint32), n_boot),
                "__count": drawn.ravel(),
                "__oob": left_out.ravel(),
            }
        ),
        on="__row",
    )
    keys = [*by, "replicate"]
    in_bag = long.filter(pl.col("__count") > 0).select(
        *keys,
        pl.col(SCORE).alias("__score"),
        (pl.col(POS) > 0).alias("__label"),
        (pl.col("__count") * (pl.col(POS) + pl.col(NEG))).cast(pl.Float64).alias("__weight"),
    )
    with warnings.catch_warnings():
        # A one-class resample is reported by its null cutpoint, not by a warning.
        warnings.simplefilter("ignore", UserWarning)
        chosen = cast(
            pl.DataFrame,
            optimal_cutpoint(  # eager in, eager out
                in_bag,
                metric,
                score="__score",
                label="__label",
                by=keys,
                weight="__weight",
                **options,
            ),
        )
    chosen = chosen.select(*keys, "threshold", *(pl.col(m).alias(f"{m}_in_bag") for m in reported))
    at = pl.col(SCORE) >= pl.col("threshold")
    pos = pl.col(POS).cast(pl.Float64) * pl.col("__oob")
    neg = pl.col(NEG).cast(pl.Float64) * pl.col("__oob")
    oob = (
        long.filter(pl.col("__oob") > 0)
        .join(chosen.select(*keys, "threshold"), on=keys, nulls_equal=True)
        .filter(pl.col("threshold").is_not_null())
        .group_by(keys)
        .agg(
            pos.filter(at).sum().alias("tp"),
            neg.filter(at).sum().alias("fp"),
            pos.filter(~at).sum().alias("fn"),
            neg.filter(~at).sum().alias("tn"),
        )
        .pipe(with_measures, options["beta"])
        .with_columns(cost_columns(options["cost_fp"], options["cost_fn"]))
        .select(*keys, *(pl.col(m).alias(f"{m}_oob") for m in reported))
    )
    joined = chosen.join(oob, on=keys, how="left", nulls_equal=True)
    columns = [f"{m}_{side}" for m in reported for side in ("in_bag", "oob")]
    return joined.select(*keys, "threshold", *columns).sort(keys, nulls_last=False)


def _summarise(
    replicates: pl.LazyFrame, by: list[str], columns: list[str], conf_level: float
) -> pl.LazyFrame:
    tail = (1.0 - conf_level) / 2.0
    stats = [pl.len().cast(pl.Int64).alias("n_boot")]
    for c in columns:
        stats += [
            pl.col(c).mean().alias(f"{c}_mean"),
            pl.col(c).quantile(tail, interpolation="linear").alias(f"{c}_lower"),
            pl.col(c).quantile(1.0 - tail, interpolation="linear").alias(f"{c}_upper"),
        ]
    if by:
        return replicates.group_by(by).agg(stats).sort(by, nulls_last=False)
    return replicates.select(stats)
