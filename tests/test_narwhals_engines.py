"""Frames of Dask, Ibis (DuckDB backend) and SQLFrame (DuckDB backend), through narwhals.

Each engine's frame must give what the Polars frame of the same rows gives: the score
table, the curve, the AUC with DeLong's interval, confusion matrices; with tied scores,
weights, a null segment, a one-class segment (the same warning), empty input, and the
same errors for a missing column or a null score. Each engine is skipped, saying why,
when its package is not installed (the ``engines`` extra installs them all).

Dask has no rank within windows in narwhals: its AUC takes the ``GROUP BY`` count
(``ranks_in_windows``), Ibis and SQLFrame the bucketed count with rank windows. PyArrow
tables (eager, no rank windows either) run the same tests.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.engine_counts import ranks_in_windows
from polars_roc.exceptions import RocInputError

# narwhals announces that its Dask support moves to a separate package; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:Dask support is moving:FutureWarning")


def dask_frame(frame: pl.DataFrame) -> Any:
    dd = pytest.importorskip(
        "dask.dataframe", reason="dask is not installed (pip install '.[engines]')"
    )
    return dd.from_pandas(frame.to_pandas(), npartitions=2)


def ibis_frame(frame: pl.DataFrame) -> Any:
    ibis = pytest.importorskip("ibis", reason="ibis is not installed (pip install '.[engines]')")
    pytest.importorskip("duckdb", reason="ibis' DuckDB backend needs duckdb")
    return ibis.memtable(frame.to_arrow())


_SQLFRAME: list[Any] = []  # the DuckDB connection and SQLFrame session (one per process)


def sqlframe_frame(frame: pl.DataFrame) -> Any:
    duckdb_session = pytest.importorskip(
        "sqlframe.duckdb", reason="sqlframe is not installed (pip install '.[engines]')"
    )
    import duckdb

    if not _SQLFRAME:
        # SQLFrame keeps the first session it is given: one connection for all tables.
        connection = duckdb.connect()
        _SQLFRAME.extend([connection, duckdb_session.DuckDBSession(conn=connection)])
    connection, session = _SQLFRAME[:2]
    # A table of the database, as a log would be: SQLFrame copies its query tree at every
    # step, and rows inlined by createDataFrame would make each copy as large as the data.
    name = f"log_{len(_SQLFRAME)}"
    _SQLFRAME.append(name)
    connection.register("rows", frame.to_arrow())
    connection.execute(f"CREATE TABLE {name} AS SELECT * FROM rows")
    connection.unregister("rows")
    return session.table(name)


@pytest.fixture(scope="module", autouse=True)
def stop_sqlframe() -> Iterator[None]:
    """Stop the SQLFrame session after the module: a DuckDB connection left open at exit
    makes DuckDB's bindings print a page of 'leaked' objects."""
    yield
    if _SQLFRAME:
        _SQLFRAME[1].stop()
        _SQLFRAME.clear()


def arrow_table(frame: pl.DataFrame) -> Any:
    pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    return frame.to_arrow()


ENGINES: dict[str, Callable[[pl.DataFrame], Any]] = {
    "dask": dask_frame,
    "ibis": ibis_frame,
    "sqlframe": sqlframe_frame,
    # An eager frame narwhals knows too, without rank windows either. (pandas gives the
    # same tables, but narwhals warns that the bucketed AUC's aggregations are slow there.)
    "pyarrow": arrow_table,
}


_FOUND: set[str] = set()  # the engines installed, tried once each


@pytest.fixture(params=list(ENGINES))
def engine(request: pytest.FixtureRequest) -> Callable[[pl.DataFrame], Any]:
    make = ENGINES[request.param]
    if request.param not in _FOUND:
        make(pl.DataFrame({"score": [0.5]}))  # skips here, with the reason, when absent
        _FOUND.add(request.param)
    return make


