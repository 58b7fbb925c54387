"""Frames of other engines (through narwhals): DuckDB counts, polars_roc does the rest.

Every view on a DuckDB relation must equal the same view on the Polars frame of the
same rows: ties, segments with nulls, one-class segments, count tables, empty input,
and the same errors.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import partial

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError
from tests._engine_buckets import by_hand_buckets, hand_bound

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install '.[duckdb]')")
pytest.importorskip("pyarrow", reason="pyarrow (DuckDB -> Polars) is not installed")


def make_log(seed: int = 0, n: int = 600) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    segment = rng.choice(["a", "b", "c", None], size=n).tolist()
    log = pl.DataFrame(
        {
            "segment": pl.Series(segment, dtype=pl.String),
            "score": np.round(rng.normal(label * 0.8, 1.0), 1),
            "challenger": np.round(rng.normal(label * 0.5, 1.0), 1),
            "label": label,
            "n": rng.integers(0, 4, size=n),
            "w": np.where(rng.random(n) < 0.1, 0.0, rng.gamma(2.0, 0.7, size=n)),
        }
    )
    solo = pl.DataFrame(
        {
            "segment": ["solo"] * 2,
            "score": [0.1, 0.3],
            "challenger": [0.2, 0.1],
            "label": [1, 1],
            "n": [1, 2],
            "w": [0.5, 1.5],
        }
    )
    return pl.concat([log, solo], how="vertical_relaxed")


def relation(frame: pl.DataFrame) -> object:
    """A DuckDB relation holding ``frame``'s rows (on DuckDB's default connection: a
    connection of its own costs ~20 ms a relation)."""
    return duckdb.from_arrow(frame.to_arrow())


VIEWS: dict[str, Callable[..., pl.DataFrame]] = {
    "score_table": lambda f, **kw: pr.score_table(f, **kw),
    "curve": lambda f, **kw: pr.roc_curve(f, **kw),
    "auc": lambda f, **kw: pr.roc_auc(f, **kw),
    "auc_delong": lambda f, **kw: pr.roc_auc(f, ci="delong", **kw),
    "auc_bootstrap": lambda f, **kw: pr.roc_auc(f, ci="bootstrap", n_boot=50, seed=2, **kw),
    "auc_lower": lambda f, **kw: pr.roc_auc(f, direction="lower", **kw),
    "confusion": lambda f, **kw: pr.confusion_matrix(f, [0.0, 0.5], **kw),
    "pr_curve": lambda f, **kw: pr.pr_curve(f, **kw),
    "gains": lambda f, **kw: pr.gains_table(f, 4, **kw),
    "hull": lambda f, **kw: pr.roc_hull(f, **kw),
    "best_threshold": lambda f, **kw: pr.best_threshold(f, "youden", **kw),
    "ks": lambda f, **kw: pr.ks_statistic(f, **kw),
    "compare": lambda f, **kw: pr.compare(f, ["score", "challenger"], **kw),
}


def quietly(call: Callable[[], pl.DataFrame]) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return call()


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("count", [None, "n"])
def test_duckdb_relation_equals_the_polars_frame(name: str, count: str | None) -> None:
    log = make_log()
    view = VIEWS[name]
    expected = quietly(lambda: view(log, by="segment", count=count))
    result = quietly(lambda: view(relation(log), by="segment", count=count))
    assert isinstance(result, pl.DataFrame)
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


def test_one_class_segment_warns_as_on_polars() -> None:
    with pytest.warns(UserWarning, match=r"1 group\(s\) \[segment='solo'\] hold only one class"):
        pr.roc_auc(relation(make_log()), by="segment")


def test_empty_relation_gives_the_empty_schema() -> None:
    empty = make_log().head(0)
    assert_frame_equal(pr.roc_auc(relation(empty), by="segment"), pr.roc_auc(empty, by="segment"))


def test_errors_name_the_column() -> None:
    log = make_log()
    missing = pl.exceptions.ColumnNotFoundError
    with pytest.raises(missing, match=r"column 'scor' not found.*'score'"):
        pr.roc_auc(relation(log), score="scor")
    with pytest.raises(RocInputError, match=r"label column 'segment' has values \["):
        pr.roc_auc(relation(log), label="segment")
    with pytest.raises(RocInputError, match=r"score column 'score' has 1 NaN value"):
        pr.roc_auc(relation(pl.DataFrame({"score": [0.1, float("nan"), 0.3], "label": [0, 1, 1]})))
    with pytest.raises(RocOptionError, match=r"pass either weight= or count=, not both"):
        pr.roc_auc(relation(log), weight="w", count="n")
    with pytest.raises(TypeError, match=r"a frame of an engine narwhals supports .* got list"):
        pr.roc_auc([1, 2, 3])  # type: ignore[arg-type]


WEIGHTED = [name for name in VIEWS if name not in ("auc_delong", "compare")]


@pytest.mark.parametrize("name", WEIGHTED)
def test_weighted_relation_equals_the_polars_frame(name: str) -> None:
    """The engine sums the weights per cell and counts the cell's rows of positive
    weight: point estimates and the weighted bootstrap (draw for draw) match."""
    log = make_log(3)
    view = VIEWS[name]
    expected = quietly(lambda: view(log, by="segment", weight="w"))
    result = quietly(lambda: view(relation(log), by="segment", weight="w"))
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


def test_weighted_relation_refuses_bad_weights_as_polars_does() -> None:
    log = pl.DataFrame(
        {"score": [0.1, 0.2, 0.3, 0.4], "label": [0, 1, 0, 1], "w": [1.0, 2.0, -1.0, 1.0]}
    )
    # A negative weight is refused even when its cell's sum is positive.
    hidden = log.with_columns(score=pl.lit(0.5))
    for frame in (log, hidden):
        with pytest.raises(RocInputError, match=r"weight column 'w' has 1 negative, NaN or inf"):
            pr.roc_auc(relation(frame), weight="w")
    nulls = log.with_columns(w=pl.Series([1.0, None, 3.0, 1.0]), score=pl.lit(0.5))
    with pytest.raises(RocInputError, match=r"weight column 'w' has 1 null value\(s\)"):
        pr.roc_auc(relation(nulls), weight="w")
    dropped = nulls.with_columns(score=pl.Series([0.1, 0.2, 0.3, 0.4]), w=pl.col("w").abs())
    assert_frame_equal(
        pr.roc_auc(relation(dropped), weight="w", nulls="drop"),
        pr.roc_auc(dropped, weight="w", nulls="drop"),
    )
    with pytest.raises(RocInputError, match=r"weight column 'segment' must be numeric"):
        pr.roc_auc(relation(make_log()), weight="segment")
    with pytest.raises(ValueError, match=r"with DeLong's method does not support weights"):
        pr.roc_auc(relation(log.with_columns(w=pl.lit(1.0))), weight="w", ci="delong")


def continuous_log(seed: int, n: int = 500) -> pl.DataFrame:
    """Continuous scores with ties, +-inf, a null segment and a one-class segment."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    score = rng.normal(label * 0.7, 1.0)
    score[: n // 10] = np.round(score[: n // 10], 1)  # some ties
    score[3], score[4], score[5] = np.inf, -np.inf, np.inf
    log = pl.DataFrame(
        {
            "segment": pl.Series(rng.choice(["a", "b", None], size=n).tolist(), dtype=pl.String),
            "score": score,
            "label": label,
        }
    )
    solo = pl.DataFrame({"segment": ["solo"] * 2, "score": [0.1, 0.3], "label": [0, 0]})
    return pl.concat([log, solo], how="vertical_relaxed")


@pytest.mark.parametrize("buckets", [1, 2, 7, 4096])
@pytest.mark.parametrize("seed", [0, 1])
def test_bucketed_auc_is_exact_whatever_the_buckets(buckets: int, seed: int) -> None:
    """Pairs across buckets from the histogram, within a bucket from average ranks: the
    exact AUC (compared with scikit-learn) for any number of buckets."""
    from sklearn.metrics import roc_auc_score

    from polars_roc.core.arguments import Roles
    from polars_roc.core.engine_ranks import auc_in_buckets

    log = continuous_log(seed)
    direction = ("higher", "lower")[seed % 2]
    roles = Roles(by="segment", direction=direction)
    result = quietly(lambda: auc_in_buckets(relation(log), roles, buckets=buckets))
    expected = quietly(lambda: pr.roc_auc(log, by="segment", direction=direction))
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)
    # DeLong's placements from midrank differences in the same windows.
    variance = quietly(lambda: auc_in_buckets(relation(log), roles, buckets=buckets, delong=True))
    delong = quietly(lambda: pr.roc_auc(log, by="segment", direction=direction, ci="delong"))
    assert_frame_equal(
        variance.select("segment", pl.col("auc_var").sqrt()),
        delong.select("segment", pl.col("auc_se").alias("auc_var")),
        check_exact=False,
        rel_tol=1e-9,
        abs_tol=1e-12,
    )
    whole = auc_in_buckets(relation(log), Roles(), buckets=buckets)
    scores = log["score"].clip(-1e300, 1e300).to_numpy()
    assert whole["auc"][0] == pytest.approx(roc_auc_score(log["label"], scores), abs=1e-12)


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_ungrouped_buckets_span_the_checked_range(direction: str) -> None:
    """Without segments the buckets span the range found with the checks (no windows);
    ranks within a bucket count ties, signed zeros among them, one half."""
    from sklearn.metrics import roc_auc_score

    log = continuous_log(3).filter(pl.col("score").is_finite()).drop("segment")
    log = pl.concat([log, pl.DataFrame({"score": [-0.0, 0.0, 0.0], "label": [1, 0, 1]})])
    result = pr.roc_auc(relation(log), ci="delong", direction=direction)
    expected = pr.roc_auc(log, ci="delong", direction=direction)
    assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-15)
    sign = 1 if direction == "higher" else -1
    exact = roc_auc_score(log["label"], sign * log["score"].to_numpy())
    assert result["auc"][0] == pytest.approx(exact, abs=1e-15)


