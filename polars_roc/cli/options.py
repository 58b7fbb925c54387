"""The options the commands share: input, engine, the library's keywords, output."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any, NoReturn

import polars as pl

from polars_roc.cli.inputs import InputError


class Parser(argparse.ArgumentParser):
    """Usage errors in one line (exit 2); no abbreviations (``--score`` is not ``--scores``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"polars-roc: error: {message} (see: {self.prog} --help)\n")

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        # An option of one value given twice would silently keep the last.
        given = [a.split("=", 1)[0] for a in (sys.argv[1:] if args is None else args)]
        for action in self._actions:
            if type(action) is argparse._StoreAction and action.option_strings:
                times = sum(given.count(name) for name in action.option_strings)
                if times > 1:
                    self.error(f"{action.option_strings[0]} is given {times} times: pass it once")
        return super().parse_known_args(args, namespace)


def add_null_values_option(parser: Any) -> None:
    """``--null-values TEXT`` (repeatable): texts of a CSV file that mean a missing value."""
    parser.add_argument(
        "--null-values",
        action="append",
        metavar="TEXT",
        help="text marking a missing value in a CSV file, e.g. NA; repeat for several",
    )


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


def coerce_value(option: str, text: str, dtype: pl.DataType) -> Any:
    """The command-line text of ``option`` as a value of a column of type ``dtype``
    (dates as ISO text, ``2026-01-01``)."""
    series = pl.Series([text])
    try:
        if dtype == pl.Date:
            return series.str.to_date("%Y-%m-%d").item()
        if isinstance(dtype, pl.Datetime):
            return series.str.to_datetime(time_unit=dtype.time_unit).item()
        return series.cast(dtype).item()
    except pl.exceptions.PolarsError:
        msg = f"{option} {text!r} does not fit the column's dtype {dtype}"
        raise InputError(msg) from None


def add_input_options(
    parser: argparse.ArgumentParser, *, paths: bool = True, progress: bool = True
) -> None:
    """The input of a command: paths, ``--where``, ``--sql`` and ``--progress``."""
    if paths:
        parser.add_argument(
            "paths",
            nargs="+",
            metavar="PATH",
            help="prediction log: a .parquet/.csv/.ndjson file, a quoted glob such as "
            "'logs/**/*.parquet', or a folder (key=value subfolders become columns); "
            "several are read as one; or a DuckDB database (.duckdb, see --table)",
        )
    group = parser.add_argument_group("input filters")
    group.add_argument(
        "--where",
        metavar="PREDICATE",
        help="keep the rows where this SQL boolean expression holds, e.g. "
        "\"month >= '2026-01' AND channel = 'web'\"; applied in the scan, so "
        "Parquet partitions and row groups that cannot match are not read",
    )
    group.add_argument(
        "--sql",
        metavar="QUERY",
        help="a SQL query over the input as table `log` (after --where), e.g. "
        '"SELECT segment, score, label FROM log WHERE amount > 1000"',
    )
    group.add_argument(
        "--table",
        metavar="NAME",
        help="the table (or view) to read when the input is a DuckDB database "
        "(.duckdb) holding more than one",
    )
    add_null_values_option(group)
    group.add_argument(
        "--nan",
        choices=["raise", "drop"],
        default="raise",
        help="rows with a NaN score (which cannot be ranked): refuse them (raise, "
        "default) or leave them out (drop)",
    )
    if not progress:
        return
    group.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="show the stages (reading, counting, bootstrap) on stderr; default: only "
        "when stderr is a terminal",
    )


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    """``--engine polars|duckdb``: which engine reads the files and counts the rows."""
    parser.add_argument(
        "--engine",
        choices=["polars", "duckdb"],
        default="polars",
        help="where the rows are read and counted: polars (default) or duckdb (reads "
        "the files with DuckDB, --where/--sql in DuckDB's SQL; the same results, and "
        "only counts per segment come back; needs the duckdb extra)",
    )


