"""One AUC formula: every view that reports an AUC gives roc_auc's number to the last bit."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_roc as pr


def make_log(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = 5000
    label = rng.integers(0, 2, size=n)
    return pl.DataFrame(
        {
            "g": rng.integers(0, 4, size=n),
            "score": np.round(rng.normal(label * 0.6, 1.0), 2),
            "label": label,
            "w": rng.uniform(0.1, 3.0, size=n),
        }
    )


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_auc_is_roc_auc_bit_for_bit(weight: str | None, seed: int) -> None:
    log = make_log(seed)
    options = {"by": "g", "weight": weight}
    auc = pr.roc_auc(log, **options)["auc"]
    assert auc.equals(pr.hull_auc(log, **options)["auc"])
    boot = pr.roc_auc(log, ci="bootstrap", n_boot=5, seed=1, **options)["auc"]
    assert auc.equals(boot)
    summary = pr.fold_summary(log, fold="g", weight=weight).filter(metric="auc")
    assert summary["min"][0] == auc.min() and summary["max"][0] == auc.max()
    if weight is None:
        assert auc.equals(pr.roc_auc(log, ci="delong", **options)["auc"])
        groups = pr.compare_groups(log, by="g", groups=(0, 1))
        assert (groups["auc_a"][0], groups["auc_b"][0]) == (auc[0], auc[1])
