"""Partial areas and points read off the ROC curve, from the score table.

The ROC curve of a group is the polyline through ``(fpr, tpr)`` at every distinct score,
from ``(0, 0)``; a run of tied scores is one straight (diagonal) segment. In the score
table (sorted by threshold descending) the segment ending at a row starts at
``(fp - neg, tp - pos)``, so every segment is known from its own row, with no shift.

Each quantity here exists twice, with the same formulas: as a polars aggregation over
the score table (the point estimate, lazy) and as numpy over arrays of bootstrap
replicates (``(replicates, cells)`` arrays of counts laid out like the score table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import polars as pl

from polars_roc.core.arguments import check_rates
from polars_roc.core.auc import auc_from_counts

__all__ = ["Area", "Layout", "RateAt", "area_spec", "point_values"]

Axis = Literal["fpr", "tpr"]


def _segments(pos, neg, tp, fp, n_pos, n_neg):
    """``(x0, y0, x1, y1)``: the curve segment ending at each cell (numpy arrays or the
    score table's columns)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (fp - neg) / n_neg, (tp - pos) / n_pos, fp / n_neg, tp / n_pos


def _segment_exprs() -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    columns = ("pos", "neg", "tp", "fp", "n_pos", "n_neg")
    return _segments(*(pl.col(c).cast(pl.Float64) for c in columns))


@dataclass(frozen=True)
class Area:
    """Which area under the curve a call measures.

    ``axis=None`` is the full AUC. ``axis="fpr"`` integrates ``tpr`` over the FPR band
    ``[low, high]`` (pROC's ``partial.auc.focus="specificity"``); ``axis="tpr"``
    integrates ``1 - fpr`` over the TPR band (``focus="sensitivity"``). With
    ``standardize``, McClish's correction maps the chance diagonal to 0.5 and a perfect
    curve to 1: ``(1 + (area - min) / (max - min)) / 2``.
    """

    axis: Axis | None = None
    low: float = 0.0
    high: float = 1.0
    standardize: bool = True

    @property
    def partial(self) -> bool:
        return self.axis is not None

    def _bounds(self) -> tuple[float, float]:
        """Areas of the chance diagonal and of a perfect curve within the band."""
        a, b = self.low, self.high
        diagonal = (b * b - a * a) / 2.0 if self.axis == "fpr" else (b - a) - (b * b - a * a) / 2.0
        return diagonal, b - a

    def _finish(self, raw):
        if not self.standardize:
            return raw
        diagonal, perfect = self._bounds()
        return (1.0 + (raw - diagonal) / (perfect - diagonal)) / 2.0

    def expr(self) -> pl.Expr:
        """The area of one group, as an aggregation over its score-table rows."""
        if not self.partial:
            return auc_from_counts(pl.col("pos"), pl.col("neg"), pl.col("tp"))
        x0, y0, x1, y1 = _segment_exprs()
        if self.axis == "tpr":
            # Integrate 1 - fpr along tpr: the same formula with the axes swapped.
            x0, y0, x1, y1 = y0, 1.0 - x0, y1, 1.0 - x1
        left = pl.max_horizontal(x0, pl.lit(self.low))
        right = pl.min_horizontal(x1, pl.lit(self.high))
        slope = pl.when(x1 > x0).then((y1 - y0) / (x1 - x0)).otherwise(0.0)
        piece = pl.when(right > left).then(
            (right - left) * (2.0 * y0 + slope * (left - x0 + right - x0)) / 2.0
        )
        # Added in row order (cells.ordered_sum): a plain sum's partial sums differ
        # between Polars' engines.
        raw = piece.fill_null(0.0).cum_sum().last()
        both = (pl.col("n_pos").first() > 0) & (pl.col("n_neg").first() > 0)
        return pl.when(both).then(self._finish(raw))

    def replicates(self, pos: np.ndarray, neg: np.ndarray, layout: Layout) -> np.ndarray:
        """The area per replicate and group: ``(replicates, groups)``, NaN if undefined."""
        tp, fp, n_pos, n_neg = layout.cumulate(pos), layout.cumulate(neg), *layout.totals(pos, neg)
        with np.errstate(divide="ignore", invalid="ignore"):
            if not self.partial:
                # Each class scaled by a power of two near its total, as auc_from_counts.
                p_s, n_s = (
                    np.where(t > 0, 2.0 ** -np.floor(np.log2(t)), 1.0) for t in (n_pos, n_neg)
                )
                area = layout.group_sum(neg * n_s * (tp - pos / 2.0) * p_s) / (
                    layout.group_sum(pos * p_s) * layout.group_sum(neg * n_s)
                )
                return np.where(np.isfinite(area), area, np.nan)
            x0, y0, x1, y1 = _segments(pos, neg, tp, fp, n_pos, n_neg)
            if self.axis == "tpr":
                x0, y0, x1, y1 = y0, 1.0 - x0, y1, 1.0 - x1
            left, right = np.maximum(x0, self.low), np.minimum(x1, self.high)
            slope = np.where(x1 > x0, (y1 - y0) / (x1 - x0), 0.0)
            trapezoid = (right - left) * (2.0 * y0 + slope * (left - x0 + right - x0)) / 2.0
            piece = np.where(right > left, trapezoid, 0.0)
            area = self._finish(layout.group_sum(np.nan_to_num(piece)))
            defined = (layout.group_sum(pos) > 0) & (layout.group_sum(neg) > 0)
        return np.where(defined, area, np.nan)


def area_spec(
    max_fpr: float | None,
    fpr_range: tuple[float, float] | None,
    tpr_range: tuple[float, float] | None,
    standardize: bool,
) -> Area:
    """Validate the partial-AUC arguments and say which area they ask for."""
    options = {"max_fpr": max_fpr, "fpr_range": fpr_range, "tpr_range": tpr_range}
    given = [name for name, value in options.items() if value is not None]
    if len(given) > 1:
        msg = f"pass at most one of max_fpr, fpr_range and tpr_range, got {given!r}"
        raise ValueError(msg)
    if not isinstance(standardize, bool):
        msg = f"`standardize` must be True or False, got {standardize!r}"
        raise TypeError(msg)
    if max_fpr is not None:
        check_rates("max_fpr", max_fpr, closed="right")
        if max_fpr == 1.0:
            return Area()
        return Area("fpr", 0.0, float(max_fpr), standardize)
    if fpr_range is not None:
        low, high = check_rates("fpr_range", fpr_range, form="pair")
        return Area("fpr", low, high, standardize)
    if tpr_range is not None:
        low, high = check_rates("tpr_range", tpr_range, form="pair")
        return Area("tpr", low, high, standardize)
    return Area()


def point_values(axis: Axis, at: pl.Expr) -> pl.Expr:
    """The other rate where the curve crosses ``axis == at`` (an aggregation).

    ``axis="fpr"``: the highest ``tpr`` on the curve at ``fpr == at`` (the top of a
    vertical run, as pROC's ``coords(input="specificity")``), linear along a diagonal
    run of ties. ``axis="tpr"``: the lowest ``fpr`` at ``tpr == at``.
    """
    x0, y0, x1, y1 = _segment_exprs()
    if axis == "tpr":
        x0, y0, x1, y1 = y0, x0, y1, x1
    crossing = (x0 <= at) & (at <= x1)
    value = (
        pl.when(x1 > x0)
        .then(y0 + (y1 - y0) * (at - x0) / (x1 - x0))
        .otherwise(y1 if axis == "fpr" else y0)
    )
    found = pl.when(crossing).then(value)
    both = (pl.col("n_pos").first() > 0) & (pl.col("n_neg").first() > 0)
    return pl.when(both).then(found.max() if axis == "fpr" else found.min())


def point_replicates(
    axis: Axis, targets: np.ndarray, pos: np.ndarray, neg: np.ndarray, layout: Layout
) -> np.ndarray:
    """:func:`point_values` per replicate, group and target: ``(R, G, T)``."""
    tp, fp, n_pos, n_neg = layout.cumulate(pos), layout.cumulate(neg), *layout.totals(pos, neg)
    x0, y0, x1, y1 = _segments(pos, neg, tp, fp, n_pos, n_neg)
    if axis == "tpr":
        x0, y0, x1, y1 = y0, x0, y1, x1
    out = np.empty((pos.shape[0], layout.n_groups, len(targets)))
    fill = -np.inf if axis == "fpr" else np.inf
    reduce = np.maximum.reduceat if axis == "fpr" else np.minimum.reduceat
    with np.errstate(divide="ignore", invalid="ignore"):
        for j, at in enumerate(targets):  # a handful of requested rates, not rows
            value = np.where(
                x1 > x0, y0 + (y1 - y0) * (at - x0) / (x1 - x0), y1 if axis == "fpr" else y0
            )
            hit = np.where((x0 <= at) & (at <= x1), value, fill)
            found = reduce(hit, layout.starts, axis=1)
            out[:, :, j] = np.where(np.isfinite(found), found, np.nan)
    return out


@dataclass(frozen=True)
class RateAt:
    """One rate read at a fixed value of the other: ``tpr`` at ``fpr == at``
    (``given="fpr"``) or ``fpr`` at ``tpr == at``, as :func:`point_values`; the statistic
    a paired bootstrap compares in place of an :class:`Area`."""

    given: Axis
    at: float

    @property
    def read(self) -> Axis:
        """The rate read off the curve (the one compared)."""
        return "tpr" if self.given == "fpr" else "fpr"

    def replicates(self, pos: np.ndarray, neg: np.ndarray, layout: Layout) -> np.ndarray:
        """The rate per replicate and group: ``(replicates, groups)``, NaN if undefined."""
        return point_replicates(self.given, np.array([self.at]), pos, neg, layout)[..., 0]


@dataclass(frozen=True)
class Layout:
    """Where each group's cells lie along the last axis of replicate arrays."""

    starts: np.ndarray  # first cell of each group
    lengths: np.ndarray  # cells per group

    @property
    def n_groups(self) -> int:
        return len(self.starts)

    def group_sum(self, values: np.ndarray) -> np.ndarray:
        return np.add.reduceat(values, self.starts, axis=1)

    def per_cell(self, per_group: np.ndarray) -> np.ndarray:
        return np.repeat(per_group, self.lengths, axis=1)

    def cumulate(self, values: np.ndarray) -> np.ndarray:
        """Running sum within each group (cells in descending-score order), each group
        summed from its own first cell, so its bits are those of the group alone: one
        running sum less the earlier groups' lost a small group's beside large weights.
        Groups padded to the next power of two (at most twice the cells, one pass a
        size); the padding trails each group, so what it holds never reaches its sums."""
        out = np.empty(values.shape)
        size = np.ceil(np.log2(np.maximum(self.lengths, 1))).astype(np.int64)
        for k in np.unique(size):
            groups = np.flatnonzero(size == k)
            offsets = np.arange(1 << int(k))
            valid = offsets < self.lengths[groups, None]
            cells = np.minimum(self.starts[groups, None] + offsets, values.shape[1] - 1)
            out[:, cells[valid]] = np.cumsum(np.take(values, cells, axis=1), axis=2)[:, valid]
        return out

    def totals(self, pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.per_cell(self.group_sum(pos)), self.per_cell(self.group_sum(neg))
