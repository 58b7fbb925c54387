"""The offline HTML report: input summary, AUC per segment, ROC/PR charts, confusion,
in one self-contained page (docs/report.md, "Offline and self-contained").
"""

from __future__ import annotations

import functools
import html
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from pathlib import Path
from typing import Any, cast

import polars as pl

from polars_roc.core.arguments import Direction, normalize_by
from polars_roc.core.counting import require_columns
from polars_roc.core.measures import ratio
from polars_roc.core.validate import Frame, NullPolicy
from polars_roc.report.inference import AUC_TEST_NOTE, inference_sections
from polars_roc.report.over_time import challenger_plans, challenger_section, over_time
from polars_roc.report.segments import SEGMENTS_DRAWN_MAX, many_segments
from polars_roc.report.tables import (
    MIN_POINTS_PER_CURVE,
    PANELS_PER_ROW,
    TABLE_ROWS_MAX,
    Sections,
    _csv_download,
    _table,
    chart_slot,
    in_order,
)
from polars_roc.report.validation import validation_sections
from polars_roc.stats.cells import attach
from polars_roc.views.auc import roc_auc
from polars_roc.views.confusion import confusion_matrix
from polars_roc.views.curve import roc_curve
from polars_roc.views.operating import best_threshold
from polars_roc.views.pr import pr_curve

__all__ = ["Report", "build_report", "javascript_bundle"]

# Points per chart (all curves together): keeps the file small whatever the segments.
CHART_POINT_BUDGET = 4000
# Facets wrap so that the page stays about 1200 px wide.
CONFUSION_PANELS_PER_ROW = 4
# The threshold and the cells of a confusion matrix: what the confusion chart draws.
CELLS = ("threshold", "tp", "fp", "fn", "tn")
CONFUSION_COLUMNS = (*CELLS, *"tpr fpr tnr ppv npv accuracy balanced_accuracy f1 kappa mcc".split())
# Nothing may leave the page: no fetch, no image, no font, no frame.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; "
    "style-src 'unsafe-inline'; img-src data: blob:"
)

Progress = Callable[[str], None]


@dataclass
class Report:
    """A built report: the HTML page and the charts it shows (for PNG export)."""

    html: str
    charts: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)


@functools.cache
def javascript_bundle() -> str:
    """Vega, Vega-Lite and Vega-Embed as one script (globals ``vega``, ``vegaEmbed``).

    vl-convert builds the bundle in a few seconds; the result is kept in the user's
    cache directory (``$XDG_CACHE_HOME/polars-roc``, else ``~/.cache/polars-roc``), one
    file per vl-convert version, so later reports start at once.
    """
    try:
        import vl_convert
    except ImportError as err:  # pragma: no cover - depends on the environment
        msg = (
            "the HTML report needs vl-convert-python for the inlined Vega libraries; "
            "install it with `pip install 'polars-roc[report]'`"
        )
        raise ImportError(msg) from err
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    version = getattr(vl_convert, "__version__", "0")  # not in its type stubs
    cached = Path(cache_home) / "polars-roc" / f"vega-bundle-{version}.js"
    try:
        return cached.read_text(encoding="utf-8")
    except OSError:
        pass
    bundle = vl_convert.javascript_bundle()  # type: ignore[call-arg]  # snippet is optional
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(bundle, encoding="utf-8")
        partial.replace(cached)  # atomic: a concurrent reader never sees half a file
    except OSError:
        pass  # a read-only home only costs the rebuild next time
    return bundle


