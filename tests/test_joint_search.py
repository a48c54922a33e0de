"""Tests of the joint search's tabu phase, restarts, starts and continuation (issue 8).

Truths used: brute-force enumeration of pair configurations (the exclusion
solver, tie-breaking) and of every DAG over 4 and 5 variables (the optimum
at penalty 1, where all tasks share one graph and the score is the sum of
the tasks' BDeu); plain greedy search and cold starts, which tabu search
and continuation must never score below; runs repeated with the same seed
and other job counts.
"""

import functools
import itertools

import networkx as nx
import numpy as np
import pytest

import mtbn.joint as joint
from mtbn.data import DiscreteData, make_taskset
from mtbn.joint import best_configuration, multitask_hill_climb, solve_excluding
from mtbn.learn import learn_identical_structures, learn_structures
from mtbn.networks import load_network, sample
from mtbn.priors import make_prior
from mtbn.score import BDeuScore

from helpers import all_dags


def _tasks(names, k=3, n=200, seed=0):
    net = load_network("asia")
    out = {}
    for t in range(k):
        d = sample(net, n, random_state=1000 * seed + t)
        cols = [d.names.index(v) for v in names]
        out[f"t{t}"] = DiscreteData(d.codes[:, cols], tuple(names), tuple(d.states[c] for c in cols), f"t{t}")
    return out


def _random_problem(rng, k, prior_name, penalty):
    gains = rng.normal(0.0, 2.0, size=(k, 3))
    gains[:, 0] = 0.0
    gains[rng.random((k, 3)) < 0.15] = -np.inf
    gains[:, 0] = np.where(np.isfinite(gains[:, 0]), gains[:, 0], 0.0)
    part = np.ones(k, dtype=bool)
    prior = make_prior(prior_name, penalty, k)
    return prior, gains, part, float(prior.log_factors(2)[0])


def _objective(prior, gains, part, L, config):
    config = np.asarray(config)[None, :]
    g = gains[np.arange(gains.shape[0]), config[0]].sum()
    phi = prior.log_prior(config, part[None], np.array([L]))[0]
    return g + phi if np.isfinite(g) and np.isfinite(phi) else -np.inf


@pytest.mark.parametrize("prior_name", ["paired", "edit"])
@pytest.mark.parametrize("penalty", [0.5, 0.99, 1.0])
def test_solve_excluding_equals_enumeration(prior_name, penalty):
    rng = np.random.default_rng(1)
    for _ in range(30):
        k = int(rng.integers(2, 5))
        prior, gains, part, L = _random_problem(rng, k, prior_name, penalty)
        exclude = tuple(int(x) for x in rng.integers(0, 3, size=k))
        truth = max(_objective(prior, gains, part, L, c) for c in itertools.product(range(3), repeat=k)
                    if c != exclude)
        for solver in ("exact", "bnb", "exhaustive"):
            got = solve_excluding(prior, gains[None], part[None], np.array([L]), np.array([exclude]), solver)[0]
            assert got == pytest.approx(truth, abs=1e-9) if np.isfinite(truth) else got == -np.inf


@pytest.mark.parametrize("prior_name", ["paired", "edit"])
def test_best_configuration_by_enumeration_equals_task_by_task_oracle(prior_name, monkeypatch):
    rng = np.random.default_rng(2)
    problems = [_random_problem(rng, int(rng.integers(2, 6)), prior_name, p) for p in (0.3, 0.9, 0.999) * 10]
    # Ties: equal gains make several configurations optimal.
    problems += [(make_prior(prior_name, 0.9, 3), np.array([[0.0, 1.0, 1.0]] * 3), np.ones(3, bool),
                  float(np.log(0.1)))]
    for prior, gains, part, L in problems:
        for exclude in (None, tuple(int(x) for x in np.argmax(gains, axis=1))):
            enumerated = best_configuration(prior, gains, part, L, exclude=exclude)
            monkeypatch.setattr(joint.configuration, "ENUMERATION_LIMIT", 0)
            oracle = best_configuration(prior, gains, part, L, exclude=exclude)
            monkeypatch.setattr(joint.configuration, "ENUMERATION_LIMIT", 4096)
            assert enumerated[0] == oracle[0]
            assert enumerated[1] == pytest.approx(oracle[1], abs=1e-9)
            if exclude is not None:
                assert enumerated[0] != exclude


# Problems (4 tasks, 5 variables, few rows) on which the former search (plain
# greedy from the single-task graphs, no restarts) stops below the optimum.
HARD = [
    (("asia", "tub", "either", "xray", "dysp"), 20, 7),
    (("asia", "tub", "either", "xray", "dysp"), 40, 0),
    (("asia", "tub", "either", "xray", "dysp"), 40, 3),
    (("asia", "tub", "either", "xray", "dysp"), 80, 0),
    (("smoke", "lung", "bronc", "either", "dysp"), 80, 2),
    (("lung", "bronc", "either", "xray", "dysp"), 80, 0),
]
FORMER = dict(start="single-task", tabu_length=0, max_tabu_iter=0, n_joint_restarts=0)


