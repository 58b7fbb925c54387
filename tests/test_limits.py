"""Limits of the numbers: counts past Int64 pairs, extreme weights, wide integer scores,
numpy integers as options (issue 24, items 1, 3, 5, 12).

References are exact: Python fractions over the count table (the AUC and DeLong's
variance from placement values) and scikit-learn on weights scaled to 1.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import duckdb
import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import polars_roc as pr
from polars_roc.exceptions import RocInputError


def exact_auc_and_variance(table: pl.DataFrame) -> tuple[Fraction, Fraction]:
    """AUC and DeLong's variance of a count table ``[score, label, n]`` in fractions."""
    rows = table.group_by("score", "label").agg(pl.col("n").sum()).rows()
    pos = [(s, n) for s, y, n in rows if y == 1]
    neg = [(s, n) for s, y, n in rows if y == 0]
    m, k = sum(n for _, n in pos), sum(n for _, n in neg)

    def placement(score: float, others: list[tuple[float, int]], sign: int) -> Fraction:
        beaten = sum(n for s, n in others if sign * (score - s) > 0)
        tied = sum(n for s, n in others if s == score)
        return Fraction(2 * beaten + tied, 2 * sum(n for _, n in others))

    v10 = [(placement(s, neg, 1), n) for s, n in pos]
    v01 = [(placement(s, pos, -1), n) for s, n in neg]
    auc = sum(v * n for v, n in v10) / m
    s10 = sum(n * (v - auc) ** 2 for v, n in v10) / (m - 1)
    s01 = sum(n * (v - auc) ** 2 for v, n in v01) / (k - 1)
    return auc, s10 / m + s01 / k


def duck(frame: pl.DataFrame) -> object:
    connection = duckdb.connect()
    connection.register("log_frame", frame.to_arrow())
    return connection.sql("SELECT * FROM log_frame")


# The table (k = 1,300,000,000: 2 * U passes 2^63) and one of 2^63 - 12 rows.
COUNT_TABLES = [
    pl.DataFrame({"score": [0.9, 0.8, 0.3, 0.2], "label": [1, 0, 1, 0], "n": [1_300_000_000] * 4}),
    pl.DataFrame(
        {
            "score": [0.9, 0.8, 0.8, 0.3, 0.2],
            "label": [1, 0, 1, 1, 0],
            "n": [2**61 - 1, 2**61 + 3, 2**60 + 7, 2**60 - 5, 2**61 - 16],
        }
    ),
]


@pytest.mark.parametrize("table", COUNT_TABLES)
def test_counts_past_int64_pairs_are_exact_on_every_path(table: pl.DataFrame) -> None:
    auc, variance = exact_auc_and_variance(table)
    n_pos = table.filter(pl.col("label") == 1)["n"].sum()
    results = {
        "eager": pr.roc_auc(table, count="n"),
        "lazy": pr.roc_auc(table.lazy(), count="n").collect(),
        "bins": pr.roc_auc(table, count="n", bins=16),
        "duckdb": pr.roc_auc(duck(table), count="n"),
        "duckdb_bins": pr.roc_auc(duck(table), count="n", bins=16),
        "hull": pr.hull_auc(table, count="n"),
    }
    for name, result in results.items():
        assert result["auc"][0] == pytest.approx(float(auc), rel=1e-15, abs=0), name
        assert result["n_pos"][0] == n_pos, name
        if "auc_bound" in result.columns:
            assert result["auc_bound"][0] == 0.0, name
    expression = table.select(pr.auc(count="n"))["auc"][0]
    assert expression == pytest.approx(float(auc), rel=1e-15, abs=0)
    for frame in (table, duck(table)):
        delong = pr.roc_auc(frame, count="n", ci="delong")
        assert delong["auc"][0] == pytest.approx(float(auc), rel=1e-15, abs=0)
        assert delong["auc_se"][0] == pytest.approx(math.sqrt(variance), rel=1e-12)


# Six rows of equal weight, true AUC 11/18; the weights of the issue and beyond.
SIX = pl.DataFrame({"score": [0.9, 0.7, 0.5, 0.5, 0.3, 0.1], "label": [1, 0, 1, 0, 1, 0]})


@pytest.mark.parametrize("w", [1e-162, 1e-165, 2.3e-308, 1e154, 1e300])
def test_extreme_weights_give_scikit_learns_auc(w: float) -> None:
    expected = roc_auc_score(SIX["label"], SIX["score"])
    assert expected == pytest.approx(11 / 18)
    log = SIX.with_columns(w=pl.lit(w))
    for result in (
        pr.roc_auc(log, weight="w"),
        pr.roc_auc(log.lazy(), weight="w").collect(),
        pr.roc_auc(log, weight="w", bins=64),
        pr.hull_auc(log, weight="w"),
        log.select(pr.auc(weight="w")),
    ):
        assert result["auc"][0] == pytest.approx(expected, rel=1e-14)
    bound = pr.roc_auc(SIX, bins=2)["auc_bound"][0]
    assert pr.roc_auc(log, weight="w", bins=2)["auc_bound"][0] == pytest.approx(bound, rel=1e-14)
    hull = pr.roc_hull(log, weight="w").select("tpr", "fpr")
    assert_frame_equal(hull, pr.roc_hull(SIX).select("tpr", "fpr"))


