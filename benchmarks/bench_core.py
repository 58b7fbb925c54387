"""Speed of the polars_roc core against a plain Polars sort and the usual baselines.

Run as a plain script::

    python benchmarks/bench_core.py [--rows 5000000] [--repeat 5] [--groups 1000]

Everything is timed in one process on the same seeded data: the baseline is the plain
``pl.col("score").sort()`` of the score column, and every other timing is printed in
seconds and as a ratio to that sort, followed by the targets of issues 2 and 15 with pass/fail.
Each figure is the fastest of ``--repeat`` runs after one warm-up run, so other work on
the machine inflates it as little as possible. Eager ``DataFrame`` in, eager result
out, so the validation pass of ``prepare`` is included in every polars_roc figure.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

import polars_roc as pr
from polars_roc.core.arguments import Roles
from polars_roc.core.score_table import build, pair_counts
from polars_roc.core.validate import prepare

try:
    from sklearn.metrics import roc_auc_score, roc_curve
except ImportError:  # the bench extra is not installed
    roc_auc_score = roc_curve = None
try:
    import polars_ds as pds
except ImportError:
    pds = None


EXPRESSIONS = ("auc", "gini", "ks", "auc_se", "average_precision")


def make_data(rows: int, groups: int, seed: int = 0) -> pl.DataFrame:
    """Seeded prediction log: ``score`` (continuous), ``rounded`` (3 decimals), ``label``, ``g``.

    Scores are a logistic model's probabilities with ~30% positives; ``rounded`` has at
    most 1001 distinct values, like probabilities reported with 3 decimals.
    """
    rng = np.random.default_rng(seed)
    label = rng.random(rows) < 0.3
    logit = rng.normal(size=rows) + 1.2 * label - 0.8
    score = 1.0 / (1.0 + np.exp(-logit))
    return pl.DataFrame(
        {
            "score": score,
            "rounded": np.round(score, 3),
            "label": label,
            "g": rng.integers(0, groups, size=rows, dtype=np.int32),
        }
    )


# The clock of `best_time` and `paired_ratio`: wall time, or with --cpu the process's
# CPU time, which other work on a shared machine barely moves (POLARS_MAX_THREADS=1).
CLOCK = time.perf_counter


def best_time(fn: Callable[[], Any], repeat: int) -> float:
    """Fastest wall time of ``repeat`` calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        start = CLOCK()
        fn()
        times.append(CLOCK() - start)
    return min(times)


def paired_ratio(fn: Callable[[], Any], baseline: Callable[[], Any], repeat: int) -> float:
    """Fastest time of ``fn`` over fastest time of ``baseline``, their runs alternating.

    On a shared machine the load moves between two separate series of runs; alternating
    them lets both meet the same quiet moments, so the ratio moves less than the times.
    """
    fn(), baseline()
    ours, theirs = [], []
    for _ in range(repeat):
        for timed, times in ((fn, ours), (baseline, theirs)):
            start = CLOCK()
            timed()
            times.append(CLOCK() - start)
    return min(ours) / min(theirs)


@dataclass
class Row:
    name: str
    seconds: float
    baseline: float

    @property
    def ratio(self) -> float:
        return self.seconds / self.baseline


def crossover(rows: int, repeat: int) -> None:
    """Time the hash and sort paths of the AUC as the number of distinct scores grows."""
    rng = np.random.default_rng(1)
    label = rng.random(rows) < 0.3
    raw = rng.random(rows) * 0.6 + 0.4 * label
    sort_time = best_time(lambda: pl.Series(raw).sort(), repeat)
    print(f"hash vs sort path of roc_auc, {rows:_} rows (ratio to the plain sort)")
    print(f"{'distinct':>10} {'ratio':>8} {'hash':>8} {'sort':>8}")
    for distinct in (1_000, 10_000, 100_000, 300_000, 1_000_000, 2_000_000, rows):
        score = np.floor(raw * distinct) / distinct if distinct < rows else raw
        df = pl.DataFrame({"score": score, "label": label})
        prep = prepare(df, Roles())
        times = [
            best_time(lambda p=path, prep=prep: pair_counts(prep, path=p).collect(), repeat)
            for path in ("hash", "sort")
        ]
        print(
            f"{prep.n_distinct:>10_} {prep.n_distinct / rows:>8.3f} "
            f"{times[0] / sort_time:>8.2f} {times[1] / sort_time:>8.2f}"
        )


