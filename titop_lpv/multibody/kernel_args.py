"""Arguments of the compiled kernel (:mod:`titop_lpv.multibody.kernel`): the index arrays
and the physical data of one model and one unbatched parameter vector, as plain C arrays.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..spatial.algebra import skew
from ..spatial.euler import check_sequence
from .joints import MULTI_DOF, UNIVERSAL
from .tables import Physics
from .tree import Tree

__all__ = ["KernelData", "entry_point", "kernel_data", "signature_id"]


@dataclass(frozen=True)
class KernelData:
    """Arguments of the compiled kernel for one model and one set of unbatched physics.

    Attributes
    ----------
    args : tuple
        Positional arguments of the kernel after the states and inputs (index arrays,
        physical data as writable C-contiguous float arrays).
    signature : int
        A small integer naming what numba's types of :attr:`args` depend on (each array's
        dtype, dimensions, layout, write and alignment flags; each scalar's Python type):
        equal for two instances whose arguments numba types alike (:func:`signature_id`;
        ``-1``: unknown). Computed on construction unless given (:func:`kernel_data` gives
        the one of the model's first set: its arrays are built alike for every parameter
        vector); :func:`titop_lpv.multibody.kernel.run` keys its compiled entry points by it.
    """

    args: tuple[Any, ...]
    signature: int = field(default=-2, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.signature == -2:  # not given: computed (about 25 µs for the balloon)
            object.__setattr__(self, "signature", signature_id(self.args))

    def __reduce__(self) -> tuple[Any, ...]:  # ids are per process: computed again
        return (KernelData, (self.args,))


_SIGNATURES: dict[tuple[Any, ...], int] = {}  # type key of an argument tuple -> its id
_SIGNATURES_LOCK = threading.Lock()
_SCALARS = (bool, int, float, np.float64, np.int64, np.bool_)


def signature_id(args: tuple[Any, ...]) -> int:
    """A small integer, the same for argument tuples that numba types alike.

    Parameters
    ----------
    args : tuple
        Arrays (keyed by dtype, dimensions, C/F contiguity, write and alignment flags) and
        scalars (``bool``, ``int`` within int64, ``float``, numpy's ``float64``, ``int64``,
        ``bool_``: keyed by their Python type).

    Returns
    -------
    int
        ``>= 0``; ``-1`` when some argument is of another kind (numba must type it).
    """
    key = []
    for a in args:
        if type(a) is np.ndarray:
            f = a.flags
            key.append((a.dtype.str, a.ndim, f.c_contiguous, f.f_contiguous, f.writeable,
                        f.aligned))
        elif type(a) in _SCALARS and (type(a) is not int or -(2**63) <= a < 2**63):
            key.append(type(a))
        else:  # numba's type would depend on the value: no signature
            return -1
    key_t = tuple(key)
    found = _SIGNATURES.get(key_t)
    if found is None:
        with _SIGNATURES_LOCK:  # two new keys never share an id
            found = _SIGNATURES.setdefault(key_t, len(_SIGNATURES))
    return found


def entry_point(dispatcher: Any, args: tuple[Any, ...]) -> Any:
    """numba's compiled entry point of ``dispatcher`` for the types of ``args``, or None.

    Parameters
    ----------
    dispatcher : numba dispatcher
        A compiled function (``numba.njit``).
    args : tuple
        Arguments of a call it has compiled (or loaded) a specialisation for.

    Returns
    -------
    callable or None
        The specialisation's ``entry_point`` (it unboxes the arguments and runs the machine
        code, without type dispatch: the caller must pass arguments of the same types);
        None when it is not compiled or numba's internals differ.
    """
    try:
        sig = tuple(dispatcher.typeof_pyval(a) for a in args)
        return getattr(dispatcher.overloads.get(sig), "entry_point", None)
    except Exception:  # numba internals changed: the caller keeps dispatching
        return None


def kernel_data(model: Tree, ph: Physics) -> KernelData:
    """Arguments of the kernel for unbatched physical data.

    Parameters
    ----------
    model : Tree
        The compiled model.
    ph : Physics
        Its physical data for one real parameter vector (no batch axes).

    Returns
    -------
    KernelData
    """
    lds = model.loads
    n_loads = lds.kind.size
    force = np.zeros((n_loads, 3))
    torque = np.zeros((n_loads, 3))
    damp = np.zeros((n_loads, 2))
    for k in range(n_loads):
        if lds.kind[k] == 0:
            force[k] = -ph.load_fraction[k] * ph.total_mass * ph.gravity
        elif lds.kind[k] == 1:
            force[k] = ph.load_vec[k]
        elif lds.kind[k] == 2:
            torque[k] = ph.load_vec[k]
        else:  # damping: (c_v, c_ω) in l_damp
            damp[k] = ph.load_vec[k, :2]
    K = skew(ph.axis)
    axes = np.array(check_sequence(model.euler), dtype=np.int64)

    def arr(a: Any) -> np.ndarray:  # writable copies: one numba specialisation for all calls
        return np.array(a, dtype=float, order="C", copy=True)

    wi, lp = model.wrench_inputs, model.loops
    args = (
        model.kind.astype(np.int64), model.parent.astype(np.int64),
        model.q_index.astype(np.int64), model.qd_index.astype(np.int64), int(model.base_index),
        model.tau_column.astype(np.int64), arr(ph.S),
        arr(ph.axis), arr(ph.rot),
        arr(ph.offset), arr(ph.D),
        arr(K), arr(K @ K),
        arr(ph.k), arr(ph.d),
        arr(ph.rest), arr(ph.gravity), axes,
        lds.body.astype(np.int64), arr(ph.load_point).reshape(-1, 3),
        force, torque, damp, lds.body_frame.astype(np.bool_),
        wi.body.astype(np.int64), arr(ph.input_point).reshape(-1, 3),
        wi.body_frame.astype(np.bool_), wi.col.astype(np.int64),
        lp.a.astype(np.int64), lp.b.astype(np.int64), arr(ph.loop_point_a).reshape(-1, 3),
        arr(ph.loop_point_b).reshape(-1, 3), arr(ph.loop_k).reshape(-1, 6),
        arr(ph.loop_d).reshape(-1, 6),
        model.nv.astype(np.int64) * (np.isin(model.kind, MULTI_DOF)),
        arr(_first_axes(model, ph)), arr(ph.extra), model.qdd_column.astype(np.int64),
        bool(model.attitude == "quaternion"), _needs_attitude(model),
        np.all(np.asarray(ph.rot) == np.eye(3), axis=(1, 2)),
    )
    # every array above is a fresh C copy of a fixed dtype and rank: one signature per model
    return KernelData(args, model.memo("kernel_signature", None, lambda: signature_id(args)))


def _needs_attitude(model: Tree) -> np.ndarray:
    """Bodies whose attitude ``P_{b/i}`` and origin the kernel computes, (n,) bool: those an
    inertial-frame load, an inertial-frame wrench input or a loop closure names, and their
    ancestors (a body's attitude is its parent's times its joint rotation)."""
    need = np.zeros(len(model.body_names), dtype=np.bool_)
    lds, wi, lp = model.loads, model.wrench_inputs, model.loops
    need[np.asarray(lds.body)[~np.asarray(lds.body_frame, dtype=bool)]] = True
    need[np.asarray(wi.body)[~np.asarray(wi.body_frame, dtype=bool)]] = True
    need[np.asarray(lp.a)] = True
    need[np.asarray(lp.b)] = True
    if not need.any():
        return need
    parent = np.asarray(model.parent)
    for i in range(len(need) - 1, -1, -1):  # parents come before their children
        if need[i] and parent[i] >= 0:
            need[parent[i]] = True
    return need


def _first_axes(model: Tree, ph: Physics) -> np.ndarray:
    """``P_{a0/b}ᵀ axis1`` (unit) of each universal joint, zeros elsewhere, (n, 3)."""
    out = np.zeros((len(model.body_names), 3))
    for i in np.flatnonzero(model.kind == UNIVERSAL):
        a1 = ph.extra[i, 0:3] / np.linalg.norm(ph.extra[i, 0:3])
        out[i] = ph.rot[i].T @ a1
    return out
