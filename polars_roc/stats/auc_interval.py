"""Intervals of one AUC (or partial AUC) per group: DeLong's and the stratified bootstrap.

Also DeLong's standard error as an expression (``auc_se``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles
from polars_roc.core.counting import auc_in_engine, count_rows
from polars_roc.core.expr_table import IntoExpr, class_sizes, expr_rows
from polars_roc.core.score_table import build, group_totals
from polars_roc.core.segment_batches import per_group
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.stats.alternative import Alternative, check_alternative
from polars_roc.stats.bootstrap import (
    BCA_UNDEFINED,
    IntervalMethod,
    Jackknife,
    Resampler,
    acceleration,
    bootstrap_interval,
    warn_undefined,
)
from polars_roc.stats.cells import (
    attach,
    keyed,
    on_collected,
    read_once,
    resampler,
    resampling_cells,
)
from polars_roc.stats.chance_test import chance_test
from polars_roc.stats.delong import delong_per_group, one_row_per_group
from polars_roc.stats.distributions import two_sided_z
from polars_roc.stats.options import CiMethod, check_inference_options, no_weights_with_delong
from polars_roc.stats.partial import Area, Layout, area_spec

__all__ = ["area_per_group", "auc_jackknife", "auc_se", "auc_with_inference", "bootstrap_intervals"]


FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def _with_delong_interval(result: FrameT, conf_level: float) -> FrameT:
    """``auc_var`` replaced by DeLong's ``auc_se`` and the normal interval, clipped to
    [0, 1] as pROC clips it."""
    z = two_sided_z(conf_level)
    se = pl.col("auc_var").sqrt()
    return result.select(
        pl.exclude("auc_var"),
        se.alias("auc_se"),
        (pl.col("auc") - z * se).clip(0.0, 1.0).alias("ci_lower"),
        (pl.col("auc") + z * se).clip(0.0, 1.0).alias("ci_upper"),
    )


def auc_with_inference(
    frame: Frame,
    roles: Roles,
    *,
    ci: CiMethod | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    max_fpr: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    tpr_range: tuple[float, float] | None = None,
    standardize: bool = True,
    progress: bool = False,
    test: bool = False,
    alternative: Alternative = "two-sided",
    ci_method: IntervalMethod = "percentile",
) -> Frame:
    """:func:`polars_roc.roc_auc` when ``ci``, ``max_fpr``, ``fpr_range``, ``tpr_range``
    or ``test`` is given: the (partial) AUC per group with its interval and test."""
    weight = roles.weight
    check_inference_options(ci, ("delong", "bootstrap"), conf_level, n_boot, seed, ci_method)
    area = area_spec(max_fpr, fpr_range, tpr_range, standardize)
    _check_test(test, alternative, weight=weight, partial=area.partial)
    if ci == "delong":
        no_weights_with_delong(weight, "the AUC interval", "ci='bootstrap'")
        if area.partial:
            msg = (
                "ci='delong' is defined for the full AUC only (as in pROC); for a partial "
                "AUC use ci='bootstrap'"
            )
            raise ValueError(msg)
    reserved = ("auc", "auc_se", "ci_lower", "ci_upper", "auc_var")
    if ci == "delong" and not test:
        # Another engine's rows: placements from ranks in (group, bucket) windows there.
        exact = auc_in_engine(frame, roles, delong=True, reserved=reserved)
        if exact is not None:
            return _with_delong_interval(exact, conf_level)
    prep = count_rows(frame, roles, reserved=(*reserved, *_TEST_COLUMNS)).prep

    def inference(prep: Prepared) -> pl.LazyFrame:
        prep = read_once(prep, ci == "bootstrap")
        table = build(prep)
        result = area_per_group(
            prep,
            table,
            ci=ci,
            area=area,
            conf_level=conf_level,
            n_boot=n_boot,
            seed=seed,
            progress=progress,
            ci_method=ci_method,
        )
        if test:
            result = attach(result, chance_test(table, prep.by, alternative), prep.by)
        return result

    # A lazy source too large to sort at once is counted a batch of groups at a time.
    result = per_group(prep, inference, plan="table")
    return prep.finish(result, lambda done: group_totals(done, prep.by))


_TEST_COLUMNS = ("u_statistic", "p_value")


def _check_test(test: object, alternative: object, *, weight: str | None, partial: bool) -> None:
    """Refuse the test against chance where it is not defined, before any read."""
    if not isinstance(test, bool):
        msg = f"`test` must be True or False, got {test!r}"
        raise ValueError(msg)
    check_alternative(alternative, greater="auc > 0.5")
    if not test:
        if alternative != "two-sided":
            msg = (
                f"`alternative={alternative!r}` sets the test against chance, but none is "
                "asked for; pass test=True"
            )
            raise ValueError(msg)
        return
    if weight is not None:
        msg = (
            f"test=True (the Mann-Whitney U test) does not support weights (got "
            f"weight={weight!r}): its null distribution counts rows. If each row stands for "
            f"that many identical cases (a count table), pass the column as count={weight!r}; "
            "for weighted rows, ci='bootstrap' gives an interval of the weighted AUC"
        )
        raise ValueError(msg)
    if partial:
        msg = (
            "test=True tests the full AUC against 0.5; drop max_fpr=, fpr_range= and "
            "tpr_range=, or use ci='bootstrap' for an interval of the partial AUC"
        )
        raise ValueError(msg)


def area_per_group(
    prep: Prepared,
    table: pl.LazyFrame,
    *,
    ci: CiMethod | None,
    area: Area,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
    ci_method: IntervalMethod = "percentile",
) -> pl.LazyFrame:
    """``[*by, auc, (auc_se, ci_lower, ci_upper), n_pos, n_neg]`` from ``prep``'s score
    ``table``, not yet finished: what :func:`auc_with_inference` and the trend build on.
    A weighted bootstrap reads ``prep.frame`` again: pass it through :func:`read_once`."""
    if ci == "delong":
        return _with_delong_interval(delong_per_group(table, prep.by), conf_level)
    counts = [pl.col("n_pos").first(), pl.col("n_neg").first()]
    result = one_row_per_group(table, prep.by, [area.expr().alias("auc"), *counts])
    if ci != "bootstrap":
        return result
    # The full AUC's leave-one-out values in closed form; a partial area's by evaluating
    # it on leave-out tables.
    exact = None if area.partial else lambda s: auc_jackknife(s.rows, s.unit_weight, s.layout)
    options = (conf_level, n_boot, seed, progress, ci_method)
    bounds = bootstrap_intervals(prep, table, area.replicates, "auc_se", *options, jackknife=exact)
    return attach(result, bounds, prep.by)


def auc_jackknife(
    rows: tuple[np.ndarray, np.ndarray], unit_weight: tuple[np.ndarray, ...], layout: Layout
) -> tuple[Jackknife, Jackknife]:
    """The exact leave-one-out AUCs per cell and class, in closed form from DeLong's
    placements: leaving out a positive of weight ``u`` and placement ``V10`` gives
    ``(W_pos * auc - u * V10) / (W_pos - u)``, a negative likewise with ``V01``."""
    pos, neg = (r * u for r, u in zip(rows, unit_weight, strict=True))
    tp, fp = layout.cumulate(pos[None, :])[0], layout.cumulate(neg[None, :])[0]
    w_pos, w_neg = (layout.per_cell(layout.group_sum(w[None, :]))[0] for w in (pos, neg))
    with np.errstate(divide="ignore", invalid="ignore"):
        v10 = (w_neg - fp + neg / 2.0) / w_neg
        v01 = (tp - pos / 2.0) / w_pos
        auc = layout.per_cell(layout.group_sum((pos * v10)[None, :]))[0] / w_pos
        leave_pos = (w_pos * auc - unit_weight[0] * v10) / (w_pos - unit_weight[0])
        leave_neg = (w_neg * auc - unit_weight[1] * v01) / (w_neg - unit_weight[1])
    return tuple(  # type: ignore[return-value]
        Jackknife(
            values=np.where(class_rows > 0, values, np.nan),
            multiplicity=class_rows.astype(np.float64),
            removed=np.ones(len(class_rows)),
            starts=layout.starts,
            units=np.add.reduceat(class_rows, layout.starts).astype(np.float64),
            blocks=np.zeros(layout.n_groups),
        )
        for class_rows, values in ((rows[0], leave_pos), (rows[1], leave_neg))
    )


def bootstrap_intervals(
    prep: Prepared,
    table: pl.LazyFrame,
    replicates: Callable[..., np.ndarray],
    se: str | None,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
    ci_method: IntervalMethod,
    *,
    keep_score: bool = False,
    jackknife: Callable[[Resampler], tuple[Jackknife, Jackknife]] | None = None,
    accelerate: Callable[..., np.ndarray] | None = None,
) -> pl.LazyFrame:
    """``[*by, (se), ci_lower, ci_upper]`` of a statistic of the score table: one plan
    node running the stratified bootstrap. ``replicates(pos, neg, layout)`` (with
    ``keep_score``, also the collected cells ``[*by, SCORE, ...]``) gives the statistic
    per replicate and group, NaN where undefined; ``se`` names the standard-error column
    (None: none). BCa's acceleration comes from ``jackknife(sampler)``, by default the
    statistic on leave-out tables, or is ``accelerate(sampler, *cells)`` (a statistic
    that moves with other groups' units). A weighted bootstrap reads ``prep.frame``
    again: pass it through :func:`read_once`."""
    cells = resampling_cells(prep, table, keep_score=keep_score)
    by = prep.by
    names = [*([se] if se else []), "ci_lower", "ci_upper"]

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        sampler, keys = resampler(collected, by)
        scores = (collected,) if keep_score else ()

        def statistic(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
            return replicates(pos, neg, sampler.layout, *scores)

        values = sampler.collect(seed, n_boot, statistic, progress=progress)
        spread, lower, upper = bootstrap_interval(
            values,
            conf_level,
            method=ci_method,
            estimate=statistic(*sampler.weights())[0],
            accelerate=(lambda: accelerate(sampler, *scores))
            if accelerate is not None
            else lambda: acceleration(
                jackknife(sampler) if jackknife is not None else sampler.jackknife(seed, statistic)
            ),
        )
        if ci_method == "bca":  # null where the percentile interval exists: say why
            undefined = ~np.isnan(spread) & (np.isnan(lower) | np.isnan(upper))
            warn_undefined(keys, undefined, "the BCa interval", BCA_UNDEFINED)
        columns = [spread, lower, upper] if se else [lower, upper]
        series = [pl.Series(n, c) for n, c in zip(names, columns, strict=True)]
        return keyed(keys, series).fill_nan(None)

    return on_collected(cells, by, dict.fromkeys(names, pl.Float64), run)


def auc_se(
    score: IntoExpr = "score",
    label: IntoExpr = "label",
    *,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
) -> pl.Expr:
    """DeLong standard error of the AUC as an expression (one value per group).

    The same number as ``roc_auc(..., ci="delong")["auc_se"]``, usable in ``select``,
    ``group_by().agg()`` and ``over()``. Null for a group with fewer than two rows of
    a class, or with invalid values (NaN score, label outside 0/1 without
    ``pos_label``); nulls as ``nulls=`` says, like :func:`polars_roc.auc`;
    ``direction="lower"`` for a score where lower is more positive. It takes no
    weights or counts: for a count table use ``roc_auc(..., count=, ci="delong")``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "segment": ["a"] * 4 + ["b"] * 4,
    ...     "p": [0.9, 0.4, 0.6, 0.1, 0.8, 0.7, 0.3, 0.2],
    ...     "y": [1, 1, 0, 0, 1, 0, 1, 0],
    ... })
    >>> df.group_by("segment", maintain_order=True).agg(pr.auc("p", "y"), pr.auc_se("p", "y"))
    shape: (2, 3)
    ┌─────────┬──────┬──────────┐
    │ segment ┆ auc  ┆ auc_se   │
    │ ---     ┆ ---  ┆ ---      │
    │ str     ┆ f64  ┆ f64      │
    ╞═════════╪══════╪══════════╡
    │ a       ┆ 0.75 ┆ 0.353553 │
    │ b       ┆ 0.75 ┆ 0.353553 │
    └─────────┴──────┴──────────┘
    """
    rows = expr_rows("auc_se", score, label, None, pos_label, nulls, direction=direction)
    s, is_pos = rows.score, rows.is_pos
    n_pos, n_neg = class_sizes(rows)
    # Placements from average ranks (Sun & Xu): a row's rank among all rows minus its
    # rank within its class counts the other class below it, ties one half. The AUC
    # is their mean, so their sample variances are S10 and S01 (v01 = 1 - placement
    # has the variance of the placement).
    everyone = s.rank("average")
    negatives_below = everyone.filter(is_pos) - s.filter(is_pos).rank("average")
    positives_below = everyone.filter(~is_pos) - s.filter(~is_pos).rank("average")
    # var(x / c) = var(x) / c^2: divided once per group instead of once per row.
    s10 = negatives_below.var() / (n_neg * n_neg)
    s01 = positives_below.var() / (n_pos * n_pos)
    defined = rows.valid & (n_pos > 1) & (n_neg > 1)
    return pl.when(defined).then((s10 / n_pos + s01 / n_neg).sqrt()).alias("auc_se")
