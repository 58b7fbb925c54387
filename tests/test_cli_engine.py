"""``polars-roc auc --engine duckdb``: DuckDB reads the files and counts; the same table
as the default Polars engine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.cli import main

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install '.[duckdb]')")
pytest.importorskip("pyarrow", reason="pyarrow (DuckDB -> Polars) is not installed")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two hive partitions (month=1, month=2) of continuous scores with ties."""
    rng = np.random.default_rng(4)
    for month in (1, 2):
        label = rng.integers(0, 2, size=300)
        part = tmp_path / "log" / f"month={month}"
        part.mkdir(parents=True)
        pl.DataFrame(
            {
                "segment": rng.choice(["a", "b"], size=300),
                "score": np.round(rng.normal(label * 0.7, 1.0), 3),
                "label": label,
            }
        ).write_parquet(part / "part-0.parquet")
    return tmp_path / "log"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> pl.DataFrame:
    assert main(argv) == 0
    return pl.read_csv(capsys.readouterr().out.encode())


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--ci", "delong"],
        ["--where", "month = 2"],
        ["--sql", "SELECT * FROM log WHERE segment = 'b'"],
    ],
)
def test_duckdb_engine_gives_the_polars_table(
    folder: Path, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "auc",
        str(folder / "**" / "*.parquet"),
        "--by",
        "segment",
        "--by",
        "month",
        "--format",
        "csv",
        *extra,
    ]
    expected = run(argv, capsys)
    result = run([*argv, "--engine", "duckdb"], capsys)
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-12)
    if not extra:
        log = pl.read_parquet(folder / "**" / "*.parquet", hive_partitioning=True)
        reference = pr.roc_auc(log, by=["segment", "month"])
        assert result["auc"].to_list() == pytest.approx(reference["auc"].to_list(), abs=1e-12)


def test_duckdb_engine_errors_name_the_option(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(folder / "**" / "*.parquet")
    assert main(["auc", path, "--engine", "duckdb", "--where", "monthx = 2"]) == 2
    assert capsys.readouterr().err.startswith("polars-roc: error: --where 'monthx = 2': ")
    assert main(["auc", path, "--engine", "duckdb", "--score", "scor"]) == 2
    assert "column 'scor' not found" in capsys.readouterr().err
    assert main(["auc", str(folder / "nothing*.parquet"), "--engine", "duckdb"]) == 2
    assert "matches no file" in capsys.readouterr().err
