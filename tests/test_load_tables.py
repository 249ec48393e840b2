"""The table-shaped loading of large models: shared tuples, slot columns, point tables, the
lazily built unit table, and the screen's lookups by value.

What is checked against what
----------------------------
* :func:`~titop_lpv.model.records.freeze_column` gives the values of :func:`freeze` item by
  item (equality and types), one tuple object per distinct vector or matrix of floats, and
  never merges a tuple of ints or bools with an equal tuple of floats.
* :func:`~titop_lpv.model.description.bodies_from_tables` reads the tables in chunks:
  the records equal those of each table read alone, and equal vectors and matrices are one
  object across the chunks.
* :class:`~titop_lpv.model.layout.Slots`: equal vectors share their slots, whether the
  tuples are one object or equal copies; parameter names take parameter slots.
* The compiled model's points (:class:`~titop_lpv.multibody.tables.PointTable`) equal the
  point vectors of the description, resolved from the slots, for every body and port; the
  unit table built on first use equals the one a pickled copy carries.
* A bool in a matrix equal (by value) to a matrix already checked is still reported, naming
  the body: the lookups of clean matrices are by value, and ``True == 1``.
"""

from __future__ import annotations

import copy
import importlib.util
import pickle
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.model.layout import Slots
from titop_lpv.model.records import freeze, freeze_column
from titop_lpv.multibody.tables import PointTable

_SPEC = importlib.util.spec_from_file_location(
    "branch_system", Path(__file__).parents[1] / "benchmarks" / "branch_system.py")
branch = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(branch)


def test_freeze_column_shares_equal_float_tuples_only():
    vecs = [[0.0, 0.0, -0.5], [0.0, 0.0, -0.5], [1.0, 2.0, 3.0]]
    out = freeze_column(vecs)
    assert out == [freeze(v) for v in vecs] and out[0] is out[1] and out[0] is not out[2]
    mats = [[[1.0, 0.0], [0.0, 2.0]]] * 3 + [[[1.0, 0.0], [0.0, 3.0]]]
    out = freeze_column(copy.deepcopy(mats))
    assert out == [freeze(m) for m in mats] and out[0] is out[2]
    assert out[3][0] is out[0][0]  # equal rows of different matrices: one tuple
    three = freeze_column([[[1.0, 0, 0], [0, 1.0, 0]], [[1.0], [2.0], [3.0]]])
    assert three == [((1.0, 0, 0), (0, 1.0, 0)), ((1.0,), (2.0,), (3.0,))]
    mixed = freeze_column([[1, 0, 0], [1.0, 0.0, 0.0], [True, 0, 0]])
    assert [type(v[0]) for v in mixed] == [int, float, bool]  # equal, but kept apart
    assert freeze_column([[1.0, None]]) is None


def test_bodies_read_in_chunks_equal_the_bodies_read_one_by_one(monkeypatch):
    """The bulk reading in chunks (here of 7 tables) gives the records of reading each table
    alone, and equal vectors and matrices are one object across the chunks."""
    from titop_lpv.model import description

    data = branch.branch_system(40, spin=0.01)  # distinct w0 per body, shared inertias
    data["bodies"][3]["ports"]["extra"] = [0.1, 0.2, 0.3]
    monkeypatch.setattr(description, "CHUNK", 7)
    chunked = description.bodies_from_tables(copy.deepcopy(data["bodies"]))
    alone = [tl.System.from_dict({**data, "bodies": [t]}).bodies[0]
             for t in copy.deepcopy(data["bodies"])]
    assert chunked == alone
    assert [b.joint.w0 for b in chunked] == [tuple(t["joint"]["w0"]) for t in data["bodies"]]
    rods = [b for b in chunked if b.name.startswith("out")]
    assert len(rods) > 7 and all(b.inertia is rods[0].inertia and b.com is rods[0].com
                                 and b.ports["tip"] is rods[0].ports["tip"] for b in rods)
    monkeypatch.setattr(description, "CHUNK", 10**6)  # one chunk: the same records
    assert description.bodies_from_tables(copy.deepcopy(data["bodies"])) == chunked


