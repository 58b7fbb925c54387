"""One rate of the ROC curve read at given values of the other, with bootstrap intervals.

``tpr_at`` (sensitivity at a false positive rate) and ``fpr_at``; the rates at given
thresholds are :mod:`polars_roc.stats.threshold_ci`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_flags, check_rates
from polars_roc.core.counting import count_rows
from polars_roc.core.score_table import build, group_totals
from polars_roc.core.validate import Direction, Frame, NullPolicy
from polars_roc.stats.bootstrap import IntervalMethod, acceleration, bootstrap_interval
from polars_roc.stats.cells import (
    attach,
    keyed,
    on_collected,
    read_once,
    resampler,
    resampling_cells,
)
from polars_roc.stats.options import check_inference_options
from polars_roc.stats.partial import Axis, point_replicates, point_values

__all__ = ["fpr_at", "tpr_at"]


def _at_rate(
    frame: Frame,
    values: float | Sequence[float],
    roles: Roles,
    given: Axis,
    ci: Literal["bootstrap"] | None,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
    ci_method: IntervalMethod,
) -> Frame:
    wanted = "tpr" if given == "fpr" else "fpr"
    targets = check_rates(given, values, form="numbers")
    check_inference_options(ci, ("bootstrap",), conf_level, n_boot, seed, ci_method)
    prep = count_rows(frame, roles, reserved=("fpr", "tpr", "ci_lower", "ci_upper")).prep
    prep = read_once(prep, ci == "bootstrap")
    table = build(prep)
    order = "__roc_order"
    grid = pl.LazyFrame(
        {given: targets, order: range(len(targets))}, schema={given: pl.Float64, order: pl.Int64}
    )
    keys = [*prep.by, given]
    result = (
        table.join(grid, how="cross")
        .group_by([*keys, order])
        .agg(point_values(given, pl.col(given)).alias(wanted), pl.col("n_pos", "n_neg").first())
        .sort([*prep.by, order], nulls_last=False)
        .drop(order)
    )
    if ci == "bootstrap":
        cells = resampling_cells(prep, table)
        by = prep.by
        target_array = np.asarray(targets)
        columns = (given, "ci_lower", "ci_upper")

        def run(collected: pl.DataFrame) -> pl.DataFrame:
            sampler, group_keys = resampler(collected, by)

            def statistic(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
                return point_replicates(given, target_array, pos, neg, sampler.layout)

            values = sampler.collect(seed, n_boot, statistic, progress=progress)
            _, lower, upper = bootstrap_interval(
                values,
                conf_level,
                method=ci_method,
                estimate=statistic(*sampler.weights())[0],
                accelerate=lambda: acceleration(sampler.jackknife(seed, statistic)),
            )
            n_groups, n_targets = lower.shape
            repeated = group_keys[np.repeat(np.arange(n_groups), n_targets)] if by else group_keys
            arrays = (np.tile(target_array, n_groups), lower.ravel(), upper.ravel())
            series = [pl.Series(n, v) for n, v in zip(columns, arrays, strict=True)]
            return keyed(repeated, series).fill_nan(None)

        schema = dict.fromkeys(columns, pl.Float64)
        result = attach(result, on_collected(cells, by, schema, run), keys)
    return prep.finish(result, lambda done: group_totals(done, prep.by))


def tpr_at(
    frame: Frame,
    fpr: float | Sequence[float],
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    ci: Literal["bootstrap"] | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    progress: bool = False,
    ci_method: IntervalMethod = "percentile",
) -> Frame:
    """True positive rate (sensitivity) at given false positive rates, per group.

    Reads the ROC curve at ``fpr`` (1 - specificity): the highest ``tpr`` where the
    curve has a vertical run at that rate, linear interpolation along a diagonal run of
    tied scores; as pROC's ``coords(input="specificity")`` and ``ci.se``.

    Parameters
    ----------
    fpr
        One false positive rate in [0, 1], or a list of them.
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    ci
        ``"bootstrap"`` adds a stratified-bootstrap percentile interval.
    conf_level, n_boot, seed, progress, ci_method
        As in :func:`polars_roc.roc_auc` (``ci_method="bca"``: the BCa interval).

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, fpr, tpr, n_pos, n_neg]`` (+ ``ci_lower, ci_upper``), one row per group
        and requested rate, rates in the order given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.6, 0.4, 0.3], "label": [1, 1, 0, 1, 0, 0]})
    >>> pr.tpr_at(df, [0.0, 0.5])
    shape: (2, 4)
    ┌─────┬──────────┬───────┬───────┐
    │ fpr ┆ tpr      ┆ n_pos ┆ n_neg │
    │ --- ┆ ---      ┆ ---   ┆ ---   │
    │ f64 ┆ f64      ┆ i64   ┆ i64   │
    ╞═════╪══════════╪═══════╪═══════╡
    │ 0.0 ┆ 0.666667 ┆ 3     ┆ 3     │
    │ 0.5 ┆ 1.0      ┆ 3     ┆ 3     │
    └─────┴──────────┴───────┴───────┘
    """
    check_flags(progress=progress)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    return _at_rate(frame, fpr, roles, "fpr", ci, conf_level, n_boot, seed, progress, ci_method)


def fpr_at(
    frame: Frame,
    tpr: float | Sequence[float],
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    ci: Literal["bootstrap"] | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    progress: bool = False,
    ci_method: IntervalMethod = "percentile",
) -> Frame:
    """False positive rate (1 - specificity) at given true positive rates, per group.

    The lowest ``fpr`` where the curve reaches ``tpr`` (linear along tied runs), as
    pROC's ``coords(input="sensitivity")`` and ``ci.sp``. Parameters as in
    :func:`tpr_at`, with ``tpr`` the requested true positive rate(s).

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, tpr, fpr, n_pos, n_neg]`` (+ ``ci_lower, ci_upper`` of ``fpr``).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.6, 0.4, 0.3], "label": [1, 1, 0, 1, 0, 0]})
    >>> pr.fpr_at(df, 1.0)
    shape: (1, 4)
    ┌─────┬──────────┬───────┬───────┐
    │ tpr ┆ fpr      ┆ n_pos ┆ n_neg │
    │ --- ┆ ---      ┆ ---   ┆ ---   │
    │ f64 ┆ f64      ┆ i64   ┆ i64   │
    ╞═════╪══════════╪═══════╪═══════╡
    │ 1.0 ┆ 0.333333 ┆ 3     ┆ 3     │
    └─────┴──────────┴───────┴───────┘
    """
    check_flags(progress=progress)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    return _at_rate(frame, tpr, roles, "tpr", ci, conf_level, n_boot, seed, progress, ci_method)
