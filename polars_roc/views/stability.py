"""Stability: has the population moved since the baseline period? No label needed.

Labels of a loan book arrive months after its scores; the population stability index
(PSI) compares, per period, the distribution of the score over bins with the
baseline period's, and the characteristic stability index (CSI) does the same for a
model input. Both are views over counts per ``(segment, period, bin)``: a Polars frame
without weights is binned as its rows stream, at edges found from the baseline's rows
(:func:`polars_roc.core.counting.count_quantile_bins`); other sources are counted per
``(segment, period, value)`` where the rows live
(:func:`polars_roc.core.counting.count_values`) and binned from those counts, at the
same edges.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.core.arguments import normalize_by, refuse_clashes
from polars_roc.core.counting import (
    QUANTILE_BIN,
    QUANTILE_NAN,
    count_quantile_bins,
    count_values,
    period_checks,
    require_columns,
)
from polars_roc.core.exact_sums import add_blocks, group_blocks
from polars_roc.core.finish import finish_result
from polars_roc.core.measures import ratio
from polars_roc.core.validate import Frame
from polars_roc.exceptions import RocInputError, RocOptionError, RocOptionTypeError
from polars_roc.stats.cells import agg_per_group, ordered_sum
from polars_roc.views.calibration import ROWS, bin_of, check_n_bins, quantile_edges

__all__ = ["EMPTY_SHARE", "PSI_LEVELS", "psi"]

# The share given to an empty bin, on either side, so that ln(a / e) stays finite:
# the usual convention of scorecard tools (0.01%).
EMPTY_SHARE = 1e-4
# Upper bounds of the levels: below 0.1 "stable", below 0.25 "moderate", else "shift".
PSI_LEVELS = {"stable": 0.1, "moderate": 0.25}

PSI_COLUMNS = ("column", "psi", "n", "n_baseline", "level")
PSI_DETAIL_COLUMNS = ("bin", "share", "baseline_share")
_BIN = "__roc_bin"
_N = "__roc_n"
_ORDER = "__roc_bin_order"
_UNITS = "__roc_units"


def psi(
    frame: Frame,
    period: str = "period",
    baseline: Any = "first",
    columns: str | Sequence[str] | None = None,
    n_bins: int = 10,
    *,
    score: str | None = "score",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    detail: bool = False,
) -> Frame:
    """Population (and characteristic) stability index of each period against a baseline.

    For each column (the score, then each of ``columns``) and group, the baseline
    period's rows define the bins: for a numeric column, ``n_bins`` bins at the
    baseline's percentiles (the ``"quantile"`` bins of
    :func:`polars_roc.calibration_curve`, ties kept together; nulls are a bin of their
    own), for any other dtype (strings, categoricals, booleans) one bin per value.
    With ``a_i`` and ``e_i`` the shares of bin ``i`` in the period and in the baseline,
    ``psi = sum (a_i - e_i) ln(a_i / e_i)``; an empty bin's share counts as
    ``EMPTY_SHARE`` (1e-4), on either side. ``level`` reads it as scorecard practice
    does: ``"stable"`` below 0.1, ``"moderate"`` below 0.25, ``"shift"`` above.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` (or a DuckDB/Spark/... frame) with one
        row per scored unit; no label is read.
    period
        Column of periods (dates, months, batch ids...), ordered by their sort order.
    baseline
        ``"first"`` (the earliest period of the whole frame holding rows: not one of
        zero weights or counts only) or a value of ``period``.
    columns
        Model inputs to compare as well (characteristic stability), numeric or not.
    n_bins
        Number of quantile bins of numeric columns (10: the baseline's deciles).
    score
        Column of scores (None: only ``columns``).
    by
        Optional segment column(s): each group has its own bins and baseline share.
    weight, count
        As in :func:`polars_roc.score_table`: shares of weight, or of rows counted.
    detail
        Return the share of each bin instead (the table the PSI sums).

    Returns
    -------
    DataFrame or LazyFrame
        One row per group, column and period: ``[*by, column, period, psi, n,
        n_baseline, level]``, ``n`` the period's rows (weight) and ``n_baseline`` the
        baseline's; ``psi`` and ``level`` are null where the group has no baseline
        rows, or the period none (rows of zero weight or count only). With
        ``detail=True``: ``[*by, column, period, bin, n, share, baseline_share, psi]``
        per bin (``bin`` as text: the bin's number from 1, ``"null"``, or the value;
        the bin of missing values first, apart from a value ``"null"``),
        ``psi`` being the bin's term (``share`` null in a period of no rows).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "month": [1] * 6 + [2] * 6,
    ...     "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.4, 0.5, 0.5, 0.6, 0.6, 0.7],
    ...     "channel": ["web", "web", "branch", "web", "branch", "web"] * 2,
    ... })
    >>> pr.psi(df, "month", columns="channel", n_bins=3)
    shape: (4, 6)
    ┌─────────┬───────┬──────────┬─────┬────────────┬────────┐
    │ column  ┆ month ┆ psi      ┆ n   ┆ n_baseline ┆ level  │
    │ ---     ┆ ---   ┆ ---      ┆ --- ┆ ---        ┆ ---    │
    │ str     ┆ i64   ┆ f64      ┆ i64 ┆ i64        ┆ str    │
    ╞═════════╪═══════╪══════════╪═════╪════════════╪════════╡
    │ score   ┆ 1     ┆ 0.0      ┆ 6   ┆ 6          ┆ stable │
    │ score   ┆ 2     ┆ 3.276768 ┆ 6   ┆ 6          ┆ shift  │
    │ channel ┆ 1     ┆ 0.0      ┆ 6   ┆ 6          ┆ stable │
    │ channel ┆ 2     ┆ 0.0      ┆ 6   ┆ 6          ┆ stable │
    └─────────┴───────┴──────────┴─────┴────────────┴────────┘
    """
    n_bins = check_n_bins(n_bins)
    by_cols = normalize_by(by)
    if not isinstance(detail, bool):
        msg = f"`detail` must be True or False, got {detail!r}"
        raise RocOptionTypeError(msg)
    if not isinstance(period, str):
        msg = f"`period` must be a column name (str), got {period!r}"
        raise RocOptionTypeError(msg)
    compared = _compared(score, columns)
    result_columns = {*PSI_COLUMNS, *(PSI_DETAIL_COLUMNS if detail else ())}
    refuse_clashes(by_cols, {*result_columns, period, *compared})
    refuse_clashes([period], result_columns, role="period")
    if period in compared:
        msg = (
            f"`period` column {period!r} is also compared (score= or columns=): a "
            "period's distribution over itself says nothing; leave it out of columns="
            + (" and pass score=None" if period == score else "")
        )
        raise RocOptionError(msg)
    schema = require_columns(
        frame,
        [("period", period)]
        + [("score" if c == score else "characteristic", c) for c in compared]
        + [(role, c) for role, c in (("weight", weight), ("count", count)) if c is not None]
        + [("by", c) for c in by_cols],
    )
    for column in compared:
        dtype = schema[column]
        if dtype.is_nested() or dtype == pl.Object:
            role = "score" if column == score else "characteristic"
            msg = (
                f"{role} column {column!r} has dtype {dtype}, which cannot be binned; "
                "compare numeric, string, categorical, enum or boolean columns"
            )
            raise RocInputError(msg)
    # Polars rows: the periods first (the baseline's), then each numeric column
    # binned as the rows stream, its NaN counted there; other sources are counted per
    # distinct value, which carries the same checks.
    checks = period_checks(frame, period=period, weight=weight, count=count)
    if checks is not None:
        _refuse_null_periods(checks.lazy(), period)
        baseline = baseline_period(checks.lazy(), period, baseline)
    tables = []
    for position, column in enumerate(compared):  # one count table per column compared
        is_baseline = pl.col(period) == pl.lit(baseline)
        role = "score" if column == score else "characteristic"
        if checks is not None and schema[column].is_numeric():
            edges = None
            if weight is not None or count is not None:
                # Quantiles of weight: from the baseline's distinct values, counted apart.
                on_baseline = count_values(
                    frame.lazy().filter(is_baseline),
                    keys=[*by_cols, column],
                    weight=weight,
                    count=count,
                    into=_N,
                    units=_UNITS,
                    check_units=False,  # checked with the periods
                )
                edges = baseline_edges(
                    on_baseline.rename({column: "value", _N: "n"}), by_cols, pl.lit(True), n_bins
                )
            counted = count_quantile_bins(
                frame,
                by=by_cols,
                period=period,
                column=column,
                baseline=is_baseline,
                n_bins=n_bins,
                weight=weight,
                count=count,
                edges=edges,
            )
            _refuse_nan(counted.select(pl.col(QUANTILE_NAN).sum()).item(), role, column)
            number = pl.col(QUANTILE_BIN)
            per_bin = counted.lazy().select(
                *by_cols,
                period,
                number.cast(pl.String).fill_null("null").alias(_BIN),
                number.alias(_ORDER),
                "n",
            )
        else:
            # The compared column may be called `n`: counted under another name first.
            counts = count_values(
                frame,
                keys=[*by_cols, period, column],
                weight=weight,
                count=count,
                into=_N,
                units=_UNITS,
                check_units=position == 0,  # the weights or counts: checked once a call
            ).rename({column: "value"})
            counts = counts.rename({_N: "n"})
            if checks is None:
                if position == 0:
                    _refuse_null_periods(counts, period)
                    baseline = baseline_period(counts, period, baseline)
                if counts.collect_schema()["value"].is_float():  # NaN rows of the counts
                    nan = counts.filter(pl.col("value").is_nan()).select(pl.col("n").sum())
                    _refuse_nan(nan.collect().item(), role, column)
            per_bin = bin_values(counts, by_cols, period, baseline, n_bins)
        shares = bin_shares(per_bin, by_cols, period, column, baseline)
        tables.append(shares.with_columns(pl.lit(position).alias("__roc_position")))
    binned = pl.concat(tables, how="vertical_relaxed")
    order = [*by_cols, "__roc_position", period]
    if detail:
        # Numbered bins in their order (the null bin first), then categories by name.
        result = binned.sort([*order, _ORDER, _BIN], nulls_last=False).select(
            *by_cols,
            "column",
            period,
            pl.col(_BIN).alias("bin"),
            "n",
            "share",
            "baseline_share",
            "psi",
        )
    else:
        # Each period's terms added in bin order (as bin_shares sorted them).
        total = (
            binned.group_by(order, maintain_order=True)
            .agg(
                pl.col("column").first(),
                ordered_sum(pl.col("psi")),
                ordered_sum(pl.col("n")),
                pl.col("n_baseline").first(),
            )
            .with_columns(
                pl.when((pl.col("n_baseline") > 0) & (pl.col("n") > 0))
                .then(pl.col("psi"))
                .alias("psi")
            )
        )
        level = (
            pl.when(pl.col("psi") < PSI_LEVELS["stable"])
            .then(pl.lit("stable"))
            .when(pl.col("psi") < PSI_LEVELS["moderate"])
            .then(pl.lit("moderate"))
            .when(pl.col("psi").is_not_null())
            .then(pl.lit("shift"))
        )
        result = total.sort(order, nulls_last=False).select(
            *by_cols, "column", period, "psi", "n", "n_baseline", level.alias("level")
        )
    eager = not isinstance(frame, pl.LazyFrame)
    return finish_result(result, eager=eager, counts=["n"] if detail else ["n", "n_baseline"])


def _compared(score: str | None, columns: str | Sequence[str] | None) -> list[str]:
    """The columns compared: the score, then ``columns``, each once."""
    listed = [columns] if isinstance(columns, str) else list(columns or [])
    for name in listed:
        if not isinstance(name, str):
            msg = f"`columns` must be a column name or a list of names, got {columns!r}"
            raise RocOptionTypeError(msg)
    compared = ([] if score is None else [score]) + listed
    if not compared:
        msg = "psi needs a column to compare: pass score= or columns="
        raise RocOptionError(msg)
    twice = sorted({name for name in compared if compared.count(name) > 1})
    if twice:
        already = f" (the score {score!r} is compared already)" if score in twice else ""
        msg = f"`columns` names {twice!r} twice{already}; list each column once"
        raise RocOptionError(msg)
    return compared


def _refuse_null_periods(counts: pl.LazyFrame, period: str) -> None:
    """A row without a period belongs to no period: refused, as a null grade is."""
    nulls = counts.filter(pl.col(period).is_null()).select(pl.col("n").sum()).collect().item()
    if nulls:
        msg = (
            f"period column {period!r} has {nulls} row(s) with a null period; fill them "
            f"(e.g. pl.col({period!r}).fill_null(...)) or filter those rows out first"
        )
        raise RocInputError(msg)


def _refuse_nan(nan: float, role: str, column: str) -> None:
    """NaN is no value to bin (nulls are: they get a bin of their own)."""
    if nan:
        # A weighted log counts its NaN rows by their weight.
        found = f"{nan} NaN value(s)" if isinstance(nan, int) else f"NaN values (weight {nan:g})"
        msg = (
            f"{role} column {column!r} has {found}, which cannot be binned; "
            "replace them (e.g. with .fill_nan(None): nulls get a bin of their own)"
        )
        raise RocInputError(msg)


def baseline_period(counts: pl.LazyFrame, period: str, baseline: Any) -> Any:
    """The baseline period's value: the earliest holding rows for ``"first"``, else
    ``baseline``, which must be one of the periods."""
    found = counts.group_by(period).agg(pl.col("n").sum()).sort(period, nulls_last=True).collect()
    periods = found[period]
    if isinstance(baseline, str) and baseline == "first":
        # The earliest period holding rows: one of zero weights or counts only has no
        # shares to compare with (the expanded rows do not have it).
        held = found.filter(pl.col("n") > 0)[period]
        return held[0] if len(held) else (periods[0] if len(periods) else None)
    try:
        present = periods.is_in([baseline]).any()
    except pl.exceptions.PolarsError:
        present = False
    if not present:
        shown = ", ".join(repr(p) for p in periods.head(10).to_list())
        msg = (
            f"baseline period {baseline!r} is absent from column {period!r} (periods "
            f"found: {shown}{', ...' if len(periods) > 10 else ''}); pass one of them, "
            "or baseline='first' for the earliest"
        )
        raise RocOptionError(msg)
    return baseline


def bin_values(
    counts: pl.LazyFrame, by: list[str], period: str, baseline: Any, n_bins: int
) -> pl.LazyFrame:
    """``[*by, period, _BIN, _ORDER, n]`` per group, period and bin, from the counts of
    a column's values (in ``value``): numeric values in the baseline's quantile bins
    (nulls in a bin of their own), other values one bin each."""
    cells = counts
    if counts.collect_schema()["value"].is_numeric():
        edges = baseline_edges(cells, by, pl.col(period) == pl.lit(baseline), n_bins)
        binned = bin_of(cells, edges, by).with_columns(
            pl.when(pl.col("value").is_null())
            .then(pl.lit("null"))
            .otherwise(pl.col("bin").cast(pl.String))
            .alias(_BIN),
            pl.when(pl.col("value").is_not_null()).then(pl.col("bin")).alias(_ORDER),
        )
    else:
        # The null bin first, as a numeric column's; its order keeps it apart from a
        # value "null".
        binned = cells.with_columns(
            pl.col("value").cast(pl.String).fill_null("null").alias(_BIN),
            pl.when(pl.col("value").is_not_null()).then(pl.lit(0, pl.Int64)).alias(_ORDER),
        )
    keys = [*by, period, _BIN, _ORDER]  # the bin's order: one per bin
    if binned.collect_schema()["n"].is_float():  # weights: exact sums, the same bits every run
        return add_blocks(group_blocks(binned, keys, pl.col("n"), "n", {}).collect(), keys, "n", [])
    return binned.group_by(keys).agg(pl.col("n").sum())


def baseline_edges(
    cells: pl.LazyFrame, by: list[str], is_baseline: pl.Expr, n_bins: int
) -> pl.LazyFrame:
    """The inner edges ``[*by, edge, value]`` of the quantile bins of each group's
    baseline cells (``[*by, value, n]`` and, weighted, ``_UNITS``): at shares of weight
    when weighted (:func:`~polars_roc.views.calibration.quantile_edges`)."""
    baseline_cells = cells.filter(is_baseline & pl.col("value").is_not_null())
    rows = None
    if _UNITS in cells.collect_schema():  # weighted: edges at shares of weight
        rows = agg_per_group(baseline_cells, by, pl.col(_UNITS).sum().alias(ROWS))
    per_value = baseline_cells.group_by([*by, "value"]).agg(pl.col("n").sum())
    return quantile_edges(per_value, by, n_bins, rows)


def bin_shares(
    per_bin: pl.LazyFrame, by: list[str], period: str, column: str, baseline: Any
) -> pl.LazyFrame:
    """``[*by, period, column, bin, n, share, baseline_share, n_baseline, psi]`` per
    group, period and bin (the union of the period's and the baseline's bins), from
    ``per_bin`` (:func:`bin_values`)."""
    is_baseline = pl.col(period) == pl.lit(baseline)
    # Null, not NaN, for a period (or baseline) whose rows all have zero weight or count.
    share = ratio(pl.col("n"), over_sum(pl.col("n"), [*by, period]))
    # Sorted, so that the sums add in bin order; cached: the baseline's shares are the
    # same numbers in both places it is read.
    in_order = [*by, period, _ORDER, _BIN]
    actual = per_bin.sort(in_order, nulls_last=False).with_columns(share.alias("share")).cache()
    expected = actual.filter(is_baseline).select(
        *by,
        _BIN,
        _ORDER,
        pl.col("share").alias("baseline_share"),
        pl.col("n").alias("__roc_nb"),
    )
    periods = per_bin.select(*by, period).unique()
    # Every period gets every baseline bin: a bin it left empty counts too.
    with_baseline_bins = (
        periods.join(expected, on=by, nulls_equal=True)
        if by
        else periods.join(expected, how="cross")
    )
    keys = [*by, period, _BIN, _ORDER]
    grid = pl.concat([actual.select(keys), with_baseline_bins.select(keys)]).unique()
    joined = (
        grid.join(actual, on=keys, how="left", nulls_equal=True)
        .join(expected, on=[*by, _BIN, _ORDER], how="left", nulls_equal=True)
        .sort(in_order, nulls_last=False)
    )
    n_baseline = over_sum(pl.col("__roc_nb").fill_null(0), [*by, period])
    n_period = over_sum(pl.col("n").fill_null(0), [*by, period])
    # A bin the period (baseline) left empty has share 0; a period (baseline) of no
    # rows has no shares: its terms are null, not a "shift" of EMPTY_SHARE's.
    a = pl.when(n_period > 0).then(pl.col("share").fill_null(0.0))
    e = pl.when(n_baseline > 0).then(pl.col("baseline_share").fill_null(0.0))
    a_kept = pl.when(a > 0).then(a).when(a.is_not_null()).then(EMPTY_SHARE)
    e_kept = pl.when(e > 0).then(e).when(e.is_not_null()).then(EMPTY_SHARE)
    return joined.select(
        *by,
        pl.lit(column).alias("column"),
        period,
        _BIN,
        _ORDER,
        pl.col("n").fill_null(0),
        a.alias("share"),
        e.alias("baseline_share"),
        n_baseline.alias("n_baseline"),
        ((a_kept - e_kept) * (a_kept / e_kept).log()).alias("psi"),
    )


def over_sum(expr: pl.Expr, keys: list[str]) -> pl.Expr:
    """The sum of ``expr`` per ``keys``, added in row order (the same bits every run)."""
    return ordered_sum(expr).over(keys) if keys else ordered_sum(expr)