def _exhaustive_optimum(scorers, n_vars):
    return max(sum(s.score(p) for s in scorers) for p in all_dags(n_vars))


@pytest.mark.slow
@pytest.mark.parametrize("names,n,seed", HARD)
def test_penalty_one_reaches_the_exhaustive_optimum_and_tsk(names, n, seed):
    tasks = _tasks(names, k=4, n=n, seed=seed)
    scorers = [BDeuScore(d) for d in tasks.values()]
    optimum = _exhaustive_optimum(scorers, len(names))
    res = learn_structures(tasks, penalty=1.0, n_restarts=5, n_joint_restarts=5, random_state=seed)
    tsk, _ = learn_identical_structures(tasks, equivalent_sample_size=4.0, n_restarts=5, random_state=seed)
    tsk_score = sum(s.score([set(p) for p in tsk[0].parents]) for s in scorers)
    assert res.log_score == pytest.approx(optimum, abs=1e-6)
    assert res.log_score >= tsk_score - 1e-7
    assert tsk_score <= optimum + 1e-7
    assert all(g.parents == res.graphs[0].parents for g in res.graphs)


@pytest.mark.slow
def test_the_former_search_misses_the_optimum_on_these_problems():
    # The problems above have teeth: the former search fails on most of them.
    misses = 0
    for names, n, seed in HARD:
        tasks = _tasks(names, k=4, n=n, seed=seed)
        optimum = _exhaustive_optimum([BDeuScore(d) for d in tasks.values()], len(names))
        former = learn_structures(tasks, penalty=1.0, n_restarts=5, random_state=seed, **FORMER)
        assert former.log_score <= optimum + 1e-7
        misses += former.log_score < optimum - 1e-6
    assert misses >= len(HARD) // 2


@pytest.mark.parametrize("penalty", [0.5, 0.9, 0.999])
def test_tabu_phase_never_scores_below_plain_greedy(penalty):
    tasks = _tasks(("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"), k=3, n=150, seed=4)
    ts = make_taskset(tasks)
    prior = make_prior("paired", penalty, 3)
    empty = [[set() for _ in range(8)] for _ in range(3)]
    plain = multitask_hill_climb([BDeuScore(d) for d in ts.tasks], empty, prior, local_index=ts.local_index)
    tabu = multitask_hill_climb([BDeuScore(d) for d in ts.tasks], empty, prior, local_index=ts.local_index,
                                tabu_length=10, max_tabu_iter=10)
    restarted = multitask_hill_climb([BDeuScore(d) for d in ts.tasks], empty, prior, local_index=ts.local_index,
                                     tabu_length=10, max_tabu_iter=10, n_restarts=10,
                                     rng=np.random.default_rng(0))
    assert tabu.log_score >= plain.log_score - 1e-7
    assert restarted.log_score >= tabu.log_score - 1e-7
    assert restarted.trace == sorted(restarted.trace) and len(restarted.trace) == 11  # start + 10 rounds
    assert restarted.trace[-1] == pytest.approx(restarted.log_score, abs=1e-7)


def test_restarts_are_deterministic_for_a_seed():
    tasks = _tasks(("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"), k=3, n=150, seed=5)
    kw = dict(penalty=0.9, n_restarts=2, n_joint_restarts=8)
    a = learn_structures(tasks, random_state=3, **kw)
    b = learn_structures(tasks, random_state=3, **kw)
    assert [g.parents for g in a.graphs] == [g.parents for g in b.graphs]
    assert a.search.trace == b.search.trace and a.search.steps == b.search.steps


@pytest.mark.slow
def test_auto_start_is_the_best_of_its_three_start_chains():
    # Each start heads its own chain of restarts with a stream keyed by the
    # start's label, so "auto" gives exactly the best of the single starts.
    tasks = _tasks(("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"), k=4, n=120, seed=6)
    for penalty in (0.9, 0.999, 1.0):
        kw = dict(penalty=penalty, n_restarts=3, n_joint_restarts=4, random_state=1)
        auto = learn_structures(tasks, start="auto", **kw)
        assert len(auto.search.start_scores) == 3
        singles = [learn_structures(tasks, start=start, **kw).log_score
                   for start in ("single-task", "identical", "empty")]
        assert auto.log_score == pytest.approx(max(singles), abs=1e-7)


