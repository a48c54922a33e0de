"""Graph comparisons the reports draw and tabulate.

Edges are matched by node name; any structure :func:`mtbn.graph.nodes_and_edges`
accepts (a DAG, a networkx or pgmpy graph, a network, edge pairs) may be
given. Nothing here checks acyclicity.
"""

from mtbn.graph import nodes_and_edges

__all__ = ["compare_structures"]


def compare_structures(graph, reference):
    """Edges of ``graph`` compared with those of ``reference`` (matched by node name).

    Parameters
    ----------
    graph : DAG, networkx or pgmpy graph, BayesianNetwork or list of (parent, child)
        The structure compared; anything :func:`mtbn.graph.nodes_and_edges` accepts.
    reference : DAG, networkx or pgmpy graph, BayesianNetwork or list of (parent, child)
        The structure it is compared with, in the same forms.

    Returns
    -------
    dict
        ``added`` (in ``graph`` only), ``removed`` (in ``reference`` only),
        ``reversed`` (present in both with opposite directions; given in
        ``graph``'s direction) and ``unchanged`` edges, each a sorted list of
        ``(parent, child)`` names.

    Examples
    --------
    >>> compare_structures([("a", "b"), ("c", "b")], [("b", "a"), ("a", "c")])["reversed"]
    [('a', 'b')]
    """
    new, old = set(nodes_and_edges(graph)[1]), set(nodes_and_edges(reference)[1])
    return {
        "added": sorted(e for e in new if e not in old and e[::-1] not in old),
        "removed": sorted(e for e in old if e not in new and e[::-1] not in new),
        "reversed": sorted(e for e in new if e not in old and e[::-1] in old),
        "unchanged": sorted(new & old),
    }


def _cluster_members(labels):
    """``{cluster: [task, ...]}`` in the order of ``labels`` (a dict task -> cluster)."""
    members = {}
    for task, cluster in labels.items():
        members.setdefault(cluster, []).append(task)
    return members


def _tasks_with_edge(edge_lists):
    """``{edge: [task, ...]}`` from ``{task: edges}``, edges in order of first appearance."""
    having = {}
    for task, edges in edge_lists.items():
        for edge in dict.fromkeys(edges):
            having.setdefault(edge, []).append(task)
    return having