def grouped_paths(rows: int, groups: int, repeat: int, seed: int) -> None:
    """The counting paths on grouped rows with few distinct scores (rounded, 1001)."""
    df = make_data(rows, groups, seed)
    rounded = df.select(pl.col("rounded").alias("score"), "label", "g")
    sort_time = best_time(lambda: df.select(pl.col("score").sort()), repeat)
    prep = prepare(rounded, Roles(by="g"))
    print(
        f"counting paths by {groups} groups, rounded scores, {rows:_} rows "
        "(ratio to the plain sort of the continuous scores)"
    )
    print(f"{'path':>8} {'pair_counts':>12} {'table':>8}")
    for path in ("hash", "sort", "dense"):
        pairs = best_time(lambda p=path: pair_counts(prep, path=p).collect(), repeat)
        table = best_time(lambda p=path: build(prep, path=p).collect(), repeat)
        print(f"{path:>8} {pairs / sort_time:>12.2f} {table / sort_time:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--crossover",
        action="store_true",
        help="instead, time the hash and sort paths against the number of distinct scores",
    )
    parser.add_argument(
        "--grouped-paths",
        action="store_true",
        help="instead, time the hash, sort and dense paths by groups on rounded scores",
    )
    parser.add_argument(
        "--delong",
        action="store_true",
        help="instead, time pr.auc_se against df.roc.auc(ci='delong') by 24 months and by groups",
    )
    parser.add_argument(
        "--expr-profile",
        action="store_true",
        help="instead, time the steps of the grouped expressions against polars-ds",
    )
    parser.add_argument(
        "--issue15",
        action="store_true",
        help="instead, only the ratios of issue 15 part 4, logistic and uniform scores",
    )
    parser.add_argument(
        "--rounded",
        action="store_true",
        help="with --issue15: only the rounded-score ratios (issue 28 item 3)",
    )
    parser.add_argument(
        "--components",
        action="store_true",
        help="instead, time the steps of the exact, rounded and grouped rounded AUC",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="alternating ratios in process CPU time instead of wall time (shared machines; "
        "with POLARS_MAX_THREADS=1)",
    )
    args = parser.parse_args()
    if args.cpu:
        global CLOCK
        CLOCK = time.process_time
    if args.components:
        components(args.rows, args.groups, args.repeat, args.seed)
        return
    if args.issue15:
        issue_15_targets(args.rows, args.groups, args.repeat, args.seed, rounded=args.rounded)
        return
    if args.delong:
        delong_by_month(args.repeat, args.seed, args.rows, args.groups)
        return
    if args.expr_profile:
        expression_profile(args.rows, args.groups, args.repeat, args.seed)
        return
    if args.grouped_paths:
        grouped_paths(args.rows, args.groups, args.repeat, args.seed)
        return
    if args.crossover:
        crossover(args.rows, args.repeat)
        return

    df = make_data(args.rows, args.groups, args.seed)
    rounded = df.select(pl.col("rounded").alias("score"), "label", "g")
    repeat = args.repeat
    print(
        f"polars {pl.__version__}, {args.rows:_} rows, {args.groups} groups, best of "
        f"{repeat} runs; ratio = seconds / plain sort of the continuous score column\n"
    )

    sort_cont = best_time(lambda: df.select(pl.col("score").sort()), repeat)
    rows: list[Row] = []

    def add(name: str, fn: Callable[[], Any], baseline: float = sort_cont) -> Row:
        row = Row(name, best_time(fn, repeat), baseline)
        rows.append(row)
        return row

    add("plain sort: pl.col('score').sort()", lambda: df.select(pl.col("score").sort()))
    add("plain sort, rounded scores", lambda: rounded.select(pl.col("score").sort()))
    add("validation pass (prepare)", lambda: prepare(df, Roles()))
    auc_cont = add("roc_auc", lambda: pr.roc_auc(df))
    auc_round = add("roc_auc, rounded scores", lambda: pr.roc_auc(rounded))
    curve = add("roc_curve", lambda: pr.roc_curve(df))
    add("roc_curve, rounded scores", lambda: pr.roc_curve(rounded))
    table = add("score_table", lambda: pr.score_table(df))
    by_group = add(
        f"roc_auc by={args.groups} groups", lambda: pr.roc_auc(df, by="g"), auc_cont.seconds
    )
    by_group_round = add(
        f"roc_auc by={args.groups} groups, rounded",
        lambda: pr.roc_auc(rounded, by="g"),
        auc_round.seconds,
    )
    add("roc_curve by groups", lambda: pr.roc_curve(df, by="g"))
    add("roc_curve by groups, rounded", lambda: pr.roc_curve(rounded, by="g"))
    add(
        "confusion_matrix by groups, rounded",
        lambda: pr.confusion_matrix(rounded, [0.25, 0.5, 0.75], by="g"),
    )
    add("confusion_matrix at 3 thresholds", lambda: pr.confusion_matrix(df, [0.25, 0.5, 0.75]))
    expr_select = add("pr.auc() in select", lambda: df.select(pr.auc("score", "label")))
    # The expressions in group_by, each against polars-ds's grouped AUC (issue 15).
    for name in EXPRESSIONS:
        expression = getattr(pr, name)
        add(
            f"pr.{name}() in group_by({args.groups})",
            lambda f=expression: df.group_by("g").agg(f("score", "label")),
        )
    if roc_auc_score is not None:
        y, s = df["label"].to_numpy(), df["score"].to_numpy()
        sk_auc = add("sklearn roc_auc_score", lambda: roc_auc_score(y, s))
        add("sklearn roc_curve", lambda: roc_curve(y, s))
    if pds is not None:
        pds_auc = add(
            "polars-ds query_roc_auc", lambda: df.select(pds.query_roc_auc("label", "score"))
        )
        add(
            "polars-ds query_roc_auc, rounded",
            lambda: rounded.select(pds.query_roc_auc("label", "score")),
        )
        add(
            f"polars-ds query_roc_auc in group_by({args.groups})",
            lambda: df.group_by("g").agg(pds.query_roc_auc("label", "score")),
        )

    # The answers must agree before their speed means anything.
    ours = pr.roc_auc(df)["auc"][0]
    if roc_auc_score is not None:
        assert abs(ours - roc_auc_score(y, s)) < 1e-12, (ours, roc_auc_score(y, s))
    assert abs(df.select(pr.auc("score", "label")).item() - ours) < 1e-12

    # The sort is timed first, once more in the table and once more last; the fastest
    # of those is the baseline, so a busy moment does not flatter the other ratios.
    last_sort = best_time(lambda: df.select(pl.col("score").sort()), repeat)
    baseline = min(sort_cont, rows[0].seconds, last_sort)
    for r in rows:
        if r.baseline == sort_cont:
            r.baseline = baseline
    sort_cont = baseline

    width = max(len(r.name) for r in rows)
    print(f"{'':{width}}  {'seconds':>8}  {'ratio':>6}")
    for r in rows:
        base = "" if r.baseline == sort_cont else "  (vs ungrouped roc_auc)"
        print(f"{r.name:{width}}  {r.seconds:8.3f}  {r.ratio:6.2f}{base}")

    targets = [
        ("exact AUC, continuous <= 1.5x sort", auc_cont.ratio, 1.5),
        ("exact AUC, rounded <= 0.75x sort", auc_round.ratio, 0.75),
        ("curve <= 2.5x sort", curve.ratio, 2.5),
        ("AUC by groups <= 2x ungrouped AUC", by_group.ratio, 2.0),
        ("AUC by groups, rounded <= 2x ungrouped", by_group_round.ratio, 2.0),
    ]
    if roc_auc_score is not None:
        targets.append(("roc_auc_score / roc_auc >= 8x", sk_auc.seconds / auc_cont.seconds, 8))
    if pds is not None:
        targets.append(("polars-ds / roc_auc >= 3x", pds_auc.seconds / auc_cont.seconds, 3))
    print("\ntargets (issue 2):")
    for name, value, bound in targets:
        ok = value >= bound if ">=" in name else value <= bound
        print(f"  {'PASS' if ok else 'FAIL'}  {name:40} measured {value:.2f}")
    print(
        f"\n(score_table alone {table.ratio:.2f}x; pr.auc in select "
        f"{expr_select.ratio:.2f}x the sort)"
    )

    issue_15_targets(args.rows, args.groups, repeat, args.seed)


