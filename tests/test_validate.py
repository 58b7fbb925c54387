"""The input contract (DESIGN.md, "Bad input") at every public entry point.

Checks run through the four module functions and the four ``.roc`` namespace methods
(fixture ``entry``), or, when they vary the input many ways, through one entry point per
view family (fixture ``view``); each family sees eager and lazy input. Errors must name
the column (or argument) and the problem, and must be raised by the call itself: a lazy
input is never collected before the error is expected.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest
from polars.exceptions import ColumnNotFoundError
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.core.arguments import Roles
from polars_roc.exceptions import (
    RocInputError,
    RocOptionError,
    RocOptionTypeError,
    SingleClassWarning,
)

Frame = pl.DataFrame | pl.LazyFrame

THRESHOLDS = [0.3, 0.6]

# name -> (result family, call). The confusion entries get a fixed list of thresholds.
ENTRIES: dict[str, tuple[str, Callable[..., Frame]]] = {
    "score_table": ("score_table", lambda f, **kw: pr.score_table(f, **kw)),
    "roc_curve": ("curve", lambda f, **kw: pr.roc_curve(f, **kw)),
    "roc_auc": ("auc", lambda f, **kw: pr.roc_auc(f, **kw)),
    "confusion_matrix": ("confusion", lambda f, **kw: pr.confusion_matrix(f, THRESHOLDS, **kw)),
    "roc.score_table": ("score_table", lambda f, **kw: f.roc.score_table(**kw)),
    "roc.curve": ("curve", lambda f, **kw: f.roc.curve(**kw)),
    "roc.auc": ("auc", lambda f, **kw: f.roc.auc(**kw)),
    "roc.confusion": ("confusion", lambda f, **kw: f.roc.confusion(THRESHOLDS, **kw)),
}
FUNCTIONS = [name for name in ENTRIES if not name.startswith("roc.")]

CONFUSION_MEASURES = [
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
RESULT_COLUMNS = {
    "score_table": ["threshold", "pos", "neg", "tp", "fp", "n_pos", "n_neg"],
    "curve": ["threshold", "tp", "fp", "fn", "tn", "tpr", "fpr"],
    "auc": ["auc", "n_pos", "n_neg"],
    "confusion": ["threshold", "tp", "fp", "fn", "tn", *CONFUSION_MEASURES],
}


@dataclass(frozen=True)
class Entry:
    """One public entry point fed one kind of frame (eager or lazy)."""

    name: str
    kind: str

    @property
    def family(self) -> str:
        return ENTRIES[self.name][0]

    def __call__(self, df: pl.DataFrame, **kwargs: object) -> Frame:
        """Call on ``df`` in this entry's kind; the result is not collected."""
        return ENTRIES[self.name][1](as_kind(df, self.kind), **kwargs)

    def result(self, df: pl.DataFrame, **kwargs: object) -> pl.DataFrame:
        return collected(self(df, **kwargs), self.kind)


# Every entry point once, each family with eager input on one of its two entry points
# and lazy input on the other (the namespace methods are one-line calls of the
# functions, so the full product would test the same code twice).
ENTRY_KINDS = [
    Entry("score_table", "eager"),
    Entry("roc_curve", "lazy"),
    Entry("roc_auc", "eager"),
    Entry("confusion_matrix", "lazy"),
    Entry("roc.score_table", "lazy"),
    Entry("roc.curve", "eager"),
    Entry("roc.auc", "lazy"),
    Entry("roc.confusion", "eager"),
]


@pytest.fixture(params=ENTRY_KINDS, ids=lambda e: f"{e.name}-{e.kind}")
def entry(request: pytest.FixtureRequest) -> Entry:
    return request.param


# One entry point per family, for checks that vary the input many ways.
VIEW_KINDS = [
    Entry("score_table", "lazy"),
    Entry("roc.curve", "eager"),
    Entry("roc_auc", "lazy"),
    Entry("roc.confusion", "eager"),
]


@pytest.fixture(params=VIEW_KINDS, ids=lambda e: f"{e.name}-{e.kind}")
def view(request: pytest.FixtureRequest) -> Entry:
    return request.param


