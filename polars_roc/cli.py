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

__all__ = ["add_null_values_option", "check_numeric_text", "coerce_pos_label", "main", "scan"]

READERS = {
    ".parquet": pl.scan_parquet,
    ".pq": pl.scan_parquet,
    ".csv": pl.scan_csv,
    ".ndjson": pl.scan_ndjson,
    ".jsonl": pl.scan_ndjson,
}


class InputError(Exception):
    """A problem with the command line or the file, reported in one line (exit 2)."""


def scan(path: str, null_values: Sequence[str] | None = None) -> pl.LazyFrame:
    """Scan a Parquet, CSV or NDJSON file lazily, chosen by its extension.

    ``null_values`` (CSV only) are texts that mark a missing value, e.g. ``["NA"]``.
    """
    file = Path(path)
    reader = READERS.get(file.suffix.lower())
    if reader is None:
        msg = f"cannot read {path!r}: expected one of {sorted(READERS)} extensions"
        raise InputError(msg)
    if not file.exists():
        msg = f"file not found: {path!r}"
        raise InputError(msg)
    if null_values and reader is not pl.scan_csv:
        msg = f"--null-values applies to CSV files only, got {path!r}"
        raise InputError(msg)
    frame = pl.scan_csv(file, null_values=list(null_values)) if null_values else reader(file)
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


def add_null_values_option(parser: argparse.ArgumentParser) -> None:
    """``--null-values TEXT`` (repeatable): texts of a CSV file that mean a missing value."""
    parser.add_argument(
        "--null-values", action="append", default=None, metavar="TEXT",
        help="text marking a missing value in a CSV file, e.g. NA; repeat for several",
    )  # fmt: skip


def check_numeric_text(frame: pl.LazyFrame, columns: dict[str, str | None], path: str) -> None:
    """Refuse a score or weight column read as text, naming the texts and the fix.

    A CSV exported from R writes missing values as ``NA``: the column then reads as text
    and the library would only say it is not numeric. Only CSV columns holding numbers
    besides the texts are checked; a column of text only (a wrong column) is left to the
    library's message.
    """
    if Path(path).suffix.lower() != ".csv":
        return
    schema = frame.collect_schema()
    for role, name in columns.items():
        if name is None or schema.get(name) != pl.String:
            continue
        column = pl.col(name)
        number = column.str.strip_chars().cast(pl.Float64, strict=False)
        found = frame.select(
            number.is_not_null().any().alias("numbers"),
            column.filter(column.is_not_null() & number.is_null())
            .unique(maintain_order=True).head(3).implode().alias("texts"),
        ).collect()  # fmt: skip
        texts = found["texts"][0].to_list()
        if not found["numbers"][0] or not texts:
            continue
        shown = ", ".join(repr(t) for t in texts)
        flags = " ".join(f"--null-values {t}" for t in texts if t.strip() and " " not in t)
        fix = (
            f"if {'they mark' if len(texts) > 1 else 'it marks'} missing values, pass "
            f"{flags} (and --nulls drop to leave those rows out)"
            if flags else "fix the file"
        )  # fmt: skip
        msg = (
            f"{role} column {name!r} of {path!r} holds text that is not a number "
            f"({shown}); {fix}"
        )
        raise InputError(msg)


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
    add_null_values_option(parser)
    parser.add_argument("--format", choices=["table", "csv", "json"], default="table")


def _options(args: argparse.Namespace, frame: pl.LazyFrame) -> dict[str, Any]:
    check_numeric_text(frame, {"score": args.score, "weight": args.weight}, args.file)
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
    frame = scan(args.file, args.null_values)
    # Interval options without --ci reach the library, which refuses them.
    inference = {"ci": args.ci, "conf_level": args.conf_level, "seed": args.seed,
                 "n_boot": args.n_boot, "progress": args.ci == "bootstrap"}  # fmt: skip
    table = pr.roc_auc(frame, **_options(args, frame), **inference)
    _print(table.collect(), args.format)
    return 0


CONFUSION_SUMMARY = ("threshold", "tp", "fp", "fn", "tn", "tpr", "fpr", "ppv", "npv",
                     "accuracy", "f1", "kappa", "kappa_level", "mcc")  # fmt: skip


def _run_confusion(args: argparse.Namespace) -> int:
    frame = scan(args.file, args.null_values)
    options = _options(args, frame)
    table = pr.confusion_matrix(frame, args.threshold, **options).collect()
    if not args.all_measures:
        table = table.select(*(args.by or []), *CONFUSION_SUMMARY)
    elif args.format == "table":
        # Some 35 columns do not fit a terminal: one row per measure instead.
        print("(every measure: one row per measure, one column per segment and threshold; "
              "--format csv gives one row per segment and threshold)", file=sys.stderr)
        table = _transposed(table, args.by or [])
    _print(table, args.format)
    return 0


def _transposed(table: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """``table`` with one row per measure and one column per segment and threshold."""
    names = table.select(
        pl.concat_str(
            [*(pl.col(c).cast(pl.String).fill_null("null") for c in by),
             pl.lit("threshold ") + pl.col("threshold").cast(pl.String)],
            separator=", ",
        )
    ).to_series().to_list()  # fmt: skip
    values = table.drop(*by, "threshold").select(
        pl.col(c).round(6).cast(pl.String) if dtype.is_float() else pl.col(c).cast(pl.String)
        for c, dtype in table.drop(*by, "threshold").schema.items()
    )
    return values.transpose(include_header=True, header_name="measure", column_names=names)


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
