"""Population and characteristic stability index against a numpy reference."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError
from polars_roc.views.stability import EMPTY_SHARE


def scored_months(seed: int = 0, n: int = 600) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    month = rng.integers(1, 4, size=n)
    # The score drifts upward month by month; the channel mix moves in month 3.
    score = np.round(rng.beta(2 + month, 5, size=n), 3)
    channel = np.where(rng.uniform(size=n) < np.where(month == 3, 0.7, 0.4), "web", "branch")
    return pl.DataFrame(
        {
            "month": month,
            "segment": rng.choice(["retail", "sme"], size=n).tolist(),
            "score": score,
            "channel": channel.tolist(),
            "weight": np.round(rng.uniform(0.5, 2.0, size=n), 2),
        }
    )


MONTHS = scored_months()


def reference_psi(base: np.ndarray, current: np.ndarray, n_bins: int) -> float:
    """PSI with the baseline's numpy percentile bins, numpy's searchsorted."""
    edges = np.percentile(base, np.linspace(0, 1, n_bins + 1) * 100)[1:-1]
    expected = np.bincount(np.searchsorted(edges, base), minlength=n_bins) / base.size
    actual = np.bincount(np.searchsorted(edges, current), minlength=n_bins) / current.size
    expected, actual = (np.where(x > 0, x, EMPTY_SHARE) for x in (expected, actual))
    used = (expected > EMPTY_SHARE) | (actual > EMPTY_SHARE)
    return float(((actual - expected) * np.log(actual / expected))[used].sum())


@pytest.mark.parametrize("n_bins", [4, 10])
def test_psi_equals_numpy_reference(n_bins: int) -> None:
    result = MONTHS.roc.psi("month", n_bins=n_bins, by="segment")
    assert result.columns == ["segment", "column", "month", "psi", "n", "n_baseline", "level"]
    for row in result.iter_rows(named=True):
        rows = MONTHS.filter(pl.col("segment") == row["segment"])
        base = rows.filter(pl.col("month") == 1)["score"].to_numpy()
        current = rows.filter(pl.col("month") == row["month"])["score"].to_numpy()
        assert row["psi"] == pytest.approx(reference_psi(base, current, n_bins), abs=1e-12)
        assert (row["n"], row["n_baseline"]) == (current.size, base.size)


def test_characteristic_stability_of_a_category() -> None:
    result = MONTHS.roc.psi("month", baseline=2, columns="channel", score=None)
    shares = {
        month: MONTHS.filter(pl.col("month") == month)["channel"].value_counts(normalize=True)
        for month in (1, 2, 3)
    }
    for month, value in zip(result["month"], result["psi"]):
        joined = shares[month].join(shares[2], on="channel", suffix="_base")
        a, e = joined["proportion"].to_numpy(), joined["proportion_base"].to_numpy()
        assert value == pytest.approx(float(((a - e) * np.log(a / e)).sum()), abs=1e-12)
    assert result.filter(pl.col("month") == 2)["psi"].item() == 0.0
    assert result.filter(pl.col("month") == 3)["level"].item() in ("moderate", "shift")


@pytest.mark.parametrize("engine", ["eager", "lazy", "duckdb"])
def test_a_missing_value_is_not_the_category_null(engine: str) -> None:
    # Keyed by their text, the value "null" and the missing values were one bin: psi 0.
    frame = pl.DataFrame({"month": [1] * 3 + [2] * 3, "cat": ["null"] * 3 + [None] * 3})
    source = {"eager": frame, "lazy": frame.lazy(), "duckdb": duckdb.from_arrow(frame.to_arrow())}
    result = pr.psi(source[engine], "month", columns="cat", score=None, detail=True)
    detail = result.lazy().collect()
    # The missing values' bin first (as a numeric column's), then the categories.
    assert detail.filter(pl.col("month") == 2).select("bin", "n", "baseline_share").rows() == [
        ("null", 3, 0.0),
        ("null", 0, 1.0),
    ]
    psi = pr.psi(source[engine], "month", columns="cat", score=None).lazy().collect()
    shift = 2 * (1 - EMPTY_SHARE) * np.log(1 / EMPTY_SHARE)
    assert psi["psi"].to_list() == [0.0, pytest.approx(shift, rel=1e-12)]


def test_hand_computed_with_an_empty_bin() -> None:
    frame = pl.DataFrame(
        {"month": [1] * 4 + [2] * 4, "score": [0.1, 0.2, 0.3, 0.4, 0.35, 0.4, 0.4, 0.5]}
    )
    # Baseline medians split at 0.25: shares (1/2, 1/2); month 2 (0, 1) -> 1e-4 for the empty.
    detail = frame.roc.psi("month", n_bins=2, detail=True).filter(pl.col("month") == 2)
    assert detail["share"].to_list() == [0.0, 1.0]
    psi = (EMPTY_SHARE - 0.5) * np.log(EMPTY_SHARE / 0.5) + 0.5 * np.log(2.0)
    value = frame.roc.psi("month", n_bins=2).filter(pl.col("month") == 2)
    assert value["psi"].item() == pytest.approx(psi, rel=1e-12)
    assert value["level"].item() == "shift"


def test_weights_and_segments_without_baseline() -> None:
    frame = MONTHS.with_columns(
        pl.when((pl.col("segment") == "sme") & (pl.col("month") == 1))
        .then(pl.lit("new"))
        .otherwise(pl.col("segment"))
        .alias("segment")
    )
    result = frame.roc.psi("month", by="segment", weight="weight")
    new = result.filter(pl.col("segment") == "sme")
    assert new["psi"].is_null().all() and new["level"].is_null().all()
    assert (new["n_baseline"] == 0).all()
    retail = result.filter(pl.col("segment") == "retail", pl.col("month") == 1)
    weights = MONTHS.filter(pl.col("segment") == "retail", pl.col("month") == 1)["weight"]
    assert retail["n"].item() == pytest.approx(weights.sum())


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 3), st.integers(0, 30)), min_size=1, max_size=60),
    st.integers(1, 6),
)
def test_psi_is_non_negative_and_zero_at_baseline(rows: list[tuple[int, int]], n_bins: int) -> None:
    frame = pl.DataFrame(
        {"period": [p for p, _ in rows], "score": [s / 30 for _, s in rows]},
        schema={"period": pl.Int64, "score": pl.Float64},
    )
    result = frame.roc.psi(n_bins=n_bins)
    assert (result["psi"] >= -1e-15).all()
    assert result["psi"][0] == 0.0
    base = frame.filter(pl.col("period") == frame["period"].min())["score"].to_numpy()
    for period, value in zip(result["period"], result["psi"]):
        current = frame.filter(pl.col("period") == period)["score"].to_numpy()
        assert value == pytest.approx(reference_psi(base, current, n_bins), abs=1e-12)


@pytest.mark.parametrize("detail", [False, True])
def test_eager_lazy_duckdb_agree(detail: bool) -> None:
    options = {"period": "month", "columns": ["channel"], "by": "segment", "detail": detail}
    eager = MONTHS.roc.psi(**options)
    lazy = MONTHS.lazy().roc.psi(**options)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    on_duckdb = pr.psi(duckdb.sql("select * from MONTHS"), **options)
    assert_frame_equal(on_duckdb, eager, check_exact=False, abs_tol=1e-12)


def test_bad_input() -> None:
    with pytest.raises(RocOptionError, match=r"baseline period 7 is absent from column 'month'"):
        MONTHS.roc.psi("month", baseline=7)
    with pytest.raises(RocOptionError, match="periods found: 1, 2, 3"):
        MONTHS.lazy().roc.psi("month", baseline=7)
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="quarter"):
        MONTHS.roc.psi("quarter")
    with pytest.raises(RocOptionError, match="n_bins"):
        MONTHS.roc.psi("month", n_bins=0)


# Regressions of the adversarial review of the validation views (FINDINGS.md).


@pytest.mark.parametrize("factor", [1 / 600, 1e-300, 0.5, 3.0, 1e200])
@pytest.mark.parametrize("by", [None, "segment"])
def test_weighted_psi_does_not_depend_on_the_weight_scale(factor: float, by: str | None) -> None:
    """Finding 1: weights summing to 1 gave a PSI of 0 (one bin)."""
    options = {"columns": "channel", "by": by, "weight": "weight"}
    expected = MONTHS.roc.psi("month", **options)
    result = MONTHS.with_columns(pl.col("weight") * factor).roc.psi("month", **options)
    assert_frame_equal(
        result.drop("n", "n_baseline"),
        expected.drop("n", "n_baseline"),
        check_exact=False,
        rel_tol=1e-9,
        abs_tol=1e-12,
    )


@pytest.mark.parametrize("constant", [1 / 600, 0.5, 3.0])
def test_equal_weights_give_the_unweighted_psi(constant: float) -> None:
    expected = MONTHS.roc.psi("month", by="segment")
    result = MONTHS.with_columns(weight=pl.lit(constant)).roc.psi(
        "month", by="segment", weight="weight"
    )
    assert_frame_equal(
        result.drop("n", "n_baseline"),
        expected.drop("n", "n_baseline"),
        check_exact=False,
        rel_tol=1e-9,
        abs_tol=1e-12,
    )


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 2), st.integers(0, 8), st.integers(1, 40)), min_size=2),
    st.integers(2, 5),
    st.sampled_from([1e-6, 0.1, 3.0, 1e6]),
)
def test_psi_weight_scale_property(
    rows: list[tuple[int, int, int]], n_bins: int, factor: float
) -> None:
    frame = pl.DataFrame(
        {
            "month": [m for m, _, _ in rows],
            "score": [s / 8 for _, s, _ in rows],
            "weight": [w / 7 for *_, w in rows],
        }
    )
    expected = frame.roc.psi("month", n_bins=n_bins, weight="weight")["psi"]
    result = frame.with_columns(pl.col("weight") * factor).roc.psi(
        "month", n_bins=n_bins, weight="weight"
    )["psi"]
    np.testing.assert_allclose(result.to_numpy(), expected.to_numpy(), rtol=1e-9, atol=1e-12)


NAN = pl.DataFrame(
    {
        "month": [1] * 20 + [2] * 20,
        "score": [float("nan")] * 3 + [0.5] * 37,
        "x": [0.1] * 39 + [float("nan")],
    }
)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("unit", ["count", "weight"])
def test_a_period_of_no_rows_has_no_psi(engine: str, unit: str) -> None:
    """A period (or a baseline given) whose rows all count 0 has no shares: psi and level are
    null, as for a group without baseline rows; it read NaN, level "shift" (and share
    NaN in the detail)."""
    frame = pl.DataFrame({"score": [0.1, 0.5, 0.9, 0.3], "month": [1, 1, 1, 2]})
    for counts, empty in (([1, 1, 1, 0], 2), ([0, 0, 0, 1], 1)):
        table = frame.with_columns(
            pl.Series("c", counts, pl.Int64 if unit == "count" else pl.Float64)
        )
        source = table if engine == "polars" else duckdb.from_arrow(table.to_arrow())
        options: dict[str, Any] = {"n_bins": 3, unit: "c", "baseline": 1}
        row = pr.psi(source, "month", **options).filter(pl.col("month") == 2).row(0, named=True)
        assert (row["psi"], row["level"]) == (None, None)
        detail = pr.psi(source, "month", detail=True, **options).filter(pl.col("month") == empty)
        assert detail["share" if empty == 2 else "baseline_share"].null_count() == detail.height
        assert detail["psi"].null_count() == detail.height


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_first_baseline_is_the_first_period_holding_rows(engine: str) -> None:
    """A first period of zero counts only has no shares: baseline="first" took it, and
    every psi was null; the expanded rows start a period later."""
    table = pl.DataFrame(
        {
            "score": [0.2, 0.1, 0.5, 0.9, 0.3, 0.8],
            "month": [1, 2, 2, 2, 3, 3],
            "c": [0, 1, 1, 1, 1, 1],
        }
    )
    source = table if engine == "polars" else duckdb.from_arrow(table.to_arrow())
    expanded = table.select(pl.exclude("c").repeat_by("c").explode()).drop_nulls()
    counted = pr.psi(source, "month", n_bins=3, count="c").filter(pl.col("n") > 0)
    assert_frame_equal(counted, pr.psi(expanded, "month", n_bins=3), check_dtypes=False)
    assert counted["psi"].null_count() == 0


def test_nan_is_refused_naming_the_column() -> None:
    """Finding 5: NaN went silently into the null bin."""
    with pytest.raises(RocInputError, match="score column 'score' has 3 NaN"):
        NAN.roc.psi("month")
    with pytest.raises(RocInputError, match="characteristic column 'x' has 1 NaN"):
        NAN.roc.psi("month", score=None, columns="x")
    on_duckdb = duckdb.sql("select * from NAN")
    with pytest.raises(RocInputError, match="score column 'score' has 3 NaN"):
        pr.psi(on_duckdb, "month")


CLASH = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "g": list("aabb"), "month": [1, 1, 2, 2]})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda f: f.rename({"month": "n"}).roc.psi("n"), "`period`.*'n'"),
        (lambda f: f.rename({"month": "level"}).roc.psi("level"), "`period`.*'level'"),
        (lambda f: f.rename({"g": "bin"}).roc.psi("month", by="bin", detail=True), "`by`.*'bin'"),
        (
            lambda f: f.rename({"g": "share"}).roc.psi("month", by="share", detail=True),
            "`by`.*'share'",
        ),
        (lambda f: f.roc.psi("month", columns="month"), "`period` column 'month' is also"),
        (lambda f: f.roc.psi("score"), "`period` column 'score' is also"),
        (lambda f: f.roc.psi("month", columns="score"), "`columns` names \\['score'\\] twice"),
        (lambda f: f.roc.psi("month", detail="yes"), "`detail` must be True or False"),
    ],
)
def test_psi_clashes_are_refused_naming_the_option(call: Any, message: str) -> None:
    """Findings 8, 15, 16: DuplicateError, SchemaError, a block twice, detail='yes'."""
    with pytest.raises((RocOptionError, TypeError), match=message):
        call(CLASH)


def test_psi_refuses_a_list_column_and_null_periods() -> None:
    with pytest.raises(RocInputError, match="characteristic column 'l' has dtype List"):
        CLASH.with_columns(l=pl.concat_list("score")).roc.psi("month", columns="l")
    nulls = CLASH.with_columns(month=pl.Series([None, 1, 2, 2]))
    with pytest.raises(RocInputError, match="period column 'month' has 1 row"):
        nulls.roc.psi("month")


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_psi_missing_columns_are_named_by_option(engine: str) -> None:
    """Findings 10, 14: 'column column', and another message on DuckDB."""
    frame = CLASH if engine == "polars" else duckdb.sql("select * from CLASH")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"^period column 'zz'"):
        pr.psi(frame, "zz")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"^characteristic column 'zz'"):
        pr.psi(frame, "month", columns="zz")


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("unit", [{"weight": "weight"}, {"count": "times"}])
def test_weights_or_counts_are_checked_once_a_call(
    monkeypatch: pytest.MonkeyPatch, engine: str, unit: dict[str, str]
) -> None:
    # Each compared column is counted where the rows live; the weights (or counts) are
    # the same for all of them, so their check (a query of its own on an engine) runs once.
    from polars_roc.core import counting

    months = MONTHS.with_columns(times=pl.col("month") % 2 + 1)
    frame = months if engine == "polars" else duckdb.from_arrow(months.to_arrow())
    calls = {"checks": 0, "counts": 0}

    def counted(name: str, function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(counting, "raise_on_units", counted("checks", counting.raise_on_units))
    monkeypatch.setattr(counting, "count_values", counted("counts", counting.count_values))
    monkeypatch.setattr(
        "polars_roc.views.stability.count_values", counting.count_values, raising=True
    )
    pr.psi(frame, "month", columns=["channel", "segment"], **unit)
    assert calls == {"checks": 1, "counts": 3}
    bad = months.with_columns(pl.col(*unit.values()) * (1 - 2 * (pl.col("month") == 3)))
    source = bad if engine == "polars" else duckdb.from_arrow(bad.to_arrow())
    with pytest.raises(RocInputError, match=f"{next(iter(unit))} column .* negative"):
        pr.psi(source, "month", columns=["channel", "segment"], **unit)
