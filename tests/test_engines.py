"""Frames of other engines (through narwhals): DuckDB counts, polars_roc does the rest.

Every view on a DuckDB relation must equal the same view on the Polars frame of the
same rows: ties, segments with nulls, one-class segments, count tables, empty input,
and the same errors.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install '.[duckdb]')")
pytest.importorskip("pyarrow", reason="pyarrow (DuckDB -> Polars) is not installed")


def make_log(seed: int = 0, n: int = 600) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    segment = rng.choice(["a", "b", "c", None], size=n).tolist()
    log = pl.DataFrame({
        "segment": pl.Series(segment, dtype=pl.String),
        "score": np.round(rng.normal(label * 0.8, 1.0), 1),
        "challenger": np.round(rng.normal(label * 0.5, 1.0), 1),
        "label": label,
        "n": rng.integers(0, 4, size=n),
        "w": np.where(rng.random(n) < 0.1, 0.0, rng.gamma(2.0, 0.7, size=n)),
    })  # fmt: skip
    solo = pl.DataFrame({"segment": ["solo"] * 2, "score": [0.1, 0.3], "challenger": [0.2, 0.1],
                         "label": [1, 1], "n": [1, 2], "w": [0.5, 1.5]})  # fmt: skip
    return pl.concat([log, solo], how="vertical_relaxed")


def relation(frame: pl.DataFrame) -> object:
    """A DuckDB relation holding ``frame``'s rows."""
    connection = duckdb.connect()
    connection.register("log_frame", frame.to_arrow())
    return connection.sql("SELECT * FROM log_frame")


VIEWS: dict[str, Callable[..., pl.DataFrame]] = {
    "score_table": lambda f, **kw: pr.score_table(f, **kw),
    "curve": lambda f, **kw: pr.roc_curve(f, **kw),
    "auc": lambda f, **kw: pr.roc_auc(f, **kw),
    "auc_delong": lambda f, **kw: pr.roc_auc(f, ci="delong", **kw),
    "auc_bootstrap": lambda f, **kw: pr.roc_auc(f, ci="bootstrap", n_boot=50, seed=2, **kw),
    "auc_lower": lambda f, **kw: pr.roc_auc(f, direction="lower", **kw),
    "confusion": lambda f, **kw: pr.confusion_matrix(f, [0.0, 0.5], **kw),
    "pr_curve": lambda f, **kw: pr.pr_curve(f, **kw),
    "gains": lambda f, **kw: pr.gains_table(f, 4, **kw),
    "hull": lambda f, **kw: pr.roc_hull(f, **kw),
    "best_threshold": lambda f, **kw: pr.best_threshold(f, "youden", **kw),
    "ks": lambda f, **kw: pr.ks_statistic(f, **kw),
    "compare": lambda f, **kw: pr.compare(f, ["score", "challenger"], **kw),
}


def quietly(call: Callable[[], pl.DataFrame]) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return call()


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("count", [None, "n"])
def test_duckdb_relation_equals_the_polars_frame(name: str, count: str | None) -> None:
    log = make_log()
    view = VIEWS[name]
    expected = quietly(lambda: view(log, by="segment", count=count))
    result = quietly(lambda: view(relation(log), by="segment", count=count))
    assert isinstance(result, pl.DataFrame)
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


def test_one_class_segment_warns_as_on_polars() -> None:
    with pytest.warns(UserWarning, match=r"1 group\(s\) \[segment='solo'\] hold only one class"):
        pr.roc_auc(relation(make_log()), by="segment")


def test_empty_relation_gives_the_empty_schema() -> None:
    empty = make_log().head(0)
    assert_frame_equal(pr.roc_auc(relation(empty), by="segment"),
                       pr.roc_auc(empty, by="segment"))  # fmt: skip


def test_errors_name_the_column() -> None:
    log = make_log()
    missing = pl.exceptions.ColumnNotFoundError
    with pytest.raises(missing, match=r"column 'scor' not found.*'score'"):
        pr.roc_auc(relation(log), score="scor")
    with pytest.raises(RocInputError, match=r"label column 'segment' has dtype String"):
        pr.roc_auc(relation(log), label="segment")
    with pytest.raises(RocInputError, match=r"score column 'score' has 1 NaN value"):
        pr.roc_auc(relation(pl.DataFrame({"score": [0.1, float("nan"), 0.3],
                                          "label": [0, 1, 1]})))  # fmt: skip
    with pytest.raises(RocOptionError, match=r"pass either weight= or count=, not both"):
        pr.roc_auc(relation(log), weight="w", count="n")
    with pytest.raises(TypeError, match=r"a frame of an engine narwhals supports .* got list"):
        pr.roc_auc([1, 2, 3])  # type: ignore[arg-type]


WEIGHTED = [name for name in VIEWS if name not in ("auc_delong", "compare")]


@pytest.mark.parametrize("name", WEIGHTED)
def test_weighted_relation_equals_the_polars_frame(name: str) -> None:
    """The engine sums the weights per cell and counts the cell's rows of positive
    weight: point estimates and the weighted bootstrap (draw for draw) match."""
    log = make_log(3)
    view = VIEWS[name]
    expected = quietly(lambda: view(log, by="segment", weight="w"))
    result = quietly(lambda: view(relation(log), by="segment", weight="w"))
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


def test_weighted_relation_refuses_bad_weights_as_polars_does() -> None:
    log = pl.DataFrame({"score": [0.1, 0.2, 0.3, 0.4], "label": [0, 1, 0, 1],
                        "w": [1.0, 2.0, -1.0, 1.0]})  # fmt: skip
    # A negative weight is refused even when its cell's sum is positive.
    hidden = log.with_columns(score=pl.lit(0.5))
    for frame in (log, hidden):
        with pytest.raises(RocInputError, match=r"weight column 'w' has 1 negative, NaN or inf"):
            pr.roc_auc(relation(frame), weight="w")
    nulls = log.with_columns(w=pl.Series([1.0, None, 3.0, 1.0]), score=pl.lit(0.5))
    with pytest.raises(RocInputError, match=r"weight column 'w' has 1 null value\(s\)"):
        pr.roc_auc(relation(nulls), weight="w")
    dropped = nulls.with_columns(score=pl.Series([0.1, 0.2, 0.3, 0.4]), w=pl.col("w").abs())
    assert_frame_equal(pr.roc_auc(relation(dropped), weight="w", nulls="drop"),
                       pr.roc_auc(dropped, weight="w", nulls="drop"))  # fmt: skip
    with pytest.raises(RocInputError, match=r"weight column 'segment' must be numeric"):
        pr.roc_auc(relation(make_log()), weight="segment")
    with pytest.raises(ValueError, match=r"with DeLong's method does not support weights"):
        pr.roc_auc(relation(log.with_columns(w=pl.lit(1.0))), weight="w", ci="delong")
