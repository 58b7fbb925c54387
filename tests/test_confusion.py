"""Confusion counts and measures: against scikit-learn, hand-computed tables and seeds, and
pROC 1.18.0's coords(ret = "all") at thresholds (fixtures/proc_coords.csv, from
fixtures/proc_more.R)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from _reference import counts_at, groups
from _reference import kappa_level as reference_kappa_level
from _reference import measures as reference_measures
from conftest import SEGMENTS
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import polars_roc as pr
from polars_roc.core import counting
from polars_roc.core.measures import KAPPA_LEVELS, MEASURE_COLUMNS, _kappa_level, with_measures

COUNT_COLUMNS = ["threshold", "tp", "fp", "fn", "tn"]
MEASURES = [
    "pp",
    "pn",
    "pos",
    "neg",
    "n",
    "tpr",
    "fpr",
    "tnr",
    "fnr",
    "ppv",
    "npv",
    "fdr",
    "for",
    "accuracy",
    "error_rate",
    "balanced_accuracy",
    "f1",
    "kappa",
    "kappa_level",
    "mcc",
    "youden_j",
    "prevalence",
    "lr_pos",
    "lr_neg",
    "dor",
    "p_tp",
    "p_fp",
    "p_fn",
    "p_tn",
]
# Inside every group's score range (scikit-learn warns on empty margins); 6/14 is a score.
THRESHOLDS = [0.4, 6 / 14, 0.6]


def _by_list(by: str | list[str] | None) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else list(by)


def _rows(df: pl.DataFrame, by: str | list[str] | None) -> list[tuple[tuple, pl.DataFrame]]:
    by_cols = _by_list(by)
    keys = [df[c].to_list() for c in by_cols] or [[None] * df.height]
    return [(key, df.filter(pl.Series(mask))) for key, mask in groups(keys)]


def _sklearn_measures(truth: np.ndarray, score: np.ndarray, t: float, w) -> dict:
    """The measures scikit-learn has, for string labels (positive class ``"bad"``)."""
    predicted = np.where(score >= t, "bad", "good")
    common = {"y_true": truth, "y_pred": predicted, "sample_weight": w}
    (tp, fn), (fp, tn) = skm.confusion_matrix(labels=["bad", "good"], **common)
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "tpr": skm.recall_score(pos_label="bad", **common),
        "tnr": skm.recall_score(pos_label="good", **common),
        "ppv": skm.precision_score(pos_label="bad", **common),
        "npv": skm.precision_score(pos_label="good", **common),
        "f1": skm.f1_score(pos_label="bad", **common),
        "f_beta": skm.fbeta_score(beta=2.0, pos_label="bad", **common),
        "accuracy": skm.accuracy_score(**common),
        "balanced_accuracy": skm.balanced_accuracy_score(**common),
        "kappa": skm.cohen_kappa_score(truth, predicted, sample_weight=w),
        "mcc": skm.matthews_corrcoef(**common),
    }


def test_matches_sklearn_per_group_and_threshold(log: pl.DataFrame, as_kind, by, weight) -> None:
    result = (
        pr.confusion_matrix(
            as_kind(log),
            THRESHOLDS,
            label="truth",
            pos_label="bad",
            by=by,
            weight=weight,
            beta=2.0,
        )
        .lazy()
        .collect()
    )
    by_cols = _by_list(by)
    rows = _rows(log, by)
    assert result.height == len(rows) * len(THRESHOLDS)
    position = 0
    for key, part in rows:
        w = None if weight is None else part[weight].to_numpy()
        for t in THRESHOLDS:
            ours = result.row(position, named=True)
            position += 1
            assert tuple(ours[c] for c in by_cols) == key[: len(by_cols)]
            assert ours["threshold"] == t
            expected = _sklearn_measures(part["truth"].to_numpy(), part["score"].to_numpy(), t, w)
            for name, value in expected.items():
                assert ours[name] == pytest.approx(value, rel=1e-9, abs=1e-9), name


def _all_measures_match(result: pl.DataFrame, df: pl.DataFrame, by, weight) -> None:
    """Every measure column against the reference definitions, nulls included."""
    by_cols = _by_list(by)
    thresholds = result["threshold"].unique(maintain_order=True).to_list()
    position = 0
    for key, part in _rows(df, by):
        w = None if weight is None else part[weight].to_numpy()
        for t in thresholds:
            ours = result.row(position, named=True)
            position += 1
            assert tuple(ours[c] for c in by_cols) == key[: len(by_cols)]
            counts = counts_at(part["score"].to_numpy(), part["label"].to_numpy() == 1, t, w)
            assert (ours["tp"], ours["fp"], ours["fn"], ours["tn"]) == pytest.approx(counts)
            expected = reference_measures(*counts)
            for name, value in expected.items():
                if name == "kappa_level":
                    assert ours[name] in _levels_near(expected["kappa"]), (t, counts)
                elif value is None:
                    assert ours[name] is None, (name, t, counts)
                else:
                    assert ours[name] == pytest.approx(value, rel=1e-12, abs=1e-12), name


def _levels_near(kappa: float | None) -> set[str | None]:
    """The agreement levels within rounding of ``kappa`` (either side of a bound).

    Exact zeros are held to account separately, in
    ``test_kappa_of_a_constant_prediction_is_exactly_zero``.
    """
    if kappa is None:
        return {None}
    return {reference_kappa_level(min(1.0, kappa + d)) for d in (-1e-12, 0.0, 1e-12)}


def test_every_measure_matches_reference(log: pl.DataFrame, by, weight) -> None:
    # Includes thresholds above and below every score, where many ratios are undefined.
    thresholds = [math.inf, 2.0, 1.0, 0.5, 3 / 14, 0.0, -1.0, -math.inf]
    result = pr.confusion_matrix(log, thresholds, by=by, weight=weight)
    _all_measures_match(result, log, by, weight)
    # No `by`: one group (Polars 1.x's n_unique refuses a frame of no columns).
    n_groups = log.select(_by_list(by)).n_unique() if by is not None else 1
    assert result.height == len(thresholds) * n_groups


def test_hand_computed_table(as_kind) -> None:
    # tp=20, fp=10, fn=5, tn=65 from rows: predicted positive iff score >= 0.5.
    df = pl.DataFrame(
        {
            "score": [0.9] * 20 + [0.1] * 5 + [0.9] * 10 + [0.1] * 65,
            "label": [True] * 25 + [False] * 75,
        }
    )
    row = pr.confusion_matrix(as_kind(df), 0.5).lazy().collect().row(0, named=True)
    expected = {
        "threshold": 0.5,
        "tp": 20,
        "fp": 10,
        "fn": 5,
        "tn": 65,
        "pp": 30,
        "pn": 70,
        "pos": 25,
        "neg": 75,
        "n": 100,
        "tpr": 0.8,
        "fpr": 2 / 15,
        "tnr": 13 / 15,
        "fnr": 0.2,
        "ppv": 2 / 3,
        "npv": 13 / 14,
        "fdr": 1 / 3,
        "for": 1 / 14,
        "accuracy": 0.85,
        "error_rate": 0.15,
        "balanced_accuracy": 5 / 6,
        "f1": 8 / 11,
        # observed 0.85, expected (30*25 + 70*75) / 100^2 = 0.6: (0.85-0.6)/(1-0.6)
        "kappa": 0.625,
        "kappa_level": "substantial",
        "mcc": 1250 / math.sqrt(30 * 25 * 75 * 70),
        "youden_j": 2 / 3,
        "prevalence": 0.25,
        "lr_pos": 6.0,
        "lr_neg": 3 / 13,
        "dor": 26.0,
        "p_tp": 0.2,
        "p_fp": 0.1,
        "p_fn": 0.05,
        "p_tn": 0.65,
    }
    assert list(row) == [*COUNT_COLUMNS, *MEASURES]
    for name, value in expected.items():
        if isinstance(value, str):
            assert row[name] == value
        else:
            assert row[name] == pytest.approx(value, rel=1e-12), name


def test_hand_computed_negative_agreement() -> None:
    counts = pl.DataFrame({"tp": [5], "fp": [20], "fn": [20], "tn": [5]})
    row = with_measures(counts).row(0, named=True)
    # observed 10/50 = 0.2, expected (25*25 + 25*25)/50^2 = 0.5: kappa = -0.3/0.5
    assert row["kappa"] == pytest.approx(-0.6)
    assert row["kappa_level"] == "poor"
    assert row["mcc"] == pytest.approx((25 - 400) / 625)
    assert row["youden_j"] == pytest.approx(-0.6)
    assert row["dor"] == pytest.approx(25 / 400)


def test_seed_001_threshold_054() -> None:
    df = pl.DataFrame(
        {
            "score": [
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
            ],
            "label": list("ppnpppnnpnpnpnnnpnpn"),
        }
    )
    row = pr.confusion_matrix(df, 0.54, pos_label="p").row(0, named=True)
    assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (5, 1, 5, 9)
    assert row["fpr"] == pytest.approx(0.1)
    assert row["tpr"] == pytest.approx(0.5)
    assert row["accuracy"] == pytest.approx(0.70)


def test_zero_denominators_are_null_not_nan() -> None:
    counts = pl.DataFrame(
        {
            "tp": [0, 10, 0, 0],
            "fp": [0, 0, 0, 4],
            "fn": [3, 0, 0, 0],
            "tn": [7, 0, 0, 6],
        }
    )
    result = with_measures(counts, beta=0.5)
    floats = [c for c, dtype in result.schema.items() if dtype == pl.Float64]
    assert result.select(pl.col(floats).is_nan().any()).row(0) == (False,) * len(floats)
    nothing_predicted, all_positive, empty, no_positives = result.iter_rows(named=True)
    # Nothing predicted positive: precision and the likelihood ratio are undefined.
    assert nothing_predicted["ppv"] is None and nothing_predicted["fdr"] is None
    assert nothing_predicted["lr_pos"] is None and nothing_predicted["dor"] is None
    assert nothing_predicted["mcc"] is None
    assert nothing_predicted["lr_neg"] == 1.0 and nothing_predicted["tpr"] == 0.0
    assert nothing_predicted["kappa"] == 0.0 and nothing_predicted["kappa_level"] == "slight"
    # Every row positive and predicted so: no negatives, chance agreement is 1.
    for name in (
        "fpr",
        "tnr",
        "npv",
        "for",
        "kappa",
        "kappa_level",
        "mcc",
        "balanced_accuracy",
        "youden_j",
        "lr_pos",
        "lr_neg",
        "dor",
    ):
        assert all_positive[name] is None, name
    assert all_positive["accuracy"] == 1.0 and all_positive["f1"] == 1.0
    # No rows at all: every ratio is null.
    assert all(empty[c] is None for c in [*floats, "kappa_level"])
    assert no_positives["tpr"] is None and no_positives["prevalence"] == 0.0
    for row in result.iter_rows(named=True):
        expected = reference_measures(row["tp"], row["fp"], row["fn"], row["tn"])
        for name, value in expected.items():
            assert row[name] == (value if value is None else pytest.approx(value)), name


def test_kappa_levels_constant_is_landis_koch() -> None:
    assert KAPPA_LEVELS == (
        (0.2, "slight"),
        (0.4, "fair"),
        (0.6, "moderate"),
        (0.8, "substantial"),
        (1.0, "almost perfect"),
    )
    assert pr.KAPPA_LEVELS is KAPPA_LEVELS


def test_kappa_level_boundaries() -> None:
    kappas = [-1.0, -1e-12, 0.0, 1e-12, 0.2, 0.2000001, 0.4, 0.41, 0.6, 0.61, 0.8, 0.81, 1.0, None]
    levels = pl.select(_kappa_level(pl.Series("kappa", kappas, dtype=pl.Float64)))
    assert levels.to_series().to_list() == [
        "poor",
        "poor",
        "slight",
        "slight",
        "slight",
        "fair",
        "fair",
        "moderate",
        "moderate",
        "substantial",
        "substantial",
        "almost perfect",
        "almost perfect",
        None,
    ]


def test_kappa_level_per_group_from_data() -> None:
    # Symmetric tables tp = tn = a, fp = fn = b have kappa (a - b) / (a + b).
    tables = {
        "poor": (1, 3),
        "zero": (5, 5),
        "slight": (11, 9),
        "fair": (13, 7),
        "moderate": (3, 1),
        "substantial": (17, 3),
        "almost": (19, 1),
        "perfect": (4, 0),
    }
    rows = []
    for group, (a, b) in tables.items():
        for label, above, count in ((1, True, a), (1, False, b), (0, True, b), (0, False, a)):
            rows += [(group, 1.0 if above else 0.0, label)] * count
    df = pl.DataFrame(rows, schema=["g", "score", "label"], orient="row")
    result = pr.confusion_matrix(df, 0.5, by="g").select("g", "kappa", "kappa_level")
    assert result.rows() == [
        ("almost", pytest.approx(0.9), "almost perfect"),
        ("fair", pytest.approx(0.3), "fair"),
        ("moderate", pytest.approx(0.5), "moderate"),
        ("perfect", 1.0, "almost perfect"),
        ("poor", pytest.approx(-0.5), "poor"),
        ("slight", pytest.approx(0.1), "slight"),
        ("substantial", pytest.approx(0.7), "substantial"),
        ("zero", 0.0, "slight"),
    ]


@pytest.mark.parametrize("weights", [[1.0, 3.0], [0.2, 1.3], [0.7, 0.3]])
def test_kappa_of_a_constant_prediction_is_exactly_zero(weights: list[float]) -> None:
    # Predicting every row positive agrees with the truth no better than chance:
    # tp * tn - fp * fn = 0, so kappa is 0 ("slight"), as scikit-learn gives too.
    df = pl.DataFrame({"score": [0.5, 0.5], "label": [1, 0], "w": weights})
    row = pr.confusion_matrix(df, 0.0, weight="w").row(0, named=True)
    expected = skm.cohen_kappa_score([1, 0], [1, 1], sample_weight=weights)
    assert expected == 0.0
    assert (row["kappa"], row["kappa_level"]) == (0.0, "slight")


def test_thresholds_keep_given_order_and_include_ties() -> None:
    df = pl.DataFrame({"score": [0.2, 0.5, 0.5, 0.8], "label": [0, 1, 0, 1]})
    result = pr.confusion_matrix(df, [0.8, 0.1, 0.5, 0.50001, math.inf, -math.inf])
    assert result.select(COUNT_COLUMNS).rows() == [
        (0.8, 1, 0, 1, 2),
        (0.1, 2, 2, 0, 0),
        (0.5, 2, 1, 0, 1),
        (0.50001, 1, 0, 1, 2),
        (math.inf, 0, 0, 2, 2),
        (-math.inf, 2, 2, 0, 0),
    ]


def test_null_group_key_is_a_group_like_any_other() -> None:
    # Curves and AUC count a null segment as a group (sorted first); so must confusion.
    df = pl.DataFrame(
        {
            "g": [None, None, None, "b", "b"],
            "score": [0.9, 0.4, 0.1, 0.8, 0.3],
            "label": [1, 0, 1, 1, 0],
        }
    )
    result = pr.confusion_matrix(df, [0.5, 0.05], by="g")
    assert result.select("g", *COUNT_COLUMNS).rows() == [
        (None, 0.5, 1, 0, 1, 1),
        (None, 0.05, 2, 1, 0, 0),
        ("b", 0.5, 1, 0, 0, 1),
        ("b", 0.05, 1, 1, 0, 0),
    ]


def test_infinite_scores_against_infinite_thresholds() -> None:
    df = pl.DataFrame({"score": [math.inf, 0.3, -math.inf], "label": [1, 0, 0]})
    result = pr.confusion_matrix(df, [math.inf, 0.0, -math.inf])
    assert result.select("tp", "fp").rows() == [(1, 0), (1, 1), (1, 2)]


def test_beta(log: pl.DataFrame) -> None:
    plain = pr.confusion_matrix(log, THRESHOLDS)
    assert "f_beta" not in plain.columns
    with_beta = pr.confusion_matrix(log, THRESHOLDS, beta=1.0)
    assert with_beta.columns == [*COUNT_COLUMNS, *MEASURES[:17], "f_beta", *MEASURES[17:]]
    np.testing.assert_allclose(with_beta["f_beta"], with_beta["f1"], rtol=1e-12)
    assert with_beta.drop("f_beta").equals(plain)


def test_columns_dtypes_kinds_and_namespace(log: pl.DataFrame, as_kind) -> None:
    frame = as_kind(log)
    result = pr.confusion_matrix(frame, [0.5, 0.3], by=["segment", "month"])
    via_namespace = frame.roc.confusion([0.5, 0.3], by=["segment", "month"])
    assert type(result) is type(frame) and type(via_namespace) is type(frame)
    result = result.lazy().collect()
    assert_frame_equal(result, via_namespace.lazy().collect())
    assert result.columns == ["segment", "month", *COUNT_COLUMNS, *MEASURES]
    assert list(MEASURE_COLUMNS) == MEASURES
    groups_in_order = sorted(set(zip(log["segment"], log["month"])))
    assert result.select("segment", "month").rows() == [
        key for key in groups_in_order for _ in range(2)
    ]
    assert result["threshold"].to_list() == [0.5, 0.3] * len(groups_in_order)
    for name in ("tp", "fp", "fn", "tn", "pp", "pn", "pos", "neg", "n"):
        assert result.schema[name] == pl.Int64, name
    assert result.schema["kappa_level"] == pl.String
    rates = [c for c in MEASURES[5:] if c != "kappa_level"]
    assert all(result.schema[c] == pl.Float64 for c in rates)
    weighted = pr.confusion_matrix(log, 0.5, weight="weight")
    assert all(weighted.schema[c] == pl.Float64 for c in ("tp", "fn", "pp", "n"))


def test_single_class_group_warns_and_other_groups_unaffected() -> None:
    df = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.8, 0.3], "label": [1, 0, 1, 1]}
    )
    with pytest.warns(UserWarning, match=r"\[g='b'\] hold only one class"):
        result = pr.confusion_matrix(df, 0.5, by="g")
    a, b = result.iter_rows(named=True)
    assert a["accuracy"] == 1.0 and a["kappa"] == 1.0
    assert b["tpr"] == 0.5 and b["fpr"] is None and b["mcc"] is None


@pytest.mark.parametrize(
    ("threshold", "error", "match"),
    [
        ([], ValueError, r"`threshold` must be a number or a non-empty list of numbers, got \[\]"),
        (math.nan, ValueError, "`threshold` values must not be NaN"),
        ([0.5, math.nan], ValueError, "`threshold` values must not be NaN"),
        (["0.5"], TypeError, r"`threshold` values must be numbers, got '0.5'"),
        ([True], TypeError, r"`threshold` values must be numbers, got True"),
    ],
)
def test_bad_thresholds_raise(log: pl.DataFrame, threshold, error, match: str) -> None:
    with pytest.raises(error, match=match):
        pr.confusion_matrix(log, threshold)


@pytest.mark.parametrize("by", [None, "g"])
def test_empty_input_gives_empty_frame_with_schema(as_kind, by: str | None) -> None:
    empty = pl.DataFrame(
        {"g": [], "score": [], "label": []},
        schema={"g": pl.String, "score": pl.Float64, "label": pl.Boolean},
    )
    result = pr.confusion_matrix(as_kind(empty), [0.2, 0.8], by=by).lazy().collect()
    assert result.height == 0
    assert result.columns == [*(["g"] if by else []), *COUNT_COLUMNS, *MEASURES]
    assert result.schema["tp"] == pl.Int64 and result.schema["kappa_level"] == pl.String


def test_float32_scores_meet_thresholds_in_their_own_dtype() -> None:
    # A Float32 score of 0.7 is 0.699999988 as a Float64: `score >= 0.7` must still hold
    # for it, as in Polars (`pl.col("score") >= 0.7`) and numpy on the Float32 column.
    rng = np.random.default_rng(4)
    scores = np.round(rng.random(2000), 1).astype(np.float32)
    labels = rng.random(2000) < 0.4
    df = pl.DataFrame({"g": rng.integers(0, 3, 2000), "score": scores, "label": labels})
    assert df.schema["score"] == pl.Float32
    thresholds = [0.1, 0.3, 0.7, 0.9, 1e39, -1e39]
    result = pr.confusion_matrix(df, thresholds, by="g")
    assert result["threshold"].to_list()[: len(thresholds)] == thresholds  # shown as given
    for row in result.iter_rows(named=True):
        part = df.filter(pl.col("g") == row["g"])
        predicted = part.filter(pl.col("score") >= row["threshold"])
        assert row["tp"] == predicted["label"].sum()
        assert row["fp"] == predicted.height - predicted["label"].sum()
        with np.errstate(over="ignore"):  # 1e39 is +inf as a Float32
            in_numpy = part["score"].to_numpy() >= row["threshold"]  # compared as Float32
        assert row["tp"] + row["fp"] == in_numpy.sum()
    # The summary across folds and the chart's threshold points read the same counts.
    summary = pr.fold_summary(df, fold="g", threshold=0.7, metrics=["tpr"])
    tpr = result.filter(pl.col("threshold") == 0.7)["tpr"]
    assert summary.filter(pl.col("metric") == "tpr")["mean"].item() == pytest.approx(tpr.mean())
    spec = df.roc.plot(by="g", points=0.7).to_dict()
    marked = [r for ds in spec["datasets"].values() for r in ds if r.get("_layer") == "point"]
    assert sorted(r["tpr"] for r in marked) == pytest.approx(sorted(tpr.to_list()), abs=1e-6)


@pytest.mark.parametrize("beta", [0.0, 0.5, 3.0, math.inf])
def test_beta_limits_match_sklearn(log: pl.DataFrame, beta: float) -> None:
    result = pr.confusion_matrix(log, THRESHOLDS, label="truth", pos_label="bad", beta=beta)
    truth = log["truth"].to_numpy()
    for t, ours in zip(THRESHOLDS, result["f_beta"], strict=True):
        predicted = np.where(log["score"].to_numpy() >= t, "bad", "good")
        expected = skm.fbeta_score(truth, predicted, beta=beta, pos_label="bad")
        assert ours == pytest.approx(expected, rel=1e-12)
    assert not result.select(pl.col("f_beta").is_nan().any()).item()
    if math.isinf(beta):
        assert result["f_beta"].to_list() == result["tpr"].to_list()


def test_infinite_beta_without_positives_is_null() -> None:
    counts = pl.DataFrame({"tp": [0, 0], "fp": [3, 0], "fn": [0, 2], "tn": [5, 1]})
    f_beta = with_measures(counts, beta=math.inf)["f_beta"].to_list()
    assert f_beta == [None, 0.0]


@pytest.mark.parametrize(
    ("beta", "error", "match"),
    [
        (-1.0, ValueError, r"`beta` must be a non-negative number .*got -1\.0"),
        (math.nan, ValueError, r"`beta` must be a non-negative number .*got nan"),
        ("2", TypeError, r"`beta` must be a non-negative number, got '2'"),
        (True, TypeError, r"`beta` must be a non-negative number, got True"),
    ],
)
def test_bad_beta_is_refused(log: pl.DataFrame, beta, error, match) -> None:
    with pytest.raises(error, match=match):
        pr.confusion_matrix(log, 0.5, beta=beta)
    with pytest.raises(error, match=match):
        pr.multiclass_measures(
            pl.DataFrame({"label": ["a", "b"], "pa": [0.6, 0.3], "pb": [0.4, 0.7]}),
            {"a": "pa", "b": "pb"},
            beta=beta,
        )


@pytest.mark.parametrize(
    ("tp", "fp", "fn", "tn", "dor"),
    [
        (0, 2, 3, 5, 0.0),  # no true positive: the product tp*tn is 0
        (4, 2, 3, 0, 0.0),  # no true negative: the same zero product, the same answer
        (4, 0, 3, 5, None),  # no false positive: fp*fn = 0
        (4, 2, 0, 5, None),  # no false negative
        (4, 2, 3, 5, 20 / 6),
    ],
)
def test_dor_as_documented(tp, fp, fn, tn, dor) -> None:
    row = (
        pl.DataFrame({"tp": [tp], "fp": [fp], "fn": [fn], "tn": [tn]})
        .pipe(with_measures)
        .row(0, named=True)
    )
    assert row["dor"] == (None if dor is None else pytest.approx(dor, rel=1e-12))
    # The likelihood ratios share the rule: 0 for a zero numerator, null for a zero
    # denominator, whichever side the zero is on.
    pos, neg = tp + fn, fp + tn
    assert row["lr_pos"] == (None if fp == 0 else pytest.approx((tp / pos) / (fp / neg)))
    assert row["lr_neg"] == (None if tn == 0 else pytest.approx((fn / pos) / (tn / neg)))


# Thresholds per segment (issue 27, item 2): a frame or a dict instead of one threshold.


def _one_call_per_segment(log: pl.DataFrame, thresholds: pl.DataFrame, by: list[str], **options):
    """The reference: one confusion_matrix call per segment, at that segment's thresholds."""
    parts = []
    for key in log.select(by).unique().sort(by).rows():
        where = pl.all_horizontal(pl.col(c) == v for c, v in zip(by, key))
        keys = [c for c in by if c in thresholds.columns]
        mine = thresholds.filter(
            pl.all_horizontal(pl.col(c) == v for c, v in zip(by, key) if c in keys)
            if keys
            else pl.lit(True)
        )
        part = pr.confusion_matrix(log.filter(where), mine["threshold"].to_list(), **options)
        parts.append(part.select(*(pl.lit(v).alias(c) for c, v in zip(by, key)), pl.all()))
    return pl.concat(parts)


