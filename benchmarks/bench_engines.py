"""Exact AUC where the log lives: DuckDB, Spark (local mode) and Polars, side by side.

One seeded Parquet log of continuous scores (``--rows``, default 10^7; ``--groups``
segments), written to a temporary folder. Every figure is a wall time in this process,
printed with its ratio to the baseline (Polars' plain sort of the score column, measured
here) and, for AUCs, |AUC - exact AUC| (the exact one from scikit-learn's roc_auc_score on
the same rows). Rows:

- DuckDB's own SQL: the Mann-Whitney U from a global ``rank()`` window (average ranks of
  ties from ``rank()`` and the tie count), over the Parquet files;
- polars_roc on the DuckDB relation (counts and ranks run in DuckDB, buckets come back);
- polars_roc on the Polars frame in memory;
- on the DuckDB relation: ``bins=8192`` (buckets cut in DuckDB, with the bound),
  ``roc_curve`` (a point per distinct score, as on the Polars frame, and with
  ``bins=8192``), ``confusion_matrix`` at three thresholds (counted per threshold), and
  ``pr_curve``, ``det_curve``, ``hull_auc`` (exact; ``pr_curve`` and ``hull_auc`` also on
  the Polars frame);
- Spark's ``BinaryClassificationEvaluator(metricName="areaUnderROC")`` (MLlib's
  ``BinaryClassificationMetrics``, ``numBins=1000`` down-sampling) and polars_roc on the
  Spark DataFrame, local mode with every core (``--spark`` to run them; they need the
  ``spark`` extra and Java).

    python benchmarks/bench_engines.py [--rows 10000000] [--groups 1] [--spark] [--auc-only]
    python benchmarks/bench_engines.py --paired 3   # DuckDB's SQL and the AUCs, alternated
    python benchmarks/bench_engines.py --rows 100000000 --spark-only 2   # Spark, alternated

``--spark-only N`` times Spark alone at scale: the log is written once under /tmp in
files of 10^7 rows (kept for the next run; a seeded generator per file), the reference
is polars_roc on a Polars scan of the same files, and the evaluator, ``roc_auc`` and
``roc_auc(ci="delong")`` on one Spark DataFrame are alternated N times in one session.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import polars_roc as pr


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def make_log(rows: int, groups: int, folder: Path) -> pl.DataFrame:
    rng = np.random.default_rng(12)
    label = rng.random(rows) < 0.3
    score = 1.0 / (1.0 + np.exp(-rng.normal(np.where(label, 0.9, 0.0), 1.0)))
    log = pl.DataFrame(
        {
            "segment": rng.integers(0, groups, size=rows, dtype=np.int32),
            "score": score,
            "label": label.astype(np.int8),
        }
    )
    for part, chunk in enumerate(log.iter_slices(max(1, rows // 8))):
        chunk.write_parquet(folder / f"part-{part}.parquet")
    return log


DUCKDB_SQL = """
WITH ranked AS (
    SELECT label,
           rank() OVER (ORDER BY score) + (count(*) OVER (PARTITION BY score) - 1) / 2.0 AS r
    FROM read_parquet('{files}')
)
SELECT (sum(r) FILTER (WHERE label = 1)
        - count(*) FILTER (WHERE label = 1) * (count(*) FILTER (WHERE label = 1) + 1) / 2.0)
       / (count(*) FILTER (WHERE label = 1)::DOUBLE * count(*) FILTER (WHERE label = 0)) AS auc
FROM ranked
"""


def _spark_missing() -> str | None:
    """Why Spark cannot run here (no pyspark, no Java), or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install '.[spark]')"
    java_home = os.environ.get("JAVA_HOME")  # as tests/conftest.py: a JAVA_HOME with a java
    if shutil.which("java") is None and not (
        java_home and os.path.exists(os.path.join(java_home, "bin", "java"))
    ):
        return "Java is not installed (apt-get install default-jre-headless)"
    return None


