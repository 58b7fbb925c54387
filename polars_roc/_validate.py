"""Input checks: from the schema first, then one cheap pass over the values.

Every public entry point funnels its frame through :func:`prepare`, which returns a
lazy frame in the library's internal shape ``[*by, __score, __pos, __neg]`` (score as
Float64, positive and negative weights as Int64 counts or Float64 weights), so the views
never look at the caller's column names or dtypes again.
"""

from __future__ import annotations

import difflib
import os
import sys
import warnings
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl
from polars.exceptions import ColumnNotFoundError

__all__ = ["Prepared", "normalize_by", "prepare", "warn_single_class"]

SCORE = "__roc_score"
POS = "__roc_pos"
NEG = "__roc_neg"

NullPolicy = Literal["raise", "drop"]
Frame = pl.DataFrame | pl.LazyFrame

# Columns of the score table, which every view builds on; a segment column of the same
# name would be overwritten. Views add the names of their own result columns.
RESERVED = frozenset({"threshold", "pos", "neg", "tp", "fp", "n_pos", "n_neg"})


@dataclass(frozen=True)
class Prepared:
    """A validated frame in the internal shape, with what the views need to know."""

    frame: pl.LazyFrame
    by: list[str]
    weighted: bool
    eager: bool
    n_rows: int
    n_distinct: int
    # Per-group class totals ``[*by, n_pos, n_neg]``, known before the plan runs only
    # for lazy input (eager results carry them, so no extra pass is spent there).
    class_totals: pl.DataFrame | None = None
    # Lowest and highest score (None when there are no scores): the score table packs
    # scores into integer sort keys whose width depends on this range.
    score_range: tuple[float, float] | None = None
    # The score column's own dtype (scores are Float64 inside).
    score_dtype: pl.DataType = field(default_factory=pl.Float64)

    def threshold_keys(self, thresholds: Sequence[float]) -> list[float]:
        """``thresholds`` as the scores' own dtype holds them, to compare with the scores.

        A Float32 score of 0.7 is 0.699999988 as a Float64; the threshold 0.7 is rounded
        the same way, so that ``score >= 0.7`` means what it means in the score's dtype
        (as ``pl.col(score) >= 0.7`` in Polars and numpy).
        """
        if self.score_dtype != pl.Float32:
            return [float(t) for t in thresholds]
        with np.errstate(over="ignore"):  # beyond Float32's range: +-inf, same order
            return [float(x) for x in np.asarray(thresholds, dtype=np.float64).astype(np.float32)]

    @property
    def count_dtype(self) -> pl.DataType:
        return pl.Float64() if self.weighted else pl.Int64()

    def finish(
        self, result: pl.LazyFrame, totals: Callable[[pl.DataFrame], pl.DataFrame]
    ) -> Frame:
        """Return ``result`` in the caller's kind (eager in, eager out).

        Single-class groups are reported once: from the result's own totals
        (``totals(result)`` gives ``[*by, n_pos, n_neg]``) when eager, from the
        validation pass when lazy.
        """
        if not self.eager:
            if self.class_totals is not None:
                warn_single_class(self.class_totals, self.by)
            return result
        collected = result.collect()
        if collected.height:
            warn_single_class(totals(collected), self.by)
        return collected


def normalize_by(by: str | Sequence[str] | None) -> list[str]:
    """Turn the ``by=`` argument into a list of column names."""
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    if isinstance(by, Sequence) and all(isinstance(col, str) for col in by):
        if len(set(by)) != len(by):
            msg = f"`by` names a column twice: got {list(by)!r}"
            raise ValueError(msg)
        return list(by)
    msg = f"`by` must be None, a column name or a list of column names, got {by!r}"
    raise TypeError(msg)


def _missing_column(role: str, name: str, schema: pl.Schema) -> ColumnNotFoundError:
    hint = difflib.get_close_matches(name, schema.names(), n=3)
    msg = f"{role} column {name!r} not found in the frame"
    if hint:
        msg += f"; did you mean one of {hint!r}?"
    else:
        msg += f"; available columns: {schema.names()!r}"
    return ColumnNotFoundError(msg)


def _is_numeric(dtype: pl.DataType) -> bool:
    return dtype.is_numeric() and dtype != pl.Boolean


def _distinct_values(lf: pl.LazyFrame, column: str, limit: int = 10) -> str:
    """Up to ``limit`` distinct non-null values of ``column``, for error messages."""
    values = (
        lf.select(pl.col(column).drop_nulls().unique().sort().head(limit + 1))
        .collect()
        .to_series()
        .to_list()
    )
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (", ..." if len(values) > limit else "")


