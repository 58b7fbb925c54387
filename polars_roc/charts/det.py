"""DET chart: false negative rate against false positive rate on probit axes."""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import polars as pl

from polars_roc.stats.distributions import erfc

__all__ = ["det_chart", "probit"]

# Tick positions of both axes, as rates; drawn at their normal deviates.
DET_TICKS = (0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999)
DET_MAX_ROWS = 5000


def probit(p: np.ndarray) -> np.ndarray:
    """Standard normal quantile of each ``p`` in (0, 1), vectorised.

    A rational first guess (Abramowitz & Stegun 26.2.23, error < 4.5e-4) refined by
    Newton steps on ``Phi(x) = erfc(-x / sqrt 2) / 2``: full double precision without
    scipy and without a Python loop over values.
    """
    p = np.asarray(p, dtype=np.float64)
    tail = np.minimum(p, 1.0 - p)
    t = np.sqrt(-2.0 * np.log(tail))
    guess = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (
        1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t**3
    )
    # Solved in the lower tail (x <= 0), where Phi(x) keeps its relative precision.
    x = -guess
    for _ in range(3):
        cdf = erfc(-x / math.sqrt(2.0)) / 2.0
        density = np.exp(-x * x / 2.0) / math.sqrt(2.0 * math.pi)
        x = x - (cdf - tail) / density
    return np.where(p < 0.5, x, -x)


def det_chart(curve: pl.DataFrame | pl.LazyFrame, *, color: str | None = None) -> alt.Chart:
    """DET curves of a :func:`polars_roc.det_curve` frame, on normal-deviate axes.

    Both axes are probit scales (the rate's standard normal quantile), labelled in
    rates; binormal scores give straight lines. Points where a rate is 0 or 1 lie at
    infinity on such an axis and are left out of the drawing.

    Parameters
    ----------
    curve
        A :func:`polars_roc.det_curve` frame (columns ``threshold, fpr, fnr``).
    color
        Optional group column drawn as one colored curve per value.

    Returns
    -------
    altair.Chart
        One line per curve; tooltips give the threshold and both rates.
    """
    frame = curve.collect() if isinstance(curve, pl.LazyFrame) else curve
    missing = sorted({"threshold", "fpr", "fnr", *([color] if color else [])} - set(frame.columns))
    if missing:
        msg = f"`curve` must be a det_curve() frame; columns {missing!r} are missing"
        raise ValueError(msg)
    inside = (pl.col("fpr") > 0) & (pl.col("fpr") < 1) & (pl.col("fnr") > 0) & (pl.col("fnr") < 1)
    frame = frame.filter(inside.fill_null(False))
    if frame.height > DET_MAX_ROWS:
        msg = (
            f"the DET curve has {frame.height} drawable points, more than {DET_MAX_ROWS}; "
            "pass det_curve(..., drop_intermediate=True) or fewer groups"
        )
        raise ValueError(msg)
    data = frame.select(
        *([color] if color else []),
        "threshold",
        "fpr",
        "fnr",
        pl.Series("x", probit(frame["fpr"].to_numpy())),
        pl.Series("y", probit(frame["fnr"].to_numpy())),
        pl.int_range(pl.len()).alias("order"),
    )
    ticks = probit(np.array(DET_TICKS)).tolist()
    label = "format(cumulativeNormal(datum.value), '.1~%')"
    axis = {"values": ticks, "labelExpr": label}
    encoding = {
        "x": alt.X("x:Q", title="false positive rate (fpr)", axis=alt.Axis(**axis)),
        "y": alt.Y("y:Q", title="false negative rate (fnr)", axis=alt.Axis(**axis)),
        "order": alt.Order("order:Q"),
        "tooltip": [
            alt.Tooltip("threshold:Q"),
            alt.Tooltip("fpr:Q", format=".4f"),
            alt.Tooltip("fnr:Q", format=".4f"),
        ],
    }
    if color:
        encoding["color"] = alt.Color(f"{color}:N")
    return alt.Chart(data).mark_line(point=True).encode(**encoding)
