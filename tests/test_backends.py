"""One call, every backend: the same frame or the same error wherever the rows live.

Each view runs on a Polars DataFrame, its LazyFrame, a DuckDB relation over Arrow and a
DuckDB relation over a Parquet file (DuckDB plans those with the file's statistics, which
once hid NaN scores), and must return equal frames; each bad input must raise the same
error class with the same message. Spark runs the same calls in tests/test_spark.py (the
one file that starts a Spark session, so that one test worker does).
"""

from __future__ import annotations

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
from polars_roc.exceptions import RocOptionError, RocOptionTypeError

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install '.[duckdb]')")

BACKENDS = ("eager", "lazy", "duckdb", "duckdb_parquet")


def make_log(seed: int = 5, n: int = 15000) -> pl.DataFrame:
    """Continuous and tied scores (more than 4,096 distinct per segment), +-inf, a null
    segment, a one-class segment, weights with zeros, integer counts, a second score."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    score = rng.normal(label * 0.7, 1.0)
    score[: n // 10] = np.round(score[: n // 10], 1)
    score[3], score[4] = np.inf, -np.inf
    log = pl.DataFrame(
        {
            "segment": pl.Series(rng.choice(["a", "b", None], size=n).tolist(), dtype=pl.String),
            "month": rng.choice(["2026-01", "2026-02", "2026-03"], size=n).tolist(),
            "day": pl.date_range(date(2026, 1, 1), date(2026, 3, 31), eager=True).sample(
                n, with_replacement=True, seed=seed
            ),
            "score": score,
            "score_b": np.round(score + rng.normal(0, 1.0, size=n), 2),
            "label": label,
            "w": np.where(rng.random(n) < 0.1, 0.0, rng.gamma(2.0, 0.7, size=n)),
            "n": rng.integers(0, 4, size=n),
        }
    ).with_columns(p=1 / (1 + (-pl.col("score")).exp()))  # probabilities, 0 and 1 included
    solo = log.head(2).with_columns(segment=pl.lit("solo"), label=pl.lit(0, dtype=pl.Int64))
    return pl.concat([log, solo])


def run(call: Callable[[Any], Any], frame: Any) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = call(frame)
    return result.collect() if isinstance(result, pl.LazyFrame) else result


CALLS: dict[str, Callable[[Any], Any]] = {
    "auc": lambda f: pr.roc_auc(f, by="segment"),
    "auc_lower": lambda f: pr.roc_auc(f, by="segment", direction="lower"),
    "auc_delong": lambda f: pr.roc_auc(f, by="segment", ci="delong"),
    "auc_weighted": lambda f: pr.roc_auc(f, by="segment", weight="w"),
    "auc_counted": lambda f: pr.roc_auc(f, by="segment", count="n", ci="delong"),
    "auc_partial": lambda f: pr.roc_auc(f, by="segment", max_fpr=0.2),
    "curve": lambda f: pr.roc_curve(f, by="segment"),
    "curve_weighted": lambda f: pr.roc_curve(f, by="segment", weight="w"),
    "curve_local_maxima": lambda f: pr.roc_curve(f, by="segment", local_maxima=True),
    "pr_curve": lambda f: pr.pr_curve(f, by="segment"),
    "det_curve": lambda f: pr.det_curve(f, by="segment", count="n"),
    "roc_hull": lambda f: pr.roc_hull(f, by="segment"),
    "hull_auc": lambda f: pr.hull_auc(f, by="segment"),
    "confusion": lambda f: pr.confusion_matrix(f, [0.0, 0.5], by="segment"),
    "best_threshold": lambda f: pr.best_threshold(f, by="segment"),
    "threshold_at": lambda f: pr.threshold_at(f, fpr=0.1, by="segment"),
    "gains": lambda f: pr.gains_table(f, by="segment", n_bins=5),
    "pr_auc": lambda f: pr.pr_auc(f, by="segment"),
    "tpr_at": lambda f: pr.tpr_at(f, 0.1, by="segment"),
    "compare": lambda f: pr.compare(f, ["score", "score_b"], by="segment"),
    "trend": lambda f: pr.trend(f, period="month", by="segment", ci="delong"),
    "drift": lambda f: pr.drift(f, period="month"),
    "trend_every": lambda f: pr.trend(f, period="day", every="1mo"),
    "score_table": lambda f: pr.score_table(f, by=["segment", "month"]),
    "auc_test": lambda f: pr.roc_auc(f, by="segment", test=True, alternative="greater"),
    "average_precision_logit": lambda f: pr.pr_average_precision(f, by="segment", ci="logit"),
    "prbe": lambda f: pr.prbe(f, by="segment"),
    "decision_curve": lambda f: pr.decision_curve(f, [0.1, 0.5], score="p", by="segment"),
    "disparity": lambda f: pr.disparity(f, 0.0, group="month", by="segment", count="n"),
    "calibration": lambda f: pr.calibration_curve(f, score="p", by="segment", ci="wilson"),
    "calibration_quantile": lambda f: pr.calibration_curve(
        f, 5, strategy="quantile", score="p", weight="w"
    ),
    "brier": lambda f: pr.brier_decomposition(f, score="p", by="segment"),
    "calibration_test": lambda f: pr.calibration_test(f, score="p", by="segment"),
    "grade_test": lambda f: pr.grade_test(f, "month", score="p", by="segment"),
    "psi": lambda f: pr.psi(f, "month", by="segment", columns=["score_b", "n"]),
    "estimated_auc": lambda f: pr.estimated_auc(f, score="p", by="segment", period="month"),
    "estimated_confusion": lambda f: pr.estimated_confusion(f, 0.5, score="p", count="n"),
    "estimated_auc_bins": lambda f: pr.estimated_auc(f, score="p", by="segment", bins=64),
    "estimated_auc_bins_weighted": lambda f: pr.estimated_auc(f, score="p", weight="w", bins=9),
    "calibration_counted": lambda f: pr.calibration_curve(f, 4, score="p", by="segment", count="n"),
    "calibration_error_weighted": lambda f: pr.calibration_error(f, score="p", weight="w"),
    "psi_weighted": lambda f: pr.psi(f, "month", by="segment", weight="w"),
    "psi_counted": lambda f: pr.psi(f, "month", by="segment", count="n", columns="score_b"),
    "trend_estimated": lambda f: pr.trend(
        f, period="month", by="segment", estimated=True, score="p"
    ),
}


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return make_log()


@pytest.fixture(scope="module")
def sources(log: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``log`` as each backend, made once (one Parquet file) for every call to read."""
    folder = tmp_path_factory.mktemp("backends")
    return {backend: as_backend(log, backend, folder) for backend in BACKENDS}


