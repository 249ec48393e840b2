"""Bounds of μ type certified over frequency intervals, not only at grid points.

A D-G certificate found at one frequency ω₀ (``T`` with ``D = Tᴴ T`` commuting with Δ, and
``G̃`` Hermitian, zero on complex blocks) proves ``μ(Z(jω)) ≤ β`` wherever the Hermitian
matrix

    Φ(jω) = N(jω)ᴴ N(jω) + j(G̃ N(jω) − N(jω)ᴴ G̃) − β² I,    N = T Z T⁻¹,

is negative semidefinite. With T and G̃ **constant**, Φ is a para-Hermitian rational matrix
``Ψ~ Π Ψ`` with ``Ψ = [N; I]`` and ``Π = [[I, −jG̃], [jG̃, −β² I]]`` (for G̃ = 0 this is the
H∞ test ``σ̄(N(jω)) < β``). Its eigenvalues move continuously with ω, so between two
frequencies where ``det Φ(jω) = 0`` it keeps its sign; those frequencies are the
imaginary-axis generalised eigenvalues of the Rosenbrock pencil of a realisation of Φ
(poles of Φ are those of Z and their mirror images, never on the axis for a stable Z). So
``Φ(jω₀) < 0`` and the nearest crossings ``ω_lo < ω₀ < ω_hi`` certify the bound on the
whole open interval ``(ω_lo, ω_hi)`` (``ω_hi = ∞`` when there is no crossing above ω₀:
the interval then contains ω = ∞). :func:`cover` strings such intervals together over
``[0, ∞]``, computing fresh scalings where the grid's do not reach and raising β where the
grid missed a higher peak.

Numerics: a generalised eigenvalue counts as on the axis when ``|Re s| <= tol·max(|s|,
ρ)`` (ρ = 10⁻³·‖A‖, a scale for crossings near ω = 0); a spurious crossing only shortens
an interval. Each interval is then checked by evaluating Φ at 9 frequencies inside it (and
at 10³·ω₀, 10⁶·ω₀ and ∞ for an unbounded one); when a check fails the crossings are
recomputed with a 100× looser tolerance (10⁻⁶, 10⁻⁴, 10⁻²), and a region no tolerance
certifies is reported as not certified, never hidden. A candidate crossing ``ω_c`` where
``λ_max(Φ(jω_c)) + err < −10⁻⁶ β²`` is dropped (``det Φ(jω_c) = 0`` needs an eigenvalue
0, so ``λ_max ≥ 0`` there): spurious ones near ω = 0 otherwise block the interval.

Rounding: every sign test of ``λ_max(Φ)`` (at ω₀, at the probes, at dropped crossings) is
made on ``λ_max + err`` with ``err`` a bound on the rounding error of the computed
``λ_max`` (:func:`fdi_error`), so that a certificate never rests on the sign of a rounded
eigenvalue (with a huge G̃ it was decided by the BLAS kernel). First-order bounds, Frobenius
norms (which bound the 2-norms), n states, N channels, ε the unit roundoff: the solve
``X = (jωI − A)⁻¹ B`` is backward stable, so ``‖δX‖ ≤ n ε κ(jωI − A) ‖X‖`` and
``e_Z = (n + 2) ε ((n κ + 1) ‖C‖ ‖X‖ + ‖D‖)`` bounds the error of Z (0 at ω = ∞: Z = D,
the data); ``e_N = ‖T‖ ‖T⁻¹‖ e_Z + 2 (N + 1) ε ‖T‖ ‖Z‖ ‖T⁻¹‖`` that of N = T Z T⁻¹;
Φ then errs by ``(2‖N‖ + e_N + 2‖G̃‖) e_N`` from δN, by
``(N + 3) ε (‖N‖² + 2 ‖G̃‖ ‖N‖ + √N β²)`` from its own products and sums, and its
computed eigenvalue by ``4 N ε ‖Φ‖`` (backward-stable Hermitian eigensolver, Weyl); the sum
is doubled to cover the rounding of this estimate. The bound is normwise, so pessimistic
for badly conditioned T with a huge G̃: such scalings are refused, never trusted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla

from .blocks import Block
from .mu_upper import dg_batch
from .structure import MuStructure

__all__ = ["Certificate", "Scaling", "budgets", "complex_scaling", "cover", "diag_scaling",
           "fdi_error", "fdi_lambda", "padded_system", "scaled_interval"]

TOLS = (1e-6, 1e-4, 1e-2)  # on-axis tolerances tried in turn (module docstring)


@dataclass(frozen=True)
class Scaling:
    """Constant D-G scalings in normalised form: ``T`` (D = Tᴴ T), its inverse and G̃.

    Parameters
    ----------
    T, Ti : ndarray (N, N)
        The scaling and its inverse.
    Gt : ndarray (N, N)
        G̃, Hermitian (zero where the structure has complex blocks).
    """

    T: np.ndarray
    Ti: np.ndarray
    Gt: np.ndarray

    @staticmethod
    def from_dg(D: np.ndarray, G: np.ndarray) -> Scaling | None:
        """The normalised form of a certificate ``Zᴴ D Z + j(G Z − Zᴴ G) ≤ β² D``
        (None when D is not positive definite).

        Parameters
        ----------
        D, G : ndarray (N, N)
            The scalings, Hermitian, D > 0.
        """
        try:
            T = np.linalg.cholesky((D + D.conj().T) / 2).conj().T
        except np.linalg.LinAlgError:
            return None
        Ti = np.linalg.inv(T)
        return Scaling(T, Ti, Ti.conj().T @ G @ Ti)


def diag_scaling(x: np.ndarray, st) -> Scaling:
    """The :class:`Scaling` of diagonal D-G parameters (log d per AB13MD block, asinh g̃ per
    real one; :func:`titop_lpv.robust.mu_upper.dg_batch`).

    Parameters
    ----------
    x : ndarray (nd + nr,)
        The parameters.
    st : MuStructure
        The structure.
    """
    d = np.exp(np.clip(x[:st.nd] @ st.Pd.T, -60, 60))
    g = np.zeros(st.N)
    g[st.realpad] = np.sinh(np.clip(x[st.nd:], -200, 200))
    return Scaling(np.diag(d).astype(complex), np.diag(1 / d).astype(complex),
                   np.diag(g).astype(complex))


def complex_scaling(Z: np.ndarray, st: MuStructure, x0: np.ndarray | None = None,
                    iters: int = 30) -> tuple[float, Scaling]:
    """D-only scalings (G = 0: real parameters bounded as complex ones, a larger set of Δ, so
    a valid but conservative bound) of one padded matrix, and the bound σ̄(T Z T⁻¹) they give.
    They vary smoothly with ω (unlike the optimal G of real blocks), so their intervals are
    long where the bound has room below the level.

    Parameters
    ----------
    Z : ndarray (N, N)
        The zero-padded matrix.
    st : MuStructure
        The structure.
    x0 : ndarray, optional
        Diagonal parameters to start from (their log d part).
    iters : int, optional
        Quasi-Newton steps (default 30).
    """
    sc = MuStructure([Block(b.name, "complex" if b.kind == "real" else b.kind, b.rows, b.cols,
                            b.repeats) for b in st.blocks])
    ub, x = dg_batch(Z[None], sc, None if x0 is None else x0[None, :st.nd], iters=iters)
    return float(ub[0]), diag_scaling(np.r_[x[0, :st.nd], np.zeros(st.nr)], st)


@dataclass(frozen=True)
class Certificate:
    """Coverage of ``[0, ∞]`` by intervals on which a bound is proved.

    Attributes
    ----------
    level : float
        The certified bound (β for μ; for a gain, see the caller).
    intervals : ndarray (K, 2)
        Open intervals ``(lo, hi)`` [rad/s] (``lo = −1`` stands for "from ω = 0 included",
        ``hi = inf`` for "up to ω = ∞ included"), each certified by constant scalings.
    omega : ndarray (K,)
        The frequency at which each interval's scalings were computed.
    uncertified : ndarray (J, 2)
        Closed intervals where no certificate was found (empty when the bound holds at
        every frequency); the bound is then certified there at ``omega`` only.
    extra : ndarray
        Frequencies where fresh scalings (or a higher peak) were computed.
    """

    level: float
    intervals: np.ndarray
    omega: np.ndarray
    uncertified: np.ndarray
    extra: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def complete(self) -> bool:
        """True when the bound is proved at every frequency of ``[0, ∞]``."""
        return self.uncertified.size == 0


def padded_system(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray,
                  zpos: np.ndarray, wpos: np.ndarray, N: int):
    """The state-space matrices of the zero-padded ``Z(s)`` (``Z[zpos, wpos] = M``).

    Parameters
    ----------
    A, B, C, D : ndarray
        The realisation of ``M`` (``n_z × n_w``).
    zpos, wpos : ndarray
        Rows and columns of ``Z`` that receive the rows and columns of ``M``.
    N : int
        Size of ``Z``.

    Returns
    -------
    tuple of ndarray
        ``(A, Bz, Cz, Dz)``, complex.
    """
    n = A.shape[0]
    Bz, Cz = np.zeros((n, N), complex), np.zeros((N, n), complex)
    Dz = np.zeros((N, N), complex)
    Bz[:, wpos], Cz[zpos, :] = B, C
    Dz[np.ix_(zpos, wpos)] = D
    return np.asarray(A, complex), Bz, Cz, Dz


def fdi_lambda(sys, s: Scaling, beta: float, omega: np.ndarray) -> np.ndarray:
    """Largest eigenvalue of ``Φ(jω)`` (module docstring) at each frequency (``inf``: ω = ∞),
    as computed (:func:`fdi_error` bounds its rounding error).

    Parameters
    ----------
    sys : tuple of ndarray
        ``(A, B, C, D)`` of the padded ``Z(s)`` (:func:`padded_system`).
    s : Scaling
        The scalings.
    beta : float
        The level.
    omega : ndarray
        Frequencies [rad/s], ``inf`` allowed.
    """
    return _fdi(sys, s, beta, omega)[0]


def fdi_error(sys, s: Scaling, beta: float, omega: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``λ_max(Φ(jω))`` as computed and a bound on its rounding error: the exact
    ``λ_max`` lies within ``err`` of the computed one (module docstring, "Rounding").

    Parameters
    ----------
    sys : tuple of ndarray
        ``(A, B, C, D)`` of the padded ``Z(s)`` (:func:`padded_system`).
    s : Scaling
        The scalings.
    beta : float
        The level.
    omega : ndarray
        Frequencies [rad/s], ``inf`` allowed.

    Returns
    -------
    (ndarray, ndarray)
        ``lam`` and ``err``, one per frequency.
    """
    return _fdi(sys, s, beta, omega)


