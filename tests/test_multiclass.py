"""Multi-class ROC: one-vs-rest, multi-class AUC, k x k confusion (evaluation.multiclass).

The univariate multi-class AUC is checked against pROC 1.18's ``multiclass.roc`` on
aSAH (``fixtures/proc_multiclass.csv``, exported by ``fixtures/proc_smooth.R``) and
against a port of its definition on random data.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import (
    confusion_matrix,
    fbeta_score,
    precision_recall_fscore_support,
    roc_auc_score,
)

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError

FIXTURES = Path(__file__).parent / "fixtures"
KINDS = ["eager", "lazy"]
CLASSES = ["bird", "cat", "dog"]
SCORES = {c: f"p_{c}" for c in CLASSES}


def as_kind(frame: pl.DataFrame, kind: str) -> pl.DataFrame | pl.LazyFrame:
    return frame if kind == "eager" else frame.lazy()


def collected(result: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return result.collect() if isinstance(result, pl.LazyFrame) else result


def prediction_log(n: int = 90, seed: int = 0, classes: list = CLASSES) -> pl.DataFrame:
    """Probabilities that sum to one; rows drawn from a small pool, so scores tie."""
    rng = np.random.default_rng(seed)
    k = len(classes)
    pool_y = rng.integers(0, k, 30)
    logits = rng.normal(size=(30, k))
    logits[np.arange(30), pool_y] += 1.2
    pool_p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    pick = rng.integers(0, 30, n)
    y = pool_y[pick]
    y[:k] = np.arange(k)  # every class present
    p = pool_p[pick]
    return pl.DataFrame(
        {
            "segment": np.where(np.arange(n) % 3 == 0, "east", "west"),
            "label": [classes[i] for i in y],
            **{f"p_{c}": p[:, i] for i, c in enumerate(classes)},
            "weight": rng.integers(1, 5, n).astype(float),
        }
    )


def sk_inputs(frame: pl.DataFrame, classes: list = CLASSES) -> tuple[np.ndarray, np.ndarray]:
    return frame["label"].to_numpy(), frame.select(f"p_{c}" for c in classes).to_numpy()


# --- multiclass_auc -------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("method", "sk_method"), [("ovr", "ovr"), ("hand_till", "ovo")])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_multiclass_auc_matches_sklearn(
    kind: str, method: str, sk_method: str, average: str
) -> None:
    log = prediction_log()
    result = collected(
        pr.multiclass_auc(as_kind(log, kind), SCORES, method=method, average=average)
    )
    y, p = sk_inputs(log)
    expected = roc_auc_score(y, p, multi_class=sk_method, average=average)
    assert result.columns == ["auc", "n_terms"]
    assert result["auc"].item() == pytest.approx(expected, abs=1e-9)
    assert result["n_terms"].item() == 3


@pytest.mark.parametrize(("method", "sk_method"), [("ovr", "ovr"), ("hand_till", "ovo")])
def test_multiclass_auc_per_segment(method: str, sk_method: str) -> None:
    log = prediction_log(n=150, seed=1)
    result = pr.multiclass_auc(log, SCORES, by="segment", method=method, average="weighted")
    assert result["segment"].to_list() == ["east", "west"]
    for segment, value in result.select("segment", "auc").iter_rows():
        y, p = sk_inputs(log.filter(pl.col("segment") == segment))
        expected = roc_auc_score(y, p, multi_class=sk_method, average="weighted")
        assert value == pytest.approx(expected, abs=1e-9)


def test_multiclass_auc_integer_labels_four_classes() -> None:
    classes = [0, 1, 2, 3]
    log = prediction_log(n=120, seed=2, classes=classes)
    scores = {c: f"p_{c}" for c in classes}
    y, p = sk_inputs(log, classes)
    for method, sk_method in (("ovr", "ovr"), ("hand_till", "ovo")):
        ours = pr.multiclass_auc(log, scores, method=method)["auc"].item()
        assert ours == pytest.approx(roc_auc_score(y, p, multi_class=sk_method), abs=1e-9)


def test_multiclass_auc_weighted_ovr_matches_sklearn_sample_weight() -> None:
    log = prediction_log(seed=3)
    y, p = sk_inputs(log)
    w = log["weight"].to_numpy()
    for average in ("macro", "weighted"):
        ours = pr.multiclass_auc(log, SCORES, weight="weight", average=average)["auc"].item()
        expected = roc_auc_score(y, p, multi_class="ovr", average=average, sample_weight=w)
        assert ours == pytest.approx(expected, abs=1e-9)


def test_hand_till_weighted_equals_repeated_rows() -> None:
    log = prediction_log(n=40, seed=4).with_columns(pl.col("weight").cast(pl.Int64))
    repeated = log.select(pl.all().repeat_by("weight").explode())
    y, p = sk_inputs(repeated)
    ours = pr.multiclass_auc(log, SCORES, weight="weight", method="hand_till")["auc"].item()
    assert ours == pytest.approx(roc_auc_score(y, p, multi_class="ovo"), abs=1e-9)


def test_one_vs_rest_views_per_class_match_sklearn() -> None:
    log = prediction_log()
    long = pr.one_vs_rest(log, SCORES)
    assert long.columns == ["segment", "weight", "class", "score", "label"]
    assert long.height == 3 * log.height
    assert long.schema["label"] == pl.Boolean
    per_class = long.roc.auc(by="class")
    assert per_class["class"].to_list() == CLASSES
    y, p = sk_inputs(log)
    for i, c in enumerate(CLASSES):
        expected = roc_auc_score(y == c, p[:, i])
        assert per_class["auc"][i] == pytest.approx(expected, abs=1e-12)
    lazy = pr.one_vs_rest(log.lazy(), SCORES, label="label", score="s", class_name="k")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect_schema().names() == ["segment", "weight", "k", "s", "label"]


@pytest.mark.parametrize(
    ("labels", "scores", "shown"),
    [
        # 1 and 2 cast to the text "1" and "2": every row negative, silently.
        (pl.Series(["cat", "dog"]), {1: "pa", 2: "pb"}, r"\(String\) with the classes \[1, 2\]"),
        # Polars' raw "conversion from str to enum failed in column 'scalar'".
        (pl.Series(["a", "b"], dtype=pl.Enum(["a", "b"])), {"a": "pa", "c": "pb"}, r"\['a', 'c'\]"),
    ],
)
def test_one_vs_rest_refuses_keys_the_label_cannot_hold(
    labels: pl.Series, scores: dict[object, str], shown: str
) -> None:
    frame = pl.DataFrame({"label": labels, "pa": [0.6, 0.4], "pb": [0.4, 0.6]})
    with pytest.raises(RocInputError, match=rf"^cannot compare label column 'label' .*{shown}"):
        pr.one_vs_rest(frame.lazy(), scores)


def test_one_vs_rest_keeps_categorical_label_dtype() -> None:
    log = pl.DataFrame({"label": ["a", "b"], "pa": [0.6, 0.1], "pb": [0.4, 0.9]}).with_columns(
        pl.col("label").cast(pl.Categorical)
    )
    long = log.roc.one_vs_rest({"a": "pa", "b": "pb"})
    assert long.schema["class"] == pl.Categorical
    assert long["label"].to_list() == [True, False, False, True]


@settings(max_examples=20, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 2), st.integers(1, 5), st.integers(1, 5), st.integers(1, 5)),
        min_size=6,
        max_size=30,
    )
)
def test_multiclass_auc_property(rows: list) -> None:
    y = np.array([r[0] for r in rows])
    if len(set(y.tolist())) < 3:
        return  # scikit-learn needs every class present
    raw = np.array([r[1:] for r in rows], dtype=float)
    p = raw / raw.sum(axis=1, keepdims=True)
    frame = pl.DataFrame({"label": y, "a": p[:, 0], "b": p[:, 1], "c": p[:, 2]})
    scores = {0: "a", 1: "b", 2: "c"}
    for method, sk_method in (("ovr", "ovr"), ("hand_till", "ovo")):
        ours = pr.multiclass_auc(frame, scores, method=method)["auc"].item()
        assert ours == pytest.approx(roc_auc_score(y, p, multi_class=sk_method), abs=1e-9)


def test_multiclass_auc_missing_class_in_segment_is_left_out() -> None:
    log = pl.DataFrame(
        {
            "seg": ["x", "x", "x", "y", "y", "y"],
            "label": ["a", "b", "c", "a", "b", "b"],
            "pa": [0.7, 0.2, 0.1, 0.6, 0.3, 0.2],
            "pb": [0.2, 0.6, 0.2, 0.3, 0.5, 0.6],
            "pc": [0.1, 0.2, 0.7, 0.1, 0.2, 0.2],
        }
    )
    result = pr.multiclass_auc(log, {"a": "pa", "b": "pb", "c": "pc"}, by="seg")
    assert result["n_terms"].to_list() == [3, 2]  # class c has no rows in segment y
    y_rows = log.filter(pl.col("seg") == "y")
    expected = np.mean(
        [
            roc_auc_score(y_rows["label"] == "a", y_rows["pa"]),
            roc_auc_score(y_rows["label"] == "b", y_rows["pb"]),
        ]
    )
    assert result["auc"][1] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "ovo"}, ValueError, "`method` must be 'ovr' or 'hand_till'"),
        ({"average": "micro"}, ValueError, "`average` must be 'macro' or 'weighted'"),
        ({"scores": {"bird": "p_bird"}}, ValueError, "at least two classes"),
        ({"scores": ["p_bird", "p_cat"]}, ValueError, "must map each class value"),
        (
            {"scores": {"bird": "p_bird", "cat": "p_cat", "dog": "p_bird"}},
            RocOptionError,
            r"^`scores` gives column 'p_bird' to classes \['bird', 'dog'\]: each class",
        ),
        (
            {"scores": {"bird": "p_bird", "cat": "p_kat"}},
            pl.exceptions.ColumnNotFoundError,
            "score column 'p_kat' not found",
        ),
        (
            {"scores": {"bird": "p_bird", "cat": "p_cat"}},
            ValueError,
            r"value\(s\) that are not among the classes \['bird', 'cat'\].*\['dog'\]",
        ),
        ({"nulls": "keep"}, ValueError, "`nulls` must be 'raise' or 'drop'"),
        ({"label": "segment"}, ValueError, "not among the classes"),
    ],
)
def test_multiclass_auc_errors(kwargs: dict, error: type, match: str) -> None:
    log = prediction_log(n=12)
    args = {"scores": SCORES, **kwargs}
    with pytest.raises(error, match=match):
        pr.multiclass_auc(log, **args)


@pytest.mark.parametrize(("column", "options"), [("label", {}), ("w", {"weight": "w"})])
def test_multiclass_null_message_is_the_binary_one(column: str, options: dict) -> None:
    """A null label or weight is refused with the binary views' message, role first."""
    first = pl.int_range(pl.len()) == 0
    null = pl.when(first).then(None).otherwise(pl.col(column)).alias(column)
    log = prediction_log(n=12).with_columns(w=pl.lit(1.0))
    binary = log.with_columns(label=pl.col("label") == "cat", score=pl.col("p_cat"))
    with pytest.raises(ValueError, match=rf"^(label|weight) column '{column}' has 1 null") as multi:
        pr.multiclass_auc(log.with_columns(null), SCORES, **options)
    with pytest.raises(ValueError) as one:
        pr.roc_auc(binary.with_columns(null), **options)
    assert str(multi.value) == str(one.value)


