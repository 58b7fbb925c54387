"""Comparing models: long-format paired tests, named sides, one interval keyword.

- :func:`polars_roc.compare_long` pairs the rows of two models by a case id and runs the
  paired test; it refuses logs whose cases do not pair up.
- :func:`polars_roc.compare_groups` warns when the two groups share case ids.
- ``model_a``/``model_b`` and ``group_a``/``group_b`` say what ``auc_a``/``auc_b`` are of.
- ``ci=`` is the interval keyword of the comparisons; ``method=`` is a deprecated alias.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr

FIXTURES = Path(__file__).parent / "fixtures"
WIDE = pl.read_csv(FIXTURES / "proc_data.csv").with_row_index("case")
LONG = WIDE.unpivot(
    ["score_a", "score_b"],
    index=["case", "group", "label"],
    variable_name="model",
    value_name="score",
)
MODELS = ("score_a", "score_b")


def _collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


@pytest.mark.parametrize("kind", ["eager", "lazy"])
@pytest.mark.parametrize("by", [None, "group"])
@pytest.mark.parametrize("ci", ["delong", "bootstrap"])
def test_compare_long_is_the_paired_test_on_the_wide_log(kind: str, by, ci: str) -> None:
    boot = {"n_boot": 300, "seed": 4} if ci == "bootstrap" else {}
    wide = pr.compare(WIDE, list(MODELS), by=by, ci=ci, **boot)
    shuffled = LONG.sample(fraction=1.0, shuffle=True, seed=1)  # pairs found by case id
    frame = shuffled if kind == "eager" else shuffled.lazy()
    long = pr.compare_long(frame, MODELS, case="case", by=by, ci=ci, **boot)
    assert isinstance(long, pl.LazyFrame) == (kind == "lazy")
    assert_frame_equal(_collect(long), wide)
    assert wide["model_a"].unique().to_list() == ["score_a"]
    assert wide["model_b"].unique().to_list() == ["score_b"]
    via_namespace = LONG.roc.compare_long(MODELS, case="case", by=by, ci=ci, **boot)
    assert_frame_equal(via_namespace, wide)


def test_compare_long_differs_from_the_unpaired_test() -> None:
    # The case: the unpaired test on a long log overstates se.
    paired = pr.compare_long(LONG, MODELS, case="case")
    unpaired = pr.compare_groups(LONG, by="model", groups=MODELS)
    assert paired["diff"][0] == pytest.approx(unpaired["diff"][0], abs=1e-12)
    assert paired["se"][0] < unpaired["se"][0]


def test_compare_long_keeps_model_values_and_their_dtype() -> None:
    coded = LONG.with_columns(pl.col("model").replace_strict({"score_a": 1, "score_b": 2}))
    out = pr.compare_long(coded, (2, 1), case="case")
    assert out.select("model_a", "model_b").row(0) == (2, 1)
    assert out.schema["model_a"] == coded.schema["model"]
    swapped = pr.compare(WIDE, ["score_b", "score_a"])
    assert out["diff"][0] == pytest.approx(swapped["diff"][0], abs=1e-12)


@pytest.mark.parametrize("kind", ["eager", "lazy"])
def test_compare_long_refuses_cases_that_do_not_pair_up(kind: str) -> None:
    def run(frame: pl.DataFrame) -> None:
        data = frame if kind == "eager" else frame.lazy()
        pr.compare_long(data, MODELS, case="case")

    unmatched = LONG.filter(~((pl.col("model") == "score_b") & pl.col("case").is_in([3, 7])))
    with pytest.raises(
        ValueError,
        match=r"cases in 'case' do not pair up between models "
        r"'score_a' and 'score_b': 2 case\(s\) only under 'score_a' "
        r"\(e\.g\. \[3, 7\]\)\. A paired test needs each case exactly once",
    ):
        run(unmatched)
    twice = pl.concat([LONG, LONG.filter(pl.col("case") == 5)])
    with pytest.raises(
        ValueError,
        match=r"1 case\(s\) more than once under one model "
        r"\(e\.g\. \[5\]\)",
    ):
        run(twice)
    relabelled = LONG.with_columns(
        pl.when((pl.col("case") == 9) & (pl.col("model") == "score_b"))
        .then(1 - pl.col("label"))
        .otherwise(pl.col("label"))
        .alias("label")
    )
    with pytest.raises(
        ValueError,
        match=r"1 case\(s\) with different 'label' under the two "
        r"models \(e\.g\. \[9\]\)",
    ):
        run(relabelled)
    with pytest.raises(
        ValueError, match="no rows of model 'score_a' or 'score_c' in column 'model'"
    ):
        pr.compare_long(
            LONG.filter(pl.col("model") == "score_b"), ("score_a", "score_c"), case="case"
        )
    # Pairs are looked for within each `by` group: a case in two groups does not pair.
    moved = LONG.with_columns(
        pl.when((pl.col("case") == 0) & (pl.col("model") == "score_b"))
        .then(pl.lit("elsewhere"))
        .otherwise(pl.col("group"))
        .alias("group")
    )
    with pytest.raises(
        ValueError,
        match=r"1 case\(s\) only under 'score_a' \(e\.g\. \[0\]\); "
        r"1 case\(s\) only under 'score_b' \(e\.g\. \[0\]\)",
    ):
        pr.compare_long(moved, MODELS, case="case", by="group")


def test_compare_long_argument_errors() -> None:
    with pytest.raises(
        ValueError,
        match=r"`models` must be two different values of the "
        r"'model' column, e\.g\. \('champion', 'challenger'\), got \('a',\)",
    ):
        pr.compare_long(LONG, ("a",), case="case")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="case column 'id' not found"):
        pr.compare_long(LONG, MODELS, case="id")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="model column 'mdl' not found"):
        pr.compare_long(LONG, MODELS, case="case", model="mdl")
    with pytest.raises(
        ValueError,
        match=r"`case` \('label'\) and `model` \('model'\) must "
        "be columns of their own",
    ):
        pr.compare_long(LONG, MODELS, case="label")
    with pytest.raises(TypeError, match="or a polars DataFrame or LazyFrame, got dict"):
        pr.compare_long(LONG.to_dict(), MODELS, case="case")


def test_compare_long_drops_a_case_missing_either_score() -> None:
    holes = LONG.with_columns(
        pl.when((pl.col("case") == 4) & (pl.col("model") == "score_a"))
        .then(None)
        .otherwise(pl.col("score"))
        .alias("score")
    )
    with pytest.raises(ValueError, match=r"null"):
        pr.compare_long(holes, MODELS, case="case")
    dropped = pr.compare_long(holes, MODELS, case="case", nulls="drop")
    expected = pr.compare(WIDE.filter(pl.col("case") != 4), list(MODELS))
    assert_frame_equal(dropped, expected)


# ------------------------------------------------------------------ compare_groups


def test_compare_groups_warns_when_groups_share_case_ids() -> None:
    with pytest.warns(
        UserWarning,
        match=r"groups 'score_a' and 'score_b' of 'model' share "
        r"240 case id\(s\) in 'case': the same cases scored twice are paired "
        r"data.*pr\.compare_long\(frame, \('score_a', 'score_b'\), "
        r"model='model', case='case', score='score'\)",
    ):
        pr.compare_groups(LONG, by="model", groups=MODELS, case="case")
    # Disjoint cases (two regions): no warning (pytest turns warnings into errors).
    out = pr.compare_groups(
        WIDE, by="group", groups=("north", "south"), score="score_a", case="case"
    )
    assert out.height == 1
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="case column 'id' not found"):
        pr.compare_groups(WIDE, by="group", groups=("north", "south"), score="score_a", case="id")


@pytest.mark.parametrize("ci", ["delong", "bootstrap"])
def test_compare_groups_names_its_sides(ci: str) -> None:
    boot = {"n_boot": 50, "seed": 1} if ci == "bootstrap" else {}
    out = pr.compare_groups(
        WIDE, by="group", groups=("south", "north"), score="score_a", ci=ci, **boot
    )
    assert out.columns[:4] == ["group_a", "group_b", "auc_a", "auc_b"]
    assert out.select("group_a", "group_b").row(0) == ("south", "north")
    per_group = dict(
        pr.roc_auc(WIDE, score="score_a", by="group").select("group", "auc").iter_rows()
    )
    assert out["auc_a"][0] == pytest.approx(per_group["south"], abs=1e-12)
    coded = WIDE.with_columns(pl.col("group").replace_strict({"north": 0, "south": 1}))
    halves = coded.with_columns(half=pl.col("case") % 2)
    within = pr.compare_groups(
        halves, by="group", groups=(1, 0), within="half", score="score_a", ci=ci, **boot
    )
    assert within.columns[:3] == ["half", "group_a", "group_b"]
    assert within.schema["group_a"] == coded.schema["group"]


# ------------------------------------------------------------------ names and keyword


def test_compare_names_the_score_columns() -> None:
    out = pr.compare(WIDE, ["score_b", "score_a"], by="group")
    assert out.columns[:3] == ["group", "model_a", "model_b"]
    assert out["model_a"].to_list() == ["score_b"] * 2
    auc = pr.roc_auc(WIDE, score="score_b", by="group")
    assert out["auc_a"].to_list() == pytest.approx(auc["auc"].to_list(), abs=1e-12)
    with pytest.raises(ValueError, match="collide with result columns"):
        pr.compare(WIDE.rename({"group": "model_a"}), list(MODELS), by="model_a")


@pytest.mark.parametrize("ci", ["delong", "bootstrap"])
def test_method_is_a_deprecated_alias_of_ci(ci: str) -> None:
    boot = {"n_boot": 50, "seed": 1} if ci == "bootstrap" else {}
    expected = pr.compare(WIDE, list(MODELS), ci=ci, **boot)
    with pytest.warns(
        DeprecationWarning,
        match=rf"`method=` of compare\(\) is deprecated; "
        rf"pass ci='{ci}' instead",
    ):
        old = pr.compare(WIDE, list(MODELS), method=ci, **boot)
    assert_frame_equal(old, expected)
    groups = {"by": "group", "groups": ("north", "south"), "score": "score_a"}
    with pytest.warns(DeprecationWarning, match=r"`method=` of compare_groups\(\)"):
        old = WIDE.roc.compare_groups(**groups, method=ci, **boot)
    assert_frame_equal(old, pr.compare_groups(WIDE, **groups, ci=ci, **boot))
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(
            ValueError,
            match=r"pass the interval method once, as `ci`; got "
            r"ci='bootstrap' and method='delong'",
        ),
    ):
        pr.compare(WIDE, list(MODELS), ci="bootstrap", method="delong")


def test_deprecation_warning_points_at_the_callers_line() -> None:
    with pytest.warns(DeprecationWarning) as record:
        pr.compare(WIDE, list(MODELS), method="delong")
    assert record[0].filename == __file__
    assert np.isfinite(pr.compare(WIDE, list(MODELS))["z"][0])


@pytest.mark.parametrize(
    "call",
    [
        lambda f, **k: pr.compare(f, ["a", "b"], by="g", **k),
        lambda f, **k: pr.compare_power(f, ["a", "b"], power=0.8, **k),
        lambda f, **k: pr.compare_power(f, ["a", "b"], by="g", **k),
    ],
    ids=["compare", "compare_power", "compare_power_by"],
)
def test_paired_views_give_the_same_bits_for_rows_cells_and_duckdb(call: Any) -> None:
    """Tied pairs of scores: k rows of a pair and a count table's cell of k rows sum to
    the same bits (a DeLong variance summed k v^2 once or v^2 k times differed), and so
    do Polars' two engines (one divided by the ungrouped totals as a reciprocal)."""
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(3)
    label = rng.integers(0, 2, 240)
    rows = pl.DataFrame(
        {
            "label": label,
            "a": np.round(rng.normal(label * 0.8, 1.0), 1),
            "b": np.round(rng.normal(label * 0.5, 1.0), 1),
            "g": rng.integers(0, 2, 240),
        }
    )
    expected = call(rows)
    cells = rows.group_by("label", "a", "b", "g").agg(pl.len().alias("c"))
    assert_frame_equal(call(cells, count="c"), expected, check_exact=True)
    assert_frame_equal(call(rows.sample(fraction=1.0, shuffle=True, seed=5)), expected)
    for engine in ("in-memory", "streaming"):  # a group's total divides as a column
        assert_frame_equal(call(rows.lazy()).collect(engine=engine), expected, check_exact=True)
    relation = duckdb.from_arrow(rows.to_arrow())
    assert_frame_equal(call(relation), expected, check_exact=True)
