"""Background knowledge in the ecosystem's forms (issue 14): graphs, pgmpy ExpertKnowledge, tiers, CLI files.

Truths: constraint matrices built by hand from the definitions (a tier
forbids edges from later into earlier tiers, as bnlearn's tiers2blacklist);
learned structures that must obey every constraint.
"""

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from mtbn.cli import main
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG
from mtbn.estimators import MultitaskStructureLearner, StructureLearner
from mtbn.learn import constraint_matrices, learn_structure
from mtbn.networks import load_network, sample

from helpers import write_task_csvs

NAMES = ("a", "b", "c", "d")


def test_tiers_forbid_edges_into_earlier_tiers():
    req, forb = constraint_matrices(NAMES, tiers=[["a"], ["b", "c"]])
    expected = np.zeros((4, 4), dtype=bool)
    for u, v in [("b", "a"), ("c", "a")]:  # later -> earlier; d is untiered, b <-> c within a tier
        expected[NAMES.index(u), NAMES.index(v)] = True
    assert not req.any() and np.array_equal(forb, expected)
    with pytest.raises(InvalidParameterError, match="tiers: unknown variable 'z'"):
        constraint_matrices(NAMES, tiers=[["a"], ["z"]])
    with pytest.raises(InvalidParameterError, match="tiers: variable 'a' is in two tiers"):
        constraint_matrices(NAMES, tiers=[["a"], ["a", "b"]])


def test_graphs_and_expert_knowledge_give_the_same_matrices_as_edge_lists():
    from pgmpy.estimators import ExpertKnowledge

    edges = [("a", "b"), ("c", "d")]
    by_list = constraint_matrices(NAMES, required_edges=edges, forbidden_edges=[("d", "a")])
    by_graph = constraint_matrices(NAMES, required_edges=nx.DiGraph(edges),
                                   forbidden_edges=DAG.from_edges(NAMES, [("d", "a")]))
    k = ExpertKnowledge(required_edges=edges, forbidden_edges=[("d", "a")], temporal_order=[["a"], ["b", "c"]])
    by_knowledge = constraint_matrices(NAMES, knowledge=k)
    tiers = constraint_matrices(NAMES, tiers=[["a"], ["b", "c"]])[1]
    for a, b in zip(by_list, by_graph):
        assert np.array_equal(a, b)
    assert np.array_equal(by_knowledge[0], by_list[0])
    assert np.array_equal(by_knowledge[1], by_list[1] | tiers)
    with pytest.raises(InvalidParameterError, match="pgmpy ExpertKnowledge"):
        constraint_matrices(NAMES, knowledge={"required": edges})


def test_learned_structures_obey_tiers_and_knowledge():
    from pgmpy.estimators import ExpertKnowledge

    asia = load_network("asia")
    data = sample(asia, 2000, random_state=0)
    # put the symptoms first: the true edges into them become forbidden
    tiers = [["xray", "dysp"], ["either", "tub", "lung", "bronc"], ["asia", "smoke"]]
    g = learn_structure(data, tiers=tiers, n_restarts=2).graph
    level = {v: t for t, group in enumerate(tiers) for v in group}
    assert g.n_edges > 0 and all(level[u] <= level[v] for u, v in g.edges(names=True))
    k = ExpertKnowledge(required_edges=[("asia", "dysp")], forbidden_edges=[("smoke", "lung")])
    m = StructureLearner(knowledge=k, n_restarts=1).fit(data.to_dataframe())
    assert ("asia", "dysp") in m.dag_.edges(names=True) and ("smoke", "lung") not in m.dag_.edges(names=True)
    tasks = {f"t{t}": sample(asia, 400, random_state=t).to_dataframe() for t in range(2)}
    mt = MultitaskStructureLearner(penalty=0.9, tiers=tiers, n_restarts=1, n_joint_restarts=0).fit(tasks)
    for dag in mt.dags_.values():
        assert all(level[u] <= level[v] for u, v in dag.edges(names=True))


