"""The score table: the single place where rows are sorted and counted.

For every group and distinct score it holds the (weighted) number of positives and
negatives at that score and, cumulated from the highest score down, ``tp`` and ``fp``:
the positives and negatives with ``score >= threshold``. Ties are grouped here, once, so
a run of equal scores is one row (one diagonal step of the ROC curve). Every view
(curve, AUC, confusion at thresholds, ...) is a small computation over this table.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_roc.core.auc import auc_bound, auc_from_counts
from polars_roc.core.compat import bits_as_float, float_as_bits
from polars_roc.core.counting import count_rows
from polars_roc.core.validate import (
    NEG,
    POS,
    SCORE,
    Direction,
    Frame,
    NullPolicy,
    Prepared,
    check_choice,
)

__all__ = [
    "build",
    "group_end",
    "group_start",
    "pair_counts",
    "pair_counts_from_table",
    "score_table",
    "sorted_key_pair_counts",
]

Path = Literal["auto", "hash", "sort", "dense", "bins"]

# Counting distinct scores in a hash table beats sorting all rows when scores repeat a
# lot (rounded probabilities, scorecards). Measured on 5M rows: hash 0.3x the plain sort
# at 1k distinct scores, even with the packed-key sort (0.7-1x) near 1-2% distinct,
# far slower above; see `python benchmarks/bench_core.py --crossover`.
HASH_PATH_MAX_DISTINCT_RATIO = 0.01

# Grouped pair counts of few distinct scores index a dense (group, score, class) array
# of counts. Up to this many (group, score) cells (24 bytes each at the peak) it is
# filled by one bincount; past it the occupied cells are counted after a sort instead.
DENSE_MIN_CELLS = 1 << 20
DENSE_MAX_CELLS = 1 << 24

KEY = "__roc_key"
GROUP = "__roc_group"
_I64_MAX = (1 << 63) - 1


def _row_is_first(columns: Sequence[str]) -> pl.Expr:
    """True on the first row of each run of equal ``columns`` (in the current order)."""
    first_row = pl.int_range(pl.len()) == 0
    changed = [pl.col(c).ne_missing(pl.col(c).shift(1)) for c in columns]
    return pl.any_horizontal(first_row, *changed)


def _row_is_last(columns: Sequence[str]) -> pl.Expr:
    """True on the last row of each run of equal ``columns`` (in the current order)."""
    last_row = pl.int_range(pl.len()) == pl.len() - 1
    changed = [pl.col(c).ne_missing(pl.col(c).shift(-1)) for c in columns]
    return pl.any_horizontal(last_row, *changed)


def group_start(by: Sequence[str]) -> pl.Expr:
    """First row of each group of a frame sorted by ``by``."""
    return _row_is_first(by) if by else pl.int_range(pl.len()) == 0


def group_end(by: Sequence[str]) -> pl.Expr:
    """Last row of each group of a frame sorted by ``by``."""
    return _row_is_last(by) if by else pl.int_range(pl.len()) == pl.len() - 1


def cumulate(column: str, by: Sequence[str], *, weighted: bool = True) -> pl.Expr:
    """Cumulative sum of ``column`` restarting at each group of a frame sorted by ``by``.

    Integer counts: one running sum over the whole frame minus the sum before the group
    began (exact, and no window function). Float weights: a sum per group, because the
    difference of two large running sums would lose a small group's digits.
    """
    running = pl.col(column).cum_sum()
    if not by:
        return running
    if weighted:
        return running.over(by)
    before_group = pl.when(group_start(by)).then(running - pl.col(column)).forward_fill()
    return running - before_group


def cell_sum(column: str, *, weighted: bool) -> pl.Expr:
    """Sum of ``column`` in a ``group_by``: integer counts are exact in any order; float
    weights are summed from the group's list of values, which Polars keeps in row order,
    since a plain ``sum`` adds thread-dependent partial sums and varied in the last bits
    from run to run (issue 24). Measured 2-3x a plain sum, 3.5x faster than a running
    sum's last value when most groups hold one row (2 x 10^6 rows)."""
    return pl.col(column).implode().list.sum() if weighted else pl.col(column).sum()


# -- Packed sort keys --------------------------------------------------------------------
# Unweighted rows are sorted as ONE integer column: the score's order-preserving bits
# (descending) and the class in the lowest bit, positives (0) before negatives (1) within
# a tie. Sorting one UInt64 measured faster than sorting the Float64 score itself, and
# far faster than a multi-column frame sort; counts then follow from positions in the
# sorted keys. Bitwise `& 1` / `| 1` read the class and the score part: `% 2` measured
# 5x slower. See benchmarks/README.md.


def _order_bits(score: float) -> int:
    """The integer :func:`_order_bits_expr` gives for one Float64 score."""
    (bits,) = struct.unpack("<q", struct.pack("<d", score + 0.0))  # -0.0 + 0.0 is 0.0
    return bits ^ _I64_MAX if bits < 0 else bits


def _order_bits_expr(score: pl.Expr) -> pl.Expr:
    """Int64 ordered as the Float64 ``score`` (IEEE-754 bits, negative floats flipped).

    Negative floats have the sign bit set; flipping their other bits reverses their
    order, so that integer order equals float order. ``-0.0`` must be normalised first.
    """
    bits = float_as_bits(score)
    return pl.when(bits < 0).then(bits.xor(pl.lit(_I64_MAX, pl.Int64))).otherwise(bits)


def _from_order_bits(bits: pl.Expr) -> pl.Expr:
    """Inverse of :func:`_order_bits_expr`."""
    bits = bits.cast(pl.Int64)
    flipped = pl.when(bits < 0).then(bits.xor(pl.lit(_I64_MAX, pl.Int64))).otherwise(bits)
    return bits_as_float(flipped)


def _packed_key(prep: Prepared) -> tuple[pl.Expr, int, pl.DataType]:
    """``(highest - bits) * 2 + is_negative`` per row, the top score, and the key dtype.

    UInt64 when the scores' bits span less than 2**63, which leaves room for the class
    bit (scores all of one sign, or all within (-2, 2)); else Int128, about twice as slow
    to sort and count (logits, say).
    """
    low, high = prep.score_range or (0.0, 0.0)
    top = _order_bits(high)
    neg = pl.col(NEG)
    if top - _order_bits(low) < 1 << 63:
        below_top = pl.lit(top, pl.Int64) - _order_bits_expr(pl.col(SCORE))  # < 2**63
        return below_top.cast(pl.UInt64) * 2 + neg.cast(pl.UInt64), top, pl.UInt64()
    below_top = pl.lit(top, pl.Int128) - _order_bits_expr(pl.col(SCORE)).cast(pl.Int128)
    return below_top * 2 + neg.cast(pl.Int128), top, pl.Int128()


