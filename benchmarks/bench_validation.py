"""Calibration, PSI and estimated AUC on a scanned log: time and peak memory per call.

Issue 25 asks for "calibration, PSI and estimated AUC on 10^8 rows by 1,000 segments in
one streaming read, peak <= 1 GiB". This script writes a seeded Parquet log once (files
of 10^7 rows, ``part-00000.parquet``, ...: part ``i`` is the same whatever ``--rows``),
then times each call on ``pl.scan_parquet`` of it in a fresh process, whose peak
resident memory (``VmHWM``) is its own:

- ``baseline``: a plain Polars streaming ``group_by(segment).agg(score.mean())``, the
  one read every view needs at least;
- ``calibration``: ``lf.roc.calibration(by="segment")`` (10 uniform bins);
- ``psi``: ``lf.roc.psi(period="month", by="segment")`` (baseline deciles);
- ``psi_weighted``: the same with ``weight="exposure"`` (deciles of exposure);
- ``estimated_auc``: ``lf.roc.estimated_auc(by="segment")`` (no label read, exact:
  one cell per distinct score);
- ``estimated_auc_bins``: the same with ``bins=1000`` (buckets, ``auc_bound`` printed).

Lazy results are collected with ``engine="streaming"``. Ratios are against the
baseline on the same files. ``--decimals D`` rounds the scores to D decimals when
writing (PDs as a rating system stores them): the exact estimated AUC counts distinct
scores per segment, so its memory follows them; calibration (uniform bins) and PSI
count per bin as the rows stream.

    python benchmarks/bench_validation.py --rows 10000000 [--decimals 4] [--dir DIR]
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
SEGMENTS = 1000
MONTHS = 6
MODES = ("baseline", "calibration", "psi", "psi_weighted", "estimated_auc", "estimated_auc_bins")

MEASURE = """
import json, sys, time, warnings
import polars as pl
import polars_roc  # noqa: F401  (the namespace; loaded for the baseline too)
warnings.simplefilter("ignore")
files, mode = json.loads(sys.argv[1]), sys.argv[2]
lf = pl.scan_parquet(files)
start = time.perf_counter()
if mode == "baseline":
    out = lf.group_by("segment").agg(pl.col("score").mean()).collect(engine="streaming")
elif mode == "calibration":
    out = lf.roc.calibration(by="segment").collect(engine="streaming")
elif mode == "psi":
    out = lf.roc.psi(period="month", by="segment").collect(engine="streaming")
elif mode == "psi_weighted":
    out = lf.roc.psi(period="month", by="segment", weight="exposure").collect(engine="streaming")
elif mode == "estimated_auc":
    out = lf.roc.estimated_auc(by="segment").collect(engine="streaming")
else:
    out = lf.roc.estimated_auc(by="segment", bins=1000).collect(engine="streaming")
seconds = time.perf_counter() - start
bound = out["auc_bound"].max() if "auc_bound" in out.columns else None
# VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec.
status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
found = {"seconds": seconds, "peak": int(status) * 1024, "rows_out": out.height}
print(json.dumps(found | {"bound": bound}))
"""


def write_part(path: Path, part: int, decimals: int | None) -> None:
    """One file of ``CHUNK`` rows, seeded by its number (the same in every log)."""
    rng = np.random.default_rng(part)
    label = rng.random(CHUNK, dtype=np.float32) < 0.1
    latent = rng.standard_normal(CHUNK, dtype=np.float32) + np.float32(1.2) * label
    score = (1.0 / (1.0 + np.exp(-(latent - np.float32(2.0))))).astype(np.float32)
    if decimals is not None:
        score = np.round(score, decimals)
    exposure = rng.gamma(2.0, 5000.0, size=CHUNK)  # drawn last: the other columns as before
    pl.DataFrame(
        {
            "segment": rng.integers(0, SEGMENTS, size=CHUNK, dtype=np.uint16),
            "month": rng.integers(1, MONTHS + 1, size=CHUNK, dtype=np.uint8),
            "score": score,
            "label": label,
            "exposure": exposure,
        }
    ).write_parquet(path, row_group_size=1_000_000)


def files(folder: Path, rows: int, decimals: int | None) -> list[str]:
    """The log's files, written when missing (resumable: a finished file is kept)."""
    folder.mkdir(parents=True, exist_ok=True)
    tag = "" if decimals is None else f"-d{decimals}"
    names = []
    for part in range(-(-rows // CHUNK)):
        path = folder / f"part{tag}-{part:05d}.parquet"
        if not path.exists():
            partial = path.with_suffix(".tmp")
            write_part(partial, part, decimals)
            partial.rename(path)
        names.append(str(path))
    return names


def measure(names: list[str], mode: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, json.dumps(names), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--decimals", type=int, default=None)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/roc-validation"))
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    args = parser.parse_args()
    started = time.perf_counter()
    names = files(args.dir, args.rows, args.decimals)
    written = time.perf_counter() - started
    # Approximate (HyperLogLog): an exact count of 10^8 keys takes GiBs by itself.
    distinct = (
        pl.scan_parquet(names)
        .select(pl.struct("segment", "score").hash().approx_n_unique())
        .collect(engine="streaming")
        .item()
    )
    print(
        f"rows {args.rows:,}, segments {SEGMENTS:,}, months {MONTHS}, ~distinct (segment, "
        f"score) {distinct:,}, scores rounded to {args.decimals} decimals; "
        f"log ready in {written:.0f} s"
    )
    base = measure(names, "baseline") if "baseline" in args.modes else None
    for mode in args.modes:
        found = base if mode == "baseline" and base is not None else measure(names, mode)
        line = f"{mode:>14}: {found['seconds']:7.2f} s, peak {found['peak'] / 2**20:6.0f} MiB"
        if base is not None and mode != "baseline":
            extra = (found["peak"] - base["peak"]) / args.rows
            line += (
                f"  ({found['seconds'] / base['seconds']:5.1f}x time, "
                f"{found['peak'] / base['peak']:4.1f}x peak, {extra:.1f} B/row above)"
            )
        if found.get("bound") is not None:
            line += f"  max auc_bound {found['bound']:.1e}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
