"""Issue 46: tasks as interventional conditions of one system.

Truths: pgmpy's own BDeu scorer on the pooled rows with the condition
indicators as columns (the tied score of the mechanism model) and on the rows
left after removing the intervened ones (Cooper & Yoo's perfect-intervention
score); CPTs recomputed by hand from counts; two-variable systems whose only
orienting evidence is the intervention; and digests of the learner's output
recorded before the interventional code existed (commit 0890c05), for the
promise that nothing changes without ``interventions``.
"""

import hashlib
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from mtbn import MultitaskStructureLearner
from mtbn.bootstrap import bootstrap_structures
from mtbn.data import DiscreteData, load_sachs_conditions, make_taskset
from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.graph import DAG
from mtbn.learn import learn_structures
from mtbn.learn.interventional import learn_interventional
from mtbn.networks import load_network, log_likelihood, sample

from helpers import one_line_error, run_mtbn


def _two_variable_tasks(target, kind, n=3000, seed=0):
    """``x -> y`` (y copies x 90% of the time); an observational task and one that intervenes on ``target``."""
    rng = np.random.default_rng(seed)

    def draw(p_x, copy, n):
        x = (rng.random(n) < p_x).astype(int)
        y = np.where(rng.random(n) < copy, x, 1 - x)
        return x, y

    x0, y0 = draw(0.3, 0.9, n)
    if target == "x":
        x1, y1 = draw(0.8, 0.9, n)  # x's mechanism (its marginal) changes, y | x stays
    else:
        x1, _ = draw(0.3, 0.9, n)
        y1 = (rng.random(n) < (0.5 if kind == "perfect" else 0.2 + 0.3 * x1)).astype(int)  # y's mechanism changes
    frame = lambda x, y: pd.DataFrame({"x": np.array(["lo", "hi"])[x], "y": np.array(["lo", "hi"])[y]})  # noqa: E731
    return {"obs": frame(x0, y0), "do": frame(x1, y1)}


# ---------------------------------------------------------------------------
# Checked before any work
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def asia_tasks():
    net = load_network("asia")
    return {t: sample(net, 300, random_state=i).to_dataframe() for i, t in enumerate(("obs", "a", "b"))}


@pytest.mark.parametrize("interventions, kind, message", [
    ({"nope": []}, "mechanism", r"interventions: unknown task 'nope'; tasks are 'obs', 'a', 'b'\."),
    ({"a": ["lungs"]}, "mechanism", r"interventions: task 'a' targets 'lungs', which is not a variable of the tasks\."),
    ({"a": ["lung", "lung"]}, "mechanism", r"interventions: task 'a' lists target 'lung' twice\."),
    ({"a": "lung"}, "mechanism", r"interventions must map task names to lists of target variables"),
    (["a"], "mechanism", r"interventions must map task names to lists of target variables .*got list"),
    ({"obs": [], "a": ["lung"]}, "perfect", r"intervention_type='perfect' needs every task's targets; task 'b' has none"),
])
def test_bad_interventions_get_one_line_naming_what_is_wrong(asia_tasks, interventions, kind, message):
    with pytest.raises((InvalidParameterError, InvalidDataError), match=message):
        learn_structures(asia_tasks, interventions=interventions, intervention_type=kind)


def test_a_task_that_intervenes_on_every_variable_is_refused(asia_tasks):
    everything = list(asia_tasks["a"].columns)
    with pytest.raises(InvalidParameterError, match=r"task 'a' intervenes on every variable \(8\)"):
        learn_structures(asia_tasks, interventions={"a": everything})


def test_a_target_the_task_does_not_measure_is_refused(asia_tasks):
    tasks = dict(asia_tasks, b=asia_tasks["b"].drop(columns=["tub"]))
    with pytest.raises(InvalidDataError, match=r"interventions: task 'b' has no column 'tub' to intervene on\."):
        learn_structures(tasks, interventions={"b": ["tub"]})
    with pytest.raises(InvalidDataError, match=r"interventions need every task over the same variables: task 'b'"):
        learn_structures(tasks, interventions={"b": ["lung"]})


@pytest.mark.parametrize("setting", [{"penalty": 0.5}, {"prior": "edit"}, {"parameter_sharing": None},
                                     {"cv": 3}])
def test_a_multitask_setting_given_with_interventions_is_refused(asia_tasks, setting):
    name = next(iter(setting))
    with pytest.raises(InvalidParameterError, match=rf"^{name}= does not apply with interventions="):
        learn_structures(asia_tasks, interventions={"obs": []}, **setting)