def uniform_data(rows: int, groups: int, seed: int = 0) -> pl.DataFrame:
    """As :func:`make_data` with uniform scores: ``score`` ~ U(0, 1), P(label) = 0.6 score."""
    rng = np.random.default_rng(seed + 1)
    score = rng.random(rows)
    return pl.DataFrame(
        {
            "score": score,
            "rounded": np.round(score, 3),
            "label": rng.random(rows) < 0.6 * score,
            "g": rng.integers(0, groups, size=rows, dtype=np.int32),
        }
    )


def issue_15_targets(rows: int, groups: int, repeat: int, seed: int, rounded: bool = False) -> None:
    """Issue 15 part 4: each ratio timed in alternation with its own baseline.

    The baseline of an exact AUC is the plain sort of the same column (continuous with
    continuous, rounded with rounded); the grouped rounded AUC is against the ungrouped
    one, and each expression in ``group_by`` against polars-ds's grouped AUC. Uniform
    and logistic scores, as the issue asks. ``rounded``: the rounded-score ratios only.
    """
    clock = "CPU" if CLOCK is time.process_time else "wall"
    print(
        f"issue 15 part 4, {rows:_} rows, {groups} groups, alternating runs, best of "
        f"{repeat}, {clock} time (POLARS_MAX_THREADS={pl.thread_pool_size()})"
    )
    for kind, make in (("logistic", make_data), ("uniform", uniform_data)):
        print(f"  {kind} scores:")
        ratios = _issue_15_ratios(make(rows, groups, seed), groups, repeat, rounded)
        for name, value, bound in ratios:
            print(
                f"    {'PASS' if value <= bound else 'FAIL'}  {name:58} measured {value:.2f}"
                f"  (<= {bound})"
            )