@pytest.mark.parametrize("buckets", [1, 3, 4096])
def test_duckdb_ties_counted_only_where_they_are(buckets: int) -> None:
    """On DuckDB the AUC ranks with rank() and adds the ties' halves per group of equal
    neighbours: exact (scikit-learn per segment) with most rows tied, signed zeros
    among them, and with none."""
    from sklearn.metrics import roc_auc_score

    from polars_roc.core.arguments import Roles
    from polars_roc.core.engine_ranks import auc_in_buckets

    rng = np.random.default_rng(7)
    n = 3000
    score = np.round(rng.normal(size=n), 1)
    score[:200] = -0.0
    score[200:400] = 0.0
    log = pl.DataFrame(
        {
            "segment": rng.choice(["a", "b"], size=n),
            "score": score,
            "label": (rng.random(n) < 0.3).astype(np.int8),
        }
    )
    distinct = {
        "segment": "c",
        "score": rng.random(50),
        "label": np.tile([0, 1], 25).astype(np.int8),
    }
    log = log.vstack(pl.DataFrame(distinct))
    result = auc_in_buckets(relation(log), Roles(by="segment"), buckets=buckets)
    for segment, auc in zip(result["segment"], result["auc"], strict=True):
        rows = log.filter(pl.col("segment") == segment)
        assert auc == pytest.approx(roc_auc_score(rows["label"], rows["score"]), abs=1e-15)


