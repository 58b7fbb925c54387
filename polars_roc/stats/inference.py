"""Statistical inference on ROC curves: confidence intervals, partial AUC, comparisons.

Everything starts from the score table (see ``core/score_table.py``):

- DeLong's standard error from placement values per distinct score (``stats/delong.py``);
- partial areas and points read off the curve (``stats/partial.py``);
- a stratified bootstrap whose replicates are multinomial counts per distinct score
  (``stats/bootstrap.py``), run as one plan node when the caller collects;
- p-values from the normal and Student-t distributions (``stats/distributions.py``).

The functions here validate their arguments before any work, then assemble those pieces
into one lazy plan, and return the caller's kind of frame.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from numbers import Integral
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_roc.core.engine_auc import auc_in_buckets
from polars_roc.core.engines import is_polars, ranks_in_windows
from polars_roc.core.expr_table import IntoExpr, class_sizes, expr_rows
from polars_roc.core.finish import finish_result
from polars_roc.core.score_table import build, group_end, group_start, group_totals
from polars_roc.core.validate import (
    NEG,
    NEG_UNITS,
    POS,
    POS_UNITS,
    SCORE,
    SCORE_B,
    Direction,
    Frame,
    NullPolicy,
    Prepared,
    caller_stacklevel,
    check_conf_level,
    check_rates,
    missing_column,
    normalize_by,
    prepare,
    warn_single_class,
)
from polars_roc.stats.alternative import Alternative, check_alternative, with_alternative
from polars_roc.stats.bootstrap import Resampler, percentile_interval
from polars_roc.stats.delong import clip_unit, delong_per_group
from polars_roc.stats.distributions import (
    normal_quantile,
    normal_two_sided_p,
    t_quantile,
    t_two_sided_p,
)
from polars_roc.stats.partial import Area, Axis, Layout, area_spec, point_replicates, point_values

__all__ = [
    "auc_se",
    "auc_with_inference",
    "compare",
    "compare_groups",
    "compare_long",
    "fpr_at",
    "tpr_at",
]

CiMethod = Literal["delong", "bootstrap"]
POS_ROWS, NEG_ROWS = "__roc_pos_rows", "__roc_neg_rows"


# ---------------------------------------------------------------- argument checks


def check_inference_options(
    *,
    ci: str | None,
    allowed: Sequence[str],
    conf_level: float,
    n_boot: int,
    seed: int | None,
    name: str = "ci",
) -> None:
    if ci is not None and ci not in allowed:
        choices = " or ".join(repr(c) for c in allowed)
        msg = f"`{name}` must be {choices}, got {ci!r}"
        raise ValueError(msg)
    check_conf_level(conf_level)
    if isinstance(n_boot, bool) or not isinstance(n_boot, Integral) or n_boot < 2:
        msg = f"`n_boot` must be an integer >= 2, got {n_boot!r}"
        raise ValueError(msg)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0):
        msg = f"`seed` must be None or a non-negative integer, got {seed!r}"
        raise ValueError(msg)
    _check_unused_options(
        ci=ci, allowed=allowed, conf_level=conf_level, n_boot=n_boot, seed=seed, name=name
    )


def _check_unused_options(
    *,
    ci: str | None,
    allowed: Sequence[str],
    conf_level: float,
    n_boot: int,
    seed: int | None,
    name: str,
) -> None:
    """Refuse interval options given while no interval is asked for (they would do nothing).

    Bootstrap options given with ``ci="delong"`` are let through, so that one set of
    options can serve both methods.
    """
    given = [
        option
        for option, on in (
            ("conf_level", conf_level != 0.95),
            ("n_boot", n_boot != 2000),
            ("seed", seed is not None),
        )
        if on
    ]
    if ci is None and given:
        choices = " or ".join(f"`{name}={c!r}`" for c in allowed)
        verb = "set" if len(given) > 1 else "sets"
        msg = (
            f"`{'`, `'.join(given)}` {verb} a confidence interval, but none is asked for; "
            f"pass {choices}"
        )
        raise ValueError(msg)


def check_groups_present(prep: Prepared, by: str, groups: Sequence[Any]) -> None:
    """Raise, listing the values there are, when a compared group is not in the data."""
    if prep.class_totals is not None:  # the validation pass found the groups
        present = prep.class_totals.get_column(by).unique()
    else:  # one hash pass over one column, before the plan is built
        present = prep.frame.select(pl.col(by).unique()).collect().get_column(by)
    values = present.to_list()
    missing = [g for g in groups if g not in values]
    if missing:
        shown = ", ".join(repr(v) for v in sorted(values, key=str)[:10])
        more = ", ..." if len(values) > 10 else ""
        msg = (
            f"`groups` value(s) {missing!r} not found in column {by!r}; "
            f"its values are [{shown}{more}]"
        )
        raise ValueError(msg)


def no_weights_with_delong(weight: str | None, what: str, instead: str) -> None:
    if weight is not None:
        msg = (
            f"{what} with DeLong's method does not support weights (got weight={weight!r}): "
            f"DeLong's variance counts rows. Use {instead}, which resamples weighted rows; "
            "or, if each row stands for that many identical cases (a count table), pass "
            f"the column as count={weight!r}, which every method handles exactly"
        )
        raise ValueError(msg)


def _rates(name: str, values: float | Sequence[float]) -> list[float]:
    return check_rates(name, values, form="numbers")


# ---------------------------------------------------------------- plan helpers


def _per_group(table: pl.LazyFrame, by: list[str], summary: list[pl.Expr]) -> pl.LazyFrame:
    """One row per group of a score table (groups in table order, i.e. sorted)."""
    if by:
        return table.group_by(by, maintain_order=True).agg(summary)
    return table.select(summary).filter(pl.col("n_pos").is_not_null())


def _attach(result: pl.LazyFrame, extra: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Add ``extra``'s columns to ``result``, matching rows on ``keys`` (nulls match)."""
    if not keys:
        return result.join(extra, how="cross")
    return result.join(extra, on=keys, how="left", nulls_equal=True, maintain_order="left")


def map_numpy(function: Callable[..., np.ndarray], *columns: str, name: str) -> pl.Expr:
    """Apply a vectorised numpy function to Float64 columns (elementwise)."""

    def apply(values: pl.Series) -> pl.Series:
        arrays = [values.struct.field(c).cast(pl.Float64).to_numpy() for c in columns]
        return pl.Series(name, function(*arrays), dtype=pl.Float64).fill_nan(None)

    return (
        pl.struct(columns)
        .map_batches(apply, return_dtype=pl.Float64, is_elementwise=True)
        .alias(name)
    )


