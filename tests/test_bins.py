"""The binned counter (``bins=``): monotone buckets, exact points, a certified AUC bound."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_roc as pr
from polars_roc.exceptions import RocOptionError


def make_log(seed: int, n: int = 5000, scale: float = 1.0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n)
    latent = rng.normal(label * 0.8, 1.0) * scale
    return pl.DataFrame(
        {"g": rng.integers(0, 3, size=n), "score": 1 / (1 + np.exp(-latent)), "label": label}
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    bins=st.sampled_from([2, 3, 16, 100, 4096, 1 << 20]),
    scale=st.sampled_from([0.01, 1.0, 20.0]),
    lower=st.booleans(),
)
def test_exact_auc_lies_within_the_bound(seed: int, bins: int, scale: float, lower: bool) -> None:
    log = make_log(seed, n=600, scale=scale)
    direction = "lower" if lower else "higher"
    exact = pr.roc_auc(log, by="g", direction=direction)
    binned = pr.roc_auc(log, by="g", bins=bins, direction=direction)
    assert binned.columns == ["g", "auc", "auc_bound", "n_pos", "n_neg"]
    assert binned.select("n_pos", "n_neg").equals(exact.select("n_pos", "n_neg"))
    gap = (binned["auc"] - exact["auc"]).abs()
    assert (gap <= binned["auc_bound"] + 1e-15).all()
    assert (binned["auc_bound"] >= 0).all()


def test_bucket_points_are_exact_points_of_the_curve() -> None:
    log = make_log(1)
    binned = pr.roc_curve(log, by="g", bins=64)
    thresholds = binned.filter(pl.col("threshold").is_finite())["threshold"].unique().to_list()
    exact = pr.confusion_matrix(log, thresholds, by="g").select("g", "threshold", "tp", "fp")
    assert_frame_equal(
        binned.filter(pl.col("threshold").is_finite()).select("g", "threshold", "tp", "fp"),
        exact.join(binned.select("g", "threshold"), on=["g", "threshold"], how="semi"),
        check_row_order=False,
    )
    assert binned.group_by("g").len()["len"].max() <= 64 + 1


def test_a_bucket_per_score_is_exact_and_bound_zero() -> None:
    rng = np.random.default_rng(2)
    log = pl.DataFrame(
        {"score": rng.integers(0, 8, 1000).astype(float), "label": rng.integers(0, 2, 1000)}
    )
    # Integer scores 0..7 as Float64 order bits: with enough buckets each holds one score.
    binned = pr.roc_auc(log, bins=1 << 24)
    assert binned["auc_bound"][0] == 0.0
    assert binned["auc"][0] == pr.roc_auc(log)["auc"][0]


def test_the_bound_shrinks_with_the_buckets_and_meets_1e4() -> None:
    log = make_log(3, n=200_000)
    bounds = [pr.roc_auc(log, bins=b)["auc_bound"][0] for b in (64, 1024, 65536)]
    assert bounds[0] > bounds[1] > bounds[2]
    assert bounds[2] <= 1e-4


def test_binned_plan_runs_on_the_streaming_engine_without_python() -> None:
    lf = make_log(4).lazy()
    plan = lf.roc.auc(by="g", bins=1024)
    assert "python" not in plan.explain().lower()
    assert_frame_equal(plan.collect(engine="streaming"), plan.collect())


def test_counts_and_bins_together() -> None:
    log = make_log(5).with_columns(pl.col("score").round(3))
    table = log.group_by("g", "score", "label").len("n")
    assert_frame_equal(
        pr.roc_auc(table, by="g", count="n", bins=256), pr.roc_auc(log, by="g", bins=256)
    )


@pytest.mark.parametrize("bins", [1, 0, 2.5, "many", True, (1 << 24) + 1])
def test_bad_bins_are_refused(bins: object) -> None:
    with pytest.raises(RocOptionError, match=r"`bins` must be None or an integer from 2 to"):
        pr.roc_auc(make_log(0, n=10), bins=bins)  # type: ignore[arg-type]


def test_bins_with_an_interval_is_refused() -> None:
    with pytest.raises(RocOptionError, match=r"bins= gives a point estimate"):
        pr.roc_auc(make_log(0, n=10), bins=64, ci="delong")


def _nulls_and_weights(seed: int) -> pl.DataFrame:
    log = make_log(seed, n=3000)
    rng = np.random.default_rng(seed)
    return log.with_columns(
        g=pl.when(pl.col("g") == 2).then(None).otherwise(pl.col("g")),
        w=pl.Series(rng.random(len(log)) * 3),
        n=pl.Series(rng.integers(0, 4, len(log))),
    )


@pytest.mark.parametrize(
    "options",
    [
        {"by": "g"},
        {},
        {"by": "g", "direction": "lower"},
        {"by": "g", "weight": "w"},
        {"by": "g", "count": "n"},
    ],
)
def test_large_lazy_sources_counted_in_slices_equal_one_plan(
    monkeypatch: pytest.MonkeyPatch, options: dict
) -> None:
    # Past CHUNK_ROWS rows the rows are counted slice by slice, each slice's cells
    # merged into the running cells and coarsened: the same table as one slice.
    from polars_roc.core import score_table as _score_table

    log = _nulls_and_weights(7)
    expected = pr.roc_auc(log, bins=128, **options)
    curve = pr.roc_curve(log, bins=128, **options)
    monkeypatch.setattr(_score_table, "CHUNK_ROWS", 700)
    assert_frame_equal(pr.roc_auc(log.lazy(), bins=128, **options).collect(), expected)
    assert_frame_equal(pr.roc_curve(log.lazy(), bins=128, **options).collect(), curve)


def test_buckets_are_ranges_of_order_bits_and_crowds_show_in_the_bound() -> None:
    # Buckets are ranges of the score's order bits, at the smallest shift leaving at
    # most `bins` of them: placed by the score's range, not by mass. Scores crowded
    # near 0.1 with a few down to 1e-10 put the crowd in one bucket, and the bound
    # says so (it is certified, not small).
    rng = np.random.default_rng(8)
    score = np.concatenate([0.1 + rng.random(20_000) * 1e-3, rng.random(200) * 1e-6])
    log = pl.DataFrame({"score": score, "label": rng.random(len(score)) < 0.3})
    table = pr.score_table(log, bins=100)
    assert len(table) <= 100
    binned, exact = pr.roc_auc(log, bins=100), pr.roc_auc(log)
    assert abs(binned["auc"][0] - exact["auc"][0]) <= binned["auc_bound"][0]
    assert binned["auc_bound"][0] > 0.1
    # Without the outliers the same buckets spread over the crowd.
    crowd = pr.roc_auc(log.filter(pl.col("score") > 0.05), bins=100)
    assert crowd["auc_bound"][0] < 0.02


def test_bound_below_1e4_with_8192_buckets_by_segment() -> None:
    # The benchmark's kind of log (logistic scores, 10% positives), 40 segments.
    rng = np.random.default_rng(9)
    n = 400_000
    label = rng.random(n) < 0.1
    log = pl.DataFrame(
        {
            "segment": rng.integers(0, 40, n),
            "score": 1 / (1 + np.exp(-(rng.normal(size=n) + 1.2 * label - 2))),
            "label": label,
        }
    )
    binned = pr.roc_auc(log, by="segment", bins=8192)
    exact = pr.roc_auc(log, by="segment")
    assert binned["auc_bound"].max() <= 1e-4
    assert ((binned["auc"] - exact["auc"]).abs() <= binned["auc_bound"]).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), bins=st.sampled_from([2, 5, 64, 1000]))
def test_weighted_exact_auc_lies_within_the_bound(seed: int, bins: int) -> None:
    log = _nulls_and_weights(seed).with_columns(pl.col("score").round(2))
    exact = pr.roc_auc(log, by="g", weight="w")
    binned = pr.roc_auc(log, by="g", weight="w", bins=bins)
    gap = (binned["auc"] - exact["auc"]).abs()
    assert (gap <= binned["auc_bound"] + 1e-12).all()


def test_lazy_grouped_binned_validation_streams() -> None:
    # With bins=, the one read of the rows finds each group's classes (a group_by of
    # each slice): the same classes as the eager value pass.
    from polars_roc.core.score_table import binned_cells
    from polars_roc.core.validate import prepare

    log = _nulls_and_weights(10)
    prep = prepare(log.lazy(), score="score", label="label", by="g", bins=64)
    assert prep.binned is not None and not prep.binned.found  # nothing read yet
    binned_cells(prep)
    eager = prepare(log, score="score", label="label", by="g", group_classes=True)
    found = prep.binned.found["class_totals"]
    assert_frame_equal(found, eager.class_totals, check_row_order=False)
    with pytest.warns(UserWarning, match="only one class"):
        out = pr.roc_auc(log.with_columns(label=pl.col("g").is_null()).lazy(), by="g", bins=64)
    assert out.collect()["auc"].is_null().all()


def test_large_lazy_one_class_group_gives_null_auc_and_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from polars_roc.core import score_table as _score_table

    log = _nulls_and_weights(11).with_columns(
        label=pl.when(pl.col("g") == 1).then(0).otherwise(pl.col("label"))
    )
    with pytest.warns(UserWarning, match="only one class"):
        expected = pr.roc_auc(log, by="g", bins=256)
    monkeypatch.setattr(_score_table, "CHUNK_ROWS", 500)
    with pytest.warns(UserWarning, match="only one class"):
        found = pr.roc_auc(log.lazy(), by="g", bins=256).collect()
    assert_frame_equal(found, expected)
    one_class = found.filter(pl.col("g") == 1)
    assert one_class["auc"].is_null().all() and one_class["auc_bound"].is_null().all()


# -- The one read: cells independent of the slicing ---------------------------------


def _bits(scores: np.ndarray) -> np.ndarray:
    """Order bits of Float64 scores (-0.0 as 0.0), written out independently."""
    raw = (scores + 0.0).view(np.int64)
    return np.where(raw < 0, raw ^ np.int64((1 << 63) - 1), raw)


def _reference_cells(log: pl.DataFrame, bins: int, weight: str | None) -> pl.DataFrame:
    """The cells of each group straight from all its rows (a loop per group, for clarity):
    the shift is the smallest leaving at most `bins` occupied buckets; a cell per
    bucket with its sums and lowest / highest score."""
    out = []
    for (group,), rows in log.group_by(["g"], maintain_order=True):
        y = rows["label"].to_numpy().astype(bool)
        w = rows[weight].to_numpy() if weight else np.ones(len(rows))
        keep = w > 0
        s, y, w = rows["score"].to_numpy()[keep], y[keep], w[keep]
        if len(s) == 0:  # a group of no mass keeps one empty cell at +inf
            inf = float("inf")
            out.append({"g": group, "pos": 0.0, "neg": 0.0, "low": inf, "high": inf, "shift": 0})
            continue
        bits = _bits(s)
        shift = 0
        while len(np.unique(bits >> shift)) > bins:
            shift += 1
        keys = bits >> shift
        for key in np.unique(keys):
            at = keys == key
            out.append(
                {
                    "g": group,
                    "pos": float(w[at & y].sum()),
                    "neg": float(w[at & ~y].sum()),
                    "low": float(s[at].min()),
                    "high": float(s[at].max()),
                    "shift": shift,
                }
            )
    schema = {"g": pl.Int64, "pos": pl.Float64, "neg": pl.Float64, "low": pl.Float64}
    return pl.DataFrame(out, schema={**schema, "high": pl.Float64, "shift": pl.Int64})


_SCORES = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, float("inf"), -float("inf"), 1e-300, -2.5]),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(0.1, 0.1001),
)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from([0, 1, None]), _SCORES, st.booleans(), st.sampled_from([0.0, 0.5, 2.0])
        ),
        min_size=0,
        max_size=80,
    ),
    bins=st.sampled_from([2, 3, 5, 16]),
    chunk=st.sampled_from([1, 3, 7, 1000]),
    weighted=st.booleans(),
)
def test_one_read_cells_equal_direct_computation_whatever_the_slices(
    rows: list, bins: int, chunk: int, weighted: bool
) -> None:
    from polars_roc.core import score_table as _score_table
    from polars_roc.core.validate import prepare

    schema = {"g": pl.Int64, "score": pl.Float64, "label": pl.Boolean, "w": pl.Float64}
    log = pl.DataFrame(rows, schema=schema, orient="row")
    weight = "w" if weighted else None
    expected = _reference_cells(log, bins, weight).sort("g", "low", nulls_last=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_score_table, "CHUNK_ROWS", chunk)
        prep = prepare(log.lazy(), score="score", label="label", by="g", weight=weight, bins=bins)
        found = _score_table.binned_cells(prep)
    found = found.select(
        "g",
        pl.col(_score_table.POS).cast(pl.Float64).alias("pos"),
        pl.col(_score_table.NEG).cast(pl.Float64).alias("neg"),
        "low",
        "high",
        "shift",
    ).sort("g", "low", nulls_last=False)
    assert_frame_equal(found, expected, check_exact=not weighted)
    # Within a group, buckets are disjoint ranges of scores: no score in two buckets.
    assert found.group_by("g").agg(pl.len() <= bins)["len"].all()


@pytest.mark.parametrize("weighted", [False, True])
def test_exact_auc_within_the_bound_in_slices(
    monkeypatch: pytest.MonkeyPatch, weighted: bool
) -> None:
    from polars_roc.core import score_table as _score_table

    log = _nulls_and_weights(12).with_columns(pl.col("score").round(4))
    options = {"by": "g", "weight": "w"} if weighted else {"by": "g"}
    exact = pr.roc_auc(log, **options)
    monkeypatch.setattr(_score_table, "CHUNK_ROWS", 333)
    binned = pr.roc_auc(log.lazy(), bins=32, **options).collect()
    gap = (binned["auc"] - exact["auc"]).abs()
    assert (gap <= binned["auc_bound"] + 1e-12).all()
    assert (binned["auc_bound"] > 0).all()


@pytest.mark.parametrize(
    ("change", "options", "match"),
    [
        (pl.lit(None, pl.Float64).alias("score"), {}, r"score column 'score' has 3000 null"),
        (pl.lit(float("nan")).alias("score"), {}, r"score column 'score' has 3000 NaN"),
        (pl.lit(2).alias("label"), {}, r"label column 'label' \(Int32\) holds values other"),
        (pl.lit(-1.0).alias("w"), {"weight": "w"}, r"weight column 'w' has 3000 negative"),
        (pl.lit(0.5).alias("n"), {"count": "n"}, r"count column 'n' has 3000 non-integral"),
        (pl.col("label"), {"pos_label": "yes"}, r"cannot compare label column 'label'"),
    ],
)
@pytest.mark.parametrize("lazy", [False, True])
def test_value_errors_of_the_one_read_are_the_value_pass_errors(
    monkeypatch: pytest.MonkeyPatch, change: pl.Expr, options: dict, match: str, lazy: bool
) -> None:
    # Counted over the whole log (every slice), raised at the end of the read, with
    # the messages of the exact path's value pass.
    from polars_roc.core import score_table as _score_table

    log = _nulls_and_weights(13).with_columns(change)
    with pytest.raises(Exception, match=match) as exact:
        pr.roc_auc(log, **options)
    monkeypatch.setattr(_score_table, "CHUNK_ROWS", 700)
    frame = log.lazy() if lazy else log
    with pytest.raises(type(exact.value), match=match):
        pr.roc_auc(frame, bins=64, **options)


def _counting_source(frame: pl.DataFrame) -> tuple[pl.LazyFrame, list[int]]:
    """A LazyFrame over ``frame`` and a list holding how many scans Polars ran."""
    from polars.io.plugins import register_io_source

    reads = [0]

    def scan(with_columns, predicate, n_rows, batch_size):  # type: ignore[no-untyped-def]
        reads[0] += 1
        rows = frame if with_columns is None else frame.select(with_columns)
        yield rows if predicate is None else rows.filter(predicate)

    return register_io_source(io_source=scan, schema=frame.schema), reads


@pytest.mark.parametrize(
    ("scores", "reads_expected"),
    [
        # Continuous scores: the dense slots hold more than `bins` buckets: one read.
        (lambda rng, n: 0.2 + 0.6 * rng.random(n), 1),
        # Exact zeros among probabilities are counted beside the slots: one read.
        (lambda rng, n: np.where(rng.random(n) < 0.05, 0.0, rng.random(n)), 1),
        (lambda rng, n: np.where(rng.random(n) < 0.05, -0.0, 0.5 + rng.random(n) / 100), 1),
        # Logits of both signs: pages only where the scores are, one read.
        (lambda rng, n: rng.normal(size=n) * 3, 1),
        (lambda rng, n: np.where(rng.random(n) < 0.05, 0.0, rng.normal(size=n) * 3), 1),
        # A few distinct scores many exponents apart, each repeated: the hash counter
        # keeps one bucket per score (shift 0), which no directory of the slots can
        # span: the rows are counted again by hash.
        (lambda rng, n: rng.choice([-1e300, -1e-300, 1e-10, 1.0, 1e10, 1e300], n), 2),
    ],
)
def test_many_slices_read_once_unless_scores_spread_widely(
    monkeypatch: pytest.MonkeyPatch, scores, reads_expected: int
) -> None:
    from polars_roc.core import score_table as _score_table

    rng = np.random.default_rng(14)
    n = 6000
    log = pl.DataFrame(
        {"g": rng.integers(0, 3, n), "score": scores(rng, n), "label": rng.integers(0, 2, n)}
    )
    expected = pr.roc_auc(log, by="g", bins=16)  # one slice: counted by hash
    expected_table = pr.score_table(log, by="g", bins=16)
    monkeypatch.setattr(_score_table, "CHUNK_ROWS", 500)
    source, reads = _counting_source(log)
    found = pr.roc_auc(source, by="g", bins=16)
    assert reads[0] == reads_expected
    assert_frame_equal(found.collect(), expected)
    assert_frame_equal(pr.score_table(log.lazy(), by="g", bins=16).collect(), expected_table)


# -- The dense counter's pages: logits of both signs in one read --------------------


def _reference_cells_any(
    log: pl.DataFrame, bins: int, weight: str | None, by: str = "g"
) -> pl.DataFrame:
    """:func:`_reference_cells` for any group column, weight or count, and Float32
    scores (compared as Float64)."""
    frame = log.select(
        pl.col(by).alias("g"),
        pl.col("score").cast(pl.Float64),
        "label",
        *([pl.col(weight).cast(pl.Float64)] if weight else []),
    )
    return _reference_cells(frame, bins, weight)


def _logit_log(
    seed: int, n: int, groups: int, scale: float, extras: bool, float32: bool = False
) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    score = rng.normal(size=n) * scale
    if extras:  # signed zeros, infinities, the smallest subnormal and a tiny normal
        odd = rng.random(n) < 0.05
        special = [0.0, -0.0, np.inf, -np.inf, 5e-324, -1e-300]
        score[odd] = rng.choice(special, odd.sum())
    return pl.DataFrame(
        {
            "g": rng.integers(0, groups, n),
            "score": pl.Series(score, dtype=pl.Float32 if float32 else pl.Float64),
            "label": rng.random(n) < 0.3,
            "w": rng.choice([0.0, 0.5, 2.0, 3.25], n),
            "n": rng.integers(0, 4, n),
        }
    )


def _dense_outcomes(patch: pytest.MonkeyPatch) -> list[bool]:
    """Record, for each read, whether the dense counter gave the cells."""
    from polars_roc.core import score_table as _score_table

    outcomes: list[bool] = []
    result = _score_table._DenseCells.result

    def recorded(self, by):  # type: ignore[no-untyped-def]
        cells = result(self, by)
        outcomes.append(cells is not None)
        return cells

    patch.setattr(_score_table._DenseCells, "result", recorded)
    return outcomes


def _found_cells(log: pl.DataFrame, bins: int, chunk: int, **options: object) -> pl.DataFrame:
    from polars_roc.core import score_table as _score_table
    from polars_roc.core.validate import prepare

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_score_table, "CHUNK_ROWS", chunk)
        prep = prepare(log.lazy(), score="score", label="label", bins=bins, **options)  # type: ignore[arg-type]
        found = _score_table.binned_cells(prep)
    return found.select(
        pl.col(options.get("by", "g")).alias("g"),  # type: ignore[arg-type]
        pl.col(_score_table.POS).cast(pl.Float64).alias("pos"),
        pl.col(_score_table.NEG).cast(pl.Float64).alias("neg"),
        pl.col("low").cast(pl.Float64),
        pl.col("high").cast(pl.Float64),
        "shift",
    ).sort("g", "low", nulls_last=False)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.sampled_from([60, 700, 4000]),
    groups=st.sampled_from([1, 3, 40]),
    bins=st.sampled_from([2, 5, 16, 64, 1000]),
    chunk=st.sampled_from([9, 150, 1000]),
    scale=st.sampled_from([1e-3, 1.0, 30.0]),
    extras=st.booleans(),
    weighting=st.sampled_from([None, "w", "n"]),
    float32=st.booleans(),
)
def test_logit_cells_equal_direct_computation_whatever_the_slices(
    seed: int,
    n: int,
    groups: int,
    bins: int,
    chunk: int,
    scale: float,
    extras: bool,
    weighting: str | None,
    float32: bool,
) -> None:
    # Logits of both signs (with signed zeros, infinities, subnormals), many groups,
    # weights or counts, Float32 scores: the one read's cells, dense or not, are those
    # computed from all the rows at once.
    log = _logit_log(seed, n, groups, scale, extras, float32)
    options: dict = {"by": "g"}
    if weighting == "w":
        options["weight"] = "w"
    elif weighting == "n":
        options["count"] = "n"
    expected = _reference_cells_any(log, bins, weighting).sort("g", "low", nulls_last=False)
    found = _found_cells(log, bins, chunk, **options)
    assert_frame_equal(found, expected, check_exact=weighting != "w")


@pytest.mark.parametrize(
    ("options", "bins", "groups", "float32", "extras"),
    [
        ({"by": "g"}, 16, 3, False, False),
        ({"by": "g"}, 1000, 3, False, True),
        ({"by": "g", "weight": "w"}, 64, 3, False, True),
        ({"by": "g", "count": "n"}, 64, 3, True, False),
        ({"by": "g", "direction": "lower"}, 256, 3, False, True),
        ({"by": "g"}, 16, 60, False, True),
        ({}, 1000, 1, True, True),
    ],
)
def test_logits_of_both_signs_are_read_once_with_the_hash_counters_cells(
    monkeypatch: pytest.MonkeyPatch,
    options: dict,
    bins: int,
    groups: int,
    float32: bool,
    extras: bool,
) -> None:
    # Many slices of logits of both signs: counted in the dense pages (one read of
    # the source), and the cells equal those of the hash counter (one slice).
    from polars_roc.core import score_table as _score_table
    from polars_roc.core.validate import prepare

    log = _logit_log(15, 24_000, groups, 2.0, extras, float32)
    hashed = _score_table.binned_cells(
        prepare(log, score="score", label="label", bins=bins, **options)
    )
    outcomes = _dense_outcomes(monkeypatch)
    monkeypatch.setattr(_score_table, "CHUNK_ROWS", 1500)
    source, reads = _counting_source(log)
    found = _score_table.binned_cells(
        prepare(source, score="score", label="label", bins=bins, **options)
    )
    assert reads[0] == 1
    assert outcomes == [True]
    assert_frame_equal(found, hashed, check_exact="weight" not in options)
    # The AUC and its bound from those cells: the exact AUC lies within it.
    binned = pr.roc_auc(log.lazy(), bins=bins, **options).collect()
    exact = pr.roc_auc(log, **options)
    assert ((binned["auc"] - exact["auc"]).abs() <= binned["auc_bound"] + 1e-12).all()


def test_the_slot_cap_forces_a_correct_second_read_by_hash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # More groups than DENSE_BINNED_MAX_CELLS has slots for: the dense counter gives
    # up, the rows are read again and counted by hash, with the same cells.
    from polars_roc.core import score_table as _score_table
    from polars_roc.core.validate import prepare

    log = _logit_log(16, 6000, 5, 2.0, True)
    hashed = _score_table.binned_cells(prepare(log, score="score", label="label", by="g", bins=64))
    monkeypatch.setattr(_score_table, "CHUNK_ROWS", 500)
    # Room for 4 groups' budgets and directories, not 5.
    dense = _score_table._DenseCells(prepare(log, score="score", label="label", by="g", bins=64))
    per_group = dense.limit + dense.width // 4
    for cap, reads_expected in ((4 * per_group, 2), (5 * per_group, 1)):
        monkeypatch.setattr(_score_table, "DENSE_BINNED_MAX_CELLS", cap)
        source, reads = _counting_source(log)
        found = _score_table.binned_cells(
            prepare(source, score="score", label="label", by="g", bins=64)
        )
        assert reads[0] == reads_expected
        assert_frame_equal(found, hashed)


def test_plain_counts_move_from_uint32_to_int64_past_2_to_the_32_rows() -> None:
    # Plain rows count in UInt32 slots while the rows added fit, Int64 past that: the
    # counts carry over.
    from polars_roc.core import score_table as _score_table
    from polars_roc.core.validate import prepare

    log = _logit_log(17, 4000, 3, 2.0, True)
    prep = prepare(log.lazy(), score="score", label="label", by="g", bins=16)
    dense = _score_table._DenseCells(prep)
    assert dense.add(prep.frame.slice(0, 2000))
    assert dense.pos.dtype == np.uint32
    dense.rows_added = (1 << 32) - 10
    assert dense.add(prep.frame.slice(2000))
    assert dense.pos.dtype == np.int64 and dense.zero_pos.dtype == np.int64
    hashed = _score_table._BinnedCells(prep)
    hashed.add(prep.frame)
    found = dense.result(["g"])
    assert found is not None
    assert_frame_equal(found, hashed.result(["g"]))


def _growing_group_log(seed: int) -> pl.DataFrame:
    """Slices of 20,000 logits: group 1 holds 250 rows of the first, then twice as
    many in each next one, group 0 the rest."""
    rng = np.random.default_rng(seed)
    parts = []
    for i in range(8):
        ones = min(250 * 2**i, 20_000)
        parts.append(
            pl.DataFrame(
                {
                    "g": np.r_[np.zeros(20_000 - ones, int), np.ones(ones, int)],
                    "score": rng.normal(size=20_000) * 2,
                    "label": rng.random(20_000) < 0.3,
                }
            )
        )
    return pl.concat(parts)


@pytest.mark.parametrize("bins", [8192, 256])
def test_pages_merge_as_a_group_grows_with_the_hash_counters_cells(
    monkeypatch: pytest.MonkeyPatch, bins: int
) -> None:
    # A group whose rows double slice after slice: its shift rises a bit or two at a
    # time, its pages merging runs of slots (pages of 16 slots at bins=8192, 4 at 256).
    from polars_roc.core import score_table as _score_table
    from polars_roc.core.validate import prepare

    log, chunk = _growing_group_log(18), 20_000
    hashed = _score_table.binned_cells(
        prepare(log, score="score", label="label", by="g", bins=bins)
    )
    outcomes = _dense_outcomes(monkeypatch)
    moves: list[int] = []
    move = _score_table._DenseCells._move_groups

    def recorded(self, chunk, shift, base, rows):  # type: ignore[no-untyped-def]
        moves.extend(shift - self.shift[chunk])
        return move(self, chunk, shift, base, rows)

    monkeypatch.setattr(_score_table._DenseCells, "_move_groups", recorded)
    monkeypatch.setattr(_score_table, "CHUNK_ROWS", chunk)
    found = _score_table.binned_cells(
        prepare(log.lazy(), score="score", label="label", by="g", bins=bins)
    )
    assert outcomes == [True]
    # Rises of at most the page bits: runs of slots merged within pages.
    page_bits = _score_table._DenseCells(prepare(log, score="score", label="label", bins=bins)).p
    assert page_bits > 0 and any(1 <= m <= page_bits for m in moves)
    assert_frame_equal(found, hashed)


@pytest.mark.parametrize("size", [50, 1 << 23, 1 << 40])
def test_distinct_by_marks_or_by_sort_equals_numpy_unique(size: int) -> None:
    # Small ranges are marked in flags, large ones sorted: the same distinct values.
    from polars_roc.core.score_table import _distinct, _distinct_pairs

    rng = np.random.default_rng(20)
    values = rng.integers(0, size, 5000)
    assert np.array_equal(_distinct(values, size), np.unique(values))
    outer, inner = rng.integers(0, size, 5000), rng.integers(0, 16, 5000)
    assert np.array_equal(_distinct_pairs(outer, inner, 16, size), np.unique(outer * 16 + inner))
