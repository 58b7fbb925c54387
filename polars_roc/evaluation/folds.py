"""Evaluation strategies: fold assignment, summaries across folds, the .632 bootstrap.

polars_roc does not train models. :func:`folds` assigns each row to folds (or to
bootstrap replicates) with seeded polars expressions; users train on one part, score
the other, and bring the predictions back with the fold column. :func:`fold_summary`
and :func:`bootstrap632_summary` then evaluate those predictions per fold and combine
them, and every other view works per fold with ``by="fold"``. The random keys are the
SplitMix64 hash of ``(seed, repeat, row position)`` in polars arithmetic
(docs/evaluation.md, "Reproducible").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_thresholds, normalize_by
from polars_roc.core.compat import POLARS_2
from polars_roc.core.counting import count_rows, source_schema
from polars_roc.core.expr_table import as_expr
from polars_roc.core.finish import finish_result
from polars_roc.core.lookup import counts_at
from polars_roc.core.measures import MEASURE_COLUMNS, with_measures
from polars_roc.core.score_table import build
from polars_roc.core.validate import (
    Direction,
    Frame,
    NullPolicy,
    Prepared,
    missing_column,
    polars_lazy,
)
from polars_roc.exceptions import RocOptionError
from polars_roc.stats.bootstrap import GOLDEN, MIX1, MIX2, splitmix64_array
from polars_roc.stats.cells import ordered_mean, ordered_std
from polars_roc.stats.threshold_ci import NUMERIC_MEASURES
from polars_roc.views.auc import auc_from_counts

__all__ = [
    "DEFAULT_METRICS",
    "FoldMethod",
    "bootstrap632",
    "bootstrap632_summary",
    "fold_summary",
    "folds",
    "splitmix64",
]

FoldMethod = Literal["kfold", "stratified", "holdout", "subsample", "loo", "bootstrap"]
FOLD_METHODS = ("kfold", "stratified", "holdout", "subsample", "loo", "bootstrap")

# Measures at a threshold summarised when the caller names none.
DEFAULT_METRICS = ("accuracy", "tpr", "fpr", "ppv", "f1")

# Weights of the .632 bootstrap (Efron 1983; seed 001): a bootstrap sample holds
# 1 - (1 - 1/d)^d ~ 1 - 1/e ~ 0.632 of the distinct rows.
W_TEST = 0.632
W_TRAIN = 0.368

_MASK64 = (1 << 64) - 1
# Uniform draws use the top 53 bits of a key, exactly representable as a Float64.
_TOP53 = 1 << 11
_INV_2_53 = 2.0**-53
# ceil(test_size * n) would turn 0.1 * 30 = 3.0000000000000004 into 4 rows.
_CEIL_SLACK = 1e-9

ROW = "__roc_row"
KEY = "__roc_key"
SET = "bootstrap_sample"
BAG_WEIGHT = "__roc_bag_weight"


def _u64(value: int) -> pl.Expr:
    return pl.lit(value & _MASK64, dtype=pl.UInt64)


def splitmix64(x: pl.Expr) -> pl.Expr:
    """SplitMix64 of a UInt64 expression (wrapping arithmetic; ``//`` is a right shift).

    A bijection on 64-bit integers whose outputs pass standard randomness tests; used as
    a stateless, seeded random key per row.
    """
    z = x + _u64(GOLDEN)
    z = (z ^ (z // _u64(1 << 30))) * _u64(MIX1)
    z = (z ^ (z // _u64(1 << 27))) * _u64(MIX2)
    return z ^ (z // _u64(1 << 31))


def _key(seed: int, repeat: pl.Expr, row: pl.Expr) -> pl.Expr:
    """Random UInt64 key of a row in a repeat; distinct rows get distinct keys."""
    folded = int(splitmix64_array(np.array([seed & _MASK64], dtype=np.uint64))[0])
    stream = splitmix64(_u64(folded) ^ repeat.cast(pl.UInt64))
    return splitmix64(stream ^ row.cast(pl.UInt64))


def _check_folds_args(
    method: str, k: int, test_size: float, repeats: int, seed: int, stratify: str | None
) -> None:
    if method not in FOLD_METHODS:
        msg = f"`method` must be one of {FOLD_METHODS!r}, got {method!r}"
        raise ValueError(msg)
    if method in ("kfold", "stratified") and (
        isinstance(k, bool) or not isinstance(k, Integral) or k < 2
    ):
        msg = f"`k` must be an integer >= 2 for method={method!r}, got {k!r}"
        raise ValueError(msg)
    if method in ("holdout", "subsample") and not (
        isinstance(test_size, Real) and 0.0 < test_size < 1.0
    ):
        msg = f"`test_size` must be a fraction strictly between 0 and 1, got {test_size!r}"
        raise ValueError(msg)
    if isinstance(repeats, bool) or not isinstance(repeats, Integral) or repeats < 1:
        msg = f"`repeats` must be a positive integer, got {repeats!r}"
        raise ValueError(msg)
    if method in ("holdout", "loo") and repeats != 1:
        msg = (
            f"method={method!r} makes one split, got repeats={repeats!r}; use "
            "method='subsample' for repeated holdout"
        )
        raise ValueError(msg)
    if isinstance(seed, bool) or not isinstance(seed, Integral):
        msg = f"`seed` must be an integer, got {seed!r}"
        raise TypeError(msg)
    if stratify is not None and method in ("kfold", "loo", "bootstrap"):
        msg = (
            f"method={method!r} does not stratify, got stratify={stratify!r}; use "
            "method='stratified' for stratified k-fold"
        )
        raise ValueError(msg)


def folds(
    frame: Frame,
    *,
    method: FoldMethod = "kfold",
    k: int = 5,
    test_size: float = 1 / 3,
    repeats: int = 1,
    stratify: str | None = None,
    seed: int = 0,
    name: str = "fold",
    count: str | None = None,
) -> Frame:
    """Assign rows to cross-validation folds, holdout splits or bootstrap replicates.

    The assignment is a function of the seed and the row position only (see
    docs/evaluation.md), so it is reproducible and stays lazy.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame``, one row per example.
    method
        - ``"kfold"``: a random permutation cut into ``k`` folds whose sizes differ by
          at most one row.
        - ``"stratified"``: as ``"kfold"``, but every fold holds each class of
          ``stratify`` in the same proportion, within one row per class (the same
          per-fold class counts as scikit-learn's ``StratifiedKFold``).
        - ``"holdout"``: one random split, ``ceil(test_size * n)`` rows for testing
          (by default a third: seed 001 trains on two thirds); stratified per class
          of ``stratify`` when given.
        - ``"subsample"``: ``repeats`` independent holdout splits (repeated random
          subsampling).
        - ``"loo"``: leave-one-out; fold ``i`` holds row ``i`` alone.
        - ``"bootstrap"``: ``repeats`` bootstrap replicates, each drawing ``n`` rows
          with replacement.
    k
        Number of folds for ``"kfold"`` and ``"stratified"``.
    test_size
        Fraction of rows held out by ``"holdout"`` and ``"subsample"``.
    repeats
        Number of repetitions: of the whole k-fold partition (repeated
        cross-validation), of the holdout split (``"subsample"``), or the number of
        bootstrap replicates. ``"holdout"`` and ``"loo"`` take 1.
    stratify
        Column whose classes keep their proportions: used by ``"stratified"``
        (default ``"label"``), optional for ``"holdout"`` and ``"subsample"``, not
        accepted by the other methods. Nulls form a class of their own.
    seed
        Seed of the random assignment.
    name
        Name of the fold (or repeat, or replicate) column.
    count
        Refused: folds split rows, and a count table's row stands for many units that
        belong in different folds. Expand it first (see the error message).

    Returns
    -------
    DataFrame or LazyFrame
        The input columns plus:

        - ``"kfold"``, ``"stratified"``, ``"loo"``: ``name`` (Int64), the fold in which
          the row is the test set; one row per input row. With ``repeats > 1`` the frame
          is long, one row per row and repeat, with a ``repeat`` column (Int64) before
          ``name``.
        - ``"holdout"``, ``"subsample"``: ``name`` (Int64, the repeat) and ``split``
          (``"train"`` or ``"test"``); one row per row and repeat.
        - ``"bootstrap"``: ``name`` (Int64, the replicate), ``in_bag`` (Int64, times the
          row was drawn into the training sample) and ``oob`` (Boolean, out of bag:
          ``in_bag == 0``, the replicate's test set); one row per row and replicate.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"id": range(6), "label": [1, 1, 1, 0, 0, 0]})
    >>> pr.folds(df, method="stratified", k=3, seed=1).group_by(
    ...     "fold", "label"
    ... ).len().sort("fold", "label")
    shape: (6, 3)
    ┌──────┬───────┬─────┐
    │ fold ┆ label ┆ len │
    │ ---  ┆ ---   ┆ --- │
    │ i64  ┆ i64   ┆ u32 │
    ╞══════╪═══════╪═════╡
    │ 0    ┆ 0     ┆ 1   │
    │ 0    ┆ 1     ┆ 1   │
    │ 1    ┆ 0     ┆ 1   │
    │ 1    ┆ 1     ┆ 1   │
    │ 2    ┆ 0     ┆ 1   │
    │ 2    ┆ 1     ┆ 1   │
    └──────┴───────┴─────┘
    """
    if method == "stratified" and stratify is None:
        stratify = "label"
    if count is not None:
        msg = (
            f"folds() splits rows, but count={count!r} makes each row stand for many "
            "units, which belong in different folds; expand the count table into rows "
            f"first: frame.select(pl.exclude({count!r}).repeat_by({count!r}).explode())"
        )
        raise RocOptionError(msg)
    _check_folds_args(method, k, test_size, repeats, seed, stratify)
    eager, lf = polars_lazy(frame, "folds", "it assigns each row a fold")
    schema = lf.collect_schema()
    if stratify is not None and stratify not in schema:
        msg = (
            f"stratify column {stratify!r} not found; pass `stratify=` the label column; "
            f"available columns: {schema.names()!r}"
        )
        raise pl.exceptions.ColumnNotFoundError(msg)
    added = {
        "holdout": ["split"],
        "subsample": ["split"],
        "bootstrap": ["in_bag", "oob"],
    }.get(method, ["repeat"] if repeats > 1 else [])
    clash = [col for col in [name, *added] if col in schema]
    if clash:
        msg = (
            f"the frame already has column(s) {clash!r} that folds() would add; rename "
            "them or pass another `name=`"
        )
        raise ValueError(msg)
    if method in ("kfold", "stratified"):
        # As scikit-learn's KFold: fewer rows than folds would leave folds empty (an
        # empty frame gives an empty result, like every view). Counting is one cheap
        # pass, metadata only for a DataFrame and most scans.
        n_rows = lf.select(pl.len()).collect().item()
        if 0 < n_rows < k:
            msg = (
                f"k={k} folds need at least {k} rows, got {n_rows}: some folds would be "
                f"empty; pass a smaller `k` (at most {n_rows}) or method='loo'"
            )
            raise ValueError(msg)

    columns = schema.names()
    indexed = lf.with_row_index(ROW)
    repeat_col = "repeat" if method in ("kfold", "stratified") else name
    if repeats > 1:
        ids = pl.LazyFrame({repeat_col: range(repeats)}, schema={repeat_col: pl.Int64})
        indexed = ids.join(indexed, how="cross", maintain_order="left_right")
        repeat = pl.col(repeat_col)
        within = [repeat_col]
    else:
        # One repeat: no cross join and no windows over a constant column.
        repeat = pl.lit(0, dtype=pl.Int64)
        within = []
        if method in ("holdout", "subsample", "bootstrap"):
            indexed = indexed.with_columns(repeat.alias(name))

    def over(expr: pl.Expr, extra: Sequence[str] = ()) -> pl.Expr:
        keys = [*within, *extra]
        return expr.over(keys) if keys else expr

    key = _key(seed, repeat, pl.col(ROW))
    if method == "loo":
        result = indexed.with_columns(pl.col(ROW).cast(pl.Int64).alias(name))
    elif method == "kfold":
        position = over(key.rank("ordinal")).cast(pl.Int64) - 1
        result = indexed.with_columns((position % k).alias(name))
    elif method == "stratified":
        assert stratify is not None  # checked with the options
        # Rows ordered by class (in order of first appearance, as scikit-learn), then
        # at random; dealing them out in turn gives every fold floor or ceil of each
        # class's share, and fold sizes within one row. A row's place in that order
        # is the size of the classes before its own plus its rank within its class.
        first_seen = pl.col(ROW).min().over([*within, stratify])
        if within and not POLARS_2:
            # Polars 1.x refuses a window inside another: the inner one as a column.
            indexed = indexed.with_columns(first_seen.alias("__roc_first_seen"))
            first_seen = pl.col("__roc_first_seen")
        classes_before = over(first_seen.rank("min")).cast(pl.Int64) - 1
        rank_in_class = over(key.rank("ordinal"), [stratify]).cast(pl.Int64) - 1
        result = indexed.with_columns(((classes_before + rank_in_class) % k).alias(name))
    elif method in ("holdout", "subsample"):
        strata = [stratify] if stratify is not None else []
        position = over(key.rank("ordinal"), strata).cast(pl.Int64) - 1
        # ceil(test_size * size) rows held out, as scikit-learn.
        n_test = over(pl.len(), strata).cast(pl.Float64) * test_size - _CEIL_SLACK
        in_test = position < n_test.ceil().cast(pl.Int64)
        split = pl.when(in_test).then(pl.lit("test")).otherwise(pl.lit("train"))
        result = indexed.with_columns(split.alias("split"))
    else:
        result = _bootstrap(indexed, name, seed, over)
    # The repeat before the fold; a split or in-bag count after the repeat it belongs to.
    folded = method in ("kfold", "stratified", "loo")
    out = [*columns, *added, name] if folded else [*columns, name, *added]
    result = result.select(out)
    return finish_result(result, eager=eager, counts=[c for c in out if c == "in_bag"])


def _bootstrap(
    indexed: pl.LazyFrame, name: str, seed: int, over: Callable[[pl.Expr], pl.Expr]
) -> pl.LazyFrame:
    """In-bag counts per row and replicate: each replicate draws ``n`` row positions.

    Draw ``j`` of replicate ``b`` picks row ``floor(u * n)`` with ``u`` uniform in
    ``[0, 1)`` from the key of ``(seed, b, j)``; the counts are joined back to the rows.
    """
    uniform = (_key(seed, pl.col(name), pl.col(ROW)) // _u64(_TOP53)).cast(pl.Float64) * _INV_2_53
    drawn = (uniform * over(pl.len()).cast(pl.Float64)).floor().cast(pl.Int64)
    # One integer key per (replicate, row): single-column joins are much faster.
    span = pl.len().cast(pl.Int64)
    counts = (
        indexed.select((pl.col(name) * span + drawn).alias(KEY))
        .group_by(KEY)
        .agg(pl.len().cast(pl.Int64).alias("in_bag"))
    )
    return (
        indexed.with_columns((pl.col(name) * span + pl.col(ROW).cast(pl.Int64)).alias(KEY))
        .join(counts, on=KEY, how="left", maintain_order="left")
        .with_columns(pl.col("in_bag").fill_null(0))
        .with_columns((pl.col("in_bag") == 0).alias("oob"))
    )


def check_fold_column(frame: Any, fold: str, role: str = "fold") -> None:
    if not isinstance(fold, str):
        msg = f"`{role}` must be a column name (str), got {fold!r}"
        raise TypeError(msg)
    schema = source_schema(frame)
    if fold not in schema:
        msg = (
            f"{role} column {fold!r} not found in the frame; assign folds with "
            f"polars_roc.folds() or pass `{role}=`; available columns: {schema.names()!r}"
        )
        raise pl.exceptions.ColumnNotFoundError(msg)


def count_folds(frame: Any, roles: Roles, reserved: Sequence[str]) -> tuple[bool, Prepared]:
    """Whether the caller gets a DataFrame, and ``frame`` counted per fold
    (:func:`~polars_roc.core.counting.count_rows`) as a lazy preparation: each fold's
    classes come from the value pass, so that one-class folds are warned of there (the
    summaries carry no totals to warn from)."""
    prep = count_rows(frame, roles, reserved=reserved, group_classes=True).prep
    return prep.eager, replace(prep, eager=False)


def fold_segments(frame: Any, fold: str, by: str | Sequence[str] | None) -> list[str]:
    """Check the fold column; return the ``by`` columns, which must not hold it."""
    check_fold_column(frame, fold)
    segments = normalize_by(by)
    if fold in segments:
        msg = f"the fold column {fold!r} cannot also be a `by` column"
        raise ValueError(msg)
    return segments


def _metric_names(threshold: float | None, metrics: Sequence[str] | None) -> list[str]:
    check_thresholds("threshold", threshold, optional=True)
    if metrics is None:
        return list(DEFAULT_METRICS) if threshold is not None else []
    if isinstance(metrics, str):
        metrics = [metrics]
    unknown = [m for m in metrics if m not in NUMERIC_MEASURES]
    if unknown:
        msg = (
            f"`metrics` must name confusion measures among {list(NUMERIC_MEASURES)!r}, "
            f"got {unknown!r}"
        )
        raise ValueError(msg)
    if threshold is None and metrics:
        msg = f"`metrics` {list(metrics)!r} are measured at a threshold; pass `threshold=`"
        raise ValueError(msg)
    return list(metrics)


def _group_metrics(prep: Prepared, threshold: float | None, metrics: list[str]) -> pl.LazyFrame:
    """``[*groups, metric, value]``: AUC, then ``metrics`` at ``threshold``, per group."""
    table, groups = build(prep), prep.by
    area = auc_from_counts(pl.col("pos"), pl.col("neg"), pl.col("tp")).alias("value")
    aucs = table.group_by(groups, maintain_order=True).agg(area)  # groups hold the fold
    parts = [aucs.select(*groups, pl.lit("auc").alias("metric"), "value")]
    if metrics and threshold is not None:
        at = with_measures(counts_at(table, prep, [float(threshold)]))
        parts.append(
            at.select(*groups, *metrics).unpivot(
                on=metrics, index=groups, variable_name="metric", value_name="value"
            )
        )
    return pl.concat(parts, how="vertical")


def _scratch(threshold: float | None) -> tuple[str, ...]:
    """Columns :func:`_group_metrics` computes next to the groups (`by` must avoid them)."""
    return ("value", "fn", "tn", *MEASURE_COLUMNS) if threshold is not None else ("value",)


def _metric_order(metrics: list[str]) -> pl.Expr:
    names = ["auc", *metrics]
    return pl.col("metric").replace_strict(names, list(range(len(names))), return_dtype=pl.Int64)


def fold_summary(
    frame: Frame,
    *,
    fold: str = "fold",
    threshold: float | None = None,
    metrics: Sequence[str] | None = None,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
) -> Frame:
    """Mean, standard deviation, minimum and maximum of AUC (and measures) across folds.

    Each fold's test predictions are evaluated on their own (AUC, and the confusion
    measures at ``threshold``); the numbers are then summarised across the folds of
    each segment. Folds where a number is undefined (one class only) are left out of
    its summary and counted out of ``n_folds``.

    Parameters
    ----------
    frame
        Predictions with a fold column (see :func:`folds`), one row per test example
        (a Polars frame, or another engine's, counted there).
    fold
        The fold column; one evaluation per distinct value (per segment).
    threshold
        Optional threshold for the confusion measures (``score >= threshold`` is
        predicted positive).
    metrics
        Confusion measures to summarise at ``threshold`` (column names of
        :func:`polars_roc.confusion_matrix`); default ``accuracy, tpr, fpr, ppv, f1``.
    score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`; ``by`` names the segments.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, metric, n_folds, mean, std, min, max]``, one row per segment and
        metric (``"auc"`` first, then ``metrics`` in the order given). ``std`` is the
        sample standard deviation (``ddof=1``), null for a single fold.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> preds = pl.DataFrame({
    ...     "fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...     "score": [0.9, 0.4, 0.6, 0.1, 0.8, 0.3, 0.2, 0.7],
    ...     "label": [1, 1, 0, 0, 1, 0, 1, 0],
    ... })
    >>> pr.fold_summary(preds)
    shape: (1, 6)
    ┌────────┬─────────┬───────┬──────────┬─────┬──────┐
    │ metric ┆ n_folds ┆ mean  ┆ std      ┆ min ┆ max  │
    │ ---    ┆ ---     ┆ ---   ┆ ---      ┆ --- ┆ ---  │
    │ str    ┆ i64     ┆ f64   ┆ f64      ┆ f64 ┆ f64  │
    ╞════════╪═════════╪═══════╪══════════╪═════╪══════╡
    │ auc    ┆ 2       ┆ 0.625 ┆ 0.176777 ┆ 0.5 ┆ 0.75 │
    └────────┴─────────┴───────┴──────────┴─────┴──────┘
    """
    names = _metric_names(threshold, metrics)
    segments = fold_segments(frame, fold, by)
    roles = Roles(score, label, [*segments, fold], weight, count, pos_label, nulls, direction)
    reserved = ("metric", "n_folds", "mean", "std", "min", "max", *_scratch(threshold))
    eager, prep = count_folds(frame, roles, reserved)
    # Folds in order: each segment's sums add them in that order.
    per_fold = _group_metrics(prep, threshold, names).sort([*roles.by, "metric"], nulls_last=False)
    value = pl.col("value")
    stats = [value.count().cast(pl.Int64).alias("n_folds"), ordered_mean(value).alias("mean")]
    stats += [ordered_std(value).alias("std"), value.min().alias("min"), value.max().alias("max")]
    result = (
        per_fold.group_by(*segments, "metric")
        .agg(stats)
        .sort([*segments, _metric_order(names)], nulls_last=False)
    )
    return finish_result(result, eager=eager, prep=prep, counts=("n_folds",))


def bootstrap632(train: str | pl.Expr, test: str | pl.Expr) -> pl.Expr:
    """The .632 bootstrap estimate from per-replicate resubstitution and test measures.

    ``mean over replicates of (0.632 * test + 0.368 * train)``: an aggregation, use it
    in ``select`` or ``group_by().agg()`` over a frame with one row per replicate.
    Seed 001 writes this as a *sum* over the ``k`` replicates, which would grow with
    ``k`` (five replicates at accuracy 0.8 would give 4.0); the estimate is the mean
    (Efron, 1983). Replicates where either measure is null are left out.

    Parameters
    ----------
    train
        The measure on the training (in-bag, resubstitution) sample of each replicate.
    test
        The measure on the out-of-bag rows of the same replicate.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> per_replicate = pl.DataFrame({"acc_train": [0.9, 0.95], "acc_test": [0.7, 0.8]})
    >>> per_replicate.select(pr.bootstrap632("acc_train", "acc_test"))
    shape: (1, 1)
    ┌──────────────┐
    │ bootstrap632 │
    │ ---          │
    │ f64          │
    ╞══════════════╡
    │ 0.8144       │
    └──────────────┘
    """
    train_expr, test_expr = as_expr(train, "train"), as_expr(test, "test")
    combined = W_TEST * test_expr.cast(pl.Float64) + W_TRAIN * train_expr.cast(pl.Float64)
    return ordered_mean(combined).alias("bootstrap632")


def bootstrap632_summary(
    frame: Frame,
    *,
    fold: str = "fold",
    in_bag: str = "in_bag",
    threshold: float | None = None,
    metrics: Sequence[str] | None = None,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
) -> Frame:
    """The .632 bootstrap estimate of AUC (and measures) from bootstrap predictions.

    ``frame`` is the long output of ``folds(method="bootstrap")`` with, for each
    replicate, the scores of the model trained on that replicate for *all* rows. Per
    replicate, the training (resubstitution) measure is computed on the in-bag rows,
    each counted ``in_bag`` times as in the bootstrap sample, and the test measure on
    the out-of-bag rows; the estimate is the mean over replicates of
    ``0.632 * test + 0.368 * train`` (see :func:`bootstrap632` for why a mean and not
    seed 001's sum).

    Parameters
    ----------
    frame
        Bootstrap predictions: one row per row and replicate.
    fold
        The replicate column.
    in_bag
        Column of in-bag counts (non-negative integers); 0 marks an out-of-bag row.
    threshold, metrics
        As in :func:`fold_summary`.
    score, label, by, weight, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`; ``by`` names the segments.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, metric, n_replicates, train, test, estimate]``: the mean training
        and test measures and the .632 estimate, over the ``n_replicates`` replicates
        where both are defined.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> preds = pl.DataFrame({
    ...     "fold": [0, 0, 0, 0, 0, 0],
    ...     "in_bag": [2, 1, 1, 0, 2, 0],
    ...     "score": [0.9, 0.2, 0.3, 0.6, 0.1, 0.2],
    ...     "label": [1, 1, 0, 1, 0, 0],
    ... })
    >>> pr.bootstrap632_summary(preds)
    shape: (1, 5)
    ┌────────┬──────────────┬──────────┬──────┬──────────┐
    │ metric ┆ n_replicates ┆ train    ┆ test ┆ estimate │
    │ ---    ┆ ---          ┆ ---      ┆ ---  ┆ ---      │
    │ str    ┆ i64          ┆ f64      ┆ f64  ┆ f64      │
    ╞════════╪══════════════╪══════════╪══════╪══════════╡
    │ auc    ┆ 1            ┆ 0.888889 ┆ 1.0  ┆ 0.959111 │
    └────────┴──────────────┴──────────┴──────┴──────────┘
    """
    names = _metric_names(threshold, metrics)
    polars_lazy(frame, "bootstrap632_summary", "it weighs each row by its in-bag count")
    segments = fold_segments(frame, fold, by)
    check_fold_column(frame, in_bag, role="in_bag")
    schema = frame.collect_schema()
    if not schema[in_bag].is_integer():
        msg = f"in_bag column {in_bag!r} must hold integer counts, got dtype {schema[in_bag]}"
        raise ValueError(msg)
    if SET in schema:
        msg = f"the frame has a column {SET!r}, which bootstrap632_summary uses; rename it"
        raise ValueError(msg)
    if weight is not None and weight not in schema:
        raise missing_column("weight", weight, schema)
    eager = isinstance(frame, pl.DataFrame)
    # A row drawn m times weighs m in its replicate's training sample; out-of-bag
    # rows form the test set with their own weight.
    bag = pl.col(in_bag).cast(pl.Float64)
    row_weight = pl.col(weight).cast(pl.Float64) if weight is not None else pl.lit(1.0)
    marked = frame.lazy().with_columns(
        pl.when(bag > 0).then(pl.lit("train")).otherwise(pl.lit("test")).alias(SET),
        (pl.when(bag > 0).then(bag).otherwise(1.0) * row_weight).alias(BAG_WEIGHT),
    )
    sets = [*segments, fold, SET]
    roles = Roles(score, label, sets, BAG_WEIGHT, None, pos_label, nulls, direction, internal=True)
    reserved = ("metric", "n_replicates", "train", "test", "estimate", *_scratch(threshold))
    prep = count_rows(marked, roles, reserved=reserved).prep
    per_set = _group_metrics(prep, threshold, names)
    per_replicate = (
        per_set.group_by(*segments, fold, "metric")
        .agg(
            pl.col("value").filter(pl.col(SET) == "train").first().alias("train"),
            pl.col("value").filter(pl.col(SET) == "test").first().alias("test"),
        )
        .filter(pl.col("train").is_not_null() & pl.col("test").is_not_null())
        .sort([*segments, fold, "metric"], nulls_last=False)  # replicates summed in order
    )
    result = (
        per_replicate.group_by(*segments, "metric")
        .agg(
            pl.len().cast(pl.Int64).alias("n_replicates"),
            ordered_mean(pl.col("train")).alias("train"),
            ordered_mean(pl.col("test")).alias("test"),
            bootstrap632("train", "test").alias("estimate"),
        )
        .sort([*segments, _metric_order(names)], nulls_last=False)
    )
    return finish_result(result, eager=eager, prep=prep, counts=("n_replicates",))
