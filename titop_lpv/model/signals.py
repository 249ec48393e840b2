"""Signal naming (docs/design.md §4): one rule for states, inputs and outputs.

Names join the body (or output) name and the quantity with ``_``: ``b_vx … b_psi`` for a
floating base, ``c_q``, ``c_qd`` for a one-d.o.f. joint, ``c_tau`` for its actuator,
``b_<point>_Fx … _Tz`` for a wrench input, ``<prefix>_x`` … for outputs.
"""

from __future__ import annotations

from collections import Counter

from .description import Body, Free, Output, WrenchInput

__all__ = ["BASE_STATES", "WRENCH_INPUTS", "collisions", "signal_names"]

BASE_STATES = ("vx", "vy", "vz", "wx", "wy", "wz", "x", "y", "z", "phi", "theta", "psi")
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
    for b in bodies:
        if isinstance(b.joint, Free):
            specs += [Output("position", b.name), Output("attitude", b.name)]
        elif b.joint.dof == 1:
            specs.append(Output("q", b.name))
    return specs


def output_names(out: Output) -> list[str]:
    """Signal names of one output spec."""
    if out.type in ("q", "qd", "qdd"):
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
        The input names: joint torques/forces, then wrench components.
    outputs : list of (Output, list of str)
        Each sensor with its signal names.
    """
    states: list[str] = []
    taus: list[str] = []
    for b in bodies:
        if isinstance(b.joint, Free):
            states += [f"{b.name}_{q}" for q in BASE_STATES]
        elif b.joint.dof == 1:
            states += [f"{b.name}_q", f"{b.name}_qd"]
            if getattr(b.joint, "actuated", False):
                taus.append(f"{b.name}_tau")
    wrenches: list[str] = []
    for item in inputs:
        prefix = item.body if item.point == "origin" else f"{item.body}_{item.point}"
        wrenches += [f"{prefix}_{c}" for c in WRENCH_INPUTS]
    specs = list(outputs) or default_outputs(bodies)
    return states, taus + wrenches, [(o, output_names(o)) for o in specs]


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
        dup = sorted(name for name, count in Counter(sig).items() if count > 1)
        if dup:
            problems.append(f"{what} names collide: {dup} (rename a body, port or output)")
    return problems