def test_multiclass_nulls_and_nan() -> None:
    log = prediction_log(n=12).with_columns(
        pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(pl.col("p_cat")).alias("p_cat")
    )
    with pytest.raises(ValueError, match=r"^score column 'p_cat' has 1 null value\(s\); fill them"):
        pr.multiclass_auc(log, SCORES)
    dropped = pr.multiclass_auc(log, SCORES, nulls="drop")["auc"].item()
    y, p = sk_inputs(log.drop_nulls())
    assert dropped == pytest.approx(roc_auc_score(y, p, multi_class="ovr"), abs=1e-9)
    nan = log.with_columns(pl.col("p_cat").fill_null(float("nan")))
    with pytest.raises(ValueError, match=r"score column 'p_cat' has 1 NaN"):
        pr.multiclass_auc(nan, SCORES)


# --- confusion matrix and per-class measures ------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_multiclass_confusion_matches_sklearn(kind: str) -> None:
    log = prediction_log()
    result = collected(pr.multiclass_confusion(as_kind(log, kind), SCORES))
    assert result.columns == ["actual", "predicted", "count"]
    y, p = sk_inputs(log)
    predicted = np.array(CLASSES)[p.argmax(axis=1)]
    expected = confusion_matrix(y, predicted, labels=CLASSES)
    assert result["count"].to_list() == expected.ravel().tolist()
    assert result["actual"].to_list() == [c for c in CLASSES for _ in CLASSES]
    square = result.pivot(on="predicted", index="actual", values="count")
    assert square.drop("actual").to_numpy().tolist() == expected.tolist()


