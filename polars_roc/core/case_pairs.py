"""A long log's two models paired by case, where the rows live.

A long log holds one row per case and model; a paired test needs one row per case with
both models' scores. :func:`pair_cases` checks that every case pairs up (once under each
model, the same label and weight under both) and gives the paired rows: on Polars a
join, whose check runs in the value pass of the paired rows; on another engine (through
narwhals) one ``GROUP BY`` case, checked first, in the engine, so that an unpaired case
is reported as such, not as the null score it would leave.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from polars_roc.core.arguments import Roles
from polars_roc.core.engine_counts import is_polars, native_frame
from polars_roc.core.validate import check_engine_schema

__all__ = ["pair_cases"]

_N_A, _N_B, _AGREE = "__roc_n_a", "__roc_n_b", "__roc_agree_"

Check = tuple[pl.LazyFrame, Callable[[pl.DataFrame], None]]


def pair_cases(
    frame: Any,
    models: Sequence[Any],
    roles: Roles,
    *,
    case: str,
    model: str,
    names: tuple[str, str],
    reserved: Collection[str],
) -> tuple[Any, Check | None]:
    """The rows of ``frame`` paired by case: ``[*by, case, label, (weight), *names]``,
    the two models' scores (``roles.score`` of the rows of each of ``models``) under
    ``names``; and the pairing check, ``(plan, check)`` for the value pass of a Polars
    frame's paired rows (:func:`~polars_roc.core.validate.prepare`'s ``first``), None
    where it has run (another engine's: the schema of its paired rows checked first).
    The paired rows are of the caller's kind: a DataFrame, a LazyFrame, the engine's.
    """
    keys = [*roles.by, case]
    shared = [roles.label, *([roles.weight] if roles.weight is not None else [])]
    if is_polars(frame):
        a, b = (pl.col(model) == value for value in models)
        # Cached: the check and the two sides of the join read the source once.
        rows = frame.lazy().cache()
        sides = [
            rows.filter(side).select(
                *keys, *(shared if i == 0 else []), pl.col(roles.score).alias(name)
            )
            for i, (side, name) in enumerate(zip((a, b), names, strict=True))
        ]
        paired = sides[0].join(
            sides[1], on=keys, how="inner", nulls_equal=True, maintain_order="left"
        )
        plan, check = _pairing_check(pl, rows, models, keys, model, case, shared)
        return (paired.collect() if isinstance(frame, pl.DataFrame) else paired), (plan, check)
    import narwhals as nw  # installed with altair; imported only for other engines

    native = native_frame(frame).lazy()
    in_pair = native.filter(nw.col(model).is_in(list(models)))
    # Each case's row under each model: one value each once the check has passed.
    scores = [
        nw.when(nw.col(model) == value).then(nw.col(roles.score)).max().alias(name)
        for value, name in zip(models, names, strict=True)
    ]
    paired = in_pair.group_by(*keys, drop_null_keys=False).agg(
        *(nw.col(c).min() for c in shared), *scores
    )
    empty = paired.head(0).collect(backend="polars").to_native()
    paired_roles = replace(roles, score=names[0])
    check_engine_schema(paired, empty, paired_roles, reserved=reserved, paired_score=names[1])
    plan, check = _pairing_check(nw, native, models, keys, model, case, shared)
    check(plan.collect(backend="polars").to_native())
    return paired.to_native(), None


def _pairing_check(
    F: Any,
    rows: Any,
    models: Sequence[Any],
    keys: list[str],
    model: str,
    case: str,
    shared: list[str],
) -> tuple[Any, Callable[[pl.DataFrame], None]]:
    """The plan (``F``: polars or narwhals) that counts the cases at fault, and the
    check of its result: raise unless every case appears once under each model, with
    the same ``shared`` values (label, weight)."""
    a, b = (F.col(model) == value for value in models)
    per_case = (
        rows.filter(F.col(model).is_in(list(models)))
        .group_by(*keys, **({} if F is pl else {"drop_null_keys": False}))
        .agg(
            a.cast(F.Int64).sum().alias(_N_A),
            b.cast(F.Int64).sum().alias(_N_B),
            *(F.col(c).n_unique().alias(f"{_AGREE}{i}") for i, c in enumerate(shared)),
        )
    )
    n_a, n_b = F.col(_N_A), F.col(_N_B)
    disagree = F.lit(False)
    for i in range(len(shared)):
        disagree = disagree | (F.col(f"{_AGREE}{i}") > 1)
    problems = {
        f"only under {models[0]!r}": (n_a > 0) & (n_b == 0),
        f"only under {models[1]!r}": (n_b > 0) & (n_a == 0),
        "more than once under one model": (n_a > 1) | (n_b > 1),
        f"with different {' or '.join(repr(c) for c in shared)} under the two models": (n_a == 1)
        & (n_b == 1)
        & disagree,
    }
    plan = per_case.select(
        *(expr.cast(F.Int64).sum().alias(f"n{i}") for i, expr in enumerate(problems.values())),
        F.len().alias("cases"),
    )

    def check(found: pl.DataFrame) -> None:
        counts = [found[f"n{i}"][0] or 0 for i in range(len(problems))]
        if found["cases"][0] == 0:
            msg = f"no rows of model {models[0]!r} or {models[1]!r} in column {model!r}"
            raise ValueError(msg)
        if not any(counts):
            return
        details = []
        for (what, expr), number in zip(problems.items(), counts, strict=True):
            if number:
                # Sorted: the groups come in hash order, which differs between versions.
                first = per_case.filter(expr).select(case).sort(case).head(3)
                shown = first.collect(**({} if F is pl else {"backend": "polars"}))
                shown = shown if F is pl else shown.to_native()
                details.append(f"{number} case(s) {what} (e.g. {shown[case].to_list()!r})")
        msg = (
            f"cases in {case!r} do not pair up between models {models[0]!r} and "
            f"{models[1]!r}: {'; '.join(details)}. A paired test needs each case exactly "
            "once under each model; filter the log to the cases both models scored, or "
            "compare the models unpaired with compare_groups()"
        )
        raise ValueError(msg)

    return plan, check
