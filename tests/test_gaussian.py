"""Continuous tasks: the Gaussian scores against independent computations, the data kind's checks, joint learning."""

import itertools
import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy.special import multigammaln

from mtbn.data import ContinuousData, continuous_from_dataframe
from mtbn.exceptions import InvalidDataError
from mtbn.learn.gaussian import learn_gaussian_structures
from mtbn.score import BDeuScore, BGeScore, GaussianBICScore, make_scorer

from helpers import all_dags


def _data(seed=3, n_rows=40, n_vars=4):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_rows, n_vars)) @ rng.normal(size=(n_vars, n_vars)) + 3 * rng.normal(size=n_vars)
    return ContinuousData(values, [f"v{i}" for i in range(n_vars)], "t")


def test_gaussian_bic_is_the_least_squares_regressions_likelihood_minus_its_parameters():
    # An independent computation: each family's regression fitted on the rows by least squares (with an
    # intercept), its maximum log-likelihood at the residual variance RSS/N, minus (l + 2)/2 log N.
    d = _data()
    s = GaussianBICScore(d)
    x, n = d.values, d.n_samples
    for child, parents in [(0, ()), (1, (0,)), (1, (0, 2)), (3, (0, 1, 2)), (2, (3,))]:
        design = np.column_stack([np.ones(n)] + [x[:, p] for p in parents])
        beta = np.linalg.lstsq(design, x[:, child], rcond=None)[0]
        rss = float(np.sum((x[:, child] - design @ beta) ** 2))
        expected = -n / 2 * (np.log(2 * np.pi * rss / n) + 1) - (len(parents) + 2) / 2 * np.log(n)
        assert s.local_score(child, parents) == pytest.approx(expected, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("alpha_mu, alpha_w", [(1.0, None), (3.0, 9.5)])
def test_bge_of_a_complete_dag_is_the_normal_wishart_marginal_likelihood(alpha_mu, alpha_w):
    # The complete DAG imposes no independence, so its BGe is the marginal likelihood of the unrestricted
    # normal-Wishart model (Geiger and Heckerman 1994; Kuipers et al. 2014, eq. 2), written here in closed form:
    # -Nn/2 log pi + n/2 log(am/(am+N)) + log G_n((aw+N)/2) - log G_n(aw/2) + aw/2 log|T0| - (aw+N)/2 log|T_N|.
    d = _data()
    s = BGeScore(d, alpha_mu=alpha_mu, alpha_w=alpha_w)
    n_rows, n = d.n_samples, d.n_vars
    # The prior's constants as Kuipers et al. define them, computed here, not read from the scorer.
    am = alpha_mu
    aw = n + am + 1 if alpha_w is None else alpha_w
    t0 = am * (aw - n - 1) / (am + 1) * np.eye(n)
    centred = d.values - d.values.mean(axis=0)
    tn = t0 + centred.T @ centred
    closed = (-n_rows * n / 2 * np.log(np.pi) + n / 2 * np.log(am / (am + n_rows))
              + multigammaln((aw + n_rows) / 2, n) - multigammaln(aw / 2, n)
              + aw / 2 * np.linalg.slogdet(t0)[1] - (aw + n_rows) / 2 * np.linalg.slogdet(tn)[1])
    for order in itertools.permutations(range(n)):
        total = sum(s.local_score(order[i], tuple(sorted(order[:i]))) for i in range(n))
        assert total == pytest.approx(closed, rel=1e-12)


@pytest.mark.parametrize("cls", [BGeScore, GaussianBICScore])
def test_extension_scores_are_each_familys_score_bit_for_bit_and_cached_alike(cls):
    # The Gaussian scores' extension_scores read a row per (child, parents) and score the missing families
    # together (stacked slogdet, stacked solve). Truth: each family scored alone by compute, on random families of
    # random sizes, some of them cached beforehand; the cache then holds what local_score would have put there,
    # with the same counts.
    rng = np.random.default_rng(11)
    for trial in range(40):
        n = int(rng.integers(3, 14))
        d = _data(seed=trial, n_rows=int(rng.integers(n + 3, 120)), n_vars=n)
        batched, alone = cls(d), cls(d)
        for _ in range(4):
            child = int(rng.integers(n))
            others = [u for u in range(n) if u != child]
            parents = set(rng.choice(others, int(rng.integers(0, min(5, len(others)))), replace=False).tolist())
            candidates = [u for u in others if u not in parents]
            for u in candidates[::3]:  # some families cached already
                batched.local_score(child, parents | {u})
                alone.local_score(child, parents | {u})
            for _ in range(2):  # the second time from the row kept for (child, parents)
                got = batched.extension_scores(child, parents, candidates)
                expected = [alone.local_score(child, parents | {u}) for u in candidates]
                assert got.tolist() == expected
            assert expected == [cls(d).compute(child, tuple(sorted(parents | {u}))) for u in candidates]
        assert batched._cache == alone._cache and (batched.hits, batched.misses) == (alone.hits, alone.misses)


def test_bic_extension_scores_of_a_singular_parents_block_are_the_least_squares_ones():
    # A fold whose column 1 repeats column 0 (made here in the scatter matrix): every family with both as parents
    # has an exactly singular block, and the stacked solve hands the batch to the per-family least-squares path.
    s = GaussianBICScore(_data(seed=2, n_rows=50, n_vars=5))
    s.scatter[1, :] = s.scatter[0, :]
    s.scatter[:, 1] = s.scatter[:, 0]
    got = s.extension_scores(4, {0}, [1, 2, 3])
    assert got.tolist() == [GaussianBICScore.compute(s, 4, (0, u)) for u in (1, 2, 3)]
    beta = np.linalg.lstsq(s.scatter[np.ix_([0, 1], [0, 1])], s.scatter[[0, 1], 4], rcond=None)[0]
    residual = s.scatter[4, 4] - s.scatter[[0, 1], 4] @ beta
    assert got[0] == pytest.approx(s._bic(2, max(residual, 1e-12 * s.scatter[4, 4])), rel=1e-9)


@pytest.mark.parametrize("cls", [BGeScore, GaussianBICScore])
def test_markov_equivalent_dags_score_the_same_and_a_v_structure_does_not(cls):
    s = cls(_data(seed=5, n_rows=60, n_vars=3))

    def total(parents):
        return sum(s.local_score(v, tuple(sorted(p))) for v, p in enumerate(parents))

    chain = total([(), (0,), (1,)])          # v0 -> v1 -> v2
    reverse = total([(1,), (2,), ()])        # v0 <- v1 <- v2
    fork = total([(1,), (), (1,)])           # v0 <- v1 -> v2
    collider = total([(), (0, 2), ()])       # v0 -> v1 <- v2
    assert chain == pytest.approx(reverse, abs=1e-9) and chain == pytest.approx(fork, abs=1e-9)
    assert abs(collider - chain) > 1e-6


def test_a_discrete_score_refuses_continuous_data_by_name():
    with pytest.raises(TypeError, match="score 'bdeu' takes DiscreteData data; got ContinuousData"):
        BDeuScore(_data())
    with pytest.raises(TypeError, match="score 'bge' takes ContinuousData data; got DiscreteData"):
        from mtbn.networks import load_network, sample

        make_scorer(sample(load_network("asia"), 50, random_state=0), "bge")


@pytest.mark.parametrize("column, values, message", [
    ("name", ["a", "b", "c", "d", "e"], "column 'name' is not numeric"),
    ("hole", [1.0, np.nan, 2.0, 3.0, 4.0], "column 'hole' has a missing or infinite value (nan) in the row with index 1"),
    ("flat", [2.0] * 5, "column 'flat' has one value (2.0) in every row"),
    ("twin", None, "columns 'x' and 'twin' are exact linear copies of each other"),
])
def test_what_a_gaussian_network_cannot_use_is_refused_with_the_column_named(column, values, message):
    x = np.array([0.3, -1.2, 2.5, 0.7, 1.9])
    frame = pd.DataFrame({"x": x, column: 2 * x + 1 if values is None else values})
    with pytest.raises(InvalidDataError, match=r"^task 'site': " + re.escape(message)):
        continuous_from_dataframe(frame, name="site")


def test_a_row_number_column_and_too_few_rows_are_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidDataError, match="column 'id' looks like a row identifier"):
        continuous_from_dataframe(pd.DataFrame({"id": np.arange(1, 31), "x": rng.normal(size=30)}), name="s")
    with pytest.raises(InvalidDataError, match="has 2 row"):
        continuous_from_dataframe(pd.DataFrame({"x": [0.1, 0.2], "y": [1.0, 3.0]}), name="s")


