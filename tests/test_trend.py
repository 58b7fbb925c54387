"""Trends over periods and drift tests against a baseline (``views/trend.py``).

References: the per-group views (``roc_auc``, ``ks_statistic``, ``compare``,
``compare_groups``) and scikit-learn per period; pROC's unpaired ``roc.test`` through the
fixtures of ``test_inference.py``; hand-computed Holm, Bonferroni and Benjamini-Hochberg
adjustments (R's ``p.adjust``); ``group_by_dynamic`` for calendar windows.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import polars_roc as pr
from polars_roc.exceptions import RocInputError, RocOptionError
from polars_roc.views.trend import adjust_p
from tests._backends import as_backend
from tests.conftest import make_log

FIXTURES = Path(__file__).parent / "fixtures"
PROC = dict(pl.read_csv(FIXTURES / "proc_values.csv").iter_rows())
PROC_DATA = pl.read_csv(FIXTURES / "proc_data.csv")


def _collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def _months(seed: int = 3, n: int = 600, periods: int = 5) -> pl.DataFrame:
    """Three segments over ``periods`` months, every (segment, month) with both classes."""
    rng = np.random.default_rng(seed)
    month = np.tile(np.arange(1, periods + 1), n // periods)
    label = (np.arange(n) // periods) % 2
    quality = 1.2 - 0.2 * month  # discrimination fades month after month
    score = np.round(rng.normal(label * quality, 1.0), 2)
    return pl.DataFrame(
        {
            "segment": rng.choice(["a", "b", "c"], n).tolist(),
            "month": [f"2026-{m:02d}" for m in month],
            "score": score,
            "label": label.astype(np.int64),
        }
    )


# ------------------------------------------------------------------ trend


@pytest.mark.parametrize("by", [None, "segment"])
def test_trend_equals_grouped_views(by: str | None, as_kind: Callable) -> None:
    log = _months()
    keys = [by, "month"] if by else ["month"]
    out = _collect(pr.trend(as_kind(log), period="month", by=by, ci="delong"))
    auc = pr.roc_auc(log, by=keys, ci="delong")
    ks = pr.ks_statistic(log, by=keys)
    assert out.columns == [
        *keys,
        "auc",
        "auc_se",
        "ci_lower",
        "ci_upper",
        "gini_lower",
        "gini_upper",
        "gini",
        "ks",
        "n_pos",
        "n_neg",
        "prevalence",
    ]
    assert_frame_equal(out.select(auc.columns), auc)
    assert_frame_equal(out.select(*keys, "ks"), ks.select(*keys, "ks"))
    assert_frame_equal(
        out.select((pl.col("gini") + 1) / 2).to_series().rename("auc").to_frame(), auc.select("auc")
    )
    assert out["gini_lower"].to_list() == pytest.approx((2 * auc["ci_lower"] - 1).to_list())
    assert out["prevalence"].to_list() == pytest.approx(
        (auc["n_pos"] / (auc["n_pos"] + auc["n_neg"])).to_list()
    )
    # Independent reference: scikit-learn on each period's rows.
    for row in out.iter_rows(named=True):
        rows = log.filter(pl.col("month") == row["month"])
        if by:
            rows = rows.filter(pl.col(by) == row[by])
        assert row["auc"] == pytest.approx(roc_auc_score(rows["label"], rows["score"]), abs=1e-12)
    # Time order within each group.
    assert out.equals(out.sort(keys))


def test_trend_without_interval_and_lazy_stays_lazy() -> None:
    log = _months()
    lazy = pr.trend(log.lazy(), period="month")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect_schema().names() == [
        "month",
        "auc",
        "gini",
        "ks",
        "n_pos",
        "n_neg",
        "prevalence",
    ]
    assert_frame_equal(lazy.collect(), log.roc.trend(period="month"))


def test_trend_weighted_bootstrap() -> None:
    log = make_log(seed=5)
    out = pr.trend(
        log, period="month", by="segment", weight="weight", ci="bootstrap", n_boot=200, seed=1
    )
    ref = pr.roc_auc(
        log, by=["segment", "month"], weight="weight", ci="bootstrap", n_boot=200, seed=1
    )
    assert_frame_equal(out.select(ref.columns), ref)


@pytest.mark.parametrize("every", ["1mo", "1w", "1q"])
def test_duration_period_equals_group_by_dynamic(every: str) -> None:
    rng = np.random.default_rng(9)
    n = 2000
    start = datetime(2025, 1, 1)
    seconds = rng.integers(0, 365 * 24 * 3600, n)
    log = pl.DataFrame(
        {
            "ts": [start.fromtimestamp(start.timestamp() + int(s)) for s in seconds],
            "label": rng.integers(0, 2, n),
            "score": rng.normal(size=n),
        }
    ).with_columns(pl.col("score") + pl.col("label") * 0.7)
    out = pr.trend(log, period="ts", every=every)
    windows = (
        log.sort("ts")
        .group_by_dynamic("ts", every=every)
        .agg(
            pr.auc("score", "label").alias("auc"),
            pl.col("label").sum().alias("n_pos"),
            pl.len().alias("rows"),
        )
    )
    assert out["ts"].to_list() == windows["ts"].to_list()
    assert out["auc"].to_list() == pytest.approx(windows["auc"].to_list(), abs=1e-12)
    assert (out["n_pos"] + out["n_neg"]).to_list() == windows["rows"].cast(pl.Int64).to_list()


def test_date_and_integer_periods() -> None:
    log = _months().with_columns(
        pl.col("month").str.to_date("%Y-%m").alias("day"),
        pl.col("month").str.slice(5).cast(pl.Int32).alias("index"),
    )
    by_string = pr.trend(log, period="month")
    for column in ("day", "index"):
        out = pr.trend(log, period=column)
        assert out["auc"].to_list() == by_string["auc"].to_list()
    assert pr.trend(log, period="day", every="1q")["day"].to_list() == [
        date(2026, 1, 1),
        date(2026, 4, 1),
    ]


def test_single_class_period_is_null_with_one_warning() -> None:
    log = pl.DataFrame(
        {
            "month": ["m1"] * 4 + ["m2"] * 3,
            "score": [0.9, 0.2, 0.8, 0.1, 0.5, 0.6, 0.7],
            "label": [1, 0, 1, 0, 1, 1, 1],
        }
    )
    with pytest.warns(UserWarning, match=r"1 group\(s\) \[month=.m2.\] hold only one class") as got:
        out = pr.trend(log, period="month", ci="delong")
    assert len(got) == 1
    assert out.row(1, named=True)["auc"] is None
    assert out.row(1, named=True)["gini"] is None
    assert out.row(1, named=True)["ks"] is None
    assert out.row(0, named=True)["auc"] == 1.0


def test_paired_trend_equals_compare(as_kind: Callable) -> None:
    log = pr.datasets.load_credit()
    out = _collect(
        pr.trend(as_kind(log), period="month", by="segment", scores=["score", "score_challenger"])
    )
    ref = pr.compare(log, ["score", "score_challenger"], by=["segment", "month"])
    assert_frame_equal(out.select(ref.columns), ref)
    expected = _collect(pl.DataFrame({"p": ref["p_value"]}).select(adjust_p(pl.col("p"))))
    assert out["p_adjusted"].to_list() == pytest.approx(expected["p"].to_list())
    assert out["flagged"].to_list() == (out["p_adjusted"] < 0.05).to_list()


def _unlabelled_from(month: str) -> pl.DataFrame:
    """The credit log with the labels of ``month`` and later not in yet (null)."""
    log = pr.datasets.load_credit()
    return log.with_columns(pl.when(pl.col("month") < month).then(pl.col("label")).alias("label"))


@pytest.mark.parametrize("ci", [None, "delong"])
def test_trend_estimated_pairs_the_estimate_with_the_realised_auc(
    as_kind: Callable, ci: str | None
) -> None:
    log = _unlabelled_from("2026-05")
    out = _collect(pr.trend(as_kind(log), period="month", by="segment", ci=ci, estimated=True))
    keys = ["segment", "month"]
    # The estimate reads every row's score, labelled or not.
    estimate = pr.estimated_auc(log, by="segment", period="month")
    assert_frame_equal(
        out.select(*keys, "estimated_auc", "expected_pos", "expected_neg"),
        estimate.rename({"auc": "estimated_auc", "n_pos": "expected_pos", "n_neg": "expected_neg"}),
    )
    # The realised measures are those of the labelled rows; later months have none.
    realised = pr.trend(
        log.filter(pl.col("label").is_not_null()), period="month", by="segment", ci=ci
    )
    labelled = out.filter(pl.col("month") < "2026-05")
    assert_frame_equal(labelled.select(realised.columns), realised)
    unlabelled = out.filter(pl.col("month") >= "2026-05")
    assert unlabelled.height == 6
    assert unlabelled.select(
        pl.all().exclude(*keys, "n_pos", "n_neg", "^expected.*$", "estimated_auc").is_null().all()
    ).row(0) == (True,) * (len(realised.columns) - 4)
    assert unlabelled["n_pos"].to_list() == unlabelled["n_neg"].to_list() == [0] * 6
    # The namespace and the brute-force double sum over rows of one cell.
    one = log.filter((pl.col("segment") == "sme") & (pl.col("month") == "2026-06"))
    p = one["score"].to_numpy()
    wins = (p[:, None] > p[None, :]) + 0.5 * (p[:, None] == p[None, :])
    brute = (p[:, None] * (1 - p[None, :]) * wins).sum() / (p.sum() * (1 - p).sum())
    row = out.filter((pl.col("segment") == "sme") & (pl.col("month") == "2026-06"))
    assert row["estimated_auc"].item() == pytest.approx(brute, rel=1e-12)
    assert_frame_equal(log.roc.trend(period="month", by="segment", ci=ci, estimated=True), out)


def test_trend_estimated_tells_its_warnings_from_the_realised_ones() -> None:
    # Period 2's rows weigh nothing: both the estimate and the realised AUC warn.
    log = pl.DataFrame(
        {
            "p": [1, 1, 1, 1, 2, 2, 2],
            "score": [0.9, 0.2, 0.6, 0.4, 0.7, 0.3, 0.5],
            "label": [1, 0, 1, 0, None, None, 1],
            "w": [1, 1, 1, 1, 0, 0, 0],
        }
    )
    with pytest.warns(UserWarning) as caught:
        pr.trend(log, period="p", weight="w", estimated=True)
    messages = sorted(str(w.message) for w in caught)
    zero = "1 group(s) [p=2] have zero total weight"
    assert [m.startswith(zero) for m in messages] == [True, False]
    assert messages[1].startswith(f"in the estimate (every row, labelled or not): {zero}")


def test_trend_estimated_refusals() -> None:
    log = _unlabelled_from("2026-05")
    with pytest.raises(RocOptionError, match="takes no `scores=` and no direction='lower'"):
        pr.trend(log, period="month", scores=["score", "score_challenger"], estimated=True)
    with pytest.raises(RocOptionError, match="takes no `scores=` and no direction='lower'"):
        pr.trend(log, period="month", direction="lower", estimated=True)
    with pytest.raises(RocInputError, match="must hold probabilities in \\[0, 1\\]"):
        pr.trend(log.with_columns(pl.col("score") * 2), period="month", estimated=True)
    # The estimate's columns are reserved only with estimated=True.
    with pytest.raises(RocOptionError, match=r"`period` column\(s\) \['estimated_auc'\] collide"):
        pr.trend(log.rename({"month": "estimated_auc"}), period="estimated_auc", estimated=True)
    with pytest.raises(RocOptionError, match=r"`by` column\(s\) \['expected_pos'\] collide"):
        pr.trend(
            log.with_columns(expected_pos="segment"),
            period="month",
            by="expected_pos",
            estimated=True,
        )
    labelled = log.drop_nulls("label").with_columns(expected_pos="segment")
    assert pr.trend(labelled, period="month", by="expected_pos").height == 12
    # Without estimated=, a null label is refused as ever.
    with pytest.raises(RocInputError, match="null"):
        pr.trend(log, period="month")


# ------------------------------------------------------------------ drift


@pytest.mark.parametrize("score", ["score_a", "score_b"])
def test_drift_matches_proc_unpaired_roc_test(score: str, as_kind: Callable) -> None:
    # The fixture's two groups read as two periods: north tested against south.
    out = _collect(pr.drift(as_kind(PROC_DATA), period="group", baseline="south", score=score))
    row = out.row(0, named=True)
    assert out.height == 1
    assert row["group"] == "north"
    assert row["baseline"] == "south"
    assert row["t"] == pytest.approx(PROC[f"unpaired.{score}.t"], abs=1e-9)
    assert row["df"] == pytest.approx(PROC[f"unpaired.{score}.df"], rel=1e-9)
    assert row["p_value"] == pytest.approx(PROC[f"unpaired.{score}.p"], abs=1e-9)
    # One test: every adjustment leaves it as it is.
    assert row["p_adjusted"] == pytest.approx(row["p_value"], abs=1e-15)


@pytest.mark.parametrize("baseline", ["first", "2026-03"])
def test_drift_equals_compare_groups_per_period(baseline: str) -> None:
    log = _months()
    out = pr.drift(log, period="month", by="segment", baseline=baseline, adjust="none")
    months = sorted(set(log["month"]))
    reference_month = months[0] if baseline == "first" else baseline
    assert out.height == 3 * (len(months) - 1)
    assert (out["baseline"] == reference_month).all()
    for month in months:
        if month == reference_month:
            continue
        ref = pr.compare_groups(log, by="month", groups=(month, reference_month), within="segment")
        got = out.filter(pl.col("month") == month)
        assert got["segment"].to_list() == ref["segment"].to_list()
        for column in ("diff", "se", "t", "df", "p_value", "ci_lower", "ci_upper"):
            assert got[column].to_list() == pytest.approx(ref[column].to_list(), abs=1e-12)
        assert got["auc"].to_list() == pytest.approx(ref["auc_a"].to_list(), abs=1e-15)
        assert got["auc_baseline"].to_list() == pytest.approx(ref["auc_b"].to_list(), abs=1e-15)
    assert out["p_adjusted"].to_list() == out["p_value"].to_list()


def test_drift_flags_the_fading_months() -> None:
    flagged = pr.drift(_months(n=6000), period="month", by="segment")
    assert flagged.filter(pl.col("month") == "2026-05")["flagged"].all()
    assert not flagged.filter(pl.col("month") == "2026-02")["flagged"].any()


def test_drift_first_baseline_is_per_group() -> None:
    log = _months().filter(~((pl.col("segment") == "b") & (pl.col("month") == "2026-01")))
    out = pr.drift(log, period="month", by="segment")
    firsts = out.group_by("segment").agg(pl.col("baseline").first()).sort("segment")
    assert firsts["baseline"].to_list() == ["2026-01", "2026-02", "2026-01"]


def test_drift_lazy_equals_eager_and_namespace() -> None:
    log = _months()
    lazy = log.lazy().roc.drift(period="month", by="segment")
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), pr.drift(log, period="month", by="segment"))


def test_drift_single_class_period_warns_and_is_null() -> None:
    log = pl.DataFrame(
        {
            "month": [1] * 6 + [2] * 3 + [3] * 6,
            "score": [0.9, 0.8, 0.7, 0.3, 0.2, 0.1, 0.5, 0.6, 0.7, 0.9, 0.4, 0.7, 0.6, 0.2, 0.1],
            "label": [1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0],
        }
    )
    with pytest.warns(UserWarning, match=r"\[month=2\] hold only one class"):
        out = pr.drift(log, period="month")
    assert out["month"].to_list() == [2, 3]
    assert out.row(0, named=True)["p_value"] is None
    assert out.row(0, named=True)["flagged"] is False
    assert out.row(1, named=True)["p_value"] is not None


# ------------------------------------------------------------------ adjustments


P_VALUES = [0.01, 0.04, 0.03, 0.005, None, 0.2]


def _hand_holm(ps: list[float]) -> list[float]:
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    m, running, out = len(ps), 0.0, [0.0] * len(ps)
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * ps[i]))
        out[i] = running
    return out


def test_holm_against_hand_computation() -> None:
    got = pl.DataFrame({"p": P_VALUES}).select(adjust_p(pl.col("p"), "holm"))["p"].to_list()
    # By hand: sorted 0.005, 0.01, 0.03, 0.04, 0.2 times 5, 4, 3, 2, 1 = 0.025, 0.04, 0.09,
    # 0.08 -> 0.09 (running maximum), 0.2.
    assert got == pytest.approx([0.04, 0.09, 0.09, 0.025, None, 0.2])
    present = [p for p in P_VALUES if p is not None]
    assert [g for g in got if g is not None] == pytest.approx(_hand_holm(present))


def test_bonferroni_and_bh_against_hand_computation() -> None:
    frame = pl.DataFrame({"p": P_VALUES})
    bonferroni = frame.select(adjust_p(pl.col("p"), "bonferroni"))["p"].to_list()
    assert bonferroni == pytest.approx([0.05, 0.2, 0.15, 0.025, None, 1.0])
    # BH by hand: 5 p / rank = 0.025, 0.025, 0.05, 0.05, 0.2; running min from the top.
    bh = frame.select(adjust_p(pl.col("p"), "bh"))["p"].to_list()
    assert bh == pytest.approx([0.025, 0.05, 0.05, 0.025, None, 0.2])
    assert frame.select(adjust_p(pl.col("p"), "none"))["p"].to_list() == P_VALUES


def test_adjustment_is_monotone_and_bounded() -> None:
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 1, 200) ** 3
    frame = pl.DataFrame({"p": p})
    for method in ("holm", "bonferroni", "bh"):
        adjusted = frame.select(adjust_p(pl.col("p"), method))["p"].to_numpy()
        assert (adjusted >= p - 1e-15).all() and (adjusted <= 1).all()
        order = np.argsort(p)
        assert (np.diff(adjusted[order]) >= -1e-15).all()
    assert frame.select(adjust_p(pl.col("p"), "holm"))["p"].to_list() == pytest.approx(
        _hand_holm(p.tolist())
    )


# ------------------------------------------------------------------ bad input


def test_errors() -> None:
    log = _months()
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="period column 'monht'"):
        pr.trend(log, period="monht")
    with pytest.raises(TypeError, match=r"period column 'score' must be Date.*got Float64"):
        pr.trend(log, period="score")
    with pytest.raises(TypeError, match=r"`every='1mo'` truncates a Date or Datetime column"):
        pr.trend(log, period="month", every="1mo")
    dated = log.with_columns(pl.col("month").str.to_date("%Y-%m"))
    with pytest.raises(ValueError, match=r"`every` must be a polars duration string.*'monthly'"):
        pr.drift(dated, period="month", every="monthly")
    with pytest.raises(ValueError, match=r"`by` column\(s\) \['month'\] collide with result"):
        pr.trend(log, period="month", by=["segment", "month"])
    with pytest.raises(ValueError, match=r"`adjust` must be one of .*got 'sidak'"):
        pr.drift(log, period="month", adjust="sidak")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`alpha` must be a number strictly between 0 and 1"):
        pr.drift(log, period="month", alpha=5)
    # The message names the argument the user passed (issue 27, item 9), and the periods.
    with pytest.raises(
        ValueError, match=r"`baseline` value\(s\) \['2027-01'\] not found in column 'month'; its"
    ):
        pr.drift(log, period="month", baseline="2027-01")
    with pytest.raises(ValueError, match="`ci='delong'` does not apply with `scores=`"):
        pr.trend(log, period="month", ci="delong", scores=["score", "score"])
    with pytest.raises(ValueError, match="`scores` must name two different score columns"):
        pr.trend(log, period="month", scores=["score", "score"])
    # Options of the paired test alone were ignored without `scores`.
    with pytest.raises(ValueError, match=r"^`adjust` sets the test of two scores per period"):
        pr.trend(log, period="month", adjust="bh")
    with pytest.raises(ValueError, match=r"^`alpha` sets the test of two scores per period"):
        pr.trend(log, period="month", alpha=0.1)


@pytest.mark.parametrize("backend", ["eager", "duckdb"])
def test_a_zero_duration_is_refused_on_every_engine(backend: str, tmp_path: Path) -> None:
    # Polars truncated to "0d" as to nothing (each timestamp its own period); DuckDB refused.
    pytest.importorskip("duckdb")
    dated = as_backend(
        _months().with_columns(pl.col("month").str.to_date("%Y-%m")), backend, tmp_path
    )
    with pytest.raises(ValueError, match=r"`every` must be a positive duration .* got '0d'"):
        pr.trend(dated, period="month", every="0d")


def test_a_period_type_narwhals_cannot_read_is_refused_naming_it(tmp_path: Path) -> None:
    # DuckDB's nanosecond TIMESTAMPTZ reads as narwhals' Unknown: the cut raised its
    # AssertionError ("Unknown dtype").
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "log.parquet"
    _months().with_columns(
        pl.col("month").str.to_datetime("%Y-%m", time_zone="Europe/Paris")
    ).with_columns(pl.col("month").dt.cast_time_unit("ns")).write_parquet(path)
    log = duckdb.sql(f"SELECT * FROM '{path}'")
    with pytest.raises(RocInputError, match=r"^period column 'month' has a type of the engine "):
        pr.trend(log, period="month", every="2mo")


def test_paired_trend_interval_at_conf_level() -> None:
    # conf_level was not passed on to the paired test: always a 95% interval.
    log = _months().with_columns(other=pl.col("score").round(1))
    got = pr.trend(log, period="month", scores=["score", "other"], conf_level=0.8)
    expected = pr.compare(log, ["score", "other"], by="month", conf_level=0.8)
    assert_frame_equal(got.select(expected.columns), expected)
    with pytest.raises(TypeError, match="`period` must name a column"):
        pr.trend(log, period=["month"])  # type: ignore[arg-type]


# ------------------------------------------------------------------ chart


def _layers(spec: dict) -> list[dict]:
    return spec["spec"]["layer"] if "spec" in spec else spec["layer"]


def _rows(spec: dict) -> list[dict]:
    return spec["datasets"][spec["data"]["name"]]


def test_trend_chart_draws_the_estimate_dashed_beside_the_auc() -> None:
    trend = pr.trend(
        _unlabelled_from("2026-05"), period="month", by="segment", ci="delong", estimated=True
    )
    spec = pr.trend_chart(trend).to_dict()
    layers = _layers(spec)
    assert [(layer["mark"]["type"], layer["mark"].get("strokeDash")) for layer in layers] == [
        ("area", None),
        ("line", None),
        ("point", None),
        ("line", [4, 4]),
        ("point", None),
    ]
    assert layers[3]["encoding"]["y"]["field"] == "estimated_auc"
    assert layers[1]["encoding"]["y"]["axis"]["title"] == "AUC (dashed: estimated)"
    rows = {(r["_group"], r["_period"]): r for r in _rows(spec)}
    assert "auc" not in rows["sme", "2026-06"]  # no labels yet: no realised point
    sme = trend.filter((pl.col("segment") == "sme") & (pl.col("month") == "2026-06"))
    assert rows["sme", "2026-06"]["estimated_auc"] == round(sme["estimated_auc"].item(), 6)
    # The Gini has no estimate: no dashed line.
    gini = pr.trend_chart(trend, measure="gini").to_dict()
    assert all("strokeDash" not in layer["mark"] for layer in _layers(gini))


def test_trend_chart_draws_no_band_of_nulls_only() -> None:
    # One default a period: DeLong's interval is null everywhere, and Vega warned in red
    # ("Infinite extent for field ci_lower") at the top of the report.
    rare = pl.DataFrame(
        {
            "month": ["a", "a", "a", "b", "b", "b"],
            "score": [0.9, 0.2, 0.1] * 2,
            "label": [1, 0, 0] * 2,
        }
    )
    trend = pr.trend(rare, period="month", ci="delong")
    assert trend["ci_lower"].is_null().all() and trend["auc"].is_not_null().all()
    marks = [layer["mark"]["type"] for layer in _layers(pr.trend_chart(trend).to_dict())]
    assert marks == ["line", "point"]


def test_trend_chart_layers_band_color_and_flags() -> None:
    log = _months(n=6000)
    trend = pr.trend(log.lazy(), period="month", by="segment", ci="delong")
    flags = pr.drift(log, period="month", by="segment")
    spec = pr.trend_chart(trend, flags=flags).to_dict()
    marks = [layer["mark"]["type"] for layer in _layers(spec)]
    assert marks == ["area", "line", "point", "point"]
    assert set(spec.get("config", {})) <= {"view"} and "title" not in spec  # altair default only
    band = _layers(spec)[0]["encoding"]
    assert (band["y"]["field"], band["y2"]["field"]) == ("ci_lower", "ci_upper")
    line = _layers(spec)[1]["encoding"]
    assert line["x"]["type"] == "ordinal"
    assert line["x"]["sort"] == ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05"]
    assert line["color"]["field"] == "_group"
    assert _layers(spec)[3]["transform"] == [{"filter": "datum.flagged"}]
    rows = _rows(spec)
    assert len(rows) == 15
    ringed = {(r["_group"], r["_period"]) for r in rows if r.get("flagged")}
    expected = flags.filter("flagged").select("segment", "month").rows()
    assert ringed == set(expected) and ringed
    first = trend.collect().row(0, named=True)
    assert rows[0]["auc"] == pytest.approx(first["auc"], abs=1e-6)
    assert rows[0]["ci_upper"] == pytest.approx(first["ci_upper"], abs=1e-6)


def test_trend_chart_temporal_facet_and_measures() -> None:
    log = _months().with_columns(pl.col("month").str.to_date("%Y-%m"))
    trend = pr.trend(log, period="month", by="segment")
    spec = pr.trend_chart(trend, facet="segment", measure="ks", columns=2).to_dict()
    assert spec["facet"]["field"] == "_panel" and spec["columns"] == 2
    assert [layer["mark"]["type"] for layer in _layers(spec)] == ["line", "point"]
    encoding = _layers(spec)[0]["encoding"]
    assert encoding["x"]["type"] == "temporal" and encoding["y"]["field"] == "ks"
    assert "color" not in encoding
    assert _rows(spec)[0]["_period"] == "2026-01-01"
    paired = pr.trend(
        pr.datasets.load_credit(), period="month", scores=["score", "score_challenger"]
    )
    spec = pr.trend_chart(paired, measure="diff").to_dict()
    rings = ["point"] if paired["flagged"].any() else []  # no empty layer (Vega warns)
    assert [layer["mark"]["type"] for layer in spec["layer"]] == [
        "area",
        "rule",
        "line",
        "point",
        *rings,
    ]
    with pytest.raises(ValueError, match="`trend` has no 'gini' column"):
        pr.trend_chart(paired, measure="gini")
    with pytest.raises(ValueError, match=r"`measure` must be one of .*got 'auprc'"):
        pr.trend_chart(trend, measure="auprc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"`flags` lacks column\(s\) \['flagged'\]"):
        pr.trend_chart(trend, flags=trend)
    with pytest.raises(ValueError, match="`period` column 'auc' is not a group column"):
        pr.trend_chart(trend, period="auc")


def test_interval_columns_are_reserved_only_with_an_interval() -> None:
    rng = np.random.default_rng(3)
    log = pl.DataFrame(
        {
            "auc_se": rng.integers(0, 3, 300),
            "score": rng.random(300),
            "label": rng.integers(0, 2, 300),
        }
    )
    plain = pr.trend(log, period="auc_se")
    assert plain["auc_se"].to_list() == [0, 1, 2]
    with pytest.raises(RocOptionError, match=r"\['auc_se'\] collide with result columns"):
        pr.trend(log, period="auc_se", ci="delong")


def test_drift_keeps_a_null_period_as_trend_does() -> None:
    # Rows of a null period vanished from drift (null != baseline is null) while trend
    # shows them as a period of their own.
    log = _months().with_columns(
        month=pl.when(pl.col("segment") == "a").then(None).otherwise(pl.col("month"))
    )
    tested = pr.drift(log, period="month")
    assert tested["month"][0] is None and tested.height == 5
    alone = pr.roc_auc(log.filter(pl.col("month").is_null()))["auc"][0]
    first = pr.roc_auc(log.filter(pl.col("month") == "2026-01"))["auc"][0]
    assert tested["diff"][0] == pytest.approx(alone - first, abs=1e-12)
    assert pr.trend(log, period="month")["month"].null_count() == 1