@pytest.fixture(scope="module")
def on_polars() -> dict[str, pl.DataFrame]:
    """Each call's frame on the Polars DataFrame, computed once for the three others."""
    return {}


@pytest.mark.parametrize("backend", BACKENDS[1:])
@pytest.mark.parametrize("name", list(CALLS))
def test_every_backend_gives_the_polars_frame(
    log: pl.DataFrame,
    sources: dict[str, Any],
    on_polars: dict[str, pl.DataFrame],
    name: str,
    backend: str,
) -> None:
    call = CALLS[name]
    if name not in on_polars:
        on_polars[name] = run(call, log)
    expected = on_polars[name]
    got = run(call, sources[backend])
    # Polars' engines to the last bit; another engine's integers exactly, floats to
    # 1e-12 (DeLong's variance sums placements in another order there).
    exact = backend in ("lazy", "streaming")
    assert_frame_equal(got, expected, check_exact=exact, rel_tol=1e-12)


def with_values(**columns: list[Any]) -> pl.DataFrame:
    """A 400-row log, its first rows replaced by ``columns`` (the bad values)."""
    base = make_log(1, n=400).drop("month", "day")
    k = len(next(iter(columns.values())))
    head = base.head(k).with_columns(pl.Series(name, v) for name, v in columns.items())
    return pl.concat([head, base.slice(k)], how="vertical_relaxed")


