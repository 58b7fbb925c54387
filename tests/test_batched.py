"""Exact AUCs segment batch by segment batch (``roc_auc_in_batches``): equal to one call."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.segment_batches import _pack
from polars_roc.exceptions import RocOptionError


def make_log(seed: int, n: int = 4000) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.3
    seg = rng.integers(0, 9, n)
    return pl.DataFrame(
        {
            "seg": pl.Series(seg).cast(pl.String).replace("8", None),  # a null segment
            "month": rng.integers(1, 3, n),
            "score": np.round(rng.normal(size=n) + label, 1),  # ties
            "label": label,
            "w": rng.random(n),
        }
    ).with_columns(  # a one-class segment: a warning and a null AUC, in its batch
        label=pl.when(pl.col("seg") == "3").then(False).otherwise("label")
    )


@pytest.mark.parametrize("batch_rows", [1, 700, 1500, 10**9])
@pytest.mark.parametrize(
    "options",
    [
        {"by": "seg", "ci": "delong"},
        {"by": ["seg", "month"], "ci": "delong"},
        {"by": "seg", "weight": "w"},
        {"by": "seg", "max_fpr": 0.2},
        {"by": "seg", "direction": "lower", "ci": "delong"},
    ],
)
def test_batches_equal_one_call(batch_rows: int, options: dict) -> None:
    log = make_log(1)
    with pytest.warns(UserWarning):
        expected = pr.roc_auc(log, **options)
    with pytest.warns(UserWarning):
        eager = pr.roc_auc_in_batches(log, batch_rows=batch_rows, **options)
    with pytest.warns(UserWarning):
        lazy = pr.roc_auc_in_batches(log.lazy(), batch_rows=batch_rows, **options)
    assert_frame_equal(eager, expected, check_exact=True)
    assert_frame_equal(lazy, expected, check_exact=True)


def test_bootstrap_per_segment_equals_one_call() -> None:
    log = make_log(2, n=600).filter(pl.col("seg") != "3")
    expected = pr.roc_auc(log, by="seg", ci="bootstrap", n_boot=50, seed=1)
    batched = pr.roc_auc_in_batches(
        log, by="seg", batch_rows=100, ci="bootstrap", n_boot=50, seed=1
    )
    assert_frame_equal(batched, expected)


def test_batches_pack_whole_segments_in_order() -> None:
    rows = np.array([5, 5, 20, 1, 1, 1, 30, 4, 6])
    batch = _pack(rows, 10)
    assert batch.tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4]
    # Consecutive groups, at most 10 rows a batch unless one group alone is larger.
    assert (np.diff(batch) >= 0).all()
    for b in np.unique(batch):
        members = rows[batch == b]
        assert members.sum() <= 10 or len(members) == 1


def test_one_segment_or_empty_input_is_one_call() -> None:
    log = make_log(3).filter(pl.col("seg") == "1")
    assert_frame_equal(
        pr.roc_auc_in_batches(log, by="seg", batch_rows=10), pr.roc_auc(log, by="seg")
    )
    empty = log.clear()
    assert_frame_equal(pr.roc_auc_in_batches(empty, by="seg"), pr.roc_auc(empty, by="seg"))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"by": None}, RocOptionError, r"needs `by`"),
        ({"by": "seg", "batch_rows": 0}, RocOptionError, r"`batch_rows` must be a positive.*got 0"),
        ({"by": "seg", "batch_rows": True}, RocOptionError, r"`batch_rows` must be a .*got True"),
        ({"by": "seg", "bins": 64}, RocOptionError, r"is the exact path; for bins= call roc_auc"),
        ({"by": "nope"}, pl.exceptions.ColumnNotFoundError, r"`by` .* not found: \['nope'\]"),
        ({"by": "seg", "score": "nope"}, pl.exceptions.ColumnNotFoundError, r"nope"),
    ],
)
def test_bad_options_are_refused(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        pr.roc_auc_in_batches(make_log(0, n=50), **kwargs)


def test_other_frames_are_refused() -> None:
    with pytest.raises(TypeError, match=r"or a polars DataFrame or LazyFrame, got dict"):
        pr.roc_auc_in_batches({"seg": [1]}, by="seg")  # type: ignore[arg-type]
