"""The evaluation and label-free views give the same bits on every run and for any
number of threads: multi-class AUC and measures, folds, the .632 bootstrap, averaged
curves, PSI and the estimated views (their sums add in one order)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_roc as pr
from tests.test_reproducible import _outputs_per_thread_count


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
