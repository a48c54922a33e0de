"""Running the benchmark: one trial of every method, and a resumable run of many trials."""

import hashlib
import json
from typing import Any
import os
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from mtbn._validation import check_n_jobs, check_random_state
from mtbn._version import __version__
from mtbn.benchmarks import COMPONENT_SPLITS, make_problem, problem_file, problem_source
from mtbn.data import DiscreteData, make_taskset
from mtbn.engine import job, parallel
from mtbn.exceptions import InvalidParameterError, TransferWarning
from mtbn.graph import DAG
from mtbn.learn import learn_identical_structures, learn_structure, learn_structures
from mtbn.messages import error, register
from mtbn.metrics import cpdag_distance, edit_distance, kl_divergence, mean_log_likelihood, undecidable_reversals
from mtbn.networks import fit_parameters, fits_in_tables, heldout_log_likelihood, log_likelihood, sample
from mtbn.progress import reporter

from mtbn.evaluate.methods import RESULT_COLUMNS, _check_methods, fixed_penalty
from mtbn.evaluate.plots import plot_results
from mtbn.evaluate.summaries import summarise

def _true_dag(net):
    return DAG([set(p) for p in net.parents], net.names)


def _fit(graph, data, ess):
    """The fitted network, or None when its CPTs would be too large to build (scored without them)."""
    if not fits_in_tables(graph, data):
        return None
    return fit_parameters(graph, data, equivalent_sample_size=ess)


def _fit_all(graphs, train, ess):
    """Every method's CPTs are fitted the same way: on each task's own rows and states.

    (The multitask learner's own networks use the union of the tasks' states for a
    shared column, which differs from a task's own states when columns are relabelled.)
    """
    return [_fit(g, d, ess) for g, d in zip(graphs, train)]


register("bench-count", InvalidParameterError, "{name} must be an integer >= {low}; got {value!r}.",
         cause="A benchmark size (trials, tasks, training or test rows) below its minimum.",
         fix="Pass a larger whole number.")
register("p-del-range", InvalidParameterError, "p_del must be in [0, 1]; got {value!r}.",
         cause="The probability of deleting each edge of the true network is outside [0, 1].",
         fix="Pass a probability, e.g. 0.05 as in the paper.")
register("bench-validation", InvalidParameterError, "validation={value!r} leaves no training rows (n_train={n_train}).",
         cause="The benchmark's validation rows are at least as many as its training rows.",
         fix="Hold out fewer rows or train on more.")
register("bench-other-settings", InvalidParameterError,
         "{out!r} holds a run with other settings ({config}); use another folder, or replace it "
         "(--overwrite on the command line).",
         cause="The output folder holds a benchmark run with different settings, so its trials cannot be resumed.",
         fix="Choose a new --out folder, or add --overwrite to start again in this one.")

def trial_data(problem, trial, *, seed=0, n_tasks=5, p_del=0.05, n_train=1000, n_test=20000):
    """One trial's true networks, training data (tasks ``task0``...), test samples, and the trial's rng.

    The rng continues the trial's stream (the methods' seeds are drawn from it).
    """
    rng = np.random.default_rng([int(seed), int(trial)])
    truths = make_problem(problem, n_tasks=n_tasks, p_del=p_del, random_state=rng)
    train = [
        DiscreteData(sample(net, n_train, random_state=rng).codes, net.names, net.states, f"task{t}")
        for t, net in enumerate(truths)
    ]
    test = [sample(net, n_test, random_state=rng) for net in truths]
    return truths, train, test, rng


