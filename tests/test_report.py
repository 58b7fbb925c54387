"""The HTML report: its tables, its self-containment, the command, and a real browser.

The browser test opens the report in headless Chromium (Debian packages ``chromium`` and
``chromium-driver``) with networking disabled and checks, in the rendered DOM, that every
chart drew its marks and that the page logged no error; its screenshot stays in pytest's
temporary folder (``--basetemp`` chooses where), unannounced.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import html
import itertools
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

from polars_roc.cli import add_report_command, main
from polars_roc.report import html as _report
from polars_roc.report.html import build_report, javascript_bundle
from tests.conftest import make_log

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell")


def run_cli(argv: list[str]) -> int:
    """Parse ``argv`` with the ``report`` subcommand as the ``polars-roc`` parser does."""
    parser = argparse.ArgumentParser(prog="polars-roc")
    add_report_command(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["report", *argv])
    return int(args.func(args))


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return make_log(seed=3, n=400)


@pytest.fixture(scope="module")
def report(log: pl.DataFrame) -> _report.Report:
    return build_report(log, by="segment", threshold=0.5)


# Reports that several tests read, built once.
@pytest.fixture(scope="module")
def plain_report(log: pl.DataFrame) -> _report.Report:
    return build_report(log, by="segment")


@pytest.fixture(scope="module")
def two_column_report(log: pl.DataFrame) -> _report.Report:
    return build_report(log, by=["segment", "month"], threshold=0.5)


@pytest.fixture(scope="module")
def paired_log(log: pl.DataFrame) -> pl.DataFrame:
    return log.with_columns((pl.col("score") + pl.col("weight") / 5).alias("other"))


@pytest.fixture(scope="module")
def over_time_report(paired_log: pl.DataFrame) -> _report.Report:
    return build_report(paired_log, by="segment", period="month", challenger="other")


@pytest.fixture(scope="module")
def challenger_report(paired_log: pl.DataFrame) -> _report.Report:
    return build_report(paired_log, by="segment", challenger="other")


def spec_blocks(page: str) -> dict[str, Any]:
    found = re.findall(
        r'<script type="application/json" id="spec-(\w+)">(.*?)</script>', page, re.S
    )
    return {name: json.loads(text) for name, text in found}


# --------------------------------------------------------------------------------------
# Content


def test_tables_match_references(log: pl.DataFrame, report: _report.Report) -> None:
    auc = report.tables["auc"]
    assert auc["segment"].to_list() == ["east", "north", "south"]
    for row in auc.iter_rows(named=True):
        part = log.filter(pl.col("segment") == row["segment"])
        expected = roc_auc_score(part["label"], part["score"])
        assert row["auc"] == pytest.approx(expected)
        assert row["gini"] == pytest.approx(2 * expected - 1)
        assert (row["n_pos"], row["n_neg"]) == (
            part["label"].sum(),
            part.height - part["label"].sum(),
        )
    summary = report.tables["summary"]
    assert summary["segment"].to_list() == ["east", "north", "south", "all"]
    total = summary.row(-1, named=True)
    assert (total["rows"], total["n_pos"]) == (log.height, log["label"].sum())
    assert total["prevalence"] == pytest.approx(log["label"].mean())
    confusion = report.tables["confusion"]
    for row in confusion.iter_rows(named=True):
        part = log.filter(pl.col("segment") == row["segment"])
        score, label = part["score"].to_numpy(), part["label"].to_numpy() == 1
        assert row["tp"] == np.sum(label & (score >= 0.5))
        assert row["fp"] == np.sum(~label & (score >= 0.5))


def test_page_is_self_contained(report: _report.Report) -> None:
    page = report.html
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # Outside the scripts, no element loads anything: no src/href, <link>, <img>, ...
    markup = re.sub(r"(<script[^>]*>).*?</script>", r"\1</script>", page, flags=re.S)
    assert not re.search(r"<(link|iframe|img|object|embed)\b", markup, re.I)
    assert not re.search(r"\b(src|href)=", markup, re.I)
    assert "window.vegaEmbed" in page and javascript_bundle() in page
    specs = spec_blocks(page)
    # Scores in [0, 1]: the calibration section and decision curves are on.
    assert sorted(specs) == ["calibration", "confusion", "decision", "gains", "pr", "roc"]
    assert specs["roc"] == report.charts["roc"].to_dict()
    assert page.count("data-chart=") == 6
    for name, table in report.tables.items():
        for column in table.columns:
            assert f"<th>{html.escape(column)}</th>" in page, (name, column)


def test_report_with_two_segment_columns_and_weights(log: pl.DataFrame) -> None:
    built = build_report(log.lazy(), by=["segment", "month"], weight="weight", threshold=0.4)
    roc = built.charts["roc"].to_dict()
    assert roc["facet"]["field"] == "_panel"
    assert [r["_note"] for r in next(iter(roc["datasets"].values())) if r.get("_layer") == "note"]
    expected = roc_auc_score(
        log.filter(pl.col("segment") == "east", pl.col("month") == 1)["label"],
        log.filter(pl.col("segment") == "east", pl.col("month") == 1)["score"],
        sample_weight=log.filter(pl.col("segment") == "east", pl.col("month") == 1)["weight"],
    )
    east = built.tables["auc"].filter(pl.col("segment") == "east", pl.col("month") == 1)
    assert east["auc"].item() == pytest.approx(expected)
    summary = built.tables["summary"]
    assert summary.schema["n_pos"] == pl.Float64  # sums of weights
    assert summary["rows"].to_list()[-1] == log.height


def test_three_segment_columns_are_joined(log: pl.DataFrame) -> None:
    three = log.with_columns(pl.lit("x").alias("channel"))
    built = build_report(three, by=["segment", "month", "channel"])
    assert built.tables["auc"].columns[0] == "segment / month / channel"
    # Weakest first (issue 27 item 5); the input summary keeps the segments' own order.
    assert built.tables["auc"]["auc"].is_sorted()
    assert built.tables["summary"]["segment / month / channel"][0] == "east / 1 / x"


def test_million_row_report_is_fast_and_small(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    n = 1_000_000
    label = rng.random(n) < 0.2
    log = pl.DataFrame(
        {
            "segment": rng.choice(["north", "south", "east", "west"], n),
            "score": 1 / (1 + np.exp(-(rng.normal(size=n) + 1.1 * label - 1.5))),
            "label": label,
        }
    )
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    javascript_bundle()  # a fixed cost, built once per vl-convert version
    # CPU time of this process (Polars' threads included), not the wall clock: the same
    # budget on a machine shared with other work (~5 s here, at 5-15 s of wall clock).
    started = time.process_time()
    code = run_cli([str(path), "--by", "segment", "--out", str(tmp_path / "r.html"), "--quiet"])
    elapsed = time.process_time() - started
    assert code == 0
    size = (tmp_path / "r.html").stat().st_size
    assert size < 3_000_000, size
    assert elapsed < 30, elapsed  # a few seconds on an idle 2-core machine


# --------------------------------------------------------------------------------------
# Command line


def test_cli_demo_with_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, png = tmp_path / "demo.html", tmp_path / "png"
    assert run_cli(["--demo", "--out", str(out), "--png", str(png)]) == 0
    stages = capsys.readouterr().err
    for stage in ("reading", "counting", "rendering", "wrote"):
        assert stage in stages
    page = out.read_text(encoding="utf-8")
    assert "demo credit log" in page
    assert "<h2>Over time</h2>" in page and "AUC per month" in page  # the demo has months
    for name in ("roc", "pr", "confusion"):
        assert (png / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("suffix", ["csv", "parquet", "ndjson"])
def test_cli_reads_files(
    tmp_path: Path, log: pl.DataFrame, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"log.{suffix}"
    getattr(log.select("segment", "month", "score", "truth"), f"write_{suffix}")(path)
    out = tmp_path / "report.html"
    argv = [
        str(path),
        "--label",
        "truth",
        "--pos-label",
        "bad",
        "--by",
        "segment",
        "--by",
        "month",
        "--threshold",
        "0.3",
        "--out",
        str(out),
        "--quiet",
    ]
    assert run_cli(argv) == 0
    assert capsys.readouterr().err == ""
    page = out.read_text(encoding="utf-8")
    assert "label &#x27;truth&#x27; == &#x27;bad&#x27;" in page
    assert "Confusion at threshold 0.3" in page


def test_cli_errors(tmp_path: Path, log: pl.DataFrame) -> None:
    from polars_roc.cli import InputError

    with pytest.raises(InputError, match="either a FILE or --demo"):
        run_cli(["--quiet"])
    with pytest.raises(InputError, match="either a FILE or --demo"):
        run_cli(["x.csv", "--demo", "--quiet"])
    path = tmp_path / "log.csv"
    log.write_csv(path)
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="score column 'p' not found"):
        run_cli([str(path), "--score", "p", "--out", str(tmp_path / "r.html"), "--quiet"])
    empty = tmp_path / "empty.csv"
    log.clear().write_csv(empty)
    with pytest.raises(InputError, match="has no rows: there is nothing to evaluate"):
        run_cli([str(empty), "--out", str(tmp_path / "r.html"), "--quiet"])
    with pytest.raises(ValueError, match="the log frame has no rows: there is nothing to report"):
        build_report(log.clear())
    assert not (tmp_path / "r.html").exists()


# --------------------------------------------------------------------------------------
# Issue 16: dropped rows, the "all" row, n/a cells, dates, print, --out folders


def _dated(log: pl.DataFrame, *, february_positives: bool = True) -> pl.DataFrame:
    """The log with a Date segment column (and, if asked, no positives in February)."""
    label = pl.col("label")
    if not february_positives:
        label = pl.when(pl.col("month") == 2).then(0).otherwise(label)
    return log.with_columns(month=pl.date(2024, pl.col("month"), 1), label=label)


def test_heading_counts_rows_dropped_for_nulls(
    log: pl.DataFrame, plain_report: _report.Report
) -> None:
    holes = log.with_columns(
        score=pl.when(pl.int_range(pl.len()) % 50 == 0).then(None).otherwise(pl.col("score"))
    )
    built = build_report(holes, by="segment", nulls="drop")
    assert (
        f"{log.height:,} rows read, 8 dropped for a null score, label or weight "
        f"(nulls=&#x27;drop&#x27;), {log.height - 8:,} evaluated"
    ) in built.html
    assert built.tables["summary"].row(-1, named=True)["rows"] == log.height - 8
    meta = re.search(r'<p class="meta">(.*?)</p>', plain_report.html)
    assert meta is not None and meta.group(1).startswith(f"{log.height:,} rows · score")


def test_all_row_reads_all_in_every_segment_column(log: pl.DataFrame) -> None:
    summary = build_report(_dated(log), by=["segment", "month"]).tables["summary"]
    total = summary.row(-1, named=True)
    assert (total["segment"], total["month"]) == ("all", "all")
    assert summary.schema["month"] == pl.String
    assert summary["month"].head(2).to_list() == ["2024-01-01", "2024-02-01"]
    assert total["rows"] == log.height


def test_na_cells_are_explained_and_dates_do_not_wrap(
    log: pl.DataFrame, plain_report: _report.Report
) -> None:
    with pytest.warns(UserWarning, match=r"\[month=2024-02-01\] hold only one class"):
        built = build_report(_dated(log, february_positives=False), by="month")
    page = built.html
    auc = built.tables["auc"]
    assert auc.filter(pl.col("month") == pl.date(2024, 2, 1))["auc"].to_list() == [None]
    # The AUC, confusion and average-precision tables explain their n/a cells.
    # And the KS and average-precision tables.
    assert page.count("<p class='note'>n/a (in ") == 4
    assert (
        "<p class='note'>n/a (in auc, gini, auc_se, ci_lower, ci_upper, u_statistic, "
        "p_value): not defined"
    ) in page
    assert "tpr, fnr and the AUC need positives" in page
    assert "<td class='nowrap'>2024-02-01</td>" in page
    assert "n/a (in" not in plain_report.html  # no undefined number, no note


def test_print_styles_keep_wide_tables_on_the_page(report: _report.Report) -> None:
    style = re.search(r"<style>(.*?)</style>", report.html, re.S)
    assert style is not None
    css = style.group(1)
    assert "@page { size: A4 landscape;" in css
    printed = css[css.index("@media print") :]
    # On paper nothing scrolls: the scrolling wrapper must let the table show whole.
    assert ".wide { overflow: visible; }" in printed
    assert "table { font-size: 7pt; width: 100%; }" in printed
    assert printed.count("{") == printed.count("}")


def test_cli_out_into_a_missing_folder_creates_it_and_says_so(
    tmp_path: Path, log: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.csv"
    log.select("score", "label").head(40).write_csv(path)
    out = tmp_path / "new" / "deeper" / "report.html"
    assert run_cli([str(path), "--quiet", "--out", str(out)]) == 0
    assert out.exists()
    assert capsys.readouterr().err == (
        f"polars-roc: created folder {str(out.parent)!r} for --out\n"
    )
    assert run_cli([str(path), "--quiet", "--out", str(out)]) == 0  # exists now: silent
    assert capsys.readouterr().err == ""


def test_cli_report_null_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from polars_roc.cli import InputError

    path = tmp_path / "from_r.csv"
    path.write_text("score,label\n0.9,1\nNA,0\n0.3,0\n0.8,1\n0.2,0\n")
    out = tmp_path / "r.html"
    with pytest.raises(
        InputError,
        match=r"holds text that is not a number \('NA'\); if it "
        r"marks missing values, pass --null-values NA",
    ):
        run_cli([str(path), "--out", str(out), "--quiet"])
    assert (
        run_cli([str(path), "--null-values", "NA", "--nulls", "drop", "--out", str(out), "--quiet"])
        == 0
    )
    assert "5 rows read, 1 dropped" in out.read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------
# A real browser


def find_chromium() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def offline_prefix() -> list[str]:
    """Run in a network namespace of its own (no network at all) where allowed."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "--net", "true"], capture_output=True).returncode == 0:
        return [unshare, "--net"]
    return []


