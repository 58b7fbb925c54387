"""The Polars executor of ``bins=``: rows streamed into dense arrays of cells.

The cells of the one bucketing scheme (:mod:`polars_roc.core.buckets`) are small
integers, ``group number x (bins + 4) + bucket``, known before the read. Polars'
streaming ``group_by`` over many keys keeps the rows to its end (pola-rs/polars#25607;
figures in benchmarks/README.md), so the rows come off the streaming engine in slices
and are added into numpy arrays indexed by cell: 32 bytes a cell, whatever the rows.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from polars_roc.core.validate import NEG, POS, SCORE

__all__ = ["CELL", "count_cells"]

CELL = "__roc_cell"
# Rows per slice taken off the streaming engine: the engine holds a few slices ahead
# (0.19 GiB at 2 x 10^6 rows, 0.10 at 5 x 10^5), at no cost in time.
CHUNK_ROWS = 500_000
# Past this many cells (4 arrays of 8 bytes: 0.5 GiB) Polars' group_by counts instead.
MAX_CELLS = 1 << 24


def count_cells(rows: pl.LazyFrame, cell: pl.Expr, n_cells: int, *, weighted: bool) -> pl.DataFrame:
    """``[__roc_cell, pos, neg, low, high]`` per occupied cell (``cell`` in ``[0,
    n_cells)``) of the internal ``rows`` (a row may hold mass of both classes); cells
    ascending; weights add in row order (the same bits every call)."""
    if n_cells > MAX_CELLS:
        aggs = [
            pl.col(POS).sum(),
            pl.col(NEG).sum(),
            pl.col(SCORE).min().alias("low"),
            pl.col(SCORE).max().alias("high"),
        ]
        return rows.group_by(cell.alias(CELL)).agg(aggs).sort(CELL).collect(engine="streaming")
    columns = rows.select(cell.alias(CELL), POS, NEG, SCORE)
    dtype = np.float64 if weighted else np.int64
    pos, neg = np.zeros(n_cells, dtype), np.zeros(n_cells, dtype)
    low, high = np.full(n_cells, np.inf), np.full(n_cells, -np.inf)
    batches = columns.collect_batches(
        chunk_size=CHUNK_ROWS, maintain_order=True, engine="streaming"
    )
    for batch in batches:
        at = batch[CELL].to_numpy()
        # ufunc.at adds in row order (bincount would sum each slice first); a class's
        # zero adds nothing to its sum (masses are not negative).
        np.add.at(pos, at, batch[POS].to_numpy())
        np.add.at(neg, at, batch[NEG].to_numpy())
        scores = batch[SCORE].to_numpy()
        np.minimum.at(low, at, scores)
        np.maximum.at(high, at, scores)
    # The dense arrays are let go once their occupied cells are taken (Polars shares
    # the compact arrays, no copy): the dense and the compact cells are not all held at once.
    occupied = np.flatnonzero(low <= high)
    pos, neg, low, high = pos[occupied], neg[occupied], low[occupied], high[occupied]
    return pl.DataFrame({CELL: occupied, POS: pos, NEG: neg, "low": low, "high": high})