BAD: dict[str, tuple[pl.DataFrame, dict[str, Any]]] = {
    "nan_score": (with_values(score=[float("nan")] * 3), {}),
    "nan_score_bool_label": (
        pl.DataFrame(
            {"score": [float("nan")] * 4 + list(range(1996)), "label": [True, False] * 1000}
        ),
        {},
    ),
    "null_score": (with_values(score=[None, 0.5]), {}),
    "null_label": (with_values(label=[None, 1]), {}),
    "label_not_0_1": (with_values(label=[2, 1]), {}),
    # A CSV's label column of empty cells only (no label has come yet) reads as text.
    "labels_all_null_text": (
        make_log(1, n=400).with_columns(label=pl.lit(None, pl.String)),
        {"nulls": "drop"},
    ),
    "pos_label_absent": (make_log(1, n=400), {"pos_label": 7}),
    "negative_weight": (with_values(w=[-1.0, 1.0]), {"weight": "w"}),
    "nan_weight": (with_values(w=[float("nan"), 1.0]), {"weight": "w"}),
    "null_count": (with_values(n=[None, 1]), {"count": "n"}),
    "negative_count": (with_values(n=[-2, 1]), {"count": "n"}),
    "fractional_count": (with_values(n=[0.5, 1.0]), {"count": "n"}),
    "count_beyond_int64": (with_values(n=[1e20, 1.0]), {"count": "n"}),
    "counts_overflowing_int64": (with_values(n=[2**62, 2**62, 1]), {"count": "n"}),
    # In one cell, summed by the engine: past Int64 before the Polars checks see it.
    "counts_overflowing_int64_in_a_cell": (
        pl.DataFrame({"score": [0.1, 0.1, 0.8], "label": [0, 0, 1], "n": [2**62, 2**62, 1]}),
        {"count": "n"},
    ),
    "float_count_of_2_63": (
        pl.DataFrame({"score": [0.1, 0.8], "label": [0, 1], "n": [2.0**63, 1.0]}),
        {"count": "n"},
    ),
    "missing_score": (make_log(1, n=400), {"score": "q"}),
    "missing_by": (make_log(1, n=400), {"by": "region"}),
}


@pytest.mark.parametrize("name", list(BAD))
def test_every_backend_refuses_the_same_input_the_same_way(name: str, tmp_path: Path) -> None:
    frame, options = BAD[name]
    errors = []
    for backend in BACKENDS:
        source = as_backend(frame, backend, tmp_path)
        for view in (pr.roc_auc, pr.roc_curve):
            with pytest.raises(Exception) as caught:
                run(lambda f, view=view: view(f, **options), source)
            errors.append((backend, view.__name__, type(caught.value), str(caught.value)))
    first = errors[0]
    for error in errors[1:]:
        assert error[2:] == first[2:], (first, error)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("options", [{"weight": "w"}, {"count": "n"}], ids=["weight", "count"])
