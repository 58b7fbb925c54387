"""``prbe``: ROCR's precision-recall break-even points, per group.

References: ROCR's own test (tests/testthat/test-simple.r: 0.8 at 0.69762824) and a port
of ``.performance.precision.recall.break.even.point`` (ROCR 1.0-11) with its root taken
exactly (ROCR's ``uniroot`` has a tolerance of ~1e-4) and the recall at the root
reported where ROCR reports the root finder's residual.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import SingleClassWarning

ROCR_EXAMPLE = pl.DataFrame(
    {
        "score": [
            *(0.02495517, 0.92535646, 0.86251887, 0.80946685, 0.70922858),
            *(0.69762824, 0.50604485, 0.25446810, 0.10837728, 0.07250349),
        ],
        "label": [0, 1, 1, 0, 1, 1, 0, 1, 0, 0],
    }
)


def rocr_prbe(score: np.ndarray, label: np.ndarray) -> list[tuple[float, float, bool]]:
    """ROCR's break-even points, in its order (cutoffs descending)."""
    cutoffs = np.unique(score)  # ascending: ROCR's rev() of its descending cutoffs
    tp = np.array([label[score >= c].sum() for c in cutoffs], dtype=float)
    pp = np.array([(score >= c).sum() for c in cutoffs], dtype=float)
    x, y = tp / label.sum(), tp / pp
    d = x - y
    points = []
    if d[0] == 0:
        points.append((cutoffs[0], x[0], False))
    for i in range(len(cutoffs) - 1):
        if d[i + 1] == 0:
            points.append((cutoffs[i + 1], x[i + 1], False))
        elif d[i] * d[i + 1] < 0:
            share = d[i] / (d[i] - d[i + 1])
            root = cutoffs[i] + share * (cutoffs[i + 1] - cutoffs[i])
            points.append((root, x[i] + share * (x[i + 1] - x[i]), True))
    return points[::-1]


def as_tuples(frame: pl.DataFrame) -> list[tuple[float, float, bool]]:
    return list(frame.select("threshold", "prbe", "interpolated").iter_rows())


def test_rocr_test_simple_reference() -> None:
    got = pr.prbe(ROCR_EXAMPLE)
    assert got.columns == ["threshold", "prbe", "interpolated"]
    assert got.rows() == [(0.69762824, pytest.approx(0.8, abs=1e-15), False)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 12), st.booleans()), min_size=2, max_size=40).filter(
        lambda rows: len({p for _, p in rows}) == 2
    )
)
def test_equals_rocr_port(rows: list[tuple[int, bool]]) -> None:
    score = np.array([s for s, _ in rows], dtype=float) / 4
    label = np.array([int(p) for _, p in rows])
    got = as_tuples(pr.prbe(pl.DataFrame({"score": score, "label": label})))
    expected = rocr_prbe(score, label)
    assert len(got) == len(expected)
    for (t, v, i), (t_ref, v_ref, i_ref) in zip(got, expected, strict=True):
        assert (t, v, i) == (
            pytest.approx(t_ref, abs=1e-12),
            pytest.approx(v_ref, abs=1e-12),
            i_ref,
        )
        assert 0.0 <= v <= 1.0


def test_interpolated_point_by_hand() -> None:
    # Thresholds 0.8 (tp 1, fp 0: recall 1/3, precision 1), 0.4 (tp 2, fp 2: recall 2/3,
    # precision 1/2) and 0.1 (recall 1, precision 3/5): the gaps recall - precision,
    # -2/3 and 1/6, meet 1/5 of the way from 0.4 to 0.8, where recall and precision
    # are both 2/3 - 1/5 * 1/3 = 1/2 + 1/5 * 1/2 = 0.6.
    frame = pl.DataFrame({"score": [0.8, 0.4, 0.4, 0.4, 0.1], "label": [1, 1, 0, 0, 1]})
    assert pr.prbe(frame).rows() == [
        (pytest.approx(0.48, abs=1e-15), pytest.approx(0.6, abs=1e-15), True)
    ]


def test_per_group_lazy_direction_and_counts() -> None:
    frame = pl.concat(
        [
            ROCR_EXAMPLE.with_columns(g=pl.lit("rocr")),
            pl.DataFrame(
                {"score": [0.8, 0.4, 0.4, 0.4, 0.1], "label": [1, 1, 0, 0, 1], "g": ["hand"] * 5}
            ),
        ]
    )
    eager = pr.prbe(frame, by="g")
    assert eager["g"].to_list() == ["hand", "rocr"]
    assert_frame_equal(pr.prbe(frame.lazy(), by="g").collect(), eager)
    assert_frame_equal(frame.roc.prbe(by="g"), eager)
    flipped = pr.prbe(frame.with_columns(-pl.col("score")), by="g", direction="lower")
    assert_frame_equal(flipped.with_columns(-pl.col("threshold")), eager)
    counted = frame.group_by("g", "score", "label").len("n")
    assert_frame_equal(pr.prbe(counted, by="g", count="n"), eager)
    weighted = pr.prbe(counted.with_columns(pl.col("n").cast(pl.Float64)), by="g", weight="n")
    assert_frame_equal(weighted, eager)


def test_group_of_one_class_has_no_row_and_a_warning() -> None:
    frame = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.9, 0.1], "label": [1, 0, 0, 0]}
    )
    with pytest.warns(SingleClassWarning, match="'b'"):
        got = pr.prbe(frame, by="g")
    assert got.rows() == [("a", 0.9, 1.0, False)]
