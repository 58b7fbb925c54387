"""Float weights give the same numbers on every run (sums always add in one order).

Polars' hash aggregations add floats in a thread-dependent order; the library must not
let that leak into its results. Each case runs once in each of three processes of 1, 2
and 3 threads: on the commit before each fix every guard below failed so (most in the
first call of each process, where calls repeated in one process often agreed).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from itertools import product
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_roc as pr
from polars_roc.core import bucket_arrays


def _weighted_log() -> pl.DataFrame:
    rng = np.random.default_rng(7)
    n = 60_000
    return pl.DataFrame(
        {
            "g": rng.integers(0, 3, n),
            "score": np.round(rng.random(n), 2),  # few distinct scores: many ties
            "label": rng.random(n) < 0.3,
            "w": rng.random(n) * 3,
        }
    )


def _weighted(df: pl.DataFrame, by) -> list[pl.DataFrame]:
    return [
        pr.roc_auc(df, by=by, weight="w"),
        pr.score_table(df, by=by, weight="w"),
        df.group_by("g").agg(pr.auc(weight="w")).sort("g"),
    ]


def _paired_log() -> pl.DataFrame:
    rng = np.random.default_rng(11)
    n = 60_000
    label = rng.random(n) < 0.3
    return pl.DataFrame(
        {
            "g": rng.integers(0, 4, n),
            "a": np.round(rng.normal(label * 1.0, 1.0), 2),  # ties within a, broken by b
            "b": np.round(rng.normal(label * 0.7, 1.0), 3),
            "label": label,
        }
    )


def _compared(df: pl.DataFrame, by) -> tuple[pl.DataFrame, pl.DataFrame]:
    """DeLong's comparison of the rows and of the rows shuffled (the same bits)."""
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=3)
    return pr.compare(df, ["a", "b"], by=by), pr.compare(shuffled, ["a", "b"], by=by)


def _float_log() -> pl.DataFrame:
    rng = np.random.default_rng(11)
    n = 8_000
    return pl.DataFrame(
        {
            "g": rng.integers(0, 4, n),
            "score": rng.random(n),
            "label": rng.random(n) < 0.3,
            "w": rng.random(n) * 3,
        }
    )


def _every_view(df: pl.DataFrame, by, weight) -> list[pl.DataFrame]:
    # Issue 17: average precision came out in one of two last-bit values on 2-4% of
    # calls. Every float a view or expression returns must be bit-identical every time.
    expressions = [
        pr.auc(weight=weight),
        pr.average_precision(weight=weight),
        pr.gini(weight=weight),
        pr.ks(weight=weight),
    ]
    return [
        pr.roc_auc(df, by=by, weight=weight),
        pr.pr_average_precision(df, by=by, weight=weight),
        pr.confusion_matrix(df, [0.3, 0.6], by=by, weight=weight),
        pr.roc_curve(df, by=by, weight=weight),
        pr.pr_curve(df, by=by, weight=weight),
        pr.ks_statistic(df, by=by, weight=weight),
        df.group_by("g").agg(expressions).sort("g") if by else df.select(expressions),
    ]


def _continuous_log() -> pl.DataFrame:
    rng = np.random.default_rng(3)
    n = 100_000
    return pl.DataFrame(
        {
            "g": rng.integers(0, 4, n),
            "score": rng.normal(size=n),
            "label": rng.random(n) < 0.3,
            "w": rng.exponential(size=n),
        }
    )


def _binned(df: pl.DataFrame, by, bins: int, chunk_rows: int | None) -> list[pl.DataFrame]:
    # Issue 24: bins= with weight= gave a different AUC and n_pos on each call (cells'
    # weight sums added in hash order). Slices: weights still add in row order.
    default = bucket_arrays.CHUNK_ROWS
    bucket_arrays.CHUNK_ROWS = chunk_rows or default
    try:
        auc = pr.roc_auc(df, by=by, weight="w", bins=bins)
        return [auc, pr.roc_curve(df.lazy(), by=by, weight="w", bins=bins).collect()]
    finally:
        bucket_arrays.CHUNK_ROWS = default