def test_multiclass_confusion_predicted_column_weighted_and_grouped() -> None:
    log = prediction_log(n=60, seed=5)
    _, p = sk_inputs(log)
    log = log.with_columns(pl.Series("guess", np.array(CLASSES)[p.argmax(axis=1)]))
    result = log.roc.multiclass_confusion(
        predicted="guess", classes=CLASSES, by="segment", weight="weight"
    )
    assert result.schema["count"] == pl.Float64
    for segment in ("east", "west"):
        part = log.filter(pl.col("segment") == segment)
        expected = confusion_matrix(
            part["label"], part["guess"], labels=CLASSES, sample_weight=part["weight"]
        )
        ours = result.filter(pl.col("segment") == segment)["count"].to_numpy()
        np.testing.assert_allclose(ours, expected.ravel(), atol=1e-12)


@pytest.mark.parametrize("average", [None, "macro", "weighted", "micro"])
def test_multiclass_measures_match_sklearn(average: str | None) -> None:
    log = prediction_log()
    result = pr.multiclass_measures(log, SCORES, average=average)
    y, p = sk_inputs(log)
    predicted = np.array(CLASSES)[p.argmax(axis=1)]
    precision, recall, f1, _ = precision_recall_fscore_support(
        y, predicted, labels=CLASSES, average=average, zero_division=np.nan
    )
    if average is None:
        assert result["class"].to_list() == CLASSES
        assert result.columns[:5] == ["class", "tp", "fp", "fn", "tn"]
        assert (result["tp"] + result["fp"] + result["fn"] + result["tn"]).to_list() == [90] * 3
    else:
        assert result.height == 1
        assert "tp" not in result.columns and "kappa_level" not in result.columns
    np.testing.assert_allclose(result["ppv"], np.atleast_1d(precision), atol=1e-12)
    np.testing.assert_allclose(result["tpr"], np.atleast_1d(recall), atol=1e-12)
    np.testing.assert_allclose(result["f1"], np.atleast_1d(f1), atol=1e-12)


