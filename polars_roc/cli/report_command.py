"""``polars-roc report``: the offline HTML report of a log read as the analyses read it.

Here, not in polars_roc.report, so that the report builder does not import the command
line (the file readers live here) and the command line imports the builder.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

from polars_roc.cli.inputs import (
    InputError,
    check_numeric_text,
    duckdb_relation,
    read_input,
    without_nan,
)
from polars_roc.cli.options import add_engine_option, add_input_options, coerce_pos_label
from polars_roc.cli.output import out_folder
from polars_roc.report.html import TOP_K, build_report, javascript_bundle


def add_report_command(subparsers: Any) -> None:
    """Add the ``report`` subcommand to the ``polars-roc`` argument parser."""
    report = subparsers.add_parser(
        "report",
        help="self-contained offline HTML report (summary, AUC, ROC/PR charts, confusion, "
        "calibration)",
        description="Write an HTML report of a prediction log that works offline.",
    )
    report.add_argument(
        "file",
        nargs="*",
        metavar="PATH",
        help="prediction log: files, quoted globs or folders, as for auc",
    )
    report.add_argument(
        "--demo",
        action="store_true",
        help="report on the bundled example credit log instead of FILE",
    )
    report.add_argument("--score", default="score", help="score column (default: score)")
    report.add_argument("--label", default="label", help="label column (default: label)")
    report.add_argument("--pos-label", help="label value of the positive class")
    report.add_argument(
        "--by",
        action="append",
        default=None,
        metavar="COL",
        help="segment column; repeat for several",
    )
    report.add_argument("--weight", help="column of non-negative sample weights")
    report.add_argument("--nulls", choices=["raise", "drop"], default="raise")
    # The report reads its input as the analyses do (--where, --sql, --null-values ...).
    add_input_options(report, paths=False, progress=False)
    add_engine_option(report)
    report.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="cut-off for the confusion measures (default: each segment's Youden threshold)",
    )
    add_over_time_arguments(report)
    report.add_argument(
        "--grade",
        metavar="COL",
        help="column of rating grades: adds the PD back-test per grade (scores as PDs)",
    )
    report.add_argument(
        "--group",
        metavar="COLUMN",
        help="group column (e.g. sex): adds a table of the disparities of rates between its "
        "groups, per segment",
    )
    report.add_argument("--out", default="roc-report.html", help="HTML file to write")
    report.add_argument("--png", metavar="DIR", help="also write the charts as PNG into DIR")
    report.add_argument("--quiet", action="store_true", help="no progress on stderr")
    report.set_defaults(func=run_report)


def run_report(args: argparse.Namespace) -> int:
    """Run ``polars-roc report`` from parsed arguments; returns the exit code."""
    started = time.perf_counter()

    def say(message: str) -> None:
        if not args.quiet:
            print(f"[{time.perf_counter() - started:5.1f}s] {message}", file=sys.stderr)

    if args.demo == bool(args.file):
        msg = "report: give either a FILE or --demo (not both, not neither)"
        raise InputError(msg)
    if args.demo and args.engine == "duckdb":
        msg = "report: --engine duckdb reads FILE; the --demo log is in memory: drop --engine"
        raise InputError(msg)
    try:
        javascript_bundle()  # fail before reading any data when vl-convert is missing
    except ImportError as err:
        raise InputError(str(err)) from err
    if args.demo:
        from polars_roc import datasets

        frame: pl.LazyFrame = datasets.load_credit().lazy()
        source, by = "demo credit log (polars_roc.datasets.load_credit)", args.by or ["segment"]
    else:
        if args.engine == "duckdb":
            # DuckDB reads and filters; the report takes the columns it needs from it
            # lazily (the projection reaches DuckDB), as from a Polars scan.
            relation = duckdb_relation(
                args.file, where=args.where, sql=args.sql, null_values=args.null_values
            )
            frame = relation.pl(lazy=True)
        else:
            frame = read_input(
                args.file,
                where=getattr(args, "where", None),
                sql=getattr(args, "sql", None),
                null_values=getattr(args, "null_values", None),
            )
        check_numeric_text(frame, {"score": args.score, "weight": args.weight}, args.file)
        source, by = " ".join(args.file), args.by
        if args.nan == "drop":
            frame = without_nan(frame, [args.score, *filter(None, [args.challenger])])
            source += " (rows with a NaN score left out: --nan drop)"
    dtype = frame.collect_schema().get(args.label)
    pos_label = coerce_pos_label(args.pos_label, dtype) if dtype is not None else args.pos_label
    report = build_report(
        frame,
        score=args.score,
        label=args.label,
        by=by,
        weight=args.weight,
        pos_label=pos_label,
        nulls=args.nulls,
        threshold=args.threshold,
        group=args.group,
        source=source,
        progress=say,
        grade=args.grade,
        **over_time_options(args),
    )
    out = Path(args.out)
    out_folder(out)
    out.write_text(report.html, encoding="utf-8")
    say(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    if args.png:
        import vl_convert

        folder = Path(args.png)
        folder.mkdir(parents=True, exist_ok=True)
        for name, chart in report.charts.items():
            path = folder / f"{name}.png"
            path.write_bytes(vl_convert.vegalite_to_png(chart.to_dict(), scale=2))
            say(f"wrote {path}")
    return 0


def add_over_time_arguments(report: Any) -> None:
    """``--period COLUMN`` and ``--challenger COLUMN`` of ``polars-roc report``."""
    report.add_argument(
        "--period",
        metavar="COL",
        help="period column: adds the 'Over time' section (--demo: month)",
    )
    report.add_argument(
        "--challenger",
        metavar="COL",
        help="second score column compared per segment (and per period with --period)",
    )
    report.add_argument(
        "--top-k",
        type=int,
        default=5,
        metavar="K",
        help="with many segments, draw the K weakest and K strongest (default 5)",
    )


def over_time_options(args: argparse.Namespace) -> dict[str, Any]:
    """``period``/``challenger`` for build_report; the demo log's month by default."""
    period = getattr(args, "period", None)
    if period is None and getattr(args, "demo", False):
        period = "month"
    return {
        "period": period,
        "challenger": getattr(args, "challenger", None),
        "top_k": getattr(args, "top_k", TOP_K),
    }
