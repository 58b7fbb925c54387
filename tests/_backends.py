"""One Polars frame as each backend the cross-backend tests run a call on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl


def as_backend(frame: pl.DataFrame, backend: str, tmp_path: Path) -> Any:
    """``frame`` as ``backend``: ``eager``, ``lazy`` or ``streaming`` (a LazyFrame),
    ``duckdb`` (a relation over Arrow) or ``duckdb_parquet`` (over a Parquet file)."""
    if backend == "eager":
        return frame
    if backend in ("lazy", "streaming"):
        return frame.lazy()
    import duckdb  # the callers skip without it

    if backend == "duckdb":
        return duckdb.from_arrow(frame.to_arrow())
    path = tmp_path / "log.parquet"
    frame.write_parquet(path)
    return duckdb.sql(f"SELECT * FROM '{path}'")
