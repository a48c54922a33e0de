"""Tests of task relatedness, task selection and task clustering (issue 5).

Tasks: four ASIA data sets, two sampled from ASIA and two from an ASIA
variant that lost three edges (CPTs marginalised), 300 rows each; all
searches run with few or no restarts. Truths used: edit distances counted by
hand from the learned edge sets, cross-validated log-likelihoods recomputed
with :func:`mtbn.networks.fit_parameters` and :func:`log_likelihood` on the
same folds, the single-task and multitask learners called directly with the
seed that :func:`select_tasks` derives from ``random_state`` (one draw of
``numpy.random.default_rng(random_state).integers(0, 2**31 - 1)``), and
hand-built distance matrices and lists.
"""

import itertools
import zlib

import numpy as np
import pytest

from mtbn.benchmarks import make_perturbed_tasks
from mtbn.data import DiscreteData
from mtbn.exceptions import InvalidParameterError
from mtbn.learn import learn_structure, learn_structures
from mtbn.networks import fit_parameters, log_likelihood, sample
from mtbn.relatedness import (
    average_link_clusters,
    cluster_tasks,
    direct_relatedness,
    gap_size,
    indirect_relatedness,
    select_tasks,
)

NAMES = ("a0", "a1", "v0", "v1")


def _named(net, n, seed, name):
    d = sample(net, n, random_state=seed)
    return DiscreteData(d.codes, d.names, d.states, name)


@pytest.fixture(scope="module")
def variant(asia):
    (net,), (gone,) = make_perturbed_tasks(asia, n_tasks=1, p_del=0.5, random_state=7)
    assert len(gone) == 3
    return net


@pytest.fixture(scope="module")
def tasks(asia, variant):
    return [_named(asia, 300, 0, "a0"), _named(asia, 300, 1, "a1"),
            _named(variant, 300, 2, "v0"), _named(variant, 300, 3, "v1")]


@pytest.fixture(scope="module")
def direct(tasks):
    return direct_relatedness(tasks, penalty=0.9, n_restarts=0)


def _pair_states(edges):
    """Unordered pair -> oriented edge, from a list of (u, v)."""
    return {frozenset(e): tuple(e) for e in edges}


def _hand_distance(e1, e2, ignore=()):
    s1, s2 = _pair_states(e1), _pair_states(e2)
    skip = {frozenset(p) for p in ignore}
    return sum(1 for pair in (set(s1) | set(s2)) - skip if s1.get(pair) != s2.get(pair))


def _seed_of(random_state):
    return int(np.random.default_rng(random_state).integers(0, 2**31 - 1))


# ---------------------------------------------------------------------------
# Direct measure
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_direct_distance_is_a_metric_on_integers(direct):
    D = direct.distance.loc[list(NAMES), list(NAMES)].to_numpy()
    assert list(direct.distance.index) == list(NAMES) == list(direct.distance.columns)
    np.testing.assert_array_equal(D, D.T)
    np.testing.assert_array_equal(np.diag(D), 0)
    assert (D >= 0).all() and np.array_equal(D, np.round(D))
    for i, j, k in itertools.product(range(4), repeat=3):
        assert D[i, k] <= D[i, j] + D[j, k]
    # The two ASIA variants are further from ASIA than the variants are from each other.
    assert D[0, 2] > D[2, 3] and D[1, 3] > D[2, 3]


def test_direct_distance_counts_differing_node_pairs(direct):
    for a, b in itertools.combinations(NAMES, 2):
        expected = _hand_distance(direct.graphs[a].edges(), direct.graphs[b].edges())
        assert direct.distance.loc[a, b] == expected, (a, b)