def _cells(
    prep: Prepared, table: pl.LazyFrame | None = None, *, keep_score: bool = False
) -> pl.LazyFrame:
    """Resampling cells ``[*by, pos, neg, POS_ROWS, NEG_ROWS]`` in score-table order
    (``[*by, SCORE, ...]`` with ``keep_score``).

    Unweighted, the score table itself (its counts are rows). Weighted, the rows of each
    class per cell are needed besides the weight sums, so the cells are counted here with
    a hash aggregation and only the distinct cells are sorted.
    """
    by = prep.by
    if not prep.weighted:
        # The view's own score table when it has one: one plan node, one read.
        return (build(prep) if table is None else table).select(
            *by,
            *([pl.col("threshold").alias(SCORE)] if keep_score else []),
            "pos",
            "neg",
            pl.col("pos").alias(POS_ROWS),
            pl.col("neg").alias(NEG_ROWS),
        )
    keys = [*by, SCORE]
    cells = (
        prep.frame.group_by(keys)
        # Weight sums added in row order: the same bits on every call.
        .agg(
            _ordered_sum(pl.col(POS)).alias("pos"),
            _ordered_sum(pl.col(NEG)).alias("neg"),
            *_units(prep),
        )
        .sort(keys, descending=[False] * len(by) + [True], nulls_last=False)
    )
    return cells if keep_score else cells.drop(SCORE)


def read_once(prep: Prepared, bootstrap: bool) -> Prepared:
    """``prep`` with its rows cached when a weighted bootstrap reads them twice: the
    score table (a stable sort) and the resampling cells (the weight sums and the rows
    per cell) then share one scan of the source."""
    if bootstrap and prep.weighted:
        return replace(prep, frame=prep.frame.cache())
    return prep


def _units(prep: Prepared) -> list[pl.Expr]:
    """Aggregations giving the units a cell stands for, per class: what the bootstrap
    draws. A weighted row is one unit (it brings its weight); an unweighted row or a
    count-table row stands for its count."""
    if prep.engine_units:
        return [pl.col(POS_UNITS).sum().alias(POS_ROWS), pl.col(NEG_UNITS).sum().alias(NEG_ROWS)]
    if prep.weighted:
        return [
            (pl.col(POS) > 0).sum().cast(pl.Int64).alias(POS_ROWS),
            (pl.col(NEG) > 0).sum().cast(pl.Int64).alias(NEG_ROWS),
        ]
    return [pl.col(POS).sum().alias(POS_ROWS), pl.col(NEG).sum().alias(NEG_ROWS)]


def _resampler(cells: pl.DataFrame, by: list[str]) -> tuple[Resampler, pl.DataFrame]:
    """The resampler of collected cells, and the group keys in order."""
    starts = cells.select(group_start(by).arg_true()).to_series().to_numpy()
    keys = cells.select(by)[starts] if by else pl.DataFrame()

    def column(name: str) -> np.ndarray:
        return cells[name].cast(pl.Float64).to_numpy()

    # The keys seed each group's random streams: a group's draws depend on its key only.
    sampler = Resampler(
        column(POS_ROWS), column(NEG_ROWS), column("pos"), column("neg"), starts, keys
    )
    return sampler, keys


def _keyed(keys: pl.DataFrame, columns: list[pl.Series]) -> pl.DataFrame:
    """``columns`` beside the group ``keys`` (which have no columns when ungrouped)."""
    return keys.hstack(columns) if keys.width else pl.DataFrame(columns)


def _group_schema(frame: pl.LazyFrame, by: list[str]) -> dict[str, Any]:
    schema = frame.collect_schema()
    return {c: schema[c] for c in by}


# ---------------------------------------------------------------- AUC with CI


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
    if ci == "delong" and not is_polars(frame) and count is None and ranks_in_windows(frame):
        # Another engine's rows: placements from ranks in (group, bucket) windows there.
        z = normal_quantile(1.0 - (1.0 - conf_level) / 2.0)
        se = pl.col("auc_var").sqrt()
        return auc_in_buckets(
            frame,
            score=score,
            label=label,
            by=normalize_by(by),
            pos_label=pos_label,
            nulls=nulls,
            direction=direction,
            delong=True,
            reserved=("auc", "auc_se", "ci_lower", "ci_upper", "auc_var"),
        ).select(
            pl.exclude("auc_var"),
            se.alias("auc_se"),
            clip_unit(pl.col("auc") - z * se).alias("ci_lower"),
            clip_unit(pl.col("auc") + z * se).alias("ci_upper"),
        )
    prep = prepare(
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
    )
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
        z = normal_quantile(1.0 - (1.0 - conf_level) / 2.0)
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
            result = _attach(result, intervals, prep.by)
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
    cells = _cells(prep, table)
    by = prep.by
    schema = {
        **_group_schema(cells, by),
        "auc_se": pl.Float64,
        "ci_lower": pl.Float64,
        "ci_upper": pl.Float64,
    }

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        if collected.height == 0:
            return pl.DataFrame(schema=schema)
        sampler, keys = _resampler(collected, by)
        values = sampler.collect(
            seed,
            n_boot,
            lambda pos, neg: area.replicates(pos, neg, sampler.layout),
            progress=progress,
        )
        se, lower, upper = percentile_interval(values, conf_level)
        return _keyed(
            keys,
            [pl.Series("auc_se", se), pl.Series("ci_lower", lower), pl.Series("ci_upper", upper)],
        ).fill_nan(None)

    return cells.map_batches(run, schema=schema)


# ---------------------------------------------------------------- points on the curve


