"""``mtbn select``: the tasks to learn a principal task with, chosen by relatedness."""

from mtbn._validation import format_penalty
from mtbn.cli import files, values
from mtbn.cli.common import _short, _task_command
from mtbn.cli.options import (
    _add_folds,
    _add_measure,
    _add_noise_floor,
    _add_run,
    _add_search,
    _add_selection,
    _add_tasks,
)
from mtbn.learn.settings import MULTITASK


def add_parser(sub):
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
    _add_tasks(p)
    p.add_argument("--principal", required=True, metavar="NAME",
                   help="the task whose network matters (a CSV file stem)")
    _add_measure(p, required=False)
    p.add_argument("--n", default="auto", type=values.select_n, metavar="auto|gap|INT",
                   help="number of tasks to learn with: auto (validation, default), gap (before the largest "
                   "gap in the sorted distances) or a number")
    _add_selection(p, "of the final learning", "principal rows held out to choose N with --n auto")
    _add_folds(p, "cross-validation folds of the indirect measure (default 10)")
    p.add_argument("--max-tasks", default=None, type=values.nonneg_int, metavar="K",
                   help="largest N tried by --n auto (default: all)")
    _add_noise_floor(p)
    _add_search(p)
    _add_run(p)
    p.set_defaults(func=cmd_select)


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
