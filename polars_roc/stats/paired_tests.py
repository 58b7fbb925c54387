"""Paired tests of two AUCs on the same cases: DeLong's test and the paired bootstrap.

``compare`` takes two score columns of one log, ``compare_long`` a long log with one
row per case and model, whose rows it pairs by case id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_flags, check_rates
from polars_roc.core.case_pairs import pair_cases
from polars_roc.core.counting import count_rows, source_schema
from polars_roc.core.score_table import cumulate, group_end, group_start, group_totals
from polars_roc.core.validate import (
    NEG,
    POS,
    SCORE,
    SCORE_B,
    Direction,
    Frame,
    NullPolicy,
    Prepared,
    missing_column,
)
from polars_roc.stats.alternative import Alternative, check_alternative, with_alternative
from polars_roc.stats.bootstrap import IntervalMethod, acceleration, bootstrap_interval
from polars_roc.stats.cells import keyed, on_collected, ordered_sum, resampler, unit_counts
from polars_roc.stats.distributions import map_numpy, normal_two_sided_p, two_sided_z
from polars_roc.stats.options import (
    CiMethod,
    check_inference_options,
    ci_alias,
    no_weights_with_delong,
)
from polars_roc.stats.partial import Area, Layout, RateAt, area_spec

__all__ = [
    "compare",
    "compare_long",
    "delong_variance",
    "name_pair",
    "per_group_placements",
    "two_scores",
    "with_test",
    "z_test_columns",
]


# The columns of a z test of two AUCs, in result order.
TEST_COLUMNS = ("auc_a", "auc_b", "diff", "se", "z", "p_value", "ci_lower", "ci_upper")
# Result columns of `compare` (a `by` column must not take them).
COMPARE_COLUMNS = (*TEST_COLUMNS, "model_a", "model_b")
# Further result columns of `compare(at_fpr=)` / `compare(at_tpr=)`.
RATE_COLUMNS = ("fpr", "tpr", "tpr_a", "tpr_b", "fpr_a", "fpr_b")


def two_scores(scores: Sequence[str]) -> tuple[str, str]:
    """The two score columns of a paired comparison, checked before any read."""
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
    return scores[0], scores[1]


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
    ci_method: IntervalMethod = "percentile",
    at_fpr: float | None = None,
    at_tpr: float | None = None,
) -> Frame:
    """Paired test of two scores' AUCs on the same rows, per group.

    ``ci="delong"`` is DeLong's test for two correlated ROC curves, pROC's
    ``roc.test(paired=TRUE, method="delong")``: ``z = diff / se``, a normal p-value and
    the interval ``diff +- z * se``. ``ci="bootstrap"`` resamples rows (stratified, the
    same resamples for both scores): ``se`` is the replicate differences' standard
    deviation, the interval their percentile (or BCa) interval; it alone takes weights,
    partial AUCs and ``at_fpr=`` / ``at_tpr=``, which compare the two true positive
    rates at one false positive rate (or the false positive rates at one true positive
    rate): pROC's ``roc.test(method="specificity" | "sensitivity")``, with ``diff`` in
    false positive rates for ``at_tpr=`` (pROC's sign flipped). docs/inference.md
    ("Comparing two models on the same rows") gives the details.

    Parameters
    ----------
    scores
        The two score columns ``[a, b]``; ``diff = auc_a - auc_b``.
    frame, label, by, weight, count, pos_label, nulls, direction
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
    ci_method
        ``"percentile"`` (default) or ``"bca"``: how the bootstrap interval of ``diff``
        is read off the replicates (BCa: bias-corrected and accelerated, the
        acceleration from the jackknife of ``diff``, as :func:`polars_roc.roc_auc`).
        ``se``, ``z`` and ``p_value`` do not change.
    at_fpr, at_tpr
        Compare the rates at one fixed value of the other rate (see above), a number in
        [0, 1]; at most one, with ``ci="bootstrap"``.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, model_a, model_b, auc_a, auc_b, diff, se, z, p_value, ci_lower,
        ci_upper, n_pos, n_neg]``, one row per group; ``model_a``/``model_b`` name the
        score columns behind ``auc_a``/``auc_b``. ``se`` and what depends on it are null
        when a class has fewer than two rows. With ``at_fpr=``: ``[*by, model_a,
        model_b, fpr, tpr_a, tpr_b, diff, ...]``; with ``at_tpr=``: ``[*by, model_a,
        model_b, tpr, fpr_a, fpr_b, diff, ...]`` (``diff`` is ``tpr_a - tpr_b``,
        respectively ``fpr_a - fpr_b``).

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

    Sensitivities at a false positive rate of 0.25 (specificity 0.75):

    >>> pr.compare(df, ["a", "b"], ci="bootstrap", at_fpr=0.25, seed=1, n_boot=200).select(
    ...     "fpr", "tpr_a", "tpr_b", "diff")
    shape: (1, 4)
    ┌──────┬───────┬───────┬──────┐
    │ fpr  ┆ tpr_a ┆ tpr_b ┆ diff │
    │ ---  ┆ ---   ┆ ---   ┆ ---  │
    │ f64  ┆ f64   ┆ f64   ┆ f64  │
    ╞══════╪═══════╪═══════╪══════╡
    │ 0.25 ┆ 1.0   ┆ 0.5   ┆ 0.5  │
    └──────┴───────┴───────┴──────┘
    """
    check_flags(progress=progress)
    method = ci_alias(ci, method, "compare")
    check_alternative(alternative)
    check_inference_options(method, ("delong", "bootstrap"), conf_level, n_boot, seed, ci_method)
    area = _compared_statistic(
        method, weight, area_spec(max_fpr, fpr_range, tpr_range, standardize), at_fpr, at_tpr
    )
    first, second = two_scores(scores)
    roles = Roles(first, label, by, weight, count, pos_label, nulls, direction)
    reserved = COMPARE_COLUMNS + (RATE_COLUMNS if isinstance(area, RateAt) else ())
    prep = count_rows(frame, roles, reserved=reserved, paired_score=second).prep
    models = (pl.lit(scores[0]), pl.lit(scores[1]))
    return _compared(
        prep, models, method, area, alternative, conf_level, n_boot, seed, progress, ci_method
    )


def _compared_statistic(
    method: CiMethod, weight: str | None, area: Area, at_fpr: float | None, at_tpr: float | None
) -> Area | RateAt:
    """Check a paired comparison's options before any read; return what it compares:
    ``area``, or one rate at a fixed value of the other."""
    rates = {k: v for k, v in (("at_fpr", at_fpr), ("at_tpr", at_tpr)) if v is not None}
    if rates:
        if len(rates) > 1 or area.partial:
            given = [*rates, *(["a partial area"] if area.partial else [])]
            msg = (
                "pass one of at_fpr, at_tpr (a rate at a fixed value of the other) or a "
                f"partial area (max_fpr, fpr_range, tpr_range), got {given!r}"
            )
            raise ValueError(msg)
        name, value = next(iter(rates.items()))
        if method != "bootstrap":
            msg = (
                f"{name}= compares the rates with pROC's bootstrap test "
                f"(roc.test(method='sensitivity' | 'specificity')); pass ci='bootstrap'"
            )
            raise ValueError(msg)
        (at,) = check_rates(name, value)
        return RateAt("fpr" if name == "at_fpr" else "tpr", at)
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
    models: tuple[pl.Expr, pl.Expr],
    method: CiMethod,
    area: Area | RateAt,
    alternative: Alternative,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
    ci_method: IntervalMethod,
) -> Frame:
    """The paired test of prepared rows, DeLong's or the paired bootstrap, its result
    finished with the ``models`` compared."""
    if method == "delong":
        result = _delong_paired(prep, conf_level)
    else:
        result = _bootstrap_paired(prep, area, conf_level, n_boot, seed, progress, ci_method)
    result = with_alternative(result, "z", alternative)
    if isinstance(area, RateAt):  # the compared rates named, the fixed rate after the models
        named = result.rename({"auc_a": f"{area.read}_a", "auc_b": f"{area.read}_b"})
        fixed = pl.lit(area.at, dtype=pl.Float64).alias(area.given)
        result = named.select(*prep.by, fixed, pl.all().exclude(prep.by))
    result = name_pair(result, prep.by, "model", *models)
    return prep.finish(result, lambda done: group_totals(done, prep.by))


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
    ci_method: IntervalMethod = "percentile",
    at_fpr: float | None = None,
    at_tpr: float | None = None,
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
        A polars ``DataFrame`` or ``LazyFrame``, one row per case and model, or another
        engine's frame (DuckDB, Spark ...: the cases are paired and counted there).
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
    ci_method, at_fpr, at_tpr
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
    check_flags(progress=progress)
    if not isinstance(models, (tuple, list)) or len(models) != 2 or models[0] == models[1]:
        msg = (
            f"`models` must be two different values of the {model!r} column, e.g. "
            f"('champion', 'challenger'), got {models!r}"
        )
        raise ValueError(msg)
    schema = source_schema(frame)
    roles = Roles(score, label, by, weight, None, pos_label, nulls, direction)
    groups = roles.by
    extra = [weight] if weight is not None else []
    named = [("case", case), ("model", model), ("score", score), ("label", label)]
    for role, name in [*named, *(("by", c) for c in groups), *(("weight", c) for c in extra)]:
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
    check_inference_options(ci, ("delong", "bootstrap"), conf_level, n_boot, seed, ci_method)
    area = _compared_statistic(
        ci, weight, area_spec(max_fpr, fpr_range, tpr_range, standardize), at_fpr, at_tpr
    )
    names = (f"{score}[{models[0]}]", f"{score}[{models[1]}]")
    paired, pairing = pair_cases(
        frame, models, roles, case=case, model=model, names=names, reserved=COMPARE_COLUMNS
    )
    prep = count_rows(
        paired,
        replace(roles, score=names[0]),
        reserved=COMPARE_COLUMNS,
        paired_score=names[1],
        first=pairing,
    ).prep
    values = (pl.lit(models[0], dtype=schema[model]), pl.lit(models[1], dtype=schema[model]))
    return _compared(
        prep, values, ci, area, "two-sided", conf_level, n_boot, seed, progress, ci_method
    )


def name_pair(
    result: pl.LazyFrame, by: list[str], kind: str, a: pl.Expr, b: pl.Expr
) -> pl.LazyFrame:
    """Put ``{kind}_a``/``{kind}_b`` (what ``auc_a``/``auc_b`` are of) after the groups."""
    named = [a.alias(f"{kind}_a"), b.alias(f"{kind}_b")]
    return result.select(*by, *named, pl.all().exclude(by))


def with_placements(rows: pl.LazyFrame, by: list[str], key: str, suffix: str) -> pl.LazyFrame:
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

    # Group totals as columns, not a broadcast scalar: Polars divides by a scalar as a
    # product with its reciprocal, in one engine and not the other (last bits).
    at_end = group_end(by)
    n_pos = pl.when(at_end).then(tp).backward_fill().cast(pl.Float64)
    n_neg = pl.when(at_end).then(fp).backward_fill().cast(pl.Float64)
    return (
        # Ties of ``key`` ordered by the other score: an unordered tie run would make the
        # sums below add in a run-to-run varying order (last-digit differences).
        rows.sort(
            [*keys, SCORE_B if key == SCORE else SCORE],
            descending=[False] * len(by) + [True, True],
            nulls_last=False,
        )
        .with_columns(
            cumulate(POS, by, weighted=False).alias("__tp"),
            cumulate(NEG, by, weighted=False).alias("__fp"),
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


def ordered_sum_of_squares(count: pl.Expr, value: pl.Expr) -> pl.Expr:
    """``sum(count * (value - mean)^2)``, the count-weighted mean's, its float sums added in
    row order."""
    return ordered_sum(count * value * value) - ordered_sum(count * value) ** 2 / count.sum()


def delong_variance(pos: pl.Expr, neg: pl.Expr, v10: pl.Expr, v01: pl.Expr) -> pl.Expr:
    """DeLong's variance ``S10 / m + S01 / n`` from the placements ``v10``, ``v01`` of
    rows weighing ``pos`` positives and ``neg`` negatives."""
    m, n = pos.sum(), neg.sum()
    s10 = ordered_sum_of_squares(pos, v10) / (m - 1)
    s01 = ordered_sum_of_squares(neg, v01) / (n - 1)
    return s10.clip(lower_bound=0.0) / m + s01.clip(lower_bound=0.0) / n


def per_group_placements(prep: Prepared, summary: list[pl.Expr]) -> pl.LazyFrame:
    """Both scores' placements (``v10_a``, ``v01_a``, ``v10_b``, ``v01_b``) on the paired
    rows, summarised per group by ``summary``, with ``n_pos``, ``n_neg``."""
    by = prep.by
    rows = prep.frame
    if prep.n_distinct * prep.paired_distinct <= PAIR_COLLAPSE_MAX_RATIO * prep.n_rows:
        rows = rows.group_by([*by, SCORE, SCORE_B]).agg(pl.col(POS).sum(), pl.col(NEG).sum())
    rows = with_placements(with_placements(rows, by, SCORE, "a"), by, SCORE_B, "b")
    # One row per (group, score pair), whatever the source: k rows of a pair add v^2 k
    # times where a count table's cell adds k v^2, another last bit. The rows are sorted
    # by the pair now: its counts are differences of running sums at the runs' ends.
    running = [pl.col(c).cum_sum().alias(c) for c in (POS, NEG)]
    at_ends = rows.with_columns(running).filter(group_end([*by, SCORE_B, SCORE]))
    rows = at_ends.with_columns(pl.col(c) - pl.col(c).shift(1, fill_value=0) for c in (POS, NEG))
    exprs = [*summary, pl.col(POS).sum().alias("n_pos"), pl.col(NEG).sum().alias("n_neg")]
    if by:
        return rows.group_by(by).agg(exprs).sort(by, nulls_last=False)
    return rows.select(exprs).filter(pl.col("n_pos") + pl.col("n_neg") > 0)


def _delong_paired(prep: Prepared, conf_level: float) -> pl.LazyFrame:
    by = prep.by
    pos, neg = pl.col(POS).cast(pl.Float64), pl.col(NEG).cast(pl.Float64)
    m, n = pos.sum(), neg.sum()
    v10_a, v10_b, v01_a, v01_b = (pl.col(f"v{k}_{s}") for k in ("10", "01") for s in "ab")
    # L S L' with L = (1, -1) is the variance of the difference of the placements.
    variance = delong_variance(pos, neg, v10_a - v10_b, v01_a - v01_b)
    valid = (m > 0) & (n > 0)
    summary = [
        pl.when(valid).then(ordered_sum(pos * v10_a) / m).alias("auc_a"),
        pl.when(valid).then(ordered_sum(pos * v10_b) / m).alias("auc_b"),
        pl.when((m > 1) & (n > 1)).then(variance.sqrt()).alias("se"),
    ]
    per_group = per_group_placements(prep, summary).with_columns(
        (pl.col("auc_a") - pl.col("auc_b")).alias("diff")
    )
    result = with_test(per_group, "z", normal_two_sided_p, two_sided_z(conf_level))
    return result.select(*by, *TEST_COLUMNS, "n_pos", "n_neg")


def with_test(
    result: pl.LazyFrame, statistic: str, p_value: Callable[..., Any], crit: Any, *args: str
) -> pl.LazyFrame:
    """``result`` with ``statistic = diff / se`` (pROC: 0/0, identical curves, is 0), its
    two-sided ``p_value(statistic, *args)`` and the interval ``diff -+ crit * se``."""
    diff, se = pl.col("diff"), pl.col("se")
    return result.with_columns(
        pl.when((se == 0) & (diff == 0)).then(0.0).otherwise(diff / se).alias(statistic)
    ).with_columns(
        map_numpy(p_value, statistic, *args, name="p_value"),
        (diff - crit * se).alias("ci_lower"),
        (diff + crit * se).alias("ci_upper"),
    )


def z_test_columns(
    auc_a: np.ndarray, auc_b: np.ndarray, se: np.ndarray, lower: np.ndarray, upper: np.ndarray
) -> list[pl.Series]:
    """The columns of a bootstrap test of ``diff = auc_a - auc_b``, its ``se`` and
    interval given: ``z = diff / se`` (pROC: 0/0, identical curves, is 0), normal p."""
    diff = auc_a - auc_b
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where((se == 0) & (diff == 0), 0.0, diff / se)
    values = (auc_a, auc_b, diff, se, z, normal_two_sided_p(z), lower, upper)
    return [pl.Series(n, v, dtype=pl.Float64) for n, v in zip(TEST_COLUMNS, values, strict=True)]


def _fold(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Add up the columns of ``values`` (replicates x cells) into bins by ``ids``."""
    n_rep, width = values.shape[0], int(ids.max()) + 1
    flat = (np.arange(n_rep)[:, None] * width + ids[None, :]).ravel()
    summed = np.bincount(flat, weights=values.ravel(), minlength=n_rep * width)
    return summed.reshape(n_rep, width)