def _fdi(sys, s: Scaling, beta: float, omega) -> tuple[np.ndarray, np.ndarray]:
    """λ_max(Φ(jω)) and its error bound (:func:`fdi_error`)."""
    A, B, C, D = sys
    omega = np.asarray(omega, float).ravel()
    lam, err = np.empty(omega.size), np.empty(omega.size)
    Nn = D.shape[0]
    n = A.shape[0]
    eye = np.eye(Nn)
    eps = np.finfo(float).eps
    nT, nTi = np.linalg.norm(s.T), np.linalg.norm(s.Ti)  # Frobenius norms bound 2-norms
    nG = np.linalg.norm(s.Gt)
    for k, w in enumerate(omega):
        if not np.isfinite(w) or n == 0:
            Z, eZ = D, 0.0  # the data themselves: exact
        else:
            R = 1j * w * np.eye(n) - A
            X = np.linalg.solve(R, B)
            Z = C @ X + D
            sv = np.linalg.svd(R, compute_uv=False)
            kap = sv[0] / sv[-1] if sv[-1] > 0 else np.inf
            # backward-stable solve: ‖δX‖ <= n ε κ(R) ‖X‖ (first order); the products add
            # (n + 2) ε (‖C‖‖X‖ + ‖D‖)
            eZ = (n + 2) * eps * ((n * kap + 1) * np.linalg.norm(C) * np.linalg.norm(X) +
                                  np.linalg.norm(D))
        Nm = s.T @ Z @ s.Ti
        P = Nm.conj().T @ Nm + 1j * (s.Gt @ Nm - Nm.conj().T @ s.Gt) - beta ** 2 * eye
        P = (P + P.conj().T) / 2
        lam[k] = np.linalg.eigvalsh(P)[-1]
        nN = np.linalg.norm(Nm)
        # N = T Z T⁻¹: the error of Z scaled, plus the two products
        eN = nT * nTi * eZ + 2 * (Nn + 1) * eps * nT * np.linalg.norm(Z) * nTi
        # Φ from N: the perturbation of NᴴN + j(G̃N − NᴴG̃) by δN, the rounding of the
        # products and sums, and the backward error of the Hermitian eigensolver
        e = (2 * nN + eN + 2 * nG) * eN + \
            (Nn + 3) * eps * (nN ** 2 + 2 * nG * nN + np.sqrt(Nn) * beta ** 2) + \
            4 * Nn * eps * np.linalg.norm(P)
        err[k] = 2.0 * e if np.isfinite(e) else np.inf  # 2: the rounding of this estimate
    return lam, err


