"""ROC convex hull, hull AUC and optimal operating points.

References: an independent monotone-chain (Andrew) upper hull written here, brute force
over the curve points for the optimal point, and seed 001's scenarios worked by hand.
"""

from __future__ import annotations

import math
import warnings
from itertools import pairwise

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import polars_roc as pr

# Seed 001 (Fawcett's 20 instances): class and score.
SEED_LABEL = [1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0]
SEED_SCORE = [
    0.9,
    0.8,
    0.7,
    0.6,
    0.55,
    0.54,
    0.53,
    0.52,
    0.51,
    0.505,
    0.4,
    0.39,
    0.38,
    0.37,
    0.36,
    0.35,
    0.34,
    0.33,
    0.30,
    0.1,
]


def seed_frame() -> pl.DataFrame:
    return pl.DataFrame({"score": SEED_SCORE, "label": SEED_LABEL})


Point = tuple[float, float, float]


def monotone_chain_upper(points: list[Point]) -> list[Point]:
    """Upper hull by Andrew's monotone chain over ``(fpr, tpr, threshold)`` points.

    Points sorted by fpr then tpr; a point is popped unless it makes a strict right turn,
    so collinear points and duplicates are not vertices. Among duplicates of a corner,
    the first (highest threshold) is kept, as the library promises.
    """
    ordered = sorted(points, key=lambda p: (p[0], p[1], -p[2]))
    hull: list[Point] = []
    for p in ordered:
        if hull and hull[-1][:2] == p[:2]:
            continue  # a repeat of the last vertex: keep the first (highest threshold)
        while len(hull) >= 2:
            (x1, y1, _), (x2, y2, _) = hull[-2], hull[-1]
            cross = (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1)
            if cross >= -1e-12:  # not a strict right turn: the middle point goes
                hull.pop()
            else:
                break
        hull.append(p)
    return hull


def curve_groups(curve: pl.DataFrame, by: list[str]) -> dict[tuple, pl.DataFrame]:
    if not by:
        return {(): curve}
    return {key: part for key, part in curve.group_by(by, maintain_order=True)}


def by_list(by: str | list[str] | None) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else by


def collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def test_hull_vertices_match_monotone_chain(log, as_kind, by, weight):
    cols = by_list(by)
    curve = pr.roc_curve(log, by=by, weight=weight)
    hull = collect(pr.roc_hull(as_kind(log), by=by, weight=weight))
    hull_groups = curve_groups(hull, cols)
    for key, part in curve_groups(curve, cols).items():
        points = list(zip(part["fpr"], part["tpr"], part["threshold"]))
        expected = monotone_chain_upper(points)
        got = hull_groups[key]
        assert got["threshold"].to_list() == [p[2] for p in expected]
        np.testing.assert_allclose(got["fpr"], [p[0] for p in expected], atol=1e-12)
        np.testing.assert_allclose(got["tpr"], [p[1] for p in expected], atol=1e-12)
        # Each vertex is optimal between the slopes of its two edges.
        slopes = [
            math.inf if b[0] == a[0] else (b[1] - a[1]) / (b[0] - a[0])
            for a, b in pairwise(expected)
        ]
        np.testing.assert_allclose(got["slope_max"], [math.inf, *slopes], rtol=1e-9)
        np.testing.assert_allclose(got["slope_min"], [*slopes, 0.0], rtol=1e-9)


def test_flags_on_every_curve_point(log, as_kind, by, weight):
    cols = by_list(by)
    flagged = collect(pr.roc_hull(as_kind(log), by=by, weight=weight, points="all"))
    curve = pr.roc_curve(log, by=by, weight=weight)
    assert_frame_equal(flagged.drop("vertex", "on_hull"), curve)
    for part in curve_groups(flagged, cols).values():
        points = list(zip(part["fpr"], part["tpr"], part["threshold"]))
        vertices = monotone_chain_upper(points)
        vertex_thresholds = {p[2] for p in vertices}
        assert part.filter("vertex")["threshold"].to_list() == [p[2] for p in vertices]
        for fpr, tpr, threshold, on_hull in zip(
            part["fpr"], part["tpr"], part["threshold"], part["on_hull"]
        ):
            on_edge = any(
                a[0] <= fpr <= b[0]
                and abs((b[0] - a[0]) * (tpr - a[1]) - (b[1] - a[1]) * (fpr - a[0])) < 1e-12
                for a, b in pairwise(vertices)
            )
            assert on_hull == (on_edge or threshold in vertex_thresholds)


