"""Messages a shell user can act on, the same from either engine (issue 24, items 9-11)."""

from __future__ import annotations

import shlex
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.cli import main
from polars_roc.core.compat import POLARS_2

ENGINES = ["polars", "duckdb"]


def error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("polars-roc: error: "), captured.err
    return lines[0].removeprefix("polars-roc: error: ")


def table(argv: list[str], capsys: pytest.CaptureFixture[str]) -> pl.DataFrame:
    assert main([*argv, "--format", "csv"]) == 0
    return pl.read_csv(capsys.readouterr().out.encode())


@pytest.mark.parametrize("engine", ENGINES)
def test_a_malformed_csv_is_named_with_its_line(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = tmp_path / "extra.csv"
    extra.write_text("score,label\n0.1,0\n0.5,1\n0.2,0\n0.9,1,7\n0.3,0\n")
    assert error(["auc", str(extra), "--engine", engine], capsys) == (
        f"{str(extra)!r}, line 5: 3 fields where the header has 2"
    )
    quote = tmp_path / "quote.csv"
    quote.write_text('score,label\n0.1,0\n"0.5,1\n0.9,1\n0.3,0\n')
    assert error(["auc", str(quote), "--engine", engine], capsys).startswith(
        f"{str(quote)!r}, line 3: "
    )


@pytest.fixture
def widths(tmp_path: Path) -> Path:
    """Two partitions, the first with Float32 scores, the second with Float64."""
    for month, dtype in ((1, pl.Float32), (2, pl.Float64)):
        (tmp_path / "log" / f"month={month}").mkdir(parents=True)
        pl.DataFrame(
            {"score": [0.1, 0.9, 0.3, 0.7, 0.123456789], "label": [0, 1, 0, 1, 0]},
            schema={"score": dtype, "label": pl.Int64},
        ).write_parquet(tmp_path / "log" / f"month={month}" / "part-0.parquet")
    return tmp_path / "log"


@pytest.mark.parametrize("engine", ENGINES)
def test_float32_and_float64_partitions_are_read_as_float64(
    engine: str, widths: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["curve", str(widths), "--by", "month", "--engine", engine, "--columns"]
    curve = table([*argv, "month,threshold"], capsys)
    second = curve.filter(pl.col("month") == 2)["threshold"].to_list()
    # Float64 scores keep their digits: nothing went through Float32.
    assert 0.123456789 in second and 0.1 in second


@pytest.mark.parametrize("engine", ENGINES)
def test_a_text_score_in_one_partition_is_refused_by_both_engines(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for month, score in ((1, [0.2, 0.8]), (2, ["0.1", "0.9"])):
        (tmp_path / "log" / f"month={month}").mkdir(parents=True)
        pl.DataFrame({"score": score, "label": [0, 1]}).write_parquet(
            tmp_path / "log" / f"month={month}" / "part-0.parquet"
        )
    message = error(["auc", str(tmp_path / "log"), "--engine", engine], capsys)
    # The same on both engines, naming the two files (DuckDB's said "must be numeric").
    first, other = (str(tmp_path / "log" / f"month={m}" / "part-0.parquet") for m in (1, 2))
    assert message == (
        f"column 'score' is String in {other!r} but Float64 in {first!r}: the files of one "
        "log must agree on its type (narrow the input to files of one type, or rewrite the "
        "others)"
    )


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("option", ["--where", "--sql"])
def test_a_type_error_of_a_filter_names_the_filter(
    engine: str, option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.parquet"
    pl.DataFrame(
        {"month": ["2025-05", "2025-06"], "score": [0.1, 0.9], "label": [0, 1]}
    ).write_parquet(path)
    text = "month >= 2025-06" if option == "--where" else "SELECT * FROM log WHERE month > 1"
    assert error(["auc", str(path), option, text, "--engine", engine], capsys).startswith(
        f"{option} {text!r}: "
    )


@pytest.fixture
def nan_log(tmp_path: Path) -> Path:
    path = tmp_path / "nan.parquet"
    pl.DataFrame(
        {
            "score": [0.1, float("nan"), 0.3, 0.8, None, 0.6],
            "other": [0.2, 0.5, float("nan"), 0.7, 0.1, 0.9],
            "label": [0, 1, 0, 1, 1, 0],
        }
    ).write_parquet(path)
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_nan_scores_are_refused_with_a_hint_a_shell_user_can_follow(
    engine: str, nan_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert error(["auc", str(nan_log), "--engine", engine, "--nulls", "drop"], capsys) == (
        "score column 'score' has 1 NaN value(s), which cannot be ranked; leave those rows "
        "out with --nan drop"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_nan_drop_leaves_those_rows_out(
    engine: str, nan_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if engine == "duckdb" and not POLARS_2:
        pytest.skip(
            "Polars 1.35 writes a float column holding NaN to Parquet without min/max "
            "statistics, and DuckDB 2.0 then finds no row of the library's query"
        )
    argv = ["auc", str(nan_log), "--engine", engine, "--nan", "drop", "--nulls", "drop"]
    assert table(argv, capsys).row(0) == (1.0, 1, 3)
    compare = ["compare", str(nan_log), "--scores", "score", "other", "--nan", "drop"]
    result = table([*compare, "--nulls", "drop", "--engine", engine], capsys)
    assert result.select("n_pos", "n_neg").row(0) == (1, 2)


@pytest.mark.parametrize("engine", ENGINES)
def test_nan_drop_with_an_integer_score_or_an_equals_sign_in_its_name(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An integer score has no NaN (Polars failed: "zip node received non-equal length
    # inputs"); a score named p=1 is its name, not multiclass-auc's CLASS=COL (the NaN
    # was kept, and DuckDB looked for a column '1').
    path = tmp_path / "odd.parquet"
    pl.DataFrame(
        {"points": [1, 5, 3, 8], "p=1": [0.1, float("nan"), 0.3, 0.8], "label": [0, 1, 0, 1]}
    ).write_parquet(path)
    argv = [str(path), "--nan", "drop", "--engine", engine]
    assert table(["auc", *argv, "--score", "points"], capsys).row(0) == (1.0, 2, 2)
    compare = table(["compare", *argv, "--scores", "p=1", "points"], capsys)
    assert compare.select("auc_a", "auc_b", "n_pos", "n_neg").row(0) == (1.0, 1.0, 1, 2)


def test_duckdb_count_errors_name_the_users_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "counts.parquet"
    pl.DataFrame({"score": [0.1, 0.5, 0.9], "label": [0, 1, 1], "n": [-1, 2, 1]}).write_parquet(
        path
    )
    message = error(["auc", str(path), "--count", "n", "--engine", "duckdb"], capsys)
    assert message.startswith("count column 'n' has 1 negative value(s)")


def test_out_into_a_missing_folder_says_it_created_it(
    nan_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new" / "auc.csv"
    assert main(["auc", str(nan_log), "--nan", "drop", "--nulls", "drop", "--out", str(out)]) == 0
    assert capsys.readouterr().err == f"polars-roc: created folder {str(out.parent)!r} for --out\n"
    assert pl.read_csv(out).columns == ["auc", "n_pos", "n_neg"]


def test_report_takes_nan_drop_too(
    nan_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    argv = ["report", str(nan_log), "--nulls", "drop", "--out", str(out), "--quiet"]
    assert error(argv, capsys).endswith("leave those rows out with --nan drop")
    assert main([*argv, "--nan", "drop"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "(rows with a NaN score left out: --nan drop) · 5 rows read, 1 dropped" in page


@pytest.fixture
def credit_path(tmp_path: Path) -> Path:
    import polars_roc as pr

    path = tmp_path / "credit.parquet"
    pr.datasets.load_credit().head(400).write_parquet(path)
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_alternative_without_test_is_refused(
    engine: str, credit_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Finding 12: the command ran a plain AUC; the library refuses the same call.
    message = error(
        ["auc", str(credit_path), "--alternative", "greater", "--engine", engine], capsys
    )
    assert message == (
        "--alternative greater sets the test against chance, but none is asked for; pass --test"
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["auc", "--test", "--weight", "exposure"],
            "--test (the Mann-Whitney U test) does not support weights (got --weight "
            "exposure): its null distribution counts rows. If each row stands for that many "
            "identical cases (a count table), pass the column as --count exposure; for "
            "weighted rows, --ci bootstrap gives",
        ),
        (
            ["auc", "--test", "--max-fpr", "0.5"],
            "--test tests the full AUC against 0.5; drop --max-fpr",
        ),
        (
            ["average-precision", "--ci", "logit", "--weight", "exposure"],
            "--ci logit does not support weights (got --weight exposure)",
        ),
        # Advice to pass baseline='first' or --every None; scores=None, predicted=None.
        (["psi", "--period", "month", "--baseline", "1999-01"], "baseline period '1999-01'"),
        (
            ["trend", "--period", "month", "--every", "1mo"],
            "--every 1mo truncates a Date or Datetime column, but period column 'month' is "
            "String; leave out --every to use its values as periods",
        ),
        (
            ["multiclass-confusion", "--label", "segment", "--scores", "x=score", "y=exposure"],
            "label column 'segment' has 400 value(s) that are not among the classes "
            "['x', 'y'] (--scores keys or --classes): ['corporate', 'retail', 'sme']",
        ),
        (["multiclass-agreement", "--label", "segment"], "pass exactly one of --scores"),
        # Advice in Python terms: a new column, compare(), None, polars_roc.folds().
        (
            ["auc", "--weight", "score"],
            "column 'score' is given as both score and weight; a column plays one role: pass "
            'a copy as the weight (e.g. --sql \'SELECT *, "score" AS "score_weight" FROM '
            "log' --weight score_weight)",
        ),
        (
            ["compare", "--scores", "score", "score_challenger", "--weight", "exposure"],
            "compare with DeLong's method does not support weights (got --weight exposure)",
        ),
        (
            [
                "compare-groups",
                "--group",
                "segment",
                "--groups",
                "retail",
                "sme",
                "--weight",
                "exposure",
            ],
            "compare-groups with DeLong's method does not support weights",
        ),
        (
            ["grade-test", "--grade", "segment", "--weight", "exposure"],
            "grade-test --method jeffreys does not support weights (got --weight exposure)",
        ),
        (
            ["calibration-test", "--weight", "exposure"],
            "calibration-test --method hosmer_lemeshow does not support weights",
        ),
        (
            ["optimal-point", "--slope", "2", "--cost-fp", "2"],
            "give either --slope or --cost-fp (the slope already fixes the cost ratio), got "
            "--slope 2.0 and --cost-fp 2.0",
        ),
        (
            ["optimal-cutpoint", "--metric", "f_beta"],
            "--metric f_beta needs --beta, e.g. --beta 2.0",
        ),
        (
            ["trend", "--period", "month", "--adjust", "bh"],
            "--adjust sets the test of two scores per period, but --scores is not given; pass "
            "--scores CHAMPION CHALLENGER, or use drift",
        ),
        (
            ["trend", "--period", "month", "--estimated", "--direction", "lower"],
            "--estimated reads one score as calibrated probabilities: it takes no --scores "
            "and no --direction lower",
        ),
        (
            ["auc", "--weight", "exposure", "--ci", "delong"],
            "the AUC interval with DeLong's method does not support weights (got --weight "
            "exposure)",
        ),
        (["auc", "--bins", "1"], "--bins must be an integer from 2 to 16,777,216, got 1"),
        (
            ["multiclass-measures", "--label", "segment", "--predicted", "score"],
            "with --predicted, pass --classes listing at least two classes",
        ),
        (["fold-summary"], "fold column 'fold' not found in the frame; pass the log's fold "),
        # A call in R stays one (it read roc.test(--method sensitivity | ...)).
        (
            ["compare", "--scores", "score", "score_challenger", "--at-fpr", "0.1"],
            "--at-fpr compares the rates with pROC's bootstrap test (roc.test(method=",
        ),
    ],
)
def test_library_keywords_become_flags(
    argv: list[str], expected: str, credit_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Finding 14: these messages came through in Python syntax (test=True, weight='...').
    message = error([argv[0], str(credit_path), *argv[1:]], capsys)
    assert message.startswith(expected), message
    assert "=True" not in message and "None" not in message
    assert "='" not in message.replace("(method='", "")
    assert "()" not in message and ".with_" not in message


def test_the_advice_for_a_column_in_two_roles_runs(
    credit_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    message = error(["auc", str(credit_path), "--weight", "score"], capsys)
    advice = shlex.split(message.split("(e.g. ")[1].removesuffix(")"))
    weighted = table(["auc", str(credit_path), *advice], capsys)  # the advice names the copy
    copy = pl.read_parquet(credit_path).with_columns(pl.col("score").alias("w"))
    assert_frame_equal(weighted, pr.roc_auc(copy, weight="w"), check_dtypes=False)


@pytest.mark.parametrize(
    ("command", "call"),
    [
        ("auc", lambda log: pr_call("roc_auc", log)),
        ("average-precision", lambda log: pr_call("pr_average_precision", log)),
    ],
)
def test_ci_method_bca_reaches_the_library(
    command: str, call: object, credit_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Finding 17: `--ci bootstrap` users could not reach BCa.
    argv = [command, str(credit_path), "--ci", "bootstrap", "--ci-method", "bca"]
    got = table([*argv, "--n-boot", "100", "--seed", "3"], capsys)
    expected = call(pl.read_parquet(credit_path))  # type: ignore[operator]
    assert got["ci_lower"][0] == pytest.approx(expected["ci_lower"][0], rel=1e-12)
    assert error([command, str(credit_path), "--ci-method", "bca"], capsys).endswith(
        "but no --ci; pass --ci bootstrap"
    )


def test_ci_method_bca_reaches_threshold_ci_and_disparity(
    credit_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import polars_roc as pr

    log = pl.read_parquet(credit_path)
    options = dict(ci_method="bca", n_boot=100, seed=3)
    argv = ["threshold-ci", str(credit_path), "--threshold", "0.3", "--ci-method", "bca"]
    got = table([*argv, "--n-boot", "100", "--seed", "3"], capsys)
    expected = pr.threshold_ci(log, 0.3, **options)  # type: ignore[arg-type]
    assert got["tpr_lower"][0] == pytest.approx(expected["tpr_lower"][0], rel=1e-12)
    # At 0.3 every group has enough rows treated for its leave-one-out rates.
    argv = ["disparity", str(credit_path), "--group", "segment", "--threshold", "0.3"]
    argv += ["--ci", "bootstrap", "--ci-method", "bca", "--n-boot", "100", "--seed", "3"]
    got = table(argv, capsys)
    expected = pr.disparity(log, 0.3, group="segment", ci="bootstrap", **options)  # type: ignore[arg-type]
    assert got["ci_upper"].to_list() == pytest.approx(expected["ci_upper"].to_list(), rel=1e-12)
    assert error(
        ["disparity", str(credit_path), "--group", "segment", "--ci-method", "bca"], capsys
    ).endswith("but no --ci; pass --ci bootstrap")


def pr_call(name: str, log: pl.DataFrame) -> pl.DataFrame:
    import polars_roc as pr

    function = getattr(pr, name)
    return function(log, ci="bootstrap", ci_method="bca", n_boot=100, seed=3)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_missing_group_column_is_named_by_its_flag(
    engine: str, credit_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Finding 14: "by column 'nope' not found" named an option the user did not pass (so
    # did compare-groups and compare-curves-groups, whose library role is `by`).
    for command in ("disparity", "compare-groups", "compare-curves-groups"):
        argv = [command, str(credit_path), "--group", "nope", "--engine", engine]
        groups = [] if command == "disparity" else ["--groups", "a", "b"]
        assert error([*argv, *groups], capsys).startswith("--group column 'nope' not found")


def test_ctrl_c_ends_the_command_without_a_traceback(
    credit_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import polars_roc as pr

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pr, "roc_auc", interrupted)
    # The parser binds the library function when it is built: build it after the patch.
    assert main(["auc", str(credit_path)]) == 130
    assert capsys.readouterr().err == "polars-roc: interrupted\n"


def test_the_copy_advice_keeps_the_users_own_query(
    credit_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "SELECT * FROM log WHERE segment = 'sme'"
    message = error(["auc", str(credit_path), "--sql", query, "--weight", "score"], capsys)
    assert message.endswith(
        'pass a copy as the weight (e.g. add "score" AS "score_weight" to the SELECT of '
        "--sql, and --weight score_weight)"
    )
    mended = 'SELECT *, "score" AS "score_weight" FROM log WHERE segment = \'sme\''
    got = table(["auc", str(credit_path), "--sql", mended, "--weight", "score_weight"], capsys)
    sme = pl.read_parquet(credit_path).filter(pl.col("segment") == "sme")
    copied = sme.with_columns(w=pl.col("score"))
    assert got["auc"][0] == pr.roc_auc(copied, weight="w")["auc"][0]


def test_paths_and_columns_named_like_functions_stay_as_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Bare names were read as library functions: score_table/roc_curve.parquet became
    # score_table/curve.parquet in the message.
    missing = tmp_path / "score_table" / "roc_curve.parquet"
    assert error(["auc", str(missing)], capsys) == f"file not found: {str(missing)!r}"
    log = pl.DataFrame(
        {"score": [0.1, 0.4, 0.35, 0.8] * 2, "label": [0, 0, 1, 1] * 2}
    ).with_columns(method=pl.Series(["a"] * 4 + ["b"] * 4), grade_summary=pl.lit("g"))
    path = tmp_path / "names.parquet"
    log.with_columns(
        label=pl.when(pl.col("method") == "b").then(0).otherwise("label")
    ).write_parquet(path)
    argv = ["auc", str(path), "--by", "grade_summary", "--by", "method", "--format", "csv"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0].startswith("grade_summary,method,auc")
    assert "[grade_summary='g', method='b']" in captured.err


def test_the_advice_for_null_periods_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.parquet"
    pl.DataFrame(
        {"month": ["2026-01", "2026-02", None] * 20, "score": [0.1, 0.5, 0.9] * 20}
    ).write_parquet(path)
    message = error(["psi", str(path), "--period", "month"], capsys)
    assert message == (
        "period column 'month' has 20 row(s) with a null period; leave them out with "
        """--where '"month" IS NOT NULL'"""
    )
    advice = shlex.split(message.split("leave them out with ")[1])
    assert main(["psi", str(path), "--period", "month", *advice, "--format", "csv"]) == 0
    assert "2026-02" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            ["--characteristic", "segment", "--characteristic", "segment"],
            "--characteristic names ['segment'] twice; list each column once",
        ),
        (
            ["--characteristic", "score"],
            "--characteristic names ['score'] twice (the score 'score' is compared already); "
            "list each column once",
        ),
        (
            ["--characteristic", "month"],
            "--period column 'month' is also compared (--score or --characteristic): a "
            "period's distribution over itself says nothing; leave it out of --characteristic",
        ),
    ],
)
def test_psi_names_its_characteristics_by_their_flag(
    options: list[str], expected: str, credit_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # psi's `columns=` is --characteristic (--columns picks the output's columns); the
    # score was named as compared already when it was not among the names.
    argv = ["psi", str(credit_path), "--period", "month", *options]
    assert error(argv, capsys) == expected


@pytest.mark.parametrize("engine", ENGINES)
def test_the_advice_for_null_grades_is_a_flag_and_runs(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It read "fill the nulls (e.g. pl.col('grade').fill_null(...))".
    path = tmp_path / "log.parquet"
    pl.DataFrame(
        {"grade": ["A", "B", None] * 20, "score": [0.1, 0.5, 0.9] * 20, "label": [0, 1] * 30}
    ).write_parquet(path)
    argv = ["grade-summary", str(path), "--grade", "grade", "--engine", engine]
    message = error(argv, capsys)
    assert message == (
        "column 'grade' has 20 row(s) with a null; every row needs its 'grade' value here: "
        """leave them out with --where '"grade" IS NOT NULL' (--nulls drop leaves out """
        "null scores and labels only)"
    )
    advice = shlex.split(message.split("leave them out with ")[1].split(" (")[0])
    assert table([*argv, *advice], capsys)["n"].to_list() == [40]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_null_segment_is_written_null_in_warnings(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.parquet"
    pl.DataFrame(
        {"seg": [None, None, "a", "a"], "score": [0.1, 0.2, 0.3, 0.4], "label": [1, 1, 0, 1]}
    ).write_parquet(path)
    assert main(["auc", str(path), "--by", "seg", "--engine", engine, "--format", "csv"]) == 0
    assert capsys.readouterr().err == (
        "polars-roc: warning: 1 group(s) [seg=null] hold only one class; their AUC and the "
        "rates that need both classes are null\n"
    )


def test_a_date_compared_with_a_text_gets_a_date_literal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Polars' SQL refused the text with advice for Python ("create native python ...").
    import datetime as dt

    path = tmp_path / "log.parquet"
    pl.DataFrame(
        {
            "day": [dt.date(2026, 1, 1), dt.date(2026, 2, 1), dt.date(2026, 3, 1)] * 4,
            "score": [0.1, 0.5, 0.9, 0.3] * 3,
            "label": [0, 1, 1] * 4,
        }
    ).write_parquet(path)
    where = "day >= '2026-02-01'"
    assert error(["auc", str(path), "--where", where], capsys) == (
        f"--where {where!r}: a date or time column is compared with a text; compare it "
        "with a literal of its type, e.g. DATE '2026-02-01' (TIMESTAMP '2026-02-01 "
        "12:00:00', TIME '12:00:00' or CAST('...' AS DATE) likewise)"
    )
    expected = table(["auc", str(path), "--where", "day >= DATE '2026-02-01'"], capsys)
    assert expected["n_pos"].to_list() == [8]
    for advice in ("day >= DATE '2026-02-01'", "day >= CAST('2026-02-01' AS DATE)"):
        for engine in ENGINES:
            argv = ["auc", str(path), "--where", advice, "--engine", engine]
            assert_frame_equal(table(argv, capsys), expected)


@pytest.mark.parametrize("engine", ENGINES)
def test_csv_files_that_do_not_fit_together_are_named(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The readers said "empty CSV" and "schema lengths differ", naming no file.
    folder = tmp_path / "logs"
    folder.mkdir()
    first = folder / "a.csv"
    first.write_text("score,label\n0.1,0\n0.7,1\n")
    second = folder / "b.csv"
    for text, expected in [
        ("", f"{str(second)!r} is empty, not even a header line: leave it out of the input"),
        (
            "score,label,seg\n0.2,1,x\n",
            f"{str(second)!r} has the columns ['score', 'label', 'seg'] where {str(first)!r} "
            "has ['score', 'label']: the CSV files of one log need the same header",
        ),
        (
            "label,score\n1,0.2\n",
            f"{str(second)!r} has the columns ['label', 'score'] where {str(first)!r} has "
            "['score', 'label']: the CSV files of one log need the same header",
        ),
    ]:
        second.write_text(text)
        assert error(["auc", str(folder), "--engine", engine], capsys) == expected
        assert error(["auc", str(first), str(second), "--engine", engine], capsys) == expected


@pytest.mark.parametrize("engine", ENGINES)
def test_report_says_the_filters_left_no_rows_as_the_other_commands_do(
    engine: str, credit_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("vl_convert", reason="the report needs vl-convert-python ('.[report]')")
    where = ["--where", "segment = 'nope'", "--engine", engine]
    expected = f"{str(credit_path)!r} has no rows after --where/--sql: there is nothing to evaluate"
    assert error(["auc", str(credit_path), *where], capsys) == expected
    out = str(tmp_path / "r.html")
    assert error(["report", str(credit_path), *where, "--out", out, "--quiet"], capsys) == expected


def test_a_parquet_file_lacking_a_column_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Polars advised --missing-columns insert, an option polars-roc does not have.
    folder = tmp_path / "logs"
    folder.mkdir()
    with_seg, without = folder / "a.parquet", folder / "b.parquet"
    pl.DataFrame({"score": [0.1, 0.7], "label": [0, 1], "seg": ["x", "x"]}).write_parquet(with_seg)
    pl.DataFrame({"score": [0.2, 0.6], "label": [0, 1]}).write_parquet(without)
    advice = (
        ": the files of one log need the same columns; narrow the input to the files that "
        "have them (or --engine duckdb reads a missing column as nulls)"
    )
    assert error(["auc", str(folder), "--by", "seg"], capsys) == (
        f"{str(without)!r} lacks the column(s) ['seg'] of {str(with_seg)!r}{advice}"
    )
    assert error(["auc", str(without), str(with_seg), "--where", "seg = 'x'"], capsys) == (
        f"{str(with_seg)!r} has the column(s) ['seg'], which {str(without)!r} (the first) "
        f"lacks{advice}"
    )
    assert table(["auc", str(folder), "--by", "seg", "--engine", "duckdb"], capsys)[
        "seg"
    ].to_list() == [None, "x"]
    assert table(["auc", str(folder)], capsys)["n_pos"].to_list() == [2]  # seg unused


def test_an_option_of_one_value_given_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse kept the last --score silently; options that take several (--by) still do.
    path = tmp_path / "log.csv"
    path.write_text("seg,score,score2,label\na,0.9,0.1,1\na,0.4,0.6,0\nb,0.3,0.2,1\nb,0.8,0.7,0\n")
    assert main(["auc", str(path), "--score", "score", "--score=score2"]) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: --score is given 2 times: pass it once (see: polars-roc auc --help)\n"
    )
    assert main(["auc", str(path), "--by", "seg", "--by", "score2", "--format", "csv"]) == 0
