"""Command-line values and output paths of ``titop-lpv``: parsed and checked before any work.

``--param``/``--fix``/``--guess`` pairs, ``LO:HI:N`` grids, ``--spin BODY:AX,AY,AZ:RATE``
(``RATE`` a number or a parameter name), and the output files' type and directory: each
malformed value raises :class:`CLIError` with a message naming the option, which the
command line prints as its one error line.
:class:`Parser` gives argparse's own errors (unknown option, missing argument) the same
contract, and :func:`one_line` folds any error message onto one line.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..exceptions import TitopError
from ..multibody.param_checks import MAX_MAGNITUDE  # as in model files: larger ones overflow

__all__ = [
    "MAX_MAGNITUDE",
    "MAX_POINTS",
    "CLIError",
    "Parser",
    "UsageError",
    "check_out",
    "figure_suffixes",
    "names",
    "number",
    "one_line",
    "pairs",
    "positive",
    "spin",
    "triple",
    "values",
]

MAX_POINTS = 10_000  # points of one grid axis (LO:HI:N), frequencies of --omega


class CLIError(TitopError, ValueError):
    """Malformed command-line value (``--param``, ``--spin``, a grid, a file suffix)."""


def names(text: str | None) -> list[str] | None:
    """``"a,b"`` -> ``["a", "b"]`` (None stays None).

    Parameters
    ----------
    text : str or None
        Comma-separated names, as given on the command line; blanks around names and empty
        names are dropped.

    Returns
    -------
    list of str or None

    Examples
    --------
    >>> names("slider.tau, pendulum2.q")
    ['slider.tau', 'pendulum2.q']
    >>> names(None) is None
    True
    """
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]


def number(text: str, where: str) -> float:
    """A command-line number.

    Parameters
    ----------
    text : str
        The text to read (anything ``float`` accepts).
    where : str
        The option (and name) it came from, for the message.

    Returns
    -------
    float
        A finite number of magnitude at most :data:`MAX_MAGNITUDE`.

    Raises
    ------
    CLIError
        ``text`` is not a number, is NaN or infinite, or its magnitude is above
        :data:`MAX_MAGNITUDE`.

    Examples
    --------
    >>> number("2.5", "--param k")
    2.5
    >>> try:
    ...     number("nan", "--x0 slider.q")
    ... except CLIError as err:
    ...     print(err)
    --x0 slider.q: expected a finite number, got 'nan'
    """
    try:
        value = float(text)
    except ValueError:
        hint = " (a grid LO:HI:N is for the sweep command)" if ":" in text else ""
        raise CLIError(f"{where}: expected a number, got {text!r}{hint}") from None
    if not math.isfinite(value):
        raise CLIError(f"{where}: expected a finite number, got {text!r}")
    if abs(value) > MAX_MAGNITUDE:
        raise CLIError(f"{where}: {text!r} is too large (magnitude above {MAX_MAGNITUDE:g})")
    return value


def positive(text: str) -> int:
    """argparse type of ``--workers``: an integer from 1 to 64.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    int

    Raises
    ------
    argparse.ArgumentTypeError
        Not an integer in ``[1, 64]``.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError(f"expected 1 to 64 worker processes, got {value}")
    return value


def pairs(items: list[str], option: str) -> dict[str, str]:
    """``["a=1", "b=2,c=3"]`` -> ``{"a": "1", "b": "2", "c": "3"}`` (values still text).

    Parameters
    ----------
    items : list of str
        The values of a repeated option, each ``NAME=VALUE`` or several of them joined by
        commas; a later name overrides an earlier one.
    option : str
        The option (``--param``, ``--fix``, ``--guess``), for the message.

    Returns
    -------
    dict of str to str

    Raises
    ------
    CLIError
        An item is not ``NAME=VALUE``.

    Examples
    --------
    >>> pairs(["k=80", "m=2,c=0.5"], "--param")
    {'k': '80', 'm': '2', 'c': '0.5'}
    """
    return dict(_pairs(items, option))


