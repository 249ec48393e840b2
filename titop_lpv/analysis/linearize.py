"""Exact linearisation into python-control ``StateSpace`` models with named signals.

Jacobians are computed by complex step — ``f(x + i h e_k) = f(x) + i h ∂f/∂x_k + O(h²)`` with
``h = 1e-30`` — pushed through the whole evaluation, every direction in one batched call
(:mod:`~titop_lpv.analysis.complex_step`: the compiled kernels called directly; for an
operating point's float vectors, :mod:`~titop_lpv.analysis.linearize_fast`: what depends on
the parameters only kept per parameter vector, the batch, both kernels and the matrices in
one compiled call, bit-identical): exact to rounding, no step-size trade-off
(python-control's own ``linearize`` is a one-sided difference with a fixed 1e-6 step, about
1e-5 relative error). The ``StateSpace`` is a copy
of a cached one with the same signal names (:mod:`~titop_lpv.analysis.statespace_clone`;
python-control's constructor takes about 35 µs, the copy about 5 µs). For a
fixed-base tree of revolute and prismatic joints, ``A`` and ``B`` come from the analytic
derivatives of the Newton–Euler recursion in :mod:`titop_lpv.multibody.derivatives_kernel`
instead (O(N²) for N joints, not 2N sweeps).

The linear model acts on deviations from the operating point (``δx = x − x₀``,
``δu = u − u₀``, ``δy = y − y₀``)::

    δẋ = A δx + B δu,    δy = C δx + D δu.

States that :func:`linearize` leaves out (cyclic states of a spin point, pure integrators,
``drop=``, ``states=``) are listed on the returned system as ``sys.dropped_states``
(``name -> reason``) and logged at INFO level on the ``titop_lpv.analysis.linearize`` logger.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import control
import numpy as np

from ..exceptions import ShapeError, TitopError
from ..model.compiled import Model
from ..multibody.derivatives_kernel import jacobian_matrix
from ..multibody.dynamics import evaluate_outputs, forward_dynamics
from ..names import index as name_index
from . import complex_step, linearize_fast
from .arguments import (
    ArgumentError,
    ArgumentTypeError,
    flag,
    name_list,
    real,
)
from .attitude_error import attitude_error_map, quaternion_starts
from .complex_step import STEP, finite, perturbed, real_vector
from .jacobians_fast import fast_jacobians
from .operating_point import OperatingPoint
from .statespace_clone import clone_statespace

__all__ = ["Jacobians", "LinearMatrices", "LinearizationError", "jacobians", "linear_matrices",
           "linearize", "named_statespace"]

_F64 = np.dtype(np.float64)
_log = logging.getLogger(__name__)


class LinearizationError(TitopError, ValueError):
    """The point is not an equilibrium, or a state cannot be dropped; names the culprit."""


@dataclass(frozen=True)
class Jacobians:
    """Exact Jacobians of the dynamics ``f`` and outputs ``h`` at a point.

    Attributes
    ----------
    A, B : ndarray
        ``∂f/∂x`` (n_x, n_x), ``∂f/∂u`` (n_x, n_u).
    C, D : ndarray
        ``∂h/∂x`` (n_y, n_x), ``∂h/∂u`` (n_y, n_u).
    f0, y0 : ndarray
        ``f(x₀, u₀)`` (the drift; zero at an equilibrium) and ``h(x₀, u₀)``.
    Fp, Hp : ndarray or None
        Parameter sensitivities ``∂f/∂p`` (n_x, n_p), ``∂h/∂p`` (n_y, n_p) when asked.
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    f0: np.ndarray
    y0: np.ndarray
    Fp: np.ndarray | None = None
    Hp: np.ndarray | None = None


