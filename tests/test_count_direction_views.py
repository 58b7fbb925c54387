"""count= and direction= on the views of issue 17 (optimal and bootstrapped cutpoints,
DET curve, Davis-Goadrich PR area, multi-class agreement): a count table gives what its
expanded rows give, and direction="lower" gives what the negated score gives, with the
thresholds negated back."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr


def _counted(seed: int = 3, cells: int = 40) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], cells),
            # Few distinct scores: ties across cells and labels.
            "score": np.round(rng.uniform(0.05, 0.95, cells), 1),
            "label": rng.integers(0, 2, cells),
            "n": rng.integers(0, 5, cells),  # zeros: a cell that stands for no row
        }
    )


def _expanded(counted: pl.DataFrame) -> pl.DataFrame:
    """Each cell as ``n`` rows, in the cells' order."""
    # Zero-count cells left out first: Polars 1.x explodes an empty list to a null row.
    nonzero = counted.filter(pl.col("n") > 0)
    return nonzero.with_columns(pl.exclude("n").repeat_by("n")).explode(pl.exclude("n")).drop("n")


VIEWS: dict[str, Callable[..., pl.DataFrame]] = {
    "optimal_cutpoint": lambda f, **k: pr.optimal_cutpoint(f, "accuracy", ties="all", **k),
    "optimal_cutpoint_f1": lambda f, **k: pr.optimal_cutpoint(f, "f1", goal="maximize", **k),
    "bootstrap_cutpoint": lambda f, **k: pr.bootstrap_cutpoint(
        f, "youden_j", n_boot=12, seed=4, **k
    ),
    "bootstrap_summary": lambda f, **k: pr.bootstrap_cutpoint(
        f, "accuracy", n_boot=12, seed=9, summary=True, **k
    ),
    "det_curve": lambda f, **k: pr.det_curve(f, **k),
    "det_curve_dropped": lambda f, **k: pr.det_curve(f, drop_intermediate=True, **k),
    "pr_auc": lambda f, **k: pr.pr_auc(f, **k),
}


@pytest.mark.parametrize("by", [None, "g"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_count_table_equals_expanded_rows(view: str, by: str | None) -> None:
    counted = _counted()
    if by is None:
        counted = counted.drop("g")
    rows = _expanded(counted)
    assert rows.height == counted["n"].sum()
    expected = VIEWS[view](rows, by=by)
    assert expected.height > 0
    got = VIEWS[view](counted, by=by, count="n")
    assert_frame_equal(got, expected, check_dtypes=False, abs_tol=1e-12)
    lazy = VIEWS[view](counted.lazy(), by=by, count="n")
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), got)


THRESHOLDS = ("threshold", "threshold_mean", "threshold_lower", "threshold_upper")


@pytest.mark.parametrize("by", [None, "g"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_lower_direction_is_the_negated_score(view: str, by: str | None) -> None:
    rows = _expanded(_counted(seed=5))
    if by is None:
        rows = rows.drop("g")
    got = VIEWS[view](rows, by=by, direction="lower")
    negated = VIEWS[view](rows.with_columns(-pl.col("score")), by=by)
    back = {
        "threshold_lower": -pl.col("threshold_upper"),
        "threshold_upper": -pl.col("threshold_lower"),
    }
    present = [c for c in THRESHOLDS if c in negated.columns]
    expected = negated.with_columns(back.get(c, -pl.col(c)).alias(c) for c in present)
    assert_frame_equal(got, expected, abs_tol=1e-12)


def test_lower_direction_picks_a_different_cutpoint() -> None:
    # Not a vacuous check: with the score reversed the best accuracy is elsewhere.
    rows = _expanded(_counted(seed=5)).drop("g")
    higher = pr.optimal_cutpoint(rows, "accuracy")
    lower = pr.optimal_cutpoint(rows, "accuracy", direction="lower")
    assert higher["threshold"].item() != lower["threshold"].item()
    # direction="lower": predicted positive when score <= threshold.
    at = lower["threshold"].item()
    predicted = rows["score"] <= at
    truth = rows["label"] == 1
    assert lower["tp"].item() == (predicted & truth).sum()
    assert lower["fp"].item() == (predicted & ~truth).sum()


def test_bootstrap_of_counts_draws_units() -> None:
    # One cell of 50 positives and one of 50 negatives: a row-level draw would give each
    # replicate 0, 1 or 2 cells; a unit draw gives about 50 of each.
    counted = pl.DataFrame({"score": [0.8, 0.2], "label": [1, 0], "n": [50, 50]})
    boot = pr.bootstrap_cutpoint(counted, "accuracy", count="n", n_boot=20, seed=1)
    assert boot["threshold"].null_count() == 0
    assert (boot["accuracy_in_bag"] == 1.0).all()


@pytest.mark.parametrize("by", [None, "g"])
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_multiclass_agreement_count_table_equals_rows(by: str | None, weights: str | None) -> None:
    rng = np.random.default_rng(8)
    cells = 30
    counted = pl.DataFrame(
        {
            "g": rng.choice(["x", "y"], cells),
            "label": rng.choice(["lo", "mid", "hi"], cells),
            "guess": rng.choice(["lo", "mid", "hi"], cells),
            "n": rng.integers(0, 6, cells),
        }
    )
    if by is None:
        counted = counted.drop("g")
    options = {
        "predicted": "guess",
        "classes": ["hi", "lo", "mid"],
        "by": by,
        "kappa_weights": weights,
    }
    expected = pr.multiclass_agreement(_expanded(counted), **options)
    got = pr.multiclass_agreement(counted, count="n", **options)
    assert_frame_equal(got, expected, check_dtypes=False, abs_tol=1e-12)
    via_namespace = counted.roc.multiclass_agreement(count="n", **options)
    assert_frame_equal(via_namespace, got)


@pytest.mark.parametrize("view", ["optimal_cutpoint", "det_curve", "pr_auc"])
def test_bad_count_column(view: str) -> None:
    frame = _counted().with_columns(pl.col("n") - 3)
    with pytest.raises(ValueError, match=r"count"):
        VIEWS[view](frame, count="n")
