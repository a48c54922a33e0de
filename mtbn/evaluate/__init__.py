"""Run learning methods on benchmark problems and record how close they get to the truth.

:func:`run_benchmark` is what ``mtbn bench`` runs: for each trial it draws the
true task networks of a problem (:mod:`mtbn.benchmarks`), samples training
and test data, runs the requested methods and records, per trial, method and
task, the edit distance to the true structure, the empirical KL divergence on
the test set, the test log-likelihood and the seconds spent. Each finished
trial is written to ``DIR/trials/trial_NNNN.csv`` at once (atomically), so a
killed run resumes from the trials already written; a trial's results depend
only on the seed and the trial number, never on ``n_jobs`` or on the order in
which trials run.

Methods (paper Section 2.3.4):

* ``stl``: single-task hill climbing (tabu list, random restarts) on all
  training rows of each task;
* ``stl-all-states``: ``stl``'s structures with the networks
  ``learn_structures(prior="none")`` returns (each task's CPTs over the
  state lists of all tasks; ``stl`` fits each task's CPTs over its own
  states, which differ only when the tasks' columns hold other states, as
  in relabelled tasks);
* ``identical``: one structure for all tasks (the TSK method of Section
  2.3.1), parameters per task;
* ``pooled``: one network (structure and parameters) learned from all tasks'
  rows stacked;
* ``mtl``: multitask learning as ``learn_structures`` does by default:
  Paired prior, reversals counted twice, transfer decided per task, penalty
  chosen by 5-fold cross-validation with the one-standard-error rule, the
  negative-transfer guard, parameter sharing, structures and parameters
  learned on all rows;
* ``mtl-paper``: the paper's rule: penalty with the best log-likelihood on a
  validation split (``validation`` rows per task), no guard; structures and
  parameters then learned on all rows at that penalty;
* ``mtl-edit``, ``mtl-single``: ``mtl`` with the Edit prior, or with the
  Paired prior counting a reversal once;
* ``mtl-per-task``: ``mtl`` with ``transfer_per_task=True`` (tasks whose
  own relatedness test fails are learned alone, the rest jointly);
* ``mtl-all-tasks``: ``mtl`` with ``transfer_per_task=False`` (the guard
  decides for all tasks at once: the default before 2026-11-26);
* ``mtl-oracle``: the grid point of ``mtl-paper``'s penalty path (structures
  learned on the training split) with the lowest mean edit distance to the
  true structures (the headroom of a perfect penalty choice);
* ``mtl@DELTA``: multitask learning at a fixed penalty on all rows, started
  from the ``stl`` solution (penalty sweeps).

Per task the results hold the edit distance (reversal = 1), the structural
Hamming distance between CPDAGs (``cpdag_shd``: reversals the data cannot
decide cost nothing), the number of such undecidable reversals, KL, test
log-likelihood, seconds, the penalty used and, for ``mtl``-family methods
with an automatic penalty, the negative-transfer guard's status.
"""

from mtbn.evaluate.methods import METHODS, RESULT_COLUMNS, fixed_penalty, fixed_penalty_method, method_order
from mtbn.evaluate.plots import plot_results
from mtbn.evaluate.summaries import paired_table, summarise
from mtbn.evaluate.trials import _fit_all, _true_dag, run_benchmark, run_trial, trial_data

__all__ = ["run_benchmark", "summarise", "METHODS", "RESULT_COLUMNS", "run_trial"]
