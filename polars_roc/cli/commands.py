"""The analysis commands (auc, confusion, curve, pr, ...): each one parser and one
library call, and the parser of ``polars-roc`` that holds them all."""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, get_args

import polars as pl

import polars_roc as pr
from polars_roc.cli.inputs import (
    InputError,
    check_numeric_text,
    duckdb_relation,
    no_rows,
    read_input,
    without_nan,
)
from polars_roc.cli.options import (
    Parser,
    add_inference_options,
    analysis,
    coerce_value,
    library_options,
)
from polars_roc.cli.output import SUFFIX_FORMATS, emit, print_table
from polars_roc.cli.progress import Progress
from polars_roc.cli.report_command import add_report_command
from polars_roc.core.counting import source_schema
from polars_roc.core.validate import missing_column
from polars_roc.evaluation.multiclass import MulticlassAverage, MulticlassMethod, PairDirection
from polars_roc.exceptions import RocOptionError
from polars_roc.stats.alternative import Alternative
from polars_roc.stats.options import CiMethod
from polars_roc.stats.venkatraman import RankTies
from polars_roc.views.calibration import Strategy, TestMethod
from polars_roc.views.hull import HullPoints


def _input(args: argparse.Namespace) -> tuple[pl.LazyFrame, Progress]:
    progress = Progress(args.progress)
    frame = read_input(
        args.paths, where=args.where, sql=args.sql, progress=progress, null_values=args.null_values
    )
    check_numeric_text(
        frame,
        {"score": getattr(args, "score", None), "weight": getattr(args, "weight", None)},
        args.paths,
    )
    return without_nan(frame, _scores(args)) if args.nan == "drop" else frame, progress


def _scores(args: argparse.Namespace) -> list[str]:
    # multiclass-auc's --scores are CLASS=COL.
    scores = getattr(args, "scores", None) or [args.score]
    return [name.rsplit("=", 1)[-1] for name in scores]


def _compute(
    table: pl.LazyFrame | pl.DataFrame,
    progress: Progress,
    args: argparse.Namespace,
    *,
    resampling: bool = False,
) -> pl.DataFrame:
    """Run the plan: the one place where the rows are counted."""
    if isinstance(table, pl.LazyFrame):
        message = "counting and resampling" if resampling else "counting"
        with progress.stage(message, ticking=not (resampling and progress.library)):
            table = table.collect()
    # Every view of rows has a row per group at least: none means no rows came in.
    if table.height == 0:
        raise InputError(no_rows(args.paths, args.where, args.sql))
    return table


def _duckdb_input(args: argparse.Namespace) -> tuple[Any, Progress]:
    """``--engine duckdb``: the command's input as a DuckDB relation (see
    :func:`duckdb_relation`). The rows stay in DuckDB; the library counts them there
    (see docs/big-logs.md)."""
    relation = duckdb_relation(
        args.paths, where=args.where, sql=args.sql, null_values=args.null_values
    )
    # CSV: a score read as text gets the Polars path's advice (reads only when it is text).
    columns = {"score": getattr(args, "score", None), "weight": getattr(args, "weight", None)}
    check_numeric_text(relation.pl(lazy=True), columns, args.paths)
    if args.nan == "drop":
        relation = without_nan(relation, _scores(args))
    return relation, Progress(args.progress)


# A library call of a command: (log, the shared options, progress) -> its table.
_Analysis = Callable[[Any, dict[str, Any], Progress], "pl.DataFrame | pl.LazyFrame"]


def _evaluate(
    args: argparse.Namespace,
    call: _Analysis,
    *,
    resampling: bool = False,
) -> pl.DataFrame:
    """Read the command's log, call the library on it, count: every analysis command's path.

    ``--engine polars`` (the default): Polars scans the files lazily and the library's
    plan runs in :func:`_compute`. ``--engine duckdb``: the log is a DuckDB relation
    (:func:`_duckdb_input`); the library counts in DuckDB during the call and only the
    counts come back, so the same options give the same table.
    """
    if args.engine == "polars":
        frame, progress = _input(args)
        table = call(frame, library_options(args, frame), progress)
        return _compute(table, progress, args, resampling=resampling)
    frame, progress = _duckdb_input(args)
    empty = frame.limit(0).pl().lazy()  # the relation's schema, no row read
    schema = empty.collect_schema()
    # The columns of the options, checked before DuckDB runs and named by role as the
    # Polars path names them (the library's engine check knows no roles).
    roles = [*(("score", name) for name in _scores(args)), ("label", getattr(args, "label", None))]
    roles += [("weight", getattr(args, "weight", None)), ("count", args.count)]
    roles += [("by", name) for name in args.by or []]
    for role, name in roles:
        if name is not None and name not in schema:
            raise missing_column(role, name, schema)
    options = library_options(args, empty)
    message = "counting in DuckDB" + (" and resampling" if resampling else "")
    with progress.stage(message, ticking=not (resampling and progress.library)):
        table = call(frame, options, progress)
    return _compute(table, progress, args)