def _at_rate(
    frame: Frame,
    values: float | Sequence[float],
    *,
    given: Axis,
    score: str,
    label: str,
    by: str | Sequence[str] | None,
    weight: str | None,
    count: str | None,
    pos_label: Any,
    nulls: NullPolicy,
    direction: Direction,
    ci: Literal["bootstrap"] | None,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
) -> Frame:
    wanted = "tpr" if given == "fpr" else "fpr"
    targets = _rates(given, values)
    check_inference_options(
        ci=ci, allowed=("bootstrap",), conf_level=conf_level, n_boot=n_boot, seed=seed
    )
    prep = prepare(
        frame,
        score=score,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        reserved=("fpr", "tpr", "ci_lower", "ci_upper"),
    )
    prep = read_once(prep, ci == "bootstrap")
    table = build(prep)
    order = "__roc_order"
    grid = pl.LazyFrame(
        {given: targets, order: range(len(targets))}, schema={given: pl.Float64, order: pl.Int64}
    )
    keys = [*prep.by, given]
    result = (
        table.join(grid, how="cross")
        .group_by([*keys, order])
        .agg(
            point_values(given, pl.col(given)).alias(wanted),
            pl.col("n_pos").first(),
            pl.col("n_neg").first(),
        )
        .sort([*prep.by, order], nulls_last=False)
        .drop(order)
    )
    if ci == "bootstrap":
        cells = _cells(prep, table)
        by = prep.by
        schema = {
            **_group_schema(cells, by),
            given: pl.Float64,
            "ci_lower": pl.Float64,
            "ci_upper": pl.Float64,
        }
        target_array = np.asarray(targets)

        def run(collected: pl.DataFrame) -> pl.DataFrame:
            if collected.height == 0:
                return pl.DataFrame(schema=schema)
            sampler, group_keys = _resampler(collected, by)
            values = sampler.collect(
                seed,
                n_boot,
                lambda pos, neg: point_replicates(given, target_array, pos, neg, sampler.layout),
                progress=progress,
            )
            _, lower, upper = percentile_interval(values, conf_level)
            n_groups, n_targets = lower.shape
            repeated = group_keys[np.repeat(np.arange(n_groups), n_targets)] if by else group_keys
            return _keyed(
                repeated,
                [
                    pl.Series(given, np.tile(target_array, n_groups)),
                    pl.Series("ci_lower", lower.ravel()),
                    pl.Series("ci_upper", upper.ravel()),
                ],
            ).fill_nan(None)

        result = _attach(result, cells.map_batches(run, schema=schema), keys)
    return prep.finish(result, lambda done: group_totals(done, prep.by))


def tpr_at(
    frame: Frame,
    fpr: float | Sequence[float],
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    ci: Literal["bootstrap"] | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    progress: bool = False,
) -> Frame:
    """True positive rate (sensitivity) at given false positive rates, per group.

    Reads the ROC curve at ``fpr`` (1 - specificity): the highest ``tpr`` where the
    curve has a vertical run at that rate, linear interpolation along a diagonal run of
    tied scores; as pROC's ``coords(input="specificity")`` and ``ci.se``.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    fpr
        One false positive rate in [0, 1], or a list of them.
    score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    ci
        ``"bootstrap"`` adds a stratified-bootstrap percentile interval.
    conf_level, n_boot, seed, progress
        As in :func:`polars_roc.roc_auc`.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, fpr, tpr, n_pos, n_neg]`` (+ ``ci_lower, ci_upper``), one row per group
        and requested rate, rates in the order given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.6, 0.4, 0.3], "label": [1, 1, 0, 1, 0, 0]})
    >>> pr.tpr_at(df, [0.0, 0.5])
    shape: (2, 4)
    ┌─────┬──────────┬───────┬───────┐
    │ fpr ┆ tpr      ┆ n_pos ┆ n_neg │
    │ --- ┆ ---      ┆ ---   ┆ ---   │
    │ f64 ┆ f64      ┆ i64   ┆ i64   │
    ╞═════╪══════════╪═══════╪═══════╡
    │ 0.0 ┆ 0.666667 ┆ 3     ┆ 3     │
    │ 0.5 ┆ 1.0      ┆ 3     ┆ 3     │
    └─────┴──────────┴───────┴───────┘
    """
    return _at_rate(
        frame,
        fpr,
        given="fpr",
        score=score,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        ci=ci,
        conf_level=conf_level,
        n_boot=n_boot,
        seed=seed,
        progress=progress,
    )


def fpr_at(
    frame: Frame,
    tpr: float | Sequence[float],
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    ci: Literal["bootstrap"] | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    progress: bool = False,
) -> Frame:
    """False positive rate (1 - specificity) at given true positive rates, per group.

    The lowest ``fpr`` where the curve reaches ``tpr`` (linear along tied runs), as
    pROC's ``coords(input="sensitivity")`` and ``ci.sp``. Parameters as in
    :func:`tpr_at`, with ``tpr`` the requested true positive rate(s).

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, tpr, fpr, n_pos, n_neg]`` (+ ``ci_lower, ci_upper`` of ``fpr``).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.6, 0.4, 0.3], "label": [1, 1, 0, 1, 0, 0]})
    >>> pr.fpr_at(df, 1.0)
    shape: (1, 4)
    ┌─────┬──────────┬───────┬───────┐
    │ tpr ┆ fpr      ┆ n_pos ┆ n_neg │
    │ --- ┆ ---      ┆ ---   ┆ ---   │
    │ f64 ┆ f64      ┆ i64   ┆ i64   │
    ╞═════╪══════════╪═══════╪═══════╡
    │ 1.0 ┆ 0.333333 ┆ 3     ┆ 3     │
    └─────┴──────────┴───────┴───────┘
    """
    return _at_rate(
        frame,
        tpr,
        given="tpr",
        score=score,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        ci=ci,
        conf_level=conf_level,
        n_boot=n_boot,
        seed=seed,
        progress=progress,
    )


# ---------------------------------------------------------------- paired comparison

# Result columns of `compare` (a `by` column must not take them).
COMPARE_COLUMNS = (
    "auc_a",
    "auc_b",
    "diff",
    "se",
    "z",
    "p_value",
    "ci_lower",
    "ci_upper",
    "model_a",
    "model_b",
)


def _paired(
    frame: Frame,
    scores: Sequence[str],
    *,
    label: str,
    by: str | Sequence[str] | None,
    weight: str | None,
    count: str | None,
    pos_label: Any,
    nulls: NullPolicy,
    direction: Direction,
    reserved: Sequence[str] = COMPARE_COLUMNS,
    first: tuple[pl.LazyFrame, Callable[[pl.DataFrame], None]] | None = None,
) -> tuple[Prepared, pl.LazyFrame]:
    """Validate both score columns in one pass; return the preparation and its rows.

    The paired frame is ``[*by, SCORE, POS, NEG, SCORE_B]``. With ``nulls="drop"`` a
    row missing either score is dropped from both. ``first``: a check of the caller's
    run in the same pass, before the value checks (see :func:`prepare`).
    """
    if (
        isinstance(scores, str)
        or not isinstance(scores, Sequence)
        or len(scores) != 2
        or not all(isinstance(s, str) for s in scores)
        or scores[0] == scores[1]
    ):
        msg = (
            "`scores` must name two different score columns, e.g. ['model_a', 'model_b'], "
            f"got {scores!r}"
        )
        raise ValueError(msg)
    prep = prepare(
        frame,
        score=scores[0],
        paired_score=scores[1],
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        reserved=reserved,
        first=first,
    )
    return prep, prep.frame


