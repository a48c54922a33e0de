"""Tests of the benchmark generators, the metrics and the benchmark runner (issue 4).

Truths used: the edge sets of the original networks; exact probabilities
computed by brute force from the full joint distribution of ASIA (all
2^8 states enumerated as the product of the CPTs); the ALARM graph itself for
the component split; hand-counted edit distances and precision / recall on
tiny graphs; and, for the runner, a complete run against an interrupted and
resumed one. The runner uses the perturbed ALARM problem with 2 tasks,
200 training rows, no restarts and a 3-point penalty grid (about 2 s per
trial).
"""

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from mtbn.benchmarks import (
    ALARM_COMPONENTS,
    PAPER_ALARM_COMPONENTS,
    make_component_pool,
    make_component_tasks,
    make_perturbed_tasks,
    make_problem,
    marginal,
)
from mtbn.exceptions import InvalidParameterError
from mtbn.cli import main
from mtbn.evaluate import RESULT_COLUMNS, run_benchmark
from mtbn.graph import DAG
from mtbn.metrics import edge_scores, edit_distance, kl_divergence
from mtbn.networks import BayesianNetwork, load_network, sample

#: Fixtures that run whole commands: the tests using them are marked slow (tests/conftest.py).
SLOW_FIXTURES = {"full_run"}


def _joint(net):
    """Full joint distribution of a small network, one axis per variable (network order)."""
    shape = tuple(int(a) for a in net.arities)
    joint = np.zeros(shape)
    for states in itertools.product(*(range(a) for a in shape)):
        p = 1.0
        for v, ps in enumerate(net.parents):
            p *= net.cpts[v][tuple(states[q] for q in ps) + (states[v],)]
        joint[states] = p
    return joint


def _brute_marginal(joint, variables):
    """P(variables), axes in the given order, by summing the joint."""
    others = tuple(a for a in range(joint.ndim) if a not in variables)
    kept = sorted(variables)
    m = joint.sum(axis=others)
    return np.transpose(m, [kept.index(v) for v in variables])


def _brute_conditional(joint, child, parents):
    """P(child | parents), axes: parents (in order), then child."""
    m = _brute_marginal(joint, list(parents) + [child])
    return m / m.sum(axis=-1, keepdims=True)


# ---------------------------------------------------------------------------
# Perturbed tasks
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("network, p_del", [("asia", 0.4), ("alarm", 0.1)])
def test_perturbed_tasks_delete_exactly_the_returned_edges(network, p_del):
    original = load_network(network)
    tasks, deleted = make_perturbed_tasks(original, n_tasks=3, p_del=p_del, random_state=11)
    assert len(tasks) == len(deleted) == 3
    orig_edges = set(original.edges)
    assert any(deleted), "some task should delete an edge"
    for task, gone in zip(tasks, deleted):
        assert task.names == original.names and task.states == original.states
        assert set(task.edges) <= orig_edges
        assert orig_edges - set(task.edges) == gone
        # Children that lost no parent keep their CPT.
        touched = {c for _, c in gone}
        for v, name in enumerate(original.names):
            if name not in touched:
                assert task.parents[v] == original.parents[v]
                np.testing.assert_array_equal(task.cpts[v], original.cpts[v])


def test_deleting_every_edge_leaves_the_true_marginals(asia):
    (task,), (gone,) = make_perturbed_tasks(asia, n_tasks=1, p_del=1.0, random_state=0)
    assert gone == set(asia.edges) and task.edges == []
    joint = _joint(asia)
    for v in range(asia.n_vars):
        np.testing.assert_allclose(task.cpts[v], _brute_marginal(joint, [v]), atol=1e-12)


def test_marginalised_cpt_is_the_conditional_on_the_remaining_parents(asia):
    joint = _joint(asia)
    tasks, deleted = make_perturbed_tasks(asia, n_tasks=6, p_del=0.5, random_state=0)
    partial = 0
    for task, gone in zip(tasks, deleted):
        for v in range(asia.n_vars):
            kept = task.parents[v]
            np.testing.assert_allclose(task.cpts[v], _brute_conditional(joint, v, kept), atol=1e-12)
            if kept and len(kept) < len(asia.parents[v]):
                partial += 1
    assert partial > 0, "need a child that kept one parent and lost another"


