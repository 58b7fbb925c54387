"""A log larger than memory: every path of ``docs/big-logs.md`` timed, with its peak memory.

Run as a plain script (never in CI; the log is written under ``--dir``, not committed;
``PYTHONPATH=.`` from a checkout times that checkout's package, not an installed one)::

    python benchmarks/bench_scale.py write --rows 1000000000 [--dir /tmp/roc-scale]
    python benchmarks/bench_scale.py run MODE --rows N [--dir ...] [--bins B] [--batch-rows R]

``write`` streams a seeded Parquet log of continuous Float32 scores, a Boolean label
and a UInt16 segment (1,000 segments) in files of 10^7 rows (``part-00000.parquet``,
...; part ``i`` is the same whatever ``--rows``, so the first 20 files are the
2 x 10^8-row log). ``run`` times one path on the first ``--rows`` rows' files in a
fresh process (its peak resident memory is its own, read from ``getrusage``):

- ``exact``: ``lf.roc.auc(by="segment")``, the ordinary exact call (the rows are
  sorted; in batches of segments, chosen by the library, when they would not fit a
  quarter of the machine's memory: ``POLARS_ROC_MEMORY`` to pretend another size);
- ``exact-delong``: the same with ``ci="delong"``;
- ``binned``: ``lf.roc.auc(by="segment", bins=B)``: one read of the rows, slice by
  slice off the streaming engine, when the call is made (default ``B`` 8192);
- ``batched``: exact, ``ci="delong"``, segments counted in batches of about
  ``--batch-rows`` rows (``pr.roc_auc_in_batches``), the out-of-core exact path.

Each run prints one JSON line (mode, rows, seconds, CPU seconds, peak bytes, largest
``auc_bound``, the machine's load average at its start and end, the package timed) and
writes its result to ``DIR/result-MODE-ROWS.parquet`` so that runs can be compared
(``compare MODE``: the binned AUC against the exact result of run ``MODE``, ``batched``
or ``exact``, of the same rows).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

CHUNK = 10_000_000
SEGMENTS = 1000


def write_part(path: Path, part: int) -> None:
    """One file of ``CHUNK`` rows, seeded by its number (the same in every log)."""
    rng = np.random.default_rng(part)
    label = rng.random(CHUNK, dtype=np.float32) < 0.1
    latent = rng.standard_normal(CHUNK, dtype=np.float32) + np.float32(1.2) * label
    score = (1.0 / (1.0 + np.exp(-(latent - np.float32(2.0))))).astype(np.float32)
    pl.DataFrame(
        {
            "segment": rng.integers(0, SEGMENTS, size=CHUNK, dtype=np.uint16),
            "score": score,
            "label": label,
        }
    ).write_parquet(path)


def files(folder: Path, rows: int) -> list[str]:
    n_parts = -(-rows // CHUNK)
    return [str(folder / f"part-{i:05d}.parquet") for i in range(n_parts)]


def write(folder: Path, rows: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for part, name in enumerate(files(folder, rows)):
        path = Path(name)
        if not path.exists():  # resumable: a finished file is kept
            tmp = path.with_suffix(".tmp")
            write_part(tmp, part)
            tmp.rename(path)
    print(f"{rows:,} rows under {folder} ({time.perf_counter() - start:.0f} s)", flush=True)


def run(folder: Path, mode: str, rows: int, bins: int | None, batch_rows: int) -> dict:
    import polars_roc  # registers .roc

    lf = pl.scan_parquet(files(folder, rows))
    load = os.getloadavg()[0]
    start = time.perf_counter()
    if mode == "exact":
        out = lf.roc.auc(by="segment").collect()
    elif mode == "exact-delong":
        out = lf.roc.auc(by="segment", ci="delong").collect()
    elif mode == "binned":
        out = lf.roc.auc(by="segment", bins=bins or 8192).collect(engine="streaming")
    elif mode == "batched":
        out = polars_roc.roc_auc_in_batches(lf, by="segment", ci="delong", batch_rows=batch_rows)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak = usage.ru_maxrss * 1024
    out.write_parquet(folder / f"result-{mode}-{rows}.parquet")
    bound = float(out["auc_bound"].max()) if "auc_bound" in out.columns else None
    return {
        "mode": mode,
        "rows": rows,
        "seconds": round(seconds, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),  # less moved by the load
        "peak_gib": round(peak / 2**30, 3),
        "max_auc_bound": bound,
        "load": [round(load, 1), round(os.getloadavg()[0], 1)],  # 1-minute, at start and end
        "package": polars_roc.__file__,
    }


def compare(folder: Path, rows: int, exact_mode: str) -> None:
    binned = pl.read_parquet(folder / f"result-binned-{rows}.parquet")
    exact = pl.read_parquet(folder / f"result-{exact_mode}-{rows}.parquet")
    both = binned.join(exact, on="segment", suffix="_exact")
    gap = (both["auc"] - both["auc_exact"]).abs()
    print(
        json.dumps(
            {
                "rows": rows,
                "max_gap": gap.max(),
                "max_bound": both["auc_bound"].max(),
                "inside": bool((gap <= both["auc_bound"]).all()),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["write", "run", "compare", "child"])
    parser.add_argument("mode", nargs="?", default="binned")
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/roc-scale"))
    parser.add_argument("--bins", type=int, default=None)
    parser.add_argument("--batch-rows", type=int, default=100_000_000)
    args = parser.parse_args()
    if args.what == "write":
        write(args.dir, args.rows)
    elif args.what == "compare":
        if args.mode == "binned":  # the default MODE would compare the binned run with itself
            parser.error("compare MODE names the exact run to compare with: batched or exact")
        compare(args.dir, args.rows, args.mode)
    elif args.what == "child":
        print(json.dumps(run(args.dir, args.mode, args.rows, args.bins, args.batch_rows)))
    else:  # a fresh process per run: its peak memory is its own
        argv = [
            sys.executable,
            __file__,
            "child",
            args.mode,
            "--rows",
            str(args.rows),
            "--dir",
            str(args.dir),
            "--batch-rows",
            str(args.batch_rows),
        ]
        if args.bins is not None:
            argv += ["--bins", str(args.bins)]
        subprocess.run(argv, check=True)


if __name__ == "__main__":
    main()