@pytest.fixture(params=["eager", "lazy"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


def as_kind(df: pl.DataFrame, kind: str) -> Frame:
    return df.lazy() if kind == "lazy" else df


def collected(result: Frame, kind: str) -> pl.DataFrame:
    """The result as a DataFrame, checking it has the caller's kind."""
    if kind == "lazy":
        assert isinstance(result, pl.LazyFrame)
        return result.collect()
    assert isinstance(result, pl.DataFrame)
    return result


def prediction_log() -> pl.DataFrame:
    """Two segments with both classes, a tie, and weights."""
    return pl.DataFrame(
        {
            "segment": ["a", "a", "a", "a", "a", "b", "b", "b", "b", "b"],
            "score": [0.9, 0.7, 0.7, 0.4, 0.2, 0.8, 0.6, 0.5, 0.5, 0.1],
            "label": [1, 1, 0, 0, 1, 1, 0, 1, 0, 0],
            "weight": [1.0, 2.0, 0.5, 1.0, 3.0, 1.5, 1.0, 2.0, 1.0, 0.0],
        }
    )


def brute_auc(score: list[float], positive: list[bool], weight: list[float] | None = None) -> float:
    """Pairwise (Mann-Whitney) AUC: each (positive, negative) pair, ties count 1/2."""
    s, y = np.asarray(score, dtype=float), np.asarray(positive, dtype=bool)
    w = np.ones_like(s) if weight is None else np.asarray(weight, dtype=float)
    sp, sn = s[y][:, None], s[~y][None, :]
    wins = (sp > sn) + 0.5 * (sp == sn)
    pair_weight = w[y][:, None] * w[~y][None, :]
    return float((wins * pair_weight).sum() / pair_weight.sum())


# --- arguments and schema: no data needed -------------------------------------------


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize(
    ("value", "type_name"),
    [
        ({"score": [0.1], "label": [1]}, "dict"),
        (pl.Series("score", [0.1]), "Series"),
        (None, "NoneType"),
    ],
)
def test_non_frame_input_is_a_type_error(name: str, value: object, type_name: str) -> None:
    call = ENTRIES[name][1]
    with pytest.raises(TypeError, match=rf"DataFrame or LazyFrame, got {type_name}"):
        call(value)


@pytest.mark.parametrize(
    ("role", "typo", "right"),
    [
        ("score", "scroe", "score"),
        ("label", "lable", "label"),
        ("weight", "weigth", "weight"),
        ("by", "segmnt", "segment"),
    ],
)
def test_missing_column_names_it_and_suggests(
    view: Entry, role: str, typo: str, right: str
) -> None:
    with pytest.raises(
        ColumnNotFoundError, match=rf"{role} column '{typo}' not found.*did you mean.*'{right}'"
    ):
        view(prediction_log(), **{role: typo})


def test_missing_column_without_close_match_lists_columns(entry: Entry) -> None:
    with pytest.raises(
        ColumnNotFoundError, match=r"label column 'truth' not found.*available columns.*'segment'"
    ):
        entry(prediction_log(), label="truth")


@pytest.mark.parametrize("role", ["score", "label", "weight"])
def test_column_argument_must_be_a_name(view: Entry, role: str) -> None:
    with pytest.raises(TypeError, match=rf"`{role}` must be a column name \(str\), got <Expr"):
        view(prediction_log(), **{role: pl.col(role)})


@pytest.mark.parametrize(
    ("roles", "first", "second"),
    [
        ({"by": "score"}, "score", "by"),
        ({"by": "label"}, "label", "by"),
        ({"weight": "label"}, "label", "weight"),
        ({"score": "weight", "weight": "weight"}, "score", "weight"),
        ({"by": "weight", "weight": "weight"}, "weight", "by"),
    ],
)
def test_a_column_in_two_roles_is_refused(
    view: Entry, roles: dict[str, str], first: str, second: str
) -> None:
    name = next(iter(roles.values()))
    pattern = rf"column '{name}' is given as both {first} and {second}"
    with pytest.raises(RocOptionError, match=pattern):
        view(prediction_log(), **roles)


@pytest.mark.parametrize(
    ("role", "column"),
    [("score", "score"), ("label", "label"), ("weight", "weight"), ("by", "segment")],
)
def test_a_column_named_like_the_library_s_own_is_refused(
    view: Entry, role: str, column: str
) -> None:
    log = prediction_log().rename({column: "__roc_x"})
    with pytest.raises(RocInputError, match=rf"{role} column '__roc_x' starts with '__roc_'"):
        view(log, **{role: "__roc_x"})


def test_roles_made_inside_are_not_checked_and_stay_so() -> None:
    """``replace`` re-checks the user's roles; roles the library marks internal pass."""
    with pytest.raises(RocInputError, match="by column '__roc_group'"):
        replace(Roles(by="segment"), by=["__roc_group"])
    inside = replace(Roles(count="n"), count="__roc_n", internal=True)
    assert replace(inside, by=["__roc_group"]).by == ["__roc_group"]


@pytest.mark.parametrize(
    ("values", "dtype"), [(["0.9", "0.1"], "String"), ([True, False], "Boolean")]
)
def test_non_numeric_score(view: Entry, values: list, dtype: str) -> None:
    df = pl.DataFrame({"p": values, "label": [1, 0]})
    with pytest.raises(ValueError, match=rf"score column 'p' must be numeric, got dtype {dtype}"):
        view(df, score="p")


def test_non_numeric_weight(entry: Entry) -> None:
    df = pl.DataFrame({"score": [0.9, 0.1], "label": [1, 0], "w": ["1", "2"]})
    with pytest.raises(ValueError, match=r"weight column 'w' must be numeric, got dtype String"):
        entry(df, weight="w")


@pytest.mark.parametrize("by", [1, ["segment", 2], pl.col("segment"), {"segment"}])
def test_by_of_the_wrong_type(view: Entry, by: object) -> None:
    with pytest.raises(TypeError, match=r"`by` must be None, a column name or a list"):
        view(prediction_log(), by=by)


def test_by_naming_a_column_twice(entry: Entry) -> None:
    match = r"`by` names a column twice: got \['segment', 'segment'\]"
    with pytest.raises(ValueError, match=match):
        entry(prediction_log(), by=["segment", "segment"])


def test_by_as_tuple_or_list(entry: Entry) -> None:
    df = prediction_log().with_columns(month=pl.lit("m1"))
    as_list = entry.result(df, by=["segment", "month"])
    assert_frame_equal(entry.result(df, by=("segment", "month")), as_list)
    assert as_list.columns[:2] == ["segment", "month"]


def _collisions(name: str, columns: list[str]) -> list[str]:
    """The columns among ``columns`` that ``by=`` does NOT reject with the right error."""
    missed = []
    for column in columns:
        frame = prediction_log().rename({"segment": column}).lazy()
        try:
            ENTRIES[name][1](frame, by=column)
        except ValueError as err:
            if f"`by` column(s) ['{column}'] collide with result" in str(err):
                continue
        except pl.exceptions.PolarsError:
            pass
        missed.append(column)
    return missed


@pytest.mark.parametrize("name", list(ENTRIES))
def test_by_colliding_with_a_result_column(name: str) -> None:
    assert _collisions(name, RESULT_COLUMNS[ENTRIES[name][0]]) == []


@pytest.mark.parametrize("nulls", ["ignore", None])
def test_bad_nulls_value(entry: Entry, nulls: object) -> None:
    with pytest.raises(ValueError, match=rf"`nulls` must be 'raise' or 'drop', got {nulls!r}"):
        entry(prediction_log(), nulls=nulls)


CONFUSION_CALLS = {
    "confusion_matrix": lambda f, t: pr.confusion_matrix(f, t),
    "roc.confusion": lambda f, t: f.roc.confusion(t),
}


@pytest.mark.parametrize(
    ("call", "kind"), [("confusion_matrix", "eager"), ("roc.confusion", "lazy")]
)
@pytest.mark.parametrize(
    ("threshold", "error", "match"),
    [
        ([], ValueError, r"`threshold` must be a number or a non-empty list of numbers, got \[\]"),
        (float("nan"), ValueError, r"`threshold` values must not be NaN"),
        ([0.5, float("nan")], ValueError, r"`threshold` values must not be NaN"),
        ([0.5, "high"], TypeError, r"`threshold` values must be numbers, got 'high'"),
        (True, TypeError, r"`threshold` values must be numbers, got True"),
        ("0.5", TypeError, r"`threshold`.*got '0\.5'"),
        (None, TypeError, r"`threshold`.*got None"),
    ],
)
def test_bad_thresholds(call: str, kind: str, threshold: object, error: type, match: str) -> None:
    frame = as_kind(prediction_log(), kind)
    with pytest.raises(error, match=match):
        CONFUSION_CALLS[call](frame, threshold)


def _unreadable() -> pl.LazyFrame:
    """A lazy log whose rows fail to load: any data access raises RuntimeError."""

    def fail(_: pl.Series) -> pl.Series:
        msg = "the rows were read"
        raise RuntimeError(msg)

    return (
        prediction_log()
        .lazy()
        .with_columns(pl.col("score").map_batches(fail, return_dtype=pl.Float64))
    )


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"score": "scroe"}, ColumnNotFoundError, "score column 'scroe'"),
        ({"label": "segment"}, ValueError, "label column 'segment' has values \\["),
        ({"weight": "segment"}, ValueError, "weight column 'segment' must be numeric"),
        ({"by": 3}, TypeError, "`by` must be"),
        ({"by": "auc"}, ColumnNotFoundError, "by column 'auc'"),
        ({"nulls": "skip"}, ValueError, "`nulls` must be"),
    ],
)
def test_schema_errors_read_no_rows(name: str, kwargs: dict, error: type, match: str) -> None:
    # The frame would raise RuntimeError if its data were touched.
    with pytest.raises(error, match=match):
        ENTRIES[name][1](_unreadable(), **kwargs)