def test_independent_parameters_keep_structure_and_change_cpts(asia):
    tasks, deleted = make_perturbed_tasks(asia, n_tasks=3, p_del=0.0, independent_parameters=True, random_state=5)
    assert deleted == [set(), set(), set()]
    for task in tasks:
        assert task.parents == asia.parents
    for a, b in itertools.combinations([asia, *tasks], 2):
        assert any(not np.allclose(x, y) for x, y in zip(a.cpts, b.cpts))


def _same_networks(ta, tb):
    return all(
        a.parents == b.parents and all(np.array_equal(x, y) for x, y in zip(a.cpts, b.cpts))
        for a, b in zip(ta, tb)
    )


@pytest.mark.parametrize("independent", [False, True])
def test_perturbed_tasks_are_reproducible_from_the_seed(asia, independent):
    kw = dict(n_tasks=4, p_del=0.3, independent_parameters=independent)
    a, da = make_perturbed_tasks(asia, random_state=3, **kw)
    b, db = make_perturbed_tasks(asia, random_state=3, **kw)
    c, dc = make_perturbed_tasks(asia, random_state=4, **kw)
    assert da == db and _same_networks(a, b)
    assert not (da == dc and _same_networks(a, c))


# ---------------------------------------------------------------------------
# ALARM-COMP
# ---------------------------------------------------------------------------


def test_alarm_components_partition_alarm_into_connected_parts(alarm):
    assert sorted(len(c) for c in ALARM_COMPONENTS) == [7, 8, 8, 14]
    flat = [v for c in ALARM_COMPONENTS for v in c]
    assert len(flat) == len(set(flat)) == 37
    assert set(flat) == set(alarm.names)
    skeleton = alarm.to_networkx().to_undirected()
    for comp in ALARM_COMPONENTS:
        assert nx.is_connected(skeleton.subgraph(comp)), comp


def _inside(edges, comp):
    s = set(comp)
    return {(u, v) for u, v in edges if u in s and v in s}


def test_paper_components_are_the_papers_node_numbers_in_bif_order(alarm):
    # Section 2.3.4: nodes 1-7; 9-14, 21 and 34; 8, 27-31, 36 and 37; the rest.
    numbers = [range(1, 8), [9, 10, 11, 12, 13, 14, 21, 34], [8, 27, 28, 29, 30, 31, 36, 37]]
    taken = {i for c in numbers for i in c}
    numbers.append([i for i in range(1, 38) if i not in taken])
    assert [sorted(c) for c in PAPER_ALARM_COMPONENTS] == [sorted(alarm.names[i - 1] for i in c) for c in numbers]
    assert [len(c) for c in PAPER_ALARM_COMPONENTS] == [7, 8, 8, 14]
    assert set(ALARM_COMPONENTS[0]) == set(PAPER_ALARM_COMPONENTS[0])  # the one component both splits share


@pytest.mark.parametrize("components", [PAPER_ALARM_COMPONENTS, ALARM_COMPONENTS], ids=["paper", "connected"])
def test_component_tasks_change_only_their_components(alarm, components):
    changed = ((), (0,), (1,), (2,), (0, 2), (3,))
    tasks = make_component_tasks(alarm, changed=changed, components=components, random_state=7)
    assert len(tasks) == len(changed)
    orig = set(alarm.edges)
    for ch, task in zip(changed, tasks):
        assert task.names == alarm.names and task.states == alarm.states
        edges = set(task.edges)
        inside_changed = set().union(*(_inside(orig | edges, components[c]) for c in ch)) if ch else set()
        assert orig - inside_changed == edges - inside_changed
        for c in ch:
            assert len(_inside(edges, components[c])) == len(_inside(orig, components[c]))
        assert nx.is_directed_acyclic_graph(task.to_networkx())
        changed_nodes = {n for c in ch for n in components[c]}
        for v, name in enumerate(alarm.names):
            if name not in changed_nodes:
                assert task.parents[v] == alarm.parents[v]
                np.testing.assert_array_equal(task.cpts[v], alarm.cpts[v])
        if ch:
            assert any(not np.array_equal(task.cpts[alarm.index(n)], alarm.cpts[alarm.index(n)])
                       for n in changed_nodes)
        else:
            assert edges == orig