def run_trial(problem, trial, *, seed=0, n_tasks=5, p_del=0.05, n_train=1000, validation=50,
              n_test=20000, methods=("stl", "identical", "pooled", "mtl", "mtl-oracle"),
              penalty_grid=None, n_restarts=20, ess=1.0, progress=None):
    """Run every method on one trial; returns a list of result dicts (``progress`` hears each method finish).

    The steps, each recording its rows: the single-task solution
    (:func:`_run_stl`), ``identical``, ``pooled``, the automatic-penalty
    multitask methods (:func:`_run_multitask`) and the fixed penalties
    (:func:`_run_fixed_penalties`). The methods' seeds are drawn from the
    trial's stream in that order, each only if its method is asked for.

    Parameters
    ----------
    problem : str or path-like
        A key of :data:`mtbn.benchmarks.PROBLEMS`, e.g. ``"alarm"``, or the path of a network file
        (:func:`mtbn.benchmarks.problem_source`): the true task networks each trial draws.
    trial : int
        The trial number, which with ``seed`` keys the trial's random stream.
    seed : int, default 0
        A non-negative seed; with the trial number it keys each trial's random stream
        (``numpy.random.default_rng([seed, trial])``), which draws the true networks, the data and the methods'
        seeds.
    n_tasks : int, default 5
        The number of tasks of the problem.
    p_del : float in [0, 1], default 0.05
        The probability that each edge of the original network is deleted in a task (see
        :func:`mtbn.benchmarks.make_problem`).
    n_train : int, default 1000
        Training rows sampled from each task's true network.
    validation : int or float, default 50
        The rows per task (a count, or a fraction of ``n_train``) held out by ``mtl-paper`` and ``mtl-oracle``
        to choose the penalty; unused by the other methods.
    n_test : int, default 20000
        Test rows sampled from each task's true network, on which KL and the log-likelihood are measured.
    methods : sequence of str, default ("stl", "identical", "pooled", "mtl", "mtl-oracle")
        The methods to run: names of :data:`~mtbn.evaluate.METHODS` or ``"mtl@DELTA"`` (multitask learning at
        the fixed penalty DELTA).
    penalty_grid : sequence of float, optional
        The penalties the automatic-penalty ``mtl`` methods choose from; None takes the learner's default grid.
    n_restarts : int, default 20
        Random restarts of the single-task, identical-structure and pooled searches and of the
        automatic-penalty ``mtl`` methods (``mtl@DELTA``, started from the ``stl`` structures, keeps the
        learner's default).
    ess : float, default 1.0
        The equivalent sample size of the BDeu score of every search (``k * ess`` for the identical structure of
        ``k`` tasks) and of the Dirichlet prior of the fitted CPTs.
    progress : None, bool, callable or mtbn.progress.Reporter, optional
        Where ``"trial T: METHOD learned in S s"`` goes as each method finishes (see
        :func:`mtbn.progress.reporter`).

    Returns
    -------
    list of dict
        One row per method and task, in the order the methods ran, keyed by
        :data:`~mtbn.evaluate.RESULT_COLUMNS`: the edit and CPDAG distances to the true structure, the
        undecidable reversals, KL and mean log-likelihood on the test rows, the seconds per task, the penalty
        (NaN where none) and the negative-transfer guard's status (empty where none).
    """
    truths, train, test, rng = trial_data(problem, trial, seed=seed, n_tasks=n_tasks, p_del=p_del,
                                          n_train=n_train, n_test=n_test)
    run = _TrialRun(int(trial), truths, train, test, [_true_dag(n) for n in truths], ess, n_restarts,
                    say=reporter(progress))
    # STL and every multitask method share one seed: STL is then exactly the
    # independent solution the multitask learner starts from (and returns when
    # its negative-transfer guard fires), not another draw of the same search.
    learn_seed = int(rng.integers(2**31))
    stl_graphs = _run_stl(run, methods, learn_seed)
    if "identical" in methods:
        _run_identical(run, rng)
    if "pooled" in methods:
        _run_pooled(run, rng)
    _run_multitask(run, methods, learn_seed, validation, penalty_grid)
    _run_fixed_penalties(run, methods, stl_graphs)
    return run.rows


