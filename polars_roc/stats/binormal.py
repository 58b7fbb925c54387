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
from polars_roc.stats.cells import attach
from polars_roc.stats.delong import one_row_per_group

__all__ = ["check_smooth", "smoothed_auc", "smoothed_curve"]


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


def _fit_and_totals(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, n_pos, n_neg, binormal_a, binormal_b]`` of a score table, groups in table
    order: the fit over the empirical curve's points with finite quantiles."""
    tpr = ratio(pl.col("tp"), pl.col("n_pos"))
    fpr = ratio(pl.col("fp"), pl.col("n_neg"))
    # A score of weight 0 only repeats its neighbour's point: fitted again, it would tilt
    # the line (count tables hold no such rows).
    mass = (pl.col("pos") + pl.col("neg")) > 0
    usable = mass & (tpr > 0) & (tpr < 1) & (fpr > 0) & (fpr < 1)
    quantiles = table.filter(usable).select(
        *by, _normal(ndtri, tpr).alias("__x"), _normal(ndtri, 1.0 - fpr).alias("__y")
    )
    x, y = pl.col("__x"), pl.col("__y")
    # Least squares from centred sums: slope = Sxy / Sxx, intercept = mean(y) - slope mean(x).
    sxy = ((x - x.mean()) * (y - y.mean())).sum()
    sxx = ((x - x.mean()) ** 2).sum()
    slope = pl.when((pl.len() > 1) & (sxx > 0)).then(ratio(sxy, sxx))
    fit = [(y.mean() - slope * x.mean()).alias("binormal_a"), slope.alias("binormal_b")]
    totals = one_row_per_group(table, by, [pl.col("n_pos", "n_neg").first()])
    return attach(totals, quantiles.group_by(by).agg(fit) if by else quantiles.select(fit), by)


def smoothed_auc(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, auc, n_pos, n_neg]``: the binormal area per group of a score table."""
    a, b = pl.col("binormal_a"), pl.col("binormal_b")
    auc = _normal(ndtr, a / (1.0 + b * b).sqrt()).fill_nan(None).alias("auc")
    result = _fit_and_totals(table, by).select(*by, auc, "n_pos", "n_neg")
    warned = partial(_warn_unfitted, by=by, fitted="auc", drop=[])
    return map_frame(result, warned, schema=result.collect_schema())


def smoothed_curve(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, fpr, tpr]``: the binormal curve per group of a score table at
    ``SMOOTH_POINTS`` sensitivities (null ``fpr`` without a fit), groups sorted, ``tpr``
    ascending."""
    joined = _fit_and_totals(table, by)
    # The fit passes through the check, so the warning comes when the curve is read.
    warned = partial(_warn_unfitted, by=by, fitted="binormal_b", drop=["n_pos", "n_neg"])
    fit = map_frame(joined, warned, schema=joined.drop("n_pos", "n_neg").collect_schema())
    # pROC's grid is seq(0, 1, 1/(n-1)): k / (n-1), as linspace gives.
    grid = pl.LazyFrame({"tpr": np.linspace(0.0, 1.0, SMOOTH_POINTS)})
    a, b = pl.col("binormal_a"), pl.col("binormal_b")
    curve = (
        fit.join(grid, how="cross")
        .with_columns(_normal(ndtri, pl.col("tpr")).alias("__q"))
        .select(*by, (1.0 - _normal(ndtr, a + b * pl.col("__q"))).alias("fpr"), "tpr")
    )
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
