"""Tests of mtbn.graph: DAG, edit distance and the SearchGraph search state.

Independent truths: networkx (acyclicity, ancestors), hand-counted edit
distances, and the metric axioms of the edit distance.
"""

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtbn.exceptions import CycleError, InvalidParameterError
from mtbn.graph import DAG, SearchGraph, edit_distance, topological_order


# ---------------------------------------------------------------------------
# DAG
# ---------------------------------------------------------------------------


def test_dag_rejects_cycles():
    with pytest.raises(CycleError, match="not a DAG"):
        DAG([{1}, {0}])
    with pytest.raises(CycleError, match="not a DAG"):
        DAG([{2}, {0}, {1}], names=["a", "b", "c"])
    with pytest.raises(CycleError, match="not a DAG: it has the directed cycle b -> c -> d -> b"):
        DAG.from_edges(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")])
    with pytest.raises(CycleError, match="not a DAG: it has the directed cycle x -> y -> x"):
        DAG.from_networkx(nx.DiGraph([("x", "y"), ("y", "x")]))


def test_dag_rejects_self_loops_and_bad_parents():
    with pytest.raises(InvalidParameterError, match="node '0' has an invalid parent set"):
        DAG([{0}])
    with pytest.raises(InvalidParameterError, match="node '0' has an invalid parent set"):
        DAG([{3}, set()])
    with pytest.raises(InvalidParameterError, match="names has 1 entries for 2 nodes"):
        DAG([set(), set()], names=["only-one"])
    with pytest.raises(InvalidParameterError, match="unknown node"):
        DAG.from_edges(["a", "b"], [("a", "z")])


def test_topological_order_raises_cycle_error():
    assert topological_order([set(), {0}, {0, 1}]) == [0, 1, 2]
    with pytest.raises(CycleError, match="directed cycle 0 -> 1 -> 2 -> 0"):  # 2 -> 0, 0 -> 1, 1 -> 2
        topological_order([{2}, {0}, {1}])


def test_from_edges_accessors():
    g = DAG.from_edges(["a", "b", "c"], [("a", "b"), ("a", "c"), (1, 2)])
    assert g.parents == (frozenset(), frozenset({0}), frozenset({0, 1}))
    assert g.edges() == [("a", "b"), ("a", "c"), ("b", "c")]
    assert g.edges(names=False) == [(0, 1), (0, 2), (1, 2)]
    assert g.n_nodes == 3 and g.n_edges == 3
    assert g.has_edge(0, 2) and not g.has_edge(2, 0)
    assert g.adjacency().tolist() == [[False, True, True], [False, False, True], [False, False, False]]
    assert DAG.empty(["x", "y"]).n_edges == 0


def test_networkx_round_trip():
    names = ["HR", "CO", "BP", "isolated"]
    edges = [("HR", "CO"), ("CO", "BP"), ("HR", "BP")]
    g = DAG.from_edges(names, edges)
    nxg = g.to_networkx()
    assert list(nxg.nodes) == names  # isolated nodes kept, order kept
    assert set(nxg.edges) == set(edges)
    assert nx.is_directed_acyclic_graph(nxg)
    back = DAG.from_networkx(nxg)
    assert back == g
    assert hash(back) == hash(g)
    # A graph built directly in networkx, with another node order.
    h = nx.DiGraph()
    h.add_nodes_from(["BP", "isolated", "CO", "HR"])
    h.add_edges_from(edges)
    assert DAG.from_networkx(h, names=names) == g
    assert DAG.from_networkx(h) != g  # other node order, other DAG
    assert set(DAG.from_networkx(h).edges()) == set(edges)
    with pytest.raises(InvalidParameterError, match="graph node 'isolated' is not a variable"):
        DAG.from_networkx(h, names=["HR", "CO", "BP"])


@st.composite
def _random_parents(draw, n_min=1, n_max=7):
    n = draw(st.integers(n_min, n_max))
    order = draw(st.permutations(range(n)))
    parents = [set() for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        if draw(st.booleans()):
            parents[order[j]].add(order[i])
    return parents


@settings(max_examples=50, deadline=None)
@given(_random_parents())
def test_random_dag_round_trips(parents):
    names = [f"v{i}" for i in range(len(parents))]
    g = DAG(parents, names)
    assert DAG.from_networkx(g.to_networkx(), names=names) == g
    assert DAG.from_edges(names, g.edges()) == g
    assert DAG.from_edges(names, g.edges(names=False)) == g
    assert edit_distance(g, g.to_networkx()) == 0


# ---------------------------------------------------------------------------
# Edit distance
# ---------------------------------------------------------------------------


def test_edit_distance_hand_example():
    names = ["a", "b", "c", "d", "e"]
    g1 = DAG.from_edges(names, [("a", "b"), ("b", "c"), ("c", "d"), ("a", "e")])
    g2 = DAG.from_edges(names, [("b", "a"), ("b", "c"), ("a", "d"), ("e", "a")])
    # {a,b}: reversed; {b,c}: same; {c,d}: deleted; {a,d}: added; {a,e}: reversed.
    assert edit_distance(g1, g2) == 2 * 1 + 1 + 1
    assert edit_distance(g1, g2, reversal="single") == 4
    assert edit_distance(g1, g2, reversal="double") == 2 * 2 + 1 + 1
    # Any representation: DAG, networkx, edge list.
    assert edit_distance(g1.to_networkx(), g2.edges()) == 4
    assert edit_distance(g1.edges(), g2, reversal="double") == 6
    # Docstring example.
    assert edit_distance([("a", "b"), ("b", "c")], [("b", "a"), ("a", "c")]) == 3


def test_edit_distance_single_reversal():
    g1 = [("x", "y")]
    g2 = [("y", "x")]
    assert edit_distance(g1, g2) == 1
    assert edit_distance(g1, g2, reversal="double") == 2
    assert edit_distance(g1, []) == 1
    assert edit_distance([], g2, reversal="double") == 1


def test_edit_distance_rejects_unknown_reversal_option():
    with pytest.raises(InvalidParameterError, match="reversal"):
        edit_distance([], [], reversal="triple")


def _hand_shd(p1, p2, cost):
    """SHD over all unordered pairs from adjacency matrices."""
    n = len(p1)
    total = 0
    for i, j in itertools.combinations(range(n), 2):
        s1 = (i in p1[j], j in p1[i])
        s2 = (i in p2[j], j in p2[i])
        if s1 != s2:
            total += cost if (any(s1) and any(s2)) else 1
    return total


@st.composite
def _three_dags(draw):
    n = draw(st.integers(2, 7))
    out = []
    for _ in range(3):
        order = draw(st.permutations(range(n)))
        parents = [set() for _ in range(n)]
        for i, j in itertools.combinations(range(n), 2):
            if draw(st.booleans()):
                parents[order[j]].add(order[i])
        out.append(DAG(parents, [f"n{i}" for i in range(n)]))
    return out


@settings(max_examples=100, deadline=None)
@given(_three_dags(), st.sampled_from(["single", "double"]))
def test_edit_distance_is_a_metric(dags, reversal):
    a, b, c = dags
    d = lambda x, y: edit_distance(x, y, reversal=reversal)  # noqa: E731
    assert d(a, a) == 0
    assert d(a, b) == d(b, a)
    assert d(a, c) <= d(a, b) + d(b, c)
    assert (d(a, b) == 0) == (a == b)
    cost = 2 if reversal == "double" else 1
    assert d(a, b) == _hand_shd(a.parents, b.parents, cost)


# ---------------------------------------------------------------------------
# SearchGraph against networkx
# ---------------------------------------------------------------------------


def _nx_graph(parents):
    g = nx.DiGraph()
    g.add_nodes_from(range(len(parents)))
    g.add_edges_from((p, v) for v, pa in enumerate(parents) for p in pa)
    return g


def _check_against_networkx(sg):
    n = sg.n
    g = _nx_graph(sg.parents)
    assert nx.is_directed_acyclic_graph(g)
    # adjacency and parent sets agree
    expected_adj = np.zeros((n, n), dtype=bool)
    for u, v in g.edges:
        expected_adj[u, v] = True
    assert np.array_equal(sg.adj, expected_adj)
    # anc[v, u] iff u is a proper ancestor of v
    expected_anc = np.zeros((n, n), dtype=bool)
    for v in range(n):
        for u in nx.ancestors(g, v):
            expected_anc[v, u] = True
    assert np.array_equal(sg.anc, expected_anc)
    for u in range(n):
        for v in range(n):
            if u == v:
                assert not sg.can_add(u, v)
                continue
            if g.has_edge(u, v):
                assert not sg.can_add(u, v)
                h = g.copy()
                h.remove_edge(u, v)
                h.add_edge(v, u)
                assert sg.can_reverse(u, v) == nx.is_directed_acyclic_graph(h), (u, v)
            else:
                h = g.copy()
                h.add_edge(u, v)
                assert sg.can_add(u, v) == nx.is_directed_acyclic_graph(h), (u, v)
    return g


@st.composite
def _graph_and_moves(draw):
    parents = draw(_random_parents(2, 7))
    moves = draw(
        st.lists(
            st.tuples(st.sampled_from(["add", "remove", "reverse"]), st.integers(0, 10**6), st.integers(0, 10**6)),
            max_size=40,
        )
    )
    return parents, moves


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_graph_and_moves())
def test_search_graph_moves_match_networkx(case):
    parents, moves = case
    sg = SearchGraph(parents)
    n = sg.n
    g = _check_against_networkx(sg)
    for kind, a, b in moves:
        h = g.copy()
        if kind == "add":
            u, v = a % n, b % n
            if u == v or g.has_edge(u, v):
                continue
            h.add_edge(u, v)
            if not nx.is_directed_acyclic_graph(h):
                continue
            sg.add(u, v)
        else:
            edges = sorted(g.edges)
            if not edges:
                continue
            u, v = edges[a % len(edges)]
            if kind == "remove":
                sg.remove(u, v)
            else:
                h.remove_edge(u, v)
                h.add_edge(v, u)
                if not nx.is_directed_acyclic_graph(h):
                    continue
                sg.reverse(u, v)
        g = _check_against_networkx(sg)
    # to_dag gives the same graph as networkx holds
    dag = sg.to_dag()
    assert set(dag.edges(names=False)) == set(g.edges)


def test_search_graph_copy_is_independent():
    sg = SearchGraph([set(), {0}, set()])
    cp = sg.copy()
    cp.add(1, 2)
    assert not sg.adj[1, 2] and 1 not in sg.parents[2]
    assert not sg.anc[2, 0]
    assert cp.anc[2, 0] and cp.anc[2, 1]


def test_search_graph_rejects_cyclic_start():
    with pytest.raises(CycleError, match="directed cycle 0 -> 2 -> 1 -> 0"):  # 1 -> 0, 2 -> 1, 0 -> 2
        SearchGraph([{1}, {2}, {0}])


def test_search_graph_long_chain_ancestors():
    n = 30
    sg = SearchGraph([set()] + [{i - 1} for i in range(1, n)])
    assert sg.anc[n - 1, :n - 1].all()
    assert not sg.can_add(n - 1, 0)
    assert sg.can_add(0, n - 1)  # a shortcut along the chain is acyclic
    sg.add(0, n - 1)
    assert not sg.can_reverse(0, n - 1)  # n-2 -> n-1 has 0 as an ancestor
    assert sg.can_reverse(0, 1)
    assert sg.can_reverse(n - 2, n - 1)  # n-1's other parent 0 is a root