def _issue_15_ratios(
    df: pl.DataFrame, groups: int, repeat: int, rounded_only: bool = False
) -> list[tuple[str, float, float]]:
    """``(name, ratio, target)`` of issue 15 part 4 on one data set."""
    rounded = df.select(pl.col("rounded").alias("score"), "label", "g")

    def sort_of(frame: pl.DataFrame) -> Callable[[], Any]:
        return lambda: frame.select(pl.col("score").sort())

    targets = (
        []
        if rounded_only
        else [
            (
                "exact AUC, continuous / sort of continuous",
                paired_ratio(lambda: pr.roc_auc(df), sort_of(df), repeat),
                1.5,
            ),
        ]
    )
    targets += [
        (
            "exact AUC, rounded / sort of rounded",
            paired_ratio(lambda: pr.roc_auc(rounded), sort_of(rounded), repeat),
            0.75,
        ),
        (
            f"AUC by {groups} groups, rounded / ungrouped rounded",
            paired_ratio(lambda: pr.roc_auc(rounded, by="g"), lambda: pr.roc_auc(rounded), repeat),
            2.0,
        ),
    ]
    if pds is not None:
        pds_rounded = lambda: rounded.select(pds.query_roc_auc("label", "score"))  # noqa: E731
        targets.append(
            (
                "exact AUC, rounded / polars-ds rounded",
                paired_ratio(lambda: pr.roc_auc(rounded), pds_rounded, repeat),
                0.33,
            )
        )
        grouped_pds = lambda: df.group_by("g").agg(pds.query_roc_auc("label", "score"))  # noqa: E731
        for name in () if rounded_only else EXPRESSIONS:
            function = getattr(pr, name)
            ratio = paired_ratio(
                lambda f=function: df.group_by("g").agg(f("score", "label")), grouped_pds, repeat
            )
            targets.append((f"pr.{name} in group_by / polars-ds in group_by", ratio, 0.5))
    return targets