def test_component_pool_has_one_task_per_nonempty_subset(alarm):
    principal, pool, changed = make_component_pool(alarm, random_state=2)  # the paper's split by default
    assert principal.edges == alarm.edges
    expected = {s for r in range(1, 5) for s in itertools.combinations(range(4), r)}
    assert len(pool) == len(changed) == 15
    assert {tuple(sorted(c)) for c in changed} == expected
    for ch, task in zip(changed, pool):
        untouched = {n for c in range(4) if c not in ch for n in PAPER_ALARM_COMPONENTS[c]}
        for name in untouched:
            v = alarm.index(name)
            assert task.parents[v] == alarm.parents[v]


@pytest.mark.parametrize("variables", [["dysp"], ["xray", "asia"], ["either", "smoke", "tub"], ["lung", "bronc"]])
def test_marginal_equals_brute_force(asia, variables):
    idx = [asia.index(n) for n in variables]
    np.testing.assert_allclose(marginal(asia, idx), _brute_marginal(_joint(asia), idx), atol=1e-12)


def _hub_chain(k=15, arity=16):
    """``Z -> X1 .. Xk`` and ``X1 -> X2 -> ... -> Xk``, every variable of ``arity`` states. The factors holding Z
    span all k + 1 variables (16 ** 16 = 2 ** 64 cells: 0 in int64), while eliminating the chain from X1 on
    never needs more than ``arity ** 3``."""
    rng = np.random.default_rng(0)
    parents = [(), (0,)] + [(0, i - 1) for i in range(2, k + 1)]
    cpts = [rng.dirichlet(np.ones(arity), size=arity ** len(p)).reshape((arity,) * len(p) + (arity,))
            for p in parents]
    names = ["Z"] + [f"X{i}" for i in range(1, k + 1)]
    return BayesianNetwork(names, [tuple(map(str, range(arity)))] * (k + 1), parents, cpts)


def test_marginal_of_a_wide_network_takes_the_small_factors():
    # The elimination order once compared cells in int64: a 2 ** 64-cell factor counted 0 and was built first.
    net = _hub_chain()
    joint = net.cpts[0][:, None] * net.cpts[1]  # P(Z, X1), then forward along the chain: P(Z, Xi)
    for i in range(2, 16):
        joint = np.einsum("zp,zpc->zc", joint, net.cpts[i])
    np.testing.assert_allclose(marginal(net, [15]), joint.sum(axis=0), atol=1e-12)
    np.testing.assert_allclose(marginal(net, [0, 15]), joint, atol=1e-12)


def test_marginal_too_large_for_memory_is_refused_before_it_is_built():
    # 28 binary children of one root: their joint has 2 ** 28 cells, more than MAX_FACTOR_CELLS (2 ** 27).
    k = 28
    net = BayesianNetwork(["R"] + [f"C{i}" for i in range(k)], [("a", "b")] * (k + 1), [()] + [(0,)] * k,
                          [np.array([0.5, 0.5])] + [np.array([[0.9, 0.1], [0.2, 0.8]])] * k)
    with pytest.raises(InvalidParameterError, match=r"The exact joint of C0, C1, .*C27 needs a factor of 2\.68e\+08"):
        marginal(net, list(range(1, k + 1)))
    assert marginal(net, list(range(1, 4))).shape == (2, 2, 2)  # a few of them: exact as ever


# ---------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------


def test_kl_divergence_zero_against_itself_positive_against_another(asia):
    test = sample(asia, 3000, random_state=0)
    assert kl_divergence(asia, asia, test) == 0.0
    (empty,), _ = make_perturbed_tasks(asia, n_tasks=1, p_del=1.0, random_state=0)
    assert kl_divergence(asia, empty, test) > 0.1


def test_edit_distance_hand_example():
    g1 = [("a", "b"), ("b", "c"), ("c", "d")]
    g2 = [("b", "a"), ("b", "c"), ("a", "d")]
    # a-b reversed (1), b-c same (0), c-d deleted (1), a-d added (1).
    assert edit_distance(g1, g2) == 3
    assert edit_distance(g2, g1) == 3
    assert edit_distance(g1, g2, reversal="double") == 4
    d1 = DAG.from_edges(["a", "b", "c", "d"], g1)
    d2 = DAG.from_edges(["a", "b", "c", "d"], g2)
    assert edit_distance(d1, d2) == 3
    assert edit_distance([("a", "b")], [("b", "a")]) == 1
    assert edit_distance(d1, d1) == 0


