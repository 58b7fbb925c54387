"""Segment batches written once (``core/segment_batches.py``): a lazy source too large to
sort at once is read once more after the value pass, each batch's rows going to a file of
its own in the temporary folder, which is gone when the call returns or fails.

The reference is the same call as one plan (no batches): equal bit for bit, which needs
each batch's rows in the source's order (the weights are chosen so that another order of
addition gives other bits), and scikit-learn's weighted AUC for the values themselves.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.io.plugins import register_io_source
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import polars_roc as pr
from polars_roc.core import segment_batches
from polars_roc.exceptions import RocOptionError


def make_log(seed: int = 0, n: int = 2400) -> pl.DataFrame:
    """Ten segments (one of them null), continuous scores with runs of ties across the
    classes, and weights whose sum depends on the order of addition: a tie run of each
    class holds one weight of 2^53 among ones (2^53 + 1 rounds back to 2^53)."""
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.4
    score = rng.normal(size=n) + label
    score[: n // 4] = np.round(score[: n // 4], 1)  # ties, across classes
    weight = rng.random(n) + 0.5
    weight[: n // 4] = 1.0
    weight[: n // 4 : 37] = 2.0**53
    seg = pl.Series(rng.integers(0, 10, n)).cast(pl.String).replace("9", None)
    return pl.DataFrame({"seg": seg, "score": score, "label": label, "w": weight})


def counted(frame: pl.DataFrame, *, fail_at: int | None = None) -> tuple[pl.LazyFrame, list[int]]:
    """``frame`` as a LazyFrame read in slices of 100 rows that counts its reads (and
    raises in read number ``fail_at``)."""
    reads = [0]

    def source(
        with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None, _: Any
    ) -> Iterator[pl.DataFrame]:
        reads[0] += 1
        if reads[0] == fail_at:
            raise RuntimeError("the source broke on this read")
        rows = frame if predicate is None else frame.filter(predicate)
        rows = rows if with_columns is None else rows.select(with_columns)
        rows = rows if n_rows is None else rows.head(n_rows)
        yield from rows.iter_slices(100)

    return register_io_source(source, schema=frame.schema), reads


# The partial AUC's grouped sum() differs in the last bit between plans of other sizes,
# batched or not: not tested here.


@pytest.fixture
def tmpdir_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty TMPDIR of the test's own (``tempfile`` reads the variable once)."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return folder


def written_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize(
    "options",
    [
        {"weight": "w"},
        {"weight": "w", "direction": "lower"},
        {"ci": "delong", "test": True},
        {"weight": "w", "ci": "bootstrap", "n_boot": 20, "seed": 1},
    ],
)
def test_batches_read_once_equal_one_plan(
    options: dict, tmpdir_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = make_log()
    expected = pr.roc_auc(log, by="seg", **options)  # one plan, in memory
    seen: list[list[Path]] = []
    read_batch = segment_batches._read_batch

    def each_batch(folder: str, number: int) -> pl.DataFrame:
        seen.append(written_files(tmpdir_files))
        rows = read_batch(folder, number)
        assert rows.height  # a file of its own for each batch, none empty
        return rows

    monkeypatch.setattr(segment_batches, "_read_batch", each_batch)
    source, reads = counted(log)
    batched = pr.roc_auc_in_batches(source, by="seg", batch_rows=300, **options)
    assert len(seen) >= 6  # batches of about 250 rows: one or two segments each
    assert reads == [2]  # the value pass, then every batch written in one read
    assert all(len(files) == len(seen) for files in seen)  # a file per batch, in TMPDIR
    assert written_files(tmpdir_files) == []
    assert_frame_equal(batched, expected, check_exact=True)


def test_batched_weighted_auc_is_sklearns(tmpdir_files: Path) -> None:
    log = make_log(1).filter(pl.col("seg").is_not_null())
    source, reads = counted(log)
    result = pr.roc_auc_in_batches(source, by="seg", batch_rows=500, weight="w")
    assert reads == [2]
    for seg, auc in result.select("seg", "auc").iter_rows():
        rows = log.filter(pl.col("seg") == seg)
        reference = roc_auc_score(rows["label"], rows["score"], sample_weight=rows["w"])
        assert auc == pytest.approx(reference, rel=1e-9)


def test_the_ordinary_call_batches_with_one_read(
    tmpdir_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = make_log(2)
    expected = pr.roc_auc(log, by="seg", weight="w")
    # The bits depend on the order the weights add in: each batch keeps the source's.
    reordered = pr.roc_auc(log.reverse(), by="seg", weight="w")
    assert not expected["auc"].equals(reordered["auc"])
    monkeypatch.setenv("POLARS_ROC_MEMORY", str(4 * 70 * 400))  # the table: 400 rows a batch
    source, reads = counted(log)
    batched = source.roc.auc(by="seg", weight="w")
    assert reads == [2]
    assert written_files(tmpdir_files) == []
    assert_frame_equal(batched.collect(), expected, check_exact=True)


def test_files_are_removed_when_a_batch_fails(
    tmpdir_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_batch = segment_batches._read_batch
    calls: list[int] = []

    def third_fails(folder: str, number: int) -> pl.DataFrame:
        calls.append(len(written_files(tmpdir_files)))
        if len(calls) == 3:
            raise MemoryError("no room for this batch")
        return read_batch(folder, number)

    monkeypatch.setattr(segment_batches, "_read_batch", third_fails)
    with pytest.raises(MemoryError, match="no room"):
        pr.roc_auc_in_batches(make_log(3).lazy(), by="seg", batch_rows=300, ci="delong")
    assert calls[0] >= 6  # the files were there, in TMPDIR
    assert written_files(tmpdir_files) == []
    assert list(tmpdir_files.iterdir()) == []


def test_files_are_removed_when_the_read_fails(tmpdir_files: Path) -> None:
    source, reads = counted(make_log(4), fail_at=2)  # the value pass reads, the write fails
    with pytest.raises((RuntimeError, pl.exceptions.ComputeError), match="the source broke"):
        pr.roc_auc_in_batches(source, by="seg", batch_rows=300)
    assert reads == [2]
    assert list(tmpdir_files.iterdir()) == []


def test_no_room_for_the_files_is_refused_before_the_write(
    tmpdir_files: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = make_log(5)  # 2,400 rows of a String, a Float64 and a Boolean: about 60 kB
    usage = segment_batches.shutil.disk_usage(tmpdir_files)._replace(free=20_000)
    monkeypatch.setattr(segment_batches.shutil, "disk_usage", lambda _: usage)
    source, reads = counted(log)
    where = re.escape(str(tmpdir_files))
    with pytest.raises(RocOptionError, match=rf"2,400 rows.*{where}.*0\.0 GB free: set TMPDIR"):
        pr.roc_auc_in_batches(source, by="seg", batch_rows=300)
    assert reads == [1]  # the value pass only
    assert list(tmpdir_files.iterdir()) == []
