"""Array kernels of the LFT layer: state-space matrices, static loop closure, the star
product on matrices, signal-name helpers.

Everything here works on :class:`ABCD` tuples of numpy arrays (real or complex) and knows
nothing about parameters; :mod:`titop_lpv.robust.lft` and :mod:`titop_lpv.robust.uss` build on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import control
import numpy as np

from ..exceptions import ShapeError, TitopError
from .checks import ArgumentTypeError, check_finite, tf_to_ss

__all__ = [
    "ABCD",
    "IllPosedError",
    "abcd_append",
    "blkdiag",
    "check_invertible",
    "close_static",
    "is_generic",
    "lft_upper_abcd",
    "star_abcd",
    "static_abcd",
    "to_abcd",
    "unique_names",
]

_EPS = np.finfo(float).eps
MAX_COND = 1e-3 / _EPS  # a loop matrix with a larger condition number is singular
_GENERIC = {p: re.compile(rf"^{p}\[\d+\]$") for p in "uyx"}


class IllPosedError(TitopError, ArithmeticError):
    """An LFT or interconnection is not well posed: ``I − D22 K_D`` (or a feedthrough that
    must be inverted) is singular."""


class ABCD(NamedTuple):
    """State-space matrices ``(A, B, C, D)``; a static matrix has ``A`` of shape (0, 0).

    Parameters
    ----------
    A : ndarray (n, n)
        State matrix.
    B : ndarray (n, m)
        Input matrix.
    C : ndarray (p, n)
        Output matrix.
    D : ndarray (p, m)
        Feedthrough.
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray

    @property
    def n(self) -> int:
        """Number of states."""
        return self.A.shape[0]

    @property
    def m(self) -> int:
        """Number of inputs."""
        return self.D.shape[1]

    @property
    def p(self) -> int:
        """Number of outputs."""
        return self.D.shape[0]


def static_abcd(D: Any) -> ABCD:
    """The :class:`ABCD` of a static gain ``D`` (2-D array, no states).

    Parameters
    ----------
    D : array_like
        The gain (a number or a 2-D array).
    """
    D = np.atleast_2d(np.asarray(D))
    p, m = D.shape
    return ABCD(np.zeros((0, 0)), np.zeros((0, m)), np.zeros((p, 0)), D)


def blkdiag(*mats: np.ndarray) -> np.ndarray:
    """Block-diagonal matrix of 2-D arrays (zero-sized blocks allowed).

    Parameters
    ----------
    *mats : ndarray
        The blocks, in order.

    Examples
    --------
    >>> blkdiag(np.eye(1), np.full((1, 2), 2.0))
    array([[1., 0., 0.],
           [0., 2., 2.]])
    """
    rows = sum(M.shape[0] for M in mats)
    cols = sum(M.shape[1] for M in mats)
    out = np.zeros((rows, cols), dtype=np.result_type(float, *mats))
    i = j = 0
    for M in mats:
        out[i : i + M.shape[0], j : j + M.shape[1]] = M
        i, j = i + M.shape[0], j + M.shape[1]
    return out


def abcd_append(*systems: ABCD) -> ABCD:
    """Block-diagonal (parallel, unconnected) combination: states, inputs and outputs are
    concatenated in argument order.

    Parameters
    ----------
    *systems : ABCD
        The systems.
    """
    return ABCD(*(blkdiag(*(s[k] for s in systems)) for k in range(4)))


def check_invertible(X: np.ndarray, what: str, max_cond: float = MAX_COND) -> None:
    """Raise :class:`IllPosedError` when the square matrix ``X`` is numerically singular.

    Parameters
    ----------
    X : ndarray
        Square matrix (may be empty).
    what : str
        Description of the operation, used in the message.
    max_cond : float, optional
        Largest condition number accepted (default ``1e-3/eps``).
    """
    if X.size and not np.all(np.isfinite(X)):
        raise IllPosedError(f"{what} is not well posed: the loop matrix I − D22·K has NaN or "
                            "infinite entries")
    if X.size and np.linalg.cond(X) > max_cond:
        raise IllPosedError(f"{what} is not well posed: the loop matrix I − D22·K is singular "
                            f"(condition number {np.linalg.cond(X):.3g})")


