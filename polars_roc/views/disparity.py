"""Disparities between groups (fairness, as fairlearn's ``MetricFrame``): confusion
rates per group beside a reference.

Counting happens once, with the group column as one more ``by`` column; the threshold
turns each row into treated or not, so every measure is a sum of at most two
score-table cells per group.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import polars as pl
from polars.exceptions import ColumnNotFoundError

from polars_roc.core.arguments import (
    Roles,
    check_columns,
    check_flags,
    check_thresholds,
    normalize_by,
    refuse_clashes,
)
from polars_roc.core.counting import count_rows
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import build, group_start, group_totals
from polars_roc.core.validate import SCORE, Direction, Frame, NullPolicy, Prepared
from polars_roc.exceptions import RocOptionError
from polars_roc.stats.auc_interval import bootstrap_intervals
from polars_roc.stats.bootstrap import IntervalMethod, Resampler
from polars_roc.stats.cells import agg_per_group, attach, ordered_sum, read_once
from polars_roc.stats.options import check_groups_present, check_inference_options
from polars_roc.stats.partial import Layout
from polars_roc.views.confusion import SegmentThresholds, matched_thresholds, segment_thresholds

__all__ = ["DISPARITY_MEASURES", "disparity", "disparity_summary"]

# name: (treated positives, treated negatives, positives, negatives) -> (numerator,
# denominator); one formula for the polars estimate and the numpy replicates.
DISPARITY_MEASURES: dict[str, Callable[[Any, Any, Any, Any], tuple[Any, Any]]] = {
    "selection_rate": lambda tp, fp, p, n: (tp + fp, p + n),
    "tpr": lambda tp, fp, p, n: (tp, p),
    "fpr": lambda tp, fp, p, n: (fp, n),
    "tnr": lambda tp, fp, p, n: (n - fp, n),
    "fnr": lambda tp, fp, p, n: (p - tp, p),
    "ppv": lambda tp, fp, p, n: (tp, tp + fp),
    "npv": lambda tp, fp, p, n: (n - fp, p - tp + n - fp),
    "accuracy": lambda tp, fp, p, n: (tp + n - fp, p + n),
}
DEFAULT_MEASURES = ("tpr", "fpr", "ppv", "selection_rate")
RESULT = ("measure", "value", "difference", "ratio", "ci_lower", "ci_upper")
SUMMARY = ["demographic_parity_difference", "demographic_parity_ratio"]
SUMMARY += ["equalized_odds_difference", "equalized_odds_ratio"]
_TREATED = 1.0  # a treated row's score once thresholded
_P, _N = "__roc_n_pos", "__roc_n_neg"


def disparity(
    frame: Frame,
    threshold: float | SegmentThresholds = 0.5,
    *,
    group: str,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
    measures: Sequence[str] = DEFAULT_MEASURES,
    reference: Any = "overall",
    ci: str | None = None,
    conf_level: float = 0.95,
    n_boot: int = 2000,
    seed: int | None = None,
    progress: bool = False,
    ci_method: IntervalMethod = "percentile",
) -> Frame:
    """Confusion rates of each group at a threshold, and their gaps to a reference.

    fairlearn's ``MetricFrame(metrics, y_true, y_pred, sensitive_features=group)``
    with ``y_pred = score >= threshold``: ``by_group``, ``difference()`` and
    ``ratio()``, per segment, in one long frame.

    Parameters
    ----------
    threshold
        A row is predicted positive (selected) when ``score >= threshold``. One number
        for every segment and group; or a threshold per segment, as in
        :func:`polars_roc.confusion_matrix`: a dict ``{segment: threshold}`` keyed by
        the ``by`` values, or a frame with a ``threshold`` column and key columns
        (``by`` columns, and the ``group`` column for a threshold per segment and
        group). Each key may appear once: one threshold per segment (or group).
    group
        The column whose groups are compared (a sensitive feature).
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.
    measures
        Among ``selection_rate`` ((tp + fp) / n), ``tpr``, ``fpr``, ``tnr``, ``fnr``,
        ``ppv``, ``npv``, ``accuracy``; rows come in this order.
    reference
        ``"overall"``: each group against its whole segment (fairlearn's
        ``difference(method="to_overall")``); or a value of ``group``: each group
        against that group.
    ci
        ``"bootstrap"`` adds the percentile (or BCa) interval of ``difference`` from
        ``n_boot`` bootstrap replicates, rows resampled within each segment, group and
        class.
    conf_level, n_boot, seed, progress
        As in :func:`polars_roc.roc_auc`.
    ci_method
        With ``ci="bootstrap"``: ``"percentile"`` (default) or ``"bca"``, the BCa
        interval of ``difference``, its acceleration from the exact jackknife of every
        (group, class) sample the difference depends on (docs/inference.md). The
        reference group's own difference is 0 in every replicate: its bounds are 0.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, measure, group, value, difference, ratio]`` (with ``ci``: and
        ``ci_lower, ci_upper``), one row per segment, measure and group; ``group``
        holds the group column's values. ``difference = value - reference`` and
        ``ratio = value / reference``; null where undefined (a rate without its
        denominator, a reference group absent from the segment).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "sex": ["f"] * 5 + ["m"] * 5,
    ...     "score": [0.9, 0.7, 0.6, 0.3, 0.2, 0.8, 0.6, 0.4, 0.3, 0.1],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> pr.disparity(df, 0.5, group="sex", measures=["tpr", "selection_rate"])
    shape: (4, 5)
    ┌────────────────┬───────┬──────────┬────────────┬──────────┐
    │ measure        ┆ group ┆ value    ┆ difference ┆ ratio    │
    │ ---            ┆ ---   ┆ ---      ┆ ---        ┆ ---      │
    │ str            ┆ str   ┆ f64      ┆ f64        ┆ f64      │
    ╞════════════════╪═══════╪══════════╪════════════╪══════════╡
    │ tpr            ┆ f     ┆ 0.666667 ┆ 0.066667   ┆ 1.111111 │
    │ tpr            ┆ m     ┆ 0.5      ┆ -0.1       ┆ 0.833333 │
    │ selection_rate ┆ f     ┆ 0.6      ┆ 0.1        ┆ 1.2      │
    │ selection_rate ┆ m     ┆ 0.4      ┆ -0.1       ┆ 0.8      │
    └────────────────┴───────┴──────────┴────────────┴──────────┘
    """
    check_flags(progress=progress)
    roles = Roles(score, label, by, weight, count, pos_label, nulls, direction)
    by_cols = roles.by
    wanted_measures = _check_options(group, roles, measures)
    check_inference_options(ci, ("bootstrap",), conf_level, n_boot, seed, ci_method)
    per_segment = isinstance(threshold, (pl.DataFrame, pl.LazyFrame, Mapping))
    if per_segment:
        wanted = segment_thresholds(threshold, roles, frame, group=group)  # type: ignore[arg-type]
        cuts = None
    else:
        cuts = check_thresholds("threshold", threshold)
        if len(cuts) != 1:
            msg = (
                f"`threshold` must be one number (or one per segment, as a frame or dict), "
                f"got {threshold!r}"
            )
            raise RocOptionError(msg)
    try:
        prep = count_rows(
            frame,
            replace(roles, by=[*by_cols, group]),
            reserved=RESULT,
            score_cuts=cuts,
            group_classes=per_segment,
        ).prep
    except ColumnNotFoundError as err:
        # The group column is counted as one more `by` column: name its own option.
        for spelled in (f"by column {group!r}", f"column {group!r}"):
            if str(err).startswith(spelled):
                raise ColumnNotFoundError(
                    f"`group` column {group!r}" + str(err)[len(spelled) :]
                ) from None
        raise
    if reference != "overall":
        check_groups_present(prep, group, [reference], argument="reference")
    treated = _thresholded(prep, cuts[0] if cuts else matched_thresholds(wanted, prep))
    treated = read_once(treated, ci == "bootstrap")
    table = build(treated)
    result = _compared(table, by_cols, group, wanted_measures, reference)
    if ci == "bootstrap":
        intervals = [
            bootstrap_intervals(
                treated,
                table,
                _replicates(name, by_cols, group, reference),
                se=None,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                progress=progress,
                ci_method=ci_method,
                keep_score=True,
                accelerate=_acceleration(name, by_cols, group, reference),
            ).with_columns(pl.lit(name).alias("measure"))
            for name in wanted_measures
        ]
        result = attach(
            result.rename({"group": group}) if group != "group" else result,
            pl.concat(intervals),
            [*by_cols, group, "measure"],
        )
        result = result.rename({group: "group"}) if group != "group" else result

    def totals(done: pl.DataFrame) -> pl.DataFrame:
        named = {"group": group, _P: "n_pos", _N: "n_neg"}
        return group_totals(done.rename({k: v for k, v in named.items() if k != v}), prep.by)

    # The class totals ride along for the one-class warning, then go.
    finished = treated.finish(
        result, totals, consequence="their rates that need both classes are null"
    )
    return finished.drop(_P, _N)


def _check_options(group: object, roles: Roles, measures: object) -> list[str]:
    if not isinstance(group, str):
        msg = f"`group` must be a column name (str), got {group!r}"
        raise RocOptionError(msg)
    # Named as the group, not as the `by` column it is counted as.
    check_columns([*roles.row_columns(), ("group", group)])
    by = roles.by
    refuse_clashes(by, {"group", *RESULT})
    if group in RESULT or group in (_P, _N):
        msg = (
            f"`group` column {group!r} collides with result columns {list(RESULT)!r}; "
            "rename it first"
        )
        raise RocOptionError(msg)
    if group in by:
        msg = (
            f"`group` ({group!r}) compares groups within each `by` segment; it must not be "
            f"a `by` column (got by={by!r})"
        )
        raise RocOptionError(msg)
    names = [measures] if isinstance(measures, str) else list(measures)  # type: ignore[call-overload]
    unknown = [m for m in names if m not in DISPARITY_MEASURES]
    if not names or unknown or len(set(names)) != len(names):
        msg = (
            f"`measures` must be distinct names among {list(DISPARITY_MEASURES)!r}, "
            f"got {measures!r}"
        )
        raise RocOptionError(msg)
    return names


def _thresholded(prep: Prepared, threshold: float | pl.DataFrame) -> Prepared:
    """``prep`` with each row's score replaced by 1.0 (treated: ``score >= threshold``)
    or 0.0, so its score table has at most two cells per group."""
    key = "__roc_key"
    if isinstance(threshold, pl.DataFrame):
        if threshold.get_column("threshold").null_count():
            msg = "`threshold` per segment must be a number for every segment, got a null"
            raise RocOptionError(msg)
        keys = [c for c in prep.by if c in threshold.columns]
        if threshold.select(keys).is_duplicated().any():
            msg = f"`threshold` must give one threshold per segment; {keys!r} repeat"
            raise RocOptionError(msg)
        values = threshold.get_column("threshold").to_list()
        rows = threshold.select(*keys, pl.Series(key, prep.threshold_keys(values)))
        frame = (
            attach(prep.frame, rows.lazy(), keys)
            .with_columns((pl.col(SCORE) >= pl.col(key)).cast(pl.Float64))
            .drop(key)
        )
    else:
        cut = prep.threshold_keys([threshold])[0]
        frame = prep.frame.with_columns((pl.col(SCORE) >= cut).cast(pl.Float64))
    return replace(prep, frame=frame, n_distinct=2, score_range=(0.0, 1.0), direction="higher")


def _counts(table: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """``[*keys, tp, fp, p, n]`` (``keys`` hold the group column): treated positives and
    negatives, class totals."""
    treated = pl.col("threshold") == _TREATED
    sums = [
        ordered_sum(pl.col("pos").filter(treated)).fill_null(0).alias("tp"),
        ordered_sum(pl.col("neg").filter(treated)).fill_null(0).alias("fp"),
        ordered_sum(pl.col("pos")).alias("p"),
        ordered_sum(pl.col("neg")).alias("n"),
    ]
    return table.group_by(keys, maintain_order=True).agg(sums)


def _compared(
    table: pl.LazyFrame, by: list[str], group: str, measures: list[str], reference: Any
) -> pl.LazyFrame:
    """``[*by, measure, group, value, difference, ratio]`` from the thresholded table."""
    tp, fp, p, n = (pl.col(c).cast(pl.Float64) for c in ("tp", "fp", "p", "n"))
    values = [ratio(*DISPARITY_MEASURES[m](tp, fp, p, n)).alias(m) for m in measures]
    order = pl.Enum(measures)

    def long(counts: pl.LazyFrame, index: list[str]) -> pl.LazyFrame:
        return counts.select(*index, *values).unpivot(
            on=measures, index=index, variable_name="measure", value_name="value"
        )

    per_group = long(_counts(table, [*by, group]), [*by, group, "p", "n"])
    if reference == "overall":
        summed = _counts(table, [*by, group]).group_by(by or pl.lit(0), maintain_order=True)
        totals = summed.agg(ordered_sum(pl.col(c)) for c in ("tp", "fp", "p", "n"))
        base = long(totals.select(*by, "tp", "fp", "p", "n"), by)
    else:
        base = per_group.filter(pl.col(group) == reference).drop(group, "p", "n")
    base = base.rename({"value": "__roc_reference"})
    joined = per_group.join(
        base, on=[*by, "measure"], how="left", nulls_equal=True, maintain_order="left"
    )
    value, ref = pl.col("value"), pl.col("__roc_reference")
    return (
        joined.with_columns(
            (value - ref).alias("difference"),
            ratio(value, ref).alias("ratio"),
            pl.col("measure").cast(order).alias("__roc_order"),
        )
        .sort([*by, "__roc_order", group], nulls_last=False, maintain_order=True)
        .select(
            *by,
            "measure",
            pl.col(group).alias("group"),
            "value",
            "difference",
            "ratio",
            pl.col("p").alias(_P),
            pl.col("n").alias(_N),
        )
    )


def _divide(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(bottom > 0, top / bottom, np.nan)


def _places(
    cells: pl.DataFrame, layout: Layout, by: list[str], group: str, reference: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Per resampled group (a segment's group): its segment's number and, with a group
    as ``reference``, the index of that group in the same segment (-1 when absent)."""
    keys = cells.select(*by, group)[layout.starts]
    segment = keys.select(group_start(by).cum_sum() - 1).to_series().to_numpy()
    if reference == "overall":
        return segment, np.full(keys.height, -1)
    numbered = keys.with_row_index("__roc_at")
    at = numbered.filter(pl.col(group) == reference).select(
        *by, pl.col("__roc_at").alias("__roc_ref")
    )
    found = attach(numbered, at, by)
    return segment, found.get_column("__roc_ref").fill_null(-1).to_numpy().astype(np.int64)