def _linear_tasks(k=3, n_rows=100, seed=0):
    """k tasks of one linear Gaussian DAG over 6 variables, each with its own coefficients."""
    rng = np.random.default_rng(seed)
    edges = [(0, 1), (1, 2), (0, 3), (3, 4), (2, 5), (4, 5)]
    tasks = {}
    for t in range(k):
        x = np.zeros((n_rows, 6))
        for v in range(6):
            x[:, v] = rng.normal(size=n_rows)
            for u, w in edges:
                if w == v:
                    x[:, v] += rng.uniform(0.6, 1.2) * rng.choice([-1, 1]) * x[:, u]
        tasks[f"t{t}"] = pd.DataFrame(x, columns=[f"v{i}" for i in range(6)])
    return tasks, edges


def test_the_joint_search_couples_continuous_tasks_as_it_couples_discrete_ones():
    tasks, edges = _linear_tasks(k=4, n_rows=25)
    alone = learn_gaussian_structures(tasks, penalty=0.0, random_state=0)
    shared = learn_gaussian_structures(tasks, penalty=1.0, random_state=0)
    mild = learn_gaussian_structures(tasks, penalty=0.99, random_state=0)
    # penalty 1 forces one structure on every task; a penalty in between leaves fewer differing edges than none
    assert len({tuple(map(frozenset, g.parents)) for g in shared.graphs}) == 1

    def differing(res):
        edges = [set(g.edges(names=True)) for g in res.graphs]
        return len(set.union(*edges) - set.intersection(*edges))

    assert differing(mild) <= differing(alone) and differing(alone) > 0
    skeleton = {frozenset((f"v{u}", f"v{w}")) for u, w in edges}
    found = {frozenset(e) for e in shared.graphs[0].edges(names=True)}
    assert len(found & skeleton) >= 4
    assert alone.transfer is None and alone.penalty_path == []


def test_a_list_of_tasks_is_learned_as_the_dict_of_the_same_tasks():
    # A list of ContinuousData (named by their names), of DataFrames (task0, task1, ...) or of (name, task)
    # pairs: the same structures as the dict; anything else, or two tasks with one name, one line.
    from mtbn.data import continuous_from_dataframe
    from mtbn.exceptions import InvalidDataError, InvalidParameterError

    tasks, _ = _linear_tasks(k=3, n_rows=40)
    kw = dict(penalty=0.9, n_restarts=1, n_joint_restarts=1, random_state=0)
    ref = learn_gaussian_structures(tasks, **kw)
    datas = [continuous_from_dataframe(f, name=n) for n, f in tasks.items()]
    for given, names in ((datas, list(tasks)), (list(tasks.values()), ["task0", "task1", "task2"]),
                         (list(tasks.items()), list(tasks))):
        res = learn_gaussian_structures(given, **kw)
        assert list(res.task_names) == names and [g.parents for g in res.graphs] == [g.parents for g in ref.graphs]
    with pytest.raises(InvalidParameterError, match="tasks must be a dict"):
        learn_gaussian_structures(datas[0], **kw)
    with pytest.raises(InvalidDataError):
        learn_gaussian_structures([("a", datas[0]), ("a", datas[1])], **kw)


GRID = [0.0, 0.9, 0.999, 1.0]


@pytest.mark.slow
def test_the_default_transfers_between_related_tasks_and_refuses_relabelled_ones():
    # Related: ECOLI70 samples (the same network). Unrelated: every task but the first with its columns
    # relabelled (same names, independent structures). Cross-validation prefers a penalty on both (on the
    # unrelated tasks as mere regularisation); the guard's relatedness test tells them apart.
    from mtbn.networks.gaussian import load_gaussian_network

    net = load_gaussian_network("ecoli70")
    related = {f"t{i}": net.sample(60, random_state=i, name=f"t{i}") for i in range(3)}
    res = learn_gaussian_structures(related, penalty_grid=GRID, cv=3, n_restarts=1, n_joint_restarts=1)
    assert res.transfer["status"] == "accepted" and res.penalty > 0
    assert [p for p, _, _ in res.penalty_path] == GRID
    # Samples of one network: sharing their parameters helps on held-out rows, and the networks returned are
    # the fit at the chosen strength towards the tasks' pooled within-task regression.
    from mtbn.learn.gaussian import SHARING_STRENGTHS
    from mtbn.networks.gaussian import fit_linear_gaussian

    assert res.sharing_strength in SHARING_STRENGTHS and res.sharing_strength > 0
    assert res.transfer["sharing"]["strength"] == res.sharing_strength
    again = fit_linear_gaussian([sorted(p) for p in res.graphs[1].parents], related["t1"],
                                pooled=list(related.values()), strength=res.sharing_strength)
    assert all(np.array_equal(a, b) for a, b in zip(again.coefficients, res.networks[1].coefficients))
    rng = np.random.default_rng(1)
    unrelated = {}
    for i, (name, d) in enumerate(related.items()):
        perm = np.arange(d.n_vars) if i == 0 else rng.permutation(d.n_vars)
        unrelated[name] = ContinuousData(d.values[:, perm], d.names, name)
    res = learn_gaussian_structures(unrelated, penalty_grid=GRID, cv=3, n_restarts=1, n_joint_restarts=1)
    assert res.transfer["status"] in ("rejected", "none") and res.penalty == 0.0
    alone = learn_gaussian_structures(unrelated, penalty=0.0, n_restarts=1, n_joint_restarts=1)
    assert [g.parents for g in res.graphs] == [g.parents for g in alone.graphs]


