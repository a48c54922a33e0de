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
* ``identical``: one structure for all tasks (the TSK method of Section
  2.3.1), parameters per task;
* ``pooled``: one network (structure and parameters) learned from all tasks'
  rows stacked;
* ``mtl``: multitask learning as ``learn_structures`` does by default:
  Paired prior, reversals counted twice, penalty chosen by 5-fold
  cross-validation with the one-standard-error rule, the negative-transfer
  guard, structures and parameters learned on all rows;
* ``mtl-paper``: the paper's rule: penalty with the best log-likelihood on a
  validation split (``validation`` rows per task), no guard; structures and
  parameters then learned on all rows at that penalty;
* ``mtl-edit``, ``mtl-single``: ``mtl`` with the Edit prior, or with the
  Paired prior counting a reversal once;
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

import json
import os
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from mtbn._validation import check_n_jobs, check_option, check_random_state
from mtbn._version import __version__
from mtbn.benchmarks import COMPONENT_SPLITS, PROBLEMS, make_problem
from mtbn.data import DiscreteData, make_taskset
from mtbn.engine import job, parallel
from mtbn.exceptions import InvalidParameterError, TransferWarning
from mtbn.graph import DAG
from mtbn.learn import learn_identical_structures, learn_structure, learn_structures
from mtbn.messages import error, register
from mtbn.metrics import cpdag_distance, edit_distance, kl_divergence, mean_log_likelihood, undecidable_reversals
from mtbn.networks import fit_parameters, fits_in_tables, heldout_log_likelihood, log_likelihood, sample
from mtbn.progress import reporter

__all__ = ["run_benchmark", "summarise", "METHODS", "RESULT_COLUMNS", "run_trial"]

METHODS = ("stl", "identical", "pooled", "mtl", "mtl-paper", "mtl-edit", "mtl-single", "mtl-oracle")

RESULT_COLUMNS = ("trial", "method", "task", "penalty", "edit_distance", "cpdag_shd", "undecidable_reversals", "kl",
                  "log_likelihood", "seconds", "transfer")


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


register("method-penalty-type", InvalidParameterError, "method {method!r}: the penalty after '@' must be a number.",
         cause="A method written mtl@DELTA whose DELTA is not a number.",
         fix="Write e.g. mtl@0.9.")
register("method-penalty-range", InvalidParameterError, "method {method!r}: the penalty must be in [0, 1].",
         cause="A method mtl@DELTA with DELTA outside [0, 1].",
         fix="Use a penalty between 0 and 1.")
register("unknown-method", InvalidParameterError, "unknown method {method!r}; choose from {methods} or mtl@DELTA.",
         cause="A benchmark method name that mtbn does not know.",
         fix="Use one of the names listed (comma-separated for several).")
register("no-methods", InvalidParameterError, "methods must name at least one method; choose from {methods} or mtl@DELTA.",
         cause="An empty list of benchmark methods (e.g. --methods ,).",
         fix="Name at least one method.")
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

def fixed_penalty_method(delta):
    """The method name of multitask learning at the fixed penalty ``delta``: ``mtl@DELTA``."""
    return f"mtl@{float(delta)!r}"


def fixed_penalty(method):
    """The penalty of a ``mtl@DELTA`` method, or None for any other method name."""
    if not method.startswith("mtl@"):
        return None
    try:
        delta = float(method[4:])
    except ValueError:
        raise error("method-penalty-type", method=method) from None
    if not 0 <= delta <= 1:
        raise error("method-penalty-range", method=method)
    return delta


