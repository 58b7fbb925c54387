"""The ``polars-roc`` command: the library's tables of a prediction log, from a shell.

Input is a file, a glob, a folder or several of these (Parquet, CSV or NDJSON, by
extension), read lazily with Polars' own scanners; ``key=value`` folders (hive
partitioning) become columns. ``--where`` filters in the scan (so Parquet partitions
and row groups are skipped), ``--sql`` runs a query over the input as table ``log``.
Every analysis command prints a table, CSV, JSON or writes Parquet. Bad input ends the
command with exit code 2 and a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import csv
import glob
import importlib.util
import os
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import polars as pl

import polars_roc as pr
from polars_roc.core.engines import ENGINE_COUNT
from polars_roc.core.validate import missing_column
from polars_roc.report.html import (
    add_over_time_arguments,
    build_report,
    javascript_bundle,
    over_time_options,
)

__all__ = [
    "add_null_values_option",
    "check_numeric_text",
    "coerce_pos_label",
    "main",
    "read_input",
    "scan",
]

READERS: dict[str, Callable[..., pl.LazyFrame]] = {
    ".parquet": pl.scan_parquet,
    ".pq": pl.scan_parquet,
    ".csv": pl.scan_csv,
    ".ndjson": pl.scan_ndjson,
    ".jsonl": pl.scan_ndjson,
}
# The format each extension stands for: files of one input must share it.
FORMATS = {
    ".parquet": "Parquet",
    ".pq": "Parquet",
    ".csv": "CSV",
    ".ndjson": "NDJSON",
    ".jsonl": "NDJSON",
}
GLOB_CHARACTERS = frozenset("*?[")
# The column that carries each CSV/NDJSON row's file while its hive columns are derived.
_PATH_COLUMN = "__polars_roc_source_path"


class InputError(Exception):
    """A problem with the command line or the input, reported in one line (exit 2)."""


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, like every other error of the command (exit 2).

    Abbreviated options are refused: ``--score`` must not pass for ``--scores``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"polars-roc: error: {message} (see: {self.prog} --help)\n")


# --------------------------------------------------------------------------------------
# Progress on a terminal


class Progress:
    """Stage messages on stderr: a live line on a terminal, nothing when not asked.

    On a terminal (the default there) a stage shows as one status line with its elapsed
    time, rewritten in place and cleared when the stage ends. When stderr is not a
    terminal the command is silent unless ``--progress`` forces plain lines (no ``\\r``),
    which suits log files.
    """

    def __init__(self, enabled: bool | None = None, *, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = self.terminal if enabled is None else enabled

    @contextmanager
    def stage(self, message: str, *, ticking: bool = True) -> Iterator[None]:
        """Show ``message`` while the block runs (Polars releases the GIL meanwhile).

        ``ticking=False`` leaves the line to a counter that the block prints itself.
        """
        if not self.enabled:
            yield
            return
        if not self.terminal:
            print(f"polars-roc: {message}", file=self.stream, flush=True)
            yield
            return
        if not ticking:
            # The block's own counter (the bootstrap's) updates the line below this one.
            print(f"\r\033[K{message}", file=self.stream, flush=True)
            yield
            return
        started, done = time.perf_counter(), threading.Event()

        def tick() -> None:
            while not done.wait(0.25):
                seconds = time.perf_counter() - started
                self.stream.write(f"\r\033[K{message} ... {seconds:.1f}s")
                self.stream.flush()

        ticker = threading.Thread(target=tick, daemon=True)
        self.stream.write(f"\r\033[K{message} ...")
        self.stream.flush()
        ticker.start()
        try:
            yield
        finally:
            done.set()
            ticker.join()
            self.stream.write("\r\033[K")
            self.stream.flush()

    @property
    def library(self) -> bool:
        """Whether the library's own bootstrap counter may print (it updates one line
        with ``\\r`` on a terminal and prints plain lines otherwise)."""
        return self.enabled


# --------------------------------------------------------------------------------------
# Reading the input


def _is_hidden(path: Path, base: Path) -> bool:
    # Spark and Hadoop leave _SUCCESS, _metadata and .crc files beside the data.
    return any(part.startswith(("_", ".")) for part in path.relative_to(base).parts)


def _data_files(source: str) -> tuple[list[Path], Path | None]:
    """The data files a command-line path stands for, and the folder hive keys start below.

    The folder is ``None`` when every ``key=value`` part of the paths counts (a file, a
    glob, a partition folder, or a folder holding other files too).
    """
    path = Path(source)
    if path.is_file() and path.suffix.lower() in READERS:
        return [path], None
    if path.is_dir():
        every = sorted(p for p in path.rglob("*") if p.is_file())
        data = [p for p in every if p.suffix.lower() in READERS and not _is_hidden(p, path)]
        if not data:
            msg = f"folder {source!r} holds no .parquet, .csv or .ndjson file"
            raise InputError(msg)
        # A dataset's root: its partitions count from it down (Polars' rule for a
        # folder, which it reads whole, hidden files included). A partition folder
        # named itself (logs/month=2026-01), or one holding other files (_SUCCESS), is
        # read as its list of data files: every key=value in their paths counts.
        root = len(data) == len(every) and len({p.suffix for p in data}) == 1
        return data, path if root and "=" not in path.resolve().name else None
    if GLOB_CHARACTERS & set(source):
        matched = sorted(Path(p) for p in glob.glob(source, recursive=True))
        files = [p for p in matched if p.is_file() and not p.name.startswith(("_", "."))]
        if not files:
            msg = f"{source!r} matches no file"
            raise InputError(msg)
        for file in files:
            if file.suffix.lower() not in READERS:
                msg = (
                    f"{str(file)!r} (matched by {source!r}) is not .parquet, .csv or "
                    f".ndjson; narrow the pattern, e.g. '*.parquet'"
                )
                raise InputError(msg)
        return files, None
    if path.suffix.lower() not in READERS:
        msg = f"cannot read {source!r}: expected one of {sorted(READERS)} extensions"
        raise InputError(msg)
    msg = f"file not found: {source!r}"
    raise InputError(msg)


def _hive_values(file: Path, base: Path | None) -> dict[str, str]:
    inner = file.parent.relative_to(base) if base is not None else file.parent
    return dict(part.split("=", 1) for part in inner.parts if "=" in part)


def _with_hive_columns(frame: pl.LazyFrame, files: list[Path], base: Path | None) -> pl.LazyFrame:
    """Hive columns for CSV/NDJSON, whose Polars scanners do not derive them."""
    values = {str(file): _hive_values(file, base) for file in files}
    keys = list(dict.fromkeys(key for found in values.values() for key in found))
    if not keys:
        return frame.drop(_PATH_COLUMN)
    columns = []
    for key in keys:
        # One small map per key (files, not rows); typed as Polars types Parquet's.
        per_file = _typed_hive_values(
            pl.Series(key, [found.get(key) for found in values.values()], pl.String)
        )
        columns.append(
            pl.col(_PATH_COLUMN)
            .replace_strict(list(values), per_file, return_dtype=per_file.dtype)
            .alias(key)
        )
    return frame.with_columns(columns).drop(_PATH_COLUMN)


def _typed_hive_values(values: pl.Series) -> pl.Series:
    """Integers, decimals and ISO dates typed, as Polars types Parquet partition values."""
    present = values.drop_nulls()
    for dtype in (pl.Int64(), pl.Float64()):
        if present.cast(dtype, strict=False).null_count() == 0:
            return values.cast(dtype, strict=False)
    dates = values.str.to_date("%Y-%m-%d", strict=False)
    return dates if dates.null_count() == values.null_count() else values


def read_input(
    sources: str | Sequence[str],
    *,
    where: str | None = None,
    sql: str | None = None,
    progress: Progress | None = None,
    null_values: Sequence[str] | None = None,
) -> pl.LazyFrame:
    """The rows of one or several paths (files, globs, folders), filtered, lazily.

    Parameters
    ----------
    sources
        A file (``.parquet``/``.pq``, ``.csv``, ``.ndjson``/``.jsonl``), a glob or a
        folder, or a list of them, read as one log; all of one format. Files named
        ``_*`` or ``.*`` are skipped.
    where
        A SQL boolean expression (``pl.sql_expr``) applied to the scan.
    sql
        A SQL query over the rows (after ``where``) as table ``log``; its result is
        returned.
    progress
        Where stage messages go; none by default.
    null_values
        Texts that mark a missing value in CSV files, e.g. ``["NA"]`` (CSV only).

    Returns
    -------
    pl.LazyFrame
        The rows, with one column per ``key=value`` folder (hive partitioning). A folder
        is a dataset's root: its keys count from it down; for files and globs, every
        ``key=value`` of the path does. Parquet keeps Polars' own partitioning, so a
        ``where`` on a key skips the other partitions' files; CSV and NDJSON get the
        same columns from the paths, typed alike (integer, float, ISO date, text).

    Raises
    ------
    InputError
        A path that matches nothing, files of two formats, bad SQL, or (CSV and
        NDJSON, whose columns are typed from rows) no rows.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> root = Path(tempfile.mkdtemp())
    >>> for month in ("2026-01", "2026-02"):
    ...     (root / f"month={month}").mkdir()
    ...     pl.DataFrame({"score": [0.8, 0.3], "label": [1, 0]}).write_parquet(
    ...         root / f"month={month}" / "part-0.parquet")
    >>> read_input(str(root), where="month = '2026-02'").collect()
    shape: (2, 3)
    ┌───────┬───────┬─────────┐
    │ score ┆ label ┆ month   │
    │ ---   ┆ ---   ┆ ---     │
    │ f64   ┆ i64   ┆ str     │
    ╞═══════╪═══════╪═════════╡
    │ 0.8   ┆ 1     ┆ 2026-02 │
    │ 0.3   ┆ 0     ┆ 2026-02 │
    └───────┴───────┴─────────┘
    >>> import shutil; shutil.rmtree(root)
    """
    progress = progress or Progress(False)
    sources = [sources] if isinstance(sources, str) else list(sources)
    if not sources:
        msg = "no input: give a file, a glob or a folder"
        raise InputError(msg)
    resolved = [_data_files(source) for source in sources]
    formats = {FORMATS[file.suffix.lower()] for files, _ in resolved for file in files}
    if len(formats) > 1:
        msg = (
            f"the input mixes formats ({', '.join(sorted(formats))}); give files of "
            "one format, e.g. with a glob such as 'logs/**/*.parquet'"
        )
        raise InputError(msg)
    if null_values and formats != {"CSV"}:
        msg = f"--null-values applies to CSV files only, got {', '.join(map(repr, sources))}"
        raise InputError(msg)
    n_files = sum(len(files) for files, _ in resolved)
    with progress.stage(f"reading {n_files} {next(iter(formats))} file(s)"):
        scans = [_scan_source(files, base, null_values) for files, base in resolved]
        frame = scans[0] if len(scans) == 1 else pl.concat(scans, how="vertical_relaxed")
        frame.collect_schema()
    if where is not None:
        only_the_log("--where", where)
        frame = _apply("--where", where, frame, lambda log: log.filter(pl.sql_expr(where)))
    if sql is not None:
        only_the_log("--sql", sql)
        frame = _apply(
            "--sql", sql, frame, lambda log: pl.SQLContext(log=log).execute(sql, eager=False)
        )
    if "Parquet" not in formats:
        # A header-only CSV reads as String columns, which would fail on their dtype.
        # (Parquet columns are typed without rows: an empty result says it, after the
        # one pass over the data.)
        with progress.stage("checking for rows"):
            empty = frame.head(1).collect().height == 0
        if empty:
            raise InputError(no_rows(sources, where, sql))
    return frame


def no_rows(sources: Sequence[str], where: str | None, sql: str | None) -> str:
    """The message of an input that has no rows (after its filters)."""
    named = sources[0] if len(sources) == 1 else f"{len(sources)} inputs"
    filtered = " after --where/--sql" if where is not None or sql is not None else ""
    return f"{named!r} has no rows{filtered}: there is nothing to evaluate"


def _scan_source(
    files: list[Path], base: Path | None, null_values: Sequence[str] | None = None
) -> pl.LazyFrame:
    reader = READERS[files[0].suffix.lower()]
    if reader is not pl.scan_parquet:
        extra = {"null_values": list(null_values)} if null_values else {}
        frame = reader([str(file) for file in files], include_file_paths=_PATH_COLUMN, **extra)
        return _with_hive_columns(frame, files, base)
    # Polars derives the hive columns itself and prunes files on them. Given a folder it
    # counts partitions from there down; given files, every key=value in their paths.
    options: dict[str, Any] = {"hive_partitioning": True}
    if len(files) > 1:
        options |= {"schema": _widened(pl.read_parquet_schema(files[0])), "cast_options": _WIDENING}
    if base is not None:
        return pl.scan_parquet(base, **options)
    return pl.scan_parquet([str(file) for file in files], **options)


# Files of one log written at different times may store a column as Float32 in some and
# Float64 in others (or Int32 and Int64). Polars takes the first file's types; read as
# the widest of their kind, every file fits without a value changed, and only the first
# file's footer is read here (a --where still skips the other partitions unopened).
_WIDENING = pl.ScanCastOptions(integer_cast=["upcast", "allow-float"], float_cast="upcast")


def _widened(schema: Mapping[str, pl.DataType]) -> pl.Schema:
    widest = {True: pl.Int64(), False: pl.UInt64()}
    return pl.Schema(
        {
            name: pl.Float64()
            if dtype.is_float()
            else widest[dtype.is_signed_integer()]
            if dtype.is_integer()
            else dtype
            for name, dtype in schema.items()
        }
    )


# Polars' SQL reads files through table functions (`read_csv('/etc/passwd')`, also
# quoted or with comments before the parenthesis), in a query and in a --where sub-query.
# The names are refused wherever they appear, strings included: a filter pasted from
# elsewhere must see the log and nothing else.
_TABLE_FUNCTIONS = re.compile(
    r"\bread_(?:csv|parquet|ipc|json|ndjson|delta|avro|excel|database)\b|\bU&", re.IGNORECASE
)
# Statements other than a query: Polars runs them in its context (a CREATE TABLE gives
# no log), so they are refused by name; a misspelt SELECT keeps Polars' parse error.
_NOT_A_QUERY = re.compile(
    r"\s*(?:(?:--[^\n]*\n|/\*.*?\*/)\s*)*"
    r"(?:CREATE|DROP|TRUNCATE|INSERT|UPDATE|DELETE|ALTER|COPY|SET|EXPLAIN|SHOW|ATTACH)\b",
    re.IGNORECASE | re.DOTALL,
)


def only_the_log(option: str, text: str) -> None:
    """Refuse SQL (Polars' dialect) that could read anything but the log, or write."""
    found = _TABLE_FUNCTIONS.search(text)
    if found:
        msg = (
            f"{option} {text!r}: {found.group()!r} is refused: {option} reads the log "
            "(table 'log') and nothing else"
        )
        raise InputError(msg)
    if option == "--sql" and _NOT_A_QUERY.match(text):
        msg = f"{option} {text!r}: give one SELECT query over table 'log'"
        raise InputError(msg)


def _apply(
    option: str,
    text: str,
    frame: pl.LazyFrame,
    build: Callable[[pl.LazyFrame], pl.LazyFrame],
) -> pl.LazyFrame:
    """Build a filtered plan, turning SQL and column errors into one line naming ``option``.

    The query first runs on no rows of the log's schema: a type error (a string
    compared with a number) surfaces here, named, instead of in the count.
    """
    try:
        build(pl.LazyFrame(schema=frame.collect_schema())).collect()
        filtered = build(frame)
        filtered.collect_schema()
    except pl.exceptions.PolarsError as err:
        first_line = str(err).strip().splitlines()[0] if str(err).strip() else repr(err)
        msg = f"{option} {text!r}: {first_line}"
        raise InputError(msg) from None
    return filtered


def scan(path: str | Sequence[str]) -> pl.LazyFrame:
    """Scan a file, glob or folder (or several) lazily; see :func:`read_input`."""
    return read_input(path)


# --------------------------------------------------------------------------------------
# Options


def add_null_values_option(parser: Any) -> None:
    """``--null-values TEXT`` (repeatable): texts of a CSV file that mean a missing value."""
    parser.add_argument(
        "--null-values",
        action="append",
        default=None,
        metavar="TEXT",
        help="text marking a missing value in a CSV file, e.g. NA; repeat for several",
    )


def check_numeric_text(
    frame: pl.LazyFrame, columns: dict[str, str | None], sources: str | Sequence[str]
) -> None:
    """Refuse a score or weight column read as text, naming the texts and the fix.

    A CSV exported from R writes missing values as ``NA``: the column then reads as text
    and the library would only say it is not numeric. Only columns holding numbers
    besides the texts are checked; a column of text only (a wrong column) is left to the
    library's message.
    """
    paths = [sources] if isinstance(sources, str) else list(sources)
    if not all(Path(path).suffix.lower() == ".csv" for path in paths):
        return
    named = paths[0] if len(paths) == 1 else f"{len(paths)} inputs"
    schema = frame.collect_schema()
    for role, name in columns.items():
        if name is None or schema.get(name) != pl.String:
            continue
        column = pl.col(name)
        number = column.str.strip_chars().cast(pl.Float64, strict=False)
        found = frame.select(
            number.is_not_null().any().alias("numbers"),
            column.filter(column.is_not_null() & number.is_null())
            .unique(maintain_order=True)
            .head(3)
            .implode()
            .alias("texts"),
        ).collect()
        texts = found["texts"][0].to_list()
        if not found["numbers"][0] or not texts:
            continue
        shown = ", ".join(repr(t) for t in texts)
        flags = " ".join(f"--null-values {t}" for t in texts if t.strip() and " " not in t)
        fix = (
            f"if {'they mark' if len(texts) > 1 else 'it marks'} missing values, pass "
            f"{flags} (and --nulls drop to leave those rows out)"
            if flags
            else "fix the file"
        )
        msg = (
            f"{role} column {name!r} of {named!r} holds text that is not a number ({shown}); {fix}"
        )
        raise InputError(msg)


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
            "several are read as one",
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
        default=None,
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


def add_library_options(parser: argparse.ArgumentParser, *, score: bool = True) -> None:
    """Options passed to the library function under the same keyword (``--pos-label``
    gives ``pos_label=``): every analysis command has them.

    An option added here with ``keyword(...)`` reaches every library call unchanged.
    """
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
    keyword("--label", default="label", metavar="COL", help="true-label column (default: label)")
    keyword(
        "--pos-label",
        metavar="VALUE",
        help="label value of the positive class (converted to the column's type); "
        "needed unless the label is Boolean or 0/1",
    )
    keyword(
        "--by",
        action="append",
        default=None,
        metavar="COL",
        help="segment column, one result per segment; repeat for several",
    )
    keyword("--weight", metavar="COL", help="column of non-negative sample weights")
    keyword(
        "--count",
        metavar="COL",
        help="column of frequencies: each row stands for that many identical rows "
        "(a GROUP BY count table); results equal those of the expanded rows",
    )
    keyword(
        "--direction",
        choices=["higher", "lower"],
        default="higher",
        help="higher (default): a higher score is more positive; lower: a lower "
        "score is (bureau scores, distances), positive when score <= threshold",
    )
    keyword(
        "--nulls",
        choices=["raise", "drop"],
        default="raise",
        help="rows with a null score or label: refuse them (raise, default) or drop them "
        "(NaN scores: --nan)",
    )
    # Further counting options (--engine) go here, one keyword() line each.
    parser.set_defaults(library_keywords=tuple(dests))


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """``--format`` and ``--out``: where and how a command writes its table."""
    group = parser.add_argument_group("output")
    group.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        default=None,
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


def _analysis(
    commands: Any, name: str, help_text: str, *, score: bool = True, description: str | None = None
) -> argparse.ArgumentParser:
    """A subcommand with the shared input, column and output options."""
    parser = commands.add_parser(name, help=help_text, description=description or help_text)
    add_input_options(parser)
    add_engine_option(parser)
    add_library_options(parser, score=score)
    add_output_options(parser)
    return parser


def _options(args: argparse.Namespace, frame: pl.LazyFrame) -> dict[str, Any]:
    options = {dest: getattr(args, dest) for dest in args.library_keywords}
    dtype = frame.collect_schema().get(args.label)
    if dtype is not None:
        options["pos_label"] = coerce_pos_label(args.pos_label, dtype)
    return options


# --------------------------------------------------------------------------------------
# Output


_SUFFIX_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".json": "json"}


