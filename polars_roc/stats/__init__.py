"""Inference on the score table: DeLong, the bootstrap, partial AUC, tests and intervals.

Internal: the public API is the top level of ``polars_roc``.
"""
