"""Parameter vectors and their resolution into the physics of one evaluation.

The argument handling and slot resolution behind :meth:`Tree.param_vector` and
:meth:`Tree.resolve_physics` (:mod:`titop_lpv.multibody.tree`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import ParameterError, ShapeError, UnknownNameError
from ..spatial.algebra import dynamic_model, unit
from .joints import PRISMATIC, REVOLUTE
from .tables import Physics

__all__ = ["numeric_array", "parameter_vector", "resolve_physics"]


def numeric_array(value: Any) -> np.ndarray | None:
    """``value`` as an array of numbers; None for strings, ragged lists, ``None`` entries, ...

    Parameters
    ----------
    value : object
        A number, a nested sequence of numbers or an array.

    Returns
    -------
    ndarray or None
    """
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        return None
    return arr if arr.dtype.kind in "biufc" else None  # bool, int, uint, float, complex


def parameter_vector(tree: Any, params: Any) -> np.ndarray:
    """Parameter values as an array (..., n_params): see :meth:`Tree.param_vector`.

    Parameters
    ----------
    tree : Tree
        The compiled tree (:class:`~titop_lpv.multibody.tree.Tree`; this module sits below
        it).
    params : None, dict or array_like
        As :meth:`Tree.param_vector`.

    Returns
    -------
    ndarray, shape (..., n_params)
    """
    if params is None or (isinstance(params, dict) and not params):
        return tree.param_defaults
    if isinstance(params, dict):
        unknown = [k for k in params if k not in tree.param_names]
        if unknown:
            raise UnknownNameError(
                f"unknown parameter(s) {unknown} for model {tree.name!r}; "
                f"parameters are: {list(tree.param_names)}"
            )
        cols = []
        for n, d in zip(tree.param_names, tree.param_defaults):
            col = numeric_array(params[n]) if n in params else d
            if col is None:
                raise ParameterError(f"parameter {n!r}: {params[n]!r:.60} is not a number "
                                     "or an array of numbers", name=tree.name)
            cols.append(col)
        try:
            cols = np.broadcast_arrays(*cols) if cols else []
        except ValueError:
            raise ParameterError(f"values of shapes {[np.shape(c) for c in cols]} do not "
                                 "broadcast to one batch shape", name=tree.name) from None
        return np.stack(cols, axis=-1) if cols else tree.param_defaults
    pv = numeric_array(params)
    if pv is None:
        raise ParameterError(f"params must be a dict name -> value or an array of numbers in "
                             f"the order {list(tree.param_names)}; got {params!r:.60}",
                             name=tree.name)
    if pv.ndim == 0 or pv.shape[-1] != len(tree.param_names):
        raise ShapeError(f"params must be a dict or have shape (..., {len(tree.param_names)})"
                         f" in the order {list(tree.param_names)}; got shape {pv.shape}")
    return pv


def resolve_physics(tree: Any, vals: np.ndarray) -> Physics:
    """Physical data from slot values: see :meth:`Tree.resolve_physics`.

    Parameters
    ----------
    tree : Tree
        The compiled tree (:class:`~titop_lpv.multibody.tree.Tree`; this module sits below
        it).
    vals : ndarray, shape (..., n_slots)
        Slot values.

    Returns
    -------
    Physics
    """
    i = tree.slots
    mass = vals[..., i.mass]
    com = vals[..., i.com]
    is_rev = (tree.kind == REVOLUTE)[:, None]
    is_pri = (tree.kind == PRISMATIC)[:, None]
    axis = unit(vals[..., i.axis])
    zero = np.zeros_like(axis)
    S = np.concatenate((np.where(is_pri, axis, zero), np.where(is_rev, axis, zero)), -1)
    lds, lps = tree.loads, tree.loops
    return Physics(
        mass=mass,
        com=com,
        D=dynamic_model(mass, vals[..., i.inertia], com),
        offset=vals[..., i.offset],
        rot=vals[..., i.rot],
        axis=axis,
        S=S,
        k=vals[..., i.k],
        d=vals[..., i.d],
        rest=vals[..., i.rest],
        gravity=vals[..., i.gravity],
        total_mass=np.sum(mass, axis=-1),
        load_point=vals[..., lds.point],
        load_vec=vals[..., lds.vec],
        load_fraction=vals[..., lds.fraction],
        input_point=vals[..., tree.wrench_inputs.point],
        loop_point_a=vals[..., lps.point_a],
        loop_point_b=vals[..., lps.point_b],
        loop_k=vals[..., lps.k],
        loop_d=vals[..., lps.d],
        extra=vals[..., i.extra],
        vals=vals,
    )
