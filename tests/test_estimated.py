"""Performance estimated from the scores alone (issue 25, item 6): against a brute force
over pairs of rows, NannyML's CBPE definition, and the realised AUC of a calibrated log."""

from __future__ import annotations

import warnings

import duckdb
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError, SingleClassWarning


def scored(seed: int = 0, n: int = 400) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "segment": rng.choice(["retail", "sme"], size=n).tolist(),
            "month": rng.integers(1, 4, size=n),
            "score": np.round(rng.beta(2, 5, size=n), 2),  # ties on purpose
            "weight": np.round(rng.uniform(0.5, 2.0, size=n), 2),
        }
    )


LOG = scored()


def brute_auc(p: np.ndarray, w: np.ndarray | None = None) -> float:
    """Over all ordered pairs of rows, a row with itself included: row i as p_i of a
    positive, row j as 1 - p_j of a negative; ties 1/2."""
    w = np.ones_like(p) if w is None else w
    pos, neg = w * p, w * (1 - p)
    order = np.sign(p[:, None] - p[None, :])
    wins = np.where(order > 0, 1.0, np.where(order == 0, 0.5, 0.0))
    return float((pos[:, None] * neg[None, :] * wins).sum() / (pos.sum() * neg.sum()))


def cbpe_auc(p: np.ndarray) -> float:
    """NannyML's CBPE ROC AUC (nannyml/performance_estimation/confidence_based/
    metrics.py, ``estimate_roc_auc``): cumulative expected tp/fp over the sorted scores,
    one point per distinct score, the trapezoidal area under (fpr, tpr)."""
    thresholds = np.sort(p)
    one_min = 1 - thresholds
    tp = np.cumsum(thresholds[::-1])[::-1]
    fp = np.cumsum(one_min[::-1])[::-1]
    fn = np.cumsum(np.insert(thresholds, 0, 0)[:-1])
    tn = np.cumsum(np.insert(one_min, 0, 0)[:-1])
    distinct = np.diff(np.insert(thresholds, 0, -1)).astype(bool)
    tp, fp, fn, tn = tp[distinct], fp[distinct], fn[distinct], tn[distinct]
    tpr = np.append(tp / (tp + fn), 0.0)
    fpr = np.append(fp / (fp + tn), 0.0)
    return float(-np.trapezoid(tpr, fpr))


def test_estimated_auc_equals_brute_force_and_cbpe_per_segment() -> None:
    result = LOG.roc.estimated_auc(by="segment", period="month")
    assert result.columns == ["segment", "month", "auc", "n_pos", "n_neg"]
    assert result.height == 6
    for row in result.iter_rows(named=True):
        p = LOG.filter(segment=row["segment"], month=row["month"])["score"].to_numpy()
        assert row["auc"] == pytest.approx(brute_auc(p), abs=1e-12)
        assert row["auc"] == pytest.approx(cbpe_auc(p), abs=1e-12)
        assert row["n_pos"] == pytest.approx(p.sum(), abs=1e-9)
        assert row["n_neg"] == pytest.approx((1 - p).sum(), abs=1e-9)


def test_weights_and_counts_scale_each_row() -> None:
    weighted = LOG.roc.estimated_auc(weight="weight")
    p, w = LOG["score"].to_numpy(), LOG["weight"].to_numpy()
    assert weighted["auc"][0] == pytest.approx(brute_auc(p, w), abs=1e-12)
    counts = LOG.group_by("score").len("n")
    assert_frame_equal(counts.roc.estimated_auc(count="n"), LOG.roc.estimated_auc(), rel_tol=1e-12)


def test_estimated_confusion_sums_the_shares() -> None:
    thresholds = [0.1, 0.3, 0.5]
    result = LOG.roc.estimated_confusion(thresholds, by="segment")
    labelled = LOG.with_columns(label=pl.col("score") > 0.3)
    assert result.columns == pr.confusion_matrix(labelled, 0.5, by="segment").columns
    for row in result.iter_rows(named=True):
        p = LOG.filter(segment=row["segment"])["score"].to_numpy()
        above = p >= row["threshold"]
        expected = {
            "tp": p[above].sum(),
            "fp": (1 - p[above]).sum(),
            "fn": p[~above].sum(),
            "tn": (1 - p[~above]).sum(),
        }
        for name, value in expected.items():
            assert row[name] == pytest.approx(value, abs=1e-9)
        assert row["tpr"] == pytest.approx(expected["tp"] / p.sum(), abs=1e-12)


def test_eager_lazy_and_duckdb_agree() -> None:
    eager = LOG.roc.estimated_auc(by="segment", period="month", weight="weight")
    lazy = LOG.lazy().roc.estimated_auc(by="segment", period="month", weight="weight")
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    relation = duckdb.from_arrow(LOG.to_arrow())
    engine = pr.estimated_auc(relation, by="segment", period="month", weight="weight")
    assert_frame_equal(engine, eager, rel_tol=1e-12)
    confusion = pr.estimated_confusion(relation, [0.2, 0.4], by="segment")
    assert_frame_equal(confusion, LOG.roc.estimated_confusion([0.2, 0.4], by="segment"))


