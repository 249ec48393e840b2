"""A guard that turns a hang into a test failure (SIGALRM; the main thread, POSIX).

Only a guard: the limits are far above what any guarded call takes, so it never times
anything; speed is the benchmarks' business.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def hang_guard(seconds: int = 60) -> Iterator[None]:
    """Fail with an AssertionError when the block runs longer than ``seconds``."""
    def alarm(signum, frame):
        raise AssertionError(f"no answer after {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
