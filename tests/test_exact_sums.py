"""Sums by exponent block (core/exact_sums.py): exact terms, any order gives the same bits,
within a rounding per block of math.fsum; the same integers from DuckDB."""

from __future__ import annotations

import math

import duckdb
import narwhals as nw
import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_roc.core.exact_sums import BLOCK, block_sums, split

TERMS = st.floats(allow_nan=False, allow_infinity=False, width=64)
EDGES = [0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1.0, 2.0**16]


def split_rows(F, rows):
    return split(F, rows, {"m": F.col("x")}).rename({"m" + BLOCK: "b"})


def summed(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    cells = split_rows(pl, frame.lazy()).group_by([*keys, "b"]).agg(pl.col("m").sum())
    return block_sums(cells, keys, {"m": "b"}).sort(keys).collect()


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
