"""Continuous tasks as interventional conditions (mtbn.learn.gaussian_interventions): the grouped Gaussian score
against scores of the stacked rows, the search against enumeration, orientation from interventions, the fitted
regressions against least squares, the prediction, the errors and the command line."""

import json

import numpy as np
import pandas as pd
import pytest

from helpers import all_dags
from mtbn.data import ContinuousData
from mtbn.data.continuous import PooledTasks, centred_scatter
from mtbn.exceptions import InvalidParameterError
from mtbn.learn import learn_structures
from mtbn.learn.gaussian_interventions import ConditionScore, learn_gaussian_interventional
from mtbn.networks.gaussian import LinearGaussianNetwork, implied_moments
from mtbn.score import make_scorer


def _chain(rng, n, shift=None, coefficients=(0.8, -0.7, 0.6)):
    """Rows of the chain x -> y -> z -> w; ``shift``: {variable: added to its mechanism's mean}, and its noise
    doubled (a changed mechanism)."""
    shift = shift or {}
    names = ["x", "y", "z", "w"]
    out = {}
    previous = None
    for v, b in zip(names, (0.0,) + tuple(coefficients)):
        noise = rng.normal(scale=2.0 if v in shift else 1.0, size=n)
        out[v] = shift.get(v, 0.0) + (b * previous if previous is not None else 0.0) + noise
        previous = out[v]
    return pd.DataFrame(out)


def _data(frame, name):
    return ContinuousData(frame.to_numpy(), list(frame.columns), name)


@pytest.fixture(scope="module")
def conditions():
    rng = np.random.default_rng(5)
    return {"obs": _chain(rng, 600), "do-x": _chain(rng, 600, {"x": 3.0}), "do-z": _chain(rng, 600, {"z": -3.0})}


def test_pooled_tasks_give_the_scatter_of_their_rows_stacked():
    rng = np.random.default_rng(0)
    parts = [ContinuousData(rng.normal(loc=m, size=(n, 3)), ["a", "b", "c"], f"t{m}") for m, n in ((0, 40), (2, 7),
                                                                                               (-1, 90))]
    mean, scatter = PooledTasks(parts).centred_scatter()
    stacked_mean, stacked_scatter = centred_scatter(np.vstack([p.values for p in parts]))
    assert np.allclose(mean, stacked_mean) and np.allclose(scatter, stacked_scatter)
    one_mean, one_scatter = PooledTasks(parts[:1]).centred_scatter()
    assert np.array_equal(one_scatter, parts[0].centred_scatter()[1])
    assert np.array_equal(one_mean, parts[0].centred_scatter()[0])
    assert PooledTasks(parts).n_samples == 137


@pytest.mark.parametrize("score", ["bge", "bic-g"])
def test_a_family_is_scored_on_its_groups_of_rows(conditions, score):
    """The family's score with no indicator parent is the score of every task's rows stacked; with a task's
    indicator among its parents, the score of the other tasks' rows stacked plus that task's own."""
    datas = [_data(f, n) for n, f in conditions.items()]
    scorer = ConditionScore(datas, score, indicator_tasks=[1, 2])

    def stacked(tasks, child, parents):
        rows = ContinuousData(np.vstack([datas[t].values for t in tasks]), datas[0].names, "rows")
        return make_scorer(rows, score).local_score(child, parents)

    assert scorer.local_score(1, [0]) == pytest.approx(stacked([0, 1, 2], 1, [0]), rel=1e-10)
    # column 4 is the indicator of task 1, column 5 that of task 2
    assert scorer.local_score(2, [1, 5]) == pytest.approx(stacked([0, 1], 2, [1]) + stacked([2], 2, [1]), rel=1e-10)
    assert scorer.local_score(2, [1, 4]) == pytest.approx(stacked([0, 2], 2, [1]) + stacked([1], 2, [1]), rel=1e-10)
    assert scorer.local_score(0, [4, 5]) == pytest.approx(stacked([0], 0, []) + stacked([1], 0, [])
                                                          + stacked([2], 0, []), rel=1e-10)
    assert scorer.local_score(4, []) == 0.0  # an indicator: a root, fixed by design
    perfect = ConditionScore(datas, score, skip=[frozenset({1}), frozenset(), frozenset({2}), frozenset()])
    assert perfect.local_score(0, []) == pytest.approx(stacked([0, 2], 0, []), rel=1e-10)
    assert perfect.local_score(2, [1]) == pytest.approx(stacked([0, 1], 2, [1]), rel=1e-10)