def budgets(N: int) -> dict[str, int]:
    """Budgets of :func:`cover` for padded matrices of size ``N``: the defaults up to
    N = 8, fewer above (each fresh or hard candidate costs about N³ per step).

    Parameters
    ----------
    N : int
        Size of the padded matrices.
    """
    f = min(1.0, 64.0 / max(N, 1) ** 2)
    return {"max_fresh": max(20, int(250 * f)), "max_hard": max(4, int(80 * f))}


def _crossings(sys, s: Scaling, beta: float, tol: float) -> np.ndarray:
    """Frequencies ≥ 0 where ``det Φ(jω)`` may vanish: on-axis eigenvalues of the pencil."""
    A, B, C, D = sys
    n, N = A.shape[0], D.shape[0]
    if n == 0:
        return np.zeros(0)
    Bh, Ch = B @ s.Ti, np.vstack([s.T @ C, np.zeros((N, n))])
    Dh = np.vstack([s.T @ D @ s.Ti, np.eye(N)])
    Pi = np.block([[np.eye(N), -1j * s.Gt], [1j * s.Gt, -beta ** 2 * np.eye(N)]])
    PC, PD = Pi @ Ch, Pi @ Dh
    AF = np.block([[A, np.zeros((n, n))], [-Ch.conj().T @ PC, -A.conj().T]])
    BF = np.vstack([Bh, -Ch.conj().T @ PD])
    CF = np.hstack([Dh.conj().T @ PC, Bh.conj().T])
    DF = Dh.conj().T @ PD
    P = np.block([[AF, BF], [CF, DF]])
    E = sla.block_diag(np.eye(2 * n), np.zeros((N, N)))
    with np.errstate(all="ignore"):
        z = sla.eigvals(P, E)
    z = z[np.isfinite(z)]
    rho = 1e-3 * max(np.linalg.norm(A, 2), 1e-300)
    z = z[np.abs(z.real) <= tol * np.maximum(np.abs(z), rho)]
    return np.sort(z.imag[z.imag >= -tol * rho].clip(0.0))


