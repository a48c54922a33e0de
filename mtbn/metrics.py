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
    """Mean log-likelihood per row (natural log) of ``data`` under ``network``."""
    return float(log_likelihood(network, data))


def undecidable_reversals(learned, truth):
    """Edges of ``learned`` reversed with respect to ``truth`` whose direction ``truth``'s CPDAG leaves open.

    Such a reversal costs one edit in :func:`edit_distance` but nothing in
    :func:`cpdag_distance` when the rest of the class agrees: no amount of
    data from ``truth`` can decide it.
    """
    learned_edges = set(nodes_and_edges(learned)[1])
    true_edges = set(nodes_and_edges(truth)[1])
    _, reversible = essential_graph(truth)
    return sum((v, u) in true_edges and frozenset((u, v)) in reversible for u, v in learned_edges)


def kl_divergence(true_network, learned_network, test_data):
    """Empirical KL divergence ``mean(log p_true - log p_learned)`` on ``test_data``.

    ``test_data`` should be a large sample from ``true_network``. The value
    is 0 for a network against itself.
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
    """Edges present in every one of ``true_graphs``."""
    sets = [_edge_set(g) for g in true_graphs]
    return set.intersection(*sets) if sets else set()


def edge_scores(learned, truth, *, shared=None):
    """Precision and recall of directed edges (a reversed edge counts as wrong).

    Parameters
    ----------
    learned, truth : DAG, networkx.DiGraph, BayesianNetwork or edge list
    shared : set of edges, optional
        Edges common to all tasks' truths; when given, recall is also
        reported separately for shared and task-specific true edges.

    Returns
    -------
    dict with ``precision``, ``recall`` and, with ``shared``,
    ``recall_shared`` and ``recall_specific`` (NaN when there are none).
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
