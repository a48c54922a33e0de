"""User-facing structure learning functions (the estimators are in :mod:`mtbn.estimators`).

The functions validate their inputs (data, constraints, start graphs, options)
and call the backends of :mod:`mtbn.search` and :mod:`mtbn.joint`. One job a
module:

* :mod:`~mtbn.learn.settings`: every setting of the learners, declared once
  (default, type, check, documentation, command-line option), read by the
  functions' signatures and docs, the estimators and the command line;
* :mod:`~mtbn.learn.checks`: argument checks (data, background knowledge,
  start graphs, options), shared with the estimators and the command line;
* :mod:`~mtbn.learn.single`: the single-task front end :func:`learn_structure`,
  the identical-structure method, and the single-task starts of the
  multitask search;
* :mod:`~mtbn.learn.multitask`: the driver :func:`learn_structures` (validate,
  seed, choose the penalty, guard, refit on all rows);
* :mod:`~mtbn.learn.starts`: the searches that start the joint searches
  (every fold's and the final one's), in one parallel section;
* :mod:`~mtbn.learn.grid`: the joint search at one penalty or along the grid;
* :mod:`~mtbn.learn.guard`: the negative-transfer guard;
* :mod:`~mtbn.learn.results`: what the driver returns.

Everything a caller needs is importable from :mod:`mtbn.learn` itself.
"""

from mtbn.learn.checks import (
    as_discrete_data,
    as_parent_sets,
    check_constraints,
    check_counts,
    constraint_matrices,
    edge_matrix,
)
from mtbn.learn.grid import DEFAULT_PENALTY_GRID, SELECTION_JOINT_RESTARTS, SELECTION_RESTARTS
from mtbn.learn.guard import (
    LEAVE_OUT_SDS,
    RELATEDNESS_LEVEL,
    RELATEDNESS_MIN_VARIABLES,
    RELATEDNESS_PERMUTATIONS,
    RELATEDNESS_WORK,
    _relatedness_check,
    _transfer_check,
    agreement_gaps,
    tasks_to_leave_out,
)
from mtbn.learn.multitask import learn_pooled_structures, learn_structures
from mtbn.learn.results import MultitaskResult, PenaltyPathPoint, TransferVerdict
from mtbn.learn.single import learn_identical_structures, learn_structure
from mtbn.learn.gaussian import learn_gaussian_structures
from mtbn.learn import interventional as _interventional  # noqa: F401  (installs learn_structures(interventions=))
from mtbn.learn import gaussian_interventions as _gaussian_interventions  # noqa: F401  (the same, continuous tasks)

__all__ = [
    "learn_structure",
    "learn_structures",
    "learn_identical_structures",
    "learn_pooled_structures",
    "learn_gaussian_structures",
    "MultitaskResult",
    "PenaltyPathPoint",
    "TransferVerdict",
    "DEFAULT_PENALTY_GRID",
]
