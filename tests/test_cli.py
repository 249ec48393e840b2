"""The ``titop-lpv`` command line.

Every command runs on the shipped examples in a subprocess (``python -m titop_lpv.cli.main``, and
the installed console script once), in a temporary directory with ``MPLBACKEND=Agg``: exit
status 0, the key lines of its summary, and the files it writes, read back
(``load_linear``, JSON, npz, CSV) and checked against the library or a closed form. Bad
input (missing file, unknown parameter, malformed TOML, unknown signal, bad ``--spin`` or
grid syntax, ...) must end with exit status 2 and exactly one line on stderr,
``titop-lpv: error: ...``, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.analysis.lpv import LPVGrid
from titop_lpv.cli.main import main
from titop_lpv.io.export import load_linear

ROOT = Path(__file__).resolve().parents[1]
BALLOON = str(ROOT / "examples" / "balloon.toml")
ARM = str(ROOT / "examples" / "robot_arm.toml")
SPACECRAFT = str(ROOT / "examples" / "spinning_spacecraft.toml")
HANGING = "--guess=pendulum1.q=0.2,pendulum2.q=-0.2"
ARM_TRIM = ["--free", "shoulder_yaw_tau,shoulder_tau,elbow_tau,wrist_tau",
            "--fix", "shoulder_yaw.q=0.3,shoulder.q=0.7,elbow.q=-1.1,wrist.q=0.4"]
ENV = {k: v for k, v in os.environ.items() if k != "TITOP_LPV_DEBUG"} | {"MPLBACKEND": "Agg"}


def run(*args: str, cwd: Path, command: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run the CLI in a subprocess; return the completed process (text output)."""
    command = command or [sys.executable, "-m", "titop_lpv.cli.main"]
    return subprocess.run([*command, *args], cwd=cwd, env=ENV, capture_output=True, text=True,
                          timeout=300, check=False)


def ok(result: subprocess.CompletedProcess) -> str:
    """Assert success without a traceback; return stdout."""
    assert result.returncode == 0, (f"exit {result.returncode}\n--- stdout\n"
                                    f"{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}")
    assert "Traceback" not in result.stderr
    return result.stdout


