"""The spin rate of a steady spin given as the name of a model parameter.

``tl.trim(..., kind="spin", spin={"body", "axis", "rate": "Omega"})`` takes the rate from
the trim's parameter values, so sweeps and LPV grids run over the spin rate:

* a named rate gives exactly the trim at the same numeric rate (x, u), from ``params``,
  ``fixed`` or the model default, with the dotted or underscored name; the operating point
  records the numeric rate and the parameter (``spin["rate_param"]``), the record can be
  given back to ``trim`` and survives ``save_linear``/``load_linear`` (.mat, .npz, .json);
* ``trim_sweep`` over the rate: the hinged panels of a spinning hub against the closed-form
  balance of spring and centrifugal moments at every rate;
* ``linearize_sweep`` over the rate: a torque-free axisymmetric body spinning about its
  symmetry axis has the body-frame nutation frequency ``|(I3 − I1)/I1|·Ω`` and the
  velocity rotation frequency ``|Ω|`` (prolate and oblate, 7 rates, serial and threads);
* the command line: ``--spin BODY:AX,AY,AZ:NAME`` with ``--param NAME=LO:HI:N`` (sweep) or
  ``--param NAME=VALUE`` (trim);
* bad input is a typed error naming the culprit: unknown name (``UnknownNameError`` listing
  the parameters), a state or input name, a non-finite number, a free rate parameter
  (``TrimSpecError``), and on the command line a one-line error with exit status 2.
"""

from __future__ import annotations

import dataclasses
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from models import free_body
from scipy.optimize import brentq
from test_cli import ok, one_error_line, run

import titop_lpv as tl
from titop_lpv.io.export import load_linear, save_linear

AXIS = [0.0, 0.0, 1.0]
K, REST, M, ELL, RADIUS = 40.0, 0.4, 3.0, 1.2, 0.8  # the hub's panels (tests/test_trim.py)
RATES = np.array([-1.5, 0.5, 1.0, 2.0, 3.5, 5.0, 8.0])  # rad/s, strictly increasing


def _hub(actuated: bool = False) -> tl.Model:
    """tests/test_trim.py's spinning hub with two hinged panels, and a spin-rate parameter
    ``spin_rate`` that nothing in the dynamics uses (``spin.rate`` in the dotted form)."""
    s = tl.System("hub", gravity=[0.0, 0.0, 0.0])
    s.parameter("spin_rate", 1.0, unit="rad/s", description="spin rate of the hub")
    s.body("hub", tl.Free(), mass=50.0, inertia=np.diag([20.0, 20.0, 30.0]),
           ports={"p1": [RADIUS, 0, 0], "p2": [-RADIUS, 0, 0]})
    for name, port, rot in (("panel1", "p1", np.eye(3)),
                            ("panel2", "p2", np.diag([-1.0, -1.0, 1.0]))):
        s.body(name, tl.Revolute(axis=[0, 1, 0], stiffness=K, rest=REST, q0=REST,
                                 rotation=rot, actuated=actuated and name == "panel1"),
               parent=f"hub.{port}", mass=M, com=[ELL, 0.0, 0.0])
    return s.compile()


def _panel_angle(omega: float) -> float:
    """Closed form: −k(q − rest) − m Ω² ℓ sin q (R + ℓ cos q) = 0."""
    if omega == 0.0:
        return REST
    return brentq(lambda q: -K * (q - REST)
                  - M * omega**2 * ELL * np.sin(q) * (RADIUS + ELL * np.cos(q)), -0.1, REST + 0.1)


def _axisymmetric(I1: float, I3: float) -> tl.Model:
    """tests/test_closed_forms.py's torque-free body, axisymmetric about z, with ``Omega``."""
    desc = free_body(inertia=np.diag([I1, I1, I3]))
    desc["parameters"] = {"Omega": {"value": 1.0, "unit": "rad/s"}}
    return tl.load_model(desc)


def _spin(rate):
    return {"body": "hub", "axis": AXIS, "rate": rate}


# ------------------------------------------------------------------------------ one trim
@pytest.mark.parametrize("name", ["spin_rate", "spin.rate"])
def test_named_rate_equals_the_numeric_rate(name):
    model = _hub()
    free = ["panel1.q", "panel2.q"]
    ref = tl.trim(model, free, kind="spin", spin=_spin(2.0))
    op = tl.trim(model, free, kind="spin", spin=_spin(name), params={"spin_rate": 2.0})
    assert op.success
    np.testing.assert_allclose(op.x, ref.x, rtol=0, atol=1e-12)
    np.testing.assert_allclose(op.u, ref.u, rtol=0, atol=1e-12)
    assert op.spin["rate"] == 2.0 and isinstance(op.spin["rate"], float)
    assert op.spin["rate_param"] == "spin_rate" and op.params["spin_rate"] == 2.0
    assert op.spin["body"] == "hub" and op.spin["axis"].tolist() == AXIS
    assert "rate_param" not in ref.spin  # a numeric rate records no parameter
    np.testing.assert_allclose(op["panel1_q"], _panel_angle(2.0), rtol=1e-11)


