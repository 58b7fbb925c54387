"""Float sums whose bits do not depend on the order in which their terms are added.

A hash aggregation (Polars', an engine's) adds a group's floats in the order its threads
meet them, so a float ``sum`` changes in its last bits from run to run. Here each finite
term ``x`` is written ``m * 2**(32 b - 70)``: ``b`` the block of 32 binary exponents
holding ``x`` (the block of 1 spans about 2**-16 to 2**16), ``m`` an integer (``x``
times a power of two, so exactly; ``|m| < 2**86``). The integers are summed per group and block
as ``Decimal(38, 0)`` (exact, so in any order), then each group's few blocks are added as
floats in block order: the same bits on every run, within a few roundings of the exact
sum. The expressions are written once for Polars and narwhals (the engines).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.exceptions import RocInputError

__all__ = [
    "BLOCK",
    "MANTISSA",
    "MAX_TERMS",
    "TERMS",
    "add_blocks",
    "block_sums",
    "group_blocks",
    "split",
]

# A term's block is log2 rounded (engines share no floor, nor a rule for ties), and
# log2 may be a little off: block b holds terms of binary exponent 32 b - 15 to
# 32 b + 18, so m = x * 2**(70 - 32 b) is whole and below 2**86, and Decimal(38, 0)
# holds the sum of 2**40 (1e12) terms of a block: more are refused (block_sums), since
# Polars' in-memory sum of decimals wraps silently.
_WIDTH, _SHIFT = 32, 70
MANTISSA = (38, 0)
MAX_TERMS = 2**40
BLOCK = "__block"  # the suffix of a term's block column
TERMS = "__roc_terms"  # rows of a group and block (:func:`group_blocks`)
_ROWS = "__roc_block_rows"


def split(F: Any, rows: Any, terms: dict[str, Any]) -> Any:
    """``rows`` (``F``: ``polars`` or ``narwhals``) with each term of ``terms`` (name to
    expression) as its integer (``Decimal(38, 0)``, under the name) and its block
    (Int64, under ``name + BLOCK``); 0 in block 0 for a zero, null or non-finite term
    (the value checks refuse those where they matter). Column by column: an engine's
    SQL would repeat a shared expression."""
    finite = {name: F.when((x != 0) & x.is_finite()).then(x) for name, x in terms.items()}
    rows = rows.with_columns(x.otherwise(F.lit(0.0)).alias(name) for name, x in finite.items())
    # log2 of 1 for a zero: an engine may refuse log(0).
    magnitude = {name: F.when(F.col(name) != 0).then(F.col(name).abs()) for name in terms}
    blocks = {n: ((x.otherwise(F.lit(1.0)).log(2) + 0.5) / _WIDTH) for n, x in magnitude.items()}
    rows = rows.with_columns(b.round(0).cast(F.Int64).alias(n + BLOCK) for n, b in blocks.items())
    # 2**(-32 b) in two factors, each in the floats' range, as is each product.
    half = {name: F.lit(2.0) ** (F.col(name + BLOCK) * (-_WIDTH // 2)) for name in terms}
    return rows.with_columns(
        (F.col(name) * h * h * 2.0**_SHIFT).cast(F.Decimal(*MANTISSA)).alias(name)
        for name, h in half.items()
    )


def _as_float(m: pl.Expr, block: pl.Expr) -> pl.Expr:
    """``m * 2**(32 block - 70)``: a rounding of ``m``, and of the product if it is
    subnormal (products by powers of two are exact in the floats' range)."""
    half = pl.lit(2.0).pow((block * (_WIDTH // 2)).cast(pl.Float64))
    return m.cast(pl.Float64) * 2.0**-_SHIFT * half * half


def block_sums(
    cells: pl.DataFrame,
    keys: Sequence[str],
    sums: dict[str, str],
    aggs: Sequence[pl.Expr] = (),
    *,
    terms: str,
) -> pl.LazyFrame:
    """One row per ``keys`` of ``cells``, whose rows are per ``keys`` and block: each
    column of ``sums`` (a sum of :func:`split`'s integers, mapped to its block column)
    as the float it stands for, its blocks added in block order; with ``aggs``.
    ``terms``: the column of ``cells`` counting (or bounding) the non-zero terms of each
    row's sums; more than ``MAX_TERMS`` are refused, their sums may have overflowed."""
    most = int(cells[terms].max() or 0)  # type: ignore[arg-type]
    if most > MAX_TERMS:
        msg = (
            f"a cell sums {most} float weights in one exponent block, more than the "
            f"{MAX_TERMS} terms its exact sum holds; split the rows into more cells (e.g. by=) "
            "or count them in parts and add the count tables"
        )
        raise RocInputError(msg)
    floats = {m: _as_float(pl.col(m), pl.col(b)) for m, b in sums.items()}
    # Most cells hold one or two blocks, and two floats add to the same float in either
    # order: a hash aggregation then (5x faster than the ordered one below at 10^7 cells).
    quick = (
        cells.lazy()
        .group_by(list(keys))
        .agg(*(x.sum().alias(m) for m, x in floats.items()), *aggs, pl.len().alias(_ROWS))
        .collect()
    )
    if (quick.get_column(_ROWS).max() or 0) <= 2:  # type: ignore[operator]
        return quick.lazy().drop(_ROWS).sort(list(keys), nulls_last=False)
    blocks = list(dict.fromkeys(sums.values()))
    ordered = cells.lazy().sort([*keys, *blocks], nulls_last=False)
    # A running sum's last value: the rows added in their (sorted) order.
    added = [x.cum_sum().last().alias(m) for m, x in floats.items()]
    return ordered.group_by(list(keys), maintain_order=True).agg(*added, *aggs)


def group_blocks(
    rows: pl.LazyFrame, keys: Sequence[str], term: pl.Expr, into: str, counts: dict[str, pl.Expr]
) -> pl.LazyFrame:
    """``rows`` (Polars) per ``keys`` and block of ``term``: the sum of its integers
    (under ``into``, its block ``into + BLOCK``), the rows (``TERMS``) and ``counts``
    (integer aggregations); :func:`add_blocks` makes one row per ``keys`` of it."""
    rows = split(pl, rows, {into: term.cast(pl.Float64)})
    aggs = [pl.col(into).sum(), pl.len().alias(TERMS), *(e.alias(k) for k, e in counts.items())]
    return rows.group_by([*keys, into + BLOCK]).agg(aggs)


def add_blocks(
    cells: pl.DataFrame, keys: Sequence[str], into: str, counts: Sequence[str]
) -> pl.LazyFrame:
    """:func:`group_blocks`' ``cells`` per ``keys``: ``into`` the float sum (the same
    bits in any order), ``counts`` summed."""
    added = [pl.col(name).sum() for name in counts]
    return block_sums(cells, keys, {into: into + BLOCK}, added, terms=TERMS)
