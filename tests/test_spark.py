"""PySpark DataFrames (local mode, through narwhals): Spark counts, polars_roc does the rest.

Every view on a Spark DataFrame must equal the same view on the Polars frame of the same
rows: ties, segments with nulls, a one-class segment, weights, empty input, and the same
errors. Spark is slow to start (~15-40 s here), so one local session serves every test
that takes the ``spark`` fixture (tests/conftest.py) and the tests are few; without
pyspark or Java they skip and say why.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from datetime import date
from functools import partial

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocInputError
from tests import test_backends as backends
from tests import test_one_read as one_read


def make_log(seed: int = 0, n: int = 400) -> pl.DataFrame:
    """Tied (rounded) scores, a null segment, a one-class segment, weights with zeros."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    log = pl.DataFrame(
        {
            "segment": pl.Series(rng.choice(["a", "b", None], size=n).tolist(), dtype=pl.String),
            "score": np.round(rng.normal(label * 0.8, 1.0), 1),
            "label": label,
            "w": np.where(rng.random(n) < 0.1, 0.0, rng.gamma(2.0, 0.7, size=n)),
        }
    )
    solo = pl.DataFrame(
        {"segment": ["solo"] * 2, "score": [0.1, 0.3], "label": [1, 1], "w": [0.5, 1.5]}
    )
    log = pl.concat([log, solo], how="vertical_relaxed")
    return log.with_columns(p=1 / (1 + (-pl.col("score")).exp()))  # probabilities


SPARK_TYPES = {pl.String: "string", pl.Float64: "double", pl.Int64: "bigint", pl.Date: "date"}


def spark_frame(spark: object, frame: pl.DataFrame) -> object:
    # From Python rows with a DDL schema: Spark's Arrow and pandas imports need pandas,
    # which the test extra does not install.
    schema = ", ".join(f"{name} {SPARK_TYPES[dtype]}" for name, dtype in frame.schema.items())
    return spark.createDataFrame(frame.rows(), schema=schema)  # type: ignore[attr-defined]


def quietly(call: Callable[[], pl.DataFrame]) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return call()


VIEWS: dict[str, Callable[..., pl.DataFrame]] = {
    "score_table": lambda f: pr.score_table(f, by="segment"),
    "curve": lambda f: pr.roc_curve(f, by="segment"),
    "auc_delong": lambda f: pr.roc_auc(f, by="segment", ci="delong"),
    "confusion": lambda f: pr.confusion_matrix(f, [0.0, 0.5], by="segment"),
    "auc_weighted_bootstrap": lambda f: pr.roc_auc(
        f, by="segment", weight="w", ci="bootstrap", n_boot=50, seed=3
    ),
    "calibration": lambda f: pr.calibration_curve(f, 5, score="p", by="segment", weight="w"),
    "estimated_auc": lambda f: pr.estimated_auc(f, score="p", by="segment"),
    "trend_estimated": lambda f: pr.trend(f, period="segment", score="p", estimated=True),
    "decision_curve": lambda f: pr.decision_curve(f, [0.3, 0.6], score="p", by="segment"),
    "fold_summary": lambda f: pr.fold_summary(f, fold="segment", threshold=0.0, weight="w"),
    "multiclass_auc": lambda f: pr.multiclass_auc(f, {0: "p", 1: "score"}, method="hand_till"),
    "multiclass_confusion": lambda f: pr.multiclass_confusion(
        f, {0: "p", 1: "score"}, by="segment"
    ),
    "auc_in_batches": lambda f: pr.roc_auc_in_batches(f, by="segment", batch_rows=100),
}


@pytest.fixture(scope="module")
def spark_log(spark: object) -> object:
    """:func:`make_log` as one Spark frame, cached in the session for the tests that
    read it as it is (Spark reads it from its memory, not from Python rows again)."""
    return spark_frame(spark, make_log()).cache()  # type: ignore[attr-defined]


def with_warnings(call: Callable[[], pl.DataFrame]) -> tuple[pl.DataFrame, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        return call(), [f"{w.category.__name__}: {w.message}" for w in caught]


@pytest.mark.parametrize("name", list(VIEWS))
def test_spark_frame_equals_the_polars_frame(spark_log: object, name: str) -> None:
    """The same frame and the same warnings (the one-class segment's among them)."""
    log = make_log()
    expected, expected_warnings = with_warnings(lambda: VIEWS[name](log))
    result, result_warnings = with_warnings(lambda: VIEWS[name](spark_log))
    assert isinstance(result, pl.DataFrame)
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)
    assert result_warnings == expected_warnings
    if name == "auc_delong":
        solo = r"1 group\(s\) \[segment='solo'\] hold only one class"
        assert any(re.search(solo, message) for message in result_warnings)


