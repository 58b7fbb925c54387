"""One call, every backend: the calls and inputs tests/test_backends.py does not try.

Each case runs one call on a Polars DataFrame (the reference), its LazyFrame, the
LazyFrame collected by the streaming engine, a DuckDB relation over Arrow and one over a
Parquet file, and asserts the same outcome: equal frames (rows, columns, dtypes, order),
the same warnings, or the same error class and message. The inputs are a hostile
user's: empty frames, single rows, all-null segments, extreme and odd-typed scores,
labels of every type, columns in two roles, column names the library uses inside,
counts that overflow their dtype. Where the backends disagree today, the case is marked
``xfail(strict=True)`` on the backends that differ, with what differs, so that a fix
shows up as an unexpected pass. Spark is left to tests/test_spark.py, the one file that
starts a Spark session.
"""

from __future__ import annotations

import re
import tempfile
import warnings
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from _backends import as_backend
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.counting import truncated
from polars_roc.exceptions import RocInputError

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install '.[duckdb]')")

OTHERS = ("lazy", "streaming", "duckdb", "duckdb_parquet")
ENGINES = ("duckdb", "duckdb_parquet")
POLARS = ("eager", "lazy", "streaming")
LAZY = ("lazy", "streaming")

Call = Callable[[Any], Any]


def outcome(call: Call, frame: pl.DataFrame, backend: str, tmp_path: Path) -> tuple[Any, ...]:
    """``("ok", frame, warnings)`` or ``("error", class, message, warnings)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(as_backend(frame, backend, tmp_path))
            if isinstance(result, pl.LazyFrame):
                engine = "streaming" if backend == "streaming" else "auto"
                result = result.collect(engine=engine)
            found: tuple[Any, ...] = ("ok", result)
        except Exception as error:  # the error is the outcome compared
            # Without the addresses of objects named in the message.
            found = ("error", type(error).__name__, re.sub(r" at 0x[0-9A-Fa-f]+", "", str(error)))
    messages = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    return (*found, messages)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hunt")


@pytest.fixture
def tmp_path(folder: Path) -> Path:
    """A folder of the case's own for its Parquet file, in one folder for the module: a
    thousand cases of pytest's numbered folders took ~3 ms each to set up."""
    return Path(tempfile.mkdtemp(dir=folder))


_EAGER: dict[Call, tuple[Any, ...]] = {}


def assert_same_outcome(call: Call, frame: pl.DataFrame, backend: str, tmp_path: Path) -> None:
    if call not in _EAGER:  # the reference, once per call
        _EAGER[call] = outcome(call, frame, "eager", tmp_path)
    expected = _EAGER[call]
    got = outcome(call, frame, backend, tmp_path)
    assert got[0] == expected[0], (expected[:-1], got[:-1])
    if expected[0] == "ok" and backend in LAZY:  # one library, two engines: every bit
        assert_frame_equal(got[1], expected[1], check_exact=True)
    elif expected[0] == "ok":
        assert_frame_equal(got[1], expected[1], check_exact=False, rel_tol=1e-12)
    else:
        assert got[1:-1] == expected[1:-1]
    assert got[-1] == expected[-1]  # the warnings


