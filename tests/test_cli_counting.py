"""The CLI's counting options: --count, --direction, --bins (issues 11, 12, 15)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.cli import main


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, pl.DataFrame]:
    log = pr.datasets.load_credit()
    rows, counts = tmp_path / "log.parquet", tmp_path / "counts.parquet"
    log.write_parquet(rows)
    log.group_by("segment", "score", "label").len("n").write_parquet(counts)
    return rows, counts, log


def read_csv(text: str) -> pl.DataFrame:
    return pl.read_csv(text.encode())


def test_count_table_gives_the_rows_numbers(files, capsys) -> None:  # type: ignore[no-untyped-def]
    rows, counts, _ = files
    assert (
        main(
            [
                "auc",
                str(counts),
                "--count",
                "n",
                "--by",
                "segment",
                "--ci",
                "delong",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    from_counts = read_csv(capsys.readouterr().out)
    assert main(["auc", str(rows), "--by", "segment", "--ci", "delong", "--format", "csv"]) == 0
    assert_frame_equal(from_counts, read_csv(capsys.readouterr().out))


def test_direction_lower_is_the_library_call(files, capsys) -> None:  # type: ignore[no-untyped-def]
    rows, _, log = files
    assert main(["curve", str(rows), "--direction", "lower", "--format", "csv"]) == 0
    printed = read_csv(capsys.readouterr().out)
    expected = pr.roc_curve(log, direction="lower")
    assert printed["threshold"][0] == float("-inf")  # the curve runs up from -inf
    assert_frame_equal(printed, expected, check_dtypes=False)


def test_bins_adds_the_bound(files, capsys) -> None:  # type: ignore[no-untyped-def]
    rows, _, log = files
    assert main(["auc", str(rows), "--bins", "256", "--by", "segment", "--format", "csv"]) == 0
    printed = read_csv(capsys.readouterr().out)
    assert_frame_equal(printed, pr.roc_auc(log, by="segment", bins=256))


def test_bad_count_is_one_line(files, capsys) -> None:  # type: ignore[no-untyped-def]
    rows, _, _ = files
    assert main(["auc", str(rows), "--count", "segment"]) == 2
    err = capsys.readouterr().err
    assert err == ("polars-roc: error: count column 'segment' must be numeric, got dtype String\n")


def test_confusion_prevalence_is_the_library_call(files, capsys) -> None:  # type: ignore[no-untyped-def]
    rows, _, log = files
    argv = [
        "confusion",
        str(rows),
        "--threshold",
        "0.2",
        "--prevalence",
        "0.02",
        "--all-measures",
        "--format",
        "csv",
    ]
    assert main(argv) == 0
    printed = read_csv(capsys.readouterr().out)
    expected = pr.confusion_matrix(log, 0.2, prevalence=0.02)
    assert_frame_equal(printed, expected.with_columns(pl.col("kappa_level")), check_dtypes=False)
