"""Benchmark: static trim of hanging chains by the energy method (issue 16, item 4).

Chains of 30, 100 and 300 revolute links (1 m, 1 kg, centre of mass mid-link, gravity
−y), started from angles uniform in ±0.5 rad. Prints, per chain: evaluations counted by the
trim (``nfev``), Hessians actually computed (with the closed form, each accepted point's
gradient and Hessian come from one sweep, counted once), wall time of the first trim of the
model and the best of 3 (closed form only), and the shares of the first trim's time spent in
Hessians and in the complex-step Jacobian of the accelerations (``Problem.jacobian``, which
an energy trim evaluates only to explain a failure: 0 % on success), for both Hessians: the
closed-form stiffness (:mod:`titop_lpv.multibody.stiffness`, the default) and the complex
step of the joint
efforts (one batched inverse dynamics of ``n`` configurations each, the fallback; forced
here by declaring the model unsupported). The two trims must land on the same equilibrium
(1e-12). The trust-region steps of the longer chains come from the tridiagonal form of the
stiffness (``trim_energy._tridiagonal_step``, no eigenvectors).
Run: ``python benchmarks/bench_trim.py [n ...]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import titop_lpv as tl
from titop_lpv.analysis import trim_energy as te
from titop_lpv.analysis import trim_solver as ts

G = 9.81


def chain(n: int) -> tl.Model:
    """A hanging chain of ``n`` revolute links."""
    s = tl.System(f"chain{n}", gravity=[0.0, -G, 0.0])
    parent = None
    for i in range(n):
        kw = {} if parent is None else {"parent": parent}
        s.body(f"l{i}", tl.Revolute(axis=[0, 0, 1], damping=0.1), mass=1.0,
               com=[0.0, -0.5, 0.0], ports={"tip": [0.0, -1.0, 0.0]}, **kw)
        parent = f"l{i}.tip"
    return s.compile()


def main(sizes: list[int]) -> None:
    """Trim each chain once and print the measurements."""
    stats = {"n": 0, "t": 0.0, "inside": False}
    compute, stiffness = te.EnergyProblem.hessian, te.gravity_stiffness

    def counted(self, z):
        fresh = not any(np.array_equal(zk, z) for zk, _ in getattr(self, "_memo", []))
        t0 = time.perf_counter()
        stats["inside"] = True
        try:
            H = compute(self, z)
        finally:
            stats["inside"] = False
        stats["n"] += fresh
        stats["t"] += time.perf_counter() - t0
        return H

    def counted_stiffness(*args):  # sweeps made by EnergyProblem.gradient (closed form)
        if stats["inside"]:
            return stiffness(*args)
        t0 = time.perf_counter()
        out = stiffness(*args)
        stats["n"] += 1
        stats["t"] += time.perf_counter() - t0
        return out

    jacobian = ts.Problem.jacobian

    def timed_jacobian(self, *args, **kwargs):  # the complex-step Jacobian of the residual
        t0 = time.perf_counter()
        try:
            return jacobian(self, *args, **kwargs)
        finally:
            stats["jac"] += time.perf_counter() - t0

    te.EnergyProblem.hessian = counted
    te.gravity_stiffness = counted_stiffness
    ts.Problem.jacobian = timed_jacobian
    supported = te.supported
    print(f"{'links':>6} {'Hessian':>13} {'nfev':>5} {'Hessians':>9} {'time [s]':>9} "
          f"{'best of 3':>9} {'in Hessians':>12} {'in Jacobian':>12}")
    for n in sizes:
        model = chain(n)
        x0 = model.default_state()
        q = np.random.default_rng(0).uniform(-0.5, 0.5, n)
        free = [f"l{i}_q" for i in range(n)]
        x0[[model.state_index(name) for name in free]] = q
        found = {}
        for method in ("closed form", "complex step"):
            te.supported = supported if method == "closed form" else (lambda model: False)
            times, shares = [], []
            for _ in range(3 if method == "closed form" else 1):
                stats.update(n=0, t=0.0, jac=0.0)
                t0 = time.perf_counter()
                op = tl.trim(model, free, x0=x0)
                times.append(time.perf_counter() - t0)
                shares.append((stats["n"], stats["t"] / times[-1], stats["jac"] / times[-1]))
            te.supported = supported
            qs = np.array([op[name] for name in free])
            assert op.success and np.max(np.abs(qs)) <= 1e-9, op.message
            found[method] = qs
            count, in_hessians, in_jacobian = shares[0]
            print(f"{n:>6} {method:>13} {op.nfev:>5} {count:>9} {times[0]:>9.3f} "
                  f"{min(times):>9.3f} {in_hessians:>11.0%} {in_jacobian:>11.0%}")
        assert np.max(np.abs(found["closed form"] - found["complex step"])) <= 1e-12
    te.EnergyProblem.hessian, te.gravity_stiffness = compute, stiffness
    ts.Problem.jacobian = jacobian


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [30, 100, 300])