def compare(
    frame: Frame,
    scores: Sequence[str],
    *,
    label: str = "label",
    by: str | Sequence[str] | None = None,
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
    method: CiMethod | None = None,
    alternative: Alternative = "two-sided",
) -> Frame:
    """Paired test of two scores' AUCs on the same rows, per group.

    ``ci="delong"`` is DeLong's test for two correlated ROC curves, exactly pROC's
    ``roc.test(paired=TRUE, method="delong")``: ``se`` from the placement values of both
    scores (with their covariance), ``z = diff / se``, two-sided normal p-value, and
    ``diff +- z_(1+conf_level)/2 * se`` as the interval. ``ci="bootstrap"`` resamples
    rows (stratified, the same resamples for both scores, so the pairing is kept):
    ``se`` is the standard deviation of the replicate differences, ``z = diff / se``
    with a normal p-value (pROC's ``method="bootstrap"``), and the interval is the
    percentile interval of the replicate differences. Only the bootstrap handles
    weights and partial AUCs.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    scores
        The two score columns ``[a, b]``; ``diff = auc_a - auc_b``.
    label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`; with ``nulls="drop"`` a row missing
        either score is left out of both.
    ci
        The test and its interval: ``"delong"`` (default) or ``"bootstrap"`` (the
        keyword of :func:`polars_roc.roc_auc`).
    conf_level, n_boot, seed, progress
        As in :func:`polars_roc.roc_auc`.
    max_fpr, fpr_range, tpr_range, standardize
        Compare partial AUCs (bootstrap only), as in :func:`polars_roc.roc_auc`.
    method
        Deprecated alias of ``ci`` (warns).
    alternative
        ``"two-sided"`` (default), ``"greater"`` (the alternative is ``auc_a > auc_b``:
        ``p = P(Z >= z)``) or ``"less"`` (``auc_a < auc_b``), as pROC's
        ``roc.test(alternative=)``. Only ``p_value`` changes; the interval stays
        two-sided.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, model_a, model_b, auc_a, auc_b, diff, se, z, p_value, ci_lower,
        ci_upper, n_pos, n_neg]``, one row per group; ``model_a``/``model_b`` name the
        score columns behind ``auc_a``/``auc_b``. ``se`` and what depends on it are null
        when a class has fewer than two rows.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "a": [0.9, 0.8, 0.35, 0.6, 0.3, 0.1, 0.4, 0.2],
    ...     "b": [0.7, 0.4, 0.5, 0.9, 0.6, 0.2, 0.3, 0.8],
    ...     "label": [1, 1, 1, 1, 0, 0, 0, 0],
    ... })
    >>> pr.compare(df, ["a", "b"]).select("auc_a", "auc_b", "diff", "z", "p_value")
    shape: (1, 5)
    ┌────────┬────────┬──────┬─────┬──────────┐
    │ auc_a  ┆ auc_b  ┆ diff ┆ z   ┆ p_value  │
    │ ---    ┆ ---    ┆ ---  ┆ --- ┆ ---      │
    │ f64    ┆ f64    ┆ f64  ┆ f64 ┆ f64      │
    ╞════════╪════════╪══════╪═════╪══════════╡
    │ 0.9375 ┆ 0.6875 ┆ 0.25 ┆ 1.0 ┆ 0.317311 │
    └────────┴────────┴──────┴─────┴──────────┘
    """
    method = _ci_alias(ci, method, "compare")
    area = _compare_options(
        method,
        alternative=alternative,
        weight=weight,
        conf_level=conf_level,
        n_boot=n_boot,
        seed=seed,
        max_fpr=max_fpr,
        fpr_range=fpr_range,
        tpr_range=tpr_range,
        standardize=standardize,
    )
    prep, paired = _paired(
        frame,
        scores,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
    )
    result = _compared(
        prep,
        paired,
        method,
        area,
        alternative=alternative,
        conf_level=conf_level,
        n_boot=n_boot,
        seed=seed,
        progress=progress,
    )
    result = _named(result, prep.by, "model", pl.lit(scores[0]), pl.lit(scores[1]))
    return prep.finish(result, lambda done: group_totals(done, prep.by))


def _compare_options(
    method: CiMethod,
    *,
    alternative: Alternative,
    weight: str | None,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    max_fpr: float | None,
    fpr_range: tuple[float, float] | None,
    tpr_range: tuple[float, float] | None,
    standardize: bool,
) -> Area:
    """Check a paired comparison's options before any read; return its area."""
    check_alternative(alternative)
    check_inference_options(
        ci=method, allowed=("delong", "bootstrap"), conf_level=conf_level, n_boot=n_boot, seed=seed
    )
    area = area_spec(
        max_fpr=max_fpr, fpr_range=fpr_range, tpr_range=tpr_range, standardize=standardize
    )
    if method == "delong":
        no_weights_with_delong(weight, "compare()", "ci='bootstrap'")
        if area.partial:
            msg = (
                "ci='delong' compares full AUCs only (as pROC's roc.test); for partial "
                "AUCs use ci='bootstrap'"
            )
            raise ValueError(msg)
    return area


def _compared(
    prep: Prepared,
    paired: pl.LazyFrame,
    method: CiMethod,
    area: Area,
    *,
    alternative: Alternative,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
) -> pl.LazyFrame:
    """The paired test of prepared rows: DeLong's or the paired bootstrap."""
    if method == "delong":
        result = _delong_paired(prep, paired, conf_level)
    else:
        result = _bootstrap_paired(
            prep,
            paired,
            area,
            conf_level=conf_level,
            n_boot=n_boot,
            seed=seed,
            progress=progress,
        )
    return with_alternative(result, "z", alternative)


