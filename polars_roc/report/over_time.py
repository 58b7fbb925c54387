"""The report's sections over time and against a challenger score: the trend, the drift
tests, the challenger's paired tests per segment and per period."""

from __future__ import annotations

import html
from typing import Any, cast

import polars as pl

from polars_roc.report.tables import (
    MIN_POINTS_PER_CURVE,
    PANELS_PER_ROW,
    Sections,
    _cut_table,
    chart_slot,
    in_order,
    lines_over_time,
)
from polars_roc.stats.paired_tests import compare
from polars_roc.views.curve import roc_curve

# The legend title of the challenger's overlaid curves: which score column drew a curve.
SCORED = "score column"


def challenger_plans(
    log: pl.DataFrame, options: dict[str, Any], challenger: str
) -> list[pl.LazyFrame]:
    """Both scores' ROC curves per segment, and their paired DeLong test per segment
    (none for a weighted log: DeLong counts rows)."""
    scores = [options["score"], challenger]
    curves = pl.concat(
        cast(pl.LazyFrame, roc_curve(log.lazy(), **{**options, "score": s})).with_columns(
            pl.lit(s).alias(SCORED)
        )
        for s in scores
    )
    if options["weight"] is not None:
        return [curves]
    common = {k: options[k] for k in ("label", "by", "count", "pos_label", "nulls", "direction")}
    return [curves, cast(pl.LazyFrame, compare(log.lazy(), scores, **common))]


