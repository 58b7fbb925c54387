"""Multi-class ROC: one-vs-rest reshaping, multi-class AUC, k x k confusion matrices.

ROC analysis is binary; seed 000 reaches more classes one-vs-all. Every number here is
a binary view of the score table on a reshaped frame: one block of rows per class
(one-vs-rest) or per ordered pair of classes (Hand & Till's one-vs-one), built by a
loop over the handful of classes that writes expressions, never over rows.

Classes are the keys of ``scores``, a mapping ``{class value: score column}``; they are
reported in sorted order (scikit-learn's ``np.unique`` order).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import polars as pl

from polars_roc.core.arguments import Roles, check_choice, normalize_by, refuse_clashes
from polars_roc.core.classes import (
    CLASS_ACTUAL,
    CLASS_PREDICTED,
    CLASS_WEIGHT,
    class_values,
    kind_of,
    prepare_classes,
)
from polars_roc.core.finish import finish_result
from polars_roc.core.measures import MEASURE_COLUMNS, check_beta, ratio, with_measures
from polars_roc.core.score_table import build
from polars_roc.core.validate import (
    NEG,
    POS,
    RESERVED,
    SCORE,
    Frame,
    NullPolicy,
    Prepared,
    missing_column,
    polars_lazy,
)
from polars_roc.exceptions import RocInputError, RocOptionError
from polars_roc.stats.cells import agg_per_group, ordered_mean, ordered_sum, over
from polars_roc.views.auc import auc_from_counts

__all__ = [
    "MulticlassAverage",
    "MulticlassMethod",
    "multiclass_auc",
    "multiclass_confusion",
    "multiclass_measures",
    "one_vs_rest",
]

MulticlassMethod = Literal["ovr", "hand_till"]
MulticlassAverage = Literal["macro", "weighted"]
MeasureAverage = Literal["macro", "weighted", "micro"]
ConfusionNormalize = Literal["true", "pred", "all"]
PairDirection = Literal["auto", "higher", "lower"]

CLASS = "__roc_class"
OTHER = "__roc_other"
ACTUAL = CLASS_ACTUAL
PREDICTED = CLASS_PREDICTED
WEIGHT = CLASS_WEIGHT
# Per-class measures that are rates (averaged); counts and margins are summed.
COUNT_COLUMNS = ("tp", "fp", "fn", "tn", "pp", "pn", "pos", "neg", "n")
RATE_MEASURES = tuple(m for m in MEASURE_COLUMNS if m not in COUNT_COLUMNS and m != "kappa_level")


# Result columns of multiclass_auc; the binary problems' score tables carry RESERVED
# columns next to the segments.
_AUC_RESERVED = {"auc", "n_terms", "support", "others", *RESERVED}


def _classes(scores: Mapping[Any, str]) -> tuple[list[Any], list[str]]:
    """Classes in sorted order and their score columns."""
    if not isinstance(scores, Mapping) or len(scores) < 2:
        msg = (
            "`scores` must map each class value to its score column, with at least two "
            f"classes, e.g. {{'cat': 'p_cat', 'dog': 'p_dog'}}; got {scores!r}"
        )
        raise ValueError(msg)
    for column in scores.values():
        if not isinstance(column, str):
            msg = f"`scores` values must be column names (str), got {column!r}"
            raise TypeError(msg)
    classes = _sorted(scores)
    columns = [scores[c] for c in classes]
    shared = sorted({c for c in columns if columns.count(c) > 1})
    if shared:
        both = [c for c in classes if scores[c] == shared[0]]
        msg = (
            f"`scores` gives column {shared[0]!r} to classes {both!r}: each class has a "
            "score column of its own"
        )
        raise RocOptionError(msg)
    return classes, columns


def _sorted(classes: Iterable[Any]) -> list[Any]:
    """The classes in sorted order, or as given where their values do not compare."""
    try:
        return sorted(classes)
    except TypeError:
        return list(classes)


def one_vs_rest(
    frame: Frame,
    scores: Mapping[Any, str],
    *,
    label: str = "label",
    score: str = "score",
    class_name: str = "class",
) -> Frame:
    """Reshape a multi-class prediction log to one binary problem per class.

    Parameters
    ----------
    frame
        One row per prediction, with one score column per class and the true class: a
        Polars frame (the result is rows, the log once per class; on another engine's
        frame, :func:`multiclass_auc` counts each class there).
    scores
        ``{class value: score column}``, e.g. ``{"cat": "p_cat", "dog": "p_dog"}``.
    label
        Column of true classes (any dtype comparable with the class values).
    score
        Name of the score column of the result.
    class_name
        Name of the class column of the result.

    Returns
    -------
    DataFrame or LazyFrame
        The other columns of ``frame``, then ``class_name`` (the label's dtype),
        ``score`` (Float64, that class's score) and ``label`` (Boolean: the row's true
        class is ``class_name``); one block of rows per class, classes sorted, rows in
        their original order. Every binary view then works per class with
        ``by=class_name``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "label": ["cat", "dog", "cat"],
    ...     "p_cat": [0.7, 0.2, 0.6],
    ...     "p_dog": [0.3, 0.8, 0.4],
    ... })
    >>> pr.one_vs_rest(df, {"cat": "p_cat", "dog": "p_dog"})
    shape: (6, 3)
    ┌───────┬───────┬───────┐
    │ class ┆ score ┆ label │
    │ ---   ┆ ---   ┆ ---   │
    │ str   ┆ f64   ┆ bool  │
    ╞═══════╪═══════╪═══════╡
    │ cat   ┆ 0.7   ┆ true  │
    │ cat   ┆ 0.2   ┆ false │
    │ cat   ┆ 0.6   ┆ true  │
    │ dog   ┆ 0.3   ┆ false │
    │ dog   ┆ 0.8   ┆ true  │
    │ dog   ┆ 0.4   ┆ false │
    └───────┴───────┴───────┘
    """
    classes, columns = _classes(scores)
    why = "it returns the rows, one per row and class; count on the engine with multiclass_auc"
    eager, lf = polars_lazy(frame, "one_vs_rest", why)
    schema = lf.collect_schema()
    for role, name in [("label", label), *(("score", c) for c in columns)]:
        if name not in schema:
            raise missing_column(role, name, schema)
    for name in columns:
        if not (schema[name].is_numeric() and schema[name] != pl.Boolean):
            msg = f"score column {name!r} must be numeric, got dtype {schema[name]}"
            raise ValueError(msg)
    keep = [c for c in schema.names() if c != label and c not in columns]
    clash = [c for c in (class_name, score) if c in keep]
    if clash or class_name == score or label in (class_name, score):
        msg = (
            f"result columns class_name={class_name!r}, score={score!r}, label={label!r} "
            f"must be distinct and new; the frame keeps {keep!r}"
        )
        raise ValueError(msg)
    label_dtype = schema[label]
    if kind_of(pl.Series(classes).dtype) != kind_of(label_dtype):  # 1 cast to "1" is no class
        msg = (
            f"cannot compare label column {label!r} ({label_dtype}) with the classes "
            f"{classes!r} (the keys of `scores`): give the keys as label values"
        )
        raise RocInputError(msg)
    class_values(classes, label, label_dtype)  # an Enum without a class is refused here
    # Cached: the k blocks read the source once, not once each.
    rows = lf.cache()
    blocks = [
        rows.select(
            *keep,
            pl.lit(value).cast(label_dtype).alias(class_name),
            pl.col(column).cast(pl.Float64).alias(score),
            (pl.col(label) == pl.lit(value).cast(label_dtype)).alias(label),
        )
        for value, column in zip(classes, columns, strict=True)
    ]
    result = pl.concat(blocks, how="vertical")
    return finish_result(result, eager=eager)


def _class_values(classes: list[Any], column: str, name: str) -> pl.Expr:
    return pl.col(column).replace_strict(list(range(len(classes))), pl.Series(classes)).alias(name)


def multiclass_auc(
    frame: Frame,
    scores: Mapping[Any, str] | None = None,
    *,
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    method: MulticlassMethod = "ovr",
    average: MulticlassAverage = "macro",
    nulls: NullPolicy = "raise",
    score: str | None = None,
    classes: Sequence[Any] | None = None,
    direction: PairDirection = "auto",
) -> Frame:
    """Multi-class AUC: one-vs-rest or Hand & Till's pairwise average.

    - ``method="ovr"``: the AUC of each class against all others (score of the class,
      positive when the row's class is it); ``average="macro"`` is their mean,
      ``"weighted"`` weights each by its class's (weighted) number of rows. Equal to
      scikit-learn's ``roc_auc_score(multi_class="ovr")``.
    - ``method="hand_till"``: for each pair of classes ``(a, b)``, on the rows of class
      ``a`` or ``b``, the mean of ``A(a|b)`` (ranked by the score of ``a``) and
      ``A(b|a)`` (by the score of ``b``) (Hand & Till 2001, seed 000 ref. [21]);
      ``"macro"`` is the mean over pairs, ``"weighted"`` weights each pair by its rows.
      Equal to ``roc_auc_score(multi_class="ovo")``.

    - one ``score`` for every class (pROC's univariate ``multiclass.roc(response,
      predictor)``): for each pair of ``classes`` ``(a, b)``, ``a`` listed before
      ``b``, the AUC of the score on the rows of class ``a`` or ``b``, ``b`` positive;
      with ``direction="auto"``, pROC's rule per pair: a higher score means ``b`` when
      the median score of ``b``'s rows is at least that of ``a``'s, else a lower one;
      ``"higher"`` / ``"lower"`` fix it for every pair. ``"macro"`` is the mean over
      pairs (pROC's ``auc``), ``"weighted"`` weights each pair by its rows. ``method``
      does not apply.

    A class (or pair) without rows in a segment has no AUC and is left out of that
    segment's average.

    Parameters
    ----------
    frame
        One row per prediction, one score column per class, the true class in
        ``label``: a Polars frame, or another engine's (DuckDB, Spark ...), whose rows
        are checked and counted there.
    scores
        ``{class value: score column}``; every label value must be one of the keys.
    label
        Column of true classes.
    by, weight, count, nulls
        As in :func:`polars_roc.score_table`.
    method
        ``"ovr"`` or ``"hand_till"``.
    average
        ``"macro"`` or ``"weighted"``.
    score
        Instead of ``scores``: one score column ranking all the classes, with
        ``classes``.
    classes
        With ``score``: the class values in their order (pROC's ``levels``); every
        label value must be one of them.
    direction
        With ``score``: ``"auto"`` (pROC's median rule, per pair; not with ``weight``
        or ``count``), ``"higher"`` (a higher score means the later class of a pair) or
        ``"lower"``.

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, auc, n_terms]``: one row per segment; ``n_terms`` is the number of
        classes (``"ovr"``) or pairs (``"hand_till"``) averaged.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({
    ...     "label": ["a", "b", "c", "a", "b", "c"],
    ...     "p_a": [0.6, 0.3, 0.2, 0.3, 0.4, 0.1],
    ...     "p_b": [0.3, 0.5, 0.2, 0.3, 0.2, 0.3],
    ...     "p_c": [0.1, 0.2, 0.6, 0.4, 0.4, 0.6],
    ... })
    >>> pr.multiclass_auc(df, {"a": "p_a", "b": "p_b", "c": "p_c"})
    shape: (1, 2)
    ┌──────────┬─────────┐
    │ auc      ┆ n_terms │
    │ ---      ┆ ---     │
    │ f64      ┆ i64     │
    ╞══════════╪═════════╡
    │ 0.791667 ┆ 3       │
    └──────────┴─────────┘

    One score for three ordered classes (pROC's univariate ``multiclass.roc``):

    >>> grades = pl.DataFrame({
    ...     "label": ["low", "low", "mid", "mid", "high", "high"],
    ...     "score": [0.1, 0.5, 0.4, 0.6, 0.55, 0.9],
    ... })
    >>> pr.multiclass_auc(grades, score="score", classes=["low", "mid", "high"])
    shape: (1, 2)
    ┌──────────┬─────────┐
    │ auc      ┆ n_terms │
    │ ---      ┆ ---     │
    │ f64      ┆ i64     │
    ╞══════════╪═════════╡
    │ 0.833333 ┆ 3       │
    └──────────┴─────────┘
    """
    roles = Roles(label=label, by=by, weight=weight, count=count, nulls=nulls)
    if score is not None or scores is None:
        return _univariate_auc(frame, roles, scores, score, classes, average, direction)
    check_choice("method", method, ("ovr", "hand_till"))
    check_choice("average", average, ("macro", "weighted"))
    classes, columns = _classes(scores)
    segments = roles.by
    checked = prepare_classes(frame, roles, classes, columns, reserved=_AUC_RESERVED)
    rows, n_rows = checked.frame, checked.n_rows
    # One binary problem per class (or ordered pair of classes), stacked long in the
    # internal shape [*groups, score, pos, neg]: the values were checked above, so the
    # blocks need no second check, and `rows` is cached, so they read the source once.
    zero = pl.lit(0, dtype=pl.Float64 if weight is not None else pl.Int64)
    k = len(classes)
    if method == "ovr":
        groups = [*segments, CLASS]
        blocks = [_block(rows, segments, [i], pl.col(c), i, zero) for i, c in enumerate(columns)]
        rows_per_row = k
    else:
        groups = [*segments, CLASS, OTHER]
        # Ordered pair (a, b): rows of class a (positive) or b, ranked by a's score.
        pairs = [(a, b) for a in range(k) for b in range(k) if a != b]
        blocks = [_block(rows, segments, [a, b], pl.col(columns[a]), a, zero) for a, b in pairs]
        # A row of class c is in the k - 1 pairs (c, b) and the k - 1 pairs (a, c).
        rows_per_row = 2 * (k - 1)
    prep = checked.binary(pl.concat(blocks), groups, rows_per_row=rows_per_row)
    per_group = _aucs(
        prep,
        pl.col("n_pos").first().cast(pl.Float64).alias("support"),
        pl.col("n_neg").first().cast(pl.Float64).alias("others"),
    )
    if method == "hand_till":
        low = pl.min_horizontal(CLASS, OTHER).alias(CLASS)
        high = pl.max_horizontal(CLASS, OTHER).alias(OTHER)
        per_group = per_group.group_by(*segments, low, high).agg(
            # Both directions must exist (a mean of two: one sum in either order); a
            # pair's weight is its number of rows.
            pl.when(pl.col("auc").count() == 2).then(pl.col("auc").mean()).alias("auc"),
            (pl.col("support") + pl.col("others")).first().alias("support"),
        )
    return _averaged(per_group, rows, segments, groups, n_rows, average, eager=checked.eager)


def _block(
    rows: pl.LazyFrame, by: list[str], ids: list[int], score: pl.Expr, positive: int, zero: pl.Expr
) -> pl.LazyFrame:
    """The binary problem of class ``ids[0]`` (or of the pair ``ids``: their rows only), in
    the internal shape ``[*by, CLASS, (OTHER,) SCORE, POS, NEG]``, ``positive`` the class
    counted positive: the rows' checked values need no second check."""
    is_positive = pl.col(ACTUAL) == positive
    rows = rows.filter(pl.col(ACTUAL).is_in(ids)) if len(ids) > 1 else rows
    return rows.select(
        *by,
        *(pl.lit(i, dtype=pl.Int64).alias(name) for i, name in zip(ids, (CLASS, OTHER))),
        score.alias(SCORE),
        pl.when(is_positive).then(pl.col(WEIGHT)).otherwise(zero).alias(POS),
        pl.when(is_positive).then(zero).otherwise(pl.col(WEIGHT)).alias(NEG),
    )


def _aucs(prep: Prepared, *extra: pl.Expr) -> pl.LazyFrame:
    """The AUC of each binary problem (a group of ``prep``), and ``extra``."""
    area = auc_from_counts(pl.col("pos"), pl.col("neg"), pl.col("tp")).alias("auc")
    return build(prep).group_by(prep.by, maintain_order=True).agg(area, *extra)


def _averaged(
    per_group: pl.LazyFrame,
    rows: pl.LazyFrame,
    segments: list[str],
    terms: list[str],
    n_rows: int,
    average: MulticlassAverage,
    *,
    eager: bool,
) -> Frame:
    """``[*segments, auc, n_terms]``: the mean (or the mean weighted by ``support``) of
    the defined ``auc`` of ``per_group`` (one row per ``terms``), every segment of
    ``rows`` present."""
    # Terms (classes, pairs) in order: each segment's sums add them in that order.
    defined = per_group.filter(pl.col("auc").is_not_null()).sort(terms, nulls_last=False)
    if average == "macro":
        value = ordered_mean(pl.col("auc"))
    else:
        auc, support = pl.col("auc"), pl.col("support")
        value = ratio(ordered_sum(auc * support), ordered_sum(support))
    summary = [value.alias("auc"), pl.len().cast(pl.Int64).alias("n_terms")]
    if segments:
        ids = rows.select(segments).unique()
        result = (
            ids.join(
                defined.group_by(segments).agg(summary), on=segments, how="left", nulls_equal=True
            )
            .with_columns(pl.col("n_terms").fill_null(0))
            .sort(segments, nulls_last=False)
        )
    else:
        # Empty input gives an empty result, as the binary views do.
        result = defined.select(summary).filter(pl.lit(n_rows > 0))
    return finish_result(result, eager=eager, counts=("n_terms",))


def _univariate_auc(
    frame: Frame,
    roles: Roles,
    scores: Mapping[Any, str] | None,
    score: str | None,
    classes: Sequence[Any] | None,
    average: MulticlassAverage,
    direction: PairDirection,
) -> Frame:
    """:func:`multiclass_auc` of one score for every class (pROC's univariate form)."""
    if score is None or scores is not None:
        msg = (
            "pass exactly one of `scores` (a score column per class) or `score` (one "
            f"score for every class, with `classes=`); got scores={scores!r}, score={score!r}"
        )
        raise ValueError(msg)
    if classes is None or isinstance(classes, str) or len(classes) < 2:
        msg = f"with `score`, pass `classes=` listing at least two classes, got {classes!r}"
        raise ValueError(msg)
    check_choice("direction", direction, ("auto", "higher", "lower"))
    check_choice("average", average, ("macro", "weighted"))
    by, weight = roles.by, roles.weight
    if direction == "auto" and roles.unit is not None:
        msg = (
            "direction='auto' compares the classes' median scores, as pROC does, which "
            "weights and counts do not give; pass direction='higher' or 'lower'"
        )
        raise RocOptionError(msg)
    class_list = list(classes)
    checked = prepare_classes(frame, roles, class_list, [score], reserved=_AUC_RESERVED)
    rows, k = checked.frame, len(class_list)
    scored = pl.col(score).cast(pl.Float64) * (-1.0 if direction == "lower" else 1.0)
    zero = pl.lit(0, dtype=pl.Float64 if weight is not None else pl.Int64)
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    # Pair (a, b): the rows of class a or b, b positive, ranked by the one score.
    long = pl.concat(_block(rows, by, [a, b], scored, b, zero) for a, b in pairs)
    groups = [*by, CLASS, OTHER]
    prep = checked.binary(long, groups, rows_per_row=k - 1, negated=direction == "lower")
    support = (pl.col("n_pos") + pl.col("n_neg")).first().cast(pl.Float64).alias("support")
    per_pair = _aucs(prep, support)
    if direction == "auto":
        # R's median, (lower + upper middle value) / 2, to the last bit: Polars'
        # median interpolates, which can break a tie of medians pROC sees.
        values = pl.col(score)
        if checked.counted:  # an engine's cells (auto takes no count=): WEIGHT rows each
            ordered, below = values.sort(), pl.col(WEIGHT).sort_by(score).cum_sum()
            n = pl.col(WEIGHT).sum()
            low, high = (ordered.filter(below > at).first() for at in ((n - 1) // 2, n // 2))
        else:  # rows of weight 1: a selection, not the two sorts above (5-15x faster)
            low, high = values.quantile(0.5, "lower"), values.quantile(0.5, "higher")
        medians = rows.group_by(*by, ACTUAL).agg(((low + high) / 2).alias(score))
        for role, name in ((CLASS, "_median_a"), (OTHER, "_median_b")):
            per_pair = per_pair.join(
                medians.rename({ACTUAL: role, score: name}),
                on=[*by, role],
                how="left",
                nulls_equal=True,
            )
        # pROC: controls (a) above cases (b) in median turns the direction round.
        flip = pl.col("_median_a") > pl.col("_median_b")
        per_pair = per_pair.with_columns(
            pl.when(flip).then(1.0 - pl.col("auc")).otherwise(pl.col("auc")).alias("auc")
        )
    return _averaged(per_pair, rows, by, groups, checked.n_rows, average, eager=checked.eager)


def class_cells(
    frame: Frame,
    scores: Mapping[Any, str] | None,
    predicted: str | None,
    classes: Sequence[Any] | None,
    roles: Roles,
) -> tuple[bool, pl.LazyFrame, list[Any]]:
    """``[*by, actual, predicted, count]`` with class indices, every cell present
    (no cells for empty input). ``roles`` gives the label, ``by``, weight or count and
    ``nulls``."""
    if (scores is None) == (predicted is None):
        msg = (
            "pass exactly one of `scores` (predict the class with the highest score) or "
            f"`predicted` (a column of predicted classes); got scores={scores!r}, "
            f"predicted={predicted!r}"
        )
        raise ValueError(msg)
    if scores is not None:
        class_list, columns = _classes(scores)
    else:
        if classes is None or isinstance(classes, str) or len(classes) < 2:
            msg = f"with `predicted`, pass `classes=` listing at least two classes, got {classes!r}"
            raise ValueError(msg)
        class_list, columns = _sorted(classes), []
    checked = prepare_classes(frame, roles, class_list, columns, predicted=predicted)
    by, weight = roles.by, roles.weight
    # Cached: the counts and the grid of groups read the same rows, the source once.
    eager, rows, n_rows = checked.eager, checked.frame, checked.n_rows
    if scores is not None:
        # The index of the highest score (the first one on ties, as numpy.argmax).
        predicted_index = pl.concat_list(columns).list.arg_max().cast(pl.Int64)
        rows = rows.with_columns(predicted_index.alias(PREDICTED)).cache()
    # Float weights added in row order: a grouped sum's order follows the threads.
    cell_count = (ordered_sum if weight is not None else pl.Expr.sum)(pl.col(WEIGHT))
    counts = rows.group_by(*by, ACTUAL, PREDICTED).agg(cell_count.alias("count"))
    k = len(class_list)
    grid = pl.LazyFrame(
        {ACTUAL: [a for a in range(k) for _ in range(k)], PREDICTED: list(range(k)) * k},
        schema={ACTUAL: pl.Int64, PREDICTED: pl.Int64},
    )
    if by:
        grid = rows.select(by).unique().join(grid, how="cross")
    elif n_rows == 0:
        grid = grid.head(0)
    zero = 0.0 if weight is not None else 0
    cells = (
        grid.join(counts, on=[*by, ACTUAL, PREDICTED], how="left", nulls_equal=True)
        .with_columns(pl.col("count").fill_null(zero))
        .sort([*by, ACTUAL, PREDICTED], nulls_last=False)
    )
    return eager, cells, class_list


def multiclass_confusion(
    frame: Frame,
    scores: Mapping[Any, str] | None = None,
    *,
    predicted: str | None = None,
    classes: Sequence[Any] | None = None,
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    nulls: NullPolicy = "raise",
    normalize: ConfusionNormalize | None = None,
) -> Frame:
    """The k x k confusion matrix of a multi-class classifier, in long form.

    The predicted class is the one with the highest score (the first class in sorted
    order on ties, as ``numpy.argmax``), or the ``predicted`` column.

    Parameters
    ----------
    frame
        One row per prediction (a Polars frame, or another engine's, counted there).
    scores
        ``{class value: score column}``; the classes are its keys.
    predicted
        Instead of ``scores``: a column of predicted classes, with ``classes=``.
    classes
        The class values, when ``predicted`` is used.
    label, by, weight, count, nulls
        As in :func:`polars_roc.score_table`; ``label`` holds the true class.
    normalize
        Add ``proportion``, each cell's count over the counts of its true class
        (``"true"``: a row of the matrix sums to 1, the diagonal holds each class's
        recall), of its predicted class (``"pred"``: a column sums to 1, the diagonal
        holds precisions) or of its segment (``"all"``), as scikit-learn's
        ``confusion_matrix(normalize=)``. Where that total is 0 the proportion is null
        (scikit-learn writes 0).

    Returns
    -------
    DataFrame or LazyFrame
        ``[*by, actual, predicted, count]`` (and ``proportion`` with ``normalize``):
        every one of the k x k cells per segment (zeros included), rows ordered by
        segment, actual then predicted class; ``count`` is Int64, or Float64 with
        ``weight``. ``df.pivot(on="predicted", index="actual", values="count")`` gives
        the square matrix.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"label": ["a", "b", "b", "a"], "pred": ["a", "b", "a", "a"]})
    >>> pr.multiclass_confusion(df, predicted="pred", classes=["a", "b"])
    shape: (4, 3)
    ┌────────┬───────────┬───────┐
    │ actual ┆ predicted ┆ count │
    │ ---    ┆ ---       ┆ ---   │
    │ str    ┆ str       ┆ i64   │
    ╞════════╪═══════════╪═══════╡
    │ a      ┆ a         ┆ 2     │
    │ a      ┆ b         ┆ 0     │
    │ b      ┆ a         ┆ 1     │
    │ b      ┆ b         ┆ 1     │
    └────────┴───────────┴───────┘

    Each true class's row as shares (scikit-learn's ``normalize="true"``):

    >>> pr.multiclass_confusion(df, predicted="pred", classes=["a", "b"], normalize="true")
    shape: (4, 4)
    ┌────────┬───────────┬───────┬────────────┐
    │ actual ┆ predicted ┆ count ┆ proportion │
    │ ---    ┆ ---       ┆ ---   ┆ ---        │
    │ str    ┆ str       ┆ i64   ┆ f64        │
    ╞════════╪═══════════╪═══════╪════════════╡
    │ a      ┆ a         ┆ 2     ┆ 1.0        │
    │ a      ┆ b         ┆ 0     ┆ 0.0        │
    │ b      ┆ a         ┆ 1     ┆ 0.5        │
    │ b      ┆ b         ┆ 1     ┆ 0.5        │
    └────────┴───────────┴───────┴────────────┘
    """
    segments = normalize_by(by)
    check_choice("normalize", normalize, (None, "true", "pred", "all"))
    refuse_clashes(segments, ("actual", "predicted", "count", "proportion"))
    roles = Roles(label=label, by=segments, weight=weight, count=count, nulls=nulls)
    eager, cells, class_list = class_cells(frame, scores, predicted, classes, roles)
    result = cells.select(
        *segments,
        _class_values(class_list, ACTUAL, "actual"),
        _class_values(class_list, PREDICTED, "predicted"),
        "count",
    )
    if normalize is not None:
        within = {"true": [*segments, "actual"], "pred": [*segments, "predicted"]}
        total = over(ordered_sum(pl.col("count")), within.get(normalize, segments))
        share = ratio(pl.col("count").cast(pl.Float64), total.cast(pl.Float64))
        result = result.with_columns(share.alias("proportion"))
    return finish_result(result, eager=eager, counts=("count",))


def multiclass_measures(
    frame: Frame,
    scores: Mapping[Any, str] | None = None,
    *,
    predicted: str | None = None,
    classes: Sequence[Any] | None = None,
    label: str = "label",
    by: str | Sequence[str] | None = None,
    weight: str | None = None,
    count: str | None = None,
    nulls: NullPolicy = "raise",
    average: MeasureAverage | None = None,
    beta: float | None = None,
) -> Frame:
    """Per-class confusion measures of a multi-class classifier, and their averages.

    Class ``c`` read one-vs-rest from the k x k matrix: ``tp`` = rows of class ``c``
    predicted ``c``, ``fp`` = other rows predicted ``c``, ``fn`` = rows of class ``c``
    predicted otherwise, ``tn`` = the rest; then every measure of
    :func:`polars_roc.confusion_matrix`.

    Parameters
    ----------
    frame, scores, predicted, classes, label, by, weight, count, nulls
        As in :func:`multiclass_confusion`.
    average
        ``None``: one row per class. ``"macro"``: the unweighted mean of each rate over
        classes (nulls left out); ``"weighted"``: the mean weighted by each class's
        number of rows (``pos``, scikit-learn's support); ``"micro"``: the rates of the
        summed counts.
    beta
        Adds ``f_beta`` (see :func:`polars_roc.confusion_matrix`).

    Returns
    -------
    DataFrame or LazyFrame
        ``average=None``: ``[*by, class, tp, fp, fn, tn, <measures>]``, one row per
        segment and class. Otherwise ``[*by, <rates>]``, one row per segment, with the
        rate columns (``tpr, fpr, tnr, fnr, ppv, npv, fdr, for, accuracy, error_rate,
        balanced_accuracy, f1, [f_beta,] kappa, mcc, youden_j, prevalence, lr_pos,
        lr_neg, dor, p_tp, p_fp, p_fn, p_tn``).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_roc as pr
    >>> df = pl.DataFrame({"label": ["a", "b", "b", "a"], "pred": ["a", "b", "a", "a"]})
    >>> pr.multiclass_measures(df, predicted="pred", classes=["a", "b"]).select(
    ...     "class", "tp", "fp", "fn", "tn", "ppv", "tpr"
    ... )
    shape: (2, 7)
    ┌───────┬─────┬─────┬─────┬─────┬──────────┬─────┐
    │ class ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ ppv      ┆ tpr │
    │ ---   ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---      ┆ --- │
    │ str   ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ f64      ┆ f64 │
    ╞═══════╪═════╪═════╪═════╪═════╪══════════╪═════╡
    │ a     ┆ 2   ┆ 1   ┆ 0   ┆ 1   ┆ 0.666667 ┆ 1.0 │
    │ b     ┆ 1   ┆ 0   ┆ 1   ┆ 2   ┆ 1.0      ┆ 0.5 │
    └───────┴─────┴─────┴─────┴─────┴──────────┴─────┘
    """
    check_choice("average", average, (None, "macro", "weighted", "micro"))
    if beta is not None:
        check_beta(beta)
    segments = normalize_by(by)
    # Averages have no `class` column: a segment may be called so there.
    reserved = {"tp", "fp", "fn", "tn", "count", *MEASURE_COLUMNS, "f_beta"}
    reserved |= {"class"} if average is None else set()
    refuse_clashes(segments, reserved)
    roles = Roles(label=label, by=segments, weight=weight, count=count, nulls=nulls)
    eager, cells, class_list = class_cells(frame, scores, predicted, classes, roles)
    cell_count = pl.col("count")
    diagonal = cell_count.filter(pl.col(ACTUAL) == pl.col(PREDICTED)).sum()
    # Row sums (class c is the truth) and column sums (c is predicted), per class; every
    # float sum adds in the order of the sorted cells (or classes), the same each run.
    actual = (
        cells.group_by(*segments, ACTUAL)
        .agg(diagonal.alias("tp"), ordered_sum(cell_count).alias("pos"))
        .rename({ACTUAL: CLASS})
    )
    predicted_sums = (
        cells.group_by(*segments, PREDICTED)
        .agg(ordered_sum(cell_count).alias("pp"))
        .rename({PREDICTED: CLASS})
    )
    per_class = (
        actual.join(predicted_sums, on=[*segments, CLASS], nulls_equal=True)
        .sort([*segments, CLASS], nulls_last=False)
        .with_columns(over(ordered_sum(pl.col("pos")), segments).alias("n"))
        .select(
            *segments,
            CLASS,
            "tp",
            (pl.col("pp") - pl.col("tp")).alias("fp"),
            (pl.col("pos") - pl.col("tp")).alias("fn"),
            (pl.col("n") - pl.col("pp") - pl.col("pos") + pl.col("tp")).alias("tn"),
        )
        .pipe(with_measures, beta)
    )
    rates = list(RATE_MEASURES)
    if beta is not None:
        rates.insert(rates.index("f1") + 1, "f_beta")
    if average is None:
        result = per_class.with_columns(_class_values(class_list, CLASS, CLASS)).rename(
            {CLASS: "class"}
        )
    elif average == "micro":
        summed = agg_per_group(
            per_class, segments, *(ordered_sum(pl.col(c)) for c in ("tp", "fp", "fn", "tn"))
        )
        result = with_measures(summed, beta).select(*segments, *rates)
    else:
        if average == "macro":
            stats = [ordered_mean(pl.col(c)).alias(c) for c in rates]
        else:
            support = pl.col("pos").cast(pl.Float64)
            stats = [
                ratio(
                    ordered_sum((pl.col(c) * support).filter(pl.col(c).is_not_null())),
                    ordered_sum(support.filter(pl.col(c).is_not_null())),
                ).alias(c)
                for c in rates
            ]
        result = agg_per_group(per_class, segments, *stats)
    counts = ("tp", "fp", "fn", "tn") if average is None else ()
    return finish_result(result, eager=eager, counts=counts)
