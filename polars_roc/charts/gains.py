"""The gains and lift charts."""

from __future__ import annotations

from typing import Literal

import altair as alt
import polars as pl

from polars_roc.charts.data import check_roles as _roles
from polars_roc.charts.data import collect_frame as _collect
from polars_roc.charts.data import group_order as _order
from polars_roc.charts.layers import (
    CURVE,
    LAYER,
    PANEL,
    Frame,
    _as_text,
    _assemble,
    _attach,
    _chance_layer,
    _color,
    _coordinate,
    _group_tooltips,
    _label_fields,
    _marked,
    _panels,
    _require,
    _rows,
    _short_text,
    _unit_scale,
)
from polars_roc.charts.thinning import DEFAULT_MAX_POINTS, _check_max_points, _thin
from polars_roc.core.arguments import check_choice
from polars_roc.core.measures import ratio
from polars_roc.core.score_table import group_end
from polars_roc.views.gains import GAINS_COLUMNS

GAINS_X_TITLE = "Share of the population targeted (depth)"

GAINS_Y_TITLE = "Share of the positives captured (cumulative gain)"

BINNED_GAINS_COLUMNS = frozenset({*GAINS_COLUMNS, "pos", "neg"})

LIFT_CURVE_COLUMNS = frozenset({"threshold", "tp", "fp", "depth", "capture", "precision", "lift"})


def _group_labels(
    full: pl.DataFrame, groups: list[str], color: str | None, facet: str | None
) -> pl.DataFrame:
    """One row per curve: its groups, legend label ``_curve`` and header ``_panel``."""
    if not groups:  # one curve, no label: a one-row frame holds its place
        return pl.DataFrame({"_curves": [1]})
    keys = full.select(groups).unique(maintain_order=True)
    return keys.with_columns(
        _as_text(c).alias(f) for c, f in ((color, CURVE), (facet, PANEL)) if c is not None
    )