def test_linear_gaussian_parameters_are_least_squares_and_score_rows_as_normal_densities():
    from scipy.stats import norm

    from mtbn.networks.gaussian import fit_linear_gaussian, to_pgmpy_gaussian

    d = _data(seed=7, n_rows=80, n_vars=3)
    parents = [(), (0,), (0, 1)]
    net = fit_linear_gaussian(parents, d)
    x = d.values
    for v, ps in enumerate(parents):
        design = np.column_stack([np.ones(len(x))] + [x[:, p] for p in ps])
        beta, *_ = np.linalg.lstsq(design, x[:, v], rcond=None)
        rss = float(np.sum((x[:, v] - design @ beta) ** 2))
        assert net.intercepts[v] == pytest.approx(beta[0]) and np.allclose(net.coefficients[v], beta[1:])
        assert net.variances[v] == pytest.approx(rss / len(x))
    by_hand = sum(norm.logpdf(x[:, v], net.intercepts[v] + x[:, list(ps)] @ net.coefficients[v],
                              np.sqrt(net.variances[v])).sum() for v, ps in enumerate(parents))
    assert net.log_likelihood(d) == pytest.approx(by_hand, rel=1e-12)
    model = to_pgmpy_gaussian(net)
    cpd = model.get_cpds("v2")
    assert list(cpd.evidence) == ["v0", "v1"] and np.allclose(cpd.beta, [net.intercepts[2], *net.coefficients[2]])
    assert np.allclose(model.get_cpds("v2").std, np.sqrt(net.variances[2]))


def test_sharing_shrinks_slopes_towards_the_within_task_regression_whatever_the_tasks_means():
    # Two tasks with the same slope 1 but far apart means (x around 0 and 5, intercepts 0 and 10): stacking their
    # rows would give a slope near 2 (the means' own line). Shared as within-task moments, the pooled regression
    # is the slope of both tasks' centred rows, computed here by least squares on those rows.
    from mtbn.networks.gaussian import fit_linear_gaussian

    rng = np.random.default_rng(4)
    xa, xb = rng.normal(size=200), 5 + rng.normal(size=200)
    a = ContinuousData(np.column_stack([xa, xa + 0.3 * rng.normal(size=200)]), ["x", "y"], "a")
    b = ContinuousData(np.column_stack([xb, 10 + xb + 0.3 * rng.normal(size=200)]), ["x", "y"], "b")
    centred = np.vstack([a.values - a.values.mean(axis=0), b.values - b.values.mean(axis=0)])
    slope = np.linalg.lstsq(centred[:, :1], centred[:, 1], rcond=None)[0][0]
    parents = [(), (0,)]
    own = fit_linear_gaussian(parents, a)
    inf = fit_linear_gaussian(parents, a, pooled=[a, b], strength=np.inf)
    assert inf.coefficients[1][0] == pytest.approx(slope, rel=1e-12) and abs(slope - 1) < 0.05
    assert inf.intercepts[1] == pytest.approx(a.values[:, 1].mean() - slope * a.values[:, 0].mean(), rel=1e-9)
    path = [fit_linear_gaussian(parents, a, pooled=[a, b], strength=w).coefficients[1][0]
            for w in (0.0, 1.0, 10.0, 100.0, 1e9)]
    assert path[0] == pytest.approx(own.coefficients[1][0]) and path[-1] == pytest.approx(slope, abs=1e-6)
    low, high = sorted((own.coefficients[1][0], slope))
    assert all(low - 1e-12 <= p <= high + 1e-12 for p in path)  # in between: towards the pooled slope


def _implied_moments(net):
    """The mean and covariance a linear Gaussian network implies: x = a + B x + e, so x = (I - B)^-1 (a + e)."""
    n = net.n_vars
    b = np.zeros((n, n))
    for v, ps in enumerate(net.parents):
        b[v, list(ps)] = net.coefficients[v]
    inv = np.linalg.inv(np.eye(n) - b)
    return inv @ net.intercepts, inv @ np.diag(net.variances) @ inv.T


@pytest.mark.parametrize("name", ["ecoli70", "magic-niab"])
def test_a_shipped_gaussian_network_is_pgmpys_and_samples_what_it_implies(name):
    # pgmpy reads the same file on its own and gives the joint Gaussian it implies: ours must be that one.
    import warnings

    from mtbn.networks.gaussian import load_gaussian_network

    net = load_gaussian_network(name)
    mean, cov = _implied_moments(net)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.utils import get_example_model

        model = get_example_model(name)
    theirs_mean, theirs_cov = model.to_joint_gaussian()  # in pgmpy's topological order of the nodes
    import networkx as nx

    order = [list(nx.topological_sort(model)).index(v) for v in net.names]
    assert np.allclose(mean, np.asarray(theirs_mean)[order], atol=1e-6)
    assert np.allclose(cov, np.asarray(theirs_cov)[np.ix_(order, order)], atol=1e-6, rtol=1e-6)
    rows = net.sample(50000, random_state=0).values
    assert np.allclose(rows.mean(axis=0), mean, atol=0.05 * np.sqrt(np.diag(cov)).max())
    assert np.allclose(np.cov(rows, rowvar=False), cov, atol=0.05 * np.abs(cov).max())


def test_a_written_network_is_pgmpys_json_both_ways(tmp_path):
    # The file mtbn writes is read by pgmpy's own LinearGaussianBayesianNetwork.load into the same joint Gaussian;
    # a file pgmpy saves is read by mtbn into the same network (a learned network with parents in every order).
    import networkx as nx
    from pgmpy.models import LinearGaussianBayesianNetwork

    from mtbn.networks.gaussian import (fit_linear_gaussian, load_gaussian_network, read_gaussian_network,
                                        to_pgmpy_gaussian, write_gaussian_network)

    learned = fit_linear_gaussian([(2,), (0, 2), ()], _data(seed=3, n_rows=60, n_vars=3), name="t0")
    for net in (learned, load_gaussian_network("ecoli70")):
        path = tmp_path / f"{net.name}.json"
        write_gaussian_network(net, path)
        theirs = LinearGaussianBayesianNetwork.load(str(path))
        order = [list(nx.topological_sort(theirs)).index(v) for v in net.names]
        mean, cov = _implied_moments(net)
        theirs_mean, theirs_cov = theirs.to_joint_gaussian()
        assert np.allclose(mean, np.asarray(theirs_mean)[order], atol=1e-9)
        assert np.allclose(cov, np.asarray(theirs_cov)[np.ix_(order, order)], atol=1e-9)
        back = read_gaussian_network(path)
        assert back.name == net.name and back.names == net.names and back.parents == net.parents
        assert np.array_equal(back.intercepts, net.intercepts) and np.array_equal(back.variances, net.variances)
        assert all(np.array_equal(a, b) for a, b in zip(back.coefficients, net.coefficients))
    saved = tmp_path / "saved.json"
    to_pgmpy_gaussian(learned).save(str(saved))
    again = read_gaussian_network(saved)
    index = [again.names.index(v) for v in learned.names]
    for v, ps in enumerate(learned.parents):
        w = index[v]
        assert [again.names[p] for p in again.parents[w]] == [learned.names[p] for p in ps]
        assert np.allclose(again.coefficients[w], learned.coefficients[v], rtol=0, atol=1e-12)
        assert again.intercepts[w] == pytest.approx(learned.intercepts[v], abs=1e-12)
        assert again.variances[w] == pytest.approx(learned.variances[v], rel=1e-12)


