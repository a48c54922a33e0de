"""The ``mtbn`` command line: parse arguments, call the public API, write files.

Every expected error (bad data, bad option, missing file) prints one line,
``mtbn: error: ...``, on stderr and exits with status 2, without a traceback.
Heavy modules (pgmpy, matplotlib, pandas) are imported inside the commands
that need them, so ``mtbn --help`` starts fast.
"""

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time

from mtbn.messages import error, register, text

__all__ = ["main", "build_parser"]


class _UsageError(Exception):
    """A command-line mistake found before any work (printed as ``mtbn: error: ...``)."""


def _usage_error(code, **fields):
    return _UsageError(text(code, **fields))


A = argparse.ArgumentTypeError  # printed by argparse as "mtbn COMMAND: error: argument --OPTION: <message>"
register("option-unit-number", A, "must be a number in [0, 1]; got {value!r}",
         cause="A penalty option that is not a number.", fix="Write a number between 0 and 1 (e.g. 0.9).")
register("option-unit-range", A, "must be in [0, 1]; got {value!r}",
         cause="A penalty option outside [0, 1] (or nan).", fix="Write a number between 0 and 1, or 'auto'.")
register("option-validation", A, "must be a fraction in (0, 1) or a row count >= 1; got {value!r}",
         cause="--validation / --selection-validation that is neither a fraction nor a whole row count.",
         fix="Write e.g. 0.05 (5% of each task's rows) or 50 (rows per task).")
register("option-integer", A, "must be an integer >= {minimum}; got {value!r}",
         cause="An option that takes a whole number got text, a fraction or a number too small.",
         fix="Write a whole number at least as large as the minimum named.")
register("option-export", A, "unknown format {value!r}; give some of {formats}",
         cause="--export names a graph format mtbn does not write.", fix="Write e.g. --export dot,gml,json.")
register("option-jobs", A, "must be a positive integer or -1 (all cores); got {value!r}",
         cause="--jobs 0 or a --jobs that is not a whole number.", fix="Write 1, a number of processes, or -1.")
register("option-positive", A, "must be a positive number; got {value!r}",
         cause="--ess that is zero, negative, infinite or not a number.", fix="Write a number above 0 (usually 1 to 10).")
register("option-select-n", A, "must be 'auto', 'gap' or an integer >= 0; got {value!r}",
         cause="select --n that is neither 'auto', 'gap' nor a whole number.",
         fix="Write auto, gap or the number of tasks to select.")
register("option-cluster-n", A, "must be 'auto' or an integer >= 1; got {value!r}",
         cause="cluster --n that is neither 'auto' nor a whole number >= 1.", fix="Write auto or a number of clusters.")
register("out-is-a-file", _UsageError, "--out {out!r} is a file, not a folder",
         cause="The output path names an existing file.", fix="Give a folder path (new or existing).")
register("out-not-writable", _UsageError, "--out {out!r} cannot be created or written ({probe!r} is not a writable folder)",
         cause="The output folder, or the folder it would be created in, cannot be written.",
         fix="Choose a folder you can write to, or fix its permissions.")
register("constraint-file-columns", _UsageError, "{option} {path}: the file needs the columns {columns}",
         cause="A constraint file (--require, --forbid, --tiers) lacks its header columns.",
         fix="Write a header line: source,target for --require/--forbid; variable,tier for --tiers.")
register("task-column-one-file", _UsageError, "--task-column splits one CSV file into tasks; got {n} files",
         cause="With --task-column every task comes from the rows of a single file.",
         fix="Give one CSV file, or leave out --task-column to read one task per file.")
register("duplicate-task-file", _UsageError, "two CSV files give the task name {name!r}; rename one",
         cause="Two input files with the same file name (in different folders) would be the same task.",
         fix="Rename one of the files: the task name is the file name without .csv.")
register("option-penalty-list-number", _UsageError, "--penalty: {value!r} is not a number",
         cause="bench --penalty with an entry that is not a number.", fix="Write numbers in [0, 1] separated by commas.")
register("option-penalty-list-range", _UsageError, "--penalty: {value!r} is outside [0, 1]",
         cause="bench --penalty with an entry outside [0, 1].", fix="Write numbers in [0, 1] separated by commas.")


def _delta_arg(text):
    try:
        value = float(text)
    except ValueError:
        raise error("option-unit-number", value=text) from None
    if not 0.0 <= value <= 1.0:
        raise error("option-unit-range", value=text)
    return value


def _penalty_arg(text):
    return "auto" if text == "auto" else _delta_arg(text)


def _validation_arg(text):
    try:
        value = float(text)
    except ValueError:
        raise error("option-validation", value=text) from None
    if value <= 0 or (value >= 1 and value != int(value)):
        raise error("option-validation", value=text)
    return int(value) if value >= 1 else value


