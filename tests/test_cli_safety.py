"""``--where`` and ``--sql`` see the log and nothing else, on either engine (issue 24, 9).

Filters are pasted from dashboards and passed through job runners: a query must not read
another file, write one, or run a second statement.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from polars_roc.cli import main

ENGINES = ["polars", "duckdb"]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "log.parquet"
    pl.DataFrame(
        {"segment": ["a", "b"] * 20, "score": [i / 40 for i in range(40)], "label": [0, 1] * 20}
    ).write_parquet(path)
    return path


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.csv"
    path.write_text("TOPSECRET\na\n")
    return path


def refused(argv: list[str], option: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"polars-roc: error: {option} ")
    assert "TOPSECRET" not in captured.err
    return captured.err


@pytest.mark.parametrize("engine", ENGINES)
def test_sql_cannot_read_another_file(
    engine: str, log: Path, secret: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = [
        f"SELECT * FROM read_csv('{secret}')",
        f"SELECT * FROM READ_CSV /* x */ ('{secret}')",
        f"SELECT * FROM \"read_csv\"('{secret}')",
        f"SELECT l.* FROM log l JOIN read_csv('{secret}') s ON true",
    ]
    for query in queries:
        argv = ["auc", str(log), "--engine", engine, "--sql", query]
        refused(argv, "--sql", capsys)


@pytest.mark.parametrize("engine", ENGINES)
def test_where_cannot_read_another_file(
    engine: str, log: Path, secret: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Polars reads the file while building the filter; its error then shows the header.
    column, options = {"polars": ("nothing", ""), "duckdb": ("*", ", header=false")}[engine]
    predicate = f"segment IN (SELECT {column} FROM read_csv('{secret}'{options}))"
    refused(["auc", str(log), "--engine", engine, "--where", predicate], "--where", capsys)


@pytest.mark.parametrize("engine", ENGINES)
def test_sql_is_one_query_that_writes_nothing(
    engine: str, log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "written.csv"
    for query in [
        f"SELECT * FROM log; COPY (SELECT 42) TO '{target}'",
        f"COPY (SELECT 42) TO '{target}'",
        "CREATE TABLE t AS SELECT * FROM log",
    ]:
        refused(["auc", str(log), "--engine", engine, "--sql", query], "--sql", capsys)
        assert not target.exists()


@pytest.mark.parametrize("engine", ENGINES)
def test_queries_of_the_log_still_run(
    engine: str, log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["auc", str(log), "--engine", engine, "--format", "csv"]
    query = "WITH x AS (SELECT * FROM log WHERE segment = 'a') SELECT * FROM x"
    assert main([*argv, "--sql", query, "--where", "score >= 0"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "auc,n_pos,n_neg"


def test_out_never_replaces_the_log_nor_lands_among_its_files(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `auc log.parquet --out log.parquet` replaced the log with the one-row AUC table.
    before = log.read_bytes()
    assert main(["auc", str(log), "--out", str(log)]) == 2
    assert capsys.readouterr().err == (
        f"polars-roc: error: --out {str(log)!r} is a file of the input: it would replace the log\n"
    )
    assert log.read_bytes() == before
    # Into the input folder as a data file: the next `auc FOLDER` would read it as rows.
    out = tmp_path / "curve.csv"
    assert main(["curve", str(tmp_path), "--out", str(out)]) == 2
    assert "is inside the input folder" in capsys.readouterr().err and not out.exists()
    assert main(["auc", str(log), "--out", str(tmp_path / "auc.txt")]) == 0  # no data file