def jacobians(model: Model, x: Any, u: Any = None, params: Any = None, *,
              parameters: bool = False, outputs: bool = True) -> Jacobians:
    """Exact Jacobians of :meth:`Model.dynamics` and :meth:`Model.outputs` at ``(x, u, p)``.

    All state and input directions go through one batched complex-step evaluation of the
    dynamics (and one of the outputs); parameter sensitivities, when asked, through one more.
    A fixed-base tree of revolute and prismatic joints without loads, loops or driven
    joints takes ``A`` and ``B`` from the analytic derivatives of the Newton–Euler recursion
    (:func:`~titop_lpv.multibody.derivatives_kernel.jacobian_matrix`) once it is compiled,
    and without outputs or sensitivities, for float64 arrays, runs that kernel directly
    (:mod:`~titop_lpv.analysis.jacobians_fast`: ``C``, ``D``, ``y0`` shared, empty, read-only).

    Parameters
    ----------
    model : Model
        The compiled model.
    x : array_like (n_states,)
        State, in the order of ``model.state_names`` (SI units, angles in rad).
    u : array_like (n_inputs,), optional
        Input, in the order of ``model.input_names``. Default: zero.
    params : dict or array_like, optional
        Parameter values, as :meth:`Model.param_vector` reads them: a dict ``name -> value``
        (missing names take their default) or an array in ``model.param_names`` order.
        Default: the model's defaults.
    parameters : bool, default False
        Also compute ``∂f/∂p`` and ``∂h/∂p``.
    outputs : bool, default True
        Compute ``C`` and ``D``; if false they are empty and ``y0`` is an empty array.

    Returns
    -------
    Jacobians

    Raises
    ------
    ShapeError, ArgumentError, ArgumentTypeError
        ``x`` or ``u`` not real numbers of the right shape, a NaN or infinite entry (named),
        a batch of parameter vectors, or a flag that is not a bool.
    ParameterError, UnknownNameError
        Invalid parameter values or names.
    LinearizationError
        A derivative that is NaN or infinite (the column's state or input named).
    """
    if outputs is False and parameters is False:  # the common call: jacobians_fast.py
        fast = fast_jacobians(model, x, u, params, Jacobians)
        if fast is not None:
            return fast
    x = real_vector(x, "x", model.state_names, "state")
    n_x, n_u = model.n_states, model.n_inputs
    u = np.zeros(n_u) if u is None else real_vector(u, "u", model.input_names, "input")
    if type(parameters) is not bool:
        parameters = flag(parameters, "parameters")
    if type(outputs) is not bool:
        outputs = flag(outputs, "outputs")
    if type(params) is np.ndarray and params.dtype is _F64 and params.ndim == 1 \
            and params.shape[0] == len(model.param_names):
        p = params  # what param_vector returns for it (the values: checked by physics)
    else:
        p = model.param_vector(params)
    if type(p) is not np.ndarray or p.ndim != 1 or p.dtype.kind not in "biuf":
        if np.ndim(p) != 1 or np.iscomplexobj(p):
            raise ShapeError(f"jacobians needs one real parameter vector; params give shape "
                             f"{np.shape(p)} ({np.asarray(p).dtype})")
    if type(p) is not np.ndarray or p.dtype is not _F64:
        p = np.asarray(p, dtype=float)
    n = n_x + n_u
    fast = jacobian_matrix(model, x, u, p)  # (J = [A B], ẋ) or None
    Y = None
    if fast is None or outputs:  # the perturbed states and inputs, one row per direction
        X, U = perturbed(x, u)
    if fast is None:  # the compiled kernels directly, else the general route
        F, Y = complex_step.evaluate(model, model.physics(p), X, U, outputs)
        if F is None:
            F = forward_dynamics(model, X, U, p)
        f0 = F[-1].real
        J = F[:-1].imag.T / STEP
    else:
        J, f0 = fast
        if outputs:  # F as the complex step would give it, for the sensors' accelerations
            F = np.empty((n + 1, n_x), dtype=complex)
            F[:-1] = f0 + 1j * STEP * J.T
            F[-1] = f0
    A, B = J[:, :n_x], J[:, n_x:]
    K = None
    if outputs:  # the accelerations of the sensors: read from F (no second dynamics)
        if Y is None:
            Y = evaluate_outputs(model, X, U, p, xdot=F)
        y0 = Y[-1].real
        K = Y[:-1].imag.T / STEP
        C, D = K[:, :n_x], K[:, n_x:]
    else:
        y0 = np.zeros(0)
        C, D = np.zeros((0, n_x)), np.zeros((0, n_u))
    Fp = Hp = None
    if parameters and p.size:
        P = np.tile(p.astype(complex), (p.size, 1)) + 1j * STEP * np.eye(p.size)
        Fp = model.dynamics(0.0, x, u, P).imag.T / STEP
        Hp = model.outputs(0.0, x, u, P).imag.T / STEP if outputs else None
    if not (finite(J) and (K is None or finite(K))) or (Fp is not None and not (
            finite(Fp) and (Hp is None or finite(Hp)))):  # the common case: two reductions
        for what, M, names in (("∂f/∂(x, u)", J, None), ("∂h/∂(x, u)", K, None),
                               ("∂f/∂p", Fp, model.param_names),
                               ("∂h/∂p", Hp, model.param_names)):
            if M is not None and not finite(M):
                cols = (*model.state_names, *model.input_names) if names is None else names
                bad = np.argwhere(~np.isfinite(M))
                raise LinearizationError(f"{what} of model {model.name!r} is not finite in "
                                         f"the column of {cols[int(bad[0][1])]!r} (overflow)")
    return Jacobians(A, B, C, D, f0, y0, Fp, Hp)


