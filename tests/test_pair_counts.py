"""Packed sort keys and pair counts of the score-table core, against brute force."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core import score_table as _score_table
from polars_roc.core.arguments import Roles
from polars_roc.core.compat import bits_as_float
from polars_roc.core.score_table import (
    _flipped,
    _order_bits,
    _packed_key,
    build,
    pair_counts,
)
from polars_roc.core.validate import prepare

SPECIAL = [-math.inf, -1e300, -2.5, -1.0, -0.0, 0.0, 5e-324, 0.5, 1.0, 3.0, 1e300, math.inf]


def brute_twice_u(score: np.ndarray, positive: np.ndarray) -> int:
    """2 * #(positive above negative) + #(positive tied with negative), pair by pair."""
    pos, neg = score[positive][:, None], score[~positive][None, :]
    return int(2 * (pos > neg).sum() + (pos == neg).sum())


def test_order_bits_follow_float_order() -> None:
    bits = [_order_bits(x) for x in SPECIAL]
    assert bits == sorted(bits)
    assert _order_bits(-0.0) == _order_bits(0.0)
    back = pl.select(bits_as_float(_flipped(pl.lit(bits, pl.List(pl.Int64)).explode())))
    assert back.to_series().to_list() == [0.0 if x == 0 else x for x in SPECIAL]


@pytest.mark.parametrize(
    ("low", "high", "dtype"),
    # 64 bits while the scores' bits span less than 2**63: one sign, or within (-2, 2).
    [
        (0.0, 1.0, pl.UInt64),
        (-0.5, 0.0, pl.UInt64),
        (-1.0, 1.0, pl.UInt64),
        (0.0, 1e300, pl.UInt64),
        (-2.5, 2.5, pl.Int128),
        (-1e300, 1e300, pl.Int128),
        (-math.inf, 0.5, pl.Int128),
    ],
)
def test_key_width_follows_the_score_range(low: float, high: float, dtype) -> None:
    df = pl.DataFrame({"score": [low, high, high], "label": [0, 1, 0]})
    prep = prepare(df, Roles())
    assert _packed_key(prep)[2] == dtype
    counts = pair_counts(prep, path="sort").collect()
    assert counts.row(0) == (1, 2, 1 * 2 + 1)  # above the low negative, tied with one


@settings(max_examples=40, deadline=None)
@given(
    scores=st.lists(st.sampled_from(SPECIAL), min_size=1, max_size=30),
    data=st.data(),
)
def test_pair_counts_match_brute_force(scores: list[float], data) -> None:
    labels = data.draw(st.lists(st.booleans(), min_size=len(scores), max_size=len(scores)))
    groups = data.draw(st.lists(st.sampled_from("ab"), min_size=len(scores), max_size=len(scores)))
    df = pl.DataFrame({"g": groups, "score": scores, "label": labels})
    for by in (None, "g"):
        prep = prepare(df, Roles(by=by))
        by_sort = pair_counts(prep, path="sort").collect()
        by_hash = pair_counts(prep, path="hash").collect()
        assert_frame_equal(by_sort, by_hash)
        if by:
            assert_frame_equal(pair_counts(prep, path="dense").collect(), by_sort)
        parts = df.partition_by("g", as_dict=True) if by else {(): df}
        for key, part in parts.items():
            row = by_sort.filter(pl.col("g") == key[0]) if by else by_sort
            score, positive = part["score"].to_numpy(), part["label"].to_numpy()
            expected = (int(positive.sum()), int((~positive).sum()), brute_twice_u(score, positive))
            assert row.select("n_pos", "n_neg", "__roc_twice_u").row(0) == expected


@pytest.mark.parametrize("by", [None, "g"])
def test_sort_and_hash_tables_are_identical(by: str | None) -> None:
    rng = np.random.default_rng(7)
    df = pl.DataFrame(
        {
            "g": rng.integers(0, 4, 500),
            "score": np.round(rng.normal(size=500), 1),
            "label": rng.random(500) < 0.4,
        }
    )
    prep = prepare(df, Roles(by=by))
    assert_frame_equal(build(prep, path="sort").collect(), build(prep, path="hash").collect())


