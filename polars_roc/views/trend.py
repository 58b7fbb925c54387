"""Prediction logs over time: AUC, Gini and KS per period, and drift tests against a baseline.

Both views are the existing per-group views with the period as the last grouping column:

- ``trend`` is :func:`polars_roc.roc_auc` (with its interval) joined to
  :func:`polars_roc.ks_statistic`, grouped by ``[*by, period]``; with two ``scores`` it is
  the paired :func:`polars_roc.compare` per ``[*by, period]``.
- ``drift`` is the unpaired DeLong test of :func:`polars_roc.compare_groups` (pROC's
  ``roc.test(paired=FALSE)``), run for every period against the baseline period of its
  group in one plan: DeLong's variance per ``[*by, period]`` from the score table, the
  baseline's row joined onto every other period's row, then the Welch-type t test.

What a period is (and ``every=``): docs/monitoring.md.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from datetime import datetime
from numbers import Real
from typing import Any, Literal

import polars as pl

from polars_roc.core.arguments import Roles, normalize_by, refuse_clashes
from polars_roc.core.compat import POLARS_2
from polars_roc.core.counting import count_rows, labelled, source_schema, truncated
from polars_roc.core.score_table import build, group_totals
from polars_roc.core.validate import (
    Direction,
    Frame,
    NullPolicy,
    caller_stacklevel,
    missing_column,
    warn_single_class,
)
from polars_roc.exceptions import RocOptionError
from polars_roc.stats.auc_interval import area_per_group
from polars_roc.stats.cells import over, read_once
from polars_roc.stats.delong import delong_per_group
from polars_roc.stats.options import (
    check_groups_present,
    check_inference_options,
    no_weights_with_delong,
)
from polars_roc.stats.paired_tests import TEST_COLUMNS, compare
from polars_roc.stats.partial import Area
from polars_roc.stats.unpaired_tests import welch_test
from polars_roc.views.estimated import estimated_auc
from polars_roc.views.gains import ks_from_table

__all__ = ["adjust_p", "drift", "trend"]

CiMethod = Literal["delong", "bootstrap"]
Adjust = Literal["holm", "bonferroni", "bh", "none"]
ADJUSTMENTS = ("holm", "bonferroni", "bh", "none")

_PERIOD_DTYPES = "Date, Datetime, String, Categorical or an integer type"


def _with_period(frame: Frame, period: str, every: str | None) -> Frame:
    """Check the period column (and ``every``) from the schema; truncate when asked."""
    schema = source_schema(frame)
    if period not in schema:
        raise missing_column("period", period, schema)
    dtype = schema[period]
    temporal = dtype == pl.Date or isinstance(dtype, pl.Datetime)
    if every is not None:
        if not temporal:
            msg = (
                f"`every={every!r}` truncates a Date or Datetime column, but period column "
                f"{period!r} is {dtype}; pass `every=None` to use its values as periods"
            )
            raise TypeError(msg)
        counts = re.findall(r"\d+", every) if isinstance(every, str) else []
        if counts and not any(int(n) for n in counts):
            # Polars truncates to a zero duration as to none (every row its own period);
            # another engine's frame refuses it.
            msg = f"`every` must be a positive duration such as '1mo' or '7d', got {every!r}"
            raise ValueError(msg)
        try:  # polars parses the duration; fail here, before any work, not at collect
            start = pl.lit(datetime(2000, 1, 1))
            if not POLARS_2:
                # Polars 1.x's truncate panics on a string it cannot parse; offset_by
                # parses the same durations and raises.
                pl.select(start.dt.offset_by(every))
            pl.select(start.dt.truncate(every))
        except (
            pl.exceptions.InvalidOperationError,
            pl.exceptions.ComputeError,
            ValueError,
            TypeError,
        ) as err:
            msg = f"`every` must be a polars duration string such as '1mo' or '7d', got {every!r}"
            raise ValueError(msg) from err
        return truncated(frame, period, every)
    if not (temporal or dtype.is_integer() or dtype in (pl.String, pl.Categorical)):
        msg = (
            f"period column {period!r} must be {_PERIOD_DTYPES}, got {dtype}; "
            "for timestamps pass `every='1mo'` (or another duration) to bin them"
        )
        raise TypeError(msg)
    return frame


# Result (and scratch) columns of each view: a segment of one of these names would be
# overwritten, so it is refused before any work.
TREND_RESULT = tuple(
    "auc auc_se ci_lower ci_upper gini_lower gini_upper gini ks n_pos n_neg prevalence "
    "threshold tpr fpr auc_var".split()
)
ESTIMATE_RESULT = ("estimated_auc", "expected_pos", "expected_neg")
PAIRED_RESULT = (*TEST_COLUMNS, "n_pos", "n_neg", "p_adjusted", "flagged")
# The columns of drift's test, in result order.
DRIFT_COLUMNS = tuple(
    "baseline auc auc_baseline diff se t df p_value p_adjusted flagged ci_lower ci_upper".split()
)
DRIFT_RESULT = (
    *DRIFT_COLUMNS,
    *"n_pos n_neg auc_var var rows var_baseline rows_baseline __crit".split(),
)


def _keys(by: str | Sequence[str] | None, period: str, result: Sequence[str]) -> list[str]:
    if not isinstance(period, str):
        msg = f"`period` must name a column (e.g. 'month'), got {period!r}"
        raise TypeError(msg)
    outer = normalize_by(by)
    against = f"result columns (the period column {period!r} and the measures)"
    refuse_clashes(outer, {period, *result}, against=against)
    # The estimate's columns are joined on last: a period so named would clash there.
    refuse_clashes([period], set(ESTIMATE_RESULT) & set(result), role="period")
    return [*outer, period]


def adjust_p(p_value: pl.Expr, method: Adjust = "holm") -> pl.Expr:
    """Adjust p-values for multiple testing, over all the non-null values of the column.

    ``"holm"`` (Holm's step-down, controls the family-wise error rate under any
    dependence), ``"bonferroni"`` (``min(1, m p)``), ``"bh"`` (Benjamini-Hochberg step-up,
    controls the false discovery rate under independence or positive dependence),
    ``"none"``. ``m`` is the number of non-null p-values; nulls stay null. The values equal
    R's ``p.adjust`` with the same method. Use it in ``.over(...)`` to adjust per family.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_roc.views.trend import adjust_p
    >>> pl.DataFrame({"p": [0.01, 0.04, 0.03, None]}).with_columns(
    ...     holm=adjust_p(pl.col("p")), bh=adjust_p(pl.col("p"), "bh"))
    shape: (4, 3)
    ┌──────┬──────┬──────┐
    │ p    ┆ holm ┆ bh   │
    │ ---  ┆ ---  ┆ ---  │
    │ f64  ┆ f64  ┆ f64  │
    ╞══════╪══════╪══════╡
    │ 0.01 ┆ 0.03 ┆ 0.03 │
    │ 0.04 ┆ 0.06 ┆ 0.04 │
    │ 0.03 ┆ 0.06 ┆ 0.04 │
    │ null ┆ null ┆ null │
    └──────┴──────┴──────┘
    """
    if method not in ADJUSTMENTS:
        msg = f"`adjust` must be one of {ADJUSTMENTS!r}, got {method!r}"
        raise ValueError(msg)
    if method == "none":
        return p_value
    m = p_value.count().cast(pl.Float64)
    rank = p_value.rank("ordinal")  # 1 for the smallest p; null stays null
    if method == "bonferroni":
        return (p_value * m).clip(upper_bound=1.0)
    if method == "holm":
        # (m - j + 1) p_(j), made monotone by a running maximum in increasing p order,
        # then read back at each value's rank.
        step = ((m - rank.cast(pl.Float64) + 1.0) * p_value).clip(upper_bound=1.0)
        monotone = step.sort_by(p_value, nulls_last=True).cum_max()
        return monotone.gather(rank - 1)
    # BH: m p_(j) / j, made monotone by a running minimum from the largest p down.
    step = (p_value * m / rank.cast(pl.Float64)).clip(upper_bound=1.0)
    monotone = step.sort_by(p_value, descending=True, nulls_last=True).cum_min()
    return monotone.gather(m.cast(pl.Int64) - rank.cast(pl.Int64))


def trend(
    frame: Frame,
    *,
    period: str,
    every: str | None = None,
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
    scores: Sequence[str] | None = None,
    adjust: Adjust = "holm",
    alpha: float = 0.05,
    estimated: bool = False,
) -> Frame:
    """AUC, Gini and KS per period (and group), with intervals; or two scores compared.

    One row per ``[*by, period]``, in group order then time order. A period holding one
    class has null measures and the usual warning naming it; the other periods are
    unaffected.

    Parameters
    ----------
    period
        The column holding the period: Date, Datetime, String (ISO-formatted, such as
        "2026-01", so that text order is time order), Categorical or integer.
    every
        A polars duration string (``"1mo"``, ``"1w"``, ``"1q"`` ...): bin the Date or
        Datetime ``period`` column into calendar-aligned windows, each labelled by its start
        (``dt.truncate``, the windows of ``group_by_dynamic``; weeks start on Monday).
        Another engine's frame is cut there, in its session's time zone, into the same
        windows (multiples such as ``"2w"`` aligned as Polars aligns them; a duration of
        several units, ``"1d12h"``, refused: see docs/warehouse.md).
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    ci, conf_level, n_boot, seed
        As in :func:`polars_roc.roc_auc`. The Gini interval is the AUC interval mapped by
        ``2 auc - 1``. With ``scores``, ``conf_level`` is that of the paired interval.
    scores
        Two score columns ``[champion, challenger]``: instead of one score's measures,
        the paired test of :func:`polars_roc.compare` (DeLong) per period.
    adjust, alpha
        With ``scores``: the multiple-testing adjustment of the per-period p-values (see
        :func:`drift`) and the level below which ``flagged`` is true; refused without
        ``scores``.
    estimated
        Add the AUC expected from the scores read as calibrated probabilities,
        :func:`polars_roc.estimated_auc`, beside the realised one: ``estimated_auc``,
        ``expected_pos``, ``expected_neg``. Rows of a null label are the unlabelled
        ones: counted in the estimate, left out of the realised measures (a period
        without labels has null measures and ``n_pos = n_neg = 0``); ``nulls`` still
        decides what a null score does. Scores in [0, 1], ``direction="higher"``, no
        ``scores=``. See docs/validation.md.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, period, auc, gini, ks, n_pos, n_neg, prevalence]``, and with ``ci``
        ``auc_se, ci_lower, ci_upper, gini_lower, gini_upper`` after ``auc``. With
        ``scores``: ``[*by, period, auc_a, auc_b, diff, se, z, p_value, ci_lower, ci_upper,
        n_pos, n_neg, p_adjusted, flagged]``. ``estimated`` adds ``estimated_auc,
        expected_pos, expected_neg`` last.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({
    ...     "month": ["2026-01"] * 4 + ["2026-02"] * 4,
    ...     "score": [0.9, 0.7, 0.4, 0.2, 0.8, 0.3, 0.6, 0.1],
    ...     "label": [1, 1, 0, 0, 1, 1, 0, 0],
    ... })
    >>> pr.trend(log, period="month")
    shape: (2, 7)
    ┌─────────┬──────┬──────┬─────┬───────┬───────┬────────────┐
    │ month   ┆ auc  ┆ gini ┆ ks  ┆ n_pos ┆ n_neg ┆ prevalence │
    │ ---     ┆ ---  ┆ ---  ┆ --- ┆ ---   ┆ ---   ┆ ---        │
    │ str     ┆ f64  ┆ f64  ┆ f64 ┆ i64   ┆ i64   ┆ f64        │
    ╞═════════╪══════╪══════╪═════╪═══════╪═══════╪════════════╡
    │ 2026-01 ┆ 1.0  ┆ 1.0  ┆ 1.0 ┆ 2     ┆ 2     ┆ 0.5        │
    │ 2026-02 ┆ 0.75 ┆ 0.5  ┆ 0.5 ┆ 2     ┆ 2     ┆ 0.5        │
    └─────────┴──────┴──────┴─────┴───────┴───────┴────────────┘
    """
    reserved = TREND_RESULT + (ESTIMATE_RESULT if estimated else ())
    keys = _keys(by, period, PAIRED_RESULT if scores is not None else reserved)
    if estimated and (scores is not None or direction != "higher"):
        msg = (
            "`estimated=True` reads one score as calibrated probabilities: it takes no "
            "`scores=` and no direction='lower'"
        )
        raise RocOptionError(msg)
    if scores is not None:
        _check_alpha(alpha)
        adjust_p(pl.lit(None), adjust)  # checks the name before any work
        if ci is not None:
            msg = f"`ci={ci!r}` does not apply with `scores=`: the paired test gives its interval"
            raise ValueError(msg)
        timed = _with_period(frame, period, every)
        tested = compare(
            timed,
            scores,
            label=label,
            by=keys,
            weight=weight,
            count=count,
            pos_label=pos_label,
            nulls=nulls,
            direction=direction,
            conf_level=conf_level,
            n_boot=n_boot,
            seed=seed,
        )
        return tested.with_columns(
            adjust_p(pl.col("p_value"), adjust).alias("p_adjusted")
        ).with_columns((pl.col("p_adjusted") < alpha).fill_null(False).alias("flagged"))
    given = [name for name, on in (("adjust", adjust != "holm"), ("alpha", alpha != 0.05)) if on]
    if given:
        msg = (
            f"`{'` and `'.join(given)}` {'set' if len(given) > 1 else 'sets'} the test of "
            "two scores per period, but `scores=` is not given; pass "
            "scores=[champion, challenger], or use drift()"
        )
        raise ValueError(msg)
    check_inference_options(ci, ("delong", "bootstrap"), conf_level, n_boot, seed)
    if ci == "delong":
        no_weights_with_delong(weight, "the AUC interval", "ci='bootstrap'")
    timed = _with_period(frame, period, every)
    if estimated:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            expected = estimated_auc(
                timed,
                score=score,
                by=keys[:-1],
                period=period,
                weight=weight,
                count=count,
                nulls=nulls,
            )
        # Told apart from the realised measures' warnings, which may name the same groups.
        for found in caught:
            message = f"in the estimate (every row, labelled or not): {found.message}"
            warnings.warn(message, found.category, stacklevel=caller_stacklevel())
        timed = labelled(timed, label)
    if isinstance(timed, pl.LazyFrame):
        # Cached: the AUC and the KS, joined below, share one scan at collect.
        timed = timed.cache()
    # One check of the values (one read at call), one score table for both measures.
    prep = count_rows(
        timed,
        Roles(score, label, keys, weight, count, pos_label, nulls, direction),
        # The interval's columns are reserved only when there is one, as before.
        reserved=(
            "auc",
            *(("auc_se", "ci_lower", "ci_upper", "auc_var") if ci is not None else ()),
            "ks",
            "tpr",
            "fpr",
        ),
    ).prep
    prep = read_once(prep, ci == "bootstrap")
    table = build(prep)
    areas = area_per_group(
        prep,
        table,
        ci=ci,
        area=Area(),
        conf_level=conf_level,
        n_boot=n_boot,
        seed=seed,
        progress=False,
    )
    separations = ks_from_table(table, prep.by).select(*keys, "ks")
    interval = ["auc_se", "ci_lower", "ci_upper", "gini_lower", "gini_upper"] if ci else []
    gini_interval = (
        [(2 * pl.col(f"ci_{side}") - 1).alias(f"gini_{side}") for side in ("lower", "upper")]
        if ci
        else []
    )
    result = (
        areas.join(separations, on=keys, how="left", nulls_equal=True, maintain_order="left")
        .with_columns(
            (2 * pl.col("auc") - 1).alias("gini"),
            *gini_interval,
            (pl.col("n_pos") / (pl.col("n_pos") + pl.col("n_neg"))).alias("prevalence"),
        )
        .select(*keys, "auc", *interval, "gini", "ks", "n_pos", "n_neg", "prevalence")
    )
    realised = prep.finish(result, lambda done: group_totals(done, prep.by))
    if not estimated:
        return realised
    # Every period of the estimate, labelled or not: the realised measures join it.
    expected = expected.rename(dict(zip(("auc", "n_pos", "n_neg"), ESTIMATE_RESULT, strict=True)))
    joined = (
        expected.lazy()
        .join(realised.lazy(), on=keys, how="left", nulls_equal=True, maintain_order="left")
        .select(*keys, *realised.collect_schema().names()[len(keys) :], *ESTIMATE_RESULT)
        .with_columns(pl.col("n_pos", "n_neg").fill_null(0))
    )
    return joined if isinstance(realised, pl.LazyFrame) else joined.collect()


def _check_alpha(alpha: float) -> None:
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < alpha < 1:
        msg = f"`alpha` must be a number strictly between 0 and 1 (e.g. 0.05), got {alpha!r}"
        raise ValueError(msg)


def drift(
    frame: Frame,
    *,
    period: str,
    baseline: Any = "first",
    every: str | None = None,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    conf_level: float = 0.95,
    adjust: Adjust = "holm",
    alpha: float = 0.05,
) -> Frame:
    """Each period's AUC tested against a baseline period's, per group.

    The test is pROC's unpaired ``roc.test(method="delong")``, exactly as
    :func:`polars_roc.compare_groups` runs it for two groups: ``V`` the DeLong variance of
    each AUC, ``t = diff / sqrt(V + V_baseline)``, Welch-type degrees of freedom from the
    two periods' row counts, two-sided p-value, and the interval ``diff +- t_df * se``.
    The periods are treated as independent samples (different rows).

    The baseline is one fixed period: the one named, or with ``"first"`` each group's
    earliest period. A fixed reference is what a model's sign-off is measured against, and
    every test then has the same meaning; a rolling window of previous periods would pool
    periods that themselves may have drifted and make successive tests overlap, so it is
    not offered.

    Many periods times many segments is many tests: ``p_adjusted`` corrects them together
    (the family is every row of the result). Holm's step-down is the default because it
    keeps the chance of any false alarm below ``alpha`` under any dependence between the
    tests (they share the baseline) while rejecting at least as much as Bonferroni; "bh"
    (Benjamini-Hochberg) bounds the share of false alarms instead, for large screens.

    Parameters
    ----------
    period, every
        As in :func:`trend`.
    baseline
        A value of the period column (after ``every`` truncation), or ``"first"``
        (default): each group's earliest period. A named baseline missing from a group
        leaves that group out; missing from the data altogether is an error.
    frame, score, label, by, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table` (DeLong counts rows, so no weights).
    conf_level
        Confidence level of the interval of ``diff``.
    adjust
        ``"holm"`` (default), ``"bonferroni"``, ``"bh"`` or ``"none"``; see
        :func:`polars_roc.views.trend.adjust_p`.
    alpha
        ``flagged`` is ``p_adjusted < alpha``.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, period, baseline, auc, auc_baseline, diff, se, t, df, p_value, p_adjusted,
        flagged, ci_lower, ci_upper, n_pos, n_neg]``, one row per period other than the
        baseline, in group then time order; ``diff = auc - auc_baseline``. The test is
        null where either period lacks two rows of each class.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({
    ...     "month": [1] * 6 + [2] * 6 + [3] * 6,
    ...     "score": [0.9, 0.8, 0.7, 0.3, 0.2, 0.1,
    ...               0.9, 0.4, 0.7, 0.6, 0.2, 0.1,
    ...               0.6, 0.4, 0.3, 0.5, 0.2, 0.1],
    ...     "label": [1, 1, 1, 0, 0, 0] * 3,
    ... })
    >>> pr.drift(log, period="month").select("month", "auc", "diff", "p_value", "p_adjusted")
    shape: (2, 5)
    ┌───────┬──────────┬───────────┬──────────┬────────────┐
    │ month ┆ auc      ┆ diff      ┆ p_value  ┆ p_adjusted │
    │ ---   ┆ ---      ┆ ---       ┆ ---      ┆ ---        │
    │ i64   ┆ f64      ┆ f64       ┆ f64      ┆ f64        │
    ╞═══════╪══════════╪═══════════╪══════════╪════════════╡
    │ 2     ┆ 0.888889 ┆ -0.111111 ┆ 0.511084 ┆ 0.82415    │
    │ 3     ┆ 0.777778 ┆ -0.222222 ┆ 0.412075 ┆ 0.82415    │
    └───────┴──────────┴───────────┴──────────┴────────────┘
    """
    keys = _keys(by, period, DRIFT_RESULT)
    outer = keys[:-1]
    adjust_p(pl.lit(None), adjust)
    _check_alpha(alpha)
    check_inference_options("delong", ("delong",), conf_level, 2000, None)
    timed = _with_period(frame, period, every)
    roles = Roles(score, label, keys, None, count, pos_label, nulls, direction)
    prep = count_rows(timed, roles, reserved=(*DRIFT_COLUMNS, "var", "rows")).prep
    if baseline != "first":
        check_groups_present(prep, period, [baseline], argument="baseline")
    per_period = (
        delong_per_group(build(prep), keys)
        .with_columns(
            pl.col("auc_var").alias("var"),
            (pl.col("n_pos") + pl.col("n_neg")).cast(pl.Float64).alias("rows"),
        )
        .sort(keys, nulls_last=False)
    )
    first = over(pl.col(period).min(), outer)
    chosen = pl.col(period) == (first if baseline == "first" else baseline)
    reference = per_period.filter(chosen).select(
        *outer,
        pl.col(period).alias("baseline"),
        pl.col("auc").alias("auc_baseline"),
        pl.col("var").alias("var_baseline"),
        pl.col("rows").alias("rows_baseline"),
    )
    if outer:
        joined = per_period.join(
            reference, on=outer, how="inner", nulls_equal=True, maintain_order="left"
        )
    else:
        joined = per_period.join(reference, how="cross", maintain_order="left")
    result = (
        # ne_missing: rows of a null period are a period of their own, as in trend().
        welch_test(
            joined.filter(pl.col(period).ne_missing(pl.col("baseline"))),
            "",
            "_baseline",
            conf_level,
        )
        .with_columns(adjust_p(pl.col("p_value"), adjust).alias("p_adjusted"))
        .with_columns((pl.col("p_adjusted") < alpha).fill_null(False).alias("flagged"))
        .select(*keys, *DRIFT_COLUMNS, "n_pos", "n_neg")
    )
    if not prep.eager:  # the validation pass counted the classes; finish warns from them
        return prep.finish(result, lambda done: group_totals(done, prep.by))
    # The result leaves the baseline out, so single-class periods are named from the
    # per-period totals, collected with the result in one go.
    totals, collected = pl.collect_all([per_period.select(*prep.by, "n_pos", "n_neg"), result])
    warn_single_class(totals, prep.by)
    return collected