def test_the_command_line_checks_the_interventions_before_the_work(tmp_path):
    net = load_network("asia")
    paths = []
    for t in ("obs", "a"):
        paths.append(tmp_path / f"{t}.csv")
        sample(net, 200, random_state=len(paths)).to_dataframe().to_csv(paths[-1], index=False)
    (tmp_path / "bad.json").write_text(json.dumps({"obs": [], "z": ["lung"]}))
    proc = run_mtbn("learn", "--interventions", "bad.json", "--out", tmp_path / "o", *paths, cwd=tmp_path)
    assert one_line_error(proc) == "interventions: unknown task 'z'; tasks are 'obs', 'a'."
    assert proc.stdout == "" and not (tmp_path / "o").exists()
    (tmp_path / "bad.csv").write_text("condition,target\nobs,\n")
    proc = run_mtbn("learn", "--interventions", "bad.csv", "--out", tmp_path / "o", *paths, cwd=tmp_path)
    assert proc.returncode == 2 and "a CSV file needs the header task,variable" in proc.stderr
    proc = run_mtbn("learn", "--predict", "lung", "--out", tmp_path / "o", *paths, cwd=tmp_path)
    assert one_line_error(proc).startswith("--predict needs --interventions")
    (tmp_path / "ok.csv").write_text("task,variable\nobs,\na,lung\n")
    proc = run_mtbn("learn", "--interventions", "ok.csv", "--predict", "lungs", "--out", tmp_path / "o", *paths,
                    cwd=tmp_path)
    assert one_line_error(proc) == "--predict: 'lungs' is not a variable of the tasks"
    proc = run_mtbn("learn", "--interventions", "ok.csv", "--predict-children", "keep", "--out", tmp_path / "o",
                    *paths, cwd=tmp_path)
    assert one_line_error(proc).startswith("--predict-children says how a predicted condition acts")
    for option in (["--joint-restarts", "3"], ["--force-transfer"]):  # named as typed ("n_joint_restarts" before)
        proc = run_mtbn("learn", "--interventions", "ok.csv", *option, "--out", tmp_path / "o", *paths, cwd=tmp_path)
        assert one_line_error(proc) == (f"{option[0]} does not apply with --interventions (one causal DAG is learned "
                                        "for all tasks, without a multitask prior); leave it at its default.")
    for predict in ("", ",", " , "):  # no target: refused, not the causal network written as a prediction
        proc = run_mtbn("learn", "--interventions", "ok.csv", "--predict", predict, "--out", tmp_path / "o", *paths,
                        cwd=tmp_path)
        assert one_line_error(proc) == "--predict names no variable; give the targets of the condition to predict " \
                                       "(e.g. --predict raf,mek)"
    assert not (tmp_path / "o").exists()


