"""Input checks: from the schema first, then one cheap pass over the values.

Every public entry point funnels its frame through :func:`prepare`, which returns a
lazy frame in the library's internal shape ``[*by, __score, __pos, __neg]`` (score as
Float64, positive and negative weights as Int64 counts or Float64 weights), so the views
never look at the caller's column names or dtypes again.
"""

from __future__ import annotations

import difflib
import math
import os
import sys
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from types import FrameType
from typing import Any, Literal

import numpy as np
import polars as pl
from polars.exceptions import ColumnNotFoundError

from polars_roc.core.arguments import (
    MAX_TOTAL,
    Direction,
    NullPolicy,
    Roles,
    check_bins,
    refuse_clashes,
    too_many_rows,
)
from polars_roc.core.compat import float_as_bits
from polars_roc.core.engine_counts import ENGINE_COUNT, ENGINE_UNITS, native_frame
from polars_roc.exceptions import (
    RocInputError,
    SingleClassWarning,
)

__all__ = [
    "Direction",
    "NullPolicy",
    "Prepared",
    "prepare",
    "warn_single_class",
]

SCORE = "__roc_score"
SCORE_B = "__roc_score_b"
POS = "__roc_pos"
NEG = "__roc_neg"
# Rows of positive weight per class of an engine's weighted cell (what the bootstrap draws).
POS_UNITS = "__roc_pos_units"
NEG_UNITS = "__roc_neg_units"

Frame = pl.DataFrame | pl.LazyFrame

# Eager logs of up to this many rows are finished by the in-memory engine: the
# streaming engine's setup costs 1-3 ms a query whatever the rows (benchmarks/README.md,
# "Small frames"); the default engine stays for larger logs, where it is the faster.
SMALL_ROWS = 100_000


def finishing_engine(
    rows: int | None, large: Literal["auto", "streaming"] = "auto"
) -> Literal["in-memory", "auto", "streaming"]:
    """The engine that collects a view's plan over a log of ``rows`` rows (None: not
    known before a read, a lazy log): in memory for a small eager log, else ``large``."""
    return "in-memory" if rows is not None and rows <= SMALL_ROWS else large


# Columns of the score table, which every view builds on; a segment column of the same
# name would be overwritten. Views add the names of their own result columns.
RESERVED = frozenset({"threshold", "pos", "neg", "tp", "fp", "n_pos", "n_neg"})


@dataclass(frozen=True)
class Prepared:
    """A validated frame in the internal shape, with what the views need to know.

    Inside, a higher score is always more positive: with ``direction="lower"`` the score
    is negated once, here, and :meth:`finish` turns score-valued result columns back
    into the user's units; thresholds the user gives go in through
    :meth:`threshold_keys`.
    """

    frame: pl.LazyFrame
    by: list[str]
    weighted: bool
    eager: bool
    n_rows: int
    n_distinct: int
    # Per-group class presence ``[*by, n_pos, n_neg]`` (non-zero where the group holds
    # the class), known before the plan runs only for lazy input (eager results carry
    # their totals, so no extra pass is spent there).
    class_totals: pl.DataFrame | None = None
    # Lowest and highest internal score (None when there are no scores): the score
    # table packs scores into integer sort keys whose width depends on this range.
    score_range: tuple[float, float] | None = None
    # The score column's own dtype (scores are Float64 inside).
    score_dtype: pl.DataType = field(default_factory=pl.Float64)
    # Rows are count-table cells (``count=``): each stands for ``pos + neg`` units.
    counted: bool = False
    direction: Direction = "higher"
    # Distinct values of ``paired_score`` (a paired comparison's second score), or 0.
    paired_distinct: int = 0
    # ``bins=``: the number of buckets, and each group's range ``[*by, *BUCKET_RANGE]``
    # (lowest and highest finite score of positive mass), found by the value pass.
    bins: int | None = None
    ranges: pl.DataFrame | None = None
    # The rows are one per (group, score), sorted as the score table (the buckets of
    # ``bins=``): counting them again is skipped.
    sorted_cells: bool = False
    # Weighted cells of an engine: ``POS_UNITS``/``NEG_UNITS`` hold their rows of
    # positive weight per class (a weighted row of Polars is one such unit).
    engine_units: bool = False
    # The scores were cut to a few values (a confusion matrix's thresholds): the score
    # table counts them per score by hash, whatever the share of distinct scores.
    cells: bool = False
    # Lazy Polars input only: the source (its columns in play), the function that gives
    # rows of it the internal shape, and each group's kept rows ``[*by, n_kept]``: what
    # :mod:`polars_roc.core.segment_batches` needs to count the groups a batch at a time.
    source: pl.LazyFrame | None = None
    internal_of: Callable[[pl.LazyFrame], pl.LazyFrame] | None = None
    group_rows: pl.DataFrame | None = None

    def threshold_keys(self, thresholds: Sequence[float]) -> list[float]:
        """``thresholds`` (user units) as internal scores, to compare with the scores.

        A Float32 score of 0.7 is 0.699999988 as a Float64; the threshold 0.7 is rounded
        the same way, so that ``score >= 0.7`` means what it means in the score's dtype
        (as ``pl.col(score) >= 0.7`` in Polars and numpy). With ``direction="lower"``
        the keys are negated, as the scores are.
        """
        if self.score_dtype == pl.Float32:
            with np.errstate(over="ignore"):  # beyond Float32's range: +-inf, same order
                rounded = np.asarray(thresholds, dtype=np.float64).astype(np.float32)
            values = [float(x) for x in rounded]
        else:
            values = [float(t) for t in thresholds]
        return self.internal(values)

    def internal(self, thresholds: Sequence[float]) -> list[float]:
        """User-unit thresholds in internal units (negated for ``direction="lower"``)."""
        if self.direction == "lower":
            return [-t for t in thresholds]
        return list(thresholds)

    @property
    def unit(self) -> str | None:
        """What a row's contribution is called when it can be zero: a weight or a count."""
        return "weight" if self.weighted else ("count" if self.counted else None)

    def drop_zero_weight(self, table: pl.LazyFrame) -> pl.LazyFrame:
        """``table`` (rows with ``pos``, ``neg``) without its rows of zero weight when
        weighted, as scikit-learn drops samples of zero weight."""
        return table.filter((pl.col("pos") + pl.col("neg")) != 0) if self.weighted else table

    @property
    def count_dtype(self) -> pl.DataType:
        return pl.Float64() if self.weighted else pl.Int64()

    def finish(
        self,
        result: pl.LazyFrame,
        totals: Callable[[pl.DataFrame], pl.DataFrame],
        *,
        scores: Sequence[str] = ("threshold", "score_min", "score_max"),
        consequence: str | None = None,
    ) -> Frame:
        """Return ``result`` in the caller's kind (eager in, eager out).

        ``scores`` names the result columns in score units, which go back to the user's
        units (for ``direction="lower"``, negated; a ``score_min``/``score_max`` pair
        also swaps). Single-class groups are reported once: from the result's own totals
        (``totals(result)`` gives ``[*by, n_pos, n_neg]``) when eager, from the
        validation pass when lazy; ``consequence`` is what the warning says follows
        (see :func:`warn_single_class`).
        """
        if self.direction == "lower":  # a min/max pair swaps names as it is negated
            present = set(result.collect_schema().names()).intersection(scores)
            swap = {"score_min": "score_max", "score_max": "score_min"}
            result = result.with_columns(
                user_units(pl.col(swap[c] if swap.get(c) in present else c)).alias(c)
                for c in sorted(present)
            )
        if not self.eager:
            if self.class_totals is not None:
                warn_single_class(
                    self.class_totals, self.by, unit=self.unit, consequence=consequence
                )
            return result
        collected = result.collect(engine=finishing_engine(self.n_rows))
        if collected.height:
            warn_single_class(totals(collected), self.by, unit=self.unit, consequence=consequence)
        return collected