@pytest.mark.parametrize("by", [["segment"], ["segment", "month"]], ids=["by1", "by2"])
@pytest.mark.parametrize("options", [{}, {"weight": "weight"}, {"direction": "lower"}])
def test_thresholds_per_segment_equal_one_call_per_segment(log, as_kind, by, options) -> None:
    best = log.roc.best_threshold(by=by, **options)
    # Today's regression: df.roc.confusion(df.roc.best_threshold(by=...), by=...) failed.
    got = as_kind(log).roc.confusion(best, by=by, **options)
    got = got.collect() if isinstance(got, pl.LazyFrame) else got
    assert_frame_equal(got, _one_call_per_segment(log, best, by, **options), check_dtypes=False)
    assert got["threshold"].to_list() == best["threshold"].to_list()
    # The same thresholds as a dict (tuples with two `by` columns), and as a lazy frame.
    mapping = {
        (row[:-1] if len(by) > 1 else row[0]): row[-1]
        for row in best.select(*by, "threshold").rows()
    }
    assert_frame_equal(log.roc.confusion(mapping, by=by, **options), got)
    assert_frame_equal(log.roc.confusion(best.lazy(), by=by, **options), got)


def test_thresholds_keyed_by_some_by_columns_apply_to_the_others(log) -> None:
    # Each segment's threshold, several rows of a segment kept in order, every month.
    thresholds = pl.DataFrame(
        {"segment": ["south", "east", "north", "east"], "threshold": [0.5, 0.3, 0.7, 0.6]}
    )
    got = log.roc.confusion(thresholds, by=["segment", "month"])
    reference = _one_call_per_segment(log, thresholds, ["segment", "month"])
    assert_frame_equal(got, reference, check_dtypes=False)
    assert got.filter(segment="east", month=1)["threshold"].to_list() == [0.3, 0.6]
    # A frame without any `by` column: its thresholds apply to every group.
    everywhere = log.roc.confusion(pl.DataFrame({"threshold": [0.4]}), by="segment")
    assert_frame_equal(everywhere, log.roc.confusion(0.4, by="segment"))