def test_cli_reads_require_forbid_and_tiers_files(tmp_path, capsys):
    paths = write_task_csvs(tmp_path, rows=(400, 400))
    pd.DataFrame({"source": ["asia"], "target": ["dysp"]}).to_csv(tmp_path / "req.csv", index=False)
    pd.DataFrame({"source": ["smoke"], "target": ["lung"]}).to_csv(tmp_path / "forb.csv", index=False)
    pd.DataFrame({"variable": ["xray", "dysp", "lung"], "tier": [1, 1, 2]}).to_csv(tmp_path / "tiers.csv",
                                                                                  index=False)
    out = tmp_path / "out"
    assert main(["learn", "--penalty", "0.9", "--restarts", "1", "--joint-restarts", "0",
                 "--require", str(tmp_path / "req.csv"), "--forbid", str(tmp_path / "forb.csv"),
                 "--tiers", str(tmp_path / "tiers.csv"), "--out", str(out), *paths]) == 0
    for t in range(2):
        edges = set(map(tuple, pd.read_csv(out / f"t{t}.edges.csv")[["source", "target"]].values))
        assert ("asia", "dysp") in edges and ("smoke", "lung") not in edges
        assert not edges & {("lung", "xray"), ("lung", "dysp")}
    capsys.readouterr()
    pd.DataFrame({"variable": ["nope"], "tier": [1]}).to_csv(tmp_path / "bad.csv", index=False)
    assert main(["learn", "--tiers", str(tmp_path / "bad.csv"), "--out", str(tmp_path / "o2"), *paths]) == 2
    err = capsys.readouterr().err
    assert "unknown variable 'nope'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("start", ["auto", "empty", "identical", "single-task"])
@pytest.mark.parametrize("penalty", [0.9, 1.0, "auto"])
def test_multitask_search_keeps_required_edges_from_every_start(start, penalty):
    # Regression: the empty start of the joint search lacked the required
    # edges, and its chain could win without them.
    from mtbn.learn import learn_structures

    asia = load_network("asia")
    tasks = {f"t{t}": sample(asia, 300, random_state=t).to_dataframe() for t in range(2)}
    kw = dict(cv=2, penalty_grid=(0.0, 0.9)) if penalty == "auto" else {}
    res = learn_structures(tasks, penalty=penalty, start=start, n_restarts=1, n_joint_restarts=2,
                           required_edges=[("asia", "dysp")], forbidden_edges=[("smoke", "lung")], **kw)
    for g in res.graphs:
        edges = set(g.edges(names=True))
        assert ("asia", "dysp") in edges and ("smoke", "lung") not in edges


def test_cli_task_column_splits_one_file(tmp_path, capsys):
    asia = load_network("asia")
    frames = []
    for t, site in enumerate(["north", "south"]):
        df = sample(asia, 300, random_state=t).to_dataframe()
        df.insert(0, "site", site)
        frames.append(df)
    path = tmp_path / "all.csv"
    pd.concat(frames).to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["learn", "--task-column", "site", "--penalty", "0.9", "--restarts", "1", "--joint-restarts", "0",
                 "--out", str(out), str(path)]) == 0
    assert (out / "north.edges.csv").exists() and (out / "south.edges.csv").exists()
    # the same as two files with those names
    for t, site in enumerate(["north", "south"]):
        frames[t].drop(columns=["site"]).to_csv(tmp_path / f"{site}.csv", index=False)
    out2 = tmp_path / "out2"
    assert main(["learn", "--penalty", "0.9", "--restarts", "1", "--joint-restarts", "0", "--out", str(out2),
                 str(tmp_path / "north.csv"), str(tmp_path / "south.csv")]) == 0
    for site in ("north", "south"):
        assert (out / f"{site}.edges.csv").read_text() == (out2 / f"{site}.edges.csv").read_text()
    capsys.readouterr()
    assert main(["learn", "--task-column", "site", "--out", str(tmp_path / "o3"), str(path), str(path)]) == 2
    assert "--task-column splits one CSV file" in capsys.readouterr().err


