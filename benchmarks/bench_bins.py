"""Logs larger than memory: the exact AUC against the binned one (``bins=``), time and peak memory.

Run as a plain script::

    python benchmarks/bench_bins.py [--rows 100000000] [--segments 1000] [--bins 65536]
                                    [--dir /tmp/roc-bench] [--skip-exact] [--zeros 0.05]
                                    [--logits]

Writes a seeded Parquet log (continuous scores, ``--segments`` segments) in files of
10^7 rows (nothing is committed; the folder is reused when it already holds the same
number of rows; ``--zeros S`` makes a share ``S`` of the scores exactly 0.0, as tree
models' probabilities often are; ``--logits`` writes the same scores as logits,
``log(p / (1 - p))``, of both signs: the same AUC), then runs, each in a fresh process
so its peak memory is its own:

- a plain Polars sort of the score column (the baseline, in memory);
- the exact AUC by segment from ``pl.scan_parquet`` (in-memory engine: the rows are
  sorted);
- the binned AUC by segment, ``bins=``: the value pass finds each segment's score
  range, then one read of the rows, slice by slice off the streaming engine, into
  equal-width (segment, bucket) cells; memory independent of the rows;

and prints wall time, peak resident memory, the largest ``auc_bound`` and the largest
distance between the binned and the exact AUC (which must lie within the bound).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

CHUNK = 10_000_000

RUNNER = r"""
import json, sys, time, resource
import polars as pl
import polars_roc as pr
files, what, bins = sys.argv[1], sys.argv[2], int(sys.argv[3])
lf = pl.scan_parquet(files)
start = time.perf_counter()
if what == "sort":
    out = lf.select(pl.col("score").sort()).collect()  # the whole sorted column
elif what == "exact":
    out = lf.roc.auc(by="segment").collect()
else:
    out = lf.roc.auc(by="segment", bins=bins).collect(engine="streaming")
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
if what != "sort":
    out.write_parquet(sys.argv[4])
print(json.dumps({"seconds": seconds, "peak": peak}))
"""


def write_log(
    folder: Path, rows: int, segments: int, zeros: float = 0.0, logits: bool = False
) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / f"rows-{rows}-segments-{segments}-zeros-{zeros}-logits-{logits}"
    if not marker.exists():
        for old in folder.glob("*.parquet"):
            old.unlink()
        rng = np.random.default_rng(0)
        for part, start in enumerate(range(0, rows, CHUNK)):
            n = min(CHUNK, rows - start)
            label = rng.random(n) < 0.1
            latent = rng.normal(size=n) + 1.2 * label
            score = latent - 2.0 if logits else 1.0 / (1.0 + np.exp(-(latent - 2.0)))
            score[rng.random(n) < zeros] = 0.0
            pl.DataFrame(
                {
                    "segment": rng.integers(0, segments, size=n, dtype=np.int32),
                    "score": score,
                    "label": label,
                }
            ).write_parquet(folder / f"part-{part:04d}.parquet")
        marker.touch()
    return str(folder / "*.parquet")


def run(files: str, what: str, bins: int, out: Path) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", RUNNER, files, what, str(bins), str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--bins", type=int, default=65536)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/roc-bench"))
    parser.add_argument("--skip-exact", action="store_true")
    parser.add_argument("--zeros", type=float, default=0.0, help="share of exact 0.0 scores")
    parser.add_argument(
        "--logits", action="store_true", help="scores as logits of both signs, not probabilities"
    )
    args = parser.parse_args()

    start = time.perf_counter()
    files = write_log(args.dir, args.rows, args.segments, args.zeros, args.logits)
    kind = "logits" if args.logits else "probabilities"
    print(
        f"{args.rows:,} rows ({kind}) in {args.segments} segments "
        f"({time.perf_counter() - start:.0f} s to write or find the files)"
    )
    binned_out, exact_out = args.dir / "binned.out", args.dir / "exact.out"
    timings = {"sort": run(files, "sort", args.bins, binned_out)}
    if not args.skip_exact:
        timings["exact AUC"] = run(files, "exact", args.bins, exact_out)
    timings[f"binned AUC, bins={args.bins}"] = run(files, "binned", args.bins, binned_out)
    base = timings["sort"]["seconds"]
    for name, t in timings.items():
        print(
            f"{name:28s} {t['seconds']:8.2f} s  {t['seconds'] / base:6.2f}x the sort   "
            f"peak {t['peak'] / 2**30:6.2f} GiB"
        )
    binned = pl.read_parquet(binned_out)
    print(f"largest auc_bound: {binned['auc_bound'].max():.2e}")
    if not args.skip_exact:
        exact = pl.read_parquet(exact_out)
        gap = (binned["auc"] - exact["auc"]).abs()
        inside = bool((gap <= binned["auc_bound"] + 1e-15).all())
        print(f"largest |binned - exact|: {gap.max():.2e} (within the bound: {inside})")


if __name__ == "__main__":
    main()