def _pairs(items: list[str], option: str) -> list[tuple[str, str]]:
    """Every ``(NAME, VALUE)`` of :func:`pairs`, in the order given (repeats kept)."""
    out = []
    for part in (p for item in items for p in item.split(",")):
        name, eq, value = part.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise CLIError(f"{option} {part!r}: expected NAME=VALUE")
        out.append((name.strip(), value.strip()))
    return out


def values(items: list[str], option: str) -> dict[str, float]:
    """:func:`pairs` with every value read as a number.

    Parameters
    ----------
    items : list of str
        The values of a repeated option, ``NAME=VALUE`` (several joined by commas).
    option : str
        The option, for the message.

    Returns
    -------
    dict of str to float

    Raises
    ------
    CLIError
        An item is not ``NAME=VALUE`` or a value is not a finite number (also one that a
        later value of the same name overrides).
    """
    return {k: number(v, f"{option} {k}") for k, v in _pairs(items, option)}


def triple(text: str, option: str, example: str) -> tuple[float, float, int]:
    """``"LO:HI:N"`` -> ``(lo, hi, n)`` with ``n`` a positive integer.

    Parameters
    ----------
    text : str
        The grid, ``LO:HI:N``.
    option : str
        The option (and parameter) it came from, for the message.
    example : str
        A valid grid quoted in the message when ``text`` is malformed.

    Returns
    -------
    (float, float, int)

    Raises
    ------
    CLIError
        Not three numbers separated by ``:``, or ``N`` is not an integer in
        ``[1, MAX_POINTS]``.

    Examples
    --------
    >>> triple("25:100:31", "--param k", "k=25:100:31")
    (25.0, 100.0, 31)
    """
    parts = text.split(":")
    if len(parts) != 3:
        raise CLIError(f"{option} {text!r}: expected LO:HI:N, e.g. {example}")
    lo, hi, n = (number(p, f"{option} {text!r}") for p in parts)
    if n != int(n) or not 1 <= n <= MAX_POINTS:
        raise CLIError(f"{option} {text!r}: N must be a positive integer, at most {MAX_POINTS}")
    return lo, hi, int(n)


def spin(text: str | list[str]) -> dict[str, Any]:
    """``"hub:0,0,1:2.0"`` -> ``{"body": "hub", "axis": [0, 0, 1], "rate": 2.0}``.

    Parameters
    ----------
    text : str or list of str
        The value of ``--spin`` (or the values of a repeated ``--spin``, which must be one:
        a trim has one steady spin): ``BODY:AX,AY,AZ:RATE`` (the body, its spin axis, the spin
        rate), as :func:`titop_lpv.trim` takes ``spin=``. ``RATE`` is a number [rad/s] or the
        name of a model parameter (``hub:0,0,1:Omega``) whose value (``--param``, a sweep's
        grid, else the model's default) is the rate.

    Returns
    -------
    dict
        ``{"body": str, "axis": [float, float, float], "rate": float or str}``.

    Raises
    ------
    CLIError
        ``--spin`` given more than once, or a malformed value: a rate that is neither a
        finite number nor a name, an axis that is not three finite numbers or is zero.

    Examples
    --------
    >>> spin("hub:0,0,1:2.0")
    {'body': 'hub', 'axis': [0.0, 0.0, 1.0], 'rate': 2.0}
    >>> spin("hub:0,0,1:Omega")
    {'body': 'hub', 'axis': [0.0, 0.0, 1.0], 'rate': 'Omega'}
    """
    if isinstance(text, list):
        if len(text) != 1:
            raise CLIError(f"--spin is given {len(text)} times ({', '.join(text)}); a trim has "
                           "one steady spin")
        text = text[0]
    parts = text.split(":")
    axis = parts[1].split(",") if len(parts) == 3 else []
    if len(parts) != 3 or not parts[0] or len(axis) != 3:
        raise CLIError(f"--spin {text!r}: expected BODY:AX,AY,AZ:RATE, e.g. hub:0,0,1:2.0 "
                       "(RATE in rad/s, or a parameter name: hub:0,0,1:Omega)")
    rate: float | str = parts[2].strip()
    try:
        float(rate)
    except ValueError:
        if not rate.replace(".", "_").isidentifier():
            raise CLIError(f"--spin rate: expected a number [rad/s] or a parameter name, got "
                           f"{parts[2]!r}") from None
    else:
        rate = number(rate, "--spin rate")
    vector = [number(a, "--spin axis") for a in axis]
    if not any(vector):
        raise CLIError(f"--spin axis {parts[1]!r}: must not be zero")
    return {"body": parts[0], "axis": vector, "rate": rate}


