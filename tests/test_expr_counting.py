"""Expressions take count= and direction= as the frame methods do."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocOptionError

EXPRESSIONS = {
    "auc": pr.auc,
    "gini": pr.gini,
    "ks": pr.ks,
    "average_precision": pr.average_precision,
}


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return pr.datasets.load_credit()


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_count_table_gives_the_rows_value(name: str, log: pl.DataFrame) -> None:
    expression = EXPRESSIONS[name]
    table = log.group_by("segment", "score", "label").len("n")
    from_counts = table.group_by("segment").agg(expression(count="n")).sort("segment")
    from_rows = log.group_by("segment").agg(expression()).sort("segment")
    assert_frame_equal(from_counts, from_rows, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("name", [*EXPRESSIONS, "auc_se"])
def test_direction_lower_is_the_negated_score(name: str, log: pl.DataFrame) -> None:
    expression = getattr(pr, name)
    lower = log.group_by("segment").agg(expression(direction="lower")).sort("segment")
    negated = log.group_by("segment").agg(expression(-pl.col("score"))).sort("segment")
    assert_frame_equal(lower, negated)


def test_fractional_or_negative_count_gives_null() -> None:
    frame = pl.DataFrame({"score": [0.1, 0.6, 0.9], "label": [0, 1, 1], "n": [1.0, 2.5, 1.0]})
    assert frame.select(pr.auc(count="n")).item() is None
    assert frame.with_columns(n=pl.Series([1, -1, 1])).select(pr.auc(count="n")).item() is None
    assert frame.with_columns(n=pl.Series([1, 2, 1])).select(pr.auc(count="n")).item() == 1.0


def test_count_with_weight_and_bad_direction_are_refused() -> None:
    with pytest.raises(RocOptionError, match=r"pr.auc: pass either weight= or count=, not both"):
        pr.auc(weight="w", count="n")
    with pytest.raises(RocOptionError, match=r"`direction` must be 'higher' or 'lower'"):
        pr.ks(direction="down")  # type: ignore[arg-type]