def test_the_gaussian_learner_refuses_discrete_scores_and_differing_columns():
    tasks, _ = _linear_tasks(k=2)
    with pytest.raises(ValueError, match="score 'bdeu' is not a score of continuous data"):
        learn_gaussian_structures(tasks, penalty=0.5, score="bdeu")
    tasks["t1"] = tasks["t1"].rename(columns={"v5": "w5"})
    with pytest.raises(InvalidDataError, match="task 't1' has the columns"):
        learn_gaussian_structures(tasks, penalty=0.5)


def test_gaussian_problems_delete_edges_spread_weights_and_relabel_unrelated_tasks():
    from mtbn.benchmarks import make_gaussian_problem
    from mtbn.networks.gaussian import load_gaussian_network

    base = load_gaussian_network("ecoli70")
    nets = make_gaussian_problem("ecoli70", n_tasks=4, p_del=0.2, weight_sd=0.2, random_state=0)
    base_edges = set(base.edges)
    for net in nets:
        assert set(net.edges) <= base_edges and len(net.edges) < len(base_edges)  # deletions only
        assert np.allclose(net.variances, base.variances)
    assert len({frozenset(n.edges) for n in nets}) == 4  # each task its own deletions
    # Unrelated: tasks 1.. are the base network with its variables relabelled. Each relabelled variable is
    # matched to its base variable by its (intercept, variance) pair; then its parents must be the base
    # parents, relabelled the same way, each with its own coefficient.
    unrelated = make_gaussian_problem("ecoli70-unrelated", n_tasks=3, p_del=0.0, weight_sd=0.0, random_state=1)
    assert set(unrelated[0].edges) == base_edges
    moved = unrelated[1]
    key = {(round(float(a), 9), round(float(v), 9)): i for i, (a, v) in enumerate(zip(base.intercepts,
                                                                                       base.variances))}
    assert len(key) == base.n_vars  # the pairs identify the variables
    perm = [key[(round(float(a), 9), round(float(v), 9))] for a, v in zip(moved.intercepts, moved.variances)]
    assert sorted(perm) == list(range(base.n_vars)) and perm != list(range(base.n_vars))
    for v in range(base.n_vars):
        mine = {perm[p]: c for p, c in zip(moved.parents[v], moved.coefficients[v])}
        theirs = dict(zip(base.parents[perm[v]], base.coefficients[perm[v]]))
        assert mine.keys() == theirs.keys() and all(mine[p] == pytest.approx(theirs[p]) for p in mine)


def test_one_task_a_small_task_and_a_dependent_set_of_columns():
    rng = np.random.default_rng(2)

    def frame(n):
        x = rng.normal(size=n)
        return pd.DataFrame({"x": x, "y": x + rng.normal(size=n), "z": rng.normal(size=n)})

    one = learn_gaussian_structures({"a": frame(60)}, penalty_grid=GRID, cv=3, n_restarts=0, n_joint_restarts=0)
    assert one.penalty == 0.0 and one.sharing_strength is None  # nothing to couple
    # A 12-row task beside a 100-row one: its 5-fold folds hold 2 or 3 rows, which need no variance of their own.
    res = learn_gaussian_structures({"big": frame(100), "small": frame(12)}, penalty_grid=GRID, cv=5,
                                    n_restarts=0, n_joint_restarts=0)
    assert len(res.graphs) == 2
    x = frame(40)
    x["total"] = x["x"] + x["y"]  # an exact linear combination of two others
    with pytest.raises(InvalidDataError, match=r"columns 'x', 'y', 'total' are linearly dependent"):
        continuous_from_dataframe(x, name="s")
    with pytest.raises(InvalidDataError, match="task 's' has no columns"):
        ContinuousData(np.empty((5, 0)), [], "s")
    single = ContinuousData(rng.normal(size=(10, 1)), ["x"], "s")  # one column is a task too
    assert single.n_vars == 1


def test_gaussian_bic_equals_pgmpys_bicgauss():
    # Another implementation on the same data and families: pgmpy's BICGauss (statsmodels' GLM fit).
    pytest.importorskip("statsmodels")
    from pgmpy.estimators import BICGauss

    d = _data(seed=11, n_rows=60, n_vars=4)
    theirs = BICGauss(d.to_dataframe())
    ours = GaussianBICScore(d)
    for child, parents in [(0, ()), (1, (0,)), (2, (0, 1)), (3, (0, 1, 2))]:
        expected = theirs.local_score(d.names[child], [d.names[p] for p in parents])
        assert ours.local_score(child, parents) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_a_task_wider_than_the_bound_is_refused_before_any_matrix_is_built():
    from mtbn.data.continuous import MAX_CONTINUOUS_VARIABLES

    wide = np.zeros((3, MAX_CONTINUOUS_VARIABLES + 1))
    with pytest.raises(InvalidDataError, match=f"has {MAX_CONTINUOUS_VARIABLES + 1} columns; a Gaussian network "
                                               f"takes at most {MAX_CONTINUOUS_VARIABLES}"):
        ContinuousData(wide, [f"v{i}" for i in range(wide.shape[1])], "wide")


def test_the_front_ends_learn_continuous_tasks_as_the_gaussian_learner_does():
    # learn_structures and the estimator hand continuous tasks to the Gaussian learner with the table's
    # settings; labels, missing cells or whole numbers stay with the discrete learner.
    from mtbn.estimators import MultitaskStructureLearner
    from mtbn.learn import learn_structures
    from mtbn.learn.kinds import kind_of

    rng = np.random.default_rng(11)
    frames = {}
    for t in ("a", "b", "c"):
        x = rng.normal(size=120)
        frames[t] = pd.DataFrame({"x": x, "y": (0.8 + 0.1 * len(frames)) * x + rng.normal(size=120),
                                  "z": rng.normal(size=120)})
    settings = dict(penalty=0.9, n_restarts=2, n_joint_restarts=1, random_state=3)
    api = learn_structures(frames, **settings)
    direct = learn_gaussian_structures(frames, **settings)
    assert [g.parents for g in api.graphs] == [g.parents for g in direct.graphs]
    assert all(np.allclose(a.coefficients[1], b.coefficients[1]) for a, b in zip(api.networks, direct.networks))
    assert [{frozenset(e) for e in g.edges(names=True)} for g in api.graphs] == [{frozenset("xy")}] * 3
    est = MultitaskStructureLearner(**settings).fit(frames)
    assert est.data_kind_ == "gaussian" and type(est.networks_["b"]).__name__ == "LinearGaussianBayesianNetwork"
    per_row = [np.mean(n.log_likelihood(continuous_from_dataframe(frames[t], name=t), per_row=True))
               for t, n in zip("abc", direct.networks)]
    assert est.score(frames) == pytest.approx(np.mean(per_row), abs=1e-12)
    labelled = {t: f.assign(g=["u", "v"] * 60) for t, f in frames.items()}
    missing = {t: f.assign(z=np.where(f.index > 0, f["z"], np.nan)) for t, f in frames.items()}
    whole = {t: f.round() for t, f in frames.items()}
    assert kind_of(frames).name == "gaussian"
    assert kind_of(labelled) is None and kind_of(whole) is None
    # A missing value leaves continuous tasks continuous: the Gaussian learner names it (the discrete learner
    # named a continuous column of another task instead).
    assert kind_of(missing).name == "gaussian"
    with pytest.raises(InvalidDataError, match=r"^task 'a': column 'z' has a missing or infinite value \(nan\) in the row with index 0"):
        learn_structures(missing, **settings)
    assert kind_of([continuous_from_dataframe(f, name=t) for t, f in frames.items()]).name == "gaussian"


