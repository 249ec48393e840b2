"""Structured singular value μ of complex matrices: bounds, certificates, frequency sweeps.

``M`` is ``n_z × n_w`` and the loop is closed by ``w = Δ z``: μ(M) is the inverse of the
smallest structured norm of a Δ with ``det(I − M Δ) = 0`` (0 if there is none). Δ is block
diagonal in the order of the blocks, each ``(kind, rows, cols, repeats)``:

* ``"real"``: δ I_repeats, δ real (rows = cols = 1); ``"complex"``: δ I_repeats, δ complex;
* ``"full"``: I_repeats ⊗ Δ₀, Δ₀ a complex ``rows × cols`` matrix (w-side rows, z-side cols).

The structured norm is the largest ``|δ|`` or σ̄(Δ₀) over the blocks: real δ are normalised
to [−1, 1], complex blocks to norm ≤ 1.

Upper bound (:func:`mu_upper`): SLICOT ``AB13MD`` (Fan, Tits & Doyle, IEEE TAC 1991: D and
G scalings), which accepts 1×1 real blocks and square full complex blocks only. Repeated
blocks are given to it as independent copies (a larger set of Δ, so a valid but conservative
bound: diagonal instead of full D, G); non-square full blocks are zero-padded (μ unchanged).
When blocks are repeated, full-block scalings (D = Tᴴ T, G̃ Hermitian on each repeated
block) are first optimised here and AB13MD runs on ``S M S⁻¹`` (S = Uᴴ T commutes with Δ,
so μ is unchanged), warm-started; above a padded size of 16 with repeated blocks
AB13MD is skipped (seconds per call, no better than those scalings). Every bound is
certified by the D, G returned:
``Mᴴ D M + j(G M − Mᴴ G) ≤ β² D``. Over frequency grids the same certificate is minimised
by a batched quasi-Newton method (any D > 0, G gives a valid bound) and AB13MD runs at the
peak only.

Lower bound (:func:`mu_lower`): power iteration (Packard–Doyle for complex blocks, a
continuous real update in the spirit of Young–Doyle for real ones), a Newton projection
that makes the eigenvalue of M Δ real, then a local optimisation (SLSQP: smallest
structured norm subject to ``det(I − M Δ) = 0``). Every lower bound is attained by the Δ
returned with it, and verified.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import control
import numpy as np
import scipy.linalg as sla
from scipy import optimize

from ..plots import plot_mu
from .blocks import Block, StructureError, as_blocks
from .certify import (
    Scaling,
    budgets,
    complex_scaling,
    cover,
    diag_scaling,
    fdi_lambda,
    padded_system,
)
from .checks import (
    ArgumentError,
    ArgumentTypeError,
    check_count,
    check_finite,
    check_seed,
    tf_to_ss,
)
from .frequency import check_omega
from .mu_lower import lower_batch, mu_lower
from .mu_upper import (
    AB13MD_MAX_N,
    dg_batch,
    dg_common,
    dg_init,
    full_scalings,
    mu_upper,
    pow2_scale,
    scaled_matrices,
    upper_bound,
)
from .structure import MuBound, MuStructure, block_values, structured_norm

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Block", "MuBound", "MuResult", "StructureError", "as_blocks", "block_values",
           "freqresp", "mu_lower", "mu_sweep", "mu_upper", "real_frequencies",
           "structured_norm"]


# --------------------------------------------------------------------------- sweeps
def freqresp(sys: Any, omega: Sequence[float] | np.ndarray) -> np.ndarray:
    """Frequency response ``C (jω I − A)⁻¹ B + D`` of a state-space system, as an array
    (n_omega, n_out, n_in).

    Parameters
    ----------
    sys : control.StateSpace or ABCD
        Any object with the attributes ``A``, ``B``, ``C``, ``D`` (continuous time).
    omega : array_like
        Frequencies [rad/s].

    Returns
    -------
    ndarray (n_omega, n_out, n_in), complex
    """
    A, B, C, D = (np.asarray(getattr(sys, m), float) for m in "ABCD")
    omega = np.asarray(omega, float).ravel()
    out = np.empty((omega.size, D.shape[0], D.shape[1]), complex)
    for k in range(0, omega.size, 64):
        w = omega[k:k + 64]
        X = np.linalg.solve(1j * w[:, None, None] * np.eye(A.shape[0]) - A,
                            np.broadcast_to(B, (w.size, *B.shape))) if A.size else 0.0
        out[k:k + 64] = C @ X + D if A.size else D
    return out


def real_frequencies(A: np.ndarray, B: np.ndarray, C: np.ndarray,
                     tol: float = 1e-6) -> np.ndarray:
    """Frequencies ω ≥ 0 [rad/s] where a SISO ``g(jω) = C (jω I − A)⁻¹ B (+ D)`` is real: the
    imaginary-axis zeros of ``h(s) = g(s) − g(−s)``, realised as ``(diag(A, −A), [B; B],
    [C, C], 0)``, from the generalised eigenvalues of its Rosenbrock pencil. With one real
    scalar uncertainty, μ is nonzero only there, so a grid alone misses it.

    Parameters
    ----------
    A : ndarray (n, n)
        State matrix (no eigenvalue on the imaginary axis).
    B : ndarray (n, 1)
        Input matrix.
    C : ndarray (1, n)
        Output matrix.
    tol : float, optional
        A zero ``s`` is on the axis when ``|Re s| <= tol · max(1, |s|)`` (default 1e-6;
        a spurious one only adds a frequency).

    Returns
    -------
    ndarray
        Sorted unique frequencies (empty without states or when ``g`` is constant).

    Examples
    --------
    ``1/(s + 1)³`` is real at ω = 0 and where its phase is −180°, ω = √3:

    >>> A = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, -3.0, -3.0]])
    >>> np.round(real_frequencies(A, np.array([[0.0], [0.0], [1.0]]),
    ...                           np.array([[1.0, 0.0, 0.0]])) ** 2, 12)
    array([0., 3.])
    """
    n = A.shape[0]
    if n == 0 or not (np.any(B) and np.any(C)):
        return np.zeros(0)
    P = np.block([[sla.block_diag(A, -A), np.vstack([B, B])],
                  [np.hstack([C, C]), np.zeros((1, 1))]])
    E = sla.block_diag(np.eye(2 * n), np.zeros((1, 1)))
    with np.errstate(all="ignore"):
        z = sla.eigvals(P, E)
    z = z[np.isfinite(z)]
    z = z[np.abs(z.real) <= tol * np.maximum(1.0, np.abs(z))]
    return np.unique(np.abs(z.imag))


@dataclass(frozen=True)
class MuResult:
    """μ bounds against frequency.

    Attributes
    ----------
    omega : ndarray
        Frequencies [rad/s]: the grid plus the refined peak frequency.
    upper, lower : ndarray
        Valid bounds at each frequency (``lower`` is 0 where none was sought or found).
    peak_upper, omega_upper : float
        Largest upper bound and its frequency [rad/s].
    peak_lower, omega_lower : float
        Largest lower bound and its frequency [rad/s].
    delta : ndarray or None
        Δ attaining ``peak_lower``: det(I − M(j omega_lower) Δ) = 0, ‖Δ‖ = 1/peak_lower.
    blocks : tuple of Block
    ab13md_omega : ndarray
        Frequencies where AB13MD was run (elsewhere the batched D-G certificate bounds μ;
        with repeated blocks above a padded size of 16, more D-G steps there instead:
        :data:`~titop_lpv.robust.mu_upper.AB13MD_MAX_N`).
    certified : str
        How ``peak_upper`` bounds μ: ``"intervals"`` (at every frequency of [0, ∞], by
        constant scalings on each of ``intervals``; :mod:`titop_lpv.robust.certify`),
        ``"exact"`` (one real scalar block: μ ≠ 0 only at the frequencies where M is real,
        all of which are in ``omega``, and at ω = ∞) or ``"grid"`` (at ``omega`` only).
    intervals : ndarray (K, 2)
        The certified open intervals [rad/s] (``-1``: from ω = 0 included; ``inf``: up to
        ω = ∞ included); empty unless ``certified == "intervals"``.
    uncertified : ndarray (J, 2)
        Where no certificate was found (then ``certified == "grid"`` and ``peak_upper``
        bounds μ at ``omega`` only); empty otherwise.
    """

    omega: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    peak_upper: float
    omega_upper: float
    peak_lower: float
    omega_lower: float
    delta: np.ndarray | None
    blocks: tuple[Block, ...]
    ab13md_omega: np.ndarray
    certified: str = "grid"
    intervals: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    uncertified: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    def report(self) -> str:
        """Peak bounds, where they are, and the gap."""
        gap = self.peak_upper / self.peak_lower - 1 if self.peak_lower > 0 else np.inf
        blocks = ", ".join(f"{b.name}:{b.kind}" + (f"x{b.repeats}" if b.repeats > 1 else "")
                           for b in self.blocks)
        return "\n".join([
            f"μ over {self.omega.size} frequencies in [{self.omega.min():.4g}, "
            f"{self.omega.max():.4g}] rad/s; blocks {blocks}",
            f"  peak upper bound {self.peak_upper:.6g} at ω = {self.omega_upper:.6g} rad/s",
            f"  peak lower bound {self.peak_lower:.6g} at ω = {self.omega_lower:.6g} rad/s "
            "(attained by a verified Δ)",
            f"  gap {gap:.2%}; AB13MD at {self.ab13md_omega.size} frequencies",
            f"  upper bound certified: {self._how()}"])

    def _how(self) -> str:
        if self.certified == "intervals":
            return f"at every frequency ({len(self.intervals)} intervals)"
        if self.certified == "exact":
            return "at every frequency (exact: one real scalar block)"
        extra = f"; no certificate on {len(self.uncertified)} intervals" \
            if len(self.uncertified) else ""
        return f"at the {self.omega.size} grid frequencies only{extra}"

    def plot(self, *, ax: Any = None) -> Figure:
        """Upper and lower bounds against ω (log axis); returns the Figure
        (:func:`titop_lpv.plots.plot_mu`).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Draw into these axes (default: a new figure).
        """
        return plot_mu(self.omega, self.upper, self.lower, (self.omega_upper, self.peak_upper),
                       (self.omega_lower, self.peak_lower), ax=ax)


def _upper_grid(Z: np.ndarray, st: MuStructure):
    """Certified D-G bounds on a grid, refined lazily: a few quasi-Newton steps of diagonal
    scalings everywhere (warm-started from a coarse subset), then rounds of more steps (and
    full-block scalings if blocks repeat) on every point above the best refined bound."""
    F = Z.shape[0]
    idx = np.unique(np.r_[np.arange(0, F, 10), F - 1])
    ub_c, x_c = dg_batch(Z[idx], st, iters=25)
    near = idx[np.clip(np.searchsorted(idx, np.arange(F)), 0, idx.size - 1)]
    ub, x = dg_batch(Z, st, x_c[np.searchsorted(idx, near)], iters=4)
    better = ub_c < ub[idx]
    ub[idx[better]], x[idx[better]] = ub_c[better], x_c[better]
    level, top = np.zeros(F, int), 2 if st.repeated else 1
    level[idx] = 1
    xf: dict[int, np.ndarray] = {}
    for _ in range(12):
        thr = ub[level == top].max() if np.any(level == top) else -np.inf
        cand = np.flatnonzero((ub > thr) & (level < top))
        if cand.size == 0:
            break
        cand = cand[np.argsort(-ub[cand])][:32]
        for lev in range(top):
            c = cand[level[cand] == lev]
            if c.size and lev == 0:
                u, x[c] = dg_batch(Z[c], st, x[c], iters=30)
            elif c.size:  # full blocks: N² parameters; on a large structure the top 4 only
                c = c[:4] if st.N > AB13MD_MAX_N else c
                u, xfc = dg_batch(Z[c], st, full_scalings(x[c], st), iters=40, full=True)
                xf.update(zip(c.tolist(), xfc))
            if c.size:
                ub[c], level[c] = np.minimum(ub[c], u), lev + 1
    return ub, x, xf


def mu_sweep(sys: control.StateSpace, blocks: Any, omega: Sequence[float] | np.ndarray, *,
             lower: bool = True, refine: bool = True, polish: int = 400,
             seed: int = 0, certify: bool = True, peak_lower: bool = True,
             floor: float = 0.0) -> MuResult:
    """μ bounds of a system's frequency response over a grid, with peak refinement.

    Parameters
    ----------
    sys : control.StateSpace
        The Δ-channel part M11 (``n_z`` outputs, ``n_w`` inputs).
    blocks
        Block structure (see :func:`as_blocks`).
    omega : array_like
        Frequencies [rad/s], ≥ 0. Include 0 with real blocks: real μ can be discontinuous
        where M is real.
    lower : bool
        Compute the lower bound at every frequency (batched power iteration); when False, only
        near the peak.
    refine : bool
        Refine the peak between the neighbours of the largest grid bound: bounded scalar
        maximisation of the lower bound (of the D-G bound if the lower bound is 0 there),
        then AB13MD and :func:`mu_lower` at the maximiser.
    polish : int
        Closing the gap once the lower bound is known (0: not at all): D-G quasi-Newton steps
        (this many) on the points whose upper bound exceeds the peak lower bound by more than
        1e-7 and is within 5 % of the largest (at most 6 rounds of 32, largest first); with
        repeated blocks, AB13MD instead on the largest point (at most twice).
    seed : int
        Seed of the lower-bound starts.
    certify : bool
        Prove the peak upper bound at every frequency of [0, ∞] (default True): constant
        scalings on intervals (:mod:`titop_lpv.robust.certify`), fresh scalings where the
        grid's do not reach, and the bound raised (and the lower bound computed there) where
        the grid missed a higher peak. False: the bound holds at the grid frequencies only
        (``certified == "grid"``), faster.
    peak_lower : bool
        Run :func:`mu_lower` (power iteration + SLSQP, seconds per call on large
        structures) at the peak and at the frequencies added by ``refine`` and ``certify``
        (default True). False (with ``lower=False``): no lower bound is computed, for a
        caller that finds a destabilising Δ otherwise (the ray search of
        :func:`titop_lpv.robust.stability.robust_stability` with real parameters only).
    floor : float
        A known lower bound on the peak of μ (e.g. ``1/‖Δ‖`` of a destabilising Δ found
        otherwise; default 0). The certification starts at that level when it is above
        the grid's bounds, instead of climbing to it in small raises where μ is flat.

    Returns
    -------
    MuResult
        ``certified`` says how the upper bound holds (see :class:`MuResult`). With one
        real scalar block (μ is nonzero only where M(jω) is real), the grid is extended
        by every such frequency (:func:`real_frequencies`), so the peak is exact.
        The responses are divided by a power of two near their largest modulus first
        (``μ(cM) = |c| μ(M)``). Upper bound: the batched D-G certificate everywhere, AB13MD
        at the largest grid bounds (until the largest is AB13MD's, at most 3), at the
        refined peak and (``polish``) at most twice more. Lower bound: power
        iteration everywhere, :func:`mu_lower` at the largest grid upper bound and at the
        refined peak.

    Raises
    ------
    StructureError
        An invalid structure or grid (frequencies NaN, infinite, negative or above
        :data:`~titop_lpv.robust.frequency.MAX_FREQUENCY`; one frequency with ``certify``),
        sizes that do not match, a structure too large for the μ algorithms, a
        discrete-time system, a non-finite matrix or frequency response.
    ArgumentTypeError
        ``sys`` is not a StateSpace (or TransferFunction), ``seed`` or ``polish`` is not
        an integer, ``floor`` not a number.
    ArgumentError
        ``seed`` or ``polish`` negative, ``floor`` negative or not finite.
    """
    st = MuStructure(blocks)
    omega = check_omega(omega)
    seed = check_seed(seed, "seed", allow_none=False)
    polish = check_count(polish, "polish", maximum=100_000)
    if isinstance(floor, bool) or not isinstance(floor, (int, float, np.floating, np.integer)):
        raise ArgumentTypeError(f"floor must be a number, got {type(floor).__name__}")
    if not (np.isfinite(floor) and floor >= 0):
        raise ArgumentError(f"floor must be a finite number >= 0, got {floor}")
    if isinstance(sys, control.TransferFunction):
        sys = tf_to_ss(sys, "sys")
    if not isinstance(sys, control.StateSpace):
        raise ArgumentTypeError(f"sys must be a control.StateSpace (the Δ-channel part M11), "
                                f"got {type(sys).__name__}; for one matrix use mu_upper and "
                                "mu_lower")
    if sys.dt not in (0, None):
        raise StructureError(f"the system is discrete-time (dt = {sys.dt}); only continuous "
                             "time is handled")
    if (sys.noutputs, sys.ninputs) != (st.nz, st.nw):
        raise StructureError(f"the system has {sys.noutputs} outputs and {sys.ninputs} inputs "
                             f"but the structure needs n_z = {st.nz} outputs and n_w = "
                             f"{st.nw} inputs")
    for m in "ABCD":
        check_finite(np.asarray(getattr(sys, m)), f"sys.{m}", StructureError)
    if certify and omega.size < 2:  # one point to start from: the cover ran for minutes
        raise StructureError(f"omega holds one frequency ({omega[0]:.6g} rad/s): the "
                             "certificate over [0, ∞] needs a grid (e.g. np.r_[0, "
                             "np.logspace(-2, 2, 50)]); for μ at that frequency alone pass "
                             "certify=False")
    if st.N == 1 and st.all_real:  # μ ≠ 0 only where M(jω) is real: add those frequencies
        omega = np.unique(np.r_[omega, real_frequencies(sys.A, sys.B, sys.C)])
    try:
        with np.errstate(all="ignore"):
            Mw = freqresp(sys, omega)
    except np.linalg.LinAlgError:  # jω I − A exactly singular at a grid frequency
        Mw = np.full((omega.size, st.nz, st.nw), np.nan, complex)
        for k, w in enumerate(omega):
            try:
                Mw[k] = freqresp(sys, [w])[0]
            except np.linalg.LinAlgError:
                continue
    bad = ~np.all(np.isfinite(Mw), axis=(1, 2))
    if bad.any():
        raise StructureError(f"the frequency response of sys is not finite at ω = "
                             f"{omega[bad][0]:.6g} rad/s (a pole on the imaginary axis?)")
    scale = pow2_scale(Mw)  # μ(cM) = |c| μ(M): bounds on M/scale, multiplied back
    res = _sweep(sys, st, omega, Mw / scale, scale, lower, refine, polish, seed, certify,
                 bool(peak_lower), max(float(floor), 0.0) / scale)
    return replace(res, upper=res.upper * scale, lower=res.lower * scale,
                   peak_upper=res.peak_upper * scale, peak_lower=res.peak_lower * scale,
                   delta=None if res.delta is None else res.delta / scale)


def _sweep(sys: Any, st: MuStructure, omega: np.ndarray, Mw: np.ndarray, scale: float,
           lower: bool, refine: bool, polish: int, seed: int, certify: bool,
           peak_lower: bool = True, floor: float = 0.0) -> MuResult:
    """:func:`mu_sweep` on checked arguments, the responses ``Mw`` divided by ``scale``."""

    def resp(w):
        return freqresp(sys, w) / scale

    Z = st.pad(Mw)
    ub, xs, xf = _upper_grid(Z, st)
    done: dict[int, MuBound] = {}
    heap = [(-u, k) for k, u in enumerate(ub)]
    heapq.heapify(heap)
    while heap and len(done) < 3:  # AB13MD on the largest bounds until the max is AB13MD's
        k = heapq.heappop(heap)[1]
        if k in done:
            break
        done[k] = upper_bound(Z[k], st, xs[k])
        ub[k] = min(ub[k], done[k].value)
        heapq.heappush(heap, (-ub[k], k))
    kmax = int(np.argmax(ub))
    extra_w, extra_u = [], []
    if refine and omega.size > 1:  # maximise the lower bound (else the D-G bound) near kmax
        lo, hi = omega[max(kmax - 1, 0)], omega[min(kmax + 1, omega.size - 1)]
        full = kmax in xf
        x0 = (xf[kmax] if full else xs[kmax])[None]
        use_lower = peak_lower and lower_batch(Mw[kmax:kmax + 1], st)[0].value > 0

        def neg(w):
            return -lower_batch(resp([w]), st)[0].value

        if use_lower:
            w_star = float(optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                                    options={"xatol": 1e-5 * max(hi, 1e-12)}).x)
        else:  # the diagonal D-G bound, batched: zoom on 9 points, 4 levels ((hi − lo)/2¹⁰)
            w_star, a, b, x0 = float(omega[kmax]), lo, hi, xs[kmax][None]
            for _ in range(4):
                ws = np.linspace(a, b, 9)
                u, xz = dg_batch(st.pad(resp(ws)), st, np.repeat(x0, 9, 0), iters=5)
                j = int(np.argmax(u))
                w_star, h, x0 = float(ws[j]), (b - a) / 8, xz[j:j + 1]
                a, b = max(lo, w_star - h), min(hi, w_star + h)
        if not np.any(np.isclose(omega, w_star, rtol=1e-12, atol=0)):
            b = upper_bound(st.pad(resp([w_star]))[0], st, xs[kmax])
            extra_w, extra_u = [w_star], [b.value]
    order = np.argsort(np.r_[omega, extra_w], kind="stable")
    w_all, u_all = np.r_[omega, extra_w][order], np.r_[ub, extra_u][order]
    M_all = (np.concatenate([Mw, resp(extra_w)]) if extra_w else Mw)[order]
    x_all = np.concatenate([xs, xs[[kmax] * len(extra_w)]])[order]
    lbs = lower_batch(M_all, st, seed=seed) if lower else \
        [MuBound(0.0, "lower", "none") for _ in w_all]
    for k in np.unique(np.r_[np.argmax(u_all), np.flatnonzero(np.isin(w_all, extra_w))]) \
            if peak_lower else ():
        b = mu_lower(M_all[k], st.delta, seed=seed, starts=2)
        lbs[k] = b if b.value > lbs[k].value else lbs[k]
    l_all = np.array([b.value for b in lbs])
    ab_done = set(np.flatnonzero(np.isin(w_all, np.r_[omega[list(done)], extra_w])).tolist())
    for _ in range(2 if polish and st.repeated else 0):  # AB13MD on the max, if not yet run
        k = int(np.argmax(u_all))
        if k in ab_done or u_all[k] <= (1 + 1e-7) * l_all.max():
            break
        u_all[k] = min(u_all[k], upper_bound(st.pad(M_all[k]), st, x_all[k]).value)
        ab_done.add(k)
    tried = np.zeros(w_all.size, bool)
    for _ in range(6 if polish and not st.repeated else 0):  # more D-G steps above the lower
        pts = np.flatnonzero((u_all > (1 + 1e-7) * l_all.max()) & ~tried &
                             (u_all >= 0.95 * u_all.max()))
        pts = pts[np.argsort(-u_all[pts])][:32]
        if pts.size == 0:
            break
        tried[pts] = True
        top = u_all.max()
        for cold in (False, True):  # warm starts, then cold starts where still above
            Zp = st.pad(M_all[pts])
            u, x1 = dg_batch(Zp, st, dg_init(Zp, st) if cold else x_all[pts], iters=polish)
            better = u < u_all[pts]
            u_all[pts[better]], x_all[pts[better]] = u[better], x1[better]
            pts = pts[u_all[pts] > (1 + 1e-7) * l_all.max()]
            if pts.size == 0:
                break
        if u_all.max() <= (1 + 1e-7) * l_all.max() or u_all.max() > top * (1 - 1e-9):
            break
    u_all = np.maximum(u_all, l_all)  # both valid: an upper bound below a lower one is raised
    how, ivs, bad = "grid", np.zeros((0, 2)), np.zeros((0, 2))
    if certify and st.N == 1 and st.all_real:  # exact: every real frequency is in the grid
        how = "exact"
        dinf = complex(np.asarray(sys.D, float).ravel()[0]) / scale
        if abs(dinf) > u_all.max():  # μ at ω = ∞
            w_all, u_all, l_all = np.r_[w_all, np.inf], np.r_[u_all, abs(dinf)], \
                np.r_[l_all, 0.0]
            lbs.append(MuBound(0.0, "lower", "none"))
    elif certify:
        cert, new = _certify_upper(sys, st, scale, w_all, u_all, x_all, floor)
        how, ivs, bad = ("intervals" if cert.complete else "grid"), cert.intervals, \
            cert.uncertified
        if new:  # the grid missed a higher peak: add it, with a lower bound there
            nw = np.array([w for w, _ in new])
            Mn = resp(nw)
            order = np.argsort(np.r_[w_all, nw], kind="stable")
            top = set(np.argsort([-u for _, u in new])[:3].tolist()) if peak_lower else set()
            lbs += [mu_lower(m, st.delta, seed=seed, starts=2) if i in top else
                    MuBound(0.0, "lower", "none") for i, m in enumerate(Mn)]  # the 3 highest
            lbs = [lbs[i] for i in order]
            w_all = np.r_[w_all, nw][order]
            u_all = np.r_[u_all, [u for _, u in new]][order]
            l_all = np.array([b.value for b in lbs])
            u_all = np.maximum(u_all, l_all)
        u_all = np.where(u_all == u_all.max(), max(u_all.max(), cert.level), u_all)
    ku, kl = int(np.argmax(u_all)), int(np.argmax(l_all))
    return MuResult(w_all, u_all, l_all, float(u_all[ku]), float(w_all[ku]), float(l_all[kl]),
                    float(w_all[kl]), lbs[kl].delta, st.blocks, np.sort(w_all[list(ab_done)]),
                    how, ivs, bad)


def _certify_upper(sys: Any, st: MuStructure, scale: float, w: np.ndarray, u: np.ndarray,
                   x: np.ndarray, floor: float = 0.0):
    """The peak upper bound proved on intervals covering [0, ∞] (:func:`cover`), from the
    grid's diagonal scalings ``x``; the (ω, bound) of higher peaks found between grid points."""
    A, B, C, D = (np.asarray(getattr(sys, m), float) for m in "ABCD")
    pz = padded_system(A, B, C / scale, D / scale, st.zpos, st.wpos, st.N)
    found: list[tuple[float, float]] = []

    def diag(xk):
        return diag_scaling(xk, st)

    def warm(c):
        return x[min(int(np.searchsorted(w, c)), w.size - 1)]

    def fresh(c, level, hard=False):  # AB13MD too when the D-G bound is near the level
        Mc = freqresp(sys, [c]) / scale
        Z = st.pad(Mc)
        ub, xc = dg_batch(Z, st, warm(c)[None], iters=40)
        best = (float(ub[0]), diag(xc[0]))
        if ub[0] * (1 + CERT_RTOL) >= level:  # near the level: try harder
            u2, x2 = dg_batch(np.concatenate([Z, Z]), st, np.r_[xc, dg_init(Z, st)],
                              iters=200 if st.N <= AB13MD_MAX_N else 100)
            k = int(np.argmin(u2))
            if u2[k] < ub[0]:
                ub, xc = u2[k:k + 1], x2[k:k + 1]
                best = (float(ub[0]), diag(xc[0]))
            # AB13MD, unless skipped anyway (large repeated structures: more of the same steps)
            b = upper_bound(Z[0], st, xc[0]) if st.N <= AB13MD_MAX_N or not st.repeated \
                else None
            sc = None if b is None else Scaling.from_dg(b.D, b.G)
            if sc is not None and b.value < ub[0]:
                best = (float(b.value), sc)
        eye = np.eye(st.N, dtype=complex)  # milder scalings: longer intervals, often
        x0 = dg_init(Z, st)
        x0[:, st.nd:] = 0.0
        Zb = scaled_matrices(x0, Z, st, False)[0][0]  # Osborne-balanced, G = 0
        out = [best, (float(np.linalg.norm(Mc[0], 2)), Scaling(eye, eye, 0 * eye)),
               (float(np.linalg.norm(Zb, 2)), diag(x0[0]))]
        if st.has_real and not hard and level > best[0]:  # the first scalings to reach
            # the level with some room: G̃ moderate, so Φ < 0 is decided above rounding
            r = np.array([1e-5, 1e-6, 1e-7])
            Zs = np.repeat(Z, 2 * r.size, 0)
            xs0 = np.r_[np.repeat(warm(c)[None], r.size, 0), np.repeat(x0, r.size, 0)]
            ut, xt = dg_batch(Zs, st, xs0, iters=200, target=np.tile(level / (1 + r), 2))
            out += [(float(u), diag(xk)) for u, xk in zip(ut, xt) if u < level]
        return _hard(c) if hard and st.has_real else out

    def _hard(c):  # D only, then D-G shared over [c, c + h]: milder, longer intervals
        Z = st.pad(freqresp(sys, [c]) / scale)
        bc, scc = complex_scaling(Z[0], st, warm(c))
        yield bc, scc
        k1 = min(int(np.searchsorted(w, c, side="right")), w.size - 1)
        span = w[k1] - c if w[k1] > c else max(c, 1e-3)
        xd = np.r_[np.log(np.abs(np.diag(scc.T)))[np.r_[0, np.cumsum(st.ab_nblock)[:-1]]],
                   np.zeros(st.nr)]
        for h in span / 8.0 ** np.arange(5):
            sc = diag(dg_common(st.pad(freqresp(sys, c + h * np.linspace(0, 1, 5)) / scale), st,
                                xd)[1])
            yield float(np.sqrt(max(fdi_lambda(pz, sc, 0.0, [c])[0], 0.0))), sc

    def raise_level(c, b):
        k = int(np.searchsorted(w, c))
        lo, hi = w[max(k - 1, 0)], w[min(k + 1, w.size - 1)] if k + 1 < w.size else 2 * c + 1

        def neg(f):
            return -dg_batch(st.pad(freqresp(sys, [f]) / scale), st, warm(c)[None],
                             iters=15)[0][0]
        ws = float(optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                            options={"xatol": 1e-6 * max(hi, 1e-12)}).x)
        bs = fresh(ws, 0.0)[0][0]
        found.append((ws, bs) if bs >= b else (c, b))
        return max(b, bs) * (1 + CERT_RTOL)

    cert = cover(lambda level: (pz, level), w, max(float(u.max()), floor) * (1 + CERT_RTOL),
                 lambda k: diag(x[k]), fresh, raise_level, rtol=CERT_RTOL, **budgets(st.N))
    return cert, found


CERT_RTOL = 2e-8  # the certified level is the largest grid bound times 1 + CERT_RTOL


def proves_below(sys: Any, st: MuStructure, omega: np.ndarray, level: float = 1.0) -> bool:
    """True when the D-G upper bound of μ of ``sys`` is proved below ``level`` at every
    frequency of [0, ∞] (grid bounds, then intervals certified at ``level``).

    Parameters
    ----------
    sys : control.StateSpace
        The Δ-channel part M11.
    st : MuStructure
        Its block structure.
    omega : ndarray
        Sorted frequency grid [rad/s] (include 0 with real blocks).
    level : float
        The bound to prove (> 0).
    """
    u, x, _ = _upper_grid(st.pad(freqresp(sys, omega)), st)
    if not np.all(u < level):
        return False
    cert, _ = _certify_upper(sys, st, 1.0, omega, u, x, floor=level / (1 + 2 * CERT_RTOL))
    return bool(cert.complete and cert.level <= level)
