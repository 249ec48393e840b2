"""Modal analysis of a linear model: natural frequencies, damping, dominant states.

Each eigenvalue λ of ``A`` (a complex pair counts once) gives a mode with natural frequency
``ω_n = |λ|`` [rad/s], damping ratio ``ζ = −Re λ / |λ|`` and the states that dominate it,
ranked by their participation factors ``p_k = |v_k w_k|`` (right and left eigenvectors,
normalised to sum to one: dimensionless, so states of different units compare fairly).
Eigenvalues with ``|λ| <= zero_tol`` are rigid-body (zero) modes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

__all__ = ["ModalTable", "Mode", "modes"]


@dataclass(frozen=True)
class Mode:
    """One mode: eigenvalue, natural frequency [rad/s], damping ratio, dominant states."""

    eigenvalue: complex
    wn: float
    zeta: float
    rigid: bool
    dominant: tuple[tuple[str, float], ...]

    @property
    def frequency_hz(self) -> float:
        """Natural frequency [Hz]."""
        return self.wn / (2 * np.pi)

    @property
    def kind(self) -> str:
        """``rigid-body``, ``oscillatory``, ``real`` (aperiodic) or ``unstable``."""
        if self.rigid:
            return "rigid-body"
        if self.eigenvalue.real > 0:
            return "unstable"
        return "oscillatory" if abs(self.eigenvalue.imag) > 0 else "real"


@dataclass(frozen=True)
class ModalTable:
    """The modes of a system, slowest first; renders as text, Markdown and HTML."""

    modes: tuple[Mode, ...]
    name: str = ""

    def __len__(self) -> int:
        return len(self.modes)

    def __getitem__(self, k: int) -> Mode:
        return self.modes[k]

    @property
    def rigid(self) -> tuple[Mode, ...]:
        """Rigid-body (zero) modes."""
        return tuple(m for m in self.modes if m.rigid)

    @property
    def flexible(self) -> tuple[Mode, ...]:
        """Non-zero modes."""
        return tuple(m for m in self.modes if not m.rigid)

    def _rows(self) -> list[list[str]]:
        rows = []
        for k, m in enumerate(self.modes, 1):
            lam = m.eigenvalue
            lam_s = f"{lam.real:.4g} ± {abs(lam.imag):.4g}j" if lam.imag else f"{lam.real:.4g}"
            dom = ", ".join(f"{n} ({p:.0%})" for n, p in m.dominant)
            rows.append([str(k), m.kind, lam_s, f"{m.wn:.4g}", f"{m.frequency_hz:.4g}",
                         "-" if m.rigid else f"{m.zeta:.4g}", dom])
        return rows

    _HEAD = ("#", "kind", "eigenvalue", "ω_n [rad/s]", "f [Hz]", "ζ", "dominant states")

    def to_markdown(self) -> str:
        """The table in Markdown."""
        lines = ["| " + " | ".join(self._HEAD) + " |", "|" + "---|" * len(self._HEAD)]
        lines += ["| " + " | ".join(r) + " |" for r in self._rows()]
        return "\n".join(lines)

    def __str__(self) -> str:
        rows = [list(self._HEAD), *self._rows()]
        widths = [max(len(r[c]) for r in rows) for c in range(len(self._HEAD))]
        title = f"modes of {self.name}: " if self.name else "modes: "
        title += f"{len(self.rigid)} rigid-body, {len(self.flexible)} other"
        return "\n".join([title] + ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                                    for r in rows])

    def plot(self) -> Any:
        """The table and the poles as a matplotlib Figure (for reports)."""
        from .plots import plot_modal_table

        return plot_modal_table(self)

    def _repr_html_(self) -> str:
        import html

        head = "".join(f"<th>{html.escape(h)}</th>" for h in self._HEAD)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                       for r in self._rows())
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def modes(sys: Any, *, zero_tol: float = 1e-6, n_dominant: int = 3) -> ModalTable:
    """Modes of a linear system (a ``control.StateSpace`` or a square matrix ``A``).

    Parameters
    ----------
    sys : control.StateSpace or array_like
    zero_tol : float
        ``|λ| <= zero_tol`` [rad/s] is a rigid-body (zero) mode.
    n_dominant : int
        How many dominant states to list per mode.

    Returns
    -------
    ModalTable
        Modes sorted by natural frequency; complex pairs appear once.
    """
    A = np.asarray(getattr(sys, "A", sys), dtype=float)
    names = list(getattr(sys, "state_labels", [f"x[{k}]" for k in range(A.shape[0])]))
    lam, W, V = scipy.linalg.eig(A, left=True, right=True)
    out = []
    # A is real: LAPACK returns exact conjugate pairs; keep the member with Im λ >= 0
    for k in np.argsort(np.abs(lam) + 1e-9 * np.abs(lam.imag), kind="stable"):
        if lam[k].imag < 0:
            continue
        part = np.abs(V[:, k] * W[:, k].conj())
        total = part.sum()
        part = part / total if total > 0 else part
        order = np.argsort(part)[::-1][:n_dominant]
        wn = float(abs(lam[k]))
        rigid = wn <= zero_tol
        zeta = float(-lam[k].real / wn) if wn > 0 else np.nan
        out.append(Mode(complex(lam[k]), wn, zeta, rigid,
                        tuple((names[i], float(part[i])) for i in order if part[i] > 0)))
    return ModalTable(tuple(out), getattr(sys, "name", ""))