def _label_kind(lf: pl.LazyFrame, name: str, dtype: pl.DataType, pos_label: Any) -> str:
    """How the label decides 'positive': 'bool', 'binary' (0/1 numbers) or 'equal'."""
    if pos_label is not None:
        return "equal"
    if dtype == pl.Boolean:
        return "bool"
    if dtype.is_integer() or dtype.is_float():
        return "binary"
    msg = (
        f"label column {name!r} has dtype {dtype} with values "
        f"[{_distinct_values(lf, name)}]; only Boolean or 0/1 numeric labels have an "
        "implicit positive class. Pass `pos_label=` to say which value is positive"
    )
    raise ValueError(msg)


# Above this many rows of an eager frame, distinct scores are counted in a strided
# sample: approx_n_unique over 5M rows cost 0.1-0.25x of sorting them (see
# benchmarks/README.md), the sample ~0.01x.
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


def prepare(
    frame: Frame,
    *,
    score: str,
    label: str,
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    pos_label: Any = None,
    nulls: NullPolicy = "raise",
    reserved: Collection[str] = (),
) -> Prepared:
    """Check the input and build the internal frame ``[*by, score, pos, neg]``.

    ``reserved`` names the result columns of the calling view, which ``by`` columns
    must not use.

    Schema checks read no data. Value checks (nulls, NaN, label set, weights) run as one
    aggregation over the rows, before any sorting or counting.
    """
    if isinstance(frame, pl.DataFrame):
        eager, lf = True, frame.lazy()
    elif isinstance(frame, pl.LazyFrame):
        eager, lf = False, frame
    else:
        msg = f"expected a polars DataFrame or LazyFrame, got {type(frame).__name__}"
        raise TypeError(msg)
    if nulls not in ("raise", "drop"):
        msg = f"`nulls` must be 'raise' or 'drop', got {nulls!r}"
        raise ValueError(msg)
    by_cols = normalize_by(by)
    for role, value in (("score", score), ("label", label), ("weight", weight)):
        if value is not None and not isinstance(value, str):
            msg = f"`{role}` must be a column name (str), got {value!r}"
            raise TypeError(msg)

    schema = lf.collect_schema()
    roles = [("score", score), ("label", label)]
    roles += [("weight", weight)] if weight is not None else []
    roles += [("by", col) for col in by_cols]
    for role, name in roles:
        if name not in schema:
            raise _missing_column(role, name, schema)
    clash = sorted(RESERVED.union(reserved).intersection(by_cols))
    if clash:
        msg = (
            f"`by` column(s) {clash!r} collide with result columns; rename them "
            "first (e.g. with .rename())"
        )
        raise ValueError(msg)

    score_dtype = schema[score]
    if not _is_numeric(score_dtype):
        msg = f"score column {score!r} must be numeric, got dtype {score_dtype}"
        raise ValueError(msg)
    if weight is not None and not _is_numeric(schema[weight]):
        msg = f"weight column {weight!r} must be numeric, got dtype {schema[weight]}"
        raise ValueError(msg)
    kind = _label_kind(lf, label, schema[label], pos_label)

    s, y = pl.col(score), pl.col(label)
    if kind == "bool":
        is_pos = y
    elif kind == "binary":
        is_pos = y == 1
    else:
        is_pos = y == pos_label
    if weight is None:
        pos, neg = is_pos.cast(pl.Int64), (~is_pos).cast(pl.Int64)
    else:
        w = pl.col(weight).cast(pl.Float64)
        pos = pl.when(is_pos).then(w).otherwise(0.0)
        neg = pl.when(is_pos).then(0.0).otherwise(w)
    checks: dict[str, pl.Expr] = {
        "n_rows": pl.len(),
        "score_nulls": s.null_count(),
        "label_nulls": y.null_count(),
        "n_distinct": _distinct_scores(s, frame.height if eager else None),
        "score_min": s.min(),
        "score_max": s.max(),
    }
    if score_dtype.is_float():
        checks["score_nan"] = s.is_nan().sum()
    if kind == "binary":
        checks["label_bad"] = ((y != 0) & (y != 1)).sum()
    if kind == "equal":
        checks["pos_present"] = (y == pos_label).any()
    if not by_cols and not eager:
        counted = s.is_not_null()
        checks["n_pos"] = pos.filter(counted).sum()
        checks["n_neg"] = neg.filter(counted).sum()
    if weight is not None:
        w = pl.col(weight)
        checks["weight_nulls"] = pl.col(weight).null_count()
        bad = w < 0
        if schema[weight].is_float():
            bad = bad | ~w.is_finite()
        checks["weight_bad"] = bad.sum()
    try:
        found = lf.select(**checks).collect().row(0, named=True)
    except pl.exceptions.PolarsError as err:
        if kind == "equal":
            msg = (
                f"cannot compare label column {label!r} ({schema[label]}) with "
                f"pos_label={pos_label!r}; pass a value of the label's type "
                f"({type(err).__name__}: {str(err).splitlines()[0]})"
            )
            raise ValueError(msg) from err
        raise

    if nulls == "raise":
        for role, name in (("score", score), ("label", label), ("weight", weight)):
            count = found.get(f"{role}_nulls", 0)
            if count:
                msg = (
                    f"{role} column {name!r} has {count} null value(s); fill them, "
                    "or pass nulls='drop' to leave those rows out"
                )
                raise ValueError(msg)
    if found.get("score_nan"):
        msg = (
            f"score column {score!r} has {found['score_nan']} NaN value(s), which cannot "
            "be ranked; replace them (e.g. with .fill_nan(None) and nulls='drop')"
        )
        raise ValueError(msg)
    if found.get("label_bad"):
        values = _distinct_values(lf, label)
        msg = (
            f"label column {label!r} ({schema[label]}) holds values other than 0 and 1: "
            f"[{values}]; pass `pos_label=` to say which value is positive"
        )
        raise ValueError(msg)
    if kind == "equal" and found["n_rows"] and not found["pos_present"]:
        values = _distinct_values(lf, label)
        msg = (
            f"pos_label={pos_label!r} does not occur in label column {label!r}; "
            f"its values are [{values}]"
        )
        raise ValueError(msg)
    if found.get("weight_bad"):
        msg = (
            f"weight column {weight!r} has {found['weight_bad']} negative, NaN or "
            "infinite value(s); weights must be finite and >= 0"
        )
        raise ValueError(msg)

    if nulls == "drop":
        required = [score, label] + ([weight] if weight is not None else [])
        lf = lf.drop_nulls(required)
    # -0.0 and 0.0 are one score: normalise so hashing and sorting agree.
    score_f64 = s.cast(pl.Float64)
    score_f64 = pl.when(score_f64 == 0.0).then(0.0).otherwise(score_f64)
    internal = lf.select(
        *by_cols, score_f64.alias(SCORE), pos.alias(POS), neg.alias(NEG)
    )
    class_totals = None
    if not eager:
        if by_cols:
            class_totals = (
                internal.group_by(by_cols)
                .agg(n_pos=pl.col(POS).sum(), n_neg=pl.col(NEG).sum())
                .collect()
            )
        elif found["n_rows"]:
            class_totals = pl.DataFrame({"n_pos": [found["n_pos"]], "n_neg": [found["n_neg"]]})
    return Prepared(
        frame=internal,
        by=by_cols,
        weighted=weight is not None,
        eager=eager,
        n_rows=int(found["n_rows"]),
        n_distinct=_scale_distinct(int(found["n_distinct"] or 0), int(found["n_rows"]), eager),
        class_totals=class_totals,
        score_range=(
            None
            if found["score_min"] is None
            else (float(found["score_min"]), float(found["score_max"]))
        ),
        score_dtype=score_dtype,
    )


