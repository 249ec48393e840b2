"""Evaluation of uncertain systems: at given (normalised or physical) values, on grids, at
the vertices of the parameter box and at random samples.

The evaluated system is ``F_u(M, Δ)`` with ``Δ`` assembled block by block (constant, or a
state-space system for an ``ultidyn`` given as a StateSpace). python-control systems are
real, so a complex value (``ucomplex`` off the real axis, complex ``ultidyn`` matrix) gives
a :class:`ComplexStateSpace`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import control
import numpy as np

from ..exceptions import ShapeError
from .abcd import ABCD, abcd_append, lft_upper_abcd, static_abcd, unique_names
from .blocks import UncertaintyError
from .checks import check_count, check_finite, check_seed, numeric_array, tf_to_ss
from .system import LFTSystem

__all__ = ["ComplexStateSpace", "evaluate", "grid", "normalise", "sample_delta", "statespace",
           "vertices"]


@dataclass(frozen=True)
class ComplexStateSpace:
    """A state-space system with complex matrices (python-control's StateSpace is real).

    Parameters
    ----------
    A, B, C, D : ndarray
        Complex matrices.
    dt : None, 0, True or float
        python-control timebase.
    input_labels, output_labels, state_labels : tuple of str
        Signal names.
    name : str or None
        System name.

    Raises
    ------
    ShapeError
        Matrices whose shapes do not fit.
    ArgumentTypeError, ArgumentError
        Non-numeric matrices, or NaN or infinite entries.
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    dt: Any
    input_labels: tuple[str, ...]
    output_labels: tuple[str, ...]
    state_labels: tuple[str, ...]
    name: str | None = None

    def __post_init__(self) -> None:
        mats = {m: numeric_array(getattr(self, m), m, ndim=2) for m in "ABCD"}
        A, B, C, D = mats.values()
        n, m, p = A.shape[0], D.shape[1], D.shape[0]
        if A.shape != (n, n) or B.shape != (n, m) or C.shape != (p, n):
            raise ShapeError(f"ComplexStateSpace: A {A.shape}, B {B.shape}, C {C.shape} and D "
                             f"{D.shape} do not fit (n×n, n×m, p×n, p×m)")
        for k, v in mats.items():
            object.__setattr__(self, k, v)

    @property
    def ninputs(self) -> int:
        """Number of inputs."""
        return self.D.shape[1]

    @property
    def noutputs(self) -> int:
        """Number of outputs."""
        return self.D.shape[0]

    @property
    def nstates(self) -> int:
        """Number of states."""
        return self.A.shape[0]

    def __call__(self, x: complex) -> np.ndarray:
        """Transfer matrix ``C (x I − A)⁻¹ B + D`` (noutputs × ninputs) at ``x``.

        Parameters
        ----------
        x : complex
            The point ``s`` (continuous time) or ``z`` (discrete time).
        """
        n = self.nstates
        return self.C @ np.linalg.solve(x * np.eye(n) - self.A, self.B) + self.D

    def frequency_response(self, omega: Sequence[float]) -> np.ndarray:
        """Transfer matrices at ``s = jω`` (or ``z = e^{jω dt}``), shape (p, m, len(ω)).

        Parameters
        ----------
        omega : sequence of float
            Frequencies [rad/s].
        """
        discrete = self.dt not in (None, 0) and self.dt is not False
        h = 1.0 if self.dt is True else self.dt
        xs = [np.exp(1j * w * h) if discrete else 1j * w for w in np.atleast_1d(omega)]
        return np.stack([self(x) for x in xs], axis=-1)

    def poles(self) -> np.ndarray:
        """Eigenvalues of ``A``."""
        return np.linalg.eigvals(self.A)


def normalise(G: LFTSystem, values: Mapping[str, Any], *, physical: bool) -> dict[str, Any]:
    """Normalised value of every block: the given ones, the nominal for the others.

    Parameters
    ----------
    G : LFTSystem
        The uncertain system (a :class:`~titop_lpv.robust.uss.USS`).
    values : mapping
        ``{name: value}`` (physical values if ``physical``, else normalised δ).
    physical : bool
        Whether ``values`` are physical.

    Returns
    -------
    dict
        ``{name: δ}`` for every block of ``G``: float, complex, array or StateSpace.
    """
    out: dict[str, Any] = {}
    for name, a in G.params.items():
        out[name] = (a.delta_nominal if a.kind == "real" else 0.0 if a.kind == "complex"
                     else np.zeros(a.shape))
    for key, v in values.items():
        if key not in G.params:
            raise UncertaintyError(f"unknown parameter {key!r}: {G.name or 'the system'} "
                                   f"depends on {list(G.params)}")
        a = G.params[key]
        if a.kind == "real":
            out[key] = a.to_delta(v) if physical else _real(v, key)
        elif a.kind == "complex":
            out[key] = a.to_delta(v) if physical else _complex(v, key)
        else:
            out[key] = _full(a, v, physical)
    return out


def _real(v: Any, key: str) -> float:
    z = _num(v, key, complex)
    if z.imag != 0 or not math.isfinite(z.real):
        raise UncertaintyError(f"parameter {key!r}: δ must be a finite real number, got {v!r}")
    return z.real


def _complex(v: Any, key: str) -> complex:
    z = complex(_num(v, key, complex))
    if not (math.isfinite(z.real) and math.isfinite(z.imag)):
        raise UncertaintyError(f"parameter {key!r}: δ must be finite, got {v!r}")
    return z


def _num(v: Any, key: str, kind: type = float) -> Any:
    try:
        return kind(v)
    except (TypeError, ValueError):
        raise UncertaintyError(f"parameter {key!r}: expected a {kind.__name__} value, "
                               f"got {v!r}") from None


def _full(a: Any, v: Any, physical: bool) -> Any:
    scale = 1.0 / a.bound if physical else 1.0
    if isinstance(v, control.TransferFunction):
        v = tf_to_ss(v, f"ultidyn {a.name!r}: value")
    if isinstance(v, control.StateSpace):
        if (v.noutputs, v.ninputs) != a.shape:
            raise ShapeError(f"ultidyn {a.name!r}: value is {v.noutputs}×{v.ninputs} "
                             f"(outputs × inputs), expected {a.shape[0]}×{a.shape[1]}")
        for m in "ABCD":
            check_finite(np.asarray(getattr(v, m)), f"ultidyn {a.name!r}: value.{m}",
                         UncertaintyError)
        return control.ss(v.A, v.B, scale * v.C, scale * v.D, v.dt)
    try:
        arr = np.asarray(v)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise UncertaintyError(f"ultidyn {a.name!r}: expected an array or a StateSpace, "
                               f"got {v!r}")
    arr = check_finite(np.atleast_2d(arr), f"ultidyn {a.name!r}: value", UncertaintyError)
    if arr.shape != a.shape:
        raise ShapeError(f"ultidyn {a.name!r}: value has shape {arr.shape}, expected {a.shape}")
    return scale * arr


def evaluate(G: LFTSystem, deltas: Mapping[str, Any]) -> Any:
    """``F_u(M, Δ)`` at normalised values, with ``G``'s signal names.

    Parameters
    ----------
    G : LFTSystem
        The uncertain system (a :class:`~titop_lpv.robust.uss.USS`).
    deltas : mapping
        ``{name: δ}`` for every block (see :func:`normalise`).

    Returns
    -------
    control.StateSpace or ComplexStateSpace
    """
    blocks, S = G.delta.blocks, G.abcd
    what = f"{G.name or 'the uncertain system'} at the given values"
    dyn = [b for b in blocks if isinstance(deltas[b.name], control.StateSpace)]
    states, dt = G.state_labels, G.dt
    if not dyn:
        R = lft_upper_abcd(S, G.delta.matrix(deltas), what=what)
    else:
        parts, dstates = [], []
        for b in blocks:
            v = deltas[b.name]
            if isinstance(v, control.StateSpace):
                dt = control.iosys.common_timebase(dt, v.dt)
                for j in range(b.repeats):
                    parts.append(ABCD(v.A, v.B, v.C, v.D))
                    tag = b.name if b.repeats == 1 else f"{b.name}{j + 1}"
                    dstates += [f"{tag}_x{i}" for i in range(v.nstates)]
            else:
                parts.append(static_abcd(np.kron(np.eye(b.repeats), np.atleast_2d(v))))
        R = lft_upper_abcd(S, abcd_append(*parts), what=what)  # states [x_M; x_Δ]
        states = states + dstates
    states = unique_names(states, "x")
    if any(np.iscomplexobj(M) and np.any(np.imag(M) != 0) for M in R):
        return ComplexStateSpace(*R, dt, tuple(G.input_labels), tuple(G.output_labels),
                                 tuple(states), G.name)
    return statespace(*(np.real(M) for M in R), dt, inputs=G.input_labels,
                      outputs=G.output_labels, states=states, name=G.name)


_PLACEHOLDER = "_placeholder_input"


def statespace(A: Any, B: Any, C: Any, D: Any, dt: Any = 0, *, inputs: Sequence[str],
               outputs: Sequence[str], states: Sequence[str],
               name: str | None = None) -> control.StateSpace:
    """``control.ss`` with named signals, also without inputs or outputs.

    python-control 0.10.2 (its issue #1176) turns a ``(1, 0)`` matrix into ``(0, 0)``
    before checking the shapes, so it refuses a system without inputs that has one output
    (``D`` is 1×0) or one state (``B`` is 1×0). Such a system is built with one placeholder
    input (zero columns of ``B`` and ``D``) which is then removed (``set_inputs([])``, the
    true empty ``B`` and ``D`` put back); the shapes and names are checked. Responses, poles
    and frequency responses work on the result.

    Parameters
    ----------
    A, B, C, D : array_like
        Real matrices, ``(n_x, n_x)``, ``(n_x, n_u)``, ``(n_y, n_x)``, ``(n_y, n_u)``.
    dt : None, 0, True or float, optional
        python-control timebase.
    inputs, outputs, states : sequence of str
        Signal names, ``n_u``, ``n_y`` and ``n_x`` of them.
    name : str, optional
        System name.

    Returns
    -------
    control.StateSpace

    Raises
    ------
    ShapeError
        Matrices that do not fit the names, or a system python-control cannot hold even so
        (no state, no input and one output).

    Examples
    --------
    >>> import numpy as np
    >>> S = statespace(-np.eye(1), np.zeros((1, 0)), np.ones((1, 1)), np.zeros((1, 0)),
    ...                inputs=[], outputs=["y"], states=["x"])
    >>> S.ninputs, S.noutputs, S.nstates
    (0, 1, 1)
    """
    A, B, C, D = (np.asarray(M, dtype=float) for M in (A, B, C, D))
    n_x, n_u, n_y = len(states), len(inputs), len(outputs)
    if (A.shape, B.shape, C.shape, D.shape) != ((n_x, n_x), (n_x, n_u), (n_y, n_x), (n_y, n_u)):
        raise ShapeError(f"state-space shapes A {A.shape}, B {B.shape}, C {C.shape}, "
                         f"D {D.shape} do not match {n_x} states, {n_u} inputs and {n_y} "
                         "outputs")
    names = {"inputs": list(inputs), "outputs": list(outputs), "states": list(states)}
    if not (n_u == 0 and (n_x == 1 or n_y == 1)):
        return control.ss(A, B, C, D, dt, name=name, **names)
    if n_x == 0:
        raise ShapeError(f"{name or 'the system'}: python-control {control.__version__} "
                         f"cannot hold a system with no state, no input and one output "
                         f"({outputs[0]!r}): keep an input or a second output")
    sys = control.ss(A, np.zeros((n_x, 1)), C, np.zeros((n_y, 1)), dt, name=name,
                     inputs=[_PLACEHOLDER], outputs=names["outputs"], states=names["states"])
    sys.set_inputs([])
    sys.B, sys.D = B.reshape(n_x, 0), D.reshape(n_y, 0)
    if (sys.ninputs, sys.B.shape, sys.D.shape, list(sys.input_labels)) != (0, B.shape,
                                                                           D.shape, []) \
            or list(sys.state_labels) != names["states"] \
            or list(sys.output_labels) != names["outputs"]:
        raise ShapeError(f"python-control {control.__version__}: the workaround for a system "
                         "with no input and one output or state (its issue #1176) did not "
                         "give the expected shapes")
    return sys


def grid(G: LFTSystem, values: Mapping[str, Sequence[Any]]) -> np.ndarray:
    """Systems on a grid of physical values (others at their nominal).

    Parameters
    ----------
    G : LFTSystem
        The uncertain system (a :class:`~titop_lpv.robust.uss.USS`).
    values : mapping
        ``{name: sequence of values}``.

    Returns
    -------
    ndarray of control.StateSpace, shape ``(len(v_1), len(v_2), …)``
    """
    if not isinstance(values, Mapping):
        raise UncertaintyError(f"grid values must be a mapping {{name: sequence of values}}, "
                               f"got {values!r:.60}")
    names = list(values)
    axes = [list(np.atleast_1d(values[n])) for n in names]
    out = np.empty(tuple(len(a) for a in axes), dtype=object)
    for idx in np.ndindex(*out.shape):
        point = {n: axes[k][i] for k, (n, i) in enumerate(zip(names, idx))}
        out[idx] = evaluate(G, normalise(G, point, physical=True))
    return out


def vertices(G: LFTSystem) -> np.ndarray:
    """Systems at the vertices of the real-parameter box (δ = ±1; index 0 is −1).

    Parameters
    ----------
    G : LFTSystem
        The uncertain system (a :class:`~titop_lpv.robust.uss.USS`).

    Returns
    -------
    ndarray of control.StateSpace, shape ``(2,)·n_real`` in block order
    """
    names = [b.name for b in G.delta if b.kind == "real"]
    out = np.empty((2,) * len(names), dtype=object)
    for idx in np.ndindex(*out.shape):
        point = {n: (-1.0, 1.0)[i] for n, i in zip(names, idx)}
        out[idx] = evaluate(G, normalise(G, point, physical=False))
    return out


def sample_delta(G: LFTSystem, n: int, seed: Any = None) -> list[dict[str, Any]]:
    """Random normalised values (see :meth:`USS.sample_delta`).

    Parameters
    ----------
    G : LFTSystem
        The uncertain system (a :class:`~titop_lpv.robust.uss.USS`).
    n : int
        Number of samples (≥ 0).
    seed : int or numpy.random.Generator, optional
        Seed of ``numpy.random.default_rng``.

    Raises
    ------
    UncertaintyError
        ``n`` not an integer in [0, 10⁶].
    ArgumentTypeError, ArgumentError
        ``n`` is not a number, or ``seed`` is not None, an integer >= 0 or a Generator.
    """
    n = check_count(n, "number of samples n", maximum=10**6, error=UncertaintyError)
    rng = np.random.default_rng(check_seed(seed))
    out = []
    for _ in range(n):
        d: dict[str, Any] = {}
        for b in G.delta:
            if b.kind == "real":
                d[b.name] = rng.uniform(-1.0, 1.0)
            elif b.kind == "complex":
                d[b.name] = math.sqrt(rng.uniform()) * np.exp(2j * np.pi * rng.uniform())
            else:
                X = rng.standard_normal((b.rows, b.cols))
                d[b.name] = X * (rng.uniform() / np.linalg.norm(X, 2))
        out.append(d)
    return out