def test_edge_scores_hand_example():
    truth = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")]
    learned = [("a", "b"), ("c", "b"), ("c", "d"), ("b", "d"), ("a", "c")]  # c->b is a reversal: wrong
    s = edge_scores(learned, truth, shared={("a", "b"), ("b", "c")})
    assert s["precision"] == pytest.approx(2 / 5)
    assert s["recall"] == pytest.approx(2 / 4)
    assert s["recall_shared"] == pytest.approx(1 / 2)  # a->b found, b->c not
    assert s["recall_specific"] == pytest.approx(1 / 2)  # c->d found, a->d not
    assert edge_scores(truth, truth) == {"precision": 1.0, "recall": 1.0}


# ---------------------------------------------------------------------------
# run_benchmark and mtbn bench
# ---------------------------------------------------------------------------

BENCH = dict(n_tasks=2, n_train=200, n_test=2000, methods=("stl", "mtl"), penalty_grid=(0.0, 0.9, 1.0),
             n_restarts=0, plots=False)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench_full")
    results, summary = run_benchmark("alarm", str(out), n_trials=2, **BENCH)
    return out, results, summary


@pytest.mark.slow
def test_results_csv_has_one_row_per_trial_method_task(full_run):
    out, results, _ = full_run
    table = pd.read_csv(out / "results.csv")
    assert list(table.columns) == list(RESULT_COLUMNS)
    assert len(table) == 2 * 2 * 2
    keys = set(zip(table["trial"], table["method"], table["task"]))
    assert keys == {(t, m, k) for t in (0, 1) for m in ("stl", "mtl") for k in ("task0", "task1")}
    assert (table["edit_distance"] >= 0).all() and (table["edit_distance"] % 1 == 0).all()
    assert np.isfinite(table["kl"]).all()
    assert table.loc[table["method"] == "stl", "penalty"].isna().all()
    assert table.loc[table["method"] == "mtl", "penalty"].isin([0.0, 0.9, 1.0]).all()
    pd.testing.assert_frame_equal(table, results, check_dtype=False)


def test_summary_md_mentions_each_method(full_run):
    out, _, summary = full_run
    text = (out / "summary.md").read_text(encoding="utf-8")
    assert text == summary
    for method in ("stl", "mtl"):
        assert f"| {method} |" in text


@pytest.mark.slow
def test_interrupted_benchmark_resumes_to_the_same_results(full_run, tmp_path):
    out_a = full_run[0]
    out_b = tmp_path / "b"
    run_benchmark("alarm", str(out_b), n_trials=1, **BENCH)
    first = out_b / "trials" / "trial_0000.csv"
    stamp, content = first.stat().st_mtime_ns, first.read_bytes()
    run_benchmark("alarm", str(out_b), n_trials=2, **BENCH)
    assert first.stat().st_mtime_ns == stamp and first.read_bytes() == content
    a = pd.read_csv(out_a / "results.csv")
    b = pd.read_csv(out_b / "results.csv")
    # "seconds" is wall-clock time; everything else depends only on the seed and the trial number.
    cols = [c for c in RESULT_COLUMNS if c != "seconds"]
    pd.testing.assert_frame_equal(a[cols], b[cols])


