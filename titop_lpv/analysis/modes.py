"""Modal analysis of a linear model: natural frequencies, damping, dominant states.

Each eigenvalue λ of ``A`` (a complex pair counts once) gives a mode with natural frequency
``ω_n = |λ|`` [rad/s], damping ratio ``ζ = −Re λ / |λ|`` and the states that dominate it,
ranked by their participation factors ``p_k = |v_k w_k|`` (right and left eigenvectors,
normalised to sum to one: dimensionless, so states of different units compare fairly).

Eigenvalues with ``|λ| <= zero_tol`` are rigid-body (zero) modes. ``A`` is defective there
(a free body's position and velocity form a Jordan chain ``A v₀ = 0``, ``A v₁ = v₀``), so
eigenvectors and participation factors mean nothing; the rigid-body modes are instead
labelled from the Jordan chains of ``A``. The nested null spaces ``null(A^k)`` come from a
staircase of SVDs (one rank decision per level, on a matrix the size of ``A``); the tops of
the chains of length ``>= L`` span ``null(A) ∩ range(A^(L−1))``, taken in a basis aligned
with the states (a rigid-body displacement, e.g. ``balloon_x``), and the rest of the chain is
the minimum-norm ``u`` with ``A^(L−1) u = v₀`` and its images (e.g. the rate
``balloon_vx``). Their dominant states are ranked by the share of the squared vector norm
``v_k² / ‖v‖²``. Every zero eigenvalue is listed exactly once: one row per chain vector, and
a zero eigenvalue that no chain explains gets its own row (``dof = −1``, a near-zero
complex pair as one row).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from ..exceptions import ShapeError
from ..plots import plot_modal_table
from .poles import html_table, markdown_table, text_table

__all__ = ["ModalTable", "Mode", "modes"]


@dataclass(frozen=True)
class Mode:
    """One mode: eigenvalue, natural frequency [rad/s], damping ratio, dominant states.

    For a rigid-body mode, ``dof`` numbers its rigid-body degree of freedom (its Jordan
    chain, from 0; -1 when the zero eigenvalue could not be attached to a chain) and
    ``level`` its place in the chain: 0 the displacement (null vector of ``A``), 1 its rate.

    Attributes
    ----------
    eigenvalue : complex
        The eigenvalue λ [rad/s] (for a complex pair, the one listed); exactly 0 for a
        rigid-body mode attached to a Jordan chain.
    wn : float
        Natural frequency ``|λ|`` [rad/s].
    zeta : float
        Damping ratio ``−Re λ / |λ|``; NaN for a rigid-body mode.
    rigid : bool
        A rigid-body (zero) mode: ``|λ| <= zero_tol`` of :func:`modes`.
    dominant : tuple of (str, float)
        The dominant states with their share (participation factor, or for a rigid-body
        mode the share of the squared vector norm), largest first.
    dof : int, default -1
        Rigid-body degree of freedom (Jordan chain) of a rigid-body mode, from 0; -1 for a
        mode attached to no chain (and for every non-rigid mode).
    level : int, default 0
        Place of a rigid-body mode in its chain: 0 the displacement, 1 its rate, ...
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


