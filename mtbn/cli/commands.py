"""The commands: each ``cmd_*`` reads its inputs, calls the library and formats what it returns.

Every command that writes ``--out`` runs in one skeleton,
:func:`_run_in_out_folder`: check the folder, do the work, write the outputs
into a staged folder that is published only on success, print a summary.
The library makes every decision (penalty, transfer guard, selection); a
command only passes the options on and prints or writes the result.
"""

import json
import os
import sys
import time
from collections import namedtuple

from mtbn._validation import format_penalty
from mtbn.cli import files, runs
from mtbn.cli.files import claimed_out, read_constraints, read_named_tasks, read_taskset, staged_output
from mtbn.cli.values import _usage_error, _UsageError, penalty_list
from mtbn.learn.settings import MULTITASK
from mtbn.messages import register
from mtbn.priors import PRIORS

__all__ = ["cmd_learn", "cmd_demo", "cmd_bench", "cmd_relatedness", "cmd_select", "cmd_cluster", "progress_for"]


def progress_for(args, *, always=False):
    """Progress for a command: bars and lines on a terminal, lines with --progress (or ``always``), else log
    records only."""
    from mtbn.progress import Reporter, stderr_reporter

    tty = sys.stderr.isatty()
    if not (tty or always or getattr(args, "progress", False)):
        return Reporter()
    return stderr_reporter(bars=tty)


def _options_of(args):
    """The options of a run as recorded in its outputs (summary.json, the reports)."""
    return {k: v for k, v in vars(args).items() if k not in ("func", "csv", "command")}


def _run_in_out_folder(args, work, write, summarise, *, plots=False):
    """The skeleton of every command that writes --out.

    ``work(progress)`` does the work and returns what ``write(done, folder,
    progress)`` writes into the staged folder and ``summarise(done, seconds,
    written)`` prints; nothing is written when ``--out`` is not writable or
    holds another run (see :mod:`mtbn.cli.files`), and nothing is computed
    when the outputs need plots (``plots``) and matplotlib is missing.
    """
    with claimed_out(args.out, overwrite=args.overwrite):
        if plots:
            from mtbn.report.figures import check_matplotlib

            check_matplotlib(f"mtbn {args.command}" + (" --report" if args.command == "learn" else ""))
        t0 = time.perf_counter()
        progress = progress_for(args)
        done = work(progress)
        with staged_output(args.out, args.command) as out:
            written = write(done, out, progress)
    summarise(done, time.perf_counter() - t0, written)
    return 0


# ---------------------------------------------------------------------------
# mtbn learn
# ---------------------------------------------------------------------------

_Learned = namedtuple("_Learned", "taskset result bootstrap averaged summary stems predicted")

BOOTSTRAP_FILES = ("bootstrap/<task>.strength.csv (per task: from, to, strength, direction), "
                   "bootstrap/edges.csv (per adjacency: each task's strength, present in all / one / no task), "
                   "bootstrap/<task>.averaged.edges.csv (the averaged network at the threshold); with "
                   "--interventions bootstrap/mechanisms.csv (task x variable: how often its mechanism changes)")


def cmd_learn(args):
    """``mtbn learn``: one network per task, learned jointly (or alone with ``--prior none``)."""
    return _run_in_out_folder(args, lambda progress: _learn(args, progress),
                              lambda done, out, progress: _write_learned(args, done, out), _print_learned,
                              plots=args.report)