def _bootstrap_paired(
    prep: Prepared,
    area: Area | RateAt,
    conf_level: float,
    n_boot: int,
    seed: int | None,
    progress: bool,
    ci_method: IntervalMethod,
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
        prep.frame.group_by([*by, SCORE, SCORE_B])
        .agg(pl.col(POS).sum().alias("pos"), pl.col(NEG).sum().alias("neg"), *unit_counts(prep))
        .sort([*by, SCORE], descending=descending, nulls_last=False)
        .with_columns(dense_id(SCORE))
        # Ties of score_b ordered by score_a: the cells' order, hence the draws, is fixed.
        .sort([*by, SCORE_B, SCORE], descending=[*descending, True], nulls_last=False)
        .with_columns(dense_id(SCORE_B))
    )
    counts_dtype = prep.count_dtype

    def run(collected: pl.DataFrame) -> pl.DataFrame:
        sampler, keys = resampler(collected, by)
        starts = sampler.layout.starts
        sides = []  # each score's distinct-score id per cell, and their layout
        for key in (SCORE, SCORE_B):
            ids = collected[f"{key}_id"].to_numpy()
            first = np.minimum.reduceat(ids, starts)
            sides.append((ids, Layout(first, np.append(first[1:], ids.max() + 1) - first)))

        def both(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
            """The area of each score per replicate and group: ``(R, G, 2)``."""
            areas = [area.replicates(_fold(pos, ids), _fold(neg, ids), at) for ids, at in sides]
            return np.stack(areas, axis=-1)

        def difference(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
            areas = both(pos, neg)
            return areas[..., 0] - areas[..., 1]

        original = both(
            *(collected[c].cast(pl.Float64).to_numpy()[None, :] for c in ("pos", "neg"))
        )[0]
        diff = original[:, 0] - original[:, 1]
        # The jackknife leaves units out of the (score_a, score_b) cells, so each
        # leave-out value is the difference of both scores on the same reduced rows.
        se, lower, upper = bootstrap_interval(
            sampler.collect(seed, n_boot, difference, progress=progress),
            conf_level,
            method=ci_method,
            estimate=diff,
            accelerate=lambda: acceleration(sampler.jackknife(seed, difference)),
        )
        columns = z_test_columns(original[:, 0], original[:, 1], se, lower, upper)
        counts = [
            pl.Series(f"n_{c}", np.add.reduceat(collected[c].to_numpy(), starts)).cast(counts_dtype)
            for c in ("pos", "neg")
        ]
        return keyed(keys, [*columns, *counts]).fill_nan(None)

    counts = dict.fromkeys(["n_pos", "n_neg"], counts_dtype)
    return on_collected(cells, by, {**dict.fromkeys(TEST_COLUMNS, pl.Float64), **counts}, run)