def test_grid_search_is_identical_for_any_n_jobs():
    tasks = _tasks(("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"), k=3, n=150, seed=8)
    kw = dict(penalty="auto", penalty_grid=(0.0, 0.9, 0.999, 1.0), n_restarts=2, n_joint_restarts=3,
              validation=0.2, random_state=5)
    one = learn_structures(tasks, n_jobs=1, **kw)
    two = learn_structures(tasks, n_jobs=2, **kw)
    assert one.penalty == two.penalty
    assert [g.parents for g in one.graphs] == [g.parents for g in two.graphs]
    for a, b in zip(one.penalty_path, two.penalty_path):
        assert a.log_score == b.log_score and a.validation_log_likelihood == b.validation_log_likelihood


@pytest.mark.slow
def test_warm_start_never_scores_below_the_cold_search():
    tasks = _tasks(("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"), k=3, n=200, seed=7)
    grid = (0.0, 0.5, 0.9, 0.99, 0.9999, 1.0)
    kw = dict(penalty="auto", penalty_grid=grid, n_restarts=2, n_joint_restarts=3, validation=0.1)
    cold = learn_structures(tasks, warm_start=False, **kw)
    warm = learn_structures(tasks, warm_start=True, **kw)
    for c, w in zip(cold.penalty_path, warm.penalty_path):
        assert c.penalty == w.penalty
        assert w.log_score >= c.log_score - 1e-7


def test_single_task_starts_run_in_parallel_with_identical_results():
    from mtbn.learn import learn_structures
    from mtbn.networks import load_network, sample

    net = load_network("asia")
    tasks = {f"t{i}": sample(net, 300, random_state=i).to_dataframe() for i in range(4)}
    one = learn_structures(tasks, prior="none", n_restarts=3, n_jobs=1)
    two = learn_structures(tasks, prior="none", n_restarts=3, n_jobs=2)
    assert [sorted(g.edges(names=True)) for g in one.graphs] == [sorted(g.edges(names=True)) for g in two.graphs]
    assert [r.log_score for r in one.single_task] == [r.log_score for r in two.single_task]


def _random_pair_problem(rng, k):
    gains = rng.normal(0, 3, (k, 3))
    gains[:, 0] = np.where(rng.random(k) < 0.5, 0.0, gains[:, 0])
    gains[rng.random((k, 3)) < 0.2] = -np.inf
    part = rng.random(k) < 0.85
    gains[~part] = (0.0, -np.inf, -np.inf)
    if rng.random() < 0.3:  # integer gains: many exact ties
        gains = np.where(np.isfinite(gains), np.round(gains), gains)
    return gains, part


def test_paired_best_configuration_fast_path_equals_enumeration():
    # The O(k^3) path must pick the same tie-broken configuration as brute-force enumeration,
    # with and without an excluded configuration (the tabu phase's "best move that changes something").
    from mtbn.joint import _best_by_enumeration
    from mtbn.priors import PairedPrior

    rng = np.random.default_rng(11)
    for _ in range(800):
        k = int(rng.integers(2, 8))
        prior = PairedPrior(float(rng.choice([0.0, 0.3, 0.9, 0.999, 1.0])), k,
                            reversal=str(rng.choice(["double", "single"])))
        gains, part = _random_pair_problem(rng, k)
        L = float(prior.log_factors(2)[0])
        exclude = None
        if rng.random() < 0.6:
            exclude = tuple(int(rng.choice([s for s in range(3) if np.isfinite(gains[t, s])] or [0]))
                            for t in range(k))
        fast = prior.best_configuration(gains, part, L, 1e-7, exclude)
        slow = _best_by_enumeration(prior, gains, part, L, 1e-7, exclude)
        assert fast[0] == slow[0]
        assert fast[1] == slow[1] or np.isclose(fast[1], slow[1])


def test_paired_best_configuration_fast_path_equals_the_generic_path_beyond_enumeration():
    # k = 9: too many configurations to enumerate; the generic path fixes tasks one by one with the
    # branch-and-bound value oracle, the fast path with its count tables.
    from mtbn.joint import best_configuration
    from mtbn.priors import PairedPrior

    rng = np.random.default_rng(5)
    for _ in range(40):
        k = 9
        prior = PairedPrior(float(rng.choice([0.5, 0.99, 1.0])), k)
        gains, part = _random_pair_problem(rng, k)
        gains[~np.isfinite(gains).any(axis=1), 0] = 0.0  # every task has a legal state
        L = float(prior.log_factors(2)[0])
        for exclude in (None, tuple(int(np.argmax(g)) for g in gains)):
            fast = best_configuration(prior, gains, part, L, solver="exact", exclude=exclude)
            generic = best_configuration(prior, gains, part, L, solver="bnb", exclude=exclude)
            assert fast[0] == generic[0]
            assert np.isclose(fast[1], generic[1]) or fast[1] == generic[1]


