"""The report's inference content: the AUC's test against chance in the AUC table,
average precision with intervals, the decision-curve panel and, with ``group=`` /
``--group``, the disparity tables; each equal to the library's own call."""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.cli import add_report_command
from polars_roc.report.html import build_report
from tests.conftest import make_log


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return make_log(seed=5, n=300)


def test_report_tables_equal_the_library(log: pl.DataFrame) -> None:
    report = build_report(log, by="segment", threshold=0.5, group="month")
    auc = pr.roc_auc(log, by="segment", test=True)
    assert_frame_equal(
        report.tables["auc"].sort("segment").select("segment", "u_statistic", "p_value"),
        auc.select("segment", "u_statistic", "p_value"),
    )
    assert_frame_equal(
        report.tables["average_precision"],
        pr.pr_average_precision(log, by="segment", ci="logit"),
    )
    assert "net_benefit" in str(report.charts["decision"].to_dict())
    expected = pr.disparity(log, 0.5, group="month", by="segment")
    assert_frame_equal(report.tables["disparity"], expected)
    assert_frame_equal(
        report.tables["disparity_summary"],
        pr.disparity_summary(log, 0.5, group="month", by="segment"),
    )
    page = report.html
    assert "Mann-Whitney test of AUC = 0.5" in page
    assert "<h2>Average precision with intervals</h2>" in page
    assert 'data-chart="spec-decision"' in page and 'id="spec-decision"' in page
    assert "Disparities between groups of &#x27;month&#x27;" in page
    assert "facet" in report.charts["decision"].to_dict()  # one panel per segment


def test_without_group_no_disparity_and_youden_cut(log: pl.DataFrame) -> None:
    report = build_report(log, by="segment")
    assert "disparity" not in report.tables
    assert "Disparities" not in report.html
    grouped = build_report(log, group="segment")
    cut = pr.best_threshold(log)["threshold"][0]
    assert f"the whole log&#x27;s Youden threshold ({cut:g})" in grouped.html
    assert_frame_equal(grouped.tables["disparity"], pr.disparity(log, cut, group="segment"))


def test_score_outside_unit_interval_and_weights(log: pl.DataFrame) -> None:
    """No decision curve for a score that is not a probability; a weighted log has no
    test against chance (it counts rows), the rest of the page is built."""
    shifted = log.with_columns(pl.col("score") * 10)
    report = build_report(shifted, by="segment")
    assert "decision" not in report.charts
    assert "Not drawn: the net benefit reads the score as a predicted probability" in report.html
    weighted = build_report(log, by="segment", weight="weight")
    assert "p_value" not in weighted.tables["auc"].columns
    assert "average_precision" in weighted.tables
    with pytest.raises(ValueError, match=r"column 'segment' is given as both group and by"):
        build_report(log, by="segment", group="segment")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="sex"):
        build_report(log, group="sex")


def test_cli_group(log: pl.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    out = tmp_path / "r.html"
    parser = argparse.ArgumentParser(prog="polars-roc")
    add_report_command(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(
        ["report", str(path), "--by", "segment", "--group", "month", "--out", str(out), "--quiet"]
    )
    assert args.func(args) == 0
    page = out.read_text(encoding="utf-8")
    assert "Disparities between groups of &#x27;month&#x27;" in page
    assert "demographic_parity_difference" in page
