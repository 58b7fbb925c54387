"""The other curves of engine frames: pr_curve, det_curve, hull_auc and the ROC curve's
local maxima of a DuckDB relation, against the Polars path on the same rows.

A group of at most CURVE_POINTS distinct scores comes back exact (the same frame as on
Polars); a larger one as the exact points at its bucket edges with what bounds the
curve between them. CURVE_POINTS is set low so that a few hundred rows make buckets.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from tests._engine_buckets import duckdb_relation as relation
from tests._engine_buckets import edges_on_full_curve, quietly, stretches

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install '.[duckdb]')")
pytest.importorskip("pyarrow", reason="pyarrow (DuckDB -> Polars) is not installed")

BUDGET = 16


@pytest.fixture(autouse=True)
def few_points(monkeypatch: pytest.MonkeyPatch) -> None:
    from polars_roc.core import engine_buckets

    monkeypatch.setattr(engine_buckets, "CURVE_POINTS", BUDGET)


def log_of(seed: int, n: int = 500) -> pl.DataFrame:
    """Continuous scores with ties and +-inf, a null segment, a one-class segment of
    two scores, a mixed segment of few scores (exact), null scores, weights with zeros,
    counts."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    score = rng.normal(label * 0.7, 1.0)
    score[: n // 10] = np.round(score[: n // 10], 1)  # ties
    score[3], score[4], score[5] = np.inf, -np.inf, np.inf
    log = pl.DataFrame(
        {
            "segment": pl.Series(rng.choice(["a", "b", None], size=n).tolist(), dtype=pl.String),
            "score": score,
            "label": label,
            "w": np.where(rng.random(n) < 0.1, 0.0, rng.gamma(2.0, 0.7, size=n)),
            "n": rng.integers(1, 4, size=n),
        }
    ).with_columns(
        # Zero counts below the top of the curve; null scores for nulls="drop".
        n=pl.when(pl.col("score") < -0.5).then(0).otherwise("n"),
        score=pl.when(pl.int_range(pl.len()) % 97 == 7).then(None).otherwise("score"),
    )
    small = pl.DataFrame(
        {
            "segment": ["solo", "solo", "few", "few", "few", "few"],
            "score": [0.1, 0.3, 0.2, 0.2, 0.5, 0.9],
            "label": [0, 0, 1, 0, 0, 1],
            "w": [0.5, 1.5, 1.0, 2.0, 0.5, 1.0],
            "n": [1, 2, 1, 3, 1, 2],
        }
    )
    return pl.concat([log, small], how="vertical_relaxed")


OPTIONS = [
    {"nulls": "drop"},
    {"nulls": "drop", "direction": "lower"},
    {"nulls": "drop", "weight": "w"},
    {"nulls": "drop", "count": "n"},
]
IDS = ["plain", "lower", "weight", "count"]
TOL = 1e-9


def both(view: Callable[..., pl.DataFrame], log: pl.DataFrame, **kw: object):
    engine = quietly(lambda: view(relation(log), by="segment", **kw))
    polars = quietly(lambda: view(log, by="segment", **kw))
    return engine, polars


def check_sizes(result: pl.DataFrame) -> None:
    sizes = result.group_by("segment").len()
    assert sizes["len"].max() <= BUDGET + 3


def exact_groups(result: pl.DataFrame, expected: pl.DataFrame, extra: list[str]) -> None:
    """The small groups come back whole: their points equal the Polars path's."""
    small = pl.col("segment").is_in(["solo", "few"])
    assert_frame_equal(
        result.filter(small).drop(extra),
        expected.filter(small),
        check_exact=False,
        rel_tol=TOL,
        abs_tol=TOL,
    )


def test_few_distinct_scores_come_back_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most CURVE_POINTS distinct scores per group: every view equals the Polars
    frame, without the bound columns (bit for bit unweighted)."""
    from polars_roc.core import engine_buckets

    monkeypatch.setattr(engine_buckets, "CURVE_POINTS", 100)
    log = log_of(1).with_columns(pl.col("score").round(1))
    for view in (
        lambda f, **kw: pr.pr_curve(f, **kw),
        lambda f, **kw: pr.pr_curve(f, drop_intermediate=True, **kw),
        lambda f, **kw: pr.det_curve(f, **kw),
        lambda f, **kw: pr.hull_auc(f, **kw),
        lambda f, **kw: pr.roc_hull(f, **kw),
        lambda f, **kw: pr.roc_curve(f, local_maxima=True, **kw),
    ):
        for kw in OPTIONS:
            engine, polars = both(view, log.filter(pl.col("score").is_finite()), **kw)
            # The engine round scores differently from Polars at no point: exact.
            exact = "weight" not in kw
            assert_frame_equal(engine, polars, check_exact=exact, rel_tol=TOL, abs_tol=TOL)


@pytest.mark.parametrize("kw", OPTIONS, ids=IDS)
@pytest.mark.parametrize("drop_intermediate", [False, True])
def test_pr_curve_in_buckets_bounds_the_full_curve(
    kw: dict[str, object], drop_intermediate: bool
) -> None:
    log = log_of(2)
    engine, _ = both(pr.pr_curve, log, drop_intermediate=drop_intermediate, **kw)
    full = quietly(lambda: pr.pr_curve(log, by="segment", **kw))  # every point
    assert engine.columns == [*full.columns, "precision_low", "precision_high"]
    check_sizes(engine)
    edges_on_full_curve(full, engine, ["segment"], ["tp", "fp", "precision", "recall"], TOL)
    if not drop_intermediate:
        exact_groups(engine, full, ["precision_low", "precision_high"])
    # Every point of the full curve lies in its stretch's precision range.
    placed = stretches(full, engine, ["segment"], ["precision_low", "precision_high"])
    assert placed.height > 0.9 * full.height - 8 * 3
    low, high = pl.col("precision_low_open"), pl.col("precision_high_open")
    inside = placed.select(
        ((low - TOL <= pl.col("precision")) & (pl.col("precision") <= high + TOL)).all()
    )
    assert inside.item()
    # The range is a single value where the next point is the next of the full curve.
    single = engine.filter(pl.col("precision_low") == pl.col("precision_high"))
    assert single.height > 0
    wide = engine.filter(pl.col("precision_low") < pl.col("precision_high"))
    assert wide.height > 0
    # Null only at each group's last point.
    last = pl.int_range(pl.len()).over("segment") == pl.len().over("segment") - 1
    assert_frame_equal(
        engine.select(pl.col("precision_low").is_null()),
        engine.select(last.alias("precision_low")),
    )


def test_pr_bounds_at_zero_denominators() -> None:
    """From the start point (0, 0) into a bucket of positives only: every point there
    has precision 1 (0 / 0 reads as 1 for the low end); into a bucket of negatives
    only, precision 0 (0 / 0 reads as 0 for the high end)."""
    rng = np.random.default_rng(5)
    top = pl.DataFrame({"score": rng.uniform(10, 11, 40), "label": [1] * 40})
    rest = pl.DataFrame({"score": rng.uniform(0, 1, 60), "label": rng.integers(0, 2, 60)})
    log = pl.concat([top, rest]).with_columns(segment=pl.lit("s"))
    for frame, value in ((log, 1.0), (log.with_columns(label=1 - pl.col("label")), 0.0)):
        engine, full = both(pr.pr_curve, frame)
        first = engine.row(0, named=True)
        assert (first["precision_low"], first["precision_high"]) == (value, value)
        columns = ["precision_low", "precision_high", "threshold"]
        placed = stretches(full, engine, ["segment"], columns)
        opened = placed.filter(pl.col("threshold_open") == float("inf"))
        assert opened.height > 1
        assert (opened["precision"] == value).all()


@pytest.mark.parametrize("kw", OPTIONS, ids=IDS)
def test_det_curve_in_buckets_bounds_the_full_curve(kw: dict[str, object]) -> None:
    log = log_of(3)
    engine, _ = both(pr.det_curve, log, **kw)
    assert engine.columns == ["segment", "threshold", "fpr", "fnr", "hidden_points"]
    check_sizes(engine)
    # The points are the full ROC curve's at their thresholds; the full curve between
    # two points lies in their box, and passes through no point of its own where
    # hidden_points is false.
    # The DET curve leaves out scores of weight 0, as scikit-learn: so does the reference.
    held = log.filter(pl.col("w") > 0) if "weight" in kw else log
    roc = quietly(lambda: pr.roc_curve(held, by="segment", **kw)).with_columns(
        fnr=1.0 - pl.col("tpr")
    )
    edges_on_full_curve(roc, engine, ["segment"], ["fpr", "fnr"], TOL)
    placed = stretches(roc, engine, ["segment"], ["fpr", "fnr", "hidden_points", "threshold"])
    f, n = pl.col("fpr"), pl.col("fnr")
    inside = placed.drop_nulls(["fpr", "fnr"]).select(
        (
            (pl.col("fpr_open") - TOL <= f)
            & (f <= pl.col("fpr_close") + TOL)
            & (pl.col("fnr_close") - TOL <= n)
            & (n <= pl.col("fnr_open") + TOL)
        ).all()
    )
    assert inside.item()
    per_stretch = placed.group_by("segment", "__n").agg(
        pl.len(), pl.col("hidden_points_open").first()
    )
    assert per_stretch.filter(pl.col("hidden_points_open")).height > 0
    assert (per_stretch.filter(~pl.col("hidden_points_open"))["len"] == 1).all()
    assert (per_stretch.filter(pl.col("hidden_points_open"))["len"] > 1).all()
    # The curve spans the full DET curve: from a point with fpr = 0 to one with fnr = 0.
    ends = engine.filter(pl.col("segment").is_in(["a", "b"])).group_by("segment")
    assert (ends.agg(pl.col("fpr").first())["fpr"] == 0).all()
    assert (ends.agg(pl.col("fnr").last())["fnr"] == 0).all()


@pytest.mark.parametrize("kw", OPTIONS, ids=IDS)
def test_hull_auc_in_buckets_bounds_the_exact_hull(kw: dict[str, object]) -> None:
    log = log_of(4)
    engine, exact = both(pr.hull_auc, log, **kw)
    assert engine.columns == [
        "segment",
        "auc_hull",
        "auc_hull_bound",
        "auc",
        "auc_bound",
        "n_pos",
        "n_neg",
    ]
    joined = engine.join(exact, on="segment", nulls_equal=True, suffix="_exact")
    assert ((joined["n_pos"] - joined["n_pos_exact"]).abs() <= TOL).all()
    both_classes = joined.filter(pl.col("auc").is_not_null())
    for area in ("auc_hull", "auc"):
        gap = (pl.col(area) - pl.col(f"{area}_exact")).abs()
        assert both_classes.select((gap <= pl.col(f"{area}_bound") + TOL).all()).item()
    # Buckets of several scores widen the bounds; the small exact group has none.
    large = both_classes.filter(pl.col("segment").is_in(["a", "b"]) | pl.col("segment").is_null())
    assert (large["auc_hull_bound"] > 0).any()
    assert (large["auc_hull_bound"] < 0.1).all()
    few = joined.filter(pl.col("segment") == "few").row(0, named=True)
    assert few["auc_hull_bound"] == 0.0 and few["auc_bound"] == 0.0
    assert abs(few["auc_hull"] - few["auc_hull_exact"]) <= TOL
    solo = joined.filter(pl.col("segment") == "solo").row(0, named=True)
    assert solo["auc_hull"] is None and solo["auc_hull_bound"] is None
    # auc and auc_bound are roc_auc's with the same buckets.
    binned = quietly(lambda: pr.roc_auc(relation(log), by="segment", bins=BUDGET, **kw))
    assert_frame_equal(
        engine.select("segment", "auc", "auc_bound").sort("segment", nulls_last=True),
        binned.select("segment", "auc", "auc_bound").sort("segment", nulls_last=True),
        check_exact=False,
        rel_tol=1e-12,
    )


def test_hull_auc_bound_without_groups() -> None:
    log = log_of(5).drop("segment")
    engine = quietly(lambda: pr.hull_auc(relation(log), nulls="drop"))
    exact = quietly(lambda: pr.hull_auc(log, nulls="drop"))
    row, truth = engine.row(0, named=True), exact.row(0, named=True)
    assert 0 < row["auc_hull_bound"] < 0.1
    assert abs(row["auc_hull"] - truth["auc_hull"]) <= row["auc_hull_bound"]


def full_corners(log: pl.DataFrame, **kw: object) -> pl.DataFrame:
    return quietly(lambda: pr.roc_curve(log, by="segment", local_maxima=True, **kw))


def keyed(frame: pl.DataFrame) -> pl.DataFrame:
    """``[segment, threshold, some]``: a curve point's key (a group's start and a
    ``+-inf`` score share the threshold; weighted counts differ in their last bits)."""
    return frame.select("segment", "threshold", ((pl.col("tp") + pl.col("fp")) > 0).alias("some"))


@pytest.mark.parametrize("kw", OPTIONS, ids=IDS)
def test_local_maxima_in_buckets(kw: dict[str, object]) -> None:
    """The corners returned are points of the full curve; every corner of the full
    curve at a bucket edge is returned; corner_known marks true corners; corners of the
    full curve strictly between two returned points lie where area_bound > 0, but for
    pROC's points of the bottom edge (tp = 0), which the buckets may hide."""
    log = log_of(6)
    engine = quietly(lambda: pr.roc_curve(relation(log), by="segment", local_maxima=True, **kw))
    full = quietly(lambda: pr.roc_curve(log, by="segment", **kw))
    corners = full_corners(log, **kw)
    assert engine.columns == [*full.columns, "area_bound", "corner_known"]
    edges_on_full_curve(full, engine, ["segment"], ["tp", "fp"], TOL)
    key = ["segment", "threshold", "some"]
    known = keyed(engine.filter("corner_known"))
    assert known.height > 0
    assert known.join(keyed(corners), on=key, how="anti", nulls_equal=True).height == 0
    # Full corners at a bucket edge (a threshold of the bucketed full curve) are kept.
    edges = quietly(lambda: pr.roc_curve(relation(log), by="segment", **kw))
    at_edges = keyed(corners).join(keyed(edges), on=key, how="semi", nulls_equal=True)
    assert at_edges.height > 0
    assert at_edges.join(keyed(engine), on=key, how="anti", nulls_equal=True).height == 0
    # Full corners off the edges lie in a stretch whose area_bound is positive.
    placed = stretches(full, engine, ["segment"], ["area_bound"])
    placed = placed.with_columns(some=(pl.col("tp") + pl.col("fp")) > 0)
    inner = placed.join(keyed(corners), on=key, how="semi", nulls_equal=True).join(
        keyed(engine), on=key, how="anti", nulls_equal=True
    )
    assert inner.height > 0
    assert (inner.filter(pl.col("tp") > 0)["area_bound_open"] > 0).all()
    # Small groups: exact corners; area_bound sums roc_curve's over the stretches.
    exact_groups(engine, corners, ["area_bound", "corner_known"])
    total = engine.group_by("segment").agg(pl.col("area_bound").sum())
    bounds = edges.group_by("segment").agg(pl.col("area_bound").sum())
    joined = total.join(bounds, on="segment", nulls_equal=True, suffix="_all")
    assert ((joined["area_bound"] - joined["area_bound_all"]).abs() <= 1e-12).all()