def test_bucketed_auc_options_as_on_polars() -> None:
    log = continuous_log(2).with_columns(
        score=pl.when(pl.int_range(pl.len()) % 17 == 0).then(None).otherwise(pl.col("score")),
        kind=pl.when(pl.col("label") == 1).then(pl.lit("bad")).otherwise(pl.lit("good")),
    )
    kwargs = {"label": "kind", "pos_label": "bad", "nulls": "drop", "by": "segment"}
    assert_frame_equal(
        quietly(lambda: pr.roc_auc(relation(log), **kwargs)),
        quietly(lambda: pr.roc_auc(log, **kwargs)),
        rel_tol=1e-12,
    )
    # Scores of very different magnitudes: a range beyond Float64 falls back to one bucket.
    huge = pl.DataFrame({"score": [-1e308, 1e308, 0.5, 0.2], "label": [0, 1, 1, 0]})
    assert pr.roc_auc(relation(huge))["auc"][0] == pr.roc_auc(huge)["auc"][0] == 1.0
    assert_frame_equal(pr.roc_auc(relation(huge.head(0))), pr.roc_auc(huge.head(0)))
    with pytest.raises(RocInputError, match=r"score column 'score' has 1 null value\(s\)"):
        pr.roc_auc(relation(huge.with_columns(score=pl.Series([None, 1.0, 0.5, 0.2]))))
    with pytest.raises(RocInputError, match=r"holds values other than 0 and 1: \[0, 1, 2\]"):
        pr.roc_auc(relation(huge.with_columns(label=pl.Series([0, 1, 2, 0]))))
    with pytest.raises(RocInputError, match=r"pos_label='x' does not occur in label column"):
        pr.roc_auc(relation(log), label="kind", pos_label="x", nulls="drop")
    with pytest.raises(RocOptionError, match=r"collide with result columns"):
        pr.roc_auc(relation(log.rename({"segment": "auc"})), by="auc", nulls="drop")