def test_named_rate_from_the_default_and_from_fixed():
    model = _hub()
    free = ["panel1.q", "panel2.q"]
    default = tl.trim(model, free, kind="spin", spin=_spin("spin_rate"))
    assert default.spin["rate"] == 1.0 == default.x[model.state_index("hub_wz")]
    fixed = tl.trim(model, free, {"spin_rate": 3.0}, kind="spin", spin=_spin("spin_rate"))
    assert fixed.spin["rate"] == 3.0 == fixed.x[model.state_index("hub_wz")]
    np.testing.assert_allclose(fixed["panel2_q"], _panel_angle(3.0), rtol=1e-11)


def test_the_recorded_spin_can_be_given_back():
    model = _hub()
    free = ["panel1.q", "panel2.q"]
    op = tl.trim(model, free, kind="spin", spin=_spin("spin_rate"), params={"spin_rate": 2.5})
    again = tl.trim(model, free, kind="spin", spin=op.spin, params=op.params)
    np.testing.assert_array_equal(again.x, op.x)
    assert again.spin["rate"] == 2.5 and again.spin["rate_param"] == "spin_rate"
    # the record's numeric rate must agree with the parameter's value in this trim
    with pytest.raises(tl.TrimSpecError, match="rate_param 'spin_rate'"):
        tl.trim(model, free, kind="spin", spin=op.spin, params={"spin_rate": 3.0})


@pytest.mark.parametrize("ext", [".mat", ".npz", ".json"])
def test_spin_record_round_trips_through_export(tmp_path, ext):
    model = _hub()
    op = tl.trim(model, ["panel1.q", "panel2.q"], kind="spin", spin=_spin("spin_rate"),
                 params={"spin_rate": 2.0})
    sys = tl.linearize(model, op)
    back = load_linear(save_linear(sys, tmp_path / f"op{ext}", op=op)).op
    assert back.spin["rate"] == 2.0 and back.spin["rate_param"] == "spin_rate"
    assert back.spin["body"] == "hub"
    np.testing.assert_array_equal(back.spin["axis"], op.spin["axis"])
    for field in dataclasses.fields(tl.OperatingPoint):
        if field.name != "spin":
            a, b = getattr(op, field.name), getattr(back, field.name)
            assert (np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b), field.name
    grid = tl.linearize_sweep(model, {"spin_rate": [1.0, 2.0]}, ["panel1.q", "panel2.q"],
                              kind="spin", spin=_spin("spin_rate"), progress=False)
    back = load_linear(save_linear(grid, tmp_path / f"grid{ext}"))
    assert [p.spin["rate"] for p in back.sweep] == [1.0, 2.0]
    assert {p.spin["rate_param"] for p in back.sweep} == {"spin_rate"}


# ------------------------------------------------------------------------------ sweeps
def test_trim_sweep_over_the_spin_rate_closed_form():
    model = _hub()
    sweep = tl.trim_sweep(model, {"spin_rate": RATES}, ["panel1.q", "panel2.q"], kind="spin",
                          spin=_spin("spin_rate"), progress=False, strict=True)
    for omega, op in zip(RATES, sweep):
        assert op.spin["rate"] == omega and op.spin["rate_param"] == "spin_rate"
        assert op.x[model.state_index("hub_wz")] == omega
        exact = _panel_angle(float(omega))
        np.testing.assert_allclose([op["panel1_q"], op["panel2_q"]], exact, rtol=1e-11)


@pytest.mark.parametrize("executor", [None, "threads"])
@pytest.mark.parametrize(("I1", "I3"), [(2.0, 3.5), (3.0, 1.2)])  # oblate, prolate
def test_linearize_sweep_nutation_frequency_closed_form(I1, I3, executor):
    """Body-frame linearisation about a spin Ω about the symmetry axis: the angular
    velocity's transverse components turn at ±(I3 − I1)/I1·Ω (nutation), the origin
    velocity's at ±Ω; the axial components are constant (two zero poles)."""
    model = _axisymmetric(I1, I3)
    spin = {"body": "body", "axis": AXIS, "rate": "Omega"}
    pool = ThreadPoolExecutor(2) if executor else None
    try:
        grid = tl.linearize_sweep(model, {"Omega": RATES}, kind="spin", spin=spin,
                                  executor=pool, chunks=3 if pool else None, progress=False)
    finally:
        if pool is not None:
            pool.shutdown()
    assert grid.state_names == tuple(f"body_{s}" for s in ("vx", "vy", "vz", "wx", "wy", "wz"))
    w = [grid.state_names.index(f"body_w{c}") for c in "xyz"]
    errors = []
    for k, omega in enumerate(RATES):
        op, A = grid.sweep[k], grid[k].A
        assert op.spin["rate"] == omega and op.x[model.state_index("body_wz")] == omega
        nutation = abs((I3 - I1) / I1 * omega)
        found = np.max(np.linalg.eigvals(A[np.ix_(w, w)]).imag)
        errors.append(abs(found - nutation) / nutation)
        freqs = np.sort(np.abs(np.linalg.eigvals(A).imag))  # 0, 0, ν, ν, |Ω|, |Ω|
        expected = np.sort([0.0, 0.0, nutation, nutation, abs(omega), abs(omega)])
        np.testing.assert_allclose(freqs, expected, rtol=1e-9, atol=1e-12)
    assert max(errors) <= 1e-9, f"nutation frequency relative errors {errors}"


