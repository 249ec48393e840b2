"""Kinds of parameters of an uncertain linear model (docs/design.md §3).

* **exact** — a model parameter the equilibrium configuration does not move with;
* **scheduled** — a joint position held by its actuator, made a parameter of the LFT;
* **covered** — a model parameter the passive equilibrium moves with: each joint position
  that moves becomes an extra parameter ``<state>_eq`` (kind **equilibrium**) whose range is
  the range of the trimmed equilibria over the box, so that the LFT holds every plant of the
  box (and more: the report says how much). A free wrench input of the trim that moves
  becomes ``<input>_eq`` the same way.

The kinds are found by re-trimming the model over the box of the uncertain and scheduled
parameters (each parameter's ends, every vertex of the box up to eight parameters, three
seeded points): a survey, so a covered range is the range seen at those points — the true
range when each equilibrium position is monotone in each parameter, not a proof otherwise.

A joint angle enters the blocks through rotations; its LFT parameter is
``ψ = q₀ + 2 tan((q − q₀)/2)`` (:func:`~titop_lpv.linear.values.rotation`), which keeps them
rational; ``ψ ≈ q`` near ``q₀`` and maps any range of ``q`` within π of ``q₀`` one to one.
Its ``ureal`` is a :class:`JointAngle`: range, nominal and values in rad (the joint angle
the user gave), normalised through ψ.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..analysis.operating_point import OperatingPoint
from ..analysis.trim import trim
from ..model.compiled import Model
from ..multibody.joints import FREE, PRISMATIC, REVOLUTE, UNIVERSAL
from ..robust.atoms import UReal, ureal
from .errors import BlockRouteError

__all__ = [
    "EQUILIBRIUM_RTOL",
    "JointAngle",
    "Survey",
    "angle_parameter",
    "check_points",
    "is_angle",
    "psi",
    "psi_inverse",
    "range_of",
    "scheduled_specs",
    "survey",
]


def range_of(spec: Any, where: str, name: str) -> tuple[float, float]:
    """A ``(lo, hi)`` pair given for ``name`` in the argument ``where``, as floats.

    Parameters
    ----------
    spec : object
        What was given.
    where : str
        The argument (for the message).
    name : str
        The parameter or state it was given for.

    Returns
    -------
    (float, float)

    Raises
    ------
    BlockRouteError
        Not a pair of numbers.
    """
    try:
        lo, hi = (float(v) for v in spec)
    except (TypeError, ValueError):
        raise BlockRouteError(f"{where}: {name!r} must map to (lo, hi) or a ureal, "
                              f"got {spec!r}") from None
    return lo, hi


def is_angle(model: Model, state: str) -> bool:
    """True for a revolute joint angle or a floating-base Euler angle.

    Parameters
    ----------
    model : Model
        The compiled model.
    state : str
        A configuration state name.

    Returns
    -------
    bool
    """
    if model.floating_base and state in model.state_names[model.base_index + 9:
                                                          model.base_index + 12]:
        return True
    if state.endswith(("_q1", "_q2")) and state[:-3] in model.body_names:
        return bool(model.kind[model.body_index(state[:-3])] == UNIVERSAL)  # its two angles
    return bool(model.kind[model.body_index(state[:-2])] == REVOLUTE)

EQUILIBRIUM_RTOL = 1e-8  # relative move of a configuration state that makes a kind not exact
MAX_VERTEX_PARAMETERS = 8  # up to this many parameters the survey visits every vertex


def psi(q: float, q0: float) -> float:
    """The LFT parameter ``ψ = q₀ + 2 tan((q − q₀)/2)`` of a joint angle ``q`` [rad].

    Parameters
    ----------
    q : float
        The angle [rad]; ``|q − q₀| < π``.
    q0 : float
        The nominal angle [rad].

    Returns
    -------
    float
    """
    if not abs(q - q0) < np.pi:
        raise BlockRouteError(f"angle {q:.6g} rad is π or more from the nominal {q0:.6g} rad: "
                              "outside what its LFT parameter can represent")
    return float(q0 + 2.0 * np.tan(0.5 * (q - q0)))


def psi_inverse(value: float, q0: float) -> float:
    """The joint angle ``q = q₀ + 2 atan((ψ − q₀)/2)`` [rad] of an LFT parameter ``ψ``.

    Parameters
    ----------
    value : float
        ψ [rad].
    q0 : float
        The nominal angle [rad].

    Returns
    -------
    float
    """
    return float(q0 + 2.0 * math.atan(0.5 * (value - q0)))


@dataclass(frozen=True)
class JointAngle(UReal):
    """A joint angle as a Δ block: its range, nominal and values in rad, the block ψ.

    The blocks hold ``ψ = q₀ + 2 tan((q − q₀)/2)`` (``q₀`` = :attr:`nominal`, the angle they
    are assembled at), affine in the normalised ``δ``: ``ψ = ψ_c + s δ`` with ``ψ_c``, ``s``
    the centre and half-width of ``[ψ(lo), ψ(hi)]``. ``lo``, ``hi`` and every value given
    to or returned by :meth:`to_delta`, :meth:`from_delta` (so ``G.at``, ``G.params``,
    worst-case and sampled values) are the angle ``q``; ``δ = ±1`` is ``q = hi``, ``lo``
    exactly, and δ is monotone, not affine, in ``q`` (``q = ψ`` to third order near ``q₀``:
    ``ψ − q ≈ (q − q₀)³/12``). In arithmetic (``2 * p``, :meth:`affine`) the atom is ψ, the
    variable of the LFT.

    Parameters
    ----------
    name : str
        Block name.
    nominal : float
        ``q₀`` [rad].
    lo, hi : float
        Range of the angle [rad], within π of ``q₀``.
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        for end in (self.lo, self.hi):
            psi(end, self.nominal)  # refuses an end π or more from q₀

    @property
    def center(self) -> float:
        """The angle at δ = 0 [rad] (``ψ_c`` mapped back)."""
        return psi_inverse(self.affine()[0], self.nominal)

    @property
    def delta_nominal(self) -> float:
        """Normalised nominal (``q₀``: ψ = q₀)."""
        return self.to_delta(self.nominal)

    def affine(self) -> tuple[float, float]:
        """``(ψ_c, s)`` with the block's ``ψ = ψ_c + s δ``."""
        a, b = psi(self.lo, self.nominal), psi(self.hi, self.nominal)
        return 0.5 * (a + b), 0.5 * (b - a)

    def to_delta(self, value: float) -> float:
        """Normalised ``δ`` of an angle.

        Parameters
        ----------
        value : float
            The angle [rad], within π of :attr:`nominal`.
        """
        c, s = self.affine()
        return (psi(float(value), self.nominal) - c) / s

    def from_delta(self, delta: float) -> float:
        """The angle [rad] of a normalised ``δ``.

        Parameters
        ----------
        delta : float
            The normalised value.
        """
        c, s = self.affine()
        return psi_inverse(c + s * float(delta), self.nominal)


