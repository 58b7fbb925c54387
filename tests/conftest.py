"""Shared fixtures: small seeded prediction logs and the usual parametrizations.

``make_log`` builds a log with every feature the library has to handle at once: tied
scores, float and integer weights, a string label (positive class ``"bad"``), a 0/1 label
and two segment columns. Every group of ``segment`` x ``month`` holds both classes, so no
single-class warning fires unless a test asks for one.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator

import numpy as np
import polars as pl
import pytest

SEGMENTS = ("east", "north", "south")


def make_log(seed: int = 0, n: int = 120, *, levels: int = 15) -> pl.DataFrame:
    """A seeded prediction log ``[segment, month, score, label, truth, weight, count]``.

    ``score`` takes ``levels`` distinct values (so ties are common) and is higher for
    positives on average; ``label`` is 0/1 (Int64) and ``truth`` the same classes as the
    strings ``"bad"`` (positive) / ``"good"``; ``weight`` is a positive float and
    ``count`` a positive integer weight (1 to 3).
    """
    rng = np.random.default_rng(seed)
    segment = rng.choice(SEGMENTS, size=n)
    month = rng.integers(1, 3, size=n)
    label = rng.integers(0, 2, size=n)
    # Make sure every (segment, month) group has both classes in its first rows.
    combos = [(s, m) for s in SEGMENTS for m in (1, 2)]
    for i, (s, m) in enumerate(combos):
        segment[2 * i : 2 * i + 2] = s
        month[2 * i : 2 * i + 2] = m
        label[2 * i : 2 * i + 2] = (0, 1)
    raw = rng.normal(loc=label * 0.8, scale=1.0)
    score = np.round((raw - raw.min()) / np.ptp(raw) * (levels - 1)) / (levels - 1)
    return pl.DataFrame(
        {
            "segment": segment.tolist(),
            "month": month.astype(np.int64),
            "score": score,
            "label": label.astype(np.int64),
            "truth": np.where(label == 1, "bad", "good").tolist(),
            "weight": np.round(rng.uniform(0.1, 3.0, size=n), 3),
            "count": rng.integers(1, 4, size=n).astype(np.int64),
        }
    )


@pytest.fixture
def log() -> pl.DataFrame:
    """The default seeded log (120 rows, 15 distinct scores, 6 groups)."""
    return make_log(seed=20240502)


@pytest.fixture(params=["eager", "lazy"])
def as_kind(
    request: pytest.FixtureRequest,
) -> Callable[[pl.DataFrame], pl.DataFrame | pl.LazyFrame]:
    """Turn a DataFrame into the frame kind under test: itself, or its LazyFrame."""
    if request.param == "eager":
        return lambda frame: frame
    return lambda frame: frame.lazy()


@pytest.fixture(params=[None, "segment", ["segment", "month"]], ids=["all", "by1", "by2"])
def by(request: pytest.FixtureRequest) -> str | list[str] | None:
    """No groups, one group column, or two."""
    return request.param


@pytest.fixture(params=[None, "weight"], ids=["unweighted", "weighted"])
def weight(request: pytest.FixtureRequest) -> str | None:
    """No weights, or the float ``weight`` column of :func:`make_log`."""
    return request.param


@pytest.fixture
def log_factory() -> Callable[..., pl.DataFrame]:
    """:func:`make_log` itself, for tests that want other seeds or sizes."""
    return make_log


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """One local Spark session for every test that takes it (a session takes ~10-40 s to
    start); skips, saying why, without pyspark or a Java runtime."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install '.[spark]')")
    java_home = os.environ.get("JAVA_HOME")
    if shutil.which("java") is None and not (
        java_home and os.path.exists(os.path.join(java_home, "bin", "java"))
    ):
        pytest.skip(
            "Java is not installed: PySpark needs a JRE (apt-get install "
            "default-jre-headless, or set JAVA_HOME)"
        )
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[1]")
        .appName("polars_roc tests")
        .config("spark.ui.enabled", "false")
        # Not ./spark-warehouse: the tests leave nothing in the checkout.
        .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("spark-warehouse")))
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        # Tiny frames: compiling costs more than it saves. The JIT's first tier only and
        # no generated code per query, no adaptive re-planning: tests/test_spark.py took
        # 25 s instead of 56 s (start 4 s instead of 11 s, first query 3 s instead of 9 s).
        .config("spark.driver.extraJavaOptions", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.adaptive.enabled", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


# The longest files first (about half of the suite's time), so that neither of the two
# test workers (pytest-xdist, --dist loadfile) is left running one of them alone at the end.
LONGEST_FIRST = (
    "test_report.py",
    "test_spark.py",  # the Spark session: 10-40 s to start
    "test_backends_hunt.py",
    "test_charts.py",
    "test_properties.py",
    "test_expr.py",
    "test_narwhals_engines.py",
    "test_chart_text.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
