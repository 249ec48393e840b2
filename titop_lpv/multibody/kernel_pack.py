"""One-state calls of the compiled kernel (:mod:`titop_lpv.multibody.kernel`) with the model's
arguments packed in one numba structure.

The kernel takes the model as 41 separate arrays and scalars (:class:`.KernelData`). A call
from Python unboxes each of them, about 45 ns an array: on the balloon of the paper about
2 µs of a 9 µs one-state call. :class:`KernelPack` holds the same arrays in one numba
structure (a ``StructRef``, built once per parameter vector by :func:`pack`), so a call of
:func:`forward_one` unboxes four objects: the state, the input, the pack and the output.
:func:`forward_one` hands the pack's fields to the same compiled kernel, specialisation and
all: its derivatives are bit-identical to the unpacked call's.

Like the kernel's modules, this one does not import numba when it is imported: the numba
types and the dispatchers of its functions (plain Python until then) are defined on first
use, once the kernel runs. Its functions are cached on disk with the kernel
(:mod:`.kernel_cache` keys them by the digest of all the kernel's modules) and compiled
ahead of time by ``titop-lpv compile``.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from . import kernel
from . import kernel_fp as kfp

__all__ = ["FIELDS", "WORK_FIELDS", "forward_one", "load_cached", "matches", "pack", "work"]

# The kernel's model arguments, in order (kernel._forward_kernel after x and u), with the
# numba type kernel_args.kernel_data gives each: i/f/b = int64/float64/bool array of that
# rank, C-contiguous; "int" and "bool" scalars.
FIELDS = (
    ("kind", "i1"), ("parent", "i1"), ("q_index", "i1"), ("qd_index", "i1"), ("base", "int"),
    ("tau_col", "i1"), ("S", "f2"), ("axis", "f2"), ("R0", "f3"), ("off", "f2"), ("D", "f3"),
    ("K", "f3"), ("K2", "f3"), ("k_s", "f1"), ("d_s", "f1"), ("rest", "f1"), ("g", "f1"),
    ("euler_axes", "i1"), ("l_body", "i1"), ("l_point", "f2"), ("l_force", "f2"),
    ("l_torque", "f2"), ("l_damp", "f2"), ("l_body_frame", "b1"), ("w_body", "i1"),
    ("w_point", "f2"), ("w_body_frame", "b1"), ("w_col", "i1"), ("lp_a", "i1"),
    ("lp_b", "i1"), ("lp_pa", "f2"), ("lp_pb", "f2"), ("lp_k", "f2"), ("lp_d", "f2"),
    ("nd", "i1"), ("a1c", "f2"), ("extra", "f2"), ("qdd_col", "i1"), ("base_quat", "bool"),
    ("need", "b1"), ("rot_id", "b1"),
)
# the work arrays of kernel._forward_work after xdot (their shapes, None for the number of
# bodies: kernel.WORK_SHAPES): per body, then the sweeps' scratch arrays
WORK_FIELDS = ("P", "r", "tw", "c", "XA", "dsh", "gb", "IA", "pA", "U", "J", "uu", "acc", "Sm",
               "Um", "Jm", "uum", "w3", "w33", "w6", "w66", "w63", "scratch")

_DEFINED = threading.Event()
_LOCK = threading.Lock()
# set by _define() (numba's names and types; module globals so that numba's disk cache can
# pickle the signatures by reference): structref, KernelPackType, KernelWorkType, KernelPack,
# KernelWork, PACK_TYPE, WORK_TYPE, _ARG_TYPES, _FORWARD_SIG
structref: Any = None
PACK_TYPE: Any = None
WORK_TYPE: Any = None
_ARG_TYPES: tuple[Any, ...] = ()
_FORWARD_SIG: tuple[Any, ...] = ()
_WORK_SIG: tuple[Any, ...] = ()
# numba's entry points of _new, _new_work and forward_one once load_cached has made them ready
_ENTRIES: tuple[Any, ...] | None = None
_numba_typeof: Any = None


def _define() -> None:
    """Import numba, define the two structure types and compile-on-demand dispatchers of
    :func:`_new`, :func:`_new_work` and :func:`forward_one` (once, thread-safe)."""
    if _DEFINED.is_set():
        return
    with _LOCK:
        if _DEFINED.is_set():
            return
        kernel.ensure_compiled()  # the kernel's functions are dispatchers, its cache keyed
        import numba  # heavy: imported with the kernel, never by ``import titop_lpv``
        from numba.core import types
        from numba.experimental import structref as sr

        def fields(self: Any, fields: Any) -> tuple[tuple[str, Any], ...]:
            return tuple((name, types.unliteral(typ)) for name, typ in fields)

        space = globals()
        for name, doc in (("KernelPack", "the kernel's model arguments"),
                          ("KernelWork", "the kernel's per-body work arrays")):
            typ = type(name + "Type", (types.StructRef,), {
                "preprocess_fields": fields, "__module__": __name__,
                "__qualname__": name + "Type", "__doc__": f"numba's type of {doc}."})
            proxy = type(name, (sr.StructRefProxy,), {
                "__module__": __name__, "__qualname__": name,
                "__doc__": f"{doc[0].upper()}{doc[1:]} in one numba structure."})
            sr.register(typ)
            sr.define_boxing(typ, proxy)
            space[name + "Type"], space[name] = typ, proxy
        dtypes = {"i": types.int64, "f": types.float64, "b": types.boolean}

        def numba_type(code: str) -> Any:
            if code in ("int", "bool"):
                return types.int64 if code == "int" else types.boolean
            return types.Array(dtypes[code[0]], int(code[1]), "C")

        pack_type = space["KernelPackType"](tuple((n, numba_type(c)) for n, c in FIELDS))
        work_type = space["KernelWorkType"](tuple(
            (n, types.Array(types.float64, len(shape), "C"))
            for n, shape in zip(WORK_FIELDS, kernel.WORK_SHAPES, strict=True)))
        vector = types.Array(types.float64, 1, "C")
        space.update(structref=sr, PACK_TYPE=pack_type, WORK_TYPE=work_type,
                     _ARG_TYPES=tuple(pack_type.field_dict[n] for n, _ in FIELDS),
                     _FORWARD_SIG=(vector, vector, pack_type, work_type, vector),
                     _WORK_SIG=(types.int64,), _numba_typeof=numba.typeof)
        for name, options in (("_new", {}), ("_new_work", {}),
                              ("forward_one", {"error_model": "numpy"})):
            space[name] = numba.njit(cache=True, **options)(space[name])
        _DEFINED.set()


def _new(kind, parent, q_index, qd_index, base, tau_col, S, axis, R0, off, D, K, K2, k_s, d_s,
         rest, g, euler_axes, l_body, l_point, l_force, l_torque, l_damp, l_body_frame, w_body,
         w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k, lp_d, nd, a1c, extra,
         qdd_col, base_quat, need, rot_id):
    p = structref.new(PACK_TYPE)
    p.kind = kind
    p.parent = parent
    p.q_index = q_index
    p.qd_index = qd_index
    p.base = base
    p.tau_col = tau_col
    p.S = S
    p.axis = axis
    p.R0 = R0
    p.off = off
    p.D = D
    p.K = K
    p.K2 = K2
    p.k_s = k_s
    p.d_s = d_s
    p.rest = rest
    p.g = g
    p.euler_axes = euler_axes
    p.l_body = l_body
    p.l_point = l_point
    p.l_force = l_force
    p.l_torque = l_torque
    p.l_damp = l_damp
    p.l_body_frame = l_body_frame
    p.w_body = w_body
    p.w_point = w_point
    p.w_body_frame = w_body_frame
    p.w_col = w_col
    p.lp_a = lp_a
    p.lp_b = lp_b
    p.lp_pa = lp_pa
    p.lp_pb = lp_pb
    p.lp_k = lp_k
    p.lp_d = lp_d
    p.nd = nd
    p.a1c = a1c
    p.extra = extra
    p.qdd_col = qdd_col
    p.base_quat = base_quat
    p.need = need
    p.rot_id = rot_id
    return p


def _new_work(n):
    w = structref.new(WORK_TYPE)
    w.P = np.zeros((n, 3, 3))
    w.r = np.zeros((n, 3))
    w.tw = np.zeros((n, 6))
    w.c = np.zeros((n, 6))
    w.XA = np.zeros((n, 3, 3))
    w.dsh = np.zeros((n, 3))
    w.gb = np.zeros((n, 3))
    w.IA = np.zeros((n, 6, 6))
    w.pA = np.zeros((n, 6))
    w.U = np.zeros((n, 6))
    w.J = np.zeros(n)
    w.uu = np.zeros(n)
    w.acc = np.zeros((n, 6))
    w.Sm = np.zeros((n, 6, 3))
    w.Um = np.zeros((n, 6, 3))
    w.Jm = np.zeros((n, 3, 3))
    w.uum = np.zeros((n, 3))
    w.w3 = np.zeros((11, 3))
    w.w33 = np.zeros((6, 3, 3))
    w.w6 = np.zeros((2, 6))
    w.w66 = np.zeros((2, 6, 6))
    w.w63 = np.zeros((6, 3))
    w.scratch = np.zeros((5, 3, 3))
    return w


def forward_one(x, u, p, w, xdot):
    """The kernel's sweeps (``kernel._forward_states``) for one state.

    Parameters
    ----------
    x : ndarray, shape (n_states,)
        The state, float64, C-contiguous.
    u : ndarray, shape (n_inputs,)
        The inputs.
    p : KernelPack
        The model's arguments (:func:`pack`).
    w : KernelWork
        Work arrays for the model's number of bodies (:func:`work`), this thread's.
    xdot : ndarray, shape (n_states,)
        Written with the state derivative.

    Returns
    -------
    int
        The kernel's status (``-1`` success; see :func:`titop_lpv.multibody.kernel.run`).
    """
    n = x.shape[0]
    flush = p.kind.shape[0] >= kernel.FTZ_BODIES  # as kernel._forward_work, one call less
    old = kfp.fp_enter() if flush else 0
    status = kernel._forward_states(
        x.reshape((1, n)), u.reshape((1, u.shape[0])), p.kind, p.parent, p.q_index,
        p.qd_index, p.base, p.tau_col, p.S, p.axis, p.R0, p.off, p.D, p.K, p.K2, p.k_s,
        p.d_s, p.rest, p.g, p.euler_axes, p.l_body, p.l_point, p.l_force, p.l_torque,
        p.l_damp, p.l_body_frame, p.w_body, p.w_point, p.w_body_frame, p.w_col, p.lp_a,
        p.lp_b, p.lp_pa, p.lp_pb, p.lp_k, p.lp_d, p.nd, p.a1c, p.extra, p.qdd_col,
        p.base_quat, p.need, p.rot_id, xdot.reshape((1, n)), w.P, w.r, w.tw, w.c, w.XA,
        w.dsh, w.gb, w.IA, w.pA, w.U, w.J, w.uu, w.acc, w.Sm, w.Um, w.Jm, w.uum, w.w3, w.w33,
        w.w6, w.w66, w.w63, w.scratch)
    if flush:
        kfp.fp_leave(old)
    return status


_MATCHES: dict[int, bool] = {}  # KernelData.signature -> its types are those of FIELDS


def matches(args: tuple[Any, ...], signature: int) -> bool:
    """Whether the kernel arguments ``args`` have exactly the types of :data:`FIELDS`.

    Parameters
    ----------
    args : tuple
        :attr:`KernelData.args <titop_lpv.multibody.kernel_args.KernelData.args>`.
    signature : int
        Their :attr:`KernelData.signature`: the answer is kept per signature (numba's
        ``typeof`` of the 41 arguments costs about 3 ms); ``-1`` is never kept.

    Returns
    -------
    bool
    """
    found = _MATCHES.get(signature) if signature >= 0 else None
    if found is None:
        _define()
        found = len(args) == len(_ARG_TYPES) and all(
            _numba_typeof(a) == t for a, t in zip(args, _ARG_TYPES, strict=True))
        if signature >= 0:
            _MATCHES[signature] = found
    return found


def load_cached(compile_now: bool) -> bool:
    """Make :func:`pack` and :func:`forward_one` ready: compiled in this process, loaded from
    numba's disk cache, or (``compile_now``) compiled now (about a second, once per
    installation).

    Parameters
    ----------
    compile_now : bool
        Compile what the disk cache does not hold.

    Returns
    -------
    bool
        True when both are ready.
    """
    global _ENTRIES
    if _ENTRIES is not None:
        return True
    _define()
    with _LOCK:
        entries = []
        for dispatcher, sig in ((_new, _ARG_TYPES), (_new_work, _WORK_SIG),
                                (forward_one, _FORWARD_SIG)):
            if sig not in dispatcher.overloads:
                cache = getattr(dispatcher, "_cache", None)
                cached = cache is not None and cache.load_overload(sig, dispatcher.targetctx)
                if not cached and not compile_now:
                    return False
                dispatcher.compile(sig)  # a disk-cache hit loads, else numba compiles
            entries.append(dispatcher.overloads[sig].entry_point)
        # kept: looking a signature up hashes its numba types (140 µs for the 41 of _new)
        _ENTRIES = tuple(entries)
        return True


def pack(args: tuple[Any, ...]) -> tuple[Any, Any] | None:
    """The kernel arguments in one structure, and the entry point of :func:`forward_one`.

    Parameters
    ----------
    args : tuple
        Kernel arguments whose types are those of :data:`FIELDS` (:func:`matches`), of one
        model and parameter vector; the pack refers to them (they must not be written).

    Returns
    -------
    (KernelPack, callable) or None
        The pack (a numba structure: compiled code reads its fields), and
        ``entry(x, u, pack, work, xdot) -> status``: numba's entry point of
        :func:`forward_one` (no type dispatch: ``x``, ``u`` and ``xdot`` must be 1-D
        C-contiguous aligned writable float64 arrays, ``work`` from :func:`work`). None until
        :func:`load_cached` has made the functions ready.
    """
    entries = _ENTRIES
    if entries is None:
        return None
    return entries[0](*args), entries[2]


def work(n_bodies: int) -> Any:
    """Fresh work arrays of the kernel for ``n_bodies`` bodies (zeros; about 1.2 kB a body).

    Parameters
    ----------
    n_bodies : int
        Bodies of the model.

    Returns
    -------
    KernelWork
        A numba structure for one thread at a time: the kernel writes its arrays (each entry
        before reading it).

    Notes
    -----
    Call after :func:`load_cached` has returned True.
    """
    if _ENTRIES is not None:
        return _ENTRIES[1](int(n_bodies))
    _define()
    return _new_work(int(n_bodies))
