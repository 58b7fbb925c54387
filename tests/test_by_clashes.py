"""`by` columns named like a view's result columns are refused, not overwritten.

Every public function that takes a frame and segments (``by=``, or ``within=`` for
:func:`polars_roc.compare_groups`) checks the segment names against the columns it adds
to the result, before any work: a segment called ``precision`` next to a computed
``precision`` column would otherwise be silently overwritten (wrong groups) or make
polars raise a ``DuplicateError`` deep inside the plan.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr

KINDS = ["eager", "lazy"]

# Two segments of eight rows; in each segment every fold, every bootstrap set (in-bag
# and out-of-bag rows), every compared group and every class holds both labels.
DATA = pl.DataFrame(
    {
        "seg": ["a"] * 8 + ["b"] * 8,
        "fold": [0, 0, 0, 0, 1, 1, 1, 1] * 2,
        "in_bag": [2, 0, 1, 0, 1, 1, 0, 0] * 2,
        "score": [0.9, 0.4, 0.6, 0.1, 0.8, 0.3, 0.2, 0.7, 0.5, 0.45, 0.3, 0.9, 0.1, 0.2, 0.8, 0.6],
        "score_b": [0.7, 0.4, 0.5, 0.9, 0.6, 0.2, 0.3, 0.8] * 2,
        "label": [1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0],
        "grp": ["n", "s"] * 8,
        "mlabel": ["x", "y", "z", "x", "y", "z", "x", "y"] * 2,
        "px": [0.6, 0.3, 0.2, 0.3, 0.4, 0.1, 0.5, 0.2] * 2,
        "py": [0.3, 0.5, 0.2, 0.3, 0.2, 0.3, 0.3, 0.6] * 2,
        "pz": [0.1, 0.2, 0.6, 0.4, 0.4, 0.6, 0.2, 0.2] * 2,
    }
)
SCORES = {"x": "px", "y": "py", "z": "pz"}
BOOT = {"n_boot": 20, "seed": 1}

Call = Callable[[pl.DataFrame | pl.LazyFrame, str], pl.DataFrame | pl.LazyFrame]

# One call per public function (and per option that changes the result columns), with
# the segment column passed as `seg`.
CALLS: dict[str, Call] = {
    "score_table": lambda f, s: pr.score_table(f, by=s),
    "roc_curve": lambda f, s: pr.roc_curve(f, by=s),
    "roc_curve-costs": lambda f, s: pr.roc_curve(f, by=s, cost_fp=1.0, cost_fn=5.0),
    "roc_auc": lambda f, s: pr.roc_auc(f, by=s),
    "roc_auc-delong": lambda f, s: pr.roc_auc(f, by=s, ci="delong"),
    "roc_auc-bootstrap": lambda f, s: pr.roc_auc(f, by=s, ci="bootstrap", **BOOT),
    "roc_auc_in_batches": lambda f, s: pr.roc_auc_in_batches(f, by=s, batch_rows=50, ci="delong"),
    "confusion_matrix": lambda f, s: pr.confusion_matrix(f, 0.5, by=s, beta=2.0),
    "confusion_matrix-costs": lambda f, s: pr.confusion_matrix(
        f, 0.5, by=s, cost_fp=1.0, cost_fn=5.0
    ),
    "best_threshold": lambda f, s: pr.best_threshold(f, by=s),
    "optimal_cutpoint": lambda f, s: pr.optimal_cutpoint(f, "f1", by=s, cost_fp=2.0),
    "bootstrap_cutpoint": lambda f, s: pr.bootstrap_cutpoint(f, "f1", by=s, n_boot=5, seed=1),
    "pr_auc": lambda f, s: pr.pr_auc(f, by=s),
    "prbe": lambda f, s: pr.prbe(f, by=s),
    "det_curve": lambda f, s: pr.det_curve(f, by=s),
    "threshold_at": lambda f, s: pr.threshold_at(f, tpr=0.5, by=s),
    "ks_statistic": lambda f, s: pr.ks_statistic(f, by=s),
    "gains_table": lambda f, s: pr.gains_table(f, 2, by=s),
    "lift_curve": lambda f, s: pr.lift_curve(f, by=s),
    "roc_hull": lambda f, s: pr.roc_hull(f, by=s),
    "roc_hull-all": lambda f, s: pr.roc_hull(f, by=s, points="all"),
    "hull_auc": lambda f, s: pr.hull_auc(f, by=s),
    "optimal_point": lambda f, s: pr.optimal_point(f, by=s),
    "pr_curve": lambda f, s: pr.pr_curve(f, by=s),
    "pr_average_precision": lambda f, s: pr.pr_average_precision(f, by=s),
    "tpr_at": lambda f, s: pr.tpr_at(f, 0.5, by=s, ci="bootstrap", **BOOT),
    "fpr_at": lambda f, s: pr.fpr_at(f, 0.5, by=s, ci="bootstrap", **BOOT),
    "compare": lambda f, s: pr.compare(f, ["score", "score_b"], by=s),
    "compare-bootstrap": lambda f, s: pr.compare(
        f, ["score", "score_b"], by=s, ci="bootstrap", **BOOT
    ),
    "compare_groups": lambda f, s: pr.compare_groups(f, by="grp", groups=("n", "s"), within=s),
    "compare_power": lambda f, s: pr.compare_power(f, ["score", "score_b"], by=s, power=0.8),
    "compare_groups-bootstrap": lambda f, s: pr.compare_groups(
        f, by="grp", groups=("n", "s"), within=s, ci="bootstrap", **BOOT
    ),
    "compare_long": lambda f, s: pr.compare_long(
        f.with_row_index("case").unpivot(
            ["score", "score_b"],
            index=["case", "label", s],
            variable_name="model",
            value_name="value",
        ),
        ("score", "score_b"),
        case="case",
        score="value",
        by=s,
    ),
    "average_curve": lambda f, s: pr.average_curve(f, by=s, grid=3),
    "average_curve-threshold": lambda f, s: pr.average_curve(f, by=s, grid=3, method="threshold"),
    "fold_summary": lambda f, s: pr.fold_summary(f, by=s, threshold=0.5),
    "bootstrap632_summary": lambda f, s: pr.bootstrap632_summary(f, by=s, threshold=0.5),
    "multiclass_auc": lambda f, s: pr.multiclass_auc(f, SCORES, label="mlabel", by=s),
    "multiclass_auc-hand_till": lambda f, s: pr.multiclass_auc(
        f, SCORES, label="mlabel", by=s, method="hand_till"
    ),
    "multiclass_confusion": lambda f, s: pr.multiclass_confusion(f, SCORES, label="mlabel", by=s),
    "multiclass_agreement": lambda f, s: pr.multiclass_agreement(f, SCORES, label="mlabel", by=s),
    "multiclass_measures": lambda f, s: pr.multiclass_measures(
        f, SCORES, label="mlabel", by=s, beta=2.0
    ),
    "multiclass_measures-micro": lambda f, s: pr.multiclass_measures(
        f, SCORES, label="mlabel", by=s, average="micro", beta=2.0
    ),
}
# Over time: the period is the fold column under another name (a result column).
CALLS |= {
    "trend": lambda f, s: pr.trend(
        f.with_columns(pl.col("fold").alias("period")), period="period", by=s, ci="delong"
    ),
    "trend-paired": lambda f, s: pr.trend(
        f.with_columns(pl.col("fold").alias("period")),
        period="period",
        by=s,
        scores=["score", "score_b"],
    ),
    "drift": lambda f, s: pr.drift(
        f.with_columns(pl.col("fold").alias("period")), period="period", by=s
    ),
}
# Intervals at thresholds and Venkatraman's tests of whole curves (issue 17).
CALLS |= {
    "threshold_ci": lambda f, s: pr.threshold_ci(f, [0.5], by=s, measures=["tpr", "f1"], **BOOT),
    "compare_curves": lambda f, s: pr.compare_curves(f, ["score", "score_b"], by=s, **BOOT),
    "compare_curves_groups": lambda f, s: pr.compare_curves_groups(
        f, by="grp", groups=("n", "s"), within=s, **BOOT
    ),
}
# Calibration, grades, stability and estimates (issue 25); decision curves and
# disparities (issue 26). The grade is `grp`; the period of psi is `fold`.
CALLS |= {
    "calibration_curve": lambda f, s: pr.calibration_curve(f, 4, by=s, ci="wilson"),
    "brier_decomposition": lambda f, s: pr.brier_decomposition(f, 4, by=s),
    "calibration_error": lambda f, s: pr.calibration_error(f, 4, by=s),
    "calibration_test": lambda f, s: pr.calibration_test(f, n_bins=3, by=s),
    "grade_test": lambda f, s: pr.grade_test(f, "grp", by=s),
    "grade_summary": lambda f, s: pr.grade_summary(f, "grp", by=s),
    "psi": lambda f, s: pr.psi(
        f.with_columns(pl.col("fold").alias("period")), "period", by=s, n_bins=2
    ),
    "estimated_auc": lambda f, s: pr.estimated_auc(f, by=s),
    "estimated_confusion": lambda f, s: pr.estimated_confusion(f, 0.5, by=s),
    "decision_curve": lambda f, s: pr.decision_curve(f, [0.2, 0.5], by=s),
    "disparity": lambda f, s: pr.disparity(f, 0.5, group="grp", by=s),
    "disparity_summary": lambda f, s: pr.disparity_summary(f, 0.5, group="grp", by=s),
}
# Views that read the fold column of DATA (a segment cannot be called `fold` there).
FOLD_VIEWS = {"average_curve", "average_curve-threshold", "fold_summary", "bootstrap632_summary"}
FOLD_VIEWS |= {"trend", "trend-paired", "drift", "psi"}
# Public functions taking a frame without segments: nothing to clash with.
NO_SEGMENTS = {"folds", "one_vs_rest", "confusion_chart", "det_chart", "pr_chart", "roc_chart"}
NO_SEGMENTS |= {"decision_chart"}

_REFERENCE: dict[str, pl.DataFrame] = {}


def reference(name: str) -> pl.DataFrame:
    """The call's result on DATA with the segment column `seg` (computed once)."""
    if name not in _REFERENCE:
        _REFERENCE[name] = CALLS[name](DATA, "seg")
    return _REFERENCE[name]


