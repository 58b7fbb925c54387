"""The value pass of a lazy grouped call: time and peak memory per row at the call.

``lf.roc.auc(by="segment")`` on a Parquet scan runs its value checks when called (the
single-class warning comes then). This script writes a seeded log, then measures in
fresh processes the call's peak resident memory and time against a baseline: a plain
Polars streaming ``group_by(segment).agg(len, min, max)`` over the same scan.

    python benchmarks/bench_checks.py [--rows 20000000] [--segments 1000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

MEASURE = """
import sys, time, warnings
import polars as pl
import polars_roc  # noqa: F401  (the namespace; also loaded for the baseline)
warnings.simplefilter("ignore")
lf = pl.scan_parquet(sys.argv[1])
start = time.perf_counter()
if sys.argv[2] == "call":
    lf.roc.auc(by="segment")
else:
    aggs = [pl.len(), pl.col("score").min().alias("lo"), pl.col("score").max().alias("hi")]
    lf.group_by("segment").agg(aggs).collect(engine="streaming")
seconds = time.perf_counter() - start
# VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec.
status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
print(seconds, int(status) * 1024)
"""


def measure(path: Path, what: str) -> tuple[float, int]:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path), what], capture_output=True, text=True, check=True
    )
    seconds, peak = out.stdout.split()
    return float(seconds), int(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--segments", type=int, default=1000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.parquet"
        pl.DataFrame(
            {
                "segment": rng.integers(0, args.segments, args.rows).astype(np.int32),
                "score": rng.random(args.rows),
                "label": rng.random(args.rows) < 0.3,
            }
        ).write_parquet(path, row_group_size=1_000_000)
        base_s, base_peak = measure(path, "baseline")
        call_s, call_peak = measure(path, "call")
    print(f"rows {args.rows:,}, segments {args.segments:,}")
    print(f"baseline group_by: {base_s:.2f} s, peak {base_peak / 2**20:.0f} MiB")
    print(f"lf.roc.auc(by=) at call: {call_s:.2f} s, peak {call_peak / 2**20:.0f} MiB")
    extra = (call_peak - base_peak) / args.rows
    print(f"ratio {call_s / base_s:.2f}x time; {extra:.1f} bytes a row above the baseline")


if __name__ == "__main__":
    main()
