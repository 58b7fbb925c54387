"""Bootstrap intervals of measures at thresholds (pROC's ci.coords / ci.thresholds), and
of a rate at a given rate (pROC's ci.se / ci.sp, through tpr_at / fpr_at).

Against pROC 1.18.0: fixtures/proc_threshold_ci.csv (ci.coords), proc_ci_thresholds.csv
(ci.thresholds) and proc_rate_ci.csv (ci.se, ci.sp), exported by fixtures/proc_more.R
with 10000 replicates, within Monte Carlo error; the point values (proc_coords.csv,
proc_rate_ci.csv) to 1e-12. Besides: the replicates equal a brute-force recomputation on
the resampled rows (same draws), the interval is R's type-7 quantile of them written out
by hand, the threshold rule is confusion_matrix's, and a simulation checks the coverage.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.stats.bootstrap import Resampler

FIXTURES = Path(__file__).parent / "fixtures"
ASAH = pl.read_csv(FIXTURES / "asah.csv")
N_BOOT = 10_000  # as proc_more.R
# pROC's coords names -> ours.
PROC_MEASURES = {
    "sensitivity": "tpr",
    "specificity": "tnr",
    "ppv": "ppv",
    "npv": "npv",
    "accuracy": "accuracy",
}


def type7(values: np.ndarray, p: float) -> float:
    """R's default quantile (type 7), written out: x[h] interpolated at h = (n - 1) p."""
    x = np.sort(values[~np.isnan(values)])
    h = (len(x) - 1) * p
    low = math.floor(h)
    high = min(low + 1, len(x) - 1)
    return float(x[low] + (h - low) * (x[high] - x[low]))


TIED = pl.DataFrame(
    {
        "g": ["a"] * 9 + ["b"] * 7,
        "score": [0.9, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.3, 0.1, 0.9, 0.7, 0.7, 0.5, 0.4, 0.2, 0.2],
        "label": [1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1],
    }
)


def brute_force(
    frame: pl.DataFrame,
    thresholds: list[float],
    n_boot: int,
    seed: int,
    measure: str,
    stratified: bool = True,
) -> dict[tuple[str, int], np.ndarray]:
    """Each replicate's measure, recomputed from its resampled rows (numpy, row by row).

    The draws are the library's (the same resampler on the same cells), turned into a
    list of resampled rows: only the counting and the measure are recomputed here.
    """
    out = {}
    for key, rows in frame.sort("score", descending=True, maintain_order=True).group_by(
        "g", maintain_order=True
    ):
        table = rows.group_by("score", maintain_order=True).agg(
            pl.col("label").sum().alias("pos"), (1 - pl.col("label")).sum().alias("neg")
        )
        pos, neg = (table[c].cast(pl.Float64).to_numpy() for c in ("pos", "neg"))
        sampler = Resampler(pos, neg, pos, neg, np.array([0]), pl.DataFrame({"g": [key[0]]}))
        scores = table["score"].to_numpy()
        chunks = (
            sampler.chunks(seed, n_boot)
            if stratified
            else sampler.chunks(seed, n_boot, stratified=False)
        )
        draws_pos, draws_neg = (np.concatenate(d) for d in zip(*chunks))
        values = np.full((n_boot, len(thresholds)), np.nan)
        for r in range(n_boot):
            pos_rows = np.repeat(scores, draws_pos[r].astype(int))
            neg_rows = np.repeat(scores, draws_neg[r].astype(int))
            for j, t in enumerate(thresholds):
                tp, fn = (pos_rows >= t).sum(), (pos_rows < t).sum()
                fp, tn = (neg_rows >= t).sum(), (neg_rows < t).sum()
                ratio = {
                    "tpr": (tp, tp + fn),
                    "tnr": (tn, tn + fp),
                    "ppv": (tp, tp + fp),
                    "npv": (tn, tn + fn),
                    "f1": (2 * tp, 2 * tp + fp + fn),
                }[measure]
                values[r, j] = ratio[0] / ratio[1] if ratio[1] else np.nan
        for j in range(len(thresholds)):
            out[(key[0], j)] = values[:, j]
    return out


