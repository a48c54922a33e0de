"""Tests of the multitask search (mtbn.joint) and learners (mtbn.learn).

Truths used: eq. 2.5 evaluated directly (each task's BDeu summed over its
families, plus the Edit / Paired prior of eqs. 2.7 / 2.8 computed here by
brute force over node pairs from the graphs' edge lists); single-task greedy
search (:func:`mtbn.search.hill_climb`) for the limits where the multitask
problem reduces to it; the TSK construction of Section 2.3.1
(:func:`mtbn.learn.learn_identical_structures`) at delta = 1; pgmpy's own
model checks; and cross-checks between solvers, job counts and input forms.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from mtbn.data import make_taskset
from mtbn.exceptions import CycleError, InvalidParameterError
from mtbn.joint import multitask_hill_climb
from mtbn.estimators import MultitaskStructureLearner
from mtbn.learn import (
    learn_identical_structures,
    learn_structure,
    learn_structures,
)
from mtbn.networks import load_network, sample
from mtbn.priors import make_prior
from mtbn.score import BDeuScore
from mtbn.search import hill_climb

ASIA_NAMES = ("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp")


# ---------------------------------------------------------------------------
# Data and brute-force truths
# ---------------------------------------------------------------------------


_ASIA = {}


def asia():
    if "net" not in _ASIA:
        _ASIA["net"] = load_network("asia")
    return _ASIA["net"]


def asia_tasks(n=300, k=3, seed=0):
    """``k`` ASIA samples as DiscreteData (the network's declared state lists)."""
    return {f"t{i}": sample(asia(), n, random_state=seed * 100 + i) for i in range(k)}


def asia_frames(n=300, k=3, seed=0):
    return {name: d.to_dataframe() for name, d in asia_tasks(n, k, seed).items()}


def bdeu_total(data, graph, ess=1.0):
    """log P(D | G) by BDeu, family by family, with a fresh uncached scorer."""
    scorer = BDeuScore(data, ess)
    names = list(data.names)
    parents = {v: set() for v in names}
    for u, v in graph.edges(names=True):
        parents[v].add(names.index(u))
    return sum(scorer.local_score_uncached(names.index(v), sorted(parents[v])) for v in names)


def dist(a, b, reversal):
    if a == b:
        return 0
    if a == 0 or b == 0:
        return 1
    return 1 if reversal == "single" else 2


def pair_state(edges, names, a, b):
    """None if the task lacks a or b, else 0 / 1 (a -> b) / 2 (b -> a)."""
    if a not in names or b not in names:
        return None
    if (a, b) in edges:
        return 1
    if (b, a) in edges:
        return 2
    return 0


def brute_prior(graphs, variables, prior, penalty, reversal, weights=None):
    """The multitask prior's pair terms (eq. 2.7 or 2.8) from edge lists.

    Tasks lacking a variable take no part in the pairs involving it.
    """
    k = len(graphs)
    L = -math.inf if penalty >= 1 else math.log1p(-penalty)
    edge_sets = [set(g.edges(names=True)) for g in graphs]
    name_sets = [set(g.names) for g in graphs]
    total = 0.0
    for a, b in itertools.combinations(variables, 2):
        states = [pair_state(e, n, a, b) for e, n in zip(edge_sets, name_sets)]
        present = [s for s in states if s is not None]
        if prior == "edit":
            count = min(sum(dist(s, z, reversal) for s in present) for z in range(3))
            factor = L
        else:
            if k < 2:
                continue
            count = 0.0
            for t, u in itertools.combinations(range(k), 2):
                if states[t] is not None and states[u] is not None:
                    w = 1.0 if weights is None else weights[t][u]
                    count += w * dist(states[t], states[u], reversal)
            factor = L / (k - 1)
        if count:
            total += factor * count
    return total


def edge_set(graph):
    return set(graph.edges(names=True))


def random_dag(rng, n, p=0.3):
    order = rng.permutation(n)
    parents = [set() for _ in range(n)]
    for a, b in itertools.combinations(range(n), 2):
        if rng.random() < p:
            parents[int(order[b])].add(int(order[a]))
    return parents


# ---------------------------------------------------------------------------
# The configuration score (eq. 2.5)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prior, reversal",
    [("paired", "double"), ("paired", "single"), ("edit", "single"), ("edit", "double")],
)
def test_search_log_score_equals_direct_evaluation_of_eq_2_5(prior, reversal):
    tasks = asia_tasks(n=150, k=3, seed=3)
    ts = make_taskset(tasks)
    rng = np.random.default_rng(42)
    n_nonzero = 0
    for trial in range(6):
        starts = [random_dag(rng, 8) for _ in range(3)]
        max_iter = [0, 1, 3, 6, None, None][trial]
        pr = make_prior(prior, 0.7, 3, reversal=reversal)
        scorers = [BDeuScore(d) for d in ts.tasks]
        res = multitask_hill_climb(scorers, starts, pr, local_index=ts.local_index, max_iter=max_iter)
        lls = [bdeu_total(d, g) for d, g in zip(ts.tasks, res.graphs)]
        want_prior = brute_prior(res.graphs, ts.variables, prior, 0.7, reversal)
        n_nonzero += want_prior != 0
        np.testing.assert_allclose(res.log_likelihoods, lls, rtol=1e-10)
        assert res.log_prior == pytest.approx(want_prior, rel=1e-10, abs=1e-9)
        assert res.log_score == pytest.approx(sum(lls) + want_prior, rel=1e-10)
        # The search only moves uphill: the final score beats the start's.
        start_graphs = [type(g)(s, g.names) for g, s in zip(res.graphs, starts)]
        start_score = sum(bdeu_total(d, g) for d, g in zip(ts.tasks, start_graphs)) + brute_prior(
            start_graphs, ts.variables, prior, 0.7, reversal
        )
        assert res.log_score >= start_score - 1e-9
    assert n_nonzero >= 3  # the check exercised the prior, not just the likelihood


