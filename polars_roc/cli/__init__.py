"""The ``polars-roc`` command: the library's tables of a prediction log, from a shell.

:mod:`~polars_roc.cli.inputs` finds and reads the input (files, globs, hive partitions,
Polars or DuckDB, ``--where``/``--sql``), :mod:`~polars_roc.cli.commands` holds the parser
and the commands, :mod:`~polars_roc.cli.output` writes their tables. Every analysis
command prints a table, CSV, JSON or writes Parquet. Bad input ends the command with exit
code 2 and a one-line message on stderr: :func:`main` turns errors and warnings into
lines a shell user can act on.
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import re
import shlex
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_roc.cli.commands import CONFUSION_SUMMARY, build_parser
from polars_roc.cli.inputs import (
    InputError,
    check_numeric_text,
    duckdb_relation,
    malformed_csv,
    parquet_columns_problem,
    parquet_types_problem,
    read_input,
)
from polars_roc.cli.options import add_null_values_option, coerce_pos_label
from polars_roc.cli.progress import Progress
from polars_roc.cli.report_command import add_report_command

__all__ = [
    "CONFUSION_SUMMARY",
    "InputError",
    "Progress",
    "add_null_values_option",
    "add_report_command",
    "build_parser",
    "check_numeric_text",
    "coerce_pos_label",
    "duckdb_relation",
    "main",
    "read_input",
]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``polars-roc``; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, or a usage error already reported
        return done.code if isinstance(done.code, int) else 0 if done.code is None else 2
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _show_warning
            return int(args.func(args))
    except KeyboardInterrupt:  # Ctrl-C in a long bootstrap: a shell's status, no traceback
        print("polars-roc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The output went to a reader that stopped early (`| head`): not an error. Point
        # stdout at /dev/null so that Python's flush at exit does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:  # an output path that cannot be written, say
        where = f" {err.filename!r}" if err.filename else ""
        print(
            f"polars-roc: error: cannot write or read{where}: {err.strerror or err}",
            file=sys.stderr,
        )
        return 2
    except Exception as err:
        if not isinstance(err, _reported_errors()):
            raise
        first_line = str(err).strip().splitlines()[0] if str(err).strip() else repr(err)
        sources = getattr(args, "paths", None) or getattr(args, "file", None)
        message = (
            malformed_csv(sources, err)
            or parquet_columns_problem(sources, err)
            or parquet_types_problem(sources, err)
            or _TYPE_MISMATCH.sub(_mismatch, first_line)
        )
        message = _as_options(message, getattr(args, "sql", None), getattr(args, "command", None))
        print(f"polars-roc: error: {message}", file=sys.stderr)
        return 2


# Polars' message when a file's column does not fit the first file's type; its hint
# (cast_options=) is for Python.
_TYPE_MISMATCH = re.compile(
    r"data type mismatch for column (.+?): incoming: (\S+?) != target: (\S+?)(?:,? hint: .*)?$"
)


def _mismatch(match: re.Match[str]) -> str:
    column, incoming, target = match.groups()
    return (
        f"column {column!r} is {incoming} in some files of the input but {target} in the "
        "first: the files of one log must agree on its type (narrow the input to files "
        "of one type, or rewrite the others)"
    )


def _reported_errors() -> tuple[type[Exception], ...]:
    """Errors of the input that end the command in one line (DuckDB's when it ran)."""
    duckdb = sys.modules.get("duckdb")
    engine = (duckdb.Error,) if duckdb is not None else ()
    return (InputError, ValueError, TypeError, pl.exceptions.PolarsError, *engine)


# The library's messages name its keyword arguments (`n_bins`, `ci='delong'`, fpr=); on
# the command line the same advice names the option (--n-bins, --ci delong, --fpr).
_OPTION_SPELLINGS = {
    "replace them (e.g. with .fill_nan(None) and nulls='drop')": "leave those rows out "
    "with --nan drop",
    "replace them (e.g. .fill_nan(None), nulls='drop')": "leave those rows out with --nan drop",
    "pos_label=": "--pos-label ",
    "nulls='drop'": "--nulls drop",
    "baseline='first'": "--baseline first",
    # After the backquoted keywords: `every=None`, which --every cannot say.
    "pass --every None to use": "leave out --every to use",
    "; got scores=None, predicted=None": "",
    "must be None or an integer": "must be an integer",
    "listing at least two classes, got None": "listing at least two classes",
    "assign folds with polars_roc.folds() or pass --fold": "pass the log's fold column as --fold",
    "pass scores=[champion, challenger]": "pass --scores CHAMPION CHALLENGER",
    "(e.g. with .rename())": "(e.g. with --sql)",
    "replace them (e.g. with .fill_nan(None): nulls get a bin of their own)": "leave those "
    "rows out with --nan drop",
    "and pass every=None": "and leave out --every",
    "columns, e.g. ['model_a', 'model_b']": "columns, e.g. --scores model_a model_b",
}
# A null period's, or a null in a column every row needs (a grade, a group): the fix in
# Python (fill_null), in the shell a filter.
_NULL_FILL = re.compile(
    r"fill (?:them|the nulls) \(e\.g\. pl\.col\((['\"])(.*?)\1\)\.fill_null\(\.\.\.\)\) "
    r"or filter those rows out first"
)

# A copy of a column under another name: in Python a new column, here a --sql query.
_COPY_COLUMN = re.compile(
    r"as the (\w+) \(e\.g\. \.with_columns\(pl\.col\((['\"])(.+?)\2\)\.alias\((['\"])(.+?)\4\)\)\)"
)


_QUOTED_KEYWORD = re.compile(r"`([a-z_]+)(?:=(?:'([^'`]*)'|([^`]*)))?`")


def _as_option(match: re.Match[str]) -> str:
    option = "--" + match.group(1).replace("_", "-")
    value = match.group(2) or match.group(3)
    if value == "True":  # a flag
        return option
    if value and value.startswith("[") and option == "--by":  # by=['a', 'b']: repeated
        return " ".join(f"--by {shlex.quote(str(c))}" for c in ast.literal_eval(value))
    return f"{option} {value}" if value else option


# A library function named in a message as a call, with or without a keyword
# (calibration_test(method='x'), compare_groups()): the command. Only calls: a bare
# name may be a user's path, column or table (score_table/part.parquet).
_FUNCTION = re.compile(r"(?<![\w'\"`./])([a-z][a-z0-9_]*)\((?:(\w+)=('[^']*'|\.\.\.))?\)")


@functools.cache
def _commands() -> dict[str, str]:
    """Library function names (and command names with ``_``) -> their command."""
    subcommands = next(
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    names = {name.replace("-", "_"): name for name in subcommands.choices}
    for name, parser in subcommands.choices.items():
        function = getattr(parser.get_default("function"), "__name__", "")
        names.setdefault(function, name)
    return names


def _as_command(match: re.Match[str]) -> str:
    function, keyword, value = match.groups()
    command = _commands().get(function)
    if command is None:
        return match.group(0)
    if keyword is None:
        return command
    option = "--" + keyword.replace("_", "-")
    return f"{command} {option} {value.strip(chr(39))}"


def _as_copy(match: re.Match[str], sql: str | None = None) -> str:
    role, _, name, _, copy = match.groups()
    flag = f"--{role} {shlex.quote(copy)}"
    if sql is not None:  # the user's own query: the copy goes into it
        return f'as the {role} (e.g. add "{name}" AS "{copy}" to the SELECT of --sql, and {flag})'
    query = f'SELECT *, "{name}" AS "{copy}" FROM log'
    return f"as the {role} (e.g. --sql {shlex.quote(query)} {flag})"


def _show_warning(message: Warning | str, *where: Any, **file: Any) -> None:
    """Warnings (e.g. single-class segments) as one line of the command, not of Python."""
    print(f"polars-roc: warning: {_as_options(str(message))}", file=sys.stderr)


# The same keywords outside backquotes: ci='logit', weight='exposure', test=True,
# max_fpr= (the value, if any, a quoted text or True; a number stays as it is). Only
# the options' names: a group is named as g='a' in warnings, which must stay.
_BARE_OPTIONS = (
    "alternative|at_fpr|at_tpr|ci|ci_method|conf_level|count|fpr_range|tpr_range|max_fpr|"
    "method|n_boot|smooth|"
    "band|test|weight|by|direction|bins|n_bins|strategy"
)
_BARE_KEYWORD = re.compile(
    rf"(?<![\w.`\[-])(?<!\w\()({_BARE_OPTIONS})=(?:'([^']*)'|(True|None)\b|(?![\w'\"(]))"
)


def _as_bare_option(match: re.Match[str]) -> str:
    option = "--" + match.group(1).replace("_", "-")
    if match.group(3) == "None":  # ci=None: the option was not given
        return f"no {option}"
    return f"{option} {match.group(2)}" if match.group(2) else option


def _without_nulls(match: re.Match[str]) -> str:
    predicate = _quoted_name(match.group(2)) + " IS NOT NULL"
    return f"leave them out with --where {shlex.quote(predicate)}"


def _quoted_name(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# A list of groups in a warning ([seg='a', method='b']): a group column may bear an
# option's name, and its values stay as they are.
_GROUPS = re.compile(r"(\[[^\[\]]*\])")


# A command whose flag for a keyword is not the keyword's name: psi's `columns` would
# clash with the output's --columns, and is --characteristic.
_KEYWORDS_OF = {
    "psi": {"`columns`": "--characteristic", "columns=": "--characteristic", "score=": "--score"}
}


def _as_options(message: str, sql: str | None = None, command: str | None = None) -> str:
    for keyword, option in _KEYWORDS_OF.get(command or "", {}).items():
        message = message.replace(keyword, option)
    copy = functools.partial(_as_copy, sql=sql)
    message = _COPY_COLUMN.sub(copy, _FUNCTION.sub(_as_command, message))
    message = _NULL_FILL.sub(_without_nulls, message)
    message = _QUOTED_KEYWORD.sub(_as_option, message)
    for keyword, option in _OPTION_SPELLINGS.items():
        message = message.replace(keyword, option)
    parts = _GROUPS.split(message)  # odd positions: the bracketed lists
    return "".join(
        _NULL_VALUE.sub(_as_null, p) if i % 2 else _BARE_KEYWORD.sub(_as_bare_option, p)
        for i, p in enumerate(parts)
    )


# A group's null value, None in Python's words (seg=None), outside quoted texts.
_NULL_VALUE = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|=None(?=[,;\]])""")


def _as_null(match: re.Match[str]) -> str:
    """``=None`` as the command writes a missing value (``null``), quoted texts as they are."""
    return match.group(1) or "=null"
