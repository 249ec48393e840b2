"""Operating points: static equilibria and steady spins, with free and fixed variables.

:func:`trim` solves the equilibrium equations of a model — every acceleration zero (the
derivatives of the velocity states) — for the variables the user frees (configuration
states, inputs, parameters), the others being fixed at given or default values. The
Jacobian of the equations is exact (complex step through the whole evaluation, all
directions in one batched call) and the equations are solved by ``scipy.optimize``'s
trust-region least squares, so over- and under-determined specifications are handled
alike; the result is an equilibrium only if the residual meets the tolerance.

Neutral variables (the equations do not depend on them, like the horizontal position and
heading of a floating base under buoyancy) are detected from the Jacobian, held at their
initial values and reported as ``pinned``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import least_squares

from .exceptions import TitopError, UnknownNameError
from .model.compiled import FREE, REVOLUTE, Model
from .operating_point import OperatingPoint

__all__ = ["TrimError", "TrimSpecError", "trim"]

STEP = 1e-30  # complex step


class TrimSpecError(TitopError, ValueError):
    """A trim specification is inconsistent (unknown name, a variable both free and fixed,
    a velocity freed in a static trim, ...). The message names the variable."""


class TrimError(TitopError, RuntimeError):
    """No equilibrium was found within the tolerance; :attr:`op` holds the best point."""

    def __init__(self, op: OperatingPoint):
        self.op = op
        worst = int(np.argmax(np.abs(op.residual))) if op.residual.size else 0
        where = (f"; largest residual d/dt {op.residual_names[worst]} = "
                 f"{op.residual[worst]:.3e}" if op.residual.size else "")
        super().__init__(
            f"trim of {op.model_name!r} ({op.kind}) failed: max |residual| = "
            f"{op.residual_norm:.3e} > tolerance {op.tolerance:.1e}{where}. {op.message}")


@dataclass
class _Problem:
    """Index maps between the unknown vector z and the model's (x, u, p)."""

    model: Model
    x: np.ndarray
    u: np.ndarray
    p: np.ndarray
    free: list[str]
    where: list[tuple[str, int]]  # ("x" | "u" | "p", index) per free variable
    eq_index: np.ndarray  # state indices whose derivatives are the equations

    def assemble(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        batch = z.shape[:-1]
        dtype = np.result_type(z, float)
        X = np.array(np.broadcast_to(self.x, (*batch, self.x.size)), dtype=dtype)
        U = np.array(np.broadcast_to(self.u, (*batch, self.u.size)), dtype=dtype)
        free_p = [k for k, (kind, _) in enumerate(self.where) if kind == "p"]
        P = (np.array(np.broadcast_to(self.p, (*batch, self.p.size)), dtype=dtype)
             if free_p else self.p)
        for k, (kind, i) in enumerate(self.where):
            {"x": X, "u": U, "p": P}[kind][..., i] = z[..., k]
        return X, U, P

    def residual(self, z: np.ndarray) -> np.ndarray:
        X, U, P = self.assemble(z)
        return self.model.dynamics(0.0, X, U, P)[..., self.eq_index]

    def jacobian(self, z: np.ndarray, columns: list[int] | None = None) -> np.ndarray:
        cols = list(range(z.size)) if columns is None else columns
        if not cols:
            return np.zeros((self.eq_index.size, 0))
        Z = np.tile(z.astype(complex), (len(cols), 1))
        Z[np.arange(len(cols)), cols] += 1j * STEP
        return (self.residual(Z).imag / STEP).T


def _names(model: Model) -> dict[str, tuple[str, int]]:
    table = {n: ("x", i) for i, n in enumerate(model.state_names)}
    table.update({n: ("u", i) for i, n in enumerate(model.input_names)})
    table.update({n: ("p", i) for i, n in enumerate(model.param_names)})
    return table


def _resolve(table: dict[str, tuple[str, int]], name: str, what: str) -> str:
    for key in (name, name.replace(".", "_")):
        if key in table:
            return key
    raise UnknownNameError(f"{what}: unknown variable {name!r}; states, inputs and parameters "
                           f"are: {list(table)}")


def _velocity_states(model: Model) -> list[int]:
    idx = list(range(model._base, model._base + 6)) if model._base >= 0 else []
    idx += [int(model.qd_index[i]) for i in range(len(model.body_names))
            if model.kind[i] >= REVOLUTE]
    return idx


def _spin_setup(model: Model, spin: Mapping[str, Any], x: np.ndarray, fixed: set[str],
                free: list[str]) -> tuple[list[str], dict[str, Any]]:
    """Impose the spin on ``x``; return the cyclic states and the normalised spec."""
    missing = [k for k in ("body", "axis", "rate") if k not in spin]
    if missing or set(spin) - {"body", "axis", "rate"}:
        raise TrimSpecError(f"spin must be {{'body', 'axis', 'rate'}}, got {dict(spin)}")
    body = spin["body"]
    if body not in model.body_names:
        raise UnknownNameError(f"spin: unknown body {body!r}; bodies are {list(model.body_names)}")
    axis = np.asarray(spin["axis"], dtype=float)
    if axis.shape != (3,) or not np.all(np.isfinite(axis)) or axis @ axis == 0.0:
        raise TrimSpecError(f"spin: axis must be a non-zero 3-vector, got {spin['axis']!r}")
    axis = axis / np.sqrt(axis @ axis)
    rate = float(spin["rate"])
    b = model.body_index(body)
    if model.kind[b] == FREE:
        base = model._base
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
        cyclic = [model.state_names[model.q_index[b]]]
    else:
        raise TrimSpecError(f"spin: body {body!r} must be the floating base or have a revolute "
                            "joint")
    return cyclic, {"body": body, "axis": axis, "rate": rate}


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
    pin_neutral: bool = True,
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
        rad/s). For a floating base: its angular velocity is Ω·axis, its origin velocity
        is solved for (added to ``free`` unless fixed), its position and attitude are
        cyclic (excluded). For a body on a revolute joint about ``axis``: the joint rate is
        Ω and its angle is cyclic. Every other joint rate is zero; the joint angles are
        balanced by the centrifugal loads.
    params : dict, optional
        Parameter values (the baseline; ``fixed`` and ``free`` override).
    x0 : array_like, optional
        Baseline state and initial guess (default: :meth:`Model.default_state`).
    guess : dict, optional
        Initial guesses ``name -> value`` of free variables.
    tol : float
        Success iff ``max |residual| <= tol`` (accelerations, m/s² and rad/s²). Default 1e-10.
    max_nfev : int
        Maximum residual evaluations of the least-squares solver.
    pin_neutral : bool
        Hold variables the equations do not depend on at their initial values (default).
    strict : bool
        Raise :class:`TrimError` when no equilibrium is found (default); otherwise return
        the best point with ``success=False``.

    Returns
    -------
    OperatingPoint

    Raises
    ------
    TrimSpecError, UnknownNameError
        Inconsistent specification, naming the variable.
    TrimError
        ``strict`` and the residual exceeds ``tol``.
    """
    if kind not in ("static", "spin"):
        raise TrimSpecError(f"kind must be 'static' or 'spin', got {kind!r}")
    if (kind == "spin") != (spin is not None):
        raise TrimSpecError("kind='spin' needs spin={'body', 'axis', 'rate'} (and only it)")
    table = _names(model)
    fixed = dict(fixed or {})
    free_list: list[str] = []
    for name in free:
        key = _resolve(table, name, "free")
        if key in free_list:
            raise TrimSpecError(f"free: {key!r} is listed twice")
        free_list.append(key)
    fixed_vals = {}
    for name, value in fixed.items():
        key = _resolve(table, name, "fixed")
        if key in free_list:
            raise TrimSpecError(f"{key!r} is both free and fixed")
        fixed_vals[key] = float(value)
    for name in (params or {}):
        _resolve(table, name, "params")

    p = model.param_vector({**model.default_params(), **dict(params or {})}).astype(float)
    for key, value in fixed_vals.items():
        if table[key][0] == "p":
            p[table[key][1]] = value
    x = (np.array(model.default_state(p), dtype=float) if x0 is None
         else np.array(x0, dtype=float).copy())
    if x.shape != (model.n_states,):
        raise TrimSpecError(f"x0 must have shape ({model.n_states},), got {x.shape}")
    u = np.zeros(model.n_inputs)
    velocities = set(_velocity_states(model))
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
        x[model.qd_index[model.kind >= REVOLUTE]] = 0.0
        cyclic, spin_spec = _spin_setup(model, spin, x, set(fixed_vals), free_list)
        allowed = (set(model.state_names[model._base:model._base + 3]) if model._base >= 0
                   else set())
        for key in free_list:
            if key in cyclic:
                raise TrimSpecError(f"{key!r} is cyclic in a steady spin and cannot be free")
            if key in vel_names and key not in allowed:
                raise TrimSpecError(f"{key!r} is a velocity fixed by the spin; it cannot be free")
    for key, value in fixed_vals.items():
        where, i = table[key]
        if where == "x":
            if kind == "static" and i in velocities and value != 0.0:
                raise TrimSpecError(f"{key!r} is a velocity: a static equilibrium needs it zero, "
                                    f"got {value}")
            x[i] = value
        elif where == "u":
            u[i] = value
    for name, value in (guess or {}).items():
        key = _resolve(table, name, "guess")
        if key not in free_list:
            raise TrimSpecError(f"guess: {key!r} is not free")
        where, i = table[key]
        {"x": x, "u": u, "p": p}[where][i] = float(value)

    eq_index = np.array(sorted(velocities), dtype=int)
    prob = _Problem(model, x, u, p, free_list, [table[k] for k in free_list], eq_index)
    z0 = np.array([{"x": x, "u": u, "p": p}[w][i] for w, i in prob.where], dtype=float)
    return _solve(prob, z0, kind=kind, cyclic=cyclic, spin=spin_spec, tol=tol,
                  max_nfev=max_nfev, pin_neutral=pin_neutral, strict=strict,
                  fixed=[k for k in table if k not in free_list and k not in cyclic])


def _neutral(prob: _Problem, z0: np.ndarray) -> list[int]:
    """Free variables whose Jacobian column vanishes at z0 and at two perturbed points."""
    rng = np.random.default_rng(0)
    zs = [z0, z0 + 0.1 * rng.standard_normal(z0.size), z0 + 0.1 * rng.standard_normal(z0.size)]
    norms = np.zeros(z0.size)
    scale = 0.0
    for z in zs:
        J = prob.jacobian(z)
        col = np.sqrt(np.sum(J * J, axis=0))
        norms = np.maximum(norms, col)
        scale = max(scale, float(np.max(col, initial=0.0)))
    return [k for k in range(z0.size) if norms[k] <= 1e-12 * max(1.0, scale)]


def _newton(prob: _Problem, z: np.ndarray, tol: float, max_iter: int
            ) -> tuple[np.ndarray, int, bool]:
    """Gauss-Newton with backtracking on ‖r‖ (minimum-norm steps via lstsq).

    Fast where the problem is well posed (quadratic convergence, exact Jacobian); returns
    ``converged=False`` as soon as it stalls, for the trust-region solver to take over.
    """
    r = prob.residual(z)
    nfev = 1
    for _ in range(max_iter):
        if np.all(np.isfinite(r)) and np.max(np.abs(r), initial=0.0) <= 1e-3 * tol:
            return z, nfev, True
        J = prob.jacobian(z)
        step = np.linalg.lstsq(J, -r, rcond=None)[0]
        norm = float(r @ r)
        for alpha in (1.0, 0.5, 0.25, 0.125, 0.0625):
            trial = z + alpha * step
            r_new = prob.residual(trial)
            nfev += 1
            if np.all(np.isfinite(r_new)) and float(r_new @ r_new) < norm:
                z, r = trial, r_new
                break
        else:
            break
    converged = bool(np.all(np.isfinite(r)) and np.max(np.abs(r), initial=0.0) <= tol)
    return z, nfev, converged


def _solve(prob: _Problem, z0: np.ndarray, *, kind: str, cyclic: list[str],
           spin: dict[str, Any] | None, tol: float, max_nfev: int, pin_neutral: bool,
           strict: bool, fixed: list[str]) -> OperatingPoint:
    model = prob.model
    pinned: list[str] = []
    if pin_neutral and z0.size:
        neutral = _neutral(prob, z0)
        if neutral:
            pinned = [prob.free[k] for k in neutral]
            keep = [k for k in range(z0.size) if k not in neutral]
            X, U, P = prob.assemble(z0)
            prob = _Problem(model, X, U, np.asarray(P, float), [prob.free[k] for k in keep],
                            [prob.where[k] for k in keep], prob.eq_index)
            z0 = z0[keep]
    nfev = 1
    message = ""
    if z0.size:
        z, nfev, converged = _newton(prob, z0, tol, max_iter=min(30, max_nfev))
        if converged:
            message = f"Gauss-Newton converged in {nfev} evaluations"
        else:  # globalised fallback from the best point found
            sol = least_squares(prob.residual, z, jac=lambda z: prob.jacobian(z),
                                method="trf", x_scale="jac", ftol=1e-15, xtol=1e-15,
                                gtol=1e-15, max_nfev=max_nfev)
            z, nfev = sol.x, nfev + int(sol.nfev)
            message = str(sol.message)
    else:
        z = z0
        message = "no free variable: the residual is evaluated at the given point"
    r = prob.residual(z)
    success = bool(np.all(np.isfinite(r)) and np.max(np.abs(r), initial=0.0) <= tol)
    deficiency = 0
    if z.size:
        J = prob.jacobian(z)
        sv = np.linalg.svd(J, compute_uv=False)
        big = sv[0] if sv.size else 0.0
        deficiency = int(z.size - np.sum(sv > 1e-9 * max(big, 1e-300)))
    if not success:
        n_eq, n_free = prob.eq_index.size, z.size
        reason = (f"{n_eq} equations, {n_free} free variables"
                  + ("; more equations than unknowns: the specification may have no solution"
                     if n_eq - deficiency > n_free else ""))
        message = f"{message} ({reason})" if message else reason
    X, U, P = prob.assemble(z)
    P = np.asarray(P, dtype=float)
    op = OperatingPoint(
        model_name=model.name, kind=kind, state_names=model.state_names,
        input_names=model.input_names, param_names=model.param_names,
        x=np.asarray(X, float), u=np.asarray(U, float),
        params=dict(zip(model.param_names, P.tolist())),
        residual_names=tuple(model.state_names[i] for i in prob.eq_index), residual=r,
        free=tuple(prob.free), fixed=tuple(n for n in fixed if n not in pinned),
        pinned=tuple(pinned), cyclic=tuple(cyclic), spin=spin, success=success,
        message=message, tolerance=tol, nfev=nfev, rank_deficiency=deficiency,
    )
    if strict and not success:
        raise TrimError(op)
    return op