def test_slots_share_equal_vectors_and_name_parameters():
    slots = Slots(("m",))
    a, b = (0.0, 0.0, -0.5), tuple([0.0, 0.0, -0.5])  # equal, two objects
    rows = slots.rows([a, b, a, ("m", 1.0, 2.0)], 3)
    assert rows.shape == (4, 3) and (rows[0] == rows[1]).all() and (rows[0] == rows[2]).all()
    assert len(set(rows.ravel().tolist())) == 6  # two distinct vectors of three slots
    assert slots.param[int(rows[3, 0])] == 0 and slots.const[int(rows[3, 1])] == 1.0
    assert slots.vec([0.0, 0.0, -0.5]) == rows[0].tolist()
    mats = slots.matrices([((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))] * 2)
    assert mats.shape == (2, 3, 3) and (mats[0] == mats[1]).all()
    assert [slots.const[int(i)] for i in mats[0].ravel()] == np.eye(3).ravel().tolist()
    assert slots.add("m") == slots.add("m") != slots.add(0.0)


@pytest.fixture(scope="module")
def branch_model():
    return tl.load_model(branch.branch_system(40, spin=0.1))


def test_point_table_gives_every_point_of_the_description(branch_model):
    model = branch_model
    assert isinstance(model.points, PointTable)
    data = branch.branch_system(40, spin=0.1)
    vals = model.slot_values(None)
    expected = {}
    for body in data["bodies"]:
        expected[(body["name"], "origin")] = [0.0, 0.0, 0.0]
        expected[(body["name"], "com")] = body["com"]
        for port, vec in body["ports"].items():
            expected[(body["name"], port)] = vec
    assert set(model.points) == set(expected) and len(model.points) == len(expected)
    for key, vec in expected.items():
        np.testing.assert_array_equal(vals[model.points[key]], vec)
        np.testing.assert_array_equal(model.point_slots(*key), model.points[key])
    assert ("out3", "nowhere") not in model.points and ("ghost", "com") not in model.points
    with pytest.raises(tl.UnknownNameError, match=r"has no point 'nowhere'; points: "
                                                  r"\['origin', 'com', 'tip'\]"):
        model.point_slots("out3", "nowhere")
    # the joint offsets are the parents' ports
    np.testing.assert_array_equal(vals[model.slots.offset[model.body_index("out1")]],
                                  [0.0, 0.0, -1.0])


def test_unit_table_built_on_first_use_and_pickled_built(branch_model):
    model = tl.load_model(branch.branch_system(12))
    assert "_unit_table" not in model.__dict__
    copy_ = pickle.loads(pickle.dumps(model))  # pickling builds it
    units = model.units()
    assert units == copy_.units() and units["out0_qw"] == "" and units["out0_wx"] == "rad/s"
    assert set(units) == {*model.state_names, *model.input_names, *model.output_names}
    assert units["multi_phi"] == "rad"
    assert model.units() is not model.unit_table  # a copy


@pytest.mark.parametrize("where", ["screened", "checked"])
def test_a_bool_in_a_matrix_equal_to_a_clean_one_is_reported(where):
    """``((True, 0, 0), ...)`` equals ``((1, 0, 0), ...)``: the lookup of clean matrices by
    value must not pass it, whether the body is screened or checked for another fault."""
    data = branch.branch_system(30)
    for body in data["bodies"]:
        body["inertia"] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    bad = data["bodies"][17]
    bad["inertia"] = [[True, 0, 0], [0, 1, 0], [0, 0, 1]]
    if where == "checked":
        bad["mass"] = -1.0
    with pytest.raises(tl.ModelError) as err:
        tl.load_model(data)
    assert any("'out17'" in line and "inertia[0][0]" in line and "True" in line
               for line in err.value.problems), err.value.problems
    data["bodies"][17]["inertia"] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    data["bodies"][17].pop("mass")
    data["bodies"][17]["mass"] = 1.0
    data["bodies"][5]["joint"]["rotation"] = [[True, 0, 0], [0, 1, 0], [0, 0, 1]]
    data["bodies"][6]["joint"]["rotation"] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    data["bodies"][7]["joint"]["rotation"] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    data["bodies"][8]["joint"]["rotation"] = [[True, 0, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(tl.ModelError) as err:
        tl.load_model(data)
    named = sorted({line.split("'")[1] for line in err.value.problems})
    assert named == ["out5", "out8"], err.value.problems