@pytest.mark.parametrize("cells", ["dense", "sparse"])
def test_dense_table_is_the_sorted_table(cells: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if cells == "sparse":  # (group, score) cells past the dense limit: counted after a sort
        monkeypatch.setattr(_score_table, "DENSE_MIN_CELLS", 1)
        monkeypatch.setattr(_score_table, "DENSE_MAX_CELLS", 1)
    df = dense_log(3000, seed=2)
    for by in ("region", ["region", "month"]):
        prep = prepare(df, Roles(by=by))
        dense = build(prep, path="dense").collect()
        assert_frame_equal(dense, build(prep, path="sort").collect())
        assert dense.height == df.select(*prep.by, "score").n_unique()


def test_rates_of_the_sort_path_are_exact_quotients() -> None:
    # Polars 2.1 divides by a broadcast column through a rounded reciprocal; the table's
    # totals are full columns, so tpr is the exactly rounded tp / n_pos.
    df = pl.DataFrame(
        {"score": [1.0, 0.0, 0.0, -1.0, -2.0, -2.0, -math.inf], "label": [1, 1, 1, 0, 0, 1, 1]}
    )
    prep = prepare(df, Roles())
    curve = pr.roc_curve(df)
    assert prep.n_distinct > 0
    assert curve["tpr"].to_list() == [t / 5 for t in curve["tp"].to_list()]


def test_auc_expression_agrees_with_roc_auc_on_ties_and_groups() -> None:
    rng = np.random.default_rng(3)
    df = pl.DataFrame(
        {
            "g": rng.integers(0, 5, 400),
            "score": np.round(rng.random(400), 1) - 0.5,
            "label": rng.random(400) < 0.5,
        }
    )
    frame = pr.roc_auc(df, by="g").select("g", "auc")
    expr = df.group_by("g").agg(pr.auc()).sort("g")
    assert_frame_equal(expr, frame, rel_tol=1e-15)


def dense_log(n: int, seed: int) -> pl.DataFrame:
    """Few distinct scores, two segment columns (one with nulls), a one-class group."""
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "region": pl.Series(rng.choice(["n", "s", "e", None], n).tolist(), dtype=pl.String),
            "month": rng.integers(1, 4, n).astype(np.int16),
            "score": np.round(rng.normal(size=n), 1),
            "label": rng.random(n) < 0.3,
        }
    ).with_columns(
        # region "e" of month 3 holds negatives only: its pair counts are 0 positives.
        label=pl.when((pl.col("region") == "e") & (pl.col("month") == 3))
        .then(False)
        .otherwise("label")
    )


