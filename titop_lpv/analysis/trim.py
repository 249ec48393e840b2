"""Operating points: static equilibria and steady spins, with free and fixed variables.

:func:`trim` solves the equilibrium equations of a model — every acceleration zero (the
derivatives of the velocity states) — for the variables the user frees (configuration
states, inputs, parameters), the others being fixed at given or default values. The
Jacobian of the equations is exact (complex step through the whole evaluation, all
directions in one batched call). A static trim whose free variables are joint positions
only, with zero inputs and loads that have a potential, is solved first as a minimum of the
potential energy (trust-region Newton, :mod:`~titop_lpv.analysis.trim_energy`): it lands
on a stable equilibrium from far starts (a coiled 300-link chain) where Gauss–Newton on
the accelerations wanders off; the angles of revolute joints without a spring are returned
within π of their start (the equations are 2π-periodic in them). Otherwise, or if that
fails, the equations are solved by Gauss–Newton steps
(minimum-norm least-squares steps with backtracking), which converge quadratically where
the problem is well posed; if they stall, ``scipy.optimize``'s trust-region reflective
least squares takes over from the best point. Both handle over- and under-determined
specifications; the result is an equilibrium only if the residual meets the tolerance.

Dependent free variables (the equations do not depend on them, like the horizontal
position and heading of a floating base under buoyancy, or depend on them only through
other free variables, like two coaxial hinges of which only the sum of the angles matters)
are found from the rank of the Jacobian at a few sample points, held at their initial
values and reported as ``pinned``.

A steady spin is checked to be a relative equilibrium: the reduced residual is evaluated
again along the orbit (attitude turned about the spin axis, position moved along the screw
motion); a point that is stationary at one attitude only is not returned as a success.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..exceptions import TitopError, UnknownNameError
from ..model.compiled import Model
from ..multibody.joints import FREE, MULTI_DOF, REVOLUTE, is_one_dof
from ..names import find
from ..spatial import quaternion
from ..spatial.algebra import skew
from ..spatial.euler import dcm_to_euler, euler_to_dcm
from . import trim_args as ta
from . import trim_energy as te
from . import trim_solver as ts
from .attitude_error import quaternion_starts
from .operating_point import OperatingPoint
from .trim_args import TrimSpecError

__all__ = ["TrimError", "TrimSpecError", "prepare", "reduce", "trim"]

# angles [rad] by which a spin solution is turned along its orbit to check that it is a
# relative equilibrium (generic values: no multiple of π/2, no symmetry hides a change)
ORBIT_ANGLES = np.array([0.9, 2.2, 3.7, 5.1])


class TrimError(TitopError, RuntimeError):
    """No equilibrium was found within the tolerance; :attr:`op` holds the best point.

    The message quotes the largest residual, the tolerance and the reason (solver status,
    rank of the Jacobian, evaluation budget, or a spin that is not a relative equilibrium).

    Parameters
    ----------
    op : OperatingPoint
        The best point found; its residual, tolerance, kind and message make the message.
    where : str, optional
        Where the trim was attempted (e.g. the grid point of a sweep), quoted in the message.

    Attributes
    ----------
    op : OperatingPoint
        The best point found (``success=False``).
    sweep : TrimSweep or None
        Raised by ``trim_sweep(..., strict=True)``: the whole sweep.
    """

    def __init__(self, op: OperatingPoint, where: str = ""):
        self.op = op
        self.sweep: Any = None
        worst = int(np.argmax(np.abs(op.residual))) if op.residual.size else 0
        largest = (f"; largest residual d/dt {op.residual_names[worst]} = "
                   f"{op.residual[worst]:.3e}" if op.residual.size else "")
        head = f"trim of {op.model_name!r} ({op.kind}){f' at {where}' if where else ''} failed"
        if op.residual_norm <= op.tolerance:  # met at the point, refused for another reason
            super().__init__(f"{head} although max |residual| = {op.residual_norm:.3e} <= "
                             f"tolerance {op.tolerance:.1e}: {op.message}")
        else:
            super().__init__(f"{head}: max |residual| = {op.residual_norm:.3e} > tolerance "
                             f"{op.tolerance:.1e}{largest}. {op.message}")


def _names(model: Model) -> dict[str, tuple[str, int]]:
    table = {n: ("x", i) for i, n in enumerate(model.state_names)}
    for start, body in quaternion_starts(model).items():  # attitude errors δr (trim_solver)
        table.update({f"{body}_r{c}": ("r", 3 * start + k) for k, c in enumerate("xyz")})
    table.update({n: ("u", i) for i, n in enumerate(model.input_names)})
    table.update({n: ("p", i) for i, n in enumerate(model.param_names)})
    return table


def _resolve(table: dict[str, tuple[str, int]], name: str, what: str) -> str:
    key = find(name, table)
    if key is not None:
        return key
    raise UnknownNameError(f"{what}: unknown variable {name!r}; states, inputs and parameters "
                           f"are: {list(table)}")


SPIN_KEYS = ("body", "axis", "rate")  # required keys of ``spin``; ``rate_param`` is optional


def _spin_setup(model: Model, spin: Mapping[str, Any], x: np.ndarray, p: np.ndarray,
                table: dict[str, tuple[str, int]], fixed: set[str], free: list[str]
                ) -> tuple[list[str], dict[str, Any]]:
    """Impose the spin on ``x``; return the cyclic states and the normalised spec.

    The spec holds the numeric rate and, when ``spin["rate"]`` named a parameter, that
    parameter's name under ``rate_param``.
    """
    if not isinstance(spin, Mapping):
        raise TrimSpecError(f"spin must be a dict {{'body', 'axis', 'rate'}}, got {spin!r}")
    missing = [k for k in SPIN_KEYS if k not in spin]
    if missing or set(spin) - {*SPIN_KEYS, "rate_param"}:
        raise TrimSpecError(f"spin must be {{'body', 'axis', 'rate'}} (and optionally "
                            f"'rate_param'), got {dict(spin)}")
    body = spin["body"]
    if isinstance(body, str) and body not in model.body_names:
        try:  # another name of a body (a URDF joint or link name): its body
            body = model.body_names[model.body_index(body)]
        except UnknownNameError:
            pass
    if not isinstance(body, str) or body not in model.body_names:
        raise UnknownNameError(f"spin: unknown body {body!r}; bodies are {list(model.body_names)}")
    try:
        axis = np.asarray(spin["axis"], dtype=float)
    except (TypeError, ValueError, OverflowError):
        axis = np.zeros(0)
    if axis.shape != (3,) or not np.all(np.isfinite(axis)) or axis @ axis == 0.0:
        raise TrimSpecError(f"spin: axis must be a non-zero 3-vector, got {spin['axis']!r}")
    axis = axis / np.sqrt(axis @ axis)
    rate, rate_param = ta.spin_rate(model, spin, p, table, free)
    b = model.body_index(body)
    if model.kind[b] == FREE:
        base = model.base_index
        x[base + 3:base + 6] = rate * axis
        cyclic = list(model.state_names[base + 6:base + 12])
        for name in model.state_names[base:base + 3]:  # the origin's velocity adjusts
            if name not in fixed and name not in free:
                free.append(name)
    elif model.kind[b] == REVOLUTE:
        joint_axis = model.physics().axis[b]
        if np.max(np.abs(np.cross(joint_axis, axis))) > 1e-9:
            raise TrimSpecError(f"spin: axis {axis.tolist()} is not the axis "
                                f"{joint_axis.tolist()} of body {body!r}'s revolute joint")
        x[model.qd_index[b]] = rate * float(joint_axis @ axis)
        if model.floating_base:  # the floating base (if any) does not move
            x[model.base_index:model.base_index + 6] = 0.0
        cyclic = [model.state_names[model.q_index[b]]]
    else:
        raise TrimSpecError(f"spin: body {body!r} must be the floating base or have a revolute "
                            "joint")
    spec: dict[str, Any] = {"body": body, "axis": axis, "rate": rate}
    if rate_param is not None:
        spec["rate_param"] = rate_param
    return cyclic, spec


def trim(
    model: Model,
    free: Iterable[str] = (),
    fixed: Mapping[str, float] | None = None,
    *,
    kind: str = "static",
    spin: Mapping[str, Any] | None = None,
    params: Mapping[str, float] | None = None,
    x0: Any = None,
    guess: Mapping[str, float] | None = None,
    tol: float = 1e-10,
    max_nfev: int = 200,
    pin_neutral: bool | Iterable[str] = True,
    strict: bool = True,
) -> OperatingPoint:
    """Find an equilibrium (``kind="static"``) or a steady spin (``kind="spin"``).

    Parameters
    ----------
    model : Model
    free : iterable of str
        Variables to solve for: configuration states, inputs (e.g. the joint torques that
        hold an arm), parameters. Dotted names (``"slider.q"``) are accepted.
    fixed : dict, optional
        ``name -> value`` for states, inputs or parameters held at a given value; every
        other variable keeps its default (the model's initial state, zero inputs, default
        parameters).
    kind : {"static", "spin"}
        ``static``: all velocities and accelerations zero. ``spin``: a relative equilibrium
        (see ``spin``).
    spin : dict, optional
        ``{"body": name, "axis": [x, y, z], "rate": Ω}`` (axis in the body frame, Ω in
        rad/s). ``rate`` is a number or the name of a model parameter (``"Omega"``; dotted
        or underscored), whose value in this trim (``params``, ``fixed``, else the model's
        default) is the rate: :func:`~titop_lpv.analysis.sweep.trim_sweep` over that
        parameter then trims each grid point at its own rate. The parameter cannot be free;
        an unknown name raises :class:`~titop_lpv.UnknownNameError` listing the parameters,
        the name of a state or input and a non-finite rate raise :class:`TrimSpecError`.
        :attr:`OperatingPoint.spin` records the numeric rate and, under ``"rate_param"``,
        the parameter it came from; that record may be given back as ``spin`` (a numeric
        ``rate`` must then equal the parameter's value). For a floating base: its angular
        velocity is Ω·axis, its origin velocity is solved for (added to ``free`` unless
        fixed), its position and attitude are cyclic (excluded). For a body on a revolute
        joint about ``axis``: the joint rate is Ω and its angle is cyclic (a floating base,
        if any, is at rest). Every other joint rate is zero; the joint angles are balanced
        by the centrifugal loads. A solution is a success only if it is a relative
        equilibrium: the residual is evaluated again with the spinning body turned about the
        axis by the angles :data:`ORBIT_ANGLES` (position moved along the screw motion) and
        must meet ``tol`` there too — a spin under gravity (or another load) not parallel to
        the axis is not one.
    params : dict, optional
        Parameter values (the baseline; ``fixed`` and ``free`` override).
    x0 : array_like, optional
        Baseline state and initial guess (default: :meth:`Model.default_state`).
    guess : dict, optional
        Initial guesses ``name -> value`` of free variables. A spherical joint's (or a
        quaternion floating base's) attitude is solved for through its attitude error
        ``b_rx b_ry b_rz``: the quaternion is ``q = q_start ⊗ exp(δr)`` with ``q_start`` the
        starting quaternion (``x0``, ``fixed`` or the model's initial state), and a guess
        gives ``δr`` (:attr:`OperatingPoint.attitude_errors` holds the solution). The
        solvers move the origin of ``δr`` to every accepted point (``q_start ← q_start ⊗
        exp(δr)``, ``δr ← 0``), so a solution any rotation away is reached.
    tol : float
        Success iff ``max |residual| <= tol`` (accelerations, m/s² and rad/s²). Default 1e-10.
        Where the model cannot resolve its residual that finely — a stiff element turns the
        rounding of positions into accelerations above ``tol`` (a 1e8 N/m loop spring: about
        1e-7 m/s²) — the tolerance is raised to the residual's rounding floor at the solution,
        a few ulps of the free variables through the exact Jacobian
        (:func:`~titop_lpv.analysis.trim_solver.rounding_floor`): the result then no longer
        depends on the CPU's rounding. :attr:`OperatingPoint.tolerance` holds the tolerance
        applied and the message says when it was raised.
    max_nfev : int
        Evaluation budget of the solver (default 200), a hard cap: the energy descent,
        Gauss–Newton and the trust-region fallback together, one residual (or potential)
        evaluation counting 1 and one exact Jacobian (or Hessian of the potential, a single
        batched complex-step call) counting 1. The rank detection of
        dependent variables before the solve (3 Jacobians) and the checks after it are not
        counted. The evaluations used are :attr:`OperatingPoint.nfev`; a solve stopped by
        the budget fails with a message that says so.
    pin_neutral : bool or iterable of str
        ``True`` (default): hold dependent free variables at their initial values — those
        the equations do not depend on, or depend on only through the other free variables,
        found by a column-pivoted QR of the Jacobians stacked at several sample points (at
        least three, and enough that the stack has more rows than there are free
        variables); they are listed in :attr:`OperatingPoint.pinned`. ``False``: pin
        nothing (the minimum-norm solution is returned). A list of free variable names:
        pin exactly these (:func:`trim_sweep` passes its first point's choice to every
        other point, so that the held variables do not change along a branch).
    strict : bool
        Raise :class:`TrimError` when no equilibrium is found (default); otherwise return
        the best point with ``success=False``.

    Returns
    -------
    OperatingPoint

    Raises
    ------
    TrimSpecError, UnknownNameError
        Inconsistent specification, naming the variable; an argument of the wrong type
        (``free`` not a list of names, ``fixed``/``params``/``guess`` not a dict, a name
        that is not a string, a value that is not a finite real number, ``x0`` not a finite
        real vector, ``strict`` not a bool), naming the argument and the item.
    ParameterError
        A ``params`` value that is not a finite real number, naming the parameter.
    TrimError
        ``strict`` and the residual exceeds ``tol``.

    Examples
    --------
    The hanging equilibrium of the paper's balloon (the repository's example model):

    >>> import titop_lpv as tl
    >>> model = tl.load_model("examples/balloon.toml")
    >>> free = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
    >>> op = tl.trim(model, free, guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
    >>> op.success, op.residual_norm <= 1e-10, op.free
    (True, True, ('balloon_phi', 'balloon_theta', 'slider_q', 'pendulum1_q', 'pendulum2_q'))
    """
    prob, z0, options = prepare(model, free, fixed, kind=kind, spin=spin, params=params, x0=x0,
                                guess=guess, tol=tol, max_nfev=max_nfev,
                                pin_neutral=pin_neutral, strict=strict)
    return _solve(prob, z0, **options)


def prepare(model: Model, free: Iterable[str] = (), fixed: Mapping[str, float] | None = None,
            *, kind: str = "static", spin: Mapping[str, Any] | None = None,
            params: Mapping[str, float] | None = None, x0: Any = None,
            guess: Mapping[str, float] | None = None, tol: float = 1e-10, max_nfev: int = 200,
            pin_neutral: bool | Iterable[str] = True, strict: bool = True
            ) -> tuple[ts.Problem, np.ndarray, dict[str, Any]]:
    """The checked set-up of :func:`trim`, before any solve (same arguments, same errors).

    Parameters
    ----------
    model, free, fixed, kind, spin, params, x0, guess, tol, max_nfev, pin_neutral, strict
        As in :func:`trim`.

    Returns
    -------
    prob : Problem
        The unknowns (every free variable, pinned ones included) and the fixed values.
    z0 : ndarray (n_free,)
        The starting point (guesses, else the baseline values).
    options : dict
        The keyword arguments of the solve: ``kind``, ``cyclic``, ``spin`` (normalised),
        ``tol``, ``max_nfev``, ``pin_neutral`` (a bool or a list of resolved names),
        ``strict``, ``fixed`` (the names of every fixed variable).
    """
    ta.check_options(kind, tol, max_nfev, strict, pin_neutral)
    if (kind == "spin") != (spin is not None):
        raise TrimSpecError("kind='spin' needs spin={'body', 'axis', 'rate'} (and only it)")
    table = _names(model)
    fixed = ta.mapping(fixed, "fixed")
    params = ta.mapping(params, "params")
    guess = ta.mapping(guess, "guess")
    free_list: list[str] = []
    listed: set[str] = set()
    for name in ta.name_list(free, "free"):
        key = _resolve(table, name, "free")
        if key in listed:
            raise TrimSpecError(f"free: {key!r} is listed twice")
        free_list.append(key)
        listed.add(key)
    fixed_vals = {}
    for name, value in fixed.items():
        key = _resolve(table, name, "fixed")
        if key in free_list:
            raise TrimSpecError(f"{key!r} is both free and fixed")
        fixed_vals[key] = _finite(value, f"fixed: {key!r}")
    for name in params:
        _resolve(table, name, "params")
    params = ta.check_params(params)

    p = model.param_vector({**model.default_params(), **dict(params or {})}).astype(float)
    for key, value in fixed_vals.items():
        if table[key][0] == "p":
            p[table[key][1]] = value
    x = (np.array(model.default_state(p), dtype=float) if x0 is None
         else ta.state(x0, model.n_states, model.state_names))
    u = np.zeros(model.n_inputs)
    velocities = set(model.velocity_indices())
    vel_names = {model.state_names[i] for i in velocities}
    cyclic: list[str] = []
    spin_spec = None
    if kind == "static":
        x[list(velocities)] = 0.0
        for key in free_list:
            if key in vel_names:
                raise TrimSpecError(f"{key!r} is a velocity: a static equilibrium has every "
                                    "velocity zero (use kind='spin' for a steady spin)")
    else:
        x[model.qd_index[is_one_dof(model.kind)]] = 0.0
        if np.isin(model.kind, MULTI_DOF).any() or model.attitude == "quaternion":
            raise TrimSpecError("kind='spin' is not available for models with spherical or "
                                "universal joints or a quaternion floating base yet")
        cyclic, spin_spec = _spin_setup(model, spin, x, p, table, set(fixed_vals),
                                       free_list)
        base = model.base_index
        allowed = set(model.state_names[base:base + 3]) if model.floating_base else set()
        for key in free_list:
            if key in cyclic:
                raise TrimSpecError(f"{key!r} is cyclic in a steady spin and cannot be free")
            if key in vel_names and key not in allowed:
                raise TrimSpecError(f"{key!r} is a velocity fixed by the spin; it cannot be free")
    for key, value in fixed_vals.items():
        where, i = table[key]
        if where == "r":
            raise TrimSpecError(f"fixed: {key!r} is an attitude error; fix the quaternion "
                                "states (b_qw … b_qz) or pass x0")
        if where == "x":
            if kind == "static" and i in velocities and value != 0.0:
                raise TrimSpecError(f"{key!r} is a velocity: a static equilibrium needs it zero, "
                                    f"got {value}")
            x[i] = value
        elif where == "u":
            u[i] = value
    r_guess: dict[str, float] = {}
    for name, value in (guess or {}).items():
        key = _resolve(table, name, "guess")
        if key not in free_list:
            raise TrimSpecError(f"guess: {key!r} is not free")
        where, i = table[key]
        if where == "r":  # δr around the starting quaternion
            r_guess[key] = _finite(value, f"guess: {key!r}")
            continue
        {"x": x, "u": u, "p": p}[where][i] = _finite(value, f"guess: {key!r}")

    if not isinstance(pin_neutral, (bool, np.bool_)):
        pin_list = [_resolve(table, name, "pin_neutral")
                    for name in ta.name_list(pin_neutral, "pin_neutral")]
        for key in pin_list:
            if key not in free_list:
                raise TrimSpecError(f"pin_neutral: {key!r} is not free")
        pin_neutral = pin_list
    else:
        pin_neutral = bool(pin_neutral)
    eq_index = np.array(sorted(velocities), dtype=int)
    prob = ts.Problem(model, x, u, p, free_list, [table[k] for k in free_list], eq_index)
    free_set, cyclic_set = set(free_list), set(cyclic)
    z0 = np.array([r_guess.get(k, 0.0) if w == "r" else {"x": x, "u": u, "p": p}[w][i]
                   for k, (w, i) in zip(free_list, prob.where)], dtype=float)
    return prob, z0, {"kind": kind, "cyclic": cyclic, "spin": spin_spec, "tol": tol,
                      "max_nfev": max_nfev, "pin_neutral": pin_neutral, "strict": bool(strict),
                      "fixed": [k for k in table if k not in free_set and k not in cyclic_set]}


def _finite(value: Any, where: str) -> float:
    """A finite real number, or :class:`TrimSpecError` naming ``where``."""
    return ta.finite(value, where)


def _orbit(model: Model, x: np.ndarray, spin: dict[str, Any], angles: np.ndarray
           ) -> np.ndarray:
    """States along the spin orbit through ``x``, after turning by ``angles`` [rad].

    Floating base with body-frame twist ``[v; Ω a]``: attitude ``P(t) = P0 exp(Ω t ã)``,
    position ``IP(t) = IP0 + P0 ∫0^t exp(Ω s ã) ds v`` (closed form). Spin about a
    revolute joint: its angle advances by the angle. Times are ``angle / |Ω|`` (or
    ``angle`` seconds when Ω = 0); every other state is unchanged.
    """
    X = np.tile(x, (angles.size, 1))
    b = model.body_index(spin["body"])
    rate = float(spin["rate"])
    t = angles / abs(rate) if rate else angles
    if model.kind[b] == FREE:
        base = model.base_index
        K = skew(np.asarray(spin["axis"], dtype=float))
        K2 = K @ K
        th = (rate * t)[:, None, None]
        turn = np.eye(3) + np.sin(th) * K + (1.0 - np.cos(th)) * K2
        if rate:
            integral = (t[:, None, None] * np.eye(3) + (1.0 - np.cos(th)) / rate * K
                        + (t[:, None, None] - np.sin(th) / rate) * K2)
        else:
            integral = t[:, None, None] * np.eye(3)
        P0 = euler_to_dcm(x[base + 9:base + 12], model.euler)
        X[:, base + 9:base + 12] = dcm_to_euler(P0 @ turn, model.euler)
        X[:, base + 6:base + 9] = x[base + 6:base + 9] + (P0 @ integral @ x[base:base + 3])
    else:
        X[:, model.q_index[b]] += x[model.qd_index[b]] * t
    return X


def reduce(prob: ts.Problem, z0: np.ndarray, kind: str, pin_neutral: bool | list[str]
           ) -> tuple[ts.Problem, np.ndarray, list[str], te.EnergyProblem | None]:
    """Hold the dependent free variables (``pin_neutral``) at their starting values.

    Parameters
    ----------
    prob : Problem
        From :func:`prepare`.
    z0 : ndarray (n_free,)
        The starting point.
    kind : str
        ``"static"`` or ``"spin"``.
    pin_neutral : bool or list of str
        As :func:`prepare` returns it: True (find the dependent variables), False, or the
        resolved names to hold.

    Returns
    -------
    prob : Problem
        Without the held variables (their starting values baked into its ``x, u, p``).
    z0 : ndarray
        The starting point of the remaining unknowns.
    pinned : list of str
        The held variables.
    ep : EnergyProblem or None
        The energy formulation, when it applies (``trim_energy.applicable``).
    """
    model = prob.model
    pinned: list[str] = []
    ep = te.applicable(prob, kind, z0)
    if pin_neutral is not False and z0.size:
        dependent = (ts.dependent(prob, z0, None if ep is None else ep.hessian)
                     if pin_neutral is True
                     else [prob.free.index(name) for name in pin_neutral])
        if dependent:
            pinned = [prob.free[k] for k in dependent]
            keep = [k for k in range(z0.size) if k not in dependent]
            X, U, P = prob.assemble(z0)  # attitude guesses are baked into X: δr restarts at 0
            z0 = np.where([w == "r" for w, _ in prob.where], 0.0, z0)
            prob = ts.Problem(model, X, U, np.asarray(P, float), [prob.free[k] for k in keep],
                            [prob.where[k] for k in keep], prob.eq_index)
            z0 = z0[keep]
            ep = te.applicable(prob, kind, z0)
    return prob, z0, pinned, ep


def _solve(prob: ts.Problem, z0: np.ndarray, *, kind: str, cyclic: list[str],
           spin: dict[str, Any] | None, tol: float, max_nfev: int,
           pin_neutral: bool | list[str],
           strict: bool, fixed: list[str]) -> OperatingPoint:
    model = prob.model
    r_vars = [(n, i) for n, (w, i) in zip(prob.free, prob.where) if w == "r"]
    r_start = {i // 3: np.asarray(prob.x[i // 3:i // 3 + 4], float) for _, i in r_vars}
    prob, z0, pinned, ep = reduce(prob, z0, kind, pin_neutral)
    ev = ts.Evaluator(prob, max_nfev, z0)
    status = "none"
    if z0.size:
        try:
            if ep is not None and te.minimize(ep, ev, z0, tol):
                status = "converged"
                message = (f"trust-region Newton on the potential energy converged in "
                           f"{ev.count} evaluations")
            elif ts.newton(ev, z0, tol, ts.bounds(prob)):  # from the start: the energy
                # route's end may sit on a rounding floor (stiff loop springs)
                status, message = "converged", f"Gauss-Newton converged in {ev.count} evaluations"
            elif not np.isfinite(ev.best_cost):
                status, message = "nonfinite", "Gauss-Newton stopped"
            else:  # globalised fallback from the best point found
                status, message = ts.trust_region(ev, tol, max_nfev)
        except ts.BudgetError:
            status = "budget"
            message = f"solver stopped after {ev.count} evaluation(s)"
        except FloatingPointError:
            status, message = "nonfinite", "the Jacobian is not finite at the best point"
        z = ev.best_z
        turns = te.periodic(prob, np.asarray(prob.assemble(z)[2], float))
        z = np.where(turns, z - 2.0 * np.pi * np.round((z - z0) / (2.0 * np.pi)), z)
    else:
        z = z0
        message = "no free variable: the residual is evaluated at the given point"
    r = prob.residual(z)
    worst = float(np.max(np.abs(r), initial=0.0)) if np.all(np.isfinite(r)) else np.inf
    success, J, requested = worst <= tol, None, tol
    if not success and np.isfinite(worst) and z.size:
        # a stiff model resolves its residual only to a rounding floor (a 1e8 N/m loop: ~1e-7
        # m/s²): below it the CPU's rounding, not the solver, decides (docs/trim.md)
        J = prob.jacobian(z)
        tol = max(tol, ts.rounding_floor(prob, z, J))
        success = worst <= tol
        if success:
            message += (f"; the tolerance {requested:.1e} is raised to {tol:.1e}, the "
                        f"residual's rounding floor at this point ({ts.FLOOR_ULPS:g} ulps of "
                        "the free variables through the exact Jacobian)")
    # the Jacobian of the accelerations serves the diagnosis of a failure and the rank of a
    # trim without an energy problem; an energy trim takes its rank from the stiffness, not
    # from M⁻¹K (ill-conditioned for long chains): its Jacobian is not computed on success
    if J is None and (ep is None or not success):
        J = prob.jacobian(z)
    deficiency = z.size - ts.rank(J if ep is None else ep.hessian(z)) if z.size else 0
    if not success:
        message = f"{message}: {ts.diagnosis(status, r, J, max_nfev)}{ts.at_bounds(prob, z)}"
    X, U, P = prob.assemble(z)
    X, P = np.asarray(X, float), np.asarray(P, float)
    if success and kind == "spin":
        orbit = _orbit(model, X, spin, ORBIT_ANGLES)
        r_orbit = model.dynamics(0.0, orbit, U, P)[..., prob.eq_index]
        worst = np.max(np.abs(r_orbit), axis=1, initial=0.0)
        if not np.all(np.isfinite(r_orbit)) or np.max(worst) > tol:
            j = int(np.argmax(np.where(np.isfinite(worst), worst, np.inf)))
            e = int(np.argmax(np.abs(r_orbit[j])))
            success = False
            message = (
                f"{message}; but it is NOT a relative equilibrium: the reduced state is "
                f"stationary at the solved attitude only — turned by {ORBIT_ANGLES[j]:g} rad "
                f"about the spin axis along the orbit, d/dt "
                f"{model.state_names[prob.eq_index[e]]} = {r_orbit[j, e]:.3e} (> tolerance). "
                "The loads change as the body turns: gravity or another load not parallel "
                "to the spin axis (and not balanced, e.g. by buoyancy) makes the spin unsteady")
    op = OperatingPoint(
        model_name=model.name, kind=kind, state_names=model.state_names,
        input_names=model.input_names, param_names=model.param_names,
        x=X, u=np.asarray(U, float), params=dict(zip(model.param_names, P.tolist())),
        residual_names=tuple(model.state_names[i] for i in prob.eq_index), residual=r,
        free=tuple(prob.free), fixed=tuple(n for n in fixed if n not in pinned),
        pinned=tuple(pinned), cyclic=tuple(cyclic), spin=spin, success=success,
        message=message, tolerance=tol, nfev=ev.count, rank_deficiency=deficiency,
        attitude_errors={n: float(quaternion.log(quaternion.multiply(
            quaternion.conjugate(quaternion.normalize(r_start[i // 3])),
            X[i // 3:i // 3 + 4]))[i % 3]) for n, i in r_vars} or None,
    )
    if strict and not success:
        raise TrimError(op)
    return op