@pytest.mark.slow
def test_bench_cli_writes_results_summary_and_plots(tmp_path, capsys):
    out = tmp_path / "cli"
    args = ["bench", "alarm", "--tasks", "2", "--train", "200", "--trials", "1", "--test-rows", "2000",
            "--restarts", "0", "--methods", "stl,mtl", "--out", str(out)]
    assert main(args + ["--no-plots"]) == 0
    assert (out / "results.csv").is_file() and (out / "summary.md").is_file()
    assert not list(out.glob("*.png"))
    table = pd.read_csv(out / "results.csv")
    assert set(table["method"]) == {"stl", "mtl"} and len(table) == 4
    # Same settings again, with plots: the trial is reused and the PNGs appear.
    assert main(args) == 0
    for name in ("edit_distance.png", "kl.png"):
        data = (out / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n"), name
    capsys.readouterr()
    # Other settings in the same folder are refused with a one-line error.
    other = list(args)
    other[other.index("--train") + 1] = "300"
    assert main(other) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mtbn: error:")
    assert "other settings" in err[0] and str(out) in err[0]
    assert len(pd.read_csv(out / "results.csv")) == 4


# ---------------------------------------------------------------------------
# A network file as a benchmark problem
# ---------------------------------------------------------------------------


def test_a_network_file_is_a_problem_whose_tasks_are_the_file_when_nothing_is_deleted(asia, tmp_path):
    from mtbn.benchmarks import problem_source
    from mtbn.networks import write_bif

    path = tmp_path / "mine.bif"
    write_bif(asia, str(path))
    net, construction = problem_source(path)  # a path-like is taken as well as a str
    assert construction is False and net.names == asia.names
    kept = make_problem(str(path), n_tasks=3, p_del=0.0, random_state=0)
    gone = make_problem(str(path), n_tasks=2, p_del=1.0, random_state=0)
    assert all(t.edges == asia.edges for t in kept)
    assert all(np.allclose(a, b) for t in kept for a, b in zip(t.cpts, asia.cpts))
    assert all(t.edges == [] for t in gone)
    # With every edge deleted each variable keeps its marginal in the file's network.
    joint = _joint(asia)
    for v in range(asia.n_vars):
        assert np.allclose(gone[0].cpts[v], _brute_marginal(joint, [v]))
    # KIND:PATH: the construction of alarm-KIND on the file's network.
    ind = make_problem(f"ind:{path}", n_tasks=2, p_del=0.0, random_state=0)
    assert all(t.edges == asia.edges for t in ind)
    assert not all(np.allclose(a, b) for a, b in zip(ind[1].cpts, asia.cpts))  # fresh CPTs, same structure
    unrelated = make_problem(f"unrelated:{path}", n_tasks=3, p_del=0.0, random_state=0)
    assert unrelated[0].edges == asia.edges

    def degrees(net):
        return sorted((sum(c == v for _, c in net.edges), sum(p == v for p, _ in net.edges)) for v in net.names)

    assert all(degrees(t) == degrees(asia) for t in unrelated)  # a relabelling keeps the shape
    assert any(t.edges != asia.edges for t in unrelated[1:])


def test_an_unknown_problem_names_it_in_one_line(tmp_path, capsys):
    with pytest.raises(InvalidParameterError, match=r"problem 'no-such' is neither a benchmark problem \(alarm, "):
        make_problem("no-such")
    with pytest.raises(InvalidParameterError, match="problem 'bogus:"):
        make_problem(f"bogus:{tmp_path}")  # not a construction (and a folder is not a network file)
    out = tmp_path / "never"
    assert main(["bench", str(tmp_path / "missing.bif"), "--out", str(out), "--trials", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mtbn: error: problem ") and "missing.bif" in err[0]
    assert not out.exists()  # refused before --out was claimed


def test_bench_cli_runs_on_a_network_file(asia, tmp_path, capsys):
    from mtbn.networks import write_bif

    path = tmp_path / "mine.bif"
    write_bif(asia, str(path))
    out = tmp_path / "run"
    assert main(["bench", str(path), "--tasks", "2", "--train", "100", "--trials", "1", "--test-rows", "500",
                 "--restarts", "0", "--methods", "stl", "--no-plots", "--out", str(out)]) == 0
    table = pd.read_csv(out / "results.csv")
    assert set(table["method"]) == {"stl"} and len(table) == 2
    assert capsys.readouterr().out.startswith("## mine.bif: 2 tasks")  # the summary names the file, not its folder
    # The run records the file by name and content, so it resumes from a copy elsewhere, and not on other content.
    import hashlib
    import json
    import shutil

    config = json.loads((out / "config.json").read_text())
    assert config["problem"] == "mine.bif"
    assert config["network_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.copy(path, moved / "mine.bif")
    common = ["--tasks", "2", "--train", "100", "--test-rows", "500", "--restarts", "0", "--methods", "stl",
              "--no-plots", "--out", str(out)]
    assert main(["bench", str(moved / "mine.bif"), "--trials", "2"] + common) == 0
    assert len(pd.read_csv(out / "results.csv")) == 4
    (moved / "mine.bif").write_text(path.read_text() + "\n")  # other bytes: another benchmark
    assert main(["bench", str(moved / "mine.bif"), "--trials", "2"] + common) == 2
    assert "other settings" in capsys.readouterr().err


def test_bench_zero_trials_is_a_usage_error(tmp_path, capsys):
    code = main(["bench", "alarm", "--trials", "0", "--methods", "stl", "--restarts", "0", "--no-plots",
                 "--out", str(tmp_path / "zero")])
    assert code == 2
    assert capsys.readouterr().err.startswith("mtbn: error:")


def test_bench_refused_settings_do_not_block_the_folder(tmp_path, capsys):
    out = str(tmp_path / "fix")
    common = ["bench", "alarm", "--train", "200", "--trials", "1", "--test-rows", "2000", "--restarts", "0",
              "--methods", "stl", "--no-plots", "--out", out]
    assert main(common + ["--tasks", "0"]) == 2
    assert main(common + ["--tasks", "2"]) == 0


@pytest.mark.slow
def test_a_damaged_trial_file_is_run_again_on_resume(full_run, tmp_path):
    out = tmp_path / "damaged"
    run_benchmark("alarm", str(out), n_trials=1, **BENCH)
    trial = out / "trials" / "trial_0000.csv"
    good = pd.read_csv(trial)
    trial.write_text(trial.read_text().splitlines()[0] + "\n")  # header only: an interrupted write
    results, _ = run_benchmark("alarm", str(out), n_trials=1, **BENCH)
    cols = [c for c in RESULT_COLUMNS if c != "seconds"]
    pd.testing.assert_frame_equal(pd.read_csv(trial)[cols], good[cols])
    assert len(results) == len(good)


def test_pooled_on_relabelled_tasks_uses_every_tasks_states():
    # In alarm-unrelated a column name holds different variables (and states) in
    # different tasks; POOLED must learn on the union of the states, not task 0's.
    from mtbn.evaluate import run_trial

    rows = run_trial("alarm-unrelated", 0, n_tasks=2, n_train=100, n_test=200, methods=("pooled",), n_restarts=0)
    assert len(rows) == 2 and all(np.isfinite(r["kl"]) for r in rows)


def test_make_problem_uses_the_papers_split_and_keeps_ours_as_a_variant(alarm):
    from mtbn.benchmarks import make_problem

    for problem, comps in (("alarm-comp", PAPER_ALARM_COMPONENTS), ("alarm-comp-connected", ALARM_COMPONENTS)):
        tasks = make_problem(problem, random_state=3)
        changed_nodes = {n for n in alarm.names
                         if tasks[2].parents[alarm.index(n)] != alarm.parents[alarm.index(n)]
                         or not np.array_equal(tasks[2].cpts[alarm.index(n)], alarm.cpts[alarm.index(n)])}
        assert changed_nodes and changed_nodes <= set(comps[1])  # task 3 changes component 2 only


@pytest.mark.slow
def test_a_bench_folder_of_the_former_split_is_not_resumed(tmp_path):
    import json

    out = tmp_path / "comp"
    run_benchmark("alarm-comp", str(out), n_trials=1, **BENCH)
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["components"][1] == list(PAPER_ALARM_COMPONENTS[1])
    del cfg["components"]  # as written before the split changed
    (out / "config.json").write_text(json.dumps(cfg))
    from mtbn.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="holds a run with other settings"):
        run_benchmark("alarm-comp", str(out), n_trials=1, **BENCH)


def test_every_method_fits_cpts_on_the_tasks_own_states():
    # Relabelled tasks hold different states under one column name; the learner's own networks
    # use the union of states, which spreads probability over states a task never has and
    # inflates KL. The bench fits every method on each task's own rows and states instead.
    from mtbn.benchmarks import make_problem
    from mtbn.data import DiscreteData
    from mtbn.evaluate import _fit_all
    from mtbn.learn import learn_structures
    from mtbn.metrics import kl_divergence

    truths = make_problem("alarm-unrelated", n_tasks=2, random_state=0)
    train = [DiscreteData(sample(n, 300, random_state=t).codes, n.names, n.states, f"t{t}")
             for t, n in enumerate(truths)]
    res = learn_structures(train, penalty=0.0, n_restarts=0, n_joint_restarts=0)
    own = _fit_all(res.graphs, train, 1.0)
    assert [n.states for n in own] == [d.states for d in train]
    assert res.networks[1].states != train[1].states  # the union: why the bench refits
    test = sample(truths[1], 2000, random_state=9)
    assert kl_divergence(truths[1], own[1], test) < kl_divergence(truths[1], res.networks[1], test)
