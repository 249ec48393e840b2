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
from ..model.validate import ROTATION_TOL, SYMMETRY_TOL

__all__ = ["check_parameter_values"]


def check_parameter_values(model: Any, pv: np.ndarray) -> None:
    """Check a parameter vector ``pv`` (..., n_params) of ``model``; see ``Model.check_params``.

    Raises
    ------
    ParameterError
        Listing every problem, naming the parameter or the body and field.
    """
    from ..model.compiled import PRISMATIC, REVOLUTE  # the compiled model imports this module

    if not model.param_names:
        return
    flat = pv.reshape(-1, len(model.param_names))
    problems: list[str] = []
    finite = np.isfinite(flat).all(axis=0)
    real = np.real(flat)
    lo, hi = model._param_bounds.T
    for k, name in enumerate(model.param_names):
        if not finite[k]:
            problems.append(f"parameter {name!r}: must be finite")
            continue
        if (real[:, k] < lo[k]).any() or (real[:, k] > hi[k]).any():
            worst = real[:, k][np.argmax(np.maximum(lo[k] - real[:, k], real[:, k] - hi[k]))]
            problems.append(f"parameter {name!r}: value {worst:.6g} outside its declared "
                            f"range [{lo[k]:.6g}, {hi[k]:.6g}]")
    if problems:
        raise ParameterError(problems, name=model.name)
    vals = model._values(real)
    vals = vals.reshape(-1, vals.shape[-1])
    i = model._i
    mass = vals[:, i.mass]
    inertia = vals[:, i.inertia]
    rot = vals[:, i.rot]
    axis = vals[:, i.axis]
    scale = np.maximum(np.abs(inertia).max(axis=(-2, -1)), 1e-300)
    asym = np.abs(inertia - np.swapaxes(inertia, -1, -2)).max(axis=(-2, -1)) > (
        SYMMETRY_TOL * scale)
    sym = 0.5 * (inertia + np.swapaxes(inertia, -1, -2))
    indefinite = np.linalg.eigvalsh(sym)[..., 0] < -SYMMETRY_TOL * scale
    ortho = np.abs(np.swapaxes(rot, -1, -2) @ rot - np.eye(3)).max(axis=(-2, -1))
    improper = (ortho > ROTATION_TOL) | (np.linalg.det(rot) < 0)
    one_dof = (model.kind == REVOLUTE) | (model.kind == PRISMATIC)
    no_axis = one_dof & (np.einsum("...i,...i->...", axis, axis) <= 1e-24)
    checks = (
        (mass < 0, "mass must be >= 0"),
        (asym, "inertia is not symmetric"),
        (indefinite & ~asym, "inertia is not positive semi-definite"),
        (improper, "joint rotation is not a proper rotation matrix (orthonormal, det +1)"),
        (no_axis, "joint axis has zero length"),
    )
    for bad, what in checks:
        for b in np.flatnonzero(bad.any(axis=0)):
            problems.append(f"body {model.body_names[b]!r}: {what} with these parameter "
                            "values")
    if problems:
        raise ParameterError(problems, name=model.name)
