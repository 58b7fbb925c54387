"""Properties of the bounds that engine curves carry (docs/warehouse.md, "bound
columns"), checked against the exact Polars result on the same rows.

A DuckDB relation whose group holds more than CURVE_POINTS distinct scores comes back
as exact points at equal-width bucket edges plus bound columns. CURVE_POINTS is set to
3-8 here, so a few rows make buckets; the rows are drawn with heavy ties, +-inf, tiny
and huge magnitudes (a range beyond Float64), both directions, weights and counts with
zeros, a null group and one-class groups.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from tests._engine_buckets import duckdb_relation as relation
from tests._engine_buckets import edges_on_full_curve, quietly, stretches

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install '.[duckdb]')")
pytest.importorskip("pyarrow", reason="pyarrow (DuckDB -> Polars) is not installed")

TOL = 1e-9
EXAMPLES = settings(
    max_examples=30,
    # No shrinking: each example opens a DuckDB connection, and shrinking a failure
    # ran past five minutes; the failing example is printed unshrunk.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Scores of every kind the buckets meet: +-inf (buckets of their own), signed zeros
# (one score), subnormal-sized and huge magnitudes (a range past Float64's: one bucket).
SPECIAL = [
    -math.inf,
    -1.7e308,
    -1e300,
    -1.0,
    -1e-300,
    -0.0,
    0.0,
    5e-324,
    1e-300,
    0.25,
    0.5,
    1.0,
    2.0,
    1e300,
    1.7e308,
    math.inf,
]
SCORE = st.one_of(
    st.sampled_from(SPECIAL),
    st.floats(-4.0, 4.0, allow_nan=False),
    st.floats(allow_nan=False, allow_infinity=True),
)


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    """A log (few distinct scores drawn on many rows: ties) and the call's options."""
    # Every score of the pool once (enough distinct scores to make buckets), then ties.
    pool = draw(st.lists(SCORE, min_size=4, max_size=20, unique=True))
    ties = draw(st.lists(st.integers(0, len(pool) - 1), max_size=30))
    score = pool + [pool[i] for i in ties]
    n = len(score)
    label = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    segment = draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n))
    weight = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5]), min_size=n, max_size=n))
    count = draw(st.lists(st.sampled_from([0, 1, 3]), min_size=n, max_size=n))
    log = pl.DataFrame(
        {
            "segment": pl.Series(segment, dtype=pl.String),
            "score": pl.Series(score, dtype=pl.Float64),
            "label": pl.Series(label, dtype=pl.Int64),
            "w": pl.Series(weight, dtype=pl.Float64),
            "n": pl.Series(count, dtype=pl.Int64),
        }
    )
    kw: dict[str, Any] = {"direction": draw(st.sampled_from(["higher", "lower"]))}
    mass = draw(st.sampled_from([None, "weight", "count"]))
    if mass == "weight":
        kw["weight"] = "w"
    elif mass == "count":
        kw["count"] = "n"
    by = draw(st.sampled_from([["segment"], []]))
    if by:
        kw["by"] = "segment"
    return {"log": log, "kw": kw, "by": by, "budget": draw(st.integers(3, 6))}


@contextmanager
def budget(points: int) -> Iterator[None]:
    """CURVE_POINTS set to ``points`` (hypothesis runs many examples per test call,
    so a function-scoped monkeypatch does not fit)."""
    from polars_roc.core import engine_buckets

    kept = engine_buckets.CURVE_POINTS
    engine_buckets.CURVE_POINTS = points
    try:
        yield
    finally:
        engine_buckets.CURVE_POINTS = kept