def log(seed: int = 3, n: int = 80) -> pl.DataFrame:
    """Tied scores in two segments, a second score, probabilities, weights, counts
    (zeros included), grades, two months and days."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    score = np.round(rng.normal(label * 0.8, 1.0), 1)
    return pl.DataFrame(
        {
            "seg": rng.choice(["a", "b"], n).tolist(),
            "month": rng.choice(["m1", "m2"], n).tolist(),
            "day": pl.date_range(date(2026, 1, 1), date(2026, 3, 31), eager=True).sample(
                n, with_replacement=True, seed=seed
            ),
            "score": score,
            "score_b": np.round(score + rng.normal(0, 1, n), 1),
            "label": label,
            "w": rng.gamma(2.0, 0.7, n),
            "n": rng.integers(0, 4, n),
            "grade": rng.choice(["A", "B", "C"], n).tolist(),
            "num": rng.normal(0, 1, n),
        }
    ).with_columns(p=(1 / (1 + (-pl.col("score")).exp())).round(2))


LOG = log()
first_row = pl.int_range(pl.len()) == 0


def scores(values: Any, n: int = 200) -> pl.DataFrame:
    """``values`` as the score of ``n`` rows, labels alternating."""
    return pl.DataFrame({"score": values, "label": [0, 1] * (n // 2)})


_rng = np.random.default_rng(4)
_normal = _rng.normal(0, 1, 198)

# Three classes' scores and a guess of the class.
LOG3 = LOG.with_columns(
    pred=pl.col("grade").shuffle(seed=1),
    pa=pl.col("p"),
    pb=1 - pl.col("p"),
    pc=(pl.col("p") * 0.5).round(1),
)
CLASS_SCORES = {"A": "pa", "B": "pb", "C": "pc"}
CLASSES = ["A", "B", "C"]
SCORE_TABLE = pl.DataFrame(
    {
        "g": ["a", "a", "b", "b"],
        "threshold": [0.9, 0.1, 0.8, 0.2],
        "pos": [1, 0, 1, 1],
        "neg": [0, 1, 1, 0],
    }
)

# Two models' scores of each case, one row per case and model.
LONG = (
    LOG.with_row_index("id")
    .with_columns(pl.col("label").cast(pl.Boolean))
    .unpivot(["score", "score_b"], index=["id", "label", "seg", "w"], variable_name="model")
    .rename({"value": "score"})
)
MODELS = ("score", "score_b")

# name: (call, frame). Every backend agrees today: these guard the seam.
AGREE: dict[str, tuple[Call, pl.DataFrame]] = {
    # Float32 weights are summed in Float64 on every backend.
    "psi_float32_weights": (
        lambda f: pr.psi(f, "month", weight="w"),
        LOG.with_columns(pl.col("w").cast(pl.Float32)),
    ),
    "estimated_auc_float32_weights": (
        lambda f: pr.estimated_auc(f, score="p", weight="w"),
        LOG.with_columns(pl.col("w").cast(pl.Float32)),
    ),
    # Edge frames.
    "empty_auc_delong": (lambda f: pr.roc_auc(f, by="seg", ci="delong"), LOG.head(0)),
    "empty_curve": (lambda f: pr.roc_curve(f), LOG.head(0)),
    "empty_calibration": (lambda f: pr.calibration_curve(f, 4, score="p", by="seg"), LOG.head(0)),
    "empty_psi": (lambda f: pr.psi(f, "month", by="seg"), LOG.head(0)),
    "empty_gains": (lambda f: pr.gains_table(f, 3, by="seg"), LOG.head(0)),
    "single_row_curve": (lambda f: pr.roc_curve(f, by="seg"), LOG.head(1)),
    "single_row_confusion": (lambda f: pr.confusion_matrix(f, 0.0, by="seg"), LOG.head(1)),
    "single_row_brier": (lambda f: pr.brier_decomposition(f, score="p"), LOG.head(1)),
    "null_segment_only_pr_curve": (
        lambda f: pr.pr_curve(f, by="seg"),
        LOG.with_columns(seg=pl.lit(None, pl.String)),
    ),
    "null_segment_values_drift": (
        lambda f: pr.drift(f, period="month", by="seg"),
        LOG.with_columns(seg=pl.when(pl.col("n") == 0).then(None).otherwise("seg")),
    ),
    "zero_weight_group_calibration": (
        lambda f: pr.calibration_curve(f, 3, score="p", by="seg", weight="w"),
        LOG.with_columns(w=pl.when(pl.col("seg") == "b").then(0.0).otherwise("w")),
    ),
    "all_zero_weights_score_table": (
        lambda f: pr.score_table(f, weight="w"),
        LOG.with_columns(w=pl.lit(0.0)),
    ),
    "one_class_segment_gains": (
        lambda f: pr.gains_table(f, 3, by="seg"),
        LOG.with_columns(label=pl.when(pl.col("seg") == "b").then(1).otherwise("label")),
    ),
    "date_segment_auc": (lambda f: pr.roc_auc(f, by="day"), LOG.head(30)),
    "two_segments_curve": (lambda f: pr.roc_curve(f, by=["seg", "month"]), LOG),
    "integer_segment_auc": (lambda f: pr.roc_auc(f, by="n"), LOG),
    "float_segment_with_nan": (
        lambda f: pr.roc_auc(f, by="fb"),
        LOG.with_columns(fb=pl.when(pl.col("seg") == "a").then(float("nan")).otherwise(1.5)),
    ),
    "decimal_segment": (
        lambda f: pr.roc_curve(f, by="de"),
        LOG.with_columns(de=(pl.col("n") % 2).cast(pl.Decimal(5, 1))),
    ),
    # A Duration column in no role (an INTERVAL in DuckDB, which Polars cannot import).
    "duration_beside_psi": (
        lambda f: pr.psi(f, "month", by="seg"),
        LOG.with_columns(du=pl.duration(days=pl.col("n"))),
    ),
    "duration_beside_calibration": (
        lambda f: pr.calibration_curve(f, 3, score="p"),
        LOG.with_columns(du=pl.duration(days=pl.col("n"))),
    ),
    "null_dtype_segment": (lambda f: pr.roc_auc(f, by="nu"), LOG.with_columns(nu=pl.lit(None))),
    # Scores.
    "scores_near_float_max": (
        lambda f: pr.roc_auc(f, bins=16),
        scores(np.concatenate([[-1.7e308, 1.7e308], _normal])),
    ),
    "scores_subnormal": (
        lambda f: pr.roc_curve(f, bins=4),
        scores(np.concatenate([[5e-324, 1e-323], _rng.integers(1, 5, 198) * 5e-324])),
    ),
    "negative_and_positive_zero": (
        lambda f: pr.roc_curve(f),
        scores([0.0, -0.0, 1.0, -1.0] * 50),
    ),
    "negative_zero_in_bins": (
        lambda f: pr.score_table(f, bins=4),
        scores([0.0, -0.0, 1.0, -1.0] * 50),
    ),
    "infinities_only": (lambda f: pr.roc_auc(f, ci="delong"), scores([np.inf, -np.inf] * 100)),
    "all_scores_equal_bins": (lambda f: pr.roc_curve(f, bins=8), scores([0.3] * 200)),
    "integers_below_2_53": (
        lambda f: pr.roc_auc(f, bins=16),
        scores(pl.Series([2**53 - 1, 2**53 - 2, -(2**53), 0] * 50, dtype=pl.Int64)),
    ),
    "integers_beyond_2_53": (
        lambda f: pr.roc_curve(f),
        scores(pl.Series([2**53, 2**53 + 1] * 100, dtype=pl.Int64)),
    ),
    "float32_scores": (
        lambda f: pr.confusion_matrix(f, [0.1, 0.7]),
        scores(pl.Series(_rng.random(200), dtype=pl.Float32)),
    ),
    "uint64_scores": (
        lambda f: pr.roc_curve(f, bins=16),
        scores(pl.Series(_rng.integers(0, 1000, 200), dtype=pl.UInt64)),
    ),
    "int8_scores": (
        lambda f: pr.roc_auc(f, ci="delong"),
        scores(pl.Series(_rng.integers(-128, 127, 200), dtype=pl.Int8)),
    ),
    "decimal_scores": (
        lambda f: pr.roc_auc(f, by="seg", ci="delong"),
        LOG.with_columns(pl.col("score").cast(pl.Decimal(10, 2))),
    ),
    "boolean_scores": (lambda f: pr.roc_auc(f), scores(pl.Series([True, False] * 100))),
    # Labels and pos_label.
    "boolean_labels": (
        lambda f: pr.roc_curve(f, by="seg"),
        LOG.with_columns(pl.col("label").cast(pl.Boolean)),
    ),
    "boolean_labels_pos_false": (
        lambda f: pr.roc_auc(f, pos_label=False),
        LOG.with_columns(pl.col("label").cast(pl.Boolean)),
    ),
    "string_labels_pos_label": (
        lambda f: pr.confusion_matrix(f, 0.0, pos_label="1"),
        LOG.with_columns(pl.col("label").cast(pl.String)),
    ),
    "string_pos_label_absent": (lambda f: pr.roc_auc(f, label="seg", pos_label="z"), LOG),
    "uint8_labels": (lambda f: pr.roc_auc(f), LOG.with_columns(pl.col("label").cast(pl.UInt8))),
    "float_labels": (lambda f: pr.roc_curve(f), LOG.with_columns(pl.col("label").cast(float))),
    "integer_labels_pos_0": (lambda f: pr.roc_auc(f, pos_label=0), LOG),
    "integer_labels_pos_true": (lambda f: pr.roc_auc(f, pos_label=True), LOG),
    "integer_labels_pos_string": (lambda f: pr.roc_auc(f, pos_label="1"), LOG),
    "integer_labels_pos_absent": (lambda f: pr.roc_curve(f, pos_label=2), LOG),
    # Weights and counts.
    "float32_weights_curve": (
        lambda f: pr.roc_curve(f, weight="w"),
        LOG.with_columns(pl.col("w").cast(pl.Float32)),
    ),
    "infinite_weight": (
        lambda f: pr.calibration_curve(f, 3, score="p", weight="w"),
        LOG.with_columns(w=pl.when(first_row).then(float("inf")).otherwise("w")),
    ),
    "subnormal_weights": (lambda f: pr.roc_auc(f, weight="w"), LOG.with_columns(w=pl.lit(1e-320))),
    "huge_weights": (lambda f: pr.roc_curve(f, weight="w"), LOG.with_columns(w=pl.lit(1e300))),
    "counts_of_2_40": (
        lambda f: pr.roc_auc(f, count="n", ci="delong"),
        LOG.with_columns(n=pl.lit(2**40)),
    ),
    "uint64_count_beyond_int64": (
        lambda f: pr.calibration_curve(f, 3, score="p", count="n"),
        LOG.with_columns(n=pl.when(first_row).then(2**63 + 5).otherwise(1).cast(pl.UInt64)),
    ),
    "int16_counts": (
        lambda f: pr.brier_decomposition(f, score="p", count="n"),
        LOG.with_columns(n=pl.lit(30000, pl.Int16)),
    ),
    "decimal_whole_counts": (
        lambda f: pr.roc_curve(f, count="n"),
        LOG.with_columns(pl.col("n").cast(pl.Decimal(10, 0))),
    ),
    # Decimal counts are summed into Int64, as every count.
    "psi_decimal_counts": (
        lambda f: pr.psi(f, "month", count="n"),
        LOG.with_columns(pl.col("n").cast(pl.Decimal(10, 0))),
    ),
    "psi_float_counts": (
        lambda f: pr.psi(f, "month", count="n", by="seg"),
        LOG.with_columns(pl.col("n").cast(pl.Float32)),
    ),
    "estimated_decimal_counts": (
        lambda f: pr.estimated_confusion(f, [0.3, 0.6], score="p", count="n"),
        LOG.with_columns(pl.col("n").cast(pl.Decimal(10, 2))),
    ),
    "calibration_decimal_counts": (
        lambda f: pr.calibration_curve(f, 3, score="p", count="n", by="seg"),
        LOG.with_columns(pl.col("n").cast(pl.Decimal(12, 0))),
    ),
    "null_count_dropped": (
        lambda f: pr.roc_auc(f, count="n", nulls="drop", ci="delong"),
        LOG.with_columns(n=pl.when(first_row).then(None).otherwise("n")),
    ),
    "string_labels_without_pos_label": (lambda f: pr.roc_auc(f, label="seg"), LOG),
    "calibration_string_labels": (
        lambda f: pr.calibration_curve(f, 5, score="p", label="seg"),
        LOG,
    ),
    # DuckDB would cast "yes" to true; Polars compares a Boolean as text: absent.
    "boolean_labels_pos_label_not_a_boolean": (
        lambda f: pr.roc_auc(f, pos_label="yes"),
        LOG.with_columns(pl.col("label").cast(pl.Boolean)),
    ),
    "categorical_labels_without_pos_label": (
        lambda f: pr.roc_auc(f, label="g"),
        LOG.with_columns(g=pl.col("grade").cast(pl.Categorical)),
    ),
    "boolean_labels_pos_string_false": (
        lambda f: pr.roc_auc(f, pos_label="false"),
        LOG.with_columns(pl.col("label").cast(pl.Boolean)),
    ),
    "enum_labels_pos_label": (
        lambda f: pr.roc_curve(f, label="g", pos_label="B"),
        LOG.with_columns(g=pl.col("grade").cast(pl.Enum(["A", "B", "C"]))),
    ),
    "integer_labels_0_and_2": (
        lambda f: pr.roc_auc(f),
        LOG.with_columns(label=pl.col("label") * 2),
    ),
    "float_labels_with_nan": (
        lambda f: pr.roc_auc(f),
        LOG.with_columns(label=pl.when(first_row).then(float("nan")).otherwise(pl.col("label"))),
    ),
    # Nulls left out (nulls="drop") or refused, in the views test_backends.py does not try.
    "paired_null_dropped_compare": (
        lambda f: pr.compare(f, ["score", "score_b"], nulls="drop"),
        LOG.with_columns(score_b=pl.when(pl.col("n") == 0).then(None).otherwise("score_b")),
    ),
    "paired_null_refused_compare": (
        lambda f: pr.compare(f, ["score", "score_b"]),
        LOG.with_columns(score_b=pl.when(first_row).then(None).otherwise("score_b")),
    ),
    "paired_null_dropped_trend": (
        lambda f: pr.trend(f, period="month", scores=["score", "score_b"], nulls="drop"),
        LOG.with_columns(score_b=pl.when(pl.col("n") == 0).then(None).otherwise("score_b")),
    ),
    "null_labels_dropped_grade_test": (
        lambda f: pr.grade_test(f, "grade", score="p", nulls="drop"),
        LOG.with_columns(label=pl.when(pl.col("n") == 0).then(None).otherwise("label")),
    ),
    "null_labels_dropped_disparity": (
        lambda f: pr.disparity(f, 0.0, group="grade", nulls="drop"),
        LOG.with_columns(label=pl.when(pl.col("n") == 0).then(None).otherwise("label")),
    ),
    "null_scores_dropped_brier": (
        lambda f: pr.brier_decomposition(f, score="p", nulls="drop", by="seg"),
        LOG.with_columns(p=pl.when(pl.col("n") == 0).then(None).otherwise("p")),
    ),
    "null_scores_refused_calibration": (
        lambda f: pr.calibration_curve(f, 3, score="p"),
        LOG.with_columns(p=pl.when(first_row).then(None).otherwise("p")),
    ),
    "null_scores_dropped_bins_weighted": (
        lambda f: pr.roc_curve(f, nulls="drop", bins=8, weight="w"),
        LOG.with_columns(score=pl.when(pl.col("n") == 0).then(None).otherwise("score")),
    ),
    "infinities_lower_bins_counted": (
        lambda f: pr.roc_curve(f, direction="lower", bins=4, count="n"),
        LOG.with_columns(
            score=pl.when(pl.col("n") == 0)
            .then(float("-inf"))
            .when(pl.col("n") == 3)
            .then(float("inf"))
            .otherwise("score")
        ),
    ),
    # A column in two roles, a name the library uses inside, a score that is not a
    # column name: refused before any work, with the same error on every backend.
    "by_is_the_score": (lambda f: pr.roc_curve(f, by="score"), LOG.head(20)),
    "by_is_the_label": (lambda f: pr.score_table(f, by="label"), LOG),
    "count_is_the_by": (lambda f: pr.roc_auc(f, by="n", count="n"), LOG),
    "count_is_the_label": (lambda f: pr.roc_curve(f, count="label"), LOG),
    "weight_is_the_score": (lambda f: pr.roc_auc(f, score="p", weight="p"), LOG),
    "by_named_roc_group": (
        lambda f: pr.roc_curve(f, by="__roc_group"),
        LOG.rename({"seg": "__roc_group"}),
    ),
    "by_named_roc_v": (lambda f: pr.roc_auc(f, by="__roc_v"), LOG.rename({"seg": "__roc_v"})),
    "by_named_roc_rank": (
        lambda f: pr.roc_auc(f, by="__roc_rank"),
        LOG.rename({"seg": "__roc_rank"}),
    ),
    "by_named_roc_is_pos": (
        lambda f: pr.roc_auc(f, by="__roc_is_pos", bins=8),
        LOG.rename({"seg": "__roc_is_pos"}),
    ),
    "by_named_roc_bucket": (
        lambda f: pr.roc_auc(f, by="__roc_bucket"),
        LOG.rename({"seg": "__roc_bucket"}),
    ),
    "by_named_roc_n": (
        lambda f: pr.confusion_matrix(f, 0.0, by="__roc_n"),
        LOG.rename({"seg": "__roc_n"}),
    ),
    "weight_named_roc_units": (
        lambda f: pr.roc_auc(f, weight="__roc_units"),
        LOG.rename({"w": "__roc_units"}),
    ),
    "score_named_roc_n": (
        lambda f: pr.roc_curve(f, score="__roc_n"),
        LOG.rename({"score": "__roc_n"}),
    ),
    "score_given_as_expression": (lambda f: pr.roc_auc(f, score=pl.col("score")), LOG),
    "estimated_score_given_as_expression": (
        lambda f: pr.estimated_auc(f, score=pl.col("p")),
        LOG,
    ),
    "compare_second_score_named_internal": (
        lambda f: pr.compare(f, ["score", "__roc_score_b"]),
        LOG.rename({"score_b": "__roc_score_b"}),
    ),
    "psi_period_named_internal": (
        lambda f: pr.psi(f, "__roc_month"),
        LOG.rename({"month": "__roc_month"}),
    ),
    "estimated_count_named_internal": (
        lambda f: pr.estimated_auc(f, score="p", count="__roc_n"),
        LOG.rename({"n": "__roc_n"}),
    ),
    "estimated_count_is_the_score": (lambda f: pr.estimated_auc(f, score="p", count="p"), LOG),
    "calibration_grade_named_internal": (
        lambda f: pr.calibration_curve(f, grade="__roc_grade", score="p"),
        LOG.rename({"grade": "__roc_grade"}),
    ),
    # Names that clash with result columns.
    "by_named_auc_curve": (lambda f: pr.roc_curve(f, by="auc"), LOG.rename({"seg": "auc"})),
    "by_named_auc_refused": (lambda f: pr.roc_auc(f, by="auc"), LOG.rename({"seg": "auc"})),
    "by_named_threshold_refused": (
        lambda f: pr.score_table(f, by="threshold"),
        LOG.rename({"seg": "threshold"}),
    ),
    "by_named_count": (lambda f: pr.roc_auc(f, by="count"), LOG.rename({"seg": "count"})),
    "by_named_bin": (lambda f: pr.roc_auc(f, by="bin", bins=8), LOG.rename({"seg": "bin"})),
    "by_with_quote_and_space": (
        lambda f: pr.roc_auc(f, by='se "g', ci="delong"),
        LOG.rename({"seg": 'se "g'}),
    ),
    "score_with_quote": (lambda f: pr.roc_auc(f, score='sc"ore'), LOG.rename({"score": 'sc"ore'})),
    # Options refused before any work.
    "bins_true": (lambda f: pr.roc_auc(f, bins=True), LOG),
    "bins_float": (lambda f: pr.roc_curve(f, bins=8.0), LOG),
    "bins_one": (lambda f: pr.score_table(f, bins=1), LOG),
    "bins_two": (lambda f: pr.roc_auc(f, by="seg", bins=2), LOG),
    "bins_with_ci": (lambda f: pr.roc_auc(f, bins=8, ci="delong"), LOG),
    "direction_bad": (lambda f: pr.roc_curve(f, direction="up"), LOG),
    "nulls_bad": (lambda f: pr.roc_auc(f, nulls="keep"), LOG),
    "by_twice": (lambda f: pr.roc_auc(f, by=["seg", "seg"]), LOG),
    "by_empty_list": (lambda f: pr.roc_auc(f, by=[]), LOG),
    "score_not_numeric": (lambda f: pr.roc_auc(f, score="seg"), LOG),
    "weight_not_numeric": (lambda f: pr.roc_curve(f, weight="seg"), LOG),
    "weight_and_count": (lambda f: pr.roc_auc(f, weight="w", count="n"), LOG),
    "max_fpr_zero": (lambda f: pr.roc_auc(f, max_fpr=0.0), LOG),
    "nan_threshold": (lambda f: pr.confusion_matrix(f, float("nan")), LOG),
    "infinite_thresholds": (lambda f: pr.confusion_matrix(f, [np.inf, -np.inf]), LOG),
    "calibration_scores_not_probabilities": (lambda f: pr.calibration_curve(f), LOG),
    "calibration_grade_and_bins": (
        lambda f: pr.calibration_curve(f, 3, grade="grade", score="p"),
        LOG,
    ),
    "psi_baseline_absent": (lambda f: pr.psi(f, "month", baseline="m9"), LOG),
    "psi_null_period": (
        lambda f: pr.psi(f, "month"),
        LOG.with_columns(month=pl.when(first_row).then(None).otherwise("month")),
    ),
    "grade_with_nulls": (
        lambda f: pr.grade_test(f, "grade", score="p"),
        LOG.with_columns(grade=pl.when(first_row).then(None).otherwise("grade")),
    ),
    "trend_every_on_strings": (lambda f: pr.trend(f, period="month", every="1mo"), LOG),
    "compare_groups_absent": (lambda f: pr.compare_groups(f, by="seg", groups=("a", "z")), LOG),
    # Views and options test_backends.py does not call.
    "auc_bootstrap_bca": (
        lambda f: pr.roc_auc(f, ci="bootstrap", n_boot=30, seed=1, ci_method="bca"),
        LOG,
    ),
    "auc_fpr_range": (lambda f: pr.roc_auc(f, by="seg", fpr_range=(0.1, 0.4)), LOG),
    "auc_tpr_range": (lambda f: pr.roc_auc(f, by="seg", tpr_range=(0.5, 1.0)), LOG),
    "auc_binormal": (lambda f: pr.roc_auc(f, by="seg", smooth="binormal"), LOG),
    "auc_bootstrap_counted": (
        lambda f: pr.roc_auc(f, count="n", ci="bootstrap", n_boot=10, seed=2, by="seg"),
        LOG,
    ),
    "curve_costs_drop_intermediate": (
        lambda f: pr.roc_curve(f, cost_fp=1.0, cost_fn=3.0, drop_intermediate=True),
        LOG,
    ),
    "curve_band": (
        lambda f: pr.roc_curve(f, band="bootstrap", n_boot=10, seed=2, by="seg", weight="w"),
        LOG,
    ),
    "curve_local_maxima_bins": (
        lambda f: pr.roc_curve(f, local_maxima=True, bins=8, by="seg"),
        LOG,
    ),
    "hull_all_points_bins": (
        lambda f: pr.roc_hull(f, points="all", bins=8, by="seg", weight="w"),
        LOG,
    ),
    "det_bins_drop_intermediate": (
        lambda f: pr.det_curve(f, bins=8, drop_intermediate=True),
        LOG,
    ),
    "compare_bootstrap_weighted": (
        lambda f: pr.compare(
            f, ["score", "score_b"], weight="w", ci="bootstrap", n_boot=10, seed=2
        ),
        LOG,
    ),
    "compare_counted": (lambda f: pr.compare(f, ["score", "score_b"], count="n", by="seg"), LOG),
    "compare_groups_within": (
        lambda f: pr.compare_groups(f, by="seg", groups=("a", "b"), within="month"),
        LOG,
    ),
    "compare_power": (lambda f: pr.compare_power(f, ["score", "score_b"]), LOG),
    "fpr_at_weighted": (lambda f: pr.fpr_at(f, 0.8, by="seg", weight="w"), LOG),
    "tpr_at_bootstrap": (
        lambda f: pr.tpr_at(f, [0.1, 0.2], by="seg", ci="bootstrap", n_boot=10, seed=1),
        LOG,
    ),
    "threshold_ci": (lambda f: pr.threshold_ci(f, [0.0, 0.5], n_boot=10, seed=1, by="seg"), LOG),
    "optimal_point": (lambda f: pr.optimal_point(f, by="seg", prevalence=0.3), LOG),
    "optimal_cutpoint_ties_all": (lambda f: pr.optimal_cutpoint(f, ties="all", by="seg"), LOG),
    "best_threshold_cost_midpoint": (
        lambda f: pr.best_threshold(f, "cost", cost_fp=1, cost_fn=2, by="seg", midpoint=True),
        LOG,
    ),
    "threshold_at_precision": (lambda f: pr.threshold_at(f, precision=0.6, by="seg"), LOG),
    "pr_auc_bootstrap_counted": (
        lambda f: pr.pr_auc(f, count="n", ci="bootstrap", n_boot=10, seed=2),
        LOG,
    ),
    "ks_weighted_lower": (
        lambda f: pr.ks_statistic(f, weight="w", by="seg", direction="lower"),
        LOG,
    ),
    "lift_weighted": (lambda f: pr.lift_curve(f, by="seg", weight="w"), LOG),
    "gains_counted_lower": (lambda f: pr.gains_table(f, 4, direction="lower", count="n"), LOG),
    "trend_bootstrap": (
        lambda f: pr.trend(f, period="month", ci="bootstrap", n_boot=10, seed=1),
        LOG,
    ),
    "trend_two_scores": (lambda f: pr.trend(f, period="month", scores=["score", "score_b"]), LOG),
    "drift_baseline_every": (
        lambda f: pr.drift(f, period="day", every="1mo", baseline=date(2026, 2, 1), count="n"),
        LOG,
    ),
    "confusion_per_segment_thresholds": (
        lambda f: pr.confusion_matrix(f, {"a": 0.0, "b": 0.5}, by="seg"),
        LOG,
    ),
    "confusion_1100_thresholds_float32": (
        lambda f: pr.confusion_matrix(f, [i / 100 - 5 for i in range(1100)], score="s32"),
        LOG.with_columns(s32=pl.col("score").cast(pl.Float32)),
    ),
    "decision_1100_thresholds": (
        lambda f: pr.decision_curve(f, [i / 1200 for i in range(1100)], score="p"),
        LOG,
    ),
    "disparity_bootstrap": (
        lambda f: pr.disparity(f, 0.0, group="seg", ci="bootstrap", n_boot=10, seed=1),
        LOG,
    ),
    "disparity_summary": (lambda f: pr.disparity_summary(f, 0.0, group="seg", by="month"), LOG),
    "calibration_grades_jeffreys": (
        lambda f: pr.calibration_curve(f, grade="grade", score="p", ci="jeffreys"),
        LOG,
    ),
    "calibration_quantile_counted": (
        lambda f: pr.calibration_curve(f, 3, strategy="quantile", score="p", count="n", by="seg"),
        LOG,
    ),
    "calibration_probabilities_0_and_1": (
        lambda f: pr.calibration_curve(f, 5, score="q"),
        LOG.with_columns(q=pl.Series([0.0, 1.0] * 40)),
    ),
    "brier_grades": (lambda f: pr.brier_decomposition(f, grade="grade", score="p", by="seg"), LOG),
    "calibration_error_quantile": (
        lambda f: pr.calibration_error(f, 4, strategy="quantile", score="p", by="seg", count="n"),
        LOG,
    ),
    "spiegelhalter": (
        lambda f: pr.calibration_test(f, "spiegelhalter", score="p", by="seg", count="n"),
        LOG,
    ),
    "grade_test_binomial": (lambda f: pr.grade_test(f, "grade", "binomial", score="p"), LOG),
    "grade_summary_weighted": (lambda f: pr.grade_summary(f, "grade", score="p", weight="w"), LOG),
    "psi_detail_categorical": (
        lambda f: pr.psi(f, "month", by="seg", detail=True, columns=["grade"]),
        LOG,
    ),
    "psi_columns_without_score": (
        lambda f: pr.psi(f, "month", columns=["grade", "num"], score=None, count="n"),
        LOG,
    ),
    "psi_infinite_values": (
        lambda f: pr.psi(f, "month", columns=["num"], score=None),
        LOG.with_columns(num=pl.when(pl.col("n") == 0).then(float("inf")).otherwise("num")),
    ),
    "estimated_confusion_by_period": (
        lambda f: pr.estimated_confusion(f, [0.3, 0.6], score="p", by="seg", period="month"),
        LOG,
    ),
    "estimated_auc_bins_period": (
        lambda f: pr.estimated_auc(f, score="p", bins=4, period="month", count="n"),
        LOG,
    ),
    # Periods cut where the rows live: weeks start on Monday, as in Polars.
    "trend_every_week": (lambda f: pr.trend(f, period="day", every="1w"), LOG),
    "trend_every_week_datetime": (
        lambda f: pr.trend(f, period="ts", every="1w", by="seg"),
        LOG.with_columns(ts=pl.col("day").cast(pl.Datetime("us")).dt.replace_time_zone("Etc/UTC")),
    ),
    # Multiples of a unit, aligned to the epoch as Polars aligns them (dates before 1970).
    "trend_every_two_weeks": (lambda f: pr.trend(f, period="day", every="2w"), LOG),
    "trend_every_three_days_before_1970": (
        lambda f: pr.trend(f, period="day", every="3d", by="seg"),
        LOG.with_columns(pl.col("day").dt.offset_by("-56y")),
    ),
    "drift_every_five_months": (
        lambda f: pr.drift(f, period="day", every="5mo", count="n"),
        LOG.with_columns(pl.col("day").dt.offset_by("-57y")),
    ),
    "trend_every_two_quarters_datetime": (
        lambda f: pr.trend(f, period="ts", every="2q"),
        LOG.with_columns(ts=pl.col("day").cast(pl.Datetime("us")).dt.offset_by("-56y")),
    ),
    "trend_every_90_minutes_time_zone": (
        lambda f: pr.trend(f, period="ts", every="90m", by="seg"),
        LOG.with_columns(
            ts=pl.datetime(2026, 3, 29, 0, 0, 0, time_zone="Etc/UTC")
            + pl.duration(minutes=pl.int_range(pl.len()) * 37)
        ),
    ),
    # Evaluation views, counted where the rows live.
    "fold_summary": (lambda f: pr.fold_summary(f, fold="n", threshold=0.0), LOG),
    "fold_summary_one_class_fold": (
        lambda f: pr.fold_summary(f, fold="n", by="seg", weight="w"),
        LOG.with_columns(label=pl.when(pl.col("n") == 1).then(1).otherwise("label")),
    ),
    "average_curve_threshold": (
        lambda f: pr.average_curve(f, fold="month", method="threshold", count="n"),
        LOG,
    ),
    "multiclass_auc": (lambda f: pr.multiclass_auc(f, {0: "score_b", 1: "score"}, by="seg"), LOG),
    "multiclass_auc_hand_till_weighted": (
        lambda f: pr.multiclass_auc(
            f, CLASS_SCORES, label="grade", method="hand_till", average="weighted", weight="w"
        ),
        LOG3,
    ),
    "multiclass_auc_one_score_auto": (
        lambda f: pr.multiclass_auc(f, score="score", label="grade", classes=CLASSES, by="seg"),
        LOG3,
    ),
    "multiclass_auc_nulls_dropped": (
        lambda f: pr.multiclass_auc(f, CLASS_SCORES, label="grade", nulls="drop", by="seg"),
        LOG3.with_columns(
            pa=pl.when(pl.col("n") == 0).then(None).otherwise("pa"),
            seg=pl.when(pl.col("n") == 1).then(None).otherwise("seg"),
        ),
    ),
    "multiclass_auc_nan": (
        lambda f: pr.multiclass_auc(f, CLASS_SCORES, label="grade"),
        LOG3.with_columns(pa=pl.when(first_row).then(float("nan")).otherwise("pa")),
    ),
    "multiclass_auc_negative_weight": (
        lambda f: pr.multiclass_auc(f, CLASS_SCORES, label="grade", weight="w"),
        LOG3.with_columns(w=pl.when(first_row).then(-1.0).otherwise("w")),
    ),
    "multiclass_confusion": (
        lambda f: pr.multiclass_confusion(
            f, predicted="pred", label="grade", classes=["A", "B", "C"]
        ),
        LOG3,
    ),
    # Nulls refused with the binary views' message, role first.
    "multiclass_null_weight": (
        lambda f: pr.multiclass_auc(f, CLASS_SCORES, label="grade", weight="w"),
        LOG3.with_columns(w=pl.when(first_row).then(None).otherwise("w")),
    ),
    "multiclass_null_predicted": (
        lambda f: pr.multiclass_confusion(f, predicted="pred", label="grade", classes=CLASSES),
        LOG3.with_columns(pred=pl.when(first_row).then(None).otherwise("pred")),
    ),
    "multiclass_confusion_scores_counted": (
        lambda f: pr.multiclass_confusion(
            f, CLASS_SCORES, label="grade", by="month", count="n", normalize="true"
        ),
        LOG3,
    ),
    "multiclass_confusion_unknown_class": (
        lambda f: pr.multiclass_confusion(f, predicted="pred", label="grade", classes=["A", "B"]),
        LOG3,
    ),
    "multiclass_measures_macro_weighted": (
        lambda f: pr.multiclass_measures(
            f, predicted="pred", label="grade", classes=CLASSES, average="macro", weight="w"
        ),
        LOG3,
    ),
    "multiclass_agreement": (
        lambda f: pr.multiclass_agreement(
            f, predicted="pred", label="grade", classes=CLASSES, kappa_weights="linear", by="seg"
        ),
        LOG3,
    ),
    # A long log paired by case where the rows live: checked first, as on Polars.
    "compare_long": (
        lambda f: pr.compare_long(f, ("a", "b"), model="seg", case="case"),
        pl.DataFrame(
            {
                "seg": ["a", "b"] * 20,
                "case": [i // 2 for i in range(40)],
                "score": np.round(np.random.default_rng(1).normal(0, 1, 40), 1),
                "label": [0, 0, 1, 1] * 10,
            }
        ),
    ),
    "compare_long_bootstrap_weighted": (
        lambda f: pr.compare_long(
            f, MODELS, case="id", by="seg", weight="w", ci="bootstrap", n_boot=20, seed=3
        ),
        LONG,
    ),
    "compare_long_unpaired": (
        lambda f: pr.compare_long(f, MODELS, case="id"),
        LONG.filter((pl.col("id") % 7 > 0) | (pl.col("model") == "score_b")),
    ),
    "compare_long_labels_differ": (
        lambda f: pr.compare_long(f, MODELS, case="id"),
        LONG.with_columns(
            label=pl.when((pl.col("id") < 2) & (pl.col("model") == "score"))
            .then(~pl.col("label"))
            .otherwise("label")
        ),
    ),
    "compare_long_null_case_and_dropped_scores": (
        lambda f: pr.compare_long(f, MODELS, case="c", nulls="drop"),
        LONG.with_columns(
            c=pl.when(pl.col("id") == 3).then(None).otherwise("id"),
            score=pl.when(pl.col("id") % 5 == 0).then(None).otherwise("score"),
        ),
    ),
    "compare_long_score_not_numeric_and_unpaired": (
        lambda f: pr.compare_long(f, MODELS, case="id", score="seg"),
        LONG.head(7),
    ),
    # An engine spills by itself: its rows are counted as roc_auc counts them.
    "roc_auc_in_batches": (lambda f: pr.roc_auc_in_batches(f, by="seg", batch_rows=100), LOG),
    "roc_auc_in_batches_delong": (
        lambda f: pr.roc_auc_in_batches(f, by=["seg", "month"], batch_rows=10, ci="delong"),
        LOG,
    ),
    # A score table from an engine comes back to be reshaped, in the table's order.
    "score_counts": (lambda f: pr.score_counts(f, by="g"), SCORE_TABLE),
    "score_counts_weighted": (
        lambda f: pr.score_counts(f),
        pl.DataFrame({"threshold": [0.9, 0.1, 0.8], "pos": [1.0, 0, 2], "neg": [0.0, 1, 0.5]}),
    ),
}


# name: (call, frame, {backend: what differs}). The backends named differ from the
# Polars DataFrame today; the others agree with it.
DIFFER: dict[str, tuple[Call, pl.DataFrame, dict[str, str]]] = {
    "duration_segment": (
        lambda f: pr.roc_auc(f, by="du"),
        LOG.with_columns(du=pl.duration(days=pl.col("n"))),
        # Refused everywhere; Parquet keeps no Duration type: DuckDB reads a BIGINT.
        {"duckdb_parquet": "the relation's column is an Int64, which is accepted"},
    ),
    # A Duration period or characteristic: refused everywhere, as a Duration segment.
    **{
        name: (
            call,
            LOG.with_columns(du=pl.duration(days=pl.col("n") % 2)),
            {"duckdb_parquet": "the relation's column is an Int64, which is accepted"},
        )
        for name, call in {
            "duration_period_psi": lambda f: pr.psi(f, "du", score="p"),
            "duration_characteristic_psi": lambda f: pr.psi(f, "month", score=None, columns=["du"]),
            "duration_period_estimated": lambda f: pr.estimated_auc(f, score="p", period="du"),
        }.items()
    },
    "trend_every_month_time_zone": (
        lambda f: pr.trend(f, period="ts", every="1mo"),
        pl.DataFrame(
            {
                "ts": [datetime(2026, 1, 31, 23, 30), datetime(2026, 2, 1, 0, 30)] * 4,
                "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
                "label": [0, 1, 0, 1, 1, 0, 1, 0],
            }
        ).with_columns(pl.col("ts").dt.replace_time_zone("Europe/Paris")),
        # Not ours to mend: DuckDB keeps no zone per column, a TIMESTAMPTZ is in the
        # session's zone (UTC here), where it cuts the months, as Polars would in UTC.
        # In a session in Paris the answers agree (test_months_cut_in_the_sessions_zone).
        dict.fromkeys(ENGINES, "the Paris column is a UTC one in DuckDB: 1 month, tz UTC"),
    ),
    # Polars' word for several units: the engines refuse it, one message.
    "trend_every_two_units": (
        lambda f: pr.trend(f, period="ts", every="1d12h"),
        LOG.with_columns(ts=pl.col("day").cast(pl.Datetime("us"))),
        dict.fromkeys(ENGINES, "engines refuse a duration of several units (pass '36h')"),
    ),
}


def _params(cases: dict[str, Any], differ: bool) -> list[Any]:
    params = []
    for name in cases:
        failing = cases[name][2] if differ else {}
        for backend in OTHERS:
            marks = []
            if backend in failing:
                marks = [pytest.mark.xfail(strict=True, reason=failing[backend])]
            params.append(pytest.param(name, backend, id=f"{name}-{backend}", marks=marks))
    return params


@pytest.mark.parametrize(("name", "backend"), _params(AGREE, differ=False))
def test_every_backend_agrees(name: str, backend: str, tmp_path: Path) -> None:
    call, frame = AGREE[name]
    assert_same_outcome(call, frame, backend, tmp_path)


@pytest.mark.parametrize(("name", "backend"), _params(DIFFER, differ=True))
def test_every_backend_agrees_known_differences(name: str, backend: str, tmp_path: Path) -> None:
    call, frame, _ = DIFFER[name]
    assert_same_outcome(call, frame, backend, tmp_path)


BACKENDS = ("eager", *OTHERS)


# Columns the library names inside, present but in no role: selected away, never read.
UNUSED_INTERNAL = LOG.with_columns(
    pl.lit(7).alias(f"__roc_{name}")
    for name in ("score", "n", "group", "v", "units", "is_pos", "bucket", "pos", "neg", "w")
)
UNUSED_VIEWS: dict[str, Call] = {
    "roc_auc": lambda f: pr.roc_auc(f, by="seg", ci="delong"),
    "roc_curve_bins": lambda f: pr.roc_curve(f, bins=8, by="seg", weight="w"),
    "confusion": lambda f: pr.confusion_matrix(f, 0.0, by="seg", count="n"),
    "compare": lambda f: pr.compare(f, ["score", "score_b"], by="seg"),
    "psi": lambda f: pr.psi(f, "month", count="n"),
    "estimated_auc": lambda f: pr.estimated_auc(f, score="p", count="n", by="seg"),
    "calibration_curve": lambda f: pr.calibration_curve(f, 3, score="p", weight="w"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("view", UNUSED_VIEWS)
def test_unused_columns_named_like_internals_change_nothing(
    view: str, backend: str, tmp_path: Path
) -> None:
    """A frame may hold ``__roc_*`` columns in no role: the result of the log without them."""
    call = UNUSED_VIEWS[view]
    assert_frame_equal(
        collected(call, UNUSED_INTERNAL, backend, tmp_path),
        collected(call, LOG, "eager", tmp_path),
        check_exact=False,
        rel_tol=1e-12,
    )


def collected(call: Call, frame: pl.DataFrame, backend: str, tmp_path: Path) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = call(as_backend(frame, backend, tmp_path))
    if isinstance(result, pl.LazyFrame):
        return result.collect(engine="streaming" if backend == "streaming" else "auto")
    return result


def xfail_on(failing: dict[str, str]) -> list[Any]:
    return [
        pytest.param(
            backend,
            marks=[pytest.mark.xfail(strict=True, reason=failing[backend])]
            if backend in failing
            else [],
        )
        for backend in BACKENDS
    ]


NULL_WEIGHT = pl.DataFrame(
    {"score": [0.1, 0.2, 0.3, 0.4, 0.5], "label": [0, 1, 0, 1, 1], "w": [None, 1.0, 1.0, 2.0, 1.0]}
)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_row_of_null_weight_dropped_leaves_no_point(backend: str, tmp_path: Path) -> None:
    """nulls="drop" leaves the row of null weight out: the curve of the other rows."""
    call: Call = lambda f: pr.roc_curve(f, weight="w", nulls="drop")  # noqa: E731
    expected = pr.roc_curve(NULL_WEIGHT.drop_nulls(), weight="w")
    assert expected.height == 5  # inf and the four scores left
    assert_frame_equal(collected(call, NULL_WEIGHT, backend, tmp_path), expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("view", ["estimated_auc", "estimated_auc_bins", "estimated_confusion"])
def test_a_row_of_null_count_dropped_as_in_roc_auc(view: str, backend: str, tmp_path: Path) -> None:
    """nulls="drop" leaves a row of null count out in every view, as roc_auc does."""
    log = LOG.with_columns(n=pl.when(first_row).then(None).otherwise("n"))
    calls: dict[str, Call] = {
        "estimated_auc": lambda f: pr.estimated_auc(f, score="p", count="n", nulls="drop"),
        "estimated_auc_bins": lambda f: pr.estimated_auc(
            f, score="p", count="n", nulls="drop", bins=8
        ),
        "estimated_confusion": lambda f: pr.estimated_confusion(
            f, 0.5, score="p", count="n", nulls="drop"
        ),
    }
    call = calls[view]
    assert_frame_equal(
        collected(call, log, backend, tmp_path),
        collected(call, log.drop_nulls("n"), "eager", tmp_path),
        check_exact=False,
        rel_tol=1e-12,
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bins", [None, 4])
def test_a_row_of_null_count_refused_in_a_cell_of_others(
    backend: str, bins: Any, tmp_path: Path
) -> None:
    """A null count among other rows of its score is refused (an engine's SUM skips it)."""
    log = pl.DataFrame({"p": [0.1, 0.1, 0.3, 0.8], "n": [None, 1, 2, 3]})
    frame = as_backend(log, backend, tmp_path)
    with pytest.raises(RocInputError, match="'n'"):
        pr.estimated_auc(frame, score="p", count="n", bins=bins)


INT32_COUNTS = pl.DataFrame(
    {
        "month": ["a", "a", "b", "b"],
        "p": [0.1, 0.1, 0.8, 0.8],
        "label": [0, 1, 0, 1],
        "n": pl.Series([2**30] * 4, dtype=pl.Int32),
    }
)
WRAPS: dict[str, str] = {}  # none left: counts are summed in 64 bits
INT32_VIEWS: dict[str, Call] = {
    "psi": lambda f: pr.psi(f, "month", score="p", count="n", n_bins=2),
    "estimated_auc": lambda f: pr.estimated_auc(f, score="p", count="n"),
    "estimated_confusion": lambda f: pr.estimated_confusion(f, 0.5, score="p", count="n"),
    "roc_auc": lambda f: pr.roc_auc(f, score="p", count="n"),
    "calibration_curve": lambda f: pr.calibration_curve(f, 2, score="p", count="n"),
    "gains_table": lambda f: pr.gains_table(f, 2, score="p", count="n"),
}


@pytest.mark.parametrize(
    ("view", "backend"),
    [
        pytest.param(
            view,
            backend,
            marks=[pytest.mark.xfail(strict=True, reason=WRAPS[view])]
            if view in WRAPS and backend in POLARS
            else [],
        )
        for view in INT32_VIEWS
        for backend in BACKENDS
    ],
)
def test_int32_counts_summing_past_2_31_do_not_wrap(
    view: str, backend: str, tmp_path: Path
) -> None:
    """Counts of a narrow dtype give the frame of the same counts as Int64."""
    call = INT32_VIEWS[view]
    wide = INT32_COUNTS.with_columns(pl.col("n").cast(pl.Int64))
    assert_frame_equal(
        collected(call, INT32_COUNTS, backend, tmp_path),
        collected(call, wide, "eager", tmp_path),
        check_dtypes=False,
    )


# Float counts holding whole numbers past 2**53: a float sum of a cell (two rows at 0.1)
# or of a threshold's cut (0.1 and 0.4 below 0.5) drops the unit beside 2**62.
FLOAT_COUNTS = pl.DataFrame(
    {
        "score": [0.1, 0.1, 0.4, 0.35, 0.8],
        "label": [0, 0, 0, 1, 1],
        "n": [2.0**62, 1.0, 1.0, 1.0, 1.0],
        "grade": ["A", "A", "B", "B", "B"],
    }
)
FLOAT_VIEWS: dict[str, Call] = {
    "roc_auc": lambda f: pr.roc_auc(f, count="n"),
    "roc_curve": lambda f: pr.roc_curve(f, count="n"),
    "confusion_matrix": lambda f: pr.confusion_matrix(f, [0.5], count="n"),
    # Counts at or past 2**62 were read as 0 per bin (a guard of the cast).
    "calibration_curve": lambda f: pr.calibration_curve(f, 5, count="n"),
    "grade_test": lambda f: pr.grade_test(f, "grade", count="n"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("view", FLOAT_VIEWS)
def test_float_counts_past_2_53_are_summed_exactly(view: str, backend: str, tmp_path: Path) -> None:
    """Whole float counts give the frame of the same counts as Int64, every unit kept."""
    call = FLOAT_VIEWS[view]
    wide = FLOAT_COUNTS.with_columns(pl.col("n").cast(pl.Int64))
    expected = collected(call, wide, "eager", tmp_path)
    largest = expected.select(pl.max_horizontal(pl.selectors.integer().max())).item()
    assert largest >= 2**62 + 1  # the bin of the two 0.1s, or the negatives
    assert_frame_equal(collected(call, FLOAT_COUNTS, backend, tmp_path), expected)


BAD_COUNTS = {
    "fractional": LOG.with_columns(n=pl.col("n") / 2),
    "fractional_decimal": LOG.with_columns((pl.col("n") / 2).cast(pl.Decimal(10, 1))),
    "beyond_int64": LOG.with_columns(
        n=pl.when(first_row).then(2**63 + 5).otherwise(1).cast(pl.UInt64)
    ),
}
COUNT_VIEWS: dict[str, Call] = {
    "roc_auc": lambda f: pr.roc_auc(f, count="n"),
    "calibration_curve": lambda f: pr.calibration_curve(f, score="p", count="n"),
    "estimated_auc": lambda f: pr.estimated_auc(f, score="p", count="n"),
    "psi": lambda f: pr.psi(f, "month", count="n"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("view", COUNT_VIEWS)
@pytest.mark.parametrize("values", BAD_COUNTS)
def test_every_view_refuses_a_bad_count(
    values: str, view: str, backend: str, tmp_path: Path
) -> None:
    """Counts are whole numbers below 2**63 in every view, on every backend."""
    with pytest.raises(RocInputError, match="count column 'n'"):
        collected(COUNT_VIEWS[view], BAD_COUNTS[values], backend, tmp_path)


@pytest.fixture(scope="module")
def float32_probabilities() -> tuple[pl.DataFrame, dict[str, Any]]:
    """Float32 probabilities, many on bin edges, and scikit-learn's calibration curves
    (uniform, 10 bins; quantile, 5 bins) and weighted average precision of them."""
    calibration = pytest.importorskip("sklearn.calibration")
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 300)
    p = np.clip(rng.beta(2, 3, 300) + y * 0.1, 0, 1).astype(np.float32)
    p[:20], p[20:40], p[40:50] = np.float32(0.3), np.float32(0.7), np.float32(0.1)
    w = rng.gamma(2, 1, 300)
    expected = {
        strategy: calibration.calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
        for n_bins, strategy in ((10, "uniform"), (5, "quantile"))
    }
    expected["ap"] = metrics.average_precision_score(y, p, sample_weight=w)
    return pl.DataFrame({"p": p, "y": y, "w": w}), expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_probabilities_binned_as_scikit_learn(
    float32_probabilities: tuple[pl.DataFrame, dict[str, Any]], backend: str, tmp_path: Path
) -> None:
    """Float32 probabilities on the bin edges fall in scikit-learn's bins on every
    backend; the weighted average precision is its own."""
    log, expected = float32_probabilities
    for n_bins, strategy in ((10, "uniform"), (5, "quantile")):
        got = collected(
            lambda f, n=n_bins, s=strategy: pr.calibration_curve(
                f, n, strategy=s, score="p", label="y"
            ),
            log,
            backend,
            tmp_path,
        )
        true, predicted = expected[strategy]
        np.testing.assert_allclose(got["observed_rate"], true, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got["mean_score"], predicted, rtol=1e-6)
    ap = collected(
        lambda f: pr.pr_average_precision(f, score="p", label="y", weight="w"),
        log,
        backend,
        tmp_path,
    )
    assert ap["average_precision"][0] == pytest.approx(expected["ap"], abs=1e-12)


def test_psi_of_a_string_column_streams() -> None:
    """psi of a String characteristic, collected by the streaming engine: the same frame
    each time (30 runs). Polars 1.x's streaming engine panicked (validity mask length)
    in about a third of runs of the plan before psi's bins were added in order."""
    expected = pr.psi(LOG, "month", score=None, columns=["grade"], count="n")
    for _ in range(30):
        plan = pr.psi(LOG.lazy(), "month", score=None, columns=["grade"], count="n")
        assert_frame_equal(plan.collect(engine="streaming"), expected)


def test_months_cut_in_the_sessions_zone() -> None:
    """A DuckDB TIMESTAMPTZ is in the session's zone: in a Paris session the months are
    cut in Paris, as Polars cuts the Paris column (in a UTC session, in UTC)."""
    call, frame, _ = DIFFER["trend_every_month_time_zone"]
    expected = call(frame)
    assert expected["ts"].dt.month().to_list() == [1, 2]  # 23:30 on Jan 31, 00:30 on Feb 1
    for zone, months in (("Europe/Paris", expected), ("UTC", None)):
        with duckdb.connect() as con:
            con.execute(f"SET TimeZone = '{zone}'")
            got = call(con.from_arrow(frame.to_arrow()))
        if months is not None:
            assert_frame_equal(got, months)
        else:  # both rows in January, UTC: one period
            in_utc = frame.with_columns(pl.col("ts").dt.convert_time_zone("UTC"))
            assert got.height == 1
            assert got.drop("ts").equals(call(in_utc).drop("ts"))


# Microsecond times from 1494 to 2191; in a zone, from 1947 to 2033: Polars 1.x refuses
# local times some zones skipped before (Kolkata's 1942-09-01 00:00), and Polars knows no
# summer time after 2037 where DuckDB does.
_rng_times = np.random.default_rng(6)
MOMENTS = pl.Series("t", _rng_times.integers(-15 * 10**15, 7 * 10**15, 400)).cast(pl.Datetime)
ZONED = pl.Series("t", _rng_times.integers(-7 * 10**14, 2 * 10**15, 400)).cast(pl.Datetime)


WINDOWS = ("1w", "2w", "3w", "3d", "7d", "2mo", "5mo", "7mo", "2q", "3y", "5h", "25h", "90m")
EVERIES = (*WINDOWS, "7s", "250ms", "7us")


@pytest.mark.parametrize("zone", [None, "Europe/Paris", "Asia/Kolkata"])
def test_engine_windows_are_those_of_polars_truncate(zone: str | None) -> None:
    """A multiple of a unit, cut by arithmetic in DuckDB, gives the windows of Polars'
    ``dt.truncate``: aligned to the epoch (weeks from Monday 1970-01-05), before 1970
    too, on Dates and on the wall-clock time of a zone (the session's). One connection and
    one import of the rows per zone, a query per window."""
    times = MOMENTS if zone is None else ZONED.dt.replace_time_zone("UTC")
    frame = pl.DataFrame({"t": times}).with_columns(d=pl.col("t").dt.date())
    if zone is not None:
        frame = frame.with_columns(pl.col("t").dt.convert_time_zone(zone))
    expected = {every: frame.select(pl.all().dt.truncate(every)) for every in EVERIES}
    with duckdb.connect() as con:
        con.execute(f"SET TimeZone = '{zone or 'UTC'}'")
        rel = con.from_arrow(frame.to_arrow())
        for every in EVERIES:
            got = pl.from_arrow(truncated(truncated(rel, "t", every), "d", every).arrow())
            assert isinstance(got, pl.DataFrame)
            try:
                assert_frame_equal(got, expected[every])
            except AssertionError as error:
                raise AssertionError(f"every={every!r}: {error}") from None


# Functions of the rows themselves: Polars frames only, refused on an engine by name.
ROW_FUNCTIONS: dict[str, tuple[Call, pl.DataFrame]] = {
    "one_vs_rest": (lambda f: pr.one_vs_rest(f, CLASS_SCORES, label="grade", score="s"), LOG3),
    "folds": (lambda f: pr.folds(f, k=3, seed=1), LOG),
    "bootstrap632_summary": (
        lambda f: pr.bootstrap632_summary(f, threshold=0.5),
        LOG.with_columns(fold=pl.col("n") % 2, in_bag=pl.col("n")),
    ),
}


@pytest.mark.parametrize("backend", ENGINES)
@pytest.mark.parametrize("function", ROW_FUNCTIONS)
def test_functions_of_rows_refuse_an_engine_frame_by_name(
    function: str, backend: str, tmp_path: Path
) -> None:
    """one_vs_rest, folds and bootstrap632_summary answer on Polars frames and refuse
    another engine's frame with a TypeError naming the function and the frame's type."""
    call, frame = ROW_FUNCTIONS[function]
    assert collected(call, frame, "lazy", tmp_path).height > 0
    expected = rf"^{function}\(\) takes a polars DataFrame or LazyFrame only \(.*\), got "
    with pytest.raises(TypeError, match=expected + "DuckDBPyRelation$"):
        call(as_backend(frame, backend, tmp_path))
