"""The spatial branch system of the Riccati transfer-matrix paper (Rui, Bestle et al., 2020).

Its "Large scale examples" hang a branch system from the ceiling: an output chain of rods
whose last body (body N in the paper's numbering, odd numbers are bodies, even numbers
hinges) hangs on the ceiling, a horizontal multi-input body at the lower end of that chain,
and two sub-chains hanging from the two ends of the multi-input body (sub-chain 1 of five
rods, bodies 1 … 9, then the multi-input body 11). Every hinge is a 3-d.o.f.
ball-and-socket joint (a ``spherical`` joint, quaternion attitude). Rods as in the paper's
demonstration example: mass m = 1 kg, length 2a = 1 m, transverse inertia about the centre
of mass m (2a)² / 12 = 1/12 kg m² (J_z = 4 m a² / 3 about the end). The paper's thin rod has
no inertia about its own axis, which leaves a ball joint with a singular apparent inertia;
the rods here are solid cylinders of radius :data:`RADIUS` = 0.05 m (axial inertia
m r² / 2 = 1.25e-3 kg m²), a choice of this benchmark.

Layout at rest (the paper's Fig. 1(a) is not in its text; this is our reading): the output
chain and the sub-chains hang vertically (rods along −z of their body frames), the
multi-input body is horizontal, hung at its centre (its output point O = its centre of
mass, the paper's r_IO = r_IC) with the two sub-chains at its ends (r_I1I2 = 2 r_IC). The
number of bodies n = (N + 1) / 2 is split as 5 (sub-chain 1) + 1 (multi-input body) +
5 (sub-chain 2, so that the multi-input body hung at its centre is balanced) + the rest in
the output chain.

Gravity 9.81 m/s² along −z. The system starts at rest with sub-chain 1 swung out: its first
rod turned by ``tilt`` (default 0.5 rad) about the x axis of the multi-input body (the axis
of the multi-input body itself: sub-chain 1 swings out of the vertical plane of the
multi-input body, a spatial motion). An optional seeded initial relative angular velocity of
every joint (``spin``, rms, default 0) perturbs all bodies; on long chains it must stay
small: relative rates add up along the chain.

Stiffness note: the rod at the top of a chain of n rods hangs under the tension T ≈ n m g;
its zigzag mode with its neighbours has ω² ≈ 24 T / (m 2a), about 2 800 rad/s for n = 33 334
(100 002 d.o.f.), where RK4's stability limit at Δt = 1 ms is ω Δt ≈ 2.8.

Usage::

    from benchmarks.branch_system import branch_system
    data = branch_system(500)          # N = 999, 1 500 d.o.f.
    model = titop_lpv.load_model(data)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LENGTH", "MASS", "RADIUS", "SUB_CHAIN_1", "branch_system", "chain_lengths"]

MASS = 1.0  # [kg], each rod
LENGTH = 1.0  # [m], 2a
RADIUS = 0.05  # [m], the rods' radius (axial inertia; not in the paper)
SUB_CHAIN_1 = 5  # rods of sub-chain 1 (bodies 1, 3, 5, 7, 9 of the paper)


def chain_lengths(n_bodies: int) -> tuple[int, int, int]:
    """Rods of (sub-chain 1, sub-chain 2, output chain) for ``n_bodies`` bodies in all.

    Parameters
    ----------
    n_bodies : int
        Total number of bodies, at least 4 (the multi-input body included).

    Returns
    -------
    tuple of int
        Sub-chain 1 and sub-chain 2 (equal, at most 5 rods each), output chain (the rest,
        at least 1 rod).
    """
    if n_bodies < 4:
        raise ValueError(f"a branch system needs at least 4 bodies, got {n_bodies}")
    sub = min(SUB_CHAIN_1, (n_bodies - 2) // 2)
    return sub, sub, n_bodies - 1 - 2 * sub


def _rod(name: str, parent: str | None, q0: list[float], w0: list[float],
         horizontal: bool = False) -> dict[str, Any]:
    """One rod: body frame at its hinge; vertical rods along −z, the multi-input body along x
    with its hinge at its centre."""
    t = MASS * LENGTH ** 2 / 12.0
    a = MASS * RADIUS ** 2 / 2.0
    if horizontal:
        inertia = [[a, 0.0, 0.0], [0.0, t, 0.0], [0.0, 0.0, t]]
        com, ports = [0.0, 0.0, 0.0], {"end1": [-LENGTH / 2, 0.0, 0.0],
                                       "end2": [LENGTH / 2, 0.0, 0.0]}
    else:
        inertia = [[t, 0.0, 0.0], [0.0, t, 0.0], [0.0, 0.0, a]]
        com, ports = [0.0, 0.0, -LENGTH / 2], {"tip": [0.0, 0.0, -LENGTH]}
    body: dict[str, Any] = {"name": name, "mass": MASS, "com": com, "inertia": inertia,
                            "ports": ports,
                            "joint": {"type": "spherical", "q0": q0, "w0": w0}}
    if parent is not None:
        body["parent"] = parent
    return body


def branch_system(n_bodies: int, *, tilt: float = 0.5, spin: float = 0.0, seed: int = 0
                  ) -> dict[str, Any]:
    """The branch system as a model dict (for :func:`titop_lpv.load_model`).

    Parameters
    ----------
    n_bodies : int
        Number of bodies (the paper's N = 2 n_bodies − 1); 3 d.o.f. each.
    tilt : float, default 0.5
        Initial rotation [rad] of the first rod of sub-chain 1 about x.
    spin : float, default 0
        RMS initial relative angular velocity of each joint [rad/s] (seeded).
    seed : int, default 0
        Seed of the initial angular velocities.

    Returns
    -------
    dict
        The model description: bodies ``out0`` (hung on the ceiling) … ``outK``, ``multi``
        (the multi-input body), ``subA0 …`` and ``subB0 …`` (sub-chains, from the
        multi-input body down), no inputs, the default outputs.
    """
    sub1, sub2, out = chain_lengths(n_bodies)
    rng = np.random.default_rng(seed)
    w = (spin / np.sqrt(3.0)) * rng.standard_normal((n_bodies, 3))
    unit = [1.0, 0.0, 0.0, 0.0]
    bodies: list[dict[str, Any]] = []

    def add(name: str, parent: str | None, horizontal: bool = False) -> None:
        bodies.append(_rod(name, parent, unit, w[len(bodies)].tolist(), horizontal))

    parent = None
    for k in range(out):
        add(f"out{k}", parent)
        parent = f"out{k}.tip"
    add("multi", parent, horizontal=True)
    for prefix, count, port in (("subA", sub1, "multi.end1"), ("subB", sub2, "multi.end2")):
        parent = port
        for k in range(count):
            add(f"{prefix}{k}", parent)
            parent = f"{prefix}{k}.tip"
    first = bodies[out + 1]["joint"]  # subA0
    first["q0"] = [float(np.cos(tilt / 2)), float(np.sin(tilt / 2)), 0.0, 0.0]
    return {"name": f"branch_{n_bodies}", "gravity": [0.0, 0.0, -9.81], "bodies": bodies,
            "outputs": []}
