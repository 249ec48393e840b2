"""``linearize_uncertain``: an uncertain (LFT) linear model built from the multibody model.

Trim at the nominal parameters; survey the box to find each parameter's kind
(:mod:`titop_lpv.linear.kinds`, docs/design.md §3); assemble the linear TITOP blocks around
the nominal equilibrium with the model parameters, the scheduled joint positions and the
moving equilibrium positions as ``ureal`` blocks (:func:`~titop_lpv.linear.assemble.assemble`);
remove the repetitions that do not change the model (:func:`~titop_lpv.robust.lft.reduce`).
At any values in the box, ``G.at(values)`` is
``linearize(model, trim(model, ..., params=values))``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import control
import numpy as np

from ..analysis.arguments import ArgumentTypeError, mapping_or_none, name_list, real
from ..analysis.operating_point import OperatingPoint
from ..analysis.trim import trim
from ..exceptions import ParameterError, UnknownNameError
from ..model.compiled import Model
from ..names import resolve
from ..robust.atoms import UReal, ureal
from ..robust.lft import repeat_bounds
from ..robust.system import LFTSystem
from ..robust.uss import USS
from .assemble import assemble, check_model
from .assemble_joints import linear_state_names
from .errors import BlockRouteError
from .kinds import (
    EQUILIBRIUM_RTOL,
    angle_parameter,
    is_angle,
    range_of,
    scheduled_specs,
    survey,
)
from .reduce_check import REDUCTION_RTOL, at_delta, exact_zero_columns, reduce_checked
from .spin import check_spin

__all__ = ["UncertainLinearization", "linearize_uncertain"]


class UncertainLinearization(USS):
    """The uncertain linear model of :func:`linearize_uncertain`: a :class:`USS` with what
    the block route knows of its parameters.

    Built by :func:`linearize_uncertain` (through :meth:`wrap`); constructed directly it is
    a :class:`USS` without a description of its parameters.

    Parameters
    ----------
    M : control.StateSpace or array_like
        The LFT matrix or system (its first inputs/outputs are the Δ channels).
    delta : DeltaStructure, optional
        Block structure.
    params : iterable or mapping of UReal, optional
        The specification of every block, matched by name.
    inputs, outputs, states : sequence of str, optional
        Signal names.
    name : str, optional
        System name.

    Attributes
    ----------
    kinds : dict of str to str
        Every uncertain block and its kind (``"exact"``: the equilibrium configuration does
        not move with it).
    operating_point : OperatingPoint
        The nominal equilibrium the blocks are assembled around.
    repeats : dict of str to tuple of int
        For every block, its repetitions as assembled and after the reduction.
    checked : int
        Number of parameter points at which the equilibrium was re-trimmed to establish the
        kinds.
    """

    __slots__ = ("_checked", "_dropped", "_joints", "_kinds", "_model", "_opoint", "_repeats",
                 "_trim", "_vertices")

    @classmethod
    def wrap(cls, G: LFTSystem, kinds: Mapping[str, str], op: OperatingPoint,
             repeats: Mapping[str, tuple[int, int]], checked: int, *,
             model: Model | None = None, trim_kwargs: Mapping[str, Any] | None = None,
             joints: Mapping[str, tuple[str, float, bool]] | None = None,
             vertices: bool = False,
             dropped: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
             ) -> UncertainLinearization:
        """The uncertain model ``G`` with its description.

        Parameters
        ----------
        G : USS
            The assembled, reduced system.
        kinds : mapping of str to str
            Kind of every block.
        op : OperatingPoint
            The nominal equilibrium.
        repeats : mapping of str to (int, int)
            Repetitions before and after the reduction.
        checked : int
            Parameter points of the survey.
        model : Model, optional
            The model (to re-trim in :meth:`at` for equilibrium blocks).
        trim_kwargs : mapping, optional
            ``free`` and ``fixed`` of the trims.
        joints : mapping of str to (str, float, bool), optional
            For each scheduled or equilibrium block: its joint state, nominal position and
            whether it is an angle (its block is then ψ).
        vertices : bool, optional
            The survey visited every vertex of the box.
        dropped : (tuple of str, tuple of str), optional
            States and outputs removed by ``drop_integrators``.

        Returns
        -------
        UncertainLinearization
        """
        obj = object.__new__(cls)
        for slot in LFTSystem.__slots__:
            object.__setattr__(obj, slot, getattr(G, slot))
        object.__setattr__(obj, "_kinds", dict(kinds))
        object.__setattr__(obj, "_opoint", op)
        object.__setattr__(obj, "_repeats", dict(repeats))
        object.__setattr__(obj, "_checked", int(checked))
        object.__setattr__(obj, "_model", model)
        object.__setattr__(obj, "_trim", dict(trim_kwargs or {}))
        object.__setattr__(obj, "_joints", dict(joints or {}))
        object.__setattr__(obj, "_vertices", bool(vertices))
        object.__setattr__(obj, "_dropped", (tuple(dropped[0]), tuple(dropped[1])))
        return obj

    @property
    def dropped_states(self) -> tuple[str, ...]:
        """States removed by ``drop_integrators`` (pure integrators of the floating base)."""
        return self._dropped[0]

    @property
    def dropped_outputs(self) -> tuple[str, ...]:
        """Outputs removed with them (they read a dropped state)."""
        return self._dropped[1]

    @property
    def kinds(self) -> dict[str, str]:
        """Kind of every block: ``"exact"``, ``"covered"``, ``"scheduled"`` or
        ``"equilibrium"``."""
        return dict(self._kinds)

    @property
    def operating_point(self) -> OperatingPoint:
        """The nominal equilibrium."""
        return self._opoint

    @property
    def repeats(self) -> dict[str, tuple[int, int]]:
        """Repetitions of every block: as assembled, after the reduction."""
        return dict(self._repeats)

    @property
    def repeat_bounds(self) -> dict[str, int]:
        """For every block, a repetition count no LFT of this model can go below.

        With the other blocks fixed, the model is a rational function of the block's
        parameter; its McMillan degree in it (:func:`titop_lpv.repeat_bounds`) bounds the
        repetitions of any LFT with the same states and signals from below. Equal to
        :attr:`repeats` after the reduction: that block is as small as it can be.
        """
        return repeat_bounds(self)

    @property
    def checked(self) -> int:
        """Parameter points at which the equilibrium was re-trimmed."""
        return self._checked

    def block_values(self, values: Mapping[str, Any]) -> dict[str, float]:
        """The physical values of the Δ blocks for model parameters and joint positions.

        The values are in the blocks' units: a joint angle's (scheduled, ``<state>_eq``) in
        rad, as its :class:`~titop_lpv.linear.kinds.JointAngle` takes it (the LFT's ψ is
        formed in the normalisation). Equilibrium positions that are not given are found by
        trimming the model at the given values (from the nominal equilibrium).

        Parameters
        ----------
        values : mapping of str to float
            Model parameters and scheduled joint positions of this model, and optionally
            ``<state>_eq`` positions and ``<input>_eq`` wrench inputs; missing ones take
            their nominal values.

        Returns
        -------
        dict of str to float
        """
        known = set(self.params)
        unknown = [k for k in values if k not in known]
        if unknown:
            raise UnknownNameError(f"unknown parameter(s) {unknown}; the blocks are "
                                   f"{sorted(known)}")
        out = {k: float(v) for k, v in values.items()}
        missing_eq = [b for b, kind in self._kinds.items() if kind == "equilibrium"
                      and b not in out]
        if missing_eq and self._model is not None:
            sched = {self._joints[b][0]: out.get(b, self._joints[b][1])
                     for b, kind in self._kinds.items()
                     if kind == "scheduled" and b in self._joints}
            params = {k: v for k, v in out.items() if k in self._opoint.params}
            fixed = {**dict(self._trim.get("fixed") or {}), **sched}
            extra = {k: v for k, v in self._trim.items() if k in ("kind", "spin", "tol")}
            op = trim(self._model, free=self._trim.get("free", ()), fixed=fixed,
                      params={**self._opoint.params, **params}, x0=self._opoint.x, **extra)
            if not op.success:
                raise BlockRouteError(f"the equilibrium at {dict(values)} could not be "
                                      f"trimmed: {op.message}")
            for b in missing_eq:
                signal = self._joints[b][0]
                out[b] = (float(op.u[self._model.input_names.index(signal)])
                          if signal in self._model.input_names else
                          float(op.x[self._model.state_index(signal)]))
        return out

    def at(self, values: Mapping[str, Any] | None = None, /, **kw: Any) -> Any:
        """The linear model at model parameter values and joint positions (rad, m).

        Equilibrium blocks not given are trimmed for (:meth:`block_values`): ``G.at({"k":
        60.0})`` is the plant of ``linearize(model, trim(..., params={"k": 60.0}))``.

        Parameters
        ----------
        values : mapping, optional
            Model parameters, scheduled joint positions, ``<state>_eq`` positions,
            ``<input>_eq`` wrench inputs.
        **kw
            Same as ``values``, merged in.

        Returns
        -------
        control.StateSpace
        """
        return USS.at(self, self.block_values({**(values or {}), **kw}))

    def report(self) -> str:
        """Text: the Δ structure, and per block its kind, range, nominal, repetitions.

        Returns
        -------
        str
        """
        lines = [f"uncertain linear model of {self.name!r} by the block route: "
                 f"{self.nstates} states, {self.ninputs} inputs, {self.noutputs} outputs, "
                 f"Δ {self.delta.nw}×{self.delta.nz}",
                 f"  {'block':<22} {'kind':<11} {'nominal':>10} {'range':>24} "
                 f"{'repeated':>9} {'least':>6} {'assembled':>10}"]
        least = self.repeat_bounds
        for name, p in self.params.items():
            before, after = self._repeats.get(name, (0, 0))
            lo, hi = p.lo, p.hi  # a joint angle's in rad (JointAngle)
            lines.append(f"  {name:<22} {self._kinds.get(name, '?'):<11} {p.nominal:>10.6g} "
                         f"{f'[{lo:.6g}, {hi:.6g}]':>24} {after:>9} {least.get(name, 0):>6} "
                         f"{before:>10}")
        lines.append("  repeated: after the reduction; least: no LFT of this model holds the "
                     "block fewer times (its McMillan degree in that block, the others fixed)")
        where = ("each parameter's ends, every vertex, three seeded points" if self._vertices
                 else "each parameter's ends, the two extreme corners, three seeded points")
        lines.append(f"  kinds from {self._checked} trims over the box ({where}); a "
                     f"configuration that moves by more than {EQUILIBRIUM_RTOL:g} relative is "
                     "not exact")
        if any(k == "equilibrium" for k in self._kinds.values()):
            lines.append("  equilibrium blocks: the range of the trimmed equilibria at those "
                         "points (the true range when each is monotone in each parameter); "
                         "the Δ box also holds (parameter, position) pairs that are no "
                         "equilibrium: the LFT is larger than the set of plants (conservative)")
        return "\n".join(lines)


def _parameters(model: Model, uncertain: Iterable[str] | Mapping[str, Any],
                nominal: Mapping[str, float], spin_rate: str | None = None
                ) -> dict[str, UReal]:
    """The ``ureal`` of every uncertain parameter, checked against the model's declarations."""
    spec = dict(uncertain) if isinstance(uncertain, Mapping) else {n: None for n in uncertain}
    if not spec:
        raise BlockRouteError("uncertain: give at least one model parameter")
    out: dict[str, UReal] = {}
    for given, value in spec.items():
        name = resolve(given, model.param_names, "parameter", context="uncertain")
        k = model.param_names.index(name)
        lo_decl, hi_decl = (float(v) for v in model.param_bounds[k])
        if not np.any(model.slot_param == k) and name != spin_rate:
            raise BlockRouteError(f"uncertain: parameter {name!r} enters neither the dynamics "
                                  "nor the equilibrium of the model")
        if isinstance(value, UReal):
            if value.name != name:
                raise BlockRouteError(f"uncertain: the ureal for {name!r} is named "
                                      f"{value.name!r}")
            p = value
        else:
            if value is None:
                if not (np.isfinite(lo_decl) and np.isfinite(hi_decl)):
                    raise BlockRouteError(
                        f"uncertain: parameter {name!r} has no declared [min, max]; give its "
                        f"range, uncertain={{{name!r}: (lo, hi)}}")
                lo, hi = lo_decl, hi_decl
            else:
                lo, hi = range_of(value, "uncertain", name)
            p = ureal(name, float(nominal[name]), range=(lo, hi))
        if p.lo < lo_decl or p.hi > hi_decl:
            raise ParameterError(f"parameter {name!r}: range [{p.lo:.6g}, {p.hi:.6g}] outside "
                                 f"its declared range [{lo_decl:.6g}, {hi_decl:.6g}]",
                                 name=model.name)
        out[name] = p
    return out