def _bootstrap(args: argparse.Namespace) -> bool:
    return args.ci == "bootstrap"


def _runs(
    parser: argparse.ArgumentParser,
    function: Callable[..., Any],
    *,
    resampling: Callable[[argparse.Namespace], bool] | None = None,
) -> None:
    """Make ``parser``'s command one call of ``function``: each option the command adds
    beyond the shared ones reaches it under its dest; one not given (None) leaves the
    library's default. ``resampling(args)``: the call bootstraps (progress shows it)."""
    shared = parser.get_default("shared_options") | {"all_measures"}
    own = tuple(a.dest for a in parser._actions if a.dest not in shared)
    parser.set_defaults(func=_run, function=function, keywords=own, resampling=resampling)


def _run(args: argparse.Namespace) -> int:
    resampling = args.resampling is not None and args.resampling(args)
    takes_progress = "progress" in inspect.signature(args.function).parameters

    def call(frame: Any, options: dict[str, Any], progress: Progress) -> Any:
        own = {d: getattr(args, d) for d in args.keywords if getattr(args, d) is not None}
        if resampling and takes_progress:
            own["progress"] = progress.library
        return args.function(frame, **options, **own)

    table = _evaluate(args, call, resampling=resampling)
    # --all-measures: the command's table is a confusion table (estimate's when given --threshold).
    emit(_summary(table, args) if "all_measures" in args and "tp" in table.columns else table, args)
    return 0


def _with_baseline(function: Callable[..., Any], frame: Any, **options: Any) -> Any:
    """drift and psi: ``--baseline`` text as a value of the ``--period`` column."""
    dtype = source_schema(frame).get(options["period"])
    if options["baseline"] != "first" and dtype is not None:
        options["baseline"] = coerce_value("--baseline", options["baseline"], dtype)
    return function(frame, **options)


def _psi(frame: Any, *, characteristics: list[str] | None = None, **options: Any) -> Any:
    # psi's `columns` would clash with the output option --columns.
    return _with_baseline(pr.psi, frame, columns=characteristics, **options)


def _estimate(frame: Any, *, threshold: list[float] | None = None, **options: Any) -> Any:
    if threshold is None:
        return pr.estimated_auc(frame, **options)
    if "bins" in options:
        msg = "--bins buckets the scores of the AUC: with --threshold it does not apply"
        raise ValueError(msg)
    return pr.estimated_confusion(frame, threshold, **options)


def _decision_curve(frame: Any, *, direction: str = "higher", **options: Any) -> Any:
    # A view of probabilities, which takes no direction.
    if direction != "higher":
        msg = "decision-curve reads the score as a probability: --direction does not apply"
        raise ValueError(msg)
    return pr.decision_curve(frame, **options)


CONFUSION_SUMMARY = (
    "threshold",
    "tp",
    "fp",
    "fn",
    "tn",
    "tpr",
    "fpr",
    "ppv",
    "npv",
    "accuracy",
    "f1",
    "kappa",
    "kappa_level",
    "mcc",
)


def add_all_measures(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--all-measures",
        action="store_true",
        help=f"write every measure column (default: {', '.join(CONFUSION_SUMMARY)})",
    )


def _summary(table: pl.DataFrame, args: argparse.Namespace) -> pl.DataFrame:
    """The usual measures of a confusion table, after its group columns (those before
    ``threshold``); every one with ``--all-measures``, and ``--columns`` picks among all."""
    if args.all_measures or args.columns:
        return table
    keys = table.columns[: table.columns.index("threshold")]
    extra = [column for column in ("criterion",) if column in table.columns]
    return table.select(*keys, *CONFUSION_SUMMARY, *extra)


def _run_confusion(args: argparse.Namespace) -> int:
    threshold = args.threshold if args.thresholds is None else _thresholds_file(args.thresholds)
    try:
        table = _evaluate(
            args,
            lambda frame, options, _: pr.confusion_matrix(
                frame, threshold, **options, prevalence=args.prevalence
            ),
        )
    except RocOptionError as err:
        if args.thresholds is None:
            raise
        # The library's `threshold` is the file here (not --threshold).
        msg = str(err).replace("`threshold`", f"--thresholds {args.thresholds}")
        msg = msg.replace("(e.g. with .filter())", "(e.g. with --where)")
        raise InputError(msg) from err
    table = _summary(table, args)
    fmt = args.format or SUFFIX_FORMATS.get(Path(args.out or "").suffix.lower(), "table")
    if args.all_measures and not args.columns and fmt == "table":
        # Some 35 columns do not fit a terminal: one row per measure instead.
        print(
            "(every measure: one row per measure, one column per segment and threshold; "
            "--format csv gives one row per segment and threshold)",
            file=sys.stderr,
        )
        table = _transposed(table, args.by or [])
    emit(table, args)
    return 0


