"""Altair charts of the library's frames (curves, confusion, gains, averaged curves,
decision curves, disparity, trend, calibration, stability), unconfigured: no title, no
``configure_*``, no change to Altair's global state. Layers are built first and faceted
after, so a caller can still add layers, facet or configure. The inline data, its
``_layer`` rows and the thinning of long curves: docs/report.md ("The chart data",
"Thinning and its area bound").
"""

from __future__ import annotations

from polars_roc.charts.average import average_chart
from polars_roc.charts.confusion import confusion_chart
from polars_roc.charts.decision import decision_chart
from polars_roc.charts.det import det_chart
from polars_roc.charts.disparity import disparity_chart
from polars_roc.charts.gains import gains_chart
from polars_roc.charts.plotting import plot
from polars_roc.charts.pr import pr_chart, pr_points
from polars_roc.charts.roc import roc_chart
from polars_roc.charts.thinning import DEFAULT_MAX_POINTS, thin_curve, thinning_bound
from polars_roc.charts.trend import trend_chart
from polars_roc.charts.validation import calibration_chart, psi_chart

__all__ = [
    "DEFAULT_MAX_POINTS",
    "average_chart",
    "calibration_chart",
    "confusion_chart",
    "decision_chart",
    "det_chart",
    "disparity_chart",
    "gains_chart",
    "plot",
    "pr_chart",
    "pr_points",
    "psi_chart",
    "roc_chart",
    "thin_curve",
    "thinning_bound",
    "trend_chart",
]
