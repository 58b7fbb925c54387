"""``bins=``: equal-width buckets per group, exact points, a certified AUC bound."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core import bucket_arrays, buckets
from polars_roc.exceptions import RocOptionError
from tests._engine_buckets import by_hand_buckets, hand_bound


def make_log(seed: int, n: int = 5000, scale: float = 1.0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    latent = rng.normal(label * 0.8, 1.0) * scale
    return pl.DataFrame(
        {"g": rng.integers(0, 3, size=n), "score": 1 / (1 + np.exp(-latent)), "label": label}
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    bins=st.sampled_from([2, 3, 16, 100, 4096, 1 << 20]),
    scale=st.sampled_from([0.01, 1.0, 20.0]),
    lower=st.booleans(),
)
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
    log = pl.DataFrame(
        {"score": rng.integers(0, 8, 1000).astype(float), "label": rng.integers(0, 2, 1000)}
    )
    # Integer scores 0..7: with enough buckets each holds one score.
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
    assert_frame_equal(
        pr.roc_auc(table, by="g", count="n", bins=256), pr.roc_auc(log, by="g", bins=256)
    )


@pytest.mark.parametrize("bins", [1, 0, 2.5, "many", True, (1 << 24) + 1])
def test_bad_bins_are_refused(bins: object) -> None:
    with pytest.raises(RocOptionError, match=r"`bins` must be None or an integer from 2 to"):
        pr.roc_auc(make_log(0, n=10), bins=bins)  # type: ignore[arg-type]


def test_bins_with_an_interval_is_refused() -> None:
    with pytest.raises(RocOptionError, match=r"bins= gives a point estimate"):
        pr.roc_auc(make_log(0, n=10), bins=64, ci="delong")


def _nulls_and_weights(seed: int) -> pl.DataFrame:
    log = make_log(seed, n=3000)
    rng = np.random.default_rng(seed)
    return log.with_columns(
        g=pl.when(pl.col("g") == 2).then(None).otherwise(pl.col("g")),
        w=pl.Series(rng.random(len(log)) * 3),
        n=pl.Series(rng.integers(0, 4, len(log))),
    )


@pytest.mark.parametrize(
    "options",
    [
        {"by": "g"},
        {},
        {"by": "g", "direction": "lower"},
        {"by": "g", "weight": "w"},
        {"by": "g", "count": "n"},
    ],
)
def test_large_lazy_sources_counted_in_slices_equal_one_plan(
    monkeypatch: pytest.MonkeyPatch, options: dict
) -> None:
    # Past CHUNK_ROWS rows the rows are counted slice by slice into the same cells:
    # the same table as one slice (weights too: they add in row order). The bound's
    # slices of whole groups give the bits of one group_by over all buckets.
    log = _nulls_and_weights(7)
    expected = pr.roc_auc(log, bins=128, **options)
    curve = pr.roc_curve(log, bins=128, **options)
    monkeypatch.setattr(bucket_arrays, "CHUNK_ROWS", 700)
    monkeypatch.setattr(buckets, "BOUND_SLICE_ROWS", 50)
    assert_frame_equal(pr.roc_auc(log.lazy(), bins=128, **options).collect(), expected)
    assert_frame_equal(pr.roc_curve(log.lazy(), bins=128, **options).collect(), curve)


def test_buckets_are_equal_width_and_crowds_show_in_the_bound() -> None:
    # Buckets split the group's range, not its mass: scores crowded near 0.1 with a few
    # down to 0 put the crowd in one bucket, and the bound says so (it is certified,
    # not small).
    rng = np.random.default_rng(8)
    score = np.concatenate([0.1 + rng.random(20_000) * 1e-3, rng.random(200) * 1e-6])
    log = pl.DataFrame({"score": score, "label": rng.random(len(score)) < 0.3})
    table = pr.score_table(log, bins=100)
    assert len(table) <= 100
    binned, exact = pr.roc_auc(log, bins=100), pr.roc_auc(log)
    assert abs(binned["auc"][0] - exact["auc"][0]) <= binned["auc_bound"][0]
    assert binned["auc_bound"][0] > 0.1
    # Without the outliers the same buckets spread over the crowd.
    crowd = pr.roc_auc(log.filter(pl.col("score") > 0.05), bins=100)
    assert crowd["auc_bound"][0] < 0.02


def test_bound_below_1e4_with_8192_buckets_by_segment() -> None:
    # The benchmark's kind of log (logistic scores, 10% positives), 40 segments.
    rng = np.random.default_rng(9)
    n = 400_000
    label = rng.random(n) < 0.1
    log = pl.DataFrame(
        {
            "segment": rng.integers(0, 40, n),
            "score": 1 / (1 + np.exp(-(rng.normal(size=n) + 1.2 * label - 2))),
            "label": label,
        }
    )
    binned = pr.roc_auc(log, by="segment", bins=8192)
    exact = pr.roc_auc(log, by="segment")
    assert binned["auc_bound"].max() <= 1e-4
    assert ((binned["auc"] - exact["auc"]).abs() <= binned["auc_bound"]).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), bins=st.sampled_from([2, 5, 64, 1000]))
def test_weighted_exact_auc_lies_within_the_bound(seed: int, bins: int) -> None:
    log = _nulls_and_weights(seed).with_columns(pl.col("score").round(2))
    exact = pr.roc_auc(log, by="g", weight="w")
    binned = pr.roc_auc(log, by="g", weight="w", bins=bins)
    gap = (binned["auc"] - exact["auc"]).abs()
    assert (gap <= binned["auc_bound"] + 1e-12).all()


def test_lazy_one_class_group_gives_null_auc_and_bound_and_one_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = _nulls_and_weights(11).with_columns(
        label=pl.when(pl.col("g") == 1).then(0).otherwise(pl.col("label"))
    )
    with pytest.warns(UserWarning, match="only one class"):
        expected = pr.roc_auc(log, by="g", bins=256)
    monkeypatch.setattr(bucket_arrays, "CHUNK_ROWS", 500)
    with pytest.warns(UserWarning, match="only one class"):
        found = pr.roc_auc(log.lazy(), by="g", bins=256)  # warned when the call is made
    found = found.collect()
    assert_frame_equal(found, expected)
    one_class = found.filter(pl.col("g") == 1)
    assert one_class["auc"].is_null().all() and one_class["auc_bound"].is_null().all()


_SCORES = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, float("inf"), -float("inf"), 1e-300, -2.5]),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(0.1, 0.1001),
    st.sampled_from([1e308, -1e308]),
)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from([0, 1, None]), _SCORES, st.booleans(), st.sampled_from([0.0, 0.5, 2.0])
        ),
        min_size=1,
        max_size=80,
    ),
    bins=st.sampled_from([2, 3, 5, 16]),
    chunk=st.sampled_from([1, 7, 1000]),
    weighted=st.booleans(),
    lower=st.booleans(),
    dense=st.booleans(),
)
def test_polars_buckets_are_the_buckets_by_hand_whatever_the_slices(
    rows: list, bins: int, chunk: int, weighted: bool, lower: bool, dense: bool
) -> None:
    # The Polars executor (dense cells, or Polars' group_by past MAX_CELLS) cuts the
    # buckets of the reference the engines are checked against (tests/_engine_buckets.py).
    schema = {"g": pl.Int64, "score": pl.Float64, "label": pl.Boolean, "w": pl.Float64}
    log = pl.DataFrame(rows, schema=schema, orient="row")
    weight = "w" if weighted else None
    direction = "lower" if lower else "higher"
    options = {"by": "g", "weight": weight, "direction": direction}
    bucketed = by_hand_buckets(log, bins, by=["g"], direction=direction, mass=weight)
    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # groups of one class
        patch.setattr(bucket_arrays, "CHUNK_ROWS", chunk)
        patch.setattr(buckets, "BOUND_SLICE_ROWS", chunk)
        patch.setattr(bucket_arrays, "MAX_CELLS", 1 << 24 if dense else 0)
        table = pr.score_table(log.lazy(), bins=bins, **options).collect()
        expected = pr.score_table(bucketed, **options)
        auc = pr.roc_auc(log, bins=bins, **options)
    if weighted:  # a group of zero weight only keeps one bucket of none, at +inf
        table = table.filter(pl.col("n_pos") + pl.col("n_neg") > 0)
    assert_frame_equal(table, expected, check_exact=not weighted)
    bound = hand_bound(bucketed, ["g"], weight).sort("g", nulls_last=False)
    kept = auc.filter(pl.col("n_pos") + pl.col("n_neg") > 0).select("g", "auc_bound")
    assert_frame_equal(kept, bound, check_exact=False, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("change", "options", "match"),
    [
        (pl.lit(None, pl.Float64).alias("score"), {}, r"score column 'score' has 3000 null"),
        (pl.lit(float("nan")).alias("score"), {}, r"score column 'score' has 3000 NaN"),
        (pl.lit(2).alias("label"), {}, r"label column 'label' \(Int32\) holds values other"),
        (pl.lit(-1.0).alias("w"), {"weight": "w"}, r"weight column 'w' has 3000 negative"),
        (pl.lit(0.5).alias("n"), {"count": "n"}, r"count column 'n' has 3000 non-integral"),
        (pl.col("label"), {"pos_label": "yes"}, r"cannot compare label column 'label'"),
    ],
)
@pytest.mark.parametrize("lazy", [False, True])
def test_value_errors_of_bins_are_the_value_pass_errors(
    change: pl.Expr, options: dict, match: str, lazy: bool
) -> None:
    log = _nulls_and_weights(13).with_columns(change)
    with pytest.raises(Exception, match=match) as exact:
        pr.roc_auc(log, **options)
    frame = log.lazy() if lazy else log
    with pytest.raises(type(exact.value), match=match):
        pr.roc_auc(frame, bins=64, **options)
