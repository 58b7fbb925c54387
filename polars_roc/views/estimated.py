"""Performance before the labels arrive: AUC and confusion counts expected from the scores.

If the scores are calibrated probabilities, a row of score ``p`` is, in expectation,
``p`` of a positive and ``1 - p`` of a negative. The *expected score table* holds, per
group and distinct score, ``positives = sum(p)`` and ``negatives = sum(1 - p)`` over
its rows; the expected ROC curve, its AUC and the expected confusion counts are the
usual views of that table (NannyML's confidence-based performance estimation, CBPE).
No label column is read.

The rows are counted where they live (:func:`~polars_roc.core.counting.count_expected`:
rows, or weight, per group and distinct score); each count ``n`` of score ``p`` is a
cell of the expected table, ``n p`` positive and ``n - n p`` negative, sorted into the
table's order. With ``bins=``, the rows of a Polars frame stream straight into the
buckets of the one scheme instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from polars_roc.core.arguments import check_choice, check_thresholds, normalize_by, refuse_clashes
from polars_roc.core.counting import Counted, count_expected, require_columns
from polars_roc.core.score_table import build
from polars_roc.core.validate import RESERVED, Frame, NullPolicy
from polars_roc.exceptions import RocInputError, RocOptionTypeError
from polars_roc.views.auc import auc_of_counted
from polars_roc.views.confusion import CONFUSION_RESERVED, confusion_from_table

__all__ = ["estimated_auc", "estimated_confusion"]


def expected_table(
    frame: Frame,
    *,
    score: str,
    by: str | Sequence[str] | None,
    period: str | None,
    weight: str | None,
    count: str | None,
    nulls: NullPolicy,
    reserved: Sequence[str],
    bins: int | None = None,
) -> Counted:
    """The expected score table of ``frame`` per ``[*by, period]`` (see the module
    docstring), counted as a weighted count table (with ``bins``: its buckets)."""
    check_choice("nulls", nulls, ("raise", "drop"))
    if period is not None and not isinstance(period, str):
        msg = f"`period` must be a column name (str) or None, got {period!r}"
        raise RocOptionTypeError(msg)
    by_cols = normalize_by(by)
    refuse_clashes(by_cols, RESERVED.union(reserved))
    if period is not None:
        refuse_clashes([period], RESERVED.union(reserved), role="period")
        refuse_clashes([period], by_cols, role="period", against="`by` columns")
        refuse_clashes([period], [score], role="period", against="the score column")
    groups = [*by_cols, *([period] if period is not None else [])]
    schema = require_columns(
        frame,
        [("score", score)]
        + [(role, c) for role, c in (("weight", weight), ("count", count)) if c is not None]
        + [("by", c) for c in by_cols]
        + ([("period", period)] if period is not None else []),
    )
    if not schema[score].is_numeric():
        msg = f"score column {score!r} must hold probabilities (numbers), got {schema[score]}"
        raise RocInputError(msg)

    def check(found: dict[str, Any]) -> None:
        if found["nan"]:
            msg = (
                f"score column {score!r} has {found['nan']} NaN value(s), which are no "
                "probability; replace them (e.g. with .fill_nan(None) and nulls='drop')"
            )
            raise RocInputError(msg)
        if found["null"] and nulls == "raise":
            msg = (
                f"score column {score!r} has {found['null']} null(s); pass nulls='drop' "
                "to leave those rows out"
            )
            raise RocInputError(msg)
        if found["low"] is not None and (found["low"] < 0 or found["high"] > 1):
            msg = (
                f"score column {score!r} must hold probabilities in [0, 1] here (each "
                f"score is read as a row's chance of being positive), got values from "
                f"{found['low']!r} to {found['high']!r}; calibrate or rescale the scores "
                "first (e.g. a logistic transform of a log-odds score)"
            )
            raise RocInputError(msg)

    return count_expected(
        frame,
        score=score,
        by=groups,
        weight=weight,
        count=count,
        nulls=nulls,
        reserved=reserved,
        bins=bins,
        check=check,
    )


def estimated_auc(
    frame: Frame,
    *,
    score: str = "score",
    by: str | Sequence[str] | None = None,
    period: str | None = None,
    weight: str | None = None,
    count: str | None = None,
    nulls: NullPolicy = "raise",
    bins: int | None = None,
) -> Frame:
    """AUC expected from calibrated probabilities, per group (and period); no label read.

    Each row of score ``p`` counts as ``p`` of a positive and ``1 - p`` of a negative
    (``weight``/``count`` times that); the result is the AUC of that expected score
    table, ties counting 1/2, so that
    ``auc = sum_ij p_i (1 - p_j) [s_i > s_j or 1/2 if s_i = s_j] / (sum p_i sum (1 - p_j))``
    over all pairs of rows, a row with itself included (a tie). This is the area under
    the expected ROC curve, NannyML's CBPE estimate; it is right as far as the scores
    are calibrated on the rows scored (check that with
    :func:`polars_roc.calibration_curve` on a labelled period).

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` (or a count table with ``count=``, or a
        DuckDB/Spark/... frame) with one row per scored unit.
    score
        Column of predicted probabilities in [0, 1].
    by
        Optional segment column(s).
    period
        Optional period column: one row per group and period, after the ``by``
        columns, as :func:`polars_roc.trend` lays out the realised AUC
        (``trend(estimated=True)`` gives both).
    weight, count
        As in :func:`polars_roc.score_table`.
    nulls
        ``"raise"`` (default) or ``"drop"``: rows with a null score.
    bins
        Cut each group's scores into ``bins`` equal-width buckets, as
        :func:`polars_roc.roc_auc` does (the same buckets on every backend), and add
        ``auc_bound``: the exact estimate lies within ``auc +- auc_bound``. Polars rows
        then stream into the buckets, so memory follows the buckets, not the distinct
        scores (continuous scores of a large log need it).

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, period, auc, n_pos, n_neg]`` (with ``bins``: ``auc_bound`` after
        ``auc``): ``n_pos`` the expected positives ``sum(p)``, ``n_neg`` the expected
        negatives ``sum(1 - p)`` (Float64).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "month": [1, 1, 1, 2, 2, 2],
    ...     "score": [0.9, 0.5, 0.1, 0.8, 0.8, 0.2],
    ... })
    >>> df.roc.estimated_auc(period="month")
    shape: (2, 4)
    ┌───────┬──────────┬───────┬───────┐
    │ month ┆ auc      ┆ n_pos ┆ n_neg │
    │ ---   ┆ ---      ┆ ---   ┆ ---   │
    │ i64   ┆ f64      ┆ f64   ┆ f64   │
    ╞═══════╪══════════╪═══════╪═══════╡
    │ 1     ┆ 0.855556 ┆ 1.5   ┆ 1.5   │
    │ 2     ┆ 0.777778 ┆ 1.8   ┆ 1.2   │
    └───────┴──────────┴───────┴───────┘
    """
    counted = expected_table(
        frame,
        score=score,
        by=by,
        period=period,
        weight=weight,
        count=count,
        nulls=nulls,
        reserved=("auc", "auc_bound", "n_pos", "n_neg"),
        bins=bins,
    )
    return auc_of_counted(counted, build(counted.prep))


def estimated_confusion(
    frame: Frame,
    threshold: float | Sequence[float] = 0.5,
    *,
    score: str = "score",
    by: str | Sequence[str] | None = None,
    period: str | None = None,
    weight: str | None = None,
    count: str | None = None,
    nulls: NullPolicy = "raise",
    beta: float | None = None,
) -> Frame:
    """Confusion counts and measures expected from calibrated probabilities; no label read.

    At a threshold ``t``, the expected counts over the rows of score ``p``:
    ``tp = sum(p)`` and ``fp = sum(1 - p)`` over ``p >= t``, ``fn = sum(p)`` and
    ``tn = sum(1 - p)`` over ``p < t``; every measure of
    :func:`polars_roc.confusion_matrix` follows from them (``tpr`` is
    ``tp / (tp + fn)``, a ratio of expectations). Right as far as the scores are
    calibrated (see :func:`polars_roc.estimated_auc`).

    Parameters
    ----------
    frame
        As in :func:`polars_roc.estimated_auc`.
    threshold
        A float or a list of floats: predicted positive when ``score >= threshold``.
    score, by, period, weight, count, nulls
        As in :func:`polars_roc.estimated_auc`.
    beta
        Add ``f_beta``, as in :func:`polars_roc.confusion_matrix`.

    Returns
    -------
    DataFrame or LazyFrame
        The columns of :func:`polars_roc.confusion_matrix`, one row per group (and
        period) and threshold, with expected (Float64) counts.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.4, 0.3, 0.1]})
    >>> df.roc.estimated_confusion(0.5).select("threshold", "tp", "fp", "fn", "tn", "tpr")
    shape: (1, 6)
    ┌───────────┬─────┬─────┬─────┬─────┬──────┐
    │ threshold ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ tpr  │
    │ ---       ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---  │
    │ f64       ┆ f64 ┆ f64 ┆ f64 ┆ f64 ┆ f64  │
    ╞═══════════╪═════╪═════╪═════╪═════╪══════╡
    │ 0.5       ┆ 1.7 ┆ 0.3 ┆ 0.8 ┆ 2.2 ┆ 0.68 │
    └───────────┴─────┴─────┴─────┴─────┴──────┘
    """
    thresholds = check_thresholds("threshold", threshold)
    prep = expected_table(
        frame,
        score=score,
        by=by,
        period=period,
        weight=weight,
        count=count,
        nulls=nulls,
        reserved=CONFUSION_RESERVED,
    ).prep
    return confusion_from_table(prep, build(prep), thresholds, beta=beta)