@pytest.mark.slow
def test_learn_structures_log_score_equals_eq_2_5_with_pair_weights():
    tasks = asia_tasks(n=150, k=3, seed=4)
    ts = make_taskset(tasks)
    w = np.array([[0, 1.0, 0.2], [1.0, 0, 3.0], [0.2, 3.0, 0]])
    res = learn_structures(tasks, prior="paired", penalty=0.8, pair_weights=w, n_restarts=0)
    lls = [bdeu_total(d, g) for d, g in zip(ts.tasks, res.graphs)]
    want = sum(lls) + brute_prior(res.graphs, ts.variables, "paired", 0.8, "double", w.tolist())
    assert res.log_score == pytest.approx(want, rel=1e-10)
    np.testing.assert_allclose(res.task_log_likelihoods, lls, rtol=1e-10)


# ---------------------------------------------------------------------------
# The limits delta = 0 and delta = 1
# ---------------------------------------------------------------------------


def test_single_task_search_equals_hill_climb():
    # With one task the joint search is single-task search (the prior is 0):
    # plain greedy without tabu and restarts, tabu search with them.
    for seed in range(4):
        d = sample(asia(), 200, random_state=seed)
        for prior in ("paired", "edit"):
            res = learn_structures({"x": d}, prior=prior, penalty=0.5, start="empty", n_restarts=0,
                                   tabu_length=0, max_tabu_iter=0, n_joint_restarts=0)
            hc = hill_climb(BDeuScore(d), [set() for _ in range(8)], tabu_length=0, n_restarts=0)
            assert res.graphs[0].parents == hc.graph.parents
            assert res.log_score == pytest.approx(hc.log_score, rel=1e-12)


@pytest.mark.parametrize("prior", ["paired", "edit", "none"])
def test_penalty_zero_ends_in_single_task_local_optima_with_no_prior_term(prior):
    tasks = asia_tasks(n=300, k=3, seed=1)
    penalty = None if prior == "none" else 0.0
    kwargs = {} if penalty is None else {"penalty": penalty}
    res = learn_structures(tasks, prior=prior, start="empty", n_restarts=0, **kwargs)
    assert res.penalty == 0.0
    lls = []
    for d, g in zip(tasks.values(), res.graphs):
        # No single edge addition, removal or reversal improves any task.
        hc = hill_climb(BDeuScore(d), [set(p) for p in g.parents], tabu_length=0, n_restarts=0)
        assert hc.n_iter == 0 and hc.graph.parents == g.parents
        lls.append(bdeu_total(d, g))
    assert res.search.log_prior == 0.0
    assert res.log_score == pytest.approx(sum(lls), rel=1e-12)


def test_penalty_zero_from_single_task_start_keeps_the_single_task_solutions():
    tasks = asia_tasks(n=300, k=3, seed=2)
    res = learn_structures(tasks, prior="paired", penalty=0.0, n_restarts=0)
    assert res.search.n_iter == 0
    for d, g, stl in zip(tasks.values(), res.graphs, res.single_task):
        alone = learn_structure(d, n_restarts=0)  # tabu 10, the STL baseline
        assert g.parents == alone.graph.parents == stl.graph.parents


def test_penalty_zero_from_empty_start_equals_independent_greedy_search():
    tasks = asia_tasks(n=300, k=3, seed=0)
    res = learn_structures(tasks, prior="paired", penalty=0.0, start="empty", n_restarts=0, tabu_length=0,
                           max_tabu_iter=0, n_joint_restarts=0)
    for d, g in zip(tasks.values(), res.graphs):
        hc = hill_climb(BDeuScore(d), [set() for _ in range(8)], tabu_length=0, n_restarts=0)
        assert g.parents == hc.graph.parents


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("prior", ["paired", "edit"])
def test_penalty_one_gives_identical_graphs_equal_to_tsk_method(prior, seed):
    k, ess = 3, 1.0
    tasks = asia_tasks(n=200, k=k, seed=seed)
    res = learn_structures(tasks, prior=prior, penalty=1.0, start="empty", n_restarts=0,
                           equivalent_sample_size=ess)
    first = edge_set(res.graphs[0])
    assert all(edge_set(g) == first for g in res.graphs[1:])
    assert res.search.log_prior == 0.0 and np.isfinite(res.log_score)
    shared, _ = learn_identical_structures(tasks, equivalent_sample_size=k * ess, n_restarts=0, tabu_length=0)
    if edge_set(shared[0]) != first:  # a search tie: then the totals agree
        mine = sum(bdeu_total(d, g, ess) for d, g in zip(tasks.values(), res.graphs))
        theirs = sum(bdeu_total(d, g, ess) for d, g in zip(tasks.values(), shared))
        assert mine == pytest.approx(theirs, abs=1e-6)