def test_a_calibrated_log_realises_about_the_estimate() -> None:
    rng = np.random.default_rng(7)
    p = rng.beta(2, 5, size=20_000)
    log = pl.DataFrame({"score": p, "label": rng.uniform(size=p.size) < p})
    estimated = log.roc.estimated_auc()["auc"][0]
    realised = log.roc.auc()["auc"][0]
    assert abs(estimated - realised) < 0.01
    # A miscalibrated score (squared: too low) ranks the same but estimates otherwise.
    shifted = log.with_columns(pl.col("score") ** 2).roc.estimated_auc()["auc"][0]
    assert abs(shifted - realised) > 0.02


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from([-0.0, 0.0, 0.1, 0.25, 0.5, 0.9, 1.0]), min_size=2, max_size=12),
    st.lists(st.sampled_from(["a", "b"]), min_size=12, max_size=12),
)
def test_property_brute_force(scores: list[float], groups: list[str]) -> None:
    """-0.0 and 0.0 are one score (one cell of the expected table), in each segment."""
    frame = pl.DataFrame({"score": scores, "g": groups[: len(scores)]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleClassWarning)  # one expected class: below
        result = frame.roc.estimated_auc(by="g")
    for row in result.iter_rows(named=True):
        p = frame.filter(g=row["g"])["score"].to_numpy()
        expected = brute_auc(p) if p.sum() and (1 - p).sum() else None
        assert row["auc"] == (expected and pytest.approx(expected, abs=1e-12))


@pytest.mark.parametrize("bins", [None, 4])
def test_decimal_scores_are_probabilities(bins: int | None) -> None:
    """A Decimal score crashed in the NaN check (Polars has no is_nan for decimals),
    where every other view reads it as its floats."""
    frame = scored().head(60)
    decimal = frame.with_columns(pl.col("score").cast(pl.Decimal(5, 2)))
    for source in (decimal, duckdb.from_arrow(decimal.to_arrow())):
        assert_frame_equal(
            pr.estimated_auc(source, by="segment", bins=bins),
            pr.estimated_auc(frame, by="segment", bins=bins),
        )
    assert_frame_equal(
        pr.estimated_confusion(decimal, [0.2, 0.5]), pr.estimated_confusion(frame, [0.2, 0.5])
    )


def test_bad_and_degenerate_input() -> None:
    with pytest.raises(RocInputError, match=r"must hold probabilities in \[0, 1\]"):
        pl.DataFrame({"score": [0.2, 1.5]}).roc.estimated_auc()
    with pytest.raises(RocInputError, match="has 1 NaN value"):
        pl.DataFrame({"score": [0.2, float("nan")]}).roc.estimated_auc()
    nulls = pl.DataFrame({"score": [0.2, None, None, 0.7]})
    with pytest.raises(RocInputError, match=r"has 2 null.*nulls='drop'"):
        nulls.roc.estimated_auc()
    dropped = nulls.roc.estimated_auc(nulls="drop")
    assert_frame_equal(dropped, pl.DataFrame({"score": [0.2, 0.7]}).roc.estimated_auc())
    with pytest.raises(RocInputError, match=r"probabilities \(numbers\), got String"):
        pl.DataFrame({"score": ["0.2"]}).roc.estimated_auc()
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="p_default"):
        nulls.roc.estimated_auc(score="p_default")
    certain = pl.DataFrame({"segment": ["a", "a", "b", "b"], "score": [0.0, 0.0, 0.3, 0.6]})
    with pytest.warns(UserWarning, match="'a'"):
        result = certain.roc.estimated_auc(by="segment")
    assert result["auc"][0] is None and result["auc"][1] is not None


# Regressions of the adversarial review of the validation views (FINDINGS.md).

CLASH = pl.DataFrame({"score": [0.1, 0.4, 0.35, 0.8], "g": list("aabb"), "month": [1, 1, 2, 2]})


@pytest.mark.parametrize("view", ["estimated_auc", "estimated_confusion"])
@pytest.mark.parametrize(
    ("frame", "options", "message"),
    [
        (CLASH.rename({"month": "n_pos"}), {"period": "n_pos"}, "`period`.*'n_pos'"),
        (CLASH.rename({"month": "tp"}), {"period": "tp"}, "`period`.*'tp'"),
        (CLASH, {"by": "g", "period": "g"}, "`period`.*'g'.*`by`"),
        (CLASH, {"period": "score"}, "`period`.*'score'.*score column"),
    ],
)
def test_period_clashes_are_refused_naming_period(
    view: str, frame: pl.DataFrame, options: dict[str, str], message: str
) -> None:
    """Findings 8, 14: DuplicateError, or the clash reported as a `by` column."""
    with pytest.raises(RocOptionError, match=message):
        getattr(frame.roc, view)(**options)


