"""Confusion matrices and their measures at given thresholds, from the score table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_roc.core.arguments import Roles, check_thresholds
from polars_roc.core.costs import cost_columns
from polars_roc.core.counting import count_rows, source_schema
from polars_roc.core.lookup import GROUP, at_thresholds, counts_at
from polars_roc.core.measures import MEASURE_COLUMNS, check_beta, with_measures
from polars_roc.core.score_table import build
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.exceptions import RocOptionError, RocOptionTypeError

__all__ = ["confusion_matrix"]


# Thresholds per segment: a frame with the `by` columns and `threshold` (the output of
# best_threshold(by=...)), or a dict {segment value or tuple of values: threshold}.
SegmentThresholds = pl.DataFrame | pl.LazyFrame | Mapping[Any, float | None]


def confusion_matrix(
    frame: Frame,
    threshold: float | Sequence[float] | SegmentThresholds = 0.5,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    beta: float | None = None,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
    prevalence: float | None = None,
) -> Frame:
    """Confusion matrix and every measure derived from it, per group and threshold.

    A row is predicted positive when ``score >= threshold``.

    Parameters
    ----------
    threshold
        One threshold or a list of them, for every group; the result has one row per
        group and threshold, thresholds in the order given. Or thresholds per segment:
        a frame with ``threshold`` and the ``by`` columns it is keyed by (e.g. the
        output of ``df.roc.best_threshold(by=...)``; its measures and other columns are
        ignored, but a column of the log missing from ``by``, or other columns without
        any ``by`` column, are refused as keying nothing), or a
        dict ``{segment value: threshold}`` (a tuple of values with several ``by``
        columns). A frame keyed by some of the ``by`` columns applies to every group
        of the others (thresholds per segment, evaluated per segment and month); one
        without them, to every group. Several rows of a segment give one result row
        each, in the frame's order; a null threshold gives a row of null counts.
        Every segment of the log needs a threshold (an error names those without);
        thresholds of segments absent from the log are ignored.
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    beta
        When given, adds ``f_beta``, the F-measure weighting recall ``beta`` times as
        much as precision: ``0`` gives precision, ``inf`` recall (the limit, as
        scikit-learn's ``fbeta_score``); a negative or NaN ``beta`` is refused.
    cost_fp, cost_fn
        When either is given, adds ``cost = cost_fp * fp + cost_fn * fn`` and
        ``expected_cost = cost / n`` (per example); a cost left out counts 1.
    prevalence
        The population's share of positives, when the sample's is not (oversampled
        defaults, case-control studies): ``ppv``, ``npv``, ``fdr``, ``for``,
        ``accuracy`` and ``error_rate`` are then given at that prevalence by Bayes'
        rule from the sample's sensitivity and specificity (as yardstick's
        ``ppv(prevalence=)``), and ``prevalence`` shows it. See docs/measures.md.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, tp, fp, fn, tn]`` then the margins ``pp, pn, pos, neg, n`` and
        the measures ``tpr, fpr, tnr, fnr, ppv, npv, fdr, for, accuracy, error_rate,
        balanced_accuracy, f1, [f_beta,] kappa, kappa_level, mcc, youden_j, prevalence,
        lr_pos, lr_neg, dor, p_tp, p_fp, p_fn, p_tn`` (see docs/measures.md). A ratio
        whose denominator is zero is null. Then ``cost, expected_cost`` when costs
        are given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.55, 0.3, 0.2], "label": [1, 0, 1, 0, 0]})
    >>> pr.confusion_matrix(df, [0.5, 0.7]).select("threshold", "tp", "fp", "fn", "tn", "f1")
    shape: (2, 6)
    ┌───────────┬─────┬─────┬─────┬─────┬──────────┐
    │ threshold ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ f1       │
    │ ---       ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---      │
    │ f64       ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ f64      │
    ╞═══════════╪═════╪═════╪═════╪═════╪══════════╡
    │ 0.5       ┆ 2   ┆ 1   ┆ 0   ┆ 2   ┆ 0.8      │
    │ 0.7       ┆ 1   ┆ 0   ┆ 1   ┆ 3   ┆ 0.666667 │
    └───────────┴─────┴─────┴─────┴─────┴──────────┘

    Each segment at its own threshold, e.g. its Youden-best one:

    >>> log = df.with_columns(segment=pl.Series(["a", "a", "b", "b", "a"]))
    >>> best = log.roc.best_threshold(by="segment")
    >>> log.roc.confusion(best, by="segment").select("segment", "threshold", "tp", "fp")
    shape: (2, 4)
    ┌─────────┬───────────┬─────┬─────┐
    │ segment ┆ threshold ┆ tp  ┆ fp  │
    │ ---     ┆ ---       ┆ --- ┆ --- │
    │ str     ┆ f64       ┆ i64 ┆ i64 │
    ╞═════════╪═══════════╪═════╪═════╡
    │ a       ┆ 0.9       ┆ 1   ┆ 0   │
    │ b       ┆ 0.55      ┆ 1   ┆ 0   │
    └─────────┴───────────┴─────┴─────┘
    >>> log.roc.confusion({"a": 0.5, "b": 0.25}, by="segment")["tp"].to_list()
    [1, 1]
    """
    if beta is not None:
        check_beta(beta)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    per_segment = isinstance(threshold, (pl.DataFrame, pl.LazyFrame, Mapping))
    if per_segment:
        wanted = segment_thresholds(threshold, roles, frame)  # type: ignore[arg-type]
        thresholds = wanted.get_column("threshold").drop_nulls().unique().to_list()
    else:
        thresholds = check_thresholds("threshold", threshold)
    cost_columns(cost_fp, cost_fn)  # checked before any read
    prep = count_rows(
        frame,
        roles,
        reserved=CONFUSION_RESERVED,
        score_cuts=thresholds,  # another engine counts per threshold, not per score
        group_classes=per_segment,  # the log's segments, to name those without a threshold
    ).prep
    return confusion_from_table(
        prep,
        build(prep),
        matched_thresholds(wanted, prep) if per_segment else thresholds,
        beta=beta,
        prevalence=prevalence,
        cost_fp=cost_fp,
        cost_fn=cost_fn,
    )


def segment_thresholds(
    thresholds: SegmentThresholds, roles: Roles, log: Frame, *, group: str | None = None
) -> pl.DataFrame:
    """Thresholds per segment as a frame ``[*keys, threshold]``, ``keys`` the ``by``
    columns (and ``group``) it has (all of them for a dict); threshold values checked
    (numbers or null). A frame's other columns must key nothing: a column of the ``log``
    outside the keys (a role's and the measures' aside), or, holding none of the keys,
    any column but the measures, is refused (each threshold would apply to every row)."""
    by = roles.by if isinstance(thresholds, Mapping) or group is None else [*roles.by, group]
    if isinstance(thresholds, Mapping):
        if not by:
            msg = (
                "`threshold` as a dict maps segments to thresholds and needs `by=`; "
                f"got by=None and threshold={thresholds!r}"
            )
            raise RocOptionError(msg)
        keys = [k if isinstance(k, tuple) else (k,) for k in thresholds]
        bad = [k for k, values in zip(thresholds, keys) if len(values) != len(by)]
        if bad:
            msg = (
                f"`threshold` dict keys must be a value of each `by` column {by!r} "
                f"(a tuple of {len(by)} with several), got key {bad[0]!r}"
            )
            raise RocOptionError(msg)
        columns = {name: [k[i] for k in keys] for i, name in enumerate(by)}
        table = pl.DataFrame({**columns, "threshold": list(thresholds.values())}, strict=False)
        key_columns = by
    else:
        table = thresholds.lazy().collect()  # a small table of the caller's
        if "threshold" not in table.columns:
            msg = (
                "`threshold` as a frame needs a column 'threshold' and the `by` columns "
                f"it is keyed by, got columns {table.columns!r}"
            )
            raise RocOptionError(msg)
        key_columns = [c for c in by if c in table.columns]
        # The columns of the library's tables of thresholds (best_threshold's ...) and
        # the log's roles key nothing by design.
        ignored = {*by, *THRESHOLD_TABLE_COLUMNS, *(c for _, c in roles.row_columns())}
        others = set(source_schema(log)) - ignored  # the log's schema, read once
        unkeyed = [c for c in table.columns if c in others]
        if unkeyed:
            msg = (
                f"`threshold`'s column(s) {unkeyed!r} are columns of the log but not `by` "
                "columns: its thresholds would apply whatever the rows' values there. Add "
                f"them to `by` (`by={[*roles.by, *unkeyed]!r}`) to apply each threshold to "
                "its own rows, or drop them from the thresholds"
            )
            raise RocOptionError(msg)
        strangers = [c for c in table.columns if c not in ignored]
        if by and not key_columns and strangers:
            msg = (
                f"`threshold` has none of the columns it would be keyed by ({by!r}), but "
                f"{strangers!r}: each threshold would apply to every row. Name its key "
                "columns as the log's (a misspelt segment column?), or drop them to apply "
                "every threshold to every group"
            )
            raise RocOptionError(msg)
    values = table.get_column("threshold")
    if not (values.dtype.is_numeric() or values.dtype == pl.Null):
        msg = f"`threshold`'s column 'threshold' must be numeric, got dtype {values.dtype}"
        raise RocOptionTypeError(msg)
    table = table.select(*key_columns, pl.col("threshold").cast(pl.Float64))
    nan = table.filter(pl.col("threshold").is_nan())
    if nan.height:
        msg = (
            f"`threshold` has NaN for {_segments(nan, key_columns)}; a threshold is a "
            "number (or null, for a row of nulls)"
        )
        raise RocOptionError(msg)
    return table


def _segments(rows: pl.DataFrame, keys: list[str]) -> str:
    """Up to ten segments of ``rows`` (``keys`` columns), for a message."""
    shown = [row if len(row) > 1 else row[0] for row in rows.select(keys).head(10).rows()]
    more = f" and {rows.height - 10} more" if rows.height > 10 else ""
    return f"{keys!r} = {shown!r}{more}"


def matched_thresholds(wanted: pl.DataFrame, prep: Prepared) -> pl.DataFrame:
    """``wanted`` with its key columns in the log's dtypes, once every segment of the
    log (``prep.class_totals``) is known to have a threshold."""
    keys = [c for c in prep.by if c in wanted.columns]
    schema = prep.frame.collect_schema()

    def as_log(name: str) -> pl.Expr:
        # Text keys (a CSV's, a dict's) of a date column are parsed, not cast.
        column, dtype = pl.col(name), schema[name]
        if wanted.schema[name] == pl.String and dtype.is_temporal():
            return column.str.strptime(dtype, strict=False)  # type: ignore[arg-type]
        return column.cast(dtype, strict=False)

    converted = wanted.with_columns(as_log(c) for c in keys)
    for name in keys:
        given, kept = wanted[name], converted[name]
        lost = kept.is_null() & given.is_not_null()
        if given.dtype != pl.String and not schema[name].is_float():
            # A cast truncates (1.7 to 1, a datetime to its date): the key must come back.
            lost |= kept.cast(given.dtype, strict=False).ne_missing(given)
        lost = given.filter(lost)
        if lost.len():
            msg = (
                f"`threshold` has {name!r} value(s) {lost.head(10).to_list()!r} that are "
                f"not values of the log's column {name!r} (dtype {schema[name]})"
            )
            raise RocOptionTypeError(msg)
    wanted = converted
    if keys and prep.class_totals is not None:
        missing = (
            prep.class_totals.select(keys)
            .unique(maintain_order=True)
            .join(wanted, on=keys, how="anti", nulls_equal=True)
            .sort(keys, nulls_last=False)
        )
        if missing.height:
            msg = (
                f"`threshold` has no threshold for the log's segment(s) "
                f"{_segments(missing, keys)}; add rows for them, or leave them out of "
                "the log first (e.g. with .filter())"
            )
            raise RocOptionError(msg)
    return wanted


# Result columns of confusion_matrix, which `by` columns must not use.
CONFUSION_RESERVED = ("fn", "tn", "f_beta", "cost", "expected_cost", *MEASURE_COLUMNS)
# The columns a table of thresholds from the library holds besides its keys.
THRESHOLD_TABLE_COLUMNS = ("threshold", "tp", "fp", "criterion", *CONFUSION_RESERVED)


def confusion_from_table(
    prep: Prepared,
    table: pl.LazyFrame,
    thresholds: list[float] | pl.DataFrame,
    *,
    beta: float | None = None,
    prevalence: float | None = None,
    cost_fp: float | None = None,
    cost_fn: float | None = None,
) -> Frame:
    """:func:`confusion_matrix` at ``thresholds`` (checked, user units; or a frame of
    them per segment, :func:`segment_thresholds`) from the score table ``table`` of
    ``prep`` (finished)."""
    costs = cost_columns(cost_fp, cost_fn)
    at = (
        counts_at(table, prep, thresholds)
        if isinstance(thresholds, list)
        else _counts_per_segment(table, prep, thresholds)
    )
    result = with_measures(at, beta, prevalence).with_columns(costs)
    return prep.finish(result, lambda done: _confusion_totals(done, prep.by))


def _counts_per_segment(table: pl.LazyFrame, prep: Prepared, wanted: pl.DataFrame) -> pl.LazyFrame:
    """:func:`~polars_roc.core.lookup.counts_at` with each segment's own thresholds:
    ``wanted`` is joined onto the groups by its key columns (one as-of join in all)."""
    keys = [c for c in prep.by if c in wanted.columns]
    key, order = "__roc_key", "__roc_order"
    values = wanted.get_column("threshold")
    known = values.fill_null(0.0).to_list()  # nulls: a row of null counts, below
    rows = wanted.with_columns(
        pl.Series("threshold", prep.internal(known), dtype=pl.Float64),
        pl.int_range(pl.len(), dtype=pl.Int64).alias(order),
        pl.Series(key, prep.threshold_keys(known), dtype=pl.Float64),
    ).select(*keys, pl.when(values.is_not_null()).then(pl.col("threshold", key)), order)
    zero = pl.lit(0, dtype=table.collect_schema()["tp"])
    found = at_thresholds(
        table,
        rows.lazy(),
        by=prep.by,
        values=("tp", "fp"),
        shared=keys,
        carry=("n_pos", "n_neg"),
        at=pl.col(key),
    )
    given = pl.col("threshold").is_not_null()
    tp = pl.when(given).then(pl.col("tp").fill_null(zero))
    fp = pl.when(given).then(pl.col("fp").fill_null(zero))
    return found.sort(GROUP, order).select(
        *prep.by,
        "threshold",
        tp.alias("tp"),
        fp.alias("fp"),
        (pl.col("n_pos") - tp).alias("fn"),
        (pl.col("n_neg") - fp).alias("tn"),
    )


def _confusion_totals(result: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    totals = [pl.col("pos").first().alias("n_pos"), pl.col("neg").first().alias("n_neg")]
    return result.group_by(by).agg(totals) if by else result.select(totals)
