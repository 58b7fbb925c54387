"""The ordinary exact call on a lazy source batches its groups itself when their rows would
not fit (``core/segment_batches.py``): the same frame, warnings and errors as one call."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import polars_roc as pr
from polars_roc.core import segment_batches
from polars_roc.exceptions import RocOptionError


def make_log(seed: int = 0, n: int = 3000) -> pl.DataFrame:
    """Continuous scores (each row its own: the sorting path), ties in a few, a null
    segment, a one-class segment, weights and a second segment column."""
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.3
    seg = rng.integers(0, 12, n)
    score = rng.normal(size=n) + label
    score[:40] = np.round(score[:40])  # some ties, across classes
    return pl.DataFrame(
        {
            "seg": pl.Series(seg).cast(pl.String).replace("11", None),
            "month": rng.integers(1, 3, n).astype(np.int8),
            "score": score,
            "label": label,
            "w": rng.random(n),
        }
    ).with_columns(label=pl.when(pl.col("seg") == "3").then(False).otherwise("label"))


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Memory for a few hundred rows a batch; the batches' row counts, as read."""
    monkeypatch.setenv("POLARS_ROC_MEMORY", str(4 * 50 * 800))  # pairs: 800 rows, table: 571
    read: list[int] = []
    read_batch = segment_batches._read_batch

    def counted(folder: str, number: int) -> pl.DataFrame:
        rows = read_batch(folder, number)
        read.append(rows.height)
        return rows

    monkeypatch.setattr(segment_batches, "_read_batch", counted)
    return read


