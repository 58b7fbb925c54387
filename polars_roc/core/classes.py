"""Multi-class input: the checks of :func:`~polars_roc.core.validate.prepare`, for k
score columns (or a column of predicted classes) and a label holding one of k classes.

The checks are written once, for Polars and (through narwhals) for every other engine,
and run where the rows live, as one aggregation whose result is read here. Polars rows
then go on as rows; another engine's rows are counted there first
(:func:`~polars_roc.core.counting.count_values`, one cell per distinct
``[*by, label, *scores]``), and the views read the cells, each weighing its rows: every
count, AUC and median of a cell's rows is the rows' own.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_roc.core.arguments import Roles
from polars_roc.core.counting import count_values, source_schema
from polars_roc.core.engine_counts import is_polars, native_frame
from polars_roc.core.validate import (
    WIDE_INTEGERS,
    Prepared,
    _counters,
    _distinct_scores,
    _internal_score,
    _scale_distinct,
    _wide_scores,
    beyond_float,
    check_schema,
    raise_on_nulls,
    raise_on_units,
    unit_checks,
)
from polars_roc.exceptions import RocInputError, RocOptionError

__all__ = [
    "CLASS_ACTUAL",
    "CLASS_PREDICTED",
    "CLASS_WEIGHT",
    "PreparedClasses",
    "prepare_classes",
]

CLASS_ACTUAL = "__roc_actual"
CLASS_PREDICTED = "__roc_predicted"
CLASS_WEIGHT = "__roc_weight"


@dataclass(frozen=True)
class PreparedClasses:
    """A validated multi-class frame and what its binary problems need to know.

    ``frame`` is ``[*by, CLASS_ACTUAL, *scores, (CLASS_PREDICTED), CLASS_WEIGHT]``: the
    true (and predicted) class as an index 0..k-1 into ``classes`` (sorted), each score
    column as an internal Float64 score, and each row's weight, count or 1 (a cell of
    another engine's rows: their number, count or weight). It is cached, so the views
    that read it several times (one block per class) scan the source once.
    """

    frame: pl.LazyFrame
    by: list[str]
    classes: list[Any]
    scores: list[str]
    eager: bool
    n_rows: int
    # Distinct scores summed over the score columns, and their common range: what the
    # counting of a reshaped binary problem needs (see `binary`).
    n_distinct: int
    score_range: tuple[float, float] | None
    weighted: bool
    counted: bool

    def binary(
        self, frame: pl.LazyFrame, by: list[str], *, rows_per_row: int, negated: bool = False
    ) -> Prepared:
        """The :class:`Prepared` of a binary problem reshaped from these rows, with no
        read: ``frame`` is ``[*by, SCORE, POS, NEG]`` built from :attr:`frame`, each row of
        which it repeats ``rows_per_row`` times (one block per class or pair); ``negated``:
        its score is the rows' negated (the sort keys are cut from its range)."""
        score_range = self.score_range
        if negated and score_range is not None:
            score_range = (-score_range[1], -score_range[0])
        return Prepared(
            frame=frame,
            by=by,
            weighted=self.weighted,
            eager=self.eager,
            n_rows=self.n_rows * rows_per_row,
            n_distinct=self.n_distinct,
            score_range=score_range,
            counted=self.counted,
        )


def class_values(classes: list[Any], label: str, label_dtype: pl.DataType) -> list[Any]:
    """The classes as values of the label: what the label is compared with."""
    try:
        return pl.Series(classes).cast(label_dtype).to_list()
    except (pl.exceptions.PolarsError, TypeError) as err:
        msg = (
            f"cannot compare label column {label!r} ({label_dtype}) with the classes "
            f"{classes!r} (the keys of `scores`): {err}"
        )
        raise RocInputError(msg) from err


def kind_of(dtype: pl.DataType) -> str:
    """What a class column holds, for comparing two: text, numbers, or its own dtype."""
    if dtype in (pl.String, pl.Categorical, pl.Enum):
        return "text"
    return "number" if dtype.is_numeric() else str(dtype)


