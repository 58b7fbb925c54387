"""The score table of the surrounding group, as expressions.

The expression forms of the summaries (``pr.auc`` with weights, ``pr.auc_se``,
``pr.average_precision``, ``pr.ks``) work inside ``select``, ``group_by().agg()`` and
``over()``, where no frame can be built; they read the same columns as the frame views
(per distinct score, descending: cumulative ``tp``/``fp`` and the counts at that score)
from one stable sort of the group's rows.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import polars as pl

__all__ = ["ExprTable", "IntoExpr", "as_expr", "expr_table"]

IntoExpr = str | pl.Expr


class ExprTable(NamedTuple):
    """Expressions over one group: validity, then one value per distinct score."""

    valid: pl.Expr  # no null/NaN score, labels usable, weights finite and >= 0
    tp: pl.Expr
    fp: pl.Expr
    pos: pl.Expr  # positives at that score
    neg: pl.Expr  # negatives at that score


def as_expr(value: IntoExpr, role: str) -> pl.Expr:
    """A column name or an expression, as an expression."""
    if isinstance(value, str):
        return pl.col(value)
    if isinstance(value, pl.Expr):
        return value
    msg = f"`{role}` must be a column name or a polars expression, got {value!r}"
    raise TypeError(msg)


def _implicit_positive(label: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """``label`` as "is positive" under the frame methods' rule (``_label_kind``).

    Boolean: True is positive; integer or float: 1 is positive, 0 negative, any other
    value makes the group invalid; any other dtype (String "0"/"1" included, which a
    cast would read as numbers) has no implicit positive class: every row is invalid,
    so the group gives null, where the frame methods and scikit-learn refuse.
    Chosen when the plan is built, from the label's dtype.
    """
    if dtype == pl.Boolean:
        return label
    if dtype.is_integer() or dtype.is_float():
        # Null where the value is neither 0 nor 1, so that the group is invalid.
        return pl.when(label == 1).then(True).when(label == 0).then(False)
    return pl.repeat(None, label.len(), dtype=pl.Boolean)


def labels(label: IntoExpr, pos_label: Any) -> tuple[pl.Expr, pl.Expr]:
    """``(is_positive, label_is_usable)``: the frames' label rule, or ``pos_label``."""
    y = as_expr(label, "label")
    if pos_label is None:
        is_pos = y.pipe_with_dtype(_implicit_positive)
        return is_pos.fill_null(False), is_pos.is_not_null()
    return y == pos_label, y.is_not_null()


def expr_table(
    score: IntoExpr, label: IntoExpr, weight: IntoExpr | None, pos_label: Any
) -> ExprTable:
    """The score-table columns of the surrounding group (see :class:`ExprTable`)."""
    s = as_expr(score, "score").cast(pl.Float64)
    is_pos, label_ok = labels(label, pos_label)
    if weight is None:
        pos, neg = is_pos.cast(pl.Float64), (~is_pos).cast(pl.Float64)
        weight_ok = pl.lit(True)
    else:
        w = as_expr(weight, "weight").cast(pl.Float64)
        pos = pl.when(is_pos).then(w).otherwise(0.0)
        neg = pl.when(is_pos).then(0.0).otherwise(w)
        weight_ok = w.is_finite() & (w >= 0)
    # A null anywhere in the checks makes the group invalid (all() alone skips nulls).
    valid = (s.is_not_null() & s.is_not_nan() & label_ok & weight_ok).fill_null(False).all()
    # Stable, so that float weights always add in the same order.
    rows = pl.struct(s=s, pos=pos, neg=neg).sort_by(s, descending=True, maintain_order=True)
    ordered = rows.struct.field("s")
    run_end = ordered.ne_missing(ordered.shift(-1)).fill_null(True)
    tp = rows.struct.field("pos").cum_sum().filter(run_end)
    fp = rows.struct.field("neg").cum_sum().filter(run_end)
    return ExprTable(
        valid=valid,
        tp=tp,
        fp=fp,
        pos=tp - tp.shift(1, fill_value=0.0),
        neg=fp - fp.shift(1, fill_value=0.0),
    )