def _names(value: Any, what: str) -> list[str] | None:
    """:func:`name_list`, with a shortcut for None and an empty tuple."""
    if value is None:
        return None
    if type(value) is tuple and not value:
        return []
    return name_list(value, what)


def _select(names: Sequence[str], wanted: Sequence[str] | None, what: str) -> list[int]:
    if wanted is None:
        return list(range(len(names)))
    return [name_index(w, names, what) for w in wanted]


def _integrators(model: Model, A: np.ndarray, keep: list[int]) -> list[int]:
    """Floating-base position and Euler-angle states that are pure integrators."""
    if not model.floating_base:
        return []
    base = model.base_index
    cand = [s for s in range(base + 6, base + 12) if s in keep]
    if not cand:
        return []
    scale = max(1.0, float(np.max(np.abs(A))))
    cols = np.abs(A[:, cand])  # a pure integrator's column is zero, its diagonal included
    return [s for s, small in zip(cand, np.max(cols, axis=0) <= 1e-12 * scale) if small]


def named_statespace(A: Any, B: Any, C: Any, D: Any, *, states: Sequence[str],
                     inputs: Sequence[str], outputs: Sequence[str],
                     name: str, copy: bool = True) -> control.StateSpace:
    """``control.StateSpace`` with named signals, also for shapes python-control 0.10.2 refuses.

    python-control 0.10.2 (issue #1176, fixed upstream by pull request #1221 but not yet
    released) turns every ``(1, 0)`` matrix into ``(0, 0)`` before checking the shapes, so it
    refuses a system without inputs that has one output (``D`` is 1×0) or one state (``B`` is
    1×0). We then build the system with one placeholder input (a zero column of ``B`` and
    ``D``), remove it with ``set_inputs([])`` and put back the true empty ``B`` and ``D``; the
    shapes and names are verified before the system is returned. Response, pole and
    frequency-response functions work on the result; python-control operations that rebuild
    a state-space object from such a system (``sample``, ``ss2tf``) still hit the bug.

    Parameters
    ----------
    A, B, C, D : array_like
        ``(n_x, n_x)``, ``(n_x, n_u)``, ``(n_y, n_x)``, ``(n_y, n_u)``.
    states, inputs, outputs : sequence of str
        Signal names, ``n_x``, ``n_u`` and ``n_y`` of them.
    name : str
        System name.
    copy : bool, default True
        The system holds copies of the matrices (as python-control's constructor makes
        them); False: float arrays of the right shapes are kept as given, when the system
        is a copy of a cached one of the same names (the caller hands them over).

    Returns
    -------
    control.StateSpace

    Raises
    ------
    LinearizationError
        A system python-control cannot hold even so (no state, one output, no input).
    """
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    C, D = np.asarray(C, dtype=float), np.asarray(D, dtype=float)
    n_x, n_u, n_y = len(states), len(inputs), len(outputs)
    if (A.shape, B.shape, C.shape, D.shape) != ((n_x, n_x), (n_x, n_u), (n_y, n_x), (n_y, n_u)):
        raise LinearizationError(
            f"state-space shapes A {A.shape}, B {B.shape}, C {C.shape}, D {D.shape} do not match "
            f"{n_x} states, {n_u} inputs and {n_y} outputs")
    if n_x and n_u and n_y:  # a copy of a cached system of the same names (statespace_clone)
        sys = clone_statespace(A, B, C, D, states=states, inputs=inputs, outputs=outputs,
                               name=name, copy=copy is not False)
        if sys is not None:
            return sys
    names = {"states": list(states), "inputs": list(inputs), "outputs": list(outputs)}
    # python-control 0.10.2 collapses a (1, 0) B or D to (0, 0), then refuses it
    try:  # the class itself: control.ss adds only its dispatch (half the cost)
        return control.StateSpace(A, B, C, D, name=name, **names)
    except control.ControlDimension as err:
        if not (n_u == 0 and (n_x == 1 or n_y == 1)):
            raise LinearizationError(f"python-control {control.__version__} refuses the "
                                     f"system: {err}") from None
    if n_x == 0:
        raise LinearizationError(
            f"python-control {control.__version__} cannot hold a system with no state, no input "
            f"and one output ({outputs[0]!r}): keep a state, an input or a second output")
    placeholder = "_placeholder_input"
    sys = control.ss(A, np.zeros((n_x, 1)), C, np.zeros((n_y, 1)), name=name,
                     states=names["states"], inputs=[placeholder], outputs=names["outputs"])
    sys.set_inputs([])
    sys.B, sys.D = B.reshape(n_x, 0), D.reshape(n_y, 0)
    if (sys.ninputs, sys.B.shape, sys.D.shape, sys.input_labels) != (0, B.shape, D.shape, []) \
            or sys.state_labels != names["states"] or sys.output_labels != names["outputs"]:
        raise LinearizationError(  # a python-control whose internals changed: say so
            f"python-control {control.__version__}: the workaround for a system with no input "
            f"and one output or state (issue #1176) did not give the expected shapes")
    return sys


