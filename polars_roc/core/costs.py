"""Operating conditions: misclassification costs, class prevalence, iso-performance slope.

An operating condition is the pair (class ratio, error costs) under which a classifier
is used. In ROC space it is the slope ``m`` of the iso-performance lines (seeds 000 and
001): every point on a line ``tpr = m * fpr + c`` has the same expected cost, and

    m = ((1 - prevalence) / prevalence) * (cost_fp / cost_fn) = (NEG / POS) * (cost_fp / cost_fn)

The expected cost per example of the point ``(fpr, tpr)`` is
``prevalence * cost_fn * (1 - tpr) + (1 - prevalence) * cost_fp * fpr``.
"""

from __future__ import annotations

import math

import polars as pl

from polars_roc.core.arguments import _is_real, check_rates
from polars_roc.core.measures import ratio

__all__ = ["check_cost", "check_prevalence", "cost_columns", "iso_slope"]


def check_cost(name: str, value: float | None) -> float | None:
    """``value`` as a float, or None; a cost must be a finite number > 0."""
    if value is None:
        return None
    if not _is_real(value) or not math.isfinite(value) or value <= 0:
        error = "false positive" if name == "cost_fp" else "false negative"
        msg = f"`{name}` must be a finite number > 0 (the cost of one {error}), got {value!r}"
        raise ValueError(msg)
    return float(value)


def check_prevalence(value: float | None) -> float | None:
    """``value`` as a float, or None; a prevalence lies strictly between 0 and 1."""
    if value is None:
        return None
    hint = " (the share of positives in the population the classifier will face)"
    (share,) = check_rates("prevalence", value, closed="neither", hint=hint, one_message=True)
    return share


def iso_slope(prevalence: float, *, cost_fp: float = 1.0, cost_fn: float = 1.0) -> float:
    """Slope of the iso-performance lines of an operating condition.

    ``m = ((1 - prevalence) / prevalence) * (cost_fp / cost_fn)``: a line of slope ``m``
    in ROC space joins classifiers of equal expected cost. Seed 001's scenarios:
    negatives outnumber positives 10 to 1 with equal costs gives ``m = 10``; balanced
    classes where a false negative costs 10 times a false positive give ``m = 1/10``.

    Parameters
    ----------
    prevalence
        Share of positives in the population the classifier will be used on (it may
        differ from the sample's).
    cost_fp, cost_fn
        Cost of one false positive and of one false negative (only their ratio counts).

    Examples
    --------
    >>> import polars_roc as pr
    >>> pr.iso_slope(1 / 11)
    10.0
    >>> pr.iso_slope(0.5, cost_fn=10.0)
    0.1
    """
    share = check_prevalence(prevalence)
    if share is None:
        msg = "`prevalence` must be a number strictly between 0 and 1, got None"
        raise ValueError(msg)
    fp = check_cost("cost_fp", cost_fp)
    fn = check_cost("cost_fn", cost_fn)
    return (1.0 - share) / share * (fp / fn)  # type: ignore[operator]


def cost_columns(cost_fp: float | None, cost_fn: float | None) -> list[pl.Expr]:
    """``cost`` and ``expected_cost`` from columns ``fp``, ``fn``, ``tp``, ``tn``.

    ``cost = cost_fp * fp + cost_fn * fn`` (total, in the units of the counts) and
    ``expected_cost = cost / n``, the cost per example at the sample's class ratio (null
    for an empty group). A cost left as None counts 1. Nothing when both are None.
    """
    fp_cost, fn_cost = check_cost("cost_fp", cost_fp), check_cost("cost_fn", cost_fn)
    if fp_cost is None and fn_cost is None:
        return []
    fp_cost = 1.0 if fp_cost is None else fp_cost
    fn_cost = 1.0 if fn_cost is None else fn_cost
    fp, fn = pl.col("fp").cast(pl.Float64), pl.col("fn").cast(pl.Float64)
    cost = fp_cost * fp + fn_cost * fn
    n = pl.col("tp") + pl.col("fp") + pl.col("fn") + pl.col("tn")
    return [cost.alias("cost"), ratio(cost, n).alias("expected_cost")]
