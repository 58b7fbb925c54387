"""The one counting step of the views: rows, wherever they live, to a prepared table.

Views call :func:`count_rows` and get a :class:`Counted`; which counter runs (Polars,
the engine's ``GROUP BY`` per score, the buckets of ``bins=`` in Polars or the engine)
is decided here, once, so that no view tests where the rows live.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import reduce
from typing import Any

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_bins, check_columns, check_unit
from polars_roc.core.buckets import (
    IS_POS,
    MASS,
    SCORE_V,
    Buckets,
    engine_buckets,
    polars_buckets,
    sorted_cells,
)
from polars_roc.core.engine_counts import (
    ENGINE_COUNT,
    ENGINE_UNITS,
    count_in_engine,
    is_polars,
    native_frame,
    ranks_in_windows,
)
from polars_roc.core.engine_ranks import auc_in_buckets
from polars_roc.core.exact_sums import (
    BLOCK,
    MANTISSA,
    TERMS,
    add_blocks,
    block_sums,
    group_blocks,
    split,
)
from polars_roc.core.validate import (
    BUCKET_RANGE,
    MAX_TOTAL,
    NEG,
    POS,
    SCORE,
    NullPolicy,
    Prepared,
    _internal_score,
    _label_kind,
    _over_groups,
    _raise_on_values,
    check_by_dtypes,
    check_engine_schema,
    check_engine_values,
    engine_empty,
    finishing_engine,
    missing_column,
    prepare,
    raise_on_units,
    unit_checks,
    value_checks,
)
from polars_roc.exceptions import RocInputError, RocOptionError

__all__ = [
    "QUANTILE_BIN",
    "QUANTILE_NAN",
    "BinSums",
    "Counted",
    "auc_in_engine",
    "count_bins",
    "count_expected",
    "count_quantile_bins",
    "count_rows",
    "count_values",
    "numpy_lerp",
    "numpy_quantile_indexes",
    "period_checks",
    "require_columns",
    "source_schema",
    "truncated",
]


@dataclass(frozen=True)
class Counted:
    """What counting yields: ``prep``, the table every view reads, and with ``bins=`` the
    ``buckets`` (whose ``auc_bound()`` bounds what they hide; None when counted exactly)."""

    prep: Prepared
    buckets: Buckets | None = None


def count_rows(
    frame: Any,
    roles: Roles,
    *,
    reserved: Collection[str] = (),
    bins: int | None = None,
    score_cuts: Sequence[float] | None = None,
    probabilities: bool = False,
    not_null: Sequence[str] = (),
    **options: Any,
) -> Counted:
    """Count ``frame`` for a view, its columns read as ``roles`` say.

    ``bins``: equal-width buckets of the score per group (:mod:`polars_roc.core.buckets`),
    else one row per distinct score. ``score_cuts``: the only thresholds the view reads,
    so rows are counted per threshold they fall to. ``options`` go to
    :func:`~polars_roc.core.validate.prepare`. ``probabilities``: scores must lie in [0,
    1]. ``not_null``: segment columns (a ``grade=``) that must hold no null.
    """
    polars = is_polars(frame)
    if not polars and bins is not None and ranks_in_windows(frame):
        cut = engine_buckets(frame, roles, reserved=reserved, bins=bins)
        counted = Counted(cut.prep, cut)
    else:
        units = pl.lit(1, pl.Int64)  # the rows a row of the frame stands for
        if not polars:  # checked and counted in the engine: a count table goes on
            paired = options.get("paired_score")
            cuts = None if probabilities else score_cuts
            frame, roles, units = _count_in_engine(frame, roles, reserved, bins, cuts, paired)
            options["engine_units"] = roles.weight is not None
        if not_null:
            options["first"] = _null_counts(frame.lazy(), not_null, rows=units)
        counted = bucketed(prepare(frame, roles, reserved=reserved, bins=bins, **options))
        cuttable = polars and bins is None and not probabilities and "paired_score" not in options
        if score_cuts is not None and cuttable:
            counted = Counted(_cut_scores(counted.prep, score_cuts))
    # One check for every path: the scores' range comes with the count.
    if probabilities:
        found = counted.prep.score_range
        if counted.buckets is not None:  # a group of no mass keeps a bucket at +inf
            held = counted.buckets.buckets.filter(pl.col("pos") + pl.col("neg") > 0)
            low, high = held.select(
                pl.col("threshold").min().alias("low"), pl.col("threshold").max()
            ).row(0)
            found = None if low is None else (low, high)
        _probabilities_only(found, roles.score)
    return counted


@dataclass(frozen=True)
class BinSums:
    """What :func:`count_bins` yields: ``sums``, ``[*by, bin, score_low, score_high, n,
    score_sum, pos]`` (lazy), one row per group and non-empty bin; ``eager``: whether
    the caller gave a DataFrame (another engine's sums come back as one)."""

    sums: pl.LazyFrame
    by: list[str]
    eager: bool


# Columns of count_bins' aggregation; the checks' results carry _CHECK before their name.
_KEPT, _MOMENT, _HIGH, _BIN, _CHECK = (
    f"__roc_{c}" for c in ("kept", "moment", "hi", "bin", "check_")
)


def count_bins(
    frame: Any,
    roles: Roles,
    *,
    edges: Sequence[float],
    grade: str | None,
    reserved: Collection[str],
) -> BinSums:
    """Count ``frame`` (probabilities) per group and bin fixed before the read: a row's
    ``grade`` (no null), or 1 + the ``edges`` (``np.linspace(0, 1, n + 1)``'s inner
    ones: uniform bins) strictly below its score. Per cell: ``n``
    rows (or weight), ``pos``, ``score_sum`` and the lowest and highest score of
    non-zero mass. One read, whose aggregation also runs ``prepare``'s value checks per
    cell: memory follows the bins, not the rows.
    """
    keys = [*roles.by, grade] if grade is not None else roles.by
    roles = replace(roles, by=keys, direction="higher")
    if is_polars(frame) or ranks_in_windows(frame):
        cells = _checked_cells(frame, roles, edges, grade, reserved)
        eager = not isinstance(frame, pl.LazyFrame)
    else:  # an engine whose group_by takes plain aggregations only (Dask): per distinct score
        not_null = [grade] if grade is not None else []
        counted = count_rows(frame, roles, reserved=reserved, probabilities=True, not_null=not_null)
        prep = counted.prep
        rows = prep.frame.select(
            *keys,
            pl.col(SCORE).alias(SCORE_V),
            pl.col(POS).alias(IS_POS),
            (pl.col(POS) + pl.col(NEG)).alias(MASS),
        )
        summed = _sums_per_bin(pl, rows, keys, edges, grade is None, {}, exact=not prep.weighted)
        cells, eager = summed.collect(), prep.eager
    if roles.weight is not None:  # the blocks of the weighted sums added, per cell
        cell = [*keys, _BIN] if grade is None else keys
        blocks = {"n": MASS + BLOCK, "pos": MASS + BLOCK, "score_sum": _MOMENT + BLOCK}
        extremes = [pl.col("score_low").min(), pl.col("score_high", _HIGH).max()]
        cells = block_sums(cells, cell, blocks, extremes, terms=TERMS).collect()
    dtype = pl.Float64 if roles.weight is not None else pl.Int64
    sums = cells.lazy().select(
        *keys,
        *([pl.col(_BIN).alias("bin")] if grade is None else []),
        pl.col("score_low", "score_high", _HIGH),
        pl.col("n", "pos").cast(dtype),
        pl.col("score_sum").cast(pl.Float64),
    )
    # A bin of rows of zero weight or count only is empty: not reported. A group of
    # zero counts keeps its highest score (n = 0, null rates), as its score table does.
    kept = pl.col("score_low").is_not_null()
    if roles.weight is None:
        empty = kept.not_().all()
        top = pl.col(_HIGH) == pl.col(_HIGH).max()
        kept = kept | (empty.over(keys) & top.over(keys) if keys else empty & top)
    sums = sums.filter(kept).with_columns(
        pl.col(c).fill_null(pl.col(_HIGH)) for c in ("score_low", "score_high")
    )
    sums = sums.drop(_HIGH)
    by = roles.by[:-1] if grade is not None else roles.by
    return BinSums(sums.rename({grade: "bin"}) if grade else sums, by, eager)


def _checked_cells(
    frame: Any, roles: Roles, edges: Sequence[float], grade: str | None, reserved: Collection[str]
) -> pl.DataFrame:
    """:func:`count_bins`' one read of Polars rows or an engine's (narwhals): the sums
    per cell and the value checks of ``prepare`` per cell, raised from here."""
    score, label, weight, count = roles.score, roles.label, roles.weight, roles.count
    pos_label, nulls, keys = roles.pos_label, roles.nulls, roles.by
    polars = is_polars(frame)
    schema = source_schema(frame)
    empty = pl.DataFrame(schema=schema)  # the schema's checks, on no rows
    if polars:
        F: Any = pl
        rows: Any = frame.lazy()
        try:
            prepare(empty, roles, reserved=reserved)
        except RocInputError:  # the same refusal, its message showing the log's labels
            prepare(frame, roles, reserved=reserved)
            raise
    else:
        import narwhals as F

        rows = native_frame(frame).lazy()
        check_engine_schema(rows, empty, roles, reserved=reserved)
    kind = _label_kind(pl.LazyFrame(schema=schema), label, schema[label], pos_label)
    y = F.col(label)
    is_pos = y if kind == "bool" else (y == 1 if kind == "binary" else y == pos_label)
    mass = F.lit(1, dtype=F.Int64)
    if weight is not None:
        mass = F.col(weight).cast(F.Float64)
    elif count is not None:
        c = F.col(count)
        # No failing cast before the checks count the bad ones.
        if schema[count].is_float():
            c = F.when(c.is_finite() & (c.abs() < 2.0**63)).then(c).otherwise(0.0)
        elif schema[count] == pl.UInt64:
            c = F.when(c <= MAX_TOTAL).then(c).otherwise(0)
        mass = c.cast(F.Int64)
    v = F.col(score).cast(F.Float64)
    if nulls == "drop":  # the checks count every row, the sums the rows kept
        required = [score, label, *(c for c in (weight, count) if c is not None)]
        kept = reduce(operator.and_, [~F.col(c).is_null() for c in required])
        mass, v = F.when(kept).then(mass), F.when(kept).then(v)
    zero = F.lit(0.0) if weight is not None else F.lit(0, dtype=F.Int64)
    rows = rows.with_columns(
        v.alias(SCORE_V),
        F.when(is_pos).then(mass).otherwise(zero).alias(IS_POS),
        mass.alias(MASS),
    )
    checks = value_checks(F, schema, roles, kind=kind, scores=[score])
    checks |= {"score_min": F.col(score).min(), "score_max": F.col(score).max()}
    exact = weight is None
    counted = _sums_per_bin(F, rows, keys, edges, grade is None, checks, exact=exact)
    if polars:
        rows = frame.height if isinstance(frame, pl.DataFrame) else None
        cells = counted.collect(engine=finishing_engine(rows, large="streaming"))
    else:
        cells = counted.collect(backend="polars").to_native()
    found_cells = cells.select(pl.col(_CHECK + k).alias(k) for k in checks)
    if grade is not None:  # first, as count_rows' not_null check
        plan, check = _null_counts(cells.lazy(), [grade], rows=pl.col(_CHECK + "n_rows"))
        check(plan.collect())
    found = _over_groups(found_cells, []).row(0, named=True)
    labels = frame.lazy() if polars else pl.LazyFrame(schema={label: schema[label]})
    absent = kind == "equal" and found["n_rows"] and not found["pos_present"]
    if not polars and (found.get("label_bad") or absent):  # the labels, for the message
        distinct = rows.select(label).unique().head(1000).collect(backend="polars")
        labels = distinct.to_native().lazy()
    _raise_on_values(found, labels, roles, kind=kind, schema=schema)
    low, high = found["score_min"], found["score_max"]
    _probabilities_only(None if low is None else (float(low), float(high)), score)
    return cells.drop(_CHECK + k for k in checks)


# Sums of probabilities times counts as 128-bit fixed point (a resolution of 1e-18,
# up to 1e20): integer sums, so the order in which threads add them never shows in
# the bits; a float sum's last bits change from run to run.
EXACT = (38, 18)


def _sums_per_bin(
    F: Any,
    rows: Any,
    group: Sequence[str],
    edges: Sequence[float],
    binned: bool,
    checks: dict[str, Any],
    *,
    exact: bool,
) -> Any:
    """:func:`count_bins`' aggregation of ``rows`` ``[*group, SCORE_V, IS_POS, MASS]``
    (``IS_POS`` the mass of a positive row, else 0), written once for ``F``, ``polars``
    or ``narwhals``, with the ``checks`` per cell beside the sums. ``exact`` (integer
    masses): scores summed as decimals (:data:`EXACT`); else (float weights) the sums
    are of integers per cell and block (:func:`~polars_roc.core.exact_sums.split`), the
    blocks in the keys."""
    v, mass = F.col(SCORE_V), F.col(MASS)
    moment = v * mass
    keys = list(group)
    columns = [F.when(mass != 0).then(v).alias(_KEPT)]
    if exact:  # a score out of [0, 1] (NaN too) is refused after the read, not by the cast
        # Each score rounded to the decimal grid before its count multiplies it: a
        # count table sums the same decimals as its expanded rows.
        # is_finite (not is_nan, nor the range alone): DuckDB folds those to true from
        # Parquet statistics that leave NaN out, and its cast of NaN raises.
        in_range = v.is_between(0.0, 1.0) & v.is_finite()
        exact_v = F.when(in_range).then(v).cast(F.Decimal(*EXACT))
        moment = exact_v * mass
        columns.append(moment.alias(_MOMENT))
    if binned and F is pl and edges:
        # Comparing with every edge costs rows x bins, and a binary search
        # (search_sorted) is not streamed (benchmarks/README.md): arithmetic.
        count_above = _uniform_edges_below(v, len(edges) + 1)
    elif binned:  # an engine's SQL has no search: one comparison per edge
        above = [(v > edge).cast(F.Int64) for edge in edges]
        count_above = _tree_sum(above) if above else F.lit(0, dtype=F.Int64)
    if binned:
        columns.append((count_above + 1).alias(_BIN))
        keys.append(_BIN)
    rows = rows.with_columns(*columns)
    if not exact:
        positive = (F.col(IS_POS) != 0).alias(IS_POS)
        rows = split(F, rows.with_columns(positive), {MASS: mass, _MOMENT: moment})
        # A positive's mass is its row's: the same block and integer.
        none = F.lit(0).cast(F.Decimal(*MANTISSA))
        rows = rows.with_columns(F.when(F.col(IS_POS)).then(mass).otherwise(none).alias(IS_POS))
        keys += [MASS + BLOCK, _MOMENT + BLOCK]
    aggs = [
        F.col(_KEPT).min().alias("score_low"),
        F.col(_KEPT).max().alias("score_high"),
        mass.sum().alias("n"),
        F.col(_MOMENT).sum().alias("score_sum"),
        F.col(IS_POS).sum().alias("pos"),
        v.max().alias(_HIGH),
        *(check.alias(_CHECK + name) for name, check in checks.items()),
        *([] if exact else [F.len().alias(TERMS)]),
    ]
    return rows.group_by(*keys, **({} if F is pl else {"drop_null_keys": False})).agg(*aggs)


def _uniform_edges_below(v: pl.Expr, n: int) -> pl.Expr:
    """How many inner edges of ``np.linspace(0, 1, n + 1)`` lie strictly below ``v``
    (NaN and null: none). numpy's edge ``k`` is ``k * (1 / n)``; ``ceil(v * n) - 1``
    is off from the count by at most one, put right by comparing with its edges."""
    step, x = 1.0 / n, v.fill_nan(0.0).fill_null(0.0)
    guess = ((x * n).ceil() - 1).clip(0, n - 1).cast(pl.Int64)
    up = (guess + 1 <= n - 1) & ((guess + 1).cast(pl.Float64) * step < x)
    down = (guess >= 1) & (guess.cast(pl.Float64) * step >= x)
    return guess + up.cast(pl.Int64) - down.cast(pl.Int64)


def _tree_sum(terms: Sequence[Any]) -> Any:
    """The sum of expressions as a balanced tree: a chain of a thousand additions (one
    per bin edge) nests too deep for an engine's expression builder (RecursionError)."""
    if len(terms) == 1:
        return terms[0]
    half = len(terms) // 2
    return _tree_sum(terms[:half]) + _tree_sum(terms[half:])


def _count_in_engine(
    frame: Any,
    roles: Roles,
    reserved: Collection[str],
    bins: int | None,
    score_cuts: Sequence[float] | None,
    paired: str | None,
) -> tuple[pl.DataFrame, Roles, pl.Expr]:
    """The count table of another engine's rows, checked and counted where they live,
    with its roles and the rows each cell stands for."""
    scores = [roles.score] if paired is None else [roles.score, paired]
    check_bins(bins)  # the other options: by check_engine_values, before any read
    check_engine_values(frame, roles, reserved=reserved, paired_score=paired)
    # Scores that must be probabilities are counted per distinct score (no cuts): cut
    # to the thresholds, their range (checked by count_rows) would be the thresholds'.
    cuts = None if score_cuts is None or paired else (roles.score, score_cuts, roles.direction)
    keys = [*roles.by, *scores, roles.label]
    table = count_in_engine(
        frame, keys=keys, weight=roles.weight, count=roles.count, nulls=roles.nulls, cuts=cuts
    )
    # An engine returns its cells in no set order; what reads cells in order (ranks of
    # tied scores, seeded permutations) must see the same order on every call.
    table = table.sort(keys, nulls_last=True)
    if roles.weight is not None:
        return table, roles, pl.col(ENGINE_UNITS)
    count = roles.count or ENGINE_COUNT
    return table, replace(roles, count=count, internal=True), pl.col(count)


def _cut_scores(prep: Prepared, thresholds: Sequence[float]) -> Prepared:
    """``prep`` with each score replaced by the highest threshold at or below it
    (internal units; -inf below them all), as an engine cuts them: every row stays on
    its side of every threshold."""
    keys = pl.Series(sorted({float("-inf"), *prep.threshold_keys(thresholds)}), dtype=pl.Float64)
    below = pl.lit(keys).search_sorted(pl.col(SCORE), side="right") - 1
    frame = prep.frame.with_columns(pl.lit(keys).gather(below).alias(SCORE))
    # A few distinct scores now: counted per score by hash, in one read of the rows.
    n_distinct = min(prep.n_distinct, keys.len())
    range_ = (keys[0], keys[-1])
    return replace(prep, frame=frame, n_distinct=n_distinct, score_range=range_, cells=True)


def bucketed(prep: Prepared) -> Counted:
    """``prep`` counted, into the buckets of ``bins=`` when it asks for them (Polars
    rows, or the count table of an engine without windows)."""
    if prep.bins is None:
        return Counted(prep)
    cut = polars_buckets(prep)
    return Counted(cut.prep, cut)


def _null_counts(
    source: pl.LazyFrame, columns: Sequence[str], *, rows: pl.Expr
) -> tuple[pl.LazyFrame, Callable[[pl.DataFrame], None]]:
    """The ``first`` check of :func:`~polars_roc.core.validate.prepare` refusing nulls
    in ``columns``: ``rows`` counts the rows a row of ``source`` stands for."""
    plan = source.select(
        pl.when(pl.col(c).is_null()).then(rows).otherwise(0).sum().alias(c) for c in columns
    )

    def check(found: pl.DataFrame) -> None:
        for column in columns:
            if found[column][0]:
                msg = (
                    f"column {column!r} has {found[column][0]} row(s) with a null; every "
                    f"row needs its {column!r} value here: fill the nulls (e.g. "
                    f"pl.col({column!r}).fill_null(...)) or filter those rows out first "
                    "(nulls='drop' leaves out null scores and labels only)"
                )
                raise RocInputError(msg)

    return plan, check


def _probabilities_only(found: tuple[float, float] | None, score: str) -> None:
    """Refuse scores whose range ``found`` leaves [0, 1] (they are no probabilities)."""
    if found is not None and (found[0] < 0.0 or found[1] > 1.0):
        msg = (
            f"score column {score!r} must hold probabilities in [0, 1] here (each score "
            f"is read as a predicted probability), got values from {found[0]!r} to "
            f"{found[1]!r}; calibrate or rescale the scores first (e.g. a logistic "
            f"transform of a log-odds score)"
        )
        raise RocInputError(msg)


def count_values(
    frame: Any,
    *,
    keys: Sequence[str],
    weight: str | None = None,
    count: str | None = None,
    into: str = "n",
    units: str | None = None,
    nulls: NullPolicy = "raise",
    check_units: bool = True,
) -> pl.LazyFrame:
    """The rows of ``frame`` per distinct ``keys`` (nulls a cell), no label read:
    ``[*keys, into]``, rows (Int64), ``count`` or ``weight`` summed where the rows live.
    ``units``: with ``weight``, also each cell's rows of positive weight (for a
    scale-free weighted quantile). ``nulls="drop"`` leaves out null weights or counts
    (else refused); their values are checked as every view checks them (``unit_checks``)
    unless ``check_units`` is False (a caller counting the same rows again).
    """
    check_unit(weight, count)
    unit = weight or count
    if is_polars(frame):
        rows = frame.lazy()
        schema = rows.collect_schema()
        if nulls == "drop" and unit is not None:
            rows = rows.filter(pl.col(unit).is_not_null())
        # The checks in a select collected with the count (per cell they took 3x the
        # count); the sums are exact (whole counts below 2**63, in 64 bits) once they pass.
        checks = unit_checks(pl, schema, weight, count)
        n = pl.len().cast(pl.Int64)
        if count is not None:
            n = pl.col(count).cast(pl.Int64, strict=False).sum()
        positive = (pl.col(weight) > 0).sum().cast(pl.Int64) if weight is not None else pl.lit(0)
        cells = rows.group_by(keys).agg(n.alias(into), positive.alias(ENGINE_UNITS))
        if weight is not None:  # summed exactly: the same bits whatever the threads' order
            cells = group_blocks(rows, keys, pl.col(weight), into, {ENGINE_UNITS: positive})
        checked = [rows.select(**checks, n_rows=pl.len())] if check_units else []
        table, *units_found = pl.collect_all([cells, *checked])
        if units_found:
            raise_on_units(units_found[0].row(0, named=True), weight, count, nulls)
        if weight is not None:
            table = add_blocks(table, keys, into, [ENGINE_UNITS]).collect()
    else:
        import narwhals as nw

        if unit is not None and check_units:  # where the rows live, before they are counted
            native = native_frame(frame).lazy()
            if nulls == "drop":
                native = native.filter(~nw.col(unit).is_null())
            checks = unit_checks(nw, engine_empty(native, [unit]).schema, weight, count)
            values = native.select(**checks).collect(backend="polars").to_native()
            found = {key: value or 0 for key, value in values.row(0, named=True).items()}
            raise_on_units(found, weight, count, nulls)
        counted = count_in_engine(frame, keys=keys, weight=weight, count=count, nulls=nulls)
        table = counted.select(
            *keys,
            pl.col(unit or ENGINE_COUNT).alias(into),
            pl.col(ENGINE_UNITS) if weight is not None else pl.lit(0).alias(ENGINE_UNITS),
        )
    kept = [pl.col(ENGINE_UNITS).alias(units)] if units is not None and weight is not None else []
    return table.lazy().select(*keys, into, *kept)


def period_checks(
    frame: Any, *, period: str, weight: str | None, count: str | None
) -> pl.DataFrame | None:
    """``[period, n]``: the rows (weight, count) of each period (nulls included) of Polars
    rows, read first to know the baseline, the weights or counts checked as every view
    checks them; None for other sources, whose :func:`count_values` carry the same facts.
    One streaming read of few columns; a weight summed exactly (the same bits every run)."""
    if not is_polars(frame):
        return None
    rows = frame.lazy()
    if weight is not None:
        plan = group_blocks(rows, [period], pl.col(weight), "n", {})
    else:
        n = pl.len() if count is None else pl.col(count).cast(pl.Int64, strict=False).sum()
        plan = rows.group_by(period).agg(n.cast(pl.Int64).alias("n"))
    checks = unit_checks(pl, rows.collect_schema(), weight, count)
    checked = [rows.select(**checks)] if checks else []
    per_period, *found = pl.collect_all([plan, *checked], engine="streaming")
    if found:
        raise_on_units(found[0].row(0, named=True), weight, count, "raise")
    return add_blocks(per_period, [period], "n", []).collect() if weight else per_period


def numpy_quantile_indexes(total: pl.Expr, q: float | pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """numpy's linear ``percentile(values, q * 100)`` of ``total`` values, to the last
    bit: the indexes (from 0, Float64) of the order statistics either side of its index
    ``(n - 1) q`` and the fraction between them, to pass to :func:`numpy_lerp`."""
    virtual = (total - 1.0) * q
    at_end = virtual >= total - 1.0
    previous = virtual.floor()
    low = pl.when(at_end).then(total - 1.0).otherwise(previous)
    high = pl.when(at_end).then(total - 1.0).otherwise(previous + 1.0)
    return low, high, virtual - pl.when(at_end).then(-1.0).otherwise(previous)


def numpy_lerp(a: pl.Expr, b: pl.Expr, t: pl.Expr) -> pl.Expr:
    """numpy's ``_lerp``: ``a + (b - a) t``, or from ``b``'s side where ``t >= 1/2``."""
    return pl.when(t >= 0.5).then(b - (b - a) * (1.0 - t)).otherwise(a + (b - a) * t)


QUANTILE_BIN, QUANTILE_NAN = "__roc_quantile_bin", "__roc_quantile_nan"


def count_quantile_bins(
    frame: Any,
    *,
    by: Sequence[str],
    period: str,
    column: str,
    baseline: pl.Expr,
    n_bins: int,
    weight: str | None = None,
    count: str | None = None,
    edges: pl.LazyFrame | None = None,
) -> pl.DataFrame:
    """``[*by, period, QUANTILE_BIN, n, QUANTILE_NAN]``: the rows (and NaN values) per
    group, period and bin of ``column``, cut at numpy's ``n_bins`` quantiles of the
    group's ``baseline`` rows (bin: 1 + the edges below the value; null for null).
    Streamed in two reads, the least for numpy's percentiles: the baseline's sorted
    values per group, then every row binned in a ``group_by`` of few keys. With
    ``weight`` or ``count``, the caller's ``edges`` ``[*by, edge, value]`` (its quantiles
    of weight) replace the first read, and ``n`` is the weight (summed exactly) or count.
    """
    rows, by = frame.lazy(), list(by)
    names = [f"__roc_edge_{k}" for k in range(1, n_bins)]
    if edges is not None:
        listed = pl.col("value").sort_by("edge")
        per_group = edges.group_by(by).agg(listed) if by else edges.select(listed.implode())
        found = per_group.select(
            *by,
            *(pl.col("value").list.get(k, null_on_oob=True).alias(n) for k, n in enumerate(names)),
        ).collect()
    elif names:
        fractions = np.true_divide(np.linspace(0, 1, n_bins + 1) * 100, 100)[1:-1]
        values = pl.col(column).drop_nulls().sort().alias(column)
        base = rows.filter(baseline)
        base = base.group_by(by).agg(values) if by else base.select(values.implode())
        ordered = pl.col(column)
        total = ordered.list.len().cast(pl.Float64)

        def edge(q: float) -> pl.Expr:
            low, high, t = numpy_quantile_indexes(total, q)
            a, b = (ordered.list.get(k.cast(pl.Int64), null_on_oob=True) for k in (low, high))
            return numpy_lerp(a, b, t)

        edge_values = base.select(*by, *(edge(q).alias(n) for n, q in zip(names, fractions)))
        # In a read of their own: one plan ran both reads at once (benchmarks/README.md).
        found = edge_values.collect(engine="streaming")
    if names:
        how: dict[str, Any] = {"on": by, "how": "left", "nulls_equal": True} if by else {}
        rows = rows.join(found.lazy(), **(how or {"how": "cross"}))
    value = pl.col(column)
    above = [(value > pl.col(name)).fill_null(False).cast(pl.Int64) for name in names]
    bin_of = (pl.sum_horizontal(above) if above else pl.lit(0, pl.Int64)) + 1
    binned = pl.when(value.is_not_null()).then(bin_of).alias(QUANTILE_BIN)
    is_float = rows.collect_schema()[column].is_float()
    keys = [*by, period, QUANTILE_BIN]
    if weight is None and count is None:
        nan = value.is_nan().sum() if is_float else pl.lit(0)
        counts = [pl.len().cast(pl.Int64).alias("n"), nan.cast(pl.Int64).alias(QUANTILE_NAN)]
        return rows.group_by([*by, period, binned]).agg(counts).collect(engine="streaming")
    # NaN values counted apart (a key of their own), then added to their bin's n.
    flag = value.is_nan() if is_float else pl.lit(False)
    rows = rows.with_columns(binned, flag.alias(QUANTILE_NAN))
    if weight is not None:
        blocks = group_blocks(rows, [*keys, QUANTILE_NAN], pl.col(weight), "n", {})
        cells = add_blocks(blocks.collect(engine="streaming"), [*keys, QUANTILE_NAN], "n", [])
    elif count is not None:
        n = pl.col(count).cast(pl.Int64).sum().alias("n")
        cells = rows.group_by([*keys, QUANTILE_NAN]).agg(n)
    nan_part = pl.col("n").filter(pl.col(QUANTILE_NAN)).sum().alias(QUANTILE_NAN)
    return cells.group_by(keys).agg(pl.col("n").sum(), nan_part).collect(engine="streaming")


def count_expected(
    frame: Any,
    *,
    score: str,
    by: Sequence[str],
    weight: str | None,
    count: str | None,
    nulls: NullPolicy,
    reserved: Collection[str],
    bins: int | None,
    check: Callable[[dict[str, Any]], None],
) -> Counted:
    """The expected score table of ``frame``, no label read: a row of score ``p`` counts
    as ``p`` of a positive and ``1 - p`` of a negative (times its weight or count).
    ``check(found)`` refuses the scores first (``null``, ``nan`` rows, ``low``, ``high``).
    With ``bins``, Polars rows stream into the buckets, both shares of a row at once (two reads:
    the buckets span each group's scores); else :func:`count_values`' cells are the
    table's (:func:`_expected_cells`).
    """
    bins = check_bins(bins)  # before any read
    label, units, rows_in = "__roc_expected_label", "__roc_expected_units", "__roc_expected_n"
    p = pl.col(score)
    share = p.cast(pl.Float64, strict=False)
    # NaN looked for in the floats: a Decimal score has no is_nan.
    found = [
        pl.col(rows_in).filter(p.is_null()).sum().alias("null"),
        pl.col(rows_in).filter(share.is_nan()).sum().alias("nan"),
        p.filter(share.is_not_nan()).min().alias("low"),
        p.filter(share.is_not_nan()).max().alias("high"),
    ]
    if bins is not None and is_polars(frame):
        unit = weight or count
        n = pl.lit(1, pl.Int64) if unit is None else pl.col(unit)
        rows = frame.lazy().with_columns(n.alias(rows_in))
        if nulls == "drop":  # rows of null weight or count left out, as count_values does
            rows = rows.filter(pl.col(rows_in).is_not_null())
        checks = unit_checks(pl, frame.collect_schema(), weight, count)
        # One read finds the caller's checks and each group's range of scores of
        # positive mass (the buckets' span); the rows stream into the buckets in another.
        in_range = p.cast(pl.Float64).filter(p.is_not_null() & (n > 0))
        found += [p.is_not_null().sum().alias("kept"), *(e.alias(k) for k, e in checks.items())]
        found += [in_range.min().alias(BUCKET_RANGE[0]), in_range.max().alias(BUCKET_RANGE[1])]
        values = rows.group_by(by).agg(found) if by else rows.select(found)
        values = values.collect(engine="streaming")
        totals = values.select(
            pl.col("null", "nan", "kept").sum(), pl.col("low").min(), pl.col("high").max()
        ).row(0, named=True)
        if checks:
            units_found = _over_groups(values.select(*checks), []).row(0, named=True)
            raise_on_units(units_found, weight, count, nulls)
        check(totals)
        if nulls == "drop":
            rows = rows.filter(p.is_not_null())
        # Each row is its two halves at once: its mass of each class in one cell.
        mass = pl.col(rows_in).cast(pl.Float64) * share
        halves = rows.select(
            *by,
            _internal_score(p, "higher").alias(SCORE),
            mass.alias(POS),
            (pl.col(rows_in) - mass).alias(NEG),
        )
        ranges = values.filter(pl.col("kept") > 0) if by else values
        prep = Prepared(
            frame=halves,
            by=list(by),
            weighted=True,
            eager=isinstance(frame, pl.DataFrame),
            n_rows=totals["kept"],
            n_distinct=0,
            bins=bins,
            ranges=ranges.select(*by, *BUCKET_RANGE),
        )
        return bucketed(prep)
    lazy_counts = count_values(
        frame, keys=[*by, score], weight=weight, count=count, into=rows_in, nulls=nulls
    )
    counts = lazy_counts.collect()
    check(counts.select(found).row(0, named=True))
    counts = counts.filter(p.is_not_null())
    if bins is None:
        return Counted(_expected_cells(counts, by, score, rows_in, frame))
    # The buckets add weights in row order: one order for every run.
    counts = counts.sort([*by, score], nulls_last=True)
    # Integer scores (0/1) are probabilities too; the share n * p is a weight.
    mass = pl.col(rows_in).cast(pl.Float64) * share
    halves = [
        counts.with_columns(pl.lit(True).alias(label), mass.alias(units)),
        counts.with_columns(
            pl.lit(False).alias(label), (pl.col(rows_in).cast(pl.Float64) - mass).alias(units)
        ),
    ]
    table = pl.concat(halves).drop(rows_in)
    source = table.lazy() if isinstance(frame, pl.LazyFrame) else table  # lazy in, lazy out
    roles = Roles(score, label, by, weight=units, nulls=nulls, internal=True)
    counted = count_rows(source, roles, reserved=reserved, probabilities=True, bins=bins)
    if isinstance(frame, pl.DataFrame) and not counted.prep.eager:  # its rows, read lazily
        return Counted(replace(counted.prep, eager=True), counted.buckets)
    return counted


def _expected_cells(
    counts: pl.DataFrame, by: Sequence[str], score: str, rows_in: str, frame: Any
) -> Prepared:
    """The expected score table's cells from the checked ``counts`` (one row per group
    and distinct probability ``p``, its rows or weight ``n``): ``pos = n p`` and ``neg =
    n - n p``, already one per (group, score), so they are sorted, not counted again."""
    by = list(by)
    n = pl.col(rows_in).cast(pl.Float64)
    p = pl.col(score).cast(pl.Float64) + 0.0  # -0.0 and 0.0 are one score
    cells = counts.select(*by, p.alias("threshold"), (n * p).alias("pos"), (n - n * p).alias("neg"))
    if (cells["threshold"] == 0.0).sum() > (cells.select(by).n_unique() if by else 1):
        cells = cells.group_by([*by, "threshold"]).agg(pl.col("pos", "neg").sum())  # both zeros
    cells = cells.sort([*by, "threshold"], descending=[False] * len(by) + [True], nulls_last=False)
    # Another engine's counts come back eager.
    lazy = isinstance(frame, pl.LazyFrame)
    return sorted_cells(cells, by, weighted=True, lazy=lazy, score_dtype=counts.schema[score])


def require_columns(frame: Any, roles: Sequence[tuple[str, str]]) -> pl.Schema:
    """The schema of ``frame`` (no data read), once every ``(role, column)`` is in it:
    a missing one is reported by its option's name, the same on every backend. The
    names are checked first (:func:`~polars_roc.core.arguments.check_columns`)."""
    check_columns(roles)
    schema = source_schema(frame)
    for role, name in roles:
        if name not in schema:
            raise missing_column(role, name, schema)
    for kind in ("by", "period", "characteristic"):  # columns that come back as keys
        check_by_dtypes([name for role, name in roles if role == kind], schema, role=kind)
    return schema


def auc_in_engine(
    frame: Any, roles: Roles, *, delong: bool = False, reserved: Sequence[str] = ("auc",)
) -> pl.DataFrame | None:
    """The exact AUC ``[*by, auc, n_pos, n_neg]`` (``delong``: and ``auc_var``) of an
    engine's rows counted there, or None where that counter does not apply (Polars
    rows, weights, counts, no windows): the caller then uses :func:`count_rows`."""
    if is_polars(frame) or roles.unit is not None or not ranks_in_windows(frame):
        return None
    return auc_in_buckets(frame, roles, delong=delong, reserved=reserved)


def source_schema(frame: Any) -> pl.Schema:
    """The Polars schema of any source: a Polars frame's, or that of another engine's
    frame's first zero rows (no data read)."""
    if is_polars(frame):
        return frame.collect_schema()
    native = native_frame(frame).lazy()
    return engine_empty(native, native.collect_schema().names()).schema


def labelled(frame: Any, label: str) -> Any:
    """The rows of ``frame`` whose ``label`` is not null, where the rows live."""
    if is_polars(frame):
        return frame.filter(pl.col(label).is_not_null())
    import narwhals as nw  # installed with altair; imported only for other engines

    return native_frame(frame).filter(~nw.col(label).is_null()).to_native()


# The units below a second, and their count in a second (narwhals' fields).
_SUBSECOND = (("ms", "millisecond", 1000), ("us", "microsecond", 1_000_000))


def truncated(frame: Any, column: str, every: str) -> Any:
    """``frame`` with the Date/Datetime ``column`` truncated to ``every`` where the rows
    live, as Polars' ``dt.truncate`` cuts it.

    Another engine cuts in its own time zone of the column (DuckDB's and Spark's are the
    session's: a TIMESTAMPTZ holds none of its own). One unit (``"1d"``, ``"1mo"``,
    ``"1h"`` ...) is the engine's ``date_trunc``; a multiple (``"2w"``, ``"3d"``,
    ``"5mo"``, ``"90m"``), which Polars aligns to its epoch, is counted there: the
    wall-clock time cut to one unit, then moved back by its count of units since the
    epoch modulo the multiple. A duration of several units (``"1d12h"``) or of
    nanoseconds is refused on every engine with one message.
    """
    if is_polars(frame):
        return frame.with_columns(pl.col(column).dt.truncate(every))
    import narwhals as nw  # installed with altair; imported only for other engines

    found = re.fullmatch(r"([1-9][0-9]*)(us|ms|s|m|h|d|w|mo|q|y)", every)
    if found is None:
        msg = (
            f"`every={every!r}` is not a count of one unit, which another engine's frame "
            "needs ('1d', '2w', '3mo', '1q', '36h', '90m' ...; no nanoseconds): write it "
            "in one unit, or truncate the column in the engine first and pass every=None"
        )
        raise RocOptionError(msg)
    n, unit = int(found[1]), found[2]
    rows = native_frame(frame)
    dtype = rows.collect_schema()[column]  # DuckDB truncates a DATE to a TIMESTAMP
    if dtype == nw.Unknown:  # DuckDB's TIMESTAMPTZ_NS, say: narwhals cannot cast it back
        msg = (
            f"period column {column!r} has a type of the engine that narwhals does not know "
            "(e.g. DuckDB's nanosecond TIMESTAMP WITH TIME ZONE), so it cannot be cut by "
            f"`every={every!r}`: cast it to a DATE or a microsecond TIMESTAMP where the rows "
            "live first"
        )
        raise RocInputError(msg)
    if dtype == nw.Date and unit == "us":  # Polars cuts a Date in whole milliseconds
        n, unit = n // 1000, "ms"
        if n == 0:
            return rows.to_native()
    if n == 1 and unit != "w":
        cut = nw.col(column).dt.truncate(every)
        return rows.with_columns(cut.cast(dtype).alias(column)).to_native()
    # Polars cuts the wall-clock time (a Date is its midnight), then puts it back in the
    # column's zone.
    value = nw.col(column).cast(nw.Datetime()) if dtype == nw.Date else nw.col(column)
    if getattr(dtype, "time_zone", None) is not None:
        value = value.dt.replace_time_zone(None)
    months = {"mo": 1, "q": 3, "y": 12}.get(unit)
    if months is not None:  # months since 1970-01
        step, width = "mo", n * months
        since = (value.dt.year().cast(nw.Int64) - 1970) * 12 + value.dt.month() - 1
    else:  # days since 1970-01-01, from the year and the day of the year
        year = value.dt.year().cast(nw.Int64)
        leaps = [(y - 1) // 4 - (y - 1) // 100 + (y - 1) // 400 for y in (year, 1970)]
        since = (year - 1970) * 365 + leaps[0] - leaps[1] + value.dt.ordinal_day() - 1
        step, width = ("d", 7 * n) if unit == "w" else (unit, n)
        if unit == "w":  # weeks start on Monday 1970-01-05, as in Polars
            since = since - 4
        units = (("h", "hour", 24), ("m", "minute", 60), ("s", "second", 60), *_SUBSECOND)
        for part, field, size in units if step != "d" else ():
            if part in ("h", "m", "s", unit):  # then milliseconds or microseconds
                # modulo: narwhals' Spark fractions of a second are negative before 1970
                since = since * size + getattr(value.dt, field)() % size
            if part == unit:
                break
    back = "__roc_back"
    start = value.dt.truncate(f"1{step}")
    rows = rows.with_columns((since % width).alias(back), start.alias(column))
    # Back by the remainder, one binary digit at a time (a constant offset each).
    for digit in range((width - 1).bit_length()):
        moved = nw.col(column).dt.offset_by(f"-{2**digit}{step}")
        has = (nw.col(back) // 2**digit) % 2 == 1
        rows = rows.with_columns(nw.when(has).then(moved).otherwise(nw.col(column)).alias(column))
    if dtype == nw.Date and step not in ("d", "mo"):
        # Polars takes the date of a cut before 1970 rounding toward 1970, as its integer
        # division does ("7m" leaves 1969-12-31 as it is).
        cut, day = nw.col(column), nw.col(column).dt.truncate("1d")
        toward = (cut < nw.lit(datetime(1970, 1, 1))) & (cut != day)
        moved = nw.when(toward).then(day.dt.offset_by("1d")).otherwise(cut)
        rows = rows.with_columns(moved.alias(column))
    return rows.drop(back).with_columns(nw.col(column).cast(dtype)).to_native()
