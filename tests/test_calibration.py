"""Calibration views: scikit-learn's bins and losses, the Brier decomposition, the tests."""

from __future__ import annotations

import math
from typing import Any

import duckdb
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats
from sklearn.calibration import calibration_curve as sk_calibration_curve
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError


def probability_log(seed: int = 0, n: int = 400, *, decimals: int = 2) -> pl.DataFrame:
    """Rounded probabilities (ties, scores on bin edges, 0 and 1) with labels drawn
    from them, two segments, weights and counts."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(size=n), decimals)
    p[:4] = [0.0, 1.0, 0.5, 0.1]  # on the edges
    return pl.DataFrame(
        {
            "segment": rng.choice(["east", "west"], size=n).tolist(),
            "score": p,
            "label": (rng.uniform(size=n) < p).astype(np.int64),
            "weight": np.round(rng.uniform(0.1, 3.0, size=n), 3),
            "count": rng.integers(1, 4, size=n),
        }
    )


LOG = probability_log()


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 2, 3, 5, 10, 13])
def test_calibration_curve_equals_scikit_learn(strategy: str, n_bins: int) -> None:
    for segment, rows in LOG.group_by("segment"):
        y, p = rows["label"].to_numpy(), rows["score"].to_numpy()
        prob_true, prob_pred = sk_calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
        ours = LOG.roc.calibration(n_bins, strategy=strategy, by="segment").filter(
            pl.col("segment") == segment[0]
        )
        np.testing.assert_allclose(ours["observed_rate"], prob_true, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ours["mean_score"], prob_pred, rtol=0, atol=1e-12)
        assert ours["n"].sum() == rows.height


def test_quantile_bins_of_continuous_scores_equal_scikit_learn() -> None:
    rng = np.random.default_rng(3)
    p = rng.beta(2, 5, size=1001)
    y = (rng.uniform(size=p.size) < p).astype(int)
    frame = pl.DataFrame({"score": p, "label": y})
    for n_bins in (4, 10, 33):
        prob_true, prob_pred = sk_calibration_curve(y, p, n_bins=n_bins, strategy="quantile")
        ours = pr.calibration_curve(frame, n_bins, strategy="quantile")
        np.testing.assert_allclose(ours["observed_rate"], prob_true, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ours["mean_score"], prob_pred, rtol=0, atol=1e-12)


def test_calibration_hand_computed_with_edges_and_counts() -> None:
    # Uniform with 4 bins: edges 0.25, 0.5, 0.75; 0.25 and 0.5 go to the lower bin.
    frame = pl.DataFrame({"score": [0.25, 0.3, 0.5, 0.9], "label": [0, 1, 1, 1], "c": [2, 1, 1, 3]})
    result = frame.roc.calibration(4, count="c")
    expected = pl.DataFrame(
        {
            "bin": [1, 2, 4],
            "score_low": [0.25, 0.3, 0.9],
            "score_high": [0.25, 0.5, 0.9],
            "n": [2, 2, 3],
            "mean_score": [0.25, 0.4, 0.9],
            "observed_rate": [0.0, 1.0, 1.0],
        }
    )
    assert_frame_equal(result.drop("ci_lower", "ci_upper"), expected)


def test_intervals_wilson_and_jeffreys() -> None:
    frame = pl.DataFrame({"score": [0.2] * 10 + [0.8] * 4, "label": [1] * 3 + [0] * 7 + [1] * 4})
    wilson = frame.roc.calibration(2, ci="wilson", conf_level=0.9)
    # Wilson's score interval in its closed form.
    z = stats.norm.ppf(0.95)
    centre = (3 + z**2 / 2) / (10 + z**2)
    half = z / (10 + z**2) * np.sqrt(3 * 7 / 10 + z**2 / 4)
    np.testing.assert_allclose(wilson["ci_lower"][0], centre - half, rtol=1e-12)
    np.testing.assert_allclose(wilson["ci_upper"][0], centre + half, rtol=1e-12)
    jeffreys = frame.roc.calibration(2, ci="jeffreys")
    beta = stats.beta(3.5, 7.5)
    np.testing.assert_allclose(jeffreys["ci_lower"][0], beta.ppf(0.025), rtol=1e-10)
    np.testing.assert_allclose(jeffreys["ci_upper"][0], beta.ppf(0.975), rtol=1e-10)
    # All positive: the upper end is 1 (Brown, Cai and DasGupta).
    assert jeffreys["ci_upper"][1] == 1.0
    assert jeffreys["ci_lower"][1] == pytest.approx(stats.beta(4.5, 0.5).ppf(0.025))


def test_grade_bins() -> None:
    frame = pl.DataFrame(
        {
            "score": [0.01, 0.02, 0.05, 0.1, 0.2, 0.3],
            "label": [0, 0, 1, 0, 1, 1],
            "rating": ["A", "A", "B", "B", "C", "C"],
        }
    )
    result = frame.roc.calibration(grade="rating")
    assert result["bin"].to_list() == ["A", "B", "C"]
    assert result["mean_score"].to_list() == pytest.approx([0.015, 0.075, 0.25])
    assert result["observed_rate"].to_list() == [0.0, 0.5, 1.0]


def brier_terms(result: pl.DataFrame) -> np.ndarray:
    c = {name: result[name].to_numpy() for name in result.columns}
    return (
        c["reliability"]
        - c["resolution"]
        + c["uncertainty"]
        + c["within_bin_variance"]
        - c["within_bin_covariance"]
    )


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("unit", [None, "weight"])
def test_brier_equals_scikit_learn_and_decomposes(strategy: str, unit: str | None) -> None:
    result = LOG.roc.brier(7, strategy=strategy, by="segment", weight=unit)
    for segment, brier in zip(result["segment"], result["brier"]):
        rows = LOG.filter(pl.col("segment") == segment)
        weights = None if unit is None else rows[unit].to_numpy()
        expected = brier_score_loss(rows["label"], rows["score"], sample_weight=weights)
        assert brier == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(brier_terms(result), result["brier"], rtol=0, atol=1e-12)


def test_brier_terms_hand_computed() -> None:
    # One bin: reliability (f - o)^2, no resolution, the rest within the bin.
    frame = pl.DataFrame({"score": [0.2, 0.4], "label": [0, 1]})
    result = frame.roc.brier(1).row(0, named=True)
    assert result["brier"] == pytest.approx((0.04 + 0.36) / 2)
    assert result["reliability"] == pytest.approx((0.3 - 0.5) ** 2)
    assert result["resolution"] == 0.0
    assert result["uncertainty"] == 0.25
    assert result["within_bin_variance"] == pytest.approx(0.01)
    # 2/N sum (y - o)(f - f_bin) = (2/2) ((-0.5)(-0.1) + (0.5)(0.1)) = 0.1
    assert result["within_bin_covariance"] == pytest.approx(0.1)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.booleans(), st.integers(1, 3)), min_size=1, max_size=40
    ),
    st.integers(1, 8),
    st.sampled_from(["uniform", "quantile"]),
)
def test_brier_identity_and_sklearn_bins_property(
    rows: list[tuple[int, bool, int]], n_bins: int, strategy: str
) -> None:
    scores = [s / 20 for s, _, _ in rows]
    labels = [int(y) for _, y, _ in rows]
    frame = pl.DataFrame({"score": scores, "label": labels, "count": [c for *_, c in rows]})
    result = frame.roc.brier(n_bins, strategy=strategy)
    np.testing.assert_allclose(brier_terms(result), result["brier"], rtol=0, atol=1e-12)
    if len(set(labels)) == 2:
        prob_true, prob_pred = sk_calibration_curve(
            labels, scores, n_bins=n_bins, strategy=strategy
        )
        ours = frame.roc.calibration(n_bins, strategy=strategy)
        np.testing.assert_allclose(ours["observed_rate"], prob_true, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ours["mean_score"], prob_pred, rtol=0, atol=1e-12)
        # count= is the expanded rows
        expanded = frame.select(pl.col("score", "label").repeat_by("count").explode())
        assert_frame_equal(
            frame.roc.brier(n_bins, strategy=strategy, count="count").drop("n"),
            expanded.roc.brier(n_bins, strategy=strategy).drop("n"),
            check_exact=False,
            abs_tol=1e-12,
        )


@pytest.mark.parametrize("unit", [None, "weight"])
def test_expressions_equal_scikit_learn(unit: str | None) -> None:
    result = (
        LOG.group_by("segment")
        .agg(pr.brier("score", "label", unit), pr.log_loss("score", "label", unit))
        .sort("segment")
    )
    for segment, brier, loss in result.iter_rows():
        rows = LOG.filter(pl.col("segment") == segment)
        weights = None if unit is None else rows[unit].to_numpy()
        y, p = rows["label"].to_numpy(), rows["score"].to_numpy()
        assert brier == pytest.approx(brier_score_loss(y, p, sample_weight=weights), rel=1e-12)
        assert loss == pytest.approx(sk_log_loss(y, p, sample_weight=weights), rel=1e-12)


def test_expressions_match_frame_method_and_null_outside_unit_interval() -> None:
    assert LOG.select(pr.brier()).item() == pytest.approx(LOG.roc.brier()["brier"].item())
    bad = pl.DataFrame({"score": [0.2, 1.5], "label": [0, 1]})
    assert bad.select(pr.brier(), pr.log_loss()).row(0) == (None, None)


def test_calibration_error_hand_computed() -> None:
    frame = pl.DataFrame({"score": [0.1, 0.1, 0.3, 0.3, 0.8, 0.8], "label": [0, 0, 0, 1, 1, 1]})
    result = frame.roc.calibration_error(5).row(0, named=True)
    assert result["ece"] == pytest.approx((2 * 0.1 + 2 * 0.2 + 2 * 0.2) / 6)
    assert result["mce"] == pytest.approx(0.2)
    assert result["n"] == 6


def test_hosmer_lemeshow_by_hand() -> None:
    y, p = LOG["label"].to_numpy(), LOG["score"].to_numpy()
    edges = np.percentile(p, np.linspace(0, 1, 11) * 100)
    groups = np.searchsorted(edges[1:-1], p)
    statistic = 0.0
    for g in np.unique(groups):
        observed, expected, n = y[groups == g].sum(), p[groups == g].sum(), (groups == g).sum()
        statistic += (observed - expected) ** 2 / (expected * (1 - expected / n))
    result = LOG.roc.calibration_test("hosmer_lemeshow").row(0, named=True)
    assert result["statistic"] == pytest.approx(statistic, rel=1e-12)
    assert result["df"] == len(np.unique(groups)) - 2
    assert result["p_value"] == pytest.approx(stats.chi2.sf(statistic, result["df"]), rel=1e-10)


def test_spiegelhalter_by_hand() -> None:
    y, p = LOG["label"].to_numpy(), LOG["score"].to_numpy()
    z = ((y - p) * (1 - 2 * p)).sum() / np.sqrt(((1 - 2 * p) ** 2 * p * (1 - p)).sum())
    result = LOG.roc.calibration_test("spiegelhalter").row(0, named=True)
    assert result["method"] == "spiegelhalter"
    assert result["statistic"] == pytest.approx(z, rel=1e-12)
    assert result["p_value"] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-10)
    assert result["df"] is None


VIEWS = [
    ("calibration", {"n_bins": 5, "strategy": "quantile", "ci": "jeffreys"}),
    ("brier", {"n_bins": 4}),
    ("calibration_error", {"strategy": "quantile"}),
    ("calibration_test", {"method": "hosmer_lemeshow"}),
    ("calibration_test", {"method": "spiegelhalter"}),
]


@pytest.mark.parametrize(("view", "options"), VIEWS)
def test_eager_lazy_duckdb_agree(view: str, options: dict[str, object]) -> None:
    frame = LOG.select("segment", "score", "label")
    eager = getattr(frame.roc, view)(by="segment", **options)
    lazy = getattr(frame.lazy().roc, view)(by="segment", **options)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    relation = duckdb.sql("select * from frame")
    on_duckdb = getattr(pr, _function(view))(relation, by="segment", **options)
    assert_frame_equal(on_duckdb, eager, check_exact=False, rel_tol=1e-12)


def _function(view: str) -> str:
    return {
        "calibration": "calibration_curve",
        "brier": "brier_decomposition",
    }.get(view, view)


def test_duckdb_grade_and_weights() -> None:
    frame = LOG.with_columns(grade=(pl.col("score") * 4).floor().cast(pl.Int64))
    eager = frame.roc.calibration(grade="grade", weight="weight", by="segment")
    relation = duckdb.sql("select * from frame")
    on_duckdb = pr.calibration_curve(relation, grade="grade", weight="weight", by="segment")
    assert_frame_equal(on_duckdb, eager, check_exact=False, rel_tol=1e-12)


@pytest.mark.parametrize("backend", ["eager", "lazy", "duckdb"])
@pytest.mark.parametrize("grade", [None, "grade"])
def test_weighted_bin_sums_are_exact(backend: str, grade: str | None) -> None:
    # Weights of 1e16 beside ones and 3e-9: the bins' sums are exact per exponent
    # block, so within a rounding per block (3 here) of math.fsum.
    rng = np.random.default_rng(4)
    n = 3000
    weight = np.where(np.arange(n) % 500 == 0, 1e16, 1.0) * rng.choice([1.0, 0.1, 3e-9], n)
    frame = pl.DataFrame(
        {
            "score": rng.uniform(size=n),
            "label": rng.integers(0, 2, n),
            "weight": weight,
            "grade": rng.integers(0, 4, n),
        }
    )
    source = {
        "eager": frame,
        "lazy": frame.lazy(),
        "duckdb": duckdb.from_arrow(frame.to_arrow()),
    }[backend]
    options = {"grade": grade} if grade else {"n_bins": 5}
    result = pr.calibration_curve(source, weight="weight", **options)
    result = result.collect() if isinstance(result, pl.LazyFrame) else result
    edges = np.linspace(0, 1, 6)[1:-1]
    bins = frame["grade"] if grade else np.searchsorted(edges, frame["score"], side="left") + 1
    for row in result.iter_rows(named=True):
        rows = frame.filter(pl.Series(bins) == row["bin"])
        w, p, y = (rows[c].to_numpy() for c in ("weight", "score", "label"))
        total = math.fsum(w)
        assert abs(row["n"] - total) <= 3 * math.ulp(total)
        assert row["mean_score"] == pytest.approx(math.fsum(w * p) / total, rel=1e-15)
        assert row["observed_rate"] == pytest.approx(math.fsum(w * y) / total, rel=1e-15)


def test_scores_outside_unit_interval_are_refused() -> None:
    frame = pl.DataFrame({"logit": [-1.2, 0.3, 2.0], "label": [0, 1, 1]})
    with pytest.raises(RocInputError, match=r"score column 'logit' must hold probabilities"):
        frame.roc.calibration(score="logit")
    with pytest.raises(RocInputError, match=r"from -1.2 to 2.0"):
        frame.lazy().roc.brier(score="logit")
    relation = duckdb.sql("select * from frame")
    with pytest.raises(RocInputError, match="'logit' must hold probabilities"):
        pr.calibration_test(relation, score="logit")


def test_grade_with_nulls_is_refused() -> None:
    frame = pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 1, 1], "rating": ["A", None, "B"]})
    with pytest.raises(RocInputError, match=r"column 'rating' has 1 row\(s\) with a null"):
        frame.roc.calibration(grade="rating")
    with pytest.raises(RocInputError, match="'rating' has 1 row"):
        pr.calibration_curve(duckdb.sql("select * from frame"), grade="rating")


def test_bad_options() -> None:
    with pytest.raises(RocOptionError, match="n_bins"):
        LOG.roc.calibration(0)
    with pytest.raises(RocOptionError, match="strategy"):
        LOG.roc.calibration(strategy="kmeans")  # type: ignore[arg-type]
    with pytest.raises(RocOptionError, match="ci"):
        LOG.roc.calibration(ci="wald")  # type: ignore[arg-type]
    with pytest.raises(RocOptionError, match="method"):
        LOG.roc.calibration_test("chi2")  # type: ignore[arg-type]


def test_one_class_segments_are_fine() -> None:
    # A bin (or segment) of non-defaults is an observed rate of 0, not a problem.
    frame = pl.DataFrame({"score": [0.1, 0.2], "label": [0, 0]})
    assert frame.roc.calibration(2)["observed_rate"].to_list() == [0.0]
    assert frame.roc.brier(2)["uncertainty"].item() == 0.0


# Regressions of the adversarial review of the validation views (FINDINGS.md).


def scaled(frame: pl.DataFrame, factor: float) -> pl.DataFrame:
    return frame.with_columns(pl.col("weight") * factor)


ESTIMATES = {
    "calibration": ["bin", "score_low", "score_high", "mean_score", "observed_rate"],
    "calibration_error": ["ece", "mce"],
    "brier": ["brier", "reliability", "resolution", "uncertainty", "within_bin_variance"],
}


@pytest.mark.parametrize("view", list(ESTIMATES))
@pytest.mark.parametrize("factor", [1 / 400, 1e-300, 0.5, 3.0, 1e200])
def test_weighted_quantile_bins_do_not_depend_on_the_weight_scale(view: str, factor: float) -> None:
    """Finding 1: weights summing to 1 collapsed the quantile bins into one."""
    options = {"strategy": "quantile", "weight": "weight", "by": "segment"}
    expected = getattr(LOG.roc, view)(10, **options).select("segment", *ESTIMATES[view])
    result = getattr(scaled(LOG, factor).roc, view)(10, **options)
    assert_frame_equal(
        result.select(expected.columns), expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12
    )


@pytest.mark.parametrize("view", list(ESTIMATES))
@pytest.mark.parametrize("constant", [1 / 400, 0.1, 3.0])
def test_equal_weights_give_the_unweighted_quantile_bins(view: str, constant: float) -> None:
    weighted = LOG.with_columns(weight=pl.lit(constant))
    options = {"strategy": "quantile", "by": "segment"}
    expected = getattr(LOG.roc, view)(7, **options).select("segment", *ESTIMATES[view])
    result = getattr(weighted.roc, view)(7, **options, weight="weight")
    assert_frame_equal(
        result.select(expected.columns), expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 10), st.booleans(), st.integers(1, 50)), min_size=1, max_size=30
    ),
    st.integers(2, 6),
    st.sampled_from([1e-6, 0.1, 3.0, 1e6]),
)
def test_weight_scale_property(
    rows: list[tuple[int, bool, int]], n_bins: int, factor: float
) -> None:
    frame = pl.DataFrame(
        {
            "score": [s / 10 for s, _, _ in rows],
            "label": [int(y) for _, y, _ in rows],
            "weight": [w / 7 for *_, w in rows],
        }
    )
    for view, columns in ESTIMATES.items():
        options = {"strategy": "quantile", "weight": "weight"}
        expected = getattr(frame.roc, view)(n_bins, **options).select(columns)
        result = getattr(scaled(frame, factor).roc, view)(n_bins, **options).select(columns)
        assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda f: f.roc.calibration_test(weight="weight"),
        lambda f: f.roc.calibration_test("spiegelhalter", weight="weight"),
        lambda f: f.roc.calibration(ci="wilson", weight="weight"),
    ],
)
def test_row_counting_tests_refuse_weights(call: Any) -> None:
    """Finding 2: their p-values changed with the unit of the weights."""
    with pytest.raises(RocOptionError, match=r"does not support weights.*count='weight'"):
        call(LOG)
    assert LOG.roc.calibration_test(count="count").height == 1  # frequencies stay


def test_hosmer_lemeshow_is_infinite_for_a_default_at_pd_zero() -> None:
    """Finding 7: the group with E = 0 was dropped, giving statistic 0.0."""
    frame = pl.DataFrame(
        {"score": [0.0, 0.0, 0.0, 0.3, 0.5, 0.7, 0.9], "label": [0, 1, 0, 0, 1, 1, 1]}
    )
    result = frame.roc.calibration_test(n_bins=5).row(0, named=True)
    assert result["statistic"] == float("inf")
    assert result["df"] == 2
    assert result["p_value"] == 0.0
    agreeing = frame.with_columns(label=pl.Series([0, 0, 0, 0, 1, 1, 1]))
    assert np.isfinite(agreeing.roc.calibration_test(n_bins=5)["statistic"][0])


EMPTY = pl.DataFrame(schema={"score": pl.Float64, "label": pl.Int64, "segment": pl.String})


@pytest.mark.parametrize(
    ("view", "columns"),
    [
        ("brier", ["brier", "reliability", "resolution", "uncertainty"]),
        ("calibration_error", ["ece", "mce", "n"]),
        ("calibration_test", ["method", "statistic", "df", "p_value"]),
    ],
)
@pytest.mark.parametrize("lazy", [False, True])
def test_empty_input_gives_an_empty_frame(view: str, columns: list[str], lazy: bool) -> None:
    """Finding 11: one row (ece NaN, statistic 0.0) came out of no rows."""
    frame = EMPTY.lazy() if lazy else EMPTY
    result = getattr(frame.roc, view)()
    result = result.collect() if lazy else result
    assert result.height == 0
    assert set(columns) <= set(result.columns)


def test_zero_counts_give_null_not_nan() -> None:
    frame = pl.DataFrame({"score": [0.2, 0.6], "label": [0, 1], "count": [0, 0]})
    for view in ("brier", "calibration_error"):
        result = getattr(frame.roc, view)(count="count")
        assert result.height == 1
        assert not any(result.select(pl.selectors.float().is_nan().any()).row(0))


@pytest.mark.parametrize("source", ["eager", "lazy", "duckdb"])
@pytest.mark.parametrize("grade", [None, "g"])
def test_counts_equal_the_expanded_rows(source: str, grade: str | None) -> None:
    """count= is the rows repeated: a row of count 0 is in no bin and sets no
    score_low/score_high, as on the expanded rows (here bins mix zero and other counts).
    To the bit (see test_a_count_multiplies_the_rounded_score)."""
    rng = np.random.default_rng(4)
    n = 300
    frame = pl.DataFrame(
        {
            "score": rng.random(n),
            "label": rng.integers(0, 2, n),
            "count": rng.integers(0, 3, n),
            "seg": rng.choice(["a", "b"], n).tolist(),
            "g": rng.choice(["A", "B", "C"], n).tolist(),
        }
    )
    expanded = frame.select(pl.exclude("count").repeat_by("count").explode()).drop_nulls()
    options: dict[str, Any] = {"by": "seg", "ci": "wilson"}
    options |= {"grade": grade} if grade else {"n_bins": 4}
    sources = {"eager": frame, "lazy": frame.lazy(), "duckdb": duckdb.from_arrow(frame.to_arrow())}
    counted = pr.calibration_curve(sources[source], count="count", **options)
    counted = counted.collect() if isinstance(counted, pl.LazyFrame) else counted
    assert_frame_equal(counted, pr.calibration_curve(expanded, **options), check_exact=True)


@pytest.mark.parametrize("source", ["eager", "duckdb"])
def test_a_count_multiplies_the_rounded_score(source: str) -> None:
    """Each score is rounded to the fixed-point grid before its count multiplies it:
    0.3 * 3 rounded once as a float gave a mean score of 0.29999999999999993 where the
    five rows give 0.3 (numpy's mean of the rows)."""
    table = pl.DataFrame({"score": [0.3, 0.3], "label": [1, 0], "count": [2, 3], "g": ["A"] * 2})
    frame = table if source == "eager" else duckdb.from_arrow(table.to_arrow())
    rows = np.repeat([0.3, 0.3], [2, 3]).mean()
    assert pr.calibration_curve(frame, count="count")["mean_score"][0] == rows == 0.3
    assert pr.grade_summary(frame, "g", count="count")["mean_pd"][0] == rows


CLASH = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1], "g": list("aabb")})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: CLASH.rename({"g": "bin"}).roc.calibration_error(by="bin"), "`by`.*'bin'"),
        (lambda: CLASH.rename({"g": "n"}).roc.calibration_test(by="n"), "`by`.*'n'"),
        (lambda: CLASH.rename({"g": "bin"}).roc.calibration_test(by="bin"), "`by`.*'bin'"),
        (lambda: CLASH.rename({"g": "pos"}).roc.brier(by="pos"), "`by`.*'pos'"),
        (lambda: CLASH.rename({"g": "n"}).roc.calibration(grade="n"), "`grade`.*'n'"),
        (lambda: CLASH.roc.calibration(grade="g", by="g"), "`grade`.*'g'"),
    ],
)
def test_clashes_are_refused_naming_the_option(call: Any, message: str) -> None:
    """Finding 8: these failed deep in the plan with DuplicateError."""
    with pytest.raises(RocOptionError, match=message):
        call()