def paired(connection: Any, relation: Any, files: str, repeat: int) -> None:
    """DuckDB's own query and polars_roc's AUC, DeLong too, alternated ``repeat`` times:
    the fastest of each, as ratios (the runs meet the same quiet moments of a shared
    machine), wall clock and CPU seconds (the work done, which the neighbours of a
    shared machine move less than the wall clock)."""
    calls = {
        "DuckDB SQL": lambda: connection.sql(DUCKDB_SQL.format(files=files)).fetchall(),
        "roc_auc(relation)": lambda: pr.roc_auc(relation),
        "ci='delong'": lambda: pr.roc_auc(relation, ci="delong"),
    }
    best = dict.fromkeys(calls, float("inf"))
    cpu = dict.fromkeys(calls, float("inf"))  # this process's CPU seconds (DuckDB's threads)
    for _ in range(repeat):
        for name, call in calls.items():
            start = time.process_time()
            best[name] = min(best[name], timed(call)[0])
            cpu[name] = min(cpu[name], time.process_time() - start)
    sql, sql_cpu = best["DuckDB SQL"], cpu["DuckDB SQL"]
    print(f"load average {os.getloadavg()}")
    for name, seconds in best.items():
        print(
            f"{name:58} {seconds:9.2f} {seconds / sql:8.2f}x DuckDB SQL; "
            f"CPU {cpu[name]:6.2f} s {cpu[name] / sql_cpu:5.2f}x"
        )


FILE_ROWS = 10_000_000


def write_files(rows: int) -> Path:
    """The log of ``rows`` rows in Parquet files of at most 10^7 rows under /tmp, written
    once (a seeded generator per file, so the files do not depend on the total)."""
    folder = Path(tempfile.gettempdir()) / f"bench_engines_{rows}"
    if (folder / "_done").exists():
        return folder
    folder.mkdir(exist_ok=True)
    for part, start in enumerate(range(0, rows, FILE_ROWS)):
        size = min(FILE_ROWS, rows - start)
        rng = np.random.default_rng([12, part])
        label = rng.random(size) < 0.3
        score = 1.0 / (1.0 + np.exp(-rng.normal(np.where(label, 0.9, 0.0), 1.0)))
        pl.DataFrame({"score": score, "label": label.astype(np.int8)}).write_parquet(
            folder / f"part-{part:03}.parquet"
        )
    (folder / "_done").touch()
    return folder


