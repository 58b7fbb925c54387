"""Charts through their Vega-Lite specs (``chart.to_dict()``), never through pictures.

References are independent: scikit-learn for AUC, average precision and the PR points,
a monotone-chain hull written here, numpy trapezoids for the thinning bound.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import subprocess
import sys
import warnings
from itertools import pairwise
from typing import Any

import altair as alt
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score

import polars_roc as pr
from polars_roc import charts
from polars_roc.report import build_report
from tests.conftest import make_log

ROC_X = "False positive rate (1 - specificity)"
ROC_Y = "True positive rate (sensitivity)"


@pytest.fixture(autouse=True)
def no_theme() -> Any:
    """Altair's default theme adds a ``config`` of its own at ``to_dict()``; without a
    theme, any ``config`` in a spec would be ours."""
    with alt.theme.enable("none"):
        yield


def values(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of the chart's single dataset."""
    (rows,) = spec["datasets"].values()
    return rows


def layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return spec["spec"]["layer"] if "facet" in spec else spec["layer"]


def layer_with(spec: dict[str, Any], kind: str) -> dict[str, Any]:
    """The layer whose filter selects ``_layer == kind`` (``None``: the curve points)."""
    wanted = "!datum._layer" if kind is None else f"datum._layer === '{kind}'"
    (found,) = [lay for lay in layers(spec) if {"filter": wanted} in lay.get("transform", [])]
    return found


def rows_of(spec: dict[str, Any], kind: str | None) -> list[dict[str, Any]]:
    return [row for row in values(spec) if row.get("_layer") == kind]


def fmt3(value: float) -> str:
    return f"{value:.3f}"


def sk_auc(frame: pl.DataFrame) -> float:
    return float(roc_auc_score(frame["label"].to_numpy(), frame["score"].to_numpy()))


@pytest.fixture
def log() -> pl.DataFrame:
    return make_log(seed=7, n=300)


# --------------------------------------------------------------------------------------
# ROC chart spec


def test_roc_chart_single_curve_spec(log: pl.DataFrame) -> None:
    curve = pr.roc_curve(log)
    spec = pr.roc_chart(curve).to_dict()
    assert "config" not in spec and "title" not in spec
    marks = [lay["mark"]["type"] for lay in layers(spec)]
    assert marks == ["rule", "line"]
    line = layer_with(spec, None)
    enc = line["encoding"]
    assert enc["x"]["field"] == "fpr" and enc["y"]["field"] == "tpr"
    assert enc["x"]["axis"]["title"] == ROC_X and enc["y"]["axis"]["title"] == ROC_Y
    assert enc["x"]["scale"]["domain"] == [0, 1] and enc["y"]["scale"]["domain"] == [0, 1]
    assert spec["width"] == spec["height"]
    assert line["mark"].get("interpolate") == "linear"  # straight segments, no steps
    tooltip = {t["field"] for t in enc["tooltip"]}
    assert {"threshold", "tpr", "fpr", "tp", "fp"} <= tooltip
    assert enc["color"]["sort"] == [f"AUC {fmt3(sk_auc(log))}"]
    # Chance diagonal from (0, 0) to (1, 1).
    chance = layer_with(spec, "chance")["encoding"]
    assert (chance["x"]["datum"], chance["y"]["datum"]) == (0, 0)
    assert (chance["x2"]["datum"], chance["y2"]["datum"]) == (1, 1)
    points = rows_of(spec, None)
    assert len(points) == curve.height  # small curve: not thinned
    assert points[0]["threshold"] == "+inf" and (points[0]["fpr"], points[0]["tpr"]) == (0, 0)
    assert (points[-1]["fpr"], points[-1]["tpr"]) == (1, 1)
    json.dumps(spec, allow_nan=False)  # valid JSON: no infinity or NaN in the data


def test_roc_chart_facet_puts_auc_in_headers(log: pl.DataFrame) -> None:
    spec = pr.roc_chart(pr.roc_curve(log, by="segment"), facet="segment", columns=2).to_dict()
    assert "config" not in spec and "title" not in spec
    assert spec["facet"]["field"] == "_panel" and spec["columns"] == 2
    expected = [
        f"{seg} (AUC {fmt3(sk_auc(log.filter(pl.col('segment') == seg)))})"
        for seg in sorted(log["segment"].unique())
    ]
    assert spec["facet"]["sort"] == expected
    assert "color" not in layer_with(spec, None)["encoding"]
    assert len(rows_of(spec, "chance")) == 3  # one diagonal per panel


def test_roc_chart_color_puts_auc_in_legend(as_kind: Any, log: pl.DataFrame) -> None:
    curve = as_kind(pr.roc_curve(log, by="month"))
    spec = pr.roc_chart(curve, color="month").to_dict()
    assert "facet" not in spec
    color = layer_with(spec, None)["encoding"]["color"]
    expected = [f"{m} (AUC {fmt3(sk_auc(log.filter(pl.col('month') == m)))})" for m in (1, 2)]
    assert color["sort"] == expected and color["legend"]["title"] == "month"


def test_lone_group_column_is_the_color(log: pl.DataFrame) -> None:
    default = pr.roc_chart(pr.roc_curve(log, by="segment")).to_dict()
    explicit = pr.roc_chart(pr.roc_curve(log, by="segment"), color="segment").to_dict()
    assert default == explicit


def test_roc_chart_color_and_facet_notes(log: pl.DataFrame) -> None:
    curve = pr.roc_curve(log, by=["segment", "month"])
    spec = pr.roc_chart(curve, facet="segment", color="month").to_dict()
    legend = layer_with(spec, None)["encoding"]["color"]["sort"]
    assert legend == ["1", "2"]
    assert spec["facet"]["sort"] == ["east", "north", "south"]
    notes = rows_of(spec, "note")
    assert len(notes) == 6
    for note in notes:
        group = log.filter(
            (pl.col("segment") == note["_panel"]) & (pl.col("month") == int(note["_curve"]))
        )
        assert note["_note"] == f"AUC {fmt3(sk_auc(group))}"
    assert layer_with(spec, "note")["mark"]["type"] == "text"


def test_weighted_curve_auc_label(log: pl.DataFrame) -> None:
    spec = pr.roc_chart(pr.roc_curve(log, weight="weight")).to_dict()
    expected = roc_auc_score(log["label"], log["score"], sample_weight=log["weight"])
    assert layer_with(spec, None)["encoding"]["color"]["sort"] == [f"AUC {fmt3(expected)}"]


def test_single_class_group_shows_na() -> None:
    log = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.8, 0.2], "label": [1, 0, 1, 1]}
    )
    with pytest.warns(UserWarning, match="only one class"):
        curve = pr.roc_curve(log, by="g")
    spec = pr.roc_chart(curve, facet="g").to_dict()
    assert spec["facet"]["sort"] == ["a (AUC 1.000)", "b (AUC n/a)"]


def test_empty_curve_gives_an_empty_chart() -> None:
    empty = pl.DataFrame({"g": ["a"], "score": [0.5], "label": [1]}).clear()
    spec = pr.roc_chart(pr.roc_curve(empty)).to_dict()
    assert layer_with(spec, None)["encoding"]["color"]["sort"] == ["AUC n/a"]
    assert rows_of(spec, None) == []
    spec = pr.roc_chart(pr.roc_curve(empty, by="g"), facet="g").to_dict()
    assert spec["facet"]["sort"] == [] and rows_of(spec, None) == []
    spec = pr.confusion_chart(pr.confusion_matrix(empty, 0.5, by="g"), facet="g").to_dict()
    assert values(spec) == []