# bins= and the curves of continuous scores: buckets cut per group in the engine.


@pytest.mark.parametrize("bins", [2, 7, 64])
@pytest.mark.parametrize("mass", [None, "n", "w"])
@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_engine_bins_equal_the_polars_path_on_the_same_buckets(
    bins: int, mass: str | None, direction: str
) -> None:
    """bins= on a relation: the engine's buckets are the hand-made ones; AUC, score table
    and curve equal the exact Polars views of the bucketed log, the bound is half the
    mixed buckets' pairs, and the exact AUC lies within it."""
    rng = np.random.default_rng(bins)
    log = continuous_log(bins).with_columns(
        n=pl.Series(rng.integers(0, 3, size=502)),
        w=pl.Series(np.where(rng.random(502) < 0.1, 0.0, rng.gamma(2.0, 0.7, size=502))),
    )
    weight = "w" if mass == "w" else None
    count = "n" if mass == "n" else None
    kw = {"by": "segment", "weight": weight, "count": count, "direction": direction}
    bucketed = by_hand_buckets(log, bins, by=["segment"], direction=direction, mass=mass)
    tol = {"check_exact": mass != "w", "rel_tol": 1e-12, "abs_tol": 1e-15}

    result = quietly(lambda: pr.roc_auc(relation(log), bins=bins, **kw))
    expected = quietly(lambda: pr.roc_auc(bucketed, **kw))
    assert result.columns == ["segment", "auc", "auc_bound", "n_pos", "n_neg"]
    assert_frame_equal(result.drop("auc_bound"), expected, **tol)
    bound = hand_bound(bucketed, ["segment"], mass)
    assert_frame_equal(
        result.select("segment", "auc_bound"),
        bound.sort("segment", nulls_last=False),
        check_exact=False,
        rel_tol=1e-12,
    )
    exact = quietly(lambda: pr.roc_auc(log, **kw))
    gap = (result["auc"] - exact["auc"]).abs()
    assert ((gap <= result["auc_bound"] + 1e-12) | result["auc"].is_null()).all()
    # Every view that takes bins= reads the same buckets: at most `bins` of finite
    # scores per segment, and one for each infinite score.
    table = quietly(lambda: pr.score_table(relation(log), bins=bins, **kw))
    assert_frame_equal(table, quietly(lambda: pr.score_table(bucketed, **kw)), **tol)
    finite = table.filter(pl.col("threshold").is_finite()).group_by("segment").len()
    assert finite["len"].max() <= bins
    assert_frame_equal(
        quietly(lambda: pr.roc_curve(relation(log), bins=bins, **kw)),
        quietly(lambda: pr.roc_curve(bucketed, **kw)),
        **tol,
    )


def test_engine_bins_without_groups_within_the_bound_of_scikit_learn() -> None:
    from sklearn.metrics import roc_auc_score

    log = continuous_log(4, n=3000).drop("segment")
    scores = log["score"].clip(-1e300, 1e300).to_numpy()
    exact = roc_auc_score(log["label"], scores)
    for bins in (2, 16, 256, 4096):
        result = pr.roc_auc(relation(log), bins=bins)
        auc, bound = result["auc"][0], result["auc_bound"][0]
        assert abs(auc - exact) <= bound + 1e-12
        assert_frame_equal(
            result.drop("auc_bound"),
            pr.roc_auc(by_hand_buckets(log, bins, by=[])),
            check_exact=True,
        )
    # Few distinct scores, one per bucket: no mixed bucket, bound 0, the exact AUC.
    rounded = log.with_columns(pl.col("score").clip(-3, 3).round(0))
    result = pr.roc_auc(relation(rounded), bins=64)
    assert result["auc_bound"][0] == 0.0
    assert result["auc"][0] == pr.roc_auc(rounded)["auc"][0]


