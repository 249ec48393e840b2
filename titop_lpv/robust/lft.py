"""Linear fractional transformations (LFTs), the Redheffer star product, LFT constructors
from affine and polynomial parameter dependence, and the reduction of δ channels.

Conventions (the same for matrices and for systems). A partitioned ``M`` maps
``[u1; u2]`` to ``[y1; y2]`` with ``M = [[M11, M12], [M21, M22]]``.

* lower LFT, ``K`` closes the *last* channels, ``u2 = K y2``::

      F_l(M, K) = M11 + M12 K (I − M22 K)⁻¹ M21

* upper LFT, ``Δ`` closes the *first* channels. With ``[z; y] = M [w; u]`` and ``w = Δ z``,
  ``y = F_u(M, Δ) u`` and::

      F_u(M, Δ) = M22 + M21 Δ (I − M11 Δ)⁻¹ M12

* Redheffer star product ``star(M1, M2, ny, nu)``: the last ``ny`` outputs of ``M1`` feed
  the first ``ny`` inputs of ``M2`` and the first ``nu`` outputs of ``M2`` feed the last
  ``nu`` inputs of ``M1``. Inputs of the result: the free inputs of ``M1`` then those of
  ``M2``; outputs likewise. ``F_l(M, K) = star(M, K, K.ninputs, K.noutputs)`` and
  ``F_u(M, Δ) = star(Δ, M, Δ.noutputs, Δ.ninputs)``.

For systems the interconnection is done on state-space matrices (no transfer functions);
an algebraic loop that is not well posed (``I − D22 K_D`` singular) raises
:class:`IllPosedError`. Signal names of python-control systems are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import control
import numpy as np

from ..exceptions import ShapeError
from .abcd import ABCD, IllPosedError, lft_upper_abcd, star_abcd, to_abcd, unique_names
from .atoms import UComplex, UReal, ureal
from .blocks import DeltaStructure, UncertaintyError
from .checks import ArgumentTypeError, check_count, check_real, numeric_array
from .interconnect import uncertain_star
from .ops import as_uss
from .reduction import lower_bounds, reduce_abcd
from .system import Uncertain
from .uss import USS

__all__ = [
    "IllPosedError",
    "affine_lft",
    "lft_lower",
    "lft_upper",
    "polynomial_lft",
    "reduce",
    "reduce_abcd",
    "repeat_bounds",
    "star",
]

_EPS = np.finfo(float).eps


def _labels(sys: control.StateSpace | None, kind: str, count: int) -> list[str]:
    if sys is None:
        return [f"{kind}[{i}]" for i in range(count)]
    return list({"u": sys.input_labels, "y": sys.output_labels, "x": sys.state_labels}[kind])


def _wrap(R: ABCD, systems: Sequence[control.StateSpace | None], inputs: list[str],
          outputs: list[str], states: list[str]) -> np.ndarray | control.StateSpace:
    present = [s for s in systems if s is not None]
    if not present:
        return R.D
    if any(np.iscomplexobj(M) and np.any(np.imag(M) != 0) for M in R):
        raise ArgumentTypeError("the result has complex matrices: python-control StateSpace "
                                "is real (use arrays for complex LFTs)")
    dt = present[0].dt
    for s in present[1:]:
        try:
            dt = control.iosys.common_timebase(dt, s.dt)
        except ValueError:
            raise UncertaintyError(f"incompatible timebases: dt = {present[0].dt} and "
                                   f"dt = {s.dt}") from None
    return control.ss(*(np.real(M) for M in R), dt, inputs=unique_names(inputs, "u"),
                      outputs=unique_names(outputs, "y"), states=unique_names(states, "x"))


def _uncertain_star(M1: Any, M2: Any, ny: int, nu: int, what: str) -> USS:
    """``star`` with an uncertain operand: the Δ channels of both stay free and the result
    is uncertain (:func:`~titop_lpv.robust.interconnect.uncertain_star` when ``M2`` is
    uncertain, which merges the Δ structures)."""
    if isinstance(M2, Uncertain) or not isinstance(M1, Uncertain):
        return uncertain_star(M1, M2, ny, nu, what)
    U = as_uss(M1)
    as_uss(M2)  # a typed error for what cannot be a system (an improper transfer function)
    SK, sK = to_abcd(M2, "M2")
    if ny > U.noutputs or nu > U.ninputs:
        raise ShapeError(f"{what}: {ny} outputs and {nu} inputs of the uncertain system are "
                         f"to be connected, it has {U.noutputs} outputs and {U.ninputs} inputs "
                         "(besides its Δ channels, which stay free)")
    R = star_abcd(U.abcd, SK, ny, nu, what=what)
    try:
        dt = U.dt if sK is None else control.iosys.common_timebase(U.dt, sK.dt)
    except ValueError:
        raise UncertaintyError(f"{what}: incompatible timebases dt = {U.dt} and "
                               f"dt = {sK.dt}") from None
    return USS._new(R, dt, U.delta, list(U.params.values()),
                    U.input_labels[: U.ninputs - nu] + _labels(sK, "u", SK.m)[ny:],
                    U.output_labels[: U.noutputs - ny] + _labels(sK, "y", SK.p)[nu:],
                    U.state_labels + _labels(sK, "x", SK.n), U.name)


def star(M1: Any, M2: Any, ny: int, nu: int) -> np.ndarray | control.StateSpace:
    """Redheffer star product of two matrices or two systems.

    Parameters
    ----------
    M1 : array_like or control.StateSpace or control.TransferFunction or USS
        The first operand (matrices may be complex; systems are real). An uncertain system
        (:class:`~titop_lpv.robust.uss.USS`, or a ``ureal``/``ucomplex``) is accepted here:
        its Δ channels stay free and the result is a USS with the same parameters.
    M2 : array_like or control.StateSpace or control.TransferFunction or USS
        The second operand; uncertain too if wanted (its Δ channels stay free as well, the
        blocks of a parameter present in both merged; MATLAB's ``lft`` of two ``uss``).
    ny : int
        Number of last outputs of ``M1`` connected to the first inputs of ``M2``.
    nu : int
        Number of last inputs of ``M1`` driven by the first outputs of ``M2``.

    Returns
    -------
    ndarray or control.StateSpace or USS
        A matrix when both operands are matrices, a USS when an operand is uncertain, else a
        system whose inputs are the free inputs of ``M1`` then of ``M2`` (names kept),
        outputs likewise, states ``[x1; x2]``.

    Raises
    ------
    ShapeError
        If the operands are too small for ``ny`` and ``nu``, or these are not integers
        ``>= 0``.
    IllPosedError
        If the interconnection is not well posed.
    """
    ny, nu = check_count(ny, "ny", error=ShapeError), check_count(nu, "nu", error=ShapeError)
    if isinstance(M1, Uncertain) or isinstance(M2, Uncertain):
        return _uncertain_star(M1, M2, ny, nu, "star")
    S1, s1 = to_abcd(M1, "M1")
    S2, s2 = to_abcd(M2, "M2")
    R = star_abcd(S1, S2, ny, nu)
    return _wrap(R, [s1, s2],
                 _labels(s1, "u", S1.m)[: S1.m - nu] + _labels(s2, "u", S2.m)[ny:],
                 _labels(s1, "y", S1.p)[: S1.p - ny] + _labels(s2, "y", S2.p)[nu:],
                 _labels(s1, "x", S1.n) + _labels(s2, "x", S2.n))


def lft_lower(M: Any, K: Any) -> np.ndarray | control.StateSpace:
    """Lower LFT ``F_l(M, K) = M11 + M12 K (I − M22 K)⁻¹ M21``.

    Parameters
    ----------
    M : array_like or control.StateSpace or control.TransferFunction or USS
        The partitioned matrix or system; its last ``K.noutputs`` inputs are driven by
        ``K`` and its last ``K.ninputs`` outputs feed ``K``. An uncertain system (USS) is
        accepted: for example a plant with uncertain parameters closed by a controller.
    K : array_like or control.StateSpace or control.TransferFunction or USS
        The closing matrix or system (for example a controller), possibly uncertain.

    Returns
    -------
    ndarray or control.StateSpace or USS
        The remaining channels of ``M`` (names kept), states ``[x_M; x_K]``; a USS with the
        parameters of both when one is uncertain.

    Raises
    ------
    ShapeError
        If ``K`` does not fit ``M``.
    IllPosedError
        If ``I − M22 K_D`` is singular.
    """
    if isinstance(M, Uncertain) or isinstance(K, Uncertain):
        Kd = as_uss(K)
        return _uncertain_star(M, K, Kd.ninputs, Kd.noutputs, "lft_lower")
    SM, sM = to_abcd(M, "M")
    SK, sK = to_abcd(K, "K")
    if SK.p > SM.m or SK.m > SM.p:
        raise ShapeError(f"lft_lower: K is {SK.p}×{SK.m} (outputs × inputs) but M is only "
                         f"{SM.p}×{SM.m}")
    R = star_abcd(SM, SK, SK.m, SK.p, what="lower LFT")
    return _wrap(R, [sM, sK], _labels(sM, "u", SM.m)[: SM.m - SK.p],
                 _labels(sM, "y", SM.p)[: SM.p - SK.m],
                 _labels(sM, "x", SM.n) + _labels(sK, "x", SK.n))


def lft_upper(M: Any, Delta: Any) -> np.ndarray | control.StateSpace:
    """Upper LFT ``F_u(M, Δ) = M22 + M21 Δ (I − M11 Δ)⁻¹ M12``.

    With ``[z; y] = M [w; u]`` and ``w = Δ z``, ``y = F_u(M, Δ) u``.

    Parameters
    ----------
    M : array_like or control.StateSpace or control.TransferFunction or USS
        The partitioned matrix or system; its first ``Δ.noutputs`` inputs are ``w`` and its
        first ``Δ.ninputs`` outputs are ``z``.
    Delta : array_like or control.StateSpace or control.TransferFunction or USS
        The uncertainty (matrix or system), mapping ``z`` to ``w``; an uncertain one
        (``ultidyn``, ``ureal``, a USS) gives a USS, as MATLAB's ``lft(Delta, M)``.

    Returns
    -------
    ndarray or control.StateSpace or USS
        The remaining channels of ``M`` (names kept), states ``[x_M; x_Δ]``.

    Raises
    ------
    ShapeError
        If ``Δ`` does not fit ``M``.
    IllPosedError
        If ``I − M11 Δ_D`` is singular.

    Examples
    --------
    A gain ``2`` with an uncertain additive term: ``M = [[0, 1], [1, 2]]`` closed by
    ``Δ = 0.5`` gives ``2 + 0.5``.

    >>> lft_upper(np.array([[0.0, 1.0], [1.0, 2.0]]), np.array([[0.5]]))
    array([[2.5]])
    """
    if isinstance(M, Uncertain) or isinstance(Delta, Uncertain):
        D = as_uss(Delta)
        return _uncertain_star(Delta, M, D.noutputs, D.ninputs, "lft_upper")
    SM, sM = to_abcd(M, "M")
    SD, sD = to_abcd(Delta, "Delta")
    if SD.p > SM.m or SD.m > SM.p:
        raise ShapeError(f"lft_upper: Delta is {SD.p}×{SD.m} (outputs × inputs) but M is only "
                         f"{SM.p}×{SM.m}")
    R = lft_upper_abcd(SM, SD)  # states [x_M; x_Δ]
    return _wrap(R, [sM, sD], _labels(sM, "u", SM.m)[SD.p :], _labels(sM, "y", SM.p)[SD.m :],
                 _labels(sM, "x", SM.n) + _labels(sD, "x", SD.n))


# ---------------------------------------------------------------- constructors


def _factor(X: np.ndarray, tol: float | None) -> tuple[np.ndarray, np.ndarray]:
    """``X = L R`` with ``L`` (p×r), ``R`` (r×q), r the numerical rank (SVD)."""
    if X.size == 0:
        return np.zeros((X.shape[0], 0)), np.zeros((0, X.shape[1]))
    U, s, Vh = np.linalg.svd(X)
    rtol = max(X.shape) * _EPS if tol is None else tol
    r = int(np.sum(s > rtol * s[0])) if s[0] > 0 else 0
    root = np.sqrt(s[:r])
    return U[:, :r] * root, root[:, None] * Vh[:r]


def _check_terms(terms: Any, tol: Any) -> None:
    if not isinstance(terms, Mapping):
        raise UncertaintyError(f"terms must be a mapping {{parameter: coefficient}}, got "
                               f"{type(terms).__name__} {terms!r:.60}")
    if tol is not None:
        check_real(tol, "tol", minimum=0.0)


def _parameter(key: Any) -> Any:
    if isinstance(key, str):
        return ureal(key, 0.0, range=(-1.0, 1.0))
    if isinstance(key, (UReal, UComplex)):
        return key
    raise UncertaintyError(f"a parameter key must be a name or a ureal/ucomplex, got {key!r}")


def _big(M0: Any) -> tuple[np.ndarray, int, control.StateSpace | None]:
    S, sys = to_abcd(M0, "M0")
    return np.block([[S.A, S.B], [S.C, S.D]]), S.n, sys


def _term(X: Any, shape: tuple[int, int], n: int, name: str) -> np.ndarray:
    if isinstance(X, (control.StateSpace, control.TransferFunction)):
        S, _ = to_abcd(X, name)
        X = np.block([[S.A, S.B], [S.C, S.D]])
    elif isinstance(X, tuple) and len(X) == 4:
        m, p = shape[1] - n, shape[0] - n
        parts = [np.zeros(s) if x is None else
                 np.atleast_2d(numeric_array(x, f"coefficient of {name!r}", dtype=float))
                 for x, s in zip(X, [(n, n), (n, m), (p, n), (p, m)])]
        if any(a.shape != s for a, s in zip(parts, [(n, n), (n, m), (p, n), (p, m)])):
            raise ShapeError(f"coefficient of {name!r}: (A, B, C, D) shapes "
                             f"{[a.shape for a in parts]} do not match M0 ({n} states, "
                             f"{m} inputs, {p} outputs)")
        X = np.block([[parts[0], parts[1]], [parts[2], parts[3]]])
    X = np.atleast_2d(numeric_array(X, f"coefficient of {name!r}", dtype=float))
    if X.shape != shape:
        raise ShapeError(f"coefficient of {name!r} has shape {X.shape}, M0 has shape {shape}"
                         + (" ([[A, B], [C, D]])" if n else ""))
    return X


def _assemble(N: np.ndarray, nw: int, nz: int, n: int) -> ABCD:
    """System from a static LFT matrix with inputs ``[w; x; u]`` and outputs
    ``[z; ẋ; y]`` (states closed by integrators)."""
    ri = np.r_[0:nz, nz + n : N.shape[0]]
    ci = np.r_[0:nw, nw + n : N.shape[1]]
    xs_r, xs_c = np.arange(nz, nz + n), np.arange(nw, nw + n)
    return ABCD(N[np.ix_(xs_r, xs_c)], N[np.ix_(xs_r, ci)], N[np.ix_(ri, xs_c)], N[np.ix_(ri, ci)])


def _finish(R: ABCD, blocks: list, params: list, sys0: control.StateSpace | None,
            inputs: Sequence[str] | None, outputs: Sequence[str] | None,
            states: Sequence[str] | None, name: str | None) -> USS:
    nw = sum(b.nw for b in blocks)
    nz = sum(b.nz for b in blocks)
    m, p = R.m - nw, R.p - nz
    G = USS._new(R, None if sys0 is None else sys0.dt, DeltaStructure(tuple(blocks)), params,
                 _labels(sys0, "u", m), _labels(sys0, "y", p), _labels(sys0, "x", R.n), None)
    return G.rename(inputs=inputs, outputs=outputs, states=states, name=name)


def affine_lft(M0: Any, terms: Mapping[Any, Any], *, inputs: Sequence[str] | None = None,
               outputs: Sequence[str] | None = None, states: Sequence[str] | None = None,
               name: str | None = None, tol: float | None = None) -> USS:
    """Uncertain matrix or system affine in its parameters, ``M(p) = M0 + Σ p_i M_i``.

    Each parameter enters as ``p_i = c_i + s_i δ_i`` (see :func:`titop_lpv.robust.uss.ureal`),
    so ``M = (M0 + Σ c_i M_i) + Σ δ_i (s_i M_i)``. Each ``s_i M_i`` is factorised by SVD as
    ``L_i R_i`` with ``r_i = rank(M_i)`` columns, and the LFT is ``M = F_u(N, Δ)`` with
    ``Δ = diag(δ_i I_{r_i})``, ``N = [[0, R], [L, M0 + Σ c_i M_i]]``: the repetitions are
    the coefficient ranks, the minimum for an affine dependence.

    Parameters
    ----------
    M0 : array_like or control.StateSpace
        Constant term: a matrix (static result) or a system; for a system the dependence is
        affine in the whole matrix ``[[A, B], [C, D]]``.
    terms : mapping
        ``{parameter: M_i}``. A parameter is a :func:`~titop_lpv.robust.uss.ureal` or
        :func:`~titop_lpv.robust.uss.ucomplex` (``M_i`` multiplies its physical value) or a
        name (``M_i`` multiplies a normalised real ``δ ∈ [−1, 1]`` with nominal 0). ``M_i``
        has the shape of ``M0``; for a system, ``M_i`` is a StateSpace, an
        ``(A_i, B_i, C_i, D_i)`` tuple (None for a zero matrix) or the matrix
        ``[[A_i, B_i], [C_i, D_i]]``.
    inputs, outputs, states : sequence of str, optional
        Signal names (default: those of ``M0`` if it is a system, else ``u[i]``, ``y[i]``).
    name : str, optional
        Name of the result.
    tol : float, optional
        Singular values below ``tol·σ_max`` of a coefficient are discarded (default
        ``max(shape)·eps``).

    Returns
    -------
    USS
        The uncertain system; ``G.delta`` has one real (or complex) block per parameter with
        ``repeats = rank(M_i)`` (parameters with a zero coefficient are left out).

    Raises
    ------
    ShapeError
        If a coefficient's shape differs from ``M0``'s (the message names the parameter).
    UncertaintyError
        If a parameter appears twice or a key is not a parameter.
    """
    _check_terms(terms, tol)
    N0, n, sys0 = _big(M0)
    centre = N0.astype(float).copy()
    blocks, params, Ls, Rs, seen = [], [], [], [], set()
    for key, Mi in terms.items():
        atom = _parameter(key)
        if atom.name in seen:
            raise UncertaintyError(f"parameter {atom.name!r} appears twice in terms")
        seen.add(atom.name)
        Xi = _term(Mi, N0.shape, n, atom.name)
        c, s = atom.affine()
        centre += c * Xi
        L, R = _factor(s * Xi, tol)
        if L.shape[1]:
            blocks.append(atom.block(L.shape[1]))
            params.append(atom)
            Ls.append(L)
            Rs.append(R)
    r = sum(L.shape[1] for L in Ls)
    L = np.hstack(Ls) if Ls else np.zeros((N0.shape[0], 0))
    R = np.vstack(Rs) if Rs else np.zeros((0, N0.shape[1]))
    N = np.block([[np.zeros((r, r)), R], [L, centre]])
    return _finish(_assemble(N, r, r, n), blocks, params, sys0, inputs, outputs, states, name)


def polynomial_lft(M0: Any, terms: Mapping[Any, Any], *, inputs: Sequence[str] | None = None,
                   outputs: Sequence[str] | None = None, states: Sequence[str] | None = None,
                   name: str | None = None, tol: float | None = None,
                   reduce_channels: bool = True) -> USS:
    """Uncertain matrix or system polynomial in its parameters,
    ``M(p) = M0 + Σ_k p_{k1} p_{k2} ⋯ M_k``.

    Each coefficient is factorised by SVD, ``M_k = L_k R_k`` (``r_k = rank M_k``), and the
    monomial is built as the product ``L_k (p_{k1} I_{r_k}) (p_{k2} I_{r_k}) ⋯ R_k`` of
    uncertain systems; so a monomial of degree ``d`` uses ``d·r_k`` repetitions before the
    optional :func:`reduce`.

    Parameters
    ----------
    M0 : array_like or control.StateSpace
        Constant term (matrix, or system: dependence of ``[[A, B], [C, D]]``).
    terms : mapping
        ``{monomial: M_k}``; a monomial is a parameter (ureal, ucomplex or a name, as in
        :func:`affine_lft`) or a tuple of parameters, repeated for powers:
        ``{("k", "k"): M2, "k": M1}`` is ``M1 k + M2 k²``.
    inputs, outputs, states : sequence of str, optional
        Signal names (default: those of ``M0`` if it is a system, else ``u[i]``, ``y[i]``).
    name : str, optional
        Name of the result.
    tol : float, optional
        Relative rank tolerance of the SVD factorisation (default ``max(shape)·eps``).
    reduce_channels : bool, optional
        Apply :func:`reduce` to the result (default True).

    Returns
    -------
    USS
        The uncertain system.

    Raises
    ------
    ShapeError
        If a coefficient's shape differs from ``M0``'s.
    UncertaintyError
        If two parameters with the same name have different specifications.
    """
    _check_terms(terms, tol)
    N0, n, sys0 = _big(M0)
    total = as_uss(N0)
    for key, Mk in terms.items():
        mono = key if isinstance(key, tuple) else (key,)
        atoms = [_parameter(k) for k in mono]
        Xk = _term(Mk, N0.shape, n, "*".join(a.name for a in atoms))
        L, R = _factor(Xk, tol)
        if L.shape[1] == 0:
            continue
        term = as_uss(L)
        for a in atoms:
            term = term @ (a * np.eye(L.shape[1]))
        total = total + term @ R
    if reduce_channels:
        total = reduce(total)[0]
    S = total.abcd
    nw, nz = total.delta.nw, total.delta.nz
    N = np.block([[S.A, S.B], [S.C, S.D]])  # no states: N == D
    return _finish(_assemble(N, nw, nz, n), list(total.delta.blocks),
                   list(total.params.values()), sys0, inputs, outputs, states, name)


# ---------------------------------------------------------------- reduction


def reduce(G: Any, tol: float = 1e-10) -> tuple[USS, dict[str, tuple[int, int]]]:
    """Remove δ channels that are uncontrollable or unobservable, parameter by parameter.

    For each repeated scalar block ``δ_i I_{r_i}`` the LFT, seen as a function of ``δ_i``
    alone, is the 1-D system ``(A_i, B_i, C_i) = (M[z_i, w_i], M[z_i, rest], M[rest, w_i])``
    (every other channel — states, other δ's, performance signals — counts as an input or
    output): ``δ_i`` plays the part of ``1/s``. Its Kalman decomposition, with an orthogonal
    change of basis (which commutes with ``δ_i I``), keeps only the controllable and
    observable part. Blocks are visited repeatedly until none shrinks.

    Guarantees: the reduced LFT equals the original one for every value of every δ (real or
    complex) and every ``s`` where the original is well posed, up to rounding of orthogonal
    transformations; on exit each scalar block's 1-D realisation is controllable and
    observable within ``tol`` (1-D minimal in that parameter). It is *not* guaranteed to be
    minimal as a multidimensional realisation (no polynomial-time test exists in general);
    full (``ultidyn``) blocks and the states are left as they are.

    Parameters
    ----------
    G : USS or convertible
        The uncertain system.
    tol : float, optional
        Relative rank tolerance (times ``max(1, ‖M‖₂)``), default 1e-10.

    Returns
    -------
    (USS, dict)
        The reduced system (same signal names; a parameter whose channels all vanish is
        dropped) and ``{name: (repeats_before, repeats_after)}`` for every block.
    """
    tol = check_real(tol, "tol", minimum=0.0)
    G = as_uss(G)
    blocks = G.delta.blocks
    R, sizes = reduce_abcd(G.abcd, [(b.kind, b.nw, b.nz) for b in blocks], tol)
    new_blocks, params, report = [], [], {}
    for b, nw in zip(blocks, sizes):
        reps = b.repeats if b.kind == "full" else nw
        report[b.name] = (b.repeats, reps)
        if reps:
            new_blocks.append(b.with_repeats(reps))
            params.append(G.params[b.name])
    out = USS._new(R, G.dt, DeltaStructure(tuple(new_blocks)), params, G.input_labels,
                   G.output_labels, G.state_labels, G.name)
    return out, report


def repeat_bounds(G: Any, *, samples: int = 3, seed: int = 0, tol: float = 1e-10
                  ) -> dict[str, int]:
    """Per block, a repetition count that no LFT of the same uncertain system can go below.

    With every other block fixed at a value, ``G`` is a rational function of ``δ_i`` alone;
    any LFT holding ``δ_i`` ``r`` times then gives a realisation of that function of order
    ``r``, so ``r`` is at least its McMillan degree (the size of a minimal 1-D realisation,
    ``δ_i`` playing ``1/s``; states, inputs and outputs are kept as they are). The bound is
    the largest degree found over ``samples`` seeded values of the other blocks. When it
    equals the block's repetitions (after :func:`reduce`), that block is as small as it can
    be; when it is lower, a smaller LFT may or may not exist (the parameters commute, which
    the reduction does not use).

    Parameters
    ----------
    G : USS or convertible
        The uncertain system.
    samples : int, optional
        Values of the other blocks tried per block (default 3; normalised, uniform in
        [−1, 1]; full blocks random matrices of norm 0.5).
    seed : int, optional
        Seed of those values.
    tol : float, optional
        Relative rank tolerance (times the 2-norm of the LFT matrix, evened out by powers
        of 2 first), default 1e-10.

    Returns
    -------
    dict of str to int
        ``{name: least repetitions}`` for every block (a full block: its own size).

    Examples
    --------
    >>> import titop_lpv as tl
    >>> k = tl.ureal("k", 2.0, percent=10)
    >>> tl.repeat_bounds(k * k + k), tl.reduce_lft(k * k + k)[1]
    ({'k': 2}, {'k': (3, 2)})
    """
    samples = check_count(samples, "samples", minimum=1)
    seed = check_count(seed, "seed")
    tol = check_real(tol, "tol", minimum=0.0)
    G = as_uss(G)
    blocks = G.delta.blocks
    least = lower_bounds(G.abcd, [(b.kind, b.nw, b.nz) for b in blocks], samples=samples,
                         seed=seed, tol=tol)
    return {b.name: (b.repeats if b.kind == "full" else int(r))
            for b, r in zip(blocks, least)}
