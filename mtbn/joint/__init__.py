"""Joint greedy search over the structures of several tasks (paper Section 2.3.2-2.3.3).

A *joint move* picks an unordered node pair ``(i, j)`` and, in every task,
adds, removes, reverses or keeps the edge between them, each task's graph
staying a DAG. Because the likelihood and both priors decompose, the gain of
a joint move is ``sum_t G[t, s_t] + phi(s) - phi(current)``, where
``G[t, s]`` is read off task ``t``'s delta table (:class:`mtbn.search.DeltaTable`:
per-task local-score deltas computed once and reused by every configuration
that shares them) and ``phi`` is the prior's pair term.

Best-neighbour solvers (all return the same best value; see below for ties):

* ``"exact"``: the prior's own exact solver, vectorised over all pairs
  (Edit: O(k) per pair; Paired with equal weights: O(k^3) DP);
* ``"bnb"``: depth-first branch and bound over partial configurations in task
  order with the bounds of eqs. 2.9 / 2.10 (partial prior + partial gains +
  the best gain of each unassigned task); general (pair-weight matrices);
* ``"exhaustive"``: all ``3^k`` configurations (tests and benchmarks);
* ``"auto"``: ``"exact"`` where the prior has one, else ``"bnb"``.

Ties: pairs whose best gains are within ``tol`` of the best are tied and the
first pair in ``(i, j)`` order wins; within that pair, the configuration is
the lexicographically smallest ``(s_1, ..., s_k)`` (state order: no edge,
``i -> j``, ``j -> i``) whose objective is within ``tol`` of the pair's best.
It is found task by task with the solver's own value oracle, so every solver
picks the same move.

The search assumes validated input (scorers, acyclic start graphs that
contain required edges, a prior built by :func:`mtbn.priors.make_prior`).

One job per module: ``solvers`` (best values of pair problems),
``configuration`` (the tie-broken best configuration of one pair), ``gains``
(task views, pair gains, joint moves), ``state`` (the search state and every
pair's cached value), ``climb`` (greedy and tabu phases), ``restarts``
(chains, perturbations), ``independent`` (uncoupled tasks), ``result`` and
``hill_climb`` (:func:`multitask_hill_climb`).
"""

from mtbn.joint.solvers import (
    SOLVERS,
    best_values,
    resolve_solver,
    solve_branch_and_bound,
    solve_excluding,
    solve_exhaustive,
    solve_pairs,
)
from mtbn.joint.configuration import (
    ENUMERATION_LIMIT,
    _best_by_enumeration,
    _fixing_best_configuration,
    best_configuration,
)
from mtbn.joint.gains import _edged_pairs, _IncrementalGains, _one_pair_gains, _pair_gains, _TaskView, local_constraints
from mtbn.joint.hill_climb import merge_chains, multitask_hill_climb
from mtbn.joint.result import MultitaskSearchResult
from mtbn.joint.state import MOVING_BATCH, _moving_bound
from mtbn.search import TIE_TOLERANCE

__all__ = [
    "MultitaskSearchResult",
    "multitask_hill_climb",
    "merge_chains",
    "best_values",
    "solve_pairs",
    "solve_branch_and_bound",
    "solve_excluding",
    "solve_exhaustive",
    "best_configuration",
    "SOLVERS",
]