def _shown(value: Any) -> str:
    """A segment value as a reader writes it: strings quoted, dates as ISO text."""
    plain = value is None or isinstance(value, (str, bool, int, float))
    return repr(value) if plain else str(value)


def warn_single_class(totals: pl.DataFrame, by: list[str]) -> None:
    """Warn once, naming the groups that hold only one class (their AUC is null).

    ``totals`` has one row per group with columns ``[*by, n_pos, n_neg]``.
    """
    one_class = (pl.col("n_pos") == 0) != (pl.col("n_neg") == 0)  # empty groups aside
    single = totals.filter(one_class)
    if by:
        single = single.sort(by, nulls_last=False)
    if single.height == 0:
        return
    if by:
        names = [
            ", ".join(f"{k}={_shown(v)}" for k, v in row.items())
            for row in single.select(by).head(10).iter_rows(named=True)
        ]
        more = f" and {single.height - 10} more" if single.height > 10 else ""
        where = f"{single.height} group(s) [{'; '.join(names)}{more}] hold"
    else:
        where = "the data holds"
    msg = (
        f"{where} only one class; their AUC and the rates that need both classes "
        "are null"
    )
    warnings.warn(msg, UserWarning, stacklevel=_caller_stacklevel())


def _caller_stacklevel() -> int:
    """Stack level of the first frame outside this package, for warnings."""
    package = os.path.dirname(__file__)
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.dirname(frame.f_code.co_filename) == package:
        frame, level = frame.f_back, level + 1
    return level