def prepare_classes(
    frame: Any,
    roles: Roles,
    classes: list[Any],
    scores: Sequence[str],
    *,
    predicted: str | None = None,
    reserved: Collection[str] = (),
) -> PreparedClasses:
    """Check a multi-class log as :func:`~polars_roc.core.validate.prepare` checks a
    binary one: the schema first, then one pass over the values (nulls, NaN, labels
    outside ``classes``, weights, counts, and the score range for counting), the one
    read before the plan (another engine's rows: then counted, see the module).

    ``roles`` gives the label, ``by``, weight or count and ``nulls`` (its score,
    ``pos_label`` and ``direction`` do not apply: the classes are the positives).
    ``reserved`` names the result columns of the calling view, which ``by`` must not use.
    """
    label, by, weight, count, nulls = roles.label, roles.by, roles.weight, roles.count, roles.nulls
    schema = source_schema(frame)
    named = [("label", label), *(("score", c) for c in scores), *(("by", b) for b in by)]
    optional = (("weight", weight), ("count", count), ("predicted", predicted))
    named += [(role, column) for role, column in optional if column is not None]
    check_schema(named, schema, by, reserved)
    label_dtype = schema[label]
    values = class_values(classes, label, label_dtype)
    if predicted is not None and kind_of(schema[predicted]) != kind_of(label_dtype):
        msg = (
            f"predicted column {predicted!r} ({schema[predicted]}) cannot be compared with "
            f"label column {label!r} ({label_dtype}): give both the classes in one dtype"
        )
        raise RocInputError(msg)
    cast = pl.Series(values, dtype=label_dtype)
    if cast.is_duplicated().any():
        msg = (
            f"the classes must be distinct label values, got {classes!r}: "
            f"{cast.filter(cast.is_duplicated()).unique(maintain_order=True).to_list()!r} "
            f"repeat as values of label column {label!r} ({label_dtype}); list each class once"
        )
        raise RocOptionError(msg)
    index = list(range(len(classes)))
    # Every column a row needs, by its first role: a null is refused (or its row dropped).
    roles_of: dict[str, str] = {}
    for role, column in named:
        if role != "by":
            roles_of.setdefault(column, role)
    required = list(roles_of)
    polars = is_polars(frame)
    if polars:
        F: Any = pl
        rows: Any = frame.lazy()
    else:
        import narwhals as F  # installed with altair; imported only for other engines

        rows = native_frame(frame).lazy()
    if nulls == "drop":
        rows = rows.drop_nulls(subset=required)
    height = frame.height if isinstance(frame, pl.DataFrame) and nulls == "raise" else None

    total = _counters(F, None)[0]

    def unknown(column: str) -> Any:
        return ~F.col(column).is_in(values) & ~F.col(column).is_null()

    checks: dict[str, Any] = {"n_rows": F.len()}
    for column in required:
        checks[f"null:{column}"] = total(F.col(column).is_null())
    for column in scores:
        s = F.col(column)
        if schema[column].is_float():
            # As value_checks: DuckDB folds is_nan() from Parquet statistics.
            nan = s.is_nan() if polars else ~s.is_finite() & (s.abs() != float("inf"))
            checks[f"nan:{column}"] = total(nan & ~s.is_null())
        if schema[column] in WIDE_INTEGERS:
            checks[f"wide:{column}"] = total(beyond_float(s))
        if polars:  # an engine's are counted from its cells, not by a DISTINCT of its rows
            checks[f"distinct:{column}"] = _distinct_scores(s, height)
        checks[f"min:{column}"], checks[f"max:{column}"] = s.min(), s.max()
    for column in [label] + ([predicted] if predicted is not None else []):
        checks[f"unknown:{column}"] = total(unknown(column))
    # Weights and counts: the binary checks and messages (nulls are checked above).
    checks |= unit_checks(F, schema, weight, count)
    found = _collected(rows.select(**checks)).row(0, named=True)
    raise_on_nulls(found, ((roles_of[c], c) for c in required), key="null:{name}")
    for column in scores:
        if found.get(f"nan:{column}"):
            msg = (
                f"score column {column!r} has {found[f'nan:{column}']} NaN value(s), "
                "which cannot be ranked; replace them (e.g. .fill_nan(None), nulls='drop')"
            )
            raise RocInputError(msg)
        if found.get(f"wide:{column}"):
            raise _wide_scores(column, found[f"wide:{column}"])
    for column in [label] + ([predicted] if predicted is not None else []):
        if found[f"unknown:{column}"]:
            strangers = rows.filter(unknown(column)).select(column).unique().sort(column)
            shown = _collected(strangers.head(10)).to_series().to_list()
            msg = (
                f"{roles_of[column]} column {column!r} has {found[f'unknown:{column}']} "
                f"value(s) that are not among the classes {classes!r} (`scores` keys or "
                f"`classes=`): {shown!r}"
            )
            raise RocInputError(msg)
    raise_on_units(found, weight, count, "drop")
    n_rows = int(found["n_rows"])
    if polars:
        if weight is not None:
            w = pl.col(weight).cast(pl.Float64)
        elif count is not None:
            w = pl.col(count).cast(pl.Int64)
        else:
            w = pl.lit(1, dtype=pl.Int64)
    else:  # the engine's rows counted per distinct row of the columns in play
        keys = list(dict.fromkeys([*by, label, *scores, *([predicted] if predicted else [])]))
        cells = count_values(
            frame, keys=keys, weight=weight, count=count, into=CLASS_WEIGHT, nulls=nulls
        )
        kept = [label, *scores, *([predicted] if predicted else [])]
        rows = cells.drop_nulls(subset=kept) if nulls == "drop" else cells
        w = pl.col(CLASS_WEIGHT)
        distinct = rows.select(pl.col(c).approx_n_unique() for c in scores).collect()
        found |= {f"distinct:{c}": distinct[c][0] for c in scores}

    def to_index(column: str) -> pl.Expr:
        known = pl.Series(values, dtype=label_dtype)
        return pl.col(column).replace_strict(known, index, default=None, return_dtype=pl.Int64)

    internal = rows.select(
        *by,
        to_index(label).alias(CLASS_ACTUAL),
        *(_internal_score(pl.col(c), "higher").alias(c) for c in scores),
        *([to_index(predicted).alias(CLASS_PREDICTED)] if predicted is not None else []),
        w.alias(CLASS_WEIGHT),
    )
    lows = [found[f"min:{c}"] for c in scores if found[f"min:{c}"] is not None]
    highs = [found[f"max:{c}"] for c in scores if found[f"max:{c}"] is not None]
    score_range = (float(min(lows)), float(max(highs))) if lows else None
    n_distinct = sum(
        _scale_distinct(int(found[f"distinct:{c}"] or 0), n_rows, height is not None)
        for c in scores
    )
    return PreparedClasses(
        frame=internal.cache(),
        by=by,
        classes=classes,
        scores=list(scores),
        eager=not isinstance(frame, pl.LazyFrame),
        n_rows=n_rows,
        n_distinct=n_distinct,
        score_range=score_range,
        weighted=weight is not None,
        counted=count is not None or not polars,
    )


def _collected(plan: Any) -> pl.DataFrame:
    """A Polars or narwhals lazy plan's result as a Polars DataFrame."""
    if isinstance(plan, pl.LazyFrame):
        return plan.collect()
    return plan.collect(backend="polars").to_native()