@pytest.mark.slow
def test_penalty_one_from_differing_single_task_starts_gives_identical_graphs():
    tasks = asia_tasks(n=100, k=4, seed=5)
    res = learn_structures(tasks, prior="edit", penalty=1.0, n_restarts=0)
    assert len({frozenset(edge_set(r.graph)) for r in res.single_task}) > 1  # the starts differ
    first = edge_set(res.graphs[0])
    assert all(edge_set(g) == first for g in res.graphs[1:])
    assert np.isfinite(res.log_score)


# ---------------------------------------------------------------------------
# Solvers, partial variable sets, parallel grid, penalty selection
# ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("prior", ["paired", "edit"])
@pytest.mark.parametrize("penalty", [0.5, 0.99])
def test_solvers_give_identical_graphs(prior, penalty):
    tasks = asia_tasks(n=120, k=3, seed=6)
    results = {
        s: learn_structures(tasks, prior=prior, penalty=penalty, solver=s, start="empty", n_restarts=0)
        for s in ("exact", "bnb", "exhaustive", "auto")
    }
    ref = results["exact"]
    for s, r in results.items():
        assert [g.parents for g in r.graphs] == [g.parents for g in ref.graphs], s
        assert r.log_score == pytest.approx(ref.log_score, rel=1e-12), s
        assert r.search.n_iter == ref.search.n_iter, s
    assert results["auto"].search.solver == "exact"


@pytest.mark.slow
@pytest.mark.parametrize("prior", ["paired", "edit"])
def test_solvers_give_identical_graphs_with_five_tasks(prior):
    # With k > 3 the Edit and Paired priors differ, and reversals matter.
    tasks = asia_tasks(n=80, k=5, seed=20)
    results = [
        learn_structures(tasks, prior=prior, penalty=0.9, solver=s, n_restarts=0, n_joint_restarts=3)
        for s in ("exact", "bnb", "exhaustive")
    ]
    assert results[0].search.n_iter > 0
    for r in results[1:]:
        assert [g.parents for g in r.graphs] == [g.parents for g in results[0].graphs]
        assert r.log_score == pytest.approx(results[0].log_score, rel=1e-12)


@pytest.mark.slow
def test_bnb_and_exhaustive_agree_with_unequal_pair_weights():
    tasks = asia_tasks(n=120, k=3, seed=7)
    w = np.array([[0, 2.0, 0.1], [2.0, 0, 1.0], [0.1, 1.0, 0]])
    a = learn_structures(tasks, penalty=0.9, pair_weights=w, solver="bnb", n_restarts=0)
    b = learn_structures(tasks, penalty=0.9, pair_weights=w, solver="exhaustive", n_restarts=0)
    c = learn_structures(tasks, penalty=0.9, pair_weights=w, solver="auto", n_restarts=0)
    assert [g.parents for g in a.graphs] == [g.parents for g in b.graphs] == [g.parents for g in c.graphs]
    assert c.search.solver == "bnb"
    with pytest.raises(InvalidParameterError, match="exact"):
        learn_structures(tasks, penalty=0.9, pair_weights=w, solver="exact", n_restarts=0)


@pytest.mark.slow
@pytest.mark.parametrize("prior", ["paired", "edit"])
def test_tasks_with_a_missing_variable(prior):
    frames = asia_frames(n=300, k=3, seed=8)
    frames["t1"] = frames["t1"].drop(columns=["either"])
    ts = make_taskset(frames)
    reversal = "double" if prior == "paired" else "single"
    for penalty in (0.0, 0.5, 0.9, 1.0):
        res = learn_structures(frames, prior=prior, penalty=penalty, n_restarts=0)
        g1 = res.graphs[1]
        assert "either" not in g1.names and len(g1.names) == 7
        assert all("either" not in e for e in g1.edges(names=True))
        assert all("either" in g.names for g in (res.graphs[0], res.graphs[2]))
        lls = [bdeu_total(d, g) for d, g in zip(ts.tasks, res.graphs)]
        np.testing.assert_allclose(res.task_log_likelihoods, lls, rtol=1e-10)
        want = brute_prior(res.graphs, ts.variables, prior, penalty, reversal)
        assert np.isfinite(res.log_score)
        assert res.log_score == pytest.approx(sum(lls) + want, rel=1e-10, abs=1e-9)
        if penalty == 1.0:
            # Tasks agree wherever they share both variables...
            e0, e1, e2 = (edge_set(g) for g in res.graphs)
            assert e0 == e2
            assert e1 == {e for e in e0 if "either" not in e}
            # ...and the variable the middle task lacks still has edges elsewhere,
            # which would be forbidden if the lacking task counted as "no edge".
            assert any("either" in e for e in e0)


