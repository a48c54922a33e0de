"""``mtbn learn``: one network per CSV file (one task per file), learned jointly; its options and its run."""

import json
import os
import time
from collections import namedtuple

from mtbn.cli import files, values
from mtbn.cli.common import _options_of, _run_in_out_folder
from mtbn.cli.interventions import (
    mechanism_lines,
    predict_condition,
    predicted_targets,
    summary_entry,
    write_interventions,
)
from mtbn.cli.files import read_constraints, read_taskset
from mtbn.cli.kinds import cmd_learn_kind, kind_frames, kind_frames_of_column, stray_labels
from mtbn.cli.options import HELP, _add_discretize, _add_run, _add_setting, _add_tasks
from mtbn.exceptions import InvalidDataError
from mtbn.learn.interventional_model import CHILDREN
from mtbn.learn.settings import ESTIMATOR_ONLY, MULTITASK
from mtbn.priors import PRIORS

#: Every file ``mtbn learn`` may write, for its --help.
LEARN_FILES = (
    "DIR/<task>.edges.csv, DIR/<task>.bifxml and DIR/<task>.bif (when BIF can hold its names) per task; "
    "DIR/summary.json (settings, penalty path, transfer verdict, per-task scores) and DIR/.mtbn-output.json "
    "(marks the folder as mtbn's); with --discretize: DIR/discretization.json; with --report: DIR/report.html and "
    "DIR/report.md; with --export: DIR/<task>.<format>; with --bootstrap: DIR/bootstrap/edges.csv, "
    "<task>.strength.csv and <task>.averaged.edges.csv (and mechanisms.csv with --interventions); with "
    "--interventions: DIR/interventions/causal.bifxml, causal.edges.csv and mechanisms.csv (with --predict: "
    "predicted.bifxml and predicted.edges.csv). Continuous tasks (every column a number, some continuous, no "
    "--discretize) are learned as linear Gaussian networks: DIR/<task>.edges.csv, DIR/<task>.gaussian.json "
    "(pgmpy's JSON for linear Gaussian networks: each variable's parents, intercept, coefficients, residual "
    "variance) and DIR/summary.json, with --interventions DIR/interventions/causal.gaussian.json, causal.edges.csv "
    "and mechanisms.csv (with --predict: predicted.gaussian.json and predicted.edges.csv)")


def add_parser(sub):
    p = sub.add_parser(
        "learn",
        help="learn one network per CSV file (one task per file)",
        description="Learn a Bayesian network for each CSV file. Each file is one task: a header of "
        "variable names, cells are state labels (kept verbatim; an empty cell is missing). The task "
        "name is the file stem.",
        epilog=f"Files written: {LEARN_FILES}.",
    )
    _add_tasks(p)
    data = p.add_argument_group("data", "how the CSV files are read and coded")
    data.add_argument("--dropna", action="store_true", help=HELP["dropna"])
    _add_discretize(data)
    _add_learn_knowledge(p, data)
    search = p.add_argument_group("search", "each task's score and the joint search over all tasks")
    _add_setting(search, MULTITASK["equivalent_sample_size"])
    _add_setting(search, MULTITASK["n_restarts"])
    _add_learn_search(search)
    _add_learn_prior(p.add_argument_group("penalty and transfer", "the multitask prior, how its penalty is chosen "
                                          "and when the tasks' structures or parameters are shared"))
    run = p.add_argument_group("run", "seed, parallel work and progress")
    _add_run(run, jobs_help=None)
    run.add_argument("--progress", action="store_true", help=HELP["progress"])
    _add_learn_outputs(p.add_argument_group("output", "what is written besides each task's network files"))
    _add_learn_interventions(p)
    p.set_defaults(func=cmd_learn)


