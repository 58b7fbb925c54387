"""The rows of the surrounding group, checked, and its score table, as expressions.

The expression forms of the summaries (``pr.auc``, ``pr.ks`` ...) work inside
``select``, ``group_by().agg()`` and ``over()``. :func:`expr_rows` applies the frame
methods' rules as far as an expression can: dtypes raise when the plan is built; a null
under ``nulls="raise"``, inputs of different lengths and integer scores beyond +-2^53
stop the query (``RocQueryError``); other bad values give null for their group only.
:func:`table_value` computes a value over the group's score table from one stable sort,
with the frame methods' additions in their order (the same bits).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import polars as pl
import polars.selectors as cs

from polars_roc.core.arguments import NullPolicy, check_choice
from polars_roc.core.compat import POLARS_2, lag
from polars_roc.core.validate import FLOAT_EXACT, WIDE_INTEGERS, beyond_float
from polars_roc.exceptions import RocInputError, RocOptionError, RocQueryError

__all__ = [
    "ExprRows",
    "ExprTable",
    "IntoExpr",
    "as_expr",
    "class_sizes",
    "expr_rows",
    "positives_at_or_above",
    "table_sum",
    "table_value",
]

IntoExpr = str | pl.Expr


class ExprRows(NamedTuple):
    """The group's usable rows: scores, classes, weights, and one validity flag."""

    score: pl.Expr  # Float64 (ranks take -0.0 and 0.0 as one score)
    is_pos: pl.Expr  # Boolean, no nulls
    weight: pl.Expr | None  # Float64
    valid: pl.Expr  # one Boolean per group: no NaN score, labels and weights usable
    # The score without the checks, to order rows that pass them (where it sits beside
    # the checked score, the checks run once less).
    order: pl.Expr


class ExprTable(NamedTuple):
    """Fields of a group's rows sorted by score (see :func:`table_value`): each score's
    last row (``end``) stands for its row of the score table."""

    end: pl.Expr  # the last row of its score: a row of the table
    tp: pl.Expr  # weight of positives at or above the row (at `end`: the table's tp)
    fp: pl.Expr
    pos: pl.Expr  # at `end`: positives at that score
    neg: pl.Expr  # at `end`: negatives at that score
    n_pos: pl.Expr  # the group's totals, on every row
    n_neg: pl.Expr


def as_expr(value: IntoExpr, role: str) -> pl.Expr:
    """A column name or an expression, as an expression."""
    if isinstance(value, str):
        return pl.col(value)
    if isinstance(value, pl.Expr):
        return value
    msg = f"`{role}` must be a column name or a polars expression, got {value!r}"
    raise TypeError(msg)