def test_grid_chunks_cover_every_point_once():
    from mtbn.learn.grid import _chunks

    assert _chunks(5, None) == _chunks(5, 1) == [[0], [1], [2], [3], [4]]  # Dask / one process: a job per point
    assert _chunks(5, 2) == [[0, 2, 4], [1, 3]]  # interleaved: cheap and costly penalties in every chunk
    assert _chunks(2, 8) == [[0], [1]]
    for n, w in [(14, 2), (14, 3), (13, 4), (1, 2)]:
        assert sorted(i for c in _chunks(n, w) for i in c) == list(range(n))


def test_grid_jobs_keep_whole_folds_where_they_divide_among_the_workers():
    from mtbn.learn.grid import grid_jobs

    assert grid_jobs(2, 3, None) == grid_jobs(2, 3, 1) == [(0, [0]), (0, [1]), (0, [2]), (1, [0]), (1, [1]),
                                                            (1, [2])]
    assert grid_jobs(5, 7, 2) == [(p, list(range(7))) for p in range(4)] + [(4, [0, 2, 4, 6]), (4, [1, 3, 5])]
    assert grid_jobs(1, 5, 2) == [(0, [0, 2, 4]), (0, [1, 3])]  # one validation split: cut for both workers
    assert grid_jobs(5, 7, 16) == [(p, [i]) for p in range(5) for i in range(7)]  # more workers than folds
    for folds, points, workers in [(5, 7, 2), (5, 2, 16), (3, 9, 4), (10, 6, 3), (1, 1, 2), (4, 7, 2)]:
        cut = grid_jobs(folds, points, workers)
        assert sorted((p, i) for p, c in cut for i in c) == [(p, i) for p in range(folds) for i in range(points)]


def test_chain_groups_fill_the_workers_longest_first():
    from mtbn.learn.grid import chain_groups

    starts = [("single-task", []), ("identical", lambda: []), ("empty", [])]
    assert chain_groups(starts, None) == [[0], [1], [2]]  # a cluster: a job per chain
    assert chain_groups(starts, 2) == [[1], [0, 2]]  # the search still to run counts as two chains
    assert chain_groups(starts, 3) == chain_groups(starts, 8) == [[1], [0], [2]]
    assert chain_groups(starts[:1], 2) == [[0]]


@pytest.mark.slow
def test_parallel_cv_grid_gives_identical_results():
    """5-fold CV with two workers: each fold's points run in chunks, with the same results as in one process."""
    tasks = asia_tasks(n=200, k=3, seed=9)
    kw = dict(penalty_grid=[0.0, 0.5, 0.9, 0.99, 1.0], n_restarts=0, force_transfer=True)
    a = learn_structures(tasks, n_jobs=1, **kw)
    b = learn_structures(tasks, n_jobs=2, **kw)
    assert a.penalty == b.penalty and a.log_score == b.log_score
    assert [g.parents for g in a.graphs] == [g.parents for g in b.graphs]
    for p, q in zip(a.penalty_path, b.penalty_path):
        assert p.validation_log_likelihood == q.validation_log_likelihood


@pytest.mark.slow
def test_parallel_grid_gives_identical_results():
    tasks = asia_tasks(n=200, k=3, seed=9)
    kw = dict(prior="paired", penalty="auto", penalty_grid=[0.0, 0.5, 0.9, 0.99, 1.0], n_restarts=0, validation=0.1,
              force_transfer=True)
    a = learn_structures(tasks, n_jobs=1, **kw)
    b = learn_structures(tasks, n_jobs=2, **kw)
    assert a.penalty == b.penalty
    assert [g.parents for g in a.graphs] == [g.parents for g in b.graphs]
    assert a.log_score == b.log_score
    assert len(a.penalty_path) == len(b.penalty_path) == 5
    for p, q in zip(a.penalty_path, b.penalty_path):
        assert p.penalty == q.penalty
        assert p.validation_log_likelihood == q.validation_log_likelihood
        assert p.log_score == q.log_score and p.n_iter == q.n_iter
        assert [g.parents for g in p.graphs] == [g.parents for g in q.graphs]


@pytest.mark.slow
@pytest.mark.parametrize("prior", ["paired", "edit"])
def test_auto_penalty_path_and_choice(prior):
    tasks = asia_tasks(n=200, k=3, seed=10)
    grid = [0.0, 0.3, 0.9, 0.999, 1.0]
    res = learn_structures(tasks, prior=prior, penalty="auto", penalty_grid=grid, n_restarts=0, validation=40,
                           force_transfer=True, penalty_search="grid")
    assert [p.penalty for p in res.penalty_path] == grid
    values = np.array([p.validation_log_likelihood for p in res.penalty_path])
    assert np.all(np.isfinite(values))
    assert res.penalty in grid
    chosen = res.penalty_path[grid.index(res.penalty)]
    # The paper's rule with a validation split: the best mean, first on ties.
    assert chosen.validation_log_likelihood == values.max()
    assert res.penalty == grid[int(np.flatnonzero(values == values.max())[0])]
    # The returned structures are learned again on all rows at the chosen penalty.
    direct = learn_structures(tasks, prior=prior, penalty=res.penalty, n_restarts=0)
    assert [g.parents for g in res.graphs] == [g.parents for g in direct.graphs]
    assert res.log_score == pytest.approx(direct.log_score, rel=1e-12)
    # At delta = 1 the path's graphs are identical.
    last = res.penalty_path[-1]
    assert len({frozenset(edge_set(g)) for g in last.graphs}) == 1
    records = res.penalty_path_records()
    assert [r["penalty"] for r in records] == grid


