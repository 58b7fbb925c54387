"""Issue 17's defects: F-beta at infinity, dor as documented, identical bits run to run."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import fbeta_score

import polars_roc as pr


def make_log(seed: int = 0, n: int = 50_000) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    return pl.DataFrame(
        {
            "g": rng.integers(0, 4, size=n),
            "score": rng.normal(label * 0.5, 1.0),
            "label": label,
            "w": rng.uniform(0.1, 3.0, size=n),
        }
    )


def test_f_beta_at_infinity_is_recall_as_in_scikit_learn() -> None:
    log = make_log(n=500)
    table = pr.confusion_matrix(log, [-0.5, 0.0, 0.7], beta=math.inf)
    assert table["f_beta"].to_list() == table["tpr"].to_list()
    for row in table.iter_rows(named=True):
        predicted = (log["score"] >= row["threshold"]).cast(pl.Int64)
        expected = fbeta_score(log["label"], predicted, beta=math.inf)
        assert row["f_beta"] == pytest.approx(expected, abs=1e-12)
    assert not table["f_beta"].is_nan().any()
    measures = pr.multiclass_measures(
        log.with_columns(pl.col("label").cast(pl.String)), {"0": "w", "1": "score"}, beta=math.inf
    )
    assert measures["f_beta"].to_list() == measures["tpr"].to_list()


@pytest.mark.parametrize("beta", [-1.0, math.nan, -math.inf])
def test_negative_or_nan_beta_is_refused(beta: float) -> None:
    with pytest.raises(ValueError, match=r"`beta` must be"):
        pr.confusion_matrix(make_log(n=10), 0.5, beta=beta)


@pytest.mark.parametrize(
    ("tp", "fp", "fn", "tn", "dor"),
    [
        (0, 2, 3, 4, 0.0),
        (5, 2, 3, 0, 0.0),
        (5, 2, 3, 4, 5 * 4 / 6),
        (5, 0, 3, 4, None),
        (5, 2, 0, 4, None),
        (0, 0, 3, 4, None),
    ],
)
def test_dor_is_tp_tn_over_fp_fn(tp: int, fp: int, fn: int, tn: int, dor: float | None) -> None:
    rows = [(0.9, 1)] * tp + [(0.9, 0)] * fp + [(0.1, 1)] * fn + [(0.1, 0)] * tn
    frame = pl.DataFrame(rows, schema=["score", "label"], orient="row")
    assert pr.confusion_matrix(frame, 0.5)["dor"].to_list() == [dor]


VIEWS = {
    "auc": lambda f: pr.roc_auc(f, by="g", weight="w"),
    "average_precision": lambda f: pr.pr_average_precision(f, by="g", weight="w"),
    "average_precision_rows": lambda f: pr.pr_average_precision(f, by="g"),
    "ks": lambda f: pr.ks_statistic(f, by="g", weight="w"),
    "hull_auc": lambda f: pr.hull_auc(f, by="g", weight="w"),
    "compare": lambda f: pr.compare(
        f.with_columns(b=pl.col("score") * pl.col("w")), ["score", "b"], by="g"
    ),
    "delong": lambda f: pr.roc_auc(f, by="g", ci="delong"),
    "expressions": lambda f: (
        f.group_by("g")
        .agg(pr.auc(weight="w"), pr.average_precision(weight="w"), pr.ks(weight="w"), pr.auc_se())
        .sort("g")
    ),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_identical_input_gives_identical_bits(name: str) -> None:
    log = make_log()
    first = VIEWS[name](log)
    for _ in range(12):
        assert VIEWS[name](log).equals(first)
