"""``titop-lpv convert SOURCE TARGET``: model files converted, read back to the same model.

In process (``main([...])``): URDF → TOML/JSON (fixed and floating base), TOML → JSON → YAML
→ TOML, each written file loaded back and compared with the source model (description,
names, dynamics at random states). One run through ``python -m titop_lpv`` checks the
command is reachable from the shell. Bad input ends with status 2 and one error line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
BALLOON = ROOT / "examples" / "balloon.toml"
ARM_URDF = """<?xml version="1.0"?>
<robot name="two_link">
  <link name="base"><inertial><mass value="4"/>
    <inertia ixx="0.05" iyy="0.06" izz="0.07" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="upper"><inertial><origin xyz="0 0 0.2" rpy="0 0.3 0"/><mass value="2"/>
    <inertia ixx="0.03" iyy="0.03" izz="0.004" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0 0 0.15"/><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.002" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool0"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1" rpy="0 0 0.5"/><axis xyz="0 1 0"/><dynamics damping="0.2"/>
    <limit effort="10" velocity="1" lower="-2" upper="2"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 0.4"/><axis xyz="0 1 0"/></joint>
  <joint name="tool_joint" type="fixed"><parent link="lower"/><child link="tool0"/>
    <origin xyz="0 0 0.3"/></joint>
</robot>
"""


def same_dynamics(a: tl.Model, b: tl.Model) -> None:
    assert a == b and a.state_names == b.state_names and a.input_names == b.input_names
    rng = np.random.default_rng(0)
    for _ in range(3):
        x, u = rng.normal(size=a.n_states), rng.normal(size=a.n_inputs)
        np.testing.assert_array_equal(a.dynamics(0.0, x, u), b.dynamics(0.0, x, u))


@pytest.fixture
def urdf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "two_link.urdf"
    path.write_text(ARM_URDF, encoding="utf-8")
    return path


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("suffix", [".toml", ".json", ".yaml"])
def test_urdf_to_model_file(urdf: Path, suffix: str, floating: bool, capsys) -> None:
    argv = ["convert", str(urdf), f"two_link{suffix}"] + (["--floating"] if floating else [])
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "model 'two_link'" in out and f"wrote two_link{suffix}" in out
    back = tl.load_model(urdf.parent / f"two_link{suffix}")
    same_dynamics(tl.load_model(urdf, floating=floating), back)
    assert back.floating_base is floating
    assert back.input_names == ("upper_tau", "lower_tau")
    assert "tool0" in back.to_dict()["bodies"][-1]["ports"]


@pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")
def test_chain_of_conversions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    src = str(BALLOON)
    for target in ("b.json", "b.yaml", "b.yml", "b.toml"):
        assert main(["convert", src, target]) == 0
        src = target
    capsys.readouterr()
    same_dynamics(tl.load_model(BALLOON), tl.load_model(tmp_path / "b.toml"))


def test_help_names_the_command(capsys) -> None:
    assert main(["convert", "--help"]) == 0
    out = capsys.readouterr().out
    assert "\nexample:\n  titop-lpv convert robot.urdf robot.toml" in out
    assert "--floating" in out and "--mimic" in out
    assert main(["--help"]) == 0
    assert "convert" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["convert", "missing.urdf", "m.toml"], "missing.urdf: cannot be read"),
    (["convert", "two_link.urdf", "m.txt"], "TARGET m.txt: unknown file type '.txt'"),
    (["convert", "two_link.urdf", "nodir/m.toml"], "directory 'nodir' does not exist"),
    (["convert", str(BALLOON), "m.toml", "--floating"], "floating applies to URDF files only"),
    (["convert", "two_link.urdf", "m.toml", "--mimic", "copy"], "invalid choice: 'copy'"),
    (["convert", "two_link.urdf"], "the following arguments are required: TARGET"),
    (["convert", "cycle.urdf", "m.toml"], "cycle"),
])
def test_bad_input(urdf: Path, args: list[str], message: str, capsys) -> None:
    (urdf.parent / "cycle.urdf").write_text(
        '<robot name="c"><link name="a"/><link name="b"/>'
        '<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>'
        '<joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint></robot>')
    assert main(args) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("titop-lpv: error: "), err
    assert message in err[0], err[0]
    assert not (urdf.parent / "m.toml").exists()


def test_from_the_shell(urdf: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TITOP_LPV_DEBUG"}
    result = subprocess.run([sys.executable, "-m", "titop_lpv", "convert", str(urdf),
                             "two_link.json"], cwd=urdf.parent, env=env, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "wrote two_link.json (JSON)" in result.stdout
    same_dynamics(tl.load_model(urdf), tl.load_model(urdf.parent / "two_link.json"))