def _thresholds_file(path: str) -> pl.DataFrame:
    """``--thresholds``: a CSV or Parquet table of ``threshold`` and the ``--by`` columns.

    A CSV's segment columns are read as text, so that "01" stays "01"; the library
    converts them to the log's dtypes (dates parsed) and says which value does not fit.
    """
    suffix = Path(path).suffix.lower()
    if suffix in (".parquet", ".pq"):
        return pl.read_parquet(path)
    if suffix != ".csv":
        msg = f"--thresholds {path}: expected a .csv or .parquet file, got {suffix or 'none'!r}"
        raise InputError(msg)
    table = pl.read_csv(path, infer_schema=False)
    if "threshold" not in table.columns:
        return table  # the library names what is missing
    numbers = pl.col("threshold").cast(pl.Float64, strict=False)
    text = table.filter(numbers.is_null() & pl.col("threshold").is_not_null())["threshold"]
    if text.len():
        shown = text.head(5).to_list()
        msg = f"--thresholds {path}: column 'threshold' has non-numeric value(s) {shown!r}"
        raise InputError(msg)
    return table.with_columns(numbers)


def _transposed(table: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """``table`` with one row per measure and one column per segment and threshold."""
    names = (
        table.select(
            pl.concat_str(
                [
                    *(pl.col(c).cast(pl.String).fill_null("null") for c in by),
                    pl.lit("threshold ") + pl.col("threshold").cast(pl.String),
                ],
                separator=", ",
            )
        )
        .to_series()
        .to_list()
    )
    values = table.drop(*by, "threshold").select(
        pl.col(c).round(6).cast(pl.String) if dtype.is_float() else pl.col(c).cast(pl.String)
        for c, dtype in table.drop(*by, "threshold").schema.items()
    )
    return values.transpose(include_header=True, header_name="measure", column_names=names)


def _add_smooth(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--smooth",
        choices=["binormal"],
        help=f"{what} of the binormal fit (pROC's smooth(method = 'binormal'))",
    )


def _run_demo(args: argparse.Namespace) -> int:
    log = pr.datasets.load_credit()
    if args.out is not None:
        # A partitioned copy to try the commands on, laid out as logs usually are.
        log.write_parquet(args.out, partition_by="month")
        print(
            f"wrote the example credit log ({log.height} loans) to {args.out}, "
            f"hive-partitioned by month; try: polars-roc auc {args.out} --by segment"
        )
        return 0
    print(f"Example credit-scoring log: {log.height} loans, positive class = default\n")
    print("AUC per segment:")
    print_table(pr.roc_auc(log, by="segment"), "table")
    print(f"\nConfusion at threshold {args.threshold} per segment:")
    table = pr.confusion_matrix(log, args.threshold, by="segment")
    print_table(table.select("segment", *CONFUSION_SUMMARY), "table")
    print("\nSeed 001 (Fawcett's 20 instances): AUC and the point at threshold 0.54")
    fawcett = pr.datasets.load_fawcett()
    print_table(pr.roc_auc(fawcett, pos_label="p"), "table")
    point = pr.confusion_matrix(fawcett, 0.54, pos_label="p")
    print_table(point.select("threshold", "tpr", "fpr", "accuracy"), "table")
    return 0


def _add_auc(commands: Any) -> None:
    auc = analysis(commands, "auc", "AUC per segment, with a confidence interval on request")
    auc.add_argument(
        "--ci",
        choices=["delong", "bootstrap"],
        help="add auc_se, ci_lower, ci_upper by DeLong's method or a stratified bootstrap",
    )
    add_inference_options(auc, ci_method=True)
    auc.add_argument(
        "--max-fpr",
        type=float,
        metavar="F",
        help="partial AUC over fpr in [0, F], McClish-standardized",
    )
    auc.add_argument(
        "--bins",
        type=int,
        metavar="N",
        help="count into N equal-width buckets of the score per segment "
        "(no sort, the same buckets on every engine; e.g. 8192) and add auc_bound, "
        "a certified bound on the distance to the exact AUC",
    )
    _add_auc_test(auc)
    _add_smooth(auc, "the area")
    _runs(auc, pr.roc_auc, resampling=_bootstrap)


def _add_confusion(commands: Any) -> None:
    confusion = analysis(commands, "confusion", "confusion counts and measures at thresholds")
    cut = confusion.add_mutually_exclusive_group(required=True)
    cut.add_argument(
        "--threshold",
        type=float,
        action="append",
        help="predicted positive when score >= threshold; repeat for several",
    )
    cut.add_argument(
        "--thresholds",
        metavar="FILE",
        help="a threshold per segment: a CSV or Parquet table with a 'threshold' column "
        "and the --by columns (e.g. the output of best-threshold --by); every segment of "
        "the log needs one",
    )
    confusion.add_argument(
        "--prevalence",
        type=float,
        metavar="P",
        help="the population's share of positives (0 < P < 1) when the log's is not: "
        "ppv, npv, fdr, for, accuracy and error_rate at that prevalence",
    )
    add_all_measures(confusion)
    confusion.set_defaults(func=_run_confusion)


def _add_curve(commands: Any) -> None:
    curve = analysis(commands, "curve", "ROC curve points per segment (roc_curve)")
    curve.add_argument(
        "--drop-intermediate",
        action="store_true",
        help="drop the points on a straight segment between their neighbours (same shape and area)",
    )
    curve.add_argument(
        "--cost-fp",
        type=float,
        help="add cost and expected_cost columns with this false-positive "
        "cost (the other one defaults to 1)",
    )
    curve.add_argument("--cost-fn", type=float, help="false-negative cost, as --cost-fp")
    _add_smooth(curve, "instead of the points, the 512 points")
    curve.add_argument(
        "--band",
        choices=["bootstrap"],
        help="instead of the points, a simultaneous bootstrap confidence band of tpr "
        "over a grid of fpr (Campbell 1994)",
    )
    add_inference_options(curve)
    _runs(curve, pr.roc_curve, resampling=lambda args: args.band == "bootstrap")


def _add_pr(commands: Any) -> None:
    precision = analysis(commands, "pr", "precision-recall curve per segment (pr_curve)")
    precision.add_argument(
        "--drop-intermediate",
        action="store_true",
        help="drop the points that change neither precision's envelope nor the area",
    )
    _runs(precision, pr.pr_curve)


def _add_best_threshold(commands: Any) -> None:
    best = analysis(
        commands,
        "best-threshold",
        "best threshold per segment for a criterion, with every measure at it",
    )
    best.add_argument(
        "--method",
        choices=["youden", "closest_topleft", "cost"],
        default="youden",
        help="maximise Youden's J (default), minimise the distance to the "
        "top-left corner, or minimise the expected cost",
    )
    best.add_argument("--cost-fp", type=float, help="cost of a false positive")
    best.add_argument("--cost-fn", type=float, help="cost of a false negative")
    best.add_argument(
        "--prevalence",
        type=float,
        help="share of positives to weigh the costs with (default: the data's)",
    )
    best.add_argument(
        "--ties",
        choices=["first", "all"],
        default="first",
        help="equally good thresholds: keep the first (highest) or all",
    )
    best.add_argument(
        "--midpoint",
        action="store_true",
        help="report the threshold halfway to the next lower score (as pROC and cutpointr)",
    )
    add_all_measures(best)
    _runs(best, pr.best_threshold)


def _add_threshold_at(commands: Any) -> None:
    at = analysis(
        commands,
        "threshold-at",
        "threshold per segment meeting a target --fpr, --tpr or --precision",
    )
    at.add_argument(
        "--fpr", type=float, help="among thresholds with fpr <= this, the one with the highest tpr"
    )
    at.add_argument(
        "--tpr", type=float, help="among thresholds with tpr >= this, the one with the lowest fpr"
    )
    at.add_argument(
        "--precision", type=float, help="among thresholds with precision >= this, the highest tpr"
    )
    add_all_measures(at)
    _runs(at, pr.threshold_at)


def _add_compare(commands: Any) -> None:
    compare = analysis(
        commands,
        "compare",
        "paired test of two scores' AUCs on the same rows, per segment",
        score=False,
    )
    compare.add_argument(
        "--scores",
        nargs=2,
        required=True,
        metavar=("A", "B"),
        help="the two score columns to compare (diff = auc A - auc B)",
    )
    compare.add_argument(
        "--ci",
        "--method",
        dest="ci",
        choices=["delong", "bootstrap"],
        default="delong",
        help="DeLong's paired test (default) or a paired bootstrap (--method is the old name)",
    )
    add_inference_options(compare)
    compare.add_argument(
        "--max-fpr", type=float, metavar="F", help="compare partial AUCs over fpr in [0, F]"
    )
    _runs(compare, pr.compare, resampling=_bootstrap)


def _add_gains(commands: Any) -> None:
    gains = analysis(
        commands, "gains", "gains table by score quantile per segment (lift, KS per bin)"
    )
    gains.add_argument(
        "--n-bins",
        type=int,
        default=10,
        help="number of score quantile bins (default: 10, deciles)",
    )
    _runs(gains, pr.gains_table)


def _add_period_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--period",
        required=True,
        metavar="COL",
        help="period column: Date, Datetime, ISO text such as 2026-01, or integer",
    )
    parser.add_argument(
        "--every",
        metavar="DURATION",
        help="bin a Date/Datetime period into calendar windows labelled by their start: "
        "1mo, 1w, 1q, ...",
    )