def test_the_search_reaches_the_best_augmented_dag_by_enumeration():
    """Three variables, an observational task and one of unknown targets (its indicator free): of the DAGs over
    the three variables and the indicator with nothing into the indicator, the learner's model scores the best."""
    rng = np.random.default_rng(11)
    frames = {"obs": _chain(rng, 300)[["x", "y", "z"]], "drug": _chain(rng, 300, {"y": 2.0})[["x", "y", "z"]]}
    res = learn_gaussian_interventional(frames, {"obs": []}, n_restarts=5)
    scorer = ConditionScore([_data(f, n) for n, f in frames.items()], "bge", indicator_tasks=[1])
    best = max(scorer.score(ps) for ps in all_dags(4) if not ps[3])
    assert res.log_score == pytest.approx(best, abs=1e-6)
    assert res.interventions.changed["drug"] == {"y": "learned"}


def test_known_targets_orient_the_chain(conditions):
    """x -> y -> z -> w: the observational rows give only the skeleton; shifting x and z (targets given) and
    keeping every other mechanism orients every arc."""
    res = learn_gaussian_interventional(conditions, {"obs": [], "do-x": ["x"], "do-z": ["z"]}, n_restarts=5)
    assert sorted(res.interventions.causal_graph.edges(names=True)) == [("x", "y"), ("y", "z"), ("z", "w")]
    assert res.interventions.changed == {"obs": {}, "do-x": {"x": "given"}, "do-z": {"z": "given"}}
    assert [g.edges(names=True) for g in res.graphs] == [res.interventions.causal_graph.edges(names=True)] * 3


def test_unknown_targets_are_found(conditions):
    res = learn_structures(conditions, interventions={"obs": []}, n_restarts=5)
    assert res.interventions.changed["do-x"] == {"x": "learned"}
    assert res.interventions.changed["do-z"] == {"z": "learned"}
    assert sorted(res.interventions.causal_graph.edges(names=True)) == [("x", "y"), ("y", "z"), ("z", "w")]


def test_unchanged_regressions_are_tied_and_fitted_on_the_rows_that_keep_them(conditions):
    """Each family's regression by least squares (numpy's lstsq, an independent fit) on its group's rows: y | x on
    every task's rows (no task changes it), z | y on do-z's rows alone in do-z and on the others' elsewhere."""
    res = learn_gaussian_interventional(conditions, {"obs": [], "do-x": ["x"], "do-z": ["z"]}, n_restarts=2)
    nets = dict(zip(res.task_names, res.networks))

    def lstsq(tasks, child, parent):
        rows = np.vstack([conditions[t][[parent, child]].to_numpy() for t in tasks])
        design = np.column_stack([np.ones(len(rows)), rows[:, 0]])
        beta, resid, _, _ = np.linalg.lstsq(design, rows[:, 1], rcond=None)
        return beta, float(resid[0]) / len(rows)

    y, z = 1, 2
    beta, variance = lstsq(["obs", "do-x", "do-z"], "y", "x")
    for net in nets.values():
        assert np.allclose([net.intercepts[y], net.coefficients[y][0]], beta)
        assert net.variances[y] == pytest.approx(variance)
    beta, variance = lstsq(["do-z"], "z", "y")
    assert np.allclose([nets["do-z"].intercepts[z], nets["do-z"].coefficients[z][0]], beta)
    beta, variance = lstsq(["obs", "do-x"], "z", "y")
    assert np.allclose([nets["obs"].intercepts[z], nets["obs"].coefficients[z][0]], beta)
    assert nets["obs"].coefficients[z][0] == nets["do-x"].coefficients[z][0]
    causal = res.interventions.causal_network
    assert causal.coefficients[z][0] == nets["obs"].coefficients[z][0]


def _cut(rng, n, target):
    """Rows of the chain x -> y -> z -> w with ``target`` set from outside (its parents cut: mean 1, sd 1.5)."""
    out, previous = {}, None
    for v, b in zip("xyzw", (0.0, 0.8, -0.7, 0.6)):
        if v == target:
            out[v] = 1.0 + rng.normal(scale=1.5, size=n)
        else:
            out[v] = (b * previous if previous is not None else 0.0) + rng.normal(size=n)
        previous = out[v]
    return pd.DataFrame(out)