@pytest.mark.parametrize("cells", ["dense", "sparse"])
def test_dense_pair_counts_match_brute_force_per_group(
    cells: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if cells == "sparse":  # (group, score) cells past the dense limit: counted after a sort
        monkeypatch.setattr(_score_table, "DENSE_MIN_CELLS", 1)
        monkeypatch.setattr(_score_table, "DENSE_MAX_CELLS", 1)
    df = dense_log(3000, seed=11)
    prep = prepare(df.lazy(), Roles(by=["region", "month"]))
    counts = pair_counts(prep, path="dense").collect()
    assert_frame_equal(counts, pair_counts(prep, path="sort").collect())
    assert counts["region"].null_count() == 3  # null segments are groups too, first
    assert counts.height == df.select("region", "month").n_unique()
    for row in counts.iter_rows(named=True):
        part = df.filter(
            pl.col("region").eq_missing(row["region"]), pl.col("month") == row["month"]
        )
        score, positive = part["score"].to_numpy(), part["label"].to_numpy()
        expected = (int(positive.sum()), int((~positive).sum()), brute_twice_u(score, positive))
        assert (row["n_pos"], row["n_neg"], row["__roc_twice_u"]) == expected


def test_auto_path_counts_grouped_few_distinct_scores_densely() -> None:
    df = dense_log(20_000, seed=5)
    prep = prepare(df, Roles(by="region"))
    assert prep.n_distinct <= 0.01 * prep.n_rows
    plan = pair_counts(prep)
    assert "__roc_counted" in plan.explain()  # the code table of the dense path
    assert "__roc_counted" in build(prep).explain()
    # The counts see whole columns, whatever the engine's batches.
    assert_frame_equal(plan.collect(engine="streaming"), plan.collect())
    with pytest.warns(UserWarning, match="only one class"):
        by_region_month = pr.roc_auc(df, by=["region", "month"])
    for row in by_region_month.iter_rows(named=True):
        part = df.filter(
            pl.col("region").eq_missing(row["region"]), pl.col("month") == row["month"]
        )
        positive = part["label"].to_numpy()
        if positive.all() or not positive.any():
            assert row["auc"] is None
            continue
        pairs = positive.sum() * (~positive).sum()
        expected = brute_twice_u(part["score"].to_numpy(), positive) / (2 * pairs)
        assert row["auc"] == pytest.approx(expected, rel=1e-15)


def test_dense_pair_counts_of_empty_input_and_bad_paths() -> None:
    empty = pl.DataFrame(schema={"g": pl.String, "score": pl.Float64, "label": pl.Boolean})
    prep = prepare(empty, Roles(by="g"))
    counts = pair_counts(prep, path="dense").collect()
    assert counts.height == 0
    assert counts.schema == pair_counts(prep, path="sort").collect().schema
    df = pl.DataFrame({"score": [0.1, 0.2], "label": [0, 1], "w": [1.0, 2.0]})
    with pytest.raises(ValueError, match="path='dense' counts grouped, unweighted rows only"):
        pair_counts(prepare(df, Roles()), path="dense")
    with pytest.raises(ValueError, match="path='dense' counts grouped, unweighted rows only"):
        pair_counts(
            prepare(df.with_columns(g=pl.lit("a")), Roles(by="g", weight="w")),
            path="dense",
        )
    with pytest.raises(ValueError, match="`path` must be 'auto', 'hash', 'sort' or 'dense'"):
        pair_counts(prepare(df, Roles()), path="bincount")


def test_views_of_the_dense_table_equal_their_groups_alone() -> None:
    df = dense_log(20_000, seed=8).filter(pl.col("month") < 3)  # both classes everywhere
    prep = prepare(df.lazy(), Roles(by="region"))
    assert "__roc_counted" in build(prep).explain()  # grouped: the dense table
    curve = pr.roc_curve(df.lazy(), by="region").collect()
    confusion = pr.confusion_matrix(df, [-0.5, 0.0, 0.35], by="region")
    assert curve["region"].unique(maintain_order=True).to_list() == [None, "e", "n", "s"]
    for (region,), part in df.partition_by("region", as_dict=True).items():
        # Each group alone is ungrouped: the hash path, a different code path.
        mine = pl.col("region").eq_missing(region)
        assert_frame_equal(curve.filter(mine).drop("region"), pr.roc_curve(part))
        alone = pr.confusion_matrix(part, [-0.5, 0.0, 0.35])
        assert_frame_equal(confusion.filter(mine).drop("region"), alone)


def ranks_by_brute_force(values: list) -> tuple[list[int], list]:
    """Each value's position among the distinct values sorted (nulls first)."""
    distinct = sorted(set(values), key=lambda v: (v is not None, v))
    return [distinct.index(v) for v in values], distinct


@settings(max_examples=60, deadline=None)
@given(
    scores=st.lists(
        st.one_of(
            st.sampled_from(SPECIAL),
            st.integers(-3, 3).map(lambda k: k / 1000),  # a grid, as rounded scores
            st.floats(1e-9, 2e-9),  # clustered: many scores in one bucket
        ),
        min_size=1,
        max_size=40,
    ),
    per_score=st.sampled_from([1, 16]),
)
def test_score_codes_are_the_ranks_of_the_distinct_scores(
    scores: list[float], per_score: int
) -> None:
    score = prepare(
        pl.DataFrame({"score": scores, "label": [True] * len(scores)}), Roles()
    ).frame.collect()["__roc_score"]
    rank, distinct = ranks_by_brute_force([-x for x in score.to_list()])  # highest first
    old = _score_table._BUCKETS_PER_SCORE
    _score_table._BUCKETS_PER_SCORE = per_score  # 1: shared buckets, stepped or joined
    try:
        codes = _score_table._score_codes(score, -np.array(distinct), 2, 5)
    finally:
        _score_table._BUCKETS_PER_SCORE = old
    assert codes.tolist() == [2 * r + 5 for r in rank]


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([3, -128, None, 127, 3], pl.Int8),
        ([0, 255, None, 0], pl.UInt8),
        ([7, 9, 7], pl.UInt32),
        ([2**40, 2**40 + 1, None], pl.Int64),  # beyond 2**32: a join
        ([0, 10**6, None], pl.Int64),  # wider than max_groups: a join
        (["b", None, "a", "b"], pl.String),
    ],
)
def test_group_codes_follow_the_sorted_groups(values: list, dtype) -> None:
    rows = pl.DataFrame({"g": pl.Series(values, dtype=dtype)})
    found, low, groups = _score_table._group_codes(rows, max_groups=1000)
    codes = np.asarray(found, dtype=np.int64) - low
    rank, distinct = ranks_by_brute_force(values)
    assert groups["g"].gather(codes).to_list() == values  # each row's group
    assert groups["g"].drop_nulls().is_sorted()
    kept = np.unique(codes)
    assert groups["g"].gather(kept).to_list() == distinct  # in order, nulls first
    assert (np.searchsorted(kept, codes) == rank).all()


@settings(max_examples=40, deadline=None)
@given(
    scores=st.lists(st.sampled_from([*SPECIAL, 0.25, 0.5]), min_size=1, max_size=40),
    data=st.data(),
)
def test_dense_path_of_integer_groups_with_nulls_matches_brute_force(
    scores: list[float], data
) -> None:
    n = len(scores)
    labels = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    groups = data.draw(st.lists(st.sampled_from([None, -3, 0, 2]), min_size=n, max_size=n))
    df = pl.DataFrame({"g": pl.Series(groups, dtype=pl.Int16), "score": scores, "label": labels})
    prep = prepare(df, Roles(by="g"))
    counts = pair_counts(prep, path="dense").collect()
    assert_frame_equal(counts, pair_counts(prep, path="sort").collect())
    assert_frame_equal(build(prep, path="dense").collect(), build(prep, path="sort").collect())
    assert counts["g"].to_list() == sorted(set(groups), key=lambda v: (v is not None, v))
    for row in counts.iter_rows(named=True):
        part = df.filter(pl.col("g").eq_missing(row["g"]))
        score, positive = part["score"].to_numpy(), part["label"].to_numpy()
        expected = (int(positive.sum()), int((~positive).sum()), brute_twice_u(score, positive))
        assert (row["n_pos"], row["n_neg"], row["__roc_twice_u"]) == expected
