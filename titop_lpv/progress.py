"""A minimal text progress bar, shared by every long computation (sweeps, Monte-Carlo, simulation).

It depends on nothing else in the package, so that the robustness layer (which works on
python-control systems alone) does not import the multibody core to show progress.
"""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["Progress"]


class Progress:
    """A minimal text progress bar on ``stderr`` (works in terminals and notebooks).

    Parameters
    ----------
    total : int
        Number of work items.
    label : str
        Printed before the bar.
    stream : file-like, optional
        Where to write (default ``sys.stderr``).
    width : int
        Bar width in characters.

    Notes
    -----
    Call it as ``progress(done)`` or ``progress(done, total)``; the line ends when
    ``done >= total``.
    """

    def __init__(self, total: int, label: str = "", stream: Any = None, width: int = 30):
        self.total, self.label, self.width = total, label, width
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.done = 0

    def __call__(self, done: int, total: int | None = None) -> None:
        self.done = done
        total = total or self.total
        frac = done / total if total else 1.0
        bar = "#" * round(frac * self.width)
        elapsed = time.perf_counter() - self.start
        end = "\n" if done >= total else ""
        self.stream.write(f"\r{self.label} {done}/{total} [{bar:<{self.width}}] "
                          f"{elapsed:.1f} s{end}")
        self.stream.flush()