def test_spark_long_logs_weeks_and_score_tables(spark: object) -> None:
    """compare_long pairs the cases in Spark, trend cuts weeks there (from Monday, in
    UTC dates; two weeks and five days aligned to the epoch, as Polars aligns them) and
    a score table comes back: each as on the Polars frame."""
    rng = np.random.default_rng(5)
    n = 60
    log = pl.DataFrame(
        {
            "case": [i // 2 for i in range(2 * n)],
            "model": ["a", "b"] * n,
            "score": np.round(rng.normal(0, 1, 2 * n), 1),
            "label": np.repeat(rng.integers(0, 2, n), 2),
            "day": pl.date_range(date(2026, 1, 1), date(2026, 3, 1), eager=True).sample(
                2 * n, with_replacement=True, seed=5
            ),
        }
    )
    calls: list[Callable[[object], pl.DataFrame]] = [
        lambda f: pr.compare_long(f, ("a", "b"), case="case"),
        lambda f: pr.trend(f, period="day", every="1w"),
        lambda f: pr.trend(f, period="day", every="2w"),  # aligned to the epoch
        lambda f: pr.drift(f, period="day", every="5d"),
        lambda f: pr.score_counts(f),
    ]
    frame = spark_frame(spark, log)
    table = pr.score_table(log).select("threshold", "pos", "neg")
    for call in calls:
        source = (frame, log) if call is not calls[-1] else (spark_frame(spark, table), table)
        got, expected = (quietly(partial(call, f)) for f in source)
        assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-9)


def test_spark_one_vs_rest_refused_by_name(spark_log: object) -> None:
    """one_vs_rest returns rows: a Spark frame is refused as a DuckDB relation is."""
    with pytest.raises(TypeError, match=r"^one_vs_rest\(\) takes a polars DataFrame .*DataFrame$"):
        pr.one_vs_rest(spark_log, {0: "score", 1: "p"})


def test_spark_empty_input(spark: object) -> None:
    """(The one-class segment's warning: test_spark_frame_equals_the_polars_frame.)"""
    empty = make_log().head(0)
    assert_frame_equal(
        pr.roc_auc(spark_frame(spark, empty), by="segment"), pr.roc_auc(empty, by="segment")
    )


def test_spark_errors_as_on_polars(spark: object, spark_log: object) -> None:
    log = spark_log
    missing = pl.exceptions.ColumnNotFoundError
    with pytest.raises(missing, match=r"column 'scor' not found.*'score'"):
        pr.roc_auc(log, score="scor")
    with pytest.raises(RocInputError, match=r"label column 'segment' has values \["):
        pr.roc_auc(log, label="segment")
    nan = pl.DataFrame({"score": [0.1, float("nan"), 0.3], "label": [0, 1, 1]})
    with pytest.raises(RocInputError, match=r"score column 'score' has 1 NaN value"):
        pr.roc_auc(spark_frame(spark, nan))