def test_perfect_interventions_cut_the_targets_parents():
    """A target's family is left out of its task's rows: in that task it has no parents and its own rows' mean
    and variance; elsewhere its regression is fitted on the other tasks' rows; the chain is oriented."""
    rng = np.random.default_rng(8)
    frames = {"obs": _cut(rng, 600, None), "do-y": _cut(rng, 600, "y"), "do-z": _cut(rng, 600, "z")}
    res = learn_gaussian_interventional(frames, {"obs": [], "do-y": ["y"], "do-z": ["z"]},
                                        intervention_type="perfect", n_restarts=2)
    nets = dict(zip(res.task_names, res.networks))
    y = 1
    assert nets["do-y"].parents[y] == () and nets["obs"].parents[y] == (0,)
    assert nets["do-y"].intercepts[y] == pytest.approx(frames["do-y"]["y"].mean())
    assert nets["do-y"].variances[y] == pytest.approx(frames["do-y"]["y"].var(ddof=0))
    assert sorted(res.interventions.causal_graph.edges(names=True)) == [("x", "y"), ("y", "z"), ("z", "w")]
    assert res.interventions.type == "perfect"
    assert res.interventions.changed == {"obs": {}, "do-y": {"y": "given"}, "do-z": {"z": "given"}}


def test_the_moments_a_network_implies_are_its_samples():
    net = LinearGaussianNetwork(("a", "b", "c"), ((), (0,), (0, 1)), np.array([1.0, -2.0, 0.5]),
                                (np.zeros(0), np.array([1.5]), np.array([-0.5, 2.0])), np.array([1.0, 0.5, 2.0]))
    means, covariance = implied_moments(net)
    rows = net.sample(400_000, random_state=0).values
    assert np.allclose(means, rows.mean(0), atol=0.02)
    assert np.allclose(covariance, np.cov(rows.T), rtol=0.02, atol=0.02)


def test_a_predicted_condition_replaces_only_the_targets_regressions(conditions):
    res = learn_gaussian_interventional(conditions, {"obs": [], "do-x": ["x"], "do-z": ["z"]}, n_restarts=2)
    model = res.interventions
    causal = model.causal_network
    y = 1
    done = model.predict(["y"], {"y": (5.0, 0.25)})
    assert done.parents[y] == () and (done.intercepts[y], done.variances[y]) == (5.0, 0.25)
    for v in (0, 2, 3):
        assert done.parents[v] == causal.parents[v] and np.array_equal(done.coefficients[v], causal.coefficients[v])
    for bad in [(2.0, -1.0), (2.0, 0.0), (float("nan"), 1.0), 2.0, (2.0,), (1.0, 2.0, 3.0)]:
        # a negative variance gave a network whose log-likelihood was NaN; a bare number, an unpacking error
        with pytest.raises(InvalidParameterError, match=r"^predict: the distribution of 'y' must be a pair \(mean, "
                                                        r"variance\) of finite numbers, the variance above 0; got "):
            model.predict(["y"], {"y": bad})
    own = model.predict(["y"])  # no distribution: y's marginal in the reference regime
    means, covariance = implied_moments(causal)
    assert (own.intercepts[y], own.variances[y]) == pytest.approx((means[y], covariance[y, y]))


def test_settings_that_do_not_apply_are_refused(conditions):
    targets = {"obs": [], "do-x": ["x"]}
    with pytest.raises(InvalidParameterError, match="^penalty= does not apply with interventions="):
        learn_structures(conditions, interventions=targets, penalty=0.5)
    with pytest.raises(InvalidParameterError, match="^for continuous tasks tabu_length applies only with"):
        learn_structures(conditions, tabu_length=3)
    with pytest.raises(InvalidParameterError, match="task 'do-x' targets 'v', which is not a variable"):
        learn_structures(conditions, interventions={"do-x": ["v"]})
    with pytest.raises(InvalidParameterError, match="unknown task 'nope'"):
        learn_structures(conditions, interventions={"nope": []})
    with pytest.raises(InvalidParameterError, match="every task intervenes on 'x'"):
        learn_structures(conditions, interventions={t: ["x"] for t in conditions}, intervention_type="perfect")


