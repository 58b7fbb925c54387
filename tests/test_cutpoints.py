"""Optimal cutpoints by any measure (polars_roc.views.cutpoints), cutpointr's
maximize_metric / minimize_metric: against a brute force over every candidate threshold
with scikit-learn's metrics."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import polars_roc as pr
from polars_roc.exceptions import RocInputError
from polars_roc.views import cutpoints as _cutpoints
from polars_roc.views.cutpoints import OPTIMIZABLE


def _log(seed: int = 4, n: int = 300) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.35
    score = np.round(rng.normal(label * 0.8, 1.0), 1)  # ties
    return pl.DataFrame(
        {"g": rng.choice(["a", "b"], n), "score": score, "label": label, "w": rng.random(n) + 0.5}
    )


SKLEARN = {
    "accuracy": lambda y, p, w: skm.accuracy_score(y, p, sample_weight=w),
    "f1": lambda y, p, w: skm.f1_score(y, p, sample_weight=w, zero_division=np.nan),
    "mcc": lambda y, p, w: skm.matthews_corrcoef(y, p, sample_weight=w),
    "kappa": lambda y, p, w: skm.cohen_kappa_score(y, p, sample_weight=w),
    "balanced_accuracy": lambda y, p, w: skm.balanced_accuracy_score(y, p, sample_weight=w),
}


def brute_force(part: pl.DataFrame, metric: str, weight: str | None, sign: float):
    """(best value, highest threshold reaching it) over every distinct score and +inf."""
    y, s = part["label"].to_numpy(), part["score"].to_numpy()
    w = None if weight is None else part[weight].to_numpy()
    best, best_t = -math.inf, None
    for t in [math.inf, *sorted(set(s.tolist()), reverse=True)]:
        predicted = s >= t
        if metric in ("mcc", "kappa") and predicted.all() | (~predicted).all():
            continue  # undefined there (sklearn says 0); ours is null and skipped
        with np.errstate(all="ignore"):
            value = SKLEARN[metric](y, predicted, w)
        if np.isnan(value):
            continue
        if best_t is None or sign * value > best + 1e-12 * (abs(best) + 1):
            best, best_t = sign * value, t
    return sign * best, best_t


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("metric", list(SKLEARN))
def test_matches_brute_force_per_group(metric: str, weight) -> None:
    log = _log()
    result = pr.optimal_cutpoint(log.lazy(), metric, by="g", weight=weight).collect()
    assert result["g"].to_list() == ["a", "b"]
    for row in result.iter_rows(named=True):
        value, threshold = brute_force(log.filter(pl.col("g") == row["g"]), metric, weight, 1.0)
        assert row[metric] == pytest.approx(value, rel=1e-9)
        assert row["threshold"] == threshold


def test_minimize_cost_equals_brute_force() -> None:
    log = _log(seed=9)
    result = pr.optimal_cutpoint(log, "cost", goal="minimize", cost_fp=1.0, cost_fn=4.0)
    y, s = log["label"].to_numpy(), log["score"].to_numpy()
    costs = {
        t: ((s >= t) & ~y).sum() + 4.0 * ((s < t) & y).sum() for t in [math.inf, *set(s.tolist())]
    }
    low = min(costs.values())
    assert result["cost"].item() == low
    assert result["threshold"].item() == max(t for t, c in costs.items() if c == low)


def test_ties_all_lists_every_tied_threshold_highest_first() -> None:
    df = pl.DataFrame(
        {"score": [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3], "label": [1, 1, 0, 1, 0, 1, 0, 0]}
    )
    every = pr.optimal_cutpoint(df, "accuracy", ties="all")
    assert every["threshold"].to_list() == [0.8, 0.6, 0.5]
    assert every["accuracy"].to_list() == [0.75] * 3
    first = pr.optimal_cutpoint(df, "accuracy")
    assert_frame_equal(first, every.head(1))
    # Minimising the error rate picks the same points.
    assert pr.optimal_cutpoint(df, "error_rate", goal="minimize")["threshold"].item() == 0.8


def test_rows_equal_confusion_at_the_chosen_threshold() -> None:
    log = _log(seed=2)
    chosen = pr.optimal_cutpoint(log, "f_beta", beta=2.0, by="g")
    for row in chosen.iter_rows(named=True):
        at = pr.confusion_matrix(log.filter(pl.col("g") == row["g"]), row["threshold"], beta=2.0)
        assert_frame_equal(chosen.filter(pl.col("g") == row["g"]).drop("g"), at)


def test_namespace_and_single_class_group() -> None:
    df = pl.DataFrame(
        {
            "g": ["a"] * 4 + ["b"] * 2,
            "score": [0.9, 0.2, 0.6, 0.1, 0.5, 0.4],
            "label": [1, 0, 1, 0, 1, 1],
        }
    )
    with pytest.warns(UserWarning, match="b"):
        out = df.roc.optimal_cutpoint("mcc", by="g")
    assert out["threshold"].to_list() == [0.6, None]
    assert out["mcc"].to_list() == [1.0, None]


def test_every_optimizable_measure_runs() -> None:
    log = _log(seed=1, n=60)
    for metric in OPTIMIZABLE:
        out = pr.optimal_cutpoint(log, metric, beta=1.5, cost_fp=1.0)
        assert out.height == 1 and out[metric].null_count() == 0, metric


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"metric": "kappa_level"}, r"`metric` must be one of the numeric .*'kappa_level'"),
        ({"metric": "auc"}, r"`metric` must be one of .*got 'auc'"),
        ({"metric": "f_beta"}, r"`metric='f_beta'` needs `beta=`"),
        ({"metric": "f1", "beta": -2.0}, r"`beta` must be a non-negative number"),
        ({"metric": "f1", "goal": "max"}, r"`goal` must be 'maximize' or 'minimize', got 'max'"),
        ({"metric": "f1", "ties": "median"}, r"`ties` must be 'first' or 'all', got 'median'"),
    ],
)
def test_bad_options_are_refused(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pr.optimal_cutpoint(_log(), **options)


# ------------------------------------------------------------ bootstrap of the cutpoint


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("by", [None, "g"])
def test_bootstrap_replicates_match_brute_force(by, weight) -> None:
    log = _log(seed=6, n=120)
    boot = pr.bootstrap_cutpoint(log, "accuracy", by=by, weight=weight, n_boot=8, seed=11)
    # The same draws, redone by hand: rows sorted by group, score and the class's
    # weight (the order of the rows given does not count), one bincount.
    unit = pl.lit(1.0) if weight is None else pl.col(weight)
    keys = [pl.col("score"), unit * pl.col("label"), unit * (1 - pl.col("label"))]
    rows = log.sort([*([by] if by else []), *keys])
    ones = np.ones(rows.height, dtype=np.int64)
    counts, left_out = _cutpoints._draw_counts(
        rows, ones, [by] if by else [], 8, np.random.default_rng(11)
    )
    assert (left_out == (counts == 0)).all()
    assert (counts.sum(axis=1) == rows.height).all()
    keys = rows[by].to_list() if by else [None] * rows.height
    y, s = rows["label"].to_numpy(), rows["score"].to_numpy()
    w = np.ones(rows.height) if weight is None else rows[weight].to_numpy()
    for row in boot.iter_rows(named=True):
        mine = np.array([k == row.get(by) for k in keys]) if by else np.ones(rows.height, bool)
        c = counts[row["replicate"]] * mine
        in_bag = pl.DataFrame({"score": s, "label": y, "w": w * c}).filter(pl.col("w") > 0)
        value, threshold = brute_force(in_bag, "accuracy", "w", 1.0)
        assert row["threshold"] == threshold
        assert row["accuracy_in_bag"] == pytest.approx(value, rel=1e-12)
        out = mine & (c == 0)
        predicted = s[out] >= threshold
        assert row["accuracy_oob"] == pytest.approx(
            skm.accuracy_score(y[out], predicted, sample_weight=w[out]), rel=1e-12
        )
        assert row["tpr_oob"] == pytest.approx(
            skm.recall_score(y[out], predicted, sample_weight=w[out]), rel=1e-12
        )


@pytest.mark.parametrize("count", [False, True])
def test_bootstrap_draws_in_blocks_of_replicates(count: bool, monkeypatch) -> None:
    # Memory follows a block of replicates, not n_boot x units; the generator's stream,
    # and so every replicate, is the same whatever the block (here 1 and 7 replicates).
    log = _log(seed=9, n=60)
    if count:
        log = log.group_by("g", "score", "label").len("n")
    options = {"by": "g", "n_boot": 15, "seed": 2, "count": "n" if count else None}
    whole = pr.bootstrap_cutpoint(log, "f1", **options)
    for units in (1, 7 * 60):
        monkeypatch.setattr(_cutpoints, "DRAWS_PER_BLOCK", units)
        assert_frame_equal(pr.bootstrap_cutpoint(log, "f1", **options), whole)


def test_bootstrap_refuses_more_units_than_it_can_draw() -> None:
    # 2^41 units drawn in every replicate: a MemoryError of hundreds of TiB before.
    table = pl.DataFrame(
        {"score": [0.1, 0.5, 0.7, 0.9], "label": [0, 1, 0, 1], "n": [2**40, 3, 5, 2**40]}
    )
    with pytest.raises(RocInputError, match=r"2,199,023,255,560 units .* more than 2,147,483,648"):
        pr.bootstrap_cutpoint(table, count="n", n_boot=5, seed=1)


def test_bootstrap_does_not_hang_on_the_rows_order() -> None:
    # The same rows shuffled, or as a DuckDB relation (no row order), gave other
    # replicates for the same seed.
    duckdb = pytest.importorskip("duckdb")
    log = _log(seed=3, n=150)
    options = {"by": "g", "n_boot": 12, "seed": 4}
    first = pr.bootstrap_cutpoint(log, "f1", **options)
    shuffled = pr.bootstrap_cutpoint(
        log.sample(fraction=1.0, shuffle=True, seed=1), "f1", **options
    )
    assert_frame_equal(shuffled, first)
    relation = pr.bootstrap_cutpoint(duckdb.from_arrow(log.to_arrow()), "f1", **options)
    assert_frame_equal(relation.sort("g", "replicate"), first)


def test_bootstrap_seeded_lazy_and_summary() -> None:
    log = _log(seed=8)
    first = pr.bootstrap_cutpoint(log, "f1", by="g", n_boot=30, seed=5)
    again = pr.bootstrap_cutpoint(log.lazy(), "f1", by="g", n_boot=30, seed=5).collect()
    assert_frame_equal(first, again)
    other = pr.bootstrap_cutpoint(log, "f1", by="g", n_boot=30, seed=6)
    assert not first.equals(other)
    assert first.columns == [
        "g",
        "replicate",
        "threshold",
        "f1_in_bag",
        "f1_oob",
        "tpr_in_bag",
        "tpr_oob",
        "tnr_in_bag",
        "tnr_oob",
        "accuracy_in_bag",
        "accuracy_oob",
    ]
    summary = log.roc.bootstrap_cutpoint(
        "f1", by="g", n_boot=30, seed=5, summary=True, conf_level=0.9
    )
    for row in summary.iter_rows(named=True):
        part = first.filter(pl.col("g") == row["g"])
        assert row["n_boot"] == 30
        for column in ("threshold", "f1_oob"):
            values = part[column].drop_nulls().to_numpy()
            assert row[f"{column}_mean"] == pytest.approx(values.mean(), rel=1e-12)
            assert row[f"{column}_lower"] == pytest.approx(np.quantile(values, 0.05), rel=1e-12)
            assert row[f"{column}_upper"] == pytest.approx(np.quantile(values, 0.95), rel=1e-12)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"n_boot": 0}, r"`n_boot` must be a positive integer, got 0"),
        ({"conf_level": 95}, r"`conf_level` must be a float strictly between 0 and 1, got 95"),
        ({"metric": "kappa_level"}, r"`metric` must be one of the numeric"),
    ],
)
def test_bootstrap_bad_options_are_refused(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pr.bootstrap_cutpoint(_log(), **options)


# cutpointr's README ("Midpoints"): the suicide data's dsi score as a count table, read
# off its printed ROC table (tp, fp per x.sorted); the sum of sensitivity and
# specificity (Youden's J + 1) is best at 2, and at 1.5 with use_midpoints = TRUE.
SUICIDE = pl.DataFrame(
    {
        "dsi": [11, 10, 10, 9, 8, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0],
        "suicide": [1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
        "n": [1, 1, 1, 1, 1, 3, 9, 5, 4, 10, 8, 28, 1, 12, 3, 12, 2, 52, 2, 376],
    }
)


@pytest.mark.parametrize(("midpoint", "expected"), [(False, 2.0), (True, 1.5)])
def test_midpoint_matches_cutpointr_readme(midpoint: bool, expected: float) -> None:
    options = dict(score="dsi", label="suicide", count="n", midpoint=midpoint)
    row = SUICIDE.roc.optimal_cutpoint("youden_j", **options)
    assert row["threshold"].to_list() == [expected]
    assert row["youden_j"][0] + 1 == pytest.approx(32 / 36 + 428 / 496)  # 1.75 printed
    # The README's small example: best cutpoint 8, midpoint with the next lower value 3.
    small = pl.DataFrame({"score": [1, 2, 3, 8, 11, 11, 12], "label": [0, 0, 0, 1, 1, 1, 1]})
    assert small.roc.optimal_cutpoint("accuracy", midpoint=True)["threshold"][0] == 5.5


def test_midpoint_by_hand_per_group_and_direction() -> None:
    # Group a: scores 0.9 > 0.6 > 0.2; group b: 5 > 3. Midpoints never cross groups.
    log = pl.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b"],
            "score": [0.9, 0.6, 0.2, 5.0, 3.0],
            "label": [1, 0, 0, 1, 0],
        }
    ).lazy()
    got = log.roc.optimal_cutpoint("accuracy", by="g", midpoint=True).collect()
    assert got["threshold"].to_list() == [pytest.approx(0.75), 4.0]
    # Labels flipped and direction="lower": the best cutpoints are 0.6 and 3 (positive
    # when score <= t), their midpoints halfway up to the next higher score: 0.75 and 4.
    flipped = log.with_columns(pl.col("label").cast(pl.Boolean).not_().cast(pl.Int64))
    lower = flipped.roc.optimal_cutpoint(
        "accuracy", by="g", direction="lower", midpoint=True
    ).collect()
    plain = flipped.roc.optimal_cutpoint("accuracy", by="g", direction="lower").collect()
    assert plain["threshold"].to_list() == [0.6, 3.0]
    assert lower["threshold"].to_list() == [pytest.approx(0.75), 4.0]
    assert_frame_equal(lower.drop("threshold"), plain.drop("threshold"))


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_midpoints_give_back_the_counts_they_report(direction: str) -> None:
    # Every candidate's midpoint, fed back to confusion per segment, gives its counts.
    log = _log()
    options = dict(by="g", direction=direction, weight="w")
    for metric in ("accuracy", "youden_j", "f1"):
        chosen = log.roc.optimal_cutpoint(metric, ties="all", midpoint=True, **options)
        again = log.roc.confusion(chosen, **options)
        assert_frame_equal(again.select(chosen.columns), chosen)