def test_multiclass_measures_grouped_with_beta() -> None:
    log = prediction_log()
    result = pr.multiclass_measures(log, SCORES, by="segment", average="macro", beta=2.0)
    assert result["segment"].to_list() == ["east", "west"]
    cols = result.columns
    assert cols.index("f_beta") == cols.index("f1") + 1
    part = log.filter(pl.col("segment") == "west")
    y, p = sk_inputs(part)
    predicted = np.array(CLASSES)[p.argmax(axis=1)]
    _, recall, _, _ = precision_recall_fscore_support(
        y, predicted, labels=CLASSES, average="macro", zero_division=np.nan
    )
    assert result["tpr"][1] == pytest.approx(recall, abs=1e-12)


def test_confusion_errors() -> None:
    log = prediction_log(n=12)
    with pytest.raises(ValueError, match="pass exactly one of `scores`"):
        pr.multiclass_confusion(log)
    with pytest.raises(ValueError, match="pass exactly one of `scores`"):
        pr.multiclass_confusion(log, SCORES, predicted="label")
    with pytest.raises(ValueError, match="pass `classes=`"):
        pr.multiclass_confusion(log, predicted="label")
    with pytest.raises(ValueError, match=r"^label column 'label' has .* not among the classes"):
        pr.multiclass_confusion(log, predicted="label", classes=["bird", "cat"])
    with pytest.raises(ValueError, match="`average` must be None, 'macro', 'weighted' or 'micro'"):
        pr.multiclass_measures(log, SCORES, average="samples")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="collide with result columns"):
        pr.multiclass_confusion(log.rename({"segment": "actual"}), SCORES, by="actual")


def test_classes_listed_twice_are_refused_by_name() -> None:
    # A repeated class reached Polars' `replace` (a raw InvalidOperationError).
    log = prediction_log(n=12)
    message = r"the classes must be distinct label values, .* \['cat'\] repeat as values of label"
    with pytest.raises(RocOptionError, match=message):
        pr.multiclass_confusion(log, predicted="label", classes=["cat", "dog", "cat", "bird"])
    with pytest.raises(RocOptionError, match=message):
        pr.multiclass_auc(log, score="p_cat", classes=["cat", "dog", "cat"])


