"""Lazy means lazy: a LazyFrame call reads its source once (the value checks), and the
plan it returns reads it once more when collected.

The source is a Python IO plugin that counts how often Polars asks it for rows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from polars.io.plugins import register_io_source

import polars_roc as pr  # registers .roc
from polars_roc.core.compat import SIDE_BY_SIDE

N = 3000
_rng = np.random.default_rng(0)
BASE = pl.DataFrame(
    {
        "segment": _rng.choice(["a", "b", "c"], N),
        "score": np.round(_rng.uniform(size=N), 3),
        "score2": _rng.uniform(size=N),
        "label": _rng.integers(0, 2, N),
        "fold": _rng.integers(0, 3, N),
        "n": _rng.integers(0, 5, N),
        # Multi-class: the true class, one score per class, a predicted class; and weights.
        "cls": _rng.choice(["x", "y", "z"], N),
        "p_x": _rng.uniform(size=N),
        "p_y": _rng.uniform(size=N),
        "p_z": _rng.uniform(size=N),
        "guess": _rng.choice(["x", "y", "z"], N),
        "w": _rng.uniform(size=N),
    }
)
CLASS_SCORES = {"x": "p_x", "y": "p_y", "z": "p_z"}


class CountingSource:
    """A LazyFrame over ``BASE`` that counts the scans Polars runs."""

    def __init__(self) -> None:
        self.reads = 0

    def frame(self) -> pl.LazyFrame:
        def scan(with_columns, predicate, n_rows, batch_size):  # type: ignore[no-untyped-def]
            self.reads += 1
            rows = BASE if with_columns is None else BASE.select(with_columns)
            yield rows if predicate is None else rows.filter(predicate)

        return register_io_source(io_source=scan, schema=BASE.schema)


VIEWS: dict[str, Callable[[pl.LazyFrame], pl.LazyFrame]] = {
    "score_table": lambda lf: lf.roc.score_table(by="segment"),
    "curve": lambda lf: lf.roc.curve(by="segment"),
    "curve_lower": lambda lf: lf.roc.curve(by="segment", direction="lower"),
    "auc": lambda lf: lf.roc.auc(by="segment"),
    "auc_ungrouped": lambda lf: lf.roc.auc(),
    "auc_count": lambda lf: lf.roc.auc(by="segment", count="n"),
    "auc_delong": lambda lf: lf.roc.auc(by="segment", ci="delong"),
    "auc_bootstrap": lambda lf: lf.roc.auc(by="segment", ci="bootstrap", n_boot=20, seed=1),
    "confusion": lambda lf: lf.roc.confusion([0.3, 0.5], by="segment"),
    "compare": lambda lf: lf.roc.compare(["score", "score2"], by="segment"),
    "compare_bootstrap": lambda lf: lf.roc.compare(
        ["score", "score2"], ci="bootstrap", n_boot=20, seed=1
    ),
    "compare_groups": lambda lf: lf.roc.compare_groups(by="segment", groups=("a", "b")),
    "pr_curve": lambda lf: lf.roc.pr_curve(by="segment"),
    "average_precision": lambda lf: lf.roc.average_precision(by="segment"),
    "ks": lambda lf: lf.roc.ks(by="segment"),
    "gains": lambda lf: lf.roc.gains(by="segment"),
    "lift": lambda lf: lf.roc.lift(by="segment"),
    "hull": lambda lf: lf.roc.hull(by="segment"),
    "hull_auc": lambda lf: lf.roc.hull_auc(by="segment"),
    "best_threshold": lambda lf: lf.roc.best_threshold(by="segment"),
    "threshold_at": lambda lf: lf.roc.threshold_at(fpr=0.1, by="segment"),
    "tpr_at": lambda lf: lf.roc.tpr_at(0.1, by="segment", ci="bootstrap", n_boot=20, seed=1),
    "summary": lambda lf: lf.roc.summary(fold="fold"),
    "average_curve": lambda lf: lf.roc.average_curve(fold="fold"),
    # The other public views, as functions.
    "curve_weighted": lambda lf: pr.roc_curve(lf, by="segment", weight="w"),
    "confusion_weighted": lambda lf: pr.confusion_matrix(lf, 0.5, by="segment", weight="w"),
    "auc_partial": lambda lf: pr.roc_auc(lf, by="segment", max_fpr=0.2),
    "pr_auc": lambda lf: pr.pr_auc(lf, by="segment"),
    "det_curve": lambda lf: pr.det_curve(lf, by="segment"),
    "fpr_at": lambda lf: pr.fpr_at(lf, 0.5, by="segment"),
    "optimal_point": lambda lf: pr.optimal_point(lf, by="segment"),
    "roc_hull_all": lambda lf: pr.roc_hull(lf, by="segment", points="all"),
    "optimal_cutpoint": lambda lf: pr.optimal_cutpoint(lf, "f1", by="segment"),
    "bootstrap_cutpoint": lambda lf: pr.bootstrap_cutpoint(
        lf, "f1", by="segment", n_boot=5, seed=1
    ),
    "bootstrap632_summary": lambda lf: pr.bootstrap632_summary(
        lf.with_columns(in_bag=pl.col("n")), fold="fold", in_bag="in_bag", threshold=0.5
    ),
    "average_curve_threshold": lambda lf: pr.average_curve(
        lf, fold="fold", method="threshold", grid=5
    ),
    "compare_groups_weighted_bootstrap": lambda lf: lf.roc.compare_groups(
        by="segment", groups=("a", "b"), weight="w", ci="bootstrap", n_boot=20, seed=1
    ),
    "drift": lambda lf: pr.drift(
        lf.with_columns(period=pl.col("fold")), period="period", by="segment"
    ),
    "trend_paired": lambda lf: pr.trend(
        lf.with_columns(period=pl.col("fold")), period="period", scores=["score", "score2"]
    ),
    "folds": lambda lf: pr.folds(lf, k=3, seed=1, name="fold2"),
}

# Issue 17: intervals at thresholds, Venkatraman's tests of whole curves.
VIEWS |= {
    "threshold_ci": lambda lf: lf.roc.threshold_ci([0.3, 0.5], by="segment", n_boot=20, seed=1),
    "threshold_ci_count": lambda lf: lf.roc.threshold_ci(0.5, count="n", n_boot=20, seed=1),
    "compare_curves": lambda lf: lf.roc.compare_curves(
        ["score", "score2"], by="segment", n_boot=20, seed=1
    ),
    "compare_curves_groups": lambda lf: lf.roc.compare_curves_groups(
        by="segment", groups=("a", "b"), n_boot=20, seed=1
    ),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_one_read_at_call_and_one_at_collect(name: str) -> None:
    source = CountingSource()
    plan = VIEWS[name](source.frame())
    assert isinstance(plan, pl.LazyFrame)
    assert source.reads == 1, f"{name} read its source {source.reads} times at call"
    plan.collect()
    assert source.reads == 2, f"{name} read its source {source.reads - 1} times at collect"


def test_bins_reads_the_source_twice_at_call_and_never_at_collect() -> None:
    # bins= is the mode for logs larger than memory: the value pass (which also finds
    # each group's score range), then one read of the rows, slice by slice off the
    # streaming engine, into the buckets, when the call is made; the plan returned
    # holds only the buckets, so collecting it reads nothing more.
    for view in (
        lambda lf: pr.roc_auc(lf, by="segment", bins=64),
        lambda lf: pr.roc_auc(lf, weight="w", bins=64),
        lambda lf: pr.roc_curve(lf, by="segment", count="n", bins=64),
        lambda lf: pr.score_table(lf, by="segment", bins=64, nulls="drop"),
    ):
        source = CountingSource()
        plan = view(source.frame())
        assert isinstance(plan, pl.LazyFrame)
        assert source.reads == 2
        plan.collect()
        assert source.reads == 2


def test_the_counting_source_counts() -> None:
    """The check above can fail: two independent plans over the source read it twice."""
    source = CountingSource()
    lf = source.frame()
    pl.concat(
        [lf.select(pl.len()), lf.select(pl.col("score").sum().cast(pl.UInt32))], how=SIDE_BY_SIDE
    ).collect()
    assert source.reads == 2


MULTICLASS: dict[str, Callable[[pl.LazyFrame], pl.LazyFrame]] = {
    "multiclass_auc": lambda lf: pr.multiclass_auc(lf, CLASS_SCORES, label="cls", by="segment"),
    "multiclass_auc_weighted": lambda lf: pr.multiclass_auc(
        lf, CLASS_SCORES, label="cls", weight="w", average="weighted"
    ),
    "multiclass_auc_hand_till": lambda lf: pr.multiclass_auc(
        lf, CLASS_SCORES, label="cls", by="segment", method="hand_till"
    ),
    "multiclass_confusion": lambda lf: pr.multiclass_confusion(
        lf, CLASS_SCORES, label="cls", by="segment"
    ),
    "multiclass_confusion_predicted": lambda lf: pr.multiclass_confusion(
        lf, predicted="guess", classes=["x", "y", "z"], label="cls"
    ),
    "multiclass_measures": lambda lf: pr.multiclass_measures(
        lf, CLASS_SCORES, label="cls", by="segment"
    ),
    "multiclass_measures_macro": lambda lf: pr.multiclass_measures(
        lf, CLASS_SCORES, label="cls", average="macro"
    ),
    "multiclass_agreement": lambda lf: pr.multiclass_agreement(
        lf, predicted="guess", classes=["x", "y", "z"], label="cls", by="segment"
    ),
    "multiclass_agreement_scores": lambda lf: pr.multiclass_agreement(
        lf, CLASS_SCORES, label="cls", kappa_weights="linear"
    ),
}
WEIGHTED_BOOTSTRAP: dict[str, Callable[[pl.LazyFrame], pl.LazyFrame]] = {
    "auc": lambda lf: lf.roc.auc(by="segment", weight="w", ci="bootstrap", n_boot=20, seed=1),
    "tpr_at": lambda lf: lf.roc.tpr_at(
        0.1, by="segment", weight="w", ci="bootstrap", n_boot=20, seed=1
    ),
    "compare": lambda lf: lf.roc.compare(
        ["score", "score2"], weight="w", ci="bootstrap", n_boot=20, seed=1
    ),
}


@pytest.mark.parametrize("name", list(MULTICLASS))
def test_multiclass_reads_once_at_call_and_once_at_collect(name: str) -> None:
    # One value pass over the k score columns, then one scan for the k class blocks
    # (or k (k - 1) pair blocks): not one scan per block.
    source = CountingSource()
    plan = MULTICLASS[name](source.frame())
    assert isinstance(plan, pl.LazyFrame)
    assert source.reads == 1, f"{name} read its source {source.reads} times at call"
    plan.collect()
    assert source.reads == 2, f"{name} read its source {source.reads - 1} times at collect"


def test_one_vs_rest_reads_nothing_at_call_and_once_at_collect() -> None:
    # A reshape checks the schema only; its k blocks share one scan.
    source = CountingSource()
    plan = pr.one_vs_rest(source.frame().drop("score", "label"), CLASS_SCORES, label="cls")
    assert source.reads == 0
    plan.collect()
    assert source.reads == 1


@pytest.mark.parametrize("name", list(WEIGHTED_BOOTSTRAP))
def test_weighted_bootstrap_reads_once_at_collect(name: str) -> None:
    source = CountingSource()
    plan = WEIGHTED_BOOTSTRAP[name](source.frame())
    assert source.reads == 1, f"{name} read its source {source.reads} times at call"
    plan.collect()
    assert source.reads == 2, f"{name} read its source {source.reads - 1} times at collect"


PLOTS: dict[str, Callable[[pl.LazyFrame], object]] = {
    "roc": lambda lf: lf.roc.plot(by="segment"),
    "roc_everything": lambda lf: lf.roc.plot(
        by="segment", hull=True, points=[0.3, 0.5], optimal="youden"
    ),
    "roc_costs": lambda lf: lf.roc.plot(by="segment", optimal={"cost_fn": 1.5}, points=0.5),
    "pr": lambda lf: lf.roc.plot(by="segment", kind="pr", points=[0.3, 0.5]),
}


@pytest.mark.parametrize("name", list(PLOTS))
def test_plot_builds_one_score_table(name: str) -> None:
    # The chart is data: one value pass, then one score table from which the curve, the
    # points at thresholds and the optimal points are all derived (was 1 read per layer).
    source = CountingSource()
    PLOTS[name](source.frame())
    assert source.reads == 2, f"plot {name} read its source {source.reads} times"


@pytest.mark.parametrize("direction", ["higher", "lower"])
@pytest.mark.parametrize("weight", [None, "w"])
def test_plot_from_one_table_is_the_views_charted(direction: str, weight: str | None) -> None:
    # Deriving every layer from one table changes no number: the chart is that of the
    # separate views, each of which builds its own table.
    options = {"by": "segment", "direction": direction, "weight": weight}
    made = BASE.roc.plot(**options, hull=True, points=[0.3, 0.5], optimal="youden")
    by_hand = pr.roc_chart(
        pr.roc_curve(BASE, **options),
        hull=True,
        points=pr.confusion_matrix(BASE, [0.3, 0.5], **options),
        optimal=pr.optimal_point(BASE, **options, slope=1.0),
    )
    assert made.to_dict() == by_hand.to_dict()
    pr_made = BASE.lazy().roc.plot(**options, kind="pr", points=0.5)
    pr_hand = pr.pr_chart(
        pr.pr_curve(BASE, **options), points=pr.confusion_matrix(BASE, 0.5, **options)
    )
    assert pr_made.to_dict() == pr_hand.to_dict()


def test_compare_long_reads_its_sides_once() -> None:
    # The pairing check and the comparison's value checks are collected together, and
    # the two models' sides of the join share one cached scan: one read at call (3 at
    # first, then 2), one at collect.
    source = CountingSource()
    long = (
        source.frame()
        .with_row_index("case")
        .unpivot(
            ["score", "score2"],
            index=["case", "label", "segment"],
            variable_name="model",
            value_name="value",
        )
    )
    plan = pr.compare_long(long, ("score", "score2"), case="case", score="value", by="segment")
    assert source.reads == 1
    plan.collect()
    assert source.reads == 2


@pytest.mark.parametrize("ci", [None, "delong", "bootstrap"])
def test_trend_plans_share_one_scan(ci: str | None) -> None:
    # trend checks its input once (its AUC and its KS come from one score table), then
    # one plan reads once.
    source = CountingSource()
    boot = {"n_boot": 20, "seed": 1} if ci == "bootstrap" else {}
    plan = pr.trend(
        source.frame().with_columns(period=pl.col("fold")),
        period="period",
        by="segment",
        ci=ci,
        **boot,
    )
    assert source.reads == 1
    plan.collect()
    assert source.reads == 2


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"direction": "lower"},
        {"weight": "w"},
        {"count": "n"},
        {"ci": "delong"},
        {"weight": "w", "ci": "bootstrap", "n_boot": 20, "seed": 1},
    ],
)
def test_trend_from_one_table_is_the_views_to_the_last_bit(options: dict) -> None:
    # One score table gives trend's AUC and KS: the same bits as roc_auc and
    # ks_statistic by period, each of which counts on its own.
    log = BASE.with_columns(period=pl.col("fold"))
    got = pr.trend(log.lazy(), period="period", by="segment", **options).collect()
    keys = ["segment", "period"]
    auc = pr.roc_auc(log, by=keys, **options)
    ks_options = {k: v for k, v in options.items() if k in ("direction", "weight", "count")}
    ks = pr.ks_statistic(log, by=keys, **ks_options)
    assert got.select(auc.columns).equals(auc)
    assert got.select(*keys, "ks").equals(ks.select(*keys, "ks"))
