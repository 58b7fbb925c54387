"""Calibration: do predicted probabilities match observed rates, per segment?

AUC measures ranking only; a model whose predicted 4% is a real 4% is *calibrated*.
Every view here is sums per ``(segment, bin)`` read off the score table (a distinct
score times its rows, weighted where ``weight=``/``count=`` say so), so it runs wherever
the score table can be counted (Polars frames, count tables, DuckDB and the other
engines). The bins are scikit-learn's ``calibration_curve`` bins: docs/validation.md
("Choices made") gives their edges, and the quantile edges of weighted rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from numbers import Integral
from typing import Any, Literal

import numpy as np
import polars as pl
from scipy.special import chdtrc

from polars_roc.core.arguments import (
    Roles,
    check_choice,
    check_columns,
    check_conf_level,
    normalize_by,
    refuse_clashes,
)
from polars_roc.core.compat import lag
from polars_roc.core.counting import (
    count_bins,
    count_rows,
    numpy_lerp,
    numpy_quantile_indexes,
    require_columns,
)
from polars_roc.core.expr_table import IntoExpr, expr_rows
from polars_roc.core.finish import finish_result
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import build
from polars_roc.core.validate import RESERVED, Frame, NullPolicy, Prepared
from polars_roc.exceptions import RocOptionError, RocOptionTypeError
from polars_roc.stats.cells import NEG_ROWS, POS_ROWS, agg_per_group, ordered_sum, over, unit_counts
from polars_roc.stats.distributions import beta_ppf, map_numpy, normal_two_sided_p, two_sided_z

__all__ = [
    "brier",
    "brier_decomposition",
    "calibration_curve",
    "calibration_error",
    "calibration_test",
    "log_loss",
]

Strategy = Literal["uniform", "quantile"]
Interval = Literal["wilson", "jeffreys"]
TestMethod = Literal["hosmer_lemeshow", "spiegelhalter"]

CALIBRATION_COLUMNS = (
    "bin",
    "score_low",
    "score_high",
    "n",
    "mean_score",
    "observed_rate",
    "ci_lower",
    "ci_upper",
)
_SIDE = "__roc_side"


def refuse_weights(weight: str | None, what: str, instead: str) -> None:
    """Refuse ``weight=`` where ``what`` counts rows: its null distribution (or
    interval) would change with the unit of the weights. ``instead``: what to use for
    weighted rows."""
    if weight is not None:
        msg = (
            f"{what} does not support weights (got weight={weight!r}): it counts rows, so "
            "its result would change with the unit of the weights. If each row stands for "
            f"that many identical cases (a count table), pass the column as "
            f"count={weight!r}; {instead}"
        )
        raise RocOptionError(msg)


def check_n_bins(n_bins: Any) -> int:
    msg = f"`n_bins` must be a positive integer (10 gives deciles), got {n_bins!r}"
    if isinstance(n_bins, bool) or not isinstance(n_bins, Integral):
        raise RocOptionTypeError(msg)
    if n_bins < 1:
        raise RocOptionError(msg)
    return int(n_bins)


def merged(first: pl.LazyFrame, second: pl.LazyFrame, by: list[str], key: str) -> pl.LazyFrame:
    """The rows of both, sorted by group and ``key``; ``_SIDE`` is 0 for ``first``'s
    rows, which come first among equal keys."""
    return pl.concat(
        [first.with_columns(pl.lit(0).alias(_SIDE)), second.with_columns(pl.lit(1).alias(_SIDE))],
        how="diagonal_relaxed",
    ).sort([*by, key, _SIDE], nulls_last=False, maintain_order=True)


def quantile_edges(
    cells: pl.LazyFrame, by: list[str], n_bins: int, rows: pl.LazyFrame | None = None
) -> pl.LazyFrame:
    """The inner edges ``[*by, edge, value]`` (``edge`` 1 to ``n_bins - 1``) of
    ``np.percentile(values, np.linspace(0, 1, n_bins + 1) * 100)`` per group, from
    ``cells`` ``[*by, value, n]`` (distinct values and how many rows hold each).

    numpy's own arithmetic, so that the edges are its edges to the last bit: the
    fraction ``q * 100 / 100``, the index ``(n - 1) * q``, and its ``_lerp`` between
    the order statistics either side.

    Weighted cells (``n`` a weight sum) come with ``rows`` ``[*by, ROWS]``: the group's
    rows of positive weight, ``N``. A cell then holds ``N`` times its share of the
    group's weight: a row of weight ``w`` counts as ``w / mean(w)`` rows, so that the
    edges sit at cumulative shares of weight, do not move when every weight is scaled,
    and are numpy's edges when the weights are equal.
    """
    fractions = np.true_divide(np.linspace(0, 1, n_bins + 1) * 100, 100)[1:-1]
    if not len(fractions):
        return cells.select(*by, pl.lit(0).alias("edge"), pl.col("value")).head(0)
    ordered = cells.filter(pl.col("n") != 0).sort([*by, "value"], nulls_last=False)
    if rows is None:
        # Rows below each distinct value: the order statistics from its index to the next.
        below = ordered.with_columns(
            over(pl.col("n").cum_sum(), by).cast(pl.Float64).alias("__roc_key")
            - pl.col("n").cast(pl.Float64),
        )
        totals = agg_per_group(ordered, by, pl.col("n").sum().cast(pl.Float64).alias("__roc_total"))
    else:
        below, totals = _weighted_keys(ordered, by, rows)
    grid = pl.LazyFrame({"edge": range(1, n_bins), "__roc_q": fractions})
    low, high, t = numpy_quantile_indexes(pl.col("__roc_total"), pl.col("__roc_q"))
    queries = totals.join(grid, how="cross").with_columns(
        low.alias("__roc_lo"), high.alias("__roc_hi"), t.alias("__roc_gamma")
    )
    ends = [
        queries.select(*by, "edge", "__roc_gamma", pl.col(end).alias("__roc_key"), pl.lit(end))
        for end in ("__roc_lo", "__roc_hi")
    ]
    ends = [e.rename({"literal": "__roc_end"}) for e in ends]
    # The order statistic at index k: the last distinct value with at most k rows below.
    found = (
        merged(below.select(*by, "__roc_key", "value"), pl.concat(ends), by, "__roc_key")
        .with_columns(over(pl.col("value").forward_fill(), by))
        .filter(pl.col(_SIDE) == 1)
    )
    a = pl.col("value").filter(pl.col("__roc_end") == "__roc_lo").first()
    b = pl.col("value").filter(pl.col("__roc_end") == "__roc_hi").first()
    lerp = numpy_lerp(a, b, pl.col("__roc_gamma").first())
    return found.group_by([*by, "edge"]).agg(lerp.alias("value"))


ROWS = "__roc_rows"


def _weighted_keys(
    ordered: pl.LazyFrame, by: list[str], rows: pl.LazyFrame
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """``__roc_key`` (the rows below each value) and ``__roc_total`` of weighted cells,
    in rows of mean weight (see :func:`quantile_edges`)."""
    n = pl.col("n").cast(pl.Float64)
    share_below = over(lag(n.cum_sum(), fill_value=0.0), by) / over(n.sum(), by)
    counted = (
        ordered.join(rows, on=by, how="left", nulls_equal=True, maintain_order="left")
        if by
        else ordered.join(rows, how="cross", maintain_order="left")
    )
    key = share_below * pl.col(ROWS).cast(pl.Float64)
    # Equal weights give whole numbers of rows up to rounding: snapped back to them, so
    # that the order statistics are numpy's (and scaled weights, rounded otherwise, agree).
    whole = key.round(0)
    snapped = pl.when((key - whole).abs() <= 1e-9 * pl.col(ROWS)).then(whole).otherwise(key)
    below = counted.with_columns(snapped.alias("__roc_key"))
    totals = agg_per_group(counted, by, pl.col(ROWS).first().cast(pl.Float64).alias("__roc_total"))
    return below, totals


def bin_of(cells: pl.LazyFrame, edges: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``cells`` ``[*by, value, ...]`` with ``bin``: 1 + the number of inner ``edges``
    ``[*by, edge, value]`` of its group strictly below its value (numpy's
    ``searchsorted(edges, value, side="left")``, counted from 1)."""
    marked = merged(cells, edges.select(*by, "value"), by, "value")
    return (
        marked.with_columns((over(pl.col(_SIDE).cum_sum(), by) + 1).cast(pl.Int64).alias("bin"))
        .filter(pl.col(_SIDE) == 0)
        .drop(_SIDE)
    )


