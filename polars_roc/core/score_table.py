"""The score table: the single place where rows are sorted and counted.

For every group and distinct score it holds the (weighted) number of positives and
negatives at that score and, cumulated from the highest score down, ``tp`` and ``fp``:
the positives and negatives with ``score >= threshold``. Ties are grouped here, once, so
a run of equal scores is one row (one diagonal step of the ROC curve). Every view
(curve, AUC, confusion at thresholds, ...) is a small computation over this table.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Literal, cast

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_choice
from polars_roc.core.compat import bits_as_float, explode, float_as_bits, lag
from polars_roc.core.counting import count_rows
from polars_roc.core.validate import (
    HASH_PATH_MAX_DISTINCT_RATIO,
    NEG,
    POS,
    SCORE,
    Direction,
    Frame,
    NullPolicy,
    Prepared,
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

Path = Literal["auto", "hash", "sort", "dense"]

# Grouped counts of few distinct scores: a dense (group, score, class) array up to this
# many cells, filled by one bincount; past it the occupied cells are sorted and counted.
DENSE_MIN_CELLS = 1 << 20
DENSE_MAX_CELLS = 1 << 24

KEY = "__roc_key"
GROUP = "__roc_group"
_I64_MAX = (1 << 63) - 1


def group_start(by: Sequence[str]) -> pl.Expr:
    """First row of each run of equal ``by`` (a group of a frame sorted by ``by``)."""
    first_row = pl.int_range(pl.len()) == 0
    return pl.any_horizontal(first_row, *(pl.col(c).ne_missing(lag(pl.col(c))) for c in by))


def group_end(by: Sequence[str]) -> pl.Expr:
    """Last row of each run of equal ``by`` (a group of a frame sorted by ``by``)."""
    last_row = pl.int_range(pl.len()) == pl.len() - 1
    return pl.any_horizontal(last_row, *(pl.col(c).ne_missing(pl.col(c).shift(-1)) for c in by))


def cumulate(column: str, by: Sequence[str], *, weighted: bool = True) -> pl.Expr:
    """Cumulative sum of ``column`` restarting at each group of a frame sorted by ``by``:
    for counts one running sum minus the sum before the group (exact, no window); for
    float weights per group (a difference of large sums would lose digits)."""
    running = pl.col(column).cum_sum()
    if not by:
        return running
    if weighted:
        return running.over(by)
    before_group = pl.when(group_start(by)).then(running - pl.col(column)).forward_fill()
    return running - before_group


# -- Packed sort keys --------------------------------------------------------------------
# Unweighted rows are sorted as ONE integer column: the score's order-preserving bits
# (descending) and the class in the lowest bit, positives (0) before negatives (1) within
# a tie; counts then follow from positions in the sorted keys. Bitwise `& 1` / `| 1`
# read the class and the score part (`% 2` is slower: benchmarks/README.md).


def _order_bits(score: float) -> int:
    """The integer :func:`_flipped` gives for one Float64 score's bits."""
    (bits,) = struct.unpack("<q", struct.pack("<d", score + 0.0))  # -0.0 + 0.0 is 0.0
    return bits ^ _I64_MAX if bits < 0 else bits


def _flipped(bits: pl.Expr) -> pl.Expr:
    """Negative floats' bits with all but the sign flipped: their integer order is then
    their float order (``-0.0`` normalised first); its own inverse."""
    return pl.when(bits < 0).then(bits.xor(pl.lit(_I64_MAX, pl.Int64))).otherwise(bits)


def _key_top(prep: Prepared) -> tuple[int, bool]:
    """The top score's order bits, and whether a key fits UInt64: the scores' bits span
    less than 2**63, room for the class bit (else Int128, about twice as slow)."""
    low, high = prep.score_range or (0.0, 0.0)
    top = _order_bits(high)
    return top, top - _order_bits(low) < 1 << 63


def _packed_key(prep: Prepared) -> tuple[pl.Expr, int, pl.DataType]:
    """``(highest - bits) * 2 + is_negative`` per row, the top score, and the key dtype."""
    (top, narrow), neg = _key_top(prep), pl.col(NEG)
    bits = _flipped(float_as_bits(pl.col(SCORE)))
    if narrow:
        below_top = pl.lit(top, pl.Int64) - bits  # < 2**63
        return below_top.cast(pl.UInt64) * 2 + neg.cast(pl.UInt64), top, pl.UInt64()
    below_top = pl.lit(top, pl.Int128) - bits.cast(pl.Int128)
    return below_top * 2 + neg.cast(pl.Int128), top, pl.Int128()


