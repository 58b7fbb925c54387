"""The cells a bootstrap resamples, as a lazy plan, and the resampler of collected cells.

Unweighted, the cells are the score table's rows; weighted, they are counted from the
rows (the bootstrap draws rows, so it needs the rows per cell beside the weight sums).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np
import polars as pl

from polars_roc.core.compat import map_frame
from polars_roc.core.score_table import build, group_start
from polars_roc.core.validate import NEG, NEG_UNITS, POS, POS_UNITS, SCORE, Prepared
from polars_roc.stats.bootstrap import Resampler
from polars_roc.stats.partial import Layout

__all__ = [
    "agg_per_group",
    "attach",
    "group_layout",
    "keyed",
    "on_collected",
    "ordered_mean",
    "ordered_std",
    "ordered_sum",
    "over",
    "read_once",
    "resampler",
    "resampling_cells",
    "unit_counts",
]

POS_ROWS, NEG_ROWS = "__roc_pos_rows", "__roc_neg_rows"


FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def attach(result: FrameT, extra: FrameT, keys: list[str]) -> FrameT:
    """Add ``extra``'s columns to ``result``, matching rows on ``keys`` (nulls match)."""
    if not keys:
        return result.join(extra, how="cross")
    return result.join(extra, on=keys, how="left", nulls_equal=True, maintain_order="left")


def resampling_cells(
    prep: Prepared, table: pl.LazyFrame | None = None, *, keep_score: bool = False
) -> pl.LazyFrame:
    """Resampling cells ``[*by, pos, neg, POS_ROWS, NEG_ROWS]`` in score-table order
    (``[*by, SCORE, ...]`` with ``keep_score``).

    Unweighted, the score table itself (its counts are rows). Weighted, the rows of each
    class per cell are needed besides the weight sums, so the cells are counted here with
    a hash aggregation and only the distinct cells are sorted.
    """
    by = prep.by
    if not prep.weighted:
        # The view's own score table when it has one: one plan node, one read.
        score = [pl.col("threshold").alias(SCORE)] if keep_score else []
        rows = [pl.col("pos").alias(POS_ROWS), pl.col("neg").alias(NEG_ROWS)]
        return (build(prep) if table is None else table).select(*by, *score, "pos", "neg", *rows)
    keys = [*by, SCORE]
    cells = (
        prep.frame.group_by(keys)
        # Weight sums added in row order: the same bits on every call.
        .agg(
            ordered_sum(pl.col(POS)).alias("pos"),
            ordered_sum(pl.col(NEG)).alias("neg"),
            *unit_counts(prep),
        )
        .sort(keys, descending=[False] * len(by) + [True], nulls_last=False)
    )
    return cells if keep_score else cells.drop(SCORE)


def read_once(prep: Prepared, bootstrap: bool) -> Prepared:
    """``prep`` with its rows cached when a weighted bootstrap reads them twice: the
    score table (a stable sort) and the resampling cells (the weight sums and the rows
    per cell) then share one scan of the source."""
    if bootstrap and prep.weighted:
        return replace(prep, frame=prep.frame.cache())
    return prep


def unit_counts(prep: Prepared) -> list[pl.Expr]:
    """Aggregations giving the units a cell stands for, per class: what the bootstrap
    draws. A weighted row is one unit (it brings its weight); an unweighted row or a
    count-table row stands for its count."""
    if prep.engine_units:
        return [pl.col(POS_UNITS).sum().alias(POS_ROWS), pl.col(NEG_UNITS).sum().alias(NEG_ROWS)]
    if prep.weighted:
        return [
            (pl.col(POS) > 0).sum().cast(pl.Int64).alias(POS_ROWS),
            (pl.col(NEG) > 0).sum().cast(pl.Int64).alias(NEG_ROWS),
        ]
    return [pl.col(POS).sum().alias(POS_ROWS), pl.col(NEG).sum().alias(NEG_ROWS)]


def group_layout(frame: pl.DataFrame, by: list[str]) -> tuple[Layout, pl.DataFrame]:
    """Where each group of ``by`` lies in ``frame`` (sorted by group), and its keys in order
    (no columns when ungrouped)."""
    starts = frame.select(group_start(by).arg_true()).to_series().to_numpy().astype(np.int64)
    keys = frame.select(by)[starts] if by else pl.DataFrame()
    return Layout(starts, np.diff(np.append(starts, frame.height))), keys


def resampler(cells: pl.DataFrame, by: list[str]) -> tuple[Resampler, pl.DataFrame]:
    """The resampler of collected cells, and the group keys in order."""
    layout, keys = group_layout(cells, by)

    def column(name: str) -> np.ndarray:
        return cells[name].cast(pl.Float64).to_numpy()

    # The keys seed each group's random streams: a group's draws depend on its key only.
    sampler = Resampler(
        column(POS_ROWS), column(NEG_ROWS), column("pos"), column("neg"), layout.starts, keys
    )
    return sampler, keys


def keyed(keys: pl.DataFrame, columns: list[pl.Series]) -> pl.DataFrame:
    """``columns`` beside the group ``keys`` (which have no columns when ungrouped)."""
    return keys.hstack(columns) if keys.width else pl.DataFrame(columns)


def on_collected(
    frame: pl.LazyFrame,
    keys: list[str],
    columns: dict[str, Any],
    compute: Callable[[pl.DataFrame], pl.DataFrame | None],
) -> pl.LazyFrame:
    """One plan node: ``compute`` of the collected ``frame``, ``[*keys, *columns]``;
    empty when ``frame`` is, or ``compute`` finds nothing to compute (None)."""
    given = frame.collect_schema()
    schema = {**{c: given[c] for c in keys}, **columns}

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        result = compute(collected) if collected.height else None
        return pl.DataFrame(schema=schema) if result is None else result

    return map_frame(frame, run, schema=schema)


def ordered_sum(values: pl.Expr) -> pl.Expr:
    """Sum of floats added in row order (a running sum's last value), so the same rows
    give the same bits on every run; a plain ``sum`` may add thread-dependent partial
    sums in a varying order."""
    return values.cum_sum().last()


def ordered_mean(values: pl.Expr) -> pl.Expr:
    """Mean of the non-null ``values`` added in row order (:func:`ordered_sum`): the same
    bits on every run, where ``mean`` adds thread-dependent partial sums."""
    kept = values.drop_nulls()
    return ordered_sum(kept) / kept.len()


def ordered_std(values: pl.Expr) -> pl.Expr:
    """Sample standard deviation (``ddof=1``) of the non-null ``values``, summed in row
    order as :func:`ordered_mean`; null for fewer than two values, as ``std``."""
    kept = values.drop_nulls()
    n = kept.len().cast(pl.Float64)
    squares = ordered_sum((kept - ordered_mean(kept)) ** 2)
    return pl.when(n > 1).then((squares / (n - 1)).sqrt())


def over(expr: pl.Expr, by: Sequence[str]) -> pl.Expr:
    """``expr`` per group of ``by`` (the whole frame when there is no group)."""
    return expr.over(by) if by else expr


def agg_per_group(frame: pl.LazyFrame, by: list[str], *aggs: pl.Expr) -> pl.LazyFrame:
    """``aggs`` per group of ``by``, groups sorted (one row when there is no group, none
    when ``frame`` has no rows)."""
    if not by:
        # No rows, no group: an empty result, as a grouped one would be (not one row of
        # sums over nothing).
        rows = "__roc_rows_in"
        return frame.select(*aggs, pl.len().alias(rows)).filter(pl.col(rows) > 0).drop(rows)
    return frame.group_by(by).agg(*aggs).sort(by, nulls_last=False)
