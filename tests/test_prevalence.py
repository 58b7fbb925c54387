"""Predictive values at the population's prevalence (``prevalence=``, issue 15.6).

References: Altman & Bland (1994)'s scan/pathology table, on which yardstick's tests
give ppv 0.87832 and, at prevalence 0.5, 0.70642; and Bayes' rule by hand.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_roc as pr
from polars_roc.exceptions import RocOptionError

# Altman & Bland: scan abnormal/normal x pathology abnormal/normal.
ALTMAN = pl.DataFrame(
    [(1, 1)] * 231 + [(1, 0)] * 32 + [(0, 1)] * 27 + [(0, 0)] * 54,
    schema=["scan", "pathology"],
    orient="row",
)
OPTIONS = {"score": "scan", "label": "pathology"}


def test_ppv_at_prevalence_matches_yardstick() -> None:
    plain = pr.confusion_matrix(ALTMAN, 0.5, **OPTIONS)
    assert plain["ppv"][0] == pytest.approx(0.87832, abs=1e-5)
    adjusted = pr.confusion_matrix(ALTMAN, 0.5, prevalence=0.5, **OPTIONS)
    assert adjusted["ppv"][0] == pytest.approx(0.70642, abs=1e-5)


@pytest.mark.parametrize("p", [0.01, 0.2, 0.5, 0.9])
def test_bayes_rule_by_hand(p: float) -> None:
    row = pr.confusion_matrix(ALTMAN, 0.5, prevalence=p, **OPTIONS).row(0, named=True)
    sens, spec = 231 / 258, 54 / 86
    ppv = sens * p / (sens * p + (1 - spec) * (1 - p))
    npv = spec * (1 - p) / (spec * (1 - p) + (1 - sens) * p)
    assert row["ppv"] == pytest.approx(ppv, abs=1e-12)
    assert row["npv"] == pytest.approx(npv, abs=1e-12)
    assert row["fdr"] == pytest.approx(1 - ppv, abs=1e-12)
    assert row["for"] == pytest.approx(1 - npv, abs=1e-12)
    assert row["accuracy"] == pytest.approx(sens * p + spec * (1 - p), abs=1e-12)
    assert row["error_rate"] == pytest.approx(1 - row["accuracy"], abs=1e-12)
    assert row["prevalence"] == p
    # Rates and counts do not move with the prevalence.
    plain = pr.confusion_matrix(ALTMAN, 0.5, **OPTIONS).row(0, named=True)
    for name in ("tp", "fp", "tpr", "fpr", "tnr", "lr_pos", "lr_neg", "dor", "kappa", "f1"):
        assert row[name] == plain[name]


def test_at_the_sample_prevalence_nothing_moves() -> None:
    sample = 258 / 344
    plain = pr.confusion_matrix(ALTMAN, 0.5, **OPTIONS)
    same = pr.confusion_matrix(ALTMAN, 0.5, prevalence=sample, **OPTIONS)
    for name in ("ppv", "npv", "accuracy"):
        assert same[name][0] == pytest.approx(plain[name][0], abs=1e-12)


def test_best_threshold_reports_at_the_given_prevalence() -> None:
    log = pr.datasets.load_credit()
    best = pr.best_threshold(log, "youden", prevalence=0.02)
    again = pr.confusion_matrix(log, best["threshold"][0], prevalence=0.02)
    assert best["ppv"][0] == pytest.approx(again["ppv"][0], abs=1e-12)


@pytest.mark.parametrize("p", [0.0, 1.0, -0.1, 1.5])
def test_prevalence_outside_the_unit_interval_is_refused(p: float) -> None:
    with pytest.raises(RocOptionError, match=r"`prevalence` must be strictly between 0 and 1"):
        pr.confusion_matrix(ALTMAN, 0.5, prevalence=p, **OPTIONS)