def test_engine_bins_edge_cases_as_on_polars() -> None:
    log = continuous_log(5)
    # One-class and null segments: the Polars path's warning; empty input: its schema.
    with pytest.warns(UserWarning, match=r"1 group\(s\) \[segment='solo'\] hold only one class"):
        result = pr.roc_auc(relation(log), by="segment", bins=8)
    assert result.filter(pl.col("segment") == "solo")["auc_bound"].to_list() == [None]
    assert result["segment"].to_list() == [None, "a", "b", "solo"]
    empty = log.head(0)
    for view in (pr.roc_auc, pr.score_table, pr.roc_curve):
        for by in ("segment", None):
            assert_frame_equal(
                view(relation(empty), by=by, bins=8),
                view(empty, by=by, bins=8),  # type: ignore[operator]
            )
    # nulls="drop" and pos_label, on the engine's rows.
    labelled = log.with_columns(
        score=pl.when(pl.int_range(pl.len()) % 13 == 0).then(None).otherwise(pl.col("score")),
        kind=pl.when(pl.col("label") == 1).then(pl.lit("bad")).otherwise(pl.lit("good")),
    )
    kw = {"by": "segment", "label": "kind", "pos_label": "bad", "nulls": "drop"}
    dropped = by_hand_buckets(labelled.drop_nulls("score"), 8, by=["segment"])
    assert_frame_equal(
        quietly(lambda: pr.roc_auc(relation(labelled), bins=8, **kw)).drop("auc_bound"),
        quietly(lambda: pr.roc_auc(dropped, **kw)),
    )


BAD_INPUTS: list[tuple[str, pl.DataFrame, dict[str, object], type[Exception], str]] = [
    (
        "null score",
        pl.DataFrame({"score": [0.1, None, 0.3], "label": [0, 1, 1]}),
        {},
        RocInputError,
        r"score column 'score' has 1 null value\(s\)",
    ),
    (
        "NaN score",
        pl.DataFrame({"score": [0.1, float("nan"), 0.3], "label": [0, 1, 1]}),
        {},
        RocInputError,
        r"score column 'score' has 1 NaN value",
    ),
    (
        "label outside 0/1",
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 1, 2]}),
        {},
        RocInputError,
        r"holds values other than 0 and 1: \[0, 1, 2\]",
    ),
    (
        "absent pos_label",
        pl.DataFrame({"score": [0.1, 0.2], "label": ["a", "b"]}),
        {"pos_label": "x"},
        RocInputError,
        r"pos_label='x' does not occur in label column 'label'",
    ),
    (
        "negative weight",
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 1, 1], "w": [1.0, -1.0, 2.0]}),
        {"weight": "w"},
        RocInputError,
        r"weight column 'w' has 1 negative, NaN or infinite value",
    ),
    (
        "null weight",
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 1, 1], "w": [1.0, None, 2.0]}),
        {"weight": "w"},
        RocInputError,
        r"weight column 'w' has 1 null value\(s\)",
    ),
    (
        "fractional count",
        pl.DataFrame({"score": [0.1, 0.2, 0.3], "label": [0, 1, 1], "n": [1.0, 0.5, -2.0]}),
        {"count": "n"},
        RocInputError,
        r"count column 'n' has 1 negative value\(s\) and 1 non-integral value\(s\)",
    ),
    (
        "text score",
        pl.DataFrame({"score": ["a", "b"], "label": [0, 1]}),
        {},
        RocInputError,
        r"score column 'score' must be numeric",
    ),
    (
        "weight and count",
        pl.DataFrame({"score": [0.1, 0.2], "label": [0, 1], "n": [1, 1]}),
        {"weight": "n", "count": "n"},
        RocOptionError,
        r"pass either weight= or count=, not both",
    ),
    (
        "bins of 1",
        pl.DataFrame({"score": [0.1, 0.2], "label": [0, 1]}),
        {"bins": 1},
        ValueError,
        r"`bins` must be None or an integer from 2 to 16,777,216, got 1",
    ),
    (
        "by clashes",
        pl.DataFrame({"score": [0.1, 0.2], "label": [0, 1], "tp": [1, 1]}),
        {"by": "tp"},
        RocOptionError,
        r"`by` column\(s\) \['tp'\] collide with result columns",
    ),
]


