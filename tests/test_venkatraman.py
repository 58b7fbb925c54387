"""Venkatraman's permutation tests of two whole ROC curves (pROC's roc.test(method=
"venkatraman")), paired and unpaired.

Against pROC 1.18.0 on aSAH (fixtures/proc_venkatraman.csv, exported by
fixtures/proc_more.R): the statistic exactly, the p-value of 10000 permutations within
Monte Carlo error. Besides, the statistic is checked against a loop-by-loop
transcription of the definitions (pROC's R/venkatraman.R, Venkatraman & Begg 1996,
Venkatraman 2000), the p-values by their behaviour (uniform-ish under the null, small
under a clear difference, reproducible with the seed).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy.stats import kstest, rankdata

import polars_roc as pr
from polars_roc.exceptions import RocInputError


def paired_statistic(x, y, case, ties="first") -> float:
    """E = sum over x = 1..n of |errors of S at x - errors of R at x|, by loops."""
    method = "ordinal" if ties == "first" else "average"
    r, s = rankdata(x, method=method), rankdata(y, method=method)
    case = np.asarray(case, dtype=bool)
    total = 0.0
    for cut in range(1, len(x) + 1):
        errors_r = np.sum(r[case] <= cut) + np.sum(r[~case] > cut)
        errors_s = np.sum(s[case] <= cut) + np.sum(s[~case] > cut)
        total += abs(errors_s - errors_r)
    return total


def _approxfun(xs, ys):
    """R's approxfun(xs, ys): linear, NA outside, duplicated xs averaged."""
    unique = np.unique(xs)
    means = np.array([np.mean(ys[xs == u]) for u in unique])

    def f(at):
        out = np.interp(at, unique, means)
        return np.where((at < unique[0]) | (at > unique[-1]), np.nan, out)

    return f


def unpaired_statistic(x1, d1, x2, d2, mp, ties="first") -> float:
    """The area between the two traces over the mixture distribution, as in pROC."""
    method = "ordinal" if ties == "first" else "average"
    r, s = rankdata(x1, method=method), rankdata(x2, method=method)
    d1, d2 = np.asarray(d1, dtype=bool), np.asarray(d2, dtype=bool)

    def trace(ranks, d):
        n = len(ranks)
        fx = np.array([np.sum(ranks[d] <= c) for c in range(1, n + 1)]) / d.sum()
        gx = np.array([np.sum(ranks[~d] <= c) for c in range(1, n + 1)]) / (~d).sum()
        return mp * fx + (1 - mp) * gx, mp * fx + (1 - mp) * (1 - gx)

    (p1, e1), (p2, e2) = trace(r, d1), trace(s, d2)
    grid = np.sort(np.concatenate([p1, p2]))
    y = np.abs(_approxfun(p1, e1)(grid) - _approxfun(p2, e2)(grid))
    pieces = (y[1:] + y[:-1]) * np.diff(grid) / 2
    return float(np.nansum(pieces))


def paired_frame(n: int, seed: int, shift_b: float = 0.0, rounding: int | None = None):
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    a = rng.normal(label * 1.0, 1.0)
    b = rng.normal(label * (1.0 + shift_b), 1.0)
    if rounding is not None:
        a, b = np.round(a, rounding), np.round(b, rounding)
    return pl.DataFrame({"a": a, "b": b, "label": label})


HAND = pl.DataFrame(
    {
        "a": [0.9, 0.8, 0.35, 0.6, 0.3, 0.1, 0.4, 0.2],
        "b": [0.7, 0.4, 0.5, 0.9, 0.6, 0.2, 0.3, 0.8],
        "label": [1, 1, 1, 1, 0, 0, 0, 0],
    }
)


def test_paired_statistic_by_hand() -> None:
    # a ranks the cases 8, 7, 4, 6 and the controls 3, 1, 5, 2; b ranks the cases
    # 6, 3, 4, 8 and the controls 5, 1, 2, 7. Errors (cases ranked <= x plus controls
    # ranked > x) at x = 1..8: a 3, 2, 1, 2, 1, 2, 3, 4; b 3, 2, 3, 4, 3, 4, 3, 4;
    # |b - a| = 0, 0, 2, 2, 2, 2, 0, 0, which sum to 8.
    assert paired_statistic(HAND["a"], HAND["b"], HAND["label"]) == 8.0
    out = pr.compare_curves(HAND, ["a", "b"], n_boot=10, seed=0)
    assert out["statistic"].to_list() == [8.0]


