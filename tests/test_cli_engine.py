"""``polars-roc COMMAND --engine duckdb``: DuckDB reads the files and counts; the same
table as the default Polars engine, for every command that reads a log."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

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
                "challenger": np.round(rng.normal(label * 0.4, 1.0), 2),
                "w": rng.gamma(2.0, 0.5, size=300),
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


# Every command that reads a log, with the options that change what is counted.
COMMANDS = [
    ["auc", "--ci", "bootstrap", "--n-boot", "40", "--seed", "1", "--by", "segment"],
    ["auc", "--weight", "w", "--by", "month", "--max-fpr", "0.3"],
    ["confusion", "--threshold", "0.2", "--threshold", "0.5", "--by", "segment", "--all-measures"],
    [
        "confusion",
        "--threshold",
        "0.3",
        "--sql",
        "SELECT segment, score AS p, label FROM log",
        "--score",
        "p",
        "--by",
        "segment",
        "--pos-label",
        "1",
    ],
    ["curve", "--by", "segment", "--drop-intermediate", "--cost-fp", "2"],
    ["curve", "--weight", "w", "--by", "month", "--where", "segment = 'a'"],
    ["pr", "--by", "segment", "--direction", "lower"],
    ["best-threshold", "--method", "youden", "--by", "segment", "--ties", "all"],
    ["best-threshold", "--method", "cost", "--cost-fp", "1", "--cost-fn", "5"],
    ["threshold-at", "--fpr", "0.1", "--by", "month"],
    ["compare", "--scores", "score", "challenger", "--by", "segment"],
    [
        "compare",
        "--scores",
        "score",
        "challenger",
        "--ci",
        "bootstrap",
        "--n-boot",
        "40",
        "--seed",
        "3",
    ],
    ["gains", "--n-bins", "4", "--where", "month = 2"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c[:2]))
def test_every_command_gives_the_polars_table_with_duckdb(
    folder: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [command[0], str(folder), *command[1:], "--format", "csv"]
    expected = run(argv, capsys)
    result = run([*argv, "--engine", "duckdb"], capsys)
    assert expected.height > 0
    # Weight sums add up in another order in DuckDB: equal to rounding.
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


def test_binned_auc_holds_the_exact_auc_on_both_engines(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--bins cuts buckets per segment in DuckDB (equal width) and in Polars (ranges of
    the score's bits): other buckets, so other estimates, each within its bound of the
    exact AUC, with the same class counts."""
    argv = ["auc", str(folder), "--by", "segment", "--format", "csv"]
    exact = run(argv, capsys)
    for engine in ("polars", "duckdb"):
        binned = run([*argv, "--bins", "16", "--engine", engine], capsys)
        assert binned.select("segment", "n_pos", "n_neg").equals(
            exact.select("segment", "n_pos", "n_neg")
        )
        gap = (binned["auc"] - exact["auc"]).abs()
        assert (gap <= binned["auc_bound"] + 1e-12).all()


