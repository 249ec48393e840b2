"""Monte-Carlo sampling of an uncertain loop ``F_u(M, Δ)``: poles, H∞ norms (the peak gain
of each sample, computed by python-control's ``linfnorm``, SLICOT ``AB13DD``, as MATLAB's
``hinfnorm``, not read off a frequency grid) and Bode magnitudes on a grid for plots."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import control
import numpy as np

from ..plots import plot_monte_carlo
from ..progress import reporter
from .abcd import ABCD, IllPosedError, lft_upper_abcd
from .checks import ArgumentTypeError, check_count, check_seed
from .frequency import check_omega, default_omega
from .loop import LOOP_MAX_COND, RobustnessError, delta_matrix, nominal_values, split_lft
from .mu import freqresp

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["MAX_SAMPLES", "MonteCarloResult", "hinf_norm", "monte_carlo"]

MAX_SAMPLES = 10**6  # more samples are refused (memory: poles and magnitudes of each)


@dataclass(frozen=True)
class MonteCarloResult:
    """Closed loops F_u(M, Δ) for random Δ in the structure.

    Attributes
    ----------
    deltas : ndarray (n, n_w, n_z)
    poles : ndarray (n, n_states), complex
    omega : ndarray
        [rad/s].
    magnitude : ndarray (n, n_omega, n_y, n_u) or None
        ``|F_u(M, Δ)(jω)|`` per performance channel (None without performance channels).
    nominal_poles : ndarray
        Poles at the nominal parameters (each ``ureal`` at its nominal value, ``ucomplex``
        and unmodelled dynamics at 0; Δ = 0 when the loop was given as ``(M, blocks)``),
        which is not the centre of the box when a nominal is off-centre.
    nominal_magnitude : ndarray or None
        ``|F_u(M, Δ)(jω)|`` at the nominal parameters, (n_omega, n_y, n_u).
    nominal_delta_values : dict
        The normalised δ of the nominal parameters, block by block.
    inputs, outputs : tuple of str
        Performance channel names.
    peak : ndarray (n,) or None
        H∞ norm ``‖F_u(M, Δ)‖∞`` of each sample (σ̄ over all performance channels, its
        supremum over every frequency, by ``control.linfnorm``; ``inf`` for an unstable
        sample, as MATLAB's ``hinfnorm``, NaN for an ill-posed one). None without
        performance channels.
    peak_omega : ndarray (n,) or None
        Frequency [rad/s] of each ``peak``.
    channel_peak : ndarray (n, n_y, n_u) or None
        H∞ norm of each performance channel of each sample.
    nominal_peak : float or None
        H∞ norm at the nominal parameters.
    """

    deltas: np.ndarray
    poles: np.ndarray
    omega: np.ndarray
    magnitude: np.ndarray | None
    nominal_poles: np.ndarray
    nominal_magnitude: np.ndarray | None
    nominal_delta_values: dict
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    peak: np.ndarray | None = None
    peak_omega: np.ndarray | None = None
    channel_peak: np.ndarray | None = None
    nominal_peak: float | None = None

    @property
    def unstable(self) -> np.ndarray:
        """Mask of the samples with a pole in the closed right half-plane."""
        return self.poles.real.max(axis=1, initial=-np.inf) >= 0

    def report(self) -> str:
        """Sample count, instability and the spread of the poles and gains."""
        lines = [f"Monte-Carlo: {self.deltas.shape[0]} samples, {int(self.unstable.sum())} "
                 f"unstable; largest pole real part {self.poles.real.max(initial=-np.inf):.4g} "
                 f"(nominal {self.nominal_poles.real.max(initial=-np.inf):.4g})"]
        if self.peak is not None:
            lines.append(f"  H∞ norm: {np.nanmin(self.peak):.4g} .. {np.nanmax(self.peak):.4g}"
                         f" (nominal {self.nominal_peak:.4g})")
            pk = self.channel_peak
            for i, j in itertools.product(range(pk.shape[1]), range(pk.shape[2])):
                lines.append(f"  H∞ norm of {self.inputs[j]} -> {self.outputs[i]}: "
                             f"{np.nanmin(pk[:, i, j]):.4g} .. {np.nanmax(pk[:, i, j]):.4g}")
        return "\n".join(lines)

    def plot(self, output: str | None = None, input: str | None = None) -> Figure:
        """Pole cloud and Bode magnitude envelope of one channel; returns the Figure
        (:func:`titop_lpv.plots.plot_monte_carlo`).

        Parameters
        ----------
        output : str, optional
            Performance output of the envelope (default: the first).
        input : str, optional
            Performance input of the envelope (default: the first).
        """
        if self.magnitude is None:
            return plot_monte_carlo(self.poles, self.nominal_poles)
        i = self.outputs.index(output) if output else 0
        j = self.inputs.index(input) if input else 0
        return plot_monte_carlo(self.poles, self.nominal_poles, self.omega,
                                self.magnitude[:, :, i, j], self.nominal_magnitude[:, i, j],
                                f"{self.inputs[j]} → {self.outputs[i]}")


def hinf_norm(R: ABCD, dt: Any = 0) -> tuple[float, float]:
    """H∞ norm of a stable system and its frequency (``control.linfnorm``, SLICOT AB13DD,
    relative accuracy 1e-10); ``(inf, nan)`` when a pole has a real part ≥ 0 (continuous)
    or a modulus ≥ 1 (discrete), as MATLAB's ``hinfnorm``; ``σ̄(D)`` without states.

    Parameters
    ----------
    R : ABCD
        The system's matrices.
    dt : float, optional
        Timebase (0: continuous).

    Returns
    -------
    (float, float)
        The norm and the frequency [rad/s] where it is attained.
    """
    if R.p == 0 or R.m == 0:
        return 0.0, 0.0
    if R.n == 0:
        return float(np.linalg.norm(R.D, 2)), 0.0
    ev = np.linalg.eigvals(R.A)
    if (np.abs(ev).max() >= 1) if dt else (ev.real.max() >= 0):
        return np.inf, np.nan
    g, f = control.linfnorm(control.ss(*R, dt or 0), tol=1e-10)
    return float(g), float(f)


def _evaluate(S: ABCD, deltas: np.ndarray, omega: np.ndarray, perf: bool
              ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Poles, |F_u(M, Δ)(jω)| and H∞ norms (``[whole, per channel…]``) of a chunk of samples
    (module level: picklable for executors); ``S`` is the LFT ``M``. Ill-posed samples
    (I − D11 Δ singular) get NaN."""
    n, nw, nz = deltas.shape
    ny, nu = S.p - nz, S.m - nw
    poles = np.full((n, S.n), np.nan + 0j)
    mag = np.full((n, omega.size, ny, nu), np.nan) if perf else None
    peaks = np.full((n, 2 + ny * nu), np.nan) if perf else None
    for k, delta in enumerate(deltas):
        try:
            R = lft_upper_abcd(S, delta, max_cond=LOOP_MAX_COND)
        except IllPosedError:
            continue
        if S.n:
            poles[k] = np.linalg.eigvals(R.A)
        if perf:
            mag[k] = np.abs(freqresp(R, omega))
            peaks[k, :2] = hinf_norm(R)
            for c, (i, j) in enumerate(itertools.product(range(ny), range(nu))):
                peaks[k, 2 + c] = hinf_norm(ABCD(R.A, R.B[:, [j]], R.C[[i]], R.D[[i]][:, [j]]))[0]
    return poles, mag, peaks


def _sample(blocks: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` real static Δ of the structure ``blocks`` (a DeltaStructure; see
    :func:`monte_carlo`)."""
    out = []
    for _ in range(n):
        vals = []
        for b in blocks:
            if b.kind == "full":
                G = rng.normal(size=(b.rows, b.cols))
                vals.append(G / np.linalg.norm(G, 2) * rng.uniform())
            else:
                vals.append(rng.uniform(-1, 1))
        out.append(delta_matrix(blocks, vals).real)
    return np.array(out)


def monte_carlo(M: Any, blocks: Any = None, n: int = 200, *, seed: int = 0,
                omega: Sequence[float] | np.ndarray | None = None,
                executor: Executor | None = None,
                progress: bool | Callable[[int, int], None] = False,
                chunksize: int = 50) -> MonteCarloResult:
    """Poles and Bode magnitudes of F_u(M, Δ) for ``n`` random Δ.

    Parameters
    ----------
    M : USS or control.StateSpace
        The uncertain system, or its LFT (first ``n_w`` inputs / ``n_z`` outputs are the
        Δ channels).
    blocks : optional
        Block structure, with a StateSpace only.
    n : int
        Number of samples.
    seed : int
        Seed of the samples: the result does not depend on the executor or the chunk size.
    omega : array_like, optional
        Frequencies [rad/s] of the Bode magnitudes (default: 0 and 200 points around the
        moduli of the poles at Δ = 0).
    executor : concurrent.futures.Executor, optional
        Evaluate chunks of samples in parallel (processes, threads, a Dask cluster's
        ``client.get_executor()``).
    progress : bool or callable
        ``True``: a text progress bar on stderr; a callable ``f(done, total)`` is called
        after each chunk; ``False`` (default): silent.
    chunksize : int
        Samples per chunk.

    Returns
    -------
    MonteCarloResult
        Real δ uniform in [−1, 1]; complex scalar blocks sampled as real values in [−1, 1]
        and full blocks as real matrices with σ̄ uniform in [0, 1] (real static Δ, a subset
        of the structure, so that every closed loop is a real system). Ill-posed samples
        (I − D11 Δ singular) get NaN poles and magnitudes.

    Raises
    ------
    RobustnessError
        ``n`` not an integer in [1, 10⁶], ``chunksize`` not a positive integer, a bad
        ``omega``, an invalid loop or structure, an ill-posed nominal loop.
    ArgumentTypeError, ArgumentError
        ``seed`` is not an integer >= 0, ``n`` or ``chunksize`` is not a number, or
        ``executor`` has no ``submit`` method.
    """
    n = check_count(n, "n (the number of samples)", minimum=1, maximum=MAX_SAMPLES,
                    error=RobustnessError)
    chunksize = check_count(chunksize, "chunksize", minimum=1, error=RobustnessError)
    seed = check_seed(seed, "seed", allow_none=False)
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise ArgumentTypeError(f"executor must be a concurrent.futures.Executor (with a "
                                f"submit method), got {type(executor).__name__}")
    lft = split_lft(M, blocks)
    st = lft.st
    omega = (default_omega(lft.poles(), 200) if omega is None
             else check_omega(omega, RobustnessError))
    perf = lft.B2.shape[1] > 0 and lft.C2.shape[0] > 0
    deltas = _sample(st.delta, int(n), np.random.default_rng(seed))
    S = lft.abcd
    cuts = [*range(0, int(n), int(chunksize)), int(n)]
    report = reporter(progress, int(n), "monte_carlo")
    if executor is None:
        parts = []
        for lo, hi in itertools.pairwise(cuts):
            parts.append(_evaluate(S, deltas[lo:hi], omega, perf))
            if report:
                report(hi, int(n))
    else:
        futs = [executor.submit(_evaluate, S, deltas[lo:hi], omega, perf)
                for lo, hi in itertools.pairwise(cuts)]
        parts, done = [], 0
        for f, (lo, hi) in zip(futs, itertools.pairwise(cuts)):
            parts.append(f.result())
            done += hi - lo
            if report:
                report(done, int(n))
    poles = np.concatenate([p for p, _, _ in parts])
    mag = np.concatenate([m for _, m, _ in parts]) if perf else None
    peaks = np.concatenate([k for _, _, k in parts]) if perf else None
    nom_vals = nominal_values(lft)
    nom = lft.closed(delta_matrix(st.delta, list(nom_vals.values())).real)
    if nom is None:
        raise RobustnessError("ill-posed loop at the nominal parameters (I − D11 Δ singular)")
    return MonteCarloResult(deltas, poles, omega, mag,
                            np.linalg.eigvals(nom[0]) if nom[0].size else np.zeros(0, complex),
                            np.abs(freqresp(nom, omega)) if perf else None, nom_vals,
                            tuple(lft.sys.input_labels[st.nw:]),
                            tuple(lft.sys.output_labels[st.nz:]),
                            peaks[:, 0] if perf else None, peaks[:, 1] if perf else None,
                            peaks[:, 2:].reshape(-1, *mag.shape[2:]) if perf else None,
                            hinf_norm(ABCD(*nom))[0] if perf else None)
