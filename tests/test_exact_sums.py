"""Sums by exponent block (core/exact_sums.py): exact terms, any order gives the same bits,
within a rounding per block of math.fsum; the same integers from DuckDB."""

from __future__ import annotations

import math

import duckdb
import narwhals as nw
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_roc as pr
from polars_roc.core import exact_sums
from polars_roc.core.exact_sums import BLOCK, block_sums, split
from polars_roc.exceptions import RocInputError

TERMS = st.floats(allow_nan=False, allow_infinity=False, width=64)
EDGES = [0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1.0, 2.0**16]


def split_rows(F, rows):
    return split(F, rows, {"m": F.col("x")}).rename({"m" + BLOCK: "b"})


def summed(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    per_block = split_rows(pl, frame.lazy()).group_by([*keys, "b"])
    cells = per_block.agg(pl.col("m").sum(), pl.len().alias("terms")).collect()
    return block_sums(cells, keys, {"m": "b"}, terms="terms").sort(keys).collect()


@settings(max_examples=60, deadline=None)
@given(st.lists(TERMS, min_size=1, max_size=40))
def test_each_term_is_its_block_and_integer_exactly(terms: list[float]) -> None:
    frame = pl.DataFrame({"x": [*terms, *EDGES]}).with_row_index("i")
    rebuilt = summed(frame, ["i"])["m"].to_list()
    assert rebuilt == [*terms, *EDGES]  # -0.0 == 0.0: a zero term adds nothing
    split_frame = split_rows(pl, frame.lazy()).collect()
    assert split_frame["m"].cast(pl.Float64).abs().max() < 2.0**86


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1e300), min_size=1, max_size=60), st.randoms())
def test_any_order_gives_the_same_bits_near_fsum(terms: list[float], random) -> None:
    frame = pl.DataFrame({"g": [0] * len(terms), "x": terms})
    first = summed(frame, ["g"])["m"][0]
    shuffled = list(terms)
    random.shuffle(shuffled)
    again = summed(pl.DataFrame({"g": [0] * len(terms), "x": shuffled}), ["g"])["m"][0]
    assert math.copysign(1.0, first) == math.copysign(1.0, again) and first == again
    exact = math.fsum(terms)
    blocks = split_rows(pl, frame.lazy()).collect()["b"].n_unique()
    # A rounding per block and per addition of a block, each within half an ulp of the sum.
    assert abs(first - exact) <= blocks * math.ulp(exact) + 5e-324


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(TERMS, TERMS), min_size=1, max_size=30), st.booleans())
def test_two_blocks_a_cell_add_as_one_float_addition(pairs, a_third_block: bool) -> None:
    # A cell of one or two blocks is added by a hash aggregation (two floats add to the
    # same float in either order), of more in block order: x + y either way.
    rows = [(i, x) for i, pair in enumerate(pairs) for x in pair]
    if a_third_block:  # one cell of three blocks: every cell takes the ordered path
        rows += [(len(pairs), 1e-30), (len(pairs), 1.0), (len(pairs), 1e30)]
    frame = pl.DataFrame(rows, schema=["g", "x"], orient="row")
    got = summed(frame, ["g"])
    assert got["g"].to_list() == sorted(set(frame["g"]))
    expected = [x + y for x, y in pairs]
    if a_third_block:
        expected.append(1e-30 + 1.0 + 1e30)
    assert got["m"].to_list() == expected


def test_sums_that_lose_digits_added_as_floats_are_exact() -> None:
    # 10^16 then ones: each one added to 10^16 in a float is lost (ulp 2).
    terms = [1e16] + [1.0] * 1000 + [3e-20] * 7
    frame = pl.DataFrame({"g": [1] * len(terms), "x": terms})
    assert summed(frame, ["g"])["m"][0] == math.fsum(terms) == 1e16 + 1000
    assert frame["x"].sum() != math.fsum(terms)  # what a float sum in row order gives


def test_zero_null_and_non_finite_terms_add_nothing() -> None:
    frame = pl.DataFrame({"g": [1] * 6, "x": [0.0, None, float("nan"), float("inf"), -2.5, 4.0]})
    assert summed(frame, ["g"])["m"].to_list() == [1.5]


def test_duckdb_gives_the_same_blocks_and_integers() -> None:
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.random(500) * 3, rng.exponential(size=500) * 1e-12, EDGES, [-7.25]])
    frame = pl.DataFrame({"x": x}).with_row_index("i")
    relation = duckdb.from_arrow(frame.to_arrow())
    on_duckdb = split_rows(nw, nw.from_native(relation)).collect(backend="polars").to_native()
    on_polars = split_rows(pl, frame.lazy()).collect()
    assert on_duckdb.sort("i")["b"].to_list() == on_polars["b"].to_list()
    assert on_duckdb.sort("i")["m"].to_list() == on_polars["m"].to_list()


# A cell of 4 rows in one block (weights in [1, 2)): each path that sums float weights
# exactly, on Polars and on DuckDB.
CELL = pl.DataFrame(
    {
        "g": [0, 0, 0, 0, 1],
        "month": [1, 1, 1, 1, 2],
        "score": [0.1, 0.4, 0.6, 0.9, 0.5],
        "label": [0, 1, 0, 1, 1],
        "w": [1.0, 1.25, 1.5, 1.75, 1.0],
    }
)
SUMMED_EXACTLY = {
    "auc on an engine": lambda f: pr.roc_auc(f, score="g", label="month", pos_label=2, weight="w"),
    "calibration": lambda f: pr.calibration_curve(f, n_bins=1, by="g", weight="w"),
    "psi": lambda f: pr.psi(f, "month", score="g", weight="w"),
}


@pytest.mark.parametrize(
    ("view", "backend"),
    [(view, backend) for view in SUMMED_EXACTLY for backend in ("polars", "duckdb")][1:],
)
def test_a_cell_of_more_terms_than_its_sum_holds_is_refused(
    monkeypatch: pytest.MonkeyPatch, view: str, backend: str
) -> None:
    # Decimal(38, 0) holds 2**40 terms of a block; Polars' in-memory sum would wrap.
    frame = CELL if backend == "polars" else duckdb.from_arrow(CELL.to_arrow())
    monkeypatch.setattr(exact_sums, "MAX_TERMS", 4)
    SUMMED_EXACTLY[view](frame)  # 4 terms: held
    monkeypatch.setattr(exact_sums, "MAX_TERMS", 3)
    with pytest.raises(
        RocInputError, match=r"a cell sums 4 float weights .* more than the 3 terms"
    ):
        SUMMED_EXACTLY[view](frame)