def one_call(run: Callable[[], pl.LazyFrame | pl.DataFrame]) -> tuple[pl.DataFrame, list[str]]:
    """The collected result of ``run()`` and the warnings it gave."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = run()
        frame = result.collect() if isinstance(result, pl.LazyFrame) else result
    return frame, [f"{w.category.__name__}: {w.message}" for w in seen]


SOURCES: dict[str, Callable[[pl.DataFrame, Path], pl.LazyFrame]] = {
    "lazy": lambda df, _: df.lazy(),
    "parquet": lambda df, tmp: (
        df.write_parquet(tmp / "log.parquet"),
        pl.scan_parquet(tmp / "log.parquet"),
    )[1],
    "computed": lambda df, _: (
        df.lazy().with_columns(score=pl.col("score") * 2 - 1).filter(pl.col("w") > 0.01)
    ),
    "categorical": lambda df, _: df.lazy().with_columns(pl.col("seg").cast(pl.Categorical)),
    # Each row's batch from a table indexed by the segment (a null one, negative values).
    "integer": lambda df, _: df.lazy().with_columns(pl.col("seg").cast(pl.Int16) * 7 - 30),
}


@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize(
    "options",
    [
        {"by": "seg"},
        {"by": "seg", "ci": "delong"},
        {"by": ["seg", "month"], "ci": "delong", "test": True},
        {"by": "seg", "weight": "w"},
        {"by": "seg", "max_fpr": 0.3, "direction": "lower"},
        {"by": "seg", "ci": "bootstrap", "n_boot": 20, "seed": 3},
    ],
)
def test_batched_equals_one_call(
    source: str, options: dict, tmp_path: Path, batches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    lf = SOURCES[source](make_log(1), tmp_path)
    batched, batched_warnings = one_call(lambda: lf.roc.auc(**options))
    assert len(batches) >= 3  # it did batch, a few groups at a time
    monkeypatch.setenv("POLARS_ROC_MEMORY", str(1 << 40))
    del batches[:]
    expected, expected_warnings = one_call(lambda: lf.roc.auc(**options))
    assert batches == []
    assert_frame_equal(batched, expected, check_exact=True)
    assert batched_warnings == expected_warnings
    one_class = "seg=-9" if source == "integer" else "seg='3'"
    assert any(one_class in w for w in expected_warnings)  # the one-class segment, once


def test_batched_auc_is_the_exact_auc(batches: list[int]) -> None:
    log = make_log(2).filter(pl.col("seg").is_not_null() & (pl.col("seg") != "3"))
    result = log.lazy().roc.auc(by="seg").collect()
    assert len(batches) >= 3
    for seg, auc in result.select("seg", "auc").iter_rows():
        rows = log.filter(pl.col("seg") == seg)
        assert auc == pytest.approx(roc_auc_score(rows["label"], rows["score"]), abs=1e-15)


def test_nulls_dropped_and_bad_values_as_one_call(batches: list[int]) -> None:
    log = make_log(3).with_columns(
        score=pl.when(pl.int_range(pl.len()) % 97 == 0).then(None).otherwise("score")
    )
    with pytest.raises(ValueError, match=r"score column 'score' has 31 null") as raised:
        log.lazy().roc.auc(by="seg", ci="delong")
    assert batches == []  # refused by the value pass, before any batch
    with pytest.raises(ValueError) as whole:
        log.lazy().roc.auc(by="seg", ci="delong").collect()
    assert str(raised.value) == str(whole.value)
    with pytest.warns(UserWarning):
        dropped = log.lazy().roc.auc(by="seg", ci="delong", nulls="drop").collect()
    assert len(batches) >= 3
    with pytest.warns(UserWarning):
        expected = log.roc.auc(by="seg", ci="delong", nulls="drop")
    assert_frame_equal(dropped, expected, check_exact=True)


@pytest.mark.parametrize("dtype", [pl.Int64, pl.UInt32, pl.String])
def test_segments_of_no_kept_row_are_left_out(
    dtype: pl.DataType, batches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Segments whose every score is null (nulls="drop"): below, among and above the
    # others, and at the ends of Int64 (then the rows find their batch by a join).
    log = make_log(6).with_columns(pl.col("seg").cast(pl.Int64) * 7 + 30)
    extremes = [-(2**63), 2**63 - 1] if dtype == pl.Int64 else []
    empty = [0, 31, 10**6, *extremes] if dtype != pl.UInt32 else [31, 10**6]
    dropped = pl.DataFrame({"seg": empty, "score": None}, schema_overrides={"score": pl.Float64})
    log = pl.concat(
        [log, dropped.join(log.drop("seg", "score").head(3), how="cross")], how="diagonal"
    )
    for keys in ([], extremes) if extremes else ([],):
        rows = log.filter(~pl.col("seg").is_in(keys)).with_columns(pl.col("seg").cast(dtype))
        with pytest.warns(UserWarning):
            batched = rows.lazy().roc.auc(by="seg", ci="delong", nulls="drop").collect()
        assert len(batches) >= 3
        del batches[:]
        with pytest.warns(UserWarning):
            expected = rows.roc.auc(by="seg", ci="delong", nulls="drop")
        assert_frame_equal(batched, expected, check_exact=True)
        assert batched.height == 11  # the ten segments and the null one


def test_what_is_not_batched(batches: list[int]) -> None:
    log = make_log(4).filter(pl.col("seg") != "3")
    rounded = log.with_columns(pl.col("score").round(0))  # few distinct: counted per score
    float_keys = log.with_columns(pl.col("seg").cast(pl.Float64))  # -0.0 and 0.0 group as one
    for lf, by in ((rounded.lazy(), "seg"), (float_keys.lazy(), "seg"), (log, "seg")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pr.roc_auc(lf, by=by, ci="delong")
    assert batches == []


def test_a_group_too_large_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLARS_ROC_MEMORY", str(70 * 100))  # 100 rows of the table
    lf = make_log(5).lazy().filter(pl.col("seg") != "3")
    with pytest.raises(RocOptionError, match=r"the group \{'seg': '\d+'\} holds \d+ rows.*bins="):
        lf.roc.auc(by="seg", ci="delong")
    with pytest.raises(RocOptionError, match=r"the log holds 3,000 rows.*DuckDB relation"):
        make_log(5).lazy().roc.auc()
    # The explicit form sorts what it is asked to.
    assert pr.roc_auc_in_batches(lf, by="seg", batch_rows=100).height == 10


def test_batch_rows_follow_the_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLARS_ROC_MEMORY", str(1 << 30))
    assert segment_batches.batch_rows("pairs") == (1 << 28) // 50
    assert segment_batches.batch_rows("table") == (1 << 28) // 70
    with segment_batches.forced_batch_rows(7):
        assert segment_batches.batch_rows("table") == 7
    assert segment_batches.batch_rows("table") == (1 << 28) // 70
    monkeypatch.setenv("POLARS_ROC_MEMORY", str(1 << 40))
    assert segment_batches.batch_rows("table") == segment_batches.MAX_BATCH_ROWS