def _emit(table: pl.DataFrame, args: argparse.Namespace) -> None:
    if args.columns:
        table = table.select(args.columns)
    fmt = args.format or _SUFFIX_FORMATS.get(Path(args.out or "").suffix.lower(), "table")
    if fmt == "parquet":
        if args.out is None:
            msg = "--format parquet writes a binary file: pass --out FILE.parquet"
            raise InputError(msg)
        out_folder(args.out)
        table.write_parquet(args.out)
        return
    text = _render(table, fmt)
    if args.out is None:
        sys.stdout.write(text)
        return
    out_folder(args.out)
    Path(args.out).write_text(text, encoding="utf-8")


def out_folder(out: str | Path) -> None:
    """Create the folder of ``--out`` if missing, and say so (even when quiet): a typo
    in a path should not go unnoticed."""
    folder = Path(out).parent
    if not folder.is_dir():
        folder.mkdir(parents=True)
        print(f"polars-roc: created folder {str(folder)!r} for --out", file=sys.stderr)


def _render(frame: pl.DataFrame, fmt: str) -> str:
    if fmt == "csv":
        return frame.write_csv()
    if fmt == "json":
        return frame.write_json() + "\n"
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=40):
        return f"{frame}\n"


def _print(frame: pl.DataFrame | pl.LazyFrame, fmt: str) -> None:
    table = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
    sys.stdout.write(_render(table, fmt))


