"""Float weights give the same numbers on every run (sums always add in one order).

Polars' hash aggregations add floats in a thread-dependent order; the library must not
let that leak into its results.
"""

from __future__ import annotations

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


@pytest.fixture(scope="module")
def probability_log() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    n = 400_000
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


@pytest.mark.parametrize(("view", "unit"), UNITS)
def test_calibration_views_are_identical_run_to_run(
    probability_log: pl.DataFrame, view: str, unit
) -> None:
    # Sums of scores per bin are exact (integer arithmetic; float weights by exponent
    # block), so the order in which threads add them cannot show in the last bits.
    mass = {"weight" if unit == "w" else "count": unit}

    def once() -> pl.DataFrame:
        return CALIBRATION_VIEWS[view](probability_log, by="g", **mass)

    first = once()
    for _ in range(4):
        assert once().equals(first)


@pytest.mark.parametrize("weight", [None, "w"])
def test_weighted_gains_table_is_identical_run_to_run(probability_log: pl.DataFrame, weight):
    # A bin's sums add its scores in order (a hash aggregation added them in thread order).
    first = pr.gains_table(probability_log, by="g", weight=weight)
    for _ in range(4):
        assert pr.gains_table(probability_log, by="g", weight=weight).equals(first)


@pytest.fixture(scope="module")
def tied_relation(probability_log: pl.DataFrame):
    duckdb = pytest.importorskip("duckdb")
    tied = probability_log.with_columns(pl.col("score").round(2))  # cells of many rows
    return duckdb.from_arrow(tied.to_arrow())


DUCKDB_VIEWS = {
    "curve": lambda r, **k: pr.calibration_curve(r, **k),
    "curve grade": lambda r, **k: pr.calibration_curve(r, grade="grade", **k),
    "curve quantile": lambda r, **k: pr.calibration_curve(r, strategy="quantile", **k),
    "brier": lambda r, **k: pr.brier_decomposition(r, **k),
    "gains": lambda r, **k: pr.gains_table(r, **k),
    "auc": lambda r, **k: pr.roc_auc(r, **k),
}


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("view", list(DUCKDB_VIEWS))
def test_views_of_duckdb_are_identical_run_to_run(tied_relation, view: str, weight) -> None:
    # DuckDB sums a cell's weights in thread order too: its float weights are summed by
    # exponent block as well.
    first = DUCKDB_VIEWS[view](tied_relation, by="g", weight=weight)
    for _ in range(3):
        assert DUCKDB_VIEWS[view](tied_relation, by="g", weight=weight).equals(first)


_THREADS_SCRIPT = """
import sys
import numpy as np, polars as pl, polars_roc as pr
rng = np.random.default_rng(0)
n = 300_000
df = pl.DataFrame({"score": rng.random(n), "label": rng.integers(0, 2, n),
    "g": rng.integers(0, 50, n), "grade": rng.integers(0, 7, n), "w": rng.random(n) * 3})
tied = df.with_columns(pl.col("score").round(2))
frames = [
    pr.calibration_curve(df, by="g", weight="w"),
    pr.calibration_curve(df.lazy(), by="g", weight="w", grade="grade").collect(),
    pr.calibration_error(df, by="g", weight="w"),
    pr.grade_summary(df, grade="grade", by="g", weight="w"),
    pr.gains_table(tied, by="g", weight="w"),
]
sys.stdout.write("".join(f.write_csv(float_precision=17) for f in frames))
"""


