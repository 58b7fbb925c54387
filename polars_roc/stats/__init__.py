"""Inference on the score table: intervals, tests, power. Internal: the public API is the
top level of ``polars_roc``.

- ``auc_interval``: intervals of one (partial) AUC, DeLong's or the bootstrap's;
- ``rate_at_rate`` (tpr at fpr, fpr at tpr) and ``threshold_ci`` (rates at thresholds);
- ``paired_tests`` (two scores, same cases), ``unpaired_tests`` (two groups of rows),
  ``venkatraman`` (whole curves, permutations), ``power`` (power and sample size);
- the pieces they share: ``delong`` (placements), ``partial`` (areas and points of a
  curve), ``bootstrap`` (the resampler), ``cells`` (what it resamples, as a plan),
  ``distributions`` (scipy's p-values and quantiles), ``options``, ``alternative``.

Modules here take score tables or prepared rows, never a view: ``views`` may import
``stats``, not the other way round.
"""
