"""The score table: the single place where rows are sorted and counted.

For every group and distinct score it holds the (weighted) number of positives and
negatives at that score and, cumulated from the highest score down, ``tp`` and ``fp``:
the positives and negatives with ``score >= threshold``. Ties are grouped here, once, so
a run of equal scores is one row (one diagonal step of the ROC curve). Every view
(curve, AUC, confusion at thresholds, ...) is a small computation over this table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from polars_roc._validate import NEG, POS, SCORE, Frame, NullPolicy, Prepared, prepare

__all__ = ["score_table", "build", "group_start", "group_end"]

Path = Literal["auto", "hash", "sort"]

# Counting distinct scores in a hash table beats sorting all rows when scores repeat a
# lot (rounded probabilities, scorecards); measured crossover, see benchmarks/README.md.
HASH_PATH_MAX_DISTINCT_RATIO = 0.25


def _row_is_first(columns: Sequence[str]) -> pl.Expr:
    """True on the first row of each run of equal ``columns`` (in the current order)."""
    first_row = pl.int_range(pl.len()) == 0
    changed = [pl.col(c).ne_missing(pl.col(c).shift(1)) for c in columns]
    return pl.any_horizontal(first_row, *changed)


def _row_is_last(columns: Sequence[str]) -> pl.Expr:
    """True on the last row of each run of equal ``columns`` (in the current order)."""
    last_row = pl.int_range(pl.len()) == pl.len() - 1
    changed = [pl.col(c).ne_missing(pl.col(c).shift(-1)) for c in columns]
    return pl.any_horizontal(last_row, *changed)


def group_start(by: Sequence[str]) -> pl.Expr:
    """First row of each group of a frame sorted by ``by``."""
    return _row_is_first(by) if by else pl.int_range(pl.len()) == 0


def group_end(by: Sequence[str]) -> pl.Expr:
    """Last row of each group of a frame sorted by ``by``."""
    return _row_is_last(by) if by else pl.int_range(pl.len()) == pl.len() - 1


def _cumulate(column: str, by: Sequence[str]) -> pl.Expr:
    """Cumulative sum of ``column`` restarting at each group of a frame sorted by ``by``.

    One running sum over the whole frame minus the sum before the group began: no
    window function, so the cost is a few linear passes whatever the number of groups.
    """
    running = pl.col(column).cum_sum()
    if not by:
        return running
    before_group = pl.when(group_start(by)).then(running - pl.col(column)).forward_fill()
    return running - before_group


def build(prep: Prepared, *, path: Path = "auto") -> pl.LazyFrame:
    """Score table of a prepared frame.

    Returns a lazy frame ``[*by, threshold, pos, neg, tp, fp, n_pos, n_neg]`` sorted by the
    group columns (ascending, nulls first) and ``threshold`` descending, with one row per
    group and distinct score. ``pos``/``neg`` count the rows at that score, ``tp``/``fp``
    those at or above it, ``n_pos``/``n_neg`` the group totals.
    """
    by = prep.by
    keys = [*by, SCORE]
    descending = [False] * len(by) + [True]
    if path == "auto":
        few_distinct = prep.n_distinct <= HASH_PATH_MAX_DISTINCT_RATIO * prep.n_rows
        path = "hash" if few_distinct else "sort"
    if path == "hash":
        # Count per distinct score first, then sort only the distinct scores.
        table = (
            prep.frame.group_by(keys)
            .agg(pl.col(POS).sum(), pl.col(NEG).sum())
            .sort(keys, descending=descending, nulls_last=False)
            .with_columns(tp=_cumulate(POS, by), fp=_cumulate(NEG, by))
        )
    elif path == "sort":
        # Sort the rows once, cumulate, keep the last row of every run of tied scores.
        table = (
            prep.frame.sort(keys, descending=descending, nulls_last=False)
            .with_columns(tp=_cumulate(POS, by), fp=_cumulate(NEG, by))
            .filter(_row_is_last(keys))
            .with_columns(
                # Counts at each distinct score: the step from the previous run's total.
                pl.when(group_start(by))
                .then(pl.col(cum))
                .otherwise(pl.col(cum) - pl.col(cum).shift(1))
                .alias(col)
                for cum, col in (("tp", POS), ("fp", NEG))
            )
        )
    else:
        msg = f"`path` must be 'auto', 'hash' or 'sort', got {path!r}"
        raise ValueError(msg)
    at_end = group_end(by)
    return table.select(
        *by,
        pl.col(SCORE).alias("threshold"),
        pl.col(POS).alias("pos"),
        pl.col(NEG).alias("neg"),
        "tp",
        "fp",
        pl.when(at_end).then(pl.col("tp")).backward_fill().alias("n_pos"),
        pl.when(at_end).then(pl.col("fp")).backward_fill().alias("n_neg"),
    )


def score_table(
    frame: Frame,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
) -> Frame:
    """Per group and distinct score: positives, negatives and their cumulative counts.

    This is the sufficient statistic every other view is computed from. Its
    non-cumulative part ``[*by, threshold, pos, neg]`` from different partitions of the
    data merges by summing ``pos`` and ``neg`` per ``(*by, threshold)``.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    score
        Column of classifier scores; higher means more likely positive.
    label
        Column of true labels: Boolean (True is positive), 0/1 numbers (1 is positive),
        or any dtype together with ``pos_label``.
    by
        Optional segment column(s); one block of rows per group, groups sorted.
    weight
        Optional column of non-negative finite sample weights; counts become Float64.
    pos_label
        The label value of the positive class; every other value is negative.
    nulls
        ``"raise"`` (default) rejects null scores, labels or weights; ``"drop"`` leaves
        those rows out.

    Returns
    -------
    DataFrame or LazyFrame
        Columns ``[*by, threshold, pos, neg, tp, fp, n_pos, n_neg]``, sorted by group
        and ``threshold`` descending: ``pos``/``neg`` are the rows scoring exactly
        ``threshold``, ``tp``/``fp`` those scoring ``>= threshold``, ``n_pos``/``n_neg``
        the group totals.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.8, 0.3], "label": [1, 1, 0, 0]})
    >>> pr.score_table(df)
    shape: (3, 7)
    ┌───────────┬─────┬─────┬─────┬─────┬───────┬───────┐
    │ threshold ┆ pos ┆ neg ┆ tp  ┆ fp  ┆ n_pos ┆ n_neg │
    │ ---       ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---   ┆ ---   │
    │ f64       ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64   ┆ i64   │
    ╞═══════════╪═════╪═════╪═════╪═════╪═══════╪═══════╡
    │ 0.9       ┆ 1   ┆ 0   ┆ 1   ┆ 0   ┆ 2     ┆ 2     │
    │ 0.8       ┆ 1   ┆ 1   ┆ 2   ┆ 1   ┆ 2     ┆ 2     │
    │ 0.3       ┆ 0   ┆ 1   ┆ 2   ┆ 2   ┆ 2     ┆ 2     │
    └───────────┴─────┴─────┴─────┴─────┴───────┴───────┘
    """
    prep = prepare(
        frame, score=score, label=label, by=by, weight=weight, pos_label=pos_label,
        nulls=nulls,
    )
    table = build(prep)
    return prep.finish(table, lambda done: _totals(done, prep.by))


def _totals(table: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """``[*by, n_pos, n_neg]`` per group, from any result carrying those columns."""
    if by:
        return table.group_by(by).agg(pl.col("n_pos").first(), pl.col("n_neg").first())
    return table.select(pl.col("n_pos").first(), pl.col("n_neg").first())
