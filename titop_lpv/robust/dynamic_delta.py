"""A stable LTI Δ(s) that has a given complex value Δ_c at one frequency ω_c and the same
structured norm at every frequency: the dynamic worst case behind a complex destabilising
Δ (``ultidyn``, ``ucomplex``), checked by the poles of the real closed loop.

Each complex number ``z = r e^{jφ}`` is the value at ``jω_c`` of a real first-order
all-pass times ``r``: ``r (α − s)/(α + s)`` has phase ``−2 atan(ω_c/α)`` ∈ (−π, 0), its
negative covers (0, π), a constant covers 0 and π. A full block ``Δ₀ = σ u vᴴ`` of rank one
becomes ``σ u(s) v(s)ᵀ`` with one all-pass per entry of ``u`` and of ``v̄``, so that
``‖Δ(jω)‖ = σ`` at every ω (all-pass entries keep their modulus); complex scalars become
``δ(s) I``; real ones stay static.
"""

from __future__ import annotations

from typing import Any

import control
import numpy as np

from .structure import MuStructure

__all__ = ["allpass", "dynamic_delta", "loop_poles"]


def allpass(z: complex, omega: float) -> control.StateSpace:
    """A stable real system of order ≤ 1 with value ``z`` at ``j omega`` and gain ``|z|`` at
    every frequency.

    Parameters
    ----------
    z : complex
        The value.
    omega : float
        The frequency [rad/s], > 0 (a complex value at ω = 0 has no real realisation).

    Returns
    -------
    control.StateSpace

    Examples
    --------
    >>> a = allpass(1j, 2.0)
    >>> bool(abs(a(2j) - 1j) < 1e-12)
    True
    """
    r, phi = abs(z), float(np.angle(z))
    if r == 0.0 or abs(np.sin(phi)) <= 1e-14:
        return control.ss([], [], [], [[float(np.real(z)) if r else 0.0]])
    if phi < 0:  # r (α − s)/(α + s), phase −2 atan(ω/α) = φ
        alpha, sign = omega / np.tan(-phi / 2), 1.0
    else:  # −r (α − s)/(α + s), phase π − 2 atan(ω/α) = φ
        alpha, sign = omega / np.tan((np.pi - phi) / 2), -1.0
    # (α − s)/(α + s) = −1 + 2α/(s + α)
    return control.ss([[-alpha]], [[1.0]], [[2 * alpha * sign * r]], [[-sign * r]])


def dynamic_delta(delta: np.ndarray, blocks: Any, omega: float,
                  rank_tol: float = 1e-8) -> control.StateSpace | None:
    """The stable LTI Δ(s) of the module docstring, or None (ω = 0, or a full block whose
    value is not of rank one within ``rank_tol``).

    Parameters
    ----------
    delta : ndarray (n_w, n_z)
        The complex Δ at ``omega``, of the structure.
    blocks : DeltaStructure or sequence
        The structure.
    omega : float
        The frequency [rad/s].
    rank_tol : float, optional
        A full block is rank one when σ₂ ≤ rank_tol · σ₁ (default 1e-8).

    Returns
    -------
    control.StateSpace or None
        ``n_w`` outputs (w), ``n_z`` inputs (z); ``Δ(j omega) = delta``.
    """
    st = MuStructure(blocks)
    if not omega > 0:
        return None
    parts = []
    for b, copies in zip(st.blocks, st.copies):
        for wi, zi in copies:
            D0 = np.asarray(delta)[np.ix_(wi, zi)]
            if b.kind == "real":
                sub = control.ss([], [], [], [[float(np.real(D0[0, 0]))]])
            elif b.kind == "complex":
                sub = allpass(complex(D0[0, 0]), omega)
            else:
                U, s, Vh = np.linalg.svd(D0)
                if s.size > 1 and s[1] > rank_tol * max(s[0], 1e-300):
                    return None
                u, v = U[:, 0] * s[0], Vh[0]  # D0 = u v (v a row)
                col = control.append(*[allpass(x, omega) for x in u]) if u.size > 1 else \
                    allpass(u[0], omega)
                row = control.append(*[allpass(x, omega) for x in v]) if v.size > 1 else \
                    allpass(v[0], omega)
                ones_r = np.ones((b.rows, 1))
                ones_c = np.ones((1, b.cols))
                sub = control.series(row, control.ss([], [], [], ones_c),
                                     control.ss([], [], [], ones_r), col)
            parts.append(sub)
    return control.append(*parts) if len(parts) > 1 else parts[0]


def loop_poles(A: np.ndarray, B1: np.ndarray, C1: np.ndarray, D11: np.ndarray,
               delta_sys: control.StateSpace) -> np.ndarray | None:
    """Poles of the loop ``ẋ = A x + B1 w``, ``z = C1 x + D11 w`` closed by ``w = Δ(s) z``
    (None when ``I − D_Δ D11`` is singular).

    Parameters
    ----------
    A, B1, C1, D11 : ndarray
        The Δ-channel part of the LFT matrix.
    delta_sys : control.StateSpace
        Δ(s), ``n_w × n_z``.

    Returns
    -------
    ndarray or None
    """
    Ad, Bd, Cd, Dd = (np.atleast_2d(np.asarray(getattr(delta_sys, m), float)) for m in "ABCD")
    nd = delta_sys.nstates
    Ad, Bd, Cd = Ad.reshape(nd, nd), Bd.reshape(nd, -1), Cd.reshape(-1, nd)
    E = np.eye(Dd.shape[0]) - Dd @ D11
    if np.linalg.cond(E) > 1e12:
        return None
    Wx, Wd = np.linalg.solve(E, Dd @ C1), np.linalg.solve(E, Cd)
    Acl = np.block([[A + B1 @ Wx, B1 @ Wd], [Bd @ (C1 + D11 @ Wx), Ad + Bd @ D11 @ Wd]])
    return np.linalg.eigvals(Acl)
