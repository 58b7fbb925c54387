"""Power and sample size of AUC tests, against pROC's own test suite, pROC 1.18.0 itself,
and by hand.

Expected numbers are pROC's (tests/testthat/test-power.roc.test.R in xrobin/pROC, and
Obuchowski et al. 2004, table 4, which that suite checks), on pROC's aSAH data
(tests/fixtures/asah.csv, made by tests/fixtures/make_asah.py); and grids of
power.roc.test's results exported by tests/fixtures/proc_more.R
(fixtures/proc_power_one.csv, proc_power_diff.csv, proc_power_compare.csv), held to a
relative 1e-12 (15 significant digits in the CSV files).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats

import polars_roc as pr

ASAH = pl.read_csv(Path(__file__).parent / "fixtures" / "asah.csv")
# r.s100b's AUC in pROC (aSAH: 41 poor outcomes, 72 good).
S100B_AUC = 0.7313685636856367
TOL = 1e-6  # pROC: expect_equal(tolerance = 1e-6), a relative tolerance


def one(frame: pl.DataFrame, column: str) -> float:
    return frame[column].item()


# --- one AUC (Obuchowski et al. 2004) -----------------------------------------------


def test_power_of_a_roc_curve_as_proc() -> None:
    # power.roc.test(r.s100b)
    observed = pr.roc_auc(ASAH, score="s100b", label="outcome")
    assert one(observed, "auc") == pytest.approx(S100B_AUC, abs=1e-15)
    result = pr.auc_power(one(observed, "auc"), n_pos=41, n_neg=72)
    assert one(result, "power") == pytest.approx(0.9904833, rel=TOL)


def test_power_of_given_auc_as_proc() -> None:
    # power.roc.test(ncases=41, ncontrols=72, auc=0.73, sig.level=0.05)
    result = pr.auc_power(0.73, n_pos=41, n_neg=72, sig_level=0.05)
    assert result.columns == ["auc", "n_pos", "n_neg", "sig_level", "power"]
    assert one(result, "power") == pytest.approx(0.9897453, rel=TOL)


def test_sample_size_as_proc() -> None:
    # power.roc.test(auc=r.s100b$auc, sig.level=0.05, power=0.95, kappa=1.7)
    result = pr.auc_sample_size(S100B_AUC, power=0.95, neg_per_pos=1.7)
    assert one(result, "n_pos") == pytest.approx(29.29764, rel=TOL)
    assert one(result, "n_neg") == pytest.approx(49.806, rel=TOL)
    # power.roc.test(r.s100b, sig.level=0.05, power=0.9): kappa from the data
    result = pr.auc_sample_size(S100B_AUC, power=0.9, neg_per_pos=72 / 41)
    assert one(result, "n_pos") == pytest.approx(23.5598674, rel=TOL)
    assert one(result, "n_neg") == pytest.approx(41.3734257, rel=TOL)
    result = pr.auc_sample_size(S100B_AUC, power=0.9, neg_per_pos=1)
    assert one(result, "n_pos") == pytest.approx(29.5697422, rel=TOL)


def test_detectable_auc_as_proc() -> None:
    # power.roc.test(ncases=41, ncontrols=72, sig.level=0.05, power=0.95) gives 0.6961054
    # from uniroot at its default tolerance (~1.2e-4); the exact root is checked below.
    result = pr.auc_detectable(41, 72, power=0.95)
    auc = one(result, "auc")
    assert auc == pytest.approx(0.6961054, abs=1.2e-4)
    assert one(pr.auc_power(auc, 41, 72), "power") == pytest.approx(0.95, abs=1e-12)


def test_detectable_auc_takes_milliseconds() -> None:
    # A bisection over scipy's vectorised normal functions: with a hand-made erfc the
    # first call alone took 13 s; a 2,000-design table now takes milliseconds.
    start = time.process_time()  # CPU time: the same budget on a shared machine
    pr.auc_detectable(41, 72)
    table = pr.auc_detectable(np.arange(10, 1010), 72, power=[[0.8], [0.9]])
    assert time.process_time() - start < 1.0
    assert table.height == 2000 and table["auc"].null_count() == 0


def test_detectable_auc_null_when_out_of_reach() -> None:
    result = pr.auc_detectable([2, 200], [2, 200], power=0.99)
    assert result["auc"][0] is None
    assert 0.5 < result["auc"][1] < 1


# Obuchowski et al. (2004), table 4 as pROC checks it (its two corrected cells included):
# one-sided 5% test, power 0.9; at least 10 in each class, the other scaled by kappa.
KAPPAS = [0.25, 0.5, 1, 2, 4]
THETAS = [0.6, 0.7, 0.8, 0.9, 0.95]
CONTROLS = [
    [84, 20, 10, 10, 10],
    [101, 25, 10, 10, 10],
    [135, 33, 14, 10, 10],
    [203, 50, 21, 20, 20],
    [340, 84, 40, 40, 40],
]
CASES = [
    [334, 80, 40, 40, 40],
    [202, 49, 20, 20, 20],
    [135, 33, 14, 10, 10],
    [102, 25, 11, 10, 10],
    [85, 21, 10, 10, 10],
]


def test_obuchowski_table_4_in_one_call() -> None:
    kappa = np.array(KAPPAS)[:, None]
    theta = np.array(THETAS)[None, :]
    table = pr.auc_sample_size(theta, power=0.9, neg_per_pos=kappa, alternative="one-sided")
    assert table.height == 25
    for row in table.iter_rows(named=True):
        i, j = KAPPAS.index(row["neg_per_pos"]), THETAS.index(row["auc"])
        k = row["neg_per_pos"]
        cases, controls = math.ceil(row["n_pos"]), math.ceil(row["n_neg"])
        assert max(10, (10 if controls < 10 else 0) / k, cases) == CASES[i][j]
        assert max(10, (10 if cases < 10 else 0) * k, controls) == CONTROLS[i][j]


def test_one_auc_by_hand() -> None:
    # Formula 3 of Obuchowski 2004 at AUC 0.8, kappa 2, written out.
    a = stats.norm.ppf(0.8) * 1.414
    va = 0.0099 * math.exp(-a * a / 2) * ((5 * a * a + 8) + (a * a + 8) / 2)
    v0 = 0.0792 * (1 + 1 / 2)
    z_alpha = stats.norm.ppf(1 - 0.05 / 2)
    z_beta = (math.sqrt(50) * 0.3 - z_alpha * math.sqrt(v0)) / math.sqrt(va)
    result = pr.auc_power(0.8, n_pos=50, n_neg=100)
    assert one(result, "power") == pytest.approx(stats.norm.cdf(z_beta), rel=1e-13)
    n = (z_alpha * math.sqrt(v0) + stats.norm.ppf(0.8) * math.sqrt(va)) ** 2 / 0.3**2
    result = pr.auc_sample_size(0.8, power=0.8, neg_per_pos=2)
    assert one(result, "n_pos") == pytest.approx(n, rel=1e-13)


@settings(max_examples=60, deadline=None)
@given(
    auc=st.floats(0.52, 0.99),
    power=st.floats(0.05, 0.999),
    kappa=st.floats(0.1, 10),
    sig=st.floats(0.001, 0.2),
    sided=st.sampled_from(["two-sided", "one-sided"]),
)
def test_power_and_sample_size_round_trip(
    auc: float, power: float, kappa: float, sig: float, sided: str
) -> None:
    size = pr.auc_sample_size(auc, power=power, sig_level=sig, neg_per_pos=kappa, alternative=sided)
    n_pos, n_neg = one(size, "n_pos"), one(size, "n_neg")
    back = pr.auc_power(auc, n_pos, n_neg, sig_level=sig, alternative=sided)
    if (
        one(pr.auc_power(auc, 1e-9, 1e-9 * kappa, sig_level=sig, alternative=sided), "power")
        < power
    ):
        assert one(back, "power") == pytest.approx(power, abs=1e-9)


def test_power_grows_with_sample_and_auc() -> None:
    by_n = pr.auc_power(0.7, n_pos=[10, 20, 40, 80], n_neg=[10, 20, 40, 80])["power"]
    by_auc = pr.auc_power([0.55, 0.6, 0.7, 0.9], n_pos=30, n_neg=30)["power"]
    assert by_n.is_sorted() and by_n.n_unique() == 4
    assert by_auc.is_sorted() and by_auc.n_unique() == 4


def test_one_sided_needs_fewer() -> None:
    two = pr.auc_sample_size(0.75, power=0.9)
    one_sided = pr.auc_sample_size(0.75, power=0.9, alternative="one-sided")
    assert one(one_sided, "n_pos") < one(two, "n_pos")
    # A two-sided test at 10% is the one-sided test at 5% (pROC's convention).
    at_ten = pr.auc_sample_size(0.75, power=0.9, sig_level=0.1)
    assert one(at_ten, "n_pos") == pytest.approx(one(one_sided, "n_pos"), rel=1e-14)


# --- two AUCs, binormal (Obuchowski & McClish 1997) ----------------------------------

OB_PARAMS = {
    "a1": 2.6,
    "b1": 1,
    "a2": 1.9,
    "b2": 1,
    "r_neg": 0.6,
    "r_pos": 0.6,
    "fpr_range": (0, 0.2),
    "delta": 0.037,
}


def test_binormal_difference_as_proc() -> None:
    # power.roc.test(ob.params, power = 0.8, sig.level = 0.05)
    size = pr.auc_diff_sample_size(power=0.8, sig_level=0.05, **OB_PARAMS)
    assert one(size, "n_pos") == pytest.approx(107.0238, rel=TOL)
    assert one(size, "n_neg") == pytest.approx(107.0238, rel=TOL)
    # power.roc.test(ob.params, power = NULL, sig.level = 0.05, ncases = 107)
    power = pr.auc_diff_power(n_pos=107, n_neg=107, sig_level=0.05, **OB_PARAMS)
    assert one(power, "power") == pytest.approx(0.7999286, rel=TOL)


def test_binormal_full_area_delta_defaults_to_the_auc_difference() -> None:
    params = {"a1": 1.5, "a2": 1.0, "b1": 1.2, "b2": 0.8, "r_pos": 0.5, "r_neg": 0.3}
    implied = stats.norm.cdf(1.5 / math.sqrt(1 + 1.44)) - stats.norm.cdf(1 / math.sqrt(1.64))
    default = pr.auc_diff_sample_size(**params)
    explicit = pr.auc_diff_sample_size(delta=implied, **params)
    assert one(default, "delta") == pytest.approx(implied, rel=1e-13)
    assert one(default, "n_pos") == pytest.approx(one(explicit, "n_pos"), rel=1e-12)
    back = pr.auc_diff_power(n_pos=one(default, "n_pos"), n_neg=one(default, "n_neg"), **params)
    assert one(back, "power") == pytest.approx(0.8, abs=1e-12)


def test_binormal_full_area_variance_by_hand() -> None:
    # Uncorrelated curves: v0 = 2 var1, va = var1 + var2 with Obuchowski's formula 4.
    def variance(a: float, b: float, k: float) -> float:
        f = math.exp(-a * a / (2 * (1 + b * b))) / math.sqrt(2 * math.pi * (1 + b * b))
        g = (
            -math.exp(-a * a / (2 * (1 + b * b)))
            * a
            * b
            / math.sqrt(2 * math.pi * (1 + b * b) ** 3)
        )
        return f * f * (1 + b * b / k + a * a / 2) + g * g * b * b * (1 + k) / (2 * k)

    v1, v2 = variance(1.2, 0.9, 2.0), variance(0.7, 1.1, 2.0)
    z_alpha, z_beta = stats.norm.ppf(0.975), stats.norm.ppf(0.9)
    n = (z_alpha * math.sqrt(2 * v1) + z_beta * math.sqrt(v1 + v2)) ** 2 / 0.1**2
    result = pr.auc_diff_sample_size(
        a1=1.2, b1=0.9, a2=0.7, b2=1.1, delta=0.1, power=0.9, neg_per_pos=2.0
    )
    assert one(result, "n_pos") == pytest.approx(n, rel=1e-12)


def test_partial_band_over_everything_is_the_full_area() -> None:
    params = {"a1": 1.3, "a2": 0.9, "b1": 0.7, "b2": 1.4, "r_pos": 0.4, "r_neg": 0.2, "delta": 0.05}
    full = pr.auc_diff_sample_size(**params)
    band = pr.auc_diff_sample_size(fpr_range=(0, 1), **params)
    assert one(band, "n_pos") == pytest.approx(one(full, "n_pos"), rel=1e-12)


# --- two AUCs from data (DeLong) ------------------------------------------------------


def test_compare_power_as_proc() -> None:
    # power.roc.test(r.ndka, r.wfns) and with power = 0.9
    result = pr.compare_power(ASAH, ["ndka", "wfns"], label="outcome", power=0.9)
    assert result.columns == [
        "model_a",
        "model_b",
        "auc_a",
        "auc_b",
        "diff",
        "n_pos",
        "n_neg",
        "power",
        "n_pos_needed",
        "n_neg_needed",
    ]
    assert one(result, "power") == pytest.approx(0.7131594, rel=TOL)
    assert one(result, "n_pos_needed") == pytest.approx(64.77777, rel=TOL)
    assert one(result, "n_neg_needed") == pytest.approx(113.7561, rel=TOL)
    # power.roc.test(r.s100b, r.ndka, sig.level=0.05, power=0.9), kappa from the data or 1
    result = pr.compare_power(ASAH, ["s100b", "ndka"], label="outcome", power=0.9)
    assert one(result, "n_pos_needed") == pytest.approx(213.117677, rel=TOL)
    assert one(result, "n_neg_needed") == pytest.approx(374.255432, rel=TOL)
    result = pr.compare_power(ASAH, ["s100b", "ndka"], label="outcome", power=0.9, neg_per_pos=1)
    assert one(result, "n_neg_needed") == pytest.approx(213.117677, rel=TOL)


def test_compare_power_at_proc_solved_sig_level() -> None:
    # power.roc.test(r.ndka, r.wfns, power = 0.9, sig.level = NULL) gives 0.1836639:
    # at that level the observed sizes have power 0.9.
    result = pr.compare_power(ASAH, ["ndka", "wfns"], label="outcome", sig_level=0.1836639)
    assert one(result, "power") == pytest.approx(0.9, rel=TOL)


def test_compare_power_by_hand_from_delong() -> None:
    # v0 and va from pr.compare and pr.roc_auc's DeLong standard errors.
    test = pr.compare(ASAH, ["ndka", "wfns"], label="outcome")
    se_a = one(pr.roc_auc(ASAH, score="ndka", label="outcome", ci="delong"), "auc_se")
    se_b = one(pr.roc_auc(ASAH, score="wfns", label="outcome", ci="delong"), "auc_se")
    diff, se = one(test, "diff"), one(test, "se")
    v0, va = 41 * (se**2 + se_a**2 - se_b**2), 41 * se**2
    z_beta = (abs(diff) * math.sqrt(41) - stats.norm.ppf(0.975) * math.sqrt(v0)) / math.sqrt(va)
    result = pr.compare_power(ASAH, ["ndka", "wfns"], label="outcome")
    assert one(result, "power") == pytest.approx(stats.norm.cdf(z_beta), rel=1e-12)
    assert "n_pos_needed" not in result.columns


def test_compare_power_grouped_lazy_counted_and_lower() -> None:
    data = ASAH.with_columns(group=pl.int_range(pl.len()) % 2)
    eager = pr.compare_power(data, ["ndka", "s100b"], label="outcome", by="group", power=0.8)
    lazy = data.lazy().roc.compare_power(["ndka", "s100b"], label="outcome", by="group", power=0.8)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    for g in (0, 1):
        alone = pr.compare_power(
            data.filter(group=g).drop("group"), ["ndka", "s100b"], label="outcome", power=0.8
        )
        assert_frame_equal(eager.filter(group=g).drop("group"), alone)
    counted = data.group_by("group", "ndka", "s100b", "outcome").len("n")
    by_count = pr.compare_power(
        counted, ["ndka", "s100b"], label="outcome", by="group", count="n", power=0.8
    )
    assert_frame_equal(by_count, eager, check_dtypes=False, rel_tol=1e-12)
    negated = data.with_columns(-pl.col("ndka"), -pl.col("s100b"))
    lower = pr.compare_power(
        negated, ["ndka", "s100b"], label="outcome", by="group", direction="lower", power=0.8
    )
    assert_frame_equal(lower, eager, rel_tol=1e-12)


def test_compare_power_equal_curves_need_infinity() -> None:
    data = ASAH.with_columns(copy=pl.col("ndka") * 2)
    result = pr.compare_power(data, ["ndka", "copy"], label="outcome", power=0.8)
    assert one(result, "diff") == 0
    assert one(result, "n_pos_needed") == math.inf


# --- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: pr.auc_power(0.4, 10, 10), r"auc must lie in \(0.5, 1\), got \[0.4\]"),
        (lambda: pr.auc_power(1.0, 10, 10), r"auc must lie in \(0.5, 1\), got \[1.0\]"),
        (lambda: pr.auc_power(0.7, 0, 10), r"n_pos must lie in \(0, inf\), got \[0.0\]"),
        (lambda: pr.auc_power(0.7, 10, -1), r"n_neg must lie in \(0, inf\), got \[-1.0\]"),
        (lambda: pr.auc_power(0.7, 10, 10, sig_level=1.5), r"sig_level must lie in \(0, 1\)"),
        (lambda: pr.auc_power(0.7, 10, 10, sig_level=float("nan")), r"sig_level must lie"),
        (lambda: pr.auc_power("x", 10, 10), r"auc must be a number or a sequence of numbers"),
        (lambda: pr.auc_sample_size(0.7, power=1), r"power must lie in \(0, 1\), got \[1.0\]"),
        (lambda: pr.auc_sample_size(0.7, neg_per_pos=0), r"neg_per_pos must lie in \(0, inf\)"),
        (
            lambda: pr.auc_sample_size(0.7, alternative="greater"),
            r"alternative must be 'two-sided' or 'one-sided', got 'greater'",
        ),
        (lambda: pr.auc_detectable(10, 10, power=0), r"power must lie in \(0, 1\)"),
        (
            lambda: pr.auc_diff_power(a1=1, a2=1, n_pos=10, n_neg=10, r_pos=2),
            r"r_pos must lie in \[-1, 1\], got \[2.0\]",
        ),
        (
            lambda: pr.auc_diff_power(a1=1, a2=1, b1=0, n_pos=10, n_neg=10),
            r"b1 must lie in \(0, inf\)",
        ),
        (
            lambda: pr.auc_diff_sample_size(a1=1, a2=0.5, fpr_range=(0, 0.2)),
            r"delta= is needed with fpr_range=",
        ),
        (
            lambda: pr.auc_diff_sample_size(a1=1, a2=0.5, delta=0.1, fpr_range=(0.3, 0.2)),
            r"fpr_range must be \(low, high\) with 0 <= low < high <= 1, got \(0.3, 0.2\)",
        ),
        (
            lambda: pr.compare_power(ASAH, ["ndka"], label="outcome"),
            r"`scores` must name two different score columns",
        ),
        (
            lambda: pr.compare_power(ASAH, ["ndka", "wfns"], label="outcome", power=2),
            r"power must lie in \(0, 1\), got \[2.0\]",
        ),
        (
            lambda: pr.compare_power(ASAH, ["ndka", "wfns"], label="outcome", sig_level=0),
            r"sig_level must lie in \(0, 1\), got \[0.0\]",
        ),
    ],
)
def test_bad_input(call: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()  # type: ignore[operator]


# --- grids of power.roc.test (fixtures/proc_more.R) ----------------------------------

FIXTURES = Path(__file__).parent / "fixtures"
EXACT = 1e-12  # relative: the CSV files keep 15 significant digits


def proc_rows(name: str) -> list[dict]:
    rows = pl.read_csv(FIXTURES / name, null_values="NA")
    if name == "proc_power_one.csv":
        # pROC solves two-sided levels above 1 (it doubles 1 - Phi(z) for z < 0) and
        # levels that underflow to 0 (10 of 136 rows): neither is a level we accept.
        rows = rows.filter(
            (pl.col("solve") != "sig_level")
            | pl.col("sig_level").is_between(1e-10, 1, closed="none")
        )
    return list(rows.iter_rows(named=True))


def sidedness(alternative: str) -> str:
    return alternative.replace(".", "-")  # "two.sided" -> "two-sided"


@pytest.mark.parametrize("row", proc_rows("proc_power_one.csv"))
def test_one_auc_grid_as_proc(row: dict) -> None:
    alternative = sidedness(row["alternative"])
    # No function solves for the level: the round trip, at pROC's level, gives its power.
    if row["solve"] in ("power", "sig_level"):
        got = pr.auc_power(
            row["auc"],
            row["ncases"],
            row["ncontrols"],
            sig_level=row["sig_level"],
            alternative=alternative,
        )
        assert one(got, "power") == pytest.approx(row["power"], rel=EXACT)
    elif row["solve"] == "n":
        got = pr.auc_sample_size(
            row["auc"],
            power=row["power"],
            sig_level=row["sig_level"],
            neg_per_pos=row["ncontrols"] / row["ncases"],
            alternative=alternative,
        )
        assert one(got, "n_pos") == pytest.approx(row["ncases"], rel=EXACT)
        assert one(got, "n_neg") == pytest.approx(row["ncontrols"], rel=EXACT)
    else:
        got = one(
            pr.auc_detectable(
                row["ncases"],
                row["ncontrols"],
                power=row["power"],
                sig_level=row["sig_level"],
                alternative=alternative,
            ),
            "auc",
        )
        # pROC's uniroot stops at its default tolerance (~1.2e-4); auc_exact is pROC's
        # own objective solved to 1e-15 in R.
        assert got == pytest.approx(row["auc"], abs=1.3e-4)
        assert got == pytest.approx(row["auc_exact"], rel=EXACT)


@pytest.mark.parametrize("row", proc_rows("proc_power_diff.csv"))
def test_binormal_difference_grid_as_proc(row: dict) -> None:
    params = {
        "a1": row["A1"],
        "b1": row["B1"],
        "a2": row["A2"],
        "b2": row["B2"],
        "r_neg": row["rn"],  # pROC's rn: the correlation among negatives (controls)
        "r_pos": row["ra"],
        "delta": row["delta"],
        "sig_level": row["sig_level"],
        "alternative": sidedness(row["alternative"]),
    }
    if row["FPR1"] is not None:
        params["fpr_range"] = (row["FPR1"], row["FPR2"])
    if row["solve"] == "n":
        got = pr.auc_diff_sample_size(power=row["power"], neg_per_pos=row["kappa"], **params)
        assert one(got, "n_pos") == pytest.approx(row["ncases"], rel=EXACT)
        assert one(got, "n_neg") == pytest.approx(row["ncontrols"], rel=EXACT)
    else:
        got = pr.auc_diff_power(n_pos=row["ncases"], n_neg=row["ncontrols"], **params)
        assert one(got, "power") == pytest.approx(row["power"], rel=EXACT)


@pytest.mark.parametrize("row", proc_rows("proc_power_compare.csv"))
def test_compare_power_grid_as_proc(row: dict) -> None:
    options = {"label": "outcome", "alternative": sidedness(row["alternative"])}
    scores = [row["score_a"], row["score_b"]]
    got = pr.compare_power(ASAH, scores, power=0.9, **options)
    assert one(got, "auc_a") == pytest.approx(row["auc_a"], rel=EXACT)
    assert one(got, "auc_b") == pytest.approx(row["auc_b"], rel=EXACT)
    assert one(got, "power") == pytest.approx(row["power"], rel=EXACT)
    assert one(got, "n_pos_needed") == pytest.approx(row["ncases_needed"], rel=EXACT)
    assert one(got, "n_neg_needed") == pytest.approx(row["ncontrols_needed"], rel=EXACT)
    even = pr.compare_power(ASAH, scores, power=0.9, neg_per_pos=1, **options)
    assert one(even, "n_pos_needed") == pytest.approx(row["ncases_needed_kappa1"], rel=EXACT)
    assert one(even, "n_neg_needed") == pytest.approx(row["ncontrols_needed_kappa1"], rel=EXACT)
    # pROC's level at which the observed sizes reach power 0.9: the round trip.
    at_level = pr.compare_power(ASAH, scores, sig_level=row["sig_level_at_power90"], **options)
    assert one(at_level, "power") == pytest.approx(0.9, rel=1e-12)
