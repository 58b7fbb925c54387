"""The ``roc`` namespace on polars ``DataFrame`` and ``LazyFrame``.

Each method is a one-line call of the module-level function of the same family, with the
frame as first argument; see those functions for parameters and examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import polars as pl

from polars_roc._auc import roc_auc
from polars_roc._confusion import confusion_matrix
from polars_roc._curve import roc_curve
from polars_roc._score_table import score_table
from polars_roc._validate import NullPolicy

__all__ = ["RocNamespace"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
Columns = str | Sequence[str] | None


class RocNamespace(Generic[FrameT]):
    """ROC analysis of a prediction log: ``df.roc.<method>(score=..., label=..., by=...)``.

    Eager frames give eager results, lazy frames lazy ones.
    """

    def __init__(self, frame: FrameT) -> None:
        self._frame = frame

    def score_table(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Per group and distinct score counts; see :func:`polars_roc.score_table`."""
        return score_table(self._frame, score=score, label=label, by=by, weight=weight,
                           pos_label=pos_label, nulls=nulls)  # fmt: skip

    def curve(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
        drop_intermediate: bool = False,
    ) -> FrameT:
        """ROC curve points per group; see :func:`polars_roc.roc_curve`."""
        return roc_curve(self._frame, score=score, label=label, by=by, weight=weight,
                         pos_label=pos_label, nulls=nulls,
                         drop_intermediate=drop_intermediate)  # fmt: skip

    def auc(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Area under the ROC curve per group; see :func:`polars_roc.roc_auc`."""
        return roc_auc(self._frame, score=score, label=label, by=by, weight=weight,
                       pos_label=pos_label, nulls=nulls)  # fmt: skip

    def confusion(
        self, threshold: float | Sequence[float] = 0.5, *, score: str = "score",
        label: str = "label", by: Columns = None, weight: str | None = None,
        pos_label: Any = None, nulls: NullPolicy = "raise", beta: float | None = None,
    ) -> FrameT:
        """Confusion counts and measures per group and threshold; see
        :func:`polars_roc.confusion_matrix`."""
        return confusion_matrix(self._frame, threshold, score=score, label=label, by=by,
                                weight=weight, pos_label=pos_label, nulls=nulls,
                                beta=beta)  # fmt: skip


pl.api.register_dataframe_namespace("roc")(RocNamespace)
pl.api.register_lazyframe_namespace("roc")(RocNamespace)