def test_mtbn_learn_predicts_a_condition_whose_children_keep_their_cpts(tmp_path):
    """--predict-children keep: the predicted network is the causal network with only the targets' CPTs replaced;
    the default (average) changes the targets' children under activity interventions."""
    from mtbn.networks import read_network

    net = load_network("asia")
    paths = []
    for t in ("obs", "a"):
        paths.append(tmp_path / f"{t}.csv")
        sample(net, 300, random_state=len(paths)).to_dataframe().to_csv(paths[-1], index=False)
    (tmp_path / "t.csv").write_text("task,variable\nobs,\na,lung\n")
    nets = {}
    for children in ("keep", "average"):
        out = tmp_path / children
        proc = run_mtbn("learn", "--interventions", "t.csv", "--intervention-type", "activity", "--restarts", "1",
                        "--predict", "tub", "--predict-children", children, "--out", out, *paths, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        nets[children] = (read_network(out / "interventions" / "predicted.bifxml"),
                          read_network(out / "interventions" / "causal.bifxml"))
        record = json.loads((out / "summary.json").read_text())["interventions"]
        assert (record["predicted_targets"], record["predicted_children"]) == (["tub"], children)
    kept, causal = nets["keep"]
    tub = kept.names.index("tub")
    assert kept.parents[tub] == () and np.allclose(kept.cpts[tub], 0.5)
    children = [v for v, ps in enumerate(causal.parents) if tub in ps]
    assert children  # tub has a child in the learned DAG, so the two readings differ
    for v in range(len(kept.names)):
        if v != tub:
            assert kept.parents[v] == causal.parents[v] and np.allclose(kept.cpts[v], causal.cpts[v])
    averaged = nets["average"][0]
    assert not all(np.allclose(averaged.cpts[v], causal.cpts[v]) for v in children)
    # a mechanism model has no children to treat: --predict-children is not recorded, and a note says so
    out = tmp_path / "mechanism"
    proc = run_mtbn("learn", "--interventions", "t.csv", "--intervention-type", "mechanism", "--restarts", "1",
                    "--predict", "tub", "--predict-children", "keep", "--out", out, *paths, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "note: --predict-children changes nothing here: the model is 'mechanism'" in proc.stdout
    record = json.loads((out / "summary.json").read_text())["interventions"]
    assert (record["predicted_targets"], record["predicted_children"]) == (["tub"], None)


def test_the_interventions_file_reader(tmp_path):
    from mtbn.cli.values import interventions_file

    (tmp_path / "t.csv").write_text("task,variable\ncontrol,\ndrug,pmek\ndrug,praf\n")
    assert interventions_file(str(tmp_path / "t.csv")) == {"control": [], "drug": ["pmek", "praf"]}
    (tmp_path / "t.json").write_text(json.dumps({"control": [], "other": None}))
    assert interventions_file(str(tmp_path / "t.json")) == {"control": [], "other": None}
    (tmp_path / "twice.json").write_text('{"drug": ["pmek"], "control": [], "drug": ["praf"]}')
    with pytest.raises(Exception, match=r"^cannot read .*twice\.json' as interventions \(task 'drug' is named "
                                        r"twice\)$"):  # json.loads would keep the last silently
        interventions_file(str(tmp_path / "twice.json"))


# ---------------------------------------------------------------------------
# The score, against pgmpy's
# ---------------------------------------------------------------------------


def _pgmpy_bdeu(frame, graph, ess=1.0):
    """pgmpy's BDeu score of ``graph`` (names) on ``frame``, with every column's states as in the frame."""
    from pgmpy.estimators import BDeu
    from pgmpy.models import DiscreteBayesianNetwork

    model = DiscreteBayesianNetwork()
    model.add_nodes_from(frame.columns)
    model.add_edges_from(graph)
    return BDeu(frame, equivalent_sample_size=ess).score(model)


def test_the_mechanism_score_is_bdeu_of_all_rows_with_condition_indicators(asia_tasks):
    res = learn_structures(asia_tasks, interventions={"obs": [], "a": ["lung"]}, n_restarts=2)
    model = res.interventions
    frame = pd.concat([asia_tasks[t].assign(**{ind: "1" if task == t else "0" for task, ind in model.indicators.items()})
                       for t in asia_tasks], ignore_index=True)
    edges = list(model.causal_graph.edges(names=True))
    edges += [(model.indicators[t], v) for t, per in model.changed.items() for v in per]
    assert set(model.indicators) == {"a", "b"}  # obs is observational: no indicator; b's targets are unknown
    assert ("do(a)", "lung") in edges
    assert res.log_score == pytest.approx(_pgmpy_bdeu(frame, edges), rel=1e-12, abs=1e-7)


def test_the_activity_score_gives_a_targets_children_the_tasks_indicator(asia_tasks):
    """Activity interventions: the score is BDeu of all rows with do(task) a parent of every child of the task's
    targets (and of a target whose own change the search found), checked against pgmpy on the augmented rows."""
    res = learn_structures(asia_tasks, interventions={"obs": [], "a": ["lung"], "b": ["smoke"]},
                           intervention_type="activity", n_restarts=2)
    model = res.interventions
    graph = model.causal_graph
    frame = pd.concat([asia_tasks[t].assign(**{ind: "1" if task == t else "0"
                                               for task, ind in model.indicators.items()})
                       for t in asia_tasks], ignore_index=True)
    for task, target in (("a", "lung"), ("b", "smoke")):
        children = {graph.names[c] for c in range(len(graph.names)) if graph.names.index(target) in graph.parents[c]}
        assert children and {v for v, how in model.changed[task].items() if how == "activity"} == children
        assert set(model.changed[task]) <= children | {target}
    edges = list(graph.edges(names=True)) + [(model.indicators[t], v) for t, per in model.changed.items() for v in per]
    assert res.log_score == pytest.approx(_pgmpy_bdeu(frame, edges), rel=1e-12, abs=1e-7)
    # each task's network: a child of a target has its own CPT in that task, every other family the tied one
    nets = dict(zip(res.task_names, res.networks))
    for v, name in enumerate(graph.names):
        assert np.array_equal(nets["obs"].cpts[v], nets["a"].cpts[v]) == (name not in model.changed["a"]), name


def test_the_activity_scorer_extends_a_family_as_it_scores_it(asia_tasks):
    """The vectorised extension scores (one call per child) equal the family scores looked up one at a time."""
    from mtbn.learn.interventional import _ActivityScorer, _pooled
    from mtbn.score import make_scorer

    ts = make_taskset(asia_tasks)
    data, _ = _pooled(ts, {"a": "do(a)", "b": "do(b)"})
    names = list(data.names)
    via = {names.index("either"): {names.index("do(a)")}, names.index("smoke"): {names.index("do(b)")}}
    scorer = _ActivityScorer(make_scorer(data, "bdeu", 1.0), via)
    plain = make_scorer(data, "bdeu", 1.0)
    for child in range(len(names) - 2):
        for parents in (set(), {names.index("either")}, {names.index("tub"), names.index("do(a)")}):
            parents = parents - {child}
            others = [u for u in range(len(names)) if u != child and u not in parents]
            got = scorer.extension_scores(child, parents, others)
            one = [scorer.local_score(child, parents | {u}) for u in others]
            assert np.allclose(got, one, rtol=0, atol=1e-9)
            # what the score is: the plain BDeu with the targets' indicators added to the parents
            want = [plain.local_score_uncached(child, parents | {u} | set().union(*[via.get(p, set())
                                                                                    for p in parents | {u}]))
                    for u in others]
            assert np.allclose(one, want, rtol=0, atol=1e-9)


def test_the_perfect_score_leaves_the_intervened_rows_out_of_the_targets_families(asia_tasks):
    targets = {"obs": [], "a": ["lung"], "b": ["bronc", "tub"]}
    res = learn_structures(asia_tasks, interventions=targets, intervention_type="perfect", n_restarts=2)
    from pgmpy.estimators import BDeu

    graph = res.interventions.causal_graph
    all_rows = pd.concat(asia_tasks.values(), ignore_index=True)
    states = {c: sorted(all_rows[c].unique()) for c in all_rows}  # every state, as the tasks' state lists
    total = 0.0
    for v in graph.names:  # each family on the rows of the tasks that do not intervene on v (Cooper & Yoo 1999)
        keep = pd.concat([asia_tasks[t] for t in asia_tasks if v not in targets[t]], ignore_index=True)
        parents = sorted(graph.names[p] for p in graph.parents[graph.names.index(v)])
        total += BDeu(keep, equivalent_sample_size=1.0, state_names=states).local_score(v, parents)
    assert res.log_score == pytest.approx(total, rel=1e-12, abs=1e-7)


# ---------------------------------------------------------------------------
# The networks
# ---------------------------------------------------------------------------


def test_cpts_are_tied_across_tasks_except_where_a_mechanism_changes(asia_tasks):
    res = learn_structures(asia_tasks, interventions={"obs": [], "a": ["lung"], "b": ["either"]},
                           n_restarts=2)
    model = res.interventions
    assert model.changed == {"obs": {}, "a": {"lung": "given"}, "b": {"either": "given"}}
    nets = dict(zip(res.task_names, res.networks))
    for v, name in enumerate(model.causal_graph.names):
        same = [np.array_equal(nets["obs"].cpts[v], nets[t].cpts[v]) for t in ("a", "b")]
        assert same == [name != "lung", name != "either"], name
        assert np.array_equal(nets["obs"].cpts[v], model.causal_network.cpts[v])
    # lung's CPT in task a, by hand: BDeu posterior mean of a's rows with alpha = ess / (q r), where the
    # configurations q count the indicator do(a) as a parent (2 x lung's own parents').
    import itertools

    data = make_taskset(asia_tasks)["a"]
    lung = model.causal_graph.names.index("lung")
    parents = [model.causal_graph.names[p] for p in nets["a"].parents[lung]]
    arities = [int(data.arities[data.index(p)]) for p in parents]
    r = int(data.arities[data.index("lung")])
    q = 2 * int(np.prod(arities))
    for config in itertools.product(*[range(a) for a in arities]):
        rows = np.ones(data.n_samples, dtype=bool)
        for p, value in zip(parents, config):
            rows &= data.codes[:, data.index(p)] == value
        n_jk = np.bincount(data.codes[rows, data.index("lung")], minlength=r)
        assert np.allclose(nets["a"].cpts[lung][config], (n_jk + 1.0 / (q * r)) / (rows.sum() + 1.0 / q), rtol=1e-12)


def test_a_perfect_target_has_no_parents_and_its_rows_distribution(asia_tasks):
    res = learn_structures(asia_tasks, interventions={"obs": [], "a": ["dysp"], "b": []},
                           intervention_type="perfect", n_restarts=2)
    nets = dict(zip(res.task_names, res.networks))
    dysp = res.interventions.causal_graph.names.index("dysp")
    assert nets["a"].parents[dysp] == () and nets["obs"].parents[dysp] != ()
    states = make_taskset(asia_tasks).states[dysp]
    counts = asia_tasks["a"]["dysp"].value_counts()
    expected = [(counts.get(s, 0) + 1.0 / len(states)) / (len(asia_tasks["a"]) + 1.0) for s in states]
    assert np.allclose(nets["a"].cpts[dysp], expected, rtol=1e-12)
    assert res.graphs[1].parents[dysp] == set() and res.graphs[0].parents[dysp]


@pytest.mark.parametrize("target", ["x", "y"])
@pytest.mark.parametrize("kind", ["mechanism", "perfect"])
def test_an_intervention_orients_what_observation_cannot(target, kind):
    """x -> y and y -> x are Markov equivalent; a task that changes x's mechanism (x's marginal moves, y | x
    stays) or y's (y | x moves, x stays) says which is right."""
    tasks = _two_variable_tasks(target, kind)
    res = learn_structures(tasks, interventions={"obs": [], "do": [target]}, intervention_type=kind, n_restarts=2)
    assert res.interventions.causal_graph.edges(names=True) == [("x", "y")]
    unknown = learn_structures(tasks, interventions={"obs": []}, n_restarts=2).interventions
    assert unknown.causal_graph.edges(names=True) == [("x", "y")] and unknown.changed["do"] == {target: "learned"}


def test_an_activity_intervention_orients_the_arcs_out_of_its_target():
    """x -> y; the task "do" fixes x's activity: y no longer follows x (it copies one value of x), x's own
    distribution is the observational one. The activity model orients x -> y and marks y as changed."""
    rng = np.random.default_rng(0)
    n = 3000
    x0 = (rng.random(n) < 0.3).astype(int)
    y0 = np.where(rng.random(n) < 0.9, x0, 1 - x0)
    x1 = (rng.random(n) < 0.3).astype(int)
    y1 = np.where(rng.random(n) < 0.9, 1, 0)  # what y sees of x is fixed at "hi"
    frame = lambda x, y: pd.DataFrame({"x": np.array(["lo", "hi"])[x], "y": np.array(["lo", "hi"])[y]})  # noqa: E731
    res = learn_structures({"obs": frame(x0, y0), "do": frame(x1, y1)}, interventions={"obs": [], "do": ["x"]},
                           intervention_type="activity", n_restarts=2)
    assert res.interventions.causal_graph.edges(names=True) == [("x", "y")]
    assert res.interventions.changed["do"] == {"y": "activity"}


def test_activity_conditions_change_the_targets_children_only():
    from mtbn.benchmarks import make_interventional_tasks

    tasks = make_interventional_tasks("asia", n_interventions=4, kind="activity", random_state=1)
    base = tasks[0][2]
    for name, (target,), net in tasks[1:]:
        t = base.names.index(target)
        children = [c for c in range(base.n_vars) if t in base.parents[c]]
        assert children  # a target with a child
        states = set()
        for v in range(base.n_vars):
            if v not in children:
                assert np.array_equal(net.cpts[v], base.cpts[v]), (name, base.names[v])
                continue
            axis = base.parents[v].index(t)
            for value in range(base.cpts[v].shape[axis]):  # whatever x's value, the rows at one state s
                rows = np.take(net.cpts[v], value, axis=axis)
                match = [s for s in range(base.cpts[v].shape[axis])
                         if np.array_equal(rows, np.take(base.cpts[v], s, axis=axis))]
                assert match, (name, base.names[v])
                states.add(match[0] if len(match) == 1 else -1)
        assert len(states - {-1}) <= 1, name  # the same state for every child


def test_unknown_targets_are_found():
    from mtbn.benchmarks import make_interventional_tasks

    truth = make_interventional_tasks("asia", n_interventions=3, kind="perfect", random_state=3)
    data = {name: DiscreteData(sample(net, 2000, random_state=i).codes, net.names, net.states, name)
            for i, (name, _, net) in enumerate(truth)}
    res = learn_structures(data, interventions={"observational": []}, n_restarts=5)
    for name, targets, _ in truth[1:]:
        assert set(targets) <= set(res.interventions.changed[name]), (name, res.interventions.changed[name])


def test_a_predicted_condition_replaces_the_targets_mechanisms_only(asia_tasks):
    res = learn_structures(asia_tasks, interventions={"obs": [], "a": ["lung"], "b": ["bronc"]}, n_restarts=2)
    model = res.interventions
    names = list(model.causal_graph.names)
    do = model.predict(["either", "smoke"], {"smoke": [0.2, 0.8]})
    for v, name in enumerate(names):
        if name in ("either", "smoke"):
            assert do.parents[v] == ()
        else:
            assert do.parents[v] == model.causal_network.parents[v]
            assert np.array_equal(do.cpts[v], model.causal_network.cpts[v])
    assert np.allclose(do.cpts[names.index("smoke")], [0.2, 0.8])
    assert np.allclose(do.cpts[names.index("either")], [0.5, 0.5])
    # The rows' log-likelihood of the other variables given the targets: the causal network's other factors.
    data = make_taskset(asia_tasks)["obs"]
    per_row = log_likelihood(do, data, per_row=True)
    targets = [names.index("either"), names.index("smoke")]
    target_terms = sum(np.log(do.cpts[t][data.codes[:, data.index(names[t])]]) for t in targets)
    others = per_row - target_terms
    by_hand = np.zeros(data.n_samples)
    net = model.causal_network
    for v in range(len(names)):
        if v in targets:
            continue
        index = tuple(data.codes[:, data.index(names[p])] for p in net.parents[v]) + (data.codes[:, data.index(names[v])],)
        by_hand += np.log(net.cpts[v][index])
    assert np.allclose(others, by_hand)


def test_a_predicted_activity_condition_averages_the_childrens_cpts_over_the_target(asia_tasks):
    from mtbn.learn.interventional_model import InterventionalModel

    net = load_network("asia")
    names = list(net.names)
    graph = DAG([set(p) for p in net.parents], names)
    model = InterventionalModel("activity", {}, {}, graph, net, {})
    do = model.predict(["lung"], {"lung": [0.9, 0.1]})
    lung, either = names.index("lung"), names.index("either")
    axis = net.parents[either].index(lung)
    by_hand = 0.9 * np.take(net.cpts[either], 0, axis=axis) + 0.1 * np.take(net.cpts[either], 1, axis=axis)
    for value in range(2):
        assert np.allclose(np.take(do.cpts[either], value, axis=axis), by_hand)
    assert do.parents[lung] == () and do.parents[either] == net.parents[either]
    for v in range(len(names)):
        if v not in (lung, either):
            assert np.array_equal(do.cpts[v], net.cpts[v])
    same = InterventionalModel("mechanism", {}, {}, graph, net, {}).predict(["lung"], {"lung": [0.9, 0.1]})
    assert np.array_equal(same.cpts[either], net.cpts[either])


def test_a_predicted_activity_condition_can_keep_the_childrens_cpts():
    """children="keep": only the targets' mechanisms are replaced (the children follow the target's level as in
    the reference regime), whatever the type; children="average" is the default; any other value is refused."""
    from mtbn.learn.interventional_model import InterventionalModel

    net = load_network("asia")
    names = list(net.names)
    graph = DAG([set(p) for p in net.parents], names)
    activity = InterventionalModel("activity", {}, {}, graph, net, {})
    kept = activity.predict(["lung"], {"lung": [0.9, 0.1]}, children="keep")
    lung, either = names.index("lung"), names.index("either")
    assert kept.parents[lung] == () and np.allclose(kept.cpts[lung], [0.9, 0.1])
    for v in range(len(names)):
        if v != lung:
            assert kept.parents[v] == net.parents[v] and np.array_equal(kept.cpts[v], net.cpts[v])
    averaged = activity.predict(["lung"], {"lung": [0.9, 0.1]})
    assert not np.array_equal(averaged.cpts[either], kept.cpts[either])
    assert np.array_equal(activity.predict(["lung"], children="average").cpts[either],
                          activity.predict(["lung"]).cpts[either])
    mechanism = InterventionalModel("mechanism", {}, {}, graph, net, {})
    assert all(np.array_equal(a, b) for a, b in zip(mechanism.predict(["lung"], children="keep").cpts,
                                                      mechanism.predict(["lung"]).cpts))
    with pytest.raises(InvalidParameterError, match="predict: children must be 'average' or 'keep'; got 'kept'"):
        activity.predict(["lung"], children="kept")


def test_the_estimator_gives_the_causal_graph_and_the_mechanisms(asia_tasks):
    learner = MultitaskStructureLearner(interventions={"obs": [], "a": ["lung"]}, n_restarts=2)
    learner.fit(asia_tasks)
    assert sorted(learner.causal_graph_.edges()) == sorted(learner.result_.interventions.causal_graph.edges(names=True))
    assert learner.mechanisms_.loc["a", "lung"] == "given" and learner.mechanisms_.loc["obs"].eq("").all()
    model = learner.predict_condition(["tub"])
    assert model.get_parents("tub") == []
    plain = MultitaskStructureLearner(penalty=0.5, n_restarts=0, n_joint_restarts=0).fit(asia_tasks)
    with pytest.raises(InvalidParameterError, match="predict_condition needs a learner fitted with interventions"):
        plain.predict_condition(["tub"])


def test_the_bootstrap_counts_arcs_and_changed_mechanisms(asia_tasks):
    boot = bootstrap_structures(asia_tasks, n_boot=3, interventions={"obs": [], "a": ["lung"]}, n_restarts=1,
                                random_state=0)
    freq = boot.mechanism_frequency()
    assert boot.changed.shape == (3, 3, 8) and freq.loc["a", "lung"] == 1.0  # a given target: in every replicate
    assert freq.loc["obs"].eq(0).all() and ((freq >= 0) & (freq <= 1)).all().all()
    assert boot.penalty is None and all(p is None for p in boot.penalties)


def test_the_bootstrap_repeats_the_results_choice_of_adjacencies(asia_tasks, monkeypatch):
    """Given the learner's result, each replicate keeps its skeleton (rows drawn with replacement fall on both
    sides of a held-out split); without a result each replicate chooses on its own held-out rows."""
    import mtbn.learn.interventional as module

    targets = {"obs": [], "a": ["lung"]}
    res = learn_structures(asia_tasks, interventions=targets, n_restarts=1)
    chosen = res.interventions.adjacencies["chosen"]
    seen, learn = [], module.learn_interventional

    def spy(*args, **kwargs):
        seen.append(kwargs.get("skeleton", "heldout"))
        kinds.append(kwargs.get("intervention_type", "auto"))
        return learn(*args, **kwargs)

    kinds = []
    monkeypatch.setattr(module, "learn_interventional", spy)
    bootstrap_structures(asia_tasks, n_boot=2, interventions=targets, n_restarts=1, result=res, n_jobs=1)
    assert seen == [chosen, chosen] and kinds == [res.interventions.type] * 2
    seen.clear()
    bootstrap_structures(asia_tasks, n_boot=2, interventions=targets, n_restarts=1, n_jobs=1)
    assert seen[0] == "heldout" and seen.count("heldout") == 2


# ---------------------------------------------------------------------------
# Without interventions, nothing changes
# ---------------------------------------------------------------------------


def _digest(res):
    h = hashlib.sha256()
    h.update(json.dumps([sorted(g.edges(names=True)) for g in res.graphs]).encode())
    for net in res.networks:
        for cpt in net.cpts:
            h.update(np.ascontiguousarray(cpt, dtype=float).tobytes())
    transfer = None if res.transfer is None else (res.transfer["status"], res.transfer["gain"], res.transfer["se"])
    h.update(repr((res.penalty, res.log_score, list(res.task_log_likelihoods), res.sharing_strength,
                   transfer)).encode())
    return h.hexdigest()[:16]


def test_without_interventions_every_answer_is_the_same_byte_for_byte():
    """The digests were computed by this function at commit 0890c05, before the interventional learner existed
    (graphs, every CPT's bytes, penalty, scores, sharing strength and the guard's status, gain and SE; its
    message's wording changed since, issue 47)."""
    net = load_network("asia")
    tasks = {t: sample(net, 300 + 100 * i, random_state=i).to_dataframe() for i, t in enumerate("abc")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _digest(learn_structures(tasks, n_restarts=2, n_joint_restarts=2, random_state=0)) == "4e0587ddb6d88568"
        assert _digest(learn_structures(tasks, penalty=0.7, n_restarts=2, n_joint_restarts=2, random_state=0,
                                        interventions=None)) == "5ee26dc1ccf597e6"


# ---------------------------------------------------------------------------
# The Sachs conditions through the command line
# ---------------------------------------------------------------------------


def test_the_sachs_conditions_through_mtbn_learn(tmp_path):
    sachs = load_sachs_conditions()
    paths = []
    for name, frame in sachs.tasks.items():
        paths.append(tmp_path / f"{name}.csv")
        frame.to_csv(paths[-1], index=False)
    (tmp_path / "targets.json").write_text(json.dumps(sachs.intervention_targets()))
    proc = run_mtbn("learn", "--discretize", "quantile:3", "--interventions", "targets.json", "--predict", "pmek",
                    "--restarts", "5", "--out", tmp_path / "out", *paths, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out"
    summary = json.loads((out / "summary.json").read_text())
    record = summary["interventions"]
    types = record["adjacencies"]["types"]  # intervention_type="auto": the model that predicts held-out rows better
    assert record["type"] == max(types, key=types.get) and record["given"] == sachs.intervention_targets()
    mechanisms = pd.read_csv(out / "interventions" / "mechanisms.csv")
    assert mechanisms.to_dict("records") == record["changed"]
    causal = pd.read_csv(out / "interventions" / "causal.edges.csv")
    assert sorted(map(list, zip(causal["source"], causal["target"]))) == sorted(record["causal_edges"])
    for task, targets in sachs.intervention_targets().items():
        assert (out / f"{task}.bifxml").is_file()
        children = {b for a, b in record["causal_edges"] if a in targets}
        changed = {r["variable"]: r["how"] for r in record["changed"] if r["task"] == task}
        if record["type"] == "mechanism":
            assert changed == {t: "given" for t in targets}
        else:  # activity: the targets' children, and a target whose own change the search found
            assert {v for v, how in changed.items() if how == "activity"} == children - set(targets)
            assert {v for v, how in changed.items() if how == "given"} <= set(targets)
    assert (out / "interventions" / "causal.bifxml").is_file() and (out / "interventions" / "predicted.bifxml").is_file()
    assert "causal DAG shared by the tasks:" in proc.stdout and "6-cd3cd28-u0126 (targets pmek)" in proc.stdout
    held = record["adjacencies"]["heldout"]
    assert record["adjacencies"]["chosen"] == max(held, key=held.get) and max(held.values()) == max(types.values())
    assert f"held-out log-likelihood {held['multitask']:.1f} with the multitask learner's" in proc.stdout
    assert f"{types['mechanism']:.1f} with mechanism, {types['activity']:.1f} with activity" in proc.stdout


# ---------------------------------------------------------------------------
# Settings that meet the indicators (found in review)
# ---------------------------------------------------------------------------


def _chain_tasks(shift_z=True, n=2000, seed=0):
    """x -> z <- y; task B changes z's mechanism (its noise) when ``shift_z``."""
    rng = np.random.default_rng(seed)

    def draw(noise):
        x, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
        z = np.where(rng.random(n) < noise, 1 - (x ^ y), x ^ y)
        return pd.DataFrame({"x": x, "y": y, "z": z}).astype(str)

    return {"A": draw(0.1), "B": draw(0.45 if shift_z else 0.1)}


def test_knowledge_constrains_the_system_not_the_indicators():
    from pgmpy.estimators import ExpertKnowledge

    tasks = _chain_tasks()
    space = [(a, b) for a in "xyz" for b in "xyz" if a != b]
    plain = learn_structures(tasks, interventions={"A": []}, n_restarts=2).interventions.changed
    with_space = learn_structures(tasks, interventions={"A": []}, n_restarts=2,
                                  knowledge=ExpertKnowledge(search_space=space)).interventions.changed
    assert plain == with_space == {"A": {}, "B": {"z": "learned"}}


def test_constraints_given_as_a_graph():
    import networkx as nx

    tasks = _chain_tasks()
    res = learn_structures(tasks, interventions={"A": [], "B": ["z"]}, n_restarts=2,
                           required_edges=nx.DiGraph([("x", "z")]))
    assert ("x", "z") in res.interventions.causal_graph.edges(names=True)


def test_max_parents_counts_the_system_parents_not_the_indicators():
    tasks = _chain_tasks()
    res = learn_structures(tasks, interventions={"A": [], "B": ["z"]}, n_restarts=2, max_parents=2)
    assert sorted(res.interventions.causal_graph.edges(names=True)) == [("x", "z"), ("y", "z")]
    assert res.interventions.changed["B"] == {"z": "given"}


def test_without_an_observational_task_the_answer_does_not_follow_the_task_order():
    tasks = _chain_tasks()
    forward = learn_structures(tasks, interventions={}, n_restarts=2).interventions
    backward = learn_structures(dict(reversed(list(tasks.items()))), interventions={}, n_restarts=2).interventions
    assert forward.reference == backward.reference == "A"
    assert forward.changed == backward.changed and forward.changed["A"] == {}
    assert forward.changed["B"] == {"z": "learned"}
    for a, b in zip(forward.causal_network.cpts, backward.causal_network.cpts):
        assert np.array_equal(a, b)


def test_learn_interventional_checks_its_own_options(asia_tasks):
    ts = make_taskset(asia_tasks)
    with pytest.raises(InvalidParameterError,
                       match="intervention_type must be one of 'auto', 'mechanism', 'perfect', 'activity'; got 'Perfect'"):
        learn_interventional(ts, {"obs": []}, intervention_type="Perfect")
    with pytest.raises(InvalidParameterError, match="skeleton must be one of 'heldout', 'multitask', 'search'; got 'multi-task'"):
        learn_interventional(ts, {"obs": []}, skeleton="multi-task")
    with pytest.raises(InvalidParameterError, match="every task intervenes on 'lung'"):
        learn_interventional(ts, {t: ["lung"] for t in asia_tasks}, intervention_type="perfect")


def test_a_distribution_for_a_variable_not_intervened_on_is_refused(asia_tasks):
    model = learn_structures(asia_tasks, interventions={"obs": []}, n_restarts=0).interventions
    with pytest.raises(InvalidParameterError, match="a distribution is given for 'smoke', which is not among"):
        model.predict(["lung"], {"smoke": [0.5, 0.5]})


@pytest.mark.parametrize("dist", [[0.5, 0.6], [1.2, -0.2], [1.0], [float("nan"), 1.0], "ab", 0.5])
def test_a_predicted_distribution_that_is_not_one_over_the_targets_states_is_refused(asia_tasks, dist):
    # predict took any array: [0.5, 0.6] gave a CPT that does not sum to 1, [1.0] a bare numpy error.
    model = learn_structures(asia_tasks, interventions={"obs": []}, n_restarts=0).interventions
    with pytest.raises(InvalidParameterError, match=r"^predict: the distribution of 'lung' must be 2 probabilities "
                                                    r"\(one per state\), non-negative and summing to 1; got "):
        model.predict(["lung"], {"lung": dist})


def test_predict_takes_one_target_by_name_and_each_target_once(asia_tasks):
    # predict("lung") intervened on 'l', 'u', 'n', 'g' (refused as unknown variables); a repeated target is one.
    model = learn_structures(asia_tasks, interventions={"obs": []}, n_restarts=0).interventions
    one = model.predict("lung", {"lung": [0.9, 0.1]})
    assert one.parents == model.predict(["lung", "lung"], {"lung": [0.9, 0.1]}).parents
    assert np.array_equal(one.cpts[one.names.index("lung")], [0.9, 0.1])


def test_a_kept_adjacency_is_reversed_but_never_removed():
    """hill_climb(kept=...): x and y are independent, so removing x -> y gains; kept, it stays (either way)."""
    from mtbn.score import make_scorer
    from mtbn.search import hill_climb

    rng = np.random.default_rng(0)
    data = DiscreteData(rng.integers(0, 2, (500, 3)).astype(np.uint8), ("x", "y", "z"), (("0", "1"),) * 3)
    scorer = make_scorer(data, "bdeu", 1.0)
    kept = np.zeros((3, 3), dtype=bool)
    kept[0, 1] = kept[1, 0] = True
    free = hill_climb(scorer, [set(), {0}, set()], n_restarts=3, rng=np.random.default_rng(1))
    held = hill_climb(scorer, [set(), {0}, set()], n_restarts=3, rng=np.random.default_rng(1), kept=kept)
    assert free.graph.n_edges == 0
    assert held.graph.has_edge(0, 1) or held.graph.has_edge(1, 0)


def test_the_heldout_skeleton_is_the_fixed_one_whose_model_predicts_held_out_rows_better(asia_tasks):
    """skeleton="heldout" (the default): both fixed skeletons learned on 80% of every task's rows (the split
    documented in the module: rng [base, 46, 7], one permutation per task), the held-out 20% scored under each
    task's network by ``log_likelihood``, recomputed here through the public calls; then the winner on all rows,
    the same answer as asking for it."""
    from mtbn.data import TaskSet
    from mtbn.learn.interventional import HELDOUT_SHARE

    ts = make_taskset(asia_tasks)
    targets = {"obs": [], "a": ["lung"], "b": None}
    res = learn_interventional(ts, targets, n_restarts=2)
    choice = res.interventions.adjacencies
    base = int(np.random.default_rng(0).integers(0, 2**31 - 1))
    rng = np.random.default_rng([base, 46, 7])
    train, test = [], []
    for d in ts.tasks:
        order = rng.permutation(d.n_samples)
        cut = d.n_samples - int(round(HELDOUT_SHARE * d.n_samples))
        train.append(d.take(np.sort(order[:cut])))
        test.append(d.take(np.sort(order[cut:])))
    part = TaskSet.assemble(train, ts.variables, ts.states)
    expected = {}
    for kind in ("mechanism", "activity"):  # intervention_type="auto" (the default) compares both models too
        for skeleton in ("multitask", "search"):
            fit = learn_interventional(part, targets, n_restarts=2, random_state=base, skeleton=skeleton,
                                       intervention_type=kind)
            expected[kind, skeleton] = sum(log_likelihood(net, d) * d.n_samples for net, d in zip(fit.networks, test))
    best = max(expected, key=lambda k: (expected[k], k[0] == "mechanism", k[1] == "multitask"))
    assert (choice["type"], choice["chosen"]) == best == (res.interventions.type, choice["chosen"])
    for skeleton in ("multitask", "search"):
        assert choice["heldout"][skeleton] == pytest.approx(expected[best[0], skeleton], rel=1e-12)
    for kind in ("mechanism", "activity"):
        assert choice["types"][kind] == pytest.approx(max(expected[kind, s] for s in ("multitask", "search")),
                                                      rel=1e-12)
    assert choice["held_out_rows"] == 3 * 60
    fixed = learn_interventional(ts, targets, n_restarts=2, skeleton=choice["chosen"], intervention_type=best[0])
    assert res.interventions.causal_graph.edges(names=True) == fixed.interventions.causal_graph.edges(names=True)
    assert res.interventions.changed == fixed.interventions.changed and res.log_score == fixed.log_score
    assert fixed.interventions.adjacencies is None


def test_tasks_too_small_to_hold_rows_out_keep_the_multitask_adjacencies():
    tasks = {k: v.iloc[:9] for k, v in _two_variable_tasks("x", "mechanism").items()}
    res = learn_interventional(make_taskset(tasks), {"obs": [], "do": ["x"]}, n_restarts=1)
    assert res.interventions.adjacencies == {"chosen": "multitask", "type": "mechanism", "heldout": {}, "types": {},
                                             "held_out_rows": 0}
    fixed = learn_interventional(make_taskset(tasks), {"obs": [], "do": ["x"]}, n_restarts=1, skeleton="multitask")
    assert res.log_score == fixed.log_score


def test_the_report_of_an_interventional_fit_says_where_its_adjacencies_come_from(asia_tasks, tmp_path):
    from mtbn.report import write_learn_report

    res = learn_structures(asia_tasks, interventions={"obs": [], "a": ["lung"], "b": None}, n_restarts=1)
    held = res.interventions.adjacencies["heldout"]
    types = res.interventions.adjacencies["types"]
    md = open(write_learn_report(res, tmp_path)["markdown"], encoding="utf-8").read()
    source = "multitask learner's" if held["multitask"] >= held["search"] else "tied score's own"
    assert f"adjacencies: the {source} (held-out log-likelihood {held['multitask']:.1f}" in md
    assert f"{res.interventions.type.capitalize()} interventions (held-out log-likelihood " \
           f"{types['mechanism']:.1f} with mechanism, {types['activity']:.1f} with activity)" in md
    assert "Changed mechanisms" in md
