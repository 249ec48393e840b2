"""The ``titop-lpv`` command line: simulate, trim, linearise, modes, LPV sweeps and Bode plots.

Every subcommand reads a model file (TOML, JSON or YAML, see ``docs/model-file.md``), prints
a readable summary and writes the files it names; ``titop-lpv demo`` runs the whole chain on
the balloon model shipped inside the package; the model argument ``balloon`` names that same
model in every other command (``examples/balloon.toml`` of the source repository). Bad input,
including a malformed command line, ends the command with one line
``titop-lpv: error: <message>`` on stderr and exit status 2 before any work starts when it can
be seen then (names, values, output paths and formats); ``TITOP_LPV_DEBUG=1`` shows the
traceback instead. Long work (simulations, sweeps) shows progress on stderr. See
``docs/cli.md`` for every command and option.

Examples
--------
::

    titop-lpv demo
    titop-lpv linearize balloon --inputs slider.tau --outputs pendulum2.q --out balloon_ss.mat
    titop-lpv trim examples/spinning_spacecraft.toml --spin hub:0,0,1:2.0 --out op.json
    titop-lpv sweep examples/balloon.toml --param k=25:100:31 --out sweep.npz
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

import titop_lpv as tl

from ..exceptions import TitopError
from ..io.export import save_linear
from ..model import read_description
from ..names import canonical, find
from . import args as cv
from . import convert, kernel_compile
from . import report as rp
from .args import CLIError

__all__ = ["main"]

PROG = "titop-lpv"
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}  # guess: the balloon's hanging equilibrium
GUESS = "--guess pendulum1.q=0.2,pendulum2.q=-0.2"
BUILTIN = "balloon"  # model argument naming the balloon shipped in the package


# ---------------------------------------------------------------------------- model and trim
@contextlib.contextmanager
def _model_source(model: str | Path) -> Iterator[Path]:
    """The model file: ``balloon`` is the balloon shipped in the package, else a path."""
    if str(model) != BUILTIN:
        yield Path(model)
        return
    from importlib.resources import as_file, files

    with as_file(files("titop_lpv") / "data" / "balloon.toml") as path:
        if not path.is_file():
            raise CLIError(f"the shipped balloon model is missing ({path}): reinstall titop_lpv")
        yield path


def _load(model: str | Path, actuate: list[str] | None = None,
          quiet: bool = False) -> tl.Model:
    """Read, optionally actuate joints, compile; model warnings become ``note:`` lines.

    ``model`` is a model file, or ``balloon`` for the balloon shipped in the package.
    """
    with _model_source(model) as path:
        desc = read_description(path)
    where = "the balloon shipped in titop_lpv" if str(model) == BUILTIN else str(model)
    for body in actuate or []:
        bodies = desc.get("bodies") if isinstance(desc, dict) else None
        match = [b for b in bodies or [] if isinstance(b, dict) and b.get("name") == body]
        joint = match[0].get("joint") if match else None
        if not isinstance(joint, dict) or joint.get("type") not in ("revolute", "prismatic"):
            raise CLIError(f"--actuate {body!r}: not a body with a revolute or prismatic joint")
        joint["actuated"] = True
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", tl.TitopWarning)
        model = tl.load_model(desc)
    if not quiet:
        for w in caught:
            print(f"note: {w.message}")
        defaults = ", ".join(f"{k}={v:g}" for k, v in model.default_params().items())
        print(f"model {model.name!r} ({where}): {len(model.body_names)} bodies, "
              f"{model.n_states} states, {model.n_inputs} inputs, {model.n_outputs} outputs, "
              f"parameters: {defaults or 'none'}")
    return model


def _model_and_params(args: argparse.Namespace) -> tuple[tl.Model, dict[str, float]]:
    model = _load(args.model, cv.names(args.actuate))
    params = cv.values(args.param, "--param")
    model.param_vector(params)  # unknown names -> UnknownNameError listing the parameters
    return model, params


def _trim_kwargs(model: tl.Model, args: argparse.Namespace,
                 params: dict[str, float]) -> dict[str, Any]:
    """Keyword arguments of ``tl.trim`` from the trim options."""
    fixed = cv.values(args.fix, "--fix")
    spin = cv.spin(args.spin) if args.spin else None
    free = cv.names(args.free)
    if free is None:  # every configuration state, except fixed and cyclic ones
        skip = {canonical(k) for k in fixed} | set(tl.velocity_names(model))
        if spin:
            skip |= {f"{spin['body']}_{s}" for s in ("x", "y", "z", "phi", "theta", "psi", "q")}
        free = [n for n in model.state_names if n not in skip]
    kwargs: dict[str, Any] = {"free": free, "fixed": fixed, "params": params,
                              "guess": cv.values(args.guess, "--guess")}
    if spin:
        kwargs.update(kind="spin", spin=spin)
    if args.tol is not None:
        if not 0 < args.tol <= cv.MAX_MAGNITUDE:
            raise CLIError(f"--tol {args.tol:g}: must be a positive, finite tolerance")
        kwargs["tol"] = args.tol
    return kwargs


def _trim(model: tl.Model, kwargs: dict[str, Any]) -> Any:
    """``tl.trim(model, **kwargs)``; a failure says which options steer the solver."""
    try:
        return tl.trim(model, **kwargs)
    except tl.TrimError as err:
        raise CLIError(f"{str(err).rstrip('. ')}. Hint: --free NAMES chooses the unknowns "
                       "(states, inputs such as joint torques, parameters), --fix NAME=VALUE "
                       "holds variables, --guess NAME=VALUE starts nearer to an equilibrium"
                       ) from None


def _check_inputs(model: tl.Model, names: list[str] | None) -> None:
    """A clearer message for ``<body>_tau`` of a joint that is not actuated."""
    for name in names or []:
        key = canonical(name)
        body = key[:-4] if key.endswith("_tau") else ""
        if key not in model.input_names and body in model.body_names:
            raise CLIError(f"unknown input {name!r}: the joint of {body!r} is not actuated "
                           f"(add --actuate {body}); inputs are {list(model.input_names)}")


def _trim_and_linearize(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    model, params = _model_and_params(args)
    inputs, outputs = cv.names(args.inputs), cv.names(args.outputs)
    _check_inputs(model, inputs)
    op = _trim(model, _trim_kwargs(model, args, params))
    print(f"trim: {op.kind} operating point, max |residual| = {op.residual_norm:.2e}, "
          f"free: {', '.join(op.free) or 'none'}"
          + (f"; pinned: {', '.join(op.pinned)}" if op.pinned else ""))
    sys_ = tl.linearize(model, op, inputs, outputs, drop_integrators=args.drop_integrators,
                        tol=max(1e-8, args.tol or 0.0))
    dropped = [f"{n} ({why})" for n, why in getattr(sys_, "dropped_states", {}).items()]
    print(f"linear model {sys_.name}: {sys_.nstates} states, {sys_.ninputs} inputs, "
          f"{sys_.noutputs} outputs (acting on deviations from the operating point)")
    for what, names in (("states", sys_.state_labels), ("inputs", sys_.input_labels),
                        ("outputs", sys_.output_labels), ("dropped", dropped)):
        print(f"  {what + ':':<9}{', '.join(names) or '-'}")
    return op, sys_, model


# ---------------------------------------------------------------------------- simulate
def _simulate(model: tl.Model, t_final: float, x0: Any = None,
              params: dict[str, float] | None = None) -> tl.Trajectory:
    start = time.perf_counter()
    traj = tl.simulate(model, (0.0, t_final), x0=x0, params=params, progress=True)
    print(f"simulated {t_final:g} s in {time.perf_counter() - start:.2f} s "
          f"({traj.nfev} evaluations)")
    return traj


def cmd_simulate(args: argparse.Namespace) -> int:
    """``titop-lpv simulate``."""
    out = cv.check_out(args.out, "--out", (".npz", ".csv"))
    plot_file = cv.check_out(args.plot_file, "--plot-file", cv.figure_suffixes())
    if not 0 < args.t_final <= cv.MAX_MAGNITUDE:
        raise CLIError(f"--t-final {args.t_final:g}: must be a positive number of seconds")
    model, params = _model_and_params(args)
    x0 = model.default_state(params or None)
    for name, value in cv.values(args.x0, "--x0").items():
        x0[model.state_index(name)] = value
    signals = cv.names(args.signals) or list(model.output_names)
    known = (*model.state_names, *model.output_names, *model.input_names)
    for name in signals:
        if find(name, known) is None:
            raise CLIError(f"--signals: unknown signal {name!r}; signals are {list(known)}")
    traj = _simulate(model, args.t_final, x0, params)
    width = max(len(s) for s in signals)
    print(f"final values at t = {traj.t[-1]:g} s:")
    print(f"  {'signal':<{width}}  {'initial':>14}  {'final':>14}  unit")
    for name in signals:
        data, unit = traj[name], traj.units.get(canonical(name), "")
        print(f"  {name:<{width}}  {data[0]:14.6g}  {data[-1]:14.6g}  {unit}")
    if out is not None and out.suffix.lower() == ".npz":
        np.savez(out, t=traj.t, x=traj.x, y=traj.y, u=traj.u,
                 state_names=np.array(traj.state_names, dtype=str),
                 output_names=np.array(traj.output_names, dtype=str),
                 input_names=np.array(traj.input_names, dtype=str))
    elif out is not None:
        columns = np.column_stack([traj.t] + [traj[n] for n in traj.names])
        np.savetxt(out, columns, delimiter=",", header=",".join(("t", *traj.names)),
                   comments="", fmt="%.17g")
    if out is not None:
        rp.wrote(out)
    if args.plot or plot_file is not None:
        plot_file = plot_file or f"{Path(args.model).stem}_simulation.png"
        rp.savefig(traj.plot(signals, title=f"{model.name}: simulation over {args.t_final:g} s"),
                 plot_file)
        rp.wrote(plot_file)
    return 0


# ---------------------------------------------------------------------------- trim
def cmd_trim(args: argparse.Namespace) -> int:
    """``titop-lpv trim``."""
    cv.check_out(args.out, "--out", (".json",))
    model, params = _model_and_params(args)
    op = _trim(model, _trim_kwargs(model, args, params))
    print(op.report())
    if args.out:
        Path(args.out).write_text(json.dumps(op.to_dict(), indent=1) + "\n")
        rp.wrote(args.out)
    return 0


# ---------------------------------------------------------------------------- linear models
def cmd_linearize(args: argparse.Namespace) -> int:
    """``titop-lpv linearize``."""
    cv.check_out(args.out, "--out", (".mat", ".npz", ".json"))
    op, sys_, model = _trim_and_linearize(args)
    print(tl.modes(sys_))
    print(rp.stability_line(sys_))
    if args.out:
        rp.wrote(save_linear(sys_, args.out, op=op, model=model))
    return 0


def cmd_modes(args: argparse.Namespace) -> int:
    """``titop-lpv modes``."""
    sys_ = _trim_and_linearize(args)[1]
    table = tl.modes(sys_)
    print(table.to_markdown() if args.markdown else table)
    print(rp.stability_line(sys_))
    return 0


def cmd_bode(args: argparse.Namespace) -> int:
    """``titop-lpv bode``."""
    cv.check_out(args.out, "--out", cv.figure_suffixes())
    omega = None
    if args.omega:
        lo, hi, n = cv.triple(args.omega, "--omega", "0.01:100:400")
        if not 0 < lo < hi or n < 2:
            raise CLIError(f"--omega {args.omega!r}: need 0 < LO < HI and N >= 2")
        omega = np.logspace(np.log10(lo), np.log10(hi), n)
    sys_ = _trim_and_linearize(args)[1]
    omega = rp.bode_omega(sys_) if omega is None else omega
    lines = rp.save_bode(sys_, omega, args.out)
    print(f"frequency response over ω ∈ [{omega[0]:.3g}, {omega[-1]:.3g}] rad/s "
          f"({omega.size} points):")
    print("\n".join(lines))
    rp.wrote(args.out)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    """``titop-lpv sweep``."""
    grid: dict[str, np.ndarray] = {}
    plain = []
    for part in (p for item in args.param for p in item.split(",")):
        name, eq, value = (s.strip() for s in part.partition("="))
        if eq and ":" in value:
            lo, hi, n = cv.triple(value, f"--param {name}", f"{name}=25:100:31")
            grid[name] = np.linspace(lo, hi, n)
        else:
            plain.append(part)
    if not grid:
        raise CLIError("sweep needs a grid: --param NAME=LO:HI:N, e.g. --param k=25:100:31")
    cv.check_out(args.out, "--out", (".npz", ".mat", ".json"))
    args.param = plain
    model, params = _model_and_params(args)
    model.param_vector({k: v[0] for k, v in grid.items()})  # unknown grid names
    both = sorted(set(grid) & set(params))
    if both:
        raise CLIError(f"--param {both[0]} is given both as a grid and as a value")
    _check_inputs(model, cv.names(args.inputs))
    kwargs = _trim_kwargs(model, args, params)
    free, fixed = kwargs.pop("free"), kwargs.pop("fixed")
    axes = " × ".join(f"{k} ∈ [{v[0]:g}, {v[-1]:g}] ({v.size})" for k, v in grid.items())
    print(f"sweep over {axes}: {np.prod([v.size for v in grid.values()])} points, "
          f"{args.workers} worker(s)")
    start = time.perf_counter()
    executor = None
    if args.workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        executor = ProcessPoolExecutor(max_workers=args.workers)
    try:
        lpv = tl.linearize_sweep(model, grid, free, fixed, inputs=cv.names(args.inputs),
                                 outputs=cv.names(args.outputs),
                                 drop_integrators=args.drop_integrators, executor=executor,
                                 progress=True, **kwargs)
    finally:
        if executor is not None:
            executor.shutdown()
    print(f"done in {time.perf_counter() - start:.2f} s\n{lpv.report()}\n{lpv.sweep.report()}")
    rows = [[*grid, "max Re λ", "unstable poles", "stability", "slowest mode: ω_n [rad/s]",
             "ζ", "kind"]]
    for idx in np.ndindex(*lpv.shape):
        rows.append([f"{v[i]:.6g}" for v, i in zip(grid.values(), idx)] + rp.sweep_row(lpv[idx]))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for r in rows:
        print("  " + "  ".join(c.rjust(w) for c, w in zip(r, widths)).rstrip())
    verdicts = [r[len(grid) + 2] for r in rows[1:]]
    drift = f"{verdicts.count('drift')} drift, " if "drift" in verdicts else ""
    print(f"stability: {verdicts.count('unstable')} unstable, {drift}"
          f"{verdicts.count('marginal')} marginal, {verdicts.count('stable')} stable of "
          f"{len(verdicts)} points (unstable: a pole with Re λ > {rp.AXIS_TOL:g}·max(1, |λ|); "
          "drift: zero poles in Jordan chains, a position integrating a free velocity; "
          f"marginal: none, but poles on the imaginary axis, |Re λ| <= "
          f"{rp.AXIS_TOL:g}·max(1, |λ|), e.g. "
          "rigid-body zero poles)")
    if args.out:
        rp.wrote(save_linear(lpv, args.out, model=model))
    return 0


# ---------------------------------------------------------------------------- demo
def cmd_demo(args: argparse.Namespace) -> int:
    """``titop-lpv demo``: the paper's balloon from simulation to pole map."""
    start = time.perf_counter()
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {out}: exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    written: list[tuple[str, str]] = []
    model = _load(BUILTIN)  # its slider is actuated: input slider_tau (zero in Fig. 17)

    print("\n1. simulation of Fig. 17 (θ1,0 = 170°, θ2,0 = −170°), 20 s")
    traj = _simulate(model, 20.0)
    rp.savefig(traj.plot(list(model.output_names),
                       title="Balloon, Fig. 17 scenario (θ1,0 = 170°, θ2,0 = −170°)"),
             out / "balloon_fig17.png")
    written.append(("balloon_fig17.png", "the 9 configuration outputs over 20 s"))

    print("\n2. trim: the hanging equilibrium (guess pendulum1.q = 0.2, pendulum2.q = -0.2)")
    vel = set(tl.velocity_names(model))
    free = [n for n in model.state_names if n not in vel]
    op = tl.trim(model, free=free, guess=HANGING)
    print(op.report())
    (out / "trim.txt").write_text(op.report() + "\n")
    written.append(("trim.txt", "the operating point (tl.trim report)"))

    print("\n3. linearisation: slider_tau → pendulum2_q, integrators dropped")
    sys_ = tl.linearize(model, op, ["slider_tau"], ["pendulum2_q"], drop_integrators=True)
    print(f"linear model: {sys_.nstates} states ({', '.join(sys_.state_labels)})")
    save_linear(sys_, out / "balloon_ss.mat", op=op, model=model)
    written.append(("balloon_ss.mat", "A, B, C, D with names and the operating point"))
    table = tl.modes(sys_)
    print(table)
    print(rp.stability_line(sys_))
    (out / "modes.md").write_text(f"# Modes of the hanging balloon\n\n{table.to_markdown()}\n")
    written.append(("modes.md", "the modal table (Markdown)"))
    print("\n".join(rp.save_bode(sys_, rp.bode_omega(sys_), out / "bode.png")))
    written.append(("bode.png", "Bode plot slider_tau → pendulum2_q"))

    print("\n4. LPV grid over the slider stiffness k ∈ [25, 100] N/m (31 points)")
    lpv = tl.linearize_sweep(model, {"k": np.linspace(25.0, 100.0, 31)}, free,
                             inputs=["slider_tau"], outputs=["pendulum2_q"],
                             drop_integrators=True, guess=HANGING, progress=True)
    print(lpv.report())
    fig = lpv.poles().plot()
    fig.axes[0].set_title("Poles of the hanging balloon, k ∈ [25, 100] N/m")
    rp.savefig(fig, out / "poles.png")
    written.append(("poles.png", "pole map over k"))

    print(f"\nfiles written to {out}/:")
    width = max(len(name) for name, _ in written)
    for name, what in written:
        print(f"  {name:<{width}}  {rp.size(out / name):>9}  {what}")
    print(f"demo finished in {time.perf_counter() - start:.1f} s")
    return 0