@pytest.mark.parametrize("cells", [1, 7, 2**18])
def test_the_scatter_summed_over_blocks_of_rows_is_the_centred_formula(monkeypatch, cells):
    """centred_scatter in blocks of one row, of a few and in one block: the means and scatter of numpy's own
    formula (np.cov times n - 1), on rows far from zero (where centring each block at the whole mean matters)."""
    import mtbn.data.continuous as continuous

    monkeypatch.setattr(continuous, "SCATTER_CELLS", cells)
    x = 1e4 + np.random.default_rng(0).normal(size=(503, 4)) @ np.array([[1, 0.5, 0, 0], [0, 1, 0.3, 0],
                                                                          [0, 0, 1, 0.2], [0, 0, 0, 1.0]])
    mean, scatter = continuous.centred_scatter(x)
    np.testing.assert_allclose(mean, x.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(scatter, np.cov(x, rowvar=False) * (len(x) - 1), rtol=1e-10)


@pytest.mark.slow
def test_learning_a_large_continuous_task_holds_its_rows_once():
    """Building the task from a frame of floats (read_csv_numbers's), checking it, scoring, fitting and scoring its
    rows (what mtbn learn does after reading) allocate under a quarter of the rows' bytes: the task views the
    frame's array and nothing centres a copy of it. The former code made about three copies (measured)."""
    import tracemalloc

    from mtbn.networks.gaussian import fit_linear_gaussian

    rng = np.random.default_rng(0)
    rows = rng.normal(size=(100_000, 40))
    rows[:, 1] += rows[:, 0]
    frame = pd.DataFrame(rows, columns=[f"v{i}" for i in range(40)], copy=False)
    tracemalloc.start()
    try:
        data = continuous_from_dataframe(frame, name="big")
        scorer = make_scorer(data, "bge")
        scorer.local_score(1, (0,))
        net = fit_linear_gaussian([(), (0,)] + [()] * 38, data)
        net.log_likelihood(data)
        grown = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert grown < 0.25 * rows.nbytes, (grown, rows.nbytes)


@pytest.mark.parametrize("cells", [1, 7, 2**18])
def test_the_first_value_that_is_not_finite_is_named_whatever_the_blocks(monkeypatch, cells):
    """The check reads the rows a block at a time and names the first bad cell in row order (its row counted from
    0, and its value), as np.nonzero on the whole array would."""
    import mtbn.data.continuous as continuous

    monkeypatch.setattr(continuous, "SCATTER_CELLS", cells)
    values = _data(n_rows=60).values
    values[50, 0], values[37, 3], values[37, 2] = np.inf, np.nan, -np.inf
    with pytest.raises(InvalidDataError, match=r"column 'v2' .*\(-inf\) in row 37 \(counted from 0\)"):
        ContinuousData(values, [f"v{i}" for i in range(4)], "t")


@pytest.mark.parametrize("cells", [7, 64, 2**18])
def test_a_fold_read_in_place_gives_what_its_copy_gives_to_the_bit(monkeypatch, cells):
    """ContinuousData.subset (a cross-validation fold's training rows, read a block of rows at a time) must give
    the scores and fits of the rows' copy (ContinuousData.take) exactly: numpy sums a copy's columns row after
    row (pairwise for one column), and the folds chose the penalty and the sharing strength before the change."""
    import mtbn.data.continuous as continuous
    from mtbn.networks.gaussian import fit_linear_gaussian, within_covariance

    monkeypatch.setattr(continuous, "SCATTER_CELLS", cells)
    rng = np.random.default_rng(cells)
    for n, m in [(3, 1), (50, 1), (9000, 1), (4000, 2), (3000, 7), (60, 5)]:
        x = rng.normal(size=(n, m)) * 10 ** rng.uniform(-2, 5, size=m) + rng.normal(size=m) * 1e3
        for j in range(1, m):
            x[:, j] += x[:, :j] @ rng.normal(size=j)
        data = ContinuousData(x, [f"v{j}" for j in range(m)], "t", checked=False)
        rows = np.sort(rng.choice(n, size=max(2, 4 * n // 5), replace=False))
        view, copy = data.subset(rows), data.take(rows)
        assert view.n_samples == copy.n_samples and view.names == copy.names and np.array_equal(view.values, copy.values)
        for got, want in zip(view.centred_scatter(), continuous.centred_scatter(copy.values)):
            assert np.array_equal(got, want), (n, m)
        parents = [tuple(range(max(0, j - 2), j)) for j in range(m)]
        a, b = fit_linear_gaussian(parents, view), fit_linear_gaussian(parents, copy)
        for u, v in zip((a.intercepts, a.variances, *a.coefficients), (b.intercepts, b.variances, *b.coefficients)):
            assert np.array_equal(u, v)
        assert np.array_equal(within_covariance([view, data]), within_covariance([copy, data]))
        for score in ("bge", "bic-g"):
            s, t = make_scorer(view, score), make_scorer(copy, score)
            assert [s.local_score(j, parents[j]) for j in range(m)] == [t.local_score(j, parents[j]) for j in range(m)]
        inner = rng.choice(len(rows), size=len(rows) // 2, replace=False)
        assert np.array_equal(view.subset(inner).values, copy.take(inner).values)


def test_a_fold_read_in_place_holds_no_copy_of_its_rows():
    """The statistics of a fold of most of a task's rows are computed without a copy of the rows (they were: one
    per fold and task, beside the task), in at most a block of SCATTER_CELLS cells at a time."""
    import tracemalloc

    rng = np.random.default_rng(1)
    data = ContinuousData(rng.normal(size=(800_000, 8)), [f"v{j}" for j in range(8)], "t", checked=False)
    rows = np.sort(rng.choice(800_000, size=640_000, replace=False))
    tracemalloc.start()
    try:
        view = data.subset(rows)
        make_scorer(view, "bge").local_score(1, (0,))
        grown = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert grown < 0.2 * data.values.nbytes, (grown, data.values.nbytes)  # a copy: 0.8 of it; blocks: 0.1


def test_the_gaussian_default_gives_one_answer_at_any_n_jobs():
    """The penalty's folds run as jobs (the final single-task starts beside them): one and two workers must give
    the same structures, parameters, held-out path and sharing strength, bit for bit."""
    rng = np.random.default_rng(8)

    def site(b, n):
        x = rng.normal(size=n)
        y = b * x + rng.normal(size=n)
        z = 0.5 * y - 0.3 * x + rng.normal(size=n)
        return pd.DataFrame({"x": x, "y": y, "z": z, "w": rng.normal(size=n)})

    tasks = {"a": site(1.0, 120), "b": site(0.8, 90), "c": site(1.2, 150)}
    runs = [learn_gaussian_structures(tasks, n_restarts=2, n_joint_restarts=1, n_jobs=jobs) for jobs in (1, 2)]
    one, two = runs
    assert [g.parents for g in one.graphs] == [g.parents for g in two.graphs]
    assert one.penalty_path == two.penalty_path and one.penalty == two.penalty
    assert one.sharing_strength == two.sharing_strength
    for a, b in zip(one.networks, two.networks):
        assert np.array_equal(a.intercepts, b.intercepts) and np.array_equal(a.variances, b.variances)
        assert all(np.array_equal(u, v) for u, v in zip(a.coefficients, b.coefficients))


@pytest.mark.parametrize("constraints", [
    {"required_edges": [("v3", "v0")]},
    {"forbidden_edges": [("v0", "v1"), ("v1", "v0"), ("v2", "v3")]},
    {"tiers": [["v3"], ["v2", "v1"], ["v0"]]},
    {"required_edges": [("v1", "v2")], "forbidden_edges": [("v0", "v2"), ("v2", "v0")], "tiers": [["v3"], ["v0"]]},
])
def test_background_knowledge_gives_the_best_graph_it_allows(constraints):
    # Truth by enumeration: of the 543 DAGs over 4 variables, those the constraints allow, each scored by the
    # Gaussian BIC; the single-task search (one task) must reach the best of them, with every constraint held.
    from mtbn.learn.checks import constraint_matrices

    d = _data(seed=11, n_rows=300)
    names = list(d.names)
    required, forbidden = constraint_matrices(names, **constraints)
    scorer = make_scorer(d, "bic-g")
    allowed = [ps for ps in all_dags(4)
               if all(u in ps[v] for u, v in np.argwhere(required))
               and not any(forbidden[u, v] for v in range(4) for u in ps[v])]
    best = max(sum(scorer.local_score(v, tuple(sorted(p))) for v, p in enumerate(ps)) for ps in allowed)
    unconstrained = max(sum(scorer.local_score(v, tuple(sorted(p))) for v, p in enumerate(ps)) for ps in all_dags(4))
    assert best < unconstrained - 1.0  # the knowledge excludes the data's own best graph
    res = learn_gaussian_structures({"t": d}, score="bic-g", n_restarts=5, **constraints)
    graph = res.graphs[0]
    assert sum(scorer.local_score(v, tuple(sorted(p))) for v, p in enumerate(graph.parents)) == pytest.approx(best)
    assert all(u in graph.parents[v] for u, v in np.argwhere(required))
    assert not any(forbidden[u, v] for v in range(4) for u in graph.parents[v])


def test_background_knowledge_holds_in_every_task_and_in_the_folds_searches(monkeypatch):
    # Every search the learner runs (the penalty's folds, the single-task starts, the joint searches) is given
    # the constraints, and every task's network holds them.
    import mtbn.learn.gaussian as gaussian

    rng = np.random.default_rng(5)

    def site(b):
        x = rng.normal(size=120)
        y = b * x + rng.normal(size=120)
        return pd.DataFrame({"x": x, "y": y, "z": y - x + rng.normal(size=120)})

    tasks = {"a": site(1.0), "b": site(0.8), "c": site(1.2)}
    seen = []
    for name in ("hill_climb", "multitask_hill_climb"):
        real = getattr(gaussian, name)

        def watched(*args, real=real, **kwargs):
            seen.append((kwargs["required"].copy(), kwargs["forbidden"].copy()))
            return real(*args, **kwargs)

        monkeypatch.setattr(gaussian, name, watched)
    res = learn_gaussian_structures(tasks, required_edges=[("z", "x")], forbidden_edges=[("y", "z"), ("z", "y")],
                                    n_restarts=2, n_joint_restarts=1)
    names = ["x", "y", "z"]
    assert len(seen) > len(tasks) * 2 * 5  # the folds' searches among them
    for required, forbidden in seen:
        assert np.argwhere(required).tolist() == [[2, 0]]
        assert np.argwhere(forbidden).tolist() == [[1, 2], [2, 1]]
    for g in res.graphs:
        edges = set(g.edges(names=True))
        assert ("z", "x") in edges and not {("y", "z"), ("z", "y")} & edges
        assert g.names == tuple(names)


@pytest.mark.parametrize("constraints, message", [
    ({"required_edges": [("x", "y"), ("y", "x")]}, "required edges make the empty start graph cyclic: "),
    ({"required_edges": [("x", "w")]}, "required_edges: unknown variable 'w' in edge ('x', 'w')."),
    ({"required_edges": [("x", "y")], "forbidden_edges": [("x", "y")]},
     "edge ('x', 'y') is both required and forbidden."),
    ({"required_edges": [("x", "z"), ("y", "z")], "max_parents": 1},
     "empty start graph gives 'z' 2 parents; max_parents is 1."),
])
def test_background_knowledge_of_continuous_tasks_is_checked_before_any_search(constraints, message):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.normal(size=(30, 3)), columns=list("xyz"))
    with pytest.raises(Exception) as caught:
        learn_gaussian_structures({"a": frame, "b": frame + 0.5}, **constraints)
    assert str(caught.value).startswith(message)


def _sites(seed=0, n=150):
    rng = np.random.default_rng(seed)

    def site(b):
        x = rng.normal(size=n)
        y = b * x + rng.normal(size=n)
        return pd.DataFrame({"x": x, "y": y, "z": 0.6 * y + rng.normal(size=n), "w": rng.normal(size=n)})

    return {"a": site(1.0), "b": site(0.8), "c": site(1.2)}


def test_the_bootstrap_of_continuous_tasks_resamples_rows_and_learns_at_the_results_penalty():
    # It was refused ("looks continuous; discretise it first"). Each replicate is the Gaussian learner on rows
    # drawn with replacement from every task, at the penalty of the result on the original rows.
    from mtbn.bootstrap import bootstrap_structures

    tasks = _sites()
    res = learn_gaussian_structures(tasks, penalty=0.9, n_restarts=2, n_joint_restarts=1)
    boot = bootstrap_structures(tasks, n_boot=12, result=res, n_restarts=2, n_joint_restarts=1, random_state=3)
    assert boot.task_names == ("a", "b", "c") and boot.variables == ("x", "y", "z", "w")
    assert boot.penalty == 0.9 and boot.penalties == [0.9] * 12 and boot.pooled is False
    for name in boot.task_names:
        strength = {frozenset((r["from"], r["to"])): r["strength"] for _, r in boot.strength(name).iterrows()}
        assert strength[frozenset("xy")] == 1.0 and strength[frozenset("yz")] == 1.0  # strong dependences
        assert strength.get(frozenset("xz"), 0.0) < 0.5 and max(  # w is independent of everything
            (v for k, v in strength.items() if "w" in k), default=0.0) < 0.5
    # The same answers at any n_jobs, and each replicate is the learner on its rows: replicate 0 by hand.
    again = bootstrap_structures(tasks, n_boot=12, result=res, n_restarts=2, n_joint_restarts=1, random_state=3,
                                 n_jobs=2)
    assert np.array_equal(boot.edges, again.edges)
    base = int(np.random.default_rng(3).integers(0, 2**31 - 1))
    rng = np.random.default_rng([base, 0])
    drawn = {n: f.iloc[rng.integers(0, len(f), len(f))].reset_index(drop=True) for n, f in tasks.items()}
    one = learn_gaussian_structures(drawn, penalty=0.9, parameter_sharing=None, n_restarts=2, n_joint_restarts=1,
                                    random_state=base)
    pos = {v: i for i, v in enumerate(boot.variables)}
    for t, g in enumerate(one.graphs):
        mine = {(boot.variables[u], boot.variables[v]) for u, v in np.argwhere(boot.edges[0, t])}
        assert mine == set(g.edges(names=True)) and all(u in pos for u, _ in mine)


def test_the_bootstrap_of_continuous_tasks_refuses_what_their_learner_does_not_take():
    from mtbn.bootstrap import bootstrap_structures
    from mtbn.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=r"^penalty= does not apply with interventions="):
        bootstrap_structures(_sites(), n_boot=2, interventions={"a": []}, penalty=0.5)
    with pytest.raises(InvalidParameterError, match=r"^result is of the tasks \('a', 'b'\)"):
        bootstrap_structures(_sites(), n_boot=2, result=learn_gaussian_structures(
            {k: v for k, v in _sites().items() if k != "c"}, penalty=0.5, n_restarts=0, n_joint_restarts=0))


def test_one_table_of_continuous_tasks_split_by_a_task_column_is_the_tasks_given_apart(tmp_path, capsys):
    # It was refused ("looks continuous; discretise it first"): learn_structures, the estimator, the bootstrap and
    # mtbn learn --task-column now split the rows and learn them as the same tasks given one by one.
    from mtbn.bootstrap import bootstrap_structures
    from mtbn.cli import main
    from mtbn.estimators import MultitaskStructureLearner
    from mtbn.learn import learn_structures

    tasks = _sites(seed=4)
    table = pd.concat([f.assign(site=name) for name, f in tasks.items()], ignore_index=True)
    settings = dict(penalty=0.9, n_restarts=1, n_joint_restarts=1)
    apart = learn_structures(tasks, **settings)
    together = learn_structures(table, task_column="site", **settings)
    assert together.task_names == apart.task_names
    assert [g.edges(names=True) for g in together.graphs] == [g.edges(names=True) for g in apart.graphs]
    assert all(np.array_equal(a.intercepts, b.intercepts) for a, b in zip(together.networks, apart.networks))
    est = MultitaskStructureLearner(task_column="site", n_bootstrap=3, **settings).fit(table)
    assert est.score(table) == pytest.approx(MultitaskStructureLearner(**settings).fit(tasks).score(tasks))
    assert np.array_equal(est.bootstrap_.edges, bootstrap_structures(tasks, n_boot=3, result=apart,
                                                                     **settings).edges)
    table.to_csv(tmp_path / "all.csv", index=False)
    assert main(["learn", "--task-column", "site", "--penalty", "0.9", "--restarts", "1", "--joint-restarts", "1",
                 "--out", str(tmp_path / "out"), str(tmp_path / "all.csv")]) == 0
    assert "3 continuous task(s) as Gaussian networks" in capsys.readouterr().out
    for name, g in zip(apart.task_names, apart.graphs):
        edges = pd.read_csv(tmp_path / "out" / f"{name}.edges.csv")
        assert set(map(tuple, edges[["source", "target"]].values)) == set(g.edges(names=True))
    assert main(["learn", "--task-column", "place", "--out", str(tmp_path / "o2"), str(tmp_path / "all.csv")]) == 2
    assert capsys.readouterr().err.strip() == "mtbn: error: task_column 'place' is not a column of the DataFrame."


def test_the_single_task_estimator_learns_continuous_rows_as_a_linear_gaussian_network():
    # It refused them ("looks continuous; discretise it first"). Truths: the Gaussian learner on the one task;
    # each row's log-likelihood written out from the fitted regressions with scipy's normal density.
    from scipy.stats import norm

    from mtbn.estimators import StructureLearner
    from mtbn.exceptions import InvalidParameterError

    frame = _sites(seed=6)["a"]
    est = StructureLearner(n_restarts=2).fit(frame)
    alone = learn_gaussian_structures({"data": frame}, n_restarts=2)
    assert est.data_kind_ == "gaussian" and est.dag_.edges(names=True) == alone.graphs[0].edges(names=True)
    assert type(est.network_).__name__ == "LinearGaussianBayesianNetwork"
    assert est.log_score_ == pytest.approx(make_scorer(ContinuousData(frame.to_numpy(), list(frame.columns)),
                                                       "bge").score([set(p) for p in est.dag_.parents]))
    net, test = est.bayesian_network_, _sites(seed=7)["a"]
    by_hand = np.zeros(len(test))
    for v, name in enumerate(net.names):
        mean = net.intercepts[v] + sum(b * test[net.names[p]] for p, b in zip(net.parents[v], net.coefficients[v]))
        by_hand += norm.logpdf(test[name], loc=mean, scale=np.sqrt(net.variances[v]))
    assert np.allclose(est.score_samples(test[list(reversed(test.columns))]), by_hand)
    assert est.score(test) == pytest.approx(by_hand.mean())
    knows = StructureLearner(n_restarts=2, forbidden_edges=[("x", "y"), ("y", "x")]).fit(frame)
    assert not {frozenset(e) for e in knows.dag_.edges(names=True)} & {frozenset("xy")}
    with pytest.raises(InvalidParameterError, match=r"^equivalent_sample_size is not available for continuous"):
        StructureLearner(equivalent_sample_size=5).fit(frame)


def _related_and_not(seed=0, n=200):
    """Two of :func:`_sites` (the chain x -> y -> z) and a task ``c`` whose only dependence is w -> z."""
    tasks = _sites(seed, n)
    rng = np.random.default_rng([seed, 1])
    w = rng.normal(size=n)
    tasks["c"] = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n), "z": w + rng.normal(size=n),
                               "w": w})
    return tasks