@pytest.mark.parametrize(
    "command", list({c[0]: c for c in reversed(COMMANDS)}.values()), ids=lambda c: c[0]
)
def test_duckdb_engine_hands_the_library_a_relation(
    folder: Path, command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows stay in DuckDB: the library gets the relation, not a Polars frame."""
    import duckdb

    function = {
        "auc": "roc_auc",
        "confusion": "confusion_matrix",
        "curve": "roc_curve",
        "pr": "pr_curve",
        "best-threshold": "best_threshold",
        "threshold-at": "threshold_at",
        "compare": "compare",
        "gains": "gains_table",
    }[command[0]]
    seen: list[Any] = []
    original = getattr(pr, function)

    def spy(frame: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(frame)
        return original(frame, *args, **kwargs)

    monkeypatch.setattr(pr, function, spy)
    assert (
        main([command[0], str(folder), *command[1:], "--engine", "duckdb", "--format", "csv"]) == 0
    )
    assert [type(frame) for frame in seen] == [duckdb.DuckDBPyRelation]


def test_duckdb_engine_speaks_duckdb_sql(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--where is DuckDB's SQL with --engine duckdb (regexp_matches is DuckDB's function)."""
    argv = ["curve", str(folder), "--format", "csv", "--where", "regexp_matches(segment, '^a')"]
    result = run([*argv, "--engine", "duckdb"], capsys)
    expected = run(["curve", str(folder), "--format", "csv", "--where", "segment = 'a'"], capsys)
    assert_frame_equal(result, expected)


def test_missing_packages_name_the_extra(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["curve", str(folder), "--engine", "duckdb"]
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "duckdb", None)  # import duckdb fails
        assert main(argv) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: --engine duckdb needs the duckdb package: "
        "pip install 'polars-roc[duckdb]'\n"
    )
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "pyarrow" else find_spec(name, *args),
    )
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: --engine duckdb needs the pyarrow package: "
        "pip install 'polars-roc[duckdb]'\n"
    )


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_input_errors_are_the_same_with_either_engine(
    folder: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(folder)
    assert main(["gains", path, "--null-values", "NA", "--engine", engine]) == 2
    assert capsys.readouterr().err == (
        f"polars-roc: error: --null-values applies to CSV files only, got {path!r}\n"
    )
    assert main(["curve", path, "--where", "month = 9", "--engine", engine]) == 2
    assert capsys.readouterr().err == (
        f"polars-roc: error: {path!r} has no rows after --where/--sql: there is nothing "
        "to evaluate\n"
    )
    assert (
        main(["confusion", path, "--threshold", "0.5", "--label", "lable", "--engine", engine]) == 2
    )
    assert capsys.readouterr().err == (
        "polars-roc: error: label column 'lable' not found in the frame; did you mean one "
        "of ['label']?\n"
    )
    assert main(["gains", path, "--by", "segmnt", "--engine", engine]) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: by column 'segmnt' not found in the frame; did you mean one "
        "of ['segment']?\n"
    )
    assert main(["compare", path, "--scores", "score", "challenger2", "--engine", engine]) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: score column 'challenger2' not found in the frame; did you mean "
        "one of ['challenger']?\n"
    )
    assert main(["compare", path, "--scores", "score", "segment", "--engine", engine]) == 2
    assert capsys.readouterr().err.startswith(
        "polars-roc: error: score column 'segment' must be numeric"
    )
    text = folder.parent / "na.csv"
    text.write_text("score,label\n0.1,0\n0.7,1\nNA,1\n0.4,0\n")
    assert main(["auc", str(text), "--engine", engine]) == 2
    assert capsys.readouterr().err == (
        f"polars-roc: error: score column 'score' of {str(text)!r} holds text that is not a "
        "number ('NA'); if it marks missing values, pass --null-values NA (and --nulls drop "
        "to leave those rows out)\n"
    )
    assert (
        main(["auc", str(text), "--null-values", "NA", "--nulls", "drop", "--engine", engine]) == 0
    )
    assert capsys.readouterr().out.splitlines()[-2].split() == ["│", "1.0", "┆", "1", "┆", "2", "│"]
    # Numbers a CSV reader takes as text: the bare "must be numeric" named no value.
    for text, how in (
        ('" 0.1"', "spaces around them (' 0.1')"),
        ('"0,1"', "a decimal comma ('0,1')"),
    ):
        odd = folder.parent / "odd.csv"
        odd.write_text(f"score,label\n{text},0\n0.7,1\n")
        assert main(["auc", str(odd), "--engine", engine]) == 2
        assert capsys.readouterr().err == (
            f"polars-roc: error: score column 'score' of {str(odd)!r} holds numbers written "
            f"with {how}, which CSV readers take as text: write them as plain numbers (0.9) "
            "in the file\n"
        )
    # A header alone: DuckDB said the text columns were no scores.
    header = folder.parent / "header.csv"
    header.write_text("score,label\n")
    assert main(["auc", str(header), "--engine", engine]) == 2
    assert capsys.readouterr().err == (
        f"polars-roc: error: {str(header)!r} has no rows: there is nothing to evaluate\n"
    )


def test_curve_errors_name_the_option_with_duckdb(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["curve", str(folder), "--engine", "duckdb", "--sql", "SELECT * FROM logs"]) == 2
    assert capsys.readouterr().err.startswith(
        "polars-roc: error: --sql 'SELECT * FROM logs': Catalog Error: Table with name logs "
    )