def close_static(sys: ABCD, K: Any, inputs: Sequence[int], outputs: Sequence[int], *,
                 what: str = "interconnection", max_cond: float = MAX_COND) -> ABCD:
    """Close the static loop ``u[inputs] = K y[outputs]`` (lower LFT with a constant ``K``).

    Parameters
    ----------
    sys : ABCD
        System matrices; real or complex.
    K : array_like
        Gain of shape ``(len(inputs), len(outputs))``; real or complex.
    inputs, outputs : sequence of int
        Indices of the inputs driven by ``K`` and of the outputs it reads.
    what : str, optional
        Description of the operation for the error message.
    max_cond : float, optional
        Largest condition number of ``I − D[outputs, inputs] K`` accepted (default
        ``1e-3/eps``).

    Returns
    -------
    ABCD
        The closed loop; its inputs and outputs are the remaining ones in their original order.

    Raises
    ------
    IllPosedError
        If ``I − D[outputs, inputs] K`` is singular.
    """
    A, B, C, D = sys
    ii, oo = np.asarray(inputs, dtype=int), np.asarray(outputs, dtype=int)
    K = np.asarray(K).reshape(len(ii), len(oo))
    ki = np.setdiff1d(np.arange(sys.m), ii)
    ko = np.setdiff1d(np.arange(sys.p), oo)
    X = np.eye(len(oo)) - D[np.ix_(oo, ii)] @ K
    check_invertible(X, what, max_cond)
    F = K @ np.linalg.solve(X, np.hstack([C[oo], D[np.ix_(oo, ki)]])) if len(oo) else (
        np.zeros((len(ii), sys.n + len(ki))))
    Fx, Fu = F[:, : sys.n], F[:, sys.n :]
    Bc, Dc = B[:, ii], D[np.ix_(ko, ii)]
    return ABCD(A + Bc @ Fx, B[:, ki] + Bc @ Fu, C[ko] + Dc @ Fx, D[np.ix_(ko, ki)] + Dc @ Fu)


def star_abcd(S1: ABCD, S2: ABCD, ny: int, nu: int, *, what: str = "star product") -> ABCD:
    """Redheffer star product of two state-space realisations (states ``[x1; x2]``).

    Parameters
    ----------
    S1, S2 : ABCD
        The two systems.
    ny : int
        Number of last outputs of ``S1`` fed to the first inputs of ``S2``.
    nu : int
        Number of last inputs of ``S1`` fed by the first outputs of ``S2``.
    what : str, optional
        Description of the operation for the error message.

    Returns
    -------
    ABCD
        Inputs ``[free inputs of S1; free inputs of S2]``, outputs likewise.
    """
    if not (0 <= ny <= min(S1.p, S2.m) and 0 <= nu <= min(S1.m, S2.p)):
        raise ShapeError(f"{what}: cannot connect {ny} outputs and {nu} inputs between a "
                         f"{S1.p}×{S1.m} and a {S2.p}×{S2.m} system (outputs × inputs)")
    S = abcd_append(S1, S2)
    ins = list(range(S1.m - nu, S1.m)) + list(range(S1.m, S1.m + ny))
    outs = list(range(S1.p - ny, S1.p)) + list(range(S1.p, S1.p + nu))
    K = np.zeros((nu + ny, ny + nu))
    K[:nu, ny:] = np.eye(nu)
    K[nu:, :ny] = np.eye(ny)
    return close_static(S, K, ins, outs, what=what)