def test_namespace_multiclass() -> None:
    log = prediction_log()
    assert_frame_equal(
        log.roc.multiclass_auc(SCORES, method="hand_till"),
        pr.multiclass_auc(log, SCORES, method="hand_till"),
    )
    assert_frame_equal(
        log.roc.multiclass_measures(SCORES, average="weighted"),
        pr.multiclass_measures(log, SCORES, average="weighted"),
    )


@pytest.mark.parametrize("dtype", [pl.Categorical, pl.Enum(["dog", "cat", "bird"])])
def test_multiclass_categorical_labels(dtype: pl.DataType) -> None:
    log = prediction_log(n=45, seed=6)
    y, p = sk_inputs(log)
    typed = log.with_columns(pl.col("label").cast(dtype))
    for method, sk_method in (("ovr", "ovr"), ("hand_till", "ovo")):
        ours = pr.multiclass_auc(typed, SCORES, method=method)["auc"].item()
        assert ours == pytest.approx(roc_auc_score(y, p, multi_class=sk_method), abs=1e-9)
    cells = pr.multiclass_confusion(typed, SCORES)
    predicted = np.array(CLASSES)[p.argmax(axis=1)]
    expected = confusion_matrix(y, predicted, labels=CLASSES)
    assert cells["count"].to_list() == expected.ravel().tolist()


@pytest.mark.parametrize("kind", KINDS)
def test_empty_input_gives_empty_results(kind: str) -> None:
    empty = as_kind(
        pl.DataFrame(schema={"label": pl.String, "pa": pl.Float64, "pb": pl.Float64}), kind
    )
    scores = {"a": "pa", "b": "pb"}
    for result in (
        pr.multiclass_auc(empty, scores),
        pr.multiclass_auc(empty, scores, method="hand_till"),
        pr.multiclass_confusion(empty, scores),
        pr.multiclass_measures(empty, scores),
        pr.multiclass_measures(empty, scores, average="macro"),
        pr.multiclass_measures(empty, scores, average="micro"),
        pr.one_vs_rest(empty, scores),
    ):
        assert collected(result).height == 0


def test_null_segment_is_a_group() -> None:
    log = prediction_log(n=90, seed=7).with_columns(
        pl.when(pl.col("segment") == "east")
        .then(None)
        .otherwise(pl.col("segment"))
        .alias("segment")
    )
    for method, sk_method in (("ovr", "ovr"), ("hand_till", "ovo")):
        result = pr.multiclass_auc(log, SCORES, by="segment", method=method)
        assert result["segment"].to_list() == [None, "west"]
        y, p = sk_inputs(log.filter(pl.col("segment").is_null()))
        expected = roc_auc_score(y, p, multi_class=sk_method)
        assert result["auc"][0] == pytest.approx(expected, abs=1e-9)
    cells = pr.multiclass_confusion(log, SCORES, by="segment")
    assert cells.height == 2 * 9
    measures = pr.multiclass_measures(log, SCORES, by="segment", average="micro")
    assert measures["segment"].to_list() == [None, "west"]


def test_multiclass_measures_infinite_beta_is_recall() -> None:
    log = prediction_log()
    result = pr.multiclass_measures(log, SCORES, beta=math.inf)
    y, p = sk_inputs(log)
    predicted = np.array(CLASSES)[p.argmax(axis=1)]
    expected = fbeta_score(y, predicted, beta=math.inf, labels=CLASSES, average=None)
    np.testing.assert_allclose(result["f_beta"], expected, atol=1e-12)
    assert result["f_beta"].to_list() == result["tpr"].to_list()


# --- multiclass_confusion(normalize=) -------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("normalize", ["true", "pred", "all"])
def test_multiclass_confusion_normalize_matches_sklearn(kind: str, normalize: str) -> None:
    log = prediction_log(n=60, seed=5)
    _, p = sk_inputs(log)
    log = log.with_columns(pl.Series("guess", np.array(CLASSES)[p.argmax(axis=1)]))
    result = collected(
        pr.multiclass_confusion(
            as_kind(log, kind),
            predicted="guess",
            classes=CLASSES,
            by="segment",
            weight="weight",
            normalize=normalize,  # type: ignore[arg-type]
        )
    )
    assert result.columns == ["segment", "actual", "predicted", "count", "proportion"]
    for segment in ("east", "west"):
        part = log.filter(pl.col("segment") == segment)
        expected = confusion_matrix(
            part["label"],
            part["guess"],
            labels=CLASSES,
            sample_weight=part["weight"],
            normalize=normalize,  # type: ignore[arg-type]
        )
        ours = result.filter(pl.col("segment") == segment)["proportion"].to_numpy()
        np.testing.assert_allclose(ours, expected.ravel(), atol=1e-12)


