"""Every view finishes its result one way: counts as Int64, one-class groups warned about."""

from __future__ import annotations

import re
import warnings

import polars as pl
import pytest

import polars_roc as pr
from polars_roc.exceptions import SingleClassWarning


@pytest.mark.parametrize("lazy", [False, True])
def test_compare_groups_warns_about_a_one_class_group(lazy: bool) -> None:
    df = pl.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b", "c"],
            "label": [0, 1, 1, 1, 1, 0],
            "score": [0.1, 0.5, 0.9, 0.3, 0.4, 0.2],
        }
    )
    frame = df.lazy() if lazy else df
    with pytest.warns(SingleClassWarning, match=r"1 group\(s\) \[g='b'\] hold only one class"):
        result = pr.compare_groups(frame, by="g", groups=("a", "b"))
    result = result.collect() if lazy else result
    assert result["auc_b"].to_list() == [None]


def test_counts_of_curves_terms_and_folds_are_int64() -> None:
    log = pr.datasets.load_credit()
    assert pr.average_curve(log, fold="month", grid=3).schema["n_curves"] == pl.Int64
    assert pr.fold_summary(log, fold="month").schema["n_folds"] == pl.Int64
    classes = log.with_columns(grade=pl.col("segment"))
    scores = {"corporate": "score", "retail": "score_challenger"}
    two = classes.filter(pl.col("grade") != "sme")
    assert pr.multiclass_auc(two, scores, label="grade").schema["n_terms"] == pl.Int64


# ------------------------------------------------- every view ends in finish_result

MULTI = pl.DataFrame(
    {
        "seg": ["x", "x", "x", "x", "y", "y", "y", "y", "y"],
        "label": ["a", "b", "c", "a", "b", "c", "a", "b", "a"],
        "guess": ["a", "b", "a", "a", "b", "c", "c", "b", "a"],
        "p_a": [0.7, 0.1, 0.5, 0.6, 0.2, 0.1, 0.3, 0.2, 0.8],
        "p_b": [0.2, 0.8, 0.1, 0.3, 0.7, 0.2, 0.3, 0.6, 0.1],
        "p_c": [0.1, 0.1, 0.4, 0.1, 0.1, 0.7, 0.4, 0.2, 0.1],
    }
)
SCORES = {"a": "p_a", "b": "p_b", "c": "p_c"}
BINARY = pl.DataFrame(
    {
        "fold": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
        "score": [0.9, 0.2, 0.6, 0.4, 0.8, 0.3, 0.55, 0.1, 0.7, 0.35, 0.5, 0.45],
        "label": [1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0],
    }
)

# Each function that finished with `collect() if eager`, with its count columns.
VIEWS = [
    (
        "multiclass_agreement",
        lambda f: pr.multiclass_agreement(f, predicted="guess", classes=["a", "b", "c"], by="seg"),
        (),
    ),
    ("folds kfold", lambda f: pr.folds(f, method="kfold", k=2, seed=3, name="part"), ()),
    (
        "folds bootstrap",
        lambda f: pr.folds(f, method="bootstrap", seed=3, name="part"),
        ("in_bag",),
    ),
    ("fold_summary", lambda f: pr.fold_summary(f, fold="fold"), ("n_folds",)),
    (
        "bootstrap632_summary",
        lambda f: pr.bootstrap632_summary(
            pr.folds(f, method="bootstrap", repeats=2, seed=1, name="rep"), fold="rep"
        ),
        ("n_replicates",),
    ),
    ("one_vs_rest", lambda f: pr.one_vs_rest(f, SCORES), ()),
    ("multiclass_confusion", lambda f: pr.multiclass_confusion(f, SCORES, by="seg"), ("count",)),
    (
        "multiclass_measures",
        lambda f: pr.multiclass_measures(f, SCORES, by="seg"),
        ("tp", "fp", "fn", "tn"),
    ),
    ("multiclass_auc", lambda f: pr.multiclass_auc(f, SCORES, by="seg"), ("n_terms",)),
    ("average_curve", lambda f: pr.average_curve(f, fold="fold", grid=3), ("n_curves",)),
    (
        "average_curve threshold",
        lambda f: pr.average_curve(f, fold="fold", method="threshold", grid=[0.5]),
        ("n_curves",),
    ),
]


@pytest.mark.parametrize(("name", "call", "counts"), VIEWS, ids=[v[0] for v in VIEWS])
def test_eager_in_eager_out_lazy_in_lazy_out_counts_int64(name, call, counts) -> None:
    source = MULTI if name.startswith(("multiclass", "one_vs_rest")) else BINARY
    eager = call(source)
    lazy = call(source.lazy())
    assert isinstance(eager, pl.DataFrame)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(eager)
    assert lazy.collect_schema() == eager.schema
    for column in counts:
        assert eager.schema[column] == pl.Int64, column


@pytest.mark.parametrize("lazy", [False, True])
def test_fold_views_warn_once_about_a_one_class_fold(lazy: bool) -> None:
    # Fold 4 holds negatives only: named once, by the finisher, eager or lazy.
    extra = pl.DataFrame({"fold": [4, 4], "score": [0.3, 0.6], "label": [0, 0]})
    log = pl.concat([BINARY, extra])
    frame = log.lazy() if lazy else log
    for call in (
        lambda: pr.fold_summary(frame, fold="fold"),
        lambda: pr.average_curve(frame, fold="fold", grid=3),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call()
            if lazy:
                result.collect()
        named = [w for w in caught if issubclass(w.category, SingleClassWarning)]
        assert len(named) == 1
        assert "fold=4" in str(named[0].message)


def test_no_view_finishes_on_its_own() -> None:
    # One ending: `collect() if eager` lives in core/finish.py (and Prepared's own
    # finish) only, so every view has the same dtypes, warnings and frame kind.
    import pathlib

    import polars_roc

    root = pathlib.Path(polars_roc.__file__).parent
    pattern = re.compile(r"\.collect\([^)]*\) if (prep\.)?eager else")
    found = [
        str(path.relative_to(root))
        for path in sorted(root.rglob("*.py"))
        if pattern.search(path.read_text())
    ]
    assert set(found) == {"core/finish.py"}
