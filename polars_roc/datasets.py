"""Example prediction logs bundled with the package.

- :func:`load_credit`: a synthetic credit-scoring log (segments, months, a champion and a
  challenger score with ties, default flags), read from ``data/credit.parquet`` (its
  recipe: ``generate_credit`` in tests/test_datasets.py).
- :func:`load_fawcett`: the 20-instance table of Fawcett (2006) used in seed 001.
"""

from __future__ import annotations

from importlib import resources

import polars as pl

__all__ = ["load_credit", "load_fawcett"]

CREDIT_FILE = "credit.parquet"


def load_credit() -> pl.DataFrame:
    """A seeded, synthetic credit-scoring prediction log of 6,000 loans.

    Columns: ``loan_id`` (Int64), ``segment`` (``"retail"``, ``"sme"``,
    ``"corporate"``), ``month`` (``"2026-01"`` ... ``"2026-06"``), ``score`` (the
    champion model's probability of default, rounded to 3 decimals so that ties occur),
    ``score_challenger`` (a second model's probability), ``exposure`` (loan amount in
    thousands, usable as a weight) and ``label`` (Boolean, True when the loan defaulted:
    the positive class). Default rates and model quality differ by segment.

    Examples
    --------
    >>> import polars_roc as pr
    >>> log = pr.datasets.load_credit()
    >>> log.roc.auc(by="segment")
    shape: (3, 4)
    ┌───────────┬──────────┬───────┬───────┐
    │ segment   ┆ auc      ┆ n_pos ┆ n_neg │
    │ ---       ┆ ---      ┆ ---   ┆ ---   │
    │ str       ┆ f64      ┆ i64   ┆ i64   │
    ╞═══════════╪══════════╪═══════╪═══════╡
    │ corporate ┆ 0.724343 ┆ 114   ┆ 1086  │
    │ retail    ┆ 0.730488 ┆ 334   ┆ 2666  │
    │ sme       ┆ 0.743194 ┆ 231   ┆ 1569  │
    └───────────┴──────────┴───────┴───────┘
    """
    source = resources.files("polars_roc").joinpath("data").joinpath(CREDIT_FILE)
    with resources.as_file(source) as path:
        return pl.read_parquet(path)


def load_fawcett() -> pl.DataFrame:
    """The 20 scored instances of Fawcett (2006), Fig. 3, as tabled in seed 001.

    Columns ``instance`` (1..20), ``label`` (``"p"`` or ``"n"``: use ``pos_label="p"``)
    and ``score``. Its AUC is 0.68; at threshold 0.54 the classifier sits at
    ``fpr = 0.1``, ``tpr = 0.5`` with accuracy 0.70.

    Examples
    --------
    >>> import polars_roc as pr
    >>> pr.datasets.load_fawcett().roc.auc(pos_label="p")
    shape: (1, 3)
    ┌──────┬───────┬───────┐
    │ auc  ┆ n_pos ┆ n_neg │
    │ ---  ┆ ---   ┆ ---   │
    │ f64  ┆ i64   ┆ i64   │
    ╞══════╪═══════╪═══════╡
    │ 0.68 ┆ 10    ┆ 10    │
    └──────┴───────┴───────┘
    """
    return pl.DataFrame(
        {
            "instance": list(range(1, 21)),
            "label": list("ppnpppnnpnpnpnnnpnpn"),
            "score": [
                *(0.9, 0.8, 0.7, 0.6, 0.55, 0.54, 0.53, 0.52, 0.51, 0.505),
                *(0.4, 0.39, 0.38, 0.37, 0.36, 0.35, 0.34, 0.33, 0.30, 0.1),
            ],
        }
    )
