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
from polars_roc.cli.inputs import InputError, no_rows, read_log
from polars_roc.cli.options import (
    Parser,
    add_inference_options,
    analysis,
    coerce_value,
    library_options,
)
from polars_roc.cli.output import check_out, emit, output_format, print_table
from polars_roc.cli.progress import Progress
from polars_roc.cli.report_command import add_report_command
from polars_roc.core.counting import require_columns, source_schema
from polars_roc.evaluation.agreement import KappaWeights
from polars_roc.evaluation.averaging import AverageMethod, Band
from polars_roc.evaluation.multiclass import (
    ConfusionNormalize,
    MeasureAverage,
    MulticlassAverage,
    MulticlassMethod,
    PairDirection,
)
from polars_roc.exceptions import RocOptionError
from polars_roc.stats.alternative import Alternative
from polars_roc.stats.options import CiMethod
from polars_roc.stats.power import Sidedness
from polars_roc.stats.pr_interval import PrCiMethod
from polars_roc.stats.venkatraman import RankTies
from polars_roc.views.calibration import Strategy, TestMethod
from polars_roc.views.cutpoints import CutTies, Goal
from polars_roc.views.hull import HullPoints
from polars_roc.views.pr import PrAucMethod


def _scores(args: argparse.Namespace) -> list[str]:
    if args.command.startswith("multiclass"):  # CLASS=COL, or none with --predicted
        return [name.rsplit("=", 1)[-1] for name in args.scores or []]
    return getattr(args, "scores", None) or [args.score]


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


# A library call of a command: (log, the shared options, progress) -> its table.
_Analysis = Callable[[Any, dict[str, Any], Progress], "pl.DataFrame | pl.LazyFrame"]


def _evaluate(
    args: argparse.Namespace,
    call: _Analysis,
    *,
    resampling: bool = False,
) -> pl.DataFrame:
    """Read the command's log, call the library on it, count: every analysis command's
    path (with ``--engine duckdb`` the library counts in DuckDB during the call)."""
    check_out(args)
    progress = Progress(args.progress)
    log = read_log(args, args.paths, _scores(args), progress)
    if args.engine == "polars":
        table = call(log, library_options(args, log.collect_schema()), progress)
        return _compute(table, progress, args, resampling=resampling)
    # The columns of the options, checked before DuckDB runs and named by role as the
    # Polars path names them (the library's engine check knows no roles).
    roles = [*(("score", name) for name in _scores(args)), ("label", getattr(args, "label", None))]
    roles += [("weight", getattr(args, "weight", None)), ("count", getattr(args, "count", None))]
    roles += [("by", name) for name in args.by or []]
    # Each column once, in its first role: a column named twice (in one role or two) is
    # the library's to refuse, in the words it uses on Polars.
    named = {name: role for role, name in reversed(roles) if name is not None}
    schema = require_columns(log, [(role, name) for name, role in reversed(named.items())])
    options = library_options(args, schema)
    message = "counting in DuckDB" + (" and resampling" if resampling else "")
    with progress.stage(message, ticking=not (resampling and progress.library)):
        table = call(log, options, progress)
    return _compute(table, progress, args)


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


_drift = partial(_with_baseline, pr.drift)


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


# The measures a confusion table shows without --all-measures.
CONFUSION_SUMMARY = tuple(
    "threshold tp fp fn tn tpr fpr ppv npv accuracy f1 kappa kappa_level mcc".split()
)


def _summary(table: pl.DataFrame, args: argparse.Namespace) -> pl.DataFrame:
    """The usual measures of a confusion table after its group columns (every one with
    ``--all-measures``; ``--columns`` picks among all)."""
    if args.all_measures or args.columns:
        return table
    keys = table.columns[: table.columns.index("threshold")]
    # best-threshold's criterion, optimal-cutpoint's --metric (f_beta, cost, ...).
    wanted = ("criterion", getattr(args, "metric", None))
    extra = [c for c in wanted if c in table.columns and c not in CONFUSION_SUMMARY]
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
    if args.all_measures and not args.columns and output_format(args) == "table":
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
    """``--thresholds``: a CSV or Parquet table of ``threshold`` and the ``--by`` columns
    (a CSV's as text, "01" staying "01": the library converts them to the log's dtypes)."""
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
    label = [
        *(pl.col(c).cast(pl.String).fill_null("null") for c in by),
        pl.lit("threshold ") + pl.col("threshold").cast(pl.String),
    ]
    names = table.select(pl.concat_str(label, separator=", ")).to_series().to_list()
    measures = table.drop(*by, "threshold")
    values = measures.select(
        pl.col(c).round(6).cast(pl.String) if dtype.is_float() else pl.col(c).cast(pl.String)
        for c, dtype in measures.schema.items()
    )
    return values.transpose(include_header=True, header_name="measure", column_names=names)


