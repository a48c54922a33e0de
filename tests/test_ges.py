"""Greedy equivalence search (mtbn.ges) against exhaustive enumeration and the properties of its pieces."""

import numpy as np
import pytest

from mtbn.data import ContinuousData
from mtbn.ges import consistent_extension, cpdag_matrices, greedy_equivalence_search
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG, essential_graph, find_cycle
from mtbn.networks import load_network, sample
from mtbn.score import BDeuScore, GaussianBICScore

from helpers import all_dags


def _gaussian_task(seed, n_rows=2000):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n_rows)
    b = rng.normal(size=n_rows)
    c = 0.8 * a - 0.7 * b + rng.normal(size=n_rows)  # a -> c <- b
    d = 0.9 * c + rng.normal(size=n_rows)  # c -> d
    return ContinuousData(np.column_stack([a, b, c, d]), ["a", "b", "c", "d"])


def test_the_number_of_dags_on_four_nodes_is_543():
    assert sum(1 for _ in all_dags(4)) == 543  # OEIS A003024: the enumeration below is complete


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ges_reaches_the_best_gaussian_bic_of_all_543_dags(seed):
    scorer = GaussianBICScore(_gaussian_task(seed))
    best = max(scorer.score(p) for p in all_dags(4))
    res = greedy_equivalence_search(GaussianBICScore(_gaussian_task(seed)), names="abcd")
    assert res.log_score == pytest.approx(best, abs=1e-9)
    assert essential_graph(res.graph)[0] == {("a", "c"), ("b", "c"), ("c", "d")}  # all compelled


def test_ges_reaches_the_best_bdeu_of_all_dags_on_four_asia_variables():
    net = load_network("asia")
    data = sample(net, 3000, random_state=3)
    keep = ["smoke", "lung", "either", "xray"]
    sub = data.to_dataframe()[keep]
    from mtbn.data import from_dataframe

    d = from_dataframe(sub)
    best = max(BDeuScore(d).score(p) for p in all_dags(4))
    assert greedy_equivalence_search(BDeuScore(d)).log_score == pytest.approx(best, abs=1e-9)


def test_the_trace_adds_up_to_the_score_of_the_returned_dag():
    net = load_network("asia")
    scorer = BDeuScore(sample(net, 1500, random_state=1))
    res = greedy_equivalence_search(scorer)
    assert res.n_iter == len(res.trace) - 1 > 0
    assert np.all(np.diff(res.trace[:1 + sum(np.diff(res.trace) > 0)]) > 0)  # each operator gains
    assert res.trace[-1] == pytest.approx(res.log_score, abs=1e-6)
    assert res.log_score == pytest.approx(scorer.score([set(p) for p in res.graph.parents]), abs=1e-9)


def test_max_parents_bounds_every_family():
    scorer = BDeuScore(sample(load_network("asia"), 2000, random_state=2))
    res = greedy_equivalence_search(scorer, max_parents=1)
    assert max(len(p) for p in res.graph.parents) <= 1
    assert res.log_score <= greedy_equivalence_search(BDeuScore(scorer.data)).log_score + 1e-9


@pytest.mark.parametrize("seed", range(20))
def test_the_consistent_extension_of_a_cpdag_is_in_its_class(seed):
    rng = np.random.default_rng(seed)
    n = 8
    order = rng.permutation(n)
    parents = [set() for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < 0.35:
                parents[order[j]].add(int(order[i]))
    d, u = cpdag_matrices(parents)
    assert d.sum() + u.sum() // 2 == sum(len(p) for p in parents)
    ext = consistent_extension(d, u)
    assert not find_cycle(ext)
    assert essential_graph(DAG(ext)) == essential_graph(DAG(parents))


def test_a_pdag_without_a_consistent_extension_is_refused():
    d = np.zeros((3, 3), dtype=bool)
    d[0, 1] = d[1, 2] = d[2, 0] = True  # a directed cycle
    with pytest.raises(InvalidParameterError, match="has no consistent extension"):
        consistent_extension(d, np.zeros((3, 3), dtype=bool))


def test_ges_from_a_complete_dag_deletes_down_to_the_best_class():
    scorer = GaussianBICScore(_gaussian_task(4))
    best = max(scorer.score(p) for p in all_dags(4))
    complete = [set(range(v)) for v in range(4)]
    res = greedy_equivalence_search(GaussianBICScore(_gaussian_task(4)), start=complete, names="abcd")
    assert res.trace[0] == pytest.approx(scorer.score(complete)) and res.log_score == pytest.approx(best, abs=1e-9)
    assert res.graph.n_edges == 3