def compare_long(
    frame: Frame,
    models: tuple[Any, Any],
    *,
    case: str,
    model: str = "model",
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
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
) -> Frame:
    """Paired test of two models' AUCs from a long log (one row per case and model).

    Many logs store challengers in long format: a ``model`` column, one row per case
    and model. The two models' rows are paired by the ``case`` id (within each group of
    ``by``) and compared with :func:`compare`, so the test is the paired one (DeLong's
    for correlated curves, or the paired bootstrap), not the unpaired test that
    ``compare_groups(by=model)`` would run on the same rows.

    Every case must appear exactly once under each of the two models, with the same
    label (and weight); otherwise a ``ValueError`` says how many cases do not pair up
    and shows some. Checking that reads the data once, before the test.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame``, one row per case and model.
    models
        The two values of ``model`` to compare, ``(a, b)``; ``diff = auc_a - auc_b``.
    case
        The column identifying a case (e.g. a loan id); it names the pairs.
    model
        The column holding the model of each row.
    score, label, by, weight, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`; with ``nulls="drop"`` a case missing
        either model's score is left out of both. (A count table has no case ids to
        pair; count the pairs of scores and use :func:`compare` with ``count=``.)
    ci, conf_level, n_boot, seed, max_fpr, fpr_range, tpr_range, standardize, progress
        As in :func:`compare`.

    Returns
    -------
    DataFrame or LazyFrame
        As :func:`compare`, ``model_a``/``model_b`` holding the two values of ``model``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> wide = pl.DataFrame({
    ...     "id": range(8),
    ...     "champion": [0.9, 0.8, 0.35, 0.6, 0.3, 0.1, 0.4, 0.2],
    ...     "challenger": [0.7, 0.4, 0.5, 0.9, 0.6, 0.2, 0.3, 0.8],
    ...     "label": [1, 1, 1, 1, 0, 0, 0, 0],
    ... })
    >>> log = wide.unpivot(["champion", "challenger"], index=["id", "label"],
    ...                    variable_name="model", value_name="score")
    >>> pr.compare_long(log, ("champion", "challenger"), case="id").select(
    ...     "model_a", "model_b", "auc_a", "auc_b", "z", "p_value")
    shape: (1, 6)
    ┌──────────┬────────────┬────────┬────────┬─────┬──────────┐
    │ model_a  ┆ model_b    ┆ auc_a  ┆ auc_b  ┆ z   ┆ p_value  │
    │ ---      ┆ ---        ┆ ---    ┆ ---    ┆ --- ┆ ---      │
    │ str      ┆ str        ┆ f64    ┆ f64    ┆ f64 ┆ f64      │
    ╞══════════╪════════════╪════════╪════════╪═════╪══════════╡
    │ champion ┆ challenger ┆ 0.9375 ┆ 0.6875 ┆ 1.0 ┆ 0.317311 │
    └──────────┴────────────┴────────┴────────┴─────┴──────────┘
    """
    if not isinstance(models, (tuple, list)) or len(models) != 2 or models[0] == models[1]:
        msg = (
            f"`models` must be two different values of the {model!r} column, e.g. "
            f"('champion', 'challenger'), got {models!r}"
        )
        raise ValueError(msg)
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        msg = f"expected a polars DataFrame or LazyFrame, got {type(frame).__name__}"
        raise TypeError(msg)
    schema = frame.collect_schema()
    groups = normalize_by(by)
    extra = [weight] if weight is not None else []
    for role, name in [
        ("case", case),
        ("model", model),
        ("score", score),
        ("label", label),
        *(("by", c) for c in groups),
        *(("weight", c) for c in extra),
    ]:
        if not isinstance(name, str):
            msg = f"`{role}` must be a column name, got {name!r}"
            raise TypeError(msg)
        if name not in schema:
            raise missing_column(role, name, schema)
    if model in (case, score, label, *groups, *extra) or case in (score, label, *groups):
        msg = (
            f"`case` ({case!r}) and `model` ({model!r}) must be columns of their own, "
            f"not the score, label, weight or by columns"
        )
        raise ValueError(msg)
    area = _compare_options(
        ci,
        alternative="two-sided",
        weight=weight,
        conf_level=conf_level,
        n_boot=n_boot,
        seed=seed,
        max_fpr=max_fpr,
        fpr_range=fpr_range,
        tpr_range=tpr_range,
        standardize=standardize,
    )
    names = [f"{score}[{models[0]}]", f"{score}[{models[1]}]"]
    keys = [*groups, case]
    # Cached: the pairing check and the two sides of the join read the source once,
    # in the one pass that also checks the paired rows' values.
    lazy = frame.lazy().cache()
    pairing = _pairing_check(
        lazy, models, keys=keys, model=model, case=case, shared=[label, *extra]
    )
    sides = [
        lazy.filter(pl.col(model) == value).select(
            *keys, *([label, *extra] if i == 0 else []), pl.col(score).alias(name)
        )
        for i, (value, name) in enumerate(zip(models, names, strict=True))
    ]
    wide = sides[0].join(sides[1], on=keys, how="inner", nulls_equal=True, maintain_order="left")
    paired: Frame = wide.collect() if isinstance(frame, pl.DataFrame) else wide
    prep, rows = _paired(
        paired,
        names,
        label=label,
        by=by,
        weight=weight,
        count=None,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        first=pairing,
    )
    compared = _compared(
        prep,
        rows,
        ci,
        area,
        alternative="two-sided",
        conf_level=conf_level,
        n_boot=n_boot,
        seed=seed,
        progress=progress,
    )
    compared = _named(compared, prep.by, "model", pl.lit(names[0]), pl.lit(names[1]))
    result = prep.finish(compared, lambda done: group_totals(done, prep.by))
    dtype = schema[model]
    return result.with_columns(
        pl.lit(models[0], dtype=dtype).alias("model_a"),
        pl.lit(models[1], dtype=dtype).alias("model_b"),
    )


def _pairing_check(
    frame: pl.LazyFrame,
    models: tuple[Any, Any] | list[Any],
    *,
    keys: list[str],
    model: str,
    case: str,
    shared: list[str],
) -> tuple[pl.LazyFrame, Callable[[pl.DataFrame], None]]:
    """The plan that counts each case's rows per model, and the check of its result:
    raise unless every case appears once under each model, with the same label."""
    a, b = (pl.col(model) == value for value in models)
    per_case = (
        frame.filter(pl.col(model).is_in(list(models)))
        .group_by(keys)
        .agg(
            a.sum().alias("__n_a"),
            b.sum().alias("__n_b"),
            *(pl.col(c).n_unique().alias(f"__agree_{i}") for i, c in enumerate(shared)),
        )
    )
    n_a, n_b = pl.col("__n_a"), pl.col("__n_b")
    disagree = pl.any_horizontal(
        [pl.col(f"__agree_{i}") > 1 for i in range(len(shared))] or [pl.lit(False)]
    )
    problems = {
        f"only under {models[0]!r}": (n_a > 0) & (n_b == 0),
        f"only under {models[1]!r}": (n_b > 0) & (n_a == 0),
        "more than once under one model": (n_a > 1) | (n_b > 1),
        f"with different {' or '.join(repr(c) for c in shared)} under the two models": (n_a == 1)
        & (n_b == 1)
        & disagree,
    }
    plan = per_case.select(
        *(expr.sum().alias(f"n{i}") for i, expr in enumerate(problems.values())),
        *(
            pl.col(case).filter(expr).head(3).implode().alias(f"e{i}")
            for i, expr in enumerate(problems.values())
        ),
        pl.len().alias("cases"),
    )
    return plan, partial(
        _raise_on_pairs, problems=list(problems), models=models, model=model, case=case
    )