def _probability_log() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    n = 200_000
    return pl.DataFrame(
        {
            "score": rng.random(n),  # all distinct: long float sums per bin
            "label": rng.integers(0, 2, n),
            "g": rng.integers(0, 50, n),
            "grade": rng.integers(0, 7, n),
            "count": rng.integers(1, 5, n),
            "w": rng.random(n) * 3,
        }
    )


CALIBRATION_VIEWS = {
    "curve": lambda df, **k: pr.calibration_curve(df, **k),
    "curve quantile": lambda df, **k: pr.calibration_curve(df, strategy="quantile", **k),
    "grade_test": lambda df, **k: pr.grade_test(df, grade="grade", **k),
    "grade_summary": lambda df, **k: pr.grade_summary(df, grade="grade", **k),
    "brier": lambda df, **k: df.roc.brier(**k),
    "brier quantile": lambda df, **k: df.roc.brier(strategy="quantile", **k),
    "ece": lambda df, **k: pr.calibration_error(df, **k),
    "ece quantile": lambda df, **k: pr.calibration_error(df, strategy="quantile", **k),
    "hosmer_lemeshow": lambda df, **k: pr.calibration_test(df, **k),
    "spiegelhalter": lambda df, **k: pr.calibration_test(df, "spiegelhalter", **k),
}


# Weighted: the views whose bins are fixed before the read, summed in its aggregation
# (the others add the score table's cells in order; the tests counting rows refuse
# weight=).
UNITS = [
    *((view, unit) for view in CALIBRATION_VIEWS for unit in (None, "count")),
    *((view, "w") for view in ("curve", "grade_summary", "ece")),
]


DUCKDB_VIEWS = {
    "curve": lambda r, **k: pr.calibration_curve(r, **k),
    "curve grade": lambda r, **k: pr.calibration_curve(r, grade="grade", **k),
    "curve quantile": lambda r, **k: pr.calibration_curve(r, strategy="quantile", **k),
    "brier": lambda r, **k: pr.brier_decomposition(r, **k),
    "gains": lambda r, **k: pr.gains_table(r, **k),
    "auc": lambda r, **k: pr.roc_auc(r, **k),
}


WEIGHTED_CASES = [
    *(f"weighted-{by}" for by in (None, "g")),
    *(f"compare-{by}" for by in (None, "g")),
    *(f"views-{by}-{weight}" for by, weight in product([None, "g"], [None, "w"])),
    # the resampling cells' weight sums add in row order (issue 17, defect 3)
    "bootstrap",
    *(
        f"binned-{by}-{bins}-{chunk_rows}"
        for by, bins, chunk_rows in product([None, "g"], [16, 4096], [None, 15_000])
    ),
]
CALIBRATION_CASES = {
    **{f"{view}-{unit}": (view, unit) for view, unit in UNITS},
    **{f"gains-{weight}": ("gains", weight) for weight in (None, "w")},
    "curve grade lazy-w": ("curve grade lazy", "w"),
    **{
        f"{view}-{weight} duckdb": (view, weight) for view in DUCKDB_VIEWS for weight in (None, "w")
    },
}