def _check_methods(methods):
    out = []
    for m in methods:
        if m in METHODS or fixed_penalty(m) is not None:
            out.append(m)
        else:
            raise error("unknown-method", method=m, methods=", ".join(METHODS))
    if not out:
        raise error("no-methods", methods=", ".join(METHODS))
    return out


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
              penalty_grid=None, n_restarts=20, ess=1.0):
    """Run every method on one trial; returns a list of result dicts.

    The steps, each recording its rows: the single-task solution
    (:func:`_run_stl`), ``identical``, ``pooled``, the automatic-penalty
    multitask methods (:func:`_run_multitask`) and the fixed penalties
    (:func:`_run_fixed_penalties`). The methods' seeds are drawn from the
    trial's stream in that order, each only if its method is asked for.
    """
    truths, train, test, rng = trial_data(problem, trial, seed=seed, n_tasks=n_tasks, p_del=p_del,
                                          n_train=n_train, n_test=n_test)
    run = _TrialRun(int(trial), truths, train, test, [_true_dag(n) for n in truths], ess, n_restarts)
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

    def record(self, method, graphs, networks, seconds, penalty=float("nan"), transfer=""):
        """Add one row per task: distances to the true structure, KL and log-likelihood on the test set."""
        k = len(self.truths)
        for t in range(k):
            self.rows.append({
                "trial": self.trial, "method": method, "task": self.train[t].name, "penalty": penalty,
                "edit_distance": edit_distance(graphs[t], self.true_dags[t]),
                "cpdag_shd": cpdag_distance(graphs[t], self.true_dags[t]),
                "undecidable_reversals": undecidable_reversals(graphs[t], self.true_dags[t]),
                **self._test_scores(t, graphs[t], networks[t]),
                "seconds": seconds / k,
                "transfer": transfer,
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
    if "stl" not in methods and not any(fixed_penalty(m) is not None for m in methods):
        return None
    t0 = time.perf_counter()
    stl = learn_structures(run.train, prior="none", equivalent_sample_size=run.ess, n_restarts=run.n_restarts,
                           random_state=learn_seed)
    secs = time.perf_counter() - t0
    if "stl" in methods:
        run.record_fitted("stl", stl.graphs, secs)
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
    pooled = DiscreteData(np.concatenate([ts.global_codes(t) for t in range(ts.n_tasks)]), ts.variables,
                          ts.states, "pooled")
    g = learn_structure(pooled, equivalent_sample_size=run.ess, n_restarts=run.n_restarts,
                        random_state=int(rng.integers(2**31))).graph
    net = _fit(g, pooled, run.ess)
    run.record("pooled", [g] * ts.n_tasks, [net] * ts.n_tasks, time.perf_counter() - t0)


def _run_multitask(run, methods, learn_seed, validation, penalty_grid):
    """The ``mtl`` variants with an automatic penalty, and ``mtl-oracle`` from ``mtl-paper``'s path."""
    variants = {"mtl": ("paired", "double", None), "mtl-paper": ("paired", "double", validation),
                "mtl-single": ("paired", "single", None), "mtl-edit": ("edit", "single", None)}
    oracle = "mtl-oracle" in methods
    for method, (prior, reversal, split) in variants.items():
        if not (method in methods or (method == "mtl-paper" and oracle)):
            continue
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TransferWarning)
            res = learn_structures(run.train, prior=prior, reversal=reversal, penalty="auto", validation=split,
                                   force_transfer=split is not None, equivalent_sample_size=run.ess,
                                   penalty_grid=penalty_grid, n_restarts=run.n_restarts, random_state=learn_seed,
                                   penalty_search="grid" if split is not None else "refine")
        if method in methods:
            run.record_fitted(method, res.graphs, time.perf_counter() - t0, res.penalty, res.transfer["status"])
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
        res = learn_structures(run.train, penalty=delta, start=stl_graphs, equivalent_sample_size=run.ess)
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
    config = dict(problem=problem, n_trials=n_trials, seed=seed, n_tasks=n_tasks, p_del=p_del, n_train=n_train,
                  validation=validation, n_test=n_test, methods=list(methods),
                  penalty_grid=None if penalty_grid is None else [float(x) for x in penalty_grid],
                  n_restarts=n_restarts, mtbn_version=__version__)
    if problem in COMPONENT_SPLITS:  # the split is part of the problem (it changed once)
        config["components"] = [list(c) for c in COMPONENT_SPLITS[problem]]
    _claim_folder(out, config)
    trial_kwargs = dict(seed=seed, n_tasks=n_tasks, p_del=p_del, n_train=n_train, validation=validation,
                        n_test=n_test, methods=methods, penalty_grid=penalty_grid, n_restarts=n_restarts)
    _run_trials(problem, out, n_trials, trial_kwargs, n_jobs, reporter(progress))
    results = pd.concat([pd.read_csv(_trial_path(out, t)) for t in range(n_trials)], ignore_index=True)
    results.to_csv(os.path.join(out, "results.csv"), index=False)
    summary = summarise(results, title=f"{problem}: {n_tasks} tasks, {n_train} training rows per task, "
                                       f"{n_trials} trials (seed {seed})")
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as fh:
        fh.write(summary)
    if plots:
        plot_results(results, out)
    return results, summary


def _check_benchmark(problem, *, n_trials, seed, n_tasks, p_del, n_train, validation, n_test, methods, n_jobs):
    """The checked list of methods, once every argument of :func:`run_benchmark` is known to be valid."""
    check_option("problem", problem, PROBLEMS)
    check_n_jobs(n_jobs)
    check_random_state(seed)
    methods = _check_methods(list(methods))
    for name, value, low in (("n_trials", n_trials, 1), ("n_tasks", n_tasks, 1), ("n_train", n_train, 2),
                             ("n_test", n_test, 1)):
        if not isinstance(value, (int, np.integer)) or value < low:
            raise error("bench-count", name=name, low=low, value=value)
    if not 0.0 <= float(p_del) <= 1.0:
        raise error("p-del-range", value=p_del)
    if any(m.startswith("mtl") for m in methods) and not isinstance(validation, float) and validation >= n_train:
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

    def one(trial):
        t0 = time.perf_counter()
        rows = run_trial(problem, trial, **trial_kwargs)
        _write_rows(_trial_path(out, trial), rows)
        return trial, time.perf_counter() - t0

    done = n_trials - len(todo)
    with say.stage(f"{problem} trials", len(todo), "trial") as tick:
        for trial, secs in parallel(n_jobs, len(todo), return_as="generator_unordered")(job(one)(t) for t in todo):
            done += 1
            tick()
            say(f"trial {trial} finished in {secs:.1f} s ({done}/{n_trials})")


def summarise(results, title=""):
    """Markdown table: per method mean +- sd of edit distance and KL, reductions, p-values."""
    from scipy import stats

    has_cpdag = "cpdag_shd" in results.columns
    cols = ["edit_distance", "kl", "log_likelihood", "seconds"] + (["cpdag_shd", "undecidable_reversals"] if has_cpdag else [])
    per_trial = results.groupby(["method", "trial"])[cols].mean()
    order = [m for m in list(METHODS) + sorted(set(results["method"]) - set(METHODS)) if m in set(results["method"])]
    lines = []
    if title:
        lines += [f"## {title}", ""]
    extra_head = "CPDAG SHD | undecidable reversals | " if has_cpdag else ""
    lines.append("| method | edit distance | " + extra_head + "KL | test log-lik | seconds/task | ED vs STL | "
                 "KL vs STL | ED vs IDENTICAL | KL vs IDENTICAL | p (ED, KL) vs STL |")
    lines.append("|---" * (12 if has_cpdag else 10) + "|")

    def red(m, base, col):
        if base not in order or m == base:
            return ""
        a, b = per_trial.loc[m][col].mean(), per_trial.loc[base][col].mean()
        return f"{100 * (b - a) / b:+.1f}%" if b else ""

    def pval(m, base, col):
        if base not in order or m == base:
            return ""
        a, b = per_trial.loc[m][col], per_trial.loc[base][col]
        common = a.index.intersection(b.index)
        if len(common) < 2 or np.allclose(a[common].values, b[common].values):
            return "n/a"
        return f"{stats.ttest_rel(a[common], b[common]).pvalue:.2g}"

    for m in order:
        d = per_trial.loc[m]
        extra = (f"| {d['cpdag_shd'].mean():.2f} ± {d['cpdag_shd'].std(ddof=1) if len(d) > 1 else 0:.2f} "
                 f"| {d['undecidable_reversals'].mean():.2f} " if has_cpdag else "")
        lines.append(
            f"| {m} | {d['edit_distance'].mean():.2f} ± {d['edit_distance'].std(ddof=1) if len(d) > 1 else 0:.2f} "
            + extra +
            f"| {d['kl'].mean():.4f} ± {d['kl'].std(ddof=1) if len(d) > 1 else 0:.4f} "
            f"| {d['log_likelihood'].mean():.4f} | {d['seconds'].mean():.2f} "
            f"| {red(m, 'stl', 'edit_distance')} | {red(m, 'stl', 'kl')} "
            f"| {red(m, 'identical', 'edit_distance')} | {red(m, 'identical', 'kl')} "
            f"| {_join(pval(m, 'stl', 'edit_distance'), pval(m, 'stl', 'kl'))} |"
        )
    lines += ["", "Edit distance and KL: mean over tasks per trial, then mean ± standard deviation over trials. "
              "Reductions are relative to the mean of STL / IDENTICAL (positive = better). "
              "p: paired t-test across trials."
              + (" CPDAG SHD: structural Hamming distance between essential graphs (a reversal the data "
                 "cannot decide costs 0); undecidable reversals: reversed edges whose direction the true "
                 "CPDAG leaves open." if has_cpdag else ""), ""]
    lines += paired_table(per_trial, order, ["edit_distance"] + (["cpdag_shd"] if has_cpdag else []) + ["kl"])
    if "transfer" in results.columns:
        status = results.dropna(subset=["transfer"]).groupby(["method", "trial"])["transfer"].first()
        for m in order:
            if m in status.index.get_level_values(0):
                counts = status.loc[m].value_counts()
                lines.append(f"Negative-transfer guard, {m}: " + ", ".join(
                    f"{name} in {int(counts[name])}" for name in ("accepted", "rejected", "none", "forced")
                    if name in counts) + f" of {len(status.loc[m])} trials.")
        lines.append("")
    return "\n".join(lines)


def paired_table(per_trial, order, columns):
    """Markdown: every method against STL (and MTL against IDENTICAL), paired over trials, Holm-corrected."""
    from mtbn.stats import holm, paired_comparison

    pairs = [(m, "stl") for m in order if m != "stl" and "stl" in order]
    pairs += [(m, "identical") for m in order if m.startswith("mtl") and "identical" in order]
    rows = []
    for m, base in pairs:
        a, b = per_trial.loc[m], per_trial.loc[base]
        common = a.index.intersection(b.index)
        for col in columns:
            rows.append((m, base, col, paired_comparison(a.loc[common, col], b.loc[common, col])))
    if not rows:
        return []
    if all(r[3]["n"] < 2 for r in rows):
        return ["Paired differences over trials need at least 2 trials.", ""]
    adjusted = holm([r[3]["p_t"] for r in rows])
    lines = ["Paired differences over trials (method minus baseline; negative = lower ED / KL), 95% t interval, "
             "paired t-test and Wilcoxon signed-rank p-values, and the t-test p-value Holm-corrected across "
             "all rows of this table. \"different\" means Holm p < 0.05.", "",
             "| method | baseline | metric | mean difference [95% CI] | p (t) | p (Wilcoxon) | p (Holm) | different |",
             "|---|---|---|---|---|---|---|---|"]
    for (m, base, col, r), adj in zip(rows, adjusted):
        lines.append(f"| {m} | {base} | {col} | {r['mean_diff']:+.4g} [{r['ci_low']:+.4g}, {r['ci_high']:+.4g}] "
                     f"| {r['p_t']:.2g} | {r['p_wilcoxon']:.2g} | {adj:.2g} | {'yes' if adj < 0.05 else 'no'} |")
    return lines + [""]


def _join(*cells):
    return ", ".join(cells) if any(cells) else ""


def plot_results(results, out):
    """Bar charts of edit distance and KL per method (PNG files in ``out``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # plots are optional
        return []
    per_trial = results.groupby(["method", "trial"])[["edit_distance", "kl"]].mean()
    methods = [m for m in list(METHODS) + sorted(set(results["method"]) - set(METHODS)) if m in set(results["method"])]
    paths = []
    for col, label in (("edit_distance", "edit distance to the true structure"), ("kl", "empirical KL divergence")):
        fig, ax = plt.subplots(figsize=(1.2 * len(methods) + 2, 3.5))
        means = [per_trial.loc[m][col].mean() for m in methods]
        sds = [per_trial.loc[m][col].std(ddof=1) if len(per_trial.loc[m]) > 1 else 0 for m in methods]
        ax.bar(methods, means, yerr=sds, color="#4c72b0", capsize=3)
        ax.set_ylabel(label)
        ax.tick_params(axis="x", rotation=30)
        fig.tight_layout()
        path = os.path.join(out, f"{col}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths
