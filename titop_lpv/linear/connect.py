"""Name-based assembly of linear blocks, algebraic loops included.

Block diagrams of TITOP blocks close algebraic loops (a body's wrench depends on its
acceleration, which depends on the joint acceleration its wrench determines);
``control.interconnect`` refuses those. Here every block is appended into one system and all
internal connections are closed at once by a lower LFT with the identity,
``F_l(G, I) = G11 + G12 (I − G22)⁻¹ G21``, on the LFT data (Δ channels pulled out): an
LFT-preserving operation that solves the loops exactly, with one LU factorisation (and fails
with a typed error where they are singular).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.linalg

from ..exceptions import TitopError
from ..robust.abcd import ABCD
from ..robust.algebra import merge_blocks
from ..robust.ops import uss
from ..robust.uss import USS

__all__ = ["AssemblyError", "connect", "reorder_states"]


class AssemblyError(TitopError, ValueError):
    """Linear blocks that cannot be connected: an unconnected input, a duplicate signal."""


def connect(blocks: Sequence[Any], inputs: Sequence[str], outputs: Sequence[str], *,
            aliases: Mapping[str, str] | None = None, name: str | None = None) -> USS:
    """Connect blocks by signal names: every input that is not external is driven by the
    output of the same name (or the output ``aliases[input]``).

    Parameters
    ----------
    blocks : sequence of USS or control.StateSpace
        The blocks, with named signals; names must be unique across blocks.
    inputs : sequence of str
        The external inputs (block inputs left open).
    outputs : sequence of str
        The external outputs (any block outputs).
    aliases : mapping of str to str, optional
        ``input -> output`` connections between signals of different names.
    name : str, optional
        Name of the result.

    Returns
    -------
    USS
        With the external inputs and outputs, in the given order; states of the blocks.

    Raises
    ------
    AssemblyError
        A signal name used twice, an input without a source, an unknown external signal.
    """
    aliases = dict(aliases or {})
    systems = [uss(b) for b in blocks]
    outs = [s for b in systems for s in b.output_labels]
    seen: set[str] = set()
    dup = sorted({n for n in outs if n in seen or seen.add(n)})
    if dup:
        raise AssemblyError(f"block outputs named more than once: {dup}")
    A, B, C, D, delta, params = _append(systems)
    ins = [s for b in systems for s in b.input_labels]  # an input name may repeat: one driver
    # signal name -> position (first occurrence), for lookups linear in the number of signals
    in_set, out_at = set(ins), {o: k for k, o in reversed(list(enumerate(outs)))}
    inputs = list(inputs)
    ext_at = {s: k for k, s in reversed(list(enumerate(inputs)))}
    unknown = ([s for s in inputs if s not in in_set] + [s for s in outputs if s not in out_at]
               + ([s for s in inputs if inputs.count(s) > 1] if len(ext_at) < len(inputs)
                  else []))
    if unknown:
        raise AssemblyError(f"external signals not found in the blocks (or given twice): "
                            f"{sorted(set(unknown))}")
    external = set(inputs)
    sources: list[str] = []
    src_at: dict[str, int] = {}
    for s in ins:
        src = aliases.get(s, s)
        if s not in external and src not in src_at:
            src_at[src] = len(sources)
            sources.append(src)
    missing = sorted({s for s in ins if s not in external and aliases.get(s, s) not in out_at})
    if missing:
        raise AssemblyError(f"block inputs without a source (no output of that name): {missing}")
    # each block input is driven by one column: an external input or an internal source
    drive = np.array([ext_at[s] if s in external else len(inputs) + src_at[aliases.get(s, s)]
                      for s in ins], dtype=int)
    # close every internal connection on the LFT data directly (the Δ channels come first):
    # u_int = y_src, so with L = I − D[src, int] the closed system is the lower LFT with the
    # identity, solved by one LU factorisation
    nw, nz = delta.nw, delta.nz
    n_drive = len(inputs) + len(sources)
    Bd = np.hstack([B[:, :nw], _driven(B[:, nw:], drive, n_drive)])
    Dd = np.hstack([D[:, :nw], _driven(D[:, nw:], drive, n_drive)])
    n_ext = len(inputs)
    ext_cols = np.r_[np.arange(nw), nw + np.arange(n_ext)].astype(int)
    int_cols = nw + n_ext + np.arange(len(sources))
    out_rows = np.r_[np.arange(nz), nz + np.asarray([out_at[o] for o in outputs],
                                                     dtype=int)].astype(int)
    src_rows = nz + np.asarray([out_at[o] for o in sources], dtype=int)
    if len(sources):
        L = np.eye(len(sources)) - Dd[np.ix_(src_rows, int_cols)]
        lu, piv = scipy.linalg.lu_factor(L, check_finite=True)
        rcond = scipy.linalg.lapack.dgecon(lu, np.linalg.norm(L, 1), norm="1")[0]
        if not rcond > 1e-14:
            raise AssemblyError(f"the connections form a singular algebraic loop (reciprocal "
                                f"condition {rcond:.3g}): a joint or the floating base with no "
                                "inertia along its motion?")
        # the internal signals: u_int = L⁻¹ (C_src x + D[src, ext] u_ext)
        K = scipy.linalg.lu_solve((lu, piv), np.hstack([C[src_rows],
                                                        Dd[np.ix_(src_rows, ext_cols)]]))
        Kx, Ku = K[:, :A.shape[0]], K[:, A.shape[0]:]
        Bi, Di = Bd[:, int_cols], Dd[np.ix_(out_rows, int_cols)]
        A2 = A + Bi @ Kx
        B2 = Bd[:, ext_cols] + Bi @ Ku
        C2 = C[out_rows] + Di @ Kx
        D2 = Dd[np.ix_(out_rows, ext_cols)] + Di @ Ku
    else:
        A2, B2, C2, D2 = A, Bd[:, ext_cols], C[out_rows], Dd[np.ix_(out_rows, ext_cols)]
    states = [x for b in systems for x in b.state_labels]
    # the matrices straight into the USS (blocks and parameters merged consistently by
    # _append): no python-control object on the way
    return USS._new(ABCD(A2, B2, C2, D2), 0, delta, params, list(inputs), list(outputs),
                    states, name)


def _driven(X: np.ndarray, drive: np.ndarray, n: int) -> np.ndarray:
    """``X @ P`` for the 0/1 matrix ``P`` (``len(drive)`` × ``n``) with one 1 per row, at
    ``(j, drive[j])``: the columns of ``X`` summed by the signal that drives them."""
    out = np.zeros((X.shape[0], n))
    if not X.size:
        return out
    first = np.unique(drive, return_index=True)[1]  # each signal's first driven column
    out[:, drive[first]] = X[:, first]
    rest = np.ones(len(drive), dtype=bool)
    rest[first] = False
    rest = np.flatnonzero(rest)
    if rest.size:  # a signal driving several inputs: their columns summed, in order
        np.add.at(out.T, drive[rest], X[:, rest].T)
    return out


def _append(systems: Sequence[USS]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                            Any, list[Any]]:
    """``diag(G_1, G_2, …)`` as LFT data ``(A, B, C, D, Δ, params)``: inputs ``[w; u_1; u_2
    …]``, outputs ``[z; y_1; …]``, blocks of equal name merged (a placement: no loop)."""
    parts = [b.abcd for b in systems]
    n = [S.A.shape[0] for S in parts]
    nws = [b.delta.nw for b in systems]
    nzs = [b.delta.nz for b in systems]
    nus = [S.B.shape[1] - w for S, w in zip(parts, nws)]
    nys = [S.C.shape[0] - z for S, z in zip(parts, nzs)]
    W, Z, NX = sum(nws), sum(nzs), sum(n)
    A = np.zeros((NX, NX))
    B = np.zeros((NX, W + sum(nus)))
    C = np.zeros((Z + sum(nys), NX))
    D = np.zeros((Z + sum(nys), W + sum(nus)))
    x = w = z = u = y = 0
    for S, nx, nw, nz, nu, ny in zip(parts, n, nws, nzs, nus, nys):
        rows = np.r_[z:z + nz, Z + y:Z + y + ny].astype(int)  # [z_k; y_k] in the whole
        cols = np.r_[w:w + nw, W + u:W + u + nu].astype(int)
        A[x:x + nx, x:x + nx] = S.A
        B[x:x + nx, cols] = S.B
        C[rows, x:x + nx] = S.C
        D[np.ix_(rows, cols)] = S.D
        x, w, z, u, y = x + nx, w + nw, z + nz, u + nu, y + ny
    wperm, zperm, delta, params = merge_blocks([b.delta for b in systems],
                                               [b.params for b in systems])
    cols = np.r_[wperm, np.arange(W, D.shape[1])].astype(int)
    rows = np.r_[zperm, np.arange(Z, D.shape[0])].astype(int)
    return A, B[:, cols], C[rows], D[np.ix_(rows, cols)], delta, params


def reorder_states(G: USS, states: Sequence[str]) -> USS:
    """The same system with its states permuted into the order ``states``.

    Parameters
    ----------
    G : USS
        The system.
    states : sequence of str
        Every state name of ``G``, in the wanted order.

    Returns
    -------
    USS
    """
    have = list(G.state_labels)
    if sorted(have) != sorted(states):
        raise AssemblyError(f"cannot reorder states {have} as {list(states)}")
    at = {s: k for k, s in enumerate(have)}
    perm = [at[s] for s in states]
    A, B, C, D = G.abcd
    return USS._new(ABCD(A[np.ix_(perm, perm)], B[perm], C[:, perm], D), G.dt, G.delta,
                    list(G.params.values()), list(G.input_labels), list(G.output_labels),
                    list(states), G.name)