def test_multiclass_confusion_normalize_empty_class_is_null() -> None:
    # No row is of class "c" nor predicted "c": its row (true) and column (pred) are null,
    # where scikit-learn writes 0.
    frame = pl.DataFrame({"label": ["a", "b", "b", "a"], "pred": ["a", "b", "a", "a"]})
    for normalize, empty in (("true", "actual"), ("pred", "predicted")):
        result = pr.multiclass_confusion(
            frame,
            predicted="pred",
            classes=["a", "b", "c"],
            normalize=normalize,  # type: ignore[arg-type]
        )
        assert result.filter(pl.col(empty) == "c")["proportion"].null_count() == 3
        assert result.filter(pl.col(empty) != "c")["proportion"].null_count() == 0
    with pytest.raises(
        ValueError, match=r"`normalize` must be None, 'true', 'pred' or 'all', got 'rows'"
    ):
        pr.multiclass_confusion(frame, predicted="pred", classes=["a", "b"], normalize="rows")  # type: ignore[arg-type]


# --- multiclass_auc(score=): pROC's univariate multiclass.roc -------------------------


def proc_univariate(labels: list, score: list[float], levels: list) -> float:
    """pROC's ``multiclass.roc(response, predictor, levels=)``: the mean over the pairs of
    levels (``combn`` order) of ``roc(levels = pair)``'s AUC, direction "auto" (``>``
    when the controls' median exceeds the cases')."""
    y, s = np.array(labels, dtype=object), np.array(score, dtype=float)
    aucs = []
    for i, control in enumerate(levels):
        for case in levels[i + 1 :]:
            controls, cases = s[y == control], s[y == case]
            if not len(controls) or not len(cases):
                continue
            diff = cases[:, None] - controls[None, :]
            auc = ((diff > 0) + 0.5 * (diff == 0)).mean()
            aucs.append(1 - auc if np.median(controls) > np.median(cases) else auc)
    return float(np.mean(aucs))


@pytest.mark.parametrize(
    "row", list(pl.read_csv(FIXTURES / "proc_multiclass.csv").iter_rows(named=True))
)
def test_univariate_equals_proc_on_asah(row: dict) -> None:
    # multiclass.roc(aSAH$wfns, aSAH$<score>, levels = ...): grades as classes, ties in
    # both the scores and (for wfns) the class medians.
    # pROC leaves out the rows of other grades; here every label must be a class, so
    # they are filtered first.
    levels = [int(v) for v in row["levels"].split()]
    kept = pl.read_csv(FIXTURES / "asah.csv").filter(pl.col("wfns").is_in(levels))
    got = pr.multiclass_auc(kept, score=row["score"], label="wfns", classes=levels)
    assert got["auc"].item() == pytest.approx(row["auc"], abs=1e-9)
    # The port agrees with pROC there too (the hypothesis test below relies on it).
    port = proc_univariate(kept["wfns"].to_list(), kept[row["score"]].to_list(), levels)
    assert port == pytest.approx(row["auc"], abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("xyz"), st.integers(0, 6)), min_size=3, max_size=40))
def test_univariate_equals_proc_port(rows: list) -> None:
    labels, score = [c for c, _ in rows], [s / 3 for _, s in rows]
    levels = ["z", "x", "y"]
    frame = pl.DataFrame({"label": labels, "score": score})
    got = pr.multiclass_auc(frame, score="score", classes=levels)
    if len({*labels}) < 2:
        assert got["auc"].to_list() == [None]
        return
    assert got["auc"].item() == pytest.approx(proc_univariate(labels, score, levels), abs=1e-12)


