"""Where and how a command writes its table: an aligned table, CSV, JSON or Parquet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

from polars_roc.cli.inputs import FORMATS, InputError, data_files

SUFFIX_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".json": "json"}


def check_out(args: argparse.Namespace) -> None:
    """Refuse an output that cannot be written before any counting: Parquet without
    ``--out``, or an ``--out`` whose folder cannot be made."""
    if output_format(args) == "parquet" and args.out is None:
        msg = "--format parquet writes a binary file: pass --out FILE.parquet"
        raise InputError(msg)
    if args.out is not None:
        _not_the_input(Path(args.out), getattr(args, "paths", None) or [])
        out_folder(args.out)


def _not_the_input(out: Path, sources: list[str]) -> None:
    """Refuse an ``--out`` that would replace a file of the log, or land among its files
    as a data file that the next read of the folder would take for log rows."""
    target = out.resolve()
    for source in sources:
        folder = Path(source).resolve()
        if folder.is_dir() and target.is_relative_to(folder) and out.suffix.lower() in FORMATS:
            msg = (
                f"--out {str(out)!r} is inside the input folder {source!r}: the next read "
                "of the folder would take the table for log rows; write it elsewhere"
            )
            raise InputError(msg)
        try:
            files = data_files(source)[0]
        except InputError:  # the read names it
            continue
        if target in {file.resolve() for file in files}:
            msg = f"--out {str(out)!r} is a file of the input: it would replace the log"
            raise InputError(msg)


def emit(table: pl.DataFrame, args: argparse.Namespace) -> None:
    """Write ``table`` as ``--format`` and ``--out`` ask (``--columns`` picks its columns),
    after :func:`check_out`."""
    if args.columns:
        table = table.select(_columns(args.columns, table.columns))
    fmt = output_format(args)
    if fmt == "parquet":
        table.write_parquet(args.out)
        return
    text = render(table, fmt)
    if args.out is None:
        sys.stdout.write(text)
        return
    Path(args.out).write_text(text, encoding="utf-8")


def _columns(wanted: list[str], columns: list[str]) -> list[str]:
    """``--columns``, each a column of the table, once."""
    missing = [c for c in wanted if c not in columns]
    twice = sorted({c for c in wanted if wanted.count(c) > 1})
    if missing or twice:
        problem = f"no column {missing!r}" if missing else f"{twice!r} more than once"
        msg = f"--columns names {problem}; the table's columns: {', '.join(columns)}"
        raise InputError(msg)
    return wanted


def output_format(args: argparse.Namespace) -> str:
    """``--format``, else the one the ``--out`` extension names, else an aligned table."""
    return args.format or SUFFIX_FORMATS.get(Path(args.out or "").suffix.lower(), "table")


def out_folder(out: str | Path) -> None:
    """Create the folder of ``--out`` if missing, and say so (even when quiet): a typo
    in a path should not go unnoticed."""
    folder = Path(out).parent
    if not folder.is_dir():
        folder.mkdir(parents=True)
        print(f"polars-roc: created folder {str(folder)!r} for --out", file=sys.stderr)


def render(frame: pl.DataFrame, fmt: str) -> str:
    if fmt == "csv":
        return frame.write_csv()
    if fmt == "json":
        return frame.write_json() + "\n"
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, fmt_str_lengths=40):
        return f"{frame}\n"


def print_table(frame: pl.DataFrame | pl.LazyFrame, fmt: str) -> None:
    table = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
    sys.stdout.write(render(table, fmt))