@pytest.mark.parametrize("prior_name", ["paired", "edit"])
@pytest.mark.parametrize("batch", [64, 1])
def test_incremental_resolve_makes_the_same_moves_as_resolving_every_pair(prior_name, batch, monkeypatch):
    # By the specification every pair is re-solved after each move; the
    # incremental path re-solves only pairs whose gains changed, and in the
    # tabu phase only the pairs whose bound reaches the best move (batch 1:
    # one pair solved before the bounds start to prune).
    monkeypatch.setattr(joint.state, "MOVING_BATCH", batch)
    names = ("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp")
    ts = make_taskset(_tasks(names, k=4, n=150, seed=9))
    runs = {}
    for resolve in ("changed", "all"):
        scorers = [BDeuScore(d) for d in ts.tasks]
        starts = [[set() for _ in names] for _ in ts.tasks]
        runs[resolve] = multitask_hill_climb(
            scorers, starts, make_prior(prior_name, 0.9, len(ts.tasks)), local_index=ts.local_index,
            tabu_length=5, max_tabu_iter=5, n_restarts=3, rng=np.random.default_rng(2), resolve=resolve)
    inc, full = runs["changed"], runs["all"]
    key = [(s["pair"], tuple(s["states"]), s["gain"]) for s in inc.steps]
    assert key == [(s["pair"], tuple(s["states"]), s["gain"]) for s in full.steps]
    assert [g.parents for g in inc.graphs] == [g.parents for g in full.graphs]
    assert inc.log_score == full.log_score
    n_pairs = len(names) * (len(names) - 1) // 2
    assert all(s["n_pairs_solved"] == n_pairs for s in full.steps)
    assert np.mean([s["n_pairs_solved"] for s in inc.steps]) < n_pairs / 2


# The task-by-task form of joint._pair_gains, kept here as its reference twin.
def _pair_gains_by_task(views, required, iu, ju, edge_prior, c):
    """The task-by-task form of :func:`mtbn.joint._pair_gains` (its reference twin)."""
    m = len(iu)
    k = len(views)
    gains = np.empty((m, k, 3))
    part = np.empty((m, k), dtype=bool)
    cur = np.empty((m, k), dtype=np.int64)
    neg = -np.inf
    for t, view in enumerate(views):
        T, adj, anc, rev = view.matrices()
        a_ij, a_ji = adj[iu, ju], adj[ju, iu]
        s = np.where(a_ij, 1, np.where(a_ji, 2, 0))
        t_ij, t_ji = T[iu, ju], T[ju, iu]
        r_ij, r_ji = required[iu, ju], required[ju, iu]
        g0 = np.where(s == 0, 0.0, np.where(s == 1, np.where(r_ij, neg, t_ij), np.where(r_ji, neg, t_ji)))
        g1 = np.where(
            s == 1, 0.0,
            np.where(s == 0, np.where(anc[iu, ju], neg, t_ij), np.where(rev[ju, iu] & ~r_ji, t_ji + t_ij, neg)),
        )
        g2 = np.where(
            s == 2, 0.0,
            np.where(s == 0, np.where(anc[ju, iu], neg, t_ji), np.where(rev[iu, ju] & ~r_ij, t_ij + t_ji, neg)),
        )
        pt = view.present[iu] & view.present[ju]
        g = np.stack([g0, g1, g2], axis=1)
        if edge_prior is not None:
            w = np.stack([np.zeros(m), edge_prior[t][iu, ju], edge_prior[t][ju, iu]], axis=1)
            g = g + c * (w - w[np.arange(m), s][:, None])
        g[~pt] = (0.0, neg, neg)
        gains[:, t, :] = g
        part[:, t] = pt
        cur[:, t] = np.where(pt, s, 0)
    return gains, part, cur


def test_pair_gains_equal_the_task_by_task_reference():
    from mtbn.search import DeltaTable

    names = ("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp")
    full = _tasks(names, k=3, n=120, seed=11)
    # one task lacks two variables: its pairs with them do not participate
    d = full["t2"]
    keep = [i for i, v in enumerate(names) if v not in ("tub", "xray")]
    full["t2"] = DiscreteData(d.codes[:, keep], tuple(names[i] for i in keep), tuple(d.states[i] for i in keep), "t2")
    ts = make_taskset(full)
    n = ts.n_variables
    iu, ju = np.triu_indices(n, 1)
    rng = np.random.default_rng(0)
    for trial in range(20):
        views = []
        for t, task in enumerate(ts.tasks):
            order = rng.permutation(task.n_vars)
            parents = [set() for _ in range(task.n_vars)]
            for a in range(task.n_vars):
                for b in range(a + 1, task.n_vars):
                    if rng.random() < 0.3:
                        parents[order[b]].add(int(order[a]))
            table = DeltaTable(BDeuScore(task), parents)
            views.append(joint._TaskView(table, ts.local_index[t], n))
        required = rng.random((n, n)) < 0.1
        np.fill_diagonal(required, False)
        prior = rng.normal(size=(len(views), n, n)) if trial % 2 else None
        got = joint._pair_gains(views, required, iu, ju, prior, 0.7)
        want = _pair_gains_by_task(views, required, iu, ju, prior, 0.7)
        for a, b in zip(got, want):
            assert a.shape == b.shape and a.dtype == b.dtype
            assert np.array_equal(a, b)
        # a subset of pairs (as the perturbation uses)
        sub = joint._pair_gains(views, required, iu[3:5], ju[3:5], prior, 0.7)
        for a, b in zip(sub, want):
            assert np.array_equal(a, b[3:5])


