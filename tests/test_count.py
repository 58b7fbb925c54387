"""Count tables (``count=``): every view on the aggregated table equals the view on the rows.

A count table ``GROUP BY segment, score, label`` with ``n = count(*)`` is what a warehouse
hands over instead of the rows. The reference is always the same call on the expanded
rows; results must agree to 1e-12 with integer counts kept Int64.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError

Frame = pl.DataFrame | pl.LazyFrame

# name -> call(frame, **options). Options carry score/label/by and count or nothing.
VIEWS: dict[str, Callable[..., Frame]] = {
    "score_table": lambda f, **kw: pr.score_table(f, **kw),
    "curve": lambda f, **kw: pr.roc_curve(f, **kw),
    "curve_thin": lambda f, **kw: pr.roc_curve(f, drop_intermediate=True, **kw),
    "auc": lambda f, **kw: pr.roc_auc(f, **kw),
    "auc_delong": lambda f, **kw: pr.roc_auc(f, ci="delong", **kw),
    "auc_partial": lambda f, **kw: pr.roc_auc(f, max_fpr=0.3, **kw),
    "auc_bootstrap": lambda f, **kw: pr.roc_auc(f, ci="bootstrap", n_boot=50, seed=3, **kw),
    "confusion": lambda f, **kw: pr.confusion_matrix(f, [0.2, 0.5, 0.8], **kw),
    "pr_curve": lambda f, **kw: pr.pr_curve(f, **kw),
    "average_precision": lambda f, **kw: pr.pr_average_precision(f, **kw),
    "ks": lambda f, **kw: pr.ks_statistic(f, **kw),
    "gains": lambda f, **kw: pr.gains_table(f, 4, **kw),
    "lift": lambda f, **kw: pr.lift_curve(f, **kw),
    "hull": lambda f, **kw: pr.roc_hull(f, **kw),
    "hull_auc": lambda f, **kw: pr.hull_auc(f, **kw),
    "best_youden": lambda f, **kw: pr.best_threshold(f, "youden", **kw),
    "best_cost": lambda f, **kw: pr.best_threshold(f, "cost", cost_fn=4.0, **kw),
    "threshold_at": lambda f, **kw: pr.threshold_at(f, fpr=0.2, **kw),
    "tpr_at": lambda f, **kw: pr.tpr_at(f, [0.1, 0.5], **kw),
    "fpr_at": lambda f, **kw: pr.fpr_at(f, 0.5, **kw),
    "tpr_at_ci": lambda f, **kw: pr.tpr_at(f, 0.3, ci="bootstrap", n_boot=40, seed=1, **kw),
}


def make_log(seed: int, n: int, levels: int, groups: int, one_class: bool) -> pl.DataFrame:
    """Rows with tied scores, segments (one of them null) and maybe a one-class segment."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    score = np.round(rng.normal(label * 0.7, 1.0) * levels) / levels
    segment = rng.choice([*"abcdef"[:groups], None], size=n).tolist()
    log = pl.DataFrame(
        {"segment": pl.Series(segment, dtype=pl.String), "score": score, "label": label}
    )
    if one_class:
        log = pl.concat(
            [
                log,
                pl.DataFrame(
                    {"segment": ["solo"] * 3, "score": [0.1, 0.2, 0.2], "label": [1, 1, 1]}
                ),
            ]
        )
    return log


def counted(log: pl.DataFrame, *keys: str) -> pl.DataFrame:
    """The count table of ``log``: one row per distinct (keys), a count ``n``."""
    return log.group_by(*keys).len("n").sort(keys, nulls_last=True)


