"""Performance before the labels arrive: AUC and confusion counts expected from the scores.

If the scores are calibrated probabilities, a row of score ``p`` is, in expectation,
``p`` of a positive and ``1 - p`` of a negative. The *expected score table* holds, per
group and distinct score, ``positives = sum(p)`` and ``negatives = sum(1 - p)`` over
its rows; the expected ROC curve, its AUC and the expected confusion counts are the
usual views of that table (NannyML's confidence-based performance estimation, CBPE).
No label column is read.

The rows are counted where they live (:func:`~polars_roc.core.counting.count_values`:
rows, or weight, per group and distinct score); each count becomes two rows of a
weighted count table, the score's positive share and its negative share, which goes
through the one counting entry as any weighted count table does.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_roc.core.arguments import check_choice, normalize_by, refuse_clashes
from polars_roc.core.counting import count_rows, count_values, require_columns
from polars_roc.core.score_table import build
from polars_roc.core.validate import RESERVED, Frame, NullPolicy, Prepared
from polars_roc.exceptions import RocInputError, RocOptionTypeError
from polars_roc.views.auc import auc_from_table
from polars_roc.views.confusion import CONFUSION_RESERVED, confusion_from_table, threshold_list

__all__ = ["estimated_auc", "estimated_confusion"]

_LABEL = "__roc_expected_label"
_UNITS = "__roc_expected_units"
_COUNT = "__roc_expected_count"


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
) -> Prepared:
    """The expected score table of ``frame`` per ``[*by, period]`` (see the module
    docstring), prepared as a weighted count table."""
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
    require_columns(
        frame,
        [("score", score)]
        + [(role, c) for role, c in (("weight", weight), ("count", count)) if c is not None]
        + [("by", c) for c in by_cols]
        + ([("period", period)] if period is not None else []),
    )
    # Counted under a name no key can hold (a period or segment may be called `n`).
    counts = count_values(
        frame, keys=[*groups, score], weight=weight, count=count, into=_COUNT
    ).collect()
    p = pl.col(score)
    if not counts.schema[score].is_numeric():
        msg = (
            f"score column {score!r} must hold probabilities (numbers), got {counts.schema[score]}"
        )
        raise RocInputError(msg)
    found = counts.select(
        pl.col(_COUNT).filter(p.is_null()).sum().alias("null"),
        pl.col(_COUNT).filter(p.is_nan()).sum().alias("nan"),
        p.filter(p.is_not_nan()).min().alias("low"),
        p.filter(p.is_not_nan()).max().alias("high"),
    ).row(0, named=True)
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
    counts = counts.filter(p.is_not_null())
    # Integer scores (0/1) are probabilities too; the share n * p is a weight.
    share = pl.col(_COUNT).cast(pl.Float64) * p.cast(pl.Float64, strict=False)
    positive = counts.with_columns(pl.lit(True).alias(_LABEL), share.alias(_UNITS))
    negative = counts.with_columns(
        pl.lit(False).alias(_LABEL), (pl.col(_COUNT).cast(pl.Float64) - share).alias(_UNITS)
    )
    table = pl.concat([positive, negative]).drop(_COUNT)
    return count_rows(
        table.lazy() if isinstance(frame, pl.LazyFrame) else table,  # lazy in, lazy out
        score=score,
        label=_LABEL,
        by=groups,
        weight=_UNITS,
        reserved=reserved,
        probabilities=True,
    ).prep


def estimated_auc(
    frame: Frame,
    *,
    score: str = "score",
    by: str | Sequence[str] | None = None,
    period: str | None = None,
    weight: str | None = None,
    count: str | None = None,
    nulls: NullPolicy = "raise",
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
        columns, as :func:`polars_roc.trend` lays out the realised AUC.
    weight, count
        As in :func:`polars_roc.score_table`.
    nulls
        ``"raise"`` (default) or ``"drop"``: rows with a null score.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, period, auc, n_pos, n_neg]``: ``n_pos`` the expected positives
        ``sum(p)``, ``n_neg`` the expected negatives ``sum(1 - p)`` (Float64).

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
    prep = expected_table(
        frame,
        score=score,
        by=by,
        period=period,
        weight=weight,
        count=count,
        nulls=nulls,
        reserved=("auc", "n_pos", "n_neg"),
    )
    return auc_from_table(prep, build(prep))


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
    thresholds = threshold_list(threshold)
    prep = expected_table(
        frame,
        score=score,
        by=by,
        period=period,
        weight=weight,
        count=count,
        nulls=nulls,
        reserved=CONFUSION_RESERVED,
    )
    return confusion_from_table(prep, build(prep), thresholds, beta=beta)
