"""A DuckDB database file as the CLI's input: its table read by DuckDB, counted by
either engine, the same tables as the same rows in Parquet; ``--where``/``--sql`` see
the log and no other table of the database."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_roc.cli import main

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install '.[duckdb]')")
pytest.importorskip("pyarrow", reason="pyarrow (DuckDB -> Polars) is not installed")

ENGINES = ["polars", "duckdb"]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """The same 600 rows (ties, weights, two segments) in Parquet and as table ``preds``
    of a database that also holds a view, a table in another schema and a secret."""
    rng = np.random.default_rng(8)
    label = rng.integers(0, 2, size=600)
    log = pl.DataFrame(
        {
            "segment": rng.choice(["a", "b"], size=600),
            "month": rng.integers(1, 4, size=600),
            "score": np.round(rng.normal(label * 0.7, 1.0), 2),
            "label": label,
            "challenger": np.round(rng.normal(label * 0.4, 1.0), 2),
            "w": rng.gamma(2.0, 0.5, size=600),
        }
    )
    parquet = tmp_path / "log.parquet"
    log.write_parquet(parquet)
    database = tmp_path / "scores.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute(f"CREATE TABLE preds AS SELECT * FROM '{parquet}'")
        connection.execute("CREATE VIEW retail AS SELECT * FROM preds WHERE segment = 'a'")
        connection.execute("CREATE SCHEMA risk")
        connection.execute("CREATE TABLE risk.secret AS SELECT 'a' AS segment")
    return parquet, database


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> pl.DataFrame:
    assert main([*argv, "--format", "csv"]) == 0, capsys.readouterr().err
    return pl.read_csv(capsys.readouterr().out.encode())


COMMANDS = [
    ["auc", "--by", "segment", "--ci", "delong"],
    ["auc", "--weight", "w", "--by", "month", "--bins", "8"],
    ["confusion", "--threshold", "0.2", "--by", "segment", "--all-measures"],
    ["curve", "--by", "segment", "--where", "month >= 2"],
    ["pr", "--sql", "SELECT segment, score AS p, label FROM log", "--score", "p"],
    ["compare", "--scores", "score", "challenger", "--by", "segment"],
    ["trend", "--period", "month"],
    ["gains", "--n-bins", "4"],
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c[:2]))
def test_a_database_table_gives_the_table_of_its_rows_in_parquet(
    files: tuple[Path, Path],
    command: list[str],
    engine: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    parquet, database = files
    expected = run([command[0], str(parquet), *command[1:]], capsys)
    argv = [command[0], str(database), *command[1:], "--table", "preds", "--engine", engine]
    result = run(argv, capsys)
    assert expected.height > 0
    # Weight sums may add up in another order in DuckDB: equal to rounding.
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_table_names_views_schemas_and_any_case(
    files: tuple[Path, Path], engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parquet, database = files
    retail = run(["auc", str(parquet), "--where", "segment = 'a'"], capsys)
    for table in ("retail", "RETAIL"):
        view = run(["auc", str(database), "--table", table, "--engine", engine], capsys)
        assert_frame_equal(view, retail)
    # risk.secret is read (it has no score column), not preds
    assert main(["auc", str(database), "--table", "risk.secret", "--engine", engine]) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: score column 'score' not found in the frame; available columns: "
        "['segment']\n"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_a_database_of_one_table_needs_no_table_option(
    files: tuple[Path, Path], tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parquet, _ = files
    single = tmp_path / "single.ddb"
    with duckdb.connect(str(single)) as connection:
        connection.execute(f"CREATE TABLE only_one AS SELECT * FROM '{parquet}'")
    expected = run(["auc", str(parquet), "--by", "segment"], capsys)
    result = run(["auc", str(single), "--by", "segment", "--engine", engine], capsys)
    assert_frame_equal(result, expected)


@pytest.mark.parametrize("engine", ENGINES)
def test_input_errors_name_the_database_and_the_fix(
    files: tuple[Path, Path], tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parquet, database = files
    path = str(database)
    cases = [
        (
            ["auc", path],
            f"{path!r} holds 3 tables ('preds', 'retail', 'risk.secret'): name one with --table",
        ),
        (
            ["auc", path, "--table", "pred"],
            f"{path!r} holds 3 tables ('preds', 'retail', 'risk.secret'): --table 'pred' is "
            "not one",
        ),
        (
            ["auc", str(parquet), "--table", "preds"],
            "--table 'preds' names a table of a DuckDB database (.duckdb), not of files",
        ),
        (
            ["auc", path, str(parquet), "--table", "preds"],
            "the input mixes formats (DuckDB, Parquet); give files of one format, e.g. with a "
            "glob such as 'logs/**/*.parquet'",
        ),
        (
            ["auc", path, "--table", "preds", "--null-values", "NA"],
            f"--null-values applies to CSV files only, got {path!r}",
        ),
        (
            ["auc", path, "--table", "preds", "--out", path],
            f"--out {path!r} is a file of the input: it would replace the log",
        ),
        (
            ["auc", path, "--table", "preds", "--where", "month = 9"],
            f"{path!r} has no rows after --where/--sql: there is nothing to evaluate",
        ),
        (
            ["auc", path, "--table", "preds", "--label", "lable"],
            "label column 'lable' not found in the frame; did you mean one of ['label']?",
        ),
    ]
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(database.read_bytes())
    cases.append(
        (
            ["auc", path, str(copy), "--table", "preds"],
            f"give one DuckDB database at a time, got 2 ({path!r}, {str(copy)!r}...)",
        )
    )
    not_a_database = tmp_path / "notes.duckdb"
    not_a_database.write_text("no data")
    cases.append(
        (
            ["auc", str(not_a_database)],
            f"cannot open {str(not_a_database)!r} as a DuckDB database: IO Error: ",
        )
    )
    for argv, message in cases:
        assert main([*argv, "--engine", engine]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"polars-roc: error: {message}"), err
        assert err.count("\n") == 1, err
    assert database.stat().st_size > 0  # --out did not write over it


@pytest.mark.parametrize(
    "option",
    [
        ["--sql", "SELECT * FROM log WHERE segment IN (SELECT segment FROM risk.secret)"],
        ["--sql", "SELECT * FROM log_database.risk.secret"],
        ["--where", "segment IN (SELECT segment FROM log_database.risk.secret)"],
        ["--sql", "SELECT * FROM log_database.main.retail"],
        ["--sql", "SELECT * FROM log_database.risk.secret AS log"],
        ["--sql", "SELECT l.* FROM log l JOIN log_database.risk.secret s ON l.segment = s.segment"],
        # A USING join is read from the parse tree (get_table_names binds its columns).
        ["--sql", "SELECT l.* FROM log l JOIN log_database.risk.secret s USING (segment)"],
    ],
)
def test_duckdb_sql_reads_no_other_table_of_the_database(
    files: tuple[Path, Path], option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Settings keep DuckDB from opening files, not from reading the attached database's
    other tables: those are refused by name."""
    _, database = files
    argv = ["auc", str(database), "--table", "preds", "--engine", "duckdb", *option]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"polars-roc: error: {option[0]} {option[1]!r}: "), err
    assert err.endswith(f"is refused: {option[0]} reads the log (table 'log') and nothing else\n")


