"""Intervals of average precision and of the area under the precision-recall curve.

References: the logit interval's formula (Boyd et al. 2013) computed by hand; the
bootstrap's replicate formulas (numpy) against the point estimates (polars) on the
original counts, for every summary and method; reproducibility per group; count
tables against expanded rows; eager == lazy == DuckDB.
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.arguments import Roles
from polars_roc.core.score_table import build
from polars_roc.core.validate import prepare
from polars_roc.exceptions import SingleClassWarning
from polars_roc.stats.cells import resampler, resampling_cells
from polars_roc.stats.pr_interval import (
    average_precision_replicates,
    davis_goadrich_replicates,
    trapezoid_replicates,
)

duckdb = pytest.importorskip("duckdb")

SUMMARIES = {
    "ap": (pr.pr_average_precision, {}, "average_precision", average_precision_replicates),
    "dg": (pr.pr_auc, {}, "pr_auc", davis_goadrich_replicates),
    "trapezoid": (pr.pr_auc, {"method": "trapezoid"}, "pr_auc", trapezoid_replicates),
}


def _logit_interval(v: float, n_pos: int, level: float = 0.95) -> tuple[float, float]:
    z = NormalDist().inv_cdf(0.5 + level / 2)
    half = z / math.sqrt(n_pos * v * (1 - v))
    logit = math.log(v / (1 - v))
    return 1 / (1 + math.exp(-(logit - half))), 1 / (1 + math.exp(-(logit + half)))


@pytest.mark.parametrize("summary", SUMMARIES)
def test_logit_interval_by_hand(log: pl.DataFrame, summary: str) -> None:
    function, options, value, _ = SUMMARIES[summary]
    got = function(log, by="segment", ci="logit", conf_level=0.9, **options)
    assert got.columns == ["segment", value, "n_pos", "n_neg", "ci_lower", "ci_upper"]
    plain = function(log, by="segment", **options)
    assert_frame_equal(got.select(plain.columns), plain)
    for row in got.iter_rows(named=True):
        lower, upper = _logit_interval(row[value], row["n_pos"], 0.9)
        assert row["ci_lower"] == pytest.approx(lower, rel=1e-12)
        assert row["ci_upper"] == pytest.approx(upper, rel=1e-12)
        assert row["ci_lower"] < row[value] < row["ci_upper"]


def test_logit_is_null_at_the_ends_and_without_positives() -> None:
    df = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.9, 0.1], "label": [1, 0, 0, 0]}
    )
    with pytest.warns(SingleClassWarning, match="g='b'"):
        got = pr.pr_average_precision(df, by="g", ci="logit")
    assert got.select("average_precision", "ci_lower", "ci_upper").rows() == [
        (1.0, None, None),
        (None, None, None),
    ]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("ab"), st.integers(0, 5), st.booleans()),
        min_size=1,
        max_size=40,
    )
)
def test_replicate_formulas_equal_the_point_estimates(rows: list) -> None:
    # The bootstrap recomputes each summary in numpy from resampled counts; on the
    # original counts it must give the polars point estimate.
    df = pl.DataFrame(
        {
            "g": [g for g, _, _ in rows],
            "score": [s / 5 for _, s, _ in rows],
            "label": [y for _, _, y in rows],
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleClassWarning)
        prep = prepare(df, Roles(by="g"))
        cells = resampling_cells(prep, build(prep)).collect()
        sampler, _ = resampler(cells, ["g"])
        pos, neg = (
            cells["pos"].cast(pl.Float64).to_numpy(),
            cells["neg"].cast(pl.Float64).to_numpy(),
        )
        for function, options, value, replicates in SUMMARIES.values():
            expected = function(df, by="g", **options)[value].to_numpy()
            got = replicates(pos[None, :], neg[None, :], sampler.layout)[0]
            np.testing.assert_allclose(got, expected.astype(float), rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("summary", SUMMARIES)
def test_bootstrap_reproducible_and_per_group(log: pl.DataFrame, summary: str) -> None:
    function, options, _, _ = SUMMARIES[summary]
    got = function(log, by="segment", ci="bootstrap", n_boot=200, seed=11, **options)
    again = function(log.lazy(), by="segment", ci="bootstrap", n_boot=200, seed=11, **options)
    assert_frame_equal(again.collect(), got)
    # A group's interval depends on its rows and the seed only.
    alone = function(
        log.filter(pl.col("segment") == "north"),
        by="segment",
        ci="bootstrap",
        n_boot=200,
        seed=11,
        **options,
    )
    assert_frame_equal(alone, got.filter(pl.col("segment") == "north"))
    for row in got.iter_rows(named=True):
        assert 0.0 <= row["ci_lower"] <= row["ci_upper"] <= 1.0


@pytest.mark.parametrize("ci", ["logit", "bootstrap"])
def test_count_table_equals_expanded_rows(log: pl.DataFrame, ci: str) -> None:
    expanded = log.select(pl.exclude("count").repeat_by(log["count"]).explode())
    for function, options, _, _ in SUMMARIES.values():
        counted = function(log, by="segment", count="count", ci=ci, n_boot=100, seed=2, **options)
        rows = function(expanded, by="segment", ci=ci, n_boot=100, seed=2, **options)
        assert_frame_equal(counted, rows)


def test_weighted_bootstrap_runs_and_logit_is_refused(log: pl.DataFrame) -> None:
    got = pr.pr_auc(log, weight="weight", ci="bootstrap", n_boot=100, seed=1)
    assert got["ci_lower"].item() <= got["pr_auc"].item() <= got["ci_upper"].item()
    with pytest.raises(ValueError, match=r"ci='logit' does not support weights .*count='weight'"):
        pr.pr_average_precision(log, weight="weight", ci="logit")


def test_eager_lazy_duckdb_agree(log: pl.DataFrame) -> None:
    relation = duckdb.sql("select * from log")
    for function, options, _, _ in SUMMARIES.values():
        for ci in ("logit", "bootstrap"):
            kwargs = {"by": ["segment", "month"], "ci": ci, "n_boot": 100, "seed": 5, **options}
            eager = function(log, **kwargs)
            assert_frame_equal(function(log.lazy(), **kwargs).collect(), eager)
            on_duckdb = function(relation, **kwargs)
            assert_frame_equal(on_duckdb, eager, check_exact=False, rel_tol=1e-12)


def test_option_errors(log: pl.DataFrame) -> None:
    with pytest.raises(ValueError, match=r"`ci` must be 'bootstrap' or 'logit', got 'delong'"):
        log.roc.pr_auc(ci="delong")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"`n_boot` sets a confidence interval.*ci='logit'"):
        log.roc.average_precision(n_boot=10)
    with pytest.raises(ValueError, match="`conf_level` must be"):
        log.roc.average_precision(ci="logit", conf_level=1.5)