def components(rows: int, groups: int, repeat: int, seed: int) -> None:
    """The steps of the frame paths timed alone (Polars 2 has no per-node profile)."""
    from polars_roc.core.compat import float_as_bits
    from polars_roc.core.score_table import DENSE_MAX_CELLS, _cell_keys, _packed_key
    from polars_roc.core.validate import NEG, POS, SCORE

    df = make_data(rows, groups, seed)
    rd = df.select(pl.col("rounded").alias("score"), "label", "g")
    cont, rnd = prepare(df, Roles()), prepare(rd, Roles())
    grouped = prepare(rd, Roles(by="g"))
    key, _, _ = _packed_key(cont)
    by_string = rd.with_columns(pl.col("g").cast(pl.String))
    by_two = rd.with_columns(g2=pl.col("g") % 7)
    udf_rows = grouped.frame.select(pl.struct("g", SCORE, pl.col(NEG).cast(pl.Int8)))
    batch = udf_rows.collect().to_series()  # what the dense path's UDF receives
    bits = float_as_bits(pl.col(SCORE))
    int_key = (bits * 2 + pl.col(NEG)).value_counts()
    blocks = {
        "exact AUC, continuous (unit: plain sort of the score)": {
            "unit": lambda: df.select(pl.col("score").sort()),
            "prepare (validation pass)": lambda: prepare(df, Roles()),
            "packed key alone": lambda: cont.frame.select(key.alias("k")).collect(),
            "packed key + its sort": lambda: cont.frame.select(key.sort().alias("k")).collect(),
            "pair_counts (key, sort, sums, ties)": lambda: pair_counts(cont).collect(),
            "roc_auc": lambda: pr.roc_auc(df),
        },
        "exact AUC, rounded (unit: plain sort of the rounded column)": {
            "unit": lambda: rd.select(pl.col("score").sort()),
            "prepare": lambda: prepare(rd, Roles()),
            "prepare, counted in its checks": lambda: prepare(rd, Roles(), table_only=True),
            "the internal frame alone": lambda: rnd.frame.collect(),
            "hash count, group_by(score) two sums": lambda: (
                rnd.frame.group_by(SCORE).agg(pl.col(POS).sum(), pl.col(NEG).sum()).collect()
            ),
            "hash count of one Int64 key": lambda: rnd.frame.select(int_key).collect(),
            "hash count, score bits, length + one sum": lambda: (
                rnd.frame.group_by(bits).agg(pl.len(), pl.col(POS).sum()).collect()
            ),
            "pair_counts (hash path)": lambda: pair_counts(rnd).collect(),
            "roc_auc": lambda: pr.roc_auc(rd),
        },
        f"AUC by {groups} groups, rounded (unit: ungrouped rounded roc_auc)": {
            "unit": lambda: pr.roc_auc(rd),
            "prepare by g": lambda: prepare(rd, Roles(by="g")),
            "the rows as the UDF's struct": lambda: udf_rows.collect(),
            "distinct scores (unique)": lambda: batch.struct.field(SCORE).unique(
                maintain_order=True
            ),
            "cell keys (distinct scores and codes)": lambda: _cell_keys(
                batch, ["g"], DENSE_MAX_CELLS
            ),
            "pair_counts dense (codes + bincount)": lambda: pair_counts(grouped).collect(),
            "pair_counts hash": lambda: pair_counts(grouped, path="hash").collect(),
            "pair_counts sort": lambda: pair_counts(grouped, path="sort").collect(),
            "roc_auc by g": lambda: pr.roc_auc(rd, by="g"),
            "roc_auc by g as String (a join)": lambda: pr.roc_auc(by_string, by="g"),
            "roc_auc by [g, g % 7] (a join)": lambda: pr.roc_auc(by_two, by=["g", "g2"]),
            "roc_curve by g": lambda: pr.roc_curve(rd, by="g"),
        },
    }
    clock = "CPU" if CLOCK is time.process_time else "wall"
    print(f"steps of the frame paths, {rows:_} rows, {clock} time, best of {repeat}")
    for title, steps in blocks.items():
        unit = best_time(steps["unit"], repeat)
        print(f"  {title}: unit {unit * 1000:.1f} ms")
        for name, fn in steps.items():
            if name != "unit":
                print(f"    {name:40} {best_time(fn, repeat) / unit:6.2f}")


