"""Bootstrap edge confidence for several tasks (issue 13)."""

import json

import numpy as np
import pandas as pd
import pytest

from mtbn.bootstrap import bootstrap_structures, strength_threshold
from mtbn.cli import main
from mtbn.exceptions import InvalidParameterError
from mtbn.estimators import MultitaskStructureLearner
from mtbn.learn import learn_structures
from mtbn.networks import load_network, sample

FAST = dict(penalty=0.9, n_restarts=1, n_joint_restarts=0)


@pytest.fixture(scope="module")
def asia_tasks():
    net = load_network("asia")
    return {name: sample(net, 300, random_state=seed).to_dataframe() for name, seed in (("a", 1), ("b", 2), ("c", 3))}


@pytest.fixture(scope="module")
def boot(asia_tasks):
    return bootstrap_structures(asia_tasks, n_boot=6, random_state=4, **FAST)


@pytest.mark.slow
def test_counts_are_the_replicates_learned_by_hand(asia_tasks, boot):
    # Rebuild every replicate independently: same row draws, same learner, then count.
    from mtbn.data import make_taskset

    ts = make_taskset(asia_tasks)
    base = int(np.random.default_rng(4).integers(0, 2**31 - 1))
    counts = np.zeros((3, len(ts.variables), len(ts.variables)))
    pos = {v: i for i, v in enumerate(ts.variables)}
    for b in range(6):
        rng = np.random.default_rng([base, b])
        data = {n: d.take(np.sort(rng.integers(0, d.n_samples, d.n_samples))) for n, d in zip(ts.names, ts.tasks)}
        res = learn_structures(data, random_state=base, **FAST)
        for t, g in enumerate(res.graphs):
            for u, v in g.edges(names=True):
                counts[t, pos[u], pos[v]] += 1
    np.testing.assert_array_equal(boot.edge_frequency(), counts / 6)
    assert boot.penalties == [0.9] * 6


def test_frequencies_are_consistent(boot):
    freq, adj = boot.edge_frequency(), boot.adjacency_frequency()
    np.testing.assert_allclose(adj, freq + np.swapaxes(freq, 1, 2))  # a DAG never has both u->v and v->u
    np.testing.assert_array_equal(adj, np.swapaxes(adj, 1, 2))
    table = boot.strength("a")
    assert ((table["strength"] > 0) & (table["strength"] <= 1)).all()
    pairs = table.groupby(table[["from", "to"]].apply(lambda r: tuple(sorted(r)), axis=1))["direction"].sum()
    np.testing.assert_allclose(pairs.values, 1.0)
    edges = boot.edge_table()
    shares = edges[["all_tasks", "one_task", "none"]]
    assert (shares.sum(axis=1) <= 1 + 1e-12).all() and (edges["n_tasks"] == 3).all()
    # an adjacency present in every replicate of every task is "in all tasks" every time
    full = edges[(edges[["strength:a", "strength:b", "strength:c"]] == 1).all(axis=1)]
    assert len(full) and (full["all_tasks"] == 1).all()


def test_strong_edges_are_certain_and_a_noise_column_is_not(asia_tasks):
    rng = np.random.default_rng(0)
    tasks = {n: df.assign(noise=rng.choice(["x", "y"], len(df))) for n, df in asia_tasks.items()}
    res = bootstrap_structures(tasks, n_boot=6, random_state=1, **FAST)
    adj = res.adjacency_frequency()
    i = res.variables.index
    for t in range(3):
        assert adj[t, i("either"), i("xray")] == 1.0 and adj[t, i("bronc"), i("dysp")] == 1.0
        assert adj[t, i("noise")].max() <= 0.5


@pytest.mark.slow
def test_identical_for_any_n_jobs_and_reproducible(asia_tasks, boot):
    again = bootstrap_structures(asia_tasks, n_boot=6, random_state=4, n_jobs=2, **FAST)
    np.testing.assert_array_equal(again.edges, boot.edges)
    other = bootstrap_structures(asia_tasks, n_boot=6, random_state=5, **FAST)
    assert other.edges.shape == boot.edges.shape