def test_the_direct_relatedness_of_continuous_tasks_is_the_edit_distance_of_their_gaussian_structures():
    # It refused them ("looks continuous; discretise it first"). Truth: the edges of the structures the Gaussian
    # learner gives at the measure's penalty, counted apart by hand (a reversal once).
    from mtbn.learn import learn_structures
    from mtbn.relatedness import direct_relatedness

    tasks = _related_and_not()
    rel = direct_relatedness(tasks, n_restarts=2, n_joint_restarts=1, noise_floor=3, n_boot=3)
    res = learn_structures(tasks, penalty=0.9, parameter_sharing=None, n_restarts=2, n_joint_restarts=1)
    edges = {n: set(g.edges(names=True)) for n, g in zip(res.task_names, res.graphs)}
    for s in tasks:
        for t in tasks:
            adjacent_s, adjacent_t = ({frozenset(e) for e in edges[u]} for u in (s, t))
            reversed_ = sum(1 for u, v in edges[s] if (v, u) in edges[t])
            assert rel.distance.loc[s, t] == len(adjacent_s ^ adjacent_t) + reversed_
    assert rel.distance.loc["a", "c"] > rel.distance.loc["a", "b"]
    assert np.isfinite(rel.floor) and rel.interval is not None


def test_the_indirect_relatedness_of_continuous_tasks_cross_fits_linear_gaussian_networks():
    # Known properties: a copy of a task's rows under another name is at distance 0 both ways (same structure,
    # same rows, same folds); a structure that misses a task's dependences explains its held-out rows worse.
    from mtbn.exceptions import InvalidParameterError
    from mtbn.relatedness import indirect_relatedness

    tasks = _related_and_not()
    tasks["a2"] = tasks["a"].copy()
    rel = indirect_relatedness(tasks, n_folds=5, n_restarts=2)
    assert rel.distance.loc["a", "a2"] == pytest.approx(0.0, abs=1e-12)
    assert rel.distance.loc["a2", "a"] == pytest.approx(0.0, abs=1e-12)
    assert rel.distance.loc["a", "c"] > 0.1 and rel.distance.loc["c", "a"] > 0.1
    assert rel.log_likelihood.loc["a", "a"] > rel.log_likelihood.loc["c", "a"]
    with pytest.raises(InvalidParameterError, match=r"^equivalent_sample_size is not available for continuous"):
        indirect_relatedness(tasks, equivalent_sample_size=5)


