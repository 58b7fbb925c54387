"""The ``roc`` namespace on polars ``DataFrame`` and ``LazyFrame``.

Each method is a one-line call of the module-level function of the same family, with the
frame as first argument. Its signature is the function's (less the frame), and it carries
the function's docstring, so ``help(df.roc.auc)`` documents every parameter;
``tests/test_namespace.py`` holds the two in step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, Literal, TypeVar, cast

import polars as pl

from polars_roc.core.score_table import score_table
from polars_roc.core.validate import Direction, NullPolicy
from polars_roc.evaluation.agreement import KappaWeights, multiclass_agreement
from polars_roc.evaluation.averaging import AverageMethod, Band, average_curve
from polars_roc.evaluation.folds import FoldMethod, bootstrap632_summary, fold_summary, folds
from polars_roc.evaluation.multiclass import (
    MeasureAverage,
    MulticlassAverage,
    MulticlassMethod,
    multiclass_auc,
    multiclass_confusion,
    multiclass_measures,
    one_vs_rest,
)
from polars_roc.stats.alternative import Alternative
from polars_roc.stats.options import CiMethod
from polars_roc.stats.paired_tests import compare, compare_long
from polars_roc.stats.power import Sidedness, compare_power
from polars_roc.stats.rate_at_rate import fpr_at, tpr_at
from polars_roc.stats.threshold_ci import threshold_ci
from polars_roc.stats.unpaired_tests import compare_groups
from polars_roc.stats.venkatraman import RankTies, compare_curves, compare_curves_groups
from polars_roc.views.auc import roc_auc
from polars_roc.views.confusion import confusion_matrix
from polars_roc.views.curve import roc_curve
from polars_roc.views.cutpoints import CutTies, Goal, bootstrap_cutpoint, optimal_cutpoint
from polars_roc.views.det import det_curve
from polars_roc.views.gains import gains_table, ks_statistic, lift_curve
from polars_roc.views.hull import HullPoints, hull_auc, optimal_point, roc_hull
from polars_roc.views.operating import BestMethod, Ties, best_threshold, threshold_at
from polars_roc.views.pr import pr_auc, pr_average_precision, pr_curve
from polars_roc.views.trend import Adjust, drift, trend

__all__ = ["RocNamespace"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
F = TypeVar("F", bound=Callable[..., Any])


def _documented(function: Callable[..., Any]) -> Callable[[F], F]:
    """Give a method the docstring of the function it calls (py-polars does the same)."""

    def decorate(method: F) -> F:
        method.__doc__ = function.__doc__
        return method

    return decorate


class RocNamespace(Generic[FrameT]):
    """ROC analysis of a prediction log: ``df.roc.<method>(score=..., label=..., by=...)``.

    Eager frames give eager results, lazy frames lazy ones.
    """

    def __init__(self, frame: FrameT) -> None:
        self._frame: FrameT = frame

    @_documented(score_table)
    def score_table(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        bins: int | None = None,
    ) -> FrameT:
        return cast(
            FrameT,
            score_table(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                bins=bins,
            ),
        )

    @_documented(roc_curve)
    def curve(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        drop_intermediate: bool = False,
        cost_fp: float | None = None,
        cost_fn: float | None = None,
        bins: int | None = None,
        local_maxima: bool = False,
    ) -> FrameT:
        return cast(
            FrameT,
            roc_curve(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                drop_intermediate=drop_intermediate,
                cost_fp=cost_fp,
                cost_fn=cost_fn,
                bins=bins,
                local_maxima=local_maxima,
            ),
        )

    @_documented(roc_auc)
    def auc(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        ci: Literal["delong", "bootstrap"] | None = None,
        conf_level: float = 0.95,
        n_boot: int = 2000,
        seed: int | None = None,
        max_fpr: float | None = None,
        fpr_range: tuple[float, float] | None = None,
        tpr_range: tuple[float, float] | None = None,
        standardize: bool = True,
        progress: bool = False,
        bins: int | None = None,
    ) -> FrameT:
        return cast(
            FrameT,
            roc_auc(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                ci=ci,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                max_fpr=max_fpr,
                fpr_range=fpr_range,
                tpr_range=tpr_range,
                standardize=standardize,
                progress=progress,
                bins=bins,
            ),
        )

    @_documented(compare)
    def compare(
        self,
        scores: Sequence[str],
        *,
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        ci: CiMethod = "delong",
        conf_level: float = 0.95,
        n_boot: int = 2000,
        seed: int | None = None,
        max_fpr: float | None = None,
        fpr_range: tuple[float, float] | None = None,
        tpr_range: tuple[float, float] | None = None,
        standardize: bool = True,
        progress: bool = False,
        method: CiMethod | None = None,
        alternative: Alternative = "two-sided",
    ) -> FrameT:
        return cast(
            FrameT,
            compare(
                self._frame,
                scores,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                ci=ci,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                max_fpr=max_fpr,
                fpr_range=fpr_range,
                tpr_range=tpr_range,
                standardize=standardize,
                progress=progress,
                method=method,
                alternative=alternative,
            ),
        )

    @_documented(compare_long)
    def compare_long(
        self,
        models: tuple[Any, Any],
        *,
        case: str,
        model: str = "model",
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        ci: CiMethod = "delong",
        conf_level: float = 0.95,
        n_boot: int = 2000,
        seed: int | None = None,
        max_fpr: float | None = None,
        fpr_range: tuple[float, float] | None = None,
        tpr_range: tuple[float, float] | None = None,
        standardize: bool = True,
        progress: bool = False,
    ) -> FrameT:
        return cast(
            FrameT,
            compare_long(
                self._frame,
                models,
                case=case,
                model=model,
                score=score,
                label=label,
                by=by,
                weight=weight,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                ci=ci,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                max_fpr=max_fpr,
                fpr_range=fpr_range,
                tpr_range=tpr_range,
                standardize=standardize,
                progress=progress,
            ),
        )

    @_documented(compare_groups)
    def compare_groups(
        self,
        *,
        by: str,
        groups: tuple[Any, Any],
        within: str | Sequence[str] | None = None,
        score: str = "score",
        label: str = "label",
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        ci: CiMethod = "delong",
        conf_level: float = 0.95,
        n_boot: int = 2000,
        seed: int | None = None,
        max_fpr: float | None = None,
        fpr_range: tuple[float, float] | None = None,
        tpr_range: tuple[float, float] | None = None,
        standardize: bool = True,
        progress: bool = False,
        case: str | None = None,
        method: CiMethod | None = None,
        alternative: Alternative = "two-sided",
    ) -> FrameT:
        return cast(
            FrameT,
            compare_groups(
                self._frame,
                by=by,
                groups=groups,
                within=within,
                score=score,
                label=label,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                ci=ci,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                max_fpr=max_fpr,
                fpr_range=fpr_range,
                tpr_range=tpr_range,
                standardize=standardize,
                progress=progress,
                case=case,
                method=method,
                alternative=alternative,
            ),
        )

    @_documented(tpr_at)
    def tpr_at(
        self,
        fpr: float | Sequence[float],
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        ci: Literal["bootstrap"] | None = None,
        conf_level: float = 0.95,
        n_boot: int = 2000,
        seed: int | None = None,
        progress: bool = False,
    ) -> FrameT:
        return cast(
            FrameT,
            tpr_at(
                self._frame,
                fpr,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                ci=ci,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                progress=progress,
            ),
        )

    @_documented(fpr_at)
    def fpr_at(
        self,
        tpr: float | Sequence[float],
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        ci: Literal["bootstrap"] | None = None,
        conf_level: float = 0.95,
        n_boot: int = 2000,
        seed: int | None = None,
        progress: bool = False,
    ) -> FrameT:
        return cast(
            FrameT,
            fpr_at(
                self._frame,
                tpr,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                ci=ci,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                progress=progress,
            ),
        )

    @_documented(confusion_matrix)
    def confusion(
        self,
        threshold: float | Sequence[float] = 0.5,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        beta: float | None = None,
        cost_fp: float | None = None,
        cost_fn: float | None = None,
        prevalence: float | None = None,
    ) -> FrameT:
        return cast(
            FrameT,
            confusion_matrix(
                self._frame,
                threshold,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                beta=beta,
                cost_fp=cost_fp,
                cost_fn=cost_fn,
                prevalence=prevalence,
            ),
        )

    @_documented(roc_hull)
    def hull(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        points: HullPoints = "vertices",
    ) -> FrameT:
        return cast(
            FrameT,
            roc_hull(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                points=points,
            ),
        )

    @_documented(hull_auc)
    def hull_auc(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            hull_auc(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(optimal_point)
    def optimal_point(
        self,
        *,
        slope: float | None = None,
        prevalence: float | None = None,
        cost_fp: float | None = None,
        cost_fn: float | None = None,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            optimal_point(
                self._frame,
                slope=slope,
                prevalence=prevalence,
                cost_fp=cost_fp,
                cost_fn=cost_fn,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(best_threshold)
    def best_threshold(
        self,
        method: BestMethod = "youden",
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        cost_fp: float | None = None,
        cost_fn: float | None = None,
        prevalence: float | None = None,
        ties: Ties = "first",
    ) -> FrameT:
        return cast(
            FrameT,
            best_threshold(
                self._frame,
                method,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                cost_fp=cost_fp,
                cost_fn=cost_fn,
                prevalence=prevalence,
                ties=ties,
            ),
        )

    @_documented(threshold_at)
    def threshold_at(
        self,
        *,
        fpr: float | None = None,
        tpr: float | None = None,
        precision: float | None = None,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            threshold_at(
                self._frame,
                fpr=fpr,
                tpr=tpr,
                precision=precision,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(pr_curve)
    def pr_curve(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        drop_intermediate: bool = False,
    ) -> FrameT:
        return cast(
            FrameT,
            pr_curve(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                drop_intermediate=drop_intermediate,
            ),
        )

    @_documented(pr_average_precision)
    def average_precision(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            pr_average_precision(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(ks_statistic)
    def ks(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            ks_statistic(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(gains_table)
    def gains(
        self,
        n_bins: int = 10,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            gains_table(
                self._frame,
                n_bins,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(lift_curve)
    def lift(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            lift_curve(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    def plot(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: Literal["raise", "drop"] = "raise",
        direction: Literal["higher", "lower"] = "higher",
        kind: Literal["roc", "pr"] = "roc",
        color: str | None = None,
        facet: str | None = None,
        columns: int | None = None,
        hull: bool = False,
        points: Any = None,
        optimal: bool
        | Literal["youden"]
        | Mapping[str, float | None]
        | pl.DataFrame
        | pl.LazyFrame
        | None = None,
        max_points: int | None = 1000,
    ) -> Any:
        """The curves and their Altair chart in one call; see :func:`polars_roc.charts.plot`.

        Parameters as in :func:`polars_roc.charts.plot` (its page documents them all;
        it is not copied here so that ``import polars_roc`` does not load Altair).
        """
        from polars_roc.charts import plot  # altair loads on first use only

        return plot(
            self._frame,
            score=score,
            label=label,
            by=by,
            weight=weight,
            count=count,
            pos_label=pos_label,
            nulls=nulls,
            direction=direction,
            kind=kind,
            color=color,
            facet=facet,
            columns=columns,
            hull=hull,
            points=points,
            optimal=optimal,
            max_points=max_points,
        )

    @_documented(trend)
    def trend(
        self,
        *,
        period: str,
        every: str | None = None,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        ci: CiMethod | None = None,
        conf_level: float = 0.95,
        n_boot: int = 2000,
        seed: int | None = None,
        scores: Sequence[str] | None = None,
        adjust: Adjust = "holm",
        alpha: float = 0.05,
    ) -> FrameT:
        return cast(
            FrameT,
            trend(
                self._frame,
                period=period,
                every=every,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                ci=ci,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                scores=scores,
                adjust=adjust,
                alpha=alpha,
            ),
        )

    @_documented(drift)
    def drift(
        self,
        *,
        period: str,
        baseline: Any = "first",
        every: str | None = None,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        conf_level: float = 0.95,
        adjust: Adjust = "holm",
        alpha: float = 0.05,
    ) -> FrameT:
        return cast(
            FrameT,
            drift(
                self._frame,
                period=period,
                baseline=baseline,
                every=every,
                score=score,
                label=label,
                by=by,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                conf_level=conf_level,
                adjust=adjust,
                alpha=alpha,
            ),
        )

    @_documented(folds)
    def folds(
        self,
        *,
        method: FoldMethod = "kfold",
        k: int = 5,
        test_size: float = 1 / 3,
        repeats: int = 1,
        stratify: str | None = None,
        seed: int = 0,
        name: str = "fold",
        count: str | None = None,
    ) -> FrameT:
        return cast(
            FrameT,
            folds(
                self._frame,
                method=method,
                k=k,
                test_size=test_size,
                repeats=repeats,
                stratify=stratify,
                seed=seed,
                name=name,
                count=count,
            ),
        )

    @_documented(fold_summary)
    def summary(
        self,
        *,
        fold: str = "fold",
        threshold: float | None = None,
        metrics: Sequence[str] | None = None,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            fold_summary(
                self._frame,
                fold=fold,
                threshold=threshold,
                metrics=metrics,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(bootstrap632_summary)
    def bootstrap632(
        self,
        *,
        fold: str = "fold",
        in_bag: str = "in_bag",
        threshold: float | None = None,
        metrics: Sequence[str] | None = None,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            bootstrap632_summary(
                self._frame,
                fold=fold,
                in_bag=in_bag,
                threshold=threshold,
                metrics=metrics,
                score=score,
                label=label,
                by=by,
                weight=weight,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(average_curve)
    def average_curve(
        self,
        *,
        fold: str = "fold",
        method: AverageMethod = "vertical",
        grid: int | Sequence[float] = 101,
        band: Band = "std",
        conf_level: float = 0.95,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            average_curve(
                self._frame,
                fold=fold,
                method=method,
                grid=grid,
                band=band,
                conf_level=conf_level,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(one_vs_rest)
    def one_vs_rest(
        self,
        scores: Mapping[Any, str],
        *,
        label: str = "label",
        score: str = "score",
        class_name: str = "class",
    ) -> FrameT:
        return cast(
            FrameT,
            one_vs_rest(self._frame, scores, label=label, score=score, class_name=class_name),
        )

    @_documented(multiclass_auc)
    def multiclass_auc(
        self,
        scores: Mapping[Any, str],
        *,
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        method: MulticlassMethod = "ovr",
        average: MulticlassAverage = "macro",
        nulls: NullPolicy = "raise",
    ) -> FrameT:
        return cast(
            FrameT,
            multiclass_auc(
                self._frame,
                scores,
                label=label,
                by=by,
                weight=weight,
                count=count,
                method=method,
                average=average,
                nulls=nulls,
            ),
        )

    @_documented(multiclass_confusion)
    def multiclass_confusion(
        self,
        scores: Mapping[Any, str] | None = None,
        *,
        predicted: str | None = None,
        classes: Sequence[Any] | None = None,
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        nulls: NullPolicy = "raise",
    ) -> FrameT:
        return cast(
            FrameT,
            multiclass_confusion(
                self._frame,
                scores,
                predicted=predicted,
                classes=classes,
                label=label,
                by=by,
                weight=weight,
                count=count,
                nulls=nulls,
            ),
        )

    @_documented(multiclass_measures)
    def multiclass_measures(
        self,
        scores: Mapping[Any, str] | None = None,
        *,
        predicted: str | None = None,
        classes: Sequence[Any] | None = None,
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        nulls: NullPolicy = "raise",
        average: MeasureAverage | None = None,
        beta: float | None = None,
    ) -> FrameT:
        return cast(
            FrameT,
            multiclass_measures(
                self._frame,
                scores,
                predicted=predicted,
                classes=classes,
                label=label,
                by=by,
                weight=weight,
                count=count,
                nulls=nulls,
                average=average,
                beta=beta,
            ),
        )

    @_documented(optimal_cutpoint)
    def optimal_cutpoint(
        self,
        metric: str = "youden_j",
        *,
        goal: Goal = "maximize",
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        beta: float | None = None,
        cost_fp: float | None = None,
        cost_fn: float | None = None,
        ties: CutTies = "first",
    ) -> FrameT:
        return cast(
            FrameT,
            optimal_cutpoint(
                self._frame,
                metric,
                goal=goal,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                beta=beta,
                cost_fp=cost_fp,
                cost_fn=cost_fn,
                ties=ties,
            ),
        )

    @_documented(bootstrap_cutpoint)
    def bootstrap_cutpoint(
        self,
        metric: str = "youden_j",
        *,
        goal: Goal = "maximize",
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        beta: float | None = None,
        cost_fp: float | None = None,
        cost_fn: float | None = None,
        n_boot: int = 200,
        seed: int | None = None,
        summary: bool = False,
        conf_level: float = 0.95,
    ) -> FrameT:
        return cast(
            FrameT,
            bootstrap_cutpoint(
                self._frame,
                metric,
                goal=goal,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                beta=beta,
                cost_fp=cost_fp,
                cost_fn=cost_fn,
                n_boot=n_boot,
                seed=seed,
                summary=summary,
                conf_level=conf_level,
            ),
        )

    @_documented(det_curve)
    def det_curve(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        drop_intermediate: bool = False,
    ) -> FrameT:
        return cast(
            FrameT,
            det_curve(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                drop_intermediate=drop_intermediate,
            ),
        )

    @_documented(pr_auc)
    def pr_auc(
        self,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
    ) -> FrameT:
        return cast(
            FrameT,
            pr_auc(
                self._frame,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
            ),
        )

    @_documented(multiclass_agreement)
    def multiclass_agreement(
        self,
        scores: Mapping[Any, str] | None = None,
        *,
        predicted: str | None = None,
        classes: Sequence[Any] | None = None,
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        nulls: NullPolicy = "raise",
        kappa_weights: KappaWeights | None = None,
    ) -> FrameT:
        return cast(
            FrameT,
            multiclass_agreement(
                self._frame,
                scores,
                predicted=predicted,
                classes=classes,
                label=label,
                by=by,
                weight=weight,
                count=count,
                nulls=nulls,
                kappa_weights=kappa_weights,
            ),
        )

    @_documented(compare_power)
    def compare_power(
        self,
        scores: Sequence[str],
        *,
        label: str = "label",
        by: str | Sequence[str] | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        sig_level: float = 0.05,
        power: float | None = None,
        neg_per_pos: float | None = None,
        alternative: Sidedness = "two-sided",
    ) -> FrameT:
        return cast(
            FrameT,
            compare_power(
                self._frame,
                scores,
                label=label,
                by=by,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                sig_level=sig_level,
                power=power,
                neg_per_pos=neg_per_pos,
                alternative=alternative,
            ),
        )

    @_documented(threshold_ci)
    def threshold_ci(
        self,
        threshold: float | Sequence[float] = 0.5,
        *,
        score: str = "score",
        label: str = "label",
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        measures: str | Sequence[str] = ("tpr", "tnr", "ppv", "npv"),
        conf_level: float = 0.95,
        n_boot: int = 2000,
        seed: int | None = None,
        stratified: bool = True,
        progress: bool = False,
    ) -> FrameT:
        return cast(
            FrameT,
            threshold_ci(
                self._frame,
                threshold,
                score=score,
                label=label,
                by=by,
                weight=weight,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                measures=measures,
                conf_level=conf_level,
                n_boot=n_boot,
                seed=seed,
                stratified=stratified,
                progress=progress,
            ),
        )

    @_documented(compare_curves)
    def compare_curves(
        self,
        scores: Sequence[str],
        *,
        label: str = "label",
        by: str | Sequence[str] | None = None,
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        n_boot: int = 2000,
        seed: int | None = None,
        ties: RankTies = "first",
    ) -> FrameT:
        return cast(
            FrameT,
            compare_curves(
                self._frame,
                scores,
                label=label,
                by=by,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                n_boot=n_boot,
                seed=seed,
                ties=ties,
            ),
        )

    @_documented(compare_curves_groups)
    def compare_curves_groups(
        self,
        *,
        by: str,
        groups: tuple[Any, Any],
        within: str | Sequence[str] | None = None,
        score: str = "score",
        label: str = "label",
        count: str | None = None,
        pos_label: Any = None,
        nulls: NullPolicy = "raise",
        direction: Direction = "higher",
        n_boot: int = 2000,
        seed: int | None = None,
        ties: RankTies = "first",
    ) -> FrameT:
        return cast(
            FrameT,
            compare_curves_groups(
                self._frame,
                by=by,
                groups=groups,
                within=within,
                score=score,
                label=label,
                count=count,
                pos_label=pos_label,
                nulls=nulls,
                direction=direction,
                n_boot=n_boot,
                seed=seed,
                ties=ties,
            ),
        )


pl.api.register_dataframe_namespace("roc")(RocNamespace)
pl.api.register_lazyframe_namespace("roc")(RocNamespace)
