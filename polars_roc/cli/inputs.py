"""Finding and reading a command's input: files, globs, folders, hive partitions, on
Polars or DuckDB, filtered by ``--where`` and ``--sql`` that see the log and nothing else.
Parquet, CSV or NDJSON (by extension) are read lazily, a table of a DuckDB database
through DuckDB; ``key=value`` folders become columns, ``--where`` filters in the scan and
``--sql`` queries the input as table ``log``.
"""

from __future__ import annotations

import argparse
import csv
import glob
import importlib.util
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import polars as pl
from polars.io.plugins import register_io_source

from polars_roc.cli.progress import Progress
from polars_roc.core.compat import SCAN_INTEGER_CAST

# The format each extension stands for: files of one input must share it.
FORMATS = {
    ".parquet": "Parquet",
    ".pq": "Parquet",
    ".csv": "CSV",
    ".ndjson": "NDJSON",
    ".jsonl": "NDJSON",
    ".duckdb": "DuckDB",
    ".ddb": "DuckDB",
}

GLOB_CHARACTERS = frozenset("*?[")


# The column that carries each CSV/NDJSON row's file while its hive columns are derived.
_PATH_COLUMN = "__polars_roc_source_path"


class InputError(Exception):
    """A problem with the command line or the input, reported in one line (exit 2)."""


def _is_hidden(path: Path, base: Path) -> bool:
    # Spark and Hadoop leave _SUCCESS, _metadata and .crc files beside the data.
    return any(part.startswith(("_", ".")) for part in path.relative_to(base).parts)


def data_files(source: str) -> tuple[list[Path], Path | None]:
    """The data files a command-line path stands for, and the folder hive keys start
    below (``None``: every ``key=value`` part of the paths counts)."""
    path = Path(source)
    if path.is_file() and path.suffix.lower() in FORMATS:
        return [path], None
    if path.is_dir():
        every = sorted(p for p in path.rglob("*") if p.is_file())
        data = [p for p in every if p.suffix.lower() in FORMATS and not _is_hidden(p, path)]
        if not data:
            msg = f"folder {source!r} holds no .parquet, .csv, .ndjson or .duckdb file"
            raise InputError(msg)
        # A dataset's root: its partitions count from it down (Polars' rule). A partition
        # folder (logs/month=2026-01) or one holding other files (_SUCCESS) is read as
        # its list of data files: every key=value in their paths counts.
        root = len(data) == len(every) and len({p.suffix for p in data}) == 1
        return data, path if root and "=" not in path.resolve().name else None
    if GLOB_CHARACTERS & set(source):
        matched = sorted(Path(p) for p in glob.glob(source, recursive=True))
        files = [p for p in matched if p.is_file() and not p.name.startswith(("_", "."))]
        if not files:
            msg = f"{source!r} matches no file"
            raise InputError(msg)
        for file in files:
            if file.suffix.lower() not in FORMATS:
                msg = (
                    f"{str(file)!r} (matched by {source!r}) is not .parquet, .csv, "
                    f".ndjson or .duckdb; narrow the pattern, e.g. '*.parquet'"
                )
                raise InputError(msg)
        return files, None
    if path.suffix.lower() not in FORMATS:
        msg = f"cannot read {source!r}: expected one of {sorted(FORMATS)} extensions"
        raise InputError(msg)
    msg = f"file not found: {source!r}"
    raise InputError(msg)


def _hive_values(file: Path, base: Path | None) -> dict[str, str]:
    # Percent-decoded ("a%20b" is "a b"), as Polars' Parquet scan and DuckDB decode them.
    inner = file.parent.relative_to(base) if base is not None else file.parent
    return {k: unquote(v) for k, v in (part.split("=", 1) for part in inner.parts if "=" in part)}


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


