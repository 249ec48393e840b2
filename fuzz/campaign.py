"""What the call-by-call fuzz campaigns share: the per-call time limit, the classification of
each call's outcome and the outcome table (``runtime.py`` and ``wave2.py``)."""

from __future__ import annotations

import argparse
import signal
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from titop_lpv.exceptions import TitopError

OUTCOMES = ("typed", "foreign", "returned", "non-finite", "hung")


class Hang(BaseException):
    """The per-call alarm fired (a BaseException: library code cannot swallow it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


def arguments(doc: str, argv: list[str] | None, timeout: float) -> argparse.Namespace:
    """The options every campaign takes: ``--calls``, ``--seed`` and ``--timeout`` [s].

    Parameters
    ----------
    doc : str
        The campaign's module docstring (its first line describes the command).
    argv : list of str or None
        The command line (None: ``sys.argv``).
    timeout : float
        Default per-call time limit [s].

    Returns
    -------
    argparse.Namespace
    """
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--calls", type=int, default=600)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--timeout", type=float, default=timeout)
    return ap.parse_args(argv)


def site(err: BaseException, message: bool = False) -> str:
    """The innermost frame inside titop_lpv (or the last frame) of an exception.

    Parameters
    ----------
    err : BaseException
        The exception.
    message : bool
        Append the first 80 characters of its message.

    Returns
    -------
    str
        ``"<type> at <file>:<line>"`` (``": <message>"``).
    """
    frames = traceback.extract_tb(err.__traceback__)
    ours = [f for f in frames if "titop_lpv" in f.filename]
    if not (ours or frames):
        return f"{type(err).__name__} at ?"
    f = (ours or frames)[-1]
    text = f"{type(err).__name__} at {Path(f.filename).name}:{f.lineno}"
    return f"{text}: {str(err)[:80]}" if message else text


def run(calls: int, next_call: Callable[[], tuple[str, Callable[[], Any]]], timeout: float,
        non_finite: Callable[[Any], bool], site: Callable[[BaseException], str], *,
        list_hangs: bool = False) -> tuple[Counter, dict[str, Counter], Counter]:
    """Make ``calls`` calls, each under a ``timeout`` [s] alarm, and classify their outcomes.

    Parameters
    ----------
    calls : int
        Number of calls.
    next_call : callable
        Returns ``(name, thunk)``: the section the call counts under, and the call itself.
    timeout : float
        Per-call time limit [s]; past it the call counts as ``"hung"``.
    non_finite : callable
        True for a returned result that holds NaN, inf or non-numeric entries.
    site : callable
        Where a foreign exception came from (the key of the ``foreign`` counter).
    list_hangs : bool
        Also count each hang under ``"<name>: hung"`` in ``foreign``.

    Returns
    -------
    counts, per, foreign : Counter, dict of Counter, Counter
        Outcomes in all, per section, and the foreign error sites (``"<name>: <site>"``).
    """
    signal.signal(signal.SIGALRM, _alarm)
    counts: Counter[str] = Counter()
    per: dict[str, Counter[str]] = {}
    foreign: Counter[str] = Counter()
    for _ in range(calls):
        name, thunk = next_call()
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            result = thunk()
            outcome = "non-finite" if non_finite(result) else "returned"
        except Hang:
            outcome = "hung"
            if list_hangs:
                foreign[f"{name}: hung"] += 1
        except TitopError:
            outcome = "typed"
        except Exception as err:  # the campaign counts every foreign error
            outcome = "foreign"
            foreign[f"{name}: {site(err)}"] += 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        counts[outcome] += 1
        per.setdefault(name, Counter())[outcome] += 1
    return counts, per, foreign


def print_table(label: str, counts: Counter, per: dict[str, Counter], foreign: Counter,
                foreign_title: str = "distinct foreign sites") -> None:
    """Print the outcome table: one row per section, then the total and the foreign sites.

    Parameters
    ----------
    label : str
        Heading of the first column (``"function"``, ``"section"``).
    counts, per, foreign : Counter, dict of Counter, Counter
        What :func:`run` returned.
    foreign_title : str
        Heading of the list of foreign sites.
    """
    width = max([len(label), len("total"), *map(len, per)])
    print(f"{label:<{width}} {'calls':>6} " + " ".join(f"{c:>10}" for c in OUTCOMES))
    for name in sorted(per):
        c = per[name]
        print(f"{name:<{width}} {sum(c.values()):>6} " + " ".join(f"{c[k]:>10}"
                                                                 for k in OUTCOMES))
    print(f"{'total':<{width}} {sum(counts.values()):>6} " + " ".join(f"{counts[k]:>10}"
                                                                     for k in OUTCOMES))
    print(f"\n{foreign_title}: {len(foreign)}")
    for s, n in foreign.most_common():
        print(f"  {n:4d}  {s}")
