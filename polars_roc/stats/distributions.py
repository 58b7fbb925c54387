"""Normal, Student-t and beta p-values and quantiles (scipy.special), and numpy functions
mapped over Float64 columns."""

from __future__ import annotations

from collections.abc import Callable
from statistics import NormalDist

import numpy as np
import polars as pl
from scipy.special import (
    betainc,
    betaincinv,
    gammainc,
    gammaincc,
    gammainccinv,
    gammaincinv,
    ndtr,
    ndtri,
    stdtr,
)

__all__ = [
    "beta_cdf",
    "beta_ppf",
    "map_numpy",
    "normal_two_sided_p",
    "t_two_sided_p",
    "two_sided_z",
]


def two_sided_z(conf_level: float) -> float:
    """The standard normal quantile ``z`` with ``P(|Z| <= z) = conf_level``."""
    return NormalDist().inv_cdf(1.0 - (1.0 - conf_level) / 2.0)


def normal_two_sided_p(z: np.ndarray) -> np.ndarray:
    """``P(|Z| >= |z|)`` for a standard normal ``Z``; NaN stays NaN."""
    return 2.0 * ndtr(-np.abs(z))


def t_two_sided_p(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """``P(|T| >= |t|)`` for Student's t with ``df`` (real, > 0) degrees of freedom."""
    return 2.0 * stdtr(df, -np.abs(t))


def map_numpy(function: Callable[..., np.ndarray], *columns: str | pl.Expr, name: str) -> pl.Expr:
    """Apply a vectorised numpy function to Float64 columns (elementwise)."""
    names = [c if isinstance(c, str) else c.meta.output_name() for c in columns]

    def apply(values: pl.Series) -> pl.Series:
        arrays = [values.struct.field(c).cast(pl.Float64).to_numpy() for c in names]
        return pl.Series(name, function(*arrays), dtype=pl.Float64).fill_nan(None)

    return (
        pl.struct(columns)
        .map_batches(apply, return_dtype=pl.Float64, is_elementwise=True)
        .alias(name)
    )


# scipy's incomplete beta loses digits once both parameters are large (the cdf 1e-12 off
# from 1e10, quantiles 1e-10 by 1e13, nulls past 1e16) and its inverse can stop at 2^-56 on
# a smaller true quantile: past these bounds the beta's asymptotic forms are used instead
# (benchmarks/README.md, "Jeffreys and binomial tails at large counts").
_NORMAL_FROM = 1e8  # min(a, b): two-term Edgeworth / Cornish-Fisher
_GAMMA_FROM = 1e6  # max(a, b) / min(a, b)^1.25: the small side's gamma limit


def _regimes(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    small, large = np.minimum(a, b), np.maximum(a, b)
    normal = small >= _NORMAL_FROM
    return normal, ~normal & (large >= _GAMMA_FROM * np.maximum(small, 1.0) ** 1.25)


def _moments(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """Mean, standard deviation, skewness and excess kurtosis of Beta(a, b)."""
    r, ab = a + b, a * b
    sd = np.sqrt(ab / (r + 1.0)) / r
    skew = 2.0 * (b - a) * np.sqrt(r + 1.0) / ((r + 2.0) * np.sqrt(ab))
    kurt = 6.0 * ((a - b) ** 2 * (r + 1.0) - ab * (r + 2.0)) / (ab * (r + 2.0) * (r + 3.0))
    return a / r, sd, skew, kurt


def _gamma_scale(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # -log(1 - X) (b + (a - 1)/2) is nearly Gamma(a) for X ~ Beta(a, b) with b >> a (Temme).
    return b + (a - 1.0) / 2.0


def beta_cdf(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``P(X <= x)`` for ``X ~ Beta(a, b)``: scipy's ``betainc`` below the bounds above."""
    normal, gamma = _regimes(a, b)
    with np.errstate(all="ignore"):
        mean, sd, skew, kurt = _moments(a, b)
        z = (x - mean) / sd
        z2 = z * z
        tilt = (
            skew / 6 * (z2 - 1)
            + kurt / 24 * z * (z2 - 3)
            + skew**2 / 72 * z * (z2 * z2 - 10 * z2 + 15)
        )
        edgeworth = np.clip(ndtr(z) - np.exp(-z2 / 2) / np.sqrt(2 * np.pi) * tilt, 0.0, 1.0)
        # The small side's gamma: a when a <= b, else b (from the upper tail).
        low = gammainc(a, -np.log1p(-x) * _gamma_scale(a, b))
        high = gammaincc(b, -np.log(x) * _gamma_scale(b, a))
        return np.where(
            normal, edgeworth, np.where(gamma, np.where(a <= b, low, high), betainc(a, b, x))
        )


def beta_ppf(a: np.ndarray, b: np.ndarray, q: float) -> np.ndarray:
    """The ``q`` quantile of ``Beta(a, b)``: scipy's ``betaincinv`` below the bounds above."""
    normal, gamma = _regimes(a, b)
    with np.errstate(all="ignore"):
        mean, sd, skew, kurt = _moments(a, b)
        z = ndtri(q)
        w = z + skew / 6 * (z * z - 1) + kurt / 24 * z * (z * z - 3)
        w -= skew**2 / 36 * z * (2 * z * z - 5)
        low = -np.expm1(-gammaincinv(a, q) / _gamma_scale(a, b))
        high = np.exp(-gammainccinv(b, q) / _gamma_scale(b, a))
        return np.where(
            normal,
            np.clip(mean + sd * w, 0.0, 1.0),
            np.where(gamma, np.where(a <= b, low, high), betaincinv(a, b, q)),
        )
