"""``disparity`` and ``disparity_summary``: fairlearn's definitions, hand-computed.

fairlearn is not a dependency: its definitions (MetricFrame's by_group, difference to
overall or to a group, ratio; demographic parity and equalized odds differences and
ratios between groups) are computed here by brute force with numpy.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocOptionError
from polars_roc.views.disparity import SUMMARY

duckdb = pytest.importorskip("duckdb")


def rates(frame: pl.DataFrame, threshold: float, weight: str | None = None) -> dict:
    """fairlearn's metrics of ``y_pred = score >= threshold`` (weighted if asked)."""
    y = frame["label"].to_numpy() == 1
    pred = frame["score"].to_numpy() >= threshold
    w = np.ones(len(y)) if weight is None else frame[weight].to_numpy()
    tp, fp = w[pred & y].sum(), w[pred & ~y].sum()
    p, n = w[y].sum(), w[~y].sum()
    return {
        "selection_rate": (tp + fp) / (p + n),
        "tpr": tp / p,
        "fpr": fp / n,
        "ppv": tp / (tp + fp),
    }


@pytest.mark.parametrize("reference", ["overall", "north"])
def test_against_brute_force(log: pl.DataFrame, weight: str | None, reference: str) -> None:
    got = log.roc.disparity(0.5, group="segment", by="month", weight=weight, reference=reference)
    assert got.columns == ["month", "measure", "group", "value", "difference", "ratio"]
    assert got["measure"].unique(maintain_order=True).to_list() == [
        "tpr",
        "fpr",
        "ppv",
        "selection_rate",
    ]
    for row in got.iter_rows(named=True):
        month = log.filter(pl.col("month") == row["month"])
        value = rates(month.filter(pl.col("segment") == row["group"]), 0.5, weight)[row["measure"]]
        base_rows = (
            month if reference == "overall" else month.filter(pl.col("segment") == reference)
        )
        base = rates(base_rows, 0.5, weight)[row["measure"]]
        assert row["value"] == pytest.approx(value, rel=1e-12)
        assert row["difference"] == pytest.approx(value - base, rel=1e-9, abs=1e-14)
        assert row["ratio"] == pytest.approx(value / base, rel=1e-12)


def test_summary_is_fairlearns(log: pl.DataFrame) -> None:
    got = log.roc.disparity_summary(0.45, group="segment", by="month")
    for row in got.iter_rows(named=True):
        month = log.filter(pl.col("month") == row["month"])
        per_group = [
            rates(month.filter(pl.col("segment") == s), 0.45) for s in ("east", "north", "south")
        ]
        spread = {m: [r[m] for r in per_group] for m in ("selection_rate", "tpr", "fpr")}
        assert row["demographic_parity_difference"] == pytest.approx(
            max(spread["selection_rate"]) - min(spread["selection_rate"])
        )
        assert row["demographic_parity_ratio"] == pytest.approx(
            min(spread["selection_rate"]) / max(spread["selection_rate"])
        )
        assert row["equalized_odds_difference"] == pytest.approx(
            max(max(v) - min(v) for k, v in spread.items() if k != "selection_rate")
        )
        assert row["equalized_odds_ratio"] == pytest.approx(
            min(min(v) / max(v) for k, v in spread.items() if k != "selection_rate")
        )


def test_threshold_per_segment(log: pl.DataFrame) -> None:
    got = log.roc.disparity({1: 0.3, 2: 0.6}, group="segment", by="month", measures=["tpr"])
    for row in got.iter_rows(named=True):
        t = 0.3 if row["month"] == 1 else 0.6
        part = log.filter((pl.col("month") == row["month"]) & (pl.col("segment") == row["group"]))
        assert row["value"] == pytest.approx(rates(part, t)["tpr"])
    with pytest.raises(ValueError, match=r"no threshold for the log's segment\(s\)"):
        log.roc.disparity({1: 0.3}, group="segment", by="month")