def _learn(args, progress):
    """Read the tasks and constraint files, learn (and bootstrap); the outputs to write, in memory."""
    import warnings

    from mtbn.exceptions import TransferWarning
    from mtbn.learn import learn_structures

    t0 = time.perf_counter()
    constraints = read_constraints(args.require, args.forbid, args.tiers)
    taskset = read_taskset(args.csv, dropna=args.dropna, task_column=args.task_column, progress=progress,
                           discretize=files.discretize_option(args))
    stems = files.writable_tasks(taskset.tasks)  # refuses clashing names and unwritable labels before the work
    predict = _predicted_targets(args, taskset)
    # One learner for every prior: --prior none runs the same single-task
    # searches (same seeds) that the multitask search starts from.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        res = learn_structures(taskset, **MULTITASK.from_args(args), progress=progress, **constraints)
    if res.transfer is not None:  # penalty auto with a prior that has one
        print(res.transfer["message"])
        if res.transfer.sharing:
            print(res.transfer.sharing["message"])
    if res.interventions is not None:
        for line in _mechanism_lines(res.interventions):
            print(line)
    boot, averaged = _bootstrap(args, taskset, res, constraints, progress) if args.bootstrap else (None, None)
    summary = _learn_summary(args, taskset, res, boot, averaged, stems)
    summary["seconds"] = time.perf_counter() - t0
    predicted = None if predict is None else res.interventions.predict(predict)
    return _Learned(taskset, res, boot, averaged, summary, stems, predicted)


register("predict-needs-interventions", _UsageError,
         "--predict needs --interventions (the network of an unseen condition comes from the interventional model)",
         cause="--predict was given without --interventions.",
         fix="Add --interventions FILE (the tasks' targets), or leave out --predict.")
register("predict-unknown-variable", _UsageError, "--predict: {variable!r} is not a variable of the tasks",
         cause="A variable to intervene on in the predicted condition is not a column of the tasks.",
         fix="Name the targets by their column names, separated by commas.")


def _predicted_targets(args, taskset):
    """``--predict V1,V2``: the targets of the condition to predict, checked before the work (None without)."""
    if args.predict is None:
        return None
    if args.interventions is None:
        raise _usage_error("predict-needs-interventions")
    targets = [v.strip() for v in args.predict.split(",") if v.strip()]
    for v in targets:
        if v not in taskset.variables:
            raise _usage_error("predict-unknown-variable", variable=v)
    return targets


def _mechanism_lines(model):
    """The printed summary of an interventional fit: the causal DAG, and each task's changed mechanisms."""
    lines = [f"causal DAG shared by the tasks: {model.causal_graph.n_edges} arcs ({model.type} interventions)"]
    for task, per in model.changed.items():
        given = model.given[task]
        kind = "observational" if given == () else "targets unknown" if given is None else \
            f"targets {', '.join(given)}"
        if task == model.reference:
            kind += "; the reference regime"
        changed = ", ".join(f"{v} ({how})" for v, how in per.items()) or "none"
        lines.append(f"  {task} ({kind}): changed mechanisms {changed}")
    return lines


def _bootstrap(args, taskset, res, constraints, progress):
    """``--bootstrap B``: the replicates, repeating the learner's decisions (penalty, tasks learned alone, pooled
    structure) and background knowledge, and each task's averaged network."""
    from mtbn.bootstrap import bootstrap_structures

    boot = bootstrap_structures(taskset, n_boot=args.bootstrap, **MULTITASK.from_args(args), **constraints,
                                result=res, progress=progress)
    return boot, {name: boot.averaged_network(name) for name in taskset.names}


