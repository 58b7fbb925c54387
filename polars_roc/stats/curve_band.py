"""A simultaneous confidence band for the whole ROC curve, per group: the sup-norm
bootstrap band (Campbell 1994; Macskassy, Provost & Rosset 2005, "fixed width"), each
replicate's largest vertical distance to the estimate over a grid of false positive
rates (docs/inference.md, "A confidence band for the whole curve").
"""

from __future__ import annotations

import numpy as np
import polars as pl

from polars_roc.core.validate import Prepared
from polars_roc.stats.cells import keyed, on_collected, resampler, resampling_cells

__all__ = ["BAND_GRID", "band_per_group", "curve_at_grid"]

# The band's false positive rates: 0, 0.01, ..., 1.
BAND_GRID = np.linspace(0.0, 1.0, 101)


def curve_at_grid(
    pos: np.ndarray, neg: np.ndarray, starts: np.ndarray, grid: np.ndarray
) -> np.ndarray:
    """``tpr`` at each ``grid`` rate per replicate and group, ``(R, G, T)`` (NaN without
    both classes), from ``(R, cells)`` counts in score-table order.

    The cells' negatives summed along the whole row, across groups, are one increasing
    sequence, so one ``searchsorted`` per replicate finds, for every group and rate at
    once, the last cell with ``fp <= fpr * n_neg`` (a loop over replicates, not rows).
    """
    n_groups, n_targets = len(starts), len(grid)
    ends = np.append(starts[1:], pos.shape[1])
    out = np.empty((pos.shape[0], n_groups, n_targets))
    for r in range(pos.shape[0]):  # replicates; each is vectorised over cells and groups
        cum_pos, cum_neg = np.cumsum(pos[r]), np.cumsum(neg[r])
        before_pos = np.concatenate([[0.0], cum_pos])[starts]
        before_neg = np.concatenate([[0.0], cum_neg])[starts]
        n_pos = cum_pos[ends - 1] - before_pos
        n_neg = cum_neg[ends - 1] - before_neg
        query = before_neg[:, None] + grid[None, :] * n_neg[:, None]  # (G, T)
        last = np.searchsorted(cum_neg, query.ravel(), side="right").reshape(query.shape) - 1
        last = np.minimum(last, (ends - 1)[:, None])
        inside = last >= starts[:, None]
        # The segment from the last cell at or below the rate (or the origin) to the next.
        fp0 = np.where(inside, cum_neg[np.maximum(last, 0)] - before_neg[:, None], 0.0)
        tp0 = np.where(inside, cum_pos[np.maximum(last, 0)] - before_pos[:, None], 0.0)
        following = np.minimum(last + 1, (ends - 1)[:, None])
        fp1 = cum_neg[following] - before_neg[:, None]
        tp1 = cum_pos[following] - before_pos[:, None]
        offset = query - before_neg[:, None] - fp0
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(fp1 > fp0, (tp1 - tp0) * np.clip(offset / (fp1 - fp0), 0, 1), 0.0)
            tpr = (tp0 + step) / n_pos[:, None]
        defined = (n_pos > 0) & (n_neg > 0)
        out[r] = np.where(defined[:, None], tpr, np.nan)
    return out


def band_per_group(
    prep: Prepared,
    table: pl.LazyFrame,
    *,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
) -> pl.LazyFrame:
    """``[*by, fpr, tpr, band_lower, band_upper]``: one plan node over the resampling
    cells, one row per group and grid rate (nulls for a group without both classes)."""
    cells = resampling_cells(prep, table)
    by = prep.by
    names = ["fpr", "tpr", "band_lower", "band_upper"]

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        sampler, keys = resampler(collected, by)
        starts = sampler.layout.starts
        tpr = curve_at_grid(*sampler.weights(), starts, BAND_GRID)[0]  # (groups, grid)

        def distance(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
            """The replicate curve's largest vertical distance to the estimate, ``(R, G)``."""
            return np.abs(curve_at_grid(pos, neg, starts, BAND_GRID) - tpr).max(axis=2)

        distances = sampler.collect(seed, n_boot, distance, progress=progress)
        width = np.full(distances.shape[1], np.nan)  # NaN for a group without both classes
        defined = ~np.isnan(distances).all(axis=0)
        width[defined] = np.nanquantile(distances[:, defined], conf_level, axis=0)
        lower = np.clip(tpr - width[:, None], 0.0, 1.0)
        upper = np.clip(tpr + width[:, None], 0.0, 1.0)
        n_groups = tpr.shape[0]
        repeated = keys[np.repeat(np.arange(n_groups), len(BAND_GRID))] if by else keys
        columns = [np.tile(BAND_GRID, n_groups), tpr.ravel(), lower.ravel(), upper.ravel()]
        series = [pl.Series(n, c, dtype=pl.Float64) for n, c in zip(names, columns, strict=True)]
        return keyed(repeated, series).fill_nan(None)

    return on_collected(cells, by, dict.fromkeys(names, pl.Float64), run)