@dataclass(frozen=True, repr=False)
class ModalTable:
    """The modes of a system, slowest first; renders as text, Markdown and HTML.

    Made by :func:`modes`; ``len(table)`` and ``table[k]`` give the number of modes and the
    ``k``-th :class:`Mode`. The poles alone: :func:`~titop_lpv.analysis.poles.pole_table`.
    ``print(table)``, ``repr(table)`` (what an interactive prompt
    shows) and ``str(table)`` are the text table; a notebook shows it as HTML.

    Attributes
    ----------
    modes : tuple of Mode
        Rigid-body modes first, then the others by natural frequency.
    name : str, default ""
        Name of the system (shown in the title of the text rendering).
    """

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

    header = ("#", "kind", "eigenvalue [rad/s]", "ω_n [rad/s]", "f [Hz]", "ζ [-]",
              "dominant states (share)")
    """Column titles of :meth:`rows`, with units."""

    def rows(self) -> list[list[str]]:
        """The table's rows as strings, one per mode, in the columns of :attr:`header`.

        Returns
        -------
        list of list of str
        """
        rows = []
        for k, m in enumerate(self.modes, 1):
            lam = m.eigenvalue
            lam_s = f"{lam.real:.4g} ± {abs(lam.imag):.4g}j" if lam.imag else f"{lam.real:.4g}"
            dom = ", ".join(f"{n} ({p:.0%})" for n, p in m.dominant)
            rows.append([str(k), m.kind, lam_s, f"{m.wn:.4g}", f"{m.frequency_hz:.4g}",
                         "-" if m.rigid else f"{m.zeta:.4g}", dom])
        return rows

    def to_markdown(self) -> str:
        """The table in Markdown."""
        return markdown_table(self.header, self.rows())

    def __str__(self) -> str:
        title = f"modes of {self.name}: " if self.name else "modes: "
        title += f"{len(self.rigid)} rigid-body, {len(self.flexible)} other"
        if self.rigid_dofs:
            title += f" ({len(self.rigid_dofs)} rigid-body degrees of freedom)"
        return text_table(title, self.header, self.rows())

    def __repr__(self) -> str:
        return str(self)

    def plot(self) -> Any:
        """The table and the poles as a matplotlib Figure (for reports)."""
        return plot_modal_table(self)

    def _repr_html_(self) -> str:
        return html_table(self.header, self.rows())


def _shares(v: np.ndarray) -> np.ndarray:
    """Share of each state in ``‖v‖²`` (sums to one; zeros for a zero vector)."""
    w = np.abs(v) ** 2
    total = w.sum()
    return w / total if total > 0 else w


def _clean(v: np.ndarray) -> np.ndarray:
    """``v`` with its rounding noise (``<= 1e-12 max |v|``) set to zero: no participating state."""
    peak = np.max(np.abs(v)) if v.size else 0.0
    return np.where(np.abs(v) <= 1e-12 * peak, 0.0, v)


def _leading(M: np.ndarray, k: int) -> np.ndarray:
    """Orthonormal basis of the ``k``-dimensional dominant column space of ``M``."""
    if k <= 0:
        return np.zeros((M.shape[0], 0))
    U, _, _ = scipy.linalg.svd(M, full_matrices=False)
    return U[:, :k]