# --------------------------------------------------------------------------------------
# Commands


def _input(args: argparse.Namespace) -> tuple[pl.LazyFrame, Progress]:
    progress = Progress(args.progress)
    frame = read_input(
        args.paths, where=args.where, sql=args.sql, progress=progress, null_values=args.null_values
    )
    check_numeric_text(
        frame, {"score": getattr(args, "score", None), "weight": args.weight}, args.paths
    )
    return without_nan(frame, _scores(args)) if args.nan == "drop" else frame, progress


def _scores(args: argparse.Namespace) -> list[str]:
    return list(getattr(args, "scores", None) or [args.score])


def without_nan(frame: Any, scores: Sequence[str]) -> Any:
    """``--nan drop``: the rows of a Polars LazyFrame or a DuckDB relation whose float
    scores are not NaN (a null score stays, for ``--nulls``)."""
    if isinstance(frame, pl.LazyFrame):
        schema = frame.collect_schema()
        floats = [c for c in scores if c in schema and schema[c].is_float()]
        return frame.filter(~pl.col(c).is_nan().fill_null(False) for c in floats)
    types = dict(zip(frame.columns, map(str, frame.types), strict=True))
    floats = [c for c in scores if types.get(c) in ("FLOAT", "DOUBLE")]
    if not floats:
        return frame
    quoted = ('"' + c.replace('"', '""') + '"' for c in floats)
    return frame.filter(" AND ".join(f"NOT coalesce(isnan({c}), false)" for c in quoted))


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


