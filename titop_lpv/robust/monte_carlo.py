"""Monte-Carlo sampling of an uncertain loop ``F_u(M, Δ)``: poles and Bode magnitudes."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..progress import reporter
from .mu import freqresp
from .stability import RobustnessError, _default_omega, _lft, _nominal_values, delta_matrix
from .structure import check_omega
from .worst_case import _SS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["MonteCarloResult", "monte_carlo"]


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

    @property
    def unstable(self) -> np.ndarray:
        """Mask of the samples with a pole in the closed right half-plane."""
        return self.poles.real.max(axis=1, initial=-np.inf) >= 0

    def report(self) -> str:
        """Sample count, instability and the spread of the poles and gains."""
        lines = [f"Monte-Carlo: {self.deltas.shape[0]} samples, {int(self.unstable.sum())} "
                 f"unstable; largest pole real part {self.poles.real.max(initial=-np.inf):.4g} "
                 f"(nominal {self.nominal_poles.real.max(initial=-np.inf):.4g})"]
        if self.magnitude is not None:
            pk = self.magnitude.max(axis=1)
            for i, j in itertools.product(range(pk.shape[1]), range(pk.shape[2])):
                lines.append(f"  peak |{self.inputs[j]} -> {self.outputs[i]}|: "
                             f"{pk[:, i, j].min():.4g} .. {pk[:, i, j].max():.4g} (nominal "
                             f"{self.nominal_magnitude[:, i, j].max():.4g})")
        return "\n".join(lines)

    def plot(self, output: str | None = None, input: str | None = None) -> Figure:
        """Pole cloud and Bode magnitude envelope of one channel; returns the Figure."""
        import matplotlib.pyplot as plt

        ncol = 2 if self.magnitude is not None else 1
        fig, axes = plt.subplots(1, ncol, figsize=(5.5 * ncol, 4), layout="constrained",
                                 squeeze=False)
        a = axes[0, 0]
        p = self.poles.ravel()
        a.plot(p.real, p.imag, ".", ms=2, alpha=0.4, label="samples")
        a.plot(self.nominal_poles.real, self.nominal_poles.imag, "x", color="k",
               label="nominal")
        a.axvline(0.0, color="k", lw=0.6)
        a.set_xlabel("Re [rad/s]")
        a.set_ylabel("Im [rad/s]")
        a.grid(True, alpha=0.3)
        a.legend()
        if self.magnitude is not None:
            i = self.outputs.index(output) if output else 0
            j = self.inputs.index(input) if input else 0
            a, pos = axes[0, 1], self.omega > 0
            mag = 20 * np.log10(np.maximum(self.magnitude[:, pos, i, j], 1e-300))
            a.fill_between(self.omega[pos], mag.min(0), mag.max(0), alpha=0.3,
                           label="envelope")
            a.semilogx(self.omega[pos],
                       20 * np.log10(np.maximum(self.nominal_magnitude[pos, i, j], 1e-300)),
                       color="k", label="nominal")
            a.set_xlabel("ω [rad/s]")
            a.set_ylabel("magnitude [dB]")
            a.set_title(f"{self.inputs[j]} → {self.outputs[i]}")
            a.grid(True, which="both", alpha=0.3)
            a.legend()
        return fig


def _evaluate(mats: tuple[np.ndarray, ...], deltas: np.ndarray, omega: np.ndarray,
              perf: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Poles and |F_u(M, Δ)(jω)| of a chunk of samples (module level: picklable for
    executors). ``mats`` = (A, B1, B2, C1, C2, D11, D12, D21, D22)."""
    A, B1, B2, C1, C2, D11, D12, D21, D22 = mats
    n, nx = deltas.shape[0], A.shape[0]
    poles = np.full((n, nx), np.nan + 0j)
    mag = np.full((n, omega.size, C2.shape[0], B2.shape[1]), np.nan) if perf else None
    E = np.eye(D11.shape[0]) - D11 @ deltas
    ok = np.linalg.cond(E) <= 1e12  # I − D11 Δ invertible: a well-posed loop
    L = np.zeros_like(deltas)
    L[ok] = deltas[ok] @ np.linalg.inv(E[ok])
    Acl = A + B1 @ L @ C1
    if nx:
        poles[ok] = np.linalg.eigvals(Acl[ok])
    if perf:
        for k in np.flatnonzero(ok):
            sys = _SS(Acl[k], B2 + B1 @ L[k] @ D12, C2 + D21 @ L[k] @ C1,
                      D22 + D21 @ L[k] @ D12)
            mag[k] = np.abs(freqresp(sys, omega))
    return poles, mag


def _sample(blocks: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` real static Δ of the structure (see :func:`monte_carlo`)."""
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
    """
    if int(n) != n or n < 1:
        raise RobustnessError(f"n must be a positive integer, got {n!r}")
    if int(chunksize) != chunksize or chunksize < 1:
        raise RobustnessError(f"chunksize must be a positive integer, got {chunksize!r}")
    lft = _lft(M, blocks)
    st = lft.st
    omega = (_default_omega(lft, 200) if omega is None
             else check_omega(omega, RobustnessError))
    perf = lft.B2.shape[1] > 0 and lft.C2.shape[0] > 0
    deltas = _sample(st.blocks, int(n), np.random.default_rng(seed))
    mats = (lft.A, lft.B1, lft.B2, lft.C1, lft.C2, lft.D11, lft.D12, lft.D21, lft.D22)
    cuts = [*range(0, int(n), int(chunksize)), int(n)]
    report = reporter(progress, int(n), "monte_carlo")
    if executor is None:
        parts = []
        for lo, hi in itertools.pairwise(cuts):
            parts.append(_evaluate(mats, deltas[lo:hi], omega, perf))
            if report:
                report(hi, int(n))
    else:
        futs = [executor.submit(_evaluate, mats, deltas[lo:hi], omega, perf)
                for lo, hi in itertools.pairwise(cuts)]
        parts, done = [], 0
        for f, (lo, hi) in zip(futs, itertools.pairwise(cuts)):
            parts.append(f.result())
            done += hi - lo
            if report:
                report(done, int(n))
    poles = np.concatenate([p for p, _ in parts])
    mag = np.concatenate([m for _, m in parts]) if perf else None
    nom_vals = _nominal_values(lft)
    nom = lft.closed(delta_matrix(st.blocks, list(nom_vals.values())).real)
    if nom is None:
        raise RobustnessError("ill-posed loop at the nominal parameters (I − D11 Δ singular)")
    return MonteCarloResult(deltas, poles, omega, mag,
                            np.linalg.eigvals(nom[0]) if nom[0].size else np.zeros(0, complex),
                            np.abs(freqresp(_SS(*nom), omega)) if perf else None, nom_vals,
                            tuple(lft.sys.input_labels[st.nw:]),
                            tuple(lft.sys.output_labels[st.nz:]))