class Browser:
    """One headless Chromium for the module's pages, driven over its DevTools pipe
    (``--remote-debugging-pipe``: commands on fd 3, replies on fd 4), one tab a page.

    Each page gets what ``--virtual-time-budget=15000 --dump-dom --screenshot`` gave it:
    15 s of virtual time (paused while requests are pending), then its DOM and a
    screenshot. One launch serves every page: a launch cost more than most pages' drawing.
    """

    def __init__(self, chromium: str, profile: Path, log: Path) -> None:
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()
        self._log_path, self._log = log, log.open("wb")
        # bash puts the pipe's ends on fds 3 and 4 (no Python runs between fork and exec,
        # as preexec_fn would beside Polars' threads; dash reads one-digit fds only).
        # from_browser > 4: three fds of at least 3 were opened before it.
        command = [
            "bash",
            "-c",
            f'exec "$@" 3<&{to_browser} 4>&{from_browser}',
            "bash",
            *offline_prefix(),
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            f"--user-data-dir={profile}",
            # Belt and braces where no network namespace is available: every request goes
            # to a closed port and no host name resolves.
            "--proxy-server=127.0.0.1:9",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
            "--remote-debugging-pipe",
        ]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            pass_fds=(to_browser, from_browser),
        )
        os.close(to_browser)
        os.close(from_browser)
        self._pending, self._last = b"", 0

    def _send(self, method: str, session: str | None = None, **params: Any) -> Any:
        self._last += 1
        message = {"id": self._last, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        return self._wait(lambda m: m.get("id") == self._last)

    def _wait(self, wanted: Any, timeout: float = 120) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" not in self._pending:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                    raise TimeoutError(f"no answer from Chromium in {timeout} s")
                chunk = os.read(self._replies, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe")
                self._pending += chunk
            text, self._pending = self._pending.split(b"\0", 1)
            message = json.loads(text)
            if "error" in message:
                raise RuntimeError(f"Chromium: {message['error']}")
            if wanted(message):
                return message.get("result", message.get("params"))

    def render(
        self, page: Path, screenshot: Path, window: tuple[int, int] = (1280, 2600)
    ) -> tuple[str, str]:
        """Open ``page``; return (rendered DOM, the browser's log meanwhile)."""
        logged = self._log_path.stat().st_size
        target = self._send("Target.createTarget", url="about:blank")["targetId"]
        tab = self._send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        width, height = window
        self._send(
            "Emulation.setDeviceMetricsOverride",
            tab,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        # The page's clock starts once it is loading, as --virtual-time-budget starts it.
        self._send("Emulation.setVirtualTimePolicy", tab, policy="pause")
        self._send("Page.navigate", tab, url=page.as_uri())
        self._send(
            "Emulation.setVirtualTimePolicy",
            tab,
            policy="pauseIfNetworkFetchesPending",
            budget=15000,
        )
        self._wait(
            lambda m: (
                m.get("method") == "Emulation.virtualTimeBudgetExpired"
                and m.get("sessionId") == tab
            )
        )
        dom = self._send(
            "Runtime.evaluate",
            tab,
            expression="document.documentElement.outerHTML",
            returnByValue=True,
        )["result"]["value"]
        screenshot.write_bytes(base64.b64decode(self._send("Page.captureScreenshot", tab)["data"]))
        self._send("Target.closeTarget", targetId=target)
        return dom, self._log_path.read_bytes()[logged:].decode("utf-8", "replace")

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self._send("Browser.close")
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._commands, self._replies):
            os.close(fd)
        self._log.close()


# A Chromium log entry starts with "[pid:tid:MMDD/hhmmss.micros:LEVEL:..." and may span
# lines (a console message with a newline in it).
_LOG_ENTRY = re.compile(r"^\[\d+:\d+:\d{4}/\d{6}\.\d+:", re.M)


def console_lines(log_text: str, page: Path) -> list[str]:
    """The console messages of ``page`` itself in a Chromium log.

    Chromium also logs its own pages' messages (``"Slow network is detected"`` from
    ``chrome://resources/...`` on a loaded machine, Chromium 156): they are not the
    report's, so only entries whose source is the page count.
    """
    starts = [match.start() for match in _LOG_ENTRY.finditer(log_text)] + [len(log_text)]
    entries = [log_text[start:end].strip() for start, end in itertools.pairwise(starts)]
    source = f"source: {page.as_uri()} ("
    return [entry for entry in entries if ":CONSOLE" in entry and source in entry]


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    found = find_chromium()
    if found is None:
        pytest.skip(
            "no Chromium binary found (looked for " + ", ".join(CHROMIUM_NAMES) + "); "
            "install the Debian packages chromium and chromium-driver"
        )
    folder = tmp_path_factory.mktemp("chromium")
    browser = Browser(found, folder / "profile", folder / "chromium.log")
    yield browser
    browser.close()


def test_report_renders_in_a_real_browser(
    chromium: Browser, tmp_path: Path, log: pl.DataFrame, two_column_report: _report.Report
) -> None:
    import polars_roc as pr

    built = two_column_report
    page = tmp_path / "report.html"
    page.write_text(built.html, encoding="utf-8")
    screenshot = tmp_path / "report.png"
    dom, browser_log = chromium.render(page, screenshot)

    # ROC, PR, confusion; then calibration, gains and decision curves (the scores are
    # probabilities).
    assert dom.count('data-rendered="yes"') == 6, re.findall(r'data-rendered="\w+"', dom)
    assert 'data-charts="done"' in dom
    errors = re.search(r'<pre id="errors">(.*?)</pre>', dom, re.S)
    assert errors is not None and errors.group(1) == ""
    assert console_lines(browser_log, page) == []
    assert len(re.findall(r'<svg[^>]*class="marks"', dom)) == 6
    discrimination, calibration = dom.split('data-chart="spec-calibration"')
    marks = {
        kind: len(re.findall(rf'class="mark-{kind} role-mark', discrimination))
        for kind in ("line", "symbol", "rect", "text")
    }
    panels = 3  # segments; months are colors
    # One line per curve (segment x month), ROC and PR (the decision curves come after
    # the reliability diagram).
    assert marks["line"] == 2 * 6
    assert marks["symbol"] == 2 * panels  # the operating point layers
    # Confusion panels are (segment, month) pairs: 6 rect layers, 4 cells each.
    assert marks["rect"] == 6
    assert marks["text"] == 2 * panels + 6  # AUC and AP notes; confusion cell texts
    assert len(re.findall(r">TP \d+<", dom)) == 6
    # Each per-curve AUC printed on the chart is the exact one.
    for (segment, month), part in log.group_by("segment", "month"):
        expected = roc_auc_score(part["label"], part["score"])
        assert f">AUC {expected:.3f}<" in dom, (segment, month)
    # The reliability diagram: per segment panel the diagonal and the intervals (rules),
    # a line per month, and a point per non-empty bin.
    reliability = calibration.split("</svg>")[0]
    drawn = {
        kind: len(re.findall(rf'class="mark-{kind} role-mark', reliability))
        for kind in ("rule", "line", "symbol")
    }
    assert drawn == {"rule": 2 * panels, "line": 6, "symbol": panels}
    bins = pr.calibration_curve(log, by=["segment", "month"]).height
    assert reliability.count('aria-roledescription="point"') == bins
    assert screenshot.stat().st_size > 10_000


def test_console_check_reads_the_page_and_only_the_page(chromium: Browser, tmp_path: Path) -> None:
    """The check can fail: a page's own console error is caught, Chromium's are not."""
    page = tmp_path / "noisy.html"
    page.write_text(
        '<html><body><script>console.error("broken\\nchart")</script></body></html>',
        encoding="utf-8",
    )
    _, browser_log = chromium.render(page, tmp_path / "noisy.png")
    found = console_lines(browser_log, page)
    assert len(found) == 1 and '"broken\nchart"' in found[0]
    chromium_own = (
        '[1:1:1123/080000.000001:INFO:CONSOLE:574] "Slow network is detected.", source: '
        "chrome://resources/cr_components/composebox/composebox_input.js (574)\n"
    )
    assert console_lines(chromium_own + browser_log, page) == found


def test_browser_check_sees_blocked_requests(chromium: Browser, tmp_path: Path) -> None:
    """Negative control: a request from the page is blocked, and the test would see it."""
    page = tmp_path / "leaky.html"
    leaky = (
        "<!DOCTYPE html><html><head>"
        f'<meta http-equiv="Content-Security-Policy" content="{_report.CSP}"></head><body>'
        f'<pre id="errors"></pre><script>{_report.WATCH}</script>'
        '<img src="http://example.com/pixel.png"></body></html>'
    )
    page.write_text(leaky, encoding="utf-8")
    dom, browser_log = chromium.render(page, tmp_path / "leaky.png")
    assert "blocked request: http://example.com/pixel.png" in dom
    assert console_lines(browser_log, page)


def test_print_styles_fit_the_confusion_table_on_a4_landscape(
    chromium: Browser, tmp_path: Path, two_column_report: _report.Report
) -> None:
    """The print rules, applied on screen at the printable width of A4 landscape (277 mm,
    1047 px), keep every table within the page; the screen rules alone do not (control)."""
    built = two_column_report
    measure = (
        "<script>document.body.dataset.fit = Array.from(document.querySelectorAll('table'))"
        ".map((t) => t.getBoundingClientRect().right <= document.documentElement.clientWidth"
        " + 0.5 ? 'yes' : 'no').join(',');</script></body>"
    )

    def fits(page_html: str, name: str) -> list[str]:
        page = tmp_path / f"{name}.html"
        page.write_text(page_html.replace("</body>", measure), encoding="utf-8")
        dom, _ = chromium.render(page, tmp_path / f"{name}.png", window=(1047, 1400))
        found = re.search(r'data-fit="([a-z,]*)"', dom)
        assert found is not None
        return found.group(1).split(",")

    as_printed = built.html.replace("@media print {", "@media all {")
    # Input, AUC, confusion, calibration, KS and average precision tables.
    assert fits(as_printed, "print") == ["yes"] * 6
    assert fits(built.html, "screen")[2] == "no"  # the confusion table needs the print rules


# --------------------------------------------------------------------------------------
# Over time (build_report(period=..., challenger=...), --period, --challenger)


def test_over_time_section_matches_trend_and_drift(
    log: pl.DataFrame,
    paired_log: pl.DataFrame,
    over_time_report: _report.Report,
    challenger_report: _report.Report,
) -> None:
    from polars.testing import assert_frame_equal

    import polars_roc as pr

    built = over_time_report
    assert_frame_equal(
        built.tables["trend"], pr.trend(log, period="month", by="segment", ci="delong")
    )
    drift = pr.drift(log, period="month", by="segment")
    assert_frame_equal(built.tables["drift"], drift.sort("p_adjusted", "p_value", nulls_last=True))
    assert_frame_equal(
        built.tables["challenger"], pr.trend(paired_log, period="month", scores=["score", "other"])
    )
    assert {"trend", "challenger"} <= set(built.charts)
    specs = spec_blocks(built.html)
    assert specs["trend"] == json.loads(json.dumps(built.charts["trend"].to_dict()))
    assert "<h2>Over time</h2>" in built.html and "Drift against the first period" in built.html
    # One line per segment, in the page's own spec.
    rows = specs["trend"]["datasets"][specs["trend"]["data"]["name"]]
    assert {r["_group"] for r in rows} == set(log["segment"])
    # Without a period the challenger is compared per segment only.
    alone = challenger_report
    assert "pair" in alone.tables and "challenger" not in alone.tables
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="period column 'mnth'"):
        build_report(log, period="mnth")


def test_gains_and_ks_section(log: pl.DataFrame, plain_report: _report.Report) -> None:
    from scipy.stats import ks_2samp

    import polars_roc as pr

    ks = plain_report.tables["ks"]
    for (segment,), part in log.group_by("segment"):
        positive = part.filter(pl.col("label") == 1)["score"].to_numpy()
        negative = part.filter(pl.col("label") == 0)["score"].to_numpy()
        expected = ks_2samp(positive, negative).statistic
        assert ks.filter(pl.col("segment") == segment)["ks"].item() == pytest.approx(expected)
    spec = plain_report.charts["gains"].to_dict()
    drawn = [r for r in spec["datasets"][spec["data"]["name"]] if "bin" in r]
    gains = pr.gains_table(log, 10, by="segment")
    assert sorted((r["_panel"], r["bin"], r["capture"]) for r in drawn) == sorted(
        gains.select("segment", "bin", pl.col("capture").round(6)).rows()
    )
    assert "<h2>Gains and KS</h2>" in plain_report.html


def test_a_count_table_reports_as_its_expanded_rows(paired_log: pl.DataFrame) -> None:
    # The report had no count= (--count): a GROUP BY count table could not be reported.
    rows = paired_log.drop("weight").with_columns(pl.col("score", "other").round(1))
    table = rows.group_by(rows.columns).len("n")
    options: dict[str, Any] = {"by": "segment", "period": "month", "challenger": "other"}
    expanded = build_report(rows, **options)
    counted = build_report(table, count="n", **options)
    assert set(counted.tables) == set(expanded.tables)
    for name, frame in expanded.tables.items():
        got = counted.tables[name]
        assert_frame_equal(
            got.sort(got.columns), frame.sort(frame.columns), check_dtypes=False, rel_tol=1e-9
        )
    assert " · count &#x27;n&#x27; (each row stands for that many)" in counted.html


def test_direction_lower_reports_as_the_negated_score(paired_log: pl.DataFrame) -> None:
    # The report had no direction= (--direction): a score where lower is more positive
    # (a bureau score) could not be reported.
    options: dict[str, Any] = {"by": "segment", "period": "month", "challenger": "other"}
    higher = build_report(paired_log, **options)
    flipped = paired_log.with_columns(-pl.col("score"), -pl.col("other"))
    lower = build_report(flipped, direction="lower", **options)
    for name in ("summary", "auc", "pair", "trend", "drift", "challenger", "average_precision"):
        assert_frame_equal(lower.tables[name], higher.tables[name], rel_tol=1e-9)
    negated = higher.tables["confusion"].with_columns(-pl.col("threshold"))
    assert_frame_equal(lower.tables["confusion"], negated)
    # The views of probabilities say why they are absent.
    assert "calibration" in higher.tables and "decision" in higher.charts
    assert "calibration" not in lower.tables and "decision" not in lower.charts
    assert "is more positive (direction 'lower'): it is no probability" in lower.html
    assert "Predicted positive when score &lt;= " in lower.html


def test_over_time_estimates_the_periods_without_labels() -> None:
    import polars_roc as pr

    # Production: the last two months' defaults are not known yet (null labels).
    log = pr.datasets.load_credit().with_columns(
        pl.when(pl.col("month") < "2026-05").then(pl.col("label")).alias("label")
    )
    built = build_report(log, by="segment", period="month", nulls="drop")
    expected = pr.trend(log, period="month", by="segment", ci="delong", estimated=True)
    assert_frame_equal(built.tables["trend"], expected)
    assert built.tables["trend"].filter(pl.col("month") == "2026-06")["auc"].null_count() == 3
    layers = built.charts["trend"].to_dict()["layer"]
    assert [layer["mark"].get("strokeDash") for layer in layers].count([4, 4]) == 1
    assert "Dashed: the AUC expected from the scores" in built.html
    # The drift tests leave the unlabelled periods out, as the realised AUC does.
    assert set(built.tables["drift"]["month"]) <= {"2026-02", "2026-03", "2026-04"}
    # Every row labelled: no estimate.
    labelled = build_report(pr.datasets.load_credit(), by="segment", period="month")
    assert "estimated_auc" not in labelled.tables["trend"].columns


def test_over_time_weighted_log_has_no_drift_tests(paired_log: pl.DataFrame) -> None:
    built = build_report(
        paired_log, by="segment", weight="weight", period="month", challenger="other"
    )
    assert "drift" not in built.tables
    assert "auc_se" not in built.tables["trend"].columns
    assert "No drift tests: DeLong's test counts rows" in built.html
    # The paired test per period counts rows too: it showed the unweighted AUCs.
    assert "challenger" not in built.tables and "challenger" not in built.charts
    assert "No paired test of the challenger &#x27;other&#x27; per period" in built.html


def test_over_time_many_segments_cuts_tables_with_downloads() -> None:
    from urllib.parse import unquote

    rng = np.random.default_rng(8)
    n = 40 * 6 * 30
    segment = np.repeat(np.arange(40), n // 40)
    label = np.tile(np.arange(2), n // 2)
    frame = pl.DataFrame(
        {
            "segment": [f"s{i:02d}" for i in segment],
            "month": np.tile(np.repeat(np.arange(1, 7), 2), n // 12),
            "score": np.round(rng.normal(label * 0.8, 1.0), 2),
            "label": label,
        }
    )
    built = build_report(frame, by="segment", period="month")
    # The chart shows the whole log (40 lines would not read); the table is cut.
    spec = built.charts["trend"].to_dict()
    assert len(spec["datasets"][spec["data"]["name"]]) == 6
    assert built.tables["trend"].height == 240
    assert "First 25 of 240 rows." in built.html
    links = re.findall(r"href=\"data:text/csv;charset=utf-8,([^\"]+)\"", built.html)
    tables = [pl.read_csv(unquote(link).encode()) for link in links]
    # Segments (summary + "all", auc, confusion), then trend, drift and stability (the
    # scores are no probabilities: no calibration table), then KS and average precision.
    assert [t.height for t in tables] == [41, 40, 40, 240, 200, 240, 40, 40]
    assert tables[3]["auc"].to_list() == pytest.approx(
        built.tables["trend"]["auc"].to_list(), rel=1e-5
    )  # 6 significant digits
    assert tables[1]["auc"].to_list() == pytest.approx(
        built.tables["auc"]["auc"].to_list(), rel=1e-5
    )


def test_cli_period_and_challenger(tmp_path: Path, log: pl.DataFrame) -> None:
    path = tmp_path / "log.parquet"
    log.with_columns(pl.col("score").alias("other")).write_parquet(path)
    out = tmp_path / "r.html"
    argv = [
        str(path),
        "--by",
        "segment",
        "--period",
        "month",
        "--challenger",
        "other",
        "--out",
        str(out),
        "--quiet",
    ]
    assert run_cli(argv) == 0
    specs = spec_blocks(out.read_text(encoding="utf-8"))
    assert {"trend", "challenger"} <= set(specs)


def test_over_time_renders_in_a_real_browser(
    chromium: Browser, tmp_path: Path, over_time_report: _report.Report
) -> None:
    built = over_time_report
    page = tmp_path / "report.html"
    page.write_text(built.html, encoding="utf-8")
    dom, browser_log = chromium.render(page, tmp_path / "report.png")
    # roc, pr, confusion, pair, trend, challenger, calibration, psi, gains, decision.
    assert dom.count('data-rendered="yes"') == 10, re.findall(r'data-rendered="\w+"', dom)
    errors = re.search(r'<pre id="errors">(.*?)</pre>', dom, re.S)
    assert errors is not None and errors.group(1) == ""
    # Chromium's own pages (chrome://...) log to the console too; only the report's count.
    assert console_lines(browser_log, page) == []
    # The trend chart: one line per segment; the challenger's: one line.
    trend = dom.split('data-chart="spec-trend"')[1].split('data-chart="spec-challenger"')[0]
    # 3 segments x 2 months: a band and a line per segment, a point per (segment, month).
    assert len(re.findall(r'class="mark-area role-mark', trend)) == 3
    assert len(re.findall(r'class="mark-line role-mark', trend)) == 3
    assert trend.count('aria-roledescription="point"') == 6
    # The PSI chart: a line per segment, a point per (segment, month), two level rules.
    stability = dom.split('data-chart="spec-psi"')[1].split("</svg>")[0]
    assert len(re.findall(r'class="mark-line role-mark', stability)) == 3
    assert stability.count('aria-roledescription="point"') == 6
    assert len(re.findall(r'class="mark-rule role-mark', stability)) == 2


# --------------------------------------------------------------------------------------
# Many segments: forest plot, the k weakest and strongest curves, cut tables


def _segments_log(n_segments: int, rows: int, seed: int = 11) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    segment = np.repeat(np.arange(n_segments), rows)
    quality = rng.uniform(0.0, 2.0, n_segments)[segment]
    label = np.tile(np.arange(rows) % 5 == 0, n_segments)
    return pl.DataFrame(
        {
            "segment": [f"seg{i:04d}" for i in segment],
            "month": np.tile(np.arange(rows) % 6 + 1, n_segments),
            "score": np.round(rng.normal(quality * label, 1.0), 3),
            "label": label,
        }
    )


def test_many_segments_forest_and_weakest_strongest_curves() -> None:
    import polars_roc as pr

    frame = _segments_log(30, 200)
    built = build_report(frame, by="segment", top_k=3)
    auc = pr.roc_auc(frame, by="segment", ci="delong")
    overall = pr.roc_auc(frame)["auc"][0]
    # The forest plot: every segment, flagged when its interval lies below the whole log.
    forest = built.charts["forest"].to_dict()
    rows = {r["segment"]: r for r in forest["datasets"][forest["data"]["name"]]}
    assert len(rows) == 30
    expected = set(auc.filter(pl.col("ci_upper") < overall)["segment"])
    assert {s for s, r in rows.items() if r["flagged"]} == expected and expected
    assert forest["layer"][1]["encoding"]["y"]["sort"] == auc.sort("auc")["segment"].to_list()
    # The curves: the 3 weakest and the 3 strongest segments only.
    ordered = auc.sort("auc")["segment"].to_list()
    roc = built.charts["roc"].to_dict()
    drawn = {
        r["_panel"].split(" (")[0] for r in roc["datasets"][roc["data"]["name"]] if "_panel" in r
    }
    assert drawn == set(ordered[:3] + ordered[-3:])
    # Tables: the first 25 rows on the page, every segment in the downloads and in Python.
    assert built.tables["auc"].height == 30
    assert built.html.count("Download the full ") == 5  # and KS, average precision
    assert "<h2>Segments at a glance</h2>" in built.html
    fixed = build_report(frame, by="segment", threshold=0.5)  # one cut-off for all
    assert fixed.tables["confusion"]["threshold"].unique().to_list() == [0.5]
    with pytest.raises(ValueError, match="`top_k` must be a positive integer, got 0"):
        build_report(frame, by="segment", top_k=0)
    # Few segments: the report is as before (every curve, no forest plot); a bad top_k is
    # refused all the same (it passed unnoticed under 13 segments).
    few_rows = frame.filter(pl.col("segment") < "seg0005")
    with pytest.raises(ValueError, match="`top_k` must be a positive integer, got -1"):
        build_report(few_rows, by="segment", top_k=-1)
    few = build_report(few_rows, by="segment")
    assert "forest" not in few.charts and "Segments at a glance" not in few.html


def test_many_segments_draw_the_decision_curves_of_the_drawn_segments_only() -> None:
    # Probabilities: the decision curves (99 thresholds x 3 lines a panel) were drawn for
    # every segment, ~12 MB of chart data at 400 segments against the 3 MB promised.
    frame = _segments_log(30, 200).with_columns(score=1 / (1 + (-pl.col("score")).exp()))
    built = build_report(frame, by="segment", top_k=3)
    spec = built.charts["roc"].to_dict()
    roc = {r["_panel"].split(" (")[0] for r in spec["datasets"][spec["data"]["name"]]}
    spec = built.charts["decision"].to_dict()
    decision = {r["_panel"] for r in spec["datasets"][spec["data"]["name"]]}
    assert len(roc) == 6 and decision == roc
    spec = built.charts["gains"].to_dict()
    assert {r["_panel"] for r in spec["datasets"][spec["data"]["name"]]} == roc
    assert "t / (1 - t), of the segments drawn above." in built.html


def test_thousand_segment_report_stays_under_3_mb(tmp_path: Path) -> None:
    frame = _segments_log(1000, 300)
    path = tmp_path / "log.parquet"
    frame.write_parquet(path)
    out = tmp_path / "r.html"
    argv = [str(path), "--by", "segment", "--period", "month", "--out", str(out), "--quiet"]
    assert run_cli(argv) == 0
    size = out.stat().st_size
    assert size < 3_000_000, size
    page = out.read_text(encoding="utf-8")
    assert page.count("<tr>") < 250  # tables cut: 25 rows each, a header each


def test_build_report_is_public_and_loads_altair_only_when_used() -> None:
    # The public home of the report builder is polars_roc.report (the private module
    # stays importable); importing it does not load Altair, building a report does.
    import polars_roc.report as public

    assert public.__all__ == ["Report", "build_report"]
    assert public.build_report is build_report and public.Report is _report.Report
    script = (
        "import sys, polars as pl\n"
        "from polars_roc.report import build_report\n"
        "print('altair' in sys.modules)\n"
        "log = pl.DataFrame({'score': [0.9, 0.4, 0.3, 0.8], 'label': [1, 0, 1, 0]})\n"
        "made = build_report(log)\n"
        "print('altair' in sys.modules, made.tables['auc']['auc'].item())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["False", "True", "0.5"]


# --------------------------------------------------------------------------------------
# Hostile text (issue 24, items 7 and 8): segment values and column names that break out
# of a <script> element or a Vega expression must be drawn like any other text.

HOSTILE = (
    "<!--<script>",
    "</script><script>document.title='x'</script>",
    "a\u2028b",
    "c\u2029d",
    "q'\"\\",
    "a.b",
    "a[0]",
    "${x}",
    "&amp;",
    "datum.x",
    "é 漢 🙂",
    "a\nb",
    "]]>",
)
HOSTILE_COLUMNS = ("seg.x", "se\u2028g", "<!--<script>", "q'\"\\[0]")


def _hostile_log(n_segments: int, column: str, rows: int = 40) -> pl.DataFrame:
    values = [HOSTILE[i % len(HOSTILE)] + "#" * (i // len(HOSTILE)) for i in range(n_segments)]
    segment = np.repeat(values, rows)
    position = np.tile(np.arange(rows), n_segments)
    return pl.DataFrame(
        {
            column: segment.tolist(),
            HOSTILE_COLUMNS[1]: np.where(position % 2 == 0, HOSTILE[2], HOSTILE[0]).tolist(),
            "score": (position * 7 % rows) / rows,
            "label": position % 3 == 0,
        }
    )


@functools.cache
def _hostile_report(column: str) -> _report.Report:
    """Every hostile value as a segment of ``column`` (beside a second hostile column),
    which is also the period; a hostile challenger and grade. Built once per session."""
    frame = _hostile_log(len(HOSTILE), column)
    by = [column] if column == HOSTILE_COLUMNS[1] else [column, HOSTILE_COLUMNS[1]]
    return build_report(
        frame.with_columns(
            pl.col("score").alias("p\u2029"),
            pl.col(HOSTILE_COLUMNS[1]).alias("</script>grade"),
            period=column,
        ),
        by=by,
        period="period",
        challenger="p\u2029",
        grade="</script>grade",
    )


def test_json_in_the_page_is_escaped_for_the_script_element() -> None:
    built = _hostile_report(HOSTILE_COLUMNS[2])
    for name, text in re.findall(
        r'<script type="application/json" id="spec-(\w+)">(.*?)</script>', built.html, re.S
    ):
        assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}, name
        # Validated when built: the same dict without a second pass of the schema.
        assert json.loads(text) == built.charts[name].to_dict(validate=False)


def _assert_every_chart_drew(chromium: Browser, built: _report.Report, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(built.html, encoding="utf-8")
    dom, browser_log = chromium.render(page, tmp_path / "report.png")
    expected = len(re.findall(r'data-chart="spec-', built.html))
    assert dom.count('data-rendered="yes"') == expected, re.findall(r'data-rendered="\w+"', dom)
    errors = re.search(r'<pre id="errors">(.*?)</pre>', dom, re.S)
    assert errors is not None and errors.group(1) == ""
    assert console_lines(browser_log, page) == []


@pytest.mark.parametrize("column", HOSTILE_COLUMNS)
def test_hostile_segments_and_columns_render_in_a_real_browser(
    chromium: Browser, tmp_path: Path, column: str
) -> None:
    built = _hostile_report(column)
    charts = {"roc", "pr", "confusion", "trend", "challenger", "calibration", "psi"}
    assert charts <= set(built.charts)
    assert "Back-test per grade &#x27;&lt;/script&gt;grade&#x27;" in built.html
    _assert_every_chart_drew(chromium, built, tmp_path)


def test_hostile_segments_of_a_forest_plot_render_in_a_real_browser(
    chromium: Browser, tmp_path: Path
) -> None:
    built = build_report(_hostile_log(2 * len(HOSTILE), HOSTILE_COLUMNS[0]), by=HOSTILE_COLUMNS[0])
    assert "forest" in built.charts
    _assert_every_chart_drew(chromium, built, tmp_path)


# --------------------------------------------------------------------------------------
# The report of many segments read by a person (issue 27 items 4-7); the command line
# through its real entry point, polars_roc.cli.main


def _table_rows(page: str, heading: str) -> list[list[str]]:
    """The cells of the first table after ``heading`` in the page."""
    table = page.split(heading, 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.S)
    return [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)] for r in rows]


@pytest.fixture(scope="module")
def segments_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, str]:
    """``report log --by segment --by month``: 16 segments x 6 months, 96 groups."""
    frame = _segments_log(16, 600)
    folder = tmp_path_factory.mktemp("segments")
    frame.write_parquet(folder / "log.parquet")
    out = folder / "r.html"
    argv = [str(folder / "log.parquet"), "--by", "segment", "--by", "month", "--out", str(out)]
    assert main(["report", *argv, "--quiet"]) == 0
    return frame, out.read_text(encoding="utf-8")


def test_many_segments_forest_is_labelled_and_lists_the_weakest(
    segments_page: tuple[pl.DataFrame, str],
) -> None:
    import polars_roc as pr

    frame, page = segments_page
    auc = pr.roc_auc(frame, by=["segment", "month"], ci="delong").with_columns(
        name=pl.format("{} / {}", "segment", "month")
    )
    by_auc = auc.sort("auc")["name"].to_list()
    # Past 60 segments the forest plot labels the 5 weakest and 5 strongest by name.
    forest = spec_blocks(page)["forest"]
    axis = forest["layer"][1]["encoding"]["y"]["axis"]
    assert sorted(axis["values"]) == sorted(by_auc[:5] + by_auc[-5:])
    assert "labels" not in axis
    # The table of the weakest: the 5 lowest by AUC and the 5 lowest by lower bound.
    weakest = {f"{r[0]} / {r[1]}" for r in _table_rows(page, "<h3>Weakest segments</h3>")}
    assert weakest == set(by_auc[:5]) | set(auc.sort("ci_lower")["name"].to_list()[:5])
    # Up to 60 segments every one is labelled.
    few = build_report(frame.filter(pl.col("segment") < "seg0008"), by=["segment", "month"])
    y = few.charts["forest"].to_dict()["layer"][1]["encoding"]["y"]
    assert "values" not in y["axis"] and "labels" not in y["axis"]


def test_many_segments_auc_table_is_weakest_first_with_all_rows_downloadable(
    segments_page: tuple[pl.DataFrame, str],
) -> None:
    from urllib.parse import unquote

    import polars_roc as pr

    frame, page = segments_page
    auc = pr.roc_auc(frame, by=["segment", "month"]).sort("auc")
    shown = _table_rows(page, "<h2>Discrimination per segment</h2>")
    assert len(shown) == 25
    assert "weakest first: the 25 weakest of 96 segments (all in the CSV download" in page
    assert [(r[0], int(r[1])) for r in shown] == auc.select("segment", "month").rows()[:25]
    link = re.search(r'download="auc.csv" href="data:text/csv;charset=utf-8,([^"]+)"', page)
    assert link is not None
    every = pl.read_csv(unquote(link.group(1)).encode())
    assert every.select("segment", "month").rows() == auc.select("segment", "month").rows()


def test_legends_and_panels_follow_the_segments_order_not_the_rows() -> None:
    # The first segment lacks two months: the curves come 03, 05, 10, 12 (seg0000), then
    # 01, 09 (seg0001 only), and a legend in the curves' order would list them so.
    months = ["2025-03", "2025-05", "2025-10", "2025-09", "2025-01"]
    frame = (
        _segments_log(2, 500)
        .with_columns(pl.col("month").replace_strict(range(1, 7), [*months, "2025-12"]))
        .filter((pl.col("segment") == "seg0001") | ~pl.col("month").is_in(months[3:]))
    )
    built = build_report(frame, by=["segment", "month"])
    roc = built.charts["roc"].to_dict()
    colors = [
        layer["encoding"]["color"]["sort"]
        for chart in (roc, built.charts["pr"].to_dict())
        for layer in chart["spec"]["layer"]
        if "color" in layer.get("encoding", {})
    ]
    assert colors and all(order == sorted(frame["month"].unique()) for order in colors)
    by_month = build_report(frame, by="month").charts["roc"].to_dict()
    assert [p.split(" (")[0] for p in by_month["facet"]["sort"]] == sorted([*months, "2025-12"])
    # A wrapped facet gives every panel its own x axis: no axis under an empty cell.
    for name in ("roc", "pr", "confusion"):
        assert built.charts[name].to_dict()["resolve"]["axis"]["x"] == "independent"


def test_p_values_below_1e_4_and_drift_ties_ordered_by_raw_p() -> None:
    frame = _segments_log(4, 3000, seed=5).with_columns(
        # Month 6 of seg0000 loses its signal: a drift with p far below 1e-4.
        score=pl.when((pl.col("segment") == "seg0000") & (pl.col("month") == 6))
        .then(-pl.col("score"))
        .otherwise(pl.col("score"))
    )
    built = build_report(frame, by="segment", period="month")
    drift = built.tables["drift"]
    assert drift["p_value"].min() < 1e-4
    rows = _table_rows(built.html, "<h3>Drift against the first period</h3>")
    p_column = drift.select(["segment", "month", "baseline", "auc", "auc_baseline", "diff"]).width
    assert rows[0][p_column] == "< 1e-4" and "0.0000" not in {r[p_column] for r in rows}
    # Most significant first: by adjusted p, then raw p where the adjusted ones tie at 1.
    tied = drift.filter(pl.col("p_adjusted") == 1)
    assert tied.height > 1 and tied["p_value"].is_sorted()
    assert drift.select("p_adjusted", "p_value").rows() == sorted(
        drift.select("p_adjusted", "p_value").rows()
    )


def test_challenger_per_segment_paired_delong_and_overlaid_curves(
    log: pl.DataFrame, paired_log: pl.DataFrame, challenger_report: _report.Report
) -> None:
    from polars.testing import assert_frame_equal

    import polars_roc as pr

    built = challenger_report
    expected = pr.compare(paired_log, ["score", "other"], by="segment")
    got = built.tables["pair"]
    assert_frame_equal(
        got.drop("p_adjusted").sort("segment"), expected.sort("segment"), check_exact=False
    )
    assert got["p_adjusted"].to_list() == pytest.approx(
        np.minimum(1, np.maximum.accumulate(np.sort(got["p_value"]) * np.arange(3, 0, -1)))
    )
    # One panel per segment, the two scores overlaid as colors.
    spec = built.charts["pair"].to_dict()
    rows = spec["datasets"][spec["data"]["name"]]
    assert {r["_panel"].split(" (")[0] for r in rows if "_panel" in r} == set(log["segment"])
    assert {r["_curve"].split(" (")[0] for r in rows if "_curve" in r} == {"score", "other"}
    assert "Paired DeLong test per segment" in built.html
    weighted = build_report(paired_log, by="segment", weight="weight", challenger="other")
    assert "pair" not in weighted.tables and "pair" in weighted.charts


def test_cli_threshold_defaults_to_each_segments_youden_threshold(tmp_path: Path) -> None:
    import polars_roc as pr

    # A 5% default log: at 0.5 most segments flag nobody.
    rng = np.random.default_rng(4)
    n = 8000
    label = rng.random(n) < 0.05
    frame = pl.DataFrame(
        {
            "segment": rng.choice(["a", "b", "c"], n),
            "score": np.clip(rng.normal(0.05 + 0.15 * label, 0.08), 0, 1),
            "label": label,
        }
    )
    path = tmp_path / "log.parquet"
    frame.write_parquet(path)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "--by", "segment", "--out", str(out), "--quiet"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<h2>Confusion at each segment&#x27;s Youden threshold</h2>" in page
    assert "polars_roc.best_threshold" in page
    expected = pr.confusion_matrix(frame, pr.best_threshold(frame, by="segment"), by="segment")
    rows = _table_rows(page, "<h2>Confusion at")
    assert [(r[0], float(r[1]), int(r[2])) for r in rows] == [
        (s, pytest.approx(t, abs=5e-5), tp)
        for s, t, tp in expected.sort("segment").select("segment", "threshold", "tp").rows()
    ]
    assert "predict no row positive" not in page
    # A fixed threshold is said as such, with a hint where it flags nobody.
    assert (
        main(
            [
                "report",
                str(path),
                "--by",
                "segment",
                "--threshold",
                "0.5",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    fixed = out.read_text(encoding="utf-8")
    assert "<h2>Confusion at threshold 0.5</h2>" in fixed
    assert "3 segment(s) predict no row positive at this threshold (tp = fp = 0)" in fixed


# --------------------------------------------------------------------------------------
# Validation (issue 25 item 7): calibration per segment, the grade back-test (--grade),
# stability over periods (--period)


def _graded(log: pl.DataFrame) -> pl.DataFrame:
    """``log`` with a rating grade, "A" (lowest scores) to "E"."""
    band = (pl.col("score") * 4.999).cast(pl.Int64)
    return log.with_columns(
        grade=band.replace_strict(dict(enumerate("ABCDE")), return_dtype=pl.String)
    )


def test_calibration_section_matches_the_views(log: pl.DataFrame, report: _report.Report) -> None:
    from polars.testing import assert_frame_equal

    import polars_roc as pr

    table = report.tables["calibration"]
    tested = pr.calibration_test(log, by="segment").sort("segment")
    expected = (
        pr.brier_decomposition(log, by="segment")
        .select("segment", "n", "brier")
        .join(pr.calibration_error(log, by="segment").select("segment", "ece", "mce"), on="segment")
        .join(
            tested.select("segment", hl_statistic="statistic", hl_df="df", p_value="p_value"),
            on="segment",
        )
    )
    assert_frame_equal(table.drop("mean_score", "observed_rate"), expected, check_row_order=False)
    # Least calibrated first: by Hosmer-Lemeshow's p-value.
    assert table["p_value"].is_sorted()
    # Calibration in the large: the segment's mean score and share of positives.
    means = log.group_by("segment").agg(pl.col("score").mean(), pl.col("label").mean())
    joined = table.join(means, on="segment")
    assert joined["mean_score"].to_list() == pytest.approx(joined["score"].to_list())
    assert joined["observed_rate"].to_list() == pytest.approx(joined["label"].to_list())
    # The chart is the reliability diagram of the same bins, with Wilson intervals.
    spec = report.charts["calibration"].to_dict()
    curve = pr.calibration_curve(log, by="segment", ci="wilson")
    assert len(spec["datasets"][spec["data"]["name"]]) == curve.height
    assert "<h2>Calibration per segment</h2>" in report.html
    assert "Hosmer and Lemeshow" in report.html


def test_calibration_of_a_weighted_log_has_no_test_and_scores_out_of_range_none(
    log: pl.DataFrame,
) -> None:
    weighted = build_report(log, by="segment", weight="weight")
    assert "p_value" not in weighted.tables["calibration"].columns
    assert weighted.tables["calibration"]["ece"].is_sorted(descending=True)
    assert "no test, it counts rows and the log is weighted" in weighted.html
    logits = _graded(log).with_columns(pl.col("score") * 6 - 3)
    built = build_report(logits, by="segment", grade="grade")
    assert "calibration" not in built.charts and "calibration" not in built.tables
    assert "grades" not in built.tables
    assert (
        "No calibration section: the scores &#x27;score&#x27; run from -3 to 3, not "
        "probabilities in [0, 1]" in built.html
    )
    assert "No grade back-test: the scores" in built.html
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="grade column 'grd'"):
        build_report(log, grade="grd")


def test_grade_back_test_section(log: pl.DataFrame) -> None:
    from polars.testing import assert_frame_equal

    import polars_roc as pr

    graded = _graded(log)
    built = build_report(graded, by="segment", grade="grade")
    assert_frame_equal(built.tables["grades"], pr.grade_test(graded, "grade", by="segment"))
    assert "<h2>Back-test per grade &#x27;grade&#x27;</h2>" in built.html
    # A grade whose PD is far too low: its p-value reads "< 1e-4", as everywhere.
    low = graded.with_columns(
        pl.when(pl.col("grade") == "E").then(0.01).otherwise(pl.col("score")).alias("score")
    )
    page = build_report(low, grade="grade").html
    rows = re.findall(r"<tr><td class='nowrap'>E</td>(.*?)</tr>", page)
    assert rows and "&lt; 1e-4" in rows[0] and rows[0].endswith(">True</td>")


def test_stability_section_matches_psi(log: pl.DataFrame) -> None:
    from polars.testing import assert_frame_equal

    import polars_roc as pr

    built = build_report(log, by="segment", period="month")
    expected = pr.psi(log, "month", by="segment").drop("column")
    assert_frame_equal(built.tables["psi"], expected)
    spec = built.charts["psi"].to_dict()
    assert len(spec["datasets"][spec["data"]["name"]]) == expected.height
    assert "<h2>Stability over periods</h2>" in built.html


def test_validation_of_many_segments_puts_the_weakest_first() -> None:
    frame = _segments_log(30, 120).with_columns(
        score=1 / (1 + (-pl.col("score")).exp()),
        grade=pl.col("month").cast(pl.String),
    )
    built = build_report(frame, by="segment", grade="grade", period="month", top_k=3)
    calibration = built.tables["calibration"]
    assert calibration.height == 30 and calibration["p_value"].is_sorted()
    spec = built.charts["calibration"].to_dict()
    drawn = {r["_panel"] for r in spec["datasets"][spec["data"]["name"]]}
    assert drawn == set(calibration["segment"].head(6))
    assert built.tables["grades"]["p_value"].is_sorted()
    assert built.tables["psi"]["psi"].is_sorted(descending=True, nulls_last=True)
    # 30 segments: the PSI chart shows the whole log, one point per month.
    psi = built.charts["psi"].to_dict()
    assert len(psi["datasets"][psi["data"]["name"]]) == 6
    assert "First 25 of 30 rows." in built.html


def test_cli_grade_period_and_calibration(tmp_path: Path, log: pl.DataFrame) -> None:
    path = tmp_path / "log.parquet"
    _graded(log).write_parquet(path)
    out = tmp_path / "r.html"
    argv = ["report", str(path), "--by", "segment", "--period", "month", "--grade", "grade"]
    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    page = out.read_text(encoding="utf-8")
    assert {"calibration", "psi"} <= set(spec_blocks(page))
    for heading in ("Calibration per segment", "Back-test per grade", "Stability over periods"):
        assert f"<h2>{heading}" in page
