"""Checks of the arguments every view shares (choices, rates, thresholds, bins, `by`),
made from the arguments alone before any data is read, and the :class:`Roles` of a log."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, fields
from numbers import Integral, Real
from typing import Any, Literal

from polars_roc.exceptions import RocInputError, RocOptionError, RocOptionTypeError

__all__ = [
    "INTERNAL_PREFIX",
    "MAX_BINS",
    "MAX_TOTAL",
    "Closure",
    "Direction",
    "NullPolicy",
    "RateForm",
    "Roles",
    "check_bins",
    "check_choice",
    "check_columns",
    "check_conf_level",
    "check_rates",
    "check_thresholds",
    "check_unit",
    "normalize_by",
    "refuse_clashes",
    "too_many_rows",
]

NullPolicy = Literal["raise", "drop"]
Direction = Literal["higher", "lower"]

# Buckets of ``bins=``: up to 2**24 (16M) keeps the per-group table small.
MAX_BINS = 1 << 24


def check_bins(bins: int | None) -> int | None:
    """``bins`` as an int; refused unless None or a whole number in [2, MAX_BINS]."""
    if bins is None:
        return None
    if isinstance(bins, bool) or not isinstance(bins, Integral) or not 2 <= bins <= MAX_BINS:
        msg = f"`bins` must be None or an integer from 2 to {MAX_BINS:,}, got {bins!r}"
        raise RocOptionError(msg)
    return int(bins)


def check_conf_level(conf_level: Any) -> float:
    """Refuse a ``conf_level`` that is not a number strictly between 0 and 1.

    One check for every view with an interval or a band: a value of the wrong type
    raises :class:`RocOptionTypeError` (a ``TypeError`` and a ``ValueError``), one out
    of range :class:`RocOptionError`.
    """
    if isinstance(conf_level, bool) or not isinstance(conf_level, Real):
        msg = f"`conf_level` must be a number strictly between 0 and 1, got {conf_level!r}"
        raise RocOptionTypeError(msg)
    if not (0.0 < float(conf_level) < 1.0):
        msg = f"`conf_level` must be strictly between 0 and 1 (e.g. 0.95), got {conf_level!r}"
        raise RocOptionError(msg)
    return float(conf_level)


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> None:
    """Refuse ``value`` for option ``name`` unless it is one of ``choices``."""
    if value not in choices:
        shown = ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}"
        msg = f"`{name}` must be {shown}, got {value!r}"
        raise RocOptionError(msg)


def check_flags(**flags: object) -> None:
    """Refuse a flag that is not True or False: a truthy ``"no"`` would switch it on."""
    for name, value in flags.items():
        if not isinstance(value, bool):
            msg = f"`{name}` must be True or False, got {value!r}"
            raise RocOptionTypeError(msg)


RateForm = Literal["number", "numbers", "pair"]


Closure = Literal["both", "right", "left", "neither"]


# How a scalar's interval reads in a message, by which ends are closed; lists and pairs
# say it in brackets or as an inequality.
_RATE_INTERVAL = {
    "both": "between 0 and 1",
    "right": "in (0, 1]",
    "left": "in [0, 1)",
    "neither": "strictly between 0 and 1",
}


# The same, for each value of a list.
_RATES_INTERVAL = {
    "both": "in [0, 1]",
    "right": "in (0, 1]",
    "left": "in [0, 1)",
    "neither": "in (0, 1)",
}


def _is_real(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _in_unit_interval(value: float, closed: Closure) -> bool:
    # Written so that NaN is outside every interval.
    low_ok = 0.0 <= value if closed in ("both", "left") else 0.0 < value
    high_ok = value < 1.0 if closed in ("neither", "left") else value <= 1.0
    return low_ok and high_ok


def check_rates(
    name: str,
    value: object,
    *,
    form: RateForm = "number",
    closed: Closure = "both",
    hint: str = "",
    one_message: bool = False,
    quote: bool = True,
) -> list[float]:
    """Refuse a rate (or rates) outside the unit interval; the one rate check.

    Every option that takes a rate, a share or a band of rates (``fpr=``, ``tpr=``,
    ``precision=``, ``max_fpr=``, ``fpr_range=``, ``prevalence=`` ...) passes here.

    Parameters
    ----------
    name
        The option's name, as the message shows it (in backticks unless ``quote=False``).
    value
        What the caller gave.
    form
        ``"number"``: one rate; ``"numbers"``: a rate or a non-empty list of them;
        ``"pair"``: ``(low, high)`` with ``0 <= low < high <= 1``.
    closed
        Which ends of [0, 1] a rate may take: ``"both"``, ``"right"`` ((0, 1]),
        ``"left"`` ([0, 1)) or ``"neither"`` ((0, 1)). NaN is never a rate.
    hint
        Said after the interval when the value is out of range (what the option means).
    one_message
        One message, "must be a number ...", for a wrong type and a value out of range.
    quote
        Put the name in backticks.

    Returns
    -------
    list[float]
        The rates as floats (one for ``"number"``, two for ``"pair"``).

    Raises
    ------
    RocOptionTypeError
        A value that is not a real number (also a ``ValueError``).
    RocOptionError
        A value outside the interval, an empty list, a pair not in order.

    Examples
    --------
    >>> check_rates("fpr_range", (0.0, 0.2), form="pair")
    [0.0, 0.2]
    >>> check_rates("max_fpr", 0.0, closed="right")
    Traceback (most recent call last):
    ...
    polars_roc.exceptions.RocOptionError: `max_fpr` must be in (0, 1], got 0.0
    """
    subject = f"`{name}`" if quote else name
    if form == "pair":
        pair = value if isinstance(value, (tuple, list)) else ()
        ok = len(pair) == 2 and all(_is_real(v) for v in pair)
        rates = [float(v) for v in pair] if ok else []
        in_order = ok and 0.0 <= rates[0] < rates[1] <= 1.0
        if one_message and not in_order:
            msg = f"{subject} must be (low, high) with 0 <= low < high <= 1, got {value!r}"
            raise (RocOptionError if ok else RocOptionTypeError)(msg)
        if not ok:
            msg = f"{subject} must be a pair of numbers (low, high), got {value!r}"
            raise RocOptionTypeError(msg)
        if not in_order:
            msg = f"{subject} must satisfy 0 <= low < high <= 1, got {value!r}"
            raise RocOptionError(msg)
        return rates
    if form == "numbers":
        many = isinstance(value, Iterable) and not isinstance(value, (str, bytes))
        items = list(value) if many else [value]  # type: ignore[call-overload]
        if not items:
            msg = f"{subject} must be a rate or a non-empty list of rates, got []"
            raise RocOptionError(msg)
        subject, interval, what = f"{subject} values", _RATES_INTERVAL[closed], "numbers"
    else:
        items, interval, what = [value], _RATE_INTERVAL[closed], "a number"
    for item in items:
        typed = _is_real(item)
        if typed and _in_unit_interval(float(item), closed):  # type: ignore[arg-type]
            continue
        if one_message or not typed:
            said = f"{subject} must be {what} {interval}"
            msg = f"{said}{hint if one_message else ''}, got {item!r}"
            raise (RocOptionError if typed else RocOptionTypeError)(msg)
        msg = f"{subject} must be {interval}{hint}, got {item!r}"
        raise RocOptionError(msg)
    return [float(v) for v in items]  # type: ignore[arg-type]


def check_thresholds(name: str, value: object, *, optional: bool = False) -> list[float]:
    """Refuse thresholds that are not real numbers (NaN included); the one threshold check.

    ``value`` is a number or a non-empty list of numbers (in score units; any finite or
    infinite value is a threshold). With ``optional``, one number or None: the list
    returned is then empty for None.

    Examples
    --------
    >>> check_thresholds("threshold", [0.5, float("inf")])
    [0.5, inf]
    """
    if optional:
        if value is None:
            return []
        if not _is_real(value) or math.isnan(value):  # type: ignore[arg-type]
            msg = f"`{name}` must be a number or None, got {value!r}"
            raise RocOptionError(msg)
        return [float(value)]  # type: ignore[arg-type]
    if isinstance(value, Real):  # True too: refused below as a value, not as a list
        values: list[Any] = [value]
    elif isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        msg = f"`{name}` must be a number or a list of numbers, got {value!r}"
        raise RocOptionTypeError(msg)
    else:
        values = list(value)
    if not values:
        msg = f"`{name}` must be a number or a non-empty list of numbers, got []"
        raise RocOptionError(msg)
    for item in values:
        if not _is_real(item):
            msg = f"`{name}` values must be numbers, got {item!r}"
            raise RocOptionTypeError(msg)
        if math.isnan(item):
            msg = f"`{name}` values must not be NaN"
            raise RocOptionError(msg)
    return [float(v) for v in values]


def refuse_clashes(
    by: Sequence[str],
    reserved: Collection[str],
    *,
    role: str = "by",
    against: str = "result columns",
) -> None:
    """Refuse ``by`` columns named like a result column, before any work: the result
    would overwrite the segment (wrong groups) or fail deep in the plan. ``role`` names
    the option the columns came from (``period``, ``grade``, ``columns``...), ``against``
    what they collide with."""
    clash = sorted(set(reserved).intersection(by))
    if clash:
        msg = (
            f"`{role}` column(s) {clash!r} collide with {against}; rename them "
            "first (e.g. with .rename())"
        )
        raise RocOptionError(msg)


def normalize_by(by: str | Sequence[str] | None) -> list[str]:
    """Turn the ``by=`` argument into a list of column names."""
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    if isinstance(by, Sequence) and all(isinstance(col, str) for col in by):
        if len(set(by)) != len(by):
            msg = f"`by` names a column twice: got {list(by)!r}"
            raise RocOptionError(msg)
        return list(by)
    msg = f"`by` must be None, a column name or a list of column names, got {by!r}"
    raise TypeError(msg)


# The prefix of the library's own columns; a user's column may not carry it.
INTERNAL_PREFIX = "__roc_"


def check_columns(named: Iterable[tuple[str, Any]]) -> None:
    """Refuse a user's ``(role, column)`` whose column is not a name (str), is named like
    the library's own columns (they start with :data:`INTERNAL_PREFIX`: the user's
    would be overwritten or collide, wrong numbers on one backend and an error on
    another), or is in two roles (a segment that is the score or the label holds one
    score or one class; a count or weight that is the label or the score reads one
    column two ways). The one check of the columns' names, before any data is read."""
    seen: dict[str, str] = {}
    for role, name in named:
        if not isinstance(name, str):
            msg = f"`{role}` must be a column name (str), got {name!r}"
            raise RocOptionTypeError(msg)
        if name.startswith(INTERNAL_PREFIX):
            msg = (
                f"{role} column {name!r} starts with {INTERNAL_PREFIX!r}, which the library "
                "keeps for its own columns; rename it first (e.g. with .rename())"
            )
            raise RocInputError(msg)
        if name in seen:
            msg = (
                f"column {name!r} is given as both {seen[name]} and {role}; a column plays "
                f"one role: pass a copy as the {role} (e.g. .with_columns(pl.col({name!r})"
                f".alias({name + '_' + role!r})))"
            )
            raise RocOptionError(msg)
        seen[name] = role


