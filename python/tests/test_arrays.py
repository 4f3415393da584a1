"""Instances from arrays: checked like files, arrays round-trip."""

import json
import numpy as np
import pytest

import serverpick as sp

ACCESS = np.array([[10.0, 30.0, 50.0], [25.0, 5.0, 40.0], [45.0, 35.0, 8.0], [12.0, 28.0, np.nan]])
LINKS = np.array([[0.0, 20.0, np.nan], [20.0, 0.0, 15.0], [np.nan, 15.0, 0.0]])


def test_spd_arrays_round_trip(tmp_path):
    inst = sp.spd_instance(ACCESS, LINKS, mu=120.0, model="p2p", name="mine")
    assert (inst.name, inst.problem, inst.family, inst.model) == ("mine", "spd", "spd", "p2p")
    np.testing.assert_array_equal(inst.access, ACCESS)  # NaN where unreachable
    np.testing.assert_array_equal(inst.server_latency, LINKS)
    assert inst.distance[0, 2] == 35.0  # shortest path over server 1
    assert inst.mu == 120.0
    assert set(inst.arrays()) == {"access", "server_latency", "distance", "mu"}
    again = sp.from_json(inst.to_json())
    np.testing.assert_array_equal(again.access, ACCESS)
    path = tmp_path / "mine.json"
    inst.write(path)
    back = sp.read(path)
    np.testing.assert_array_equal(back.server_latency, LINKS)
    assert json.loads(back.to_json()) == json.loads(inst.to_json())
    assert inst.to_dict() == json.loads(inst.to_json(indent=2))


def test_cma_arrays_round_trip(tmp_path):
    delay = np.arange(12, dtype=float).reshape(4, 3) + 1
    inst = sp.cma_instance(delay, np.array([2, 1, 1]), name="grid")
    np.testing.assert_array_equal(inst.delay, delay)
    np.testing.assert_array_equal(inst.capacity, [2, 1, 1])
    inst.write(tmp_path / "grid.json")
    np.testing.assert_array_equal(sp.read(tmp_path / "grid.json").delay, delay)
    # lists work as well as arrays
    assert sp.cma_instance(delay.tolist(), [2, 1, 1]).to_dict()["delay"] == delay.tolist()


def test_solve_and_evaluate_an_assignment():
    delay = np.array([[10.0, 40.0], [35.0, 12.0], [20.0, 25.0]])
    inst = sp.cma_instance(delay, [2, 1])
    r = sp.solve(inst, "exact")
    assert (r.status, r.objective) == ("optimal", 42.0)
    assert r.assignment.dtype == np.int64
    assert r.assignment.tolist() == [0, 1, 0]
    ev = sp.evaluate(inst, r.assignment)
    assert ev.feasible and ev.objective == 42.0 and ev.reasons == []
    bad = sp.evaluate(inst, [1, 1, 0])
    assert not bad.feasible
    assert bad.reasons == ["mirror 1 has 2 clients, capacity 1"]
    assert bad.metrics["loads"] == [1, 2]


def test_a_cs_assignment_needs_its_root():
    inst = sp.spd_instance(ACCESS[:, :2], LINKS[:2, :2], mu=200.0, model="cs")
    with pytest.raises(sp.UsageError, match="root"):
        sp.evaluate(inst, [0, 0, 0, 0])
    ev = sp.evaluate(inst, [0, 0, 0, 0], root=0)
    assert ev.feasible, ev.reasons
    r = sp.solve(inst, "exact")
    assert sp.evaluate(inst, r.assignment, root=r.solution["root"]).objective == r.objective


def test_arrays_are_checked_like_files():
    with pytest.raises(sp.InputError) as e:
        sp.cma_instance([[1.0, 2.0]], [1, 1, 1])
    assert (e.value.file, e.value.field) == ("<arrays>", "capacity")
    with pytest.raises(sp.InputError) as e:
        sp.cma_instance([[1.0, -2.0]], [1, 1])
    assert e.value.file == "<arrays>" and e.value.field.startswith("delay[0]")
    with pytest.raises(sp.InputError) as e:
        sp.cma_instance([[1.0, 2.0]], [1.5, 1])
    assert e.value.field.startswith("capacity")
    with pytest.raises(sp.InputError) as e:
        sp.spd_instance(ACCESS, LINKS, mu=100.0, model="mesh")
    assert e.value.file == "<arrays>" and e.value.field == "model"
    with pytest.raises(sp.InputError) as e:
        sp.spd_instance(ACCESS[:, :2], LINKS, mu=100.0)
    assert e.value.field.startswith("access")
    with pytest.raises(sp.UsageError, match="2-D"):
        sp.cma_instance([1.0, 2.0], [1, 1])
    with pytest.raises(sp.UsageError, match="numeric"):
        sp.cma_instance([["a", "b"]], [1, 1])