BUCKET_RANGE = ("__roc_bucket_low", "__roc_bucket_high")


def _column_roles(scores: Sequence[str], roles: Roles) -> list[tuple[str, str]]:
    """``(role, column)`` of every column a view reads, in the order they are checked."""
    named = [*(("score", name) for name in scores), ("label", roles.label)]
    named += [("weight", roles.weight)] if roles.weight is not None else []
    named += [("count", roles.count)] if roles.count is not None else []
    return named + [("by", col) for col in roles.by]


def check_engine_values(
    frame: object, roles: Roles, *, reserved: Collection[str], paired_score: str | None = None
) -> tuple[Any, pl.Schema, str, tuple[float, float] | None]:
    """Check another engine's frame as :func:`prepare` checks a Polars one.

    The schema checks run on the frame's first zero rows (no data read, the same
    messages); the value checks are :func:`value_checks` run in the engine as one
    aggregation, so they count the engine's rows as on Polars. Returns the frame as a
    lazy narwhals frame, the Polars schema of the columns in play, the label kind and
    the lowest and highest value of the (first) score (None without one).
    """
    import narwhals as nw  # installed with altair; imported only for other engines

    native = native_frame(frame).lazy()
    scores = [roles.score] if paired_score is None else [roles.score, paired_score]
    # Named with its role as on a Polars frame (the engine's column names only).
    names = native.collect_schema().names()
    for role, name in _column_roles(scores, roles):
        if isinstance(name, str) and name not in names:
            raise missing_column(role, name, pl.Schema(dict.fromkeys(names, pl.Null())))
    extra = [c for c in (roles.weight, roles.count) if c is not None]
    columns = list(dict.fromkeys([*roles.by, *scores, roles.label, *extra]))
    empty = engine_empty(native, columns)
    schema, label = empty.schema, roles.label
    check_engine_schema(native, empty, roles, reserved=reserved, paired_score=paired_score)
    kind = _label_kind(empty.lazy(), label, schema[label], roles.pos_label)
    checks = value_checks(nw, schema, roles, kind=kind, scores=scores)
    # The score's range too, in the same aggregation (an engine may read it from file
    # statistics): what the exact AUC's buckets of an ungrouped frame span.
    s = nw.col(scores[0])
    checks |= {"__roc_min": s.min(), "__roc_max": s.max()}
    found_native = native.select(**checks).collect(backend="polars").to_native()
    found = {key: value or 0 for key, value in found_native.row(0, named=True).items()}
    low, high = found_native["__roc_min"][0], found_native["__roc_max"][0]
    labels: pl.LazyFrame = empty.lazy()
    if found.get("label_bad") or (
        kind == "equal" and found["n_rows"] and not found.get("pos_present")
    ):
        labels = engine_labels(native, label)
    _raise_on_values(found, labels, roles, kind=kind, schema=schema, paired_score=paired_score)
    return native, schema, kind, None if low is None else (float(low), float(high))


def polars_lazy(frame: Frame, function: str, why: str) -> tuple[bool, pl.LazyFrame]:
    """Whether ``frame`` is eager, and its lazy form; refuses anything but Polars, naming
    ``function`` and ``why`` it reads the rows themselves."""
    if isinstance(frame, pl.DataFrame):
        return True, frame.lazy()
    if isinstance(frame, pl.LazyFrame):
        return False, frame
    msg = (
        f"{function}() takes a polars DataFrame or LazyFrame only ({why}), "
        f"got {type(frame).__name__}"
    )
    raise TypeError(msg)


