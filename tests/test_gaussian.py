"""Continuous tasks: the Gaussian scores against independent computations, the data kind's checks, joint learning."""

import itertools
import re

import numpy as np
import pandas as pd
import pytest
from scipy.special import multigammaln

from mtbn.data import ContinuousData, continuous_from_dataframe
from mtbn.exceptions import InvalidDataError
from mtbn.learn.gaussian import learn_gaussian_structures
from mtbn.score import BDeuScore, BGeScore, GaussianBICScore, make_scorer


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
    am, aw = s.alpha_mu, s.alpha_w
    t0 = s.t * np.eye(n)
    closed = (-n_rows * n / 2 * np.log(np.pi) + n / 2 * np.log(am / (am + n_rows))
              + multigammaln((aw + n_rows) / 2, n) - multigammaln(aw / 2, n)
              + aw / 2 * np.linalg.slogdet(t0)[1] - (aw + n_rows) / 2 * np.linalg.slogdet(s.tn)[1])
    for order in itertools.permutations(range(n)):
        total = sum(s.local_score(order[i], tuple(sorted(order[:i]))) for i in range(n))
        assert total == pytest.approx(closed, rel=1e-12)


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
    ("hole", [1.0, np.nan, 2.0, 3.0, 4.0], "column 'hole' has a missing or infinite value (row 2)"),
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
    tasks, edges = _linear_tasks()
    alone = learn_gaussian_structures(tasks, penalty=0.0, random_state=0)
    none = learn_gaussian_structures(tasks, prior="none", penalty=0.9, random_state=0)
    shared = learn_gaussian_structures(tasks, penalty=1.0, random_state=0)
    # penalty 0 is independent learning; penalty 1 forces one structure on every task
    assert [g.parents for g in alone.graphs] == [g.parents for g in none.graphs]
    assert len({tuple(map(frozenset, g.parents)) for g in shared.graphs}) == 1
    skeleton = {frozenset((f"v{u}", f"v{w}")) for u, w in edges}
    found = {frozenset(e) for e in shared.graphs[0].edges(names=True)}
    assert len(found & skeleton) >= 5
    assert alone.transfer is None and alone.penalty_path == []


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
    # the fit at the chosen strength towards all tasks' rows pooled.
    from mtbn.learn.gaussian import SHARING_STRENGTHS
    from mtbn.networks.gaussian import fit_linear_gaussian

    assert res.sharing_strength in SHARING_STRENGTHS and res.sharing_strength > 0
    assert res.transfer["sharing"]["strength"] == res.sharing_strength
    pooled = ContinuousData(np.vstack([d.values for d in related.values()]), net.names, "pooled")
    again = fit_linear_gaussian([sorted(p) for p in res.graphs[1].parents], related["t1"], pooled=pooled,
                                strength=res.sharing_strength)
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
    # shrinking towards the pooled fit: strength 0 is the task's own fit, inf the pooled one
    other = _data(seed=8, n_rows=80, n_vars=3)
    pooled = ContinuousData(np.vstack([d.values, other.values]), d.names, "pooled")
    assert np.allclose(fit_linear_gaussian(parents, d, pooled=pooled, strength=0.0).coefficients[2], net.coefficients[2])
    inf = fit_linear_gaussian(parents, d, pooled=pooled, strength=np.inf)
    assert np.allclose(inf.coefficients[2], fit_linear_gaussian(parents, pooled).coefficients[2])
    near = fit_linear_gaussian(parents, d, pooled=pooled, strength=1e9).coefficients[2]
    assert np.allclose(near, inf.coefficients[2], atol=1e-6)  # a large strength is the pooled fit


def test_a_shipped_gaussian_network_samples_what_it_says():
    from mtbn.networks.gaussian import fit_linear_gaussian, load_gaussian_network

    # Fitted on 20,000 sampled rows, the network's own structure gets back its variances (within 5%) and, on
    # fresh rows, the log-likelihood of the network that generated them (within 0.01 nats per row).
    net = load_gaussian_network("magic-niab")
    fit = fit_linear_gaussian(net.parents, net.sample(20000, random_state=0))
    assert np.allclose(fit.variances, net.variances, rtol=0.05)
    test = net.sample(20000, random_state=1)
    assert abs(net.log_likelihood(test) - fit.log_likelihood(test)) / 20000 < 0.01
    assert (net.n_vars, len(net.edges)) == (44, 66)


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
    # Unrelated: tasks 1.. are the base network with its variables relabelled; sampling one and relabelling
    # the columns back gives the base's own likelihood structure (its edges, mapped).
    unrelated = make_gaussian_problem("ecoli70-unrelated", n_tasks=3, p_del=0.0, weight_sd=0.0, random_state=1)
    assert set(unrelated[0].edges) == base_edges
    moved = unrelated[1]
    assert set(moved.edges) != base_edges and len(moved.edges) == len(base_edges)
    assert sorted(len(p) for p in moved.parents) == sorted(len(p) for p in base.parents)
    assert sorted(np.round(moved.variances, 6)) == sorted(np.round(base.variances, 6))
