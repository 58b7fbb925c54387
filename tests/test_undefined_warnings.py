"""Warnings for undefined AUCs: wording, and all-zero weights warned like one class.

Issue 16:

- ungrouped, one class: "the data holds only one class; its AUC and the rates that need
  both classes are null" (was "...; their AUC ...": "the data" is singular);
- a group (or the data) whose rows all have weight 0 has a null AUC like a one-class
  group, and gets the same kind of warning, naming it: "1 group(s) [g='a'] have zero total
  weight (all their weights are 0); their AUC and every rate are null", or, ungrouped,
  "the data has zero total weight (all its weights are 0); its AUC and every rate are
  null". A truly empty input (no rows) stays silent, as today.
"""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import polars_roc as pr

ONE_CLASS = pl.DataFrame({"score": [0.9, 0.4, 0.2], "label": [1, 1, 1]})
WEIGHTED = pl.DataFrame(
    {
        "g": ["a", "a", "b", "b"],
        "score": [0.9, 0.1, 0.8, 0.2],
        "label": [1, 0, 1, 0],
        "w": [0.0, 0.0, 1.0, 2.0],
    }
)


def test_ungrouped_one_class_warning_reads_its_auc() -> None:
    with pytest.warns(
        UserWarning,
        match=r"^the data holds only one class; its AUC and the "
        r"rates that need both classes are null$",
    ):
        pr.roc_auc(ONE_CLASS)


@pytest.mark.parametrize("kind", ["eager", "lazy"])
def test_all_zero_weights_in_a_group_warn(kind: str) -> None:
    frame = WEIGHTED if kind == "eager" else WEIGHTED.lazy()
    with pytest.warns(
        UserWarning,
        match=r"1 group\(s\) \[g='a'\] have zero total weight "
        r"\(all their weights are 0\); their AUC and every rate are null",
    ):
        out = pr.roc_auc(frame, by="g", weight="w")
    out = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert out["auc"].to_list() == [None, 1.0]


def test_all_zero_weights_ungrouped_warn() -> None:
    with pytest.warns(
        UserWarning,
        match=r"^the data has zero total weight \(all its weights "
        r"are 0\); its AUC and every rate are null$",
    ):
        out = pr.roc_auc(WEIGHTED.filter(pl.col("g") == "a"), weight="w")
    assert out["auc"].to_list() == [None]


def test_zero_weight_auc_is_null() -> None:
    # What holds already, warning aside: the AUC is null (never NaN), other groups intact.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pr.roc_auc(WEIGHTED, by="g", weight="w")
    assert out["auc"].to_list() == [None, 1.0]
