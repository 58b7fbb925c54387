"""ROC AUC: frame function and expressions, against scikit-learn, brute force and seeds."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from _reference import groups, pairwise_auc
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import polars_roc as pr

# Seed 002: four positives, six negatives, ties across the classes at 0.2.
SEED_002 = pl.DataFrame(
    {
        "score": [0.7, 0.7, 0.2, 0.4, 0.2, 0.3, 0.1, 0.5, 0.2, 0.1],
        "label": [1, 1, 1, 1, 0, 0, 0, 0, 0, 0],
    }
)
# Seed 001 (Fawcett 2006): 20 instances, p = positive, no ties.
SEED_001 = pl.DataFrame(
    {
        "score": [
            0.9,
            0.8,
            0.7,
            0.6,
            0.55,
            0.54,
            0.53,
            0.52,
            0.51,
            0.505,
            0.4,
            0.39,
            0.38,
            0.37,
            0.36,
            0.35,
            0.34,
            0.33,
            0.30,
            0.1,
        ],
        "label": list("ppnpppnnpnpnpnnnpnpn"),
    }
)


def _by_list(by: str | list[str] | None) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else list(by)


def _rows(df: pl.DataFrame, by: str | list[str] | None) -> list[tuple[tuple, pl.DataFrame]]:
    """(key, rows) per group in sorted order; one group of all rows when ungrouped."""
    by_cols = _by_list(by)
    keys = [df[c].to_list() for c in by_cols] or [[None] * df.height]
    return [(key, df.filter(pl.Series(mask))) for key, mask in groups(keys)]


def test_seed_002_auc_is_five_sixths() -> None:
    # 24 positive-negative pairs: 19 ordered right, 2 ties (counting 1/2), 3 wrong.
    assert pr.roc_auc(SEED_002)["auc"].item() == pytest.approx(20 / 24, abs=1e-15)
    assert SEED_002.select(pr.auc()).item() == pytest.approx(20 / 24, abs=1e-15)


def test_seed_001_fawcett_auc() -> None:
    result = pr.roc_auc(SEED_001, pos_label="p")
    assert result.row(0) == (pytest.approx(0.68, abs=1e-12), 10, 10)
    assert SEED_001.select(pr.auc(pos_label="p")).item() == pytest.approx(0.68, abs=1e-12)


def test_matches_sklearn_per_group(log: pl.DataFrame, as_kind, by, weight) -> None:
    result = (
        pr.roc_auc(as_kind(log), label="truth", pos_label="bad", by=by, weight=weight)
        .lazy()
        .collect()
    )
    by_cols = _by_list(by)
    expected = []
    for key, part in _rows(log, by):
        w = None if weight is None else part[weight].to_numpy()
        is_pos = part["truth"].to_numpy() == "bad"
        auc = roc_auc_score(is_pos, part["score"].to_numpy(), sample_weight=w)
        n_pos = is_pos.sum() if w is None else w[is_pos].sum()
        n_neg = (~is_pos).sum() if w is None else w[~is_pos].sum()
        expected.append((*key[: len(by_cols)], auc, n_pos, n_neg))
    assert result.columns == [*by_cols, "auc", "n_pos", "n_neg"]
    if by_cols:
        assert result.select(by_cols).rows() == [row[: len(by_cols)] for row in expected]
    got = result.select("auc", "n_pos", "n_neg").to_numpy()
    want = np.array([row[len(by_cols) :] for row in expected], dtype=float)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def _random_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = int(rng.integers(2, 16))
    # Few distinct scores, so ties between and within classes are frequent.
    score = rng.integers(0, 5, size=n) / 4
    is_pos = rng.integers(0, 2, size=n).astype(bool)
    is_pos[:2] = (True, False)
    weight = rng.choice([0.0, 0.5, 1.0, 2.5, 4.0], size=n)
    weight[:2] = 1.0
    return score, is_pos, weight


@pytest.mark.parametrize("weighted", [False, True])
def test_brute_force_pairs_on_small_random_cases(weighted: bool) -> None:
    rng = np.random.default_rng(2)
    for _ in range(40):
        score, is_pos, weight = _random_case(rng)
        df = pl.DataFrame({"score": score, "label": is_pos, "w": weight})
        w = "w" if weighted else None
        expected = pairwise_auc(score, is_pos, weight if weighted else None)
        assert pr.roc_auc(df, weight=w)["auc"].item() == pytest.approx(expected, abs=1e-12)
        assert df.select(pr.auc(weight=w)).item() == pytest.approx(expected, abs=1e-12)


def test_hand_cases() -> None:
    separated = pl.DataFrame({"score": [0.1, 0.2, 0.8, 0.9], "label": [0, 0, 1, 1]})
    assert pr.roc_auc(separated)["auc"].item() == 1.0
    reversed_ = separated.with_columns(label=1 - pl.col("label"))
    assert pr.roc_auc(reversed_)["auc"].item() == 0.0
    all_tied = separated.with_columns(score=pl.lit(0.3))
    assert pr.roc_auc(all_tied)["auc"].item() == 0.5
    # Weighted by hand: pairs (0.9 vs 0.4) weigh 1*3 and win; (0.4 vs 0.4) weigh 2*3, tie.
    weighted = pl.DataFrame({"score": [0.9, 0.4, 0.4], "label": [1, 1, 0], "w": [1, 2, 3]})
    result = pr.roc_auc(weighted, weight="w")
    assert result.row(0) == (pytest.approx((3 + 0.5 * 6) / 9), 3.0, 3.0)


def test_zero_weight_rows_change_nothing(log: pl.DataFrame) -> None:
    extra = log.head(30).with_columns(
        score=pl.col("score") * 7 - 3, weight=pl.lit(0.0), label=1 - pl.col("label")
    )
    with_zeros = pr.roc_auc(pl.concat([log, extra]), by="segment", weight="weight")
    without = pr.roc_auc(log, by="segment", weight="weight")
    assert_frame_equal(with_zeros, without, rel_tol=1e-12)


def test_expression_matches_frame_function(log: pl.DataFrame, weight) -> None:
    by = ["segment", "month"]
    expected = pr.roc_auc(log, label="truth", pos_label="bad", by=by, weight=weight)
    expr = pr.auc("score", "truth", weight, pos_label="bad")
    aggregated = log.group_by(by).agg(expr).sort(by)
    assert_frame_equal(aggregated, expected.select(*by, "auc"), rel_tol=1e-12)
    over = log.with_columns(expr.over(by)).select(*by, "auc").unique().sort(by)
    assert_frame_equal(over, expected.select(*by, "auc"), rel_tol=1e-12)
    whole = pr.roc_auc(log, label="truth", pos_label="bad", weight=weight)
    assert log.select(expr).item() == pytest.approx(whole["auc"].item(), abs=1e-12)
    assert log.lazy().select(expr).collect().item() == pytest.approx(whole["auc"].item(), abs=1e-12)


def test_expression_accepts_expressions() -> None:
    df = SEED_002.with_columns(y=pl.col("label") == 1, w=pl.lit(2.0))
    value = df.select(pr.auc(pl.col("score") * 10 - 1, pl.col("y"), pl.col("w"))).item()
    assert value == pytest.approx(20 / 24)


def test_gini_is_twice_auc_minus_one(log: pl.DataFrame) -> None:
    both = log.group_by("segment").agg(pr.auc(weight="weight"), pr.gini(weight="weight"))
    np.testing.assert_allclose(both["gini"], 2 * both["auc"] - 1, atol=1e-12)
    assert SEED_002.select(pr.gini()).item() == pytest.approx(2 * 20 / 24 - 1)


@pytest.mark.parametrize(
    "frame",
    [
        pl.DataFrame({"score": [0.1, None, 0.3], "label": [0, 1, 1]}),
        pl.DataFrame({"score": [0.1, math.nan, 0.3], "label": [0, 1, 1]}),
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 1, None]}),
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 1, 2]}),
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [1, 1, 1]}),
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 0, 0]}),
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 1, 1], "w": [1.0, -1.0, 1.0]}),
        pl.DataFrame({"score": [0.1, 0.2], "label": [0, 1], "w": [1.0, math.inf]}),
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 1, 1], "w": [1.0, None, 1.0]}),
        pl.DataFrame({"score": [], "label": []}, schema={"score": pl.Float64, "label": pl.Int64}),
    ],
    ids=[
        "null_score",
        "nan_score",
        "null_label",
        "label_2",
        "only_pos",
        "only_neg",
        "negative_weight",
        "inf_weight",
        "null_weight",
        "empty",
    ],
)
def test_expression_is_null_on_invalid_groups(frame: pl.DataFrame) -> None:
    weight = "w" if "w" in frame.columns else None
    if frame.null_count().sum_horizontal().item():
        # Issue 16: a null now stops the query (nulls="raise"), as in the frame methods.
        with pytest.raises(pl.exceptions.InvalidOperationError, match="null value"):
            frame.select(pr.auc(weight=weight))
        return
    result = frame.select(pr.auc(weight=weight), pr.gini(weight=weight))
    assert result.rows() == [(None, None)]


def test_expression_invalid_group_does_not_spoil_others() -> None:
    df = pl.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b"],
            "score": [0.9, 0.2, 0.5, 0.4, None],
            "label": [1, 0, 0, 1, 0],
        }
    )
    # Issue 16: the null row is dropped (nulls="drop"), leaving b with one class.
    result = df.group_by("g").agg(pr.auc(nulls="drop")).sort("g")
    assert result.rows() == [("a", 1.0), ("b", None)]


def test_expression_rejects_bad_argument_types() -> None:
    expected = r"`score` must be a column name or a polars expression, got 3"
    with pytest.raises(TypeError, match=expected):
        pr.auc(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"`weight` must be a column name or a polars expression"):
        pr.auc("score", "label", 1.5)  # type: ignore[arg-type]


def test_single_class_group_is_null_and_named_in_warning(as_kind) -> None:
    df = pl.DataFrame(
        {
            "g": ["a", "a", "b", "b", "c", "c"],
            "score": [0.9, 0.1, 0.8, 0.3, 0.2, 0.6],
            "label": [1, 0, 0, 0, 0, 1],
        }
    )
    with pytest.warns(UserWarning, match=r"1 group\(s\) \[g='b'\] hold only one class"):
        result = pr.roc_auc(as_kind(df), by="g").lazy().collect()
    assert result.rows() == [("a", 1.0, 1, 1), ("b", None, 0, 2), ("c", 1.0, 1, 1)]


def test_ungrouped_single_class_warns() -> None:
    df = pl.DataFrame({"score": [0.2, 0.4], "label": [True, True]})
    with pytest.warns(UserWarning, match="the data holds only one class"):
        result = pr.roc_auc(df)
    assert result.rows() == [(None, 2, 0)]


@pytest.mark.parametrize("by", [None, "g"])
def test_empty_input_gives_empty_frame_with_schema(as_kind, by: str | None) -> None:
    empty = pl.DataFrame(
        {"g": [], "score": [], "label": [], "w": []},
        schema={"g": pl.String, "score": pl.Float64, "label": pl.Boolean, "w": pl.Float64},
    )
    result = pr.roc_auc(as_kind(empty), by=by, weight="w").lazy().collect()
    assert result.height == 0
    expected_schema = {"auc": pl.Float64, "n_pos": pl.Float64, "n_neg": pl.Float64}
    if by:
        expected_schema = {"g": pl.String, **expected_schema}
    assert dict(result.schema) == expected_schema


def test_kinds_dtypes_and_namespace(log: pl.DataFrame, as_kind) -> None:
    frame = as_kind(log)
    result = pr.roc_auc(frame, by=["month", "segment"])
    via_namespace = frame.roc.auc(by=["month", "segment"])
    assert type(result) is type(frame) and type(via_namespace) is type(frame)
    result = result.lazy().collect()
    assert_frame_equal(result, via_namespace.lazy().collect())
    assert result.columns == ["month", "segment", "auc", "n_pos", "n_neg"]
    assert [result.schema[c] for c in ("auc", "n_pos", "n_neg")] == [pl.Float64, pl.Int64, pl.Int64]
    assert result.select("month", "segment").rows() == sorted(
        set(zip(log["month"], log["segment"]))
    )
    weighted = frame.roc.auc(weight="count").lazy().collect()
    assert weighted.schema["n_pos"] == pl.Float64