def test_hull_auc(log, as_kind, by, weight):
    cols = by_list(by)
    result = collect(pr.hull_auc(as_kind(log), by=by, weight=weight))
    curve = pr.roc_curve(log, by=by, weight=weight)
    rows = result.iter_rows(named=True)
    for (key, part), row in zip(curve_groups(curve, cols).items(), rows):
        assert tuple(row[c] for c in cols) == key
        vertices = monotone_chain_upper(list(zip(part["fpr"], part["tpr"], part["threshold"])))
        x, y = np.array([p[0] for p in vertices]), np.array([p[1] for p in vertices])
        area = np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2)
        assert row["auc_hull"] == pytest.approx(area, abs=1e-12)
        members = (
            log
            if not cols
            else log.filter(pl.all_horizontal(pl.col(c) == v for c, v in zip(cols, key)))
        )
        w = None if weight is None else members[weight].to_numpy()
        expected_auc = roc_auc_score(members["label"], members["score"], sample_weight=w)
        assert row["auc"] == pytest.approx(expected_auc, abs=1e-12)
        assert row["auc_hull"] >= row["auc"] - 1e-12


def test_seed_001_hull_by_hand():
    # (fp, tp) out of 10 negatives and 10 positives: the hull of the seed's curve.
    hull = pr.roc_hull(seed_frame())
    assert hull["threshold"].to_list() == [math.inf, 0.8, 0.54, 0.38, 0.30, 0.1]
    assert hull["fp"].to_list() == [0, 0, 1, 5, 9, 10]
    assert hull["tp"].to_list() == [0, 2, 5, 8, 10, 10]
    assert hull["slope_min"].to_list() == pytest.approx([math.inf, 3.0, 0.75, 0.5, 0.0, 0.0])


@pytest.mark.parametrize(
    ("condition", "threshold", "tpr", "fpr", "expected_cost"),
    [
        # Scenario alpha: negatives outnumber positives 10 to 1, equal costs: m = 10.
        ({"prevalence": 1 / 11}, 0.8, 0.2, 0.0, (1 / 11) * 0.8),
        ({"slope": 10.0}, 0.8, 0.2, 0.0, 0.5 * 0.8),
        # Scenario beta: balanced classes, a false negative costs 10 times more: m = 1/10.
        ({"prevalence": 0.5, "cost_fn": 10.0}, 0.30, 1.0, 0.9, 0.5 * 0.9),
        ({"slope": 0.1}, 0.30, 1.0, 0.9, 0.5 * 0.1 * 0.9),
    ],
)
def test_seed_001_scenarios(condition, threshold, tpr, fpr, expected_cost):
    point = pr.optimal_point(seed_frame(), **condition)
    assert point.height == 1
    row = point.row(0, named=True)
    assert row["threshold"] == threshold
    assert row["tpr"] == pytest.approx(tpr)
    assert row["fpr"] == pytest.approx(fpr)
    assert row["expected_cost"] == pytest.approx(expected_cost)
    p = row["prevalence"]
    assert row["error_rate"] == pytest.approx(p * (1 - tpr) + (1 - p) * fpr)


def test_iso_slope_of_seed_scenarios():
    assert pr.iso_slope(1 / 11) == pytest.approx(10.0)
    assert pr.iso_slope(0.5, cost_fp=1.0, cost_fn=10.0) == pytest.approx(0.1)
    assert pr.iso_slope(0.5, cost_fp=2.0) == pytest.approx(2.0)


