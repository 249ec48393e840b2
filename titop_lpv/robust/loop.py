"""The uncertain loop ``F_u(M, Δ)`` split into its parts, shared by the robustness analyses
(:mod:`titop_lpv.robust.stability`, :mod:`titop_lpv.robust.worst_case`,
:mod:`titop_lpv.robust.monte_carlo`).

The loop is given either as an uncertain system (:class:`titop_lpv.robust.uss.USS`, whose
``lftdata()`` gives M and Δ's structure, and whose parameters turn normalised δ back into
physical values) or as ``(M, blocks)``: ``M`` a ``control.StateSpace`` whose first ``n_w``
inputs ``w`` and first ``n_z`` outputs ``z`` are the Δ channels (``w = Δ z``,
``[z; y] = M [w; u]``); the remaining inputs ``u`` and outputs ``y`` are the performance
channels. The block structure is a :class:`~titop_lpv.robust.blocks.DeltaStructure` (real δ
normalised to [−1, 1], complex blocks to norm ≤ 1). With ``M = [[A, B1, B2], [C1, D11, D12],
[C2, D21, D22]]`` and a static Δ, ``L = Δ (I − D11 Δ)⁻¹`` and

    F_u(M, Δ) = (A + B1 L C1, B2 + B1 L D12, C2 + D21 L C1, D22 + D21 L D12).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import control
import numpy as np

from ..exceptions import ShapeError, TitopError
from .abcd import ABCD, IllPosedError, lft_upper_abcd
from .blocks import StructureError, UncertaintyError, as_structure
from .checks import check_finite, numeric_array, tf_to_ss
from .structure import MuStructure

__all__ = ["AXIS_TOL", "LOOP_MAX_COND", "LoopLFT", "RobustnessError", "check_stable", "close_lft",
           "delta_matrix", "nominal_values", "on_axis", "physical_values", "split_lft"]

AXIS_TOL = 1e-6  # |Re p| <= AXIS_TOL * max(1, |p|): the pole is on the imaginary axis
LOOP_MAX_COND = 1e12  # I − D11 Δ with a larger condition number: an ill-posed loop


def on_axis(poles: Any, tol: float = AXIS_TOL) -> np.ndarray | bool:
    """Whether poles lie on the imaginary axis: ``|Re p| <= tol · max(1, |p|)``.

    Parameters
    ----------
    poles : complex or array_like
        One pole or several.
    tol : float, optional
        Relative tolerance (default :data:`AXIS_TOL`).

    Returns
    -------
    bool or ndarray of bool
        Of the shape of ``poles``.

    Examples
    --------
    >>> on_axis([1e-9 + 2j, -1e-3 + 1j, 0.0])
    array([ True, False,  True])
    """
    p = np.asarray(poles, complex)
    out = np.abs(p.real) <= tol * np.maximum(1.0, np.abs(p))
    return bool(out) if out.ndim == 0 else out


class RobustnessError(TitopError, ValueError):
    """A robustness analysis cannot be run: unstable nominal loop, sizes that do not match."""


@dataclass(frozen=True)
class LoopLFT:
    """The parts of an uncertain loop ``[z; y] = M [w; u]``, ``w = Δ z`` (module docstring).

    Parameters
    ----------
    A, B1, B2, C1, C2, D11, D12, D21, D22 : ndarray
        The partitioned state-space matrices of ``M`` (1: Δ channels, 2: performance).
    st : MuStructure
        The block structure.
    sys : control.StateSpace
        ``M`` itself.
    uss : USS or None
        The uncertain system the loop came from (None for ``(M, blocks)``).
    """

    A: np.ndarray
    B1: np.ndarray
    B2: np.ndarray
    C1: np.ndarray
    C2: np.ndarray
    D11: np.ndarray
    D12: np.ndarray
    D21: np.ndarray
    D22: np.ndarray
    st: MuStructure
    sys: Any
    uss: Any = None

    @functools.cached_property
    def abcd(self) -> ABCD:
        """The matrices of ``M``: inputs ``[w; u]``, outputs ``[z; y]``."""
        return ABCD(self.A, np.hstack([self.B1, self.B2]), np.vstack([self.C1, self.C2]),
                    np.block([[self.D11, self.D12], [self.D21, self.D22]]))

    def closed(self, delta: np.ndarray) -> ABCD | None:
        """``(A, B, C, D)`` of ``F_u(M, Δ)`` for a static Δ
        (:func:`~titop_lpv.robust.abcd.lft_upper_abcd`), or None when ``I − D11 Δ`` is
        singular (condition number above :data:`LOOP_MAX_COND`: ill-posed).

        Parameters
        ----------
        delta : ndarray (n_w, n_z)
            The Δ.
        """
        try:
            return lft_upper_abcd(self.abcd, delta, max_cond=LOOP_MAX_COND)
        except IllPosedError:
            return None

    def poles(self) -> np.ndarray:
        """Poles of the loop at Δ = 0 (the centre of the box): the eigenvalues of ``A``."""
        return np.linalg.eigvals(self.A) if self.A.size else np.zeros(0, complex)

    def m11(self) -> control.StateSpace:
        """The Δ-channel part ``M11`` (from ``w`` to ``z``), whose μ the analyses bound."""
        return control.ss(self.A, self.B1, self.C1, self.D11)


def split_lft(M: Any, blocks: Any, perf: bool = False) -> LoopLFT:
    """The parts of the loop of ``M`` (a USS, or a StateSpace with ``blocks``), sizes checked.

    Parameters
    ----------
    M : USS or control.StateSpace
        The uncertain system, or its LFT.
    blocks : DeltaStructure or sequence or None
        Block structure, with a StateSpace only.
    perf : bool, optional
        Require performance channels (default False).

    Returns
    -------
    LoopLFT

    Raises
    ------
    RobustnessError
        Blocks given with a USS or missing with a StateSpace, an invalid structure, a
        discrete-time ``M``, sizes that do not match or a NaN or infinite matrix entry.
    """
    uss = None
    if hasattr(M, "lftdata") and hasattr(M, "params"):
        if blocks is not None:
            raise RobustnessError(f"{type(M).__name__} {M.name or ''!s} carries its own Δ "
                                  "structure: pass it without blocks")
        uss, (M, blocks) = M, M.lftdata()
    elif blocks is None:
        raise RobustnessError(f"blocks are needed with a {type(M).__name__}: pass an "
                              "uncertain system (USS) or (M, blocks)")
    try:
        st = MuStructure(blocks)
    except StructureError as exc:
        raise RobustnessError(str(exc)) from None
    if isinstance(M, control.TransferFunction):
        M = tf_to_ss(M, "M")
    if not isinstance(M, control.StateSpace):
        raise RobustnessError(f"M must be a control.StateSpace or a USS, got "
                              f"{type(M).__name__}")
    if M.dt not in (0, None):
        raise RobustnessError(f"M is discrete-time (dt = {M.dt}); only continuous time is "
                              "handled")
    nx, nu, ny = M.nstates, M.ninputs, M.noutputs
    if nu < st.nw or ny < st.nz or (perf and (nu == st.nw or ny == st.nz)):
        need = "more than" if perf else "at least"
        raise RobustnessError(f"M has {nu} inputs and {ny} outputs; the structure needs "
                              f"{need} n_w = {st.nw} inputs (w) and {need} n_z = {st.nz} "
                              "outputs (z)" + (" (the rest are the performance channels)"
                                               if perf else ""))
    A, B, C, D = (check_finite(np.asarray(getattr(M, m), float), f"M.{m}", RobustnessError)
                  for m in "ABCD")
    w, z = st.nw, st.nz
    return LoopLFT(A.reshape(nx, nx), B[:, :w], B[:, w:], C[:z], C[z:], D[:z, :w], D[:z, w:],
                   D[z:, :w], D[z:, w:], st, M, uss)


def physical_values(lft: LoopLFT, values: Mapping[str, Any]) -> dict[str, Any]:
    """Physical values of normalised block values (empty without an uncertain system):
    ureal/ucomplex through their ``from_delta``; unmodelled dynamics Δ₀ scaled by its bound.

    Parameters
    ----------
    lft : LoopLFT
        The loop.
    values : mapping
        ``{name: δ}``, normalised.

    Returns
    -------
    dict
    """
    if lft.uss is None:
        return {}
    out: dict[str, Any] = {}
    for name, v in values.items():
        a = lft.uss.params.get(name)
        if a is None:
            continue
        out[name] = a.from_delta(v) if hasattr(a, "from_delta") else a.bound * np.asarray(v)
    return out


def nominal_values(lft: LoopLFT) -> dict[str, Any]:
    """Normalised block values at the nominal parameters: each ``ureal`` at the δ of its
    nominal value (not the centre of its range), ``ucomplex`` and unmodelled dynamics at 0;
    every block at 0 without an uncertain system.

    Parameters
    ----------
    lft : LoopLFT
        The loop.

    Returns
    -------
    dict
        ``{name: δ}`` in block order.
    """
    out: dict[str, Any] = {}
    for b in lft.st.blocks:
        p = lft.uss.params.get(b.name) if lft.uss is not None else None
        out[b.name] = (float(getattr(p, "delta_nominal", 0.0)) if b.kind == "real" and p
                       is not None else 0.0 if b.kind != "full" else np.zeros((b.rows, b.cols)))
    return out


def check_stable(lft: LoopLFT) -> np.ndarray:
    """The poles of the loop at Δ = 0 (the centre of the box), checked stable.

    Parameters
    ----------
    lft : LoopLFT
        The loop.

    Returns
    -------
    ndarray
        The poles.

    Raises
    ------
    RobustnessError
        If a pole is in the closed right half-plane.
    """
    poles = lft.poles()
    if poles.size and poles.real.max() >= 0:
        bad = poles[poles.real >= 0]
        raise RobustnessError(f"the loop at the centre of the box (Δ = 0) is not stable: "
                              f"poles {np.round(bad, 6)} in the closed right half-plane")
    return poles


def delta_matrix(blocks: Any, values: Any) -> np.ndarray:
    """Δ (``n_w × n_z``) from the value of each block
    (:meth:`~titop_lpv.robust.blocks.DeltaStructure.matrix`).

    Parameters
    ----------
    blocks : DeltaStructure or sequence
        Block structure (see :func:`~titop_lpv.robust.blocks.as_structure`).
    values : sequence or mapping
        One value per block, in order or by name: a number for scalar blocks, a
        ``rows × cols`` array for full blocks (repeated ``repeats`` times).

    Returns
    -------
    ndarray
        Real when every value is real, else complex.

    Raises
    ------
    RobustnessError
        An invalid structure, or values that do not fit it.

    Examples
    --------
    >>> delta_matrix([("real", 1, 1, 2, "k"), ("complex", 1, 1, 1, "c")], {"k": 0.5, "c": 1j})
    array([[0.5+0.j, 0. +0.j, 0. +0.j],
           [0. +0.j, 0.5+0.j, 0. +0.j],
           [0. +0.j, 0. +0.j, 0. +1.j]])
    """
    try:
        out = as_structure(blocks).matrix(values)
    except (StructureError, UncertaintyError, ShapeError) as exc:
        raise RobustnessError(str(exc)) from None
    out = np.asarray(out, complex)
    return out.real if not np.any(out.imag) else out


def close_lft(M: control.StateSpace, delta: np.ndarray, blocks: Any = None) -> control.StateSpace:
    """Upper LFT ``F_u(M, Δ)`` with a static real Δ, keeping the signal names.

    Parameters
    ----------
    M : control.StateSpace
        The LFT (first inputs/outputs are w/z).
    delta : (n_w, n_z) array_like, real
        The perturbation (see :func:`delta_matrix`).
    blocks : DeltaStructure or sequence, optional
        Structure, to check Δ's size against it.

    Returns
    -------
    control.StateSpace
        From the performance inputs ``u`` to the performance outputs ``y``.

    Raises
    ------
    RobustnessError
        Wrong sizes (no performance channel left), complex or non-finite Δ, an ill-posed
        loop (I − D11 Δ singular) or one that overflows.
    ArgumentTypeError
        ``delta`` is not numeric.
    """
    delta = numeric_array(delta, "delta", error=RobustnessError)
    if delta.ndim > 2:
        raise RobustnessError(f"delta must be a matrix, got shape {delta.shape}")
    delta = np.atleast_2d(delta)
    if np.any(delta.imag):
        raise RobustnessError("close_lft needs a real Δ (a complex Δ gives a complex system)")
    delta = delta.real
    nw, nz = delta.shape
    lft = split_lft(M, blocks if blocks is not None else [("full", nw, nz, 1)], perf=True)
    if delta.shape != (lft.st.nw, lft.st.nz):
        raise RobustnessError(f"Δ is {nw}x{nz}, the structure needs {lft.st.nw}x{lft.st.nz}")
    mats = lft.closed(delta)
    if mats is None:
        raise RobustnessError("ill-posed loop: I − D11 Δ is singular for this Δ")
    if not all(np.all(np.isfinite(X)) for X in mats):
        raise RobustnessError("the closed loop F_u(M, Δ) overflows (entries beyond the largest "
                              "float): scale M")
    M = lft.sys
    return control.ss(*mats, states=list(M.state_labels), inputs=list(M.input_labels[nw:]),
                      outputs=list(M.output_labels[nz:]), name=f"{M.name}_closed")
