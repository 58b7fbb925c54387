"""Float weights give the same numbers on every run (sums always add in one order).

Polars' hash aggregations add floats in a thread-dependent order; the library must not
let that leak into its results.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_roc as pr
from polars_roc.core import bucket_arrays


@pytest.fixture(scope="module")
def weighted_log() -> pl.DataFrame:
    rng = np.random.default_rng(7)
    n = 300_000
    return pl.DataFrame(
        {
            "g": rng.integers(0, 3, n),
            "score": np.round(rng.random(n), 2),  # few distinct scores: many ties
            "label": rng.random(n) < 0.3,
            "w": rng.random(n) * 3,
        }
    )


@pytest.mark.parametrize("by", [None, "g"])
def test_weighted_results_are_identical_run_to_run(weighted_log: pl.DataFrame, by) -> None:
    def once() -> tuple:
        auc = pr.roc_auc(weighted_log, by=by, weight="w")["auc"].to_list()
        table = pr.score_table(weighted_log, by=by, weight="w")
        expr = weighted_log.group_by("g").agg(pr.auc(weight="w")).sort("g")["auc"]
        return tuple(auc), tuple(table["tp"].to_list()), tuple(expr.to_list())

    first = once()
    for _ in range(4):
        assert once() == first


@pytest.fixture(scope="module")
def paired_log() -> pl.DataFrame:
    rng = np.random.default_rng(11)
    n = 300_000
    label = rng.random(n) < 0.3
    return pl.DataFrame(
        {
            "g": rng.integers(0, 4, n),
            "a": np.round(rng.normal(label * 1.0, 1.0), 2),  # ties within a, broken by b
            "b": np.round(rng.normal(label * 0.7, 1.0), 3),
            "label": label,
        }
    )


@pytest.mark.parametrize("by", [None, "g"])
def test_compare_is_identical_run_to_run(paired_log: pl.DataFrame, by) -> None:
    # Identical calls give identical bits (`.equals`), as roc_auc does: DeLong's paired
    # sums add in row order, and tied scores are ordered by the other score.
    first = pr.compare(paired_log, ["a", "b"], by=by)
    for _ in range(5):
        assert pr.compare(paired_log, ["a", "b"], by=by).equals(first)
    shuffled = paired_log.sample(fraction=1.0, shuffle=True, seed=3)
    assert pr.compare(shuffled, ["a", "b"], by=by).equals(first)


@pytest.fixture(scope="module")
def float_log() -> pl.DataFrame:
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


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("by", [None, "g"])
def test_every_view_gives_one_value_over_many_calls(float_log: pl.DataFrame, by, weight) -> None:
    # Issue 17: average precision came out in one of two last-bit values on 2-4% of
    # calls. Every float a view or expression returns must be bit-identical every time.
    def once() -> tuple:
        frames = [
            pr.roc_auc(float_log, by=by, weight=weight),
            pr.pr_average_precision(float_log, by=by, weight=weight),
            pr.confusion_matrix(float_log, [0.3, 0.6], by=by, weight=weight),
            pr.roc_curve(float_log, by=by, weight=weight),
            pr.pr_curve(float_log, by=by, weight=weight),
        ]
        frames.append(pr.ks_statistic(float_log, by=by, weight=weight))
        expressions = [
            pr.auc(weight=weight),
            pr.average_precision(weight=weight),
            pr.gini(weight=weight),
            pr.ks(weight=weight),
        ]
        exprs = (
            float_log.group_by("g").agg(expressions).sort("g")
            if by
            else float_log.select(expressions)
        )
        return tuple(tuple(map(tuple, f.rows())) for f in [*frames, exprs])

    first = once()
    for _ in range(25):
        assert once() == first


def test_weighted_bootstrap_is_identical_run_to_run(weighted_log: pl.DataFrame) -> None:
    # The resampling cells' weight sums add in row order (issue 17, defect 3).
    def once() -> tuple:
        result = pr.roc_auc(weighted_log, by="g", weight="w", ci="bootstrap", n_boot=50, seed=3)
        return tuple(result.select("auc_se", "ci_lower", "ci_upper").rows())

    first = once()
    for _ in range(6):
        assert once() == first


@pytest.fixture(scope="module")
def continuous_log() -> pl.DataFrame:
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


@pytest.mark.parametrize("chunk_rows", [None, 15_000], ids=["one slice", "slices"])
@pytest.mark.parametrize("bins", [16, 4096])
@pytest.mark.parametrize("by", [None, "g"])
def test_binned_weighted_results_are_identical_run_to_run(
    continuous_log: pl.DataFrame, monkeypatch: pytest.MonkeyPatch, by, bins, chunk_rows
) -> None:
    # Issue 24: bins= with weight= gave a different AUC and n_pos on each call (cells'
    # weight sums added in hash order). Slices: weights still add in row order.
    if chunk_rows is not None:
        monkeypatch.setattr(bucket_arrays, "CHUNK_ROWS", chunk_rows)

    def once() -> tuple:
        auc = pr.roc_auc(continuous_log, by=by, weight="w", bins=bins)
        curve = pr.roc_curve(continuous_log.lazy(), by=by, weight="w", bins=bins).collect()
        return auc.rows(), curve.rows()

    first = once()
    for _ in range(3):
        assert once() == first


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

    df = _probability_log()
    tied = df.with_columns(pl.col("score").round(2)).to_arrow()  # cells of many rows
    duckdb.execute(f"SET threads = {pl.thread_pool_size()}")
    # DuckDB's threads take batches (of a table: of 122,880 rows)
    relation = duckdb.from_arrow(pa.Table.from_batches(tied.to_batches(max_chunksize=5_000)))
    cases: dict[str, Callable[[], object]] = {}
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


@pytest.mark.parametrize("case", CALIBRATION_CASES)
def test_calibration_views_are_identical_for_any_number_of_threads(digests, case: str) -> None:
    # Sums of scores per bin are exact (integer arithmetic; float weights by exponent
    # block), so the order in which threads add them cannot show in the last bits; DuckDB
    # sums a cell's weights in thread order too, so its float weights are summed by
    # exponent block as well.
    assert len(digests[case]) == 1


def _digest(frames) -> str:
    """A digest per frame; ``repr`` writes each float's shortest round trip, so a change
    in the last bit changes it."""
    frames = frames if isinstance(frames, tuple) else (frames,)
    return " ".join(
        hashlib.sha256(repr((f.schema, f.rows())).encode()).hexdigest()[:16] for f in frames
    )


def _print_digests(cases: dict[str, Callable[[], object]]) -> None:
    for name, case in cases.items():
        print(f"{name}\t{_digest(case())}")


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
            [sys.executable, "-c", script],
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
            name, digest = line.split("\t")
            digests[name].update(digest.split())
    return digests
