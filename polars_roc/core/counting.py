"""The one counting step of the views: rows, wherever they live, to a prepared table.

Views call :func:`count_rows` with the frame and their options and get a
:class:`Counted`: the :class:`~polars_roc.core.validate.Prepared` table that every view
reads (Polars rows, a count table, or an engine's cells or buckets), and the engine's
buckets when ``bins=`` cut them there. Which counter ran
(Polars, the engine's ``GROUP BY`` per score, the engine's buckets) is decided here,
once, so that no view tests where the rows live.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_roc.core.engine_auc import auc_in_buckets
from polars_roc.core.engine_buckets import EngineBuckets, engine_buckets
from polars_roc.core.engines import is_polars, ranks_in_windows
from polars_roc.core.validate import Direction, NullPolicy, Prepared, normalize_by, prepare

__all__ = ["Counted", "auc_in_engine", "count_rows"]


@dataclass(frozen=True)
class Counted:
    """What counting yields: ``prep``, the table every view reads, and ``buckets``.

    ``buckets`` is None when every group was counted exactly (one score per distinct
    score; with ``bins=`` on Polars rows, the binned table of ``prep`` itself). With
    ``bins=`` on an engine frame it is the engine's buckets
    (:class:`~polars_roc.core.engine_buckets.EngineBuckets`), whose ``auc_bound()``
    bounds what the buckets hide.
    """

    prep: Prepared
    buckets: EngineBuckets | None = None


def count_rows(
    frame: Any,
    *,
    score: str,
    label: str,
    by: str | Sequence[str] | None,
    weight: str | None,
    count: str | None,
    pos_label: Any,
    nulls: NullPolicy,
    direction: Direction,
    reserved: Collection[str] = (),
    bins: int | None = None,
) -> Counted:
    """Count ``frame`` for a view (see the module docstring).

    ``bins``: at most ``bins`` monotone buckets of the score per group (Polars' binned
    counter; an engine's equal-width buckets, all of them reported in ``buckets``).
    Without it every source is counted exactly, one row per distinct score.
    """
    if not is_polars(frame) and bins is not None and ranks_in_windows(frame):
        cut = engine_buckets(
            frame,
            score=score,
            label=label,
            by=normalize_by(by),
            weight=weight,
            count=count,
            pos_label=pos_label,
            nulls=nulls,
            direction=direction,
            reserved=tuple(reserved),
            bins=bins,
        )
        return Counted(cut.prep, cut)
    prep = prepare(
        frame,
        score=score,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        reserved=reserved,
        bins=bins,
    )
    return Counted(prep)


def auc_in_engine(
    frame: Any,
    *,
    score: str,
    label: str,
    by: str | Sequence[str] | None,
    weight: str | None,
    count: str | None,
    pos_label: Any,
    nulls: NullPolicy,
    direction: Direction,
) -> pl.DataFrame | None:
    """The exact AUC of another engine's rows counted there
    (:func:`~polars_roc.core.engine_auc.auc_in_buckets`: buckets and ranks within
    them), or None where that counter does not apply (Polars rows, weights, counts, an
    engine without windows per group): the caller then counts with :func:`count_rows`.
    """
    if is_polars(frame) or (weight, count) != (None, None) or not ranks_in_windows(frame):
        return None
    return auc_in_buckets(
        frame,
        score=score,
        label=label,
        by=normalize_by(by),
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
    )