@pytest.mark.slow
def test_auto_penalty_with_cross_validation():
    tasks = asia_tasks(n=150, k=3, seed=11)
    grid = [0.0, 0.9, 1.0]
    res = learn_structures(tasks, penalty="auto", penalty_grid=grid, cv=3, n_restarts=0, selection_rule="max",
                           force_transfer=True)
    assert [p.penalty for p in res.penalty_path] == grid
    values = [p.validation_log_likelihood for p in res.penalty_path]
    assert res.penalty_path[grid.index(res.penalty)].validation_log_likelihood == max(values)
    assert res.transfer["folds"] == 3 and res.transfer["rule"] == "max"
    # With cv, the final structures are learned on all the data at the chosen penalty.
    direct = learn_structures(tasks, penalty=res.penalty, n_restarts=0)
    assert [g.parents for g in res.graphs] == [g.parents for g in direct.graphs]
    assert res.log_score == pytest.approx(direct.log_score, rel=1e-12)


# ---------------------------------------------------------------------------
# Bad options
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(penalty=1.5), "penalty must be in"),
        (dict(penalty=-0.1), "penalty must be in"),
        (dict(penalty=float("nan")), "penalty must be in"),
        (dict(penalty="x"), "penalty must be a number"),
        (dict(penalty=0.5, prior="bogus"), "prior must be one of"),
        (dict(penalty=0.5, reversal="triple"), "reversal must be one of"),
        (dict(penalty=0.5, solver="bogus"), "solver must be one of"),
        (dict(penalty=0.5, pair_weights=np.ones((2, 2))), "pair weights must be a 3 x 3 matrix"),
        (dict(penalty=0.5, pair_weights=np.array([[0, 1, 2], [1, 0, 1], [1, 1, 0.0]])), "symmetric"),
        (dict(penalty=0.5, pair_weights=-np.ones((3, 3))), "non-negative"),
        (dict(penalty=0.5, prior="edit", pair_weights=np.ones((3, 3))), "paired"),
        (dict(penalty="auto", validation=0), "validation must be"),
        (dict(penalty="auto", validation=1.5), "validation must be"),
        (dict(penalty="auto", validation=40), "leaves no training rows"),
        (dict(penalty="auto", validation=100), "leaves no training rows"),
        (dict(penalty="auto", cv=1), "cv must be"),
        (dict(penalty="auto", penalty_grid=[0.0, 1.5]), "penalty_grid value"),
        (dict(penalty="auto", penalty_grid=[]), "penalty_grid is empty"),
        (dict(penalty=0.5, start="bogus"), "start must be one of"),
        (dict(penalty=0.5, start=[[], []]), "one graph per task"),
        (dict(penalty=0.5, structure_log_prior=np.zeros((3, 8, 7))), "structure_log_prior"),
    ],
)
def test_bad_options_raise_clear_errors(kwargs, match):
    tasks = asia_tasks(n=40, k=3, seed=12)
    with pytest.raises(InvalidParameterError, match=match):
        learn_structures(tasks, n_restarts=0, **kwargs)


def test_cyclic_start_graph_raises_cycle_error():
    tasks = asia_tasks(n=40, k=3, seed=12)
    cyclic = [("asia", "tub"), ("tub", "either"), ("either", "asia")]
    with pytest.raises(CycleError, match="not a DAG"):
        learn_structures(tasks, penalty=0.5, start=[cyclic, [], []], n_restarts=0)


def test_explicit_start_graphs_are_used():
    tasks = asia_tasks(n=200, k=3, seed=13)
    start = [[("smoke", "lung")], [], [("lung", "smoke"), ("asia", "dysp")]]
    res = learn_structures(tasks, penalty=0.0, start=start, max_iter=0, n_restarts=0, n_joint_restarts=0)
    assert [edge_set(g) for g in res.graphs] == [set(s) for s in start]


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------


def check_pgmpy_network(model, names, dag):
    from pgmpy.models import DiscreteBayesianNetwork

    assert isinstance(model, DiscreteBayesianNetwork)
    assert set(model.nodes()) == set(names)
    assert set(model.edges()) == edge_set(dag)
    assert model.check_model()
    for cpd in model.get_cpds():
        values = cpd.get_values()
        np.testing.assert_allclose(values.sum(axis=0), 1.0, atol=1e-10)
        assert np.all(values >= 0)


@pytest.mark.slow
def test_estimator_fit_graphs_networks_and_params():
    frames = asia_frames(n=200, k=3, seed=14)
    learner = MultitaskStructureLearner(penalty=0.8, n_restarts=0)
    assert learner.fit(frames) is learner
    assert sorted(learner.graphs_) == ["t0", "t1", "t2"]
    direct = learn_structures(frames, penalty=0.8, n_restarts=0)
    for name, g in zip(direct.task_names, direct.graphs):
        assert set(learner.graphs_[name].edges()) == edge_set(g)
        assert set(learner.graphs_[name].nodes()) == set(ASIA_NAMES)
        assert learner.dags_[name].parents == g.parents
    assert learner.penalty_ == 0.8
    assert learner.log_score_ == pytest.approx(direct.log_score)
    assert learner.n_tasks_ == 3
    nets = learner.networks_
    assert sorted(nets) == ["t0", "t1", "t2"]
    for name, model in nets.items():
        check_pgmpy_network(model, ASIA_NAMES, learner.dags_[name])