def test_count_table_eager_lazy_duckdb(log: pl.DataFrame) -> None:
    expanded = log.select(pl.exclude("count").repeat_by(log["count"]).explode())
    counted = log.roc.disparity(
        0.5, group="segment", count="count", ci="bootstrap", n_boot=100, seed=3
    )
    assert_frame_equal(
        counted, expanded.roc.disparity(0.5, group="segment", ci="bootstrap", n_boot=100, seed=3)
    )
    kwargs = {"group": "segment", "by": "month", "ci": "bootstrap", "n_boot": 100, "seed": 4}
    eager = log.roc.disparity(0.5, **kwargs)
    assert_frame_equal(log.lazy().roc.disparity(0.5, **kwargs).collect(), eager)
    on_duckdb = pr.disparity(duckdb.sql("select * from log"), 0.5, **kwargs)
    assert_frame_equal(on_duckdb, eager, check_exact=False, rel_tol=1e-12)


def test_bootstrap_interval_of_the_difference(log: pl.DataFrame) -> None:
    got = log.roc.disparity(
        0.5, group="segment", reference="east", ci="bootstrap", n_boot=300, seed=1
    )
    assert got.columns[-2:] == ["ci_lower", "ci_upper"]
    own = got.filter(pl.col("group") == "east")
    # The reference against itself: a difference of 0 in every replicate.
    assert (own["ci_lower"] == 0.0).all() and (own["ci_upper"] == 0.0).all()
    others = got.filter(pl.col("group") != "east")
    assert (others["ci_lower"] <= others["ci_upper"]).all()


def test_errors(log: pl.DataFrame) -> None:
    with pytest.raises(
        ValueError, match=r"`measures` must be distinct names among .*got \['auc'\]"
    ):
        log.roc.disparity(group="segment", measures=["auc"])
    with pytest.raises(
        ValueError, match=r"`reference` value\(s\) \['west'\] not found in column 'segment'"
    ):
        log.roc.disparity(group="segment", reference="west")
    with pytest.raises(ValueError, match=r"must not be a `by` column"):
        log.roc.disparity(group="segment", by="segment")
    with pytest.raises(ValueError, match=r"`threshold` must be one number .*got \[0\.2, 0\.4\]"):
        log.roc.disparity([0.2, 0.4], group="segment")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"`ci` must be 'bootstrap', got 'delong'"):
        log.roc.disparity(group="segment", ci="delong")
    with pytest.raises(ValueError, match=r"`group` must be a column name \(str\), got None"):
        log.roc.disparity(group=None)  # type: ignore[arg-type]


# --- disparity_chart --------------------------------------------------------------------


def _chart_log() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "score": [0.9, 0.7, 0.6, 0.4, 0.8, 0.3, 0.65, 0.2] * 2,
            "label": [1, 1, 0, 0, 1, 0, 1, 0] * 2,
            "sex": ["f", "f", "f", "f", "m", "m", "m", "m"] * 2,
            "region": ["n"] * 8 + ["s"] * 8,
        }
    )


def test_disparity_chart_differences_with_intervals() -> None:
    frame = pr.disparity(_chart_log(), 0.5, group="sex", ci="bootstrap", n_boot=20, seed=1)
    spec = pr.disparity_chart(frame).to_dict()
    marks = [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        for layer in spec["layer"]
    ]
    assert marks == ["rule", "rule", "point"]
    zero, bars, points = spec["layer"]
    assert zero["encoding"]["x"] == {"datum": 0}
    assert (bars["encoding"]["x"]["field"], bars["encoding"]["x2"]["field"]) == (
        "ci_lower",
        "ci_upper",
    )
    assert points["encoding"]["x"]["field"] == "difference"
    assert points["encoding"]["yOffset"]["field"] == "group"
    rows = spec["datasets"][spec["data"]["name"]]
    assert len(rows) == frame.height
    assert {(r["measure"], r["group"]) for r in rows} == set(
        frame.select("measure", "group").iter_rows()
    )


