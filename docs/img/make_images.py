"""Make the PNG images of docs/report.md with the project's own code.

Run from the repository root: ``python docs/img/make_images.py``. Needs the ``report``
extra (vl-convert-python).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import vl_convert

import polars_roc as pr
from polars_roc.report.html import build_report

HERE = Path(__file__).parent


def save(chart: object, name: str) -> None:
    path = HERE / f"{name}.png"
    path.write_bytes(vl_convert.vegalite_to_png(chart.to_dict(), scale=1.5))
    print(f"wrote {path}")


def main() -> None:
    log = pr.datasets.load_credit()
    # The three charts of `polars-roc report --demo` (threshold 0.2, one panel per segment).
    report = build_report(log, by="segment", threshold=0.2)
    for name, chart in report.charts.items():
        save(chart, f"report_{name}")
    # Champion vs challenger: one long frame with a `model` column, colors per model,
    # panels per segment, the convex hull and the operating point at 0.2.
    models = log.unpivot(
        on=["score", "score_challenger"],
        index=["segment", "label"],
        variable_name="model",
        value_name="p",
    ).with_columns(pl.col("model").replace({"score": "champion", "score_challenger": "challenger"}))
    curve = pr.roc_curve(models, score="p", by=["segment", "model"])
    save(pr.roc_chart(curve, facet="segment", color="model", hull=True, points=0.2), "roc_models")
    # One curve per month on one panel.
    save(log.roc.plot(by="month", kind="roc"), "roc_months")
    # The cost-optimal point per segment when a missed default costs 5 false alarms,
    # with its iso-performance line.
    curve = log.roc.curve(by="segment")
    best = log.roc.optimal_point(by="segment", cost_fn=5.0)
    save(pr.roc_chart(curve, facet="segment", optimal=best), "roc_optimal")
    # Cumulative gains and lift per decile, one color per segment.
    table = log.roc.gains(by="segment")
    save(pr.gains_chart(table, color="segment"), "gains")
    save(pr.gains_chart(table, kind="lift", color="segment"), "lift")
    # Mean ROC curve of 5 folds per segment with its +/- 1 sd band (vertical averaging).
    folds = pr.folds(log, k=5, seed=1)
    save(pr.average_chart(pr.average_curve(folds, by="segment"), facet="segment"), "average")

    # Monitoring over time (docs/monitoring.md): AUC per month and segment with DeLong
    # bands, and the champion - challenger difference per month.
    trend = log.roc.trend(period="month", by="segment", ci="delong")
    save(pr.trend_chart(trend, flags=log.roc.drift(period="month", by="segment")), "trend")
    paired = log.roc.trend(period="month", scores=["score", "score_challenger"])
    save(pr.trend_chart(paired, measure="diff"), "trend_challenger")


if __name__ == "__main__":
    main()