def test_odd_group_values_and_names() -> None:
    # Null segment, a column name Vega would read as a nested field, a categorical.
    log = pl.DataFrame(
        {
            "seg.name x": ["a", None, "a", None, "b", "b"],
            "score": [0.9, 0.1, 0.2, 0.8, 0.4, 0.5],
            "label": [1, 0, 0, 1, 1, 0],
        }
    ).with_columns(pl.col("seg.name x").cast(pl.Categorical))
    spec = pr.roc_chart(pr.roc_curve(log, by="seg.name x"), facet="seg.name x").to_dict()
    assert spec["facet"]["sort"] == ["null (AUC 1.000)", "a (AUC 1.000)", "b (AUC 0.000)"]
    assert spec["facet"]["title"] == "seg.name x"
    assert all("seg.name x" not in row for row in values(spec))


def test_chart_rows_are_kept_in_curve_order(log: pl.DataFrame) -> None:
    spec = pr.roc_chart(pr.roc_curve(log, by="segment"), facet="segment").to_dict()
    line = layer_with(spec, None)
    assert {"calculate": "datum.tp + datum.fp", "as": "_order"} in line["transform"]
    assert line["encoding"]["order"]["field"] == "_order"
    for panel in ("east", "north", "south"):
        pos = [r["tp"] + r["fp"] for r in rows_of(spec, None) if r["_panel"].startswith(panel)]
        assert all(b > a for a, b in pairwise(pos))


# --------------------------------------------------------------------------------------
# Hull and operating points


def monotone_chain_upper_hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Upper hull by Andrew's monotone chain (reference, plain Python)."""
    hull: list[tuple[float, float]] = []
    for p in sorted(set(points)):
        while len(hull) >= 2:
            (ox, oy), (ax, ay) = hull[-2], hull[-1]
            if (ax - ox) * (p[1] - oy) - (ay - oy) * (p[0] - ox) >= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    return hull


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hull_layer_matches_monotone_chain(seed: int) -> None:
    log = make_log(seed=seed, n=200, levels=40)
    curve = pr.roc_curve(log)
    spec = pr.roc_chart(curve, hull=True).to_dict()
    vertices = [(r["fpr"], r["tpr"]) for r in rows_of(spec, "hull")]
    expected = monotone_chain_upper_hull(list(zip(curve["fpr"], curve["tpr"])))
    np.testing.assert_allclose(vertices, expected, atol=1e-6)
    assert layer_with(spec, "hull")["mark"]["strokeDash"]


def test_points_at_thresholds_match_confusion(log: pl.DataFrame) -> None:
    curve = pr.roc_curve(log, by="segment")
    thresholds = [0.3, 0.5, 0.71, 2.0]
    spec = pr.roc_chart(curve, facet="segment", points=thresholds).to_dict()
    found = rows_of(spec, "point")
    expected = pr.confusion_matrix(log, thresholds, by="segment")
    assert len(found) == expected.height
    for row, want in zip(found, expected.iter_rows(named=True)):
        assert row["_panel"].startswith(want["segment"])
        assert row["fpr"] == pytest.approx(want["fpr"], abs=1e-6)
        assert row["tpr"] == pytest.approx(want["tpr"], abs=1e-6)
    assert found[-1]["fpr"] == 0 and found[-1]["tpr"] == 0  # nothing scores >= 2.0
    tooltip = {t["field"] for t in layer_with(spec, "point")["encoding"]["tooltip"]}
    assert "threshold" in tooltip


def test_points_from_confusion_rows(log: pl.DataFrame) -> None:
    confusion = pr.confusion_matrix(log, 0.5, by="segment")
    spec = pr.roc_chart(
        pr.roc_curve(log, by="segment"), facet="segment", points=confusion
    ).to_dict()
    found = rows_of(spec, "point")
    assert [r["fpr"] for r in found] == pytest.approx(confusion["fpr"].to_list(), abs=1e-6)
    assert [r["tpr"] for r in found] == pytest.approx(confusion["tpr"].to_list(), abs=1e-6)
    assert {r["threshold"] for r in found} == {"0.5"}


def test_points_frame_per_group(log: pl.DataFrame) -> None:
    wanted = pl.DataFrame({"segment": ["north"], "threshold": [0.5]})
    spec = pr.roc_chart(pr.roc_curve(log, by="segment"), facet="segment", points=wanted).to_dict()
    (found,) = rows_of(spec, "point")
    want = pr.confusion_matrix(log.filter(pl.col("segment") == "north"), 0.5)
    assert found["_panel"].startswith("north")
    assert (found["fpr"], found["tpr"]) == pytest.approx((want["fpr"][0], want["tpr"][0]))


# --------------------------------------------------------------------------------------
# Precision-recall


def test_pr_points_match_sklearn(log: pl.DataFrame) -> None:
    points = charts.pr_points(pr.roc_curve(log))
    precision, recall, thresholds = precision_recall_curve(log["label"], log["score"])
    ours = {t: (p, r) for t, p, r in points.select("threshold", "precision", "recall").iter_rows()}
    for p, r, t in zip(precision, recall, thresholds):
        assert ours[t] == pytest.approx((p, r))


def test_pr_chart_spec(log: pl.DataFrame) -> None:
    spec = pr.pr_chart(pr.roc_curve(log, by="segment"), facet="segment").to_dict()
    assert "config" not in spec and "title" not in spec
    line = layer_with(spec, None)
    assert line["mark"]["interpolate"] == "step-before"
    assert (
        line["encoding"]["x"]["field"] == "recall" and line["encoding"]["y"]["field"] == "precision"
    )
    expected_ap, expected_base = [], []
    for seg in sorted(log["segment"].unique()):
        part = log.filter(pl.col("segment") == seg)
        ap = average_precision_score(part["label"], part["score"])
        expected_ap.append(f"{seg} (AP {fmt3(ap)})")
        expected_base.append(part["label"].mean())
    assert spec["facet"]["sort"] == expected_ap
    assert [r["_base"] for r in rows_of(spec, "baseline")] == pytest.approx(expected_base)


def test_pr_chart_accepts_pr_frame_and_points(log: pl.DataFrame) -> None:
    frame = charts.pr_points(pr.roc_curve(log, by="month")).lazy()
    confusion = pr.confusion_matrix(log, 0.4, by="month")
    spec = pr.pr_chart(frame, color="month", points=confusion).to_dict()
    found = rows_of(spec, "point")
    assert [r["recall"] for r in found] == pytest.approx(confusion["tpr"].to_list(), abs=1e-6)
    assert [r["precision"] for r in found] == pytest.approx(confusion["ppv"].to_list(), abs=1e-6)


# --------------------------------------------------------------------------------------
# Confusion chart


def test_confusion_chart_cells(log: pl.DataFrame) -> None:
    confusion = pr.confusion_matrix(log, 0.5, by="segment")
    spec = pr.confusion_chart(confusion, facet="segment").to_dict()
    assert "config" not in spec and "title" not in spec
    assert [lay["mark"]["type"] for lay in layers(spec)] == ["rect", "text"]
    rows = values(spec)
    assert len(rows) == 4 * confusion.height
    for want in confusion.iter_rows(named=True):
        cells = {
            r["_text"].split()[0]: r for r in rows if r["_panel"].startswith(want["segment"] + " ")
        }
        assert cells["TP"]["count"] == want["tp"] and cells["TN"]["count"] == want["tn"]
        assert cells["TP"]["rate"] == pytest.approx(want["tpr"])
        assert cells["FP"]["rate"] == pytest.approx(want["fpr"])
        assert cells["FP"]["actual"] == "negative" and cells["FP"]["predicted"] == "positive"
        assert cells["FN"]["_text"] == f"FN {want['fn']}\nfnr {fmt3(want['fnr'])}"
    assert spec["spec"]["layer"][0]["encoding"]["color"]["scale"]["domain"] == [-1, 1]


