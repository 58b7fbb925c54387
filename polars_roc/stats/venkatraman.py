"""Venkatraman's permutation tests that two whole ROC curves are equal (pROC's
``roc.test(method="venkatraman")``): paired (Venkatraman & Begg, 1996) and unpaired
(Venkatraman, 2000). The statistics, pROC's ``R/venkatraman.R`` on ranks, and the
permutations are spelled out in docs/inference.md ("Comparing whole curves").

Everything runs on ``(permutations, rows)`` arrays: ranks by one ``argsort`` per chunk
of permutations, the error counts by one ``bincount`` and a running sum per group, the
traces' interpolation by running maxima over the merged, sorted points. As in
``stats/bootstrap.py``, each group (block) draws from its own random stream, derived from
``seed`` and its key values, one draw call per group and chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_choice
from polars_roc.core.compat import explode_values
from polars_roc.core.counting import count_rows
from polars_roc.core.finish import finish_result
from polars_roc.core.validate import NEG, POS, SCORE, SCORE_B, Direction, Frame, NullPolicy
from polars_roc.exceptions import RocInputError
from polars_roc.stats.bootstrap import CELL_BUDGET, key_hashes
from polars_roc.stats.bootstrap import _streams as group_streams
from polars_roc.stats.cells import group_layout, keyed, on_collected, over
from polars_roc.stats.options import check_inference_options
from polars_roc.stats.paired_tests import name_pair, two_scores
from polars_roc.stats.partial import Layout
from polars_roc.stats.unpaired_tests import count_two_groups

__all__ = ["compare_curves", "compare_curves_groups"]

RankTies = Literal["first", "average"]
# The tag of the permutation streams in their spawn key (the bootstrap uses 0 and 1).
_STREAM_TAG = 2
_STATS = {"statistic": pl.Float64, "p_value": pl.Float64, "n_permutations": pl.Int64}
# R's rank ties (pROC's ties.method) as scipy's and Polars' rank methods.
_RANK_METHOD: dict[str, Literal["ordinal", "average"]] = {"first": "ordinal", "average": "average"}
_RANK = "__roc_rank"


# ---------------------------------------------------------------- ranks and streams


def _rank(values: np.ndarray, ties: RankTies) -> np.ndarray:
    """Ranks (1-based) along the last axis; equal values by ``ties`` (R's ``rank``):
    ``"first"`` in order of position, ``"average"`` the mean of their ranks."""
    from scipy.stats import rankdata

    return rankdata(values, method=_RANK_METHOD[ties], axis=-1)


def _streams(keys: pl.DataFrame, n_groups: int, seed: int | None) -> list[np.random.Generator]:
    """One generator per group, rooted at ``seed`` and the group's key values."""
    return [stream for (stream,) in group_streams(key_hashes(keys, n_groups), seed, (_STREAM_TAG,))]


def _uniforms(
    streams: list[np.random.Generator], layout: Layout, size: int, draws: int
) -> np.ndarray:
    """``(draws, size, rows)`` uniforms, each group's from its own stream."""
    n_rows = int(layout.starts[-1] + layout.lengths[-1]) if layout.n_groups else 0
    out = np.empty((draws, size, n_rows))
    for stream, start, length in zip(
        streams, layout.starts.tolist(), layout.lengths.tolist(), strict=True
    ):
        out[:, :, start : start + length] = stream.random((draws, size, length))
    return out


def _chunks(n_perm: int, n_rows: int) -> list[int]:
    per_chunk = max(1, CELL_BUDGET // max(1, 4 * n_rows))
    return [min(per_chunk, n_perm - done) for done in range(0, n_perm, per_chunk)]


def _rank_counts(
    ranks: np.ndarray, case: np.ndarray, layout: Layout
) -> tuple[np.ndarray, np.ndarray]:
    """The cases and the controls of each group at ``x = ceil(rank)``, laid out like the
    rows: ``(R, rows)`` each (``rank <= x`` for an integer ``x`` is ``ceil(rank) <= x``,
    so their running sums count the rows ranked at most ``x``)."""
    n_rep, n_rows = ranks.shape
    start = layout.per_cell(layout.starts[None, :])[0]
    at = start[None, :] + np.ceil(ranks).astype(np.int64) - 1
    flat = (np.arange(n_rep)[:, None] * n_rows + at).ravel()
    weights = np.broadcast_to(case, ranks.shape).ravel().astype(np.float64)
    cases = np.bincount(flat, weights=weights, minlength=n_rep * n_rows).reshape(ranks.shape)
    controls = np.bincount(flat, weights=1.0 - weights, minlength=n_rep * n_rows)
    return cases, controls.reshape(ranks.shape)


# ---------------------------------------------------------------- paired


def _error_counts(ranks: np.ndarray, case: np.ndarray, layout: Layout) -> np.ndarray:
    """``e(x)`` at ``x = 1..n`` of each group, laid out like the rows: ``(R, rows)``:
    ``#{cases: rank <= x}`` plus ``#{controls: rank > x}``."""
    cases, controls = _rank_counts(ranks, case, layout)
    n_controls = layout.per_cell(layout.group_sum(controls))
    return layout.cumulate(cases) + n_controls - layout.cumulate(controls)


def _paired_statistic(r: np.ndarray, s: np.ndarray, case: np.ndarray, layout: Layout) -> np.ndarray:
    difference = _error_counts(s, case, layout) - _error_counts(r, case, layout)
    return layout.group_sum(np.abs(difference))


def _paired_test(
    rows: pl.DataFrame, by: list[str], n_perm: int, seed: int | None, ties: RankTies
) -> pl.DataFrame:
    """The test's result per group of rows sorted by group (original order within)."""
    layout, keys = group_layout(rows, by)
    ranked = rows.select(over(pl.col(c).rank(_RANK_METHOD[ties]), by) for c in (SCORE, SCORE_B))
    r, s = (ranked[c].cast(pl.Float64).to_numpy()[None, :] for c in (SCORE, SCORE_B))
    case = (rows[POS] > 0).to_numpy()
    observed = _paired_statistic(r, s, case, layout)[0]
    # Ranks of different groups must not mix when sorted together: shift each group
    # above the previous one (ranks and jitter stay within [1/2, n + 1/2]).
    shift = layout.per_cell(2.0 * layout.starts[None, :].astype(np.float64))
    streams = _streams(keys, layout.n_groups, seed)
    exceed = np.zeros(layout.n_groups)
    for size in _chunks(n_perm, rows.height):
        jitter_r, jitter_s, coin = _uniforms(streams, layout, size, 3)
        keep = coin >= 0.5  # pROC's q = 1 - round(runif): keep or swap, 1/2 each
        r3 = np.where(keep, r + jitter_r - 0.5, s)
        s3 = np.where(keep, s + jitter_s - 0.5, r)
        start = layout.per_cell(layout.starts[None, :].astype(np.float64))
        ranks_r = _rank(r3 + shift, ties) - start
        ranks_s = _rank(s3 + shift, ties) - start
        permuted = _paired_statistic(ranks_r, ranks_s, case, layout)
        exceed += (permuted >= observed[None, :]).sum(axis=0)
    n_pos, n_neg = (np.add.reduceat(rows[c].to_numpy(), layout.starts) for c in (POS, NEG))
    both = (n_pos > 0) & (n_neg > 0)
    counts = [pl.Series(n, c, dtype=pl.Int64) for n, c in (("n_pos", n_pos), ("n_neg", n_neg))]
    p_value = np.where(both, exceed / n_perm, np.nan)
    return _result(keys, np.where(both, observed, np.nan), p_value, n_perm, *counts)


def _result(
    keys: pl.DataFrame, statistic: np.ndarray, p_value: np.ndarray, n_perm: int, *extra: pl.Series
) -> pl.DataFrame:
    """The result columns beside the group ``keys``; NaN is null."""
    n_permutations = np.full(len(statistic), n_perm, dtype=np.int64)
    values = (statistic, p_value, n_permutations)
    columns = [pl.Series(name, v) for name, v in zip(_STATS, values, strict=True)]
    return keyed(keys, [*columns, *extra]).fill_nan(None)


def compare_curves(
    frame: Frame,
    scores: Sequence[str],
    *,
    label: str = "label",
    by: str | Sequence[str] | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    n_boot: int = 2000,
    seed: int | None = None,
    ties: RankTies = "first",
) -> Frame:
    """Venkatraman & Begg's paired permutation test that two scores' ROC curves are equal.

    pROC's ``roc.test(paired=TRUE, method="venkatraman")``. Where :func:`compare`
    tests the areas, this tests the whole curves: two curves crossing with equal AUCs
    differ here. The statistic ``E`` sums, over every cut of the ranks, the absolute
    difference of the two scores' error counts (false negatives plus false
    positives); each permutation swaps the two scores' ranks on every row with
    probability 1/2 (the pairing kept), and the p-value is the share of the
    ``n_boot`` permutations with a statistic ``>= E``. Two-sided only; the curves are
    compared as wholes, so there is no estimate or interval.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame``, one row per case, both scores on it.
    scores
        The two score columns ``[a, b]``.
    label, by, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table` (``direction`` applies to both scores);
        with ``nulls="drop"`` a row missing either score is left out of both. A
        count-table row is taken as that many identical rows (consecutive, for
        ``ties="first"``). Ranks count rows: there is no ``weight``.
    n_boot
        Number of permutations (pROC's ``boot.n``, default 2000).
    seed
        The same seed gives the same p-values; each group draws from its own stream,
        derived from the seed and its key values.
    ties
        How tied scores are ranked (R's ``rank``, pROC's ``ties.method``): ``"first"``
        (pROC's default) in the order of the rows, so the result depends on the order
        of tied rows; ``"average"`` gives them their mean rank, which does not.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, model_a, model_b, statistic, p_value, n_permutations, n_pos, n_neg]``,
        one row per group. A group holding one class gets null ``statistic`` and
        ``p_value``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "a": [0.9, 0.8, 0.35, 0.6, 0.3, 0.1, 0.4, 0.2],
    ...     "b": [0.7, 0.4, 0.5, 0.9, 0.6, 0.2, 0.3, 0.8],
    ...     "label": [1, 1, 1, 1, 0, 0, 0, 0],
    ... })
    >>> pr.compare_curves(df, ["a", "b"], n_boot=500, seed=1).select(
    ...     "statistic", "p_value", "n_permutations")
    shape: (1, 3)
    ┌───────────┬─────────┬────────────────┐
    │ statistic ┆ p_value ┆ n_permutations │
    │ ---       ┆ ---     ┆ ---            │
    │ f64       ┆ f64     ┆ i64            │
    ╞═══════════╪═════════╪════════════════╡
    │ 8.0       ┆ 0.446   ┆ 500            │
    └───────────┴─────────┴────────────────┘
    """
    _check_test_options(n_boot, seed, ties)
    first, second = two_scores(scores)
    # Ranks count rows: no weights.
    roles = Roles(first, label, by, None, count, pos_label, nulls, direction)
    reserved = ("model_a", "model_b", *_STATS)
    prep = count_rows(frame, roles, reserved=reserved, paired_score=second).prep
    by_cols = prep.by
    rows = prep.frame.select(*by_cols, SCORE, SCORE_B, POS, NEG)

    def run(collected: pl.DataFrame) -> pl.DataFrame | None:
        collected = _one_row_per_unit(collected)
        if collected.height == 0:
            return None
        collected = collected.sort(by_cols, nulls_last=False, maintain_order=True)
        return _paired_test(collected, by_cols, n_boot, seed, ties)

    result = on_collected(rows, by_cols, {**_STATS, "n_pos": pl.Int64, "n_neg": pl.Int64}, run)
    result = name_pair(result, by_cols, "model", pl.lit(scores[0]), pl.lit(scores[1]))
    return prep.finish(result, lambda done: done.select(*by_cols, "n_pos", "n_neg"))


# Polars repeats a row at most 2**32 - 1 times (its repeat counts are UInt32).
MAX_UNITS_PER_ROW = 2**32 - 1


def _one_row_per_unit(rows: pl.DataFrame) -> pl.DataFrame:
    """Rows with class counts (a count table) as that many rows of one unit each,
    in place (consecutive); rows counting zero are dropped."""
    units = pl.col(POS) + pl.col(NEG)
    if rows.select((units == 1).all()).item():
        return rows
    if rows.select(units.max()).item() > MAX_UNITS_PER_ROW:
        # The total, not the largest row: engines may merge equal cells.
        total = rows.select(units.sum()).item()
        msg = (
            f"the permutation test ranks single units, so it expands count= into rows, but "
            f"the counts stand for {total:,} units, past {MAX_UNITS_PER_ROW:,} in a row; "
            "compare the curves on a sample of the units, or compare the AUCs with "
            "compare() (DeLong), which takes counts of any size"
        )
        raise RocInputError(msg)
    return (
        rows.filter(units > 0)
        .select(explode_values(pl.all().repeat_by(units)))
        .with_columns(
            (pl.col(POS) > 0).cast(pl.Int64).alias(POS),
            (pl.col(POS) == 0).cast(pl.Int64).alias(NEG),
        )
    )


def _check_test_options(n_boot: int, seed: int | None, ties: object) -> None:
    check_inference_options("bootstrap", ("bootstrap",), 0.95, n_boot, seed)
    check_choice("ties", ties, ("first", "average"))


# ---------------------------------------------------------------- unpaired


def _traces(
    ranks: np.ndarray, case: np.ndarray, units: Layout, mixing: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each unit's ``(p(x), error(x))`` at ``x = 1..n``, laid out like the rows."""
    cases, controls = _rank_counts(ranks, case, units)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = units.cumulate(cases) / units.per_cell(units.group_sum(cases))
        g = units.cumulate(controls) / units.per_cell(units.group_sum(controls))
    mp = mixing[None, :]
    # A unit without cases or controls has no curve; 0 keeps the sort of the points
    # sane and its block's statistic is set null by the caller.
    f, g = np.nan_to_num(f), np.nan_to_num(g)
    return mp * f + (1 - mp) * g, mp * f + (1 - mp) * (1 - g)


def _interpolate(p: np.ndarray, y: np.ndarray, mine: np.ndarray, block: np.ndarray) -> np.ndarray:
    """Along each row of merged points sorted by ``(block, p)``: the linear interpolation
    of the points where ``mine`` holds, at every point (NaN outside their range, as R's
    ``approxfun``)."""
    n = p.shape[-1]
    index = np.broadcast_to(np.arange(n), p.shape)
    prev = np.maximum.accumulate(np.where(mine, index, -1), axis=-1)
    nxt = np.flip(np.minimum.accumulate(np.flip(np.where(mine, index, n), -1), axis=-1), -1)
    prev_c, next_c = np.clip(prev, 0, n - 1), np.clip(nxt, 0, n - 1)
    take = np.take_along_axis
    p0, y0, b0 = take(p, prev_c, -1), take(y, prev_c, -1), block[prev_c]
    p1, y1, b1 = take(p, next_c, -1), take(y, next_c, -1), block[next_c]
    has_prev = (prev >= 0) & (b0 == block)
    has_next = (nxt < n) & (b1 == block)
    with np.errstate(divide="ignore", invalid="ignore"):
        between = y0 + (p - p0) * (y1 - y0) / (p1 - p0)
    value = np.where(has_next & (p1 > p0), between, y0)
    return np.where(has_prev & (has_next | (p == p0)), value, np.nan)


def _unpaired_statistic(
    ranks: np.ndarray,
    case: np.ndarray,
    units: Layout,
    side_b: np.ndarray,
    block: np.ndarray,
    blocks: Layout,
    mixing: np.ndarray,
) -> np.ndarray:
    """The area between the two sides' traces, per block: ``(R, blocks)``.

    Rows are laid out block by block, each block side a's rows then side b's, so a
    block's points, sorted by ``p`` (block number added, p <= 1), merge its two traces.
    """
    p, error = _traces(ranks, case, units, mixing)
    order = np.argsort(p + 2.0 * block[None, :], axis=-1, kind="stable")
    take = np.take_along_axis
    p_sorted, error_sorted = take(p, order, -1), take(error, order, -1)
    from_b = side_b[order]
    block_sorted = block[order[0]] if order.shape[0] else block
    # The order of blocks is fixed (they are sorted apart), so block_sorted is one row.
    trace_a = _interpolate(p_sorted, error_sorted, ~from_b, block_sorted)
    trace_b = _interpolate(p_sorted, error_sorted, from_b, block_sorted)
    gap = np.abs(trace_a - trace_b)
    width = np.diff(p_sorted, axis=-1)
    pieces = (gap[:, 1:] + gap[:, :-1]) * width / 2.0
    same = block_sorted[1:] == block_sorted[:-1]
    pieces = np.where(same[None, :] & ~np.isnan(pieces), pieces, 0.0)
    # Piece i joins points i and i + 1; it belongs to the block of point i + 1.
    padded = np.concatenate([np.zeros((pieces.shape[0], 1)), pieces], axis=-1)
    return np.add.reduceat(padded, blocks.starts, axis=-1)


def _unpaired_test(
    rows: pl.DataFrame, outer: list[str], side: str, n_perm: int, seed: int | None, ties: RankTies
) -> pl.DataFrame:
    """The test's result per block; rows sorted by block, then side (a first), then class
    (controls first), original order within."""
    blocks, keys = group_layout(rows, outer)
    units, _ = group_layout(rows, [*outer, side])
    block = np.repeat(np.arange(blocks.n_groups), blocks.lengths)
    side_b = rows[side].to_numpy().astype(bool)
    case = (rows[POS] > 0).to_numpy()
    ranks = rows[_RANK].to_numpy()[None, :]
    n_cases = np.add.reduceat(case.astype(np.float64), blocks.starts)
    # The share of cases among both groups' rows (pROC divides by twice the first
    # group's rows instead, the same number when the groups are the same size).
    mixing = np.repeat(n_cases / blocks.lengths, blocks.lengths)
    observed = _unpaired_statistic(ranks, case, units, side_b, block, blocks, mixing)[0]
    unit_cases = np.add.reduceat(case.astype(np.int64), units.starts)
    unit_sizes = units.lengths
    defined = (unit_cases > 0) & (unit_cases < unit_sizes)
    unit_block = block[units.starts]
    complete = np.bincount(unit_block, weights=defined, minlength=blocks.n_groups) == 2
    # Pooling deals each block's cases (and controls) out again: position k of a
    # (block, class) segment, in row order, takes the value of a random position of the
    # segment (random keys sorted within segments).
    segment = 2.0 * block + case
    in_order = np.argsort(segment, kind="stable")
    shift_unit = np.repeat(np.arange(units.n_groups), units.lengths) * (2.0 * rows.height + 4.0)
    unit_start = units.per_cell(units.starts[None, :].astype(np.float64))
    streams = _streams(keys, blocks.n_groups, seed)
    exceed = np.zeros(blocks.n_groups)
    for size in _chunks(n_perm, rows.height):
        jitter, shuffle = _uniforms(streams, blocks, size, 2)
        values = ranks + jitter - 0.5
        dealt = np.argsort(segment[None, :] + shuffle, axis=-1, kind="stable")
        values[:, in_order] = np.take_along_axis(values, dealt, -1)
        permuted_ranks = _rank(values + shift_unit[None, :], ties) - unit_start
        permuted = _unpaired_statistic(permuted_ranks, case, units, side_b, block, blocks, mixing)
        # Statistics are areas (sums of floats): compare up to rounding.
        exceed += (permuted >= observed[None, :] - 1e-12).sum(axis=0)
    observed = np.where(complete, observed, np.nan)
    return _result(keys, observed, np.where(complete, exceed / n_perm, np.nan), n_perm)


def compare_curves_groups(
    frame: Frame,
    *,
    by: str,
    groups: tuple[Any, Any],
    within: str | Sequence[str] | None = None,
    score: str = "score",
    label: str = "label",
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    n_boot: int = 2000,
    seed: int | None = None,
    ties: RankTies = "first",
) -> Frame:
    """Venkatraman's unpaired permutation test that two groups' ROC curves are equal.

    pROC's ``roc.test(paired=FALSE, method="venkatraman")`` (Venkatraman, 2000): the
    whole curves of two independent samples (two segments, two periods) compared,
    where :func:`compare_groups` compares their areas. Each group is ranked on its
    own; the statistic ``E`` is the area between the two groups' error-rate traces
    over the mixture distribution of the scores (see docs/inference.md); each
    permutation pools the two groups' cases and deals them out again at random
    (controls likewise), and the p-value is the share of the ``n_boot``
    permutations with a statistic ``>= E``. Two-sided only.

    Parameters
    ----------
    by, groups, within
        As in :func:`compare_groups`: the groups compared, in blocks of ``within``.
    frame, score, label, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table` (no weights: ranks count rows); a
        count-table row is taken as that many identical rows.
    n_boot, seed, ties
        As in :func:`compare_curves`.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*within, group_a, group_b, statistic, p_value, n_permutations]``, one row
        per block of ``within`` holding both groups. The mixing proportion is the share
        of cases among both groups' rows (pROC divides the cases by twice the first
        group's size: the same number when the groups are the same size).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "region": ["n"] * 6 + ["s"] * 6,
    ...     "score": [0.9, 0.8, 0.4, 0.5, 0.2, 0.1, 0.6, 0.3, 0.7, 0.8, 0.5, 0.2],
    ...     "label": [1, 1, 1, 0, 0, 0] * 2,
    ... })
    >>> pr.compare_curves_groups(df, by="region", groups=("n", "s"), n_boot=500,
    ...                          seed=1).select("statistic", "p_value")
    shape: (1, 2)
    ┌───────────┬─────────┐
    │ statistic ┆ p_value │
    │ ---       ┆ ---     │
    │ f64       ┆ f64     │
    ╞═══════════╪═════════╡
    │ 0.166667  ┆ 0.578   │
    └───────────┴─────────┘
    """
    _check_test_options(n_boot, seed, ties)
    roles = Roles(score, label, None, None, count, pos_label, nulls, direction)
    reserved = ("group_a", "group_b", *_STATS)
    prep, outer, names = count_two_groups(frame, by, groups, within, roles, reserved=reserved)
    side = "__roc_side"
    rows = prep.frame.filter(pl.col(by).is_in(list(groups))).select(
        *outer, (pl.col(by) == groups[1]).alias(side), SCORE, POS, NEG
    )

    def run(collected: pl.DataFrame) -> pl.DataFrame | None:
        collected = _one_row_per_unit(collected)
        # Ranked in the rows' order (ties="first"), then laid out class by class.
        method = _RANK_METHOD[ties]
        collected = (
            collected.sort([*outer, side], nulls_last=False, maintain_order=True)
            .with_columns(
                pl.col(SCORE).rank(method).over([*outer, side]).cast(pl.Float64).alias(_RANK)
            )
            .sort([*outer, side, POS], nulls_last=False, maintain_order=True)
        )
        # Only blocks holding both groups are tested (as compare_groups pairs them).
        collected = collected.filter(over(pl.col(side).n_unique(), outer) == 2)
        if collected.height == 0:
            return None
        return _unpaired_test(collected, outer, side, n_boot, seed, ties)

    result = on_collected(rows, outer, _STATS, run)
    result = name_pair(result, outer, "group", *names)
    return finish_result(result, eager=prep.eager)