def figure_suffixes() -> tuple[str, ...]:
    """File suffixes matplotlib can write (``.png``, ``.pdf``, ``.svg``, ...)."""
    from matplotlib.backend_bases import FigureCanvasBase

    return tuple(sorted(f".{k}" for k in FigureCanvasBase.get_supported_filetypes()))


def check_out(path: str | None, option: str, suffixes: Sequence[str]) -> Path | None:
    """Check an output path before any work: its suffix and an existing, writable directory.

    Parameters
    ----------
    path : str or None
        The path given on the command line (None: nothing to check).
    option : str
        The option that gave it, for the message (``--out``, ``--plot-file``).
    suffixes : sequence of str
        Accepted suffixes, lower case with the dot.

    Returns
    -------
    Path or None

    Raises
    ------
    CLIError
        The suffix is not one of ``suffixes``, the path is a directory, or its directory does
        not exist or is not writable.
    """
    if path is None:
        return None
    out = Path(path)
    if out.suffix.lower() not in suffixes:
        kinds = ", ".join(suffixes[:-1]) + f" or {suffixes[-1]}" if len(suffixes) > 1 else \
            suffixes[0]
        raise CLIError(f"{option} {path}: unknown file type {out.suffix or '(none)'!r}; "
                       f"use a {kinds} file")
    if out.is_dir():
        raise CLIError(f"{option} {path}: is a directory, not a file")
    parent = out.parent
    if not parent.is_dir():
        raise CLIError(f"{option} {path}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise CLIError(f"{option} {path}: directory {str(parent)!r} is not writable")
    return out


class UsageError(CLIError):
    """A malformed command line (unknown option, missing or ill-typed argument)."""


class Parser(argparse.ArgumentParser):
    """argparse with the command line's error contract: its errors raise :class:`UsageError`
    (one line, exit status 2) instead of printing the usage and exiting."""

    def error(self, message: str) -> NoReturn:
        """Raise :class:`UsageError` with ``message`` and where to find help.

        Parameters
        ----------
        message : str
            argparse's message.

        Raises
        ------
        UsageError
            Always.
        """
        raise UsageError(f"{message} (see '{self.prog} --help')")


def one_line(err: BaseException) -> str:
    """The error message on one line (continuation lines joined with '; ').

    Parameters
    ----------
    err : BaseException
        The error. A ``KeyError`` gives its message without the quotes ``str`` adds; an
        empty message gives the exception's class name; a leading ``"- "`` of a
        continuation line is dropped; the line is cut to 1000 characters.

    Returns
    -------
    str

    Examples
    --------
    >>> one_line(ValueError("bad model:\\n- mass < 0\\n- no body"))
    'bad model: mass < 0; no body'
    """
    text = str(err.args[0]) if type(err) is KeyError and err.args else str(err)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return type(err).__name__
    rest = [ln[2:] if ln.startswith("- ") else ln for ln in lines[1:]]
    line = " ".join([lines[0], "; ".join(rest)]) if rest else lines[0]
    return line if len(line) <= 1000 else line[:997] + "..."
