"""``linearize_uncertain``: an uncertain (LFT) linear model built from the multibody model.

Trim at the nominal parameters, check that the equilibrium configuration does not move with
the uncertain parameters (their kind is then **exact**, docs/design.md §3), assemble the
linear TITOP blocks around it with the parameters as ``ureal`` blocks
(:func:`~titop_lpv.linear.assemble.assemble`), and remove the repetitions that do not
change the model (:func:`~titop_lpv.robust.lft.reduce`). At any parameter values in the box,
``G.at(values)`` is ``linearize(model, trim(model, ..., params=values))``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..analysis.operating_point import OperatingPoint
from ..analysis.trim import trim
from ..exceptions import ParameterError
from ..model.compiled import Model
from ..names import resolve
from ..robust.atoms import UReal, ureal
from ..robust.lft import reduce as reduce_lft
from ..robust.system import LFTSystem
from ..robust.uss import USS
from .assemble import BlockRouteError, assemble, check_model

__all__ = ["UncertainLinearization", "linearize_uncertain"]

EQUILIBRIUM_RTOL = 1e-8  # relative move of a configuration state that makes a kind not exact


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

    __slots__ = ("_checked", "_kinds", "_op", "_repeats")

    @classmethod
    def wrap(cls, G: LFTSystem, kinds: Mapping[str, str], op: OperatingPoint,
             repeats: Mapping[str, tuple[int, int]], checked: int) -> UncertainLinearization:
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
            Parameter points of the equilibrium check.

        Returns
        -------
        UncertainLinearization
        """
        obj = object.__new__(cls)
        for slot in LFTSystem.__slots__:
            object.__setattr__(obj, slot, getattr(G, slot))
        object.__setattr__(obj, "_kinds", dict(kinds))
        object.__setattr__(obj, "_op", op)
        object.__setattr__(obj, "_repeats", dict(repeats))
        object.__setattr__(obj, "_checked", int(checked))
        return obj

    @property
    def kinds(self) -> dict[str, str]:
        """Kind of every uncertain block (``"exact"``)."""
        return dict(self._kinds)

    @property
    def operating_point(self) -> OperatingPoint:
        """The nominal equilibrium."""
        return self._op

    @property
    def repeats(self) -> dict[str, tuple[int, int]]:
        """Repetitions of every block: as assembled, after the reduction."""
        return dict(self._repeats)

    @property
    def checked(self) -> int:
        """Parameter points at which the equilibrium was re-trimmed."""
        return self._checked

    def report(self) -> str:
        """Text: the Δ structure, and per parameter its kind, range, nominal, repetitions.

        Returns
        -------
        str
        """
        lines = [f"uncertain linear model of {self.name!r} by the block route: "
                 f"{self.nstates} states, {self.ninputs} inputs, {self.noutputs} outputs, "
                 f"Δ {self.delta.nw}×{self.delta.nz}",
                 f"  {'parameter':<16} {'kind':<8} {'nominal':>12} {'range':>26} "
                 f"{'repeated':>9} {'assembled':>10}"]
        for name, p in self.params.items():
            before, after = self._repeats.get(name, (0, 0))
            lines.append(f"  {name:<16} {self._kinds.get(name, '?'):<8} {p.nominal:>12.6g} "
                         f"{f'[{p.lo:.6g}, {p.hi:.6g}]':>26} {after:>9} {before:>10}")
        lines.append(f"  exact: the equilibrium configuration was re-trimmed at {self._checked} "
                     "parameter points (box corners, each parameter's ends, seeded samples) "
                     f"and moved by at most {EQUILIBRIUM_RTOL:g} relative")
        return "\n".join(lines)


def _parameters(model: Model, uncertain: Iterable[str] | Mapping[str, Any],
                nominal: Mapping[str, float]) -> dict[str, UReal]:
    """The ``ureal`` of every uncertain parameter, checked against the model's declarations."""
    spec = dict(uncertain) if isinstance(uncertain, Mapping) else {n: None for n in uncertain}
    if not spec:
        raise BlockRouteError("uncertain: give at least one model parameter")
    out: dict[str, UReal] = {}
    for given, value in spec.items():
        name = resolve(given, model.param_names, "parameter", context="uncertain")
        k = model.param_names.index(name)
        lo_decl, hi_decl = (float(v) for v in model.param_bounds[k])
        if not np.any(model.slot_param == k):
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
                try:
                    lo, hi = (float(v) for v in value)
                except (TypeError, ValueError):
                    raise BlockRouteError(f"uncertain: {name!r} must map to (lo, hi) or a "
                                          f"ureal, got {value!r}") from None
            p = ureal(name, float(nominal[name]), range=(lo, hi))
        if p.lo < lo_decl or p.hi > hi_decl:
            raise ParameterError(f"parameter {name!r}: range [{p.lo:.6g}, {p.hi:.6g}] outside "
                                 f"its declared range [{lo_decl:.6g}, {hi_decl:.6g}]",
                                 name=model.name)
        out[name] = p
    return out


def _check_points(params: Mapping[str, UReal], seed: int = 0) -> list[dict[str, float]]:
    names = list(params)
    lo = {n: params[n].lo for n in names}
    hi = {n: params[n].hi for n in names}
    nom = {n: params[n].nominal for n in names}
    points = [lo, hi]
    for n in names:
        points += [{**nom, n: lo[n]}, {**nom, n: hi[n]}]
    rng = np.random.default_rng(seed)
    points += [{n: float(rng.uniform(lo[n], hi[n])) for n in names} for _ in range(3)]
    return points


