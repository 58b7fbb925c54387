"""Exact per-group results of a lazy source too large to sort at once: groups in batches.

The exact paths sort each group's scores in memory (about 50 bytes a row for the AUC's
pair counts, 70 for the score table that DeLong, weights and the bootstrap read;
measured in benchmarks/README.md). Every per-group result depends on that group's rows
only, so when a LazyFrame's rows would not fit, :func:`per_group` computes the view's
plan a batch of whole groups at a time: the value pass has counted each group's rows
(:func:`~polars_roc.core.validate.prepare`), the groups are packed in result order into
batches of at most :func:`batch_rows` rows, and one more streaming read of the source
writes each batch's rows (the columns in play, in the source's order) to a file of its
own in a temporary folder (``TMPDIR``; Arrow IPC, uncompressed), deleted when the call
returns or fails. Each batch is then read back from its file and the plan run on it in
memory. The plan reads the one :class:`Prepared` of the whole source (its counting path,
score range and class totals), so each group's numbers are those of one call, bit for
bit; the batches' results, each in group order, are concatenated.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

import numpy as np
import polars as pl

from polars_roc.core.compat import partition_by_key
from polars_roc.core.score_table import HASH_PATH_MAX_DISTINCT_RATIO, OFFSET_CODED
from polars_roc.core.validate import Prepared
from polars_roc.exceptions import RocOptionError

__all__ = ["batch_rows", "forced_batch_rows", "per_group"]

# Peak bytes per row of the exact plans (the AUC's pair counts, the score table), as
# measured in benchmarks/README.md.
BYTES_PER_ROW = {"pairs": 50, "table": 70}
# The share of the machine's memory a batch may take (the rest: other work, Polars'
# buffers); the environment variable POLARS_ROC_MEMORY (bytes) replaces the machine's.
MEMORY_SHARE = 4
# And at most this many rows: sorts slow down past a few GiB (figures in
# benchmarks/README.md).
MAX_BATCH_ROWS = 50_000_000
# The column of the batch numbers, written as the folders' names only.
_BATCH = "__roc_batch"

_FORCED: ContextVar[int | None] = ContextVar("polars_roc_batch_rows", default=None)


@contextmanager
def forced_batch_rows(rows: int) -> Iterator[None]:
    """Within the block, every exact plan that can be batched is, ``rows`` at a time
    (:func:`polars_roc.roc_auc_in_batches`)."""
    token = _FORCED.set(rows)
    try:
        yield
    finally:
        _FORCED.reset(token)


def memory() -> int:
    """The bytes of memory batches are sized for: ``POLARS_ROC_MEMORY``, else the
    machine's physical memory (16 GiB where the system does not say)."""
    if "POLARS_ROC_MEMORY" in os.environ:
        return int(os.environ["POLARS_ROC_MEMORY"])
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 16 << 30