def test_mtbn_learn_writes_the_causal_dag_and_the_changed_mechanisms_of_continuous_files(tmp_path, conditions,
                                                                                       capsys):
    from mtbn.cli import main
    from mtbn.networks.gaussian import read_gaussian_network

    paths = []
    for name, frame in conditions.items():
        paths.append(str(tmp_path / f"{name}.csv"))
        frame.to_csv(paths[-1], index=False)
    (tmp_path / "t.json").write_text(json.dumps({"obs": [], "do-x": ["x"]}))
    out = tmp_path / "out"
    assert main(["learn", "--interventions", str(tmp_path / "t.json"), "--restarts", "2", "--predict", "y",
                 "--out", str(out), *paths]) == 0
    printed = capsys.readouterr().out
    assert "do-z (targets unknown): changed mechanisms z (learned)" in printed
    assert "continuous task(s) as Gaussian networks (bge, one causal DAG)" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["penalty"] is None and summary["interventions"]["predicted_targets"] == ["y"]
    assert summary["options"]["score"] == summary["score"] == "bge"  # the score used ("bdeu", the flag's default)
    assert {"task": "do-z", "variable": "z", "how": "learned"} in summary["interventions"]["changed"]
    assert (out / "interventions" / "mechanisms.csv").read_text().splitlines() == [
        "task,variable,how", "do-x,x,given", "do-z,z,learned"]
    predicted = read_gaussian_network(out / "interventions" / "predicted.gaussian.json")
    causal = read_gaussian_network(out / "interventions" / "causal.gaussian.json")
    assert predicted.parents[1] == () and causal.parents[1] == (0,)
    assert (out / "do-x.gaussian.json").exists() and (out / "interventions" / "causal.edges.csv").exists()
    assert main(["learn", "--interventions", str(tmp_path / "t.json"), "--bootstrap", "3", "--restarts", "1",
                 "--out", str(tmp_path / "o2"), *paths]) == 0
    capsys.readouterr()
    frequency = pd.read_csv(tmp_path / "o2" / "bootstrap" / "mechanisms.csv", index_col="task")
    assert frequency.loc["do-x", "x"] == 1.0 and frequency.loc["obs"].sum() == 0.0
    assert json.loads((tmp_path / "o2" / "summary.json").read_text())["bootstrap"]["structures"] == "interventional"
    assert main(["learn", "--predict", "y", "--out", str(tmp_path / "o3"), *paths]) == 2
    assert capsys.readouterr().err.strip() == ("mtbn: error: --predict needs --interventions (the network of an "
                                               "unseen condition comes from the interventional model)")


def test_the_estimator_learns_continuous_conditions(conditions):
    """MultitaskStructureLearner(interventions=...) on continuous tasks: the learner's model, and score() the mean
    log-likelihood per row of each task's rows under its network."""
    from mtbn.estimators import MultitaskStructureLearner

    targets = {"obs": [], "do-x": ["x"], "do-z": ["z"]}
    est = MultitaskStructureLearner(interventions=targets, n_restarts=2).fit(conditions)
    direct = learn_gaussian_interventional(conditions, targets, n_restarts=2)
    assert est.result_.interventions.changed == direct.interventions.changed
    assert est.data_kind_ == "gaussian"
    expected = np.mean([net.log_likelihood(_data(conditions[n], n), per_row=True).mean()
                        for n, net in zip(direct.task_names, direct.networks)])
    assert est.score(conditions) == pytest.approx(expected)


def _blocked(rng, n, target):
    """Rows of the chain x -> y -> z -> w where ``target``'s children stop seeing it (an inhibitor of what it
    does): the child's coefficient on it is 0, everything else as observed."""
    out, previous = {}, None
    for v, b in zip("xyzw", (0.0, 0.8, -0.7, 0.6)):
        seen = previous is not None and out and list(out)[-1] != target
        out[v] = (b * previous if seen else 0.0) + rng.normal(size=n)
        previous = out[v]
    return pd.DataFrame(out)


def test_activity_interventions_change_the_targets_children():
    """Inhibitors of y's and of z's activity: the held-out rows choose the activity model, whose changed
    mechanisms are the targets' children in the learned DAG (z and w), and which orients the chain."""
    rng = np.random.default_rng(2)
    frames = {"obs": _blocked(rng, 800, None), "inh-y": _blocked(rng, 800, "y"), "inh-z": _blocked(rng, 800, "z")}
    res = learn_structures(frames, interventions={"obs": [], "inh-y": ["y"], "inh-z": ["z"]}, n_restarts=2)
    model = res.interventions
    assert model.type == "activity" and set(model.adjacencies["types"]) == {"mechanism", "activity"}
    assert model.adjacencies["types"]["activity"] > model.adjacencies["types"]["mechanism"]
    assert model.changed["inh-y"] == {"z": "activity"} and model.changed["inh-z"] == {"w": "activity"}
    assert sorted(model.causal_graph.edges(names=True)) == [("x", "y"), ("y", "z"), ("z", "w")]
    nets = dict(zip(res.task_names, res.networks))
    z = 2
    assert nets["inh-y"].coefficients[z][0] == pytest.approx(0.0, abs=0.1)  # its own regression: z ignores y
    assert nets["obs"].coefficients[z][0] == pytest.approx(-0.7, abs=0.1)


