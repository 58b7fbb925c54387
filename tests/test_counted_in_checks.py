"""The AUC (curve, score table) of an eager frame of few distinct scores, counted in the
value pass itself (``counted_in_checks``): the same frame, warnings and errors as the
rows counted after the checks (a LazyFrame's path), and the AUC of scikit-learn and of
brute force."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score

import polars_roc as pr
from polars_roc.core import validate
from polars_roc.core.arguments import Roles
from polars_roc.core.validate import prepare
from polars_roc.exceptions import RocInputError

SPECIAL = [-math.inf, -1e300, -2.5, -1.0, -0.0, 0.0, 5e-324, 0.5, 1.0, 3.0, 1e300, math.inf]


@pytest.fixture
def any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small frames counted in the value pass too, whatever their share of distinct scores."""
    monkeypatch.setattr(validate, "FOLD_MIN_ROWS", 0)
    monkeypatch.setattr(validate, "HASH_PATH_MAX_DISTINCT_RATIO", 2.0)


def outcome(call: Any) -> tuple[Any, ...]:
    """``("ok", frame, warnings)`` or ``("error", class, message, warnings)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
            found: tuple[Any, ...] = (
                "ok",
                result.collect() if isinstance(result, pl.LazyFrame) else result,
            )
        except Exception as error:  # the error is the outcome compared
            found = ("error", type(error), str(error))
    return (*found, sorted(f"{w.category.__name__}: {w.message}" for w in caught))


def assert_same_outcome(
    frame: pl.DataFrame, view: Any = pr.roc_auc, **options: Any
) -> tuple[Any, ...]:
    """The eager call's outcome equals the lazy one's (rows counted after the checks)."""
    eager = outcome(lambda: view(frame, **options))
    lazy = outcome(lambda: view(frame.lazy(), **options))
    assert eager[0] == lazy[0], (eager, lazy)
    if eager[0] == "ok":
        assert_frame_equal(eager[1], lazy[1])
        assert eager[2] == lazy[2]
    else:
        assert eager == lazy
    return eager


def folds(frame: pl.DataFrame, **options: Any) -> bool:
    return prepare(frame, Roles(**options), table_only=True).counted


@pytest.mark.usefixtures("any_size")
@settings(max_examples=60, deadline=None)
@given(
    scores=st.lists(st.sampled_from([*SPECIAL, 0.25, 0.75]), min_size=1, max_size=40),
    data=st.data(),
    dtype=st.sampled_from([pl.Float64, pl.Float32]),
    direction=st.sampled_from(["higher", "lower"]),
)
def test_auc_matches_the_rows_path_and_sklearn(
    scores: list[float], data: Any, dtype: pl.DataType, direction: str
) -> None:
    labels = data.draw(st.lists(st.booleans(), min_size=len(scores), max_size=len(scores)))
    df = pl.DataFrame({"score": scores, "label": labels}, schema_overrides={"score": dtype})
    assert folds(df, direction=direction)
    for view in (pr.roc_curve, pr.score_table):  # the views that read the table only
        assert_same_outcome(df, view, direction=direction)
    found = assert_same_outcome(df, direction=direction)
    if 0 < sum(labels) < len(labels):
        y, s = np.array(labels), df["score"].to_numpy().astype(np.float64)
        s = -s if direction == "lower" else s
        pos, neg = s[y][:, None], s[~y][None, :]
        twice_u = 2 * (pos > neg).sum() + (pos == neg).sum()
        assert found[1]["auc"][0] == twice_u / (2 * y.sum() * (~y).sum())
        # sklearn takes finite scores only: their ranks, which keep order and ties.
        assert found[1]["auc"][0] == pytest.approx(roc_auc_score(y, rankdata(s)), rel=1e-12)


@pytest.mark.usefixtures("any_size")
@pytest.mark.parametrize(
    ("column", "values", "options", "expected"),
    [
        ("score", [1, 5, 5, 2, 9, 1], {}, "counted"),  # integer scores: their own keys
        ("score", [1, 2**60, 5, 2, 9, 1], {}, "error"),  # beyond 2^53
        ("score", pl.Series([1, 2**64 - 1, 5, 2, 9, 1], dtype=pl.UInt64), {}, "error"),
        ("score", pl.Series([1, 2**100, 5, 2, 9, 1], dtype=pl.Int128), {}, "error"),
        ("score", pl.Series([1, 7, 5, 2, 9, 1], dtype=pl.Int128), {}, "rows"),
        ("score", pl.Series([1, 7, 5, 2, 9, 1], dtype=pl.UInt8), {}, "counted"),
        ("score", [0.1, float("nan"), 0.3, 0.3, 0.9, 0.2], {}, "error"),
        ("label", [0, 1, 2, 1, 0, 1], {}, "error"),  # labels beyond 0 and 1
        ("label", [0.0, 1.0, 1.0, 0.0, 1.0, 0.0], {}, "counted"),
        ("label", ["x", "y", "x", "y", "y", "x"], {"pos_label": "y"}, "counted"),
        ("label", ["x", "y", "x", "y", "y", "x"], {"pos_label": "z"}, "error"),  # absent
        ("label", ["x", "y", "x", "y", "y", "x"], {"pos_label": 1}, "error"),  # another type
        ("label", [True, False, True, True, False, False], {"pos_label": "true"}, "rows"),
        ("label", ["x", "y", "x", "y", "y", "x"], {}, "error"),  # no pos_label
        ("label", [1, 1, 1, 1, 1, 1], {}, "counted"),  # one class: a warning
        ("label", [1, None, 1, 0, 0, 1], {}, "error"),  # nulls: the value pass's to say
        ("label", [1, None, 1, 0, 0, 1], {"nulls": "drop"}, "rows"),
        ("score", [0.1, None, 0.3, 0.3, 0.9, 0.2], {"nulls": "drop"}, "rows"),
        ("score", ["a", "b", "a", "b", "a", "b"], {}, "error"),  # not numeric
    ],
)
def test_refusals_and_warnings_are_the_rows_paths(
    column: str, values: Any, options: dict[str, Any], expected: str
) -> None:
    df = pl.DataFrame({"score": [0.1, 0.4, 0.3, 0.3, 0.9, 0.2], "label": [0, 1, 1, 0, 1, 0]})
    values = (
        values.alias(column)
        if isinstance(values, pl.Series)
        else pl.Series(column, values, strict=False)
    )
    df = df.with_columns(values)
    found = assert_same_outcome(df, **options)
    if expected != "error":  # an answer, counted in its checks or not
        assert found[0] == "ok" and folds(df, **options) == (expected == "counted")
    else:  # an error naming the column or option at fault
        assert found[0] == "error" and issubclass(found[1], RocInputError)
        assert re.search(f"{column}|pos_label", found[2])


def test_a_log_of_rounded_scores_is_counted_in_its_checks() -> None:
    # Past the sample's size, as a user's log: no patched limits.
    rng = np.random.default_rng(3)
    rows = validate.FOLD_MIN_ROWS + 50_000
    label = rng.random(rows) < 0.3
    score = np.round(1 / (1 + np.exp(-(rng.normal(size=rows) + label))), 3)
    df = pl.DataFrame({"score": score, "label": label})
    assert folds(df)
    found = assert_same_outcome(df)
    assert found[1]["auc"][0] == pytest.approx(roc_auc_score(label, score), rel=1e-12)
    continuous = df.with_columns(pl.Series("score", rng.random(rows)))
    assert not folds(continuous)  # many distinct scores: sorted, not counted per score