# ------------------------------------------------------------------------------ bad input
def test_unknown_rate_name_lists_the_parameters():
    with pytest.raises(tl.UnknownNameError, match=r"'spin_rat'.*\['spin_rate'\]"):
        tl.trim(_hub(), kind="spin", spin=_spin("spin_rat"))
    with pytest.raises(tl.UnknownNameError, match="'Omga'"):
        tl.trim_sweep(_axisymmetric(2.0, 3.5), {"Omega": [1.0, 2.0]}, kind="spin",
                      spin={"body": "body", "axis": AXIS, "rate": "Omga"}, progress=False)


@pytest.mark.parametrize(("name", "kind"), [("hub_wz", "a state"), ("panel1.q", "a state"),
                                            ("panel1_tau", "an input")])
def test_rate_naming_a_state_or_input_is_a_spec_error(name, kind):
    with pytest.raises(tl.TrimSpecError, match=rf"rate '{name}' is {kind}, not a parameter"):
        tl.trim(_hub(actuated=True), kind="spin", spin=_spin(name))


@pytest.mark.parametrize("rate", [np.nan, np.inf, -np.inf, "nan"])
def test_non_finite_rate_is_a_spec_error(rate):
    with pytest.raises(tl.TrimSpecError, match="spin: rate: must be finite"):
        tl.trim(_hub(), kind="spin", spin=_spin(rate))


@pytest.mark.parametrize("rate", [True, None, [2.0]])
def test_rate_that_is_neither_number_nor_name_is_a_spec_error(rate):
    with pytest.raises(tl.TrimSpecError, match="number"):
        tl.trim(_hub(), kind="spin", spin=_spin(rate))


def test_free_rate_parameter_is_a_spec_error():
    with pytest.raises(tl.TrimSpecError, match="rate parameter 'spin_rate' is free"):
        tl.trim(_hub(), ["panel1.q", "spin_rate"], kind="spin", spin=_spin("spin_rate"))


# ------------------------------------------------------------------------------ command line
FREE_BODY_TOML = """\
name = "axisymmetric"
gravity = [0.0, 0.0, 0.0]

[parameters]
Omega = { value = 1.0, unit = "rad/s", description = "spin rate" }

[[bodies]]
name = "body"
joint = { type = "free" }
mass = 1.0
inertia = [[2.0, 0, 0], [0, 2.0, 0], [0, 0, 3.5]]
"""


@pytest.fixture
def model_file(tmp_path: Path) -> str:
    path = tmp_path / "axisymmetric.toml"
    path.write_text(FREE_BODY_TOML)
    return str(path)


def test_cli_sweep_over_a_named_spin_rate(tmp_path, model_file):
    out = ok(run("sweep", model_file, "--spin", "body:0,0,1:Omega", "--param",
                 "Omega=0.5:4.5:5", "--out", "grid.json", cwd=tmp_path))
    assert "5/5 linear models" in out
    grid = load_linear(tmp_path / "grid.json")
    rates = np.linspace(0.5, 4.5, 5)
    np.testing.assert_array_equal(grid.axes["Omega"], rates)
    w = [grid.state_names.index(f"body_w{c}") for c in "xyz"]
    for k, omega in enumerate(rates):
        op = grid.sweep[k]
        assert op.spin["rate"] == omega and op.spin["rate_param"] == "Omega"
        nutation = 0.75 * omega  # (3.5 − 2)/2 Ω
        found = np.max(np.linalg.eigvals(grid[k].A[np.ix_(w, w)]).imag)
        assert abs(found - nutation) <= 1e-9 * nutation


def test_cli_trim_with_a_named_spin_rate(tmp_path, model_file):
    ok(run("trim", model_file, "--spin", "body:0,0,1:Omega", "--param", "Omega=2.5",
           "--out", "op.json", cwd=tmp_path))
    rec = json.loads((tmp_path / "op.json").read_text())
    assert rec["success"] and rec["spin"]["rate"] == 2.5 and rec["values"]["body_wz"] == 2.5


@pytest.mark.parametrize(("spin", "needle"), [
    ("body:0,0,1:Omga", "unknown parameter 'Omga'; parameters are: ['Omega']"),
    ("body:0,0,1:body_wz", "'body_wz' is a state, not a parameter"),
    ("body:0,0,1:nan", "--spin rate: expected a finite number"),
    ("body:0,0,1:2x", "--spin rate: expected a number [rad/s] or a parameter name"),
])
def test_cli_bad_spin_rate_is_one_error_line(tmp_path, model_file, spin, needle):
    result = run("sweep", model_file, "--spin", spin, "--param", "Omega=1:2:2", cwd=tmp_path)
    assert needle in one_error_line(result.returncode, result.stderr)
