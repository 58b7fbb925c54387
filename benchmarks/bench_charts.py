"""Time charts that carry many rows against the same chart built on ``alt.Data``.

Baseline, in the same process on the same rows: the decision curve's chart built as
``alt.Chart(alt.Data(values=rows))``, which Altair validates row by row when built and
again in ``to_dict()``. Printed: both times (build + ``to_dict``) and their ratio.

Run: ``python benchmarks/bench_charts.py [n_segments]`` (default 300, 99 thresholds).
"""

from __future__ import annotations

import sys
import time

import altair as alt
import numpy as np
import polars as pl

import polars_roc as pr
from polars_roc.charts.data import json_records


def main() -> None:
    segments = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = np.random.default_rng(0)
    n = 200 * segments
    log = pl.DataFrame(
        {
            "seg": rng.integers(0, segments, n),
            "score": rng.random(n),
            "label": rng.integers(0, 2, n),
        }
    )
    curve = log.roc.decision_curve(np.linspace(0.01, 0.99, 99).tolist(), by="seg")

    started = time.perf_counter()
    pr.decision_chart(curve, facet="seg").to_dict()
    ours = time.perf_counter() - started

    rows = json_records(curve.unpivot(index=["seg", "threshold"], variable_name="strategy"))
    started = time.perf_counter()
    alt.Chart(alt.Data(values=rows)).mark_line().encode(x="threshold:Q", y="value:Q").to_dict()
    baseline = time.perf_counter() - started

    print(f"decision curve rows: {curve.height:,} ({segments} segments), chart rows: {len(rows):,}")
    print(f"alt.Data chart (baseline): {baseline:6.2f} s")
    print(f"decision_chart           : {ours:6.2f} s  (ratio {ours / baseline:.3f})")


if __name__ == "__main__":
    main()