def _inference(args: argparse.Namespace, progress: Progress, ci: str | None) -> dict[str, Any]:
    # Interval options without --ci reach the library, which refuses them.
    return {
        "conf_level": args.conf_level,
        "seed": args.seed,
        "n_boot": args.n_boot,
        "progress": ci == "bootstrap" and progress.library,
    }


def _add_inference_options(parser: argparse.ArgumentParser, *, n_boot: bool = True) -> None:
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
            default=None,
            metavar="S",
            help="seed of the bootstrap, for reproducible intervals",
        )


def _duckdb_input(args: argparse.Namespace) -> tuple[Any, Progress]:
    """``--engine duckdb``: the command's input as a DuckDB relation (see
    :func:`duckdb_relation`). The rows stay in DuckDB; the library counts them there
    (see docs/big-logs.md)."""
    relation = duckdb_relation(
        args.paths, where=args.where, sql=args.sql, null_values=args.null_values
    )
    # CSV: a score read as text gets the Polars path's advice (reads only when it is text).
    columns = {"score": getattr(args, "score", None), "weight": args.weight}
    check_numeric_text(relation.pl(lazy=True), columns, args.paths)
    if args.nan == "drop":
        relation = without_nan(relation, _scores(args))
    return relation, Progress(args.progress)


def duckdb_relation(
    sources: Sequence[str],
    *,
    where: str | None = None,
    sql: str | None = None,
    null_values: Sequence[str] | None = None,
) -> Any:
    """The rows of the paths as a DuckDB relation: ``read_parquet`` / ``read_csv`` /
    ``read_json`` over the files the paths stand for (found as :func:`read_input` finds
    them; hive columns from their ``key=value`` folders), ``where`` and ``sql`` (over
    table ``log``) in DuckDB's SQL. Nothing is read but the schema.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> root = Path(tempfile.mkdtemp())
    >>> for month in (1, 2):
    ...     (root / f"month={month}").mkdir()
    ...     pl.DataFrame({"score": [0.8, 0.3], "label": [1, 0]}).write_parquet(
    ...         root / f"month={month}" / "part-0.parquet")
    >>> relation = duckdb_relation([str(root)], where="month = 2")
    >>> relation.columns
    ['score', 'label', 'month']
    >>> relation.order("score").fetchall()
    [(0.3, 0, 2), (0.8, 1, 2)]
    >>> import shutil; shutil.rmtree(root)
    """
    try:
        import duckdb
    except ImportError:
        msg = "--engine duckdb needs the duckdb package: pip install 'polars-roc[duckdb]'"
        raise InputError(msg) from None
    if importlib.util.find_spec("pyarrow") is None:
        # DuckDB hands its counts to Polars as Arrow tables.
        msg = "--engine duckdb needs the pyarrow package: pip install 'polars-roc[duckdb]'"
        raise InputError(msg)
    resolved = [_data_files(source) for source in sources]
    files = [file for found, _ in resolved for file in found]
    formats = {FORMATS[file.suffix.lower()] for file in files}
    if len(formats) > 1:
        msg = (
            f"the input mixes formats ({', '.join(sorted(formats))}); give files of "
            "one format, e.g. with a glob such as 'logs/**/*.parquet'"
        )
        raise InputError(msg)
    if null_values and formats != {"CSV"}:  # as read_input says it
        msg = f"--null-values applies to CSV files only, got {', '.join(map(repr, sources))}"
        raise InputError(msg)
    fmt = formats.pop()
    # As Polars reads them: Parquet files' types widened to a common one (DuckDB would
    # take the first file's, turning a Float64 into a Float32 or a text into a number;
    # a text column in one file now makes the column text, which the checks refuse),
    # CSV files split at commas under a header (DuckDB would guess, and read a malformed
    # file as one column).
    extra = {
        "Parquet": ", union_by_name = true" if len(files) > 1 else "",
        "CSV": ", delim = ',', header = true",
        "NDJSON": "",
    }[fmt]
    reader = {"Parquet": "read_parquet", "CSV": "read_csv", "NDJSON": "read_json"}
    listed = ", ".join("'" + str(file).replace("'", "''") + "'" for file in files)
    nulls = ""
    if null_values:
        nulls = (
            ", nullstr = [" + ", ".join("'" + v.replace("'", "''") + "'" for v in null_values) + "]"
        )
    # DuckDB takes every key=value of a file's path; a folder is the dataset's root, as
    # read_input reads it, so the keys of the folders above the roots are left out.
    roots = [base for _, base in resolved]
    above = sorted(
        {key for base in roots if base is not None for key in _hive_values(base / "_", None)}
    )
    exclude = ""
    if above and None not in roots:
        exclude = " EXCLUDE (" + ", ".join('"' + k.replace('"', '""') + '"' for k in above) + ")"
    connection = duckdb.connect()
    query = (
        f"SELECT *{exclude} FROM {reader[fmt]}([{listed}], hive_partitioning = true{extra}{nulls})"
    )
    # The user's SQL sees the log and nothing else: the files are the only paths DuckDB
    # may open, and the setting is locked against a `SET` in the query.
    # DuckDB 2.0 folds isnan(score) to false from Parquet statistics that leave NaN
    # out (Polars writes such), so NaN scores would pass every check unseen.
    connection.execute("SET disabled_optimizers = 'statistics_propagation'")
    connection.execute(f"SET allowed_paths = [{listed}]")
    connection.execute("SET enable_external_access = false")
    connection.execute("SET lock_configuration = true")

    def step(option: str, text: str, build: Callable[[], Any]) -> Any:
        try:
            relation = build()
            relation.columns  # noqa: B018  (binds the query: errors surface here)
        except duckdb.Error as err:
            first_line = str(err).strip().splitlines()[0]
            msg = f"{option} {text!r}: {first_line}"
            raise InputError(msg) from None
        return relation

    relation = step("--engine duckdb", query, lambda: connection.sql(query))
    if where is not None:
        relation = step("--where", where, lambda: relation.filter(where))
    if sql is not None:
        connection.register("log", relation)
        relation = step("--sql", sql, lambda: connection.sql(_one_select(sql, duckdb)))
    return relation


