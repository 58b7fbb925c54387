"""Per-call time on small frames: the overhead a loop over many small logs pays.

Run as a plain script::

    python benchmarks/bench_small.py [--rows 100] [--groups 5] [--repeat 30]
    python benchmarks/bench_small.py --save before.json   # on the old commit
    python benchmarks/bench_small.py --compare before.json  # on the new one

A user evaluating folds, hand-made bootstrap samples or notebook cells calls the
library many times on a few rows each, where planning the query, not counting, is the
cost. Each call is timed in one process on the same seeded data, alternating with its
baselines so that other work on the machine weighs on both alike: a plain Polars query
of the same columns collected (``select`` of sums, or ``group_by("g").agg`` of them with
``by=``; one plan, one collect, as each call ends) and, ungrouped, scikit-learn's
function on the numpy arrays. Printed: the fastest of ``--repeat`` runs in
milliseconds and its ratios to the baselines.

``--save FILE`` writes the milliseconds and ratios; ``--compare FILE`` prints them
beside this run's, with the change of each ratio (after / before: ratios move less
than times on a busy machine, their baseline sharing the load). To time an older commit
without checking it out: ``git archive OLD polars_roc | tar -x -C /tmp/old`` and run
this script with ``PYTHONPATH=/tmp/old``. ``--cpu`` times process CPU time instead of
wall time, which other work on a shared machine barely moves (with
``POLARS_MAX_THREADS=1``).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import polars_roc as pr

try:
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import (
        confusion_matrix,
        precision_recall_curve,
        roc_auc_score,
        roc_curve,
    )
except ImportError:  # the bench extra is not installed
    sklearn: dict[str, Callable[..., Any]] = {}
else:
    sklearn = {
        "confusion": lambda y, s, w: confusion_matrix(y, s >= 0.5),
        "auc": lambda y, s, w: roc_auc_score(y, s),
        "curve": lambda y, s, w: roc_curve(y, s, drop_intermediate=False),
        "pr_curve": lambda y, s, w: precision_recall_curve(y, s),
        "calibration": lambda y, s, w: calibration_curve(y, s, n_bins=10),
        "auc_weighted": lambda y, s, w: roc_auc_score(y, s, sample_weight=w),
    }


def make_data(rows: int, groups: int, seed: int = 0) -> pl.DataFrame:
    """Seeded log: ``score`` (a logistic model's probability), ``label``, ``w``, ``g``."""
    rng = np.random.default_rng(seed)
    label = rng.random(rows) < 0.4
    score = 1.0 / (1.0 + np.exp(-(rng.normal(size=rows) + 1.2 * label - 0.5)))
    g = np.arange(rows) % groups  # every group holds both classes at 100 rows
    return pl.DataFrame({"score": score, "label": label, "w": rng.random(rows), "g": g})


def calls(df: pl.DataFrame) -> dict[str, Callable[[], Any]]:
    """The timed calls, by name; ``_by`` names are grouped by ``g``."""
    timed: dict[str, Callable[[], Any]] = {}
    for suffix, by in (("", None), ("_by", "g")):
        timed |= {
            f"confusion{suffix}": lambda by=by: df.roc.confusion(0.5, by=by),
            f"auc{suffix}": lambda by=by: df.roc.auc(by=by),
            f"curve{suffix}": lambda by=by: df.roc.curve(by=by),
            f"pr_curve{suffix}": lambda by=by: df.roc.pr_curve(by=by),
            f"calibration{suffix}": lambda by=by: df.roc.calibration(10, by=by),
            f"auc_weighted{suffix}": lambda by=by: df.roc.auc(by=by, weight="w"),
        }
    expressions = {
        "expr_auc": pr.auc("score", "label"),
        "expr_auc_weighted": pr.auc("score", "label", weight="w"),
        "expr_ap_weighted": pr.average_precision("score", "label", weight="w"),
    }
    for name, expression in expressions.items():
        timed[name] = lambda e=expression: df.select(e)
        timed[f"{name}_by"] = lambda e=expression: df.group_by("g").agg(e)
    return timed


def fastest(
    functions: list[Callable[[], Any]], repeat: int, clock: Callable[[], float]
) -> list[float]:
    """Fastest time of each function, their runs alternating after a warm-up."""
    for fn in functions:
        fn()
    times: list[list[float]] = [[] for _ in functions]
    for _ in range(repeat):
        for fn, spent in zip(functions, times):
            start = clock()
            fn()
            spent.append(clock() - start)
    return [min(t) for t in times]


def _figures(row: dict[str, float]) -> str:
    sk = f"{row['sklearn']:9.2f}" if "sklearn" in row else f"{'':9}"
    return f"{row['ms']:7.2f} {row['polars']:8.1f} {sk}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--groups", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--compare", type=Path, help="print beside the figures of this file")
    parser.add_argument("--cpu", action="store_true", help="process CPU time, not wall time")
    args = parser.parse_args()

    df = make_data(args.rows, args.groups, args.seed)
    y, s, w = (df[c].to_numpy() for c in ("label", "score", "w"))
    sums = [pl.col("score").sum(), pl.col("label").sum(), pl.col("w").sum()]
    plain = lambda: df.lazy().select(sums).collect()  # noqa: E731
    plain_by = lambda: df.lazy().group_by("g").agg(sums).collect()  # noqa: E731
    before = json.loads(args.compare.read_text()) if args.compare else {}

    clock = time.process_time if args.cpu else time.perf_counter
    print(
        f"polars {pl.__version__}, {args.rows} rows, by: {args.groups} groups, best of "
        f"{args.repeat}, {'CPU' if args.cpu else 'wall'} time; ratios to a Polars "
        "select/group_by of sums and to scikit-learn"
    )
    header = f"{'call':20} {'ms':>7} {'/polars':>8} {'/sklearn':>9}"
    if before:
        header += f" {'ms before':>10} {'/polars':>8} {'/sklearn':>9} {'changes':>13}"
    print(header)
    figures: dict[str, dict[str, float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, call in calls(df).items():
            grouped = name.endswith("_by")
            reference = sklearn.get(name)
            baselines = [plain_by if grouped else plain]
            if reference is not None:
                baselines.append(lambda r=reference: r(y, s, w))
            ours, polars_time, *sk_time = fastest([call, *baselines], args.repeat, clock)
            row = {"ms": ours * 1e3, "polars": ours / polars_time}
            if sk_time:
                row["sklearn"] = ours / sk_time[0]
            figures[name] = row
            line = f"{name:20} {_figures(row)}"
            if name in before:
                old = before[name]
                changes = (f"{row[k] / old[k]:6.2f}" for k in ("polars", "sklearn") if k in row)
                line += f"    {_figures(old)} {' '.join(changes)}"
            print(line)
    if args.save:
        args.save.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