def angle_parameter(name: str, q0: float, lo: float, hi: float, revolute: bool) -> UReal:
    """The ``ureal`` of a joint position ranging over ``[lo, hi]`` around ``q0``.

    Parameters
    ----------
    name : str
        Block name.
    q0 : float
        Nominal position [rad or m].
    lo, hi : float
        Range [rad or m].
    revolute : bool
        An angle (a :class:`JointAngle`: range in rad, block ψ, see :func:`psi`), else a
        displacement [m] (or a wrench input [N, N m]).

    Returns
    -------
    UReal
    """
    if revolute:
        return JointAngle(name, float(q0), float(lo), float(hi))
    return ureal(name, q0, range=(lo, hi))


def check_points(ranges: Mapping[str, tuple[float, float, float]], seed: int = 0, *,
                 vertices: bool = True) -> list[dict[str, float]]:
    """Points of the box where the equilibrium is re-trimmed.

    Parameters
    ----------
    ranges : mapping of str to (lo, hi, nominal)
        The box.
    seed : int, optional
        Seed of the three random points.
    vertices : bool, optional
        Every vertex of the box (up to :data:`MAX_VERTEX_PARAMETERS` parameters); else its
        two extreme corners only.

    Returns
    -------
    list of dict
        Each parameter's ends (others nominal), every vertex of the box (its two extreme
        corners only beyond :data:`MAX_VERTEX_PARAMETERS` parameters), three random points.
    """
    names = list(ranges)
    lo = {n: ranges[n][0] for n in names}
    hi = {n: ranges[n][1] for n in names}
    nom = {n: ranges[n][2] for n in names}
    points = []
    for n in names:
        points += [{**nom, n: lo[n]}, {**nom, n: hi[n]}]
    if vertices and len(names) <= MAX_VERTEX_PARAMETERS:  # every vertex of the box
        for corner in range(2 ** len(names)):
            points.append({n: (lo[n], hi[n])[(corner >> j) & 1] for j, n in enumerate(names)})
    else:
        points += [lo, hi]
    rng = np.random.default_rng(seed)
    points += [{n: float(rng.uniform(lo[n], hi[n])) for n in names} for _ in range(3)]
    return points


