"""Uncertain systems in files: the LFT matrices ``M`` (Δ channels first), the Δ structure
(name, kind, rows, cols, repeats per block), every parameter (ureal: nominal, lo, hi;
ucomplex: nominal, radius; ultidyn: ny, nu, bound), the signal names and the timebase. Data
only: the USS is rebuilt by its checked constructor, so an inconsistent file is refused.

A joint angle's block (:class:`~titop_lpv.linear.kinds.JointAngle`: range in rad, LFT
variable ``ψ = q₀ + 2 tan((q − q₀)/2)``) is written as the ``ureal`` of ψ, which any reader
(MATLAB's ``ureal``) rebuilds exactly; ``param_angles`` (flag, lo, hi [rad] per parameter)
lets :func:`uss_from_record` give it back its range in rad."""

from __future__ import annotations

from typing import Any

import control
import numpy as np

from ..exceptions import ModelFileError
from ..linear.kinds import JointAngle
from ..robust.abcd import ABCD
from ..robust.atoms import UComplex, ULTIDyn, UReal
from ..robust.blocks import Block, DeltaStructure
from ..robust.uss import USS

__all__ = ["dt_record", "uss_from_record", "uss_record"]


def dt_record(dt: Any) -> tuple[str, float]:
    """The timebase of a system as ``(kind, dt)``.

    Parameters
    ----------
    dt : None, True, 0 or float
        python-control's ``dt``: None static, True discrete (unspecified step), 0
        continuous, else the sampling period [s].

    Returns
    -------
    (str, float)
        ``static``, ``discrete``, ``continuous`` or ``sampled``, and the period [s] (0 if
        none).
    """
    if dt is None:
        return "static", 0.0
    if dt is True:
        return "discrete", 0.0
    return ("continuous", 0.0) if dt == 0 else ("sampled", float(dt))


def uss_record(G: USS) -> dict[str, Any]:
    """The record of an uncertain system (arrays, strings, lists of strings).

    Parameters
    ----------
    G : USS
        The uncertain system.

    Returns
    -------
    dict
        Keys ``kind = "uss"``, ``name``, ``A, B, C, D`` (of ``M``), ``StateName``,
        ``InputName``, ``OutputName`` (performance signals), ``dt_kind``, ``dt``,
        ``block_names``, ``block_kinds``, ``block_sizes`` (rows, cols, repeats per block),
        ``param_types`` and ``param_values`` (nominal, lo, hi / nominal, radius, 0 /
        ny, nu, bound per parameter, in block order; a joint angle's as the ``ureal`` of its
        ψ), ``param_angles`` (1, lo, hi [rad] for a joint angle, else zeros).
    """
    S = G.abcd
    types, values, angles = [], [], []
    for b in G.delta:
        a = G.params[b.name]
        angles.append([0.0, 0.0, 0.0])
        if isinstance(a, JointAngle):  # the LFT's variable ψ, as a plain ureal
            c, h = a.affine()
            types.append("ureal")
            values.append([a.nominal, c - h, c + h])
            angles[-1] = [1.0, a.lo, a.hi]
        elif isinstance(a, UReal):
            types.append("ureal")
            values.append([a.nominal, a.lo, a.hi])
        elif isinstance(a, UComplex):
            types.append("ucomplex")
            values.append([a.nominal, a.radius, 0.0])
        else:
            types.append("ultidyn")
            values.append([float(a.shape[0]), float(a.shape[1]), a.bound])
    dt_kind, dt = dt_record(G.dt)
    nb = len(G.delta)
    return {
        "kind": "uss", "name": G.name or "",
        "A": np.asarray(S.A, float), "B": np.asarray(S.B, float),
        "C": np.asarray(S.C, float), "D": np.asarray(S.D, float),
        "StateName": list(G.state_labels), "InputName": list(G.input_labels),
        "OutputName": list(G.output_labels), "dt_kind": dt_kind, "dt": dt,
        "block_names": [b.name for b in G.delta], "block_kinds": [b.kind for b in G.delta],
        "block_sizes": np.array([[b.rows, b.cols, b.repeats] for b in G.delta],
                                dtype=float).reshape(nb, 3),
        "param_types": types,
        "param_values": np.array(values, dtype=float).reshape(nb, 3),
        "param_angles": np.array(angles, dtype=float).reshape(nb, 3),
    }


def uss_from_record(rec: dict[str, Any], strings: Any) -> USS:
    """The uncertain system of a record written by :func:`uss_record`.

    Parameters
    ----------
    rec : dict
        The record, as read from the file.
    strings : callable
        Reads a list of names back (from a list, an array or a MATLAB cell array).

    Returns
    -------
    USS

    Raises
    ------
    ModelFileError
        An inconsistent record (unknown block kind or parameter type, sizes that do not
        match ``M``).
    """
    names, kinds = strings(rec["block_names"]), strings(rec["block_kinds"])
    types = strings(rec["param_types"])
    nb = len(names)
    if len(kinds) != nb or len(types) != nb:
        raise ModelFileError(f"uss record: {nb} block names, {len(kinds)} kinds and "
                             f"{len(types)} parameter types")
    sizes = np.asarray(rec["block_sizes"], float).reshape(nb, 3)
    values = np.asarray(rec["param_values"], float).reshape(nb, 3)
    angles = (np.asarray(rec["param_angles"], float).reshape(nb, 3) if "param_angles" in rec
              else np.zeros((nb, 3)))  # files written before joint-angle blocks
    blocks, params = [], []
    for name, kind, size, typ, v, ang in zip(names, kinds, sizes, types, values, angles):
        blocks.append(Block(name, kind, *(int(x) for x in size)))
        if typ == "ureal" and ang[0] == 1.0:
            params.append(JointAngle(name, v[0], ang[1], ang[2]))
        elif typ == "ureal":
            params.append(UReal(name, v[0], v[1], v[2]))
        elif typ == "ucomplex":
            params.append(UComplex(name, v[0], v[1]))
        elif typ == "ultidyn":
            params.append(ULTIDyn(name, (int(v[0]), int(v[1])), v[2]))
        else:
            raise ModelFileError(f"uss record: unknown parameter type {typ!r}")
    delta = DeltaStructure(tuple(blocks))
    states, inputs = strings(rec["StateName"]), strings(rec["InputName"])
    outputs = strings(rec["OutputName"])
    n, m, p = len(states), len(inputs) + delta.nw, len(outputs) + delta.nz

    def mat(key: str, shape: tuple[int, int]) -> np.ndarray:
        return np.asarray(rec[key], dtype=float).reshape(shape)

    S = ABCD(mat("A", (n, n)), mat("B", (n, m)), mat("C", (p, n)), mat("D", (p, m)))
    dt_kind = str(np.asarray(rec["dt_kind"]).ravel()[0]) if not isinstance(
        rec["dt_kind"], str) else rec["dt_kind"]
    dt_value = float(np.asarray(rec["dt"], float).ravel()[0])
    dt = {"static": None, "discrete": True, "continuous": 0}.get(dt_kind, dt_value)
    if dt_kind not in ("static", "discrete", "continuous", "sampled"):
        raise ModelFileError(f"uss record: unknown timebase kind {dt_kind!r}")
    label = strings(rec.get("name"))
    M = S.D if n == 0 and dt is None else control.ss(*S, dt)
    G = USS(M, delta, params, inputs=inputs, outputs=outputs, states=states)
    # the name as saved (None stays None, not python-control's default "sys[k]")
    return USS._new(G.abcd, G.dt, G.delta, list(G.params.values()), G.input_labels,
                    G.output_labels, G.state_labels, label[0] if label else None)

