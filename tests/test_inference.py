"""Inference: DeLong and bootstrap intervals, partial AUC, points on the curve, comparisons.

References: values produced by R's pROC 1.18.0 (``fixtures/proc_reference.R`` and, for
the bootstrap, ``fixtures/proc_bootstrap.R``, on ``fixtures/proc_data.csv``),
scikit-learn's ``roc_auc_score(max_fpr=)``, brute-force O(m n) DeLong written here with
numpy, scipy's distributions, and a coverage simulation from a binormal model whose true
AUC is known in closed form.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats
from sklearn.metrics import roc_auc_score, roc_curve

import polars_roc as pr
from polars_roc.stats import bootstrap as _bootstrap
from polars_roc.stats.delong import delong_per_group

FIXTURES = Path(__file__).parent / "fixtures"
PROC = dict(pl.read_csv(FIXTURES / "proc_values.csv").iter_rows())
DATA = pl.read_csv(FIXTURES / "proc_data.csv")
GROUPS = ("all", "north", "south")
SCORES = ("score_a", "score_b")
TOL = 1e-9


def _subset(group: str) -> pl.DataFrame:
    return DATA if group == "all" else DATA.filter(pl.col("group") == group)


def _collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


# ------------------------------------------------------------------ brute force


def brute_delong(
    score: np.ndarray, label: np.ndarray
) -> tuple[float, float, np.ndarray, np.ndarray]:
    """AUC, DeLong variance and the placements (V10 per positive, V01 per negative)."""
    x, y = score[label == 1], score[label == 0]
    psi = (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    auc = psi.mean()
    var = v10.var(ddof=1) / len(x) + v01.var(ddof=1) / len(y)
    return auc, var, v10, v01


def brute_paired(a: np.ndarray, b: np.ndarray, label: np.ndarray) -> tuple[float, float]:
    """Difference of AUCs and its DeLong standard error, from the covariance matrix."""
    auc_a, _, v10a, v01a = brute_delong(a, label)
    auc_b, _, v10b, v01b = brute_delong(b, label)
    m, n = len(v10a), len(v01a)
    s10, s01 = np.cov(np.vstack([v10a, v10b])), np.cov(np.vstack([v01a, v01b]))
    s = s10 / m + s01 / n
    ell = np.array([1.0, -1.0])
    return auc_a - auc_b, float(np.sqrt(ell @ s @ ell))


def small_log(seed: int, n: int = 60, levels: int = 8) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    label[:4] = [0, 1, 0, 1]
    a = np.round(rng.normal(label * 0.9, 1.0) * levels / 3) / levels
    b = np.round((0.5 * a + rng.normal(0, 0.7, n)) * levels / 2) / levels
    return pl.DataFrame(
        {
            "g": np.where(np.arange(n) % 2 == 0, "x", "y"),
            "a": a,
            "b": b,
            "label": label,
            "weight": rng.uniform(0.2, 2.0, n),
        }
    )


# ------------------------------------------------------------------ pROC fixtures


@pytest.mark.parametrize("score", SCORES)
def test_delong_matches_proc_per_group(score: str, as_kind: Callable) -> None:
    out = _collect(pr.roc_auc(as_kind(DATA), score=score, by="group", ci="delong", conf_level=0.9))
    whole = _collect(pr.roc_auc(as_kind(DATA), score=score, ci="delong", conf_level=0.9))
    rows = {"all": whole.row(0, named=True)}
    rows.update({r["group"]: r for r in out.iter_rows(named=True)})
    for group in GROUPS:
        key = f"{score}.{group}"
        assert rows[group]["auc"] == pytest.approx(PROC[f"{key}.auc"], abs=TOL)
        assert rows[group]["auc_se"] == pytest.approx(PROC[f"{key}.se"], abs=TOL)
        assert rows[group]["ci_lower"] == pytest.approx(PROC[f"{key}.ci90_lower"], abs=TOL)
        assert rows[group]["ci_upper"] == pytest.approx(PROC[f"{key}.ci90_upper"], abs=TOL)


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("pauc_sp80_raw", {"max_fpr": 0.2, "standardize": False}),
        ("pauc_sp80_std", {"max_fpr": 0.2}),
        ("pauc_sp_70_90_raw", {"fpr_range": (0.1, 0.3), "standardize": False}),
        ("pauc_se_80_100_raw", {"tpr_range": (0.8, 1.0), "standardize": False}),
        ("pauc_se_80_100_std", {"tpr_range": (0.8, 1.0)}),
        ("pauc_se_50_90_raw", {"tpr_range": (0.5, 0.9), "standardize": False}),
    ],
)
def test_partial_auc_matches_proc(score: str, name: str, options: dict) -> None:
    out = pr.roc_auc(DATA, score=score, by="group", **options)
    whole = pr.roc_auc(DATA, score=score, **options)["auc"][0]
    values = {"all": whole, **dict(zip(out["group"], out["auc"]))}
    for group in GROUPS:
        assert values[group] == pytest.approx(PROC[f"{score}.{group}.{name}"], abs=TOL)


@pytest.mark.parametrize("score", SCORES)
def test_points_match_proc_coords(score: str, as_kind: Callable) -> None:
    rates = [0.95, 0.9, 0.8, 0.5]
    tpr = _collect(pr.tpr_at(as_kind(DATA), [1 - r for r in rates], score=score, by="group"))
    fpr = _collect(pr.fpr_at(as_kind(DATA), rates, score=score, by="group"))
    for group in ("north", "south"):
        got_tpr = tpr.filter(pl.col("group") == group)["tpr"].to_list()
        got_fpr = fpr.filter(pl.col("group") == group)["fpr"].to_list()
        for rate, t, f in zip(rates, got_tpr, got_fpr):
            assert t == pytest.approx(PROC[f"{score}.{group}.se_at_sp{rate:.2f}"], abs=TOL)
            assert 1 - f == pytest.approx(PROC[f"{score}.{group}.sp_at_se{rate:.2f}"], abs=TOL)


def test_paired_delong_matches_proc(as_kind: Callable, by: object) -> None:
    out = _collect(pr.compare(as_kind(DATA), ["score_a", "score_b"], by="group", conf_level=0.9))
    whole = _collect(pr.compare(as_kind(DATA), ["score_a", "score_b"], conf_level=0.9))
    rows = {"all": whole.row(0, named=True)}
    rows.update({r["group"]: r for r in out.iter_rows(named=True)})
    for group in GROUPS:
        row = rows[group]
        assert row["z"] == pytest.approx(PROC[f"paired.{group}.z"], abs=1e-9)
        assert row["p_value"] == pytest.approx(PROC[f"paired.{group}.p"], abs=1e-9)
        assert row["ci_lower"] == pytest.approx(PROC[f"paired.{group}.ci90_lower"], abs=TOL)
        assert row["ci_upper"] == pytest.approx(PROC[f"paired.{group}.ci90_upper"], abs=TOL)
        assert row["auc_a"] == pytest.approx(PROC[f"score_a.{group}.auc"], abs=TOL)
        assert row["auc_b"] == pytest.approx(PROC[f"score_b.{group}.auc"], abs=TOL)
        assert row["diff"] == pytest.approx(row["auc_a"] - row["auc_b"], abs=1e-15)


@pytest.mark.parametrize("score", SCORES)
def test_unpaired_delong_matches_proc(score: str, as_kind: Callable) -> None:
    out = _collect(
        pr.compare_groups(as_kind(DATA), by="group", groups=("north", "south"), score=score)
    )
    row = out.row(0, named=True)
    assert row["t"] == pytest.approx(PROC[f"unpaired.{score}.t"], abs=1e-9)
    assert row["df"] == pytest.approx(PROC[f"unpaired.{score}.df"], rel=1e-9)
    assert row["p_value"] == pytest.approx(PROC[f"unpaired.{score}.p"], abs=1e-9)
    crit = stats.t.ppf(0.975, row["df"])
    assert row["ci_lower"] == pytest.approx(row["diff"] - crit * row["se"], abs=1e-9)
    assert row["ci_upper"] == pytest.approx(row["diff"] + crit * row["se"], abs=1e-9)


def test_unpaired_bootstrap(as_kind: Callable) -> None:
    out = _collect(
        pr.compare_groups(
            as_kind(DATA),
            by="group",
            groups=("north", "south"),
            score="score_a",
            ci="bootstrap",
            seed=4,
            n_boot=2000,
        )
    )
    assert out.columns == [
        "group_a",
        "group_b",
        "auc_a",
        "auc_b",
        "diff",
        "se",
        "z",
        "p_value",
        "ci_lower",
        "ci_upper",
    ]
    row = out.row(0, named=True)
    assert row["auc_a"] == pytest.approx(PROC["score_a.north.auc"], abs=1e-12)
    assert row["auc_b"] == pytest.approx(PROC["score_a.south.auc"], abs=1e-12)
    delong_se = math.hypot(PROC["score_a.north.se"], PROC["score_a.south.se"])
    assert row["se"] == pytest.approx(delong_se, rel=0.1)
    assert row["ci_lower"] < row["diff"] < row["ci_upper"]
    assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(row["z"])), abs=1e-12)
    # Partial AUCs and weights are bootstrap-only; estimates are the per-group values.
    part = pr.compare_groups(
        DATA.with_columns(pl.lit(2.0).alias("weight")),
        by="group",
        groups=("north", "south"),
        score="score_a",
        weight="weight",
        ci="bootstrap",
        max_fpr=0.2,
        n_boot=50,
        seed=1,
    )
    assert part["auc_a"][0] == pytest.approx(PROC["score_a.north.pauc_sp80_std"], abs=1e-12)
    assert part["auc_b"][0] == pytest.approx(PROC["score_a.south.pauc_sp80_std"], abs=1e-12)


def test_unpaired_within_blocks() -> None:
    # Each block of `within` is compared on its own: the same as filtering first.
    df = pl.concat([DATA.with_columns(pl.lit(k).alias("block")) for k in ("k1", "k2")])
    df = df.with_columns(
        pl.when(pl.col("block") == "k2")
        .then(pl.col("score_b"))
        .otherwise(pl.col("score_a"))
        .alias("s")
    )
    out = pr.compare_groups(
        df.lazy(), by="group", groups=("north", "south"), within="block", score="s"
    ).collect()
    assert out["block"].to_list() == ["k1", "k2"]
    assert out["t"][0] == pytest.approx(PROC["unpaired.score_a.t"], abs=1e-9)
    assert out["t"][1] == pytest.approx(PROC["unpaired.score_b.t"], abs=1e-9)


# ------------------------------------------------------------------ brute force DeLong


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(6, 40), levels=st.sampled_from([2, 4, 50]))
def test_delong_equals_brute_force(seed: int, n: int, levels: int) -> None:
    df = small_log(seed, n, levels)
    label = df["label"].to_numpy()
    auc, var, _, _ = brute_delong(df["a"].to_numpy(), label)
    out = pr.roc_auc(df, score="a", ci="delong")
    expr = df.select(pr.auc_se("a", "label"))["auc_se"][0]
    assert out["auc"][0] == pytest.approx(auc, abs=1e-12)
    assert out["auc_se"][0] == pytest.approx(math.sqrt(var), abs=1e-12)
    assert expr == pytest.approx(math.sqrt(var), abs=1e-12)
    z = NormalDist().inv_cdf(0.975)
    assert out["ci_lower"][0] == pytest.approx(max(0.0, auc - z * math.sqrt(var)), abs=1e-12)
    assert out["ci_upper"][0] == pytest.approx(min(1.0, auc + z * math.sqrt(var)), abs=1e-12)
    diff, se = brute_paired(df["a"].to_numpy(), df["b"].to_numpy(), label)
    paired = pr.compare(df, ["a", "b"])
    assert paired["diff"][0] == pytest.approx(diff, abs=1e-12)
    assert paired["se"][0] == pytest.approx(se, abs=1e-12)


def test_paired_delong_on_counted_pairs_equals_brute_force() -> None:
    # Few distinct (a, b) pairs among many rows: the pairs are counted before sorting.
    df = small_log(31, 3000, 2)
    assert df.select(pl.struct("a", "b").n_unique()).item() * 4 <= df.height
    out = pr.compare(df.lazy(), ["a", "b"], by="g").collect()
    for (key,), part in df.partition_by("g", as_dict=True).items():
        diff, se = brute_paired(
            part["a"].to_numpy(), part["b"].to_numpy(), part["label"].to_numpy()
        )
        row = out.filter(pl.col("g") == key)
        assert row["diff"][0] == pytest.approx(diff, abs=1e-12)
        assert row["se"][0] == pytest.approx(se, abs=1e-12)


def test_delong_grouped_equals_each_group(as_kind: Callable) -> None:
    df = small_log(7, 200)
    out = _collect(pr.roc_auc(as_kind(df), score="a", by="g", ci="delong"))
    exprs = df.group_by("g").agg(pr.auc_se("a", "label")).sort("g")
    for (key,), part in df.partition_by("g", as_dict=True).items():
        _, var, _, _ = brute_delong(part["a"].to_numpy(), part["label"].to_numpy())
        row = out.filter(pl.col("g") == key)
        assert row["auc_se"][0] == pytest.approx(math.sqrt(var), abs=1e-12)
        assert exprs.filter(pl.col("g") == key)["auc_se"][0] == pytest.approx(
            math.sqrt(var), abs=1e-12
        )
    assert out.columns == ["g", "auc", "n_pos", "n_neg", "auc_se", "ci_lower", "ci_upper"]


def test_delong_counts_wide_enough_for_a_billion_rows() -> None:
    # A score table with ~1.6e9 rows in two distinct scores (never materialised as rows):
    # the variance stays finite and equals the closed form of the 2x2 case.
    big = 400_000_000
    table = pl.DataFrame(
        {
            "pos": [3 * big, big],
            "neg": [big, 3 * big],
            "tp": [3 * big, 4 * big],
            "fp": [big, 4 * big],
            "n_pos": [4 * big] * 2,
            "n_neg": [4 * big] * 2,
        }
    )
    got = delong_per_group(table.lazy(), []).select("auc", "auc_var").collect().row(0)
    m = n = 4.0 * big
    # Placements: positives 7/8 (top, 3 parts) and 3/8; negatives 3/8 (top) and 7/8.
    v10 = np.repeat([7 / 8, 3 / 8], [3, 1])
    v01 = np.repeat([3 / 8, 7 / 8], [1, 3])
    theta = v10.mean()
    s10, s01 = ((v10 - theta) ** 2).mean() * m / (m - 1), ((v01 - theta) ** 2).mean() * n / (n - 1)
    expected = s10 / m + s01 / n
    assert got[0] == pytest.approx(theta, abs=1e-15)
    assert got[1] == pytest.approx(expected, rel=1e-9)


def test_delong_se_null_with_fewer_than_two_of_a_class() -> None:
    df = pl.DataFrame({"score": [0.9, 0.4, 0.3, 0.2], "label": [1, 0, 0, 0]})
    out = pr.roc_auc(df, ci="delong")
    assert out["auc"][0] == 1.0
    assert out[["auc_se", "ci_lower", "ci_upper"]].row(0) == (None, None, None)
    assert df.select(pr.auc_se())["auc_se"][0] is None


def test_single_class_group_is_null_with_warning() -> None:
    df = pl.DataFrame(
        {
            "g": ["a"] * 4 + ["b"] * 2,
            "score": [0.9, 0.4, 0.3, 0.2, 0.5, 0.6],
            "label": [1, 1, 0, 0, 0, 0],
        }
    )
    for ci in ("delong", "bootstrap"):
        with pytest.warns(UserWarning, match="only one class"):
            out = pr.roc_auc(df, by="g", ci=ci, n_boot=50, seed=1)
        assert out.filter(pl.col("g") == "b")[["auc", "auc_se", "ci_lower"]].row(0) == (
            None,
            None,
            None,
        )
        assert out.filter(pl.col("g") == "a")["auc"][0] == 1.0


def test_empty_input_gives_empty_frames() -> None:
    df = pl.DataFrame(
        {"g": [], "score": [], "label": []},
        schema={"g": pl.String, "score": pl.Float64, "label": pl.Int64},
    )
    for ci in ("delong", "bootstrap"):
        out = pr.roc_auc(df, by="g", ci=ci, n_boot=10)
        assert out.height == 0
        assert "ci_upper" in out.columns
    assert pr.roc_auc(df, ci="bootstrap", n_boot=10).height == 0
    assert pr.tpr_at(df, 0.1, ci="bootstrap", n_boot=10).height == 0


def test_delong_large_data_finite_and_close_to_bootstrap() -> None:
    rng = np.random.default_rng(3)
    rows = 10_000_000
    label = rng.random(rows) < 0.3
    score = np.round(rng.normal(size=rows) + label, 2)
    df = pl.DataFrame({"score": score, "label": label})
    delong = pr.roc_auc(df, ci="delong")
    boot = pr.roc_auc(df, ci="bootstrap", n_boot=200, seed=5)
    se = delong["auc_se"][0]
    assert np.isfinite(se) and 0 < se < 1e-3
    assert boot["auc_se"][0] == pytest.approx(se, rel=0.15)


# ------------------------------------------------------------------ partial AUC vs sklearn


@pytest.mark.parametrize("max_fpr", [0.01, 0.1, 0.25, 0.5, 0.8, 1.0])
@pytest.mark.parametrize("levels", [3, 10, 1000])
def test_max_fpr_equals_sklearn(
    max_fpr: float, levels: int, weight: str | None, as_kind: Callable
) -> None:
    df = small_log(11, 150, levels)
    out = _collect(pr.roc_auc(as_kind(df), score="a", by="g", weight=weight, max_fpr=max_fpr))
    for (key,), part in df.partition_by("g", as_dict=True).items():
        sample_weight = None if weight is None else part[weight].to_numpy()
        expected = roc_auc_score(
            part["label"].to_numpy(),
            part["a"].to_numpy(),
            max_fpr=max_fpr,
            sample_weight=sample_weight,
        )
        assert out.filter(pl.col("g") == key)["auc"][0] == pytest.approx(expected, abs=1e-9)


def _raw_band_area(fpr: np.ndarray, tpr: np.ndarray, lo: float, hi: float) -> float:
    """Trapezoids over the curve clipped to [lo, hi] (sklearn's max_fpr method, both ends)."""
    at_lo, at_hi = tpr[fpr == lo], tpr[fpr == hi]
    # Entering at lo from the top of a vertical run there; leaving hi from its bottom.
    y_lo = at_lo.max() if at_lo.size else np.interp(lo, fpr, tpr)
    y_hi = at_hi.min() if at_hi.size else np.interp(hi, fpr, tpr)
    inside = (fpr > lo) & (fpr < hi)
    x = np.concatenate([[lo], fpr[inside], [hi]])
    y = np.concatenate([[y_lo], tpr[inside], [y_hi]])
    return float(np.trapezoid(y, x))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), lo=st.floats(0.0, 0.9), width=st.floats(0.05, 1.0))
