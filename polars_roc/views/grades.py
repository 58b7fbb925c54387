"""PD back-tests per rating grade: is each grade's predicted default rate too low?

Each grade is a bin of the calibration views
(:func:`polars_roc.views.calibration.binned_sums` with ``grade=``): sums of rows, of
PDs and of defaults per ``(segment, grade)``, counted where the rows live in one
streaming aggregation.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_roc.core.arguments import Roles, check_choice, check_conf_level
from polars_roc.core.finish import finish_result
from polars_roc.core.measures import ratio
from polars_roc.core.validate import Frame, NullPolicy
from polars_roc.stats.cells import agg_per_group, ordered_sum
from polars_roc.stats.distributions import beta_cdf, map_numpy
from polars_roc.views.calibration import binned_sums, interval_columns, refuse_weights

__all__ = ["grade_summary", "grade_test"]

GradeTest = Literal["jeffreys", "binomial"]

GRADE_COLUMNS = tuple(
    "grade n defaults mean_pd observed_rate p_value ci_lower ci_upper reject".split()
)


def _grade_sums(
    frame: Frame, grade: str, reserved: Sequence[str], roles: Roles
) -> tuple[bool, list[str], pl.LazyFrame]:
    eager, by_cols, sums = binned_sums(
        frame, roles, n_bins=None, strategy=None, grade=grade, reserved=reserved
    )
    sums = sums.rename({"bin": "grade", "pos": "defaults"})
    return eager, by_cols, sums.sort([*by_cols, "grade"], nulls_last=False)


def _jeffreys_p(defaults: np.ndarray, others: np.ndarray, mean_pd: np.ndarray) -> np.ndarray:
    return beta_cdf(defaults + 0.5, others + 0.5, mean_pd)


def _binomial_p(defaults: np.ndarray, others: np.ndarray, mean_pd: np.ndarray) -> np.ndarray:
    # P(X >= D) for X ~ Binomial(N, PD) is the regularized incomplete beta I_PD(D, N-D+1);
    # 1 where D = 0.
    with np.errstate(invalid="ignore"):
        tail = beta_cdf(defaults, others + 1.0, mean_pd)
    return np.where(defaults > 0, tail, 1.0)


def grade_test(
    frame: Frame,
    grade: str = "grade",
    method: GradeTest = "jeffreys",
    *,
    conf_level: float = 0.95,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
) -> Frame:
    """One-sided back-test of each grade's PD: are its defaults more than it predicts?

    Per grade, ``N`` rows, ``D`` defaults (positives) and the grade's mean PD (mean
    score) are compared under H0 "the grade's PD is not underestimated":
    ``"jeffreys"`` gives ``p_value = Beta(D + 1/2, N - D + 1/2).cdf(mean_pd)`` (the
    ECB's Jeffreys test), ``"binomial"`` gives ``P(X >= D)`` for
    ``X ~ Binomial(N, mean_pd)``. A small p-value says the PD is too low;
    ``reject`` is ``p_value < 1 - conf_level``. The scores must be PDs in [0, 1].

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per loan (or a count table
        with ``count=``, or a DuckDB/Spark/... frame).
    grade
        Column of rating grades; it must hold no null.
    method
        ``"jeffreys"`` or ``"binomial"``.
    conf_level
        Confidence level: of the Jeffreys interval of the observed rate (two-sided,
        equal tails), and ``1 - conf_level`` is the test's level.
    score, label, by, count, pos_label, nulls
        As in :func:`polars_roc.score_table`; ``score`` is the PD (in [0, 1]), a
        positive label a default; ``nulls="drop"`` leaves out null scores and labels,
        never null grades. A grade of mean PD 0 is not tested (``p_value`` and
        ``reject`` null).
    weight
        Refused: the tests count loans; pass frequencies as ``count=`` (exposure-
        weighted rates: :func:`polars_roc.grade_summary`).

    Returns
    -------
    DataFrame or LazyFrame
        One row per group and grade, grades sorted: ``[*by, grade, n, defaults,
        mean_pd, observed_rate, p_value, ci_lower, ci_upper, reject]``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "pd": [0.01] * 50 + [0.05] * 40 + [0.20] * 10,
    ...     "default": [0] * 49 + [1] + [0] * 34 + [1] * 6 + [0] * 8 + [1] * 2,
    ...     "rating": ["A"] * 50 + ["B"] * 40 + ["C"] * 10,
    ... })
    >>> pr.grade_test(df, "rating", score="pd", label="default").select(
    ...     "grade", "n", "defaults", "mean_pd", "p_value", "reject"
    ... )
    shape: (3, 6)
    ┌───────┬─────┬──────────┬─────────┬──────────┬────────┐
    │ grade ┆ n   ┆ defaults ┆ mean_pd ┆ p_value  ┆ reject │
    │ ---   ┆ --- ┆ ---      ┆ ---     ┆ ---      ┆ ---    │
    │ str   ┆ i64 ┆ i64      ┆ f64     ┆ f64      ┆ bool   │
    ╞═══════╪═════╪══════════╪═════════╪══════════╪════════╡
    │ A     ┆ 50  ┆ 1        ┆ 0.01    ┆ 0.198744 ┆ false  │
    │ B     ┆ 40  ┆ 6        ┆ 0.05    ┆ 0.006999 ┆ true   │
    │ C     ┆ 10  ┆ 2        ┆ 0.2     ┆ 0.466504 ┆ false  │
    └───────┴─────┴──────────┴─────────┴──────────┴────────┘
    """
    check_choice("method", method, ("jeffreys", "binomial"))
    conf_level = check_conf_level(conf_level)
    refuse_weights(
        weight,
        f"grade_test(method={method!r})",
        "for exposure-weighted default rates per grade, use grade_summary() or "
        "calibration_curve(grade=...) with weight=",
    )
    roles = Roles(score, label, by, weight, count, pos_label, nulls)
    eager, by_cols, sums = _grade_sums(frame, grade, GRADE_COLUMNS, roles)
    mean_pd = ratio(pl.col("score_sum"), pl.col("n")).alias("mean_pd")
    rates = sums.with_columns(mean_pd)
    tail = _jeffreys_p if method == "jeffreys" else _binomial_p
    others = (pl.col("n") - pl.col("defaults")).alias("_others")  # exact past 2^53 rows
    result = rates.select(
        *by_cols,
        "grade",
        "n",
        "defaults",
        "mean_pd",
        ratio(pl.col("defaults"), pl.col("n")).alias("observed_rate"),
        # A grade at PD 0 cannot be tested (no default rate is "too high" for it under
        # either test's model): null, as its reject.
        pl.when(pl.col("mean_pd") > 0).then(
            map_numpy(tail, "defaults", others, "mean_pd", name="p_value")
        ),
        *interval_columns("jeffreys", conf_level, "defaults"),
    )
    # The level as typed: 1 - 0.95 in floats is 0.050000000000000044, which would
    # reject a p-value of exactly 0.05.
    level = float(1 - Decimal(repr(conf_level)))
    result = result.with_columns((pl.col("p_value") < level).alias("reject"))
    return finish_result(result, eager=eager, counts=["n", "defaults"])


def grade_summary(
    frame: Frame,
    grade: str = "grade",
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
) -> Frame:
    """The rating scale per group: its grades, their use, and its concentration.

    ``herfindahl = sum s_g^2`` over the grades' shares ``s_g`` of the group's rows
    (of its exposure with ``weight=``): 1 when every loan is in one grade, ``1 / K``
    when ``K`` grades hold equal shares. ``herfindahl_normalized = (herfindahl - 1/K) /
    (1 - 1/K)`` maps that range to [0, 1] (null for one grade), as validation reports
    quote it.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per loan.
    grade
        Column of rating grades; it must hold no null.
    score, label, by, weight, count, pos_label, nulls
        As in :func:`polars_roc.grade_test`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, grades, n, defaults, mean_pd, observed_rate,
        herfindahl, herfindahl_normalized]`` (``grades``: the number of grades in use).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.01, 0.01, 0.01, 0.05, 0.05, 0.2],
    ...     "label": [0, 0, 0, 0, 1, 1],
    ...     "grade": ["A", "A", "A", "B", "B", "C"],
    ... })
    >>> pr.grade_summary(df).select("grades", "n", "herfindahl", "herfindahl_normalized")
    shape: (1, 4)
    ┌────────┬─────┬────────────┬───────────────────────┐
    │ grades ┆ n   ┆ herfindahl ┆ herfindahl_normalized │
    │ ---    ┆ --- ┆ ---        ┆ ---                   │
    │ i64    ┆ i64 ┆ f64        ┆ f64                   │
    ╞════════╪═════╪════════════╪═══════════════════════╡
    │ 3      ┆ 6   ┆ 0.388889   ┆ 0.083333              │
    └────────┴─────┴────────────┴───────────────────────┘
    """
    roles = Roles(score, label, by, weight, count, pos_label, nulls)
    reserved = ["grades", "n", "defaults", "mean_pd", "observed_rate"]
    reserved += ["herfindahl", "herfindahl_normalized"]
    eager, by_cols, sums = _grade_sums(frame, grade, reserved, roles)
    # The grades (sorted) added in order: the same bits on every run.
    n = pl.col("n").cast(pl.Float64)
    total = ordered_sum(n)
    power = pl.lit(2.0).pow(-total.log(2).floor().clip(-1000, 1000))
    scaled, total_scaled = n * power, total * power
    grades = pl.len().cast(pl.Int64)
    summary = agg_per_group(
        sums,
        by_cols,
        grades.alias("grades"),
        ordered_sum(pl.col("n")),
        ordered_sum(pl.col("defaults")),
        ratio(ordered_sum(pl.col("score_sum")), total).alias("mean_pd"),
        ratio(ordered_sum(pl.col("defaults")), total).alias("observed_rate"),
        # sum (n / total)^2 divided once: Polars divides a column by a broadcast
        # scalar as a product with its reciprocal in some engines (other last bits).
        # Scaled by a power of two near 1 / total first: exact, and no square overflows.
        pl.when(total > 0).then(ordered_sum(scaled * scaled) / total_scaled**2).alias("herfindahl"),
    )
    floor = 1.0 / pl.col("grades")
    normalized = pl.when(pl.col("grades") > 1).then((pl.col("herfindahl") - floor) / (1.0 - floor))
    result = summary.with_columns(normalized.alias("herfindahl_normalized"))
    return finish_result(result, eager=eager, counts=["n", "defaults"])