def test_disparity_chart_values_and_facets() -> None:
    frame = pr.disparity(_chart_log(), 0.5, group="sex", by="region")
    spec = pr.disparity_chart(frame, show="value", facet="region", columns=2).to_dict()
    assert spec["facet"]["field"] == "_panel" and spec["columns"] == 2
    layers = spec["spec"]["layer"]
    assert [layer["mark"]["type"] for layer in layers] == ["point"]
    assert layers[0]["encoding"]["x"]["field"] == "value"
    assert {r["_panel"] for r in spec["datasets"][spec["data"]["name"]]} == {"n", "s"}


def test_disparity_chart_errors() -> None:
    frame = pr.disparity(_chart_log(), 0.5, group="sex", by="region")
    with pytest.raises(ValueError, match=r"segment column\(s\) \['region'\]: pass facet="):
        pr.disparity_chart(frame)
    with pytest.raises(ValueError, match=r"`facet` must name a segment column"):
        pr.disparity_chart(frame, facet="nope")
    with pytest.raises(ValueError, match=r"`show` must be 'difference' or 'value', got 'ratio'"):
        pr.disparity_chart(frame, show="ratio")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['difference'\]"):
        pr.disparity_chart(frame.drop("difference"), facet="region")


def test_ci_method_is_checked_with_a_message_naming_it() -> None:
    # Finding 15: a TypeError (unexpected keyword) before. BCa itself: test_bca_rates.py.
    df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1], "g": list("abab")})
    with pytest.raises(ValueError, match=r"^`ci_method` must be 'percentile' or 'bca', got 'bc'"):
        df.roc.disparity(group="g", ci="bootstrap", ci_method="bc")
    with pytest.raises(ValueError, match=r"ci_method='bca' .* but ci=None; pass ci='bootstrap'"):
        df.roc.disparity(group="g", ci_method="bca")
    assert df.roc.disparity(group="g", ci_method="percentile").height == 8


def test_group_column_is_named_as_group() -> None:
    # Finding 14: reported as "by column 'zz' not found" / "`by` column(s) collide".
    df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1], "g": list("abab")})
    for source in (df, df.lazy(), duckdb.sql("select * from df")):
        with pytest.raises(
            pl.exceptions.ColumnNotFoundError, match=r"^`group` column 'zz' not found"
        ):
            pr.disparity(source, group="zz")
    with pytest.raises(RocOptionError, match=r"^`group` column 'measure' collides"):
        df.rename({"g": "measure"}).roc.disparity(group="measure")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"^`group` column 'zz'"):
        df.roc.disparity_summary(group="zz")


def test_summary_of_an_empty_input_has_no_rows() -> None:
    # Finding 11: one row of nulls before; the design asks for an empty frame.
    empty = pl.DataFrame(schema={"score": pl.Float64, "label": pl.Int64, "g": pl.String})
    for source in (empty, empty.lazy()):
        got = pr.disparity_summary(source, group="g")
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        assert got.height == 0 and got.columns == SUMMARY


def test_help_of_the_summary_expands_its_roles() -> None:
    # Finding 17: "threshold, group, score, ... As in :func:`disparity`".
    doc = pl.DataFrame().roc.disparity_summary.__doc__ or ""
    assert "As in :func:`disparity`" not in doc
    assert "\nscore\n    Column of classifier scores" in doc
    assert "\ngroup\n    The column whose groups are compared" in doc
    threshold = (pl.DataFrame().roc.disparity.__doc__ or "").partition("\nthreshold\n")[2]
    assert "One threshold per segment.\n" not in threshold.partition("\ngroup\n")[0]


@pytest.mark.parametrize("role", ["score", "label", "weight"])
def test_a_group_that_is_another_role_is_named_as_the_group(role: str) -> None:
    """The group column is counted as one more `by` column: a group that is the label
    was refused as 'given as both label and by; pass a copy as the by'."""
    frame = pl.DataFrame({"score": [0.2, 0.7], "label": [0, 1], "w": [1.0, 2.0]})
    column = {"score": "score", "label": "label", "weight": "w"}[role]
    options = {"weight": "w"} if role == "weight" else {}
    message = f"column '{column}' is given as both {role} and group; .* as the group"
    for view in (pr.disparity, pr.disparity_summary):
        with pytest.raises(RocOptionError, match=message):
            view(frame, 0.5, group=column, **options)
