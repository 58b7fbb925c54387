"""The HTML report of a prediction log, from Python.

``polars-roc report`` on the command line writes the same page. :func:`build_report`
returns a :class:`Report`: the page (``html``), its Altair charts (``charts``) and its
tables (``tables``), so a notebook or a scheduled job can write, mail or check them.

Examples
--------
>>> import polars as pl
>>> from polars_roc.report import build_report
>>> log = pl.DataFrame({"score": [0.9, 0.4, 0.3, 0.8], "label": [1, 0, 1, 0]})
>>> report = build_report(log)
>>> report.tables["auc"].select("n_pos", "n_neg", "auc")
shape: (1, 3)
┌───────┬───────┬─────┐
│ n_pos ┆ n_neg ┆ auc │
│ ---   ┆ ---   ┆ --- │
│ i64   ┆ i64   ┆ f64 │
╞═══════╪═══════╪═════╡
│ 2     ┆ 2     ┆ 0.5 │
└───────┴───────┴─────┘
>>> report.html.startswith("<!DOCTYPE html>")
True
"""

from __future__ import annotations

from polars_roc.report.html import Report, build_report

__all__ = ["Report", "build_report"]