@pytest.mark.parametrize("scale", [1e-160, 1e160])
def test_confusion_and_bootstrap_of_extreme_weights(scale: float) -> None:
    rng = np.random.default_rng(1)
    log = pl.DataFrame(
        {"score": rng.normal(size=300).round(1), "label": rng.integers(0, 2, 300)}
    ).with_columns(w=pl.Series(rng.uniform(0.1, 3.0, 300)))
    measures = ["mcc", "kappa", "dor", "f1"]
    unit = pr.confusion_matrix(log, [0.0, 0.5], weight="w").select(measures)
    scaled = log.with_columns(pl.col("w") * scale)
    extreme = pr.confusion_matrix(scaled, [0.0, 0.5], weight="w").select(measures)
    assert_frame_equal(extreme, unit, rel_tol=1e-14)
    boot = {"weight": "w", "ci": "bootstrap", "n_boot": 50, "seed": 1}
    columns = ["auc", "auc_se", "ci_lower", "ci_upper"]
    unit = pr.roc_auc(log, **boot).select(columns)
    assert_frame_equal(pr.roc_auc(scaled, **boot).select(columns), unit, rel_tol=1e-13)


def test_weights_spanning_the_float_range_per_group() -> None:
    rng = np.random.default_rng(4)
    n = 400
    log = pl.DataFrame(
        {
            "g": rng.choice(["tiny", "huge", "spread"], n),
            "score": rng.normal(size=n).round(1),
            "label": rng.integers(0, 2, n),
            "unit": rng.uniform(0.5, 2.0, n),
            "spread": 10.0 ** rng.uniform(-100, 100, n),
        }
    )
    scale = pl.col("g").replace_strict({"tiny": 1e-200, "huge": 1e200}, default=None)
    log = log.with_columns(w=(pl.col("unit") * scale).fill_null(pl.col("spread")))
    result = pr.roc_auc(log, weight="w", by="g")
    for g, auc in result.select("g", "auc").rows():
        part = log.filter(pl.col("g") == g)
        weight = part["w"] / part["w"].max()  # scikit-learn's own range
        expected = roc_auc_score(part["label"], part["score"], sample_weight=weight)
        assert auc == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize(
    ("w", "problem"), [(1e308, "sums past"), (1e-310, "has 6 value.s. below the smallest normal")]
)
def test_weights_out_of_float_range_are_refused_naming_the_column(w: float, problem: str) -> None:
    log = SIX.with_columns(w=pl.lit(w))
    for call in (
        lambda: pr.roc_auc(log, weight="w"),
        lambda: pr.roc_auc(log.lazy(), weight="w"),
        lambda: pr.roc_auc(log, weight="w", bins=8),
        lambda: pr.roc_curve(duck(log), weight="w"),
        lambda: pr.multiclass_auc(
            log.with_columns(b=-pl.col("score")), scores={1: "score", 0: "b"}, weight="w"
        ),
    ):
        with pytest.raises(RocInputError, match=f"weight column 'w' {problem}"):
            call()
    # An expression cannot raise for one group: null, as for other unusable weights.
    assert log.select(pr.auc(weight="w"))["auc"][0] is None


WIDE = pl.DataFrame(
    {"score": [2**53, 2**53 + 1] * 2, "label": [0, 1] * 2},
    schema={"score": pl.UInt64, "label": pl.Int64},
)


@pytest.mark.parametrize(
    "call",
    [
        lambda f: pr.roc_auc(f),
        lambda f: pr.roc_auc(f.lazy()),
        lambda f: pr.roc_auc(f, bins=8),
        lambda f: pr.roc_curve(f),
        lambda f: pr.roc_auc(duck(f)),
        lambda f: pr.roc_curve(duck(f)),
        lambda f: pr.compare(f.with_columns(b=pl.col("score")), ["score", "b"]),
        lambda f: pr.multiclass_auc(f.with_columns(b=pl.col("score")), scores={0: "b", 1: "score"}),
    ],
)
def test_integer_scores_past_2_53_are_refused(call) -> None:
    with pytest.raises(RocInputError, match=r"score column '(score|b)' .* beyond \+-2\^53"):
        call(WIDE)


def test_integer_scores_past_2_53_stop_the_expression() -> None:
    with pytest.raises(pl.exceptions.InvalidOperationError, match=r"pr.auc: score .*2\^53"):
        WIDE.select(pr.auc())
    # Up to 2^53 in magnitude, integers are exact: accepted.
    edge = pl.DataFrame({"score": [-(2**53), 2**53], "label": [0, 1]})
    assert edge.roc.auc()["auc"][0] == 1.0
    assert edge.select(pr.auc())["auc"][0] == 1.0


def test_numpy_integers_are_accepted_as_options() -> None:
    log = SIX.with_columns(g=pl.Series(list("aabbab")))
    assert_frame_equal(pr.roc_auc(log, bins=np.int64(8)), pr.roc_auc(log, bins=8))
    boot = {"ci": "bootstrap", "n_boot": np.int64(20), "seed": np.uint32(3)}
    assert_frame_equal(pr.roc_auc(log, **boot), pr.roc_auc(log, ci="bootstrap", n_boot=20, seed=3))
    assert_frame_equal(pr.gains_table(log, np.int32(3)), pr.gains_table(log, 3))
    curve = pr.roc_curve(log, by="g")
    chart = {"facet": "g", "columns": np.int64(1), "points": np.int64(0), "max_points": np.int8(9)}
    expected = {"facet": "g", "columns": 1, "points": 0, "max_points": 9}
    assert pr.roc_chart(curve, **chart).to_dict() == pr.roc_chart(curve, **expected).to_dict()


def test_object_by_column_is_refused_naming_it() -> None:
    log = SIX.with_columns(seg=pl.Series([object()] * 6, dtype=pl.Object))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in (lambda: pr.roc_auc(log, by="seg"), lambda: pr.roc_curve(log.lazy(), by="seg")):
            with pytest.raises(RocInputError, match="by column 'seg' has dtype Object"):
                call()