def challenger_section(
    results: list[pl.DataFrame],
    options: dict[str, Any],
    challenger: str,
    groups: list[str],
    keys: pl.DataFrame | None,
    max_points: int,
) -> Sections:
    """Champion against challenger per segment: overlaid ROC curves (one panel per
    segment, only the ``keys`` segments when given) and the paired DeLong table,
    Holm-adjusted over the segments, most significant first."""
    from polars_roc import charts
    from polars_roc.views.trend import adjust_p

    curves, *compared = results
    if keys is not None:
        curves = curves.join(keys, on=groups, how="semi", nulls_equal=True)
    panel = " / ".join(groups) or None
    if groups:
        curves = in_order(curves, groups).select(charts.data.joined(groups), pl.exclude(*groups))
    chart = charts.roc_chart(
        curves,
        facet=panel,
        color=SCORED,
        columns=PANELS_PER_ROW if panel else None,
        max_points=max(MIN_POINTS_PER_CURVE, max_points // 2),
    )
    names = f"{html.escape(repr(options['score']))} and {html.escape(repr(challenger))}"
    blocks = [
        f"<h2>Challenger {html.escape(repr(challenger))} per segment</h2>",
        f"<p>The ROC curves of {names} on the same rows"
        + (", of the segments drawn above" if keys is not None else "")
        + ".</p>",
        chart_slot("pair"),
    ]
    tables: dict[str, pl.DataFrame] = {}
    if compared:
        table = compared[0].with_columns(adjust_p(pl.col("p_value")).alias("p_adjusted"))
        tables["pair"] = table.sort("p_adjusted", "p_value", *groups, nulls_last=True)
        blocks += [
            "<p>Paired DeLong test per segment (pROC's roc.test, paired): diff = auc_a - "
            "auc_b, with its 95% interval; p-values Holm-adjusted over the segments, most "
            "significant first.</p>",
            _cut_table(tables["pair"].drop("model_a", "model_b"), "pair"),
        ]
    else:
        blocks.append("<p>No paired test: DeLong's test counts rows and the log is weighted.</p>")
    return {"pair": chart}, tables, blocks


def over_time(
    log: pl.DataFrame,
    options: dict[str, Any],
    *,
    period: str,
    challenger: str | None = None,
    score_range: tuple[Any, Any],
) -> Sections:
    """The "Over time" section: the trend per (segment, period), the drift against each
    segment's first period (unweighted logs: DeLong counts rows) and with ``challenger``
    the paired difference per period (unweighted logs too)."""
    from polars_roc import charts
    from polars_roc.views.trend import drift, trend

    segment, drawn_by, scope = lines_over_time(log, options, "tables")
    weighted = options["weight"] is not None
    shared = ("label", "count", "pos_label", "nulls", "direction")
    roles = {"period": period, **{k: options[k] for k in shared}}
    common, lazy = {"score": options["score"], **roles}, log.lazy()
    ci: dict[str, Any] = {} if weighted else {"ci": "delong"}
    # Rows without a label yet (left out with --nulls drop): their periods get the AUC
    # expected from the scores, when those are probabilities.
    score, (low, high) = options["score"], score_range
    estimated = (
        log.get_column(options["label"]).null_count() > 0
        and options["direction"] == "higher"
        and low is not None
        and 0 <= low <= high <= 1
    )
    common |= {"estimated": estimated}
    plans: dict[str, Any] = {
        "trend": trend(lazy, by=segment, weight=options["weight"], **ci, **common)
    }
    if drawn_by != segment and not weighted:
        plans["drawn"] = trend(lazy, by=drawn_by, ci="delong", **common)
    if not weighted:
        plans["drift"] = drift(lazy, by=segment, **roles, score=score)
    # The paired test counts rows: a weighted log would show unweighted AUCs.
    if challenger and not weighted:
        plans["paired"] = trend(lazy, scores=[options["score"], challenger], **roles)
    # Collected together: Polars shares their common part.
    results = dict(zip(plans, pl.collect_all(list(plans.values())), strict=True))
    per_segment = results["trend"]
    drawn = results.get("drawn", per_segment)
    drifted, paired = results.get("drift"), results.get("paired")
    keys = [c for c in (drawn_by, period) if c]
    flags = drifted if drifted is not None and drawn_by == segment else None
    values = [c for c in drawn.columns if c not in keys]
    chart = charts.trend_chart(drawn.select(*keys, *values), period=period, flags=flags)
    built: dict[str, Any] = {"trend": chart}
    tables = {"trend": per_segment}
    rows = [c for c in (segment, period) if c]
    measures = "auc ci_lower ci_upper gini ks n_pos n_neg estimated_auc".split()
    measures = [c for c in measures if c in per_segment.columns]
    blocks = [
        "<h2>Over time</h2>",
        f"<p>AUC per {html.escape(period)}, {scope}"
        + ("" if weighted else ", with DeLong's 95% interval as a band")
        + ". Ringed points: periods whose AUC differs from the first period's (Holm-adjusted "
        "p &lt; 0.05)."
        + (
            " Dashed: the AUC expected from the scores read as calibrated probabilities "
            "(estimated_auc), of every row, those without a label yet included.</p>"
            if estimated
            else "</p>"
        ),
        chart_slot("trend"),
        _cut_table(per_segment.select(*rows, *measures), "trend"),
    ]
    if drifted is not None:
        # Holm's adjusted p-values tie at 1: the raw p-value orders those.
        ordered = drifted.sort("p_adjusted", "p_value", nulls_last=True)
        shown = [*rows, *"baseline auc auc_baseline diff p_value p_adjusted flagged".split()]
        tables["drift"] = ordered
        blocks += [
            "<h3>Drift against the first period</h3>",
            "<p>Each period's AUC against its segment's first period: unpaired DeLong test "
            "(pROC's roc.test), p-values Holm-adjusted over all the tests, most significant "
            "first.</p>",
            _cut_table(ordered.select(*shown), "drift"),
        ]
    else:
        blocks.append("<p>No drift tests: DeLong's test counts rows and the log is weighted.</p>")
    if paired is not None:
        built["challenger"] = charts.trend_chart(paired, period=period, measure="diff")
        tables["challenger"] = paired
        blocks += [
            f"<h3>Challenger {html.escape(repr(challenger))} against "
            f"{html.escape(repr(options['score']))}</h3>",
            "<p>Paired DeLong test per period on the same rows: diff = AUC of the score - "
            "AUC of the challenger, with its 95% interval; ringed: Holm-adjusted p &lt; "
            "0.05.</p>",
            chart_slot("challenger"),
            _cut_table(paired, "challenger"),
        ]
    elif challenger:
        blocks.append(
            f"<p>No paired test of the challenger {html.escape(repr(challenger))} per period: "
            "DeLong's test counts rows and the log is weighted.</p>"
        )
    return built, tables, blocks