@pytest.mark.parametrize("call", list(CONFUSION_CALLS))
def test_threshold_errors_read_no_rows(call: str) -> None:
    with pytest.raises(ValueError, match="must not be NaN"):
        CONFUSION_CALLS[call](_unreadable(), [float("nan")])


# --- label values ---------------------------------------------------------------


def test_string_label_needs_pos_label(entry: Entry) -> None:
    df = pl.DataFrame({"score": [0.2, 0.8], "y": ["no", "yes"]})
    with pytest.raises(ValueError, match=r"label column 'y' has values \[.*`pos_label=`"):
        entry(df, label="y")


def test_a_text_label_of_nulls_only_is_named_so(entry: Entry) -> None:
    df = pl.DataFrame({"score": [0.2, 0.8], "y": [None, None]}, schema_overrides={"y": pl.String})
    with pytest.raises(ValueError, match=r"^label column 'y' holds nulls only \(dtype String\), "):
        entry(df, label="y", nulls="drop")


@pytest.mark.parametrize("name", ["roc_auc", "roc.curve"])
def test_string_label_error_lists_values(name: str) -> None:
    df = pl.DataFrame({"score": [0.2, 0.8, 0.5], "y": ["no", "yes", "no"]})
    with pytest.raises(ValueError, match=r"label column 'y'.*'no', 'yes'"):
        ENTRIES[name][1](df, label="y")


