"""Intervals of the precision-recall summaries (average precision, the area under the
precision-recall curve) per group: Boyd, Eng & Page (2013)'s logit interval, or the
stratified bootstrap, whose replicates recompute the summary from resampled score-table
counts with the formulas of :mod:`polars_roc.views.pr` (docs/inference.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
import polars as pl

from polars_roc.core.validate import Prepared
from polars_roc.stats.auc_interval import bootstrap_intervals
from polars_roc.stats.bootstrap import IntervalMethod
from polars_roc.stats.cells import attach
from polars_roc.stats.distributions import two_sided_z
from polars_roc.stats.options import check_inference_options
from polars_roc.stats.partial import Layout

__all__ = [
    "PrCiMethod",
    "average_precision_replicates",
    "check_pr_ci",
    "davis_goadrich_replicates",
    "trapezoid_replicates",
    "with_pr_interval",
]

PrCiMethod = Literal["bootstrap", "logit"]
Replicates = Callable[[np.ndarray, np.ndarray, Layout], np.ndarray]


def check_pr_ci(
    ci: str | None,
    *,
    weight: str | None,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    ci_method: str = "percentile",
) -> None:
    """Refuse interval options that cannot be honoured, before any read."""
    check_inference_options(ci, ("bootstrap", "logit"), conf_level, n_boot, seed, ci_method)
    if ci == "logit" and weight is not None:
        msg = (
            f"ci='logit' does not support weights (got weight={weight!r}): its variance "
            "counts the positives. Use ci='bootstrap', which resamples weighted rows; or, "
            f"if each row stands for that many identical cases, pass count={weight!r}"
        )
        raise ValueError(msg)


def with_pr_interval(
    prep: Prepared,
    table: pl.LazyFrame,
    result: pl.LazyFrame,
    value: str,
    replicates: Replicates,
    *,
    ci: PrCiMethod,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
    ci_method: IntervalMethod = "percentile",
) -> pl.LazyFrame:
    """``result`` (one row per group, with ``value`` and ``n_pos``) with ``ci_lower``
    and ``ci_upper`` added; ``replicates`` computes ``value`` for the bootstrap.
    For a weighted bootstrap ``prep`` must come from :func:`read_once`."""
    if ci == "logit":
        v = pl.col(value)
        half = two_sided_z(conf_level) / (pl.col("n_pos").cast(pl.Float64) * v * (1.0 - v)).sqrt()
        logit = (v / (1.0 - v)).log()
        # Null at 0 and 1, where the log-odds and the variance are undefined.
        inside = (v > 0.0) & (v < 1.0)
        return result.with_columns(
            pl.when(inside).then(_expit(logit - half)).alias("ci_lower"),
            pl.when(inside).then(_expit(logit + half)).alias("ci_upper"),
        )
    intervals = bootstrap_intervals(
        prep, table, replicates, None, conf_level, n_boot, seed, progress, ci_method
    )
    return attach(result, intervals, prep.by)


def _expit(x: pl.Expr) -> pl.Expr:
    return 1.0 / (1.0 + (-x).exp())


def average_precision_replicates(pos: np.ndarray, neg: np.ndarray, layout: Layout) -> np.ndarray:
    """Average precision per replicate and group: ``sum(pos * tp / (tp + fp)) / n_pos``."""
    tp, fp = layout.cumulate(pos), layout.cumulate(neg)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        ap = layout.group_sum(pos * precision) / layout.group_sum(pos)
    return np.where(np.isfinite(ap), ap, np.nan)


def davis_goadrich_replicates(pos: np.ndarray, neg: np.ndarray, layout: Layout) -> np.ndarray:
    """Davis & Goadrich's interpolated area per replicate and group.

    The segment ending at a cell starts at ``(tp - pos, fp - neg)`` (the cell before it,
    or the origin): the closed form of ``_interpolated_area`` with ``d = pos``.
    """
    tp, fp = layout.cumulate(pos), layout.cumulate(neg)
    tp_a, fp_a = tp - pos, fp - neg
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = 1.0 + neg / pos
        start = tp_a + fp_a
        linear = pos / slope
        curved = (tp_a - start / slope) / slope * np.log1p(slope * pos / start)
        piece = np.where(pos > 0, np.where(start > 0, linear + curved, linear), 0.0)
        area = layout.group_sum(piece) / layout.group_sum(pos)
    return np.where(np.isfinite(area), area, np.nan)


def trapezoid_replicates(pos: np.ndarray, neg: np.ndarray, layout: Layout) -> np.ndarray:
    """ROCR's straight-line area per replicate and group: trapezoids between the cells
    where recall rises (``pos > 0``), from the origin at precision 1."""
    tp, fp = layout.cumulate(pos), layout.cumulate(neg)
    cells = np.arange(pos.shape[1])
    # The previous cell where recall rose, within the group (-1: none, the origin).
    rose = np.where(pos > 0, cells, -1)
    last = np.maximum.accumulate(rose, axis=1)
    previous = np.concatenate([np.full((pos.shape[0], 1), -1), last[:, :-1]], axis=1)
    group_start = layout.per_cell(layout.starts[None, :].astype(np.int64))
    from_origin = previous < group_start
    at = np.where(from_origin, 0, previous)
    tp_b, fp_b = np.take_along_axis(tp, at, axis=1), np.take_along_axis(fp, at, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 1.0)
        before = np.where(from_origin, 1.0, tp_b / (tp_b + fp_b))
        piece = np.where(pos > 0, pos * (precision + before) / 2.0, 0.0)
        area = layout.group_sum(piece) / layout.group_sum(pos)
    return np.where(np.isfinite(area), area, np.nan)