def _raise_on_pairs(
    found: pl.DataFrame,
    *,
    problems: list[str],
    models: tuple[Any, Any] | list[Any],
    model: str,
    case: str,
) -> None:
    """Raise unless every case pairs up (the result of :func:`_pairing_check`'s plan)."""
    counts = [found[f"n{i}"][0] for i in range(len(problems))]
    if found["cases"][0] == 0:
        msg = f"no rows of model {models[0]!r} or {models[1]!r} in column {model!r}"
        raise ValueError(msg)
    if any(counts):
        details = "; ".join(
            f"{count} case(s) {what} (e.g. {found[f'e{i}'][0].to_list()!r})"
            for i, (what, count) in enumerate(zip(problems, counts, strict=True))
            if count
        )
        msg = (
            f"cases in {case!r} do not pair up between models {models[0]!r} and "
            f"{models[1]!r}: {details}. A paired test needs each case exactly once under "
            "each model; filter the log to the cases both models scored, or compare the "
            "models unpaired with compare_groups()"
        )
        raise ValueError(msg)


def _ci_alias(ci: str, method: str | None, function: str) -> Any:
    """The interval method of a comparison: ``ci``, or the deprecated ``method``."""
    if method is None:
        return ci
    warnings.warn(
        f"`method=` of {function}() is deprecated; pass ci={method!r} instead (the "
        "keyword of roc_auc)",
        DeprecationWarning,
        stacklevel=caller_stacklevel(),
    )
    if ci != "delong" and ci != method:
        msg = f"pass the interval method once, as `ci`; got ci={ci!r} and method={method!r}"
        raise ValueError(msg)
    return method


def _named(result: pl.LazyFrame, by: list[str], kind: str, a: pl.Expr, b: pl.Expr) -> pl.LazyFrame:
    """Put ``{kind}_a``/``{kind}_b`` (what ``auc_a``/``auc_b`` are of) after the groups."""
    named = [a.alias(f"{kind}_a"), b.alias(f"{kind}_b")]
    return result.select(*by, *named, pl.all().exclude(by))


def _running(column: str, by: list[str]) -> pl.Expr:
    """Running sum of an Int64 count column, restarting at each group (rows sorted by
    ``by``): one cumulative sum minus its value before the group, exact for integers."""
    running = pl.col(column).cum_sum()
    if not by:
        return running
    return running - pl.when(group_start(by)).then(running - pl.col(column)).forward_fill()


def _with_placements(rows: pl.LazyFrame, by: list[str], key: str, suffix: str) -> pl.LazyFrame:
    """Sort ``rows`` by group and ``key`` (descending) and add each row's placements.

    The paired test needs the placements of *both* scores on the same row, which the
    per-score tables no longer hold; so, as in Sun & Xu's algorithm, the rows are
    sorted once per score, and each row reads the running counts at the two ends of its
    run of tied scores (filled backward from the run's end, forward from its start).
    """
    keys = [*by, key]
    tp, fp = pl.col("__tp"), pl.col("__fp")
    run_start, run_end = pl.col("__start"), pl.col("__end")

    def at_or_above(cum: pl.Expr) -> pl.Expr:  # running count at the end of the run
        return pl.when(run_end).then(cum).backward_fill().cast(pl.Float64)

    def above(cum: pl.Expr, col: str) -> pl.Expr:  # running count before the run
        return pl.when(run_start).then(cum - pl.col(col)).forward_fill().cast(pl.Float64)

    if by:
        at_end = group_end(by)
        n_pos = pl.when(at_end).then(tp).backward_fill().cast(pl.Float64)
        n_neg = pl.when(at_end).then(fp).backward_fill().cast(pl.Float64)
    else:
        n_pos, n_neg = tp.last().cast(pl.Float64), fp.last().cast(pl.Float64)
    return (
        # Ties of ``key`` ordered by the other score: an unordered tie run would make the
        # sums below add in a run-to-run varying order (last-digit differences).
        rows.sort(
            [*keys, SCORE_B if key == SCORE else SCORE],
            descending=[False] * len(by) + [True, True],
            nulls_last=False,
        )
        .with_columns(
            _running(POS, by).alias("__tp"),
            _running(NEG, by).alias("__fp"),
            group_start(keys).alias("__start"),
            group_end(keys).alias("__end"),
        )
        .with_columns(
            # v10: negatives below, ties half; v01: positives above, ties half.
            ((n_neg - (at_or_above(fp) + above(fp, NEG)) / 2) / n_neg).alias(f"v10_{suffix}"),
            ((at_or_above(tp) + above(tp, POS)) / 2 / n_pos).alias(f"v01_{suffix}"),
        )
        .drop("__tp", "__fp", "__start", "__end")
    )


# Below this share of distinct (score_a, score_b) pairs among the rows, counting the pairs
# first (a hash aggregation) leaves fewer rows to sort.
PAIR_COLLAPSE_MAX_RATIO = 0.25


def _ordered_sum(values: pl.Expr) -> pl.Expr:
    """Sum of floats added in row order (a running sum's last value), so the same rows
    give the same bits on every run; a plain ``sum`` may add thread-dependent partial
    sums in a varying order."""
    return values.cum_sum().last()


def _ordered_sum_of_squares(count: pl.Expr, value: pl.Expr) -> pl.Expr:
    """``sum_of_squares`` with its float sums added in row order."""
    return _ordered_sum(count * value * value) - _ordered_sum(count * value) ** 2 / count.sum()


def _delong_paired(prep: Prepared, paired: pl.LazyFrame, conf_level: float) -> pl.LazyFrame:
    by = prep.by
    rows = paired
    if prep.n_distinct * prep.paired_distinct <= PAIR_COLLAPSE_MAX_RATIO * prep.n_rows:
        rows = paired.group_by([*by, SCORE, SCORE_B]).agg(pl.col(POS).sum(), pl.col(NEG).sum())
    rows = _with_placements(_with_placements(rows, by, SCORE, "a"), by, SCORE_B, "b")
    pos, neg = pl.col(POS).cast(pl.Float64), pl.col(NEG).cast(pl.Float64)
    m, n = pos.sum(), neg.sum()
    auc_a = _ordered_sum(pos * pl.col("v10_a")) / m
    auc_b = _ordered_sum(pos * pl.col("v10_b")) / m
    # L S L' with L = (1, -1) is the variance of the difference of the placements.
    s10 = _ordered_sum_of_squares(pos, pl.col("v10_a") - pl.col("v10_b")) / (m - 1)
    s01 = _ordered_sum_of_squares(neg, pl.col("v01_a") - pl.col("v01_b")) / (n - 1)
    variance = s10.clip(lower_bound=0.0) / m + s01.clip(lower_bound=0.0) / n
    valid = (m > 0) & (n > 0)
    summary = [
        pl.when(valid).then(auc_a).alias("auc_a"),
        pl.when(valid).then(auc_b).alias("auc_b"),
        pl.when((m > 1) & (n > 1)).then(variance.sqrt()).alias("se"),
        pl.col(POS).sum().alias("n_pos"),
        pl.col(NEG).sum().alias("n_neg"),
    ]
    if by:
        per_group = rows.group_by(by).agg(summary).sort(by, nulls_last=False)
    else:
        per_group = rows.select(summary).filter(pl.col("n_pos") + pl.col("n_neg") > 0)
    crit = normal_quantile(1.0 - (1.0 - conf_level) / 2.0)
    diff, se = pl.col("diff"), pl.col("se")
    return (
        per_group.with_columns((pl.col("auc_a") - pl.col("auc_b")).alias("diff"))
        .with_columns(
            # pROC: 0/0 (identical curves) is z = 0.
            pl.when((se == 0) & (diff == 0)).then(0.0).otherwise(diff / se).alias("z")
        )
        .with_columns(
            map_numpy(normal_two_sided_p, "z", name="p_value"),
            (diff - crit * se).alias("ci_lower"),
            (diff + crit * se).alias("ci_upper"),
        )
        .select(
            *by,
            "auc_a",
            "auc_b",
            "diff",
            "se",
            "z",
            "p_value",
            "ci_lower",
            "ci_upper",
            "n_pos",
            "n_neg",
        )
    )


