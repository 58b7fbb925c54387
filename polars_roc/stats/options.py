"""Argument checks shared by the intervals and tests of ``stats/``, run before any read."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from numbers import Integral
from typing import Any, Literal

import polars as pl

from polars_roc.core.arguments import check_conf_level
from polars_roc.core.validate import Prepared, caller_stacklevel

__all__ = [
    "CiMethod",
    "check_groups_present",
    "check_inference_options",
    "ci_alias",
    "no_weights_with_delong",
]


CiMethod = Literal["delong", "bootstrap"]


def check_inference_options(
    ci: str | None,
    allowed: Sequence[str],
    conf_level: float,
    n_boot: int,
    seed: int | None,
    ci_method: str = "percentile",
    *,
    name: str = "ci",
) -> None:
    if ci is not None and ci not in allowed:
        choices = " or ".join(repr(c) for c in allowed)
        msg = f"`{name}` must be {choices}, got {ci!r}"
        raise ValueError(msg)
    check_conf_level(conf_level)
    if isinstance(n_boot, bool) or not isinstance(n_boot, Integral) or n_boot < 2:
        msg = f"`n_boot` must be an integer >= 2, got {n_boot!r}"
        raise ValueError(msg)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0):
        msg = f"`seed` must be None or a non-negative integer, got {seed!r}"
        raise ValueError(msg)
    # Interval options given while no interval is asked for would do nothing; with
    # ci="delong" the bootstrap's are let through, so one set of options serves both.
    changed = {"conf_level": conf_level != 0.95, "n_boot": n_boot != 2000, "seed": seed is not None}
    given = [option for option, on in changed.items() if on]
    if ci is None and given:
        choices = " or ".join(f"`{name}={c!r}`" for c in allowed)
        verb = "set" if len(given) > 1 else "sets"
        msg = (
            f"`{'`, `'.join(given)}` {verb} a confidence interval, but none is asked for; "
            f"pass {choices}"
        )
        raise ValueError(msg)
    if ci_method not in ("percentile", "bca"):
        msg = f"`ci_method` must be 'percentile' or 'bca', got {ci_method!r}"
        raise ValueError(msg)
    if ci_method == "bca" and ci != "bootstrap":
        msg = (
            f"ci_method='bca' chooses how a bootstrap interval is read off its replicates, "
            f"but {name}={ci!r}; pass {name}='bootstrap'"
        )
        raise ValueError(msg)


def check_groups_present(
    prep: Prepared, by: str, groups: Sequence[Any], *, argument: str = "groups"
) -> None:
    """Raise, listing the values there are, when a compared group is not in the data;
    the message names the caller's ``argument`` that asked for it."""
    if prep.class_totals is not None:  # the validation pass found the groups
        present = prep.class_totals.get_column(by).unique()
    else:  # one hash pass over one column, before the plan is built
        present = prep.frame.select(pl.col(by).unique()).collect().get_column(by)
    values = present.to_list()
    missing = [g for g in groups if g not in values]
    if missing:
        shown = ", ".join(repr(v) for v in sorted(values, key=str)[:10])
        more = ", ..." if len(values) > 10 else ""
        msg = (
            f"`{argument}` value(s) {missing!r} not found in column {by!r}; "
            f"its values are [{shown}{more}]"
        )
        raise ValueError(msg)


def no_weights_with_delong(weight: str | None, what: str, instead: str) -> None:
    if weight is not None:
        msg = (
            f"{what} with DeLong's method does not support weights (got weight={weight!r}): "
            f"DeLong's variance counts rows. Use {instead}, which resamples weighted rows; "
            "or, if each row stands for that many identical cases (a count table), pass "
            f"the column as count={weight!r}, which every method handles exactly"
        )
        raise ValueError(msg)


def ci_alias(ci: str, method: str | None, function: str) -> Any:
    """The interval method of a comparison: ``ci``, or the deprecated ``method``."""
    if method is None:
        return ci
    warnings.warn(
        f"`method=` of {function}() is deprecated; pass ci={method!r} instead (the "
        "keyword of roc_auc)",
        DeprecationWarning,
        stacklevel=caller_stacklevel(),
    )
    if ci != "delong" and ci != method:
        msg = f"pass the interval method once, as `ci`; got ci={ci!r} and method={method!r}"
        raise ValueError(msg)
    return method
