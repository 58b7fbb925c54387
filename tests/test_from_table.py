"""Views as functions of a score table: each ``*_from_table`` gives its view's frame.

The public view is ``prepare`` + ``build`` + its ``*_from_table``; fed the table of
another counting of the same log (two partitions' score tables merged into a count
table), it gives the same frame, to the last bit.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_roc as pr
from polars_roc.core.arguments import Roles
from polars_roc.core.score_table import build
from polars_roc.core.validate import prepare
from polars_roc.stats.auc_interval import area_per_group
from polars_roc.stats.partial import Area
from polars_roc.views.auc import auc_from_table
from polars_roc.views.det import det_from_table
from polars_roc.views.gains import gains_from_table, ks_from_table, lift_from_table
from polars_roc.views.hull import hull_auc_from_table, hull_from_table

_rng = np.random.default_rng(7)
LOG = pl.DataFrame(
    {
        "g": _rng.choice(["a", "b"], 400),
        "score": np.round(_rng.uniform(size=400), 2),
        "label": _rng.integers(0, 2, 400),
    }
)

VIEWS = {
    "gains": (
        lambda f, **o: pr.gains_table(f, n_bins=5, **o),
        lambda p, t: gains_from_table(p, t, n_bins=5),
    ),
    "lift": (pr.lift_curve, lift_from_table),
    "det": (pr.det_curve, lambda p, t: det_from_table(p, t, drop_intermediate=False)),
    "hull": (pr.roc_hull, lambda p, t: hull_from_table(p, t, points="vertices")),
    "hull_all": (
        lambda f, **o: pr.roc_hull(f, points="all", **o),
        lambda p, t: hull_from_table(p, t, points="all"),
    ),
    "hull_auc": (pr.hull_auc, hull_auc_from_table),
    "auc": (pr.roc_auc, auc_from_table),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_a_view_of_merged_partitions_is_the_view_of_the_log(name: str) -> None:
    view, from_table = VIEWS[name]
    expected = view(LOG, by="g")
    parts = [pr.score_table(LOG[:150], by="g"), pr.score_table(LOG[150:], by="g")]
    merged = pr.score_counts(pl.concat(parts), by="g")
    prep = prepare(merged.lazy(), Roles(by="g", count="count"))
    got = from_table(prep, build(prep)).collect()
    assert got.equals(expected)


def test_ks_and_auc_of_merged_partitions() -> None:
    parts = [pr.score_table(LOG[:150], by="g"), pr.score_table(LOG[150:], by="g")]
    merged = pr.score_counts(pl.concat(parts), by="g")
    prep = prepare(merged, Roles(by="g", count="count"))
    table = build(prep)
    ks = ks_from_table(table, prep.by).select("g", "ks").collect()
    assert ks.equals(pr.ks_statistic(LOG, by="g").select("g", "ks"))
    options = {"ci": None, "conf_level": 0.95, "n_boot": 2, "seed": None, "progress": False}
    area = area_per_group(prep, table, area=Area(), **options).collect()
    assert area.select("g", "auc").equals(pr.roc_auc(LOG, by="g").select("g", "auc"))
