"""Agreement measures of a multi-class classifier on the whole k x k matrix: Cohen's
kappa (plain, linear or quadratic weights), Gorodkin's multi-class MCC and (adjusted)
balanced accuracy, as scikit-learn computes them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import polars as pl

from polars_roc.core.arguments import Roles, check_choice, normalize_by, refuse_clashes
from polars_roc.core.finish import finish_result
from polars_roc.core.measures import ratio
from polars_roc.core.validate import Frame, NullPolicy
from polars_roc.evaluation.multiclass import ACTUAL, PREDICTED, class_cells
from polars_roc.stats.cells import ordered_mean, ordered_sum, over

__all__ = ["multiclass_agreement"]

KappaWeights = Literal["linear", "quadratic"]


def multiclass_agreement(
    frame: Frame,
    scores: Mapping[Any, str] | None = None,
    *,
    predicted: str | None = None,
    classes: Sequence[Any] | None = None,
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    nulls: NullPolicy = "raise",
    kappa_weights: KappaWeights | None = None,
) -> Frame:
    """Whole-matrix agreement of predicted and true classes, per segment.

    From the k x k matrix ``C`` (rows: true class, columns: predicted class) of
    :func:`polars_roc.multiclass_confusion`, with ``t`` its row sums, ``p`` its column
    sums and ``n`` its total:

    - ``kappa``: Cohen's kappa ``1 - sum(W * C) / sum(W * E)`` with ``E = t p' / n``
      (scikit-learn's ``cohen_kappa_score``); ``W`` is 1 off the diagonal, or, with
      ``kappa_weights``, ``|i - j|`` (``"linear"``) or ``(i - j)^2`` (``"quadratic"``)
      for ordered classes (rating grades), ``i, j`` their positions in the class list
      (the sorted classes);
    - ``mcc``: Gorodkin's multi-class Matthews correlation (scikit-learn's
      ``matthews_corrcoef``), ``(trace * n - t.p) / sqrt((n^2 - p.p) (n^2 - t.t))``;
    - ``balanced_accuracy``: the mean recall over the classes present in the truth, and
      ``balanced_accuracy_adjusted`` ``= (ba - 1/K) / (1 - 1/K)`` with ``K`` those
      classes (scikit-learn's ``balanced_accuracy_score(adjusted=True)``: 0 for chance,
      1 for perfect);
    - ``accuracy``: the trace over ``n``.

    A zero denominator gives null (scikit-learn gives 0 for the MCC, NaN for kappa).

    Parameters
    ----------
    frame, scores, predicted, classes, label, by, weight, count, nulls
        As in :func:`polars_roc.multiclass_confusion`.
    kappa_weights
        ``None`` (plain kappa), ``"linear"`` or ``"quadratic"``.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, accuracy, balanced_accuracy, balanced_accuracy_adjusted, kappa, mcc]``,
        one row per segment.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"label": ["a", "a", "b", "b", "c", "c"],
    ...                    "guess": ["a", "b", "b", "b", "c", "a"]})
    >>> pr.multiclass_agreement(df, predicted="guess", classes=["a", "b", "c"])
    shape: (1, 5)
    ┌──────────┬───────────────────┬────────────────────────────┬───────┬──────────┐
    │ accuracy ┆ balanced_accuracy ┆ balanced_accuracy_adjusted ┆ kappa ┆ mcc      │
    │ ---      ┆ ---               ┆ ---                        ┆ ---   ┆ ---      │
    │ f64      ┆ f64               ┆ f64                        ┆ f64   ┆ f64      │
    ╞══════════╪═══════════════════╪════════════════════════════╪═══════╪══════════╡
    │ 0.666667 ┆ 0.666667          ┆ 0.5                        ┆ 0.5   ┆ 0.522233 │
    └──────────┴───────────────────┴────────────────────────────┴───────┴──────────┘
    """
    check_choice("kappa_weights", kappa_weights, (None, "linear", "quadratic"))
    segments = normalize_by(by)
    names = ("accuracy", "balanced_accuracy", "balanced_accuracy_adjusted", "kappa", "mcc")
    refuse_clashes(segments, names)
    roles = Roles(label=label, by=segments, weight=weight, count=count, nulls=nulls)
    eager, cells, _ = class_cells(frame, scores, predicted, classes, roles)
    cell_count = pl.col("count").cast(pl.Float64)
    actual, guess = pl.col(ACTUAL).cast(pl.Int64), pl.col(PREDICTED).cast(pl.Int64)
    # Every float sum adds the (sorted) cells in order: the same bits on every run.
    truth = ordered_sum(cell_count).over([*segments, ACTUAL])
    said = ordered_sum(cell_count).over([*segments, PREDICTED])
    n = over(ordered_sum(cell_count), segments)
    cells = cells.with_columns(truth.alias("__t"), said.alias("__p"), n.alias("__n"))
    t, p, total, c = pl.col("__t"), pl.col("__p"), pl.col("__n").first(), cell_count
    if kappa_weights is None:
        w = (actual != guess).cast(pl.Float64)
    elif kappa_weights == "linear":
        w = (actual - guess).abs().cast(pl.Float64)
    else:
        w = ((actual - guess) ** 2).cast(pl.Float64)
    diagonal = actual == guess
    trace = ordered_sum(c.filter(diagonal))
    t_d, p_d = t.filter(diagonal), p.filter(diagonal)
    present = t_d > 0
    recall = (c.filter(diagonal) / t_d).filter(present)
    classes_present = present.sum().cast(pl.Float64)
    balanced = ordered_mean(recall)
    observed = ordered_sum(w * c)
    expected = ordered_sum(w * t * p / pl.col("__n"))
    mcc_den = ((total**2 - ordered_sum(p_d**2)) * (total**2 - ordered_sum(t_d**2))).sqrt()
    summary = [
        ratio(trace, total).alias("accuracy"),
        balanced.alias("balanced_accuracy"),
        ratio(balanced - 1.0 / classes_present, 1.0 - 1.0 / classes_present).alias(
            "balanced_accuracy_adjusted"
        ),
        pl.when(expected != 0).then(1.0 - observed / expected).alias("kappa"),
        ratio(trace * total - ordered_sum(t_d * p_d), mcc_den).alias("mcc"),
    ]
    if segments:
        result = cells.group_by(segments).agg(summary).sort(segments, nulls_last=False)
    else:
        result = cells.select(summary).filter(pl.col("accuracy").is_not_null())
    return finish_result(result, eager=eager)