def test_report_with_duckdb_is_the_same_page(folder: Path, tmp_path: Path) -> None:
    pytest.importorskip("vl_convert", reason="the report needs vl-convert-python ('.[report]')")
    pages = {}
    for engine in ("polars", "duckdb"):
        out = tmp_path / f"{engine}.html"
        argv = ["report", str(folder), "--by", "segment", "--where", "month = 2", "--quiet"]
        assert main([*argv, "--out", str(out), "--engine", engine]) == 0
        pages[engine] = out.read_text(encoding="utf-8")
    assert "segment" in pages["polars"]
    assert pages["duckdb"] == pages["polars"]


def test_report_demo_refuses_duckdb(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("vl_convert", reason="the report needs vl-convert-python ('.[report]')")
    assert main(["report", "--demo", "--engine", "duckdb", "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: report: --engine duckdb reads FILE; the --demo log is in "
        "memory: drop --engine\n"
    )


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_hive_keys_count_from_a_folder_down_with_either_engine(
    folder: Path, tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder is the dataset's root (env=prod above it is no column); in files and
    globs every key=value counts. DuckDB alone would take env from the paths."""
    import shutil

    root = tmp_path / "env=prod" / "log"
    shutil.copytree(folder, root)
    assert main(["auc", str(root), "--by", "env", "--engine", engine]) == 2
    assert capsys.readouterr().err.startswith("polars-roc: error: by column 'env' not found")
    glob = str(root / "**" / "*.parquet")
    result = run(["auc", glob, "--by", "env", "--by", "month", "--format", "csv"], capsys)
    assert result["env"].to_list() == ["prod", "prod"]
    assert_frame_equal(
        run(
            ["auc", glob, "--by", "env", "--by", "month", "--format", "csv", "--engine", engine],
            capsys,
        ),
        result,
        check_exact=False,
        rel_tol=1e-12,
    )


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_hive_values_are_decoded_and_typed_alike_by_both_engines(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # DuckDB read k=0.5, 1.5, 2 as text (and refused --where "k > 1"); the Polars engine
    # left a CSV folder's "a%20b" encoded.
    rng = np.random.default_rng(4)
    for key in ("0.5", "1.5", "2", "a%20b"):
        (tmp_path / fmt / f"k={key}").mkdir(parents=True)
        part = pl.DataFrame({"score": rng.random(40), "label": [0, 1] * 20})
        path = tmp_path / fmt / f"k={key}" / f"part.{fmt}"
        part.write_parquet(path) if fmt == "parquet" else part.write_csv(path)
    numbers = tmp_path / "numbers"
    for key in ("0.5", "1.5", "2"):
        (numbers / f"k={key}").mkdir(parents=True)
        (tmp_path / fmt / f"k={key}" / f"part.{fmt}").rename(numbers / f"k={key}" / f"part.{fmt}")
    tables = {}
    for engine in ("polars", "duckdb"):
        argv = ["auc", str(numbers), "--by", "k", "--where", "k > 1", "--format", "csv"]
        tables[engine] = run([*argv, "--engine", engine], capsys)
        text = run(
            ["auc", str(tmp_path / fmt), "--by", "k", "--format", "csv", "--engine", engine], capsys
        )
        assert text["k"].to_list() == ["a b"]
    assert tables["polars"]["k"].to_list() == [1.5, 2.0]
    assert_frame_equal(tables["duckdb"], tables["polars"], check_exact=False, rel_tol=1e-12)


@pytest.mark.parametrize("fmt", ["csv", "ndjson"])
def test_csv_and_ndjson_columns_are_typed_as_polars_types_them(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # DuckDB's sniffer made a Date of 2026-01-15 (CSV and NDJSON), a Boolean of yes/no
    # and t/f and text of 01 (CSV), which Polars reads as text, text and 1: --pos-label
    # yes failed on DuckDB only, and the --by values were written differently.
    i = np.arange(12)
    path = tmp_path / f"log.{fmt}"
    getattr(
        pl.DataFrame(
            {
                "day": [f"2026-01-{1 + k % 2:02d}" for k in i],
                "outcome": np.where(i % 3 > 0, "yes", "no"),
                "flag": np.where(i // 2 % 2 > 0, "f", "t"),
                "code": [f"0{k % 2}" for k in i],
                "score": i / 12,
            }
        ),
        f"write_{fmt}",
    )(path)
    argv = ["auc", str(path), "--label", "outcome", "--pos-label", "yes", "--by", "day"]
    argv += ["--by", "flag", "--by", "code", "--engine"]
    tables = []
    for engine in ("polars", "duckdb"):
        out = tmp_path / f"{engine}.parquet"
        assert main([*argv, engine, "--out", str(out)]) == 0, capsys.readouterr().err
        tables.append(pl.read_parquet(out))
    polars, duckdb = tables
    assert_frame_equal(duckdb, polars)  # dtypes too: the day is text on both
    assert polars["flag"].to_list() == ["f", "t", "f", "t"]


@pytest.mark.parametrize(
    ("header", "score"),
    [
        ("seg, score,label,note", " score"),  # a space before a name
        ("seg,score,label,x,x", "score"),  # x twice: Polars' x_duplicated_0
        ("seg,score,label,", "score"),  # a nameless last column
        ("seg,score,label, ", "score"),  # a blank name
        ('seg,score,label,"no""te"', "score"),  # a quote in a name
    ],
)
def test_odd_csv_headers_give_the_same_table_on_both_engines(
    header: str, score: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # DuckDB's types were keyed by Polars' names, which DuckDB's own reading of the
    # header does not give: a binder error on DuckDB only, though the column was unused.
    n = len(header.split(",")) - 3
    rows = [f"{s},{v},{y}" + ",1" * n for s, v, y in zip("aabbab", (9, 4, 8, 2, 3, 7), "101001")]
    path = tmp_path / "log.csv"
    path.write_text("\n".join([header, *rows]) + "\n")
    argv = ["auc", str(path), "--score", score, "--by", "seg", "--format", "csv"]
    expected = run(argv, capsys)
    assert_frame_equal(run([*argv, "--engine", "duckdb"], capsys), expected)
    assert expected["n_pos"].to_list() == [1, 2]
    last = pl.read_csv(path).columns[-1]
    if last:  # a column DuckDB can name is read under Polars' name
        by = ["--by", last, "--columns", "auc"]
        assert_frame_equal(
            run([*argv, *by, "--engine", "duckdb"], capsys), run([*argv, *by], capsys)
        )


def test_names_differing_in_case_are_refused_by_duckdb_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.csv"
    path.write_text("Score,label,score\n0.9,1,0.1\n0.4,0,0.2\n")
    assert main(["auc", str(path), "--engine", "duckdb"]) == 2
    assert capsys.readouterr().err == (
        f"polars-roc: error: {str(path)!r} has columns 'Score' and 'score', which differ "
        "only in case: --engine duckdb does not tell them apart; read it with the default "
        "engine (leave out --engine duckdb), or rename one in the file\n"
    )
    assert main(["auc", str(path), "--format", "csv"]) == 0
    assert capsys.readouterr().out == "auc,n_pos,n_neg\n0.0,1,1\n"


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_null_values_advice_holds_for_a_folder_and_a_glob_of_csv(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The advice was given only when every path typed ended in .csv.
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.csv").write_text("score,label\n0.1,0\n0.7,1\n")
    (folder / "b.csv").write_text("score,label\nNA,1\n0.4,0\n")
    for source in (str(folder), str(folder / "*.csv")):
        assert main(["auc", source, "--engine", engine]) == 2
        assert capsys.readouterr().err == (
            f"polars-roc: error: score column 'score' of {source!r} holds text that is not "
            "a number ('NA'); if it marks missing values, pass --null-values NA (and --nulls "
            "drop to leave those rows out)\n"
        )
        argv = ["auc", source, "--null-values", "NA", "--nulls", "drop", "--format", "csv"]
        assert main([*argv, "--engine", engine]) == 0
        assert capsys.readouterr().out == "auc,n_pos,n_neg\n1.0,1,2\n"
