"""Altair charts of the curve frames: ROC, precision-recall, gains, lift, averaged curves,
and of a model's validation: reliability diagram, stability over periods.

The functions take the tidy frames of :func:`polars_roc.roc_curve`,
:func:`polars_roc.decision_curve`, :func:`polars_roc.disparity`,
:func:`polars_roc.confusion_matrix`, :func:`polars_roc.optimal_point`,
:func:`polars_roc.gains_table`, :func:`polars_roc.lift_curve`,
:func:`polars_roc.average_curve` (and the precision-recall frame) and return
unconfigured Altair charts: no title, no ``configure_*``, no change to Altair's global
state. Layers are built first and faceted after, so a caller can still add layers to a
single-panel chart, facet it, or configure it.

Every chart carries its data inline, as one dataset. Rows that are not curve points (the
chance line, AUC notes, hull vertices, operating points, iso-performance lines, PR
baselines) are marked by a ``_layer`` field and each layer filters its own rows: a
faceted chart needs all its data at the top level.

Curves longer than ``max_points`` are thinned before they are drawn, within a bound on
the area (:mod:`polars_roc.charts.thinning`); the AUC printed on a chart is the exact one.
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
