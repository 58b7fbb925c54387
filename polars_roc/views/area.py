"""The trapezoidal area under any curve given as two columns, as an expression."""

from __future__ import annotations

import polars as pl

from polars_roc.core.compat import POLARS_2, lag
from polars_roc.core.expr_table import (
    IntoExpr,
    NullPolicy,
    as_expr,
    float_input,
    numeric_check,
    stop_if,
)

__all__ = ["trapezoid"]


def trapezoid(x: IntoExpr, y: IntoExpr, *, nulls: NullPolicy = "raise") -> pl.Expr:
    """Area under the points ``(x, y)`` by the trapezoidal rule, one value per group.

    scikit-learn's ``sklearn.metrics.auc(x, y)`` as an expression: it works in
    ``select``, ``group_by().agg()`` and ``over()``, so the area of any curve held as two
    columns (a curve frame of this library, or another tool's) comes per segment.

    scikit-learn requires ``x`` monotone and raises otherwise. Here:

    - ``x`` non-decreasing in the group's row order: the rows are taken in that order,
      as scikit-learn does;
    - ``x`` non-increasing: also in that order, the area made positive (scikit-learn's
      ``direction = -1``);
    - otherwise the rows are sorted by ``x`` within the group, a stable sort, so rows of
      equal ``x`` keep their order (that order decides which ``y`` meets the segments on
      either side of a vertical step). A curve frame of this library lists thresholds
      descending, so its ``fpr`` is already non-decreasing.

    On every input scikit-learn accepts the two agree (to rounding of the sums).

    Parameters
    ----------
    x, y
        Column names or expressions, numeric, one value per row.
    nulls
        ``"raise"``: a null in ``x`` or ``y`` stops the query when it runs, with a
        :class:`~polars_roc.exceptions.RocQueryError` (also a Polars
        ``InvalidOperationError``) whose message starts with the input and the count.
        ``"drop"``: rows where either is null are left out.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``trapezoid``, one value per group: null for a group
        of fewer than two points (scikit-learn raises) or with a NaN or infinite value.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "model": ["a", "a", "a", "b", "b", "b"],
    ...     "fpr": [0.0, 0.5, 1.0, 1.0, 0.0, 0.25],
    ...     "tpr": [0.0, 1.0, 1.0, 1.0, 0.0, 0.5],
    ... })
    >>> df.group_by("model", maintain_order=True).agg(pr.trapezoid("fpr", "tpr"))
    shape: (2, 2)
    ┌───────┬───────────┐
    │ model ┆ trapezoid │
    │ ---   ┆ ---       │
    │ str   ┆ f64       │
    ╞═══════╪═══════════╡
    │ a     ┆ 0.75      │
    │ b     ┆ 0.625     │
    └───────┴───────────┘
    """
    if nulls not in ("raise", "drop"):
        msg = f"pr.trapezoid: `nulls` must be 'raise' or 'drop', got {nulls!r}"
        raise ValueError(msg)
    given = {"x": as_expr(x, "x"), "y": as_expr(y, "y")}
    xs, ys = (float_input("trapezoid", role, values) for role, values in given.items())
    message = (
        "pr.trapezoid: x and y give different numbers of rows in a group ({} and {}); "
        "they must give one value per row"
    )
    # Polars 1.x knows the dtypes only when the query runs (see expr_table.float_input).
    checks = [] if POLARS_2 else [numeric_check("trapezoid", *i) for i in given.items()]
    checks.append((xs.len() != ys.len(), pl.format(message, xs.len(), ys.len())))
    if nulls == "raise":
        checks += [
            (
                values.null_count() > 0,
                pl.format(
                    f"pr.trapezoid: {role} has {{}} null value(s) in a group; fill them, "
                    f"or pass nulls='drop' to leave those rows out",
                    values.null_count(),
                ),
            )
            for role, values in (("x", xs), ("y", ys))
        ]
    # The checks run before x and y combine (see expr_table.expr_rows).
    passed = stop_if(checks) == 0.0
    xs, ys = xs.filter(passed), ys.filter(passed)
    if nulls == "drop":
        keep = xs.is_not_null() & ys.is_not_null()
        xs, ys = xs.filter(keep), ys.filter(keep)
    decreasing = (xs - lag(xs) <= 0).all()
    # A stable sort: rows of equal x keep their order (identity on non-decreasing x).
    sorted_area = _area(xs.sort(), ys.sort_by(xs, maintain_order=True))
    area = pl.when(decreasing).then(-_area(xs, ys)).otherwise(sorted_area)
    usable = (xs.len() >= 2) & xs.is_finite().all() & ys.is_finite().all()
    return pl.when(usable).then(area).alias("trapezoid")


def _area(x: pl.Expr, y: pl.Expr) -> pl.Expr:
    """Trapezoids between consecutive rows, summed in row order (a running sum read at
    the end: a grouped float sum may add thread-dependent partial sums)."""
    return ((x - lag(x)) * (y + lag(y)) / 2.0).cum_sum().last()