@pytest.mark.parametrize("measure", ["tpr", "tnr", "ppv", "npv", "f1"])
def test_replicates_equal_brute_force_on_resampled_rows(measure: str) -> None:
    thresholds = [0.75, 0.6, 0.35]
    result = pr.threshold_ci(
        TIED, thresholds, by="g", measures=[measure], n_boot=60, seed=5, conf_level=0.8
    )
    expected = brute_force(TIED, thresholds, 60, 5, measure)
    for row in result.iter_rows(named=True):
        values = expected[(row["g"], thresholds.index(row["threshold"]))]
        for suffix, p in (("_lower", 0.1), ("_median", 0.5), ("_upper", 0.9)):
            assert row[f"{measure}{suffix}"] == pytest.approx(type7(values, p), abs=1e-12)


@pytest.mark.parametrize("measure", ["tpr", "ppv"])
def test_unstratified_replicates_equal_brute_force(measure: str) -> None:
    thresholds = [0.75, 0.35]
    result = pr.threshold_ci(
        TIED,
        thresholds,
        by="g",
        measures=[measure],
        n_boot=60,
        seed=5,
        conf_level=0.8,
        stratified=False,
    )
    expected = brute_force(TIED, thresholds, 60, 5, measure, stratified=False)
    for row in result.iter_rows(named=True):
        values = expected[(row["g"], thresholds.index(row["threshold"]))]
        for suffix, p in (("_lower", 0.1), ("_median", 0.5), ("_upper", 0.9)):
            assert row[f"{measure}{suffix}"] == pytest.approx(type7(values, p), abs=1e-12)


def test_unstratified_draws_keep_the_size_not_the_classes() -> None:
    pos, neg = np.array([3.0, 1.0, 0.0]), np.array([0.0, 2.0, 4.0])
    sampler = Resampler(pos, neg, pos, neg, np.array([0]), pl.DataFrame())
    drawn_pos, drawn_neg = (
        np.concatenate(d) for d in zip(*sampler.chunks(3, 4000, stratified=False))
    )
    assert ((drawn_pos.sum(1) + drawn_neg.sum(1)) == 10).all()
    assert drawn_pos.sum(1).std() > 0.5  # the number of positives varies
    # Each row is drawn with probability 1/10 per draw: cell means are rows * 10 / 10.
    np.testing.assert_allclose(drawn_pos.mean(0), pos, atol=0.1)
    np.testing.assert_allclose(drawn_neg.mean(0), neg, atol=0.1)
    stratified = np.concatenate([p for p, _ in sampler.chunks(3, 200)])
    assert (stratified.sum(1) == 4).all()


def test_estimates_and_threshold_rule_are_confusion_matrix() -> None:
    # Thresholds on tied scores: score >= t is positive, as in confusion_matrix.
    for direction in ("higher", "lower"):
        got = pr.threshold_ci(
            TIED,
            [0.8, 0.6, 0.2, 2.0],
            by="g",
            direction=direction,
            measures=["tpr", "tnr", "ppv", "npv", "mcc"],
            n_boot=20,
            seed=1,
        )
        want = pr.confusion_matrix(TIED, [0.8, 0.6, 0.2, 2.0], by="g", direction=direction)
        assert_frame_equal(
            got.select("g", "threshold", "tpr", "tnr", "ppv", "npv", "mcc"),
            want.select("g", "threshold", "tpr", "tnr", "ppv", "npv", "mcc"),
        )


def test_direction_lower_is_the_negated_score() -> None:
    flipped = TIED.with_columns(-pl.col("score"))
    lower = pr.threshold_ci(TIED, [0.6, 0.3], by="g", direction="lower", n_boot=50, seed=2)
    higher = pr.threshold_ci(flipped, [-0.6, -0.3], by="g", n_boot=50, seed=2)
    assert_frame_equal(lower.drop("threshold"), higher.drop("threshold"))
    assert lower["threshold"].to_list() == [0.6, 0.3, 0.6, 0.3]