def _hull(frame: Any, *, auc: bool = False, **options: Any) -> Any:
    if not auc:
        return pr.roc_hull(frame, **options)
    if {"points", "bins"} & options.keys():
        msg = "--auc gives the hull's area: --points and --bins do not apply"
        raise ValueError(msg)
    return pr.hull_auc(frame, **options)


def _two_groups(
    function: Callable[..., Any],
    frame: Any,
    *,
    group: str,
    groups: list[str],
    progress: bool = False,
    **options: Any,
) -> Any:
    # --by is the segments within which the two groups are compared.
    if "progress" in inspect.signature(function).parameters:
        options["progress"] = progress
    dtype = require_columns(frame, [("--group", group)])[group]  # the library's role is `by`
    a, b = (coerce_value("--groups", g, dtype) for g in groups)
    return function(frame, by=group, groups=(a, b), within=options.pop("by", None), **options)


_compare_groups = partial(_two_groups, pr.compare_groups)
_compare_curves_groups = partial(_two_groups, pr.compare_curves_groups)


def _compare_long(frame: Any, *, models: list[str], **options: Any) -> Any:
    dtype = source_schema(frame).get(options.get("model", "model"))
    a, b = (coerce_value("--models", m, dtype) if dtype else m for m in models)
    return pr.compare_long(frame, (a, b), **options)


def _bootstrap632(frame: Any, **options: Any) -> Any:
    # The library weighs Polars rows by their in-bag counts: DuckDB's rows reach it lazily.
    lazy = frame if isinstance(frame, pl.LazyFrame) else frame.pl(lazy=True)
    return pr.bootstrap632_summary(lazy, **options)


def _class_score(text: str) -> str:
    if "=" not in text.strip("="):
        msg = f"expected CLASS=COL, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return text


def _multiclass(
    function: Callable[..., Any],
    frame: Any,
    *,
    scores: list[str] | None = None,
    classes: list[str] | None = None,
    pos_label: Any = None,
    **options: Any,
) -> Any:
    """A multi-class view: ``--scores CLASS=COL`` and ``--classes`` as label values."""
    if pos_label is not None:
        msg = "a multi-class view has a column per class: --pos-label does not apply"
        raise ValueError(msg)
    dtype = source_schema(frame).get(options.get("label", "label"))

    def value(option: str, text: str) -> Any:
        return coerce_value(option, text, dtype) if dtype else text

    if classes is not None:
        options["classes"] = [value("--classes", c) for c in classes]
    pairs = [text.rsplit("=", 1) for text in scores or []]
    mapping = {value("--scores", c): col for c, col in pairs} or None
    return function(frame, mapping, **options)


_multiclass_auc = partial(_multiclass, pr.multiclass_auc)


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
    _ALL_MEASURES(confusion)
    confusion.set_defaults(func=_run_confusion)


# Option adders: each adds one option (or a few) to a command's parser.


def _arg(*flags: str, **settings: Any) -> Callable[[argparse.ArgumentParser], Any]:
    return lambda parser: parser.add_argument(*flags, **settings)


def _flag(flag: str, **settings: Any) -> Callable[[argparse.ArgumentParser], Any]:
    return _arg(flag, action="store_true", **settings)


def _pair(flag: str, text: str) -> Callable[[argparse.ArgumentParser], Any]:
    return _arg(flag, nargs=2, required=True, metavar=("A", "B"), help=text)


def _choice(flag: str, kind: Any, text: str) -> Callable[[argparse.ArgumentParser], Any]:
    """An option whose choices are the library's ``Literal`` type ``kind``."""
    return _arg(flag, choices=get_args(kind), help=f"{text} (default: {get_args(kind)[0]})")


def _smooth(what: str) -> Callable[[argparse.ArgumentParser], Any]:
    return _arg(
        "--smooth",
        choices=["binormal"],
        help=f"{what} of the binormal fit (pROC's smooth(method = 'binormal'))",
    )