def test_confusion_chart_needs_one_row_per_panel(log: pl.DataFrame) -> None:
    two = pr.confusion_matrix(log, [0.3, 0.6])
    with pytest.raises(ValueError, match="must hold one row"):
        pr.confusion_chart(two)
    with pytest.raises(ValueError, match="lacks column"):
        pr.confusion_chart(two.drop("tn"))
    with pytest.raises(ValueError, match="`facet` column 'nope'"):
        pr.confusion_chart(two, facet="nope")
    with pytest.raises(ValueError, match="pass `facet=` too"):
        pr.confusion_chart(two.head(1), columns=2)


# --------------------------------------------------------------------------------------
# Thinning


@pytest.fixture(scope="module")
def million_curve() -> tuple[pl.DataFrame, float]:
    """A ROC curve of 10^6 + 1 points (distinct scores) and its exact AUC."""
    rng = np.random.default_rng(11)
    n = 1_000_000
    label = rng.random(n) < 0.3
    score = rng.normal(size=n) + 0.9 * label
    curve = pr.roc_curve(pl.DataFrame({"score": score, "label": label}))
    return curve, float(roc_auc_score(label, score))


@pytest.mark.parametrize("max_points", [1000, 90, 7, 3])
def test_thinned_million_point_curve_within_bound(
    million_curve: tuple[pl.DataFrame, float], max_points: int
) -> None:
    curve, exact = million_curve
    assert curve.height == 1_000_001
    thinned = charts.thin_curve(curve, max_points=max_points)
    assert 2 <= thinned.height <= max_points
    assert thinned.row(0) == curve.row(0) and thinned.row(-1) == curve.row(-1)
    fpr, tpr = thinned["fpr"].to_numpy(), thinned["tpr"].to_numpy()
    area = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    # A posteriori bound: half the rectangle spanned by each kept segment.
    rectangles = float(np.sum(np.diff(fpr) * np.diff(tpr)) / 2)
    assert abs(area - exact) <= rectangles + 1e-12
    assert abs(area - exact) <= charts.thinning_bound(max_points)


def test_chart_of_many_large_curves_has_no_row_limit(
    million_curve: tuple[pl.DataFrame, float],
) -> None:
    curve, _ = million_curve
    # Six copies as six groups: 6 x 10^6 points, 6000 drawn, over Altair's 5000-row limit.
    many = pl.concat(
        [curve.with_columns(pl.lit(f"m{i}").alias("model")).head(200_000 + i) for i in range(6)]
    )
    spec = pr.roc_chart(many, color="model").to_dict()
    counts: dict[str, int] = {}
    for row in rows_of(spec, None):
        counts[row["_curve"]] = counts.get(row["_curve"], 0) + 1
    assert len(counts) == 6 and all(c <= charts.DEFAULT_MAX_POINTS for c in counts.values())
    assert sum(counts.values()) > 5000
    assert len(json.dumps(spec)) < 1_500_000


def test_short_curves_are_not_thinned(log: pl.DataFrame) -> None:
    curve = pr.roc_curve(log, by="segment")
    assert charts.thin_curve(curve, by="segment", max_points=1000).equals(curve)
    assert charts.thin_curve(curve.lazy(), by="segment", max_points=None).collect().equals(curve)