def test_estimator_get_params_set_params_round_trip():
    learner = MultitaskStructureLearner(prior="edit", penalty=0.3, n_restarts=0, penalty_grid=(0.0, 1.0))
    params = learner.get_params()
    assert params["prior"] == "edit" and params["penalty"] == 0.3 and params["penalty_grid"] == (0.0, 1.0)
    clone = MultitaskStructureLearner(**params)
    assert clone.get_params() == params
    assert clone.set_params(penalty=0.7, solver="bnb") is clone
    assert clone.get_params() == {**params, "penalty": 0.7, "solver": "bnb"}
    assert learner.get_params()["penalty"] == 0.3
    with pytest.raises(InvalidParameterError, match="no parameter"):
        clone.set_params(bogus=1)
    assert "MultitaskStructureLearner(" in repr(clone)


def test_estimator_not_fitted_error():
    from mtbn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="This MultitaskStructureLearner instance is not fitted yet"):
        MultitaskStructureLearner().networks_


@pytest.mark.slow
def test_estimator_accepts_list_of_frames_and_task_column():
    frames = asia_frames(n=200, k=3, seed=15)
    by_dict = MultitaskStructureLearner(penalty=0.8, n_restarts=0).fit(frames)
    by_list = MultitaskStructureLearner(penalty=0.8, n_restarts=0).fit(list(frames.values()))
    assert sorted(by_list.graphs_) == ["task0", "task1", "task2"]
    stacked = pd.concat([f.assign(task=name) for name, f in frames.items()], ignore_index=True)
    by_column = MultitaskStructureLearner(penalty=0.8, n_restarts=0).fit(stacked, task_column="task")
    assert sorted(by_column.graphs_) == ["t0", "t1", "t2"]
    for i, name in enumerate(frames):
        want = by_dict.dags_[name].parents
        assert by_list.dags_[f"task{i}"].parents == want
        assert by_column.dags_[name].parents == want
    assert by_column.log_score_ == pytest.approx(by_dict.log_score_)
    for name, model in by_column.networks_.items():
        check_pgmpy_network(model, ASIA_NAMES, by_column.dags_[name])


def test_estimator_single_frame_without_task_column_raises():
    frames = asia_frames(n=50, k=2, seed=16)
    stacked = pd.concat([f.assign(task=name) for name, f in frames.items()], ignore_index=True)
    with pytest.raises(InvalidParameterError, match="task_column"):
        MultitaskStructureLearner(penalty=0.5, n_restarts=0).fit(stacked)


# ---------------------------------------------------------------------------
# Structure log prior
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_structure_log_prior_moves_result_in_expected_direction():
    tasks = asia_tasks(n=500, k=3, seed=17)
    ts = make_taskset(tasks)
    penalty = 0.5
    base = learn_structures(tasks, prior="paired", penalty=penalty, n_restarts=0)

    def has(g, a, b):
        return (a, b) in edge_set(g) or (b, a) in edge_set(g)

    assert all(has(g, "bronc", "dysp") for g in base.graphs)
    assert not any(has(g, "asia", "xray") for g in base.graphs)

    def f(task, parent, child):
        if {parent, child} == {"bronc", "dysp"}:
            return -1e6
        if (parent, child) == ("asia", "xray"):
            return 500.0
        return 0.0

    res = learn_structures(tasks, prior="paired", penalty=penalty, n_restarts=0, structure_log_prior=f)
    assert not any(has(g, "bronc", "dysp") for g in res.graphs)
    assert all(("asia", "xray") in edge_set(g) for g in res.graphs)
    # log P(G_t) = sum of edge weights, raised to c = 1 / (1 + (k - 1) delta).
    c = 1.0 / (1.0 + 2 * penalty)
    lls = [bdeu_total(d, g) for d, g in zip(ts.tasks, res.graphs)]
    struct = sum(f(None, u, v) for g in res.graphs for u, v in g.edges(names=True))
    want = sum(lls) + c * struct + brute_prior(res.graphs, ts.variables, "paired", penalty, "double")
    assert res.log_score == pytest.approx(want, rel=1e-10)
    # The array form gives the same result.
    arr = np.zeros((3, 8, 8))
    for i, u in enumerate(ts.variables):
        for j, v in enumerate(ts.variables):
            if i != j:
                arr[:, i, j] = f(None, u, v)
    res2 = learn_structures(tasks, prior="paired", penalty=penalty, n_restarts=0, structure_log_prior=arr)
    assert [g.parents for g in res2.graphs] == [g.parents for g in res.graphs]


@pytest.mark.slow
def test_structure_log_prior_on_one_task_only():
    tasks = asia_tasks(n=500, k=3, seed=18)

    def f(task, parent, child):
        return -1e6 if task == "t1" and {parent, child} == {"either", "xray"} else 0.0

    res = learn_structures(tasks, prior="paired", penalty=0.5, n_restarts=0, structure_log_prior=f)
    pair = {("either", "xray"), ("xray", "either")}
    assert not edge_set(res.graphs[1]) & pair
    assert edge_set(res.graphs[0]) & pair and edge_set(res.graphs[2]) & pair


