"""Reproducible bootstrap intervals: a group's interval depends on its own rows and the seed.

Each group draws from random streams derived from the seed and the group's key values,
so adding, removing or reordering other groups (or changing chunk sizes) leaves a
group's interval bit for bit unchanged.
"""

from __future__ import annotations

import datetime as dt
import io
import sys

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.stats import bootstrap as _bootstrap


def monthly_log(months: list[int], n: int = 120, seed: int = 3) -> pl.DataFrame:
    """Rows of each month drawn from a generator seeded by the month alone."""
    parts = []
    for month in months:
        rng = np.random.default_rng([seed, month])
        label = rng.integers(0, 2, n)
        parts.append(
            pl.DataFrame(
                {
                    "month": dt.date(2024, month, 1),
                    "segment": np.where(np.arange(n) % 3 == 0, "retail", "sme"),
                    "a": np.round(rng.normal(label * 0.8, 1.0), 1),
                    "b": np.round(rng.normal(label * 0.5, 1.0), 1),
                    "label": label,
                    "w": rng.uniform(0.5, 2.0, n),
                }
            )
        )
    return pl.concat(parts)


FIVE = monthly_log([1, 2, 3, 4, 5])
# June appended, and a December of the year before, which sorts first.
MORE = pl.concat(
    [
        monthly_log([12]).with_columns(pl.lit(dt.date(2023, 12, 1)).alias("month")),
        FIVE,
        monthly_log([6]),
    ]
)


def _same_months(out_five: pl.DataFrame, out_more: pl.DataFrame) -> None:
    kept = out_more.filter(pl.col("month").is_in(FIVE["month"].unique().implode()))
    assert_frame_equal(kept, out_five)


@pytest.mark.parametrize("by", [["month"], ["segment", "month"]])
@pytest.mark.parametrize("weight", [None, "w"])
def test_adding_a_group_leaves_the_others_intervals_unchanged(by, weight) -> None:
    options = dict(score="a", by=by, weight=weight, ci="bootstrap", seed=11, n_boot=300)
    five = pr.roc_auc(FIVE, **options)
    more = pr.roc_auc(MORE, **options)
    assert more.height > five.height
    _same_months(five, more)
    # Lazy, streaming and the group's rows alone give the same bits.
    lazy = pr.roc_auc(MORE.lazy(), **options).collect(engine="streaming")
    assert_frame_equal(lazy, more)
    january = FIVE.filter(pl.col("month") == dt.date(2024, 1, 1))
    assert_frame_equal(
        pr.roc_auc(january, **options), five.filter(pl.col("month") == dt.date(2024, 1, 1))
    )


def test_adding_a_group_leaves_points_and_comparisons_unchanged() -> None:
    boot = dict(ci="bootstrap", seed=5, n_boot=200)
    _same_months(
        pr.tpr_at(FIVE, [0.1, 0.2], score="a", by="month", **boot),
        pr.tpr_at(MORE, [0.1, 0.2], score="a", by="month", **boot),
    )
    paired = dict(ci="bootstrap", seed=5, n_boot=200, by="month")
    _same_months(pr.compare(FIVE, ["a", "b"], **paired), pr.compare(MORE, ["a", "b"], **paired))
    unpaired = dict(
        by="segment",
        groups=("retail", "sme"),
        within="month",
        score="a",
        ci="bootstrap",
        seed=5,
        n_boot=200,
    )
    _same_months(pr.compare_groups(FIVE, **unpaired), pr.compare_groups(MORE, **unpaired))


def test_chunk_size_does_not_change_the_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    options = dict(score="a", by="month", ci="bootstrap", seed=2, n_boot=150)
    whole = pr.roc_auc(FIVE, **options)
    monkeypatch.setattr(_bootstrap, "CELL_BUDGET", 64)
    assert_frame_equal(pr.roc_auc(FIVE, **options), whole)


def test_groups_draw_different_streams() -> None:
    # Two groups holding identical rows still get different (independent) draws.
    january = FIVE.filter(pl.col("month") == dt.date(2024, 1, 1))
    twins = pl.concat([january.with_columns(twin=pl.lit(name)) for name in ("x", "y")])
    out = pr.roc_auc(twins, score="a", by="twin", ci="bootstrap", seed=1, n_boot=200)
    assert out["auc"][0] == out["auc"][1]
    assert out["auc_se"][0] != out["auc_se"][1]


@pytest.mark.parametrize(
    "column",
    [
        pl.Series(["jan", "feb", "a", "a\x00", "ação", "", None]),
        pl.Series(["jan", "feb", None], dtype=pl.Categorical),
        pl.Series([1, 2, -1, 0, None]),
        pl.Series([0.5, 1.5, -0.5, None]),
        pl.Series([True, False, None]),
        pl.Series([dt.date(2024, 1, 1), dt.date(2024, 2, 1), None]),
        pl.Series([2**64 - 1, 0], dtype=pl.UInt64),
    ],
)
def test_key_hashes_tell_values_apart_and_ignore_other_rows(column: pl.Series) -> None:
    keys = pl.DataFrame({"k": column})
    hashes = _bootstrap.key_hashes(keys, keys.height)
    assert len(set(hashes.tolist())) == keys.height
    for i in range(keys.height):  # each row alone hashes the same as among the others
        assert _bootstrap.key_hashes(keys[i], 1)[0] == hashes[i]


def _splitmix64_int(x: int) -> int:
    """SplitMix64 on a Python int: the reference the numpy and polars versions follow."""
    mask = (1 << 64) - 1
    z = (x + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def test_key_hashes_are_stable_values() -> None:
    # They seed published intervals, so they must not drift between releases: the
    # SplitMix64 chain over the key's words, checked against an integer implementation
    # (independent of polars' hash).
    mix = _splitmix64_int
    keys = pl.DataFrame({"month": [dt.date(2024, 1, 1)], "segment": ["retail"]})
    assert _bootstrap.key_hashes(pl.DataFrame(), 1)[0] == 0
    days = (dt.date(2024, 1, 1) - dt.date(1970, 1, 1)).days
    expected = mix(mix(0 ^ 0) ^ days)  # not null, then the day number
    for word in (0, 6, int.from_bytes(b"retail\x00\x00", "little")):  # null, bytes, text
        expected = mix(expected ^ word)
    assert int(_bootstrap.key_hashes(keys, 1)[0]) == expected
    negative_zero = _bootstrap.key_hashes(pl.DataFrame({"x": [-0.0]}), 1)[0]
    assert negative_zero == _bootstrap.key_hashes(pl.DataFrame({"x": [0.0]}), 1)[0]


def test_progress_is_plain_lines_when_stderr_is_not_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    monkeypatch.setattr(_bootstrap, "CELL_BUDGET", 1000)  # many chunks
    pr.roc_auc(FIVE, score="a", by="month", ci="bootstrap", seed=1, n_boot=400, progress=True)
    text = log.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert lines[-1] == "bootstrap: 400/400 replicates"
    assert 2 <= len(lines) <= 10


def test_progress_updates_one_line_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    log = Terminal()
    monkeypatch.setattr(sys, "stderr", log)
    pr.roc_auc(FIVE, score="a", ci="bootstrap", seed=1, n_boot=40, progress=True)
    assert log.getvalue() == "\rbootstrap: 40/40 replicates\n"
