"""One-sided AUC comparisons (polars_roc.stats.alternative): pROC's roc.test(alternative=).

pROC computes ``pnorm(-z)`` for "greater" and ``pnorm(z)`` for "less" (``pt`` with the
Welch degrees of freedom for the unpaired DeLong test); scipy's distributions are the
reference here, on the pROC fixture data of test_inference.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_roc as pr

DATA = pl.read_csv(Path(__file__).parent / "fixtures" / "proc_data.csv")


@pytest.mark.parametrize("method", ["delong", "bootstrap"])
@pytest.mark.parametrize("by", [None, "group"])
def test_paired_one_sided_p_values(method: str, by) -> None:
    options = dict(by=by, ci=method) | ({"seed": 3, "n_boot": 300} if method != "delong" else {})
    two = pr.compare(DATA, ["score_a", "score_b"], **options)
    greater = pr.compare(DATA, ["score_a", "score_b"], alternative="greater", **options)
    less = pr.compare(DATA.lazy(), ["score_a", "score_b"], alternative="less", **options).collect()
    z = two["z"].to_numpy()
    np.testing.assert_allclose(greater["p_value"], stats.norm.sf(z), rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(less["p_value"], stats.norm.cdf(z), rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(two["p_value"], 2 * stats.norm.sf(np.abs(z)), rtol=1e-9)
    # Everything but the p-value is the two-sided result.
    assert greater.drop("p_value").equals(two.drop("p_value"))
    assert less.drop("p_value").equals(two.drop("p_value"))


@pytest.mark.parametrize("method", ["delong", "bootstrap"])
def test_unpaired_one_sided_p_values(method: str) -> None:
    options = dict(by="group", groups=("north", "south"), score="score_a", ci=method)
    options |= {"seed": 5, "n_boot": 300} if method != "delong" else {}
    two = pr.compare_groups(DATA, **options)
    greater = pr.compare_groups(DATA, alternative="greater", **options)
    less = DATA.lazy().roc.compare_groups(alternative="less", **options).collect()
    if method == "delong":
        t, df = two["t"].to_numpy(), two["df"].to_numpy()
        expected_greater, expected_less = stats.t.sf(t, df), stats.t.cdf(t, df)
    else:
        z = two["z"].to_numpy()
        expected_greater, expected_less = stats.norm.sf(z), stats.norm.cdf(z)
    np.testing.assert_allclose(greater["p_value"], expected_greater, rtol=1e-7)
    np.testing.assert_allclose(less["p_value"], expected_less, rtol=1e-7)
    assert greater.drop("p_value").equals(two.drop("p_value"))


def test_identical_scores_give_one_half() -> None:
    df = DATA.with_columns(pl.col("score_a").alias("copy"))
    out = df.roc.compare(["score_a", "copy"], alternative="greater")
    assert out["z"].item() == 0.0 and out["p_value"].item() == 0.5


@pytest.mark.parametrize("bad", ["two.sided", "bigger", None])
def test_unknown_alternative_is_refused(bad) -> None:
    match = r"`alternative` must be 'two-sided', 'greater' .* got " + repr(bad).replace(".", r"\.")
    with pytest.raises(ValueError, match=match):
        pr.compare(DATA, ["score_a", "score_b"], alternative=bad)
    with pytest.raises(ValueError, match=match):
        pr.compare_groups(
            DATA, by="group", groups=("north", "south"), score="score_a", alternative=bad
        )