def binned_cells(
    frame: Frame,
    roles: Roles,
    *,
    n_bins: int | None,
    strategy: Strategy | None,
    grade: str | None,
    reserved: Sequence[str],
) -> tuple[Prepared, list[str], pl.LazyFrame]:
    """Count ``frame`` and give each distinct score its bin.

    Returns the prepared input, the segment columns and ``[*by, bin, score, n, pos]``:
    per group, bin and distinct score, the rows (or weight) and the positives there.
    With ``grade``, the grade is the bin (counted as one more segment column).
    """
    n_bins, strategy, segments = _bins_chosen(frame, n_bins, strategy, grade, roles, reserved)
    keys = [*segments, grade] if grade is not None else segments
    prep = count_rows(
        frame,
        replace(roles, by=keys),
        # The grade becomes the `bin` (or `grade`) column: only segments may not clash.
        reserved=[name for name in reserved if name != grade],
        probabilities=True,
        not_null=[grade] if grade is not None else [],
    ).prep
    units = pl.col("pos") + pl.col("neg")
    cells = build(prep).select(
        *prep.by, pl.col("threshold").alias("value"), units.alias("n"), "pos"
    )
    if prep.weighted:
        cells = cells.filter(pl.col("n") != 0)
    if grade is not None:
        binned = cells.rename({grade: "bin"})
    elif strategy == "uniform":
        inner = pl.Series(np.linspace(0.0, 1.0, n_bins + 1)[1:-1], dtype=pl.Float64)
        position = pl.lit(inner).search_sorted(pl.col("value"), side="left")
        binned = cells.with_columns((position.cast(pl.Int64) + 1).alias("bin"))
    else:
        rows = _rows_per_group(prep, segments) if prep.weighted else None
        binned = bin_of(cells, quantile_edges(cells, segments, n_bins, rows), segments)
    return prep, segments, binned.rename({"value": "score"})