@pytest.mark.parametrize("prior_name", ["paired", "edit"])
def test_moving_bound_is_an_upper_bound_of_the_best_other_configuration(prior_name):
    # Brute force over all 3^k configurations other than the current one
    # (gains are relative to the current state: 0 there).
    rng = np.random.default_rng(5)
    tight = 0
    for trial in range(200):
        k = int(rng.integers(2, 5))
        prior, g, part, L = _random_problem(rng, k, prior_name, float(rng.choice([0.3, 0.9, 0.999])))
        cur = rng.integers(0, 3, size=k)
        g = rng.normal(-1.0, 2.0, size=(k, 3))
        if trial % 2:  # half the problems: the current configuration is each task's best
            g = -np.abs(g)
        g[np.arange(k), cur] = 0.0
        best_other = max(_objective(prior, g, part, L, c) for c in itertools.product(range(3), repeat=k)
                         if list(c) != list(cur))
        bound = joint._moving_bound(g[None], cur[None])[0]
        assert bound >= best_other - 1e-9
        tight += np.isclose(bound, best_other)
    assert tight > 0  # the bound is attained sometimes (when the prior term is 0)


def _tasks_missing_one(seed, task, drop):
    """Three ASIA-like tasks (150 rows each) where ``task`` lacks the variable ``drop``: their TaskSet."""
    names = ("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp")
    full = _tasks(names, k=3, n=150, seed=seed)
    d = full[task]
    keep = [i for i, v in enumerate(names) if v != drop]
    full[task] = DiscreteData(d.codes[:, keep], tuple(names[i] for i in keep), tuple(d.states[i] for i in keep), task)
    return make_taskset(full)


def _random_parents(n_vars, rng, p):
    """Parent sets of a random DAG: each pair of a random order joined with probability ``p``."""
    order = rng.permutation(n_vars)
    parents = [set() for _ in range(n_vars)]
    for a in range(n_vars):
        for b in range(a + 1, n_vars):
            if rng.random() < p:
                parents[order[b]].add(int(order[a]))
    return parents


def test_incremental_pair_gains_equal_the_full_computation_after_every_change():
    # The joint search recomputes only the pairs whose matrix entries changed;
    # after single-edge changes, reversals and jumps to other graphs, in one
    # task or several, the gains must equal _pair_gains of all pairs bit for
    # bit, and every pair whose gains changed must be among the recomputed.
    from mtbn.search import DeltaTable

    ts = _tasks_missing_one(4, "t1", "smoke")
    n = ts.n_variables
    iu, ju = np.triu_indices(n, 1)
    rng = np.random.default_rng(3)
    views = [joint._TaskView(DeltaTable(BDeuScore(task), [set() for _ in range(task.n_vars)]), ts.local_index[t], n)
             for t, task in enumerate(ts.tasks)]
    required = np.zeros((n, n), dtype=bool)
    required[0, 3] = True
    for prior in (None, rng.normal(size=(len(views), n, n))):
        inc = joint._IncrementalGains(views, required, iu, ju, prior, 0.5)
        last = None
        for step in range(60):
            for view in rng.choice(views, size=int(rng.integers(1, 3)), replace=False):
                table = view.table
                parents = table.parents_copy()
                if step % 15 == 14:  # a jump to a random DAG over a random order
                    parents = _random_parents(table.n, rng, 0.25)
                else:  # add, remove or reverse one edge, if the result is a DAG
                    u, v = (int(x) for x in rng.choice(table.n, size=2, replace=False))
                    if u in parents[v]:
                        parents[v].discard(u)
                        if rng.random() < 0.5:
                            parents[u].add(v)
                    elif v not in parents[u]:
                        parents[v].add(u)
                    if not nx.is_directed_acyclic_graph(nx.DiGraph([(a, b) for b in range(table.n) for a in parents[b]])):
                        continue
                table.set_parents(parents)
            got = inc()
            want = joint._pair_gains(views, required, iu, ju, prior, 0.5)
            for a, b in zip(got[:3], want):
                assert np.array_equal(a, b)
            if last is not None:
                changed = np.flatnonzero((want[0] != last[0]).reshape(len(iu), -1).any(axis=1)
                                         | (want[2] != last[2]).any(axis=1))
                assert set(changed.tolist()) <= set(got[3].tolist())
            last = want


