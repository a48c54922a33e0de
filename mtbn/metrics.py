"""Compare learned structures and networks with the truth.

* :func:`mtbn.graph.edit_distance` (re-exported): edge additions, deletions
  and reversals between two DAGs (the paper's footnote 6).
* :func:`mtbn.graph.cpdag_distance` (re-exported): structural Hamming
  distance between essential graphs (CPDAGs), which does not count
  reversals the data cannot decide; :func:`undecidable_reversals` counts
  those reversals.
* :func:`kl_divergence`: empirical KL divergence of a learned network from
  the true one on a test set sampled from the true network, the mean over
  rows of ``log p_true(x) - log p_learned(x)`` (the paper's "average
  empirical KL-divergence computed on a large test set").
* :func:`mean_log_likelihood`.
* :func:`edge_scores`: precision and recall of edges, overall and split into
  edges shared by every task's truth and task-specific edges.

The functions assume that the networks and the data name the same variables.
"""

import numpy as np

from mtbn.graph import cpdag_distance, edit_distance, essential_graph, nodes_and_edges
from mtbn.networks import log_likelihood

__all__ = ["edit_distance", "cpdag_distance", "undecidable_reversals", "kl_divergence", "mean_log_likelihood", "edge_scores", "shared_edges"]


def mean_log_likelihood(network, data):
    """Mean log-likelihood per row (natural log) of ``data`` under ``network``.

    Parameters
    ----------
    network : BayesianNetwork
        The network with its parameters (CPTs).
    data : DiscreteData
        The rows to score, matched to the network's variables by name and recoded by state label (see
        :func:`mtbn.networks.log_likelihood`); it must have at least one row.

    Returns
    -------
    float
        The mean over rows of ``log p(x)``; ``-inf`` if some row has probability zero under ``network``.
    """
    return float(log_likelihood(network, data))


def undecidable_reversals(learned, truth):
    """Edges of ``learned`` reversed with respect to ``truth`` whose direction ``truth``'s CPDAG leaves open.

    Such a reversal costs one edit in :func:`edit_distance` but nothing in
    :func:`cpdag_distance` when the rest of the class agrees: no amount of
    data from ``truth`` can decide it.

    Parameters
    ----------
    learned : DAG, networkx.DiGraph, BayesianNetwork or iterable of (parent, child)
        The learned structure (any form :func:`mtbn.graph.nodes_and_edges` takes), matched to ``truth`` by
        node name.
    truth : DAG, networkx.DiGraph, BayesianNetwork or iterable of (parent, child)
        The true DAG, whose CPDAG decides which edge directions are open.

    Returns
    -------
    int
        The number of edges ``u -> v`` of ``learned`` such that ``v -> u`` is in ``truth`` and is reversible
        (undirected) in ``truth``'s CPDAG.
    """
    learned_edges = set(nodes_and_edges(learned)[1])
    true_edges = set(nodes_and_edges(truth)[1])
    _, reversible = essential_graph(truth)
    return sum((v, u) in true_edges and frozenset((u, v)) in reversible for u, v in learned_edges)


def kl_divergence(true_network, learned_network, test_data):
    """Empirical KL divergence ``mean(log p_true - log p_learned)`` on ``test_data``.

    ``test_data`` should be a large sample from ``true_network``. The value
    is 0 for a network against itself.

    Parameters
    ----------
    true_network : BayesianNetwork
        The network the test data were sampled from.
    learned_network : BayesianNetwork
        The learned network (structure and parameters) over the same variables.
    test_data : DiscreteData
        The test rows, matched to each network by variable name and recoded by state label
        (see :func:`mtbn.networks.log_likelihood`).

    Returns
    -------
    float
        The mean over the rows of ``log p_true(x) - log p_learned(x)`` (natural log); ``inf`` when the learned
        network gives probability zero to a row the true one does not.
    """
    lt = log_likelihood(true_network, test_data, per_row=True)
    ll = log_likelihood(learned_network, test_data, per_row=True)
    return float(np.mean(lt - ll))


def _edge_set(graph):
    if hasattr(graph, "edges") and callable(graph.edges):
        try:
            return set(graph.edges(names=True))
        except TypeError:
            return {(str(u), str(v)) for u, v in graph.edges()}
    if hasattr(graph, "edges"):
        return set(graph.edges)
    return {(str(u), str(v)) for u, v in graph}


def shared_edges(true_graphs):
    """Edges present in every one of ``true_graphs``.

    Parameters
    ----------
    true_graphs : sequence of DAG, networkx.DiGraph, BayesianNetwork or edge list
        The tasks' true structures; edges are compared as ``(parent, child)`` name pairs.

    Returns
    -------
    set of tuple
        The ``(parent, child)`` edges found in every graph (the ``shared`` argument of :func:`edge_scores`);
        empty when ``true_graphs`` is empty.
    """
    sets = [_edge_set(g) for g in true_graphs]
    return set.intersection(*sets) if sets else set()


def edge_scores(learned, truth, *, shared=None):
    """Precision and recall of directed edges (a reversed edge counts as wrong).

    Parameters
    ----------
    learned, truth : DAG, networkx.DiGraph, BayesianNetwork or edge list
        The learned and the true structure, compared as sets of ``(parent, child)`` name pairs.
    shared : set of edges, optional
        Edges common to all tasks' truths; when given, recall is also
        reported separately for shared and task-specific true edges.

    Returns
    -------
    dict
        ``precision`` (share of the learned edges that are true), ``recall`` (share of the true edges learned)
        and, with ``shared``, ``recall_shared`` and ``recall_specific``; each NaN when its denominator has no
        edges.
    """
    le, te = _edge_set(learned), _edge_set(truth)
    hit = le & te
    out = {
        "precision": len(hit) / len(le) if le else float("nan"),
        "recall": len(hit) / len(te) if te else float("nan"),
    }
    if shared is not None:
        ts, tp = te & shared, te - shared
        out["recall_shared"] = len(hit & ts) / len(ts) if ts else float("nan")
        out["recall_specific"] = len(hit & tp) / len(tp) if tp else float("nan")
    return out