def build_report(
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
    threshold: float | None = None,
    source: str = "",
    progress: Progress | None = None,
    period: str | None = None,
    challenger: str | None = None,
    top_k: int = 5,
    grade: str | None = None,
    group: str | None = None,
) -> Report:
    """Build the report of a prediction log.

    Parameters
    ----------
    frame
        A polars ``DataFrame`` or ``LazyFrame`` with one row per prediction; only the
        columns used are read.
    score, label, by, weight, count, pos_label, nulls, direction
        As in :func:`polars_roc.score_table`. One ``by`` column gives one panel per
        segment; two give panels by the first and colors by the second; more are joined
        into one segment label. With ``count`` (a count table), every number is the
        expanded rows' and ``rows`` counts those rows. With ``direction="lower"`` (a
        lower score is more positive) the sections that read the score as a probability
        (calibration, grades, decision curves) say why they are not shown.
    threshold
        The cut-off of the confusion measures (``score >= threshold`` is positive). By
        default each segment's Youden threshold (largest ``tpr - fpr``, as
        :func:`polars_roc.best_threshold`); the page says which rule chose it.
    source
        Where the data came from, shown in the page heading.
    progress
        Called with a short message at each stage (reading, counting, rendering).
    period
        A period column (Date, Datetime, String such as "2026-01", integer): adds the
        "Over time" section (trend chart and table, drift against the first period).
    challenger
        A second score column: adds its paired DeLong comparison per segment (a table
        and both ROC curves per segment; unweighted logs), and with ``period`` per
        period.
    top_k
        With more than 12 segments, the ROC, PR and confusion charts show the ``top_k``
        weakest and ``top_k`` strongest segments (by AUC) and a forest plot shows them
        all (docs/report.md, "Many segments").
    grade
        A column of rating grades: adds the PD back-test per grade (Jeffreys, as
        :func:`polars_roc.grade_test`) when the scores are probabilities.
    group
        A column of groups (e.g. sex): adds a table of the disparities of the rates
        between its groups, per segment (:func:`polars_roc.disparity` at ``threshold``,
        else the whole log's Youden threshold). Every report also has the AUC's test
        against chance (``p_value``, unweighted logs), average precision with logit
        intervals and decision curves (when the score lies in [0, 1]).

    Returns
    -------
    Report
        ``html`` (the page), ``charts`` (``"roc"``, ``"pr"``, ``"confusion"``,
        ``"gains"``, and when shown ``"decision"`` (scores in [0, 1]), ``"forest"``,
        ``"pair"``, ``"trend"``, ``"challenger"``, ``"calibration"``, ``"psi"``: Altair
        charts) and ``tables`` (``"summary"``, ``"auc"`` sorted by AUC, weakest first,
        ``"confusion"``, ``"ks"``, ``"average_precision"``, and when shown
        ``"weakest"``, ``"pair"``, ``"trend"``, ``"drift"``, ``"challenger"``,
        ``"calibration"`` (least calibrated first),
        ``"grades"``, ``"psi"``, ``"disparity"``, ``"disparity_summary"``), in full.
        Calibration and decision curves are shown when the scores are probabilities in
        [0, 1] (the page says why otherwise), ``"psi"`` with ``period``, ``"grades"``
        with ``grade``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_roc.report import build_report
    >>> log = pl.DataFrame({"region": ["n", "n", "n", "s", "s", "s"],
    ...                     "score": [0.9, 0.4, 0.3, 0.8, 0.6, 0.1],
    ...                     "label": [1, 0, 1, 1, 0, 0]})
    >>> report = build_report(log, by="region")
    >>> report.tables["auc"].select("region", "n_pos", "n_neg", "auc", "gini")
    shape: (2, 5)
    ┌────────┬───────┬───────┬─────┬──────┐
    │ region ┆ n_pos ┆ n_neg ┆ auc ┆ gini │
    │ ---    ┆ ---   ┆ ---   ┆ --- ┆ ---  │
    │ str    ┆ i64   ┆ i64   ┆ f64 ┆ f64  │
    ╞════════╪═══════╪═══════╪═════╪══════╡
    │ n      ┆ 2     ┆ 1     ┆ 0.5 ┆ 0.0  │
    │ s      ┆ 1     ┆ 2     ┆ 1.0 ┆ 1.0  │
    └────────┴───────┴───────┴─────┴──────┘
    >>> sorted(report.charts)  # the scores are probabilities: calibration too
    ['calibration', 'confusion', 'decision', 'gains', 'pr', 'roc']
    """
    import altair as alt  # loaded only when a report is made

    from polars_roc import charts

    say = progress or (lambda _: None)
    # Before any work, and whatever the number of segments (it was checked past 12 only).
    if isinstance(top_k, bool) or not isinstance(top_k, Integral) or top_k < 1:
        msg = f"`top_k` must be a positive integer, got {top_k!r}"
        raise ValueError(msg)
    by_cols = normalize_by(by)
    lazy = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    optional = {"weight": weight, "count": count, "period": period, "challenger": challenger}
    optional |= {"grade": grade, "group": group}
    roles = [("score", score), ("label", label), *((r, c) for r, c in optional.items() if c)]
    require_columns(lazy, [*roles, *(("by", column) for column in by_cols)])
    needed = list(dict.fromkeys([*by_cols, *(name for _, name in roles)]))
    say("reading " + (source or "the frame"))
    # One read of the columns used; every view below then works in memory.
    log = lazy.select(needed).collect()
    if log.height == 0:
        msg = f"the log {source or 'frame'} has no rows: there is nothing to report"
        raise ValueError(msg)
    segment, facet, color = charts.data.segment_roles(by_cols)
    if segment is not None:
        log = log.with_columns(segment)
    groups = [g for g in (facet, color) if g is not None]
    options: dict[str, Any] = {
        "score": score,
        "label": label,
        "by": groups or None,
        "weight": weight,
        "count": count,
        "pos_label": pos_label,
        "nulls": nulls,
        "direction": direction,
    }

    say(f"counting {log.height:,} rows")
    # Lazy plans collected together: polars runs them in parallel and shares their
    # common part (the score table) instead of sorting the rows three times.
    plans: list[Any] = [  # lazy in, lazy out
        _auc_table(log.lazy(), options),
        _row_counts(log.lazy(), options),
        roc_curve(log.lazy(), **options),
        pr_curve(log.lazy(), **options),
        best_threshold(log.lazy(), **options).select(*groups, "threshold")
        if threshold is None
        else pl.LazyFrame({"threshold": [float(threshold)]}),
        *([] if challenger is None else challenger_plans(log, options, challenger)),
    ]
    auc, rows, curve, precision_recall, cuts, *contest = pl.collect_all(plans)
    cut: Any = cuts if threshold is None else threshold
    confusion = cast(pl.DataFrame, confusion_matrix(log, cut, **options))
    # Segments in their own order (months in time order) in legends, panels and tables.
    curve, precision_recall, confusion, auc = (
        in_order(f, groups) for f in (curve, precision_recall, confusion, auc)
    )
    summary = _summary(auc, rows, groups)
    # The weakest segments first: they are what a reader of many segments looks for.
    auc = auc.sort("auc", *groups, nulls_last=True)
    # Rows left out by nulls="drop" (a null score, label or weight), told in the heading.
    dropped = log.height - int(rows.get_column("table_rows").sum())
    before: list[str] = []
    shown = None
    full_confusion = confusion
    if groups and auc.height > SEGMENTS_DRAWN_MAX:
        overall = cast(pl.DataFrame, roc_auc(log, **{**options, "by": None})).item(0, "auc")
        keys, forest, before, weakest = many_segments(auc, overall, groups, top_k)
        curve, precision_recall, confusion = (
            frame.join(keys, on=groups, how="semi", nulls_equal=True)
            for frame in (curve, precision_recall, confusion)
        )
        if threshold is None:  # thresholds per segment (a fixed one holds for all)
            cuts = cuts.join(keys, on=groups, how="semi", nulls_equal=True)
        shown = {
            "summary": pl.concat([summary.head(TABLE_ROWS_MAX), summary.tail(1)]),
            "auc": auc.head(TABLE_ROWS_MAX),
        }

    say("rendering charts")
    n_curves = max(auc.height if shown is None else max(2 * top_k, 20), 1)
    max_points = max(MIN_POINTS_PER_CURVE, CHART_POINT_BUDGET // n_curves)
    layout: dict[str, Any] = {
        "facet": facet,
        "color": color,
        "columns": PANELS_PER_ROW if facet else None,
    }
    # A one-class segment has no best threshold, hence no point to mark.
    marks: dict[str, Any] = {"max_points": max_points, "points": cuts.drop_nulls("threshold")}
    roc = charts.roc_chart(curve, **layout, **marks)
    pr = charts.pr_chart(precision_recall, **layout, **marks)
    if color is not None:
        roc, pr = (_legend_in_order(c, auc.get_column(color)) for c in (roc, pr))
    if color is None:
        cells, panel = confusion.select(*groups, *CELLS), facet
    else:
        # One panel per (facet, color) pair, under a joined label.
        cells, panel = confusion.select(charts.data.joined(groups, "segment"), *CELLS), "segment"
    # A segment of one class has no Youden threshold, hence no counts to draw.
    cells = cells.drop_nulls("threshold")
    confusion_panels = charts.confusion_chart(
        cells, facet=panel, columns=CONFUSION_PANELS_PER_ROW if panel else None
    )
    built = {"roc": roc, "pr": pr, "confusion": confusion_panels}
    tables = {
        "summary": summary,
        "auc": auc,
        "confusion": confusion.select(*groups, *CONFUSION_COLUMNS),
    }
    if shown is not None:
        built["forest"] = forest
        tables["weakest"] = shown["weakest"] = weakest
        tables["confusion"] = full_confusion.select(*groups, *CONFUSION_COLUMNS)
        shown["confusion"] = tables["confusion"].head(TABLE_ROWS_MAX)
        before += [
            _csv_download(tables[name], name, f"the full {name} table")
            for name in ("summary", "auc", "confusion")
        ]
    sections: list[Sections] = []
    drawn = None if shown is None else keys
    # The scores' range, read once: the views of probabilities are shown within [0, 1].
    score_range = log.select(pl.col(score).min().alias("low"), pl.col(score).max()).row(0)
    if challenger is not None:
        sections.append(challenger_section(contest, options, challenger, groups, drawn, max_points))
    if period is not None:
        say(f"trend over {period}")
        sections.append(
            over_time(log, options, period=period, challenger=challenger, score_range=score_range)
        )
    say("calibration and stability")
    many = shown is not None
    sections += validation_sections(
        log, options, grade=grade, period=period, many=many, top_k=top_k, score_range=score_range
    )
    sections += inference_sections(
        log, options, threshold=threshold, group=group, drawn=drawn, score_range=score_range
    )
    extra: list[str] = []
    for section_charts, section_tables, blocks in sections:
        built.update(section_charts)
        tables.update(section_tables)
        extra += blocks
    # A wrapped facet with each panel's own x axis (else Vega-Lite draws the axes of the
    # last row's empty cells).
    built = {
        n: c.resolve_axis(x="independent") if isinstance(c, alt.FacetChart) else c
        for n, c in built.items()
    }
    page = _page(
        source=source,
        options=options,
        threshold=threshold,
        confusion=full_confusion,
        n_rows=log.height,
        tables=tables if shown is None else shown,
        specs={name: chart.to_dict() for name, chart in built.items()},
        max_points=max_points,
        dropped=dropped,
        extra=extra,
        before=before,
        n_segments=auc.height,
    )
    return Report(html=page, charts=built, tables=tables)


def _legend_in_order(chart: Any, values: pl.Series) -> Any:
    """The color legend in the values' own order (months in time order), not as the
    curves come."""
    import altair as alt

    from polars_roc.charts.data import shown_text

    order = values.unique().sort(nulls_last=True).to_frame().select(shown_text(pl.first()))
    texts = order.to_series().fill_null("null").to_list()  # the legend's own texts
    for layer in (chart.spec if isinstance(chart, alt.FacetChart) else chart).layer:
        if isinstance(layer.encoding, alt.FacetedEncoding) and isinstance(
            layer.encoding.color, alt.Color
        ):
            layer.encoding.color["sort"] = texts
    return chart


def _auc_table(log: pl.LazyFrame, options: dict[str, Any]) -> pl.LazyFrame:
    """``[*by, n_pos, n_neg, auc, gini]``, and for unweighted logs DeLong's interval and
    the test against chance (both count rows)."""
    extra: dict[str, Any] = {"ci": "delong", "test": True} if options["weight"] is None else {}
    table = cast(pl.LazyFrame, roc_auc(log, **options, **extra))
    by = options["by"] or []
    names = table.collect_schema().names()
    ci = [c for c in ("auc_se", "ci_lower", "ci_upper", "u_statistic", "p_value") if c in names]
    return table.select(*by, "n_pos", "n_neg", "auc", (2 * pl.col("auc") - 1).alias("gini"), *ci)


def _row_counts(log: pl.LazyFrame, options: dict[str, Any]) -> pl.LazyFrame:
    """``[*by, rows, table_rows]``: the rows each segment contributes (nulls left out, as
    counted; a count table's rows stand for ``count`` rows each)."""
    frequency = [options[k] for k in ("weight", "count") if options[k]]
    by = options["by"] or []
    rows = log.drop_nulls([options["score"], options["label"], *frequency])
    counted = [
        (pl.col(options["count"]).sum() if options["count"] else pl.len()).alias("rows"),
        pl.len().alias("table_rows"),
    ]
    return rows.group_by(by).agg(counted) if by else rows.select(counted)


def _summary(auc: pl.DataFrame, rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Input summary ``[*by, rows, n_pos, n_neg, prevalence]`` and an "all" row."""
    per_group = attach(auc.select(*by, "n_pos", "n_neg"), rows, by)
    per_group = per_group.select(*by, pl.col("rows").cast(pl.Int64), "n_pos", "n_neg")
    if by:
        # The "all" row reads "all" in every segment column: segments are shown as text
        # (dates as 2024-01-31), so that the row is not a blank null in a date column.
        per_group = per_group.with_columns(pl.col(c).cast(pl.String) for c in by)
        everything = (pl.lit("all", pl.String).alias(c) for c in by)
        total = per_group.select(*everything, pl.col("rows", "n_pos", "n_neg").sum())
        per_group = pl.concat([per_group, total], how="vertical_relaxed")
    return per_group.with_columns(
        ratio(pl.col("n_pos"), pl.col("n_pos") + pl.col("n_neg")).alias("prevalence")
    )


# --------------------------------------------------------------------------------------
# HTML


STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
p.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; font-size: 0.9rem; margin: 0.5rem 0; }
th, td { padding: 0.25rem 0.7rem; border-bottom: 1px solid #ddd; }
th { text-align: left; background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.chart { margin: 0.5rem 0 1rem; } .wide { overflow-x: auto; } #errors:empty { display: none; }
#errors { color: #b00; white-space: pre-wrap; }
td.nowrap { white-space: nowrap; } p.note { color: #555; font-size: 0.85rem; margin-top: 0; }
@page { size: A4 landscape; margin: 10mm; }
@media print {
  /* Nothing scrolls on paper: tables shrink to the page width instead of being cut. */
  body { max-width: none; margin: 0; padding: 0; }
  .wide { overflow: visible; }
  table { font-size: 7pt; width: 100%; }
  th, td { padding: 1px 3px; }
  th { overflow-wrap: anywhere; }
  h2 { break-after: avoid; } table, .chart { break-inside: avoid; }
  #errors:empty { display: none; }
}
"""

# Renders each chart from its JSON block and records, in the DOM, whatever goes wrong
# (errors, blocked requests): the page reports its own health to a reader or a test.
WATCH = """
(function () {
  const errors = document.getElementById("errors");
  const note = (text) => { errors.textContent += text + "\\n"; };
  window.reportProblem = note;
  window.addEventListener("error", (e) => note("error: " + e.message));
  document.addEventListener("securitypolicyviolation",
    (e) => note("blocked request: " + e.blockedURI));
  for (const level of ["error", "warn"]) {
    const original = console[level];
    console[level] = (...args) => {
      note(level + ": " + args.join(" "));
      original.apply(console, args);
    };
  }
})();
"""

RENDER = """
(function () {
  const note = window.reportProblem;
  const jobs = [];
  for (const el of document.querySelectorAll("[data-chart]")) {
    const spec = JSON.parse(document.getElementById(el.dataset.chart).textContent);
    jobs.push(vegaEmbed(el, spec, {actions: false, renderer: "svg"})
      .then(() => { el.dataset.rendered = "yes"; })
      .catch((err) => {
        el.dataset.rendered = "failed";
        note("chart " + el.dataset.chart + ": " + err);
      }));
  }
  Promise.all(jobs).then(() => { document.body.dataset.charts = "done"; });
})();
"""


# In a <script> element "</script" ends it and "<!--" opens a state that swallows the
# rest of the page; as \\u escapes (Django's json_script) the JSON reads the same.
_SCRIPT_DATA_ESCAPES = str.maketrans(
    {c: f"\\u{ord(c):04x}" for c in ("<", ">", "&", "\u2028", "\u2029")}
)


def _json_script(name: str, spec: dict[str, Any]) -> str:
    text = json.dumps(spec, separators=(",", ":"), allow_nan=False)
    text = text.translate(_SCRIPT_DATA_ESCAPES)
    return f'<script type="application/json" id="spec-{name}">{text}</script>'


def _page(
    *,
    source: str,
    options: dict[str, Any],
    threshold: float | None,
    confusion: pl.DataFrame,
    n_rows: int,
    tables: dict[str, pl.DataFrame],
    specs: dict[str, dict[str, Any]],
    max_points: int,
    dropped: int = 0,
    extra: Sequence[str] = (),
    before: Sequence[str] = (),
    n_segments: int = 0,
) -> str:
    by = options["by"] or []
    lower = options["direction"] == "lower"
    positive = (
        f"label {options['label']!r} == {options['pos_label']!r}"
        if options["pos_label"] is not None
        else f"label {options['label']!r} true / 1"
    )
    rows_read = f"{n_rows:,} rows"
    if dropped:
        rows_read = (
            f"{n_rows:,} rows read, {dropped:,} dropped for a null score, label or weight "
            f"(nulls='drop'), {n_rows - dropped:,} evaluated"
        )
    facts = [source] if source else []
    facts += [rows_read, f"score {options['score']!r}", f"positive: {positive}"]
    if options["weight"]:
        facts.append(f"weight {options['weight']!r}")
    if options["count"]:
        facts.append(f"count {options['count']!r} (each row stands for that many)")
    if lower:
        facts.append("a lower score is more positive")
    if by:
        facts.append(f"segments: {', '.join(by)}")
    meta = html.escape(" · ".join(facts))
    ci_note = (
        " auc_se, ci_lower, ci_upper: DeLong's standard error and 95% interval."
        if "ci_lower" in tables["auc"].columns
        else ""
    ) + (AUC_TEST_NOTE if "p_value" in tables["auc"].columns else "")
    if threshold is None:
        at = "each segment's Youden threshold" if by else "the Youden threshold"
        rule = (
            f"{at}: the score maximising tpr - fpr (polars_roc.best_threshold; "
            "pass --threshold or threshold= for a fixed cut-off)"
        )
    else:
        at = f"threshold {threshold:g}"
        rule = f"{at} (--threshold / threshold=)"
    silent = confusion.filter(pl.col("tp") + pl.col("fp") == 0).height
    hint = (
        f"<p class='note'>{silent:,} segment(s) predict no row positive at this threshold "
        "(tp = fp = 0): lower it, or leave it out for each segment's Youden threshold.</p>"
        if silent and threshold is not None
        else ""
    )
    weakest = tables.get("weakest")
    shown_rows = tables["auc"].height
    auc_cut = (
        f": the {shown_rows} weakest of {n_segments:,} segments (all in the CSV download above)"
        if n_segments > shown_rows
        else ""
    )
    sections = list(before)
    if weakest is not None:
        bound = " or by the lower bound of its 95% interval (the weakest a reader can be sure of)"
        told = bound if "rank_ci_lower" in weakest.columns else ""
        sections += [
            "<h3>Weakest segments</h3>",
            f"<p>The weakest segments by AUC{told}, with their ranks, weakest first.</p>",
            _table(weakest),
        ]
    sections += [
        "<h2>Input</h2>",
        "<p>Rows, positives and negatives per segment (positives and negatives are sums "
        "of weights for a weighted log); prevalence = n_pos / (n_pos + n_neg).</p>",
        _table(tables["summary"]),
        "<h2>Discrimination per segment</h2>",
        "<p>AUC: probability that a random positive scores above a random negative (ties "
        f"count one half). Gini = 2 AUC - 1.{ci_note}</p>",
        f"<p>Sorted by AUC, weakest first{auc_cut}.</p>",
        _table(tables["auc"]),
        "<h2>ROC curves</h2>",
        f"<p>Diamonds mark {html.escape(at)}. Curves are drawn with at most "
        f"{max_points} points each (the printed AUC is exact).</p>",
        chart_slot("roc"),
        "<h2>Precision-recall curves</h2>",
        "<p>Dashed lines: the prevalence, the precision of a random ranking. AP: average "
        "precision.</p>",
        chart_slot("pr"),
        f"<h2>Confusion at {html.escape(at)}</h2>",
        f"<p>Predicted positive when score {'&lt;' if lower else '&gt;'}= {html.escape(rule)}.</p>",
        hint,
        _table(tables["confusion"]),
        chart_slot("confusion"),
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>ROC report</title>",
            f"<style>{STYLE}</style>",
            "</head><body>",
            "<h1>ROC report</h1>",
            f'<p class="meta">{meta}</p>',
            '<pre id="errors"></pre>',
            f"<script>{WATCH}</script>",
            *sections,
            *extra,
            *(_json_script(name, spec) for name, spec in specs.items()),
            f"<script>{javascript_bundle()}</script>",
            f"<script>{RENDER}</script>",
            "</body></html>",
        ]
    )
