"""Jeffreys intervals and grade tests at counts up to 2**63 - 1, where scipy's incomplete
beta loses digits (polars_roc.stats.distributions switches to asymptotic forms there)."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_roc as pr
from polars_roc.stats import distributions as dist

# mpmath at 40 digits, by quadrature of the Beta(a, b) density (benchmarks/README.md,
# "Jeffreys and binomial tails at large counts"): (a, b, q, quantile), (a, b, x, cdf).
QUANTILES = [
    (2.305843009213694e18, 4.611686018427388e18, 0.025, 0.3333333329820429),
    (1e16, 9e16, 0.975, 0.10000000185938511),
    (5000000000000.5, 5000000000000.5, 0.025, 0.49999969010248385),
    (10.5, 1e18, 0.975, 1.7739437952863625e-17),
    (100.5, 4.611686018427388e18, 0.975, 2.6254591326553694e-17),
    (10000000.5, 1e17, 0.025, 9.993803495730248e-11),
    (100000000.5, 300000000.5, 0.975, 0.2500424362738636),
    (30.5, 10000000.5, 0.025, 2.065151612078661e-06),
]
TAILS = [
    (2.305843009213694e18, 4.611686018427388e18, 0.33333333351256644, 0.8413447417255964),
    (1e16, 9e16, 0.09999999810263341, 0.022750131747973235),
    (100000000000.0, 9e17, 1.1111145012955937e-07, 0.841344746064405),
    (10.0, 999999991.0, 1.3162277629613575e-08, 0.8446415961977936),
    (10000000.5, 1e17, 1.0001581637869375e-10, 0.6914902942978218),
    (100000000.5, 300000000.5, 0.2500324765775878, 0.9331896831402262),
]


def one(values: float) -> np.ndarray:
    return np.array([values], dtype=np.float64)


@pytest.mark.parametrize(("a", "b", "q", "expected"), QUANTILES)
def test_quantiles_match_the_reference(a: float, b: float, q: float, expected: float) -> None:
    got = dist.beta_ppf(one(a), one(b), q)[0]
    assert abs(got - expected) <= 1e-12 * expected


@pytest.mark.parametrize(("a", "b", "x", "expected"), TAILS)
def test_tails_match_the_reference(a: float, b: float, x: float, expected: float) -> None:
    # 1e-12, or what two ulps of x move the cdf by (density * spacing): a double's PD is
    # known no better, and past 1e16 rows that is the larger (2.5e-8 at 2^61 defaults).
    sd = np.sqrt(a * b / (a + b + 1)) / (a + b)
    tolerance = 1e-12 + 2 * np.spacing(x) / sd * 0.4
    assert abs(dist.beta_cdf(one(a), one(b), one(x))[0] - expected) <= tolerance


def grade_frame(defaults: int, n: int) -> pl.DataFrame:
    return pl.DataFrame(
        {"score": [0.1, 0.1], "label": [True, False], "c": [defaults, n - defaults]},
        schema_overrides={"c": pl.Int64},
    ).with_columns(grade=pl.lit("A"))


def test_the_interval_is_not_inverted_at_2_61_defaults() -> None:
    n, d = 3 * 2**61 - 5, 2**61
    row = pr.grade_test(grade_frame(d, n), "grade", count="c").row(0, named=True)
    assert row["ci_lower"] < row["observed_rate"] < row["ci_upper"]
    assert abs(row["ci_lower"] - QUANTILES[0][3]) <= 1e-12 * QUANTILES[0][3]


@pytest.mark.parametrize("method", ["jeffreys", "binomial"])
def test_no_null_at_1e17_rows(method: str) -> None:
    row = pr.grade_test(grade_frame(10**16, 10**17), "grade", method, count="c").row(0, named=True)  # type: ignore[arg-type]
    assert None not in row.values()
    assert abs(row["ci_upper"] - QUANTILES[1][3]) <= 1e-12 * QUANTILES[1][3]
    assert row["ci_lower"] < 0.1 < row["ci_upper"]
    assert 0.49 < row["p_value"] < 0.51 and not row["reject"]
    curve = pr.calibration_curve(
        grade_frame(10**16, 10**17), grade="grade", ci="jeffreys", count="c"
    )
    assert curve.select("ci_lower", "ci_upper").row(0) == (row["ci_lower"], row["ci_upper"])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 62), st.floats(0.0, 1.0), st.integers(0, 3))
def test_intervals_hold_their_rate_and_nest(log2_n: int, share: float, edge: int) -> None:
    n = 10 + int(2.0**log2_n) if log2_n > 3 else 10
    d = [round(share * n), 0, n, 1][edge] if edge else min(n, round(share * n))
    # As the library forms them: n - d in integers, then floats.
    x, others = one(float(d)), one(float(n - d))
    bounds = []
    for level in (0.5, 0.9, 0.95, 0.999):
        tail = (1 - level) / 2
        low = dist.beta_ppf(x + 0.5, others + 0.5, tail)[0] if d > 0 else 0.0
        high = dist.beta_ppf(x + 0.5, others + 0.5, 1 - tail)[0] if d < n else 1.0
        assert 0.0 <= low <= d / n <= high <= 1.0
        bounds.append((low, high))
    for (low, high), (wider_low, wider_high) in itertools.pairwise(bounds):
        assert wider_low <= low and high <= wider_high


@pytest.mark.parametrize("b_over_a", [1.0, 3.0, 1e3])
def test_continuous_at_the_normal_bound(b_over_a: float) -> None:
    # Either side of min(a, b) = 1e8: scipy below, Edgeworth / Cornish-Fisher above.
    a = np.array([np.nextafter(dist._NORMAL_FROM, 0), dist._NORMAL_FROM])
    b = a * b_over_a
    for q in (0.025, 0.975):
        low, high = dist.beta_ppf(a, b, q)
        assert abs(high - low) <= 1e-12 * low
    x = dist.beta_ppf(a[:1], b[:1], 0.3)
    low, high = dist.beta_cdf(a, b, np.repeat(x, 2))
    assert abs(high - low) <= 1e-12


@pytest.mark.parametrize("small", [0.5, 10.0, 1e4, 1e7])
def test_continuous_at_the_gamma_bound(small: float) -> None:
    # Either side of max(a, b) = 1e6 min(a, b)^1.25: scipy below, the gamma limit above.
    bound = dist._GAMMA_FROM * max(small, 1.0) ** 1.25
    large = np.array([np.nextafter(bound, 0), bound])
    a = np.full(2, small)
    for q in (0.025, 0.975):
        low, high = dist.beta_ppf(a, large, q)
        assert abs(high - low) <= 1e-12 * low
        mirrored = dist.beta_ppf(large, a, 1 - q)
        assert abs(mirrored[1] - mirrored[0]) <= 1e-15
    x = dist.beta_ppf(a[:1], large[:1], 0.3)
    low, high = dist.beta_cdf(a, large, np.repeat(x, 2))
    assert abs(high - low) <= 1e-12