def _int_at_least(minimum):
    """An argparse type: an integer >= ``minimum``."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise error("option-integer", minimum=minimum, value=text) from None
        if value < minimum:
            raise error("option-integer", minimum=minimum, value=text)
        return value

    return parse


_nonneg_int = _int_at_least(0)
_cv_arg = _int_at_least(2)
_seed_arg = _int_at_least(0)


def _jobs_arg(text):
    try:
        value = int(text)
    except ValueError:
        raise error("option-jobs", value=text) from None
    if value == 0:
        raise error("option-jobs", value=text)
    return value


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise error("option-positive", value=text) from None
    if not (value > 0 and value != float("inf")):
        raise error("option-positive", value=text)
    return value


SCHEDULER_HELP = ("run the parallel work on the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.5:8786; "
                  "needs pip install \"mtbn[dask]\"); every worker is used and --jobs is ignored; "
                  "results equal a local run's (see docs/scaling.md)")


def _progress(args, *, always=False):
    """Progress for a command: bars and lines on a terminal, lines with --progress (or ``always``), else log
    records only."""
    from mtbn.progress import Reporter

    tty = sys.stderr.isatty()
    if not (tty or always or getattr(args, "progress", False)):
        return Reporter()
    if tty:
        from tqdm.auto import tqdm

        return Reporter(callback=lambda message: tqdm.write(message, file=sys.stderr), bars=True)
    return Reporter(callback=lambda message: print(message, file=sys.stderr, flush=True))


# ---------------------------------------------------------------------------
# mtbn learn
# ---------------------------------------------------------------------------


def _write_task_outputs(out, name, dag, network, export=()):
    from mtbn.networks import write_bif

    write_bif(network, os.path.join(out, f"{name}.bif"))  # first: it refuses labels BIF cannot hold
    dag.write(os.path.join(out, f"{name}.edges.csv"))
    for fmt in export:
        dag.write(os.path.join(out, f"{name}.{fmt}"))


def _read_table(path, option, columns):
    """Rows of the given columns of a small CSV file (constraints), as tuples of str; None without a file."""
    if path is None:
        return None
    import pandas as pd

    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df.columns = [c.strip() for c in df.columns]
    if any(c not in df.columns for c in columns):
        raise _usage_error("constraint-file-columns", option=option, path=path, columns=",".join(columns))
    return [tuple(str(x).strip() for x in row) for row in df[list(columns)].itertuples(index=False)]


def _tier_key(level):
    try:
        return (0, float(level), "")
    except ValueError:
        return (1, 0.0, level)


def _export_arg(text):
    from mtbn.graph import GRAPH_FORMATS

    formats = [f.strip().lower().lstrip(".") for f in text.split(",") if f.strip()]
    for f in formats:
        if f not in GRAPH_FORMATS or f == "csv":
            raise error("option-export", value=f, formats=", ".join(x for x in GRAPH_FORMATS if x != "csv"))
    return tuple(dict.fromkeys(formats))


def _check_out(out):
    """Refuse an --out folder that cannot be written, before any work is done."""
    path = os.path.abspath(out)
    if os.path.exists(path) and not os.path.isdir(path):
        raise _usage_error("out-is-a-file", out=out)
    # The outputs are staged in a hidden folder beside --out, so its parent must be writable too.
    probe = os.path.dirname(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe) or not os.access(probe, os.W_OK | os.X_OK):
        raise _usage_error("out-not-writable", out=out, probe=probe)
    if os.path.isdir(path) and not os.access(path, os.W_OK | os.X_OK):
        raise _usage_error("out-not-writable", out=out, probe=path)


@contextlib.contextmanager
def _staged_output(out):
    """Write a command's outputs into a hidden folder beside ``out``; publish them only on success.

    A failed or interrupted run removes the hidden folder, so it leaves
    nothing behind and never touches a previous result. On success a new or
    empty ``out`` is replaced by one rename; an ``out`` that already holds
    files gets ours file by file (each an atomic rename), keeping the rest.
    """
    final = os.path.abspath(out)
    parent = os.path.dirname(final)
    os.makedirs(parent, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}.", suffix=".partial", dir=parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(stage, 0o777 & ~umask)
    try:
        yield stage
        if os.path.isdir(final) and not os.listdir(final):
            os.rmdir(final)
        if not os.path.exists(final):
            os.replace(stage, final)
            return
        for root, _, files in os.walk(stage):
            dest = os.path.normpath(os.path.join(final, os.path.relpath(root, stage)))
            os.makedirs(dest, exist_ok=True)
            for name in files:
                _move_file(os.path.join(root, name), os.path.join(dest, name))
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _move_file(src, dst):
    """Replace ``dst`` by ``src`` atomically, also when ``dst`` is on another file system (a mount point)."""
    import errno

    try:
        os.replace(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        tmp = f"{dst}.mtbn-partial"
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)


def cmd_learn(args):
    from mtbn.data import make_taskset, read_csv

    _check_out(args.out)
    t0 = time.perf_counter()
    progress = _progress(args)
    if args.task_column is not None:
        if len(args.csv) != 1:
            raise _usage_error("task-column-one-file", n=len(args.csv))
        whole = read_csv(args.csv[0], dropna=args.dropna).to_dataframe()
        taskset = make_taskset(whole, task_column=args.task_column)
    else:
        names = [os.path.splitext(os.path.basename(p))[0] for p in args.csv]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise _usage_error("duplicate-task-file", name=dupes[0])
        taskset = make_taskset([read_csv(p, dropna=args.dropna) for p in args.csv])
    required = _read_table(args.require, "--require", ("source", "target"))
    forbidden = _read_table(args.forbid, "--forbid", ("source", "target"))
    tiers = _read_table(args.tiers, "--tiers", ("variable", "tier"))
    if tiers is not None:
        tiers = [[v for v, t in tiers if t == level] for level in sorted({t for _, t in tiers}, key=_tier_key)]
    options = {k: v for k, v in vars(args).items() if k not in ("func", "csv", "command")}
    summary = {"tasks": {}, "options": options, "inputs": list(args.csv)}
    import warnings

    from mtbn.exceptions import TransferWarning
    from mtbn.learn import learn_structures

    # One learner for every prior: --prior none runs the same single-task
    # searches (same seeds) that the multitask search starts from.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        res = learn_structures(
            taskset,
            prior=args.prior,
            penalty=args.penalty,
            reversal=args.reversal,
            equivalent_sample_size=args.ess,
            max_parents=args.max_parents,
            cv=args.cv,
            validation=args.validation,
            force_transfer=args.force_transfer,
            n_restarts=args.restarts,
            start=args.start,
            n_joint_restarts=args.joint_restarts,
            required_edges=required,
            forbidden_edges=forbidden,
            tiers=tiers,
            random_state=args.seed,
            n_jobs=args.jobs,
            progress=progress,
        )
    for t, task in enumerate(taskset.tasks):
        dag = res.graphs[t]
        summary["tasks"][task.name] = {
            "edges": [list(e) for e in dag.edges(names=True)],
            "n_edges": dag.n_edges,
            "score": float(res.task_log_likelihoods[t]),
            "n_samples": task.n_samples,
        }
    if args.prior != "none":
        summary["penalty"] = res.penalty
        summary["log_score"] = res.log_score
        summary["penalty_path"] = res.penalty_path_records()
        if res.penalty_path:
            summary["penalty_path_structures_learned_on"] = (
                "the first fold's training rows (the validation split's with --validation); the final "
                "structures and CPTs are learned on all rows"
            )
        if res.transfer is not None:
            summary["transfer"] = res.transfer
            print(res.transfer["message"])
    boot = None
    if args.bootstrap:
        from mtbn.bootstrap import bootstrap_structures

        boot = bootstrap_structures(
            taskset, n_boot=args.bootstrap, prior=args.prior, penalty=res.penalty if args.prior != "none" else 0.0,
            reversal=args.reversal, equivalent_sample_size=args.ess, max_parents=args.max_parents,
            n_restarts=args.restarts, start=args.start, n_joint_restarts=args.joint_restarts,
            random_state=args.seed, n_jobs=args.jobs, progress=progress)
        averaged = {name: boot.averaged_network(name) for name in taskset.names}
        summary["bootstrap"] = {
            "n_boot": args.bootstrap, "penalty": boot.penalty,
            "thresholds": {name: thr for name, (_, thr) in averaged.items()},
            "files": "bootstrap/<task>.strength.csv (per task: from, to, strength, direction), "
                     "bootstrap/edges.csv (per adjacency: each task's strength, present in all / one / no task), "
                     "bootstrap/<task>.averaged.edges.csv (the averaged network at the threshold)",
        }
    summary["seconds"] = time.perf_counter() - t0
    with _staged_output(args.out) as out:
        for t, task in enumerate(taskset.tasks):
            _write_task_outputs(out, task.name, res.graphs[t], res.networks[t], args.export)
        if args.report:
            from mtbn.report import write_learn_report

            write_learn_report(res, out, bootstrap=boot, options=options)
        if boot is not None:
            folder = os.path.join(out, "bootstrap")
            os.makedirs(folder)
            boot.edge_table().to_csv(os.path.join(folder, "edges.csv"), index=False)
            for name, (dag, _) in averaged.items():
                boot.strength(name).to_csv(os.path.join(folder, f"{name}.strength.csv"), index=False)
                dag.write(os.path.join(folder, f"{name}.averaged.edges.csv"))
        with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as fh:
            json.dump(summary, fh, indent=2)
    print(f"learned {len(taskset)} task(s) in {summary['seconds']:.2f} s; wrote {args.out}")
    for name, info in summary["tasks"].items():
        print(f"  {name}: {info['n_edges']} edges, score {info['score']:.2f}")
    return 0


# ---------------------------------------------------------------------------
# mtbn demo
# ---------------------------------------------------------------------------


def cmd_demo(args):
    import tempfile

    out = args.out or tempfile.mkdtemp(prefix="mtbn-demo-")
    print(f"mtbn demo: the perturbed ALARM benchmark (5 related tasks, each edge deleted with probability 0.05, "
          f"1000 rows per task), {args.trials} trials on {args.jobs} job(s); STL vs IDENTICAL vs POOLED vs "
          f"multitask learning (Paired prior; MTL: penalty by 5-fold cross-validation with the negative-transfer "
          f"guard; MTL-PAPER: the paper's 50 validation rows). Results in {out}",
          flush=True)
    return _run_bench("alarm", out, methods=["stl", "identical", "pooled", "mtl", "mtl-paper", "mtl-oracle"],
                      penalty_grid=None, n_trials=args.trials, seed=args.seed, n_tasks=5, p_del=0.05,
                      n_train=args.rows, validation=50, n_test=20000, n_restarts=20, n_jobs=args.jobs,
                      progress=_progress(args, always=True), plots=True)


def _parse_penalty_list(text):
    values = []
    for part in text.split(","):
        try:
            v = float(part)
        except ValueError:
            raise _usage_error("option-penalty-list-number", value=part) from None
        if not 0 <= v <= 1:
            raise _usage_error("option-penalty-list-range", value=part)
        values.append(v)
    return values


def cmd_bench(args):
    from mtbn.evaluate import fixed_penalty_method

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    grid = None
    if args.penalty not in (None, "auto"):
        values = _parse_penalty_list(args.penalty)
        if len(values) == 1:
            methods = [m for m in methods if not m.startswith("mtl")] + [fixed_penalty_method(values[0])]
        else:
            grid = values
            if "sweep" in methods or not any(m.startswith("mtl") for m in methods):
                methods = [m for m in methods if m != "sweep"]
            methods += [fixed_penalty_method(v) for v in values if fixed_penalty_method(v) not in methods]
    return _run_bench(args.problem, args.out, methods=methods, penalty_grid=grid, n_trials=args.trials,
                      seed=args.seed, n_tasks=args.tasks, p_del=args.pdel, n_train=args.train,
                      validation=args.validation, n_test=args.test_rows, n_restarts=args.restarts, n_jobs=args.jobs,
                      progress=_progress(args), plots=not args.no_plots)


def _run_bench(problem, out, *, plots, **options):
    """Run a benchmark, print its summary and what was written (``mtbn bench`` and ``mtbn demo``)."""
    from mtbn.evaluate import run_benchmark

    t0 = time.perf_counter()
    results, summary = run_benchmark(problem, out, plots=plots, **options)
    print(summary)
    import importlib.util

    if not plots:
        written = ""
    elif importlib.util.find_spec("matplotlib") is None:
        written = " (no plots: matplotlib is not installed)"
    else:
        written = " and plots"
    print(f"{time.perf_counter() - t0:.1f} s; wrote {os.path.join(out, 'results.csv')}, "
          f"{os.path.join(out, 'summary.md')}{written}")
    return 0


# ---------------------------------------------------------------------------
# mtbn relatedness / select / cluster (paper Section 2.4)
# ---------------------------------------------------------------------------


_folds_arg = _int_at_least(2)


def _select_n_arg(text):
    if text in ("auto", "gap"):
        return text
    try:
        value = int(text)
    except ValueError:
        raise error("option-select-n", value=text) from None
    if value < 0:
        raise error("option-select-n", value=text)
    return value


def _cluster_n_arg(text):
    if text == "auto":
        return text
    try:
        value = int(text)
    except ValueError:
        raise error("option-cluster-n", value=text) from None
    if value < 1:
        raise error("option-cluster-n", value=text)
    return value


def _read_named_tasks(paths, dropna):
    """Read one task per CSV file, named by the file stem (names must be unique)."""
    from mtbn.data import read_csv

    names = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise _usage_error("duplicate-task-file", name=dupes[0])
    return [read_csv(p, dropna=dropna) for p in paths]


def _options_of(args):
    return {k: v for k, v in vars(args).items() if k not in ("func", "csv", "command")}


def _short(value):
    from mtbn.report import format_number

    return format_number(value, 4)


def _task_command(args, compute, write, summarise):
    """The skeleton of ``relatedness``, ``select`` and ``cluster``: read the CSV tasks, compute, write the
    report into a staged output folder, print a summary."""
    _check_out(args.out)
    t0 = time.perf_counter()
    progress = _progress(args)
    tasks = _read_named_tasks(args.csv, args.dropna)
    res = compute(tasks, progress)
    options = _options_of(args)
    options["inputs"] = list(args.csv)
    progress("writing the report")
    with _staged_output(args.out) as out:
        written = write(res, out, options)
    summarise(res, time.perf_counter() - t0, written)
    return 0


def cmd_relatedness(args):
    from mtbn.relatedness import direct_relatedness, indirect_relatedness
    from mtbn.report import write_relatedness_report

    def compute(tasks, progress):
        progress(f"{args.measure} relatedness of {len(tasks)} task(s)")
        if args.measure == "direct":
            return direct_relatedness(tasks, penalty=args.penalty, n_restarts=args.restarts, random_state=args.seed,
                                      equivalent_sample_size=args.ess, n_jobs=args.jobs,
                                      noise_floor=args.noise_floor)
        return indirect_relatedness(tasks, n_folds=args.folds, equivalent_sample_size=args.ess,
                                    n_restarts=args.restarts, random_state=args.seed, n_jobs=args.jobs)

    def summarise(rel, seconds, paths):
        print(f"{args.measure} relatedness of {len(rel.names)} task(s) in {seconds:.2f} s; "
              f"wrote {', '.join(os.path.basename(p) for p in paths.values())} to {args.out}")
        reading = " (row = task being explained, column = structure source)" if args.measure == "indirect" else ""
        print(f"distance, smaller = more related{reading}:")
        print(rel.distance.to_string(float_format=_short))

    return _task_command(args, compute, write_relatedness_report, summarise)


def cmd_select(args):
    from mtbn.relatedness import select_tasks
    from mtbn.report import write_selection_report

    def compute(tasks, progress):
        return select_tasks(
            tasks, args.principal, measure=args.measure, n=args.n, selection_validation=args.selection_validation,
            penalty=args.penalty, validation=args.validation, relatedness_penalty=args.relatedness_penalty,
            equivalent_sample_size=args.ess, n_restarts=args.restarts, max_tasks=args.max_tasks,
            n_folds=args.folds, noise_floor=args.noise_floor, random_state=args.seed, n_jobs=args.jobs,
            progress=progress,
        )

    def write(res, out, options):
        _write_task_outputs(out, res.principal, res.graph, res.network)
        return write_selection_report(res, out, options)

    def summarise(res, seconds, _):
        print(f"selected {res.n_selected} of {len(res.order)} task(s) for {res.principal!r} ({res.how}) in "
              f"{seconds:.2f} s; wrote {args.out}")
        print(f"  {'rank':>4}  {'task':<20} {'distance':>10}  selected")
        for i, name in enumerate(res.order):
            mark = "yes" if name in res.selected else ""
            gap = "   <- largest gap below" if i + 1 == res.gap and res.gap < len(res.order) else ""
            print(f"  {i + 1:>4}  {name:<20} {_short(res.distances[name]):>10}  {mark}{gap}")
        penalty = "n/a" if res.penalty != res.penalty else _short(res.penalty)
        print(f"  {res.principal}: {res.graph.n_edges} edges (single-task: {res.single_task_graph.n_edges}); "
              f"penalty {penalty}")

    return _task_command(args, compute, write, summarise)


def cmd_cluster(args):
    from mtbn.relatedness import cluster_tasks
    from mtbn.report import write_clustering_report

    def compute(tasks, progress):
        return cluster_tasks(
            tasks, n_clusters=args.n, selection_validation=args.selection_validation, penalty=args.penalty,
            validation=args.validation, relatedness_penalty=args.relatedness_penalty,
            equivalent_sample_size=args.ess, n_restarts=args.restarts, max_clusters=args.max_clusters,
            noise_floor=args.noise_floor, random_state=args.seed, n_jobs=args.jobs, progress=progress,
        )

    def write(res, out, options):
        for name in res.relatedness.names:
            _write_task_outputs(out, name, res.graphs[name], res.networks[name])
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


# ---------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------


def _add_learning_args(p, common_help, penalty_scope, selection_help):
    """Options shared by ``select`` and ``cluster``: output, penalties, validation splits."""
    p.add_argument("--out", required=True, metavar="DIR", help=common_help["out"])
    p.add_argument("--penalty", default="auto", type=_penalty_arg, metavar="DELTA|auto",
                   help=f"multitask penalty {penalty_scope}, or 'auto' to choose it on a validation "
                   "split (default auto)")
    p.add_argument("--relatedness-penalty", default=0.9, type=_delta_arg, metavar="DELTA",
                   help="penalty used by the direct measure (default 0.9)")
    p.add_argument("--validation", default=0.05, type=_validation_arg, metavar="FRACTION_OR_ROWS",
                   help="rows per task held out to choose the penalty (default 0.05: one validation split, "
                   "as in the paper's task selection; mtbn learn uses 5-fold cross-validation instead)")
    p.add_argument("--selection-validation", default=0.05, type=_validation_arg, metavar="FRACTION_OR_ROWS",
                   help=f"{selection_help} (default 0.05)")


def _add_run_args(p, common_help):
    """Options shared by the relatedness commands: ess, seed, jobs, restarts, dropna, progress."""
    p.add_argument("--ess", default=1.0, type=_positive_float, help=common_help["ess"])
    p.add_argument("--seed", default=0, type=_seed_arg, help=common_help["seed"])
    p.add_argument("--jobs", default=1, type=_jobs_arg, metavar="N", help=common_help["jobs"])
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help=SCHEDULER_HELP)
    p.add_argument("--restarts", default=50, type=_nonneg_int, help=common_help["restarts"])
    p.add_argument("--dropna", action="store_true", help="drop rows with missing values instead of failing")
    p.add_argument("--progress", action="store_true", help="print progress on stderr even when not a terminal")


def _noise_floor_arg(text):
    value = _nonneg_int(text)
    if value == 1:
        raise error("option-noise-floor", value=text)
    return value


register("option-noise-floor", A, "must be 0 (no floor) or a number of replicates >= 2; got {value!r}",
         cause="--noise-floor 1: a floor is a quantile over replicates, so one replicate cannot give it.",
         fix="Write 0 for no floor or 2 or more (10 is the default).")


def _add_noise_floor_arg(p):
    p.add_argument("--noise-floor", default=10, type=_noise_floor_arg, metavar="B",
                   help="direct measure: permutation replicates for the noise floor, the distance tasks that differ "
                   "only by chance stay within; distances within it are marked and never split (default 10; 0 = "
                   "none; each replicate costs one joint search of all tasks)")


class _Parser(argparse.ArgumentParser):
    """Option errors as one line (``mtbn COMMAND: error: ...``, exit 2) pointing to --help."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser():
    from mtbn.benchmarks import PROBLEMS

    parser = _Parser(
        prog="mtbn",
        description="Multitask Bayesian network structure learning: learn the structures of "
        "several related data sets jointly.",
    )
    from mtbn import __version__

    parser.add_argument("--version", action="version", version=f"mtbn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    parser.commands = sub.choices

    p = sub.add_parser(
        "learn",
        help="learn one network per CSV file (one task per file)",
        description="Learn a Bayesian network for each CSV file. Each file is one task: a header of "
        "variable names, cells are state labels (kept verbatim; an empty cell is missing). The task "
        "name is the file stem. Writes DIR/<task>.edges.csv, DIR/<task>.bif and DIR/summary.json.",
    )
    p.add_argument("csv", nargs="+", metavar="CSV", help="one CSV file per task")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--prior", default="paired", choices=["paired", "edit", "none"],
                   help="multitask prior: paired (default), edit, or none (independent single-task learning)")
    p.add_argument("--penalty", default="auto", type=_penalty_arg, metavar="DELTA|auto",
                   help="penalty delta in [0, 1] for differing edges, or 'auto' to choose it on a "
                   "validation split (default auto)")
    p.add_argument("--reversal", default=None, choices=["double", "single"],
                   help="a reversed edge counts as two differences or one (default: double for paired, "
                   "single for edit)")
    p.add_argument("--cv", default=5, type=_cv_arg, metavar="K",
                   help="--penalty auto: K-fold cross-validation within each task, one-standard-error rule "
                   "toward weaker coupling (default 5)")
    p.add_argument("--validation", default=None, type=_validation_arg, metavar="FRACTION_OR_ROWS",
                   help="--penalty auto: the paper's rule instead of --cv: one validation split per task "
                   "(a fraction or a row count; the paper holds out 50 rows), best validation score wins")
    p.add_argument("--force-transfer", action="store_true",
                   help="keep the multitask result even when it does not beat independent learning on "
                   "held-out rows (the negative-transfer guard otherwise returns the single-task structures)")
    p.add_argument("--ess", default=1.0, type=_positive_float, help="BDeu equivalent sample size (default 1)")
    p.add_argument("--seed", default=0, type=_seed_arg, help="random seed (default 0)")
    p.add_argument("--max-parents", default=None, type=_nonneg_int, metavar="K",
                   help="maximum number of parents per variable (default: no limit)")
    p.add_argument("--restarts", default=50, type=_nonneg_int,
                   help="random restarts of the single-task search (default 50)")
    p.add_argument("--start", default="auto", choices=["auto", "single-task", "identical", "empty"],
                   help="start(s) of the joint search: auto (default: single-task, identical and empty "
                   "graphs, best kept) or one of them")
    p.add_argument("--joint-restarts", default=20, type=_nonneg_int, metavar="N",
                   help="random restarts of the joint search per start (default 20)")
    p.add_argument("--jobs", default=1, type=_jobs_arg, metavar="N",
                   help="parallel jobs for the penalty grid and bootstrap replicates (default 1; -1 = all cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help=SCHEDULER_HELP)
    p.add_argument("--report", action="store_true",
                   help="also write DIR/report.html and DIR/report.md: the transfer verdict, the penalty path, "
                   "every task's structure on one layout (edge width = bootstrap frequency with --bootstrap) and "
                   "the edges that differ between tasks")
    p.add_argument("--require", default=None, metavar="FILE",
                   help="edges every task must have: a CSV file with columns source,target")
    p.add_argument("--forbid", default=None, metavar="FILE",
                   help="edges no task may have: a CSV file with columns source,target")
    p.add_argument("--tiers", default=None, metavar="FILE",
                   help="a temporal order: a CSV file with columns variable,tier (numbers or labels, sorted); "
                   "no edge from a later tier into an earlier one; untiered variables are free")
    p.add_argument("--task-column", default=None, metavar="NAME",
                   help="read one CSV file whose column NAME says which task each row belongs to (one network "
                   "per value) instead of one file per task")
    p.add_argument("--export", default=(), type=_export_arg, metavar="FORMATS",
                   help="also write each task's structure as DIR/<task>.<format> for each of these comma-separated "
                   "formats: dot (Graphviz), gml, json (networkx node-link), graphml (default: none; the BIF and "
                   "edges.csv files are always written)")
    p.add_argument("--bootstrap", default=0, type=_nonneg_int, metavar="B",
                   help="also run B bootstrap replicates at the chosen penalty and write edge frequencies per task "
                   "and across tasks, and averaged networks, to DIR/bootstrap/ (default 0: none; each "
                   "replicate costs about one multitask search)")
    p.add_argument("--dropna", action="store_true", help="drop rows with missing values instead of failing")
    p.add_argument("--progress", action="store_true", help="print progress on stderr even when not a terminal")
    p.set_defaults(func=cmd_learn)

    p = sub.add_parser(
        "demo",
        help="a small multitask benchmark on ALARM (about a minute on 2 cores)",
        description="Run a small version of 'mtbn bench alarm': 5 related tasks made from the shipped "
        "ALARM network, single-task vs identical vs pooled vs multitask learning, and print the table.",
    )
    p.add_argument("--trials", default=4, type=int, help="trials (default 4)")
    p.add_argument("--rows", default=1000, type=int, help="training rows per task (default 1000)")
    p.add_argument("--jobs", default=2, type=_jobs_arg, help="parallel trials (default 2)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help=SCHEDULER_HELP)
    p.add_argument("--seed", default=0, type=_seed_arg, help="random seed (default 0)")
    p.add_argument("--out", default=None, metavar="DIR", help="output folder (default: a new temporary folder)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "bench",
        help="run multitask benchmarks (the paper's perturbed ALARM / INSURANCE and more networks)",
        description="Generate related tasks from a shipped network, learn them with several methods and "
        "compare the learned structures with the truth. Writes DIR/results.csv (one row per trial x method "
        "x task), DIR/summary.md and PNG plots. A killed run resumes from the trials already written.",
    )
    p.add_argument("problem", choices=list(PROBLEMS), metavar="PROBLEM",
                   help="the benchmark problem: " + ", ".join(PROBLEMS))
    p.add_argument("--tasks", default=5, type=int, help="number of related tasks (default 5)")
    p.add_argument("--pdel", default=0.05, type=float, help="probability of deleting each edge (default 0.05)")
    p.add_argument("--train", default=1000, type=int, help="training rows per task (default 1000)")
    p.add_argument("--validation", default=50, type=_validation_arg,
                   help="mtl-paper and mtl-oracle: validation rows (or fraction) per task for choosing the "
                   "penalty (default 50, the paper's); mtl uses 5-fold cross-validation")
    p.add_argument("--trials", default=10, type=int, help="trials (default 10)")
    p.add_argument("--methods", default="stl,identical,pooled,mtl,mtl-oracle",
                   help="comma-separated methods: stl, identical, pooled, mtl, mtl-paper, mtl-edit, mtl-single, "
                   "mtl-oracle, mtl@DELTA (default: stl,identical,pooled,mtl,mtl-oracle)")
    p.add_argument("--penalty", default=None, metavar="auto|DELTA|D1,D2,...",
                   help="'auto' (default): choose on validation; one value: multitask learning at that "
                   "penalty; a list: a penalty sweep (mtl@DELTA for each value)")
    p.add_argument("--seed", default=0, type=_seed_arg, help="random seed (default 0)")
    p.add_argument("--jobs", default=1, type=_jobs_arg, help="parallel trials (default 1; -1 = all cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help=SCHEDULER_HELP)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--test-rows", default=20000, type=int, help="test rows per task for KL (default 20000)")
    p.add_argument("--restarts", default=20, type=_nonneg_int, help="restarts of single-task searches (default 20, fewer than the 50 of "
                   "learn/relatedness/select/cluster to keep many trials affordable)")
    p.add_argument("--progress", action="store_true", help="print progress even when stderr is not a terminal")
    p.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    p.set_defaults(func=cmd_bench)

    common_help = {
        "out": "output folder (created if missing)",
        "seed": "random seed (default 0)",
        "jobs": "parallel jobs (default 1; -1 = all cores)",
        "restarts": "random restarts of every single-task search (default 50; 0 = fastest)",
        "ess": "BDeu equivalent sample size (default 1)",
    }

    p = sub.add_parser(
        "relatedness",
        help="measure how related the tasks are (direct or indirect measure)",
        description="Measure task relatedness (paper Section 2.4). direct: learn all tasks jointly at a mild "
        "multitask penalty and take the edit distance between their structures (symmetric, a metric). "
        "indirect: learn each task's structure alone, fit each structure on every other task's training "
        "folds and score that task's held-out fold (k-fold cross-validation). Each CSV file is one task "
        "named by its file stem. Writes DIR/distance.csv (square, task names as index and columns, smaller "
        "= more related; for indirect, row = task being explained and column = structure source), for "
        "indirect also DIR/loglik.csv (mean held-out log-likelihood per row; row = structure source, "
        "column = evaluated task), and a self-contained DIR/report.html with DIR/report.md.",
    )
    p.add_argument("csv", nargs="+", metavar="CSV", help="one CSV file per task")
    p.add_argument("--measure", required=True, choices=["direct", "indirect"], help="relatedness measure")
    p.add_argument("--out", required=True, metavar="DIR", help=common_help["out"])
    p.add_argument("--penalty", default=0.9, type=_delta_arg, metavar="DELTA",
                   help="direct: multitask penalty delta used to learn the structures (default 0.9)")
    p.add_argument("--folds", default=10, type=_folds_arg, metavar="K",
                   help="indirect: number of cross-validation folds (default 10)")
    _add_noise_floor_arg(p)
    _add_run_args(p, common_help)
    p.set_defaults(func=cmd_relatedness)

    p = sub.add_parser(
        "select",
        help="choose related tasks for a principal task and learn its network with them",
        description="Task selection (paper Section 2.4): order the other tasks by their distance from the "
        "principal task, then learn the principal's network with multitask structure learning together "
        "with the N closest tasks. N is chosen on a validation split of the principal's rows (auto), by "
        "the largest gap in the sorted distances (gap, 'gap hunting'), or given. Each CSV file is one task "
        "named by its file stem. Writes DIR/selected.json, DIR/<principal>.edges.csv, DIR/<principal>.bif, "
        "DIR/distance.csv (for indirect also DIR/loglik.csv) and a self-contained DIR/report.html with "
        "DIR/report.md.",
    )
    p.add_argument("csv", nargs="+", metavar="CSV", help="one CSV file per task")
    p.add_argument("--principal", required=True, metavar="NAME",
                   help="the task whose network matters (a CSV file stem)")
    p.add_argument("--measure", default="direct", choices=["direct", "indirect"],
                   help="relatedness measure used to order the tasks (default direct)")
    p.add_argument("--n", default="auto", type=_select_n_arg, metavar="auto|gap|INT",
                   help="number of tasks to learn with: auto (validation, default), gap (before the largest "
                   "gap in the sorted distances) or a number")
    _add_learning_args(p, common_help, "of the final learning", "principal rows held out to choose N with --n auto")
    p.add_argument("--folds", default=10, type=_folds_arg, metavar="K",
                   help="cross-validation folds of the indirect measure (default 10)")
    p.add_argument("--max-tasks", default=None, type=_nonneg_int, metavar="K",
                   help="largest N tried by --n auto (default: all)")
    _add_noise_floor_arg(p)
    _add_run_args(p, common_help)
    p.set_defaults(func=cmd_select)

    p = sub.add_parser(
        "cluster",
        help="cluster the tasks and learn the tasks of each cluster together",
        description="Task clustering (paper Section 2.4.3, Figure 2.16): average-link hierarchical "
        "clustering of the tasks on the direct distance, then multitask structure learning within each "
        "cluster. The number of clusters is chosen on a validation split of every task (auto) or given. "
        "Each CSV file is one task named by its file stem. Writes DIR/clusters.json, DIR/<task>.edges.csv "
        "and DIR/<task>.bif for every task, DIR/distance.csv and a self-contained DIR/report.html with "
        "DIR/report.md.",
    )
    p.add_argument("csv", nargs="+", metavar="CSV", help="one CSV file per task")
    p.add_argument("--n", default="auto", type=_cluster_n_arg, metavar="auto|INT",
                   help="number of clusters: auto (validation, default) or a number")
    _add_learning_args(p, common_help, "within each cluster",
                       "rows per task held out to choose the number of clusters with --n auto")
    p.add_argument("--max-clusters", default=None, type=_nonneg_int, metavar="K",
                   help="largest number of clusters tried by --n auto (default: all)")
    _add_noise_floor_arg(p)
    _add_run_args(p, common_help)
    p.set_defaults(func=cmd_cluster)
    return parser


# API argument names whose CLI option is spelled differently (the option's dest).
_API_TO_DEST = {"p_del": "pdel", "n_train": "train", "n_folds": "folds", "n_restarts": "restarts",
                "random_state": "seed", "equivalent_sample_size": "ess", "n_jobs": "jobs", "n_tasks": "tasks",
                "n_test": "test_rows", "n_trials": "trials", "n_joint_restarts": "joint_restarts",
                "n_clusters": "n"}


def _in_cli_terms(message, command):
    """Name the option the user typed where a library message names an API argument.

    ``n_folds=10`` becomes ``--folds 10`` and ``p_del must`` becomes
    ``--pdel must``; names inside quotes (the user's own labels) or
    backticks (Python code) are kept.
    """
    if command is None:
        return message
    options = {a.dest: a.option_strings[-1] for a in command._actions if a.option_strings}

    def swap(m):
        opt = options.get(_API_TO_DEST.get(m.group(1), m.group(1)))
        if opt is None:
            return m.group(0)
        return f"{opt} " if m.group(2) == "=" else f"{opt}{m.group(2)}"

    return re.sub(r"(?<![\w'\"`-])([a-z][a-z_]*)(=| must\b)", swap, message)


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the clean-up of a run happens."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def _stop_workers():
    """Kill joblib's worker processes now instead of leaving them to time out."""
    try:
        from joblib.externals.loky import reusable_executor

        executor = reusable_executor._executor
        if executor is not None:
            executor.shutdown(wait=False, kill_workers=True)
    except Exception:  # pragma: no cover - best effort on the way out
        pass


def main(argv=None):
    """Entry point of the ``mtbn`` command.

    Exit status: 0 done, 2 a one-line error, 130 interrupted (SIGINT),
    143 terminated (SIGTERM); on 130 and 143 the worker processes are
    stopped and no partial output is left.
    """
    import threading

    from mtbn.exceptions import MtbnError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        print("mtbn: error: choose a command (see the list above)", file=sys.stderr)
        return 2
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main else None
    try:
        scheduler = getattr(args, "scheduler", None)
        if scheduler is None:
            return args.func(args)
        from mtbn.engine import dask_engine

        with dask_engine(scheduler, what="--scheduler"):
            args.jobs = -1
            return args.func(args)
    except (MtbnError, _UsageError, OSError) as exc:
        print(f"mtbn: error: {_in_cli_terms(str(exc), parser.commands.get(args.command))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _stop_workers()
        print("mtbn: interrupted", file=sys.stderr)
        return 130
    except _Terminated:
        _stop_workers()
        print("mtbn: terminated", file=sys.stderr)
        return 143
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
