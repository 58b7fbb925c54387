"""Views of bins fixed before the read count a scanned log in one read (issue 25) and
refuse bad input there as ``prepare`` does, with the same error on every backend.

A log read through a Python IO source counts its reads; bad input goes through the
one-read path of each backend (DataFrame, LazyFrame, the counted source, DuckDB; Spark in
tests/test_spark.py, the one file that starts a Spark session) and must fail with the same
class and message, matching the check's own wording.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import duckdb
import polars as pl
import pytest
from polars.io.plugins import register_io_source
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError


def counted_source(frame: pl.DataFrame) -> tuple[pl.LazyFrame, list[int]]:
    """``frame`` as a LazyFrame that counts how many times its rows are read."""
    reads = [0]

    def source(
        with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None, _: Any
    ) -> Any:
        reads[0] += 1
        rows = frame if predicate is None else frame.filter(predicate)
        rows = rows if with_columns is None else rows.select(with_columns)
        yield rows if n_rows is None else rows.head(n_rows)

    return register_io_source(source, schema=frame.schema), reads


LOG = pl.DataFrame(
    {
        "segment": ["a", "a", "a", "a", "b", "b", "b", "b"],
        "score": [0.1, 0.4, 0.45, 0.8, 0.2, 0.6, 0.9, 1.0],
        "label": [0, 1, 0, 1, 0, 0, 1, 1],
        "w": [1.0, 2.0, 0.0, 0.5, 1.0, 1.5, 2.0, 0.25],
        "n": [1, 2, 0, 1, 3, 1, 1, 2],
        "c": [1.0, 2.0, 0.0, 1.0, 3.0, 1.0, 1.0, 2.0],
        "rating": ["A", "B", "B", "C", "A", "C", "C", "C"],
    }
)

# Each call and its reads of the log: bins fixed before the read need one (checks and
# counts in one aggregation); the buckets of estimated_auc(bins=) span each segment's
# scores, found in a first read (with the checks), so the rows are bucketed in a second.
READS: dict[str, tuple[Callable[[Any], Any], int]] = {
    "calibration": (lambda f: pr.calibration_curve(f, 4, by="segment", ci="wilson"), 1),
    "calibration_grade_weighted": (
        lambda f: pr.calibration_curve(f, grade="rating", by="segment", weight="w"),
        1,
    ),
    "calibration_error_counted": (lambda f: pr.calibration_error(f, by="segment", count="n"), 1),
    "grade_test": (lambda f: pr.grade_test(f, "rating", by="segment"), 1),
    "grade_summary": (lambda f: pr.grade_summary(f, "rating", count="n"), 1),
    "estimated_auc_bins": (lambda f: pr.estimated_auc(f, by="segment", weight="w", bins=3), 2),
    # The periods (the baseline's), the baseline's edges, then the rows binned: a score
    # cannot be binned before its segment's baseline has been read to the end.
    "psi": (lambda f: pr.psi(f, "rating", by="segment", n_bins=2), 3),
}


@pytest.mark.parametrize("view", READS)
def test_reads_of_a_scanned_log(view: str) -> None:
    call, expected = READS[view]
    source, reads = counted_source(LOG)
    result = call(source)
    assert reads == [expected]  # all of them made by the call, before it returns
    assert_frame_equal(result.collect(), call(LOG))
    assert reads == [expected]
    on_duckdb = call(duckdb.from_arrow(LOG.to_arrow()))
    assert_frame_equal(on_duckdb, call(LOG), check_exact=False, rel_tol=1e-12)


def _with(column: str, values: list[Any], dtype: Any = None) -> pl.DataFrame:
    return LOG.with_columns(pl.Series(column, values, dtype=dtype))


# (frame, options, the check's wording), each a problem the one read must find.
BAD: dict[str, tuple[pl.DataFrame, dict[str, Any], str]] = {
    "nan score": (
        _with("score", [0.1, float("nan"), 0.45, 0.8, 0.2, 0.6, 0.9, 1.0]),
        {},
        r"^score column 'score' has 1 NaN value\(s\), which cannot be ranked",
    ),
    "null score": (
        _with("score", [0.1, None, 0.45, 0.8, 0.2, 0.6, 0.9, 1.0]),
        {},
        r"^score column 'score' has 1 null value\(s\); fill them, or pass nulls='drop'",
    ),
    "null label": (
        _with("label", [0, 1, 0, None, 0, 0, 1, 1]),
        {},
        r"^label column 'label' has 1 null value\(s\)",
    ),
    "score above 1": (
        _with("score", [0.1, 0.4, 0.45, 0.8, 0.2, 0.6, 0.9, 1.5]),
        {},
        r"^score column 'score' must hold probabilities in \[0, 1\] .* from 0.1 to 1.5;",
    ),
    "score below 0, dropped label": (
        _with("score", [0.1, 0.4, 0.45, 0.8, -0.2, 0.6, 0.9, 1.0]).with_columns(
            label=pl.when(pl.col("score") < 0).then(None).otherwise("label")
        ),
        {"nulls": "drop"},  # the range of every row, as prepare finds it
        r"^score column 'score' must hold probabilities .* from -0.2 to 1.0;",
    ),
    "null grade": (
        _with("rating", ["A", None, "B", "C", "A", "C", "C", "C"]),
        {"grade": "rating"},
        r"^column 'rating' has 1 row\(s\) with a null; every row needs its 'rating' value",
    ),
    "null grade before a NaN score": (
        _with("rating", ["A", None, None, "C", "A", "C", "C", "C"]).with_columns(
            score=pl.when(pl.col("rating").is_null()).then(float("nan")).otherwise("score")
        ),
        {"grade": "rating", "nulls": "drop"},
        r"^column 'rating' has 2 row\(s\) with a null",
    ),
    "negative weight": (
        _with("w", [1.0, -2.0, 0.0, 0.5, 1.0, 1.5, 2.0, 0.25]),
        {"weight": "w"},
        r"^weight column 'w' has 1 negative, NaN or infinite value\(s\)",
    ),
    "NaN weight": (
        _with("w", [1.0, 2.0, 0.0, float("nan"), 1.0, 1.5, 2.0, 0.25]),
        {"weight": "w", "grade": "rating"},
        r"^weight column 'w' has 1 negative, NaN or infinite value\(s\)",
    ),
    "null weight": (
        _with("w", [1.0, 2.0, 0.0, None, 1.0, 1.5, 2.0, 0.25]),
        {"weight": "w"},
        r"^weight column 'w' has 1 null value\(s\)",
    ),
    "negative count": (
        _with("n", [1, 2, 0, -1, 3, 1, 1, 2]),
        {"count": "n", "grade": "rating"},
        r"^count column 'n' has 1 negative value\(s\); counts are frequencies",
    ),
    "fractional and NaN counts": (
        _with("c", [1.0, 2.5, 0.0, float("nan"), 3.0, 1.0, 1.0, 2.0]),
        {"count": "c"},
        r"^count column 'c' has 1 NaN or infinite value\(s\) and 1 non-integral value\(s\)",
    ),
    "labels beyond 0 and 1": (
        _with("label", [0, 1, 0, 2, 0, 0, 1, 1]),
        {},
        r"^label column 'label' \(Int64\) holds values other than 0 and 1: \[0, 1, 2\]",
    ),
    "pos_label absent": (
        _with("label", ["x", "y", "x", "y", "x", "x", "y", "y"]),
        {"pos_label": "z"},
        r"^pos_label='z' does not occur in label column 'label'; its values are \['x', 'y'\]",
    ),
    "pos_label of another type": (
        LOG,
        {"pos_label": "z"},
        r"^cannot compare label column 'label' \(Int64\) with pos_label='z'",
    ),
}
VIEWS: dict[str, Callable[..., Any]] = {
    "calibration": lambda f, **o: pr.calibration_curve(f, by="segment", **o),
    "grade_test": lambda f, **o: pr.grade_test(f, o.pop("grade", "rating"), **o),
}


def _refusal(call: Callable[[], Any]) -> tuple[type, str]:
    with pytest.raises((RocInputError, RocOptionError)) as caught:
        result = call()
        if isinstance(result, pl.LazyFrame):  # pragma: no cover - the call must raise
            result.collect()
    return type(caught.value), str(caught.value)


def _refusals(frame: pl.DataFrame, options: dict[str, Any], pattern: str, view: str) -> set[Any]:
    sources = {
        "eager": frame,
        "lazy": frame.lazy(),
        "read once": counted_source(frame)[0],
        "duckdb": duckdb.from_arrow(frame.to_arrow()),
    }
    found = {name: _refusal(lambda f=f: VIEWS[view](f, **options)) for name, f in sources.items()}
    assert all(error is RocInputError for error, _ in found.values())
    for name, (_, message) in found.items():
        assert re.search(pattern, message), (name, message)
    return set(found.values())


# grade_test refuses weight= before any read: its cases with weights are calibration's.
CASES = [(c, v) for c in BAD for v in VIEWS if not (v == "grade_test" and "weight" in BAD[c][1])]


@pytest.mark.parametrize(("case", "view"), CASES)
def test_bad_input_is_refused_alike_on_every_backend(case: str, view: str) -> None:
    frame, options, pattern = BAD[case]
    assert len(_refusals(frame, dict(options), pattern, view)) == 1


def test_string_labels_without_pos_label_show_the_values() -> None:
    """The schema's refusal names the log's labels (read only to say so)."""
    frame = _with("label", ["x", "y", "x", "y", "x", "x", "y", "y"])
    for source in (frame, frame.lazy()):
        with pytest.raises(RocInputError, match=r"has values \['x', 'y'\]"):
            pr.calibration_curve(source)


@pytest.mark.parametrize("grade", [None, "rating"])
def test_nulls_drop_counts_the_rows_kept(grade: str | None) -> None:
    """nulls='drop' leaves out rows with a null score, label or weight from the sums (a
    segment of such rows only is no segment), as filtering them first does."""
    frame = pl.concat(
        [
            LOG,
            pl.DataFrame(
                {
                    "segment": ["a", "a", "b", "z"],
                    "score": [None, 0.3, 0.7, 0.5],
                    "label": [1, None, 1, None],
                    "w": [1.0, 1.0, None, 2.0],
                    "n": [1, 1, 1, 1],
                    "c": [1.0, 1.0, 1.0, 1.0],
                    "rating": ["A", "A", "B", "A"],
                }
            ),
        ],
        how="vertical_relaxed",
    )
    options: dict[str, Any] = {"by": "segment", "weight": "w", "grade": grade}
    expected = pr.calibration_curve(frame.drop_nulls(["score", "label", "w"]), **options)
    assert "z" not in expected["segment"].to_list()
    for source in (frame, counted_source(frame)[0], duckdb.from_arrow(frame.to_arrow())):
        found = pr.calibration_curve(source, nulls="drop", **options)
        found = found.collect() if isinstance(found, pl.LazyFrame) else found
        assert_frame_equal(found, expected, check_exact=False, rel_tol=1e-12)


def test_one_class_segments_are_counted_without_a_refusal() -> None:
    """A segment holding negatives only has its bins (observed rate 0), as counted by
    hand, on every backend."""
    frame = LOG.with_columns(label=pl.when(pl.col("segment") == "b").then(0).otherwise("label"))
    expected = pl.DataFrame(
        {"segment": ["b", "b"], "bin": [1, 2], "n": [1, 3], "observed_rate": [0.0, 0.0]}
    )
    for source in (frame, frame.lazy(), duckdb.from_arrow(frame.to_arrow())):
        found = pr.calibration_curve(source, 2, by="segment")
        found = found.collect() if isinstance(found, pl.LazyFrame) else found
        found = found.filter(pl.col("segment") == "b").select(expected.columns)
        assert_frame_equal(found, expected)


MONTHS = pl.DataFrame(
    {
        "month": [1, 1, 1, 2, 2, 2, None, 3],
        "score": [0.1, 0.5, 0.9, 0.2, float("nan"), 0.7, 0.4, 0.3],
        "x": [1.0, 2.0, 3.0, 1.0, 2.0, float("nan"), 2.0, 1.0],
    }
)
PSI_BAD = {
    "null period": (MONTHS, {}, r"^period column 'month' has 1 row\(s\) with a null period"),
    "absent baseline": (
        MONTHS.drop_nulls("month"),
        {"baseline": 7},
        r"^baseline period 7 is absent from column 'month' \(periods found: 1, 2, 3\)",
    ),
    "NaN score after the baseline": (
        MONTHS.drop_nulls("month"),
        {},
        r"^score column 'score' has 1 NaN value\(s\), which cannot be binned",
    ),
    "NaN characteristic": (
        MONTHS.drop_nulls("month"),
        {"score": None, "columns": ["x"]},
        r"^characteristic column 'x' has 1 NaN value\(s\)",
    ),
}


@pytest.mark.parametrize("case", PSI_BAD)
def test_psi_refuses_bad_input_alike_on_every_backend(case: str) -> None:
    frame, options, pattern = PSI_BAD[case]
    sources = [frame, frame.lazy(), counted_source(frame)[0], duckdb.from_arrow(frame.to_arrow())]
    found = {_refusal(lambda f=f: pr.psi(f, "month", **options)) for f in sources}
    assert len(found) == 1
    assert re.search(pattern, found.pop()[1])