def hull_height(xs: list[float], ys: list[float], x: float) -> float:
    """The highest point of the polyline through (xs, ys) at x (vertical edges: top)."""
    found = [
        y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        for x0, y0, x1, y1 in zip(xs, ys, xs[1:], ys[1:], strict=False)
        if x0 <= x <= x1
    ]
    found += [y for xv, y in zip(xs, ys, strict=True) if xv == x]
    return max(found)


@pytest.mark.parametrize("kw", OPTIONS, ids=IDS)
@pytest.mark.parametrize("points", ["vertices", "all"])
def test_roc_hull_in_buckets_bounds_the_exact_hull(kw: dict[str, object], points: str) -> None:
    """The hull of the edge points: its vertices are points of the full curve, under
    the exact hull, and the exact hull rises at most tpr_gap above each of its edges."""
    # Rows of segment "c": in each bucket, the positives score above the negatives, so
    # the exact curve runs through the upper-left corners of the boxes (the worst case).
    k = np.repeat(np.arange(40.0), 6)
    corner = pl.DataFrame(
        {
            "segment": "c",
            "score": k + np.tile([0.1, 0.15, 0.2, 0.7, 0.75, 0.8], 40) * (1 + k % 3) / 3,
            "label": np.tile([0, 0, 0, 1, 1, 1], 40),
            "w": 1.0,
            "n": 1,
        }
    )
    log = pl.concat([log_of(7), corner], how="vertical_relaxed")
    engine, exact = both(pr.roc_hull, log, points=points, **kw)
    full = quietly(lambda: pr.roc_curve(log, by="segment", **kw))
    assert engine.columns[-1] == "tpr_gap"
    assert engine.columns[:-1] == exact.columns
    edges_on_full_curve(full, engine, ["segment"], ["tp", "fp"], TOL)
    if points == "all":
        assert (
            engine.filter(~pl.col("vertex"))["tpr_gap"].null_count()
            == engine.filter(~pl.col("vertex")).height
        )
        engine, exact = engine.filter("vertex"), exact.filter("vertex")
    checked = 0
    for (segment,), hull in engine.group_by("segment"):
        truth = exact.filter(pl.col("segment").eq_missing(segment))
        if hull["tpr"].null_count() or hull["fpr"].null_count():
            assert hull["tpr_gap"].null_count() == hull.height
            continue
        xs, ys, gaps = hull["fpr"].to_list(), hull["tpr"].to_list(), hull["tpr_gap"].to_list()
        tx, ty = truth["fpr"].to_list(), truth["tpr"].to_list()
        assert gaps[-1] is None and all(g >= 0 for g in gaps[:-1])
        for x, y in zip(xs, ys, strict=True):  # under the exact hull
            assert y <= hull_height(tx, ty, x) + TOL
        for x, y in zip(tx, ty, strict=True):  # within the gap over its edge
            over = [
                hull_height(xs[i : i + 2], ys[i : i + 2], x) + gaps[i]
                for i in range(len(xs) - 1)
                if xs[i] <= x <= xs[i + 1]
            ]
            assert y <= max(over) + TOL
            checked += 1
        if segment == "few":
            assert gaps[:-1] == [0.0] * (len(gaps) - 1)
        elif segment != "solo" and "direction" not in kw:  # lower: the diagonal, known
            assert max(gaps[:-1]) > 0
    assert checked > (5 if "direction" in kw else 20)