def add_library_options(
    parser: argparse.ArgumentParser,
    *,
    score: bool = True,
    weight: bool = True,
    label: bool = True,
    direction: bool = True,
    count: bool = True,
) -> None:
    """Options passed to the library function under the same keyword (``--pos-label``
    gives ``pos_label=``); ``label=False`` (no label read), ``direction=False`` (a view
    of probabilities) and ``count=False`` leave those options out."""
    group = parser.add_argument_group("columns (the library's keywords)")
    dests: list[str] = []

    def keyword(*flags: str, **settings: Any) -> None:
        dests.append(group.add_argument(*flags, **settings).dest)

    if score:
        keyword(
            "--score",
            default="score",
            metavar="COL",
            help="score column, higher = more positive (default: score)",
        )
    if label:
        keyword(
            "--label", default="label", metavar="COL", help="true-label column (default: label)"
        )
        keyword(
            "--pos-label",
            metavar="VALUE",
            help="label value of the positive class (converted to the column's type); "
            "needed unless the label is Boolean or 0/1",
        )
    keyword(
        "--by",
        action="append",
        metavar="COL",
        help="segment column, one result per segment; repeat for several",
    )
    if weight:
        keyword("--weight", metavar="COL", help="column of non-negative sample weights")
    if count:
        keyword(
            "--count",
            metavar="COL",
            help="column of frequencies: each row stands for that many identical rows "
            "(a GROUP BY count table); results equal those of the expanded rows",
        )
    if direction:
        keyword(
            "--direction",
            choices=["higher", "lower"],
            default="higher",
            help="higher (default): a higher score is more positive; lower: a lower "
            "score is (bureau scores, distances), positive when score <= threshold",
        )
    if label:
        keyword(
            "--nulls",
            choices=["raise", "drop"],
            default="raise",
            help="rows with a null score or label: refuse them (raise, default) or drop "
            "them (NaN scores: --nan)",
        )
    parser.set_defaults(library_keywords=tuple(dests))


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """``--format`` and ``--out``: where and how a command writes its table."""
    group = parser.add_argument_group("output")
    group.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        help="table (aligned text, the default), csv, json (a list of rows; JSON has "
        "no infinity, so a +inf threshold reads null) or parquet (needs --out); "
        "default: from the --out extension, else table",
    )
    group.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    group.add_argument(
        "--columns",
        metavar="COL,...",
        type=lambda text: [c.strip() for c in text.split(",")],
        help="write only these columns, in this order (comma-separated), e.g. "
        "segment,threshold,tpr,fpr",
    )


def analysis(commands: Any, name: str, help_text: str, **flags: bool) -> argparse.ArgumentParser:
    """A subcommand with the shared input, column and output options (``flags`` as in
    :func:`add_library_options`)."""
    parser = commands.add_parser(name, help=help_text, description=help_text)
    add_input_options(parser)
    add_engine_option(parser)
    add_library_options(parser, **flags)
    add_output_options(parser)
    # What a command adds beyond these reaches its library call (commands._command).
    parser.set_defaults(shared_options=frozenset(a.dest for a in parser._actions))
    return parser


def library_options(args: argparse.Namespace, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The shared options as the library's keywords, ``--pos-label`` in the label's type."""
    options = {dest: getattr(args, dest) for dest in args.library_keywords}
    dtype = schema.get(getattr(args, "label", None) or "")
    if dtype is not None:
        options["pos_label"] = coerce_pos_label(args.pos_label, dtype)
    return options


def add_inference_options(
    parser: argparse.ArgumentParser, *, n_boot: bool = True, ci_method: bool = False
) -> None:
    if ci_method:
        parser.add_argument(
            "--ci-method",
            choices=["percentile", "bca"],
            help="of a bootstrap interval (--ci bootstrap; threshold-ci's always is): the "
            "percentile interval (default) or BCa, the bias-corrected and accelerated one",
        )
    parser.add_argument(
        "--conf-level",
        type=float,
        default=0.95,
        metavar="L",
        help="confidence level of the interval (default: 0.95)",
    )
    if n_boot:
        parser.add_argument(
            "--n-boot",
            type=int,
            default=2000,
            metavar="B",
            help="bootstrap replicates (default: 2000)",
        )
        parser.add_argument(
            "--seed",
            type=int,
            metavar="S",
            help="seed of the bootstrap, for reproducible intervals",
        )
