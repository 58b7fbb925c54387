"""Detection error tradeoff (DET) curve, from the score table (scikit-learn's
``det_curve``): false negative rate against false positive rate, usually drawn on
normal-deviate (probit) axes, where binormal scores give straight lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.core.arguments import Roles, check_flags
from polars_roc.core.compat import lag
from polars_roc.core.counting import count_rows
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import build, group_end, group_start
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.views.curve import finish_dropping_totals, with_start_rows

__all__ = ["det_curve"]


def det_curve(
    frame: Frame,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    drop_intermediate: bool = False,
    bins: int | None = None,
) -> Frame:
    """DET curve per group: ``fpr`` and ``fnr`` at each threshold, as scikit-learn's.

    The ROC curve's points (``+inf`` start included) from the last one without false
    positives to the first one with every positive found: the part of the curve where
    neither rate is 0, plus its two ends, which a probit axis cannot show (their normal
    deviate is infinite). Rows of weight 0 are left out, as scikit-learn does.

    Parameters
    ----------
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    drop_intermediate
        Drop the thresholds where ``tp`` does not change on either side (horizontal
        runs of the DET curve), as scikit-learn's ``drop_intermediate=True``.
    bins
        Count into ``bins`` equal-width buckets of the score per group, as in
        :func:`polars_roc.roc_curve`: one point per bucket, each exact.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, threshold, fpr, fnr]`` ordered by group, then threshold descending
        (scikit-learn lists the same points in the reverse order). Rates are null in a
        group without both classes (scikit-learn raises).


    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]})
    >>> pr.det_curve(df)
    shape: (3, 3)
    ┌───────────┬─────┬─────┐
    │ threshold ┆ fpr ┆ fnr │
    │ ---       ┆ --- ┆ --- │
    │ f64       ┆ f64 ┆ f64 │
    ╞═══════════╪═════╪═════╡
    │ 0.8       ┆ 0.0 ┆ 0.5 │
    │ 0.4       ┆ 0.5 ┆ 0.5 │
    │ 0.35      ┆ 0.5 ┆ 0.0 │
    └───────────┴─────┴─────┘
    """
    check_flags(drop_intermediate=drop_intermediate)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    prep = count_rows(frame, roles, reserved=("fpr", "fnr"), bins=bins).prep
    return det_from_table(prep, build(prep), drop_intermediate=drop_intermediate)


def det_from_table(prep: Prepared, table: pl.LazyFrame, *, drop_intermediate: bool) -> Frame:
    """:func:`det_curve` of the score table ``table`` of ``prep`` (finished)."""
    by_cols = prep.by
    points = with_start_rows(prep.drop_zero_weight(table), by_cols)
    tp, fp = pl.col("tp"), pl.col("fp")
    first, last = group_start(by_cols), group_end(by_cols)
    if drop_intermediate:
        moves = (tp != lag(tp)) | (tp != tp.shift(-1))
        points = points.filter(first | last | moves)
    # From the last point with fp = 0 to the first with tp = n_pos, as scikit-learn.
    points = points.filter(last | (fp.shift(-1) > 0)).filter(first | (lag(tp) < pl.col("n_pos")))
    curve = points.select(
        *by_cols,
        "threshold",
        ratio(fp, pl.col("n_neg")).alias("fpr"),
        ratio(pl.col("n_pos") - tp, pl.col("n_pos")).alias("fnr"),
        "n_pos",
        "n_neg",
    )
    return finish_dropping_totals(prep, curve)
