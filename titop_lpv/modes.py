"""Modal analysis of a linear model: natural frequencies, damping, dominant states.

Each eigenvalue λ of ``A`` (a complex pair counts once) gives a mode with natural frequency
``ω_n = |λ|`` [rad/s], damping ratio ``ζ = −Re λ / |λ|`` and the states that dominate it,
ranked by their participation factors ``p_k = |v_k w_k|`` (right and left eigenvectors,
normalised to sum to one: dimensionless, so states of different units compare fairly).

Eigenvalues with ``|λ| <= zero_tol`` are rigid-body (zero) modes. ``A`` is defective there
(a free body's position and velocity form a Jordan chain ``A v₁ = 0``, ``A v₂ = v₁``), so
eigenvectors and participation factors mean nothing; the rigid-body modes are instead
labelled from the null space of ``A`` (SVD), each null vector ``v₁`` (a rigid-body
displacement, e.g. ``balloon_x``) followed by its velocity partner ``v₂``, the minimum-norm
solution of ``A v₂ = v₁`` (e.g. ``balloon_vx``). Their dominant states are ranked by the
share of the squared vector norm ``v_k² / ‖v‖²``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from .exceptions import ShapeError

__all__ = ["ModalTable", "Mode", "modes"]


@dataclass(frozen=True)
class Mode:
    """One mode: eigenvalue, natural frequency [rad/s], damping ratio, dominant states.

    For a rigid-body mode, ``dof`` numbers its rigid-body degree of freedom (its Jordan
    chain, from 0; -1 when the zero eigenvalue could not be attached to a chain) and
    ``level`` its place in the chain: 0 the displacement (null vector of ``A``), 1 its rate.
    """

    eigenvalue: complex
    wn: float
    zeta: float
    rigid: bool
    dominant: tuple[tuple[str, float], ...]
    dof: int = -1
    level: int = 0

    @property
    def frequency_hz(self) -> float:
        """Natural frequency [Hz]."""
        return self.wn / (2 * np.pi)

    @property
    def kind(self) -> str:
        """``rigid-body``, ``oscillatory``, ``real`` (aperiodic) or ``unstable``."""
        if self.rigid:
            if self.dof < 0:
                return "rigid-body"
            return f"rigid-body {self.dof + 1}" + (" (rate)" if self.level == 1 else
                                                   f" (level {self.level})" if self.level else "")
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
    def rigid_dofs(self) -> tuple[tuple[Mode, ...], ...]:
        """Rigid-body degrees of freedom: the rigid-body modes grouped by Jordan chain."""
        n = max((m.dof for m in self.modes), default=-1) + 1
        return tuple(tuple(m for m in self.modes if m.rigid and m.dof == k) for k in range(n))

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
        if self.rigid_dofs:
            title += f" ({len(self.rigid_dofs)} rigid-body degrees of freedom)"
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


def _shares(v: np.ndarray) -> np.ndarray:
    """Share of each state in ``‖v‖²`` (sums to one; zeros for a zero vector)."""
    w = np.abs(v) ** 2
    total = w.sum()
    return w / total if total > 0 else w


def _rigid_chains(A: np.ndarray, max_vectors: int) -> list[list[np.ndarray]]:
    """Jordan chains of the zero eigenvalue: ``[[v1, v2, ...], ...]`` with ``A v1 = 0``,
    ``A v(k+1) = v(k)``, at most ``max_vectors`` vectors in all."""
    n = A.shape[0]
    if n == 0 or max_vectors == 0:
        return []
    _, sv, Vh = scipy.linalg.svd(A)
    scale = max(1.0, float(sv[0]))
    null = Vh[sv <= 1e-10 * scale].T  # orthonormal basis of the null space, (n, r)
    r = null.shape[1]
    if r == 0:
        return []
    # a basis aligned with the states: 1 at a pivot state, 0 at the other pivots
    _, _, piv = scipy.linalg.qr(null.T, pivoting=True)
    pivots = np.sort(piv[:r])  # chains in the order of the states
    basis = null @ np.linalg.inv(null[pivots])

    def clean(v: np.ndarray) -> np.ndarray:  # rounding noise is not a participating state
        return np.where(np.abs(v) <= 1e-12 * np.max(np.abs(v)), 0.0, v)

    chains, used = [], 0
    for k in range(r):
        chain = [clean(basis[:, k])]
        used += 1
        while used < max_vectors:
            w, *_ = np.linalg.lstsq(A, chain[-1], rcond=None)  # minimum norm: ⊥ null space
            if np.linalg.norm(A @ w - chain[-1]) > 1e-8 * np.linalg.norm(chain[-1]):
                break
            chain.append(clean(w))
            used += 1
        chains.append(chain)
        if used >= max_vectors:
            break
    return chains


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
        Rigid-body modes first, one per zero eigenvalue (so their number is the algebraic
        multiplicity of λ = 0), grouped by rigid-body degree of freedom: the null vector of
        ``A`` (``level`` 0, e.g. a position) then its velocity partner (``level`` 1);
        their eigenvalue is reported as exactly 0. Then the other modes sorted by natural
        frequency; complex pairs appear once. A zero eigenvalue that the null-space chains
        do not account for (a numerically ambiguous case) is still listed as rigid-body,
        with ``dof = -1`` and its eigenvector's dominant states.
    """
    A = np.asarray(getattr(sys, "A", sys), dtype=float)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ShapeError(f"modes needs a square A matrix; got shape {A.shape}")
    names = list(getattr(sys, "state_labels", [f"x[{k}]" for k in range(A.shape[0])]))
    lam, W, V = scipy.linalg.eig(A, left=True, right=True)
    zero = np.abs(lam) <= zero_tol
    chains = _rigid_chains(A, int(zero.sum()))
    n_chained = sum(len(c) for c in chains)

    def dominant(part: np.ndarray) -> tuple[tuple[str, float], ...]:
        order = np.argsort(part, kind="stable")[::-1][:n_dominant]
        return tuple((names[i], float(part[i])) for i in order if part[i] > 0)

    out = [Mode(0j, 0.0, np.nan, True, dominant(_shares(v)), dof, level)
           for dof, chain in enumerate(chains) for level, v in enumerate(chain)]
    # the n_chained zero eigenvalues closest to 0 are the chains'; list the others
    order = np.argsort(np.abs(lam) + 1e-9 * np.abs(lam.imag), kind="stable")
    skip = set(order[:n_chained].tolist())
    for k in order:
        # A is real: LAPACK returns exact conjugate pairs; keep the member with Im λ >= 0
        if k in skip or lam[k].imag < 0:
            continue
        wn = float(abs(lam[k]))
        rigid = bool(zero[k])
        part = np.abs(V[:, k] * W[:, k].conj())
        total = part.sum()
        if rigid or not np.isfinite(total) or total <= 1e-200:
            part = _shares(V[:, k])  # defective or underflowing: the right eigenvector alone
        else:
            part = part / total
        zeta = float(-lam[k].real / wn) if wn > 0 else np.nan
        out.append(Mode(complex(lam[k]), wn, zeta, rigid, dominant(part)))
    return ModalTable(tuple(out), getattr(sys, "name", ""))