# ---------------------------------------------------------------------------- parser
_KV = {"action": "append", "default": [], "metavar": "NAME=VALUE"}
_OUT = "--out"
_OPTIONS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    **convert.OPTIONS, **kernel_compile.OPTIONS,
    "model": [
        ("model", {"metavar": "MODEL", "help": "model file (.toml, .json, .yaml, .urdf), or "
                   f"'{BUILTIN}': the paper's balloon shipped in the package"}),
        ("--param", {**_KV, "help": "set a parameter (repeatable, or comma-separated)"}),
        ("--actuate", {"metavar": "BODY[,BODY]",
                       "help": "make these joints actuated (adds the inputs <body>_tau)"})],
    "trim options": [
        ("--free", {"metavar": "A,B,...", "help": "variables to solve for (states, inputs, "
                    "parameters; default: every configuration state, neutral ones pinned)"}),
        ("--fix", {**_KV, "help": "hold a variable at a value (repeatable)"}),
        ("--guess", {**_KV, "help": "initial guess of a free variable (repeatable)"}),
        ("--spin", {"metavar": "BODY:AX,AY,AZ:RATE", "action": "append",
                    "help": "steady spin of BODY about an axis (body frame) at RATE [rad/s]; "
                    "RATE may name a parameter (its --param value or sweep grid); once"}),
        ("--tol", {"type": float, "help": "tolerance on max |residual| (default 1e-10)"})],
    "linear model": [
        ("--inputs", {"metavar": "A,B", "help": "inputs to keep (default: all)"}),
        ("--outputs", {"metavar": "C,D", "help": "outputs to keep (default: all)"}),
        ("--drop-integrators", {"action": "store_true", "help": "drop floating-base "
                                "position/attitude states nothing depends on"})],
    "demo": [(_OUT, {"default": "titop-lpv-out", "metavar": "DIR",
                     "help": "output directory (default ./titop-lpv-out)"})],
    "simulate": [
        ("--t-final", {"type": float, "required": True, "metavar": "T", "help": "end time [s]"}),
        ("--x0", {**_KV, "help": "initial state value (repeatable; default: the model's)"}),
        ("--signals", {"metavar": "A,B", "help": "signals to print, plot (default: outputs)"}),
        ("--plot", {"action": "store_true", "help": "save a figure of the signals"}),
        ("--plot-file", {"metavar": "FILE", "help": "figure file, any format matplotlib "
                         "writes (implies --plot; default <model>_simulation.png)"}),
        (_OUT, {"metavar": "FILE", "help": "write the trajectory (.npz or .csv)"})],
    "trim": [(_OUT, {"metavar": "FILE.json", "help": "write the operating point (JSON)"})],
    "linearize": [(_OUT, {"metavar": "FILE", "help": "write the model (.mat, .npz, .json)"})],
    "modes": [("--markdown", {"action": "store_true", "help": "print the table in Markdown"})],
    "sweep": [
        ("--workers", {"type": cv.positive, "default": 1, "metavar": "N",
                       "help": "parallel worker processes, 1 to 64 (default 1)"}),
        (_OUT, {"metavar": "FILE", "help": "write the grid (.npz, .mat or .json)"})],
    "bode": [
        ("--omega", {"metavar": "LO:HI:N",
                     "help": "N log-spaced frequencies [rad/s] (default: around the modes)"}),
        (_OUT, {"default": "bode.png", "metavar": "FILE",
                "help": "figure: .png, .pdf, .svg, ... (default bode.png)"})],
}
_CHANNEL = f"--inputs slider.tau --outputs pendulum2.q \\\n      {GUESS}"
_COMMANDS = [  # name, function, summary, example, option groups
    ("demo", cmd_demo, "the paper's balloon: simulate, trim, linearise, modes, Bode, pole map "
     "(< 1 min)", "", ()),
    ("simulate", cmd_simulate, "simulate the nonlinear model from its initial state",
     f"{BUILTIN} --t-final 20 --plot", ("model",)),
    ("trim", cmd_trim, "find an equilibrium or a steady spin",
     "examples/spinning_spacecraft.toml --spin hub:0,0,1:2.0 --out op.json",
     ("model", "trim options")),
    ("linearize", cmd_linearize, "trim, then linearise exactly (named state-space model, modes)",
     f"{BUILTIN} {_CHANNEL} --out balloon_ss.mat",
     ("model", "trim options", "linear model")),
    ("modes", cmd_modes, "trim, linearise, print the modal table and the stability",
     f"{BUILTIN} --drop-integrators --markdown \\\n      {GUESS}",
     ("model", "trim options", "linear model")),
    ("sweep", cmd_sweep, "trim and linearise over a parameter grid (LPV grid)\n--param "
     "NAME=LO:HI:N is a grid axis of N points (several: a tensor grid)",
     f"{BUILTIN} --param k=25:100:31 --out sweep.npz \\\n      {GUESS}",
     ("model", "trim options", "linear model")),
    ("bode", cmd_bode, "trim, linearise, save a Bode plot",
     f"{BUILTIN} {_CHANNEL} --out bode.png", ("model", "trim options", "linear model")),
    convert.COMMAND,
    kernel_compile.COMMAND,
]
_MODELS = (f"MODEL '{BUILTIN}' is the paper's balloon shipped inside the package (the same as\n"
           "examples/balloon.toml), so these examples run anywhere; the other\n"
           "examples/*.toml files come with the source repository.")


