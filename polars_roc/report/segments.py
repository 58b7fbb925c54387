"""The report past many segments: a forest plot of every segment's AUC, the segments
whose curves are drawn (the weakest and strongest) and the table of the weakest."""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_roc.report.tables import chart_slot

# Past this many segments the report draws the k weakest and k strongest curves only.
SEGMENTS_DRAWN_MAX = 12
TOP_K = 5
FOREST_HEIGHT_MAX = 800
FOREST_LABELS_MAX = 60


def _forest_chart(points: pl.DataFrame, has_ci: bool, named: list[str]) -> Any:
    """AUC per segment (rows sorted by AUC), its interval as a rule, flagged ones in red.

    Every segment is labelled up to 60; past that, the ``named`` ones (the weakest and
    strongest), as labels of 14 px rows would overlap."""
    import altair as alt

    n = points.height
    order = points.sort("auc", nulls_last=True).get_column("segment").to_list()
    shown = "all" if n <= FOREST_LABELS_MAX else "the weakest and strongest"
    y = alt.Y(
        "segment:N",
        sort=order,
        title=f"segment (sorted by AUC; labels: {shown})",
        axis=alt.Axis(labelLimit=200, values=alt.Undefined if n <= FOREST_LABELS_MAX else named),
    )
    x = alt.X("auc:Q", scale=alt.Scale(zero=False), title="AUC")
    tooltip = ["segment:N", alt.Tooltip("auc:Q", format=".4f"), "n_pos:Q", "n_neg:Q"]
    layers = []
    if has_ci:
        tooltip += [alt.Tooltip(f"{c}:Q", format=".4f") for c in ("ci_lower", "ci_upper")]
        layers.append(
            alt.Chart().mark_rule(opacity=0.6).encode(x="ci_lower:Q", x2="ci_upper:Q", y=y)
        )
    layers.append(
        alt.Chart()
        .mark_point(filled=True, size=18)
        .encode(
            x=x,
            y=y,
            tooltip=tooltip,
            color=alt.Color(
                "flagged:N",
                scale=alt.Scale(domain=[False, True], range=["#4c78a8", "#e45756"]),
                legend=alt.Legend(title="below the whole log"),
            ),
        )
    )
    records = [
        {k: v for k, v in row.items() if v is not None} for row in points.iter_rows(named=True)
    ]
    height = min(FOREST_HEIGHT_MAX, max(200, 14 * n))
    return alt.layer(*layers, data={"values": records}).properties(width=500, height=height)


def many_segments(
    auc: pl.DataFrame, overall: float | None, groups: list[str], top_k: int = TOP_K
) -> tuple[pl.DataFrame, Any, list[str], pl.DataFrame]:
    """The keys of the ``top_k`` weakest and strongest segments by AUC, the forest chart,
    its HTML blocks and the table of the weakest by AUC and by DeLong's lower bound (a
    segment is flagged when its whole interval lies below the whole log's AUC)."""
    from polars_roc.charts.data import shown_text  # altair: loaded only for the forest plot

    has_ci = "ci_upper" in auc.columns
    label = pl.concat_str(
        [shown_text(pl.col(g)).fill_null("null") for g in groups], separator=" / "
    ).alias("segment")
    flagged = (pl.col("ci_upper") < overall) if has_ci and overall is not None else pl.lit(False)
    points = auc.select(
        label,
        "auc",
        "n_pos",
        "n_neg",
        *(["ci_lower", "ci_upper"] if has_ci else []),
        flagged.fill_null(False).alias("flagged"),
    )
    ranked = auc.filter(pl.col("auc").is_not_null()).sort("auc")
    chosen = pl.concat([ranked.head(top_k), ranked.tail(top_k)]).unique(groups, maintain_order=True)
    bounds = ["auc", *(["ci_lower"] if has_ci else [])]
    ranks = [pl.col(c).rank("min").alias(f"rank_{c}") for c in bounds]
    weakest = (
        auc.with_columns(ranks)
        .filter(pl.any_horizontal(pl.col(f"rank_{c}") <= top_k for c in bounds))
        .sort(f"rank_{bounds[-1]}", "rank_auc")
        .select(*groups, *(f"rank_{c}" for c in bounds), pl.exclude(*groups, "^rank_.*$"))
    )
    n_flagged = points.get_column("flagged").sum()
    blocks = [
        "<h2>Segments at a glance</h2>",
        f"<p>{auc.height:,} segments: AUC per segment, sorted"
        + (
            ", with DeLong's 95% interval; red: the interval lies below the whole log's AUC "
            f"({overall:.4f}), {n_flagged:,} segment(s)"
            if has_ci and overall is not None
            else ""
        )
        + f". The curves below show the {top_k} weakest and {top_k} strongest "
        "segments; the tables show their first rows, with the full tables as CSV "
        "downloads.</p>",
        chart_slot("forest"),
    ]
    named = chosen.select(label).get_column("segment").to_list()
    return chosen.select(groups), _forest_chart(points, has_ci, named), blocks, weakest
