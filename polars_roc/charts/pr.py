"""The precision-recall chart and its baselines."""

from __future__ import annotations

import math
from typing import cast

import altair as alt
import polars as pl

from polars_roc.charts.data import check_roles as _roles
from polars_roc.charts.data import collect_frame as _collect
from polars_roc.charts.layers import (
    PR_VALUE_COLUMNS,
    ROC_VALUE_COLUMNS,
    Frame,
    Points,
    _add_notes,
    _add_points,
    _assemble,
    _attach,
    _color,
    _curve_layer,
    _curve_points,
    _label_fields,
    _labels,
    _marked,
    _require,
    _rows,
    _summary,
    _unit_scale,
    _valued,
)
from polars_roc.charts.thinning import DEFAULT_MAX_POINTS, _check_max_points
from polars_roc.core.compat import lag
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import group_end, group_start
from polars_roc.views.pr import precision_at

PR_X_TITLE = "Recall (true positive rate)"

PR_Y_TITLE = "Precision (positive predictive value)"


def pr_points(curve: Frame) -> Frame:
    """Precision-recall points from a :func:`polars_roc.roc_curve` frame.

    ``precision = tp / (tp + fp)`` and ``recall = tpr`` at each threshold; the start point
    (threshold +inf, nothing predicted positive) gets precision 1, as in scikit-learn.

    Returns
    -------
    DataFrame or LazyFrame
        The curve's group columns, then ``threshold, tp, fp, precision, recall``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> from polars_roc.charts import pr_points
    >>> log = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.3], "label": [1, 0, 1, 0]})
    >>> pr_points(pr.roc_curve(log)).select("threshold", "precision", "recall")
    shape: (5, 3)
    ┌───────────┬───────────┬────────┐
    │ threshold ┆ precision ┆ recall │
    │ ---       ┆ ---       ┆ ---    │
    │ f64       ┆ f64       ┆ f64    │
    ╞═══════════╪═══════════╪════════╡
    │ inf       ┆ 1.0       ┆ 0.0    │
    │ 0.9       ┆ 1.0       ┆ 0.5    │
    │ 0.8       ┆ 0.5       ┆ 0.5    │
    │ 0.7       ┆ 0.666667  ┆ 1.0    │
    │ 0.3       ┆ 0.5       ┆ 1.0    │
    └───────────┴───────────┴────────┘
    """
    lazy = curve.lazy() if isinstance(curve, pl.DataFrame) else curve
    names = lazy.collect_schema().names()
    groups = [c for c in names if c not in ROC_VALUE_COLUMNS]
    precision = precision_at(pl.col("tp"), pl.col("fp"), start=pl.col("threshold") == math.inf)
    recall = pl.col("tpr").alias("recall")
    result = lazy.select(*groups, "threshold", "tp", "fp", precision.alias("precision"), recall)
    return result.collect() if isinstance(curve, pl.DataFrame) else result


def pr_chart(
    curve: Frame,
    *,
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
    points: Points = None,
    max_points: int | None = DEFAULT_MAX_POINTS,
) -> alt.LayerChart | alt.FacetChart:
    """Precision-recall curves as an Altair chart, with the baseline at the prevalence.

    Takes a precision-recall frame (columns ``threshold, tp, fp, precision, recall`` per
    group: :func:`polars_roc.pr_curve`) or a :func:`polars_roc.roc_curve` frame, which it
    converts with :func:`pr_points`. Each curve is drawn as steps from recall 0, precision
    1: scikit-learn's ``PrecisionRecallDisplay`` path (docs/report.md). A dashed rule
    marks each curve's prevalence ``n_pos / n``, the precision of a random classifier.
    The average precision ``sum((recall[i] - recall[i-1]) * precision[i])`` of every
    curve (before thinning) goes to the legend, the facet header or a note, as in
    :func:`roc_chart`.

    Parameters
    ----------
    curve
        Precision-recall or ROC curve frame, eager or lazy.
    color, facet, columns, max_points
        As in :func:`roc_chart`.
    points
        Operating points: thresholds, a frame with ``threshold``, or ``confusion(...)``
        rows (columns ``ppv``, ``tpr``).

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Layers: baselines, curves, then operating points and notes; faceted last.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.3], "label": [1, 0, 1, 0]})
    >>> spec = pr.pr_chart(pr.roc_curve(log)).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'line']
    >>> spec["layer"][1]["encoding"]["color"]["sort"]
    ['AP 0.833']
    """
    _check_max_points(max_points)
    full = _collect(curve, "curve")
    if "precision" not in full.columns and "tpr" in full.columns:
        full = cast(pl.DataFrame, pr_points(full))
    _require(
        full,
        ["threshold", "tp", "fp", "precision", "recall"],
        "curve",
        "pass a precision-recall frame or the frame of roc_curve(...)",
    )
    color, facet = _roles(full, PR_VALUE_COLUMNS, color, facet, columns, "curve")
    groups = [g for g in (facet, color) if g is not None]
    recall, precision = pl.col("recall"), pl.col("precision")
    step = pl.when(group_start(groups)).then(0.0).otherwise((recall - lag(recall)) * precision)
    summary = _summary(full, groups, step, ("recall", "precision"))
    labels = _labels(summary, color, facet, _valued("AP"))

    drawn = _curve_points(full, labels, groups, "recall", "precision", max_points)
    label_fields = _label_fields(labels)
    # The last point (lowest threshold) predicts everything positive: its precision is
    # the prevalence.
    ends = full.filter(group_end(groups)).select(
        *groups, ratio(pl.col("tp"), pl.col("tp") + pl.col("fp")).alias("_base")
    )
    baselines = _marked(_attach(ends, labels, groups).select(*label_fields, "_base"), "baseline")
    frames = [baselines, drawn]
    curves = _curve_layer(
        labels, color, "recall", "precision", PR_X_TITLE, PR_Y_TITLE, "step-before"
    )
    layers = [_baseline_layer(labels, color), curves]
    if points is not None:
        sources = {"recall": "tpr", "precision": "ppv"}
        _add_points(
            frames, layers, full, points, groups, labels, color, ("recall", "precision"), sources
        )
    _add_notes(frames, layers, labels, color, facet, "precision")
    return _assemble(layers, frames, labels, facet, columns)


def _baseline_layer(labels: pl.DataFrame, color: str | None) -> alt.Chart:
    channels = _color(labels, color) or {"color": alt.value("gray")}
    return (
        _rows("baseline")
        .mark_rule(strokeDash=[4, 4], opacity=0.7)
        .encode(
            x=alt.datum(0, scale=_unit_scale()),
            x2=alt.datum(1),
            y=alt.Y("_base:Q", scale=_unit_scale()),
            tooltip=[alt.Tooltip("_base:Q", title="prevalence", format=".4f")],
            **channels,
        )
    )
