"""Name-based interconnection of uncertain systems, like ``control.interconnect``.

The Δ channels of every subsystem are pulled out as extra external inputs and outputs of
a ``control.interconnect`` of the LFT matrices ``M``; the result is closed again with the
concatenated Δ, the blocks of a parameter used by several subsystems merged into one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import control
import numpy as np

from ..exceptions import ShapeError
from .abcd import ABCD, close_static, unique_names
from .algebra import append, as_system, merge_blocks
from .blocks import UncertaintyError
from .uss import USS

__all__ = ["interconnect", "uncertain_star"]


def uncertain_star(M1: Any, M2: Any, ny: int, nu: int, what: str = "star") -> USS:
    """Redheffer star product of two operands of which either or both are uncertain: the
    last ``ny`` outputs of ``M1`` drive the first ``ny`` inputs of ``M2`` and the first
    ``nu`` outputs of ``M2`` drive the last ``nu`` inputs of ``M1`` (MATLAB's
    ``lft(sys1, sys2, nu, ny)`` on ``uss`` operands). The Δ channels of both stay free:
    the operands are appended (the blocks of a parameter present in both merged, repeats
    summed) and the connected channels closed by a static permutation, a lower LFT.

    Parameters
    ----------
    M1, M2 : USS, parameter, control system, array_like or number
        The operands (converted by :func:`~titop_lpv.robust.algebra.as_system`).
    ny : int
        Outputs of ``M1`` connected to ``M2`` (its last ones).
    nu : int
        Inputs of ``M1`` driven by ``M2`` (its last ones).
    what : str, optional
        The caller's name, for the messages.

    Returns
    -------
    USS
        Inputs: the free inputs of ``M1`` then those of ``M2``; outputs likewise; states
        ``[x1; x2]``; no name.

    Raises
    ------
    ShapeError
        An operand too small for ``ny`` and ``nu``.
    IllPosedError
        The interconnection is not well posed at Δ = 0.
    """
    A, B = as_system(M1), as_system(M2)
    if ny > A.noutputs or nu > A.ninputs or ny > B.ninputs or nu > B.noutputs:
        raise ShapeError(f"{what}: {ny} outputs of M1 ({A.noutputs}) feed {ny} inputs of M2 "
                         f"({B.ninputs}) and {nu} outputs of M2 ({B.noutputs}) feed {nu} "
                         f"inputs of M1 ({A.ninputs}): an operand is too small")
    U = USS.adopt(append(A, B))
    p1, m1 = A.noutputs, A.ninputs
    free_out = [*range(p1 - ny), *range(p1 + nu, p1 + B.noutputs)]
    free_in = [*range(m1 - nu), *range(m1 + ny, m1 + B.ninputs)]
    conn_out = [*range(p1 - ny, p1), *range(p1, p1 + nu)]  # [y1 last ny; y2 first nu]
    conn_in = [*range(m1 - nu, m1), *range(m1, m1 + ny)]  # [u1 last nu; u2 first ny]
    if not conn_out and not conn_in:
        return U
    if not free_out or not free_in:
        raise ShapeError(f"{what}: no free input or output would be left")
    P = U[free_out + conn_out, free_in + conn_in]
    K = np.zeros((nu + ny, ny + nu))  # conn_in = K conn_out
    K[:nu, ny:] = np.eye(nu)
    K[nu:, :ny] = np.eye(ny)
    S = P.abcd
    nf_in, nf_out = len(free_in), len(free_out)
    R = close_static(S, K, range(P.delta.nw + nf_in, S.m), range(P.delta.nz + nf_out, S.p),
                     what=what)
    return USS._new(R, P.dt, P.delta, list(P.params.values()), P.input_labels[:nf_in],
                    P.output_labels[:nf_out], P.state_labels, None)


def _spec_name(spec: Any) -> str | None:
    if isinstance(spec, (list, tuple)) and spec:
        spec = spec[0]
    if isinstance(spec, str):
        return spec.lstrip("-").split(".")[-1]
    return None


def _signal_list(spec: Any, what: str) -> list[Any]:
    if isinstance(spec, str):
        return [spec]
    if not hasattr(spec, "__iter__"):
        raise UncertaintyError(f"interconnect: {what} must be a signal name or a list of "
                               f"them, got {spec!r}")
    return list(spec)


def interconnect(systems: Sequence[Any], inplist: Sequence[Any] | None = None,
                 outlist: Sequence[Any] | None = None, connections: Any = None, *,
                 inputs: Sequence[str] | None = None, outputs: Sequence[str] | None = None,
                 name: str | None = None, check_unused: bool = True) -> USS:
    """Interconnect uncertain and certain systems by signal names, like
    ``control.interconnect``.

    The Δ channels of every system are pulled out as extra external inputs and outputs of
    a ``control.interconnect`` of the ``M`` matrices, then closed again with the
    concatenated Δ (blocks of the same parameter merged).

    Parameters
    ----------
    systems : sequence of USS or convertible
        The subsystems; a system's ``name`` is used for ``"sys.signal"`` specifications.
    inplist, outlist : sequence, optional
        External inputs and outputs, as for ``control.interconnect`` (signal names,
        ``"sys.sig"``, ``"-sys.sig"``, lists for several sinks or sums). Default:
        ``inputs`` / ``outputs``.
    connections : list, optional
        Connections as for ``control.interconnect``; None connects signals of equal names.
    inputs, outputs : sequence of str, optional
        Names of the external signals (default: the signal names in ``inplist`` and
        ``outlist``).
    name : str, optional
        Name of the result.
    check_unused : bool, optional
        Let python-control warn about unconnected signals (default True).

    Returns
    -------
    USS
    """
    if (inplist is None and inputs is None) or (outlist is None and outputs is None):
        raise UncertaintyError("interconnect needs the external signals: inplist (or inputs) "
                               "and outlist (or outputs)")
    if isinstance(systems, (str, bytes)) or not hasattr(systems, "__iter__"):
        raise UncertaintyError(f"interconnect: systems must be a list of systems, got "
                               f"{systems!r:.60}")
    Gs = [as_system(G) for G in systems]
    inplist = _signal_list(inputs if inplist is None else inplist, "inplist")
    outlist = _signal_list(outputs if outlist is None else outlist, "outlist")
    taken = {s for G in Gs for s in (*G.input_labels, *G.output_labels)}
    tag = "lft"
    while any(s.startswith(tag) for s in taken):
        tag += "_"
    subs, wall, zall = [], [], []
    for i, G in enumerate(Gs):
        wn = [f"{tag}{i}w{j}" for j in range(G.delta.nw)]
        zn = [f"{tag}{i}z{j}" for j in range(G.delta.nz)]
        subs.append(control.ss(*G.abcd, G.dt, inputs=wn + G.input_labels,
                               outputs=zn + G.output_labels, states=G.state_labels,
                               name=G.name))
        wall += wn
        zall += zn
    in_names = _signal_list(inputs, "inputs") if inputs is not None else [
        _spec_name(s) or f"u[{k}]" for k, s in enumerate(inplist)]
    out_names = _signal_list(outputs, "outputs") if outputs is not None else [
        _spec_name(s) or f"y[{k}]" for k, s in enumerate(outlist)]
    try:
        ic = control.interconnect(subs, connections=connections, inplist=wall + inplist,
                                  outlist=zall + outlist,
                                  inputs=wall + unique_names(in_names, "u"),
                                  outputs=zall + unique_names(out_names, "y"),
                                  check_unused=check_unused)
    except (ValueError, IndexError, KeyError, TypeError) as exc:  # python-control's message
        raise UncertaintyError(f"interconnect: the signals cannot be connected: {exc} (inputs "
                               f"{inplist}, outputs {outlist}, connections {connections!r})"
                               ) from None
    wperm, zperm, delta, params = merge_blocks([G.delta for G in Gs], [G.params for G in Gs])
    cols = np.r_[wperm, len(wall) : ic.ninputs].astype(int)
    rows = np.r_[zperm, len(zall) : ic.noutputs].astype(int)
    S = ABCD(ic.A, ic.B[:, cols], ic.C[rows], ic.D[np.ix_(rows, cols)])
    return USS._new(S, ic.dt, delta, params, list(ic.input_labels)[len(wall) :],
                    list(ic.output_labels)[len(zall) :], list(ic.state_labels), name)