@dataclass
class _TrialRun:
    """One trial's truth, data and settings, and the result rows recorded so far."""

    trial: int
    truths: list
    train: list
    test: list
    true_dags: list
    ess: float
    n_restarts: int
    rows: list = field(default_factory=list)
    say: Any = None

    def record(self, method, graphs, networks, seconds, penalty=float("nan"), transfer=""):
        """Add one row per task: distances to the true structure, KL and log-likelihood on the test set.

        ``transfer``: the guard's status, or one per task (``"alone"`` for a task ``transfer_per_task`` left out).
        """
        k = len(self.truths)
        if self.say is not None:
            self.say(f"trial {self.trial}: {method} learned in {seconds:.1f} s")
        for t in range(k):
            self.rows.append({
                "trial": self.trial, "method": method, "task": self.train[t].name, "penalty": penalty,
                "edit_distance": edit_distance(graphs[t], self.true_dags[t]),
                "cpdag_shd": cpdag_distance(graphs[t], self.true_dags[t]),
                "undecidable_reversals": undecidable_reversals(graphs[t], self.true_dags[t]),
                **self._test_scores(t, graphs[t], networks[t]),
                "seconds": seconds / k,
                "transfer": transfer if isinstance(transfer, str) else transfer[t],
            })

    def _test_scores(self, t, graph, network):
        """KL and mean log-likelihood on task ``t``'s test rows (without CPTs when ``network`` is None)."""
        if network is not None:
            return {"kl": kl_divergence(self.truths[t], network, self.test[t]),
                    "log_likelihood": mean_log_likelihood(network, self.test[t])}
        learned = heldout_log_likelihood(graph, self.train[t], self.test[t], equivalent_sample_size=self.ess)
        true = log_likelihood(self.truths[t], self.test[t], per_row=True)
        return {"kl": float(np.mean(true - learned)), "log_likelihood": float(learned.mean())}

    def record_fitted(self, method, graphs, seconds, penalty=float("nan"), transfer=""):
        """:meth:`record` with each task's CPTs fitted on its own rows (:func:`_fit_all`)."""
        self.record(method, graphs, _fit_all(graphs, self.train, self.ess), seconds, penalty, transfer)


def _run_stl(run, methods, learn_seed):
    """Single-task structures (recorded as ``stl`` if asked for), or None when no method needs them."""
    if not {"stl", "stl-all-states"} & set(methods) and not any(fixed_penalty(m) is not None for m in methods):
        return None
    t0 = time.perf_counter()
    stl = learn_structures(run.train, prior="none", equivalent_sample_size=run.ess, n_restarts=run.n_restarts,
                           random_state=learn_seed)
    secs = time.perf_counter() - t0
    if "stl" in methods:
        run.record_fitted("stl", stl.graphs, secs)
    if "stl-all-states" in methods:  # the networks learn_structures returns: every task over all tasks' states
        run.record("stl-all-states", stl.graphs, stl.networks, secs)
    return stl.graphs


def _run_identical(run, rng):
    """One structure for all tasks (TSK), learned with equivalent sample size ``k * ess`` over ``k`` tasks."""
    t0 = time.perf_counter()
    graphs, _ = learn_identical_structures(run.train, equivalent_sample_size=len(run.train) * run.ess,
                                           n_restarts=run.n_restarts, random_state=int(rng.integers(2**31)))
    run.record_fitted("identical", graphs, time.perf_counter() - t0)


def _run_pooled(run, rng):
    """One network learned from all tasks' rows stacked."""
    t0 = time.perf_counter()
    # One state list per variable across the tasks (they differ when the tasks' columns are relabelled).
    ts = make_taskset(run.train)
    pooled = ts.pooled()
    g = learn_structure(pooled, equivalent_sample_size=run.ess, n_restarts=run.n_restarts,
                        random_state=int(rng.integers(2**31))).graph
    net = _fit(g, pooled, run.ess)
    run.record("pooled", [g] * ts.n_tasks, [net] * ts.n_tasks, time.perf_counter() - t0)


