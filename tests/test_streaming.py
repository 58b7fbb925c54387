"""A LazyFrame result is the same frame on Polars' streaming engine as in memory.

Polars 1.x's streaming engine (1.35.2) shifted a column forward wrongly when the same
projection held a broadcast scalar: an ungrouped DeLong or bootstrap AUC came out wrong,
silently (core/compat.py's ``lag``). Every view here runs grouped and ungrouped, on
whichever Polars is installed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.compat import lag

N = 2500
_rng = np.random.default_rng(3)
_label = _rng.integers(0, 2, N)
LOG = pl.DataFrame(
    {
        "segment": _rng.choice(["a", "b", "c"], N),
        "score": np.round(_rng.normal(_label * 0.8, 1.0), 2),  # ties, both signs
        "score2": _rng.uniform(size=N),
        "p": _rng.uniform(size=N),
        "label": _label,
        "fold": _rng.integers(0, 3, N),
        "n": _rng.integers(0, 4, N),
        "w": _rng.uniform(0.1, 2.0, N),
    }
)

BOOT = {"n_boot": 30, "seed": 1}
VIEWS: dict[str, Callable[[pl.LazyFrame, Any], Any]] = {
    "score_table": lambda lf, by: pr.score_table(lf, by=by),
    "score_table_weighted": lambda lf, by: pr.score_table(lf, by=by, weight="w"),
    "score_table_count": lambda lf, by: pr.score_table(lf, by=by, count="n"),
    "curve": lambda lf, by: pr.roc_curve(lf, by=by),
    "auc": lambda lf, by: pr.roc_auc(lf, by=by),
    "auc_delong": lambda lf, by: pr.roc_auc(lf, by=by, ci="delong"),
    "auc_delong_count": lambda lf, by: pr.roc_auc(lf, by=by, count="n", ci="delong"),
    "auc_bootstrap_weighted": lambda lf, by: pr.roc_auc(
        lf, by=by, weight="w", ci="bootstrap", **BOOT
    ),
    "auc_bootstrap": lambda lf, by: pr.roc_auc(lf, by=by, ci="bootstrap", **BOOT),
    "auc_bootstrap_count": lambda lf, by: pr.roc_auc(lf, by=by, count="n", ci="bootstrap", **BOOT),
    "auc_partial": lambda lf, by: pr.roc_auc(lf, by=by, max_fpr=0.2),
    "auc_test": lambda lf, by: pr.roc_auc(lf, by=by, test=True),
    "confusion": lambda lf, by: pr.confusion_matrix(lf, [0.0, 0.5], by=by),
    "pr_curve": lambda lf, by: pr.pr_curve(lf, by=by),
    "pr_auc": lambda lf, by: pr.pr_auc(lf, by=by),
    "average_precision": lambda lf, by: pr.pr_average_precision(lf, by=by, ci="logit"),
    "det_curve": lambda lf, by: pr.det_curve(lf, by=by),
    "gains": lambda lf, by: pr.gains_table(lf, by=by, n_bins=5),
    "hull": lambda lf, by: pr.roc_hull(lf, by=by),
    "hull_auc": lambda lf, by: pr.hull_auc(lf, by=by),
    "best_threshold": lambda lf, by: pr.best_threshold(lf, by=by),
    "threshold_at": lambda lf, by: pr.threshold_at(lf, fpr=0.1, by=by),
    "tpr_at": lambda lf, by: pr.tpr_at(lf, 0.1, by=by, ci="bootstrap", **BOOT),
    "optimal_cutpoint": lambda lf, by: pr.optimal_cutpoint(lf, "f1", by=by),
    "prbe": lambda lf, by: pr.prbe(lf, by=by),
    "compare": lambda lf, by: pr.compare(lf, ["score", "score2"], by=by),
    "compare_bootstrap": lambda lf, by: pr.compare(
        lf, ["score", "score2"], by=by, ci="bootstrap", **BOOT
    ),
    "threshold_ci": lambda lf, by: pr.threshold_ci(lf, [0.0, 0.5], by=by, **BOOT),
    "compare_curves": lambda lf, by: pr.compare_curves(lf, ["score", "score2"], by=by, **BOOT),
    "calibration": lambda lf, by: pr.calibration_curve(lf, score="p", by=by, ci="wilson"),
    "calibration_quantile": lambda lf, by: pr.calibration_curve(
        lf, 5, strategy="quantile", score="p", by=by, weight="w"
    ),
    "brier": lambda lf, by: pr.brier_decomposition(lf, score="p", by=by),
    "decision_curve": lambda lf, by: pr.decision_curve(lf, [0.1, 0.5], score="p", by=by),
    "trend": lambda lf, by: pr.trend(lf, period="fold", by=by, ci="delong"),
    "drift": lambda lf, by: pr.drift(lf, period="fold", by=by),
    "psi": lambda lf, by: pr.psi(lf, "fold", by=by, columns=["score2", "n"]),
    "summary": lambda lf, by: pr.fold_summary(lf, fold="fold"),
    "average_curve": lambda lf, by: pr.average_curve(lf, fold="fold"),
}


@pytest.mark.parametrize("by", [None, "segment"], ids=["ungrouped", "grouped"])
@pytest.mark.parametrize("name", list(VIEWS))
def test_streaming_engine_gives_the_in_memory_frame(name: str, by: str | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        plan = VIEWS[name](LOG.lazy(), by)
    assert isinstance(plan, pl.LazyFrame)
    in_memory = plan.collect(engine="in-memory")
    assert in_memory.height > 0
    # Floats to 1e-12: an engine may add a float sum's pieces in another order.
    assert_frame_equal(
        plan.collect(engine="streaming"), in_memory, check_exact=False, rel_tol=1e-12
    )


def test_ungrouped_delong_on_streaming_equals_the_eager_answer() -> None:
    """The case that was wrong on Polars 1.35: an AUC of 0.47 where the answer is 0.70."""
    eager = pr.roc_auc(LOG, ci="delong")
    streamed = pr.roc_auc(LOG.lazy(), ci="delong").collect(engine="streaming")
    assert_frame_equal(streamed, eager, check_exact=False, rel_tol=1e-12)


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("fill_value", [None, 0])
@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_lag_is_numpys_shift_beside_a_broadcast_scalar(
    n: int, fill_value: int | None, engine: Any
) -> None:
    values = np.random.default_rng(n).integers(-50, 50, 300_001)
    frame = pl.LazyFrame({"c": values}).filter(pl.col("c") != 7)  # a filter, then lag
    kept = values[values != 7]
    c = pl.col("c")
    out = frame.select(
        lag(c, n, fill_value=fill_value).alias("lag"),
        (c - lag(c, n)).alias("diff"),
        c.sum().alias("total"),
        pl.len().alias("rows"),
    ).collect(engine=engine)
    assert out.height == kept.size
    before = np.r_[np.full(n, -1), kept[:-n]]
    head_fill = np.arange(kept.size) < n
    expected_lag = pl.Series(before).scatter(np.flatnonzero(head_fill), fill_value)
    assert out["lag"].to_list() == expected_lag.to_list()
    assert out["diff"].to_list() == [None] * n + (kept[n:] - kept[:-n]).tolist()
    assert out["total"].unique().to_list() == [int(kept.sum())]


def test_lag_of_a_stable_sort_keeps_its_ties_in_order() -> None:
    # Polars 1.35 turns the reverse of a stable sort_by into a descending sort, which
    # reorders ties: a lag made by reversing would read [None, 1.0, 0.0] here.
    frame = pl.LazyFrame({"x": [0.0, -1.0, -1.0], "y": [0.0, 0.0, 1.0]})
    ordered = pl.col("y").sort_by("x", maintain_order=True)  # [0.0, 1.0, 0.0]
    for engine in ("in-memory", "streaming"):
        out = frame.select(lag(ordered).alias("lag"), pl.len()).collect(engine=engine)
        assert out["lag"].to_list() == [None, 0.0, 1.0]