def linearize_uncertain(model: Model, free: Iterable[str] = (),
                        fixed: Mapping[str, float] | None = None, *,
                        uncertain: Iterable[str] | Mapping[str, Any] = (),
                        scheduling: Mapping[str, Any] | None = None,
                        inputs: Sequence[str] | None = None,
                        outputs: Sequence[str] | None = None,
                        params: Mapping[str, float] | None = None,
                        guess: Mapping[str, float] | None = None,
                        kind: str = "static", spin: Mapping[str, Any] | None = None,
                        drop_integrators: bool = False, tol: float = 1e-10
                        ) -> UncertainLinearization:
    """Uncertain linear model (LFT) of a multibody model around a static equilibrium.

    The equilibrium is trimmed at the nominal values; the box is surveyed to find the kind
    of every parameter (exact, covered, scheduled; docs/design.md §3); the linear TITOP
    blocks of every body and joint are assembled around the nominal equilibrium with the
    uncertain parameters, the scheduled joint positions and the equilibrium positions that
    move (``<state>_eq``) and the free wrench inputs that move (``<input>_eq``) as ``ureal``
    blocks; repetitions that do not change the model are removed. At any values in the box,
    ``G.at(values)`` equals
    ``linearize(model, trim(model, free, fixed, params=values), inputs, outputs)``.

    Parameters
    ----------
    model : Model
        The compiled model.
    free : iterable of str
        Trim unknowns, as :func:`titop_lpv.trim` (with the force/torque of every scheduled
        joint, whose actuator holds it).
    fixed : mapping of str to float, optional
        Trim values held fixed, as :func:`titop_lpv.trim`.
    uncertain : iterable of str or mapping
        Model parameters kept uncertain: names (range: the declared ``[min, max]``), or a
        mapping ``name -> (lo, hi)`` or ``name -> ureal`` (named after the parameter).
    scheduling : mapping, optional
        Joint positions held by their actuators that become parameters of the LFT, named
        after the state: ``state -> (lo, hi)`` [rad or m] (nominal: the middle) or
        ``state -> ureal``. Such a state is in neither ``free`` nor ``fixed``. An angle's
        block is a :class:`~titop_lpv.linear.kinds.JointAngle`: its range, nominal and
        values are the angle ``q`` [rad] as given (in ``G.params``, in
        :meth:`~UncertainLinearization.at`, in worst-case values), while the LFT holds
        ``ψ = q₀ + 2 tan((q − q₀)/2)``, which makes the rotations rational; the normalised
        ``δ = ±1`` are the range's ends exactly, and δ is affine in ψ, monotone (not
        affine) in ``q``. Each end must lie within π of ``q₀``.
    inputs : sequence of str, optional
        Model inputs to keep (default: all).
    outputs : sequence of str, optional
        Outputs to keep: model outputs (sensors) and state names of the linear model, the
        attitude errors ``b_rx b_ry b_rz`` of spherical joints and quaternion bases
        included (default: the model's outputs).
    params : mapping of str to float, optional
        Values of the other parameters, and the nominal values of the uncertain ones
        (default: the model's defaults).
    guess : mapping of str to float, optional
        Initial values of trim unknowns, as :func:`titop_lpv.trim`.
    kind : {"static", "spin"}, optional
        The equilibrium, as :func:`titop_lpv.trim`: a static one, or a steady spin of the
        floating base (without gravity or inertial-frame loads) or of a revolute joint on a
        fixed base, whose cyclic states (the base's position and attitude, the joint's angle)
        the model leaves out, as :func:`titop_lpv.linearize` does.
    spin : mapping, optional
        The spin, as :func:`titop_lpv.trim` (``body``, ``axis``, ``rate``).
    tol : float, optional
        Residual tolerance of every trim (the nominal one and the survey's), as
        :func:`titop_lpv.trim` [m/s², rad/s²]; default 1e-10. A very stiff model (a loop
        closure of 1e6 N/m) may need a larger one.
    drop_integrators : bool, optional
        Drop the floating base's position and attitude states (Euler angles, or a
        quaternion base's attitude error ``b_rx b_ry b_rz``) that nothing else depends
        on (pure integrators, as :func:`titop_lpv.linearize` does) and, with the default
        outputs, the outputs that read them (an output asked for by name that reads one is
        an error); both are listed in ``dropped_states`` and ``dropped_outputs``.

    Returns
    -------
    UncertainLinearization
        A :class:`USS` (states in model order) with ``kinds``, ``report()``,
        ``operating_point``, ``repeats`` and an :meth:`~UncertainLinearization.at` that
        takes joint positions in rad and trims for equilibrium blocks not given.

    Raises
    ------
    UnknownNameError
        An unknown parameter, input or output.
    ParameterError
        A range outside the parameter's declared ``[min, max]``.
    BlockRouteError
        A parameter the model (or its linear model) does not depend on, a range without a
        declared one, a scheduled state that is not an actuated joint position held through
        ``free``, a failed trim, or a model feature the block route cannot express (loop
        closures, steady spins, uncertain joint geometry).
    ArgumentTypeError, ArgumentError
        ``free`` not a list of names; ``uncertain`` neither a dict nor a list of names;
        ``params``, ``fixed``, ``scheduling``, ``guess`` or ``spin`` not a dict; ``tol`` not
        a finite number > 0.

    Examples
    --------
    The balloon's slider stiffness over its declared range, [25, 100] N/m:

    >>> import warnings
    >>> import titop_lpv as tl
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", tl.TitopWarning)  # the paper's inertia data
    ...     model = tl.load_model("examples/balloon.toml")
    >>> free = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
    >>> G = tl.linearize_uncertain(model, free, uncertain=["k"], inputs=["slider_tau"],
    ...                            outputs=["pendulum2_q"],
    ...                            guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
    >>> G.kinds, G.delta.names, G.delta[0].repeats
    ({'k': 'exact'}, ('k',), 1)
    """
    for arg, what in ((params, "params"), (fixed, "fixed"), (scheduling, "scheduling"),
                      (guess, "guess"), (spin, "spin")):  # raw errors at first use before
        mapping_or_none(arg, what)
    if not isinstance(uncertain, Mapping):
        name_list(uncertain, "uncertain")
    tol = real(tol, "tol", low=0.0, strict=True)
    free_list = name_list(free, "free")
    if free_list is None:
        raise ArgumentTypeError("free must be a list of names, got None")
    values = {**model.default_params()}
    values.update({resolve(k, model.param_names, "parameter", context="params"): v
                   for k, v in (params or {}).items()})
    fixed_map = dict(fixed or {})
    sched = scheduled_specs(model, dict(scheduling or {}), free_list, fixed_map)
    if not uncertain and not sched:
        raise BlockRouteError("give at least one uncertain parameter or scheduled position")
    rate = (spin or {}).get("rate")
    spin_rate = (resolve(rate, model.param_names, "parameter", context="spin.rate")
                 if isinstance(rate, str) else None)
    ureals = _parameters(model, uncertain, values, spin_rate) if uncertain else {}
    check_model(model, list(ureals))
    values.update({n: p.nominal for n, p in ureals.items()})
    spin_kw: dict[str, Any] = {"tol": float(tol)}
    if kind != "static" or spin is not None:
        spin_kw.update(kind=kind, spin=spin)
    if kind == "spin":
        check_spin(model, (spin or {}).get("body"), values, list(ureals))
    op = trim(model, free=free_list, fixed={**fixed_map, **{k: v[2] for k, v in sched.items()}},
              params=values, guess=guess, **spin_kw)
    if not op.success:
        raise BlockRouteError(f"the nominal equilibrium could not be trimmed: {op.message}")
    trim_kwargs = {"free": free_list, "fixed": fixed_map, **spin_kw}
    found = survey(model, op, ureals, sched, trim_kwargs)
    config: dict[str, UReal] = {}
    joints: dict[str, tuple[str, float, bool]] = {}
    # covered: the parameters whose ends move the equilibrium (all of them when it moves only
    # under combined variations)
    movers = found.movers or (set(ureals) if found.moving else set())
    kinds: dict[str, str] = {n: "covered" if n in movers else "exact" for n in ureals}
    rate_param = (op.spin or {}).get("rate_param")
    if rate_param in kinds:  # the spin rate named by the spin spec
        kinds[rate_param] = "scheduled"
    for state, (lo, hi, nom) in sched.items():
        angle = is_angle(model, state)
        config[state] = angle_parameter(state, nom, lo, hi, angle)
        joints[state] = (state, nom, angle)
        kinds[state] = "scheduled"
    loads: dict[str, UReal] = {}  # free wrench inputs that move with the parameters
    for signal, (lo, hi) in found.moving.items():
        name = f"{signal}_eq"
        if signal in model.input_names:
            u0 = float(op.u[model.input_names.index(signal)])
            loads[signal] = angle_parameter(name, u0, lo, hi, False)
            joints[name] = (signal, u0, False)
        else:
            q0 = float(op.x[model.state_index(signal)])
            angle = is_angle(model, signal)
            config[signal] = angle_parameter(name, q0, lo, hi, angle)
            joints[name] = (signal, q0, angle)
        kinds[name] = "equilibrium"
    ins = list(model.input_names) if inputs is None else [
        resolve(i, model.input_names, "input", context="inputs") for i in inputs]
    # outputs: sensors, the linear model's states (attitude errors b_rx … of spherical
    # joints and quaternion bases) and, for the hint of the assembly, quaternion components
    outs = list(model.output_names) if outputs is None else [
        resolve(o, tuple(dict.fromkeys((*model.output_names, *linear_state_names(model),
                                        *model.state_names))), "output", context="outputs")
        for o in outputs]
    G = assemble(model, op, ureals, inputs=ins, outputs=outs, configuration=config,
                 input_eq=loads, ends=found.ends)
    Gr, repeats = reduce_checked(G)
    Gr, _ = exact_zero_columns(Gr)  # symmetries: zero columns without rounding residue
    for n in [n for n, k in kinds.items() if k == "equilibrium" and n not in Gr.params]:
        del kinds[n], joints[n]  # a moving position the linear model does not depend on
    idle = [n for n in kinds if n not in Gr.params]
    if idle:
        raise BlockRouteError(f"the linear model from {ins} to {outs} does not depend on the "
                              f"parameter(s) {idle} (they may move the equilibrium inputs "
                              "only): keep them certain")
    dropped: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    if drop_integrators and model.floating_base:
        Gr, dropped = _drop_integrators(model, Gr, explicit=outputs is not None)
    return UncertainLinearization.wrap(Gr, kinds, op, repeats, found.points, model=model,
                                       dropped=dropped,
                                       trim_kwargs=trim_kwargs,
                                       joints=joints, vertices=found.vertices)


