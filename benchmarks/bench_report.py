"""Time the HTML report on a 10^6-row log against doing its numbers by hand.

Baseline, on the same seeded data in the same process: per segment, scikit-learn's
``roc_auc_score``, ``roc_curve`` and ``precision_recall_curve`` (the numbers behind the
report, with no chart and no HTML). Printed: both times, their ratio, the stages of the
report, the HTML size, and how many curve points the charts carry.

Run: ``python benchmarks/bench_report.py [n_rows]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import polars as pl
from sklearn.metrics import precision_recall_curve, roc_auc_score, roc_curve

from polars_roc.report.html import build_report, javascript_bundle


def make_log(n: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.2
    return pl.DataFrame(
        {
            "segment": rng.choice(["north", "south", "east", "west"], n),
            "score": 1 / (1 + np.exp(-(rng.normal(size=n) + 1.1 * label - 1.5))),
            "label": label,
        }
    )


def by_hand(log: pl.DataFrame) -> int:
    points = 0
    for (_,), part in log.group_by("segment"):
        y, s = part["label"].to_numpy(), part["score"].to_numpy()
        roc_auc_score(y, s)
        points += len(roc_curve(y, s, drop_intermediate=False)[0])
        precision_recall_curve(y, s)
    return points


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    log = make_log(n)
    started = time.perf_counter()
    javascript_bundle()
    bundle = time.perf_counter() - started
    print(f"vega bundle (once per vl-convert version, then cached): {bundle:.2f} s")

    started = time.perf_counter()
    points = by_hand(log)
    baseline = time.perf_counter() - started

    stages: list[tuple[float, str]] = []
    started = time.perf_counter()

    def progress(message: str) -> None:
        stages.append((time.perf_counter() - started, message))

    report = build_report(log, by="segment", progress=progress)
    ours = time.perf_counter() - started

    print(f"rows: {n:,}, segments: 4, ROC points in all curves: {points:,}")
    print(f"scikit-learn numbers only : {baseline:6.2f} s")
    print(f"polars-roc full report    : {ours:6.2f} s  (ratio {ours / baseline:.2f})")
    for at, message in stages:
        print(f"    {at:6.2f} s  {message}")
    drawn = sum(len(v) for v in report.charts["roc"].to_dict()["datasets"].values())
    print(f"rows drawn in the ROC chart: {drawn:,}")
    print(f"HTML size: {len(report.html.encode()) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
