"""ROC analysis of prediction logs in polars: curves, AUC and confusion measures per segment.

Importing the package registers the ``roc`` namespace on ``DataFrame`` and ``LazyFrame``.
"""

from __future__ import annotations

from polars_roc import datasets
from polars_roc import namespace as _namespace  # noqa: F401  (registers `.roc`)
from polars_roc._auc import auc, gini, roc_auc
from polars_roc._confusion import confusion_matrix
from polars_roc._curve import roc_curve
from polars_roc._measures import KAPPA_LEVELS
from polars_roc._score_table import score_table

__version__ = "0.1.0"

__all__ = [
    "KAPPA_LEVELS",
    "auc",
    "confusion_matrix",
    "datasets",
    "gini",
    "roc_auc",
    "roc_curve",
    "score_table",
]
