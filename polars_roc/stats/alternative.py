"""One-sided p-values for the AUC comparisons (pROC's ``roc.test(alternative=)``)."""

from __future__ import annotations

from typing import Literal

import polars as pl

__all__ = ["Alternative", "check_alternative", "with_alternative"]

Alternative = Literal["two-sided", "greater", "less"]
ALTERNATIVES = ("two-sided", "greater", "less")


def check_alternative(alternative: object, *, greater: str = "auc_a > auc_b") -> None:
    """Refuse anything but the three alternatives, naming the parameter and the value;
    ``greater`` says what the alternative ``"greater"`` means to the caller."""
    if alternative not in ALTERNATIVES:
        less = greater.replace(">", "<")
        msg = (
            f"`alternative` must be 'two-sided', 'greater' ({greater}) or 'less' "
            f"({less}), got {alternative!r}"
        )
        raise ValueError(msg)


def with_alternative(
    result: pl.LazyFrame, statistic: str, alternative: Alternative
) -> pl.LazyFrame:
    """Replace the two-sided ``p_value`` of ``result`` by the one-sided one asked for:
    the statistic's distribution is symmetric, so the tail is half the two-sided p on the
    side the statistic points to, one minus that half on the other (null stays null)."""
    if alternative == "two-sided":
        return result
    half = pl.col("p_value") / 2
    stat = pl.col(statistic)
    toward = stat >= 0 if alternative == "greater" else stat <= 0
    return result.with_columns(pl.when(toward).then(half).otherwise(1.0 - half).alias("p_value"))
