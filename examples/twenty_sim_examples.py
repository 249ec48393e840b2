"""The three examples of the multibond-graph (20-sim) library paper, §3, simulated.

1. examples/twenty_sim_driven_spherical.toml: revolute J1 driven at w = 0.5 rad/s, carrying
   the body m1 on a spherical joint J2;
2. examples/twenty_sim_imposed_moment.toml: J2 revolute, a moment M = 0.1 N m imposed to J1;
3. examples/twenty_sim_prismatic_spring.toml: Example 2 plus a body m2 on a prismatic joint
   J3 with a 500 N/m spring.

The paper's figures are not in its text: the model files state the geometry chosen. Each
example prints the final position of the centre of gravity the paper plots (Figs. 9-11,
14-16, 19-21) and its energy balance: the constant-rate drive of Example 1 conserves the
Jacobi integral E - w L_z (L_z: angular momentum about the vertical J1 axis); the imposed
moment of Examples 2 and 3 does the work M (q1 - q1(0)) on the kinetic, gravity and spring
energy. With ``--out file.png`` it writes the paper's nine plots in one figure to that file
and one figure per example next to it (``file_driven_spherical.png`` ...).

Run from the repository root::

    python examples/twenty_sim_examples.py [--out twenty_sim.png] [--t-final 10]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

import titop_lpv as tl

HERE = Path(__file__).resolve().parent
EXAMPLES = {  # file stem suffix -> (title, body whose centre of gravity is plotted)
    "driven_spherical": ("Example 1: J1 driven at 0.5 rad/s, spherical J2", "m1"),
    "imposed_moment": ("Example 2: moment 0.1 N m imposed to J1, revolute J2", "m1"),
    "prismatic_spring": ("Example 3: Example 2 + prismatic J3 with a 500 N/m spring", "m2"),
}
TOLERANCE = 1e-7  # relative mismatch of an energy balance counted as closed


def energy_balance(name: str, model: tl.Model, traj: tl.Trajectory) -> tuple[np.ndarray, str]:
    """The conserved quantity's drift along a trajectory, and how it is defined.

    Parameters
    ----------
    name : str
        Example key of ``EXAMPLES``.
    model : titop_lpv.Model
        Its model.
    traj : titop_lpv.Trajectory
        Its simulation.

    Returns
    -------
    drift : numpy.ndarray
        ``H(t) - H(0)`` [J] at every output time, ``H`` the conserved quantity.
    label : str
        What ``H`` is.
    """
    p = model.default_params()
    kinetic, potential = tl.energy(model, traj.x)
    total = kinetic + potential
    if name == "driven_spherical":  # E - w L_z, L_z about the J1 (Z) axis through the origin
        lz = p["m1"] * (traj["m1_gc_x"] * traj["m1_gc_vy"] - traj["m1_gc_y"] * traj["m1_gc_vx"])
        lz = lz + p["I1"] * traj["m1_abs_wz"]  # isotropic inertia: R I Rᵀ ω = I1 ω
        h = total - p["w"] * lz
        return h - h[0], "Jacobi integral E - w L_z"
    work = p["M"] * (traj["crank_q"] - traj["crank_q"][0])
    return total - total[0] - work, "E - E(0) - M (q1 - q1(0))"


def detail_figure(name: str, traj: tl.Trajectory, drift: np.ndarray, label: str
                  ) -> plt.Figure:
    """One example: the centre of gravity (X, Y, Z, path seen from above), joints, balance."""
    title, body = EXAMPLES[name]
    fig, axes = plt.subplots(2, 3, figsize=(12, 6.5), constrained_layout=True)
    for ax, c in zip(axes[0], "xyz"):
        ax.plot(traj.t, traj[f"{body}_gc_{c}"])
        ax.set(xlabel="t [s]", ylabel=f"{c.upper()} [m]",
               title=f"{body} centre of gravity, global {c.upper()}")
        ax.grid(True)
    ax = axes[1, 0]
    ax.plot(traj[f"{body}_gc_x"], traj[f"{body}_gc_y"])
    ax.set(xlabel="X [m]", ylabel="Y [m]", title="path seen from above", aspect="equal")
    ax.grid(True)
    ax = axes[1, 1]
    joints = [n for n in traj.output_names if n.endswith("_q") or n == "crank_tau"]
    for n in joints:
        ax.plot(traj.t, traj[n], label=f"{n} [{traj.units.get(n, '')}]")
    ax.set(xlabel="t [s]", title="joints")
    ax.legend(fontsize=8)
    ax.grid(True)
    ax = axes[1, 2]
    ax.plot(traj.t, drift, label=label)
    ax.set(xlabel="t [s]", ylabel="[J]", title="drift of the energy balance")
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(True)
    fig.suptitle(title)
    return fig


def overview_figure(results: dict) -> plt.Figure:
    """The paper's nine plots: X, Y, Z of the centre of gravity, one row per example."""
    fig, axes = plt.subplots(3, 3, figsize=(12, 8), sharex=True, constrained_layout=True)
    for row, (name, (traj, _drift, _label)) in zip(axes, results.items()):
        title, body = EXAMPLES[name]
        for ax, c in zip(row, "xyz"):
            ax.plot(traj.t, traj[f"{body}_gc_{c}"])
            ax.set(ylabel=f"{body} g.c. {c.upper()} [m]")
            ax.grid(True)
        row[1].set_title(title, fontsize=10)
    for ax in axes[-1]:
        ax.set_xlabel("t [s]")
    fig.suptitle("The 20-sim library examples: global position of the plotted centre of gravity")
    return fig


def main() -> None:
    """Simulate, report and plot the three examples."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="figure file to write (and one per example)")
    parser.add_argument("--t-final", type=float, default=10.0, help="simulated time [s]")
    args = parser.parse_args()

    results = {}
    closed = 0
    for name, (title, body) in EXAMPLES.items():
        model = tl.load_model(HERE / f"twenty_sim_{name}.toml")
        start = time.perf_counter()
        traj = tl.simulate(model, (0.0, args.t_final), rtol=1e-10, atol=1e-12, n_points=1001)
        elapsed = time.perf_counter() - start
        drift, label = energy_balance(name, model, traj)
        kinetic, potential = tl.energy(model, traj.x)
        scale = float(np.max(np.abs(kinetic)) + np.max(np.abs(potential)))
        relative = float(np.max(np.abs(drift))) / scale
        closed += relative < TOLERANCE
        gc = [traj[f"{body}_gc_{c}"][-1] for c in "xyz"]
        print(f"{title} ({elapsed:.2f} s, {traj.nfev} evaluations)")
        print(f"  {body} g.c. at t = {args.t_final:g} s: X = {gc[0]: .6f} m, "
              f"Y = {gc[1]: .6f} m, Z = {gc[2]: .6f} m; J1 turned {traj['crank_q'][-1]:.6f} rad")
        print(f"  max |drift of {label}| = {np.max(np.abs(drift)):.2e} J "
              f"({relative:.1e} of the energies)")
        results[name] = (traj, drift, label)
    print(f"the 20-sim examples: {closed}/3 energy balances closed (relative drift < "
          f"{TOLERANCE:g})")

    if args.out:
        out = Path(args.out)
        fig = overview_figure(results)
        fig.savefig(out, dpi=110)
        plt.close(fig)
        print(f"figure written to {out}")
        for name, (traj, drift, label) in results.items():
            path = out.with_name(f"{out.stem}_{name}{out.suffix}")
            fig = detail_figure(name, traj, drift, label)
            fig.savefig(path, dpi=110)
            plt.close(fig)
            print(f"figure written to {path}")


if __name__ == "__main__":
    main()
