"""Reusing an earlier run's distances (issue 30 item 5): ``relatedness=`` in the API, ``--from DIR`` on the CLI.

Tasks: three ASIA data sets (two from ASIA, one from a variant that lost
edges), 300 rows each, few restarts. Truths used: the distances of the run
being reused (read from its own files), edit distances recomputed with
:func:`mtbn.graph.edit_distance` from the edges a ``learn`` run wrote, and
the library raising if it tries to learn the relatedness structures again.
"""

import json
import os

import numpy as np
import pandas as pd
import pytest

from mtbn.benchmarks import make_perturbed_tasks
from mtbn.cli import main
from mtbn.data import DiscreteData
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import edit_distance
from mtbn.networks import sample
from mtbn.relatedness import RelatednessResult, cluster_tasks, direct_relatedness, indirect_relatedness, select_tasks
from tests.test_cli import _assert_one_line_error, _read_edges_csv, _run_cli

NAMES = ("a0", "a1", "v0")


@pytest.fixture(scope="module")
def tasks(asia):
    (variant,), _ = make_perturbed_tasks(asia, n_tasks=1, p_del=0.5, random_state=7)
    out = []
    for seed, (net, name) in enumerate(zip((asia, asia, variant), NAMES)):
        d = sample(net, 300, random_state=seed)
        out.append(DiscreteData(d.codes, d.names, d.states, name))
    return out


@pytest.fixture(scope="module")
def rel(tasks):
    return direct_relatedness(tasks, penalty=0.9, n_restarts=1, noise_floor=2)


@pytest.fixture(scope="module")
def csvs(tmp_path_factory, tasks):
    folder = tmp_path_factory.mktemp("from_tasks")
    paths = []
    for d in tasks:
        path = folder / f"{d.name}.csv"
        d.to_dataframe().to_csv(path, index=False)
        paths.append(str(path))
    return paths


