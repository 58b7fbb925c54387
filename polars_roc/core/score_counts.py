"""From score tables back to a count table: how partitions of a log are merged.

A score table holds, per group and distinct score, the positives and negatives there.
Score tables of disjoint parts of a log (files, days, workers, engines) add up cell by
cell; every view takes a count table (``count=``), and sums the counts of equal
``(*by, score, label)`` cells as it counts, so the tables of the parts, laid end to end
in long form, give exactly the result of the whole log: no weights are faked and
nothing is sorted again but the distinct scores.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_roc.core.arguments import normalize_by
from polars_roc.core.engine_counts import is_polars, native_frame
from polars_roc.core.validate import Frame

__all__ = ["score_counts"]

# Columns a score table carries beside its groups.
TABLE_COLUMNS = ("threshold", "pos", "neg")


def score_counts(table: Frame, *, by: str | Sequence[str] | None = None) -> Frame:
    """The count table of one or more score tables: ``[*by, score, label, count]``.

    Each cell ``(group, threshold)`` of a score table becomes up to two rows: its
    positives (``label`` True) and its negatives (``label`` False), cells with a zero
    count left out. Give every view this table with ``score="score", label="label",
    count="count"`` (a weighted score table gives ``weight`` instead of ``count``: pass
    ``weight="weight"``). Tables of disjoint partitions may be concatenated first; the
    views sum equal cells, so the result equals the one on all rows, to the last bit.

    Parameters
    ----------
    table
        A frame with columns ``[*by, threshold, pos, neg]`` (what
        :func:`polars_roc.score_table` returns; the cumulated columns are not needed),
        or several such tables concatenated; also another engine's frame (DuckDB,
        Spark ...), which comes back as a Polars DataFrame in the engine's row order.
    by
        The group columns of the table, as given to ``score_table``.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, score, label, count]`` (``weight`` for Float64 counts), of the same kind
        as ``table``: the positives of every cell, then the negatives, each in the
        table's order.

    Notes
    -----
    ``threshold`` is in the score's own units also for ``direction="lower"``: pass the
    same ``direction`` to the views. A binned table (``bins=``) gives a count table of
    its buckets, whose results are those of the binned log.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({
    ...     "score": [0.1, 0.4, 0.35, 0.8, 0.4, 0.7],
    ...     "label": [0, 0, 1, 1, 1, 0],
    ... })
    >>> parts = [pr.score_table(log[:3]), pr.score_table(log[3:])]
    >>> counts = pr.score_counts(pl.concat(parts))
    >>> pr.roc_auc(counts, count="count").item(0, "auc") == pr.roc_auc(log).item(0, "auc")
    True
    """
    groups = normalize_by(by)
    if not is_polars(table):  # a score table is small: it comes back to be reshaped
        table = native_frame(table).lazy().collect(backend="polars").to_native()
    schema = table.collect_schema()
    missing = [c for c in (*groups, *TABLE_COLUMNS) if c not in schema]
    if missing:
        msg = (
            f"score_counts needs the columns [*by, threshold, pos, neg] of a score "
            f"table; missing {missing!r} (its columns: {schema.names()!r})"
        )
        raise pl.exceptions.ColumnNotFoundError(msg)
    dtype = schema["pos"]
    if dtype != schema["neg"] or not dtype.is_numeric():
        msg = (
            f"`pos` and `neg` must be counts of one numeric dtype, got {dtype} and {schema['neg']}"
        )
        raise TypeError(msg)
    name = "count" if dtype.is_integer() else "weight"
    # The positives' rows, then the negatives', each in the table's order (a lazy
    # unpivot would not keep it).
    halves = [
        table.lazy().select(
            *groups,
            pl.col("threshold").alias("score"),
            pl.lit(positive).alias("label"),
            pl.col(column).alias(name),
        )
        for positive, column in ((True, "pos"), (False, "neg"))
    ]
    result = pl.concat(halves).filter(pl.col(name) != 0)
    return result.collect() if isinstance(table, pl.DataFrame) else result
