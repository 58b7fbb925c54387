"""Bootstrap intervals of confusion measures at given thresholds (pROC's ``ci.coords``
with ``input="threshold"`` and ``ci.thresholds``).

The cells are the score table's rows, sorted by score descending within each group, so a
replicate's positives at threshold ``t`` are its draws on the cells scoring ``>= t``: one
masked sum per threshold over a ``(replicates, cells)`` array, then the measure table's
own expressions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_flags, check_thresholds
from polars_roc.core.counting import count_rows
from polars_roc.core.lookup import counts_at
from polars_roc.core.measures import MEASURE_COLUMNS, with_measures
from polars_roc.core.score_table import build, group_totals
from polars_roc.core.validate import SCORE, Direction, Frame, NullPolicy
from polars_roc.stats.bootstrap import (
    BCA_UNDEFINED,
    IntervalMethod,
    acceleration,
    bootstrap_interval,
    percentile_interval,
    warn_undefined,
)
from polars_roc.stats.cells import attach, on_collected, over, resampler, resampling_cells
from polars_roc.stats.options import check_inference_options

__all__ = ["NUMERIC_MEASURES", "threshold_ci"]

# The measure table's numeric columns (kappa_level is a label of kappa, not a number):
# each can be given an interval here, or be summarised across folds (evaluation/folds).
NUMERIC_MEASURES = tuple(m for m in MEASURE_COLUMNS if m != "kappa_level")
_ORDER = "__roc_order"


def _check_measures(names: object) -> list[str]:
    items = [names] if isinstance(names, str) else names
    if not isinstance(items, Sequence) or not items:
        msg = (
            "`measures` must name one or more columns of the measure table, e.g. "
            f"('tpr', 'tnr', 'ppv', 'npv'), got {names!r}"
        )
        raise ValueError(msg)
    unknown = [m for m in items if m not in NUMERIC_MEASURES]
    if unknown:
        msg = (
            f"`measures` holds {unknown!r}, which is not a numeric measure; choose from "
            f"{list(NUMERIC_MEASURES)!r} (sensitivity is 'tpr', specificity 'tnr')"
        )
        raise ValueError(msg)
    if len(set(items)) != len(items):
        msg = f"`measures` names a measure twice: {list(items)!r}"
        raise ValueError(msg)
    return list(items)


def threshold_ci(
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
    measures: str | Sequence[str] = ("tpr", "tnr", "ppv", "npv"),
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    stratified: bool = True,
    progress: bool = False,
    ci_method: IntervalMethod = "percentile",
) -> Frame:
    """Confusion measures at given thresholds with stratified-bootstrap intervals.

    pROC's ``ci.coords(roc, x=thresholds, input="threshold", ret=...)`` (and
    ``ci.thresholds`` for sensitivity and specificity), per group. A row is predicted
    positive when ``score >= threshold``, as in :func:`polars_roc.confusion_matrix`
    (``direction="lower"``: when ``score <= threshold``). Each replicate resamples the
    positives and the negatives of each group separately, with replacement (pROC's
    default ``boot.stratified=TRUE``), and computes the measures at the same
    thresholds; the interval is the percentile interval of the replicates, quantiles
    interpolated linearly (R's default ``quantile`` type 7, which pROC uses), and
    replicates where a measure is undefined (a zero denominator) are left out, as
    pROC's ``na.rm=TRUE``. Each group draws from its own random streams, derived from
    ``seed`` and the group's key values, so a group's interval does not depend on the
    other groups.

    Parameters
    ----------
    threshold
        One threshold or a list of them, in the score's units; one row per group and
        threshold, thresholds in the order given.
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`. Weighted rows are resampled with their
        weights; a count-table row is resampled as that many identical rows.
    measures
        The measures to give intervals for: any numeric column of
        :func:`polars_roc.confusion_matrix` (``tpr`` is sensitivity, ``tnr``
        specificity). Default: sensitivity, specificity, ``ppv`` and ``npv``.
    conf_level, n_boot, seed, progress
        As in :func:`polars_roc.roc_auc` (``n_boot`` is pROC's ``boot.n``).
    stratified
        ``True`` (default, pROC's ``boot.stratified=TRUE``): each replicate keeps the
        group's numbers of positives and negatives. ``False``: it draws the group's
        rows regardless of class, so those numbers vary (a replicate without
        positives leaves the sensitivity out).
    ci_method
        ``"percentile"`` (default, pROC's) or ``"bca"``: the BCa interval of the same
        replicates (``m_lower``, ``m_upper``; the estimate and ``m_median`` stay), its
        acceleration from the jackknife of each class (with ``stratified=False``, of
        all the group's units as one sample; docs/inference.md).

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold]``, then for each measure ``m`` in the order given: ``m``
        (on the data), ``m_lower``, ``m_median``, ``m_upper`` (pROC's three quantiles
        of the replicates), then ``n_pos, n_neg``. A bound is null when fewer than two
        replicates define the measure.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3] * 5,
    ...                    "label": [1, 1, 0, 1, 0, 1, 0, 0] * 5})
    >>> ci = pr.threshold_ci(df, [0.5, 0.75], measures=["tpr", "tnr"], n_boot=500, seed=1)
    >>> ci.select("threshold", "tpr", "tpr_lower", "tpr_upper", "tnr", "tnr_lower", "tnr_upper")
    shape: (2, 7)
    ┌───────────┬─────┬───────────┬───────────┬─────┬───────────┬───────────┐
    │ threshold ┆ tpr ┆ tpr_lower ┆ tpr_upper ┆ tnr ┆ tnr_lower ┆ tnr_upper │
    │ ---       ┆ --- ┆ ---       ┆ ---       ┆ --- ┆ ---       ┆ ---       │
    │ f64       ┆ f64 ┆ f64       ┆ f64       ┆ f64 ┆ f64       ┆ f64       │
    ╞═══════════╪═════╪═══════════╪═══════════╪═════╪═══════════╪═══════════╡
    │ 0.5       ┆ 1.0 ┆ 1.0       ┆ 1.0       ┆ 0.5 ┆ 0.3       ┆ 0.72625   │
    │ 0.75      ┆ 0.5 ┆ 0.3       ┆ 0.7       ┆ 1.0 ┆ 1.0       ┆ 1.0       │
    └───────────┴─────┴───────────┴───────────┴─────┴───────────┴───────────┘
    """
    check_flags(progress=progress)
    thresholds = check_thresholds("threshold", threshold)
    wanted = _check_measures(measures)
    check_inference_options("bootstrap", ("bootstrap",), conf_level, n_boot, seed, ci_method)
    if not isinstance(stratified, bool):
        msg = f"`stratified` must be True or False, got {stratified!r}"
        raise TypeError(msg)
    columns = [f"{m}{suffix}" for m in wanted for suffix in ("", "_lower", "_median", "_upper")]
    prep = count_rows(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls, direction),
        reserved=("threshold", "n_pos", "n_neg", *columns),
    ).prep
    by_cols = prep.by
    table = build(prep)
    order = over(pl.int_range(pl.len()), by_cols)
    estimates = (
        counts_at(table, prep, thresholds)
        .pipe(with_measures, names=wanted)
        .with_columns(
            (pl.col("tp") + pl.col("fn")).alias("n_pos"),
            (pl.col("fp") + pl.col("tn")).alias("n_neg"),
            order.alias(_ORDER),
        )
    )
    cells = resampling_cells(prep, table, keep_score=True)
    keys = np.asarray(prep.threshold_keys(thresholds), dtype=np.float64)
    bounds = [f"{m}{suffix}" for m in wanted for suffix in ("_lower", "_median", "_upper")]

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        sampler, group_keys = resampler(collected, by_cols)
        scores = collected[SCORE].cast(pl.Float64).to_numpy()
        above = scores[None, :] >= keys[:, None]  # (thresholds, cells)
        starts = sampler.layout.starts

        def statistic(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
            """The measures per replicate, group, threshold and measure, NaN where
            undefined: the replicate's draws on cells >= t are its tp and fp."""
            n_pos, n_neg = (np.add.reduceat(w, starts, axis=1)[..., None] for w in (pos, neg))
            tp = np.stack([np.add.reduceat(pos * mask, starts, axis=1) for mask in above], -1)
            fp = np.stack([np.add.reduceat(neg * mask, starts, axis=1) for mask in above], -1)
            cells = {"tp": tp, "fp": fp, "fn": n_pos - tp, "tn": n_neg - fp}
            counts = pl.DataFrame({name: cell.ravel() for name, cell in cells.items()})
            values = with_measures(counts, names=wanted).select(pl.col(wanted).cast(pl.Float64))
            return values.to_numpy().reshape(*tp.shape, len(wanted))

        draws = sampler.chunks(seed, n_boot, progress=progress, stratified=stratified)
        values = np.concatenate([statistic(pos, neg) for pos, neg in draws])
        _, lower, upper = bootstrap_interval(
            values,
            conf_level,
            method=ci_method,
            estimate=statistic(*sampler.weights())[0],
            # Drawn regardless of class, a group's units are one sample.
            accelerate=lambda: acceleration(
                sampler.jackknife(seed, statistic)
                if stratified
                else (sampler.pooled_jackknife(seed, statistic),)
            ),
        )
        _, median, _ = percentile_interval(values, 0.0)  # NaN below two replicates
        if ci_method == "bca":  # null where the percentile interval exists: say why
            enough = (~np.isnan(values)).sum(axis=0) > 1
            undefined = enough & (np.isnan(lower) | np.isnan(upper))
            warn_undefined(group_keys, undefined.any(axis=(1, 2)), "a BCa interval", BCA_UNDEFINED)
        group, order = np.indices(lower.shape[:2]).reshape(2, -1)
        columns = {
            f"{m}{suffix}": bound[..., i].ravel()
            for i, m in enumerate(wanted)
            for suffix, bound in (("_lower", lower), ("_median", median), ("_upper", upper))
        }
        out = pl.DataFrame({_ORDER: order, **columns}).fill_nan(None)
        return group_keys[group].hstack(out) if by_cols else out

    schema = {_ORDER: pl.Int64, **dict.fromkeys(bounds, pl.Float64)}
    joined = attach(estimates, on_collected(cells, by_cols, schema, run), [*by_cols, _ORDER])
    result = joined.select(*by_cols, "threshold", *columns, "n_pos", "n_neg")
    return prep.finish(result, lambda done: group_totals(done, by_cols))