def test_threshold_rule_on_hand_made_strengths():
    # Clear separation: the threshold is the smallest strength of the strong group.
    assert strength_threshold([0, 0, 0, 0, 0.9, 1, 1]) == 0.9
    # L1 cost by hand for [0.2, 0.8]: F = 0 on [0, .2), 1/2 on [.2, .8), 1 on [.8, 1).
    # t = 0.2 (level 0): 0.6 * 1/2 + 0.2 * 1 = 0.5; t = 0.8 (level 1/2): 0.2 * 1/2 + 0.2 * 1/2 = 0.2.
    assert strength_threshold([0.2, 0.8]) == 0.8
    assert strength_threshold([0.0, 0.0]) == 1.0


def test_averaged_network_is_a_dag_with_the_strong_edges(boot):
    dag, threshold = boot.averaged_network("a")
    g = dag.to_networkx()
    import networkx as nx

    assert nx.is_directed_acyclic_graph(g) and 0 < threshold <= 1
    strength = boot.strength("a")
    strong = strength[strength["strength"] >= threshold]
    assert {frozenset(e) for e in g.edges} == {frozenset((f, t)) for f, t in zip(strong["from"], strong["to"])}
    everything, _ = boot.averaged_network("a", threshold=0.0)
    assert everything.n_edges >= dag.n_edges
    with pytest.raises(InvalidParameterError, match="threshold"):
        boot.averaged_network("a", threshold=2)
    with pytest.raises(InvalidParameterError, match="unknown task"):
        boot.strength("zz")


def test_differences_between_two_tasks(boot):
    table = boot.difference_frequency("a", "b")
    adj = boot.edges | np.swapaxes(boot.edges, 2, 3)
    i = boot.variables.index
    for _, r in table.iterrows():
        expected = np.mean(adj[:, 0, i(r["x"]), i(r["y"])] != adj[:, 1, i(r["x"]), i(r["y"])])
        assert r["differs"] == pytest.approx(expected)


def test_bad_arguments():
    with pytest.raises(InvalidParameterError, match="n_boot"):
        bootstrap_structures({"a": pd.DataFrame({"x": ["u", "v"]})}, n_boot=0)


