"""``polars-roc report``: the offline HTML report of a log read as the analyses read it
(here, so that the report builder does not import the command line)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

from polars_roc.cli.inputs import InputError, no_rows, read_log
from polars_roc.cli.options import (
    add_engine_option,
    add_input_options,
    add_library_options,
    library_options,
)
from polars_roc.cli.output import out_folder
from polars_roc.report.html import build_report, javascript_bundle


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
    add_library_options(report)
    # The report reads its input as the analyses do (--where, --sql, --null-values ...).
    add_input_options(report, paths=False, progress=False)
    add_engine_option(report)
    report.add_argument(
        "--threshold",
        type=float,
        help="cut-off for the confusion measures (default: each segment's Youden threshold)",
    )
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
    out = Path(args.out)
    out_folder(out)  # a folder that cannot be made fails here, before any counting
    if args.demo:
        from polars_roc import datasets

        frame: pl.LazyFrame = datasets.load_credit().lazy()
        source, by = "demo credit log (polars_roc.datasets.load_credit)", args.by or ["segment"]
    else:
        # The report takes the columns it needs lazily, from a Polars scan or (the
        # projection reaching DuckDB) from a DuckDB relation.
        log = read_log(args, args.file, [args.score, *filter(None, [args.challenger])])
        frame = log.pl(lazy=True) if args.engine == "duckdb" else log
        source, by = " ".join(args.file), args.by
        if args.nan == "drop":
            source += " (rows with a NaN score left out: --nan drop)"
    options = library_options(args, frame.collect_schema()) | {"by": by}
    try:
        report = build_report(
            frame,
            **options,
            threshold=args.threshold,
            group=args.group,
            source=source,
            progress=say,
            grade=args.grade,
            period="month" if args.period is None and args.demo else args.period,
            challenger=args.challenger,
            top_k=args.top_k,
        )
    except ValueError as err:
        # The library's "the log ... has no rows" does not say the filters emptied it:
        # the message of every other command does.
        if args.demo or not str(err).startswith(f"the log {source} has no rows"):
            raise
        raise InputError(no_rows(args.file, args.where, args.sql)) from None
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