def test_optimal_point_by_brute_force(log, as_kind, by, weight):
    cols = by_list(by)
    curve = pr.roc_curve(log, by=by, weight=weight)
    result = collect(
        pr.optimal_point(as_kind(log), by=by, weight=weight, prevalence=0.3, cost_fp=2.0)
    )
    m = (0.7 / 0.3) * 2.0
    for (key, part), row in zip(curve_groups(curve, cols).items(), result.iter_rows(named=True)):
        assert tuple(row[c] for c in cols) == key
        gain = part["tpr"].to_numpy() - m * part["fpr"].to_numpy()
        best = int(np.argmax(gain >= gain.max() - 1e-12))  # first of the maxima
        assert row["threshold"] == part["threshold"][best]
        assert row["slope"] == pytest.approx(m)
        cost = 0.3 * (1 - part["tpr"][best]) + 0.7 * 2.0 * part["fpr"][best]
        assert row["expected_cost"] == pytest.approx(cost, rel=1e-12)


def test_optimal_point_default_is_sample_condition():
    frame = seed_frame()
    default = pr.optimal_point(frame)
    explicit = pr.optimal_point(frame, prevalence=0.5, cost_fp=1.0, cost_fn=1.0)
    assert_frame_equal(default, explicit)
    assert default["slope"].to_list() == [1.0]


def test_single_class_group_hull_and_point():
    frame = pl.DataFrame(
        {
            "g": ["a"] * 4 + ["b"] * 3,
            "score": [0.9, 0.2, 0.5, 0.4, 0.3, 0.6, 0.6],
            "label": [1, 0, 1, 0, 1, 1, 1],
        }
    )
    with pytest.warns(UserWarning, match="only one class"):
        hull = pr.roc_hull(frame, by="g")
    b = hull.filter(pl.col("g") == "b")
    assert b["threshold"].to_list() == [math.inf, 0.3]  # the segment between the ends
    assert b["fpr"].to_list() == [None, None]
    with pytest.warns(UserWarning, match="only one class"):
        point = pr.optimal_point(frame, by="g")
    assert point["g"].to_list() == ["a", "b"]
    assert point.filter(pl.col("g") == "b")["threshold"].to_list() == [None]
    with pytest.warns(UserWarning, match="only one class"):
        areas = pr.hull_auc(frame, by="g")
    assert areas["auc_hull"].to_list() == [1.0, None]


def test_empty_input_gives_empty_frames():
    empty = pl.DataFrame(schema={"score": pl.Float64, "label": pl.Int64})
    assert pr.roc_hull(empty).height == 0
    assert pr.roc_hull(empty, points="all").height == 0
    assert pr.hull_auc(empty).height == 0
    assert pr.optimal_point(empty).height == 0


def test_namespace_matches_functions(log):
    assert_frame_equal(log.roc.hull(by="segment"), pr.roc_hull(log, by="segment"))
    assert_frame_equal(log.lazy().roc.hull_auc().collect(), pr.hull_auc(log))
    assert_frame_equal(
        log.roc.optimal_point(slope=2.0, by="segment"),
        pr.optimal_point(log, slope=2.0, by="segment"),
    )