def missing_column(role: str, name: str, schema: pl.Schema) -> ColumnNotFoundError:
    hint = difflib.get_close_matches(name, schema.names(), n=3)
    msg = f"{role} column {name!r} not found in the frame"
    if hint:
        msg += f"; did you mean one of {hint!r}?"
    else:
        msg += f"; available columns: {schema.names()!r}"
    return ColumnNotFoundError(msg)


# Scores are Float64 inside, which holds integers exactly up to 2^53 only.
FLOAT_EXACT = 2**53
WIDE_INTEGERS = frozenset({pl.Int64, pl.UInt64, pl.Int128, pl.UInt128})


def check_schema(
    named: Sequence[tuple[str, str]],
    schema: pl.Schema,
    by: Sequence[str],
    reserved: Collection[str],
) -> None:
    """Refuse, from the schema alone, the first ``(role, column)`` not in it, a ``by``
    column of a dtype :func:`check_by_dtypes` refuses or named as one of ``reserved``,
    then a score, weight or count column that is not numeric."""
    for role, name in named:
        if name not in schema:
            raise missing_column(role, name, schema)
    check_by_dtypes(by, schema)
    refuse_clashes(by, reserved)
    for role, column in named:
        dtype = schema[column]
        if role in ("score", "weight", "count") and (not dtype.is_numeric() or dtype == pl.Boolean):
            msg = f"{role} column {column!r} must be numeric, got dtype {dtype}"
            raise RocInputError(msg)


def beyond_float(values: Any) -> Any:
    """Integer scores (a Polars or narwhals expression) beyond +-2^53."""
    return (values > FLOAT_EXACT) | (values < -FLOAT_EXACT)


def check_by_dtypes(by: Sequence[str], schema: pl.Schema, role: str = "by") -> None:
    """Refuse segment (or period, ...: ``role``) columns that Polars cannot group or
    sort (dtype Object), or that cannot come back from every engine (Duration: DuckDB's
    INTERVAL, which Polars does not import)."""
    for name in by:
        if schema[name] == pl.Object:
            msg = (
                f"{role} column {name!r} has dtype Object, which cannot be grouped or sorted; "
                "cast it to a comparable dtype first (e.g. pl.String)"
            )
            raise RocInputError(msg)
        if isinstance(schema[name], pl.Duration):
            msg = (
                f"{role} column {name!r} has dtype {schema[name]}, which an engine's result "
                "cannot carry back to Polars (DuckDB's INTERVAL); use a number "
                f"instead (e.g. pl.col({name!r}).dt.total_seconds())"
            )
            raise RocInputError(msg)


def engine_empty(native: Any, columns: Sequence[str]) -> pl.DataFrame:
    """The first zero rows of an engine's frame ``native`` (narwhals) as a Polars frame
    of ``columns``, no data read; a Duration (DuckDB's INTERVAL, which Polars does not
    import) is given Polars' Duration of its unit, for the schema checks to refuse."""
    import narwhals as nw  # installed with altair; imported only for other engines

    schema = native.collect_schema()
    durations = {
        c: pl.Duration(schema[c].time_unit) for c in columns if isinstance(schema[c], nw.Duration)
    }
    kept = [c for c in columns if c not in durations]
    found = (
        native.select(*kept).head(0).collect(backend="polars").to_native().schema if kept else {}
    )
    return pl.DataFrame(schema={c: durations.get(c) or found[c] for c in columns})


DISTINCT_SHOWN = 10  # distinct values an error message shows


def _distinct_values(lf: pl.LazyFrame, column: str, limit: int = DISTINCT_SHOWN) -> str:
    """Up to ``limit`` distinct non-null values of ``column``, for error messages."""
    values = (
        lf.select(pl.col(column).drop_nulls().unique().sort().head(limit + 1))
        .collect()
        .to_series()
        .to_list()
    )
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (", ..." if len(values) > limit else "")


def check_engine_schema(
    native: Any,
    empty: pl.DataFrame,
    roles: Roles,
    *,
    reserved: Collection[str],
    paired_score: str | None = None,
) -> None:
    """:func:`prepare`'s schema checks of an engine's frame, on ``empty`` (its columns,
    no rows); a refused label is refused again showing the engine's labels, as Polars
    shows the log's."""
    try:
        prepare(empty, roles, reserved=reserved, paired_score=paired_score)
    except RocInputError as err:
        label, dtype = roles.label, empty.schema[roles.label]
        if str(err) == _no_implicit_class(label, "", dtype):
            _label_kind(engine_labels(native, label), label, dtype, roles.pos_label)
        raise


def engine_labels(native: Any, label: str) -> pl.LazyFrame:
    """The first distinct labels of a narwhals frame in Polars' order, for the messages
    of :func:`_distinct_values` (which shows as many)."""
    first = native.select(label).drop_nulls().unique().sort(label).head(DISTINCT_SHOWN + 1)
    return first.collect(backend="polars").to_native().lazy()


def _implicit_kind(dtype: pl.DataType, pos_label: Any) -> str | None:
    """:func:`_label_kind`'s answer, None where it refuses."""
    if pos_label is not None:
        return "equal"
    if dtype == pl.Boolean:
        return "bool"
    return "binary" if dtype.is_integer() or dtype.is_float() else None


def _label_kind(lf: pl.LazyFrame, name: str, dtype: pl.DataType, pos_label: Any) -> str:
    """How the label decides 'positive': 'bool', 'binary' (0/1 numbers) or 'equal'."""
    kind = _implicit_kind(dtype, pos_label)
    if kind is not None:
        return kind
    raise RocInputError(_no_implicit_class(name, _distinct_values(lf, name), dtype))