def _fold(values: np.ndarray, ids: np.ndarray, width: int) -> np.ndarray:
    """Add up the columns of ``values`` (replicates x cells) into ``width`` bins by ``ids``."""
    n_rep = values.shape[0]
    flat = (np.arange(n_rep)[:, None] * width + ids[None, :]).ravel()
    summed = np.bincount(flat, weights=values.ravel(), minlength=n_rep * width)
    return summed.reshape(n_rep, width)


def _bootstrap_paired(
    prep: Prepared,
    paired: pl.LazyFrame,
    area: Area,
    *,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
) -> pl.LazyFrame:
    """Paired bootstrap: resample rows, i.e. cells of distinct ``(score_a, score_b)``.

    Each cell knows its rank among the distinct ``score_a`` (and ``score_b``) of its
    group, so a replicate's counts per pair add up to each score's own table with one
    ``bincount``.
    """
    by = prep.by
    descending = [False] * len(by) + [True]

    def dense_id(key: str) -> pl.Expr:
        return (group_start([*by, key]).cum_sum() - 1).alias(f"{key}_id")

    cells = (
        paired.group_by([*by, SCORE, SCORE_B])
        .agg(
            pl.col(POS).sum().alias("pos"),
            pl.col(NEG).sum().alias("neg"),
            *_units(prep),
        )
        .sort([*by, SCORE], descending=descending, nulls_last=False)
        .with_columns(dense_id(SCORE))
        # Ties of score_b ordered by score_a: the cells' order, hence the draws, is fixed.
        .sort([*by, SCORE_B, SCORE], descending=[*descending, True], nulls_last=False)
        .with_columns(dense_id(SCORE_B))
    )
    stats = ["auc_a", "auc_b", "diff", "se", "z", "p_value", "ci_lower", "ci_upper"]
    counts_dtype = prep.count_dtype
    schema = {
        **_group_schema(cells, by),
        **dict.fromkeys(stats, pl.Float64),
        "n_pos": counts_dtype,
        "n_neg": counts_dtype,
    }

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        if collected.height == 0:
            return pl.DataFrame(schema=schema)
        sampler, keys = _resampler(collected, by)
        starts = sampler.layout.starts
        ids, layouts = {}, {}
        for key in (SCORE, SCORE_B):
            ids[key] = collected[f"{key}_id"].to_numpy()
            first = np.minimum.reduceat(ids[key], starts)
            layouts[key] = Layout(first, np.append(first[1:], ids[key].max() + 1) - first)

        def both(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
            """The area of each score per replicate and group: ``(R, G, 2)``."""
            areas = []
            for key in (SCORE, SCORE_B):
                width = int(ids[key].max()) + 1
                folded_pos = _fold(pos, ids[key], width)
                folded_neg = _fold(neg, ids[key], width)
                areas.append(area.replicates(folded_pos, folded_neg, layouts[key]))
            return np.stack(areas, axis=-1)

        original = both(
            collected["pos"].cast(pl.Float64).to_numpy()[None, :],
            collected["neg"].cast(pl.Float64).to_numpy()[None, :],
        )[0]
        replicates = sampler.collect(seed, n_boot, both, progress=progress)
        differences = replicates[..., 0] - replicates[..., 1]
        se, lower, upper = percentile_interval(differences, conf_level)
        diff = original[:, 0] - original[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where((se == 0) & (diff == 0), 0.0, diff / se)
        n_pos = np.add.reduceat(collected["pos"].to_numpy(), starts)
        n_neg = np.add.reduceat(collected["neg"].to_numpy(), starts)
        columns = dict(
            auc_a=original[:, 0],
            auc_b=original[:, 1],
            diff=diff,
            se=se,
            z=z,
            p_value=normal_two_sided_p(z),
            ci_lower=lower,
            ci_upper=upper,
        )
        return _keyed(
            keys,
            [
                *(pl.Series(name, values, dtype=pl.Float64) for name, values in columns.items()),
                pl.Series("n_pos", n_pos).cast(counts_dtype),
                pl.Series("n_neg", n_neg).cast(counts_dtype),
            ],
        ).fill_nan(None)

    return cells.map_batches(run, schema=schema)


# ---------------------------------------------------------------- unpaired comparison


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
    interval of the differences; it handles weights and partial AUCs.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction.
    by
        The column holding the groups to compare.
    groups
        The two values of ``by`` to compare, ``(a, b)``; ``diff = auc_a - auc_b``.
    within
        Optional column(s): run the comparison separately in each of their groups.
    score, label, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table` (weights need ``ci="bootstrap"``).
    ci
        The test and its interval: ``"delong"`` (default) or ``"bootstrap"``.
    conf_level
        Confidence level of the interval of ``diff``.
    n_boot, seed, progress
        As in :func:`polars_roc.roc_auc` (bootstrap only).
    max_fpr, fpr_range, tpr_range, standardize
        Compare partial AUCs (bootstrap only), as in :func:`polars_roc.roc_auc`.
    case
        Optional case-id column. When the two groups share case ids, the same cases
        were scored twice (e.g. two models in long format): a warning says so and points
        to :func:`compare_long`, the paired test, since this unpaired test ignores the
        pairing.
    method
        Deprecated alias of ``ci`` (warns).
    alternative
        ``"two-sided"`` (default), ``"greater"`` (``auc_a > auc_b``) or ``"less"``, as
        in :func:`compare`; the DeLong p-value is then a one-sided tail of Student's t.

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
    if not isinstance(by, str):
        msg = f"`by` must name the one column holding the groups to compare, got {by!r}"
        raise TypeError(msg)
    if not isinstance(groups, (tuple, list)) or len(groups) != 2 or groups[0] == groups[1]:
        msg = (
            f"`groups` must be two different values of {by!r}, e.g. ('north', 'south'), "
            f"got {groups!r}"
        )
        raise ValueError(msg)
    method = _ci_alias(ci, method, "compare_groups")
    check_alternative(alternative)
    check_inference_options(
        ci=method, allowed=("delong", "bootstrap"), conf_level=conf_level, n_boot=n_boot, seed=seed
    )
    area = area_spec(
        max_fpr=max_fpr, fpr_range=fpr_range, tpr_range=tpr_range, standardize=standardize
    )
    if method == "delong":
        no_weights_with_delong(weight, "compare_groups()", "ci='bootstrap'")
        if area.partial:
            msg = "ci='delong' compares full AUCs only; for partial AUCs use ci='bootstrap'"
            raise ValueError(msg)
    outer = [within] if isinstance(within, str) else list(within or [])
    if by in outer:
        msg = f"`within` must not contain the compared column {by!r}, got {within!r}"
        raise ValueError(msg)
    prep = prepare(
        frame,
        score=score,
        label=label,
        by=[*outer, by],
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        reserved=(
            "auc_a",
            "auc_b",
            "diff",
            "se",
            "t",
            "z",
            "df",
            "p_value",
            "ci_lower",
            "ci_upper",
            "auc",
            "auc_var",
            "var",
            "rows",
            "group_a",
            "group_b",
        ),
        group_classes=True,
    )
    check_groups_present(prep, by, groups)
    if prep.class_totals is not None:  # the results carry no totals: warn from the check
        warn_single_class(prep.class_totals.filter(pl.col(by).is_in(list(groups))), prep.by)
    if case is not None:
        _warn_shared_cases(frame, by=by, groups=groups, case=case, score=score)
    dtype = prep.frame.collect_schema()[by]
    names = (pl.lit(groups[0], dtype=dtype), pl.lit(groups[1], dtype=dtype))
    if method == "bootstrap":
        result = _bootstrap_groups(
            prep,
            by,
            groups,
            area,
            conf_level=conf_level,
            n_boot=n_boot,
            seed=seed,
            progress=progress,
        )
        result = with_alternative(result, "z", alternative)
        result = _named(result, outer, "group", *names)
        return finish_result(result, eager=prep.eager)  # warned above: the two groups only
    per_group = delong_per_group(
        build(prep).filter(pl.col(by).is_in(list(groups))), [*outer, by]
    ).select(
        *outer,
        by,
        "auc",
        pl.col("auc_var").alias("var"),
        (pl.col("n_pos") + pl.col("n_neg")).cast(pl.Float64).alias("rows"),
    )

    def side(value: Any, suffix: str) -> pl.LazyFrame:
        return per_group.filter(pl.col(by) == value).select(
            *outer, *(pl.col(c).alias(f"{c}_{suffix}") for c in ("auc", "var", "rows"))
        )

    if outer:
        joined = side(groups[0], "a").join(
            side(groups[1], "b"), on=outer, how="inner", nulls_equal=True, maintain_order="left"
        )
    else:
        joined = side(groups[0], "a").join(side(groups[1], "b"), how="cross")
    var_a, var_b = pl.col("var_a"), pl.col("var_b")
    total = var_a + var_b
    level = 1.0 - (1.0 - conf_level) / 2.0
    result = (
        joined.with_columns(
            (pl.col("auc_a") - pl.col("auc_b")).alias("diff"),
            total.sqrt().alias("se"),
            (
                total**2 / (var_a**2 / (pl.col("rows_a") - 1) + var_b**2 / (pl.col("rows_b") - 1))
            ).alias("df"),
        )
        .with_columns(
            pl.when((pl.col("se") == 0) & (pl.col("diff") == 0))
            .then(0.0)
            .otherwise(pl.col("diff") / pl.col("se"))
            .alias("t")
        )
        .with_columns(
            map_numpy(t_two_sided_p, "t", "df", name="p_value"),
            map_numpy(lambda df: t_quantile(level, df), "df", name="__crit"),
        )
        .with_columns(
            (pl.col("diff") - pl.col("__crit") * pl.col("se")).alias("ci_lower"),
            (pl.col("diff") + pl.col("__crit") * pl.col("se")).alias("ci_upper"),
        )
        .select(
            *outer, "auc_a", "auc_b", "diff", "se", "t", "df", "p_value", "ci_lower", "ci_upper"
        )
    )
    result = with_alternative(result, "t", alternative)
    result = _named(result, outer, "group", *names)
    return finish_result(result, eager=prep.eager)  # warned above: the two groups only


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
    *,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
) -> pl.LazyFrame:
    """Unpaired bootstrap: every group resampled on its own, differences paired by block."""
    outer = prep.by[:-1]
    cells = _cells(prep).filter(pl.col(column).is_in(list(groups)))
    stats = ["auc_a", "auc_b", "diff", "se", "z", "p_value", "ci_lower", "ci_upper"]
    schema = {**_group_schema(cells, outer), **dict.fromkeys(stats, pl.Float64)}

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        if collected.height == 0:
            return pl.DataFrame(schema=schema)
        sampler, keys = _resampler(collected, prep.by)
        indexed = keys.with_row_index("__i")
        sides = [indexed.filter(pl.col(column) == g).drop(column) for g in groups]
        if outer:
            pairs = sides[0].join(
                sides[1],
                on=outer,
                how="inner",
                nulls_equal=True,
                maintain_order="left",
                suffix="_b",
            )
        else:
            pairs = sides[0].join(sides[1], how="cross", suffix="_b")
        first, second = pairs["__i"].to_numpy(), pairs["__i_b"].to_numpy()
        pos = collected["pos"].cast(pl.Float64).to_numpy()[None, :]
        neg = collected["neg"].cast(pl.Float64).to_numpy()[None, :]
        original = area.replicates(pos, neg, sampler.layout)[0]
        values = sampler.collect(
            seed,
            n_boot,
            lambda p, n: area.replicates(p, n, sampler.layout),
            progress=progress,
        )
        se, lower, upper = percentile_interval(values[:, first] - values[:, second], conf_level)
        diff = original[first] - original[second]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where((se == 0) & (diff == 0), 0.0, diff / se)
        columns = dict(
            auc_a=original[first],
            auc_b=original[second],
            diff=diff,
            se=se,
            z=z,
            p_value=normal_two_sided_p(z),
            ci_lower=lower,
            ci_upper=upper,
        )
        return _keyed(
            pairs.select(outer),
            [pl.Series(name, values, dtype=pl.Float64) for name, values in columns.items()],
        ).fill_nan(None)

    return cells.map_batches(run, schema=schema)


# ---------------------------------------------------------------- expression


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