def test_fpr_band_area_and_additivity(seed: int, lo: float, width: float) -> None:
    hi = min(1.0, lo + width)
    df = small_log(seed, 50, 6)
    raw = pr.roc_auc(df, score="a", fpr_range=(lo, hi), standardize=False)["auc"][0]
    fpr, tpr, _ = roc_curve(df["label"].to_numpy(), df["a"].to_numpy(), drop_intermediate=False)
    assert raw == pytest.approx(_raw_band_area(fpr, tpr, lo, hi), abs=1e-12)
    # Bands add up to the AUC; the tpr band of (0, 1) is the AUC too.
    full = pr.roc_auc(df, score="a")["auc"][0]
    parts = [
        pr.roc_auc(df, score="a", fpr_range=band, standardize=False)["auc"][0]
        for band in [(0.0, lo), (lo, hi), (hi, 1.0)]
        if band[0] < band[1]
    ]
    assert sum(parts) == pytest.approx(full, abs=1e-12)
    assert pr.roc_auc(df, score="a", tpr_range=(0.0, 1.0), standardize=False)["auc"][0] == (
        pytest.approx(full, abs=1e-12)
    )


def test_standardized_partial_auc_of_chance_and_perfect() -> None:
    n = 200
    perfect = pl.DataFrame({"score": np.arange(n) / n, "label": np.arange(n) >= n // 2})
    chance = pl.DataFrame({"score": np.zeros(n), "label": np.arange(n) % 2 == 0})
    for options in ({"max_fpr": 0.1}, {"fpr_range": (0.2, 0.6)}, {"tpr_range": (0.5, 0.9)}):
        assert pr.roc_auc(perfect, **options)["auc"][0] == pytest.approx(1.0, abs=1e-12)
        assert pr.roc_auc(chance, **options)["auc"][0] == pytest.approx(0.5, abs=1e-12)


# ------------------------------------------------------------------ points on the curve


def test_tpr_at_equals_curve_reading(by: object, as_kind: Callable) -> None:
    df = small_log(5, 120, 5)
    targets = [0.0, 0.05, 0.3, 0.5, 1.0]
    out = _collect(pr.tpr_at(as_kind(df), targets, score="a", by="g"))
    assert out.columns == ["g", "fpr", "tpr", "n_pos", "n_neg"]
    assert out["fpr"].to_list() == targets * 2
    for (key,), part in df.partition_by("g", as_dict=True).items():
        fpr, tpr, _ = roc_curve(
            part["label"].to_numpy(), part["a"].to_numpy(), drop_intermediate=False
        )
        for target, got in zip(targets, out.filter(pl.col("g") == key)["tpr"]):
            exact = tpr[fpr == target]
            expected = exact.max() if exact.size else np.interp(target, fpr, tpr)
            assert got == pytest.approx(expected, abs=1e-12)


def test_fpr_at_is_lowest_fpr_reaching_tpr() -> None:
    df = pl.DataFrame({"score": [0.9, 0.8, 0.8, 0.6, 0.5, 0.4], "label": [1, 1, 0, 0, 1, 0]})
    # Curve: (0,0) (0,1/3) (1/3,2/3) (2/3,2/3) (2/3,1) (1,1).
    out = pr.fpr_at(df, [0.0, 1 / 3, 0.5, 2 / 3, 1.0])
    assert out["fpr"].to_list() == pytest.approx([0.0, 0.0, 1 / 6, 1 / 3, 2 / 3], abs=1e-12)


# ------------------------------------------------------------------ bootstrap


def test_bootstrap_reproducible_with_seed(by: object, as_kind: Callable) -> None:
    df = small_log(21, 150, 10)
    by_cols = "g" if by else None
    first = _collect(
        pr.roc_auc(as_kind(df), score="a", by=by_cols, ci="bootstrap", seed=9, n_boot=300)
    )
    again = _collect(pr.roc_auc(df, score="a", by=by_cols, ci="bootstrap", seed=9, n_boot=300))
    other = _collect(pr.roc_auc(df, score="a", by=by_cols, ci="bootstrap", seed=10, n_boot=300))
    assert_frame_equal(first, again)
    assert not first["auc_se"].equals(other["auc_se"])
    plain = pr.roc_auc(df, score="a", by=by_cols)
    assert_frame_equal(first.select(plain.columns), plain)
    assert (first["ci_lower"] <= first["auc"]).all() and (first["auc"] <= first["ci_upper"]).all()
    lazy = pr.roc_auc(df.lazy(), score="a", by=by_cols, ci="bootstrap", seed=9, n_boot=300)
    assert_frame_equal(lazy.collect(), lazy.collect())


def test_bootstrap_same_on_streaming_engine(by: object) -> None:
    df = small_log(21, 150, 10)
    by_cols = "g" if by else None
    lazy = pr.roc_auc(df.lazy(), score="a", by=by_cols, ci="bootstrap", seed=9, n_boot=300)
    assert_frame_equal(lazy.collect(engine="in-memory"), lazy.collect(engine="streaming"))


def test_bootstrap_progress_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    df = small_log(2, 40, 5)
    pr.roc_auc(df, score="a", ci="bootstrap", n_boot=20, seed=1)
    assert capsys.readouterr().err == ""
    pr.roc_auc(df, score="a", ci="bootstrap", n_boot=20, seed=1, progress=True)
    captured = capsys.readouterr()
    assert "bootstrap: 20/20 replicates" in captured.err
    assert captured.out == ""


def test_bootstrap_weights_constant_equal_unweighted() -> None:
    # Rows are resampled; constant weights scale every replicate's counts alike.
    df = small_log(4, 100, 7).with_columns(pl.lit(2.5).alias("c"))
    plain = pr.roc_auc(df, score="a", ci="bootstrap", seed=3, n_boot=200)
    weighted = pr.roc_auc(df, score="a", weight="c", ci="bootstrap", seed=3, n_boot=200)
    assert weighted["auc_se"][0] == pytest.approx(plain["auc_se"][0], rel=1e-12)
    assert weighted["ci_lower"][0] == pytest.approx(plain["ci_lower"][0], rel=1e-12)


def test_bootstrap_weighted_runs_and_brackets_estimate() -> None:
    df = small_log(8, 300, 20)
    out = pr.roc_auc(df, score="a", by="g", weight="weight", ci="bootstrap", seed=1, n_boot=300)
    expected = pr.roc_auc(df, score="a", by="g", weight="weight")
    assert_frame_equal(out.select(expected.columns), expected)
    assert (out["ci_lower"] < out["auc"]).all() and (out["auc"] < out["ci_upper"]).all()


def test_bootstrap_se_close_to_delong() -> None:
    df = small_log(2, 3000, 40)
    delong = pr.roc_auc(df, score="a", ci="delong")["auc_se"][0]
    boot = pr.roc_auc(df, score="a", ci="bootstrap", seed=4, n_boot=600)["auc_se"][0]
    assert boot == pytest.approx(delong, rel=0.12)


def test_multinomial_draws_keep_totals_and_means() -> None:
    rows = np.array([5, 0, 3, 2, 10, 1, 1, 0, 4, 0, 7], dtype=np.int64)
    starts = np.array([0, 4, 8])
    keys = pl.DataFrame({"g": ["a", "b", "c"]})
    sampler = _bootstrap.Resampler(
        rows, rows[::-1].copy(), rows.astype(float), rows[::-1].astype(float), starts, keys
    )
    pos, neg = (np.concatenate(c) for c in zip(*sampler.chunks(0, 4000), strict=True))
    for counts, cells in ((pos, rows), (neg, rows[::-1])):
        totals = np.add.reduceat(counts, starts, axis=1)
        assert (totals == np.add.reduceat(cells, starts)).all()
        assert (counts[:, cells == 0] == 0).all()
        assert counts.mean(axis=0) == pytest.approx(cells, abs=0.15)
        # Multinomial variance k p (1 - p) per cell.
        k = np.repeat(np.add.reduceat(cells, starts), np.diff([*starts, len(cells)]))
        p = cells / k
        assert counts.var(axis=0) == pytest.approx(k * p * (1 - p), abs=0.35)


def test_bootstrap_chunks_bound_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tiny chunks bound memory and give the same replicates as one big chunk: each
    # group's streams are consumed in the same order whatever the chunk sizes.
    df = small_log(1, 80, 30)
    whole = pr.roc_auc(df, score="a", by="g", ci="bootstrap", seed=2, n_boot=120)
    monkeypatch.setattr(_bootstrap, "CELL_BUDGET", 16)
    out = pr.roc_auc(df, score="a", by="g", ci="bootstrap", seed=2, n_boot=120)
    assert (0 < out["auc_se"]).all() and (out["auc_se"] < 0.2).all()
    assert_frame_equal(out, whole)


def test_bootstrap_coverage_binormal() -> None:
    # 400 samples of 40 positives ~ N(1, 1) and 40 negatives ~ N(0, 1): the true AUC is
    # Phi(1 / sqrt(2)). One grouped call bootstraps all samples at once.
    rng = np.random.default_rng(12345)
    samples, per_class = 400, 40
    true_auc = NormalDist().cdf(1 / math.sqrt(2))
    label = np.tile(np.repeat([1, 0], per_class), samples)
    df = pl.DataFrame(
        {
            "sample": np.repeat(np.arange(samples), 2 * per_class),
            "score": rng.normal(size=label.size) + label,
            "label": label,
        }
    )
    boot = pr.roc_auc(df, by="sample", ci="bootstrap", n_boot=500, seed=7)
    delong = pr.roc_auc(df, by="sample", ci="delong")
    for out in (boot, delong):
        covered = ((out["ci_lower"] <= true_auc) & (true_auc <= out["ci_upper"])).mean()
        assert 0.93 <= covered <= 0.97


def test_bootstrap_agrees_with_proc_within_monte_carlo_error() -> None:
    # pROC's stratified bootstrap (fixtures/proc_bootstrap.R, 10000 replicates) and ours
    # estimate the same percentile interval with different random numbers.
    ref = dict(pl.read_csv(FIXTURES / "proc_bootstrap.csv").iter_rows())
    options = {"score": "score_a", "ci": "bootstrap", "n_boot": 10_000, "seed": 1}
    full = pr.roc_auc(DATA, **options)
    assert full["ci_lower"][0] == pytest.approx(ref["auc_ci_lower"], abs=0.004)
    assert full["ci_upper"][0] == pytest.approx(ref["auc_ci_upper"], abs=0.004)
    assert full["auc_se"][0] == pytest.approx(ref["auc_se"], rel=0.03)
    part = pr.roc_auc(DATA, max_fpr=0.2, **options)
    assert part["ci_lower"][0] == pytest.approx(ref["pauc_ci_lower"], abs=0.006)
    assert part["ci_upper"][0] == pytest.approx(ref["pauc_ci_upper"], abs=0.006)
    point = pr.tpr_at(DATA, 0.1, **options)
    assert point["ci_lower"][0] == pytest.approx(ref["se_at_sp90_ci_lower"], abs=0.015)
    assert point["ci_upper"][0] == pytest.approx(ref["se_at_sp90_ci_upper"], abs=0.015)
    paired = pr.compare(DATA, ["score_a", "score_b"], ci="bootstrap", n_boot=10_000, seed=1)
    assert paired["z"][0] == pytest.approx(ref["paired_boot_z"], abs=0.12)
    unpaired = pr.compare_groups(
        DATA,
        by="group",
        groups=("north", "south"),
        score="score_a",
        ci="bootstrap",
        n_boot=10_000,
        seed=1,
    )
    assert unpaired["z"][0] == pytest.approx(ref["unpaired_boot_z"], abs=0.05)


def test_tpr_at_bootstrap_interval(as_kind: Callable) -> None:
    df = small_log(13, 400, 25)
    out = _collect(
        pr.tpr_at(as_kind(df), [0.1, 0.3], score="a", by="g", ci="bootstrap", seed=3, n_boot=300)
    )
    assert out.columns == ["g", "fpr", "tpr", "n_pos", "n_neg", "ci_lower", "ci_upper"]
    assert (out["ci_lower"] <= out["tpr"]).all() and (out["tpr"] <= out["ci_upper"]).all()
    assert (out["ci_upper"] - out["ci_lower"] > 0.05).all()
    again = _collect(pr.fpr_at(df, 0.8, score="a", ci="bootstrap", seed=3, n_boot=300))
    assert again["ci_lower"][0] <= again["fpr"][0] <= again["ci_upper"][0]


def test_paired_bootstrap(as_kind: Callable) -> None:
    df = small_log(17, 600, 30)
    delong = _collect(pr.compare(as_kind(df), ["a", "b"], by="g"))
    boot = _collect(pr.compare(as_kind(df), ["a", "b"], by="g", ci="bootstrap", seed=2, n_boot=400))
    assert boot.columns == delong.columns
    for col in ("auc_a", "auc_b", "diff"):
        assert boot[col].to_list() == pytest.approx(delong[col].to_list(), abs=1e-12)
    assert boot["se"].to_list() == pytest.approx(delong["se"].to_list(), rel=0.2)
    assert boot["n_pos"].to_list() == delong["n_pos"].to_list()
    z = (boot["diff"] / boot["se"]).to_numpy()
    assert boot["p_value"].to_numpy() == pytest.approx(2 * stats.norm.sf(np.abs(z)), abs=1e-12)
    again = pr.compare(df, ["a", "b"], by="g", ci="bootstrap", seed=2, n_boot=400)
    assert_frame_equal(boot, again)
    # Weights and partial AUC are bootstrap-only.
    weighted = pr.compare(
        df, ["a", "b"], weight="weight", ci="bootstrap", seed=1, n_boot=100, max_fpr=0.3
    )
    assert weighted["auc_a"][0] == pytest.approx(
        pr.roc_auc(df, score="a", weight="weight", max_fpr=0.3)["auc"][0], abs=1e-12
    )


def test_compare_identical_scores() -> None:
    df = small_log(3, 50, 5).with_columns(pl.col("a").alias("a2"))
    out = pr.compare(df, ["a", "a2"])
    assert out[["diff", "se", "z", "p_value"]].row(0) == (0.0, 0.0, 0.0, 1.0)


def test_compare_drops_rows_missing_either_score() -> None:
    df = small_log(6, 60, 6)
    holes = df.with_columns(
        pl.when(pl.int_range(pl.len()) % 7 == 0).then(None).otherwise(pl.col("b")).alias("b")
    )
    out = pr.compare(holes, ["a", "b"], nulls="drop")
    kept = holes.drop_nulls("b")
    assert out["auc_a"][0] == pytest.approx(pr.roc_auc(kept, score="a")["auc"][0], abs=1e-12)
    with pytest.raises(ValueError, match="score column 'b' has 9 null"):
        pr.compare(holes, ["a", "b"])


def test_namespace_methods() -> None:
    df = small_log(9, 80, 6)
    assert_frame_equal(df.roc.auc(score="a", ci="delong"), pr.roc_auc(df, score="a", ci="delong"))
    assert_frame_equal(df.lazy().roc.compare(["a", "b"]).collect(), pr.compare(df, ["a", "b"]))
    assert_frame_equal(df.roc.tpr_at(0.2, score="a"), pr.tpr_at(df, 0.2, score="a"))
    assert_frame_equal(df.roc.fpr_at(0.8, score="a"), pr.fpr_at(df, 0.8, score="a"))
    assert_frame_equal(
        df.roc.compare_groups(by="g", groups=("x", "y"), score="a"),
        pr.compare_groups(df, by="g", groups=("x", "y"), score="a"),
    )
    assert_frame_equal(
        df.roc.compare_groups(
            by="g", groups=("x", "y"), score="a", ci="bootstrap", seed=3, n_boot=50
        ),
        pr.compare_groups(
            df, by="g", groups=("x", "y"), score="a", ci="bootstrap", seed=3, n_boot=50
        ),
    )


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"ci": "wald"}, ValueError, "`ci` must be 'delong' or 'bootstrap', got 'wald'"),
        ({"ci": "delong", "conf_level": 1.0}, ValueError, "strictly between 0 and 1"),
        ({"ci": "delong", "conf_level": "95%"}, TypeError, "`conf_level` must be a number"),
        ({"ci": "bootstrap", "n_boot": 1}, ValueError, "`n_boot` must be an integer >= 2"),
        ({"ci": "bootstrap", "seed": -1}, ValueError, "`seed` must be None or a non-negative"),
        ({"ci": "delong", "weight": "weight"}, ValueError, "Use ci='bootstrap'"),
        ({"ci": "delong", "max_fpr": 0.2}, ValueError, "for a partial AUC use ci='bootstrap'"),
        ({"max_fpr": 0.0}, ValueError, r"`max_fpr` must be in \(0, 1\], got 0.0"),
        ({"max_fpr": "0.1"}, TypeError, "`max_fpr` must be a number"),
        ({"fpr_range": (0.3, 0.1)}, ValueError, "0 <= low < high <= 1"),
        ({"tpr_range": 0.5}, TypeError, "`tpr_range` must be a pair"),
        ({"max_fpr": 0.1, "fpr_range": (0, 0.2)}, ValueError, "at most one of max_fpr"),
        ({"max_fpr": 0.1, "standardize": 1}, TypeError, "`standardize` must be True or False"),
    ],
)
def test_auc_argument_errors(options: dict, error: type, match: str) -> None:
    df = small_log(1, 20)
    with pytest.raises(error, match=match):
        pr.roc_auc(df, score="a", **options)