def _no_implicit_class(name: str, values: str, dtype: pl.DataType) -> str:
    # No dtype named: an engine's frame has lost Polars' (Categorical arrives as String).
    found = f"has values [{values}]" if values else f"holds nulls only (dtype {dtype})"
    return (
        f"label column {name!r} {found}, neither Boolean nor integer/float; only Boolean "
        "or 0/1 numeric labels have an implicit positive class. Pass `pos_label=` to say "
        "which value is positive"
    )


# Above this many rows of an eager frame, distinct scores are counted in a strided
# sample: counting them all costs a sizeable share of the sort (benchmarks/README.md).
DISTINCT_SAMPLE = 1 << 17


def _distinct_scores(score: pl.Expr, height: int | None) -> pl.Expr:
    """Approximate distinct scores: of every row, or of a strided sample when known big."""
    if height is None or height <= DISTINCT_SAMPLE:
        return score.approx_n_unique()
    return score.gather_every(height // DISTINCT_SAMPLE).approx_n_unique()


def _scale_distinct(found: int, n_rows: int, eager: bool) -> int:
    """Distinct scores of all rows from :func:`_distinct_scores`.

    A sample that repeats its values (at most half distinct) has seen most of them; one
    that barely repeats comes from mostly distinct scores, scaled up to all rows.
    """
    if not eager or n_rows <= DISTINCT_SAMPLE:
        return found
    sample = -(-n_rows // (n_rows // DISTINCT_SAMPLE))
    return found if found <= sample // 2 else min(n_rows, found * n_rows // sample)


# Counting per distinct score by hash beats sorting the rows when scores repeat a lot
# (rounded probabilities, scorecards): `benchmarks/bench_core.py --crossover`.
HASH_PATH_MAX_DISTINCT_RATIO = 0.01
# Eager rows from which counted_in_checks counts, and the rows of its sample: eager and
# small, a lazy plan's fixed cost was most of a larger sample's (benchmarks/README.md).
FOLD_MIN_ROWS, FOLD_SAMPLE = DISTINCT_SAMPLE, 1 << 14
CELL_KEY, CELL_ROWS = "__roc_cell_key", "__roc_cell_rows"


def counted_in_checks(
    frame: pl.DataFrame, roles: Roles, *, kind: str, is_pos: pl.Expr
) -> Prepared | None:
    """:func:`prepare` of an eager, ungrouped, unweighted frame of few distinct scores
    (a strided sample says so) and no nulls, whose caller reads only the counts per
    distinct score: the value pass is the hash count, one ``group_by`` of the score's
    bits with a length and a sum. The score checks are read from the ~1,000 keys and
    ``-0.0`` is normalised on them, not on every row (benchmarks/README.md, issue 28).
    None where it does not apply: :func:`prepare` then checks as usual."""
    score, label, height = roles.score, roles.label, frame.height
    dtype, s = frame.schema[score], pl.col(score)
    if height <= FOLD_MIN_ROWS or frame[score].null_count() or frame[label].null_count():
        return None  # what to do with nulls is the value pass's to say
    text = kind == "equal" and frame.schema[label] == pl.Boolean  # compared as text
    numpy_key = dtype.is_float() or (dtype.is_integer() and dtype not in (pl.Int128, pl.UInt128))
    if text or not numpy_key:
        return None
    # Few distinct scores: a strided sample repeats them (it has seen most of them).
    seen = frame.get_column(score).gather_every(max(height // FOLD_SAMPLE, 1)).n_unique()
    if seen > min(FOLD_SAMPLE // 2, HASH_PATH_MAX_DISTINCT_RATIO * height):
        return None
    lf = frame.lazy()
    # Integers are their own key; floats hash as their bits (Float64: the cast is free).
    key = s if dtype.is_integer() else float_as_bits(s.cast(pl.Float64))
    cells = lf.group_by(key.alias(CELL_KEY)).agg(
        pl.len().alias(CELL_ROWS), is_pos.sum().cast(pl.Int64).alias(POS)
    )
    # The label checks that are not of the scores, in a select beside it (per cell, a
    # second sum cost more than the whole select).
    labels = value_checks(pl, frame.schema, roles, kind=kind, scores=[score])
    label_bad = {name: labels[name] for name in ("label_bad",) if name in labels}
    with _label_comparison(kind=kind, label=label, schema=frame.schema, pos_label=roles.pos_label):
        counts, *found_labels = pl.collect_all(
            [cells, *([lf.select(**label_bad)] if label_bad else [])]
        )
    # The ~1,000 cells in numpy: each eager Polars step costs a plan (benchmarks/README.md).
    keys, rows, pos = (counts.get_column(c).to_numpy() for c in (CELL_KEY, CELL_ROWS, POS))
    values = keys.astype(np.float64) if dtype.is_integer() else keys.view(np.float64)
    nan = np.isnan(values)
    found = {"n_rows": height, "score_nan": int(rows[nan].sum()), "pos_present": pos.any()}
    if dtype in WIDE_INTEGERS:
        wide = counts.filter(beyond_float(pl.col(CELL_KEY))).get_column(CELL_ROWS)
        found["score_wide"] = wide.sum()
    found |= found_labels[0].row(0, named=True) if found_labels else {}
    _raise_on_values(found, lf, roles, kind=kind, schema=frame.schema)
    low, high = float(values.min()), float(values.max())
    # One cell per internal score (-0.0 + 0.0 is 0.0: one cell), highest first.
    scores, cell = np.unique(
        (-values if roles.direction == "lower" else values) + 0.0, return_inverse=True
    )
    # Float sums of whole counts below 2**53 (the rows of an eager frame): exact.
    pos_at, rows_at = (np.bincount(cell, n, len(scores)).astype(np.int64) for n in (pos, rows))
    internal = pl.DataFrame({SCORE: scores[::-1], POS: pos_at[::-1], NEG: (rows_at - pos_at)[::-1]})
    return Prepared(
        frame=internal.lazy(),
        by=[],
        weighted=False,
        eager=True,
        n_rows=height,
        n_distinct=counts.height,
        score_range=(low, high) if roles.direction == "higher" else (-high, -low),
        score_dtype=dtype,
        counted=True,
        direction=roles.direction,
        sorted_cells=True,
    )


def prepare(
    frame: Frame | Any,
    roles: Roles,
    *,
    reserved: Collection[str] = (),
    paired_score: str | None = None,
    group_classes: bool = False,
    bins: int | None = None,
    first: tuple[pl.LazyFrame, Callable[[pl.DataFrame], None]] | None = None,
    engine_units: bool = False,
    table_only: bool = False,
) -> Prepared:
    """Check the input and build the internal frame ``[*by, score, pos, neg]`` of the
    columns ``roles`` name, read as they say.

    ``reserved`` names the result columns of the calling view, which ``by`` columns
    must not use. ``paired_score`` names a second score of the same rows (a paired
    comparison), checked in the same pass and added as column ``SCORE_B``.
    ``group_classes`` finds each group's classes (``class_totals``) for eager input too,
    for views whose results carry no totals to warn from. ``bins`` finds each group's
    range for the buckets of ``bins=`` (``ranges``, see :mod:`polars_roc.core.buckets`).
    ``first = (plan, check)``: a check of the caller's on the same source (a pairing
    check), collected with the value checks in one pass (plans that share a cached
    source read it once) and run on its result before them. ``table_only``: the caller
    reads the rows as counts per distinct score only (:func:`counted_in_checks`).

    Schema checks read no data. Value checks (nulls, NaN, label set, weights, counts)
    run as one aggregation over the rows, before any sorting or counting: the one read
    of the source before the plan is returned. For lazy input it also finds the groups
    that hold one class only, so that the warning comes when the call is made.
    """
    score, label, by_cols = roles.score, roles.label, roles.by
    weight, count, pos_label = roles.weight, roles.count, roles.pos_label
    nulls, direction = roles.nulls, roles.direction
    bins = check_bins(bins)
    scores = [score] if paired_score is None else [score, paired_score]
    eager, lf = isinstance(frame, pl.DataFrame), frame.lazy()
    # Known without a read for eager input only.
    height = frame.height if isinstance(frame, pl.DataFrame) else None
    schema = lf.collect_schema()
    check_schema(_column_roles(scores, roles), schema, by_cols, RESERVED.union(reserved))
    kind = _label_kind(lf, label, schema[label], pos_label)

    s, y = pl.col(score), pl.col(label)
    is_pos = y if kind == "bool" else (y == 1 if kind == "binary" else y == pos_label)
    if weight is not None:
        w = pl.col(weight).cast(pl.Float64)
        pos = pl.when(is_pos).then(w).otherwise(0.0)
        neg = pl.when(is_pos).then(0.0).otherwise(w)
    elif count is not None:
        # Not strict: the value pass reads this before it has refused NaN or fractions.
        c = pl.col(count).cast(pl.Int64, strict=False)
        pos = pl.when(is_pos).then(c).otherwise(0)
        neg = pl.when(is_pos).then(0).otherwise(c)
    else:
        pos, neg = is_pos.cast(pl.Int64), (~is_pos).cast(pl.Int64)
    plain = not by_cols and weight is None and count is None and paired_score is None
    plain = plain and bins is None and first is None and not (engine_units or group_classes)
    if table_only and plain and isinstance(frame, pl.DataFrame):
        folded = counted_in_checks(frame, roles, kind=kind, is_pos=is_pos)
        if folded is not None:
            return folded
    required = [*scores, label, *(col for col in (weight, count) if col is not None)]
    units = [ENGINE_UNITS] if engine_units else []
    kept = pl.all_horizontal(pl.col(col).is_not_null() for col in required)
    rows = pl.col(ENGINE_COUNT) if count == ENGINE_COUNT else None
    checks: dict[str, Any] = value_checks(pl, schema, roles, kind=kind, scores=scores, rows=rows)
    checks |= {"score_min": s.min(), "score_max": s.max()}
    # Distinct scores of the whole log (the counting path's choice), not per group;
    # bins= counts buckets instead, cut within each group's range found here.
    distinct = {} if bins is not None else {"n_distinct": _distinct_scores(s, height)}
    if paired_score is not None:
        distinct["paired_distinct"] = _distinct_scores(pl.col(paired_score), height)
    # The one-class warning of a lazy call is given when the call is made, so the
    # classes of each group are found in this same pass (no second read).
    per_group = bool(by_cols) and (not eager or group_classes or bins is not None)
    # Per group only what is needed per group (rows and classes kept, bins=' ranges);
    # the checks of the whole log run ungrouped beside it (grouped, they cost 1.8x the
    # pass: benchmarks/README.md).
    grouped: dict[str, Any] = {}
    if per_group:
        # Counts of flags: cheaper than any() of a filter; the classes' presence after.
        grouped["n_pos"] = ((pos > 0) & kept).sum()
        grouped["n_neg"] = ((neg > 0) & kept).sum()
        grouped["n_kept"] = kept.sum()  # a group of rows nulls="drop" leaves out is no group
    elif not eager or group_classes or bins is not None:
        checks["n_pos"] = pos.filter(kept).sum()
        checks["n_neg"] = neg.filter(kept).sum()
    if bins is not None:
        v = _internal_score(s, direction)
        in_range = v.filter(kept & v.is_finite() & ((pos + neg) > 0))
        (grouped if per_group else checks).update(
            zip(BUCKET_RANGE, (in_range.min(), in_range.max()))
        )

    def internal_of(rows: pl.LazyFrame) -> pl.LazyFrame:
        """``rows`` in the internal shape ``[*by, score, pos, neg, ...]``."""
        if nulls == "drop":
            rows = rows.drop_nulls(required)
        return rows.select(
            *by_cols,
            _internal_score(s, direction).alias(SCORE),
            pos.alias(POS),
            neg.alias(NEG),
            *(
                [_internal_score(pl.col(paired_score), direction).alias(SCORE_B)]
                if paired_score is not None
                else []
            ),
            *(
                [
                    pl.when(is_pos).then(pl.col(ENGINE_UNITS)).otherwise(0).alias(POS_UNITS),
                    pl.when(is_pos).then(0).otherwise(pl.col(ENGINE_UNITS)).alias(NEG_UNITS),
                ]
                if engine_units
                else []
            ),
        )

    # Grouped, the per-group counts come from a group_by (memory grows with the groups,
    # not the rows) beside the select of the log's checks and distinct scores, collected
    # together (one scan of the source shared by both). With bins= (no distinct count)
    # the checks go in the group_by: a cache shared by a select holds rows for the
    # group_by that lags it (1.7 GiB more at 5 x 10^8 rows, benchmarks/README.md).
    alone = per_group and not distinct
    if alone:
        passes = [lf.group_by(by_cols).agg(**checks, **grouped)]
    elif per_group:
        source = lf.cache()
        passes = [source.select(**checks, **distinct), source.group_by(by_cols).agg(**grouped)]
    else:
        passes = [lf.select(**checks, **distinct)]
    with _label_comparison(kind=kind, label=label, schema=schema, pos_label=pos_label):
        engine = finishing_engine(height)
        results = pl.collect_all([*passes, *([first[0]] if first else [])], engine=engine)
        if first is not None:
            first[1](results[-1])
        values = results[1] if per_group and not alone else results[0]
        found = (_over_groups(values, by_cols) if alone else results[0]).row(0, named=True)

    _raise_on_values(found, lf, roles, kind=kind, schema=schema, paired_score=paired_score)

    internal = internal_of(lf)
    class_totals = group_rows = None
    if not eager or group_classes:
        if per_group:
            kept_groups = values.filter(pl.col("n_kept") > 0)
            class_totals = kept_groups.select(
                *by_cols, (pl.col("n_pos", "n_neg") > 0).cast(pl.Int64)
            )
            group_rows = None if eager else kept_groups.select(*by_cols, "n_kept")
        elif found["n_rows"]:
            class_totals = pl.DataFrame({"n_pos": [found["n_pos"]], "n_neg": [found["n_neg"]]})
    ranges = None
    if bins is not None:
        ranges = (
            values.filter(pl.col("n_kept") > 0).select(*by_cols, *BUCKET_RANGE)
            if per_group
            else values.select(BUCKET_RANGE)
        )
    score_range = None
    if found["score_min"] is not None:
        low, high = float(found["score_min"]), float(found["score_max"])
        score_range = (low, high) if direction == "higher" else (-high, -low)
    n_rows = int(found["n_rows"])
    return Prepared(
        frame=internal,
        by=by_cols,
        weighted=weight is not None,
        eager=eager,
        n_rows=n_rows,
        n_distinct=_scale_distinct(int(found.get("n_distinct") or 0), n_rows, eager),
        class_totals=class_totals,
        score_range=score_range,
        score_dtype=schema[score],
        counted=count is not None,
        direction=direction,
        paired_distinct=_scale_distinct(int(found.get("paired_distinct") or 0), n_rows, eager),
        bins=bins,
        ranges=ranges,
        engine_units=engine_units,
        # The source columns the internal frame reads.
        source=None if eager else lf.select(list(dict.fromkeys([*by_cols, *required, *units]))),
        internal_of=internal_of,
        group_rows=group_rows,
    )


def _counters(F: Any, rows: Any) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """``total(flag)``, the rows where ``flag`` holds, and ``nulls(column)``, its null
    rows (with ``rows``, an expression of how many rows each row of a count table
    stands for, their sum)."""

    def total(flag: Any) -> Any:
        if F is pl and rows is None:  # Polars sums flags as counts: a cast costs 3x
            return flag.sum()
        flag = flag.cast(F.Int64)
        return (flag if rows is None else flag * rows).sum()

    def nulls(column: Any) -> Any:  # a null count is free metadata on Polars
        return column.null_count() if F is pl and rows is None else total(column.is_null())

    return total, nulls


def value_checks(
    F: Any, schema: pl.Schema, roles: Roles, *, kind: str, scores: Sequence[str], rows: Any = None
) -> dict[str, Any]:
    """The value checks of a log, written once for every engine.

    ``F`` is ``polars`` or ``narwhals``: the same expressions run on a Polars frame and,
    through narwhals, in DuckDB, Spark and the others, as one aggregation whose result
    :func:`_raise_on_values` reads. Each check counts the rows at fault (with ``rows``,
    an expression of how many rows each row of a count table stands for, their sum).
    A second score of the same rows (``scores[1]``) has its checks under ``paired_``.
    """
    total, nulls = _counters(F, rows)
    y = F.col(roles.label)
    checks: dict[str, Any] = {"n_rows": F.len(), "label_nulls": nulls(y)}
    for prefix, name in zip(("score", "paired"), scores):
        s = F.col(name)
        checks[f"{prefix}_nulls"] = nulls(s)
        if schema[name].is_float():
            # Not is_nan(): DuckDB folds it to false from Parquet statistics that
            # ignore NaN; NaN is the one value neither finite, infinite nor null.
            nan = (
                s.is_nan() if F is pl else ~s.is_finite() & (s.abs() != float("inf")) & ~s.is_null()
            )
            checks[f"{prefix}_nan"] = total(nan)
        if schema[name] in WIDE_INTEGERS:
            checks[f"{prefix}_wide"] = total(beyond_float(s))
    if kind == "binary":
        checks["label_bad"] = total((y != 0) & (y != 1))
    if kind == "equal":
        # A Boolean equals a string as its text ("true"/"false"), as on Polars: an
        # engine's cast of the string ("yes" to true in DuckDB and Spark) is refused here.
        text = schema[roles.label] == pl.Boolean and isinstance(roles.pos_label, str)
        value = y.cast(F.String) if text else y
        checks["pos_present"] = (value == roles.pos_label).cast(F.Int64).max()
    return checks | unit_checks(F, schema, roles.weight, roles.count, rows=rows)


def unit_checks(
    F: Any, schema: pl.Schema, weight: str | None, count: str | None, *, rows: Any = None
) -> dict[str, Any]:
    """The checks of the ``weight`` or ``count`` column (as :func:`value_checks`, which
    holds them), for every view that reads one, label or none; read by
    :func:`raise_on_units`. Added up over cells, they are those of the rows."""
    total, nulls = _counters(F, rows)
    checks: dict[str, Any] = {}
    for role, column in (("weight", weight), ("count", count)):
        if column is None:
            continue
        v, dtype = F.col(column), schema[column]
        checks[f"{role}_nulls"] = nulls(v)
        if dtype.is_float():
            # -inf is counted once, as not finite.
            checks[f"{role}_negative"] = total(v.is_finite() & (v < 0))
            checks[f"{role}_nonfinite"] = total(~v.is_finite())
            if role == "weight":  # finite weights can still sum past Float64's range
                checks["weight_total"] = F.when(v.is_finite()).then(v).otherwise(0.0).sum()
                checks["weight_subnormal"] = total((v > 0) & (v < sys.float_info.min))
        else:
            checks[f"{role}_negative"] = total(v < 0)
        if role == "count":
            # Whole units beyond Int64, one by one or in total, would wrap or vanish.
            # (A Decimal has no is_finite: it is always finite.)
            fraction, big = v != v.round(0), v > MAX_TOTAL
            if dtype.is_float():  # 2**63 - 1 is no float: compared as 2**63, it let 2**63 in
                fraction, big = v.is_finite() & fraction, v.is_finite() & (v >= 2.0**63)
            if dtype.is_float() or dtype == pl.Decimal:
                checks["count_fraction"] = total(fraction)
            checks["count_too_large"] = total(big)
            # Exact (Int128) on Polars, where an engine's count table is summed again.
            units = v.cast(pl.Int128, strict=False) if F is pl else v.cast(F.Float64)
            checks["count_sum"] = F.when(v >= 0).then(units).sum()
    return checks


@contextmanager
def _label_comparison(
    *, kind: str, label: str, schema: pl.Schema, pos_label: Any
) -> Iterator[None]:
    """Polars' error when comparing the label with ``pos_label`` fails, raised as the
    input error that names them; any other error as it is."""
    try:
        yield
    except pl.exceptions.PolarsError as err:
        if kind != "equal":
            raise
        msg = (
            f"cannot compare label column {label!r} ({schema[label]}) with "
            f"pos_label={pos_label!r}; pass a value of the label's type "
            f"({type(err).__name__}: {str(err).splitlines()[0]})"
        )
        raise RocInputError(msg) from err


def user_units(internal: pl.Expr) -> pl.Expr:
    """An internal score of ``direction="lower"`` in the user's units: negated, 0.0 kept
    0.0 (``-x`` would show -0.0; Polars folds ``0.0 - x`` and ``-x + 0.0`` into it)."""
    return pl.when(internal == 0.0).then(0.0).otherwise(-internal)


def _internal_score(score: pl.Expr, direction: Direction) -> pl.Expr:
    """The score as the views see it: Float64, higher is more positive, no -0.0."""
    internal = score.cast(pl.Float64)
    if direction == "lower":
        internal = -internal
    # -0.0 and 0.0 are one score: normalise so hashing and sorting agree.
    return pl.when(internal == 0.0).then(0.0).otherwise(internal)


def _over_groups(values: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The value checks of the whole log from their values per group: counts add up,
    presence is any group's, the score range spans the groups'."""
    combine = {"score_min": pl.min, "score_max": pl.max, "pos_present": pl.max}
    combine |= dict(zip(BUCKET_RANGE, (pl.min, pl.max)))
    return values.select(
        combine.get(name, pl.sum)(name) for name in values.columns if name not in by
    )


def _raise_on_values(
    found: dict[str, Any],
    lf: pl.LazyFrame,
    roles: Roles,
    *,
    kind: str,
    schema: pl.Schema,
    paired_score: str | None = None,
) -> None:
    """Raise the first problem the value pass found, naming the column and the fix; then
    those of ``paired_score``, whose checks ``value_checks`` names ``paired_``."""
    score, label, weight, count = roles.score, roles.label, roles.weight, roles.count
    pos_label = roles.pos_label
    if roles.nulls == "raise":
        raise_on_nulls(found, (("score", score), ("label", label)))
    if found.get("score_nan"):
        msg = (
            f"score column {score!r} has {found['score_nan']} NaN value(s), which cannot "
            "be ranked; replace them (e.g. with .fill_nan(None) and nulls='drop')"
        )
        raise RocInputError(msg)
    if found.get("score_wide"):
        raise _wide_scores(score, found["score_wide"])
    if found.get("label_bad"):
        values = _distinct_values(lf, label)
        msg = (
            f"label column {label!r} ({schema[label]}) holds values other than 0 and 1: "
            f"[{values}]; pass `pos_label=` to say which value is positive"
        )
        raise RocInputError(msg)
    if kind == "equal" and found["n_rows"] and not found["pos_present"]:
        values = _distinct_values(lf, label)
        msg = (
            f"pos_label={pos_label!r} does not occur in label column {label!r}; "
            f"its values are [{values}]"
        )
        raise RocInputError(msg)
    raise_on_units(found, weight, count, roles.nulls)
    if paired_score is not None:  # the rest passed: only the second score's checks raise
        paired = {k.replace("paired", "score"): v for k, v in found.items() if "paired" in k}
        paired_roles = replace(roles, score=paired_score)
        _raise_on_values({**found, **paired}, lf, paired_roles, kind=kind, schema=schema)


def raise_on_nulls(
    found: dict[str, Any], named: Iterable[tuple[str, str | None]], key: str = "{role}_nulls"
) -> None:
    """Refuse the first ``(role, name)`` column whose null rows ``found[key]`` counts."""
    for role, name in named:
        number = found.get(key.format(role=role, name=name), 0)
        if number:
            msg = (
                f"{role} column {name!r} has {number} null value(s); fill them, "
                "or pass nulls='drop' to leave those rows out"
            )
            raise RocInputError(msg)


def raise_on_units(
    found: dict[str, Any], weight: str | None, count: str | None, nulls: NullPolicy
) -> None:
    """Raise the first problem :func:`unit_checks` found in the weight or count column:
    the one message of each, for every view."""
    if nulls == "raise":
        raise_on_nulls(found, (("weight", weight), ("count", count)))
    if weight is not None:
        bad = found["weight_negative"] + found.get("weight_nonfinite", 0)
        if bad:
            msg = (
                f"weight column {weight!r} has {bad} negative, NaN or infinite value(s); "
                "weights must be finite and >= 0"
            )
            raise RocInputError(msg)
        total, tiny = found.get("weight_total") or 0.0, found.get("weight_subnormal")
        if math.isinf(total) or tiny:
            problem = (
                f"sums past the largest Float64 ({sys.float_info.max})"
                if math.isinf(total)
                else f"has {tiny} value(s) below the smallest normal Float64 "
                f"({sys.float_info.min}), which arithmetic may flush to zero"
            )
            msg = (
                f"weight column {weight!r} {problem}; multiply the weights by a constant "
                "first (the AUC and the rates do not change)"
            )
            raise RocInputError(msg)
    if count is not None:
        problems = [
            f"{found[key]} {what} value(s)"
            for key, what in (
                ("count_negative", "negative"),
                ("count_nonfinite", "NaN or infinite"),
                ("count_fraction", "non-integral"),
            )
            if found.get(key)
        ]
        if problems:
            msg = (
                f"count column {count!r} has {' and '.join(problems)}; counts are "
                "frequencies: whole numbers >= 0 of identical rows (for sampling weights, "
                "pass weight= instead)"
            )
            raise RocInputError(msg)
        total = found.get("count_sum") or 0
        # A float total (an engine's) is only approximate: near the limit, the exact
        # check of the engine's count table decides.
        limit = MAX_TOTAL if isinstance(total, int) else 2.0**63 * (1 + 2**-40)
        if found.get("count_too_large") or total > limit:
            raise too_many_rows(count, found.get("count_too_large") or 0, total)


def _wide_scores(column: str, number: int) -> RocInputError:
    msg = (
        f"score column {column!r} has {number} integer value(s) beyond +-2^53 "
        f"({FLOAT_EXACT}), the limit of exact Float64 scores: distinct scores could tie. "
        "Rank them or subtract an offset first (or cast to Float64 to accept the rounding)"
    )
    return RocInputError(msg)


def _shown(value: Any) -> str:
    """A segment value as a reader writes it: strings quoted, dates as ISO text."""
    plain = value is None or isinstance(value, (str, bool, int, float))
    return repr(value) if plain else str(value)


def warn_single_class(
    totals: pl.DataFrame,
    by: list[str],
    *,
    unit: str | None = None,
    consequence: str | None = None,
) -> None:
    """Warn, naming the groups whose AUC is null: those holding only one class, and
    (with ``unit`` "weight" or "count") those whose rows all weigh or count zero.

    ``totals`` has one row per group with columns ``[*by, n_pos, n_neg]`` (non-zero
    where the group holds that class). ``consequence`` replaces "their AUC and the
    rates ... are null" for a view that reports no AUC (e.g. "they have no curve").
    """
    pos_zero, neg_zero = pl.col("n_pos") == 0, pl.col("n_neg") == 0
    _warn_groups(
        totals.filter(pos_zero != neg_zero),
        by,
        "hold only one class",
        "holds only one class",
        "the rates that need both classes",
        consequence,
    )
    if unit is not None:
        _warn_groups(
            totals.filter(pos_zero & neg_zero),
            by,
            f"have zero total {unit} (all their {unit}s are 0)",
            f"has zero total {unit} (all its {unit}s are 0)",
            "every rate",
            consequence,
        )


def _warn_groups(
    groups: pl.DataFrame,
    by: list[str],
    plural: str,
    singular: str,
    rates: str,
    consequence: str | None = None,
) -> None:
    if groups.height == 0:
        return
    if by:
        groups = groups.sort(by, nulls_last=False)
        names = [
            ", ".join(f"{k}={_shown(v)}" for k, v in row.items())
            for row in groups.select(by).head(10).iter_rows(named=True)
        ]
        more = f" and {groups.height - 10} more" if groups.height > 10 else ""
        msg = f"{groups.height} group(s) [{'; '.join(names)}{more}] {plural}; "
        msg += consequence or f"their AUC and {rates} are null"
    else:
        msg = f"the data {singular}; " + (consequence or f"its AUC and {rates} are null")
    warnings.warn(msg, SingleClassWarning, stacklevel=caller_stacklevel())


def caller_stacklevel() -> int:
    """Stack level of the first frame outside this package, for warnings."""
    root = os.path.dirname(sys.modules["polars_roc"].__file__ or "") + os.sep
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(root):
        frame, level = frame.f_back, level + 1
    return level
