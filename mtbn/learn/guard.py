"""The negative-transfer guard: keep the multitask result only when it beats independent learning.

Two conditions (``docs/design.md``, "Negative-transfer guard"): the chosen
penalty's held-out log-likelihood exceeds that of delta = 0 by more than the
paired standard error of the difference (:class:`mtbn.heldout.ValidationScores`),
and the tasks' variables depend on each other more alike than under random
relabelling (:func:`mtbn.stats.relabelling_test`). :func:`check_transfer` is the
step the driver calls; it returns the verdict as a JSON-ready dict.
"""

import numpy as np

from mtbn._validation import format_penalty
from mtbn.learn.results import TransferVerdict
from mtbn.score import CountingScore, excess_log_bayes_factors, pairwise_log_bayes_factors
from mtbn.stats import level_strata, relabelling_test


#: The relabelling test's level and permutations (see :func:`_relatedness_check`).
RELATEDNESS_LEVEL = 0.01
RELATEDNESS_PERMUTATIONS = 999
#: ... fewer (not below 199) when k * m^2 * permutations would exceed this.
RELATEDNESS_WORK = 2e8
#: ... on each pair's excess evidence of dependence, floored at this many nats (:func:`dependence_evidence`).
RELATEDNESS_EVIDENCE = 2.0
#: ... and it needs at least this many variables shared by all tasks.
RELATEDNESS_MIN_VARIABLES = 8
#: ``transfer_per_task``: a task is left out only when its agreement with the others falls this many null
#: standard deviations below the median agreement of the tasks that pass their own test (and it fails its own).
LEAVE_OUT_SDS = 3.0


#: How the guard's message ends when it falls back to independent learning; :func:`pooled_instead` rewrites it when
#: the sharing step's pooled structure then replaced the single-task structures.
FALLBACK = "returning the single-task structures"


def pooled_instead(transfer):
    """The guard's verdict ``transfer`` (a dict, changed in place) once the sharing step's pooled structure has
    replaced the single-task structures it fell back to: its message says what was returned."""
    transfer["message"] = transfer["message"].replace(
        FALLBACK, "the single-task structures were then replaced by one structure learned from all tasks' rows "
        "pooled, which beat them on the held-out rows (see the sharing record)")


def _relatedness_check(scorers, local_index, seed):
    """Do the tasks' variables depend on each other alike, beyond chance?

    The multitask prior assumes similar structures. On held-out rows it can
    also win on unrelated tasks, as a plain sparsity penalty (it removes
    edges one task has and the others lack), which is not transfer. So the
    guard also asks whether the tasks share a dependence pattern at all:
    :func:`mtbn.stats.relabelling_test` on every task's pairwise BDeu log
    Bayes factors less their exact means under independence with the same
    marginals (:func:`mtbn.score.excess_log_bayes_factors`, all rows; the
    learner's equivalent sample size, 1 for BIC), floored at
    :data:`RELATEDNESS_EVIDENCE` nats (:func:`dependence_evidence`). Without
    that correction a factor's size on sparse tables follows both
    marginals, a pattern that unrelated tasks with alike marginals share and
    the relabelling below does not keep (pgmpy's BARLEY passed in every
    trial); without the floor, the noise of the many pairs with no evidence
    of dependence cost power at 50 rows (WIN95PTS-IND and ANDES-IND passed
    in 7 and 6 of 10 trials). Continuous tasks (a Gaussian score) keep the
    score's own factors: there the factor of two independent variables
    follows their sample correlation, whose law does not depend on the
    marginals. Each task's own test is run on both: ``["tasks"]`` on the
    raw factors, ``["tasks_excess"]`` on the corrected ones (the same
    permutations), and :func:`tasks_to_leave_out` leaves a task out when
    either says it is less related than the others. On the corrected factors
    alone the agreement of SACHS's 11 variables was too noisy to leave
    relabelled tasks out (docs/guide/penalty.rst: gaps of 2.9-3.5 null SDs
    against the required 3); on the raw factors alone a task whose variables
    only look like the others' (random structures, the same marginals:
    ``*-lookalike``) passed its own test (BARLEY). The test runs
    over the variables every task has, relabelling only among variables with the
    same number of states in that task (a Bayes factor's scale depends on
    the state counts, which alone made unrelated networks over the same
    variables look related), and within those, only among variables of a
    similar level (how strongly each depends on anything, in groups of about
    four: :func:`mtbn.stats.level_strata`); the factors' ranks are correlated
    after each variable's own level is taken out (``centre=True``). A
    variable's level follows its marginal and the strength of its
    mechanisms, which tasks over the same measured variables share whatever
    their structures (issue 47). None (not tested) when fewer than
    :data:`RELATEDNESS_MIN_VARIABLES` shared variables share their state
    count with another one: with m variables
    there are only m! relabellings and few pairs, so the test cannot reach
    its level on small networks (on 8-variable ASIA tasks p is already near
    0.01 at times); cross-validation alone decides there.
    """
    common = np.flatnonzero(np.all(local_index >= 0, axis=0))
    if len(scorers) < 2:
        return None
    arities = np.array([np.asarray(s.arities)[local_index[t, common]] for t, s in enumerate(scorers)])
    if min(_movable(a) for a in arities) < RELATEDNESS_MIN_VARIABLES:
        return None
    raw = [pairwise_log_bayes_factors(s, local_index[t, common]) for t, s in enumerate(scorers)]
    if not all(isinstance(s, CountingScore) for s in scorers):
        return relatedness_of(raw, arities, seed)
    test = relatedness_of([dependence_evidence(s.data, local_index[t, common], getattr(s, "ess", 1.0))
                           for t, s in enumerate(scorers)], arities, _fresh(seed))
    # the per-task tests on both factors (see the docstring): "tasks" on the raw ones, as before the correction
    test["tasks_excess"], test["tasks"] = test["tasks"], relatedness_of(raw, arities, _fresh(seed))["tasks"]
    return test


