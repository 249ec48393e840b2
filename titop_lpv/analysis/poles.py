"""The poles of a linear system as a printable table (text, Markdown, HTML), and the table
renderers that the modal table (:mod:`titop_lpv.analysis.modes`) shares."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import ShapeError

__all__ = ["PoleTable", "html_table", "markdown_table", "pole_table", "text_table"]


def text_table(title: str, head: tuple[str, ...], rows: list[list[str]]) -> str:
    """A plain-text table: the title, then the header and the rows in aligned columns.

    Parameters
    ----------
    title : str
        First line.
    head : tuple of str
        Column titles.
    rows : list of list of str
        The cells, row by row.

    Returns
    -------
    str
    """
    cells = [list(head), *rows]
    widths = [max(len(r[c]) for r in cells) for c in range(len(head))]
    return "\n".join([title] + ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                                for r in cells])


def markdown_table(head: tuple[str, ...], rows: list[list[str]]) -> str:
    """A Markdown table.

    Parameters
    ----------
    head : tuple of str
        Column titles.
    rows : list of list of str
        The cells, row by row.

    Returns
    -------
    str
    """
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def html_table(head: tuple[str, ...], rows: list[list[str]]) -> str:
    """An HTML table (what a notebook shows), every cell escaped.

    Parameters
    ----------
    head : tuple of str
        Column titles.
    rows : list of list of str
        The cells, row by row.

    Returns
    -------
    str
    """
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


@dataclass(frozen=True, repr=False)
class PoleTable:
    """The poles of a system (or of every point of an LPV grid) as a table: every pole, its
    natural frequency and damping.

    Made by :func:`pole_table`; ``print(table)`` (and ``repr``) is the text table, a notebook
    shows HTML, :meth:`to_markdown` gives Markdown.

    Attributes
    ----------
    poles : ndarray of complex
        The eigenvalues of ``A`` [rad/s], sorted by natural frequency, then by imaginary
        part (a conjugate pair is listed as two poles, the one with Im > 0 first); for a
        grid, point after point.
    name : str, default ""
        Name of the system (in the title).
    zero_tol : float, default 1e-6
        ``|λ| <= zero_tol`` [rad/s] is a pole at the origin (damping ratio not defined).
    by : str, default ""
        For the poles of a grid: the grid parameter of the first column.
    by_unit : str, default ""
        Its unit.
    by_values : ndarray or None, default None
        For the poles of a grid: the parameter's value at each pole's grid point.
    """

    poles: np.ndarray
    name: str = ""
    zero_tol: float = 1e-6
    by: str = ""
    by_unit: str = ""
    by_values: np.ndarray | None = None

    COLUMNS = ("#", "pole [rad/s]", "Re [rad/s]", "Im [rad/s]", "ω_n [rad/s]", "ζ [-]",
               "f [Hz]", "stability")
    """Column titles of a system's table, with units."""

    @property
    def header(self) -> tuple[str, ...]:
        """Column titles of :meth:`rows`, with units (a grid's parameter second)."""
        if self.by_values is None:
            return self.COLUMNS
        return (self.COLUMNS[0], f"{self.by} [{self.by_unit}]" if self.by_unit else self.by,
                *self.COLUMNS[1:])

    def __len__(self) -> int:
        return len(self.poles)

    def rows(self) -> list[list[str]]:
        """The table's rows as strings, one per pole, in the columns of :attr:`header`.

        Returns
        -------
        list of list of str
        """
        rows = []
        for k, lam in enumerate(self.poles, 1):
            wn = abs(lam)
            at_zero = wn <= self.zero_tol
            sign = "-" if lam.imag < 0 else "+"
            text = (f"{lam.real:.6g} {sign} {abs(lam.imag):.6g}j" if lam.imag
                    else f"{lam.real:.6g}")
            state = ("at the origin" if at_zero else "unstable" if lam.real > 0 else
                     "marginal" if lam.real == 0 else "stable")
            rows.append([str(k), text, f"{lam.real:.6g}", f"{lam.imag:.6g}", f"{wn:.6g}",
                         "-" if at_zero else f"{-lam.real / wn:.4g}",
                         f"{wn / (2 * np.pi):.4g}", state])
            if self.by_values is not None:
                rows[-1].insert(1, f"{self.by_values[k - 1]:.6g}")
        return rows

    def to_markdown(self) -> str:
        """The table in Markdown."""
        return markdown_table(self.header, self.rows())

    def __str__(self) -> str:
        title = f"poles of {self.name}: " if self.name else "poles: "
        unstable = int(np.sum(np.real(self.poles) > 0))
        title += f"{len(self.poles)}, {unstable} in the right half-plane"
        return text_table(title, self.header, self.rows())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return html_table(self.header, self.rows())


def pole_table(sys: Any, *, zero_tol: float = 1e-6) -> PoleTable:
    """The poles of a linear system, or of every point of an LPV grid, as a printable table.

    Parameters
    ----------
    sys : control.StateSpace or array_like or PoleMap
        The system, or its state matrix ``A``, or the poles of a grid
        (:meth:`titop_lpv.LPVGrid.poles`: one block of rows per grid point, its parameter
        value in the second column; failed points left out).
    zero_tol : float
        ``|λ| <= zero_tol`` [rad/s] is a pole at the origin.

    Returns
    -------
    PoleTable

    Raises
    ------
    ShapeError
        If ``A`` is not square.

    Examples
    --------
    >>> import numpy as np
    >>> print(pole_table(np.array([[0.0, 1.0], [-4.0, -0.4]])))
    poles: 2, 0 in the right half-plane
    #  pole [rad/s]     Re [rad/s]  Im [rad/s]  ω_n [rad/s]  ζ [-]  f [Hz]  stability
    1  -0.2 + 1.98997j  -0.2        1.98997     2            0.1    0.3183  stable
    2  -0.2 - 1.98997j  -0.2        -1.98997    2            0.1    0.3183  stable
    """
    if hasattr(sys, "poles") and hasattr(sys, "values") and np.ndim(sys.poles) == 2:
        blocks = [(v, _sorted(p[np.isfinite(p)])) for v, p in zip(sys.values, sys.poles)]
        lam = np.concatenate([p for _, p in blocks] or [np.zeros(0, complex)])
        by_values = np.concatenate([np.full(p.size, float(v)) for v, p in blocks]
                                   or [np.zeros(0)])
        return PoleTable(lam.astype(complex), "", float(zero_tol), str(sys.name),
                         str(getattr(sys, "unit", "") or ""), by_values)
    A = np.asarray(getattr(sys, "A", sys), dtype=float)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ShapeError(f"pole_table needs a square A matrix; got shape {A.shape}")
    lam = np.linalg.eigvals(A) if A.size else np.zeros(0, complex)
    return PoleTable(_sorted(lam), getattr(sys, "name", "") or "", float(zero_tol))


def _sorted(lam: np.ndarray) -> np.ndarray:
    """Poles by natural frequency, then Im > 0 before its conjugate."""
    lam = np.asarray(lam, dtype=complex)
    return lam[np.lexsort((-lam.imag, np.round(np.abs(lam), 12)))]