def _outputs_per_thread_count(script: str) -> set[bytes]:
    """The distinct outputs of ``script`` run in a process per thread count (Polars'
    pool size is fixed at import)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    package_root = str(Path(pr.__file__).resolve().parents[1])
    outputs = set()
    for threads in ("1", "2", "3"):
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": package_root}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, check=True
        )
        outputs.add(done.stdout)
    return outputs


def test_weighted_views_are_identical_for_any_number_of_threads() -> None:
    # The bins' float sums moved with the threads (and between runs on one thread:
    # streaming morsels).
    assert len(_outputs_per_thread_count(_THREADS_SCRIPT)) == 1


@pytest.fixture(scope="module")
def class_log() -> pl.DataFrame:
    rng = np.random.default_rng(5)
    n, k = 60_000, 5
    probabilities = rng.dirichlet(np.ones(k), n)
    label = rng.integers(0, k, n)
    return pl.DataFrame(
        {
            **{f"p{i}": probabilities[:, i] for i in range(k)},
            "label": label,
            "hit": label == 0,
            "g": rng.integers(0, 3, n),
            "w": rng.random(n) * 3,
            "fold": rng.integers(0, 10, n),
        }
    )


@pytest.fixture(scope="module")
def period_log() -> pl.DataFrame:
    rng = np.random.default_rng(5)
    n = 60_000
    return pl.DataFrame(
        {
            "score": rng.random(n),
            "g": rng.integers(0, 50, n),
            "month": rng.integers(1, 7, n),
            "x": rng.normal(size=n),
            "cat": rng.choice(["a", "b", "c", "d"], n),
            "w": rng.random(n) * 3,
            "c": rng.integers(1, 5, n),
        }
    )


CLASS_SCORES = {i: f"p{i}" for i in range(5)}
# Every view that averages or sums floats across classes, pairs, folds, replicates,
# curves or (weighted) rows of a cell.
EVALUATION_VIEWS = {
    "auc ovr": lambda df, **k: pr.multiclass_auc(df, CLASS_SCORES, **k),
    "auc ovr weighted": lambda df, **k: pr.multiclass_auc(
        df, CLASS_SCORES, average="weighted", **k
    ),
    "auc hand_till": lambda df, **k: pr.multiclass_auc(df, CLASS_SCORES, method="hand_till", **k),
    "auc hand_till weighted": lambda df, **k: pr.multiclass_auc(
        df, CLASS_SCORES, method="hand_till", average="weighted", **k
    ),
    "auc one score": lambda df, **k: pr.multiclass_auc(
        df, score="p0", classes=list(CLASS_SCORES), direction="higher", **k
    ),
    "measures": lambda df, **k: pr.multiclass_measures(df, CLASS_SCORES, **k),
    "measures macro": lambda df, **k: pr.multiclass_measures(
        df, CLASS_SCORES, average="macro", **k
    ),
    "measures weighted": lambda df, **k: pr.multiclass_measures(
        df, CLASS_SCORES, average="weighted", **k
    ),
    "measures micro": lambda df, **k: pr.multiclass_measures(
        df, CLASS_SCORES, average="micro", **k
    ),
    "confusion": lambda df, **k: pr.multiclass_confusion(df, CLASS_SCORES, normalize="true", **k),
    "agreement": lambda df, **k: pr.multiclass_agreement(
        df, CLASS_SCORES, kappa_weights="quadratic", **k
    ),
    "fold_summary": lambda df, **k: pr.fold_summary(
        df, score="p0", label="hit", threshold=0.2, **k
    ),
    "bootstrap632_summary": lambda df, **k: pr.bootstrap632_summary(
        pr.folds(df.head(5_000).drop("fold"), method="bootstrap", repeats=20, seed=1),
        score="p0",
        label="hit",
        threshold=0.2,
        **k,
    ),
    "average_curve": lambda df, **k: pr.average_curve(df, score="p0", label="hit", grid=21, **k),
    "average_curve threshold": lambda df, **k: pr.average_curve(
        df, score="p0", label="hit", method="threshold", grid=21, **k
    ),
}


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("by", [None, "g"])
@pytest.mark.parametrize("view", list(EVALUATION_VIEWS))
def test_evaluation_views_are_identical_run_to_run(
    class_log: pl.DataFrame, view: str, by, weight
) -> None:
    # Means and sums over classes, pairs, folds and curves add in their order (a grouped
    # mean added the threads' partial sums in the order they came).
    first = EVALUATION_VIEWS[view](class_log, by=by, weight=weight)
    for _ in range(4):
        assert EVALUATION_VIEWS[view](class_log, by=by, weight=weight).equals(first)


_EVALUATION_SCRIPT = """
import sys
import numpy as np, polars as pl, polars_roc as pr
rng = np.random.default_rng(1)
n = 60_000
p = rng.dirichlet(np.ones(4), n)
label = rng.integers(0, 4, n)
df = pl.DataFrame({**{f"p{i}": p[:, i] for i in range(4)}, "label": label,
    "hit": label == 0, "g": rng.integers(0, 3, n), "w": rng.random(n) * 3,
    "fold": rng.integers(0, 10, n)})
scores = {i: f"p{i}" for i in range(4)}
boot = pr.folds(df.head(5_000).drop("fold"), method="bootstrap", repeats=20, seed=1)
frames = []
for by in (None, "g"):
    for w in (None, "w"):
        frames += [
            pr.multiclass_auc(df, scores, by=by, weight=w),
            pr.multiclass_auc(df, scores, by=by, weight=w, method="hand_till", average="weighted"),
            pr.multiclass_measures(df, scores, by=by, weight=w, average="macro"),
            pr.multiclass_measures(df, scores, by=by, weight=w, average="weighted"),
            pr.multiclass_agreement(df, scores, by=by, weight=w),
            pr.fold_summary(df, score="p0", label="hit", by=by, weight=w, threshold=0.2),
            pr.bootstrap632_summary(boot, score="p0", label="hit", by=by, weight=w),
            pr.average_curve(df, score="p0", label="hit", by=by, weight=w, grid=21),
        ]
