"""ROC curve points: against scikit-learn, a per-threshold loop and the seed examples."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest
from _reference import groups, naive_curve, pairwise_auc, trapezoid_area
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_curve as sk_roc_curve

import polars_roc as pr
from polars_roc.exceptions import RocOptionTypeError

CURVE_COLUMNS = ["threshold", "tp", "fp", "fn", "tn", "tpr", "fpr"]

# Seed 001 (Fawcett 2006, table of 20 scored instances; p = positive).
FAWCETT_CLASS = list("ppnpppnnpnpnpnnnpnpn")
FAWCETT_SCORE = [
    0.9,
    0.8,
    0.7,
    0.6,
    0.55,
    0.54,
    0.53,
    0.52,
    0.51,
    0.505,
    0.4,
    0.39,
    0.38,
    0.37,
    0.36,
    0.35,
    0.34,
    0.33,
    0.30,
    0.1,
]


def _by_list(by: str | list[str] | None) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else list(by)


def _group_rows(df: pl.DataFrame, by: str | list[str] | None):
    """(key, row mask) per group in sorted order; one all-rows group when ungrouped."""
    by_cols = _by_list(by)
    keys = [df[c].to_list() for c in by_cols] or [[None] * df.height]
    return by_cols, list(groups(keys))


def _curve_of(curve: pl.DataFrame, by_cols: list[str], key: tuple) -> pl.DataFrame:
    if not by_cols:
        return curve
    return curve.filter(pl.all_horizontal(pl.col(c).eq_missing(v) for c, v in zip(by_cols, key)))


def test_matches_sklearn_per_group(log: pl.DataFrame, as_kind, by, weight) -> None:
    curve = (
        pr.roc_curve(as_kind(log), label="truth", pos_label="bad", by=by, weight=weight)
        .lazy()
        .collect()
    )
    by_cols, rows = _group_rows(log, by)
    if by_cols:
        assert curve.select(by_cols).unique(maintain_order=True).height == len(rows)
    for key, mask in rows:
        part = log.filter(pl.Series(mask))
        fpr, tpr, thresholds = sk_roc_curve(
            part["truth"].to_numpy(),
            part["score"].to_numpy(),
            pos_label="bad",
            sample_weight=None if weight is None else part[weight].to_numpy(),
            drop_intermediate=False,
        )
        ours = _curve_of(curve, by_cols, key)
        np.testing.assert_array_equal(ours["threshold"].to_numpy(), thresholds)
        np.testing.assert_allclose(ours["tpr"].to_numpy(), tpr, rtol=0, atol=1e-9)
        np.testing.assert_allclose(ours["fpr"].to_numpy(), fpr, rtol=0, atol=1e-9)


EDGE = pl.DataFrame(
    {
        "g": ["x", "y", "x", "y", "x", "y", "x", "y", "x", "y", "x", "x"],
        "score": [
            math.inf,
            0.2,
            -0.0,
            -math.inf,
            0.0,
            0.2,
            -math.inf,
            3.0,
            0.5,
            0.2,
            math.inf,
            0.5,
        ],
        "label": [True, False, True, True, False, True, False, False, True, True, False, False],
        "weight": [1.5, 0.5, 2.0, 1.0, 0.25, 3.0, 1.0, 2.0, 0.75, 1.0, 0.5, 1.25],
    }
)


@pytest.mark.parametrize("weight", [None, "weight"])
@pytest.mark.parametrize("by", [None, "g"])
def test_matches_naive_threshold_loop(by: str | None, weight: str | None) -> None:
    # Infinite scores, signed zeros and ties: one point per distinct score after +inf.
    curve = pr.roc_curve(EDGE, by=by, weight=weight)
    by_cols, rows = _group_rows(EDGE, by)
    for key, mask in rows:
        part = EDGE.filter(pl.Series(mask))
        expected = naive_curve(
            part["score"].to_numpy(),
            part["label"].to_numpy(),
            None if weight is None else part[weight].to_numpy(),
        )
        ours = _curve_of(curve, by_cols, key).select(CURVE_COLUMNS)
        expected_frame = pl.DataFrame(expected).cast(ours.schema)
        assert_frame_equal(ours, expected_frame, rel_tol=1e-12)


def test_fawcett_seed_points() -> None:
    df = pl.DataFrame({"score": FAWCETT_SCORE, "label": FAWCETT_CLASS})
    curve = pr.roc_curve(df, pos_label="p")
    # Walk the sorted instances: a positive steps up 1/POS, a negative right 1/NEG.
    x = y = 0.0
    walk = [(x, y)]
    for cls in FAWCETT_CLASS:
        x, y = (x, y + 1 / 10) if cls == "p" else (x + 1 / 10, y)
        walk.append((x, y))
    np.testing.assert_allclose(curve["fpr"].to_numpy(), [p[0] for p in walk], atol=1e-12)
    np.testing.assert_allclose(curve["tpr"].to_numpy(), [p[1] for p in walk], atol=1e-12)
    assert curve["threshold"].to_list() == [math.inf, *FAWCETT_SCORE]
    at = {t: (f, r) for t, f, r in curve.select("threshold", "fpr", "tpr").iter_rows()}
    assert at[math.inf] == (0.0, 0.0)
    assert at[0.9] == (0.0, 0.1)
    assert at[0.54] == pytest.approx((0.1, 0.5), abs=1e-12)


def test_seed_002_ties_make_diagonal_steps() -> None:
    df = pl.DataFrame(
        {
            "score": [0.7, 0.7, 0.2, 0.4, 0.2, 0.3, 0.1, 0.5, 0.2, 0.1],
            "label": [1, 1, 1, 1, 0, 0, 0, 0, 0, 0],
        }
    )
    curve = pr.roc_curve(df)
    assert curve["threshold"].to_list() == [math.inf, 0.7, 0.5, 0.4, 0.3, 0.2, 0.1]
    assert curve["tp"].to_list() == [0, 2, 2, 3, 3, 4, 4]
    assert curve["fp"].to_list() == [0, 0, 1, 1, 2, 4, 6]
    assert curve["fn"].to_list() == [4, 2, 2, 1, 1, 0, 0]
    assert curve["tn"].to_list() == [6, 6, 5, 5, 4, 2, 0]
    np.testing.assert_allclose(curve["tpr"], [0, 0.5, 0.5, 0.75, 0.75, 1, 1])
    np.testing.assert_allclose(curve["fpr"], [0, 0, 1 / 6, 1 / 6, 2 / 6, 4 / 6, 1])


def test_every_group_starts_at_origin_and_ends_at_one(log: pl.DataFrame, by, weight) -> None:
    curve = pr.roc_curve(log, by=by, weight=weight)
    by_cols = _by_list(by)
    firsts = curve.group_by(by_cols or pl.lit(0), maintain_order=True).first()
    lasts = curve.group_by(by_cols or pl.lit(0), maintain_order=True).last()
    assert firsts["threshold"].to_list() == [math.inf] * firsts.height
    assert (firsts["tp"] == 0).all() and (firsts["fp"] == 0).all()
    assert (firsts["tpr"] == 0).all() and (firsts["fpr"] == 0).all()
    assert (lasts["tpr"] == 1).all() and (lasts["fpr"] == 1).all()
    assert (lasts["fn"] == 0).all() and (lasts["tn"] == 0).all()


def test_columns_dtypes_and_group_order(log: pl.DataFrame) -> None:
    curve = pr.roc_curve(log, by=["segment", "month"])
    assert curve.columns == ["segment", "month", *CURVE_COLUMNS]
    assert curve.select("segment", "month").unique(maintain_order=True).rows() == sorted(
        set(zip(log["segment"], log["month"]))
    )
    assert curve.schema["tp"] == pl.Int64 and curve.schema["tpr"] == pl.Float64
    weighted = pr.roc_curve(log, weight="weight")
    assert [weighted.schema[c] for c in CURVE_COLUMNS] == [pl.Float64] * 7
    # Within each group, thresholds strictly descend.
    descending = curve.group_by("segment", "month").agg(
        (pl.col("threshold").diff().drop_nulls() < 0).all().alias("ok")
    )
    assert descending["ok"].all()


def test_lazy_in_lazy_out_and_namespace(log: pl.DataFrame, as_kind) -> None:
    frame = as_kind(log)
    result = pr.roc_curve(frame, by="segment", weight="count", drop_intermediate=True)
    via_namespace = frame.roc.curve(by="segment", weight="count", drop_intermediate=True)
    assert type(result) is type(frame) and type(via_namespace) is type(frame)
    assert_frame_equal(result.lazy().collect(), via_namespace.lazy().collect())


def _cross(a: tuple, b: tuple, c: tuple) -> float:
    """Cross product of the steps a->b and b->c (zero when the three are collinear)."""
    return (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])


@pytest.mark.parametrize("weight", [None, "count"])
@pytest.mark.parametrize("by", [None, "segment"])
def test_drop_intermediate_drops_only_collinear_points(
    log_factory, by: str | None, weight: str | None
) -> None:
    # Mostly distinct scores give vertical and horizontal runs of one class, and
    # integer weights keep the collinearity test exact.
    df = log_factory(seed=5, n=80, levels=60)
    full = pr.roc_curve(df, by=by, weight=weight)
    thin = pr.roc_curve(df, by=by, weight=weight, drop_intermediate=True)
    by_cols, rows = _group_rows(df, by)
    for key, _mask in rows:
        points = _curve_of(full, by_cols, key).select("threshold", "fp", "tp").rows()
        kept = _curve_of(thin, by_cols, key).select("threshold", "fp", "tp").rows()
        expected = [points[0]]
        for before, point, after in zip(points, points[1:], points[2:]):
            if _cross(before[1:], point[1:], after[1:]) != 0:
                expected.append(point)
        expected.append(points[-1])
        assert kept == expected
        assert len(kept) < len(points)


def test_drop_intermediate_keeps_area_and_ends(log: pl.DataFrame, by, weight) -> None:
    full = pr.roc_curve(log, by=by, weight=weight)
    thin = pr.roc_curve(log, by=by, weight=weight, drop_intermediate=True)
    by_cols, rows = _group_rows(log, by)
    for key, mask in rows:
        a, b = _curve_of(full, by_cols, key), _curve_of(thin, by_cols, key)
        assert b.row(0) == a.row(0) and b.row(-1) == a.row(-1)
        area_full = trapezoid_area(a["fpr"].to_list(), a["tpr"].to_list())
        area_thin = trapezoid_area(b["fpr"].to_list(), b["tpr"].to_list())
        assert area_thin == pytest.approx(area_full, abs=1e-12)
        part = log.filter(pl.Series(mask))
        w = None if weight is None else part[weight].to_numpy()
        expected = pairwise_auc(part["score"].to_numpy(), part["label"].to_numpy() == 1, w)
        assert area_full == pytest.approx(expected, abs=1e-12)


def test_drop_intermediate_hand_example() -> None:
    # Three positives then two negatives: a vertical run and a horizontal run.
    df = pl.DataFrame({"score": [5, 4, 3, 2, 1], "label": [1, 1, 1, 0, 0]})
    thin = pr.roc_curve(df, drop_intermediate=True)
    assert thin.select("threshold", "tp", "fp").rows() == [
        (math.inf, 0, 0),
        (3.0, 3, 0),
        (1.0, 3, 2),
    ]


def test_drop_intermediate_keeps_corners_between_coincident_points() -> None:
    # A zero-weight row at 1.0 repeats the point (fpr 1, tpr 0) of the score 2.0; one
    # of the two must stay, or the curve cuts the corner and its area grows 0 -> 0.5.
    df = pl.DataFrame({"score": [0.0, 2.0, 1.0], "label": [1, 0, 0], "w": [1.0, 1.0, 0.0]})
    thin = pr.roc_curve(df, weight="w", drop_intermediate=True)
    assert (1.0, 0.0) in thin.select("fpr", "tpr").rows()
    assert trapezoid_area(thin["fpr"].to_list(), thin["tpr"].to_list()) == 0.0
    assert pr.roc_auc(df, weight="w")["auc"].item() == 0.0


def test_single_class_group_has_null_rate_and_warns() -> None:
    df = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.8, 0.3], "label": [1, 0, 0, 0]}
    )
    with pytest.warns(UserWarning, match=r"1 group\(s\) \[g='b'\] hold only one class"):
        curve = pr.roc_curve(df, by="g")
    b = curve.filter(pl.col("g") == "b")
    assert b["tpr"].null_count() == b.height
    assert not b["fpr"].is_nan().any() and b["fpr"].null_count() == 0
    a = curve.filter(pl.col("g") == "a")
    assert a["tpr"].to_list() == [0.0, 1.0, 1.0]
    assert a["fpr"].to_list() == [0.0, 0.0, 1.0]


def test_boolean_and_categorical_labels_agree(log: pl.DataFrame) -> None:
    as_bool = pr.roc_curve(log.with_columns(pl.col("label") == 1), by="segment")
    as_cat = pr.roc_curve(
        log.with_columns(pl.col("truth").cast(pl.Categorical)),
        label="truth",
        pos_label="bad",
        by="segment",
    )
    as_int = pr.roc_curve(log, by="segment")
    assert_frame_equal(as_bool, as_int)
    assert_frame_equal(as_cat, as_int)


@pytest.mark.parametrize("by", [None, "g"])
def test_empty_input_gives_empty_curve_with_schema(as_kind, by: str | None) -> None:
    empty = pl.DataFrame(
        {"g": [], "score": [], "label": []},
        schema={"g": pl.Int32, "score": pl.Float32, "label": pl.Boolean},
    )
    curve = pr.roc_curve(as_kind(empty), by=by).lazy().collect()
    expected = dict.fromkeys(CURVE_COLUMNS, pl.Int64) | {
        "threshold": pl.Float64,
        "tpr": pl.Float64,
        "fpr": pl.Float64,
    }
    assert curve.height == 0
    assert dict(curve.schema) == ({"g": pl.Int32} if by else {}) | expected


@pytest.mark.parametrize(
    ("call", "flag"),
    [
        (lambda f: pr.roc_curve(f, drop_intermediate="no"), "drop_intermediate"),
        (lambda f: pr.roc_curve(f, local_maxima=1), "local_maxima"),
        (lambda f: pr.pr_curve(f, drop_intermediate="no"), "drop_intermediate"),
        (lambda f: pr.det_curve(f, drop_intermediate="no"), "drop_intermediate"),
        (lambda f: pr.best_threshold(f, midpoint="no"), "midpoint"),
        (lambda f: pr.optimal_cutpoint(f, midpoint="no"), "midpoint"),
        (lambda f: pr.bootstrap_cutpoint(f, n_boot=2, summary="no"), "summary"),
        *(
            (call, "progress")
            for call in (
                lambda f: pr.roc_auc(f, ci="bootstrap", progress="no"),
                lambda f: pr.roc_curve(f, progress="no"),
                lambda f: pr.pr_auc(f, progress="no"),
                lambda f: pr.compare(f.with_columns(b="score"), ["score", "b"], progress="no"),
                lambda f: pr.compare_long(f, ("a", "b"), case="case", progress="no"),
                lambda f: pr.compare_groups(f, by="label", groups=(0, 1), progress="no"),
                lambda f: pr.threshold_ci(f, 0.5, progress="no"),
                lambda f: pr.tpr_at(f, 0.5, progress="no"),
                lambda f: pr.fpr_at(f, 0.5, progress="no"),
                lambda f: pr.disparity(f.with_columns(g=pl.lit(1)), 0.5, group="g", progress="no"),
            )
        ),
    ],
)
def test_flags_must_be_booleans(call: Any, flag: str) -> None:
    # A truthy "no" switched the option on (progress: printed the bootstrap's progress);
    # test=, standardize= were already checked.
    frame = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]})
    with pytest.raises(RocOptionTypeError, match=rf"^`{flag}` must be True or False, got "):
        call(frame)


def test_drop_intermediate_keeps_the_curve_of_huge_counts_and_of_weights() -> None:
    # The collinearity cross products overflowed Int64 for counts past ~2**32: every
    # point looked collinear and the curve fell to its two ends. Float sums of weights
    # missed exact zeros and kept collinear points.
    rng = np.random.default_rng(5)
    log = pl.DataFrame(
        {"score": np.round(rng.normal(size=40), 1), "label": rng.integers(0, 2, 40)}
    ).with_columns(c=pl.lit(3))
    rows = pr.roc_curve(log, drop_intermediate=True, count="c")
    assert rows.height > 2
    huge = pr.roc_curve(log.with_columns(c=pl.lit(3 * 2**40)), drop_intermediate=True, count="c")
    assert huge["threshold"].to_list() == rows["threshold"].to_list()
    weighted = pr.roc_curve(log.with_columns(w=pl.lit(0.3)), drop_intermediate=True, weight="w")
    assert weighted["threshold"].to_list() == rows["threshold"].to_list()
