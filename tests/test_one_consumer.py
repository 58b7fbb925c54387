"""With ``bins=``, no read of a scanned log feeds two plans at once.

Two plans collected together over one cached scan make the cache hold rows for whichever
plan lags: that took the value pass of ``bins=8192`` at 10^9 rows from 0.24 to 3.28 GiB
(benchmarks/README.md, "Regression found at the merge"). Peak memory shows it only at
scale, so this test checks the plans' shape instead: every ``pl.collect_all`` of a
``bins=`` call holds at most one plan that scans the log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_roc  # noqa: F401  (registers the roc namespace)


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(7)
    n = 5_000
    path = tmp_path_factory.mktemp("log") / "log.parquet"
    pl.DataFrame(
        {
            "segment": rng.integers(0, 4, n),
            "score": rng.normal(size=n),
            "label": rng.random(n) < 0.3,
            "w": rng.random(n),
        }
    ).write_parquet(path)
    return path


def scans_per_collect_all(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record, for every ``pl.collect_all``, how many of its plans scan a Parquet file."""
    seen: list[int] = []
    collect_all = pl.collect_all

    def spy(plans: Any, *args: Any, **kwargs: Any) -> Any:
        plans = list(plans)
        seen.append(sum("SCAN" in plan.explain() for plan in plans))
        return collect_all(plans, *args, **kwargs)

    monkeypatch.setattr(pl, "collect_all", spy)
    return seen


@pytest.mark.parametrize(
    "call",
    [
        lambda lf: lf.roc.auc(by="segment", bins=64),
        lambda lf: lf.roc.auc(by="segment", bins=64, weight="w"),
        lambda lf: lf.roc.curve(by="segment", bins=16),
        lambda lf: lf.roc.auc(bins=64),
    ],
    ids=["grouped", "weighted", "curve", "ungrouped"],
)
def test_bins_reads_feed_one_plan_each(
    scanned: Path, monkeypatch: pytest.MonkeyPatch, call: Any
) -> None:
    seen = scans_per_collect_all(monkeypatch)
    result = call(pl.scan_parquet(scanned))
    if isinstance(result, pl.LazyFrame):
        result.collect()
    assert seen, "the call collected nothing through pl.collect_all: the spy saw no read"
    assert max(seen) == 1, f"plans scanning the log per collect_all: {seen}"


def test_the_spy_sees_two_consumers(scanned: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The exact grouped path keeps the checks' select beside the group_by (measured
    # bounded there), so the spy must report two plans: the guard above can fail.
    seen = scans_per_collect_all(monkeypatch)
    pl.scan_parquet(scanned).roc.auc(by="segment")
    assert max(seen) == 2