def batch_rows(plan: str) -> int:
    """Rows a batch of the exact ``plan`` (``"pairs"`` or ``"table"``) holds at most."""
    forced = _FORCED.get()
    if forced is not None:
        return forced
    return max(1, min(MAX_BATCH_ROWS, memory() // MEMORY_SHARE // BYTES_PER_ROW[plan]))


def per_group(
    prep: Prepared, compute: Callable[[Prepared], pl.LazyFrame], *, plan: str
) -> pl.LazyFrame:
    """``compute(prep)``, or, for a lazy source whose sorted rows would exceed the
    memory of :func:`batch_rows`, its results for batches of whole groups, computed now
    and concatenated (see the module docstring). ``plan`` names the memory the plan
    takes per row (:data:`BYTES_PER_ROW`).

    A single group too large for the machine's memory is refused before the sort, with
    the options that count it in less.
    """
    groups = _rows_to_sort(prep)
    if groups is None or groups.height == 0:
        return compute(prep)
    rows = groups["n_kept"].to_numpy().astype(np.int64)
    limit = batch_rows(plan)
    if _FORCED.get() is None:
        _refuse_too_large(prep, groups, rows, plan)
        if rows.sum() * BYTES_PER_ROW[plan] <= memory() // MEMORY_SHARE:
            return compute(prep)  # fits: one plan, no batches
    if len(rows) <= 1 or not _exact_keys(prep):
        return compute(prep)
    assert prep.source is not None and prep.internal_of is not None
    numbers = _pack(rows, limit)
    keys = groups.select(prep.by).with_columns(pl.Series(_BATCH, numbers))
    _check_room(prep.source, int(rows.sum()))
    parts = []
    with tempfile.TemporaryDirectory(prefix="polars_roc-") as folder:
        # One streaming read of the source: each batch's rows to a file of its own, in
        # the source's order (weights then add as in one call).
        tagged = _tagged(prep.source, keys)
        tagged.sink_ipc(partition_by_key(folder, _BATCH), mkdir=True, engine="streaming")
        for number in range(int(numbers[-1]) + 1):
            rows_of_batch = _read_batch(folder, number)
            part = compute(replace(prep, frame=prep.internal_of(rows_of_batch.lazy())))
            parts.append(part.collect())
            del rows_of_batch
    return pl.concat(parts).lazy()


def _rows_to_sort(prep: Prepared) -> pl.DataFrame | None:
    """The kept rows per group ``[*by, n_kept]``, groups in result order, of a lazy
    Polars source whose exact plan sorts its rows (weights, or many distinct scores; no
    count table, no buckets; few distinct unweighted scores only when forced), else None."""
    if prep.source is None or prep.counted or prep.bins is not None:
        return None
    few = prep.n_distinct <= HASH_PATH_MAX_DISTINCT_RATIO * prep.n_rows
    if few and not prep.weighted and _FORCED.get() is None:
        return None  # counted per distinct score, in the memory of the distinct scores
    if prep.group_rows is None:  # one group: the log
        return pl.DataFrame({"n_kept": [prep.n_rows]})
    return prep.group_rows.sort(prep.by, nulls_last=False)


def _exact_keys(prep: Prepared) -> bool:
    """Whether the group keys filter as they group: not floats (-0.0 and 0.0, NaNs)."""
    schema = prep.source.collect_schema() if prep.source is not None else {}
    return bool(prep.by) and not any(schema[c].is_float() or schema[c].is_nested() for c in prep.by)


def _refuse_too_large(prep: Prepared, groups: pl.DataFrame, rows: np.ndarray, plan: str) -> None:
    """Refuse a group whose sort alone needs more than the machine's memory."""
    largest = int(rows.argmax())
    need = int(rows[largest]) * BYTES_PER_ROW[plan]
    if need <= memory():
        return
    key = groups.row(largest, named=True)
    which = f"the group {dict((c, key[c]) for c in prep.by)!r}" if prep.by else "the log"
    msg = (
        f"{which} holds {rows[largest]:,} rows: sorting them for the exact result needs "
        f"about {need / 2**30:.1f} GiB, more than this machine's "
        f"{memory() / 2**30:.1f} GiB. Count it where it lives instead: pass the log as a "
        "DuckDB relation (pr.roc_auc(duckdb.read_parquet(...), ...): exact, DuckDB "
        "spills to disk), or add bins=8192 (a point estimate with a certified bound, in "
        "the memory of the buckets); see docs/big-logs.md. If the estimate is wrong for "
        "this machine, set POLARS_ROC_MEMORY to the bytes to plan for"
    )
    raise RocOptionError(msg)


def _check_room(source: pl.LazyFrame, rows: int) -> None:
    """Refuse before the write a copy of ``rows`` rows of ``source`` that would not fit
    in the temporary folder (its bytes as Polars estimates them, text 16 a value)."""
    folder = tempfile.gettempdir()
    need = pl.DataFrame(schema=source.collect_schema()).clear(1000).estimated_size() * rows // 1000
    free = shutil.disk_usage(folder).free
    if need > free:
        msg = (
            f"the exact plan sorts its {rows:,} rows in batches, written first to the "
            f"temporary folder {folder!r} (about {need / 1e9:.1f} GB), which has "
            f"{free / 1e9:.1f} GB free: set TMPDIR to a folder with room, or add "
            "bins=8192 (a point estimate with a certified bound, no copy; see docs/big-logs.md)"
        )
        raise RocOptionError(msg)


# A single integer segment column spanning at most this many values finds each row's
# batch in a table indexed by its value: half the CPU of the join (benchmarks/README.md).
_TABLE_SPAN = 1 << 22


def _tagged(source: pl.LazyFrame, keys: pl.DataFrame) -> pl.LazyFrame:
    """``source`` with each row's batch number in column ``_BATCH`` (``keys``: the groups
    ``[*by, _BATCH]``). Rows of no group of ``keys`` (every row dropped as null) are
    left out by the join, or numbered one past the last batch by the table."""
    by, column = keys.columns[:-1], keys.to_series(0)
    joined = source.join(keys.lazy(), on=by, nulls_equal=True, maintain_order="left")
    if len(by) > 1 or column.dtype not in OFFSET_CODED:
        return joined
    values = column.drop_nulls().cast(pl.Int64).to_numpy()
    low, high = (int(values.min()), int(values.max())) if len(values) else (0, -1)
    # The clip's bounds below are Int64s.
    if low == -(1 << 63) or high == (1 << 63) - 1 or high - low >= _TABLE_SPAN:
        return joined
    # Slots: 0 below the lowest group, 1 + (value - low) for the groups, then one above
    # the highest, and the null group's last.
    span = high - low + 1
    numbers = keys[_BATCH].to_numpy()
    table = np.full(span + 3, numbers.max() + 1, dtype=np.int64)
    table[values - low + 1] = numbers[column.is_not_null().to_numpy()]
    if column.null_count():
        table[-1] = numbers[0]  # nulls first
    value = pl.col(by[0]).cast(pl.Int64).clip(low - 1, high + 1)
    slot = (value - (low - 1)).fill_null(span + 2)
    return source.with_columns(pl.lit(pl.Series(table)).gather(slot).alias(_BATCH))


def _read_batch(folder: str, number: int) -> pl.DataFrame:
    """The rows of batch ``number``, as written (the inner join kept only its groups')."""
    return pl.scan_ipc(os.path.join(folder, f"{_BATCH}={number}", "*.ipc")).collect()


def _pack(rows: np.ndarray, limit: int) -> np.ndarray:
    """Batch number of each group (0, 1, ... in group order): consecutive groups of at
    most ``limit`` rows together, a larger group alone (one step per batch, not per group)."""
    ends = np.cumsum(rows)
    batch = np.empty(len(rows), dtype=np.int64)
    start = number = 0
    while start < len(rows):
        stop = int(np.searchsorted(ends, ends[start] - rows[start] + limit, side="right"))
        stop = max(stop, start + 1)
        batch[start:stop] = number
        start, number = stop, number + 1
    return batch