def linearize(
    model: Model,
    op: OperatingPoint | None = None,
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
    *,
    states: Sequence[str] | None = None,
    drop: Sequence[str] = (),
    drop_integrators: bool = False,
    x: Any = None,
    u: Any = None,
    params: Any = None,
    tol: float = 1e-8,
    drift: bool = False,
    name: str | None = None,
) -> control.StateSpace:
    """Linearise the model at an operating point into a named ``control.StateSpace``.

    Parameters
    ----------
    model : Model
        The compiled model.
    op : OperatingPoint, optional
        From :func:`titop_lpv.analysis.trim`. Alternatively give ``x``, ``u``, ``params``.
    inputs, outputs : sequence of str, optional
        Signals to keep (default: all; outputs that depend on dropped states are left out).
    states : sequence of str, optional
        States to keep (default: all but the dropped ones).
    drop : sequence of str
        States to remove. A state can be removed only if no kept state's derivative
        depends on it (else :class:`LinearizationError` names the pair).
    drop_integrators : bool
        Remove the floating base's position and Euler-angle states that are pure
        integrators (nothing depends on them: e.g. position and heading under buoyancy).
    x : array_like (n_states,), optional
        Operating state when ``op`` is not given (required then), finite, in the order of
        ``model.state_names``. Not with ``op``: the operating point fixes x, u and params.
    u : array_like (n_inputs,), optional
        Operating input when ``op`` is not given (default: zero). Not with ``op``.
    params : dict or array_like, optional
        Parameter values when ``op`` is not given (a dict ``name -> value`` or an array in
        ``model.param_names`` order; default: the model's defaults). Not with ``op``
        (unknown names are an :class:`~titop_lpv.UnknownNameError` in either case).
    tol : float
        The point must satisfy ``max |f(x₀, u₀)| <= tol`` over the kept states (like Drake's
        ``Linearize``); finite, ``>= 0``. Default 1e-8.
    drift : bool
        Instead of refusing a non-equilibrium, return the first-order Taylor model with its
        drift: one extra input named ``"drift"`` whose B column is ``f(x₀, u₀)``; drive it
        with 1.
    name : str, optional
        System name (default ``"<model>_lin"``), without ``.`` (python-control refuses it).

    Returns
    -------
    control.StateSpace
        ``δẋ = A δx + B δu``, ``δy = C δx + D δu``, on deviations from the operating point,
        with named states, inputs and outputs. For a spin operating point the cyclic states
        (attitude, position of the spinning body) are dropped. Two extra attributes say
        what was left out (they are ours: python-control's ``copy`` and operations on the
        system do not carry them):

        ``dropped_states`` : dict of str to str
            Every model state that is not a state of the system, in the model's order,
            with the reason: ``"cyclic"`` (spin point), ``"integrator"``
            (``drop_integrators``), ``"drop"`` (``drop=``) or ``"not selected"``
            (``states=``). The same list is logged at INFO level on the
            ``titop_lpv.analysis.linearize`` logger.

        ``dropped_outputs`` : tuple of str
            Model outputs left out because they read a dropped state (only when
            ``outputs`` is None).

        The quaternion ``b_qw … b_qz`` of a spherical joint (or of a floating base with
        ``attitude = "quaternion"``) becomes the attitude error ``b_rx b_ry b_rz``:
        ``q = q_eq ⊗ exp(δr)`` (:mod:`~titop_lpv.analysis.attitude_error`).

        With no input and one output (or one state) python-control 0.10.2 cannot build
        the system directly (its issue #1176); :func:`named_statespace` works around it.

    Raises
    ------
    LinearizationError
        Not an equilibrium beyond ``tol`` (and ``drift`` is false), an illegal drop, an
        operating point of another model, or ``x``/``u``/``params`` given with ``op``.
    ArgumentError, ArgumentTypeError, ShapeError
        An invalid argument, named: ``op`` that is not an :class:`OperatingPoint`, names that
        are not strings, a non-finite ``tol`` or state, a flag that is not a bool, ...
    UnknownNameError
        An unknown state, input, output or parameter name.

    Examples
    --------
    From the slider force to the lower pendulum of the balloon, at its hanging equilibrium
    (the floating base's position and heading, pure integrators, are dropped):

    >>> import titop_lpv as tl
    >>> model = tl.load_model("examples/balloon.toml")
    >>> free = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
    >>> op = tl.trim(model, free, guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
    >>> sys = tl.linearize(model, op, ["slider_tau"], ["pendulum2_q"], drop_integrators=True)
    >>> sys.nstates, sys.input_labels, sys.output_labels
    (14, ['slider_tau'], ['pendulum2_q'])
    >>> list(sys.dropped_states), set(sys.dropped_states.values())
    (['balloon_x', 'balloon_y', 'balloon_z', 'balloon_psi'], {'integrator'})
    """
    if name is not None and (not isinstance(name, str) or "." in name):
        raise (ArgumentError if isinstance(name, str) else ArgumentTypeError)(
            f"name must be a string without '.', got {name!r:.60}")
    if type(op) is OperatingPoint and inputs is outputs is states is x is u is params is None \
            and type(drop) is tuple and not drop and drop_integrators is drift is False \
            and type(tol) is float and 0.0 <= tol < math.inf:  # the default call
        sys = linearize_fast.default_system(model, op, tol, name)  # or None: general route
        if sys is not None:
            return sys
    lin = linear_matrices(model, op, inputs, outputs, states=states, drop=drop,
                          drop_integrators=drop_integrators, x=x, u=u, params=params, tol=tol,
                          drift=drift)
    sys = named_statespace(lin.A, lin.B, lin.C, lin.D, states=lin.state_names,
                           inputs=lin.input_names, outputs=lin.output_names,
                           name=name or f"{model.name}_lin", copy=False)  # ours: fresh
    sys.dropped_states = dict(lin.dropped_states)
    sys.dropped_outputs = lin.dropped_outputs
    if lin.dropped_states:
        _log.info("linearize(%s): dropped states %s; outputs left out: %s", model.name,
                  ", ".join(f"{n} ({r})" for n, r in lin.dropped_states.items()),
                  ", ".join(lin.dropped_outputs) or "none")
    return sys