def _learn_summary(args, taskset, res, boot, averaged, stems):
    """``summary.json`` of ``mtbn learn`` (without its ``seconds``)."""
    summary = {"tasks": {}, "options": _options_of(args), "inputs": list(args.csv)}
    for t, task in enumerate(taskset.tasks):
        dag = res.graphs[t]
        summary["tasks"][task.name] = {"edges": [list(e) for e in dag.edges(names=True)], "n_edges": dag.n_edges,
                                       "score": float(res.task_log_likelihoods[t]), "n_samples": task.n_samples,
                                       "fingerprint": task.fingerprint(), "file_stem": stems[task.name]}
    if res.interventions is not None:
        model = res.interventions
        summary["interventions"] = {
            "type": model.type, "further_changes": bool(args.further_changes),
            "given": {t: None if g is None else list(g) for t, g in model.given.items()},
            "changed": model.records(), "causal_edges": [list(e) for e in model.causal_graph.edges(names=True)],
            "log_score": res.log_score, "files": INTERVENTION_FILES}
        if args.predict is not None:
            summary["interventions"]["predicted_targets"] = [v.strip() for v in args.predict.split(",") if v.strip()]
    if res.sharing_strength is not None:
        strength = res.sharing_strength
        summary["sharing_strength"] = strength if strength != float("inf") else "inf"  # JSON has no infinity
        summary["sharing_distances"] = res.sharing_distances
    if PRIORS[args.prior].has_penalty and res.interventions is None:
        summary.update(penalty=res.penalty, log_score=res.log_score, penalty_path=res.penalty_path_records())
        if res.penalty_path:
            summary["penalty_path_structures_learned_on"] = (
                "the first fold's training rows (the validation split's with --validation); the final "
                "structures and CPTs are learned on all rows")
        if res.transfer is not None:
            summary["transfer"] = res.transfer
    if boot is not None:
        summary["bootstrap"] = {"n_boot": args.bootstrap, "penalty": boot.penalty,
                                "structures": "interventional" if boot.changed is not None else
                                "pooled" if boot.pooled else "multitask",
                                "learned_alone": list(boot.alone),
                                "thresholds": {name: thr for name, (_, thr) in averaged.items()},
                                "files": BOOTSTRAP_FILES}
    return summary


def _write_learned(args, done, out):
    """Each task's BIF and edges.csv (and --export formats), the report, the bootstrap tables, summary.json."""
    no_bif = [task.name for t, task in enumerate(done.taskset.tasks)
              if not files.write_task_outputs(out, done.stems[task.name], done.result.graphs[t],
                                              done.result.networks[t], args.export)]
    done.summary["no_bif"] = no_bif
    files.write_discretization(out, done.taskset.discretization)
    if done.result.interventions is not None:
        _write_interventions(out, done)
    if args.report:
        from mtbn.report import write_learn_report

        write_learn_report(done.result, out, bootstrap=done.bootstrap, options=done.summary["options"])
    if done.bootstrap is not None:
        folder = os.path.join(out, "bootstrap")
        os.makedirs(folder)
        done.bootstrap.edge_table().to_csv(os.path.join(folder, "edges.csv"), index=False)
        for name, (dag, _) in done.averaged.items():
            stem = done.stems[name]
            done.bootstrap.strength(name).to_csv(os.path.join(folder, f"{stem}.strength.csv"), index=False)
            dag.write(os.path.join(folder, f"{stem}.averaged.edges.csv"))
        frequency = done.bootstrap.mechanism_frequency()
        if frequency is not None:  # task x variable: how often the mechanism changes
            frequency.rename_axis("task").to_csv(os.path.join(folder, "mechanisms.csv"))
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as fh:
        json.dump(done.summary, fh, indent=2)


INTERVENTION_FILES = ("interventions/causal.bifxml and causal.edges.csv (the causal DAG with the reference regime's "
                      "CPTs), interventions/mechanisms.csv (task, variable, how: given or learned), with --predict "
                      "interventions/predicted.bifxml and predicted.edges.csv")


