"""Precision-recall curve and average precision against scikit-learn."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import average_precision_score, precision_recall_curve

import polars_roc as pr
from tests._reference import groups


def collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def by_list(by: str | list[str] | None) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else by


def per_group(log: pl.DataFrame, cols: list[str]):
    keys = [log[c].to_list() for c in cols] if cols else [[0] * log.height]
    for key, mask in groups(keys):
        yield (key if cols else ()), log.filter(pl.Series(mask))


@pytest.mark.parametrize("drop_intermediate", [False, True])
def test_pr_curve_matches_sklearn(log, as_kind, by, weight, drop_intermediate):
    cols = by_list(by)
    curve = collect(
        pr.pr_curve(as_kind(log), by=by, weight=weight, drop_intermediate=drop_intermediate)
    )
    parts = dict(curve.group_by(cols, maintain_order=True)) if cols else {(): curve}
    assert len(parts) == len(list(per_group(log, cols)))
    for key, members in per_group(log, cols):
        got = parts[key] if cols else curve
        w = None if weight is None else members[weight].to_numpy()
        precision, recall, thresholds = precision_recall_curve(
            members["label"],
            members["score"],
            sample_weight=w,
            drop_intermediate=drop_intermediate,
        )
        # scikit-learn: thresholds ascending, then the end point (precision 1, recall 0).
        np.testing.assert_allclose(got["precision"], precision[::-1], atol=1e-9)
        np.testing.assert_allclose(got["recall"], recall[::-1], atol=1e-9)
        np.testing.assert_allclose(got["threshold"][1:], thresholds[::-1], atol=0)
        assert got["threshold"][0] == np.inf


def test_average_precision_matches_sklearn(log, as_kind, by, weight):
    cols = by_list(by)
    result = collect(pr.pr_average_precision(as_kind(log), by=by, weight=weight))
    expressions = (
        log.group_by(cols, maintain_order=True)
        .agg(pr.average_precision("score", "label", weight))
        .sort(cols, nulls_last=False)
        if cols
        else log.select(pr.average_precision("score", "label", weight))
    )
    rows = list(result.iter_rows(named=True))
    assert len(rows) == len(list(per_group(log, cols)))
    for (key, members), row, via_expr in zip(
        per_group(log, cols), rows, expressions["average_precision"]
    ):
        assert tuple(row[c] for c in cols) == key
        w = None if weight is None else members[weight].to_numpy()
        expected = average_precision_score(members["label"], members["score"], sample_weight=w)
        assert row["average_precision"] == pytest.approx(expected, abs=1e-9)
        assert via_expr == pytest.approx(expected, abs=1e-9)


def test_pr_by_hand_with_ties():
    # Scores 0.8 (pos), 0.5 (pos, neg: a tie), 0.2 (neg): precision 1, 2/3, 2/4.
    frame = pl.DataFrame({"score": [0.8, 0.5, 0.5, 0.2], "label": [1, 1, 0, 0]})
    curve = pr.pr_curve(frame)
    assert curve["precision"].to_list() == pytest.approx([1.0, 1.0, 2 / 3, 0.5])
    assert curve["recall"].to_list() == pytest.approx([0.0, 0.5, 1.0, 1.0])
    # AP = 0.5 * 1 + 0.5 * 2/3: the tied positive counts at the run's precision.
    ap = pr.pr_average_precision(frame)["average_precision"][0]
    assert ap == pytest.approx(0.5 + 1 / 3)


def test_zero_weight_rows_are_left_out_as_sklearn_does():
    frame = pl.DataFrame(
        {
            "score": [0.95, 0.9, 0.7, 0.6, 0.4, 0.3],
            "label": [0, 1, 0, 1, 0, 1],
            "weight": [0.0, 2.0, 1.0, 0.0, 3.0, 1.5],
        }
    )
    curve = pr.pr_curve(frame, weight="weight")
    precision, recall, thresholds = precision_recall_curve(
        frame["label"], frame["score"], sample_weight=frame["weight"]
    )
    np.testing.assert_allclose(curve["precision"], precision[::-1], atol=1e-12)
    np.testing.assert_allclose(curve["recall"], recall[::-1], atol=1e-12)
    np.testing.assert_allclose(curve["threshold"][1:], thresholds[::-1])
    ap = pr.pr_average_precision(frame, weight="weight")["average_precision"][0]
    expected = average_precision_score(
        frame["label"], frame["score"], sample_weight=frame["weight"]
    )
    assert ap == pytest.approx(expected, abs=1e-12)


def test_no_positives_gives_null_recall_and_ap():
    frame = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.5, 0.4], "label": [1, 0, 0, 0]}
    )
    with pytest.warns(UserWarning, match="only one class"):
        curve = pr.pr_curve(frame, by="g")
    assert curve.filter(pl.col("g") == "b")["recall"].to_list() == [None, None, None]
    with pytest.warns(UserWarning, match="only one class"):
        ap = pr.pr_average_precision(frame, by="g")
    assert ap["average_precision"].to_list() == [1.0, None]
    by_expr = frame.group_by("g", maintain_order=True).agg(pr.average_precision())
    assert by_expr["average_precision"].to_list() == [1.0, None]


def test_expression_is_null_on_invalid_groups():
    frame = pl.DataFrame({"score": [0.9, None, 0.3], "label": [1, 0, 0]})
    # Issue 16: a null stops the query unless nulls="drop" (then 1.0 without that row).
    with pytest.raises(pl.exceptions.InvalidOperationError, match="score has 1 null"):
        frame.select(pr.average_precision())
    assert frame.select(pr.average_precision(nulls="drop")).item() == 1.0
    frame = pl.DataFrame({"score": [0.9, 0.5, 0.3], "label": [1, 2, 0]})
    assert frame.select(pr.average_precision()).item() is None
    frame = pl.DataFrame({"score": [0.9, 0.5], "y": ["bad", "good"], "w": [1.0, -1.0]})
    assert frame.select(pr.average_precision("score", "y", "w", pos_label="bad")).item() is None
    assert frame.select(pr.average_precision("score", "y", pos_label="bad")).item() == 1.0


def test_expression_takes_expressions_and_works_over():
    frame = pl.DataFrame(
        {"g": ["a", "a", "a", "b", "b"], "p": [0.2, 0.9, 0.4, 0.3, 0.6], "y": [0, 1, 1, 1, 0]}
    )
    over = frame.with_columns(pr.average_precision(pl.col("p") * 2, pl.col("y")).over("g"))
    expected = {
        g: average_precision_score(part["y"], part["p"]) for (g,), part in frame.group_by("g")
    }
    for g, value in zip(over["g"], over["average_precision"]):
        assert value == pytest.approx(expected[g])


def test_namespace_matches_functions(log):
    assert_frame_equal(log.roc.pr_curve(by="segment"), pr.pr_curve(log, by="segment"))
    assert_frame_equal(
        log.lazy().roc.average_precision(weight="weight").collect(),
        pr.pr_average_precision(log, weight="weight"),
    )


def test_empty_input():
    empty = pl.DataFrame(schema={"score": pl.Float64, "label": pl.Int64})
    assert pr.pr_curve(empty).columns == ["threshold", "tp", "fp", "precision", "recall"]
    assert pr.pr_curve(empty).height == 0
    assert pr.pr_average_precision(empty).height == 0


def test_expression_argument_errors():
    with pytest.raises(TypeError, match="`score` must be a column name or a polars expression"):
        pr.average_precision(3)


@settings(max_examples=30, deadline=None)
@given(
    data=st.integers(2, 30).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 5), min_size=n, max_size=n),
            st.lists(st.booleans(), min_size=n, max_size=n),
            st.lists(st.sampled_from([0.5, 1.0, 3.0]), min_size=n, max_size=n),
        )
    )
)
def test_average_precision_property(data):
    score, label, weight = data
    if not any(label):
        return
    frame = pl.DataFrame({"score": score, "label": label, "weight": weight})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ap = pr.pr_average_precision(frame, weight="weight")["average_precision"][0]
    expected = average_precision_score(label, score, sample_weight=weight)
    assert ap == pytest.approx(expected, abs=1e-9)
    assert frame.select(pr.average_precision(weight="weight")).item() == pytest.approx(ap)


# ------------------------------------------------- Davis & Goadrich interpolated area


def _dg_brute_force(score: np.ndarray, label: np.ndarray, w: np.ndarray) -> float:
    """The interpolated curve integrated numerically: 20,000 midpoints per segment."""
    order = np.unique(score)[::-1]
    tp = np.array([0.0, *[(w * label)[score >= t].sum() for t in order]])
    fp = np.array([0.0, *[(w * ~label)[score >= t].sum() for t in order]])
    area = 0.0
    for i in range(1, len(tp)):
        d = tp[i] - tp[i - 1]
        if d <= 0:
            continue
        x = (np.arange(20_000) + 0.5) / 20_000 * d
        t = tp[i - 1] + x
        f = fp[i - 1] + x * (fp[i] - fp[i - 1]) / d
        area += (t / (t + f)).mean() * d
    return area / tp[-1]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pr_auc_equals_numeric_integral_of_the_interpolation(seed: int, weighted: bool) -> None:
    rng = np.random.default_rng(seed)
    n = 80
    label = rng.random(n) < 0.4
    df = pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "score": np.round(rng.normal(label, 1), 1),
            "label": label,
            "w": rng.random(n) + 0.1,
        }
    )
    out = pr.pr_auc(df, by="g", weight="w" if weighted else None)
    for row in out.iter_rows(named=True):
        part = df.filter(pl.col("g") == row["g"])
        w = part["w"].to_numpy() if weighted else np.ones(part.height)
        expected = _dg_brute_force(part["score"].to_numpy(), part["label"].to_numpy(), w)
        assert row["pr_auc"] == pytest.approx(expected, rel=1e-7)


def test_pr_auc_hand_values_and_how_it_differs() -> None:
    # Perfect ranking: 1, as every summary of the PR curve.
    perfect = pl.DataFrame({"score": [0.9, 0.8, 0.2, 0.1], "label": [1, 1, 0, 0]})
    assert pr.pr_auc(perfect)["pr_auc"].item() == 1.0
    # Points (tp, fp): (0,0) (1,0) (1,1) (2,1) (2,2), two positives. The segment from
    # (1,1) to (2,1) has precision (1+x)/(2+x): integral 1 - log(3/2).
    df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]})
    expected = (1.0 + 1.0 - math.log(1.5)) / 2
    assert df.roc.pr_auc()["pr_auc"].item() == pytest.approx(expected, rel=1e-15)
    # Average precision holds precision 2/3 over the same recall step: 5/6, higher here.
    assert pr.pr_average_precision(df)["average_precision"].item() == pytest.approx(5 / 6)


def test_pr_auc_without_positives_is_null() -> None:
    df = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.5, 0.4], "label": [1, 0, 0, 0]}
    )
    with pytest.warns(UserWarning, match="b"):
        out = pr.pr_auc(df.lazy(), by="g").collect()
    assert out["pr_auc"].to_list() == [1.0, None]