def test_one_pair_gains_and_edged_pairs_equal_the_full_computation():
    # The joint restarts read one pair at a time (_one_pair_gains) and the
    # pairs holding an edge somewhere (_edged_pairs) without building the
    # tasks' full matrices; on random DAGs, with a task lacking a variable
    # and a required edge, both must equal what _pair_gains of all pairs
    # gives, bit for bit, for every pair.
    from mtbn.search import DeltaTable

    ts = _tasks_missing_one(8, "t2", "lung")
    n = ts.n_variables
    iu, ju = np.triu_indices(n, 1)
    rng = np.random.default_rng(9)
    required = np.zeros((n, n), dtype=bool)
    required[1, 5] = True
    for _ in range(6):
        views = []
        for t, task in enumerate(ts.tasks):
            parents = _random_parents(task.n_vars, rng, 0.3)
            views.append(joint._TaskView(DeltaTable(BDeuScore(task), parents), ts.local_index[t], n))
        present = np.stack([view.present for view in views])
        gains, part, cur = joint._pair_gains(views, required, iu, ju, None, 0.6)
        assert np.array_equal(joint._edged_pairs(views, iu, ju), np.flatnonzero(cur.any(axis=1)))
        for p in range(len(iu)):
            one = joint._one_pair_gains(views, required, present, int(iu[p]), int(ju[p]), 0.6)
            for a, b in zip(one, (gains[p:p + 1], part[p:p + 1], cur[p:p + 1])):
                assert np.array_equal(a, b)


def test_count_windows_leave_a_many_task_joint_search_unchanged(monkeypatch):
    # Ten tasks with the count windows forced on (priors.paired.WINDOW_MIN_TASKS, 24 by default): the Paired DPs
    # run on the windows and the candidates are bounded by them; with them off every step must be the same.
    import mtbn.priors as priors

    names = ("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp")
    ts = make_taskset(_tasks(names, k=10, n=120, seed=4))
    runs = {}
    for label, limit in (("windows", 2), ("full", 10**9)):
        monkeypatch.setattr(priors.paired, "WINDOW_MIN_TASKS", limit)
        scorers = [BDeuScore(d) for d in ts.tasks]
        starts = [[set() for _ in names] for _ in ts.tasks]
        runs[label] = multitask_hill_climb(
            scorers, starts, make_prior("paired", 0.9, len(ts.tasks)), local_index=ts.local_index,
            tabu_length=5, max_tabu_iter=5, n_restarts=2, rng=np.random.default_rng(1))
    fast, full = runs["windows"], runs["full"]
    assert [(s["pair"], tuple(s["states"]), s["gain"]) for s in fast.steps] == \
        [(s["pair"], tuple(s["states"]), s["gain"]) for s in full.steps]
    assert fast.log_score == full.log_score
    assert sum(s["n_pairs_solved"] for s in fast.steps) <= sum(s["n_pairs_solved"] for s in full.steps)


def test_count_windows_with_missing_variables_and_edge_penalties(monkeypatch):
    # 26 tasks (the windows' default range), five of them lacking one variable, per-pair penalties of 0, 0.3
    # and 1: the same steps and score as with the full count DPs.
    import mtbn.priors as priors

    net = load_network("asia")
    rng = np.random.default_rng(3)
    tasks = {}
    for t in range(26):
        d = sample(net, 120, random_state=100 + t)
        drop = rng.choice(list(d.names)) if t % 5 == 0 else None
        keep = [i for i, v in enumerate(d.names) if v != drop]
        tasks[f"t{t}"] = DiscreteData(d.codes[:, keep], tuple(d.names[i] for i in keep),
                                      tuple(d.states[i] for i in keep), f"t{t}")
    ts = make_taskset(tasks)
    n = ts.local_index.shape[1]
    edge = np.full((n, n), np.nan)
    for (i, j), value in {(0, 1): 0.3, (2, 3): 1.0, (4, 5): 0.0}.items():
        edge[i, j] = edge[j, i] = value
    assert len(ts.tasks) >= priors.paired.WINDOW_MIN_TASKS
    runs = {}
    for label, limit in (("windows", priors.paired.WINDOW_MIN_TASKS), ("full", 10**9)):
        monkeypatch.setattr(priors.paired, "WINDOW_MIN_TASKS", limit)
        scorers = [BDeuScore(d) for d in ts.tasks]
        starts = [[set() for _ in range(d.n_vars)] for d in ts.tasks]
        runs[label] = multitask_hill_climb(
            scorers, starts, make_prior("paired", 0.99, len(ts.tasks), edge_penalty=edge),
            local_index=ts.local_index, tabu_length=5, max_tabu_iter=5, n_restarts=2, rng=np.random.default_rng(1))
    fast, full = runs["windows"], runs["full"]
    assert [(s["pair"], tuple(s["states"]), s["gain"]) for s in fast.steps] == \
        [(s["pair"], tuple(s["states"]), s["gain"]) for s in full.steps]
    assert fast.log_score == full.log_score