def lft_upper_abcd(S: ABCD, Delta: Any, *, what: str = "upper LFT",
                   max_cond: float = MAX_COND) -> ABCD:
    """Upper LFT ``F_u(S, Δ)``: ``Δ`` closes the first inputs ``w`` of ``S`` with its first
    outputs ``z`` (``w = Δ z``). The one implementation behind
    :func:`titop_lpv.robust.lft.lft_upper`, the evaluation of uncertain systems and the
    robustness analyses.

    Parameters
    ----------
    S : ABCD
        The LFT, inputs ``[w; u]`` and outputs ``[z; y]``; real or complex.
    Delta : ABCD or array_like
        The uncertainty: a static matrix (``n_w × n_z``) or a system (``n_w`` outputs,
        ``n_z`` inputs).
    what : str, optional
        Description of the operation for the error message.
    max_cond : float, optional
        Largest condition number of ``I − D11 Δ`` accepted for a static Δ (default
        ``1e-3/eps``).

    Returns
    -------
    ABCD
        From ``u`` to ``y``, states ``[x_S; x_Δ]``.

    Raises
    ------
    IllPosedError
        If ``I − D11 Δ_D`` is singular.

    Examples
    --------
    ``M = [[0.5, 1], [1, 2]]`` closed by ``Δ = 1``: ``2 + 1·1·(1 − 0.5)⁻¹·1 = 4``.

    >>> lft_upper_abcd(static_abcd([[0.5, 1.0], [1.0, 2.0]]), [[1.0]]).D
    array([[4.]])
    """
    SD = Delta if isinstance(Delta, ABCD) else static_abcd(Delta)
    if SD.n == 0:  # L = Δ (I − D11 Δ)⁻¹ [C1, D12] closes w = Δ z on the leading channels
        K, (nw, nz), n = SD.D, SD.D.shape, S.n
        if nw > S.m or nz > S.p:
            raise ShapeError(f"{what}: Δ is {nw}×{nz} but the system has only {S.m} inputs "
                             f"and {S.p} outputs")
        A, B, C, D = S
        X = np.eye(nz) - D[:nz, :nw] @ K
        check_invertible(X, what, max_cond)
        F = K @ np.linalg.solve(X, np.hstack([C[:nz], D[:nz, nw:]])) if nz else \
            np.zeros((nw, n + S.m - nw))
        Fx, Fu = F[:, :n], F[:, n:]
        B1, D21 = B[:, :nw], D[nz:, :nw]
        return ABCD(A + B1 @ Fx, B[:, nw:] + B1 @ Fu, C[nz:] + D21 @ Fx, D[nz:, nw:] + D21 @ Fu)
    R = star_abcd(SD, S, SD.p, SD.m, what=what)
    perm = np.r_[SD.n : SD.n + S.n, 0 : SD.n]  # states [x_S; x_Δ]
    return ABCD(R.A[np.ix_(perm, perm)], R.B[perm], R.C[:, perm], R.D)


def unique_names(names: Sequence[str], prefix: str) -> list[str]:
    """Signal names made unique: python-control generic names (``u[3]``) are renumbered
    when all names are generic; otherwise a repeated name gets a suffix ``_2``, ``_3`` ...

    Parameters
    ----------
    names : sequence of str
        Candidate names.
    prefix : {"u", "y", "x"}
        Prefix of the generic names.
    """
    names = list(names)
    if all(_GENERIC[prefix].match(n) for n in names):
        return [f"{prefix}[{i}]" for i in range(len(names))]
    seen: set[str] = set()
    out = []
    for n in names:
        cand, k = n, 2
        while cand in seen:
            cand, k = f"{n}_{k}", k + 1
        seen.add(cand)
        out.append(cand)
    return out


def is_generic(names: Sequence[str], prefix: str) -> bool:
    """True when every name is a python-control default name such as ``u[0]``.

    Parameters
    ----------
    names : sequence of str
        The names.
    prefix : {"u", "y", "x"}
        Prefix of the default names.
    """
    return all(_GENERIC[prefix].match(n) for n in names)


def to_abcd(X: Any, what: str) -> tuple[ABCD, control.StateSpace | None]:
    """Matrices of a python-control LTI system, or of a static gain (number or 2-D array).

    Parameters
    ----------
    X : control.StateSpace, control.TransferFunction, array_like or number
        The operand.
    what : str
        Its name in error messages.

    Returns
    -------
    (ABCD, control.StateSpace or None)
        The matrices, and the state-space system (None for a static gain).

    Raises
    ------
    ArgumentTypeError
        A nonlinear system, or data that is not numeric.
    ArgumentError
        A NaN or infinite entry.
    ShapeError
        An array of more than two dimensions.
    """
    if isinstance(X, control.TransferFunction):
        X = tf_to_ss(X, what)
    if isinstance(X, control.StateSpace):
        for m, Y in zip("ABCD", (X.A, X.B, X.C, X.D)):
            check_finite(np.asarray(Y), f"{what}.{m}")
        return ABCD(X.A, X.B, X.C, X.D), X
    if isinstance(X, control.InputOutputSystem):
        raise ArgumentTypeError(f"{what}: only linear systems (StateSpace, TransferFunction) "
                                "are accepted")
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise ArgumentTypeError(f"{what}: expected a system, a number or a numeric array, "
                                f"got {type(X).__name__}")
    if arr.ndim > 2:
        raise ShapeError(f"{what}: a static gain must be a 2-D array, got shape {arr.shape}")
    return static_abcd(check_finite(arr, what)), None
