"""Partially pooled parameters (issue 32, first step): mtbn.networks.shared_fitting.fit_shared_parameters.

Truths used: :func:`mtbn.networks.fit_parameters` on each task alone (strength 0) and on all rows pooled
(strength inf, and to 1e-9 at a very large strength), and posterior means computed by hand with exact
fractions on a two-task, two-state example.
"""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from mtbn.data import make_taskset
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG
from mtbn.networks import fit_parameters, log_likelihood, sample
from mtbn.networks.shared_fitting import fit_shared_parameters


@pytest.fixture(scope="module")
def asia_tasks(asia):
    return make_taskset({f"t{i}": sample(asia, 200 + 100 * i, random_state=i).to_dataframe() for i in range(3)})


def _row_probabilities(net, data):
    return np.exp(log_likelihood(net, data, per_row=True))


def test_strength_zero_is_each_task_alone(asia, asia_tasks):
    graphs = [DAG.from_edges(asia.names, [("smoke", "lung"), ("lung", "either"), ("tub", "either")]),
              DAG.from_edges(asia.names, [("smoke", "bronc"), ("bronc", "dysp"), ("either", "dysp")]),
              DAG.from_edges(asia.names, [("lung", "either"), ("tub", "either"), ("smoke", "lung")])]
    shared = fit_shared_parameters(graphs, asia_tasks, strength=0, equivalent_sample_size=2.0)
    for g, d, net in zip(graphs, asia_tasks.tasks, shared):
        alone = fit_parameters(g, d, equivalent_sample_size=2.0)
        assert np.allclose(_row_probabilities(net, d), _row_probabilities(alone, d), rtol=0, atol=1e-12)


def test_large_strength_is_the_pooled_estimate(asia, asia_tasks):
    g = DAG.from_edges(asia.names, [("smoke", "lung"), ("smoke", "bronc"), ("lung", "either"), ("tub", "either"),
                                    ("either", "xray"), ("bronc", "dysp"), ("either", "dysp")])
    everyone = make_taskset({"all": pd.concat([d.to_dataframe() for d in asia_tasks.tasks], ignore_index=True)},
                            states=dict(zip(asia_tasks.variables, asia_tasks.states))).tasks[0]
    pooled = fit_parameters(g, everyone)
    for strength, tol in ((float("inf"), 1e-12), (1e13, 1e-9)):
        for d, net in zip(asia_tasks.tasks, fit_shared_parameters([g] * 3, asia_tasks, strength=strength)):
            assert np.allclose(_row_probabilities(net, d), _row_probabilities(pooled, d), rtol=0, atol=tol)


def test_posterior_means_by_hand_on_two_tasks():
    # x -> y, both binary; task a: (x, y) rows 00 00 01 11, task b: 10 11 11 11 00
    a = pd.DataFrame({"x": list("0001"), "y": list("0011")})
    b = pd.DataFrame({"x": list("11110"), "y": list("01110")})
    g = DAG.from_edges(["x", "y"], [("x", "y")])
    nets = fit_shared_parameters([g, g], {"a": a, "b": b}, strength=2, equivalent_sample_size=1.0)
    ess, s = Fraction(1), Fraction(2)

    def theta(own, pool, q, r=2):
        centre = [(m + ess / (q * r)) / (sum(pool) + ess / q) for m in pool]
        return [(n + ess / (q * r) + s * c) / (sum(own) + ess / q + s) for n, c in zip(own, centre)]

    # y | x: a has x=0 -> y (2, 1), x=1 -> (0, 1); b has x=0 -> (1, 0), x=1 -> (1, 3)
    expect_a = [theta([2, 1], [3, 1], 2), theta([0, 1], [1, 4], 2)]
    expect_b = [theta([1, 0], [3, 1], 2), theta([1, 3], [1, 4], 2)]
    for net, expect in ((nets[0], expect_a), (nets[1], expect_b)):
        y = net.names.index("y")
        assert np.allclose(net.cpts[y], np.array(expect, dtype=float), rtol=0, atol=1e-15)
    # x (no parents): a (3, 1), b (1, 4)
    assert np.allclose(nets[0].cpts[nets[0].names.index("x")], [float(v) for v in theta([3, 1], [4, 5], 1)])