def test_spark_exact_auc_of_continuous_scores(spark: object) -> None:
    """roc_auc without ci: equal-width buckets and ranks in windows partitioned by
    (segment, bucket) in Spark; exact whatever the buckets."""
    from polars_roc.core.arguments import Roles
    from polars_roc.core.engine_ranks import auc_in_buckets

    rng = np.random.default_rng(5)
    label = rng.integers(0, 2, size=300)
    log = (
        make_log()
        .head(300)
        .with_columns(
            score=pl.Series(rng.normal(label * 0.6, 1.0)).round(2), label=pl.Series(label)
        )
    )
    expected = quietly(lambda: pr.roc_auc(log, by="segment", direction="lower"))
    frame = spark_frame(spark, log)
    result = quietly(lambda: pr.roc_auc(frame, by="segment", direction="lower"))
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)
    few = quietly(lambda: auc_in_buckets(frame, Roles(by="segment", direction="lower"), buckets=3))
    assert_frame_equal(few, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


def test_confusion_counts_per_threshold_in_spark(spark: object) -> None:
    """Spark compares a float column with a double literal in Float64, so the cut
    thresholds are rounded to Float32 first: a Float32 score of 0.7 (0.699999988) is
    at or above the threshold 0.7, as in Polars; continuous scores come back as one
    cell per threshold, group and class."""
    rng = np.random.default_rng(8)
    score = np.concatenate([rng.random(300), [0.7, 0.1, 0.7, 0.1]]).astype(np.float32)
    log = pl.DataFrame(
        {"score": score, "label": rng.integers(0, 2, 304), "g": rng.integers(0, 2, 304)}
    )
    frame = spark.createDataFrame(log.rows(), schema="score float, label bigint, g bigint")  # type: ignore[attr-defined]
    for direction in ("higher", "lower"):
        expected = pr.confusion_matrix(log, [0.1, 0.7], by="g", direction=direction)
        result = pr.confusion_matrix(frame, [0.1, 0.7], by="g", direction=direction)
        assert_frame_equal(result, expected)


def test_spark_bins(spark: object) -> None:
    """bins= cuts buckets in Spark: the buckets made by hand (tests/test_engines.py
    checks them in depth on DuckDB)."""
    from tests._engine_buckets import by_hand_buckets, hand_bound

    rng = np.random.default_rng(8)
    label = rng.integers(0, 2, size=300)
    score = rng.normal(label * 0.6, 1.0)
    score[:3] = [np.inf, -np.inf, 0.0]
    rounded = pl.Series(score).round(3)
    log = pl.concat(  # and the 2 rows of the one-class segment: a curve of 2 points
        [
            make_log().head(300).with_columns(score=rounded, label=pl.Series(label)),
            make_log().tail(2),
        ]
    )
    frame = spark_frame(spark, log)
    for kw in ({"direction": "lower"}, {"weight": "w"}):
        direction = str(kw.get("direction", "higher"))
        bucketed = by_hand_buckets(
            log, 8, by=["segment"], direction=direction, mass=kw.get("weight")
        )
        with warnings.catch_warnings():  # the one-class segment
            warnings.simplefilter("ignore", UserWarning)
            result = pr.roc_auc(frame, by="segment", bins=8, **kw)  # type: ignore[arg-type]
            expected = pr.roc_auc(bucketed, by="segment", **kw)  # type: ignore[arg-type]
        assert_frame_equal(result.drop("auc_bound"), expected, check_exact=False, rel_tol=1e-9)
        bound = hand_bound(bucketed, ["segment"], kw.get("weight"))
        assert_frame_equal(
            result.select("segment", "auc_bound"),
            bound.sort("segment", nulls_last=False),
            check_exact=False,
            rel_tol=1e-9,
        )
    assert_frame_equal(
        quietly(lambda: pr.score_table(frame, by="segment", bins=8)),
        quietly(lambda: pr.score_table(by_hand_buckets(log, 8, by=["segment"]), by="segment")),
    )


@pytest.fixture(scope="module")
def continuous_log(spark: object) -> tuple[pl.DataFrame, object]:
    """Many distinct scores, +-inf and the one-class segment; as one cached Spark frame."""
    rng = np.random.default_rng(9)
    label = rng.integers(0, 2, size=300)
    score = rng.normal(label * 0.6, 1.0)
    score[:2] = [np.inf, -np.inf]
    log = pl.concat(
        [
            make_log().head(300).with_columns(score=pl.Series(score), label=pl.Series(label)),
            make_log().tail(2),
        ]
    )
    return log, spark_frame(spark, log).cache()  # type: ignore[attr-defined]


@pytest.mark.parametrize("kw", [{}, {"direction": "lower", "weight": "w"}], ids=["plain", "w"])
def test_spark_curves_are_the_polars_curves(
    continuous_log: tuple[pl.DataFrame, object], kw: dict[str, str]
) -> None:
    """roc_curve, pr_curve, det_curve and the hull of many distinct scores come back
    whole from Spark: the frames of the Polars path (buckets only with bins=)."""
    log, frame = continuous_log
    for view in (pr.roc_curve, pr.pr_curve, pr.det_curve, pr.hull_auc, pr.roc_hull):
        got = quietly(partial(view, frame, by="segment", **kw))
        expected = quietly(partial(view, log, by="segment", **kw))
        assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-12)


@pytest.fixture(scope="module")
def backends_log(spark: object) -> tuple[pl.DataFrame, object]:
    """tests/test_backends.py's log, and the same rows as one cached Spark frame."""
    log = backends.make_log()
    columns = log.select("segment", "month", "score", "label", "w", "n")
    return log, spark_frame(spark, columns).cache()  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", list(backends.BINNED))
def test_spark_bins_cut_the_buckets_of_every_backend(
    backends_log: tuple[pl.DataFrame, object], name: str
) -> None:
    """bins= is one scheme: Spark cuts tests/test_backends.py's buckets."""
    backends.assert_same_buckets(name, *backends_log)


@pytest.mark.parametrize(
    "case", ["nan score", "null grade", "negative weight", "labels beyond 0 and 1"]
)
def test_bad_input_on_spark_is_refused_as_on_polars(case: str, spark: object) -> None:
    """tests/test_one_read.py's bad input: the one read refuses it in Spark as on Polars."""
    frame, options, _ = one_read.BAD[case]
    on_polars = one_read._refusal(lambda: pr.calibration_curve(frame, by="segment", **options))
    rows = spark_frame(spark, frame)
    refused = one_read._refusal(lambda: pr.calibration_curve(rows, by="segment", **options))
    assert refused == on_polars
