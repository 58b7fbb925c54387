"""The report's validation sections: calibration, the grade back-test, stability (each
from the log in memory: its charts, tables and HTML blocks)."""

from __future__ import annotations

import html
from typing import Any, cast

import polars as pl

from polars_roc.report.tables import (
    PANELS_PER_ROW,
    Sections,
    _cut_table,
    chart_slot,
    lines_over_time,
)
from polars_roc.stats.cells import agg_per_group, attach
from polars_roc.views.calibration import (
    brier_decomposition,
    calibration_curve,
    calibration_test,
)
from polars_roc.views.calibration import calibration_error as expected_error
from polars_roc.views.grades import grade_test
from polars_roc.views.stability import PSI_LEVELS, psi

__all__ = ["validation_sections"]

# The bins of the calibration section: scikit-learn's calibration_curve default, whose
# equal-width bins of [0, 1] are those a reader of a reliability diagram expects.
CALIBRATION_BINS = 10
# Hosmer-Lemeshow's usual groups: deciles of predicted risk.
RISK_GROUPS = 10
PSI_BINS = 10


def validation_sections(
    log: pl.DataFrame,
    options: dict[str, Any],
    *,
    grade: str | None,
    period: str | None,
    many: bool,
    top_k: int,
    score_range: tuple[Any, Any],
) -> list[Sections]:
    """Calibration per segment (probabilities only), the grade back-test (``grade``)
    and stability over periods (``period``); ``many``: past the report's segment
    limit, tables put the weakest first and charts draw a few segments."""
    score, (low, high) = options["score"], score_range
    # The calibration views refuse scores outside [0, 1]: say so instead of failing.
    probabilities = low is not None and 0 <= low and high <= 1
    where = (
        f"the scores {html.escape(repr(score))} run from {low:g} to {high:g}, not "
        "probabilities in [0, 1]"
        if not probabilities and low is not None
        else ""
    )
    if options["direction"] == "lower":
        where = (
            f"a lower score {html.escape(repr(score))} is more positive (direction "
            "'lower'): it is no probability of the positive class"
        )
    # The views of probabilities take no direction.
    options = {k: v for k, v in options.items() if k != "direction"}
    parts = [calibration_section(log, options, many=many, top_k=top_k, absent=where)]
    if grade is not None:
        parts.append(grades_section(log, options, grade=grade, many=many, absent=where))
    if period is not None:
        parts.append(stability_section(log, options, period=period, many=many))
    return parts


def _weakest_first(frame: pl.DataFrame, many: bool, *order: tuple[str, bool]) -> pl.DataFrame:
    """Past the segment limit, rows by ``(column, descending)`` pairs, nulls last; else
    the segments' own order (a grade scale reads in order)."""
    if not many:
        return frame
    names = [c for c, _ in order]
    return frame.sort(names, descending=[d for _, d in order], nulls_last=True)


def calibration_section(
    log: pl.DataFrame, options: dict[str, Any], *, many: bool, top_k: int, absent: str
) -> Sections:
    """Per segment: Brier, ECE/MCE, the Hosmer-Lemeshow test (unweighted logs) and
    the reliability diagram with Wilson intervals; least calibrated first."""
    from polars_roc import charts

    heading = "<h2>Calibration per segment</h2>"
    if absent:
        reason = (
            f"<p>No calibration section: {absent}. Calibration compares predicted "
            "probabilities with observed rates; map the scores to probabilities first "
            "(Platt or isotonic scaling) to see it.</p>"
        )
        return {}, {}, [heading, reason]
    groups = list(options["by"] or [])
    weighted = options["weight"] is not None
    lazy = log.lazy()
    curve = cast(
        pl.LazyFrame,
        calibration_curve(lazy, CALIBRATION_BINS, ci=None if weighted else "wilson", **options),
    )
    n = pl.col("n").cast(pl.Float64)
    # Calibration in the large: the mean predicted probability against the observed rate.
    large = agg_per_group(
        curve,
        groups,
        ((pl.col("mean_score") * n).sum() / n.sum()).alias("mean_score"),
        ((pl.col("observed_rate") * n).sum() / n.sum()).alias("observed_rate"),
    )
    errors = cast(pl.LazyFrame, expected_error(lazy, CALIBRATION_BINS, **options))
    measures = cast(pl.LazyFrame, brier_decomposition(lazy, CALIBRATION_BINS, **options))
    measures = attach(measures.select(*groups, "n", "brier"), large, groups)
    measures = attach(measures, errors.select(*groups, "ece", "mce"), groups)
    if not weighted:  # Hosmer-Lemeshow counts rows: no test for sampling weights
        tested = cast(
            pl.LazyFrame, calibration_test(lazy, "hosmer_lemeshow", RISK_GROUPS, **options)
        )
        renamed = tested.select(*groups, "statistic", "df", "p_value").rename(
            {"statistic": "hl_statistic", "df": "hl_df"}
        )
        measures = attach(measures, renamed, groups)
    # Polars shares the plans' common part (the score table) when collected together.
    curve_rows, table_rows = pl.collect_all([curve, measures])
    first = ["n", "mean_score", "observed_rate"]
    table = table_rows.select(*groups, *first, pl.exclude(*groups, *first))
    # Least calibrated first: the strongest evidence (Hosmer-Lemeshow), then the gap.
    evidence = [] if weighted else ["p_value"]
    table = table.sort(
        [*evidence, "ece", *groups],
        descending=[False] * len(evidence) + [True] + [False] * len(groups),
        nulls_last=True,
    )
    drawn = curve_rows
    if many and groups:
        keys = table.head(2 * top_k).select(groups)
        drawn = curve_rows.join(keys, on=groups, how="semi", nulls_equal=True)
    facet = groups[0] if groups else None
    color = groups[1] if len(groups) > 1 else None
    chart = charts.calibration_chart(
        drawn, facet=facet, color=color, columns=PANELS_PER_ROW if facet else None
    )
    test_note = (
        "Hosmer-Lemeshow: no test, it counts rows and the log is weighted."
        if weighted
        else (
            f"hl_statistic, hl_df, p_value: Hosmer and Lemeshow's test over {RISK_GROUPS} groups "
            "of equal count by predicted risk (df = groups - 2); a small p-value is "
            "evidence of miscalibration."
        )
    )
    scope = (
        f"the {min(2 * top_k, table.height)} least calibrated segments"
        if many and groups
        else "each segment"
        if groups
        else "the log"
    )
    blocks = [
        heading,
        "<p>Do the predicted probabilities come true? mean_score: the mean predicted "
        "probability, observed_rate: the share of positives. brier: the mean squared "
        f"error of the probabilities (0 is perfect). ece: the mean |observed rate - "
        f"mean score| over {CALIBRATION_BINS} equal-width bins of [0, 1], weighted by "
        f"the bins' rows; mce: the largest. {test_note}</p>",
        "<p>Least calibrated first"
        + (" (by the test's p-value, then ece)" if not weighted else " (by ece)")
        + ".</p>",
        _cut_table(table, "calibration"),
        f"<p>Reliability diagram of {scope}: observed rate against mean predicted "
        "probability per bin (points sized by rows"
        + ("" if weighted else ", rules: Wilson 95% intervals")
        + "); the dashed diagonal is perfect calibration.</p>",
        chart_slot("calibration"),
    ]
    return {"calibration": chart}, {"calibration": table}, blocks


