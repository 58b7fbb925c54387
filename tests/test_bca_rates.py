"""BCa intervals (``ci_method="bca"``) of confusion measures at thresholds
(``threshold_ci``) and of differences between groups (``disparity``).

References: ``scipy.stats.bootstrap(method="BCa")``, given the samples the bootstrap
resamples on its own (each class of a segment for ``threshold_ci``; each class of each
group for ``disparity``), within Monte Carlo error; and scipy's multi-sample jackknife
acceleration, written out as a loop over left-out rows, to 1e-9.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
import scipy.stats
from _reference import jackknife_acceleration
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.arguments import Roles
from polars_roc.core.counting import count_rows
from polars_roc.core.score_table import build
from polars_roc.core.validate import SCORE
from polars_roc.stats.bootstrap import Resampler, acceleration
from polars_roc.stats.cells import resampler, resampling_cells
from polars_roc.views.disparity import _acceleration, _thresholded


def _log(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    label = rng.random(n) < np.where(group == "a", 0.4, 0.3)
    score = np.round(rng.normal(size=n) + label + 0.3 * (group == "b"), 1)
    return pl.DataFrame({"g": group, "score": score, "label": label})


def _rate(measure: str) -> Callable[..., np.ndarray]:
    """A measure from (treated positives, treated negatives, positives, negatives)."""
    return {
        "tpr": lambda tp, fp, p, n: tp / p,
        "fpr": lambda tp, fp, p, n: fp / n,
        "ppv": lambda tp, fp, p, n: tp / (tp + fp),
        "selection_rate": lambda tp, fp, p, n: (tp + fp) / (p + n),
    }[measure]


def _difference(measure: str, groups: int, target: int, reference: str | int):
    """``statistic(*samples)`` of scipy's form: samples are the treated indicators of
    each group's positives then negatives; the difference of ``target``'s rate to the
    reference (``"overall"`` or a group's index)."""
    rate = _rate(measure)

    def statistic(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
        pairs = [(samples[2 * k], samples[2 * k + 1]) for k in range(groups)]
        parts = [(p.sum(-1), q.sum(-1), p.shape[-1], q.shape[-1]) for p, q in pairs]
        if reference == "overall":
            base = rate(*(sum(part[i] for part in parts) for i in range(4)))
        else:
            base = rate(*parts[reference])
        return rate(*parts[target]) - base

    return statistic


def _samples(frame: pl.DataFrame, threshold: float, groups: list[str]) -> list[np.ndarray]:
    out = []
    for group in groups:
        rows = frame.filter(pl.col("g") == group)
        for cls in (True, False):
            scores = rows.filter(pl.col("label") == cls)["score"].to_numpy()
            out.append((scores >= threshold).astype(float))
    return out


# --- threshold_ci ---------------------------------------------------------------------


def test_threshold_ci_bca_agrees_with_scipy() -> None:
    """Both with 5000 replicates. The rates live on a lattice of steps 1/140 (tpr) and
    1/260 (tnr) and the bound's Monte Carlo sd is about 0.003: 0.015 is two steps."""
    df = _log(400, 11)
    score, label = df["score"].to_numpy(), df["label"].to_numpy()
    thresholds = [0.5, 1.0]
    ours = pr.threshold_ci(
        df, thresholds, measures=["tpr", "tnr", "ppv"], ci_method="bca", n_boot=5000, seed=2
    )
    statistics = {
        "tpr": lambda p, q, axis=-1: p.mean(-1),
        "tnr": lambda p, q, axis=-1: 1 - q.mean(-1),
        "ppv": lambda p, q, axis=-1: p.sum(-1) / (p.sum(-1) + q.sum(-1)),
    }
    for j, t in enumerate(thresholds):
        samples = ((score[label] >= t).astype(float), (score[~label] >= t).astype(float))
        for measure, statistic in statistics.items():
            theirs = scipy.stats.bootstrap(
                samples, statistic, method="BCa", n_resamples=5000, vectorized=True, rng=1
            ).confidence_interval
            assert ours[f"{measure}_lower"][j] == pytest.approx(theirs.low, abs=0.015)
            assert ours[f"{measure}_upper"][j] == pytest.approx(theirs.high, abs=0.015)


def test_threshold_ci_bca_moves_the_bounds_only() -> None:
    """Same draws as the percentile run: the estimates and the medians are those;
    a group's bounds are those of the group alone; lazy in, lazy out."""
    df = _log(500, 3)
    options = dict(threshold=[0.2, 0.8], by="g", measures=["tpr", "npv"], n_boot=400, seed=5)
    bca = pr.threshold_ci(df, ci_method="bca", **options)  # type: ignore[arg-type]
    percentile = pr.threshold_ci(df, **options)  # type: ignore[arg-type]
    same = ["g", "threshold", "tpr", "tpr_median", "npv", "npv_median", "n_pos", "n_neg"]
    assert_frame_equal(bca.select(same), percentile.select(same))
    assert not bca["tpr_lower"].equals(percentile["tpr_lower"])
    alone = pr.threshold_ci(df.filter(pl.col("g") == "b"), ci_method="bca", **options)  # type: ignore[arg-type]
    assert_frame_equal(bca.filter(pl.col("g") == "b"), alone)
    lazy = pr.threshold_ci(df.lazy(), ci_method="bca", **options)  # type: ignore[arg-type]
    assert_frame_equal(lazy.collect(), bca)
    counted = df.group_by("g", "score", "label").len("n")
    from_counts = pr.threshold_ci(counted, count="n", ci_method="bca", **options)  # type: ignore[arg-type]
    assert_frame_equal(from_counts, bca)


def _tpr_statistic(sampler: Resampler, above: np.ndarray):
    """The sensitivity at a threshold from resampled cells, ``(replicates, 1)``."""

    def statistic(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
        return ((pos * above).sum(-1) / pos.sum(-1))[:, None]

    return statistic


def test_pooled_jackknife_equals_the_one_sample_loop() -> None:
    """stratified=False draws a group's rows regardless of class: one sample, whose
    exact jackknife (few cells) equals scipy's one-sample loop."""
    rng = np.random.default_rng(2)
    label = rng.random(150) < 0.4
    score = np.round(2 * (rng.normal(size=150) + label)) / 2
    df = pl.DataFrame({"score": score, "label": label})
    prep = count_rows(df, Roles()).prep
    cells = resampling_cells(prep, build(prep), keep_score=True).collect()
    sampler, _ = resampler(cells, [])
    above = cells[SCORE].to_numpy() >= 0.5
    statistic = _tpr_statistic(sampler, above)
    got = acceleration((sampler.pooled_jackknife(0, statistic),))[0]

    def tpr(rows: np.ndarray) -> float:
        return float((score[rows] >= 0.5)[label[rows]].mean())

    assert got == pytest.approx(jackknife_acceleration([np.arange(150)], tpr), rel=1e-9)
    # Past JACKKNIFE_BLOCKS (class, cell) pairs, random blocks of units: an estimate
    # (the mean of 8 draws within 20%, as the per-class blocks in test_bca.py).
    label = rng.random(600) < 0.15
    df = pl.DataFrame({"score": np.round(rng.normal(size=600) + 2.5 * label, 2), "label": label})
    prep = count_rows(df, Roles()).prep
    cells = resampling_cells(prep, build(prep), keep_score=True).collect()
    sampler, _ = resampler(cells, [])
    statistic = _tpr_statistic(sampler, cells[SCORE].to_numpy() >= 1.0)
    blocks = [acceleration((sampler.pooled_jackknife(s, statistic),))[0] for s in range(8)]
    score = df["score"].to_numpy()
    exact = jackknife_acceleration(
        [np.arange(600)], lambda rows: (score[rows] >= 1.0)[label[rows]].mean()
    )
    assert cells.height > 100 and exact < -0.02
    assert np.mean(blocks) == pytest.approx(exact, rel=0.2)


def test_threshold_ci_unstratified_bca_agrees_with_scipy() -> None:
    """One sample of rows (classes drawn together), 5000 replicates each."""
    df = _log(400, 12)
    score, label = df["score"].to_numpy(), df["label"].to_numpy()
    ours = pr.threshold_ci(
        df, 0.5, measures=["tpr", "ppv"], stratified=False, ci_method="bca", n_boot=5000, seed=3
    )
    treated = score >= 0.5
    statistics = {
        "tpr": lambda i, axis=-1: (treated[i] & label[i]).sum(-1) / label[i].sum(-1),
        "ppv": lambda i, axis=-1: (treated[i] & label[i]).sum(-1) / treated[i].sum(-1),
    }
    for measure, statistic in statistics.items():
        theirs = scipy.stats.bootstrap(
            (np.arange(len(df)),), statistic, method="BCa", n_resamples=5000, vectorized=True,
            rng=4,
        ).confidence_interval  # fmt: skip
        assert ours[f"{measure}_lower"][0] == pytest.approx(theirs.low, abs=0.015)
        assert ours[f"{measure}_upper"][0] == pytest.approx(theirs.high, abs=0.015)


def test_threshold_ci_bca_option_checked() -> None:
    with pytest.raises(ValueError, match=r"`ci_method` must be 'percentile' or 'bca'"):
        pr.threshold_ci(_log(60, 1), ci_method="basic")  # type: ignore[arg-type]


# --- disparity ------------------------------------------------------------------------


@pytest.mark.parametrize("reference", ["overall", "a"])
@pytest.mark.parametrize("measure", ["tpr", "fpr", "ppv", "selection_rate"])
def test_disparity_acceleration_equals_the_leave_one_out_loop(measure: str, reference: str) -> None:
    """Two segments of three groups: each segment's groups and classes are the samples."""
    df = pl.concat(
        [_log(150, 4).with_columns(seg=pl.lit("x")), _log(120, 5).with_columns(seg=pl.lit("y"))]
    )
    threshold = 0.5
    prep = count_rows(df, Roles(by=["seg", "g"])).prep
    treated = _thresholded(prep, threshold)
    cells = resampling_cells(treated, build(treated), keep_score=True).collect()
    sampler, keys = resampler(cells, ["seg", "g"])
    got = _acceleration(measure, ["seg"], "g", reference)(sampler, cells)
    groups = ["a", "b", "c"]
    for row, (segment, group) in enumerate(keys.iter_rows()):
        rows = df.filter(pl.col("seg") == segment)
        target = groups.index(group)
        if reference == group:
            assert got[row] == 0.0  # the reference's own difference is 0 in every replicate
            continue
        statistic = _difference(
            measure, 3, target, "overall" if reference == "overall" else groups.index(reference)
        )
        expected = jackknife_acceleration(_samples(rows, threshold, groups), statistic)
        assert got[row] == pytest.approx(expected, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("reference", ["overall", "a"])
def test_disparity_bca_agrees_with_scipy(reference: str) -> None:
    """Both with 5000 replicates on 1500 rows; the bound's Monte Carlo sd is about
    0.002 here, the rates' lattice steps up to 1/130: 0.012 covers both."""
    df = _log(1500, 7)
    groups = ["a", "b", "c"]
    samples = _samples(df, 0.5, groups)
    for measure in ("tpr", "ppv", "selection_rate"):
        ours = pr.disparity(
            df, 0.5, group="g", measures=[measure], reference=reference,
            ci="bootstrap", ci_method="bca", n_boot=5000, seed=1,
        )  # fmt: skip
        for target, group in enumerate(groups):
            row = ours.filter(pl.col("group") == group).row(0, named=True)
            if group == reference:
                assert (row["ci_lower"], row["ci_upper"]) == (0.0, 0.0)
                continue
            base = "overall" if reference == "overall" else groups.index(reference)
            theirs = scipy.stats.bootstrap(
                samples,
                _difference(measure, 3, target, base),
                method="BCa",
                n_resamples=5000,
                vectorized=True,
                rng=2,
            ).confidence_interval
            assert row["ci_lower"] == pytest.approx(theirs.low, abs=0.012)
            assert row["ci_upper"] == pytest.approx(theirs.high, abs=0.012)


def test_disparity_bca_per_segment_count_table_lazy() -> None:
    df = pl.concat(
        [_log(300, 8).with_columns(seg=pl.lit("x")), _log(200, 9).with_columns(seg=pl.lit("y"))]
    )
    options = dict(group="g", by="seg", ci="bootstrap", ci_method="bca", n_boot=300, seed=4)
    got = pr.disparity(df, 0.3, **options)  # type: ignore[arg-type]
    alone = pr.disparity(df.filter(pl.col("seg") == "y"), 0.3, **options)  # type: ignore[arg-type]
    assert_frame_equal(got.filter(pl.col("seg") == "y"), alone)
    assert_frame_equal(pr.disparity(df.lazy(), 0.3, **options).collect(), got)  # type: ignore[arg-type]
    counted = df.group_by("seg", "g", "score", "label").len("n")
    assert_frame_equal(pr.disparity(counted, 0.3, count="n", **options), got)  # type: ignore[arg-type]
    percentile = pr.disparity(df, 0.3, **{**options, "ci_method": "percentile"})  # type: ignore[arg-type]
    assert_frame_equal(got.drop("ci_lower", "ci_upper"), percentile.drop("ci_lower", "ci_upper"))