def test_a_family_of_one_task_is_pooled_with_itself_only():
    a = pd.DataFrame({"x": list("0011"), "y": list("0101")})
    b = pd.DataFrame({"x": list("0101"), "y": list("0111")})
    ga, gb = DAG.from_edges(["x", "y"], [("x", "y")]), DAG.empty(["x", "y"])
    ts = make_taskset({"a": a, "b": b})
    net = fit_shared_parameters([ga, gb], ts, strength=float("inf"))[0]
    alone = fit_parameters(ga, ts.tasks[0])
    assert np.allclose(net.cpts[1], alone.cpts[1], rtol=0, atol=1e-15)  # y | x exists in task a only


@pytest.mark.parametrize("strength", [-1, float("nan"), "big", True])
def test_bad_strength_is_refused(strength):
    g = DAG.empty(["x"])
    with pytest.raises(InvalidParameterError, match="strength must be a number >= 0"):
        fit_shared_parameters([g], {"a": pd.DataFrame({"x": ["u", "v"]})}, strength=strength)


def test_one_graph_per_task():
    with pytest.raises(InvalidParameterError, match="1 structure\\(s\\) for 2 task\\(s\\)"):
        fit_shared_parameters([DAG.empty(["x"])], {"a": pd.DataFrame({"x": ["u"]}),
                                                   "b": pd.DataFrame({"x": ["v"]})}, strength=1)


def test_strength_choice_scores_strength_zero_as_independent_fits(asia, asia_tasks):
    from mtbn.networks.shared_fitting import choose_sharing_strength

    g = DAG.from_edges(asia.names, [("smoke", "lung"), ("lung", "either"), ("either", "xray")])
    best, scores = choose_sharing_strength([g] * 3, asia_tasks, grid=[0, 10, float("inf")], n_folds=3,
                                           random_state=4)
    # the folds as documented: a permutation per task from one seed drawn from random_state
    seed = int(np.random.default_rng(4).integers(0, 2**31 - 1))
    total = n = 0.0
    for t, d in enumerate(asia_tasks.tasks):
        parts = np.array_split(np.random.default_rng([seed, t]).permutation(d.n_samples), 3)
        for f in range(3):
            train = d.take(np.sort(np.concatenate(parts[:f] + parts[f + 1:])))
            test = d.take(np.sort(parts[f]))
            total += log_likelihood(fit_parameters(g, train), test) * test.n_samples
            n += test.n_samples
    assert scores[0.0] == pytest.approx(total / n, abs=1e-12)
    assert best == max(scores, key=scores.get) and set(scores) == {0.0, 10.0, float("inf")}
    with pytest.raises(InvalidParameterError, match="n_folds must be an integer >= 2"):
        choose_sharing_strength([g] * 3, asia_tasks, n_folds=1)


# ---------------------------------------------------------------------------
# In the learner and on the command line
# ---------------------------------------------------------------------------


def test_learner_parameter_sharing_changes_the_cpts_not_the_structures(asia_tasks):
    from mtbn.learn import learn_structures
    from mtbn.networks.shared_fitting import STRENGTH_GRID

    kw = dict(penalty=0.9, n_restarts=0, n_joint_restarts=0)
    alone = learn_structures(asia_tasks, parameter_sharing=None, **kw)
    pooled = learn_structures(asia_tasks, parameter_sharing=float("inf"), **kw)
    assert alone.sharing_strength is None and pooled.sharing_strength == float("inf")
    assert [g.parents for g in alone.graphs] == [g.parents for g in pooled.graphs]
    expected = fit_shared_parameters(alone.graphs, asia_tasks, strength=float("inf"))
    for net, ref, d in zip(pooled.networks, expected, asia_tasks.tasks):
        assert np.array_equal(_row_probabilities(net, d), _row_probabilities(ref, d))
    auto = learn_structures(asia_tasks, parameter_sharing="auto", **kw)
    assert [g.parents for g in auto.graphs] == [g.parents for g in alone.graphs]  # the CPTs change, not the structures
    # The strength is the one the learner's CV table ranks first (ties to less sharing).
    table = {float(g): m for g, m in auto.sharing["heldout"].items()}
    strength = max(STRENGTH_GRID, key=lambda g: (table[g], -g))
    assert auto.sharing_strength == strength and auto.sharing["strength"] in (strength, "inf")
    for net, ref, d in zip(auto.networks, fit_shared_parameters(auto.graphs, asia_tasks, strength=strength),
                           asia_tasks.tasks):
        assert np.array_equal(_row_probabilities(net, d), _row_probabilities(ref, d))
    with pytest.raises(InvalidParameterError, match="parameter_sharing must be None, 'auto' or a strength"):
        learn_structures(asia_tasks, parameter_sharing=-2, **kw)