def _configuration_moves(model: Model, op: OperatingPoint, params: Mapping[str, UReal],
                         trim_kwargs: Mapping[str, Any]) -> int:
    """Re-trim over the box; raise if the configuration (or a wrench input) moves."""
    config = [i for i in range(model.n_states) if i not in set(model.velocity_indices())]
    wrench = [model.input_names.index(n) for n in model.input_names if not n.endswith("_tau")]
    scale = np.maximum(1.0, np.abs(op.x))
    points = _check_points(params)
    warm = {k: v for k, v in trim_kwargs.items() if k != "guess"}
    for values in points:  # from the nominal equilibrium: a few Newton steps each
        other = trim(model, params={**op.params, **values}, x0=op.x, **warm)
        if not other.success:
            raise BlockRouteError(f"the equilibrium could not be trimmed at {values}: "
                                  f"{other.message}")
        dx = np.abs(other.x - op.x)[config] / scale[config]
        du = np.abs(other.u - op.u)[wrench] if wrench else np.zeros(0)
        if (dx.size and dx.max() > EQUILIBRIUM_RTOL) or (du.size and du.max() > EQUILIBRIUM_RTOL):
            moved = (model.state_names[config[int(np.argmax(dx))]] if dx.size and dx.max()
                     >= (du.max() if du.size else 0.0) else
                     model.input_names[wrench[int(np.argmax(du))]])
            raise BlockRouteError(
                f"the equilibrium moves with the uncertain parameters (at {values}, "
                f"{moved!r} moves by {max(dx.max(initial=0.0), du.max(initial=0.0)):.3g}): "
                "the block route handles parameters of the exact kind, whose equilibrium "
                "configuration does not move; keep these parameters certain, or fit the "
                "grid route (LPV grid over them)")
    return len(points)


def linearize_uncertain(model: Model, free: Iterable[str] = (),
                        fixed: Mapping[str, float] | None = None, *,
                        uncertain: Iterable[str] | Mapping[str, Any],
                        inputs: Sequence[str] | None = None,
                        outputs: Sequence[str] | None = None,
                        params: Mapping[str, float] | None = None,
                        guess: Mapping[str, float] | None = None) -> UncertainLinearization:
    """Uncertain linear model (LFT) of a multibody model around a static equilibrium.

    The equilibrium is trimmed at the nominal parameters; the linear TITOP blocks of every
    body and joint are assembled around it with the uncertain parameters kept as ``ureal``
    (docs/design.md §3), then repetitions that do not change the model are removed. At any
    values in the box, ``G.at(values)`` equals
    ``linearize(model, trim(model, free, fixed, params=values), inputs, outputs)``.

    Parameters
    ----------
    model : Model
        The compiled model.
    free : iterable of str
        Trim unknowns, as :func:`titop_lpv.trim`.
    fixed : mapping of str to float, optional
        Trim values held fixed, as :func:`titop_lpv.trim`.
    uncertain : iterable of str or mapping
        Model parameters kept uncertain: names (range: the declared ``[min, max]``), or a
        mapping ``name -> (lo, hi)`` or ``name -> ureal`` (named after the parameter).
    inputs : sequence of str, optional
        Model inputs to keep (default: all).
    outputs : sequence of str, optional
        Outputs to keep: model outputs (sensors) and state names (default: the model's
        outputs).
    params : mapping of str to float, optional
        Values of the other parameters, and the nominal values of the uncertain ones
        (default: the model's defaults).
    guess : mapping of str to float, optional
        Initial values of trim unknowns, as :func:`titop_lpv.trim`.

    Returns
    -------
    UncertainLinearization
        A :class:`USS` (states in model order) with ``kinds``, ``report()``,
        ``operating_point`` and ``repeats``.

    Raises
    ------
    UnknownNameError
        An unknown parameter, input or output.
    ParameterError
        A range outside the parameter's declared ``[min, max]``.
    BlockRouteError
        A parameter the model (or its linear model) does not depend on, a range without a
        declared one, an
        equilibrium that moves with the parameters, a failed trim, or a model feature the
        block route cannot express (loop closures, steady spins, uncertain joint geometry).

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
    values = {**model.default_params(), **dict(params or {})}
    resolved = {resolve(k, model.param_names, "parameter", context="params"): v
                for k, v in (params or {}).items()}
    values.update(resolved)
    ureals = _parameters(model, uncertain, values)
    check_model(model, list(ureals))
    values.update({n: p.nominal for n, p in ureals.items()})
    trim_kwargs = {"free": list(free), "fixed": dict(fixed or {}), "guess": guess}
    op = trim(model, params=values, **trim_kwargs)
    if not op.success:
        raise BlockRouteError(f"the nominal equilibrium could not be trimmed: {op.message}")
    checked = _configuration_moves(model, op, ureals, trim_kwargs)
    ins = list(model.input_names) if inputs is None else [
        resolve(i, model.input_names, "input", context="inputs") for i in inputs]
    outs = list(model.output_names) if outputs is None else [
        resolve(o, tuple(dict.fromkeys((*model.output_names, *model.state_names))), "output",
                context="outputs") for o in outputs]
    G = assemble(model, op, ureals, inputs=ins, outputs=outs)
    Gr, repeats = reduce_lft(G)
    idle = [n for n in ureals if n not in Gr.params]
    if idle:
        raise BlockRouteError(f"the linear model from {ins} to {outs} does not depend on the "
                              f"parameter(s) {idle} (they may move the equilibrium inputs "
                              "only): keep them certain")
    kinds = {n: "exact" for n in Gr.params}
    return UncertainLinearization.wrap(Gr, kinds, op, repeats, checked)
