"""Paired bootstrap test of two sensitivities at a fixed specificity (``compare(at_fpr=)``)
and of two false positive rates at a fixed sensitivity (``at_tpr=``): pROC's
``roc.test(method="specificity" | "sensitivity")``.

pROC's statistic ``D`` on aSAH (``fixtures/proc_rate_test.csv``, exported by
``fixtures/proc_asah.R`` from pROC 1.18.0, 10000 replicates) is matched within Monte
Carlo error (its bootstrap draws come from R's generator). The test is also checked
against an independent numpy implementation of pROC's definition on the same data: a
stratified bootstrap of rows (numpy's generator, not the library's), each replicate's
rate read off a brute-force ROC polyline, ``D = diff / sd(replicate differences)``. The
point estimates equal ``tpr_at`` / ``fpr_at`` exactly (those are checked against pROC's
``coords`` in test_operating.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy.stats import norm

import polars_roc as pr

FIXTURES = Path(__file__).parent / "fixtures"
ASAH = pl.read_csv(FIXTURES / "asah.csv")
OPTIONS = dict(label="outcome", ci="bootstrap", n_boot=300, seed=5)


def _rate_at(score: np.ndarray, label: np.ndarray, at: float, given: str) -> float:
    """The other rate where the ROC polyline of the rows crosses ``given == at``: the
    highest tpr on a vertical run at ``fpr == at`` (lowest fpr for ``given="tpr"``),
    linear along the diagonal of a tie run (pROC's ``coords(input=...)``)."""
    thresholds = np.unique(score)[::-1]
    tp = np.array([(label & (score >= t)).sum() for t in thresholds]) / label.sum()
    fp = np.array([(~label & (score >= t)).sum() for t in thresholds]) / (~label).sum()
    x, y = np.append(0.0, fp), np.append(0.0, tp)
    if given == "tpr":
        x, y = y, x
    found = []
    for x0, y0, x1, y1 in zip(x[:-1], y[:-1], x[1:], y[1:], strict=True):
        if x0 <= at <= x1:
            found.append(y0 + (y1 - y0) * (at - x0) / (x1 - x0) if x1 > x0 else y1)
    return max(found) if given == "fpr" else min(found)


def _numpy_test(a: str, b: str, at: float, given: str, n_boot: int, seed: int):
    label = ASAH["outcome"].to_numpy() == 1
    sa, sb = ASAH[a].to_numpy(), ASAH[b].to_numpy()

    def diff(rows: np.ndarray) -> float:
        return _rate_at(sa[rows], label[rows], at, given) - _rate_at(
            sb[rows], label[rows], at, given
        )

    pos, neg = np.flatnonzero(label), np.flatnonzero(~label)
    rng = np.random.default_rng(seed)
    replicates = [
        diff(np.concatenate([rng.choice(pos, len(pos)), rng.choice(neg, len(neg))]))
        for _ in range(n_boot)
    ]
    estimate = diff(np.arange(len(label)))
    se = np.std(replicates, ddof=1)
    return estimate, se, np.quantile(replicates, [0.025, 0.975])


@pytest.mark.parametrize(("given", "at"), [("fpr", 0.1), ("tpr", 0.9)])
def test_agrees_with_an_independent_numpy_bootstrap(given: str, at: float) -> None:
    """2000 replicates each: the sd of the differences agrees within Monte Carlo error
    (its relative standard deviation is about 1.6 % per run; 10 % is over four of them
    for the difference of two runs), the interval within a few hundredths."""
    ours = pr.compare(
        ASAH,
        ["s100b", "wfns"],
        label="outcome",
        ci="bootstrap",
        n_boot=2000,
        seed=3,
        **{f"at_{given}": at},
    )
    estimate, se, (low, high) = _numpy_test("s100b", "wfns", at, given, 2000, 7)
    assert ours["diff"][0] == pytest.approx(estimate, abs=1e-12)
    assert ours["se"][0] == pytest.approx(se, rel=0.10)
    assert ours["ci_lower"][0] == pytest.approx(low, abs=0.05)
    assert ours["ci_upper"][0] == pytest.approx(high, abs=0.05)


@pytest.mark.parametrize(
    "row", list(pl.read_csv(FIXTURES / "proc_rate_test.csv").iter_rows(named=True))
)
def test_statistic_agrees_with_proc(row: dict) -> None:
    """pROC's D with 10000 replicates, ours with 10000: the sd of the differences has a
    relative Monte Carlo error near 1 % per run, so 5 % is several of them. pROC's
    ``method="sensitivity"`` compares specificities, ours (``at_tpr``) false positive
    rates: the sign flips."""
    given = "at_fpr" if row["method"] == "specificity" else "at_tpr"
    at = 1 - row["at"] if given == "at_fpr" else row["at"]
    ours = pr.compare(
        ASAH,
        [row["score_a"], row["score_b"]],
        label="outcome",
        ci="bootstrap",
        n_boot=10000,
        seed=1,
        **{given: at},
    )
    sign = 1 if given == "at_fpr" else -1
    assert sign * ours["z"][0] == pytest.approx(row["d"], rel=0.05)
    assert ours["p_value"][0] == pytest.approx(row["p_value"], rel=0.1, abs=2e-4)


def test_rates_are_tpr_at_and_fpr_at_and_d_is_diff_over_se() -> None:
    at_fpr = pr.compare(ASAH, ["s100b", "ndka"], at_fpr=0.25, **OPTIONS)
    assert at_fpr.columns[:6] == ["model_a", "model_b", "fpr", "tpr_a", "tpr_b", "diff"]
    for side, column in (("a", "s100b"), ("b", "ndka")):
        expected = pr.tpr_at(ASAH, 0.25, score=column, label="outcome")["tpr"][0]
        assert at_fpr[f"tpr_{side}"][0] == pytest.approx(expected, abs=1e-15)
    at_tpr = pr.compare(ASAH, ["s100b", "ndka"], at_tpr=0.8, **OPTIONS)
    assert at_tpr.columns[:6] == ["model_a", "model_b", "tpr", "fpr_a", "fpr_b", "diff"]
    expected = pr.fpr_at(ASAH, 0.8, score="ndka", label="outcome")["fpr"][0]
    assert at_tpr["fpr_b"][0] == pytest.approx(expected, abs=1e-15)
    for result in (at_fpr, at_tpr):
        row = result.row(0, named=True)
        assert row["z"] == pytest.approx(row["diff"] / row["se"], rel=1e-12)
        assert row["p_value"] == pytest.approx(2 * norm.sf(abs(row["z"])), rel=1e-12)
    greater = pr.compare(ASAH, ["s100b", "ndka"], at_fpr=0.25, alternative="greater", **OPTIONS)
    assert greater["p_value"][0] == pytest.approx(norm.sf(at_fpr["z"][0]), rel=1e-12)


def test_per_group_reproducible_lazy_and_long() -> None:
    """A segment's result depends on its rows and the seed only; lazy in, lazy out;
    the long log's paired test is the same test."""
    grouped = ASAH.with_columns(part=pl.int_range(pl.len()) % 2)
    both = pr.compare(grouped, ["s100b", "ndka"], by="part", at_fpr=0.2, **OPTIONS)
    alone = pr.compare(grouped.filter(part=1), ["s100b", "ndka"], by="part", at_fpr=0.2, **OPTIONS)
    assert_frame_equal(both.filter(part=1), alone)
    lazy = pr.compare(grouped.lazy(), ["s100b", "ndka"], by="part", at_fpr=0.2, **OPTIONS)
    assert_frame_equal(lazy.collect(), both)
    log = ASAH.with_row_index("id").unpivot(
        ["s100b", "ndka"], index=["id", "outcome"], variable_name="model", value_name="score"
    )
    long = pr.compare_long(log, ("s100b", "ndka"), case="id", at_fpr=0.2, **OPTIONS)
    wide = pr.compare(ASAH, ["s100b", "ndka"], at_fpr=0.2, **OPTIONS)
    assert_frame_equal(long.drop("model_a", "model_b"), wide.drop("model_a", "model_b"))


def test_namespace_and_bca() -> None:
    via = ASAH.roc.compare(["s100b", "ndka"], at_tpr=0.8, ci_method="bca", **OPTIONS)
    direct = pr.compare(ASAH, ["s100b", "ndka"], at_tpr=0.8, ci_method="bca", **OPTIONS)
    assert_frame_equal(via, direct)
    assert direct["ci_lower"][0] <= direct["ci_upper"][0]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        (dict(at_fpr=0.1), r"at_fpr= compares the rates .* pass ci='bootstrap'"),
        (dict(ci="bootstrap", at_fpr=0.1, at_tpr=0.9), r"pass one of at_fpr, at_tpr"),
        (dict(ci="bootstrap", at_fpr=0.1, max_fpr=0.2), r"a partial area"),
        (dict(ci="bootstrap", at_tpr=1.5), r"`at_tpr`"),
        (dict(ci_method="bca"), r"ci_method='bca' .* pass ci='bootstrap'"),
        (dict(ci="bootstrap", ci_method="basic"), r"`ci_method` must be"),
    ],
)
def test_options_checked(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pr.compare(ASAH, ["s100b", "ndka"], label="outcome", **options)