@pytest.mark.parametrize("bins", [None, 8])
def test_a_group_of_no_mass_is_one_null_row_with_a_warning(
    backend: str, options: dict[str, str], bins: int | None, tmp_path: Path
) -> None:
    """One rule on every path: a group whose rows all weigh (or count) 0 stays, with
    null rates and zero totals, and one warning names it."""
    log = pl.DataFrame(
        {
            "seg": ["a"] * 4 + ["b"] * 4,
            "score": [0.9, 0.8, 0.3, 0.2] * 2,
            "label": [1, 0, 1, 0] * 2,
            "w": [1.0] * 4 + [0.0] * 4,
            "n": [1] * 4 + [0] * 4,
        }
    )
    source = as_backend(log, backend, tmp_path)
    with pytest.warns(UserWarning, match=r"\[seg='b'\] has zero total|\[seg='b'\] have zero"):
        result = pr.roc_auc(source, by="seg", bins=bins, **options)
        result = result.collect() if isinstance(result, pl.LazyFrame) else result
    assert result["seg"].to_list() == ["a", "b"]
    assert result["auc"].to_list() == [0.75, None]
    assert result["n_pos"].to_list() == [2, 0] and result["n_neg"].to_list() == [2, 0]
    with pytest.warns(UserWarning, match=r"seg='b'"):
        curve = pr.roc_curve(source, by="seg", bins=bins, **options)
        curve = curve.collect() if isinstance(curve, pl.LazyFrame) else curve
    assert curve.filter(pl.col("seg") == "b")["tpr"].is_null().all()
    # The AUC expected from the scores: the same null row (DuckDB's bins refused it,
    # reading the no-mass bucket's +inf as a score beyond [0, 1]).
    with pytest.warns(UserWarning, match=r"\[seg='b'\] ha"):
        estimated = pr.estimated_auc(source, by="seg", bins=bins, **options)
        estimated = estimated.lazy().collect()
    assert estimated.row(1)[:2] == ("b", None)
    assert estimated["auc"][0] > 0


# bins= is one scheme: the same buckets, counts and bound wherever the rows live.
BINNED: dict[str, Callable[[Any], Any]] = {
    "auc": lambda f: pr.roc_auc(f, by="segment", bins=64),
    "auc_ungrouped": lambda f: pr.roc_auc(f, bins=4096),
    "auc_lower": lambda f: pr.roc_auc(f, by="segment", bins=64, direction="lower"),
    "auc_weighted": lambda f: pr.roc_auc(f, by="segment", bins=64, weight="w"),
    "auc_counted": lambda f: pr.roc_auc(f, by="segment", bins=64, count="n"),
    "curve": lambda f: pr.roc_curve(f, by="segment", bins=64, direction="lower"),
    "curve_weighted": lambda f: pr.roc_curve(f, by="segment", bins=64, weight="w"),
    "pr_curve": lambda f: pr.pr_curve(f, by="segment", bins=64, count="n"),
    "det_curve": lambda f: pr.det_curve(f, by="segment", bins=64),
    "roc_hull": lambda f: pr.roc_hull(f, by="segment", bins=64),
    "score_table": lambda f: pr.score_table(f, by=["segment", "month"], bins=16),
}


@pytest.mark.parametrize("backend", BACKENDS[1:])
@pytest.mark.parametrize("name", list(BINNED))
def test_bins_cut_the_same_buckets_on_every_backend(
    log: pl.DataFrame, sources: dict[str, Any], name: str, backend: str
) -> None:
    assert_same_buckets(name, log, sources[backend])


def assert_same_buckets(name: str, log: pl.DataFrame, source: Any) -> None:
    """``BINNED[name]`` on ``source`` gives the frame of the Polars path on ``log``
    (tests/test_spark.py runs it on Spark)."""
    call = BINNED[name]
    expected, got = run(call, log), run(call, source)
    assert expected.height < log.height // 10  # buckets, not scores
    # Bit for bit with integer counts; weights are summed in each engine's own order.
    if name.endswith("weighted"):
        assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-12)
    else:
        assert_frame_equal(got, expected, check_exact=True)


@pytest.mark.parametrize("ties", ["first", "average"])
def test_an_engine_reads_its_cells_in_one_order(log: pl.DataFrame, ties: str) -> None:
    """An engine keeps no row order: its cells come back sorted by segment, scores and
    label, so order-reading calls repeat, and equal the Polars frame sorted that way."""
    rows = log.filter(pl.col("segment") == "a").head(3000).with_columns(pl.col("score_b").round(1))
    call = lambda f: pr.compare_curves(f, ["score", "score_b"], n_boot=50, seed=3, ties=ties)  # noqa: E731
    first, again = (run(call, duckdb.from_arrow(rows.to_arrow())) for _ in range(2))
    assert_frame_equal(first, again)
    assert_frame_equal(first, run(call, rows.sort("score", "score_b", "label")))