def test_quantiles_are_r_type_7_not_numpy_defaults_by_accident() -> None:
    # Type 7 differs from the other common definitions on this sample: the check can fail.
    values = np.array([0.1, 0.4, 0.45, 0.9, 1.0])
    assert type7(values, 0.1) == pytest.approx(0.22)
    assert float(np.quantile(values, 0.1, method="inverted_cdf")) != pytest.approx(0.22)


def test_same_seed_same_bits_other_groups_do_not_matter() -> None:
    one = pr.threshold_ci(TIED, [0.6], by="g", n_boot=200, seed=9)
    again = pr.threshold_ci(TIED.reverse(), [0.6], by="g", n_boot=200, seed=9)
    alone = pr.threshold_ci(TIED.filter(pl.col("g") == "b"), [0.6], by="g", n_boot=200, seed=9)
    lazy = pr.threshold_ci(TIED.lazy(), [0.6], by="g", n_boot=200, seed=9).collect()
    assert_frame_equal(one, again)
    assert_frame_equal(one, lazy)
    assert_frame_equal(one.filter(pl.col("g") == "b"), alone)
    other = pr.threshold_ci(TIED, [0.6], by="g", n_boot=200, seed=10)
    assert not one.equals(other)


def test_count_table_equals_expanded_rows() -> None:
    counted = TIED.group_by("g", "score", "label").len("n")
    got = pr.threshold_ci(counted, [0.6, 0.35], by="g", count="n", n_boot=100, seed=4)
    want = pr.threshold_ci(TIED, [0.6, 0.35], by="g", n_boot=100, seed=4)
    assert_frame_equal(got, want)


def test_unit_weights_equal_unweighted() -> None:
    weighted = TIED.with_columns(pl.lit(1.0).alias("w"))
    got = pr.threshold_ci(weighted, [0.6], by="g", weight="w", n_boot=100, seed=4)
    want = pr.threshold_ci(TIED, [0.6], by="g", n_boot=100, seed=4)
    assert_frame_equal(got, want, check_dtypes=False)


def test_coverage_of_sensitivity_by_simulation() -> None:
    # 300 independent samples as groups of one call (each group its own streams): the
    # 90% interval of the sensitivity at t = 0.5 should cover the true value ~90% of
    # the time. Binormal: positives N(1, 1), so the true tpr is 1 - Phi(-0.5).
    rng = np.random.default_rng(2024)
    n_sets, n = 300, 80
    label = np.tile(np.repeat([1, 0], n // 2), n_sets)
    frame = pl.DataFrame(
        {
            "set": np.repeat(np.arange(n_sets), n),
            "label": label,
            "score": rng.normal(label * 1.0, 1.0),
        }
    )
    out = pr.threshold_ci(frame, 0.5, by="set", measures="tpr", n_boot=400, seed=1, conf_level=0.9)
    truth = 0.5 * (1 + math.erf(0.5 / math.sqrt(2)))
    covered = ((out["tpr_lower"] <= truth) & (truth <= out["tpr_upper"])).mean()
    assert 0.84 <= covered <= 0.96


def test_degenerate_group_gives_null_bounds_and_warns() -> None:
    frame = pl.concat(
        [TIED, pl.DataFrame({"g": ["c"] * 3, "score": [0.1, 0.5, 0.7], "label": [1, 1, 1]})]
    )
    with pytest.warns(UserWarning, match="'c'"):
        out = pr.threshold_ci(frame, [0.6], by="g", n_boot=50, seed=3)
    c = out.filter(pl.col("g") == "c")
    assert c["tnr"].to_list() == [None] and c["tnr_lower"].to_list() == [None]
    assert c["tpr"].to_list() == [1 / 3] and c["tpr_lower"].is_not_null().all()


def test_empty_input_keeps_the_schema() -> None:
    out = pr.threshold_ci(TIED.clear(), [0.5], by="g", measures="ppv", n_boot=10)
    assert out.columns == [
        "g",
        "threshold",
        "ppv",
        "ppv_lower",
        "ppv_median",
        "ppv_upper",
        "n_pos",
        "n_neg",
    ]
    assert out.height == 0


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        (dict(measures=["tpr", "kappa_level"]), ValueError, r"`measures` holds \['kappa_level'\]"),
        (dict(measures=["sensitivity"]), ValueError, "sensitivity is 'tpr'"),
        (dict(measures=[]), ValueError, "`measures` must name one or more"),
        (dict(measures=["tpr", "tpr"]), ValueError, "names a measure twice"),
        (dict(n_boot=1), ValueError, "`n_boot` must be an integer >= 2, got 1"),
        (dict(conf_level=1.5), ValueError, "`conf_level` must be strictly between"),
        (dict(seed=-1), ValueError, "`seed` must be None or a non-negative integer"),
        (dict(threshold=[]), ValueError, "non-empty list of numbers"),
        (dict(threshold=float("nan")), ValueError, "must not be NaN"),
        (dict(stratified="yes"), TypeError, "`stratified` must be True or False, got 'yes'"),
    ],
)
def test_bad_arguments_are_refused_before_work(options, error, match) -> None:
    threshold = options.pop("threshold", 0.5)
    with pytest.raises(error, match=match):
        pr.threshold_ci(TIED, threshold, **options)


