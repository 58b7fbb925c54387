"""Normal and Student-t tail probabilities and quantiles on numpy arrays, from scipy.special.

scipy is imported on first use, so that ``import polars_roc`` stays light (it adds
~0.2 s to the import).
"""

from __future__ import annotations

from collections.abc import Callable
from statistics import NormalDist

import numpy as np
import polars as pl

__all__ = [
    "map_numpy",
    "normal_cdf",
    "normal_quantile",
    "normal_two_sided_p",
    "t_quantile",
    "t_two_sided_p",
    "two_sided_z",
]


def two_sided_z(conf_level: float) -> float:
    """The standard normal quantile ``z`` with ``P(|Z| <= z) = conf_level``."""
    return NormalDist().inv_cdf(1.0 - (1.0 - conf_level) / 2.0)


def normal_cdf(z: np.ndarray) -> np.ndarray:
    """Standard normal distribution function (+/-inf included)."""
    from scipy import special

    return special.ndtr(np.asarray(z, dtype=np.float64))


def normal_quantile(p: np.ndarray) -> np.ndarray:
    """Standard normal quantile (0 and 1 give -inf and inf)."""
    from scipy import special

    return special.ndtri(np.asarray(p, dtype=np.float64))


def normal_two_sided_p(z: np.ndarray) -> np.ndarray:
    """``P(|Z| >= |z|)`` for a standard normal ``Z``; NaN stays NaN."""
    return 2.0 * normal_cdf(-np.abs(z))


def t_two_sided_p(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """``P(|T| >= |t|)`` for Student's t with ``df`` (real, > 0) degrees of freedom."""
    from scipy import special

    return 2.0 * special.stdtr(np.asarray(df, dtype=np.float64), -np.abs(t))


def t_quantile(p: float, df: np.ndarray) -> np.ndarray:
    """Quantile ``q`` with ``P(T <= q) = p`` for each ``df`` (NaN where ``df <= 0``)."""
    from scipy import special

    return special.stdtrit(np.asarray(df, dtype=np.float64), p)


def map_numpy(function: Callable[..., np.ndarray], *columns: str, name: str) -> pl.Expr:
    """Apply a vectorised numpy function to Float64 columns (elementwise)."""

    def apply(values: pl.Series) -> pl.Series:
        arrays = [values.struct.field(c).cast(pl.Float64).to_numpy() for c in columns]
        return pl.Series(name, function(*arrays), dtype=pl.Float64).fill_nan(None)

    return (
        pl.struct(columns)
        .map_batches(apply, return_dtype=pl.Float64, is_elementwise=True)
        .alias(name)
    )