def _write_interventions(out, done):
    """``interventions/``: the causal network, the changed-mechanism table, the predicted condition."""
    import csv

    folder = os.path.join(out, "interventions")
    os.makedirs(folder)
    model = done.result.interventions
    files.write_task_outputs(folder, "causal", model.causal_graph, model.causal_network)
    with open(os.path.join(folder, "mechanisms.csv"), "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["task", "variable", "how"])
        writer.writeheader()
        writer.writerows(model.records())
    if done.predicted is not None:
        from mtbn.graph import DAG

        net = done.predicted
        files.write_task_outputs(folder, "predicted", DAG([set(p) for p in net.parents], net.names), net)


def _print_learned(done, seconds, written):
    """One line for the run, one per task (edges and score); the time is the one in summary.json."""
    summary = done.summary
    print(f"learned {len(done.taskset)} task(s) in {summary['seconds']:.2f} s; wrote {summary['options']['out']}")
    for name, info in summary["tasks"].items():
        files_note = "" if info["file_stem"] == name else f" (files {info['file_stem']}.*)"
        print(f"  {name}: {info['n_edges']} edges, score {info['score']:.2f}{files_note}")
    if summary.get("no_bif"):
        print(files.bif_note(summary["no_bif"]))


# ---------------------------------------------------------------------------
# mtbn demo / mtbn bench
# ---------------------------------------------------------------------------


def cmd_demo(args):
    """``mtbn demo``: a small ``bench alarm`` with every method, in ``--out`` or a temporary folder.

    The temporary folder is removed when the demo finishes; an interrupted
    demo keeps it and says how to resume from it.
    """
    import shutil
    import tempfile

    from mtbn.cli.signals import Terminated

    temporary = args.out is None
    out = args.out or tempfile.mkdtemp(prefix="mtbn-demo-")
    where = "a temporary folder, removed at the end (--out DIR keeps the tables and figures)" if temporary else out
    print(f"mtbn demo: the perturbed ALARM benchmark ({args.tasks} related tasks, each edge deleted with "
          f"probability 0.05, {args.rows} rows per task), {args.trials} trials on {args.jobs} job(s); STL vs "
          f"IDENTICAL vs POOLED vs multitask learning (Paired prior; MTL: penalty by 5-fold cross-validation "
          f"with the negative-transfer guard; MTL-PAPER: the paper's 50 validation rows). Results in {where}",
          flush=True)

    def run():
        return _run_bench("alarm", out, methods=["stl", "identical", "pooled", "mtl", "mtl-paper", "mtl-oracle"],
                          penalty_grid=None, n_trials=args.trials, seed=args.seed, n_tasks=args.tasks, p_del=0.05,
                          n_train=args.rows, validation=50, n_test=20000, n_restarts=20, n_jobs=args.jobs,
                          progress=progress_for(args, always=True), plots=True, kept=not temporary)

    try:
        status = _bench_in(out, args.overwrite, run)
    except (KeyboardInterrupt, Terminated):
        if temporary:
            print(f"mtbn demo: the trials finished so far are in {out}; 'mtbn demo --out {out}' (same options) "
                  "resumes from them", file=sys.stderr, flush=True)
        raise
    except BaseException:
        if temporary:
            shutil.rmtree(out, ignore_errors=True)
        raise
    if temporary:
        shutil.rmtree(out, ignore_errors=True)
    return status


def bench_methods(methods, penalty):
    """The methods and the penalty grid of ``bench --methods M1,M2 --penalty auto|DELTA|D1,D2,...``.

    One penalty replaces the multitask methods by ``mtl@DELTA``; a list is a
    sweep (``mtl@DELTA`` for each value, the word ``sweep`` among the methods
    is dropped) and the grid of the multitask methods that choose a penalty.
    """
    from mtbn.evaluate import fixed_penalty_method

    methods = [m.strip() for m in methods.split(",") if m.strip()]
    if penalty in (None, "auto"):
        return methods, None
    values = penalty_list(penalty)
    if len(values) == 1:
        return [m for m in methods if not m.startswith("mtl")] + [fixed_penalty_method(values[0])], None
    methods = [m for m in methods if m != "sweep"]
    return methods + [fixed_penalty_method(v) for v in values if fixed_penalty_method(v) not in methods], values


def cmd_bench(args):
    """``mtbn bench PROBLEM``: related tasks from a shipped network, learned by each method, scored on the truth."""
    methods, grid = bench_methods(args.methods, args.penalty)
    return _bench_in(args.out, args.overwrite, lambda: _run_bench(
        args.problem, args.out, methods=methods, penalty_grid=grid, n_trials=args.trials, seed=args.seed,
        n_tasks=args.tasks, p_del=args.pdel, n_train=args.train, validation=args.validation, n_test=args.test_rows,
        n_restarts=args.restarts, n_jobs=args.jobs, progress=progress_for(args), plots=not args.no_plots))


def _is_bench_run(path):
    return os.path.isfile(os.path.join(path, "config.json"))


def _bench_in(out, overwrite, run):
    """``run()`` holding ``bench``'s and ``demo``'s --out: new, empty, or an earlier benchmark run (which resumes
    when its settings match; emptied first with --overwrite), checked before any work and locked while it runs."""
    with claimed_out(out, overwrite=overwrite, resumes=_is_bench_run):
        if overwrite:
            files.clear_out(out, also=_is_bench_run)
        return run()


def _run_bench(problem, out, *, plots, kept=True, **options):
    """Run a benchmark, print its summary and what was written (``mtbn bench`` and ``mtbn demo``; ``kept``:
    whether ``out`` stays after the command)."""
    import importlib.util

    from mtbn.evaluate import run_benchmark

    t0 = time.perf_counter()
    results, summary = run_benchmark(problem, out, plots=plots, **options)
    files.write_marker(out, "bench")
    print(summary)
    if not plots:
        written = ""
    elif importlib.util.find_spec("matplotlib") is None:
        written = " (no plots: matplotlib is not installed)"
    else:
        written = " and plots"
    if not kept:
        print(f"{time.perf_counter() - t0:.1f} s (give --out DIR to keep results.csv, summary.md and the plots)")
        return 0
    print(f"{time.perf_counter() - t0:.1f} s; wrote {os.path.join(out, 'results.csv')}, "
          f"{os.path.join(out, 'summary.md')}{written}")
    return 0


# ---------------------------------------------------------------------------
# mtbn relatedness / select / cluster (paper Section 2.4)
# ---------------------------------------------------------------------------


def _short(value):
    from mtbn.report import format_number

    return format_number(value, 4)


def _task_command(args, compute, write, summarise):
    """The skeleton of ``relatedness``, ``select`` and ``cluster``: read one task per CSV file (and with
    ``--from``, the distances of an earlier run), ``compute(tasks, progress, relatedness or None)``,
    ``write(result, folder, options, stems)`` the report (``stems``: each task's file stem), ``summarise``."""
    options = dict(_options_of(args), inputs=list(args.csv))
    stems, discretization = {}, []

    def work(progress):
        tasks, cuts = read_named_tasks(args.csv, args.dropna, progress, files.discretize_option(args))
        discretization.append(cuts)
        stems.update(files.writable_tasks(tasks))  # refuses clashing names and unwritable labels before the work
        options["task_rows"] = {t.name: t.n_samples for t in tasks}
        options["task_fingerprints"] = runs.fingerprints(tasks)
        rel = None
        if args.from_dir is not None:
            rel, note = runs.read_from(args.from_dir, tasks)
            print(note, flush=True)
        return compute(tasks, progress, rel)

    def write_report(res, out, progress):
        progress("writing the report")
        files.write_discretization(out, discretization[0])
        return write(res, out, options, stems)

    return _run_in_out_folder(args, work, write_report, summarise, plots=True)


def cmd_relatedness(args):
    """``mtbn relatedness``: the distance between every two tasks (direct or indirect measure)."""
    from mtbn.relatedness import direct_relatedness, indirect_relatedness
    from mtbn.report import write_relatedness_report

    if args.measure is None and args.from_dir is None:
        raise _usage_error("measure-required")

    def compute(tasks, progress, rel):
        if rel is not None:
            from mtbn.relatedness.measures import check_relatedness

            return check_relatedness(rel, [t.name for t in tasks], args.measure or rel.measure, "--measure")
        progress(f"{args.measure} relatedness of {len(tasks)} task(s)")
        if args.measure == "direct":
            return direct_relatedness(tasks, penalty=args.penalty, n_restarts=args.restarts, random_state=args.seed,
                                      equivalent_sample_size=args.ess, n_jobs=args.jobs,
                                      noise_floor=args.noise_floor, n_boot=args.boot)
        return indirect_relatedness(tasks, n_folds=args.folds, equivalent_sample_size=args.ess,
                                    n_restarts=args.restarts, random_state=args.seed, n_jobs=args.jobs)

    def summarise(rel, seconds, paths):
        print(f"{rel.measure} relatedness of {len(rel.names)} task(s) in {seconds:.2f} s; "
              f"wrote {', '.join(os.path.basename(p) for p in paths.values())} to {args.out}")
        reading = " (row = task being explained, column = structure source)" if rel.measure == "indirect" else ""
        print(f"distance, smaller = more related{reading}:")
        print(rel.distance.to_string(float_format=_short))

    return _task_command(args, compute, lambda res, out, options, stems: write_relatedness_report(res, out, options),
                         summarise)


def cmd_select(args):
    """``mtbn select``: the tasks closest to the principal task, and its network learned with them."""
    from mtbn.relatedness import select_tasks
    from mtbn.report import write_selection_report

    def compute(tasks, progress, rel):
        return select_tasks(
            tasks, args.principal, measure=args.measure or (rel.measure if rel is not None else "direct"),
            relatedness=rel, n=args.n, selection_validation=args.selection_validation,
            relatedness_penalty=args.relatedness_penalty, max_tasks=args.max_tasks, n_folds=args.folds,
            noise_floor=args.noise_floor, **MULTITASK.from_args(args), progress=progress,
        )

    def write(res, out, options, stems):
        if not files.write_task_outputs(out, stems[res.principal], res.graph, res.network):
            print(files.bif_note([res.principal]))
        return write_selection_report(res, out, options)

    def summarise(res, seconds, _):
        print(f"selected {res.n_selected} of {len(res.order)} task(s) for {res.principal!r} ({res.how}) in "
              f"{seconds:.2f} s; wrote {args.out}")
        print(f"  {'rank':>4}  {'task':<20} {'distance':>10}  selected")
        for i, name in enumerate(res.order):
            mark = "yes" if name in res.selected else ""
            gap = "   <- largest gap below" if i + 1 == res.gap and res.gap < len(res.order) else ""
            print(f"  {i + 1:>4}  {name:<20} {_short(res.distances[name]):>10}  {mark}{gap}")
        penalty = "n/a" if res.penalty != res.penalty else format_penalty(res.penalty)
        print(f"  {res.principal}: {res.graph.n_edges} edges (single-task: {res.single_task_graph.n_edges}); "
              f"penalty {penalty}")

    return _task_command(args, compute, write, summarise)


def cmd_cluster(args):
    """``mtbn cluster``: clusters of related tasks, each learned together."""
    from mtbn.relatedness import cluster_tasks
    from mtbn.report import write_clustering_report

    def compute(tasks, progress, rel):
        return cluster_tasks(
            tasks, n_clusters=args.n, relatedness=rel, selection_validation=args.selection_validation,
            relatedness_penalty=args.relatedness_penalty, max_clusters=args.max_clusters,
            noise_floor=args.noise_floor, **MULTITASK.from_args(args), progress=progress,
        )

    def write(res, out, options, stems):
        no_bif = [name for name in res.relatedness.names
                  if not files.write_task_outputs(out, stems[name], res.graphs[name], res.networks[name])]
        if no_bif:
            print(files.bif_note(no_bif))
        return write_clustering_report(res, out, options)

    def summarise(res, seconds, _):
        how = "validation" if res.validation_curve else "given"
        print(f"{len(res.labels)} task(s) in {res.n_clusters} cluster(s) ({how}) in {seconds:.2f} s; "
              f"wrote {args.out}")
        print(f"  {'cluster':>7}  tasks")
        for c in sorted(set(res.labels.values())):
            members = [t for t in res.relatedness.names if res.labels[t] == c]
            print(f"  {c:>7}  {', '.join(members)}")

    return _task_command(args, compute, write, summarise)
