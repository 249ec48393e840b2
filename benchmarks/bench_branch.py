"""The Riccati paper's spatial branch systems (``branch_system.py``): load, simulate, scale.

Measured (``time.perf_counter``; peak memory by ``tracemalloc`` (Python allocations, numpy
arrays included) and ``resource.getrusage`` (the process's maximum resident set)):

1. load time (``tl.load_model`` of the generated dict: schema reading, validation,
   compiling, the reference evaluation) for 10², 10³, 10⁴, 10⁵ bodies (and ``--bodies``),
   with its parts (``System.from_dict``, validation, ``Model()``, the reference
   evaluation) at the largest size;
2. one right-hand side: time per call and per body, ``model.dynamics(0, x)`` (the
   one-state route that ``simulate`` takes: from 1000 bodies on, the kernel on the thread's
   kept work arrays), ``kernel.run`` (the general route, with the same kept arrays) and
   the kernel variant that allocates its work arrays on every call (what the one-state
   route ran at every size before: page faults above 10⁴ bodies): flat per-body cost
   means O(n);
3. the 100 002-d.o.f. system (33 334 bodies): load, then RK4 at Δt = 1 ms for ``--span``
   s (``outputs=[]``: the states only, every 10 ms): time, peak memory, the quaternion
   norms and the energy drift (the system is conservative), extrapolated linearly to 1 s;
   N = 999 (500 bodies) for 1 s, with DOP853 at tight tolerances as a check;
4. N = 999 (500 bodies): the accelerations against the recursive Newton–Euler inverse
   dynamics of the package (``tl.inverse_dynamics``, a second formulation: the residual of
   the equations of motion), and, on the largest branch system whose ``pinocchio.Data``
   fits in ``--pin-max-gb`` (pin 4.1 allocates about 64 nv³ bytes), Pinocchio's
   ``rnea`` at our accelerations (residual) and ``aba`` (timing).

Usage::

    python benchmarks/bench_branch.py --quick         # about 1 min: 10² to 10⁴ bodies, the
                                                      # 100 002-d.o.f. load, 10 ms of RK4
    python benchmarks/bench_branch.py                 # about 3 min (10⁵ bodies, N = 999, Pinocchio)
    python benchmarks/bench_branch.py --span 1.0      # the full target run (1 s of RK4)
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from branch_system import branch_system

import titop_lpv as tl


def best_time(call, budget: float = 3.0, runs: int = 3) -> float:
    """Best time of up to ``runs`` calls [s], within ``budget`` seconds."""
    best, start = np.inf, time.perf_counter()
    for _ in range(runs):
        t = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t)
        if time.perf_counter() - start > budget:
            break
    return best


def load(n: int) -> tuple[tl.Model, float]:
    data = branch_system(n)
    t = time.perf_counter()
    model = tl.load_model(data)
    return model, time.perf_counter() - t


def load_parts(n: int) -> str:
    """The load of ``n`` bodies split into its parts [s]."""
    from titop_lpv.model.compiled import Model, reference_check
    from titop_lpv.model.records import gc_paused
    from titop_lpv.model.validate import check

    data = branch_system(n)
    t0 = time.perf_counter()
    system = tl.System.from_dict(data)
    t1 = time.perf_counter()
    with gc_paused():  # as compile_system
        plan = check(system)
        t2 = time.perf_counter()
        model = Model(system, plan)
        t3 = time.perf_counter()
    reference_check(model)
    t4 = time.perf_counter()
    return (f"from_dict {t1 - t0:.2f} s, validation {t2 - t1:.2f} s, Model() {t3 - t2:.2f} s, "
            f"reference evaluation {t4 - t3:.2f} s")


def scale_table(sizes: list[int]) -> None:
    from titop_lpv.model.call_path import kernel_entry_point
    from titop_lpv.multibody import kernel

    print(f"{'bodies':>8} {'d.o.f.':>8} {'load [s]':>9} {'rhs [ms]':>9} {'per body [us]':>14} "
          f"{'run [us/body]':>14} {'alloc [us/body]':>16}")
    for n in sizes:
        model, t_load = load(n)
        x = model.default_state()
        model.dynamics(0.0, x)
        t_rhs = best_time(lambda m=model, x=x: m.dynamics(0.0, x))
        data = kernel.kernel_data(model, model.physics(None))
        X, U = x[None].copy(), np.zeros((1, 0))
        kernel.run(data, X, U)
        t_run = best_time(lambda d=data, X=X, U=U: kernel.run(d, X, U))
        args = tuple(data.args)
        alloc = kernel_entry_point((X, U, *args, np.zeros(X.shape)))  # allocating variant
        t_alloc = np.nan if alloc is None else best_time(
            lambda f=alloc, X=X, U=U, a=args: f(X, U, *a, np.zeros(X.shape)))
        print(f"{n:8d} {3 * n:8d} {t_load:9.2f} {1e3 * t_rhs:9.2f} {1e6 * t_rhs / n:14.3f} "
              f"{1e6 * t_run / n:14.3f} {1e6 * t_alloc / n:16.3f}", flush=True)
        del model, data
    print(f"  load of {sizes[-1]} bodies: {load_parts(sizes[-1])}", flush=True)


def simulate_run(n: int, span: float) -> None:
    model, t_load = load(n)
    tl.simulate(model, (0.0, 0.002), method="RK4", dt=1e-3, n_points=3, outputs=[])  # warm
    x0 = model.default_state()
    t_rhs = best_time(lambda: model.dynamics(0.0, x0))  # one right-hand side, standalone
    steps = round(span / 1e-3)
    tracemalloc.start()
    t = time.perf_counter()
    traj = tl.simulate(model, (0.0, span), method="RK4", dt=1e-3,
                       n_points=steps // 10 + 1, outputs=[])
    elapsed = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB -> GB (Linux)
    print(f"\nRK4, dt = 1 ms, {span:g} s simulated, {n} bodies ({model.n_states} states): "
          f"load {t_load:.2f} s, run {elapsed:.1f} s ({traj.nfev} evaluations, "
          f"{1e3 * elapsed / traj.nfev:.1f} ms each), tracemalloc peak {peak / 1e6:.0f} MB, "
          f"max RSS {rss:.2f} GB")
    per_call = elapsed / traj.nfev
    print(f"  one right-hand side standalone {1e3 * t_rhs:.1f} ms ({1e6 * t_rhs / n:.3f} us per "
          f"body); inside simulate {1e3 * per_call:.1f} ms: RK4 and simulate add "
          f"{100 * (per_call / t_rhs - 1):+.0f} %")
    q = traj.x[:, :].reshape(len(traj.t), -1, 7)[:, :, :4]
    print(f"  quaternion norms: max | |q| - 1 | = {np.max(np.abs(np.sum(q * q, -1) - 1)):.1e}")
    kinetic, potential = tl.energy(model, traj.x)
    total = kinetic + potential
    print(f"  energy: kinetic up to {np.max(kinetic):.3g} J, total drifts by "
          f"{np.max(np.abs(total - total[0])):.2e} J (conservative system)")
    if n <= 1000:  # the same run with solve_ivp's DOP853 at tight tolerances
        t = time.perf_counter()
        ref = tl.simulate(model, (0.0, span), t_eval=traj.t, rtol=1e-10, atol=1e-12,
                          outputs=[])
        print(f"  DOP853 (rtol 1e-10): {time.perf_counter() - t:.1f} s, {ref.nfev} "
              f"evaluations; max |x_RK4 - x_DOP853| = {np.max(np.abs(traj.x - ref.x)):.2e}")
    if n < 33334 or span < 1.0:
        factor = max(33334 / n, 1.0)
        print(f"  extrapolated (linear) to 33 334 bodies (100 002 d.o.f.), 1 s: run "
              f"{elapsed * factor / span:.0f} s, memory {peak * factor / 1e9:.2f} GB "
              f"(tracemalloc; in time the states stored grow with the span)")


def accuracy(pin_max_gb: float) -> None:
    model, _ = load(500)  # N = 999
    x = model.default_state()
    xdot = model.dynamics(0.0, x)
    vel = np.asarray(model.velocity_indices())
    nudot = xdot[vel]
    tau = tl.inverse_dynamics(model, x, nudot).actuation
    bias = tl.inverse_dynamics(model, x, np.zeros_like(nudot)).generalized_force
    print(f"\nN = 999 (500 bodies, 1 500 d.o.f.): residual of the equations of motion at our "
          f"accelerations (the package's RNEA) max |tau| = {np.max(np.abs(tau)):.2e} N m; "
          f"bias forces up to {np.max(np.abs(bias)):.2e} N m, max |w_dot| "
          f"{np.max(np.abs(nudot)):.2e} rad/s^2")
    try:
        import pinocchio as pin
    except ImportError:
        print("  Pinocchio: not installed, skipped")
        return
    n = 4
    while 64 * (3 * (n + 1)) ** 3 / 1e9 <= pin_max_gb and n < 500:
        n += 1
    print(f"  Pinocchio (pin {pin.__version__}): pinocchio.Data needs about 64 nv^3 bytes "
          f"= {64 * 1500 ** 3 / 1e9:.0f} GB at N = 999: compared on {n} bodies "
          f"({3 * n} d.o.f.) instead (--pin-max-gb {pin_max_gb:g})")
    model, _ = load(n)
    data = branch_system(n)
    pm = pin.Model()
    pm.gravity.linear = np.array([0.0, 0.0, -9.81])
    joint_of: dict[str, tuple[int, np.ndarray]] = {}
    for body in data["bodies"]:
        parent, port = body.get("parent"), np.zeros(3)
        pj = 0
        if parent:
            pname, _, pport = parent.partition(".")
            pj = joint_of[pname][0]
            port = np.asarray(next(b for b in data["bodies"]
                                   if b["name"] == pname)["ports"][pport])
        jid = pm.addJoint(pj, pin.JointModelSpherical(), pin.SE3(np.eye(3), port), body["name"])
        pm.appendBodyToJoint(jid, pin.Inertia(body["mass"], np.asarray(body["com"]),
                                              np.asarray(body["inertia"])), pin.SE3.Identity())
        joint_of[body["name"]] = (jid, port)
    pd = pm.createData()
    x = model.default_state()
    xdot = model.dynamics(0.0, x)
    q = np.zeros(pm.nq)
    v = np.zeros(pm.nv)
    a = np.zeros(pm.nv)
    for body in data["bodies"]:
        j = pm.joints[joint_of[body["name"]][0]]
        k = model.state_names.index(f"{body['name']}_qw")
        w_, qx, qy, qz = x[k:k + 4]
        q[j.idx_q:j.idx_q + 4] = [qx, qy, qz, w_]
        v[j.idx_v:j.idx_v + 3] = x[k + 4:k + 7]
        a[j.idx_v:j.idx_v + 3] = xdot[k + 4:k + 7]
    tau = pin.rnea(pm, pd, q, v, a)
    g = pin.rnea(pm, pd, q, v, np.zeros(pm.nv))
    print(f"  Pinocchio rnea at our accelerations: max |tau| = {np.max(np.abs(tau)):.2e} N m "
          f"(bias forces up to {np.max(np.abs(g)):.2e} N m)")
    a_pin = pin.aba(pm, pd, q, v, np.zeros(pm.nv))
    print(f"  Pinocchio aba vs ours: max |diff| = {np.max(np.abs(a_pin - a)):.2e} rad/s^2 "
          f"(max |a| {np.max(np.abs(a)):.2e})")
    t_pin = best_time(lambda: pin.aba(pm, pd, q, v, np.zeros(pm.nv)))
    t_ours = best_time(lambda: model.dynamics(0.0, x))
    print(f"  one evaluation: ours {1e6 * t_ours:.0f} us, Pinocchio aba {1e6 * t_pin:.0f} us")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="10² to 10⁴ bodies, 10 ms of RK4 at 100 002 d.o.f., no N = 999 run "
                         "and no Pinocchio")
    ap.add_argument("--bodies", type=int, nargs="*", default=[],
                    help="more sizes for the load/per-body table (e.g. 33334 200000)")
    ap.add_argument("--sim", type=int, default=33334,
                    help="bodies of the RK4 run (default: 100 002 d.o.f.)")
    ap.add_argument("--span", type=float, default=None,
                    help="simulated time of that run [s] (default 0.05, --quick 0.01)")
    ap.add_argument("--pin-max-gb", type=float, default=1.0)
    args = ap.parse_args()
    span = args.span if args.span is not None else (0.01 if args.quick else 0.05)
    scale_table([100, 1000, 10000, *([] if args.quick else [100000]), *args.bodies])
    simulate_run(args.sim, span)
    if not args.quick:
        simulate_run(500, 1.0)  # N = 999, the paper's first example
        accuracy(args.pin_max_gb)


if __name__ == "__main__":
    main()