THRESHOLDS = pl.DataFrame({"segment": ["a", "b"], "month": ["2026-01", "2026-01"]})
UNKEYED = {
    # Without `by`, the segment column would key nothing: each threshold for every row.
    "confusion_no_by": lambda f: pr.confusion_matrix(f, THRESHOLDS.with_columns(threshold=0.1)),
    "confusion_month_not_by": lambda f: pr.confusion_matrix(
        f, THRESHOLDS.with_columns(threshold=0.1), by="segment"
    ),
    "disparity_month_not_by": lambda f: pr.disparity(
        f, THRESHOLDS.with_columns(threshold=0.1), group="segment"
    ),
}


UNKEYED["misspelt_key"] = lambda f: pr.confusion_matrix(
    f, THRESHOLDS.rename({"segment": "Segment"}).with_columns(threshold=0.1), by="segment"
)


@pytest.mark.parametrize("name", list(UNKEYED))
def test_thresholds_with_a_log_column_outside_by_are_refused_everywhere(
    name: str, sources: dict[str, Any]
) -> None:
    errors = set()
    for source in sources.values():
        with pytest.raises(
            RocOptionError, match=r"are columns of the log but not `by`|has none"
        ) as err:
            run(UNKEYED[name], source)
        errors.add(str(err.value))
    assert len(errors) == 1, errors


@pytest.mark.parametrize("backend", BACKENDS[1:])
def test_trend_estimated_leaves_the_unlabelled_rows_out_of_the_realised_auc(
    backend: str, tmp_path: Path
) -> None:
    log = make_log(2, n=3000).with_columns(
        label=pl.when(pl.col("month") < "2026-03").then(pl.col("label"))
    )

    def call(frame: Any) -> Any:
        return pr.trend(frame, period="month", by="segment", score="p", estimated=True)

    expected = run(call, log)
    assert expected.filter(pl.col("month") == "2026-03")["auc"].null_count() == 4
    got = run(call, as_backend(log, backend, tmp_path))
    assert_frame_equal(got, expected, check_exact=backend == "lazy", rel_tol=1e-12)


PSI_BAD = {
    "nan_score": lambda log: log.with_columns(
        score=pl.when(pl.col("month") == "2026-02").then(float("nan")).otherwise("score")
    ),
    "null_period": lambda log: log.with_columns(
        month=pl.when(pl.col("score") > 2).then(None).otherwise("month")
    ),
    "negative_weight": lambda log: log.with_columns(w=-pl.col("w")),
    "fractional_count": lambda log: log.with_columns(n=pl.col("n") + 0.5),
}


@pytest.mark.parametrize(
    ("name", "option"),
    [
        *((name, {"weight": "w"}) for name in ("nan_score", "null_period", "negative_weight")),
        *((name, {"count": "n"}) for name in ("nan_score", "null_period", "fractional_count")),
    ],
)
def test_weighted_and_counted_psi_refuse_the_same_input_everywhere(
    name: str, option: dict[str, str], tmp_path: Path
) -> None:
    # Polars rows of weights or counts stream through their quantile bins; other engines
    # count per distinct value: one message.
    frame = PSI_BAD[name](make_log(3, n=2000))
    errors = set()
    for backend in BACKENDS:
        with pytest.raises(Exception) as caught:
            run(lambda f: pr.psi(f, "month", **option), as_backend(frame, backend, tmp_path))
        errors.add((type(caught.value), str(caught.value)))
    assert len(errors) == 1, errors
    if name == "nan_score":  # rows of a weighted log are counted by their weight
        weighted = "weight" in option
        assert ("NaN values (weight " in errors.pop()[1]) == weighted