def _parser() -> argparse.ArgumentParser:
    parser = cv.Parser(
        prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n" + "\n".join(f"  {PROG} {c[0]} {c[3]}".rstrip() for c in _COMMANDS)
        + f"\n\n{_MODELS}\n\n'{PROG} COMMAND --help' shows each command's options. Errors: "
        "one line on\nstderr, exit status 2 (TITOP_LPV_DEBUG=1 shows the traceback).",
        description="Nonlinear multibody (TITOP) models: simulation, trim, exact "
                    "linearisation, modes, LPV grids.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {tl.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=cv.Parser)
    for name, func, summary, example, groups in _COMMANDS:
        note = f"\n\n{_MODELS}" if "model" in groups else ""
        p = sub.add_parser(name, help=summary.split("\n")[0], description=summary,
                           epilog=f"example:\n  {PROG} {name} {example}".rstrip() + note,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.set_defaults(func=func)
        for group in (*groups, name):
            g = p.add_argument_group(group) if " " in group else p
            for flag, kwargs in _OPTIONS.get(group, []):
                g.add_argument(flag, **kwargs)
    return parser


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line; unknown arguments are named with their command's help."""
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        raise cv.UsageError(f"a command is needed: {', '.join(c[0] for c in _COMMANDS)} "
                         f"(see '{PROG} --help')")
    args, extra = parser.parse_known_args(argv)
    if extra:
        raise cv.UsageError(f"unrecognized argument(s) {' '.join(extra)} "
                         f"(see '{PROG} {args.command} --help')")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the ``titop-lpv`` command line and return its exit status.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success (and for ``--help``, ``--version``); 2 on bad input, including a
        malformed command line (one line ``titop-lpv: error: ...`` on stderr); 1 on an
        internal error (one line ``titop-lpv: internal error: ...``; ``TITOP_LPV_DEBUG=1``
        shows the traceback); 130 when interrupted. Warnings raised by a command that
        fails are not shown (its one error line says what is wrong).
    """
    try:
        args = _parse(argv)
    except SystemExit as stop:  # --help, --version
        return stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 2
    except cv.UsageError as err:
        print(f"{PROG}: error: {cv.one_line(err)}", file=sys.stderr)
        return 2
    import matplotlib

    matplotlib.use("Agg")  # figures go to files only, never to a window
    with warnings.catch_warnings(record=True) as caught:
        status = _run(args)
    if status == 0:  # a failure's one line says it all; a success keeps its warnings
        rp.show_warnings(caught)
    return status


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command; bad input ends as one line on stderr and status 2."""
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except (TitopError, OSError) as err:  # bad input: a model, a name, a value, a file
        if os.environ.get("TITOP_LPV_DEBUG") == "1":
            raise
        sys.stdout.flush()
        print(f"{PROG}: error: {cv.one_line(err)}", file=sys.stderr)
        return 2
    except Exception as err:  # a bug, not the user's input: say so, status 1
        if os.environ.get("TITOP_LPV_DEBUG") == "1":
            raise
        sys.stdout.flush()
        print(f"{PROG}: internal error: {type(err).__name__}: {cv.one_line(err)} (please report "
              "it; TITOP_LPV_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
