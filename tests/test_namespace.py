"""The ``roc`` namespace mirrors the module functions: same parameters, same docstrings."""

from __future__ import annotations

import inspect
import re

import polars as pl
import pytest

import polars_roc as pr
from polars_roc import charts
from polars_roc.namespace import RocNamespace

METHODS = [
    name
    for name, _ in inspect.getmembers(RocNamespace, inspect.isfunction)
    if not name.startswith("_")
]
FUNCTIONS = {
    id(getattr(pr, name).__doc__): getattr(pr, name)
    for name in pr.__all__
    if callable(getattr(pr, name)) and getattr(pr, name).__doc__
}


def target(method: str) -> object:
    """The module function a namespace method calls (found by its docstring)."""
    if method == "plot":
        return charts.plot
    found = FUNCTIONS.get(id(getattr(RocNamespace, method).__doc__))
    assert found is not None, f"df.roc.{method} does not carry a public function's docstring"
    return found


@pytest.mark.parametrize("method", METHODS)
def test_method_signature_is_the_function_signature(method: str) -> None:
    function = target(method)
    own = list(inspect.signature(getattr(RocNamespace, method)).parameters.values())[1:]
    theirs = list(inspect.signature(function).parameters.values())[1:]
    normalize = {r"\bFrame\b": "pl.DataFrame | pl.LazyFrame", r"\bPoints\b": "Any"}

    def described(p: inspect.Parameter) -> tuple[object, ...]:
        annotation = str(p.annotation)
        for alias, spelled in normalize.items():
            annotation = re.sub(alias, spelled, annotation)
        return (p.name, p.kind, p.default, annotation)

    assert [described(p) for p in own] == [described(p) for p in theirs]


@pytest.mark.parametrize("method", [m for m in METHODS if m != "plot"])
def test_help_shows_every_parameter(method: str) -> None:
    doc = getattr(pl.DataFrame({"x": [1]}).roc, method).__doc__
    assert doc is target(method).__doc__
    assert "Parameters" in doc or "Examples" in doc


def test_every_view_with_weight_takes_count_and_direction() -> None:
    # bootstrap632 weighs rows by their in-bag draws already (a count table of bootstrap
    # predictions has no meaning); multi-class scores are probabilities (higher wins).
    for method in METHODS:
        names = inspect.signature(getattr(RocNamespace, method)).parameters
        if "weight" in names:
            assert "count" in names or method in ("bootstrap632", "compare_long"), method
            if not method.startswith("multiclass"):
                assert "direction" in names, method