def test_thresholds_per_segment_by_hand() -> None:
    # a: 0.9+ 0.6- 0.2-; b: 0.55+ 0.3- ; c (absent from the thresholds' log) ignored.
    log = pl.DataFrame(
        {
            "segment": ["a", "a", "b", "b", "a"],
            "score": [0.9, 0.6, 0.55, 0.3, 0.2],
            "label": [1, 0, 1, 0, 0],
        }
    )
    got = log.roc.confusion({"a": 0.5, "b": 0.25, "c": 0.1}, by="segment")
    assert got.select("segment", "threshold", "tp", "fp", "fn", "tn").rows() == [
        ("a", 0.5, 1, 1, 0, 1),
        ("b", 0.25, 1, 1, 0, 0),
    ]
    # A null threshold (a one-class segment's best_threshold) gives a row of nulls.
    nulls = log.roc.confusion({"a": 0.5, "b": None}, by="segment").filter(segment="b")
    assert nulls.select("threshold", "tp", "fp", "fn", "tn", "tpr", "f1").row(0) == (None,) * 7
    # A null segment is a segment like any other.
    with_null = log.with_columns(pl.col("segment").replace("b", None))
    keyed = with_null.roc.confusion({"a": 0.5, None: 0.25}, by="segment")
    assert keyed["tp"].to_list() == [1, 1] and keyed["segment"].to_list() == [None, "a"]