def check_unit(weight: str | None, count: str | None) -> None:
    """Refuse ``weight=`` and ``count=`` together: a row stands for one or the other."""
    if weight is not None and count is not None:
        msg = (
            f"pass either weight= or count=, not both (got weight={weight!r}, "
            f"count={count!r}): a count says how many identical rows a row stands for, "
            "a weight how much each counts. For weighted rows aggregated into a count "
            "table, sum the weights per cell into one column and pass it as weight="
        )
        raise RocOptionError(msg)


@dataclass(frozen=True, init=False)
class Roles:
    """The columns of a log and how to read them, resolved once at a public function's
    boundary and passed whole to the counting
    (:func:`~polars_roc.core.counting.count_rows`): ``by`` as a list of names,
    ``nulls`` and ``direction`` checked. The arguments and defaults are the public
    functions' (see :func:`polars_roc.score_table`); ``dataclasses.replace`` gives the
    roles of a second score or other groups.

    The user's columns are checked here (:func:`check_columns`), once for every view
    and backend. ``internal=True`` marks roles the library
    builds over its own columns (an engine's count, expected classes): not checked, and
    kept so by ``replace``.
    """

    score: str
    label: str
    by: list[str]
    weight: str | None
    count: str | None
    pos_label: Any
    nulls: NullPolicy
    direction: Direction
    internal: bool

    def __init__(
        self,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        *,
        internal: bool = False,
    ) -> None:
        check_choice("nulls", nulls, ("raise", "drop"))
        check_choice("direction", direction, ("higher", "lower"))
        segments = normalize_by(by)
        check_unit(weight, count)
        values = (score, label, segments, weight, count, pos_label, nulls, direction, internal)
        for role, value in zip(fields(self), values):
            object.__setattr__(self, role.name, value)
        if not internal:
            check_columns([*self.row_columns(), *(("by", name) for name in segments)])

    def row_columns(self) -> list[tuple[str, str]]:
        """``(role, column)`` of a row's own columns: the score, the label and the
        weight or count given (what a grade or group column may not also be)."""
        given: dict[str, str | None] = {"score": self.score, "label": self.label}
        given |= {"weight": self.weight, "count": self.count}
        return [(role, column) for role, column in given.items() if column is not None]

    @property
    def unit(self) -> str | None:
        """The column of what a row stands for: its weight or its count (None: one row)."""
        return self.weight or self.count


# Counts and weight sums beyond this cannot be held exactly (Int64) or summed safely.
MAX_TOTAL = 2**63 - 1


def too_many_rows(count: str, too_large: int, total: float) -> RocInputError:
    """The refusal of counts beyond Int64, one by one or in total."""
    msg = (
        f"count column {count!r} holds more rows than can be counted exactly: "
        f"counts and their total must stay below 2**63 ({MAX_TOTAL:,}); "
        f"got {too_large} count(s) above that and a total of {total:.4g}"
    )
    return RocInputError(msg)
