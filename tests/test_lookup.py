"""The point at a threshold is read one way (core.lookup.at_thresholds) by every caller."""

from __future__ import annotations

import polars as pl
import pytest

import polars_roc as pr
from polars_roc.charts.layers import _lookup_points

# Ties within and across classes, a null group, thresholds below, between, at and above
# the scores (a tie at 0.5 in both groups; -1 below all, 2 and inf above all).
LOG = pl.DataFrame(
    {
        "g": [None, None, None, None, None, "a", "a", "a", "a", "a", "a"],
        "score": [0.5, 0.5, 0.2, 0.9, 0.2, 0.5, 0.5, 0.7, 0.1, 0.3, 0.3],
        "label": [1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1],
    }
)
THRESHOLDS = [-1.0, 0.2, 0.25, 0.5, 0.6, 0.9, 2.0, float("inf")]


def _brute_force() -> pl.DataFrame:
    """``[g, threshold, fpr, tpr]`` by counting rows with score >= threshold."""
    rows = []
    for group in (None, "a"):
        part = LOG.filter(pl.col("g").eq_missing(group))
        pos = part.filter(pl.col("label") == 1)["score"].to_list()
        neg = part.filter(pl.col("label") == 0)["score"].to_list()
        for t in THRESHOLDS:
            tpr = sum(s >= t for s in pos) / len(pos)
            fpr = sum(s >= t for s in neg) / len(neg)
            rows.append({"g": group, "threshold": t, "fpr": fpr, "tpr": tpr})
    return pl.DataFrame(
        rows, schema={"g": pl.String, **dict.fromkeys(["threshold", "fpr", "tpr"], pl.Float64)}
    )


@pytest.mark.parametrize("lazy", [False, True])
def test_confusion_averaged_curve_and_chart_points_agree(lazy: bool) -> None:
    expected = _brute_force()
    frame = LOG.lazy() if lazy else LOG

    confusion = pr.confusion_matrix(frame, THRESHOLDS, by="g")
    confusion = confusion.collect() if lazy else confusion
    assert confusion.select("g", "threshold", "fpr", "tpr").equals(expected)

    # One fold per segment: the averaged curve at a threshold is that curve's point.
    averaged = pr.average_curve(
        frame.with_columns(fold=pl.lit(1)), fold="fold", by="g", method="threshold", grid=THRESHOLDS
    )
    averaged = averaged.collect() if lazy else averaged
    got = averaged.sort("g", "threshold", descending=[False, False], nulls_last=False)
    want = expected.sort("g", "threshold", nulls_last=False)
    assert got.select("g", "threshold", "fpr", "tpr").equals(want)

    curve = pr.roc_curve(LOG, by="g")
    points = _lookup_points(curve, THRESHOLDS, ["g"], "fpr", "tpr", {"fpr": "fpr", "tpr": "tpr"})
    assert points.equals(expected.select("g", "threshold", "fpr", "tpr"))
    # Thresholds for one group only (its key null): matched to that group's curve.
    only_null = pl.DataFrame(
        {"g": [None], "threshold": [0.5]}, schema={"g": pl.String, "threshold": pl.Float64}
    )
    one = _lookup_points(curve, only_null, ["g"], "fpr", "tpr", {"fpr": "fpr", "tpr": "tpr"})
    assert one.equals(expected.filter(pl.col("g").is_null(), pl.col("threshold") == 0.5))
