"""confusion_matrix on another engine counts per threshold, not per distinct score.

The engine replaces each score by the threshold it falls to before its GROUP BY, so a
continuous score brings back a few cells per group, and the counts at every threshold
are those of the rows: the result equals the Polars path's for any scores, thresholds,
directions, dtypes, weights and counts.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.engine_counts import ENGINE_COUNT, count_in_engine
from polars_roc.exceptions import RocInputError

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install '.[duckdb]')")
pytest.importorskip("pyarrow", reason="pyarrow (DuckDB -> Polars) is not installed")


def relation(frame: pl.DataFrame) -> object:
    """A DuckDB relation holding ``frame``'s rows (on DuckDB's default connection: a
    connection of its own costs ~20 ms a relation)."""
    return duckdb.from_arrow(frame.to_arrow())


def both(frame: pl.DataFrame, thresholds: list[float], **options: object) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # one-class groups, on both paths
        expected = pr.confusion_matrix(frame, thresholds, **options)  # type: ignore[arg-type]
        result = pr.confusion_matrix(relation(frame), thresholds, **options)  # type: ignore[arg-type]
    assert_frame_equal(result, expected)


# Float32 0.7 is below 0.7 and Float32 0.1 above 0.1: a score there is on one side of
# the threshold in Float32 and on the other in Float64.
NEAR = st.sampled_from([float(np.float32(0.7)), float(np.float32(0.1)), 0.7, 0.1])
SCORES = {
    "float64": st.one_of(st.floats(-3, 3, allow_nan=False, width=64), NEAR),
    "float32": st.one_of(st.floats(-3, 3, allow_nan=False, width=32), NEAR),
    "int": st.integers(-3, 3),
}


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(sorted(SCORES)),
    direction=st.sampled_from(["higher", "lower"]),
    option=st.sampled_from([None, "weight", "count"]),
)
def test_counts_at_the_thresholds_equal_the_polars_path(
    data: st.DataObject, dtype: str, direction: str, option: str | None
) -> None:
    n = data.draw(st.integers(1, 40))
    scores = data.draw(st.lists(SCORES[dtype], min_size=n, max_size=n))
    labels = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    groups = data.draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n))
    # Thresholds at scores (ties), between them, beyond them, infinite and repeated;
    # 0.1 and 0.7 are not Float32 numbers, so Float32 rounding matters.
    extra = st.sampled_from([0.1, 0.7, -0.7, float("inf"), float("-inf"), 1e40, -1e40])
    thresholds = data.draw(
        st.lists(
            st.one_of(st.sampled_from(scores), extra, st.floats(-4, 4)), min_size=1, max_size=6
        )
    )
    dtypes = {"float64": pl.Float64, "float32": pl.Float32, "int": pl.Int64}
    frame = pl.DataFrame(
        {
            "score": pl.Series(scores, dtype=dtypes[dtype]),
            "label": labels,
            "g": pl.Series(groups, dtype=pl.String),
            "w": [0.5 + (i % 3) for i in range(n)],
            "n": [i % 4 for i in range(n)],
        }
    )
    options: dict[str, object] = {"by": "g", "direction": direction}
    if option == "weight":
        options["weight"] = "w"
    elif option == "count":
        options["count"] = "n"
    both(frame, [float(t) for t in thresholds], **options)


def test_continuous_scores_come_back_as_a_few_cells() -> None:
    rng = np.random.default_rng(4)
    n = 20_000
    log = pl.DataFrame(
        {
            "score": rng.random(n),
            "label": rng.integers(0, 2, n),
            "segment": rng.integers(0, 5, n),
        }
    )
    table = count_in_engine(
        relation(log),
        keys=["segment", "score", "label"],
        weight=None,
        count=None,
        cuts=("score", [0.25, 0.5, 0.75], "higher"),
    )
    # Four ranges (below the first threshold, and from each threshold up) x 5 x 2.
    assert table.height == 40
    assert table[ENGINE_COUNT].sum() == n
    assert set(table["score"].to_list()) == {float("-inf"), 0.25, 0.5, 0.75}
    both(log, [0.25, 0.5, 0.75], by="segment")


def test_bad_scores_are_still_refused() -> None:
    nan = pl.DataFrame({"score": [0.1, float("nan"), 0.3], "label": [0, 1, 1]})
    with pytest.raises(RocInputError, match=r"score column 'score' has 1 NaN value"):
        pr.confusion_matrix(relation(nan), 0.5)
    null = pl.DataFrame({"score": [0.1, None, 0.3, None], "label": [0, 1, 1, 0]})
    with pytest.raises(RocInputError, match=r"score column 'score' has 2 null value"):
        pr.confusion_matrix(relation(null), 0.5)
    both(null, [0.2], nulls="drop")
    text = pl.DataFrame({"score": ["a", "b"], "label": [0, 1]})
    with pytest.raises(RocInputError, match=r"score column 'score' must be numeric"):
        pr.confusion_matrix(relation(text), 0.5)