@pytest.mark.parametrize("view", ["auc", "curve", "score_table"])
@pytest.mark.parametrize("case", BAD_INPUTS, ids=[case[0] for case in BAD_INPUTS])
def test_engine_bins_refuse_bad_input_with_the_polars_message(
    view: str, case: tuple[str, pl.DataFrame, dict[str, object], type[Exception], str]
) -> None:
    _, frame, kwargs, error, pattern = case
    call = {"auc": pr.roc_auc, "curve": pr.roc_curve, "score_table": pr.score_table}[view]
    options = {"bins": 4, **kwargs}
    with pytest.raises(error, match=pattern) as on_polars:
        call(frame, **options)  # type: ignore[operator]
    with pytest.raises(error, match=pattern) as on_engine:
        call(relation(frame), **options)  # type: ignore[operator]
    assert str(on_engine.value) == str(on_polars.value)
    # Without bins=, the curve of an engine frame checks its rows the same way.
    if view == "curve" and "bins" not in kwargs:
        with pytest.raises(error, match=pattern) as exact:
            call(relation(frame), **kwargs)  # type: ignore[operator]
        assert str(exact.value) == str(on_polars.value)


def test_engine_bins_with_interval_is_refused() -> None:
    with pytest.raises(RocOptionError, match=r"bins= gives a point estimate"):
        pr.roc_auc(relation(continuous_log(0)), bins=8, ci="delong")


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"direction": "lower"},
        {"drop_intermediate": True},
        {"local_maxima": True},
        {"cost_fp": 2.0},
        {"weight": "w"},
    ],
)
def test_engine_curves_are_the_polars_curves(kw: dict[str, object]) -> None:
    """Curves of many distinct scores come back whole from an engine, the very frame of
    the Polars path: bucketing happens only when asked (bins=)."""
    log = continuous_log(3, n=3000).with_columns(w=(pl.int_range(pl.len()) % 4) / 2)
    views = [pr.roc_curve, pr.pr_curve, pr.det_curve, pr.hull_auc, pr.roc_hull]
    for view in views if set(kw) <= {"direction", "weight"} else [pr.roc_curve]:
        got = quietly(partial(view, relation(log), by="segment", **kw))
        expected = quietly(partial(view, log, by="segment", **kw))
        assert_frame_equal(got, expected, check_exact="weight" not in kw, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"score": "scor"}, r"^score column 'scor' not found in the frame; did you mean .*'score'"),
        ({"label": "lable"}, r"^label column 'lable' not found in the frame"),
        ({"by": "segmnt"}, r"^by column 'segmnt' not found in the frame"),
        ({"weight": "weight"}, r"^weight column 'weight' not found in the frame"),
        ({"count": "m"}, r"^count column 'm' not found in the frame"),
    ],
)
def test_missing_columns_of_an_engine_frame_are_named_with_their_role(
    options: dict[str, str], message: str
) -> None:
    """As on a Polars frame, whichever view and counting path (GROUP BY per score,
    per threshold, buckets with bins=)."""
    log = make_log()
    for call in (
        lambda f: pr.score_table(f, **options),
        lambda f: pr.confusion_matrix(f, 0.5, **options),
        lambda f: pr.pr_curve(f, **options),
    ):
        with pytest.raises(pl.exceptions.ColumnNotFoundError, match=message):
            call(log)
        with pytest.raises(pl.exceptions.ColumnNotFoundError, match=message):
            call(relation(log))


def test_value_messages_count_rows_on_the_group_by_path() -> None:
    """The GROUP BY path checks the engine's count table, but its messages count the
    engine's rows (the cells' counts), as on a Polars frame: two null scores in one
    (segment, label) cell are two."""
    log = pl.DataFrame(
        {
            "score": [0.1, None, None, 0.3, float("nan"), float("nan"), 0.4],
            "label": [0, 1, 1, 0, 1, 1, 2],
            "g": ["a", "a", "a", "b", "b", "b", "b"],
        }
    )
    cases = [
        (log.head(4), r"score column 'score' has 2 null value"),
        (log.slice(3, 3), r"score column 'score' has 2 NaN value"),
        (log.tail(1).vstack(log.head(1)), r"label column 'label' \(Int64\) holds values other"),
    ]
    for frame, message in cases:
        for source in (frame, relation(frame)):
            with pytest.raises(RocInputError, match=message):
                pr.pr_curve(source, by="g")