def test_namespace_method() -> None:
    got = TIED.roc.threshold_ci([0.6], by="g", n_boot=30, seed=1)
    assert_frame_equal(got, pr.threshold_ci(TIED, [0.6], by="g", n_boot=30, seed=1))


@pytest.mark.parametrize("weight", [None, "w"])
def test_identical_bits_over_many_calls(weight) -> None:
    # As every view (issue 17): float weights summed per cell must add in one order.
    rng = np.random.default_rng(11)
    n = 8_000
    log = pl.DataFrame(
        {
            "g": rng.integers(0, 4, n),
            "score": np.round(rng.random(n), 2),
            "label": rng.random(n) < 0.3,
            "w": rng.random(n) * 3,
        }
    )
    first = pr.threshold_ci(log, [0.3, 0.6], by="g", weight=weight, n_boot=50, seed=1)
    for _ in range(15):
        again = pr.threshold_ci(log, [0.3, 0.6], by="g", weight=weight, n_boot=50, seed=1)
        assert again.rows() == first.rows()


# --- against pROC (fixtures/proc_more.R) ----------------------------------------------


def mc_slack(p: float) -> float:
    """How far from p, in probability, pROC's p-quantile may sit among our replicates.

    pROC's and our 10000 replicates are independent draws of the same bootstrap
    distribution: at pROC's p-quantile the two empirical CDFs differ by a binomial error
    of standard deviation sqrt(2 p (1 - p) / n). Four of them: 0.0125 at p = 0.025 and
    0.028 at the median. A tolerance in probability rather than in value suits these
    distributions, which jump in steps of 1/41 (a sensitivity of aSAH's 41 positives):
    pROC's bound must lie between our (p - slack) and (p + slack) quantiles.
    """
    return 4 * math.sqrt(2 * p * (1 - p) / N_BOOT)


def conf_for(p: float) -> float:
    """The conf_level whose lower (p < 1/2) or upper bound is the p-quantile; rounded, so
    that p and 1 - p (mc_slack is symmetric) share one cached call: 3 calls, not 6."""
    return round(abs(1 - 2 * p), 12)


def our_quantile(call: Callable[[float], pl.DataFrame], p: float) -> pl.DataFrame:
    """Our p-quantiles of the replicates, as columns named after the measure: the lower
    bounds at conf_level 1 - 2p (p < 1/2) or the upper bounds at 2p - 1 (the same seed
    gives the same replicates)."""
    side = "_lower" if p < 0.5 else "_upper"
    out = call(conf_for(p))
    return out.select(pl.col(f"^.*{side}$").name.map(lambda name: name.removesuffix(side)))


def assert_between(low, value, high, what: str) -> None:
    for a, x, b in zip(low, value, high):
        if x is None or a is None or b is None:  # pROC's NA: no replicate defined it
            assert x is None and a is None and b is None, what
        else:
            assert a - 1e-12 <= x <= b + 1e-12, (what, a, x, b)


