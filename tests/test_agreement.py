"""Whole-matrix agreement (polars_roc.evaluation.agreement) against scikit-learn's
cohen_kappa_score (plain, linear, quadratic), matthews_corrcoef and
balanced_accuracy_score(adjusted=True)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import polars_roc as pr

GRADES = ["A", "B", "C", "D"]


def _ratings(seed: int, n: int = 300) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n)
    noise = rng.choice([-1, 0, 0, 0, 1, 2], n)
    guess = np.clip(truth + noise, 0, 3)
    return pl.DataFrame(
        {
            "seg": rng.choice(["x", "y"], n),
            "label": np.array(GRADES)[truth],
            "guess": np.array(GRADES)[guess],
            "w": rng.random(n) + 0.2,
        }
    )


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kappa_weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_sklearn_per_segment(seed: int, kappa_weights, weighted: bool) -> None:
    log = _ratings(seed)
    out = pr.multiclass_agreement(
        log.lazy(),
        predicted="guess",
        classes=GRADES,
        by="seg",
        weight="w" if weighted else None,
        kappa_weights=kappa_weights,
    ).collect()
    assert out["seg"].to_list() == ["x", "y"]
    for row in out.iter_rows(named=True):
        part = log.filter(pl.col("seg") == row["seg"])
        y, p = part["label"].to_list(), part["guess"].to_list()
        w = part["w"].to_numpy() if weighted else None
        kappa = skm.cohen_kappa_score(y, p, weights=kappa_weights, sample_weight=w)
        assert row["kappa"] == pytest.approx(kappa, rel=1e-12)
        assert row["mcc"] == pytest.approx(skm.matthews_corrcoef(y, p, sample_weight=w), rel=1e-12)
        assert row["accuracy"] == pytest.approx(skm.accuracy_score(y, p, sample_weight=w))
        assert row["balanced_accuracy"] == pytest.approx(
            skm.balanced_accuracy_score(y, p, sample_weight=w), rel=1e-12
        )
        assert row["balanced_accuracy_adjusted"] == pytest.approx(
            skm.balanced_accuracy_score(y, p, sample_weight=w, adjusted=True), rel=1e-12
        )


def test_scores_path_and_namespace() -> None:
    rng = np.random.default_rng(3)
    n = 120
    df = pl.DataFrame(
        {
            "label": rng.choice(["cat", "dog", "eel"], n),
            "p_cat": rng.random(n),
            "p_dog": rng.random(n),
            "p_eel": rng.random(n),
        }
    )
    scores = {"cat": "p_cat", "dog": "p_dog", "eel": "p_eel"}
    out = df.roc.multiclass_agreement(scores)
    predicted = np.array(["cat", "dog", "eel"])[
        df.select("p_cat", "p_dog", "p_eel").to_numpy().argmax(axis=1)
    ]
    y = df["label"].to_numpy()
    assert out["kappa"].item() == pytest.approx(skm.cohen_kappa_score(y, predicted), rel=1e-12)
    assert out["mcc"].item() == pytest.approx(skm.matthews_corrcoef(y, predicted), rel=1e-12)


def test_one_class_predicted_gives_null_mcc_not_zero() -> None:
    df = pl.DataFrame({"label": ["a", "b", "c"], "guess": ["a", "a", "a"]})
    out = pr.multiclass_agreement(df, predicted="guess", classes=["a", "b", "c"])
    assert out["mcc"].item() is None  # sklearn says 0.0
    assert out["kappa"].item() == 0.0


def test_bad_kappa_weights_is_refused() -> None:
    match = r"`kappa_weights` must be None, 'linear' or 'quadratic', got 'square'"
    with pytest.raises(ValueError, match=match):
        pr.multiclass_agreement(
            _ratings(0), predicted="guess", classes=GRADES, kappa_weights="square"
        )