def _add_learn_interventions(p):
    """The tasks as interventional conditions of one system (docs/guide/interventions.rst)."""
    group = p.add_argument_group("interventional conditions", "the tasks as experimental conditions of one system: "
                                 "one causal DAG, each task's changed mechanisms")
    for name in ("interventions", "intervention_type", "further_changes"):
        _add_setting(group, MULTITASK[name])
    group.add_argument("--predict", default=None, metavar="TARGETS",
                       help="with --interventions: also write the network of a condition not among the tasks that "
                       "intervenes on these comma-separated variables (their mechanisms replaced, every other "
                       "kept) to DIR/interventions/predicted.bifxml and predicted.edges.csv")
    group.add_argument("--predict-children", default=None, choices=CHILDREN,
                       help="with --predict and activity interventions: the targets' children stop seeing them "
                       "(average, the default: their CPTs averaged over the target's states) or keep their CPTs "
                       "(keep)")


def _add_learn_prior(p):
    """The multitask prior, how its penalty is chosen, and the guard and parameter sharing after it."""
    for name in ("prior", "penalty", "reversal", "cv", "validation", "penalty_search", "force_transfer"):
        _add_setting(p, MULTITASK[name])
    _add_setting(p, MULTITASK["transfer_per_task"], nargs="?", const=True)  # a bare --transfer-per-task: on
    _add_setting(p, MULTITASK["parameter_sharing"])


def _add_learn_search(p):
    """The joint search: score, parents, starts, restarts."""
    for name in ("score", "max_parents", "start", "n_joint_restarts"):
        _add_setting(p, MULTITASK[name])


def _add_learn_outputs(p):
    """What is written besides each task's BIF and edges.csv."""
    p.add_argument("--report", action="store_true",
                   help="also write DIR/report.html and DIR/report.md: the transfer verdict, the penalty path, "
                   "every task's structure on one layout (edge width = bootstrap frequency with --bootstrap) and "
                   "the edges that differ between tasks")
    p.add_argument("--export", default=(), type=values.export_formats, metavar="FORMATS",
                   help="also write each task's structure as DIR/<task>.<format> for each of these comma-separated "
                   "formats: dot (Graphviz), gml, json (networkx node-link), graphml (default: none; the BIF and "
                   "edges.csv files are always written)")
    _add_setting(p, ESTIMATOR_ONLY["n_bootstrap"])


def _add_learn_knowledge(p, data):
    """Background knowledge (constraint files), and one file holding every task (``data``: the data group)."""
    data.add_argument("--task-column", default=None, metavar="NAME",
                      help="read one CSV file whose column NAME says which task each row belongs to (one network "
                      "per value) instead of one file per task")
    p = p.add_argument_group("background knowledge", "edges required or forbidden in every task, a temporal order")
    p.add_argument("--require", default=None, metavar="FILE",
                   help="edges every task must have: a CSV file with columns source,target")
    p.add_argument("--forbid", default=None, metavar="FILE",
                   help="edges no task may have: a CSV file with columns source,target")
    p.add_argument("--tiers", default=None, metavar="FILE",
                   help="a temporal order: a CSV file with columns variable,tier (numbers or labels, sorted); "
                   "no edge from a later tier into an earlier one; untiered variables are free")


_Learned = namedtuple("_Learned", "taskset result bootstrap averaged summary stems predicted")




