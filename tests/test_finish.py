"""Every view finishes its result one way: counts as Int64, one-class groups warned about."""

from __future__ import annotations

import polars as pl
import pytest

import polars_roc as pr
from polars_roc.exceptions import SingleClassWarning


@pytest.mark.parametrize("lazy", [False, True])
def test_compare_groups_warns_about_a_one_class_group(lazy: bool) -> None:
    df = pl.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b", "c"],
            "label": [0, 1, 1, 1, 1, 0],
            "score": [0.1, 0.5, 0.9, 0.3, 0.4, 0.2],
        }
    )
    frame = df.lazy() if lazy else df
    with pytest.warns(SingleClassWarning, match=r"1 group\(s\) \[g='b'\] hold only one class"):
        result = pr.compare_groups(frame, by="g", groups=("a", "b"))
    result = result.collect() if lazy else result
    assert result["auc_b"].to_list() == [None]


def test_counts_of_curves_terms_and_folds_are_int64() -> None:
    log = pr.datasets.load_credit()
    assert pr.average_curve(log, fold="month", grid=3).schema["n_curves"] == pl.Int64
    assert pr.fold_summary(log, fold="month").schema["n_folds"] == pl.Int64
    classes = log.with_columns(grade=pl.col("segment"))
    scores = {"corporate": "score", "retail": "score_challenger"}
    two = classes.filter(pl.col("grade") != "sme")
    assert pr.multiclass_auc(two, scores, label="grade").schema["n_terms"] == pl.Int64