def _replicates(
    name: str, by: list[str], group: str, reference: Any
) -> Callable[[np.ndarray, np.ndarray, Layout, pl.DataFrame], np.ndarray]:
    """The bootstrap statistic: ``difference`` of measure ``name`` per replicate and
    (segment, group), from resampled thresholded cells."""
    formula = DISPARITY_MEASURES[name]

    def statistic(
        pos: np.ndarray, neg: np.ndarray, layout: Layout, cells: pl.DataFrame
    ) -> np.ndarray:
        treated = cells.get_column(SCORE).to_numpy() == _TREATED
        tp, fp = layout.group_sum(pos * treated), layout.group_sum(neg * treated)
        p, n = layout.group_sum(pos), layout.group_sum(neg)
        value = _divide(*formula(tp, fp, p, n))
        segment, at = _places(cells, layout, by, group, reference)
        if reference == "overall":
            starts = np.flatnonzero(np.diff(segment, prepend=-1))
            sums = [np.add.reduceat(a, starts, axis=1) for a in (tp, fp, p, n)]
            base = _divide(*formula(*sums))[:, segment]
        else:
            base = np.where(at >= 0, value[:, np.maximum(at, 0)], np.nan)
        return value - base

    return statistic


# Leaving out one unit of (class, side of the threshold) takes its weight off these
# counts: [class][side] with class 0 positive, side 1 treated.
_LEAVE_OUT = {
    "tp": np.array([[0.0, 1.0], [0.0, 0.0]]),
    "fp": np.array([[0.0, 0.0], [0.0, 1.0]]),
    "p": np.array([[1.0, 1.0], [0.0, 0.0]]),
    "n": np.array([[0.0, 0.0], [1.0, 1.0]]),
}