def _add_adjust_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--adjust",
        choices=["holm", "bonferroni", "bh", "none"],
        default="holm",
        help="adjustment of the p-values for many tests (default: holm)",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="flagged is p_adjusted < alpha (default: 0.05)",
    )


def _add_trend(commands: Any) -> None:
    trend = analysis(
        commands, "trend", "AUC, Gini and KS per period (and segment), with intervals on request"
    )
    _add_period_options(trend)
    trend.add_argument(
        "--ci",
        choices=["delong", "bootstrap"],
        help="add auc_se, ci_lower, ci_upper (and the Gini's) by DeLong's method or a bootstrap",
    )
    add_inference_options(trend)
    trend.add_argument(
        "--scores",
        nargs=2,
        metavar=("A", "B"),
        help="champion and challenger: their paired DeLong test per period instead",
    )
    _add_adjust_options(trend)
    _runs(trend, pr.trend, resampling=_bootstrap)


def _add_drift(commands: Any) -> None:
    drift = analysis(
        commands,
        "drift",
        "each period's AUC tested against a baseline period's, per segment (DeLong)",
        weight=False,
    )
    _add_period_options(drift)
    drift.add_argument(
        "--baseline",
        default="first",
        metavar="PERIOD",
        help="the period the others are tested against, a value of --period (after "
        "--every); default: each segment's first",
    )
    add_inference_options(drift, n_boot=False)
    _add_adjust_options(drift)
    _runs(drift, partial(_with_baseline, pr.drift))


