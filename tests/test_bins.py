"""The binned counter (``bins=``): monotone buckets, exact points, a certified AUC bound."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocOptionError


def make_log(seed: int, n: int = 5000, scale: float = 1.0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    latent = rng.normal(label * 0.8, 1.0) * scale
    return pl.DataFrame({"g": rng.integers(0, 3, size=n), "score": 1 / (1 + np.exp(-latent)),
                         "label": label})  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), bins=st.sampled_from([2, 3, 16, 100, 4096, 1 << 20]),
       scale=st.sampled_from([0.01, 1.0, 20.0]), lower=st.booleans())  # fmt: skip
def test_exact_auc_lies_within_the_bound(seed: int, bins: int, scale: float, lower: bool) -> None:
    log = make_log(seed, n=600, scale=scale)
    direction = "lower" if lower else "higher"
    exact = pr.roc_auc(log, by="g", direction=direction)
    binned = pr.roc_auc(log, by="g", bins=bins, direction=direction)
    assert binned.columns == ["g", "auc", "auc_bound", "n_pos", "n_neg"]
    assert binned.select("n_pos", "n_neg").equals(exact.select("n_pos", "n_neg"))
    gap = (binned["auc"] - exact["auc"]).abs()
    assert (gap <= binned["auc_bound"] + 1e-15).all()
    assert (binned["auc_bound"] >= 0).all()


def test_bucket_points_are_exact_points_of_the_curve() -> None:
    log = make_log(1)
    binned = pr.roc_curve(log, by="g", bins=64)
    thresholds = binned.filter(pl.col("threshold").is_finite())["threshold"].unique().to_list()
    exact = pr.confusion_matrix(log, thresholds, by="g").select("g", "threshold", "tp", "fp")
    assert_frame_equal(
        binned.filter(pl.col("threshold").is_finite()).select("g", "threshold", "tp", "fp"),
        exact.join(binned.select("g", "threshold"), on=["g", "threshold"], how="semi"),
        check_row_order=False,
    )
    assert binned.group_by("g").len()["len"].max() <= 64 + 1


def test_a_bucket_per_score_is_exact_and_bound_zero() -> None:
    rng = np.random.default_rng(2)
    log = pl.DataFrame({"score": rng.integers(0, 8, 1000).astype(float),
                        "label": rng.integers(0, 2, 1000)})  # fmt: skip
    # Integer scores 0..7 as Float64 order bits: with enough buckets each holds one score.
    binned = pr.roc_auc(log, bins=1 << 24)
    assert binned["auc_bound"][0] == 0.0
    assert binned["auc"][0] == pr.roc_auc(log)["auc"][0]


def test_the_bound_shrinks_with_the_buckets_and_meets_1e4() -> None:
    log = make_log(3, n=200_000)
    bounds = [pr.roc_auc(log, bins=b)["auc_bound"][0] for b in (64, 1024, 65536)]
    assert bounds[0] > bounds[1] > bounds[2]
    assert bounds[2] <= 1e-4


def test_binned_plan_runs_on_the_streaming_engine_without_python() -> None:
    lf = make_log(4).lazy()
    plan = lf.roc.auc(by="g", bins=1024)
    assert "python" not in plan.explain().lower()
    assert_frame_equal(plan.collect(engine="streaming"), plan.collect())


def test_counts_and_bins_together() -> None:
    log = make_log(5).with_columns(pl.col("score").round(3))
    table = log.group_by("g", "score", "label").len("n")
    assert_frame_equal(pr.roc_auc(table, by="g", count="n", bins=256),
                       pr.roc_auc(log, by="g", bins=256))  # fmt: skip


@pytest.mark.parametrize("bins", [1, 0, 2.5, "many", True, (1 << 24) + 1])
def test_bad_bins_are_refused(bins: object) -> None:
    with pytest.raises(RocOptionError, match=r"`bins` must be None or an integer from 2 to"):
        pr.roc_auc(make_log(0, n=10), bins=bins)  # type: ignore[arg-type]


def test_bins_with_an_interval_is_refused() -> None:
    with pytest.raises(RocOptionError, match=r"bins= gives a point estimate"):
        pr.roc_auc(make_log(0, n=10), bins=64, ci="delong")