def _bins_chosen(
    frame: Frame,
    n_bins: int | None,
    strategy: Strategy | None,
    grade: str | None,
    roles: Roles,
    reserved: Sequence[str],
) -> tuple[int, Strategy, list[str]]:
    """``n_bins``, ``strategy`` and the segment columns, checked (before any read)."""
    by = roles.by
    if grade is not None:
        _check_grade(frame, grade, n_bins=n_bins, strategy=strategy, roles=roles, reserved=reserved)
    n_bins = check_n_bins(10 if n_bins is None else n_bins)
    strategy = "uniform" if strategy is None else strategy
    check_choice("strategy", strategy, ("uniform", "quantile"))
    segments = normalize_by(by)
    # Segments may not be called as a result column, nor as a column of the cells.
    refuse_clashes(segments, {*reserved, *_CELL_COLUMNS})
    return n_bins, strategy, segments


def binned_sums(
    frame: Frame,
    roles: Roles,
    *,
    n_bins: int | None,
    strategy: Strategy | None,
    grade: str | None,
    reserved: Sequence[str],
) -> tuple[bool, list[str], pl.LazyFrame]:
    """Whether the caller gave a DataFrame, the segment columns, and the sums per bin
    ``[*by, bin, score_low, score_high, n, score_sum, pos]`` (:func:`bin_sums`).

    Bins fixed before the read (uniform, grades) are counted per bin where the rows
    live (:func:`~polars_roc.core.counting.count_bins`: one streaming aggregation);
    quantile bins need each group's scores first, so they are cut from the counts per
    distinct score (:func:`binned_cells`).
    """
    chosen, method, segments = _bins_chosen(frame, n_bins, strategy, grade, roles, reserved)
    if method == "quantile" and grade is None:
        prep, by_cols, cells = binned_cells(
            frame, roles, n_bins=n_bins, strategy=strategy, grade=grade, reserved=reserved
        )
        return prep.eager, by_cols, bin_sums(cells, by_cols)
    edges = np.linspace(0.0, 1.0, chosen + 1)[1:-1].tolist()
    # The grade becomes the `bin` column: only segments may not clash.
    kept = [name for name in reserved if name != grade]
    counted = count_bins(frame, roles, edges=edges, grade=grade, reserved=kept)
    return counted.eager, segments, counted.sums


def _rows_per_group(prep: Prepared, by: list[str]) -> pl.LazyFrame:
    """``[*by, ROWS]``: each group's rows of positive weight (a weighted row of Polars
    is one, an engine's cell says how many it holds)."""
    pos_rows, neg_rows = unit_counts(prep)
    units = agg_per_group(prep.frame, by, pos_rows, neg_rows)
    return units.select(*by, (pl.col(POS_ROWS) + pl.col(NEG_ROWS)).alias(ROWS))


# The columns of the binned cells and of their sums, beside the segment columns.
_CELL_COLUMNS = ("bin", "value", "score", "n", "pos", "score_sum", "score_low", "score_high")


