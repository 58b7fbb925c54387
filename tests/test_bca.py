"""BCa bootstrap intervals (``ci_method="bca"``): the jackknife acceleration against a
leave-one-out loop, the interval against ``scipy.stats.bootstrap(method="BCa")``, and
BCa = percentile when the replicates are symmetric around the estimate (z0 = a = 0)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
import scipy.stats
from _reference import jackknife_acceleration
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_roc as pr
from polars_roc.core.arguments import Roles
from polars_roc.exceptions import UndefinedWarning
from polars_roc.stats.auc_interval import auc_jackknife
from polars_roc.stats.bootstrap import acceleration, bca_bounds, percentile_interval
from polars_roc.stats.cells import resampler
from polars_roc.stats.partial import Area


def _log(n: int, seed: int, *, decimals: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.35
    score = np.round(rng.normal(size=n) + 0.9 * label, decimals)  # ties
    return pl.DataFrame({"score": score, "label": label})


def _auc(pos: np.ndarray, neg: np.ndarray, axis: int = -1) -> np.ndarray:
    """Mann-Whitney AUC, vectorised over leading axes (scipy.stats.bootstrap's form)."""
    above = (pos[..., :, None] > neg[..., None, :]).mean(axis=(-1, -2))
    tied = (pos[..., :, None] == neg[..., None, :]).mean(axis=(-1, -2))
    return above + 0.5 * tied


def _cells(df: pl.DataFrame) -> pl.DataFrame:
    """The resampling cells of an ungrouped log, as the bootstrap collects them."""
    from polars_roc.core.counting import count_rows
    from polars_roc.core.score_table import build
    from polars_roc.stats.cells import resampling_cells

    prep = count_rows(df, Roles()).prep
    return resampling_cells(prep, build(prep)).collect()


def test_auc_acceleration_closed_form_equals_leave_one_out_loop() -> None:
    df = _log(120, 3)
    pos = df.filter("label")["score"].to_numpy()
    neg = df.filter(~pl.col("label"))["score"].to_numpy()
    expected = jackknife_acceleration((pos, neg), _auc)
    sampler, _ = resampler(_cells(df), [])
    closed = acceleration(auc_jackknife(sampler.rows, sampler.unit_weight, sampler.layout))
    assert closed[0] == pytest.approx(expected, rel=1e-9, abs=1e-15)
    # The generic path evaluates the AUC on leave-out tables: few cells, so exact.
    generic = acceleration(
        sampler.jackknife(0, lambda p, n: Area().replicates(p, n, sampler.layout))
    )
    assert generic[0] == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_block_jackknife_estimates_the_acceleration() -> None:
    """Past JACKKNIFE_BLOCKS cells the generic jackknife leaves out random blocks of
    units: an unbiased estimate of the exact acceleration, whose spread over the
    block draws (about a fifth of it here, a skewed AUC near 0.96) moves the BCa
    levels by a fraction of the Monte Carlo error. Mean of 8 draws within 20%."""
    rng = np.random.default_rng(5)
    label = rng.random(2000) < 0.1
    df = pl.DataFrame({"score": np.round(rng.normal(size=2000) + 2.5 * label, 3), "label": label})
    sampler, _ = resampler(_cells(df), [])
    exact = acceleration(auc_jackknife(sampler.rows, sampler.unit_weight, sampler.layout))[0]
    area = Area()
    blocks = [
        acceleration(sampler.jackknife(seed, lambda p, n: area.replicates(p, n, sampler.layout)))[0]
        for seed in range(8)
    ]
    assert exact < -0.02
    assert np.mean(blocks) == pytest.approx(exact, rel=0.2)


def test_bca_auc_agrees_with_scipy() -> None:
    """Like with like: scipy resamples each of the samples it is given on its own, so
    positives and negatives passed apart give the stratified bootstrap used here.
    Both with 5000 replicates: the bounds agree within Monte Carlo error (the bound's
    Monte Carlo standard deviation is about 0.0015 here; 0.008 is five of them for
    the difference of two independent runs)."""
    df = _log(240, 11)
    pos = df.filter("label")["score"].to_numpy()
    neg = df.filter(~pl.col("label"))["score"].to_numpy()
    theirs = scipy.stats.bootstrap(
        (pos, neg), _auc, method="BCa", n_resamples=5000, vectorized=True, rng=1
    ).confidence_interval
    ours = pr.roc_auc(df, ci="bootstrap", ci_method="bca", n_boot=5000, seed=2)
    assert ours["ci_lower"][0] == pytest.approx(theirs.low, abs=0.008)
    assert ours["ci_upper"][0] == pytest.approx(theirs.high, abs=0.008)


def _average_precision(pos: np.ndarray, neg: np.ndarray, axis: int = -1) -> np.ndarray:
    """scikit-learn's average precision, vectorised: the precision at each positive's
    score (ties included) averaged over the positives."""
    tp = (pos[..., None, :] >= pos[..., :, None]).sum(-1)
    fp = (neg[..., None, :] >= pos[..., :, None]).sum(-1)
    return (tp / (tp + fp)).mean(-1)


def test_bca_average_precision_agrees_with_scipy() -> None:
    """A statistic without a closed-form jackknife: few cells, so the exact one."""
    df = _log(150, 4)
    pos = df.filter("label")["score"].to_numpy()
    neg = df.filter(~pl.col("label"))["score"].to_numpy()
    theirs = scipy.stats.bootstrap(
        (pos, neg), _average_precision, method="BCa", n_resamples=5000, vectorized=True, rng=3
    ).confidence_interval
    ours = pr.pr_average_precision(df, ci="bootstrap", ci_method="bca", n_boot=5000, seed=4)
    assert ours["average_precision"][0] == pytest.approx(_average_precision(pos, neg))
    assert ours["ci_lower"][0] == pytest.approx(theirs.low, abs=0.015)
    assert ours["ci_upper"][0] == pytest.approx(theirs.high, abs=0.015)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0.001, 10.0), min_size=2, max_size=60),
    st.floats(-5.0, 5.0),
    st.floats(0.5, 0.99),
)
def test_bca_is_percentile_when_symmetric_and_unbiased(
    deviations: list[float], estimate: float, conf_level: float
) -> None:
    """z0 = 0 (as many replicates below the estimate as above) and a = 0 (symmetric
    jackknife values) leave the levels at the percentile interval's."""
    d = np.asarray(deviations)
    values = (estimate + np.concatenate([d, -d]))[:, None]
    _, lower, upper = percentile_interval(values, conf_level)
    bca_lower, bca_upper = bca_bounds(values, np.array([estimate]), np.array([0.0]), conf_level)
    assert bca_lower[0] == pytest.approx(lower[0], rel=1e-12, abs=1e-12)
    assert bca_upper[0] == pytest.approx(upper[0], rel=1e-12, abs=1e-12)