def test_duckdb_sql_over_the_log_is_not_refused(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    parquet, database = files
    query = "WITH kept AS (SELECT * FROM log WHERE month < 3) SELECT * FROM kept"
    expected = run(["auc", str(parquet), "--where", "month < 3"], capsys)
    for table in ("preds", "retail"):
        argv = ["auc", str(database), "--table", table, "--engine", "duckdb", "--sql", query]
        where = "segment = 'a' AND month < 3" if table == "retail" else "month < 3"
        assert_frame_equal(run(argv, capsys), run(["auc", str(parquet), "--where", where], capsys))
    assert expected.height == 1


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "query",
    [
        "SELECT l.score, l.label FROM log l",
        'SELECT "my log".* FROM log AS "my log" WHERE "my log".month < 3',
        "SELECT a.score, a.label FROM log a JOIN (SELECT DISTINCT month FROM log b) c "
        "ON a.month = c.month",
        # A binder error before: get_table_names binds USING's columns with no catalog.
        "WITH m AS (SELECT DISTINCT month FROM log) SELECT a.score, a.label FROM log a "
        "JOIN m USING (month)",
    ],
)
def test_an_alias_of_the_log_is_the_log(
    files: tuple[Path, Path], engine: str, query: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # DuckDB named the table 'log AS l', which was refused as another table.
    parquet, database = files
    argv = ["auc", str(database), "--table", "preds", "--sql", query, "--engine", engine]
    assert_frame_equal(run(argv, capsys), run(["auc", str(parquet), "--sql", query], capsys))


def test_polars_sql_sees_only_the_log(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, database = files
    query = "SELECT * FROM secret"
    assert main(["auc", str(database), "--table", "preds", "--sql", query]) == 2
    assert capsys.readouterr().err.startswith(f"polars-roc: error: --sql {query!r}: ")


def test_the_database_is_opened_read_only(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The database is attached READ_ONLY: reading it changes no byte."""
    _, database = files
    before = database.read_bytes()
    run(["auc", str(database), "--table", "preds", "--engine", "duckdb"], capsys)
    run(["auc", str(database), "--table", "preds"], capsys)
    assert database.read_bytes() == before


def test_report_of_a_database_table_is_the_same_page_with_either_engine(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    pytest.importorskip("vl_convert", reason="the report needs vl-convert-python ('.[report]')")
    _, database = files
    pages = {}
    for engine in ENGINES:
        out = tmp_path / f"{engine}.html"
        argv = ["report", str(database), "--table", "preds", "--by", "segment", "--quiet"]
        assert main([*argv, "--out", str(out), "--engine", engine]) == 0
        pages[engine] = out.read_text(encoding="utf-8")
    assert "segment" in pages["polars"]
    assert pages["duckdb"] == pages["polars"]


@pytest.mark.parametrize("engine", ENGINES)
def test_without_duckdb_the_message_names_the_extra(
    files: tuple[Path, Path],
    engine: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, database = files
    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb fails
    assert main(["auc", str(database), "--engine", engine]) == 2
    needs = (
        "--engine duckdb"
        if engine == "duckdb"
        else f"reading the DuckDB database {str(database)!r}"
    )
    assert capsys.readouterr().err == (
        f"polars-roc: error: {needs} needs the duckdb package: pip install 'polars-roc[duckdb]'\n"
    )


def test_a_view_over_files_is_read_by_polars_and_refused_by_duckdb(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DuckDB runs the user's SQL with --engine duckdb, so there it may open no file."""
    parquet, _ = files
    views = tmp_path / "views.duckdb"
    with duckdb.connect(str(views)) as connection:
        connection.execute(f"CREATE VIEW scored AS SELECT * FROM read_parquet('{parquet}')")
    expected = run(["auc", str(parquet), "--by", "segment"], capsys)
    assert_frame_equal(run(["auc", str(views), "--by", "segment"], capsys), expected)
    assert main(["auc", str(views), "--engine", "duckdb"]) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: --table 'scored' is a view that reads files, which --engine duckdb "
        "does not open (its --where and --sql read the log only): read it with the default "
        "engine, or give its files as the input\n"
    )
