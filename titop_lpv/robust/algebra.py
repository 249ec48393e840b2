"""Algebra of uncertain systems on their data (:class:`~titop_lpv.robust.system.LFTSystem`):
conversion, ``+ − * / @``, inverse, concatenation, ``feedback``, ``series``, ``parallel``
and ``append``. The operators of :class:`~titop_lpv.robust.uss.USS` and the public
functions of :mod:`titop_lpv.robust.ops` call these and return a ``USS``
(name-based interconnection: :mod:`titop_lpv.robust.interconnect`).

Every operation works on the LFT matrices with the Δ channels passed through: the
operands are appended (``Δ = diag(Δ_1, Δ_2)``, the blocks of a parameter present in both
merged into one block with the repeats summed), then the performance channels are
connected by a static interconnection (a lower LFT). Operands may be :class:`USS`,
parameters (``ureal`` … as static systems), python-control ``StateSpace`` or
``TransferFunction`` objects, arrays and numbers.

Signal names follow python-control's ``iosys`` conventions and are kept: a product keeps
the outputs of its left operand and the inputs of its right operand, a sum and a feedback
loop those of the first operand, concatenations concatenate them. An operand whose names
are python-control defaults (``u[0]``, ``y[0]``: numbers, arrays, parameters) yields to
the other operand's names when the counts match (in a product, only a static operand, a
gain, does). Repeated names get a suffix ``_2``.

python-control's ``TransferFunction.__truediv__`` raises instead of deferring, so write
``tf * G.inv()`` or ``uss(tf) / G`` rather than ``tf / G``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import control
import numpy as np

from ..exceptions import ShapeError
from .abcd import (
    ABCD,
    IllPosedError,
    abcd_append,
    check_invertible,
    close_static,
    is_generic,
)
from .blocks import DeltaStructure, UncertaintyError
from .checks import ArgumentError, ArgumentTypeError
from .system import LFTSystem, Uncertain

MAX_POWER = 1000  # largest |k| of G ** k

__all__ = [
    "MAX_POWER",
    "add",
    "append",
    "as_system",
    "binary",
    "feedback",
    "hstack",
    "inv",
    "matmul",
    "merge_blocks",
    "mul",
    "neg",
    "parallel",
    "power",
    "series",
    "sub",
    "truediv",
    "vstack",
]


def as_system(obj: Any) -> LFTSystem:
    """Convert an operand to an uncertain system (its data).

    Parameters
    ----------
    obj : USS, UReal, UComplex, ULTIDyn, control.StateSpace, control.TransferFunction, \