@pytest.mark.parametrize("prior_name, penalty, seed", [("paired", 0.9, 1), ("edit", 0.99, 2), ("paired", 1.0, 3)])
def test_chains_run_apart_and_merged_are_the_joint_call(prior_name, penalty, seed):
    """merge_chains of one call per start (each with its own stream) equals the call with every start: the
    configuration, the scores, the trace, the start scores and every step (pair, states, gain, round)."""
    from mtbn.joint import merge_chains

    ts = make_taskset(_tasks(("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"), k=3, n=150,
                             seed=seed))
    prior = make_prior(prior_name, penalty, ts.n_tasks)
    rng = np.random.default_rng(seed)
    empty = [[set() for _ in range(d.n_vars)] for d in ts.tasks]
    chain = [[set(np.flatnonzero(rng.random(v) < 0.3).tolist()) for v in range(d.n_vars)] for d in ts.tasks]
    single = learn_structures(ts, prior="none", n_restarts=1, random_state=seed).graphs
    starts = [[set(p) for p in g.parents] for g in single], empty, chain
    kw = dict(local_index=ts.local_index, tabu_length=5, max_tabu_iter=5, n_restarts=3)

    def streams(labels):
        return [np.random.default_rng([seed, label]) for label in labels]

    whole = multitask_hill_climb([BDeuScore(d) for d in ts.tasks], starts[0], prior, extra_starts=starts[1:],
                                 rng=streams(range(3)), **kw)
    apart = [multitask_hill_climb([BDeuScore(d) for d in ts.tasks], s, prior, rng=streams([c]), **kw)
             for c, s in enumerate(starts)]
    merged = merge_chains(apart)
    assert [g.parents for g in merged.graphs] == [g.parents for g in whole.graphs]
    assert (merged.log_score, merged.log_likelihoods, merged.log_prior) == (whole.log_score, whole.log_likelihoods,
                                                                           whole.log_prior)
    assert merged.trace == whole.trace and merged.start_scores == whole.start_scores
    assert merged.n_iter == whole.n_iter and merged.converged == whole.converged
    key = ("pair", "states", "gain", "round")
    assert [tuple(np.asarray(s[k]).tolist() for k in key) for s in merged.steps] == \
        [tuple(np.asarray(s[k]).tolist() for k in key) for s in whole.steps]
    assert {s["round"] for s in whole.steps} <= set(range(4))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_start_searches_return_each_task_its_own_result_whatever_order_they_ran_in(n_jobs):
    """Tasks of unequal sizes (the jobs run longest first): every single-task result is the one its own task's
    search gives alone, and the other searches' results come back in their order."""
    from mtbn.learn.single import single_task_search, start_searches

    tasks = _tasks(("asia", "tub", "smoke", "lung", "bronc", "either"), k=3, n=200, seed=4)
    ts = make_taskset([d.take(np.arange(60 + 60 * i)) for i, d in enumerate(tasks.values())])
    n = ts.n_variables
    none = np.zeros((n, n), dtype=bool)
    seeds = [11, 12, 13]
    kw = dict(max_parents=None, required=none, forbidden=none, seeds=seeds, local_index=ts.local_index)
    parts = [([BDeuScore(d) for d in ts.tasks], 1, [functools.partial(int, "7"), functools.partial(int, "8")]),
             ([BDeuScore(d) for d in reversed(ts.tasks)], 0, [])]
    found = start_searches(parts, n_jobs=n_jobs, **kw)
    for (scorers, restarts, _), (stl, others) in zip(parts, found):
        alone = [single_task_search(BDeuScore(sc.data), ts.local_index[t], None, none, none, restarts, seeds[t])
                 for t, sc in enumerate(scorers)]
        assert [r.graph.parents for r in stl] == [r.graph.parents for r in alone]
        assert [r.log_score for r in stl] == [r.log_score for r in alone]
    assert found[0][1] == [7, 8] and found[1][1] == []