def _aligned(T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A basis of the column space of ``T`` aligned with the states, and its pivot states.

    Column ``j`` of the basis is 1 at pivot state ``j`` and 0 at the other pivots (pivoted
    QR picks well-conditioned pivots), so a subspace spanned by states gets those states.
    """
    k = T.shape[1]
    _, _, piv = scipy.linalg.qr(T.T, pivoting=True)
    pivots = np.sort(piv[:k])
    return T @ np.linalg.inv(T[pivots]), pivots


def _null_staircase(A: np.ndarray, tol: float, n_zero: int) -> list[np.ndarray]:
    """Orthonormal bases of ``null(A^k)``, ``k = 1, 2, ...``, until the dimension stops growing.

    ``null(A^(k+1)) = null(Q_kᵀ A)`` with ``Q_k`` an orthonormal basis of the orthogonal
    complement of ``null(A^k)``: every rank decision is on a matrix of the size of ``A``
    (singular values ``<= tol`` are zero), never on a power of ``A``. A level whose
    dimension would exceed ``n_zero`` (the number of zero eigenvalues) is not taken.
    """
    n = A.shape[0]
    bases: list[np.ndarray] = []
    Q = np.eye(n)
    while True:
        M = Q.T @ A
        _, s, Vh = scipy.linalg.svd(M, full_matrices=True)
        rank = int(np.sum(s > tol))
        B = Vh[rank:].T
        d = B.shape[1]
        if d <= (bases[-1].shape[1] if bases else 0) or d > n_zero:
            return bases
        bases.append(B)
        if d == n_zero or d == n:
            return bases
        Qfull, _ = scipy.linalg.qr(B)
        Q = Qfull[:, d:]


def _rigid_chains(A: np.ndarray, n_zero: int) -> list[list[np.ndarray]]:
    """Jordan chains of the zero eigenvalue of ``A``.

    Parameters
    ----------
    A : numpy.ndarray
        Square state matrix, ``(n, n)``.
    n_zero : int
        Number of zero eigenvalues (algebraic multiplicity); the chains hold at most this
        many vectors in all.

    Returns
    -------
    list of list of numpy.ndarray
        ``[[v0, v1, ...], ...]`` with ``A v0 = 0`` (the chain's top: a displacement-like null
        vector) and ``A v(j+1) = v(j)`` (its rate, ...), in the order of the tops' pivot
        states. The tops of the chains of length ``>= L`` span ``null(A) ∩ range(A^(L-1))``;
        within each length they form a basis aligned with the states, so that a null space
        spanned by states is labelled by those states.
    """
    n = A.shape[0]
    if n == 0 or n_zero <= 0:
        return []
    scale = max(1.0, float(scipy.linalg.svdvals(A)[0]))
    bases = _null_staircase(A, 1e-10 * scale, n_zero)
    if not bases:
        return []
    dims = [0] + [B.shape[1] for B in bases]  # dims[k] = dim null(A^k)
    p = len(bases)  # longest chain
    G = bases[-1]  # the generalised eigenspace found, (n, dims[p])
    N = G.T @ A @ G  # A restricted to it (A G = G N): nilpotent
    power = [np.eye(G.shape[1])]
    for _ in range(p - 1):
        power.append(power[-1] @ N)

    def at_least(L: int) -> int:  # number of chains of length >= L
        return dims[L] - dims[L - 1] if L <= p else 0

    found: list[tuple[int, int, list[np.ndarray]]] = []
    higher = np.zeros((n, 0))  # null(A) ∩ range(A^L), tops of the longer chains
    for L in range(p, 0, -1):
        # null(A) ∩ range(A^(L-1)) = A^(L-1) null(A^L), of known dimension
        K = _leading(G @ power[L - 1] @ (G.T @ bases[L - 1]), at_least(L))
        exact = at_least(L) - at_least(L + 1)
        if exact > 0:
            rest = K - higher @ (higher.T @ K)  # the part not explained by longer chains
            tops, pivots = _aligned(_leading(rest, exact))
            rank = dims[p] - dims[L - 1]  # rank of N^(L-1)
            U, s, Vh = scipy.linalg.svd(power[L - 1])
            for j in range(exact):
                v = _clean(tops[:, j])
                y = Vh[:rank].T @ ((U[:, :rank].T @ (G.T @ v)) / s[:rank])  # minimum norm
                chain = [v]
                if np.linalg.norm(G @ (power[L - 1] @ y) - v) <= 1e-8 * np.linalg.norm(v):
                    chain += [_clean(G @ (power[L - 1 - i] @ y)) for i in range(1, L)]
                found.append((int(pivots[j]), -L, chain))
        higher = K
    found.sort(key=lambda f: (f[0], f[1]))
    return [chain for *_, chain in found]


def modes(sys: Any, *, zero_tol: float = 1e-6, n_dominant: int = 3) -> ModalTable:
    """Modes of a linear system (a ``control.StateSpace`` or a square matrix ``A``).

    Parameters
    ----------
    sys : control.StateSpace or array_like
        The system, or its state matrix ``A`` (states then named ``x[k]``).
    zero_tol : float
        ``|λ| <= zero_tol`` [rad/s] is a rigid-body (zero) mode.
    n_dominant : int
        How many dominant states to list per mode.

    Returns
    -------
    ModalTable
        Rigid-body modes first, one per zero eigenvalue (so their number, counting a complex
        pair twice, is the algebraic multiplicity of λ = 0), grouped by rigid-body degree of
        freedom (Jordan chain): the null vector of ``A`` (``level`` 0, e.g. a position),
        then its velocity partner (``level`` 1), and so on; their eigenvalue is reported as
        exactly 0. A zero eigenvalue that the chains do not account for (a numerically
        ambiguous case) is still listed as rigid-body, with ``dof = -1``, its own eigenvalue
        and its eigenvector's dominant states; a near-zero complex pair is one such row.
        Then the other modes sorted by natural frequency; complex pairs appear once.

    Raises
    ------
    ShapeError
        If ``A`` is not square.

    Examples
    --------
    >>> import numpy as np
    >>> table = modes(np.array([[0.0, 1.0], [-4.0, -0.4]]))  # ω_n = 2 rad/s, ζ = 0.1
    >>> len(table), round(table[0].wn, 6), round(table[0].zeta, 6), table[0].kind
    (1, 2.0, 0.1, 'oscillatory')

    The balloon linearised at its hanging equilibrium: four rigid-body modes, then five
    oscillatory ones:

    >>> import titop_lpv as tl
    >>> model = tl.load_model("examples/balloon.toml")
    >>> free = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
    >>> op = tl.trim(model, free, guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
    >>> table = modes(tl.linearize(model, op, drop_integrators=True))
    >>> len(table.rigid), [round(m.wn, 3) for m in table.flexible]
    (4, [1.821, 1.835, 3.68, 6.497, 7.7])
    """
    A = np.asarray(getattr(sys, "A", sys), dtype=float)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ShapeError(f"modes needs a square A matrix; got shape {A.shape}")
    names = list(getattr(sys, "state_labels", [f"x[{k}]" for k in range(A.shape[0])]))
    lam, W, V = scipy.linalg.eig(A, left=True, right=True)
    zero = np.abs(lam) <= zero_tol
    chains = _rigid_chains(A, int(zero.sum()))

    # the zero eigenvalues as units (a real one, or a pair by its member with Im λ > 0; A is
    # real, so LAPACK returns exact conjugates); the chains explain the units closest to 0,
    # the rest are listed on their own: whole units, largest |λ| first
    units = [k for k in np.flatnonzero(zero) if lam[k].imag >= 0]
    units.sort(key=lambda k: (abs(lam[k]), k))
    size = {k: 1 if lam[k].imag == 0 else 2 for k in units}
    left = int(zero.sum()) - sum(len(c) for c in chains)
    alone: list[int] = []
    for k in reversed(units):
        if 0 < size[k] <= left:
            alone.append(k)
            left -= size[k]
    if left:  # one vector left over, but only pairs remain: the pair replaces a chain vector
        k = next(k for k in reversed(units) if k not in alone)
        alone.append(k)
        shortest = min(range(len(chains)), key=lambda c: (len(chains[c]), -c))
        chains[shortest] = chains[shortest][:-1]
        chains = [c for c in chains if c]
    alone.sort(key=lambda k: (abs(lam[k]), k))

    def dominant(part: np.ndarray) -> tuple[tuple[str, float], ...]:
        order = np.argsort(part, kind="stable")[::-1][:n_dominant]
        return tuple((names[i], float(part[i])) for i in order if part[i] > 0)

    out = [Mode(0j, 0.0, np.nan, True, dominant(_shares(v)), dof, level)
           for dof, chain in enumerate(chains) for level, v in enumerate(chain)]
    # defective cluster: participation factors mean nothing, the right eigenvector alone
    out += [Mode(complex(lam[k]), float(abs(lam[k])), np.nan, True, dominant(_shares(V[:, k])))
            for k in alone]
    others = np.flatnonzero(~zero & (lam.imag >= 0))
    for k in others[np.argsort(np.abs(lam[others]), kind="stable")]:
        wn = float(abs(lam[k]))
        part = np.abs(V[:, k] * W[:, k].conj())
        total = part.sum()
        if not np.isfinite(total) or total <= 1e-200:
            part = _shares(V[:, k])  # underflowing: the right eigenvector alone
        else:
            part = part / total
        out.append(Mode(complex(lam[k]), wn, float(-lam[k].real / wn), False, dominant(part)))
    return ModalTable(tuple(out), getattr(sys, "name", "") or "")
