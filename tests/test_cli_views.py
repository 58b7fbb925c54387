"""Every view a user runs on a log has a command: ``trend`` and ``drift`` with the
options of ``pr.trend`` and ``pr.drift``, ``--format`` on every table command, and the
docs' command lists held to the parser (issue 27, items 1 and 11)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.cli import CONFUSION_SUMMARY, build_parser, main

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ["polars", "duckdb"]


@pytest.fixture(scope="module")
def credit() -> pl.DataFrame:
    return pr.datasets.load_credit()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory, credit: pl.DataFrame) -> Path:
    root = tmp_path_factory.mktemp("logs")
    credit.with_columns(
        day=pl.date(2026, 1, 1) + pl.duration(days=pl.int_range(pl.len()) % 90)
    ).write_parquet(root / "log.parquet")
    return root / "log.parquet"


def run(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> pl.DataFrame:
    out = tmp_path / "out.parquet"
    assert main([*argv, "--out", str(out)]) == 0, capsys.readouterr().err
    return pl.read_parquet(out)


def commands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


CASES: list[tuple[list[str], Any]] = [
    (
        ["trend", "--period", "month", "--by", "segment", "--ci", "delong"],
        lambda log: pr.trend(log, period="month", by="segment", ci="delong"),
    ),
    (
        ["trend", "--period", "day", "--every", "1mo", "--weight", "exposure"],
        lambda log: pr.trend(log, period="day", every="1mo", weight="exposure"),
    ),
    (
        ["trend", "--period", "month", "--scores", "score", "score_challenger", "--adjust", "bh"],
        lambda log: pr.trend(
            log, period="month", scores=["score", "score_challenger"], adjust="bh"
        ),
    ),
    (
        ["trend", "--period", "month", "--by", "segment", "--estimated"],
        lambda log: pr.trend(log, period="month", by="segment", estimated=True),
    ),
    (
        ["drift", "--period", "month", "--by", "segment", "--alpha", "0.2"],
        lambda log: pr.drift(log, period="month", by="segment", alpha=0.2),
    ),
    (
        ["drift", "--period", "day", "--every", "1mo", "--baseline", "2026-02-01"],
        lambda log: pr.drift(log, period="day", every="1mo", baseline=dt.date(2026, 2, 1)),
    ),
    (
        ["drift", "--period", "month", "--baseline", "2026-03", "--conf-level", "0.9"],
        lambda log: pr.drift(log, period="month", baseline="2026-03", conf_level=0.9),
    ),
    # Finding 17: binormal smoothing and the bootstrap band from the command line.
    (
        ["auc", "--by", "segment", "--smooth", "binormal"],
        lambda log: pr.roc_auc(log, by="segment", smooth="binormal"),
    ),
    (["curve", "--smooth", "binormal"], lambda log: pr.roc_curve(log, smooth="binormal")),
    (
        ["curve", "--band", "bootstrap", "--n-boot", "40", "--seed", "2", "--conf-level", "0.9"],
        lambda log: pr.roc_curve(log, band="bootstrap", n_boot=40, seed=2, conf_level=0.9),
    ),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("argv", "library"), CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_trend_and_drift_give_the_library_tables(
    engine: str,
    argv: list[str],
    library: Any,
    logs: Path,
    tmp_path: Path,
    credit: pl.DataFrame,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = pl.read_parquet(logs)
    result = run([argv[0], str(logs), *argv[1:], "--engine", engine], tmp_path, capsys)
    assert_frame_equal(result, library(log), rel_tol=1e-12)


def test_drift_has_no_weight_and_names_a_bad_baseline(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["drift", str(logs), "--period", "month", "--weight", "exposure"]) == 2
    assert "unrecognized arguments: --weight exposure" in capsys.readouterr().err
    assert main(["drift", str(logs), "--period", "day", "--baseline", "Feb"]) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: --baseline 'Feb' does not fit the column's dtype Date\n"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_a_csv_whose_labels_have_not_come_names_its_empty_column(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Empty cells only: the column reads as text, which has no implicit positive class.
    path = tmp_path / "unlabelled.csv"
    path.write_text("month,score,label\n1,0.1,\n1,0.7,\n2,0.4,\n2,0.9,\n")
    argv = ["trend", str(path), "--period", "month", "--estimated", "--engine", engine]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "polars-roc: error: label column 'label' holds nulls only (dtype String), neither "
        "Boolean nor integer/float; only Boolean or 0/1 numeric labels have an implicit "
        "positive class. Pass --pos-label to say which value is positive\n"
    )
    result = run([*argv, "--pos-label", "1"], tmp_path, capsys)
    frame = pl.DataFrame(
        {"month": [1, 1, 2, 2], "score": [0.1, 0.7, 0.4, 0.9], "label": [None] * 4}
    )
    expected = pr.trend(frame.cast({"label": pl.Int64}), period="month", estimated=True)
    assert_frame_equal(result, expected, rel_tol=1e-12)
    assert result["auc"].is_null().all() and result["estimated_auc"].is_not_null().all()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["multiclass-auc", "--label", "segment", "--scores", "retail=score", "sme=score"],
            "--scores gives column 'score' to classes ['retail', 'sme']: each class has a "
            "score column of its own",
        ),
        (["compare", "--scores", "score", "score"], "--scores must name two different score"),
        (["auc", "--by", "segment", "--by", "segment"], "--by names a column twice"),
        (["auc", "--weight", "score", "--count", "label"], "pass either --weight or --count"),
    ],
)
def test_a_column_named_twice_gets_one_message_on_both_engines(
    argv: list[str], message: str, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # DuckDB's column check ran first: "column 'score' is given as both score and score".
    for engine in ENGINES:
        assert main([argv[0], str(logs), *argv[1:], "--engine", engine]) == 2
        assert capsys.readouterr().err.startswith(f"polars-roc: error: {message}")


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_trend_writes_every_format(
    fmt: str, logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"trend.{fmt}"
    argv = ["trend", str(logs), "--period", "month", "--format", fmt, "--out", str(out)]
    assert main(argv) == 0
    read = {
        "csv": pl.read_csv,
        "parquet": pl.read_parquet,
        "json": lambda path: pl.DataFrame(json.loads(path.read_text())),
    }[fmt]
    expected = pr.trend(pl.read_parquet(logs), period="month")
    assert_frame_equal(read(out), expected, check_dtypes=False, rel_tol=1e-12)


def test_every_table_command_offers_csv_parquet_and_json() -> None:
    tables = {name: p for name, p in commands().items() if name not in ("demo", "report")}
    assert {"trend", "drift"} <= set(tables)
    for name, parser in tables.items():
        (fmt,) = [a for a in parser._actions if a.dest == "format"]
        assert {"csv", "parquet", "json"} <= set(fmt.choices or ()), name


def test_docs_list_every_command() -> None:
    names = set(commands())
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = api[api.index("## Command line") :]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block is not None
    assert set(re.findall(r"^polars-roc ([a-z0-9-]+)", block.group(1), re.M)) == names
    cli = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    # The table of Python call -> command: the command is the second column's first word.
    assert set(re.findall(r"^\| `pr\.[^`]+` \| `([a-z0-9-]+)[ `]", cli, re.M)) == names


def test_the_entry_points_run_the_command() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'polars-roc = "polars_roc.cli:main"' in pyproject
    for module in ("polars_roc.cli", "polars_roc"):  # the package's name runs it too
        done = subprocess.run(
            [sys.executable, "-m", module, "trend", "--help"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert done.returncode == 0 and "--period" in done.stdout, done.stderr


def test_inference_commands_refuse_bad_options(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["decision-curve", str(logs), "--direction", "lower"]) == 2
    assert "--direction does not apply" in capsys.readouterr().err
    # Finding 4: exposure (1.1 .. 741.2) is no probability.
    assert main(["decision-curve", str(logs), "--score", "exposure"]) == 2
    assert capsys.readouterr().err.startswith(
        "polars-roc: error: score column 'exposure' must hold probabilities in [0, 1]"
    )
    assert main(["disparity", str(logs)]) == 2
    assert "required: --group" in capsys.readouterr().err


# The inference views (issue 26) and the views of one library call each.
VIEWS: list[tuple[list[str], Any]] = [
    (
        ["auc", "--by", "segment", "--test", "--alternative", "greater"],
        lambda log: pr.roc_auc(log, by="segment", test=True, alternative="greater"),
    ),
    (
        ["decision-curve", "--thresholds", "0.1", "0.2", "--by", "segment"],
        lambda log: pr.decision_curve(log, [0.1, 0.2], by="segment"),
    ),
    (
        ["disparity", "--group", "segment", "--threshold", "0.2", "--measures", "tpr", "fpr"],
        lambda log: pr.disparity(log, 0.2, group="segment", measures=["tpr", "fpr"]),
    ),
    (
        ["disparity", "--group", "segment", "--by", "month", "--reference", "retail"],
        lambda log: pr.disparity(log, 0.5, group="segment", by="month", reference="retail"),
    ),
    (
        ["average-precision", "--by", "segment", "--ci", "logit"],
        lambda log: pr.pr_average_precision(log, by="segment", ci="logit"),
    ),
    (["brier", "--by", "segment"], lambda log: pr.brier_decomposition(log, by="segment")),
    (
        ["calibration-error", "--n-bins", "5", "--strategy", "quantile"],
        lambda log: pr.calibration_error(log, 5, strategy="quantile"),
    ),
    (
        ["calibration-test", "--method", "spiegelhalter", "--by", "segment"],
        lambda log: pr.calibration_test(log, "spiegelhalter", by="segment"),
    ),
    (["grade-summary", "--grade", "segment"], lambda log: pr.grade_summary(log, "segment")),
    (
        ["ks", "--by", "segment", "--weight", "exposure"],
        lambda log: pr.ks_statistic(log, by="segment", weight="exposure"),
    ),
    (["det", "--drop-intermediate"], lambda log: pr.det_curve(log, drop_intermediate=True)),
    (["hull", "--points", "all"], lambda log: pr.roc_hull(log, points="all")),
    (["hull", "--auc", "--by", "segment"], lambda log: pr.hull_auc(log, by="segment")),
    (["lift", "--by", "segment"], lambda log: pr.lift_curve(log, by="segment")),
    (
        [
            "threshold-ci",
            "--threshold",
            "0.1",
            "0.2",
            "--measures",
            "tpr",
            "ppv",
            "--n-boot",
            "20",
            "--seed",
            "1",
        ],
        lambda log: pr.threshold_ci(log, [0.1, 0.2], measures=["tpr", "ppv"], n_boot=20, seed=1),
    ),
    (
        ["compare-groups", "--group", "segment", "--groups", "retail", "sme", "--by", "month"],
        lambda log: pr.compare_groups(log, by="segment", groups=("retail", "sme"), within="month"),
    ),
    (
        # ties="first" ranks ties by row order and the permutations permute rows, and a
        # DuckDB relation keeps no order: the statistic (average ties) is what both give.
        [
            "compare-curves",
            "--scores",
            "score",
            "score_challenger",
            "--ties",
            "average",
            "--n-boot",
            "20",
            "--columns",
            "model_a,model_b,statistic,n_pos,n_neg",
        ],
        lambda log: pr.compare_curves(
            log, ["score", "score_challenger"], ties="average", n_boot=20
        ).drop("p_value", "n_permutations"),
    ),
    (["prbe", "--by", "segment"], lambda log: pr.prbe(log, by="segment")),
    (
        [
            "multiclass-auc",
            "--label",
            "segment",
            "--method",
            "hand_till",
            "--scores",
            "retail=score",
            "sme=score_challenger",
            "corporate=exposure",
        ],
        lambda log: pr.multiclass_auc(
            log,
            {"retail": "score", "sme": "score_challenger", "corporate": "exposure"},
            label="segment",
            method="hand_till",
        ),
    ),
]


# The views that had no command (tpr_at, pr_auc, optimal_cutpoint, ...). PREDICTED: a
# predicted class column, null where the score is low (left out with --nulls drop).
PREDICTED = "SELECT *, CASE WHEN score > 0.2 THEN 'sme' END AS pred FROM log"
# A long log, a row per loan and model.
LONG = (
    "SELECT loan_id, segment, score, label, 1 AS model FROM log UNION ALL "
    "SELECT loan_id, segment, score_challenger AS score, label, 2 AS model FROM log"
)


BOOT = ("--ci", "bootstrap", "--n-boot", "20", "--seed", "4")


def _long(log: pl.DataFrame) -> pl.DataFrame:
    """LONG in Polars."""
    return pl.concat(
        [
            log.select("loan_id", "segment", "score", "label", model=pl.lit(1)),
            log.select("loan_id", "segment", "label", score="score_challenger", model=pl.lit(2)),
        ],
        how="diagonal",
    )


VIEWS += [
    (
        ["tpr-at", "--fpr", "0.1", "0.2", "--by", "segment"],
        lambda log: pr.tpr_at(log, [0.1, 0.2], by="segment"),
    ),
    (
        ["fpr-at", "--tpr", "0.5", "--ci", "bootstrap", "--n-boot", "20", "--seed", "3"],
        lambda log: pr.fpr_at(log, 0.5, ci="bootstrap", n_boot=20, seed=3),
    ),
    (
        ["pr-auc", "--by", "segment", "--method", "trapezoid", "--ci", "logit"],
        lambda log: pr.pr_auc(log, by="segment", method="trapezoid", ci="logit"),
    ),
    (
        ["optimal-cutpoint", "--metric", "f_beta", "--beta", "2", "--by", "segment"],
        lambda log: pr.optimal_cutpoint(log, "f_beta", beta=2.0, by="segment").select(
            "segment", *CONFUSION_SUMMARY, "f_beta"
        ),
    ),
    (
        [
            *("optimal-cutpoint", "--metric", "cost", "--goal", "minimize", "--cost-fn", "5"),
            *("--midpoint", "--weight", "exposure", "--all-measures"),
        ],
        lambda log: pr.optimal_cutpoint(
            log, "cost", goal="minimize", cost_fn=5.0, midpoint=True, weight="exposure"
        ),
    ),
    (
        ["optimal-point", "--cost-fn", "4", "--prevalence", "0.2", "--by", "segment"],
        lambda log: pr.optimal_point(log, cost_fn=4.0, prevalence=0.2, by="segment"),
    ),
    (
        ["score-table", "--by", "segment", "--bins", "20"],
        lambda log: pr.score_table(log, by="segment", bins=20),
    ),
    (
        ["average-curve", "--fold", "segment", "--grid", "11", "--band", "quantile"],
        lambda log: pr.average_curve(log, fold="segment", grid=11, band="quantile"),
    ),
    (
        ["fold-summary", "--fold", "month", "--threshold", "0.1", "--metrics", "tpr", "f1"],
        lambda log: pr.fold_summary(log, fold="month", threshold=0.1, metrics=["tpr", "f1"]),
    ),
    (
        ["disparity-summary", "--group", "segment", "--threshold", "0.1", "--by", "month"],
        lambda log: pr.disparity_summary(log, 0.1, group="segment", by="month"),
    ),
    (
        # As compare-curves: the statistic, not the permutations of unordered rows.
        [
            *("compare-curves-groups", "--group", "segment", "--groups", "sme", "retail"),
            *("--n-boot", "20", "--ties", "average", "--columns", "group_a,group_b,statistic"),
        ],
        lambda log: pr.compare_curves_groups(
            log, by="segment", groups=("sme", "retail"), n_boot=20, ties="average"
        ).select("group_a", "group_b", "statistic"),
    ),
    (
        [
            *("multiclass-confusion", "--label", "segment", "--normalize", "true"),
            *("--scores", "retail=score", "sme=score_challenger", "corporate=exposure"),
        ],
        lambda log: pr.multiclass_confusion(
            log,
            {"retail": "score", "sme": "score_challenger", "corporate": "exposure"},
            label="segment",
            normalize="true",
        ),
    ),
    (
        [
            *(
                "multiclass-measures",
                "--label",
                "segment",
                "--predicted",
                "pred",
                "--nulls",
                "drop",
            ),
            *("--classes", "sme", "retail", "corporate", "--by", "month", "--sql", PREDICTED),
        ],
        lambda log: pr.multiclass_measures(
            log.with_columns(pred=pl.when(pl.col("score") > 0.2).then(pl.lit("sme"))),
            predicted="pred",
            classes=["sme", "retail", "corporate"],
            label="segment",
            by="month",
            nulls="drop",
        ),
    ),
    (
        [
            *(
                "multiclass-agreement",
                "--label",
                "segment",
                "--predicted",
                "pred",
                "--nulls",
                "drop",
            ),
            *("--classes", "sme", "retail", "corporate", "--kappa-weights", "linear"),
            *("--sql", PREDICTED),
        ],
        lambda log: pr.multiclass_agreement(
            log.with_columns(pred=pl.when(pl.col("score") > 0.2).then(pl.lit("sme"))),
            predicted="pred",
            classes=["sme", "retail", "corporate"],
            label="segment",
            kappa_weights="linear",
            nulls="drop",
        ),
    ),
    (
        [
            *("compare-long", "--models", "1", "2", "--case", "loan_id"),
            *("--by", "segment", "--sql", LONG),
        ],
        lambda log: pr.compare_long(_long(log), (1, 2), case="loan_id", by="segment"),
    ),
    (
        [
            *("bootstrap632", "--fold", "month", "--in-bag", "bag", "--threshold", "0.1"),
            *(
                "--metrics",
                "tpr",
                "--by",
                "segment",
                "--sql",
                "SELECT *, loan_id % 3 AS bag FROM log",
            ),
        ],
        lambda log: pr.bootstrap632_summary(
            log.with_columns(bag=pl.col("loan_id") % 3),
            fold="month",
            in_bag="bag",
            threshold=0.1,
            metrics=["tpr"],
            by="segment",
        ),
    ),
    # Options of the library the commands lacked: partial areas by range, rates, BCa.
    # (BOOT: those of a rate or a partial area are bootstrap tests.)
    (
        ["auc", "--fpr-range", "0", "0.2", "--no-standardize", "--by", "segment"],
        lambda log: pr.roc_auc(log, fpr_range=(0.0, 0.2), standardize=False, by="segment"),
    ),
    (["auc", "--tpr-range", "0.8", "1"], lambda log: pr.roc_auc(log, tpr_range=(0.8, 1.0))),
    (
        [
            *("compare", "--scores", "score", "score_challenger", "--at-fpr", "0.1"),
            *("--alternative", "greater", "--by", "segment", *BOOT),
        ],
        lambda log: pr.compare(
            log,
            ["score", "score_challenger"],
            at_fpr=0.1,
            alternative="greater",
            by="segment",
            ci="bootstrap",
            n_boot=20,
            seed=4,
        ),
    ),
    (
        [
            *("compare", "--scores", "score", "score_challenger", "--ci", "bootstrap"),
            *("--ci-method", "bca", "--n-boot", "30", "--seed", "1", "--fpr-range", "0", "0.3"),
        ],
        lambda log: pr.compare(
            log,
            ["score", "score_challenger"],
            ci="bootstrap",
            ci_method="bca",
            n_boot=30,
            seed=1,
            fpr_range=(0.0, 0.3),
        ),
    ),
    (
        [
            *("compare-groups", "--group", "segment", "--groups", "sme", "retail"),
            *("--tpr-range", "0.5", "1", *BOOT),
        ],
        lambda log: pr.compare_groups(
            log,
            by="segment",
            groups=("sme", "retail"),
            tpr_range=(0.5, 1.0),
            ci="bootstrap",
            n_boot=20,
            seed=4,
        ),
    ),
    (
        [
            *("compare-long", "--models", "1", "2", "--case", "loan_id"),
            *("--at-tpr", "0.5", "--sql", LONG, *BOOT),
        ],
        lambda log: pr.compare_long(
            _long(log), (1, 2), case="loan_id", at_tpr=0.5, ci="bootstrap", n_boot=20, seed=4
        ),
    ),
    (
        [
            *("multiclass-measures", "--label", "segment", "--beta", "2"),
            *("--scores", "retail=score", "sme=score_challenger", "corporate=exposure"),
        ],
        lambda log: pr.multiclass_measures(
            log,
            {"retail": "score", "sme": "score_challenger", "corporate": "exposure"},
            label="segment",
            beta=2.0,
        ),
    ),
    (
        ["curve", "--bins", "50", "--by", "segment"],
        lambda log: pr.roc_curve(log, bins=50, by="segment"),
    ),
    (["pr", "--bins", "50"], lambda log: pr.pr_curve(log, bins=50)),
    (
        ["compare-power", "--scores", "score", "score_challenger", "--power", "0.8"],
        lambda log: pr.compare_power(log, ["score", "score_challenger"], power=0.8),
    ),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("argv", "call"), VIEWS, ids=lambda v: " ".join(v[:2]) if isinstance(v, list) else ""
)
def test_view_commands_give_the_library_tables(
    argv: list[str],
    call: Any,
    engine: str,
    logs: Path,
    credit: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fmt = "json" if len(argv) % 2 else "csv"  # both formats, over the cases
    out = tmp_path / f"view.{fmt}"
    argv = [argv[0], str(logs), *argv[1:], "--engine", engine, "--out", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    got = pl.read_csv(out) if fmt == "csv" else pl.DataFrame(json.loads(out.read_text()))
    expected = call(credit)
    if fmt == "json":  # JSON has no infinity
        expected = expected.with_columns(pl.selectors.float().replace(float("inf"), None))
    assert_frame_equal(got, expected, check_dtypes=False, rel_tol=1e-9)


@pytest.fixture(scope="module")
def database(logs: Path) -> Path:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed ('.[duckdb]')")
    path = logs.parent / "log.duckdb"
    with duckdb.connect(str(path)) as connection:
        connection.execute(f"CREATE TABLE loans AS SELECT * FROM '{logs}'")
    return path


@pytest.mark.parametrize(
    ("case", "argv"), list(enumerate(argv for argv, _ in VIEWS)), ids=lambda v: str(v)[:40]
)
def test_view_commands_read_a_duckdb_database_as_its_rows_in_parquet(
    case: int,
    argv: list[str],
    logs: Path,
    database: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each command on a table of a DuckDB database (either engine, by turns) writes the
    table it writes for the same rows in Parquet."""
    engine = ENGINES[case % 2]
    expected = run([argv[0], str(logs), *argv[1:]], tmp_path, capsys)
    got = run([argv[0], str(database), *argv[1:], "--engine", engine], tmp_path, capsys)
    assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["compare-groups", "--group", "segment"],
            "the following arguments are required: --groups",
        ),
        (["multiclass-auc", "--scores", "retail"], "--scores: expected CLASS=COL, got 'retail'"),
        (
            ["multiclass-auc", "--label", "segment", "--scores", "sme=score", "--pos-label", "sme"],
            "--pos-label does not apply",
        ),
        (["hull", "--auc", "--points", "all"], "--points and --bins do not apply"),
        (["calibration-test", "--method", "chi2"], "argument --method: invalid choice: 'chi2'"),
        (["brier", "--direction", "lower"], "unrecognized arguments: --direction lower"),
        (["compare-groups", "--group", "segment", "--groups", "retail", "x"], "'x'"),
    ],
)
def test_view_commands_refuse_bad_options_in_one_line(
    argv: list[str], message: str, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([argv[0], str(logs), *argv[1:]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("polars-roc: error: ") and err.count("\n") == 1, err
    assert message in err


def test_bootstrap_cutpoint_command_gives_the_library_table(
    logs: Path, credit: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Polars only: the replicates resample rows, which a DuckDB relation keeps in no order.
    argv = ["bootstrap-cutpoint", str(logs), "--n-boot", "10", "--seed", "1", "--summary"]
    got = run([*argv, "--by", "segment", "--metric", "f1"], tmp_path, capsys)
    expected = pr.bootstrap_cutpoint(credit, "f1", n_boot=10, seed=1, summary=True, by="segment")
    assert_frame_equal(got, expected, check_dtypes=False, rel_tol=1e-9)