def _one_select(sql: str, duckdb: Any) -> str:
    """``sql`` if it is one SELECT statement (no write, no second statement)."""
    statements = duckdb.extract_statements(sql)
    if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
        msg = f"--sql {sql!r}: give one SELECT query over table 'log'"
        raise InputError(msg)
    return sql


# A library call of a command: (log, the shared options, progress) -> its table.
_Analysis = Callable[[Any, dict[str, Any], Progress], "pl.DataFrame | pl.LazyFrame"]


def _evaluate(
    args: argparse.Namespace, call: _Analysis, *, resampling: bool = False
) -> pl.DataFrame:
    """Read the command's log, call the library on it, count: every analysis command's path.

    ``--engine polars`` (the default): Polars scans the files lazily and the library's
    plan runs in :func:`_compute`. ``--engine duckdb``: the log is a DuckDB relation
    (:func:`_duckdb_input`); the library counts in DuckDB during the call and only the
    counts come back, so the same options give the same table.
    """
    if args.engine == "polars":
        frame, progress = _input(args)
        table = call(frame, _options(args, frame), progress)
        return _compute(table, progress, args, resampling=resampling)
    frame, progress = _duckdb_input(args)
    empty = frame.limit(0).pl().lazy()  # the relation's schema, no row read
    schema = empty.collect_schema()
    # The columns of the options, checked before DuckDB runs and named by role as the
    # Polars path names them (the library's engine check knows no roles).
    scores = getattr(args, "scores", None) or [args.score]
    roles = [*(("score", name) for name in scores), ("label", args.label)]
    roles += [("weight", args.weight), ("count", args.count)]
    roles += [("by", name) for name in args.by or []]
    for role, name in roles:
        if name is not None and name not in schema:
            raise missing_column(role, name, schema)
    options = _options(args, empty)
    message = "counting in DuckDB" + (" and resampling" if resampling else "")
    try:
        with progress.stage(message, ticking=not (resampling and progress.library)):
            table = call(frame, options, progress)
        return _compute(table, progress, args)
    except ValueError as err:
        # The library checks DuckDB's count table, whose count column is its own: the
        # message names the user's --count column instead.
        if args.count is None or repr(ENGINE_COUNT) not in str(err):
            raise
        raise type(err)(str(err).replace(repr(ENGINE_COUNT), repr(args.count))) from None


