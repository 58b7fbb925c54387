"""Exact AUCs of a log larger than memory: segments counted a batch at a time.

The ordinary call on a LazyFrame batches its segments itself when their rows would not
fit (:mod:`polars_roc.core.segment_batches`); this is the explicit form, with the batch
size the caller chooses.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

import polars as pl

from polars_roc.core.arguments import normalize_by
from polars_roc.core.counting import source_schema
from polars_roc.core.segment_batches import forced_batch_rows
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

    Another engine's frame (DuckDB, Spark ...) is counted where its rows live, as
    :func:`polars_roc.roc_auc` counts it: the engine spills to disk by itself, so
    ``batch_rows`` does not apply there; the result is the same.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` (best: a scan of Parquet files, read
        twice: the value checks, which count each segment's rows, then one read that
        writes each batch's rows to a temporary file, ``TMPDIR``), or another engine's
        frame.
    by
        The segment column(s); required, as batches are made of whole segments.
    batch_rows
        At most how many rows to sort at once. Segments are taken in result order and
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
    missing = [c for c in by_cols if c not in source_schema(frame)]
    if missing:
        # The whole call's checks (score, label, ...) run in roc_auc.
        raise pl.exceptions.ColumnNotFoundError(f"`by` column(s) not found: {missing}")
    # The batches of the ordinary call on a lazy source, at the size asked for; another
    # engine's rows are counted where they live, as roc_auc counts them.
    source = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    with forced_batch_rows(int(batch_rows)):
        result = roc_auc(source, by=by_cols, **options)
    return result.collect() if isinstance(result, pl.LazyFrame) else result
