"""Every number docs/equivalents.md names, against the peer's value.

The page's "Numbers checked against the peers" table gives, per row, a peer's value and
the polars_roc expression that should give it; each row is evaluated here and must
match to the digits shown. ROCR's ``performance(pred, "aucpr")`` is also checked against
a line-by-line port of its R code (``.performance.aucpr`` in ROCR's
R/performance_measures.R) on generated data.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_roc as pr

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
PAGE = ROOT / "docs" / "equivalents.md"
# A table row whose third cell is a bare number: a peer's value the page names.
NUMBER_ROW = re.compile(r"^\|[^|]*\|[^|]*\| (-?\d+(?:\.\d+)?) \| `(.+)` \|$")

DATA = {
    # ROCR's tests/testthat/test-simple.r.
    "rocr_example": pl.DataFrame(
        {
            "score": [
                *(0.02495517, 0.92535646, 0.86251887, 0.80946685, 0.70922858),
                *(0.69762824, 0.50604485, 0.25446810, 0.10837728, 0.07250349),
            ],
            "label": [0, 1, 1, 0, 1, 1, 0, 1, 0, 0],
        }
    ),
    "rocr_simple": pl.read_csv(FIXTURES / "rocr_simple.csv"),
    "asah": pl.read_csv(FIXTURES / "asah.csv"),
}


def _numbered_rows() -> list[tuple[str, str]]:
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    rows = [match.groups() for line in lines if (match := NUMBER_ROW.match(line))]
    # Any other row naming a bare number would escape the check below.
    bare = [line for line in lines if re.match(r"^\|.*\| -?\d+(\.\d+)? \|", line)]
    assert len(bare) == len(rows), "a numbered row of docs/equivalents.md is not checkable"
    return rows


ROWS = _numbered_rows()


def test_the_page_names_numbers() -> None:
    assert len(ROWS) >= 6


@pytest.mark.parametrize(("value", "expression"), ROWS, ids=[e for _, e in ROWS])
def test_every_number_of_the_page(value: str, expression: str) -> None:
    got = eval(expression, {"pr": pr, **DATA})  # the page's own expression
    decimals = len(value.partition(".")[2])
    # To the digits shown: within half a unit of the last one.
    assert got.item() == pytest.approx(float(value), abs=0.5 * 10.0**-decimals + 1e-12)


def rocr_aucpr(score: np.ndarray, label: np.ndarray) -> float:
    """ROCR's ``.performance.aucpr``, statement by statement (ROCR 1.0-11)."""
    cutoffs = np.concatenate([[np.inf], np.unique(score)[::-1]])
    tp = np.array([np.sum(label[score >= c]) for c in cutoffs], dtype=float)
    fp = np.array([np.sum(1 - label[score >= c]) for c in cutoffs], dtype=float)
    # tmp <- aggregate(list(fp = fp), by = list(tp = tp), min)
    tp_levels = np.unique(tp)
    fp = np.array([fp[tp == level].min() for level in tp_levels])
    tp = tp_levels
    with np.errstate(invalid="ignore"):
        prec = tp / (fp + tp)
    rec = tp / label.sum()
    if fp[0] == 0 and tp[0] == 0:
        prec[0] = 1.0
    # Its Davis & Goadrich insertion runs only for a step of more than two positives.
    assert np.all(np.diff(tp) <= 2)
    return float(np.sum(0.5 * np.diff(rec) * (prec[1:] + prec[:-1])))


def test_rocr_port_gives_rocr_values() -> None:
    example = DATA["rocr_example"]
    value = rocr_aucpr(example["score"].to_numpy(), example["label"].to_numpy())
    assert value == pytest.approx(0.8814286, abs=5e-8)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 30), st.booleans()),
        min_size=2,
        max_size=60,
        unique_by=lambda r: r[0],
    ).filter(lambda rows: any(p for _, p in rows)),
    st.lists(st.integers(0, 30), min_size=1, max_size=20),
)
def test_trapezoid_equals_rocr_port(rows: list[tuple[int, bool]], negatives: list[int]) -> None:
    # Distinct scores per positive (ROCR interpolates inside a tie run holding more than
    # two positives), with negatives tied to them or between them.
    score = np.array([s for s, _ in rows] + negatives, dtype=float)
    label = np.array([int(p) for _, p in rows] + [0] * len(negatives))
    frame = pl.DataFrame({"score": score, "label": label})
    got = pr.pr_auc(frame, method="trapezoid")["pr_auc"].item()
    assert got == pytest.approx(rocr_aucpr(score, label), abs=1e-12)


def test_trapezoid_per_group_and_lazy() -> None:
    simple, example = DATA["rocr_simple"], DATA["rocr_example"]
    frame = pl.concat([simple.with_columns(g=pl.lit("s")), example.with_columns(g=pl.lit("e"))])
    eager = pr.pr_auc(frame, by="g", method="trapezoid")
    assert eager["g"].to_list() == ["e", "s"]
    assert eager["pr_auc"].to_list() == [
        pr.pr_auc(example, method="trapezoid")["pr_auc"].item(),
        pr.pr_auc(simple, method="trapezoid")["pr_auc"].item(),
    ]
    lazy = pr.pr_auc(frame.lazy(), by="g", method="trapezoid").collect()
    assert lazy.equals(eager)


def test_trapezoid_with_counts_equals_expanded_rows() -> None:
    frame = pl.DataFrame({"score": [0.9, 0.8, 0.8, 0.3], "label": [1, 1, 0, 1], "n": [2, 1, 3, 4]})
    expanded = frame.select(pl.all().repeat_by("n").explode()).drop("n")
    assert pr.pr_auc(frame, count="n", method="trapezoid")["pr_auc"].item() == pytest.approx(
        pr.pr_auc(expanded, method="trapezoid")["pr_auc"].item(), abs=1e-15
    )


def test_trapezoid_by_hand() -> None:
    # Points (tp, fp): start (0, 0), (1, 0), (1, 1), (2, 1), (2, 2); two positives.
    # Recall levels 0, 1/2, 1 at precision 1, 1, 2/3: 1/2 * 1 + 1/2 * (1 + 2/3) / 2.
    frame = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]})
    got = pr.pr_auc(frame, method="trapezoid")["pr_auc"].item()
    assert got == pytest.approx(0.5 + 5 / 12, abs=1e-15)
    no_positives = pl.DataFrame({"score": [0.1, 0.4], "label": [0, 0]})
    with pytest.warns(UserWarning):
        assert pr.pr_auc(no_positives, method="trapezoid")["pr_auc"].item() is None


def test_method_is_checked() -> None:
    frame = pl.DataFrame({"score": [0.1, 0.4], "label": [0, 1]})
    with pytest.raises(
        ValueError, match="`method` must be 'davis_goadrich' or 'trapezoid', got 'trap'"
    ):
        pr.pr_auc(frame, method="trap")  # type: ignore[arg-type]
