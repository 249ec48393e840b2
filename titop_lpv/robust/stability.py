"""Robust stability of an uncertain loop ``F_u(M, Δ)``: the margin bounds from μ and a
destabilising Δ, verified by closing the loop (the loop's parts:
:mod:`titop_lpv.robust.loop`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import optimize

from ..plots import plot_robust_stability
from .branch_bound import BranchResult, branch_margin
from .checks import ArgumentError, ArgumentTypeError, check_real, check_seed
from .dynamic_delta import dynamic_delta, loop_poles
from .frequency import check_omega, default_omega
from .loop import (
    AXIS_TOL,
    LOOP_MAX_COND,
    LoopLFT,
    RobustnessError,
    check_stable,
    delta_matrix,
    nominal_values,
    on_axis,
    physical_values,
    split_lft,
)
from .modal_box import modal_margin
from .mu import MuResult, freqresp, mu_sweep
from .mu_upper import (
    AB13MD_MAX_N,
    dg_batch,
    dg_init,
    mu_upper,
    pow2_scale,
    scaled_matrices,
)
from .structure import block_values

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["AUTO_MAX_PARAMETERS", "RobustStabilityResult", "robust_stability"]

AUTO_MAX_PARAMETERS = 4  # refine="auto": branch and bound with at most this many parameters
REFINE_RTOL = 0.02  # the gap above which the branch and bound runs, and where it stops
MODAL_MAX_BOXES = 20000  # sub-boxes of the state-space branch and bound at most
MODAL_TIGHT, MODAL_TIGHT_BOXES = 1e-7, 200  # its second target: ray crossing / (1 + 1e-7),
#   tried when the first took at most 200 sub-boxes, with at most 200 more
MODAL_DG_ROOM = 1e-3  # the certified sweep runs when the brief sweep's D-G margin is this near


@dataclass(frozen=True)
class RobustStabilityResult:
    """Robust stability margin of F_u(M, Δ) over the block structure.

    Attributes
    ----------
    margin_lower : float
        1/peak μ upper bound: the loop is stable for every Δ with structured norm below it
        (at every frequency when ``mu.certified`` is ``"intervals"`` or ``"exact"``, else
        up to the frequency grid).
    margin_upper : float
        1/peak μ lower bound: the structured norm of ``delta``, which destabilises the loop.
    omega_critical : float
        Frequency [rad/s] of the closed-loop pole that ``delta`` puts on the imaginary axis.
    delta : ndarray or None
        The destabilising Δ (``n_w × n_z``; complex if the structure has complex blocks).
    delta_values : dict
        ``delta`` block by block, normalised (:func:`titop_lpv.robust.structure.block_values`).
    parameter_values : dict
        The same in physical units when the loop was given as a USS (``ureal`` values,
        ``ucomplex`` values, unmodelled dynamics scaled by their bound); else empty.
    pole : complex
        The closed-loop pole with Δ = ``delta`` nearest the imaginary axis.
    axis_distance : float
        ``|Re pole|``; ``verified`` when ≤ 1e-6 · max(1, ``|pole|``).
    verified : bool
    method : str
        How ``delta`` was found.
    mu : MuResult
        μ of M11 against frequency.
    nominal_poles : ndarray
        Closed-loop poles at the nominal parameters (each ``ureal`` at its nominal value;
        Δ = 0 when the loop was given as ``(M, blocks)``).
    delta_system : control.StateSpace or None
        When ``delta`` is complex: a stable real LTI Δ(s) of the structure with
        ``Δ(j omega_critical) = delta`` and the same structured norm at every frequency
        (first-order all-passes; :func:`titop_lpv.robust.dynamic_delta.dynamic_delta`), the
        dynamic worst case of ``ultidyn`` / ``ucomplex`` blocks; None otherwise.
    delta_system_verified : bool
        The real closed loop with ``delta_system`` has a pole on the imaginary axis at
        ``± j omega_critical`` (within 1e-6 · max(1, ω)).
    certified : str
        How ``margin_lower`` holds: ``mu.certified`` (the μ upper bound of the whole box:
        ``"intervals"``, ``"exact"`` or ``"grid"``), or ``"branch_and_bound"`` when a
        branch and bound over the δ box raised it: every sub-box proved in the state space
        (``branch.method == "modal"``, :mod:`titop_lpv.robust.modal_box`) or every piece of
        box × frequency by a D-G certificate on frequency intervals (``"D-G"``,
        :mod:`titop_lpv.robust.branch_bound`). With ``"modal"``, ``mu`` may be a sweep on
        the grid only (``mu.certified == "grid"``): the margin does not rest on it.
    branch : BranchResult or None
        The branch and bound run (margin it proved, target box, sub-boxes, time), if one
        ran.
    """

    margin_lower: float
    margin_upper: float
    omega_critical: float
    delta: np.ndarray | None
    delta_values: dict
    parameter_values: dict
    pole: complex
    axis_distance: float
    verified: bool
    method: str
    mu: MuResult
    nominal_poles: np.ndarray
    delta_system: Any = None
    delta_system_verified: bool = False
    certified: str = ""
    branch: BranchResult | None = None

    def report(self) -> str:
        """Margin bounds, the destabilising Δ and its verification."""
        vals = ", ".join(f"δ_{k} = {np.round(v, 6)}" for k, v in self.delta_values.items())
        if self.parameter_values:
            vals += " (" + ", ".join(f"{k} = {np.round(v, 6)}"
                                     for k, v in self.parameter_values.items()) + ")"
        if self.delta is None:
            return (f"robustly stable: no destabilising Δ found (μ upper bound peak "
                    f"{self.mu.peak_upper:.6g}, margin >= {self.margin_lower:.6g})")
        how = (f"1/peak μ upper bound; μ sweep peak {self.mu.peak_upper:.6g} at ω = "
               f"{self.mu.omega_upper:.6g} rad/s")
        if self.certified == "branch_and_bound" and self.branch is not None:
            alone = (f"the μ sweep alone proves {1 / self.mu.peak_upper:.6g}"
                     if self.mu.certified in ("intervals", "exact") else
                     f"μ sweep on the grid only: 1/peak {1 / self.mu.peak_upper:.6g}")
            what = "modal eigenvalue exclusion" if self.branch.method == "modal" else \
                "D-G bounds on frequency intervals"
            how = (f"branch and bound over the δ box ({what}): {self.branch.boxes} "
                   f"sub-boxes, {self.branch.elapsed:.3g} s; {alone}")
        return "\n".join([
            f"robust stability margin in [{self.margin_lower:.6g}, {self.margin_upper:.6g}] "
            "(structured norm of Δ; real δ normalised to [-1, 1])",
            f"  stable for every Δ with ‖Δ‖ < {self.margin_lower:.6g} ({how})",
            f"  destabilising Δ ({self.method}), ‖Δ‖ = {self.margin_upper:.6g}: {vals}",
            f"  closed-loop pole {self.pole:.6g} at ω = {self.omega_critical:.6g} rad/s, "
            f"|Re| = {self.axis_distance:.2e} -> {'verified' if self.verified else 'NOT verified'}"
            f" (tolerance {AXIS_TOL:g}·max(1, |p|))"])

    def plot(self) -> Figure:
        """μ bounds against ω and the poles (nominal and with the destabilising Δ); returns
        the Figure (:func:`titop_lpv.plots.plot_robust_stability`)."""
        mu = self.mu
        return plot_robust_stability(
            mu.omega, mu.upper, mu.lower, (mu.omega_upper, mu.peak_upper),
            (mu.omega_lower, mu.peak_lower), self.nominal_poles, self.pole,
            (self.margin_lower, self.margin_upper))


def _abscissa(lft: LoopLFT, delta: np.ndarray) -> tuple[float, complex]:
    """Spectral abscissa of the loop closed by a static Δ and the pole attaining it (inf
    when ``I − D11 Δ`` is ill-posed, as in :meth:`LoopLFT.closed`); only the state matrix
    ``A + B1 Δ (I − D11 Δ)⁻¹ C1`` is formed (the ray search calls this thousands of times)."""
    X = np.eye(delta.shape[1]) - lft.D11 @ delta
    s = np.linalg.svd(X, compute_uv=False) if X.size else np.ones(1)
    if not np.all(np.isfinite(s)) or s[-1] * LOOP_MAX_COND <= s[0]:
        return np.inf, complex(np.inf)
    if lft.A.size == 0:
        return -np.inf, complex(-np.inf)
    p = np.linalg.eigvals(lft.A + lft.B1 @ delta @ np.linalg.solve(X, lft.C1))
    k = int(np.argmax(p.real))
    return float(p.real[k]), complex(p[k])


def _abscissa_batch(lft: LoopLFT, deltas: np.ndarray) -> np.ndarray:
    """:func:`_abscissa` of a stack of static Δ (K, n_w, n_z) at once (inf: ill-posed)."""
    K, nz = deltas.shape[0], deltas.shape[2]
    X = np.eye(nz) - lft.D11 @ deltas
    with np.errstate(all="ignore"):
        try:  # the 1-norm condition number (3× cheaper than the SVD; within a factor n_z)
            Xi = np.linalg.inv(X)
            c1 = np.abs(X).sum(axis=1).max(axis=1) * np.abs(Xi).sum(axis=1).max(axis=1)
            ill = ~np.isfinite(c1) | (c1 >= LOOP_MAX_COND)
        except np.linalg.LinAlgError:  # an exactly singular one: the SVD route
            s = np.linalg.svd(X, compute_uv=False) if nz else np.ones((K, 1))
            ill = ~np.all(np.isfinite(s), axis=1) | (s[:, -1] * LOOP_MAX_COND <= s[:, 0])
            X[ill] = np.eye(nz)
            Xi = np.linalg.inv(X)
    if lft.A.size == 0:
        return np.where(ill, np.inf, -np.inf)
    Xi[ill] = np.eye(nz)
    p = np.linalg.eigvals(lft.A + lft.B1 @ deltas @ (Xi @ lft.C1))
    return np.where(ill, np.inf, p.real.max(axis=1))


def _ray_search(lft: LoopLFT, t_max: float, seed: int) -> tuple[float, np.ndarray] | None:
    """Real parameters only: smallest t with a closed-loop pole on the imaginary axis along
    rays t·d (‖d‖∞ = 1) through the vertices, the axes, and a local Nelder–Mead search."""
    st, k = lft.st, len(lft.st.blocks)
    rng = np.random.default_rng(seed)

    def dmat(d):
        Q = np.zeros((st.nw, st.nz))
        Q[st.sw, st.sz] = d[st.sblk]
        return Q

    def crossing(d, t_hi, exact=True):
        d = d / np.max(np.abs(d))
        ts = np.linspace(0.0, t_hi, 41)[1:]
        a = _abscissa_batch(lft, ts[:, None, None] * dmat(d))
        hit = np.flatnonzero(a >= 0)
        if hit.size == 0:
            return np.inf, d
        t, prev = ts[hit[0]], ts[hit[0] - 1] if hit[0] else 0.0
        if not exact:  # a second batched scan and a secant: the search's objective only
            ts = np.linspace(prev, t, 41)[1:]
            a = _abscissa_batch(lft, ts[:, None, None] * dmat(d))
            k = int(np.flatnonzero(a >= 0)[0])
            lo = ts[k - 1] if k else prev
            a0 = a[k - 1] if k else -1.0
            if not (np.isfinite(a[k]) and np.isfinite(a0) and a[k] > a0):
                return ts[k], d
            return lo + (ts[k] - lo) * (-a0) / (a[k] - a0), d
        f = lambda s: _abscissa(lft, s * dmat(d))[0]  # noqa: E731
        if not np.isfinite(f(t)):  # ill-posed at t: bisect on finiteness too
            f = lambda s: min(_abscissa(lft, s * dmat(d))[0], 1.0)  # noqa: E731
        return optimize.brentq(f, prev, t, xtol=1e-15 * t, rtol=1e-15), d

    dirs = [np.array(v, float) for v in itertools.product((-1, 1), repeat=k)] if k <= 6 else \
        [rng.choice([-1.0, 1.0], k) for _ in range(64)]
    dirs += [s * np.eye(k)[i] for i in range(k) for s in (-1.0, 1.0)]
    best = min((crossing(d, t_max) for d in dirs), key=lambda r: r[0])
    if not np.isfinite(best[0]):
        return None
    if k > 1:  # local refinement of the direction
        r = optimize.minimize(lambda v: crossing(v, 1.5 * best[0], False)[0] if np.any(v)
                              else np.inf,
                              best[1], method="Nelder-Mead",
                              options={"maxfev": 60 * k, "xatol": 1e-10, "fatol": 1e-13})
        if r.fun < best[0]:  # exact (Brent) on the direction found
            c = crossing(r.x, 1.5 * best[0])
            best = c if c[0] < best[0] else best
    return best[0], best[0] * dmat(best[1])


def robust_stability(M: Any, blocks: Any = None,
                     omega: Sequence[float] | np.ndarray | None = None, *,
                     seed: int = 0, certify: bool = True, refine: str | bool = "auto",
                     budget: float = 5.0) -> RobustStabilityResult:
    """Robust stability margin of ``F_u(M, Δ)`` with a destabilising Δ, verified.

    Parameters
    ----------
    M : USS or control.StateSpace
        The uncertain closed loop: a :class:`~titop_lpv.robust.uss.USS` (its ``lftdata()``
        is used, and physical parameter values are reported), or the LFT as a StateSpace
        whose first ``n_w`` inputs / ``n_z`` outputs are the Δ channels.
    blocks : optional
        Block structure, with a StateSpace only (a ``DeltaStructure``, blocks or tuples;
        see :func:`titop_lpv.robust.structure.as_blocks`).
    omega : array_like, optional
        Frequency grid [rad/s]; default 0 and 400 points spanning the nominal poles' moduli
        from /100 to ×100. Keep 0 in the grid for real parameters (poles crossing at s = 0).
    seed : int
        Seed of the μ lower-bound starts.
    certify : bool
        Prove the μ upper bound, hence ``margin_lower``, at every frequency (default True;
        ``rs.mu.certified`` says how it holds); False: at the grid frequencies only, faster.
    refine : {"auto", "branch", False}
        Raise ``margin_lower`` by a branch and bound over the δ box (real parameters only,
        when the ray search found a destabilising Δ), which removes the conservatism of the
        D-G bound with repeated or nonlinearly entering parameters. First in the state
        space (:func:`titop_lpv.robust.modal_box.modal_margin`: each sub-box proved by
        eigenvalue exclusion in the modes of its centre, about a millisecond per sub-box),
        towards the box ``ray crossing / 1.01``, then, if that took at most 200 sub-boxes,
        ``/ (1 + 10⁻⁷)`` (200 sub-boxes at most); its anytime bound is kept when the budget
        or a sub-box narrower than 10⁻³ of the box stops it. It runs when the D-G bound on
        the grid (the μ sweep without its certificate; above 16 channels a quicker one,
        ``_grid_mu``) leaves a gap above 2 %. When it proves more
        than that D-G bound (with 0.1 % room), the quick sweep is returned as ``rs.mu``
        (``certified == "grid"``: a description, the margin does not rest on it) and the
        certified μ sweep is not run; else the certified sweep runs and the larger margin
        is kept. Then, while the gap ``margin_upper / margin_lower − 1`` exceeds 2 %, the
        D-G branch and bound (:func:`titop_lpv.robust.branch_bound.branch_margin`).
        ``"auto"`` (default): the modal route with at most :data:`AUTO_MAX_PARAMETERS`
        distinct parameters and more than one scalar channel (with one, μ is exact); the
        D-G one only when the modal margin was not kept, with a padded structure of at most
        16 channels. ``"branch"``: both, whatever the sizes and the grid's gap. False:
        neither (the D-G bound of the whole box). Only with ``certify``.
    budget : float
        Wall-clock time [s] each branch and bound may spend (default 5; > 0; the modal
        route's second target a quarter of it). When one ends
        before its target box is proved, its anytime bound (the structured norm of the
        nearest sub-box not proved) is kept if it is above the other margins. On the
        telescope loop of ``benchmarks/bench_robust.py`` (3 parameters, Δ 25×25) the modal
        route proves 1 % below the crossing in 483 sub-boxes, about 1 s.

    Returns
    -------
    RobustStabilityResult
        Margin bounds ``[1/peak μ_upper, 1/peak μ_lower]`` from :func:`titop_lpv.robust.mu.mu_sweep`
        of M11; ``delta`` destabilising at the upper bound, verified by closing the loop: a
        pole on the imaginary axis. Always ``margin_lower <= margin_upper``: where the grid
        misses the frequency at which ``delta`` puts the pole, μ is bounded there too.
        With real parameters only, a search along rays of the δ
        box (state-space spectral abscissa, exact crossing by Brent's method) supplements
        the μ lower bound (real μ is discontinuous in ω); on structures padded above 16
        channels it replaces it (the μ lower bound costs seconds per frequency there).

    Raises
    ------
    RobustnessError
        Unstable loop at Δ = 0 (the centre of the box), sizes of M and of the structure
        that do not match, a structure too large for the μ algorithms, non-finite
        matrices, or a frequency NaN, infinite, negative or above
        :data:`~titop_lpv.robust.frequency.MAX_FREQUENCY`.
    StructureError
        A grid of one frequency with ``certify`` (see :func:`~titop_lpv.robust.mu.mu_sweep`).
    ArgumentTypeError, ArgumentError
        ``seed`` is not an integer >= 0; ``refine`` is not one of "auto", "branch", False;
        ``budget`` is not a finite number > 0.

    Notes
    -----
    The margin is the largest ``t`` such that the loop is stable for every Δ of
    structured norm < t (MATLAB's ``robstab`` "stability margin"): ``t ≥ 1`` means robustly
    stable over the whole box. Real parameters are normalised around the centre of their
    range, so a ``ureal`` whose nominal is not the centre is at δ ≠ 0 nominally.
    """
    seed = check_seed(seed, "seed", allow_none=False)
    if refine is not False and (not isinstance(refine, str) or refine not in ("auto", "branch")):
        raise (ArgumentError if isinstance(refine, str) else ArgumentTypeError)(
            f'refine must be "auto", "branch" or False, got {refine!r}')
    budget = check_real(budget, "budget", minimum=0.0)
    if budget <= 0:
        raise ArgumentError(f"budget must be a finite number > 0 [s], got {budget!r}")
    lft = split_lft(M, blocks)
    check_stable(lft)
    omega = default_omega(lft.poles()) if omega is None else check_omega(omega, RobustnessError)
    # real parameters only, large Δ: the ray search below finds the destabilising Δ (exact
    # crossing of the spectral abscissa); μ lower bounds cost seconds each there (measured
    # 16 s for two at 30×30) and found none. On small structures they place the refined
    # peak where μ is attained, which the interval certificate needs
    # real parameters only: the ray search first, up to 4 (then 64, 1024) times the inverse of a
    # cheap upper bound of μ; its crossing is a lower bound of the μ peak, where the interval
    # certificate starts (else it climbs to the peak in many small raises where μ is flat)
    ray = None
    if lft.st.all_real:
        est = _balanced_peak(lft, omega)
        for f in (4.0, 64.0, 1024.0):
            ray = _ray_search(lft, f / max(est, 1e-12), seed)
            if ray is not None:
                break
    # real parameters, a destabilising Δ found, and the D-G bound on the grid (a quick
    # description of μ: _grid_mu) more than 2 % below it: prove the box just inside the
    # crossing in the state space (modal_box); when that proves more than the D-G bound on
    # the grid, the certified μ sweep is not run (one real scalar: μ is exact, no need)
    modal, desc = None, None
    if lft.st.all_real and lft.st.N > 1 and ray is not None and ray[0] > 0 and certify and (
            refine == "branch" or (refine == "auto" and
                                   len(lft.st.blocks) <= AUTO_MAX_PARAMETERS)):
        desc = _grid_mu(lft, omega) if lft.st.N > AB13MD_MAX_N else \
            mu_sweep(lft.m11(), lft.st.delta, omega, lower=False, seed=seed, certify=False,
                     peak_lower=False)
        if ray[0] > (1 + REFINE_RTOL) / desc.peak_upper or refine == "branch":
            modal = _modal_route(lft, ray[0], budget)
    if modal is not None and modal.proved and \
            (1 + MODAL_DG_ROOM) / desc.peak_upper <= modal.margin_lower:
        res, proved = desc, True
    else:
        res, proved = mu_sweep(lft.m11(), lft.st.delta, omega, lower=False, seed=seed,
                               certify=certify,
                               peak_lower=not (lft.st.all_real and lft.st.N > AB13MD_MAX_N),
                               floor=1 / ray[0] if ray is not None and ray[0] > 0 else 0.0), \
            False
    delta, method, peak = res.delta, "μ lower bound", res.peak_upper
    m_up = 1 / res.peak_lower if res.peak_lower > 0 else np.inf
    if lft.st.all_real:
        t_max = m_up if np.isfinite(m_up) else 4 / max(res.peak_upper, 1e-12)
        if ray is None:
            ray = _ray_search(lft, t_max * (1 + 1e-9), seed)
        if ray is None and not np.isfinite(m_up):  # the μ upper bound can be conservative
            ray = _ray_search(lft, 16 * t_max, seed)
        if ray is not None and ray[0] < m_up * (1 - 1e-12):
            m_up, delta, method = ray[0], ray[1], "ray search over the δ box"
            wc = abs(_abscissa(lft, delta)[1].imag)  # bound μ where the ray crossed, too
            peak = max(peak, mu_upper(freqresp(lft.m11(), [wc])[0], lft.st.delta).value)
    vals, pole, dist = {}, complex(np.nan), np.inf
    if delta is not None:
        vals = block_values(delta, lft.st.delta)
        mats = lft.closed(delta)
        if mats is not None:
            p = np.linalg.eigvals(mats[0])
            pole = complex(p[np.argmin(np.abs(p.real))])
            dist = abs(pole.real)
    if delta is not None and np.isfinite(pole.imag) and 1 / max(peak, 1e-300) > m_up:
        # the grid missed the crossing: bound μ where Δ puts the pole, then keep lower <= upper
        # (lowering a lower bound keeps it valid)
        wc = abs(pole.imag)
        peak = max(peak, mu_upper(freqresp(lft.m11(), [wc])[0], lft.st.delta).value)
    m_low = min(1 / peak if peak > 0 else np.inf, float(m_up))
    dsys, dver = None, False
    if delta is not None and np.any(np.imag(delta)) and np.isfinite(pole.imag) and \
            abs(pole.imag) > 0:
        dsys = dynamic_delta(delta, lft.st.delta, abs(pole.imag))
        p = None if dsys is None else loop_poles(lft.A, lft.B1, lft.C1, lft.D11, dsys)
        if p is not None and p.size:
            wc = abs(pole.imag)
            k = int(np.argmin(np.abs(p - 1j * wc)))
            dver = bool(abs(p[k] - 1j * wc) <= 1e-6 * max(1.0, wc) and on_axis(p[k]))
    how, branch = res.certified, None
    if modal is not None and modal.proved:  # proved in the state space (modal_box)
        cand = min(modal.margin_lower, float(m_up))
        if proved or cand > m_low:  # (proved: the μ sweep ran on the grid only)
            m_low, how, branch = cand, "branch_and_bound", modal
    if lft.st.all_real and np.isfinite(m_up) and m_up > m_low * (1 + REFINE_RTOL) and \
            (refine == "branch" or (refine == "auto" and certify and lft.st.N <= AB13MD_MAX_N
                                    and len(lft.st.blocks) <= AUTO_MAX_PARAMETERS
                                    and branch is None)):
        # the D-G margin skips the inner box only when it holds at every frequency
        inner = m_low if res.certified in ("intervals", "exact") or \
            how == "branch_and_bound" else 0.0
        dg = branch_margin(lft, inner, float(m_up), budget=budget, rtol=REFINE_RTOL)
        if dg.margin_lower > m_low:
            m_low, how, branch = min(dg.margin_lower, float(m_up)), "branch_and_bound", dg
    return RobustStabilityResult(
        m_low, float(m_up), abs(pole.imag),
        delta, vals, physical_values(lft, vals), pole, dist,
        on_axis(pole), method, res, _nominal_poles(lft), dsys, dver, how, branch)


def _modal_route(lft: LoopLFT, crossing: float, budget: float) -> BranchResult:
    """The state-space branch and bound towards ``crossing / 1.01`` and, when that took
    at most :data:`MODAL_TIGHT_BOXES` sub-boxes, towards ``crossing / (1 + MODAL_TIGHT)``
    (:func:`titop_lpv.robust.modal_box.modal_margin`)."""
    k = crossing / (1 + REFINE_RTOL / 2)
    t0 = time.perf_counter()
    got, count, done = modal_margin(lft, k, budget=budget, max_boxes=MODAL_MAX_BOXES)
    if done and count <= MODAL_TIGHT_BOXES:  # the first target came cheap: the test is sharp
        k2 = crossing / (1 + MODAL_TIGHT)
        got2, count2, done2 = modal_margin(lft, k2, budget=budget / 4, inner=k,
                                           max_boxes=MODAL_TIGHT_BOXES)
        count += count2
        k, got = (k2, k2) if done2 else (k, max(got, got2))
    return BranchResult(got, got > 0, done, count, k, time.perf_counter() - t0, "modal")


def _grid_mu(lft: LoopLFT, omega: np.ndarray) -> MuResult:
    """μ of M11 described quickly on a large structure: D-G upper bounds on ``omega``
    (20 quasi-Newton steps on every tenth frequency, 3 warm-started ones everywhere, 20 more
    on the 8 largest), valid at those frequencies only (``certified == "grid"``); no lower
    bound. (Up to 16 padded channels the grid μ sweep is used instead.)"""
    st = lft.st
    Mw = freqresp(lft.m11(), omega)
    scale = pow2_scale(Mw)
    Z = st.pad(Mw / scale)
    idx = np.unique(np.r_[np.arange(0, omega.size, 10), omega.size - 1])
    _, xc = dg_batch(Z[idx], st, iters=20)
    near = np.clip(np.searchsorted(idx, np.arange(omega.size)), 0, idx.size - 1)
    ub, x = dg_batch(Z, st, xc[near], iters=3)
    top = np.argsort(-ub)[:8]
    ub[top] = np.minimum(ub[top], dg_batch(Z[top], st, x[top], iters=20)[0])
    ub = ub * scale
    k = int(np.argmax(ub))
    return MuResult(omega, ub, np.zeros(omega.size), float(ub[k]), float(omega[k]), 0.0, 0.0,
                    None, tuple(st.blocks), np.zeros(0))


def _balanced_peak(lft: LoopLFT, omega: np.ndarray) -> float:
    """A cheap upper bound of μ(M11(jω)) over the grid: σ̄ after Osborne balancing (D
    scalings, G = 0; valid, often conservative)."""
    st = lft.st
    Z = st.pad(freqresp(lft.m11(), omega))
    with np.errstate(all="ignore"):
        Nm = scaled_matrices(dg_init(Z, st), Z, st, False)[0]
        est = float(np.linalg.norm(Nm, 2, axis=(1, 2)).max())
    return est if np.isfinite(est) else float(np.linalg.norm(Z, 2, axis=(1, 2)).max())


def _nominal_poles(lft: LoopLFT) -> np.ndarray:
    """Closed-loop poles at the nominal parameters
    (see :func:`~titop_lpv.robust.loop.nominal_values`)."""
    mats = lft.closed(delta_matrix(lft.st.delta, list(nominal_values(lft).values())).real)
    return np.linalg.eigvals(mats[0]) if mats is not None and mats[0].size else \
        np.zeros(0, complex)