def _run_auc(args: argparse.Namespace) -> int:
    extra = {"max_fpr": args.max_fpr} if args.max_fpr is not None else {}
    if args.bins is not None:
        extra["bins"] = args.bins
    table = _evaluate(
        args,
        lambda frame, options, progress: pr.roc_auc(
            frame, **options, ci=args.ci, **_inference(args, progress, args.ci), **extra
        ),
        resampling=args.ci == "bootstrap",
    )
    _emit(table, args)
    return 0


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


def _summary(table: pl.DataFrame, args: argparse.Namespace) -> pl.DataFrame:
    """The usual measures of a confusion table; every one with ``--all-measures``, and
    ``--columns`` picks among all."""
    if args.all_measures or args.columns:
        return table
    extra = [column for column in ("criterion",) if column in table.columns]
    return table.select(*(args.by or []), *CONFUSION_SUMMARY, *extra)


def _add_all_measures(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--all-measures",
        action="store_true",
        help=f"write every measure column (default: {', '.join(CONFUSION_SUMMARY)})",
    )


def _run_confusion(args: argparse.Namespace) -> int:
    table = _evaluate(
        args,
        lambda frame, options, _: pr.confusion_matrix(
            frame, args.threshold, **options, prevalence=args.prevalence
        ),
    )
    table = _summary(table, args)
    fmt = args.format or _SUFFIX_FORMATS.get(Path(args.out or "").suffix.lower(), "table")
    if args.all_measures and not args.columns and fmt == "table":
        # Some 35 columns do not fit a terminal: one row per measure instead.
        print(
            "(every measure: one row per measure, one column per segment and threshold; "
            "--format csv gives one row per segment and threshold)",
            file=sys.stderr,
        )
        table = _transposed(table, args.by or [])
    _emit(table, args)
    return 0


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