@pytest.mark.parametrize("ties", ["first", "average"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_paired_statistic_equals_the_transcription_with_ties(ties, seed) -> None:
    frame = paired_frame(40, seed, shift_b=0.5, rounding=1).with_columns(
        g=pl.int_range(pl.len()) % 3
    )
    out = pr.compare_curves(frame, ["a", "b"], by="g", n_boot=5, seed=0, ties=ties)
    for row in out.iter_rows(named=True):
        rows = frame.filter(pl.col("g") == row["g"])
        want = paired_statistic(rows["a"], rows["b"], rows["label"], ties)
        assert row["statistic"] == want


@pytest.mark.parametrize("ties", ["first", "average"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_unpaired_statistic_equals_the_transcription(ties, seed) -> None:
    rng = np.random.default_rng(seed)
    n = 30  # equal sizes: pROC's mixing proportion is then the share of cases
    label = rng.integers(0, 2, 2 * n)
    frame = pl.DataFrame(
        {
            "region": ["n"] * n + ["s"] * n,
            "score": np.round(rng.normal(label * np.r_[np.ones(n), np.full(n, 2.0)], 1.0), 1),
            "label": label,
        }
    )
    out = pr.compare_curves_groups(
        frame, by="region", groups=("n", "s"), n_boot=5, seed=0, ties=ties
    )
    one, two = (frame.filter(pl.col("region") == g) for g in ("n", "s"))
    mp = label.sum() / (2 * n)
    want = unpaired_statistic(one["score"], one["label"], two["score"], two["label"], mp, ties)
    assert out["statistic"][0] == pytest.approx(want, abs=1e-12)


def test_unpaired_statistic_with_unequal_sizes_and_blocks() -> None:
    rng = np.random.default_rng(7)
    parts = []
    for block, (n1, n2) in enumerate([(25, 40), (31, 18)]):
        label = rng.integers(0, 2, n1 + n2)
        parts.append(
            pl.DataFrame(
                {
                    "block": block,
                    "side": ["x"] * n1 + ["y"] * n2,
                    "score": rng.normal(label * 1.2, 1.0),
                    "label": label,
                }
            )
        )
    frame = pl.concat(parts)
    out = pr.compare_curves_groups(
        frame, by="side", groups=("x", "y"), within="block", n_boot=5, seed=0
    )
    assert out["block"].to_list() == [0, 1]
    for row in out.iter_rows(named=True):
        rows = frame.filter(pl.col("block") == row["block"])
        one, two = (rows.filter(pl.col("side") == g) for g in ("x", "y"))
        mp = rows["label"].mean()  # the paper's share of cases (pROC's differs here)
        want = unpaired_statistic(one["score"], one["label"], two["score"], two["label"], mp)
        assert row["statistic"] == pytest.approx(want, abs=1e-12)


def test_paired_p_values_are_uniform_under_the_null_and_small_under_a_difference() -> None:
    # 120 groups of exchangeable scores (a and b drawn alike): p-values spread over
    # (0, 1]; with b much better than a, they are small.
    n_sets, n = 120, 40
    null = pl.concat([paired_frame(n, s).with_columns(g=pl.lit(s)) for s in range(n_sets)])
    p = pr.compare_curves(null, ["a", "b"], by="g", n_boot=200, seed=3)["p_value"].to_numpy()
    assert kstest(p, "uniform").pvalue > 0.01
    assert (p <= 0.05).mean() <= 0.1
    apart = paired_frame(200, 5, shift_b=2.0)
    assert pr.compare_curves(apart, ["a", "b"], n_boot=200, seed=3)["p_value"][0] <= 0.01


def test_unpaired_p_values_are_uniform_under_the_null_and_small_under_a_difference() -> None:
    rng = np.random.default_rng(11)
    n_sets, n = 100, 40
    label = rng.integers(0, 2, n_sets * n)
    frame = pl.DataFrame(
        {
            "set": np.repeat(np.arange(n_sets), n),
            "side": np.tile(np.repeat(["x", "y"], n // 2), n_sets),
            "score": rng.normal(label * 1.0, 1.0),
            "label": label,
        }
    )
    p = pr.compare_curves_groups(
        frame, by="side", groups=("x", "y"), within="set", n_boot=200, seed=2
    )["p_value"].to_numpy()
    assert kstest(p, "uniform").pvalue > 0.01
    assert (p <= 0.05).mean() <= 0.1
    apart = frame.filter(pl.col("set") < 5).with_columns(
        pl.when(pl.col("side") == "y").then(-pl.col("score")).otherwise(pl.col("score"))
    )
    p_apart = pr.compare_curves_groups(apart, by="side", groups=("x", "y"), n_boot=200, seed=2)[
        "p_value"
    ][0]
    assert p_apart <= 0.01


def test_same_seed_same_result_other_groups_do_not_matter() -> None:
    frame = paired_frame(90, 4, rounding=1).with_columns(g=pl.int_range(pl.len()) % 3)
    one = pr.compare_curves(frame, ["a", "b"], by="g", n_boot=300, seed=8)
    again = pr.compare_curves(frame.lazy(), ["a", "b"], by="g", n_boot=300, seed=8).collect()
    alone = pr.compare_curves(
        frame.filter(pl.col("g") == 2), ["a", "b"], by="g", n_boot=300, seed=8
    )
    assert_frame_equal(one, again)
    assert_frame_equal(one.filter(pl.col("g") == 2), alone)
    other = pr.compare_curves(frame, ["a", "b"], by="g", n_boot=300, seed=9)
    assert not other["p_value"].equals(one["p_value"])
    groups = dict(by="g", groups=(0, 1), n_boot=300, seed=8)
    first = pr.compare_curves_groups(frame, score="a", **groups)
    assert_frame_equal(first, pr.compare_curves_groups(frame.lazy(), score="a", **groups).collect())


def test_direction_lower_is_the_negated_scores() -> None:
    flipped = HAND.with_columns(-pl.col("a"), -pl.col("b"))
    lower = pr.compare_curves(HAND, ["a", "b"], direction="lower", n_boot=100, seed=1)
    higher = pr.compare_curves(flipped, ["a", "b"], n_boot=100, seed=1)
    assert_frame_equal(lower, higher)


def test_identical_curves_give_statistic_zero_and_p_one() -> None:
    same = HAND.with_columns(pl.col("a").alias("b"))
    out = pr.compare_curves(same, ["a", "b"], n_boot=50, seed=1)
    assert out["statistic"].to_list() == [0.0]
    assert out["p_value"].to_list() == [1.0]


def test_one_class_group_is_null_and_warned() -> None:
    frame = pl.concat([HAND.with_columns(g=pl.lit("x")), HAND.head(3).with_columns(g=pl.lit("y"))])
    with pytest.warns(UserWarning, match="'y'"):
        out = pr.compare_curves(frame, ["a", "b"], by="g", n_boot=20, seed=1)
    assert out.filter(pl.col("g") == "y")["p_value"].to_list() == [None]
    assert out.filter(pl.col("g") == "x")["statistic"].to_list() == [8.0]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: pr.compare_curves(HAND, ["a"]), ValueError, "`scores` must name two"),
        (
            lambda: pr.compare_curves(HAND, ["a", "b"], n_boot=1),
            ValueError,
            "`n_boot` must be an integer >= 2, got 1",
        ),
        (
            lambda: pr.compare_curves(HAND, ["a", "b"], ties="random"),
            ValueError,
            "`ties` must be 'first' or 'average', got 'random'",
        ),
        (
            lambda: pr.compare_curves(HAND, ["a", "b"], seed=-2),
            ValueError,
            "`seed` must be None or a non-negative integer",
        ),
        (
            lambda: pr.compare_curves_groups(HAND, by="a", groups=(1, 1)),
            ValueError,
            "`groups` must be two different values",
        ),
        (
            lambda: pr.compare_curves_groups(HAND, by="label", groups=(0, 1), within="label"),
            ValueError,
            "`within` must not contain",
        ),
        (
            lambda: pr.compare_curves_groups(
                HAND.with_columns(r=pl.lit("n")), by="r", groups=("n", "s"), score="a"
            ),
            ValueError,
            r"`groups` value\(s\) \['s'\] not found",
        ),
    ],
)
def test_bad_arguments_are_refused(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call()


def test_namespace_methods() -> None:
    assert_frame_equal(
        HAND.roc.compare_curves(["a", "b"], n_boot=30, seed=1),
        pr.compare_curves(HAND, ["a", "b"], n_boot=30, seed=1),
    )
    regions = HAND.with_columns(r=pl.Series(["n", "s"] * 4))
    options = dict(by="r", groups=("n", "s"), score="a", n_boot=30, seed=1)
    assert_frame_equal(
        regions.roc.compare_curves_groups(**options), pr.compare_curves_groups(regions, **options)
    )


def test_count_table_is_its_expanded_rows() -> None:
    frame = paired_frame(60, 6, rounding=1).with_columns(g=pl.int_range(pl.len()) % 2)
    counted = frame.group_by("g", "a", "b", "label", maintain_order=True).len("n")
    counted = pl.concat([counted, counted.head(2).with_columns(n=pl.lit(0, pl.UInt32))])
    expanded = counted.select(pl.exclude("n").repeat_by("n").explode()).drop_nulls()
    assert counted["n"].sum() == frame.height
    got = pr.compare_curves(counted, ["a", "b"], by="g", count="n", n_boot=100, seed=2)
    want = pr.compare_curves(expanded, ["a", "b"], by="g", n_boot=100, seed=2)
    assert_frame_equal(got, want)
    options = dict(by="g", groups=(0, 1), score="a", n_boot=100, seed=2)
    got = pr.compare_curves_groups(counted, count="n", **options)
    assert_frame_equal(got, pr.compare_curves_groups(expanded, **options))
    # The statistic with average ranks does not depend on the order of the rows.
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=1)
    average = dict(by="g", n_boot=2, seed=2, ties="average")
    assert_frame_equal(
        pr.compare_curves(counted, ["a", "b"], count="n", **average).drop("p_value"),
        pr.compare_curves(shuffled, ["a", "b"], **average).drop("p_value"),
    )


# --- against pROC (fixtures/proc_more.R) ----------------------------------------------

ASAH = pl.read_csv(Path(__file__).parent / "fixtures" / "asah.csv").with_row_index("row")
PROC = pl.read_csv(Path(__file__).parent / "fixtures" / "proc_venkatraman.csv")


@pytest.mark.parametrize("ref", list(PROC.iter_rows(named=True)))
def test_matches_proc_on_asah(ref: dict) -> None:
    options = {"label": "outcome", "n_boot": 10_000, "seed": 1, "ties": ref["ties"]}
    if ref["paired"]:
        out = pr.compare_curves(ASAH, [ref["score_a"], ref["score_b"]], **options)
    else:
        # Rows 1-56 against 57-112 or 57-113 (R's numbering), as in proc_more.R.
        end = 112 if ref["second"] == "57-112" else 113
        halves = ASAH.filter(pl.col("row") < end).with_columns(
            half=pl.when(pl.col("row") < 56).then(pl.lit("a")).otherwise(pl.lit("b"))
        )
        out = pr.compare_curves_groups(
            halves, by="half", groups=("a", "b"), score=ref["score_a"], **options
        )
    statistic, p_value = out["statistic"][0], out["p_value"][0]
    if ref["paired"] or ref["second"] == "57-112":
        assert statistic == pytest.approx(ref["statistic"], rel=1e-12)
    else:
        # Unequal sizes: pROC's mixing proportion is the cases over twice the first
        # group's size (its code repeats length(D1)); ours is the paper's, the cases over
        # both groups' rows. The transcription with pROC's proportion gives pROC's E.
        one, two = halves.filter(half="a"), halves.filter(half="b")
        cases = halves["outcome"].sum()
        args = (one[ref["score_a"]], one["outcome"], two[ref["score_a"]], two["outcome"])
        want = unpaired_statistic(*args, cases / (2 * one.height), ref["ties"])
        assert want == pytest.approx(ref["statistic"], rel=1e-12)
        ours = unpaired_statistic(*args, cases / halves.height, ref["ties"])
        assert statistic == pytest.approx(ours, abs=1e-12)
        assert statistic != pytest.approx(ref["statistic"], rel=1e-6)
    # Two independent runs of 10000 permutations: four standard deviations of the
    # difference of their shares (at least one exceedance's worth of p).
    p = max((p_value + ref["p_value"]) / 2, 1e-4)
    assert abs(p_value - ref["p_value"]) <= 4 * math.sqrt(2 * p * (1 - p) / 10_000)


def test_counts_past_what_a_row_can_expand_into_are_refused_by_name() -> None:
    # The expansion to single units stopped in Polars' repeat_by: a raw "conversion from
    # i64 to u32 failed" error.
    log = pl.DataFrame(
        {"a": [0.1, 0.4, 0.35, 0.8], "b": [0.2, 0.3, 0.6, 0.7], "label": [0, 0, 1, 1]}
    ).with_columns(n=pl.lit(2**40))
    with pytest.raises(RocInputError, match=r"expands count= into rows, but the counts stand"):
        pr.compare_curves(log, ["a", "b"], count="n", n_boot=10, seed=1)