def make_log(seed: int = 0, n: int = 300) -> pl.DataFrame:
    """Rounded scores (ties), a null segment, weights and a segment of negatives only."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    log = pl.DataFrame(
        {
            "segment": pl.Series(rng.choice(["a", "b", None], size=n).tolist(), dtype=pl.String),
            "score": np.round(rng.normal(label * 0.8, 1.0), 1),
            "challenger": np.round(rng.normal(label * 0.5, 1.0), 1),
            "label": label,
            "w": rng.gamma(2.0, 0.7, size=n),
        }
    )
    solo = pl.DataFrame(
        {
            "segment": ["solo"] * 3,
            "score": [0.1, 0.3, 0.3],
            "challenger": [0.2, 0.2, 0.1],
            "label": [0, 0, 0],
            "w": 1.0,
        }
    )
    return pl.concat([log, solo])


VIEWS: dict[str, Callable[..., Any]] = {
    "score_table": lambda f, **kw: pr.score_table(f, **kw),
    "curve": lambda f, **kw: pr.roc_curve(f, **kw),
    "auc": lambda f, **kw: pr.roc_auc(f, **kw),
    # DeLong's interval with a lower-is-positive score: both in one call, for time.
    "auc_delong": lambda f, **kw: pr.roc_auc(f, ci="delong", direction="lower", **kw),
    "confusion": lambda f, **kw: pr.confusion_matrix(f, [-0.5, 0.3, 1.0], **kw),
}
# More views, compared on the full log only.
MORE_VIEWS: dict[str, Callable[..., Any]] = {
    "pr_curve": lambda f, **kw: pr.pr_curve(f, **kw),
    "gains": lambda f, **kw: pr.gains_table(f, 4, **kw),
    "best_threshold": lambda f, **kw: pr.best_threshold(f, "youden", **kw),
    "compare": lambda f, **kw: pr.compare(f, ["score", "challenger"], **kw),
}


def with_warnings(call: Callable[[], Any]) -> tuple[Any, list[str]]:
    """The result of ``call`` and the messages of the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", "Dask support is moving", FutureWarning)
        result = call()
    return result, [str(w.message) for w in caught]


def assert_same(result: Any, expected: pl.DataFrame) -> None:
    assert isinstance(result, pl.DataFrame)
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("name", [*VIEWS, *MORE_VIEWS])
def test_engine_frame_equals_the_polars_frame(
    engine: Callable[[pl.DataFrame], Any], name: str
) -> None:
    log = make_log()
    view = {**VIEWS, **MORE_VIEWS}[name]
    expected, expected_warnings = with_warnings(lambda: view(log, by="segment"))
    result, result_warnings = with_warnings(lambda: view(engine(log), by="segment"))
    assert_same(result, expected)
    assert result_warnings == expected_warnings
    if name.startswith("auc"):  # the one-class segment is named in the same warning
        assert any("[segment='solo'] hold only one class" in m for m in result_warnings)


@pytest.mark.parametrize("name", ["score_table", "curve", "auc", "confusion"])
def test_weighted_engine_frame_equals_the_polars_frame(
    engine: Callable[[pl.DataFrame], Any], name: str
) -> None:
    log = make_log(1)
    view = VIEWS[name]
    expected, _ = with_warnings(lambda: view(log, by="segment", weight="w"))
    result, _ = with_warnings(lambda: view(engine(log), by="segment", weight="w"))
    assert isinstance(result, pl.DataFrame)
    # Weight sums are added in another order by the engine: equal to rounding.
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("name", ["auc", "confusion"])
def test_float_counts_give_the_integer_counts_frame(
    engine: Callable[[pl.DataFrame], Any], name: str
) -> None:
    # pyarrow refused any Float64 count, compared with the integer 2**63 - 1.
    log = make_log(1).with_columns(n=(pl.col("w") * 3).round(0))
    view = VIEWS[name]
    expected, _ = with_warnings(
        lambda: view(log.with_columns(pl.col("n").cast(pl.Int64)), count="n")
    )
    result, _ = with_warnings(lambda: view(engine(log), count="n"))
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-12)


def test_auc_matches_scikit_learn(engine: Callable[[pl.DataFrame], Any]) -> None:
    """An independent reference, besides the Polars path."""
    from sklearn.metrics import roc_auc_score

    log = make_log(2).filter(pl.col("segment") != "solo")
    expected = roc_auc_score(log["label"], log["score"], sample_weight=log["w"])
    result = pr.roc_auc(engine(log), weight="w")
    assert result["auc"].item() == pytest.approx(expected, rel=1e-12)
    unweighted = roc_auc_score(log["label"], log["score"])
    assert pr.roc_auc(engine(log))["auc"].item() == pytest.approx(unweighted, rel=1e-12)