@dataclass(frozen=True)
class LinearMatrices:
    """The matrices and signal names of a linearisation, before they become a
    ``control.StateSpace`` (what :func:`linearize` returns; what a process pool sends back).

    Attributes
    ----------
    A, B, C, D : ndarray
        ``(n_x, n_x)``, ``(n_x, n_u)``, ``(n_y, n_x)``, ``(n_y, n_u)``, on deviations.
    state_names, input_names, output_names : tuple of str
        The kept signals (the input ``"drift"`` last with ``drift=True``).
    dropped_states : dict of str to str
        Model states left out, with the reason (see :func:`linearize`).
    dropped_outputs : tuple of str
        Model outputs left out because they read a dropped state.
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    state_names: tuple[str, ...]
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]
    dropped_states: dict[str, str]
    dropped_outputs: tuple[str, ...]


def linear_matrices(
    model: Model,
    op: OperatingPoint | None = None,
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
    *,
    states: Sequence[str] | None = None,
    drop: Sequence[str] = (),
    drop_integrators: bool = False,
    x: Any = None,
    u: Any = None,
    params: Any = None,
    tol: float = 1e-8,
    drift: bool = False,
) -> LinearMatrices:
    """:func:`linearize` without the ``control.StateSpace``: its matrices and signal names.

    Parameters
    ----------
    model, op, inputs, outputs, states, drop, drop_integrators, x, u, params, tol, drift
        As in :func:`linearize`.

    Returns
    -------
    LinearMatrices

    Raises
    ------
    LinearizationError, ArgumentError, ArgumentTypeError, ShapeError, UnknownNameError
        As :func:`linearize`.
    """
    inputs, outputs = _names(inputs, "inputs"), _names(outputs, "outputs")
    states, drop = _names(states, "states"), _names(drop, "drop") or []
    if type(drop_integrators) is not bool:
        drop_integrators = flag(drop_integrators, "drop_integrators")
    if type(drift) is not bool:
        drift = flag(drift, "drift")
    if type(tol) is not float or not 0.0 <= tol < math.inf:
        tol = real(tol, "tol", low=0.0)
    if params is not None:
        model.param_vector(params)  # unknown names: UnknownNameError, with or without op
    if op is not None:
        if not isinstance(op, OperatingPoint):
            raise ArgumentTypeError(f"op must be a titop_lpv.OperatingPoint, got "
                                    f"{type(op).__name__}")
        if op.state_names != model.state_names:
            raise LinearizationError(f"the operating point belongs to model {op.model_name!r}, "
                                     f"not to {model.name!r}")
        given = [k for k, v in (("x", x), ("u", u), ("params", params)) if v is not None] \
            if x is not None or u is not None or params is not None else None
        if given:
            raise LinearizationError(
                f"{', '.join(given)} given with an operating point, which fixes x, u and params: "
                "pass either op, or x (with u and params); to change a parameter, trim again "
                "with it")
        x, u, params = op.x, op.u, op.param_vector
    elif x is None:
        raise ArgumentTypeError("linearize needs an operating point `op` or a state `x`")
    fast = linearize_fast.matrices(model, x, u, params)  # None: convert, check (jacobians)
    J = jacobians(model, x, u, params) if fast is None else Jacobians(*fast)
    snames = model.state_names
    if model.memo("quaternion_starts", None, lambda: quaternion_starts(model)):
        snames, T, G = attitude_error_map(model, x)  # the attitude error δr replaces the
        J = Jacobians(T @ J.A @ G, T @ J.B, J.C @ G, J.D, T @ J.f0, J.y0)  # quaternion
    n_x = len(snames)
    reasons: dict[int, str] = {}
    order = list(range(n_x))  # the kept states' order: the model's, or the user's `states`
    if states is not None:
        order = list(dict.fromkeys(_select(snames, states, "state")))
        reasons.update((s, "not selected") for s in range(n_x) if s not in order)
    for s in _select(snames, drop, "state"):
        reasons.setdefault(s, "drop")
    if op is not None and op.cyclic:
        for s in _select(snames, list(op.cyclic), "state"):
            reasons.setdefault(s, "cyclic")
    if drop_integrators:
        for s in _integrators(model, J.A, [s for s in order if s not in reasons]):
            reasons.setdefault(s, "integrator")
    keep = [s for s in order if s not in reasons] if reasons else order
    removed = sorted(reasons)
    if removed and keep:
        scale = max(1.0, float(np.abs(J.A).max(initial=0.0)))
        for s in removed:  # the first offending pair, named
            col = J.A[keep, s]
            worst = int(np.argmax(np.abs(col)))
            if abs(col[worst]) > 1e-9 * scale:
                raise LinearizationError(
                    f"state {snames[s]!r} cannot be dropped: the derivative of "
                    f"{snames[keep[worst]]!r} depends on it (∂f/∂x = {col[worst]:.3g})")
    in_idx = _select(model.input_names, inputs, "input")
    if outputs is None and not (removed and model.n_outputs):
        out_idx = list(range(model.n_outputs))  # every output
    elif outputs is None:  # those that read no dropped state
        reads = np.max(np.abs(J.C[:, removed]), axis=1)
        out_idx = [k for k in range(model.n_outputs) if reads[k] <= 1e-12]
    else:
        out_idx = _select(model.output_names, outputs, "output")
        reads = (np.max(np.abs(J.C[np.ix_(out_idx, removed)]), axis=1) if removed and out_idx
                 else np.zeros(len(out_idx)))
        for k in (k for k, r in zip(out_idx, reads) if r > 1e-12):
            bad = [s for s in removed if abs(J.C[k, s]) > 1e-12]
            if bad:
                raise LinearizationError(f"output {model.output_names[k]!r} depends on the "
                                         f"dropped state {snames[bad[0]]!r}")
    every = not removed and states is None  # every state, in the model's order
    residual = J.f0 if every else J.f0[keep]
    if residual.size and not drift:
        worst = int(np.abs(residual).argmax())
        if abs(residual[worst]) > tol:
            raise LinearizationError(
                f"not an equilibrium: d/dt {snames[keep[worst]]} = {residual[worst]:.3e} "
                f"(tolerance {tol:.1e}); trim first, or pass drift=True for the first-order "
                "Taylor model with its drift term")
    all_u, all_y = inputs is None, out_idx == list(range(model.n_outputs))
    A, B, C, D = J.A, J.B, J.C, J.D  # the selections (takes) only where something is left out
    if not every:
        rows_x = np.asarray(keep, dtype=np.intp)
        A, B, C = A.take(rows_x, 0).take(rows_x, 1), B.take(rows_x, 0), C.take(rows_x, 1)
    if not all_u:
        cols_u = np.asarray(in_idx, dtype=np.intp)
        B, D = B.take(cols_u, 1), D.take(cols_u, 1)
    if not all_y:
        rows_y = np.asarray(out_idx, dtype=np.intp)
        C, D = C.take(rows_y, 0), D.take(rows_y, 0)
    input_names = list(model.input_names) if all_u else [model.input_names[i] for i in in_idx]
    if drift:
        B = np.hstack([B, residual[:, None]])
        D = np.hstack([D, np.zeros((D.shape[0], 1))])
        input_names.append("drift")
    return LinearMatrices(
        A, B, C, D, tuple(snames) if every else tuple(snames[s] for s in keep),
        tuple(input_names),
        model.output_names if all_y else tuple(model.output_names[k] for k in out_idx),
        {snames[s]: reasons[s] for s in removed},
        () if all_y else tuple(model.output_names[k] for k in range(model.n_outputs)
                               if outputs is None and k not in out_idx))
