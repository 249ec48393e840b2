"""What ``titop-lpv`` prints and writes: stability verdicts, sweep table rows, written files.

A pole with ``Re λ > AXIS_TOL`` is unstable; one with ``|Re λ| <= AXIS_TOL`` lies on the
imaginary axis (rigid-body zero poles and undamped modes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.modes import modes

__all__ = ["AXIS_TOL", "savefig", "stability", "stability_line", "sweep_row", "wrote"]

AXIS_TOL = 1e-6  # rad/s: a pole with |Re λ| <= AXIS_TOL lies on the imaginary axis


def stability(sys_: Any) -> tuple[float, int, int, str]:
    """Where the poles of ``sys_`` lie: ``(max Re λ, n unstable, n on the axis, verdict)``.

    A pole with ``Re λ > AXIS_TOL`` is unstable; one with ``|Re λ| <= AXIS_TOL`` lies on the
    imaginary axis (the zero poles of rigid-body modes and neutral coordinates, undamped
    modes). The verdict is ``unstable`` if a pole is unstable; else ``drift`` if the zero
    eigenvalue is defective (more zero poles than independent null vectors of A: Jordan
    chains, a position that integrates a free velocity — a rigid-body mode whose
    displacement grows linearly after a velocity perturbation, unstable in Lyapunov's
    sense); else ``marginal`` if a pole is on the axis; else ``stable``. Poles are counted
    singly (a complex pair counts twice).
    """
    A = np.asarray(sys_.A, float)
    lam = np.linalg.eigvals(A) if sys_.nstates else np.zeros(0)
    re = lam.real
    unstable, axis = int(np.sum(re > AXIS_TOL)), int(np.sum(np.abs(re) <= AXIS_TOL))
    zeros = int(np.sum(np.abs(lam) <= AXIS_TOL))
    null = A.shape[0] - np.linalg.matrix_rank(A, tol=AXIS_TOL * max(1.0, np.abs(A).max(
        initial=0.0))) if zeros else 0
    verdict = ("unstable" if unstable else "drift" if zeros > null
               else "marginal" if axis else "stable")
    return (float(re.max()) if re.size else float("nan")), unstable, axis, verdict


def stability_line(sys_: Any) -> str:
    """One line: verdict, largest real part and how the poles were counted."""
    top, unstable, axis, verdict = stability(sys_)
    return (f"stability: {verdict}: max Re λ = {top:.4g} rad/s, {unstable} unstable pole(s) "
            f"(Re λ > {AXIS_TOL:g}), {axis} on the imaginary axis (|Re λ| <= {AXIS_TOL:g}: "
            "rigid-body zero poles and undamped modes; 'drift' where zero poles form Jordan "
            "chains, a position integrating a free velocity)")


def size(path: str | Path) -> str:
    n = Path(path).stat().st_size
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} kB" if n < 1024**2 else \
        f"{n / 1024**2:.1f} MB"


def wrote(path: str | Path) -> None:
    print(f"wrote {path} ({size(path)})")


def savefig(fig: Any, path: str | Path) -> None:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=120)
    plt.close(fig)


def sweep_row(sys_: Any) -> list[str]:
    """Stability (max Re λ, unstable poles, verdict) and the slowest non-rigid mode."""
    if sys_ is None:
        return ["-", "-", "no equilibrium", "-", "-", "-"]
    top, unstable, _, verdict = stability(sys_)
    flexible = modes(sys_).flexible
    slowest = ([f"{flexible[0].wn:.4g}", f"{flexible[0].zeta:.4g}", flexible[0].kind]
               if flexible else ["-", "-", "rigid only"])
    return [f"{top:.4g}", str(unstable), verdict, *slowest]
