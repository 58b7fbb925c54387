"""Independent reference implementations, written for clarity, not speed.

Nothing here uses polars_roc or polars: each function recomputes a number from its
definition with numpy and plain loops, so the tests compare the library against a
second, obviously-correct route (brute force over pairs, one pass per threshold).
``is_pos`` arguments are boolean arrays; ``weight=None`` means every row weighs 1.
Undefined values (a zero denominator) are ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

Array = np.ndarray


def _weights(score: Array, weight: Array | None) -> Array:
    return np.ones(len(score)) if weight is None else np.asarray(weight, dtype=float)


def pairwise_auc(score: Array, is_pos: Array, weight: Array | None = None) -> float | None:
    """AUC by brute force over every (positive, negative) pair; a tie counts 1/2.

    Weighted: each pair counts ``w_pos * w_neg``. ``None`` without both classes.

    >>> pairwise_auc(np.array([0.9, 0.5, 0.5, 0.1]), np.array([True, True, False, False]))
    0.875
    """
    score = np.asarray(score, dtype=float)
    is_pos = np.asarray(is_pos, dtype=bool)
    w = _weights(score, weight)
    wins = 0.0
    for i in np.flatnonzero(is_pos):
        for j in np.flatnonzero(~is_pos):
            if score[i] > score[j]:
                wins += w[i] * w[j]
            elif score[i] == score[j]:
                wins += 0.5 * w[i] * w[j]
    total = w[is_pos].sum() * w[~is_pos].sum()
    return None if total == 0 else float(wins / total)


def counts_at(
    score: Array, is_pos: Array, threshold: float, weight: Array | None = None
) -> tuple[float, float, float, float]:
    """``(tp, fp, fn, tn)`` when a row is predicted positive iff ``score >= threshold``.

    >>> counts_at(np.array([0.9, 0.5, 0.5, 0.1]), np.array([True, False, True, False]), 0.5)
    (2.0, 1.0, 0.0, 1.0)
    """
    score = np.asarray(score, dtype=float)
    is_pos = np.asarray(is_pos, dtype=bool)
    w = _weights(score, weight)
    predicted = score >= threshold
    return (
        float(w[predicted & is_pos].sum()),
        float(w[predicted & ~is_pos].sum()),
        float(w[~predicted & is_pos].sum()),
        float(w[~predicted & ~is_pos].sum()),
    )


def score_table(score: Array, is_pos: Array, weight: Array | None = None) -> dict[str, list[float]]:
    """Per distinct score (descending): ``pos``, ``neg`` at it, ``tp``, ``fp`` at or above.

    >>> score_table(np.array([0.2, 0.9, 0.2]), np.array([True, False, False]))["tp"]
    [0.0, 1.0]
    """
    score = np.asarray(score, dtype=float)
    is_pos = np.asarray(is_pos, dtype=bool)
    w = _weights(score, weight)
    table: dict[str, list[float]] = {
        k: [] for k in ("threshold", "pos", "neg", "tp", "fp", "n_pos", "n_neg")
    }
    for t in sorted(set(score.tolist()), reverse=True):
        at, above = score == t, score >= t
        table["threshold"].append(t)
        table["pos"].append(float(w[at & is_pos].sum()))
        table["neg"].append(float(w[at & ~is_pos].sum()))
        table["tp"].append(float(w[above & is_pos].sum()))
        table["fp"].append(float(w[above & ~is_pos].sum()))
        table["n_pos"].append(float(w[is_pos].sum()))
        table["n_neg"].append(float(w[~is_pos].sum()))
    return table


def naive_curve(
    score: Array, is_pos: Array, weight: Array | None = None
) -> dict[str, list[float | None]]:
    """ROC points by looping over thresholds ``+inf`` then every distinct score, descending.

    >>> naive_curve(np.array([0.9, 0.1]), np.array([True, False]))["fpr"]
    [0.0, 0.0, 1.0]
    """
    score = np.asarray(score, dtype=float)
    is_pos = np.asarray(is_pos, dtype=bool)
    w = _weights(score, weight)
    n_pos, n_neg = float(w[is_pos].sum()), float(w[~is_pos].sum())
    # The start point predicts nothing positive (even if some score is +inf).
    points = [(math.inf, (0.0, 0.0, n_pos, n_neg))]
    for t in sorted(set(score.tolist()), reverse=True):
        points.append((t, counts_at(score, is_pos, t, weight)))
    curve: dict[str, list[float | None]] = {
        k: [] for k in ("threshold", "tp", "fp", "fn", "tn", "tpr", "fpr")
    }
    for t, (tp, fp, fn, tn) in points:
        curve["threshold"].append(t)
        for name, value in zip(("tp", "fp", "fn", "tn"), (tp, fp, fn, tn)):
            curve[name].append(value)
        curve["tpr"].append(_div(tp, n_pos))
        curve["fpr"].append(_div(fp, n_neg))
    return curve


def trapezoid_area(fpr: Sequence[float], tpr: Sequence[float]) -> float:
    """Area under a polyline through the points ``(fpr[i], tpr[i])``, in order.

    >>> trapezoid_area([0.0, 0.5, 1.0], [0.0, 1.0, 1.0])
    0.75
    """
    area = 0.0
    for i in range(1, len(fpr)):
        area += (fpr[i] - fpr[i - 1]) * (tpr[i] + tpr[i - 1]) / 2
    return area


def _div(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator


def measures(tp: float, fp: float, fn: float, tn: float) -> dict[str, Any]:
    """Every confusion measure of DESIGN.md from its definition; ``None`` when undefined.

    F1 is ``2 tp / (2 tp + fp + fn)`` (equal to the harmonic mean of precision and
    recall wherever that is defined, and scikit-learn's value elsewhere).

    >>> measures(20, 10, 5, 65)["dor"]
    26.0
    """
    pos, neg, pp, pn = tp + fn, fp + tn, tp + fp, fn + tn
    n = pos + neg
    tpr, fpr, tnr, fnr = _div(tp, pos), _div(fp, neg), _div(tn, neg), _div(fn, pos)
    observed = _div(tp + tn, n)
    # Cohen's (observed - chance) / (1 - chance), with both parts multiplied by n^2 / 2:
    # exact zero when tp * tn == fp * fn, where the textbook form leaves rounding noise.
    kappa = _div(2 * (tp * tn - fp * fn), pp * neg + pos * pn)
    lr_pos, lr_neg = _div(tpr, fpr), _div(fnr, tnr)
    both = tpr is not None and tnr is not None
    youden = tpr - fpr if tpr is not None and fpr is not None else None
    return {
        "pp": pp,
        "pn": pn,
        "pos": pos,
        "neg": neg,
        "n": n,
        "tpr": tpr,
        "fpr": fpr,
        "tnr": tnr,
        "fnr": fnr,
        "ppv": _div(tp, pp),
        "npv": _div(tn, pn),
        "fdr": _div(fp, pp),
        "for": _div(fn, pn),
        "accuracy": observed,
        "error_rate": _div(fp + fn, n),
        "balanced_accuracy": (tpr + tnr) / 2 if both else None,
        "f1": _div(2 * tp, 2 * tp + fp + fn),
        "kappa": kappa,
        "kappa_level": kappa_level(kappa),
        "mcc": _div(tp * tn - fp * fn, math.sqrt(pp * pos * neg * pn)),
        "youden_j": youden,
        "prevalence": _div(pos, n),
        "lr_pos": lr_pos,
        "lr_neg": lr_neg,
        "dor": _div(tp * tn, fp * fn),  # as documented
        "p_tp": _div(tp, n),
        "p_fp": _div(fp, n),
        "p_fn": _div(fn, n),
        "p_tn": _div(tn, n),
    }


def kappa_level(kappa: float | None) -> str | None:
    """Landis & Koch agreement scale (seed 004): below 0 poor, then steps of 0.2.

    >>> [kappa_level(k) for k in (-0.1, 0.0, 0.2, 0.21, 1.0)]
    ['poor', 'slight', 'slight', 'fair', 'almost perfect']
    """
    if kappa is None:
        return None
    if kappa < 0:
        return "poor"
    for bound, name in (
        (0.2, "slight"),
        (0.4, "fair"),
        (0.6, "moderate"),
        (0.8, "substantial"),
        (1.0, "almost perfect"),
    ):
        if kappa <= bound:
            return name
    return None


def groups(keys: Sequence[Sequence[Any]]) -> Iterator[tuple[tuple[Any, ...], Array]]:
    """Distinct key tuples in sorted order (None first) with the row mask of each.

    ``keys`` is one sequence per group column, all of the same length.

    >>> [(k, m.tolist()) for k, m in groups([["b", "a", "b"]])]
    [(('a',), [False, True, False]), (('b',), [True, False, True])]
    """
    rows = list(zip(*keys))
    order = sorted(set(rows), key=lambda key: [(v is not None, v) for v in key])
    for key in order:
        yield key, np.array([row == key for row in rows])


def jackknife_acceleration(samples: Sequence[np.ndarray], statistic: Callable[..., float]) -> float:
    """scipy's multi-sample jackknife acceleration, one left-out row at a time."""
    numerator = denominator = 0.0
    for j, sample in enumerate(samples):
        values = []
        for i in range(len(sample)):
            left = list(samples)
            left[j] = np.delete(sample, i)
            values.append(statistic(*left))
        values_ = np.asarray(values)
        n = len(values_)
        influence = (n - 1) * (values_.mean() - values_)
        numerator += (influence**3).sum() / n**3
        denominator += (influence**2).sum() / n**2
    return numerator / (6 * denominator**1.5)