def test_thresholds_per_segment_on_duckdb(log, monkeypatch) -> None:
    duckdb = pytest.importorskip("duckdb")
    relation = duckdb.from_arrow(log.to_arrow())
    # The engine counts per threshold (every segment's thresholds are cuts), not per score.
    cuts: list = []
    count_in_engine = counting.count_in_engine
    monkeypatch.setattr(
        counting,
        "count_in_engine",
        lambda *args, **kwargs: cuts.append(kwargs["cuts"]) or count_in_engine(*args, **kwargs),
    )
    for options in ({}, {"count": "count"}, {"direction": "lower"}):
        best = log.roc.best_threshold(by="segment", **options)
        expected = log.roc.confusion(best, by="segment", **options)
        got = pr.confusion_matrix(relation, best, by="segment", **options)
        assert_frame_equal(got, expected)
        assert sorted(cuts[-1][1]) == sorted(set(best["threshold"]))


@pytest.mark.parametrize(
    ("threshold", "by", "error", "match"),
    [
        (
            {"east": 0.5, "north": 0.5},
            "segment",
            ValueError,
            r"`threshold` has no threshold for the log's segment\(s\) \['segment'\] = \['south'\]",
        ),
        (
            pl.DataFrame({"segment": ["east"], "month": [1], "threshold": [0.5]}),
            ["segment", "month"],
            ValueError,
            r"segment\(s\) \['segment', 'month'\] = \[\('east', 2\), \('north', 1\), ",
        ),
        ({"east": 0.5}, None, ValueError, r"`threshold` as a dict .* needs `by=`"),
        ({"east": 0.5}, ["segment", "month"], ValueError, r"got key 'east'"),
        (pl.DataFrame({"segment": ["east"]}), "segment", ValueError, r"needs a column 'threshold'"),
        (
            pl.DataFrame({"segment": SEGMENTS, "threshold": ["0.5"] * 3}),
            "segment",
            TypeError,
            r"`threshold`'s column 'threshold' must be numeric, got dtype String",
        ),
        (
            pl.DataFrame({"segment": SEGMENTS, "threshold": [0.5, math.nan, 0.1]}),
            "segment",
            ValueError,
            r"`threshold` has NaN for \['segment'\] = \['north'\]",
        ),
    ],
)
def test_bad_thresholds_per_segment_raise(log, threshold, by, error, match) -> None:
    with pytest.raises(error, match=match):
        log.roc.confusion(threshold, by=by)