def _run_multitask(run, methods, learn_seed, validation, penalty_grid):
    """The ``mtl`` variants with an automatic penalty, and ``mtl-oracle`` from ``mtl-paper``'s path."""
    variants = {"mtl": ("paired", "double", None), "mtl-paper": ("paired", "double", validation),
                "mtl-single": ("paired", "single", None), "mtl-edit": ("edit", "single", None),
                "mtl-per-task": ("paired", "double", None), "mtl-all-tasks": ("paired", "double", None)}
    # Transfer decided per task by the default ("auto"), always (mtl-per-task) or for all tasks at once; the
    # paper's rule and the prior variants decide it for all tasks at once, as when they were first measured.
    per_task = {"mtl": "auto", "mtl-per-task": True}
    oracle = "mtl-oracle" in methods
    for method, (prior, reversal, split) in variants.items():
        if not (method in methods or (method == "mtl-paper" and oracle)):
            continue
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TransferWarning)
            # The default's own settings (parameter sharing included) for mtl and mtl-per-task; the paper's rule
            # and the prior variants compare structures, each task's CPTs fitted alone.
            own = {} if method in ("mtl", "mtl-per-task", "mtl-all-tasks") else {"parameter_sharing": None}
            res = learn_structures(run.train, prior=prior, reversal=reversal, penalty="auto", validation=split,
                                   force_transfer=split is not None, equivalent_sample_size=run.ess,
                                   penalty_grid=penalty_grid, n_restarts=run.n_restarts, random_state=learn_seed,
                                   penalty_search="grid" if split is not None else "refine",
                                   transfer_per_task=per_task.get(method, False), **own)
        if method in methods:
            left_out = set(res.transfer.get("excluded", ()))
            status = [("alone" if name in left_out else res.transfer["status"]) for name in res.task_names]
            seconds = time.perf_counter() - t0
            if res.sharing_strength is None:
                run.record_fitted(method, res.graphs, seconds, res.penalty, status)
            else:  # the learner's CPTs, shrunk toward the pooled ones
                run.record(method, res.graphs, res.networks, seconds, res.penalty, status)
        if method == "mtl-paper" and oracle:
            dists = [np.mean([edit_distance(g, td) for g, td in zip(p.graphs, run.true_dags)])
                     for p in res.penalty_path]
            point = res.penalty_path[int(np.argmin(dists))]
            run.record_fitted("mtl-oracle", point.graphs, 0.0, point.penalty)


def _run_fixed_penalties(run, methods, stl_graphs):
    """Every ``mtl@DELTA`` method: multitask learning at that penalty, started from the STL solution."""
    for method in methods:
        delta = fixed_penalty(method)
        if delta is None:
            continue
        t0 = time.perf_counter()
        res = learn_structures(run.train, penalty=delta, start=stl_graphs, equivalent_sample_size=run.ess,
                               parameter_sharing=None)  # the structures are recorded (and fitted) on their own
        run.record_fitted(method, res.graphs, time.perf_counter() - t0, delta)


def _trial_is_complete(path, methods, n_tasks, say):
    """A stored trial file is reused only if it reads back with every column, method and task."""
    import pandas as pd

    if not os.path.exists(path):
        return False
    try:
        table = pd.read_csv(path)
        ok = (list(table.columns) == list(RESULT_COLUMNS) and set(table["method"]) == set(methods)
              and len(table) == len(methods) * n_tasks)
    except (OSError, ValueError, pd.errors.ParserError, pd.errors.EmptyDataError):
        ok = False
    if not ok:
        say(f"{path} is incomplete or from another version; running that trial again")
    return ok


def _trial_path(out, trial):
    return os.path.join(out, "trials", f"trial_{trial:04d}.csv")


def _write_rows(path, rows):
    import pandas as pd

    tmp = path + ".tmp"
    pd.DataFrame(rows, columns=list(RESULT_COLUMNS)).to_csv(tmp, index=False)
    os.replace(tmp, path)


