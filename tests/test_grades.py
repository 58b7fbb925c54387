"""PD back-tests per grade: Jeffreys and binomial tests against scipy, Herfindahl."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError


def rated_book(seed: int = 0, n: int = 300) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    grade = rng.integers(0, 5, size=n)
    pd = np.array([0.005, 0.01, 0.03, 0.08, 0.2])[grade] * rng.uniform(0.8, 1.2, size=n)
    return pl.DataFrame(
        {
            "segment": rng.choice(["retail", "sme"], size=n).tolist(),
            "rating": np.array(list("ABCDE"))[grade].tolist(),
            "pd": pd,
            "default": rng.uniform(size=n) < pd * 1.5,
            "exposure": np.round(rng.uniform(1.0, 100.0, size=n), 2),
        }
    )


BOOK = rated_book()


@pytest.mark.parametrize("method", ["jeffreys", "binomial"])
def test_grade_test_equals_scipy(method: str) -> None:
    result = BOOK.roc.grade_test("rating", method, score="pd", label="default", by="segment")
    assert result.columns == [
        "segment",
        "grade",
        "n",
        "defaults",
        "mean_pd",
        "observed_rate",
        "p_value",
        "ci_lower",
        "ci_upper",
        "reject",
    ]
    for row in result.iter_rows(named=True):
        rows = BOOK.filter(
            (pl.col("segment") == row["segment"]) & (pl.col("rating") == row["grade"])
        )
        n, d, pd = rows.height, int(rows["default"].sum()), rows["pd"].mean()
        assert (row["n"], row["defaults"]) == (n, d)
        assert row["mean_pd"] == pytest.approx(pd, rel=1e-12)
        if method == "jeffreys":
            expected = stats.beta(d + 0.5, n - d + 0.5).cdf(pd)
        else:
            expected = stats.binom.sf(d - 1, n, pd)
        assert row["p_value"] == pytest.approx(expected, rel=1e-9, abs=1e-15)
        interval = stats.beta(d + 0.5, n - d + 0.5).ppf([0.025, 0.975])
        lower = 0.0 if d == 0 else interval[0]
        assert row["ci_lower"] == pytest.approx(lower, rel=1e-9)
        assert row["ci_upper"] == pytest.approx(interval[1], rel=1e-9)
        assert row["reject"] == (row["p_value"] < 0.05)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 200), st.data(), st.floats(0.001, 0.999))
def test_binomial_tail_property(n: int, data: st.DataObject, pd: float) -> None:
    defaults = data.draw(st.integers(0, n))
    frame = pl.DataFrame(
        {"score": [pd] * n, "label": [1] * defaults + [0] * (n - defaults), "grade": ["A"] * n}
    )
    p_value = frame.roc.grade_test(method="binomial")["p_value"].item()
    assert p_value == pytest.approx(stats.binom.sf(defaults - 1, n, pd), rel=1e-8, abs=1e-14)


def test_weights_are_exposures_and_counts_expand() -> None:
    weighted = BOOK.roc.calibration(grade="rating", score="pd", label="default", weight="exposure")
    rows = BOOK.filter(pl.col("rating") == "E")
    w = rows["exposure"].to_numpy()
    row = weighted.filter(pl.col("bin") == "E").row(0, named=True)
    assert row["n"] == pytest.approx(w.sum())
    assert row["mean_score"] == pytest.approx(np.average(rows["pd"], weights=w), rel=1e-12)
    counts = pl.DataFrame({"score": [0.1, 0.1], "label": [1, 0], "grade": ["A", "A"], "c": [2, 8]})
    expanded = counts.select(pl.all().repeat_by("c").explode()).drop("c")
    assert_frame_equal(counts.roc.grade_test(count="c"), expanded.roc.grade_test())


def test_grade_summary_herfindahl() -> None:
    result = BOOK.roc.grade_summary("rating", score="pd", label="default", weight="exposure")
    shares = BOOK.group_by("rating").agg(pl.col("exposure").sum())["exposure"].to_numpy()
    shares = shares / shares.sum()
    row = result.row(0, named=True)
    assert row["grades"] == 5
    assert row["herfindahl"] == pytest.approx((shares**2).sum(), rel=1e-12)
    assert row["herfindahl_normalized"] == pytest.approx(((shares**2).sum() - 0.2) / 0.8)
    one_grade = pl.DataFrame({"score": [0.1, 0.2], "label": [0, 1], "grade": ["A", "A"]})
    assert one_grade.roc.grade_summary().row(0)[-2:] == (1.0, None)


@pytest.mark.parametrize("scale", [1e-170, 1e160, 1e300])
def test_herfindahl_does_not_depend_on_the_scale_of_the_weights(scale: float) -> None:
    # The squares of the exposures overflowed (or underflowed) to NaN.
    options = {"grade": "rating", "score": "pd", "label": "default", "weight": "exposure"}
    unit = BOOK.roc.grade_summary(**options).select("herfindahl", "herfindahl_normalized")
    book = BOOK.with_columns(pl.col("exposure") / pl.col("exposure").sum() * scale)
    for source in (book, duckdb.from_arrow(book.to_arrow())):
        scaled = pr.grade_summary(source, **options).select(unit.columns)
        assert_frame_equal(scaled, unit, check_exact=False, rel_tol=1e-12)


@pytest.mark.parametrize("view", ["grade_test", "grade_summary"])
def test_eager_lazy_duckdb_agree(view: str) -> None:
    options = {"grade": "rating", "score": "pd", "label": "default", "by": "segment"}
    eager = getattr(BOOK.roc, view)(**options)
    assert_frame_equal(getattr(BOOK.lazy().roc, view)(**options).collect(), eager)
    on_duckdb = getattr(pr, view)(duckdb.sql("select * from BOOK"), **options)
    assert_frame_equal(on_duckdb, eager, check_exact=False, rel_tol=1e-12)


def test_bad_input() -> None:
    with_null = BOOK.with_columns(
        pl.when(pl.int_range(pl.len()) == 3).then(None).otherwise("rating").alias("rating")
    )
    with pytest.raises(RocInputError, match=r"column 'rating' has 1 row\(s\) with a null"):
        with_null.roc.grade_test("rating", score="pd", label="default")
    odds = BOOK.with_columns(pl.col("pd") * 10)
    with pytest.raises(RocInputError, match="score column 'pd' must hold probabilities"):
        odds.roc.grade_test("rating", score="pd", label="default")
    with pytest.raises(RocOptionError, match="method"):
        BOOK.roc.grade_test("rating", "wald", score="pd", label="default")  # type: ignore[arg-type]


# Regressions of the adversarial review of the validation views (FINDINGS.md).

PD_ZERO = pl.DataFrame(
    {"score": [0.0, 0.0, 0.1, 0.1], "label": [0, 0, 0, 1], "grade": ["A", "A", "B", "B"]}
)


@pytest.mark.parametrize("method", ["jeffreys", "binomial"])
def test_a_grade_at_pd_zero_is_not_tested(method: str) -> None:
    """Finding 6: Jeffreys rejected a grade of PD 0 with no default (p 0.0)."""
    row = PD_ZERO.roc.grade_test("grade", method).row(0, named=True)
    assert (row["grade"], row["mean_pd"]) == ("A", 0.0)
    assert row["p_value"] is None
    assert row["reject"] is None
    defaulted = PD_ZERO.with_columns(label=pl.Series([1, 0, 0, 1]))
    row = defaulted.roc.grade_test("grade", method).row(0, named=True)
    assert (row["p_value"], row["reject"]) == (None, None)


@pytest.mark.parametrize(("conf_level", "rejected"), [(0.95, False), (0.9, True)])
def test_a_p_value_equal_to_the_level_is_not_rejected(conf_level: float, rejected: bool) -> None:
    """reject is p_value < 1 - conf_level: one default in one loan of PD 0.05 has a
    binomial p-value of exactly 0.05 (scipy), rejected because 1 - 0.95 is
    0.050000000000000044 in floats."""
    one = pl.DataFrame({"score": [0.05], "label": [1], "grade": ["C"]})
    row = one.roc.grade_test("grade", "binomial", conf_level=conf_level).row(0, named=True)
    assert row["p_value"] == stats.binom.sf(0, 1, 0.05) == 0.05
    assert row["reject"] is rejected


@pytest.mark.parametrize("method", ["jeffreys", "binomial"])
def test_grade_test_refuses_weights(method: str) -> None:
    """Finding 2: the p-values changed with the unit of the weights."""
    with pytest.raises(RocOptionError, match=r"does not support weights.*count='exposure'"):
        BOOK.roc.grade_test("rating", method, score="pd", label="default", weight="exposure")


@pytest.mark.parametrize("lazy", [False, True])
def test_empty_grade_summary_is_empty(lazy: bool) -> None:
    """Finding 11: one row with mean_pd NaN came out of no rows."""
    empty = PD_ZERO.head(0)
    result = (empty.lazy() if lazy else empty).roc.grade_summary()
    result = result.collect() if lazy else result
    assert result.height == 0
    assert result.columns[:2] == ["grades", "n"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: PD_ZERO.rename({"grade": "n"}).roc.grade_test("n"), "`grade`.*'n'"),
        (lambda: PD_ZERO.rename({"grade": "p_value"}).roc.grade_test("p_value"), "`grade`"),
        (lambda: PD_ZERO.roc.grade_test("grade", by="grade"), "`grade`.*`by`"),
        (lambda: PD_ZERO.rename({"grade": "n"}).roc.grade_summary("n"), "`grade`.*'n'"),
    ],
)
def test_grade_clashes_are_refused(call: Any, message: str) -> None:
    """Finding 8: a grade column named n failed with DuplicateError."""
    with pytest.raises(RocOptionError, match=message):
        call()


@pytest.mark.parametrize("view", ["grade_test", "grade_summary"])
def test_missing_grade_is_named_as_grade(view: str) -> None:
    """Finding 14: it was reported as a `by` column."""
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"^grade column 'zz'"):
        getattr(PD_ZERO.roc, view)("zz")


def test_null_grades_are_refused_even_with_nulls_drop() -> None:
    """Finding 15: nulls= is about scores and labels; a loan without a grade is refused."""
    frame = PD_ZERO.with_columns(grade=pl.Series(["A", None, "B", "B"]))
    with pytest.raises(RocInputError, match=r"'grade' has 1 row.*nulls='drop' leaves out"):
        frame.roc.grade_test(nulls="drop")


@pytest.mark.parametrize("role", ["score", "label", "count"])
def test_a_grade_that_is_another_role_is_named_as_the_grade(role: str) -> None:
    """The grade is counted as one more `by` column: a grade that is the label was
    refused as 'given as both label and by; pass a copy as the by' (the score: as
    colliding with result columns)."""
    frame = pl.DataFrame({"score": [0.2, 0.7], "label": [0, 1], "c": [1, 2]})
    column = {"score": "score", "label": "label", "count": "c"}[role]
    options = {"count": "c"} if role == "count" else {}
    message = f"column '{column}' is given as both {role} and grade; .* as the grade"
    for call in (
        lambda: pr.grade_test(frame, column, **options),
        lambda: pr.grade_summary(frame, column, **options),
        lambda: pr.calibration_curve(frame, grade=column, **options),
    ):
        with pytest.raises(RocOptionError, match=message):
            call()