def _threshold_of(key: pl.Expr, prep: Prepared) -> pl.Expr:
    """The score a packed key was made from."""
    low, high = prep.score_range or (0.0, 0.0)
    top = _order_bits(high)
    if top - _order_bits(low) < 1 << 63:  # a UInt64 key: key // 2 < 2**63
        bits = pl.lit(top, pl.Int64) - (key // 2).cast(pl.Int64)
    else:
        bits = (pl.lit(top, pl.Int128) - (key // 2).cast(pl.Int128)).cast(pl.Int64)
    if low >= 0.0:  # no negative floats, whose bits need flipping back
        return bits_as_float(bits)
    return _from_order_bits(bits)


def _sorted_groups(prep: Prepared, key: pl.Expr) -> pl.LazyFrame:
    """``[*by, __roc_group, __roc_key (list), start]``: each group's keys sorted, groups
    sorted; ``start`` is the group's first position once the lists are exploded."""
    n = pl.col(KEY).list.len().cast(pl.Int64)
    # Gathering each group's keys, then sorting the lists, measured faster than
    # sorting inside the aggregation.
    return (
        prep.frame.select(*prep.by, key.alias(KEY))
        .group_by(prep.by)
        .agg(KEY)
        .sort(prep.by, nulls_last=False)
        .with_columns(pl.col(KEY).list.sort())
        .with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias(GROUP))
        .with_columns((n.cum_sum() - n).alias("__roc_start"))
    )


def _packed_table(prep: Prepared) -> pl.LazyFrame:
    """Score table of unweighted rows from one sort of packed keys (see above)."""
    key, _, _ = _packed_key(prep)
    k = pl.col(KEY)
    at = pl.int_range(pl.len(), dtype=pl.Int64)
    is_neg = (k & 1).cast(pl.Int64)
    # The last row of each run of one score: its key, class bit aside, changes next.
    run_end = ((k | 1) != (k.shift(-1) | 1)).fill_null(True)
    if not prep.by:
        rows = prep.frame.select(key.sort().alias(KEY), pl.lit(0, pl.Int64).alias("__roc_start"))
        fp = is_neg.cum_sum()
    else:
        n_neg = pl.col(KEY).list.eval((pl.element() & 1).cast(pl.Int64).sum()).list.first()
        rows = (
            _sorted_groups(prep, key)
            .with_columns(n_neg.alias("n_neg"))
            .select(
                *prep.by,
                "__roc_start",
                pl.col(KEY).list.len().cast(pl.Int64).alias("__roc_n"),
                (pl.col("n_neg").cum_sum() - pl.col("n_neg")).alias("__roc_neg_before"),
                KEY,
            )
            .explode(KEY)
        )
        # One running count over all groups minus the negatives of earlier groups.
        fp = is_neg.cum_sum() - pl.col("__roc_neg_before")
        run_end = run_end | (at == pl.col("__roc_start") + pl.col("__roc_n") - 1)
    table = rows.select(
        *prep.by,
        "__roc_start",
        k,
        (at - pl.col("__roc_start") + 1 - fp).alias("tp"),
        fp.alias("fp"),
        run_end.alias("__roc_run_end"),
    ).filter("__roc_run_end")
    cumulated = (("tp", "pos", "n_pos"), ("fp", "neg", "n_neg"))
    if prep.by:
        first = pl.col("__roc_start").ne_missing(pl.col("__roc_start").shift(1))
        last = pl.col("__roc_start").ne_missing(pl.col("__roc_start").shift(-1))
        steps = [
            pl.when(first).then(pl.col(c)).otherwise(pl.col(c) - pl.col(c).shift(1)).alias(s)
            for c, s, _ in cumulated
        ]
        totals = [pl.when(last).then(pl.col(c)).backward_fill().alias(t) for c, _, t in cumulated]
    else:
        steps = [pl.col(c).diff().fill_null(pl.col(c)).alias(s) for c, s, _ in cumulated]
        # Totals as full columns (`+ 0 * tp`), not broadcast scalars: polars 2.1 divides
        # by a scalar column through its rounded reciprocal (3 / 5 -> 0.6000000000000001).
        totals = [(pl.col(c).last() + 0 * pl.col(c)).alias(t) for c, _, t in cumulated]
    return table.select(
        *prep.by,
        _threshold_of(k, prep).alias("threshold"),
        *steps,
        "tp",
        "fp",
        *totals,
    )


def build(prep: Prepared, *, path: Path = "auto") -> pl.LazyFrame:
    """Score table of a prepared frame.

    Returns a lazy frame ``[*by, threshold, pos, neg, tp, fp, n_pos, n_neg]`` sorted by the
    group columns (ascending, nulls first) and ``threshold`` descending, with one row per
    group and distinct score. ``pos``/``neg`` count the rows at that score, ``tp``/``fp``
    those at or above it, ``n_pos``/``n_neg`` the group totals.

    ``path`` picks how unweighted rows are counted: ``"hash"`` counts per distinct score
    then sorts those, ``"sort"`` sorts packed integer keys, ``"dense"`` (grouped only)
    counts through group and score codes; ``"auto"`` chooses from the share of distinct
    scores. Weighted rows always take a stable sort and running sums, so float weights
    add in one order and results are the same on every run.
    """
    by = prep.by
    keys = [*by, SCORE]
    descending = [False] * len(by) + [True]
    path = _choose_path(prep, path)
    if path == "bins":
        return _binned_table(prep).cache()
    if path == "dense":
        # Cached before the projection: `.drop(...).cache()` of this plan panics in the
        # optimizer of Polars 2.1 (cse::cache_states); cached first, then dropped, it runs.
        return _dense_table(prep).cache().drop(GROUP)
    if path == "sort" and not prep.weighted:
        # Cached: views that read the table twice (start rows, as-of joins) sort once.
        return _packed_table(prep).cache()
    if prep.weighted:
        # Float weights: a hash aggregation sums them in a thread-dependent order, so
        # the last bits could change from run to run. A stable sort then running sums
        # (per group) always add in row order: reproducible, whatever the engine.
        running = (
            prep.frame.sort(keys, descending=descending, nulls_last=False, maintain_order=True)
            .with_columns(tp=cumulate(POS, by), fp=cumulate(NEG, by))
            .filter(_row_is_last(keys))
        )
        table = running.with_columns(
            pl.when(group_start(by))
            .then(pl.col(c))
            .otherwise(pl.col(c) - pl.col(c).shift(1))
            .alias(col)
            for c, col in (("tp", POS), ("fp", NEG))
        )
    else:
        # Count per distinct score first, then sort only the distinct scores.
        counts = prep.frame.group_by(keys).agg(pl.col(POS).sum(), pl.col(NEG).sum())
        counts = counts.sort(keys, descending=descending, nulls_last=False)
        if prep.counted:
            # A zero count stands for no row: its score is not in the data. A group of
            # zero counts only keeps one cell of no mass, as a group of zero weights
            # (null rates, one warning; see docs/conventions.md).
            mass = pl.col(POS) + pl.col(NEG)
            empty = mass.sum().over(by) == 0 if by else mass.sum() == 0
            counts = counts.filter((mass > 0) | (empty & group_start(by)))
        table = counts.with_columns(
            tp=cumulate(POS, by, weighted=False), fp=cumulate(NEG, by, weighted=False)
        )
    at_end = group_end(by)
    return table.select(
        *by,
        pl.col(SCORE).alias("threshold"),
        pl.col(POS).alias("pos"),
        pl.col(NEG).alias("neg"),
        "tp",
        "fp",
        pl.when(at_end).then(pl.col("tp")).backward_fill().alias("n_pos"),
        pl.when(at_end).then(pl.col("fp")).backward_fill().alias("n_neg"),
    ).cache()


MIXED = "__roc_mixed"
BUCKET = "__roc_bucket"
# The one group of an ungrouped log, so grouped and ungrouped cells share the code.
_ALL = "__roc_all"

# Polars 2.1's streaming group_by partitions every row before it builds its hash
# tables (pola-rs/polars#25607): with many keys (10^6-10^7 cells) its memory grows with
# the rows, ~12-26 bytes a row measured. The binned counter therefore takes the rows off
# the streaming engine in slices of this many rows and adds each slice into the running
# cells (sums, minima and maxima merge), so the memory is that of one slice plus the
# cells, whatever the rows.
CHUNK_ROWS = 2_000_000

# At this shift every order bit but the sign is dropped: the keys are -1 (negative
# scores) and 0, at most 2 buckets (shifting further changes nothing).
_MAX_SHIFT = 63


def _shifted(key: pl.Expr, shift: pl.Expr) -> pl.Expr:
    """``key >> shift`` (floor division by ``2**shift``, 0 <= shift <= 63) of an Int64.

    Floor division keeps the order of negative keys too; two steps, because 2**63
    does not fit an Int64.
    """
    first = pl.min_horizontal(shift, pl.lit(62, pl.Int64))
    two = pl.lit(2, pl.Int64)
    return key // two.pow(first) // two.pow(shift - first)


def _top_bit(bits: pl.Expr) -> pl.Expr:
    """Position + 1 of the highest set bit of an Int64 read as unsigned (0 for 0)."""
    return 64 - bits.bitwise_leading_zeros().cast(pl.Int64)


class _BinnedCells:
    """Cells ``(group, key)`` of one read of the rows, with ``key = order_bits >> shift``.

    The order bits of a score (:func:`_order_bits_expr`) are a monotone Int64 image of
    it, one value per distinct score (the internal score has no -0.0; +-inf are the
    ends), so a bucket of keys is a range of scores and equal scores share a bucket.
    Each group has its own ``shift``: the smallest that leaves it at most ``bins``
    occupied buckets, so a group of narrow scores gets fine buckets. Coarsening is
    exact: the cells at ``shift + k`` are the cells at ``shift`` grouped by
    ``key >> k``, positives and negatives summed, the lowest score the minimum, the
    highest the maximum. Rows only add occupied buckets, so raising a group's shift
    whenever it holds more than ``bins`` buckets ends at the shift computed from all
    rows at once: the cells do not depend on the slicing.

    Every cell keeps ``[*by, key, pos, neg, low, high]``: ``low`` and ``high`` are the
    lowest and highest score with a positive weight or count, in the score's own
    dtype (Float32 stays 4 bytes). Rows of zero weight or count are no rows here.

    Each slice is aggregated to its cells at the current shifts (one hash aggregation
    of the slice); the slices' cells wait until they are a quarter of the running
    cells (or a slice's worth), then are merged into them and coarsened (measured:
    26 s and 2.2 GiB for the benchmark's 2 x 10^7 rows, against 38 s and 2.6 GiB
    when waiting for as many as the running cells).
    """

    def __init__(self, prep: Prepared) -> None:
        self.groups = prep.by or [_ALL]
        self.bins = prep.bins or 2
        self.weighted = prep.weighted
        self.dtype = pl.Float32 if prep.score_dtype == pl.Float32 else pl.Float64
        schema = prep.frame.collect_schema()
        groups: dict[str, pl.DataType] = (
            {c: schema[c] for c in prep.by} if prep.by else {_ALL: pl.UInt8()}
        )
        count = prep.count_dtype
        cells: dict[str, pl.DataType] = {**groups, KEY: pl.Int64(), POS: count, NEG: count}
        self.cells = pl.DataFrame(schema={**cells, "low": self.dtype(), "high": self.dtype()})
        self.shifts = pl.DataFrame(schema={**groups, "shift": pl.Int64})
        self.flags = pl.DataFrame(schema={**groups, "has_pos": pl.Boolean, "has_neg": pl.Boolean})
        self.waiting: list[pl.DataFrame] = []
        self.waiting_rows = 0

    def add(self, rows: pl.LazyFrame) -> None:
        """Count one slice of internal rows ``[*by, score, pos, neg]``."""
        if self.groups == [_ALL]:
            rows = rows.with_columns(pl.lit(0, pl.UInt8).alias(_ALL))
        # Null and NaN scores are refused at the end of the read, and rows of zero
        # weight or count are no rows: none of them is counted.
        counted = ((pl.col(POS) + pl.col(NEG)) > 0) & pl.col(SCORE).is_not_nan()
        shift = pl.col("shift").fill_null(0)
        score = pl.col(SCORE).cast(self.dtype)
        cells = (
            rows.filter(counted)
            # Rows, and cells (groups in order of first row), in one order on every
            # run: float weights then add in one order (see cell_sum).
            .join(
                self.shifts.lazy(),
                on=self.groups,
                how="left",
                nulls_equal=True,
                maintain_order="left",
            )
            .group_by(
                *self.groups,
                _shifted(_order_bits_expr(pl.col(SCORE)), shift).alias(KEY),
                maintain_order=self.weighted,
            )
            .agg(
                cell_sum(POS, weighted=self.weighted),
                cell_sum(NEG, weighted=self.weighted),
                score.min().alias("low"),
                score.max().alias("high"),
            )
        )
        flags = rows.group_by(self.groups).agg(
            (pl.col(POS) > 0).any().alias("has_pos"), (pl.col(NEG) > 0).any().alias("has_neg")
        )
        found, flagged = pl.collect_all([cells, flags])
        self.flags = (
            pl.concat([self.flags, flagged])
            .group_by(self.groups)
            .agg(pl.col("has_pos").any(), pl.col("has_neg").any())
        )
        self.waiting.append(found)
        self.waiting_rows += len(found)
        if self.waiting_rows >= max(len(self.cells) // 4, CHUNK_ROWS):
            self._merge()

    def classes(self) -> pl.DataFrame:
        """``[*by, n_pos, n_neg]``: 1 where the group holds a row of that class, else 0."""
        found = self.flags.select(
            *self.groups,
            pl.col("has_pos").cast(pl.Int64).alias("n_pos"),
            pl.col("has_neg").cast(pl.Int64).alias("n_neg"),
        )
        return found.drop(_ALL) if self.groups == [_ALL] else found

    def result(self, by: list[str]) -> pl.DataFrame:
        """``[*by, key, pos, neg, low, high, shift]`` at the final shifts, sorted by
        group (nulls first) then key descending: each group's highest bucket first."""
        self._merge()
        cells = self.cells.join(self.shifts, on=self.groups, nulls_equal=True)
        cells = cells.sort(
            [*self.groups, KEY], descending=[False] * len(self.groups) + [True], nulls_last=False
        )
        return cells.select(*by, KEY, POS, NEG, "low", "high", "shift")

    def _aggregated(self, frame: pl.DataFrame) -> pl.DataFrame:
        return (
            frame.lazy()
            .group_by([*self.groups, KEY], maintain_order=self.weighted)
            .agg(
                cell_sum(POS, weighted=self.weighted),
                cell_sum(NEG, weighted=self.weighted),
                pl.col("low").min(),
                pl.col("high").max(),
            )
            .collect()
        )

    def _merge(self) -> None:
        """The waiting cells (at the current shifts) into the running cells, then
        coarsened; a group seen for the first time starts at shift 0."""
        if not self.waiting:
            return
        self.cells = self._aggregated(pl.concat([self.cells, *self.waiting]))
        self.waiting, self.waiting_rows = [], 0
        self.shifts = (
            self.cells.select(self.groups)
            .unique()
            .join(self.shifts, on=self.groups, how="left", nulls_equal=True)
            .with_columns(pl.col("shift").fill_null(0))
        )
        self._coarsen()

    def _coarsen(self) -> None:
        """Raise the shift of every group holding more than ``bins`` buckets to the
        smallest that holds at most ``bins``.

        Two adjacent distinct keys ``a < b`` of a group share a bucket after ``k`` more
        bits iff ``k >= top_bit(a ^ b)``; so ``k`` leaves ``1 + #{pairs with
        top_bit > k}`` buckets, and the smallest ``k`` leaving at most ``bins`` is the
        ``bins``-th largest ``top_bit`` of the group's adjacent pairs.
        """
        over = (
            self.cells.group_by(self.groups)
            .agg(pl.len().alias("n"))
            .filter(pl.col("n") > self.bins)
            .select(self.groups)
        )
        if over.height == 0:
            return
        gap = _top_bit(pl.col(KEY).xor(pl.col(KEY).shift(1)))
        # Per group, how many adjacent pairs have each top bit (at most 64 rows a
        # group), from the highest top bit down: the bins-th pair's top bit is `extra`.
        pairs = (
            self.cells.join(over, on=self.groups, how="semi", nulls_equal=True)
            .select(*self.groups, KEY)
            .sort([*self.groups, KEY], nulls_last=False)
            .with_columns(gap.alias("gap"), group_start(self.groups).alias("first"))
            .filter(~pl.col("first"))
            .group_by([*self.groups, "gap"])
            .agg(pl.len().alias("n"))
            .sort([*self.groups, "gap"], descending=[False] * len(self.groups) + [True])
        )
        extra = (
            pairs.with_columns(pl.col("n").cum_sum().over(self.groups).alias("n"))
            .filter(pl.col("n") >= self.bins)
            .group_by(self.groups)
            .agg(pl.col("gap").first().alias("extra"))
        )
        moved = self.cells.join(
            extra, on=self.groups, how="left", nulls_equal=True, maintain_order="left"
        )
        moved = moved.with_columns(_shifted(pl.col(KEY), pl.col("extra").fill_null(0)).alias(KEY))
        self.cells = self._aggregated(moved.drop("extra"))
        self.shifts = (
            self.shifts.join(extra, on=self.groups, how="left", nulls_equal=True)
            .with_columns(pl.col("shift") + pl.col("extra").fill_null(0))
            .drop("extra")
        )


# The dense counter's slot budget per group is this many times `bins`, so that a group
# of continuous scores has more than `bins` occupied buckets at the slots' shift (which
# the dense counter needs to give the cells, see _DenseCells).
RANGE_FACTOR = 4

# Groups x (RANGE_FACTOR * bins slots, 16 bytes each for plain rows and Float32
# scores, 24-32 otherwise, plus a quarter of a slot per directory entry) are counted
# in numpy arrays up to this many; past it, by hash only.
DENSE_BINNED_MAX_CELLS = 1 << 25
# Slots re-slotted at a time when groups' shifts rise (see _DenseCells._move).
MOVE_SLOTS = 1 << 20
# The dense counter's slots live in pages of up to 2**PAGE_BITS slots, found through a
# per-group directory of up to 2**DIRECTORY_BITS entries, each pointing to a block of
# up to 2**BLOCK_BITS page numbers (see _DenseCells): only the pages and blocks that
# rows reach take memory, so scores spread over many exponents (logits of both
# signs) cost what they occupy, not their range. Measured on the benchmark's logits
# (2 x 10^4 rows a group, bins=8192, the hash counter's shift 41): pages of 16 slots
# hold them at shift 41 in 20,992 slots, within the budget of 32,768; pages of 512
# slots would take 45,568 there, so shift 42, too coarse to give the cells. The
# directory and blocks span 2**24 slots: logits' order bits (about 2**63 wide) fit
# from shift 40 up.
PAGE_BITS = 4
BLOCK_BITS = 12
DIRECTORY_BITS = 8


def _range_shift(low: np.ndarray, high: np.ndarray, width: int) -> np.ndarray:
    """Per group, the smallest shift ``s`` with ``(high >> s) - (low >> s) < width``."""
    shift = np.full(len(low), _MAX_SHIFT, dtype=np.int64)
    for s in range(_MAX_SHIFT, -1, -1):  # fits at s, then at every larger shift
        span = (high >> s) - (low >> s)  # wraps below zero past 2**63: does not fit
        shift = np.where((span >= 0) & (span < width), s, shift)
    return np.where(low > high, 0, shift)  # no scores yet: no shift


def _top_bits(values: np.ndarray) -> np.ndarray:
    """:func:`_top_bit` of UInt64 values, in numpy (``values`` is overwritten): every
    bit below the highest set, then counted; no masks, ten times faster than a
    binary search of the bit length."""
    for step in (1, 2, 4, 8, 16, 32):
        values |= values >> np.uint64(step)
    return np.bitwise_count(values)


def _distinct(values: np.ndarray, size: int) -> np.ndarray:
    """Sorted distinct values of ``values`` (``0 <= values < size``): marked in an
    array of ``size`` flags when that is small against the values (a scatter,
    several times faster than a sort), else sorted."""
    if size <= max(8 * len(values), 1 << 22):
        mark = np.zeros(size, dtype=bool)
        mark[values] = True
        return np.flatnonzero(mark)
    ordered = np.sort(values)
    new = np.ones(len(ordered), dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    return ordered[new]


def _distinct_pairs(outer: np.ndarray, inner: np.ndarray, inner_size: int, size: int) -> np.ndarray:
    """Sorted distinct ``outer * inner_size + inner`` (``0 <= outer < size``,
    ``0 <= inner < inner_size``): the distinct ``outer`` first, then the pairs
    marked among those only, so the flags stay few."""
    outers = _distinct(outer, size)
    if len(outers) * inner_size > max(8 * len(outer), 1 << 22):
        return _distinct(outer * inner_size + inner, size * inner_size)  # sorted
    if size <= max(8 * len(outer), 1 << 22):
        rank = np.zeros(size, dtype=np.int64)
        rank[outers] = np.arange(len(outers))
        ranks = rank[outer]
        del rank
    else:
        ranks = np.searchsorted(outers, outer)
    pairs = _distinct(ranks * inner_size + inner, len(outers) * inner_size)
    return outers[pairs // inner_size] * inner_size + pairs % inner_size


class _DenseCells:
    """The cells of :class:`_BinnedCells` counted in numpy arrays: the fast way, when
    it can give them.

    Each group has a slot shift ``s``; a row's slot key is ``order_bits >> s``. Slots
    are stored sparsely, a three-level index without hashing: the slot key's page
    (``key >> p``, pages of ``2**p`` slots) sits in a block of ``2**q`` page numbers
    (``page >> q``), and each group has a directory of ``w`` blocks, starting at the
    block of its lowest score. Only the pages and blocks that rows reach take memory,
    so logits of both signs (order bits over most of the Int64 range, occupied in a
    few dozen exponents) cost what they occupy. A slice is counted by ``numpy.add.at``
    (and ``minimum.at`` / ``maximum.at``) on slot numbers found by three gathers.

    A group's shift rises (its occupied slots are re-slotted: exact coarsening) when
    its range no longer fits its directory, or when its pages and blocks would pass
    the budget of ``RANGE_FACTOR * bins`` slots (a block entry counting a quarter of a
    slot; half the budget for a group's first pages, which its next rows will
    join): then to the smallest shift within the budget, found from the pages'
    keys as :meth:`_BinnedCells._coarsen` finds its shift from the cells' keys.
    The shift thus follows where the scores are, not only their range. Re-slotting
    goes page by page: ``u`` more bits merge runs of ``2**u`` slots.

    At the end the rule of :class:`_BinnedCells` (at most ``bins`` occupied buckets)
    is applied to the slots; it gives the same cells when the hash counter's shift is
    at least the slots' one, that is when the slots hold more than ``bins`` occupied
    buckets at one bit finer than their shift (or the shift is 0). A slot holds
    rows in both its halves iff its lowest and highest scores sit in different
    halves, so that test is exact. Exact zeros are counted beside the slots, a cell
    per group (an exact 0.0 among probabilities would add pages at a far exponent).
    When some group fails the test (few distinct scores spread over many exponents:
    its directory's span forces a shift above the hash counter's), :meth:`result`
    says so and the rows are counted again by hash.
    """

    def __init__(self, prep: Prepared) -> None:
        self.groups = prep.by or [_ALL]
        self.bins = prep.bins or 2
        self.limit = RANGE_FACTOR * self.bins  # slot budget per group
        log_limit = self.limit.bit_length() - 1
        # Small budgets (small bins) get small pages and blocks, so that one page and
        # one block fit a group's budget many times over.
        self.p = min(PAGE_BITS, max(0, log_limit - 8))
        self.q = min(BLOCK_BITS, max(0, log_limit - 3))
        self.page_slots = 1 << self.p
        self.block_entries = 1 << self.q
        self.width = 1 << min(DIRECTORY_BITS, log_limit + 2)  # directory entries per group
        self.weighted = prep.weighted
        self.dtype = pl.Float32 if prep.score_dtype == pl.Float32 else pl.Float64
        schema = prep.frame.collect_schema()
        group_schema = {c: schema[c] for c in prep.by} if prep.by else {_ALL: pl.UInt8}
        # The groups seen, in order (row i has code i), and per group its shift, the
        # block key of its directory's first entry, its lowest and highest order bits,
        # and how many pages and blocks it holds.
        self.known = pl.DataFrame(schema=group_schema)
        self.shift = np.zeros(0, dtype=np.int64)
        self.base = np.zeros(0, dtype=np.int64)
        self.lowest = np.zeros(0, dtype=np.int64)
        self.highest = np.zeros(0, dtype=np.int64)
        self.n_pages = np.zeros(0, dtype=np.int64)
        self.n_blocks = np.zeros(0, dtype=np.int64)
        # Directory: per group, block rows (0: none). Blocks: page rows (0: none),
        # and the group owning each block (-1: free) and its key. Pages: the group (-1:
        # free) and page key of each, and its slots; empty slots hold zeros.
        self.directory = np.zeros((0, self.width), dtype=np.int32)
        # Row 0 of the blocks and of the pages stays empty (owner -2): a directory
        # entry 0 finds the empty block, a block entry 0 no page.
        self.blocks = np.zeros((1, self.block_entries), dtype=np.int32)
        self.block_group = np.full(1, -2, dtype=np.int64)
        self.block_key = np.zeros(1, dtype=np.int64)
        self.page_group = np.full(1, -2, dtype=np.int64)
        self.page_key = np.zeros(1, dtype=np.int64)
        # Page rows freed by re-slotting, and the first row never used.
        self.freed: list[np.ndarray] = []
        self.fresh = 1
        # Rows of plain logs count one each: UInt32 slots while the rows added fit
        # (half the memory), Int64 past that.
        self.plain = not prep.weighted and not prep.counted
        self.rows_added = 0
        count = np.float64 if self.weighted else (np.uint32 if self.plain else np.int64)
        score = np.float32 if self.dtype == pl.Float32 else np.float64
        self.pos = np.zeros((1, self.page_slots), dtype=count)
        self.neg = np.zeros((1, self.page_slots), dtype=count)
        self.low = np.zeros((1, self.page_slots), dtype=score)
        self.high = np.zeros((1, self.page_slots), dtype=score)
        # Which groups hold a row of each class (a weight or count above 0).
        self.has_pos = np.zeros(0, dtype=bool)
        self.has_neg = np.zeros(0, dtype=bool)
        # Exact zeros (0.0 and -0.0) counted beside the slots, one cell per group: an
        # exact 0.0 among probabilities would otherwise add pages far from the bulk.
        self.zero_pos = np.zeros(0, dtype=count)
        self.zero_neg = np.zeros(0, dtype=count)
        self.zero_low = np.zeros(0, dtype=score)
        self.zero_high = np.zeros(0, dtype=score)

    def add(self, rows: pl.LazyFrame) -> bool:
        """Count one slice; False (and nothing counted) when its new groups would
        take the slots past ``DENSE_BINNED_MAX_CELLS``."""
        if self.groups == [_ALL]:
            rows = rows.with_columns(pl.lit(0, pl.UInt8).alias(_ALL))
        rows = rows.select(
            *self.groups,
            _order_bits_expr(pl.col(SCORE)).alias(KEY),
            pl.col(SCORE).cast(self.dtype),
            POS,
            NEG,
        )
        return self._add_dense(self._coded(rows).collect())

    def classes(self) -> pl.DataFrame:
        """``[*by, n_pos, n_neg]``: 1 where the group holds a row of that class, else 0."""
        flags = pl.DataFrame({"n_pos": self.has_pos, "n_neg": self.has_neg})
        found = pl.concat([self.known, flags.cast(pl.Int64)], how="horizontal")
        return found.drop(_ALL) if self.groups == [_ALL] else found

    def result(self, by: list[str]) -> pl.DataFrame | None:
        """The cells of :class:`_BinnedCells` (the same rule, the same cells), sorted as
        there; None when some group's slots are too coarse to give them: its shift is
        above 0 and at one bit finer it holds at most ``bins`` occupied buckets, so
        the hash counter's shift is below the slots' one."""
        cells = self._dense_result()
        if cells is None:
            return None
        cells = cells.sort(
            [*self.groups, KEY], descending=[False] * len(self.groups) + [True], nulls_last=False
        )
        return cells.select(*by, KEY, POS, NEG, "low", "high", "shift")

    def _fine_enough(
        self, group: np.ndarray, key: np.ndarray, low: np.ndarray, high: np.ndarray, zeros: Any
    ) -> bool:
        """Whether every group's slots give its cells: its shift is 0, or at one bit
        finer it holds more than ``bins`` occupied buckets (then the hash counter's
        shift is at least the slots' one).

        The occupied slots (``group``, ``key``, lowest and highest score) each hold
        rows in one of their halves, or in both iff those two scores sit in
        different halves (a slot's rows lie between them); a group's zero cell adds
        one unless the lower half of its slot key 0 holds a row already."""
        finer = np.bincount(group, minlength=len(self.known)).astype(np.int64)
        below = np.maximum(self.shift - 1, 0)
        # Only groups of at most `bins` occupied slots need their halves.
        unsure = (finer <= self.bins) & (self.shift > 0)
        if not unsure.any():
            return True
        look = np.flatnonzero(unsure[group])
        for part in np.array_split(look, -(-len(look) // MOVE_SLOTS) or 1):
            if not len(part):
                continue
            at = below[group[part]]
            split = self._half(low[part], at) != self._half(high[part], at)
            finer += np.bincount(group[part], weights=split, minlength=len(finer)).astype(np.int64)
        if len(zeros):
            has_zero = np.zeros(len(self.known), dtype=bool)
            has_zero[zeros] = True
            at = np.flatnonzero(key == 0)
            at = at[has_zero[group[at]]]
            lower = self._half(low[at], below[group[at]]) == 0  # shares key 0's half
            finer[zeros] += 1
            finer[group[at][lower]] -= 1
        return bool(((finer > self.bins) | (self.shift == 0)).all())

    @staticmethod
    def _half(scores: np.ndarray, finer: np.ndarray) -> np.ndarray:
        """Bit ``finer`` (at most 62) of the order bits of ``scores`` (no -0.0 or NaN
        here): the float's bit, flipped for a negative float."""
        raw = scores.astype(np.float64, copy=False).view(np.int64)
        bit = raw >> finer
        bit ^= raw >> 63  # -1 for a negative float
        bit &= 1
        return bit

    def _coded(self, rows: pl.LazyFrame) -> pl.LazyFrame:
        """``rows`` with the code of their group (null for a group not seen yet), in
        row order: weights add in the same order on every run."""
        return rows.join(
            self.known.lazy().with_row_index(GROUP),
            on=self.groups,
            how="left",
            nulls_equal=True,
            maintain_order="left",
        )

    def _add_dense(self, coded: pl.DataFrame) -> bool:
        """Count coded rows into the slots; False (nothing done) when new groups would
        take the slots past ``DENSE_BINNED_MAX_CELLS``."""
        if coded.height == 0:
            return True
        if coded[GROUP].null_count():
            new = coded.filter(pl.col(GROUP).is_null()).select(self.groups)
            new = new.unique(maintain_order=True)
            # Each group: its budget of slots, and its directory (Int32 entries, a
            # quarter of a slot each).
            per_group = self.limit + self.width // 4
            if (len(self.known) + len(new)) * per_group > DENSE_BINNED_MAX_CELLS:
                return False
            self._grow(new)
            coded = self._coded(coded.lazy().drop(GROUP)).collect()
        group = coded[GROUP].to_numpy().astype(np.int64)
        pos = coded[POS].fill_null(0).to_numpy()
        neg = coded[NEG].fill_null(0).to_numpy()
        self.has_pos[group[pos > 0]] = True
        self.has_neg[group[neg > 0]] = True
        # Null and NaN scores are refused at the end of the read, and rows of zero
        # weight or count are no rows: none of them is counted.
        score = coded[SCORE].fill_null(np.nan).to_numpy()
        keep = ((pos + neg) > 0) & ~np.isnan(score)
        bits = coded[KEY].fill_null(0).to_numpy()
        if not keep.all():
            group, pos, neg, score, bits = (a[keep] for a in (group, pos, neg, score, bits))
        # UInt32 counts while the rows added fit (each counts one), Int64 past that.
        self.rows_added += len(group)
        if self.pos.dtype == np.uint32 and self.rows_added >= 1 << 32:
            for name in ("pos", "neg", "zero_pos", "zero_neg"):
                setattr(self, name, getattr(self, name).astype(np.int64))
        zero = score == 0  # -0.0 too
        if zero.any():
            at = group[zero]
            np.add.at(self.zero_neg, at, neg[zero].astype(self.zero_neg.dtype, copy=False))
            np.add.at(self.zero_pos, at, pos[zero].astype(self.zero_pos.dtype, copy=False))
            np.minimum.at(self.zero_low, at, score[zero])
            np.maximum.at(self.zero_high, at, score[zero])
            rest = ~zero
            group, pos, neg, score, bits = (a[rest] for a in (group, pos, neg, score, bits))
        if len(group) == 0:
            return True
        np.minimum.at(self.lowest, group, bits)
        np.maximum.at(self.highest, group, bits)
        # The directory must span each group's range of block keys.
        fits = _range_shift(self.lowest, self.highest, self.width) - self.p - self.q
        self._move(np.maximum(self.shift, fits))
        # Then the budget: raise the shift of groups whose new pages would pass it
        # (to a shift that fits them all: no second look needed).
        shift = self.shift[group]
        key = bits >> shift
        slot = self._find(group, key, inside=True)  # the directories span the rows
        missing = np.flatnonzero(slot < 0)
        if len(missing):
            extra = self._over_budget(group[missing], key[missing] >> self.p)
            if extra.any():
                self._move(self.shift + extra)
                shift = self.shift[group]
                key = bits >> shift
                slot = self._find(group, key, inside=True)
                missing = np.flatnonzero(slot < 0)
            slot[missing] = self._slots(group[missing], key[missing])
        del bits, key, shift
        self._count(slot, pos, neg, score, score)
        return True

    def _find(self, group: np.ndarray, key: np.ndarray, *, inside: bool = False) -> np.ndarray:
        """Slot numbers of slot keys (at the groups' shifts), -1 where no page holds
        them yet, or the key is outside the group's directory (``inside``: the
        caller knows it is not). Row 0 of the blocks and of the pages is empty, so a
        missing block or page needs no test until the end."""
        page_key = key >> self.p
        entry = page_key >> self.q
        if inside:  # the directory entry, counted from the directory of group 0
            entry += (np.arange(len(self.known)) * self.width - self.base)[group]
            outside = None
        else:
            entry -= self.base[group]
            outside = (entry < 0) | (entry >= self.width)
            entry[outside] = 0
            entry += group * self.width
        at = self.directory.reshape(-1)[entry].astype(np.int64)  # 0: the empty block
        at *= self.block_entries
        del entry
        if outside is not None:
            at[outside] = 0
        at += page_key & (self.block_entries - 1)
        page = self.blocks.reshape(-1)[at].astype(np.int64)  # 0: no page
        del at
        slot = page * self.page_slots + (key & (self.page_slots - 1))
        slot[page == 0] = -1
        return slot

    def _slots(self, group: np.ndarray, key: np.ndarray) -> np.ndarray:
        """Slot numbers of slot keys (at the groups' shifts, inside their
        directories), allocating the blocks and pages not there yet."""
        slot = self._pages(group, key >> self.p) * self.page_slots
        slot += key & (self.page_slots - 1)
        return slot

    def _pages(self, group: np.ndarray, page_key: np.ndarray) -> np.ndarray:
        """Page rows of page keys (at the groups' shifts, inside their
        directories), allocating the blocks and pages not there yet."""
        entry = (page_key >> self.q) - self.base[group] + group * self.width
        directory = self.directory.reshape(-1)
        if not directory[entry].all():
            at = np.flatnonzero(directory[entry] == 0)
            wanted = _distinct(entry[at], len(directory))
            owner = wanted // self.width
            block_key = wanted % self.width + self.base[owner]
            directory[wanted] = self._allocate_blocks(owner, block_key)
        within = directory[entry].astype(np.int64) * self.block_entries
        within += page_key & (self.block_entries - 1)
        blocks = self.blocks.reshape(-1)
        if not blocks[within].all():
            at = np.flatnonzero(blocks[within] == 0)
            wanted = _distinct(within[at], len(blocks))
            block = wanted // self.block_entries
            keys = (self.block_key[block] << self.q) | (wanted & (self.block_entries - 1))
            blocks[wanted] = self._allocate_pages(self.block_group[block], keys)
        return blocks[within].astype(np.int64)

    def _allocate_blocks(self, owner: np.ndarray, block_key: np.ndarray) -> np.ndarray:
        free = np.flatnonzero(self.block_group == -1)
        if len(free) < len(owner):
            extra = max(len(owner) - len(free), len(self.block_group) // 4)
            self.blocks = np.concatenate(
                [self.blocks, np.zeros((extra, self.block_entries), np.int32)]
            )
            self.block_group = np.concatenate([self.block_group, np.full(extra, -1)])
            self.block_key = np.concatenate([self.block_key, np.zeros(extra, np.int64)])
            free = np.flatnonzero(self.block_group == -1)
        rows = free[: len(owner)]
        self.block_group[rows] = owner
        self.block_key[rows] = block_key
        np.add.at(self.n_blocks, owner, 1)
        return rows.astype(np.int32)

    def _allocate_pages(self, owner: np.ndarray, page_key: np.ndarray) -> np.ndarray:
        """Rows for new pages: freed rows first (their memory is in use already), then
        rows never used."""
        freed = np.concatenate(self.freed) if self.freed else np.zeros(0, dtype=np.int64)
        rows, rest = freed[: len(owner)], freed[len(owner) :]
        self.freed = [rest] if len(rest) else []
        more = len(owner) - len(rows)
        if self.fresh + more > len(self.page_group):  # not expected: budgets are reserved
            self._reserve_pages(self.fresh + more - len(self.page_group))
        rows = np.concatenate([rows, np.arange(self.fresh, self.fresh + more)])
        self.fresh += more
        self.page_group[rows] = owner
        self.page_key[rows] = page_key
        # An empty slot's lowest score is +inf and its highest -inf (set here, so
        # that the room not used yet stays zeros, which take no memory).
        self.low[rows] = np.inf
        self.high[rows] = -np.inf
        np.add.at(self.n_pages, owner, 1)
        return rows.astype(np.int32)

    def _reserve_pages(self, extra: int) -> None:
        """Room for ``extra`` more pages: zeros, which take memory only once pages
        are used."""
        for name in self._page_arrays():
            old = getattr(self, name)
            grown = np.zeros((len(old) + extra, old.shape[1]), old.dtype)
            grown[: len(old)] = old
            del old
            setattr(self, name, grown)
        self.page_group = np.concatenate([self.page_group, np.full(extra, -1)])
        self.page_key = np.concatenate([self.page_key, np.zeros(extra, np.int64)])

    def _page_arrays(self) -> list[str]:
        return ["pos", "neg", "low", "high"]

    def _occupied(self, rows: Any) -> np.ndarray:
        """Slots of pages ``rows`` a row went to: they count a weight or count above 0."""
        return (self.pos[rows] > 0) | (self.neg[rows] > 0)

    def _count(
        self, slot: np.ndarray, pos: np.ndarray, neg: np.ndarray, low: np.ndarray, high: np.ndarray
    ) -> None:
        """Add rows (or cells) into their slots, in place (no temporary of every
        slot), in their order: exact for counts, and weights add in the same order
        on every run."""
        np.add.at(self.neg.reshape(-1), slot, neg.astype(self.neg.dtype, copy=False))
        np.add.at(self.pos.reshape(-1), slot, pos.astype(self.pos.dtype, copy=False))
        np.minimum.at(self.low.reshape(-1), slot, low)
        np.maximum.at(self.high.reshape(-1), slot, high)

    def _cost(self, pages: np.ndarray, blocks: np.ndarray) -> np.ndarray:
        """Slots a group's pages and blocks take from its budget (an Int32 block
        entry is about a quarter of a slot's 16-32 bytes)."""
        return pages * self.page_slots + blocks * max(self.block_entries // 4, 1)

    def _over_budget(self, group: np.ndarray, page_key: np.ndarray) -> np.ndarray:
        """Per group, the shift to add so that its pages, with the pages
        ``(group, page_key)`` that rows need and no page holds yet, stay within the
        budget (0 for most groups)."""
        extra = np.zeros(len(self.known), dtype=np.int64)
        # The pages (and at most as many blocks) wanted, counted once each.
        span = self.width << self.q
        entry = (page_key >> self.q) - self.base[group] + group * self.width
        size = len(self.known) * self.width
        within = page_key & (self.block_entries - 1)
        wanted = _distinct_pairs(entry, within, self.block_entries, size)
        del within
        owner = wanted // span
        new_pages = np.bincount(owner, minlength=len(self.known))
        blocks = _distinct(entry, size)
        blocks = blocks[self.directory.reshape(-1)[blocks] == 0]  # not there yet
        new_blocks = np.bincount(blocks // self.width, minlength=len(self.known))
        cost = self._cost(self.n_pages + new_pages, self.n_blocks + new_blocks)
        # A group's first pages get half its budget: its next rows will add pages,
        # and re-slotting every group after the second slice costs a slice's time.
        limit = np.where(self.n_pages == 0, self.limit // 2, self.limit)
        over = np.flatnonzero(cost > limit)
        if not len(over):
            return extra
        # The smallest k that fits, from all page keys of the groups over budget: k
        # more bits leave 1 + #{adjacent keys with top_bit(a ^ b) > k} pages (see
        # _BinnedCells._coarsen), and blocks are pages at k + q more bits.
        is_over = np.zeros(len(self.known), dtype=bool)
        is_over[over] = True
        held = np.flatnonzero((self.page_group >= 0) & is_over[np.maximum(self.page_group, 0)])
        owners = self.page_group[held]
        # (group, offset in its directory's span) as one Int64, sorted with the wanted.
        held = owners * span + self.page_key[held] - (self.base[owners] << self.q)
        union = wanted[is_over[owner]]  # sorted
        if len(held):
            union = np.sort(np.concatenate([held, union]))
        del held
        owners = union // span
        keys = union % span + (self.base[owners] << self.q)
        del union
        rank = np.searchsorted(over, owners)
        gaps = _top_bits(np.bitwise_xor(keys[1:], keys[:-1]).view(np.uint64)).astype(np.int64)
        gaps[owners[1:] != owners[:-1]] = 0  # no pair across groups
        hist = np.bincount(rank[1:] * 65 + gaps, minlength=len(over) * 65).reshape(-1, 65)
        hist[:, 0] = 0
        # pages[:, k]: pages left after k more bits (pairs with top bit > k, plus one).
        pages = 1 + np.concatenate(
            [np.cumsum(hist[:, ::-1], axis=1)[:, ::-1][:, 1:], np.zeros((len(over), 1), np.int64)],
            axis=1,
        )
        blocks_at = np.concatenate([pages[:, self.q :], np.ones((len(over), self.q), np.int64)], 1)
        fits = self._cost(pages, blocks_at) <= limit[over, None]
        extra[over] = np.argmax(fits, axis=1)  # the first k that fits (k = 64 always does)
        return extra

    def _move(self, shift: np.ndarray) -> None:
        """Set the groups' shifts (never lower) and directory starts, re-slotting the
        groups whose shift or start changes (exact coarsening).

        In blocks of about ``MOVE_SLOTS`` slots: when every group moves (the first
        slices), copies of all the occupied slots would double the memory.
        """
        shift = np.minimum(shift, _MAX_SHIFT)  # keys -1 and 0 at most: within budget
        base = self.lowest >> np.minimum(shift + self.p + self.q, _MAX_SHIFT)
        base = np.where(self.lowest > self.highest, 0, base)  # no scores yet
        moved = np.flatnonzero((shift != self.shift) | (base != self.base))
        if not len(moved):
            return
        # The moved groups' pages, by group (found once, not once a block).
        is_moved = np.zeros(len(self.known), dtype=bool)
        is_moved[moved] = True
        rows = np.flatnonzero((self.page_group >= 0) & is_moved[np.maximum(self.page_group, 0)])
        rows = rows[np.argsort(self.page_group[rows], kind="stable")]
        # pages[i]: the pages of the moved groups before the i-th (a leading 0), so a
        # cut at 0 (a first group of MOVE_SLOTS slots or more) ends its empty chunk at
        # page 0: `pages[cuts - 1]` without it read pages[-1] there, every page, and
        # the groups after the cut kept their old pages at their new shifts.
        pages = np.r_[0, np.cumsum(self.n_pages[moved])]
        slots = np.maximum(self._cost(self.n_pages[moved], self.n_blocks[moved]), 1)
        cuts = np.searchsorted(np.cumsum(slots), np.arange(MOVE_SLOTS, slots.sum(), MOVE_SLOTS))
        start = 0
        for chunk, end in zip(
            np.split(moved, cuts), pages[np.append(cuts, len(moved))], strict=True
        ):
            if len(chunk):
                self._move_groups(chunk, shift[chunk], base[chunk], rows[start:end])
            start = end

    def _move_groups(
        self, chunk: np.ndarray, shift: np.ndarray, base: np.ndarray, rows: np.ndarray
    ) -> None:
        """Re-slot the groups ``chunk`` at new shifts and directory starts, page by
        page: ``u`` more bits merge runs of ``2**u`` slots of a page (a sum, a
        minimum, a maximum along them), and the page's merged slots land in a run
        of the new page that no other page writes (when ``u`` is at most ``p``), so
        they are assigned, not added one by one."""
        is_moved = np.zeros(len(self.known), dtype=bool)
        is_moved[chunk] = True
        group = self.page_group[rows]
        page_key = self.page_key[rows]
        up = shift[np.searchsorted(chunk, group)] - self.shift[group]
        values = [getattr(self, name)[rows] for name in ("pos", "neg", "low", "high")]
        # Free the groups' pages, blocks and directories, then place their slots anew.
        for name in self._page_arrays():
            getattr(self, name)[rows] = 0
        self.page_group[rows] = -1
        self.freed.append(rows)
        held = np.flatnonzero((self.block_group >= 0) & is_moved[np.maximum(self.block_group, 0)])
        self.blocks[held] = 0
        self.block_group[held] = -1
        self.directory[chunk] = 0
        self.n_pages[chunk] = 0
        self.n_blocks[chunk] = 0
        self.shift[chunk], self.base[chunk] = shift, base
        reduce = (np.add, np.add, np.minimum, np.maximum)
        for u in np.unique(up):
            at = np.flatnonzero(up == u)
            merged = []
            step = 1 << min(u, self.p)  # slots merged into one
            for ufunc, value in zip(reduce, values, strict=True):
                value = value[at]
                found = value[:, ::step].copy()
                for j in range(1, step):  # strided, not a reduction over a short axis
                    ufunc(found, value[:, j::step], out=found)
                merged.append(found)
            if u <= self.p:
                # Slots (page_key << p | col) >> u: the new page's run of merged slots.
                page = self._pages(group[at], page_key[at] >> u)
                run = self.page_slots >> u
                col = (page_key[at] & ((1 << u) - 1)) * run
                col = col[:, None] + np.arange(run)
                col += (page * self.page_slots)[:, None]
                for name, value in zip(("pos", "neg", "low", "high"), merged, strict=True):
                    getattr(self, name).reshape(-1)[col.reshape(-1)] = value.reshape(-1)
            else:  # each page merges into one slot, which other pages may share
                slot = self._slots(group[at], (page_key[at] << self.p) >> u)
                self._count(slot, *(value[:, 0] for value in merged))

    def _dense_result(self) -> pl.DataFrame | None:
        """The slots at each group's final shift, as cells (the rule of
        :meth:`_BinnedCells._coarsen`, here on the slots, taken in key order within
        each group); None when the slots cannot give them (see :meth:`result`).
        Lean on memory: the occupied slots' values are taken out and the slots
        freed first."""
        # The pages in (group, key) order: a page's offset in its group's directory
        # span is below width << q, so (group, offset) fits one Int64.
        live = np.flatnonzero(self.page_group >= 0)
        group = self.page_group[live]
        offset = self.page_key[live] - (self.base[group] << self.q)
        live = live[np.argsort(group * (self.width << self.q) + offset)]
        del group, offset
        # The occupied slots' pages and columns in narrow integers: page rows and slot
        # numbers stay below 2**31 (the slots are capped far below), so Int32, and the
        # column one byte: at 10^9 rows, Int64 pages, columns and slot numbers made this
        # step the read's peak, 1.01 GiB against 0.91 GiB (benchmarks/bench_scale.py).
        found = np.flatnonzero(self._occupied(slice(None))[live])
        col = (found & (self.page_slots - 1)).astype(np.uint8)
        found >>= self.p
        page = live.astype(np.int32)[found]
        del live, found
        flat = page * np.int32(self.page_slots) + col
        values = {}
        for name in ("pos", "neg", "low", "high"):
            values[name] = getattr(self, name).reshape(-1)[flat]
            setattr(self, name, np.zeros((0, self.page_slots)))
        del flat
        group = self.page_group[page].astype(np.int32)
        key = (self.page_key[page] << self.p) | col
        del page, col
        zeros = np.flatnonzero(self.zero_low <= self.zero_high)
        if not self._fine_enough(group, key, values["low"], values["high"], zeros):
            return None
        if len(zeros):
            # Each group's zero cell at its key (0 >> shift = 0), in key order among the
            # slots (after the group's negative keys): the rule below then treats it as
            # any occupied bucket.
            starts = np.concatenate([[0], np.cumsum(np.bincount(group, minlength=len(self.known)))])
            negative = np.bincount(group[key < 0], minlength=len(self.known))
            at = starts[zeros] + negative[zeros]
            group = np.insert(group, at, zeros.astype(np.int32))
            key = np.insert(key, at, 0)
            for name in ("pos", "neg", "low", "high"):
                extra_values = getattr(self, f"zero_{name}")[zeros]
                values[name] = np.insert(values[name], at, extra_values.astype(values[name].dtype))
        # Top bit of a ^ b for adjacent occupied slots, counted per group (bin 0: the
        # first slot of a group, which pairs with none; distinct keys have top bit >= 1).
        gaps = _top_bits(np.bitwise_xor(key[1:], key[:-1]).view(np.uint64))
        gaps[group[1:] != group[:-1]] = 0
        n_groups, width = len(self.known), 65
        hist = np.bincount(
            group[1:].astype(np.int64) * width + gaps, minlength=n_groups * width
        ).reshape(n_groups, width)
        del gaps
        hist[:, 0] = 0
        # above[g, k]: pairs still apart after k more bits (top bit > k).
        above = np.cumsum(hist[:, ::-1], axis=1)[:, ::-1]
        above = np.concatenate([above[:, 1:], np.zeros((n_groups, 1), dtype=above.dtype)], 1)
        extra = np.argmax(above <= self.bins - 1, axis=1)  # the first k that fits
        key >>= extra[group]
        changes = (group[1:] != group[:-1]) | (key[1:] != key[:-1])
        starts = np.flatnonzero(np.r_[True, changes]) if len(key) else np.zeros(0, np.int64)
        del changes
        dtype = pl.Float64 if self.weighted else pl.Int64
        first = group[starts]
        columns = {KEY: pl.Series(key[starts])}
        del key, group
        for name, column, ufunc, cast in (
            ("pos", POS, np.add, dtype),
            ("neg", NEG, np.add, dtype),
            ("low", "low", np.minimum, self.dtype),
            ("high", "high", np.maximum, self.dtype),
        ):
            found = values.pop(name)
            runs = ufunc.reduceat(found, starts) if len(starts) else found
            columns[column] = pl.Series(runs).cast(cast)
            del found, runs
        columns["shift"] = pl.Series(self.shift[first] + extra[first])
        return pl.concat([self.known[first], pl.DataFrame(columns)], how="horizontal")

    def _grow(self, new: pl.DataFrame) -> None:
        """Groups not seen before: no scores, shift 0, no pages yet."""
        k = len(new)
        self.known = pl.concat([self.known, new])
        top = np.iinfo(np.int64)
        for name, fill in (
            ("shift", 0),
            ("base", 0),
            ("n_pages", 0),
            ("n_blocks", 0),
            ("lowest", top.max),
            ("highest", top.min),
            ("has_pos", False),
            ("has_neg", False),
            ("zero_pos", 0),
            ("zero_neg", 0),
            ("zero_low", np.inf),
            ("zero_high", -np.inf),
        ):
            old = getattr(self, name)
            setattr(self, name, np.concatenate([old, np.full(k, fill, old.dtype)]))
        self.directory = np.concatenate([self.directory, np.zeros((k, self.width), dtype=np.int32)])
        # Each group's budget holds at most this many pages: reserved now (zeros,
        # which take memory only once used), so the pages never move.
        self._reserve_pages(k * (self.limit // self.page_slots))


class _OneRead:
    """The counter of ``bins=``'s read (:meth:`BinnedRead.read`): dense when it can.

    A read of one slice (small and eager inputs) is counted by hash
    (:class:`_BinnedCells`). From the second slice on, the slices go to
    :class:`_DenseCells`, much faster on large logs; when the dense slots cannot give
    the cells (too many groups for the slots, or a group of few distinct scores
    spread over many exponents, see there), the rows are read and counted again by
    hash: a second read, the price of the same cells whatever the scores.
    """

    def __init__(self, prep: Prepared, again: Callable[[], Iterator[pl.LazyFrame]]) -> None:
        self.prep = prep
        self.again = again
        self.first: pl.DataFrame | None = None  # the first slice, until a second comes
        self.dense: _DenseCells | None = None
        self.hashed: _BinnedCells | None = None
        self.reread = False
        self.cells: pl.DataFrame | None = None

    def add(self, rows: pl.LazyFrame) -> None:
        if self.reread:
            return  # counted again, by hash, after this read
        if self.dense is None:
            if self.first is None:
                self.first = rows.collect()
                return
            self.dense = _DenseCells(self.prep)
            first, self.first = self.first, None
            if not self.dense.add(first.lazy()):
                self.dense, self.reread = None, True
                return
        if not self.dense.add(rows):
            self.dense, self.reread = None, True

    def _settle(self) -> None:
        if self.cells is not None:
            return
        if self.dense is not None:
            self.cells = self.dense.result(self.prep.by)
            if self.cells is not None:
                return
            self.dense, self.reread = None, True
        self.hashed = _BinnedCells(self.prep)
        if self.reread:
            for rows in self.again():
                self.hashed.add(rows)
        elif self.first is not None:
            self.hashed.add(self.first.lazy())
            self.first = None
        self.cells = self.hashed.result(self.prep.by)

    def classes(self) -> pl.DataFrame:
        self._settle()
        if self.hashed is not None:
            return self.hashed.classes()
        assert self.dense is not None
        return self.dense.classes()

    def result(self) -> pl.DataFrame:
        self._settle()
        assert self.cells is not None
        return self.cells


def binned_cells(prep: Prepared) -> pl.DataFrame:
    """The cells of ``bins=`` (see :class:`_BinnedCells`), from the one read of the rows.

    The read runs now (a lazy source too: Polars 2.1 cannot stream this in one plan,
    see ``CHUNK_ROWS``) and raises the value checks' errors at its end; the cells are
    kept on ``prep``, so the views that need them twice read the rows once. Logs the
    dense count cannot give take a second read (see :class:`_OneRead`).
    """
    read = prep.binned
    assert read is not None, "prepare(bins=...) sets up the binned read"
    if "cells" not in read.found:
        counter = _OneRead(prep, lambda: read.slices(CHUNK_ROWS))
        found = read.read(counter, CHUNK_ROWS)
        read.found["cells"] = _with_empty_groups(counter.result(), found["class_totals"])
    return read.found["cells"]


def _with_empty_groups(cells: pl.DataFrame, classes: pl.DataFrame | None) -> pl.DataFrame:
    """``cells`` and one cell of no mass (at ``+inf``) for each group whose rows all
    weigh or count 0: the rows hold no bucket, but the group stays, with null rates,
    as on the exact path (see docs/conventions.md)."""
    if classes is None:
        return cells
    by = [c for c in classes.columns if c not in ("n_pos", "n_neg")]
    empty = classes.filter((pl.col("n_pos") == 0) & (pl.col("n_neg") == 0))
    if by:
        empty = empty.join(cells, on=by, how="anti", nulls_equal=True)
    elif cells.height:
        return cells
    if not empty.height:
        return cells
    zero = pl.lit(0, dtype=cells.schema[POS])
    inf = pl.lit(float("inf"), dtype=cells.schema["low"])
    added = empty.select(
        *by,
        pl.lit(0, dtype=cells.schema[KEY]).alias(KEY),
        zero.alias(POS),
        zero.alias(NEG),
        inf.alias("low"),
        inf.alias("high"),
        pl.lit(0, dtype=cells.schema["shift"]).alias("shift"),
    )
    merged = pl.concat([cells, added.cast(cells.schema)])
    return merged.sort(by, nulls_last=False, maintain_order=True) if by else merged


def _binned_table(prep: Prepared) -> pl.LazyFrame:
    """Score table of monotone buckets of the score: no sort of the rows.

    One row per occupied cell of :func:`binned_cells`. Each bucket's ``threshold`` is
    its lowest score in its group, so the counts at that threshold, and the curve's
    point there, are exact; only the order of the rows inside a bucket is lost.
    ``MIXED`` flags buckets holding more than one distinct score (lowest < highest),
    the only ones whose positive-negative pairs the AUC may misjudge. Memory grows
    with groups x buckets, not with rows.
    """
    by = prep.by
    table = (
        binned_cells(prep)
        .lazy()
        .with_columns(
            tp=cumulate(POS, by, weighted=prep.weighted),
            fp=cumulate(NEG, by, weighted=prep.weighted),
        )
    )
    at_end = group_end(by)
    return table.select(
        *by,
        pl.col("low").cast(pl.Float64).alias("threshold"),
        pl.col(POS).alias("pos"),
        pl.col(NEG).alias("neg"),
        "tp",
        "fp",
        pl.when(at_end).then(pl.col("tp")).backward_fill().alias("n_pos"),
        pl.when(at_end).then(pl.col("fp")).backward_fill().alias("n_neg"),
        (pl.col("low") < pl.col("high")).alias(MIXED),
    )


def binned_auc_counts(prep: Prepared) -> pl.LazyFrame:
    """``[*by, n_pos, n_neg, auc, auc_bound]`` from the cells of ``bins=``.

    Pairs across buckets are counted exactly, pairs within a bucket as ties (one
    half): off by at most one half each, and only in a bucket of several distinct
    scores. Hence ``auc_bound = sum(pos * neg over mixed buckets) / (2 n_pos n_neg)``
    bounds ``|binned AUC - exact AUC|`` (null where a group lacks a class). Computed
    from the cells directly (no score table of ~10 columns): one running sum per group.
    """
    by = prep.by
    groups = by or [_ALL]
    above = cumulate(POS, by, weighted=prep.weighted)  # positives at or above the bucket
    return (
        binned_cells(prep)
        .lazy()
        .with_columns(above.alias("__roc_above"), pl.lit(0, pl.UInt8).alias(_ALL))
        .group_by(groups, maintain_order=True)
        .agg(
            # Running sums over the buckets, as the binned score table's totals.
            pl.col(POS).cum_sum().last().alias("n_pos"),
            pl.col(NEG).cum_sum().last().alias("n_neg"),
            auc_from_counts(pl.col(POS), pl.col(NEG), pl.col("__roc_above")).alias("auc"),
            auc_bound(pl.col(POS), pl.col(NEG), pl.col("low") < pl.col("high")),
        )
        .select(*by, "n_pos", "n_neg", "auc", "auc_bound")
    )


def _choose_path(prep: Prepared, path: Path) -> Path:
    """The counting path for ``path="auto"``; a requested path checked against the input.

    Few distinct scores are counted by hash, or, grouped, by codes (a hash table of
    (group, score) keys grows with the groups); many are sorted as packed keys.
    """
    if prep.bins is not None:
        return "bins"
    check_choice("path", path, ("auto", "hash", "sort", "dense"))
    if prep.counted:
        # Packed keys and dense codes count one unit per row; a count table's rows
        # stand for many, so their counts are summed per distinct score.
        if path not in ("auto", "hash"):
            msg = f"path={path!r} counts one unit per row; a count table (count=) takes 'hash'"
            raise ValueError(msg)
        return "hash"
    if path == "auto":
        if not _few_distinct(prep):
            return "sort"
        grouped = prep.by and not prep.weighted and prep.n_rows < 1 << 31
        return "dense" if grouped else "hash"
    if path == "dense" and (not prep.by or prep.weighted):
        msg = "path='dense' counts grouped, unweighted rows only"
        raise ValueError(msg)
    return path


def _few_distinct(prep: Prepared) -> bool:
    return prep.n_distinct <= HASH_PATH_MAX_DISTINCT_RATIO * prep.n_rows


def _tied_pairs(sorted_key: pl.Expr) -> pl.Expr:
    """``pos * neg`` of every tie mixing both classes, in ascending packed keys."""
    # Such a tie's first negative (odd key) directly follows a positive of its score:
    # in ascending keys, the two differ in the class bit only (one xor, measured ~25%
    # cheaper than `k - k.shift(1) == 1` and a test of the class bit).
    first_neg = (sorted_key ^ sorted_key.shift(1)) == 1
    found = sorted_key.filter(first_neg)
    where = pl.int_range(pl.len(), dtype=pl.Int64).filter(first_neg)
    run_start = sorted_key.search_sorted(found - 1, side="left").cast(pl.Int64)
    run_stop = sorted_key.search_sorted(found, side="right").cast(pl.Int64)
    return (where - run_start) * (run_stop - where)


def sorted_key_pair_counts(sorted_key: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """``(n_pos, n_neg, twice_u)`` (Int64, Int64, Int128) of ascending packed keys of one group.

    Plain expressions, so they also work per group inside ``group_by().agg()``. A
    negative's position minus its rank among the negatives is the number of positives
    scoring at least as high; the tied pairs, counted twice by that, are taken off once.
    """
    is_neg = (sorted_key & 1) == 1
    n_neg = is_neg.sum().cast(pl.Int64)
    n_pos = pl.len().cast(pl.Int64) - n_neg
    at_or_above = (
        pl.int_range(pl.len(), dtype=pl.Int64).filter(is_neg).sum() - n_neg * (n_neg - 1) // 2
    )
    return n_pos, n_neg, (2 * at_or_above - _tied_pairs(sorted_key).sum()).cast(pl.Int128)


_CELLS = pl.Struct(
    {
        GROUP: pl.Int64,
        "__roc_rank": pl.Int64,
        POS: pl.Int64,
        NEG: pl.Int64,
        "tp": pl.Int64,
        "fp": pl.Int64,
        "n_pos": pl.Int64,
        "n_neg": pl.Int64,
    }
)


def _running_within(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Running sums of ``values`` that restart at each index of ``starts`` (from 0)."""
    running = np.cumsum(values)
    before = running[starts] - values[starts]
    running -= np.repeat(before, np.diff(starts, append=len(values)))
    return running


def _cell_keys(batch: pl.Series) -> tuple[np.ndarray, int, int]:
    """The cell keys of a batch and the numbers of groups and distinct scores."""
    fields = batch.struct
    return (
        fields.field("key").to_numpy(),
        int(fields.field("n_groups")[0]),
        int(fields.field("n_scores")[0]),
    )


def _as_struct(name: str, dtype: pl.Struct, columns: list[np.ndarray]) -> pl.Series:
    schema = dtype.to_schema()
    return pl.DataFrame(dict(zip(schema, columns)), schema=schema).to_struct(name)


def _dense_cells(batch: pl.Series, max_cells: int) -> pl.Series:
    """The unweighted score table, in codes, of cell keys ``(g * S + s) * 2 + negative``.

    ``g`` is the group's code (``0..G-1``, in result order, every code present) and ``s``
    the score's rank among the distinct scores, highest first (``0..S-1``); both come
    from small code tables joined to the rows in the plan. With at most ``max_cells``
    (group, score) cells the counts fill a dense ``(G, S, 2)`` array (one bincount);
    otherwise only the occupied cells are counted, after a sort of the keys. Returns the
    occupied cells in table order (group, then score descending) with their counts.
    """
    if batch.len() == 0:
        return pl.Series(batch.name, [], dtype=_CELLS)
    key, n_groups, n_scores = _cell_keys(batch)
    if n_groups * n_scores <= max_cells:
        counts = np.bincount(key, minlength=2 * n_groups * n_scores)
        counts = counts.reshape(n_groups * n_scores, 2)
        cell = np.flatnonzero(counts.any(axis=1))
        pos, neg = counts[cell, 0], counts[cell, 1]
    else:
        keys, count = np.unique(key, return_counts=True)
        cell, first = np.unique(keys >> 1, return_index=True)
        is_pos = (keys & 1) == 0
        pos = np.add.reduceat(np.where(is_pos, count, 0), first)
        neg = np.add.reduceat(np.where(is_pos, 0, count), first)
    group, rank = np.divmod(cell, n_scores)
    starts = np.flatnonzero(np.diff(group, prepend=-1))
    tp, fp = _running_within(pos, starts), _running_within(neg, starts)
    sizes = np.diff(starts, append=len(cell))
    ends = starts + sizes - 1
    n_pos, n_neg = np.repeat(tp[ends], sizes), np.repeat(fp[ends], sizes)
    return _as_struct(batch.name, _CELLS, [group, rank, pos, neg, tp, fp, n_pos, n_neg])


_PAIR_COUNTS = pl.Struct({"n_pos": pl.Int64, "n_neg": pl.Int64, "__roc_twice_u": pl.Int128})


def _dense_pair_counts_kernel(batch: pl.Series, max_cells: int) -> pl.Series:
    """Per group code ``(n_pos, n_neg, twice_u)`` of the cell keys of ``_dense_cells``.

    Straight from the counts, without listing the cells: a negative pairs with the
    positives above its score (twice) and at it (once).
    """
    if batch.len() == 0:
        return pl.Series(batch.name, [], dtype=_PAIR_COUNTS)
    key, n_groups, n_scores = _cell_keys(batch)
    if n_groups * n_scores <= max_cells:
        counts = np.bincount(key, minlength=2 * n_groups * n_scores)
        counts = counts.reshape(n_groups, n_scores, 2)
        pos, neg = counts[:, :, 0], counts[:, :, 1]
        pairs = np.cumsum(pos, axis=1)  # positives at or above each score (rank 0 highest)
        n_pos = pairs[:, -1].copy()
        pairs *= 2
        pairs -= pos
        pairs *= neg
        n_neg, twice_u = neg.sum(axis=1), pairs.sum(axis=1)
    else:
        keys, count = np.unique(key, return_counts=True)
        group = keys // (2 * n_scores)
        is_neg = (keys & 1) == 1
        starts = np.flatnonzero(np.diff(group, prepend=-1))
        pos = np.where(is_neg, 0, count)
        at_or_above = _running_within(pos, starts)
        # A score's positive cell, when there is one, directly precedes its negative cell.
        tied = np.zeros_like(count)
        tied[1:] = np.where(np.diff(keys) == 1, pos[:-1], 0)
        pairs = np.where(is_neg, count * (2 * at_or_above - tied), 0)
        n_pos = np.add.reduceat(pos, starts)
        n_neg = np.add.reduceat(count - pos, starts)
        twice_u = np.add.reduceat(pairs, starts)
    return _as_struct(batch.name, _PAIR_COUNTS, [n_pos, n_neg, twice_u])


def _dense_codes(
    prep: Prepared, kernel: Callable[..., pl.Series], dtype: pl.Struct
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame]:
    """``(counted, groups, scores)``: ``kernel``'s result on the cell keys, and the two
    code tables.

    Two small code tables (the groups, sorted as results are, and the distinct scores,
    highest first) are joined to the rows; one integer key per row then indexes the
    counts (``_dense_cells``). Measured on 5M rows, 1000 groups and 1001 distinct scores,
    where a hash count of the 1M (group, score) keys takes 4.4-5x the plain sort: see
    benchmarks/README.md.
    """
    by, frame = prep.by, prep.frame
    code = pl.int_range(pl.len(), dtype=pl.Int64)
    groups = frame.group_by(by).agg().sort(by, nulls_last=False).with_columns(code.alias(GROUP))
    scores = (
        frame.group_by(SCORE)
        .agg()
        .sort(SCORE, descending=True)
        .with_columns(code.alias("__roc_rank"))
    )
    coded = frame.join(groups, on=by, how="left", nulls_equal=True).join(
        scores, on=SCORE, how="left"
    )
    n_groups, n_scores = pl.col(GROUP).max() + 1, pl.col("__roc_rank").max() + 1
    key = (pl.col(GROUP) * n_scores + pl.col("__roc_rank")) * 2 + pl.col(NEG)
    max_cells = min(max(prep.n_rows, DENSE_MIN_CELLS), DENSE_MAX_CELLS)
    counted = coded.select(
        pl.struct(key=key, n_groups=n_groups, n_scores=n_scores)
        .map_batches(partial(kernel, max_cells=max_cells), return_dtype=dtype)
        .alias("__roc_counted")
    ).unnest("__roc_counted")
    return counted, groups, scores


def _dense_table(prep: Prepared) -> pl.LazyFrame:
    """Unweighted score table of grouped rows with few distinct scores, without a row sort:
    ``[*by, __roc_group, threshold, pos, neg, tp, fp, n_pos, n_neg]`` in table order.
    """
    cells, groups, scores = _dense_codes(prep, _dense_cells, _CELLS)
    return (
        cells.join(groups, on=GROUP, how="left", maintain_order="left")
        .join(scores, on="__roc_rank", how="left", maintain_order="left")
        .select(
            *prep.by,
            GROUP,
            pl.col(SCORE).alias("threshold"),
            pl.col(POS).alias("pos"),
            pl.col(NEG).alias("neg"),
            "tp",
            "fp",
            "n_pos",
            "n_neg",
        )
    )


def _dense_pair_counts(prep: Prepared) -> pl.LazyFrame:
    """``pair_counts`` of grouped unweighted rows with few distinct scores, by codes."""
    counted, groups, _ = _dense_codes(prep, _dense_pair_counts_kernel, _PAIR_COUNTS)
    # The kernel gives one row per group code, in code order: the groups' order.
    return pl.concat([groups.select(prep.by), counted], how="horizontal")


def pair_counts_from_table(table: pl.LazyFrame, prep: Prepared) -> pl.LazyFrame:
    """:func:`pair_counts` of a ready score table: ``sum(neg * (2 * tp - pos))``.

    Summed as a running sum to each group's last row, in table order: a grouped float
    sum would add in a thread-dependent order and vary in its last bits.
    """
    # Int128 for counts: exact for any class totals that fit Int64 (2 * P * N < 2**127).
    twice_tp = pl.lit(2, pl.Int128) * pl.col("tp")
    contribution = (pl.col("neg") * (twice_tp - pl.col("pos"))).alias("__roc_twice_u")
    return (
        table.with_columns(contribution)
        .with_columns(cumulate("__roc_twice_u", prep.by, weighted=prep.weighted))
        .filter(group_end(prep.by))
        .select(*prep.by, "n_pos", "n_neg", "__roc_twice_u")
    )


def pair_counts(prep: Prepared, *, path: Path = "auto") -> pl.LazyFrame:
    """Per group ``[*by, n_pos, n_neg, __roc_twice_u]``, groups sorted (nulls first), no rows
    for empty input.

    ``twice_u`` (Int128 for counts) is twice the Mann-Whitney U: ``2 * #(positive above
    negative) + #(positive tied with negative)`` over all (positive, negative) pairs,
    weighted by the product of their weights (``roc_auc`` reads a weighted AUC off the
    table's shares instead, see ``auc_from_counts``). The AUC is
    ``twice_u / (2 * n_pos * n_neg)``. It equals
    ``sum(neg * (2 * tp - pos))`` over the score table; unweighted rows with many
    distinct scores get it straight from the sorted packed keys, without building the
    table: the positives above each negative are its position minus its rank among the
    negatives, and tied pairs are counted only where a tie mixes both classes. Grouped
    unweighted rows with few distinct scores are counted by integer codes instead
    (``path="dense"``), without sorting the rows.
    """
    path = _choose_path(prep, path)
    if path == "dense":
        return _dense_pair_counts(prep)
    if path != "sort" or prep.weighted:
        return pair_counts_from_table(build(prep, path=path), prep)
    key, _, _ = _packed_key(prep)
    k = pl.col(KEY)
    is_neg = (k & 1) == 1
    if not prep.by:
        n_pos, n_neg, twice_u = sorted_key_pair_counts(k)
        return (
            prep.frame.select(key.sort().alias(KEY))
            .select(n_pos.alias("n_pos"), n_neg.alias("n_neg"), twice_u.alias("__roc_twice_u"))
            .filter(pl.col("n_pos") + pl.col("n_neg") > 0)
        )
    # Cached: the group-level frame and the exploded rows below come from one sort.
    groups = _sorted_groups(prep, key).cache()
    rows = groups.select(GROUP, "__roc_start", KEY).explode(KEY)
    negatives = (
        rows.with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("__roc_at"))
        .filter(is_neg)
        .group_by(GROUP)
        .agg(
            pl.len().cast(pl.Int64).alias("n_neg"),
            (pl.col("__roc_at") - pl.col("__roc_start")).sum(),
        )
    )
    # Ties of both classes are found in the Int64 keys (not across a group's start);
    # their extent is searched in one ascending Int128 key, groups apart in high bits.
    at = pl.int_range(pl.len(), dtype=pl.Int64)
    wide = pl.col(GROUP).cast(pl.Int128) * pl.lit(1 << 66, pl.Int128) + k.cast(pl.Int128)
    first_neg = pl.col("__roc_first_neg")
    found, where = pl.col("__roc_wide").filter(first_neg), at.filter(first_neg)
    run_start = pl.col("__roc_wide").search_sorted(found - 1, side="left").cast(pl.Int64)
    run_stop = pl.col("__roc_wide").search_sorted(found, side="right").cast(pl.Int64)
    ties = (
        rows.with_columns(
            (((k ^ k.shift(1)) == 1) & (at != pl.col("__roc_start"))).alias("__roc_first_neg"),
            wide.alias("__roc_wide"),
        )
        .select(
            pl.col(GROUP).filter(first_neg),
            ((where - run_start) * (run_stop - where)).alias("__roc_tied"),
        )
        .group_by(GROUP)
        .agg(pl.col("__roc_tied").sum())
    )
    n_neg = pl.col("n_neg").fill_null(0)
    u_ge = pl.col("__roc_at").fill_null(0) - n_neg * (n_neg - 1) // 2
    return (
        groups.select(*prep.by, GROUP, pl.col(KEY).list.len().cast(pl.Int64).alias("__roc_n"))
        .join(negatives, on=GROUP, how="left", maintain_order="left")
        .join(ties, on=GROUP, how="left", maintain_order="left")
        .select(
            *prep.by,
            (pl.col("__roc_n") - n_neg).alias("n_pos"),
            n_neg.alias("n_neg"),
            (2 * u_ge - pl.col("__roc_tied").fill_null(0)).cast(pl.Int128).alias("__roc_twice_u"),
        )
    )


def score_table(
    frame: Frame,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    bins: int | None = None,
) -> Frame:
    """Per group and distinct score: positives, negatives and their cumulative counts.

    This is the sufficient statistic every other view is computed from. Its
    non-cumulative part ``[*by, threshold, pos, neg]`` from different partitions of the
    data merges by summing ``pos`` and ``neg`` per ``(*by, threshold)``.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    score
        Column of classifier scores; higher means more likely positive.
    label
        Column of true labels: Boolean (True is positive), 0/1 numbers (1 is positive),
        or any dtype together with ``pos_label``.
    by
        Optional segment column(s); one block of rows per group, groups sorted.
    weight
        Optional column of non-negative finite sample weights; counts become Float64.
        Weights change point estimates; DeLong's variance and the bootstrap still count
        rows (see docs/conventions.md).
    count
        Optional column of frequencies (whole numbers >= 0): each row stands for that
        many identical rows, as in a ``GROUP BY score, label`` count table. Every result,
        intervals and tests included, equals the result on the expanded rows; counts
        stay Int64. Not together with ``weight``.
    pos_label
        The label value of the positive class; every other value is negative.
    nulls
        ``"raise"`` (default) rejects null scores, labels, weights or counts; ``"drop"``
        leaves those rows out.
    direction
        ``"higher"`` (default): a higher score is more positive, and a row is predicted
        positive when ``score >= threshold``. ``"lower"``: a lower score is more
        positive (bureau scores, distances, p-values), predicted positive when
        ``score <= threshold``; thresholds stay in the score's units, and curves run
        from the lowest threshold up.
    bins
        Count into at most ``bins`` monotone buckets of the score per group instead of
        per distinct score: one read of the rows, memory independent of the rows, for
        logs too large to sort. The read runs when the call is made, for a LazyFrame
        too (Polars 2.1 cannot stream it as one plan). Each row of the table is then
        a bucket whose ``threshold`` is its lowest score in the group, so the counts at
        those thresholds are exact. See docs/big-logs.md.

    Returns
    -------
    DataFrame or LazyFrame
        Columns ``[*by, threshold, pos, neg, tp, fp, n_pos, n_neg]``, sorted by group
        and ``threshold`` descending: ``pos``/``neg`` are the rows scoring exactly
        ``threshold``, ``tp``/``fp`` those scoring ``>= threshold``, ``n_pos``/``n_neg``
        the group totals.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.8, 0.3], "label": [1, 1, 0, 0]})
    >>> pr.score_table(df)
    shape: (3, 7)
    ┌───────────┬─────┬─────┬─────┬─────┬───────┬───────┐
    │ threshold ┆ pos ┆ neg ┆ tp  ┆ fp  ┆ n_pos ┆ n_neg │
    │ ---       ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---   ┆ ---   │
    │ f64       ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64   ┆ i64   │
    ╞═══════════╪═════╪═════╪═════╪═════╪═══════╪═══════╡
    │ 0.9       ┆ 1   ┆ 0   ┆ 1   ┆ 0   ┆ 2     ┆ 2     │
    │ 0.8       ┆ 1   ┆ 1   ┆ 2   ┆ 1   ┆ 2     ┆ 2     │
    │ 0.3       ┆ 0   ┆ 1   ┆ 2   ┆ 2   ┆ 2     ┆ 2     │
    └───────────┴─────┴─────┴─────┴─────┴───────┴───────┘
    """
    prep = count_rows(
        frame,
        score=score,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        bins=bins,
    ).prep
    table = build(prep).select(pl.exclude(MIXED))
    return prep.finish(table, lambda done: group_totals(done, prep.by))


def group_totals(table: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """``[*by, n_pos, n_neg]`` per group, from any result carrying those columns."""
    if by:
        return table.group_by(by).agg(pl.col("n_pos").first(), pl.col("n_neg").first())
    return table.select(pl.col("n_pos").first(), pl.col("n_neg").first())
