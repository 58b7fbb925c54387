"""``pr.trapezoid(x, y)``: scikit-learn's ``auc(x, y)`` as an expression, per group."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from polars.exceptions import InvalidOperationError
from sklearn.metrics import auc as sklearn_auc

import polars_roc as pr
from polars_roc.core.compat import POLARS_2

points = st.lists(
    st.tuples(st.integers(-20, 20), st.floats(-5, 5, allow_nan=False)), min_size=2, max_size=30
)


@settings(max_examples=60, deadline=None)
@given(points, st.booleans())
@example([(0, 0.0), (-1, 0.0), (-1, 1.0)], False)  # tied x: 0.5 (0.0 on 1.35 once)
def test_monotone_x_equals_sklearn(rows: list[tuple[int, float]], decreasing: bool) -> None:
    # Ties in x included: scikit-learn keeps the given order, and so does trapezoid.
    order = sorted(range(len(rows)), key=lambda i: rows[i][0], reverse=decreasing)
    x = np.array([rows[i][0] for i in order], dtype=float)
    y = np.array([rows[i][1] for i in order])
    got = pl.DataFrame({"x": x, "y": y}).select(pr.trapezoid("x", "y")).item()
    assert got == pytest.approx(sklearn_auc(x, y), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(points)
def test_unsorted_x_is_sorted_stably(rows: list[tuple[int, float]]) -> None:
    x = np.array([r[0] for r in rows], dtype=float)
    y = np.array([r[1] for r in rows])
    steps = np.diff(x)
    if np.all(steps >= 0) or np.all(steps <= 0):
        return  # monotone: the test above
    order = np.argsort(x, kind="stable")
    got = pl.DataFrame({"x": x, "y": y}).select(pr.trapezoid("x", "y")).item()
    assert got == pytest.approx(sklearn_auc(x[order], y[order]), abs=1e-9)


def test_group_by_agg_and_over_match_roc_auc() -> None:
    df = pl.DataFrame(
        {
            "g": ["a"] * 6 + ["b"] * 5,
            "score": [0.9, 0.8, 0.8, 0.4, 0.3, 0.1, 0.7, 0.6, 0.5, 0.5, 0.2],
            "label": [1, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0],
        }
    )
    curve = pr.roc_curve(df, by="g")
    areas = curve.group_by("g").agg(pr.trapezoid("fpr", "tpr")).sort("g")
    assert areas["trapezoid"].to_list() == pytest.approx(pr.roc_auc(df, by="g")["auc"].to_list())
    over = curve.lazy().with_columns(pr.trapezoid("fpr", "tpr").over("g")).collect()
    assert over.filter(g="b")["trapezoid"].unique().to_list() == pytest.approx(
        [pr.roc_auc(df.filter(g="b"))["auc"].item()]
    )


def test_hand_computed_tie_order_matters() -> None:
    # x = 0, 1, 1, 3: the first y at x = 1 meets the left segment, the last the right one.
    df = pl.DataFrame({"x": [0.0, 1.0, 1.0, 3.0], "y": [0.0, 0.0, 1.0, 0.0]})
    assert df.select(pr.trapezoid("x", "y")).item() == 1.0
    swapped = df.with_columns(y=pl.Series([0.0, 1.0, 0.0, 0.0]))
    assert swapped.select(pr.trapezoid("x", "y")).item() == 0.5


def test_degenerate_groups_are_null() -> None:
    df = pl.DataFrame(
        {
            "g": ["one", "nan", "nan", "inf", "inf", "ok", "ok"],
            "x": [0.0, 0.0, 1.0, 0.0, float("inf"), 0.0, 2.0],
            "y": [1.0, float("nan"), 1.0, 1.0, 1.0, 1.0, 1.0],
        }
    )
    got = df.group_by("g").agg(pr.trapezoid("x", "y")).sort("g")
    assert dict(zip(got["g"], got["trapezoid"], strict=True)) == {
        "inf": None,
        "nan": None,
        "ok": 2.0,
        "one": None,
    }


def test_nulls_raise_or_drop() -> None:
    df = pl.DataFrame({"x": [0.0, None, 1.0, 2.0], "y": [0.0, 5.0, 1.0, 1.0]})
    with pytest.raises(InvalidOperationError, match=r"pr.trapezoid: x has 1 null value"):
        df.select(pr.trapezoid("x", "y"))
    assert df.select(pr.trapezoid("x", "y", nulls="drop")).item() == 1.5


def test_bad_arguments() -> None:
    df = pl.DataFrame({"x": ["a", "b"], "y": [0.0, 1.0]})
    # Refused when the plan is built on Polars 2, when the query runs on Polars 1.x
    # (docs/conventions.md).
    error, dtype = (ValueError, "String") if POLARS_2 else (InvalidOperationError, "str")
    with pytest.raises(error, match=rf"pr.trapezoid: `x` must be numeric, got dtype {dtype}"):
        df.select(pr.trapezoid("x", "y"))
    with pytest.raises(ValueError, match=r"`nulls` must be 'raise' or 'drop', got 'keep'"):
        pr.trapezoid("x", "y", nulls="keep")  # type: ignore[arg-type]
    lengths = pl.DataFrame({"x": [0.0, 1.0, 2.0]})
    with pytest.raises(InvalidOperationError, match=r"different numbers of rows"):
        # A typed literal: Polars 1.35's `pl.dtype_of` cannot resolve an untyped one
        # ("not allowed to instantiate to `unknown`"), which the 1.x dtype check reads.
        lengths.select(pr.trapezoid("x", pl.lit(pl.Series([1.0, 1.0]))))
