"""``mtbn bench``: the perturbed-network benchmarks (single-task, pooled and multitask learning)."""

import os
import time

from mtbn.cli import files, values
from mtbn.cli.common import progress_for
from mtbn.cli.files import claimed_out
from mtbn.cli.options import _add_run, _add_setting
from mtbn.cli.values import penalty_list
from mtbn.learn.settings import MULTITASK


def add_parser(sub):
    from mtbn.benchmarks import PROBLEMS

    p = sub.add_parser(
        "bench",
        help="run multitask benchmarks (the paper's perturbed ALARM / INSURANCE and more networks)",
        description="Generate related tasks from a shipped network (or a network file), learn them with several "
        "methods and compare the learned structures with the truth. Writes DIR/results.csv (one row per trial x method "
        "x task), DIR/summary.md and PNG plots. A killed run resumes from the trials already written.",
    )
    p.add_argument("problem", metavar="PROBLEM",
                   help="the benchmark problem: " + ", ".join(PROBLEMS) + "; or a network file (.bif, .bif.gz, "
                   ".xml, .net, .uai) whose related tasks delete edges as alarm's do; or KIND:FILE, the problems "
                   "alarm-KIND's construction on that file (KIND: ind, unrelated, random, mixed, marginals, cptshare, "
                   "lookalike)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="output folder: new or empty, or one holding a run of the same benchmark (which resumes)")
    p.add_argument("--overwrite", action="store_true", help="start again in --out, discarding the earlier run there")
    p.add_argument("--tasks", default=5, type=int, help="number of related tasks (default 5)")
    p.add_argument("--pdel", default=0.05, type=float, help="probability of deleting each edge (default 0.05)")
    p.add_argument("--train", default=1000, type=int, help="training rows per task (default 1000)")
    p.add_argument("--validation", default=50, type=values.validation,
                   help="mtl-paper and mtl-oracle: validation rows (or fraction) per task for choosing the "
                   "penalty (default 50, the paper's); mtl uses 5-fold cross-validation")
    p.add_argument("--test-rows", default=20000, type=int, help="test rows per task for KL (default 20000)")
    p.add_argument("--trials", default=10, type=int, help="trials (default 10)")
    _add_bench_methods(p)
    _add_setting(p, MULTITASK["n_restarts"], default=20,
                 help="restarts of single-task searches (fewer than the 50 of learn/relatedness/select/cluster to "
                 "keep many trials affordable)")
    _add_run(p, jobs_help="parallel trials (-1 = all cores; at most the usable cores)", jobs_metavar=None)
    p.add_argument("--progress", action="store_true", help="print progress even when stderr is not a terminal")
    p.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    p.set_defaults(func=cmd_bench)


def _add_bench_methods(p):
    """The methods compared and their penalties."""
    from mtbn.evaluate import METHODS

    p.add_argument("--methods", default="stl,identical,pooled,mtl,mtl-oracle",
                   help=f"comma-separated methods: {', '.join(METHODS)}, mtl@DELTA "
                   "(default: stl,identical,pooled,mtl,mtl-oracle)")
    p.add_argument("--penalty", default=None, metavar="auto|DELTA|D1,D2,...",
                   help="'auto' (default): choose on validation; one value: multitask learning at that "
                   "penalty; a list: a penalty sweep (mtl@DELTA for each value)")


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
    from mtbn.benchmarks import problem_source

    problem_source(args.problem)  # an unknown problem or unreadable network is refused before --out is claimed
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
