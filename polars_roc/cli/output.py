"""Where and how a command writes its table: an aligned table, CSV, JSON or Parquet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

from polars_roc.cli.inputs import InputError

SUFFIX_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".json": "json"}


def check_out(args: argparse.Namespace) -> None:
    """Refuse an output that cannot be written before any counting: Parquet without
    ``--out``, or an ``--out`` whose folder cannot be made."""
    if output_format(args) == "parquet" and args.out is None:
        msg = "--format parquet writes a binary file: pass --out FILE.parquet"
        raise InputError(msg)
    if args.out is not None:
        out_folder(args.out)


def emit(table: pl.DataFrame, args: argparse.Namespace) -> None:
    """Write ``table`` as ``--format`` and ``--out`` ask (``--columns`` picks its columns),
    after :func:`check_out`."""
    if args.columns:
        table = table.select(args.columns)
    fmt = output_format(args)
    if fmt == "parquet":
        table.write_parquet(args.out)
        return
    text = render(table, fmt)
    if args.out is None:
        sys.stdout.write(text)
        return
    Path(args.out).write_text(text, encoding="utf-8")


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
