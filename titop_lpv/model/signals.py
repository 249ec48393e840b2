"""Signal naming (docs/design.md §4): one rule for states, inputs and outputs.

Names join the body (or output) name and the quantity with ``_``: ``b_vx … b_psi`` for a
floating base, ``c_q``, ``c_qd`` for a one-d.o.f. joint, ``c_tau`` for its actuator,
``s_qw s_qx s_qy s_qz s_wx s_wy s_wz`` for a spherical joint and ``s_tau_x s_tau_y s_tau_z``
for its actuator (child-frame torque), ``u_q1 u_q2 u_qd1 u_qd2`` for a universal joint and
``u_tau1 u_tau2`` for its actuator (one torque per axis, as ``u_q1``, ``u_qd1``), the input
``d_qdd`` and output ``d_tau`` of a driven joint,
``b_<point>_Fx … _Tz`` for a wrench input, ``<prefix>_x`` … for outputs.
"""

from __future__ import annotations

from collections import Counter

from ..multibody.joints import SPHERICAL, UNIVERSAL
from ..multibody.tables import JOINT_TORQUE_INPUTS
from .description import Body, Free, Output, WrenchInput
from .records import make

__all__ = ["BASE_QUATERNION_STATES", "BASE_STATES", "JOINT_SENSORS", "SPHERICAL_INPUTS",
           "SPHERICAL_STATES", "UNIVERSAL_INPUTS", "UNIVERSAL_STATES", "WRENCH_INPUTS",
           "collisions", "driven", "signal_names"]

BASE_STATES = ("vx", "vy", "vz", "wx", "wy", "wz", "x", "y", "z", "phi", "theta", "psi")
BASE_QUATERNION_STATES = (*BASE_STATES[:9], "qw", "qx", "qy", "qz")
SPHERICAL_STATES = ("qw", "qx", "qy", "qz", "wx", "wy", "wz")
UNIVERSAL_STATES = ("q1", "q2", "qd1", "qd2")
SPHERICAL_INPUTS = JOINT_TORQUE_INPUTS[SPHERICAL]
UNIVERSAL_INPUTS = JOINT_TORQUE_INPUTS[UNIVERSAL]
WRENCH_INPUTS = ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")
SUFFIX = {
    "position": ("x", "y", "z"),
    "attitude": ("phi", "theta", "psi"),
    "velocity": ("vx", "vy", "vz"),
    "angular_velocity": ("wx", "wy", "wz"),
    "acceleration": ("ax", "ay", "az"),
}


def default_outputs(bodies: list[Body]) -> list[Output]:
    """The configuration, what the paper plots: base position and attitude, joint angles."""
    specs: list[Output] = []
    for b in bodies:  # records.make: Output(type, body) without the dataclass __init__
        if isinstance(b.joint, Free):
            specs += [make(Output, {"type": "position", "body": b.name}, frozen=True),
                      make(Output, {"type": "attitude", "body": b.name}, frozen=True)]
        elif b.joint.dof == 1:
            specs.append(make(Output, {"type": "q", "body": b.name}, frozen=True))
        elif b.joint.type == "spherical":
            specs.append(make(Output, {"type": "attitude", "body": b.name}, frozen=True))
    return specs


def driven(body: Body) -> bool:
    """True for a revolute/prismatic joint with ``motion = "input"`` (a driven joint).

    Parameters
    ----------
    body : Body
        A body record.

    Returns
    -------
    bool
    """
    return getattr(body.joint, "motion", "free") == "input"


JOINT_SENSORS = {
    "spherical": {"q": ("qw", "qx", "qy", "qz"), "qd": ("wx", "wy", "wz"),
                  "qdd": ("wdx", "wdy", "wdz")},
    "universal": {"q": ("q1", "q2"), "qd": ("qd1", "qd2"), "qdd": ("qdd1", "qdd2")},
}
"""Suffixes of the ``q``, ``qd``, ``qdd`` sensors of a multi-d.o.f. joint: a spherical
joint's unit quaternion, its child-frame relative angular velocity and the derivative of
that velocity (as the states ``b_qw … b_qz``, ``b_wx … b_wz``); a universal joint's angles,
rates and accelerations per axis (as the states ``b_q1 b_q2 b_qd1 b_qd2``)."""