def one_error_line(returncode: int, stderr: str) -> str:
    """Assert the bad-input contract: status 2, one line ``titop-lpv: error: ...``."""
    lines = stderr.splitlines()
    assert returncode == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("titop-lpv: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def quiet_load(path: str) -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(path)


# ------------------------------------------------------------------------------ subprocess runs
def test_demo_writes_every_file(tmp_path: Path) -> None:
    out = ok(run("demo", "--out", "demo_out", cwd=tmp_path))
    files = ["balloon_fig17.png", "trim.txt", "balloon_ss.mat", "modes.md", "bode.png",
             "poles.png"]
    for name in files:
        path = tmp_path / "demo_out" / name
        assert path.is_file() and path.stat().st_size > 0, name
        assert re.search(rf"^  {re.escape(name)} +\d", out, re.M), name  # listed with its size
    seconds = float(re.search(r"demo finished in ([\d.]+) s", out).group(1))
    assert seconds < 60
    assert "static operating point of 'balloon': success" in out
    assert "model 'balloon' (the balloon shipped in titop_lpv)" in out
    # the hanging balloon: no unstable pole, the 4 rigid-body zero poles on the axis (their
    # computed real parts are 0 or rounding, |Re λ| < 1e-12)
    top = re.search(r"stability: marginal: max Re λ = (\S+) rad/s, 0 unstable pole\(s\)", out)
    assert top is not None and abs(float(top.group(1))) < 1e-12
    assert "31/31 linear models" in out
    sys_ = load_linear(tmp_path / "demo_out" / "balloon_ss.mat")
    assert sys_.input_labels == ["slider_tau"] and sys_.output_labels == ["pendulum2_q"]
    assert sys_.nstates == 14 and "balloon_psi" not in sys_.state_labels  # integrators dropped
    assert sys_.op.success and sys_.op.residual_norm < 1e-10
    assert abs(sys_.op["pendulum1_q"]) < 1e-8  # the hanging equilibrium, not the inverted one
    modes = (tmp_path / "demo_out" / "modes.md").read_text()
    assert "| # | kind |" in modes and "oscillatory" in modes


def test_simulate_parameters_and_initial_state_reach_the_solver(tmp_path: Path) -> None:
    out = ok(run("simulate", BALLOON, "--t-final", "2", "--param", "k=80", "--x0",
                 "slider.q=0.1", "--signals", "slider_q,pendulum1.q", "--plot",
                 "--plot-file", "sim.png", "--out", "traj.npz", cwd=tmp_path))
    assert "final values at t = 2 s:" in out and "wrote traj.npz" in out
    assert (tmp_path / "sim.png").stat().st_size > 0
    data = np.load(tmp_path / "traj.npz")
    model = quiet_load(BALLOON)
    assert list(data["state_names"]) == list(model.state_names)
    x0 = model.default_state()
    x0[model.state_index("slider_q")] = 0.1
    ref = tl.simulate(model, (0.0, 2.0), x0=x0, params={"k": 80.0})
    np.testing.assert_allclose(data["x"][-1], ref.x[-1], rtol=0, atol=1e-9)
    row = re.search(r"^  slider_q +([-\d.e+]+) +([-\d.e+]+)  m$", out, re.M)
    assert float(row.group(1)) == 0.1 and np.isclose(float(row.group(2)), ref["slider_q"][-1])


def test_trim_spin_matches_the_closed_form_moment_balance(tmp_path: Path) -> None:
    out = ok(run("trim", SPACECRAFT, "--spin", "hub:0,0,1:2.0", "--out", "op.json",
                 cwd=tmp_path))
    assert "spin operating point of 'spinning_spacecraft': success" in out
    rec = json.loads((tmp_path / "op.json").read_text())
    assert rec["success"] and rec["kind"] == "spin" and rec["spin"]["rate"] == 2.0
    assert set(rec["cyclic"]) == {"hub_x", "hub_y", "hub_z", "hub_phi", "hub_theta", "hub_psi"}
    assert rec["status"]["panel1_q"] == "free" and rec["status"]["hub_psi"] == "cyclic"
    assert rec["max_residual"] <= rec["tolerance"]
    # spring, centrifugal force on the panel mass and spin of its inertia about the hinge
    k, rest, m, ell, radius, d_inertia, rate = 120.0, 0.35, 15.0, 1.5, 1.0, 11.0, 2.0
    for q in (rec["values"]["panel1_q"], rec["values"]["panel2_q"]):
        moment = (-k * (q - rest) - m * rate**2 * ell * np.sin(q) * (radius + ell * np.cos(q))
                  - rate**2 * d_inertia * np.sin(q) * np.cos(q))
        assert abs(moment) < 1e-8


def test_linearize_writes_a_named_model_with_its_operating_point(tmp_path: Path) -> None:
    # the shipped balloon's slider is actuated: no --actuate needed
    out = ok(run("linearize", BALLOON, "--inputs", "slider.tau",
                 "--outputs", "pendulum2.q", HANGING, "--drop-integrators", "--out", "ss.npz",
                 cwd=tmp_path))
    assert "linear model balloon_lin: 14 states, 1 inputs, 1 outputs" in out
    assert ("dropped: balloon_x (integrator), balloon_y (integrator), balloon_z (integrator), "
            "balloon_psi (integrator)") in out
    assert "modes of balloon_lin: 4 rigid-body, 5 other" in out
    assert "stability: marginal" in out and "4 on the imaginary axis" in out
    sys_ = load_linear(tmp_path / "ss.npz")
    assert sys_.input_labels == ["slider_tau"] and sys_.output_labels == ["pendulum2_q"]
    assert sys_.op.success and sys_.op.input_names == ("slider_tau",)
    # the slider equation: m_eff q̈ = ... - k q - d_s q̇ + τ, so B[slider_qd] > 0
    assert sys_.B[sys_.state_labels.index("slider_qd"), 0] > 0


def test_modes_markdown_on_the_robot_arm(tmp_path: Path) -> None:
    out = ok(run("modes", ARM, *ARM_TRIM, "--markdown", cwd=tmp_path))
    assert "| # | kind | eigenvalue [rad/s] | ω_n [rad/s] |" in out
    assert "trim: static operating point" in out
    assert len(re.findall(r"^\| \d+ \|", out, re.M)) >= 4


SWEEP_ROW = (r"^ +(?P<k>[\d.]+) +(?P<re>[-\d.e]+) +(?P<n>\d+) +(?P<verdict>\w+) +[\d.e-]+ "
             r"+[-\d.e]+ +(?:oscillatory|real|unstable)$")


def test_sweep_grid_with_a_fixed_parameter(tmp_path: Path) -> None:
    result = run("sweep", BALLOON, "--param", "k=25:100:5", "--param", "ds=4", HANGING,
                 "--drop-integrators", "--out", "sweep.npz", cwd=tmp_path)
    out = ok(result)
    bars = [line for line in result.stderr.splitlines() if line.startswith("trim_sweep:")]
    assert bars and "5/5" in bars[-1] and len(bars) <= 8  # tqdm's bar: a few lines in a log
    assert "5/5 linear models" in out and "5/5 equilibria found" in out
    rows = [m.groupdict() for m in re.finditer(SWEEP_ROW, out, re.M)]
    assert [float(r["k"]) for r in rows] == [25.0, 43.75, 62.5, 81.25, 100.0]
    # hanging: marginally stable, the largest real part is a rigid-body zero pole
    assert all(r["verdict"] == "marginal" and r["n"] == "0" and abs(float(r["re"])) < 1e-6
               for r in rows)
    assert "stability: 0 unstable, 5 marginal, 0 stable of 5 points" in out
    grid = load_linear(tmp_path / "sweep.npz")
    assert isinstance(grid, LPVGrid)
    np.testing.assert_allclose(grid.axes["k"], np.linspace(25, 100, 5))
    assert all(op.params["ds"] == 4.0 and op.success for op in grid.sweep)


def test_sweep_without_guess_finds_the_inverted_branch_and_says_unstable(tmp_path: Path) -> None:
    """Trim starts at Fig. 17's pendulums near the top: the inverted equilibrium, whose
    largest pole is real and near +5.5 rad/s; every row must say so."""
    out = ok(run("sweep", "balloon", "--param", "k=25:100:4", cwd=tmp_path))
    rows = [m.groupdict() for m in re.finditer(SWEEP_ROW, out, re.M)]
    assert len(rows) == 4
    for r in rows:
        assert r["verdict"] == "unstable" and int(r["n"]) >= 1 and 5.0 < float(r["re"]) < 6.0
    assert "stability: 4 unstable, 0 marginal, 0 stable of 4 points" in out


def test_sweep_tensor_grid_in_parallel_with_spin(tmp_path: Path) -> None:
    out = ok(run("sweep", SPACECRAFT, "--spin", "hub:0,0,1:2", "--param",
                 "k_hinge=20:500:3,d_hinge=1:3:2", "--workers", "2", "--out", "grid.json",
                 cwd=tmp_path))
    assert "6/6 linear models" in out and "2 worker(s)" in out
    grid = load_linear(tmp_path / "grid.json")
    assert grid.shape == (3, 2) and "hub_psi" not in grid.state_names  # cyclic: dropped


def test_bode_peak_lies_between_the_modes(tmp_path: Path) -> None:
    out = ok(run("bode", BALLOON, "--inputs", "slider.tau",
                 "--outputs", "pendulum2.q", HANGING, "--omega", "0.1:100:400", "--out",
                 "b.png", cwd=tmp_path))
    assert (tmp_path / "b.png").stat().st_size > 0
    peak = float(re.search(r"slider_tau → pendulum2_q: peak gain .* at ω = ([\d.]+) rad/s",
                           out).group(1))
    assert 1.8 < peak < 7.7  # between the slowest and the fastest oscillatory mode


def test_console_script(tmp_path: Path) -> None:
    script = shutil.which("titop-lpv", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the titop-lpv console script is not installed")
    out = ok(run("--help", cwd=tmp_path, command=[script]))
    assert all(c in out for c in ("demo", "simulate", "trim", "linearize", "modes", "sweep",
                                  "bode", "examples:"))
    (tmp_path / "broken.toml").write_text('name = "x"\n[[bodies]\nmass = 1\n')
    result = run("trim", "broken.toml", cwd=tmp_path, command=[script])
    assert "malformed TOML" in one_error_line(result.returncode, result.stderr)


# ------------------------------------------------------------------------------ in process
@pytest.mark.parametrize("command", ["demo", "simulate", "trim", "linearize", "modes", "sweep",
                                     "bode"])
def test_every_command_has_help_with_an_example(command: str, capsys) -> None:
    assert main([command, "--help"]) == 0
    assert "\nexample:\n  titop-lpv " + command in capsys.readouterr().out


BAD = {
    "missing file": (["trim", "missing.toml"], "does not exist"),
    "unknown parameter": (["trim", BALLOON, "--param", "bogus=1"], "bogus"),
    "malformed TOML": (["linearize", "broken.toml"], "malformed TOML"),
    "unknown input": (["linearize", ARM, *ARM_TRIM, "--inputs", "nope"], "'nope'"),
    "input of a joint not actuated": (["linearize", BALLOON, "--inputs", "pendulum1.tau"],
                                      "--actuate pendulum1"),
    "unknown output": (["bode", ARM, *ARM_TRIM, "--outputs", "nope"], "'nope'"),
    "bad --spin": (["trim", SPACECRAFT, "--spin", "hub:0,0:2"], "BODY:AX,AY,AZ:RATE"),
    "unknown spin body": (["trim", SPACECRAFT, "--spin", "moon:0,0,1:2"], "moon"),
    "grid without N": (["sweep", BALLOON, "--param", "k=25:100"], "LO:HI:N"),
    "grid not numbers": (["sweep", BALLOON, "--param", "k=a:100:3"], "expected a number"),
    "grid N not an integer": (["sweep", BALLOON, "--param", "k=25:100:2.5"], "integer"),
    "grid of an unknown parameter": (["sweep", BALLOON, "--param", "bogus=1:2:3"], "bogus"),
    "sweep without a grid": (["sweep", BALLOON, "--param", "k=30"], "needs a grid"),
    "grid outside sweep": (["trim", BALLOON, "--param", "k=1:2:3"], "sweep"),
    "NAME=VALUE expected": (["trim", BALLOON, "--fix", "slider.q"], "NAME=VALUE"),
    "unknown signal": (["simulate", BALLOON, "--t-final", "1", "--signals", "nope"], "nope"),
    "bad output suffix": (["simulate", BALLOON, "--t-final", "1", "--out", "x.txt"], ".csv"),
    "bad --omega": (["bode", ARM, *ARM_TRIM, "--omega", "10:1:50"], "LO < HI"),
    "velocity freed": (["trim", BALLOON, "--free", "balloon_vx"], "velocity"),
    "no equilibrium": (["trim", ARM, "--free", "shoulder_yaw_q"], "failed"),
    "actuate a free joint": (["trim", BALLOON, "--actuate", "balloon"], "--actuate"),
    "unwritable output": (["trim", BALLOON, "--out", "no/such/dir/op.json"], "no/such/dir"),
    "trim stalls: the shoulder held without its torque": (
        ["trim", ARM, "--fix", "shoulder_q=0.3"], "Hint: --free"),
    "t-final not a number": (["simulate", BALLOON, "--t-final", "abc"], "--t-final"),
    "t-final missing": (["simulate", BALLOON], "required: --t-final"),
    "unknown option of a command": (["simulate", BALLOON, "--t-final", "1", "--bogus"],
                                    "--bogus (see 'titop-lpv simulate --help')"),
    "unknown command": (["frobnicate"], "invalid choice: 'frobnicate'"),
    "no command": ([], "a command is needed: demo, simulate"),
    "bad --tol": (["trim", BALLOON, "--tol", "tight"], "--tol"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_and_status_2(case: str, tmp_path: Path, monkeypatch,
                                            capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TITOP_LPV_DEBUG", raising=False)
    (tmp_path / "broken.toml").write_text('name = "x"\n[[bodies]\nmass = 1\n')
    argv, expected = BAD[case]
    status = main(argv)
    line = one_error_line(status, capsys.readouterr().err)
    assert expected in line


def test_usage_errors_are_one_line_in_a_subprocess(tmp_path: Path) -> None:
    """argparse's own errors keep the contract too (no usage block), also for a subcommand."""
    for args, expected in ((["simulate", BALLOON, "--t-final", "abc"], "invalid float value"),
                           (["linearize", BALLOON, "--nope"], "titop-lpv linearize --help"),
                           ([], "a command is needed")):
        result = run(*args, cwd=tmp_path)
        assert expected in one_error_line(result.returncode, result.stderr)
        assert result.stdout == ""


# output files are checked before loading, trimming or simulating: nothing on stdout
BAD_OUTPUT = {
    "figure directory missing": (["simulate", BALLOON, "--t-final", "5", "--plot-file",
                                  "no/such/dir/sim.png"], "directory 'no/such/dir'"),
    "figure type unknown": (["simulate", BALLOON, "--t-final", "5", "--plot-file", "sim.pngx"],
                            "unknown file type '.pngx'"),
    "bode figure type unknown": (["bode", BALLOON, HANGING, "--out", "x.pdfx"], "'.pdfx'"),
    "linear model type unknown": (["linearize", BALLOON, "--out", "ss.xlsx"], ".mat, .npz"),
    "sweep file directory missing": (["sweep", BALLOON, "--param", "k=25:100:3", "--out",
                                      "nowhere/g.npz"], "'nowhere' does not exist"),
    "output is a directory": (["trim", BALLOON, "--out", "adir.json"], "is a directory"),
}


@pytest.mark.parametrize("case", list(BAD_OUTPUT))
def test_bad_output_fails_before_the_work(case: str, tmp_path: Path, monkeypatch,
                                          capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir.json").mkdir()
    argv, expected = BAD_OUTPUT[case]
    status = main(argv)
    out, err = capsys.readouterr()
    assert expected in one_error_line(status, err)
    assert out == ""  # no model loaded, no trim, no simulation


def test_model_balloon_is_the_shipped_file(tmp_path: Path, monkeypatch, capsys) -> None:
    """'balloon' names the packaged model from any directory (a pip install has no examples/)."""
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "balloon", "--t-final", "0.5", "--out", "a.npz"]) == 0
    assert "model 'balloon' (the balloon shipped in titop_lpv)" in capsys.readouterr().out
    assert main(["simulate", BALLOON, "--t-final", "0.5", "--out", "b.npz"]) == 0
    a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
    np.testing.assert_array_equal(a["x"], b["x"])
    assert main(["simulate", "--help"]) == 0
    assert "MODEL 'balloon' is the paper's balloon shipped" in capsys.readouterr().out


def test_debug_variable_shows_the_exception(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TITOP_LPV_DEBUG", "1")
    with pytest.raises(tl.ModelFileError):
        main(["trim", "missing.toml"])


def test_simulate_csv_columns(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", ARM, "--t-final", "0.5", "--out", "traj.csv"]) == 0
    header = (tmp_path / "traj.csv").read_text().splitlines()[0].split(",")
    data = np.loadtxt(tmp_path / "traj.csv", delimiter=",", skiprows=1)
    assert header[:3] == ["t", "shoulder_yaw_q", "shoulder_yaw_qd"]
    assert header[-1] == "wrist_tau" and data.shape[1] == len(header)
    assert data[-1, 0] == 0.5 and "wrote traj.csv" in capsys.readouterr().out


def test_embedded_balloon_is_the_example():
    """The demo's model shipped in the package is byte-for-byte examples/balloon.toml."""
    root = Path(__file__).resolve().parents[1]
    shipped = root / "titop_lpv" / "data" / "balloon.toml"
    assert shipped.read_bytes() == (root / "examples" / "balloon.toml").read_bytes()


def test_rigid_body_jordan_chains_are_called_drift(tmp_path: Path) -> None:
    """Full balloon model: 8 zero poles but only 4 null vectors of A (x, y, z, ψ integrate
    free velocities): 'drift'. With the integrators dropped the 4 zero poles are simple:
    'marginal'."""
    full = ok(run("modes", BALLOON, HANGING, cwd=tmp_path))
    assert "stability: drift: " in full and "8 on the imaginary axis" in full
    reduced = ok(run("modes", BALLOON, HANGING, "--drop-integrators", cwd=tmp_path))
    assert "stability: marginal: " in reduced and "4 on the imaginary axis" in reduced
