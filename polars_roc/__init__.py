"""ROC analysis of prediction logs in polars: curves, AUC and confusion measures per segment.

Importing the package registers the ``roc`` namespace on ``DataFrame`` and ``LazyFrame``.
"""

from __future__ import annotations

from polars_roc import datasets
from polars_roc import namespace as _namespace  # noqa: F401  (registers `.roc`)
from polars_roc.core.costs import iso_slope
from polars_roc.core.measures import KAPPA_LEVELS
from polars_roc.core.score_counts import score_counts
from polars_roc.core.score_table import score_table
from polars_roc.evaluation.agreement import multiclass_agreement
from polars_roc.evaluation.averaging import average_curve
from polars_roc.evaluation.folds import bootstrap632, bootstrap632_summary, fold_summary, folds
from polars_roc.evaluation.multiclass import (
    multiclass_auc,
    multiclass_confusion,
    multiclass_measures,
    one_vs_rest,
)
from polars_roc.stats.auc_interval import auc_se
from polars_roc.stats.paired_tests import compare, compare_long
from polars_roc.stats.power import (
    auc_detectable,
    auc_diff_power,
    auc_diff_sample_size,
    auc_power,
    auc_sample_size,
    compare_power,
)
from polars_roc.stats.rate_at_rate import fpr_at, tpr_at
from polars_roc.stats.threshold_ci import threshold_ci
from polars_roc.stats.unpaired_tests import compare_groups
from polars_roc.stats.venkatraman import compare_curves, compare_curves_groups
from polars_roc.views.area import trapezoid
from polars_roc.views.auc import auc, gini, roc_auc
from polars_roc.views.batched import roc_auc_in_batches
from polars_roc.views.break_even import prbe
from polars_roc.views.calibration import (
    brier,
    brier_decomposition,
    calibration_curve,
    calibration_error,
    calibration_test,
    log_loss,
)
from polars_roc.views.confusion import confusion_matrix
from polars_roc.views.curve import roc_curve
from polars_roc.views.cutpoints import bootstrap_cutpoint, optimal_cutpoint
from polars_roc.views.decision import decision_curve
from polars_roc.views.det import det_curve
from polars_roc.views.disparity import disparity, disparity_summary
from polars_roc.views.estimated import estimated_auc, estimated_confusion
from polars_roc.views.gains import gains_table, ks, ks_statistic, lift_curve
from polars_roc.views.grades import grade_summary, grade_test
from polars_roc.views.hull import hull_auc, optimal_point, roc_hull
from polars_roc.views.operating import best_threshold, threshold_at
from polars_roc.views.pr import average_precision, pr_auc, pr_average_precision, pr_curve
from polars_roc.views.stability import psi
from polars_roc.views.trend import drift, trend

__version__ = "0.1.0"

# The chart functions live in `polars_roc.charts`, which imports altair; they are loaded
# on first use so that `import polars_roc` stays light.
_CHARTS = (
    *("average_chart", "calibration_chart", "confusion_chart", "decision_chart", "det_chart"),
    *("disparity_chart", "gains_chart", "pr_chart", "psi_chart", "roc_chart", "trend_chart"),
)


def __getattr__(name: str) -> object:
    if name in _CHARTS:
        from polars_roc import charts

        return getattr(charts, name)
    msg = f"module 'polars_roc' has no attribute {name!r}"
    raise AttributeError(msg)


__all__ = [
    "KAPPA_LEVELS",
    "auc",
    "auc_detectable",
    "auc_diff_power",
    "auc_diff_sample_size",
    "auc_power",
    "auc_sample_size",
    "auc_se",
    "average_chart",
    "average_curve",
    "average_precision",
    "best_threshold",
    "bootstrap632",
    "bootstrap632_summary",
    "bootstrap_cutpoint",
    "brier",
    "brier_decomposition",
    "calibration_chart",
    "calibration_curve",
    "calibration_error",
    "calibration_test",
    "compare",
    "compare_curves",
    "compare_curves_groups",
    "compare_groups",
    "compare_long",
    "compare_power",
    "confusion_chart",
    "confusion_matrix",
    "datasets",
    "decision_chart",
    "decision_curve",
    "det_chart",
    "det_curve",
    "disparity",
    "disparity_chart",
    "disparity_summary",
    "drift",
    "estimated_auc",
    "estimated_confusion",
    "fold_summary",
    "folds",
    "fpr_at",
    "gains_chart",
    "gains_table",
    "gini",
    "grade_summary",
    "grade_test",
    "hull_auc",
    "iso_slope",
    "ks",
    "ks_statistic",
    "lift_curve",
    "log_loss",
    "multiclass_agreement",
    "multiclass_auc",
    "multiclass_confusion",
    "multiclass_measures",
    "one_vs_rest",
    "optimal_cutpoint",
    "optimal_point",
    "pr_auc",
    "pr_average_precision",
    "pr_chart",
    "pr_curve",
    "prbe",
    "psi",
    "psi_chart",
    "roc_auc",
    "roc_auc_in_batches",
    "roc_chart",
    "roc_curve",
    "roc_hull",
    "score_counts",
    "score_table",
    "threshold_at",
    "threshold_ci",
    "tpr_at",
    "trapezoid",
    "trend",
    "trend_chart",
]
