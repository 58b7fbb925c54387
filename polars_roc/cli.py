"""The ``polars-roc`` command: AUC and confusion tables of a prediction log file.

Files are read lazily (Parquet, CSV or NDJSON, by extension). Bad input ends the command
with exit code 2 and a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

import polars_roc as pr
from polars_roc._report import add_report_command

__all__ = ["coerce_pos_label", "main", "scan"]

READERS = {
    ".parquet": pl.scan_parquet,
    ".pq": pl.scan_parquet,
    ".csv": pl.scan_csv,
    ".ndjson": pl.scan_ndjson,
    ".jsonl": pl.scan_ndjson,
}


class InputError(Exception):
    """A problem with the command line or the file, reported in one line (exit 2)."""


def scan(path: str) -> pl.LazyFrame:
    """Scan a Parquet, CSV or NDJSON file lazily, chosen by its extension."""
    file = Path(path)
    reader = READERS.get(file.suffix.lower())
    if reader is None:
        msg = f"cannot read {path!r}: expected one of {sorted(READERS)} extensions"
        raise InputError(msg)
    if not file.exists():
        msg = f"file not found: {path!r}"
        raise InputError(msg)
    frame = reader(file)
    # A header-only CSV would otherwise read as String columns and fail on their dtype.
    if frame.head(1).collect().height == 0:
        msg = f"{path!r} has no rows: there is nothing to evaluate"
        raise InputError(msg)
    return frame


def coerce_pos_label(value: str | None, dtype: pl.DataType) -> Any:
    """Turn the command-line text of ``--pos-label`` into the label column's type."""
    if value is None:
        return None
    try:
        if dtype == pl.Boolean:
            flags = {"true": True, "1": True, "false": False, "0": False}
            return flags[value.lower()]
        if dtype.is_integer():
            return int(value)
        if dtype.is_float():
            return float(value)
    except (KeyError, ValueError):
        msg = f"--pos-label {value!r} does not fit the label column's dtype {dtype}"
        raise InputError(msg) from None
    return value


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="prediction log: .parquet, .csv or .ndjson")
    parser.add_argument("--score", default="score", help="score column (default: score)")
    parser.add_argument("--label", default="label", help="label column (default: label)")
    parser.add_argument("--pos-label", help="label value of the positive class")
    parser.add_argument(
        "--by", action="append", default=None, metavar="COL",
        help="segment column; repeat for several",
    )  # fmt: skip
    parser.add_argument("--weight", help="column of non-negative sample weights")
    parser.add_argument("--nulls", choices=["raise", "drop"], default="raise")
    parser.add_argument("--format", choices=["table", "csv", "json"], default="table")


def _options(args: argparse.Namespace, frame: pl.LazyFrame) -> dict[str, Any]:
    schema = frame.collect_schema()
    dtype = schema.get(args.label)
    pos_label = coerce_pos_label(args.pos_label, dtype) if dtype is not None else args.pos_label
    return {
        "score": args.score,
        "label": args.label,
        "pos_label": pos_label,
        "by": args.by,
        "weight": args.weight,
        "nulls": args.nulls,
    }


def _print(frame: pl.DataFrame, fmt: str) -> None:
    if fmt == "csv":
        sys.stdout.write(frame.write_csv())
    elif fmt == "json":
        sys.stdout.write(frame.write_json() + "\n")
    else:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=40):
            print(frame)


def _run_auc(args: argparse.Namespace) -> int:
    frame = scan(args.file)
    # Interval options without --ci reach the library, which refuses them.
    inference = {"ci": args.ci, "conf_level": args.conf_level, "seed": args.seed,
                 "n_boot": args.n_boot, "progress": args.ci == "bootstrap"}  # fmt: skip
    table = pr.roc_auc(frame, **_options(args, frame), **inference)
    _print(table.collect(), args.format)
    return 0


CONFUSION_SUMMARY = ("threshold", "tp", "fp", "fn", "tn", "tpr", "fpr", "ppv", "npv",
                     "accuracy", "f1", "kappa", "kappa_level", "mcc")  # fmt: skip