@pytest.mark.parametrize(
    ("labels", "dtype", "shown"),
    [
        ([0, 1, 2, 1], pl.Int64, r"\[0, 1, 2\]"),
        ([1, 2, 2, 1], pl.UInt8, r"\[1, 2\]"),
        ([-1, 1, 1, -1], pl.Int32, r"\[-1, 1\]"),
        ([0.0, 0.5, 1.0, 1.0], pl.Float64, r"\[0\.0, 0\.5, 1\.0\]"),
    ],
)
def test_numeric_label_outside_0_1(
    view: Entry, labels: list, dtype: pl.DataType, shown: str
) -> None:
    df = pl.DataFrame({"score": [0.1, 0.2, 0.3, 0.4], "y": pl.Series(labels, dtype=dtype)})
    with pytest.raises(
        ValueError, match=rf"label column 'y' \({dtype}\) holds values other than 0 and 1: {shown}"
    ):
        view(df, label="y")


def test_label_error_lists_at_most_ten_values(entry: Entry) -> None:
    df = pl.DataFrame({"score": [i / 20 for i in range(20)], "label": range(20)})
    with pytest.raises(ValueError, match=r"holds values other than 0 and 1") as info:
        entry(df)
    message = str(info.value)
    assert "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...]" in message
    assert "10" not in message


@pytest.mark.parametrize(
    ("labels", "dtype", "pos_label", "shown"),
    [
        (["no", "yes"], pl.String, "maybe", r"\['no', 'yes'\]"),
        (["no", "yes"], pl.Categorical, "maybe", r"\['no', 'yes'\]"),
        ([1, 2], pl.Int64, 3, r"\[1, 2\]"),
        ([False, False], pl.Boolean, True, r"\[False\]"),
    ],
)
def test_pos_label_absent_from_data(
    view: Entry, labels: list, dtype: pl.DataType, pos_label: object, shown: str
) -> None:
    df = pl.DataFrame({"score": [0.1, 0.9], "y": pl.Series(labels, dtype=dtype)})
    match = rf"pos_label={pos_label!r} does not occur in label column 'y'; its values are {shown}"
    with pytest.raises(ValueError, match=match):
        view(df, label="y", pos_label=pos_label)


def test_pos_label_outside_enum_categories(kind: str) -> None:
    labels = pl.Series(["no", "yes"], dtype=pl.Enum(["no", "yes"]))
    frame = as_kind(pl.DataFrame({"score": [0.1, 0.9], "y": labels}), kind)
    with pytest.raises(ValueError, match=r"pos_label='maybe'.*label column 'y'"):
        pr.roc_auc(frame, label="y", pos_label="maybe")


@pytest.mark.parametrize("name", ["roc_auc", "roc.confusion"])
def test_pos_label_of_the_wrong_type(name: str) -> None:
    df = pl.DataFrame({"score": [0.1, 0.9], "y": ["no", "yes"]})
    with pytest.raises(ValueError, match=r"label column 'y'.*pos_label=1"):
        ENTRIES[name][1](df, label="y", pos_label=1)


# --- nulls, NaN, infinities, weights ---------------------------------------------------


@pytest.mark.parametrize(("column", "count"), [("score", 2), ("label", 1), ("weight", 3)])
def test_nulls_raise_with_their_count(view: Entry, column: str, count: int) -> None:
    df = prediction_log().with_columns(
        pl.when(pl.int_range(pl.len()) < count).then(None).otherwise(pl.col(column)).alias(column)
    )
    with pytest.raises(
        ValueError, match=rf"{column} column '{column}' has {count} null value\(s\).*nulls='drop'"
    ):
        view(df, weight="weight")


