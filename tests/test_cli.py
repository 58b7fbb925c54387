"""The ``polars-roc`` command: output formats, file kinds, exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from _reference import pairwise_auc
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.cli import main


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
    argv = ["confusion", str(path), "--threshold", "0.1", "--threshold", "0.3",
            "--weight", "exposure", "--by", "segment", "--format", "csv",
            "--all-measures"]  # fmt: skip
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
        (["auc", "{log}", "--label", "segment"],
         r"label column 'segment' has dtype String.*Pass --pos-label to say"),
        (["auc", "{log}", "--label", "segment", "--pos-label", "west"],
         r"^polars-roc: error: --pos-label 'west' does not occur in label column 'segment'"),
        (["auc", "{log}", "--score", "missing_score"],
         r"score column 'missing_score' has 3 null value\(s\).*pass --nulls drop to leave"),
        (["auc", "{log}", "--label", "label", "--pos-label", "maybe"],
         r"--pos-label 'maybe' does not fit the label column's dtype Boolean"),
        (["auc", "empty.csv"], r"'empty.csv' has no rows: there is nothing to evaluate"),
        (["auc", "{log}", "--seed", "4"],
         r"--seed sets a confidence interval, but none is asked for; pass --ci delong or"),
        (["confusion", "{log}", "--threshold", "0.5", "--weight", "segment"],
         r"weight column 'segment' must be numeric"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_with_one_line(
    argv: list[str], message: str, tmp_path: Path, log: pl.DataFrame,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
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


def test_unwritable_output_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a file").write_text("not a folder")
    out = tmp_path / "a file" / "report.html"
    assert main(["report", "--demo", "--quiet", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    # The folder cannot be made: the path named is where it failed.
    assert err.startswith(f"polars-roc: error: cannot write or read {str(out.parent)!r}: ")


def test_warnings_are_one_line_of_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.csv"
    pl.DataFrame({"g": ["a", "a", "b", "b"], "p": [0.1, 0.5, 0.7, 0.2],
                  "y": [1, 1, 0, 1]}).write_csv(path)  # fmt: skip
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
    argv = ["confusion", str(path), "--threshold", "0.2", "--threshold", "0.5", "--by",
            "segment", "--all-measures"]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "--format csv gives one row per segment and threshold" in captured.err
    expected = pr.confusion_matrix(log, [0.2, 0.5], by="segment")
    segments = sorted(log["segment"].unique())
    header = next(line for line in captured.out.splitlines() if "measure" in line)
    assert header.split("┆")[1].strip() == f"{segments[0]}, threshold 0.2"
    rows = {line.split("┆")[0].strip("│ "): line for line in captured.out.splitlines()
            if "┆" in line}  # fmt: skip
    measures = [c for c in expected.columns if c not in ("segment", "threshold")]
    assert set(measures) <= set(rows)  # one row per measure: every measure is shown
    kappa = [cell.strip(" │") for cell in rows["kappa"].split("┆")[1:]]
    assert kappa == [str(round(v, 6)) for v in expected["kappa"].to_list()]
    # CSV keeps one row per segment and threshold.
    assert main([*argv, "--format", "csv"]) == 0
    assert_frame_equal(pl.read_csv(capsys.readouterr().out.encode()), expected,
                       check_dtypes=False)  # fmt: skip


def test_bootstrap_progress_in_a_log_file_is_plain_lines(
    tmp_path: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    argv = ["auc", str(path), "--ci", "bootstrap", "--n-boot", "50", "--seed", "1"]
    assert main(argv) == 0
    err = capsys.readouterr().err  # captured: not a terminal
    assert "\r" not in err
    assert err.splitlines()[-1] == "bootstrap: 50/50 replicates"
