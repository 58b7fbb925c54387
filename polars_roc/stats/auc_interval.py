"""Intervals of one AUC (or partial AUC) per group: DeLong's and the stratified bootstrap.

Also DeLong's standard error as an expression (``auc_se``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.core.compat import map_frame
from polars_roc.core.counting import auc_in_engine, count_rows
from polars_roc.core.expr_table import IntoExpr, class_sizes, expr_rows
from polars_roc.core.score_table import build, group_totals
from polars_roc.core.validate import Direction, Frame, NullPolicy, Prepared
from polars_roc.stats.bootstrap import percentile_interval
from polars_roc.stats.cells import (
    attach,
    group_schema,
    keyed,
    read_once,
    resampler,
    resampling_cells,
)
from polars_roc.stats.delong import clip_unit, delong_per_group
from polars_roc.stats.distributions import two_sided_z
from polars_roc.stats.options import CiMethod, check_inference_options, no_weights_with_delong
from polars_roc.stats.partial import Area, area_spec

__all__ = ["area_per_group", "auc_se", "auc_with_inference"]


def _per_group(table: pl.LazyFrame, by: list[str], summary: list[pl.Expr]) -> pl.LazyFrame:
    """One row per group of a score table (groups in table order, i.e. sorted)."""
    if by:
        return table.group_by(by, maintain_order=True).agg(summary)
    return table.select(summary).filter(pl.col("n_pos").is_not_null())


def auc_with_inference(
    frame: Frame,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    ci: CiMethod | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    max_fpr: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    tpr_range: tuple[float, float] | None = None,
    standardize: bool = True,
    progress: bool = False,
) -> Frame:
    """(Partial) AUC per group, optionally with a confidence interval.

    The work behind :func:`polars_roc.roc_auc` when ``ci``, ``max_fpr``, ``fpr_range``
    or ``tpr_range`` is given; see that function for the parameters.
    """
    check_inference_options(
        ci=ci, allowed=("delong", "bootstrap"), conf_level=conf_level, n_boot=n_boot, seed=seed
    )
    area = area_spec(
        max_fpr=max_fpr, fpr_range=fpr_range, tpr_range=tpr_range, standardize=standardize
    )
    if ci == "delong":
        no_weights_with_delong(weight, "ci='delong'", "ci='bootstrap'")
        if area.partial:
            msg = (
                "ci='delong' is defined for the full AUC only (as in pROC); for a partial "
                "AUC use ci='bootstrap'"
            )
            raise ValueError(msg)
    if ci == "delong":
        # Another engine's rows: placements from ranks in (group, bucket) windows there.
        exact = auc_in_engine(
            frame,
            score=score,
            label=label,
            by=by,
            weight=weight,
            count=count,
            pos_label=pos_label,
            nulls=nulls,
            direction=direction,
            delong=True,
            reserved=("auc", "auc_se", "ci_lower", "ci_upper", "auc_var"),
        )
        if exact is not None:
            z = two_sided_z(conf_level)
            se = pl.col("auc_var").sqrt()
            return exact.select(
                pl.exclude("auc_var"),
                se.alias("auc_se"),
                clip_unit(pl.col("auc") - z * se).alias("ci_lower"),
                clip_unit(pl.col("auc") + z * se).alias("ci_upper"),
            )
    prep = count_rows(
        frame,
        score=score,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        reserved=("auc", "auc_se", "ci_lower", "ci_upper", "auc_var"),
    ).prep
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
    )
    return prep.finish(result, lambda done: group_totals(done, prep.by))


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
) -> pl.LazyFrame:
    """``[*by, auc, (auc_se, ci_lower, ci_upper), n_pos, n_neg]`` from ``prep``'s score
    ``table``, not yet finished: what :func:`auc_with_inference` and the trend build on.
    A weighted bootstrap reads ``prep.frame`` again: pass it through :func:`read_once`."""
    counts = [pl.col("n_pos").first(), pl.col("n_neg").first()]
    if ci == "delong":
        z = two_sided_z(conf_level)
        se = pl.col("auc_se")
        result = (
            delong_per_group(table, prep.by)
            .with_columns(pl.col("auc_var").sqrt().alias("auc_se"))
            .with_columns(
                clip_unit(pl.col("auc") - z * se).alias("ci_lower"),
                clip_unit(pl.col("auc") + z * se).alias("ci_upper"),
            )
            .drop("auc_var")
        )
    else:
        result = _per_group(table, prep.by, [area.expr().alias("auc"), *counts])
        if ci == "bootstrap":
            intervals = _bootstrap_area(
                prep,
                table,
                area,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                progress=progress,
            )
            result = attach(result, intervals, prep.by)
    return result


def _bootstrap_area(
    prep: Prepared,
    table: pl.LazyFrame,
    area: Area,
    *,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
) -> pl.LazyFrame:
    """``[*by, auc_se, ci_lower, ci_upper]``: one plan node running the bootstrap."""
    cells = resampling_cells(prep, table)
    by = prep.by
    schema = {
        **group_schema(cells, by),
        "auc_se": pl.Float64,
        "ci_lower": pl.Float64,
        "ci_upper": pl.Float64,
    }

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        if collected.height == 0:
            return pl.DataFrame(schema=schema)
        sampler, keys = resampler(collected, by)
        values = sampler.collect(
            seed,
            n_boot,
            lambda pos, neg: area.replicates(pos, neg, sampler.layout),
            progress=progress,
        )
        se, lower, upper = percentile_interval(values, conf_level)
        return keyed(
            keys,
            [pl.Series("auc_se", se), pl.Series("ci_lower", lower), pl.Series("ci_upper", upper)],
        ).fill_nan(None)

    return map_frame(cells, run, schema=schema)


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