def quietly(call: Callable[[], Frame]) -> pl.DataFrame:
    """Run a view, collecting it, with its one-class warning (if any) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = call()
        return result.collect() if isinstance(result, pl.LazyFrame) else result


def assert_same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    assert_frame_equal(left, right, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("by", [None, "segment"])
def test_view_on_count_table_equals_view_on_rows(name: str, by: str | None) -> None:
    log = make_log(seed=7, n=400, levels=6, groups=4, one_class=by is not None)
    table = counted(log, "segment", "score", "label")
    view = VIEWS[name]
    expected = quietly(lambda: view(log, by=by))
    assert_same(quietly(lambda: view(table, by=by, count="n")), expected)
    assert_same(quietly(lambda: view(table.lazy(), by=by, count="n")), expected)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 200),
    levels=st.sampled_from([1, 3, 20, 1000]),
    groups=st.integers(1, 4),
    one_class=st.booleans(),
    name=st.sampled_from(
        [
            "score_table",
            "curve",
            "auc_delong",
            "confusion",
            "gains",
            "hull",
            "average_precision",
            "auc_bootstrap",
        ]
    ),
)
def test_count_table_property(
    seed: int, n: int, levels: int, groups: int, one_class: bool, name: str
) -> None:
    log = make_log(seed, n, levels, groups, one_class)
    table = counted(log, "segment", "score", "label")
    view = VIEWS[name]
    assert_same(
        quietly(lambda: view(table, by="segment", count="n")),
        quietly(lambda: view(log, by="segment")),
    )


def test_counts_stay_integers_and_zero_counts_add_nothing() -> None:
    log = make_log(seed=1, n=300, levels=5, groups=3, one_class=False)
    table = counted(log, "segment", "score", "label")
    padded = pl.concat(
        [
            table,
            pl.DataFrame(
                {"segment": ["a", "b"], "score": [9.5, -7.25], "label": [1, 0], "n": [0, 0]},
                schema=table.schema,
            ),
        ]
    )
    result = pr.roc_curve(padded, by="segment", count="n")
    assert result.schema["tp"] == pl.Int64 and result.schema["fn"] == pl.Int64
    assert 9.5 not in result["threshold"] and -7.25 not in result["threshold"]
    assert_same(result, pr.roc_curve(log, by="segment"))
    # Float counts that are whole numbers are counts too.
    floats = table.with_columns(pl.col("n").cast(pl.Float64))
    assert_same(
        pr.roc_auc(floats, by="segment", count="n", ci="delong"),
        pr.roc_auc(log, by="segment", ci="delong"),
    )


def test_bootstrap_draws_the_units_not_the_cells() -> None:
    """The bootstrap resamples the cases a count stands for: with the same seed it is the
    row-level bootstrap, draw for draw (and not the wider one of resampled cells)."""
    log = pr.datasets.load_credit()
    table = counted(log, "segment", "score", "label")
    options = {"by": "segment", "ci": "bootstrap", "n_boot": 300, "seed": 11}
    on_table = pr.roc_auc(table, count="n", **options)
    assert_same(on_table, pr.roc_auc(log, **options))
    as_weights = pr.roc_auc(table, weight="n", **options)
    # Resampling 1,401 cells as if each were one row inflates the standard error.
    assert (as_weights["auc_se"] > 1.2 * on_table["auc_se"]).all()


def test_paired_compare_on_a_count_table_of_score_pairs() -> None:
    log = pr.datasets.load_credit()
    pairs = counted(log, "segment", "score", "score_challenger", "label")
    for method in ("delong", "bootstrap"):
        options = {"by": "segment", "ci": method}
        if method == "bootstrap":
            options |= {"n_boot": 100, "seed": 5}
        expected = pr.compare(log, ["score", "score_challenger"], **options)
        assert_same(
            pr.compare(pairs, ["score", "score_challenger"], count="n", **options), expected
        )


def test_compare_groups_and_fold_summary_on_count_tables() -> None:
    log = pr.datasets.load_credit()
    table = counted(log, "segment", "month", "score", "label")
    assert_same(
        pr.compare_groups(table, by="segment", groups=("retail", "sme"), count="n"),
        pr.compare_groups(log, by="segment", groups=("retail", "sme")),
    )
    assert_same(
        pr.fold_summary(table, fold="month", threshold=0.2, count="n"),
        pr.fold_summary(log, fold="month", threshold=0.2),
    )


def test_multiclass_on_a_count_table() -> None:
    rng = np.random.default_rng(4)
    n = 500
    label = rng.choice(["cat", "dog", "owl"], size=n)
    probs = {k: np.round(rng.uniform(size=n) + (label == k), 1) for k in ("cat", "dog", "owl")}
    log = pl.DataFrame({"label": label, **{f"p_{k}": v for k, v in probs.items()}})
    scores = {k: f"p_{k}" for k in probs}
    table = counted(log, "label", *scores.values())
    for method in ("ovr", "hand_till"):
        for average in ("macro", "weighted"):
            assert_same(
                pr.multiclass_auc(table, scores, count="n", method=method, average=average),
                pr.multiclass_auc(log, scores, method=method, average=average),
            )
    assert_same(
        pr.multiclass_confusion(table, scores, count="n"), pr.multiclass_confusion(log, scores)
    )
    assert_same(
        pr.multiclass_measures(table, scores, count="n", average="macro"),
        pr.multiclass_measures(log, scores, average="macro"),
    )


def test_namespace_and_direction_with_counts() -> None:
    log = make_log(seed=3, n=200, levels=8, groups=2, one_class=False)
    table = counted(log, "segment", "score", "label")
    assert_same(
        table.roc.curve(by="segment", count="n", direction="lower"),
        log.roc.curve(by="segment", direction="lower"),
    )


@pytest.mark.parametrize(
    ("values", "dtype", "message"),
    [
        ([1, -2, 3], pl.Int64, r"count column 'n' has 1 negative value\(s\)"),
        ([1.0, 2.5, 3.0], pl.Float64, r"count column 'n' has 1 non-integral value\(s\)"),
        (
            [1.0, float("nan"), float("inf")],
            pl.Float64,
            r"count column 'n' has 2 NaN or infinite value\(s\)",
        ),
        ([1, None, 3], pl.Int64, r"count column 'n' has 1 null value\(s\); fill them"),
        (["1", "2", "3"], pl.String, r"count column 'n' must be numeric, got dtype String"),
    ],
)
def test_bad_counts_are_refused_naming_the_column(
    values: list[object], dtype: pl.DataType, message: str
) -> None:
    frame = pl.DataFrame(
        {"score": [0.1, 0.5, 0.9], "label": [0, 1, 1], "n": values}, schema_overrides={"n": dtype}
    )
    with pytest.raises(RocInputError, match=message):
        pr.roc_auc(frame, count="n")
    with pytest.raises(RocInputError, match=message):
        frame.lazy().roc.curve(count="n")


def test_count_with_weight_and_count_in_folds_are_refused() -> None:
    frame = pl.DataFrame({"score": [0.1, 0.9], "label": [0, 1], "n": [2, 3], "w": [1.0, 2.0]})
    with pytest.raises(RocOptionError, match=r"pass either weight= or count=, not both"):
        pr.roc_auc(frame, weight="w", count="n")
    with pytest.raises(RocOptionError, match=r"expand the count table into rows first"):
        pr.folds(frame, count="n")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"count column 'm' not found"):
        pr.roc_auc(frame, count="m")


def test_delong_with_weights_points_to_count() -> None:
    frame = pl.DataFrame({"score": [0.1, 0.9, 0.4], "label": [0, 1, 1], "n": [2, 3, 1]})
    with pytest.raises(ValueError, match=r"pass the column as count='n'"):
        pr.roc_auc(frame, weight="n", ci="delong")
