"""The score table: both counting paths, against a per-threshold reference loop."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from _reference import groups
from _reference import score_table as reference_table
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.arguments import Roles
from polars_roc.core.score_table import build
from polars_roc.core.validate import prepare

TABLE_COLUMNS = ["threshold", "pos", "neg", "tp", "fp", "n_pos", "n_neg"]


def _by_list(by: str | list[str] | None) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else list(by)


def expected_table(
    df: pl.DataFrame, by: str | list[str] | None, weight: str | None, is_pos: np.ndarray
) -> pl.DataFrame:
    """The reference score table of every group, groups in sorted order."""
    by_cols = _by_list(by)
    score = df["score"].cast(pl.Float64).to_numpy()
    w = None if weight is None else df[weight].to_numpy()
    keys = [df[c].to_list() for c in by_cols] or [[None] * df.height]
    blocks = []
    for key, mask in groups(keys):
        table = reference_table(score[mask], is_pos[mask], None if w is None else w[mask])
        block = pl.DataFrame(table)
        for name, value in zip(by_cols, key):
            block = block.with_columns(pl.lit(value, dtype=df.schema[name]).alias(name))
        blocks.append(block.select(*by_cols, *TABLE_COLUMNS))
    return pl.concat(blocks)


def edge_log() -> pl.DataFrame:
    """Signed zeros, infinities, ties and null group keys in one small frame."""
    inf = math.inf
    return pl.DataFrame(
        {
            "g": ["a", None, "a", None, "b", "b", "a", None, "b", "a", None, "b"],
            "score": [0.0, -0.0, -0.0, inf, -inf, 0.5, inf, 0.0, 0.5, -inf, -0.0, inf],
            "label": [1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1],
            "weight": [0.5, 1.25, 2.0, 0.75, 1.0, 0.25, 3.0, 0.5, 1.5, 0.0, 2.5, 1.0],
        }
    )


def dyadic(df: pl.DataFrame) -> pl.DataFrame:
    """Weights that are multiples of 1/4: every sum is exact, whatever the order."""
    return df.with_columns((pl.col("weight") * 4).round().clip(1) / 4)


CASES = {
    "plain": (lambda log: log, None, None),
    "grouped": (lambda log: log, ["segment", "month"], None),
    "weighted": (dyadic, "segment", "weight"),
    "int_weights": (lambda log: log, None, "count"),
    "all_distinct": (
        lambda log: log.with_columns(score=pl.int_range(pl.len()).shuffle(seed=7) / 10),
        "segment",
        None,
    ),
    "one_score": (lambda log: log.with_columns(score=pl.lit(0.25)), "month", None),
    "edge": (lambda log: edge_log(), "g", None),
    "edge_weighted": (lambda log: edge_log(), "g", "weight"),
    "edge_ungrouped": (lambda log: edge_log(), None, "weight"),
    "int_score": (
        lambda log: log.with_columns(pl.col("score").mul(14).cast(pl.Int32)),
        ["month", "segment"],
        None,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hash_and_sort_paths_give_identical_tables(log: pl.DataFrame, case: str) -> None:
    make, by, weight = CASES[case]
    df = make(log)
    prep = prepare(df, Roles(by=by, weight=weight))
    by_hash = build(prep, path="hash").collect()
    by_sort = build(prep, path="sort").collect()
    assert_frame_equal(by_hash, by_sort, check_exact=True)
    assert_frame_equal(build(prep).collect(), by_hash, check_exact=True)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("path", ["hash", "sort"])
def test_both_paths_match_the_reference(log: pl.DataFrame, case: str, path: str) -> None:
    make, by, weight = CASES[case]
    df = make(log)
    prep = prepare(df, Roles(by=by, weight=weight))
    table = build(prep, path=path).collect()
    expected = expected_table(df, by, weight, df["label"].to_numpy() == 1)
    assert_frame_equal(table, expected.cast(table.schema), check_exact=True)


def test_arbitrary_float_weights_agree_across_paths(log: pl.DataFrame) -> None:
    # Sums of non-dyadic floats depend on their order, so the paths agree to rounding.
    prep = prepare(log, Roles(by="segment", weight="weight"))
    by_hash = build(prep, path="hash").collect()
    by_sort = build(prep, path="sort").collect()
    assert_frame_equal(by_hash, by_sort, rel_tol=1e-12, abs_tol=1e-12)


def test_public_score_table_matches_reference(log: pl.DataFrame, as_kind, by, weight) -> None:
    truth = log.with_columns(pl.col("truth").cast(pl.Categorical))
    result = pr.score_table(as_kind(truth), label="truth", pos_label="bad", by=by, weight=weight)
    assert isinstance(result, type(as_kind(truth)))
    table = result.lazy().collect()
    expected = expected_table(log, by, weight, log["truth"].to_numpy() == "bad")
    assert table.columns == [*_by_list(by), *TABLE_COLUMNS]
    assert_frame_equal(table, expected.cast(table.schema), rel_tol=1e-12)


@pytest.mark.parametrize(("weight", "dtype"), [(None, pl.Int64), ("weight", pl.Float64)])
def test_count_dtype(log: pl.DataFrame, weight: str | None, dtype: pl.DataType) -> None:
    table = pr.score_table(log, weight=weight)
    assert table.schema["threshold"] == pl.Float64
    for column in ("pos", "neg", "tp", "fp", "n_pos", "n_neg"):
        assert table.schema[column] == dtype


def test_signed_zeros_are_one_score_and_infinities_are_kept() -> None:
    df = pl.DataFrame({"score": [-0.0, 0.0, math.inf, -math.inf, -0.0], "label": [1, 0, 1, 0, 0]})
    for path in ("hash", "sort"):
        table = build(prepare(df, Roles()), path=path).collect()
        assert table["threshold"].to_list() == [math.inf, 0.0, -math.inf]
        assert not np.signbit(table["threshold"][1])
        assert table["pos"].to_list() == [1, 1, 0]
        assert table["neg"].to_list() == [0, 2, 1]
        assert table["tp"].to_list() == [1, 2, 2]
        assert table["fp"].to_list() == [0, 2, 3]


def test_groups_sorted_with_null_keys_first() -> None:
    df = pl.DataFrame(
        {
            "g": ["b", None, "a", "b", None, "a", "a"],
            "h": [2, 1, 1, 1, 1, 1, 2],
            "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
            "label": [1, 0, 1, 0, 1, 0, 1],
        }
    )
    with pytest.warns(UserWarning, match="only one class"):
        table = pr.score_table(df, by=["g", "h"])
    assert table.select("g", "h").rows() == [
        (None, 1),
        (None, 1),
        ("a", 1),
        ("a", 1),
        ("a", 2),
        ("b", 1),
        ("b", 2),
    ]
    assert table["threshold"].to_list() == [0.5, 0.2, 0.6, 0.3, 0.7, 0.4, 0.1]


@pytest.mark.parametrize("path", ["hash", "sort"])
def test_a_group_counts_do_not_depend_on_other_groups(path: str) -> None:
    # Weights in currency units: one segment's totals are 1e9 times another's. Each
    # group's counts must be those of its own rows, not differences of running totals.
    df = pl.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b", "b", "b"],
            "score": [0.9, 0.4, 0.1, 0.8, 0.5, 0.5, 0.3],
            "label": [1, 0, 1, 1, 0, 1, 0],
            "weight": [3.1e8, 2.7e8, 1.9e8, 0.1, 0.2, 0.7, 0.3],
        }
    )
    prep = prepare(df, Roles(by="g", weight="weight"))
    table = build(prep, path=path).collect().filter(pl.col("g") == "b")
    b = df.filter(pl.col("g") == "b")
    expected = reference_table(
        b["score"].to_numpy(), b["label"].to_numpy() == 1, b["weight"].to_numpy()
    )
    assert_frame_equal(table.drop("g"), pl.DataFrame(expected), rel_tol=1e-12)


def test_partition_tables_merge_by_summing(log: pl.DataFrame) -> None:
    # The sufficient-statistics promise: per-partition (group, score, pos, neg) sum up.
    keys = ["segment", "threshold"]
    halves = [log.head(50), log.tail(log.height - 50)]
    parts = [
        pr.score_table(part, by="segment", weight="count").select(*keys, "pos", "neg")
        for part in halves
    ]
    merged = pl.concat(parts).group_by(keys).agg(pl.col("pos", "neg").sum()).sort(keys)
    whole = pr.score_table(log, by="segment", weight="count").select(*keys, "pos", "neg")
    assert_frame_equal(merged, whole.sort(keys))


def test_namespace_equals_function(log: pl.DataFrame, as_kind) -> None:
    frame = as_kind(log)
    via_namespace = frame.roc.score_table(by="segment", weight="weight")
    via_function = pr.score_table(frame, by="segment", weight="weight")
    assert type(via_namespace) is type(frame)
    assert_frame_equal(via_namespace.lazy().collect(), via_function.lazy().collect())


def test_empty_input_gives_empty_table(as_kind) -> None:
    empty = pl.DataFrame(
        {"g": [], "score": [], "label": []},
        schema={"g": pl.String, "score": pl.Float64, "label": pl.Int64},
    )
    table = pr.score_table(as_kind(empty), by="g").lazy().collect()
    assert table.height == 0
    assert table.columns == ["g", *TABLE_COLUMNS]


def test_build_rejects_unknown_path(log: pl.DataFrame) -> None:
    prep = prepare(log, Roles())
    message = r"`path` must be 'auto', 'hash', 'sort' or 'dense', got 'fast'"
    with pytest.raises(ValueError, match=message):
        build(prep, path="fast")  # type: ignore[arg-type]