_HIVE_TYPES: dict[Any, str] = {pl.Int64: "BIGINT", pl.Float64: "DOUBLE", pl.Date: "DATE"}


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
    table: str | None = None,
) -> pl.LazyFrame:
    """The rows of one or several paths (files, globs, folders), filtered, lazily.

    Parameters
    ----------
    sources
        A file (``.parquet``/``.pq``, ``.csv``, ``.ndjson``/``.jsonl``), a glob or a
        folder, or a list of them, read as one log; all of one format. Files named
        ``_*`` or ``.*`` are skipped. Or one DuckDB database (``.duckdb``/``.ddb``),
        whose table DuckDB streams to Polars (the columns in use only).
    where
        A SQL boolean expression (``pl.sql_expr``) applied to the scan.
    sql
        A SQL query over the rows (after ``where``) as table ``log``; its result is
        returned.
    progress
        Where stage messages go; none by default.
    null_values
        Texts that mark a missing value in CSV files, e.g. ``["NA"]`` (CSV only).
    table
        The table (or view) of a DuckDB database to read, ``name`` or
        ``schema.name``; needed only when the database holds more than one.

    Returns
    -------
    pl.LazyFrame
        The rows, with one column per ``key=value`` folder (hive partitioning, typed as
        Polars types Parquet's; which folders count: docs/cli.md, "Inputs").

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
    resolved, fmt = _resolved(sources, null_values, table)
    n_files = sum(len(files) for files, _ in resolved)
    with progress.stage(f"reading {n_files} {fmt} file(s)"):
        if fmt == "DuckDB":
            frame = _scanned(*database_table(resolved[0][0], table, lock=False))
        else:
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
    if fmt in ("CSV", "NDJSON"):
        # A header-only CSV reads as String columns, which would fail on their dtype.
        with progress.stage("checking for rows"):
            empty = frame.head(1).collect().height == 0
        if empty:
            raise InputError(no_rows(sources, where, sql))
    return frame


def _resolved(
    sources: Sequence[str], null_values: Sequence[str] | None, table: str | None
) -> tuple[list[tuple[list[Path], Path | None]], str]:
    """The data files of each source (see :func:`data_files`) and their one format."""
    resolved = [data_files(source) for source in sources]
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
    databases = [file for files, _ in resolved for file in files if formats == {"DuckDB"}]
    if len(databases) > 1:
        shown = ", ".join(repr(str(file)) for file in databases[:3])
        msg = f"give one DuckDB database at a time, got {len(databases)} ({shown}...)"
        raise InputError(msg)
    if table is not None and not databases:
        msg = f"--table {table!r} names a table of a DuckDB database (.duckdb), not of files"
        raise InputError(msg)
    return resolved, formats.pop()


def no_rows(sources: Sequence[str], where: str | None, sql: str | None) -> str:
    """The message of an input that has no rows (after its filters)."""
    named = sources[0] if len(sources) == 1 else f"{len(sources)} inputs"
    filtered = " after --where/--sql" if where is not None or sql is not None else ""
    return f"{named!r} has no rows{filtered}: there is nothing to evaluate"


def _scan_source(
    files: list[Path], base: Path | None, null_values: Sequence[str] | None = None
) -> pl.LazyFrame:
    fmt = FORMATS[files[0].suffix.lower()]
    if fmt != "Parquet":
        reader: Callable[..., pl.LazyFrame] = pl.scan_csv if fmt == "CSV" else pl.scan_ndjson
        extra = {"null_values": list(null_values)} if null_values else {}
        frame = reader([str(file) for file in files], include_file_paths=_PATH_COLUMN, **extra)
        return _with_hive_columns(frame, files, base)
    # Polars derives the hive columns itself and prunes files on them.
    options: dict[str, Any] = {"hive_partitioning": True}
    if len(files) > 1:
        options |= {"schema": _widened(pl.read_parquet_schema(files[0])), "cast_options": _WIDENING}
    if base is not None:
        return pl.scan_parquet(base, **options)
    return pl.scan_parquet([str(file) for file in files], **options)


# Files of one log may store a column as Float32 in some and Float64 in others: read as
# the widest of their kind from the first file's footer, every file fits unchanged.
_WIDENING = pl.ScanCastOptions(integer_cast=SCAN_INTEGER_CAST, float_cast="upcast")


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


# Polars' SQL reads files through table functions (`read_csv('/etc/passwd')`): their
# names are refused wherever they appear, so that a pasted filter sees the log only.
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
    """Build a filtered plan, turning SQL and column errors into one line naming
    ``option`` (a first run on no rows surfaces type errors here, not in the count)."""
    try:
        build(pl.LazyFrame(schema=frame.collect_schema())).collect()
        filtered = build(frame)
        filtered.collect_schema()
    except pl.exceptions.PolarsError as err:
        raise _named(option, text, err) from None
    return filtered


def _named(option: str, text: str, err: Exception) -> InputError:
    """A reader's error in one line naming the option."""
    first_line = str(err).strip().splitlines()[0] if str(err).strip() else repr(err)
    if _TEMPORAL_TEXT.search(first_line):
        first_line = _temporal_advice(text)
    return InputError(f"{option} {text!r}: {first_line}")


