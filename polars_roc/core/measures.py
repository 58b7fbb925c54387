"""Confusion-matrix measures, added as columns to a frame of counts (:func:`with_measures`).

Every measure is a ratio of counts; a zero denominator gives null (never NaN, never an
exception). Names follow docs/measures.md, which cites the seeds for each formula.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection
from numbers import Real
from typing import Any, TypeVar

import polars as pl

from polars_roc.core.arguments import check_rates

__all__ = ["KAPPA_LEVELS", "MEASURE_COLUMNS", "check_beta", "ratio", "with_measures"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

# Cohen's kappa agreement scale (Landis & Koch, as tabled in seed 004); each level
# covers (previous bound, bound], and kappa < 0 is "poor".
KAPPA_LEVELS: tuple[tuple[float, str], ...] = (
    (0.20, "slight"),
    (0.40, "fair"),
    (0.60, "moderate"),
    (0.80, "substantial"),
    (1.00, "almost perfect"),
)


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator`` as Float64, null where the denominator is zero."""
    return pl.when(denominator != 0).then(numerator.cast(pl.Float64) / denominator.cast(pl.Float64))


def unit_scale(total: pl.Expr) -> pl.Expr:
    """A power of two near ``1 / total`` (1 where ``total`` is 0): multiplying counts by
    it is exact, so products of the scaled counts round as the counts' own would, but
    products of large or tiny weights can no longer over- or underflow."""
    # Typed literals: Polars 1.x panics aggregating an untyped float over no groups
    # ("dtype is unknown").
    one, two = pl.lit(1.0, pl.Float64), pl.lit(2.0, pl.Float64)
    return pl.when(total > 0).then(two.pow(-total.log(2).floor())).otherwise(one)


def check_beta(beta: float) -> float:
    """``beta`` as a float, refused unless it is a non-negative number (``inf`` allowed)."""
    if isinstance(beta, bool) or not isinstance(beta, Real):
        msg = f"`beta` must be a non-negative number, got {beta!r}"
        raise TypeError(msg)
    if math.isnan(beta) or beta < 0:
        msg = f"`beta` must be a non-negative number (0 gives precision, inf recall), got {beta!r}"
        raise ValueError(msg)
    return float(beta)


def _f_beta(beta: float, tp: pl.Expr, fp: pl.Expr, fn: pl.Expr, tpr: pl.Expr) -> pl.Expr:
    # beta = inf: (1 + b2) / b2 overflows to inf/inf = NaN; the limit is recall, as
    # scikit-learn's fbeta_score(beta=inf).
    if math.isinf(beta):
        return tpr
    b2 = beta**2
    return ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)


def _kappa_level(kappa: pl.Expr) -> pl.Expr:
    level: Any = pl.when(kappa < 0).then(pl.lit("poor"))
    for bound, name in KAPPA_LEVELS:
        level = level.when(kappa <= bound).then(pl.lit(name))
    return level.otherwise(pl.lit(None, dtype=pl.String))


# The measure columns, in the order they are added.
MEASURE_COLUMNS = (
    *("pp", "pn", "pos", "neg", "n"),
    *("tpr", "fpr", "tnr", "fnr", "ppv", "npv", "fdr", "for"),
    *("accuracy", "error_rate", "balanced_accuracy", "f1", "kappa", "kappa_level", "mcc"),
    *("youden_j", "prevalence", "lr_pos", "lr_neg", "dor", "p_tp", "p_fp", "p_fn", "p_tn"),
)


def with_measures(
    frame: FrameT,
    beta: float | None = None,
    prevalence: float | None = None,
    *,
    names: Collection[str] | None = None,
) -> FrameT:
    """``frame`` with a column per measure, from its columns ``tp``, ``fp``, ``fn``, ``tn``.

    The columns are :data:`MEASURE_COLUMNS` (``names``: only those), plus ``f_beta``
    after ``f1`` when ``beta`` is given; a column of ``frame`` of the same name is
    replaced in place, as ``with_columns`` does. With ``prevalence`` (the population's
    share of positives, when the sample's is not), the measures that depend on it are
    given at that prevalence by Bayes' rule from the sample's rates (see
    :func:`_at_prevalence`).
    """
    if prevalence is not None:
        hint = " (the population's share of positives, e.g. 0.02)"
        (prevalence,) = check_rates("prevalence", prevalence, closed="neither", hint=hint)
    stages, hidden, final = _stages(None if beta is None else check_beta(beta), prevalence)
    lazy = frame.lazy()
    for stage in stages:
        lazy = lazy.with_columns(stage)
    wanted = (e for name, e in final.items() if names is None or name in names)
    result = lazy.with_columns(wanted).drop(hidden)
    # A DataFrame in is worked on as DataFrame methods do, in memory.
    return result.collect(engine="in-memory") if isinstance(frame, pl.DataFrame) else result


