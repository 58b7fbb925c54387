"""The probability views from the shell (issue 25, item 7): ``calibration``,
``grade-test``, ``psi`` and ``estimate`` give the library's tables on both engines,
through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.cli import CONFUSION_SUMMARY, main

ENGINES = ["polars", "duckdb"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled credit log (PDs in [0, 1]) with a rating grade cut from its score."""
    credit = pr.datasets.load_credit()
    assert credit["score"].is_between(0.0, 1.0).all()
    path = tmp_path_factory.mktemp("logs") / "log.parquet"
    score = pl.col("score")
    grade = pl.when(score < 0.03).then(pl.lit("A")).when(score < 0.08).then(pl.lit("B"))
    grade = grade.when(score < 0.2).then(pl.lit("C")).otherwise(pl.lit("D"))
    credit.with_columns(grade.alias("rating")).write_parquet(path)
    return path


def run(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> pl.DataFrame:
    out = tmp_path / "out.parquet"
    assert main([*argv, "--out", str(out)]) == 0, capsys.readouterr().err
    return pl.read_parquet(out)


CASES: list[tuple[list[str], Any]] = [
    (
        ["calibration", "--by", "segment", "--n-bins", "5", "--ci", "wilson"],
        lambda log: pr.calibration_curve(log, 5, by="segment", ci="wilson"),
    ),
    (
        ["calibration", "--strategy", "quantile", "--ci", "jeffreys", "--conf-level", "0.9"],
        lambda log: pr.calibration_curve(log, strategy="quantile", ci="jeffreys", conf_level=0.9),
    ),
    (
        ["calibration", "--grade", "rating", "--weight", "exposure"],
        lambda log: pr.calibration_curve(log, grade="rating", weight="exposure"),
    ),
    (
        ["grade-test", "--grade", "rating", "--by", "segment"],
        lambda log: pr.grade_test(log, "rating", by="segment"),
    ),
    (
        ["grade-test", "--grade", "rating", "--method", "binomial", "--conf-level", "0.99"],
        lambda log: pr.grade_test(log, "rating", "binomial", conf_level=0.99),
    ),
    (
        ["psi", "--period", "month", "--by", "segment", "--characteristic", "exposure"],
        lambda log: pr.psi(log, "month", columns=["exposure"], by="segment"),
    ),
    (
        ["psi", "--period", "month", "--baseline", "2026-03", "--n-bins", "5", "--detail"],
        lambda log: pr.psi(log, "month", "2026-03", n_bins=5, detail=True),
    ),
    (
        ["estimate", "--by", "segment", "--period", "month", "--weight", "exposure"],
        lambda log: pr.estimated_auc(log, by="segment", period="month", weight="exposure"),
    ),
    (
        ["estimate", "--by", "segment", "--bins", "64"],
        lambda log: pr.estimated_auc(log, by="segment", bins=64),
    ),
    (
        ["estimate", "--threshold", "0.1", "--threshold", "0.2", "--all-measures"],
        lambda log: pr.estimated_confusion(log, [0.1, 0.2]),
    ),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("argv", "library"), CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_commands_give_the_library_tables(
    engine: str,
    argv: list[str],
    library: Any,
    logs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = pl.read_parquet(logs)
    result = run([argv[0], str(logs), *argv[1:], "--engine", engine], tmp_path, capsys)
    assert_frame_equal(result, library(log), rel_tol=1e-12)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_calibration_writes_csv_and_json(
    fmt: str, logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"calibration.{fmt}"
    assert main(["calibration", str(logs), "--by", "segment", "--out", str(out)]) == 0
    read = {
        "csv": pl.read_csv,
        "json": lambda path: pl.DataFrame(json.loads(path.read_text())),
    }[fmt]
    expected = pr.calibration_curve(pl.read_parquet(logs), by="segment")
    assert_frame_equal(read(out), expected, check_dtypes=False, rel_tol=1e-12)


def test_psi_reads_no_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "unlabelled.csv"
    pl.DataFrame({"month": [1, 1, 2, 2], "score": [0.1, 0.2, 0.3, 0.4]}).write_csv(path)
    result = run(["psi", str(path), "--period", "month", "--n-bins", "2"], tmp_path, capsys)
    assert result["psi"][0] == 0.0 and result["level"].to_list() == ["stable", "shift"]
    assert main(["psi", str(path), "--period", "month", "--label", "label"]) == 2
    assert "unrecognized arguments: --label label" in capsys.readouterr().err


@pytest.mark.parametrize("engine", ENGINES)
def test_bad_input_is_one_line(
    engine: str, logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odds = ["--sql", "SELECT score * 10 AS score, label FROM log", "--engine", engine]
    assert main(["calibration", str(logs), *odds]) == 2
    err = capsys.readouterr().err
    assert err.startswith("polars-roc: error: score column 'score' must hold probabilities")
    assert main(["psi", str(logs), "--period", "month", "--baseline", "2027-01"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("polars-roc: error: baseline period '2027-01' is absent")
    assert main(["grade-test", str(logs), "--grade", "grade", "--engine", engine]) == 2
    assert "'grade'" in capsys.readouterr().err
    assert main(["calibration", str(logs), "--direction", "lower"]) == 2
    assert "unrecognized arguments: --direction lower" in capsys.readouterr().err


def test_estimate_prints_the_usual_measures(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["estimate", str(logs), "--period", "month", "--threshold", "0.2"]
    result = run(argv, tmp_path, capsys)
    expected = pr.estimated_confusion(pl.read_parquet(logs), 0.2, period="month")
    assert result.columns == ["month", *CONFUSION_SUMMARY]
    assert_frame_equal(result, expected.select(result.columns))
    unlabelled = tmp_path / "unlabelled.parquet"
    pl.read_parquet(logs).drop("label").write_parquet(unlabelled)
    result = run(["estimate", str(unlabelled), "--by", "segment"], tmp_path, capsys)
    assert result.columns == ["segment", "auc", "n_pos", "n_neg"]


# Regressions of the adversarial review of the validation views (FINDINGS.md).


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (  # finding 10: a raw error, another on each engine
            ["psi", "--period", "month", "--characteristic", "month"],
            "--period column 'month' is also compared",
        ),
        (["psi", "--period", "nope"], "period column 'nope' not found"),  # 'column column'
        (["psi", "--period", "month", "--characteristic", "nope"], "characteristic column 'nope'"),
        (["calibration", "--grade", "nope"], "grade column 'nope' not found"),  # finding 14
        (["estimate", "--period", "nope"], "period column 'nope' not found"),
        (  # finding 15: --n-bins was ignored with --grade
            ["calibration", "--grade", "rating", "--n-bins", "5"],
            "--grade makes the grades the bins, so --n-bins",
        ),
        (  # finding 2: the p-values changed with the unit of the weights
            ["grade-test", "--grade", "rating", "--weight", "exposure"],
            "does not support weights",
        ),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_refusals_name_the_option_on_every_engine(
    engine: str,
    argv: list[str],
    message: str,
    logs: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([argv[0], str(logs), *argv[1:], "--engine", engine]) == 2
    err = capsys.readouterr().err
    assert err.startswith("polars-roc: error: ") and message in err, err