# Polars' SQL comparing a Date, Datetime or Time column with a text ('2026-02-01'),
# whose advice (create native python date objects) is for Python.
_TEMPORAL_TEXT = re.compile(
    r"cannot compare 'date/datetime/time' to a string value|"
    r"cannot check for (?:Date|Datetime|Time)\S* values in List\(String\)"
)
_TEMPORAL_LITERALS = (
    ("DATE", re.compile(r"\d{4}-\d{2}-\d{2}")),
    ("TIMESTAMP", re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?")),
    ("TIME", re.compile(r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?")),
)


def _temporal_advice(text: str) -> str:
    """How to compare a date or time column in the Polars engine's SQL: with a literal
    of its type, built from the first text of ``text`` that reads as one."""
    example = "DATE '2026-02-01'"
    for literal in re.findall(r"'((?:[^']|'')*)'", text):
        kind = next((k for k, form in _TEMPORAL_LITERALS if form.fullmatch(literal)), None)
        if kind is not None:
            example = f"{kind} '{literal}'"
            break
    return (
        "a date or time column is compared with a text; compare it with a literal of its "
        f"type, e.g. {example} (TIMESTAMP '2026-02-01 12:00:00', TIME '12:00:00' or "
        "CAST('...' AS DATE) likewise)"
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
    if not all(_all_csv(path) for path in paths):  # a file, a folder or a glob of CSVs
        return
    named = paths[0] if len(paths) == 1 else f"{len(paths)} inputs"
    schema = frame.collect_schema()
    for role, name in columns.items():
        if name is None or schema.get(name) != pl.String:
            continue
        column = pl.col(name)
        number = column.str.strip_chars().cast(pl.Float64, strict=False)
        comma = column.str.replace(",", ".", literal=True).str.strip_chars()
        found = (
            frame.select(
                number.is_not_null().any().alias("numbers"),
                column.filter(column.is_not_null() & number.is_null())
                .unique(maintain_order=True)
                .head(3)
                .implode()
                .alias("texts"),
                column.filter(number.is_null() & comma.cast(pl.Float64, strict=False).is_not_null())
                .first()
                .alias("comma"),
                column.filter(number.is_not_null() & (column != column.str.strip_chars()))
                .first()
                .alias("spaced"),
            )
            .collect()
            .row(0, named=True)
        )
        texts, comma, spaced = found["texts"], found["comma"], found["spaced"]
        if comma is not None or (spaced is not None and not texts):
            how = "a decimal comma" if comma is not None else "spaces around them"
            msg = (
                f"{role} column {name!r} of {named!r} holds numbers written with {how} "
                f"({comma or spaced!r}), which CSV readers take as text: write them as plain "
                "numbers (0.9) in the file"
            )
            raise InputError(msg)
        if not found["numbers"] or not texts:
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


def _all_csv(source: str) -> bool:
    try:
        files = data_files(source)[0]
    except InputError:
        return False
    return all(FORMATS[file.suffix.lower()] == "CSV" for file in files)


def without_nan(frame: Any, scores: Sequence[str]) -> Any:
    """``--nan drop``: the rows of a Polars LazyFrame or a DuckDB relation whose float
    scores are not NaN (a null score stays, for ``--nulls``)."""
    if isinstance(frame, pl.LazyFrame):
        schema = frame.collect_schema()
        floats = [c for c in scores if c in schema and schema[c].is_float()]
        if not floats:  # integer points: no NaN (and a filter of no predicate fails)
            return frame
        return frame.filter(~pl.col(c).is_nan().fill_null(False) for c in floats)
    types = dict(zip(frame.columns, map(str, frame.types), strict=True))
    floats = [c for c in scores if types.get(c) in ("FLOAT", "DOUBLE")]
    if not floats:
        return frame
    quoted = (_quoted(c, '"') for c in floats)
    # Not isnan(): DuckDB folds it to false from Parquet statistics that leave NaN out.
    kept = "coalesce(isfinite({0}) OR abs({0}) = 'inf'::DOUBLE, true)"
    return frame.filter(" AND ".join(kept.format(c) for c in quoted))


def read_log(
    args: argparse.Namespace,
    paths: Sequence[str],
    scores: Sequence[str],
    progress: Progress | None = None,
) -> Any:
    """A command's log as its input options ask: a Polars LazyFrame, or a DuckDB relation
    (``--engine duckdb``); with ``--nan drop``, the rows of a NaN in ``scores`` left out."""
    reading = {"where": args.where, "sql": args.sql, "null_values": args.null_values}
    reading["table"] = args.table
    if args.engine == "duckdb":
        log = duckdb_relation(paths, **reading)
        frame = log.pl(lazy=True)
    else:
        log = frame = read_input(paths, progress=progress, **reading)
    # A CSV score read as text gets advice on either engine (read only when it is text).
    columns = {"score": getattr(args, "score", None), "weight": getattr(args, "weight", None)}
    check_numeric_text(frame, columns, paths)
    return without_nan(log, scores) if args.nan == "drop" else log


def _quoted(text: str, quote: str) -> str:
    """``text`` as an SQL string (``quote`` ') or name ("), its quotes doubled."""
    return quote + text.replace(quote, quote * 2) + quote


def duckdb_relation(
    sources: Sequence[str],
    *,
    where: str | None = None,
    sql: str | None = None,
    null_values: Sequence[str] | None = None,
    table: str | None = None,
) -> Any:
    """The rows of the paths as a DuckDB relation: ``read_parquet`` / ``read_csv`` /
    ``read_json`` over the files the paths stand for (found as :func:`read_input` finds
    them; hive columns from their ``key=value`` folders), or the ``table`` of one DuckDB
    database, ``where`` and ``sql`` (over table ``log``) in DuckDB's SQL. Nothing is
    read but the schema.

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
    duckdb = _duckdb("--engine duckdb")
    resolved, fmt = _resolved(sources, null_values, table)
    if fmt == "DuckDB":
        connection, relation = database_table(resolved[0][0], table, lock=True)
        return _filtered(connection, relation, where, sql, duckdb, database=True)
    files = [file for found, _ in resolved for file in found]
    # As Polars reads them: Parquet types widened to a common one (DuckDB takes the
    # first file's), CSV split at commas under a header (DuckDB would guess).
    extra = {
        "Parquet": ", union_by_name = true" if len(files) > 1 else "",
        "CSV": ", delim = ',', header = true",
        "NDJSON": "",
    }[fmt]
    renamed = ""
    if fmt != "Parquet":
        types, renamed = _text_types(files, fmt, null_values)
        extra += types
    reader = {"Parquet": "read_parquet", "CSV": "read_csv", "NDJSON": "read_json"}
    listed = ", ".join(_quoted(str(file), "'") for file in files)
    texts = ", ".join(_quoted(v, "'") for v in null_values or [])
    nulls = f", nullstr = [{texts}]" if null_values else ""
    # DuckDB takes every key=value of a file's path; a folder is the dataset's root, as
    # read_input reads it, so the keys of the folders above the roots are left out.
    roots = [base for _, base in resolved]
    above = sorted(
        {key for base in roots if base is not None for key in _hive_values(base / "_", None)}
    )
    exclude = ""
    if above and None not in roots:
        exclude = " EXCLUDE (" + ", ".join(_quoted(k, '"') for k in above) + ")"
    # The keys typed as the Polars engine types them (DuckDB would read 0.5, 1.5, 2 as text).
    found = [_hive_values(file, base) for files_of, base in resolved for file in files_of]
    keys = [
        k
        for k in dict.fromkeys(k for values in found for k in values)
        if not (exclude and k in above)
    ]
    typed = [
        (k, _typed_hive_values(pl.Series([v.get(k) for v in found], dtype=pl.String))) for k in keys
    ]
    listed_types = ", ".join(
        f"{_quoted(k, chr(39))}: {_HIVE_TYPES.get(v.dtype, 'VARCHAR')}" for k, v in typed
    )
    extra += f", hive_types = {{{listed_types}}}" if typed else ""
    connection = duckdb.connect()
    query = (
        f"SELECT *{exclude}{renamed} FROM {reader[fmt]}([{listed}], hive_partitioning = true"
        f"{extra}{nulls})"
    )
    # The user's SQL sees the log and nothing else: the files are the only paths DuckDB
    # may open, and the setting is locked against a `SET` in the query.
    connection.execute(f"SET allowed_paths = [{listed}]")
    _lock(connection)
    relation = _step(duckdb, "--engine duckdb", query, lambda: connection.sql(query))
    relation = _filtered(connection, relation, where, sql, duckdb)
    if fmt != "Parquet" and not relation.limit(1).fetchall():  # as read_input checks
        raise InputError(no_rows(sources, where, sql))
    return relation


def _duckdb(needed_by: str) -> Any:
    """The duckdb module, or a message naming the extra that brings it (and pyarrow,
    through which DuckDB hands its counts to Polars)."""
    missing = [name for name in ("duckdb", "pyarrow") if importlib.util.find_spec(name) is None]
    if missing:
        msg = f"{needed_by} needs the {missing[0]} package: pip install 'polars-roc[duckdb]'"
        raise InputError(msg)
    import duckdb

    return duckdb


def _lock(connection: Any) -> None:
    # Past this point the connection opens no file: the user's SQL sees the log only.
    connection.execute("SET enable_external_access = false")
    connection.execute("SET lock_configuration = true")


def _step(duckdb: Any, option: str, text: str, build: Callable[[], Any]) -> Any:
    try:
        relation = build()
        relation.columns  # noqa: B018  (binds the query: errors surface here)
    except duckdb.Error as err:
        raise _named(option, text, err) from None
    return relation


def _filtered(
    connection: Any,
    relation: Any,
    where: str | None,
    sql: str | None,
    duckdb: Any,
    *,
    database: bool = False,
) -> Any:
    """``relation`` after ``--where`` and ``--sql`` (over table ``log``) in DuckDB's SQL.
    The connection's settings keep files out; the other tables of a ``database``,
    which settings cannot hide, are refused by name (as the text names them: an empty
    connection binds nothing, so a view is not taken for the table it reads)."""
    empty = duckdb.connect(config={"enable_external_access": False}) if database else None

    def reading_the_log(option: str, text: str, query: str) -> str:
        if empty is None:
            return text
        others = sorted(n for n in _tables_of(empty, query) if n.lower() != "log")
        if others:
            msg = (
                f"{option} {text!r}: {others[0]!r} is refused: {option} reads the log "
                "(table 'log') and nothing else"
            )
            raise InputError(msg)
        return text

    if where is not None:
        query = f"SELECT * FROM log WHERE {where}"
        relation = _step(
            duckdb,
            "--where",
            where,
            lambda: relation.filter(reading_the_log("--where", where, query)),
        )
    if sql is not None:
        connection.register("log", relation)
        relation = _step(
            duckdb,
            "--sql",
            sql,
            lambda: connection.sql(reading_the_log("--sql", sql, _one_select(sql, duckdb))),
        )
    return relation


def _tables_of(connection: Any, query: str) -> set[str]:
    """The tables ``query`` reads (``schema.name``; ``log`` for the log, under any alias),
    from DuckDB's parse tree, its own named subqueries (WITH) left out: its
    ``get_table_names`` binds a ``USING`` join's columns, which fails with no tables."""
    tree = json.loads(connection.execute("SELECT json_serialize_sql(?)", [query]).fetchone()[0])
    nodes: list[dict[str, Any]] = []

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            nodes.append(value)
        for child in value.values() if isinstance(value, dict) else value:
            if isinstance(child, dict | list):
                visit(child)

    visit(tree)
    named = {cte["key"].lower() for node in nodes for cte in node.get("cte_map", {}).get("map", [])}
    tables = set()
    for node in nodes:
        if node.get("type") != "BASE_TABLE":
            continue
        parts = [node["catalog_name"], node["schema_name"], node["table_name"]]
        if parts[:2] != ["", ""] or parts[2].lower() not in named:
            tables.add(".".join(part for part in parts if part))
    return tables


# The name a database is attached under: its tables are read as log_database.schema.name.
_DATABASE = "log_database"


def database_table(files: list[Path], table: str | None, *, lock: bool) -> tuple[Any, Any]:
    """A connection with the one DuckDB database of ``files`` attached read-only, and
    the relation of its ``table`` (``name`` or ``schema.name``; may be left out when the
    database holds one table or view). ``lock``: DuckDB runs the user's SQL, so it may
    then open no file (a view over files fails)."""
    duckdb = _duckdb(f"reading the DuckDB database {str(files[0])!r}")
    connection = duckdb.connect()
    try:
        path = _quoted(str(files[0]), "'")
        connection.execute(f"ATTACH {path} AS {_DATABASE} (READ_ONLY)")
    except duckdb.Error as err:
        first_line = str(err).strip().splitlines()[0]
        msg = f"cannot open {str(files[0])!r} as a DuckDB database: {first_line}"
        raise InputError(msg) from None
    found = connection.sql(
        f"SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = '{_DATABASE}' "
        f"UNION ALL SELECT schema_name, view_name FROM duckdb_views() "
        f"WHERE database_name = '{_DATABASE}' AND NOT internal ORDER BY ALL"
    ).fetchall()
    names = {(t if s == "main" else f"{s}.{t}").lower(): (s, t) for s, t in found}
    if table is None and len(names) == 1:
        table = next(iter(names))
    if table is None or table.lower() not in names:
        shown = ", ".join(repr(name) for name in list(names)[:10]) or "none"
        asked = "name one with --table" if table is None else f"--table {table!r} is not one"
        msg = f"{str(files[0])!r} holds {len(names)} tables ({shown}): {asked}"
        raise InputError(msg)
    schema, name = names[table.lower()]
    query = f"SELECT * FROM {_DATABASE}." + ".".join(_quoted(part, '"') for part in (schema, name))
    if not lock:
        return connection, _step(duckdb, "--table", table, lambda: connection.sql(query))
    _lock(connection)
    try:
        return connection, connection.sql(query)
    except duckdb.PermissionException:
        msg = (
            f"--table {table!r} is a view that reads files, which --engine duckdb does not "
            "open (its --where and --sql read the log only): read it with the default "
            "engine, or give its files as the input"
        )
        raise InputError(msg) from None


def _scanned(connection: Any, relation: Any) -> pl.LazyFrame:
    """``relation`` as a Polars scan reading only the columns its plan needs, through a
    cursor of its own each time: a plan may read its source twice at once, which one
    DuckDB connection refuses ("connection is busy")."""
    query = relation.sql_query()

    def batches(
        columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None, size: int | None
    ) -> Iterator[pl.DataFrame]:
        rows = connection.cursor().sql(query)
        if columns is not None:
            rows = rows.project(", ".join(_quoted(c, '"') for c in columns))
        if n_rows is not None:
            rows = rows.limit(n_rows)
        reader = getattr(rows, "to_arrow_reader", rows.fetch_record_batch)(size or 1 << 17)
        try:
            for batch in iter(reader.read_next_batch, None):
                frame = pl.DataFrame(pl.from_arrow(batch))
                yield frame if predicate is None else frame.filter(predicate)
        finally:
            reader.close()

    schema = relation.limit(0).pl().schema
    return register_io_source(batches, schema=schema, is_pure=True)


# The types Polars infers for a CSV or NDJSON column, as DuckDB names them.
_TEXT_TYPES: dict[Any, str] = {
    pl.String: "VARCHAR",
    pl.Int64: "BIGINT",
    pl.Int128: "HUGEINT",
    pl.Float64: "DOUBLE",
    pl.Boolean: "BOOLEAN",
}


def _text_types(files: list[Path], fmt: str, null_values: Sequence[str] | None) -> tuple[str, str]:
    """DuckDB's reading options for CSV or NDJSON files, as Polars reads them, and the
    ``RENAME`` clause that gives the columns Polars' names (see :func:`_csv_names`).

    Types: DuckDB's sniffer would make dates of 2026-01-15 (both formats), Booleans of
    yes/no or t/f and text of 01 (CSV), which Polars reads as text, text and 1 (so
    --pos-label, --where, --every and the written values would differ). NDJSON: all
    columns or none (DuckDB's ``columns`` lists every one), so nested values keep
    DuckDB's own reading."""
    if fmt == "CSV":
        nulls = list(null_values) if null_values else None
        scan = pl.scan_csv([str(file) for file in files], null_values=nulls)
    else:
        scan = pl.scan_ndjson([str(file) for file in files])
    schema = scan.collect_schema()
    if fmt != "CSV":
        typed = {name: _TEXT_TYPES.get(dtype) for name, dtype in schema.items()}
        if None in typed.values():
            return "", ""
        types = ", ".join(f"{_quoted(n, chr(39))}: {t}" for n, t in typed.items())
        return f", columns = {{{types}}}" if types else "", ""
    names, renamed = _csv_names(list(schema), files[0])
    typed = {name: _TEXT_TYPES.get(dtype) for name, dtype in zip(names, schema.dtypes())}
    types = ", ".join(f"{_quoted(n, chr(39))}: {t}" for n, t in typed.items() if t is not None)
    listed = ", ".join(_quoted(name, "'") for name in names)
    return f", names = [{listed}]" + (f", types = {{{types}}}" if types else ""), renamed


def _csv_names(names: list[str], file: Path) -> tuple[list[str], str]:
    """The names DuckDB reads a CSV header under, Polars' names (a name with spaces
    around it, doubled quotes, ``x_duplicated_0`` for a second ``x``, which DuckDB's
    own reading would change), and the ``RENAME`` clause giving a blank name back.

    DuckDB refuses a blank name (``a,b,``) in ``names``: it reads it under a name of
    its own and renames it; a zero-length name it cannot hold at all, so that column
    keeps DuckDB's own name (``column2``). DuckDB does not tell names apart by case:
    names that differ only in case are refused, naming them."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(name.lower(), name)
        if other != name:
            msg = (
                f"{str(file)!r} has columns {other!r} and {name!r}, which differ only in "
                "case: --engine duckdb does not tell them apart; read it with the default "
                "engine (leave out --engine duckdb), or rename one in the file"
            )
            raise InputError(msg)
    read, renames = [], []
    for i, name in enumerate(names):
        if name.strip():
            read.append(name)
            continue
        stand_in = f"column{i}"
        while stand_in.lower() in seen:
            stand_in += "_"
        seen[stand_in.lower()] = stand_in
        read.append(stand_in)
        if name:
            renames.append(f"{_quoted(stand_in, chr(34))} AS {_quoted(name, chr(34))}")
    return read, f" RENAME ({', '.join(renames)})" if renames else ""


def _one_select(sql: str, duckdb: Any) -> str:
    """``sql`` if it is one SELECT statement (no write, no second statement)."""
    statements = duckdb.extract_statements(sql)
    if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
        msg = f"--sql {sql!r}: give one SELECT query over table 'log'"
        raise InputError(msg)
    return sql


# Readers' words for a file they could not split into rows (Polars', DuckDB's).
_PARSE_ERROR = re.compile(
    r"fields|could not parse|CSV|sniff|quote|schema (?:lengths|names) differ", re.IGNORECASE
)


def _files_on(sources: Sequence[str] | None, err: Exception, words: re.Pattern[str]) -> list[Path]:
    """The files of ``sources`` when the reader's ``err`` says ``words`` (else none)."""
    if not sources or not words.search(str(err)):
        return []
    try:
        return [file for source in sources for file in data_files(source)[0]]
    except InputError:
        return []


def malformed_csv(sources: Sequence[str] | None, err: Exception) -> str | None:
    """Where a CSV input breaks (file and line), which the readers do not say, when a
    reader failed to parse it."""
    files = _files_on(sources, err, _PARSE_ERROR)
    return csv_headers_problem(files) or next(filter(None, map(csv_problem, files)), None)


# Polars' words for Parquet files of one input that lack a column another has (its
# advice, missing_columns='insert', is a Python option of the scan).
_COLUMN_MISSING = re.compile(
    r"did not find column|extra column in file|schema (?:lengths|names) differ|missing_columns"
)


def parquet_columns_problem(sources: Sequence[str] | None, err: Exception) -> str | None:
    """Which Parquet file of the input lacks a column of the first (or has one the first
    lacks), from the files' footers, when Polars failed on it naming no file."""
    files = _files_on(sources, err, _COLUMN_MISSING)
    files = [file for file in files if FORMATS[file.suffix.lower()] == "Parquet"]
    if len(files) < 2:
        return None
    first = list(pl.read_parquet_schema(files[0]))
    for file in files[1:]:
        names = list(pl.read_parquet_schema(file))
        lacking = [name for name in first if name not in names]
        extra = [name for name in names if name not in first]
        if lacking or extra:
            which = (
                f"lacks the column(s) {lacking} of {str(files[0])!r}"
                if lacking
                else f"has the column(s) {extra}, which {str(files[0])!r} (the first) lacks"
            )
            return (
                f"{str(file)!r} {which}: the files of one log need the same columns; narrow "
                "the input to the files that have them (or --engine duckdb reads a missing "
                "column as nulls)"
            )
    return None


# Polars' words when a Parquet file's column does not fit the first's type, and the
# library's when DuckDB read the files' types as one (text).
_TYPE_WORDS = re.compile(r"data type mismatch for column (.+?):|column '(.+?)' must be numeric")


def parquet_types_problem(sources: Sequence[str] | None, err: Exception) -> str | None:
    """Which two Parquet files of the input store a column in types of different kinds
    (text and numbers, say), from their footers, when a read or a check failed on it."""
    found = _TYPE_WORDS.search(str(err))
    if found is None:
        return None
    column = found.group(1) or found.group(2)
    stored = [
        (file, pl.read_parquet_schema(file).get(column))
        for file in _files_on(sources, err, _TYPE_WORDS)
        if FORMATS[file.suffix.lower()] == "Parquet"
    ]
    typed = [(file, dtype) for file, dtype in stored if dtype is not None]

    def kind(dtype: pl.DataType) -> str:  # widths of one kind are widened alike
        return "float" if dtype.is_float() else "integer" if dtype.is_integer() else str(dtype)

    for file, dtype in typed[1:]:
        if kind(dtype) != kind(typed[0][1]):
            return (
                f"column {column!r} is {dtype} in {str(file)!r} but {typed[0][1]} in "
                f"{str(typed[0][0])!r}: the files of one log must agree on its type (narrow "
                "the input to files of one type, or rewrite the others)"
            )
    return None


def csv_headers_problem(files: Sequence[Path]) -> str | None:
    """An empty CSV file, or one whose header is not the first file's, as a message
    naming the files (the readers say "empty CSV", "schema lengths differ")."""
    first: tuple[Path, list[str]] | None = None
    for file in files:
        if FORMATS.get(file.suffix.lower()) != "CSV":
            continue
        with file.open(newline="", encoding="utf-8-sig", errors="replace") as handle:
            try:
                header = next(csv.reader(handle), None)
            except csv.Error:
                continue  # csv_problem names the line
        if not header:
            return f"{str(file)!r} is empty, not even a header line: leave it out of the input"
        if first is None:
            first = (file, header)
        elif header != first[1]:
            return (
                f"{str(file)!r} has the columns {header} where {str(first[0])!r} has "
                f"{first[1]}: the CSV files of one log need the same header"
            )
    return None


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
