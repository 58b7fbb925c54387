"""DET curve (polars_roc.views.det) against scikit-learn's det_curve."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import det_curve

import polars_roc as pr


def _log(seed: int, n: int = 200) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.random(n) < 0.4
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b", "c"], n),
            "score": np.round(rng.normal(label * 1.0, 1.0), 1),  # ties
            "label": label,
            "w": rng.choice([0.0, 0.5, 1.0, 2.5], n),  # zero weights too
        }
    )


@pytest.mark.parametrize("drop_intermediate", [False, True])
@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_sklearn_per_group(seed: int, weight, drop_intermediate: bool) -> None:
    log = _log(seed)
    ours = pr.det_curve(
        log.lazy(), by="g", weight=weight, drop_intermediate=drop_intermediate
    ).collect()
    for g in ("a", "b", "c"):
        part = log.filter(pl.col("g") == g)
        w = None if weight is None else part[weight].to_numpy()
        fpr, fnr, thresholds = det_curve(
            part["label"].to_numpy(),
            part["score"].to_numpy(),
            sample_weight=w,
            drop_intermediate=drop_intermediate,
        )
        mine = ours.filter(pl.col("g") == g)
        np.testing.assert_array_equal(mine["threshold"].to_numpy()[::-1], thresholds)
        np.testing.assert_allclose(mine["fpr"].to_numpy()[::-1], fpr, rtol=1e-12)
        np.testing.assert_allclose(mine["fnr"].to_numpy()[::-1], fnr, rtol=1e-12)


def test_perfect_separation_and_namespace() -> None:
    df = pl.DataFrame({"score": [0.9, 0.8, 0.2, 0.1], "label": [1, 1, 0, 0]})
    out = df.roc.det_curve()
    _, fnr, thresholds = det_curve([1, 1, 0, 0], [0.9, 0.8, 0.2, 0.1])
    assert out["threshold"].to_list() == thresholds[::-1].tolist()
    assert out["fnr"].to_list() == fnr[::-1].tolist()
    assert_frame_equal(out, pr.det_curve(df.lazy()).collect())


def test_single_class_group_is_null_with_warning() -> None:
    df = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "score": [0.9, 0.1, 0.5, 0.4], "label": [1, 0, 1, 1]}
    )
    with pytest.warns(UserWarning, match="b"):
        out = pr.det_curve(df, by="g")
    assert out.filter(pl.col("g") == "b")["fpr"].null_count() > 0


# ------------------------------------------------------------------------- chart


def test_det_chart_spec_has_probit_axes_and_finite_points() -> None:
    from scipy.stats import norm

    log = _log(3)
    curve = pr.det_curve(log, by="g")
    spec = pr.det_chart(curve, color="g").to_dict()
    data = next(iter(spec["datasets"].values()))
    drawable = curve.filter(
        (pl.col("fpr") > 0) & (pl.col("fpr") < 1) & (pl.col("fnr") > 0) & (pl.col("fnr") < 1)
    )
    assert len(data) == drawable.height
    assert all(np.isfinite(row["x"]) and np.isfinite(row["y"]) for row in data)
    np.testing.assert_allclose([row["x"] for row in data], norm.ppf(drawable["fpr"]), atol=1e-11)
    x_axis = spec["encoding"]["x"]["axis"]
    assert "cumulativeNormal" in x_axis["labelExpr"]
    ticks = [0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999]
    np.testing.assert_allclose(x_axis["values"], norm.ppf(ticks), atol=1e-11)
    assert spec["encoding"]["color"]["field"] == "_curve"
    assert spec["encoding"]["color"]["legend"]["title"] == "g"


def test_det_chart_refuses_other_frames() -> None:
    with pytest.raises(ValueError, match=r"`curve` must be a det_curve\(\) frame; .*'fnr'"):
        pr.det_chart(pr.roc_curve(_log(0)))


def test_det_chart_facets_one_panel_per_segment() -> None:
    log = _log(3)
    curve = pr.det_curve(log, by="g")
    spec = pr.det_chart(curve, facet="g", columns=2).to_dict()
    assert spec["facet"]["field"] == "_panel" and spec["columns"] == 2
    assert spec["facet"]["title"] == "g"
    data = pl.DataFrame(next(iter(spec["datasets"].values())))
    inside = (pl.col("fpr") > 0) & (pl.col("fpr") < 1) & (pl.col("fnr") > 0) & (pl.col("fnr") < 1)
    for segment in curve["g"].unique().to_list():
        drawn = data.filter(pl.col("_panel") == str(segment))
        expected = curve.filter(pl.col("g") == segment).filter(inside)
        assert drawn["fpr"].to_list() == expected["fpr"].to_list()
    with pytest.raises(ValueError, match=r"columns \['h'\] are missing"):
        pr.det_chart(curve, facet="h")