def test_a_predicted_activity_condition_averages_the_childrens_regressions():
    """do(y) under activity interventions: y's child z stops seeing y; its regression averaged over y's
    distribution N(m, s2) has intercept b0 + b m and variance v + b^2 s2 (hand-computed from the causal
    network); children="keep" leaves z's regression as it is."""
    rng = np.random.default_rng(2)
    frames = {"obs": _blocked(rng, 800, None), "inh-y": _blocked(rng, 800, "y"), "inh-z": _blocked(rng, 800, "z")}
    model = learn_structures(frames, interventions={"obs": [], "inh-y": ["y"], "inh-z": ["z"]},
                             n_restarts=2).interventions
    causal = model.causal_network
    y, z, w = 1, 2, 3
    assert causal.parents[z] == (y,)
    b0, b, v = causal.intercepts[z], causal.coefficients[z][0], causal.variances[z]
    done = model.predict(["y"], {"y": (1.5, 0.3)})
    assert done.parents[z] == () and done.intercepts[z] == pytest.approx(b0 + b * 1.5)
    assert done.variances[z] == pytest.approx(v + b ** 2 * 0.3)
    assert done.parents[w] == causal.parents[w]  # w is not a child of y
    kept = model.predict(["y"], {"y": (1.5, 0.3)}, children="keep")
    assert kept.parents[z] == (y,) and kept.intercepts[z] == b0


def test_the_bootstrap_of_continuous_conditions_reruns_the_interventional_learner(conditions):
    """Each replicate is the interventional learner on rows drawn within every condition, with the model the
    result chose: replicate 0 by hand gives the same structures and changed mechanisms."""
    from mtbn.bootstrap import bootstrap_structures

    targets = {"obs": [], "do-x": ["x"]}
    res = learn_structures(conditions, interventions=targets, n_restarts=1)
    boot = bootstrap_structures(conditions, n_boot=3, interventions=targets, n_restarts=1, result=res,
                                random_state=4)
    assert boot.changed.shape == (3, 3, 4) and boot.mechanism_frequency().loc["do-x", "x"] == 1.0
    base = int(np.random.default_rng(4).integers(0, 2**31 - 1))
    rng = np.random.default_rng([base, 0])
    drawn = {n: _data(f, n).take(rng.integers(0, len(f), len(f))) for n, f in conditions.items()}
    one = learn_gaussian_interventional(drawn, targets, n_restarts=1, random_state=base,
                                        intervention_type=res.interventions.type)
    for t, g in enumerate(one.graphs):
        mine = {(boot.variables[u], boot.variables[v]) for u, v in np.argwhere(boot.edges[0, t])}
        assert mine == set(g.edges(names=True))
    found = {(boot.task_names[t], boot.variables[v]) for t, v in np.argwhere(boot.changed[0])}
    assert found == {(t, v) for t, per in one.interventions.changed.items() for v in per}


def test_dropping_group_scorers_changes_no_score(conditions, monkeypatch):
    """The group scorers kept are bounded (MAX_GROUPS, least recently used first out); a group dropped and built
    again scores to the same bits."""
    from mtbn.learn import gaussian_interventions

    datas = [_data(f, n) for n, f in conditions.items()]
    families = [(2, (1, 4)), (2, (1, 5)), (2, (1,)), (3, (2, 4, 5)), (2, (1, 4))]
    kept = [ConditionScore(datas, "bge", [1, 2]).local_score_uncached(v, ps) for v, ps in families]
    monkeypatch.setattr(gaussian_interventions, "MAX_GROUPS", 1)
    scorer = ConditionScore(datas, "bge", [1, 2])
    assert [scorer.local_score_uncached(v, ps) for v, ps in families] == kept
    assert len(scorer._groups) == 1