def test_estimator_and_cli_bootstrap(asia_tasks, tmp_path, capsys):
    est = MultitaskStructureLearner(n_bootstrap=3, **FAST).fit(asia_tasks)
    assert est.bootstrap_.n_boot == 3 and est.bootstrap_.penalty == est.penalty_ == 0.9
    paths = []
    for name, df in asia_tasks.items():
        df.to_csv(tmp_path / f"{name}.csv", index=False)
        paths.append(str(tmp_path / f"{name}.csv"))
    out = tmp_path / "out"
    assert main(["learn", *paths, "--out", str(out), "--penalty", "0.9", "--restarts", "1", "--joint-restarts", "0",
                 "--bootstrap", "3"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["bootstrap"]["n_boot"] == 3 and set(summary["bootstrap"]["thresholds"]) == {"a", "b", "c"}
    edges = pd.read_csv(out / "bootstrap" / "edges.csv")
    assert {"x", "y", "strength:a", "all_tasks", "one_task"} <= set(edges.columns)
    for name in "abc":
        assert (out / "bootstrap" / f"{name}.strength.csv").is_file()
        assert (out / "bootstrap" / f"{name}.averaged.edges.csv").read_text().startswith("source,target")
    # Background knowledge reaches the replicates: an edge every replicate learned, forbidden, is in none.
    strong = pd.read_csv(out / "bootstrap" / "a.strength.csv").query("strength == 1 and direction == 1").iloc[0]
    (tmp_path / "forbid.csv").write_text(f"source,target\n{strong['from']},{strong['to']}\n{strong['to']},"
                                         f"{strong['from']}\n")
    out2 = tmp_path / "out2"
    assert main(["learn", *paths, "--out", str(out2), "--penalty", "0.9", "--restarts", "1", "--joint-restarts", "0",
                 "--bootstrap", "3", "--forbid", str(tmp_path / "forbid.csv")]) == 0
    for name in "abc":
        table = pd.read_csv(out2 / "bootstrap" / f"{name}.strength.csv")
        pair = {strong["from"], strong["to"]}
        assert not any({f, t} == pair for f, t in zip(table["from"], table["to"]))


@pytest.mark.parametrize("reversal", ["single", "double"])
def test_replicate_distances_are_the_edit_distances_of_the_replicates(boot, reversal):
    from mtbn.graph import edit_distance

    d = boot.distances(reversal)
    assert d.shape == (boot.n_boot, 3, 3)
    for r in range(boot.n_boot):
        graphs = [[(boot.variables[u], boot.variables[v]) for u, v in zip(*np.nonzero(boot.edges[r, t]))]
                  for t in range(3)]
        for a in range(3):
            for c in range(3):
                assert d[r, a, c] == edit_distance(graphs[a], graphs[c], reversal=reversal)


def test_distance_interval_is_the_percentiles_of_the_replicates(boot):
    low, high = boot.distance_interval(0.9)
    d = boot.distances()
    assert np.allclose(low.values, np.quantile(d, 0.05, axis=0))
    assert np.allclose(high.values, np.quantile(d, 0.95, axis=0))
    assert list(low.index) == list(low.columns) == ["a", "b", "c"]
    with pytest.raises(InvalidParameterError, match="level must be strictly between 0 and 1; got 1"):
        boot.distance_interval(1)


@pytest.mark.slow
def test_direct_relatedness_interval_and_its_cli_files(asia_tasks, tmp_path):
    from mtbn.relatedness import direct_relatedness

    rel = direct_relatedness(asia_tasks, n_restarts=1, n_boot=4, random_state=3)
    # the interval is the bootstrap of the same learner at the same penalty and seed
    boot = bootstrap_structures(asia_tasks, n_boot=4, penalty=0.9, prior="paired", n_restarts=1, random_state=3)
    low, high = boot.distance_interval()
    pd.testing.assert_frame_equal(rel.interval[0], low)
    pd.testing.assert_frame_equal(rel.interval[1], high)
    paths = []
    for name, df in asia_tasks.items():
        paths.append(str(tmp_path / f"{name}.csv"))
        df.to_csv(paths[-1], index=False)
    out = tmp_path / "rel"
    assert main(["relatedness", *paths, "--measure", "direct", "--restarts", "1", "--noise-floor", "0",
                 "--boot", "4", "--seed", "3", "--out", str(out)]) == 0
    written = pd.read_csv(out / "distance_high.csv", index_col=0)
    assert np.allclose(written.values, high.values)
    assert "95% bootstrap intervals of the distances (4 replicates" in (out / "report.md").read_text()


def test_subsample_replicates_draw_half_the_rows_without_duplicates(asia_tasks):
    from mtbn.bootstrap import RESAMPLING

    rows = RESAMPLING["subsample"](np.random.default_rng(0), 300)
    assert len(rows) == 150 and len(set(rows.tolist())) == 150 and rows.max() < 300
    boot = bootstrap_structures(asia_tasks, n_boot=3, resample="subsample", random_state=4, **FAST)
    again = bootstrap_structures(asia_tasks, n_boot=3, resample="subsample", random_state=4, n_jobs=2, **FAST)
    assert np.array_equal(boot.edges, again.edges)
    with pytest.raises(InvalidParameterError, match="resample must be one of"):
        bootstrap_structures(asia_tasks, n_boot=3, resample="jackknife", **FAST)


# --- a pooled result is bootstrapped as the pooled structure ---

@pytest.fixture(scope="module")
def sachs_copies():
    # Four samples of one network: the default replaces the multitask structures by the pooled one
    # (tests/test_sharing_default.py::test_copies_of_one_network_are_learned_pooled).
    net = load_network("sachs")
    rng = np.random.default_rng(0)
    return {f"t{i}": sample(net, 150, random_state=rng).to_dataframe() for i in range(4)}


def _edges_of(boot, b, t, graph):
    """Whether replicate ``b`` of task ``t`` is ``graph``, edge for edge."""
    pos = {v: i for i, v in enumerate(boot.variables)}
    want = np.zeros(boot.edges.shape[2:], dtype=bool)
    for u, v in graph.edges(names=True):
        want[pos[u], pos[v]] = True
    return np.array_equal(boot.edges[b, t], want)


def _drawn(tasks, seed, b):
    """Replicate ``b``'s rows of every task, drawn as bootstrap_structures draws them (random_state=seed)."""
    from mtbn.data import make_taskset

    ts = make_taskset(tasks)
    base = int(np.random.default_rng(seed).integers(0, 2**31 - 1))
    rng = np.random.default_rng([base, b])
    return {n: d.take(np.sort(rng.integers(0, d.n_samples, d.n_samples))) for n, d in zip(ts.names, ts.tasks)}, base


def test_replicates_of_a_pooled_result_learn_the_pooled_structure(sachs_copies):
    from mtbn.data import make_taskset
    from mtbn.learn import learn_pooled_structures, learn_structure

    res = learn_structures(sachs_copies, n_restarts=2, random_state=0)
    assert res.pooled
    # The replicates' learner returns, on the original rows, what the default returned.
    again = learn_pooled_structures(sachs_copies, n_restarts=2, random_state=0)
    assert [sorted(g.edges(names=True)) for g in again] == [sorted(g.edges(names=True)) for g in res.graphs]
    boot = bootstrap_structures(sachs_copies, n_boot=3, n_restarts=0, random_state=5)  # the learner decides
    assert boot.pooled and boot.penalty is None and boot.penalties == [None] * 3 and boot.alone == ()
    np.testing.assert_array_equal(boot.edges, np.repeat(boot.edges[:, :1], 4, axis=1))  # one structure for all
    # Replicate 1 by hand: the same row draws, single-task learning on the tasks' rows stacked (no restarts:
    # greedy and tabu from the empty graph, no random choice).
    data, _ = _drawn(sachs_copies, 5, 1)
    truth = learn_structure(make_taskset(list(data.values())).pooled(), n_restarts=0).graph
    assert truth.n_edges > 0 and _edges_of(boot, 1, 0, truth)
    # The multitask structures at a given penalty: the replicates differ between tasks somewhere.
    multi = bootstrap_structures(sachs_copies, n_boot=3, n_restarts=0, random_state=5, penalty=res.penalty)
    assert multi.pooled is False and multi.penalty == res.penalty
    assert (multi.edges != np.repeat(multi.edges[:, :1], 4, axis=1)).any()
    # Rerunning the whole learner per replicate: each decides for itself, and the result says so.
    again = bootstrap_structures(sachs_copies, n_boot=2, n_restarts=0, random_state=5, reselect_penalty=True,
                                 penalty_grid=[0.9, 0.999])
    assert again.pooled is None and again.penalty is None
    pooled_reps = [p is None for p in again.penalties]
    for b, pooled in enumerate(pooled_reps):
        same = np.array_equal(again.edges[b], np.repeat(again.edges[b, :1], 4, axis=0))
        assert same or not pooled


def test_replicates_repeat_the_tasks_the_learner_learned_alone():
    # Three samples of SACHS and one with every column permuted: transfer_per_task learns that one alone and
    # pools the others; every replicate must do the same (not pool all four).
    net = load_network("sachs")
    rng = np.random.default_rng(0)
    tasks = {f"t{i}": sample(net, 300, random_state=rng).to_dataframe() for i in range(3)}
    frame = sample(net, 300, random_state=rng).to_dataframe()
    tasks["u"] = pd.DataFrame({c: rng.permutation(frame[c].to_numpy()) for c in frame.columns})
    res = learn_structures(tasks, n_restarts=0, random_state=0)
    assert res.transfer.excluded == ["u"]
    boot = bootstrap_structures(tasks, n_boot=2, n_restarts=0, random_state=3, result=res)
    assert boot.alone == ("u",) and boot.pooled == res.pooled
    data, base = _drawn(tasks, 3, 0)
    alone = learn_structures({"u": data["u"]}, prior="none", n_restarts=0, random_state=base).graphs[0]
    assert _edges_of(boot, 0, 3, alone)
    if res.pooled:
        np.testing.assert_array_equal(boot.edges[:, :3], np.repeat(boot.edges[:, :1], 3, axis=1))
    else:
        joint = learn_structures({n: data[n] for n in ("t0", "t1", "t2")}, penalty=res.penalty, n_restarts=0,
                                 random_state=base, parameter_sharing=None).graphs
        assert all(_edges_of(boot, 0, t, g) for t, g in enumerate(joint))


def test_cli_bootstrap_of_a_pooled_result(sachs_copies, tmp_path):
    paths = []
    for name, df in sachs_copies.items():
        df.to_csv(tmp_path / f"{name}.csv", index=False)
        paths.append(str(tmp_path / f"{name}.csv"))
    out = tmp_path / "out"
    assert main(["learn", *paths, "--out", str(out), "--restarts", "2", "--bootstrap", "2"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["transfer"]["sharing"]["pooled"] is True
    assert summary["bootstrap"]["structures"] == "pooled" and summary["bootstrap"]["penalty"] is None
    assert summary["bootstrap"]["learned_alone"] == []
    tables = [pd.read_csv(out / "bootstrap" / f"{name}.strength.csv") for name in sachs_copies]
    for table in tables[1:]:
        pd.testing.assert_frame_equal(table, tables[0])


def test_bootstrap_result_argument_is_checked(sachs_copies):
    res = learn_structures(sachs_copies, penalty=0.9, n_restarts=0, random_state=0)
    with pytest.raises(InvalidParameterError, match="result cannot be given with reselect_penalty=True"):
        bootstrap_structures(sachs_copies, n_boot=1, reselect_penalty=True, result=res)
    with pytest.raises(InvalidParameterError, match="result must be the MultitaskResult learn_structures returned; "
                                                    "got a dict"):
        bootstrap_structures(sachs_copies, n_boot=1, result={"penalty": 0.9})
    other = dict(list(sachs_copies.items())[:3])
    with pytest.raises(InvalidParameterError, match=r"result is of the tasks \('t0', 't1', 't2', 't3'\)"):
        bootstrap_structures(other, n_boot=1, result=res)


def test_pooled_structures_need_shared_variables(sachs_copies):
    from mtbn.learn import learn_pooled_structures

    tasks = dict(sachs_copies)
    tasks["t3"] = tasks["t3"].drop(columns=["PKA"])
    with pytest.raises(InvalidParameterError, match="task 't3' has no column 'PKA'"):
        learn_pooled_structures(tasks, n_restarts=0)


def test_replicates_use_the_results_penalty_not_their_own_selection(asia_tasks):
    # penalty="auto" (the default) with a result: every replicate learns at the result's penalty (a selection
    # of its own would choose another; here the result's penalty 0.9 is not even on the replicates' grid).
    res = learn_structures(asia_tasks, penalty=0.9, n_restarts=0, n_joint_restarts=0, random_state=0,
                           parameter_sharing=None)
    boot = bootstrap_structures(asia_tasks, n_boot=2, result=res, penalty_grid=[0.0, 0.5], n_restarts=0,
                                n_joint_restarts=0, random_state=7)
    assert boot.penalty == 0.9 and boot.penalties == [0.9, 0.9] and boot.pooled is False
    data, base = _drawn(asia_tasks, 7, 1)
    truth = learn_structures(data, penalty=0.9, n_restarts=0, n_joint_restarts=0, random_state=base,
                             parameter_sharing=None).graphs
    assert all(_edges_of(boot, 1, t, g) for t, g in enumerate(truth))


def test_tasks_left_out_at_any_level_are_recorded_and_learned_alone(monkeypatch):
    # A stand-in rule that leaves out the last task whenever four or more are tested: the learner leaves out
    # t4, then, among t0-t3, t3. Both are recorded as excluded, and the replicates learn both alone.
    import mtbn.learn.multitask as multitask

    monkeypatch.setattr(multitask, "tasks_to_leave_out",
                        lambda test: [len(test["tasks"]) - 1] if test is not None and len(test["tasks"]) >= 4 else [])
    net = load_network("asia")
    rng = np.random.default_rng(0)
    tasks = {f"t{i}": sample(net, 200, random_state=rng).to_dataframe() for i in range(5)}
    kw = dict(n_restarts=0, n_joint_restarts=0, penalty_grid=[0.5, 0.9], cv=3, parameter_sharing=None)
    res = learn_structures(tasks, random_state=0, **kw)
    assert res.transfer.excluded == ["t3", "t4"]
    assert res.transfer["tasks"]["t3"]["verdict"] == res.transfer["tasks"]["t4"]["verdict"] == \
        "learned alone (unrelated)"
    boot = bootstrap_structures(tasks, n_boot=1, result=res, random_state=2, **kw)
    assert boot.alone == ("t3", "t4")
    data, base = _drawn(tasks, 2, 0)
    for t, name in ((3, "t3"), (4, "t4")):
        alone = learn_structures({name: data[name]}, prior="none", n_restarts=0, random_state=base).graphs[0]
        assert _edges_of(boot, 0, t, alone)


def test_a_rare_state_missed_by_a_replicate_is_not_reported(monkeypatch):
    """A column whose second state is in one row only is constant in the replicates that miss that row; that is
    the draw, not the user's data, so no 'single value' warning (the column has two values in the tasks)."""
    import warnings

    import mtbn.bootstrap as bootstrap

    rng = np.random.default_rng(0)
    tasks = {}
    for name in ("a", "b"):
        x = rng.choice(["0", "1"], 30)
        tasks[name] = pd.DataFrame({"x": x, "y": np.where(rng.random(30) < 0.8, x, "2"), "rare": "common"})
    tasks["a"].loc[0, "rare"] = "once"
    constant_in_a_replicate = []
    real = bootstrap.learn_structures

    def spy(data, **kwargs):  # a replicate's tasks: DiscreteData drawn from the tasks' rows
        columns = [d.codes[:, d.names.index("rare")] for d in data.values()]
        constant_in_a_replicate.append(len(np.unique(np.concatenate(columns))) == 1)
        return real(data, **kwargs)

    monkeypatch.setattr(bootstrap, "learn_structures", spy)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bootstrap_structures(tasks, n_boot=20, penalty=0.5, n_restarts=0, n_joint_restarts=0, random_state=0)
    assert any(constant_in_a_replicate)  # some replicate did miss the row
    assert not [w for w in caught if "single value" in str(w.message)]


@pytest.mark.parametrize("how", [dict(penalty=0.5), dict(reselect_penalty=True, penalty_grid=[0.0, 0.5], cv=2),
                                 dict(result="learned")])
def test_a_column_with_one_value_in_the_users_tasks_is_named_once(how):
    """bootstrap_structures names a column that has one value in every row of the user's tasks once, as
    learn_structures does, whether it learns on the tasks first (no: a given penalty, or every replicate choosing
    its own) or is given the result of learning them (then learn_structures named it, and the bootstrap does not
    again); the bootstrap's warning points at its caller."""
    import warnings

    rng = np.random.default_rng(1)
    tasks = {name: pd.DataFrame({"x": rng.choice(["0", "1"], 40), "y": rng.choice(["0", "1"], 40), "z": "k"})
             for name in ("a", "b")}
    kwargs = dict(how, n_restarts=0, n_joint_restarts=0, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if how.get("result") == "learned":
            kwargs["result"] = learn_structures(tasks, penalty=0.5, n_restarts=0, n_joint_restarts=0, random_state=0)
            kwargs["penalty"] = 0.5
        bootstrap_structures(tasks, n_boot=3, **kwargs)
    named = [w for w in caught if "single value" in str(w.message)]
    assert len(named) == 1 and "'z'" in str(named[0].message)
    assert named[0].filename == __file__  # at its caller, whichever function gave it
