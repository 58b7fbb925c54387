"""The last step of every view: the caller's kind of frame, counts as Int64, warnings once.

Views built on a :class:`~polars_roc.core.validate.Prepared` end with
:meth:`Prepared.finish` (score columns back into the user's units, the one-class
warning); :func:`finish_result` is that same ending for every view, with or without one,
so that eager in gives eager out, lazy in lazy out, and a count column is Int64 whatever
expression produced it (``pl.len()`` is UInt32).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import polars as pl

from polars_roc.core.validate import Frame, Prepared, finishing_engine

__all__ = ["finish_result"]


def finish_result(
    result: pl.LazyFrame,
    *,
    eager: bool,
    prep: Prepared | None = None,
    totals: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    consequence: str | None = None,
    counts: Sequence[str] = (),
    rows: int | None = None,
) -> Frame:
    """Return ``result`` as the caller's frame: the one way a view finishes.

    Parameters
    ----------
    result
        The view's plan.
    eager
        Whether the caller gave a DataFrame (a DataFrame comes back) or a LazyFrame.
    prep
        The view's prepared input, if any, whose :meth:`Prepared.finish` ends the plan
        (a view preparing its input lazily to warn about groups its result does not
        show, e.g. folds, passes a lazy ``prep`` and the caller's ``eager``).
    totals, consequence
        As in :meth:`Prepared.finish` (``totals`` defaults to the result itself).
    counts
        Columns holding counts: integers become Int64 (weights, Float64, stay).
    rows
        The eager log's rows, when known without ``prep``: a small log's plan is
        collected in memory (:func:`~polars_roc.core.validate.finishing_engine`).
    """
    if counts:
        schema = result.collect_schema()
        result = result.with_columns(
            pl.col(c).cast(pl.Int64) for c in counts if schema[c].is_integer()
        )
    if prep is None:
        engine = finishing_engine(rows)
        return result.collect(engine=engine) if eager else result
    finished = prep.finish(result, totals or (lambda done: done), consequence=consequence)
    if prep.eager or not eager:
        return finished
    return cast(pl.LazyFrame, finished).collect()