def test_expert_knowledge_search_space_is_honoured_and_unknown_fields_refused():
    # issue 34: StructureLearner(knowledge=ExpertKnowledge(search_space=[...])) returned edges outside it
    from pgmpy.estimators import ExpertKnowledge

    d = sample(load_network("asia"), 500, random_state=0).to_dataframe()
    free = set(StructureLearner(n_restarts=0).fit(d).graph_.edges())
    space = {("smoke", "lung"), ("smoke", "bronc"), ("lung", "either")}
    assert not free <= space  # the restriction has something to remove
    got = set(StructureLearner(n_restarts=0, knowledge=ExpertKnowledge(search_space=list(space))).fit(d).graph_.edges())
    assert got and got <= space
    # a required edge outside the search space is still required (pgmpy's fields combine)
    k = ExpertKnowledge(search_space=list(space), required_edges=[("asia", "tub")])
    assert ("asia", "tub") in StructureLearner(n_restarts=0, knowledge=k).fit(d).graph_.edges()
    k = ExpertKnowledge()
    k.future_field = [("a", "b")]  # a field a newer pgmpy might add: refused, never ignored
    with pytest.raises(InvalidParameterError, match=r"knowledge.future_field is not supported by mtbn"):
        StructureLearner(n_restarts=0, knowledge=k).fit(d)
    tasks = {"t0": d, "t1": sample(load_network("asia"), 500, random_state=1).to_dataframe()}
    with pytest.raises(InvalidParameterError, match=r"forbidden_edges must be one list .* keys 't0'"):
        MultitaskStructureLearner(penalty=0.5, n_restarts=0, forbidden_edges={"t0": [("asia", "tub")]}).fit(tasks)


def test_cli_reads_the_knowledge_files_for_continuous_tasks_too(tmp_path, capsys):
    # They were refused ("--require is not available for continuous tasks"): Gaussian networks now take them.
    rng = np.random.default_rng(8)
    paths = []
    for t, b in enumerate((1.0, 0.7)):
        x = rng.normal(size=200)
        y = b * x + rng.normal(size=200)
        frame = pd.DataFrame({"x": x, "y": y, "z": y + x + rng.normal(size=200)})
        frame.to_csv(tmp_path / f"c{t}.csv", index=False)
        paths.append(str(tmp_path / f"c{t}.csv"))
    pd.DataFrame({"source": ["z"], "target": ["x"]}).to_csv(tmp_path / "req.csv", index=False)
    pd.DataFrame({"source": ["y", "z"], "target": ["z", "y"]}).to_csv(tmp_path / "forb.csv", index=False)
    pd.DataFrame({"variable": ["z", "x"], "tier": [1, 2]}).to_csv(tmp_path / "tiers.csv", index=False)
    out = tmp_path / "out"
    assert main(["learn", "--penalty", "0.9", "--restarts", "1", "--joint-restarts", "0",
                 "--require", str(tmp_path / "req.csv"), "--forbid", str(tmp_path / "forb.csv"),
                 "--tiers", str(tmp_path / "tiers.csv"), "--out", str(out), *paths]) == 0
    assert "as Gaussian networks" in capsys.readouterr().out
    for t in range(2):
        edges = set(map(tuple, pd.read_csv(out / f"c{t}.edges.csv")[["source", "target"]].values))
        assert ("z", "x") in edges and not edges & {("y", "z"), ("z", "y")}
    pd.DataFrame({"source": ["x", "z"], "target": ["z", "x"]}).to_csv(tmp_path / "cycle.csv", index=False)
    assert main(["learn", "--require", str(tmp_path / "cycle.csv"), "--out", str(tmp_path / "o2"), *paths]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtbn: error: required edges make the empty start graph cyclic") and \
        len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o2").exists()
