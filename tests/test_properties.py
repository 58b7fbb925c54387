"""Properties of the ROC views that must hold for any prediction log (hypothesis)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from _reference import pairwise_auc, trapezoid_area
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.arguments import Roles
from polars_roc.core.score_table import build
from polars_roc.core.validate import prepare

SETTINGS = settings(max_examples=20, deadline=None)
# Few distinct values, so ties within and across classes are common.
INT_SCORES = st.integers(-6, 6).map(float)
EDGE_SCORES = st.one_of(INT_SCORES, st.sampled_from([-0.0, 0.5, math.inf, -math.inf]))
WEIGHTS = st.sampled_from([0.0, 0.25, 1.0, 2.0, 3.5])
POSITIVE_WEIGHTS = st.sampled_from([0.25, 1.0, 2.0, 3.5])


@st.composite
def logs(
    draw,
    scores=INT_SCORES,
    weights=WEIGHTS,
    forced_weights=POSITIVE_WEIGHTS,
    max_groups: int = 3,
) -> pl.DataFrame:
    """A shuffled log ``[g, score, label, w]`` whose every group holds both classes."""
    rows = []
    for group in ("a", "b", "c")[: draw(st.integers(1, max_groups))]:
        forced = [
            (draw(scores), True, draw(forced_weights)),
            (draw(scores), False, draw(forced_weights)),
        ]
        extra = draw(st.lists(st.tuples(scores, st.booleans(), weights), max_size=10))
        rows += [(group, *row) for row in forced + extra]
    order = draw(st.permutations(range(len(rows))))
    return pl.DataFrame(
        [rows[i] for i in order],
        schema={"g": pl.String, "score": pl.Float64, "label": pl.Boolean, "w": pl.Float64},
        orient="row",
    )


WEIGHT_CHOICE = st.sampled_from([None, "w"])


@SETTINGS
@given(df=logs(), weight=WEIGHT_CHOICE)
def test_auc_is_a_probability_and_equals_pairwise_count(df: pl.DataFrame, weight) -> None:
    result = pr.roc_auc(df, by="g", weight=weight)
    assert result["auc"].is_between(0.0, 1.0).all()
    for group, value in result.select("g", "auc").iter_rows():
        part = df.filter(pl.col("g") == group)
        w = None if weight is None else part["w"].to_numpy()
        expected = pairwise_auc(part["score"].to_numpy(), part["label"].to_numpy(), w)
        assert math.isclose(value, expected, abs_tol=1e-12)


TRANSFORMS = {
    "affine": lambda s: 3.0 * s + 1.0,
    "cube": lambda s: s**3,
    "exp": lambda s: (s / 3).exp(),
    "arctan": lambda s: s.arctan(),
}


@SETTINGS
@given(df=logs(), weight=WEIGHT_CHOICE, name=st.sampled_from(list(TRANSFORMS)))
def test_strictly_increasing_transform_changes_nothing(df: pl.DataFrame, weight, name) -> None:
    moved = df.with_columns(TRANSFORMS[name](pl.col("score")))
    assert_frame_equal(
        pr.roc_auc(moved, by="g", weight=weight), pr.roc_auc(df, by="g", weight=weight)
    )
    rates = ["g", "tp", "fp", "tpr", "fpr"]
    assert_frame_equal(
        pr.roc_curve(moved, by="g", weight=weight).select(rates),
        pr.roc_curve(df, by="g", weight=weight).select(rates),
    )


@SETTINGS
@given(df=logs(), weight=WEIGHT_CHOICE)
def test_flipping_labels_gives_one_minus_auc(df: pl.DataFrame, weight) -> None:
    flipped = df.with_columns(~pl.col("label"))
    auc = pr.roc_auc(df, by="g", weight=weight)["auc"]
    auc_flipped = pr.roc_auc(flipped, by="g", weight=weight)["auc"]
    np.testing.assert_allclose(auc_flipped, 1.0 - auc, atol=1e-12)


@SETTINGS
@given(df=logs(scores=EDGE_SCORES), weight=WEIGHT_CHOICE)
def test_each_group_equals_its_filtered_rows(df: pl.DataFrame, weight) -> None:
    by_group = {
        "auc": pr.roc_auc(df, by="g", weight=weight),
        "curve": pr.roc_curve(df, by="g", weight=weight),
        "confusion": pr.confusion_matrix(df, [0.0, 2.0], by="g", weight=weight),
    }
    for group in df["g"].unique():
        alone = df.filter(pl.col("g") == group)
        single = {
            "auc": pr.roc_auc(alone, weight=weight),
            "curve": pr.roc_curve(alone, weight=weight),
            "confusion": pr.confusion_matrix(alone, [0.0, 2.0], weight=weight),
        }
        for view, result in by_group.items():
            mine = result.filter(pl.col("g") == group).drop("g")
            assert_frame_equal(mine, single[view], rel_tol=1e-12, abs_tol=1e-12)


@SETTINGS
@given(df=logs(scores=EDGE_SCORES), weight=WEIGHT_CHOICE)
def test_curve_is_monotone_from_origin_to_one(df: pl.DataFrame, weight) -> None:
    curve = pr.roc_curve(df, by="g", weight=weight)
    summary = curve.group_by("g").agg(
        pl.col("tpr").first().alias("tpr0"),
        pl.col("fpr").first().alias("fpr0"),
        pl.col("tpr").last().alias("tpr1"),
        pl.col("fpr").last().alias("fpr1"),
        (pl.col("tpr").diff().drop_nulls() >= 0).all().alias("tpr_up"),
        (pl.col("fpr").diff().drop_nulls() >= 0).all().alias("fpr_up"),
        # Non-increasing: the +inf start is followed by a +inf score when there is one.
        (pl.col("threshold") >= pl.col("threshold").shift(-1))
        .drop_nulls()
        .all()
        .alias("threshold_down"),
        pl.col("threshold").first().alias("start"),
    )
    assert (summary["start"] == math.inf).all()
    assert (summary["tpr0"] == 0).all() and (summary["fpr0"] == 0).all()
    assert (summary["tpr1"] == 1).all() and (summary["fpr1"] == 1).all()
    assert summary["tpr_up"].all() and summary["fpr_up"].all()
    assert summary["threshold_down"].all()


@SETTINGS
@given(df=logs(scores=EDGE_SCORES), weight=WEIGHT_CHOICE)
def test_auc_is_the_area_under_the_curve(df: pl.DataFrame, weight) -> None:
    curve = pr.roc_curve(df, by="g", weight=weight, drop_intermediate=True)
    for group, value in pr.roc_auc(df, by="g", weight=weight).select("g", "auc").iter_rows():
        points = curve.filter(pl.col("g") == group)
        area = trapezoid_area(points["fpr"].to_list(), points["tpr"].to_list())
        assert math.isclose(area, value, abs_tol=1e-12)


@SETTINGS
@given(
    df=logs(
        weights=st.sampled_from([1.0, 2.0, 3.0]), forced_weights=st.sampled_from([1.0, 2.0, 3.0])
    )
)
def test_integer_weights_equal_duplicated_rows(df: pl.DataFrame) -> None:
    repeated = df[np.repeat(np.arange(df.height), df["w"].cast(pl.Int64).to_numpy())]
    twice = pl.concat([df, df])
    for weighted, duplicated in ((df, repeated), (df.with_columns(w=2.0), twice)):
        assert_frame_equal(
            pr.roc_auc(weighted, by="g", weight="w"),
            pr.roc_auc(duplicated, by="g"),
            check_dtypes=False,
            rel_tol=1e-12,
        )
        assert_frame_equal(
            pr.roc_curve(weighted, by="g", weight="w"),
            pr.roc_curve(duplicated, by="g"),
            check_dtypes=False,
            rel_tol=1e-12,
        )
        assert_frame_equal(
            pr.confusion_matrix(weighted, [-1.0, 0.0, 3.0], by="g", weight="w"),
            pr.confusion_matrix(duplicated, [-1.0, 0.0, 3.0], by="g"),
            check_dtypes=False,
            rel_tol=1e-12,
        )


@SETTINGS
@given(df=logs(), weight=WEIGHT_CHOICE)
def test_auc_expression_equals_frame_function(df: pl.DataFrame, weight) -> None:
    expected = pr.roc_auc(df, by="g", weight=weight).select("g", "auc")
    expr = pr.auc("score", "label", weight)
    aggregated = df.group_by("g").agg(expr).sort("g")
    assert_frame_equal(aggregated, expected, rel_tol=1e-12, abs_tol=1e-12)
    over = df.with_columns(expr.over("g")).select("g", "auc").unique().sort("g")
    assert_frame_equal(over, expected, rel_tol=1e-12, abs_tol=1e-12)
    one = df.filter(pl.col("g") == "a")
    assert math.isclose(
        one.select(expr).item(),
        pr.roc_auc(one, weight=weight)["auc"].item(),
        abs_tol=1e-12,
    )


@SETTINGS
@given(df=logs(scores=EDGE_SCORES), weight=WEIGHT_CHOICE)
def test_confusion_at_curve_thresholds_gives_curve_counts(df: pl.DataFrame, weight) -> None:
    curve = pr.roc_curve(df, weight=weight)
    thresholds = curve["threshold"].to_list()
    counts = pr.confusion_matrix(df, thresholds, weight=weight)
    # The curve's +inf start predicts nothing, unlike the threshold +inf over +inf scores.
    columns = ["threshold", "tp", "fp", "fn", "tn"]
    assert_frame_equal(counts.select(columns).slice(1), curve.select(columns).slice(1))


@SETTINGS
@given(df=logs(scores=EDGE_SCORES), by=st.sampled_from([[], ["g"]]), weight=WEIGHT_CHOICE)
def test_hash_and_sort_paths_agree(df: pl.DataFrame, by: list[str], weight) -> None:
    # Weights are multiples of 1/4, so sums are exact in any order.
    prep = prepare(df, Roles(by=by, weight=weight))
    assert_frame_equal(
        build(prep, path="hash").collect(),
        build(prep, path="sort").collect(),
        check_exact=True,
    )


WILD_WEIGHTS = st.sampled_from([0.0, 0.1, 0.3, 7.25, 3.1e8, 2.9e12])


@SETTINGS
@given(df=logs(weights=WILD_WEIGHTS, forced_weights=WILD_WEIGHTS.filter(bool)))
def test_groups_do_not_leak_into_each_other(df: pl.DataFrame) -> None:
    # Weights of very different magnitudes in different groups: each group's numbers
    # must still be those of its own rows (no cancellation against other groups).
    by_group = pr.confusion_matrix(df, [0.0, 2.0], by="g", weight="w")
    aucs = pr.roc_auc(df, by="g", weight="w")
    for group in df["g"].unique():
        alone = df.filter(pl.col("g") == group)
        mine = by_group.filter(pl.col("g") == group).drop("g")
        single = pr.confusion_matrix(alone, [0.0, 2.0], weight="w")
        assert_frame_equal(mine, single, rel_tol=1e-9, abs_tol=1e-12)
        assert math.isclose(
            aucs.filter(pl.col("g") == group)["auc"].item(),
            pr.roc_auc(alone, weight="w")["auc"].item(),
            rel_tol=1e-9,
        )