# ci.coords (5 measures) and ci.thresholds (sensitivity and specificity, by another code
# path in pROC), at the same thresholds.
PROC_CI = {
    call: pl.read_csv(FIXTURES / name, null_values="NA")
    for call, name in (
        ("ci.coords", "proc_threshold_ci.csv"),
        ("ci.thresholds", "proc_ci_thresholds.csv"),
    )
}


@pytest.mark.parametrize(
    ("proc_call", "score", "direction", "stratified"),
    [
        (call, *key)
        for call, frame in PROC_CI.items()
        for key in frame.select("score", "direction", "stratified").unique().sort(pl.all()).rows()
    ],
)
def test_threshold_ci_matches_proc(proc_call: str, score: str, direction: str, stratified: bool):
    ref = PROC_CI[proc_call].filter(score=score, direction=direction, stratified=stratified)
    measures = {k: v for k, v in PROC_MEASURES.items() if k in ref["measure"]}
    thresholds = ref["threshold"].unique(maintain_order=True).to_list()
    ours_direction = "higher" if direction == "<" else "lower"

    @functools.cache
    def call(conf_level: float) -> pl.DataFrame:
        return pr.threshold_ci(
            ASAH,
            thresholds,
            score=score,
            label="outcome",
            direction=ours_direction,
            measures=list(measures.values()),
            conf_level=conf_level,
            n_boot=N_BOOT,
            seed=7,
            stratified=stratified,
        )

    coords = pl.read_csv(FIXTURES / "proc_coords.csv", null_values="NA").filter(
        score=score, direction=direction
    )
    point = call(conf_for(0.025 - mc_slack(0.025)))  # any conf_level: reuse a call
    assert point["threshold"].to_list() == coords["threshold"].to_list() == thresholds
    for proc_name, ours in measures.items():
        for got, want in zip(point[ours], coords[proc_name]):
            assert (got is None and want is None) or got == pytest.approx(want, abs=1e-12)
    for column, p in (("lower", 0.025), ("median", 0.5), ("upper", 0.975)):
        low, high = our_quantile(call, p - mc_slack(p)), our_quantile(call, p + mc_slack(p))
        for proc_name, ours in measures.items():
            want = ref.filter(measure=proc_name)[column]
            assert_between(low[ours], want, high[ours], f"{proc_name} {column}")


PROC_RATE_CI = pl.read_csv(FIXTURES / "proc_rate_ci.csv")


@pytest.mark.parametrize(
    ("score", "given"),
    PROC_RATE_CI.select("score", "given").unique(maintain_order=True).rows(),
)
def test_rate_at_rate_intervals_match_proc_ci_se_and_ci_sp(score: str, given: str) -> None:
    # ci.se(specificities = s) is tpr_at(fpr = 1 - s); ci.sp(sensitivities = s) is
    # 1 - fpr_at(tpr = s), so its p-quantile is 1 - our (1 - p)-quantile (type 7 is
    # symmetric).
    ref = PROC_RATE_CI.filter(score=score, given=given)
    at = ref["at"].to_numpy()
    options = {"score": score, "label": "outcome", "ci": "bootstrap", "n_boot": N_BOOT, "seed": 3}

    @functools.cache
    def call(conf_level: float) -> pl.DataFrame:
        if given == "specificity":
            return pr.tpr_at(ASAH, list(1 - at), conf_level=conf_level, **options)
        return pr.fpr_at(ASAH, list(at), conf_level=conf_level, **options)

    def quantile(p: float) -> np.ndarray:
        if given == "specificity":
            return our_quantile(call, p)["ci"].to_numpy()
        return 1 - our_quantile(call, 1 - p)["ci"].to_numpy()

    point = call(conf_for(0.025 - mc_slack(0.025)))  # any conf_level: reuse a call
    value = point["tpr"] if given == "specificity" else 1 - point["fpr"]
    np.testing.assert_allclose(value, ref["value"], rtol=0, atol=1e-12)
    for column, p in (("lower", 0.025), ("median", 0.5), ("upper", 0.975)):
        low, high = quantile(p - mc_slack(p)), quantile(p + mc_slack(p))
        assert_between(low, ref[column], high, column)