@dataclass
class Survey:
    """What re-trimming over the box found.

    Attributes
    ----------
    points : int
        Number of trims.
    moving : dict of str to (float, float)
        Joint positions and floating-base Euler angles that move (the state name and the
        range seen [rad or m]), and free wrench inputs that move (the input name and its
        range [N or N m]).
    movers : set of str
        Model parameters whose ends (others nominal) move the equilibrium.
    vertices : bool
        Every vertex of the box was visited (the equilibrium moves).
    ends : dict of (str, float) to ndarray
        The trimmed state at each end of each model parameter, the others (and every
        scheduled position) nominal: ``(name, value) -> x`` (reused by
        :func:`~titop_lpv.linear.assemble_joints.refuse_moving_positions`).
    """

    points: int = 0
    moving: dict[str, tuple[float, float]] = field(default_factory=dict)
    movers: set[str] = field(default_factory=set)
    vertices: bool = False
    ends: dict[tuple[str, float], np.ndarray] = field(default_factory=dict)


def survey(model: Model, op: OperatingPoint, params: Mapping[str, UReal],
           scheduled: Mapping[str, tuple[float, float, float]],
           trim_kwargs: Mapping[str, Any]) -> Survey:
    """Re-trim over the box of the model parameters and the scheduled joint positions.

    Parameters
    ----------
    model : Model
        The compiled model.
    op : OperatingPoint
        The nominal equilibrium.
    params : mapping of str to UReal
        Uncertain model parameters.
    scheduled : mapping of str to (lo, hi, nominal)
        Scheduled joint positions (state names) and their ranges.
    trim_kwargs : mapping
        ``free``, ``fixed`` (without the scheduled states), and ``kind``, ``spin`` for a
        steady spin.

    Returns
    -------
    Survey

    Raises
    ------
    BlockRouteError
        A failed trim.
    """
    ranges = {n: (p.lo, p.hi, p.nominal) for n, p in params.items()}
    ranges.update(scheduled)
    joints = [f"{b}_q" for i, b in enumerate(model.body_names)
              if model.kind[i] in (REVOLUTE, PRISMATIC) and f"{b}_q" not in scheduled]
    joints += [f"{b}_q{j}" for i, b in enumerate(model.body_names)
               if model.kind[i] == UNIVERSAL for j in (1, 2)]
    if model.floating_base:  # the base's Euler angles (its position enters no block)
        joints += list(model.state_names[model.base_index + 9:model.base_index + 12])
    watch = {name: model.state_index(name) for name in joints}
    # free wrench inputs balance the loads: their equilibrium values enter the blocks
    wrench = {n: i for i, n in enumerate(model.input_names) if not n.endswith("_tau")}
    out = Survey()
    seen: dict[str, list[float]] = {n: [float(op.x[i])] for n, i in watch.items()}
    seen.update({n: [float(op.u[i])] for n, i in wrench.items()})
    # a cheap survey first; every vertex when the equilibrium moves (for its range)
    cheap = check_points(ranges, vertices=False)
    _trims(model, op, params, scheduled, ranges, watch, trim_kwargs, cheap, out, seen)
    if any(max(v) - min(v) > EQUILIBRIUM_RTOL * max(1.0, abs(v[0])) for v in seen.values()):
        extra = [pt for pt in check_points(ranges) if pt not in cheap]
        _trims(model, op, params, scheduled, ranges, watch, trim_kwargs, extra, out, seen)
        out.vertices = len(ranges) <= MAX_VERTEX_PARAMETERS
    for n, vals in seen.items():
        lo, hi = min(vals), max(vals)
        if hi - lo > EQUILIBRIUM_RTOL * max(1.0, abs(vals[0])):
            out.moving[n] = (lo, hi)
    return out