@pytest.mark.parametrize("prior_name", ["paired", "edit"])
@pytest.mark.parametrize("k", [2, 5, 30])
def test_a_pair_problem_solves_to_the_same_bits_alone_and_in_any_batch(prior_name, k):
    """What the search's memo relies on: each solver gives a pair's value (best, excluding a configuration, upper
    bound) bit for bit whatever the other pairs of its batch (random problems, absent tasks and illegal
    states; 30 tasks take the Paired prior's count windows)."""
    from mtbn.joint.solvers import best_values

    rng = np.random.default_rng(k)
    m = 40
    prior = make_prior(prior_name, 0.9, k)
    gains = rng.normal(0.0, 3.0, size=(m, k, 3)) * rng.random((m, 1, 1))
    gains[rng.random((m, k, 3)) < 0.1] = -np.inf
    gains[:, :, 0] = 0.0
    part = rng.random((m, k)) < 0.9
    gains[~part] = [0.0, -np.inf, -np.inf]
    L = np.log1p(-rng.choice([0.5, 0.9, 0.99], m))
    cur = np.where(part, rng.integers(0, 3, (m, k)), 0)
    cur = np.where(np.isfinite(np.take_along_axis(gains, cur[:, :, None], 2)[:, :, 0]), cur, 0)
    solves = {
        "values": lambda r: best_values(prior, gains[r], part[r], L[r], "auto"),
        "excluding": lambda r: solve_excluding(prior, gains[r], part[r], L[r], cur[r], "auto"),
        "bound": lambda r: prior.upper_bound(gains[r], part[r], L[r]),
    }
    for name, solve in solves.items():
        batch = solve(np.arange(m))
        alone = np.concatenate([solve(np.array([p])) for p in range(m)])
        shuffled = rng.permutation(m)
        assert np.array_equal(batch.view(np.int64), alone.view(np.int64)), name
        assert np.array_equal(batch[shuffled].view(np.int64), solve(shuffled).view(np.int64)), name


@pytest.mark.parametrize("prior_name", ["paired", "edit"])
@pytest.mark.parametrize("k", [3, 26])
def test_the_memo_of_solved_pairs_changes_no_move(prior_name, k, monkeypatch):
    """A search with restarts meets the same pair problems again; the memo answers them (fewer configurations
    visited) and every step, graph and score is the one of the search that solves each again (the memo emptied
    at every use). Three tasks: the memo kept below the number of tasks where it pays, to test it there too."""
    monkeypatch.setattr(joint.state, "MEMO_MIN_TASKS", 1)
    names = ("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp")
    ts = make_taskset(_tasks(names, k=k, n=120, seed=5))
    runs = {}
    for label, entries in (("memo", joint.state.MEMO_ENTRIES), ("none", 0)):
        monkeypatch.setattr(joint.state, "MEMO_ENTRIES", entries)
        scorers = [BDeuScore(d) for d in ts.tasks]
        starts = [[set() for _ in names] for _ in ts.tasks]
        runs[label] = multitask_hill_climb(
            scorers, starts, make_prior(prior_name, 0.9, len(ts.tasks)), local_index=ts.local_index,
            tabu_length=5, max_tabu_iter=5, n_restarts=4, rng=np.random.default_rng(3))
    memo, none = runs["memo"], runs["none"]
    assert [(s["pair"], tuple(s["states"]), s["gain"]) for s in memo.steps] == \
        [(s["pair"], tuple(s["states"]), s["gain"]) for s in none.steps]
    assert [g.parents for g in memo.graphs] == [g.parents for g in none.graphs]
    assert memo.log_score == none.log_score
    assert [s["n_pairs_solved"] for s in memo.steps] == [s["n_pairs_solved"] for s in none.steps]
    assert sum(s["n_configurations"] for s in memo.steps) < sum(s["n_configurations"] for s in none.steps)


def test_the_memo_keys_a_pair_problem_by_every_input():
    """Two problems share a key only if their gains, participation, log factor and excluded configuration are the
    same (equal copies share one)."""
    from mtbn.joint.state import _Memo

    rng = np.random.default_rng(0)
    gains = rng.normal(size=(2, 4, 3))
    part = np.ones((2, 4), dtype=bool)
    L = np.log([0.1, 0.1])
    cur = np.zeros((2, 4), dtype=np.int64)
    memo = _Memo(L)
    first = memo.keys(np.array([0]), gains, part, cur[[0]])[0]
    assert memo.keys(np.array([0]), gains.copy(), part.copy(), cur[[0]].copy())[0] == first
    changed_gains = gains.copy()
    changed_gains[0, 2, 1] += 1e-12
    changed_part = part.copy()
    changed_part[0, 3] = False
    other_cur = cur.copy()
    other_cur[0, 1] = 2
    assert memo.keys(np.array([0]), changed_gains, part, cur[[0]])[0] != first
    assert memo.keys(np.array([0]), gains, changed_part, cur[[0]])[0] != first
    assert memo.keys(np.array([0]), gains, part, other_cur[[0]])[0] != first
    assert memo.keys(np.array([0]), gains, part, None)[0] != first
    assert _Memo(np.log([0.5, 0.1])).keys(np.array([0]), gains, part, cur[[0]])[0] != first