def test_from_json_errors_name_the_field():
    with pytest.raises(sp.InputError) as e:
        sp.from_json({"problem": "cma", "version": 1, "mirrors": 2, "capacity": [1, 1], "delay": [[1, 2, 3]]})
    assert e.value.file == "<json>" and e.value.field == "delay[0]"
    with pytest.raises(sp.InputError) as e:
        sp.from_json('{"problem": "chess"}')
    assert e.value.field == "problem"
    with pytest.raises(sp.InputError) as e:
        sp.from_json("{not json")
    assert e.value.file == "<json>"


def test_a_npy_side_file_is_read(tmp_path):
    delay = np.arange(6, dtype=np.float32).reshape(3, 2) + 0.5
    np.save(tmp_path / "d.npy", delay)
    (tmp_path / "i.json").write_text(json.dumps(
        {"problem": "cma", "version": 1, "mirrors": 2, "capacity": [2, 2], "delay": {"npy": "d.npy"}}))
    inst = sp.read(tmp_path / "i.json")
    np.testing.assert_array_equal(inst.delay, delay.astype(np.float64))
    np.save(tmp_path / "d.npy", np.asfortranarray(np.ones((3, 2))))  # saved in Fortran order
    with pytest.raises(sp.InputError, match="Fortran order"):
        sp.read(tmp_path / "i.json")


def test_cma_player_counts_split_a_region():
    delay = np.array([[1.0, 10.0], [8.0, 2.0]])
    inst = sp.cma_instance(delay, [3, 5], name="regions", players=np.array([5, 2]))
    np.testing.assert_array_equal(inst.players, [5, 2])
    r = sp.solve(inst, "exact-flow")
    assert (r.status, r.objective) == ("optimal", 27.0)
    assert r.solution == {"split": [[[0, 3], [1, 2]], [[1, 2]]]}
    assert sp.evaluate(inst, r.solution).feasible
    with pytest.raises(sp.InputError) as e:
        sp.cma_instance(delay, [3, 5], players=[5, 1.5])
    assert "players[1]" in str(e.value)


def test_arrays_larger_than_an_instance_file_are_refused_before_copying():
    # A broadcast view declares 10^10 numbers and holds one: it is refused
    # from its shape, before anything is allocated (it used to abort the
    # interpreter on an 80 GB allocation).
    huge = np.broadcast_to(np.float64(1.0), (10**6, 10**4))
    with pytest.raises(sp.InputError) as e:
        sp.cma_instance(huge, np.ones(10**4))
    assert (e.value.file, e.value.field) == ("<arrays>", "delay")
    assert "1000000 × 10000 values" in str(e.value)
    assert "4294967296" in str(e.value)  # the limit of an instance file
    with pytest.raises(sp.InputError) as e:
        sp.cma_instance([[1.0]], np.broadcast_to(np.float64(1.0), (10**10,)))
    assert e.value.field == "capacity"
    links = np.broadcast_to(np.float64(1.0), (10**4, 10**4))
    with pytest.raises(sp.InputError) as e:
        sp.spd_instance(huge, links, mu=10.0, model="p2p")
    assert e.value.field == "access" and "1000000 × 10000 values" in str(e.value)
    # A broadcast view of a size a file may have is read in place.
    inst = sp.cma_instance(np.broadcast_to(np.array([1.0, 2.0]), (3, 2)), [2, 2])
    np.testing.assert_array_equal(inst.delay, [[1.0, 2.0]] * 3)


def test_what_json_cannot_hold_is_named():
    d = np.array([[1.0, 10.0], [8.0, 2.0]])
    with pytest.raises(sp.InputError) as e:
        sp.cma_instance(np.array([[np.inf, 10.0], [8.0, 2.0]]), [3, 5])
    assert e.value.field == "delay[0][0]" and "inf" in str(e.value)
    with pytest.raises(sp.InputError) as e:
        sp.cma_instance(np.array([[1.0, 10.0], [np.nan, 2.0]]), [3, 5])
    assert e.value.field == "delay[1][0]" and "NaN" in str(e.value)
    with pytest.raises(sp.InputError) as e:
        sp.cma_instance(d, [3, np.inf])
    assert e.value.field == "capacity[1]" and "inf" in str(e.value)
    with pytest.raises(sp.InputError) as e:
        sp.spd_instance(d, np.array([[0.0, 1.0], [1.0, 0.0]]), mu=float("nan"))
    assert e.value.field == "mu" and "NaN" in str(e.value)


def test_optional_arrays_are_none_when_absent(instances_dir, tmp_path):
    inst = sp.read(instances_dir / "cma-small.json")
    assert inst.open_cost is None and inst.players is None
    assert "open_cost" not in inst.arrays()
    with pytest.raises(AttributeError):
        inst.no_such_field
    with pytest.raises(AttributeError):
        sp.read(instances_dir / "spd-fig1-cs.json").open_cost  # not an SPD array
    data = inst.to_dict()
    data["open_cost"] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(sp.from_json(data).open_cost, [1.0, 2.0, 3.0])
