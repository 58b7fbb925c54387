"""``direction="lower"``: a lower score is more positive; thresholds stay in the user's units.

The reference is the same view on the negated score, whose threshold columns, negated
back, must be the user's thresholds; and hand counts of ``score <= threshold``.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import polars_roc as pr
from polars_roc.exceptions import RocOptionError


def make_log(seed: int = 0, n: int = 300) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    # A bureau-style score: lower for the positives (defaults), with ties.
    score = np.round(600 - 40 * label + rng.normal(0, 50, size=n))
    return pl.DataFrame({"segment": rng.choice(["a", "b"], size=n), "score": score, "label": label})


NEGATED = pl.col("score").neg().alias("score")


def user_units(frame: pl.DataFrame) -> pl.DataFrame:
    """Threshold-like columns of a result on the negated score, back in the user's units."""
    exprs = [pl.col(c).neg() for c in ("threshold",) if c in frame.columns]
    if {"score_min", "score_max"} <= set(frame.columns):
        exprs += [
            pl.col("score_max").neg().alias("score_min"),
            pl.col("score_min").neg().alias("score_max"),
        ]
    return frame.with_columns(exprs)


VIEWS = {
    "score_table": lambda f, **kw: pr.score_table(f, **kw),
    "curve": lambda f, **kw: pr.roc_curve(f, **kw),
    "auc_delong": lambda f, **kw: pr.roc_auc(f, ci="delong", **kw),
    "pr_curve": lambda f, **kw: pr.pr_curve(f, **kw),
    "gains": lambda f, **kw: pr.gains_table(f, 5, **kw),
    "lift": lambda f, **kw: pr.lift_curve(f, **kw),
    "ks": lambda f, **kw: pr.ks_statistic(f, **kw),
    "hull": lambda f, **kw: pr.roc_hull(f, **kw),
    "best": lambda f, **kw: pr.best_threshold(f, "youden", **kw),
    "threshold_at": lambda f, **kw: pr.threshold_at(f, tpr=0.5, **kw),
    "average_curve": lambda f, **kw: pr.average_curve(
        f, fold="segment", method="threshold", grid=5, **kw
    ),
}


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("lazy", [False, True])
def test_lower_equals_the_negated_score_in_user_units(name: str, lazy: bool) -> None:
    log = make_log()
    by = None if name == "average_curve" else "segment"
    view = VIEWS[name]
    frame = log.lazy() if lazy else log
    result = view(frame, by=by, direction="lower")
    result = result.collect() if lazy else result
    expected = user_units(view(log.with_columns(NEGATED), by=by))
    assert_frame_equal(result, expected)


def test_auc_matches_scikit_learn_on_the_negated_score() -> None:
    log = make_log(seed=3)
    y, s = log["label"].to_numpy(), log["score"].to_numpy()
    auc = pr.roc_auc(log, direction="lower")["auc"][0]
    assert auc == pytest.approx(roc_auc_score(y, -s), abs=1e-12)
    # Ties count one half either way, so the two directions add up to one.
    assert auc + pr.roc_auc(log)["auc"][0] == pytest.approx(1.0, abs=1e-12)


def test_confusion_counts_scores_at_or_below_the_threshold() -> None:
    log = make_log(seed=5)
    thresholds = [520.0, 580.0, 600.0, 650.0]
    result = pr.confusion_matrix(log, thresholds, direction="lower")
    assert result["threshold"].to_list() == thresholds
    for row in result.iter_rows(named=True):
        called = log.filter(pl.col("score") <= row["threshold"])
        assert row["tp"] == called["label"].sum()
        assert row["fp"] == called.height - called["label"].sum()


def test_curve_runs_up_from_minus_infinity() -> None:
    curve = pr.roc_curve(make_log(), direction="lower")
    assert curve["threshold"][0] == float("-inf")
    assert curve["threshold"].is_sorted()
    assert (curve["tp"][0], curve["fp"][0]) == (0, 0)


def test_expressions_in_frames_agree_with_direction() -> None:
    log = make_log(seed=8)
    assert pr.roc_auc(log, direction="lower")["auc"][0] == pytest.approx(
        log.select(pr.auc(-pl.col("score"), "label")).item(), abs=1e-12
    )


def test_direction_must_be_higher_or_lower() -> None:
    message = r"`direction` must be 'higher' or 'lower', got 'auto'"
    with pytest.raises(RocOptionError, match=message):
        pr.roc_auc(make_log(), direction="auto")  # type: ignore[arg-type]


ZERO_SCORE_VIEWS = {
    "curve": lambda f: pr.roc_curve(f, direction="lower")["threshold"],
    "gains": lambda f: pr.gains_table(f, 2, direction="lower")["score_min"],
    "best": lambda f: pr.best_threshold(f, direction="lower")["threshold"],
    "average_curve": lambda f: pr.average_curve(
        f.with_columns(fold=pl.int_range(pl.len()) // 3), method="threshold", direction="lower"
    )["threshold"],
    "bootstrap_cutpoint": lambda f: pr.bootstrap_cutpoint(f, n_boot=5, seed=1, direction="lower")[
        "threshold"
    ],
}


@pytest.mark.parametrize("name", list(ZERO_SCORE_VIEWS))
def test_a_zero_score_comes_back_as_zero_not_minus_zero(name: str) -> None:
    # Negating the internal 0.0 back gave -0.0, printed as a threshold of "-0.0".
    log = pl.DataFrame({"score": [0.0, 0.0, 0.5, 1.0, 0.0, 0.5], "label": [1, 0, 1, 0, 1, 0]})
    column = ZERO_SCORE_VIEWS[name](log).drop_nulls()
    zeros = column.filter(column == 0.0).to_numpy()
    assert zeros.size and not np.signbit(zeros).any()
