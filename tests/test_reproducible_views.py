"""The evaluation and label-free views give the same bits on every run and for any
number of threads: multi-class AUC and measures, folds, the .632 bootstrap, averaged
curves, PSI and the estimated views (their sums add in one order)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import product

import numpy as np
import polars as pl
import pytest

import polars_roc as pr
from tests.test_reproducible import _digests_per_thread_count


def _class_log() -> pl.DataFrame:
    rng = np.random.default_rng(5)
    n, k = 15_000, 5
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


def _period_log() -> pl.DataFrame:
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


EVALUATION_CASES = {
    f"{view}-{by}-{weight}": (view, by, weight)
    for view, by, weight in product(EVALUATION_VIEWS, [None, "g"], [None, "w"])
}


LABEL_FREE_VIEWS = {
    "psi": lambda f, **k: pr.psi(f, "month", **k),
    "psi columns": lambda f, **k: pr.psi(f, "month", columns=["x", "cat"], **k),
    "psi detail": lambda f, **k: pr.psi(f, "month", columns="x", detail=True, **k),
    "estimated_auc": lambda f, **k: pr.estimated_auc(f, period="month", **k),
    "estimated_auc bins": lambda f, **k: pr.estimated_auc(f, period="month", bins=100, **k),
    "estimated_confusion": lambda f, **k: pr.estimated_confusion(f, [0.3, 0.5], **k),
}


UNITS = [None, "w", "c"]


def _units(unit: str | None) -> dict[str, str]:
    return {} if unit is None else {"weight" if unit == "w" else "count": unit}


# Unweighted, the rows per distinct value are counted exactly: only PSI's grid order showed.
LABEL_FREE_CASES = {
    **{f"{view}-{unit}": (view, unit) for view, unit in product(["psi", "psi columns"], UNITS)},
    **{f"{view}-w": (view, "w") for view in ("psi detail", "estimated_auc", "estimated_confusion")},
}


def _label_free(view: str, frame: pl.DataFrame, unit) -> tuple[pl.DataFrame, ...]:
    """The view of ``frame``, of ``frame`` read by the streaming engine and, for PSI's
    columns, of ``frame`` in DuckDB (its answers are Polars' bits)."""
    import duckdb

    if view.startswith("estimated"):
        frame = frame.with_columns(pl.col("score").round(3))  # the exact path: few scores
    else:  # PSI's grid order shows on any size; a cell's weights in thread order need rows
        frame = frame.head(20_000)
    sources = [frame, frame.lazy()]
    if view in ("psi", "psi columns"):
        duckdb.execute(f"SET threads = {pl.thread_pool_size()}")
        sources.append(duckdb.from_arrow(frame.to_arrow()))
    results = [LABEL_FREE_VIEWS[view](source, by="g", **_units(unit)) for source in sources]
    results[1] = results[1].collect(engine="streaming")
    return tuple(results)


def _cases() -> dict[str, Callable[[], object]]:
    classes, periods = _class_log(), _period_log()
    cases: dict[str, Callable[[], object]] = {
        name: partial(EVALUATION_VIEWS[view], classes, by=by, weight=weight)
        for name, (view, by, weight) in EVALUATION_CASES.items()
    }
    for name, (view, unit) in LABEL_FREE_CASES.items():
        cases[name] = partial(_label_free, view, periods, unit)
    return cases


@pytest.fixture(scope="module")
def digests() -> dict[str, set[str]]:
    pytest.importorskip("duckdb")
    return _digests_per_thread_count(__file__)


@pytest.mark.parametrize("case", [*EVALUATION_CASES, *LABEL_FREE_CASES])
def test_views_are_identical_for_any_number_of_threads(digests, case: str) -> None:
    # Means and sums over classes, pairs, folds and curves add in their order (a grouped
    # mean added the threads' partial sums in the order they came). PSI added its bins'
    # terms in the hash order of its grid; weighted rows per distinct value were a float
    # sum in thread order. A lazy read streamed, and DuckDB, give the same bits.
    assert len(digests[case]) == 1


@pytest.mark.parametrize("unit", [None, "w"])
def test_estimated_buckets_do_not_depend_on_the_order_of_the_cells(
    monkeypatch: pytest.MonkeyPatch, unit
) -> None:
    # An engine's GROUP BY returns the cells per distinct score in thread order, and
    # the buckets add their weights in the order they come.
    duckdb = pytest.importorskip("duckdb")
    from polars_roc.core import counting

    relation = duckdb.from_arrow(_period_log().to_arrow())
    count_values = counting.count_values

    def estimated(seed: int) -> pl.DataFrame:
        def shuffled(*args, **kwargs) -> pl.LazyFrame:
            cells = count_values(*args, **kwargs).collect()
            return cells.sample(fraction=1.0, shuffle=True, seed=seed).lazy()

        monkeypatch.setattr(counting, "count_values", shuffled)
        return LABEL_FREE_VIEWS["estimated_auc bins"](relation, by="g", **_units(unit))

    assert estimated(1).equals(estimated(2))
