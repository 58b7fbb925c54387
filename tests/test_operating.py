"""Best thresholds (pROC coords semantics), thresholds at a target rate, cost columns.

References: pROC 1.18.0 ``coords(x="best")`` values stored below as fixtures, brute
force over every threshold with the reference curve of ``tests/_reference.py``, and
seed 001's worked example.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from tests._reference import counts_at, groups, measures, naive_curve

SEED_LABEL = [1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0]
SEED_SCORE = [
    0.9,
    0.8,
    0.7,
    0.6,
    0.55,
    0.54,
    0.53,
    0.52,
    0.51,
    0.505,
    0.4,
    0.39,
    0.38,
    0.37,
    0.36,
    0.35,
    0.34,
    0.33,
    0.30,
    0.1,
]
TIES_LABEL = [
    1,
    1,
    0,
    1,
    0,
    1,
    1,
    0,
    1,
    0,
    0,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    1,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    1,
    1,
    0,
    0,
    1,
    0,
    1,
    1,
    1,
    0,
]
TIES_SCORE = [
    0.2,
    1.5,
    -0.1,
    0.3,
    0.4,
    1.7,
    -0.7,
    -0.3,
    -0.1,
    -0.2,
    -1.3,
    0.0,
    0.9,
    -0.3,
    -1.0,
    -0.4,
    -1.1,
    -1.4,
    0.2,
    -0.2,
    1.2,
    1.6,
    -1.1,
    0.3,
    -1.1,
    0.0,
    0.0,
    -1.1,
    -0.2,
    0.6,
    1.9,
    -0.3,
    0.7,
    -1.1,
    0.6,
    -0.8,
    2.3,
    1.5,
    3.3,
    0.6,
]
DATA = {"fawcett": (SEED_SCORE, SEED_LABEL), "ties": (TIES_SCORE, TIES_LABEL)}

# pROC 1.18.0 (R), generated with:
#   r <- roc(label, score, levels = c(0, 1), direction = "<", quiet = TRUE)
#   coords(r, x = "best", best.method = method, best.weights = c(cost, prevalence),
#          ret = c("threshold", "tp", "fp", "sensitivity", "specificity"))
# for both data sets above. Columns: data, method, cost (of a false negative relative
# to a false positive), prevalence, pROC threshold (a midpoint between two scores),
# tp, fp, sensitivity, specificity. Several rows for one case are pROC's ties.
PROC_BEST = [
    ("fawcett", "youden", 1, 0.5, 0.53500000000000003, 5, 1, 0.5, 0.90000000000000002),
    ("fawcett", "closest.topleft", 1, 0.5, 0.39500000000000002, 7, 4, 0.7, 0.6),
    ("fawcett", "closest.topleft", 1, 0.5, 0.50750000000000006, 6, 3, 0.6, 0.7),
    ("fawcett", "youden", 1, 0.8, 0.20000000000000001, 10, 9, 1, 0.10000000000000001),
    ("fawcett", "closest.topleft", 2, 0.3, 0.53500000000000003, 5, 1, 0.5, 0.9),
    ("fawcett", "youden", 10, 0.5, 0.20000000000000001, 10, 9, 1, 0.10000000000000001),
    ("fawcett", "closest.topleft", 0.5, 0.6, 0.53500000000000003, 5, 1, 0.5, 0.9),
    ("ties", "youden", 1, 0.5, 0.5, 10, 3, 0.55555555555555558, 0.86363636363636365),
    ("ties", "closest.topleft", 1, 0.5, 0.1, 12, 6, 0.66666666666666663, 0.72727272727272729),
    ("ties", "youden", 1, 0.8, -1.2000000000000002, 18, 20, 1, 0.090909090909090912),
    ("ties", "closest.topleft", 2, 0.3, 0.1, 12, 6, 0.66666666666666663, 0.72727272727272729),
    ("ties", "youden", 10, 0.5, -1.2000000000000002, 18, 20, 1, 0.090909090909090912),
    ("ties", "closest.topleft", 0.5, 0.6, 0.1, 12, 6, 0.66666666666666663, 0.72727272727272729),
]


def proc_cases() -> list[tuple[str, str, float, float, list[tuple]]]:
    cases: dict[tuple, list[tuple]] = {}
    for data, method, cost, prevalence, *row in PROC_BEST:
        cases.setdefault((data, method, cost, prevalence), []).append(tuple(row))
    return [(*key, rows) for key, rows in cases.items()]


@pytest.mark.parametrize(("data", "method", "cost", "prevalence", "rows"), proc_cases())
def test_best_threshold_matches_proc(data, method, cost, prevalence, rows):
    score, label = DATA[data]
    frame = pl.DataFrame({"score": score, "label": label})
    ours = pr.best_threshold(
        frame,
        method.replace(".", "_"),
        cost_fn=float(cost),
        cost_fp=1.0,
        prevalence=prevalence,
        ties="all",
    )
    # pROC lists ties by ascending threshold, we by descending: compare as sets.
    expected = sorted((tp, fp) for _, tp, fp, _, _ in rows)
    assert sorted(zip(ours["tp"], ours["fp"])) == expected
    for proc_threshold, tp, fp, sensitivity, specificity in rows:
        row = ours.filter((pl.col("tp") == tp) & (pl.col("fp") == fp)).row(0, named=True)
        assert row["tpr"] == pytest.approx(sensitivity, abs=1e-12)
        assert row["tnr"] == pytest.approx(specificity, abs=1e-12)
        # pROC's threshold is a midpoint; ours is the lowest score it keeps positive.
        assert row["threshold"] == min(s for s in score if s >= proc_threshold)
    first = pr.best_threshold(
        frame, method.replace(".", "_"), cost_fn=float(cost), prevalence=prevalence
    )
    assert first.height == 1
    assert first["threshold"][0] == ours["threshold"].max()
    # midpoint=True reports pROC's thresholds themselves (issue 27, item 3).
    halfway = pr.best_threshold(
        frame,
        method.replace(".", "_"),
        cost_fn=float(cost),
        prevalence=prevalence,
        ties="all",
        midpoint=True,
    )
    assert_frame_equal(halfway.drop("threshold"), ours.drop("threshold"))
    expected_thresholds = sorted((row[0] for row in rows), reverse=True)
    assert halfway["threshold"].to_list() == pytest.approx(expected_thresholds, abs=1e-15)


def test_midpoint_matches_proc_on_asah():
    # pROC's tests (test-coords.R, "coords with best threshold works"):
    # coords(roc(aSAH$outcome, aSAH$s100b), "best") has threshold 0.205.
    asah = pl.read_csv(Path(__file__).parent / "fixtures" / "asah.csv")
    best = asah.roc.best_threshold(score="s100b", label="outcome", ties="all", midpoint=True)
    assert best["threshold"].to_list() == [pytest.approx(0.205, abs=1e-12)]
    assert best["tpr"][0] == pytest.approx(26 / 41) and best["tnr"][0] == pytest.approx(58 / 72)


def test_midpoint_at_the_ends_and_between_unsplittable_scores():
    # Scores 3 > 2 > 1 (by hand): the start row +inf stays +inf, below the lowest is -inf.
    frame = pl.DataFrame({"score": [3.0, 2.0, 1.0], "label": [0, 0, 1]})
    nothing = frame.roc.best_threshold(ties="all", midpoint=True)  # J = 0 at both ends
    assert nothing["threshold"].to_list() == [math.inf, -math.inf]
    assert nothing["tp"].to_list() == [0, 1]
    # An infinite neighbour or adjacent Float32 values leave nothing strictly between:
    # the score itself is kept, so the threshold still gives the counts reported.
    # (the midpoint of 0.5 and the next Float32 up rounds, to even, down to 0.5).
    above = float(np.nextafter(np.float32(0.5), np.float32(1)))
    for scores in ([1.0, -math.inf], [above, 0.5]):
        log = pl.DataFrame(
            {"score": scores, "label": [1, 0]}, schema_overrides={"score": pl.Float32}
        )
        best = log.roc.best_threshold(midpoint=True)
        assert best["threshold"].to_list() == [scores[0]]
        again = log.roc.confusion(best["threshold"][0])
        assert (again["tp"][0], again["fp"][0]) == (1, 0)
    # Float64 scores 1 apart get their midpoint; a group never reaches into the next.
    grouped = pl.DataFrame({"g": [1, 1, 2, 2], "score": [4.0, 3.0, 2.0, 1.0], "label": [1, 0] * 2})
    assert grouped.roc.best_threshold(by="g", midpoint=True)["threshold"].to_list() == [3.5, 1.5]


def brute_force_best(score, is_pos, weight, criterion, maximise=True):
    """All thresholds of the reference curve reaching the best criterion value."""
    curve = naive_curve(score, is_pos, weight)
    values = [criterion(tpr, fpr) for tpr, fpr in zip(curve["tpr"], curve["fpr"])]
    best = max(values) if maximise else min(values)
    return [t for t, v in zip(curve["threshold"], values) if abs(v - best) <= 1e-9]


@pytest.mark.parametrize("method", ["youden", "closest_topleft", "cost"])
def test_best_threshold_by_brute_force(log, as_kind, by, weight, method):
    cols = [] if by is None else [by] if isinstance(by, str) else by
    result = pr.best_threshold(as_kind(log), method, by=by, weight=weight, cost_fn=3.0)
    result = result.collect() if isinstance(result, pl.LazyFrame) else result
    keys = [log[c].to_list() for c in cols] if cols else [[0] * log.height]
    for (key, mask), row in zip(groups(keys), result.iter_rows(named=True)):
        if cols:
            assert tuple(row[c] for c in cols) == key
        part = log.filter(pl.Series(mask))
        is_pos = part["label"].to_numpy() == 1
        w = None if weight is None else part[weight].to_numpy()
        if method == "youden":
            r = 1 / 3  # prevalence 0.5, cost_fp / cost_fn = 1 / 3
            best = brute_force_best(part["score"], is_pos, w, lambda t, f, r=r: t + r * (1 - f))
        elif method == "closest_topleft":
            r = 1 / 3
            best = brute_force_best(
                part["score"], is_pos, w, lambda t, f, r=r: (1 - t) ** 2 + r * f**2, maximise=False
            )
        else:
            weights = np.ones(len(is_pos)) if w is None else w
            p = weights[is_pos].sum() / weights.sum()
            best = brute_force_best(
                part["score"],
                is_pos,
                w,
                lambda t, f, p=p: p * 3.0 * (1 - t) + (1 - p) * f,
                maximise=False,
            )
        assert row["threshold"] == max(best)
        tp, fp, fn, tn = counts_at(part["score"].to_numpy(), is_pos, row["threshold"], w)
        expected = measures(tp, fp, fn, tn)
        for name in ("tpr", "fpr", "ppv", "f1", "mcc", "kappa", "youden_j"):
            assert row[name] == pytest.approx(expected[name], abs=1e-12)


def test_cost_criterion_is_the_expected_cost():
    frame = pl.DataFrame({"score": SEED_SCORE, "label": SEED_LABEL})
    row = pr.best_threshold(frame, "cost", cost_fp=1.0, cost_fn=10.0, prevalence=0.5).row(
        0, named=True
    )
    # Seed 001, scenario beta (m = 1/10): the hull vertex (0.9, 1.0) at score .30.
    assert row["threshold"] == 0.30
    assert row["criterion"] == pytest.approx(0.5 * 10 * 0.0 + 0.5 * 1 * 0.9)


def test_ties_all_lists_every_equally_good_threshold():
    frame = pl.DataFrame(
        {"score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3], "label": [1, 1, 0, 1, 0, 1, 0, 0]}
    )
    # Youden's J is 0.5 at three thresholds: by hand from the curve (tp, fp out of 4).
    every = pr.best_threshold(frame, ties="all")
    assert every["threshold"].to_list() == [0.8, 0.6, 0.5]
    assert every["youden_j"].to_list() == pytest.approx([0.5, 0.5, 0.5])
    assert pr.best_threshold(frame)["threshold"].to_list() == [0.8]


def test_best_threshold_single_class_group_is_null():
    frame = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.5, 0.4], "label": [1, 0, 1, 1]}
    )
    with pytest.warns(UserWarning, match="only one class"):
        result = pr.best_threshold(frame, by="g")
    assert result["g"].to_list() == ["a", "b"]
    assert result["threshold"].to_list() == [0.9, None]


def brute_force_target(score, is_pos, weight, target, value):
    curve = naive_curve(score, is_pos, weight)
    rows = list(zip(curve["threshold"], curve["tp"], curve["fp"], curve["tpr"], curve["fpr"]))
    if target == "fpr":
        ok = [r for r in rows if r[4] <= value + 1e-12]
        best_tpr = max(r[3] for r in ok)
        return min((r for r in ok if r[3] == best_tpr), key=lambda r: (r[4], -r[0]))[0]
    if target == "tpr":
        ok = [r for r in rows if r[3] >= value - 1e-12]
        best_fpr = min(r[4] for r in ok)
        return max((r for r in ok if r[4] == best_fpr), key=lambda r: (r[3], r[0]))[0]
    ok = [r for r in rows if r[1] + r[2] > 0 and r[1] / (r[1] + r[2]) >= value - 1e-12]
    if not ok:
        return None
    best_tpr = max(r[3] for r in ok)
    return max(r[0] for r in ok if r[3] == best_tpr)


TARGETS = [
    ("fpr", 0.1),
    ("fpr", 0.0),
    ("fpr", 1.0),
    ("tpr", 0.9),
    ("tpr", 0.5),
    ("precision", 0.6),
    ("precision", 1.0),
]


@pytest.mark.parametrize(("target", "value"), TARGETS)
def test_threshold_at_by_brute_force(log, as_kind, by, weight, target, value):
    cols = [] if by is None else [by] if isinstance(by, str) else by
    result = pr.threshold_at(as_kind(log), by=by, weight=weight, **{target: value})
    result = result.collect() if isinstance(result, pl.LazyFrame) else result
    keys = [log[c].to_list() for c in cols] if cols else [[0] * log.height]
    for (key, mask), row in zip(groups(keys), result.iter_rows(named=True)):
        if cols:
            assert tuple(row[c] for c in cols) == key
        part = log.filter(pl.Series(mask))
        is_pos = part["label"].to_numpy() == 1
        w = None if weight is None else part[weight].to_numpy()
        expected = brute_force_target(part["score"].to_numpy(), is_pos, w, target, value)
        assert row["threshold"] == expected
        if expected is not None:
            tp, fp, _, _ = counts_at(part["score"].to_numpy(), is_pos, expected, w)
            assert row["tp"] == pytest.approx(tp)
            assert row["fp"] == pytest.approx(fp)


def test_threshold_at_seed_example():
    frame = pl.DataFrame({"score": SEED_SCORE, "label": SEED_LABEL})
    # By hand from the seed's table: at most 10% false alarms allows one negative (.7),
    # and the most positives above it come at .54 (tp = 5).
    row = pr.threshold_at(frame, fpr=0.1).row(0, named=True)
    assert (row["threshold"], row["tp"], row["fp"]) == (0.54, 5, 1)
    # 80% sensitivity first reached at .38 with 5 false positives.
    row = pr.threshold_at(frame, tpr=0.8).row(0, named=True)
    assert (row["threshold"], row["tp"], row["fp"]) == (0.38, 8, 5)
    # Precision >= 0.8 at most recall: .54 (5 of 6 predicted are positive).
    row = pr.threshold_at(frame, precision=0.8).row(0, named=True)
    assert (row["threshold"], row["tp"], row["fp"]) == (0.54, 5, 1)


def test_threshold_at_unreachable_precision_is_null():
    frame = pl.DataFrame({"score": [0.9, 0.8, 0.1], "label": [0, 1, 0]})
    result = pr.threshold_at(frame, precision=0.9)
    assert result.height == 1
    assert result["threshold"].to_list() == [None]


def test_cost_columns_on_confusion_and_curve(log, as_kind, by, weight):
    confusion = pr.confusion_matrix(
        as_kind(log), [0.3, 0.6], by=by, weight=weight, cost_fp=2.0, cost_fn=5.0
    )
    confusion = confusion.collect() if isinstance(confusion, pl.LazyFrame) else confusion
    expected_cost = 2.0 * confusion["fp"].cast(pl.Float64) + 5.0 * confusion["fn"].cast(pl.Float64)
    np.testing.assert_allclose(confusion["cost"], expected_cost, rtol=1e-12)
    np.testing.assert_allclose(
        confusion["expected_cost"], expected_cost / confusion["n"], rtol=1e-12
    )
    curve = pr.roc_curve(as_kind(log), by=by, weight=weight, cost_fn=4.0)
    curve = curve.collect() if isinstance(curve, pl.LazyFrame) else curve
    n = curve["tp"] + curve["fp"] + curve["fn"] + curve["tn"]
    np.testing.assert_allclose(curve["cost"], curve["fp"] + 4.0 * curve["fn"], rtol=1e-12)
    np.testing.assert_allclose(
        curve["expected_cost"], (curve["fp"] + 4.0 * curve["fn"]) / n, rtol=1e-12
    )


def test_cost_columns_by_hand():
    frame = pl.DataFrame({"score": [0.9, 0.6, 0.55, 0.3, 0.2], "label": [1, 0, 1, 0, 0]})
    row = pr.confusion_matrix(frame, 0.5, cost_fn=5.0).row(0, named=True)
    # At 0.5: one false positive (0.6), no false negative: cost 1 * 1 + 5 * 0 over 5 rows.
    assert (row["cost"], row["expected_cost"]) == (1.0, 0.2)
    assert "cost" not in pr.confusion_matrix(frame, 0.5).columns
    assert "cost" not in pr.roc_curve(frame).columns


def test_namespace_matches_functions(log):
    assert_frame_equal(
        log.roc.best_threshold("closest_topleft", by="segment"),
        pr.best_threshold(log, "closest_topleft", by="segment"),
    )
    assert_frame_equal(
        log.lazy().roc.threshold_at(tpr=0.8, by="segment").collect(),
        pr.threshold_at(log, tpr=0.8, by="segment"),
    )
    assert_frame_equal(
        log.roc.confusion(0.5, cost_fp=2.0), pr.confusion_matrix(log, 0.5, cost_fp=2.0)
    )
    assert_frame_equal(log.roc.curve(cost_fn=3.0), pr.roc_curve(log, cost_fn=3.0))


@pytest.mark.parametrize("view", ["best_threshold", "optimal_cutpoint"])
def test_ties_all_grouped_is_each_groups_own_rows(view: str) -> None:
    """A group with nothing to choose (one class) has no rows with ``ties="all"``, as
    when it is called alone; Polars 1.x's explode once gave it a null row."""
    log = pl.DataFrame(
        {
            "g": ["a"] * 4 + ["b"] * 3,
            "score": [0.9, 0.8, 0.3, 0.2, 0.5, 0.4, 0.1],
            "label": [1, 0, 1, 0, 0, 0, 0],
        }
    )
    call = getattr(pr, view)
    args = ["f1"] if view == "optimal_cutpoint" else []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        grouped = call(log, *args, by="g", ties="all")
        alone = [
            call(log.filter(pl.col("g") == g).drop("g"), *args, ties="all").select(
                pl.lit(g).alias("g"), pl.all()
            )
            for g in ("a", "b")
        ]
    assert_frame_equal(grouped, pl.concat(alone))
    if view == "best_threshold":  # Youden's J has no maximum without both classes
        assert grouped["g"].to_list() == ["a", "a"]


