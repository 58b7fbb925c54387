"""Weighted expressions against unweighted ones, in one process on the same data.

Run as a plain script::

    python benchmarks/bench_weighted_expr.py [--rows 50000] [--groups 50] [--repeat 15]

Each expression (``pr.auc``, ``pr.gini``, ``pr.ks``, ``pr.average_precision``) runs in
``group_by("g").agg(...)`` with and without ``weight=``, the two alternating; printed
are the fastest of ``--repeat`` runs of each after a warm-up, and the ratio weighted /
unweighted (issue 23's target: within 3x).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

import polars_roc as pr

EXPRESSIONS = ("auc", "gini", "ks", "average_precision")


def fastest_pair(first: Callable[[], Any], second: Callable[[], Any], repeat: int) -> tuple:
    """Fastest time of each of two calls, their runs alternating after a warm-up, so
    that other work on the machine weighs on both alike."""
    first(), second()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, spent in zip((first, second), times):
            start = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - start)
    return min(times[0]), min(times[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--groups", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    label = rng.random(args.rows) < 0.3
    df = pl.DataFrame(
        {
            "g": rng.integers(0, args.groups, args.rows),
            "score": rng.normal(label * 1.0, 1.0),
            "label": label,
            "w": rng.random(args.rows) * 3,
        }
    )
    print(f"{args.rows:,} rows in {args.groups} groups, fastest of {args.repeat}")
    print(f"{'expression':<20}{'unweighted':>12}{'weighted':>12}{'ratio':>8}")
    for name in EXPRESSIONS:
        expression = getattr(pr, name)
        plain, weighted = fastest_pair(
            lambda e=expression: df.group_by("g").agg(e()),
            lambda e=expression: df.group_by("g").agg(e(weight="w")),
            args.repeat,
        )
        print(f"{name:<20}{plain:>11.4f}s{weighted:>11.4f}s{weighted / plain:>7.1f}x")


if __name__ == "__main__":
    main()