@pytest.mark.filterwarnings("ignore::polars_roc.exceptions.SingleClassWarning")
@settings(max_examples=60, deadline=None)
@given(
    scores=st.lists(
        st.sampled_from([-math.inf, -1.5, -0.0, 0.0, 0.25, 0.5, 0.7, 1.0, 2.0, math.inf]),
        min_size=1,
        max_size=30,
    ),
    data=st.data(),
    direction=st.sampled_from(["higher", "lower"]),
    float32=st.booleans(),
    weighted=st.booleans(),
)
def test_counts_at_thresholds_equal_brute_force(
    scores: list[float], data: st.DataObject, direction: str, float32: bool, weighted: bool
) -> None:
    # The rows are cut to the thresholds before counting (one cell per threshold):
    # every row must stay on its side of every threshold, ties and infinities included.
    n = len(scores)
    labels = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    weights = data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    thresholds = data.draw(
        st.lists(st.sampled_from([*scores, 0.1, 0.7, -math.inf, math.inf]), min_size=1, max_size=5)
    )
    dtype = pl.Float32 if float32 else pl.Float64
    df = pl.DataFrame({"score": pl.Series(scores, dtype=dtype), "label": labels, "w": weights})
    got = pr.confusion_matrix(df, thresholds, direction=direction, weight="w" if weighted else None)
    s = df["score"].to_numpy()  # compared in the score's dtype, as Polars compares
    y, w = np.array(labels), np.array(weights) if weighted else np.ones(n)
    for row, t in zip(got.iter_rows(named=True), thresholds, strict=True):
        with np.errstate(over="ignore"):
            key = np.array(t, dtype=s.dtype)
        flagged = s >= key if direction == "higher" else s <= key
        assert row["threshold"] == t
        assert row["tp"] == pytest.approx(w[flagged & y].sum(), abs=1e-12)
        assert row["fp"] == pytest.approx(w[flagged & ~y].sum(), abs=1e-12)
        assert row["fn"] == pytest.approx(w[~flagged & y].sum(), abs=1e-12)
        assert row["tn"] == pytest.approx(w[~flagged & ~y].sum(), abs=1e-12)


