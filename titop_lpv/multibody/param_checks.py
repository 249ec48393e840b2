"""Run-time checks of parameter values: the model file's validation, applied to new values.

Parameter values given to an evaluation (``dynamics``, ``outputs``, ``simulate``, ``trim``,
``linearize``, sweeps) are checked: a single parameter vector once (the compiled model
caches its resolved physics), a batch of vectors element-wise at every call (batches are
not cached), complex (complex-step) values on their real part.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import ParameterError
from .joints import PRISMATIC, REVOLUTE

__all__ = [
    "AXIS_MIN_SQUARED",
    "MAX_MAGNITUDE",
    "MIN_MASS",
    "ROTATION_TOL",
    "ROUNDING_ULPS",
    "SYMMETRY_TOL",
    "check_parameter_values",
    "inertia_tolerance",
]

ROTATION_TOL = 1e-9  # |PᵀP − I| above this: not a rotation matrix
SYMMETRY_TOL = 1e-9  # relative to the largest inertia entry: |I − Iᵀ|, negative eigenvalues
ROUNDING_ULPS = 4  # ulps of m |PB|² (the point-mass part of the inertia at P): see below
AXIS_MIN_SQUARED = 1e-24  # a joint axis with |axis|² at or below this has no direction
MAX_MAGNITUDE = 1e100  # numbers of larger magnitude overflow in the dynamics' products
MIN_MASS = 1e-100  # a non-zero mass or inertia entry below this underflows: write 0 instead


def inertia_tolerance(inertia: np.ndarray, mass: Any, com: np.ndarray) -> np.ndarray:
    """Largest negative principal moment (and triangle-inequality excess) taken as rounding.

    A URDF or CAD exporter writes ``I_B`` (at the centre of mass) by subtracting the
    point-mass part ``m (|PB|² 1 − PB PBᵀ)`` from the inertia about the link origin ``P``;
    the difference carries a few ulps of ``m |PB|²`` even when ``I_B`` is exactly zero
    (iCub's ``ixx="-5.42101e-20"`` is half an ulp of ``m |PB|² ≈ 4.9e-4 kg m²``). The
    tolerance is therefore

    ``tol = SYMMETRY_TOL · max|I_B| + ROUNDING_ULPS · ε · m |PB|²``

    with ``SYMMETRY_TOL = 1e-9``, ``ROUNDING_ULPS = 4`` and ``ε = 2.22e-16`` (float64
    machine epsilon): an inertia is accepted when its smallest principal moment is at least
    ``−tol``, and warned about (triangle inequality) when its largest exceeds the sum of the
    other two by more than ``tol``.

    Parameters
    ----------
    inertia : ndarray, shape (..., 3, 3)
        Inertia ``I_B`` at the centre of mass [kg m²].
    mass : float or ndarray, shape (...)
        Mass [kg] (a negative one, refused elsewhere, counts as zero).
    com : ndarray, shape (..., 3)
        Vector ``PB`` from the joint point to the centre of mass [m].

    Returns
    -------
    ndarray, shape (...)
        The tolerance [kg m²], non-negative.
    """
    inertia, com = np.asarray(inertia, dtype=float), np.asarray(com, dtype=float)
    point = np.maximum(np.asarray(mass, dtype=float), 0.0) * np.einsum("...i,...i->...",
                                                                       com, com)
    return (SYMMETRY_TOL * np.abs(inertia).max(axis=(-2, -1))
            + ROUNDING_ULPS * np.finfo(float).eps * point)


def check_parameter_values(tree: Any, pv: np.ndarray) -> None:
    """Check a parameter vector of a compiled tree; see :meth:`titop_lpv.Model.check_params`.

    Parameters
    ----------
    tree : Tree
        The compiled tree (:class:`titop_lpv.multibody.tree.Tree`; its module imports this
        one, so it is not imported here).
    pv : ndarray, shape (..., n_params)
        Parameter values in ``tree.param_names`` order.

    Raises
    ------
    ParameterError
        Listing every problem, naming the parameter or the body and field: a value that is
        not finite, of magnitude above :data:`MAX_MAGNITUDE` or outside its declared range;
        a negative mass, a non-zero mass below :data:`MIN_MASS`, an inertia that is not
        symmetric positive semi-definite (to :func:`inertia_tolerance`), a joint rotation
        that is not a proper rotation, a zero joint axis.
    """
    if not tree.param_names:
        return
    flat = pv.reshape(-1, len(tree.param_names))
    problems: list[str] = []
    finite = np.isfinite(flat).all(axis=0)
    real = np.real(flat)
    lo, hi = tree.param_bounds.T
    for k, name in enumerate(tree.param_names):
        if not finite[k]:
            problems.append(f"parameter {name!r}: must be finite")
            continue
        if (np.abs(real[:, k]) > MAX_MAGNITUDE).any():
            problems.append(f"parameter {name!r}: magnitude {np.abs(real[:, k]).max():.3g} is "
                            f"above {MAX_MAGNITUDE:g} (its products in the dynamics overflow)")
            continue
        if (real[:, k] < lo[k]).any() or (real[:, k] > hi[k]).any():
            worst = real[:, k][np.argmax(np.maximum(lo[k] - real[:, k], real[:, k] - hi[k]))]
            problems.append(f"parameter {name!r}: value {worst:.6g} outside its declared "
                            f"range [{lo[k]:.6g}, {hi[k]:.6g}]")
    if problems:
        raise ParameterError(problems, name=tree.name)
    vals = tree.slot_values(real)
    vals = vals.reshape(-1, vals.shape[-1])
    i = tree.slots
    mass = vals[:, i.mass]
    inertia = vals[:, i.inertia]
    rot = vals[:, i.rot]
    axis = vals[:, i.axis]
    scale = np.maximum(np.abs(inertia).max(axis=(-2, -1)), 1e-300)
    asym = np.abs(inertia - np.swapaxes(inertia, -1, -2)).max(axis=(-2, -1)) > (
        SYMMETRY_TOL * scale)
    sym = 0.5 * (inertia + np.swapaxes(inertia, -1, -2))
    indefinite = np.linalg.eigvalsh(sym)[..., 0] < -inertia_tolerance(inertia, mass,
                                                                      vals[:, i.com])
    ortho = np.abs(np.swapaxes(rot, -1, -2) @ rot - np.eye(3)).max(axis=(-2, -1))
    improper = (ortho > ROTATION_TOL) | (np.linalg.det(rot) < 0)
    one_dof = (tree.kind == REVOLUTE) | (tree.kind == PRISMATIC)
    no_axis = one_dof & (np.einsum("...i,...i->...", axis, axis) <= AXIS_MIN_SQUARED)
    checks = (
        (mass < 0, "mass must be >= 0"),
        ((mass > 0) & (mass < MIN_MASS), f"non-zero mass below {MIN_MASS:g} kg (it underflows)"),
        (asym, "inertia is not symmetric"),
        (indefinite & ~asym, "inertia is not positive semi-definite"),
        (improper, "joint rotation is not a proper rotation matrix (orthonormal, det +1)"),
        (no_axis, "joint axis has zero length"),
    )
    for bad, what in checks:
        for b in np.flatnonzero(bad.any(axis=0)):
            problems.append(f"body {tree.body_names[b]!r}: {what} with these parameter "
                            "values")
    if problems:
        raise ParameterError(problems, name=tree.name)