def _run_curve(args: argparse.Namespace) -> int:
    table = _evaluate(
        args,
        lambda frame, options, _: pr.roc_curve(
            frame,
            **options,
            drop_intermediate=args.drop_intermediate,
            cost_fp=args.cost_fp,
            cost_fn=args.cost_fn,
        ),
    )
    _emit(table, args)
    return 0


def _run_pr(args: argparse.Namespace) -> int:
    table = _evaluate(
        args,
        lambda frame, options, _: pr.pr_curve(
            frame, **options, drop_intermediate=args.drop_intermediate
        ),
    )
    _emit(table, args)
    return 0


def _run_best_threshold(args: argparse.Namespace) -> int:
    table = _evaluate(
        args,
        lambda frame, options, _: pr.best_threshold(
            frame,
            args.method,
            **options,
            cost_fp=args.cost_fp,
            cost_fn=args.cost_fn,
            prevalence=args.prevalence,
            ties=args.ties,
        ),
    )
    _emit(_summary(table, args), args)
    return 0


def _run_threshold_at(args: argparse.Namespace) -> int:
    table = _evaluate(
        args,
        lambda frame, options, _: pr.threshold_at(
            frame, fpr=args.fpr, tpr=args.tpr, precision=args.precision, **options
        ),
    )
    _emit(_summary(table, args), args)
    return 0


def _run_compare(args: argparse.Namespace) -> int:
    extra = {"max_fpr": args.max_fpr} if args.max_fpr is not None else {}
    table = _evaluate(
        args,
        lambda frame, options, progress: pr.compare(
            frame,
            args.scores,
            **options,
            ci=args.ci,
            **_inference(args, progress, args.ci),
            **extra,
        ),
        resampling=args.ci == "bootstrap",
    )
    _emit(table, args)
    return 0


def _run_gains(args: argparse.Namespace) -> int:
    table = _evaluate(args, lambda frame, options, _: pr.gains_table(frame, args.n_bins, **options))
    _emit(table, args)
    return 0


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
    _print(pr.roc_auc(log, by="segment"), "table")
    print(f"\nConfusion at threshold {args.threshold} per segment:")
    table = pr.confusion_matrix(log, args.threshold, by="segment")
    _print(table.select("segment", *CONFUSION_SUMMARY), "table")
    print("\nSeed 001 (Fawcett's 20 instances): AUC and the point at threshold 0.54")
    fawcett = pr.datasets.load_fawcett()
    _print(pr.roc_auc(fawcett, pos_label="p"), "table")
    point = pr.confusion_matrix(fawcett, 0.54, pos_label="p")
    _print(point.select("threshold", "tpr", "fpr", "accuracy"), "table")
    return 0


def _add_auc(commands: Any) -> None:
    auc = _analysis(commands, "auc", "AUC per segment, with a confidence interval on request")
    auc.add_argument(
        "--ci",
        choices=["delong", "bootstrap"],
        help="add auc_se, ci_lower, ci_upper by DeLong's method or a stratified bootstrap",
    )
    _add_inference_options(auc)
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
        help="count into at most N monotone buckets of the score per segment "
        "(one streaming pass, no sort; e.g. 65536) and add auc_bound, "
        "a certified bound on the distance to the exact AUC",
    )
    auc.set_defaults(func=_run_auc)


def _add_confusion(commands: Any) -> None:
    confusion = _analysis(commands, "confusion", "confusion counts and measures at thresholds")
    confusion.add_argument(
        "--threshold",
        type=float,
        action="append",
        required=True,
        help="predicted positive when score >= threshold; repeat for several",
    )
    confusion.add_argument(
        "--prevalence",
        type=float,
        metavar="P",
        help="the population's share of positives (0 < P < 1) when the log's is not: "
        "ppv, npv, fdr, for, accuracy and error_rate at that prevalence",
    )
    _add_all_measures(confusion)
    confusion.set_defaults(func=_run_confusion)


def _add_curve(commands: Any) -> None:
    curve = _analysis(commands, "curve", "ROC curve points per segment (roc_curve)")
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
    curve.set_defaults(func=_run_curve)