def test_lazy_plan_is_not_collected_early(log):
    plan = pr.roc_hull(log.lazy(), by="segment", points="all")
    assert isinstance(plan, pl.LazyFrame)
    eager = pr.roc_hull(log, by="segment", points="all")
    assert_frame_equal(plan.collect(), eager)
    # A filter after the hull must not be pushed below it (it would change the hull).
    late = pl.col("threshold") < 0.5
    assert_frame_equal(plan.filter(late).collect(), eager.filter(late))
    assert_frame_equal(plan.collect(engine="streaming"), eager)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"points": "corners"}, ValueError, "`points` must be 'vertices' or 'all'"),
    ],
)
def test_hull_errors(log, kwargs, error, match):
    with pytest.raises(error, match=match):
        pr.roc_hull(log, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"slope": -1.0}, "`slope` must be a finite number >= 0"),
        ({"slope": math.inf}, "`slope` must be a finite number >= 0"),
        ({"slope": "steep"}, "`slope` must be a finite number >= 0"),
        ({"slope": 2.0, "cost_fp": 3.0}, "give either `slope=` or `cost_fp=`"),
        ({"prevalence": 1.0}, "`prevalence` must be a number strictly between 0 and 1"),
        ({"prevalence": 0}, "`prevalence` must be a number strictly between 0 and 1"),
        ({"cost_fp": 0.0}, "`cost_fp` must be a finite number > 0"),
        ({"cost_fn": -2.0}, "`cost_fn` must be a finite number > 0"),
        ({"cost_fn": math.nan}, "`cost_fn` must be a finite number > 0"),
    ],
)
def test_optimal_point_errors(log, kwargs, match):
    with pytest.raises(ValueError, match=match):
        pr.optimal_point(log, **kwargs)


def test_iso_slope_errors():
    with pytest.raises(ValueError, match="`prevalence` must be a number strictly between"):
        pr.iso_slope(1.5)
    with pytest.raises(ValueError, match="`cost_fp` must be a finite number > 0"):
        pr.iso_slope(0.5, cost_fp=0)


# Small random logs: few score levels (ties), optional weights (some zero), two groups.
logs = st.integers(min_value=1, max_value=40).flatmap(
    lambda n: st.fixed_dictionaries(
        {
            "score": st.lists(st.integers(0, 6), min_size=n, max_size=n),
            "label": st.lists(st.booleans(), min_size=n, max_size=n),
            "weight": st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5]), min_size=n, max_size=n),
            "g": st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n),
        }
    )
)


@settings(max_examples=30, deadline=None)
@given(data=logs, weighted=st.booleans(), slope=st.floats(0.0, 20.0))
def test_hull_properties(data, weighted, slope):
    frame = pl.DataFrame(data).with_columns(pl.col("score") / 6)
    weight = "weight" if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # single-class groups are expected
        curve = pr.roc_curve(frame, by="g", weight=weight)
        hull = pr.roc_hull(frame, by="g", weight=weight)
        point = pr.optimal_point(frame, by="g", weight=weight, slope=slope)
    for (g,), part in curve.group_by("g", maintain_order=True):
        vertices = hull.filter(pl.col("g") == g)
        chosen = point.filter(pl.col("g") == g).row(0, named=True)
        if part["fpr"].null_count() or part["tpr"].null_count():
            assert chosen["threshold"] is None
            continue
        # Vertices are curve points, from (0, 0) to (1, 1): the monotone chain's.
        assert set(vertices["threshold"]) <= set(part["threshold"])
        reference = monotone_chain_upper(list(zip(part["fpr"], part["tpr"], part["threshold"])))
        assert vertices["threshold"].to_list() == [p[2] for p in reference]
        x, y = vertices["fpr"].to_numpy(), vertices["tpr"].to_numpy()
        assert (x[0], y[0], x[-1], y[-1]) == (0.0, 0.0, 1.0, 1.0)
        # Concave: the hull turns right at every inner vertex.
        cross = (x[1:-1] - x[:-2]) * (y[2:] - y[:-2]) - (y[1:-1] - y[:-2]) * (x[2:] - x[:-2])
        assert np.all(cross < 0)
        # Dominates the curve: no point lies above the hull polyline.
        px, py = part["fpr"].to_numpy(), part["tpr"].to_numpy()
        for fx, fy in zip(px, py):
            if fx == 0.0:
                assert fy <= y[x == 0.0].max() + 1e-12
            else:
                assert fy <= np.interp(fx, x, y) + 1e-12
        # The optimal point maximises tpr - m * fpr over every curve point, on the hull.
        gain = py - slope * px
        assert chosen["tpr"] - slope * chosen["fpr"] >= gain.max() - 1e-9
        assert chosen["threshold"] in set(vertices["threshold"])