sys.stdout.write("".join(f.write_csv(float_precision=17) for f in frames))
"""


LABEL_FREE_VIEWS = {
    "psi": lambda f, **k: pr.psi(f, "month", **k),
    "psi columns": lambda f, **k: pr.psi(f, "month", columns=["x", "cat"], **k),
    "psi detail": lambda f, **k: pr.psi(f, "month", columns="x", detail=True, **k),
    "estimated_auc": lambda f, **k: pr.estimated_auc(f, period="month", **k),
    "estimated_auc bins": lambda f, **k: pr.estimated_auc(f, period="month", bins=100, **k),
    "estimated_confusion": lambda f, **k: pr.estimated_confusion(f, [0.3, 0.5], **k),
}


def _units(unit: str | None) -> dict[str, str]:
    return {} if unit is None else {"weight" if unit == "w" else "count": unit}


@pytest.mark.parametrize("unit", [None, "w", "c"])
@pytest.mark.parametrize("view", list(LABEL_FREE_VIEWS))
def test_label_free_views_are_identical_run_to_run(period_log: pl.DataFrame, view, unit) -> None:
    # PSI added its bins' terms in the hash order of its grid (every call, weights or
    # not); weighted rows per distinct value were a float sum in thread order.
    tied = period_log.with_columns(pl.col("score").round(3))  # the exact path: few scores
    frame = tied if view.startswith("estimated") and "bins" not in view else period_log

    def once() -> pl.DataFrame:
        return LABEL_FREE_VIEWS[view](frame, by="g", **_units(unit))

    first = once()
    for _ in range(2):
        assert once().equals(first)
    lazy = LABEL_FREE_VIEWS[view](frame.lazy(), by="g", **_units(unit))
    assert lazy.collect(engine="streaming").equals(first)


@pytest.mark.parametrize("unit", [None, "w", "c"])
@pytest.mark.parametrize("view", ["psi", "psi columns"])
def test_label_free_views_of_duckdb_are_identical_run_to_run(period_log, view, unit) -> None:
    # PSI's bins of DuckDB's cells added in the hash order of its grid; its answers
    # are Polars' bits.
    duckdb = pytest.importorskip("duckdb")
    relation = duckdb.from_arrow(period_log.to_arrow())
    first = LABEL_FREE_VIEWS[view](relation, by="g", **_units(unit))
    for _ in range(2):
        assert LABEL_FREE_VIEWS[view](relation, by="g", **_units(unit)).equals(first)
    assert first.equals(LABEL_FREE_VIEWS[view](period_log, by="g", **_units(unit)))


_LABEL_FREE_SCRIPT = """
import sys
import numpy as np, polars as pl, polars_roc as pr
rng = np.random.default_rng(1)
n = 60_000
df = pl.DataFrame({"score": rng.random(n), "g": rng.integers(0, 50, n),
    "month": rng.integers(1, 7, n), "w": rng.random(n) * 3})
tied = df.with_columns(pl.col("score").round(3))
frames = [
    pr.psi(df, "month", by="g"),
    pr.psi(df.lazy(), "month", weight="w").collect(),
    pr.psi(df, "month", by="g", weight="w", detail=True),
    pr.estimated_auc(tied, by="g", weight="w"),
    pr.estimated_confusion(tied.lazy(), [0.3, 0.5], weight="w").collect(engine="streaming"),
]
sys.stdout.write("".join(f.write_csv(float_precision=17) for f in frames))
"""


def test_evaluation_views_are_identical_for_any_number_of_threads() -> None:
    # Polars 1.35's grouped mean and std of the folds moved with the threads.
    assert len(_outputs_per_thread_count(_EVALUATION_SCRIPT)) == 1


def test_label_free_views_are_identical_for_any_number_of_threads() -> None:
    assert len(_outputs_per_thread_count(_LABEL_FREE_SCRIPT)) == 1


@pytest.mark.parametrize("unit", [None, "w"])
def test_estimated_buckets_do_not_depend_on_the_order_of_the_cells(
    period_log: pl.DataFrame, monkeypatch: pytest.MonkeyPatch, unit
) -> None:
    # An engine's GROUP BY returns the cells per distinct score in thread order, and
    # the buckets add their weights in the order they come.
    duckdb = pytest.importorskip("duckdb")
    from polars_roc.core import counting

    relation = duckdb.from_arrow(period_log.to_arrow())
    count_values = counting.count_values

    def estimated(seed: int) -> pl.DataFrame:
        def shuffled(*args, **kwargs) -> pl.LazyFrame:
            cells = count_values(*args, **kwargs).collect()
            return cells.sample(fraction=1.0, shuffle=True, seed=seed).lazy()

        monkeypatch.setattr(counting, "count_values", shuffled)
        return LABEL_FREE_VIEWS["estimated_auc bins"](relation, by="g", **_units(unit))

    assert estimated(1).equals(estimated(2))