def _add_pr(commands: Any) -> None:
    precision = _analysis(commands, "pr", "precision-recall curve per segment (pr_curve)")
    precision.add_argument(
        "--drop-intermediate",
        action="store_true",
        help="drop the points that change neither precision's envelope nor the area",
    )
    precision.set_defaults(func=_run_pr)


def _add_best_threshold(commands: Any) -> None:
    best = _analysis(
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
    _add_all_measures(best)
    best.set_defaults(func=_run_best_threshold)


def _add_threshold_at(commands: Any) -> None:
    at = _analysis(
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
    _add_all_measures(at)
    at.set_defaults(func=_run_threshold_at)


def _add_compare(commands: Any) -> None:
    compare = _analysis(
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
    _add_inference_options(compare)
    compare.add_argument(
        "--max-fpr", type=float, metavar="F", help="compare partial AUCs over fpr in [0, F]"
    )
    compare.set_defaults(func=_run_compare)


def _add_gains(commands: Any) -> None:
    gains = _analysis(
        commands, "gains", "gains table by score quantile per segment (lift, KS per bin)"
    )
    gains.add_argument(
        "--n-bins",
        type=int,
        default=10,
        help="number of score quantile bins (default: 10, deciles)",
    )
    gains.set_defaults(func=_run_gains)


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


# --------------------------------------------------------------------------------------
# The report command: here, not in _report, so that the report builder does not import
# the command line (the file readers live here) and the command line imports the builder.


def add_report_command(subparsers: Any) -> None:
    """Add the ``report`` subcommand to the ``polars-roc`` argument parser."""
    report = subparsers.add_parser(
        "report",
        help="self-contained offline HTML report (summary, AUC, ROC/PR charts, confusion)",
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
        help="cut-off for the confusion measures (default 0.5; 0.2 with --demo)",
    )
    add_over_time_arguments(report)
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
        threshold = 0.2 if args.threshold is None else args.threshold
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
        if args.nan == "drop":
            frame = without_nan(frame, [args.score, *filter(None, [args.challenger])])
        source, by = " ".join(args.file), args.by
        threshold = 0.5 if args.threshold is None else args.threshold
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
        threshold=threshold,
        source=source,
        progress=say,
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
    _add_demo,
    add_report_command,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``polars-roc`` (subcommands auc, curve, compare, ...)."""
    parser = _Parser(
        prog="polars-roc",
        description="ROC analysis of prediction logs with polars: files, globs, folders "
        "and hive-partitioned datasets, filtered with SQL.",
        epilog="`polars-roc COMMAND --help` lists the options of a command.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(commands)
    return parser


# The library's messages name its keyword arguments (`n_bins`, `ci='delong'`, fpr=); on
# the command line the same advice names the option (--n-bins, --ci delong, --fpr).
_OPTION_SPELLINGS = {
    "replace them (e.g. with .fill_nan(None) and nulls='drop')": "leave those rows out "
    "with --nan drop",
    "replace them (e.g. .fill_nan(None), nulls='drop')": "leave those rows out with --nan drop",
    "pos_label=": "--pos-label ",
    "nulls='drop'": "--nulls drop",
}
_QUOTED_KEYWORD = re.compile(r"`([a-z_]+)(?:=(?:'([^'`]*)'|([^`]*)))?`")


def _as_option(match: re.Match[str]) -> str:
    option = "--" + match.group(1).replace("_", "-")
    value = match.group(2) or match.group(3)
    return f"{option} {value}" if value else option


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Warnings (e.g. single-class segments) as one line of the command, not of Python."""
    print(f"polars-roc: warning: {_as_options(str(message))}", file=sys.stderr)


def _as_options(message: str) -> str:
    message = _QUOTED_KEYWORD.sub(_as_option, message)
    for keyword, option in _OPTION_SPELLINGS.items():
        message = message.replace(keyword, option)
    return message


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
        message = _malformed_csv(args, err) or _TYPE_MISMATCH.sub(_mismatch, first_line)
        message = _as_options(message)
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


# Readers' words for a file they could not split into rows (Polars', DuckDB's).
_PARSE_ERROR = re.compile(r"fields|could not parse|CSV|sniff|quote", re.IGNORECASE)


def _malformed_csv(args: argparse.Namespace, err: Exception) -> str | None:
    """Where a CSV input breaks (file and line), when a reader failed to parse it.

    The readers say what went wrong but not where; the file is read again here, line
    by line, only after such a failure.
    """
    sources = getattr(args, "paths", None) or getattr(args, "file", None)
    if not sources or not _PARSE_ERROR.search(str(err)):
        return None
    try:
        files = [file for source in sources for file in _data_files(source)[0]]
    except InputError:
        return None
    return next(filter(None, map(csv_problem, files)), None)


def csv_problem(file: Path) -> str | None:
    """The first line of a CSV file that does not fit its header, as a message."""
    if FORMATS.get(file.suffix.lower()) != "CSV":
        return None
    with file.open(newline="", encoding="utf-8", errors="replace") as handle:
        rows = csv.reader(handle, strict=True)
        start = 1
        try:
            header = next(rows, [])
            for row in rows:
                if row and len(row) != len(header):
                    return (
                        f"{str(file)!r}, line {start + 1}: {len(row)} fields where the "
                        f"header has {len(header)}"
                    )
                start = rows.line_num
        except csv.Error as err:
            return f"{str(file)!r}, line {start + 1}: {err} (a quote opened there is not closed?)"
    return None


if __name__ == "__main__":
    sys.exit(main())