def as_kind(frame: pl.DataFrame, kind: str) -> pl.DataFrame | pl.LazyFrame:
    return frame if kind == "eager" else frame.lazy()


def collected(result: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return result.collect() if isinstance(result, pl.LazyFrame) else result


def test_every_public_frame_function_is_covered() -> None:
    segmented, plain = set(), set()
    for name in pr.__all__:
        function = getattr(pr, name)
        if not inspect.isfunction(function):
            continue
        parameters = list(inspect.signature(function).parameters)
        if parameters and parameters[0] == "table":
            continue  # score_counts reshapes a score table; it adds no result columns
        if "by" in parameters:
            segmented.add(name)
        elif parameters[0] in ("frame", "curve", "confusion"):
            plain.add(name)
    assert segmented == {call.split("-")[0] for call in CALLS}
    assert plain == NO_SEGMENTS


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", list(CALLS))
def test_segment_named_like_a_result_column_is_refused(name: str, kind: str) -> None:
    added = [c for c in reference(name).columns if c != "seg"]
    assert added  # every view adds columns beside the groups
    assert not set(added) & set(DATA.columns)
    for column in added:
        frame = as_kind(DATA.rename({"seg": column}), kind)
        with pytest.raises(ValueError, match="collide with result columns") as info:
            CALLS[name](frame, column)
        assert repr(column) in str(info.value)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", list(CALLS))
def test_segment_with_another_name_works(name: str, kind: str) -> None:
    # `class` (after one_vs_rest) and `fold` are names users group binary views by.
    names = ["segment"]
    names += [] if "class" in reference(name).columns else ["class"]
    names += [] if name in FOLD_VIEWS else ["fold"]
    for column in names:
        data = DATA if column != "fold" else DATA.drop("fold", "in_bag")
        result = collected(CALLS[name](as_kind(data.rename({"seg": column}), kind), column))
        assert_frame_equal(result, reference(name).rename({"seg": column}))


# Columns a view computes next to the groups on the way to its result: a segment of
# that name would be overwritten (wrong groups) or make polars raise DuplicateError.
SCRATCH = [
    ("hull_auc", "tpr"),
    ("hull_auc", "fpr"),
    ("hull_auc", "vertex"),
    ("hull_auc", "on_hull"),
    ("roc_hull", "vertex"),
    ("roc_hull", "on_hull"),
    ("roc_auc-delong", "auc_var"),
    ("compare_groups", "auc"),
    ("compare_groups", "auc_var"),
    ("compare_groups", "var"),
    ("compare_groups", "rows"),
    ("fold_summary", "value"),
    ("fold_summary", "accuracy"),
    ("fold_summary", "kappa_level"),
    ("bootstrap632_summary", "value"),
    ("bootstrap632_summary", "tn"),
    ("multiclass_auc", "support"),
    ("multiclass_auc", "others"),
    ("multiclass_measures", "count"),
    ("multiclass_measures-micro", "tp"),
    ("multiclass_measures-micro", "fn"),
]


@pytest.mark.parametrize(("name", "column"), SCRATCH)
def test_segment_named_like_a_working_column_is_refused(name: str, column: str) -> None:
    assert column not in reference(name).columns
    with pytest.raises(ValueError, match="collide with result columns"):
        CALLS[name](DATA.rename({"seg": column}), column)


@pytest.mark.parametrize("name", ["start", "n", "at", "wide", "tied", "twice_u", "run_end"])
def test_segment_named_like_an_internal_column_works(name: str) -> None:
    # The packed-key paths use working columns; a segment of the same name must not clash.
    rng = np.random.default_rng(3)
    df = pl.DataFrame(
        {
            "seg": rng.choice(["a", "b"], 400),
            "score": rng.normal(size=400),
            "label": rng.random(400) < 0.4,
        }
    )
    renamed = df.rename({"seg": name})
    for function in (pr.roc_auc, pr.roc_curve, pr.score_table):
        expected = function(df, by="seg").rename({"seg": name})
        assert_frame_equal(function(renamed, by=name), expected)