def test_symmetric_jackknife_has_no_acceleration() -> None:
    """A perfectly balanced AUC (scores mirrored between classes) has a = 0."""
    df = pl.DataFrame({"score": [1.0, 2.0, 3.0, 4.0] * 2, "label": [True] * 4 + [False] * 4})
    sampler, _ = resampler(_cells(df), [])
    a = acceleration(auc_jackknife(sampler.rows, sampler.unit_weight, sampler.layout))
    assert a[0] == pytest.approx(0.0, abs=1e-15)


def test_bca_per_group_equals_the_group_alone_and_lazy() -> None:
    df = pl.concat(
        [_log(200, 1).with_columns(g=pl.lit("a")), _log(300, 2).with_columns(g=pl.lit("b"))]
    )
    options = dict(ci="bootstrap", ci_method="bca", n_boot=300, seed=9)
    grouped = pr.roc_auc(df, by="g", **options)
    # A group's draws and leave-out blocks come from its key: the same alone.
    alone = pr.roc_auc(df.filter(pl.col("g") == "b"), by="g", **options)
    assert grouped.row(1) == alone.row(0)
    assert grouped.equals(pr.roc_auc(df.lazy(), by="g", **options).collect())
    # Rates at a false positive rate take it too (the jackknife over leave-out tables).
    rates = pr.tpr_at(df, [0.1, 0.3], by="g", **options)
    assert (rates["ci_lower"] <= rates["tpr"]).all() and (rates["tpr"] <= rates["ci_upper"]).all()


def test_bca_count_table_equals_expanded_rows() -> None:
    df = _log(150, 8)
    counted = df.group_by("score", "label").len("n")
    options = dict(ci="bootstrap", ci_method="bca", n_boot=500, seed=1)
    from_rows = pr.roc_auc(df, **options)
    from_counts = pr.roc_auc(counted, count="n", **options)
    assert from_rows.select("ci_lower", "ci_upper").equals(
        from_counts.select("ci_lower", "ci_upper")
    )


def test_bca_options_checked() -> None:
    df = _log(50, 1)
    with pytest.raises(ValueError, match=r"`ci_method` must be 'percentile' or 'bca', got 'bc'"):
        pr.roc_auc(df, ci="bootstrap", ci_method="bc")  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"ci_method='bca' .* but ci='delong'; pass ci='bootstrap'"
    ):
        pr.roc_auc(df, ci="delong", ci_method="bca")
    with pytest.raises(ValueError, match=r"but ci=None; pass ci='bootstrap'"):
        pr.roc_auc(df, ci_method="bca")
    with pytest.raises(ValueError, match=r"but ci='logit'"):
        pr.pr_average_precision(df, ci="logit", ci_method="bca")


def test_undefined_bca_is_null_and_named_in_a_warning() -> None:
    # Finding 13: at AUC = 1 (every replicate 1) BCa is undefined: null, now with a word.
    df = pl.DataFrame(
        {
            "g": ["sep"] * 6 + ["mix"] * 6,
            "score": [0.1, 0.2, 0.5, 0.8, 0.3, 0.9] * 2,
            "label": [0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1],
        }
    )
    message = r"^1 group\(s\) \[g='sep'\]: the BCa interval is null: .*ci_method='percentile'"
    with pytest.warns(UndefinedWarning, match=message):
        got = df.roc.auc(by="g", ci="bootstrap", n_boot=200, seed=1, ci_method="bca")
    by_group = dict(zip(got["g"], got["ci_lower"], strict=True))
    assert by_group["sep"] is None and by_group["mix"] is not None
    sep = df.filter(pl.col("g") == "sep")
    with pytest.warns(UndefinedWarning, match=r"^the BCa interval is null"):
        got = sep.roc.average_precision(ci="bootstrap", n_boot=200, seed=1, ci_method="bca")
    assert got["ci_lower"][0] is None
