"""The :class:`OperatingPoint`: what :func:`titop_lpv.analysis.trim` finds and ``linearize`` takes.

A typed, immutable record of an equilibrium (or relative equilibrium, for a steady spin):
state, input and parameter values by name, the residual of the equilibrium equations,
which variables were free, fixed or pinned, and how the solver ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import UnknownNameError
from ..names import find

__all__ = ["OperatingPoint"]


@dataclass(frozen=True)
class OperatingPoint:
    """An equilibrium of a model.

    Attributes
    ----------
    model_name : str
    kind : {"static", "spin"}
        ``static``: every velocity and acceleration is zero. ``spin``: a relative
        equilibrium — the body-frame twist and the joint states are stationary while the
        spinning body's attitude (and position) keep changing; those cyclic states are
        listed in :attr:`cyclic` and are not part of the equilibrium.
    state_names, input_names, param_names : tuple of str
    x : ndarray (n_states,)
        State. For a spin point, the cyclic states hold the values the equations were
        evaluated at.
    u : ndarray (n_inputs,)
    params : dict
        Parameter values ``name -> value``.
    residual_names : tuple of str
        One equation per velocity state: ``d/dt <name> = 0``.
    residual : ndarray
        Equation residuals (SI units of accelerations: m/s², rad/s²).
    free, fixed, pinned : tuple of str
        Variables solved for; held at given or default values; and dependent variables
        held at their initial values: freed, but the equations do not depend on them (a
        floating base's horizontal position and heading under buoyancy) or depend on them
        only through the other free variables (two coaxial hinges: only the sum of the
        angles matters), as found from the rank of the Jacobian.
    cyclic : tuple of str
        States excluded from a spin equilibrium (attitude, position).
    spin : dict or None
        ``{"body", "axis", "rate"}`` for a spin point.
    success : bool
        ``max |residual| <= tolerance``.
    message : str
        Solver status and, on failure, the reason.
    tolerance : float
        Tolerance on ``max |residual|``.
    nfev : int
        Solver evaluations (one per residual, one per batched Jacobian), at most the
        ``max_nfev`` given to :func:`titop_lpv.analysis.trim`.
    rank_deficiency : int
        Null-space dimension of the Jacobian at the solution w.r.t. the free variables
        (0: the equilibrium is isolated).
    attitude_errors : dict or None
        The solved attitude errors ``b_rx b_ry b_rz`` [rad] of free spherical joints (or a
        quaternion floating base), relative to the quaternion the trim started from
        (:attr:`x` holds the quaternion itself); readable as ``op["b_rx"]`` and usable as a
        ``guess`` of the next trim from the same start (continuation).
    """

    model_name: str
    kind: str
    state_names: tuple[str, ...]
    input_names: tuple[str, ...]
    param_names: tuple[str, ...]
    x: np.ndarray
    u: np.ndarray
    params: dict[str, float]
    residual_names: tuple[str, ...]
    residual: np.ndarray
    free: tuple[str, ...]
    fixed: tuple[str, ...]
    pinned: tuple[str, ...] = ()
    cyclic: tuple[str, ...] = ()
    spin: dict[str, Any] | None = None
    success: bool = False
    message: str = ""
    tolerance: float = 1e-10
    nfev: int = 0
    rank_deficiency: int = 0
    attitude_errors: dict[str, float] | None = None

    @property
    def residual_norm(self) -> float:
        """Largest absolute residual (∞-norm)."""
        return float(np.max(np.abs(self.residual))) if self.residual.size else 0.0

    @property
    def param_vector(self) -> np.ndarray:
        """Parameter values in :attr:`param_names` order."""
        return np.array([self.params[n] for n in self.param_names])

    def __getitem__(self, name: str) -> float:
        """Value of a state, input, parameter or solved attitude error by name (``"slider_q"``
        or ``"slider.q"``)."""
        key = find(name, (*self.state_names, *self.input_names, *self.params))
        if key in self.state_names:
            return float(self.x[self.state_names.index(key)])
        if key in self.input_names:
            return float(self.u[self.input_names.index(key)])
        if key is not None:
            return float(self.params[key])
        key = find(name, tuple(self.attitude_errors or ()))
        if key is not None:
            return float(self.attitude_errors[key])
        raise UnknownNameError(f"no state, input or parameter {name!r} in this operating point")

    def as_dict(self) -> dict[str, float]:
        """Every state, input and parameter value by name."""
        out = dict(zip(self.state_names, self.x.tolist()))
        out.update(zip(self.input_names, self.u.tolist()))
        out.update(self.params)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record: values and status of every variable, residuals, solver status."""
        spin = ({"body": self.spin["body"],
                 "axis": np.asarray(self.spin["axis"], dtype=float).tolist(),
                 "rate": float(self.spin["rate"])} if self.spin else None)
        values = self.as_dict()
        return {
            "model": self.model_name, "kind": self.kind, "success": bool(self.success),
            "max_residual": self.residual_norm, "tolerance": self.tolerance,
            "message": self.message, "evaluations": self.nfev,
            "rank_deficiency": self.rank_deficiency, "spin": spin,
            "free": list(self.free), "fixed": list(self.fixed), "pinned": list(self.pinned),
            "cyclic": list(self.cyclic), "values": values,
            "status": {n: self._status(n) for n in values},
            "residual": dict(zip(self.residual_names, np.asarray(self.residual).tolist())),
        }

    def _status(self, name: str) -> str:
        if name in self.free:
            return "free"
        if name in self.pinned:
            return "pinned"
        if name in self.cyclic:
            return "cyclic"
        return "fixed"

    def report(self) -> str:
        """A readable table: values and status of every variable, then the residuals."""
        head = (f"{self.kind} operating point of {self.model_name!r}: "
                f"{'success' if self.success else 'FAILED'}, max |residual| = "
                f"{self.residual_norm:.3e} (tolerance {self.tolerance:.1e}), "
                f"{self.nfev} evaluations")
        lines = [head, f"  {self.message}"] if self.message else [head]
        if self.spin:
            axis = np.asarray(self.spin["axis"], dtype=float).tolist()
            lines.append(f"  spin: body {self.spin['body']!r}, axis {axis}, "
                         f"rate {self.spin['rate']:g} rad/s")
        if self.pinned:
            lines.append(f"  pinned at their initial values (the equations do not depend on "
                         f"them independently of the other free variables): "
                         f"{', '.join(self.pinned)}")
        if self.rank_deficiency:
            lines.append(f"  the equilibrium is not isolated: {self.rank_deficiency} "
                         "direction(s) of the free variables leave the residual unchanged")
        width = max([len(n) for n in (*self.state_names, *self.input_names, *self.params)]
                    + [len(n) + 6 for n in self.residual_names] + [8])
        lines.append(f"  {'variable':<{width}}  {'value':>16}  status")
        for names, values in ((self.state_names, self.x), (self.input_names, self.u),
                              (tuple(self.params), list(self.params.values()))):
            for n, v in zip(names, values):
                lines.append(f"  {n:<{width}}  {float(v):>16.9g}  {self._status(n)}")
        lines.append(f"  {'equation':<{width}}  {'residual':>16}")
        for n, r in zip(self.residual_names, self.residual):
            lines.append(f"  {'d/dt ' + n:<{width}}  {float(r):>16.3e}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.report()

    def _repr_html_(self) -> str:  # notebooks
        import html

        return f"<pre>{html.escape(self.report())}</pre>"