def _check_grade(
    frame: Frame,
    grade: Any,
    *,
    n_bins: int | None,
    strategy: Strategy | None,
    roles: Roles,
    reserved: Sequence[str],
) -> None:
    """Refuse, before any work, a ``grade=`` that is no column of ``frame``, clashes with
    a segment or a result column, or comes with options of score bins it replaces."""
    if not isinstance(grade, str):
        msg = f"`grade` must be a column name (str), got {grade!r}"
        raise RocOptionTypeError(msg)
    if n_bins is not None or strategy is not None:
        given = "n_bins" if n_bins is not None else "strategy"
        msg = (
            f"`grade` makes the grades the bins, so `{given}` (a binning of the "
            f"scores) would not be used; drop `{given}` or `grade`"
        )
        raise RocOptionError(msg)
    # Named as the grade, not as the `by` column it is counted as.
    check_columns([*roles.row_columns(), ("grade", grade)])
    require_columns(frame, [("grade", grade)])
    refuse_clashes([grade], normalize_by(roles.by), role="grade", against="`by` columns")
    # The grade's own column is `bin` (calibration) or `grade` (grade tests).
    taken = {*reserved, *_CELL_COLUMNS, *RESERVED} - {"bin", "grade"}
    refuse_clashes([grade], taken, role="grade")