def engine_and_exact(
    case: dict[str, Any], view: Callable[..., pl.DataFrame], **extra: Any
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``view`` of the DuckDB relation (buckets) and of the Polars frame (exact)."""
    log, kw = case["log"], {**case["kw"], **extra}
    with budget(case["budget"]):
        engine = quietly(lambda: view(relation(log), **kw))
    return engine, quietly(lambda: view(log, **kw))


def same_as_exact(engine: pl.DataFrame, exact: pl.DataFrame) -> None:
    """No group was cut: the engine's frame is the exact one."""
    event("exact")
    assert_frame_equal(engine, exact, check_exact=False, rel_tol=TOL, abs_tol=TOL)


def group_count(frame: pl.DataFrame, by: list[str]) -> int:
    return frame.select(pl.struct(by).n_unique()).item() if by else min(frame.height, 1)


def one_per_key(full: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """``full`` with one point per (group, threshold, something predicted positive),
    the key of tests/_engine_buckets.py: a score of no weight at a group's start
    threshold (``-inf`` read lower) repeats the start point there."""
    some = ((pl.col("tp") + pl.col("fp")) > 0).alias("__some")
    return (
        full.with_columns(some)
        .unique([*by, "threshold", "__some"], keep="first", maintain_order=True)
        .drop("__some")
    )


def placed_everywhere(
    full: pl.DataFrame, engine: pl.DataFrame, placed: pl.DataFrame, by: list[str]
) -> None:
    """The engine's frame has the full curve's groups, and its points span each whole
    curve: every point of the full curve lies in some stretch, but for a group's start
    and points after the last edge that repeat it (scores of no weight or count, which
    hold no bucket)."""
    g = by or ["__g"]
    mark = [] if by else [pl.lit(1).alias("__g")]
    full, engine, placed = (f.with_columns(*mark) for f in (full, engine, placed))
    groups = [f.select(g).unique().sort(g, nulls_last=True) for f in (full, engine)]
    assert_frame_equal(groups[0], groups[1])
    tp, fp = pl.col("tp"), pl.col("fp")
    last = engine.group_by(g).agg(tp.last().alias("__tp"), fp.last().alias("__fp"))

    def inner(frame: pl.DataFrame) -> int:
        moved = ((tp - pl.col("__tp")).abs() > TOL) | ((fp - pl.col("__fp")).abs() > TOL)
        joined = frame.join(last, on=g, nulls_equal=True)
        return joined.filter((tp + fp > 0) & moved).height

    assert inner(placed) == inner(full)


@EXAMPLES
@given(case=cases(), drop_intermediate=st.booleans())
def test_pr_bounds_hold_every_exact_point(case: dict[str, Any], drop_intermediate: bool) -> None:
    by = case["by"]
    engine, exact = engine_and_exact(case, pr.pr_curve, drop_intermediate=drop_intermediate)
    if "precision_low" not in engine.columns:
        return same_as_exact(engine, exact)
    full = one_per_key(quietly(lambda: pr.pr_curve(case["log"], **case["kw"])), by)
    edges_on_full_curve(full, engine, by, ["tp", "fp", "precision", "recall"], TOL)
    placed = stretches(full, engine, by, ["precision_low", "precision_high"])
    placed_everywhere(full, engine, placed, by)
    p = pl.col("precision")
    outside = placed.filter(
        (p < pl.col("precision_low_open") - TOL) | (p > pl.col("precision_high_open") + TOL)
    )
    assert outside.height == 0, outside


@EXAMPLES
@given(case=cases(), drop_intermediate=st.booleans())
def test_det_points_lie_in_their_boxes(case: dict[str, Any], drop_intermediate: bool) -> None:
    by, kw = case["by"], case["kw"]
    engine, exact = engine_and_exact(case, pr.det_curve, drop_intermediate=drop_intermediate)
    if "hidden_points" not in engine.columns:
        return same_as_exact(engine, exact)
    # The DET curve leaves out scores of weight 0 (scikit-learn): so does the reference.
    held = case["log"].filter(pl.col("w") > 0) if "weight" in kw else case["log"]
    full = one_per_key(quietly(lambda: pr.roc_curve(held, **kw)), by)
    full = full.with_columns(fnr=1.0 - pl.col("tpr"))
    edges_on_full_curve(full, engine, by, ["fpr", "fnr"], TOL)
    columns = ["fpr", "fnr", "hidden_points"]
    placed = stretches(full, engine, by, columns).drop_nulls(["fpr", "fnr"])
    f, n = pl.col("fpr"), pl.col("fnr")
    outside = placed.filter(
        (f < pl.col("fpr_open") - TOL)
        | (f > pl.col("fpr_close") + TOL)
        | (n < pl.col("fnr_close") - TOL)
        | (n > pl.col("fnr_open") + TOL)
    )
    assert outside.height == 0, outside
    if not drop_intermediate:
        # Nothing hidden: the full curve goes straight to the next point.
        hidden = placed.filter(
            ~pl.col("hidden_points_open")
            & (((f - pl.col("fpr_close")).abs() > TOL) | ((n - pl.col("fnr_close")).abs() > TOL))
        )
        assert hidden.height == 0, hidden


@EXAMPLES
@given(case=cases(), drop_intermediate=st.booleans())
def test_roc_curve_area_bound(case: dict[str, Any], drop_intermediate: bool) -> None:
    """Exact points in their boxes, on the segment where area_bound is 0, and the exact
    AUC within the trapezoids' area +- the summed area_bound."""
    by, kw = case["by"], case["kw"]
    engine, exact = engine_and_exact(case, pr.roc_curve, drop_intermediate=drop_intermediate)
    if "area_bound" not in engine.columns:
        return same_as_exact(engine, exact)
    full = one_per_key(quietly(lambda: pr.roc_curve(case["log"], **kw)), by)
    edges_on_full_curve(full, engine, by, ["tp", "fp", "tpr", "fpr"], TOL)
    placed = stretches(full, engine, by, ["fpr", "tpr", "area_bound"])
    placed_everywhere(full, engine, placed, by)
    f, t = pl.col("fpr"), pl.col("tpr")
    f0, t0, f1, t1 = (pl.col(c) for c in ("fpr_open", "tpr_open", "fpr_close", "tpr_close"))
    outside = placed.filter((f < f0 - TOL) | (f > f1 + TOL) | (t < t0 - TOL) | (t > t1 + TOL))
    assert outside.height == 0, outside
    off_line = placed.filter(
        (pl.col("area_bound_open") == 0)
        & (((f - f0) * (t1 - t0) - (t - t0) * (f1 - f0)).abs() > TOL)
    )
    assert off_line.height == 0, off_line
    group = by or [pl.lit(1)]
    trapezoid = ((f - f.shift(1)) * (t + t.shift(1)) / 2).over(group)
    areas = (
        engine.with_columns(trapezoid.alias("__t"))
        .group_by(by or pl.lit(1))
        .agg(pl.col("__t").sum(), pl.col("area_bound").sum())
    )
    auc = quietly(lambda: pr.roc_auc(case["log"], **kw))
    if by:
        areas = areas.join(auc, on=by, nulls_equal=True)
    else:
        areas = areas.with_columns(auc=auc["auc"][0])
    known = areas.filter(pl.col("auc").is_not_null())
    gap = (pl.col("__t") - pl.col("auc")).abs()
    wrong = known.filter(gap > pl.col("area_bound") + TOL)
    assert wrong.height == 0, wrong


def hull_height(xs: list[float], ys: list[float], x: float) -> float | None:
    """The highest point of the polyline through (xs, ys) at x (vertical edges: top);
    None where x lies outside it."""
    found = [
        y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        for x0, y0, x1, y1 in zip(xs, ys, xs[1:], ys[1:], strict=False)
        if x0 <= x <= x1
    ]
    found += [y for xv, y in zip(xs, ys, strict=True) if xv == x]
    return max(found) if found else None


def per_group(frame: pl.DataFrame, by: list[str]) -> Iterator[tuple[Any, pl.DataFrame]]:
    if not by:
        if frame.height:
            yield None, frame
        return
    for (key,), part in frame.group_by(by):
        yield key, part


def of_group(frame: pl.DataFrame, by: list[str], key: Any) -> pl.DataFrame:
    return frame.filter(pl.col(by[0]).eq_missing(key)) if by else frame


@EXAMPLES
@given(case=cases())
def test_roc_hull_gap_covers_the_exact_hull(case: dict[str, Any]) -> None:
    by, kw = case["by"], case["kw"]
    engine, exact = engine_and_exact(case, pr.roc_hull)
    if "tpr_gap" not in engine.columns:
        return same_as_exact(engine, exact)
    assert engine.columns[:-1] == exact.columns
    full = one_per_key(quietly(lambda: pr.roc_curve(case["log"], **kw)), by)
    edges_on_full_curve(full, engine, by, ["tp", "fp"], TOL)
    for key, hull in per_group(engine, by):
        truth = of_group(exact, by, key)
        if hull["tpr"].null_count() or hull["fpr"].null_count():
            assert hull["tpr_gap"].null_count() == hull.height
            continue
        xs, ys, gaps = hull["fpr"].to_list(), hull["tpr"].to_list(), hull["tpr_gap"].to_list()
        tx, ty = truth["fpr"].to_list(), truth["tpr"].to_list()
        assert gaps[-1] is None and all(g is not None and g >= 0 for g in gaps[:-1])
        assert xs[0] == 0.0 and xs[-1] == 1.0 and tx[0] == 0.0 and tx[-1] == 1.0
        for x, y in zip(xs, ys, strict=True):  # under the exact hull
            height = hull_height(tx, ty, x)
            assert height is not None and y <= height + TOL, (x, y, tx, ty)
        for x, y in zip(tx, ty, strict=True):  # within the gap over its edge
            over = [
                hull_height(xs[i : i + 2], ys[i : i + 2], x) + gaps[i]
                for i in range(len(xs) - 1)
                if xs[i] <= x <= xs[i + 1]
            ]
            assert over and y <= max(over) + TOL, (x, y, xs, ys, gaps)


@EXAMPLES
@given(case=cases())
def test_hull_auc_and_auc_within_their_bounds(case: dict[str, Any]) -> None:
    by, kw = case["by"], case["kw"]
    engine, exact = engine_and_exact(case, pr.hull_auc)
    if "auc_hull_bound" not in engine.columns:
        return same_as_exact(engine, exact)
    auc = quietly(lambda: pr.roc_auc(case["log"], **kw)).select(*by, pl.col("auc").alias("auc_x"))
    exact = exact.select(*by, pl.col("auc_hull").alias("hull_x"), "n_pos", "n_neg")
    if by:
        joined = engine.join(exact, on=by, nulls_equal=True, suffix="_x").join(
            auc, on=by, nulls_equal=True
        )
    else:
        joined = pl.concat(
            [engine, exact.rename({"n_pos": "n_pos_x", "n_neg": "n_neg_x"}), auc], how="horizontal"
        )
    assert joined.height == engine.height == exact.height
    for column in ("n_pos", "n_neg"):
        assert ((joined[column] - joined[f"{column}_x"]).abs() <= TOL).all()
    hull_gap = (pl.col("auc_hull") - pl.col("hull_x")).abs()
    auc_gap = (pl.col("auc") - pl.col("auc_x")).abs()
    wrong = joined.filter(
        (pl.col("hull_x").is_null() != pl.col("auc_hull").is_null())
        | (hull_gap > pl.col("auc_hull_bound") + TOL)
        | (auc_gap > pl.col("auc_bound") + TOL)
    )
    assert wrong.height == 0, wrong


def at(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """A curve point's place ``[group, tp, fp]`` (its threshold is a label: a corner
    repeated over scores of no weight stands at the lowest, which holds no bucket)."""
    return frame.select(
        *(by or [pl.lit(1).alias("__g")]),
        pl.col("tp").cast(pl.Float64).round(9),
        pl.col("fp").cast(pl.Float64).round(9),
    )


@EXAMPLES
@given(case=cases())
def test_local_maxima_every_corner_returned_or_flagged(case: dict[str, Any]) -> None:
    by, kw = case["by"], case["kw"]
    engine, corners = engine_and_exact(case, pr.roc_curve, local_maxima=True)
    if "corner_known" not in engine.columns:
        return same_as_exact(engine, corners)
    full = one_per_key(quietly(lambda: pr.roc_curve(case["log"], **kw)), by)
    edges_on_full_curve(full, engine, by, ["tp", "fp"], TOL)
    key = [*(by or ["__g"]), "tp", "fp"]
    # corner_known points are corners of the exact curve.
    wrong = at(engine.filter("corner_known"), by).join(
        at(corners, by), on=key, how="anti", nulls_equal=True
    )
    assert wrong.height == 0, wrong
    # Every exact corner is returned, or lies in a stretch whose area_bound is positive
    # (but pROC's bottom-edge points, tp = 0, which the buckets may hide).
    placed = stretches(full, engine, by, ["area_bound"])
    missed = at(corners, by).join(at(engine, by), on=key, how="anti", nulls_equal=True)
    unseen = (
        placed.with_columns(at(placed, by))
        .join(missed, on=key, how="semi", nulls_equal=True)
        .filter((pl.col("tp") > 0) & ~(pl.col("area_bound_open") > 0))
    )
    assert unseen.height == 0, (unseen, missed)
    # A corner at the start of the curve (tp = fp = 0) is always returned.
    assert missed.filter((pl.col("tp") == 0) & (pl.col("fp") == 0)).height == 0
