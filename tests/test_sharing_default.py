"""The default's parameter sharing and pooled structure (issue 32 items 2-3): mtbn.learn.sharing.

Truths used: single-task learning on the stacked rows (the pooled search), the
shared fit scored row by row (the held-out rows by strength), and what the
tasks are by construction: copies of one network (pooling is right), one
structure with independent CPTs (pooling is wrong), relabelled copies
(unrelated: nothing shared, exactly single-task learning).
"""

import warnings

import numpy as np
import pytest

from mtbn.benchmarks import make_perturbed_tasks, relabel
from mtbn.data import make_taskset
from mtbn.exceptions import TransferWarning
from mtbn.graph import DAG
from mtbn.learn import learn_pooled_structures, learn_structure, learn_structures
from mtbn.learn.single import pooled_search
from mtbn.networks import load_network, log_likelihood, sample
from mtbn.networks.shared_fitting import STRENGTH_GRID, fit_shared_parameters, heldout_rows_by_strength


def _tasks(nets, n_rows, seed=0):
    rng = np.random.default_rng(seed)
    return make_taskset({f"t{i}": sample(net, n_rows, random_state=rng).to_dataframe() for i, net in enumerate(nets)})


def _learn(tasks, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        return learn_structures(tasks, n_restarts=2, random_state=0, **kw)


def test_pooled_search_is_single_task_learning_on_the_stacked_rows(asia):
    frames = [sample(asia, 150, random_state=i).to_dataframe() for i in range(3)]
    frames[1] = frames[1][list(reversed(frames[1].columns))]  # another column order
    ts = make_taskset({f"t{i}": f for i, f in enumerate(frames)})
    n = ts.n_variables
    none = np.zeros((n, n), dtype=bool)
    graphs = pooled_search(ts, ess=1.0, max_parents=None, required=none, forbidden=none, n_restarts=3, seed=11)
    ref = learn_structure(ts.pooled(), n_restarts=3, random_state=np.random.default_rng(11)).graph
    assert ref.n_edges > 0
    for g, d in zip(graphs, ts.tasks):
        assert g.names == d.names
        assert sorted(g.edges(names=True)) == sorted(ref.edges(names=True))


def test_heldout_rows_by_strength_are_the_shared_fit_scored_row_by_row(asia):
    ts = _tasks([asia] * 3, 120)
    tests = _tasks([asia] * 3, 40, seed=1)
    graphs = [DAG.from_edges(asia.names, [("smoke", "lung"), ("lung", "either")]),
              DAG.from_edges(asia.names, [("smoke", "lung"), ("bronc", "dysp")]),
              DAG.empty(asia.names)]
    rows = heldout_rows_by_strength(graphs, ts.tasks, tests.tasks, (0.0, 10.0, float("inf")), 1.0)
    for s in (0.0, 10.0, float("inf")):
        nets = fit_shared_parameters(graphs, ts, strength=s)
        for net, test, got in zip(nets, tests.tasks, rows[s]):
            np.testing.assert_allclose(got, log_likelihood(net, test, per_row=True), rtol=0, atol=1e-12)


def test_copies_of_one_network_are_learned_pooled(tmp_path):
    from mtbn.report import write_learn_report

    sachs = load_network("sachs")
    res = _learn(_tasks([sachs] * 4, 150))
    record = res.transfer["sharing"]
    assert record["pooled"] is True and record["pooled_gain"] > record["pooled_se"]
    edges = [sorted(g.edges(names=True)) for g in res.graphs]
    assert all(e == edges[0] for e in edges)
    assert res.sharing_strength >= 100
    # One structure for all: the scores are each task's BDeu of it, and nothing from the multitask prior.
    assert res.log_score == pytest.approx(sum(res.task_log_likelihoods))
    page = open(write_learn_report(res, tmp_path)["markdown"], encoding="utf-8").read()
    assert "One structure learned from all tasks' rows pooled replaces the" in page


def test_a_fallback_replaced_by_the_pooled_structure_says_so(asia):
    # Cross-validation chooses penalty 0 (the guard falls back to independent learning), then the sharing step's
    # pooled structure beats the single-task structures: what comes back is the pooled structure, and the warning
    # and the verdict must say that, not that the single-task structures were returned.
    tasks = {f"t{i}": sample(asia, 60, random_state=100 + i) for i in range(3)}
    settings = dict(n_restarts=2, n_joint_restarts=0, random_state=1, cv=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = learn_structures(tasks, penalty_grid=[0.3], **settings)
    assert res.transfer["status"] == "none" and res.penalty == 0.0 and res.transfer["sharing"]["pooled"] is True
    pooled = learn_pooled_structures(tasks, **settings)
    alone = learn_structures(tasks, prior="none", **settings)
    got = [sorted(g.edges(names=True)) for g in res.graphs]
    assert got == [sorted(g.edges(names=True)) for g in pooled]
    assert got != [sorted(g.edges(names=True)) for g in alone.graphs]  # the case this test is about
    said = [str(w.message) for w in caught if issubclass(w.category, TransferWarning)]
    assert said == [res.transfer["message"]]
    assert "returning the single-task structures" not in said[0]
    assert "replaced by one structure learned from all tasks' rows pooled" in said[0]


def test_independent_parameters_are_not_pooled():
    nets, _ = make_perturbed_tasks("sachs", n_tasks=4, p_del=0.0, independent_parameters=True, random_state=3)
    res = _learn(_tasks(nets, 300))
    record = res.transfer["sharing"]
    assert record["pooled"] is False
    assert res.sharing_strength is not None and res.sharing_strength <= 30


def test_unrelated_tasks_share_nothing_and_equal_single_task_learning():
    alarm = load_network("alarm")
    rng = np.random.default_rng(0)
    nets = [alarm] + [relabel(alarm, rng.permutation(len(alarm.names))) for _ in range(2)]
    tasks = _tasks(nets, 300)
    res = _learn(tasks, penalty_grid=[0.9, 0.999])
    assert res.transfer["status"] != "accepted"
    assert res.transfer["sharing"]["shared"] is False and res.sharing_strength is None
    alone = _learn(tasks, prior="none")
    assert alone.sharing_strength is None and "sharing" not in (alone.transfer or {})
    one = _learn(tasks.subset([0]))
    assert one.sharing_strength is None
    for a, b, d in zip(res.networks, alone.networks, tasks.tasks):
        assert a.parents == b.parents
        assert np.array_equal(log_likelihood(a, d, per_row=True), log_likelihood(b, d, per_row=True))


def test_sharing_off_keeps_each_tasks_cpts():
    """parameter_sharing=None: every task's CPTs are fit_parameters on its own rows, whatever the guard decided."""
    from mtbn.networks import fit_parameters, log_likelihood

    sachs = load_network("sachs")
    tasks = _tasks([sachs] * 3, 150)
    res = _learn(tasks, parameter_sharing=None)
    assert res.sharing_strength is None and "sharing" not in res.transfer
    for graph, net, data in zip(res.graphs, res.networks, tasks.tasks):
        alone = fit_parameters(graph, data)
        assert net.parents == alone.parents
        for mine, own in zip(net.cpts, alone.cpts):
            assert np.array_equal(mine, own)
        assert np.array_equal(log_likelihood(net, data, per_row=True), log_likelihood(alone, data, per_row=True))


def test_cli_learn_says_what_it_shared(tmp_path, capsys):
    import json

    from mtbn.cli import main

    sachs = load_network("sachs")
    paths = []
    for i in range(3):
        paths.append(str(tmp_path / f"t{i}.csv"))
        sample(sachs, 200, random_state=i).to_dataframe().to_csv(paths[-1], index=False)
    assert main(["learn", *paths, "--restarts", "2", "--out", str(tmp_path / "out")]) == 0
    said = capsys.readouterr().out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    sharing = summary["transfer"]["sharing"]
    assert sharing["message"] in said
    assert summary["sharing_strength"] == sharing["strength"]
