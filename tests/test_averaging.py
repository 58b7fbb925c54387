"""Vertical and threshold averaging of ROC curves across folds (polars_roc.evaluation.averaging)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_curve

import polars_roc as pr
from polars_roc.exceptions import SingleClassWarning

KINDS = ["eager", "lazy"]


def as_kind(frame: pl.DataFrame, kind: str) -> pl.DataFrame | pl.LazyFrame:
    return frame if kind == "eager" else frame.lazy()


def collected(result: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return result.collect() if isinstance(result, pl.LazyFrame) else result


def predictions(n_folds: int = 5, per_fold: int = 40, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = n_folds * per_fold
    label = rng.integers(0, 2, n)
    score = np.round(rng.normal(label * 1.0, 1.0), 1)  # rounded: tied scores
    return pl.DataFrame(
        {
            "segment": np.where(rng.random(n) < 0.5, "north", "south"),
            "fold": np.repeat(np.arange(n_folds), per_fold),
            "score": score,
            "label": label,
            "weight": rng.integers(1, 4, n),
        }
    )


def numpy_vertical(frame: pl.DataFrame, rates: np.ndarray) -> np.ndarray:
    """TPR of each fold's curve at ``rates``: numpy.interp over scikit-learn's points."""
    curves = []
    for _, part in frame.group_by("fold", maintain_order=True):
        fpr, tpr, _ = roc_curve(part["label"], part["score"], drop_intermediate=False)
        curves.append(np.interp(rates, fpr, tpr))
    return np.array(curves)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("by", [None, "segment"])
def test_vertical_against_numpy_interpolation(kind: str, by: str | None) -> None:
    preds = predictions()
    rates = np.arange(21) / 20
    result = collected(pr.average_curve(as_kind(preds, kind), grid=21, by=by))
    assert result.columns == [
        *([by] if by else []),
        "fpr",
        "tpr",
        "tpr_std",
        "tpr_lower",
        "tpr_upper",
        "n_curves",
    ]
    segments = ["north", "south"] if by else [None]
    for segment in segments:
        subset = preds if segment is None else preds.filter(pl.col("segment") == segment)
        ours = result if segment is None else result.filter(pl.col("segment") == segment)
        curves = numpy_vertical(subset, rates)
        np.testing.assert_allclose(ours["fpr"], rates, atol=0)
        np.testing.assert_allclose(ours["tpr"], curves.mean(axis=0), atol=1e-12)
        np.testing.assert_allclose(ours["tpr_std"], curves.std(axis=0, ddof=1), atol=1e-12)
        lower = np.clip(curves.mean(axis=0) - curves.std(axis=0, ddof=1), 0, 1)
        np.testing.assert_allclose(ours["tpr_lower"], lower, atol=1e-12)
        assert ours["n_curves"].to_list() == [5] * 21


def test_vertical_takes_the_top_of_a_vertical_rise() -> None:
    # One fold: positives 0.9, 0.8, negative 0.7, positive 0.6, negative 0.5. At FPR 0
    # the curve rises to TPR 2/3; at FPR 0.5 to TPR 1.
    preds = pl.DataFrame(
        {
            "fold": [0] * 5,
            "score": [0.9, 0.8, 0.7, 0.6, 0.5],
            "label": [1, 1, 0, 1, 0],
        }
    )
    result = pr.average_curve(preds, grid=[0.0, 0.25, 0.5, 0.75, 1.0])
    assert result["tpr"].to_list() == pytest.approx([2 / 3, 2 / 3, 1.0, 1.0, 1.0])
    assert result["tpr_std"].to_list() == [None] * 5


def test_vertical_interpolates_between_points() -> None:
    # Ties make a diagonal step from (0, 0) to (1, 1): TPR = FPR.
    preds = pl.DataFrame({"fold": [0, 0, 0, 0], "score": [0.5] * 4, "label": [1, 0, 1, 0]})
    result = pr.average_curve(preds, grid=5)
    assert result["tpr"].to_list() == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0])


def test_vertical_weighted_equals_repeated_rows() -> None:
    preds = predictions(n_folds=3, per_fold=20)
    weighted = pr.average_curve(preds, weight="weight", grid=11)
    repeated = preds.select(pl.all().repeat_by("weight").explode()).drop("weight")
    assert_frame_equal(weighted, pr.average_curve(repeated, grid=11), abs_tol=1e-12)


def test_quantile_band() -> None:
    preds = predictions()
    rates = np.arange(11) / 10
    result = pr.average_curve(preds, grid=11, band="quantile", conf_level=0.8)
    curves = numpy_vertical(preds, rates)
    np.testing.assert_allclose(result["tpr_lower"], np.quantile(curves, 0.1, axis=0), atol=1e-12)
    np.testing.assert_allclose(result["tpr_upper"], np.quantile(curves, 0.9, axis=0), atol=1e-12)


def test_single_class_folds_are_left_out() -> None:
    preds = predictions(n_folds=3, per_fold=20).with_columns(
        pl.when(pl.col("fold") == 2).then(1).otherwise(pl.col("label")).alias("label")
    )
    with pytest.warns(UserWarning, match=r"fold=2.*only one class"):
        result = pr.average_curve(preds, grid=6)
    assert result["n_curves"].to_list() == [2] * 6
    curves = numpy_vertical(preds.filter(pl.col("fold") < 2), np.arange(6) / 5)
    np.testing.assert_allclose(result["tpr"], curves.mean(axis=0), atol=1e-12)


def brute_threshold(frame: pl.DataFrame, thresholds: list[float]) -> tuple[np.ndarray, np.ndarray]:
    fprs, tprs = [], []
    for _, part in frame.group_by("fold", maintain_order=True):
        score, label = part["score"].to_numpy(), part["label"].to_numpy() == 1
        fprs.append([np.mean(score[~label] >= t) for t in thresholds])
        tprs.append([np.mean(score[label] >= t) for t in thresholds])
    return np.array(fprs), np.array(tprs)


@pytest.mark.parametrize("kind", KINDS)
def test_threshold_averaging_at_given_thresholds(kind: str) -> None:
    preds = predictions()
    thresholds = [2.0, 1.0, 0.45, 0.0, -0.5, -3.0]
    result = collected(pr.average_curve(as_kind(preds, kind), method="threshold", grid=thresholds))
    assert result.columns == [
        "threshold",
        "fpr",
        "tpr",
        "fpr_std",
        "fpr_lower",
        "fpr_upper",
        "tpr_std",
        "tpr_lower",
        "tpr_upper",
        "n_curves",
    ]
    fpr, tpr = brute_threshold(preds, thresholds)
    assert result["threshold"].to_list() == thresholds
    np.testing.assert_allclose(result["fpr"], fpr.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(result["tpr"], tpr.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(result["fpr_std"], fpr.std(axis=0, ddof=1), atol=1e-12)
    np.testing.assert_allclose(result["tpr_std"], tpr.std(axis=0, ddof=1), atol=1e-12)


def test_threshold_averaging_default_grid_per_segment() -> None:
    preds = predictions()
    result = pr.average_curve(preds, method="threshold", grid=11, by="segment")
    for segment in ("north", "south"):
        ours = result.filter(pl.col("segment") == segment)
        thresholds = ours["threshold"].to_list()
        assert thresholds[0] == float("inf")
        assert thresholds == sorted(thresholds, reverse=True)
        assert len(thresholds) <= 12
        subset = preds.filter(pl.col("segment") == segment)
        # Thresholds are scores of the segment, from its highest to its lowest.
        assert thresholds[1] == subset["score"].max()
        assert thresholds[-1] == subset["score"].min()
        assert set(thresholds[1:]) <= set(subset["score"].to_list())
        assert ours.select("fpr", "tpr").row(0) == (0.0, 0.0)
        assert ours.select("fpr", "tpr").row(-1) == (1.0, 1.0)
        fpr, tpr = brute_threshold(subset, thresholds)
        np.testing.assert_allclose(ours["tpr"], tpr.mean(axis=0), atol=1e-12)
        np.testing.assert_allclose(ours["fpr"], fpr.mean(axis=0), atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 6), st.booleans()), min_size=8, max_size=40
    ),
    grid=st.integers(2, 12),
)
def test_vertical_property_against_numpy(data: list, grid: int) -> None:
    frame = pl.DataFrame(
        {
            "fold": [d[0] for d in data],
            "score": [d[1] / 6 for d in data],
            "label": [d[2] for d in data],
        }
    )
    both = frame.group_by("fold").agg(pl.col("label").any() & (~pl.col("label")).any())
    keep = both.filter(pl.col("label"))["fold"]
    frame = frame.filter(pl.col("fold").is_in(keep.implode()))
    if frame.height == 0:
        return
    result = pr.average_curve(frame.sort("fold"), grid=grid)
    rates = np.arange(grid) / (grid - 1)
    curves = numpy_vertical(frame.sort("fold"), rates)
    np.testing.assert_allclose(result["tpr"], curves.mean(axis=0), atol=1e-12)
    if len(curves) > 1:
        assert (result["tpr_lower"] <= result["tpr"]).all()
        assert (result["tpr"] <= result["tpr_upper"]).all()
    else:
        assert result["tpr_std"].is_null().all()


def test_namespace_average_curve() -> None:
    preds = predictions()
    assert_frame_equal(
        preds.roc.average_curve(method="threshold", grid=5, by="segment"),
        pr.average_curve(preds, method="threshold", grid=5, by="segment"),
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "horizontal"}, ValueError, "`method` must be 'vertical' or 'threshold'"),
        ({"band": "ci"}, ValueError, "`band` must be 'std' or 'quantile'"),
        ({"conf_level": 1.0}, ValueError, "`conf_level` must be strictly between 0 and 1"),
        ({"grid": 1}, ValueError, "`grid` must be an integer >= 2"),
        ({"grid": [0.5, 1.5]}, ValueError, r"false-positive rates in \[0, 1\]"),
        ({"grid": [], "method": "threshold"}, ValueError, "non-NaN thresholds"),
        ({"fold": "split"}, pl.exceptions.ColumnNotFoundError, "fold column 'split' not found"),
        ({"by": "fold"}, ValueError, "cannot also be a `by` column"),
    ],
)
def test_average_curve_errors(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        pr.average_curve(predictions(n_folds=2, per_fold=10), **kwargs)


def test_threshold_averaging_hand_computed() -> None:
    preds = pl.DataFrame(
        {
            "fold": [0, 0, 0, 0, 1, 1, 1, 1],
            "score": [0.9, 0.4, 0.6, 0.1, 0.8, 0.3, 0.2, 0.7],
            "label": [1, 1, 0, 0, 1, 0, 1, 0],
        }
    )
    result = pr.average_curve(preds, method="threshold", grid=4)
    # Pooled scores 0.9 0.8 0.7 0.6 0.4 0.3 0.2 0.1; order statistics 0, 2, 5, 7.
    assert result["threshold"].to_list() == [float("inf"), 0.9, 0.7, 0.3, 0.1]
    # At 0.3: fold 0 has tp 2/2, fp 1/2; fold 1 has tp 1/2, fp 2/2.
    assert result["fpr"].to_list() == pytest.approx([0.0, 0.0, 0.25, 0.75, 1.0])
    assert result["tpr"].to_list() == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0])
    assert result["n_curves"].to_list() == [2] * 5


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", ["vertical", "threshold"])
def test_empty_input_gives_empty_result(kind: str, method: str) -> None:
    empty = pl.DataFrame(schema={"fold": pl.Int64, "score": pl.Float64, "label": pl.Boolean})
    result = collected(pr.average_curve(as_kind(empty, kind), method=method))
    assert result.height == 0
    assert result.columns[:3] == (
        ["fpr", "tpr", "tpr_std"] if method == "vertical" else ["threshold", "fpr", "tpr"]
    )


@pytest.mark.parametrize("method", ["vertical", "threshold"])
def test_null_segment_and_null_fold_are_groups_like_any_other(method: str) -> None:
    preds = predictions(n_folds=3, per_fold=20)
    named = preds.with_columns(pl.lit("s").alias("segment"))
    nulled = named.with_columns(
        pl.lit(None, dtype=pl.String).alias("segment"),
        pl.when(pl.col("fold") == 0).then(None).otherwise(pl.col("fold")).alias("fold"),
    )
    expected = pr.average_curve(named, method=method, by="segment", grid=7).drop("segment")
    result = pr.average_curve(nulled, method=method, by="segment", grid=7)
    assert result["segment"].is_null().all()
    assert_frame_equal(result.drop("segment"), expected)


@pytest.mark.parametrize("kind", ["eager", "lazy"])
def test_single_class_warning_says_the_fold_is_left_out_not_an_auc(kind: str) -> None:
    # average_curve reports no AUC: its warning says what happens to the fold instead.
    preds = predictions(n_folds=3, per_fold=20).with_columns(
        pl.when(pl.col("fold") == 2).then(1).otherwise(pl.col("label")).alias("label")
    )
    frame = preds if kind == "eager" else preds.lazy()
    with pytest.warns(SingleClassWarning) as caught:
        pr.average_curve(frame, grid=6)
    messages = [str(w.message) for w in caught]
    assert messages == [
        "1 group(s) [fold=2] hold only one class; they have no ROC curve "
        "and are left out of the average"
    ]