def _drop_integrators(model: Model, G: USS, *, explicit: bool
                      ) -> tuple[USS, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Remove the base position and attitude states (Euler angles or attitude error)
    nothing depends on (Δ channels
    included), and the outputs that read them (an error for outputs asked for by name, as
    :func:`titop_lpv.linearize`).

    A state can enter Δ channels whose effects cancel (the heading: gravity rotated about
    itself); its column of ``A(Δ)`` is then zero at every Δ though ``M``'s is not. A
    candidate is dropped when its column of the evaluated ``A`` vanishes (to
    :data:`REDUCTION_RTOL`) at the nominal values and at four seeded points of the box, its
    column of the Δ channels' outputs zeroed (which changes no other column of ``A(Δ)``,
    ``C(Δ)``); an output is kept when its row of ``C(Δ)`` vanishes on the dropped states at
    those points."""
    M, delta = G.lftdata()
    A, B, C, D = (np.array(a, dtype=float) for a in (M.A, M.B, M.C, M.D))
    base = model.base_index
    names = list(G.state_labels)
    linear = linear_state_names(model)  # a quaternion base's attitude error b_rx b_ry b_rz
    candidates = [names.index(n) for n in linear[base + 6:base + 12] if n in names]
    nz = delta.nz
    # A(Δ) and C(Δ) at the nominal values and seeded points of the box: zeroing a state's
    # column of C_z changes only that state's columns of them
    rng = np.random.default_rng(1)
    points = [{}] + [{n: float(rng.uniform(-1.0, 1.0)) for n in G.params} for _ in range(4)]
    evaluated = [at_delta(G, d) for d in points]
    As = [S.A for S in evaluated]
    Cs = [S.C for S in evaluated]
    scale = max(1.0, *(float(np.max(np.abs(a), initial=0.0)) for a in As))
    cscale = max(1.0, *(float(np.max(np.abs(c), initial=0.0)) for c in Cs))
    drop = [k for k in candidates
            if all(np.max(np.abs(a[:, k]), initial=0.0) <= REDUCTION_RTOL * scale for a in As)]
    C[:nz, drop] = 0.0  # the Δ channels' share of them cancels
    keep = [k for k in range(len(names)) if k not in drop]
    rows = list(range(nz)) + [
        nz + j for j in range(G.noutputs)
        if all(np.max(np.abs(c[j, drop]), initial=0.0) <= REDUCTION_RTOL * cscale for c in Cs)]
    out_names = [G.output_labels[r - nz] for r in rows[nz:]]
    Mr = control.ss(A[np.ix_(keep, keep)], B[keep], C[np.ix_(rows, keep)], D[rows])
    Gd = USS(Mr, delta, list(G.params.values()), inputs=G.input_labels, outputs=out_names,
             states=[names[k] for k in keep], name=G.name)
    gone = tuple(o for o in G.output_labels if o not in out_names)
    if gone and explicit:
        raise BlockRouteError(f"outputs {list(gone)} depend on the dropped integrator states "
                              f"{[names[k] for k in drop]}: leave them out, or keep the states")
    return Gd, (tuple(names[k] for k in drop), gone)
