"""Count tables (``count=``) against the rows they stand for.

Run as a plain script::

    python benchmarks/bench_count.py [--rows 100000000] [--repeat 3] [--segments 10]

A seeded log of ``--rows`` rows with probabilities rounded to 3 decimals (about a
thousand distinct scores) in ``--segments`` segments is built in memory; its count table
``GROUP BY segment, score, label`` (a few thousand cells) stands in for what a warehouse
returns. Every timing is one process, same data, best of ``--repeat`` after a warm-up:

- the baseline: a plain Polars sort of the rows' score column;
- AUC with DeLong CI by segment on the rows, and on the count table (``count="n"``);
- 2000 bootstrap replicates by segment on the rows, and on the count table;

printed in seconds and as ratios (table / rows, and rows / the sort). The results on the
table and on the rows are checked equal before anything is timed. Issue 11 asks for the
DeLong AUC of a 10^8-row log's count table "in milliseconds".
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

import polars_roc as pr


def make_log(rows: int, segments: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.random(rows) < 0.2
    latent = rng.normal(size=rows) + 1.1 * label
    return pl.DataFrame(
        {
            "segment": rng.integers(0, segments, size=rows, dtype=np.int32),
            "score": np.round(1.0 / (1.0 + np.exp(-(latent - 1.0))), 3),
            "label": label,
        }
    )


def best_time(fn: Callable[[], Any], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--segments", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n-boot", type=int, default=2000)
    args = parser.parse_args()

    log = make_log(args.rows, args.segments)
    start = time.perf_counter()
    table = log.group_by("segment", "score", "label").len("n")
    counting = time.perf_counter() - start
    delong = {"by": "segment", "ci": "delong"}
    boot = {"by": "segment", "ci": "bootstrap", "n_boot": args.n_boot, "seed": 1}
    assert_frame_equal(pr.roc_auc(table, count="n", **delong), pr.roc_auc(log, **delong))
    assert_frame_equal(pr.roc_auc(table, count="n", **boot), pr.roc_auc(log, **boot))

    sort = best_time(lambda: log.select(pl.col("score").sort()), args.repeat)
    timings = {
        "DeLong AUC, rows": best_time(lambda: pr.roc_auc(log, **delong), args.repeat),
        "DeLong AUC, count table": best_time(
            lambda: pr.roc_auc(table, count="n", **delong), args.repeat
        ),
        "bootstrap AUC, rows": best_time(lambda: pr.roc_auc(log, **boot), args.repeat),
        "bootstrap AUC, count table": best_time(
            lambda: pr.roc_auc(table, count="n", **boot), args.repeat
        ),
    }
    print(
        f"{args.rows:,} rows, {args.segments} segments -> {table.height:,} cells "
        f"(GROUP BY in Polars: {counting:.2f} s, done once where the rows live)"
    )
    print(f"{'plain sort of the score column':32s} {sort * 1e3:10.1f} ms   1.00x")
    for name, seconds in timings.items():
        print(f"{name:32s} {seconds * 1e3:10.1f} ms   {seconds / sort:5.2f}x the sort")
    for what in ("DeLong AUC", "bootstrap AUC"):
        ratio = timings[f"{what}, count table"] / timings[f"{what}, rows"]
        print(f"{what}: count table / rows = {ratio:.4f}")


if __name__ == "__main__":
    main()
