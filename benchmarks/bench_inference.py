"""Speed of the inference functions against a plain AUC on the same data.

Run as a plain script::

    python benchmarks/bench_inference.py [--rows 5000000] [--repeat 3] [--n-boot 2000]

Everything is timed in one process on the same seeded data. The baseline is
``pr.roc_auc`` of one score column (eager in, eager out, validation included); each
other timing is printed in seconds and as a ratio to it, followed by the targets of
issue 4 with pass/fail:

- DeLong CI on N rows (continuous scores)          <= 2x the plain AUC
- paired DeLong test of two scores on N rows        <= 8x a single AUC
- 2000 bootstrap replicates, N rows, 1000 distinct  <= 10x a single AUC (of that column)

With ``--bca-bands`` it times instead the targets of issue 26 on N rows by
``--segments`` segments (scores to 3 decimals), ``--n-boot`` replicates, each as a ratio
to the percentile bootstrap of the AUC in the same run:

- BCa interval of the AUC (jackknife in closed form)            <= 3x the percentile
- BCa interval of average precision (jackknife on leave-out tables) (reported)
- whole-curve band, ``roc_curve(band="bootstrap")``              <= 3x the percentile
- ``threshold_ci`` and ``disparity(ci="bootstrap")`` (a group column of 3 values), each
  BCa as a ratio to its own percentile run                     <= 3x

With ``--proc`` it also times pROC's ``ci.auc(method="delong")`` on the same data
through ``Rscript`` (optional: needs R with pROC; not run in CI).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import polars_roc as pr


def make_data(rows: int, seed: int = 0) -> pl.DataFrame:
    """Seeded log: two correlated continuous scores, a 3-decimal score, a label, a segment."""
    rng = np.random.default_rng(seed)
    label = rng.random(rows) < 0.3
    latent = rng.normal(size=rows) + 1.2 * label
    score_a = 1.0 / (1.0 + np.exp(-(latent - 0.8)))
    score_b = 1.0 / (1.0 + np.exp(-(0.7 * latent + 0.7 * rng.normal(size=rows) - 0.8)))
    return pl.DataFrame(
        {
            "score": score_a,
            "score_b": score_b,
            "rounded": np.round(score_a, 3),
            "label": label,
            "g": rng.integers(0, 10, size=rows, dtype=np.int32),
        }
    )


def best_time(fn: Callable[[], Any], repeat: int) -> float:
    """Fastest wall time of ``repeat`` calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def proc_delong_seconds(df: pl.DataFrame) -> float | None:
    """Seconds pROC takes for ``ci.auc(method="delong")`` (reading the CSV not timed)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.csv"
        df.select("score", pl.col("label").cast(pl.Int8)).write_csv(path)
        script = (
            "suppressMessages(library(pROC)); d <- read.csv(commandArgs(TRUE)[1]);"
            "t <- system.time(ci.auc(roc(d$label, d$score, direction='<', quiet=TRUE),"
            " method='delong'))[['elapsed']]; cat(t)"
        )
        try:
            done = subprocess.run(
                ["Rscript", "-e", script, str(path)], capture_output=True, text=True, check=True
            )
        except (OSError, subprocess.CalledProcessError):
            return None
        return float(done.stdout.strip())


def bca_and_bands(rows: int, segments: int, n_boot: int, repeat: int) -> None:
    """Issue 26's targets: BCa and bands against the percentile bootstrap, one run."""
    rng = np.random.default_rng(0)
    label = rng.random(rows) < 0.3
    latent = rng.normal(size=rows) + 1.2 * label
    df = pl.DataFrame(
        {
            "score": np.round(1.0 / (1.0 + np.exp(-(latent - 0.8))), 3),
            "label": label,
            "g": rng.integers(0, segments, size=rows, dtype=np.int32),
            "sex": rng.choice(np.array(["f", "m", "x"]), size=rows, p=[0.49, 0.49, 0.02]),
        }
    )
    print(f"rows={rows:,}  segments={segments}  n_boot={n_boot}  scores to 3 decimals")
    options: dict[str, Any] = dict(by="g", n_boot=n_boot, seed=1)
    base = best_time(lambda: pr.roc_auc(df, ci="bootstrap", **options), repeat)
    timed = [
        ("AUC, percentile bootstrap (baseline)", base, None),
        (
            "AUC, BCa",
            best_time(lambda: pr.roc_auc(df, ci="bootstrap", ci_method="bca", **options), repeat),
            3.0,
        ),
        (
            "average precision, percentile",
            best_time(lambda: pr.pr_average_precision(df, ci="bootstrap", **options), repeat),
            None,
        ),
        (
            "average precision, BCa",
            best_time(
                lambda: pr.pr_average_precision(df, ci="bootstrap", ci_method="bca", **options),
                repeat,
            ),
            None,
        ),
        (
            "whole-curve band (101 rates)",
            best_time(lambda: pr.roc_curve(df, band="bootstrap", **options), repeat),
            3.0,
        ),
    ]
    print(f"{'what':40s} {'seconds':>9s} {'x percentile AUC':>17s}")
    for name, seconds, limit in timed:
        verdict = "" if limit is None else ("  pass" if seconds / base <= limit else "  FAIL")
        print(f"{name:40s} {seconds:9.3f} {seconds / base:17.2f}{verdict}")
    # The rates at a threshold and the disparities, BCa against their own percentile run.
    calls: list[tuple[str, Callable[..., Any]]] = [
        ("threshold_ci (0.3, 0.5; 4 measures)", lambda **o: pr.threshold_ci(df, [0.3, 0.5], **o)),
        (
            "disparity (sex, 4 measures)",
            lambda **o: pr.disparity(df, 0.3, group="sex", ci="bootstrap", **o),
        ),
    ]
    print(f"{'what':40s} {'percentile':>10s} {'BCa':>9s} {'x':>6s}")
    for name, call in calls:
        percentile = best_time(lambda call=call: call(**options), repeat)
        bca = best_time(lambda call=call: call(ci_method="bca", **options), repeat)
        verdict = "  pass" if bca / percentile <= 3.0 else "  FAIL"
        print(f"{name:40s} {percentile:10.3f} {bca:9.3f} {bca / percentile:6.2f}{verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--proc", action="store_true", help="also time pROC (needs R)")
    parser.add_argument("--bca-bands", action="store_true", help="issue 26's BCa and bands")
    parser.add_argument("--segments", type=int, default=100)
    args = parser.parse_args()
    if args.bca_bands:
        bca_and_bands(args.rows, args.segments, args.n_boot, args.repeat)
        return

    df = make_data(args.rows)
    print(f"rows={args.rows:,}  distinct(rounded)={df['rounded'].n_unique()}  n_boot={args.n_boot}")

    def time_it(fn: Callable[[], Any]) -> float:
        return best_time(fn, args.repeat)

    base = time_it(lambda: pr.roc_auc(df))
    base_rounded = time_it(lambda: pr.roc_auc(df, score="rounded"))
    rows = [
        ("plain AUC (continuous)", base, base),
        ("DeLong CI (continuous)", time_it(lambda: pr.roc_auc(df, ci="delong")), base),
        (
            "DeLong CI, by 10 groups",
            time_it(lambda: pr.roc_auc(df, ci="delong", by="g")),
            time_it(lambda: pr.roc_auc(df, by="g")),
        ),
        ("paired DeLong test", time_it(lambda: pr.compare(df, ["score", "score_b"])), base),
        ("plain AUC (1000 distinct)", base_rounded, base_rounded),
        (
            "DeLong CI (1000 distinct)",
            time_it(lambda: pr.roc_auc(df, score="rounded", ci="delong")),
            base_rounded,
        ),
        (
            f"bootstrap x{args.n_boot} (1000 distinct)",
            time_it(
                lambda: pr.roc_auc(df, score="rounded", ci="bootstrap", n_boot=args.n_boot, seed=1)
            ),
            base_rounded,
        ),
        (
            f"bootstrap x{args.n_boot} max_fpr=0.1 (1000 distinct)",
            time_it(
                lambda: pr.roc_auc(
                    df, score="rounded", ci="bootstrap", max_fpr=0.1, n_boot=args.n_boot, seed=1
                )
            ),
            base_rounded,
        ),
    ]
    print(f"{'what':52s} {'seconds':>9s} {'x baseline':>11s}")
    ratios = {}
    for name, seconds, baseline in rows:
        ratios[name] = seconds / baseline
        print(f"{name:52s} {seconds:9.3f} {ratios[name]:11.2f}")
    targets = [
        ("DeLong CI <= 2x AUC", ratios["DeLong CI (continuous)"], 2.0),
        ("paired test <= 8x AUC", ratios["paired DeLong test"], 8.0),
        ("bootstrap <= 10x AUC", ratios[f"bootstrap x{args.n_boot} (1000 distinct)"], 10.0),
    ]
    print()
    for name, ratio, limit in targets:
        print(f"{name:30s} {ratio:6.2f}  {'pass' if ratio <= limit else 'FAIL'}")
    if args.proc:
        seconds = proc_delong_seconds(df)
        if seconds is None:
            print("pROC: Rscript with pROC not available")
        else:
            ours = dict((n, s) for n, s, _ in rows)["DeLong CI (continuous)"]
            print(f"pROC ci.auc(delong): {seconds:.2f} s, {seconds / ours:.1f}x our time")


if __name__ == "__main__":
    main()
