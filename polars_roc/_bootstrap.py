"""Stratified bootstrap drawn on the score table instead of on the rows.

Resampling the ``m`` positives of a group with replacement puts a multinomial number of
draws on each distinct score: ``Multinomial(m, rows_at_score / m)``; the negatives
likewise, independently (pROC's ``boot.stratified=TRUE``: each replicate keeps the
class sizes). Those counts are all a replicate's ROC curve needs, so one replicate
costs O(distinct scores), not O(rows), and nothing is sorted again.

The multinomial draws are made for every group, class and replicate at once: one call
of numpy's ``Generator.multinomial`` broadcast over (group, class) segments, their cells
padded to the longest segment. When segment lengths are too uneven for padding (one
large group among many small ones), *binomial splitting* is used instead: a segment of
cells holding ``k`` draws sends ``Binomial(k, p_left)`` of them to its left half and the
rest to its right half, level by level down to single cells (segments left with no
draws stop early), an exact multinomial sample with about two binomial draws per cell.
Neither loops over groups in Python.
A Poisson bootstrap would be simpler still but lets the class sizes vary between
replicates, which pROC's stratified bootstrap does not.

Weights: rows are resampled (a drawn row brings its weight). The table keeps per cell
the row count and the weight sum, and a replicate gives a cell ``draws * weight_sum /
rows``: exact when the rows of a cell (same group, class and score) share one weight,
and otherwise it replaces their weights by their mean.

Reproducibility: one ``numpy.random.Generator`` seeded with ``seed`` draws everything,
in the score table's order (groups sorted, scores descending), so the same data and
seed give the same numbers whatever engine ran the plan. Replicates are drawn in chunks
of at most ``CELL_BUDGET`` cells, which bounds memory for any ``n_boot``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import numpy as np

from polars_roc._partial import Layout

__all__ = ["CELL_BUDGET", "Resampler", "percentile_interval"]

# Replicates x cells held in memory at once (a few float64 arrays of this size).
CELL_BUDGET = 1 << 20
# Pad segments for numpy's multinomial while the padded size stays within this factor.
PADDING_LIMIT = 4


def _draw_multinomial(
    rng: np.random.Generator,
    rows: np.ndarray,
    seg_starts: np.ndarray,
    seg_ends: np.ndarray,
    n_rep: int,
) -> np.ndarray:
    """Multinomial draws per segment: ``(n_rep, cells)`` Int64 counts.

    Each segment ``[start, end)`` of ``rows`` (row counts per cell) receives as many
    draws as it holds rows, spread with probabilities proportional to ``rows``. When the
    segments have similar lengths, numpy's multinomial (vectorised over segments, cells
    padded to the longest segment) is fastest; otherwise binomial splitting avoids the
    padding.
    """
    lengths = seg_ends - seg_starts
    longest = int(lengths.max()) if len(lengths) else 0
    if len(lengths) * longest > PADDING_LIMIT * max(1, len(rows)):
        return _split_multinomial(rng, rows, seg_starts, seg_ends, n_rep)
    segment = np.repeat(np.arange(len(lengths)), lengths)
    position = np.arange(len(rows)) - np.repeat(seg_starts, lengths)
    totals = np.add.reduceat(rows, seg_starts) if len(rows) else np.zeros(0, np.int64)
    totals = np.where(lengths > 0, totals, 0)
    pvals = np.zeros((len(lengths), longest))
    with np.errstate(divide="ignore", invalid="ignore"):
        pvals[segment, position] = np.where(totals[segment] > 0, rows / totals[segment], 0.0)
    draws = rng.multinomial(totals, pvals, size=(n_rep, len(lengths)))
    return draws[:, segment, position]


def _split_multinomial(
    rng: np.random.Generator,
    rows: np.ndarray,
    seg_starts: np.ndarray,
    seg_ends: np.ndarray,
    n_rep: int,
) -> np.ndarray:
    """Multinomial draws per segment: ``(n_rep, cells)`` Int64 counts.

    Each segment ``[start, end)`` of ``rows`` (row counts per cell) receives as many
    draws as it holds rows, spread with probabilities proportional to ``rows``.
    """
    prefix = np.concatenate([[0], np.cumsum(rows)])
    out = np.zeros((n_rep, len(rows)), dtype=np.int64)
    n_seg = len(seg_starts)
    rep = np.repeat(np.arange(n_rep), n_seg)
    lo = np.tile(seg_starts, n_rep)
    hi = np.tile(seg_ends, n_rep)
    draws = prefix[hi] - prefix[lo]
    while lo.size:
        live = draws > 0
        rep, lo, hi, draws = rep[live], lo[live], hi[live], draws[live]
        leaf = hi - lo == 1
        out[rep[leaf], lo[leaf]] = draws[leaf]
        inner = ~leaf
        rep, lo, hi, draws = rep[inner], lo[inner], hi[inner], draws[inner]
        mid = (lo + hi) // 2
        p_left = (prefix[mid] - prefix[lo]) / (prefix[hi] - prefix[lo])
        left = rng.binomial(draws, p_left)
        rep = np.concatenate([rep, rep])
        lo, hi = np.concatenate([lo, mid]), np.concatenate([mid, hi])
        draws = np.concatenate([left, draws - left])
    return out


class Resampler:
    """Draws stratified bootstrap replicates of a table of cells.

    ``pos_rows``/``neg_rows`` are the rows of each class per cell, ``pos_weight`` /
    ``neg_weight`` their weight sums (equal to the row counts when unweighted), and
    ``group_starts`` the first cell of each group (cells grouped, groups contiguous).
    """

    def __init__(
        self,
        pos_rows: np.ndarray,
        neg_rows: np.ndarray,
        pos_weight: np.ndarray,
        neg_weight: np.ndarray,
        group_starts: np.ndarray,
    ) -> None:
        self.n_cells = len(pos_rows)
        self.rows = np.concatenate([pos_rows, neg_rows]).astype(np.int64)
        ends = np.append(group_starts[1:], self.n_cells).astype(np.int64)
        starts = group_starts.astype(np.int64)
        # Positives of every group, then negatives: one segment per (group, class).
        self.seg_starts = np.concatenate([starts, starts + self.n_cells])
        self.seg_ends = np.concatenate([ends, ends + self.n_cells])
        with np.errstate(divide="ignore", invalid="ignore"):
            unit = np.concatenate([pos_weight, neg_weight]) / self.rows
        self.unit_weight = np.where(self.rows > 0, unit, 0.0)
        self.layout = Layout(starts, ends - starts)

    def chunks(
        self, rng: np.random.Generator, n_boot: int, *, progress: bool = False
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(pos, neg)`` replicate weights, ``(chunk, cells)`` each, n_boot in all."""
        per_chunk = max(1, CELL_BUDGET // max(1, self.n_cells))
        done = 0
        while done < n_boot:
            size = min(per_chunk, n_boot - done)
            draws = _draw_multinomial(rng, self.rows, self.seg_starts, self.seg_ends, size)
            weights = draws * self.unit_weight
            yield weights[:, : self.n_cells], weights[:, self.n_cells :]
            done += size
            if progress:
                print(f"\rbootstrap: {done}/{n_boot} replicates", end="", file=sys.stderr)
        if progress:
            print(file=sys.stderr)

    def collect(
        self,
        rng: np.random.Generator,
        n_boot: int,
        statistic: Callable[[np.ndarray, np.ndarray], np.ndarray],
        *,
        progress: bool = False,
    ) -> np.ndarray:
        """``statistic(pos, neg)`` of every replicate, stacked along the first axis."""
        return np.concatenate(
            [statistic(pos, neg) for pos, neg in self.chunks(rng, n_boot, progress=progress)]
        )


def percentile_interval(
    values: np.ndarray, conf_level: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(se, lower, upper)`` along axis 0, ignoring NaN replicates.

    Quantiles interpolate linearly (R's default type 7, as pROC's ``quantile``); the
    standard error is the replicates' standard deviation (ddof = 1). All-NaN columns
    give NaN.
    """
    tail = (1.0 - conf_level) / 2.0
    finite = ~np.isnan(values)
    count = finite.sum(axis=0)
    shape = values.shape[1:]
    se, lower, upper = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    enough = count > 1
    if enough.any():
        chosen = values[:, enough]
        se[enough] = np.nanstd(chosen, axis=0, ddof=1)
        lower[enough], upper[enough] = np.nanquantile(chosen, [tail, 1.0 - tail], axis=0)
    return se, lower, upper