def run_benchmark(problem, out, *, n_trials=10, seed=0, n_tasks=5, p_del=0.05, n_train=1000, validation=50,
                  n_test=20000, methods=("stl", "identical", "pooled", "mtl", "mtl-oracle"), penalty_grid=None,
                  n_restarts=20, n_jobs=1, progress=None, plots=True):
    """Run (or resume) a benchmark and write ``results.csv``, ``summary.md`` and plots to ``out``.

    Parameters
    ----------
    problem : str or path-like
        A key of :data:`mtbn.benchmarks.PROBLEMS`, e.g. ``"alarm"``, or the path of a network file
        (:func:`mtbn.benchmarks.problem_source`): the true task networks each trial draws.
    out : str or path-like
        The run's folder, created if missing: ``config.json`` (the settings), ``trials/trial_NNNN.csv`` (one
        file per finished trial), ``results.csv``, ``summary.md`` and the plots. A folder holding a run with
        the same settings is resumed (its complete trials are kept, and ``n_trials`` may grow); one with other
        settings is refused.
    n_trials : int, default 10
        The number of trials (at least 1), numbered from 0.
    seed : int, default 0
        A non-negative seed; with the trial number it keys each trial's random stream
        (``numpy.random.default_rng([seed, trial])``), which draws the true networks, the data and the methods'
        seeds.
    n_tasks : int, default 5
        The number of tasks of the problem.
    p_del : float in [0, 1], default 0.05
        The probability that each edge of the original network is deleted in a task (see
        :func:`mtbn.benchmarks.make_problem`).
    n_train : int, default 1000
        Training rows sampled from each task's true network (at least 2).
    validation : int or float, default 50
        The rows per task (a count, or a fraction of ``n_train``) held out by ``mtl-paper`` and ``mtl-oracle``
        to choose the penalty; unused by the other methods.
    n_test : int, default 20000
        Test rows sampled from each task's true network, on which KL and the log-likelihood are measured.
    methods : sequence of str, default ("stl", "identical", "pooled", "mtl", "mtl-oracle")
        The methods to run: names of :data:`~mtbn.evaluate.METHODS` or ``"mtl@DELTA"`` (multitask learning at
        the fixed penalty DELTA).
    penalty_grid : sequence of float, optional
        The penalties the automatic-penalty ``mtl`` methods choose from; None takes the learner's default grid.
    n_restarts : int, default 20
        Random restarts of the single-task, identical-structure and pooled searches and of the
        automatic-penalty ``mtl`` methods (``mtl@DELTA``, started from the ``stl`` structures, keeps the
        learner's default).
    n_jobs : int or None, default 1
        Trials run at once, as joblib reads it (-1: every usable core; see :func:`mtbn.engine.parallel`);
        the results do not depend on it.
    progress : None, bool, callable or mtbn.progress.Reporter, optional
        Where the run reports its trials and methods (see :func:`mtbn.progress.reporter`).
    plots : bool, default True
        Also write bar charts of edit distance and KL per method (``edit_distance.png``, ``kl.png``) when
        matplotlib is installed.

    Returns
    -------
    results : pandas.DataFrame
        One row per trial x method x task.
    summary : str
        The Markdown summary table.

    Notes
    -----
    The steps: check the arguments (:func:`_check_benchmark`), claim ``out``
    for these settings or resume the run it holds (:func:`_claim_folder`),
    run the trials not yet written (:func:`_run_trials`), then gather them
    into ``results.csv`` and write the summary and plots.
    """
    import pandas as pd

    methods = _check_benchmark(problem, n_trials=n_trials, seed=seed, n_tasks=n_tasks, p_del=p_del,
                               n_train=n_train, validation=validation, n_test=n_test, methods=methods,
                               n_jobs=n_jobs)
    if isinstance(problem, os.PathLike):
        problem = os.fspath(problem)
    # A network file is recorded by its name and content, not where it lies: a run resumes from another folder
    # or machine, and a changed file is another benchmark.
    found = problem_file(problem)
    recorded = problem if found is None else (f"{found[0]}:" if found[0] else "") + os.path.basename(found[1])
    config = dict(problem=recorded, n_trials=n_trials, seed=seed, n_tasks=n_tasks, p_del=p_del, n_train=n_train,
                  validation=validation, n_test=n_test, methods=list(methods),
                  penalty_grid=None if penalty_grid is None else [float(x) for x in penalty_grid],
                  n_restarts=n_restarts, mtbn_version=__version__)
    if found is not None:
        with open(found[1], "rb") as fh:
            config["network_sha256"] = hashlib.sha256(fh.read()).hexdigest()
    if problem in COMPONENT_SPLITS:  # the split is part of the problem (it changed once)
        config["components"] = [list(c) for c in COMPONENT_SPLITS[problem]]
    _claim_folder(out, config)
    trial_kwargs = dict(seed=seed, n_tasks=n_tasks, p_del=p_del, n_train=n_train, validation=validation,
                        n_test=n_test, methods=methods, penalty_grid=penalty_grid, n_restarts=n_restarts)
    _run_trials(problem, out, n_trials, trial_kwargs, n_jobs, reporter(progress))
    results = pd.concat([pd.read_csv(_trial_path(out, t)) for t in range(n_trials)], ignore_index=True)
    results.to_csv(os.path.join(out, "results.csv"), index=False)
    summary = summarise(results, title=f"{recorded}: {n_tasks} tasks, {n_train} training rows per task, "
                                       f"{n_trials} trials (seed {seed})")
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as fh:
        fh.write(summary)
    if plots:
        plot_results(results, out)
    return results, summary


