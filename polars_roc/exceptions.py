"""The library's exception and warning classes.

Each subclasses the built-in class that code written before they existed catches
(``ValueError``, ``TypeError``, ``UserWarning``), so ``except ValueError`` keeps working;
catch these to tell the library's own complaints from others.

Examples
--------
>>> import polars as pl
>>> import polars_roc as pr
>>> from polars_roc.exceptions import RocInputError
>>> try:
...     pr.roc_auc(pl.DataFrame({"score": [0.2, 0.8], "label": [0, 2]}))
... except RocInputError as err:
...     print(type(err).__name__, isinstance(err, ValueError))
RocInputError True
"""

from __future__ import annotations

from polars.exceptions import InvalidOperationError

__all__ = [
    "RocInputError",
    "RocOptionError",
    "RocOptionTypeError",
    "RocQueryError",
    "SingleClassWarning",
    "UndefinedWarning",
]


class RocInputError(ValueError):
    """The data cannot be used as given: a column's dtype or values (nulls, NaN, labels,
    weights, counts). The message names the column, what was found and how to fix it."""


class RocQueryError(RocInputError, InvalidOperationError):
    """An expression (``pr.auc``, ``pr.brier``, ...) met bad values when the query ran:
    nulls under ``nulls="raise"``, inputs of different lengths, integer scores past
    2^53. Also a ``polars.exceptions.InvalidOperationError``, which these stops raised
    before, so code catching that keeps working."""


class RocOptionError(ValueError):
    """An option (keyword argument) has a value the function does not accept."""


class RocOptionTypeError(RocOptionError, TypeError):
    """An option has a value of the wrong type (a string where a number is expected).
    Both a ``ValueError`` and a ``TypeError``, so code catching either keeps working."""


class SingleClassWarning(UserWarning):
    """Some groups hold only one class: their AUC and the rates needing both are null."""


class UndefinedWarning(UserWarning):
    """Some groups' value is null although their data are usable: a BCa bound whose
    acceleration or bias correction is undefined (every replicate equal, an AUC of 1),
    or a binormal fit without enough distinct operating points."""