array_like or number
        The operand (real; names of python-control systems are kept).

    Returns
    -------
    LFTSystem
        ``obj`` itself for an uncertain system, the ``USS`` of a parameter.

    Raises
    ------
    ArgumentTypeError
        If ``obj`` cannot be converted (nonlinear system, improper transfer function,
        non-numeric or complex data); a ``TypeError``.
    ArgumentError
        A NaN or infinite entry.
    """
    if isinstance(obj, Uncertain):
        return obj._as_uss()
    if isinstance(obj, control.TransferFunction) and any(
            np.trim_zeros(n, "f").size > np.trim_zeros(d, "f").size
            for rn, rd in zip(obj.num, obj.den) for n, d in zip(rn, rd)):
        raise ArgumentTypeError("an improper transfer function (deg num > deg den) is not a "
                                "system: combine it with uncertain coefficients into a proper "
                                "fraction first (tl.tf)")
    if isinstance(obj, (control.StateSpace, control.TransferFunction)):
        return LFTSystem(obj)
    if isinstance(obj, control.InputOutputSystem):
        raise ArgumentTypeError("only linear systems (StateSpace, TransferFunction) can be "
                                "uncertain")
    try:
        arr = np.asarray(obj)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise ArgumentTypeError(f"cannot convert {type(obj).__name__} {obj!r:.60} to an "
                                "uncertain system")
    if np.iscomplexobj(arr):
        raise ArgumentTypeError("complex gains are not supported (M is real): use ucomplex")
    return LFTSystem(arr)


def _desc(G: LFTSystem) -> str:
    return f"{G.name or 'system'} ({G.noutputs}×{G.ninputs})"


def _timebase(systems: Sequence[Any]) -> Any:
    dt = systems[0].dt
    for G in systems[1:]:
        try:
            dt = control.iosys.common_timebase(dt, G.dt)
        except ValueError:
            raise UncertaintyError("incompatible timebases: "
                                   + ", ".join(f"{_desc(H)}: dt={H.dt}" for H in systems)
                                   ) from None
    return dt


def merge_blocks(structs: Sequence[DeltaStructure], params: Sequence[Mapping[str, Any]]
                 ) -> tuple[np.ndarray, np.ndarray, DeltaStructure, list[Any]]:
    """Group the blocks of equal name over several systems.

    Parameters
    ----------
    structs : sequence of DeltaStructure
        Block structures, their channels concatenated in this order.
    params : sequence of mapping
        The parameters of each structure, by name.

    Returns
    -------
    (ndarray, ndarray, DeltaStructure, list)
        Permutations of the concatenated ``w`` and ``z`` channels into the merged order,
        the merged structure (repeats summed) and its parameters.

    Raises
    ------
    UncertaintyError
        If two parameters of the same name have different specifications.
    """
    groups: dict[str, list[tuple[int, int, Any]]] = {}
    specs: dict[str, Any] = {}
    wo = zo = 0
    for D, P in zip(structs, params):
        for b in D:
            a = P[b.name]
            if b.name in specs and specs[b.name] != a:
                raise UncertaintyError(f"parameter {b.name!r} is defined twice with different "
                                       f"specifications: {specs[b.name]} and {a}")
            specs.setdefault(b.name, a)
            groups.setdefault(b.name, []).append((wo, zo, b))
            wo, zo = wo + b.nw, zo + b.nz
    wperm: list[int] = []
    zperm: list[int] = []
    blocks = []
    for lst in groups.values():
        for w0, z0, b in lst:
            wperm += range(w0, w0 + b.nw)
            zperm += range(z0, z0 + b.nz)
        blocks.append(lst[0][2].with_repeats(sum(b.repeats for _, _, b in lst)))
    return (np.array(wperm, dtype=int), np.array(zperm, dtype=int),
            DeltaStructure(tuple(blocks)), [specs[n] for n in groups])


def _stack(systems: Sequence[LFTSystem]) -> tuple[ABCD, Any, DeltaStructure, list[Any], list[str]]:
    """Append: inputs ``[w (merged); u_1; u_2 …]``, outputs ``[z (merged); y_1; …]``."""
    S = abcd_append(*(G.abcd for G in systems))
    wc, uc, zr, yr = [], [], [], []
    c = r = 0
    for G in systems:
        nw, nz = G.delta.nw, G.delta.nz
        wc.append(np.arange(c, c + nw))
        uc.append(np.arange(c + nw, c + G.abcd.m))
        zr.append(np.arange(r, r + nz))
        yr.append(np.arange(r + nz, r + G.abcd.p))
        c, r = c + G.abcd.m, r + G.abcd.p
    wperm, zperm, delta, params = merge_blocks([G.delta for G in systems],
                                         [G.params for G in systems])
    cols = np.concatenate([np.concatenate(wc)[wperm], *uc]).astype(int)
    rows = np.concatenate([np.concatenate(zr)[zperm], *yr]).astype(int)
    S = ABCD(S.A, S.B[:, cols], S.C[rows], S.D[np.ix_(rows, cols)])
    states = [s for G in systems for s in G.state_labels]
    return S, _timebase(systems), delta, params, states


def _connect(systems: Sequence[LFTSystem], Q: np.ndarray, R: np.ndarray, Sy: np.ndarray,
             T: np.ndarray, inputs: Sequence[str], outputs: Sequence[str], what: str) -> LFTSystem:
    """Append ``systems`` and connect their performance channels ``v`` (inputs) and ``e``
    (outputs): ``v = Q e + R u``, ``y = Sy e + T u``."""
    S, dt, delta, params, states = _stack(systems)
    nw, nz = delta.nw, delta.nz
    A, B, C, D = S
    nv, ne = B.shape[1] - nw, C.shape[0] - nz
    B1 = np.hstack([B, B[:, nw:] @ R])  # inputs [w; v'; u] with v = v' + R u
    D1 = np.hstack([D, D[:, nw:] @ R])
    Dy = Sy @ D1[nz:]
    Dy[:, nw + nv :] += T
    S2 = ABCD(A, B1, np.vstack([C, Sy @ C[nz:]]), np.vstack([D1, Dy]))  # outputs [z; e; y]
    out = close_static(S2, Q, range(nw, nw + nv), range(nz, nz + ne), what=what)
    return LFTSystem._new(out, dt, delta, params, inputs, outputs, states, None)


def _systems(systems: Sequence[Any], what: str) -> list[LFTSystem]:
    if not systems:
        raise UncertaintyError(f"{what} needs at least one system")
    return [as_system(G) for G in systems]


def _pick(first: Sequence[str], second: Sequence[str], prefix: str, allow: bool = True
          ) -> list[str]:
    """``first`` unless it holds default names and ``second`` (same length) real ones."""
    if (allow and is_generic(first, prefix) and len(second) == len(first)
            and not is_generic(second, prefix)):
        return list(second)
    return list(first)


def append(*systems: Any) -> LFTSystem:
    """Block-diagonal combination ``diag(G_1, G_2, …)`` (inputs and outputs concatenated).

    Parameters
    ----------
    *systems : USS or convertible
        The systems.
    """
    Gs = _systems(systems, "append")
    m = sum(G.ninputs for G in Gs)
    p = sum(G.noutputs for G in Gs)
    return _connect(Gs, np.zeros((m, p)), np.eye(m), np.eye(p), np.zeros((p, m)),
                    [s for G in Gs for s in G.input_labels],
                    [s for G in Gs for s in G.output_labels], "append")


def hstack(*systems: Any) -> LFTSystem:
    """``[G_1, G_2, …]``: inputs concatenated, outputs summed (equal output counts).

    Parameters
    ----------
    *systems : USS or convertible
        The systems.
    """
    Gs = _systems(systems, "hstack")
    p = Gs[0].noutputs
    if any(G.noutputs != p for G in Gs):
        raise ShapeError("hstack needs equal numbers of outputs: "
                         + ", ".join(_desc(G) for G in Gs))
    m = sum(G.ninputs for G in Gs)
    outs = next((G.output_labels for G in Gs if not is_generic(G.output_labels, "y")),
                Gs[0].output_labels)
    return _connect(Gs, np.zeros((m, p * len(Gs))), np.eye(m), np.hstack([np.eye(p)] * len(Gs)),
                    np.zeros((p, m)), [s for G in Gs for s in G.input_labels], outs, "hstack")


def vstack(*systems: Any) -> LFTSystem:
    """``[G_1; G_2; …]``: outputs concatenated, common inputs (equal input counts).

    Parameters
    ----------
    *systems : USS or convertible
        The systems.
    """
    Gs = _systems(systems, "vstack")
    m = Gs[0].ninputs
    if any(G.ninputs != m for G in Gs):
        raise ShapeError("vstack needs equal numbers of inputs: "
                         + ", ".join(_desc(G) for G in Gs))
    p = sum(G.noutputs for G in Gs)
    ins = next((G.input_labels for G in Gs if not is_generic(G.input_labels, "u")),
               Gs[0].input_labels)
    return _connect(Gs, np.zeros((m * len(Gs), p)), np.vstack([np.eye(m)] * len(Gs)), np.eye(p),
                    np.zeros((p, m)), ins, [s for G in Gs for s in G.output_labels], "vstack")


def matmul(a: Any, b: Any) -> LFTSystem:
    """Series product ``a @ b`` (``y = a (b u)``), dimensions checked strictly.

    Parameters
    ----------
    a, b : USS or convertible
        Left and right operands; ``a.ninputs`` must equal ``b.noutputs``.
    """
    A, B = as_system(a), as_system(b)
    if A.ninputs != B.noutputs:
        raise ShapeError(f"cannot multiply {_desc(A)} by {_desc(B)}: {A.ninputs} inputs "
                         f"≠ {B.noutputs} outputs")
    mA, mB, pA, pB = A.ninputs, B.ninputs, A.noutputs, B.noutputs
    Q = np.zeros((mA + mB, pA + pB))
    Q[:mA, pA:] = np.eye(mA)  # u_A = y_B
    R = np.vstack([np.zeros((mA, mB)), np.eye(mB)])
    Sy = np.hstack([np.eye(pA), np.zeros((pA, pB))])
    return _connect([A, B], Q, R, Sy, np.zeros((pA, mB)),
                    _pick(B.input_labels, A.input_labels, "u", B.nstates == 0),
                    _pick(A.output_labels, B.output_labels, "y", A.nstates == 0), "product")


def _diag(G: LFTSystem, n: int) -> LFTSystem:
    """``G · I_n`` for a 1×1 ``G`` (default names)."""
    out = append(*([G] * n))
    return out.rename(inputs=[f"u[{i}]" for i in range(n)],
                      outputs=[f"y[{i}]" for i in range(n)])


def mul(a: Any, b: Any) -> LFTSystem:
    """``a * b``: as ``a @ b``, a 1×1 operand acting as a scalar (``k·I``) like in
    python-control.

    Parameters
    ----------
    a, b : USS or convertible
        Left and right operands.
    """
    A, B = as_system(a), as_system(b)
    if A.shape == (1, 1) and B.noutputs != 1:
        A = _diag(A, B.noutputs)
    elif B.shape == (1, 1) and A.ninputs != 1:
        B = _diag(B, A.ninputs)
    return matmul(A, B)


def add(a: Any, b: Any) -> LFTSystem:
    """Parallel sum ``a + b`` (a 1×1 operand is broadcast as ``ones(p, 1) x ones(1, m)``).

    Parameters
    ----------
    a, b : USS or convertible
        The operands, of equal shape after broadcasting.
    """
    A, B = as_system(a), as_system(b)
    if A.shape == (1, 1) and B.shape != (1, 1):
        A = matmul(matmul(np.ones((B.noutputs, 1)), A), np.ones((1, B.ninputs)))
    elif B.shape == (1, 1) and A.shape != (1, 1):
        B = matmul(matmul(np.ones((A.noutputs, 1)), B), np.ones((1, A.ninputs)))
    if A.shape != B.shape:
        raise ShapeError(f"cannot add {_desc(A)} and {_desc(B)}: shapes differ")
    p, m = A.shape
    return _connect([A, B], np.zeros((2 * m, 2 * p)), np.vstack([np.eye(m)] * 2),
                    np.hstack([np.eye(p)] * 2), np.zeros((p, m)),
                    _pick(A.input_labels, B.input_labels, "u"),
                    _pick(A.output_labels, B.output_labels, "y"), "sum")


def neg(a: Any) -> LFTSystem:
    """``−a`` (names kept).

    Parameters
    ----------
    a : USS or convertible
        The operand.
    """
    A = as_system(a)
    S, nz = A.abcd, A.delta.nz
    sign = np.r_[np.ones(nz), -np.ones(A.noutputs)][:, None]
    return LFTSystem._new(ABCD(S.A, S.B, sign * S.C, sign * S.D), A.dt, A.delta,
                    list(A.params.values()), A.input_labels, A.output_labels, A.state_labels,
                    A.name)


def sub(a: Any, b: Any) -> LFTSystem:
    """``a − b``.

    Parameters
    ----------
    a, b : USS or convertible
        The operands.
    """
    return add(a, neg(b))


def inv(a: Any) -> LFTSystem:
    """Inverse system: ``u = G⁻¹ y`` (inputs and outputs exchanged, names kept).

    Exact for every value of Δ where ``G(Δ)`` is invertible; needs the feedthrough of the
    performance channels of ``M`` (``D`` of G at δ = 0, the centre of the box) invertible.

    Parameters
    ----------
    a : USS or convertible
        A square system.

    Raises
    ------
    ShapeError
        If ``a`` is not square.
    IllPosedError
        If that feedthrough is singular.
    """
    A = as_system(a)
    if A.noutputs != A.ninputs:
        raise ShapeError(f"cannot invert {_desc(A)}: not square")
    S, nw, nz = A.abcd, A.delta.nw, A.delta.nz
    Dyu = S.D[nz:, nw:]
    try:
        check_invertible(Dyu, "inverse")
    except IllPosedError:
        raise IllPosedError(f"cannot invert {_desc(A)}: its feedthrough D at the centre of "
                            "the uncertainty box (δ = 0) is singular") from None
    E = np.linalg.inv(Dyu)
    Bu, Cy, Dyw = S.B[:, nw:], S.C[nz:], S.D[nz:, :nw]
    Dzu = S.D[:nz, nw:]
    Ainv = S.A - Bu @ E @ Cy
    B = np.hstack([S.B[:, :nw] - Bu @ E @ Dyw, Bu @ E])
    C = np.vstack([S.C[:nz] - Dzu @ E @ Cy, -E @ Cy])
    D = np.block([[S.D[:nz, :nw] - Dzu @ E @ Dyw, Dzu @ E], [-E @ Dyw, E]])
    ins = A.output_labels if not is_generic(A.output_labels, "y") else None
    outs = A.input_labels if not is_generic(A.input_labels, "u") else None
    m = A.ninputs
    return LFTSystem._new(ABCD(Ainv, B, C, D), A.dt, A.delta, list(A.params.values()),
                    ins or [f"u[{i}]" for i in range(m)], outs or [f"y[{i}]" for i in range(m)],
                    A.state_labels, A.name)


def truediv(a: Any, b: Any) -> LFTSystem:
    """``a / b = a * inv(b)`` (a 1×1 ``b`` acts as a scalar).

    Parameters
    ----------
    a, b : USS or convertible
        Numerator and (invertible) denominator.
    """
    B = as_system(b)
    return mul(a, inv(B)) if B.shape == (1, 1) else matmul(a, inv(B))


def power(a: Any, k: int) -> LFTSystem:
    """``a ** k`` for an integer ``k`` (negative: powers of the inverse).

    Parameters
    ----------
    a : USS or convertible
        A square system.
    k : int
        Exponent, ``|k| <= 1000``.

    Raises
    ------
    ArgumentTypeError
        ``k`` is not an integer.
    ArgumentError
        ``|k|`` above 1000.
    ShapeError
        ``a`` is not square.
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise ArgumentTypeError(f"exponent must be an integer, got {k!r}")
    if abs(k) > MAX_POWER:
        raise ArgumentError(f"exponent {k} is too large: |k| <= {MAX_POWER} (each factor "
                            "adds states and Δ channels)")
    A = as_system(a)
    if A.noutputs != A.ninputs:
        raise ShapeError(f"cannot raise {_desc(A)} to a power: not square")
    if k < 0:
        return power(inv(A), -k)
    out = as_system(np.eye(A.ninputs)).rename(inputs=A.input_labels, outputs=A.output_labels)
    for _ in range(k):
        out = matmul(out, A)
    return out