def test_clash_on_duckdb_is_the_same_refusal() -> None:
    relation = duckdb.sql("select 0.1 as score, 1 as label, 'a' as bin")
    with pytest.raises(RocOptionError, match=r"`by`.*'bin'"):
        pr.calibration_error(relation, by="bin")


def test_grade_option_is_named_in_errors() -> None:
    """Finding 14: a missing grade column was reported as a `by` column."""
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"^grade column 'zz'"):
        CLASH.roc.calibration(grade="zz")


@pytest.mark.parametrize("option", [{"n_bins": 5}, {"strategy": "quantile"}])
@pytest.mark.parametrize("view", ["calibration", "brier", "calibration_error"])
def test_grade_refuses_options_of_score_bins(option: dict[str, Any], view: str) -> None:
    """Finding 15: n_bins and strategy were ignored without a word with grade=."""
    with pytest.raises(
        RocOptionError, match=f"`grade` makes the grades the bins.*{next(iter(option))}"
    ):
        getattr(CLASH.roc, view)(grade="g", **option)


@pytest.mark.parametrize("source", ["eager", "duckdb"])
def test_many_uniform_bins_with_scores_on_the_edges(source: str) -> None:
    """Polars rows find their uniform bin by a binary search over the edges (an engine
    compares with each edge): scores equal to every edge and its neighbours, 1,000
    bins, as scikit-learn bins them."""
    edges = np.linspace(0.0, 1.0, 1001)
    scores = np.concatenate([edges, np.nextafter(edges, 2.0), np.nextafter(edges, -1.0)])
    scores = scores[(scores >= 0.0) & (scores <= 1.0)]
    labels = np.arange(len(scores)) % 2
    frame = pl.DataFrame({"score": scores, "label": labels})
    given = frame if source == "eager" else duckdb.from_arrow(frame.to_arrow())
    result = pr.calibration_curve(given, 1000)
    prob_true, prob_pred = sk_calibration_curve(labels, scores, n_bins=1000)
    np.testing.assert_array_equal(result["observed_rate"].to_numpy(), prob_true)
    np.testing.assert_allclose(result["mean_score"].to_numpy(), prob_pred, rtol=0, atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 99, 100, 101, 997, 1000, 1024, 3000])
def test_uniform_bins_by_arithmetic_equal_numpy_searchsorted(n: int) -> None:
    # Uniform bins are found by arithmetic (search_sorted does not stream): every edge,
    # the floats beside it, the ends and values out of [0, 1] land where numpy puts them.
    from polars_roc.core.counting import _uniform_edges_below

    edges = np.linspace(0.0, 1.0, n + 1)[1:-1]
    rng = np.random.default_rng(n)
    special = [0.0, -0.0, 1.0, np.inf, -np.inf, 1.5, -2.0, 5e-324, 1 - 2**-53]
    scores = np.concatenate(
        [rng.random(500), edges, np.nextafter(edges, 0), np.nextafter(edges, 1), special]
    )
    found = pl.select(_uniform_edges_below(pl.lit(pl.Series(scores)), n)).to_series()
    assert found.to_list() == np.searchsorted(edges, scores, side="left").tolist()
