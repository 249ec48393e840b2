"""Messages for failed evaluations: what a slot holds, which argument or datum is at fault."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DynamicsError
from .tables import Physics
from .tree import Tree

__all__ = ["non_finite_error", "slot_label"]


def slot_label(model: Tree, slot: int) -> str:
    """What a slot of the model's slot vector holds, for messages (``body 'b' com``, ...).

    Parameters
    ----------
    model : Tree
        The compiled tree.
    slot : int
        Index into its slot vector.

    Returns
    -------
    str
        The body and field, port, gravity, load or loop, and the parameter it reads.
    """
    s, label = model.slots, f"slot {slot}"
    fields = {"mass": "mass", "inertia": "inertia", "com": "com", "rot": "joint rotation",
              "axis": "joint axis", "k": "joint stiffness", "d": "joint damping",
              "rest": "joint rest position"}
    hits = [(f"body {model.body_names[int(np.argwhere(getattr(s, f) == slot)[0][0])]!r} {what}")
            for f, what in fields.items() if np.any(getattr(s, f) == slot)]
    hits += [f"body {b!r} port {p!r}" for (b, p), idx in model.points.items()
             if p not in ("origin", "com") and np.any(idx == slot)]
    hits += ["gravity"] * bool(np.any(s.gravity == slot))
    hits += [f"load {k} on body {model.body_names[b]!r}" for k, b in enumerate(model.loads.body)
             if np.any(model.loads.vec[k] == slot)]
    hits += [f"loop {nm!r}" for k, nm in enumerate(model.loops.names)
             if np.any(model.loops.k[k] == slot) or np.any(model.loops.d[k] == slot)]
    label = hits[0] if hits else label
    p = int(model.slot_param[slot])
    return label + (f" (parameter {model.param_names[p]!r})" if p >= 0 else "")


def non_finite_error(model: Tree, x: Any, u: Any, ph: Physics, out: np.ndarray, what: str,
                     names: tuple[str, ...]) -> DynamicsError:
    """The error for a NaN or infinite result: its non-finite argument, else its largest data.

    Parameters
    ----------
    model : Tree
        The compiled tree.
    x, u : array_like (..., n_states), (..., n_inputs) or None
        The state(s) and input(s) evaluated.
    ph : Physics
        The physical data evaluated.
    out : ndarray (..., len(names))
        The result, with some NaN or infinite entry.
    what : str
        What the result is, put before the entry's name (``"d/dt"``, ``"output"``).
    names : tuple of str
        Name of each entry of the result's last axis.

    Returns
    -------
    DynamicsError
        Naming the first non-finite state or input, or (all finite) the first non-finite
        entry of the result with the largest state and the largest physical datum.
    """
    head = f"model {model.name!r}"
    for arg, arg_names, kind in ((x, model.state_names, "state"),
                                 (u, model.input_names, "input")):
        if arg is None or np.size(arg) == 0:
            continue
        arg = np.asarray(arg)
        bad = np.argwhere(~np.isfinite(arg))
        if bad.size:
            return DynamicsError(f"{head}: {kind} {arg_names[int(bad[0][-1])]!r} = "
                                 f"{arg[tuple(bad[0])]}: the evaluation needs finite values")
    k = np.argwhere(~np.isfinite(out))[0]
    xs = np.abs(np.real(np.asarray(x))).reshape(-1, model.n_states)
    vals = np.abs(np.real(ph.vals)).reshape(-1, ph.vals.shape[-1])
    big_x = np.unravel_index(int(np.argmax(xs)), xs.shape) if xs.size else None
    big_s = np.unravel_index(int(np.argmax(vals)), vals.shape) if vals.size else None
    largest = ([f"state {model.state_names[big_x[1]]!r} = {xs[big_x]:.3g}"] if big_x else []) + (
        [f"{slot_label(model, int(big_s[1]))} = {vals[big_s]:.3g}"] if big_s else [])
    return DynamicsError(
        f"{head}: {what} {names[int(k[-1])]} = {out[tuple(k)]} from finite state, input and "
        f"parameters (overflow or total loss of precision); largest magnitudes: "
        f"{', '.join(largest)}")
