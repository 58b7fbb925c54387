"""roc_curve(local_maxima=True): pROC's coords(x = "local maximas")."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr

ASAH = pl.read_csv(Path(__file__).parent / "fixtures" / "asah.csv")


def proc_local_maxima(sp: list[float], se: list[float]) -> list[bool]:
    """pROC's rule, written out as its roc.utils reads it: points in increasing
    specificity (lowest threshold first), repeated (sp, se) pairs counted once."""
    seen, keep = set(), []
    for pair in zip(sp, se, strict=True):
        keep.append(pair not in seen)
        seen.add(pair)
    sp_u = [x for x, k in zip(sp, keep, strict=True) if k]
    se_u = [x for x, k in zip(se, keep, strict=True) if k]
    n = len(sp_u)
    if n == 1:
        flags = [True]
    elif n == 2:
        flags = [se_u[0] > se_u[1], sp_u[1] > sp_u[0]]
    else:
        flags = [se_u[0] > se_u[1]]
        for i in range(1, n - 1):
            flags.append(
                (sp_u[i] > sp_u[i - 1] and se_u[i] > se_u[i + 1])
                or (sp_u[i] > sp_u[i - 1] and se_u[i] == 0)
                or (se_u[i] > se_u[i - 1] and sp_u[i] == 1)
            )
        flags.append(sp_u[-1] > sp_u[-2])
    it = iter(flags)
    return [next(it) if k else False for k in keep]


def brute_force(frame: pl.DataFrame, weight: str | None = None) -> list[float]:
    curve = pr.roc_curve(frame, weight=weight).reverse()  # lowest threshold first
    flags = proc_local_maxima(curve["tn"].to_list(), curve["tp"].to_list())
    return sorted((t for t, f in zip(curve["threshold"], flags, strict=True) if f), reverse=True)


def test_asah_s100b_as_proc() -> None:
    # pROC's test-coords.R: coords(r.s100b, "local maximas") at these midpoint thresholds;
    # pROC's point at a midpoint is ours at the next distinct score above it (-Inf: the
    # lowest score).
    proc = [
        -np.inf,
        0.065,
        0.075,
        0.085,
        0.095,
        0.105,
        0.115,
        0.135,
        0.155,
        0.205,
        0.245,
        0.29,
        0.325,
        0.345,
        0.395,
        0.435,
        0.475,
        0.485,
        0.51,
    ]
    scores = np.unique(ASAH["s100b"].to_numpy())
    expected = sorted((scores[scores > t].min() for t in proc), reverse=True)
    got = pr.roc_curve(ASAH, score="s100b", label="outcome", local_maxima=True)
    assert got["threshold"].to_list() == expected
    full = pr.roc_curve(ASAH, score="s100b", label="outcome")
    assert_frame_equal(got, full.filter(pl.col("threshold").is_in(expected)))


def test_small_curve_by_hand() -> None:
    df = pl.DataFrame({"score": [0.9, 0.8, 0.8, 0.3, 0.2, 0.1], "label": [1, 1, 0, 0, 1, 0]})
    got = pr.roc_curve(df, local_maxima=True)
    # (tp, fp) along the curve: (0,0) (1,0) (2,1) (2,2) (3,2) (3,3); corners where tp
    # has just grown and fp grows next.
    assert got.select("threshold", "tp", "fp").rows() == [(0.9, 1, 0), (0.8, 2, 1), (0.2, 3, 2)]


def test_bottom_edge_points_as_proc() -> None:
    # Two top negatives: pROC keeps the bottom-edge points whose next step adds fp.
    df = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.6], "label": [0, 0, 1, 0]})
    got = pr.roc_curve(df, local_maxima=True)
    assert got.select("tp", "fp").rows() == [(0, 0), (0, 1), (1, 2)]
    assert got["threshold"].to_list() == brute_force(df)


@settings(max_examples=80, deadline=None)
@given(
    labels=st.lists(st.integers(0, 1), min_size=1, max_size=30),
    data=st.data(),
)
def test_matches_proc_rule(labels: list[int], data: st.DataObject) -> None:
    scores = data.draw(st.lists(st.integers(0, 6), min_size=len(labels), max_size=len(labels)))
    df = pl.DataFrame({"score": [s / 2 for s in scores], "label": labels})
    with pytest.warns(UserWarning) if len(set(labels)) == 1 else nullcontext():
        got = pr.roc_curve(df, local_maxima=True)["threshold"].to_list()
    with pytest.warns(UserWarning) if len(set(labels)) == 1 else nullcontext():
        expected = brute_force(df)
    assert got == expected


def test_weighted_zero_weight_repeats_count_once() -> None:
    df = pl.DataFrame(
        {
            "score": [0.9, 0.8, 0.7, 0.6, 0.5],
            "label": [1, 0, 1, 1, 0],
            "w": [1.0, 2.0, 0.0, 1.5, 1.0],  # 0.7 repeats the 0.8 point
        }
    )
    got = pr.roc_curve(df, weight="w", local_maxima=True)["threshold"].to_list()
    assert got == brute_force(df, weight="w")


def test_grouped_lazy_lower_and_counted() -> None:
    data = ASAH.with_columns(group=pl.int_range(pl.len()) % 3)
    options = {"score": "ndka", "label": "outcome", "local_maxima": True}
    grouped = pr.roc_curve(data, by="group", **options)
    for g in range(3):
        alone = pr.roc_curve(data.filter(group=g), **options)
        assert_frame_equal(grouped.filter(group=g).drop("group"), alone)
    lazy = data.lazy().roc.curve(by="group", **options)
    assert_frame_equal(lazy.collect(), grouped)
    lower = pr.roc_curve(
        data.with_columns(-pl.col("ndka")), by="group", direction="lower", **options
    )
    assert_frame_equal(lower.with_columns(-pl.col("threshold")), grouped)
    counted = data.group_by("group", "ndka", "outcome").len("n")
    assert_frame_equal(
        pr.roc_curve(counted, by="group", count="n", **options), grouped, check_dtypes=False
    )


def test_not_with_drop_intermediate() -> None:
    with pytest.raises(ValueError, match=r"local_maxima=True keeps the curve's corners"):
        pr.roc_curve(ASAH, score="ndka", label="outcome", local_maxima=True, drop_intermediate=True)
