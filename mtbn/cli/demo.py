"""``mtbn demo``: the main job on the shipped ALARM benchmark, in a temporary folder."""

import sys

from mtbn.cli.bench import _bench_in, _run_bench
from mtbn.cli.common import progress_for
from mtbn.cli.options import _add_run


def add_parser(sub):
    p = sub.add_parser(
        "demo",
        help="a small multitask benchmark on ALARM (under a minute on 2 cores)",
        description="Run a small version of 'mtbn bench alarm': 3 related tasks made from the shipped "
        "ALARM network, single-task vs identical vs pooled vs multitask learning, and print the table "
        "(about 29 s on 2 cores with the defaults).",
    )
    p.add_argument("--trials", default=4, type=int, help="trials (default 4)")
    p.add_argument("--tasks", default=3, type=int, help="related tasks per trial (default 3; the paper's "
                   "benchmark has 5: 'mtbn bench alarm')")
    p.add_argument("--rows", default=1000, type=int, help="training rows per task (default 1000)")
    _add_run(p, jobs_help="parallel trials (at most the usable cores)", jobs_default=2, jobs_metavar=None)
    p.add_argument("--out", default=None, metavar="DIR", help="output folder for results.csv, summary.md and the "
                   "plots (default: a temporary folder, removed at the end; an interrupted demo keeps it and says "
                   "how to resume); an earlier demo's folder resumes")
    p.add_argument("--overwrite", action="store_true", help="start again in --out, discarding the earlier run there")
    p.add_argument("--progress", action="store_true", help="accepted for symmetry with bench: the demo always "
                   "prints its progress on stderr")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args):
    """``mtbn demo``: a small ``bench alarm`` with every method, in ``--out`` or a temporary folder.

    The temporary folder is removed when the demo finishes; an interrupted
    demo keeps it and says how to resume from it.
    """
    import shutil
    import tempfile

    from mtbn.cli.signals import Terminated, raise_if_stopped

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
        raise_if_stopped()  # a signal some library swallowed: the folder is kept all the same
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