def test_univariate_by_hand_per_segment_and_directions() -> None:
    # low 0.1, 0.5; mid 0.4, 0.6; high 0.55, 0.9: pairs 3/4, 1, 3/4 (docstring example).
    grades = pl.DataFrame(
        {
            "label": ["low", "low", "mid", "mid", "high", "high"] * 2,
            "score": [0.1, 0.5, 0.4, 0.6, 0.55, 0.9, 0.9, 0.5, 0.4, 0.6, 0.55, 0.1],
            "seg": ["up"] * 6 + ["mixed"] * 6,
        }
    )
    order = ["low", "mid", "high"]
    got = grades.roc.multiclass_auc(score="score", classes=order, by="seg")
    up = proc_univariate(grades["label"][:6].to_list(), grades["score"][:6].to_list(), order)
    mixed = proc_univariate(grades["label"][6:].to_list(), grades["score"][6:].to_list(), order)
    assert got.rows() == [("mixed", pytest.approx(mixed), 3), ("up", pytest.approx(5 / 6), 3)]
    assert up == pytest.approx(5 / 6)
    higher = pr.multiclass_auc(grades.head(6), score="score", classes=order, direction="higher")
    lower = pr.multiclass_auc(grades.head(6), score="score", classes=order, direction="lower")
    assert higher["auc"].item() + lower["auc"].item() == pytest.approx(1.0)
    lazy = pr.multiclass_auc(grades.lazy(), score="score", classes=order, by="seg").collect()
    assert_frame_equal(lazy, got)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(
    "view", ["multiclass_confusion", "multiclass_measures", "multiclass_agreement"]
)
def test_a_predicted_column_of_another_dtype_is_refused_naming_both(engine: str, view: str) -> None:
    # Polars raised "'is_in' cannot check for Int64 values in List(String)", DuckDB a
    # BinderException.
    frame = pl.DataFrame({"label": ["a", "b", "c"], "guess": [1, 2, 3]})
    source = (
        frame if engine == "polars" else pytest.importorskip("duckdb").from_arrow(frame.to_arrow())
    )
    with pytest.raises(
        RocInputError,
        match=r"^predicted column 'guess' \(Int64\) cannot be compared with label column 'label'",
    ):
        getattr(pr, view)(source, predicted="guess", classes=["a", "b", "c"])


@pytest.mark.parametrize("shift", [-5.0, 0.0, 3.0, 1e6])
@pytest.mark.parametrize("lazy", [False, True])
def test_univariate_lower_equals_negated_scores_at_any_range(shift: float, lazy: bool) -> None:
    # The sort keys were cut from the range of the scores before their negation: a
    # UInt64 conversion error past scores of about 2, or below 0.
    frame = pl.DataFrame(
        {"label": ["lo", "mid", "hi", "lo", "mid", "hi"], "score": [1.0, 2.0, 3.0, 4.0, 1.0, 2.0]}
    ).with_columns(pl.col("score") + shift)
    options = {"score": "score", "classes": ["lo", "mid", "hi"]}
    source = frame.lazy() if lazy else frame
    lower = pr.multiclass_auc(source, direction="lower", **options).lazy().collect()
    negated = frame.with_columns(-pl.col("score"))
    assert_frame_equal(lower, pr.multiclass_auc(negated, direction="higher", **options))
    assert lower["auc"].item() == pytest.approx(5 / 12)  # pairs 5/8, 1/2, 1/8


def test_univariate_counts_equal_repeated_rows() -> None:
    frame = pl.DataFrame(
        {
            "label": ["a", "b", "c", "a", "c"],
            "score": [0.2, 0.5, 0.7, 0.6, 0.1],
            "n": [3, 1, 2, 1, 2],
        }
    )
    repeated = frame.select(pl.all().repeat_by("n").explode()).drop("n")
    for average in ("macro", "weighted"):
        options = {"score": "score", "classes": ["a", "b", "c"], "direction": "higher"}
        counted = pr.multiclass_auc(frame, count="n", average=average, **options)  # type: ignore[arg-type]
        assert_frame_equal(counted, pr.multiclass_auc(repeated, average=average, **options))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"score": "score"}, ValueError, r"pass `classes=` listing at least two classes"),
        ({}, ValueError, r"pass exactly one of `scores` .* or `score`"),
        (
            {"score": "score", "classes": ["a", "b"], "direction": "up"},
            ValueError,
            r"`direction` must be 'auto', 'higher' or 'lower', got 'up'",
        ),
        (
            {"score": "score", "classes": ["a", "b"], "count": "n"},
            ValueError,
            r"direction='auto' compares the classes' median scores",
        ),
    ],
)
def test_univariate_errors(kwargs: dict, error: type, match: str) -> None:
    frame = pl.DataFrame({"label": ["a", "b"], "score": [0.1, 0.2], "n": [1, 1]})
    with pytest.raises(error, match=match):
        pr.multiclass_auc(frame, **kwargs)
