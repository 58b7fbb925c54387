"""The ``roc`` namespace on polars ``DataFrame`` and ``LazyFrame``.

Each method is a one-line call of the module-level function of the same family, with the
frame as first argument; see those functions for parameters and examples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Generic, Literal, TypeVar

import polars as pl

from polars_roc._auc import roc_auc
from polars_roc._averaging import AverageMethod, Band, average_curve
from polars_roc._confusion import confusion_matrix
from polars_roc._curve import roc_curve
from polars_roc._folds import FoldMethod, bootstrap632_summary, fold_summary, folds
from polars_roc._gains import gains_table, ks_statistic, lift_curve
from polars_roc._hull import HullPoints, hull_auc, optimal_point, roc_hull
from polars_roc._inference import compare, compare_groups, fpr_at, tpr_at
from polars_roc._multiclass import (
    MeasureAverage,
    MulticlassAverage,
    MulticlassMethod,
    multiclass_auc,
    multiclass_confusion,
    multiclass_measures,
    one_vs_rest,
)
from polars_roc._operating import BestMethod, Ties, best_threshold, threshold_at
from polars_roc._pr import pr_average_precision, pr_curve
from polars_roc._score_table import score_table
from polars_roc._trend import Adjust, CiMethod, drift, trend
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
        drop_intermediate: bool = False, cost_fp: float | None = None,
        cost_fn: float | None = None,
    ) -> FrameT:
        """ROC curve points per group; see :func:`polars_roc.roc_curve`."""
        return roc_curve(self._frame, score=score, label=label, by=by, weight=weight,
                         pos_label=pos_label, nulls=nulls,
                         drop_intermediate=drop_intermediate, cost_fp=cost_fp,
                         cost_fn=cost_fn)  # fmt: skip

    def auc(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
        ci: Literal["delong", "bootstrap"] | None = None, conf_level: float = 0.95,
        n_boot: int = 2000, seed: int | None = None, max_fpr: float | None = None,
        fpr_range: tuple[float, float] | None = None,
        tpr_range: tuple[float, float] | None = None, standardize: bool = True,
        progress: bool = False,
    ) -> FrameT:
        """Area under the ROC curve per group (with ``ci=``, an interval; with
        ``max_fpr=``, a partial AUC); see :func:`polars_roc.roc_auc`."""
        return roc_auc(self._frame, score=score, label=label, by=by, weight=weight,
                       pos_label=pos_label, nulls=nulls, ci=ci, conf_level=conf_level,
                       n_boot=n_boot, seed=seed, max_fpr=max_fpr, fpr_range=fpr_range,
                       tpr_range=tpr_range, standardize=standardize,
                       progress=progress)  # fmt: skip

    def compare(
        self, scores: Sequence[str], *, label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
        method: Literal["delong", "bootstrap"] = "delong", conf_level: float = 0.95,
        n_boot: int = 2000, seed: int | None = None, max_fpr: float | None = None,
        fpr_range: tuple[float, float] | None = None,
        tpr_range: tuple[float, float] | None = None, standardize: bool = True,
        progress: bool = False,
    ) -> FrameT:
        """Paired test of two scores' AUCs per group; see :func:`polars_roc.compare`."""
        return compare(self._frame, scores, label=label, by=by, weight=weight,
                       pos_label=pos_label, nulls=nulls, method=method,
                       conf_level=conf_level, n_boot=n_boot, seed=seed, max_fpr=max_fpr,
                       fpr_range=fpr_range, tpr_range=tpr_range, standardize=standardize,
                       progress=progress)  # fmt: skip

    def compare_groups(
        self, *, by: str, groups: tuple[Any, Any], within: Columns = None,
        score: str = "score", label: str = "label", weight: str | None = None,
        pos_label: Any = None, nulls: NullPolicy = "raise",
        method: Literal["delong", "bootstrap"] = "delong", conf_level: float = 0.95,
        n_boot: int = 2000, seed: int | None = None, max_fpr: float | None = None,
        fpr_range: tuple[float, float] | None = None,
        tpr_range: tuple[float, float] | None = None, standardize: bool = True,
        progress: bool = False,
    ) -> FrameT:
        """Unpaired test of two groups' AUCs; see :func:`polars_roc.compare_groups`."""
        return compare_groups(self._frame, by=by, groups=groups, within=within, score=score,
                              label=label, weight=weight, pos_label=pos_label, nulls=nulls,
                              method=method, conf_level=conf_level, n_boot=n_boot, seed=seed,
                              max_fpr=max_fpr, fpr_range=fpr_range, tpr_range=tpr_range,
                              standardize=standardize, progress=progress)  # fmt: skip

    def tpr_at(
        self, fpr: float | Sequence[float], *, score: str = "score", label: str = "label",
        by: Columns = None, weight: str | None = None, pos_label: Any = None,
        nulls: NullPolicy = "raise", ci: Literal["bootstrap"] | None = None,
        conf_level: float = 0.95, n_boot: int = 2000, seed: int | None = None,
        progress: bool = False,
    ) -> FrameT:
        """Sensitivity at given false positive rates; see :func:`polars_roc.tpr_at`."""
        return tpr_at(self._frame, fpr, score=score, label=label, by=by, weight=weight,
                      pos_label=pos_label, nulls=nulls, ci=ci, conf_level=conf_level,
                      n_boot=n_boot, seed=seed, progress=progress)  # fmt: skip

    def fpr_at(
        self, tpr: float | Sequence[float], *, score: str = "score", label: str = "label",
        by: Columns = None, weight: str | None = None, pos_label: Any = None,
        nulls: NullPolicy = "raise", ci: Literal["bootstrap"] | None = None,
        conf_level: float = 0.95, n_boot: int = 2000, seed: int | None = None,
        progress: bool = False,
    ) -> FrameT:
        """False positive rate at given sensitivities; see :func:`polars_roc.fpr_at`."""
        return fpr_at(self._frame, tpr, score=score, label=label, by=by, weight=weight,
                      pos_label=pos_label, nulls=nulls, ci=ci, conf_level=conf_level,
                      n_boot=n_boot, seed=seed, progress=progress)  # fmt: skip

    def confusion(
        self, threshold: float | Sequence[float] = 0.5, *, score: str = "score",
        label: str = "label", by: Columns = None, weight: str | None = None,
        pos_label: Any = None, nulls: NullPolicy = "raise", beta: float | None = None,
        cost_fp: float | None = None, cost_fn: float | None = None,
    ) -> FrameT:
        """Confusion counts and measures per group and threshold; see
        :func:`polars_roc.confusion_matrix`."""
        return confusion_matrix(self._frame, threshold, score=score, label=label, by=by,
                                weight=weight, pos_label=pos_label, nulls=nulls,
                                beta=beta, cost_fp=cost_fp, cost_fn=cost_fn)  # fmt: skip

    # Operating points: hull, optimal thresholds, PR, KS, gains and lift (issue 5).
    def hull(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
        points: HullPoints = "vertices",
    ) -> FrameT:
        """ROC convex hull per group; see :func:`polars_roc.roc_hull`."""
        return roc_hull(self._frame, score=score, label=label, by=by, weight=weight,
                        pos_label=pos_label, nulls=nulls, points=points)  # fmt: skip

    def hull_auc(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Area under the ROC convex hull per group; see :func:`polars_roc.hull_auc`."""
        return hull_auc(self._frame, score=score, label=label, by=by, weight=weight,
                        pos_label=pos_label, nulls=nulls)  # fmt: skip

    def optimal_point(
        self, *, slope: float | None = None, prevalence: float | None = None,
        cost_fp: float | None = None, cost_fn: float | None = None, score: str = "score",
        label: str = "label", by: Columns = None, weight: str | None = None,
        pos_label: Any = None, nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Optimal ROC point for an operating condition; see
        :func:`polars_roc.optimal_point`."""
        return optimal_point(self._frame, slope=slope, prevalence=prevalence,
                             cost_fp=cost_fp, cost_fn=cost_fn, score=score, label=label,
                             by=by, weight=weight, pos_label=pos_label,
                             nulls=nulls)  # fmt: skip

    def best_threshold(
        self, method: BestMethod = "youden", *, score: str = "score",
        label: str = "label", by: Columns = None, weight: str | None = None,
        pos_label: Any = None, nulls: NullPolicy = "raise", cost_fp: float | None = None,
        cost_fn: float | None = None, prevalence: float | None = None,
        ties: Ties = "first",
    ) -> FrameT:
        """Best threshold per group for a criterion; see
        :func:`polars_roc.best_threshold`."""
        return best_threshold(self._frame, method, score=score, label=label, by=by,
                              weight=weight, pos_label=pos_label, nulls=nulls,
                              cost_fp=cost_fp, cost_fn=cost_fn, prevalence=prevalence,
                              ties=ties)  # fmt: skip

    def threshold_at(
        self, *, fpr: float | None = None, tpr: float | None = None,
        precision: float | None = None, score: str = "score", label: str = "label",
        by: Columns = None, weight: str | None = None, pos_label: Any = None,
        nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Threshold meeting a target rate per group; see
        :func:`polars_roc.threshold_at`."""
        return threshold_at(self._frame, fpr=fpr, tpr=tpr, precision=precision,
                            score=score, label=label, by=by, weight=weight,
                            pos_label=pos_label, nulls=nulls)  # fmt: skip

    def pr_curve(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
        drop_intermediate: bool = False,
    ) -> FrameT:
        """Precision-recall curve per group; see :func:`polars_roc.pr_curve`."""
        return pr_curve(self._frame, score=score, label=label, by=by, weight=weight,
                        pos_label=pos_label, nulls=nulls,
                        drop_intermediate=drop_intermediate)  # fmt: skip

    def average_precision(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Average precision per group; see :func:`polars_roc.pr_average_precision`."""
        return pr_average_precision(self._frame, score=score, label=label, by=by,
                                    weight=weight, pos_label=pos_label,
                                    nulls=nulls)  # fmt: skip

    def ks(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Kolmogorov-Smirnov statistic per group; see :func:`polars_roc.ks_statistic`."""
        return ks_statistic(self._frame, score=score, label=label, by=by, weight=weight,
                            pos_label=pos_label, nulls=nulls)  # fmt: skip

    def gains(
        self, n_bins: int = 10, *, score: str = "score", label: str = "label",
        by: Columns = None, weight: str | None = None, pos_label: Any = None,
        nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Gains table by score quantile per group; see :func:`polars_roc.gains_table`."""
        return gains_table(self._frame, n_bins, score=score, label=label, by=by,
                           weight=weight, pos_label=pos_label, nulls=nulls)  # fmt: skip

    def lift(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Cumulative gains and lift at every score; see :func:`polars_roc.lift_curve`."""
        return lift_curve(self._frame, score=score, label=label, by=by, weight=weight,
                          pos_label=pos_label, nulls=nulls)  # fmt: skip

    def plot(
        self, *, score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
        kind: Literal["roc", "pr"] = "roc", color: str | None = None,
        facet: str | None = None, columns: int | None = None, hull: bool = False,
        points: Any = None, optimal: Any = None, max_points: int | None = 1000,
    ) -> Any:
        """The curves and their Altair chart in one call; see :func:`polars_roc.charts.plot`."""
        from polars_roc.charts import plot  # altair loads on first use only

        return plot(self._frame, score=score, label=label, by=by, weight=weight,
                    pos_label=pos_label, nulls=nulls, kind=kind, color=color, facet=facet,
                    columns=columns, hull=hull, points=points, optimal=optimal,
                    max_points=max_points)  # fmt: skip


    # Evaluation strategies, curve averaging and multi-class ROC (issue 6).
    def folds(
        self, *, method: FoldMethod = "kfold", k: int = 5, test_size: float = 1 / 3,
        repeats: int = 1, stratify: str | None = None, seed: int = 0, name: str = "fold",
    ) -> FrameT:
        """Fold, split or bootstrap assignment; see :func:`polars_roc.folds`."""
        return folds(self._frame, method=method, k=k, test_size=test_size, repeats=repeats,
                     stratify=stratify, seed=seed, name=name)  # fmt: skip

    def summary(
        self, *, fold: str = "fold", threshold: float | None = None,
        metrics: Sequence[str] | None = None, score: str = "score", label: str = "label",
        by: Columns = None, weight: str | None = None, pos_label: Any = None,
        nulls: NullPolicy = "raise",
    ) -> FrameT:
        """AUC and measures summarised across folds; see :func:`polars_roc.fold_summary`."""
        return fold_summary(self._frame, fold=fold, threshold=threshold, metrics=metrics,
                            score=score, label=label, by=by, weight=weight,
                            pos_label=pos_label, nulls=nulls)  # fmt: skip

    def bootstrap632(
        self, *, fold: str = "fold", in_bag: str = "in_bag", threshold: float | None = None,
        metrics: Sequence[str] | None = None, score: str = "score", label: str = "label",
        by: Columns = None, weight: str | None = None, pos_label: Any = None,
        nulls: NullPolicy = "raise",
    ) -> FrameT:
        """The .632 bootstrap estimate; see :func:`polars_roc.bootstrap632_summary`."""
        return bootstrap632_summary(self._frame, fold=fold, in_bag=in_bag,
                                    threshold=threshold, metrics=metrics, score=score,
                                    label=label, by=by, weight=weight, pos_label=pos_label,
                                    nulls=nulls)  # fmt: skip

    def average_curve(
        self, *, fold: str = "fold", method: AverageMethod = "vertical",
        grid: int | Sequence[float] = 101, band: Band = "std", conf_level: float = 0.95,
        score: str = "score", label: str = "label", by: Columns = None,
        weight: str | None = None, pos_label: Any = None, nulls: NullPolicy = "raise",
    ) -> FrameT:
        """Mean ROC curve across folds with its band; see :func:`polars_roc.average_curve`."""
        return average_curve(self._frame, fold=fold, method=method, grid=grid, band=band,
                             conf_level=conf_level, score=score, label=label, by=by,
                             weight=weight, pos_label=pos_label, nulls=nulls)  # fmt: skip

    def one_vs_rest(
        self, scores: Mapping[Any, str], *, label: str = "label", score: str = "score",
        class_name: str = "class",
    ) -> FrameT:
        """One binary problem per class, long; see :func:`polars_roc.one_vs_rest`."""
        return one_vs_rest(self._frame, scores, label=label, score=score,
                           class_name=class_name)  # fmt: skip

    def multiclass_auc(
        self, scores: Mapping[Any, str], *, label: str = "label", by: Columns = None,
        weight: str | None = None, method: MulticlassMethod = "ovr",
        average: MulticlassAverage = "macro", nulls: NullPolicy = "raise",
    ) -> FrameT:
        """One-vs-rest or Hand & Till AUC; see :func:`polars_roc.multiclass_auc`."""
        return multiclass_auc(self._frame, scores, label=label, by=by, weight=weight,
                              method=method, average=average, nulls=nulls)  # fmt: skip

    def multiclass_confusion(
        self, scores: Mapping[Any, str] | None = None, *, predicted: str | None = None,
        classes: Sequence[Any] | None = None, label: str = "label", by: Columns = None,
        weight: str | None = None, nulls: NullPolicy = "raise",
    ) -> FrameT:
        """The k x k confusion matrix, long; see :func:`polars_roc.multiclass_confusion`."""
        return multiclass_confusion(self._frame, scores, predicted=predicted,
                                    classes=classes, label=label, by=by, weight=weight,
                                    nulls=nulls)  # fmt: skip

    def multiclass_measures(
        self, scores: Mapping[Any, str] | None = None, *, predicted: str | None = None,
        classes: Sequence[Any] | None = None, label: str = "label", by: Columns = None,
        weight: str | None = None, nulls: NullPolicy = "raise",
        average: MeasureAverage | None = None, beta: float | None = None,
    ) -> FrameT:
        """Per-class measures and averages; see :func:`polars_roc.multiclass_measures`."""
        return multiclass_measures(self._frame, scores, predicted=predicted,
                                   classes=classes, label=label, by=by, weight=weight,
                                   nulls=nulls, average=average, beta=beta)  # fmt: skip

    def trend(
        self, *, period: str, every: str | None = None, score: str = "score",
        label: str = "label", by: Columns = None, weight: str | None = None,
        pos_label: Any = None, nulls: NullPolicy = "raise", ci: CiMethod | None = None,
        conf_level: float = 0.95, n_boot: int = 2000, seed: int | None = None,
        scores: Sequence[str] | None = None, adjust: Adjust = "holm", alpha: float = 0.05,
    ) -> FrameT:
        """AUC, Gini and KS per period; see :func:`polars_roc.trend`."""
        return trend(self._frame, period=period, every=every, score=score, label=label,
                     by=by, weight=weight, pos_label=pos_label, nulls=nulls, ci=ci,
                     conf_level=conf_level, n_boot=n_boot, seed=seed, scores=scores,
                     adjust=adjust, alpha=alpha)  # fmt: skip

    def drift(
        self, *, period: str, baseline: Any = "first", every: str | None = None,
        score: str = "score", label: str = "label", by: Columns = None,
        pos_label: Any = None, nulls: NullPolicy = "raise", conf_level: float = 0.95,
        adjust: Adjust = "holm", alpha: float = 0.05,
    ) -> FrameT:
        """Each period's AUC tested against a baseline period; see :func:`polars_roc.drift`."""
        return drift(self._frame, period=period, baseline=baseline, every=every, score=score,
                     label=label, by=by, pos_label=pos_label, nulls=nulls,
                     conf_level=conf_level, adjust=adjust, alpha=alpha)  # fmt: skip

pl.api.register_dataframe_namespace("roc")(RocNamespace)
pl.api.register_lazyframe_namespace("roc")(RocNamespace)
