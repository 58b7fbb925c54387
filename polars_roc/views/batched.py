"""Exact AUCs of a log larger than memory: segments counted a batch at a time.

The exact path sorts each segment's scores in memory (about 25-50 bytes a row). Results
per segment depend on that segment's rows only (the AUC, DeLong's placements, the
bootstrap), so a log whose segments each fit in memory is served exactly by counting
the segments in batches of about ``batch_rows`` rows: one streaming pass finds each
segment's size, then each batch reads the log again on the streaming engine, keeps its
segments' rows (a semi join on the segment columns) and runs
:func:`polars_roc.roc_auc` on them in memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import polars as pl

from polars_roc.core.arguments import normalize_by
from polars_roc.core.validate import Frame
from polars_roc.exceptions import RocOptionError
from polars_roc.views.auc import roc_auc

__all__ = ["roc_auc_in_batches"]


def roc_auc_in_batches(
    frame: Frame,
    *,
    by: str | Sequence[str],
    batch_rows: int = 100_000_000,
    **options: Any,
) -> pl.DataFrame:
    """Exact :func:`polars_roc.roc_auc` by segment, a batch of segments at a time.

    For logs too large to sort in memory at once whose segments each fit: memory is
    that of the largest batch (about ``batch_rows`` rows, or one segment larger than
    that), not of the log. Every result equals :func:`polars_roc.roc_auc` on the whole
    log (``ci="delong"`` and ``"bootstrap"`` included: both are per segment).

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` (best: a scan of Parquet files, read
        once per batch plus once for the segment sizes).
    by
        The segment column(s); required, as batches are made of whole segments.
    batch_rows
        About how many rows to sort at once. Segments are taken in result order and
        packed greedily; a segment larger than ``batch_rows`` is a batch of its own.
    **options
        Any other keyword argument of :func:`polars_roc.roc_auc` (``score``, ``label``,
        ``ci``, ``weight``, ...).

    Returns
    -------
    DataFrame
        As :func:`polars_roc.roc_auc`, always eager: the batches are computed when the
        function is called, lazy input included.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pr.datasets.load_credit().lazy()
    >>> batched = pr.roc_auc_in_batches(log, by="segment", batch_rows=500, ci="delong")
    >>> batched.equals(pr.roc_auc(log, by="segment", ci="delong").collect())
    True
    """
    by_cols = normalize_by(by)
    if not by_cols:
        msg = "roc_auc_in_batches needs `by` (batches are made of whole segments), got None"
        raise RocOptionError(msg)
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, Integral) or batch_rows < 1:
        msg = f"`batch_rows` must be a positive integer, got {batch_rows!r}"
        raise RocOptionError(msg)
    if "bins" in options:
        msg = "roc_auc_in_batches is the exact path; for bins= call roc_auc (one pass)"
        raise RocOptionError(msg)
    lf = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    if not isinstance(lf, pl.LazyFrame):
        msg = f"roc_auc_in_batches takes a polars DataFrame or LazyFrame, got {type(frame)}"
        raise TypeError(msg)
    missing = [c for c in by_cols if c not in lf.collect_schema()]
    if missing:
        # The whole call's checks (score, label, ...) run in roc_auc on the first batch.
        raise pl.exceptions.ColumnNotFoundError(f"`by` column(s) not found: {missing}")
    # Few keys (one per segment): the streaming group_by holds them in little memory.
    sizes = (
        lf.group_by(by_cols)
        .agg(pl.len().alias("__roc_rows"))
        .collect(engine="streaming")
        .sort(by_cols, nulls_last=False)
    )
    if len(sizes) <= 1:
        return _eager(roc_auc(frame, by=by_cols, **options))
    rows = sizes["__roc_rows"].to_numpy().astype(np.int64)
    batch = _pack(rows, batch_rows)
    parts = []
    for number in range(int(batch[-1]) + 1):
        keys = sizes.filter(pl.Series(batch == number)).select(by_cols)
        # In the rows' order: weighted sums then add in the same order as in one call.
        # Collected (streaming) before the call: the value checks of an eager frame
        # read columns in memory, those of a lazy grouped source hold every row's
        # group in a unique() that does not stream (~46 bytes a row measured).
        rows_of_batch = lf.join(
            keys.lazy(), on=by_cols, how="semi", nulls_equal=True, maintain_order="left"
        ).collect(engine="streaming")
        parts.append(_eager(roc_auc(rows_of_batch, by=by_cols, **options)))
        del rows_of_batch
    return pl.concat(parts)


def _pack(rows: np.ndarray, batch_rows: int) -> np.ndarray:
    """Batch number of each segment (0, 1, ... in segment order): the segments that
    start within the same window of ``batch_rows`` rows, so a batch holds at most
    ``batch_rows`` rows plus its last segment's."""
    start = np.cumsum(rows) - rows
    return np.unique(start // batch_rows, return_inverse=True)[1]


def _eager(result: Frame) -> pl.DataFrame:
    return result.collect() if isinstance(result, pl.LazyFrame) else result