def grades_section(
    log: pl.DataFrame, options: dict[str, Any], *, grade: str, many: bool, absent: str
) -> Sections:
    """The PD back-test per grade (Jeffreys, one-sided), per segment."""
    heading = f"<h2>Back-test per grade {html.escape(repr(grade))}</h2>"
    if absent:
        reason = f"<p>No grade back-test: {absent}; the test reads the scores as PDs.</p>"
        return {}, {}, [heading, reason]
    if options["weight"] is not None:  # the test counts loans: none for sampling weights
        reason = "<p>No grade back-test: it counts loans and the log is weighted.</p>"
        return {}, {}, [heading, reason]
    roles = {k: options[k] for k in ("score", "label", "by", "count", "pos_label", "nulls")}
    table = cast(pl.DataFrame, grade_test(log, grade, "jeffreys", **roles))
    table = _weakest_first(table, many, ("p_value", False), ("observed_rate", True))
    rejected = int(table.get_column("reject").sum())
    blocks = [
        heading,
        "<p>Per grade: n rows, defaults (positives), mean_pd (the mean score) and the "
        "observed default rate with its Jeffreys 95% interval (ci_lower, ci_upper). "
        "p_value: the one-sided Jeffreys test of the ECB's validation reporting (H0: the "
        "grade's PD is not underestimated), Beta(defaults + 1/2, n - defaults + 1/2).cdf"
        f"(mean_pd); reject: p_value &lt; 0.05. {rejected:,} of {table.height:,} grade(s) "
        "rejected" + (", most significant first" if many else "") + "." + "</p>",
        _cut_table(table, "grades"),
    ]
    return {}, {"grades": table}, blocks


def stability_section(
    log: pl.DataFrame, options: dict[str, Any], *, period: str, many: bool
) -> Sections:
    """PSI of the score per period against the first, per segment (no label read):
    the table and a chart, one line per segment up to the trend's segment limit."""
    from polars_roc import charts

    segment, drawn_by, scope = lines_over_time(log, options, "table")
    common = {
        "period": period,
        "n_bins": PSI_BINS,
        "score": options["score"],
        "weight": options["weight"],
        "count": options["count"],
    }
    lazy = log.lazy()
    plans = [psi(lazy, by=segment, **common)]
    if drawn_by != segment:
        plans.append(psi(lazy, by=None, **common))
    per_segment, *whole = pl.collect_all(cast(list[pl.LazyFrame], plans))
    drawn = whole[0] if whole else per_segment
    keys = [c for c in (segment, period) if c]
    table = per_segment.select(*keys, "psi", "n", "n_baseline", "level")
    table = _weakest_first(table, many, ("psi", True))
    chart = charts.psi_chart(drawn.drop("column"), period=period)
    shifted = int((table.get_column("level") == "shift").sum())
    stable, moderate = PSI_LEVELS["stable"], PSI_LEVELS["moderate"]
    blocks = [
        "<h2>Stability over periods</h2>",
        f"<p>Population stability index of the score per {html.escape(period)} against "
        f"the first {html.escape(period)}, {scope}: bins at the baseline's deciles, "
        "psi = sum (a - e) ln(a / e) over the bins' shares (an empty bin counts 1e-4). "
        f"level: stable below {stable}, moderate below {moderate}, shift above (dashed "
        f"lines); {shifted:,} shift(s). No label is read: the score's distribution can "
        "be watched before the outcomes arrive"
        + (", most shifted first" if many else "")
        + ".</p>",
        chart_slot("psi"),
        _cut_table(table, "psi"),
    ]
    return {"psi": chart}, {"psi": table}, blocks
