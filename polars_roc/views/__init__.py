"""Views: small lazy computations over the score table (curves, confusion, precision-recall, gains,
hull, operating points, trend).

Internal: the public API is the top level of ``polars_roc``.
"""
