"""Normal and Student-t p-values and quantiles (scipy.special), and numpy functions mapped
over Float64 columns."""

from __future__ import annotations

from collections.abc import Callable
from statistics import NormalDist

import numpy as np
import polars as pl
from scipy.special import ndtr, stdtr

__all__ = ["map_numpy", "normal_two_sided_p", "t_two_sided_p", "two_sided_z"]


def two_sided_z(conf_level: float) -> float:
    """The standard normal quantile ``z`` with ``P(|Z| <= z) = conf_level``."""
    return NormalDist().inv_cdf(1.0 - (1.0 - conf_level) / 2.0)


def normal_two_sided_p(z: np.ndarray) -> np.ndarray:
    """``P(|Z| >= |z|)`` for a standard normal ``Z``; NaN stays NaN."""
    return 2.0 * ndtr(-np.abs(z))


def t_two_sided_p(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """``P(|T| >= |t|)`` for Student's t with ``df`` (real, > 0) degrees of freedom."""
    return 2.0 * stdtr(df, -np.abs(t))


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
