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

Thinning
--------
A curve with more than ``max_points`` points is thinned before it is drawn, so that
a curve of millions of points neither trips Altair's row limit nor ships megabytes of
JSON. The first and last points are always kept. First the points lying on the straight
line through their neighbours go (drawing and area unchanged). If the curve is still too
long, it is cut into ``B = max_points // 3`` pieces of equal length, the length being
measured along the curve (``|dx| + |dy|`` summed point to point; for a ROC curve this is
``fpr + tpr``, from 0 to 2). Each piece keeps its first point, its last point and the
point where the curve turns most, i.e. the farthest from the straight line joining the
piece's ends. So at most ``3 * B <= max_points`` points remain, and every dropped point
lies within ``L / B`` (in ``|dx| + |dy|``) of the drawn line, ``L`` being the curve's
length.

Area bound (ROC curves). A kept segment between points ``a`` and ``b`` replaces a
monotone stretch of the curve, which stays inside the rectangle spanned by ``a`` and
``b``; the trapezoid areas under the two differ by at most half that rectangle,
``dfpr * dtpr / 2``. Within one piece these rectangles add up to at most
``(h / 2)**2 / 2`` where ``h = 2 / B`` is the piece length, and segments joining two
pieces are original segments (no error). Hence

    ``|trapezoid area of the thinned curve - exact AUC| <= 1 / (2 * B)``,

``B = max_points // 3``: at most 0.0015 for the default ``max_points=1000``
(:func:`thinning_bound`). The AUC printed on the charts is always the exact one, computed
before thinning.
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