def test_task_selection_and_clustering_of_continuous_tasks_keep_the_related_ones_together():
    # They refused continuous tasks. Truth by construction: a and b are the chain x -> y -> z with other
    # coefficients; c and d have only w -> z (d is c's rows shuffled, plus a little noise).
    from mtbn.exceptions import InvalidParameterError
    from mtbn.relatedness import cluster_tasks, select_tasks

    tasks = _related_and_not()
    rng = np.random.default_rng(2)
    tasks["d"] = tasks["c"].sample(frac=1.0, random_state=1).reset_index(drop=True) + 0.01 * rng.normal(
        size=tasks["c"].shape)
    settings = dict(n_restarts=2, n_joint_restarts=1)
    chosen = select_tasks(tasks, "a", **settings)
    assert chosen.order[0] == "b" and chosen.selected == ["b"] and chosen.how == "validation"
    # The principal's network: its structure's regressions, by least squares on all of its rows.
    net, rows = chosen.network, tasks["a"]
    assert type(net).__name__ == "LinearGaussianNetwork"
    for v, name in enumerate(net.names):
        design = np.column_stack([np.ones(len(rows))] + [rows[net.names[p]] for p in net.parents[v]])
        beta = np.linalg.lstsq(design, rows[name], rcond=None)[0]
        assert np.allclose([net.intercepts[v], *net.coefficients[v]], beta)
    clusters = cluster_tasks(tasks, **settings)
    assert clusters.labels["a"] == clusters.labels["b"] != clusters.labels["c"] == clusters.labels["d"]
    with pytest.raises(InvalidParameterError, match=r"^equivalent_sample_size is not available for continuous"):
        select_tasks(tasks, "a", equivalent_sample_size=3)