def _trims(model: Model, op: OperatingPoint, params: Mapping[str, UReal],
           scheduled: Mapping[str, tuple[float, float, float]],
           ranges: Mapping[str, tuple[float, float, float]], watch: Mapping[str, int],
           trim_kwargs: Mapping[str, Any], points: list[dict[str, float]], out: Survey,
           seen: dict[str, list[float]]) -> None:
    """Trim at ``points``; record the joint positions and wrench inputs seen, and the
    parameters that move them."""
    wrench = {n: i for i, n in enumerate(model.input_names) if not n.endswith("_tau")}
    fixed = dict(trim_kwargs.get("fixed") or {})
    out.points += len(points)
    static = trim_kwargs.get("kind", "static") == "static"
    tol = float(trim_kwargs.get("tol", 1e-10))
    for values in points:
        p = {k: v for k, v in values.items() if k in params}
        s = {k: v for k, v in values.items() if k in scheduled}
        x, u = np.array(op.x, dtype=float), np.asarray(op.u, dtype=float)
        for k, v in s.items():
            x[model.state_index(k)] = v
        # the nominal equilibrium is still one here (a stiffness at its spring's rest, a
        # damper): the trim from it would stop where it starts
        if not (static and np.max(np.abs(model.dynamics(0.0, x, u, {**op.params, **p})),
                                  initial=0.0) <= tol):
            extra = {k: v for k, v in trim_kwargs.items() if k in ("kind", "spin", "tol")}
            other = trim(model, free=trim_kwargs.get("free", ()), fixed={**fixed, **s},
                         params={**op.params, **p}, x0=op.x, **extra)
            if not other.success:
                raise BlockRouteError(f"the equilibrium could not be trimmed at {values}: "
                                      f"{other.message}")
            x, u = other.x, other.u
        for n, i in watch.items():
            seen[n].append(float(x[i]))
        for n, i in wrench.items():
            seen[n].append(float(u[i]))
        off = [k for k in params if values.get(k) != params[k].nominal]
        if len(off) == 1 and not any(values.get(k) != ranges[k][2] for k in scheduled):
            out.ends[(off[0], float(values[off[0]]))] = np.array(x, dtype=float)
        moved = [n for n, i in watch.items()
                 if abs(x[i] - op.x[i]) > EQUILIBRIUM_RTOL * max(1.0, abs(op.x[i]))]
        moved += [n for n, i in wrench.items()
                  if abs(u[i] - op.u[i]) > EQUILIBRIUM_RTOL * max(1.0, abs(op.u[i]))]
        if moved and len(off) == 1 and not any(values.get(k) != ranges[k][2]
                                               for k in scheduled):
            out.movers.add(off[0])


def scheduled_specs(model: Model, scheduling: Mapping[str, Any], free: Sequence[str],
                    fixed: Mapping[str, float]) -> dict[str, tuple[float, float, float]]:
    """Scheduled joint positions: ``state -> (lo, hi, nominal)``, checked.

    Parameters
    ----------
    model : Model
        The compiled model.
    scheduling : mapping
        ``state -> (lo, hi)`` or ``state -> ureal`` (named after the state; its nominal is
        the nominal position, else the middle of the range).
    free : sequence of str
        The trim unknowns (the joint's force/torque must be one: the actuator holds it;
        a driven joint is held by its imposed acceleration).
    fixed : mapping
        The trim's fixed values (the state must not be one).

    Returns
    -------
    dict
    """
    out: dict[str, tuple[float, float, float]] = {}
    for given, spec in scheduling.items():
        name = given.replace(".", "_")
        body = name[:-2] if name.endswith("_q") else ""
        if body not in model.body_names or model.kind[model.body_index(body)] == FREE or \
                name not in model.state_names:
            raise BlockRouteError(f"scheduling: {given!r} is not the position of a revolute or "
                                  "prismatic joint (b_q)")
        if name in [f.replace(".", "_") for f in free] or name in {
                k.replace(".", "_") for k in fixed}:
            raise BlockRouteError(f"scheduling: {name!r} is a parameter of the LFT: leave it "
                                  "out of free and fixed")
        driven = model.qdd_column[model.body_index(body)] >= 0  # held by its drive
        if not driven and f"{body}_tau" not in [f.replace(".", "_") for f in free]:
            raise BlockRouteError(f"scheduling: {name!r} must be held by its actuator: make the "
                                  f"joint actuated and put {body}_tau in free, or driven")
        if isinstance(spec, UReal):
            lo, hi, nom = spec.lo, spec.hi, spec.nominal
        else:
            lo, hi = range_of(spec, "scheduling", name)
            nom = 0.5 * (lo + hi)
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise BlockRouteError(f"scheduling: {name!r} needs a finite range lo < hi")
        out[name] = (float(lo), float(hi), float(nom))
    return out