@pytest.mark.parametrize(
    "view",
    [
        lambda f: pr.calibration_curve(f, score="p"),
        lambda f: pr.calibration_curve(f, score="p", grade="month"),
        lambda f: pr.calibration_error(f, score="p", count="n"),
        lambda f: pr.grade_test(f, "month", score="p"),
        lambda f: pr.grade_summary(f, "month", score="p"),
    ],
    ids=["calibration", "calibration_grade", "calibration_error", "grade_test", "grade_summary"],
)
def test_a_nan_probability_is_refused_the_same_way_over_parquet(
    view: Callable[[Any], Any], tmp_path: Path
) -> None:
    # The other scores in [0, 1]: DuckDB dropped the range test guarding a decimal cast
    # (Parquet's statistics leave NaN out) and raised its own ConversionException.
    frame = make_log(1, n=400).with_columns(
        p=pl.when(pl.int_range(pl.len()) == 7).then(float("nan")).otherwise("p")
    )
    errors = set()
    for backend in BACKENDS:
        with pytest.raises(Exception) as caught:
            run(view, as_backend(frame, backend, tmp_path))
        errors.add((type(caught.value).__name__, str(caught.value).split(",")[0]))
    assert errors == {("RocInputError", "score column 'p' has 1 NaN value(s)")}


def test_a_table_of_best_thresholds_keys_by_its_segments_only(tmp_path: Path) -> None:
    # Its measure columns (n, prevalence ...) and the log's roles (a count named n, the
    # score) key nothing, even where the log has columns so named.
    log = make_log(4, n=3000).rename({"n": "count_n"})
    counts = log.group_by("segment", "score", "label").agg(n=pl.col("count_n").sum())
    counts = counts.with_columns(prevalence=pl.lit(0.5))
    best = run(lambda f: pr.best_threshold(f, by="segment", count="n"), counts)
    best = best.with_columns(score=pl.lit(1.0))
    keys = best.select("segment", "threshold")
    expected = run(lambda f: pr.confusion_matrix(f, keys, by="segment", count="n"), counts)
    for backend in BACKENDS:
        got = run(
            lambda f: pr.confusion_matrix(f, best, by="segment", count="n"),
            as_backend(counts, backend, tmp_path),
        )
        assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-12)
    # disparity's advice names the by columns, not the group it compares.
    per_segment = run(lambda f: pr.best_threshold(f, by="segment"), log)
    with pytest.raises(RocOptionError, match=r"`by=\['segment'\]`"):
        run(lambda f: pr.disparity(f, per_segment, group="month"), log)


@pytest.mark.parametrize(
    ("key", "values", "whole"),
    [
        (
            "day",
            [datetime(2026, 1, 1, 12), datetime(2026, 1, 2)],
            [date(2026, 1, 1), date(2026, 1, 2)],
        ),
        ("bucket", [1.7, 2.0], [1, 2]),
    ],
    ids=["datetime_on_date", "fraction_on_integer"],
)
def test_a_threshold_key_the_log_cannot_hold_is_refused_not_truncated(
    key: str, values: list[Any], whole: list[Any], tmp_path: Path
) -> None:
    # Cast to the log's dtype, 1.7 became segment 1 and noon the day itself: silently.
    log = make_log(2, n=400).with_columns(bucket=1 + pl.col("day").dt.day().cast(pl.Int64) % 2)
    log = log.filter(pl.col(key).is_in(whole))
    thresholds = pl.DataFrame({key: values, "threshold": [0.5, 0.7]})
    errors = set()
    for backend in BACKENDS:
        source = as_backend(log, backend, tmp_path)
        with pytest.raises(RocOptionTypeError) as caught:
            run(lambda f: pr.confusion_matrix(f, thresholds, by=key), source)
        errors.add(str(caught.value))
    assert errors == {
        f"`threshold` has {key!r} value(s) {values[:1]!r} that are not values of the log's "
        f"column {key!r} (dtype {log.schema[key]})"
    }
    # Keys the cast keeps (a whole 2.0, midnight) still find their segments.
    kept = thresholds.with_columns(pl.Series(key, whole).cast(thresholds.schema[key]))
    got = run(lambda f: pr.confusion_matrix(f, kept, by=key), log)
    assert got[key].to_list() == whole and got["threshold"].to_list() == [0.5, 0.7]
    at_second = run(lambda f: pr.confusion_matrix(f, 0.7, by=key), log).row(1)
    assert got.row(1) == at_second