def _with_nulls() -> pl.DataFrame:
    """The log plus rows with a null score, label or weight, and a segment of nulls only."""
    extra = pl.DataFrame(
        {
            "segment": ["a", "b", "b", "c", "c"],
            "score": [None, 0.3, 0.95, None, None],
            "label": [1, None, 0, 0, 1],
            "weight": [1.0, 1.0, None, 1.0, 1.0],
        },
        schema=prediction_log().schema,
    )
    return pl.concat([prediction_log(), extra])


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("by", [None, "segment"])
def test_nulls_drop_equals_filtering_first(entry: Entry, weighted: bool, by: str | None) -> None:
    df = _with_nulls()
    weight = "weight" if weighted else None
    required = ["score", "label"] + (["weight"] if weighted else [])
    dropped = entry.result(df, nulls="drop", weight=weight, by=by)
    filtered = entry.result(df.drop_nulls(required), weight=weight, by=by)
    assert_frame_equal(dropped, filtered)


def test_nulls_drop_leaves_the_rows_out_of_the_counts(kind: str) -> None:
    frame = as_kind(_with_nulls(), kind)
    weighted = collected(pr.roc_auc(frame, weight="weight", nulls="drop"), kind)
    # Every extra row is dropped: the log's own weights remain.
    assert weighted.select("n_pos", "n_neg").row(0) == (1 + 2 + 3 + 1.5 + 2, 0.5 + 1 + 1 + 1 + 0)
    unweighted = collected(pr.roc_auc(frame, nulls="drop"), kind)
    # Without weights the row (0.95, label 0, weight null) is complete and stays.
    assert unweighted.select("n_pos", "n_neg").row(0) == (5, 6)
    log = prediction_log()
    expected = brute_auc([*log["score"], 0.95], [*(log["label"] == 1), False])
    assert unweighted["auc"][0] == pytest.approx(expected)


@pytest.mark.parametrize(
    "kind",
    [
        "eager",
        "lazy",
    ],
)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_nulls_drop_of_every_row_gives_an_empty_result(name: str, kind: str) -> None:
    df = pl.DataFrame(
        {"score": [None, None], "label": [0, 1]}, schema={"score": pl.Float64, "label": pl.Int64}
    )
    result = collected(ENTRIES[name][1](as_kind(df, kind), nulls="drop"), kind)
    assert result.height == 0


@pytest.mark.parametrize(("nulls", "dtype"), [("raise", pl.Float64), ("drop", pl.Float32)])
def test_nan_score_raises_even_when_dropping_nulls(
    view: Entry, nulls: str, dtype: pl.DataType
) -> None:
    df = prediction_log().with_columns(
        pl.when(pl.col("score") > 0.75)
        .then(float("nan"))
        .otherwise(pl.col("score"))
        .cast(dtype)
        .alias("score")
    )
    with pytest.raises(
        ValueError, match=r"score column 'score' has 2 NaN value\(s\), which cannot be ranked"
    ):
        view(df, nulls=nulls)


@pytest.mark.parametrize(
    "bad",
    [-1.0, float("nan"), float("inf"), -float("inf")],
)
def test_bad_weight_values(view: Entry, bad: float) -> None:
    df = prediction_log().with_columns(
        pl.when(pl.col("score") == 0.9).then(bad).otherwise(pl.col("weight")).alias("weight")
    )
    with pytest.raises(
        ValueError, match=r"weight column 'weight' has 1 negative, NaN or infinite value\(s\)"
    ):
        view(df, weight="weight")


def test_negative_integer_weight(entry: Entry) -> None:
    df = prediction_log().with_columns(pl.Series("w", [1, 2, -3, 1, 1, 1, 1, -1, 1, 1]))
    with pytest.raises(ValueError, match=r"weight column 'w' has 2 negative"):
        entry(df, weight="w")


INF_LOG = pl.DataFrame(
    {
        "score": [math.inf, -math.inf, 0.5, math.inf, 0.2, -math.inf],
        "label": [1, 0, 0, 0, 1, 1],
    }
)


def test_infinite_scores_are_valid(entry: Entry) -> None:
    assert entry.result(INF_LOG).height > 0


def test_infinite_scores_rank_first_and_last(kind: str) -> None:
    frame = as_kind(INF_LOG, kind)
    auc = collected(pr.roc_auc(frame), kind)
    expected = brute_auc(INF_LOG["score"].to_list(), (INF_LOG["label"] == 1).to_list())
    assert auc.row(0) == (pytest.approx(expected), 3, 3)
    table = collected(pr.score_table(frame), kind)
    assert table.select("threshold", "pos", "neg").rows() == [
        (math.inf, 1, 1),
        (0.5, 0, 1),
        (0.2, 1, 0),
        (-math.inf, 1, 1),
    ]
    confusion = collected(pr.confusion_matrix(frame, [math.inf, -math.inf]), kind)
    # score >= +inf holds for the +inf rows only; score >= -inf for every row.
    assert confusion.select("threshold", "tp", "fp").rows() == [(math.inf, 1, 1), (-math.inf, 3, 3)]