def test_empty_input():
    empty = pl.DataFrame(schema={"score": pl.Float64, "label": pl.Int64})
    assert pr.best_threshold(empty).height == 0
    assert pr.best_threshold(empty, ties="all").height == 0
    assert pr.threshold_at(empty, fpr=0.1).height == 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "f1"}, "`method` must be 'youden', 'closest_topleft' or 'cost'"),
        ({"ties": "random"}, "`ties` must be 'first' or 'all'"),
        ({"cost_fp": -1.0}, "`cost_fp` must be a finite number > 0"),
        ({"cost_fn": math.inf}, "`cost_fn` must be a finite number > 0"),
        ({"prevalence": 0.0}, "`prevalence` must be a number strictly between 0 and 1"),
        ({"prevalence": "half"}, "`prevalence` must be a number strictly between 0 and 1"),
    ],
)
def test_best_threshold_errors(log, kwargs, match):
    with pytest.raises(ValueError, match=match):
        pr.best_threshold(log, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "give exactly one target among `fpr=`, `tpr=` and `precision=`"),
        ({"fpr": 0.1, "tpr": 0.9}, r"give exactly one target .*\['fpr', 'tpr'\]"),
        ({"fpr": 1.5}, "`fpr` must be a number between 0 and 1, got 1.5"),
        ({"precision": -0.1}, "`precision` must be a number between 0 and 1"),
        ({"tpr": True}, "`tpr` must be a number between 0 and 1"),
    ],
)
def test_threshold_at_errors(log, kwargs, match):
    with pytest.raises(ValueError, match=match):
        pr.threshold_at(log, **kwargs)


def test_cost_column_errors(log):
    with pytest.raises(ValueError, match="`cost_fp` must be a finite number > 0"):
        pr.confusion_matrix(log, 0.5, cost_fp=0.0)
    with pytest.raises(ValueError, match="`cost_fn` must be a finite number > 0"):
        pr.roc_curve(log, cost_fn=-3.0)


@settings(max_examples=25, deadline=None)
@given(
    data=st.integers(2, 30).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 6), min_size=n, max_size=n),
            st.lists(st.booleans(), min_size=n, max_size=n),
        )
    )
)
def test_youden_ks_and_unit_slope_agree(data):
    # Three routes to the same point: max tpr - fpr (Youden, r = 1), the KS threshold,
    # and the optimal point for iso-performance slope 1; all keep the highest on ties.
    score, label = data
    if all(label) or not any(label):
        return
    frame = pl.DataFrame({"score": score, "label": label})
    youden = pr.best_threshold(frame).row(0, named=True)
    ks = pr.ks_statistic(frame).row(0, named=True)
    point = pr.optimal_point(frame, slope=1.0).row(0, named=True)
    assert youden["threshold"] == ks["threshold"] == point["threshold"]
    assert youden["youden_j"] == pytest.approx(ks["ks"], abs=1e-12)