def _n_bins(what: str, default: int | None = 10) -> Callable[[argparse.ArgumentParser], Any]:
    # default None: the library's 10, so that an --n-bins given where it has no use is refused.
    return _arg("--n-bins", type=int, default=default, metavar="N", help=f"{what} (default: 10)")


_ALL_MEASURES = _flag(
    "--all-measures", help=f"write every measure column (default: {', '.join(CONFUSION_SUMMARY)})"
)
_INFERENCE_CI_METHOD = partial(add_inference_options, ci_method=True)
_AUC_TEST = (
    _flag("--test", help="add u_statistic and p_value, the Mann-Whitney test of AUC = 0.5"),
    _arg(
        "--alternative",
        choices=["two-sided", "greater", "less"],
        help="with --test: the alternative hypothesis (default: two-sided)",
    ),
)
_PERIOD = (
    _arg(
        "--period",
        required=True,
        metavar="COL",
        help="period column: Date, Datetime, ISO text such as 2026-01, or integer",
    ),
    _arg(
        "--every",
        metavar="DURATION",
        help="bin a Date/Datetime period into calendar windows labelled by their start: "
        "1mo, 1w, 1q, ...",
    ),
)
_ADJUST = (
    _arg(
        "--adjust",
        choices=["holm", "bonferroni", "bh", "none"],
        default="holm",
        help="adjustment of the p-values for many tests (default: holm)",
    ),
    _arg("--alpha", type=float, default=0.05, help="flagged is p_adjusted < alpha (default: 0.05)"),
)
_BINS = (
    _arg("--n-bins", type=int, metavar="N", help="number of bins (default: 10)"),
    _choice("--strategy", Strategy, "equal-width bins of [0, 1] or quantile bins"),
    _arg("--grade", metavar="COL", help="a column of rating grades as the bins instead"),
)
_SCORE_BUCKETS = _arg("--bins", type=int, metavar="N", help="count into N score buckets")
_RANGES = (
    _arg(
        "--fpr-range",
        type=float,
        nargs=2,
        metavar=("LO", "HI"),
        help="partial area over fpr in [LO, HI] (McClish-standardized unless --no-standardize)",
    ),
    _arg("--tpr-range", type=float, nargs=2, metavar=("LO", "HI"), help="over tpr in [LO, HI]"),
    _arg(
        "--standardize",
        action=argparse.BooleanOptionalAction,
        help="McClish-standardize a partial area to [0.5, 1] (default: on)",
    ),
)
_AT_RATE = (
    _arg("--at-fpr", type=float, metavar="F", help="compare the tpr at this fpr instead of AUCs"),
    _arg("--at-tpr", type=float, metavar="T", help="compare the fpr at this tpr instead of AUCs"),
)
_RATES = "the rates at which to read the curve (interpolated between its points)"
_RATE_CI = (
    _arg("--ci", choices=["bootstrap"], help="add ci_lower, ci_upper by a stratified bootstrap"),
    _INFERENCE_CI_METHOD,
)
_COSTS = (
    _arg("--cost-fp", type=float, help="cost of a false positive (default: 1)"),
    _arg("--cost-fn", type=float, help="cost of a false negative (default: 1)"),
)
_CUTPOINT = (
    _arg(
        "--metric",
        metavar="M",
        help="the measure optimised, a column of confusion: f1, accuracy, kappa, mcc, "
        "youden_j, f_beta (with --beta), cost (with --cost-fp/--cost-fn), ... "
        "(default: youden_j)",
    ),
    _choice("--goal", Goal, "maximise or minimise --metric"),
    _arg("--beta", type=float, help="beta of f_beta (recall weighs beta times precision)"),
    *_COSTS,
)
_PERMUTATIONS = (
    _arg("--n-boot", type=int, metavar="B", help="permutations (default: 2000)"),
    _arg("--seed", type=int, metavar="S", help="seed of the permutations"),
    _choice("--ties", RankTies, "rank ties"),
)
_MULTICLASS = (
    _arg(
        "--scores",
        nargs="+",
        type=_class_score,
        metavar="CLASS=COL",
        help="each class and its score column (the predicted class is the highest), "
        "e.g. a=p_a b=p_b",
    ),
    _arg("--predicted", metavar="COL", help="the predicted class column, instead of --scores"),
    _arg("--classes", nargs="+", metavar="C", help="the classes, in order (with --predicted)"),
)
_FOLD = _arg("--fold", metavar="COL", help="the fold column, one curve per value (default: fold)")


