"""Progress of a command on stderr: a live status line on a terminal, plain lines
when asked, nothing otherwise."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Progress:
    """Stage messages on stderr: a live line on a terminal, nothing when not asked.

    On a terminal (the default there) a stage shows as one status line with its elapsed
    time, rewritten in place and cleared when the stage ends. When stderr is not a
    terminal the command is silent unless ``--progress`` forces plain lines (no ``\\r``),
    which suits log files.
    """

    def __init__(self, enabled: bool | None = None, *, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = self.terminal if enabled is None else enabled

    @contextmanager
    def stage(self, message: str, *, ticking: bool = True) -> Iterator[None]:
        """Show ``message`` while the block runs (Polars releases the GIL meanwhile);
        ``ticking=False`` leaves the line to a counter that the block prints itself."""
        if not self.enabled:
            yield
            return
        if not self.terminal:
            print(f"polars-roc: {message}", file=self.stream, flush=True)
            yield
            return
        if not ticking:
            # The block's own counter (the bootstrap's) updates the line below this one.
            print(f"\r\033[K{message}", file=self.stream, flush=True)
            yield
            return
        started, done = time.perf_counter(), threading.Event()

        def tick() -> None:
            while not done.wait(0.25):
                seconds = time.perf_counter() - started
                self.stream.write(f"\r\033[K{message} ... {seconds:.1f}s")
                self.stream.flush()

        ticker = threading.Thread(target=tick, daemon=True)
        self.stream.write(f"\r\033[K{message} ...")
        self.stream.flush()
        ticker.start()
        try:
            yield
        finally:
            done.set()
            ticker.join()
            self.stream.write("\r\033[K")
            self.stream.flush()

    @property
    def library(self) -> bool:
        """Whether the library's own bootstrap counter may print (it updates one line
        with ``\\r`` on a terminal and prints plain lines otherwise)."""
        return self.enabled