def spark_only(rows: int, repeat: int, memory: str, partitions: int, evaluator: bool) -> None:
    """Spark's evaluator against polars_roc on one Spark DataFrame (local mode), alternated
    ``repeat`` times; exactness against polars_roc on a Polars scan of the same files."""
    from pyspark.ml.evaluation import BinaryClassificationEvaluator
    from pyspark.sql import SparkSession

    folder = write_files(rows)
    scan = pl.scan_parquet(folder / "*.parquet")
    seconds, reference = timed(lambda: pr.roc_auc(scan, ci="delong").collect())
    exact, exact_se = reference["auc"][0], reference["auc_se"][0]
    print(f"{rows:,} rows in {folder}; load average {os.getloadavg()}")
    print(f"reference (polars_roc on a Polars scan, DeLong) {seconds:.1f} s: AUC {exact!r}")
    print(f"  auc_se {exact_se!r}", flush=True)
    start, spark = timed(
        lambda: (
            SparkSession.builder.master("local[*]")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.memory", memory)
            .config("spark.sql.shuffle.partitions", str(partitions))
            .getOrCreate()
        )
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"Spark {spark.version}, session started in {start:.1f} s (not counted); ", end="")
    print(f"driver memory {memory}, spark.sql.shuffle.partitions {partitions}")
    frame = spark.read.parquet(str(folder)).selectExpr("score", "cast(label AS double) AS label")
    spark_auc = BinaryClassificationEvaluator(
        rawPredictionCol="score", labelCol="label", metricName="areaUnderROC"
    )
    # Ours first, so that a run cut short still has one comparison.
    calls: dict[str, Callable[[], Any]] = {
        "pr.roc_auc(spark_df)": lambda: pr.roc_auc(frame),
        "BinaryClassificationEvaluator (numBins=1000)": lambda: spark_auc.evaluate(frame),
        "pr.roc_auc(spark_df, ci='delong')": lambda: pr.roc_auc(frame, ci="delong"),
    }
    if not evaluator:
        del calls["BinaryClassificationEvaluator (numBins=1000)"]
    # CPU seconds of the JVM (Spark's driver and executor in local mode) and of Python: on
    # a shared machine the wall clock measures the neighbours as much as the query.
    jvm = Path(f"/proc/{spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()}/stat")

    def cpu() -> float:
        ticks = sum(map(int, jvm.read_text().rsplit(")", 1)[1].split()[11:13]))
        return ticks / os.sysconf("SC_CLK_TCK") + time.process_time()

    times: dict[str, list[float]] = {name: [] for name in calls}
    found: dict[str, Any] = {}
    for run in range(repeat):
        for name, call in calls.items():
            before = cpu()
            seconds, found[name] = timed(call)
            times[name].append(seconds)
            auc = found[name] if isinstance(found[name], float) else found[name]["auc"][0]
            used = cpu() - before
            print(f"  run {run + 1}: {name:44} {seconds:8.1f} s, CPU {used:7.1f} s, ", end="")
            print(f"AUC {auc!r} (load {os.getloadavg()[0]:.1f})", flush=True)
    base = min(times.get("BinaryClassificationEvaluator (numBins=1000)", [float("nan")]))
    print(f"{'path':48} {'min s':>8} {'x evaluator':>12} {'|AUC - exact|':>14}")
    for name, seconds in times.items():
        best = min(seconds)
        auc = found[name] if isinstance(found[name], float) else found[name]["auc"][0]
        print(f"{name:48} {best:8.1f} {best / base:12.2f} {abs(auc - exact):14.1e}")
    spark_se = found["pr.roc_auc(spark_df, ci='delong')"]["auc_se"][0]
    print(f"DeLong auc_se on Spark {spark_se!r}, on Polars {exact_se!r}")
    spark.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--groups", type=int, default=1)
    parser.add_argument("--spark", action="store_true", help="also time Spark (local mode)")
    parser.add_argument("--auc-only", action="store_true", help="stop after the DuckDB AUCs")
    parser.add_argument(
        "--paired", type=int, default=0, help="only DuckDB's SQL and the AUCs, alternated N times"
    )
    parser.add_argument(
        "--spark-only", type=int, default=0, help="only Spark at scale, alternated N times"
    )
    parser.add_argument("--spark-memory", default="12g", help="spark.driver.memory")
    parser.add_argument("--spark-partitions", type=int, default=16)
    parser.add_argument("--skip-evaluator", action="store_true", help="only polars_roc on Spark")
    args = parser.parse_args()
    if args.spark_only:
        if missing := _spark_missing():
            raise SystemExit(f"Spark is not timed: {missing}")
        spark_only(
            args.rows,
            args.spark_only,
            args.spark_memory,
            args.spark_partitions,
            evaluator=not args.skip_evaluator,
        )
        return

    from sklearn.metrics import roc_auc_score

    folder = Path(tempfile.mkdtemp(prefix="bench_engines_"))
    log = make_log(args.rows, args.groups, folder)
    files = str(folder / "*.parquet")
    exact = roc_auc_score(log["label"].to_numpy(), log["score"].to_numpy())
    baseline = min(timed(lambda: log.select(pl.col("score").sort()))[0] for _ in range(3))
    print(f"{args.rows:,} rows, {args.groups} segment(s); exact AUC {exact:.12f}")
    print(f"baseline: Polars sort of the scores {baseline:.3f} s")
    header = f"{'path':58} {'seconds':>9} {'x sort':>8} {'|AUC - exact|':>14}"
    print(header)

    def report(name: str, seconds: float, auc: float | None) -> None:
        error = "" if auc is None else f"{abs(auc - exact):14.1e}"
        print(f"{name:58} {seconds:9.2f} {seconds / baseline:8.1f} {error}")

    by = "segment" if args.groups > 1 else None

    def first_auc(table: pl.DataFrame) -> float | None:
        return None if by else float(table["auc"][0])

    seconds, auc = timed(lambda: pr.roc_auc(log, by=by))
    report("polars_roc on the Polars frame (in memory)", seconds, first_auc(auc))
    seconds, auc = timed(lambda: pr.roc_auc(log, by=by, ci="delong"))
    report("  same, ci='delong'", seconds, first_auc(auc))

    import duckdb

    connection = duckdb.connect()
    if by is None:
        seconds, found = timed(lambda: connection.sql(DUCKDB_SQL.format(files=files)).fetchall()[0])
        report("DuckDB SQL: global rank() window (Mann-Whitney U)", seconds, found[0])
    relation = connection.sql(f"SELECT * FROM read_parquet('{files}')")
    if args.paired and by is None:
        paired(connection, relation, files, args.paired)
        shutil.rmtree(folder)
        return
    seconds, auc = timed(lambda: pr.roc_auc(relation, by=by))
    report("polars_roc on the DuckDB relation (buckets + rank windows)", seconds, first_auc(auc))
    seconds, auc = timed(lambda: pr.roc_auc(relation, by=by, ci="delong"))
    report("  same, ci='delong'", seconds, first_auc(auc))
    if args.auc_only:
        shutil.rmtree(folder)
        return
    # bins= with its bound and counts per threshold come back small; the curves come
    # back whole (a point per distinct score), or in buckets with bins=.
    seconds, auc = timed(lambda: pr.roc_auc(relation, by=by, bins=8192))
    report("  same, bins=8192 (buckets in DuckDB)", seconds, first_auc(auc))
    print(f"{'':58} largest auc_bound {auc['auc_bound'].max():.1e}")
    seconds, curve = timed(lambda: pr.roc_curve(relation, by=by))
    report("roc_curve of the DuckDB relation (every point)", seconds, None)
    print(f"{'':58} {curve.height:,} points back for {args.rows:,} distinct scores")
    seconds, curve = timed(lambda: pr.roc_curve(relation, by=by, bins=8192))
    report("  same, bins=8192 (buckets in DuckDB)", seconds, None)
    print(f"{'':58} {curve.height:,} points back")
    seconds, _ = timed(lambda: pr.roc_curve(log, by=by))
    report("  roc_curve of the Polars frame (every point)", seconds, None)
    seconds, _ = timed(lambda: pr.confusion_matrix(relation, [0.3, 0.5, 0.7], by=by))
    report("confusion_matrix of the DuckDB relation (per threshold)", seconds, None)
    # The other curves, exact: one cell per distinct score comes back.
    seconds, pr_points = timed(lambda: pr.pr_curve(relation, by=by))
    report("pr_curve of the DuckDB relation", seconds, None)
    print(f"{'':58} {pr_points.height:,} points back")
    seconds, _ = timed(lambda: pr.pr_curve(log, by=by))
    report("  pr_curve of the Polars frame (every point)", seconds, None)
    seconds, det_points = timed(lambda: pr.det_curve(relation, by=by))
    report("det_curve of the DuckDB relation", seconds, None)
    print(f"{'':58} {det_points.height:,} points back")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seconds, _ = timed(lambda: pr.hull_auc(relation, by=by))
    report("hull_auc of the DuckDB relation", seconds, None)
    seconds, _ = timed(lambda: pr.hull_auc(log, by=by))
    report("  hull_auc of the Polars frame", seconds, None)

    spark_missing = _spark_missing() if args.spark else None
    if spark_missing:
        print(f"(Spark not timed: {spark_missing})")
    if args.spark and not spark_missing:
        from pyspark.ml.evaluation import BinaryClassificationEvaluator
        from pyspark.sql import SparkSession

        start, spark = timed(
            lambda: (
                SparkSession.builder.master("local[*]")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.driver.memory", "4g")
                .getOrCreate()
            )
        )
        spark.sparkContext.setLogLevel("ERROR")
        print(f"(Spark session started in {start:.1f} s, not counted)")
        frame = spark.read.parquet(str(folder)).selectExpr(
            "segment", "score", "cast(label AS double) AS label"
        )
        if by is None:
            evaluator = BinaryClassificationEvaluator(
                rawPredictionCol="score", labelCol="label", metricName="areaUnderROC"
            )
            seconds, found = timed(lambda: evaluator.evaluate(frame))
            report("Spark BinaryClassificationEvaluator areaUnderROC", seconds, found)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seconds, auc = timed(lambda: pr.roc_auc(frame, by=by))
        report(
            "polars_roc on the Spark DataFrame (buckets + rank windows)", seconds, first_auc(auc)
        )
        spark.stop()
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