def _run_confusion(args: argparse.Namespace) -> int:
    frame = scan(args.file)
    options = _options(args, frame)
    table = pr.confusion_matrix(frame, args.threshold, **options).collect()
    if not args.all_measures:
        table = table.select(*(args.by or []), *CONFUSION_SUMMARY)
    _print(table, args.format)
    return 0


def _run_demo(args: argparse.Namespace) -> int:
    log = pr.datasets.load_credit()
    print(f"Example credit-scoring log: {log.height} loans, positive class = default\n")
    print("AUC per segment:")
    _print(log.roc.auc(by="segment"), "table")
    print(f"\nConfusion at threshold {args.threshold} per segment:")
    table = log.roc.confusion(args.threshold, by="segment")
    _print(table.select("segment", *CONFUSION_SUMMARY), "table")
    print("\nSeed 001 (Fawcett's 20 instances): AUC and the point at threshold 0.54")
    fawcett = pr.datasets.load_fawcett()
    _print(fawcett.roc.auc(pos_label="p"), "table")
    point = fawcett.roc.confusion(0.54, pos_label="p")
    _print(point.select("threshold", "tpr", "fpr", "accuracy"), "table")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``polars-roc`` (subcommands auc, confusion, demo, ...)."""
    parser = argparse.ArgumentParser(
        prog="polars-roc",
        description="ROC analysis of prediction logs with polars.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    auc = commands.add_parser("auc", help="AUC per segment")
    _common(auc)
    auc.add_argument("--ci", choices=["delong", "bootstrap"], help="add a confidence interval")
    auc.add_argument("--conf-level", type=float, default=0.95)
    auc.add_argument("--n-boot", type=int, default=2000, help="bootstrap replicates")
    auc.add_argument("--seed", type=int, default=None, help="bootstrap seed")
    auc.set_defaults(func=_run_auc)

    confusion = commands.add_parser("confusion", help="confusion measures at thresholds")
    _common(confusion)
    confusion.add_argument(
        "--threshold", type=float, action="append", required=True,
        help="predicted positive when score >= threshold; repeat for several",
    )  # fmt: skip
    confusion.add_argument(
        "--all-measures", action="store_true", help="print every measure column"
    )
    confusion.set_defaults(func=_run_confusion)

    demo = commands.add_parser("demo", help="run on the bundled example credit log")
    demo.add_argument("--threshold", type=float, default=0.2)
    demo.set_defaults(func=_run_demo)

    add_report_command(commands)
    return parser


# The library's messages name its keyword arguments; on the command line the same advice
# names the option.
_OPTION_SPELLINGS = {
    "`pos_label=`": "--pos-label",
    "pos_label=": "--pos-label ",
    "nulls='drop'": "--nulls drop",
    "`ci='bootstrap'`": "--ci bootstrap",
    "`ci='delong'`": "--ci delong",
    "`conf_level`": "--conf-level",
    "`n_boot`": "--n-boot",
    "`seed`": "--seed",
}


def _show_warning(
    message: Warning | str, category: type[Warning], filename: str, lineno: int,
    file: Any = None, line: str | None = None,
) -> None:
    """Warnings (e.g. single-class segments) as one line of the command, not of Python."""
    print(f"polars-roc: warning: {_as_options(str(message))}", file=sys.stderr)


def _as_options(message: str) -> str:
    for keyword, option in _OPTION_SPELLINGS.items():
        message = message.replace(keyword, option)
    return message


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``polars-roc``; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _show_warning
            return int(args.func(args))
    except BrokenPipeError:
        # The output went to a reader that stopped early (`| head`): not an error. Point
        # stdout at /dev/null so that Python's flush at exit does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:  # an output path that cannot be written, say
        where = f" {err.filename!r}" if err.filename else ""
        print(f"polars-roc: error: cannot write or read{where}: {err.strerror or err}",
              file=sys.stderr)  # fmt: skip
        return 2
    except (InputError, ValueError, TypeError, pl.exceptions.PolarsError) as err:
        first_line = str(err).strip().splitlines()[0] if str(err).strip() else repr(err)
        print(f"polars-roc: error: {_as_options(first_line)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