def test_all_zero_pair_weights_learn_tasks_independently():
    tasks = asia_tasks(n=200, k=3, seed=19)
    zero = learn_structures(tasks, penalty=1.0, pair_weights=np.zeros((3, 3)), start="empty", n_restarts=0)
    free = learn_structures(tasks, penalty=0.0, start="empty", n_restarts=0)
    assert [g.parents for g in zero.graphs] == [g.parents for g in free.graphs]


@pytest.mark.slow
def test_warm_start_walks_the_grid_from_the_previous_point():
    tasks = asia_tasks(n=300, k=3, seed=4)
    grid = (0.0, 0.9, 0.999)
    kw = dict(penalty="auto", penalty_grid=grid, n_restarts=0, selection_rule="max", force_transfer=True)
    warm = learn_structures(tasks, warm_start=True, **kw)
    cold = learn_structures(tasks, warm_start=False, **kw)
    assert [p.penalty for p in warm.penalty_path] == list(grid)
    # The first point starts from the same single-task graphs either way.
    assert [g.parents for g in warm.penalty_path[0].graphs] == [g.parents for g in cold.penalty_path[0].graphs]
    best = max(p.validation_log_likelihood for p in warm.penalty_path)
    assert warm.penalty in [p.penalty for p in warm.penalty_path if p.validation_log_likelihood == best]


def test_bic_at_penalty_zero_equals_single_task_bic_learning():
    # Issue 34 item 8: the multitask learner takes the single-task learner's scores.
    from mtbn.score import BICScore

    tasks = asia_tasks(n=300, k=3, seed=4)
    res = learn_structures(tasks, score="bic", penalty=0.0, n_restarts=0)
    bdeu = learn_structures(tasks, penalty=0.0, n_restarts=0)
    assert any(g.parents != h.parents for g, h in zip(res.graphs, bdeu.graphs))  # the score was used
    for d, g, ll in zip(tasks.values(), res.graphs, res.task_log_likelihoods):
        alone = learn_structure(d, score="bic", n_restarts=0)
        assert g.parents == alone.graph.parents
        scorer = BICScore(d)
        assert ll == pytest.approx(sum(scorer.local_score(v, sorted(ps)) for v, ps in enumerate(g.parents)), rel=1e-12)


def test_bic_joint_search_couples_the_tasks():
    tasks = asia_tasks(n=300, k=3, seed=4)
    free = learn_structures(tasks, score="bic", penalty=0.0, n_restarts=0)
    tied = learn_structures(tasks, score="bic", penalty=1.0, n_restarts=0)
    assert len({frozenset(g.edges()) for g in free.graphs}) > 1
    assert len({frozenset(g.edges()) for g in tied.graphs}) == 1


# --- penalty_search (issue 30) ---

def _sachs_tasks(rows=300, k=3, seed=5):
    from mtbn.benchmarks import make_problem

    rng = np.random.default_rng(seed)
    return {f"t{t}": sample(n, rows, random_state=rng).to_dataframe()
            for t, n in enumerate(make_problem("sachs", n_tasks=k, random_state=rng))}