# pROC's coords(ret = "all") names -> ours; youden is se + sp (best.weights c(1, 0.5)),
# youden_j = se + sp - 1; closest.topleft has no column here.
PROC_COORDS = {
    "sensitivity": "tpr",
    "specificity": "tnr",
    "accuracy": "accuracy",
    "tn": "tn",
    "tp": "tp",
    "fn": "fn",
    "fp": "fp",
    "npv": "npv",
    "ppv": "ppv",
    "fdr": "fdr",
    "fpr": "fpr",
    "tpr": "tpr",
    "tnr": "tnr",
    "fnr": "fnr",
    "1-npv": "for",
    "1-accuracy": "error_rate",
    "precision": "ppv",
    "recall": "tpr",
}


def test_measures_match_proc_coords_at_thresholds() -> None:
    # Thresholds on tied scores, between scores and outside them; direction ">" (ours
    # "lower") counts score <= t as positive, "<" score >= t, in pROC as here.
    fixtures = Path(__file__).parent / "fixtures"
    asah = pl.read_csv(fixtures / "asah.csv")
    proc = pl.read_csv(fixtures / "proc_coords.csv", null_values="NA")
    for (score, direction), ref in proc.group_by("score", "direction", maintain_order=True):
        ours = pr.confusion_matrix(
            asah,
            ref["threshold"].to_list(),
            score=score,
            label="outcome",
            direction="higher" if direction == "<" else "lower",
        )
        assert ours["threshold"].to_list() == ref["threshold"].to_list()
        pairs = [(ref[name], ours[column]) for name, column in PROC_COORDS.items()]
        pairs.append((ref["youden"] - 1, ours["youden_j"]))
        for want, got in pairs:
            # pROC's NA (0/0: no predicted positive or negative) is our null.
            assert want.is_null().to_list() == got.is_null().to_list(), (score, want.name)
            np.testing.assert_allclose(
                got.drop_nulls().cast(pl.Float64), want.drop_nulls(), rtol=0, atol=1e-12
            )