# --- label encodings ---------------------------------------------------------------


def _labelled(values: list, dtype: pl.DataType) -> pl.DataFrame:
    return prediction_log().with_columns(pl.Series("label", values, dtype=dtype))


@pytest.mark.parametrize(
    ("dtype", "positive", "negative"),
    [
        (pl.String, "yes", "no"),
        (pl.Categorical, "yes", "no"),
        (pl.Enum(["no", "yes", "unsure"]), "yes", "no"),
        (pl.Int64, 2, 7),
        (pl.Boolean, False, True),
    ],
)
def test_pos_label_encodings_match_boolean_labels(
    view: Entry, dtype: pl.DataType, positive: object, negative: object
) -> None:
    is_pos = (prediction_log()["label"] == 1).to_list()
    encoded = _labelled([positive if p else negative for p in is_pos], dtype)
    reference = _labelled(is_pos, pl.Boolean)
    kwargs = {"by": "segment", "weight": "weight"}
    assert_frame_equal(
        view.result(encoded, pos_label=positive, **kwargs), view.result(reference, **kwargs)
    )


@pytest.mark.parametrize(
    "dtype",
    [pl.Float64, pl.Float32, pl.Int8, pl.UInt32, pl.Boolean],
)
def test_implicit_positive_class(view: Entry, dtype: pl.DataType) -> None:
    # Booleans, and 0/1 stored as any integer or float type (0.0/1.0 included).
    is_pos = (prediction_log()["label"] == 1).to_list()
    encoded = _labelled(is_pos if dtype == pl.Boolean else [int(p) for p in is_pos], dtype)
    reference = _labelled([int(p) for p in is_pos], pl.Int64)
    assert_frame_equal(view.result(encoded, by="segment"), view.result(reference, by="segment"))


def test_pos_label_false_flips_the_auc(kind: str) -> None:
    df = prediction_log().with_columns(pl.col("label").cast(pl.Boolean))
    result = collected(pr.roc_auc(as_kind(df, kind), pos_label=False, weight="weight"), kind)
    positive = (~df["label"]).to_list()
    expected = brute_auc(df["score"].to_list(), positive, df["weight"].to_list())
    assert result["auc"][0] == pytest.approx(expected)
    assert result["n_pos"][0] == pytest.approx(df.filter(~pl.col("label"))["weight"].sum())


# --- single-class groups ---------------------------------------------------------------


def _single_class_log() -> pl.DataFrame:
    """Segment a has both classes, b only negatives, c only positives."""
    return pl.concat(
        [
            prediction_log().filter(pl.col("segment") == "a"),
            pl.DataFrame(
                {"segment": ["b", "b"], "score": [0.3, 0.6], "label": [0, 0], "weight": [1.0, 1.0]}
            ),
            pl.DataFrame({"segment": ["c"], "score": [0.5], "label": [1], "weight": [2.0]}),
        ]
    )


