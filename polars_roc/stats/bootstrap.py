"""Stratified bootstrap drawn on the score table instead of on the rows.

Resampling the ``m`` positives of a group with replacement puts a multinomial number of
draws on each distinct score: ``Multinomial(m, rows_at_score / m)``; the negatives
likewise, independently (pROC's ``boot.stratified=TRUE``: each replicate keeps the
class sizes). Those counts are all a replicate's ROC curve needs, so one replicate
costs O(distinct scores), not O(rows), and nothing is sorted again.

Each group draws from its own random streams (one for its positives, one for its
negatives), derived from ``seed`` and the group's key values: a group's interval
depends only on its own rows and the seed, not on which other groups (or how many) are
in the data. The key values are hashed with SplitMix64 (as the folds module does; not
polars' ``hash``, whose values may change between releases) and the hash becomes the
``spawn_key`` of a numpy ``SeedSequence`` rooted at ``seed``. numpy draws from one
stream per call, so the draws are made per group (one ``multinomial`` call per group,
class and chunk of replicates, vectorised over replicates and cells); a stream is
consumed the same way whatever the chunk sizes, so chunking does not change the draws.
A Poisson bootstrap would be simpler still but lets the class sizes vary between
replicates, which pROC's stratified bootstrap does not.

Weights: rows are resampled (a drawn row brings its weight). The table keeps per cell
the row count and the weight sum, and a replicate gives a cell ``draws * weight_sum /
rows``: exact when the rows of a cell (same group, class and score) share one weight,
and otherwise it replaces their weights by their mean.

Reproducibility: the same rows of a group and the same seed give the same numbers,
whatever engine ran the plan and whatever other groups the data holds. Replicates are
drawn in chunks of at most ``CELL_BUDGET`` cells, which bounds memory for any ``n_boot``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import polars as pl

from polars_roc.stats.partial import Layout

__all__ = ["CELL_BUDGET", "Resampler", "key_hashes", "percentile_interval"]

# Replicates x cells held in memory at once (a few float64 arrays of this size).
CELL_BUDGET = 1 << 20
_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
# Class tags in a stream's spawn key.
_POS_STREAM, _NEG_STREAM = 0, 1


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser of a UInt64 array (wrapping arithmetic), as in ``_folds``."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(_GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
        return z ^ (z >> np.uint64(31))


def _column_words(column: pl.Series) -> list[np.ndarray]:
    """A key column as UInt64 words that identify its values (nulls flagged separately).

    Integers, booleans and temporal values hash their integer value; floats their bits
    (``-0.0`` as ``0.0``); anything else its text, UTF-8, eight bytes a word, and its
    length. Vectorised over the values; the loop runs over the words of the longest text.
    """
    is_null = column.is_null().to_numpy().astype(np.uint64)
    dtype = column.dtype
    if dtype.is_float():
        values = column.cast(pl.Float64).fill_null(0.0).to_numpy()
        values = np.where(values == 0.0, 0.0, values)  # -0.0 and 0.0 are one group
        return [is_null, np.ascontiguousarray(values).view(np.uint64)]
    if dtype == pl.Boolean or dtype.is_integer() or dtype.is_temporal():
        physical = column.to_physical()
        wide = pl.UInt64 if physical.dtype.is_unsigned_integer() else pl.Int64
        values = physical.cast(wide).fill_null(0).to_numpy()
        return [is_null, np.ascontiguousarray(values).view(np.uint64)]
    text = column.cast(pl.String).fill_null("")
    encoded = np.char.encode(text.to_numpy().astype(np.str_), "utf-8")
    width = -(-encoded.itemsize // 8) * 8
    padded = np.zeros((len(text), width), dtype=np.uint8)
    padded[:, : encoded.itemsize] = np.frombuffer(encoded.tobytes(), np.uint8).reshape(
        len(text), encoded.itemsize
    )
    words = padded.view("<u8").astype(np.uint64)
    length = text.str.len_bytes().cast(pl.UInt64).to_numpy()
    return [is_null, length, *words.T]


def key_hashes(keys: pl.DataFrame, n_groups: int) -> np.ndarray:
    """A UInt64 hash of each row of group ``keys`` (all zero when there are no keys).

    Depends only on the row's values (and the key columns' kinds), never on the other rows.
    """
    hashes = np.zeros(n_groups, dtype=np.uint64)
    for name in keys.columns:
        for word in _column_words(keys.get_column(name)):
            hashes = _splitmix64(hashes ^ word)
    return hashes


def _streams(hashes: np.ndarray, seed: int | None) -> list[tuple[np.random.Generator, ...]]:
    """Two generators per group (positives, negatives) rooted at ``seed`` and its key."""
    root = np.random.SeedSequence(seed)

    def stream(key: int, tag: int) -> np.random.Generator:
        sequence = np.random.SeedSequence(root.entropy, spawn_key=(key, tag))
        return np.random.Generator(np.random.PCG64(sequence))

    return [(stream(key, _POS_STREAM), stream(key, _NEG_STREAM)) for key in hashes.tolist()]


class Resampler:
    """Draws stratified bootstrap replicates of a table of cells.

    ``pos_rows``/``neg_rows`` are the rows of each class per cell, ``pos_weight`` /
    ``neg_weight`` their weight sums (equal to the row counts when unweighted),
    ``group_starts`` the first cell of each group (cells grouped, groups contiguous) and
    ``keys`` the groups' key values, one row per group (no columns when ungrouped).
    """

    def __init__(
        self,
        pos_rows: np.ndarray,
        neg_rows: np.ndarray,
        pos_weight: np.ndarray,
        neg_weight: np.ndarray,
        group_starts: np.ndarray,
        keys: pl.DataFrame,
    ) -> None:
        self.n_cells = len(pos_rows)
        ends = np.append(group_starts[1:], self.n_cells).astype(np.int64)
        starts = group_starts.astype(np.int64)
        self.rows = (pos_rows.astype(np.int64), neg_rows.astype(np.int64))
        with np.errstate(divide="ignore", invalid="ignore"):
            units = [w / r for w, r in ((pos_weight, pos_rows), (neg_weight, neg_rows))]
        self.unit_weight = tuple(
            np.where(rows > 0, unit, 0.0) for rows, unit in zip(self.rows, units, strict=True)
        )
        self.layout = Layout(starts, ends - starts)
        self.hashes = key_hashes(keys, len(starts))

    def _draw(self, streams: list[tuple[np.random.Generator, ...]], size: int) -> list[np.ndarray]:
        """Multinomial row counts per cell, ``(size, cells)`` for each class."""
        out = []
        for tag, rows in enumerate(self.rows):
            draws = np.zeros((size, self.n_cells), dtype=np.int64)
            totals: Any = np.add.reduceat(rows, self.layout.starts) if self.n_cells else []
            # numpy draws from one stream per call: one call per group and class, each
            # vectorised over replicates and cells.
            for group, (start, length) in enumerate(
                zip(self.layout.starts.tolist(), self.layout.lengths.tolist(), strict=True)
            ):
                total = int(totals[group]) if length else 0
                if total == 0:
                    continue
                cells = rows[start : start + length]
                draws[:, start : start + length] = streams[group][tag].multinomial(
                    total, cells / total, size=size
                )
            out.append(draws)
        return out

    def chunks(
        self, seed: int | None, n_boot: int, *, progress: bool = False
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(pos, neg)`` replicate weights, ``(chunk, cells)`` each, n_boot in all."""
        streams = _streams(self.hashes, seed)
        per_chunk = max(1, CELL_BUDGET // max(1, self.n_cells))
        report = _Progress(n_boot) if progress else None
        done = 0
        while done < n_boot:
            size = min(per_chunk, n_boot - done)
            pos, neg = self._draw(streams, size)
            yield pos * self.unit_weight[0], neg * self.unit_weight[1]
            done += size
            if report is not None:
                report.update(done)
        if report is not None:
            report.close()

    def collect(
        self,
        seed: int | None,
        n_boot: int,
        statistic: Callable[[np.ndarray, np.ndarray], np.ndarray],
        *,
        progress: bool = False,
    ) -> np.ndarray:
        """``statistic(pos, neg)`` of every replicate, stacked along the first axis."""
        return np.concatenate(
            [statistic(pos, neg) for pos, neg in self.chunks(seed, n_boot, progress=progress)]
        )


class _Progress:
    """Replicates done, on stderr: one updating line on a terminal (``\\r``), otherwise
    plain lines at each tenth of the work, so a log file gets a few readable lines."""

    def __init__(self, total: int) -> None:
        self.total = total
        isatty = getattr(sys.stderr, "isatty", None)
        self.terminal = bool(isatty and isatty())
        self.shown = 0  # tenths already written (plain lines)

    def update(self, done: int) -> None:
        line = f"bootstrap: {done}/{self.total} replicates"
        if self.terminal:
            print(f"\r{line}", end="", file=sys.stderr, flush=True)
            return
        tenths = done * 10 // self.total
        if tenths > self.shown:
            self.shown = tenths
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.terminal:
            print(file=sys.stderr)


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