def cmd_learn(args):
    """``mtbn learn``: one network per task, learned jointly (or alone with ``--prior none``); continuous tasks
    (every column a number, some continuous, no ``--discretize``) as Gaussian networks, and tasks of another
    registered kind of data by its learner (:mod:`mtbn.cli.kinds`)."""
    if files.discretize_option(args) is None and args.task_column is None:
        claimed = kind_frames(args.csv)
        if claimed is not None:
            return cmd_learn_kind(args, *claimed)
    elif files.discretize_option(args) is None and len(args.csv) == 1:  # one file's tasks, by --task-column
        claimed = kind_frames_of_column(args.csv[0], args.task_column)
        if claimed is not None:
            return cmd_learn_kind(args, *claimed, split=True)
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
    try:
        taskset = read_taskset(args.csv, dropna=args.dropna, task_column=args.task_column, progress=progress,
                               discretize=files.discretize_option(args))
    except InvalidDataError as exc:  # files of numbers with a word for missing values: say so
        stray = None
        if (getattr(exc, "code", None) == "continuous-column" and files.discretize_option(args) is None
                and args.task_column is None):  # the files a kind of data could have claimed
            stray = stray_labels(args.csv)
        if stray is None:
            raise
        raise stray from None
    stems = files.writable_tasks(taskset.tasks)  # refuses clashing names and unwritable labels before the work
    predict = predicted_targets(args, taskset.variables)
    # One learner for every prior: --prior none runs the same single-task
    # searches (same seeds) that the multitask search starts from.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        res = learn_structures(taskset, **MULTITASK.from_args(args), progress=progress, **constraints)
    if res.transfer is not None:  # penalty auto with a prior that has one
        print(res.transfer["message"])
        if res.transfer.sharing:
            print(res.transfer.sharing["message"])
    elif res.sharing:  # a given penalty: how the strength was chosen
        print(res.sharing["message"])
    if res.interventions is not None:
        for line in mechanism_lines(res.interventions):
            print(line)
    boot, averaged = _bootstrap(args, taskset, res, constraints, progress) if args.bootstrap else (None, None)
    summary = _learn_summary(args, taskset, res, boot, averaged, stems)
    summary["seconds"] = time.perf_counter() - t0
    predicted = predict_condition(args, res.interventions, predict)
    return _Learned(taskset, res, boot, averaged, summary, stems, predicted)


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
        summary["interventions"] = summary_entry(args, res.interventions, res.log_score, INTERVENTION_FILES)
    if res.sharing_strength is not None:
        strength = res.sharing_strength
        summary["sharing_strength"] = strength if strength != float("inf") else "inf"  # JSON has no infinity
        summary["sharing_distances"] = res.sharing_distances
    if res.sharing and res.transfer is None:  # with penalty auto the record is in the transfer's
        summary["sharing"] = res.sharing
    if PRIORS[args.prior].has_penalty and res.interventions is None:
        summary.update(penalty=res.penalty, log_score=res.log_score, penalty_path=res.penalty_path_records())
        if res.penalty_path:
            summary["penalty_path_structures_learned_on"] = (
                "the first fold's training rows (the validation split's with --validation); the final "
                "structures and CPTs are learned on all rows")
        if res.transfer is not None:
            summary["transfer"] = res.transfer
    if boot is not None:
        summary["bootstrap"] = files.bootstrap_summary(boot, args.bootstrap, averaged)
    return summary


def _write_learned(args, done, out):
    """Each task's BIF and edges.csv (and --export formats), the report, the bootstrap tables, summary.json."""
    no_bif = [task.name for t, task in enumerate(done.taskset.tasks)
              if not files.write_task_outputs(out, done.stems[task.name], done.result.graphs[t],
                                              done.result.networks[t], args.export)]
    done.summary["no_bif"] = no_bif
    files.write_discretization(out, done.taskset.discretization)
    if done.result.interventions is not None:
        write_interventions(out, done.result.interventions, done.predicted, _write_network)
    if args.report:
        from mtbn.report import write_learn_report

        write_learn_report(done.result, out, bootstrap=done.bootstrap, options=done.summary["options"])
    if done.bootstrap is not None:
        files.write_bootstrap(out, done.bootstrap, done.averaged, done.stems)
    files.write_summary(os.path.join(out, "summary.json"), done.summary)


INTERVENTION_FILES = ("interventions/causal.bifxml and causal.edges.csv (the causal DAG with the reference regime's "
                      "CPTs), interventions/mechanisms.csv (task, variable, how: given, learned or activity), with "
                      "--predict "
                      "interventions/predicted.bifxml and predicted.edges.csv")


def _write_network(folder, stem, net):
    from mtbn.graph import DAG

    files.write_task_outputs(folder, stem, DAG([set(p) for p in net.parents], net.names), net)


def _print_learned(done, seconds, written):
    """One line for the run, one per task (edges and score); the time is the one in summary.json."""
    summary = done.summary
    print(f"learned {len(done.taskset)} task(s) in {summary['seconds']:.2f} s; wrote {summary['options']['out']}")
    for name, info in summary["tasks"].items():
        files_note = "" if info["file_stem"] == name else f" (files {info['file_stem']}.*)"
        print(f"  {name}: {info['n_edges']} edges, score {info['score']:.2f}{files_note}")
    if summary.get("no_bif"):
        print(files.bif_note(summary["no_bif"]))
