"""`.ci/kernels` offers only OpenBLAS kernels that this CPU runs, each a different one.

CI runs the numerically delicate tests again under every kernel the script prints
(`OPENBLAS_CORETYPE`), so that no certificate or convergence test depends on the rounding of
one kernel. The script must never print a kernel whose instructions the CPU lacks (SIGILL),
nor two values that select the same kernel (Zen runs Haswell's in current builds), nor the
kernel the environment runs anyway.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "kernels"
PROBE = ("import numpy, scipy.linalg, threadpoolctl\n"
         "a = numpy.random.default_rng(0).normal(size=(40, 40))\n"
         "numpy.linalg.eigvals(a); scipy.linalg.svd(a)\n"
         "print(sorted({i.get('architecture') for i in threadpoolctl.threadpool_info()\n"
         "              if i.get('internal_api') == 'openblas'}))")

pytestmark = pytest.mark.skipif(not Path("/proc/cpuinfo").exists() or sys.platform != "linux",
                                reason=".ci/kernels reads /proc/cpuinfo (Linux CI machines)")


def architecture(coretype: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if coretype is not None:
        env["OPENBLAS_CORETYPE"] = coretype
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"OPENBLAS_CORETYPE={coretype}: {done.stderr[-500:]}"
    return done.stdout.strip()


def test_the_offered_kernels_run_and_differ():
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    kernels = done.stdout.split()
    assert "Prescott" in kernels or architecture("Prescott") == architecture(None)
    archs = [architecture(k) for k in kernels]  # each runs an eigenvalue and an SVD problem
    assert len(set(archs)) == len(archs) and architecture(None) not in archs
