"""Charts of hostile text (issue 24, item 8): segment values and column names that Vega
would read as code, line ends or nested fields are drawn like any other text.

Vega-Lite writes sort orders and tooltip titles into Vega expressions; each chart is
rendered by vl-convert (the Vega that the offline report embeds), which parses them.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_roc as pr
from polars_roc.charts.data import tooltip_title

vl_convert = pytest.importorskip("vl_convert")

HOSTILE = (
    "<!--<script>",
    "</script><script>document.title='x'</script>",
    "a\u2028b",
    "c\u2029d",
    "q'\"\\",
    "a.b",
    "a[0]",
    "a\\.b",
    "${x}",
    "&amp;",
    "datum.x",
    "é 漢 🙂",
    "a\nb",
    "a\r\tb",
    "]]>",
    "",
    "null",
)
# Column names: a nested-field path, each line terminator, quotes and a backslash.
HOSTILE_COLUMNS = ("seg.x[0]", "se\u2028g", "p\u2029", "q'\"\\", "a\nb")
SECOND = "m\\o\"d'el"


def hostile_log(column: str, rows: int = 24, values: tuple[str, ...] = HOSTILE) -> pl.DataFrame:
    """Each of ``values`` (every hostile value) as a segment of ``column``, two hostile
    values of ``SECOND``, two periods and four folds, in one frame."""
    position = np.tile(np.arange(rows), len(values))
    return pl.DataFrame(
        {
            column: np.repeat(np.array(values, dtype=object), rows).tolist(),
            SECOND: np.where(position % 2 == 0, HOSTILE[2], HOSTILE[4]).tolist(),
            "month": np.where(position < rows // 2, "2026-01", "2026\u2028-02").tolist(),
            "fold": position % 4,
            "score": (position * 7 % rows) / rows,
            "label": position % 3 == 0,
        }
    )


def chart_calls(column: str, values: tuple[str, ...]) -> dict[str, Callable[[pl.DataFrame], Any]]:
    """Every chart function, with the hostile column as color, facet or period."""
    both = [column, SECOND]
    return {
        "roc_facet": lambda d: pr.roc_chart(pr.roc_curve(d, by=column), facet=column),
        "roc_color": lambda d: pr.roc_chart(
            pr.roc_curve(d, by=column), color=column, points=0.5, hull=True
        ),
        "roc_both": lambda d: pr.roc_chart(
            pr.roc_curve(d, by=both), facet=column, color=SECOND, optimal="youden"
        ),
        "roc_both_swapped": lambda d: pr.roc_chart(
            pr.roc_curve(d, by=both), facet=SECOND, color=column, points=[0.5]
        ),
        "pr": lambda d: pr.pr_chart(pr.roc_curve(d, by=both), facet=column, color=SECOND),
        "pr_color": lambda d: pr.pr_chart(pr.roc_curve(d, by=column), color=column, points=0.5),
        "confusion": lambda d: pr.confusion_chart(
            pr.confusion_matrix(d, 0.5, by=column), facet=column
        ),
        "trend": lambda d: pr.trend_chart(pr.trend(d, period="month", by=column, ci="delong")),
        "trend_facet": lambda d: pr.trend_chart(
            pr.trend(d, period="month", by=both), facet=column, color=SECOND
        ),
        "trend_period": lambda d: pr.trend_chart(
            pr.trend(d.rename({"month": f"{column}!", column: "s"}), period=f"{column}!")
        ),
        "gains": lambda d: pr.gains_chart(pr.gains_table(d, by=column, n_bins=3), color=column),
        "lift_bars": lambda d: pr.gains_chart(
            pr.gains_table(d, by=both, n_bins=3), kind="lift", facet=SECOND, color=column
        ),
        "lift_curve": lambda d: pr.gains_chart(
            pr.lift_curve(d, by=column), kind="lift", color=column
        ),
        "average": lambda d: pr.average_chart(
            pr.average_curve(d, by=both, grid=5), facet=column, color=SECOND
        ),
        "det": lambda d: pr.det_chart(
            pr.det_curve(d.filter(pl.col(column).is_in(values[:2])), by=column), color=column
        ),
        "plot": lambda d: d.roc.plot(by=column),
        "plot_pr": lambda d: d.roc.plot(by=both, kind="pr", facet=column, color=SECOND),
    }


def render(chart: Any) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the charts' own notes (trivial optima)
        spec = chart.to_json()
    return vl_convert.vegalite_to_svg(spec)


@pytest.mark.parametrize("column", HOSTILE_COLUMNS)
def test_every_chart_renders_hostile_segments_and_column_names(column: str) -> None:
    # Each chart meets every hostile column name and every hostile value: the values are
    # dealt out over the column names (a chart draws at its cost per panel and curve).
    values = HOSTILE[HOSTILE_COLUMNS.index(column) :: len(HOSTILE_COLUMNS)]
    log = hostile_log(column, values=values)
    failed = {}
    for name, call in chart_calls(column, values).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            chart = call(log)
        try:
            svg = render(chart)
        except Exception as error:  # every failing chart is reported, not the first only
            failed[name] = str(error).splitlines()[:2]
            continue
        assert "<svg" in svg, name
    assert failed == {}


def test_shown_segments_keep_their_text_with_line_separators_spelled_out() -> None:
    log = hostile_log("segment")
    spec = pr.roc_chart(pr.roc_curve(log, by="segment"), facet="segment").to_dict()
    headers = [label.rsplit(" (AUC", 1)[0] for label in spec["facet"]["sort"]]
    spelled = [h.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") for h in HOSTILE]
    assert sorted(headers) == sorted(spelled)
    svg = render(pr.trend_chart(pr.trend(log, period="month", by="segment")))
    assert "a\\u2028b" in svg and "2026\\u2028-02" in svg


@pytest.mark.parametrize(
    "column",
    # The group column's name: not one the log's score and label take.
    [c for c in dict.fromkeys([*HOSTILE_COLUMNS, *HOSTILE]) if c not in ("score", "label", "")],
)
def test_tooltip_titles_read_as_the_column_name(column: str) -> None:
    # The title as Vega reads it: the string literal Vega-Lite compiles into the tooltip
    # expression, parsed (JSON reads these escapes as JavaScript does).
    log = pl.DataFrame({column: ["a", "a", "b", "b"], "score": [0.9, 0.2, 0.7, 0.4]})
    log = log.with_columns(label=pl.Series([1, 0, 0, 1]))
    chart = pr.roc_chart(pr.roc_curve(log, by=column), color=column)
    vega = json.dumps(vl_convert.vegalite_to_vega(chart.to_json()))
    tooltips = re.findall(r'"tooltip": \{"signal": ("(?:[^"\\]|\\.)*")\}', vega)
    keys = {re.match(r'\{("(?:[^"\\]|\\.)*"):', json.loads(t)).group(1) for t in tooltips}
    assert {json.loads(k, strict=False) for k in keys} == {column}


def test_a_column_name_is_a_title_never_a_field() -> None:
    assert tooltip_title("a\\b\n\u2028") == "a\\\\b\\n\\u2028"
    log = hostile_log("seg.x[0]").filter(pl.col("seg.x[0]").is_in(HOSTILE[:6]))
    chart = pr.det_chart(pr.det_curve(log, by="seg.x[0]"), color="seg.x[0]")
    color = chart.to_dict()["encoding"]["color"]
    assert color["field"] == "_curve" and color["legend"]["title"] == "seg.x[0]"
    svg = render(chart)
    assert "&lt;!--&lt;script&gt;" in svg and "a.b" in svg  # the legend's labels