def test_fixed_penalty_strength_is_scored_only_by_structures_that_never_saw_those_rows(asia_tasks, monkeypatch):
    """Issue 47: with a given penalty, every structure that scores held-out rows for the strength's choice was
    learned by a search whose scorers held that fold's training rows only (train + held-out = the task), and the
    learner's table equals held-out log-likelihoods recomputed from those structures with fit_shared_parameters."""
    import mtbn.learn.grid as grid
    import mtbn.learn.sharing as sharing
    from mtbn.learn import learn_structures
    from mtbn.networks.shared_fitting import STRENGTH_GRID

    searches, scored = [], []
    real_run, real_rows = grid.run_penalties, sharing.heldout_rows_by_strength

    def spy_run(scorers, *args, **kwargs):
        found = real_run(scorers, *args, **kwargs)
        searches.append(([s.data for s in scorers], [r.graphs for r in found[0]]))
        return found

    def spy_rows(graphs, train, valid, *args):
        scored.append((graphs, train, valid))
        return real_rows(graphs, train, valid, *args)

    monkeypatch.setattr(grid, "run_penalties", spy_run)
    monkeypatch.setattr(sharing, "heldout_rows_by_strength", spy_rows)
    res = learn_structures(asia_tasks, penalty=0.9, n_restarts=0, n_joint_restarts=0, cv=4, n_jobs=1,
                           random_state=3)
    assert len(scored) == 4
    per_task = [[] for _ in asia_tasks.tasks]
    for graphs, train, valid in scored:
        learned_on = [data for data, found in searches if any(g == graphs for g in found)]
        assert learned_on and all(all(a is b for a, b in zip(data, train)) for data in learned_on)
        for t, (tr, va, full) in enumerate(zip(train, valid, asia_tasks.tasks)):
            assert tr.n_samples + va.n_samples == full.n_samples and va.n_samples > 0
        for g in STRENGTH_GRID:
            nets = fit_shared_parameters(graphs, list(train), strength=g)
            for t, (net, va) in enumerate(zip(nets, valid)):
                per_task[t].append((g, log_likelihood(net, va, per_row=True)))
    for g in STRENGTH_GRID:
        rows = [np.concatenate([ll for h, ll in task if h == g]) for task in per_task]
        expected = np.mean([r.mean() for r in rows])
        assert res.sharing["heldout"]["inf" if g == float("inf") else f"{g:g}"] == pytest.approx(expected, abs=1e-9)
    assert res.transfer is None and res.sharing_strength is not None