def expression_profile(rows: int, groups: int, repeat: int, seed: int) -> None:
    """What the grouped expressions spend their time on, each step alone, vs polars-ds."""
    df = make_data(rows, groups, seed)
    s, y = pl.col("score"), pl.col("label")
    n_pos = y.sum().cast(pl.Float64)
    n_neg = pl.len().cast(pl.Float64) - n_pos
    rank_auc = (s.rank("average").filter(y).sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    steps = {
        "gather the groups: agg(score)": s,
        "sort each group: agg(score.sort())": s.sort(),
        "rank each group: agg(score.rank().sum())": s.rank("average").sum(),
        "rank of the positives only": s.filter(y).rank("max", descending=True).sum(),
        "plain average-rank AUC, no checks": rank_auc,
        **{f"pr.{name}": getattr(pr, name)("score", "label") for name in EXPRESSIONS},
    }
    grouped_pds = lambda: df.group_by("g").agg(pds.query_roc_auc("label", "score"))  # noqa: E731
    print(
        f"group_by({groups}) on {rows:_} rows, each step timed in alternation with "
        "polars-ds's grouped AUC (ratio = step / polars-ds)"
    )
    for name, expr in steps.items():
        ratio = paired_ratio(lambda e=expr: df.group_by("g").agg(e), grouped_pds, repeat)
        print(f"  {name:45} {ratio:5.2f}")


def delong_by_month(repeat: int, seed: int, rows: int = 5_000_000, groups: int = 1000) -> None:
    """``pr.auc_se`` in group_by against ``df.roc.auc(ci="delong")`` (issue 16).

    On 240k rows by 24 months (the issue's log) and on ``rows`` by ``groups``.
    """
    for n, k, name in ((240_000, 24, "month"), (rows, groups, "g")):
        df = make_data(n, k, seed).rename({"g": name})
        ratio = paired_ratio(
            lambda df=df, name=name: df.group_by(name).agg(pr.auc_se()),
            lambda df=df, name=name: df.roc.auc(by=name, ci="delong"),
            repeat,
        )
        mine = df.group_by(name).agg(pr.auc_se()).sort(name)["auc_se"]
        theirs = df.roc.auc(by=name, ci="delong")["auc_se"]
        assert max(abs(a - b) for a, b in zip(mine, theirs, strict=True)) < 1e-12
        clock = "CPU" if CLOCK is time.process_time else "wall"
        print(
            f"DeLong by {k} groups, {n:_} rows: pr.auc_se in group_by / "
            f"df.roc.auc(ci='delong'), alternating, {clock} time: {ratio:.2f}x "
            f"({'PASS' if ratio <= 2 else 'FAIL'}, target <= 2)"
        )


if __name__ == "__main__":
    main()
