"""``polars-roc confusion --thresholds FILE``: a threshold per segment read from a CSV or
Parquet table, through the real entry point (issue 27, item 2)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.cli import main
from polars_roc.cli.commands import CONFUSION_SUMMARY


@pytest.fixture(scope="module")
def log_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("log") / "log.parquet"
    credit = pr.datasets.load_credit()
    credit.with_columns(
        month=pl.date(2026, 1, 1) + pl.duration(days=31 * (pl.int_range(pl.len()) % 2))
    ).write_parquet(path)
    return path


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_best_thresholds_file_round_trip(
    log_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str, suffix: str
) -> None:
    # best-threshold writes the file confusion --thresholds reads: the shell workflow.
    thresholds = tmp_path / f"t{suffix}"
    assert main(["best-threshold", str(log_path), "--by", "segment", "--out", str(thresholds)]) == 0
    argv = ["confusion", str(log_path), "--by", "segment", "--thresholds", str(thresholds)]
    assert main([*argv, "--engine", engine, "--format", "csv"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    log = pl.read_parquet(log_path)
    expected = log.roc.confusion(log.roc.best_threshold(by="segment"), by="segment")
    assert_frame_equal(printed, expected.select("segment", *CONFUSION_SUMMARY), check_dtypes=False)


def test_csv_keys_are_converted_to_the_log_dtypes(
    log_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Written by hand: segment text and months as dates in text; extra columns ignored.
    thresholds = tmp_path / "t.csv"
    thresholds.write_text(
        "segment,month,threshold,note\n"
        "retail,2026-01-01,0.1,a\nretail,2026-02-01,0.12,b\n"
        "sme,2026-01-01,0.15,\nsme,2026-02-01,0.2,\n"
        "corporate,2026-01-01,0.08,\ncorporate,2026-02-01,0.09,\n"
    )
    argv = ["confusion", str(log_path), "--by", "segment", "--by", "month"]
    assert main([*argv, "--thresholds", str(thresholds), "--format", "csv"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode(), try_parse_dates=True)
    log = pl.read_parquet(log_path)
    per_segment = {
        ("retail", dt.date(2026, 1, 1)): 0.1,
        ("retail", dt.date(2026, 2, 1)): 0.12,
        ("sme", dt.date(2026, 1, 1)): 0.15,
        ("sme", dt.date(2026, 2, 1)): 0.2,
        ("corporate", dt.date(2026, 1, 1)): 0.08,
        ("corporate", dt.date(2026, 2, 1)): 0.09,
    }
    expected = log.roc.confusion(per_segment, by=["segment", "month"])
    columns = ["segment", "month", *CONFUSION_SUMMARY]
    assert_frame_equal(printed, expected.select(columns), check_dtypes=False)


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        (
            "segment,threshold\nretail,0.1\nsme,0.2\n",
            [],
            "--thresholds {file} has no threshold for the log's segment(s) "
            "['segment'] = ['corporate']",
        ),
        (
            "segment,threshold\nretail,0.1\nsme,high\n",
            [],
            "--thresholds {file}: column 'threshold' has non-numeric value(s) ['high']",
        ),
        (
            "segment,cut\nretail,0.1\n",
            [],
            "--thresholds {file} as a frame needs a column 'threshold'",
        ),
        ("segment,threshold\nretail,0.1\n", ["--threshold", "0.5"], "not allowed with argument"),
    ],
)
def test_bad_thresholds_file_is_one_line(
    log_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str,
    extra: list[str],
    message: str,
) -> None:
    thresholds = tmp_path / "t.csv"
    thresholds.write_text(content)
    argv = ["confusion", str(log_path), "--by", "segment", "--thresholds", str(thresholds)]
    assert main([*argv, *extra]) == 2
    assert message.format(file=thresholds) in capsys.readouterr().err


def test_thresholds_file_of_another_format_is_refused(
    log_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    thresholds = tmp_path / "t.json"
    thresholds.write_text("{}")
    argv = ["confusion", str(log_path), "--by", "segment", "--thresholds", str(thresholds)]
    assert main(argv) == 2
    assert "expected a .csv or .parquet file, got '.json'" in capsys.readouterr().err


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_thresholds_file_keyed_by_a_column_left_out_of_by_is_refused(
    log_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    # Without --by segment each threshold would have applied to the whole log.
    thresholds = tmp_path / "t.csv"
    thresholds.write_text("segment,threshold\nretail,0.1\nsme,0.15\ncorporate,0.08\n")
    argv = ["confusion", str(log_path), "--thresholds", str(thresholds), "--engine", engine]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"polars-roc: error: --thresholds {thresholds}'s column(s) ['segment'] are columns of "
        "the log but not --by columns: its thresholds would apply whatever the rows' values "
        "there. Add them to --by (--by segment) to apply each threshold to its own rows, or "
        "drop them from the thresholds\n"
    )