def test_fixed_penalty_strength_with_many_tasks_searches_the_first_folds_only(monkeypatch):
    """Issue 50, item 5: with 13 tasks and a given penalty, the strength is chosen on the 5-fold split's first 2
    folds (26 held-out task folds, at least 25): two folds' joint searches, each task's held-out rows as many as
    the split's first and second folds hold (np.array_split sizes), and the record says so; with 5 tasks, all 5."""
    import mtbn.learn.grid as grid
    import mtbn.learn.sharing as sharing
    from mtbn.learn import learn_structures
    from mtbn.networks import load_network

    net = load_network("asia")
    tasks = {f"t{i}": sample(net, 60 + 5 * i, random_state=i).to_dataframe() for i in range(13)}
    searched, scored = [], []
    real_run, real_rows = grid.run_penalties, sharing.heldout_rows_by_strength

    def spy_run(scorers, *args, **kwargs):
        searched.append(len(scorers))
        return real_run(scorers, *args, **kwargs)

    def spy_rows(graphs, train, valid, *args):
        scored.append([v.n_samples for v in valid])
        return real_rows(graphs, train, valid, *args)

    monkeypatch.setattr(grid, "run_penalties", spy_run)
    monkeypatch.setattr(sharing, "heldout_rows_by_strength", spy_rows)
    res = learn_structures(tasks, penalty=0.9, n_restarts=0, n_joint_restarts=0, n_jobs=1, random_state=0)
    assert searched == [13, 13] and len(scored) == 2
    for t, d in enumerate(tasks.values()):
        n = len(d)
        assert [fold[t] for fold in scored] == [n // 5 + (n % 5 > 0), n // 5 + (n % 5 > 1)]
    assert "(2 of 5 CV folds)" in res.sharing["message"]
    five = {name: tasks[name] for name in list(tasks)[:5]}
    searched.clear()
    scored.clear()
    few = learn_structures(five, penalty=0.9, n_restarts=0, n_joint_restarts=0, n_jobs=1, random_state=0)
    assert searched == [5] * 5 and len(scored) == 5 and "(5-fold CV)" in few.sharing["message"]


def test_cli_share_parameters(tmp_path, asia):
    import json

    from mtbn.cli import main
    from tests.test_cli import _run_cli

    paths = []
    for i in range(2):
        paths.append(str(tmp_path / f"t{i}.csv"))
        sample(asia, 200, random_state=i).to_dataframe().to_csv(paths[-1], index=False)
    out = tmp_path / "out"
    assert main(["learn", *paths, "--penalty", "0.9", "--restarts", "0", "--joint-restarts", "0",
                 "--share-parameters", "inf", "--out", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["sharing_strength"] == "inf"
    proc = _run_cli("learn", *paths, "--share-parameters", "-1", "--out", str(tmp_path / "x"))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr
    assert "--share-parameters: must be 'auto', 'none' or a strength >= 0" in lines[0]
    assert main(["learn", *paths, "--penalty", "0.9", "--restarts", "0", "--joint-restarts", "0",
                 "--share-parameters", "none", "--out", str(tmp_path / "alone")]) == 0
    assert "sharing_strength" not in json.loads((tmp_path / "alone" / "summary.json").read_text())
    proc = _run_cli("learn", *paths, "--penalty", "0.9", "--restarts", "0", "--joint-restarts", "0",
                    "--out", str(tmp_path / "auto"))  # a given penalty, the strength chosen: said and kept
    summary = json.loads((tmp_path / "auto" / "summary.json").read_text())
    assert proc.returncode == 0 and "transfer" not in summary
    assert summary["sharing"]["message"].endswith("(5-fold CV)")
    assert summary["sharing"]["strength"] == summary["sharing_strength"]
    assert summary["sharing"]["message"] in proc.stdout.splitlines()


# --- how far each task's table is from the pooled one (issue 32, item 4) ---

def test_family_distances_by_hand_with_one_parent():
    from mtbn.networks import family_distances

    # task a: p=0 -> x=u twice; p=1 -> u once, v once. task b: p=0 -> v twice; p=1 -> u once, v once.
    a = pd.DataFrame({"p": ["0", "0", "1", "1"], "x": ["u", "u", "u", "v"], "z": ["s", "t", "s", "t"]})
    b = pd.DataFrame({"p": ["0", "0", "1", "1"], "x": ["v", "v", "u", "v"], "z": ["s", "s", "t", "t"]})
    ga = DAG.from_edges(["p", "x", "z"], [("p", "x"), ("x", "z")])
    gb = DAG.from_edges(["p", "x", "z"], [("p", "x")])  # x -> z only in task a: not shared
    got = family_distances([ga, gb], {"a": a, "b": b}, equivalent_sample_size=1.0)
    shared = {(r["child"], tuple(r["parents"]), r["task"]): r for r in got}
    assert ("z", ("x",), "a") not in shared and all(r["tasks_sharing"] == 2 for r in got)
    # ess 1, q = 2, r = 2: own(a) = (0.9, 0.1) at p=0 and (0.5, 0.5) at p=1; pooled (0.5, 0.5) at both;
    # weights 1/2, 1/2: KL = 0.5 (0.9 log 1.8 + 0.1 log 0.2)
    by_hand = 0.5 * (0.9 * np.log(1.8) + 0.1 * np.log(0.2))
    assert shared[("x", ("p",), "a")]["kl"] == pytest.approx(by_hand, abs=1e-12)
    assert shared[("x", ("p",), "b")]["kl"] == pytest.approx(by_hand, abs=1e-12)  # mirror image
    # a root family: p has the same counts (2:2) in both tasks, so its table is the pooled one
    assert shared[("p", (), "a")]["kl"] == pytest.approx(0.0, abs=1e-15)


def test_the_learner_and_its_report_show_the_distances(asia_tasks, tmp_path):
    from mtbn.learn import learn_structures
    from mtbn.report import write_learn_report

    kw = dict(penalty=0.9, n_restarts=0, n_joint_restarts=0)
    alone = learn_structures(asia_tasks, parameter_sharing=None, **kw)
    shared = learn_structures(asia_tasks, parameter_sharing=30.0, **kw)
    assert alone.sharing_distances is None
    assert shared.sharing_distances and {r["task"] for r in shared.sharing_distances} == set(asia_tasks.names)
    assert all(r["kl"] >= 0 for r in shared.sharing_distances)
    page = open(write_learn_report(shared, tmp_path)["markdown"], encoding="utf-8").read()
    assert "## Parameter sharing" in page and "strength 30" in page
    # the largest distance of the result heads the table
    top = max(shared.sharing_distances, key=lambda r: r["kl"])
    assert f"| {top['child']}" in page.split("## Parameter sharing")[1]
    assert "## Parameter sharing" not in open(write_learn_report(alone, tmp_path / "a")["markdown"],
                                              encoding="utf-8").read()


def test_fit_with_distances_gives_the_same_networks_and_family_distances(asia, asia_tasks):
    from mtbn.networks import family_distances

    g = [DAG.from_edges(asia.names, [("smoke", "lung"), ("lung", "either")])] * 3
    nets, dist = fit_shared_parameters(g, asia_tasks, strength=10.0, with_distances=True)
    alone = fit_shared_parameters(g, asia_tasks, strength=10.0)
    assert all(np.array_equal(a, b) for n, m in zip(nets, alone) for a, b in zip(n.cpts, m.cpts))
    assert dist == family_distances(g, asia_tasks)


def test_evidence_by_strength_by_hand_with_the_other_tasks_centre():
    """Two tasks, one binary variable (counts 3:1 and 1:3), ess 2: the centre of task a is task b's BDeu
    posterior mean (1 + 1) / (4 + 2) = 1/3 for the first state, and vice versa; Dirichlet-multinomial by hand."""
    from math import lgamma, log

    from mtbn.networks.shared_fitting import evidence_by_strength

    tasks = {"a": pd.DataFrame({"x": list("uuuv")}), "b": pd.DataFrame({"x": list("uvvv")})}
    g = [DAG.empty(["x"])] * 2

    def task(n, centre, s):
        a = [1.0 + s * c for c in centre]
        return lgamma(sum(a)) - lgamma(sum(a) + sum(n)) + sum(lgamma(ai + ni) - lgamma(ai) for ai, ni in zip(a, n))

    ev = evidence_by_strength(g, tasks, grid=[0.0, 3.0, float("inf")], equivalent_sample_size=2.0)
    for s in (0.0, 3.0):
        expected = task((3, 1), (1 / 3, 2 / 3), s) + task((1, 3), (2 / 3, 1 / 3), s)
        assert ev[s] == pytest.approx(expected, rel=1e-12)
    assert ev[float("inf")] == pytest.approx(2 * (3 * log(1 / 3) + log(2 / 3)), rel=1e-12)


def test_fixed_penalty_sharing_with_validation_uses_the_cv_folds_and_never_fails_on_a_small_task():
    """A given penalty with validation= (the penalty selection's rule): the strength is still chosen on cv folds;
    a task too small for them shares nothing instead of failing (review of issue 47's fix)."""
    from mtbn.learn import learn_structures
    from mtbn.networks import load_network

    net = load_network("asia")
    tasks = {"a": sample(net, 200, random_state=0).to_dataframe(), "b": sample(net, 200, random_state=1).to_dataframe(),
             "c": sample(net, 30, random_state=2).to_dataframe()}
    kw = dict(penalty=0.9, n_restarts=0, n_joint_restarts=0, random_state=0)
    with_validation = learn_structures(tasks, validation=30, **kw)
    plain = learn_structures(tasks, **kw)
    assert with_validation.sharing == plain.sharing and with_validation.sharing_strength == plain.sharing_strength
    tiny = {t: d.iloc[:8] for t, d in tasks.items()}
    small = learn_structures(tiny, validation=0.3, **kw)
    assert small.sharing_strength is None and small.sharing["shared"] is False
    assert "too few to choose a strength on" in small.sharing["message"]
