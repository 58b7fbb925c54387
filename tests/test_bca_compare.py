"""BCa intervals of the bootstrap comparisons (``compare``, ``compare_long``,
``compare_groups`` with ``ci_method="bca"``): against ``scipy.stats.bootstrap(
method="BCa")`` within Monte Carlo error, and the pieces BCa adds (z0, a) vanishing
where they must."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
import scipy.stats
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.arguments import Roles
from polars_roc.stats.bootstrap import acceleration_terms
from polars_roc.stats.cells import resampler
from polars_roc.stats.partial import Area


def _auc(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Mann-Whitney AUC over the last axis of each sample, vectorised over the others."""
    above = (pos[..., :, None] > neg[..., None, :]).mean(axis=(-1, -2))
    tied = (pos[..., :, None] == neg[..., None, :]).mean(axis=(-1, -2))
    return above + 0.5 * tied


def _paired_log(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.4
    shared = rng.normal(size=n)
    return pl.DataFrame(
        {
            "a": np.round(shared + 1.0 * label, 1),
            "b": np.round(0.6 * shared + rng.normal(size=n) + 0.5 * label, 1),
            "label": label,
        }
    )


def test_paired_bca_agrees_with_scipy() -> None:
    """scipy resamples each sample it is given on its own: passing the row indices of
    the positives and of the negatives as two samples gives the stratified paired
    bootstrap (a drawn row brings both scores), and its jackknife leaves one row of one
    class out, as here. 5000 replicates each; 0.012 is over four Monte Carlo standard
    deviations of the difference of two runs' bounds."""
    df = _paired_log(220, 3)
    a, b, label = (df[c].to_numpy() for c in ("a", "b", "label"))
    pos, neg = np.flatnonzero(label), np.flatnonzero(~label)

    def difference(p: np.ndarray, n: np.ndarray, axis: int = -1) -> np.ndarray:
        return _auc(a[p], a[n]) - _auc(b[p], b[n])

    theirs = scipy.stats.bootstrap(
        (pos, neg), difference, method="BCa", n_resamples=5000, vectorized=True, batch=500, rng=1
    ).confidence_interval
    ours = pr.compare(df, ["a", "b"], ci="bootstrap", ci_method="bca", n_boot=5000, seed=2)
    assert ours["diff"][0] == pytest.approx(difference(pos, neg), abs=1e-12)
    assert ours["ci_lower"][0] == pytest.approx(theirs.low, abs=0.012)
    assert ours["ci_upper"][0] == pytest.approx(theirs.high, abs=0.012)


def test_unpaired_bca_agrees_with_scipy() -> None:
    """Four independent samples (each group's positives and negatives)."""
    df = pl.concat(
        [
            _paired_log(160, 4).select(pl.col("a").alias("score"), "label", g=pl.lit("x")),
            _paired_log(200, 5).select(pl.col("b").alias("score"), "label", g=pl.lit("y")),
        ]
    )
    samples = [
        df.filter(pl.col("g") == g, pl.col("label") == side)["score"].to_numpy()
        for g in ("x", "y")
        for side in (True, False)
    ]

    def difference(pa, na, pb, nb, axis: int = -1) -> np.ndarray:
        return _auc(pa, na) - _auc(pb, nb)

    theirs = scipy.stats.bootstrap(
        samples, difference, method="BCa", n_resamples=5000, vectorized=True, batch=500, rng=6
    ).confidence_interval
    ours = pr.compare_groups(
        df, by="g", groups=("x", "y"), ci="bootstrap", ci_method="bca", n_boot=5000, seed=7
    )
    assert ours["ci_lower"][0] == pytest.approx(theirs.low, abs=0.015)
    assert ours["ci_upper"][0] == pytest.approx(theirs.high, abs=0.015)


def test_mirrored_groups_have_no_acceleration() -> None:
    """Two groups with the same rows: their jackknife terms are equal, so the
    difference's skewness term (cubes_a - cubes_b) is exactly zero."""
    rows = _paired_log(80, 8).select(pl.col("a").alias("score"), "label")
    df = pl.concat([rows.with_columns(g=pl.lit(g)) for g in ("x", "y")])
    from polars_roc.core.counting import count_rows
    from polars_roc.core.score_table import build
    from polars_roc.stats.cells import resampling_cells

    prep = count_rows(df, Roles(by="g")).prep
    sampler, _ = resampler(resampling_cells(prep, build(prep)).collect(), ["g"])
    cubes, squares = acceleration_terms(
        sampler.jackknife(0, lambda p, n: Area().replicates(p, n, sampler.layout))
    )
    assert cubes[0] - cubes[1] == 0.0
    assert squares[0] > 0


def test_bca_is_percentile_when_replicates_symmetric_and_unbiased(monkeypatch) -> None:
    """With z0 = a = 0 the BCa levels are the percentile levels: a mirrored jackknife (a =
    0) and replicates mirrored around the estimate (z0 = 0) give the percentile bounds
    through the comparison's own code path."""
    import polars_roc.stats.paired_tests as paired
    from polars_roc.stats.bootstrap import Jackknife, Resampler

    real_collect = Resampler.collect

    def mirrored(self, seed, n_boot, statistic, *, progress=False):
        values = real_collect(self, seed, n_boot // 2, statistic, progress=progress)
        estimate = statistic(*self.weights())
        return np.concatenate([values, 2 * estimate - values])

    def flat(self, seed, statistic):
        # Two leave-out values mirrored around their mean: no skewness, a = 0.
        mirror = Jackknife(
            values=np.array([1.0, -1.0]),
            multiplicity=np.ones(2),
            removed=np.ones(2),
            starts=np.zeros(1, dtype=np.int64),
            units=np.array([10.0]),
            blocks=np.zeros(1),
        )
        return mirror, mirror

    monkeypatch.setattr(Resampler, "collect", mirrored)
    monkeypatch.setattr(Resampler, "jackknife", flat)
    df = _paired_log(120, 9)
    options = dict(ci="bootstrap", n_boot=400, seed=1)
    bca = paired.compare(df, ["a", "b"], ci_method="bca", **options)
    percentile = paired.compare(df, ["a", "b"], **options)
    assert bca["ci_lower"][0] == pytest.approx(percentile["ci_lower"][0], rel=1e-12)
    assert bca["ci_upper"][0] == pytest.approx(percentile["ci_upper"][0], rel=1e-12)


def test_bca_comparisons_reproducible_per_group_and_lazy() -> None:
    df = pl.concat([_paired_log(150, s).with_columns(seg=pl.lit(s)) for s in (1, 2)])
    options = dict(ci="bootstrap", ci_method="bca", n_boot=300, seed=4)
    grouped = pr.compare(df, ["a", "b"], by="seg", **options)
    alone = pr.compare(df.filter(seg=2), ["a", "b"], by="seg", **options)
    assert_frame_equal(grouped.filter(seg=2), alone)
    assert_frame_equal(pr.compare(df.lazy(), ["a", "b"], by="seg", **options).collect(), grouped)
    percentile = pr.compare(df, ["a", "b"], by="seg", ci="bootstrap", n_boot=300, seed=4)
    # BCa moves the bounds only: the estimate, se and p-value stay.
    bounds = ["ci_lower", "ci_upper"]
    assert_frame_equal(grouped.drop(bounds), percentile.drop(bounds))
    long = df.with_row_index("id").unpivot(
        ["a", "b"], index=["id", "label", "seg"], variable_name="model", value_name="score"
    )
    from_long = pr.compare_long(long, ("a", "b"), case="id", by="seg", **options)
    assert_frame_equal(from_long.drop("model_a", "model_b"), grouped.drop("model_a", "model_b"))
    with pytest.raises(ValueError, match=r"ci_method='bca' .* pass ci='bootstrap'"):
        pr.compare_groups(df, by="seg", groups=(1, 2), score="a", ci_method="bca")