def _acceleration(
    name: str, by: list[str], group: str, reference: Any
) -> Callable[[Resampler, pl.DataFrame], np.ndarray]:
    """BCa's acceleration of ``difference`` per (segment, group), from the exact
    jackknife in closed form (docs/inference.md).

    The bootstrap resamples each (segment, group, class) on its own: those are the
    samples of scipy's multi-sample jackknife. A group's thresholded cells are at most
    two per class (treated or not), whose units are exchangeable, so a sample has at
    most two leave-one-out values, each for its cell's rows. ``difference = value_g -
    base`` is linear in its parts, so its influence values are ``U(value_g) - U(base)``
    on group g's samples and ``-U(base)`` on the other samples the base holds (every
    group of the segment for ``"overall"``, the reference group's for a group).
    """
    formula = DISPARITY_MEASURES[name]

    def accelerate(sampler: Resampler, cells: pl.DataFrame) -> np.ndarray:
        layout = sampler.layout
        segment, at = _places(cells, layout, by, group, reference)
        side = (cells.get_column(SCORE).to_numpy() == _TREATED).astype(np.int64)
        owner = np.repeat(np.arange(layout.n_groups), layout.lengths)
        rows = np.zeros((layout.n_groups, 2, 2))  # group, class, side
        unit = np.zeros((layout.n_groups, 2, 2))
        for tag in (0, 1):
            rows[owner, tag, side] = sampler.rows[tag]
            unit[owner, tag, side] = sampler.unit_weight[tag]
        weight = rows * unit
        counts = {
            "tp": weight[:, 0, 1],
            "fp": weight[:, 1, 1],
            "p": weight[:, 0].sum(-1),
            "n": weight[:, 1].sum(-1),
        }

        def left_out(totals: dict[str, np.ndarray]) -> np.ndarray:
            """The measure with one unit of each (class, side) left out: (groups, 2, 2)."""
            parts = [totals[c][:, None, None] - unit * _LEAVE_OUT[c] for c in _LEAVE_OUT]
            return _divide(*formula(*parts))

        def influence(values: np.ndarray) -> np.ndarray:
            """scipy's ``U = (n_j - 1) (mean_j - theta_(i))`` per sample and cell."""
            units = rows.sum(-1, keepdims=True)
            used = rows > 0
            kept = np.where(used, values, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                mean = (rows * kept).sum(-1, keepdims=True) / units
            return np.where(used, (units - 1) * (mean - kept), 0.0)

        def terms(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """Sums of cubes and squares over a group's samples (``/ n_j^3``, ``/ n_j^2``)."""
            units = rows.sum(-1)
            with np.errstate(divide="ignore", invalid="ignore"):
                cubes = np.where(units > 0, (rows * u**3).sum(-1) / units**3, 0.0)
                squares = np.where(units > 0, (rows * u**2).sum(-1) / units**2, 0.0)
            return cubes.sum(-1), squares.sum(-1)

        own = influence(left_out(counts))
        if reference == "overall":
            totals = {c: np.bincount(segment, v)[segment] for c, v in counts.items()}
            base = influence(left_out(totals))
            cubes_in, squares_in = terms(own - base)
            cubes_out, squares_out = terms(-base)
            # The segment's samples all move the base; group g's own also move value_g.
            cubes = np.bincount(segment, cubes_out)[segment] - cubes_out + cubes_in
            squares = np.bincount(segment, squares_out)[segment] - squares_out + squares_in
            constant = np.bincount(segment)[segment] == 1  # the segment is the group
        else:
            cubes_g, squares_g = terms(own)
            ref = np.maximum(at, 0)
            cubes = np.where(at >= 0, cubes_g - cubes_g[ref], np.nan)
            squares = np.where(at >= 0, squares_g + squares_g[ref], np.nan)
            constant = at == np.arange(layout.n_groups)  # the reference group itself
        with np.errstate(divide="ignore", invalid="ignore"):
            accel = cubes / (6.0 * squares**1.5)
        # A difference that is 0 by construction is 0 in every replicate: no correction.
        return np.where(constant, 0.0, accel)

    return accelerate


def disparity_summary(
    frame: Frame,
    threshold: float | SegmentThresholds = 0.5,
    *,
    group: str,
    score: str = "score",
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    direction: Direction = "higher",
) -> Frame:
    """fairlearn's summaries of the disparities between groups, per segment.

    ``demographic_parity_difference``: the largest minus the smallest selection rate
    of the groups (fairlearn's ``demographic_parity_difference``, ``method=
    "between_groups"``); ``demographic_parity_ratio``: the smallest over the largest.
    ``equalized_odds_difference``: the larger of the between-group spreads of ``tpr``
    and ``fpr``; ``equalized_odds_ratio``: the smaller of their min/max ratios (as
    fairlearn's ``equalized_odds_difference`` / ``equalized_odds_ratio``).

    Parameters
    ----------
    threshold
        A row is predicted positive (selected) when ``score >= threshold``: one number,
        or one per segment (or per segment and group), as in
        :func:`polars_roc.disparity`.
    group
        The column whose groups are compared (a sensitive feature).
    frame, score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, demographic_parity_difference, demographic_parity_ratio,
        equalized_odds_difference, equalized_odds_ratio]``, one row per segment; no
        row for an empty input.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "sex": ["f"] * 5 + ["m"] * 5,
    ...     "score": [0.9, 0.7, 0.6, 0.3, 0.2, 0.8, 0.6, 0.4, 0.3, 0.1],
    ...     "label": [1, 1, 0, 1, 0, 1, 0, 1, 0, 0],
    ... })
    >>> summary = pr.disparity_summary(df, 0.5, group="sex")
    >>> for name, value in summary.row(0, named=True).items():
    ...     print(f"{name}: {value:.6f}")
    demographic_parity_difference: 0.200000
    demographic_parity_ratio: 0.666667
    equalized_odds_difference: 0.166667
    equalized_odds_ratio: 0.666667
    """
    by_cols = normalize_by(by)
    refuse_clashes(by_cols, SUMMARY)
    rates = disparity(
        frame,
        threshold,
        group=group,
        score=score,
        label=label,
        by=by,
        weight=weight,
        count=count,
        pos_label=pos_label,
        nulls=nulls,
        direction=direction,
        measures=("selection_rate", "tpr", "fpr"),
    )
    value = pl.col("value")
    spread = (
        rates.lazy()
        .group_by([*by_cols, "measure"], maintain_order=True)
        .agg(
            (value.max() - value.min()).alias("difference"),
            ratio(value.min(), value.max()).alias("ratio"),
        )
    )
    sel, tpr, fpr = (pl.col("measure") == m for m in ("selection_rate", "tpr", "fpr"))
    summary = [
        pl.col("difference").filter(sel).first().alias("demographic_parity_difference"),
        pl.col("ratio").filter(sel).first().alias("demographic_parity_ratio"),
        pl.max_horizontal(
            pl.col("difference").filter(tpr).first(), pl.col("difference").filter(fpr).first()
        ).alias("equalized_odds_difference"),
        pl.min_horizontal(
            pl.col("ratio").filter(tpr).first(), pl.col("ratio").filter(fpr).first()
        ).alias("equalized_odds_ratio"),
    ]
    result = agg_per_group(spread, by_cols, *summary)
    return result.collect() if isinstance(rates, pl.DataFrame) else result