def binary(op: str, a: Any, b: Any, reflected: bool = False) -> Any:
    """Operator dispatch for :class:`~titop_lpv.robust.uss.USS` and the parameters.

    Parameters
    ----------
    op : {"add", "sub", "mul", "matmul", "truediv", "power", "neg", "inv"}
        The operation.
    a : LFTSystem or parameter
        The operand whose operator was called.
    b : Any
        The other operand (ignored by the unary ``neg`` and ``inv``; the exponent of
        ``power``).
    reflected : bool, optional
        Compute ``op(b, a)`` instead of ``op(a, b)``.

    Returns
    -------
    LFTSystem or NotImplemented
        NotImplemented when ``b`` cannot be converted.
    """
    if op in ("neg", "inv"):
        return {"neg": neg, "inv": inv}[op](a)
    if op == "power":
        return power(a, b)
    try:
        other = as_system(b)
    except TypeError:
        return NotImplemented
    f = {"add": add, "sub": sub, "mul": mul, "matmul": matmul, "truediv": truediv}[op]
    return f(other, a) if reflected else f(a, other)


def feedback(sys1: Any, sys2: Any = 1.0, sign: float = -1) -> LFTSystem:
    """Feedback loop ``y = G e``, ``e = u + sign·K y`` (negative feedback by default).

    Parameters
    ----------
    sys1 : USS or convertible
        Forward path ``G`` (p × m).
    sys2 : USS or convertible, optional
        Feedback path ``K`` (m × p); a 1×1 ``K`` is ``K·I`` when G is square. Default 1.
    sign : float, optional
        −1 (default) for negative feedback, +1 for positive.

    Returns
    -------
    USS
        Inputs and outputs of ``G`` (names kept); here the data
        (:class:`~titop_lpv.robust.system.LFTSystem`), a ``USS`` from
        :func:`titop_lpv.robust.ops.feedback`.

    Raises
    ------
    ShapeError
        If ``K`` does not fit ``G``.
    IllPosedError
        If the loop is not well posed.
    ArgumentError
        ``sign`` is neither −1 nor +1.
    """
    if isinstance(sign, (bool, np.bool_)) or sign not in (-1, 1):
        raise ArgumentError(f"feedback: sign must be -1 or +1, got {sign!r}")
    G, K = as_system(sys1), as_system(sys2)
    p, m = G.shape
    if K.shape == (1, 1) and (m, p) != (1, 1) and m == p:
        K = _diag(K, m)
    if K.shape != (m, p):
        raise ShapeError(f"feedback: K is {_desc(K)} but G {_desc(G)} needs a {m}×{p} K")
    Q = np.zeros((m + p, p + m))
    Q[:m, p:] = sign * np.eye(m)  # u_G = u + sign y_K
    Q[m:, :p] = np.eye(p)  # u_K = y_G
    R = np.vstack([np.eye(m), np.zeros((p, m))])
    Sy = np.hstack([np.eye(p), np.zeros((p, m))])
    return _connect([G, K], Q, R, Sy, np.zeros((p, m)), G.input_labels, G.output_labels,
                    "feedback loop")


def series(*systems: Any) -> LFTSystem:
    """``series(G1, G2, G3) = G3 * G2 * G1`` (signal flows left to right).

    Parameters
    ----------
    *systems : USS or convertible
        The systems, in signal order.
    """
    first, *rest = _systems(systems, "series")
    out = first
    for G in rest:
        out = mul(G, out)
    return out


def parallel(*systems: Any) -> LFTSystem:
    """``G1 + G2 + …``.

    Parameters
    ----------
    *systems : USS or convertible
        Systems of equal shape.
    """
    first, *rest = _systems(systems, "parallel")
    out = first
    for G in rest:
        out = add(out, G)
    return out