@pytest.mark.slow
def test_direct_distance_ignores_free_edges(tasks, direct):
    # Free the node pairs on which the learned structures disagree most often.
    counts = {}
    for a, b in itertools.combinations(NAMES, 2):
        s1, s2 = _pair_states(direct.graphs[a].edges()), _pair_states(direct.graphs[b].edges())
        for pair in set(s1) | set(s2):
            if s1.get(pair) != s2.get(pair):
                counts[pair] = counts.get(pair, 0) + 1
    free = [tuple(sorted(p)) for p, _ in sorted(counts.items(), key=lambda kv: (-kv[1], sorted(kv[0])))[:2]]
    rel = direct_relatedness(tasks, penalty=0.9, n_restarts=0, free_edges=free)
    differs_on_free = False
    for a, b in itertools.combinations(NAMES, 2):
        ea, eb = rel.graphs[a].edges(), rel.graphs[b].edges()
        assert rel.distance.loc[a, b] == _hand_distance(ea, eb, ignore=free), (a, b)
        differs_on_free |= _hand_distance(ea, eb) > _hand_distance(ea, eb, ignore=free)
    assert differs_on_free, "the freed pairs should still differ somewhere, or the test shows nothing"


# ---------------------------------------------------------------------------
# Indirect measure
# ---------------------------------------------------------------------------


def test_indirect_identical_tasks_are_at_distance_zero(asia):
    df = sample(asia, 200, random_state=5).to_dataframe()
    rel = indirect_relatedness({"x": df, "y": df.copy()}, n_folds=5, n_restarts=0)
    assert rel.graphs["x"] == rel.graphs["y"]
    ll = rel.log_likelihood
    # Each column is one task's held-out data: the two (equal) structures score it equally.
    assert ll.loc["x", "x"] == pytest.approx(ll.loc["y", "x"], abs=1e-12)
    assert ll.loc["y", "y"] == pytest.approx(ll.loc["x", "y"], abs=1e-12)
    np.testing.assert_allclose(rel.distance.to_numpy(), 0.0, atol=1e-12)


def test_indirect_matrix_direction_matches_a_hand_computation(tasks):
    n_folds, random_state = 5, 3
    rel = indirect_relatedness(tasks, n_folds=n_folds, n_restarts=0, random_state=random_state)
    ll, D = rel.log_likelihood, rel.distance
    for e, s in itertools.permutations(NAMES, 2):
        assert D.loc[e, s] == pytest.approx(ll.loc[e, e] - ll.loc[s, e], abs=1e-12)
    np.testing.assert_allclose(np.diag(D.to_numpy()), 0.0, atol=1e-12)
    # Recompute one cell: structure of s = "v0" fitted and scored on the folds of e = "a0"
    # (folds drawn as indirect_relatedness documents in its code: keyed by the task name).
    s, e = "v0", "a0"
    base = _seed_of(random_state)
    data = {d.name: d for d in tasks}[e]
    folds = np.array_split(np.random.default_rng([base, zlib.crc32(e.encode()), 2]).permutation(data.n_samples),
                           n_folds)
    parents = [tuple(sorted(p)) for p in rel.graphs[s].parents]
    vals = []
    for f in range(n_folds):
        train = np.sort(np.concatenate([x for i, x in enumerate(folds) if i != f]))
        net = fit_parameters(parents, data.take(train))
        vals.append(log_likelihood(net, data.take(np.sort(folds[f]))))
    assert ll.loc[s, e] == pytest.approx(np.mean(vals), abs=1e-12)
    # Structures from the other network explain ASIA data worse than ASIA's own.
    assert D.loc["a0", "v0"] > 0 and D.loc["a0", "v1"] > 0


def test_indirect_structures_are_the_single_task_structures(tasks):
    rel = indirect_relatedness(tasks, n_folds=3, n_restarts=0)
    for d in tasks:
        assert rel.graphs[d.name] == learn_structure(d, n_restarts=0).graph


# ---------------------------------------------------------------------------
# Task selection
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seeded_tasks(asia, variant):
    """Tasks on which the restarts' random stream changes the learned graphs.

    With 100 rows and 3 restarts, the principal "p" gets a different
    single-task graph, and a different multitask graph with "b" and "w", from
    random_state 0 than from the seed derived from it (checked when the
    test was written), so the two tests below tell the seeds apart.
    """
    return [_named(asia, 100, 1, "p"), _named(asia, 100, 51, "b"), _named(variant, 100, 61, "w")]


@pytest.mark.slow
def test_select_none_gives_the_single_task_graph(seeded_tasks):
    restarts, random_state = 3, 0
    res = select_tasks(seeded_tasks, "p", n=0, n_restarts=restarts, penalty=0.9, random_state=random_state)
    expected = learn_structure(seeded_tasks[0], n_restarts=restarts, random_state=_seed_of(random_state)).graph
    assert res.n_selected == 0 and res.selected == [] and res.how == "given"
    assert res.graph == expected
    assert res.single_task_graph == expected
    assert np.isnan(res.penalty)
    assert res.network.parents == tuple(tuple(sorted(p)) for p in expected.parents)


