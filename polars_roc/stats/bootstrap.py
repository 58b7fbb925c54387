"""The stratified bootstrap drawn on the score table instead of on the rows, and the
intervals read off its replicates (percentile, BCa); docs/inference.md ("The bootstrap",
"BCa intervals") gives the method, the per-group random streams and the jackknife.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl
from scipy.special import ndtr, ndtri

from polars_roc.exceptions import UndefinedWarning
from polars_roc.stats.partial import Layout

__all__ = [
    "BCA_UNDEFINED",
    "CELL_BUDGET",
    "IntervalMethod",
    "Jackknife",
    "Resampler",
    "acceleration",
    "acceleration_terms",
    "bca_bounds",
    "bootstrap_interval",
    "key_hashes",
    "percentile_interval",
    "splitmix64_array",
    "warn_undefined",
]

IntervalMethod = Literal["percentile", "bca"]

# Replicates x cells held in memory at once (a few float64 arrays of this size).
CELL_BUDGET = 1 << 20
# SplitMix64's constants (the folds' polars version shares them).
GOLDEN, MIX1, MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
# Class tags in a stream's spawn key: the bootstrap's draws, then the jackknife's blocks.
_POS_STREAM, _NEG_STREAM = 0, 1
_JACKKNIFE_STREAMS = (2, 3)
_POOLED_STREAM = 4
# Leave-out values per class and group for the BCa acceleration: a group whose class
# lies in at most this many cells is jackknifed exactly, one cell at a time; a larger
# one by this many random blocks of its units.
JACKKNIFE_BLOCKS = 100


def splitmix64_array(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser of a UInt64 array (wrapping arithmetic), as in ``folds``."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
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
            hashes = splitmix64_array(hashes ^ word)
    return hashes


def _streams(
    hashes: np.ndarray, seed: int | None, tags: tuple[int, ...] = (_POS_STREAM, _NEG_STREAM)
) -> list[tuple[np.random.Generator, ...]]:
    """Two generators per group (positives, negatives) rooted at ``seed`` and its key;
    other ``tags`` give other streams of the same group (the jackknife's blocks)."""
    root = np.random.SeedSequence(seed)

    def stream(key: int, tag: int) -> np.random.Generator:
        sequence = np.random.SeedSequence(root.entropy, spawn_key=(key, tag))
        return np.random.Generator(np.random.PCG64(sequence))

    return [tuple(stream(key, tag) for tag in tags) for key in hashes.tolist()]


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

    def _draw(
        self, streams: list[tuple[np.random.Generator, ...]], size: int, stratified: bool
    ) -> np.ndarray:
        """Multinomial row counts per class and cell, ``(2, size, cells)``: each group's
        classes drawn apart, or (not ``stratified``) its rows regardless of class from its
        first stream. numpy draws from one stream per call: one call per group and sample,
        each vectorised over replicates and cells."""
        draws = np.zeros((2, size, self.n_cells), dtype=np.int64)
        for group, (start, length) in enumerate(
            zip(self.layout.starts.tolist(), self.layout.lengths.tolist(), strict=True)
        ):
            cells = np.stack([rows[start : start + length] for rows in self.rows])
            samples = cells if stratified else cells.reshape(1, -1)
            for tag, sample in enumerate(samples):
                total = int(sample.sum())
                if total == 0:
                    continue
                drawn = streams[group][tag].multinomial(total, sample / total, size=size)
                if stratified:
                    draws[tag, :, start : start + length] = drawn
                else:
                    draws[:, :, start : start + length] = drawn.reshape(size, 2, length).swapaxes(
                        0, 1
                    )
        return draws

    def chunks(
        self, seed: int | None, n_boot: int, *, progress: bool = False, stratified: bool = True
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(pos, neg)`` replicate weights, ``(chunk, cells)`` each, n_boot in all;
        not ``stratified``: each group's rows drawn regardless of class (pROC's
        ``boot.stratified=FALSE``)."""
        streams = _streams(self.hashes, seed)
        per_chunk = max(1, CELL_BUDGET // max(1, (1 if stratified else 2) * self.n_cells))
        report = _Progress(n_boot) if progress else None
        for done in range(0, n_boot, per_chunk):
            size = min(per_chunk, n_boot - done)
            pos, neg = self._draw(streams, size, stratified)
            yield pos * self.unit_weight[0], neg * self.unit_weight[1]
            if report is not None:
                report.update(done + size)
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

    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        """The table itself (no resampling), ``(1, cells)`` per class: the estimate's input."""
        pos, neg = (rows * unit for rows, unit in zip(self.rows, self.unit_weight, strict=True))
        return pos[None, :], neg[None, :]

    def jackknife(
        self, seed: int | None, statistic: Callable[[np.ndarray, np.ndarray], np.ndarray]
    ) -> tuple[Jackknife, Jackknife]:
        """Leave-out values of ``statistic`` per class (see the module's notes on BCa).

        Row ``k`` of a class leaves out, in every group at once (groups are independent),
        one unit of the group's ``k``-th cell holding that class (exact groups) or the
        group's ``k``-th random block of units (larger groups), the other class intact.
        """
        streams = _streams(self.hashes, seed, _JACKKNIFE_STREAMS)
        pos, neg = (
            self._jackknife(statistic, rows, self.layout, [s[tag] for s in streams], tag)
            for tag, rows in enumerate(self.rows)
        )
        return pos, neg

    def pooled_jackknife(
        self, seed: int | None, statistic: Callable[[np.ndarray, np.ndarray], np.ndarray]
    ) -> Jackknife:
        """Leave-out values of ``statistic`` for the bootstrap that draws a group's rows
        regardless of class (``threshold_ci(stratified=False)``): one sample of all the
        group's units, both classes, left out as :meth:`jackknife` leaves out a class."""
        starts, lengths = self.layout.starts, self.layout.lengths
        group_of = np.repeat(np.arange(self.layout.n_groups), lengths)
        # The group's positive cells, then its negative cells, group after group.
        pos_at = 2 * starts[group_of] + (np.arange(self.n_cells) - starts[group_of])
        neg_at = pos_at + lengths[group_of]
        rows = np.zeros(2 * self.n_cells, dtype=np.int64)
        rows[pos_at], rows[neg_at] = self.rows
        streams = [s for (s,) in _streams(self.hashes, seed, (_POOLED_STREAM,))]
        layout = Layout(2 * starts, 2 * lengths)
        return self._jackknife(statistic, rows, layout, streams, (pos_at, neg_at))

    def _jackknife(
        self,
        statistic: Callable[[np.ndarray, np.ndarray], np.ndarray],
        rows: np.ndarray,
        layout: Layout,
        streams: list[np.random.Generator],
        taken_from: int | tuple[np.ndarray, np.ndarray],
    ) -> Jackknife:
        """``statistic`` on the table less the units :func:`_leave_out` takes out of
        ``rows`` (laid out by ``layout``), in chunks, entries group-major. ``taken_from``:
        the class ``rows`` are (0, 1), or where each class's cells lie in them."""
        removed, multiplicity, blocked = _leave_out(rows, layout, streams)
        taken: tuple[np.ndarray | None, np.ndarray | None]
        if isinstance(taken_from, int):
            taken = (removed, None) if taken_from == 0 else (None, removed)
        else:
            taken = (removed[:, taken_from[0]], removed[:, taken_from[1]])
        base = self.weights()
        values = []
        per_chunk = max(1, CELL_BUDGET // max(1, self.n_cells))
        for first in range(0, JACKKNIFE_BLOCKS, per_chunk):
            size = min(per_chunk, JACKKNIFE_BLOCKS - first)
            pos, neg = (
                np.broadcast_to(w, (size, self.n_cells))
                if t is None
                else w - t[first : first + size] * u
                for w, t, u in zip(base, taken, self.unit_weight, strict=True)
            )
            values.append(statistic(pos, neg))
        stacked = np.concatenate(values)  # (blocks, groups, *extra)
        units = np.add.reduceat(rows, layout.starts) if self.n_cells else rows[:0]
        return Jackknife(
            values=np.swapaxes(stacked, 0, 1).reshape(-1, *stacked.shape[2:]),
            multiplicity=multiplicity.T.ravel(),
            removed=np.add.reduceat(removed, layout.starts, axis=1).T.ravel(),
            starts=np.arange(self.layout.n_groups) * JACKKNIFE_BLOCKS,
            units=units.astype(np.float64),
            blocks=np.where(blocked, float(JACKKNIFE_BLOCKS), 0.0),
        )


def _leave_out(
    rows: np.ndarray, layout: Layout, streams: list[np.random.Generator]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Units left out per jackknife row and cell ``(K, cells)`` of ``rows``, the
    multiplicity of each row's value per group ``(K, groups)`` and which groups use
    random blocks (drawn from the group's stream)."""
    k = JACKKNIFE_BLOCKS
    removed = np.zeros((k, len(rows)), dtype=np.int64)
    multiplicity = np.zeros((k, layout.n_groups))
    blocked = np.zeros(layout.n_groups, dtype=bool)
    for group, (start, length) in enumerate(
        zip(layout.starts.tolist(), layout.lengths.tolist(), strict=True)
    ):
        cells = rows[start : start + length]
        holding = np.flatnonzero(cells > 0)
        if len(holding) <= k:
            # Exact: one unit out of each cell holding the class, the cell's rows alike.
            removed[np.arange(len(holding)), start + holding] = 1
            multiplicity[: len(holding), group] = cells[holding]
            continue
        blocked[group] = True
        multiplicity[:, group] = 1.0
        remaining = cells.copy()
        # Block j of K: each remaining unit with probability 1 / (K - j), so that
        # every unit falls in one block, each block with probability 1 / K.
        for block in range(k - 1):
            taken = streams[group].binomial(remaining, 1.0 / (k - block))
            removed[block, start : start + length] = taken
            remaining -= taken
        removed[k - 1, start : start + length] = remaining
    return removed, multiplicity, blocked


@dataclass(frozen=True)
class Jackknife:
    """Leave-out values of a statistic for one class, entries grouped by group.

    ``values`` ``(entries, *extra)``; ``multiplicity`` how many of the class's units
    each value stands for (an exact jackknife) or 1 (a block); ``removed`` the units
    left out; ``starts`` each group's first entry; ``units`` the class's units per
    group; ``blocks`` the number of random blocks per group, 0 where exact.
    """

    values: np.ndarray
    multiplicity: np.ndarray
    removed: np.ndarray
    starts: np.ndarray
    units: np.ndarray
    blocks: np.ndarray


def acceleration(classes: tuple[Jackknife, ...]) -> np.ndarray:
    """BCa's acceleration per group (``(groups, *extra)``), as ``scipy.stats.bootstrap``
    for independent samples; NaN where a leave-out value is undefined."""
    numerator, denominator = acceleration_terms(classes)
    with np.errstate(divide="ignore", invalid="ignore"):
        return numerator / (6.0 * denominator**1.5)


def acceleration_terms(classes: tuple[Jackknife, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The sums of cubes and of squares of the influence values per group, over the
    classes: :func:`acceleration` is ``cubes / (6 squares^1.5)``. Independent samples
    add their terms, so the acceleration of a difference of two groups' statistics is
    ``(cubes_a - cubes_b) / (6 (squares_a + squares_b)^1.5)`` (the second group's
    influence values change sign)."""
    numerator: Any = 0.0
    denominator: Any = 0.0
    for jack in classes:
        extra = (slice(None), *([None] * (jack.values.ndim - 1)))
        weight = jack.multiplicity[extra]
        used = weight > 0
        values = np.where(used, jack.values, 0.0)

        def total(x: np.ndarray, starts: np.ndarray = jack.starts) -> np.ndarray:
            return np.add.reduceat(x, starts, axis=0)

        group_of = np.repeat(
            np.arange(len(jack.starts)), np.diff(np.append(jack.starts, len(values)))
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = total(weight * values) / total(np.broadcast_to(weight, values.shape))
            units = jack.units[extra]
            influence = (jack.units[group_of] - jack.removed)[extra] * (mean[group_of] - values)
            influence = np.where(used, influence, 0.0)
            cubes = total(weight * influence**3) / units**3
            squares = total(weight * influence**2) / units**2
            blocks = jack.blocks[extra]
            # A block sums its units' influence values: the expected sums of squares and
            # cubes over random blocks are the units' sums times these factors.
            cubes = np.where(blocks > 0, cubes / ((1 - 1 / blocks) * (1 - 2 / blocks)), cubes)
            squares = np.where(blocks > 0, squares / (1 - 1 / blocks), squares)
        numerator = numerator + cubes
        denominator = denominator + squares
    return numerator, denominator


def bca_bounds(
    values: np.ndarray, estimate: np.ndarray, accel: np.ndarray, conf_level: float
) -> tuple[np.ndarray, np.ndarray]:
    """BCa ``(lower, upper)`` along axis 0 of the replicates ``values``, ignoring NaN.

    ``z0`` counts the replicates below the estimate, ties one half (scipy's); the
    quantiles interpolate linearly at the adjusted levels, as :func:`percentile_interval`.
    NaN where there are fewer than two replicates or a level is undefined (every
    replicate on one side of the estimate, or an undefined acceleration).
    """
    finite = ~np.isnan(values)
    count = finite.sum(axis=0)
    below = (values < estimate).sum(axis=0) + (values <= estimate).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = ndtri(below / (2.0 * count))
        z_tail = ndtri((1.0 - conf_level) / 2.0)
        levels = []
        for z in (z_tail, -z_tail):
            shifted = z0 + z
            levels.append(ndtr(z0 + shifted / (1.0 - accel * shifted)))
    ordered = np.sort(values, axis=0)  # NaN last
    bounds = []
    for level in levels:
        usable = np.isfinite(level) & (count > 1)
        position = np.where(usable, (count - 1) * np.where(usable, level, 0.0), 0.0)
        low = np.floor(position).astype(np.int64)
        high = np.minimum(low + 1, np.maximum(count - 1, 0))
        at_low = np.take_along_axis(ordered, low[None], axis=0)[0]
        at_high = np.take_along_axis(ordered, high[None], axis=0)[0]
        bound = at_low + (position - low) * (at_high - at_low)
        bounds.append(np.where(usable, bound, np.nan))
    return bounds[0], bounds[1]


def warn_undefined(keys: pl.DataFrame, undefined: np.ndarray, what: str, why: str) -> None:
    """Warn, naming the groups (rows of ``keys``; none when ungrouped) where
    ``undefined`` holds: ``what`` is null there, ``why`` says why and what to do."""
    if not undefined.any():
        return
    if keys.width:
        rows = keys.filter(pl.Series(undefined)).head(10).iter_rows(named=True)
        names = ["; ".join(f"{k}={v!r}" for k, v in row.items()) for row in rows]
        count = int(undefined.sum())
        more = f" and {count - 10} more" if count > 10 else ""
        where = f"{count} group(s) [{'; '.join(names)}{more}]: "
    else:
        where = ""
    warnings.warn(f"{where}{what} is null: {why}", UndefinedWarning, stacklevel=2)


BCA_UNDEFINED = (
    "the BCa correction is undefined where the replicates or the leave-one-out values "
    "do not vary (e.g. an AUC of 1); ci_method='percentile' gives the percentile interval"
)


def bootstrap_interval(
    values: np.ndarray,
    conf_level: float,
    *,
    method: IntervalMethod,
    estimate: np.ndarray,
    accelerate: Callable[[], np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(se, lower, upper)`` of the replicates ``values`` along axis 0: the percentile
    interval, or with ``method="bca"`` the BCa interval around ``estimate`` with the
    acceleration ``accelerate()`` (computed only then: it costs a jackknife)."""
    se, lower, upper = percentile_interval(values, conf_level)
    if method == "bca":
        lower, upper = bca_bounds(values, estimate, accelerate(), conf_level)
    return se, lower, upper


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
