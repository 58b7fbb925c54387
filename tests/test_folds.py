"""Fold assignment, summaries across folds and the .632 bootstrap (polars_roc.evaluation.folds)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import accuracy_score, recall_score, roc_auc_score
from sklearn.model_selection import StratifiedKFold

import polars_roc as pr

KINDS = ["eager", "lazy"]


def as_kind(frame: pl.DataFrame, kind: str) -> pl.DataFrame | pl.LazyFrame:
    return frame if kind == "eager" else frame.lazy()


def collected(result: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return result.collect() if isinstance(result, pl.LazyFrame) else result


def rows(n: int, *, labels: list | None = None) -> pl.DataFrame:
    labels = labels if labels is not None else [i % 3 == 0 for i in range(n)]
    return pl.DataFrame({"id": range(n), "label": labels})


# --- k-fold ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("n", "k"), [(23, 5), (10, 10), (7, 2), (100, 3)])
def test_kfold_sizes_differ_by_at_most_one(kind: str, n: int, k: int) -> None:
    result = pr.folds(as_kind(rows(n), kind), k=k, seed=7)
    assert isinstance(result, pl.LazyFrame if kind == "lazy" else pl.DataFrame)
    out = collected(result)
    assert out.columns == ["id", "label", "fold"]
    assert out["fold"].dtype == pl.Int64
    assert out["id"].to_list() == list(range(n))  # rows keep their order
    sizes = sorted(out["fold"].value_counts()["count"].to_list())
    expected = sorted([n // k + 1] * (n % k) + [n // k] * (k - n % k))
    assert sizes == expected
    assert set(out["fold"]) == set(range(k))


def test_kfold_is_deterministic_per_seed_and_engine() -> None:
    frame = rows(50)
    first = pr.folds(frame, k=5, seed=11)
    assert_frame_equal(first, pr.folds(frame, k=5, seed=11))
    streaming = pr.folds(frame.lazy(), k=5, seed=11).collect(engine="streaming")
    assert_frame_equal(first, streaming)
    other = pr.folds(frame, k=5, seed=12)
    assert first["fold"].to_list() != other["fold"].to_list()


def test_kfold_is_not_a_plain_round_robin() -> None:
    fold = pr.folds(rows(60), k=3, seed=0)["fold"].to_list()
    assert fold != [i % 3 for i in range(60)]


def test_repeated_kfold_partitions_every_repeat() -> None:
    n, k, repeats = 17, 4, 3
    out = pr.folds(rows(n), k=k, repeats=repeats, seed=5)
    assert out.columns == ["id", "label", "repeat", "fold"]
    assert out.height == n * repeats
    # Every row is in exactly one test fold per repeat.
    per_row = out.group_by("repeat", "id").len()
    assert per_row["len"].to_list() == [1] * (n * repeats)
    for repeat in range(repeats):
        sizes = sorted(out.filter(pl.col("repeat") == repeat)["fold"].value_counts()["count"])
        assert sizes == [4, 4, 4, 5]
    by_repeat = [out.filter(pl.col("repeat") == r)["fold"].to_list() for r in range(repeats)]
    assert by_repeat[0] != by_repeat[1]


def test_no_row_in_two_test_folds() -> None:
    out = pr.folds(rows(31), k=6, seed=3)
    test_sets = [set(out.filter(pl.col("fold") == f)["id"]) for f in range(6)]
    for i in range(6):
        for j in range(i + 1, 6):
            assert not test_sets[i] & test_sets[j]
    assert set().union(*test_sets) == set(range(31))


# --- stratified k-fold ----------------------------------------------------------------


def sklearn_fold_class_counts(labels: list, k: int) -> dict[tuple[int, object], int]:
    y = np.array(labels)
    splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=0)
    counts: dict[tuple[int, object], int] = {}
    for fold, (_, test) in enumerate(splitter.split(np.zeros(len(y)), y)):
        values, freq = np.unique(y[test], return_counts=True)
        for value, count in zip(values.tolist(), freq.tolist(), strict=True):
            counts[(fold, value)] = count
    return counts


def our_fold_class_counts(out: pl.DataFrame, stratify: str = "label") -> dict:
    grouped = out.group_by("fold", stratify).len()
    return {(row["fold"], row[stratify]): row["len"] for row in grouped.iter_rows(named=True)}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("labels", "k"),
    [
        ([0] * 20 + [1] * 7, 5),
        (["a"] * 11 + ["b"] * 9 + ["c"] * 13, 4),
        ([1, 0] * 15, 3),
    ],
)
def test_stratified_counts_match_sklearn(kind: str, labels: list, k: int) -> None:
    frame = pl.DataFrame({"id": range(len(labels)), "label": labels})
    out = collected(pr.folds(as_kind(frame, kind), method="stratified", k=k, seed=2))
    assert our_fold_class_counts(out) == sklearn_fold_class_counts(labels, k)
    sizes = out["fold"].value_counts()["count"]
    assert sizes.max() - sizes.min() <= 1


@settings(max_examples=25, deadline=None)
@given(
    labels=st.lists(st.sampled_from(["x", "y", "z"]), min_size=12, max_size=60),
    k=st.integers(2, 4),
    seed=st.integers(0, 2**64 - 1),
)
def test_stratified_proportions_property(labels: list, k: int, seed: int) -> None:
    counts = {value: labels.count(value) for value in set(labels)}
    if min(counts.values()) < k:
        return  # scikit-learn warns about too few members; nothing to compare
    frame = pl.DataFrame({"cls": labels})
    out = pr.folds(frame, method="stratified", stratify="cls", k=k, seed=seed)
    found = our_fold_class_counts(out, "cls")
    for (_, value), count in found.items():
        assert math.floor(counts[value] / k) <= count <= math.ceil(counts[value] / k)
    expected = sklearn_fold_class_counts(labels, k)
    assert found == {key: v for key, v in expected.items()}


def test_stratified_defaults_to_label_and_keeps_null_class() -> None:
    frame = pl.DataFrame({"label": [None, None, None, 1, 1, 1, 0, 0, 0]})
    out = pr.folds(frame, method="stratified", k=3, seed=4)
    for value in (None, 0, 1):
        subset = out.filter(pl.col("label").eq_missing(value))
        assert sorted(subset["fold"]) == [0, 1, 2]


# --- holdout, subsample, leave-one-out ------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_holdout_trains_on_two_thirds_by_default(kind: str) -> None:
    out = collected(pr.folds(as_kind(rows(30), kind), method="holdout", seed=9))
    assert out.columns == ["id", "label", "fold", "split"]
    assert out["fold"].to_list() == [0] * 30
    assert out["split"].value_counts(sort=True).rows() == [("train", 20), ("test", 10)]


@pytest.mark.parametrize(("n", "test_size", "n_test"), [(10, 1 / 3, 4), (30, 0.1, 3), (7, 0.5, 4)])
def test_holdout_test_size_is_ceil_as_sklearn(n: int, test_size: float, n_test: int) -> None:
    out = pr.folds(rows(n), method="holdout", test_size=test_size, seed=1)
    assert (out["split"] == "test").sum() == n_test


def test_stratified_holdout_per_class() -> None:
    frame = rows(30, labels=[1] * 9 + [0] * 21)
    out = pr.folds(frame, method="holdout", stratify="label", seed=1)
    tested = out.filter(pl.col("split") == "test").group_by("label").len().sort("label")
    assert tested.rows() == [(0, 7), (1, 3)]


def test_subsample_repeats_differ() -> None:
    out = pr.folds(rows(24), method="subsample", repeats=4, test_size=0.25, seed=3)
    assert out.height == 96
    tests = out.filter(pl.col("split") == "test")
    assert tests.group_by("fold").len().sort("fold")["len"].to_list() == [6] * 4
    sets = {frozenset(tests.filter(pl.col("fold") == r)["id"]) for r in range(4)}
    assert len(sets) > 1


@pytest.mark.parametrize("kind", KINDS)
def test_leave_one_out_gives_n_folds(kind: str) -> None:
    out = collected(pr.folds(as_kind(rows(9), kind), method="loo"))
    assert out["fold"].to_list() == list(range(9))
    assert out["fold"].n_unique() == 9


# --- bootstrap ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_bootstrap_in_bag_counts(kind: str) -> None:
    n, replicates = 400, 5
    frame = as_kind(rows(n), kind)
    out = collected(pr.folds(frame, method="bootstrap", repeats=replicates, seed=8))
    assert out.columns == ["id", "label", "fold", "in_bag", "oob"]
    assert out.height == n * replicates
    assert out["in_bag"].dtype == pl.Int64
    per_replicate = out.group_by("fold").agg(
        pl.col("in_bag").sum(), pl.col("oob").mean(), pl.col("id").n_unique()
    )
    assert per_replicate["in_bag"].to_list() == [n] * replicates
    assert per_replicate["id"].to_list() == [n] * replicates
    # About (1 - 1/n)^n ~ 36.8% of the rows are out of bag.
    for share in per_replicate["oob"]:
        assert abs(share - (1 - 1 / n) ** n) < 0.06
    assert (out["oob"] == (out["in_bag"] == 0)).all()
    first = out.filter(pl.col("fold") == 0)["in_bag"].to_list()
    second = out.filter(pl.col("fold") == 1)["in_bag"].to_list()
    assert first != second
    assert out.filter(pl.col("fold") == 0)["id"].to_list() == list(range(n))


def test_bootstrap_is_deterministic() -> None:
    frame = rows(40)
    assert_frame_equal(
        pr.folds(frame, method="bootstrap", repeats=3, seed=1),
        pr.folds(frame.lazy(), method="bootstrap", repeats=3, seed=1).collect(engine="streaming"),
    )


def test_namespace_folds() -> None:
    frame = rows(12)
    assert_frame_equal(frame.roc.folds(k=4, seed=2), pr.folds(frame, k=4, seed=2))


# --- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "jackknife"}, ValueError, "`method` must be one of"),
        ({"k": 1}, ValueError, "`k` must be an integer >= 2"),
        ({"method": "stratified", "k": 2.5}, ValueError, "`k` must be an integer >= 2"),
        ({"method": "holdout", "test_size": 1.5}, ValueError, "strictly between 0 and 1"),
        ({"repeats": 0}, ValueError, "`repeats` must be a positive integer"),
        ({"method": "holdout", "repeats": 2}, ValueError, "use method='subsample'"),
        ({"method": "loo", "repeats": 3}, ValueError, "makes one split"),
        ({"stratify": "label"}, ValueError, "use method='stratified'"),
        ({"seed": 1.5}, TypeError, "`seed` must be an integer"),
        (
            {"method": "stratified", "stratify": "klass"},
            pl.exceptions.ColumnNotFoundError,
            "stratify column 'klass' not found; pass `stratify=` the label column",
        ),
        ({"name": "id"}, ValueError, r"already has column\(s\) \['id'\]"),
    ],
)
def test_folds_errors(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        pr.folds(rows(10), **kwargs)


@pytest.mark.parametrize("kind", ["eager", "lazy"])
@pytest.mark.parametrize("method", ["kfold", "stratified"])
def test_folds_refuses_more_folds_than_rows(method: str, kind: str) -> None:
    # scikit-learn's KFold refuses n_splits > n_samples; so do we, before any work.
    frame = rows(3) if kind == "eager" else rows(3).lazy()
    with pytest.raises(
        ValueError,
        match=r"^k=5 folds need at least 5 rows, got 3: some "
        r"folds would be empty; pass a smaller `k` \(at most 3\) or "
        r"method='loo'$",
    ):
        pr.folds(frame, method=method, k=5)
    assert pr.folds(frame, method=method, k=3, seed=1).lazy().collect()["fold"].n_unique() == 3


def test_folds_rejects_non_frames() -> None:
    with pytest.raises(TypeError, match=r"folds\(\) takes a polars DataFrame or LazyFrame only"):
        pr.folds({"id": [1, 2]})  # type: ignore[arg-type]


# --- fold_summary ---------------------------------------------------------------------


def predictions(n_folds: int = 4, per_fold: int = 30, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = n_folds * per_fold
    label = rng.integers(0, 2, n)
    score = np.round(rng.normal(label * 0.8, 1.0), 1)  # rounded: ties within folds
    return pl.DataFrame(
        {
            "segment": np.where(np.arange(n) % 2 == 0, "north", "south"),
            "fold": np.repeat(np.arange(n_folds), per_fold),
            "score": score,
            "label": label,
        }
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("by", [None, "segment"])
def test_fold_summary_auc_against_sklearn(kind: str, by: str | None) -> None:
    preds = predictions()
    result = collected(pr.fold_summary(as_kind(preds, kind), by=by))
    segments = ["north", "south"] if by else [None]
    stats = ["metric", "n_folds", "mean", "std", "min", "max"]
    assert result.columns == [*([by] if by else []), *stats]
    for i, segment in enumerate(segments):
        subset = preds if segment is None else preds.filter(pl.col("segment") == segment)
        aucs = [
            roc_auc_score(part["label"], part["score"])
            for _, part in subset.group_by("fold", maintain_order=True)
        ]
        row = result.row(i, named=True)
        assert row["metric"] == "auc"
        assert row["n_folds"] == 4
        assert row["mean"] == pytest.approx(np.mean(aucs), abs=1e-12)
        assert row["std"] == pytest.approx(np.std(aucs, ddof=1), abs=1e-12)
        assert row["min"] == pytest.approx(min(aucs), abs=1e-12)
        assert row["max"] == pytest.approx(max(aucs), abs=1e-12)


def test_fold_summary_measures_at_threshold() -> None:
    preds = predictions()
    result = pr.fold_summary(preds, threshold=0.3, metrics=["accuracy", "tpr"])
    assert result["metric"].to_list() == ["auc", "accuracy", "tpr"]
    parts = [part for _, part in preds.group_by("fold", maintain_order=True)]
    accuracy = [accuracy_score(p["label"], p["score"] >= 0.3) for p in parts]
    recall = [recall_score(p["label"], p["score"] >= 0.3) for p in parts]
    rows_by_metric = {row["metric"]: row for row in result.iter_rows(named=True)}
    assert rows_by_metric["accuracy"]["mean"] == pytest.approx(np.mean(accuracy), abs=1e-12)
    assert rows_by_metric["tpr"]["std"] == pytest.approx(np.std(recall, ddof=1), abs=1e-12)
    default = pr.fold_summary(preds, threshold=0.3)
    assert default["metric"].to_list() == ["auc", "accuracy", "tpr", "fpr", "ppv", "f1"]


def test_fold_summary_leaves_out_single_class_folds() -> None:
    preds = pl.DataFrame(
        {
            "fold": [0, 0, 0, 1, 1, 1],
            "score": [0.9, 0.2, 0.4, 0.5, 0.6, 0.7],
            "label": [1, 0, 1, 1, 1, 1],
        }
    )
    with pytest.warns(UserWarning, match=r"fold=1.*only one class"):
        result = pr.fold_summary(preds)
    assert result.select("n_folds", "mean").row(0) == (1, 1.0)
    assert result["std"].to_list() == [None]


def test_fold_summary_namespace_and_errors() -> None:
    preds = predictions()
    assert_frame_equal(preds.roc.summary(by="segment"), pr.fold_summary(preds, by="segment"))
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="fold column 'split' not found"):
        pr.fold_summary(preds, fold="split")
    with pytest.raises(ValueError, match="cannot also be a `by` column"):
        pr.fold_summary(preds, by="fold")
    with pytest.raises(ValueError, match="pass `threshold=`"):
        pr.fold_summary(preds, metrics=["f1"])
    with pytest.raises(ValueError, match=r"`metrics` must name confusion measures.*'auroc'"):
        pr.fold_summary(preds, threshold=0.5, metrics=["auroc"])
    with pytest.raises(ValueError, match="`threshold` must be a number or None"):
        pr.fold_summary(preds, threshold=float("nan"))


# --- .632 bootstrap -------------------------------------------------------------------


def test_bootstrap632_expression_hand_computed() -> None:
    per_replicate = pl.DataFrame({"train": [0.9, 0.95, 1.0], "test": [0.7, 0.8, 0.6]})
    # (0.632*0.7 + 0.368*0.9 + 0.632*0.8 + 0.368*0.95 + 0.632*0.6 + 0.368*1.0) / 3
    expected = (0.4424 + 0.3312 + 0.5056 + 0.3496 + 0.3792 + 0.368) / 3
    value = per_replicate.select(pr.bootstrap632("train", "test")).item()
    assert value == pytest.approx(expected, abs=1e-12)
    # Seed 001 writes a sum over replicates: three times too large here.
    seed_formula = 0.4424 + 0.3312 + 0.5056 + 0.3496 + 0.3792 + 0.368
    assert seed_formula > 1 > value
    grouped = pl.DataFrame({"g": ["a", "a", "b"], "tr": [1.0, 0.5, 0.8], "te": [0.5, 0.5, 0.6]})
    out = grouped.group_by("g", maintain_order=True).agg(pr.bootstrap632(pl.col("tr"), "te"))
    expected = [0.5 * 0.632 + 0.75 * 0.368, 0.6 * 0.632 + 0.8 * 0.368]
    assert out["bootstrap632"].to_list() == pytest.approx(expected)
    with pytest.raises(TypeError, match="`train` must be a column name or a polars expression"):
        pr.bootstrap632(1.0, "te")  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", KINDS)
def test_bootstrap632_summary_hand_computed(kind: str) -> None:
    preds = pl.DataFrame(
        {
            "fold": [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1],
            "in_bag": [2, 1, 1, 0, 2, 0, 0, 3, 1, 0, 0, 2],
            "score": [0.9, 0.2, 0.3, 0.6, 0.1, 0.2, 0.9, 0.2, 0.3, 0.6, 0.1, 0.2],
            "label": [1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0],
        }
    )
    # Replicate 0, in bag: positives 0.9 (x2), 0.2; negatives 0.3, 0.1 (x2): of the
    # 3 x 3 weighted pairs, 0.9 wins 3 + 3... = 6, 0.2 beats 0.1 twice: 8/9.
    # Out of bag: positive 0.6 over negative 0.2: 1.
    # Replicate 1, in bag: positive 0.2 (x3); negatives 0.3, 0.2 (x2): the tie counts
    # one half, 3 * 2 / 2 = 3 of 9: 1/3. Out of bag: 0.9, 0.6 over 0.1: 1.
    train = (8 / 9 + 1 / 3) / 2
    estimate = ((0.632 + 0.368 * 8 / 9) + (0.632 + 0.368 / 3)) / 2
    result = collected(pr.bootstrap632_summary(as_kind(preds, kind)))
    assert result.columns == ["metric", "n_replicates", "train", "test", "estimate"]
    row = result.row(0, named=True)
    assert row["n_replicates"] == 2
    assert row["train"] == pytest.approx(train, abs=1e-12)
    assert row["test"] == pytest.approx(1.0, abs=1e-12)
    assert row["estimate"] == pytest.approx(estimate, abs=1e-12)


def test_bootstrap632_summary_accuracy_and_namespace() -> None:
    preds = pl.DataFrame(
        {
            "fold": [0, 0, 0, 0],
            "in_bag": [3, 0, 1, 0],
            "score": [0.8, 0.7, 0.6, 0.6],
            "label": [1, 1, 0, 0],
        }
    )
    result = preds.roc.bootstrap632(threshold=0.5, metrics=["accuracy"])
    # Train: 0.8 (x3) right, 0.6 wrong: 3/4. Test: 0.7 right, 0.6 wrong: 1/2.
    accuracy = result.filter(pl.col("metric") == "accuracy").row(0, named=True)
    assert accuracy["train"] == pytest.approx(0.75)
    assert accuracy["test"] == pytest.approx(0.5)
    assert accuracy["estimate"] == pytest.approx(0.632 * 0.5 + 0.368 * 0.75)
    with pytest.raises(ValueError, match="in_bag column 'in_bag' must hold integer counts"):
        pr.bootstrap632_summary(preds.with_columns(pl.col("in_bag").cast(pl.Float64)))
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="in_bag column 'bag' not found"):
        pr.bootstrap632_summary(preds, in_bag="bag")


def test_bootstrap_roundtrip_with_folds() -> None:
    """folds(method='bootstrap') output feeds bootstrap632_summary directly."""
    rng = np.random.default_rng(3)
    frame = pl.DataFrame({"label": rng.integers(0, 2, 80), "x": rng.normal(size=80)})
    boot = pr.folds(frame, method="bootstrap", repeats=4, seed=5)
    preds = boot.with_columns((pl.col("x") + pl.col("label")).alias("score"))
    result = pr.bootstrap632_summary(preds)
    per_replicate = []
    for replicate in range(4):
        part = preds.filter(pl.col("fold") == replicate)
        bag = part.filter(pl.col("in_bag") > 0)
        oob = part.filter(pl.col("in_bag") == 0)
        train = roc_auc_score(bag["label"], bag["score"], sample_weight=bag["in_bag"])
        test = roc_auc_score(oob["label"], oob["score"])
        per_replicate.append(0.632 * test + 0.368 * train)
    assert result["estimate"].item() == pytest.approx(np.mean(per_replicate), abs=1e-12)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "kfold", "k": 4, "repeats": 2},
        {"method": "stratified", "k": 3},
        {"method": "holdout", "stratify": "label"},
        {"method": "subsample", "repeats": 3},
        {"method": "bootstrap", "repeats": 2},
    ],
)
def test_every_method_is_the_same_on_every_engine(kwargs: dict) -> None:
    frame = rows(37)
    eager = pr.folds(frame, seed=21, **kwargs)
    streaming = pr.folds(frame.lazy(), seed=21, **kwargs).collect(engine="streaming")
    assert_frame_equal(eager, streaming)
    assert_frame_equal(eager, pr.folds(frame, seed=21, **kwargs))


def test_fold_summary_weighted_against_sklearn() -> None:
    preds = predictions().with_columns((pl.int_range(pl.len()) % 3 + 1).cast(pl.Float64).alias("w"))
    result = pr.fold_summary(preds, weight="w")
    aucs = [
        roc_auc_score(part["label"], part["score"], sample_weight=part["w"])
        for _, part in preds.group_by("fold", maintain_order=True)
    ]
    assert result["mean"].item() == pytest.approx(np.mean(aucs), abs=1e-12)


def test_bootstrap632_summary_per_segment() -> None:
    rng = np.random.default_rng(9)
    frame = pl.DataFrame(
        {
            "segment": np.where(np.arange(120) % 2 == 0, "a", "b"),
            "label": rng.integers(0, 2, 120),
            "x": rng.normal(size=120),
        }
    )
    preds = pr.folds(frame, method="bootstrap", repeats=3, seed=2).with_columns(
        (pl.col("x") + pl.col("label")).alias("score")
    )
    result = pr.bootstrap632_summary(preds.lazy(), by="segment").collect()
    assert result["segment"].to_list() == ["a", "b"]
    per_replicate = []
    for replicate in range(3):
        p = preds.filter((pl.col("segment") == "b") & (pl.col("fold") == replicate))
        b, o = p.filter(pl.col("in_bag") > 0), p.filter(pl.col("oob"))
        per_replicate.append(
            (
                roc_auc_score(b["label"], b["score"], sample_weight=b["in_bag"]),
                roc_auc_score(o["label"], o["score"]),
            )
        )
    row = result.row(1, named=True)
    assert row["train"] == pytest.approx(np.mean([t for t, _ in per_replicate]), abs=1e-12)
    assert row["test"] == pytest.approx(np.mean([t for _, t in per_replicate]), abs=1e-12)


@pytest.mark.parametrize("method", ["kfold", "stratified", "subsample", "bootstrap"])
def test_first_repeat_does_not_depend_on_repeats(method: str) -> None:
    frame = rows(29)
    single = pr.folds(frame, method=method, k=3, seed=4)
    repeated = pr.folds(frame, method=method, k=3, seed=4, repeats=3)
    column = "repeat" if method in ("kfold", "stratified") else "fold"
    first = repeated.filter(pl.col(column) == 0)
    if column == "repeat":
        first = first.drop("repeat")
    assert_frame_equal(single, first)


@pytest.mark.parametrize("method", ["kfold", "stratified", "holdout", "loo", "bootstrap"])
def test_empty_input(method: str) -> None:
    empty = pl.DataFrame(schema={"label": pl.Int64})
    assert pr.folds(empty, method=method).height == 0
    preds = pl.DataFrame(schema={"fold": pl.Int64, "score": pl.Float64, "label": pl.Int64})
    assert pr.fold_summary(preds, threshold=0.5).height == 0


def numpy_splitmix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 on uint64 arrays (numpy arrays wrap on overflow)."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@pytest.mark.parametrize("seed", [0, 12345, 2**63 + 7])
def test_kfold_is_splitmix64_ranking(seed: int) -> None:
    """The documented generator, re-implemented in numpy, gives the same folds."""
    n, k = 50, 4
    stream = numpy_splitmix64(numpy_splitmix64(np.array([seed], dtype=np.uint64)) ^ np.uint64(0))
    keys = numpy_splitmix64(stream ^ np.arange(n, dtype=np.uint64))
    expected = np.argsort(np.argsort(keys, kind="stable"), kind="stable") % k
    assert pr.folds(rows(n), k=k, seed=seed)["fold"].to_list() == expected.tolist()


def test_fold_summary_null_segment_is_a_group() -> None:
    preds = predictions()
    named = pr.fold_summary(
        preds.with_columns(pl.lit("s").alias("segment")), by="segment", threshold=0.3
    )
    nulled = pr.fold_summary(
        preds.with_columns(pl.lit(None, dtype=pl.String).alias("segment")),
        by="segment",
        threshold=0.3,
    )
    assert nulled["segment"].is_null().all()
    assert_frame_equal(nulled.drop("segment"), named.drop("segment"))


def test_summaries_reject_non_frames_and_bad_fold_names() -> None:
    with pytest.raises(TypeError, match="or a polars DataFrame or LazyFrame, got dict"):
        pr.fold_summary({"fold": [0]})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="`fold` must be a column name"):
        pr.bootstrap632_summary(predictions(), fold=3)  # type: ignore[arg-type]
