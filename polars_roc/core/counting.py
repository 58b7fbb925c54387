"""The one counting step of the views: rows, wherever they live, to a prepared table.

Views call :func:`count_rows` with the frame and their options and get a
:class:`Counted`: the :class:`~polars_roc.core.validate.Prepared` table that every view
reads (Polars rows, a count table, an engine's cells, or the buckets of ``bins=``), and
those buckets. Which counter ran (Polars, the engine's ``GROUP BY`` per score, the one
bucketing scheme run by Polars or by the engine) is decided here, once, so that no view
tests where the rows live.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_roc.core.buckets import Buckets, engine_buckets, polars_buckets
from polars_roc.core.engine_auc import auc_in_buckets
from polars_roc.core.engines import (
    ENGINE_COUNT,
    count_in_engine,
    is_polars,
    native_frame,
    ranks_in_windows,
)
from polars_roc.core.validate import (
    Direction,
    NullPolicy,
    Prepared,
    check_bins,
    check_engine_values,
    normalize_by,
    prepare,
)

__all__ = ["Counted", "auc_in_engine", "count_rows", "source_schema", "truncated"]


@dataclass(frozen=True)
class Counted:
    """What counting yields: ``prep``, the table every view reads, and ``buckets``.

    ``buckets`` is None when every group was counted exactly (one score per distinct
    score). With ``bins=`` it is the buckets
    (:class:`~polars_roc.core.buckets.Buckets`), whose ``auc_bound()`` bounds what the
    buckets hide, and ``prep`` their count table.
    """

    prep: Prepared
    buckets: Buckets | None = None


def count_rows(
    frame: Any,
    *,
    score: str,
    label: str,
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    reserved: Collection[str] = (),
    bins: int | None = None,
    score_cuts: Sequence[float] | None = None,
    **options: Any,
) -> Counted:
    """Count ``frame`` for a view (see the module docstring).

    ``bins``: ``bins`` equal-width buckets of the score per group, one scheme for every
    source (:mod:`polars_roc.core.buckets`), reported in ``buckets``. Without it every
    source is counted exactly, one row per distinct score.
    ``score_cuts`` are the only thresholds the view reads counts at: another engine's
    rows are then counted per threshold they fall to rather than per distinct score
    (:func:`~polars_roc.core.engines.count_in_engine`). ``options`` go to
    :func:`~polars_roc.core.validate.prepare` (a paired score, a check of the caller's
    in the same pass ...).
    """
    roles = {
        "score": score,
        "label": label,
        "weight": weight,
        "count": count,
        "pos_label": pos_label,
        "nulls": nulls,
        "direction": direction,
        "reserved": reserved,
    }
    if is_polars(frame):
        return bucketed(prepare(frame, by=by, bins=bins, **roles, **options))
    by_cols = normalize_by(by)
    if bins is not None and ranks_in_windows(frame):
        cut = engine_buckets(frame, by=by_cols, bins=bins, **roles)
        return Counted(cut.prep, cut)
    # Another engine checks its rows (the messages count rows, as on Polars), then
    # counts them: its count table goes on as any count table (with weight=, a table
    # of weight sums that knows each cell's rows).
    paired = options.get("paired_score")
    scores = [score] if paired is None else [score, paired]
    bins = check_bins(bins)  # the other options: by check_engine_values, before any read
    check_engine_values(frame, scores=scores, by=by_cols, **without(roles, "score"))
    cuts = None if score_cuts is None or paired else (score, score_cuts, direction)
    table = count_in_engine(
        frame, keys=[*by_cols, *scores, label], weight=weight, count=count, nulls=nulls, cuts=cuts
    )
    counted = {"count": count or ENGINE_COUNT} if weight is None else {"engine_units": True}
    return bucketed(prepare(table, by=by_cols, bins=bins, **{**roles, **counted}, **options))


def bucketed(prep: Prepared) -> Counted:
    """``prep`` counted, into the buckets of ``bins=`` when it asks for them (Polars
    rows, or the count table of an engine without windows)."""
    if prep.bins is None:
        return Counted(prep)
    cut = polars_buckets(prep)
    return Counted(cut.prep, cut)


def without(mapping: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k not in keys}


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
    delong: bool = False,
    reserved: Sequence[str] = ("auc",),
) -> pl.DataFrame | None:
    """The exact AUC ``[*by, auc, n_pos, n_neg]`` (with ``delong``: and DeLong's
    ``auc_var``) of another engine's rows counted there
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
        delong=delong,
        reserved=reserved,
    )


def source_schema(frame: Any) -> pl.Schema:
    """The Polars schema of any source: a Polars frame's, or that of another engine's
    frame's first zero rows (no data read)."""
    if is_polars(frame):
        return frame.collect_schema()
    return native_frame(frame).lazy().head(0).collect(backend="polars").to_native().schema


def truncated(frame: Any, column: str, every: str) -> Any:
    """``frame`` with the Date/Datetime ``column`` truncated to ``every`` where the rows
    live (Polars' duration strings, as narwhals passes them to the engine)."""
    if is_polars(frame):
        return frame.with_columns(pl.col(column).dt.truncate(every))
    import narwhals as nw  # installed with altair; imported only for other engines

    rows = native_frame(frame)
    dtype = rows.collect_schema()[column]  # DuckDB truncates a DATE to a TIMESTAMP
    return rows.with_columns(nw.col(column).dt.truncate(every).cast(dtype)).to_native()