def _threshold_of(key: pl.Expr, prep: Prepared) -> pl.Expr:
    """The score a packed key was made from."""
    top, narrow = _key_top(prep)
    if narrow:  # key // 2 < 2**63
        bits = pl.lit(top, pl.Int64) - (key // 2).cast(pl.Int64)
    else:
        bits = (pl.lit(top, pl.Int128) - (key // 2).cast(pl.Int128)).cast(pl.Int64)
    low = (prep.score_range or (0.0, 0.0))[0]
    return bits_as_float(bits if low >= 0.0 else _flipped(bits))  # negatives flip back


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
        groups = (
            _sorted_groups(prep, key)
            .with_columns(n_neg.alias("n_neg"))
            .select(
                *prep.by,
                "__roc_start",
                pl.col(KEY).list.len().cast(pl.Int64).alias("__roc_n"),
                (pl.col("n_neg").cum_sum() - pl.col("n_neg")).alias("__roc_neg_before"),
                KEY,
            )
        )
        rows = explode(groups, [KEY])
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
        first = pl.col("__roc_start").ne_missing(lag(pl.col("__roc_start")))
        last = pl.col("__roc_start").ne_missing(pl.col("__roc_start").shift(-1))
        steps = [
            pl.when(first).then(pl.col(c)).otherwise(pl.col(c) - lag(pl.col(c))).alias(s)
            for c, s, _ in cumulated
        ]
        totals = [pl.when(last).then(pl.col(c)).backward_fill().alias(t) for c, _, t in cumulated]
    else:
        steps = [(pl.col(c) - lag(pl.col(c), fill_value=0)).alias(s) for c, s, _ in cumulated]
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

    ``path`` picks how unweighted rows are counted: per distinct score (``"hash"``), by
    sorted packed keys (``"sort"``), by group and score codes (``"dense"``), or by the
    share of distinct scores (``"auto"``); weighted rows take a stable sort.
    """
    by = prep.by
    keys = [*by, SCORE]
    descending = [False] * len(by) + [True]
    path = _choose_path(prep, path)
    if path == "dense":
        return _dense_counts(prep, _dense_cells, _CELLS).cache()
    if path == "sort" and not prep.weighted:
        # Cached: views that read the table twice (start rows, as-of joins) sort once.
        return _packed_table(prep).cache()
    if prep.sorted_cells:
        # The buckets of bins=: one row per (group, score) already, in table order.
        weighted = prep.weighted
        table = prep.frame.with_columns(
            tp=cumulate(POS, by, weighted=weighted), fp=cumulate(NEG, by, weighted=weighted)
        )
    elif prep.weighted:
        # Float weights: a stable sort then running sums add in row order, the same bits
        # on every run (a hash aggregation's order depends on the threads).
        running = (
            prep.frame.sort(keys, descending=descending, nulls_last=False, maintain_order=True)
            .with_columns(tp=cumulate(POS, by), fp=cumulate(NEG, by))
            .filter(group_end(keys))
        )
        table = running.with_columns(
            pl.when(group_start(by))
            .then(pl.col(c))
            .otherwise(pl.col(c) - lag(pl.col(c)))
            .alias(col)
            for c, col in (("tp", POS), ("fp", NEG))
        )
    else:
        # Count per distinct score first, then sort only the distinct scores; the bits
        # hash faster than the float, and a row is one unit unless counted (count=).
        units = pl.col(NEG).sum() if prep.counted else pl.len().cast(pl.Int64) - pl.col(POS).sum()
        counts = (
            prep.frame.group_by(*by, float_as_bits(pl.col(SCORE)).alias(SCORE))
            .agg(pl.col(POS).sum(), units.alias(NEG))
            .with_columns(bits_as_float(pl.col(SCORE)).alias(SCORE))
            .sort(keys, descending=descending, nulls_last=False)
        )
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


def _choose_path(prep: Prepared, path: Path) -> Path:
    """The counting path for ``path="auto"``; a requested path checked against the input.

    Few distinct scores are counted by hash, or, grouped, by codes (a hash table of
    (group, score) keys grows with the groups); many are sorted as packed keys.
    """
    check_choice("path", path, ("auto", "hash", "sort", "dense"))
    if prep.counted:
        # Packed keys and dense codes count one unit per row; a count table's rows
        # stand for many, so their counts are summed per distinct score.
        if path not in ("auto", "hash"):
            msg = f"path={path!r} counts one unit per row; a count table (count=) takes 'hash'"
            raise ValueError(msg)
        return "hash"
    if path == "auto":
        if prep.cells:  # scores cut to a few values: one hash count, one read of the rows
            return "hash"
        if prep.n_distinct > HASH_PATH_MAX_DISTINCT_RATIO * prep.n_rows:
            return "sort"
        grouped = prep.by and not prep.weighted and prep.n_rows < 1 << 31
        return "dense" if grouped else "hash"
    if path == "dense" and (not prep.by or prep.weighted):
        msg = "path='dense' counts grouped, unweighted rows only"
        raise ValueError(msg)
    return path


def _tied_pairs(sorted_key: pl.Expr) -> pl.Expr:
    """``pos * neg`` of every tie mixing both classes, in ascending packed keys."""
    # Such a tie's first negative (odd key) directly follows a positive of its score:
    # in ascending keys, the two differ in the class bit only (one xor, measured ~25%
    # cheaper than `k - k.shift(1) == 1` and a test of the class bit).
    first_neg = (sorted_key ^ lag(sorted_key)) == 1
    found = sorted_key.filter(first_neg)
    where = pl.int_range(pl.len(), dtype=pl.Int64).filter(first_neg)
    run_start = sorted_key.search_sorted(found - 1, side="left").cast(pl.Int64)
    run_stop = sorted_key.search_sorted(found, side="right").cast(pl.Int64)
    return (where - run_start) * (run_stop - where)


def sorted_key_pair_counts(sorted_key: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """``(n_pos, n_neg, twice_u)`` (Int64, Int64, Int128) of ascending packed keys of one
    group: a negative's position minus its rank among the negatives counts the positives
    at least as high; the tied pairs, counted twice so, are taken off once."""
    is_neg = (sorted_key & 1) == 1
    n_neg = is_neg.sum().cast(pl.Int64)
    n_pos = pl.len().cast(pl.Int64) - n_neg
    at_or_above = (
        pl.int_range(pl.len(), dtype=pl.Int64).filter(is_neg).sum() - n_neg * (n_neg - 1) // 2
    )
    return n_pos, n_neg, (2 * at_or_above - _tied_pairs(sorted_key).sum()).cast(pl.Int128)


_CELLS = {"threshold": pl.Float64} | dict.fromkeys(
    ("pos", "neg", "tp", "fp", "n_pos", "n_neg"), pl.Int64
)
_PAIR_COUNTS = {"n_pos": pl.Int64, "n_neg": pl.Int64, "__roc_twice_u": pl.Int128}
# Integer segment columns coded by their offset from the lowest value.
OFFSET_CODED = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)
# The lookup of `_score_codes`: buckets of the score range per distinct score, and the
# most distinct scores one bucket may hold before the codes come from a join instead.
_BUCKETS_PER_SCORE = 16
_MAX_PER_BUCKET = 3


def _running_within(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Running sums of ``values`` that restart at each index of ``starts`` (from 0)."""
    running = np.cumsum(values)
    before = running[starts] - values[starts]
    running -= np.repeat(before, np.diff(starts, append=len(values)))
    return running


def _join_codes(rows: pl.DataFrame, table: pl.DataFrame) -> np.ndarray:
    """Each row's position in ``table`` (its distinct rows), by a hash join (lazy: faster
    than an eager one inside the UDF, benchmarks/README.md)."""
    coded = rows.lazy().join(
        table.lazy().with_row_index(GROUP),
        on=table.columns,
        how="left",
        nulls_equal=True,
        maintain_order="left",
    )
    return coded.select(GROUP).collect().to_series().to_numpy().astype(np.int64)


def _group_codes(rows: pl.DataFrame, max_groups: int) -> tuple[np.ndarray, int, pl.DataFrame]:
    """``(values, low, groups)``: a row's group code is its ``values - low``; ``groups``
    lists the groups in code order (sorted, nulls first). One integer column of a short
    span is its own code (no hash table; unused codes are left out later), others are
    coded by a join to their distinct rows."""
    column = rows.to_series(0)
    nulls = column.null_count()
    if rows.width == 1 and column.dtype in OFFSET_CODED and nulls < len(column):
        low, high = cast("int", column.min()), cast("int", column.max())
        if -(1 << 32) < low and high < 1 << 32 and high - low < max_groups:
            low -= nulls > 0
            values = column.cast(pl.Int64).fill_null(low) if nulls else column
            codes = pl.Series(column.name, np.arange(low, high + 1), dtype=pl.Int64)
            codes = codes.scatter(0, None) if nulls else codes
            return values.to_numpy(), low, codes.cast(column.dtype).to_frame()
    groups = rows.lazy().group_by(rows.columns).agg().sort(rows.columns, nulls_last=False)
    table = groups.collect()
    return _join_codes(rows, table), 0, table


def _score_codes(score: pl.Series, scores: np.ndarray, step: int, shift: int) -> np.ndarray:
    """``step * rank + shift`` of each row's score, ``rank`` its position in ``scores``
    (the distinct scores, highest first), from a lookup table (a binary search is slower):
    equal-width buckets of the finite range map to their highest distinct score, and a
    row steps down while the next one is still >= its own. Clustered scores (many in a
    bucket) are ranked by a join."""
    values = score.to_numpy()
    finite = scores[np.isfinite(scores)]
    width = _BUCKETS_PER_SCORE * len(scores)
    top, span = (finite[0], finite[0] - finite[-1]) if len(finite) else (0.0, 0.0)
    with np.errstate(over="ignore", divide="ignore"):
        scale = width / span if span > 0 else 1.0
    scale = scale if np.isfinite(scale) else 1.0  # such spans fill few buckets: a join
    infinite = len(finite) < len(scores)

    def bucket(x: np.ndarray) -> np.ndarray:  # non-decreasing as x decreases
        shifted = np.subtract(top, x)
        if not infinite:  # cast as it is multiplied: no second array of a row each
            return np.multiply(shifted, scale, out=shifted.view(np.int64), casting="unsafe")
        shifted *= scale  # -inf to bucket 0, +inf to the last, finite scores 1..width+1
        np.clip(shifted, -1.0, width, out=shifted)
        shifted += 1.0
        return shifted.astype(np.int64)

    found = bucket(scores)
    depth = np.bincount(found).max() - 1
    lookup = np.searchsorted(found, np.arange(width + 2))
    if depth > _MAX_PER_BUCKET:
        rank = _join_codes(score.to_frame(), pl.DataFrame({score.name: scores}))
    elif depth:
        rank = lookup[bucket(values)]
        below = np.append(scores[1:], np.nan)  # NaN: the lowest score steps no further
        for _ in range(depth):
            rank += below[rank] >= values
    else:  # one gather gives the result
        found = bucket(values)
        return np.take(lookup * step + shift, found, out=found, mode="clip")
    rank *= step
    rank += shift
    return rank


def _cell_keys(
    batch: pl.Series, by: list[str], max_cells: int
) -> tuple[np.ndarray, pl.DataFrame, np.ndarray]:
    """``(keys, groups, scores)``: each row's cell key ``(g * S + s) * 2 + negative``
    (``g`` its group's code, ``s`` its score's rank), the groups in code order and the
    distinct scores, highest first."""
    rows = batch.struct.unnest()
    score = rows.get_column(SCORE)
    # maintain_order=True is faster than an unordered unique (benchmarks/README.md).
    scores = score.unique(maintain_order=True).sort(descending=True).to_numpy()
    n = len(scores)
    values, low, groups = _group_codes(rows.select(by), max(max_cells // n, 1))
    key = np.multiply(values, 2 * n, dtype=np.int64)
    key += _score_codes(score, scores, 2, -2 * n * low)
    key += rows.get_column(NEG).to_numpy()
    return key, groups, scores


def _as_struct(
    name: str, groups: pl.DataFrame, columns: Sequence[np.ndarray], fields: dict[str, Any]
) -> pl.Series:
    counts = pl.DataFrame(dict(zip(fields, columns)), schema=fields)
    return groups.hstack(counts).to_struct(name)


def _dense_cells(batch: pl.Series, by: list[str], max_cells: int) -> pl.Series:
    """The unweighted score table of the rows' cell keys (``_cell_keys``), in table order:
    a dense ``(G, S, 2)`` bincount up to ``max_cells`` cells, else the sorted keys'."""
    if batch.len() == 0:
        return _as_struct(batch.name, batch.struct.unnest().select(by), [], _CELLS)
    key, groups, scores = _cell_keys(batch, by, max_cells)
    n_scores = len(scores)
    if groups.height * n_scores <= max_cells:
        counts = np.bincount(key, minlength=2 * groups.height * n_scores)
        counts = counts.reshape(groups.height * n_scores, 2)
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
    columns = [scores[rank], pos, neg, tp, fp, n_pos, n_neg]
    return _as_struct(batch.name, groups[group], columns, _CELLS)


def _dense_pair_counts_kernel(batch: pl.Series, by: list[str], max_cells: int) -> pl.Series:
    """``[*by, n_pos, n_neg, __roc_twice_u]`` of the groups holding rows, from the counts
    of the cell keys: a negative pairs with the positives above its score (twice) and at
    it (once)."""
    if batch.len() == 0:
        return _as_struct(batch.name, batch.struct.unnest().select(by), [], _PAIR_COUNTS)
    key, groups, scores = _cell_keys(batch, by, max_cells)
    n_groups, n_scores = groups.height, len(scores)
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
        group = np.flatnonzero(n_pos + n_neg)
        n_pos, n_neg, twice_u = n_pos[group], n_neg[group], twice_u[group]
    else:
        keys, count = np.unique(key, return_counts=True)
        codes = keys // (2 * n_scores)
        is_neg = (keys & 1) == 1
        starts = np.flatnonzero(np.diff(codes, prepend=-1))
        pos = np.where(is_neg, 0, count)
        at_or_above = _running_within(pos, starts)
        # A score's positive cell, when there is one, directly precedes its negative cell.
        tied = np.zeros_like(count)
        tied[1:] = np.where(np.diff(keys) == 1, pos[:-1], 0)
        pairs = np.where(is_neg, count * (2 * at_or_above - tied), 0)
        n_pos = np.add.reduceat(pos, starts)
        n_neg = np.add.reduceat(count - pos, starts)
        twice_u = np.add.reduceat(pairs, starts)
        group = codes[starts]
    return _as_struct(batch.name, groups[group], [n_pos, n_neg, twice_u], _PAIR_COUNTS)


def _dense_counts(prep: Prepared, kernel: Callable[..., pl.Series], fields: dict) -> pl.LazyFrame:
    """``kernel``'s per-group result on the rows, unnested: one UDF over whole columns,
    with no code tables and no join in the plan (benchmarks/README.md)."""
    schema = prep.frame.collect_schema()
    dtype = pl.Struct({name: schema[name] for name in prep.by} | fields)
    max_cells = min(max(prep.n_rows, DENSE_MIN_CELLS), DENSE_MAX_CELLS)
    counted = pl.struct(*prep.by, SCORE, pl.col(NEG).cast(pl.Int8)).map_batches(
        partial(kernel, by=prep.by, max_cells=max_cells), return_dtype=dtype
    )
    return prep.frame.select(counted.alias("__roc_counted")).unnest("__roc_counted")


def pair_counts_from_table(table: pl.LazyFrame, prep: Prepared) -> pl.LazyFrame:
    """:func:`pair_counts` of a ready score table: ``sum(neg * (2 * tp - pos))``, as a
    running sum in table order (a grouped float sum's last bits vary from run to run)."""
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
    weighted by the product of their weights; the AUC is ``twice_u / (2 * n_pos *
    n_neg)``. Unweighted rows with many distinct scores get it from the sorted packed
    keys without the score table: the positives above a negative are its position minus
    its rank among the negatives, tied pairs counted where a tie mixes both classes.
    """
    path = _choose_path(prep, path)
    if path == "dense":
        return _dense_counts(prep, _dense_pair_counts_kernel, _PAIR_COUNTS)
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
    rows = explode(groups.select(GROUP, "__roc_start", KEY), [KEY])
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
            (((k ^ lag(k)) == 1) & (at != pl.col("__roc_start"))).alias("__roc_first_neg"),
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
        Count into ``bins`` equal-width buckets of the score per group instead of per
        distinct score (no sort; memory of the buckets, not of the rows; the same
        buckets on every backend). The rows are read when the call is made, for a
        LazyFrame too. Each row of the table is then a bucket whose ``threshold`` is its
        lowest score in the group, so the counts at those thresholds are exact. See
        docs/big-logs.md.

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
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, bins=bins, table_only=True).prep
    return prep.finish(build(prep), lambda done: group_totals(done, prep.by))


def group_totals(table: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """``[*by, n_pos, n_neg]`` per group, from any result carrying those columns."""
    totals = pl.col("n_pos", "n_neg").first()
    return table.group_by(by).agg(totals) if by else table.select(totals)