def _add_n_bins(parser: argparse.ArgumentParser, what: str, default: int | None = 10) -> None:
    # default None: the library's 10, so that an --n-bins given where it has no use is refused.
    parser.add_argument(
        "--n-bins", type=int, default=default, metavar="N", help=f"{what} (default: 10)"
    )


def _add_calibration(commands: Any) -> None:
    calibration = analysis(
        commands,
        "calibration",
        "reliability table per segment: mean predicted probability against observed "
        "rate per bin (scores must be probabilities in [0, 1])",
        direction=False,
    )
    _add_n_bins(calibration, "number of bins of [0, 1] or of the scores", default=None)
    calibration.add_argument(
        "--strategy",
        choices=["uniform", "quantile"],
        default=None,
        help="uniform: equal-width bins of [0, 1] (default); quantile: bins of about "
        "equal count at the segment's score percentiles (scikit-learn's bins; with "
        "--weight, at cumulative shares of weight)",
    )
    calibration.add_argument(
        "--grade",
        metavar="COL",
        help="a column of rating grades (no nulls) as the bins instead; not with "
        "--n-bins or --strategy",
    )
    calibration.add_argument(
        "--ci",
        choices=["wilson", "jeffreys"],
        help="add ci_lower, ci_upper: an interval of each bin's observed rate",
    )
    add_inference_options(calibration, n_boot=False)
    _runs(calibration, pr.calibration_curve)


def _add_grade_test(commands: Any) -> None:
    grades = analysis(
        commands,
        "grade-test",
        "PD back-test per rating grade: is each grade's mean PD (the score) too low "
        "for its defaults (the positives)?",
        direction=False,
    )
    grades.add_argument(
        "--grade", required=True, metavar="COL", help="column of rating grades (no nulls)"
    )
    grades.add_argument(
        "--method",
        choices=["jeffreys", "binomial"],
        default="jeffreys",
        help="one-sided Jeffreys test (default, as the ECB's validation reporting) or "
        "the exact binomial tail",
    )
    grades.add_argument(
        "--conf-level",
        type=float,
        default=0.95,
        metavar="L",
        help="level of the Jeffreys interval of the observed rate; reject is "
        "p_value < 1 - L (default: 0.95)",
    )
    _runs(grades, pr.grade_test)


