"""Task relatedness, task selection and task clustering (paper Section 2.4).

Two measures of how related tasks are:

* **direct** (Section 2.4.1): learn all tasks jointly with multitask learning
  at a mild penalty (delta = 0.9 by default), then the edit distance between
  two tasks' learned structures is their distance. The matrix is symmetric,
  zero on the diagonal and a metric. Edges listed in ``free_edges`` are
  free in the prior (penalty 0) and ignored by the distance.
* **indirect** (Section 2.4.2): learn each task's structure from its own
  data; for tasks ``s`` and ``e``, fit the parameters of ``s``'s structure on
  ``e``'s training folds and score ``e``'s held-out fold (10-fold
  cross-validation by default). ``log_likelihood[s, e]`` is the mean
  held-out log-likelihood per row of task ``e``'s data under task ``s``'s
  structure (rows: structure source, columns: evaluated task). The distance
  used for ordering is ``distance[e, s] = log_likelihood[e, e] -
  log_likelihood[s, e]``: how much worse task ``e``'s own data is explained
  by ``s``'s structure than by its own (row = the task being explained, e.g.
  the principal). Every candidate is scored on the same held-out data of
  ``e``, so the values in a row are comparable. It is not symmetric. When
  ``s`` and ``e`` have different variables, both structures are restricted
  to the variables they share (induced subgraphs) and only those are scored.

:func:`select_tasks` orders the other tasks by distance from a principal task
and learns with the closest ``N``; :func:`cluster_tasks` clusters the tasks
by average link on the direct distance and learns within each cluster.

Modules: :mod:`~mtbn.relatedness.measures` (the two measures and the noise
floor), :mod:`~mtbn.relatedness.selection` (:func:`select_tasks`),
:mod:`~mtbn.relatedness.clustering` (:func:`cluster_tasks`), and
:mod:`~mtbn.relatedness.learning` (how both learn a group of tasks). Both
choose by the held-out protocol of :mod:`mtbn.heldout`.
"""

from mtbn.relatedness.clustering import ClusteringResult, average_link_clusters, cluster_tasks
from mtbn.relatedness.measures import direct_relatedness, gap_size, indirect_relatedness, noise_floor, relatedness
from mtbn.relatedness.result import MEASURES, RelatednessResult
from mtbn.relatedness.selection import SelectionResult, select_tasks

__all__ = [
    "RelatednessResult",
    "SelectionResult",
    "ClusteringResult",
    "direct_relatedness",
    "indirect_relatedness",
    "relatedness",
    "select_tasks",
    "cluster_tasks",
    "gap_size",
    "noise_floor",
    "MEASURES",
]