def scaled_interval(sys, beta: float, s: Scaling, w0: float) -> tuple[float, float] | None:
    """The open interval around ``w0`` on which the scalings prove ``μ ≤ beta`` (module
    docstring), or None (``Φ(j w0)`` not negative definite, or no tolerance verified).

    Parameters
    ----------
    sys : tuple of ndarray
        ``(A, B, C, D)`` of the padded ``Z(s)``.
    beta : float
        The level.
    s : Scaling
        Constant scalings.
    w0 : float
        The frequency [rad/s] the interval contains.

    Returns
    -------
    (float, float) or None
        ``(lo, hi)``; ``lo = −1`` when the interval reaches ω = 0 (included), ``hi = inf``
        when it reaches ω = ∞ (included).
    """
    lam, err = fdi_error(sys, s, beta, [w0])
    if not lam[0] + err[0] < 0:  # Φ(j w0) < 0 proved despite rounding
        return None
    for tol in TOLS:
        c = _crossings(sys, s, beta, tol)
        if c.size:  # det Φ(jc) = 0 needs λ_max(Φ(jc)) >= 0: drop clearly spurious ones
            lam, err = fdi_error(sys, s, beta, c)
            c = c[lam + err >= -1e-6 * beta ** 2]
        if np.any(np.abs(c - w0) <= 1e-12 * max(w0, 1e-300)):
            return None
        below, above = c[c < w0], c[c > w0]
        lo = float(below[-1]) if below.size else -1.0
        hi = float(above[0]) if above.size else np.inf
        a = max(lo, 0.0)
        if np.isfinite(hi):
            t = np.linspace(0.0, 1.0, 11)[1:-1]
            probe = a + t * (hi - a) if a == 0.0 or hi / a < 10 else a * (hi / a) ** t
        else:
            probe = np.r_[a + (np.linspace(0, 1, 8)[1:-1]) * (w0 - a),
                          max(w0, 1e-6) * np.array([10.0, 1e3, 1e6]), np.inf]
        if lo < 0:
            probe = np.r_[probe, 0.0]
        lam, err = fdi_error(sys, s, beta, probe)
        if np.all(lam + err < 0):
            return lo, hi
    return None