def _implicit_positive(label: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """``label`` as "is positive" under the frame methods' rule (``_label_kind``), chosen
    from the dtype when the plan is built: Boolean, or numbers 1/0 (other values null);
    other dtypes (String "0"/"1" too) have no implicit positive class: all null."""
    if dtype == pl.Boolean:
        return label
    if dtype.is_integer() or dtype.is_float():
        # Null where the value is neither 0 nor 1, so that the group is invalid.
        return pl.when(label == 1).then(True).when(label == 0).then(False)
    return pl.repeat(None, label.len(), dtype=pl.Boolean)


def _implicit_positive_any_dtype(label: pl.Expr) -> pl.Expr:
    """:func:`_implicit_positive` on Polars 1.x, as one expression for any dtype (chosen
    when the query runs; text and categories' codes pass a cast nothing reads)."""
    readable = pl.dtype_of(label).matches(cs.boolean() | cs.integer() | cs.float())
    number = label.to_physical().cast(pl.Float64, strict=False)
    return pl.when(readable & (number == 1)).then(True).when(readable & (number == 0)).then(False)


def _equals_pos_label(function: str, pos_label: Any, label: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """``label == pos_label``; a ``pos_label`` Polars cannot compare with the label's
    dtype (a number for text labels) raises when the plan is built, as in the frames."""
    try:
        pl.DataFrame(schema={"label": dtype}).select(pl.col("label") == pos_label)
    except pl.exceptions.PolarsError as err:
        msg = (
            f"pr.{function}: cannot compare `label` ({dtype}) with pos_label={pos_label!r}; "
            f"pass a value of the label's type ({type(err).__name__}: "
            f"{str(err).splitlines()[0]})"
        )
        raise RocInputError(msg) from None
    return label == pos_label


def labels(label: IntoExpr, pos_label: Any, function: str = "auc") -> tuple[pl.Expr, pl.Expr]:
    """``(is_positive, label_is_usable)``: the frames' label rule, or ``pos_label`` (a
    group where it never occurs is unusable: a typo must not make every label negative)."""
    y = as_expr(label, "label")
    if pos_label is None:
        if POLARS_2:
            is_pos = y.pipe_with_dtype(_implicit_positive)
        else:
            is_pos = _implicit_positive_any_dtype(y)
        return is_pos.fill_null(False), is_pos.is_not_null()
    if POLARS_2:
        is_pos = y.pipe_with_dtype(partial(_equals_pos_label, function, pos_label))
    else:  # no dtype before the query runs: a pos_label of another type fails there
        is_pos = y == pos_label
    return is_pos, y.is_not_null() & is_pos.any()


_NOT_NUMERIC = (
    "pr.{}: `{}` must be numeric, got dtype {}; cast it first (e.g. pl.col(...).cast(pl.Float64))"
)


def _numeric(function: str, role: str, values: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """``values`` as Float64; a non-numeric dtype raises when the plan is built."""
    if dtype.is_numeric() and dtype != pl.Boolean:
        return values.cast(pl.Float64)
    raise ValueError(_NOT_NUMERIC.format(function, role, dtype))


def float_input(function: str, role: str, values: pl.Expr) -> pl.Expr:
    """``values`` as Float64 (:func:`_numeric`); on Polars 1.x, where the dtype is not
    known before the query runs, :func:`numeric_check` refuses other dtypes then."""
    if POLARS_2:
        return values.pipe_with_dtype(partial(_numeric, function, role))
    return values.cast(pl.Float64, strict=False)


def numeric_check(function: str, role: str, values: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Polars 1.x: :func:`_numeric`'s refusal as a check (see :func:`stop_if`)."""
    dtype = pl.dtype_of(values)
    message = _NOT_NUMERIC.format(function, role, "{}")
    return ~dtype.matches(cs.numeric()), pl.format(message, dtype.display())


def _beyond_float_count(values: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    return beyond_float(values).sum() if dtype in WIDE_INTEGERS else pl.lit(0, pl.UInt32)


def _beyond_float_count_any_dtype(values: pl.Expr) -> pl.Expr:
    """:func:`_beyond_float_count` on Polars 1.x, as one expression for any dtype."""
    wide = pl.dtype_of(values).matches(cs.by_dtype(*WIDE_INTEGERS))
    # Int128 holds every wide integer but UInt128's past 2^127, which the cast makes null.
    integers = values.to_physical().cast(pl.Int128, strict=False)
    beyond = beyond_float(integers) | (integers.is_null() & values.is_not_null())
    return pl.when(wide).then(beyond.sum()).otherwise(pl.lit(0, pl.UInt32))


def _raise_first(messages: pl.Series) -> pl.Series:
    """``0.0`` for each ``"0"``; any other text is a failed check's message: raise it."""
    failed = messages.filter(messages != "0")
    if len(failed):
        raise RocQueryError(failed[0])
    return pl.zeros(len(messages), pl.Float64, eager=True)


def stop_if(checks: list[tuple[pl.Expr, pl.Expr]]) -> pl.Expr:
    """``0.0``, or, where a check holds, an error that stops the query when it runs: a
    Python function over the checks' one text per group raises our message (Polars has
    no expression that does); elementwise, it runs once per query, not per group."""
    (condition, message), *rest = checks
    chain: Any = pl.when(condition).then(message)
    for condition, message in rest:
        chain = chain.when(condition).then(message)
    texts = chain.otherwise(pl.lit("0"))
    return texts.map_batches(_raise_first, return_dtype=pl.Float64, is_elementwise=True)


def expr_rows(
    function: str,
    score: IntoExpr,
    label: IntoExpr,
    weight: IntoExpr | None,
    pos_label: Any,
    nulls: NullPolicy,
    *,
    count: IntoExpr | None = None,
    direction: str = "higher",
) -> ExprRows:
    """The rows of the surrounding group as ``function`` (``"auc"``, ...) reads them:
    ``count`` enters as a weight of whole numbers, ``direction="lower"`` negates the
    score, ``nulls="drop"`` leaves out the rows with any null input together."""
    if nulls not in ("raise", "drop"):
        msg = f"`nulls` must be 'raise' or 'drop', got {nulls!r}"
        raise ValueError(msg)
    check_choice("direction", direction, ("higher", "lower"))
    if weight is not None and count is not None:
        msg = f"pr.{function}: pass either weight= or count=, not both"
        raise RocOptionError(msg)
    given: dict[str, Any] = {"score": score, "label": label, "weight": weight, "count": count}
    inputs = {
        role: as_expr(values, role)
        for role, values in given.items()
        if values is not None or role in ("score", "label")
    }
    numbers = {role: values for role, values in inputs.items() if role != "label"}
    inputs |= {role: float_input(function, role, values) for role, values in numbers.items()}
    if direction == "lower":
        inputs["score"] = -inputs["score"]
    s = inputs["score"]
    checks = [] if POLARS_2 else [numeric_check(function, *i) for i in numbers.items()]
    checks += [
        (
            s.len() != values.len(),
            pl.format(
                f"pr.{function}: score and {role} give different numbers of rows in a "
                f"group ({{}} and {{}}); they must give one value per row. To leave out "
                f"rows with a null, pass nulls='drop' rather than dropping them from one "
                f"input",
                s.len(),
                values.len(),
            ),
        )
        for role, values in inputs.items()
        if role != "score"
    ]
    # Scores become Float64: wide integers beyond 2^53 could tie (the frames refuse them).
    if POLARS_2:
        wide = numbers["score"].pipe_with_dtype(_beyond_float_count)
    else:
        wide = _beyond_float_count_any_dtype(numbers["score"])
    message = f"pr.{function}: score has {{}} integer value(s) beyond +-2^53 ({FLOAT_EXACT})"
    checks.append((wide > 0, pl.format(f"{message}, which Float64 scores cannot hold apart", wide)))
    if nulls == "raise":
        checks += [
            (
                values.null_count() > 0,
                pl.format(
                    f"pr.{function}: {role} has {{}} null value(s) in a group; fill "
                    f"them, or pass nulls='drop' to leave those rows out",
                    values.null_count(),
                ),
            )
            for role, values in inputs.items()
        ]
    # An input passes through the checks so that nothing combines the inputs (and
    # fails on their lengths) before they ran. Each checked input runs them again (a
    # Python function Polars does not share), so only the score passes (and, weighted,
    # the label, below): every combination holds it. A filter by one true value per
    # group hands the column on without a copy.
    passed = stop_if(checks) == 0.0
    frequency = "count" in inputs
    weighting = "count" if frequency else "weight"
    order, y, w = inputs["score"], inputs["label"], inputs.get(weighting)
    s = order.filter(passed)
    if nulls == "drop":
        keep = pl.all_horizontal(values.is_not_null() for values in (s, y, w) if values is not None)
        s, y, order = s.filter(keep), y.filter(keep), order.filter(keep)
        w = None if w is None else w.filter(keep)
    if w is not None and POLARS_2:
        # Sorted beside the score, an unchecked label of another length panicked in
        # Polars 2.1 instead of raising the checks' message: the label passes them too.
        y = y.filter(passed)
    is_pos, label_ok = labels(y, pos_label, function)
    # The validity tests combine nothing per row: with nulls="raise" they read the
    # unchecked score, so the checks do not run again for it.
    score_in = inputs["score"] if nulls == "raise" else s
    valid = score_in.is_not_nan().all() & label_ok.all()
    if w is not None:
        v = w
        usable = v.is_finite() & ((v == 0) | (v >= sys.float_info.min))  # no subnormals
        if frequency:
            usable = usable & (v == v.round())
        valid = valid & usable.all() & v.sum().is_finite()
    return ExprRows(score=s, is_pos=is_pos, weight=w, valid=valid, order=order)


def class_sizes(rows: ExprRows) -> tuple[pl.Expr, pl.Expr]:
    """``(n_pos, n_neg)`` of the group's rows, as Float64 (exact up to 2^53)."""
    n_pos = rows.is_pos.sum().cast(pl.Float64)
    # The label's length, not the score's: the checks run on each use of the score.
    return n_pos, rows.is_pos.len().cast(pl.Float64) - n_pos


def positives_at_or_above(rows: ExprRows) -> tuple[pl.Expr, pl.Expr]:
    """For each positive row: ``(tp, rows)`` scoring at or above it, in row order
    (unweighted): two ``"max"`` ranks, of all rows and of the positives."""
    s, is_pos = rows.score, rows.is_pos
    at_or_above = s.rank("max", descending=True).filter(is_pos).cast(pl.Float64)
    tp = s.filter(is_pos).rank("max", descending=True).cast(pl.Float64)
    return tp, at_or_above


def table_value(rows: ExprRows, value: Callable[[ExprTable], pl.Expr]) -> pl.Expr:
    """``value`` of the surrounding group's score table, from one stable sort of its rows
    by score, descending; its last row is the result (null for no rows). One chain of
    struct fields, as Polars does not share repeated parts of an ``agg`` expression
    (benchmarks/bench_weighted_expr.py)."""
    # Adding 0.0 makes -0.0 and 0.0 one score for the sort and the run ends.
    s, is_pos, w = rows.score + 0.0, rows.is_pos, rows.weight
    fields = [s.alias("s"), is_pos.alias("is_pos"), *([] if w is None else [w.alias("w")])]
    if not POLARS_2:
        # Polars 1.x copies a struct into every `pl.field` that reads it (the chain below
        # grew exponentially): the sorted rows as one list, the columns over it. The key
        # is read from the struct: 1.35 sorted by a separately filtered key wrongly.
        group_rows = pl.struct(fields)
        by_score = group_rows.struct.field("s")
        ordered = group_rows.sort_by(by_score, descending=True, maintain_order=True)
        row = pl.element().struct.field
        columns = _running_sums(row, pl.lit(1.0) if w is None else row("w"))
        columns |= _class_sizes_and_counts(columns.__getitem__)
        return ordered.implode().list.eval(value(ExprTable(**columns))).list.last()
    ordered = pl.struct(fields).sort_by(rows.order + 0.0, descending=True, maintain_order=True)
    weight = pl.lit(1.0) if w is None else pl.field("w")
    cumulated = ordered.struct.with_fields(**_running_sums(pl.field, weight))
    counted = cumulated.struct.with_fields(**_class_sizes_and_counts(pl.field))
    table = ExprTable(*(pl.field(name) for name in ExprTable._fields))
    result = counted.struct.with_fields(value=value(table)).struct.field("value")
    # `get`, not `last`: the streaming engine's group_by refuses `pl.field` under a
    # reduction (Polars 2.1: "`field` is not allowed in this context").
    return result.get(-1, null_on_oob=True)


def _running_sums(field: Callable[[str], pl.Expr], weight: pl.Expr) -> dict[str, pl.Expr]:
    """``tp``, ``fp`` and ``end`` (see :class:`ExprTable`) from the sorted rows' fields."""
    return {
        # Running sums in table order add the weights as the frame methods' score
        # table does (a stable sort, then running sums), so the bits are the same.
        "tp": pl.when(field("is_pos")).then(weight).otherwise(0.0).cum_sum(),
        "fp": pl.when(field("is_pos")).then(0.0).otherwise(weight).cum_sum(),
        "end": field("s").ne_missing(field("s").shift(-1)).fill_null(True),
    }


def _class_sizes_and_counts(field: Callable[[str], pl.Expr]) -> dict[str, pl.Expr]:
    """``pos``, ``neg``, ``n_pos`` and ``n_neg`` from the fields of :func:`_running_sums`."""
    tp, fp, end = field("tp"), field("fp"), field("end")
    # The totals as columns, not broadcast scalars: Polars 2.1 divides by a scalar
    # through its rounded reciprocal, a last bit off the frame methods' division.
    last = tp.cum_count() == tp.len()
    return {
        # The table's pos = tp - tp of the score before (its last row), as there.
        "pos": tp - lag(pl.when(end).then(tp)).forward_fill().fill_null(0.0),
        "neg": fp - lag(pl.when(end).then(fp)).forward_fill().fill_null(0.0),
        "n_pos": pl.when(last).then(tp).backward_fill(),
        "n_neg": pl.when(last).then(fp).backward_fill(),
    }


def table_sum(table: ExprTable, contribution: pl.Expr) -> pl.Expr:
    """Running sum of ``contribution`` over the table's rows (0 on the others): the frame
    methods' additions in their order, where ``sum`` may pair them up."""
    return pl.when(table.end).then(contribution).otherwise(0.0).cum_sum()
