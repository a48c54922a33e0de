"""``mtbn relatedness``: the distance between every two tasks (direct or indirect measure)."""

import os

from mtbn.cli import values
from mtbn.cli.common import _short, _task_command
from mtbn.cli.options import _add_folds, _add_measure, _add_noise_floor, _add_run, _add_search, _add_tasks
from mtbn.cli.values import _usage_error


def add_parser(sub):
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
    _add_tasks(p)
    _add_measure(p, required=True)
    p.add_argument("--penalty", default=0.9, type=values.unit_interval, metavar="DELTA",
                   help="direct: multitask penalty delta used to learn the structures (default 0.9)")
    _add_folds(p, "indirect: number of cross-validation folds (default 10)")
    _add_noise_floor(p)
    p.add_argument("--boot", default=0, type=values.nonneg_int, metavar="B",
                   help="direct measure: bootstrap replicates for a 95%% interval of every distance, written to "
                   "DIR/distance_low.csv and DIR/distance_high.csv and shown in the report (default 0 = none; each "
                   "replicate costs one joint search of all tasks)")
    _add_search(p)
    _add_run(p)
    p.set_defaults(func=cmd_relatedness)


def cmd_relatedness(args):
    """``mtbn relatedness``: the distance between every two tasks (direct or indirect measure)."""
    from mtbn.relatedness import direct_relatedness, indirect_relatedness
    from mtbn.report import write_relatedness_report

    if args.measure is None and args.from_dir is None:
        raise _usage_error("measure-required")

    def compute(tasks, progress, rel):
        if rel is not None:
            from mtbn.relatedness.result import check_relatedness

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