def _add_psi(commands: Any) -> None:
    psi = analysis(
        commands,
        "psi",
        "population stability index of the score per period (and segment) against a "
        "baseline period; no label read",
        label=False,
        direction=False,
    )
    psi.add_argument(
        "--period", required=True, metavar="COL", help="period column (dates, months, ...)"
    )
    psi.add_argument(
        "--baseline",
        default="first",
        metavar="PERIOD",
        help="the period the others are compared with, a value of --period; default: the earliest",
    )
    psi.add_argument(
        "--characteristic",
        dest="characteristics",
        action="append",
        default=None,
        metavar="COL",
        help="a model input to compare as well (characteristic stability index, numeric "
        "or categorical); repeat for several",
    )
    _add_n_bins(psi, "number of the baseline's quantile bins of a numeric column")
    psi.add_argument(
        "--detail", action="store_true", help="write each bin's shares instead of the sums"
    )
    _runs(psi, _psi)


def _add_estimate(commands: Any) -> None:
    estimate = analysis(
        commands,
        "estimate",
        "AUC (or, with --threshold, confusion counts) expected from calibrated "
        "probabilities, before the labels arrive; no label read",
        label=False,
        direction=False,
    )
    estimate.add_argument(
        "--period", metavar="COL", help="one row per period (and segment), as trend's"
    )
    estimate.add_argument(
        "--threshold",
        type=float,
        action="append",
        help="expected confusion counts and measures at score >= threshold instead of "
        "the AUC; repeat for several",
    )
    estimate.add_argument(
        "--nulls",
        choices=["raise", "drop"],
        default="raise",
        help="rows with a null score: refuse them (raise, default) or drop them",
    )
    estimate.add_argument(
        "--bins",
        type=int,
        metavar="N",
        help="the AUC from N equal-width buckets of the score per segment, streamed "
        "(for continuous scores of a large log), with auc_bound, a certified bound",
    )
    add_all_measures(estimate)
    _runs(estimate, _estimate)


def _add_demo(commands: Any) -> None:
    demo = commands.add_parser(
        "demo",
        help="run on the bundled example credit log, or write it as a dataset",
        description="Print AUC and confusion tables of the bundled credit log; with "
        "--out, write it as a hive-partitioned Parquet dataset instead.",
    )
    demo.add_argument(
        "--threshold", type=float, default=0.2, help="cut-off of the confusion table (default: 0.2)"
    )
    demo.add_argument(
        "--out", metavar="FOLDER", help="write the log to FOLDER/month=.../*.parquet and stop"
    )
    demo.set_defaults(func=_run_demo)