@pytest.mark.slow
def test_select_all_gives_the_multitask_graph_of_all_tasks(seeded_tasks):
    restarts, random_state = 3, 0
    res = select_tasks(seeded_tasks, "p", n=2, n_restarts=restarts, penalty=0.9, random_state=random_state)
    assert res.n_selected == 2 and sorted(res.selected) == ["b", "w"]
    mt = learn_structures(seeded_tasks, penalty=0.9, n_restarts=restarts, random_state=_seed_of(random_state))
    assert res.graph == mt.graphs[mt.task_names.index("p")]
    assert res.penalty == 0.9
    assert res.single_task_graph == learn_structure(seeded_tasks[0], n_restarts=restarts,
                                                    random_state=_seed_of(random_state)).graph
    # The returned network is fitted on all the principal's rows.
    ref = fit_parameters([tuple(sorted(p)) for p in res.graph.parents], seeded_tasks[0])
    for a, b in zip(res.network.cpts, ref.cpts):
        np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.slow
def test_select_gap_uses_the_largest_gap(tasks):
    res = select_tasks(tasks, "v0", n="gap", n_restarts=0, penalty=0.9, noise_floor=False)
    dists = [res.distances[t] for t in res.order]
    assert dists == sorted(dists)
    assert sorted(res.order) == ["a0", "a1", "v1"]
    assert res.how == "gap"
    assert res.n_selected == res.gap == gap_size(dists)
    assert res.selected == res.order[: res.n_selected]
    assert res.selected == ["v1"]  # the other sample of the same network


@pytest.mark.slow
def test_select_order_follows_the_principal_row_of_the_distance(tasks):
    res = select_tasks(tasks, "a0", n=1, n_restarts=0, penalty=0.9, random_state=1)
    row = res.relatedness.distance.loc["a0"].drop("a0")
    assert res.distances == {k: float(v) for k, v in row.items()}
    assert [res.distances[t] for t in res.order] == sorted(row.to_numpy().tolist())
    assert res.selected == res.order[:1] and res.n_selected == 1


def test_select_unknown_principal_is_named(tasks):
    with pytest.raises(InvalidParameterError, match="'nobody'"):
        select_tasks(tasks, "nobody", n=1, n_restarts=0)


# ---------------------------------------------------------------------------
# Clustering and gap hunting
# ---------------------------------------------------------------------------


def _two_group_matrix():
    names = ["a", "b", "c", "d", "e"]
    D = np.full((5, 5), 10.0)
    for group in ([0, 1, 2], [3, 4]):
        for i, j in itertools.product(group, repeat=2):
            D[i, j] = 1.0 + 0.5 * abs(i - j)
    np.fill_diagonal(D, 0.0)
    return names, D


def test_average_link_finds_two_obvious_groups():
    names, D = _two_group_matrix()
    labels, Z = average_link_clusters(D, 2)
    assert len(set(labels)) == 2
    assert labels[0] == labels[1] == labels[2] != labels[3] == labels[4]
    assert Z.shape == (4, 4)
    # Average link: the last merge joins the groups at the mean between-group distance.
    assert Z[-1, 2] == pytest.approx(10.0)
    labels1, _ = average_link_clusters(D, 1)
    assert set(labels1) == {1}
    labels5, _ = average_link_clusters(D, 5)
    assert sorted(labels5) == [1, 2, 3, 4, 5]


@pytest.mark.slow
def test_cluster_tasks_separates_two_networks(asia):
    (empty,), _ = make_perturbed_tasks(asia, n_tasks=1, p_del=1.0, random_state=0)
    data = {f"s{i}": sample(asia, 300, random_state=10 + i).to_dataframe() for i in range(3)}
    data.update({f"e{i}": sample(empty, 300, random_state=20 + i).to_dataframe() for i in range(2)})
    res = cluster_tasks(data, n_clusters=2, penalty=0.9, n_restarts=0)
    assert res.n_clusters == 2
    assert res.labels["s0"] == res.labels["s1"] == res.labels["s2"] != res.labels["e0"] == res.labels["e1"]
    assert set(res.graphs) == set(data) == set(res.networks)


