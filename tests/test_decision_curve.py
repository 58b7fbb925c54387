"""``decision_curve`` and ``decision_chart``: net benefit per threshold and segment.

Reference: the definition (Vickers & Elkin 2006, as dcurves computes it) evaluated by
brute force over the rows with numpy, hand-computed values with ties, count tables
against their expanded rows, eager == lazy == DuckDB, and properties.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocInputError, SingleClassWarning
from polars_roc.views.decision import DEFAULT_THRESHOLDS

duckdb = pytest.importorskip("duckdb")

COLUMNS = ["threshold", "net_benefit", "net_benefit_all", "net_benefit_none"]


def brute(frame: pl.DataFrame, thresholds: list[float], weight: str | None = None) -> list:
    score = frame["score"].to_numpy()
    label = frame["label"].to_numpy() == 1
    w = np.ones(len(score)) if weight is None else frame[weight].to_numpy()
    n = w.sum()
    rows = []
    for t in thresholds:
        treated = score >= t
        odds = t / (1 - t)
        tp, fp = w[treated & label].sum(), w[treated & ~label].sum()
        rows.append(
            (t, tp / n - fp / n * odds, w[label].sum() / n - w[~label].sum() / n * odds, 0.0)
        )
    return rows


def test_hand_computed_with_ties() -> None:
    # n = 6; at t = 0.5 the tie at 0.5 is treated (score >= t): tp = 2, fp = 1, so
    # 2/6 - 1/6 * 1 = 1/6; treat all: 3/6 - 3/6 = 0. At t = 0.2: tp = 3, fp = 2,
    # 3/6 - 2/6 * 0.25 = 5/12; treat all: 3/6 - 3/6 * 0.25 = 3/8.
    df = pl.DataFrame({"score": [0.9, 0.5, 0.5, 0.3, 0.2, 0.1], "label": [1, 1, 0, 1, 0, 0]})
    got = df.roc.decision_curve([0.5, 0.2])
    assert got.columns == COLUMNS
    expected = [(0.5, 1 / 6, 0.0, 0.0), (0.2, 5 / 12, 3 / 8, 0.0)]
    for row, want in zip(got.rows(), expected, strict=True):
        assert row == pytest.approx(want, rel=1e-14, abs=1e-15)


def test_against_brute_force_per_segment(log: pl.DataFrame, weight: str | None) -> None:
    thresholds = [0.0, 0.05, 0.3, 0.5, 0.5 + 1e-9, 0.8, 0.99]
    got = log.roc.decision_curve(thresholds, by="segment", weight=weight)
    assert got.columns == ["segment", *COLUMNS]
    assert got["segment"].unique(maintain_order=True).to_list() == ["east", "north", "south"]
    for segment, rows in got.group_by("segment", maintain_order=True):
        part = log.filter(pl.col("segment") == segment[0])
        want = brute(part, thresholds, weight)
        for row, expected in zip(rows.drop("segment").rows(), want, strict=True):
            assert row == pytest.approx(expected, rel=1e-12, abs=1e-14)


def test_default_grid_is_inside_the_unit_interval(log: pl.DataFrame) -> None:
    got = log.roc.decision_curve()
    assert got["threshold"].to_list() == list(DEFAULT_THRESHOLDS)
    assert (
        len(DEFAULT_THRESHOLDS) == 99 and 0 < min(DEFAULT_THRESHOLDS) < max(DEFAULT_THRESHOLDS) < 1
    )


def test_count_table_equals_expanded_rows(log: pl.DataFrame) -> None:
    expanded = log.select(pl.exclude("count").repeat_by(log["count"]).explode())
    counted = log.roc.decision_curve([0.1, 0.4, 0.7], by="segment", count="count")
    assert_frame_equal(counted, expanded.roc.decision_curve([0.1, 0.4, 0.7], by="segment"))


def test_eager_lazy_duckdb_agree(log: pl.DataFrame) -> None:
    thresholds = [0.1, 0.35, 0.5, 0.9]
    eager = log.roc.decision_curve(thresholds, by=["segment", "month"])
    lazy = log.lazy().roc.decision_curve(thresholds, by=["segment", "month"])
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    relation = duckdb.sql("select * from log")
    on_duckdb = pr.decision_curve(relation, thresholds, by=["segment", "month"])
    assert_frame_equal(on_duckdb, eager, check_exact=False, rel_tol=1e-12)


def test_one_class_group_is_computed_and_warned() -> None:
    df = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.8, 0.2, 0.8, 0.2], "label": [1, 0, 0, 0]}
    )
    with pytest.warns(UserWarning, match=r"\[g='b'\] hold only one class; net benefits of one"):
        got = df.roc.decision_curve([0.5], by="g")
    # Group b: one false positive of two rows at odds 1.
    assert got.filter(pl.col("g") == "b")["net_benefit"].item() == -0.5


def test_errors_name_the_value() -> None:
    df = pl.DataFrame({"score": [0.8, 0.2], "label": [1, 0]})
    with pytest.raises(ValueError, match=r"`thresholds` values must be in \[0, 1\) .*got 1\.0"):
        df.roc.decision_curve([0.5, 1.0])
    with pytest.raises(ValueError, match=r"`thresholds` values must be in \[0, 1\) .*got -0\.1"):
        df.roc.decision_curve(-0.1)
    with pytest.raises(ValueError, match=r"must be numbers in \[0, 1\), got 'high'"):
        df.roc.decision_curve(["high"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"non-empty list of rates, got \[\]"):
        df.roc.decision_curve([])


def test_scores_outside_the_unit_interval_are_refused() -> None:
    # Finding 4: the threshold is a risk, so the score must be a probability.
    df = pl.DataFrame({"score": [0.5, 1.5, 3.0, 4.0], "label": [0, 1, 0, 1]})
    message = (
        r"^score column 'score' must hold probabilities in \[0, 1\] here \(each score is "
        r"read as a predicted probability\), got values from 0\.5 to 4\.0"
    )  # the reason was calibration's ("calibration compares scores with observed rates")
    for source in (df, df.lazy(), duckdb.sql("select * from df")):
        with pytest.raises(RocInputError, match=message):
            pr.decision_curve(source, 0.5)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 9), st.booleans()), min_size=1, max_size=30),
    st.floats(0.0, 0.95),
)
def test_properties(rows: list[tuple[int, bool]], t: float) -> None:
    df = pl.DataFrame(
        {"score": [s / 10 for s, _ in rows], "label": [y for _, y in rows]},
        schema={"score": pl.Float64, "label": pl.Boolean},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleClassWarning)  # one-class draws are computed too
        got = pr.decision_curve(df, [t, 0.05])
    prevalence = df["label"].mean()
    # The model never gains more than all the positives, and treating everyone at a
    # threshold below every score is the treat-all strategy.
    assert (got["net_benefit"] <= prevalence + 1e-12).all()
    low = got.row(1, named=True)
    assert low["net_benefit"] == pytest.approx(low["net_benefit_all"], abs=1e-15)
    assert (got["net_benefit_none"] == 0.0).all()


# -- chart -------------------------------------------------------------------------


def test_chart_draws_three_strategies() -> None:
    df = pl.DataFrame({"score": [0.9, 0.7, 0.6, 0.4, 0.2], "label": [1, 1, 0, 1, 0]})
    spec = pr.decision_chart(df.roc.decision_curve([0.2, 0.5])).to_dict()
    assert spec["mark"] == {"type": "line", "clip": True}
    assert spec["encoding"]["x"]["field"] == "threshold"
    assert spec["encoding"]["color"]["sort"] == ["model", "treat all", "treat none"]
    values = spec["datasets"][spec["data"]["name"]]
    assert {(r["strategy"], r["threshold"]) for r in values} == {
        (s, t) for s in ("model", "treat all", "treat none") for t in (0.2, 0.5)
    }
    # The y axis: from a quarter of the highest net benefit below zero to it.
    top = max(r["net_benefit"] for r in values)
    assert spec["encoding"]["y"]["scale"]["domain"] == [-top / 4, top]
    assert "title" not in spec and set(spec.get("config", {})) <= {"view"}  # Altair's default


def test_chart_facets_by_segment(log: pl.DataFrame) -> None:
    curve = log.lazy().roc.decision_curve([0.2, 0.5], by="segment")
    spec = pr.decision_chart(curve, facet="segment", columns=2).to_dict()
    assert spec["facet"]["field"] == "_panel"
    assert spec["facet"]["sort"] == ["east", "north", "south"]
    assert spec["columns"] == 2
    assert len(spec["datasets"][spec["data"]["name"]]) == 3 * 2 * 3


def test_chart_errors(log: pl.DataFrame) -> None:
    curve = log.roc.decision_curve([0.2], by=["segment", "month"])
    with pytest.raises(ValueError, match=r"group column\(s\) \['month'\]: pass facet="):
        pr.decision_chart(curve, facet="segment")
    with pytest.raises(ValueError, match=r"`facet` must name a group column .*got 'nope'"):
        pr.decision_chart(curve, facet="nope")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['net_benefit_all'"):
        pr.decision_chart(curve.drop("net_benefit_all"), facet="segment")
    with pytest.raises(TypeError, match="`curve` must be a polars DataFrame or LazyFrame"):
        pr.decision_chart({"threshold": [0.1]})  # type: ignore[arg-type]