def bin_sums(cells: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, bin, score_low, score_high, n, score_sum, pos]`` per non-empty bin.

    The cells come in a fixed order (sorted by score): added in that order, the sums
    are the same bits on every run.
    """
    return cells.group_by([*by, "bin"]).agg(
        pl.col("score").min().alias("score_low"),
        pl.col("score").max().alias("score_high"),
        ordered_sum(pl.col("n")),
        ordered_sum(pl.col("score") * pl.col("n")).alias("score_sum"),
        ordered_sum(pl.col("pos")),
    )


def interval_columns(ci: Interval | None, conf_level: float, pos: str = "pos") -> list[pl.Expr]:
    """``ci_lower``, ``ci_upper`` of the rate ``pos / n`` (null without ``ci``)."""
    if ci is None:
        return [pl.lit(None, pl.Float64).alias(c) for c in ("ci_lower", "ci_upper")]
    if ci == "wilson":
        z2 = two_sided_z(conf_level) ** 2
        x, n = pl.col(pos).cast(pl.Float64), pl.col("n").cast(pl.Float64)
        centre = (x + z2 / 2) / (n + z2)
        half = (z2**0.5) / (n + z2) * (x * (n - x) / n + z2 / 4).clip(0.0).sqrt()
        return [(centre - half).alias("ci_lower"), (centre + half).alias("ci_upper")]

    # Jeffreys: equal-tailed quantiles of Beta(x + 1/2, n - x + 1/2); 0 as the lower end
    # where x = 0, 1 as the upper where x = n (Brown, Cai and DasGupta 2001).
    tail = (1.0 - conf_level) / 2

    def lower(x: np.ndarray, others: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.where(x > 0, beta_ppf(x + 0.5, others + 0.5, tail), 0.0)

    def upper(x: np.ndarray, others: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.where(others > 0, beta_ppf(x + 0.5, others + 0.5, 1 - tail), 1.0)

    # n - x in integers: past 2^53 rows the two counts could round to one float.
    others = (pl.col("n") - pl.col(pos)).alias("_others")
    return [
        map_numpy(lower, pos, others, name="ci_lower"),
        map_numpy(upper, pos, others, name="ci_upper"),
    ]


def calibration_curve(
    frame: Frame,
    n_bins: int | None = None,
    *,
    strategy: Strategy | None = None,
    grade: str | None = None,
    ci: Interval | None = None,
    conf_level: float = 0.95,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
) -> Frame:
    """Reliability table: mean predicted probability against observed rate, per bin.

    The scores must be probabilities in [0, 1]. Bins are scikit-learn's
    ``calibration_curve`` bins (see docs/validation.md), so that ``observed_rate``
    and ``mean_score`` equal its ``prob_true`` and ``prob_pred``; only non-empty bins
    are reported, as there.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction (or a count
        table with ``count=``, or a DuckDB/Spark/... frame).
    n_bins
        Number of bins of [0, 1] (``"uniform"``) or of the group's scores
        (``"quantile"``); 10 when not given.
    strategy
        ``"uniform"`` (when not given): equal-width bins; ``"quantile"``: bins of
        (about) equal count, edges at the group's percentiles (with ``weight=``, at
        cumulative shares of weight: scaling every weight changes nothing).
    grade
        A column of rating grades to use as the bins instead (``n_bins`` and
        ``strategy`` are then refused); it must hold no null, whatever ``nulls``.
    ci
        ``None``, ``"wilson"`` or ``"jeffreys"``: an interval of each bin's observed
        rate at ``conf_level``; it counts rows, so it refuses ``weight=``.
    conf_level
        Confidence level of the interval.
    score, label, by, weight, count, pos_label, nulls
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group and non-empty bin, ``[*by, bin, score_low, score_high, n,
        mean_score, observed_rate, ci_lower, ci_upper]``: ``bin`` counts from 1 (bin
        ``b`` holds scores in ``(edges[b-1], edges[b]]``, the first also 0) or is the
        grade; ``score_low``/``score_high`` the lowest and highest score in it; ``n``
        its rows (weight sum with ``weight=``); ``mean_score`` the mean predicted
        probability; ``observed_rate`` the share of positives; ``ci_*`` null without
        ``ci``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.7, 0.8, 0.9, 0.95],
    ...     "label": [0, 0, 0, 1, 0, 1, 0, 1, 1, 1],
    ... })
    >>> pr.calibration_curve(df, n_bins=2, ci="wilson")
    shape: (2, 8)
    ┌─────┬───────────┬────────────┬─────┬────────────┬───────────────┬──────────┬──────────┐
    │ bin ┆ score_low ┆ score_high ┆ n   ┆ mean_score ┆ observed_rate ┆ ci_lower ┆ ci_upper │
    │ --- ┆ ---       ┆ ---        ┆ --- ┆ ---        ┆ ---           ┆ ---      ┆ ---      │
    │ i64 ┆ f64       ┆ f64        ┆ i64 ┆ f64        ┆ f64           ┆ f64      ┆ f64      │
    ╞═════╪═══════════╪════════════╪═════╪════════════╪═══════════════╪══════════╪══════════╡
    │ 1   ┆ 0.05      ┆ 0.45       ┆ 5   ┆ 0.22       ┆ 0.2           ┆ 0.036224 ┆ 0.624465 │
    │ 2   ┆ 0.6       ┆ 0.95       ┆ 5   ┆ 0.79       ┆ 0.8           ┆ 0.375535 ┆ 0.963776 │
    └─────┴───────────┴────────────┴─────┴────────────┴───────────────┴──────────┴──────────┘
    """
    if ci is not None:
        check_choice("ci", ci, ("wilson", "jeffreys"))
        refuse_weights(
            weight, f"ci={ci!r} (an interval of a binomial rate)", "for weighted rows drop ci="
        )
    conf_level = check_conf_level(conf_level)
    eager, by_cols, sums = binned_sums(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls),
        n_bins=n_bins,
        strategy=strategy,
        grade=grade,
        reserved=CALIBRATION_COLUMNS,
    )
    sums = sums.sort([*by_cols, "bin"], nulls_last=False)
    result = sums.select(
        *by_cols,
        "bin",
        "score_low",
        "score_high",
        "n",
        ratio(pl.col("score_sum"), pl.col("n")).alias("mean_score"),
        ratio(pl.col("pos"), pl.col("n")).alias("observed_rate"),
        *interval_columns(ci, conf_level),
    )
    return finish_result(result, eager=eager, counts=["n"])


def brier_decomposition(
    frame: Frame,
    n_bins: int | None = None,
    *,
    strategy: Strategy | None = None,
    grade: str | None = None,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
) -> Frame:
    """Brier score per group and its decomposition over calibration bins.

    The decomposition of Stephenson, Coelho and Jolliffe (2008), exact for any bins:
    ``brier = reliability - resolution + uncertainty + within_bin_variance -
    within_bin_covariance``, with ``N`` rows, bin ``k`` of ``n_k`` rows, mean score
    ``f_k`` and observed rate ``o_k``, overall rate ``o``:
    ``reliability = sum n_k (f_k - o_k)^2 / N``, ``resolution = sum n_k (o_k - o)^2 /
    N``, ``uncertainty = o (1 - o)``, ``within_bin_variance = sum (f_i - f_k)^2 / N``
    and ``within_bin_covariance = 2 sum (y_i - o_k)(f_i - f_k) / N`` over the rows.
    Murphy's three terms are the first three; the last two vanish when every bin holds
    one score.

    Parameters
    ----------
    n_bins, strategy, grade
        The bins, as in :func:`polars_roc.calibration_curve`.
    frame, score, label, by, weight, count, pos_label, nulls
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, brier, reliability, resolution, uncertainty,
        within_bin_variance, within_bin_covariance, n]``; ``brier`` is scikit-learn's
        ``brier_score_loss`` (weighted with ``weight=``).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.1, 0.1, 0.3, 0.3, 0.8, 0.8],
    ...     "label": [0, 0, 0, 1, 1, 1],
    ... })
    >>> pr.brier_decomposition(df, n_bins=5).select(
    ...     "brier", "reliability", "resolution", "uncertainty"
    ... )
    shape: (1, 4)
    ┌──────────┬─────────────┬────────────┬─────────────┐
    │ brier    ┆ reliability ┆ resolution ┆ uncertainty │
    │ ---      ┆ ---         ┆ ---        ┆ ---         │
    │ f64      ┆ f64         ┆ f64        ┆ f64         │
    ╞══════════╪═════════════╪════════════╪═════════════╡
    │ 0.113333 ┆ 0.03        ┆ 0.166667   ┆ 0.25        │
    └──────────┴─────────────┴────────────┴─────────────┘
    """
    prep, by_cols, cells = binned_cells(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls),
        n_bins=n_bins,
        strategy=strategy,
        grade=grade,
        reserved=BRIER_COLUMNS,
    )
    bin_keys = [*by_cols, "bin"]
    n, s, pos = (pl.col(c).cast(pl.Float64) for c in ("n", "score", "pos"))
    # Each bin's mean score and rate beside its cells: the within-bin terms are summed
    # from deviations, not from differences of large sums. Every sum adds the cells in
    # their (sorted) order: the same bits on every run.
    bin_n = over(ordered_sum(n), bin_keys)
    mean_score = over(ordered_sum(s * n), bin_keys) / bin_n
    rate = over(ordered_sum(pos), bin_keys) / bin_n
    deviation = s - mean_score
    per_cell = cells.with_columns(
        (pos * (1.0 - s) ** 2 + (n - pos) * s**2).alias("__roc_squared"),
        (n * deviation**2).alias("__roc_variance"),
        ((pos - rate * n) * deviation).alias("__roc_covariance"),
        mean_score.alias("__roc_mean"),
        rate.alias("__roc_rate"),
    )
    totals = over(ordered_sum(n), by_cols)
    overall = ratio(over(ordered_sum(pos), by_cols), totals)
    with_totals = per_cell.with_columns(totals.alias("__roc_n"), overall.alias("__roc_o"))
    # Per-bin terms taken once per bin: on the bin's first cell.
    first_of_bin = over(pl.int_range(pl.len()) == 0, bin_keys)
    reliability = pl.when(first_of_bin).then(
        bin_n * (pl.col("__roc_mean") - pl.col("__roc_rate")) ** 2
    )
    resolution = pl.when(first_of_bin).then(bin_n * (pl.col("__roc_rate") - pl.col("__roc_o")) ** 2)
    # 0, not null, elsewhere: a running sum is null at a null.
    terms = {
        "__roc_reliability": reliability.otherwise(0.0),
        "__roc_resolution": resolution.otherwise(0.0),
    }
    # Columns first: Polars 1.x refuses a window expression inside an aggregation.
    sums = agg_per_group(
        with_totals.with_columns(**terms),
        by_cols,
        pl.col("__roc_n").first().alias("__roc_total"),
        pl.col("__roc_o").first(),
        ordered_sum(pl.col("__roc_squared")),
        *(ordered_sum(pl.col(name)) for name in terms),
        ordered_sum(pl.col("__roc_variance")),
        ordered_sum(pl.col("__roc_covariance")),
        ordered_sum(pl.col("n")),
    )
    total = pl.col("__roc_total")
    result = sums.select(
        *by_cols,
        ratio(pl.col("__roc_squared"), total).alias("brier"),
        ratio(pl.col("__roc_reliability"), total).alias("reliability"),
        ratio(pl.col("__roc_resolution"), total).alias("resolution"),
        (pl.col("__roc_o") * (1.0 - pl.col("__roc_o"))).alias("uncertainty"),
        ratio(pl.col("__roc_variance"), total).alias("within_bin_variance"),
        ratio(2.0 * pl.col("__roc_covariance"), total).alias("within_bin_covariance"),
        "n",
    )
    return finish_result(result, eager=prep.eager, counts=["n"], rows=prep.n_rows)


BRIER_COLUMNS = (
    "brier",
    "reliability",
    "resolution",
    "uncertainty",
    "within_bin_variance",
    "within_bin_covariance",
    "n",
)


def calibration_error(
    frame: Frame,
    n_bins: int | None = None,
    *,
    strategy: Strategy | None = None,
    grade: str | None = None,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
) -> Frame:
    """Expected and maximum calibration error over the bins, per group.

    With bin ``k`` of ``n_k`` of the group's ``N`` rows, mean score ``f_k`` and observed
    rate ``o_k`` (the rows of :func:`polars_roc.calibration_curve`):
    ``ece = sum n_k |o_k - f_k| / N`` and ``mce = max |o_k - f_k|`` over non-empty bins.
    Both depend on the bins: report ``n_bins`` and ``strategy`` with them.

    Parameters
    ----------
    n_bins, strategy, grade
        The bins, as in :func:`polars_roc.calibration_curve`.
    frame, score, label, by, weight, count, pos_label, nulls
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, ece, mce, n]``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.1, 0.1, 0.3, 0.3, 0.8, 0.8],
    ...     "label": [0, 0, 0, 1, 1, 1],
    ... })
    >>> pr.calibration_error(df, n_bins=5)
    shape: (1, 3)
    ┌──────────┬─────┬─────┐
    │ ece      ┆ mce ┆ n   │
    │ ---      ┆ --- ┆ --- │
    │ f64      ┆ f64 ┆ i64 │
    ╞══════════╪═════╪═════╡
    │ 0.166667 ┆ 0.2 ┆ 6   │
    └──────────┴─────┴─────┘
    """
    eager, by_cols, sums = binned_sums(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls),
        n_bins=n_bins,
        strategy=strategy,
        grade=grade,
        reserved=("ece", "mce", "n"),
    )
    n = pl.col("n").cast(pl.Float64)
    gap = ratio(pl.col("pos") - pl.col("score_sum"), n).abs()
    result = agg_per_group(
        sums.sort([*by_cols, "bin"], nulls_last=False),  # bins added in order: same bits
        by_cols,
        ratio(ordered_sum(n * gap), ordered_sum(n)).alias("ece"),
        gap.max().alias("mce"),
        ordered_sum(pl.col("n")),
    )
    return finish_result(result, eager=eager, counts=["n"])


def calibration_test(
    frame: Frame,
    method: TestMethod = "hosmer_lemeshow",
    n_bins: int = 10,
    *,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
) -> Frame:
    """Goodness-of-fit test of predicted probabilities, per group.

    ``"hosmer_lemeshow"``: the rows are cut into ``n_bins`` groups of (about) equal
    count by predicted risk (the ``"quantile"`` bins of
    :func:`polars_roc.calibration_curve`, ties kept together); with ``O_k`` positives,
    ``E_k`` the sum of scores and ``n_k`` rows in group ``k``,
    ``statistic = sum (O_k - E_k)^2 / (E_k (1 - E_k / n_k))``, referred to a
    chi-squared distribution with ``df = groups - 2`` (non-empty groups; groups whose
    scores are all 0 or all 1 add nothing).
    ``"spiegelhalter"``: Spiegelhalter's (1986) z,
    ``sum (y - p)(1 - 2p) / sqrt(sum (1 - 2p)^2 p (1 - p))``, two-sided normal p-value;
    needs no bins (``df`` is null).

    Parameters
    ----------
    method
        ``"hosmer_lemeshow"`` or ``"spiegelhalter"``.
    n_bins
        Hosmer-Lemeshow's number of risk groups (10: deciles of risk).
    frame, score, label, by, count, pos_label, nulls
        As in :func:`polars_roc.score_table`; ``score`` must hold probabilities in
        [0, 1]. ``count=`` gives frequencies (a count table).
    weight
        Refused: the tests count rows, so their p-values would change with the unit
        of the weights; pass frequencies as ``count=``.

    Returns
    -------
    DataFrame or LazyFrame
        One row per group: ``[*by, method, statistic, df, p_value]``; a small
        ``p_value`` is evidence of miscalibration.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "score": [0.1, 0.2, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.9],
    ...     "label": [0, 0, 1, 0, 1, 0, 1, 1, 1, 0],
    ... })
    >>> pr.calibration_test(df, "spiegelhalter")
    shape: (1, 4)
    ┌───────────────┬───────────┬──────┬──────────┐
    │ method        ┆ statistic ┆ df   ┆ p_value  │
    │ ---           ┆ ---       ┆ ---  ┆ ---      │
    │ str           ┆ f64       ┆ i64  ┆ f64      │
    ╞═══════════════╪═══════════╪══════╪══════════╡
    │ spiegelhalter ┆ 1.140704  ┆ null ┆ 0.253993 │
    └───────────────┴───────────┴──────┴──────────┘
    """
    check_choice("method", method, ("hosmer_lemeshow", "spiegelhalter"))
    refuse_weights(
        weight,
        f"calibration_test(method={method!r})",
        "for weighted rows, calibration_error() and brier_decomposition() measure the gap",
    )
    prep, by_cols, cells = binned_cells(
        frame,
        Roles(score, label, by, weight, count, pos_label, nulls),
        n_bins=n_bins,
        strategy="quantile",
        grade=None,
        reserved=("method", "statistic", "df", "p_value"),
    )
    if method == "hosmer_lemeshow":
        n, expected = pl.col("n").cast(pl.Float64), pl.col("score_sum")
        spread = expected * (1.0 - expected / n)
        gap = pl.col("pos") - expected
        # A group whose scores are all 0 (or all 1) has no variance: it adds nothing
        # when its rows agree (no positive; all positive), an infinite statistic when a
        # row at PD 0 turned positive (or one at 1 did not).
        term = (
            pl.when(spread > 0)
            .then(gap**2 / spread)
            .when(gap != 0)
            .then(float("inf"))
            .otherwise(0.0)
        )
        tested = agg_per_group(
            bin_sums(cells, by_cols).sort([*by_cols, "bin"], nulls_last=False),
            by_cols,
            ordered_sum(term).alias("statistic"),  # bins added in order: the same bits
            (pl.len().cast(pl.Int64) - 2).alias("df"),
        ).with_columns(pl.when(pl.col("df") > 0).then(pl.col("df")).alias("df"))
        p_value = map_numpy(lambda x, df: chdtrc(df, x), "statistic", "df", name="p_value")
    else:
        n, p, pos = (pl.col(c).cast(pl.Float64) for c in ("n", "score", "pos"))
        numerator = ordered_sum((pos - n * p) * (1.0 - 2.0 * p))
        variance = ordered_sum(n * (1.0 - 2.0 * p) ** 2 * p * (1.0 - p))
        z = pl.when(variance > 0).then(numerator / variance.sqrt())
        tested = agg_per_group(
            cells, by_cols, z.alias("statistic"), pl.lit(None, pl.Int64).alias("df")
        )
        p_value = map_numpy(normal_two_sided_p, "statistic", name="p_value")
    result = tested.select(*by_cols, pl.lit(method).alias("method"), "statistic", "df", p_value)
    return finish_result(result, eager=prep.eager, rows=prep.n_rows)


def brier(
    score: IntoExpr = "score",
    label: IntoExpr = "label",
    weight: IntoExpr | None = None,
    *,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    count: IntoExpr | None = None,
) -> pl.Expr:
    """Brier score ``mean((y - p)^2)`` as an expression (scikit-learn's
    ``brier_score_loss``; with ``weight``, the weighted mean).

    Like :func:`polars_roc.auc`, one value per group; null for a group with a score
    outside [0, 1], a group where ``pos_label`` never occurs, or another bad value (see
    :func:`polars_roc.auc`).

    Parameters
    ----------
    score, label, weight, pos_label, nulls, count
        As in :func:`polars_roc.auc`.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "segment": ["a", "a", "b", "b"],
    ...     "p": [0.9, 0.2, 0.6, 0.5],
    ...     "y": [1, 0, 0, 1],
    ... })
    >>> df.group_by("segment", maintain_order=True).agg(pr.brier("p", "y"))
    shape: (2, 2)
    ┌─────────┬───────┐
    │ segment ┆ brier │
    │ ---     ┆ ---   │
    │ str     ┆ f64   │
    ╞═════════╪═══════╡
    │ a       ┆ 0.025 │
    │ b       ┆ 0.305 │
    └─────────┴───────┘
    """
    rows = expr_rows("brier", score, label, weight, pos_label, nulls, count=count)
    y = rows.is_pos.cast(pl.Float64)
    return _mean_loss(rows, (y - rows.score) ** 2).alias("brier")


def log_loss(
    score: IntoExpr = "score",
    label: IntoExpr = "label",
    weight: IntoExpr | None = None,
    *,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    count: IntoExpr | None = None,
) -> pl.Expr:
    """Log loss ``-mean(y log p + (1 - y) log(1 - p))`` as an expression.

    scikit-learn's ``log_loss`` to the last digits: ``p`` and ``1 - p`` are clipped to
    ``[eps, 1 - eps]`` (``eps`` of Float64), so a confident mistake costs about 36, not
    infinity; with ``weight``, the weighted mean. Null for a group with a score outside
    [0, 1] or another bad value, as :func:`polars_roc.brier`.

    Parameters
    ----------
    score, label, weight, pos_label, nulls, count
        As in :func:`polars_roc.auc`.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"p": [0.9, 0.2, 0.6, 0.5], "y": [1, 0, 0, 1]})
    >>> df.select(pr.log_loss("p", "y"))
    shape: (1, 1)
    ┌──────────┐
    │ log_loss │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.484485 │
    └──────────┘
    """
    rows = expr_rows("log_loss", score, label, weight, pos_label, nulls, count=count)
    eps = float(np.finfo(np.float64).eps)
    chance = pl.when(rows.is_pos).then(rows.score).otherwise(1.0 - rows.score)
    return _mean_loss(rows, -chance.clip(eps, 1.0 - eps).log()).alias("log_loss")


def _mean_loss(rows: Any, loss: pl.Expr) -> pl.Expr:
    """The (weighted) mean of ``loss`` over the group's rows; null where the group is
    invalid, holds a score outside [0, 1], or has no weight."""
    probabilities = rows.score.is_between(0.0, 1.0).all()
    if rows.weight is None:
        mean = loss.mean()
        usable = rows.valid & probabilities & (loss.len() > 0)
    else:
        mean = (loss * rows.weight).sum() / rows.weight.sum()
        usable = rows.valid & probabilities & (rows.weight.sum() > 0)
    return pl.when(usable).then(mean)
