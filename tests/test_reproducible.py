"""Float weights give the same numbers on every run (sums always add in one order).

Polars' hash aggregations add floats in a thread-dependent order; the library must not
let that leak into its results.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_roc as pr


@pytest.fixture(scope="module")
def weighted_log() -> pl.DataFrame:
    rng = np.random.default_rng(7)
    n = 300_000
    return pl.DataFrame(
        {
            "g": rng.integers(0, 3, n),
            "score": np.round(rng.random(n), 2),  # few distinct scores: many ties
            "label": rng.random(n) < 0.3,
            "w": rng.random(n) * 3,
        }
    )


@pytest.mark.parametrize("by", [None, "g"])
def test_weighted_results_are_identical_run_to_run(weighted_log: pl.DataFrame, by) -> None:
    def once() -> tuple:
        auc = pr.roc_auc(weighted_log, by=by, weight="w")["auc"].to_list()
        table = pr.score_table(weighted_log, by=by, weight="w")
        expr = weighted_log.group_by("g").agg(pr.auc(weight="w")).sort("g")["auc"]
        return tuple(auc), tuple(table["tp"].to_list()), tuple(expr.to_list())

    first = once()
    for _ in range(4):
        assert once() == first