def cover(system: Callable[[float], tuple], omega: np.ndarray, level: float,
          grid_scaling: Callable[[int], Scaling | None],
          fresh: Callable[[float, float, bool], list[tuple[float, Scaling | None]]],
          raise_level: Callable[[float, float], float], rtol: float = 1e-6,
          max_steps: int = 400, max_fresh: int = 250, max_hard: int = 80) -> Certificate:
    """Cover ``[0, ∞]`` by intervals certified at a common level, left to right.

    At each uncovered frequency ``c`` the scalings of the next grid point are tried; if
    their interval does not contain ``c``, fresh scalings are computed at ``c`` itself; if
    the bound they prove at ``c`` is not below ``level / (1 + rtol/2)`` (the grid missed a
    higher peak, or ``c`` is close to one), the level is raised (a certificate at a level
    proves every larger level, so the intervals already found stay valid). The optimal G̃
    of real parameters is often huge (μ of real blocks is discontinuous), which makes Φ
    steep and the interval tiny: when the interval does not reach a tenth of the way to the
    next grid point, ``fresh`` is asked for harder candidates (e.g. scalings shared by
    several frequencies of ``[c, c + h]``), and the longest interval is kept. Keeping that
    headroom at ``c`` keeps the intervals from shrinking to nothing. Where no scalings give
    an interval around ``c``, the headroom is multiplied by 10 (up to 10⁻⁴) and they are
    tried again.

    Parameters
    ----------
    system : callable
        ``level -> (sys, beta)``: the padded ``Z(s)`` (:func:`padded_system`) and the
        level β of Φ that proves ``level`` (for μ, ``Z`` itself and ``beta = level``; for a
        gain γ, ``Z`` with its performance rows divided by γ and ``beta = 1``).
    omega : ndarray
        The sorted grid [rad/s].
    level : float
        Starting level (the largest bound on the grid, with a margin).
    grid_scaling : callable
        ``k -> Scaling`` of grid point ``k`` (None: none usable).
    fresh : callable
        ``(w, level, hard) -> iterable of (bound, Scaling)``: scalings computed at ``w`` (trying
        harder when the bound is not below ``level``) and the bound each certifies there,
        the best first (it decides whether the level is raised); the others (e.g. milder
        scalings, whose intervals can be longer) are tried too. ``hard``: the costlier
        candidates (consumed lazily, until one reaches the next grid point), asked for when
        the others do not reach a tenth of the way there.
    raise_level : callable
        ``(w, bound) -> new level`` when the bound at ``w`` is too close to the level (a
        local peak search; the new level must be at least ``bound · (1 + rtol)``).
    rtol : float, optional
        Relative headroom (default 1e-6; see above).
    max_fresh, max_hard : int, optional
        Budgets of ``fresh`` calls (default 250) and of hard ones (default 80): past them,
        the rest of ``[0, ∞]`` is reported as not certified (large structures with
        repeated real blocks, where each is costly), never silently skipped.
    max_steps : int, optional
        Intervals at most (default 400); what is left is reported as not certified. After
        every 30 intervals, and after every 4 raises of the level, the headroom ``rtol``
        is multiplied by 10 (at most 10⁻⁴), so that a long flat stretch of μ near the
        level (real parameters) costs few steps (measured: 120 raises, 49 s, on a balloon
        loop with 4 real parameters before the second rule).

    Returns
    -------
    Certificate
    """
    c, ints, ws, bad, extra = 0.0, [], [], [], []
    j, base, n_hard, n_raise = 0, level / (1 + rtol), 0, 0
    for step in range(max_steps):
        if step and step % 30 == 0 and rtol < 1e-4:
            rtol = min(10 * rtol, 1e-4)
            level = max(level, base * (1 + rtol))
        j = int(np.searchsorted(omega, c, side="left"))
        got = None
        for k in (j, j + 1):  # the grid point at or after c, then the next one
            if k < omega.size and (sc := grid_scaling(k)) is not None:
                iv = scaled_interval(*system(level), sc, float(omega[k]))
                if iv is not None and (iv[0] < c or (c == 0.0 and iv[0] < 0)) and \
                        (got is None or iv[1] > got[0][1]):
                    got = (iv, float(omega[k]))
        if got is None and len(extra) >= max_fresh:
            bad.append((c, np.inf))
            break
        if got is None:
            cands = fresh(c, level, False)
            extra.append(c)
            for _ in range(3):
                if cands[0][0] * (1 + rtol / 2) < level:
                    break
                n_raise += 1
                if n_raise % 4 == 0 and rtol < 1e-4:  # a flat μ near the level: more room
                    rtol = min(10 * rtol, 1e-4)
                level = max(raise_level(c, cands[0][0]), cands[0][0] * (1 + rtol))
                base = level / (1 + rtol)
                cands = fresh(c, level, False)
            iv, saved, hard = None, (level, rtol), False
            nxt_grid = float(omega[j]) if j < omega.size and omega[j] > c else \
                float(omega[j + 1]) if j + 1 < omega.size else np.inf
            while True:  # no interval: the harder candidates, more headroom (up to 10⁻⁴)
                seen = []
                for b, sc in cands:  # lazily: hard candidates can be costly
                    seen.append((b, sc))
                    r = scaled_interval(*system(level), sc, c) if sc is not None and \
                        b < level else None
                    if r is not None and (iv is None or r[1] > iv[1]):
                        iv = r
                    if hard and iv is not None and iv[1] >= nxt_grid:
                        break
                cands = seen
                if not hard and n_hard < max_hard and \
                        (iv is None or iv[1] - c < 0.1 * (nxt_grid - c)):
                    hard, cands, n_hard = True, fresh(c, level, True), n_hard + 1
                    continue
                if iv is not None or rtol >= 1e-4:
                    break
                rtol = min(10 * rtol, 1e-4)
                level = max(level, base * (1 + rtol))
            if iv is None:  # not certified around c: up to the next grid point
                level, rtol = saved
                nxt = float(omega[j + 1]) if omega[min(j, omega.size - 1)] <= c and \
                    j + 1 < omega.size else float(omega[j]) if j < omega.size else np.inf
                if nxt <= c:
                    nxt = np.inf
                bad.append((c, nxt))
                c = nxt
                if not np.isfinite(c):
                    break
                continue
            got = (iv, c)
        ints.append(got[0])
        ws.append(got[1])
        c = got[0][1]
        if not np.isfinite(c):
            break
    else:
        bad.append((c, np.inf))
    return Certificate(float(level), np.array(ints, float).reshape(-1, 2), np.array(ws, float),
                       np.array(bad, float).reshape(-1, 2), np.array(extra, float))