@pytest.mark.parametrize("name", list(VIEWS))
def test_empty_engine_frame_gives_the_polars_result(
    engine: Callable[[pl.DataFrame], Any], name: str
) -> None:
    empty = make_log().head(0)
    view = VIEWS[name]
    assert_same(view(engine(empty), by="segment"), view(empty, by="segment"))


def test_missing_column_is_named_with_the_likely_name(
    engine: Callable[[pl.DataFrame], Any],
) -> None:
    log = make_log()
    missing = pl.exceptions.ColumnNotFoundError
    for view in (VIEWS["auc"], VIEWS["curve"], VIEWS["confusion"]):
        # The Polars path names the role too ("score column 'scor'"); the engine's
        # check, before any query runs, names the column and the likely one.
        with pytest.raises(missing, match=r"column 'scor' not found in the .*'score'"):
            view(log, score="scor")
        with pytest.raises(missing, match=r"column 'scor' not found in the .*'score'"):
            view(engine(log), score="scor")
        with pytest.raises(missing, match=r"column 'segmnt' not found in the .*'segment'"):
            view(engine(log), by="segmnt")


# The curve and confusion count cells (GROUP BY), the AUC with DeLong ranks in windows
# (where the engine has them): both paths check the values.
@pytest.mark.parametrize("name", ["curve", "auc_delong", "confusion"])
def test_null_score_gives_the_polars_error_and_drop(
    engine: Callable[[pl.DataFrame], Any], name: str
) -> None:
    log = make_log().with_columns(
        score=pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(pl.col("score"))
    )
    view = VIEWS[name]
    with pytest.raises(RocInputError) as polars_error:
        view(log)
    with pytest.raises(RocInputError, match=r"score column 'score' has 1 null value\(s\)") as err:
        view(engine(log))
    assert str(err.value) == str(polars_error.value)
    expected, _ = with_warnings(lambda: view(log, by="segment", nulls="drop"))
    result, _ = with_warnings(lambda: view(engine(log), by="segment", nulls="drop"))
    assert_same(result, expected)


def test_which_engines_rank_in_windows(engine: Callable[[pl.DataFrame], Any]) -> None:
    """Dask and PyArrow have no rank in windows (narwhals): their AUC comes from the
    GROUP BY count, the others' from the bucketed count; the results above are the same
    either way."""
    frame = engine(make_log())
    assert ranks_in_windows(frame) == (engine not in (dask_frame, arrow_table))


def test_binned_auc_of_an_engine_frame_holds_the_exact_auc(
    engine: Callable[[pl.DataFrame], Any],
) -> None:
    """bins= on every engine: buckets cut in the engine where it has windows per group,
    else the GROUP BY count binned by Polars (then equal to the Polars path); either
    way the exact AUC lies within auc +- auc_bound."""
    log = make_log(5, n=400).with_columns(pl.col("score") + pl.col("challenger") / 7)
    exact, _ = with_warnings(lambda: pr.roc_auc(log, by="segment"))
    binned, _ = with_warnings(lambda: pr.roc_auc(engine(log), by="segment", bins=8))
    polars_binned, _ = with_warnings(lambda: pr.roc_auc(log, by="segment", bins=8))
    assert binned["segment"].to_list() == exact["segment"].to_list()
    assert binned.select("n_pos", "n_neg").equals(exact.select("n_pos", "n_neg"))
    both = binned.with_columns(exact=exact["auc"]).drop_nulls("auc")
    assert both.height == 3  # a, b and the null segment; "solo" has no pairs
    assert ((both["auc"] - both["exact"]).abs() <= both["auc_bound"] + 1e-12).all()
    assert (both["auc_bound"] > 0).all()  # 8 buckets of ~130 distinct scores: a bound
    if not ranks_in_windows(engine(log)):
        assert_same(binned, polars_binned)
