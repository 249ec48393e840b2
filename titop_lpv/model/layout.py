"""The slot vector and the signal units of a model being compiled (:class:`Model`).

:class:`Slots` lays the numeric leaves of a description (numbers, or names of parameters)
out in one flat vector, sharing the slots of identical vectors and matrices;
:func:`signal_units` gives every state, input and output of the model its SI unit. Both run
once per body of a model being compiled, hence their tables: a model of 100 000 bodies
builds them in a fraction of a second.
"""

from __future__ import annotations

from typing import Any

from ..multibody.joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL, UNIVERSAL, WELD
from .description import Body
from .signals import BASE_QUATERNION_STATES, BASE_STATES, SPHERICAL_STATES, UNIVERSAL_STATES

__all__ = ["JOINT_OUTPUT_UNITS", "OUTPUT_UNITS", "STATE_UNITS", "Slots", "j_attitude",
           "signal_units"]


def _suffix_units(names: Any, units: Any) -> tuple[tuple[str, str], ...]:
    return tuple((f"_{q}", u) for q, u in zip(names, units))


STATE_UNITS = {
    (FREE, False): _suffix_units(BASE_STATES, ["m/s"] * 3 + ["rad/s"] * 3 + ["m"] * 3
                                 + ["rad"] * 3),
    (FREE, True): _suffix_units(BASE_QUATERNION_STATES, ["m/s"] * 3 + ["rad/s"] * 3
                                + ["m"] * 3 + [""] * 4),
    SPHERICAL: _suffix_units(SPHERICAL_STATES, [""] * 4 + ["rad/s"] * 3),
    UNIVERSAL: _suffix_units(UNIVERSAL_STATES, ["rad"] * 2 + ["rad/s"] * 2),
    REVOLUTE: _suffix_units(("q", "qd", "qdd", "tau"), ("rad", "rad/s", "rad/s^2", "N m")),
    PRISMATIC: _suffix_units(("q", "qd", "qdd", "tau"), ("m", "m/s", "m/s^2", "N")),
    WELD: (),
}
"""(name suffix, unit) of the states and joint signals of a body, by joint kind (a floating
base: by ``(FREE, quaternion attitude)``)."""

OUTPUT_UNITS = {"position": "m", "attitude": "rad", "velocity": "m/s",
                "angular_velocity": "rad/s", "acceleration": "m/s^2"}
"""Unit of the signals of a point or body sensor, by sensor type."""

JOINT_OUTPUT_UNITS = {False: {"tau": "N m", "q": "rad", "qd": "rad/s", "qdd": "rad/s^2"},
                      True: {"tau": "N", "q": "m", "qd": "m/s", "qdd": "m/s^2"}}
"""Unit of a joint sensor, by sensor type, for a rotating (False) or sliding (True) joint."""


def j_attitude(body: Any) -> str:
    """The attitude states of a floating base: ``"euler"`` or ``"quaternion"``.

    Parameters
    ----------
    body : Body
        A body whose joint is free (any other joint reads as ``"euler"``).

    Returns
    -------
    str
    """
    return str(getattr(body.joint, "attitude", "euler"))


class Slots:
    """Flat vector of numeric leaves: constants or parameter references.

    Parameters
    ----------
    param_names : tuple of str
        The model's parameters (a leaf that is a string names one of them).

    Attributes
    ----------
    const : list of float
        The value of each slot (0.0 for a parameter's slot).
    param : list of int
        The parameter of each slot (its index in ``param_names``), -1 for a constant.
    """

    def __init__(self, param_names: tuple[str, ...]):
        self.pindex = {n: i for i, n in enumerate(param_names)}
        self.const: list[float] = []
        self.param: list[int] = []
        self.cache: dict[tuple[Any, ...], list[int]] = {}  # vector of leaves -> its slots
        self.mats: dict[tuple[Any, ...], list[list[int]]] = {}  # matrix -> its rows' slots

    def add(self, leaf: Any) -> int:
        """Slot of one leaf (shared with every identical leaf, as :meth:`vec`).

        Parameters
        ----------
        leaf : float or str
            A number (in the unit of its field) or the name of a parameter.

        Returns
        -------
        int
            Its index in the slot vector.
        """
        return self.vec((leaf,))[0]

    def vec(self, values: Any) -> list[int]:
        """Slots of a vector of leaves; identical vectors share their slots (read-only data:
        the numbers 0.0 and -0.0 count as identical).

        Parameters
        ----------
        values : sequence of float or str
            Numbers (in the unit of their field) or names of parameters.

        Returns
        -------
        list of int
            Their indices in the slot vector (the same list object for identical vectors).
        """
        key = tuple(values)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        start = len(self.const)
        const, param, pindex = self.const, self.param, self.pindex
        for v in key:
            if isinstance(v, str):
                const.append(0.0)
                param.append(pindex[v])
            else:
                const.append(float(v))
                param.append(-1)
        idx = list(range(start, len(const)))
        self.cache[key] = idx
        return idx

    def mat(self, rows: Any) -> list[list[int]]:
        """Slots of a matrix of leaves, row by row (identical matrices share them, as
        :meth:`vec`).

        Parameters
        ----------
        rows : sequence of sequences of float or str
            The matrix (e.g. an inertia [kg m²] or a rotation), row by row.

        Returns
        -------
        list of list of int
            The slots of each row.
        """
        key = tuple(rows)
        try:
            hit = self.mats.get(key)
        except TypeError:  # rows given as lists (unhashable): not kept
            return [self.vec(r) for r in key]
        if hit is None:
            hit = self.mats[key] = [self.vec(r) for r in key]
        return hit


def signal_units(bodies: list[Body], kind: list[int], states: list[str], inputs: list[str],
                 out_spec: list[tuple[str, int, Any, bool, slice]], outputs: list[str]
                 ) -> dict[str, str]:
    """The SI unit of every state, joint input and output signal of a model.

    Parameters
    ----------
    bodies : list of Body
        The bodies in state order.
    kind : list of int
        Their joint kinds (:mod:`titop_lpv.multibody.joints`).
    states : list of str
        The state names, body by body in that order (as
        :func:`~titop_lpv.model.signals.signal_names` lays them out).
    inputs : list of str
        The input names (wrench components ``…_Fx … _Tz`` get ``N`` or ``N m``).
    out_spec : list of tuple
        ``(type, body index, point slots, body frame, columns)`` per sensor.
    outputs : list of str
        The output names (``columns`` of ``out_spec`` index them).

    Returns
    -------
    dict
        Signal name -> unit (``""`` for a quaternion component).
    """
    tables = [STATE_UNITS[(FREE, j_attitude(b) == "quaternion") if k_i == FREE else k_i]
              for b, k_i in zip(bodies, kind)]
    if REVOLUTE in kind or PRISMATIC in kind:  # their tables also name joint inputs, sensors
        units: dict[str, str] = {}
        for b, table in zip(bodies, tables):
            name = b.name
            for suffix, unit in table:
                units[name + suffix] = unit
    else:  # the tables name the states of each body, in state order
        units = dict(zip(states, [unit for table in tables for _, unit in table],
                         strict=True))
    units.update({nm: ("N" if nm[-2] == "F" else "N m") for nm in inputs if nm[-2:-1] in "FT"
                  and nm[-1] in "xyz"})
    for typ, b_i, _p, _f, sl in out_spec:
        unit = OUTPUT_UNITS.get(typ) or JOINT_OUTPUT_UNITS[kind[b_i] == PRISMATIC][typ]
        units.update(dict.fromkeys(outputs[sl], unit))
    return units
