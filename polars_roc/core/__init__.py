"""Counting: from rows (Polars, count tables, other engines, bins) to the score table, its
validation, the one AUC formula and the confusion measures.

Internal: the public API is the top level of ``polars_roc``.
"""
