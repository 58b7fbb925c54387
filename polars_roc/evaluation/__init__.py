"""Evaluation strategies over several score tables: folds, averaged curves, multi-class.

Internal: the public API is the top level of ``polars_roc``.
"""
