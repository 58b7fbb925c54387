"""KS statistic, gains table and lift curve against brute force and scipy."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy.stats import ks_2samp

import polars_roc as pr
from tests._reference import groups, naive_curve


def collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def by_list(by: str | list[str] | None) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else by


def per_group(log: pl.DataFrame, cols: list[str]):
    keys = [log[c].to_list() for c in cols] if cols else [[0] * log.height]
    for key, mask in groups(keys):
        yield (key if cols else ()), log.filter(pl.Series(mask))


def test_ks_by_brute_force(log, as_kind, by, weight):
    cols = by_list(by)
    result = collect(pr.ks_statistic(as_kind(log), by=by, weight=weight))
    via_expr = (
        log.group_by(cols, maintain_order=True)
        .agg(pr.ks("score", "label", weight))
        .sort(cols, nulls_last=False)
        if cols
        else log.select(pr.ks("score", "label", weight))
    )
    for (key, part), row, expr_value in zip(
        per_group(log, cols), result.iter_rows(named=True), via_expr["ks"]
    ):
        assert tuple(row[c] for c in cols) == key
        w = None if weight is None else part[weight].to_numpy()
        curve = naive_curve(part["score"].to_numpy(), part["label"].to_numpy() == 1, w)
        gaps = [t - f for t, f in zip(curve["tpr"], curve["fpr"])]
        best = max(gaps)
        assert row["ks"] == pytest.approx(best, abs=1e-12)
        assert expr_value == pytest.approx(best, abs=1e-12)
        first = next(i for i, g in enumerate(gaps) if g >= best - 1e-12)
        assert row["threshold"] == curve["threshold"][first]


def test_ks_matches_scipy_two_sample_statistic(log):
    # For a better-than-chance model the largest gap is in the positive direction, so
    # max(tpr - fpr) is scipy's two-sided statistic max |F_neg - F_pos|.
    positives = log.filter(pl.col("label") == 1)["score"].to_numpy()
    negatives = log.filter(pl.col("label") == 0)["score"].to_numpy()
    expected = ks_2samp(positives, negatives).statistic
    assert pr.ks_statistic(log)["ks"][0] == pytest.approx(expected, abs=1e-12)
    assert log.select(pr.ks()).item() == pytest.approx(expected, abs=1e-12)


def test_ks_is_one_sided_where_scipy_is_two_sided():
    # Better than chance at the top (0.9 is positive), worse below: the largest gap is
    # fpr - tpr = 2/3, scipy's statistic; ks reads the positive direction only (1/3).
    frame = pl.DataFrame({"score": [0.9, 0.1, 0.2, 0.5, 0.6, 0.7], "label": [1, 1, 1, 0, 0, 0]})
    two_sided = ks_2samp([0.9, 0.1, 0.2], [0.5, 0.6, 0.7]).statistic
    assert two_sided == pytest.approx(2 / 3)
    assert pr.ks_statistic(frame)["ks"][0] == pytest.approx(1 / 3, abs=1e-12)


def test_ks_of_a_reversed_model_is_zero_at_infinity():
    frame = pl.DataFrame({"score": [0.1, 0.2, 0.8, 0.9], "label": [1, 1, 0, 0]})
    row = pr.ks_statistic(frame).row(0, named=True)
    assert (row["ks"], row["threshold"]) == (0.0, math.inf)
    assert frame.select(pr.ks()).item() == 0.0


def test_ks_single_class_and_invalid_expression_groups():
    frame = pl.DataFrame({"g": ["a", "a", "b"], "score": [0.9, 0.1, 0.5], "label": [1, 0, 1]})
    with pytest.warns(UserWarning, match="only one class"):
        result = pr.ks_statistic(frame, by="g")
    assert result["ks"].to_list() == [1.0, None]
    assert frame.group_by("g", maintain_order=True).agg(pr.ks())["ks"].to_list() == [1.0, None]
    bad = pl.DataFrame({"score": [0.9, float("nan")], "label": [1, 0]})
    assert bad.select(pr.ks()).item() is None


def brute_force_gains(score, is_pos, weight, n_bins):
    """Gains table rows from the definition: sort, cut by quantile of the run start."""
    score = np.asarray(score, dtype=float)
    w = np.ones(len(score)) if weight is None else np.asarray(weight, dtype=float)
    n, n_pos, n_neg = w.sum(), w[is_pos].sum(), w[~is_pos].sum()
    rows, above, current = [], 0.0, None
    for s in sorted(set(score[w > 0].tolist()), reverse=True):
        at = (score == s) & (w > 0)
        quantile = math.floor(above * n_bins / n)
        if current is None or quantile != current["quantile"]:
            current = {"quantile": quantile, "scores": [], "pos": 0.0, "neg": 0.0}
            rows.append(current)
        current["scores"].append(s)
        current["pos"] += w[at & is_pos].sum()
        current["neg"] += w[at & ~is_pos].sum()
        above += w[at].sum()
    table, cum_pos, cum_neg = [], 0.0, 0.0
    for i, row in enumerate(rows, start=1):
        cum_pos += row["pos"]
        cum_neg += row["neg"]
        count = row["pos"] + row["neg"]
        table.append(
            {
                "bin": i,
                "score_min": min(row["scores"]),
                "score_max": max(row["scores"]),
                "count": count,
                "pos": row["pos"],
                "neg": row["neg"],
                "rate": row["pos"] / count,
                "cum_count": cum_pos + cum_neg,
                "cum_pos": cum_pos,
                "cum_neg": cum_neg,
                "capture": cum_pos / n_pos,
                "lift": (row["pos"] / count) / (n_pos / n),
                "cum_lift": (cum_pos / (cum_pos + cum_neg)) / (n_pos / n),
                "ks": cum_pos / n_pos - cum_neg / n_neg,
            }
        )
    return table


@pytest.mark.parametrize("n_bins", [10, 4])
def test_gains_table_by_brute_force(log, as_kind, by, weight, n_bins):
    cols = by_list(by)
    result = collect(pr.gains_table(as_kind(log), n_bins, by=by, weight=weight))
    parts = dict(result.group_by(cols, maintain_order=True)) if cols else {(): result}
    for key, part in per_group(log, cols):
        w = None if weight is None else part[weight].to_numpy()
        expected = brute_force_gains(part["score"], part["label"].to_numpy() == 1, w, n_bins)
        got = parts[key]
        assert got.height == len(expected) <= n_bins
        for name in expected[0]:
            np.testing.assert_allclose(
                got[name].cast(pl.Float64),
                [row[name] for row in expected],
                rtol=1e-12,
                atol=1e-12,
                err_msg=name,
            )


def test_gains_keeps_ties_in_one_bin():
    # 10 rows, half of them tied at 0.5: deciles would cut the tie; it stays whole.
    frame = pl.DataFrame(
        {
            "score": [0.9, 0.8, 0.5, 0.5, 0.5, 0.5, 0.5, 0.3, 0.2, 0.1],
            "label": [1, 1, 1, 0, 1, 0, 0, 1, 0, 0],
        }
    )
    table = pr.gains_table(frame)
    assert table["bin"].to_list() == [1, 2, 3, 4, 5, 6]
    assert table["count"].to_list() == [1, 1, 5, 1, 1, 1]
    tied = table.filter(pl.col("score_min") == 0.5).row(0, named=True)
    assert (tied["score_max"], tied["pos"], tied["neg"]) == (0.5, 2, 3)
    assert table["capture"][-1] == 1.0
    assert table["ks"][-1] == 0.0
    assert table["cum_lift"][-1] == 1.0


def test_lift_curve_by_brute_force(log, as_kind, by, weight):
    cols = by_list(by)
    result = collect(pr.lift_curve(as_kind(log), by=by, weight=weight))
    parts = dict(result.group_by(cols, maintain_order=True)) if cols else {(): result}
    for key, part in per_group(log, cols):
        w = None if weight is None else part[weight].to_numpy()
        is_pos = part["label"].to_numpy() == 1
        curve = naive_curve(part["score"].to_numpy(), is_pos, w)
        tp, fp = np.array(curve["tp"][1:]), np.array(curve["fp"][1:])  # no +inf start
        weights = np.ones(part.height) if w is None else w
        n, n_pos = weights.sum(), weights[is_pos].sum()
        got = parts[key]
        np.testing.assert_allclose(got["threshold"], curve["threshold"][1:])
        np.testing.assert_allclose(got["depth"], (tp + fp) / n, rtol=1e-12)
        np.testing.assert_allclose(got["capture"], tp / n_pos, rtol=1e-12)
        np.testing.assert_allclose(got["lift"], (tp / (tp + fp)) / (n_pos / n), rtol=1e-12)


def test_namespace_matches_functions(log):
    assert_frame_equal(log.roc.ks(by="segment"), pr.ks_statistic(log, by="segment"))
    assert_frame_equal(log.roc.gains(5, by="segment"), pr.gains_table(log, 5, by="segment"))
    assert_frame_equal(log.lazy().roc.lift().collect(), pr.lift_curve(log))


def test_empty_input():
    empty = pl.DataFrame(schema={"score": pl.Float64, "label": pl.Int64})
    assert pr.ks_statistic(empty).height == 0
    assert pr.gains_table(empty).height == 0
    assert pr.lift_curve(empty).height == 0


@pytest.mark.parametrize("n_bins", [0, -3, 2.5, True, "10"])
def test_gains_bins_error(log, n_bins):
    with pytest.raises(ValueError, match="`n_bins` must be a positive integer"):
        pr.gains_table(log, n_bins)


@settings(max_examples=30, deadline=None)
@given(
    data=st.integers(1, 40).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 8), min_size=n, max_size=n),
            st.lists(st.booleans(), min_size=n, max_size=n),
        )
    ),
    n_bins=st.integers(1, 12),
)
def test_gains_properties(data, n_bins):
    score, label = data
    frame = pl.DataFrame({"score": score, "label": label})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        table = pr.gains_table(frame, n_bins)
    assert 1 <= table.height <= n_bins
    assert table["bin"].to_list() == list(range(1, table.height + 1))
    assert table["count"].sum() == len(score)
    # Bins cover disjoint score ranges, highest first: no tie is split.
    assert (table["score_min"] <= table["score_max"]).all()
    assert (table["score_max"].shift(-1).drop_nulls() < table["score_min"].head(-1)).all()
    assert table["cum_count"][-1] == len(score)


@pytest.mark.parametrize("weight", [0.1, 0.3, 1.1, 1e-3])
def test_constant_weights_give_the_bins_of_the_rows(weight):
    # Float sums of weights fell on either side of the quantile edges: rows moved
    # between deciles (ten weights of 0.1: nine bins, one of two rows).
    frame = pl.DataFrame({"score": np.arange(30) / 30, "label": np.arange(30) % 2})
    weighted = pr.gains_table(frame.with_columns(w=pl.lit(weight)), 10, weight="w")
    rows = pr.gains_table(frame, 10)
    assert weighted["score_min"].to_list() == rows["score_min"].to_list()
    assert weighted["capture"].to_numpy() == pytest.approx(rows["capture"].to_numpy(), abs=1e-12)


def test_huge_counts_are_binned_exactly():
    # above * n_bins overflowed Int64 for counts near their limit: 8 bins of 7 asked.
    frame = pl.DataFrame({"score": np.arange(12) / 12, "label": np.arange(12) % 2})
    counted = pr.gains_table(frame.with_columns(c=pl.lit(2**59)), 7, count="c")
    rows = pr.gains_table(frame, 7)
    assert counted["score_min"].to_list() == rows["score_min"].to_list()
    assert (counted["count"] // 2**59).to_list() == rows["count"].to_list()