def gains_chart(
    table: Frame,
    *,
    kind: Literal["gains", "lift"] = "gains",
    color: str | None = None,
    facet: str | None = None,
    columns: int | None = None,
    max_points: int | None = DEFAULT_MAX_POINTS,
) -> alt.LayerChart | alt.FacetChart:
    """Cumulative gains or lift of a gains table or lift curve as an Altair chart.

    Takes the frame of :func:`polars_roc.gains_table` or :func:`polars_roc.lift_curve`.
    ``kind="gains"``: the share of the positives captured (``capture``) against the
    share of the population targeted from the top score down (depth: ``cum_count`` over
    the group's count for a gains table, ``depth`` for a lift curve), from (0, 0) to
    (1, 1), over the diagonal of random targeting. ``kind="lift"``: the lift of each bin
    (``lift``, bars by ``bin``) of a gains table, or the cumulative lift against depth of
    a lift curve, over a rule at lift 1.

    Parameters
    ----------
    table
        The frame of :func:`polars_roc.gains_table` (``[*by, bin, ..., cum_count,
        capture, lift, ...]``) or of :func:`polars_roc.lift_curve` (``[*by, threshold,
        tp, fp, depth, capture, precision, lift]``), eager or lazy.
    kind
        ``"gains"`` or ``"lift"``.
    color, facet, columns
        As in :func:`roc_chart`.
    max_points
        The most points drawn per lift curve (thinned along ``depth`` and ``capture``,
        see :func:`thin_curve`); gains tables are drawn whole.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
        Layers: the diagonal (gains) or the rule at lift 1, then the curves or bars;
        faceted last when ``facet`` is given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> log = pl.DataFrame({"score": [0.9, 0.8, 0.7, 0.3], "label": [1, 0, 1, 0]})
    >>> spec = pr.gains_chart(pr.gains_table(log, n_bins=2)).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'line']
    >>> [(row["depth"], row["capture"]) for row in spec["datasets"][spec["data"]["name"]]
    ...  if "depth" in row]
    [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0)]
    """
    check_choice("kind", kind, ("gains", "lift"))
    _check_max_points(max_points)
    full = _collect(table, "table")
    binned = "bin" in full.columns
    needed = ["bin", "cum_count", "capture", "lift"] if binned else ["depth", "capture", "lift"]
    _require(full, needed, "table", "pass the frame of gains_table(...) or lift_curve(...)")
    values = BINNED_GAINS_COLUMNS if binned else LIFT_CURVE_COLUMNS
    color, facet = _roles(full, values, color, facet, columns, "table")
    groups = [g for g in (facet, color) if g is not None]
    labels = _group_labels(full, groups, color, facet)
    label_fields = _label_fields(labels)
    if binned:
        total = pl.when(group_end(groups)).then(pl.col("cum_count")).backward_fill()
        points = full.with_columns(ratio(pl.col("cum_count"), total).alias("depth"))
        details = ["bin", "score_min", "score_max", "count", "rate", "cum_lift"]
    else:
        points = _thin(full.lazy(), groups, "depth", "capture", max_points).collect()
        details = ["threshold", "precision"]
    details = [c for c in details if c in points.columns]
    points = (_attach(points, labels, groups) if groups else points).select(
        *label_fields,
        *(_short_text("threshold") if c == "threshold" else c for c in details),
        _coordinate("depth"),
        _coordinate("capture"),
        pl.col("lift").cast(pl.Float64).round(6),
    )
    panels = _panels(labels, facet)
    tooltip = _group_tooltips(labels, color)
    tooltip += [alt.Tooltip(f"{c}:{'N' if c == 'threshold' else 'Q'}") for c in details]
    tooltip += [alt.Tooltip(f"{c}:Q", format=".4f") for c in ("depth", "capture", "lift")]
    channels = _color(labels, color)
    # Rows are in targeting order (highest scores first): draw them in that order.
    points = points.with_row_index("_seq")
    if kind == "gains":
        origin = [pl.lit(0.0).alias(c) for c in ("depth", "capture")] + [pl.lit(-1).alias("_seq")]
        starts = _marked(labels.select(*label_fields, *origin), "start")
        unmarked = points.with_columns(pl.lit(None, pl.String).alias(LAYER))
        data = [panels, starts, unmarked]
        curve = (
            alt.Chart()
            .transform_filter("!datum._layer || datum._layer === 'start'")
            .mark_line(strokeWidth=2, point=binned)
            .encode(
                x=alt.X("depth:Q", scale=_unit_scale(), axis=alt.Axis(title=GAINS_X_TITLE)),
                y=alt.Y("capture:Q", scale=_unit_scale(), axis=alt.Axis(title=GAINS_Y_TITLE)),
                order=alt.Order("_seq:Q"),
                tooltip=tooltip,
                **channels,
            )
        )
        layers = [_chance_layer(), curve]
    else:
        data = [panels, points]
        one = _rows("chance").mark_rule(color="gray", strokeDash=[4, 4]).encode(y=alt.datum(1))
        lift_y = alt.Y("lift:Q", axis=alt.Axis(title="Lift"))
        if binned:
            offset = {"xOffset": alt.XOffset(f"{CURVE}:N", sort=_order(labels, CURVE))}
            bars = (
                _rows(None)
                .mark_bar()
                .encode(
                    x=alt.X("bin:O", axis=alt.Axis(title="Bin (1 = highest scores)", labelAngle=0)),
                    y=lift_y,
                    tooltip=tooltip,
                    **channels,
                    **(offset if CURVE in labels.columns else {}),
                )
            )
        else:
            bars = (
                _rows(None)
                .mark_line(strokeWidth=2)
                .encode(
                    x=alt.X("depth:Q", scale=_unit_scale(), axis=alt.Axis(title=GAINS_X_TITLE)),
                    y=lift_y,
                    order=alt.Order("_seq:Q"),
                    tooltip=tooltip,
                    **channels,
                )
            )
        layers = [one, bars]
    return _assemble(layers, data, labels, facet, columns)