def test_hull_gap_by_hand() -> None:
    """Edge points (0,0), (1,4), (2,8), (4,10) of 10 positives and 4 negatives, the box
    from (1,4) to (2,8) mixed: its corner (1,8) lies above the middle of the lower hull's
    first edge, (0,0) to (2,8) (0.4 in tpr at fpr 0.25), and the upper hull, through it
    to (4,10), passes 1/15 above the vertex (2,8)."""
    from polars_roc.views.hull import _hull_gaps

    def chain(points: list[tuple[int, int]]) -> pl.LazyFrame:
        fp, tp = zip(*points, strict=True)
        return pl.LazyFrame({"tp": tp, "fp": fp, "n_pos": 10, "n_neg": 4})

    lower = chain([(0, 0), (1, 4), (2, 8), (4, 10)])
    upper = chain([(0, 0), (1, 4), (1, 8), (2, 8), (4, 10)])
    gaps = _hull_gaps(lower, upper, []).collect()
    assert gaps["tp"].to_list() == [0, 8, 10]
    assert gaps["tpr_gap"][2] is None
    assert gaps["tpr_gap"][0] == pytest.approx(0.4, abs=1e-15)
    assert gaps["tpr_gap"][1] == pytest.approx(1 / 15, abs=1e-15)
    assert _hull_gaps(lower, lower, []).collect()["tpr_gap"].to_list() == [0.0, 0.0, None]
