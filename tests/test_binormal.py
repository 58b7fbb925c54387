"""Binormal smoothing (``smooth="binormal"``) against pROC 1.18 on aSAH.

References: ``fixtures/proc_smooth.csv``, exported by ``fixtures/proc_smooth.R`` from
pROC 1.18.0 on R 4.2 (every point of ``smooth(roc, method = "binormal")`` for s100b,
ndka and wfns, its AUC and the fit's coefficients); R is not needed to run the tests.
Besides, the values printed in pROC's own test suite (tests/testthat/test-coords.R,
``smooth.s100b <- smooth(r.s100b)``), and an independent numpy/scipy implementation of
pROC's definition (``lm(qnorm(sp) ~ qnorm(se))`` by ``scipy.stats.linregress``, AUC
``pnorm(a / sqrt(1 + b^2))``).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy.stats import linregress, norm

import polars_roc as pr
from polars_roc.exceptions import SingleClassWarning, UndefinedWarning

FIXTURES = Path(__file__).parent / "fixtures"
ASAH = pl.read_csv(FIXTURES / "asah.csv")
PROC_SMOOTH = pl.read_csv(FIXTURES / "proc_smooth.csv")


def _reference_fit(score: np.ndarray, label: np.ndarray) -> tuple[float, float]:
    """pROC's fit, independently: every threshold's (se, sp), finite quantiles only."""
    thresholds = np.unique(score)
    se = np.array([(score[label] >= t).mean() for t in thresholds])
    sp = np.array([(score[~label] < t).mean() for t in thresholds])
    keep = (se > 0) & (se < 1) & (sp > 0) & (sp < 1)
    fit = linregress(norm.ppf(se[keep]), norm.ppf(sp[keep]))
    return fit.intercept, fit.slope


def test_curve_equals_proc_on_asah() -> None:
    curve = pr.roc_curve(ASAH, score="s100b", label="outcome", smooth="binormal")
    assert curve.columns == ["fpr", "tpr"] and curve.height == 512
    tpr, fpr = curve["tpr"].to_numpy(), curve["fpr"].to_numpy()
    # coords(smooth.s100b, "best"): specificity 0.750857175922901 at sensitivity 311/511.
    assert tpr[311] == pytest.approx(0.608610567514677, abs=1e-12)
    assert 1 - fpr[311] == pytest.approx(0.750857175922901, abs=1e-12)
    # coords(smooth.s100b, c(0.5, 0.9), input = "se"): specificities.
    for se, sp in ((0.5, 0.844189345484777), (0.9, 0.293322024198721)):
        assert 1 - np.interp(se, tpr, fpr) == pytest.approx(sp, abs=1e-12)
    # coords(smooth.s100b, c(0.5, 0.9)) (input = "specificity"): sensitivities.
    order = np.argsort(fpr)
    for sp, se in ((0.5, 0.797749392103789), (0.9, 0.412071871553968)):
        assert np.interp(1 - sp, fpr[order], tpr[order]) == pytest.approx(se, abs=1e-12)


@pytest.mark.parametrize("column", ["s100b", "ndka", "wfns"])
def test_auc_and_every_point_equal_proc(column: str) -> None:
    proc = PROC_SMOOTH.filter(pl.col("score") == column).sort("point")
    got = pr.roc_auc(ASAH, score=column, label="outcome", smooth="binormal")
    assert got["auc"][0] == pytest.approx(proc["auc"][0], abs=1e-9)
    # pROC's 514 points run from sensitivity 1 down to 0 and add the corners (1, 0) and
    # (0, 1) around the 512 fitted ones; ours are the 512, sensitivity ascending.
    se, sp = proc["sensitivity"].to_numpy(), proc["specificity"].to_numpy()
    assert (se[0], sp[0], se[-1], sp[-1]) == (1.0, 0.0, 0.0, 1.0)
    curve = pr.roc_curve(ASAH, score=column, label="outcome", smooth="binormal")
    assert curve["tpr"].to_numpy() == pytest.approx(se[-2:0:-1], abs=1e-9)
    assert 1 - curve["fpr"].to_numpy() == pytest.approx(sp[-2:0:-1], abs=1e-9)


@pytest.mark.parametrize("column", ["s100b", "ndka", "wfns"])
def test_auc_and_curve_equal_an_independent_fit(column: str) -> None:
    score = ASAH[column].to_numpy().astype(float)
    label = ASAH["outcome"].to_numpy() == 1
    a, b = _reference_fit(score, label)
    got = pr.roc_auc(ASAH, score=column, label="outcome", smooth="binormal")
    assert got["auc"][0] == pytest.approx(norm.cdf(a / np.sqrt(1 + b * b)), abs=1e-12)
    curve = pr.roc_curve(ASAH, score=column, label="outcome", smooth="binormal")
    grid = np.arange(512) / 511
    expected = 1 - norm.cdf(a + b * norm.ppf(grid))
    assert curve["fpr"].to_numpy() == pytest.approx(expected, abs=1e-12)


def test_grouped_lazy_and_degenerate_groups() -> None:
    data = ASAH.with_columns(group=pl.col("wfns") > 2)
    grouped = pr.roc_auc(data, score="s100b", label="outcome", by="group", smooth="binormal")
    alone = pr.roc_auc(
        data.filter(pl.col("group")), score="s100b", label="outcome", smooth="binormal"
    )
    assert grouped["auc"][1] == pytest.approx(alone["auc"][0], abs=1e-15)
    lazy = data.lazy().roc.curve(score="s100b", label="outcome", by="group", smooth="binormal")
    eager = pr.roc_curve(data, score="s100b", label="outcome", by="group", smooth="binormal")
    assert_frame_equal(lazy.collect(), eager)
    assert eager.columns == ["group", "fpr", "tpr"] and eager.height == 1024
    # Two distinct scores: one usable point, no line.
    tiny = pl.DataFrame({"score": [0.1, 0.1, 0.9, 0.9], "label": [0, 1, 0, 1]})
    with pytest.warns(UndefinedWarning, match="the binormal fit is null"):
        assert pr.roc_auc(tiny, smooth="binormal")["auc"][0] is None


def test_rows_of_weight_zero_do_not_move_the_fit() -> None:
    # A weight-0 score repeats its neighbour's point; fitted again it tilted the line
    # (a count-0 row, which the count table drops, did not).
    data = ASAH.with_columns(w=pl.lit(1.0))
    # Scores between the existing ones, so each adds a (repeated) point of its own.
    ghosts = data.head(40).with_columns(s100b=pl.col("s100b") + 0.001, w=pl.lit(0.0))
    options = {"score": "s100b", "label": "outcome", "smooth": "binormal"}
    with_ghosts = pr.roc_auc(pl.concat([data, ghosts]), weight="w", **options)
    assert with_ghosts["auc"][0] == pytest.approx(pr.roc_auc(ASAH, **options)["auc"][0], abs=1e-12)
    curve = pr.roc_curve(pl.concat([data, ghosts]), weight="w", **options)
    assert_frame_equal(curve, pr.roc_curve(ASAH, **options), abs_tol=1e-12)


def test_empty_input_gives_empty_frames() -> None:
    # Without `by`, the totals of an empty table were one row of nulls: the AUC frame had
    # a row and the curve 512 (null fpr), where every other view gives none.
    empty = ASAH.head(0)
    options = {"score": "s100b", "label": "outcome", "smooth": "binormal"}
    assert_frame_equal(
        pr.roc_auc(empty, **options), pr.roc_auc(empty, score="s100b", label="outcome")
    )
    curve = pr.roc_curve(empty, **options)
    assert curve.height == 0 and curve.columns == ["fpr", "tpr"]


def test_a_group_without_a_fit_is_named_in_a_warning() -> None:
    # Finding 13: the AUC was null with no word; one-class groups keep their own warning.
    df = pl.DataFrame(
        {
            "g": ["sep"] * 6 + ["one"] * 2,
            "score": [0.1, 0.2, 0.5, 0.8, 0.3, 0.9, 0.1, 0.2],
            "label": [0, 0, 1, 1, 0, 1, 0, 0],
        }
    )
    message = r"^1 group\(s\) \[g='sep'\]: the binormal fit is null: it needs two operating"
    for read in (
        lambda: pr.roc_auc(df, by="g", smooth="binormal")["auc"].null_count() == 2,
        lambda: (
            df.lazy().roc.curve(by="g", smooth="binormal").collect()["fpr"].null_count() == 1024
        ),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert read()
        undefined = [str(w.message) for w in caught if w.category is UndefinedWarning]
        assert len(undefined) == 1 and re.match(message, undefined[0]), undefined
        assert SingleClassWarning in {w.category for w in caught}


def test_smooth_options_checked() -> None:
    with pytest.raises(ValueError, match=r"`smooth` must be 'binormal' or None, got 'density'"):
        pr.roc_auc(ASAH, score="s100b", label="outcome", smooth="density")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"drop ci"):
        pr.roc_auc(ASAH, score="s100b", label="outcome", smooth="binormal", ci="delong")
    with pytest.raises(ValueError, match=r"drop band"):
        pr.roc_curve(ASAH, score="s100b", label="outcome", smooth="binormal", band="bootstrap")
