"""The reliability diagram and the PSI chart (issue 25, item 7), through ``to_dict()``."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

import polars_roc as pr

LOG = pr.datasets.load_credit()


def records(spec: dict) -> list[dict]:
    return spec["datasets"][spec["data"]["name"]]


def test_calibration_chart_colors_segments_and_draws_intervals() -> None:
    table = LOG.roc.calibration(n_bins=5, by="segment", ci="jeffreys")
    spec = pr.calibration_chart(table).to_dict()
    diagonal, interval, line, point = spec["layer"]
    assert diagonal["mark"]["strokeDash"] == [4, 4]
    ends = {k: diagonal["encoding"][k]["datum"] for k in ("x", "y", "x2", "y2")}
    assert ends == {"x": 0, "y": 0, "x2": 1, "y2": 1}
    assert interval["encoding"]["y"]["field"] == "ci_lower"
    assert interval["encoding"]["y2"]["field"] == "ci_upper"
    assert line["encoding"]["color"]["legend"]["title"] == "segment"
    assert point["encoding"]["x"]["scale"]["domain"] == [0, 1]
    assert point["encoding"]["size"]["field"] == "n"
    rows = records(spec)
    assert len(rows) == table.height
    assert [r["_group"] for r in rows] == table["segment"].to_list()
    assert [r["observed_rate"] for r in rows] == table["observed_rate"].round(6).to_list()
    assert [r["ci_upper"] for r in rows] == table["ci_upper"].round(6).to_list()


def test_calibration_chart_without_ci_and_faceted() -> None:
    lazy = LOG.lazy().roc.calibration(by="segment", strategy="quantile")
    spec = pr.calibration_chart(lazy, facet="segment", columns=2).to_dict()
    assert spec["facet"]["field"] == "_panel" and spec["columns"] == 2
    assert [layer["mark"]["type"] for layer in spec["spec"]["layer"]] == ["rule", "line", "point"]
    assert "color" not in spec["spec"]["layer"][1]["encoding"]
    assert {r["_panel"] for r in records(spec)} == {"corporate", "retail", "sme"}


def test_psi_chart_rules_and_segments() -> None:
    table = LOG.roc.psi("month", by="segment")
    spec = pr.psi_chart(table).to_dict()
    low, high, line, _ = spec["layer"]
    assert (low["encoding"]["y"]["datum"], high["encoding"]["y"]["datum"]) == (0.1, 0.25)
    assert line["encoding"]["x"]["type"] == "ordinal"
    assert line["encoding"]["x"]["axis"]["title"] == "month"
    assert line["encoding"]["color"]["legend"]["title"] == "segment"
    rows = records(spec)
    assert "column" not in rows[0]  # one column compared: not a group
    assert [(r["_group"], r["_period"], r["psi"]) for r in rows] == list(
        zip(table["segment"], table["month"], table["psi"].round(6), strict=True)
    )
    assert {"level", "n", "n_baseline"} <= set(rows[0])


def test_psi_chart_facets_the_columns_compared_and_dates_are_temporal() -> None:
    dated = LOG.with_columns(day=pl.col("month").str.to_date("%Y-%m"))
    table = dated.roc.psi("day", columns="exposure", n_bins=5)
    spec = pr.psi_chart(table, facet="column").to_dict()
    line = spec["spec"]["layer"][2]
    assert line["encoding"]["x"]["type"] == "temporal"
    assert {r["_panel"] for r in records(spec)} == {"score", "exposure"}
    assert records(spec)[0]["_period"] == dt.date(2026, 1, 1).isoformat()


def test_charts_refuse_other_frames() -> None:
    with pytest.raises(ValueError, match="without detail=True"):
        pr.psi_chart(LOG.roc.psi("month", detail=True))
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['mean_score'"):
        pr.calibration_chart(LOG.roc.auc(by="segment"))
    with pytest.raises(ValueError, match="not a group column"):
        pr.psi_chart(LOG.roc.psi("month"), period="segment")


def test_a_null_segment_reads_null_in_the_calibration_trend_and_psi_charts() -> None:
    # A null in a legend's or facet's sort list is no valid Vega-Lite: to_dict() failed,
    # and so did the report of a log with a null segment (a traceback from the command).
    log = LOG.with_columns(
        pl.when(pl.col("segment") != "sme").then(pl.col("segment")).alias("segment")
    )
    charts = [
        pr.calibration_chart(log.roc.calibration(by="segment"), facet="segment", columns=2),
        pr.trend_chart(log.roc.trend(period="month", by="segment"), period="month"),
        pr.psi_chart(log.roc.psi("month", by="segment").drop("column"), period="month"),
    ]
    for chart, field in zip(charts, ["_panel", "_group", "_group"], strict=True):
        assert {r[field] for r in records(chart.to_dict())} == {"corporate", "retail", "null"}