@pytest.mark.parametrize("distances, expected", [
    ([3, 4, 12, 13, 15], 2),
    ([1, 2, 3, 10], 3),
    ([0, 6, 7, 8], 1),
    ([2, 2, 2], 3),
    ([0.0, 0.0], 2),
    ([5], 1),
    ([], 0),
    ([1, 2, 9, float("nan")], 2),
])
def test_gap_size_hand_lists(distances, expected):
    assert gap_size(distances) == expected


@pytest.mark.slow
def test_identical_tasks_are_within_noise_one_cluster_and_all_selected():
    # Three samples of one network: their direct distances must not exceed the
    # permutation noise floor, so clustering keeps them together and selection
    # keeps them all (issue 13).
    from mtbn.networks import load_network, sample
    from mtbn.relatedness import cluster_tasks, direct_relatedness, select_tasks

    net = load_network("sachs")
    tasks = {f"t{i}": sample(net, 300, random_state=10 + i).to_dataframe() for i in range(3)}
    kw = dict(n_restarts=1, random_state=0, noise_floor=4)
    rel = direct_relatedness(tasks, **kw)
    assert rel.floor >= 0 and len(rel.null_max) == 4
    assert rel.floor == rel.null_max.max()  # with 4 replicates the 0.95 quantile is the largest
    assert rel.within_noise().values.all()
    assert cluster_tasks(tasks, **kw).n_clusters == 1
    sel = select_tasks(tasks, "t0", **kw)
    assert sel.n_selected == 2 and sel.n_within_noise == 2


@pytest.mark.slow
def test_unrelated_tasks_are_not_within_noise():
    from mtbn.benchmarks import make_problem
    from mtbn.networks import sample
    from mtbn.relatedness import direct_relatedness

    nets = make_problem("sachs-unrelated", n_tasks=3, random_state=1)
    tasks = {f"t{i}": sample(n, 1000, random_state=i).to_dataframe() for i, n in enumerate(nets)}
    rel = direct_relatedness(tasks, n_restarts=1, random_state=0, noise_floor=4)
    off = ~np.eye(3, dtype=bool)
    assert not rel.within_noise().values[off].any()
    # the floor is the same for any n_jobs, and absent for tasks over different variables
    from mtbn.relatedness import noise_floor

    assert noise_floor(tasks, n_restarts=1, n_perm=4, n_jobs=2)[0] == noise_floor(tasks, n_restarts=1, n_perm=4)[0]
    partial = dict(tasks, t2=tasks["t2"].drop(columns=[tasks["t2"].columns[0]]))
    assert np.isnan(noise_floor(partial, n_restarts=1, n_perm=2)[0])


@pytest.mark.slow
def test_noise_floor_does_not_depend_on_the_order_of_the_tasks():
    from mtbn.benchmarks import make_problem
    from mtbn.networks import sample
    from mtbn.relatedness import noise_floor

    nets = make_problem("sachs", n_tasks=3, random_state=2)
    tasks = {f"t{i}": sample(n, 200 + 50 * i, random_state=i).to_dataframe() for i, n in enumerate(nets)}
    forward = noise_floor(tasks, n_restarts=1, n_perm=3)
    backward = noise_floor(dict(reversed(list(tasks.items()))), n_restarts=1, n_perm=3)
    assert forward[0] == backward[0]
    np.testing.assert_array_equal(forward[1], backward[1])


def test_the_direct_measure_with_an_interval_names_a_one_value_column_once():
    """direct_relatedness learns the tasks (naming a column with one value everywhere) and bootstraps them at
    its penalty for the interval: the bootstrap's own check of the tasks must not name it again."""
    import warnings

    import pandas as pd

    from mtbn.relatedness.measures import direct_relatedness

    rng = np.random.default_rng(0)
    tasks = {n: pd.DataFrame({"x": rng.choice(["a", "b"], 60), "y": rng.choice(["a", "b"], 60), "z": "k"})
             for n in "abc"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        direct_relatedness(tasks, n_boot=3, n_restarts=0)
    assert sum("single value" in str(w.message) for w in caught) == 1
