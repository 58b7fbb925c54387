"""The ``roc`` namespace on polars ``DataFrame`` and ``LazyFrame``: a dispatch.

Each method is generated from the module function it calls with the frame first
(``auc = _Method(roc_auc)``), as py-polars' ``expr_dispatch`` does: its signature is the
function's less ``frame``, its docstring the function's less the ``frame`` parameter, with
the examples' calls rewritten as ``df.roc.<method>(...)``. Nothing is restated, so nothing
is kept in step by hand; type checkers see each method's parameters through ``_Method``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from types import MethodType
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

import polars as pl

from polars_roc.core.score_table import score_table
from polars_roc.core.validate import Frame
from polars_roc.evaluation.agreement import multiclass_agreement
from polars_roc.evaluation.averaging import average_curve
from polars_roc.evaluation.folds import bootstrap632_summary, fold_summary, folds
from polars_roc.evaluation.multiclass import (
    multiclass_auc,
    multiclass_confusion,
    multiclass_measures,
    one_vs_rest,
)
from polars_roc.stats.paired_tests import compare, compare_long
from polars_roc.stats.power import compare_power
from polars_roc.stats.rate_at_rate import fpr_at, tpr_at
from polars_roc.stats.threshold_ci import threshold_ci
from polars_roc.stats.unpaired_tests import compare_groups
from polars_roc.stats.venkatraman import compare_curves, compare_curves_groups
from polars_roc.views.auc import roc_auc
from polars_roc.views.break_even import prbe
from polars_roc.views.calibration import (
    brier_decomposition,
    calibration_curve,
    calibration_error,
    calibration_test,
)
from polars_roc.views.confusion import confusion_matrix
from polars_roc.views.curve import roc_curve
from polars_roc.views.cutpoints import bootstrap_cutpoint, optimal_cutpoint
from polars_roc.views.decision import decision_curve
from polars_roc.views.det import det_curve
from polars_roc.views.disparity import disparity, disparity_summary
from polars_roc.views.estimated import estimated_auc, estimated_confusion
from polars_roc.views.gains import gains_table, ks_statistic, lift_curve
from polars_roc.views.grades import grade_summary, grade_test
from polars_roc.views.hull import hull_auc, optimal_point, roc_hull
from polars_roc.views.operating import best_threshold, threshold_at
from polars_roc.views.pr import pr_auc, pr_average_precision, pr_curve
from polars_roc.views.stability import psi
from polars_roc.views.trend import drift, trend

if TYPE_CHECKING:
    from polars_roc.charts.plotting import plot

__all__ = ["RocNamespace"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
P = ParamSpec("P")
R = TypeVar("R")
ClassT = TypeVar("ClassT", bound=type)


class _Method(Generic[P, R]):
    """A namespace method generated from ``function(frame, ...)``; see the module's doc.

    ``module`` (with ``function=None``) defers the import of the function, its
    signature and docstring to the method's first use.
    """

    def __init__(
        self, function: Callable[Concatenate[Frame, P], R] | None, module: str = ""
    ) -> None:
        self._function = function
        self._module = module
        self._generated: Callable[..., R] | None = None
        self._names: dict[str, str] = {}

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self._name = name
        self._owner = owner.__qualname__

    def _document(self, names: dict[str, str]) -> None:
        """Write the docstring, once every method of the class is known (``names``)."""
        self._names = names
        if self._function is not None:
            self.__doc__ = self._method().__doc__

    def _method(self) -> Callable[..., R]:
        if self._generated is None:
            function = self._function or getattr(importlib.import_module(self._module), self._name)

            def method(namespace: RocNamespace[Any], /, *args: Any, **kwargs: Any) -> R:
                return function(namespace._frame, *args, **kwargs)

            signature = inspect.signature(function)
            parameters = list(signature.parameters.values())[1:]
            this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
            method.__signature__ = signature.replace(parameters=[this, *parameters])  # type: ignore[attr-defined]
            method.__name__ = self._name
            method.__qualname__ = f"{self._owner}.{self._name}"
            method.__doc__ = _method_doc(function.__doc__ or "", self._names)
            self._generated = method
        return self._generated

    @overload
    def __get__(
        self, instance: None, owner: type[Any]
    ) -> Callable[Concatenate[RocNamespace[Any], P], R]: ...

    @overload
    def __get__(
        self: _Method[P, Frame], instance: RocNamespace[FrameT], owner: type[Any]
    ) -> Callable[P, FrameT]: ...

    @overload
    def __get__(self, instance: RocNamespace[Any], owner: type[Any]) -> Callable[P, R]: ...

    def __get__(self, instance: RocNamespace[Any] | None, owner: type[Any]) -> Any:
        if instance is None:
            return self._method()
        return MethodType(self._method(), instance)


def _method_doc(doc: str, names: dict[str, str]) -> str:
    """``doc`` of ``function(frame, ...)`` as the method's: no ``frame``, calls as methods.

    ``names`` maps function names to method names: ``pr.roc_auc(df, by="g")`` becomes
    ``df.roc.auc(by="g")`` wherever the frame argument is a plain name.
    """
    doc = inspect.cleandoc(doc)
    # A numpydoc entry is a line at the margin (``frame`` or ``frame, scores, ...``)
    # followed by its indented description; ``frame`` goes from the names, an entry
    # naming only ``frame`` goes whole.
    doc = re.sub(r"(?m)^frame\n(?:    .*\n)*", "", doc)
    doc = re.sub(r"(?m)^frame, (?=\w)", "", doc)
    # The roles are described once, in score_table's docstring: help() shows them here
    # rather than pointing there (an entry that adds to them keeps its pointer).
    doc = re.sub(
        r"(?m)^(\w+(?:, \w+)*)\n    As in :func:`polars_roc\.score_table`\.\n", _roles, doc
    )
    return re.sub(
        rf"\bpr\.({'|'.join(names)})\((\w+)(?:, |(?=\)))",
        lambda call: f"{call[2]}.roc.{names[call[1]]}(",
        doc,
    )


def _entries(doc: str) -> dict[str, str]:
    """The entries of one parameter each in the Parameters section of ``doc``, by name."""
    section = inspect.cleandoc(doc).partition("Parameters\n----------\n")[2].partition("\n\n")[0]
    found = re.finditer(r"(?m)^(\w+)\n(?:    .*\n?)+", section)
    return {entry[1]: entry[0].rstrip("\n") + "\n" for entry in found}


_ROLES = _entries(score_table.__doc__ or "")


def _roles(entry: re.Match[str]) -> str:
    names = entry[1].split(", ")
    return "".join(_ROLES[name] for name in names) if set(names) <= set(_ROLES) else entry[0]


def _dispatch(namespace: ClassT) -> ClassT:
    """Document the methods of ``namespace`` with every function-to-method name known."""
    methods = {name: m for name, m in vars(namespace).items() if isinstance(m, _Method)}
    names = {(m._function.__name__ if m._function else name): name for name, m in methods.items()}
    for method in methods.values():
        method._document(names)
    return namespace


@_dispatch
class RocNamespace(Generic[FrameT]):
    """ROC analysis of a prediction log: ``df.roc.<method>(score=..., label=..., by=...)``.

    Each method calls its module function with the frame first (``df.roc.auc(...)`` is
    ``pr.roc_auc(df, ...)``); eager frames give eager results, lazy frames lazy ones.
    """

    def __init__(self, frame: FrameT) -> None:
        self._frame: FrameT = frame

    score_table = _Method(score_table)
    curve = _Method(roc_curve)
    auc = _Method(roc_auc)
    compare = _Method(compare)
    compare_long = _Method(compare_long)
    compare_groups = _Method(compare_groups)
    tpr_at = _Method(tpr_at)
    fpr_at = _Method(fpr_at)
    confusion = _Method(confusion_matrix)
    hull = _Method(roc_hull)
    hull_auc = _Method(hull_auc)
    optimal_point = _Method(optimal_point)
    best_threshold = _Method(best_threshold)
    threshold_at = _Method(threshold_at)
    pr_curve = _Method(pr_curve)
    average_precision = _Method(pr_average_precision)
    pr_auc = _Method(pr_auc)
    prbe = _Method(prbe)
    det_curve = _Method(det_curve)
    ks = _Method(ks_statistic)
    gains = _Method(gains_table)
    lift = _Method(lift_curve)
    trend = _Method(trend)
    drift = _Method(drift)
    folds = _Method(folds)
    summary = _Method(fold_summary)
    bootstrap632 = _Method(bootstrap632_summary)
    average_curve = _Method(average_curve)
    one_vs_rest = _Method(one_vs_rest)
    multiclass_auc = _Method(multiclass_auc)
    multiclass_confusion = _Method(multiclass_confusion)
    multiclass_measures = _Method(multiclass_measures)
    multiclass_agreement = _Method(multiclass_agreement)
    optimal_cutpoint = _Method(optimal_cutpoint)
    bootstrap_cutpoint = _Method(bootstrap_cutpoint)
    compare_power = _Method(compare_power)
    threshold_ci = _Method(threshold_ci)
    decision_curve = _Method(decision_curve)
    disparity = _Method(disparity)
    disparity_summary = _Method(disparity_summary)
    compare_curves = _Method(compare_curves)
    compare_curves_groups = _Method(compare_curves_groups)
    calibration = _Method(calibration_curve)
    brier = _Method(brier_decomposition)
    calibration_error = _Method(calibration_error)
    calibration_test = _Method(calibration_test)
    grade_test = _Method(grade_test)
    grade_summary = _Method(grade_summary)
    psi = _Method(psi)
    estimated_auc = _Method(estimated_auc)
    estimated_confusion = _Method(estimated_confusion)
    if TYPE_CHECKING:
        plot = _Method(plot)
    else:
        # Deferred so that `import polars_roc` does not load Altair.
        plot = _Method(None, "polars_roc.charts.plotting")


pl.api.register_dataframe_namespace("roc")(RocNamespace)
pl.api.register_lazyframe_namespace("roc")(RocNamespace)
