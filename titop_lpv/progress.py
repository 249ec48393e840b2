"""A minimal text progress bar, shared by every long computation (sweeps, Monte-Carlo, simulation).

It depends on nothing else in the package, so that the robustness layer (which works on
python-control systems alone) does not import the multibody core to show progress.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

__all__ = ["Progress", "n_chunks", "reporter"]


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
    ``done >= total``. On a terminal or in a Jupyter notebook the bar is redrawn in place
    (carriage return); on any other stream (a log file, CI output) it writes a line at each
    tenth of the work and at the end, so that a log does not collect every redraw.
    """

    def __init__(self, total: int, label: str = "", stream: Any = None, width: int = 30):
        self.total, self.label, self.width = total, label, width
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.done = 0
        self.inplace = _redraws(self.stream)
        self._last_tenth = -1

    def __call__(self, done: int, total: int | None = None) -> None:
        """Show the progress after ``done`` work items.

        Parameters
        ----------
        done : int
            Number of work items finished.
        total : int, optional
            Number of work items (default: the ``total`` given to the constructor).
        """
        self.done = done
        total = total or self.total
        frac = done / total if total else 1.0
        bar = "#" * round(frac * self.width)
        elapsed = time.perf_counter() - self.start
        text = f"{self.label} {done}/{total} [{bar:<{self.width}}] {elapsed:.1f} s"
        if self.inplace:
            self.stream.write(f"\r{text}" + ("\n" if done >= total else ""))
        else:
            tenth = int(10 * frac)
            if tenth == self._last_tenth and done < total:
                return
            self._last_tenth = tenth
            self.stream.write(text + "\n")
        self.stream.flush()


def _redraws(stream: Any) -> bool:
    """Whether ``stream`` shows a carriage return as a redraw (terminal or notebook)."""
    if type(stream).__module__.startswith("ipykernel"):
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def reporter(progress: bool | Callable[[int, int], None], total: int,
             label: str) -> Callable[[int, int], None] | None:
    """The ``progress`` argument of the long computations, read one way everywhere.

    Parameters
    ----------
    progress : bool or callable
        ``True``: a :class:`Progress` bar on stderr; a callable ``f(done, total)``: itself;
        ``False``: None (silent).
    total : int
        Number of work items (for the bar).
    label : str
        Printed before the bar.

    Returns
    -------
    callable or None
        ``f(done, total)`` to call as the work advances, or None for no report.
    """
    if progress is True:
        return Progress(total, label)
    return progress if callable(progress) else None


def n_chunks(executor: Any, n_items: int, chunks: int | None) -> int:
    """How many chunks to cut ``n_items`` into for ``executor``.

    ``chunks`` when given, else 4 per worker when the executor says how many it has (a
    ``concurrent.futures`` pool's ``_max_workers``), else 8; at least 1, at most ``n_items``.

    Parameters
    ----------
    executor : concurrent.futures.Executor or None
        The executor the chunks go to (only its ``_max_workers``, if any, is read).
    n_items : int
        Number of work items.
    chunks : int or None
        The number of chunks asked for (None or 0: choose).

    Returns
    -------
    int

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(max_workers=2) as pool:
    ...     print(n_chunks(pool, 100, None), n_chunks(pool, 5, None), n_chunks(pool, 100, 3))
    8 5 3
    """
    workers = getattr(executor, "_max_workers", None)
    return max(1, min(n_items, chunks or (4 * workers if workers else 8)))