@functools.lru_cache(maxsize=16)
def _stages(
    beta: float | None, prevalence: float | None
) -> tuple[list[list[pl.Expr]], list[str], dict[str, pl.Expr]]:
    """The hidden columns :func:`with_measures` adds, stage by stage, their names, and
    the measures read off them by name, in order (built once per ``beta`` and
    ``prevalence``).

    In stages, each reading the previous one's columns: written as one expression each,
    kappa and mcc repeat the margins and their scale dozens of times, and Polars spent
    milliseconds of every call planning them (benchmarks/README.md, bench_small).
    """
    col = pl.col
    tp_, fp_, fn_, tn_ = (col(c) for c in ("tp", "fp", "fn", "tn"))
    # Margins keep the count dtype (Int64, or Float64 when weighted); the arithmetic
    # below is Float64 so that products of large counts cannot overflow.
    margins = {"pp": tp_ + fp_, "pn": fn_ + tn_, "pos": tp_ + fn_, "neg": fp_ + tn_}
    margins["n"] = margins["pos"] + margins["neg"]
    counts = (tp_, fp_, fn_, tn_, *(col(_hidden(m)) for m in margins))
    tp, fp, fn, tn, pp, pn, pos, neg, n = (c.cast(pl.Float64) for c in counts)
    rates = {
        "tpr": ratio(tp, pos),
        "fpr": ratio(fp, neg),
        "tnr": ratio(tn, neg),
        "fnr": ratio(fn, pos),
        "ppv": ratio(tp, pp),
        "npv": ratio(tn, pn),
        "fdr": ratio(fp, pp),
        "for": ratio(fn, pn),
        "accuracy": ratio(tp + tn, n),
        "error_rate": ratio(fp + fn, n),
        "f1": ratio(2 * tp, 2 * tp + fp + fn),
        "prevalence": ratio(pos, n),
        "p_tp": ratio(tp, n),
        "p_fp": ratio(fp, n),
        "p_fn": ratio(fn, n),
        "p_tn": ratio(tn, n),
        "scale": unit_scale(n),  # of the products below
    }
    tpr, fpr, tnr, fnr = (col(_hidden(r)) for r in ("tpr", "fpr", "tnr", "fnr"))
    s_tp, s_fp, s_fn, s_tn, s_pp, s_pn, s_pos, s_neg = (
        c * col(_hidden("scale")) for c in (tp, fp, fn, tn, pp, pn, pos, neg)
    )
    derived = {
        "balanced_accuracy": (tpr + tnr) / 2,
        # Cohen's kappa (po - pe) / (1 - pe) with pe = (pp * pos + pn * neg) / n^2, in
        # the equivalent form over counts: exact zero when the prediction ignores the truth.
        "kappa": ratio(2 * (s_tp * s_tn - s_fn * s_fp), s_pp * s_neg + s_pos * s_pn),
        "mcc": ratio(s_tp * s_tn - s_fp * s_fn, (s_pp * s_pos * s_neg * s_pn).sqrt()),
        "youden_j": tpr - fpr,
        "lr_pos": ratio(tpr, fpr),
        "lr_neg": ratio(fnr, tnr),
        # tp*tn / (fp*fn) as documented: 0 when tp or tn is 0, null only when fp*fn = 0
        # (lr_pos / lr_neg was null at tn = 0 but 0 at tp = 0 for the same zero product).
        "dor": ratio(s_tp * s_tn, s_fp * s_fn),
    }
    if prevalence is not None:
        derived |= _at_prevalence(tpr, fpr, tnr, fnr, prevalence)
    order = list(MEASURE_COLUMNS)
    if beta is not None:
        derived["f_beta"] = _f_beta(beta, tp, fp, fn, tpr)
        order.insert(order.index("f1") + 1, "f_beta")
    stages = [margins, rates, derived]
    final = {name: col(_hidden(name)).alias(name) for name in order}
    final["kappa_level"] = _kappa_level(col(_hidden("kappa"))).alias("kappa_level")
    hidden = list(dict.fromkeys(_hidden(name) for stage in stages for name in stage))
    return [[e.alias(_hidden(k)) for k, e in s.items()] for s in stages], hidden, final


def _hidden(name: str) -> str:
    return f"__roc_measure_{name}"


def _at_prevalence(
    tpr: pl.Expr, fpr: pl.Expr, tnr: pl.Expr, fnr: pl.Expr, prevalence: float
) -> dict[str, pl.Expr]:
    """The measures that depend on the share of positives (the predictive values and
    accuracy, seed 003) at ``prevalence``, from the rates by Bayes' rule; counts, kappa,
    mcc, f1 and the joint probabilities stay the sample's."""
    p, q = pl.lit(prevalence), pl.lit(1.0 - prevalence)
    called_pos = tpr * p + fpr * q
    called_neg = tnr * q + fnr * p
    return {
        "ppv": ratio(tpr * p, called_pos),
        "npv": ratio(tnr * q, called_neg),
        "fdr": ratio(fpr * q, called_pos),
        "for": ratio(fnr * p, called_neg),
        "accuracy": tpr * p + tnr * q,
        "error_rate": fnr * p + fpr * q,
        "prevalence": p.cast(pl.Float64),
    }