def test_other_argument_errors() -> None:
    df = small_log(1, 20)
    with pytest.raises(ValueError, match="`scores` must name two different score columns"):
        pr.compare(df, ["a", "a"])
    with pytest.raises(ValueError, match="`scores` must name two"):
        pr.compare(df, "a")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="score column 'bb' not found"):
        pr.compare(df, ["a", "bb"])
    with pytest.raises(ValueError, match="`ci` must be 'delong' or 'bootstrap'"):
        pr.compare(df, ["a", "b"], ci="venkatraman")
    with pytest.raises(
        ValueError,
        match=r"compare\(\) with DeLong's method does not support.*"
        r"Use ci='bootstrap', which",
    ):
        pr.compare(df, ["a", "b"], weight="weight")
    with pytest.raises(
        ValueError,
        match=r"the AUC interval with DeLong's method does not support.*"
        r"Use ci='bootstrap', which",
    ):
        pr.roc_auc(df, score="a", weight="weight", ci="delong")
    with pytest.raises(ValueError, match="compares full AUCs only"):
        pr.compare(df, ["a", "b"], max_fpr=0.5)
    with pytest.raises(ValueError, match="`groups` must be two different values of 'g'"):
        pr.compare_groups(df, by="g", groups=("x",), score="a")
    with pytest.raises(TypeError, match="`by` must name the one column"):
        pr.compare_groups(df, by=["g"], groups=("x", "y"), score="a")
    with pytest.raises(
        ValueError,
        match=r"compare_groups\(\) with DeLong's method.*"
        r"Use ci='bootstrap'",
    ):
        pr.compare_groups(df, by="g", groups=("x", "y"), score="a", weight="weight")
    with pytest.raises(ValueError, match="for partial AUCs use ci='bootstrap'"):
        pr.compare_groups(df, by="g", groups=("x", "y"), score="a", tpr_range=(0.5, 1.0))
    typo = r"`groups` value\(s\) \['Y'\] not found in column 'g'; its values are \['x', 'y'\]"
    for frame in (df, df.lazy(), df.with_columns(pl.col("g").cast(pl.Enum(["y", "x"])))):
        for method in ("delong", "bootstrap"):
            with pytest.raises(ValueError, match=typo):
                pr.compare_groups(frame, by="g", groups=("x", "Y"), score="a", ci=method)
    unasked = "set a confidence interval, but none is asked for; pass `ci='delong'` or"
    with pytest.raises(ValueError, match=rf"^`n_boot`, `seed` {unasked}"):
        pr.roc_auc(df, score="a", n_boot=100, seed=3)
    with pytest.raises(ValueError, match=r"^`conf_level` sets .* pass `ci='bootstrap'`$"):
        pr.tpr_at(df, 0.1, score="a", conf_level=0.9)
    # Bootstrap options with DeLong are let through: one set of options for both methods.
    assert_frame_equal(
        pr.roc_auc(df, score="a", ci="delong", n_boot=100, seed=3),
        pr.roc_auc(df, score="a", ci="delong"),
    )
    with pytest.raises(ValueError, match="`within` must not contain"):
        pr.compare_groups(df, by="g", groups=("x", "y"), within="g", score="a")
    with pytest.raises(ValueError, match="`ci` must be 'bootstrap', got 'delong'"):
        pr.tpr_at(df, 0.1, score="a", ci="delong")
    with pytest.raises(ValueError, match=r"`fpr` values must be in \[0, 1\], got 1.5"):
        pr.tpr_at(df, [0.1, 1.5], score="a")
    with pytest.raises(ValueError, match="`tpr` must be a rate or a non-empty list"):
        pr.fpr_at(df, [], score="a")
    clash = df.rename({"g": "p_value"})
    with pytest.raises(ValueError, match=r"\['p_value'\] collide with result columns"):
        pr.compare(clash, ["a", "b"], by="p_value")
    with pytest.raises(TypeError, match="`score` must be a column name or a polars expression"):
        pr.auc_se(3)
