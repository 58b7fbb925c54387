"""Lazy means lazy: a LazyFrame call reads its source once (the value checks), and the
plan it returns reads it once more when collected.

The source is a Python IO plugin that counts how often Polars asks it for rows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from polars.io.plugins import register_io_source

import polars_roc as pr  # noqa: F401  (registers .roc)

N = 3000
_rng = np.random.default_rng(0)
BASE = pl.DataFrame({
    "segment": _rng.choice(["a", "b", "c"], N),
    "score": np.round(_rng.uniform(size=N), 3),
    "score2": _rng.uniform(size=N),
    "label": _rng.integers(0, 2, N),
    "fold": _rng.integers(0, 3, N),
    "n": _rng.integers(0, 5, N),
})  # fmt: skip


class CountingSource:
    """A LazyFrame over ``BASE`` that counts the scans Polars runs."""

    def __init__(self) -> None:
        self.reads = 0

    def frame(self) -> pl.LazyFrame:
        def scan(with_columns, predicate, n_rows, batch_size):  # type: ignore[no-untyped-def]
            self.reads += 1
            rows = BASE if with_columns is None else BASE.select(with_columns)
            yield rows if predicate is None else rows.filter(predicate)

        return register_io_source(io_source=scan, schema=BASE.schema)


VIEWS: dict[str, Callable[[pl.LazyFrame], pl.LazyFrame]] = {
    "score_table": lambda lf: lf.roc.score_table(by="segment"),
    "curve": lambda lf: lf.roc.curve(by="segment"),
    "curve_lower": lambda lf: lf.roc.curve(by="segment", direction="lower"),
    "auc": lambda lf: lf.roc.auc(by="segment"),
    "auc_ungrouped": lambda lf: lf.roc.auc(),
    "auc_count": lambda lf: lf.roc.auc(by="segment", count="n"),
    "auc_delong": lambda lf: lf.roc.auc(by="segment", ci="delong"),
    "auc_bootstrap": lambda lf: lf.roc.auc(by="segment", ci="bootstrap", n_boot=20, seed=1),
    "confusion": lambda lf: lf.roc.confusion([0.3, 0.5], by="segment"),
    "compare": lambda lf: lf.roc.compare(["score", "score2"], by="segment"),
    "compare_bootstrap": lambda lf: lf.roc.compare(["score", "score2"], ci="bootstrap",
                                                   n_boot=20, seed=1),
    "compare_groups": lambda lf: lf.roc.compare_groups(by="segment", groups=("a", "b")),
    "pr_curve": lambda lf: lf.roc.pr_curve(by="segment"),
    "average_precision": lambda lf: lf.roc.average_precision(by="segment"),
    "ks": lambda lf: lf.roc.ks(by="segment"),
    "gains": lambda lf: lf.roc.gains(by="segment"),
    "lift": lambda lf: lf.roc.lift(by="segment"),
    "hull": lambda lf: lf.roc.hull(by="segment"),
    "hull_auc": lambda lf: lf.roc.hull_auc(by="segment"),
    "best_threshold": lambda lf: lf.roc.best_threshold(by="segment"),
    "threshold_at": lambda lf: lf.roc.threshold_at(fpr=0.1, by="segment"),
    "tpr_at": lambda lf: lf.roc.tpr_at(0.1, by="segment", ci="bootstrap", n_boot=20, seed=1),
    "summary": lambda lf: lf.roc.summary(fold="fold"),
    "average_curve": lambda lf: lf.roc.average_curve(fold="fold"),
}  # fmt: skip

# Issue 17: intervals at thresholds, Venkatraman's tests of whole curves.
VIEWS |= {
    "threshold_ci": lambda lf: lf.roc.threshold_ci([0.3, 0.5], by="segment", n_boot=20, seed=1),
    "threshold_ci_count": lambda lf: lf.roc.threshold_ci(0.5, count="n", n_boot=20, seed=1),
    "compare_curves": lambda lf: lf.roc.compare_curves(["score", "score2"], by="segment",
                                                       n_boot=20, seed=1),
    "compare_curves_groups": lambda lf: lf.roc.compare_curves_groups(
        by="segment", groups=("a", "b"), n_boot=20, seed=1),
}  # fmt: skip

@pytest.mark.parametrize("name", list(VIEWS))
def test_one_read_at_call_and_one_at_collect(name: str) -> None:
    source = CountingSource()
    plan = VIEWS[name](source.frame())
    assert isinstance(plan, pl.LazyFrame)
    assert source.reads == 1, f"{name} read its source {source.reads} times at call"
    plan.collect()
    assert source.reads == 2, f"{name} read its source {source.reads - 1} times at collect"


def test_the_counting_source_counts() -> None:
    """The check above can fail: two independent plans over the source read it twice."""
    source = CountingSource()
    lf = source.frame()
    pl.concat([lf.select(pl.len()), lf.select(pl.col("score").sum().cast(pl.UInt32))],
              how="horizontal").collect()  # fmt: skip
    assert source.reads == 2
