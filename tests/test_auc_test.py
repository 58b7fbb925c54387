"""``roc_auc(test=True)``: the Mann-Whitney U test of the AUC against 0.5.

Reference: scipy's ``mannwhitneyu(positives, negatives, method="asymptotic",
use_continuity=True)`` on the same rows, per group; count tables against their expanded
rows; a hand-computed case with ties; hypothesis properties.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats

import polars_roc as pr

duckdb = pytest.importorskip("duckdb")

ALTERNATIVES = ("two-sided", "greater", "less")


def _scipy(frame: pl.DataFrame, alternative: str) -> tuple[float, float]:
    positives = frame.filter(pl.col("label") == 1)["score"].to_numpy()
    negatives = frame.filter(pl.col("label") == 0)["score"].to_numpy()
    result = stats.mannwhitneyu(
        positives, negatives, alternative=alternative, method="asymptotic", use_continuity=True
    )
    return float(result.statistic), float(result.pvalue)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_equals_scipy_per_segment(log: pl.DataFrame, alternative: str) -> None:
    got = log.roc.auc(by="segment", test=True, alternative=alternative)
    assert got.columns == ["segment", "auc", "n_pos", "n_neg", "u_statistic", "p_value"]
    for row in got.iter_rows(named=True):
        u, p = _scipy(log.filter(pl.col("segment") == row["segment"]), alternative)
        assert row["u_statistic"] == u
        assert row["p_value"] == pytest.approx(p, rel=1e-12, abs=1e-15)
        assert row["u_statistic"] == pytest.approx(row["auc"] * row["n_pos"] * row["n_neg"])


def test_hand_computed_with_ties() -> None:
    # Positives 0.9, 0.5, 0.5; negatives 0.5, 0.1. Pairs won by the positive: 0.9 beats
    # both (2), each 0.5 ties the 0.5 (1/2 each) and beats 0.1 (1 each): U = 2 + 3 = 5.
    # Ties: one group of t = 3 at 0.5, so the tie term is 27 - 3 = 24; n = 5, mu = 3,
    # s^2 = 3 * 2 / 12 * (6 - 24 / 20) = 2.4; z = (5 - 3 - 0.5) / sqrt(2.4).
    df = pl.DataFrame({"score": [0.9, 0.5, 0.5, 0.5, 0.1], "label": [1, 1, 1, 0, 0]})
    got = df.roc.auc(test=True)
    z = 1.5 / math.sqrt(2.4)
    assert got["u_statistic"].item() == 5.0
    assert got["p_value"].item() == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-14)
    greater = df.roc.auc(test=True, alternative="greater")["p_value"].item()
    assert greater == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)), rel=1e-14)


def test_count_table_equals_expanded_rows(log: pl.DataFrame) -> None:
    expanded = log.select(pl.exclude("count").repeat_by(log["count"]).explode())
    counted = log.roc.auc(by="segment", count="count", test=True, alternative="less")
    rows = expanded.roc.auc(by="segment", test=True, alternative="less")
    assert_frame_equal(counted, rows)
    for row in counted.iter_rows(named=True):
        u, p = _scipy(expanded.filter(pl.col("segment") == row["segment"]), "less")
        assert row["u_statistic"] == u
        assert row["p_value"] == pytest.approx(p, rel=1e-12, abs=1e-15)


def test_eager_lazy_duckdb_agree(log: pl.DataFrame) -> None:
    eager = log.roc.auc(by=["segment", "month"], test=True, ci="delong")
    lazy = log.lazy().roc.auc(by=["segment", "month"], test=True, ci="delong")
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    relation = duckdb.sql("select * from log")
    on_duckdb = pr.roc_auc(relation, by=["segment", "month"], test=True, ci="delong")
    assert_frame_equal(on_duckdb, eager, check_exact=False, rel_tol=1e-12)


def test_direction_lower_flips_the_alternative(log: pl.DataFrame) -> None:
    flipped = log.with_columns(-pl.col("score"))
    lower = flipped.roc.auc(direction="lower", test=True, alternative="greater")
    higher = log.roc.auc(test=True, alternative="greater")
    assert_frame_equal(lower, higher)


def test_one_class_group_is_null_and_warned() -> None:
    df = pl.DataFrame(
        {"g": ["a"] * 3 + ["b"] * 3, "score": [0.1, 0.5, 0.9] * 2, "label": [0, 1, 1, 1, 1, 1]}
    )
    with pytest.warns(UserWarning, match="'b'"):
        got = df.roc.auc(by="g", test=True)
    assert got.filter(pl.col("g") == "b").select("u_statistic", "p_value").row(0) == (None, None)
    assert got.filter(pl.col("g") == "a")["u_statistic"].item() == 2.0


def test_all_tied_gives_p_one() -> None:
    df = pl.DataFrame({"score": [0.5] * 4, "label": [1, 0, 1, 0]})
    got = df.roc.auc(test=True)
    assert got["p_value"].item() == 1.0 == stats.mannwhitneyu([0.5] * 2, [0.5] * 2).pvalue


def test_goes_with_the_bootstrap(log: pl.DataFrame) -> None:
    got = log.roc.auc(test=True, ci="bootstrap", n_boot=50, seed=3)
    assert got.columns[-5:] == ["auc_se", "ci_lower", "ci_upper", "u_statistic", "p_value"]


def test_refuses_weights_partial_bins_and_lone_alternative(log: pl.DataFrame) -> None:
    with pytest.raises(ValueError, match=r"does not support weights \(got weight='weight'\)"):
        log.roc.auc(weight="weight", test=True)
    with pytest.raises(ValueError, match=r"tests the full AUC against 0\.5; drop max_fpr="):
        log.roc.auc(max_fpr=0.2, test=True)
    with pytest.raises(ValueError, match="intervals, tests and partial AUCs need the exact"):
        log.roc.auc(bins=4, test=True)
    with pytest.raises(ValueError, match=r"sets the test against chance.*pass test=True"):
        log.roc.auc(alternative="less")
    with pytest.raises(ValueError, match=r"'greater' \(auc > 0.5\) or 'less' .*got 'bigger'"):
        log.roc.auc(test=True, alternative="bigger")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`test` must be True or False, got 'yes'"):
        log.roc.auc(test="yes")  # type: ignore[arg-type]


_scores = st.lists(st.integers(0, 4), min_size=2, max_size=30)


@settings(max_examples=20, deadline=None)
@given(st.lists(_scores, min_size=1, max_size=4), st.data())
def test_flipping_labels_reverses_the_alternative(
    logs: list[list[int]], data: st.DataObject
) -> None:
    # Up to four logs as groups of one call (about 50 logs in all, as 50 examples of one
    # log did, in a third of the calls); each group against scipy on its own rows.
    parts = []
    for g, scores in enumerate(logs):
        labels = data.draw(st.lists(st.booleans(), min_size=len(scores), max_size=len(scores)))
        labels[0], labels[1] = True, False
        parts.append(pl.DataFrame({"g": g, "score": [float(s) for s in scores], "label": labels}))
    df = pl.concat(parts)
    flipped = df.with_columns(~pl.col("label"))
    for alternative, reverse in (("greater", "less"), ("less", "greater"), ("two-sided",) * 2):
        p = df.roc.auc(by="g", test=True, alternative=alternative).sort("g")["p_value"]
        q = flipped.roc.auc(by="g", test=True, alternative=reverse).sort("g")["p_value"]
        np.testing.assert_allclose(p, q, rtol=1e-12, atol=0)
        for g, part in enumerate(parts):
            _, expected = _scipy(part.with_columns(pl.col("label").cast(pl.Int64)), alternative)
            assert p[g] == pytest.approx(expected, rel=1e-12, abs=1e-15)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=4, max_size=40))
def test_one_sided_p_values_add_up(scores: list[float]) -> None:
    labels = [i % 2 == 0 for i in range(len(scores))]
    df = pl.DataFrame({"score": scores, "label": labels})
    greater = df.roc.auc(test=True, alternative="greater")["p_value"].item()
    less = df.roc.auc(test=True, alternative="less")["p_value"].item()
    two = df.roc.auc(test=True)["p_value"].item()
    assert two == pytest.approx(min(1.0, 2 * min(greater, less)), rel=1e-12)
    assert 0.0 <= less <= 1.0 and 0.0 <= greater <= 1.0
    assert np.isfinite(two)
