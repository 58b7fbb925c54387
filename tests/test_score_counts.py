"""Merging partitions: score tables of the parts, concatenated, give the whole log's results."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import SingleClassWarning


def _log(seed: int, n: int = 400) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.3
    return pl.DataFrame(
        {
            "segment": rng.choice(["a", "b", "c"], n),
            "score": np.round(rng.normal(label * 0.8, 1.0), 1),  # many ties
            "label": label,
            "w": rng.uniform(0.5, 2.0, n),
        }
    )


def _merged(log: pl.DataFrame, cuts: list[int], **options: object) -> pl.DataFrame:
    bounds = [0, *sorted(cuts), log.height]
    parts = [log[lo:hi] for lo, hi in itertools.pairwise(bounds) if hi > lo]
    with warnings.catch_warnings():  # a small part may hold one class: no matter here
        warnings.simplefilter("ignore", SingleClassWarning)
        tables = [pr.score_table(part, **options) for part in parts]
    return pr.score_counts(pl.concat(tables), by=options.get("by"))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 399), max_size=4))
def test_partitions_merge_to_the_whole_log(seed: int, cuts: list[int]) -> None:
    log = _log(seed)
    counts = _merged(log, cuts, by="segment")
    on_counts = {"score": "score", "label": "label", "count": "count", "by": "segment"}
    # Bit for bit: the same counts reach the same formula.
    assert_frame_equal(
        pr.roc_auc(counts, ci="delong", **on_counts), pr.roc_auc(log, ci="delong", by="segment")
    )
    assert_frame_equal(pr.roc_curve(counts, **on_counts), pr.roc_curve(log, by="segment"))
    assert_frame_equal(
        pr.confusion_matrix(counts, [0.0, 0.5], **on_counts),
        pr.confusion_matrix(log, [0.0, 0.5], by="segment"),
    )
    assert_frame_equal(
        pr.pr_average_precision(counts, **on_counts),
        pr.pr_average_precision(log, by="segment"),
    )


def test_weighted_tables_give_a_weight_column() -> None:
    log = _log(3)
    counts = _merged(log, [100, 250], weight="w")
    assert counts.columns == ["score", "label", "weight"]
    got = pr.roc_auc(counts, weight="weight").item(0, "auc")
    assert got == pytest.approx(pr.roc_auc(log, weight="w").item(0, "auc"), abs=1e-12)


def test_direction_lower_round_trips() -> None:
    log = _log(5).with_columns(-pl.col("score"))
    counts = _merged(log, [200], direction="lower")
    assert pr.roc_auc(counts, count="count", direction="lower").item(0, "auc") == (
        pr.roc_auc(log, direction="lower").item(0, "auc")
    )


def test_lazy_in_lazy_out_and_no_zero_cells() -> None:
    table = pr.score_table(_log(1).lazy(), by="segment")
    counts = pr.score_counts(table, by="segment")
    assert isinstance(counts, pl.LazyFrame)
    assert counts.select((pl.col("count") > 0).all()).collect().item()


def test_missing_columns_are_named() -> None:
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"missing \['segment'\]"):
        pr.score_counts(pr.score_table(_log(1)), by="segment")
    bad = pl.DataFrame({"threshold": [0.5], "pos": ["1"], "neg": ["0"]})
    with pytest.raises(TypeError, match="`pos` and `neg` must be counts"):
        pr.score_counts(bad)
