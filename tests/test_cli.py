"""The ``polars-roc`` command: output formats, file kinds, exit codes."""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from _reference import pairwise_auc
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.cli import CONFUSION_SUMMARY, Progress, build_parser, main
from polars_roc.core.compat import POLARS_2


@pytest.fixture
def log() -> pl.DataFrame:
    return pr.datasets.load_credit().head(600)


@pytest.fixture(params=["parquet", "csv", "ndjson"])
def log_file(request: pytest.FixtureRequest, tmp_path: Path, log: pl.DataFrame) -> Path:
    path = tmp_path / f"log.{request.param}"
    getattr(log, f"write_{request.param}")(path)
    return path


def test_auc_csv_output_matches_brute_force(
    log_file: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["auc", str(log_file), "--by", "segment", "--format", "csv"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    assert printed.columns == ["segment", "auc", "n_pos", "n_neg"]
    for segment, auc in printed.select("segment", "auc").iter_rows():
        rows = log.filter(pl.col("segment") == segment)
        expected = pairwise_auc(rows["score"].to_numpy(), rows["label"].to_numpy())
        assert auc == pytest.approx(expected, abs=1e-12)


def test_auc_json_with_pos_label_typed_from_the_column(
    tmp_path: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.parquet"
    log.with_columns(y=pl.col("label").cast(pl.Int32) * 7).write_parquet(path)
    assert main(["auc", str(path), "--label", "y", "--pos-label", "7", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    expected = pr.roc_auc(log)
    assert row["auc"] == pytest.approx(expected["auc"].item(), abs=1e-12)
    assert (row["n_pos"], row["n_neg"]) == (expected["n_pos"].item(), expected["n_neg"].item())


def test_auc_with_delong_ci(
    tmp_path: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    assert main(["auc", str(path), "--by", "segment", "--ci", "delong", "--format", "csv"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    expected = pr.roc_auc(log, by="segment", ci="delong")
    assert_frame_equal(printed, expected, check_dtypes=False, rel_tol=1e-12)


def test_confusion_thresholds_and_weights(
    tmp_path: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.csv"
    log.write_csv(path)
    argv = [
        "confusion",
        str(path),
        "--threshold",
        "0.1",
        "--threshold",
        "0.3",
        "--weight",
        "exposure",
        "--by",
        "segment",
        "--format",
        "csv",
        "--all-measures",
    ]
    assert main(argv) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    expected = pr.confusion_matrix(log, [0.1, 0.3], by="segment", weight="exposure")
    assert printed.columns == expected.columns
    assert_frame_equal(printed, expected, check_dtypes=False, rel_tol=1e-9)


def test_demo_prints_the_seed_001_point(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "AUC per segment" in out and "corporate" in out
    assert "0.68" in out  # seed 001's AUC


def test_report_demo_writes_a_page(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert main(["report", "--demo", "--out", str(out), "--quiet"]) == 0
    assert out.stat().st_size > 10_000
    assert "<svg" in out.read_text() or "vegaEmbed" in out.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["auc", "missing.csv"], r"file not found: 'missing.csv'"),
        (["auc", "log.txt"], r"cannot read 'log.txt': expected one of"),
        (["auc", "{log}", "--score", "scor"], r"score column 'scor' not found.*did you mean"),
        (
            ["auc", "{log}", "--label", "segment"],
            r"label column 'segment' has values \[.*Pass --pos-label to say",
        ),
        (
            ["auc", "{log}", "--label", "segment", "--pos-label", "west"],
            r"^polars-roc: error: --pos-label 'west' does not occur in label column 'segment'",
        ),
        (
            ["auc", "{log}", "--score", "missing_score"],
            r"score column 'missing_score' has 3 null value\(s\).*pass --nulls drop to leave",
        ),
        (
            ["auc", "{log}", "--label", "label", "--pos-label", "maybe"],
            r"--pos-label 'maybe' does not fit the label column's dtype Boolean",
        ),
        (["auc", "empty.csv"], r"'empty.csv' has no rows: there is nothing to evaluate"),
        (
            ["auc", "{log}", "--seed", "4"],
            r"--seed sets a confidence interval, but none is asked for; pass --ci delong or",
        ),
        (
            ["confusion", "{log}", "--threshold", "0.5", "--weight", "segment"],
            r"weight column 'segment' must be numeric",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(
    argv: list[str],
    message: str,
    tmp_path: Path,
    log: pl.DataFrame,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "log.txt").write_text("x")
    (tmp_path / "empty.csv").write_text("score,label\n")
    three_nulls = pl.when(pl.int_range(pl.len()) < 3).then(None).otherwise(pl.col("score"))
    log.with_columns(three_nulls.alias("missing_score")).write_parquet(tmp_path / "log.parquet")
    argv = [arg.replace("{log}", "log.parquet") for arg in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("polars-roc: error: ")
    assert re.search(message, err)


@pytest.mark.parametrize(
    ("argv", "first_work"),
    [
        (["report", "--demo", "--quiet"], "polars_roc.cli.report_command.build_report"),
        (["auc", "log.csv"], "polars_roc.cli.commands.read_log"),
        (["confusion", "log.csv", "--threshold", "0.5"], "polars_roc.cli.commands.read_log"),
    ],
)
def test_unwritable_output_exits_2_with_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    first_work: str,
) -> None:
    (tmp_path / "a file").write_text("not a folder")
    out = tmp_path / "a file" / "report.html"
    # Refused before any work: the log is never read, the report never built.
    monkeypatch.setattr(first_work, pytest.fail)
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    # The folder cannot be made: the path named is where it failed.
    assert err.startswith(f"polars-roc: error: cannot write or read {str(out.parent)!r}: ")


def test_warnings_are_one_line_of_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.csv"
    pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "p": [0.1, 0.5, 0.7, 0.2], "y": [1, 1, 0, 1]}
    ).write_csv(path)
    assert main(["auc", str(path), "--score", "p", "--label", "y", "--by", "g"]) == 0
    err = capsys.readouterr().err
    assert err == (
        "polars-roc: warning: 1 group(s) [g='a'] hold only one class; their AUC and the "
        "rates that need both classes are null\n"
    )


# ---------------------------------------------------------------- issue 16


@pytest.fixture
def na_csv(tmp_path: Path) -> Path:
    """A CSV as R writes it: a missing score is the text NA."""
    path = tmp_path / "from_r.csv"
    path.write_text("score,label,seg\n0.9,1,a\nNA,0,a\n0.3,0,b\n0.8,1,b\n0.2,0,a\n0.7,1,b\n")
    return path


@pytest.mark.parametrize("command", [["auc"], ["confusion", "--threshold", "0.5"]])
def test_na_text_in_a_csv_says_how_to_declare_null_values(
    command: list[str], na_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command[0], str(na_csv), *command[1:]]) == 2
    assert capsys.readouterr().err == (
        f"polars-roc: error: score column 'score' of {str(na_csv)!r} holds text that is not "
        "a number ('NA'); if it marks missing values, pass --null-values NA (and --nulls "
        "drop to leave those rows out)\n"
    )


def test_null_values_option_reads_na_as_missing(
    na_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["auc", str(na_csv), "--null-values", "NA"]) == 2  # now a null score
    assert "score column 'score' has 1 null value(s)" in capsys.readouterr().err
    argv = ["auc", str(na_csv), "--null-values", "NA", "--nulls", "drop", "--format", "csv"]
    assert main(argv) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    expected = pr.roc_auc(pl.read_csv(na_csv, null_values="NA"), nulls="drop")
    assert_frame_equal(printed, expected)


def test_null_values_is_for_csv_files_only(
    tmp_path: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    assert main(["auc", str(path), "--null-values", "NA"]) == 2
    assert capsys.readouterr().err == (
        f"polars-roc: error: --null-values applies to CSV files only, got {str(path)!r}\n"
    )


def test_a_text_column_without_numbers_keeps_the_library_message(
    tmp_path: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.csv"
    log.write_csv(path)
    assert main(["auc", str(path), "--weight", "segment"]) == 2
    err = capsys.readouterr().err
    assert "weight column 'segment' must be numeric" in err and "--null-values" not in err


def test_confusion_all_measures_table_is_transposed(
    tmp_path: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    argv = [
        "confusion",
        str(path),
        "--threshold",
        "0.2",
        "--threshold",
        "0.5",
        "--by",
        "segment",
        "--all-measures",
    ]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "--format csv gives one row per segment and threshold" in captured.err
    expected = pr.confusion_matrix(log, [0.2, 0.5], by="segment")
    segments = sorted(log["segment"].unique())
    header = next(line for line in captured.out.splitlines() if "measure" in line)
    assert header.split("┆")[1].strip() == f"{segments[0]}, threshold 0.2"
    rows = {
        line.split("┆")[0].strip("│ "): line for line in captured.out.splitlines() if "┆" in line
    }
    measures = [c for c in expected.columns if c not in ("segment", "threshold")]
    assert set(measures) <= set(rows)  # one row per measure: every measure is shown
    kappa = [cell.strip(" │") for cell in rows["kappa"].split("┆")[1:]]
    assert kappa == [str(round(v, 6)) for v in expected["kappa"].to_list()]
    # CSV keeps one row per segment and threshold.
    assert main([*argv, "--format", "csv"]) == 0
    assert_frame_equal(pl.read_csv(capsys.readouterr().out.encode()), expected, check_dtypes=False)


def test_bootstrap_progress_in_a_log_file_is_plain_lines(
    tmp_path: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    argv = ["auc", str(path), "--ci", "bootstrap", "--n-boot", "50", "--seed", "1"]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""  # not a terminal: silent unless asked (issue 13)
    assert main([*argv, "--progress"]) == 0
    err = capsys.readouterr().err  # captured: not a terminal
    assert "\r" not in err
    assert "bootstrap: 50/50 replicates" in err.splitlines()


# --------------------------------------------------------------------------------------
# Datasets as they are stored: hive partitions, globs, folders, several paths (issue 13)

MONTHS = ("2026-01", "2026-02")


@pytest.fixture(scope="module")
def credit() -> pl.DataFrame:
    """Two months of the credit log, the rows the hive dataset below holds."""
    log = pr.datasets.load_credit().filter(pl.col("month").is_in(MONTHS))
    return log.sort("loan_id")


def write_hive(credit: pl.DataFrame, root: Path, fmt: str) -> Path:
    """``root/month=M/part-{0,1}.fmt``: two months x two files, month only in the path."""
    for month in MONTHS:
        rows = credit.filter(pl.col("month") == month).drop("month")
        folder = root / f"month={month}"
        folder.mkdir(parents=True)
        half = rows.height // 2
        for part, piece in enumerate((rows.head(half), rows.slice(half))):
            getattr(piece, f"write_{fmt}")(folder / f"part-{part}.{fmt}")
    (root / "_SUCCESS").write_text("")  # as Spark leaves it: not data
    return root


@pytest.fixture(scope="module")
def hive(tmp_path_factory: pytest.TempPathFactory, credit: pl.DataFrame) -> Path:
    return write_hive(credit, tmp_path_factory.mktemp("parquet") / "logs", "parquet")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def run_csv(argv: list[str], capsys: pytest.CaptureFixture[str]) -> pl.DataFrame:
    return pl.read_csv(run([*argv, "--format", "csv"], capsys).encode())


def test_hive_folder_gives_the_partition_column(
    hive: Path, credit: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = run_csv(["auc", str(hive), "--by", "segment", "--by", "month"], capsys)
    expected = pr.roc_auc(credit, by=["segment", "month"])
    assert printed["month"].to_list() == expected["month"].to_list()
    assert_frame_equal(printed, expected, check_dtypes=False, rel_tol=1e-12)


@pytest.mark.parametrize(
    "paths",
    [
        ["{root}/**/*.parquet"],  # a quoted glob, hive keys from the path
        ["{root}/month=2026-01", "{root}/month=2026-02"],  # several folders
        [
            "{root}/month=2026-01/part-0.parquet",
            "{root}/month=2026-01/part-1.parquet",
            "{root}/month=2026-02/part-0.parquet",
            "{root}/month=2026-02/part-1.parquet",
        ],
    ],
    ids=["glob", "folders", "files"],
)
def test_globs_folders_and_several_paths_read_the_same_rows(
    paths: list[str], hive: Path, credit: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [path.format(root=hive) for path in paths]
    printed = run_csv(["auc", *paths, "--by", "month", "--by", "segment"], capsys)
    expected = pr.roc_auc(credit, by=["month", "segment"])
    assert_frame_equal(printed, expected, check_dtypes=False, rel_tol=1e-12)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_several_datasets_are_read_as_one_log(
    fmt: str, tmp_path: Path, credit: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two roots whose files differ in an integer width: read as one, as Polars relaxes.
    north = credit.filter(pl.col("segment") == "retail")
    south = credit.filter(pl.col("segment") != "retail")
    south = south.with_columns(pl.col("loan_id").cast(pl.Int32))
    write_hive(north, tmp_path / "north", fmt)
    write_hive(south, tmp_path / "south", fmt)
    argv = [
        "auc",
        str(tmp_path / "north"),
        str(tmp_path / "south"),
        "--by",
        "month",
        "--by",
        "segment",
        "--where",
        "loan_id % 2 = 0",
    ]
    expected = pr.roc_auc(credit.filter(pl.col("loan_id") % 2 == 0), by=["month", "segment"])
    assert_frame_equal(run_csv(argv, capsys), expected, check_dtypes=False, rel_tol=1e-12)


def test_spark_leftovers_are_skipped(
    hive: Path, credit: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "spark"
    shutil.copytree(hive, root)
    (root / "month=2026-01" / ".part-0.parquet.crc").write_text("checksum")
    (root / "_temporary" / "0").mkdir(parents=True)
    shutil.copy(root / "month=2026-01" / "part-0.parquet", root / "_temporary" / "0")
    printed = run_csv(["auc", str(root), "--by", "month"], capsys)
    assert_frame_equal(printed, pr.roc_auc(credit, by="month"), check_dtypes=False, rel_tol=1e-12)


@pytest.mark.parametrize("fmt", ["csv", "ndjson"])
def test_csv_and_ndjson_folders_get_the_hive_columns_too(
    fmt: str, tmp_path: Path, credit: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_hive(credit, tmp_path / "logs", fmt)
    argv = ["auc", str(root), "--by", "month", "--by", "segment", "--where", "month = '2026-02'"]
    printed = run_csv(argv, capsys)
    expected = pr.roc_auc(credit.filter(pl.col("month") == "2026-02"), by=["month", "segment"])
    assert_frame_equal(printed, expected, check_dtypes=False, rel_tol=1e-12)


@pytest.mark.parametrize("fmt", ["parquet", "csv", "ndjson"])
def test_partition_values_are_typed_alike_in_every_format(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = pl.DataFrame({"score": [0.9, 0.2, 0.6, 0.4], "label": [1, 0, 1, 0]})
    for year, day, rate in [(2025, "2025-12-31", "0.5"), (2026, "2026-01-15", "1.5")]:
        folder = tmp_path / "logs" / f"year={year}" / f"day={day}" / f"rate={rate}" / "tag=x1"
        folder.mkdir(parents=True)
        getattr(rows, f"write_{fmt}")(folder / f"part.{fmt}")
    out = run(
        [
            "curve",
            str(tmp_path / "logs"),
            "--by",
            "year",
            "--by",
            "day",
            "--by",
            "rate",
            "--by",
            "tag",
            "--where",
            "year > 2025 AND day = DATE '2026-01-15' AND rate > 1",
            "--out",
            str(tmp_path / "curve.parquet"),
        ],
        capsys,
    )
    assert out == ""
    curve = pl.read_parquet(tmp_path / "curve.parquet")
    assert dict(curve.schema) | {"threshold": pl.Float64} == {
        "year": pl.Int64,
        "day": pl.Date,
        "rate": pl.Float64,
        "tag": pl.String,
        "threshold": pl.Float64,
        "tp": pl.Int64,
        "fp": pl.Int64,
        "fn": pl.Int64,
        "tn": pl.Int64,
        "tpr": pl.Float64,
        "fpr": pl.Float64,
    }
    assert curve["year"].unique().to_list() == [2026]
    assert curve["tpr"].to_list() == pr.roc_curve(rows)["tpr"].to_list()


def run_parquet(argv: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> pl.DataFrame:
    assert run([*argv, "--out", str(out)], capsys) == ""  # the extension picks Parquet
    return pl.read_parquet(out)


@pytest.mark.parametrize(
    ("argv", "library"),
    [
        (
            ["auc", "--by", "segment", "--ci", "delong"],
            lambda log: pr.roc_auc(log, by="segment", ci="delong"),
        ),
        (
            [
                "auc",
                "--by",
                "month",
                "--ci",
                "bootstrap",
                "--n-boot",
                "200",
                "--seed",
                "7",
                "--conf-level",
                "0.9",
            ],
            lambda log: pr.roc_auc(
                log, by="month", ci="bootstrap", n_boot=200, seed=7, conf_level=0.9
            ),
        ),
        (
            ["auc", "--max-fpr", "0.2", "--weight", "exposure"],
            lambda log: pr.roc_auc(log, max_fpr=0.2, weight="exposure"),
        ),
        (
            [
                "confusion",
                "--threshold",
                "0.2",
                "--threshold",
                "0.4",
                "--all-measures",
                "--by",
                "month",
            ],
            lambda log: pr.confusion_matrix(log, [0.2, 0.4], by="month"),
        ),
        (["curve", "--by", "segment"], lambda log: pr.roc_curve(log, by="segment")),
        (
            ["curve", "--drop-intermediate", "--cost-fp", "1", "--cost-fn", "5"],
            lambda log: pr.roc_curve(log, drop_intermediate=True, cost_fp=1, cost_fn=5),
        ),
        (
            ["pr", "--by", "segment", "--score", "score_challenger"],
            lambda log: pr.pr_curve(log, by="segment", score="score_challenger"),
        ),
        (
            ["best-threshold", "--method", "youden", "--by", "segment", "--all-measures"],
            lambda log: pr.best_threshold(log, "youden", by="segment"),
        ),
        (
            ["best-threshold", "--by", "segment", "--midpoint", "--all-measures"],
            lambda log: pr.best_threshold(log, by="segment", midpoint=True),
        ),
        (
            [
                "best-threshold",
                "--method",
                "cost",
                "--cost-fp",
                "1",
                "--cost-fn",
                "8",
                "--prevalence",
                "0.1",
                "--ties",
                "all",
                "--all-measures",
            ],
            lambda log: pr.best_threshold(
                log, "cost", cost_fp=1, cost_fn=8, prevalence=0.1, ties="all"
            ),
        ),
        (
            ["threshold-at", "--fpr", "0.1", "--by", "segment", "--all-measures"],
            lambda log: pr.threshold_at(log, fpr=0.1, by="segment"),
        ),
        (
            ["threshold-at", "--tpr", "0.8", "--by", "month", "--all-measures"],
            lambda log: pr.threshold_at(log, tpr=0.8, by="month"),
        ),
        (
            ["compare", "--scores", "score", "score_challenger", "--by", "segment"],
            lambda log: pr.compare(log, ["score", "score_challenger"], by="segment"),
        ),
        (
            [
                "compare",
                "--scores",
                "score_challenger",
                "score",
                "--method",
                "bootstrap",
                "--n-boot",
                "100",
                "--seed",
                "3",
            ],
            lambda log: pr.compare(
                log, ["score_challenger", "score"], ci="bootstrap", n_boot=100, seed=3
            ),
        ),
        (
            ["gains", "--n-bins", "5", "--by", "month"],
            lambda log: pr.gains_table(log, 5, by="month"),
        ),
    ],
    ids=lambda value: " ".join(value[:3]) if isinstance(value, list) else "",
)
def test_every_command_gives_the_library_numbers(
    argv: list[str],
    library: Any,
    hive: Path,
    credit: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    printed = run_parquet([argv[0], str(hive), *argv[1:]], tmp_path / "out.parquet", capsys)
    assert_frame_equal(printed, library(credit), rel_tol=1e-12)


@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_text_formats_carry_the_same_table(
    fmt: str,
    hive: Path,
    credit: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "gains.txt"
    argv = ["gains", str(hive), "--by", "segment", "--format", fmt, "--out", str(out)]
    assert run(argv, capsys) == ""
    expected = pr.gains_table(credit, by="segment")
    text = out.read_text()
    if fmt == "csv":
        assert_frame_equal(pl.read_csv(out), expected, check_dtypes=False, rel_tol=1e-12)
    elif fmt == "json":
        rows = json.loads(text)
        assert_frame_equal(pl.DataFrame(rows), expected, check_dtypes=False, rel_tol=1e-12)
    else:
        assert text.startswith(f"shape: ({expected.height}, {expected.width})")
        assert all(column in text for column in expected.columns)


def test_summary_and_columns_narrow_the_output(
    hive: Path, credit: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    best = pr.best_threshold(credit, by="segment")
    printed = run_csv(["best-threshold", str(hive), "--by", "segment"], capsys)
    assert printed.columns == ["segment", *CONFUSION_SUMMARY, "criterion"]
    assert_frame_equal(printed, best.select(printed.columns), check_dtypes=False, rel_tol=1e-12)
    argv = ["threshold-at", str(hive), "--precision", "0.3", "--columns", "threshold, tpr,ppv"]
    printed = run_csv(argv, capsys)
    expected = pr.threshold_at(credit, precision=0.3).select("threshold", "tpr", "ppv")
    assert_frame_equal(printed, expected, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("path", "success_file"),
    [("{root}", False), ("{root}", True), ("{root}/**/*.parquet", True)],
    ids=["folder read by Polars", "folder with _SUCCESS read as files", "glob"],
)
def test_where_is_pruned_in_the_scan(
    path: str,
    success_file: bool,
    tmp_path: Path,
    credit: pl.DataFrame,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = write_hive(credit, tmp_path / "logs", "parquet")
    if not success_file:
        (root / "_SUCCESS").unlink()
    predicate = "month = '2026-02' AND exposure > 20"
    argv = [
        "auc",
        path.format(root=root),
        "--by",
        "segment",
        "--where",
        predicate,
        "--format",
        "csv",
    ]
    expected = pr.roc_auc(credit.filter(pl.sql_expr(predicate)), by="segment")
    assert_frame_equal(
        pl.read_csv(run(argv, capsys).encode()), expected, check_dtypes=False, rel_tol=1e-12
    )
    if not POLARS_2:
        return  # Polars 1.x reads every partition under the value checks' cache()
    # A broken file in the other month is never opened: its partition is pruned.
    (root / "month=2026-01" / "part-9.parquet").write_bytes(b"not parquet at all")
    assert_frame_equal(
        pl.read_csv(run(argv, capsys).encode()), expected, check_dtypes=False, rel_tol=1e-12
    )
    # Without --where it is read, and fails.
    assert main(["auc", path.format(root=root)]) == 2
    assert re.fullmatch(r"polars-roc: error: .*parquet.*\n", capsys.readouterr().err)


def test_sql_query_over_the_log(
    hive: Path, credit: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "SELECT segment, month, score, label FROM log WHERE exposure > 10 AND month = '2026-01'"
    printed = run_csv(["auc", str(hive), "--sql", query, "--by", "segment"], capsys)
    rows = credit.filter(pl.col("exposure") > 10, pl.col("month") == "2026-01")
    assert_frame_equal(printed, pr.roc_auc(rows, by="segment"), check_dtypes=False, rel_tol=1e-12)
    # --where narrows the table the query sees; a query may derive the columns.
    query = "SELECT segment, score_challenger AS p, NOT label AS good FROM log"
    printed = run_csv(
        [
            "auc",
            str(hive),
            "--where",
            "month = '2026-02'",
            "--sql",
            query,
            "--score",
            "p",
            "--label",
            "good",
            "--pos-label",
            "false",
        ],
        capsys,
    )
    rows = credit.filter(pl.col("month") == "2026-02")
    expected = pr.roc_auc(rows, score="score_challenger")
    assert_frame_equal(printed, expected, check_dtypes=False, rel_tol=1e-12)


def test_demo_out_writes_a_partitioned_dataset_the_commands_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "demo"
    assert "hive-partitioned by month" in run(["demo", "--out", str(out)], capsys)
    assert len(list(out.glob("month=*/*.parquet"))) == 6
    printed = run_csv(["auc", str(out), "--by", "month"], capsys)
    assert_frame_equal(
        printed,
        pr.roc_auc(pr.datasets.load_credit(), by="month"),
        check_dtypes=False,
        rel_tol=1e-12,
    )


def test_report_reads_folders_with_where(
    hive: Path, credit: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    argv = [
        "report",
        str(hive),
        "--where",
        "month = '2026-02'",
        "--by",
        "segment",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0, capsys.readouterr().err
    page = out.read_text()
    n_rows = credit.filter(pl.col("month") == "2026-02").height
    assert f"{hive} · {n_rows:,} rows" in page


# --------------------------------------------------------------------------------------
# Progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_silent_when_stderr_is_not_a_terminal(
    hive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["auc", str(hive), "--ci", "bootstrap", "--n-boot", "50"]) == 0
    assert capsys.readouterr().err == ""


def test_forced_progress_off_a_terminal_is_plain_lines(
    hive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["auc", str(hive), "--ci", "bootstrap", "--n-boot", "50", "--progress"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    # The stages, and the bootstrap's own counter as plain lines (issue 16).
    lines = err.splitlines()
    assert lines[0] == "polars-roc: reading 4 Parquet file(s)"
    assert "bootstrap: 50/50 replicates" in lines


def test_progress_on_a_terminal_is_one_line_cleared_at_the_end() -> None:
    terminal = FakeTerminal()
    progress = Progress(stream=terminal)
    assert progress.enabled and progress.library
    with progress.stage("counting"):
        time.sleep(0.6)  # long enough for the elapsed time to show
    shown = terminal.getvalue()
    assert shown.startswith("\r\033[Kcounting ...") and "\n" not in shown
    assert re.search(r"counting \.\.\. 0\.\ds", shown)
    assert shown.endswith("\r\033[K")
    assert not Progress(False, stream=terminal).library


# --------------------------------------------------------------------------------------
# Errors of the inputs, filters and new commands: exit 2, one line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["auc", "logs/**/*.csv"], r"'logs/\*\*/\*\.csv' matches no file$"),
        (
            ["auc", "empty_folder"],
            r"folder 'empty_folder' holds no \.parquet, \.csv, \.ndjson or \.duckdb",
        ),
        (
            ["auc", "logs", "extra.csv"],
            r"the input mixes formats \(CSV, Parquet\); give files of one format",
        ),
        (["auc", "mixed/*"], r"'mixed/notes.txt' \(matched by 'mixed/\*'\) is not \.parquet"),
        (
            ["auc", "logs", "--where", "month = '1999-01'"],
            r"'logs' has no rows after --where/--sql: there is nothing to evaluate",
        ),
        # Polars' own parse error (Polars 1.x words it "sql parser error").
        (["auc", "logs", "--where", "month >"], r"--where 'month >': (unable to parse|sql parser)"),
        (
            ["auc", "logs", "--where", "mnth = '2026-01'"],
            r"--where \"mnth = '2026-01'\": unable to find column \"mnth\"",
        ),
        (
            ["auc", "logs", "--where", "exposure + 1"],
            r"--where 'exposure \+ 1': filter predicate must be of type `Boolean`",
        ),
        (
            ["auc", "logs", "--sql", "SELEC score FROM log"],
            r"--sql 'SELEC score FROM log': sql parser error: Expected: an SQL statement",
        ),
        (
            ["auc", "logs", "--sql", "SELECT * FROM logs"],
            r"--sql 'SELECT \* FROM logs': relation 'logs' was not found",
        ),
        (
            ["auc", "logs", "--sql", "SELECT score FROM log"],
            r"label column 'label' not found in the frame; available columns: \['score'\]",
        ),
        (
            ["curve", "logs", "--format", "parquet"],
            r"--format parquet writes a binary file: pass --out FILE.parquet",
        ),
        (
            ["threshold-at", "logs"],
            r"give exactly one target among --fpr, --tpr and --precision, got 'none'",
        ),
        (["threshold-at", "logs", "--tpr", "1.5"], r"--tpr must be a number between 0 and 1"),
        (["gains", "logs", "--n-bins", "0"], r"--n-bins must be a positive integer"),
        (
            ["best-threshold", "logs", "--cost-fp", "-1", "--method", "cost"],
            r"--cost-fp must be a finite number > 0 \(the cost of one false positive\), got -1.0",
        ),
        (
            ["compare", "logs", "--scores", "score"],
            r"argument --scores: expected 2 arguments \(see: polars-roc compare --help\)",
        ),
        (["compare", "logs", "--scores", "score", "nope"], r"score column 'nope' not found"),
        (
            ["compare", "logs", "--scores", "score", "score_challenger", "--score", "x"],
            r"unrecognized arguments: --score x",
        ),
        (["auc"], r"the following arguments are required: PATH"),
        (
            ["auc", "logs", "--columns", "auc,gini"],
            r"--columns names no column \['gini'\]; the table's columns: auc, n_pos, n_neg",
        ),
        # Polars' duplicate-projection message, with its .alias() advice, came through.
        (["auc", "logs", "--columns", "auc,auc"], r"--columns names \['auc'\] more than once"),
        (["report", "logs", "--demo", "--quiet"], r"give either a FILE or --demo"),
    ],
)
def test_input_and_command_errors_exit_2_with_one_line(
    argv: list[str],
    message: str,
    tmp_path: Path,
    credit: pl.DataFrame,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    write_hive(credit, tmp_path / "logs", "parquet")
    (tmp_path / "empty_folder").mkdir()
    (tmp_path / "empty_folder" / "notes.txt").write_text("no data")
    (tmp_path / "mixed").mkdir()
    credit.head(5).write_csv(tmp_path / "mixed" / "a.csv")
    (tmp_path / "mixed" / "notes.txt").write_text("no data")
    credit.head(5).write_csv(tmp_path / "extra.csv")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("polars-roc: error: ")
    assert re.search(message, err), err


def test_every_option_of_every_command_has_a_help_text(
    capsys: pytest.CaptureFixture[str],
) -> None:
    commands = next(
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    assert {
        "auc",
        "confusion",
        "curve",
        "pr",
        "best-threshold",
        "threshold-at",
        "compare",
        "gains",
        "demo",
        "report",
    } <= set(commands.choices)
    for name, parser in commands.choices.items():
        if name == "report":  # its options belong to polars_roc.report.html
            continue
        for action in parser._actions:
            assert action.help and len(action.help.split()) >= 3, (name, action.dest)
    assert main(["compare", "--help"]) == 0
    assert "the two score columns to compare" in capsys.readouterr().out


def test_a_stage_with_its_own_counter_gets_a_line_without_the_ticker() -> None:
    terminal = FakeTerminal()
    with Progress(stream=terminal).stage("counting and resampling", ticking=False):
        time.sleep(0.4)
        terminal.write("\rbootstrap: 10/10 replicates\n")  # as the library writes it
    assert terminal.getvalue() == (
        "\r\033[Kcounting and resampling\n\rbootstrap: 10/10 replicates\n"
    )