def _fresh(seed):
    """The same seed for a second test: a SeedSequence counts the children spawned from it, so it is copied."""
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size)
    return seed


def dependence_evidence(data, variables, ess=1.0):
    """What the relatedness test correlates, per pair of ``variables`` of one task's ``data``: the BDeu log Bayes
    factor's excess over its mean under independence (:func:`mtbn.score.excess_log_bayes_factors`), floored at
    :data:`RELATEDNESS_EVIDENCE` nats, so that the pairs without that much evidence of dependence tie instead of
    ranking their noise. Shared with ``experiments/relatedness_baseline_probe.py``."""
    return np.maximum(excess_log_bayes_factors(data, variables, ess), RELATEDNESS_EVIDENCE)


def relatedness_of(mats, arities, seed):
    """:func:`_relatedness_check`'s test on given dependence matrices (one per task, over the shared variables)
    and those variables' state counts per task (``arities``, one row per task): relabelling within state count
    and level, each variable's level taken out. Shared with ``experiments/relatedness_baseline_probe.py``,
    which tests other matrices the same way."""
    work = len(mats) * len(mats[0]) ** 2
    n_perm = int(max(199, min(RELATEDNESS_PERMUTATIONS, RELATEDNESS_WORK // work)))
    strata = np.array([level_strata(b, a) for b, a in zip(mats, arities)])
    out = relabelling_test(mats, n_perm, seed, strata=strata, centre=True)
    out.update(level=RELATEDNESS_LEVEL, variables=int(len(mats[0])))
    return out


def tasks_to_leave_out(test):
    """The tasks ``transfer_per_task`` learns alone, from a relatedness test's per-task results, or ``[]``.

    A task's own test (its dependences against the others', relabelling only
    that task) has little power with few rows, and leaving a related task
    out costs it all its transfer. So a task is left out only with evidence
    that it is *less* related than the others, not for a mere lack of
    evidence that it is related: its own p-value is not below the level,
    and its agreement with the others beyond what relabelling gives
    (``statistic - null_mean``) falls :data:`LEAVE_OUT_SDS` null standard
    deviations below the median agreement of the tasks that pass their own
    test. That is read on each set of per-task results the test has
    (``test["tasks"]`` and, when present, ``test["tasks_excess"]``:
    :func:`leave_out_by`), and a task is left out when either set says so.
    At least two tasks must remain (otherwise nothing is left out).
    """
    found = leave_out_by(test)
    out = sorted(set().union(*found.values()))
    return out if test is not None and len(test["tasks"]) - len(out) >= 2 else []


#: The per-task results of a relatedness test (:func:`_relatedness_check`) that :func:`tasks_to_leave_out` reads:
#: on the raw log Bayes factors, and on their excess over independence (discrete tasks).
PER_TASK_RESULTS = ("tasks", "tasks_excess")


def leave_out_by(test):
    """Per set of per-task results of ``test`` (a key of :data:`PER_TASK_RESULTS` present in it), the tasks
    it says are less related than the others (own test failed, agreement :data:`LEAVE_OUT_SDS` null SDs below
    the passing tasks' median); ``{}`` without a test."""
    if test is None:
        return {}
    found = {}
    for key in PER_TASK_RESULTS:
        gaps = agreement_gaps(test, key)
        if gaps is not None:
            found[key] = [t for t, (r, gap) in enumerate(zip(test[key], gaps))
                          if not r["p_value"] < RELATEDNESS_LEVEL and gap >= LEAVE_OUT_SDS]
    return found


def agreement_gaps(test, key="tasks"):
    """Per task, how many null SDs its agreement with the others (``statistic - null_mean``) falls below the
    median agreement of the tasks that pass their own test, read on ``test[key]``; None without a test, without
    that key, or with fewer than two passing."""
    reference = agreement_reference(test, key)
    if reference is None:
        return None
    gaps = []
    for r in test[key]:
        below = reference - (r["statistic"] - r["null_mean"])
        gaps.append(below / r["null_sd"] if r["null_sd"] > 0 else (np.inf if below > 0 else 0.0))
    return gaps


def agreement_reference(test, key="tasks"):
    """The median agreement (``statistic - null_mean``) of the tasks that pass their own test in ``test[key]``;
    None without a test, without that key, or with fewer than two passing."""
    if test is None or key not in test:
        return None
    passing = [r["statistic"] - r["null_mean"] for r in test[key] if r["p_value"] < RELATEDNESS_LEVEL]
    return float(np.median(passing)) if len(passing) >= 2 else None


def _movable(arities):
    """How many variables a relabelling within equal state counts can move (those not alone in their count)."""
    _, counts = np.unique(arities, return_counts=True)
    return int(counts[counts > 1].sum())


#: What the gains of the guard's verdict and of the sharing step are measured on (``transfer["estimates"]``).
IN_SELECTION = ("in-selection: the held-out rows of the folds that chose the penalty, the sharing strength and the "
                "pooled structure; optimistic for the rows of a new sample (an outer cross-validation around the "
                "learner gives that)")


def _transfer_check(scores, grid, chosen, task_names, rule, n_folds, force, related=None):
    """The negative-transfer guard: is the chosen penalty better than delta = 0 on held-out rows?

    Transfer is accepted when the chosen penalty's mean held-out
    log-likelihood exceeds that of independent learning (delta = 0) by more
    than the paired standard error of the difference, and the tasks'
    dependences are more alike than under random relabelling of their
    variables (``related``, from :func:`_relatedness_check`, p below
    :data:`RELATEDNESS_LEVEL`; skipped when None). Per task, the same
    comparison names the tasks that gain ("helped"), lose ("hurt") or
    neither ("unclear").
    """
    zero = grid.index(0.0)
    gain, se, d_t, se_t = scores.difference(chosen, zero)
    tasks = {
        name: ({"gain": float(g), "se": float(e),
                "verdict": "helped" if g > e else ("hurt" if g < -e else "unclear")} if np.isfinite(g)
               else {"gain": None, "se": None, "verdict": "not scored (too few rows to hold any out)"})
        for name, g, e in zip(task_names, d_t, se_t)
    }
    where = f"{n_folds}-fold cross-validation" if n_folds > 1 else "the validation split"
    verdict = "kept (force_transfer)" if force else "rejected"
    penalty = format_penalty(grid[chosen])
    if grid[chosen] == 0.0:
        status = "none"
        message = f"no transfer: rule {rule!r} on {where} chose penalty 0 (independent learning); {FALLBACK}"
    elif gain > se and related is not None and related["p_value"] >= related["level"]:
        status = "forced" if force else "rejected"
        message = (f"transfer {verdict}: penalty {penalty} "
                   f"wins on {where} (gain {gain:.4g} nats per row, SE {se:.2g}; in-selection), but the tasks' "
                   "variables "
                   "depend on each other no more alike than under random relabelling "
                   f"(p = {related['p_value']:.2g}): the tasks look unrelated and the gain is regularisation, "
                   "not transfer" + ("" if force else f"; {FALLBACK}"))
    elif gain > se:
        status = "accepted"
        message = (f"transfer accepted: penalty {penalty} beats independent learning by "
                   f"{gain:.4g} nats per held-out row (SE {se:.2g}; in-selection: on the rows that chose it) on "
                   f"{where}")
    else:
        status = "forced" if force else "rejected"
        message = (f"transfer {verdict}: penalty {penalty} "
                   f"does not beat independent learning by more than one standard error on {where} "
                   f"(gain {gain:.4g} nats per row, SE {se:.2g}; in-selection)"
                   + ("" if force else f"; {FALLBACK}"))
    if related is not None:
        for name, r in zip(task_names, related["tasks"]):
            tasks[name]["relatedness"] = r
    hurt = [n for n, v in tasks.items() if v["verdict"] == "hurt"]
    if hurt and status in ("accepted", "forced"):
        message += f"; tasks that lose on held-out rows: {', '.join(hurt)}"
    return TransferVerdict(status=status, message=message, selected_penalty=float(grid[chosen]), gain=gain, se=se,
                           rule=rule, folds=n_folds, tasks=tasks, estimates=IN_SELECTION,
                           relatedness=None if related is None else {k: v for k, v in related.items()
                                                                     if k not in PER_TASK_RESULTS})


def check_transfer(scores, grid, chosen, task_names, *, rule, n_folds, force, scorers, local_index, seed,
                   related=False):
    """The guard's verdict on ``grid[chosen]`` and the penalty to learn with (0.0 when transfer is rejected).

    ``scores`` are the grid points' held-out scores; ``scorers`` score all
    rows of every task (the relabelling test reads their one-parent scores);
    ``seed`` keys the test's permutations. ``related``: the relatedness test
    already run on the same scorers and seed (its result, None included), so
    it is not run twice.
    """
    if related is False:
        related = _relatedness_check(scorers, local_index, seed)
    transfer = _transfer_check(scores, grid, chosen, task_names, rule, n_folds, force, related)
    return transfer, (grid[chosen] if transfer.transferred else 0.0)


def one_task_verdict(rule):
    """The guard's record for a single task: nothing to couple, so no penalty to choose."""
    return TransferVerdict(status="none", message="one task: learned on its own (no penalty to choose)",
                           selected_penalty=0.0, gain=0.0, se=0.0, rule=rule, folds=0, tasks={})