def _no_relearning(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the relatedness structures were learned again")

    import importlib

    for module in ("mtbn.relatedness.selection", "mtbn.relatedness.clustering"):
        monkeypatch.setattr(importlib.import_module(module), "direct_relatedness", refuse)
    monkeypatch.setattr(importlib.import_module("mtbn.relatedness.selection"), "indirect_relatedness", refuse)


def test_relatedness_record_round_trips_exactly(rel):
    record = json.loads(json.dumps(rel.to_dict()))  # through JSON text, as relatedness.json
    back = RelatednessResult.from_dict(record)
    assert back.measure == "direct" and back.names == rel.names
    assert back.distance.equals(rel.distance)
    assert back.graphs == rel.graphs
    assert back.floor == rel.floor and np.array_equal(back.null_max, rel.null_max)
    assert back.within_noise().equals(rel.within_noise())


def test_indirect_record_keeps_the_log_likelihoods(tasks):
    ind = indirect_relatedness(tasks, n_folds=2, n_restarts=0)
    back = RelatednessResult.from_dict(json.loads(json.dumps(ind.to_dict())))
    assert back.log_likelihood.equals(ind.log_likelihood) and back.distance.equals(ind.distance)


def test_from_structures_counts_edits(rel):
    d = RelatednessResult.from_structures(rel.graphs)
    for a in NAMES:
        for b in NAMES:
            assert d.distance.loc[a, b] == edit_distance(rel.graphs[a], rel.graphs[b])


def test_select_uses_the_given_distances_without_relearning(monkeypatch, tasks, rel):
    _no_relearning(monkeypatch)
    res = select_tasks(tasks, "a0", n="gap", n_restarts=0, relatedness=rel)
    assert res.relatedness is rel
    assert res.distances == {x: float(rel.distance.loc["a0", x]) for x in ("a1", "v0")}
    assert res.order == sorted(("a1", "v0"), key=lambda x: (rel.distance.loc["a0", x], ("a1", "v0").index(x)))


def test_cluster_uses_the_given_distances_without_relearning(monkeypatch, tasks, rel):
    _no_relearning(monkeypatch)
    res = cluster_tasks(tasks, n_clusters=2, n_restarts=0, relatedness=rel)
    assert res.relatedness is rel
    # the two closest tasks share a cluster
    d = rel.distance.values.copy()
    np.fill_diagonal(d, np.inf)
    i, j = np.unravel_index(np.argmin(d), d.shape)
    assert res.labels[NAMES[i]] == res.labels[NAMES[j]]


def test_given_distances_must_match_the_tasks_and_the_measure(tasks, rel):
    with pytest.raises(InvalidParameterError, match="not the tasks given"):
        select_tasks(tasks[:2], "a0", n=0, relatedness=rel)
    with pytest.raises(InvalidParameterError, match="asks for the indirect measure"):
        select_tasks(tasks, "a0", n=0, measure="indirect", relatedness=rel)
    with pytest.raises(InvalidParameterError, match="must be a RelatednessResult"):
        cluster_tasks(tasks, n_clusters=1, relatedness=rel.distance)
    indirect = RelatednessResult("indirect", rel.names, rel.distance, rel.graphs)
    with pytest.raises(InvalidParameterError, match="cluster_tasks asks for the direct measure"):
        cluster_tasks(tasks, n_clusters=1, relatedness=indirect)


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rel_dir(tmp_path_factory, csvs):
    out = tmp_path_factory.mktemp("from_rel") / "R"
    assert main(["relatedness", *csvs, "--measure", "direct", "--noise-floor", "2", "--restarts", "1",
                 "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def learn_dir(tmp_path_factory, csvs):
    out = tmp_path_factory.mktemp("from_learn") / "L"
    assert main(["learn", *csvs, "--penalty", "0.9", "--restarts", "0", "--out", str(out)]) == 0
    return out


def test_select_and_cluster_from_a_relatedness_run_reuse_its_distances(monkeypatch, tmp_path, csvs, rel_dir,
                                                                      capsys):
    distance = pd.read_csv(rel_dir / "distance.csv", index_col=0)
    _no_relearning(monkeypatch)
    capsys.readouterr()
    assert main(["select", *csvs, "--principal", "v0", "--from", str(rel_dir), "--restarts", "0",
                 "--out", str(tmp_path / "S")]) == 0
    assert f"from {rel_dir} (mtbn relatedness), not recomputed" in capsys.readouterr().out
    selected = json.loads((tmp_path / "S" / "selected.json").read_text())
    assert selected["distances"] == {x: distance.loc["v0", x] for x in ("a0", "a1")}
    record = json.loads((rel_dir / "relatedness.json").read_text())
    assert selected["noise_floor"] == record["floor"]
    assert main(["cluster", *csvs, "--from", str(rel_dir), "--restarts", "0", "--out", str(tmp_path / "C")]) == 0
    assert pd.read_csv(tmp_path / "C" / "distance.csv", index_col=0).equals(distance)


def test_relatedness_from_a_learn_run_is_the_edit_distance_of_its_structures(tmp_path, csvs, learn_dir):
    out = tmp_path / "RL"
    assert main(["relatedness", *csvs, "--from", str(learn_dir), "--out", str(out)]) == 0
    distance = pd.read_csv(out / "distance.csv", index_col=0)
    edges = {n: _read_edges_csv(learn_dir / f"{n}.edges.csv") for n in NAMES}
    for a in NAMES:
        for b in NAMES:
            assert distance.loc[a, b] == edit_distance(edges[a], edges[b])


def test_from_refuses_other_tasks_other_rows_and_other_folders(tmp_path, csvs, rel_dir):
    line = _assert_one_line_error(_run_cli("select", *csvs[:2], "--principal", "a0", "--from", str(rel_dir),
                                           "--out", str(tmp_path / "x")))
    assert "was computed on the tasks a0, a1, v0" in line
    short = tmp_path / "short"
    short.mkdir()
    for path in csvs:
        pd.read_csv(path).head(100).to_csv(short / os.path.basename(path), index=False)
    line = _assert_one_line_error(_run_cli("cluster", *sorted(str(p) for p in short.iterdir()), "--from",
                                           str(rel_dir), "--out", str(tmp_path / "y")))
    assert "had 300 rows there and has 100 now" in line
    line = _assert_one_line_error(_run_cli("select", *csvs, "--principal", "a0", "--from", str(tmp_path),
                                           "--out", str(tmp_path / "z")))
    assert "is not the output of 'mtbn learn' or 'mtbn relatedness'" in line
    line = _assert_one_line_error(_run_cli("relatedness", *csvs, "--out", str(tmp_path / "w")))
    assert "--measure is required" in line
    assert not any((tmp_path / x).exists() for x in "xyzw")


def test_relatedness_select_and_cluster_write_the_same_distances(tmp_path, csvs, rel_dir):
    """Issue 31 item 4: the same files, measure, seed and options give byte-identical distance files."""
    common = ["--restarts", "1", "--noise-floor", "2"]
    assert main(["select", *csvs, "--principal", "a0", *common, "--out", str(tmp_path / "S")]) == 0
    assert main(["cluster", *csvs, *common, "--out", str(tmp_path / "C")]) == 0
    reference = (rel_dir / "distance.csv").read_bytes()  # mtbn relatedness --measure direct with the same options
    assert (tmp_path / "S" / "distance.csv").read_bytes() == reference
    assert (tmp_path / "C" / "distance.csv").read_bytes() == reference
    floor = json.loads((rel_dir / "relatedness.json").read_text())["floor"]
    assert json.loads((tmp_path / "S" / "selected.json").read_text())["noise_floor"] == floor
    assert json.loads((tmp_path / "C" / "clusters.json").read_text())["noise_floor"] == floor