def test_collinear_points_go_first_and_area_is_exact() -> None:
    # Four flat runs of 100 points: dropping the collinear points leaves 10, exactly.
    i = np.arange(401)
    frame = pl.DataFrame({"fpr": i / 400, "tpr": np.minimum(i // 100, 4) / 4})
    thinned = charts.thin_curve(frame, max_points=20)
    assert thinned["fpr"].to_list() == [i / 400 for i in (0, 99, 100, 199, 200, 299, 300, 399, 400)]
    exact = np.sum(
        np.diff(frame["fpr"]) * (frame["tpr"][1:].to_numpy() + frame["tpr"][:-1].to_numpy()) / 2
    )
    got = np.sum(
        np.diff(thinned["fpr"])
        * (thinned["tpr"][1:].to_numpy() + thinned["tpr"][:-1].to_numpy())
        / 2
    )
    assert got == pytest.approx(exact, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    labels=st.lists(st.booleans(), min_size=0, max_size=60),
    levels=st.integers(2, 40),
    max_points=st.integers(3, 12),
    seed=st.integers(0, 2**16),
)
def test_thinning_properties(labels: list[bool], levels: int, max_points: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    # Both classes in both groups (the first four rows), then random rows.
    label = np.array([True, False, True, False, *labels])
    score = rng.integers(0, levels, size=len(label)) / levels
    group = np.array(["a", "a", "b", "b", *rng.choice(["a", "b"], size=len(labels))])
    curve = pr.roc_curve(pl.DataFrame({"g": group, "score": score, "label": label}), by="g")
    thinned = charts.thin_curve(curve, by="g", max_points=max_points)
    for key, part in curve.group_by("g", maintain_order=True):
        kept = thinned.filter(pl.col("g") == key[0])
        if part.height <= max_points:
            assert kept.equals(part)
        assert kept.height <= max_points
        assert kept.row(0) == part.row(0) and kept.row(-1) == part.row(-1)
        # Kept rows are original rows, in curve order.
        assert kept.join(part, on=kept.columns, how="semi").height == kept.height
        # One chunk: Polars 1.35's is_sorted(descending=True) is False for [inf, 0.5 | 0.0]
        # held in two chunks.
        assert kept["threshold"].rechunk().is_sorted(descending=True)
        f0, t0 = part["fpr"].to_numpy(), part["tpr"].to_numpy()
        f1, t1 = kept["fpr"].to_numpy(), kept["tpr"].to_numpy()
        exact = np.sum(np.diff(f0) * (t0[1:] + t0[:-1]) / 2)
        area = np.sum(np.diff(f1) * (t1[1:] + t1[:-1]) / 2)
        assert abs(area - exact) <= charts.thinning_bound(max_points) + 1e-12


# --------------------------------------------------------------------------------------
# plot(), errors, no global state


def test_plot_is_curve_then_chart(log: pl.DataFrame) -> None:
    by_hand = pr.roc_chart(pr.roc_curve(log, by="segment"), facet="segment", points=0.5)
    assert log.roc.plot(by="segment", facet="segment", points=0.5).to_dict() == by_hand.to_dict()
    pr_hand = pr.pr_chart(pr.pr_curve(log, by="segment"), color="segment")
    assert log.lazy().roc.plot(by="segment", kind="pr").to_dict() == pr_hand.to_dict()


@pytest.mark.parametrize(
    ("optimal", "condition"),
    [(True, {}), ({"cost_fn": 3.0}, {"cost_fn": 3.0}), ({"slope": 0.5}, {"slope": 0.5})],
)
def test_plot_optimal_is_optimal_point_then_chart(
    log: pl.DataFrame, optimal: Any, condition: dict[str, float]
) -> None:
    best = pr.optimal_point(log, by="segment", **condition)
    by_hand = pr.roc_chart(pr.roc_curve(log, by="segment"), facet="segment", optimal=best)
    made = log.lazy().roc.plot(by="segment", facet="segment", optimal=optimal)
    assert made.to_dict() == by_hand.to_dict()
    assert (
        log.roc.plot(by="segment", optimal=best).to_dict()
        == pr.roc_chart(pr.roc_curve(log, by="segment"), color="segment", optimal=best).to_dict()
    )
    without = log.roc.plot(by="segment", facet="segment", optimal=False).to_dict()
    assert not rows_of(without, "optimal")


def test_plot_lays_out_group_columns_as_the_report_does(log: pl.DataFrame) -> None:
    # Issue 27 item 10: `columns=` alone asks for panels; two `by` columns give panels by
    # the first and colors by the second; three are joined into one panel label.
    four = pr.roc_chart(pr.roc_curve(log, by="segment"), facet="segment", columns=4)
    assert log.roc.plot(by="segment", columns=4).to_dict() == four.to_dict()
    assert four.to_dict()["columns"] == 4
    two = ["segment", "month"]
    both = pr.roc_chart(pr.roc_curve(log, by=two), facet="segment", color="month")
    assert log.lazy().roc.plot(by=two).to_dict() == both.to_dict()
    pr_both = pr.pr_chart(pr.pr_curve(log, by=two), facet="segment", color="month", columns=2)
    assert log.roc.plot(by=two, kind="pr", columns=2).to_dict() == pr_both.to_dict()
    three = log.with_columns(pl.col("month").alias("m2"))
    spec = three.roc.plot(by=["segment", "month", "m2"], points=0.5).to_dict()
    assert spec["facet"]["title"] == "segment / month / m2"
    assert spec["facet"]["sort"][0].startswith("east / 1 / 1 (AUC ")
    # The report's layout is the same function's.
    report = build_report(log, by=two).charts["roc"].to_dict()
    assert report["facet"]["title"] == "segment"
    assert layer_with(report, None)["encoding"]["color"]["legend"]["title"] == "month"
    # A named role is kept: the other `by` column must then be named too.
    with pytest.raises(ValueError, match=r"group column\(s\) \['segment'\] not shown"):
        log.roc.plot(by=two, color="month")


def test_plot_errors(log: pl.DataFrame) -> None:
    with pytest.raises(ValueError, match="`kind` must be 'roc' or 'pr', got 'det'"):
        log.roc.plot(kind="det")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs kind='roc'"):
        log.roc.plot(kind="pr", hull=True)
    with pytest.raises(ValueError, match="`optimal=` needs kind='roc'"):
        log.roc.plot(kind="pr", optimal=True)
    with pytest.raises(ValueError, match=r"unknown: \['cost'\]"):
        log.roc.plot(by="segment", optimal={"cost": 2.0})
    with pytest.raises(TypeError, match=r"`optimal=` must be True, .youden., a mapping"):
        log.roc.plot(by="segment", optimal=0.5)


def test_chart_argument_errors(log: pl.DataFrame) -> None:
    curve = pr.roc_curve(log, by=["segment", "month"])
    with pytest.raises(ValueError, match=r"group column\(s\) \['month'\] not shown"):
        pr.roc_chart(curve, facet="segment")
    with pytest.raises(ValueError, match=r"group column\(s\) \['segment', 'month'\]"):
        pr.roc_chart(curve)
    with pytest.raises(ValueError, match="name the same column 'month'"):
        pr.roc_chart(curve, color="month", facet="month")
    with pytest.raises(
        ValueError,
        match=r"`color` must name a group column of `curve` "
        r"\(\['segment', 'month'\]\), not its value column 'tp'",
    ):
        pr.roc_chart(curve, color="tp", facet="segment")
    with pytest.raises(ValueError, match="`color` column 'model' is not in `curve`"):
        pr.roc_chart(curve, color="model", facet="segment")
    with pytest.raises(TypeError, match="`facet` must be a column name"):
        pr.roc_chart(curve, facet=["segment"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pass `facet=` too"):
        pr.roc_chart(pr.roc_curve(log), columns=3)
    with pytest.raises(ValueError, match="`columns` must be a positive integer, got 0"):
        pr.roc_chart(curve, facet="segment", color="month", columns=0)
    with pytest.raises(ValueError, match="`max_points` must be an integer >= 3"):
        pr.roc_chart(curve, facet="segment", color="month", max_points=2)
    with pytest.raises(ValueError, match="lacks column"):
        pr.roc_chart(curve.drop("tpr"), facet="segment", color="month")
    with pytest.raises(TypeError, match="must be a polars DataFrame or LazyFrame, got dict"):
        pr.roc_chart({"fpr": [0.0]})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`points` must be thresholds"):
        pr.roc_chart(pr.roc_curve(log), points=[float("nan")])
    text = r"`points` must be thresholds \(numbers\) or a frame, got '0\.2'"
    with pytest.raises(ValueError, match=text):
        pr.roc_chart(pr.roc_curve(log), points="0.2")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must have a 'threshold' column"):
        pr.roc_chart(pr.roc_curve(log), points=pl.DataFrame({"cut": [0.5]}))
    with pytest.raises(TypeError, match="`curve` must be a polars DataFrame"):
        charts.thin_curve([1, 2])  # type: ignore[arg-type]


def test_no_altair_global_state_is_touched(log: pl.DataFrame) -> None:
    before = (alt.data_transformers.active, alt.theme.active, alt.renderers.active)
    pr.roc_chart(pr.roc_curve(log, by="segment"), facet="segment", hull=True, points=0.5).to_dict()
    pr.pr_chart(pr.roc_curve(log)).to_dict()
    assert (alt.data_transformers.active, alt.theme.active, alt.renderers.active) == before


def test_import_does_not_load_altair() -> None:
    code = (
        "import sys, polars_roc; print('altair' in sys.modules); "
        "polars_roc.roc_chart; print('altair' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


# --------------------------------------------------------------------------------------
# Optimal point and iso-performance line (roc_chart(optimal=...))


def brute_optimal(group: pl.DataFrame, slope: float) -> tuple[float, float]:
    """(fpr, tpr) maximising ``tpr - slope * fpr`` over every threshold, with numpy."""
    score, label = group["score"].to_numpy(), group["label"].to_numpy()
    cuts = np.concatenate([[np.inf], np.unique(score)])
    tpr = np.array([(label[score >= t] == 1).sum() for t in cuts]) / (label == 1).sum()
    fpr = np.array([(label[score >= t] == 0).sum() for t in cuts]) / (label == 0).sum()
    best = np.argmax(tpr - slope * fpr)
    return float(fpr[best]), float(tpr[best])


def on_iso_line(end: dict[str, Any], x0: float, y0: float, slope: str) -> bool:
    if slope == "+inf":
        return abs(end["fpr"] - x0) < 1e-6
    return abs(end["tpr"] - (y0 + float(slope) * (end["fpr"] - x0))) < 1e-5


def on_square_edge(end: dict[str, Any]) -> bool:
    inside = 0 <= end["fpr"] <= 1 and 0 <= end["tpr"] <= 1
    return inside and (end["fpr"] in (0, 1) or end["tpr"] in (0, 1))


@pytest.mark.parametrize("roles", [{"facet": "segment"}, {"color": "segment"}])
def test_optimal_point_and_iso_line(log: pl.DataFrame, roles: dict[str, str]) -> None:
    best = pr.optimal_point(log, by="segment", cost_fn=3.0)
    spec = pr.roc_chart(pr.roc_curve(log, by="segment"), optimal=best, **roles).to_dict()
    marks = [(lay["mark"]["type"], lay["mark"].get("shape")) for lay in layers(spec)]
    assert marks == [("rule", None), ("line", None), ("line", None), ("point", "square")]
    iso, point = layer_with(spec, "iso"), layer_with(spec, "optimal")
    for lay in (iso, point):
        assert lay["encoding"]["x"]["field"] == "fpr" and lay["encoding"]["y"]["field"] == "tpr"
        assert lay["encoding"]["x"]["scale"]["domain"] == [0, 1]
        assert ("color" in lay["encoding"]) == ("color" in roles)
    tooltip = {t["field"] for t in point["encoding"]["tooltip"]}
    assert {"threshold", "slope", "expected_cost"} <= tooltip
    points, ends = rows_of(spec, "optimal"), rows_of(spec, "iso")
    assert len(points) == 3 and len(ends) == 6  # one point and two line ends per segment
    label_field = "_panel" if "facet" in roles else "_curve"
    for row in points:
        segment = row[label_field].split(" ")[0]
        group = log.filter(pl.col("segment") == segment)
        n_pos = int(group["label"].sum())
        slope = (group.height - n_pos) / n_pos * (1.0 / 3.0)  # seed 001, cost_fp / cost_fn
        assert float(row["slope"]) == pytest.approx(slope, rel=1e-5)
        assert (row["fpr"], row["tpr"]) == pytest.approx(brute_optimal(group, slope), abs=1e-6)
        mine = [end for end in ends if end[label_field] == row[label_field]]
        assert len(mine) == 2
        for end in mine:
            assert on_square_edge(end) and on_iso_line(end, row["fpr"], row["tpr"], row["slope"])
        # The curve lies on or below its iso-performance line.
        curve = [p for p in rows_of(spec, None) if p[label_field] == row[label_field]]
        assert all(
            p["tpr"] - slope * p["fpr"] <= row["tpr"] - slope * row["fpr"] + 1e-5 for p in curve
        )
    json.dumps(spec, allow_nan=False)


@pytest.mark.parametrize(
    ("x0", "y0", "slope", "expected"),
    [
        (0.2, 0.6, 1.0, [(0.0, 0.4), (0.6, 1.0)]),
        (0.1, 0.5, 10.0, [(0.05, 0.0), (0.15, 1.0)]),
        (0.5, 0.9, 0.1, [(0.0, 0.85), (1.0, 0.95)]),
        (0.3, 0.7, 0.0, [(0.0, 0.7), (1.0, 0.7)]),
        (0.3, 0.7, math.inf, [(0.3, 0.0), (0.3, 1.0)]),
        (0.0, 0.0, 2.0, [(0.0, 0.0), (0.5, 1.0)]),
        (1.0, 1.0, 0.5, [(0.0, 0.5), (1.0, 1.0)]),
    ],
)
def test_iso_line_is_clipped_to_the_unit_square(
    x0: float, y0: float, slope: float, expected: list[tuple[float, float]]
) -> None:
    # Hand-computed ends of tpr = y0 + slope * (fpr - x0) within [0, 1]^2.
    curve = pr.roc_curve(pl.DataFrame({"score": [0.9, 0.1], "label": [1, 0]}))
    optimal = pl.DataFrame(
        {"slope": [slope], "threshold": [0.5], "expected_cost": [0.1], "fpr": [x0], "tpr": [y0]}
    )
    spec = pr.roc_chart(curve, optimal=optimal).to_dict()
    ends = sorted((end["fpr"], end["tpr"]) for end in rows_of(spec, "iso"))
    np.testing.assert_allclose(ends, expected, atol=1e-9)
    json.dumps(spec, allow_nan=False)  # an infinite slope is text ("+inf")


# A point at a corner (hypothesis finds (0, 0) with slope inf) rightly warns that the
# optimum is a trivial rule; this property is about the ends of the line only.
@pytest.mark.filterwarnings("ignore:the optimal point is a trivial rule")
@settings(max_examples=15, deadline=None)
@given(
    x0=st.floats(0, 1),
    y0=st.floats(0, 1),
    slope=st.one_of(st.floats(0, 1e3), st.just(math.inf)),
)
def test_iso_line_ends_property(x0: float, y0: float, slope: float) -> None:
    curve = pr.roc_curve(pl.DataFrame({"score": [0.9, 0.1], "label": [1, 0]}))
    optimal = pl.DataFrame(
        {"slope": [slope], "threshold": [0.5], "expected_cost": [0.0], "fpr": [x0], "tpr": [y0]}
    )
    ends = rows_of(pr.roc_chart(curve, optimal=optimal).to_dict(), "iso")
    assert len(ends) == 2
    for end in ends:
        assert on_square_edge(end)
        if math.isinf(slope):
            assert abs(end["fpr"] - x0) < 1e-6
        else:  # ends are rounded to 1e-6, an error the slope multiplies
            assert abs(end["tpr"] - (y0 + slope * (end["fpr"] - x0))) <= 1e-6 * (1 + slope)


def test_optimal_rows_without_a_point_are_left_out() -> None:
    log = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.8, 0.2], "label": [1, 0, 1, 1]}
    )
    with pytest.warns(UserWarning, match="only one class"):
        curve = pr.roc_curve(log, by="g")
    with pytest.warns(UserWarning, match="only one class"):
        best = pr.optimal_point(log, by="g")
    spec = pr.roc_chart(curve, facet="g", optimal=best).to_dict()
    assert [row["_panel"] for row in rows_of(spec, "optimal")] == ["a (AUC 1.000)"]
    assert len(rows_of(spec, "iso")) == 2


def test_optimal_errors(log: pl.DataFrame) -> None:
    curve = pr.roc_curve(log, by="segment")
    best = pr.optimal_point(log, by="segment")
    with pytest.raises(ValueError, match=r"`optimal` lacks column\(s\) \['slope'\]"):
        pr.roc_chart(curve, facet="segment", optimal=best.drop("slope"))
    message = r"group column\(s\) \[\] but the chart shows \['segment'\]"
    with pytest.raises(ValueError, match=message):
        pr.roc_chart(curve, facet="segment", optimal=pr.optimal_point(log))
    with pytest.raises(ValueError, match=r"group column\(s\) \['segment', 'month'\]"):
        pr.roc_chart(curve, facet="segment", optimal=pr.optimal_point(log, by=["segment", "month"]))
    with pytest.raises(ValueError, match=r"'slope' must be >= 0, got -1\.0"):
        pr.roc_chart(curve, facet="segment", optimal=best.with_columns(slope=pl.lit(-1.0)))
    with pytest.raises(TypeError, match="`optimal` must be a polars DataFrame"):
        pr.roc_chart(curve, facet="segment", optimal={"slope": 1})  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# Gains and lift


def numpy_gains(group: pl.DataFrame, bins: pl.DataFrame) -> list[tuple[float, float]]:
    """(depth, capture) at the lower score edge of each bin, counted with numpy."""
    score, label = group["score"].to_numpy(), group["label"].to_numpy()
    return [
        ((score >= s).mean(), (label[score >= s] == 1).sum() / (label == 1).sum())
        for s in bins["score_min"].to_list()
    ]


def test_gains_chart_from_gains_table(as_kind: Any, log: pl.DataFrame) -> None:
    table = pr.gains_table(log, by="segment", n_bins=5)
    spec = pr.gains_chart(as_kind(table), facet="segment", columns=2).to_dict()
    assert "config" not in spec and "title" not in spec and spec["columns"] == 2
    assert [lay["mark"]["type"] for lay in layers(spec)] == ["rule", "line"]
    chance = layer_with(spec, "chance")["encoding"]
    assert (chance["x2"]["datum"], chance["y2"]["datum"]) == (1, 1)
    (line,) = [lay for lay in layers(spec) if lay["mark"]["type"] == "line"]
    enc = line["encoding"]
    fields = (enc["x"]["field"], enc["y"]["field"], enc["order"]["field"])
    assert fields == ("depth", "capture", "_seq")
    assert enc["x"]["scale"]["domain"] == [0, 1] == enc["y"]["scale"]["domain"]
    tooltip = {t["field"] for t in enc["tooltip"]}
    assert {"bin", "score_min", "score_max", "cum_lift", "capture"} <= tooltip
    assert spec["facet"]["sort"] == ["east", "north", "south"]
    for segment in ("east", "north", "south"):
        rows = [r for r in values(spec) if r.get("_panel") == segment and "depth" in r]
        bins = table.filter(pl.col("segment") == segment)
        assert len(rows) == bins.height + 1  # the (0, 0) start, then one point per bin
        assert (rows[0]["depth"], rows[0]["capture"], rows[0]["_layer"]) == (0, 0, "start")
        got = [(r["depth"], r["capture"]) for r in sorted(rows[1:], key=lambda r: r["_seq"])]
        expected = numpy_gains(log.filter(pl.col("segment") == segment), bins)
        np.testing.assert_allclose(got, expected, atol=1e-6)
        assert got[-1] == (1.0, 1.0)


def test_lift_bars_per_bin(log: pl.DataFrame) -> None:
    table = pr.gains_table(log, by="segment", n_bins=4)
    spec = pr.gains_chart(table, kind="lift").to_dict()  # lone group column: the color
    assert [lay["mark"]["type"] for lay in layers(spec)] == ["rule", "bar"]
    assert layer_with(spec, "chance")["encoding"]["y"]["datum"] == 1
    enc = layer_with(spec, None)["encoding"]
    assert (enc["x"]["field"], enc["x"]["type"], enc["y"]["field"]) == ("bin", "ordinal", "lift")
    assert enc["xOffset"]["field"] == "_curve" == enc["color"]["field"]
    assert enc["color"]["sort"] == ["east", "north", "south"]
    bars = rows_of(spec, None)
    assert len(bars) == table.height
    for bar in bars:
        group = log.filter(pl.col("segment") == bar["_curve"])
        row = table.filter((pl.col("segment") == bar["_curve"]) & (pl.col("bin") == bar["bin"]))
        in_bin = group.filter(pl.col("score").is_between(row["score_min"], row["score_max"]))
        lift = in_bin["label"].mean() / group["label"].mean()
        assert bar["lift"] == pytest.approx(lift, abs=1e-6)


def test_gains_and_lift_from_lift_curve(log: pl.DataFrame) -> None:
    lift = pr.lift_curve(log)
    spec = pr.gains_chart(lift.lazy()).to_dict()
    points = [r for r in values(spec) if "depth" in r]
    assert len(points) == lift.height + 1 and points[0]["_layer"] == "start"
    score, label = log["score"].to_numpy(), log["label"].to_numpy()
    for row, threshold in zip(points[1:], lift["threshold"], strict=True):
        above = score >= threshold
        assert row["depth"] == pytest.approx(above.mean(), abs=1e-6)
        assert row["capture"] == pytest.approx(label[above].sum() / label.sum(), abs=1e-6)
    spec = pr.gains_chart(lift, kind="lift").to_dict()
    assert [lay["mark"]["type"] for lay in layers(spec)] == ["rule", "line"]
    enc = layer_with(spec, None)["encoding"]
    assert (enc["x"]["field"], enc["y"]["field"]) == ("depth", "lift")
    assert len(rows_of(spec, None)) == lift.height


def test_long_lift_curves_are_thinned() -> None:
    log = make_log(seed=3, n=400, levels=300)
    lift = pr.lift_curve(log, by="segment")
    spec = pr.gains_chart(lift, color="segment", max_points=12).to_dict()
    for segment in ("east", "north", "south"):
        rows = [r for r in rows_of(spec, None) if r["_curve"] == segment]
        full = lift.filter(pl.col("segment") == segment)
        assert full.height > 12 >= len(rows)
        assert rows[-1]["depth"] == 1.0 and rows[-1]["capture"] == 1.0  # last point kept


def test_gains_chart_errors(log: pl.DataFrame) -> None:
    table = pr.gains_table(log, by="segment")
    with pytest.raises(ValueError, match="`kind` must be 'gains' or 'lift', got 'roc'"):
        pr.gains_chart(table, kind="roc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"`table` lacks column\(s\) \['cum_count'\]"):
        pr.gains_chart(table.drop("cum_count"))
    message = r"`table` lacks column\(s\) \['depth', 'capture', 'lift'\]"
    with pytest.raises(ValueError, match=message):
        pr.gains_chart(pr.roc_curve(log))
    with pytest.raises(ValueError, match=r"group column\(s\) \['segment', 'month'\] not shown"):
        pr.gains_chart(pr.gains_table(log, by=["segment", "month"]))


# --------------------------------------------------------------------------------------
# Averaged curves and their bands


@pytest.fixture
def fold_log(log: pl.DataFrame) -> pl.DataFrame:
    return log.with_columns(fold=pl.int_range(pl.len()) % 4)


def test_average_chart_vertical_band(as_kind: Any, fold_log: pl.DataFrame) -> None:
    average = pr.average_curve(fold_log, by="segment", grid=11)
    spec = pr.average_chart(as_kind(average), facet="segment").to_dict()
    assert "config" not in spec and "title" not in spec
    assert [lay["mark"]["type"] for lay in layers(spec)] == ["rule", "area", "line"]
    area, line = layers(spec)[1:]
    assert area["transform"] == [{"filter": "!datum._layer"}] == line["transform"]
    band = area["encoding"]
    fields = (band["x"]["field"], band["y"]["field"], band["y2"]["field"])
    assert fields == ("fpr", "tpr_lower", "tpr_upper")
    assert "order" not in band  # an area is drawn along x; `order` would stack it
    enc = line["encoding"]
    assert (enc["x"]["field"], enc["y"]["field"]) == ("fpr", "tpr")
    assert enc["x"]["axis"]["title"] == ROC_X and enc["y"]["axis"]["title"] == ROC_Y
    for channel in (enc["x"], enc["y"], band["x"], band["y"]):
        assert channel["scale"] == {"domain": [0, 1], "nice": False}
    assert spec["facet"]["sort"] == [f"{s} (mean of 4 curves)" for s in ("east", "north", "south")]
    assert len(rows_of(spec, "chance")) == 3
    rows = rows_of(spec, None)
    assert len(rows) == average.height == 33
    got = [(r["fpr"], r["tpr"], r["tpr_lower"], r["tpr_upper"]) for r in rows]
    expected = average.select("fpr", "tpr", "tpr_lower", "tpr_upper").rows()
    np.testing.assert_allclose(got, expected, atol=1e-6)
    assert all(r["tpr_lower"] <= r["tpr"] <= r["tpr_upper"] for r in rows)


def test_average_chart_threshold_band(fold_log: pl.DataFrame) -> None:
    average = pr.average_curve(fold_log, method="threshold", by="segment", grid=9)
    spec = pr.average_chart(average).to_dict()  # lone group column: the color
    assert [lay["mark"]["type"] for lay in layers(spec)] == ["rule", "area", "area", "line"]
    vertical, horizontal = layers(spec)[1:3]
    assert vertical["mark"]["orient"] == "vertical" and horizontal["mark"]["orient"] == "horizontal"
    enc = horizontal["encoding"]
    fields = (enc["y"]["field"], enc["x"]["field"], enc["x2"]["field"])
    assert fields == ("tpr", "fpr_lower", "fpr_upper")
    legend = layers(spec)[3]["encoding"]["color"]
    assert legend["sort"] == [f"{s} (mean of 4 curves)" for s in ("east", "north", "south")]
    assert legend["legend"]["symbolType"] == "stroke"
    rows = rows_of(spec, None)
    assert len(rows) == average.height
    assert {"threshold", "fpr_lower", "fpr_upper", "tpr_lower", "tpr_upper"} <= set(rows[1])
    assert rows[0]["threshold"] == "+inf"
    json.dumps(spec, allow_nan=False)


def test_average_chart_color_and_facet(fold_log: pl.DataFrame) -> None:
    average = pr.average_curve(fold_log, by=["segment", "month"], grid=5)
    spec = pr.average_chart(average, facet="segment", color="month").to_dict()
    assert spec["facet"]["sort"] == ["east", "north", "south"]
    assert layers(spec)[2]["encoding"]["color"]["sort"] == ["1", "2"]
    assert len(rows_of(spec, None)) == average.height


def test_average_chart_errors(fold_log: pl.DataFrame) -> None:
    vertical = pr.average_curve(fold_log, grid=5)
    with pytest.raises(ValueError, match=r"`average` lacks column\(s\) \['tpr_upper'\]"):
        pr.average_chart(vertical.drop("tpr_upper"))
    by_threshold = pr.average_curve(fold_log, method="threshold", grid=5)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['fpr_lower'\]"):
        pr.average_chart(by_threshold.drop("fpr_lower"))
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['fpr', 'tpr_lower'"):
        pr.average_chart(pr.roc_curve(fold_log).drop("fpr"))
    with pytest.raises(ValueError, match="`facet` column 'segment' is not in `average`"):
        pr.average_chart(vertical, facet="segment")


def test_new_charts_are_lazy_top_level_names() -> None:
    assert pr.gains_chart is charts.gains_chart and pr.average_chart is charts.average_chart
    assert {"gains_chart", "average_chart"} <= set(pr.__all__)


# --------------------------------------------------------------------------------------
# Issue 16: wrapping facets, confusion shading, PR path as scikit-learn draws it


@pytest.mark.parametrize("kind", ["roc", "pr"])
def test_facet_without_columns_wraps(log: pl.DataFrame, kind: str) -> None:
    eight = log.with_columns(panel=pl.int_range(pl.len()) % 8)
    curve = pr.roc_curve(eight, by="panel")
    chart = pr.roc_chart if kind == "roc" else pr.pr_chart
    spec = chart(curve, facet="panel").to_dict()
    assert spec["columns"] == charts.layers.FACET_COLUMNS == 4  # 8 panels: two rows, not one
    assert chart(curve, facet="panel", columns=8).to_dict()["columns"] == 8
    confusion = pr.confusion_matrix(eight, 0.5, by="panel")
    assert pr.confusion_chart(confusion, facet="panel").to_dict()["columns"] == 5
    assert "columns" not in chart(pr.roc_curve(log)).to_dict()  # no facet, nothing to wrap


def test_confusion_chart_shades_errors_apart_from_correct_cells() -> None:
    # A panel with a high false-negative rate and one with a high true-negative rate:
    # their dark cells must not look alike.
    confusion = pl.DataFrame(
        {
            "g": ["misses", "fine"],
            "threshold": [0.5, 0.5],
            "tp": [1, 9],
            "fn": [9, 1],
            "fp": [1, 1],
            "tn": [9, 9],
        }
    )
    spec = pr.confusion_chart(confusion, facet="g").to_dict()
    color = spec["spec"]["layer"][0]["encoding"]["color"]
    assert color["field"] == "shade" and color["scale"] == {"domain": [-1, 1], "scheme": "redblue"}
    cells = {(r["_panel"].split()[0], r["_text"].split()[0]): r for r in values(spec)}
    assert cells["misses", "FN"]["shade"] == pytest.approx(-0.9)  # red end
    assert cells["misses", "TN"]["shade"] == pytest.approx(0.9)  # blue end
    assert cells["fine", "TP"]["shade"] == pytest.approx(0.9)
    for (_, name), row in cells.items():
        sign = 1 if name in ("TP", "TN") else -1
        assert row["shade"] == pytest.approx(sign * row["rate"])
    text = spec["spec"]["layer"][1]["encoding"]["color"]
    assert text["condition"]["test"] == "abs(datum.shade) > 0.5"


def _steps(points: list[tuple[float, float]], style: str) -> list[tuple[float, float]]:
    """The vertices a step line through ``points`` draws (consecutive repeats removed)."""
    path = [points[0]]
    for (x0, y0), (x1, y1) in pairwise(points):
        corner = (x0, y1) if style == "step-before" else (x1, y0)  # else steps-post
        path += [corner, (x1, y1)]
    return [p for i, p in enumerate(path) if i == 0 or p != path[i - 1]]


@pytest.mark.parametrize("top_negative", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pr_chart_draws_what_sklearn_precision_recall_display_draws(
    seed: int, top_negative: bool
) -> None:
    # PrecisionRecallDisplay plots precision_recall_curve's points (recall descending,
    # ending at recall 0, precision 1) with drawstyle="steps-post". The chart draws the
    # same points, recall ascending, with "step-before": the same path, including the
    # vertical segment at recall 0 from precision 1 down to the top scores' precision.
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, 40)
    score = np.round(rng.normal(label * 0.8, 1.0), 1)  # ties
    if top_negative:  # the top score is a negative: precision 0 at the first threshold
        label[np.argmax(score)], score[np.argmax(score)] = 0, 9.0
    log = pl.DataFrame({"score": score, "label": label})
    spec = pr.pr_chart(pr.roc_curve(log)).to_dict()
    curve = next(lay for lay in layers(spec) if lay["mark"]["type"] == "line")
    assert curve["mark"]["interpolate"] == "step-before"
    rows = sorted(rows_of(spec, None), key=lambda r: r["tp"] + r["fp"])  # the drawing order
    ours = _steps([(r["recall"], r["precision"]) for r in rows], "step-before")
    precision, recall, _ = precision_recall_curve(label, score)
    theirs = _steps(list(zip(recall.tolist(), precision.tolist(), strict=True)), "steps-post")
    assert len(ours) == len(theirs)
    # The chart's coordinates are rounded to 6 decimals.
    np.testing.assert_allclose(np.array(ours), np.array(theirs[::-1]), atol=1e-6)
    assert ours[0] == (0.0, 1.0)
    if top_negative:
        assert ours[1] == (0.0, 0.0)  # the vertical segment at recall 0, as sklearn's


# Optimal points on imbalanced logs (issue 15, part 5)


@contextlib.contextmanager
def warnings_as_errors() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def imbalanced_log(seed: int = 5, n: int = 2000, share: float = 0.08) -> pl.DataFrame:
    """Two segments of a weak score at a low prevalence: equal costs pick (0, 0)."""
    rng = np.random.default_rng(seed)
    label = rng.random(n) < share
    score = np.round(rng.normal(0.0, 1.0, n) + 0.6 * label, 2)
    segment = np.where(rng.random(n) < 0.5, "a", "b")
    return pl.DataFrame({"segment": segment, "score": score, "label": label})


def brute_origin_ratio(group: pl.DataFrame) -> float:
    """cost_fn / cost_fp above which a point beats (0, 0): ((1 - p) / p) / max tpr / fpr."""
    score, label = group["score"].to_numpy(), group["label"].to_numpy()
    cuts = np.unique(score)
    tpr = np.array([label[score >= t].sum() for t in cuts]) / label.sum()
    fpr = np.array([(~label[score >= t]).sum() for t in cuts]) / (~label).sum()
    p = label.mean()
    return float((1 - p) / p / np.max(tpr / fpr))


def test_youden_optimal_is_slope_one(log: pl.DataFrame) -> None:
    curve = pr.roc_curve(log, by="segment")
    by_slope = pr.optimal_point(log, by="segment", slope=1.0)
    spec = pr.roc_chart(curve, facet="segment", optimal="youden").to_dict()
    expected = pr.roc_chart(curve, facet="segment", optimal=by_slope).to_dict()
    assert spec == expected
    assert log.roc.plot(by="segment", facet="segment", optimal="youden").to_dict() == expected
    for row in rows_of(spec, "optimal"):
        assert row["slope"] == "1.0"
        group = log.filter(pl.col("segment") == row["_panel"].split(" ")[0])
        assert (row["fpr"], row["tpr"]) == pytest.approx(brute_optimal(group, 1.0), abs=1e-6)
    with pytest.raises(ValueError, match="`optimal` as text must be 'youden', got 'best'"):
        pr.roc_chart(curve, facet="segment", optimal="best")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"must be True, 'youden', .* got 'best'"):
        log.roc.plot(by="segment", optimal="best")  # type: ignore[arg-type]


def test_corner_optimum_is_noted_and_warned_with_the_cost_ratio() -> None:
    log = imbalanced_log(seed=6)
    best = pr.optimal_point(log, by="segment")
    assert best.select((pl.col("tpr") == 0) & (pl.col("fpr") == 0)).to_series().all()
    with pytest.warns(UserWarning, match=r"trivial rule for segment='a' at \(0, 0\)") as got:
        spec = log.roc.plot(by="segment", facet="segment", optimal=True).to_dict()
    assert len(got) == 1
    message = str(got[0].message)
    assert "segment='b' at (0, 0)" in message and "optimal='youden'" in message
    notes = {row["_panel"].split(" ")[0]: row["_corner_note"] for row in rows_of(spec, "corner")}
    assert set(notes) == {"a", "b"}
    for segment in ("a", "b"):
        group = log.filter(pl.col("segment") == segment)
        ratio = brute_origin_ratio(group)
        assert (
            f"segment={segment!r} at (0, 0) (call every case negative; a non-trivial "
            f"point from cost_fn / cost_fp > {ratio:.4g})" in message
        )
        assert notes[segment] == f"(0, 0) optimal unless cost_fn/cost_fp > {float(f'{ratio:.3g}')}"
        # The ratio is where the optimum leaves the corner: just above it, a real point.
        for factor, at_corner in ((0.999, True), (1.001, False)):
            moved = pr.optimal_point(group, cost_fn=ratio * factor)
            assert (moved["tpr"].item() == 0 and moved["fpr"].item() == 0) is at_corner
    # The note layer sits before the squares, which stay the last layer.
    kinds = [lay["mark"]["type"] for lay in layers(spec)]
    assert kinds == ["rule", "line", "line", "text", "point"]
    # With a cost that moves the optimum there is no note and no warning.
    with warnings_as_errors():
        moved_spec = log.roc.plot(by="segment", optimal={"cost_fn": 20.0}).to_dict()
    assert not rows_of(moved_spec, "corner")


def test_corner_at_one_one_gives_the_upper_ratio() -> None:
    # By hand: the points below (1, 1) are (0, 1/3), (1/3, 1/3), (1/3, 2/3), (2/3, 2/3),
    # (1, 2/3); the flattest (1 - tpr) / (1 - fpr) among those with fpr < 1 is 1/2, at
    # (1/3, 2/3). Prevalence 1/2 (odds 1): (1, 1) is optimal for slope < 1/2, i.e.
    # cost_fn / cost_fp > 2, and (1/3, 2/3) takes over at 2 and below.
    log = pl.DataFrame({"score": [0.9, 0.8, 0.6, 0.4, 0.2, 0.1], "label": [1, 0, 1, 0, 0, 1]})
    best = pr.optimal_point(log, cost_fn=5.0)
    assert (best["tpr"].item(), best["fpr"].item()) == (1.0, 1.0)
    with pytest.warns(UserWarning, match=r"at \(1, 1\) \(call every case positive") as got:
        spec = pr.roc_chart(pr.roc_curve(log), optimal=best).to_dict()
    assert "a non-trivial point from cost_fn / cost_fp <= 2)" in str(got[0].message)
    assert [row["_corner_note"] for row in rows_of(spec, "corner")] == [
        "(1, 1) optimal unless cost_fn/cost_fp <= 2.0"
    ]
    at_two = pr.optimal_point(log, cost_fn=2.0)
    assert (at_two["fpr"].item(), at_two["tpr"].item()) == pytest.approx((1 / 3, 2 / 3))
    assert pr.optimal_point(log, cost_fn=2.001)["fpr"].item() == 1.0


def test_a_curve_below_chance_is_noted_without_warning() -> None:
    log = pl.DataFrame({"score": [0.7, 0.4], "label": [0, 1]})
    with warnings_as_errors():
        spec = log.roc.plot(optimal={"cost_fn": 10.0}).to_dict()
    assert [row["_corner_note"] for row in rows_of(spec, "corner")] == [
        "(1, 1) optimal at every cost ratio"
    ]


def test_border_squares_are_drawn_inside_the_plot() -> None:
    log = imbalanced_log(seed=5)  # segment a: a point just above (0, 0); b: (0, 0)
    with pytest.warns(UserWarning, match="trivial rule"):
        chart = log.roc.plot(by="segment", facet="segment", optimal=True)
    mark = layer_with(chart.to_dict(), "optimal")["mark"]
    assert mark["xOffset"] == {"expr": "clamp(datum.fpr * 260, 5, 255) - datum.fpr * 260"}
    assert mark["yOffset"] == {
        "expr": "clamp((1 - datum.tpr) * 260, 5, 255) - (1 - datum.tpr) * 260"
    }
    # Rendered: every square's centre lies at least its half side (4.5 px) inside its
    # 260 px panel; the one at (0, 0) sits 5 px in from the corner, not on it.
    vl_convert = pytest.importorskip("vl_convert")
    svg = vl_convert.vegalite_to_svg(chart.to_dict())
    squares = [
        tag
        for tag in re.findall(r"<path [^>]*>", svg)
        if 'aria-roledescription="point"' in tag and 'stroke-width="0.8"' in tag
    ]
    centres = [
        tuple(float(v) for v in re.search(r"translate\(([-\d.]+),([-\d.]+)\)", tag).groups())
        for tag in squares
    ]
    assert len(centres) == 2
    assert all(5 <= x <= 255 and 5 <= y <= 255 for x, y in centres), centres
    assert (5.0, 255.0) in centres


def test_thinning_keeps_a_corner_that_is_repeated() -> None:
    # A curve can repeat a point (rows of zero weight add a threshold, not a step). The
    # thinning drops the later copy only, through the curve's own collinearity test; it
    # used to drop both copies and cut the corner (0, 0.5): area 0.5 instead of 0.75.
    curve = pl.DataFrame(
        {
            "threshold": [math.inf, 0.9, 0.8, 0.7, 0.1],
            "fpr": [0.0, 0.0, 0.0, 0.5, 1.0],
            "tpr": [0.0, 0.5, 0.5, 0.75, 1.0],
        }
    )
    thinned = charts.thin_curve(curve, max_points=4)
    assert thinned.select("fpr", "tpr").rows() == [(0.0, 0.0), (0.0, 0.5), (1.0, 1.0)]
    assert thinned["threshold"].to_list() == [math.inf, 0.9, 0.1]
