"""Multitask structure priors (paper eqs. 2.6-2.8) and their exact pair solvers.

Both priors factorise over unordered node pairs ``(i, j)``, ``i < j``: the
*state* of a pair in task ``t`` is 0 (no edge), 1 (``i -> j``) or 2
(``j -> i``), and

    log P(G_1..G_k) = c * sum_t log P(G_t) + sum_{i<j} phi(s_1, ..., s_k) + const,

with ``c = 1 / (1 + (k - 1) delta)`` and ``L = log(1 - delta)`` (``-inf`` at
``delta = 1``, where a zero count times ``L`` is 0, never NaN):

* **Edit** (eq. 2.7): ``phi = L * edits``, ``edits`` the fewest edge edits
  that make the pair the same in every task, i.e.
  ``min_z sum_t D[s_t, z]``;
* **Paired** (eq. 2.8): ``phi = L / (k - 1) * sum_{t<u} W[t, u] D[s_t, s_u]``
  with pair weights ``W`` (all ones in the paper).

``D[a, b]`` is 0 when ``a == b``, 1 when one of them is "no edge", and the
reversal cost (1 for ``reversal="single"``, 2 for ``"double"``) when the
edges point in opposite directions. A task that lacks ``X_i`` or ``X_j``
takes no part in pair ``(i, j)`` and incurs no penalty for it.

A *pair problem* asks for the configuration ``s`` maximising
``sum_t G[t, s_t] + phi(s)`` given each task's gains ``G[t, :]`` (the change
of its local scores, ``-inf`` for illegal moves). Each prior solves it
exactly and vectorised over many pairs:

* Edit: ``phi`` is a maximum over the consensus state ``z`` of terms that
  separate per task, so the optimum is ``max_z sum_t max_s (G[t, s] + L D[s, z])``,
  O(k) per pair;
* Paired with equal weights: ``phi`` depends only on the counts ``(n1, n2)``
  of tasks in states 1 and 2, so a dynamic programme over tasks on those
  counts is exact, O(k^3) per pair;
* Paired with a general weight matrix has no such structure and is solved by
  branch and bound (:func:`mtbn.joint.solve_branch_and_bound`), which reads
  each prior's term of a partial configuration through ``prior.bound``.

Priors assume validated arguments (see :func:`make_prior`).

The package holds one concept per module: :mod:`~mtbn.priors.base` (the
protocol a prior follows), :mod:`~mtbn.priors.edit`,
:mod:`~mtbn.priors.paired` and :mod:`~mtbn.priors.independent` (the
priors), :mod:`~mtbn.priors.kernels` (the Paired prior's vectorised pair
solvers) and :mod:`~mtbn.priors.registry` (names, :func:`register_prior`,
:func:`make_prior`).
"""

from mtbn.priors.base import MultitaskPrior, log1m, state_max
from mtbn.priors.edit import EditPrior
from mtbn.priors.independent import IndependentPrior
from mtbn.priors.paired import PairedPrior
from mtbn.priors.registry import PRIORS, make_prior, register_prior

__all__ = ["MultitaskPrior", "EditPrior", "PairedPrior", "IndependentPrior", "make_prior", "register_prior", "PRIORS",
           "log1m", "state_max"]