def test_a_period_called_n_is_a_period() -> None:
    """Finding 8: a period named n collided with the internal count."""
    result = CLASH.rename({"month": "n"}).roc.estimated_auc(period="n")
    expected = CLASH.roc.estimated_auc(period="month").rename({"month": "n"})
    assert_frame_equal(result, expected)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_missing_period_is_named_as_period(engine: str) -> None:
    """Finding 14: 'column column' on Polars, another message on DuckDB."""
    frame = CLASH if engine == "polars" else duckdb.sql("select * from CLASH")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"^period column 'zz'"):
        pr.estimated_auc(frame, period="zz")


@settings(max_examples=40, deadline=None)
@given(
    # Subnormal scores are refused on every path (weights that arithmetic may flush).
    st.lists(st.floats(0.0, 1.0).filter(lambda p: p == 0 or p > 1e-300), min_size=1, max_size=30),
    st.integers(2, 8),
    st.sampled_from(["eager", "lazy", "duckdb"]),
)
def test_property_bins_bound_the_brute_force(scores: list[float], bins: int, kind: str) -> None:
    """With bins=, the brute force lies within auc +- auc_bound, on every backend."""
    p = np.asarray(scores)
    frame = pl.DataFrame({"score": p})
    source = {"eager": frame, "lazy": frame.lazy(), "duckdb": duckdb.from_arrow(frame.to_arrow())}
    with warnings.catch_warnings():  # one class only: warned, and checked below
        warnings.simplefilter("ignore", SingleClassWarning)
        result = pr.estimated_auc(source[kind], bins=bins)
    result = result.collect() if isinstance(result, pl.LazyFrame) else result
    assert result.columns == ["auc", "auc_bound", "n_pos", "n_neg"]
    if p.sum() == 0 or (1 - p).sum() == 0:
        assert result["auc"][0] is None
        return
    assert abs(result["auc"][0] - brute_auc(p)) <= result["auc_bound"][0] + 1e-12
    assert result["n_pos"][0] == pytest.approx(p.sum(), abs=1e-9)


def test_bins_over_few_distinct_scores_are_exact_and_stream() -> None:
    """Scores rounded to 2 decimals in 1,000 buckets: no bucket holds two scores, so the
    bound is 0 and the AUC the exact one; lazy in, lazy out, weights and counts too."""
    exact = LOG.roc.estimated_auc(by="segment", period="month", weight="weight")
    lazy = LOG.lazy().roc.estimated_auc(by="segment", period="month", weight="weight", bins=1000)
    assert isinstance(lazy, pl.LazyFrame)
    binned = lazy.collect(engine="streaming")
    assert (binned["auc_bound"] == 0).all()
    assert_frame_equal(binned.drop("auc_bound"), exact, rel_tol=1e-12)
    counts = LOG.group_by("score").len("n")
    assert_frame_equal(
        counts.roc.estimated_auc(count="n", bins=1000), LOG.roc.estimated_auc(bins=1000)
    )


def test_bins_refuse_bad_input_as_the_exact_path() -> None:
    first = pl.int_range(pl.len())
    nan = LOG.with_columns(score=pl.when(first < 2).then(float("nan")).otherwise("score"))
    nulls = LOG.with_columns(score=pl.when(first >= 3).then("score"))
    wide = LOG.with_columns(score=2.0)
    for bad, match in ((nan, "2 NaN"), (nulls, "3 null"), (wide, r"\[0, 1\]")):
        for source in (bad, bad.lazy()):
            with pytest.raises(RocInputError, match=match):
                pr.estimated_auc(source, bins=10)
    negative = LOG.with_columns(weight=-pl.col("weight"))
    below = negative.filter(pl.col("weight") < 0).height
    for bins in (None, 10):  # the one message of roc_auc's weights
        with pytest.raises(RocInputError, match=f"weight column 'weight' has {below} negative"):
            pr.estimated_auc(negative.lazy(), weight="weight", bins=bins)
    dropped = pr.estimated_auc(nulls, bins=10, nulls="drop")
    assert_frame_equal(dropped, pr.estimated_auc(nulls.drop_nulls(), bins=10))


@pytest.mark.parametrize("bins", [None, 4])
@pytest.mark.parametrize("lazy", [False, True])
def test_a_segment_of_zero_scores_is_warned_at_the_call(bins: int | None, lazy: bool) -> None:
    """All scores 0: no expected positive; warned when the call is made, lazy or not."""
    frame = pl.DataFrame({"s": ["a", "a", "b", "b"], "score": [0.0, 0.0, 0.5, 0.9]})
    with pytest.warns(SingleClassWarning, match=r"\[s='a'\]"):
        result = pr.estimated_auc(frame.lazy() if lazy else frame, by="s", bins=bins)
    assert isinstance(result, pl.LazyFrame) == lazy
    done = result.collect() if isinstance(result, pl.LazyFrame) else result
    assert done["auc"][0] is None
    assert done["auc"][1] == pytest.approx(brute_auc(np.array([0.5, 0.9])), abs=1e-12)