def _recording(entry: Entry, df: pl.DataFrame, **kwargs: object) -> tuple[pl.DataFrame, list]:
    """Call and (for lazy results) collect, recording every warning of both steps."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = entry.result(df, **kwargs)
    return result, caught


@pytest.mark.parametrize("weighted", [False, True])
def test_single_class_groups_warn_once_and_leave_others_alone(entry: Entry, weighted: bool) -> None:
    df = _single_class_log()
    kwargs = {"by": "segment", "weight": "weight" if weighted else None}
    result, caught = _recording(entry, df, **kwargs)

    assert len(caught) == 1, [str(w.message) for w in caught]
    assert caught[0].category is SingleClassWarning and issubclass(SingleClassWarning, UserWarning)
    assert "2 group(s) [segment='b'; segment='c'] hold only one class" in str(caught[0].message)

    alone = entry.result(df.filter(pl.col("segment") == "a"), **kwargs)
    assert_frame_equal(result.filter(pl.col("segment") == "a"), alone)
    assert result["segment"].unique(maintain_order=True).to_list() == ["a", "b", "c"]
    degenerate = result.filter(pl.col("segment") != "a")
    for column in degenerate.select(cs.float()).columns:
        assert not degenerate[column].is_nan().any(), column
    if entry.family == "auc":
        assert degenerate["auc"].null_count() == 2
        a = df.filter(pl.col("segment") == "a")
        expected = brute_auc(
            a["score"].to_list(),
            (a["label"] == 1).to_list(),
            a["weight"].to_list() if weighted else None,
        )
        assert result["auc"][0] == pytest.approx(expected)
    if entry.family in ("curve", "confusion"):
        # b has no positives (tpr undefined), c no negatives (fpr undefined).
        assert degenerate.filter(pl.col("segment") == "b")["tpr"].is_null().all()
        assert degenerate.filter(pl.col("segment") == "c")["fpr"].is_null().all()
    if entry.family == "confusion":
        assert degenerate["mcc"].is_null().all()
        assert degenerate["balanced_accuracy"].is_null().all()


def test_single_class_without_groups(entry: Entry) -> None:
    df = prediction_log().with_columns(label=pl.lit(0))
    result, caught = _recording(entry, df)
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert caught[0].category is SingleClassWarning and issubclass(SingleClassWarning, UserWarning)
    assert "the data holds only one class" in str(caught[0].message)
    if entry.family == "auc":
        assert result.row(0) == (None, 0, 10)


def test_warning_names_at_most_ten_groups(kind: str) -> None:
    df = pl.DataFrame({"segment": range(12), "score": [0.5] * 12, "label": [1] * 12})
    with pytest.warns(UserWarning, match=r"12 group\(s\) \[segment=0; .*segment=9 and 2 more\]"):
        collected(pr.roc_auc(as_kind(df, kind), by="segment"), kind)


@pytest.mark.parametrize("name", ["roc_auc", "roc.auc"])
def test_single_class_warning_points_at_the_caller(name: str) -> None:
    df = prediction_log().with_columns(label=pl.lit(1))
    with pytest.warns(UserWarning, match="only one class") as record:
        ENTRIES[name][1](df)
    assert record[0].filename == __file__


# --- empty input -------------------------------------------------------------------------


def _expected_schema(family: str, by: list[str], count: pl.DataType) -> dict[str, pl.DataType]:
    f64 = pl.Float64()
    schema: dict[str, pl.DataType] = {"segment": pl.String()} if by else {}
    if family == "score_table":
        counts = ["pos", "neg", "tp", "fp", "n_pos", "n_neg"]
        schema |= {"threshold": f64} | dict.fromkeys(counts, count)
    elif family == "curve":
        schema |= {"threshold": f64} | dict.fromkeys(["tp", "fp", "fn", "tn"], count)
        schema |= {"tpr": f64, "fpr": f64}
    elif family == "auc":
        schema |= {"auc": f64, "n_pos": count, "n_neg": count}
    else:
        counts = ["tp", "fp", "fn", "tn", "pp", "pn", "pos", "neg", "n"]
        schema |= {"threshold": f64} | dict.fromkeys(counts, count)
        schema |= dict.fromkeys(CONFUSION_MEASURES[5:], f64) | {"kappa_level": pl.String()}
    return schema


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("by", [None, "segment"])
def test_empty_input_gives_an_empty_frame_with_the_schema(
    entry: Entry, weighted: bool, by: str | None
) -> None:
    kwargs = {"by": by, "weight": "weight" if weighted else None}
    result = entry.result(prediction_log().clear(), **kwargs)
    count = pl.Float64() if weighted else pl.Int64()
    expected = _expected_schema(entry.family, [by] if by else [], count)
    assert result.height == 0
    assert list(result.schema.items()) == list(expected.items())
    # The same columns and dtypes as a non-empty result.
    assert result.schema == entry.result(prediction_log(), **kwargs).schema


def test_empty_input_with_pos_label(entry: Entry) -> None:
    df = pl.DataFrame(schema={"score": pl.Float32, "label": pl.Categorical})
    assert entry.result(df, pos_label="yes").height == 0


# --- the caller's frame ------------------------------------------------------------------


def _callers_frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "id": [1, 2, 3, 4, 5, 6],
            "p": pl.Series([0.9, 0.2, None, 0.4, 0.4, 0.0], dtype=pl.Float32),
            "truth": pl.Series(["yes", "no", "yes", "no", "yes", "no"], dtype=pl.Categorical),
            "region": ["n", "n", "s", "s", "s", "n"],
            "w": [1, 2, 1, 1, 3, 1],
        }
    )


def test_callers_frame_is_not_mutated(entry: Entry) -> None:
    df = _callers_frame()
    frame = as_kind(df, entry.kind)
    before = df.clone()
    kwargs = {
        "score": "p",
        "label": "truth",
        "by": "region",
        "weight": "w",
        "pos_label": "yes",
        "nulls": "drop",
    }
    collected(ENTRIES[entry.name][1](frame, **kwargs), entry.kind)
    after = frame.collect() if entry.kind == "lazy" else frame
    assert after.columns == before.columns
    assert after.schema == before.schema
    assert_frame_equal(after, before)
    if entry.kind == "lazy":
        assert frame.collect_schema() == before.schema


def test_single_class_warning_writes_dates_as_text() -> None:
    import datetime as dt

    month = [dt.date(2025, 1, 1)] * 2 + [dt.date(2025, 2, 1)] * 2
    log = pl.DataFrame({"m": month, "score": [0.1, 0.2, 0.3, 0.4], "label": [1, 1, 0, 1]})
    with pytest.warns(UserWarning, match=r"^1 group\(s\) \[m=2025-01-01\] hold only one class"):
        log.roc.auc(by="m")


@pytest.mark.parametrize(
    "call",
    [
        lambda df, c: pr.roc_auc(df, ci="delong", conf_level=c),
        lambda df, c: pr.tpr_at(df, 0.1, ci="bootstrap", n_boot=10, conf_level=c),
        lambda df, c: pr.average_curve(
            df.with_columns(fold=pl.int_range(pl.len()) % 2), band="quantile", conf_level=c
        ),
    ],
)
def test_conf_level_is_checked_once_the_same_way(call: Any) -> None:
    # One check: a wrong type is a TypeError and a ValueError; a value out of (0, 1) a
    # ValueError. average_curve used to raise a plain ValueError for a string.
    from polars_roc.exceptions import RocOptionError, RocOptionTypeError

    df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8, 0.7, 0.2], "label": [0, 0, 1, 1, 1, 0]})
    with pytest.raises(RocOptionTypeError, match=r"`conf_level` must be a number .*got '95%'"):
        call(df, "95%")
    with pytest.raises(TypeError):
        call(df, "95%")
    with pytest.raises(RocOptionError, match=r"`conf_level` must be strictly between 0 and 1"):
        call(df, 1.0)


# ---------------------------------------------------------------- the one rate check


@pytest.mark.parametrize(
    ("kwargs", "value", "error", "message"),
    [
        ({}, 1.5, RocOptionError, r"^`r` must be between 0 and 1, got 1.5$"),
        ({}, "a", RocOptionTypeError, r"^`r` must be a number between 0 and 1, got 'a'$"),
        ({}, float("nan"), RocOptionError, r"^`r` must be between 0 and 1, got nan$"),
        ({"closed": "right"}, 0.0, RocOptionError, r"^`r` must be in \(0, 1\], got 0.0$"),
        (
            {"closed": "neither", "hint": " (a share)"},
            1.0,
            RocOptionError,
            r"^`r` must be strictly between 0 and 1 \(a share\), got 1.0$",
        ),
        (
            {"closed": "neither", "hint": " (a share)"},
            True,
            RocOptionTypeError,
            r"^`r` must be a number strictly between 0 and 1, got True$",
        ),
        (
            {"one_message": True, "hint": " (a share)"},
            2,
            RocOptionError,
            r"^`r` must be a number between 0 and 1 \(a share\), got 2$",
        ),
        ({"form": "numbers"}, [], RocOptionError, r"non-empty list of rates, got \[\]$"),
        ({"form": "numbers"}, [0.1, None], RocOptionTypeError, r"values must be numbers in"),
        ({"form": "numbers"}, [0.1, -0.1], RocOptionError, r"^`r` values must be in \[0, 1\]"),
        ({"form": "pair"}, (0.1,), RocOptionTypeError, r"must be a pair of numbers"),
        ({"form": "pair"}, (0.5, 0.5), RocOptionError, r"must satisfy 0 <= low < high <= 1"),
        (
            {"form": "pair", "one_message": True, "quote": False},
            (0.1, "x"),
            RocOptionTypeError,
            r"^r must be \(low, high\) with 0 <= low < high <= 1, got \(0.1, 'x'\)$",
        ),
    ],
)
def test_check_rates_messages(kwargs, value, error, message):
    from polars_roc.core.arguments import check_rates

    with pytest.raises(error, match=message):
        check_rates("r", value, **kwargs)


def test_check_rates_accepts_the_ends_its_closure_allows():
    import numpy as np

    from polars_roc.core.arguments import check_rates

    assert check_rates("r", 0) == [0.0]
    assert check_rates("r", 1.0, closed="right") == [1.0]
    assert check_rates("r", np.float32(0.25), closed="neither") == [0.25]
    assert check_rates("r", (0, 1), form="pair") == [0.0, 1.0]
    assert check_rates("r", 0.5, form="numbers") == [0.5]
    assert check_rates("r", (0.0, 1.0), form="numbers") == [0.0, 1.0]
    with pytest.raises(RocOptionError):
        check_rates("r", 0.0, closed="neither")


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        # each public option that takes a rate, checked by the one function: the class
        # is the library's (a subclass of what the option raised before)
        (lambda df: pr.tpr_at(df, fpr=[0.1, 1.5]), RocOptionError, r"`fpr` values must be in"),
        (lambda df: pr.threshold_at(df, tpr="x"), RocOptionTypeError, r"`tpr` must be a num"),
        (lambda df: pr.roc_auc(df, max_fpr=0), RocOptionError, r"`max_fpr` must be in"),
        (lambda df: pr.roc_auc(df, fpr_range=(1, 0)), RocOptionError, r"0 <= low < high"),
        (lambda df: pr.confusion_matrix(df, threshold=[]), RocOptionError, r"non-empty list"),
    ],
)
def test_options_go_through_the_one_rate_check(call, error, message):
    df = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "label": [0, 0, 1, 1]})
    with pytest.raises(error, match=message):
        call(df)
