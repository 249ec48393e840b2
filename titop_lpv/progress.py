"""Progress reporting of every long computation (sweeps, Monte-Carlo, simulation), by ``tqdm``.

The ``progress`` argument of those computations is read one way everywhere
(:func:`reporter`): ``True`` shows a bar on stderr, a callable ``f(done, total)`` is called
as the work advances, ``False`` is silent. The bar is `tqdm <https://tqdm.github.io>`_'s:
redrawn in place on a terminal, a widget in a Jupyter notebook (``tqdm.auto``), and on any
other stream (a log file, CI output) a few plain lines (at most :data:`LOG_LINES` plus the
end; none before the first item is done, so that work failing at once leaves only its
error), so that a log does not collect every redraw.

It depends on nothing else in the package, so that the robustness layer (which works on
python-control systems alone) does not import the multibody core to show progress.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from collections.abc import Callable
from typing import Any

from tqdm import std as tqdm_std

__all__ = ["LOG_LINES", "Progress", "n_chunks", "reporter"]

LOG_LINES = 6
"""Progress lines written to a stream that is not a terminal (a log), besides the end."""


_COUNT = re.compile(r"\b\d+/\d+\b")
_START = re.compile(r"\b0/\d+\b")  # the bar before any work: not worth a log line


class _LogLines:
    """A text stream for tqdm that turns each redraw (``"\\r" + text``) into one line.

    tqdm redraws a bar by writing a carriage return and the new text; in a log file those
    pile up on one physical line. Here each non-empty redraw becomes a line of its own,
    trailing padding removed, and a redraw of the same count as the previous line (``n/total``:
    tqdm draws the final state again when the bar closes) is dropped.

    Parameters
    ----------
    stream : file-like
        The log stream (anything with ``write`` and ``flush``).
    """

    def __init__(self, stream: Any):
        self.stream = stream
        self.last = ""  # the count (n/total) of the last line written

    def write(self, text: str) -> int:
        """Write each redraw of ``text`` as a line.

        Parameters
        ----------
        text : str
            What tqdm writes: carriage-return-separated redraws, or a newline.

        Returns
        -------
        int
            ``len(text)``, as a text stream returns.
        """
        for part in text.replace("\n", "\r").split("\r"):
            line = part.rstrip()
            count = _COUNT.search(line)
            key = count.group(0) if count else line
            if line and key != self.last and not _START.search(line):
                self.stream.write(line + "\n")
                self.last = key
        return len(text)

    def flush(self) -> None:
        """Flush the underlying stream."""
        flush = getattr(self.stream, "flush", None)
        if callable(flush):
            flush()


class Progress:
    """A progress bar on ``stderr`` (or ``stream``), drawn by tqdm.

    Parameters
    ----------
    total : int
        Number of work items.
    label : str
        Printed before the bar.
    stream : file-like, optional
        Where to write (default ``sys.stderr``; in a Jupyter notebook, tqdm's widget).
    width : int, optional
        Width of the whole line in characters (default: the terminal's width on a
        terminal, 80 in a log).

    Notes
    -----
    Call it as ``progress(done)`` or ``progress(done, total)``; the bar is closed (its line
    ended) when ``done >= total``. On a terminal the bar is redrawn in place; in a notebook
    it is tqdm's widget (``tqdm.auto``); on any other stream it writes the first step, then
    a line about every ``1/LOG_LINES`` of the work, then the end (:class:`_LogLines`).
    """

    def __init__(self, total: int, label: str = "", stream: Any = None,
                 width: int | None = None):
        self.total, self.label = int(total), label
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.inplace = _redraws(self.stream)
        if self.inplace and stream is None and _widgets(self.stream):
            from tqdm import auto as tqdm_auto  # the notebook widget (needs ipywidgets)

            self.bar = tqdm_auto.tqdm(total=self.total, desc=label, leave=True)
        elif self.inplace:
            self.bar = tqdm_std.tqdm(total=self.total, desc=label, file=self.stream,
                                     leave=True, ncols=width, dynamic_ncols=width is None,
                                     mininterval=0.1)
        else:
            self.bar = tqdm_std.tqdm(
                total=self.total, desc=label, file=_LogLines(self.stream), leave=True,
                ncols=width or 80, ascii=True, mininterval=0.0,
                miniters=max(1, math.ceil(self.total / LOG_LINES)),
                maxinterval=math.inf)  # no time-forced redraw: the line count stays bounded

    def __call__(self, done: int, total: int | None = None) -> None:
        """Show the progress after ``done`` work items.

        Parameters
        ----------
        done : int
            Number of work items finished.
        total : int, optional
            Number of work items (default: the ``total`` given to the constructor).
        """
        if self.bar.disable:  # closed already
            return
        if total is not None and int(total) != self.total:
            self.total = int(total)
            self.bar.total = self.total
        step = int(done) - self.bar.n
        self.done = int(done)
        if step > 0:
            self.bar.update(step)
        if self.done >= self.total:
            self.bar.close()

    def close(self) -> None:
        """End the bar (its line) before the work is done, e.g. when the work failed."""
        self.bar.close()


def _in_notebook(stream: Any) -> bool:
    """Whether ``stream`` is a Jupyter kernel's stream (tqdm then draws a widget)."""
    return type(stream).__module__.startswith("ipykernel")


def _widgets(stream: Any) -> bool:
    """Whether tqdm can draw its notebook widget: a Jupyter stream and ipywidgets installed
    (without it ``tqdm.auto`` warns and falls back to text, which the text bar does anyway)."""
    return _in_notebook(stream) and importlib.util.find_spec("ipywidgets") is not None


def _redraws(stream: Any) -> bool:
    """Whether ``stream`` shows a carriage return as a redraw (terminal or notebook)."""
    if _in_notebook(stream):
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

    Examples
    --------
    >>> calls = []
    >>> report = reporter(lambda done, total: calls.append((done, total)), 3, "x")
    >>> for k in (1, 2, 3):
    ...     report(k, 3)
    >>> calls, reporter(False, 3, "x")
    ([(1, 3), (2, 3), (3, 3)], None)
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