def _check_benchmark(problem, *, n_trials, seed, n_tasks, p_del, n_train, validation, n_test, methods, n_jobs):
    """The checked list of methods, once every argument of :func:`run_benchmark` is known to be valid."""
    problem_source(problem)
    check_n_jobs(n_jobs)
    check_random_state(seed)
    methods = _check_methods(list(methods))
    for name, value, low in (("n_trials", n_trials, 1), ("n_tasks", n_tasks, 1), ("n_train", n_train, 2),
                             ("n_test", n_test, 1)):
        if not isinstance(value, (int, np.integer)) or value < low:
            raise error("bench-count", name=name, low=low, value=value)
    if not 0.0 <= float(p_del) <= 1.0:
        raise error("p-del-range", value=p_del)
    # Only the paper's rule (and the oracle read off its path) splits off validation rows.
    if {"mtl-paper", "mtl-oracle"} & set(methods) and not isinstance(validation, float) and validation >= n_train:
        raise error("bench-validation", value=validation, n_train=n_train)
    return methods


def _claim_folder(out, config):
    """Create ``out/trials`` and write ``out/config.json``, unless ``out`` holds a run with other settings.

    A run may continue with more trials or under a newer mtbn version.
    """
    os.makedirs(os.path.join(out, "trials"), exist_ok=True)
    cfg_path = os.path.join(out, "config.json")
    if os.path.exists(cfg_path):
        with open(cfg_path, encoding="utf-8") as fh:
            old = json.load(fh)
        loose = ("n_trials", "mtbn_version")  # more trials, or a newer release, may continue a run
        same = ({k: v for k, v in old.items() if k not in loose}
                == {k: v for k, v in config.items() if k not in loose})
        if not same:
            raise error("bench-other-settings", out=out, config=cfg_path)
    with open(cfg_path, "w", encoding="utf-8") as fh:
        json.dump(config, fh, indent=2)


def _run_trials(problem, out, n_trials, trial_kwargs, n_jobs, say):
    """Run and write every trial whose file is missing or incomplete (in parallel, in any order)."""
    methods, n_tasks = trial_kwargs["methods"], trial_kwargs["n_tasks"]
    todo = [t for t in range(n_trials) if not _trial_is_complete(_trial_path(out, t), methods, n_tasks, say)]
    if len(todo) < n_trials:
        say(f"resuming: {n_trials - len(todo)} of {n_trials} trials already done")

    def one(trial):  # in a worker process, say (a copy) writes to the same stderr
        t0 = time.perf_counter()
        rows = run_trial(problem, trial, **trial_kwargs, progress=say)
        _write_rows(_trial_path(out, trial), rows)
        return trial, time.perf_counter() - t0

    done = n_trials - len(todo)
    with say.stage(f"{problem} trials", len(todo), "trial") as tick:
        for trial, secs in parallel(n_jobs, len(todo), return_as="generator_unordered")(job(one)(t) for t in todo):
            done += 1
            tick()
            say(f"trial {trial} finished in {secs:.1f} s ({done}/{n_trials})")