def _cases() -> dict[str, Callable[[], object]]:
    import duckdb
    import pyarrow as pa

    weighted, paired, floats, continuous = (
        _weighted_log(),
        _paired_log(),
        _float_log(),
        _continuous_log(),
    )
    cases: dict[str, Callable[[], object]] = {}
    for by in (None, "g"):
        cases[f"weighted-{by}"] = partial(_weighted, weighted, by)
        cases[f"compare-{by}"] = partial(_compared, paired, by)
        for weight in (None, "w"):
            cases[f"views-{by}-{weight}"] = partial(_every_view, floats, by, weight)
        for bins, chunk_rows in product([16, 4096], [None, 15_000]):
            cases[f"binned-{by}-{bins}-{chunk_rows}"] = partial(
                _binned, continuous, by, bins, chunk_rows
            )
    cases["bootstrap"] = lambda: pr.roc_auc(
        weighted, by="g", weight="w", ci="bootstrap", n_boot=50, seed=3
    ).select("auc_se", "ci_lower", "ci_upper")

    df = _probability_log()
    tied = df.with_columns(pl.col("score").round(2)).to_arrow()  # cells of many rows
    duckdb.execute(f"SET threads = {pl.thread_pool_size()}")
    # DuckDB's threads take batches (of a table: of 122,880 rows)
    relation = duckdb.from_arrow(pa.Table.from_batches(tied.to_batches(max_chunksize=5_000)))
    for name, (view, unit) in CALIBRATION_CASES.items():
        mass = {} if unit is None else {"weight" if unit == "w" else "count": unit}
        if name.endswith("duckdb"):
            cases[name] = partial(DUCKDB_VIEWS[view], relation, by="g", **mass)
        elif view == "gains":
            cases[name] = partial(pr.gains_table, df, by="g", **mass)
        elif view == "curve grade lazy":
            lazy = pr.calibration_curve(df.lazy(), grade="grade", by="g", **mass)
            cases[name] = lazy.collect
        else:
            cases[name] = partial(CALIBRATION_VIEWS[view], df, by="g", **mass)
    return cases


@pytest.fixture(scope="module")
def digests() -> dict[str, set[str]]:
    pytest.importorskip("duckdb")
    return _digests_per_thread_count(__file__)


@pytest.mark.parametrize("case", WEIGHTED_CASES)
def test_weighted_results_are_identical_for_any_number_of_threads(digests, case: str) -> None:
    # A weighted AUC's and score table's sums, DeLong's paired sums (rows shuffled too:
    # tied scores are ordered by the other score), average precision, bootstrap cells and
    # binned cells add in one order.
    assert len(digests[case]) == 1


@pytest.mark.parametrize("case", CALIBRATION_CASES)
def test_calibration_views_are_identical_for_any_number_of_threads(digests, case: str) -> None:
    # Sums of scores per bin are exact (integer arithmetic; float weights by exponent
    # block), so the order in which threads add them cannot show in the last bits; DuckDB
    # sums a cell's weights in thread order too, so its float weights are summed by
    # exponent block as well.
    assert len(digests[case]) == 1


def _digest(result: pl.DataFrame | list[pl.DataFrame]) -> str:
    # repr writes each float's shortest round trip: a change in its last bit shows
    frames = result if isinstance(result, list) else [result]
    text = repr([(f.schema, f.rows()) for f in frames])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _print_digests(cases: dict[str, Callable[[], object]]) -> None:
    """A line per case: its name and its result's digest, or a digest per member of a
    tuple (results that must be the same frame)."""
    for name, case in cases.items():
        result = case()
        members = result if isinstance(result, tuple) else (result,)
        print(name, *map(_digest, members), sep="\t")


def _digests_per_thread_count(test_file: str) -> dict[str, set[str]]:
    """Each case of ``test_file``'s ``_cases()`` and its distinct digests over processes of
    1, 2 and 3 threads (Polars' pool size is fixed at import), run at once. Each run is
    also a new process: its hash seeds and its threads' races are its own."""
    root = Path(test_file).resolve().parents[1]
    package_root = Path(pr.__file__).resolve().parents[1]
    script = (
        f"import tests.test_reproducible as r, tests.{Path(test_file).stem} as m;"
        " r._print_digests(m._cases())"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-W", "error", "-c", script],  # as pytest: warnings fail
            env={
                **os.environ,
                "POLARS_MAX_THREADS": threads,
                "PYTHONPATH": os.pathsep.join([str(package_root), str(root)]),
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for threads in ("1", "2", "3")
    ]
    outputs = [(*run.communicate(), run.returncode) for run in runs]
    digests: dict[str, set[str]] = defaultdict(set)
    for out, err, returncode in outputs:
        assert returncode == 0, err
        for line in out.splitlines():
            name, *members = line.split("\t")
            digests[name].update(members)
    return digests