def test_relatedness_from_a_continuous_learn_folder_is_the_edit_distance_of_its_structures(tmp_path, capsys):
    # --from on a `mtbn learn` folder of continuous tasks was refused as "damaged" (its summary.json held no
    # edges, rows or fingerprints). Truth: the edges of the structures the learn run wrote, counted apart by hand.
    from mtbn.cli import main

    paths = []
    for name, frame in _related_and_not().items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        paths.append(str(tmp_path / f"{name}.csv"))
    assert main(["learn", "--penalty", "0.9", "--restarts", "2", "--joint-restarts", "1", "--out",
                 str(tmp_path / "L"), *paths]) == 0
    record = json.loads((tmp_path / "L" / "summary.json").read_text())
    assert {name: info["n_samples"] for name, info in record["tasks"].items()} == {"a": 200, "b": 200, "c": 200}
    assert main(["relatedness", "--from", str(tmp_path / "L"), "--out", str(tmp_path / "R"), *paths]) == 0
    assert "mtbn learn, penalty 0.9" in capsys.readouterr().out
    distance = pd.read_csv(tmp_path / "R" / "distance.csv", index_col=0)
    edges = {n: set(map(tuple, pd.read_csv(tmp_path / "L" / f"{n}.edges.csv").to_numpy().tolist())) for n in "abc"}
    assert edges["a"] and edges["c"]
    for s in "abc":
        for t in "abc":
            adjacent_s, adjacent_t = ({frozenset(e) for e in edges[u]} for u in (s, t))
            reversed_ = sum(1 for u, v in edges[s] if (v, u) in edges[t])
            assert distance.loc[s, t] == len(adjacent_s ^ adjacent_t) + reversed_
    # other values under the same names and rows: refused by the recorded fingerprint, nothing written
    frame = pd.read_csv(paths[1])
    frame.assign(x=frame["x"] + 1.0).to_csv(paths[1], index=False)
    assert main(["relatedness", "--from", str(tmp_path / "L"), "--out", str(tmp_path / "R2"), *paths]) == 2
    err = capsys.readouterr().err
    assert "task 'b' holds other data" in err and not (tmp_path / "R2").exists()


def test_the_relatedness_commands_take_continuous_files(tmp_path, capsys):
    # mtbn relatedness, select and cluster refused continuous files ("looks continuous; discretise it first").
    from mtbn.cli import main

    tasks = _related_and_not()
    rng = np.random.default_rng(2)
    tasks["d"] = tasks["c"].sample(frac=1.0, random_state=1).reset_index(drop=True) + 0.01 * rng.normal(
        size=tasks["c"].shape)
    paths = []
    for name, frame in tasks.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        paths.append(str(tmp_path / f"{name}.csv"))
    fast = ["--restarts", "2"]
    assert main(["relatedness", "--measure", "direct", "--noise-floor", "2", *fast, "--out", str(tmp_path / "rel"),
                 *paths]) == 0
    record = json.loads((tmp_path / "rel" / "relatedness.json").read_text())
    assert record["names"] == ["a", "b", "c", "d"]
    distance = pd.read_csv(tmp_path / "rel" / "distance.csv", index_col=0)
    assert distance.loc["a", "b"] < distance.loc["a", "c"]
    # select reuses the distances (--from: same names, rows and fingerprints), and writes the principal's network
    assert main(["select", "--principal", "a", "--from", str(tmp_path / "rel"), *fast, "--out",
                 str(tmp_path / "sel"), *paths]) == 0
    selected = json.loads((tmp_path / "sel" / "selected.json").read_text())
    assert selected["selected"] == ["b"]
    assert (tmp_path / "sel" / "a.gaussian.json").exists() and (tmp_path / "sel" / "a.edges.csv").exists()
    assert main(["cluster", *fast, "--out", str(tmp_path / "clu"), *paths]) == 0
    clusters = json.loads((tmp_path / "clu" / "clusters.json").read_text())["clusters"]
    assert sorted(map(sorted, clusters.values())) == [["a", "b"], ["c", "d"]]
    assert (tmp_path / "clu" / "c.gaussian.json").exists()
    capsys.readouterr()
    # --from refuses other values under the same names and rows
    tasks["b"].assign(x=tasks["b"]["x"] + 1.0).to_csv(tmp_path / "b.csv", index=False)
    assert main(["select", "--principal", "a", "--from", str(tmp_path / "rel"), "--out", str(tmp_path / "sel2"),
                 *paths]) == 2
    assert "b" in capsys.readouterr().err and not (tmp_path / "sel2").exists()