def output_names(out: Output, joint_type: str | None = None) -> list[str]:
    """Signal names of one output spec.

    Parameters
    ----------
    out : Output
        The sensor.
    joint_type : str, optional
        The joint type of ``out.body`` (its ``q``, ``qd``, ``qdd`` sensors have one signal
        per d.o.f. for a spherical or universal joint: :data:`JOINT_SENSORS`).

    Returns
    -------
    list of str
    """
    if out.type in ("q", "qd", "qdd", "tau"):
        multi = JOINT_SENSORS.get(joint_type or "", {}).get(out.type)
        if multi is not None:
            return [f"{out.name or out.body}_{c}" for c in multi]
        return [out.name or f"{out.body}_{out.type}"]
    at_body = out.point == "origin" or out.type in ("attitude", "angular_velocity")
    prefix = out.name or (out.body if at_body else f"{out.body}_{out.point}")
    return [f"{prefix}_{c}" for c in SUFFIX[out.type]]


def signal_names(
    bodies: list[Body], inputs: list[WrenchInput], outputs: list[Output]
) -> tuple[list[str], list[str], list[tuple[Output, list[str]]]]:
    """States, inputs and (output spec, names) for bodies in state order.

    Parameters
    ----------
    bodies : list of Body
        The bodies, in state order (parents before children).
    inputs : list of WrenchInput
        The wrench inputs, after the joint torques ``<body>_tau`` of actuated joints.
    outputs : list of Output
        The sensors; empty: the default outputs (the configuration).

    Returns
    -------
    states : list of str
        The state names (a floating base's twist, position and Euler angles; ``q``,
        ``qd`` of each 1-d.o.f. joint).
    inputs : list of str
        The input names: joint inputs in body order (``<body>_tau`` of an actuated
        revolute/prismatic joint, ``<body>_qdd`` of a driven one, ``<body>_tau_x _tau_y
        _tau_z`` of an actuated spherical joint, ``<body>_tau1 _tau2`` of an actuated
        universal joint), then wrench components.
    outputs : list of (Output, list of str)
        Each sensor with its signal names; then, for each driven joint, a ``tau`` output
        ``<body>_tau`` (the force/torque that drives it).
    """
    states: list[str] = []
    taus: list[str] = []
    for b in bodies:
        if isinstance(b.joint, Free):
            names = (BASE_QUATERNION_STATES if getattr(b.joint, "attitude", "euler")
                     == "quaternion" else BASE_STATES)
            states += [f"{b.name}_{q}" for q in names]
        elif b.joint.dof == 1:
            states += [f"{b.name}_q", f"{b.name}_qd"]
            if driven(b):
                taus.append(f"{b.name}_qdd")
            elif getattr(b.joint, "actuated", False):
                taus.append(f"{b.name}_tau")
        elif b.joint.type in ("spherical", "universal"):
            sph = b.joint.type == "spherical"
            states += [f"{b.name}_{q}" for q in (SPHERICAL_STATES if sph else UNIVERSAL_STATES)]
            if getattr(b.joint, "actuated", False) is True:
                taus += [f"{b.name}_{t}" for t in (SPHERICAL_INPUTS if sph else UNIVERSAL_INPUTS)]
    wrenches: list[str] = []
    for item in inputs:
        prefix = item.body if item.point == "origin" else f"{item.body}_{item.point}"
        wrenches += [f"{prefix}_{c}" for c in WRENCH_INPUTS]
    specs = list(outputs) or default_outputs(bodies)
    specs += [Output("tau", b.name) for b in bodies if b.joint.dof == 1 and driven(b)]
    joint_types = {b.name: b.joint.type for b in bodies}
    return states, taus + wrenches, [(o, output_names(o, joint_types.get(o.body)))
                                     for o in specs]


def collisions(states: list[str], inputs: list[str], outputs: list[str]) -> list[str]:
    """One problem line per kind of signal whose names collide.

    Parameters
    ----------
    states, inputs, outputs : list of str
        The signal names of each kind.

    Returns
    -------
    list of str
        Empty when every name is unique within its kind.
    """
    problems = []
    for what, sig in (("state", states), ("input", inputs), ("output", outputs)):
        if len(set(sig)) == len(sig):  # every name distinct: no count needed
            continue
        dup = sorted(name for name, count in Counter(sig).items() if count > 1)
        if dup:
            problems.append(f"{what} names collide: {dup} (rename a body, port or output)")
    return problems
