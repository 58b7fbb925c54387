"""Unpaired test of the AUCs of two groups of rows (e.g. two segments).

DeLong's variances with Welch's degrees of freedom (pROC's ``roc.test(paired=FALSE)``),
or a bootstrap of each group on its own.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import polars as pl
from scipy.special import stdtrit

from polars_roc.core.arguments import Roles, check_flags
from polars_roc.core.counting import count_rows
from polars_roc.core.finish import finish_result
from polars_roc.core.score_table import build
from polars_roc.core.validate import (
    Direction,
    Frame,
    NullPolicy,
    Prepared,
    caller_stacklevel,
    missing_column,
    warn_single_class,
)
from polars_roc.stats.alternative import Alternative, check_alternative, with_alternative
from polars_roc.stats.bootstrap import IntervalMethod, acceleration_terms, bootstrap_interval
from polars_roc.stats.cells import keyed, on_collected, resampler, resampling_cells
from polars_roc.stats.delong import delong_per_group
from polars_roc.stats.distributions import map_numpy, t_two_sided_p
from polars_roc.stats.options import (
    CiMethod,
    check_groups_present,
    check_inference_options,
    ci_alias,
    no_weights_with_delong,
)
from polars_roc.stats.paired_tests import TEST_COLUMNS, name_pair, with_test, z_test_columns
from polars_roc.stats.partial import Area, area_spec

__all__ = ["compare_groups", "count_two_groups", "welch_test"]


def compare_groups(
    frame: Frame,
    *,
    by: str,
    groups: tuple[Any, Any],
    within: str | Sequence[str] | None = None,
    score: str = "score",
    label: str = "label",
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    ci: CiMethod = "delong",
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    max_fpr: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    tpr_range: tuple[float, float] | None = None,
    standardize: bool = True,
    progress: bool = False,
    case: str | None = None,
    method: CiMethod | None = None,
    alternative: Alternative = "two-sided",
    ci_method: IntervalMethod = "percentile",
) -> Frame:
    """Unpaired test of the AUCs of two groups (e.g. two segments).

    ``ci="delong"`` is pROC's ``roc.test(paired=FALSE, method="delong")``: with
    ``V = se^2`` of each group's AUC (DeLong), ``t = diff / sqrt(V_a + V_b)`` against
    Student's t with Welch-type degrees of freedom ``df = (V_a + V_b)^2 / (V_a^2 /
    (N_a - 1) + V_b^2 / (N_b - 1))`` (``N`` the group's rows). The interval
    ``diff +- t_df * se`` uses the same t distribution (pROC reports none for this test).
    ``ci="bootstrap"`` resamples each group independently (stratified): ``se`` is
    the standard deviation of the replicate differences, ``z = diff / se`` with a normal
    p-value (pROC's unpaired ``method="bootstrap"``), the interval is the percentile
    interval of the differences (``ci_method="bca"``: the BCa interval); it handles
    weights and partial AUCs.

    Parameters
    ----------
    by
        The column holding the groups to compare.
    groups
        The two values of ``by`` to compare, ``(a, b)``; ``diff = auc_a - auc_b``.
    within
        Optional column(s): run the comparison separately in each of their groups.
    frame, score, label, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table` (weights need ``ci="bootstrap"``).
    ci, conf_level, n_boot, seed, progress, max_fpr, fpr_range, tpr_range, standardize, method
        As in :func:`compare`: ``ci`` is ``"delong"`` (default) or ``"bootstrap"``.
    case
        Optional case-id column. When the two groups share case ids, the same cases
        were scored twice (e.g. two models in long format): a warning says so and points
        to :func:`compare_long`, the paired test, since this unpaired test ignores the
        pairing.
    alternative
        ``"two-sided"`` (default), ``"greater"`` (``auc_a > auc_b``) or ``"less"``, as
        in :func:`compare`; the DeLong p-value is then a one-sided tail of Student's t.
    ci_method
        ``"percentile"`` (default) or ``"bca"`` (bootstrap only): the BCa interval of
        ``diff``, its acceleration from the jackknife of each group's AUC (the two
        groups are independent samples, so their jackknife terms add, the second's
        influence values with the sign flipped, as ``scipy.stats.bootstrap`` treats
        several samples).

    Returns
    -------
    DataFrame or LazyFrame
        ``[*within, group_a, group_b, auc_a, auc_b, diff, se, t, df, p_value, ci_lower,
        ci_upper]`` for DeLong; ``[*within, group_a, group_b, auc_a, auc_b, diff, se, z,
        p_value, ci_lower, ci_upper]`` for the bootstrap. ``group_a``/``group_b`` are the
        two values of ``by`` behind ``auc_a``/``auc_b``. One row per block of ``within``
        holding both groups.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "region": ["n"] * 6 + ["s"] * 6,
    ...     "score": [0.9, 0.8, 0.4, 0.5, 0.2, 0.1, 0.6, 0.3, 0.7, 0.8, 0.5, 0.2],
    ...     "label": [1, 1, 1, 0, 0, 0] * 2,
    ... })
    >>> pr.compare_groups(df, by="region", groups=("n", "s")).select("auc_a", "auc_b", "t", "df")
    shape: (1, 4)
    ┌──────────┬──────────┬──────────┬──────────┐
    │ auc_a    ┆ auc_b    ┆ t        ┆ df       │
    │ ---      ┆ ---      ┆ ---      ┆ ---      │
    │ f64      ┆ f64      ┆ f64      ┆ f64      │
    ╞══════════╪══════════╪══════════╪══════════╡
    │ 0.888889 ┆ 0.555556 ┆ 0.948683 ┆ 7.352941 │
    └──────────┴──────────┴──────────┴──────────┘
    """
    check_flags(progress=progress)
    method = ci_alias(ci, method, "compare_groups")
    check_alternative(alternative)
    check_inference_options(method, ("delong", "bootstrap"), conf_level, n_boot, seed, ci_method)
    area = area_spec(max_fpr, fpr_range, tpr_range, standardize)
    if method == "delong":
        no_weights_with_delong(weight, "compare_groups()", "ci='bootstrap'")
        if area.partial:
            msg = "ci='delong' compares full AUCs only; for partial AUCs use ci='bootstrap'"
            raise ValueError(msg)
    roles = Roles(score, label, None, weight, count, pos_label, nulls, direction)
    # With the DeLong test's t and df, and its scratch columns.
    reserved = (*TEST_COLUMNS, "t", "df", "auc", "auc_var", "var", "rows", "group_a", "group_b")
    prep, outer, names = count_two_groups(frame, by, groups, within, roles, reserved=reserved)
    if case is not None:
        _warn_shared_cases(frame, by=by, groups=groups, case=case, score=score)
    if method == "bootstrap":
        result = _bootstrap_groups(
            prep, by, groups, area, conf_level, n_boot, seed, progress, ci_method
        )
        statistic = "z"
    else:
        result, statistic = _delong_groups(prep, by, groups, outer, conf_level), "t"
    result = with_alternative(result, statistic, alternative)
    result = name_pair(result, outer, "group", *names)
    return finish_result(result, eager=prep.eager)  # warned above: the two groups only


def _delong_groups(
    prep: Prepared, by: str, groups: tuple[Any, Any], outer: list[str], conf_level: float
) -> pl.LazyFrame:
    """pROC's unpaired DeLong test per block of ``outer`` holding both ``groups``."""
    per_group = delong_per_group(
        build(prep).filter(pl.col(by).is_in(list(groups))), [*outer, by]
    ).select(
        *outer,
        by,
        "auc",
        pl.col("auc_var").alias("var"),
        (pl.col("n_pos") + pl.col("n_neg")).cast(pl.Float64).alias("rows"),
    )
    # Both groups' columns from one pass over per_group, not a join of two filters of it
    # (which Polars 1.44's subplan elimination panics on); an outer group without both
    # groups has no row, as in an inner join.
    sides = [
        pl.col(c).filter(pl.col(by) == value).first().alias(f"{c}_{suffix}")
        for value, suffix in zip(groups, "ab")
        for c in ("auc", "var", "rows")
    ]
    both = pl.col("rows_a").is_not_null() & pl.col("rows_b").is_not_null()
    if outer:
        joined = per_group.group_by(outer, maintain_order=True).agg(sides).filter(both)
    else:
        joined = per_group.select(sides).filter(both)
    return welch_test(joined, "_a", "_b", conf_level).select(
        *outer, "auc_a", "auc_b", "diff", "se", "t", "df", "p_value", "ci_lower", "ci_upper"
    )


def count_two_groups(
    frame: Frame,
    by: str,
    groups: tuple[Any, Any],
    within: str | Sequence[str] | None,
    roles: Roles,
    *,
    reserved: Sequence[str],
) -> tuple[Prepared, list[str], tuple[pl.Expr, pl.Expr]]:
    """Check ``by``, its two ``groups`` and ``within``; count the rows by ``[*within,
    by]`` (``roles.by`` is not read); check both groups are present and warn of
    single-class groups among them (the results carry no totals to warn from). Return
    the preparation, the ``within`` columns and the groups as literals of ``by``'s type."""
    if not isinstance(by, str):
        msg = f"`by` must name the one column holding the groups to compare, got {by!r}"
        raise TypeError(msg)
    if not isinstance(groups, (tuple, list)) or len(groups) != 2 or groups[0] == groups[1]:
        msg = (
            f"`groups` must be two different values of {by!r}, e.g. ('north', 'south'), "
            f"got {groups!r}"
        )
        raise ValueError(msg)
    outer = [within] if isinstance(within, str) else list(within or [])
    if by in outer:
        msg = f"`within` must not contain the compared column {by!r}, got {within!r}"
        raise ValueError(msg)
    grouped = replace(roles, by=[*outer, by])
    prep = count_rows(frame, grouped, reserved=reserved, group_classes=True).prep
    check_groups_present(prep, by, groups)
    if prep.class_totals is not None:
        warn_single_class(prep.class_totals.filter(pl.col(by).is_in(list(groups))), prep.by)
    dtype = prep.frame.collect_schema()[by]
    return prep, outer, (pl.lit(groups[0], dtype=dtype), pl.lit(groups[1], dtype=dtype))


def welch_test(joined: pl.LazyFrame, a: str, b: str, conf_level: float) -> pl.LazyFrame:
    """pROC's unpaired DeLong test of ``auc{a}`` against ``auc{b}``, from their variances
    ``var{a}``, ``var{b}`` and rows ``rows{a}``, ``rows{b}``: adds ``diff``, ``se``, the
    Welch-type ``df``, ``t``, ``p_value`` and the t interval ``ci_lower``, ``ci_upper``."""
    var_a, var_b = pl.col(f"var{a}"), pl.col(f"var{b}")
    total = var_a + var_b
    level = 1.0 - (1.0 - conf_level) / 2.0
    rows_a, rows_b = pl.col(f"rows{a}"), pl.col(f"rows{b}")
    tested = joined.with_columns(
        (pl.col(f"auc{a}") - pl.col(f"auc{b}")).alias("diff"),
        total.sqrt().alias("se"),
        (total**2 / (var_a**2 / (rows_a - 1) + var_b**2 / (rows_b - 1))).alias("df"),
    )
    crit = map_numpy(lambda df: stdtrit(df, level), "df", name="crit")
    return with_test(tested, "t", t_two_sided_p, crit, "df")


def _warn_shared_cases(
    frame: Frame, *, by: str, groups: tuple[Any, Any], case: str, score: str
) -> None:
    """Warn when the two compared groups hold the same case ids (paired data)."""
    schema = frame.collect_schema()
    if case not in schema:
        raise missing_column("case", case, schema)
    shared = (
        frame.lazy()
        .filter(pl.col(by).is_in(list(groups)) & pl.col(case).is_not_null())
        .group_by(case)
        .agg(pl.col(by).n_unique().alias("__roc_sides"))
        .select((pl.col("__roc_sides") > 1).sum())
        .collect()
        .item()
    )
    if shared:
        msg = (
            f"groups {groups[0]!r} and {groups[1]!r} of {by!r} share {shared} case id(s) "
            f"in {case!r}: the same cases scored twice are paired data, which this unpaired "
            f"test ignores (its se is too large). For the paired test use "
            f"pr.compare_long(frame, {tuple(groups)!r}, model={by!r}, case={case!r}, "
            f"score={score!r})"
        )
        warnings.warn(msg, UserWarning, stacklevel=caller_stacklevel())


def _bootstrap_groups(
    prep: Prepared,
    column: str,
    groups: tuple[Any, Any] | list[Any],
    area: Area,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
    ci_method: IntervalMethod,
) -> pl.LazyFrame:
    """Unpaired bootstrap: every group resampled on its own, differences paired by block."""
    outer = prep.by[:-1]
    cells = resampling_cells(prep).filter(pl.col(column).is_in(list(groups)))

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        sampler, keys = resampler(collected, prep.by)
        indexed = keys.with_row_index("__i")
        sides = [indexed.filter(pl.col(column) == g).drop(column) for g in groups]
        within: dict[str, Any] = {"on": outer, "nulls_equal": True, "maintain_order": "left"}
        how = {"how": "inner", **within} if outer else {"how": "cross"}
        pairs = sides[0].join(sides[1], suffix="_b", **how)
        first, second = pairs["__i"].to_numpy(), pairs["__i_b"].to_numpy()
        pos = collected["pos"].cast(pl.Float64).to_numpy()[None, :]
        neg = collected["neg"].cast(pl.Float64).to_numpy()[None, :]
        original = area.replicates(pos, neg, sampler.layout)[0]

        def statistic(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
            return area.replicates(pos, neg, sampler.layout)

        def accelerate() -> np.ndarray:
            # Each group's AUC depends on its own units only: the jackknife of every
            # group at once gives each group's terms, which the pair adds.
            cubes, squares = acceleration_terms(sampler.jackknife(seed, statistic))
            with np.errstate(divide="ignore", invalid="ignore"):
                return (cubes[first] - cubes[second]) / (
                    6.0 * (squares[first] + squares[second]) ** 1.5
                )

        values = sampler.collect(seed, n_boot, statistic, progress=progress)
        se, lower, upper = bootstrap_interval(
            values[:, first] - values[:, second],
            conf_level,
            method=ci_method,
            estimate=original[first] - original[second],
            accelerate=accelerate,
        )
        columns = z_test_columns(original[first], original[second], se, lower, upper)
        return keyed(pairs.select(outer), columns).fill_nan(None)

    return on_collected(cells, outer, dict.fromkeys(TEST_COLUMNS, pl.Float64), run)
