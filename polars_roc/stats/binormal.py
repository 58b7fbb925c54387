"""Binormal smoothing of the ROC curve, as pROC's ``smooth(method = "binormal")``
(docs/inference.md, "Binormal smoothing"): the least-squares line ``qnorm(1 - fpr) = a +
b * qnorm(tpr)`` over the empirical points with finite quantiles, the curve read at
``SMOOTH_POINTS`` sensitivities and its area ``pnorm(a / sqrt(1 + b^2))``. A group
without a line gets nulls and an ``UndefinedWarning`` (pROC stops).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import polars as pl
from scipy.special import ndtr, ndtri

from polars_roc.core.compat import map_frame
from polars_roc.core.measures import ratio
from polars_roc.stats.bootstrap import warn_undefined

__all__ = [
    "SMOOTH_POINTS",
    "binormal_auc",
    "binormal_curve",
    "binormal_fit",
    "check_smooth",
    "smoothed_auc",
    "smoothed_curve",
]


def check_smooth(smooth: object, given: dict[str, bool]) -> None:
    """``smooth`` is ``"binormal"``, and goes with none of the options ``given``."""
    if smooth != "binormal":
        msg = f"`smooth` must be 'binormal' or None, got {smooth!r}"
        raise ValueError(msg)
    clash = [name for name, on in given.items() if on]
    if clash:
        msg = (
            f"smooth='binormal' gives the fitted curve (or its area) alone; drop {', '.join(clash)}"
        )
        raise ValueError(msg)


SMOOTH_POINTS = 512


def _normal(function: Any, values: pl.Expr) -> pl.Expr:
    """``function`` (scipy's ``ndtr`` or ``ndtri``) of each value."""
    return values.map_batches(lambda s: pl.Series(function(s.to_numpy())), return_dtype=pl.Float64)


def binormal_fit(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, binormal_a, binormal_b]`` from the empirical curve's points of a score table
    (the start (0, 0) has no quantile)."""
    points = table.select(
        *by,
        ratio(pl.col("tp"), pl.col("n_pos")).alias("tpr"),
        ratio(pl.col("fp"), pl.col("n_neg")).alias("fpr"),
    )
    tpr, fpr = pl.col("tpr"), pl.col("fpr")
    usable = (tpr > 0) & (tpr < 1) & (fpr > 0) & (fpr < 1)
    quantiles = points.filter(usable).select(
        *by, _normal(ndtri, tpr).alias("__x"), _normal(ndtri, 1.0 - fpr).alias("__y")
    )
    x, y = pl.col("__x"), pl.col("__y")
    # Least squares from centred sums: slope = Sxy / Sxx, intercept = mean(y) - slope mean(x).
    sxy = ((x - x.mean()) * (y - y.mean())).sum()
    sxx = ((x - x.mean()) ** 2).sum()
    slope = pl.when((pl.len() > 1) & (sxx > 0)).then(ratio(sxy, sxx))
    fit = [slope.alias("binormal_b"), (y.mean() - slope * x.mean()).alias("binormal_a")]
    if by:
        fitted = quantiles.group_by(by).agg(fit)
        groups = points.select(by).unique()
        return groups.join(fitted, on=by, how="left", nulls_equal=True).select(
            *by, "binormal_a", "binormal_b"
        )
    return quantiles.select(fit).select("binormal_a", "binormal_b")


def binormal_auc() -> pl.Expr:
    """``pnorm(a / sqrt(1 + b^2))`` of fitted columns ``binormal_a``, ``binormal_b``."""
    a, b = pl.col("binormal_a"), pl.col("binormal_b")
    return _normal(ndtr, a / (1.0 + b * b).sqrt())


def binormal_curve(fit: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, fpr, tpr]``: the smoothed curve at ``SMOOTH_POINTS`` sensitivities per
    group (null ``fpr`` without a fit), ordered by group then ``tpr``."""
    grid = pl.LazyFrame({"tpr": np.linspace(0.0, 1.0, SMOOTH_POINTS)})
    # pROC's grid is seq(0, 1, 1/(n-1)): k / (n-1), as linspace gives.
    a, b = pl.col("binormal_a"), pl.col("binormal_b")
    return (
        fit.join(grid, how="cross")
        .with_columns(_normal(ndtri, pl.col("tpr")).alias("__q"))
        .select(
            *by,
            (1.0 - _normal(ndtr, a + b * pl.col("__q"))).alias("fpr"),
            "tpr",
        )
    )


def _fit_and_totals(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, n_pos, n_neg, binormal_a, binormal_b]``, groups in table order."""
    counts = [pl.col("n_pos").first(), pl.col("n_neg").first()]
    totals = table.group_by(by, maintain_order=True).agg(counts) if by else table.select(counts)
    fit = binormal_fit(table, by)
    if by:
        return totals.join(fit, on=by, how="left", nulls_equal=True, maintain_order="left")
    return totals.join(fit, how="cross")


def smoothed_auc(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, auc, n_pos, n_neg]``: the binormal area per group of a score table."""
    auc = binormal_auc().fill_nan(None).alias("auc")
    result = _fit_and_totals(table, by).select(*by, auc, "n_pos", "n_neg")
    warned = partial(_warn_unfitted, by=by, fitted="auc", drop=[])
    return map_frame(result, warned, schema=result.collect_schema())


def smoothed_curve(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, fpr, tpr]``: the binormal curve per group of a score table, groups
    sorted, ``tpr`` ascending."""
    joined = _fit_and_totals(table, by)
    # The fit passes through the check, so the warning comes when the curve is read.
    warned = partial(_warn_unfitted, by=by, fitted="binormal_b", drop=["n_pos", "n_neg"])
    schema = joined.drop("n_pos", "n_neg").collect_schema()
    curve = binormal_curve(map_frame(joined, warned, schema=schema), by)
    if by:
        curve = curve.sort(by, nulls_last=False, maintain_order=True)
    return curve.with_columns(pl.col("fpr").fill_nan(None))


def _warn_unfitted(
    done: pl.DataFrame, *, by: list[str], fitted: str, drop: list[str]
) -> pl.DataFrame:
    """``done`` without ``drop``, after a warning naming the groups of both classes
    whose ``fitted`` is null (one-class groups have their own warning)."""
    both = (pl.col("n_pos") > 0) & (pl.col("n_neg") > 0)
    unfitted = done.select(pl.col(fitted).is_null() & both.fill_null(False)).to_series()
    warn_undefined(done.select(by), unfitted.to_numpy(), "the binormal fit", UNFITTED)
    return done.drop(drop)


UNFITTED = (
    "it needs two operating points with 0 < tpr < 1 and 0 < fpr < 1 at distinct "
    "sensitivities (pROC: 'ROC curve not smoothable'); the empirical curve has none"
)