def test_refined_penalty_search_searches_a_subset_with_both_ends_and_chooses_among_it():
    import warnings

    tasks = _sachs_tasks()
    kw = dict(n_restarts=2, n_joint_restarts=1, cv=3, force_transfer=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = learn_structures(tasks, penalty_search="grid", **kw)
        fine = learn_structures(tasks, **kw)
    grid = [p.penalty for p in full.penalty_path]
    searched = [p.penalty for p in fine.penalty_path]
    assert len(grid) == 13 and grid == sorted(grid)
    assert set(searched) < set(grid) and searched[0] == 0.0 and searched[-1] == 1.0
    assert fine.penalty in searched
    # a point searched by both gets the same held-out score: same folds, same searches
    same = {p.penalty: p.validation_log_likelihood for p in full.penalty_path}
    for p in fine.penalty_path:
        assert p.validation_log_likelihood == pytest.approx(same[p.penalty], abs=1e-12)


def test_penalty_search_is_checked_by_name():
    with pytest.raises(InvalidParameterError, match="penalty_search"):
        learn_structures(_sachs_tasks(rows=50, k=2), penalty_search="bisect")


def test_a_registered_toy_score_runs_the_multitask_search():
    # A new score is a LocalScore subclass and one register_score call: here BDeu at twice the equivalent
    # sample size, which must learn exactly what BDeu learns when given that size (fixed penalty: no held-out fit).
    from mtbn.score import SCORES, BDeuScore, register_score

    class Double(BDeuScore):
        name = "bdeu-double"

        def __init__(self, data, equivalent_sample_size=1.0):
            super().__init__(data, 2 * equivalent_sample_size)

    tasks = _sachs_tasks(rows=200, k=2)
    register_score("bdeu-double", Double)
    try:
        toy = learn_structures(tasks, score="bdeu-double", penalty=0.9, n_restarts=1, n_joint_restarts=1,
                               equivalent_sample_size=1.0)
    finally:
        del SCORES["bdeu-double"]
    bdeu = learn_structures(tasks, penalty=0.9, n_restarts=1, n_joint_restarts=1, equivalent_sample_size=2.0)
    assert [g.parents for g in toy.graphs] == [g.parents for g in bdeu.graphs]
    assert toy.log_score == pytest.approx(bdeu.log_score, abs=1e-9)


# --- transfer_per_task (issue 31 item 3) ---

def _mixed_tasks(rows=500, seed=3):
    from mtbn.benchmarks import make_problem

    rng = np.random.default_rng(seed)
    nets = make_problem("alarm-mixed", random_state=rng)  # t0-t2 related, t3 and t4 relabelled
    return {f"t{i}": sample(n, rows, random_state=rng).to_dataframe() for i, n in enumerate(nets)}


_PER_TASK_KW = dict(n_restarts=2, n_joint_restarts=1, cv=3, penalty_grid=[0.9, 0.999, 0.99999], random_state=0)


@pytest.mark.slow
def test_transfer_per_task_learns_the_unrelated_tasks_alone_and_the_others_as_a_group():
    import warnings

    from mtbn.data import make_taskset
    from mtbn.exceptions import TransferWarning

    tasks = _mixed_tasks()
    with pytest.warns(TransferWarning, match="'t3', 't4' depend on their variables unlike the others"):
        res = learn_structures(tasks, **_PER_TASK_KW)  # the default decides transfer per task
    assert res.transfer["excluded"] == ["t3", "t4"]
    assert [res.transfer["tasks"][n]["verdict"] for n in ("t3", "t4")] == ["learned alone (unrelated)"] * 2
    # truths, same seed: the related tasks learned by themselves over all five tasks' state lists, and the
    # unrelated ones exactly as prior="none" learns them among all five
    ts = make_taskset(tasks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        joint = learn_structures(ts.subset(["t0", "t1", "t2"]), **_PER_TASK_KW)
        stl = learn_structures(tasks, prior="none", **_PER_TASK_KW)
        forced = learn_structures(tasks, transfer_per_task=True, **_PER_TASK_KW)
        all_tasks = learn_structures(tasks, transfer_per_task=False, **_PER_TASK_KW)
    assert [g.parents for g in res.graphs[:3]] == [g.parents for g in joint.graphs]
    assert [g.parents for g in res.graphs[3:]] == [g.parents for g in stl.graphs[3:]]
    assert [g.parents for g in forced.graphs] == [g.parents for g in res.graphs]
    assert res.penalty == joint.penalty and res.task_names == tuple(tasks)
    assert res.log_score == pytest.approx(joint.log_score + sum(stl.task_log_likelihoods[3:]))
    # every task's network keeps the states of all five tasks (a relabelled column holds other variables' states)
    for net in res.networks:
        assert dict(zip(net.names, net.states)) == dict(zip(ts.variables, ts.states))
    # all tasks at once: the relatedness test over all five passes, nobody is left out
    assert "excluded" not in all_tasks.transfer
    # the sharing choice names the tasks it concerns
    assert res.transfer["sharing"]["message"].startswith("tasks 't0', 't1', 't2': ")


def test_transfer_per_task_changes_nothing_when_every_task_is_related():
    import warnings

    tasks = _sachs_tasks(rows=300, k=3)
    kw = dict(_PER_TASK_KW, penalty_grid=[0.9, 0.999])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = learn_structures(tasks, **kw)
        per_task = learn_structures(tasks, transfer_per_task=True, **kw)
    assert "excluded" not in per_task.transfer
    assert [g.parents for g in per_task.graphs] == [g.parents for g in plain.graphs]
    assert per_task.penalty == plain.penalty


def test_transfer_per_task_refuses_per_task_settings_by_name():
    tasks = _mixed_tasks(rows=300)
    with pytest.raises(InvalidParameterError, match="transfer_per_task cannot leave tasks out"):
        learn_structures(tasks, transfer_per_task=True, pair_weights=np.ones((5, 5)), **_PER_TASK_KW)


@pytest.mark.parametrize("setting", [dict(pair_weights=np.ones((5, 5))), dict(force_transfer=True)])
def test_the_default_decides_for_all_tasks_at_once_with_per_task_settings_or_forced_transfer(setting):
    import warnings

    tasks = _mixed_tasks(rows=300)
    kw = dict(_PER_TASK_KW, penalty_grid=[0.9, 0.999], parameter_sharing=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = learn_structures(tasks, **setting, **kw)
        all_tasks = learn_structures(tasks, transfer_per_task=False, **setting, **kw)
    assert "excluded" not in auto.transfer
    assert [g.parents for g in auto.graphs] == [g.parents for g in all_tasks.graphs]


def test_the_transfer_warning_points_at_the_callers_line():
    import warnings

    from mtbn.exceptions import TransferWarning

    tasks = _sachs_tasks(rows=60, k=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        learn_structures(tasks, n_restarts=0, n_joint_restarts=0, cv=2, penalty_grid=[0.9])
    mine = [w for w in caught if issubclass(w.category, TransferWarning)]
    assert mine and all(w.filename == __file__ for w in mine)
