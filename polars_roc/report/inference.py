"""The report's inference sections: intervals of average precision, decision curves and,
with a group column, the disparities of rates between its groups (each from the log in
memory: its charts, tables and HTML blocks)."""

from __future__ import annotations

import html
from typing import Any, cast

import polars as pl

from polars_roc.report.tables import Sections, _cut_table, _table, chart_slot
from polars_roc.views.decision import decision_curve
from polars_roc.views.disparity import disparity, disparity_summary
from polars_roc.views.gains import gains_table, ks_statistic
from polars_roc.views.operating import best_threshold
from polars_roc.views.pr import pr_average_precision

__all__ = ["AUC_TEST_NOTE", "inference_sections"]

# The gains section's bins: deciles of the score, as a credit scorecard's gains table.
GAINS_BINS = 10

# Said under the AUC table when it holds the test against chance.
AUC_TEST_NOTE = (
    " u_statistic, p_value: the Mann-Whitney test of AUC = 0.5 (two-sided, tie-corrected, "
    "as scipy.stats.mannwhitneyu)."
)


def inference_sections(
    log: pl.DataFrame,
    options: dict[str, Any],
    *,
    threshold: float | None,
    group: str | None,
    drawn: pl.DataFrame | None = None,
    score_range: tuple[Any, Any],
) -> list[Sections]:
    """The inference sections, in page order; ``drawn``: past the report's segment limit,
    the segments whose curves are drawn (the others' decision curves are not)."""
    parts = [
        gains_panel(log, options, drawn),
        precision_intervals(log, options),
        decision_panel(log, options, drawn, score_range),
    ]
    if group is not None:
        parts.append(disparity_section(log, options, threshold=threshold, group=group))
    return parts


def gains_panel(
    log: pl.DataFrame, options: dict[str, Any], drawn: pl.DataFrame | None = None
) -> Sections:
    """KS per segment and the cumulative gains of its score deciles (of the ``drawn``
    segments only, when given), as credit scoring reads a score."""
    from polars_roc import charts

    ks = cast(pl.DataFrame, ks_statistic(log, **options))
    gains = cast(pl.DataFrame, gains_table(log, GAINS_BINS, **options))
    by = options["by"] or []
    if drawn is not None:
        gains = gains.join(drawn, on=by, how="semi", nulls_equal=True)
    panel = " / ".join(by) or None
    drawn_gains = gains.select(charts.data.joined(by), pl.exclude(*by)) if by else gains
    chart = charts.gains_chart(drawn_gains, facet=panel, columns=3 if panel else None)
    blocks = [
        "<h2>Gains and KS</h2>",
        "<p>ks: the Kolmogorov-Smirnov statistic, the largest tpr - fpr, at its threshold. "
        f"Cumulative gains: the share of the positives captured by the top {GAINS_BINS} "
        "score bins of about equal count (polars_roc.gains_table), against the share "
        "targeted; the diagonal is random targeting"
        + (", of the segments drawn above" if drawn is not None else "")
        + ".</p>",
        _cut_table(ks, "ks"),
        chart_slot("gains"),
    ]
    return {"gains": chart}, {"ks": ks}, blocks


def precision_intervals(log: pl.DataFrame, options: dict[str, Any]) -> Sections:
    """Average precision per segment with its logit interval (Boyd et al. 2013; none
    for a weighted log: the interval's variance counts the positives)."""
    weighted = options["weight"] is not None
    interval: dict[str, Any] = {} if weighted else {"ci": "logit"}
    table = cast(pl.DataFrame, pr_average_precision(log, **options, **interval))
    told = (
        " No interval: the log is weighted, and the logit interval counts positives."
        if weighted
        else " Its 95% logit interval (Boyd et al. 2013: expit(logit(ap) -+ z / sqrt(n_pos "
        "ap (1 - ap))), as pROC and precrec)."
    )
    blocks = [
        "<h2>Average precision with intervals</h2>",
        f"<p>Average precision per segment.{told}</p>",
        _cut_table(table, "average_precision"),
    ]
    return {}, {"average_precision": table}, blocks


def decision_panel(
    log: pl.DataFrame,
    options: dict[str, Any],
    drawn: pl.DataFrame | None,
    score_range: tuple[Any, Any],
) -> Sections:
    """Decision curves (net benefit) per segment, when the score is a probability (of
    the ``drawn`` segments only, when given: 99 thresholds x 3 lines a panel)."""
    from polars_roc import charts

    low, high = score_range
    heading = "<h2>Decision curve</h2>"
    if options["direction"] == "lower":
        reason = (
            "<p>Not drawn: the net benefit reads the score as a predicted probability, "
            "and a lower score is more positive here (direction 'lower').</p>"
        )
        return {}, {}, [heading, reason]
    options = {k: v for k, v in options.items() if k != "direction"}
    if low is None or high is None or not (0.0 <= low and high <= 1.0):
        reason = (
            "<p>Not drawn: the net benefit reads the score as a predicted probability, "
            f"and {html.escape(repr(options['score']))} runs from {low} to {high}.</p>"
        )
        return {}, {}, [heading, reason]
    curve = cast(pl.DataFrame, decision_curve(log, **options))
    by = options["by"] or []
    if drawn is not None:
        curve = curve.join(drawn, on=by, how="semi", nulls_equal=True)
    panel = " / ".join(by) or None
    if by:
        curve = curve.select(charts.data.joined(by), pl.exclude(*by))
    chart = charts.decision_chart(curve, facet=panel, columns=3 if panel else None)
    blocks = [
        heading,
        "<p>Net benefit of treating the rows with score &gt;= t, against treating all and "
        "treating none, at risk thresholds t (Vickers &amp; Elkin 2006; dcurves): tp / n - "
        "fp / n * t / (1 - t)"
        + (", of the segments drawn above" if drawn is not None else "")
        + ".</p>",
        chart_slot("decision"),
    ]
    return {"decision": chart}, {}, blocks


def disparity_section(
    log: pl.DataFrame, options: dict[str, Any], *, threshold: float | None, group: str
) -> Sections:
    """Rates per group of ``group`` against the whole log, per segment, at one cut-off:
    the report's ``threshold``, else the whole log's Youden threshold (one cut-off for
    every group, as a fairness review compares them)."""
    if group in (options["by"] or []):
        msg = f"`group` ({group!r}) must not be one of the segment columns {options['by']!r}"
        raise ValueError(msg)
    if threshold is None:
        whole = cast(pl.DataFrame, best_threshold(log, **{**options, "by": None}))
        cut, rule = whole.item(0, "threshold"), "the whole log's Youden threshold"
    else:
        cut, rule = threshold, "the report's threshold"
    table = cast(pl.DataFrame, disparity(log, cut, group=group, **options))
    summary = cast(pl.DataFrame, disparity_summary(log, cut, group=group, **options))
    blocks = [
        f"<h2>Disparities between groups of {html.escape(repr(group))}</h2>",
        f"<p>Rates per group at {html.escape(rule)} ({cut:g}), their difference and ratio "
        "to the rate of all groups together (fairlearn's definitions); the summary gives "
        "the demographic parity difference (spread of the selection rate) and the "
        "equalized odds difference (the larger spread of tpr and fpr).</p>",
        _table(summary),
        _cut_table(table, "disparity"),
    ]
    return {}, {"disparity": table, "disparity_summary": summary}, blocks