# Each adds one subcommand; a new command (trend, drift, ...) is one function and one
# entry here.
COMMANDS: tuple[Callable[[Any], None], ...] = (
    _add_auc,
    _add_confusion,
    _add_curve,
    _add_pr,
    _add_best_threshold,
    _add_threshold_at,
    _add_compare,
    _add_gains,
    _add_trend,
    _add_drift,
    _add_calibration,
    _add_grade_test,
    _add_psi,
    _add_estimate,
    _add_demo,
    add_report_command,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``polars-roc`` (subcommands auc, curve, compare, ...)."""
    parser = Parser(
        prog="polars-roc",
        description="ROC analysis of prediction logs with polars: files, globs, folders "
        "and hive-partitioned datasets, filtered with SQL.",
        epilog="`polars-roc COMMAND --help` lists the options of a command.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(commands)
    return parser


# --- the inference views of a log (issue 26): their own functions, appended ---------


def _add_auc_test(auc: argparse.ArgumentParser) -> None:
    auc.add_argument(
        "--test",
        action="store_true",
        help="add u_statistic and p_value, the Mann-Whitney test of AUC = 0.5",
    )
    auc.add_argument(
        "--alternative",
        choices=["two-sided", "greater", "less"],
        help="with --test: the alternative hypothesis (default: two-sided)",
    )


def _add_decision_curve(commands: Any) -> None:
    decision = analysis(
        commands,
        "decision-curve",
        "net benefit of the model, of treating all and of treating none, per risk threshold",
    )
    decision.add_argument(
        "--thresholds",
        type=float,
        nargs="+",
        metavar="T",
        help="risk thresholds in [0, 1) (default: 0.01, 0.02, ..., 0.99)",
    )
    _runs(decision, _decision_curve)


def _add_disparity(commands: Any) -> None:
    disparity = analysis(
        commands,
        "disparity",
        "confusion rates of each group at a threshold and their gaps to a reference",
    )
    disparity.add_argument(
        "--group", required=True, metavar="COL", help="the column of the groups compared"
    )
    disparity.add_argument(
        "--threshold", type=float, default=0.5, metavar="T", help="threshold (default: 0.5)"
    )
    disparity.add_argument(
        "--measures",
        nargs="+",
        metavar="M",
        help="measures among selection_rate, tpr, fpr, tnr, fnr, ppv, npv, accuracy "
        "(default: tpr fpr ppv selection_rate)",
    )
    disparity.add_argument(
        "--reference",
        metavar="GROUP",
        help="the group compared to (text; default: overall, the whole segment)",
    )
    disparity.add_argument(
        "--ci",
        choices=["bootstrap"],
        help="add ci_lower, ci_upper: a bootstrap interval of each difference",
    )
    add_inference_options(disparity, ci_method=True)
    _runs(disparity, pr.disparity, resampling=_bootstrap)


def _add_average_precision(commands: Any) -> None:
    average = analysis(
        commands, "average-precision", "average precision per segment, with an interval"
    )
    average.add_argument(
        "--ci",
        choices=["logit", "bootstrap"],
        help="add ci_lower, ci_upper: Boyd et al.'s logit interval or a stratified bootstrap",
    )
    add_inference_options(average, ci_method=True)
    _runs(average, pr.pr_average_precision, resampling=_bootstrap)


COMMANDS += (_add_decision_curve, _add_disparity, _add_average_precision)


# --- views of one library call each (issue 27 item 1): a table, one row a command -----
# A view's own options reach its function under their dest, as the shared ones do;
# None (not given) leaves the library's default.


def _arg(*flags: str, **settings: Any) -> Callable[[argparse.ArgumentParser], Any]:
    return lambda parser: parser.add_argument(*flags, **settings)


def _pair(flag: str, text: str) -> Callable[[argparse.ArgumentParser], Any]:
    return _arg(flag, nargs=2, required=True, metavar=("A", "B"), help=text)


def _choice(flag: str, kind: Any, text: str) -> Callable[[argparse.ArgumentParser], Any]:
    """An option whose choices are the library's ``Literal`` type ``kind``."""
    return _arg(flag, choices=get_args(kind), help=f"{text} (default: {get_args(kind)[0]})")


def _hull(frame: Any, *, auc: bool = False, **options: Any) -> Any:
    if not auc:
        return pr.roc_hull(frame, **options)
    if {"points", "bins"} & options.keys():
        msg = "--auc gives the hull's area: --points and --bins do not apply"
        raise ValueError(msg)
    return pr.hull_auc(frame, **options)


def _compare_groups(
    frame: Any,
    *,
    group: str,
    groups: list[str],
    by: Any = None,
    progress: bool = False,
    **options: Any,
) -> Any:
    # --by is the segments within which the two groups are compared.
    dtype = source_schema(frame).get(group)
    a, b = (coerce_value("--groups", g, dtype) if dtype else g for g in groups)
    return pr.compare_groups(
        frame, by=group, groups=(a, b), within=by, progress=progress, **options
    )


def _class_score(text: str) -> str:
    if "=" not in text.strip("="):
        msg = f"expected CLASS=COL, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return text


def _multiclass_auc(frame: Any, *, scores: list[str], pos_label: Any = None, **options: Any) -> Any:
    if not isinstance(frame, pl.DataFrame | pl.LazyFrame):
        msg = "multiclass-auc counts in Polars only: --engine duckdb does not apply"
        raise ValueError(msg)
    if pos_label is not None:
        msg = "multiclass-auc has a score column per class: --pos-label does not apply"
        raise ValueError(msg)
    dtype = source_schema(frame).get(options.get("label", "label"))
    pairs = [text.rsplit("=", 1) for text in scores]
    mapping = {coerce_value("--scores", c, dtype) if dtype else c: col for c, col in pairs}
    return pr.multiclass_auc(frame, mapping, **options)


_BINS = (
    _arg("--n-bins", type=int, metavar="N", help="number of bins (default: 10)"),
    _choice("--strategy", Strategy, "equal-width bins of [0, 1] or quantile bins"),
    _arg("--grade", metavar="COL", help="a column of rating grades as the bins instead"),
)
_ALWAYS = lambda _: True  # noqa: E731
# name, function, help, option adders, analysis() flags, whether it resamples.
_VIEWS: tuple[tuple[str, Any, str, tuple[Any, ...], dict[str, bool], Any], ...] = (
    (
        "brier",
        pr.brier_decomposition,
        "Brier score and its Murphy decomposition (reliability, resolution, uncertainty)",
        _BINS,
        {"direction": False},
        None,
    ),
    (
        "calibration-error",
        pr.calibration_error,
        "expected and maximum calibration error per segment",
        _BINS,
        {"direction": False},
        None,
    ),
    (
        "calibration-test",
        pr.calibration_test,
        "goodness-of-fit test of the probabilities per segment",
        (
            _choice("--method", TestMethod, "Hosmer-Lemeshow or Spiegelhalter's z"),
            _arg("--n-bins", type=int, metavar="N", help="Hosmer-Lemeshow's groups (default: 10)"),
        ),
        {"direction": False},
        None,
    ),
    (
        "grade-summary",
        pr.grade_summary,
        "count, defaults, mean PD and observed rate per rating grade",
        (_arg("--grade", required=True, metavar="COL", help="column of rating grades"),),
        {"direction": False},
        None,
    ),
    ("ks", pr.ks_statistic, "Kolmogorov-Smirnov statistic per segment", (), {}, None),
    (
        "det",
        pr.det_curve,
        "detection error tradeoff curve points (fpr, fnr) per segment",
        (
            _arg(
                "--drop-intermediate",
                action="store_true",
                default=None,
                help="drop the points on a straight segment between their neighbours",
            ),
            _arg("--bins", type=int, metavar="N", help="count into N score buckets"),
        ),
        {},
        None,
    ),
    (
        "hull",
        _hull,
        "ROC convex hull per segment (with --auc, its area)",
        (
            _arg("--auc", action="store_true", help="the hull's area (hull_auc) instead"),
            _choice("--points", HullPoints, "the hull's vertices or every point on it"),
            _arg("--bins", type=int, metavar="N", help="count into N score buckets"),
        ),
        {},
        None,
    ),
    ("lift", pr.lift_curve, "lift curve per segment", (), {}, None),
    (
        "threshold-ci",
        pr.threshold_ci,
        "confusion measures at thresholds with stratified-bootstrap intervals",
        (
            _arg(
                "--threshold",
                type=float,
                nargs="+",
                metavar="T",
                help="thresholds, score >= T positive (default: 0.5)",
            ),
            _arg(
                "--measures",
                nargs="+",
                metavar="M",
                help="measures with intervals (default: tpr tnr ppv npv)",
            ),
            _arg(
                "--stratified",
                action=argparse.BooleanOptionalAction,
                help="resample within each class (default: on)",
            ),
            lambda parser: add_inference_options(parser, ci_method=True),
        ),
        {},
        _ALWAYS,
    ),
    (
        "compare-groups",
        _compare_groups,
        "test of the AUCs of two groups of rows (unpaired), within each --by segment",
        (
            _arg("--group", required=True, metavar="COL", help="the column of the groups"),
            _pair("--groups", "the two values of --group compared (diff = auc A - auc B)"),
            _arg(
                "--ci",
                choices=get_args(CiMethod),
                help="DeLong's unpaired test (default) or a bootstrap",
            ),
            lambda parser: add_inference_options(parser, ci_method=True),
            _arg("--max-fpr", type=float, metavar="F", help="partial AUCs over fpr in [0, F]"),
            _choice("--alternative", Alternative, "alternative hypothesis"),
        ),
        {},
        lambda args: args.ci == "bootstrap",
    ),
    (
        "compare-curves",
        pr.compare_curves,
        "Venkatraman's paired test that two ROC curves are equal, per segment",
        (
            _pair("--scores", "the two score columns compared"),
            _arg("--n-boot", type=int, metavar="B", help="permutations (default: 2000)"),
            _arg("--seed", type=int, metavar="S", help="seed of the permutations"),
            _choice("--ties", RankTies, "rank ties"),
        ),
        {"score": False, "weight": False},
        _ALWAYS,
    ),
    ("prbe", pr.prbe, "precision-recall break-even point per segment", (), {}, None),
    (
        "multiclass-auc",
        _multiclass_auc,
        "multi-class AUC: one-vs-rest or Hand & Till per segment",
        (
            _arg(
                "--scores",
                nargs="+",
                required=True,
                type=_class_score,
                metavar="CLASS=COL",
                help="each class and its score column, e.g. a=p_a b=p_b c=p_c",
            ),
            _choice("--method", MulticlassMethod, "one-vs-rest or Hand & Till"),
            _choice("--average", MulticlassAverage, "average of the classes"),
            _choice("--direction", PairDirection, "which side of a score is its class"),
        ),
        {"score": False, "direction": False},
        None,
    ),
)


def _add_view(commands: Any, view: tuple[Any, ...]) -> None:
    name, function, help_text, adders, flags, resampling = view
    parser = analysis(commands, name, help_text, **flags)
    for add in adders:
        add(parser)
    _runs(parser, function, resampling=resampling)


COMMANDS += tuple(partial(_add_view, view=view) for view in _VIEWS)