def _bootstrap(args: argparse.Namespace) -> bool:
    return args.ci == "bootstrap"


def _always(_: argparse.Namespace) -> bool:
    return True


def _command(
    name: str,
    function: str | Callable[..., Any],
    help_text: str,
    *options: Callable[[argparse.ArgumentParser], Any],
    resampling: Callable[[argparse.Namespace], bool] | None = None,
    **flags: bool,
) -> Callable[[Any], None]:
    """A subcommand that is one call of ``function`` (a name: the library's function):
    the shared options (``flags`` as in :func:`analysis`), then its own ``options``,
    each reaching ``function`` under its dest unless None. ``resampling(args)``: the
    call bootstraps (progress shows it)."""

    def add(commands: Any) -> None:
        parser = analysis(commands, name, help_text, **flags)
        for option in options:
            option(parser)
        shared = parser.get_default("shared_options") | {"all_measures"}
        own = tuple(a.dest for a in parser._actions if a.dest not in shared)
        call = getattr(pr, function) if isinstance(function, str) else function
        parser.set_defaults(func=_run, function=call, keywords=own, resampling=resampling)

    return add


# The subcommands, in the order `polars-roc --help` lists them.
COMMANDS: tuple[Callable[[Any], None], ...] = (
    _command(
        "auc",
        "roc_auc",
        "AUC per segment, with a confidence interval on request",
        _arg(
            "--ci",
            choices=["delong", "bootstrap"],
            help="add auc_se, ci_lower, ci_upper by DeLong's method or a stratified bootstrap",
        ),
        _INFERENCE_CI_METHOD,
        _arg(
            "--max-fpr",
            type=float,
            metavar="F",
            help="partial AUC over fpr in [0, F], McClish-standardized",
        ),
        _arg(
            "--bins",
            type=int,
            metavar="N",
            help="count into N equal-width buckets of the score per segment "
            "(no sort, the same buckets on every engine; e.g. 8192) and add auc_bound, "
            "a certified bound on the distance to the exact AUC",
        ),
        *_RANGES,
        *_AUC_TEST,
        _smooth("the area"),
        resampling=_bootstrap,
    ),
    _add_confusion,
    _command(
        "curve",
        "roc_curve",
        "ROC curve points per segment (roc_curve)",
        _flag(
            "--drop-intermediate",
            help="drop the points on a straight segment between their neighbours (same shape "
            "and area)",
        ),
        _arg(
            "--cost-fp",
            type=float,
            help="add cost and expected_cost columns with this false-positive "
            "cost (the other one defaults to 1)",
        ),
        _arg("--cost-fn", type=float, help="false-negative cost, as --cost-fp"),
        _SCORE_BUCKETS,
        _smooth("instead of the points, the 512 points"),
        _arg(
            "--band",
            choices=["bootstrap"],
            help="instead of the points, a simultaneous bootstrap confidence band of tpr "
            "over a grid of fpr (Campbell 1994)",
        ),
        add_inference_options,
        resampling=lambda args: args.band == "bootstrap",
    ),
    _command(
        "pr",
        "pr_curve",
        "precision-recall curve per segment (pr_curve)",
        _flag(
            "--drop-intermediate",
            help="drop the points that change neither precision's envelope nor the area",
        ),
        _SCORE_BUCKETS,
    ),
    _command(
        "best-threshold",
        "best_threshold",
        "best threshold per segment for a criterion, with every measure at it",
        _arg(
            "--method",
            choices=["youden", "closest_topleft", "cost"],
            default="youden",
            help="maximise Youden's J (default), minimise the distance to the "
            "top-left corner, or minimise the expected cost",
        ),
        _arg("--cost-fp", type=float, help="cost of a false positive"),
        _arg("--cost-fn", type=float, help="cost of a false negative"),
        _arg(
            "--prevalence",
            type=float,
            help="share of positives to weigh the costs with (default: the data's)",
        ),
        _arg(
            "--ties",
            choices=["first", "all"],
            default="first",
            help="equally good thresholds: keep the first (highest) or all",
        ),
        _flag(
            "--midpoint",
            help="report the threshold halfway to the next lower score (as pROC and cutpointr)",
        ),
        _ALL_MEASURES,
    ),
    _command(
        "threshold-at",
        "threshold_at",
        "threshold per segment meeting a target --fpr, --tpr or --precision",
        _arg(
            "--fpr",
            type=float,
            help="among thresholds with fpr <= this, the one with the highest tpr",
        ),
        _arg(
            "--tpr",
            type=float,
            help="among thresholds with tpr >= this, the one with the lowest fpr",
        ),
        _arg(
            "--precision",
            type=float,
            help="among thresholds with precision >= this, the highest tpr",
        ),
        _ALL_MEASURES,
    ),
    _command(
        "compare",
        "compare",
        "paired test of two scores' AUCs on the same rows, per segment",
        _pair("--scores", "the two score columns to compare (diff = auc A - auc B)"),
        _arg(
            "--ci",
            "--method",
            dest="ci",
            choices=["delong", "bootstrap"],
            default="delong",
            help="DeLong's paired test (default) or a paired bootstrap (--method is the old name)",
        ),
        _INFERENCE_CI_METHOD,
        _arg("--max-fpr", type=float, metavar="F", help="compare partial AUCs over fpr in [0, F]"),
        *_RANGES,
        *_AT_RATE,
        _choice("--alternative", Alternative, "alternative hypothesis"),
        resampling=_bootstrap,
        score=False,
    ),
    _command(
        "gains",
        "gains_table",
        "gains table by score quantile per segment (lift, KS per bin)",
        _n_bins("number of score quantile bins"),
    ),
    _command(
        "trend",
        "trend",
        "AUC, Gini and KS per period (and segment), with intervals on request",
        *_PERIOD,
        _arg(
            "--ci",
            choices=["delong", "bootstrap"],
            help="add auc_se, ci_lower, ci_upper (and the Gini's) by DeLong's method or a "
            "bootstrap",
        ),
        add_inference_options,
        _arg(
            "--scores",
            nargs=2,
            metavar=("A", "B"),
            help="champion and challenger: their paired DeLong test per period instead",
        ),
        _flag(
            "--estimated",
            help="add the AUC expected from the scores as calibrated probabilities "
            "(estimated_auc, expected_pos, expected_neg): rows without a label yet count "
            "there, not in the realised AUC",
        ),
        *_ADJUST,
        resampling=_bootstrap,
    ),
    _command(
        "drift",
        _drift,
        "each period's AUC tested against a baseline period's, per segment (DeLong)",
        *_PERIOD,
        _arg(
            "--baseline",
            default="first",
            metavar="PERIOD",
            help="the period the others are tested against, a value of --period (after "
            "--every); default: each segment's first",
        ),
        partial(add_inference_options, n_boot=False),
        *_ADJUST,
        weight=False,
    ),
    _command(
        "calibration",
        "calibration_curve",
        "reliability table per segment: mean predicted probability against observed "
        "rate per bin (scores must be probabilities in [0, 1])",
        _n_bins("number of bins of [0, 1] or of the scores", default=None),
        _arg(
            "--strategy",
            choices=["uniform", "quantile"],
            help="uniform: equal-width bins of [0, 1] (default); quantile: bins of about "
            "equal count at the segment's score percentiles (scikit-learn's bins; with "
            "--weight, at cumulative shares of weight)",
        ),
        _arg(
            "--grade",
            metavar="COL",
            help="a column of rating grades (no nulls) as the bins instead; not with "
            "--n-bins or --strategy",
        ),
        _arg(
            "--ci",
            choices=["wilson", "jeffreys"],
            help="add ci_lower, ci_upper: an interval of each bin's observed rate",
        ),
        partial(add_inference_options, n_boot=False),
        direction=False,
    ),
    _command(
        "grade-test",
        "grade_test",
        "PD back-test per rating grade: is each grade's mean PD (the score) too low "
        "for its defaults (the positives)?",
        _arg("--grade", required=True, metavar="COL", help="column of rating grades (no nulls)"),
        _arg(
            "--method",
            choices=["jeffreys", "binomial"],
            default="jeffreys",
            help="one-sided Jeffreys test (default, as the ECB's validation reporting) or "
            "the exact binomial tail",
        ),
        _arg(
            "--conf-level",
            type=float,
            default=0.95,
            metavar="L",
            help="level of the Jeffreys interval of the observed rate; reject is "
            "p_value < 1 - L (default: 0.95)",
        ),
        direction=False,
    ),
    _command(
        "psi",
        _psi,
        "population stability index of the score per period (and segment) against a "
        "baseline period; no label read",
        _arg("--period", required=True, metavar="COL", help="period column (dates, months, ...)"),
        _arg(
            "--baseline",
            default="first",
            metavar="PERIOD",
            help="the period the others are compared with, a value of --period; default: the "
            "earliest",
        ),
        _arg(
            "--characteristic",
            dest="characteristics",
            action="append",
            metavar="COL",
            help="a model input to compare as well (characteristic stability index, numeric "
            "or categorical); repeat for several",
        ),
        _n_bins("number of the baseline's quantile bins of a numeric column"),
        _flag("--detail", help="write each bin's shares instead of the sums"),
        label=False,
        direction=False,
    ),
    _command(
        "estimate",
        _estimate,
        "AUC (or, with --threshold, confusion counts) expected from calibrated "
        "probabilities, before the labels arrive; no label read",
        _arg("--period", metavar="COL", help="one row per period (and segment), as trend's"),
        _arg(
            "--threshold",
            type=float,
            action="append",
            help="expected confusion counts and measures at score >= threshold instead of "
            "the AUC; repeat for several",
        ),
        _arg(
            "--nulls",
            choices=["raise", "drop"],
            default="raise",
            help="rows with a null score: refuse them (raise, default) or drop them",
        ),
        _arg(
            "--bins",
            type=int,
            metavar="N",
            help="the AUC from N equal-width buckets of the score per segment, streamed "
            "(for continuous scores of a large log), with auc_bound, a certified bound",
        ),
        _ALL_MEASURES,
        label=False,
        direction=False,
    ),
    _add_demo,
    add_report_command,
    _command(
        "decision-curve",
        _decision_curve,
        "net benefit of the model, of treating all and of treating none, per risk threshold",
        _arg(
            "--thresholds",
            type=float,
            nargs="+",
            metavar="T",
            help="risk thresholds in [0, 1) (default: 0.01, 0.02, ..., 0.99)",
        ),
    ),
    _command(
        "disparity",
        "disparity",
        "confusion rates of each group at a threshold and their gaps to a reference",
        _arg("--group", required=True, metavar="COL", help="the column of the groups compared"),
        _arg("--threshold", type=float, default=0.5, metavar="T", help="threshold (default: 0.5)"),
        _arg(
            "--measures",
            nargs="+",
            metavar="M",
            help="measures among selection_rate, tpr, fpr, tnr, fnr, ppv, npv, accuracy "
            "(default: tpr fpr ppv selection_rate)",
        ),
        _arg(
            "--reference",
            metavar="GROUP",
            help="the group compared to (text; default: overall, the whole segment)",
        ),
        _arg(
            "--ci",
            choices=["bootstrap"],
            help="add ci_lower, ci_upper: a bootstrap interval of each difference",
        ),
        _INFERENCE_CI_METHOD,
        resampling=_bootstrap,
    ),
    _command(
        "average-precision",
        "pr_average_precision",
        "average precision per segment, with an interval",
        _arg(
            "--ci",
            choices=["logit", "bootstrap"],
            help="add ci_lower, ci_upper: Boyd et al.'s logit interval or a stratified bootstrap",
        ),
        _INFERENCE_CI_METHOD,
        resampling=_bootstrap,
    ),
    _command(
        "brier",
        "brier_decomposition",
        "Brier score and its Murphy decomposition (reliability, resolution, uncertainty)",
        *_BINS,
        direction=False,
    ),
    _command(
        "calibration-error",
        "calibration_error",
        "expected and maximum calibration error per segment",
        *_BINS,
        direction=False,
    ),
    _command(
        "calibration-test",
        "calibration_test",
        "goodness-of-fit test of the probabilities per segment",
        _choice("--method", TestMethod, "Hosmer-Lemeshow or Spiegelhalter's z"),
        _arg("--n-bins", type=int, metavar="N", help="Hosmer-Lemeshow's groups (default: 10)"),
        direction=False,
    ),
    _command(
        "grade-summary",
        "grade_summary",
        "count, defaults, mean PD and observed rate per rating grade",
        _arg("--grade", required=True, metavar="COL", help="column of rating grades"),
        direction=False,
    ),
    _command("ks", "ks_statistic", "Kolmogorov-Smirnov statistic per segment"),
    _command(
        "det",
        "det_curve",
        "detection error tradeoff curve points (fpr, fnr) per segment",
        _flag(
            "--drop-intermediate",
            default=None,
            help="drop the points on a straight segment between their neighbours",
        ),
        _SCORE_BUCKETS,
    ),
    _command(
        "hull",
        _hull,
        "ROC convex hull per segment (with --auc, its area)",
        _flag("--auc", help="the hull's area (hull_auc) instead"),
        _choice("--points", HullPoints, "the hull's vertices or every point on it"),
        _SCORE_BUCKETS,
    ),
    _command("lift", "lift_curve", "lift curve per segment"),
    _command(
        "threshold-ci",
        "threshold_ci",
        "confusion measures at thresholds with stratified-bootstrap intervals",
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
        _INFERENCE_CI_METHOD,
        resampling=_always,
    ),
    _command(
        "compare-groups",
        _compare_groups,
        "test of the AUCs of two groups of rows (unpaired), within each --by segment",
        _arg("--group", required=True, metavar="COL", help="the column of the groups"),
        _pair("--groups", "the two values of --group compared (diff = auc A - auc B)"),
        _arg(
            "--ci",
            choices=get_args(CiMethod),
            help="DeLong's unpaired test (default) or a bootstrap",
        ),
        _INFERENCE_CI_METHOD,
        _arg("--max-fpr", type=float, metavar="F", help="partial AUCs over fpr in [0, F]"),
        *_RANGES,
        _choice("--alternative", Alternative, "alternative hypothesis"),
        resampling=_bootstrap,
    ),
    _command(
        "compare-curves",
        "compare_curves",
        "Venkatraman's paired test that two ROC curves are equal, per segment",
        _pair("--scores", "the two score columns compared"),
        *_PERMUTATIONS,
        resampling=_always,
        score=False,
        weight=False,
    ),
    _command("prbe", "prbe", "precision-recall break-even point per segment"),
    _command(
        "multiclass-auc",
        _multiclass_auc,
        "multi-class AUC: one-vs-rest or Hand & Till per segment",
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
        score=False,
        direction=False,
    ),
    *(
        _command(
            f"multiclass-{name}",
            partial(_multiclass, getattr(pr, f"multiclass_{name}")),
            text,
            *_MULTICLASS,
            *options,
            score=False,
            direction=False,
        )
        for name, text, options in (
            (
                "confusion",
                "the k x k confusion matrix of a multi-class classifier, in long form",
                (_choice("--normalize", ConfusionNormalize, "rates over true, predicted or all"),),
            ),
            (
                "measures",
                "per-class confusion measures of a multi-class classifier (one-vs-rest)",
                (
                    _choice("--average", MeasureAverage, "one row of averaged rates"),
                    _arg("--beta", type=float, help="adds f_beta (recall weighs beta times)"),
                ),
            ),
            (
                "agreement",
                "accuracy, Cohen's kappa and MCC of the whole multi-class matrix",
                (_choice("--kappa-weights", KappaWeights, "weighted kappa for ordered classes"),),
            ),
        )
    ),
    _command(
        "compare-long",
        _compare_long,
        "paired test of two models' AUCs from a long log (a row per case and model)",
        _pair("--models", "the two values of --model compared (diff = auc A - auc B)"),
        _arg("--case", required=True, metavar="COL", help="the case id pairing the rows"),
        _arg("--model", metavar="COL", help="the column naming the model (default: model)"),
        _arg(
            "--ci",
            choices=get_args(CiMethod),
            help="DeLong's paired test (default) or a paired bootstrap",
        ),
        _INFERENCE_CI_METHOD,
        _arg("--max-fpr", type=float, metavar="F", help="compare partial AUCs over fpr in [0, F]"),
        *_RANGES,
        *_AT_RATE,
        resampling=_bootstrap,
        count=False,
    ),
    *(
        _command(
            f"{read}-at",
            f"{read}_at",
            f"{text} per segment at given {given} rates",
            _arg(
                f"--{at}", type=float, nargs="+", required=True, metavar=at[0].upper(), help=_RATES
            ),
            *_RATE_CI,
            resampling=_bootstrap,
        )
        for read, at, text, given in (
            ("tpr", "fpr", "true positive rate (sensitivity)", "false positive"),
            ("fpr", "tpr", "false positive rate", "true positive"),
        )
    ),
    _command(
        "pr-auc",
        "pr_auc",
        "area under the precision-recall curve per segment, with an interval on request",
        _choice("--method", PrAucMethod, "Davis & Goadrich's interpolation or trapezoids"),
        _arg(
            "--ci",
            choices=get_args(PrCiMethod),
            help="add ci_lower, ci_upper: a stratified bootstrap or the logit interval",
        ),
        _INFERENCE_CI_METHOD,
        resampling=_bootstrap,
    ),
    _command(
        "optimal-cutpoint",
        "optimal_cutpoint",
        "threshold per segment that maximises (or minimises) a confusion measure",
        *_CUTPOINT,
        _choice("--ties", CutTies, "equally good thresholds: the first (highest) or all"),
        _flag("--midpoint", help="report the threshold halfway to the next lower score"),
        _ALL_MEASURES,
    ),
    _command(
        "bootstrap-cutpoint",
        "bootstrap_cutpoint",
        "bootstrap of the optimal cutpoint per segment: in-bag and out-of-bag measures",
        *_CUTPOINT,
        _arg("--n-boot", type=int, metavar="B", help="bootstrap replicates (default: 200)"),
        _arg("--seed", type=int, metavar="S", help="seed of the bootstrap"),
        _flag("--summary", help="mean and percentile interval over the replicates instead"),
        _arg("--conf-level", type=float, metavar="L", help="level of --summary's intervals"),
        resampling=_always,
    ),
    _command(
        "optimal-point",
        "optimal_point",
        "optimal ROC point per segment for an operating condition (iso-cost slope)",
        _arg("--slope", type=float, help="iso-performance slope; default from the costs"),
        _arg("--prevalence", type=float, help="share of positives (default: the data's)"),
        *_COSTS,
    ),
    _command(
        "score-table",
        "score_table",
        "positives and negatives per distinct score and segment, with cumulative counts",
        _SCORE_BUCKETS,
    ),
    _command(
        "average-curve",
        "average_curve",
        "mean ROC curve of the folds of a cross-validation, with a pointwise band",
        _FOLD,
        _choice("--method", AverageMethod, "vertical (tpr at fixed fpr) or threshold averaging"),
        _arg("--grid", type=int, metavar="N", help="points of the averaging grid (default: 101)"),
        _choice("--band", Band, "the band: mean +- z std, or quantiles of the curves"),
        _arg("--conf-level", type=float, metavar="L", help="level of the band (default: 0.95)"),
    ),
    _command(
        "fold-summary",
        "fold_summary",
        "mean, standard deviation, min and max of AUC (and measures) across folds",
        _FOLD,
        _arg("--threshold", type=float, help="threshold of the confusion measures (optional)"),
        _arg("--metrics", nargs="+", metavar="M", help="confusion measures at --threshold"),
    ),
    _command(
        "bootstrap632",
        _bootstrap632,
        "the .632 bootstrap estimate of AUC (and measures) from bootstrap predictions",
        _arg("--fold", metavar="COL", help="the replicate column (default: fold)"),
        _arg("--in-bag", metavar="COL", help="in-bag counts, 0 out of bag (default: in_bag)"),
        _arg("--threshold", type=float, help="threshold of the confusion measures (optional)"),
        _arg("--metrics", nargs="+", metavar="M", help="confusion measures at --threshold"),
        count=False,
    ),
    _command(
        "disparity-summary",
        "disparity_summary",
        "demographic parity and equalized odds differences and ratios per segment",
        _arg("--group", required=True, metavar="COL", help="the column of the groups compared"),
        _arg("--threshold", type=float, default=0.5, metavar="T", help="threshold (default: 0.5)"),
    ),
    _command(
        "compare-curves-groups",
        _compare_curves_groups,
        "Venkatraman's unpaired test that two groups' ROC curves are equal, per --by segment",
        _arg("--group", required=True, metavar="COL", help="the column of the groups"),
        _pair("--groups", "the two values of --group compared"),
        *_PERMUTATIONS,
        resampling=_always,
        weight=False,
    ),
    _command(
        "compare-power",
        "compare_power",
        "power of the paired DeLong test of two scores, and the sample it would need",
        _pair("--scores", "the two score columns compared"),
        _arg("--sig-level", type=float, metavar="A", help="significance level (default: 0.05)"),
        _arg("--power", type=float, metavar="P", help="target power: adds the sample needed"),
        _arg("--neg-per-pos", type=float, metavar="R", help="negatives per positive planned"),
        _choice("--alternative", Sidedness, "sidedness of the test"),
        score=False,
        weight=False,
    ),
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
